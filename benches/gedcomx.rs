//! The GEDCOM X export on generated GEDCOM, with its parts: the index
//! pass, reading the batches into trees (`Tree::build_piece` on the
//! stream's threads, the reference: every export reads them so), and the
//! whole export (index, then each batch's tree mapped on the thread that
//! read it, written to memory). The target is measured against
//! the `json` command in the README; these follow the library's share.
//!
//! `GEDCOM_BENCH_MB` sets the size of the generated input (default 64).

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::gedcomx::{Export, Index, Options};
use gedcom_elf::stream::StreamReader;
use gedcom_elf::tree::{Schema, Tree};
use gedcom_elf::{Reader, ReaderConfig};

#[path = "support/generate.rs"]
mod generate;

fn gedcomx(c: &mut Criterion) {
    let (bytes, stats) = generate::bench_input();
    let mut g = c.benchmark_group("gedcomx");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    for jobs in [1, 2] {
        g.bench_function(format!("trees_{jobs}"), |b| {
            b.iter(|| {
                let mut stream = StreamReader::new(black_box(&bytes[..])).jobs(jobs);
                let mut buf = Vec::new();
                let mut batch = stream.read_batch_into(&mut buf).unwrap().unwrap();
                let reader = batch.reader_mut().unwrap();
                let schema = Schema::from_reader(reader.clone()).unwrap();
                let mut n = Tree::build_piece(reader, &schema, true).0.record_count();
                drop(batch);
                let piece =
                    |r: &mut Reader<'_>| Ok(Tree::build_piece(r, &schema, false).0.record_count());
                let count = |k, _| {
                    n += k;
                    Ok(())
                };
                stream.for_each(piece, count).unwrap();
                assert_eq!(n as u64, stats.records);
            })
        });
        g.bench_function(format!("index_{jobs}"), |b| {
            b.iter(|| Index::from_read(black_box(&bytes[..]), ReaderConfig::new(), jobs).unwrap())
        });
        g.bench_function(format!("export_{jobs}"), |b| {
            b.iter(|| {
                let index = Index::from_read(&bytes[..], ReaderConfig::new(), jobs).unwrap();
                let mut out = Vec::with_capacity(bytes.len() * 3);
                let mut export =
                    Export::new(&mut out, Options::default(), Arc::new(index), Vec::new).unwrap();
                let mut stream = StreamReader::new(black_box(&bytes[..])).jobs(jobs);
                export.stream(&mut stream, |_| {}).unwrap();
                export.finish().unwrap();
                out.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, gedcomx);
criterion_main!(benches);
