//! The `DATE` payload parser on real payloads: every `DATE` of
//! `../shared/corpus` (when present) and of `corpus/`, read with the crate's
//! own reader, parsed in turn (errors included, as they come).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::value::Date;
use gedcom_elf::{Event, Input, Value};

/// Every `DATE` payload of the `.ged` files in `dir`.
fn payloads_in(dir: &std::path::Path, out: &mut Vec<String>) {
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
                if let (true, Some(Value::Text(t))) = (b.tag == "DATE", &b.value) {
                    out.push(t.text().into_owned());
                }
            }
        }
    }
}

fn dates(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut payloads = Vec::new();
    payloads_in(&root.join("../shared/corpus"), &mut payloads);
    payloads_in(&root.join("corpus"), &mut payloads);
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

criterion_group!(benches, dates);
criterion_main!(benches);
