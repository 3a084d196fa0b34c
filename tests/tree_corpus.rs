//! The tree over every file of `../shared/corpus` (read at test time, never
//! copied here): node counts equal the reader's Begin events, record trees
//! equal the whole tree, and every node and pointer can be visited.

mod common;

use gedcom_elf::tree::{Records, Tree};
use gedcom_elf::{Event, Input};

#[test]
fn tree_over_the_shared_corpus() {
    let Some(dir) = common::shared_corpus() else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged")))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(input) = Input::new(&bytes) else {
            eprintln!("{name}: unsupported encoding, skipped");
            continue;
        };
        let begins = input
            .reader()
            .filter(|e| matches!(e, Ok(Event::Begin(_))))
            .count();
        let tree = Tree::from_input(&input).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tree.len(), begins, "{name}");
        // Walk every node and resolve every pointer.
        let mut pointers = 0;
        for n in tree.nodes() {
            let _ = (n.tag(), n.text(), n.structure_type(), n.level(), n.line());
            if n.pointer().is_some() {
                pointers += 1;
                assert!(n.target().is_some(), "{name}: every pointer resolves");
            }
        }
        // Record by record: the same records, nodes and texts.
        let mut whole = tree.records();
        let mut nodes = 0;
        for rec in Records::new(&bytes[..]) {
            let rec = rec.unwrap_or_else(|e| panic!("{name}: {e}"));
            let root = whole.next().expect("as many records");
            assert_eq!(rec.len(), root.subtree_len(), "{name} line {}", root.line());
            for (a, b) in rec
                .nodes()
                .zip(std::iter::once(root).chain(root.descendants()))
            {
                assert_eq!((a.tag(), a.line()), (b.tag(), b.line()), "{name}");
                assert_eq!(a.text(), b.text(), "{name} line {}", a.line());
                assert_eq!(a.pointer(), b.pointer(), "{name} line {}", a.line());
                nodes += 1;
            }
        }
        assert!(whole.next().is_none(), "{name}");
        assert_eq!(nodes, begins, "{name}");
        eprintln!(
            "{name}: {begins} nodes, {pointers} pointers, {} undef, {:.2}x memory",
            tree.undefined_records().count(),
            tree.memory_bytes() as f64 / bytes.len() as f64
        );
    }
}
