//! Tree building and path lookups on generated GEDCOM, against plain event
//! iteration over the same bytes (the target: building runs at 0.4x
//! or better of iteration), and the parallel build on 1, 2 and all cores
//! (the target: 1.8x or better with 2 jobs against 1); record
//! trees one at a time; the decoded text of every node of a built tree.
//!
//! `GEDCOM_BENCH_MB` sets the size of the generated input (default 64).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::par::Chunks;
use gedcom_elf::tree::{Records, Tree};
use gedcom_elf::{Event, Input, Reader, ReaderConfig, Value};

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

    let input = Input::new(&bytes).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut jobs = vec![1, 2];
    if cores > 2 {
        jobs.push(cores);
    }
    for j in jobs {
        // One job: the chunked build on one thread (what the merge costs
        // against `build`); more: `from_chunks` as callers use it.
        g.bench_function(format!("build_parallel_{j}"), |b| {
            b.iter(|| {
                let chunks = Chunks::new(black_box(&input), ReaderConfig::new()).unwrap();
                let chunks = if j == 1 {
                    chunks.batch_bytes(4 << 20)
                } else {
                    chunks.jobs(j)
                };
                let tree = Tree::from_chunks(chunks).unwrap();
                assert_eq!(tree.len() as u64, stats.structures);
                assert_eq!(tree.record_count() as u64, stats.records);
                tree
            })
        });
    }

    // One record tree at a time; with more than one job, batches of records
    // are read on worker threads (`Records::jobs`).
    let mut jobs = vec![1, 2];
    if cores > 2 {
        jobs.push(cores);
    }
    for j in jobs {
        let name = if j == 1 {
            "records".to_string()
        } else {
            format!("records_jobs_{j}")
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0u64;
                let mut records = 0u64;
                for r in Records::new(black_box(&bytes[..])).jobs(j) {
                    n += r.unwrap().len() as u64;
                    records += 1;
                }
                assert_eq!((n, records), (stats.structures, stats.records));
            })
        });
    }
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

    // Every node's decoded text, as a consumer of the tree reads it (the
    // payloads come sliced from the input's valid UTF-8 prefix).
    let texts = Reader::from_slice(&bytes)
        .filter(|e| matches!(e, Ok(Event::Begin(b)) if matches!(b.value, Some(Value::Text(_)))))
        .count();
    let mut g = c.benchmark_group("tree_text");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("text_of_every_node", |b| {
        b.iter(|| {
            let (mut n, mut len) = (0usize, 0usize);
            for node in tree.nodes() {
                if let Some(t) = node.text() {
                    n += 1;
                    len += t.len();
                }
            }
            assert_eq!(n, texts);
            black_box(len)
        })
    });
    g.finish();
}

criterion_group!(benches, tree);
criterion_main!(benches);
