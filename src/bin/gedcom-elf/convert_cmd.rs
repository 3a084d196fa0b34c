//! `convert --to-version`: the input converted to another GEDCOM version by
//! the library's [`convert`](gedcom_elf::convert::convert) (a file
//! memory-mapped, standard input spooled to a temporary file: the
//! conversion to 7.0 reads its input twice), written whole or not at all to
//! `-o OUT` (or standard output); what the target cannot carry is reported
//! on stderr, path by path with its first lines, and a note sums up what
//! changed.
//!
//! To 7.0 with `-o NAME.gdz` (any case) or `--gdz` (for standard output or
//! another name), the output is a GEDZIP archive
//! ([`convert_to_gedzip`]): the media files are looked for in the input's
//! directory, or in the input archive when FILE is a `.gdz`; standard input
//! has no place, so its local media paths are all reported missing. The
//! archive is made in an anonymous temporary file, then copied to the output
//! (written whole or not at all, as any output). `--to-version 5.5.1` with
//! either is refused (GEDZIP holds GEDCOM 7).

use std::io::{Seek, SeekFrom};

use gedcom_elf::convert::{convert, convert_to_gedzip, ConvertConfig, ConvertReport};
use gedcom_elf::gedzip::MediaFiles;
use gedcom_elf::write::{LineEnding, WriteErrorKind};
use gedcom_elf::{Encoding, Version};

use crate::cli::{OutputArg, Settings};
use crate::drive::{is_gedzip_file, Source};
use crate::output::Output;
use crate::report::{Fail, Report};

/// Whether `-o OUT` names a GEDZIP archive (`.gdz`, any case).
pub fn names_gdz(output: Option<&str>) -> bool {
    output.is_some_and(|o| {
        std::path::Path::new(o)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gdz"))
    })
}

/// The refusal of a GEDZIP output not in 7.0 (`to`: the version asked
/// for, `None` for no conversion).
pub fn gdz_refused(to: Option<Version>) -> Fail {
    let what = match to {
        Some(v) => format!("GEDCOM {v}"),
        None => "a rewrite without --to-version".to_string(),
    };
    Fail::Other(format!(
        "a GEDZIP archive (.gdz, --gdz) holds GEDCOM 7 only, not {what}: convert with --to-version 7.0"
    ))
}

/// Converts `source` to `to` (in `encoding`, UTF-8 when none is given,
/// with `line_ending`; a GEDZIP when `gdz` or `-o` names one) into `-o OUT`.
pub fn run(
    settings: &Settings,
    source: &Source,
    (to, encoding, line_ending, gdz): (Version, Option<Encoding>, LineEnding, bool),
    output: &OutputArg,
    report: &mut Report,
) -> Result<(), Fail> {
    let out_name = output.output.as_deref();
    let archive = gdz || names_gdz(out_name);
    if archive && !to.is_gedcom7() {
        return Err(gdz_refused(Some(to)));
    }
    if !archive {
        source.check_gedcom_output(out_name)?;
    }
    let bytes = source.load_spooled()?;
    let config = ConvertConfig::new(to)
        .encoding(encoding.unwrap_or(Encoding::Utf8))
        .line_ending(line_ending)
        .input_encoding(settings.encoding())
        .jobs(settings.jobs());
    let config = match settings.jobs.chunk_bytes {
        Some(n) => config.batch_bytes(n),
        None => config,
    };
    let mut out = Output::create(out_name)?;
    if archive {
        let mut files = media_of(source)?;
        let io_fail = |e: std::io::Error| Fail::Output("a temporary file".into(), e);
        let temp = tempfile::tempfile().map_err(io_fail)?;
        let (done, mut temp) =
            convert_to_gedzip(&bytes, &config, &mut files, temp).map_err(Fail::Write)?;
        temp.seek(SeekFrom::Start(0)).map_err(io_fail)?;
        std::io::copy(&mut temp, &mut out).map_err(io_fail)?;
        out.check()?;
        summarise(&done, report);
        return out.commit();
    }
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

/// Where the media of `source` are: the archive it is, or its directory
/// (standard input and the sample have none).
fn media_of(source: &Source) -> Result<MediaFiles, Fail> {
    let Source::File(path) = source else {
        return Ok(MediaFiles::none());
    };
    if is_gedzip_file(path) {
        let file =
            std::fs::File::open(path).map_err(|e| Fail::Input(gedcom_elf::Error::from(e)))?;
        return MediaFiles::archive(file)
            .map_err(|e| Fail::Other(format!("cannot read it as a GEDZIP archive: {e}")));
    }
    let dir = match std::path::Path::new(path).parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    Ok(MediaFiles::directory(dir))
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
