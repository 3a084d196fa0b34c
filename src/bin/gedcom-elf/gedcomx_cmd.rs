//! `gedcom-elf gedcomx`: the document as one GEDCOM X document (JSON or
//! XML), through the library's `gedcomx::Export`.
//!
//! The records are read in batches (`StreamReader`, from a file or
//! standard input alike), each batch into a tree of its own and mapped on
//! the `--jobs` thread that read it, the batches written in document
//! order: persons straight to the output, the
//! later sections (relationships, source descriptions, agents, documents,
//! places)
//! to anonymous temporary files appended in order at the end. Memory holds
//! a few batches and their items, whatever the input's size, and
//! the output does not depend on `--jobs` or `--chunk-bytes`. What was not
//! converted is summarised on stderr, a warning per path at its first line.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use std::path::Path;

use gedcom_elf::gedcomx::export::{AHEAD, BATCH_BYTES};
use gedcom_elf::gedcomx::gedx::{select_media, write_gedx, GedxError, MediaSelection};
use gedcom_elf::gedcomx::{Export, ExportError, Format, Index, NotConverted, Options};
use gedcom_elf::stream::StreamReader;
use gedcom_elf::ErrorKind;

use crate::cli::Settings;
use crate::drive::{stdin_file, Redirected, Source};
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{Fail, Report};

/// `gedcomx`: `format` is `json`, `xml` or `gedx`; `--pretty`;
/// `--keep-extensions`.
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
    let config = settings.config().encoding(settings.encoding());
    let jobs = settings.jobs();
    // The first pass gathers the index; standard input is copied to a
    // temporary file on the way, for the second pass to read, unless it is
    // redirected from a file (read twice, as a named one is).
    // A reading error of the first pass other than the source's own is
    // met again, at the same line, by the second, which reports the
    // diagnostics before it and fails (nothing is written).
    let read_failed = |index: Result<Index, gedcom_elf::Error>| match index {
        Ok(index) => Ok(index),
        Err(e) if e.kind() == ErrorKind::Io => Err(Fail::Input(e)),
        Err(_) => Ok(Index::new()),
    };
    let temp_failed = |e: io::Error| Fail::Other(format!("cannot write: {e}"));
    let redirected = match source {
        Source::Stdin => stdin_file()?,
        _ => None,
    };
    let (index, second): (Index, File) = match (source, redirected) {
        // A GEDZIP: its `gedcom.ged`, unpacked into memory and a temporary
        // file for the second pass.
        (Source::File(path), _) if crate::drive::is_gedzip_file(path) => {
            let bytes = source.load()?;
            let index = Index::from_read(&bytes[..], config.clone(), jobs);
            let mut copy = tempfile::tempfile().map_err(temp_failed)?;
            copy.write_all(&bytes).map_err(temp_failed)?;
            copy.seek(SeekFrom::Start(0)).map_err(temp_failed)?;
            (read_failed(index)?, copy)
        }
        (Source::File(path), _) => {
            let file = File::open(path).map_err(|e| Fail::Input(e.into()))?;
            let size = file.metadata().ok().map(|m| m.len());
            let progress = Progress::new(size);
            let index = Index::from_read(progress.wrap(file), config.clone(), jobs);
            drop(progress);
            let again = File::open(path).map_err(|e| Fail::Input(e.into()))?;
            (read_failed(index)?, again)
        }
        // Standard input redirected from a file: the file read twice, as
        // a named one is (no copy).
        (Source::Stdin, Some(Redirected { file, at })) => {
            let input_fail = |e: io::Error| Fail::Input(e.into());
            let mut again = file.try_clone().map_err(input_fail)?;
            let size = file.metadata().ok().map(|m| m.len().saturating_sub(at));
            let progress = Progress::new(size);
            let index = Index::from_read(progress.wrap(file), config.clone(), jobs);
            drop(progress);
            let index = read_failed(index)?;
            again.seek(SeekFrom::Start(at)).map_err(input_fail)?;
            (index, again)
        }
        (Source::Stdin | Source::Sample, _) => {
            let spool_failed = temp_failed;
            let mut copy = io::BufWriter::new(tempfile::tempfile().map_err(spool_failed)?);
            let progress = Progress::new(None);
            // A GEDZIP on standard input is unpacked first.
            let tee = Tee {
                inner: progress.wrap(crate::drive::stdin()?),
                copy: &mut copy,
            };
            let index = Index::from_read(tee, config.clone(), jobs);
            drop(progress);
            let mut copy = copy
                .into_inner()
                .map_err(|e| spool_failed(e.into_error()))?;
            copy.seek(SeekFrom::Start(0)).map_err(spool_failed)?;
            (read_failed(index)?, copy)
        }
    };
    // What is left of it (standard input may stand past a file's start).
    let at = (&second).stream_position().unwrap_or(0);
    let size = second.metadata().ok().map(|m| m.len().saturating_sub(at));
    let progress = Progress::new(size);
    // Read straight into the stream's buffer: no `BufReader` between.
    let input = progress.wrap(second);
    let batch = settings.jobs.chunk_bytes.unwrap_or(BATCH_BYTES);
    let mut stream = StreamReader::with_config(input, config)
        .jobs(jobs)
        .ahead(AHEAD)
        .batch_bytes(batch);
    let mut out = Output::create(output)?;
    let index = Arc::new(index);
    // The index is left for the process's exit to free, not freed entry by
    // entry (a string or more per record: 30 ms of the 300 MB file's 2.2 s,
    // on one thread, after the output is written).
    std::mem::forget(Arc::clone(&index));
    let exported = match format {
        "gedx" => gedx(&mut stream, index, &mut out, options, source, report),
        _ => export(&mut stream, index, &mut out, options, report).map(|(n, _)| n),
    };
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

/// A reader that copies what it reads to `copy`.
struct Tee<R, W> {
    inner: R,
    copy: W,
}

impl<R: Read, W: Write> Read for Tee<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.write_all(&buf[..n])?;
        Ok(n)
    }
}

/// The document as a GEDCOM X file (`.gedx`): written to a temporary file
/// first (the archive needs its size), zipped with the media files beside
/// the input that the `OBJE` descriptions are about, then copied to `out`.
/// Each media value not included is a warning.
fn gedx<R: Read>(
    stream: &mut StreamReader<R>,
    index: Arc<Index>,
    out: &mut Output,
    options: Options,
    source: &Source,
    report: &mut Report,
) -> Result<NotConverted, Fail> {
    let temp_failed = |e: io::Error| Fail::Other(format!("cannot write: {e}"));
    let gedx_failed = |e: GedxError| Fail::Other(format!("cannot write the GEDCOM X file: {e}"));
    let document = tempfile::tempfile().map_err(temp_failed)?;
    let mut document = io::BufWriter::with_capacity(1 << 16, document);
    let (not_converted, media) = export(stream, index, &mut document, options, report)?;
    let mut document = document
        .into_inner()
        .map_err(|e| temp_failed(e.into_error()))?;
    document.seek(SeekFrom::Start(0)).map_err(temp_failed)?;
    let selection = match source {
        Source::File(path) => {
            let dir = Path::new(path).parent().unwrap_or(Path::new(""));
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            select_media(dir, media.iter().map(String::as_str))
        }
        Source::Stdin | Source::Sample => {
            if !media.is_empty() {
                report.note(&format!(
                    "{} media file{} named; none included: standard input has no directory to find them in",
                    media.len(),
                    if media.len() == 1 { "" } else { "s" }
                ));
            }
            MediaSelection::default()
        }
    };
    for (about, why) in &selection.excluded {
        report.warning(&format!(
            "media {about} not included in the GEDCOM X file: {why}"
        ));
    }
    let zip = tempfile::tempfile().map_err(temp_failed)?;
    let mut zip =
        write_gedx(zip, &mut document, Format::Json, &selection.included).map_err(gedx_failed)?;
    zip.seek(SeekFrom::Start(0)).map_err(temp_failed)?;
    // The archive to the output (a write error is the output's, kept by
    // it; any other the temporary file's).
    if let Err(e) = io::copy(&mut zip, out) {
        out.check()?;
        return Err(temp_failed(e));
    }
    Ok(not_converted)
}

/// Reads every record into an export to `out`, mapped on the stream's
/// threads; diagnostics reported as they come. Gives what was not
/// converted and the files the media descriptions are about.
fn export<R: Read, W: Append>(
    stream: &mut StreamReader<R>,
    index: Arc<Index>,
    out: W,
    options: Options,
    report: &mut Report,
) -> Result<(NotConverted, Vec<String>), Fail> {
    let spool_failed = |e: io::Error| Fail::Other(format!("cannot write: {e}"));
    // Groups of items are written at once: the spools are buffered lightly.
    let spool = || Ok(io::BufWriter::with_capacity(1 << 16, tempfile::tempfile()?));
    let append = |spool: &mut io::BufWriter<File>, out: &mut W| {
        spool.flush()?;
        let file = spool.get_mut();
        file.seek(SeekFrom::Start(0))?;
        out.append(file)
    };
    let mut export = Export::try_new(out, options, index, spool)
        .map_err(spool_failed)?
        .append_with(append);
    let done = export.stream(stream, |ds| report.diagnostics(&ds));
    match done {
        Ok(()) => {}
        Err(ExportError::Read(e)) => return Err(e.into()),
        Err(ExportError::Write(e)) => return Err(spool_failed(e)),
    }
    let media = export.media().to_vec();
    let not_converted = export.finish().map_err(spool_failed)?;
    Ok((not_converted, media))
}

/// An output a spooled section is appended to, by the kernel when it can
/// (`std::io::copy` between files, or from a file to standard output):
/// the sections after persons are not read back into memory.
trait Append: Write {
    /// Writes what `file` holds from its position on.
    fn append(&mut self, file: &mut File) -> io::Result<()>;
}

impl Append for &mut Output {
    fn append(&mut self, file: &mut File) -> io::Result<()> {
        Output::append(self, file)
    }
}

impl Append for &mut io::BufWriter<File> {
    fn append(&mut self, file: &mut File) -> io::Result<()> {
        self.flush()?;
        io::copy(file, self.get_mut()).map(drop)
    }
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
