//! `gedcom-elf stats`: what a file holds, and how fast it was read.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use gedcom_elf::{DiagnosticKind, EncodingSource, Error, Event, Reader};

use crate::cli::Settings;
use crate::drive::{self, Source, Work};
use crate::output::Output;
use crate::report::{Fail, Report};

/// Records per tag (a chunk's, or a batch's): `stats` prints them, `count`
/// sums them.
pub struct Tally;

impl Work for Tally {
    type Out = BTreeMap<String, u64>;

    /// A tally needs no line numbers; only an error carries one.
    fn needs_line_numbers(&self) -> bool {
        false
    }

    fn run(&self, events: &mut Reader<'_>) -> (Self::Out, Option<Error>) {
        let mut records: BTreeMap<String, u64> = BTreeMap::new();
        // Records of one tag come in runs: counted here, added at the run's end.
        let mut run: (String, u64) = (String::new(), 0);
        let error = loop {
            // By reference: moving the event out would copy it.
            match &events.next_event() {
                Ok(Some(Event::Begin(b))) if b.level == 0 => {
                    if *b.tag != *run.0 {
                        let (tag, n) = std::mem::replace(&mut run, (b.tag.to_string(), 0));
                        if n > 0 {
                            *records.entry(tag).or_default() += n;
                        }
                    }
                    run.1 += 1;
                }
                Ok(Some(_)) => {}
                Ok(None) => break None,
                Err(e) => break Some(e.clone()),
            }
        };
        if run.1 > 0 {
            *records.entry(run.0).or_default() += run.1;
        }
        (records, error)
    }
}

/// `stats --list-media`: a GEDZIP archive's media entries, one per line
/// (the size the archive declares, a tab, the name), in the archive's
/// order.
pub fn list_media(source: &Source) -> Result<(), Fail> {
    let Some(media) = source.media()? else {
        return Err(Fail::Other(
            "--list-media lists the media of a GEDZIP (.gdz) archive, and this is none".into(),
        ));
    };
    Output::print(|out| {
        for entry in &media {
            writeln!(out, "{}\t{}", entry.size, entry.name)?;
        }
        Ok(())
    })
}

pub fn run(settings: &Settings, source: &Source, report: &mut Report) -> Result<(), Fail> {
    let started = Instant::now();
    let mut records: BTreeMap<String, u64> = BTreeMap::new();
    let done = drive::run(settings, source, &mut Tally, |part, ds| {
        report.diagnostics(&ds);
        for (tag, n) in part {
            *records.entry(tag).or_default() += n;
        }
        Ok(())
    })?;
    report.diagnostics(&done.summary.diagnostics);
    let elapsed = started.elapsed().as_secs_f64();
    Output::print(|out| {
        let stats = &done.summary.stats;
        writeln!(out, "file:        {}", report.name)?;
        writeln!(out, "bytes:       {}", done.bytes)?;
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
            writeln!(out, "encoding:    {} ({how})", info.encoding)?;
            if let Some(d) = info.detected {
                writeln!(out, "  detected:  {d}")?;
            }
            if let Some(c) = &info.char_value {
                writeln!(out, "  specified: CHAR {c}")?;
            }
        }
        if let Some(version) = done.version_said(settings) {
            writeln!(out, "version:     {version}")?;
        }
        writeln!(out, "lines:       {}", stats.lines)?;
        writeln!(out, "structures:  {}", stats.structures)?;
        writeln!(out, "max level:   {}", stats.max_level)?;
        writeln!(out, "records:     {}", records.values().sum::<u64>())?;
        for (tag, n) in records {
            writeln!(out, "  {tag:<10} {n}")?;
        }
        let total: u64 = stats.diagnostics.iter().sum();
        writeln!(out, "diagnostics: {total}")?;
        for kind in DiagnosticKind::ALL {
            let n = stats.count(*kind);
            if n > 0 {
                writeln!(out, "  {:<24} {n} ({})", kind.id(), kind.severity())?;
            }
        }
        if elapsed > 0.0 {
            writeln!(
                out,
                "time:        {:.3} s ({:.1} MB/s, {} jobs)",
                elapsed,
                done.bytes as f64 / 1e6 / elapsed,
                done.jobs
            )?;
        }
        Ok(())
    })
}
