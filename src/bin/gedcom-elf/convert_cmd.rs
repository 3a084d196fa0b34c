//! `convert --to-version`: the input converted to another GEDCOM version by
//! the library's [`convert`](gedcom_elf::convert::convert) (a file
//! memory-mapped, standard input spooled to a temporary file: the
//! conversion to 7.0 reads its input twice), written whole or not at all to
//! `-o OUT` (or standard output); what the target cannot carry is reported
//! on stderr, path by path with its first lines, and a note sums up what
//! changed.

use gedcom_elf::convert::{convert, ConvertConfig, ConvertReport};
use gedcom_elf::write::{LineEnding, WriteErrorKind};
use gedcom_elf::{Encoding, Version};

use crate::cli::{OutputArg, Settings};
use crate::drive::Source;
use crate::output::Output;
use crate::report::{Fail, Report};

/// Converts `source` to `to` (in `encoding`, UTF-8 when none is given,
/// with `line_ending`) into `-o OUT`.
pub fn run(
    settings: &Settings,
    source: &Source,
    (to, encoding, line_ending): (Version, Option<Encoding>, LineEnding),
    output: &OutputArg,
    report: &mut Report,
) -> Result<(), Fail> {
    source.check_gedcom_output(output.output.as_deref())?;
    let bytes = source.load_spooled()?;
    let config = ConvertConfig::new(to)
        .encoding(encoding.unwrap_or(Encoding::Utf8))
        .line_ending(line_ending)
        .input_encoding(settings.encoding());
    let mut out = Output::create(output.output.as_deref())?;
    match convert(&bytes, &config, &mut out) {
        Ok(done) => {
            summarise(&done, report);
            out.commit()
        }
        Err(e) if e.kind() == WriteErrorKind::Io => {
            out.check()?;
            Err(Fail::Write(e))
        }
        Err(e) => Err(Fail::Write(e)),
    }
}

/// The report on stderr: a warning per path the target cannot carry (at its
/// first line), then notes with the totals and what changed.
fn summarise(done: &ConvertReport, report: &Report) {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    for s in done.not_carried.entries() {
        let lines: Vec<String> = s.lines.iter().map(u64::to_string).collect();
        let more = if s.count > s.lines.len() as u64 {
            ", ..."
        } else {
            ""
        };
        let at = if lines.is_empty() {
            String::new()
        } else {
            format!(
                ", line{} {}{more}",
                if s.lines.len() == 1 { "" } else { "s" },
                lines.join(", ")
            )
        };
        let message = format!(
            "not carried to GEDCOM {}: {} ({}): {} time{}{at}",
            done.to,
            s.path,
            s.reason,
            s.count,
            plural(s.count),
        );
        report.warning_at(s.lines.first().copied(), &message);
    }
    let total = done.not_carried.total();
    if total > 0 {
        report.note(&format!(
            "{total} structure{} not carried to GEDCOM {} as they were",
            plural(total),
            done.to
        ));
    }
    let changes: Vec<String> = done
        .changes
        .iter()
        .map(|(rule, n)| format!("{rule}: {n}"))
        .collect();
    report.note(&format!(
        "converted GEDCOM {} to {}: {} record{}{}{}",
        done.from,
        done.to,
        done.records,
        plural(done.records),
        if changes.is_empty() { "" } else { "; " },
        changes.join("; ")
    ));
    if done.read_errors > 0 {
        report.warning(&format!(
            "the input has {} reading error(s); ERROR structures were converted as the reader made them",
            done.read_errors
        ));
    }
}
