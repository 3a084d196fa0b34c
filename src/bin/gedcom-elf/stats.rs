//! `gedcom-elf stats`: what a file holds, and how fast it was read.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::{DiagnosticKind, EncodingSource, Error, Event};

use crate::drive::{self, Events, Work};
use crate::{fail, print_diagnostic, Options};

/// How many diagnostics `stats` shows; all are counted.
const SHOWN: usize = 20;

struct Tally;

impl Work for Tally {
    type Out = (BTreeMap<String, u64>, Option<Error>);

    type State = ();

    fn state(&self) {}

    /// A tally needs no line numbers; only an error carries one.
    fn needs_line_numbers(&self) -> bool {
        false
    }

    fn shift_lines((n, err): Self::Out, off: u64) -> Self::Out {
        (n, err.map(|e| e.with_line_offset(off)))
    }

    fn run<'a, E: Events<'a>>(&self, events: &mut E, _: &mut ()) -> Self::Out {
        let mut records: BTreeMap<String, u64> = BTreeMap::new();
        loop {
            // By reference: moving the event out would copy it.
            match &events.next_event() {
                Ok(Some(Event::Begin(b))) if b.level == 0 => {
                    match records.get_mut(b.tag.as_ref()) {
                        Some(n) => *n += 1,
                        None => {
                            records.insert(b.tag.to_string(), 1);
                        }
                    }
                }
                Ok(Some(_)) => {}
                Ok(None) => return (records, None),
                Err(e) => return (records, Some(e.clone())),
            }
        }
    }
}

pub fn run(opts: &Options) -> ExitCode {
    if opts.tree {
        return crate::tree_cmd::stats(opts);
    }
    let name = opts.name();
    let started = Instant::now();
    let mut records: BTreeMap<String, u64> = BTreeMap::new();
    let mut shown = 0usize;
    let done = drive::run(opts, &mut Tally, |(part, err), ds| {
        for d in &ds {
            if shown < SHOWN {
                print_diagnostic(&name, d);
            }
            shown += 1;
        }
        for (tag, n) in part {
            *records.entry(tag).or_default() += n;
        }
        err.map_or(Ok(()), Err)
    });
    let done = match done {
        Ok(d) => d,
        Err(e) => return fail(&name, &e),
    };
    for d in &done.diagnostics {
        print_diagnostic(&name, d);
    }
    let elapsed = started.elapsed().as_secs_f64();
    if shown > SHOWN {
        eprintln!("{name}: ... and {} more diagnostics", shown - SHOWN);
    }
    let stats = &done.stats;
    println!("file:        {name}");
    println!("bytes:       {}", done.bytes);
    if let Some(info) = &done.encoding {
        let how = match info.source {
            EncodingSource::Caller => "given with --encoding".to_string(),
            EncodingSource::ByteOrderMark => "from the byte-order mark".to_string(),
            EncodingSource::Sniffed => "sniffed from the first octets".to_string(),
            EncodingSource::CharLine => format!(
                "from the CHAR line {:?} (line {})",
                info.char_value.as_deref().unwrap_or(""),
                info.char_line.unwrap_or(0)
            ),
            _ => "the GEDCOM default (no CHAR line, no byte-order mark)".to_string(),
        };
        println!("encoding:    {} ({how})", info.encoding);
        if let Some(d) = info.detected {
            println!("  detected:  {d}");
        }
        if let Some(c) = &info.char_value {
            println!("  specified: CHAR {c}");
        }
    }
    println!("lines:       {}", stats.lines);
    println!("structures:  {}", stats.structures);
    println!("max level:   {}", stats.max_level);
    println!("records:     {}", records.values().sum::<u64>());
    for (tag, n) in &records {
        println!("  {tag:<10} {n}");
    }
    let total: u64 = stats.diagnostics.iter().sum();
    println!("diagnostics: {total}");
    for kind in DiagnosticKind::ALL {
        let n = stats.count(*kind);
        if n > 0 {
            println!("  {:<24} {n} ({})", kind.id(), kind.severity());
        }
    }
    if elapsed > 0.0 {
        println!(
            "time:        {:.3} s ({:.1} MB/s, {} jobs)",
            elapsed,
            done.bytes as f64 / 1e6 / elapsed,
            opts.jobs
        );
    }
    ExitCode::SUCCESS
}
