//! Record-at-a-time over a large file (the issue's 300 MB generated file):
//! ignored by default; run with
//!
//! ```sh
//! cargo run --release --example generate -- --bytes 300M -o /tmp/gen300.ged
//! GEDCOM_TREE_LARGE=/tmp/gen300.ged cargo test --release --test tree_large -- --ignored --test-threads 1
//! ```
//!
//! `records_only` reads the file record by record without building the
//! whole tree, so `/usr/bin/time -v` on it shows the peak RSS of
//! record-at-a-time reading.

use std::fs::File;
use std::io::BufReader;

use gedcom_elf::tree::{Records, Tree};

fn path() -> Option<String> {
    let p = std::env::var("GEDCOM_TREE_LARGE").ok();
    if p.is_none() {
        eprintln!("skipping: GEDCOM_TREE_LARGE is not set");
    }
    p
}

#[test]
#[ignore]
fn records_only() {
    let Some(p) = path() else { return };
    let (mut records, mut nodes, mut largest) = (0u64, 0u64, 0usize);
    for r in Records::new(File::open(&p).unwrap()) {
        let r = r.unwrap();
        records += 1;
        nodes += r.len() as u64;
        largest = largest.max(r.bytes().len());
    }
    eprintln!("{records} records, {nodes} nodes, largest record {largest} bytes");
}

#[test]
#[ignore]
fn records_equal_the_whole_tree() {
    let Some(p) = path() else { return };
    let bytes = std::fs::read(&p).unwrap();
    let tree = Tree::from_slice(&bytes).unwrap();
    let mut whole = tree.records();
    let mut nodes = 0usize;
    for r in Records::new(BufReader::new(File::open(&p).unwrap())) {
        let r = r.unwrap();
        let root = whole.next().unwrap();
        assert_eq!(r.len(), root.subtree_len());
        for (a, b) in r
            .nodes()
            .zip(std::iter::once(root).chain(root.descendants()))
        {
            assert_eq!(
                (a.tag(), a.line(), a.pointer()),
                (b.tag(), b.line(), b.pointer())
            );
            assert_eq!(
                a.payload().map(|p| p.first_line().len()),
                b.payload().map(|p| p.first_line().len())
            );
            nodes += 1;
        }
    }
    assert!(whole.next().is_none());
    assert_eq!(nodes, tree.len());
    eprintln!("{nodes} nodes in {} records agree", tree.record_count());
}
