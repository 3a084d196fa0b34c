//! Parallel reading of record-aligned chunks equals the sequential read:
//! the same events, diagnostics (global line numbers) and counters.

mod common;

#[path = "../benches/support/generate.rs"]
mod generate;

use gedcom_elf::par::Chunks;
use gedcom_elf::{Diagnostic, Event, Input, ReadStats, ReaderConfig};

fn sequential(input: &Input<'_>) -> (Vec<Event<'static>>, Vec<Diagnostic>, ReadStats) {
    let mut reader = input.reader();
    let mut events = Vec::new();
    let mut diags = Vec::new();
    loop {
        let r = reader.next_event();
        diags.extend(reader.drain_diagnostics());
        match r.expect("sequential read") {
            Some(e) => events.push(e.into_owned()),
            None => break,
        }
    }
    (events, diags, reader.stats().clone())
}

fn parallel(
    input: &Input<'_>,
    target: usize,
    jobs: usize,
) -> (Vec<Event<'static>>, Vec<Diagnostic>, ReadStats, usize) {
    let chunks = Chunks::new(input, ReaderConfig::new())
        .expect("chunks")
        .batch_bytes(target)
        .jobs(jobs);
    let n = chunks.len();
    let out = chunks
        .map(|reader| {
            let mut events = Vec::new();
            while let Some(e) = reader.next_event()? {
                events.push(e.into_owned());
            }
            Ok(events)
        })
        .expect("parallel read");
    (out.results.concat(), out.diagnostics, out.stats, n)
}

fn assert_same(name: &str, bytes: &[u8]) {
    let Ok(input) = Input::new(bytes) else { return };
    if input.reader().next_event().is_err() {
        return; // not GEDCOM: nothing to split
    }
    let (events, diags, stats) = sequential(&input);
    for (target, jobs) in [(1, 1), (1, 2), (7, 3), (64, 2), (4096, 2), (1 << 20, 2)] {
        let (pe, pd, ps, n) = parallel(&input, target, jobs);
        assert_eq!(pe, events, "{name}: events, target {target}, {n} chunks");
        assert_eq!(
            pd, diags,
            "{name}: diagnostics, target {target}, {n} chunks"
        );
        assert_eq!(ps, stats, "{name}: counters, target {target}");
    }
}

#[test]
fn corpus_files_read_the_same_in_chunks() {
    for (name, bytes) in common::project_corpus() {
        assert_same(&name, &bytes);
    }
}

#[test]
fn shared_corpus_reads_the_same_in_chunks() {
    let Some(dir) = common::shared_corpus() else {
        return;
    };
    for (name, bytes) in common::ged_files(&dir) {
        assert_same(&name, &bytes);
    }
}

#[test]
fn generated_files_read_the_same_in_chunks() {
    let mut bytes = Vec::new();
    generate::generate(300, 7, &mut bytes).unwrap();
    assert_same("generated", &bytes);
}

#[test]
fn trlr_diagnostics_are_fixed_up_across_chunks() {
    let cases: [&[u8]; 5] = [
        b"0 HEAD\n0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n1 NAME x\n0 @I3@ INDI\n0 TRLR\n0 @I4@ INDI\n",
        b"0 HEAD\n0 @I1@ INDI\n1 NAME a\n0 @I2@ INDI\n",
        b"0 HEAD\n0 TRLR\n\n\n0 @I2@ INDI\n0 TRLR\n",
        // Fuzz `chunks` found: the fixed-up after-trlr pointed at the
        // chunk's leading whitespace, not at its line string.
        b"0 HEAD\n0 TRLR\n\n  \n\t0 TRLR\n\n  \n\t\n\t 0 @N1@ NOTE x\n",
        b"0 HEAD\n0 @I1@ INDI\n2 X\n0 CONT y\n3 Z\n0 ERROR e\n1 A\n0 TRLR\n",
    ];
    for bytes in cases {
        assert_same(&String::from_utf8_lossy(bytes), bytes);
    }
}
