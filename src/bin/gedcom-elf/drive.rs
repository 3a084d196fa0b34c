//! One way to run every command: work on record-aligned chunks (in
//! parallel for files, batch by batch for standard input), results handed
//! to a sink in document order.

use std::fs::File;
use std::io::{self, BufRead};
use std::time::{Duration, Instant};

use gedcom_elf::par::Chunks;
use gedcom_elf::stream::{Batch, StreamReader};
use gedcom_elf::{Diagnostic, EncodingInfo, Error, Event, Input, ReadStats, Reader};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::Options;

/// Bytes per chunk when reading a file.
const CHUNK: usize = 2 << 20;

/// The bytes of a file: memory-mapped, or read when mapping fails.
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl FileBytes {
    pub fn open(path: &str) -> io::Result<FileBytes> {
        let file = File::open(path)?;
        // SAFETY: the map is only read, and only while `file` is open. If
        // another process truncates or rewrites the file while we read it,
        // reads may see changed bytes or fault (SIGBUS); this is the usual
        // contract of memory-mapped input, and the parser never assumes the
        // bytes are stable beyond bounds-checked slicing. Empty files cannot
        // be mapped on every platform, hence the fallback.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) if !m.is_empty() => Ok(FileBytes::Mapped(m)),
            _ => Ok(FileBytes::Read(std::fs::read(path)?)),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// Something that yields events: a chunk's reader or a stream's batch.
pub trait Events<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>, Error>;
}

impl<'a> Events<'a> for Reader<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>, Error> {
        Reader::next_event(self)
    }
}

impl<'a> Events<'a> for Batch<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>, Error> {
        Batch::next_event(self)
    }
}

/// A command's work on one chunk. A reading error ends the chunk: the
/// output keeps what came before it, and the sink reports the error after
/// writing that output.
pub trait Work: Sync {
    type Out: Send;
    fn run<'a, E: Events<'a>>(&self, events: &mut E) -> Self::Out;
}

/// What a whole run leaves.
pub struct Done {
    pub stats: ReadStats,
    pub encoding: Option<EncodingInfo>,
    pub bytes: u64,
    /// End-of-input diagnostics (a missing TRLR).
    pub diagnostics: Vec<Diagnostic>,
}

/// A progress bar on stderr: drawn only when stderr is a terminal and the
/// run has taken more than a second.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    shown: bool,
}

impl Progress {
    pub fn new(total: Option<u64>) -> Progress {
        let bar = match total {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
        };
        let style = if total.is_some() {
            "{bytes}/{total_bytes} {bar:30} {bytes_per_sec}, eta {eta}"
        } else {
            "{bytes} {spinner} {bytes_per_sec}"
        };
        if let Ok(s) = ProgressStyle::with_template(style) {
            bar.set_style(s);
        }
        Progress {
            bar,
            started: Instant::now(),
            shown: false,
        }
    }

    pub fn set(&mut self, done: u64) {
        self.bar.set_position(done);
        if !self.shown && self.started.elapsed() > Duration::from_secs(1) {
            self.shown = true;
            // indicatif draws nothing when stderr is not a terminal.
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Runs `work` over the input named by `opts.file` (a file, or `-` for
/// standard input, which is streamed), handing each chunk's output and
/// diagnostics to `sink` in document order.
pub fn run<W, S>(opts: &Options, work: &W, mut sink: S) -> Result<Done, Error>
where
    W: Work,
    S: FnMut(W::Out, Vec<Diagnostic>) -> Result<(), Error>,
{
    if opts.file == "-" && opts.bundled.is_none() {
        let stdin = io::stdin();
        return stream(opts, stdin.lock(), work, sink);
    }
    let file = match opts.bundled {
        Some(b) => FileBytes::Read(b.to_vec()),
        None => FileBytes::open(&opts.file)?,
    };
    let bytes = file.bytes();
    let input = Input::with_encoding(bytes, opts.encoding)?;
    let mut progress = Progress::new(Some(input.bytes().len() as u64));
    let chunks = Chunks::new(&input, opts.config(), CHUNK)?;
    let ranges: Vec<_> = (0..chunks.len()).map(|i| chunks.range(i)).collect();
    let mut next = 0;
    let summary = chunks.for_each(
        opts.jobs,
        |r| Ok(work.run(r)),
        |out, ds| {
            progress.set(ranges.get(next).map_or(0, |r| r.end as u64));
            next += 1;
            sink(out, ds)
        },
    );
    progress.finish();
    let summary = summary?;
    Ok(Done {
        stats: summary.stats,
        encoding: Some(input.encoding_info().clone()),
        bytes: bytes.len() as u64,
        diagnostics: summary.diagnostics,
    })
}

fn stream<R, W, S>(opts: &Options, source: R, work: &W, mut sink: S) -> Result<Done, Error>
where
    R: BufRead,
    W: Work,
    S: FnMut(W::Out, Vec<Diagnostic>) -> Result<(), Error>,
{
    let mut stream =
        StreamReader::with_config(source, opts.config().encoding(opts.encoding)).batch_size(CHUNK);
    let mut progress = Progress::new(None);
    let mut buf = Vec::new();
    let mut bytes = 0u64;
    loop {
        let Some(mut batch) = stream.read_batch_into(&mut buf)? else {
            break;
        };
        let out = work.run(&mut batch);
        let ds: Vec<Diagnostic> = batch.drain_diagnostics().collect();
        drop(batch);
        bytes += buf.len() as u64;
        progress.set(bytes);
        if let Err(e) = sink(out, ds) {
            progress.finish();
            return Err(e);
        }
    }
    progress.finish();
    let diagnostics = stream.drain_diagnostics().collect();
    Ok(Done {
        stats: stream.stats().cloned().unwrap_or_default(),
        encoding: stream.encoding_info().cloned(),
        bytes,
        diagnostics,
    })
}
