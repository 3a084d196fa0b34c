//! GEDCOM X import: seed 004's examples and the GEDCOM X specification's
//! examples read (JSON and XML), the round trip GEDCOM -> GEDCOM X (our
//! export) -> GEDCOM keeping every mapped structure (over generated files
//! as a property, and over every file of `../shared/corpus`), and bad
//! input refused with a clear error naming where, never a panic.
//!
//! The round trip is compared over the mapped subset: both GEDCOM files
//! are exported again, and the two GEDCOM X documents must be equal once
//! the ids the export derives from a record and a counter (a citation's
//! `I1.s2`, a place's `I1.p1`, a transcription's `S1.t1`, an inline
//! object's `I1.m1`) are replaced by what they name, since the counter
//! follows the order of structures within a record, which GEDCOM X does
//! not keep. What the export does not map is outside the comparison by
//! construction.

#![cfg(feature = "gedcomx")]

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use gedcom_elf::gedcomx::import::{self, ImportErrorKind, IssueKind, Location};
use gedcom_elf::gedcomx::{to_writer, Format, Options};
use gedcom_elf::tree::Tree;
use serde_json::Value;

fn shared(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(path)
}

/// GEDCOM to GEDCOM X JSON through the export.
fn export(ged: &[u8]) -> Value {
    let mut out = Vec::new();
    to_writer(ged, &mut out, Options::default()).expect("export");
    serde_json::from_slice(&out).expect("export's JSON")
}

/// GEDCOM to GEDCOM X XML through the export.
fn export_xml(ged: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let options = Options {
        format: Format::Xml,
        ..Options::default()
    };
    to_writer(ged, &mut out, options).expect("export");
    out
}

/// GEDCOM X (either syntax) to GEDCOM, which must read back cleanly.
fn import(x: &[u8]) -> (String, Vec<import::Issue>) {
    let (ged, issues) = import::import(x, Vec::new()).unwrap_or_else(|e| panic!("import: {e}"));
    let tree = Tree::from_slice(&ged).expect("the import's GEDCOM reads back");
    let errors: Vec<_> = tree
        .diagnostics()
        .iter()
        .filter(|d| d.severity() == gedcom_elf::Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "{errors:?}\n{}",
        String::from_utf8_lossy(&ged)
    );
    (String::from_utf8(ged).expect("UTF-8"), issues)
}

/// Whether `id` is one the export derives from a record's id and a
/// counter (`I1.s2`).
fn derived(id: &str) -> bool {
    id.rsplit_once('.').is_some_and(|(_, t)| {
        let mut c = t.chars();
        matches!(c.next(), Some('s' | 'm' | 't' | 'p'))
            && !c.as_str().is_empty()
            && c.as_str().bytes().all(|b| b.is_ascii_digit())
    })
}

/// The document with derived ids replaced by what they name (see the
/// module docs), transcriptions moved into what they transcribe, and the
/// sections sorted by id.
fn canonical(doc: &Value) -> Value {
    let mut doc = doc.clone();
    // References to nothing are left out by the import (as issues).
    let mut ids = std::collections::HashSet::new();
    for key in [
        "persons",
        "relationships",
        "sourceDescriptions",
        "agents",
        "documents",
        "places",
    ] {
        for item in doc[key].as_array().into_iter().flatten() {
            ids.insert(format!("#{}", item["id"].as_str().unwrap_or("")));
        }
    }
    fn drop_dangling(v: &mut Value, ids: &std::collections::HashSet<String>) {
        let dangling = |v: &Value, key: &str| {
            v.get(key)
                .and_then(Value::as_str)
                .is_some_and(|r| r.starts_with('#') && !ids.contains(r))
        };
        match v {
            Value::Array(a) => {
                a.retain(|x| !dangling(x, "description") || x.get("about").is_some());
                a.iter_mut().for_each(|x| drop_dangling(x, ids));
            }
            Value::Object(o) => {
                o.retain(|_, x| !dangling(x, "resource"));
                o.values_mut().for_each(|x| drop_dangling(x, ids));
                o.retain(|_, x| x.as_object().is_none_or(|m| !m.is_empty()));
            }
            _ => {}
        }
    }
    drop_dangling(&mut doc, &ids);
    let list = |doc: &mut Value, key: &str| -> Vec<Value> {
        doc.get_mut(key)
            .and_then(|v| v.as_array_mut())
            .map(std::mem::take)
            .unwrap_or_default()
    };
    // Transcriptions, by the description they transcribe.
    let mut texts: HashMap<String, Vec<Value>> = HashMap::new();
    let mut documents = Vec::new();
    for d in list(&mut doc, "documents") {
        let id = d["id"].as_str().unwrap_or("").to_string();
        if derived(&id) {
            let target = d["sources"][0]["description"].as_str().unwrap_or("");
            texts
                .entry(target.trim_start_matches('#').to_string())
                .or_default()
                .push(d["text"].clone());
        } else {
            documents.push(d);
        }
    }
    let mut named: HashMap<String, Value> = HashMap::new();
    let mut descriptions = Vec::new();
    for mut sd in list(&mut doc, "sourceDescriptions") {
        let id = sd["id"].as_str().unwrap_or("").to_string();
        if let Some(t) = texts.remove(&id) {
            sd["_transcriptions"] = Value::Array(t);
        }
        if derived(&id) {
            sd.as_object_mut().unwrap().remove("id");
            named.insert(format!("#{id}"), sd);
        } else {
            descriptions.push(sd);
        }
    }
    for mut p in list(&mut doc, "places") {
        let id = p["id"].as_str().unwrap_or("").to_string();
        p.as_object_mut().unwrap().remove("id");
        named.insert(format!("#{id}"), p);
    }
    fn inline(v: &mut Value, named: &HashMap<String, Value>) {
        match v {
            Value::String(s) => {
                if let Some(n) = named.get(s.as_str()) {
                    let mut n = n.clone();
                    inline(&mut n, named);
                    *v = n;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| inline(x, named)),
            Value::Object(o) => o.values_mut().for_each(|x| inline(x, named)),
            _ => {}
        }
    }
    let by_id = |mut v: Vec<Value>| {
        v.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
        Value::Array(v)
    };
    let obj = doc.as_object_mut().unwrap();
    obj.insert("documents".into(), by_id(documents));
    obj.insert("sourceDescriptions".into(), by_id(descriptions));
    for key in ["persons", "relationships", "agents"] {
        let v = obj
            .get_mut(key)
            .and_then(|v| v.as_array_mut())
            .map(std::mem::take)
            .unwrap_or_default();
        obj.insert(key.into(), by_id(v));
    }
    inline(&mut doc, &named);
    assert!(texts.is_empty(), "transcriptions of nothing: {texts:?}");
    doc
}

/// The first difference between two JSON values, with its path.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (p, q) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if let Some(d) = first_difference(p, q, &format!("{path}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(p, q, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: {} items against {}", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: {a} against {b}")),
    }
}

/// Every string with the characters XML 1.0 cannot carry as U+FFFD.
fn xml_safe(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(
            s.chars()
                .map(|c| match c {
                    '\t' | '\n' | '\r' => c,
                    '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => '\u{fffd}',
                    c => c,
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(xml_safe).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), xml_safe(v))).collect())
        }
        v => v.clone(),
    }
}

/// GEDCOM -> GEDCOM X -> GEDCOM -> GEDCOM X keeps the mapped subset;
/// through JSON and through XML alike. Gives the GEDCOM written.
fn round_trip(name: &str, ged: &[u8]) -> String {
    let first = export(ged);
    let json = serde_json::to_vec(&first).unwrap();
    let (back, issues) = import(&json);
    // What our export writes, the import carries whole (references to
    // records the GEDCOM input did not have aside).
    let lost: Vec<_> = issues
        .iter()
        .filter(|i| i.kind != IssueKind::Dangling)
        .collect();
    assert!(lost.is_empty(), "{name}: {lost:#?}");
    let second = export(back.as_bytes());
    let (a, b) = (canonical(&first), canonical(&second));
    if let Some(d) = first_difference(&a, &b, "") {
        panic!("{name}: the round trip changed {d}\n--- GEDCOM written:\n{back}");
    }
    // The same through XML (which cannot carry C0 controls: the export
    // writes U+FFFD for them).
    let (back_xml, _) = import(&export_xml(ged));
    let third = export(back_xml.as_bytes());
    let (a, c) = (xml_safe(&canonical(&first)), xml_safe(&canonical(&third)));
    if let Some(d) = first_difference(&a, &c, "") {
        panic!("{name}: the round trip through XML changed {d}\n--- GEDCOM written:\n{back_xml}");
    }
    back
}

/// Seed 004 §3.1's JSON example, verbatim, as a source description's
/// citation.
const SEED_JSON: &str = r#"{"sourceDescriptions":[{"id":"S1","citations":[
    { "lang":  "en", 
      "value": "Christian Settipani, Les ancêtres de Charlemagne, 2nd ed",
      "elements": [ 
        { "name":  "http://terms.fhiso.org/sources/authorName",
          "value": "Settipani, Christian" },
        { "name":  "http://terms.fhiso.org/sources/title", 
          "value": "Les ancêtres de Charlemagne",
          "lang":  "fr" },
        { "name":  "http://terms.fhiso.org/sources/edition", 
          "value": "2" } ] }]}]}"#;

/// Seed 004 §3.2's XML example (inline element text), verbatim, in a
/// document; the `gx:` prefix bound as the seed's table says.
const SEED_XML: &str = r#"<gedcomx xmlns="http://gedcomx.org/v1/" xmlns:gx="http://gedcomx.org/v1/"
  xmlns:cev="http://terms.fhiso.org/sources/"><sourceDescription id="S1">
    <gx:citation xml:lang="en">
      <gx:value>Christian Settipani, Les ancêtres de Charlemagne, 
        2nd ed.</gx:value>
      <cev:element name="http://terms.fhiso.org/sources/authorName"
        >Settipani, Christian</cev:element>
      <cev:element name="http://terms.fhiso.org/sources/title"
        xml:lang="fr">Les ancêtres de Charlemagne</cev:element>
      <cev:element name="http://terms.fhiso.org/sources/edition"
        >2</cev:element>
    </gx:citation></sourceDescription></gedcomx>"#;

/// Seed 004 §2.2's `<cev:value>` form of one element.
const SEED_XML_VALUE: &str = r#"<gedcomx xmlns="http://gedcomx.org/v1/"
  xmlns:cev="http://terms.fhiso.org/sources/"><sourceDescription id="S1"><citation><value>x</value>
    <cev:element xml:lang="fr"
                 name="http://terms.fhiso.org/sources/title">
      <cev:value>Les ancêtres de Charlemagne</cev:value>
    </cev:element></citation></sourceDescription></gedcomx>"#;

#[test]
fn seed_004_s_json_and_xml_examples_are_read_alike() {
    let (json, _) = import::read(SEED_JSON.as_bytes()).unwrap();
    let (xml, _) = import::read(SEED_XML.as_bytes()).unwrap();
    let (c, d) = (
        &json.source_descriptions[0].citations[0],
        &xml.source_descriptions[0].citations[0],
    );
    assert_eq!(c.elements, d.elements);
    assert_eq!(c.elements.len(), 3);
    assert_eq!(c.elements[1].value, "Les ancêtres de Charlemagne");
    assert_eq!(c.elements[1].lang.as_deref(), Some("fr"));
    assert_eq!(
        (c.lang.as_deref(), d.lang.as_deref()),
        (Some("en"), Some("en"))
    );
    // The <cev:value> form gives the same element.
    let (v, issues) = import::read(SEED_XML_VALUE.as_bytes()).unwrap();
    assert_eq!(
        v.source_descriptions[0].citations[0].elements[0],
        c.elements[1]
    );
    assert!(issues.is_empty(), "{issues:?}");
}

#[test]
fn seed_004_s_citation_becomes_a_source_record_and_says_what_it_could_not_carry() {
    for input in [SEED_JSON, SEED_XML] {
        let (ged, issues) = import(input.as_bytes());
        assert!(
            ged.contains(
                "0 @S1@ SOUR\n1 AUTH Settipani, Christian\n1 TITL Les ancêtres de Charlemagne\n"
            ),
            "{ged}"
        );
        let messages: Vec<String> = issues.iter().map(|i| i.message.clone()).collect();
        // The title's language, and the edition GEDCOM has no place for.
        assert!(
            messages.iter().any(|m| m.contains("language")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("/sources/edition")),
            "{messages:?}"
        );
    }
}

/// The fenced example of a section of a specification.
fn spec_example(file: &str, fence: &str) -> String {
    let text = std::fs::read_to_string(shared(file)).expect("the specs in ../shared");
    let start = text.find(fence).expect("the example") + fence.len();
    let end = text[start..].find("```").unwrap() + start;
    text[start..end].to_string()
}

#[test]
fn the_specification_s_json_example_is_read_and_written() {
    let json = spec_example(
        "specs/gedcomx/json-format-specification.md",
        "```javascript\n",
    );
    let (doc, issues) = import::read(json.as_bytes()).unwrap();
    assert_eq!(doc.persons.len(), 2);
    assert_eq!(doc.places.len(), 3);
    assert_eq!(doc.attribution.contributor.as_deref(), Some("#GGG-GGGG"));
    // The ids of names and facts have no GEDCOM place: reported by path.
    let at: Vec<String> = issues.iter().map(|i| i.at.to_string()).collect();
    assert!(at.contains(&"persons[0].names[0].id".to_string()), "{at:?}");
    assert!(at.contains(&"persons[1].facts[1].id".to_string()), "{at:?}");
    let (ged, _) = import(json.as_bytes());
    assert!(ged.contains("1 SUBM @GGG-GGGG@\n"), "{ged}");
    assert!(ged.contains(
        "0 @BBB-BBBB@ INDI\n1 NAME George /Washington/\n1 SEX M\n1 BIRT\n2 DATE February 22, 1732\n\
         2 PLAC pope's creek, westmoreland, virginia, united states\n3 MAP\n4 LATI N38.192353\n4 LONG W76.904069\n"
    ), "{ged}");
    assert!(ged.contains("0 @DDD-DDDD@ FAM\n1 HUSB @BBB-BBBB@\n1 WIFE @CCC-CCCC@\n1 MARR\n2 DATE January 6, 1759\n"), "{ged}");
    assert!(
        ged.contains("0 @GGG-GGGG@ SUBM\n1 NAME Ryan Heaton\n"),
        "{ged}"
    );
}

#[test]
fn the_specification_s_xml_example_is_read_once_its_two_defects_are_fixed() {
    let xml = spec_example("specs/gedcomx/xml-format-specification.md", "```xml\n");
    // As published: the marriage fact has no `type` (required)...
    let e = import::read(xml.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ImportErrorKind::Missing);
    let Location::Xml { line, path } = e.at() else {
        panic!("{e}")
    };
    assert_eq!(*line, 68, "{e}");
    assert_eq!(path, "gedcomx/relationship[1]/fact[1]/type");
    // ... and once it has one, a malformed formal date (`+01-06-1759`).
    let typed = xml.replace("<fact>", "<fact type=\"http://gedcomx.org/Marriage\">");
    let e = import::read(typed.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ImportErrorKind::Value);
    assert!(
        e.to_string()
            .starts_with("line 71 (gedcomx/relationship[1]/fact[1]/date/formal)"),
        "{e}"
    );
    // Both fixed (the JSON example's formal date), it reads as the JSON
    // example does.
    let fixed = typed.replace("+01-06-1759", "+1759-01-06");
    let (from_xml, _) = import::read(fixed.as_bytes()).unwrap();
    let json = spec_example(
        "specs/gedcomx/json-format-specification.md",
        "```javascript\n",
    );
    let (from_json, _) = import::read(json.as_bytes()).unwrap();
    // The JSON example's relationship has no type either: the same.
    assert_eq!(from_xml, from_json);
    let (a, _) = import(fixed.as_bytes());
    let (b, _) = import(json.as_bytes());
    assert_eq!(a, b);
}

#[test]
fn a_gedx_file_reads_as_its_document() {
    use gedcom_elf::gedcomx::gedx::write_gedx;
    let json = serde_json::to_vec(&export(b"0 HEAD\n0 @I1@ INDI\n1 NAME A /B/\n0 TRLR\n")).unwrap();
    let zip = write_gedx(
        std::io::Cursor::new(Vec::new()),
        &mut &json[..],
        Format::Json,
        &[],
    )
    .unwrap()
    .into_inner();
    let (from_zip, _) = import(&zip);
    let (from_json, _) = import(&json);
    assert_eq!(from_zip, from_json);
    // An error inside names the entry.
    let bad = write_gedx(
        std::io::Cursor::new(Vec::new()),
        &mut &b"{\"persons\":3}"[..],
        Format::Json,
        &[],
    )
    .unwrap()
    .into_inner();
    let e = import::import(&bad, Vec::new()).unwrap_err();
    assert_eq!(e.to_string(), "persons: expected an array (in tree.json)");
}

#[test]
fn a_small_family_survives_the_round_trip() {
    let ged = "0 HEAD\n1 CHAR UTF-8\n1 SUBM @U1@\n1 LANG French\n0 @U1@ SUBM\n1 NAME Ann\n\
        0 @I1@ INDI\n1 NAME Jean /de La Fontaine/ Jr\n2 NPFX Lt.\n2 GIVN Jean\n2 SPFX de La\n2 SURN Fontaine\n2 NSFX Jr\n\
        2 NICK Jeannot\n2 TYPE birth\n1 SEX M\n1 BIRT\n2 DATE ABT 1815\n2 PLAC Gibraltar\n3 MAP\n4 LATI N36.1408\n4 LONG W5.3536\n\
        2 SOUR @S1@\n3 PAGE p. 12\n3 DATA\n4 DATE 1 JAN 1900\n4 TEXT A line\n3 QUAY 2\n\
        1 DEAT\n2 AGE 85y\n2 CAUS fever\n1 OCCU Baker\n1 EVEN Won\n2 TYPE Award ceremony\n\
        1 SOUR A family bible\n1 NOTE Some\n2 CONT text\n1 OBJE\n2 FILE photos/me 1.jpg\n3 FORM jpg\n\
        1 REFN 42\n1 RIN 7\n1 _UID ABC\n1 CHAN\n2 DATE 2 JAN 1970\n3 TIME 01:00:00.5\n2 NOTE fixed\n\
        0 @I2@ INDI\n1 NAME Marie /Dupont/\n1 SEX F\n1 RESN privacy\n\
        0 @I3@ INDI\n1 NAME Paul /Fontaine/\n1 FAMC @F1@\n2 PEDI adopted\n\
        0 @I4@ INDI\n1 NAME Lone /Child/\n\
        0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n2 DATE 1840\n\
        0 @F2@ FAM\n1 WIFE @I2@\n1 CHIL @I4@\n\
        0 @S1@ SOUR\n1 AUTH Settipani, Christian\n1 TITL Les ancêtres\n1 ABBR Anc.\n1 PUBL Paris\n\
        1 REPO @R1@\n2 CALN 929.7\n1 DATA\n2 EVEN BIRT, DEAT\n3 DATE FROM 1800 TO 1900\n3 PLAC Paris\n1 TEXT Transcribed.\n\
        0 @R1@ REPO\n1 NAME Archives\n1 ADDR 1 Main St\n2 CITY Springfield\n2 CTRY USA\n1 PHON +1 555 0100\n\
        1 EMAIL a@@b.org\n1 WWW https://b.org/\n\
        0 @N1@ NOTE A note record\n0 @O1@ OBJE\n1 FILE x.gif\n2 FORM gif\n2 TITL A picture\n0 TRLR\n";
    let back = round_trip("family", ged.as_bytes());
    // The extension tag written is declared.
    assert!(back.contains("1 SCHMA\n"), "{back}");
    assert!(
        back.contains("2 IRI http://gedcomx.org/v1/Identifier\n3 TAG _UID elf:Record\n"),
        "{back}"
    );
    assert!(back.contains("1 LANG French\n"), "{back}");
}

#[test]
fn generated_files_survive_the_round_trip() {
    // A property over generated files: every seed gives a different mix.
    for seed in 1..=6 {
        let mut ged = Vec::new();
        generate::generate(60, seed, &mut ged).unwrap();
        round_trip(&format!("generated seed {seed}"), &ged);
    }
}

#[test]
fn every_file_of_the_shared_corpus_survives_the_round_trip() {
    // Read from ../shared, never copied here; any encoding: the export
    // decodes it, the import writes UTF-8.
    let files = common::ged_files(&shared("corpus"));
    assert!(files.len() >= 10, "{} files", files.len());
    for (name, bytes) in files {
        round_trip(&name, &bytes);
    }
}

#[test]
fn bad_input_is_a_clear_error_never_a_panic() {
    let cases: [(&[u8], ImportErrorKind, &str); 9] = [
        (b"0 HEAD\n0 TRLR\n", ImportErrorKind::NotGedcomx, "neither JSON"),
        (b"[1, 2]", ImportErrorKind::NotGedcomx, "neither JSON"),
        (b"{\"name\": 1}", ImportErrorKind::NotGedcomx, "no member"),
        (b"{\"persons\": [{\"id\": \"I1\"", ImportErrorKind::Syntax, "truncated JSON"),
        (
            b"{\"persons\": [{\"id\": \"I1\", \"facts\": [{\"type\": \"x\", \"date\": 3}]}]}",
            ImportErrorKind::Type,
            "persons[0].facts[0].date: expected an object",
        ),
        (
            b"{\"persons\": [{}, {\"facts\": [{}]}]}",
            ImportErrorKind::Missing,
            "persons[1].facts[0].type",
        ),
        (b"<gedcomx xmlns=\"http://gedcomx.org/v1/\">\n<person>", ImportErrorKind::Syntax, "line 2"),
        (b"<html><body/></html>", ImportErrorKind::NotGedcomx, "<html>"),
        (
            b"<gedcomx xmlns=\"http://gedcomx.org/v1/\">\n\n<person><fact type=\"t\"><date><formal>1900</formal></date></fact></person></gedcomx>",
            ImportErrorKind::Value,
            "line 3",
        ),
    ];
    for (input, kind, says) in cases {
        let e = import::import(input, Vec::new()).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.to_string().contains(says), "{e} does not say {says}");
    }
    // Every prefix of a document: an error or a document, never a panic.
    let json = serde_json::to_vec(&export(
        b"0 HEAD\n0 @I1@ INDI\n1 NAME A /B/\n1 BIRT\n2 DATE 1900\n0 TRLR\n",
    ))
    .unwrap();
    for n in 0..json.len() {
        let _ = import::import(&json[..n], Vec::new());
    }
    let xml = export_xml(b"0 HEAD\n0 @I1@ INDI\n1 NAME A /B/\n1 BIRT\n2 DATE 1900\n0 TRLR\n");
    for n in 0..xml.len() {
        let _ = import::import(&xml[..n], Vec::new());
    }
    // A damaged .gedx: an archive error; a zip that is no GEDCOM X file.
    let e = import::import(b"PK\x03\x04 cut short", Vec::new()).unwrap_err();
    assert_eq!(e.kind(), ImportErrorKind::Archive, "{e}");
    // Deep nesting is refused, not a stack overflow.
    let deep = format!(
        "<gedcomx xmlns=\"http://gedcomx.org/v1/\">{}",
        "<a>".repeat(100_000)
    );
    let e = import::import(deep.as_bytes(), Vec::new()).unwrap_err();
    assert_eq!(e.kind(), ImportErrorKind::TooDeep);
    let deep = format!("{{\"persons\":{}", "[".repeat(100_000));
    assert!(import::import(deep.as_bytes(), Vec::new()).is_err());
}

#[test]
fn dangling_references_are_issues_naming_where_and_are_left_out() {
    let json = br##"{"persons":[{"id":"I1","sources":[{"description":"#NOPE"}],
        "facts":[{"type":"http://gedcomx.org/Birth","place":{"original":"X","description":"#P9"}}]}],
        "relationships":[{"id":"F1","type":"http://gedcomx.org/Couple",
          "person1":{"resource":"#I1"},"person2":{"resource":"#GHOST"}}]}"##;
    let (ged, issues) = import(json);
    let dangling: Vec<String> = issues
        .iter()
        .filter(|i| i.kind == IssueKind::Dangling)
        .map(|i| i.at.to_string())
        .collect();
    assert_eq!(
        dangling,
        [
            "relationships[0].person2",
            "persons[0].facts[0].place.description",
            "persons[0].sources[0]"
        ]
    );
    assert!(ged.contains("0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n"), "{ged}");
    assert!(!ged.contains("NOPE") && !ged.contains("GHOST"), "{ged}");
}

#[test]
fn parent_child_relationships_of_any_ids_find_their_family() {
    // Ids of FamilySearch's kind, not the export's: the children of a
    // couple go to the couple's family; a lone parent's child to a family
    // made for them; pedigree facts to the child's FAMC.
    let json = br##"{"persons":[{"id":"A","gender":{"type":"http://gedcomx.org/Male"}},
        {"id":"B","gender":{"type":"http://gedcomx.org/Female"}},{"id":"C"},{"id":"D"}],
      "relationships":[
        {"id":"r1","type":"http://gedcomx.org/Couple","person1":{"resource":"#A"},"person2":{"resource":"#B"}},
        {"id":"r2","type":"http://gedcomx.org/ParentChild","person1":{"resource":"#A"},"person2":{"resource":"#C"},
         "facts":[{"type":"http://gedcomx.org/AdoptiveParent"}]},
        {"id":"r3","type":"http://gedcomx.org/ParentChild","person1":{"resource":"#B"},"person2":{"resource":"#C"},
         "facts":[{"type":"http://gedcomx.org/AdoptiveParent"}]},
        {"id":"r4","type":"http://gedcomx.org/ParentChild","person1":{"resource":"#B"},"person2":{"resource":"#D"}},
        {"id":"r5","type":"http://example.org/Godparent","person1":{"resource":"#A"},"person2":{"resource":"#D"}}]}"##;
    let (ged, issues) = import(json);
    assert!(
        ged.contains("0 @r1@ FAM\n1 HUSB @A@\n1 WIFE @B@\n1 CHIL @C@\n"),
        "{ged}"
    );
    assert!(
        ged.contains("0 @C@ INDI\n1 FAMC @r1@\n2 PEDI adopted\n"),
        "{ged}"
    );
    // B alone with D: a family of their own, B as the wife (her gender).
    assert!(ged.contains("FAM\n1 WIFE @B@\n1 CHIL @D@\n"), "{ged}");
    let godparent = issues
        .iter()
        .find(|i| i.message.contains("Godparent"))
        .expect("the relationship GEDCOM has no place for is reported");
    assert_eq!(godparent.at.to_string(), "relationships[4]");
}

#[test]
fn corrupted_documents_never_panic_and_what_imports_reads_back() {
    // A property over mutations (the shared test Rng, deterministic): bytes of our
    // own JSON and XML replaced, removed or duplicated. Each is an error or
    // GEDCOM that reads back with no error diagnostic.
    let mut ged = Vec::new();
    generate::generate(8, 7, &mut ged).unwrap();
    let json = serde_json::to_vec(&export(&ged)).unwrap();
    let xml = export_xml(&ged);
    let mut rng = common::Rng(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.next();
    let (mut ok, mut refused) = (0, 0);
    for doc in [&json, &xml] {
        for _ in 0..300 {
            let mut d = doc.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % d.len() as u64) as usize;
                match next() % 3 {
                    0 => d[at] = b"{}[]<>\"/:,#@ ax0\n"[(next() % 16) as usize],
                    1 => {
                        d.remove(at);
                    }
                    _ => d.insert(at, d[at]),
                }
            }
            match import::import(&d, Vec::new()) {
                Ok((out, _)) => {
                    let tree = Tree::from_slice(&out).expect("reads back");
                    assert!(tree
                        .diagnostics()
                        .iter()
                        .all(|x| x.severity() != gedcom_elf::Severity::Error));
                    ok += 1;
                }
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    refused += 1;
                }
            }
        }
    }
    // Both outcomes happen: the mutations are neither all harmless nor all
    // fatal.
    assert!(ok > 0 && refused > 0, "{ok} imported, {refused} refused");
}

#[test]
fn items_without_ids_or_with_a_taken_one_get_fresh_xrefs() {
    let json = br##"{"persons":[{"names":[{"nameForms":[{"fullText":"No Id"}]}]},
        {"names":[{"nameForms":[{"fullText":"None Either"}]}]},
        {"id":"X1","names":[{"nameForms":[{"fullText":"First"}]}]},
        {"id":"X1","names":[{"nameForms":[{"fullText":"Second"}]}]},
        {"id":"bad id@","names":[{"nameForms":[{"fullText":"Spaced"}]}]}]}"##;
    let (ged, issues) = import(json);
    let xrefs: Vec<&str> = ged
        .lines()
        .filter(|l| l.ends_with(" INDI"))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(xrefs.len(), 5, "{ged}");
    let mut unique = xrefs.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5, "{ged}");
    assert_eq!(xrefs[2], "@X1@");
    let second: Vec<String> = issues
        .iter()
        .filter(|i| i.message.contains("a second item"))
        .map(|i| i.at.to_string())
        .collect();
    assert_eq!(second, ["persons[3].id"]);
}

#[test]
fn a_document_of_every_kind_of_item_in_xml_becomes_its_records() {
    let xml = r##"<?xml version="1.0" encoding="UTF-8"?>
<gedcomx xmlns="http://gedcomx.org/v1/" xmlns:cev="http://terms.fhiso.org/sources/" xml:lang="de">
  <attribution><contributor resource="#U1"/></attribution>
  <person id="P1" private="true">
    <attribution><modified>2001-03-03T05:57:53Z</modified><changeMessage>merged</changeMessage></attribution>
    <source description="#S1"><qualifier name="https://terms.fhiso.org/elf/CERTAINTY_ASSESSMENT">3</qualifier></source>
    <note><text>A note &amp; more</text></note>
    <media description="#M1"/>
    <identifier type="http://gedcomx.org/Primary">abc-123</identifier>
    <identifier>raw</identifier>
    <name type="http://gedcomx.org/MarriedName"><nameForm><fullText>Anna Schmidt</fullText></nameForm></name>
    <fact type="http://gedcomx.org/Occupation"><value>Bäckerin</value>
      <qualifier name="http://gedcomx.org/Age">30</qualifier></fact>
    <fact type="data:,Prize%20giving"><date><formal>/+1900</formal></date></fact>
  </person>
  <sourceDescription id="S1">
    <citation><value>ignored</value>
      <cev:element name="http://terms.fhiso.org/sources/title"><cev:value>Kirchenbuch</cev:value></cev:element>
      <cev:element name="https://terms.fhiso.org/elf/SOURCE_CALL_NUMBER">K 12</cev:element>
    </citation>
    <coverage><spatial><original>Bonn</original></spatial><temporal><original>1800</original></temporal></coverage>
    <repository resource="#R1"/>
  </sourceDescription>
  <sourceDescription id="M1" mediaType="image/png" about="scans/page%201.png"><citation><value>scan</value></citation><title>Page 1</title></sourceDescription>
  <agent id="R1"><name>Stadtarchiv</name><phone resource="tel:+49228"/><email resource="mailto:a@b.de"/>
    <address><city>Bonn</city><country>DE</country></address></agent>
  <agent id="U1"><name>Ute</name><homepage resource="https://u.example/"/></agent>
  <document id="N1"><text>Ein Dokument</text></document>
</gedcomx>"##;
    let (ged, issues) = import(xml.as_bytes());
    let recs = ged
        .split("\n0 ")
        .map(|r| format!("0 {r}"))
        .collect::<Vec<_>>();
    let rec = |start: &str| {
        recs.iter()
            .find(|r| r.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} in {ged}"))
            .clone()
    };
    assert!(ged.contains("1 SUBM @U1@\n1 LANG German\n"), "{ged}");
    assert_eq!(
        rec("0 @P1@ INDI"),
        "0 @P1@ INDI\n1 RESN privacy\n1 NAME Anna Schmidt\n2 TYPE married\n1 OCCU Bäckerin\n2 AGE 30\n\
         1 EVEN\n2 TYPE Prize giving\n2 DATE BEF 1900\n1 SOUR @S1@\n2 QUAY 3\n1 NOTE A note & more\n\
         1 OBJE @M1@\n1 REFN abc-123\n2 TYPE http://gedcomx.org/Primary\n1 _UID raw\n\
         1 CHAN\n2 DATE 3 MAR 2001\n3 TIME 05:57:53\n2 NOTE merged"
    );
    assert_eq!(
        rec("0 @S1@ SOUR"),
        "0 @S1@ SOUR\n1 TITL Kirchenbuch\n1 REPO @R1@\n2 CALN K 12\n1 DATA\n2 EVEN\n3 DATE 1800\n3 PLAC Bonn"
    );
    assert_eq!(
        rec("0 @M1@ OBJE"),
        "0 @M1@ OBJE\n1 FILE scans/page 1.png\n2 FORM png\n2 TITL Page 1"
    );
    assert_eq!(
        rec("0 @R1@ REPO"),
        "0 @R1@ REPO\n1 NAME Stadtarchiv\n1 ADDR\n2 CITY Bonn\n2 CTRY DE\n1 PHON +49228\n1 EMAIL a@@b.de"
    );
    assert_eq!(
        rec("0 @U1@ SUBM"),
        "0 @U1@ SUBM\n1 NAME Ute\n1 WWW https://u.example/"
    );
    assert_eq!(rec("0 @N1@ NOTE"), "0 @N1@ NOTE Ein Dokument");
    // The _UID is declared, and the formatted citation that says more than
    // its elements is reported at its item.
    assert!(ged.contains("3 TAG _UID elf:Record\n"));
    let at: Vec<String> = issues.iter().map(|i| i.at.to_string()).collect();
    assert_eq!(
        at,
        ["sourceDescriptions[0].citations[0].value"],
        "{issues:#?}"
    );
}

#[test]
fn a_citation_s_description_no_item_refers_to_is_reported() {
    let json = br##"{"sourceDescriptions":[{"id":"S1","citations":[{"value":"A book"}]},
        {"id":"X9","componentOf":{"description":"#S1"},"citations":[{"value":"p. 1"}]}],
      "documents":[{"id":"D1","type":"http://gedcomx.org/Transcription","sources":[{"description":"#X9"}],"text":"t"}]}"##;
    let (ged, issues) = import(json);
    assert!(ged.contains("0 @S1@ SOUR\n1 TITL A book\n"), "{ged}");
    let at: Vec<String> = issues.iter().map(|i| i.at.to_string()).collect();
    assert_eq!(at, ["sourceDescriptions[1]"], "{issues:#?}");
}
