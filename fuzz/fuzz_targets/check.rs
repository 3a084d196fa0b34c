//! Arbitrary bytes through `check`: record by record from a stream and in
//! chunks of a slice, at one and two jobs and chunks of 1 to 64 bytes; the
//! findings must be the same every way, and nothing may panic or hang.
#![no_main]

use std::convert::Infallible;

use gedcom_elf::check::{CheckConfig, Checker, Finding};
use gedcom_elf::par::Chunks;
use gedcom_elf::tree::Records;
use gedcom_elf::{Input, ReaderConfig};
use libfuzzer_sys::fuzz_target;

fn show(f: &Finding) -> String {
    format!("{}:{}:{}:{:?}:{}:{:?}", f.line, f.rule.id, f.message, f.record, f.path, f.text)
}

fuzz_target!(|data: &[u8]| {
    let (flags, input) = match data.split_first() {
        Some((f, rest)) => (*f, rest),
        None => (0, data),
    };
    let jobs = 1 + usize::from(flags & 1);
    let batch = usize::from(flags >> 2) % 64 + 1;
    let mut streamed = Vec::new();
    let mut records = Records::new(input).jobs(jobs).batch_bytes(batch);
    let a = Checker::new(CheckConfig::new())
        .jobs(jobs)
        .run(&mut records, |f| {
            streamed.push(show(f));
            Ok::<(), Infallible>(())
        })
        .map(|s| (s.errors, s.warnings))
        .map_err(|e| e.to_string());
    let Ok(prepared) = Input::new(input) else {
        return;
    };
    let Ok(chunks) = Chunks::new(&prepared, ReaderConfig::new()) else {
        return;
    };
    let mut chunked = Vec::new();
    let b = Checker::new(CheckConfig::new())
        .run_chunks(chunks.jobs(jobs).batch_bytes(batch), |f| {
            chunked.push(show(f));
            Ok::<(), Infallible>(())
        })
        .map(|s| (s.errors, s.warnings))
        .map_err(|e| e.to_string());
    if a.is_ok() && b.is_ok() {
        assert_eq!(streamed, chunked);
        assert_eq!(a, b);
    }
});
