//! Arbitrary bytes through the tree: build it, walk every node (payloads,
//! types, parents, paths) and resolve every pointer; read the same bytes
//! record by record and compare. Must not panic or hang.
#![no_main]

use gedcom_elf::tree::{Records, Step, Tree};
use gedcom_elf::{Event, ReaderConfig, Schema, TypeResolver};
use libfuzzer_sys::fuzz_target;

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
    // Record by record: the same records, structures and payloads.
    let mut whole = tree.records();
    for r in Records::with_config(input, config) {
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
});
