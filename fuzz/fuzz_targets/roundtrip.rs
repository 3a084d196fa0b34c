//! Arbitrary structures through the writer and back through the reader: whatever the
//! writer accepts must read back as the same structures (texts compared in NFC for
//! ANSEL, whose reader composes), with no error diagnostic; what it refuses must leave
//! its state as it was.
//!
//! The same items as typed structures (types picked from the default schema, new IRIs
//! and undefined tag identifiers; pointers to records by handle) through
//! `write_typed`: whatever it accepts reads back with the same types, texts and
//! pointer targets.
#![no_main]

use arbitrary::Arbitrary;
use gedcom_elf::encoding::ALL_ENCODINGS;
use gedcom_elf::tree::{NodeRef, Schema, Tree};
use gedcom_elf::write::typed::{
    write_typed, RecordId, SchemaLines, StructureId, TypedDocument, TypedOptions, TypedValue,
};
use gedcom_elf::write::{LineEnding, WriteValue, Writer, WriterConfig};
use gedcom_elf::{Encoding, Event, Input, Severity, Value};
use libfuzzer_sys::fuzz_target;
use unicode_normalization::UnicodeNormalization;

const TAGS: &[&str] = &[
    "NOTE", "DATE", "NAME", "_X", "ERROR", "CONT", "CONC", "TRLR",
];

#[derive(Arbitrary, Debug)]
struct Item {
    /// Structures to end before this one begins.
    up: u8,
    tag: u8,
    xref: Option<u8>,
    value: Option<Payload>,
}

#[derive(Arbitrary, Debug)]
enum Payload {
    Text(String),
    Pointer(u8),
}

#[derive(Arbitrary, Debug)]
struct Doc {
    encoding: u8,
    line_ending: u8,
    max: u8,
    cr: bool,
    items: Vec<Item>,
}

fn render_text(t: &str, nfc: bool) -> String {
    if nfc {
        format!("{:?}", t.nfc().collect::<String>())
    } else {
        format!("{t:?}")
    }
}

const TYPES: &[&str] = &[
    "elf:INDIVIDUAL_RECORD",
    "elf:FAM_RECORD",
    "elf:NOTE_RECORD",
    "elf:PERSONAL_NAME_STRUCTURE",
    "elf:BIRTH",
    "elf:DATE_VALUE",
    "elf:NOTE_STRUCTURE",
    "elf:PARENT1_POINTER",
    "elf:MARRIAGE",
    "elf:Parent1Age",
    "elf:AGE_AT_EVENT",
    "elf:Undefined",
    "elf:Undefined#_X",
    "elf:Undefined#ERROR",
    "https://example.com/ext/Nickname",
    "https://example.org/nickname",
    "urn:x:_X",
];

/// The items as a typed document: `up` closes structures, `tag` picks a type.
fn typed(doc: &Doc) -> TypedDocument {
    let mut d = TypedDocument::new();
    let mut open: Vec<StructureId> = Vec::new();
    let mut records: Vec<RecordId> = Vec::new();
    for item in doc.items.iter().take(200) {
        for _ in 0..(item.up as usize).min(open.len()) {
            open.pop();
        }
        let ty = TYPES[item.tag as usize % TYPES.len()];
        let id = match open.last() {
            None => {
                let r = d.add_record(ty);
                records.push(r);
                r.into()
            }
            Some(&p) => match d.add(p, ty) {
                Ok(id) => id,
                Err(_) => continue,
            },
        };
        let value = match &item.value {
            None => None,
            Some(Payload::Text(t)) => Some(TypedValue::Text(t.clone())),
            Some(Payload::Pointer(p)) if !records.is_empty() => {
                Some(TypedValue::Pointer(records[*p as usize % records.len()]))
            }
            Some(Payload::Pointer(_)) => None,
        };
        let _ = d.set_value(id, value);
        open.push(id);
    }
    d
}

/// Writes `d` typed and checks that it reads back with the same types, texts (LF
/// only: CR is written as a character) and pointer targets.
fn typed_round_trip(d: &TypedDocument, enc: Encoding, minimal: bool) {
    let opts = TypedOptions {
        config: WriterConfig::new().encoding(enc).cr_is_line_break(false),
        schema_lines: if minimal {
            SchemaLines::Minimal
        } else {
            SchemaLines::Full
        },
        ..TypedOptions::default()
    };
    let mut out = Vec::new();
    if write_typed(d, &Schema::default_schema(), &opts, &mut out).is_err() {
        return;
    }
    let input = Input::new(&out).unwrap();
    let tree = Tree::from_input(&input).unwrap();
    assert!(tree
        .diagnostics()
        .iter()
        .all(|x| x.severity() != Severity::Error));
    let all: Vec<NodeRef<'_>> = tree.records().collect();
    let body = &all[1..all.len() - 1];
    let records: Vec<RecordId> = d.records().collect();
    assert_eq!(body.len(), records.len());
    let schema = tree.schema();
    let mut pairs: Vec<(StructureId, NodeRef<'_>)> = records
        .iter()
        .map(|&r| StructureId::from(r))
        .zip(body.iter().copied())
        .collect();
    while let Some((s, n)) = pairs.pop() {
        let want = schema.expand(d.structure_type(s).unwrap()).into_owned();
        assert_eq!(n.structure_type().unwrap().iri(), want);
        match d.value(s) {
            None => assert!(n.value().is_none()),
            Some(TypedValue::Text(t)) => {
                assert_eq!(
                    render_text(&n.text().unwrap(), enc == Encoding::Ansel),
                    render_text(t, enc == Encoding::Ansel)
                );
            }
            Some(TypedValue::Pointer(r)) => {
                let target = n.target().unwrap();
                let at = body.iter().position(|b| b.id() == target.id());
                assert_eq!(at, records.iter().position(|x| x == r));
            }
        }
        let dc: Vec<_> = d.children(s).collect();
        let nc: Vec<_> = n.children().collect();
        assert_eq!(dc.len(), nc.len());
        pairs.extend(dc.into_iter().zip(nc));
    }
}

fuzz_target!(|doc: Doc| {
    let enc0 = ALL_ENCODINGS[doc.encoding as usize % ALL_ENCODINGS.len()];
    typed_round_trip(&typed(&doc), enc0, doc.cr);

    let enc = ALL_ENCODINGS[doc.encoding as usize % ALL_ENCODINGS.len()];
    let le = [LineEnding::Lf, LineEnding::CrLf, LineEnding::Cr][doc.line_ending as usize % 3];
    let config = WriterConfig::new()
        .encoding(enc)
        .line_ending(le)
        .max_line_bytes(usize::from(doc.max).max(1))
        .cr_is_line_break(doc.cr);
    let nfc = enc == Encoding::Ansel;
    let mut w = Writer::with_config(Vec::new(), config);
    let mut want = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    w.begin("HEAD", None, None).unwrap();
    w.end().unwrap();
    for item in doc.items.iter().take(200) {
        for _ in 0..(item.up as usize).min(open.len()) {
            w.end().unwrap();
            let tag = open.pop().unwrap();
            want.push(format!("-{} {tag}", open.len()));
        }
        let tag = TAGS[item.tag as usize % TAGS.len()];
        let xref = item.xref.map(|x| format!("@X{x}@"));
        let pointer;
        let value = match &item.value {
            None => None,
            Some(Payload::Text(t)) => Some(WriteValue::Text(t)),
            Some(Payload::Pointer(p)) => {
                pointer = format!("@P{p}@");
                Some(WriteValue::Pointer(&pointer))
            }
        };
        if w.begin(tag, xref.as_deref(), value).is_err() {
            continue;
        }
        let mut s = format!("+{} {tag}", open.len());
        if let Some(x) = &xref {
            s += &format!(" {x}");
        }
        match value {
            None => {}
            Some(WriteValue::Pointer(p)) => s += &format!(" ={p}"),
            Some(WriteValue::Text(t)) => {
                let t = if doc.cr {
                    t.replace("\r\n", "\n").replace('\r', "\n")
                } else {
                    t.to_string()
                };
                s += &format!(" {}", render_text(&t, nfc));
            }
        }
        want.push(s);
        open.push(tag);
    }
    while let Some(tag) = open.pop() {
        want.push(format!("-{} {tag}", open.len()));
    }
    let out = w.finish().unwrap();

    let input = Input::new(&out).unwrap();
    assert_eq!(input.encoding_info().encoding, enc);
    let mut reader = input.reader();
    let mut got = Vec::new();
    let mut in_head = false;
    while let Some(e) = reader.next_event().unwrap() {
        match e {
            Event::Begin(b) => {
                if b.level == 0 {
                    in_head = b.tag.eq_ignore_ascii_case("HEAD");
                }
                if in_head {
                    continue;
                }
                let mut s = format!("+{} {}", b.level, b.tag);
                if let Some(x) = &b.xref {
                    s += &format!(" {x}");
                }
                match &b.value {
                    Some(Value::Pointer(p)) => s += &format!(" ={p}"),
                    Some(Value::Text(t)) => s += &format!(" {}", render_text(&t.text(), nfc)),
                    None => {}
                }
                got.push(s);
            }
            Event::End(e) => {
                if !in_head {
                    got.push(format!("-{} {}", e.level, e.tag));
                }
            }
        }
    }
    assert_eq!(got, want);
    assert!(reader
        .drain_diagnostics()
        .all(|d| d.severity() != Severity::Error));
});
