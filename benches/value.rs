//! The `DATE` and `AGE` payload parsers on real payloads: every `DATE` (and
//! every `AGE`) of `../shared/corpus` (when present) and of `corpus/`, read
//! with the crate's own reader, parsed in turn (errors included, as they
//! come).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::value::{Age, Date};
use gedcom_elf::{Event, Input, Value};

/// Every payload of a `tag` line of the `.ged` files in `dir`.
fn payloads_in(dir: &std::path::Path, tag: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged")))
        .collect();
    paths.sort();
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        for event in input.reader() {
            if let Ok(Event::Begin(b)) = event {
                if let (true, Some(Value::Text(t))) = (b.tag == tag, &b.value) {
                    out.push(t.text().into_owned());
                }
            }
        }
    }
}

fn dates(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut payloads = Vec::new();
    payloads_in(&root.join("../shared/corpus"), "DATE", &mut payloads);
    payloads_in(&root.join("corpus"), "DATE", &mut payloads);
    assert!(!payloads.is_empty(), "no DATE payloads found");
    let ok = payloads.iter().filter(|p| Date::parse(p).is_ok()).count();
    eprintln!("{} DATE payloads, {ok} parse", payloads.len());

    let mut g = c.benchmark_group("date");
    g.throughput(Throughput::Elements(payloads.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &payloads {
                n += usize::from(Date::parse(black_box(p)).is_ok());
            }
            assert_eq!(n, ok);
        })
    });
    g.bench_function("parse_and_jdn", |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for p in &payloads {
                if let Some((a, _)) = Date::parse(black_box(p)).ok().and_then(|d| d.jdn_range()) {
                    sum = sum.wrapping_add(a);
                }
            }
            black_box(sum)
        })
    });
    g.finish();
}

fn ages(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut payloads = Vec::new();
    payloads_in(&root.join("../shared/corpus"), "AGE", &mut payloads);
    payloads_in(&root.join("corpus"), "AGE", &mut payloads);
    if payloads.is_empty() {
        // `corpus/` holds no AGE lines; without the shared corpus, the
        // specifications' examples.
        payloads = ["42y", "> 21y 6m", "8w 30d", "CHILD", "58", "3 months"]
            .map(String::from)
            .to_vec();
    }
    let ok = payloads.iter().filter(|p| Age::parse(p).is_ok()).count();
    eprintln!("{} AGE payloads, {ok} parse", payloads.len());

    let mut g = c.benchmark_group("age");
    g.throughput(Throughput::Elements(payloads.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &payloads {
                n += usize::from(Age::parse(black_box(p)).is_ok());
            }
            assert_eq!(n, ok);
        })
    });
    g.finish();
}

criterion_group!(benches, dates, ages);
criterion_main!(benches);
