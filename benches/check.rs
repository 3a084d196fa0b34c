//! `check` on generated GEDCOM against its reference, the parallel tree
//! build of the same bytes (`stats --tree`'s work): the target is
//! at most 1.5x the build's time on two jobs. Also the streaming check
//! (`Records`, as for standard input).
//!
//! `GEDCOM_BENCH_MB` sets the size of the generated input (default 64).

use std::convert::Infallible;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::check::{CheckConfig, Checker};
use gedcom_elf::par::Chunks;
use gedcom_elf::tree::{Records, Tree};
use gedcom_elf::{Input, ReaderConfig};

#[path = "support/generate.rs"]
mod generate;

fn check(c: &mut Criterion) {
    let (bytes, stats) = generate::bench_input();
    let input = Input::new(&bytes).unwrap();
    let mut g = c.benchmark_group("check");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    for jobs in [1, 2] {
        g.bench_function(format!("tree_build_{jobs}"), |b| {
            b.iter(|| {
                let chunks = Chunks::new(black_box(&input), ReaderConfig::new()).unwrap();
                let tree = Tree::from_chunks(chunks.jobs(jobs).batch_bytes(4 << 20)).unwrap();
                assert_eq!(tree.record_count() as u64, stats.records);
                tree
            })
        });
        g.bench_function(format!("check_chunks_{jobs}"), |b| {
            b.iter(|| {
                let chunks = Chunks::new(black_box(&input), ReaderConfig::new()).unwrap();
                let mut n = 0u64;
                let summary = Checker::new(CheckConfig::new())
                    .run_chunks(chunks.jobs(jobs).batch_bytes(2 << 20), |_| {
                        n += 1;
                        Ok::<(), Infallible>(())
                    })
                    .unwrap();
                assert_eq!(summary.records, stats.records);
                n
            })
        });
        g.bench_function(format!("check_records_{jobs}"), |b| {
            b.iter(|| {
                let mut records = Records::new(black_box(&bytes[..])).jobs(jobs);
                let summary = Checker::new(CheckConfig::new())
                    .jobs(jobs)
                    .run(&mut records, |_| Ok::<(), Infallible>(()))
                    .unwrap();
                assert_eq!(summary.records, stats.records);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);
