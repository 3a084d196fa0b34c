//! One way to run every command: work on record-aligned chunks (in
//! parallel for files; batch by batch for standard input, the batches after
//! the HEAD in parallel), results handed to a sink in document order.
//!
//! A file is memory-mapped and cut into chunks of about `--chunk-bytes`
//! (default 2 MiB) read on `--jobs` threads; standard input is streamed in
//! batches of about `--chunk-bytes` (default 64 KiB), so memory stays
//! bounded whatever the input's size. A GEDZIP file's (`.gdz`) `gedcom.ged`
//! is read into memory and used as the file.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;

use gedcom_elf::gedzip;
use gedcom_elf::par::{Chunks, Summary};
use gedcom_elf::stream::StreamReader;
use gedcom_elf::{Diagnostic, EncodingInfo, Error, Input, Reader, Version};

use crate::cli::Settings;
use crate::progress::Progress;
use crate::report::Fail;

/// Bytes per chunk when reading a file (unless `--chunk-bytes`).
pub const CHUNK: usize = 2 << 20;

/// Bytes per batch when streaming standard input (unless `--chunk-bytes`):
/// the library's default, small, so that a batch and its output stay in a
/// few MiB.
pub const BATCH: usize = gedcom_elf::stream::DEFAULT_BATCH_BYTES;

/// A small GEDCOM file bundled with the binary for the no-argument demo.
const SAMPLE: &[u8] = include_bytes!("../../../corpus/sample.ged");

/// The whole input: a file memory-mapped (read when mapping fails), standard
/// input read, or the bundled sample.
pub type Bytes = Box<dyn Deref<Target = [u8]>>;

/// A command's work on one chunk. A reading error ends the chunk: the
/// output keeps what came before it, and the run stops with the error
/// after the sink took that output.
pub trait Work: Sync {
    type Out: Send;

    /// Looks at the document before any chunk is read: `reader` is a
    /// reader of the whole input (a file) or of the first batch (a
    /// stream) that has not returned an event yet. For what every chunk
    /// needs to know (the HEAD's schema).
    fn prepare(&mut self, _reader: &Reader<'_>) -> Result<(), Error> {
        Ok(())
    }

    /// Whether `run` needs the events' line numbers to be the input's. When
    /// it does not, a file's chunks are read numbered each from its own
    /// first line ([`Chunks::for_each_relative`]: no pass over the whole
    /// file to number them first) and the error that ends one is
    /// renumbered as it is merged.
    fn needs_line_numbers(&self) -> bool {
        true
    }

    /// Reads one chunk (or batch) of whole records to its end, or to the
    /// reading error that ends it.
    fn run(&self, reader: &mut Reader<'_>) -> (Self::Out, Option<Error>);
}

/// What a whole run leaves.
pub struct Done {
    /// The reading's statistics, and the end-of-input diagnostics (a
    /// missing TRLR).
    pub summary: Summary,
    pub encoding: Option<EncodingInfo>,
    /// The version read as, and the `HEAD.GEDC.VERS` line that said it
    /// (`None`: `--gedcom-version`, or the HEAD says none).
    pub version: Option<(Version, Option<u64>)>,
    pub bytes: u64,
    /// Threads the reading ran on (`--jobs`, at most the file's chunks).
    pub jobs: usize,
}

impl Done {
    /// The version the input was read as and where it came from
    /// (`7.0 (from HEAD.GEDC.VERS, line 3)`), as `stats` and `events` say it.
    pub fn version_said(&self, settings: &Settings) -> Option<String> {
        let (version, line) = self.version?;
        let how = match line {
            Some(line) => format!("from HEAD.GEDC.VERS, line {line}"),
            None if settings.read.gedcom_version.is_some() => "given with --vers".to_string(),
            None => "the default: no HEAD.GEDC.VERS".to_string(),
        };
        Some(format!("{version} ({how})"))
    }
}

/// Where a command reads from.
pub enum Source {
    /// A file, memory-mapped.
    File(String),
    /// Standard input (`-`), streamed.
    Stdin,
    /// The sample bundled with the program (the no-argument demo).
    Sample,
}

impl Source {
    /// The name diagnostics use for it.
    pub fn name(&self) -> String {
        match self {
            Source::File(f) => f.clone(),
            Source::Stdin => "<stdin>".into(),
            Source::Sample => "corpus/sample.ged (bundled)".into(),
        }
    }

    /// The whole input: a file mapped, standard input read whole (with a
    /// progress bar), or the sample. A GEDZIP file (named `.gdz`, or
    /// starting as a zip archive does; standard input that starts so) gives
    /// its `gedcom.ged`, read into memory.
    pub fn load(&self) -> Result<Bytes, Fail> {
        let bytes = self.load_raw()?;
        let archive = match self {
            Source::File(path) => is_gedzip(path, &bytes),
            Source::Stdin => gedzip::is_zip(&bytes),
            Source::Sample => false,
        };
        match archive {
            true => {
                let gdz = gedzip::read_gedzip(io::Cursor::new(&bytes[..])).map_err(gedzip_fail)?;
                Ok(Box::new(gdz.gedcom))
            }
            false => Ok(bytes),
        }
    }

    /// [`Source::load`], but standard input is copied to an anonymous
    /// temporary file and mapped rather than read into memory (a GEDZIP on
    /// it unpacked first): for a command that reads its input twice.
    pub fn load_spooled(&self) -> Result<Bytes, Fail> {
        if !matches!(self, Source::Stdin) {
            return self.load();
        }
        let io_fail = |e: io::Error| Fail::Input(Error::from(e));
        // Redirected from a file: the file mapped from where it stands.
        if let Some(Redirected { file, at }) = stdin_file()? {
            // SAFETY: as in `load_raw`.
            let map = unsafe { memmap2::MmapOptions::new().offset(at).map(&file) };
            return match map {
                Ok(m) if !m.is_empty() => Ok(Box::new(m)),
                _ => {
                    let mut v = Vec::new();
                    Progress::new(None)
                        .wrap(file)
                        .read_to_end(&mut v)
                        .map_err(io_fail)?;
                    Ok(Box::new(v))
                }
            };
        }
        let mut spool = tempfile::tempfile().map_err(io_fail)?;
        let mut input = Progress::new(None).wrap(stdin()?);
        io::copy(&mut input, &mut spool).map_err(io_fail)?;
        drop(input);
        // SAFETY: as in `load_raw`: the map is only read, and the anonymous
        // file is ours alone (no other process can name it).
        match unsafe { memmap2::Mmap::map(&spool) } {
            Ok(m) if !m.is_empty() => Ok(Box::new(m)),
            Ok(_) => Ok(Box::new(Vec::new())),
            Err(_) => {
                use std::io::Seek;
                let mut v = Vec::new();
                spool.seek(io::SeekFrom::Start(0)).map_err(io_fail)?;
                spool.read_to_end(&mut v).map_err(io_fail)?;
                Ok(Box::new(v))
            }
        }
    }

    /// The media entries of a GEDZIP file; `None` for any other input.
    pub fn media(&self) -> Result<Option<Vec<gedzip::Entry>>, Fail> {
        let Source::File(path) = self else {
            return Ok(None);
        };
        let file = File::open(path).map_err(|e| Fail::Input(Error::from(e)))?;
        if !is_gedzip_file(path) {
            return Ok(None);
        }
        gedzip::list_gedzip(file).map(Some).map_err(gedzip_fail)
    }

    /// Refuses `-o OUT` for a command that writes GEDCOM when OUT is named
    /// `.gdz`, or is this input and this input is a GEDZIP: GEDCOM written
    /// over an archive would lose its media, and a GEDCOM file named `.gdz`
    /// would not read.
    pub fn check_gedcom_output(&self, output: Option<&str>) -> Result<(), Fail> {
        let Some(out) = output.filter(|o| *o != "-") else {
            return Ok(());
        };
        let named_gdz = std::path::Path::new(out)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gdz"));
        let over_archive = match self {
            Source::File(path) => {
                let same = |a: &str, b: &str| {
                    let (a, b) = (std::fs::canonicalize(a), std::fs::canonicalize(b));
                    matches!((a, b), (Ok(a), Ok(b)) if a == b)
                };
                same(path, out) && matches!(self.media(), Ok(Some(_)) | Err(_))
            }
            _ => false,
        };
        match named_gdz || over_archive {
            true => Err(Fail::Other(format!(
                "{out}: this command writes GEDCOM, not a GEDZIP archive; name another output \
                 (written over an archive, GEDCOM would lose its media)"
            ))),
            false => Ok(()),
        }
    }

    /// The input's bytes as they are.
    fn load_raw(&self) -> Result<Bytes, Fail> {
        let load = || -> io::Result<Bytes> {
            Ok(match self {
                Source::File(path) => {
                    let file = File::open(path)?;
                    // SAFETY: the map is only read, and only while `file` is open. If
                    // another process truncates or rewrites the file while we read it,
                    // reads may see changed bytes or fault (SIGBUS); this is the usual
                    // contract of memory-mapped input, and the parser never assumes the
                    // bytes are stable beyond bounds-checked slicing. Empty files cannot
                    // be mapped on every platform, hence the fallback.
                    match unsafe { memmap2::Mmap::map(&file) } {
                        Ok(m) if !m.is_empty() => Box::new(m),
                        _ => Box::new(std::fs::read(path)?),
                    }
                }
                Source::Stdin => {
                    let mut v = Vec::new();
                    Progress::new(None)
                        .wrap(io::stdin().lock())
                        .read_to_end(&mut v)?;
                    Box::new(v)
                }
                Source::Sample => Box::new(SAMPLE),
            })
        };
        load().map_err(|e| Fail::Input(Error::from(e)))
    }
}

/// Standard input as a command reads it: as it comes, or, when it starts
/// as a zip archive does, a GEDZIP's `gedcom.ged` (the archive read whole
/// first: a zip's directory is at its end).
pub enum Stdin {
    /// The first bytes, looked at, then the rest as it comes.
    Plain(io::Chain<io::Cursor<Vec<u8>>, io::StdinLock<'static>>),
    /// A GEDZIP's `gedcom.ged`.
    Unzipped(io::Cursor<Vec<u8>>),
}

/// Standard input, a GEDZIP on it unpacked (see [`Stdin`]).
pub fn stdin() -> Result<Stdin, Fail> {
    let io_fail = |e: io::Error| Fail::Input(Error::from(e));
    let mut lock = io::stdin().lock();
    let mut start = first_bytes(&mut lock).map_err(io_fail)?;
    if !gedzip::is_zip(&start) {
        return Ok(Stdin::Plain(io::Cursor::new(start).chain(lock)));
    }
    lock.read_to_end(&mut start).map_err(io_fail)?;
    let gdz = gedzip::read_gedzip(io::Cursor::new(start)).map_err(gedzip_fail)?;
    Ok(Stdin::Unzipped(io::Cursor::new(gdz.gedcom)))
}

impl Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stdin::Plain(r) => r.read(buf),
            Stdin::Unzipped(r) => r.read(buf),
        }
    }
}

impl io::BufRead for Stdin {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Stdin::Plain(r) => r.fill_buf(),
            Stdin::Unzipped(r) => r.fill_buf(),
        }
    }

    fn consume(&mut self, n: usize) {
        match self {
            Stdin::Plain(r) => r.consume(n),
            Stdin::Unzipped(r) => r.consume(n),
        }
    }
}

/// Whether the file at `path` is a GEDZIP (by its name, or by its first
/// bytes, [`is_gedzip`]); `false` when it cannot be read (its reader says
/// why).
pub fn is_gedzip_file(path: &str) -> bool {
    let start = std::fs::File::open(path).and_then(first_bytes);
    start.is_ok_and(|start| is_gedzip(path, &start))
}

/// The first bytes of `input` (4, or fewer at its end): enough to tell a
/// zip archive ([`gedzip::is_zip`]).
fn first_bytes(input: impl Read) -> io::Result<Vec<u8>> {
    let mut start = Vec::with_capacity(4);
    input.take(4).read_to_end(&mut start)?;
    Ok(start)
}

/// Standard input redirected from a file (`< FILE`): a handle on it (its
/// clones share its position), and where it stood.
pub struct Redirected {
    pub file: File,
    pub at: u64,
}

/// Standard input, when it is a regular file that is not a zip archive
/// (a GEDZIP is unpacked as from a pipe), for a command that reads its
/// input twice: the file itself rather than a copy.
pub fn stdin_file() -> Result<Option<Redirected>, Fail> {
    #[cfg(unix)]
    {
        use std::io::{Seek, SeekFrom};
        use std::os::fd::AsFd;
        let io_fail = |e: io::Error| Fail::Input(e.into());
        let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
            return Ok(None);
        };
        let mut file = File::from(fd);
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let Ok(at) = file.stream_position() else {
            return Ok(None);
        };
        let start = first_bytes(&mut file).map_err(io_fail)?;
        file.seek(SeekFrom::Start(at)).map_err(io_fail)?;
        Ok((!gedzip::is_zip(&start)).then_some(Redirected { file, at }))
    }
    #[cfg(not(unix))]
    Ok(None)
}

/// Whether the file `path`, whose first bytes are `start`, is read as a
/// GEDZIP archive: named `.gdz` (any case), or starting as a zip does.
fn is_gedzip(path: &str, start: &[u8]) -> bool {
    let gdz = std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gdz"));
    gdz || gedzip::is_zip(start)
}

/// A GEDZIP that could not be read, as the command's failure.
fn gedzip_fail(e: gedzip::GedzipError) -> Fail {
    match e.kind() {
        gedzip::GedzipErrorKind::NoGedcom => Fail::Other(e.to_string()),
        _ => Fail::Other(format!("cannot read it as a GEDZIP archive: {e}")),
    }
}

/// Runs `work` over `source` (a file's chunks on `--jobs` threads, or
/// standard input streamed, its batches after the HEAD on `--jobs`
/// threads), handing each chunk's output and diagnostics to `sink` in
/// document order. A failure of `sink` (an output error) stops the run and
/// is returned as it is; so does the reading error that ends a chunk,
/// after `sink` took the chunk.
pub fn run<W: Work, S: FnMut(W::Out, Vec<Diagnostic>) -> Result<(), Fail>>(
    settings: &Settings,
    source: &Source,
    work: &mut W,
    mut sink: S,
) -> Result<Done, Fail> {
    // The library's loops stop on the library's error: a sink's own
    // failure waits here while a stand-in stops them.
    let mut failed = None;
    let mut sink = |(out, error): (W::Out, Option<Error>), ds| match sink(out, ds) {
        Ok(()) => error.map_or(Ok(()), Err),
        Err(f) => {
            failed = Some(f);
            Err(Error::from(io::Error::other("output failed")))
        }
    };
    let shift = |(out, e): (W::Out, Option<Error>), off| (out, e.map(|e| e.with_line_offset(off)));
    let relative = !work.needs_line_numbers();
    let mut run = || -> Result<Done, Fail> {
        let Source::Stdin = source else {
            let file = source.load()?;
            let input = Input::with_encoding(&file[..], settings.encoding())?;
            let config = settings.config();
            let first = input.reader_with_config(config.clone());
            let version = Some((first.version(), first.version_line()));
            // The reader's: `--vers 7.0` makes an input with no CHAR line UTF-8.
            let encoding = Some(first.encoding_info().clone());
            work.prepare(&first)?;
            let work = &*work;
            let chunks = Chunks::new(&input, config)?
                .batch_bytes(settings.jobs.chunk_bytes.unwrap_or(CHUNK));
            let jobs = settings.jobs().clamp(1, chunks.len().max(1));
            let progress = Progress::new(Some(file.len() as u64));
            let ends: Vec<_> = (0..chunks.len()).map(|i| chunks.range(i).end).collect();
            let mut ends = ends.into_iter();
            let mut done = |part, ds| {
                progress.set(ends.next().unwrap_or(0) as u64);
                sink(part, ds)
            };
            let chunk = |r: &mut Reader<'_>| Ok(work.run(r));
            let summary = match relative {
                true => chunks
                    .jobs(jobs)
                    .for_each_relative(chunk, |part, ds, off| done(shift(part, off), ds)),
                false => chunks.jobs(jobs).for_each(chunk, done),
            }?;
            return Ok(Done {
                summary,
                encoding,
                version,
                bytes: file.len() as u64,
                jobs,
            });
        };
        let progress = Progress::new(None);
        let config = settings.config().encoding(settings.encoding());
        let mut stream = StreamReader::with_config(progress.wrap(stdin()?), config)
            .batch_bytes(settings.jobs.chunk_bytes.unwrap_or(BATCH))
            .jobs(settings.jobs());
        // The HEAD's batch here, `prepare`d first; the rest on --jobs threads,
        // numbered as the input's when the work needs it (the calling thread
        // counts each batch's lines as it cuts it), else each from its first
        // line and renumbered.
        let mut buf = Vec::new();
        let mut version = None;
        if let Some(reader) = stream
            .read_batch_into(&mut buf)?
            .as_mut()
            .and_then(|b| b.reader_mut())
        {
            version = Some((reader.version(), reader.version_line()));
            work.prepare(reader)?;
            let part = work.run(reader);
            sink(part, reader.drain_diagnostics().collect())?;
        }
        let work = &*work;
        let batch = |r: &mut Reader<'_>| Ok(work.run(r));
        let summary = match relative {
            true => stream.for_each_relative(batch, |part, ds, off| sink(shift(part, off), ds)),
            false => stream.for_each(batch, &mut sink),
        }?;
        Ok(Done {
            summary,
            encoding: stream.encoding_info().cloned(),
            version,
            bytes: stream.bytes_read(),
            jobs: settings.jobs(),
        })
    };
    let result = run();
    match (result, failed) {
        (_, Some(f)) => Err(f),
        (r, None) => r,
    }
}
