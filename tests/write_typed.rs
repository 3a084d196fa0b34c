//! Typed serialisation (seed §5.1, §6, §7): one test per rule, and a property test
//! (random typed documents → write → read with [`Tree`] → the same types, payloads
//! and pointer targets).

mod common;

use common::Rng;

use std::collections::{HashMap, HashSet};

use gedcom_elf::bridge::typed_document;

use gedcom_elf::tree::{NodeRef, Schema, Tree, TypeResolver};
use gedcom_elf::write::typed::{
    plan, write_typed, RecordId, SchemaLines, StructureId, TypedDocument, TypedOptions, TypedValue,
};
use gedcom_elf::write::{DropReason, LineEnding, WriteErrorKind, WriterConfig};
use gedcom_elf::{Encoding, Event, Input, Reader, Severity};
use unicode_normalization::UnicodeNormalization;

const ELF: &str = "https://terms.fhiso.org/elf/";
const DOCUMENT: &str = "https://terms.fhiso.org/elf/Document";

fn elf(name: &str) -> String {
    format!("{ELF}{name}")
}

fn write(doc: &TypedDocument, schema: &Schema, opts: &TypedOptions) -> (String, Vec<u8>) {
    let mut out = Vec::new();
    write_typed(doc, schema, opts, &mut out).unwrap();
    (String::from_utf8_lossy(&out).into_owned(), out)
}

fn schema_from(text: &str) -> std::sync::Arc<Schema> {
    let s = schema_with_diagnostics(text);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    s
}

fn schema_with_diagnostics(text: &str) -> std::sync::Arc<Schema> {
    Schema::from_reader(Reader::from_slice(text.as_bytes())).unwrap()
}

/// The records of `tree` between HEAD and TRLR.
fn body<'t>(tree: &'t Tree<'_>) -> Vec<NodeRef<'t>> {
    let all: Vec<_> = tree.records().collect();
    assert_eq!(all.first().map(|r| r.tag()), Some("HEAD"));
    assert_eq!(all.last().map(|r| r.tag()), Some("TRLR"));
    all[1..all.len() - 1].to_vec()
}

/// Checks that `out` reads back as `doc`: same record count, and for each structure
/// (records and the HEAD's typed substructures, walked side by side without
/// recursion) the same type, text and pointer target. `nfc`: compare texts in NFC.
/// The writer's `GEDC` under the `HEAD` is not compared (unless `skip_gedc` is off).
fn assert_reads_back(doc: &TypedDocument, out: &[u8], nfc: bool) {
    assert_reads_back_with(doc, out, nfc, true);
}

fn assert_reads_back_with(doc: &TypedDocument, out: &[u8], nfc: bool, skip_gedc: bool) {
    let input = Input::new(out).unwrap();
    let tree = Tree::from_input(&input).unwrap();
    let errors: Vec<_> = tree
        .diagnostics()
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let records = body(&tree);
    let doc_records: Vec<RecordId> = doc.records().collect();
    assert_eq!(records.len(), doc_records.len());
    let position: HashMap<_, _> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id(), i))
        .collect();
    let doc_position: HashMap<_, _> = doc_records
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, i))
        .collect();
    let head = tree.record(0).unwrap();
    let meta: Vec<_> = head
        .children()
        .filter(|c| c.structure_type().is_some())
        .filter(|c| !(skip_gedc && c.tag() == "GEDC"))
        .collect();
    let doc_meta: Vec<StructureId> = doc.metadata().collect();
    assert_eq!(meta.len(), doc_meta.len(), "HEAD substructures");
    let schema = tree.schema();
    let mut pairs: Vec<(StructureId, NodeRef<'_>)> = doc_records
        .iter()
        .map(|&r| StructureId::from(r))
        .zip(records.iter().copied())
        .chain(doc_meta.into_iter().zip(meta))
        .collect();
    while let Some((d, t)) = pairs.pop() {
        let want = schema.expand(doc.structure_type(d).unwrap()).into_owned();
        let got = t.structure_type().map(|s| s.iri().into_owned());
        assert_eq!(
            got.as_deref(),
            Some(want.as_str()),
            "type of line {}",
            t.line()
        );
        match doc.value(d) {
            None => assert!(t.value().is_none(), "line {} has a payload", t.line()),
            Some(TypedValue::Text(x)) => {
                let got = t
                    .text()
                    .unwrap_or_else(|| panic!("line {}: no text", t.line()));
                if nfc {
                    assert_eq!(got.nfc().collect::<String>(), x.nfc().collect::<String>());
                } else {
                    assert_eq!(got, x.as_str(), "text of line {}", t.line());
                }
            }
            Some(TypedValue::Pointer(r)) => {
                let target = t.target().expect("pointer resolves");
                assert!(
                    !target.is_synthetic(),
                    "line {}: dangling pointer",
                    t.line()
                );
                assert_eq!(position.get(&target.id()), doc_position.get(r));
            }
        }
        let dc: Vec<_> = doc.children(d).collect();
        let tc: Vec<_> = t.children().collect();
        assert_eq!(dc.len(), tc.len(), "children of line {}", t.line());
        pairs.extend(dc.into_iter().zip(tc));
    }
}

#[test]
fn tags_come_from_the_schema_in_context() {
    let mut doc = TypedDocument::new();
    let indi = doc.add_record("https://terms.fhiso.org/elf/INDIVIDUAL_RECORD");
    let fam = doc.add_record("elf:FAM_RECORD");
    doc.add_pointer(fam, "elf:PARENT1_POINTER", indi).unwrap();
    let marr = doc.add(fam, "elf:MARRIAGE").unwrap();
    let husb = doc.add(marr, "elf:Parent1Age").unwrap();
    doc.add_text(husb, "elf:AGE_AT_EVENT", "30y").unwrap();
    // CAUS is defined for elf:Event, an eventual supertype of elf:MARRIAGE.
    doc.add_text(marr, "elf:CAUSE_OF_EVENT", "love").unwrap();
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::default());
    // Nothing new, default schema: no SCHMA (readers use the default schema).
    assert!(!text.contains("SCHMA"), "{text}");
    assert!(
        text.ends_with(
            "0 @I1@ INDI\n0 FAM\n1 HUSB @I1@\n1 MARR\n2 HUSB\n3 AGE 30y\n2 CAUS love\n0 TRLR\n"
        ),
        "{text}"
    );
    assert_reads_back(&doc, &out, false);
}

#[test]
fn first_applicable_tag_in_schema_order_wins() {
    // elf:ADDRESS_EMAIL has EMAIL then EMAI (for elf:Agent) in the default schema.
    let mut doc = TypedDocument::new();
    let subm = doc.add_record("elf:SUBMITTER_RECORD");
    doc.add_text(subm, "elf:ADDRESS_EMAIL", "a@example.org")
        .unwrap();
    let p = plan(&doc, &Schema::default_schema(), SchemaLines::Full).unwrap();
    assert_eq!(p.tag(subm), Some("SUBM"));
    let email = doc.children(subm).next().unwrap();
    assert_eq!(p.tag(email), Some("EMAIL"));

    // A schema giving EMAI first gets EMAI.
    let schema = schema_from(
        "0 HEAD\n1 SCHMA\n2 IRI elf:SUBMITTER_RECORD\n3 ISA elf:Agent\n3 TAG SUBM elf:Document\n\
         2 IRI elf:ADDRESS_EMAIL\n3 TAG EMAI elf:Agent\n3 TAG EMAIL elf:Agent\n0 TRLR\n",
    );
    let p = plan(&doc, &schema, SchemaLines::Full).unwrap();
    assert_eq!(p.tag(email), Some("EMAI"));
    let (_, out) = write(&doc, &schema, &TypedOptions::default());
    assert_reads_back(&doc, &out, false);
}

#[test]
fn conflicting_definitions_are_passed_over() {
    // Under ex:S, tag X has two definitions (types ex:A and ex:B): a reader makes
    // it elf:Undefined#X, so ex:A is written with its other tag Y, and ex:B, which
    // has no other tag, with a new one.
    let schema = schema_with_diagnostics(
        "0 HEAD\n1 SCHMA\n2 PRFX ex https://example.com/\n\
         2 IRI ex:S\n3 ISA ex:Base\n3 TAG S elf:Document\n\
         2 IRI ex:A\n3 TAG X ex:S\n3 TAG Y ex:Base\n\
         2 IRI ex:B\n3 TAG X ex:Base\n0 TRLR\n",
    );
    let mut doc = TypedDocument::new();
    let s = doc.add_record("ex:S");
    let a = doc.add_text(s, "ex:A", "a").unwrap();
    let b = doc.add_text(s, "ex:B", "b").unwrap();
    let p = plan(&doc, &schema, SchemaLines::Full).unwrap();
    assert_eq!(p.tag(a), Some("Y"));
    assert_eq!(p.tag(b), Some("_B"));
    let (text, out) = write(&doc, &schema, &TypedOptions::default());
    assert!(
        text.contains("2 IRI ex:B\n3 TAG X ex:Base\n3 TAG _B ex:S\n"),
        "{text}"
    );
    assert_reads_back(&doc, &out, false);
}

#[test]
fn new_tags_collide_with_nothing_in_use() {
    // The schema has _NICK and escape-preserving _OLD; the document uses
    // elf:Undefined#_NOTE; three types end in "Nick".
    let schema = schema_from(
        "0 HEAD\n1 SCHMA\n2 ESC DATE D\n2 ESC _OLD G\n\
         2 IRI elf:INDIVIDUAL_RECORD\n3 TAG INDI elf:Document\n\
         2 IRI https://example.com/nick\n3 TAG _NICK elf:INDIVIDUAL_RECORD\n0 TRLR\n",
    );
    let mut doc = TypedDocument::new();
    let i = doc.add_record("elf:INDIVIDUAL_RECORD");
    let known = doc.add_text(i, "https://example.com/nick", "k").unwrap();
    let a = doc.add_text(i, "https://a.example/Nick", "a").unwrap();
    let b = doc
        .add_text(i, "https://b.example/terms#nick", "b")
        .unwrap();
    let old = doc.add_text(i, "https://example.com/Old", "o").unwrap();
    let note = doc.add_text(i, "https://example.com/Note", "n").unwrap();
    let undef = doc.add_text(i, &elf("Undefined#_NOTE"), "u").unwrap();
    let cont = doc.add(i, "https://example.com/CONT").unwrap();
    let p = plan(&doc, &schema, SchemaLines::Minimal).unwrap();
    assert_eq!(p.tag(known), Some("_NICK"));
    assert_eq!(p.tag(a), Some("_NICK2"));
    assert_eq!(p.tag(b), Some("_NICK3"));
    assert_eq!(p.tag(old), Some("_OLD2"));
    assert_eq!(p.tag(note), Some("_NOTE2"));
    assert_eq!(p.tag(undef), Some("_NOTE"));
    assert_eq!(p.tag(cont), Some("_CONT"));
    let invented: Vec<_> = p.invented().map(|(t, _)| t).collect();
    assert_eq!(invented, ["_NICK2", "_NICK3", "_OLD2", "_NOTE2", "_CONT"]);
    let (_, out) = write(&doc, &schema, &TypedOptions::minimal());
    assert_reads_back(&doc, &out, false);
}

#[test]
fn long_iris_give_tags_of_at_most_15_characters() {
    let mut doc = TypedDocument::new();
    let i = doc.add_record("https://example.com/AVeryLongRecordTypeName");
    let j = doc.add_record("https://example.org/AVeryLongRecordTypeNameToo");
    let p = plan(&doc, &Schema::default_schema(), SchemaLines::Full).unwrap();
    assert_eq!(p.tag(i), Some("_AVERYLONGRECOR"));
    assert_eq!(p.tag(j), Some("_AVERYLONGRECO2"));
    let (_, out) = write(&doc, &Schema::default_schema(), &TypedOptions::default());
    assert_reads_back(&doc, &out, false);
}

#[test]
fn one_new_tag_per_type_in_every_context() {
    let mut doc = TypedDocument::new();
    let i = doc.add_record("elf:INDIVIDUAL_RECORD");
    let f = doc.add_record("elf:FAM_RECORD");
    let birt = doc.add(i, "elf:BIRTH").unwrap();
    for parent in [StructureId::from(i), f.into(), birt] {
        doc.add_text(parent, "https://example.com/ext/Uuid", "x")
            .unwrap();
    }
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::minimal());
    assert!(
        text.contains(
            "2 IRI https://example.com/ext/Uuid\n\
             3 TAG _UUID elf:INDIVIDUAL_RECORD elf:FAM_RECORD elf:BIRTH\n"
        ),
        "{text}"
    );
    assert_eq!(text.matches(" _UUID x\n").count(), 3);
    assert_reads_back(&doc, &out, false);
}

#[test]
fn a_known_type_in_a_context_without_a_tag_gets_a_new_tag() {
    let mut doc = TypedDocument::new();
    let f = doc.add_record("elf:FAM_RECORD");
    let name = doc
        .add_text(f, "elf:PERSONAL_NAME_STRUCTURE", "Smith family")
        .unwrap();
    doc.add_text(name, "elf:NAME_PIECE_SURNAME", "Smith")
        .unwrap();
    let p = plan(&doc, &Schema::default_schema(), SchemaLines::Minimal).unwrap();
    assert_eq!(p.tag(name), Some("_PERSONAL_NAME_"));
    let surn = doc.children(name).next().unwrap();
    // SURN is defined for elf:PersonalName, a supertype of the name's type.
    assert_eq!(p.tag(surn), Some("SURN"));
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::minimal());
    assert!(text.contains("2 IRI elf:PERSONAL_NAME_STRUCTURE\n3 ISA elf:PersonalName\n3 TAG _PERSONAL_NAME_ elf:FAM_RECORD\n"), "{text}");
    assert_reads_back(&doc, &out, false);
}

#[test]
fn a_full_schema_carries_the_default_schema() {
    let mut doc = TypedDocument::new();
    let i = doc.add_record("elf:INDIVIDUAL_RECORD");
    doc.add_text(i, "https://example.com/ext/Nickname", "Ada")
        .unwrap();
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::default());
    assert_reads_back(&doc, &out, false);
    let read = Schema::from_reader(Reader::from_slice(&out)).unwrap();
    let default = Schema::default_schema();
    let have: HashSet<_> = read.all_tag_definitions().collect();
    for d in default.all_tag_definitions() {
        assert!(have.contains(&d), "{d:?} missing");
    }
    for iri in default.iris() {
        let a: Vec<_> = default.supertypes(iri).collect();
        let b: Vec<_> = read.supertypes(iri).collect();
        assert_eq!(a, b, "supertypes of {iri}");
    }
    assert_eq!(read.escapes(), default.escapes());
    // A structure added to the file later is typed as under the default schema.
    let edited = text.replace("0 TRLR\n", "0 @X@ INDI\n1 BIRT\n2 DATE 1815\n0 TRLR\n");
    let tree = Tree::from_slice(edited.as_bytes()).unwrap();
    let date = tree.find("@X@").unwrap().first("BIRT.DATE").unwrap();
    assert_eq!(date.structure_type().unwrap(), elf("DATE_VALUE").as_str());
}

#[test]
fn a_minimal_schema_carries_what_the_output_relies_on() {
    let mut doc = TypedDocument::new();
    let f = doc.add_record("elf:FAM_RECORD");
    let marr = doc.add(f, "elf:MARRIAGE").unwrap();
    doc.add_text(marr, "elf:CAUSE_OF_EVENT", "love").unwrap();
    doc.add_text(f, "https://example.com/ext/Uuid", "x")
        .unwrap();
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::minimal());
    // CAUS is defined for elf:Event: the ISA chain from elf:MARRIAGE is kept.
    for want in [
        "2 IRI elf:MARRIAGE\n3 ISA elf:FamilyEvent\n3 TAG MARR elf:FAM_RECORD\n",
        "2 IRI elf:FamilyEvent\n3 ISA elf:Event\n",
        "2 IRI elf:CAUSE_OF_EVENT\n3 TAG CAUS elf:Event\n",
        "2 ESC DATE D\n",
    ] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    // Only what is needed: no INDI, no BIRT.
    assert!(
        !text.contains("TAG INDI") && !text.contains("TAG BIRT"),
        "{text}"
    );
    assert_reads_back(&doc, &out, false);
    // The writer's GEDC lines keep their types too.
    let tree = Tree::from_slice(&out).unwrap();
    let gedc = tree.record(0).unwrap().child("GEDC").unwrap();
    assert_eq!(
        gedc.structure_type().unwrap(),
        elf("GEDCOM_FORMAT").as_str()
    );
    assert_eq!(
        gedc.child("VERS").unwrap().structure_type().unwrap(),
        elf("VERSION_NUMBER").as_str()
    );
}

#[test]
fn a_document_schema_is_written_even_with_no_new_tag() {
    let schema = schema_from(
        "0 HEAD\n1 SCHMA\n2 PRFX ex https://example.com/\n2 SCHMA https://example.com/schema\n\
         2 IRI ex:Person\n3 TAG PERS elf:Document\n2 IRI ex:Name\n3 TAG NAME ex:Person\n0 TRLR\n",
    );
    let mut doc = TypedDocument::new();
    let p = doc.add_record("ex:Person");
    doc.add_text(p, "ex:Name", "Ada").unwrap();
    for opts in [TypedOptions::default(), TypedOptions::minimal()] {
        let (text, out) = write(&doc, &schema, &opts);
        assert!(
            text.contains("1 SCHMA\n2 SCHMA https://example.com/schema\n"),
            "{text}"
        );
        assert!(
            text.contains("\n2 PRFX ex https://example.com/\n"),
            "{text}"
        );
        assert!(text.contains("0 PERS\n1 NAME Ada\n"), "{text}");
        assert_reads_back(&doc, &out, false);
    }
}

#[test]
fn undefined_types_keep_their_tags() {
    let mut doc = TypedDocument::new();
    let u = doc.add_record(&elf("Undefined"));
    let i = doc.add_record("elf:INDIVIDUAL_RECORD");
    doc.add_pointer(i, "elf:ALIAS_POINTER", u).unwrap();
    let x = doc.add_text(i, &elf("Undefined#_CUSTOM"), "c").unwrap();
    let e = doc.add_text(i, &elf("Undefined#ERROR"), "oops").unwrap();
    let p = plan(&doc, &Schema::default_schema(), SchemaLines::Full).unwrap();
    assert_eq!(p.tag(u), Some("UNDEF"));
    assert_eq!(p.tag(x), Some("_CUSTOM"));
    assert_eq!(p.tag(e), Some("ERROR"));
    assert_eq!(p.xref(u), Some("@U1@"));
    let (_, out) = write(&doc, &Schema::default_schema(), &TypedOptions::default());
    assert_reads_back(&doc, &out, false);

    // Refused: a tag defined in that context, continuation tags, non-tags.
    for bad in [
        "Undefined#NAME",
        "Undefined#CONT",
        "Undefined#a-b",
        "Undefined#",
    ] {
        let mut doc = TypedDocument::new();
        let i = doc.add_record("elf:INDIVIDUAL_RECORD");
        doc.add(i, &elf(bad)).unwrap();
        let e = plan(&doc, &Schema::default_schema(), SchemaLines::Full).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::Untaggable, "{bad}: {e}");
    }
    // NAME has no definition under FAM_RECORD: fine there.
    let mut doc = TypedDocument::new();
    let f = doc.add_record("elf:FAM_RECORD");
    doc.add_text(f, &elf("Undefined#NAME"), "n").unwrap();
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::default());
    assert!(text.contains("0 FAM\n1 NAME n\n"), "{text}");
    assert_reads_back(&doc, &out, false);
}

#[test]
fn xref_ids_only_for_pointed_to_records_and_never_a_fixed_one() {
    let mut doc = TypedDocument::new();
    let lonely = doc.add_record("elf:INDIVIDUAL_RECORD");
    let a = doc.add_record("elf:INDIVIDUAL_RECORD");
    let b = doc.add_record("elf:INDIVIDUAL_RECORD");
    let fixed = doc.add_record("elf:INDIVIDUAL_RECORD");
    let f = doc.add_record("elf:FAM_RECORD");
    let s = doc.add_record("elf:SOURCE_RECORD");
    let subm = doc.add_record("elf:SUBMITTER_RECORD");
    doc.set_xref(fixed, "@I1@").unwrap();
    doc.add_pointer(f, "elf:PARENT1_POINTER", a).unwrap();
    doc.add_pointer(f, "elf:PARENT2_POINTER", b).unwrap();
    doc.add_pointer(a, "elf:SPOUSE_TO_FAMILY_LINK", f).unwrap();
    let c = doc.add_pointer(a, "elf:SOURCE_CITATION", s).unwrap();
    doc.add_text(c, "elf:WHERE_WITHIN_SOURCE", "p. 1").unwrap();
    let meta = doc.add_metadata("elf:SUBMITTER_POINTER");
    doc.set_value(meta, Some(TypedValue::Pointer(subm)))
        .unwrap();
    let p = plan(&doc, &Schema::default_schema(), SchemaLines::Full).unwrap();
    assert_eq!(p.xref(lonely), None);
    assert_eq!(p.xref(a), Some("@I2@"));
    assert_eq!(p.xref(b), Some("@I3@"));
    assert_eq!(p.xref(fixed), Some("@I1@"));
    assert_eq!(p.xref(f), Some("@F1@"));
    assert_eq!(p.xref(s), Some("@S1@"));
    assert_eq!(p.xref(subm), Some("@S2@"));
    let (text, out) = write(&doc, &Schema::default_schema(), &TypedOptions::default());
    assert!(
        text.contains("1 SUBM @S2@\n0 INDI\n0 @I2@ INDI\n"),
        "{text}"
    );
    assert_reads_back(&doc, &out, false);

    // Fixed ids are checked.
    let mut doc = TypedDocument::new();
    let x = doc.add_record("elf:NOTE_RECORD");
    let y = doc.add_record("elf:NOTE_RECORD");
    for bad in ["N1", "@N:1@", "@@", "@N\n1@"] {
        assert_eq!(
            doc.set_xref(x, bad).unwrap_err().kind(),
            WriteErrorKind::InvalidXref,
            "{bad}"
        );
    }
    doc.set_xref(x, "@N1@").unwrap();
    doc.set_xref(y, "@N1@").unwrap();
    let e = plan(&doc, &Schema::default_schema(), SchemaLines::Full).unwrap_err();
    assert_eq!(e.kind(), WriteErrorKind::InvalidXref);
}

#[test]
fn metadata_structures_are_typed_in_the_metadata_context() {
    let mut doc = TypedDocument::new();
    let note = doc.add_metadata("elf:GEDCOM_CONTENT_DESCRIPTION");
    doc.set_value(note, Some(TypedValue::Text("About this file".into())))
        .unwrap();
    doc.add_metadata("https://example.com/ext/Licence");
    doc.add_record("elf:NOTE_RECORD");
    let opts = TypedOptions::minimal();
    let (text, out) = write(&doc, &Schema::default_schema(), &opts);
    assert!(
        text.contains("1 NOTE About this file\n1 _LICENCE\n0 NOTE\n"),
        "{text}"
    );
    assert_reads_back(&doc, &out, false);
    // Checked with the streaming resolver too.
    let schema = Schema::from_reader(Reader::from_slice(&out)).unwrap();
    let mut types = TypeResolver::new(schema);
    let mut seen = Vec::new();
    for e in Reader::from_slice(&out) {
        let e = e.unwrap();
        if let Event::Begin(b) = &e {
            let tag = b.tag.to_string();
            if let Some(t) = types.event(&e) {
                seen.push((tag, t.to_string()));
            }
        } else {
            types.event(&e);
        }
    }
    assert!(seen.contains(&("_LICENCE".into(), "https://example.com/ext/Licence".into())));
    assert!(seen.contains(&("NOTE".into(), elf("NOTE_RECORD"))));
}

#[test]
fn bad_input_is_refused_without_a_panic() {
    let mut doc = TypedDocument::new();
    let r = doc.add_record("elf:INDIVIDUAL_RECORD");
    let mut small = TypedDocument::new();
    // A handle of another, larger document.
    let mut big = TypedDocument::new();
    let _ = big.add_record("elf:INDIVIDUAL_RECORD");
    let other = big.add_record("elf:INDIVIDUAL_RECORD");
    assert_eq!(
        small.add(other, "elf:NAME").unwrap_err().kind(),
        WriteErrorKind::InvalidHandle
    );
    assert_eq!(
        doc.add_pointer(r, "elf:ALIAS_POINTER", other)
            .unwrap_err()
            .kind(),
        WriteErrorKind::InvalidHandle
    );
    // A record handle that names a substructure in this document.
    let _name = doc.add(r, "elf:PERSONAL_NAME_STRUCTURE").unwrap();
    let mut three = TypedDocument::new();
    let _ = three.add_record("elf:NOTE_RECORD");
    let second = three.add_record("elf:NOTE_RECORD");
    assert_eq!(
        doc.add_pointer(r, "elf:ALIAS_POINTER", second)
            .unwrap_err()
            .kind(),
        WriteErrorKind::InvalidHandle
    );
    // Types that are no IRI.
    for bad in ["", "has space", "a\nb"] {
        let mut d = TypedDocument::new();
        d.add_record(bad);
        let e = plan(&d, &Schema::default_schema(), SchemaLines::Full).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::InvalidType, "{bad:?}");
    }
    // An older draft's dictionary.
    let dict = Schema::from_reader(Reader::from_slice(
        b"0 HEAD\n1 PRFX https://example.com/\n0 TRLR\n",
    ))
    .unwrap();
    let e = plan(&doc, &dict, SchemaLines::Full).unwrap_err();
    assert_eq!(e.kind(), WriteErrorKind::InvalidType);
    // An ERROR structure with substructures (read back as too deep).
    let mut d = TypedDocument::new();
    let x = d.add_record("elf:NOTE_RECORD");
    let e = d.add(x, &elf("Undefined#ERROR")).unwrap();
    d.add(e, "elf:NOTE_STRUCTURE").unwrap();
    let err = plan(&d, &Schema::default_schema(), SchemaLines::Full).unwrap_err();
    assert_eq!(err.kind(), WriteErrorKind::Untaggable);
}

#[test]
fn prefixed_and_expanded_iris_are_one_type() {
    let mut doc = TypedDocument::new();
    let i = doc.add_record("elf:INDIVIDUAL_RECORD");
    let j = doc.add_record(&elf("INDIVIDUAL_RECORD"));
    let a = doc.add(i, "https://example.com/X").unwrap();
    let b = doc.add(j, "https://example.com/X").unwrap();
    let p = plan(&doc, &Schema::default_schema(), SchemaLines::Minimal).unwrap();
    assert_eq!(p.tag(a), p.tag(b));
    assert_eq!(p.invented().count(), 1);
    assert_eq!(
        p.structure_type(&doc, i),
        Some(elf("INDIVIDUAL_RECORD").as_str())
    );
}

#[test]
fn deep_documents_are_written_without_recursion() {
    let mut doc = TypedDocument::new();
    let r = doc.add_record("https://example.com/Deep");
    let mut at: StructureId = r.into();
    for _ in 0..100_000 {
        at = doc.add(at, "https://example.com/Deep").unwrap();
    }
    let mut out = Vec::new();
    write_typed(
        &doc,
        &Schema::default_schema(),
        &TypedOptions::minimal(),
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("100000 _DEEP\n0 TRLR\n"));
    assert!(text.contains("3 TAG _DEEP elf:Document https://example.com/Deep\n"));
}

// ---------------------------------------------------------------------------
// Property test.

const PIECES: &[&str] = &[
    "a",
    "Z",
    "0",
    " ",
    "@",
    "@@",
    "#",
    "\n",
    "é",
    "e\u{301}",
    "ж",
    "😀",
    "@#DJULIAN@ ",
    "@I1@",
    "The quick brown fox ",
    "~",
];

/// Texts that read back as written: no CR, no leading or trailing whitespace
/// ambiguity is left to the writer.
fn text(rng: &mut Rng) -> String {
    let n = match rng.below(8) {
        0..=5 => 1 + rng.below(6),
        _ => rng.below(60),
    };
    (0..n).map(|_| *rng.pick(PIECES)).collect()
}

/// Types invented here: some share a last segment, some have none.
const NEW_TYPES: &[&str] = &[
    "https://example.com/ext/Nickname",
    "https://example.org/nickname",
    "https://example.com/ext#Uuid",
    "urn:example:label",
    "https://example.com/ext/--",
    "https://example.com/ext/Record",
    "https://example.com/ext/AVeryLongTypeNameIndeed",
];

const META_TYPES: &[&str] = &[
    "elf:GEDCOM_CONTENT_DESCRIPTION",
    "elf:SUBMITTER_POINTER",
    "https://example.com/ext/Nickname",
];

const UNDEFINED_TAGS: &[&str] = &["Undefined#_X", "Undefined#ERROR", "Undefined#_EXT9"];

fn random_doc(rng: &mut Rng, schema: &Schema, children_of: &mut ChildTypes) -> TypedDocument {
    let mut doc = TypedDocument::new();
    let record_types = children_of.get(schema, DOCUMENT);
    let n = 1 + rng.below(8);
    let mut records = Vec::new();
    for _ in 0..n {
        let ty = match rng.below(10) {
            0 => rng.pick(NEW_TYPES).to_string(),
            1 => elf("Undefined"),
            _ => rng.pick(&record_types).clone(),
        };
        let r = doc.add_record(&ty);
        if rng.below(6) == 0 {
            let _ = doc.set_xref(
                r,
                &format!("@{}@", *rng.pick(&["I1", "F1", "X2", "N1", "U1"])),
            );
        }
        records.push(r);
    }
    // Grow: each new structure under a random existing one (not too many).
    let mut all: Vec<(StructureId, String)> = records
        .iter()
        .map(|&r| (r.into(), doc.structure_type(r).unwrap().to_string()))
        .collect();
    if rng.below(3) == 0 {
        let ty: &&str = rng.pick(META_TYPES);
        let m = doc.add_metadata(ty);
        all.push((m, doc.structure_type(m).unwrap().to_string()));
    }
    let extra = rng.below(30);
    for _ in 0..extra {
        let (parent, pty) = rng.pick(&all).clone();
        let pty = schema.expand(&pty).into_owned();
        let ty = match rng.below(12) {
            0 => rng.pick(NEW_TYPES).to_string(),
            1 => {
                let u: &&str = rng.pick(UNDEFINED_TAGS);
                elf(u)
            }
            _ => {
                let c = children_of.get(schema, &pty);
                if c.is_empty() {
                    rng.pick(NEW_TYPES).to_string()
                } else {
                    rng.pick(&c).clone()
                }
            }
        };
        let id = doc.add(parent, &ty).unwrap();
        match rng.below(4) {
            0 => {}
            1 => {
                let target = *rng.pick(&records);
                doc.set_value(id, Some(TypedValue::Pointer(target)))
                    .unwrap();
            }
            _ => doc
                .set_value(id, Some(TypedValue::Text(text(rng))))
                .unwrap(),
        }
        if !ty.ends_with("#ERROR") {
            all.push((id, ty));
        }
    }
    doc
}

/// The types the schema has a tag for under each superstructure type.
#[derive(Default)]
struct ChildTypes(HashMap<String, Vec<String>>);

impl ChildTypes {
    fn get(&mut self, schema: &Schema, parent: &str) -> Vec<String> {
        self.0
            .entry(parent.to_string())
            .or_insert_with(|| {
                let mut v: Vec<String> = schema
                    .all_tag_definitions()
                    .filter(|(_, sup, _)| schema.is_eventual_supertype(sup, parent))
                    .map(|(_, _, ty)| ty.to_string())
                    .collect();
                v.sort();
                v.dedup();
                v
            })
            .clone()
    }
}

#[test]
fn property_typed_documents_read_back_with_the_same_types() {
    let default = Schema::default_schema();
    let custom = schema_from(
        "0 HEAD\n1 SCHMA\n2 PRFX ex https://example.com/ext/\n2 ESC DATE D\n\
         2 IRI elf:INDIVIDUAL_RECORD\n3 ISA elf:Record\n3 TAG INDI elf:Document\n\
         2 IRI elf:NOTE_STRUCTURE\n3 TAG NOTE elf:Record ex:Nickname\n\
         2 IRI ex:Nickname\n3 TAG _NICK elf:INDIVIDUAL_RECORD\n\
         2 IRI elf:DATE_VALUE\n3 TAG DATE ex:Nickname\n0 TRLR\n",
    );
    let mut rng = Rng(0x7E57_1234_5678_9ABC);
    let encodings = [
        Encoding::Utf8,
        Encoding::Utf8,
        Encoding::Utf16Le,
        Encoding::Ansel,
        Encoding::Ascii,
        Encoding::Windows1252,
    ];
    let mut children = [ChildTypes::default(), ChildTypes::default()];
    let mut invented = 0;
    let mut skipped = 0;
    for case in 0..400 {
        let which = rng.below(3) / 2; // mostly the default schema
        let schema = if which == 0 { &default } else { &custom };
        let doc = random_doc(&mut rng, schema, &mut children[which]);
        let enc = encodings[case % encodings.len()];
        let opts = TypedOptions {
            config: WriterConfig::new()
                .encoding(enc)
                .line_ending(*rng.pick(&[LineEnding::Lf, LineEnding::CrLf]))
                .max_line_bytes(*rng.pick(&[255, 255, 40])),
            schema_lines: *rng.pick(&[SchemaLines::Full, SchemaLines::Minimal]),
            ..TypedOptions::default()
        };
        let mut out = Vec::new();
        let plan = match write_typed(&doc, schema, &opts, &mut out) {
            Ok(p) => p,
            // Fixed xrefs may repeat; anything else is a failure.
            Err(e) if e.kind() == WriteErrorKind::InvalidXref => {
                skipped += 1;
                continue;
            }
            Err(e) => panic!("case {case}: {e}"),
        };
        invented += plan.invented().count();
        let check = std::panic::catch_unwind(|| {
            assert_reads_back(&doc, &out, enc == Encoding::Ansel);
        });
        if check.is_err() {
            panic!("case {case} ({enc}):\n{}", String::from_utf8_lossy(&out));
        }
        // Xref ids: exactly the pointed-to and fixed records, all distinct.
        let mut pointed = HashSet::new();
        let mut stack: Vec<StructureId> = doc
            .records()
            .map(StructureId::from)
            .chain(doc.metadata())
            .collect();
        while let Some(s) = stack.pop() {
            if let Some(TypedValue::Pointer(r)) = doc.value(s) {
                pointed.insert(*r);
            }
            stack.extend(doc.children(s));
        }
        let mut ids = HashSet::new();
        for r in doc.records() {
            let want = pointed.contains(&r) || doc.xref(r).is_some();
            assert_eq!(plan.xref(r).is_some(), want, "case {case}");
            if let Some(x) = plan.xref(r) {
                assert!(ids.insert(x.to_string()), "case {case}: {x} twice");
            }
            if let Some(x) = doc.xref(r) {
                assert_eq!(plan.xref(r), Some(x));
            }
        }
    }
    assert!(invented > 100, "only {invented} new tags exercised");
    assert!(skipped < 40, "{skipped} cases skipped");
}

#[test]
fn corpus_trees_written_typed_read_back_with_the_same_types() {
    let mut files = common::project_corpus();
    if let Some(dir) = common::shared_corpus() {
        files.extend(common::ged_files(&dir));
    }
    let mut checked = 0;
    for (i, (name, bytes)) in files.iter().enumerate() {
        let Ok(input) = Input::new(bytes) else {
            continue;
        };
        let Ok(tree) = Tree::from_input(&input) else {
            continue;
        };
        if tree
            .diagnostics()
            .iter()
            .any(|d| d.severity() == Severity::Error)
        {
            continue;
        }
        let doc = match typed_document(&tree) {
            Ok((d, dropped)) => {
                // What a typed document leaves out is serialisation metadata, found in
                // the input.
                for x in &dropped {
                    assert!(x.line.is_some_and(|l| l > 0), "{name}: {x}");
                }
                d
            }
            // Older-draft dictionaries; pointers to substructures.
            Err(e)
                if matches!(
                    e.kind(),
                    WriteErrorKind::InvalidType | WriteErrorKind::InvalidHandle
                ) =>
            {
                continue
            }
            Err(e) => panic!("{name}: {e}"),
        };
        let mut opts = if i % 2 == 0 {
            TypedOptions::default()
        } else {
            TypedOptions::minimal()
        };
        opts.head.gedc = false;
        // Tree texts hold LF as their only line break; a CR is a character.
        opts.config = WriterConfig::new().cr_is_line_break(false);
        let mut out = Vec::new();
        match write_typed(&doc, tree.schema(), &opts, &mut out) {
            Ok(_) => {}
            // ERROR structures with substructures (from too-deep lines) cannot be written.
            Err(e) if e.kind() == WriteErrorKind::Untaggable => {
                eprintln!("{name}: {e}");
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        }
        let check = std::panic::catch_unwind(|| assert_reads_back_with(&doc, &out, false, false));
        assert!(check.is_ok(), "{name}");
        checked += 1;
    }
    assert!(checked > 30, "only {checked} files checked");
}

#[test]
fn typed_documents_list_the_serialisation_metadata_they_leave_out() {
    let input =
        b"0 HEAD\n1 CONC head text\n1 CHAR ANSI\n2 VERS 1250\n3 _V v\n2 _X x\n3 _Y\n1 SOUR s\n\
1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada\n0 TRLR\n0 NOTE after\n0 TRLR end\n1 _T t\n";
    let tree = Tree::from_slice(input).unwrap();
    let (doc, dropped) = typed_document(&tree).unwrap();
    let got: Vec<(String, Option<u64>, DropReason)> = dropped
        .iter()
        .map(|d| (d.tag.clone(), d.line, d.reason))
        .collect();
    let want = [
        ("HEAD", 1, DropReason::UntypedPayload),
        ("_V", 5, DropReason::Untyped),
        ("_X", 6, DropReason::Untyped),
        ("CHAR", 9, DropReason::SecondChar),
        ("TRLR", 12, DropReason::Untyped),
        ("TRLR", 14, DropReason::UntypedPayload),
        ("_T", 15, DropReason::Untyped),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|&(t, l, r)| (t.to_string(), Some(l), r))
        .collect();
    assert_eq!(got, want);
    // The rest is in the document: the SOUR, the INDI and the NOTE.
    assert_eq!(doc.metadata().count(), 1);
    assert_eq!(doc.records().count(), 2);
    // Nothing left out of a file without such structures.
    let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n1 SOUR s\n0 @I1@ INDI\n0 TRLR\n").unwrap();
    assert!(typed_document(&tree).unwrap().1.is_empty());
}
