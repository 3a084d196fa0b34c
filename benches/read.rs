//! Reader throughput on generated GEDCOM, against a memchr line count on the
//! same bytes (the physical reference).
//!
//! `GEDCOM_BENCH_MB` sets the size of the generated input (default 64).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::par::Chunks;
use gedcom_elf::stream::StreamReader;
use gedcom_elf::{Event, Input, Reader, ReaderConfig, Value};

#[path = "support/generate.rs"]
mod generate;

fn read(c: &mut Criterion) {
    let (bytes, stats) = generate::bench_input();
    let events = 2 * stats.structures;
    let mut g = c.benchmark_group("read");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));

    g.bench_function("line_count_memchr", |b| {
        b.iter(|| {
            let n = memchr::memchr_iter(b'\n', black_box(&bytes)).count() as u64;
            assert_eq!(n, stats.lines);
        })
    });

    g.bench_function("events", |b| {
        b.iter(|| {
            let mut reader = Reader::from_slice(black_box(&bytes));
            let mut n = 0u64;
            // Matched by reference, the fast idiom (see `Reader`'s docs).
            while let Some(e) = reader.next_event().as_ref().unwrap() {
                black_box(e);
                n += 1;
            }
            assert_eq!(n, events);
        })
    });

    g.bench_function("events_moved", |b| {
        b.iter(|| {
            // The plain idiom: each event moved out of the `Result` into a
            // variable and handed on whole (a 128-byte move per event).
            let mut reader = Reader::from_slice(black_box(&bytes));
            let mut n = 0u64;
            while let Some(e) = reader.next_event().unwrap() {
                black_box(&e);
                n += 1;
            }
            assert_eq!(n, events);
        })
    });

    g.bench_function("events_iterator", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for e in Reader::from_slice(black_box(&bytes)) {
                let e = e.unwrap();
                black_box(&e);
                n += 1;
            }
            assert_eq!(n, events);
        })
    });

    g.bench_function("events_and_text", |b| {
        b.iter(|| {
            let mut reader = Reader::from_slice(black_box(&bytes));
            let (mut n, mut text_bytes) = (0u64, 0usize);
            while let Some(e) = reader.next_event().as_ref().unwrap() {
                if let Event::Begin(b) = e {
                    if let Some(Value::Text(t)) = &b.value {
                        text_bytes += t.text().len();
                    }
                }
                n += 1;
            }
            assert_eq!(n, events);
            black_box(text_bytes);
        })
    });
    for capacity in [8 << 10, 64 << 10] {
        g.bench_function(format!("stream_bufread_{}k", capacity >> 10), |b| {
            b.iter(|| {
                let source = std::io::BufReader::with_capacity(capacity, black_box(&bytes[..]));
                let mut stream = StreamReader::new(source);
                let mut buf = Vec::new();
                let mut n = 0u64;
                while let Some(mut batch) = stream.read_batch_into(&mut buf).unwrap() {
                    while let Some(e) = batch.next_event().as_ref().unwrap() {
                        black_box(e);
                        n += 1;
                    }
                }
                assert_eq!(n, events);
            })
        });
    }

    let input = Input::new(&bytes).unwrap();
    for jobs in [1, 2] {
        g.bench_function(format!("parallel_chunks_jobs{jobs}"), |b| {
            b.iter(|| {
                let chunks = Chunks::new(&input, ReaderConfig::new()).unwrap();
                let out = (chunks.batch_bytes(2 << 20).jobs(jobs))
                    .map(|r| {
                        let mut n = 0u64;
                        while let Some(e) = r.next_event().as_ref().map_err(Clone::clone)? {
                            black_box(e);
                            n += 1;
                        }
                        Ok(n)
                    })
                    .unwrap();
                assert_eq!(out.results.iter().sum::<u64>(), events);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
