//! `gedcom-elf count`: records, structures and lines, as fast as the reader goes.

use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::Event;

use crate::{fail, Input, Options};

pub fn run(opts: &Options, input: &Input) -> ExitCode {
    let started = Instant::now();
    let prepared = match gedcom_elf::Input::with_encoding(&input.bytes, opts.encoding) {
        Ok(p) => p,
        Err(e) => return fail(&input.name, &e),
    };
    let mut reader = prepared.reader_with_config(opts.config());
    let mut records = 0u64;
    loop {
        match reader.next_event() {
            Ok(Some(Event::Begin(b))) => records += u64::from(b.level == 0),
            Ok(Some(Event::End(_))) => {}
            Ok(None) => break,
            Err(e) => return fail(&input.name, &e),
        }
        // Keep memory flat on files with many problems.
        reader.drain_diagnostics().for_each(drop);
    }
    let secs = started.elapsed().as_secs_f64();
    let s = reader.stats();
    println!(
        "{records} records, {} structures, {} lines, {} diagnostics",
        s.structures,
        s.lines,
        s.diagnostics.iter().sum::<u64>()
    );
    if secs > 0.0 {
        eprintln!(
            "{:.3} s, {:.1} MB/s",
            secs,
            input.bytes.len() as f64 / 1e6 / secs
        );
    }
    ExitCode::SUCCESS
}
