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

/// The same content as 5.5.1 and as 7.0: the generated file, and the file
/// GEDCOM 7 writes of it (`VERS 7.0`, no `CHAR`, each `CONC` joined to the
/// line it continues, a mid-text `@@` a single `@`: 7.0 doubles only a
/// leading one). Both are given the 5.5.1 file's size as throughput, so
/// that the two rates compare the reading of one content.
fn versions(c: &mut Criterion) {
    let (bytes, stats) = generate::bench_input();
    let events = 2 * stats.structures;
    let g7 = gedcom7_of(&bytes);
    let mut g = c.benchmark_group("version");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    for (name, input) in [("events_5_5_1", &bytes), ("events_7_0", &g7)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut reader = Reader::from_slice(black_box(input));
                let mut n = 0u64;
                while let Some(e) = reader.next_event().as_ref().unwrap() {
                    black_box(e);
                    n += 1;
                }
                // `CHAR` is not a structure of the 7.0 file.
                assert_eq!(n + 2 * u64::from(name == "events_7_0"), events);
                assert!(reader.diagnostics().is_empty());
            })
        });
    }
    g.finish();
}

/// The generated 5.5.1 file as a GEDCOM 7 file of the same content.
fn gedcom7_of(bytes: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(bytes).expect("the generator writes UTF-8");
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        match body.split_once(' ') {
            Some((_, "CHAR UTF-8")) => continue,
            Some((level, "VERS 5.5.1")) => out.push_str(&format!("{level} VERS 7.0\n")),
            Some((_, rest)) if rest.starts_with("CONC ") => {
                // Joined to the line before it, its newline removed.
                out.pop();
                out.push_str(&rest[5..]);
                out.push('\n');
            }
            _ => {
                let (head, payload) = split_payload(body);
                out.push_str(head);
                out.push_str(&gedcom7_payload(payload));
                out.push('\n');
            }
        }
    }
    out.into_bytes()
}

/// A line as its level, xref and tag (with the space after them) and its
/// payload.
fn split_payload(line: &str) -> (&str, &str) {
    let mut end = 0;
    for (i, field) in line.split(' ').enumerate() {
        end += field.len() + 1;
        let is_xref = i == 1 && field.starts_with('@');
        if i >= 1 && !is_xref {
            break;
        }
    }
    line.split_at(end.min(line.len()))
}

/// A 5.5.1 payload as 7.0 writes it: `@@` is one `@`, then a leading `@`
/// is doubled (a pointer stays as it is).
fn gedcom7_payload(payload: &str) -> String {
    let is_pointer = payload.len() > 2
        && payload.starts_with('@')
        && payload.ends_with('@')
        && !payload[1..payload.len() - 1].contains('@');
    if is_pointer || !payload.contains('@') {
        return payload.to_string();
    }
    let text = payload.replace("@@", "@");
    match text.strip_prefix('@') {
        Some(rest) => format!("@@{rest}"),
        None => text,
    }
}

criterion_group!(benches, read, versions);
criterion_main!(benches);
