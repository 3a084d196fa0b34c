//! `gedcom-elf count`: records, structures and lines, as fast as the reader goes.

use std::io::Write;
use std::time::Instant;

use gedcom_elf::{Error, Event};

use crate::cli::Settings;
use crate::drive::{self, Events, Source, Work};
use crate::output::Output;
use crate::report::{Fail, Report};

struct Count;

impl Work for Count {
    type Out = (u64, Option<Error>);

    type State = ();

    fn state(&self) {}

    /// Counting needs no line numbers; only an error carries one.
    fn needs_line_numbers(&self) -> bool {
        false
    }

    fn shift_lines((n, err): Self::Out, off: u64) -> Self::Out {
        (n, err.map(|e| e.with_line_offset(off)))
    }

    fn run<'a, E: Events<'a>>(&self, events: &mut E, _: &mut ()) -> Self::Out {
        let mut records = 0;
        loop {
            // By reference: moving the event out would copy it.
            match &events.next_event() {
                Ok(Some(Event::Begin(b))) => records += u64::from(b.level == 0),
                Ok(Some(Event::End(_))) => {}
                Ok(None) => return (records, None),
                Err(e) => return (records, Some(e.clone())),
            }
        }
    }
}

pub fn run(settings: &Settings, source: &Source, report: &mut Report) -> Result<(), Fail> {
    let started = Instant::now();
    let mut records = 0u64;
    let done = drive::run(settings, source, &mut Count, |(n, err), ds| {
        report.diagnostics(&ds);
        records += n;
        err.map_or(Ok(()), |e| Err(Fail::Input(e)))
    })?;
    report.diagnostics(&done.diagnostics);
    let secs = started.elapsed().as_secs_f64();
    let s = &done.stats;
    let mut out = Output::stdout();
    writeln!(
        out,
        "{records} records, {} structures, {} lines, {} diagnostics",
        s.structures,
        s.lines,
        s.diagnostics.iter().sum::<u64>()
    )
    .map_err(|e| out.fail(e))?;
    out.commit()?;
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
