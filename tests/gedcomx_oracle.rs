//! Our GEDCOM X output read by a third-party parser: the `gedcomx` crate
//! (a dev-dependency only) deserialises both formats into its own model,
//! checking the properties it requires and the formal date grammar. The
//! counts and key values it reads must be ours (read back with
//! serde_json); the citation elements, which it does not know, are
//! checked by our own reading of the JSON.
//!
//! Inputs: a document exercising each mapping, every file of `corpus/`,
//! and of `../shared/corpus` when it is there.

#![cfg(feature = "gedcomx")]

#[path = "../benches/support/generate.rs"]
mod generate;

use std::path::PathBuf;

use gedcom_elf::gedcomx::map::place_id;
use gedcom_elf::gedcomx::{to_writer, Format, Options, CEV, ELF};
use serde_json::Value;

const MAPPINGS: &str = "0 HEAD\n1 CHAR UTF-8\n1 LANG English\n1 SUBM @U1@\n\
0 @U1@ SUBM\n1 NAME Ann Submitter\n1 PHON +44 1 2345\n1 EMAIL ann@@example.org\n\
0 @I1@ INDI\n1 NAME John /Smith/ Jr\n2 NICK Jack\n2 TYPE birth\n1 SEX M\n1 RESN privacy\n\
1 BIRT\n2 DATE BET @#DJULIAN@ 1700 AND 1710\n2 PLAC York\n3 MAP\n4 LATI N53.96\n4 LONG W1.08\n2 SOUR @S1@\n3 PAGE p. 4\n3 QUAY 2\n\
1 DEAT\n2 DATE ABT 1790\n2 AGE 85y\n2 CAUS fever\n1 EVEN\n2 TYPE Award\n1 OCCU Baker\n\
1 REFN 42\n1 _UID 0123\n1 CHAN\n2 DATE 2 JAN 2001\n3 TIME 10:20:30\n1 OBJE @O1@\n\
1 NOTE Plain note\n2 CONT on two lines\n1 SOUR A family bible\n\
0 @I2@ INDI\n1 NAME Mary /Jones/\n2 GIVN Mary\n2 SPFX de\n2 SURN Jones\n1 SEX F\n\
0 @I3@ INDI\n1 NAME Tom /Smith/\n1 FAMC @F1@\n2 PEDI adopted\n\
0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n2 DATE 1875\n2 PLAC Leeds\n\
0 @F2@ FAM\n1 WIFE @I2@\n1 CHIL @I3@\n\
0 @S1@ SOUR\n1 AUTH Clerk, Parish\n1 TITL Register of York\n1 ABBR York\n1 PUBL York, 1800\n\
1 REPO @R1@\n2 CALN 12/3\n1 DATA\n2 EVEN BIRT, DEAT\n3 DATE FROM 1700 TO 1800\n3 PLAC York\n\
1 TEXT Baptised this day\n\
0 @R1@ REPO\n1 NAME York Archives\n1 ADDR 1 Main St\n2 CITY York\n1 WWW https://example.org/\n\
0 @O1@ OBJE\n1 FILE photo.jpg\n2 FORM jpg\n2 TITL Portrait\n\
0 @N1@ NOTE A shared note\n0 TRLR\n";

fn convert(input: &[u8], format: Format) -> Option<String> {
    let mut out = Vec::new();
    let options = Options {
        format,
        pretty: false,
        ..Options::default()
    };
    to_writer(input, &mut out, options).ok()?;
    Some(String::from_utf8(out).unwrap())
}

fn ids(v: &Value, section: &str) -> Vec<String> {
    v[section]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x["id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Converts `input` both ways and checks the oracle reads what we wrote;
/// gives our own reading of the JSON.
fn check(name: &str, input: &[u8]) -> Option<Value> {
    let json = convert(input, Format::Json)?;
    let ours: Value = serde_json::from_str(&json).unwrap();
    let theirs = gedcomx::Gedcomx::from_json_str(&json)
        .unwrap_or_else(|e| panic!("{name}: the gedcomx crate refuses our JSON: {e}"));
    let xml = convert(input, Format::Xml).unwrap();
    let from_xml = gedcomx::Gedcomx::from_xml_str(&xml)
        .unwrap_or_else(|e| panic!("{name}: the gedcomx crate refuses our XML: {e}"));
    // The crate's XML reader trims the white space around text (XML keeps
    // it); its JSON reader does not.
    for (doc, trims) in [(&theirs, false), (&from_xml, true)] {
        let text = |s: &str| match trims {
            true => s.trim().to_string(),
            false => s.to_string(),
        };
        let their_ids =
            |v: Vec<Option<String>>| v.into_iter().map(Option::unwrap).collect::<Vec<_>>();
        let persons = their_ids(
            doc.persons
                .iter()
                .map(|p| p.id.as_ref().map(|i| i.to_string()))
                .collect(),
        );
        assert_eq!(persons, ids(&ours, "persons"), "{name}");
        let rels = their_ids(
            doc.relationships
                .iter()
                .map(|r| r.id.as_ref().map(|i| i.to_string()))
                .collect(),
        );
        assert_eq!(rels, ids(&ours, "relationships"), "{name}");
        let sds = their_ids(
            doc.source_descriptions
                .iter()
                .map(|s| s.id.as_ref().map(|i| i.to_string()))
                .collect(),
        );
        assert_eq!(sds, ids(&ours, "sourceDescriptions"), "{name}");
        let lang = doc.lang.as_ref().map(|l| l.to_string());
        assert_eq!(lang.as_deref(), ours["lang"].as_str(), "{name}");
        assert_eq!(doc.agents.len(), ids(&ours, "agents").len(), "{name}");
        assert_eq!(doc.documents.len(), ids(&ours, "documents").len(), "{name}");
        for (i, p) in doc.places.iter().enumerate() {
            let place = &ours["places"][i];
            assert_eq!(
                p.id.as_ref().map(|i| i.to_string()),
                place["id"].as_str().map(String::from),
                "{name}"
            );
            assert_eq!(p.latitude, place["latitude"].as_f64(), "{name}");
            assert_eq!(p.longitude, place["longitude"].as_f64(), "{name}");
        }
        assert_eq!(doc.places.len(), ids(&ours, "places").len(), "{name}");
        for (i, sd) in doc.source_descriptions.iter().enumerate() {
            let value = &ours["sourceDescriptions"][i]["citations"][0]["value"];
            let theirs = text(&sd.citations[0].value);
            assert_eq!(Some(theirs), value.as_str().map(text), "{name}");
        }
        for (i, p) in doc.persons.iter().enumerate() {
            assert_eq!(
                p.names.len(),
                ours["persons"][i]["names"].as_array().map_or(0, Vec::len),
                "{name}"
            );
            assert_eq!(
                p.facts.len(),
                ours["persons"][i]["facts"].as_array().map_or(0, Vec::len),
                "{name}"
            );
            for (j, f) in p.facts.iter().enumerate() {
                let date = &ours["persons"][i]["facts"][j]["date"];
                let formal = f.date.as_ref().and_then(|d| d.formal.as_ref());
                assert_eq!(
                    formal.map(|d| d.to_string()),
                    date["formal"].as_str().map(String::from),
                    "{name}"
                );
            }
        }
    }
    // The citation elements, by our own reading: names from the table.
    let known = [
        format!("{CEV}authorName"),
        format!("{CEV}title"),
        format!("{CEV}shortTitle"),
        format!("{ELF}SOURCE_PUBLICATION_FACTS"),
        format!("{ELF}SOURCE_CALL_NUMBER"),
        format!("{ELF}NAME_OF_REPOSITORY"),
        format!("{ELF}WHERE_WITHIN_SOURCE"),
        format!("{ELF}ENTRY_RECORDING_DATE"),
    ];
    for sd in ours["sourceDescriptions"].as_array().into_iter().flatten() {
        for e in sd["citations"][0]["elements"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert!(known.iter().any(|k| e["name"] == k.as_str()), "{name}: {e}");
            assert!(
                e["value"].as_str().is_some_and(|v| !v.is_empty()),
                "{name}: {e}"
            );
        }
    }
    Some(ours)
}

#[test]
fn every_mapping_is_read_back_by_the_gedcomx_crate() {
    let ours = check("mappings", MAPPINGS.as_bytes()).unwrap();
    assert_eq!(ids(&ours, "persons"), ["I1", "I2", "I3"]);
    assert_eq!(ours["lang"], "en");
    assert_eq!(
        ids(&ours, "relationships"),
        ["F1", "F1.I1.I3", "F1.I2.I3", "F2.I2.I3"]
    );
    assert_eq!(
        ids(&ours, "sourceDescriptions"),
        ["I1.s1", "I1.s2", "S1", "O1"]
    );
    assert_eq!(ids(&ours, "agents"), ["U1", "R1"]);
    assert_eq!(ids(&ours, "documents"), ["S1.t1", "N1"]);
    let york = place_id("York", 53.96, -1.08);
    assert_eq!(ids(&ours, "places"), [york.as_str()]);
    assert_eq!(
        ours["persons"][0]["facts"][0]["place"]["description"],
        format!("#{york}")
    );
    // Julian 1700 begins on Gregorian 11 January; the end, 1710, is
    // Gregorian (each date of a range has its own calendar).
    let birth = &ours["persons"][0]["facts"][0];
    assert_eq!(birth["date"]["formal"], "+1700-01-11/+1710");
    let s1 = &ours["sourceDescriptions"][2]["citations"][0];
    assert_eq!(
        s1["value"],
        "Clerk, Parish, Register of York, York, 1800, 12/3"
    );
    // Author, title, publication facts, call number; the repository's
    // name is an element, not in the value.
    assert_eq!(s1["elements"].as_array().unwrap().len(), 6);
    assert_eq!(s1["elements"][5]["value"], "York Archives");
    assert_eq!(
        ours["persons"][0]["attribution"]["modified"],
        978_430_830_000_i64
    );
}

#[test]
fn every_corpus_file_is_read_back_by_the_gedcomx_crate() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"),
    ] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            files.extend(
                entries
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged"))),
            );
        }
    }
    files.sort();
    let mut converted = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        converted += usize::from(check(&f.display().to_string(), &bytes).is_some());
    }
    assert!(converted > 20, "{converted} of {}", files.len());
}

#[test]
fn generated_files_are_read_back_by_the_gedcomx_crate() {
    for seed in [1, 7] {
        let mut input = Vec::new();
        generate::generate(800, seed, &mut input).unwrap();
        let ours = check(&format!("generated, seed {seed}"), &input).unwrap();
        assert_eq!(ids(&ours, "persons").len(), 800);
        assert!(!ids(&ours, "relationships").is_empty());
    }
}

/// The index gathers a source record's elements from the reader's events;
/// the mapping of the record itself from its tree. Both walk the one
/// `CITATION_ELEMENTS` table; this says they agree, on every corpus file
/// and the mappings document.
#[test]
fn the_index_s_source_elements_are_the_mapped_record_s() {
    use gedcom_elf::gedcomx::Index;
    let mut inputs: Vec<(String, Vec<u8>)> =
        vec![("mappings".into(), MAPPINGS.as_bytes().to_vec())];
    for dir in [
        concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"),
    ] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged")) {
                inputs.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut compared = 0;
    for (name, bytes) in &inputs {
        let Ok(index) = Index::from_read(&bytes[..], Default::default(), 1) else {
            continue;
        };
        let mut out = Vec::new();
        if to_writer(&bytes[..], &mut out, Options::default()).is_err() {
            continue;
        }
        let doc: Value = serde_json::from_slice(&out).unwrap();
        let mut seen = std::collections::HashSet::new();
        for sd in doc["sourceDescriptions"].as_array().into_iter().flatten() {
            let id = sd["id"].as_str().unwrap();
            // Record descriptions only (derived ids hold a `.`), the first
            // of each id (the index keeps the first).
            if id.contains('.') || sd["about"].is_string() || !seen.insert(id.to_string()) {
                continue;
            }
            let mapped: Vec<(String, String)> = sd["citations"][0]["elements"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| {
                    (
                        e["name"].as_str().unwrap().into(),
                        e["value"].as_str().unwrap().into(),
                    )
                })
                .collect();
            let indexed: Vec<(String, String)> = index
                .source_elements(id)
                .iter()
                .map(|e| (e.name.to_string(), e.value.clone()))
                .collect();
            assert_eq!(indexed, mapped, "{name}: {id}");
            compared += 1;
        }
    }
    assert!(compared > 50, "{compared}");
}
