//! ELF schemas and structure type identifiers (seed §6.2, §7, Appendix A)
//! and the older drafts' IRI dictionaries (seeds 000 and 003 §6).

use gedcom_elf::tree::{Schema, SchemaSource, Tree, TypeResolver};
use gedcom_elf::{DiagnosticKind, Reader};

const ELF: &str = "https://terms.fhiso.org/elf/";

/// `(line, type)` of every node, types shortened to `elf:`.
fn types(input: &str) -> Vec<(u64, Option<String>)> {
    let tree = Tree::from_slice(input.as_bytes()).unwrap();
    tree.nodes()
        .filter(|n| !n.is_synthetic())
        .map(|n| {
            (
                n.line(),
                n.structure_type().map(|t| t.iri().replace(ELF, "elf:")),
            )
        })
        .collect()
}

/// Every default-schema context in which DATE, HUSB, NAME, FAMC, TYPE,
/// RESI, SOUR, NOTE or OBJE has more than one meaning, and a few more.
const CONTEXTS: &str = "\
0 HEAD
1 SOUR app
2 NAME product
2 DATA data
3 DATE 2019
1 DATE 1 JAN 2020
2 TIME 12:00
1 NOTE hi
1 CHAR UTF-8
0 @I1@ INDI
1 NAME A /B/
2 TYPE birth
2 FONE x
3 TYPE y
2 ROMN r
3 TYPE z
2 SOUR @S1@
2 NOTE n
1 BIRT
2 DATE 1900
2 TYPE t
2 FAMC @F1@
2 OBJE @O1@
2 PLAC p
3 NOTE pn
1 ADOP
2 FAMC @F1@
3 ADOP BOTH
1 FAMC @F1@
1 RESI
1 SOUR @S1@
2 DATA
3 DATE 1901
2 OBJE @O1@
1 CHAN
2 DATE 1 JAN 2000
1 REFN 1
2 TYPE u
1 BURI
1 BRI
1 _CUSTOM x
2 NOTE z
0 @F1@ FAM
1 HUSB @I1@
1 RESI
2 HUSB
3 AGE 30
1 MARR
2 HUSB
3 AGE 31
1 SOUR @S1@
0 @S1@ SOUR
1 DATA
2 EVEN BIRT
3 DATE FROM 1900 TO 1910
2 NOTE sn
1 OBJE @O1@
0 @O1@ OBJE
1 OBJE @O2@
1 NOTE on
0 @N1@ NOTE text
0 @R1@ REPO
1 NAME Repo
0 @U1@ SUBM
1 NAME Me
1 OBJE @O1@
0 UNDEF
0 TRLR
";

#[test]
fn every_default_schema_context_with_several_meanings() {
    let want: Vec<Option<&str>> = vec![
        None,                                   // HEAD
        Some("elf:DOCUMENT_SOURCE"),            // SOUR in HEAD
        Some("elf:NAME_OF_PRODUCT"),            // NAME
        Some("elf:NAME_OF_SOURCE_DATA"),        // DATA
        Some("elf:PUBLICATION_DATE"),           // DATE
        Some("elf:TRANSMISSION_DATE"),          // DATE in HEAD
        Some("elf:TIME_VALUE"),                 // TIME
        Some("elf:GEDCOM_CONTENT_DESCRIPTION"), // NOTE in HEAD
        None,                                   // CHAR
        Some("elf:INDIVIDUAL_RECORD"),
        Some("elf:PERSONAL_NAME_STRUCTURE"),
        Some("elf:NAME_TYPE"),
        Some("elf:NAME_PHONETIC_VARIATION"),
        Some("elf:PHONETIC_TYPE"),
        Some("elf:NAME_ROMANIZED_VARIATION"),
        Some("elf:ROMANIZED_TYPE"),
        Some("elf:SOURCE_CITATION"), // SOUR under NAME (elf:PersonalName)
        Some("elf:NOTE_STRUCTURE"),  // NOTE under NAME
        Some("elf:BIRTH"),
        Some("elf:DATE_VALUE"),
        Some("elf:EVENT_OR_FACT_CLASSIFICATION"),
        Some("elf:WITHIN_FAMILY"),
        Some("elf:MULTIMEDIA_LINK"), // OBJE under an event
        Some("elf:PLACE_STRUCTURE"),
        Some("elf:NOTE_STRUCTURE"), // NOTE under PLAC
        Some("elf:ADOPTION"),
        Some("elf:ADOPTIVE_FAMILY"),
        Some("elf:ADOPTED_BY_WHICH_PARENT"),
        Some("elf:CHILD_TO_FAMILY_LINK"),
        Some("elf:RESIDES_AT"),
        Some("elf:SOURCE_CITATION"),
        Some("elf:SOURCE_CITATION_DATA"),
        Some("elf:ENTRY_RECORDING_DATE"),
        Some("elf:MULTIMEDIA_LINK"), // OBJE under a citation
        Some("elf:CHANGE_DATE"),
        Some("elf:CHANGE_DATE_DATE"),
        Some("elf:USER_REFERENCE_NUMBER"),
        Some("elf:USER_REFERENCE_TYPE"),
        Some("elf:BURIAL"), // BURI: the typo fix
        Some("elf:BURIAL"), // BRI, as Appendix A writes it
        Some("elf:Undefined#_CUSTOM"),
        Some("elf:Undefined#NOTE"), // under an undefined structure
        Some("elf:FAM_RECORD"),
        Some("elf:PARENT1_POINTER"),
        Some("elf:RESIDENCE"),
        Some("elf:Parent1Age"), // HUSB under a family event
        Some("elf:AGE_AT_EVENT"),
        Some("elf:MARRIAGE"),
        Some("elf:Parent1Age"),
        Some("elf:AGE_AT_EVENT"),
        Some("elf:SOURCE_CITATION"),
        Some("elf:SOURCE_RECORD"),
        Some("elf:SOURCE_RECORD_DATA"),
        Some("elf:EVENTS_RECORDED"),
        Some("elf:DATE_PERIOD"),
        Some("elf:NOTE_STRUCTURE"),
        Some("elf:MULTIMEDIA_LINK"),
        Some("elf:MULTIMEDIA_RECORD"),
        Some("elf:CONTINUED_BINARY_OBJECT"),
        Some("elf:NOTE_STRUCTURE"), // via elf:Record
        Some("elf:NOTE_RECORD"),
        Some("elf:REPOSITORY_RECORD"),
        Some("elf:NAME_OF_REPOSITORY"),
        Some("elf:SUBMITTER_RECORD"),
        Some("elf:SUBMITTER_NAME"),
        Some("elf:MULTIMEDIA_LINK"),
        Some("elf:Undefined"), // UNDEF
        None,                  // TRLR
    ];
    let got = types(CONTEXTS);
    assert_eq!(got.len(), want.len());
    for ((line, got), want) in got.iter().zip(&want) {
        assert_eq!(got.as_deref(), *want, "line {line}");
    }

    // The streaming resolver agrees with the tree.
    let schema = Schema::from_reader(Reader::from_slice(CONTEXTS.as_bytes())).unwrap();
    let mut resolver = TypeResolver::new(schema);
    let mut streamed = Vec::new();
    for e in Reader::from_slice(CONTEXTS.as_bytes()) {
        let e = e.unwrap();
        let is_begin = matches!(e, gedcom_elf::Event::Begin(_));
        let t = resolver.event(&e).map(|t| t.iri().replace(ELF, "elf:"));
        if is_begin {
            streamed.push(t);
        }
    }
    let tree_types: Vec<Option<String>> = got.into_iter().map(|x| x.1).collect();
    assert_eq!(streamed, tree_types);
}

#[test]
fn default_schema_is_used_without_schma_and_is_conflict_free() {
    let s = Schema::default_schema();
    assert_eq!(s.source(), SchemaSource::Default);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    assert!(s.is_eventual_supertype(&format!("{ELF}Event"), &format!("{ELF}MARRIAGE")));
    assert!(!s.is_eventual_supertype(&format!("{ELF}MARRIAGE"), &format!("{ELF}Event")));
    let defs: Vec<(&str, &str)> = s.tag_definitions("BURI").collect();
    assert_eq!(
        defs,
        [(
            &*format!("{ELF}INDIVIDUAL_RECORD"),
            &*format!("{ELF}BURIAL")
        )]
    );
    let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n").unwrap();
    assert_eq!(tree.schema().source(), SchemaSource::Default);
}

const CUSTOM: &str = "\
0 HEAD
1 SCHMA
2 SCHMA https://fhiso.org/TR/elf-data-model/v1.0.0
2 PRFX ex https://example.com/
2 PRFX ex https://example.org/other/
2 IRI ex:Root
3 TAG ROOT elf:Document
2 IRI ex:Child
3 ISA ex:Middle
3 TAG KID ex:Root
2 IRI ex:Middle
3 ISA ex:Top
2 IRI ex:Named
3 TAG NAME ex:Top
2 IRI ex:Loop1
3 ISA ex:Loop2
3 TAG L1 ex:Root
2 IRI ex:Loop2
3 ISA ex:Loop1
2 IRI ex:InLoop
3 TAG X ex:Loop2
2 IRI ex:A
3 TAG AMB ex:Root
2 IRI ex:B
3 TAG AMB ex:Root
2 IRI ex:Same
3 TAG SAME ex:Root
3 TAG SAME ex:Root
2 IRI ex:Old
3 TAG _OLD ex:Root
2 ESC _OLD G
2 IRI elf:BURIAL
3 TAG BRI ex:Root
2 IRI ex:Bad
3 TAG 1+2
3 FOO bar
2 WHAT ever
1 SOUR x
1 SCHMA
2 IRI ex:Second
3 TAG SECOND ex:Root
0 ROOT
1 KID
2 NAME deep
1 L1
2 X x
1 AMB a
1 SAME s
1 _OLD @#Gkept@ and @#Dremoved@ text
1 BURI b
1 SECOND 2
0 INDI
0 TRLR
";

#[test]
fn document_schema_prefixes_isa_chains_esc_and_conflicts() {
    let tree = Tree::from_slice(CUSTOM.as_bytes()).unwrap();
    let s = tree.schema();
    assert_eq!(s.source(), SchemaSource::Document);
    assert_eq!(
        s.external_schemas().collect::<Vec<_>>(),
        ["https://fhiso.org/TR/elf-data-model/v1.0.0"]
    );
    assert!(s.prefixes().contains(&("ex", "https://example.com/")));
    assert!(s.prefixes().contains(&("elf", ELF)));
    assert_eq!(s.expand("ex:Root"), "https://example.com/Root");
    assert_eq!(s.expand("zz:Root"), "zz:Root");
    assert!(s.is_eventual_supertype("https://example.com/Top", "https://example.com/Child"));

    let msgs: Vec<String> = s.diagnostics().iter().map(|d| d.message.clone()).collect();
    let has = |needle: &str| msgs.iter().any(|m| m.contains(needle));
    assert!(has("conflicting prfx"), "{msgs:?}");
    assert!(has("conflicting tag definitions: tag AMB"), "{msgs:?}");
    assert!(
        !has("tag SAME"),
        "the same type twice is no conflict: {msgs:?}"
    );
    assert!(has("\"1+2\""), "{msgs:?}");
    assert!(has("\"FOO\""), "{msgs:?}");
    assert!(has("\"WHAT\""), "{msgs:?}");
    assert!(s
        .diagnostics()
        .iter()
        .all(|d| d.kind == DiagnosticKind::Schema));

    let root = tree.record(1).unwrap();
    let t = |n: gedcom_elf::NodeRef<'_>| n.structure_type().unwrap().to_string();
    assert_eq!(t(root), "https://example.com/Root");
    // NAME is defined under ex:Top; KID is an ex:Child, which ISA ex:Middle ISA ex:Top.
    assert_eq!(
        t(root.first("KID.NAME").unwrap()),
        "https://example.com/Named"
    );
    // An ISA cycle terminates; X is defined under ex:Loop2, a supertype of ex:Loop1.
    assert_eq!(t(root.first("L1.X").unwrap()), "https://example.com/InLoop");
    assert_eq!(t(root.child("AMB").unwrap()), format!("{ELF}Undefined#AMB"));
    assert_eq!(t(root.child("SAME").unwrap()), "https://example.com/Same");
    assert_eq!(t(root.child("BURI").unwrap()), format!("{ELF}BURIAL"));
    assert_eq!(
        t(root.child("SECOND").unwrap()),
        "https://example.com/Second"
    );
    // ESC in the document's schema: G escapes kept in _OLD, D ones removed.
    assert_eq!(
        root.child("_OLD").unwrap().text().unwrap(),
        "@#Gkept@ and text"
    );
    // The document's schema replaces the default: INDI means nothing here.
    assert_eq!(t(tree.record(2).unwrap()), format!("{ELF}Undefined#INDI"));
    // HEAD, its SCHMA subtrees and TRLR are serialisation metadata; other
    // HEAD substructures are typed in elf:Metadata.
    let head = tree.record(0).unwrap();
    assert!(head.structure_type().is_none());
    assert!(head
        .descendants()
        .filter(|n| n.tag() != "SOUR")
        .all(|n| n.structure_type().is_none()));
    assert_eq!(
        t(head.child("SOUR").unwrap()),
        format!("{ELF}Undefined#SOUR")
    );
    assert!(tree.records().last().unwrap().structure_type().is_none());
}

#[test]
fn older_draft_dictionaries() {
    // Seed 003 §6.4's example, plus records.
    let input = "0 HEAD\n1 CHAR UTF-8\n\
        1 DEFN _UID http://example.com/UUID\n2 CONT http://purl.org/dc/terms/identifier\n\
        1 PRFX X_ http://example.com/extensions/\n1 PRFX _ http://example.com/old_extensions.html#\n\
        0 @I1@ INDI\n1 X_LAT 1\n1 _LOC 2\n1 _UID 3\n1 NAME n\n1 CONT stray\n0 TRLR\n";
    let tree = Tree::from_slice(input.as_bytes()).unwrap();
    assert_eq!(tree.schema().source(), SchemaSource::Dictionary);
    let all: Vec<(&str, Option<String>)> = tree
        .nodes()
        .map(|n| (n.tag(), n.structure_type().map(|t| t.to_string())))
        .collect();
    let want: Vec<(&str, Option<&str>)> = vec![
        ("HEAD", Some("http://terms.fhiso.org/elf/HEAD")),
        ("CHAR", None),
        ("DEFN", None),
        ("PRFX", None),
        ("PRFX", None),
        ("INDI", Some("http://terms.fhiso.org/elf/INDI")),
        ("X_LAT", Some("http://example.com/extensions/LAT")),
        ("_LOC", Some("http://example.com/old_extensions.html#LOC")),
        ("_UID", Some("http://example.com/UUID")),
        ("NAME", Some("http://terms.fhiso.org/elf/NAME")),
        ("CONT", None),
        ("TRLR", None),
    ];
    let all: Vec<(&str, Option<&str>)> = all.iter().map(|(t, i)| (*t, i.as_deref())).collect();
    assert_eq!(all, want);

    // A default namespace, and a bad key.
    let input =
        "0 HEAD\n1 PRFX http://example.org/ns/\n1 PRFX bad http://x/\n0 INDI\n1 UNDEF\n0 TRLR\n";
    let tree = Tree::from_slice(input.as_bytes()).unwrap();
    let indi = tree.record(1).unwrap();
    assert_eq!(indi.structure_type().unwrap(), "http://example.org/ns/INDI");
    assert_eq!(
        tree.schema().default_namespace(),
        Some("http://example.org/ns/")
    );
    assert_eq!(
        indi.child("UNDEF").unwrap().structure_type().unwrap(),
        format!("{ELF}Undefined").as_str()
    );
    assert_eq!(tree.schema().diagnostics().len(), 1);

    // With a SCHMA, PRFX/DEFN directly under HEAD are not a dictionary.
    let input = "0 HEAD\n1 PRFX X_ http://x/\n1 SCHMA\n2 IRI elf:R\n3 TAG X_R elf:Document\n0 X_R\n0 TRLR\n";
    let tree = Tree::from_slice(input.as_bytes()).unwrap();
    assert_eq!(tree.schema().source(), SchemaSource::Document);
    assert_eq!(
        tree.record(1).unwrap().structure_type().unwrap(),
        format!("{ELF}R").as_str()
    );
}

#[test]
fn schema_from_reader_reads_only_the_head() {
    let input = b"0 HEAD\n1 SCHMA\n2 ESC _X Q\n0 @I1@ INDI\n1 SCHMA\n2 ESC _Y Z\n0 TRLR\n";
    let s = Schema::from_reader(Reader::from_slice(input)).unwrap();
    assert!(s.escapes().lookup(b"_X").contains(b'Q'));
    assert!(s.escapes().lookup(b"_Y").is_empty());
    assert!(
        s.escapes().lookup(b"DATE").is_empty(),
        "the default's ESC is replaced"
    );
}
