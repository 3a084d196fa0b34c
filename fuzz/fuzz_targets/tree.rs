//! Arbitrary bytes through the tree: build it, walk every node (payloads,
//! types, parents, paths) and resolve every pointer; read the same bytes
//! record by record and compare; build it in parallel from small chunks and
//! compare node for node; write it back sequentially, in parallel pieces and
//! with every string decoded, and compare the octets. Must not panic or hang.
#![no_main]

use gedcom_elf::par::Chunks;
use gedcom_elf::tree::{Records, Step, Tree};
use gedcom_elf::{Event, ReaderConfig, Schema, TypeResolver};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/write_common/decoded.rs"]
mod decoded;

fuzz_target!(|data: &[u8]| {
    let (flags, input) = match data.split_first() {
        Some((f, rest)) => (*f, rest),
        None => (0, data),
    };
    let config = ReaderConfig::new().headless(flags & 1 != 0);
    let Ok(prepared) = gedcom_elf::Input::new(input) else {
        return;
    };
    let reader = prepared.reader_with_config(config.clone());
    let Ok(tree) = Tree::build(reader.clone()) else {
        return;
    };
    // In parallel, from chunks of 1 to 64 bytes: the same tree.
    let chunk = usize::from(flags >> 2) % 64 + 1;
    let jobs = 1 + usize::from(flags >> 1 & 1);
    let par = Chunks::new(&prepared, config.clone())
        .and_then(|c| Tree::from_chunks(c.jobs(jobs).batch_bytes(chunk)))
        .expect("the parallel build succeeds as the sequential one did");
    assert_eq!(par.len(), tree.len());
    assert_eq!(par.record_count(), tree.record_count());
    assert_eq!(par.diagnostics(), tree.diagnostics());
    assert_eq!(par.diagnostics_dropped(), tree.diagnostics_dropped());
    let all = |t: &Tree<'_>| t.nodes().count();
    assert_eq!(all(&par), all(&tree));
    for (a, b) in par.nodes().zip(tree.nodes()) {
        assert_eq!(
            (a.id(), a.tag(), a.xref(), a.pointer()),
            (b.id(), b.tag(), b.xref(), b.pointer())
        );
        assert_eq!(
            (a.line(), a.origin(), a.is_synthetic()),
            (b.line(), b.origin(), b.is_synthetic())
        );
        let raw = |n: gedcom_elf::tree::NodeRef<'_>| {
            n.payload().map(|p| {
                (
                    p.first_line().to_vec(),
                    p.additional_lines().to_vec(),
                    p.text().into_owned(),
                )
            })
        };
        assert_eq!(raw(a), raw(b));
        assert_eq!(a.parent().map(|p| p.id()), b.parent().map(|p| p.id()));
        assert_eq!(a.subtree_len(), b.subtree_len());
        assert_eq!(a.target().map(|t| t.id()), b.target().map(|t| t.id()));
        assert_eq!(
            a.structure_type().map(|t| t.iri().into_owned()),
            b.structure_type().map(|t| t.iri().into_owned())
        );
    }
    let mut begins = 0usize;
    let mut types = Vec::new();
    let schema = Schema::from_reader(reader.clone()).unwrap();
    let mut resolver = TypeResolver::new(schema);
    for e in reader {
        let e = e.unwrap();
        let is_begin = matches!(e, Event::Begin(_));
        let t = resolver.event(&e).map(|t| t.iri().into_owned());
        if is_begin {
            begins += 1;
            types.push(t);
        }
    }
    assert_eq!(tree.len(), begins);
    for (n, t) in tree.nodes().zip(&types) {
        assert_eq!(
            n.structure_type().map(|t| t.iri().into_owned()).as_ref(),
            t.as_ref()
        );
    }
    for n in tree.nodes() {
        let _ = (n.tag(), n.xref(), n.text(), n.line(), n.origin(), n.level());
        if let Some(p) = n.parent() {
            assert!(p.children().any(|c| c == n));
        }
        if n.pointer().is_some() {
            let t = n.target().expect("every pointer resolves");
            assert_eq!(t.xref(), n.pointer());
        }
        let _ = n.first("*.*").map(|x| x.tag());
    }
    for r in tree.records() {
        let mut depth = 0i64;
        for step in r.walk() {
            match step {
                Step::Enter(_) => depth += 1,
                Step::Leave(_) => depth -= 1,
            }
            assert!(depth >= 0);
        }
        assert_eq!(depth, 0);
    }
    write_back(&tree, prepared.encoding_info().encoding, flags);
    // Record by record: the same records, structures and payloads.
    let mut whole = tree.records();
    // The whole-file reader's diagnostics, when it reads to the end.
    let whole_diagnostics = {
        let mut r = prepared.reader_with_config(config.clone());
        let mut ok = true;
        loop {
            match r.next_event() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(_) => {
                    ok = false;
                    break;
                }
            }
        }
        ok.then(|| r.drain_diagnostics().collect::<Vec<_>>())
    };
    // Batches of whole records: one at a time, small ones, or everything
    // after the HEAD in one (fuzz inputs are short).
    let batch = [1, 64, 512, 64 << 10][usize::from(flags >> 1) & 3];
    // On one thread or two (flag bit 1 also chose the parallel tree's jobs).
    let mut records = Records::with_config(input, config)
        .batch_bytes(batch)
        .jobs(1 + usize::from(flags >> 3 & 1));
    for r in records.by_ref() {
        let Ok(r) = r else { return };
        let root = whole.next().expect("as many records");
        assert_eq!(r.len(), root.subtree_len());
        for (a, b) in r
            .nodes()
            .zip(std::iter::once(root).chain(root.descendants()))
        {
            assert_eq!(
                (a.tag(), a.line(), a.origin()),
                (b.tag(), b.line(), b.origin())
            );
            assert_eq!(a.text(), b.text());
            assert_eq!(a.pointer(), b.pointer());
        }
    }
    assert!(whole.next().is_none());
    // The same diagnostics, in the same order and places.
    // The UTF-16 transcoding warning comes last from Records (the count is
    // known only at the end) and first from the reader.
    if let Some(want) = whole_diagnostics {
        let utf16 = |d: &gedcom_elf::Diagnostic| {
            d.kind == gedcom_elf::DiagnosticKind::Encoding && d.message.contains("surrogate")
        };
        let got: Vec<_> = records.drain_diagnostics().collect();
        assert_eq!(
            got.iter().filter(|d| !utf16(d)).collect::<Vec<_>>(),
            want.iter().filter(|d| !utf16(d)).collect::<Vec<_>>()
        );
        assert_eq!(
            got.iter().filter(|d| utf16(d)).count(),
            want.iter().filter(|d| utf16(d)).count()
        );
    }
});

/// Writes `tree` with `write_tree`, with `write_tree_parallel_chunked` (pieces of a
/// few structures) and structure by structure with decoded strings through
/// `Writer::begin`: the same octets and the same error.
fn write_back(tree: &Tree<'_>, source: gedcom_elf::Encoding, flags: u8) {
    use gedcom_elf::bridge::{write_tree, write_tree_parallel_chunked};
    use gedcom_elf::{Encoding, Writer, WriterConfig};
    let source = if source.is_utf16() {
        Encoding::Utf8
    } else {
        source
    };
    let config = match flags >> 5 {
        0 | 1 => WriterConfig::new(),
        2 => WriterConfig::new().encoding(Encoding::Ascii),
        3 => WriterConfig::new().encoding(Encoding::Ansel),
        4 => WriterConfig::new().max_line_bytes(20),
        _ => WriterConfig::new().headless(true),
    };
    let out = |w: Writer<Vec<u8>>, e: Result<(), gedcom_elf::write::WriteError>| {
        (
            w.finish().unwrap(),
            e.err().map(|e| (e.kind(), e.to_string())),
        )
    };
    let mut w = Writer::with_config(Vec::new(), config.clone());
    let r = write_tree(&mut w, tree, source);
    let want = out(w, r);
    let mut w = Writer::with_config(Vec::new(), config.clone());
    let pieces = usize::from(flags >> 3 & 3) + 1;
    let r = write_tree_parallel_chunked(&mut w, tree, source, 2, pieces);
    assert!(out(w, r) == want, "the parallel write differs");
    // Decoded, structure by structure (the tests' reference).
    let mut w = Writer::with_config(Vec::new(), config);
    let r = decoded::write_decoded(&mut w, tree, source);
    assert!(out(w, r) == want, "the decoded write differs");
}
