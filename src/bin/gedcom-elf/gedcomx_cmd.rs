//! `gedcom-elf gedcomx`: the document as one GEDCOM X document (JSON or
//! XML), through the library's `gedcomx::Export`.
//!
//! Records are read one at a time (`Records`, batches on `--jobs` threads,
//! merged in document order) from a file or standard input alike, and each
//! is mapped and written at once: persons straight to the output, the
//! later sections (relationships, source descriptions, agents, documents,
//! places)
//! to anonymous temporary files appended in order at the end. Memory holds
//! a few batches and one record's items, whatever the input's size, and
//! the output does not depend on `--jobs` or `--chunk-bytes`. What was not
//! converted is summarised on stderr, a warning per path at its first line.

use std::fs::File;
use std::io::{self, Read};

use gedcom_elf::gedcomx::{Export, Format, NotConverted, Options};
use gedcom_elf::tree::Records;

use crate::cli::Settings;
use crate::drive::Source;
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{Fail, Report};

/// `gedcomx`: `format` is `json` or `xml`; `--pretty`; `--keep-extensions`.
pub fn run(
    settings: &Settings,
    source: &Source,
    (format, pretty, keep_extensions): (&str, bool, bool),
    output: Option<&str>,
    report: &mut Report,
) -> Result<(), Fail> {
    let options = Options {
        format: if format == "xml" {
            Format::Xml
        } else {
            Format::Json
        },
        pretty,
        keep_extensions,
    };
    let (input, progress): (Box<dyn Read>, _) = match source {
        Source::File(path) => {
            let file = File::open(path).map_err(|e| Fail::Input(e.into()))?;
            let size = file.metadata().ok().map(|m| m.len());
            let progress = Progress::new(size);
            (Box::new(progress.wrap(file)), progress)
        }
        Source::Stdin | Source::Sample => {
            let progress = Progress::new(None);
            (Box::new(progress.wrap(io::stdin().lock())), progress)
        }
    };
    let config = settings.config().encoding(settings.encoding());
    let mut records = Records::with_config(input, config).jobs(settings.jobs());
    if let Some(n) = settings.jobs.chunk_bytes {
        records = records.batch_bytes(n);
    }
    let mut out = Output::create(output)?;
    let exported = export(&mut records, &mut out, options, report);
    drop(progress);
    let not_converted = match exported {
        Ok(n) => n,
        // A write error of the output is the output's (kept by it); any
        // other is a temporary file's.
        Err(Fail::Other(e)) => {
            out.check()?;
            return Err(Fail::Other(e));
        }
        Err(fail) => return Err(fail),
    };
    summarise(&not_converted, report);
    out.commit()
}

/// Reads every record into an export to `out`; diagnostics reported as
/// they come.
fn export<R: Read>(
    records: &mut Records<R>,
    out: &mut Output,
    options: Options,
    report: &mut Report,
) -> Result<NotConverted, Fail> {
    let spool_failed = |e: io::Error| Fail::Other(format!("cannot write: {e}"));
    // Items are written a property at a time: the spools are buffered.
    let spool = || Ok(io::BufWriter::with_capacity(1 << 16, tempfile::tempfile()?));
    let mut export = Export::try_new(out, options, spool).map_err(spool_failed)?;
    while let Some(record) = records.next() {
        let diagnostics: Vec<_> = records.drain_diagnostics().collect();
        report.diagnostics(&diagnostics);
        export.record(record?.root()).map_err(spool_failed)?;
    }
    let diagnostics: Vec<_> = records.drain_diagnostics().collect();
    report.diagnostics(&diagnostics);
    export.finish().map_err(spool_failed)
}

/// A warning per path not converted, at its first line, then the total.
fn summarise(not_converted: &NotConverted, report: &Report) {
    for s in not_converted.entries() {
        let lines: Vec<String> = s.lines.iter().map(u64::to_string).collect();
        let more = if s.count > s.lines.len() as u64 {
            ", ..."
        } else {
            ""
        };
        let message = format!(
            "not converted to GEDCOM X: {} ({}): {} time{}, line{} {}{more}",
            s.path,
            s.reason,
            s.count,
            if s.count == 1 { "" } else { "s" },
            if s.lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
        );
        report.warning_at(s.lines.first().copied().filter(|&l| l > 0), &message);
    }
    if !not_converted.is_empty() {
        let total = not_converted.total();
        report.note(&format!(
            "{total} structure{} not converted to GEDCOM X (with their substructures)",
            if total == 1 { "" } else { "s" }
        ));
    }
}
