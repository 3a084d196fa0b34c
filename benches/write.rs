//! Writer and editor throughput on generated GEDCOM.
//!
//! * `events`: reader event iteration alone (the reference the others are compared with);
//! * `events_to_writer`: the same events re-serialised (`fmt`);
//! * `arena_tree_to_writer`: a [`Tree`] (built once, outside the timing) written
//!   out with [`write_tree`]: most structures go to the writer as the input's own
//!   octets;
//! * `arena_tree_to_writer_parallel`: the same with [`write_tree_parallel`] on all
//!   cores (`GEDCOM_BENCH_JOBS` to choose), the same octets;
//! * `tree_to_writer`: an owned tree of [`Node`]s (built once, outside the timing)
//!   written out: the writer alone, given every string as text;
//! * `tree_walk`: the same tree walked the same way, each node's strings touched (first
//!   and last octet) but nothing written: what `tree_to_writer` costs before any
//!   writing (a node is about 100 octets and each string its own allocation, so the walk
//!   is bound by memory rather than instructions);
//! * `edit_copy_through`: the editor with no changes.
//!
//! Throughput is in input bytes. `GEDCOM_BENCH_MB` sets the size (default 64).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::bridge::{write_tree, write_tree_parallel};
use gedcom_elf::edit::{edit, Action};
use gedcom_elf::write::{Node, Structure, Writer};
use gedcom_elf::{Encoding, Event, Reader, Tree, Value};

#[path = "support/generate.rs"]
mod generate;

/// Touches the strings of every node of `records` in preorder, as `write_structure`
/// walks them (a stack of child iterators); returns the number of nodes and a checksum.
fn walk(records: &[Node]) -> (u64, u64) {
    let touch = |s: &str| {
        let b = s.as_bytes();
        b.len() as u64
            + u64::from(b.first().copied().unwrap_or(0))
            + u64::from(b.last().copied().unwrap_or(0))
    };
    let mut nodes = 0u64;
    let mut sum = 0u64;
    let mut stack = vec![records.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(n) => {
                nodes += 1;
                sum = sum.wrapping_add(touch(n.tag()));
                sum = sum.wrapping_add(n.xref().map_or(0, touch));
                sum = sum.wrapping_add(n.value.as_deref().map_or(0, touch));
                stack.push(n.children.iter());
            }
            None => {
                stack.pop();
            }
        }
    }
    (nodes, sum)
}

/// The records of `bytes` as owned trees (built without recursion).
fn tree(bytes: &[u8]) -> Vec<Node> {
    let mut records = Vec::new();
    let mut stack: Vec<Node> = Vec::new();
    for e in Reader::from_slice(bytes) {
        match e.unwrap() {
            Event::Begin(b) => {
                let mut n = Node::new(b.tag.as_ref());
                n.xref = b.xref.as_ref().map(|x| x.to_str_lossy().into_owned());
                match &b.value {
                    Some(Value::Text(t)) => n = n.text(t.text().into_owned()),
                    Some(Value::Pointer(p)) => n = n.pointer(p.to_str_lossy().into_owned()),
                    None => {}
                }
                stack.push(n);
            }
            Event::End(_) => {
                let n = stack.pop().unwrap();
                match stack.last_mut() {
                    Some(parent) => parent.children.push(n),
                    None => records.push(n),
                }
            }
        }
    }
    records
}

fn write(c: &mut Criterion) {
    let bytes = generate::bench_input().0;
    let records = tree(&bytes);
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    // Expected sizes, checked inside every timed iteration.
    let event_count = Reader::from_slice(&bytes).count() as u64;
    let tree_len = {
        let mut w = Writer::new(&mut out);
        for r in &records {
            w.write_structure(r).unwrap();
        }
        w.finish().unwrap();
        out.len()
    };
    assert!(
        tree_len > bytes.len() / 2,
        "the tree wrote {tree_len} octets"
    );
    let mut g = c.benchmark_group("write");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));

    g.bench_function("events", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for e in Reader::from_slice(black_box(&bytes)) {
                black_box(&e);
                n += 1;
            }
            assert_eq!(n, event_count);
        })
    });

    g.bench_function("events_to_writer", |b| {
        b.iter(|| {
            out.clear();
            let mut reader = Reader::from_slice(black_box(&bytes));
            let mut first = true;
            let mut w = Writer::new(&mut out);
            while let Some(e) = reader.next_event().unwrap() {
                if first {
                    w.set_escapes(reader.escape_table().clone());
                    first = false;
                }
                w.write_event(&e, Encoding::Utf8).unwrap();
            }
            w.finish().unwrap();
            black_box(out.len());
        })
    });

    let arena = Tree::from_slice(&bytes).unwrap();
    let arena_out = {
        let mut w = Writer::new(Vec::with_capacity(bytes.len()));
        write_tree(&mut w, &arena, Encoding::Utf8).unwrap();
        w.trailer().unwrap();
        w.finish().unwrap()
    };
    g.bench_function("arena_tree_to_writer", |b| {
        b.iter(|| {
            out.clear();
            let mut w = Writer::new(&mut out);
            write_tree(&mut w, black_box(&arena), Encoding::Utf8).unwrap();
            w.trailer().unwrap();
            w.finish().unwrap();
            assert_eq!(out.len(), arena_out.len());
        })
    });
    let jobs = std::env::var("GEDCOM_BENCH_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    g.bench_function("arena_tree_to_writer_parallel", |b| {
        b.iter(|| {
            out.clear();
            let mut w = Writer::new(&mut out);
            write_tree_parallel(&mut w, black_box(&arena), Encoding::Utf8, jobs).unwrap();
            w.trailer().unwrap();
            w.finish().unwrap();
            assert_eq!(out.len(), arena_out.len());
        })
    });
    assert!(out == arena_out, "the parallel write differs");
    drop(arena);

    g.bench_function("tree_to_writer", |b| {
        b.iter(|| {
            out.clear();
            let mut w = Writer::new(&mut out);
            for r in black_box(&records) {
                w.write_structure(r).unwrap();
            }
            w.finish().unwrap();
            assert_eq!(out.len(), tree_len);
        })
    });

    let structures = event_count / 2;
    assert_eq!(walk(&records).0, structures);
    g.bench_function("tree_walk", |b| {
        b.iter(|| {
            let (nodes, sum) = walk(black_box(&records));
            assert_eq!(nodes, structures);
            black_box(sum);
        })
    });

    g.bench_function("edit_copy_through", |b| {
        b.iter(|| {
            out.clear();
            edit(black_box(&bytes), None, &mut out, |_| Action::Keep).unwrap();
            assert_eq!(out.len(), bytes.len());
        })
    });
    g.finish();
    // The tree is deep only a few levels: the derived Drop is fine here.
    drop(records);
}

criterion_group!(benches, write);
criterion_main!(benches);
