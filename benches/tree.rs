//! Tree building and path lookups on generated GEDCOM, against plain event
//! iteration over the same bytes (the target: building runs at 0.4x
//! or better of iteration).
//!
//! `GEDCOM_BENCH_MB` sets the size of the generated input (default 64).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::tree::{Records, Tree};
use gedcom_elf::{Event, Reader};

#[path = "support/generate.rs"]
mod generate;

fn tree(c: &mut Criterion) {
    let (bytes, stats) = generate::bench_input();
    let mut g = c.benchmark_group("tree");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));

    g.bench_function("events", |b| {
        b.iter(|| {
            let mut reader = Reader::from_slice(black_box(&bytes));
            let mut n = 0u64;
            while let Some(e) = reader.next_event().unwrap() {
                n += u64::from(matches!(e, Event::Begin(_)));
            }
            assert_eq!(n, stats.structures);
        })
    });

    g.bench_function("build", |b| {
        b.iter(|| {
            let tree = Tree::from_slice(black_box(&bytes)).unwrap();
            assert_eq!(tree.len() as u64, stats.structures);
            tree
        })
    });

    g.bench_function("records", |b| {
        b.iter(|| {
            let mut n = 0u64;
            let mut records = 0u64;
            for r in Records::new(black_box(&bytes[..])) {
                n += r.unwrap().len() as u64;
                records += 1;
            }
            assert_eq!((n, records), (stats.structures, stats.records));
        })
    });
    g.finish();

    let tree = Tree::from_slice(&bytes).unwrap();
    assert_eq!(tree.len() as u64, stats.structures);
    let mut g = c.benchmark_group("tree_lookup");
    g.sample_size(10);
    let individuals = tree.path("INDI").count() as u64;
    g.throughput(Throughput::Elements(individuals));
    g.bench_function("path_INDI.BIRT.DATE", |b| {
        b.iter(|| black_box(tree.path("INDI.BIRT.DATE").count()))
    });
    g.bench_function("find_and_first_BIRT.PLAC", |b| {
        b.iter(|| {
            let mut found = 0u64;
            for i in 1..=individuals {
                let x = format!("@I{i}@");
                let n = tree.find(&x).expect("every individual");
                found += u64::from(n.first("BIRT.PLAC").is_some());
            }
            black_box(found)
        })
    });
    g.bench_function("resolve_every_pointer", |b| {
        b.iter(|| {
            let n = tree.nodes().filter_map(|n| n.target()).count();
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(benches, tree);
criterion_main!(benches);
