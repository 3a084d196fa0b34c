//! The tree: navigation, pointers and UNDEF records, duplicates, deep
//! nesting, record-at-a-time trees against the whole tree.

#[path = "../benches/support/generate.rs"]
mod generate;

use gedcom_elf::tree::{Records, Step, Tree};
use gedcom_elf::{DiagnosticKind, Event, Input, Origin, Reader, Value};

const SAMPLE: &str = "0 HEAD\n1 CHAR UTF-8\n1 SOUR test\n\
0 @I1@ INDI\n1 NAME Ada /Lovelace/\n2 GIVN Ada\n1 BIRT\n2 DATE @#DJULIAN@ 10 DEC 1815\n2 PLAC London\n\
1 DEAT\n2 DATE 27 NOV 1852\n2 PLAC Marylebone\n1 FAMS @F1@\n1 NOTE First line\n2 CONC , same line\n2 CONT second e@@x\n\
0 @I2@ INDI\n1 NAME William /King/\n1 FAMS @F1@\n\
0 @F1@ FAM\n1 HUSB @I2@\n1 WIFE @I1@\n1 CHIL @I9@\n1 CHIL @I9@\n1 SOUR @S1@\n\
0 @S1@ SOUR\n1 TITL One\n0 @S1@ SOUR\n1 TITL Two\n\
0 TRLR\n";

#[test]
fn records_children_paths_and_payloads() {
    let tree = Tree::from_slice(SAMPLE.as_bytes()).unwrap();
    let tags: Vec<&str> = tree.records().map(|r| r.tag()).collect();
    assert_eq!(
        tags,
        ["HEAD", "INDI", "INDI", "FAM", "SOUR", "SOUR", "TRLR"]
    );
    assert_eq!(tree.record_count(), 7);
    assert_eq!(tree.record(3).unwrap().xref().unwrap().as_bytes(), b"@F1@");

    let ada = tree.find("@I1@").unwrap();
    assert_eq!(ada.line(), 4);
    assert_eq!(ada.level(), 0);
    assert!(ada.parent().is_none());
    let children: Vec<&str> = ada.children().map(|c| c.tag()).collect();
    assert_eq!(children, ["NAME", "BIRT", "DEAT", "FAMS", "NOTE"]);
    assert_eq!(ada.children_with_tag("BIRT").count(), 1);
    let birt = ada.child("BIRT").unwrap();
    assert_eq!(birt.parent().unwrap(), ada);
    assert_eq!(birt.next_sibling().unwrap().tag(), "DEAT");
    assert_eq!(ada.child("NOTE").unwrap().next_sibling(), None);
    assert_eq!(
        birt.first("DATE").unwrap().text().unwrap(),
        "@#DJULIAN@ 10 DEC 1815"
    );
    let places: Vec<String> = ada
        .path("*.PLAC")
        .map(|n| n.text().unwrap().into_owned())
        .collect();
    assert_eq!(places, ["London", "Marylebone"]);
    assert_eq!(ada.first("BIRT.PLAC").unwrap().line(), 9);
    assert_eq!(ada.first("BIRT.PLAC").unwrap().level(), 2);
    assert!(ada.first("BIRT.NOPE").is_none());
    assert!(ada.first("").is_none());
    let note = ada.child("NOTE").unwrap();
    assert_eq!(note.text().unwrap(), "First line, same line\nsecond e@x");
    assert!(note.payload().unwrap().is_continued());
    assert!(!note.has_children(), "CONT/CONC lines are not nodes");
    assert_eq!(ada.subtree_len(), 11);
    assert_eq!(ada.descendants().count(), 10);
    assert_eq!(birt.record(), ada);

    let all: Vec<String> = tree
        .path("INDI.NAME")
        .map(|n| n.text().unwrap().into_owned())
        .collect();
    assert_eq!(all, ["Ada /Lovelace/", "William /King/"]);
    assert_eq!(tree.path("INDI.BIRT.DATE").count(), 1);

    // Pointers.
    let fams = ada.child("FAMS").unwrap();
    assert_eq!(fams.pointer().unwrap().as_bytes(), b"@F1@");
    assert!(matches!(fams.value(), Some(Value::Pointer(_))));
    assert!(fams.text().is_none());
    let fam = fams.target().unwrap();
    assert_eq!(fam, tree.find("@F1@").unwrap());
    assert_eq!(fam.child("WIFE").unwrap().target().unwrap(), ada);
    assert!(ada.target().is_none(), "not a pointer");
    assert_eq!(tree.node(birt.id()), birt);
}

#[test]
fn unresolved_pointers_become_one_undef_record_per_xref() {
    let tree = Tree::from_slice(SAMPLE.as_bytes()).unwrap();
    let fam = tree.find("@F1@").unwrap();
    let chil: Vec<_> = fam.children_with_tag("CHIL").collect();
    let a = chil[0].target().unwrap();
    let b = chil[1].target().unwrap();
    assert_eq!(a, b, "one UNDEF record per distinct xref");
    assert_eq!(a.tag(), "UNDEF");
    assert!(a.is_synthetic());
    assert_eq!(a.xref().unwrap().as_bytes(), b"@I9@");
    assert!(a.value().is_none());
    assert!(!a.has_children());
    assert_eq!(
        a.structure_type().unwrap(),
        "https://terms.fhiso.org/elf/Undefined"
    );

    // @S1@ is defined twice: pointers to it resolve to UNDEF too.
    let sour = fam.child("SOUR").unwrap().target().unwrap();
    assert_eq!(sour.tag(), "UNDEF");
    assert_eq!(sour.xref().unwrap().as_bytes(), b"@S1@");
    assert!(tree.find("@S1@").is_none());
    assert_eq!(tree.find_all("@S1@").len(), 2);

    let undef: Vec<String> = tree
        .undefined_records()
        .map(|r| r.xref().unwrap().to_str_lossy().into_owned())
        .collect();
    assert_eq!(undef, ["@I9@", "@S1@"]);
    assert_eq!(
        tree.len(),
        tree.nodes().count() - 2,
        "synthetic records are extra"
    );

    let kinds: Vec<(DiagnosticKind, u64)> = tree
        .diagnostics()
        .iter()
        .map(|d| (d.kind, d.position.line))
        .collect();
    assert!(
        kinds.contains(&(DiagnosticKind::DuplicateXref, 28)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(DiagnosticKind::UnresolvedPointer, 23)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(DiagnosticKind::UnresolvedPointer, 25)),
        "{kinds:?}"
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|k| k.0 == DiagnosticKind::UnresolvedPointer)
            .count(),
        2
    );
}

#[test]
fn error_structures_keep_their_origin() {
    let input =
        b"0 HEAD\n0 @I1@ INDI\n2 PLAC Moscow\n3 ROMN Moskva\n1 NAME Ivan\n1 !!bad\n0 TRLR\n";
    let tree = Tree::from_slice(input).unwrap();
    let indi = tree.find("@I1@").unwrap();
    let c: Vec<_> = indi.children().collect();
    assert_eq!(c[0].tag(), "ERROR");
    assert_eq!(c[0].origin(), Origin::TooDeepLine { original_level: 2 });
    assert_eq!(c[0].text().unwrap(), "2 PLAC Moscow");
    assert_eq!(c[0].child("ROMN").unwrap().text().unwrap(), "Moskva");
    assert_eq!(c[1].origin(), Origin::Line);
    let bad = tree
        .nodes()
        .find(|n| n.origin() == Origin::UnparsableLine)
        .unwrap();
    assert_eq!(bad.text().unwrap(), "1 !!bad");
    assert_eq!(
        bad.structure_type().unwrap(),
        "https://terms.fhiso.org/elf/Undefined#ERROR"
    );
}

/// A chain `depth` levels deep.
fn deep(depth: usize) -> Vec<u8> {
    let mut s = String::from("0 HEAD\n0 @I1@ INDI\n");
    for l in 1..depth {
        s.push_str(&format!("{l} _X v{l}\n"));
    }
    s.push_str("0 TRLR\n");
    s.into_bytes()
}

#[test]
fn a_hundred_thousand_levels_build_walk_and_drop() {
    let input = deep(100_000);
    let tree = Tree::from_slice(&input).unwrap();
    assert_eq!(tree.len(), 100_002);
    let indi = tree.find("@I1@").unwrap();
    let (mut enters, mut leaves, mut max) = (0, 0, 0);
    let mut walk = indi.walk();
    while let Some(step) = walk.next() {
        match step {
            Step::Enter(_) => enters += 1,
            Step::Leave(_) => leaves += 1,
        }
        max = max.max(walk.depth());
    }
    assert_eq!((enters, leaves, max), (100_000, 100_000, 100_000));
    let last = tree.node(indi.descendants().last().unwrap().id());
    assert_eq!(last.level(), 99_999);
    assert_eq!(last.record(), indi);
    let path = vec!["_X"; 500].join(".");
    assert_eq!(indi.first(&path).unwrap().level(), 500);
    drop(tree);

    let mut n = 0;
    for r in Records::new(&input[..]) {
        n += r.unwrap().len();
    }
    assert_eq!(n, 100_002);
}

#[test]
fn utf16_and_ansel_inputs() {
    let text = "0 HEAD\n1 CHAR UNICODE\n0 @I1@ INDI\n1 NAME Ærø /Łódź/\n0 TRLR\n";
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let input = Input::new(&bytes).unwrap();
    let tree = Tree::from_input(&input).unwrap();
    assert_eq!(
        tree.find("@I1@")
            .unwrap()
            .first("NAME")
            .unwrap()
            .text()
            .unwrap(),
        "Ærø /Łódź/"
    );
    let recs: Vec<_> = Records::new(&bytes[..]).map(Result::unwrap).collect();
    assert_eq!(
        recs[1].root().child("NAME").unwrap().text().unwrap(),
        "Ærø /Łódź/"
    );
    assert_eq!(recs[1].root().child("NAME").unwrap().line(), 4);

    // ANSEL: E2 is the combining acute accent, before its base letter.
    let ansel = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Ren\xE2e\n0 TRLR\n";
    let tree = Tree::from_slice(ansel).unwrap();
    assert_eq!(
        tree.find("@I1@")
            .unwrap()
            .first("NAME")
            .unwrap()
            .text()
            .unwrap(),
        "René"
    );
}

#[test]
fn not_gedcom_is_an_error_for_both() {
    assert!(Tree::from_slice(b"hello\n").is_err());
    assert!(Tree::from_slice(b"").is_err());
    assert!(Records::new(&b"hello\n0 TRLR\n"[..])
        .next()
        .unwrap()
        .is_err());
    assert!(Records::new(&b""[..]).next().unwrap().is_err());
}

/// Each diagnostic's kind, line and byte.
fn places(ds: impl Iterator<Item = gedcom_elf::Diagnostic>) -> Vec<(DiagnosticKind, u64, u64)> {
    ds.map(|d| (d.kind, d.position.line, d.position.byte))
        .collect()
}

/// Compares every node of the record trees with the whole tree's, on one
/// thread and on two.
fn same_records(input: &[u8]) -> usize {
    let n = same_records_in_batches(input, 64 << 10, 1);
    for batch in [1, 1000, 64 << 10] {
        for jobs in [1, 2] {
            assert_eq!(
                same_records_in_batches(input, batch, jobs),
                n,
                "batch {batch} jobs {jobs}"
            );
        }
    }
    n
}

/// [`same_records`] at one batch size and number of jobs.
fn same_records_in_batches(input: &[u8], batch: usize, jobs: usize) -> usize {
    let prepared = Input::new(input).unwrap();
    let tree = Tree::from_input(&prepared).unwrap();
    let mut whole = tree.records();
    let mut n = 0;
    for rec in Records::new(input).batch_bytes(batch).jobs(jobs) {
        let rec = rec.unwrap();
        let root = whole.next().expect("as many records");
        assert_eq!(rec.len(), root.subtree_len());
        for (a, b) in rec
            .nodes()
            .zip(std::iter::once(root).chain(root.descendants()))
        {
            assert_eq!(a.tag(), b.tag());
            assert_eq!(a.line(), b.line());
            assert_eq!(a.xref(), b.xref());
            assert_eq!(a.pointer(), b.pointer());
            assert_eq!(a.text(), b.text());
            assert_eq!(a.level(), b.level());
            assert_eq!(a.origin(), b.origin());
            assert_eq!(
                a.structure_type().map(|t| t.iri().into_owned()),
                b.structure_type().map(|t| t.iri().into_owned())
            );
            n += 1;
        }
    }
    assert!(whole.next().is_none());
    n
}

#[test]
fn record_trees_equal_the_whole_tree_on_generated_data() {
    let mut data = Vec::new();
    let stats = generate::generate_bytes(3_000_000, 7, &mut data).unwrap();
    assert_eq!(same_records(&data) as u64, stats.structures);
    // The same with CRLF and CR line breaks.
    let crlf: Vec<u8> = String::from_utf8(data.clone())
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    assert_eq!(same_records(&crlf) as u64, stats.structures);
    let cr: Vec<u8> = data
        .iter()
        .map(|&b| if b == b'\n' { b'\r' } else { b })
        .collect();
    assert_eq!(same_records(&cr) as u64, stats.structures);
}

#[test]
fn record_trees_equal_the_whole_tree_after_stray_level_0_lines() {
    // A level-0 CONT/CONC/ERROR record is judged by the level of the line
    // before it: `3 DEEP` follows `2 DATE` in the whole file.
    let input = b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n0 CONT stray\n3 DEEP x\n4 DEEPER y\n\
                  0 ERROR e\n1 X\n0 CONC c\n!!junk\n2 Y\n0 @I2@ INDI\n1 NAME n\n0 TRLR\n";
    let n = same_records(input);
    assert_eq!(n, Tree::from_slice(input).unwrap().len());
    let roots: Vec<String> = Records::new(&input[..])
        .map(|r| r.unwrap().root().tag().to_string())
        .collect();
    assert_eq!(
        roots,
        ["HEAD", "INDI", "CONT", "ERROR", "CONC", "INDI", "TRLR"]
    );
}

#[test]
fn a_second_byte_order_mark_stays_as_the_whole_file_reader_keeps_it() {
    let config = gedcom_elf::ReaderConfig::new().headless(true);
    let utf8 = b"\xEF\xBB\xBF\xEF\xBB\xBFx\n0 TRLR\n".to_vec();
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(
        "\u{feff}x\n0 TRLR\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes()),
    );
    for bytes in [utf8, utf16] {
        let input = Input::new(&bytes).unwrap();
        let tree = Tree::build(input.reader_with_config(config.clone())).unwrap();
        let whole: Vec<Option<String>> = tree
            .nodes()
            .map(|n| n.text().map(|t| t.into_owned()))
            .collect();
        let records: Vec<Option<String>> = Records::with_config(&bytes[..], config.clone())
            .flat_map(|r| {
                let r = r.unwrap();
                r.nodes()
                    .map(|n| n.text().map(|t| t.into_owned()))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(records, whole);
        assert_eq!(whole[0].as_deref(), Some("\u{feff}x"));
    }
}

#[test]
fn fuzz_tree_crash_2c6cc22c_offsets_after_a_second_byte_order_mark_are_the_inputs() {
    // The first record was read with a mark put back in front (so that a
    // second one stayed), and its diagnostics were 3 bytes off.
    let config = gedcom_elf::ReaderConfig::new().headless(true);
    let bytes = b"\xEF\xBB\xBF\xEF\xBB\xBFEAD\n0Rt H\n0 TRLR\n";
    let input = Input::new(bytes).unwrap();
    let mut r = input.reader_with_config(config.clone());
    while r.next_event().unwrap().is_some() {}
    let want = places(r.drain_diagnostics());
    assert_eq!(
        want,
        [
            (DiagnosticKind::UnparsableLine, 1, 0),
            (DiagnosticKind::UnparsableLine, 2, 7)
        ]
    );
    for jobs in [1, 2] {
        let mut records = Records::with_config(&bytes[..], config.clone()).jobs(jobs);
        assert_eq!(records.by_ref().count(), 3);
        assert_eq!(places(records.drain_diagnostics()), want, "jobs {jobs}");
    }
}

#[test]
fn record_trees_are_send_and_outlive_the_iterator() {
    fn send<T: Send + Sync + 'static>(_: &T) {}
    let mut records = Records::new(SAMPLE.as_bytes());
    let first = records.next().unwrap().unwrap();
    let rest: Vec<_> = records.map(Result::unwrap).collect();
    send(&first);
    let handle = std::thread::spawn(move || rest.iter().map(|r| r.len()).sum::<usize>());
    assert_eq!(handle.join().unwrap() + first.len(), 28);
}

#[test]
fn records_report_diagnostics_with_whole_file_lines() {
    let input = b"0 HEAD\n0 @I1@ INDI\n2 PLAC x\n1 NAME y\n0 TRLR\n  0 @I2@ INDI\n";
    let mut r = Reader::from_slice(input);
    while r.next_event().unwrap().is_some() {}
    let whole = places(r.drain_diagnostics());
    assert_eq!(
        whole,
        [
            (DiagnosticKind::TooDeep, 3, 19),
            (DiagnosticKind::AfterTrlr, 6, 46)
        ]
    );
    // Every record alone, and all after the HEAD in one batch.
    for batch in [1, 64 << 10] {
        let mut records = Records::new(&input[..]).batch_bytes(batch);
        let n = records.by_ref().map(Result::unwrap).count();
        assert_eq!(n, 4);
        let d = places(records.drain_diagnostics());
        assert_eq!(whole, d, "batch {batch}");
    }
}

#[test]
fn node_count_equals_begin_events() {
    let mut data = Vec::new();
    generate::generate_bytes(500_000, 3, &mut data).unwrap();
    let begins = Reader::from_slice(&data)
        .filter(|e| matches!(e, Ok(Event::Begin(_))))
        .count();
    let tree = Tree::from_slice(&data).unwrap();
    assert_eq!(tree.len(), begins);
    assert!(tree.memory_bytes() < data.len() * 2);
}

#[test]
fn many_kinds_and_long_payloads_use_the_side_tables() {
    let mut s = String::from("0 HEAD\n0 @I1@ INDI\n");
    for i in 0..70_000 {
        s.push_str(&format!("1 _T{i} {}\n", "x".repeat(i % 300)));
    }
    s.push_str(&format!(
        "1 NOTE {}\n2 CONT {}\n",
        "y".repeat(70_000),
        "z".repeat(255)
    ));
    s.push_str("0 TRLR\n");
    let tree = Tree::from_slice(s.as_bytes()).unwrap();
    let mut reader = Reader::from_slice(s.as_bytes());
    let mut nodes = tree.nodes();
    while let Some(e) = reader.next_event().unwrap() {
        if let Event::Begin(b) = e {
            let n = nodes.next().unwrap();
            assert_eq!(n.tag(), b.tag);
            assert_eq!(n.text(), b.text());
            assert_eq!(n.line(), b.line);
            if b.tag.starts_with("_T") {
                let want = format!("https://terms.fhiso.org/elf/Undefined#{}", b.tag);
                assert_eq!(n.structure_type().unwrap().to_string(), want);
            }
        }
    }
    let note = tree.find("@I1@").unwrap().child("NOTE").unwrap();
    assert_eq!(note.text().unwrap().len(), 70_000 + 1 + 255);
    // The same through record trees (which split nothing here).
    let recs: Vec<_> = Records::new(s.as_bytes()).map(Result::unwrap).collect();
    assert_eq!(recs[1].len(), 70_002);
    assert_eq!(recs[1].root().child("NOTE").unwrap().text(), note.text());
}

/// Hands out at most `n` bytes per `read` call.
struct Trickle<'a> {
    data: &'a [u8],
    n: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

#[test]
fn record_bytes_tile_the_input_across_batches() {
    // Records after the HEAD are read in batches of about 64 KiB: 400 KB
    // makes several, and the problems sprinkled in (a too-deep line, an
    // unparsable one, a stray CONT, indented and blank lines) fall in
    // different batches.
    let mut data = Vec::new();
    generate::generate_bytes(400_000, 11, &mut data).unwrap();
    let text = String::from_utf8(data).unwrap();
    let mut input = String::new();
    let (mut records, mut ones) = (0, 0);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i % 5_000 == 2_000 {
            input.push_str("!! not a line\n");
        }
        if line.starts_with("1 ") {
            ones += 1;
            match ones % 700 {
                0 => input.push_str("9 DEEP x\n"),
                350 => input.push_str("1 BIRT\n2 DATE 1900\n2 CONT stray\n"),
                _ => {}
            }
        }
        if line.starts_with("0 ") {
            records += 1;
            if records % 300 == 0 {
                input.push_str("\n \t\r\n  ");
            }
        }
        input.push_str(line);
    }
    let input = input.into_bytes();
    same_records(&input);

    let mut whole = Reader::from_slice(&input);
    while whole.next_event().unwrap().is_some() {}
    let want = places(whole.drain_diagnostics());
    let kinds: std::collections::BTreeSet<_> = want.iter().map(|d| d.0).collect();
    assert!(kinds.len() >= 3 && want.len() >= 6, "{want:?}");

    for (step, batch) in [
        (usize::MAX, 64 << 10),
        (4096, 64 << 10),
        (7, 64 << 10),
        (4096, 1),
    ] {
        let mut records = Records::new(Trickle {
            data: &input,
            n: step,
        })
        .batch_bytes(batch);
        let mut tiled = Vec::new();
        let mut roots = 0;
        for r in records.by_ref() {
            let r = r.unwrap();
            // Each record's bytes begin with its own first line.
            let first = r.bytes().iter().position(|&b| !b" \t\r\n".contains(&b));
            assert_eq!(r.bytes()[first.unwrap()..].first(), Some(&b'0'));
            tiled.extend_from_slice(r.bytes());
            roots += 1;
        }
        assert_eq!(tiled, input, "step {step}");
        assert_eq!(roots, Tree::from_slice(&input).unwrap().records().count());
        let got = places(records.drain_diagnostics());
        assert_eq!(got, want, "step {step}");
    }
}

#[test]
fn record_diagnostics_are_the_whole_readers() {
    // Lines after TRLR (a substructure of it first), a missing TRLR, a
    // HEAD schema that preserves an escape type, problems in several
    // records: the diagnostics of a whole read, in order, at any batch size.
    let inputs: [&[u8]; 4] = [
        b"0 HEAD\n0 @I1@ INDI\n1 NAME a\n0 TRLR\n1 X late\n0 @I2@ INDI\n!!\n",
        b"0 HEAD\n0 @I1@ INDI\n2 DEEP\n0 NOTE n @#Ux@ \n\n  \n",
        b"0 HEAD\n1 SCHMA\n2 ESC _OLD Q\n0 _OLD a @#Q1@ b @#U0@ c\n0 TRLR\n0 TRLR\n",
        b"0 HEAD\n0 CONT x\n0 @N@ NOTE\n1 CONC y\n0 CONC z\n",
    ];
    for input in inputs {
        let mut r = Reader::from_slice(input);
        while r.next_event().unwrap().is_some() {}
        let want: Vec<_> = r.drain_diagnostics().collect();
        assert!(!want.is_empty());
        for batch in [1, 16, 64 << 10] {
            for jobs in [1, 2, 3] {
                let mut records = Records::new(input).batch_bytes(batch).jobs(jobs);
                for t in records.by_ref() {
                    t.unwrap();
                }
                let got: Vec<_> = records.drain_diagnostics().collect();
                assert_eq!(
                    got,
                    want,
                    "{:?} batch {batch} jobs {jobs}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }
}

#[test]
fn records_warn_about_unpaired_surrogates_in_utf16() {
    let mut bytes = vec![0xFF, 0xFE];
    for u in "0 HEAD\n1 CHAR UNICODE\n0 NOTE a".encode_utf16() {
        bytes.extend(u.to_le_bytes());
    }
    bytes.extend(0xD800u16.to_le_bytes()); // a lone high surrogate
    for u in "b\n0 TRLR\n".encode_utf16() {
        bytes.extend(u.to_le_bytes());
    }
    let input = Input::new(&bytes).unwrap();
    let mut r = input.reader();
    while r.next_event().unwrap().is_some() {}
    let whole: Vec<_> = r.drain_diagnostics().collect();
    let mut records = Records::new(&bytes[..]);
    let texts: Vec<_> = records
        .by_ref()
        .map(|t| t.unwrap().root().text().map(|t| t.into_owned()))
        .collect();
    assert_eq!(texts[1].as_deref(), Some("a\u{fffd}b"));
    let got: Vec<_> = records.drain_diagnostics().collect();
    let surrogates = |ds: &[gedcom_elf::Diagnostic]| {
        ds.iter()
            .filter(|d| {
                d.kind == DiagnosticKind::Encoding && d.message.contains("1 unpaired surrogate")
            })
            .count()
    };
    assert_eq!(
        (surrogates(&whole), surrogates(&got)),
        (1, 1),
        "{whole:?} {got:?}"
    );
}

#[test]
fn fuzz_tree_crash_1dc06f29_missing_trlr_with_no_line_is_at_line_1_byte_0() {
    // Headless, and nothing but a space: no line string at all.
    let config = gedcom_elf::ReaderConfig::new().headless(true);
    let input: &[u8] = b" ";
    let mut r = Reader::with_config(input, config.clone());
    while r.next_event().unwrap().is_some() {}
    let want: Vec<_> = r.drain_diagnostics().collect();
    let mut records = Records::with_config(input, config);
    assert!(records.next().is_none());
    let got: Vec<_> = records.drain_diagnostics().collect();
    assert_eq!(got, want);
    assert_eq!((got[0].position.line, got[0].position.byte), (1, 0));
}

#[test]
fn node_texts_inside_and_after_the_valid_utf8_prefix_equal_the_readers() {
    // Payloads inside the input's valid UTF-8 prefix are sliced from it as
    // text; after the first invalid octet they are checked one by one.
    // A CONC splits a two-octet character on both sides of that point.
    let mut input =
        b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE caf\xc3\n1 CONC \xa9 au lait\n1 CONT @@ line\n\
                      0 @I1@ INDI\n1 NAME Zo\xc3\xab /Tag/\n1 DATE @#DJULIAN@ 1 JAN 1700\n"
            .to_vec();
    input.extend_from_slice(b"0 @N2@ NOTE bad \xff octet\n0 @N3@ NOTE M\xc3\xbc\n1 CONC nchen caf\xc3\n1 CONC \xa9\n0 TRLR\n");
    let tree = Tree::from_slice(&input).unwrap();
    let mut nodes = tree.nodes();
    let mut reader = Reader::from_slice(&input);
    let mut n = 0;
    while let Some(e) = reader.next_event().unwrap() {
        if let Event::Begin(b) = e {
            let node = nodes.next().unwrap();
            assert_eq!(node.tag(), b.tag);
            assert_eq!(node.text(), b.text(), "line {}", b.line);
            n += 1;
        }
    }
    assert_eq!(n, 9);
    let texts: Vec<_> = tree
        .records()
        .filter_map(|r| r.text().map(|t| t.into_owned()))
        .collect();
    assert_eq!(
        texts,
        ["café au lait\n@ line", "bad \u{fffd} octet", "München café"]
    );
    // Record trees slice their batch's valid prefix the same way.
    assert_eq!(same_records(&input), 9);
}

#[test]
fn strict_records_yield_the_records_before_the_error_at_any_batch_size() {
    // The error is in I2's third line: HEAD and I1 come first, then the
    // error, then nothing. Read in one batch, I1 is read a second time
    // without I2.
    let input = b"0 HEAD\n0 @I1@ INDI\n1 NAME a\n0 @I2@ INDI\n1 NAME b\n!!\n0 @I3@ INDI\n0 TRLR\n";
    let strict = gedcom_elf::ReaderConfig::new().strict(true);
    for batch in [1, 64 << 10] {
        for jobs in [1, 2] {
            let mut records = Records::with_config(&input[..], strict.clone())
                .batch_bytes(batch)
                .jobs(jobs);
            let got: Vec<Result<(String, String), String>> = records
                .by_ref()
                .map(|r| {
                    r.map(|t| {
                        let bytes = String::from_utf8_lossy(t.bytes()).into_owned();
                        (t.root().tag().to_string(), bytes)
                    })
                    .map_err(|e| e.to_string())
                })
                .collect();
            assert_eq!(got.len(), 3, "batch {batch} jobs {jobs}: {got:?}");
            assert_eq!(got[0], Ok(("HEAD".into(), "0 HEAD\n".into())));
            assert_eq!(
                got[1],
                Ok(("INDI".into(), "0 @I1@ INDI\n1 NAME a\n".into()))
            );
            let e = got[2].as_ref().unwrap_err();
            assert!(e.starts_with("line 6: unparsable line string"), "{e}");
            let ds = places(records.drain_diagnostics());
            assert_eq!(ds, [(DiagnosticKind::UnparsableLine, 6, 49)]);
        }
    }
}

#[test]
fn records_judge_a_missing_char_line_on_the_first_64_kib_as_the_reader_does() {
    // No CHAR line: ANSEL by default, with a warning only when the input's
    // first 64 KiB hold a non-ASCII byte. Here the first is at about 100 KB
    // (inside the first MiB, which Records used to judge on), or at the start.
    let late = {
        let mut s = b"0 HEAD\n".to_vec();
        while s.len() < 100_000 {
            s.extend_from_slice(b"0 NOTE plain ascii text\n");
        }
        s.extend_from_slice(b"0 NOTE caf\xe9\n0 TRLR\n");
        s
    };
    let early = b"0 HEAD\n0 NOTE caf\xe9\n0 TRLR\n".to_vec();
    for (bytes, warned) in [(late, false), (early, true)] {
        let input = Input::new(&bytes).unwrap();
        let mut r = input.reader();
        while r.next_event().unwrap().is_some() {}
        let want = places(r.drain_diagnostics());
        let encoding = want.iter().any(|d| d.0 == DiagnosticKind::Encoding);
        assert_eq!(encoding, warned);
        for jobs in [1, 2] {
            let mut records = Records::new(&bytes[..]).jobs(jobs);
            for t in records.by_ref() {
                t.unwrap();
            }
            assert_eq!(places(records.drain_diagnostics()), want, "jobs {jobs}");
        }
    }
}
