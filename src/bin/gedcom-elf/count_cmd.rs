//! `gedcom-elf count`: records, structures and lines, as fast as the reader goes.

use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::{Error, Event};

use crate::drive::{self, Events, Work};
use crate::{fail, print_diagnostics, Options};

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

pub fn run(opts: &Options) -> ExitCode {
    let name = opts.name();
    let started = Instant::now();
    let mut records = 0u64;
    let done = drive::run(opts, &mut Count, |(n, err), _diagnostics| {
        // Diagnostics are counted, not shown.
        records += n;
        err.map_or(Ok(()), Err)
    });
    let done = match done {
        Ok(d) => d,
        Err(e) => return fail(&name, &e),
    };
    let secs = started.elapsed().as_secs_f64();
    let s = &done.stats;
    println!(
        "{records} records, {} structures, {} lines, {} diagnostics",
        s.structures,
        s.lines,
        s.diagnostics.iter().sum::<u64>()
    );
    if secs > 0.0 {
        eprintln!(
            "{:.3} s, {:.1} MB/s, {} jobs",
            secs,
            done.bytes as f64 / 1e6 / secs,
            opts.jobs
        );
    }
    print_diagnostics(&name, &[]);
    ExitCode::SUCCESS
}
