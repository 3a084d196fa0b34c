//! `gedcom-elf count`: records, structures and lines, as fast as the reader goes.

use std::io::Write;
use std::time::Instant;

use crate::cli::Settings;
use crate::drive::{self, Source};
use crate::output::Output;
use crate::report::{Fail, Report};
use crate::stats::Tally;

pub fn run(settings: &Settings, source: &Source, report: &mut Report) -> Result<(), Fail> {
    let started = Instant::now();
    let mut records = 0u64;
    let done = drive::run(settings, source, &mut Tally, |tags, ds| {
        report.diagnostics(&ds);
        records += tags.values().sum::<u64>();
        Ok(())
    })?;
    report.diagnostics(&done.summary.diagnostics);
    let secs = started.elapsed().as_secs_f64();
    let s = &done.summary.stats;
    Output::print(|out| {
        writeln!(
            out,
            "{records} records, {} structures, {} lines, {} diagnostics",
            s.structures,
            s.lines,
            s.diagnostics.iter().sum::<u64>()
        )
    })?;
    if secs > 0.0 {
        report.note(&format!(
            "{:.3} s, {:.1} MB/s, {} jobs",
            secs,
            done.bytes as f64 / 1e6 / secs,
            done.jobs
        ));
    }
    Ok(())
}
