//! The GEDCOM X export on damaged input: lines dropped, repeated, moved to
//! other levels, bytes changed. It never panics, gives the same document
//! at one and two jobs and any batch size, and what it writes is JSON that
//! parses (or an error that says why). The same export as the fuzz target
//! `gedcomx` runs, on inputs made here from a deterministic generator.

#![cfg(feature = "gedcomx")]

mod common;
use common::Rng;

use std::sync::Arc;

use gedcom_elf::gedcomx::{Export, Format, Index, Options};
use gedcom_elf::stream::StreamReader;

/// The document (XML pretty, JSON compact) and the report's total, or the
/// error's text.
fn export(
    input: &[u8],
    format: Format,
    jobs: usize,
    batch: usize,
) -> Result<(Vec<u8>, u64), String> {
    let mut out = Vec::new();
    let options = Options {
        format,
        pretty: format == Format::Xml,
        ..Options::default()
    };
    let index = Index::from_read(input, Default::default(), jobs).map_err(|e| e.to_string())?;
    let mut export =
        Export::new(&mut out, options, Arc::new(index), Vec::new).map_err(|e| e.to_string())?;
    let mut stream = StreamReader::new(input).jobs(jobs).batch_bytes(batch);
    export
        .stream(&mut stream, |_| {})
        .map_err(|e| e.to_string())?;
    let report = export.finish().map_err(|e| e.to_string())?;
    Ok((out, report.total()))
}

const BASE: &str = "0 HEAD\n1 CHAR UTF-8\n1 SUBM @U1@\n0 @U1@ SUBM\n1 NAME Ann\n1 PHON 1 2\n\
0 @I1@ INDI\n1 NAME John /Smith/ Jr\n2 NICK Jack\n2 TYPE birth\n2 SOUR @S1@\n1 SEX M\n\
1 BIRT\n2 DATE BET 1700 AND 1710\n2 PLAC York\n2 SOUR @S1@\n3 PAGE p. 4\n3 DATA\n4 DATE 1 JAN 1900\n\
4 TEXT a\n1 DEAT Y\n2 AGE 85y\n1 EVEN x\n2 TYPE Award\n1 CHAN\n2 DATE 2 JAN 2001\n3 TIME 10:20\n\
1 OBJE\n2 FILE a b.jpg\n3 FORM jpg\n1 NOTE n\n2 CONT m\n1 SOUR text\n2 TEXT t\n1 FAMC @F1@\n2 PEDI foster\n\
0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n2 DATE 1875\n\
0 @S1@ SOUR\n1 AUTH A\n1 TITL T\n1 REPO @R1@\n2 CALN 1\n1 DATA\n2 EVEN BIRT\n3 DATE 1800\n1 TEXT x\n\
0 @R1@ REPO\n1 NAME R\n1 ADDR a\n2 CITY c\n0 @O1@ OBJE\n1 FILE f\n0 @N1@ NOTE n\n0 TRLR\n";

/// `BASE` with a few damages.
fn damaged(rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = BASE.lines().map(|l| l.as_bytes().to_vec()).collect();
    for _ in 0..1 + rng.below(4) {
        let i = 1 + rng.below(lines.len() - 1);
        match rng.below(5) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                let j = rng.below(lines.len());
                lines.insert(j, l);
            }
            2 => lines[i][0] = b"0123456789"[rng.below(10)],
            3 => {
                let k = rng.below(lines[i].len());
                lines[i][k] = (rng.next() & 0xff) as u8;
            }
            _ => {
                let k = rng.below(lines[i].len());
                lines[i].truncate(k);
            }
        }
        if lines.len() < 3 {
            break;
        }
    }
    lines.join(&b"\n"[..])
}

#[test]
fn damaged_input_never_panics_and_is_the_same_at_every_jobs_and_batch() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut converted = 0;
    for case in 0..300 {
        let input = damaged(&mut rng);
        let batch = 1 + rng.below(64);
        let json = export(&input, Format::Json, 1, 1 << 16);
        assert_eq!(json, export(&input, Format::Json, 2, batch), "case {case}");
        let xml = export(&input, Format::Xml, 1, batch);
        assert_eq!(xml, export(&input, Format::Xml, 2, 1 << 16), "case {case}");
        match json {
            Ok((out, _)) => {
                serde_json::from_slice::<serde_json::Value>(&out).unwrap_or_else(|e| {
                    panic!("case {case}: {e}: {}", String::from_utf8_lossy(&out))
                });
                let xml = String::from_utf8(xml.unwrap().0).unwrap();
                assert!(xml.ends_with("</gedcomx>\n"), "case {case}");
                converted += 1;
            }
            Err(e) => assert!(!e.is_empty(), "case {case}"),
        }
    }
    // Most damages leave a document to convert.
    assert!(converted > 200, "{converted}");
}
