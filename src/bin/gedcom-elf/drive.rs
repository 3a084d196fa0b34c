//! One way to run every command: work on record-aligned chunks (in
//! parallel for files; batch by batch for standard input, the batches after
//! the HEAD in parallel), results handed to a sink in document order.
//!
//! A file is memory-mapped and cut into chunks of about `--chunk-bytes`
//! (default 2 MiB) read on `--jobs` threads; standard input is streamed in
//! batches of about `--chunk-bytes` (default 64 KiB), so memory stays
//! bounded whatever the input's size.

use std::fs::File;
use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc;
use std::time::Duration;

use gedcom_elf::par::Chunks;
use gedcom_elf::stream::{Batch, StreamReader};
use gedcom_elf::{Diagnostic, EncodingInfo, Error, Event, Input, ReadStats, Reader};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::Options;

/// Bytes per chunk when reading a file (unless `--chunk-bytes`).
pub const CHUNK: usize = 2 << 20;

/// Bytes per batch when streaming standard input (unless `--chunk-bytes`):
/// small, so that a batch and its output stay in a few MiB.
pub const BATCH: usize = 64 << 10;

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
    /// The reader (a batch's, until the batch ends).
    fn reader(&self) -> Option<&Reader<'a>>;
    /// Diagnostics reported and not yet taken. (Not for work run over
    /// chunks: [`Chunks::for_each`] takes them after the work.)
    fn take_diagnostics(&mut self) -> Vec<Diagnostic>;
}

impl<'a> Events<'a> for Reader<'a> {
    #[inline]
    fn next_event(&mut self) -> Result<Option<Event<'a>>, Error> {
        Reader::next_event(self)
    }

    fn reader(&self) -> Option<&Reader<'a>> {
        Some(self)
    }

    fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        // Asked after every event: nothing to collect, most of the time.
        if self.diagnostics().is_empty() {
            return Vec::new();
        }
        self.drain_diagnostics().collect()
    }
}

impl<'a> Events<'a> for Batch<'a> {
    #[inline]
    fn next_event(&mut self) -> Result<Option<Event<'a>>, Error> {
        Batch::next_event(self)
    }

    fn reader(&self) -> Option<&Reader<'a>> {
        Batch::reader(self)
    }

    fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        if !self.has_diagnostics() {
            return Vec::new();
        }
        self.drain_diagnostics().collect()
    }
}

/// A command's work on one chunk. A reading error ends the chunk: the
/// output keeps what came before it, and the sink reports the error after
/// writing that output.
pub trait Work: Sync {
    type Out: Send;
    /// What one piece of input leaves for the next: a fresh state for each
    /// chunk of a file, one state carried across all of a stream's batches.
    type State;

    /// Looks at the document before any chunk is read: `reader` is a
    /// reader of the whole input (a file) or of the first batch (a
    /// stream) that has not returned an event yet. For what every chunk
    /// needs to know (the HEAD's schema).
    fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        let _ = reader;
        Ok(())
    }

    /// A fresh state.
    fn state(&self) -> Self::State;

    /// Whether `run` needs the events' line numbers to be the input's. When
    /// it does not, a file's chunks are read numbered each from its own
    /// first line ([`Chunks::for_each_relative`]: no pass over the whole
    /// file to number them first) and [`Work::shift_lines`] renumbers each
    /// output as it is merged.
    fn needs_line_numbers(&self) -> bool {
        true
    }

    /// Adds `off` to the line numbers an output carries (its error), for a
    /// chunk read numbered from its first line.
    fn shift_lines(out: Self::Out, off: u64) -> Self::Out {
        let _ = off;
        out
    }

    fn run<'a, E: Events<'a>>(&self, events: &mut E, state: &mut Self::State) -> Self::Out;
}

/// What a whole run leaves.
pub struct Done {
    pub stats: ReadStats,
    pub encoding: Option<EncodingInfo>,
    pub bytes: u64,
    /// End-of-input diagnostics (a missing TRLR).
    pub diagnostics: Vec<Diagnostic>,
}

/// A progress bar on stderr, drawn only when stderr is a terminal, and
/// only once the work has taken more than a second (a timer thread shows
/// it, so that one long call, such as a tree build, shows it too).
pub struct Progress {
    bar: ProgressBar,
    stop: Option<mpsc::Sender<()>>,
    timer: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Bytes done of `total` (bar, rate, ETA), or of an unknown total
    /// (bytes and rate): call [`Progress::set`] as the work goes.
    pub fn new(total: Option<u64>) -> Progress {
        let (bar, style) = match total {
            Some(n) => (
                ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
                "{bytes}/{total_bytes} {bar:30} {bytes_per_sec}, eta {eta} {msg}",
            ),
            None => (
                ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
                "{bytes} {spinner} {bytes_per_sec} {msg}",
            ),
        };
        Progress::start(bar, style, false)
    }

    /// One long step whose progress cannot be seen from outside (`msg`,
    /// a spinner and the time so far).
    pub fn step(msg: String) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_message(msg);
        Progress::start(bar, "{msg} {spinner} {elapsed}", true)
    }

    fn start(bar: ProgressBar, style: &str, tick: bool) -> Progress {
        if let Ok(s) = ProgressStyle::with_template(style) {
            bar.set_style(s);
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let timer = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(Duration::from_secs(1))
                {
                    // Hidden unless stderr is a terminal (and TERM is not dumb).
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    if tick {
                        shown.enable_steady_tick(Duration::from_millis(200));
                    }
                    let _ = stopped.recv();
                }
            })
            .ok();
        Progress {
            bar,
            stop: Some(stop),
            timer,
        }
    }

    /// Bytes done so far.
    pub fn set(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// What is being done now (shown after the numbers).
    pub fn message(&self, msg: &'static str) {
        self.bar.set_message(msg);
    }

    /// The bar as a writer's byte counter: see [`Counted`].
    pub fn bar(&self) -> ProgressBar {
        self.bar.clone()
    }

    /// Clears the bar (if it was shown) and stops its timer.
    pub fn finish(mut self) {
        self.close();
    }

    fn close(&mut self) {
        self.stop.take();
        if let Some(t) = self.timer.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.close();
    }
}

/// A writer that moves a progress bar by the bytes written through it.
pub struct Counted<W> {
    pub inner: W,
    pub bar: ProgressBar,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Runs `work` over the input named by `opts.file` (a file, or `-` for
/// standard input, which is streamed), handing each chunk's output and
/// diagnostics to `sink` in document order.
pub fn run<W, S>(opts: &Options, work: &mut W, mut sink: S) -> Result<Done, Error>
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
    let progress = Progress::new(Some(input.bytes().len() as u64));
    work.prepare(&input.reader_with_config(opts.config()))?;
    let work = &*work;
    let chunks = Chunks::new(&input, opts.config(), opts.chunk.unwrap_or(CHUNK))?;
    let ranges: Vec<_> = (0..chunks.len()).map(|i| chunks.range(i)).collect();
    let mut next = 0;
    let mut done = |out, ds| {
        progress.set(ranges.get(next).map_or(0, |r| r.end as u64));
        next += 1;
        sink(out, ds)
    };
    let chunk = |r: &mut Reader<'_>| Ok(work.run(r, &mut work.state()));
    let summary = if work.needs_line_numbers() {
        chunks.for_each(opts.jobs, chunk, done)
    } else {
        chunks.for_each_relative(opts.jobs, chunk, |out, ds, off| {
            done(W::shift_lines(out, off), ds)
        })
    };
    progress.finish();
    let summary = summary?;
    Ok(Done {
        stats: summary.stats,
        encoding: Some(input.encoding_info().clone()),
        bytes: bytes.len() as u64,
        diagnostics: summary.diagnostics,
    })
}

fn stream<R, W, S>(opts: &Options, source: R, work: &mut W, mut sink: S) -> Result<Done, Error>
where
    R: BufRead,
    W: Work,
    S: FnMut(W::Out, Vec<Diagnostic>) -> Result<(), Error>,
{
    let progress = Progress::new(None);
    // Batches after the HEAD go to --jobs threads, numbered as the input's
    // when the work needs it (the calling thread counts each batch's lines
    // as it cuts it), else each from its first line and renumbered.
    let parallel = opts.jobs > 1;
    let source = Tally {
        inner: source,
        bar: progress.bar.clone(),
        done: 0,
    };
    let mut stream = StreamReader::with_config(source, opts.config().encoding(opts.encoding))
        .batch_size(opts.chunk.unwrap_or(BATCH));
    let mut buf = Vec::new();
    let mut bytes = 0u64;
    let mut state = None;
    loop {
        let Some(mut batch) = stream.read_batch_into(&mut buf)? else {
            break;
        };
        let state = match state.as_mut() {
            Some(s) => s,
            None => {
                if let Some(r) = batch.reader() {
                    work.prepare(r)?;
                }
                state.insert(work.state())
            }
        };
        let out = work.run(&mut batch, state);
        let ds: Vec<Diagnostic> = batch.drain_diagnostics().collect();
        drop(batch);
        bytes += buf.len() as u64;
        sink(out, ds)?;
        if parallel {
            // The HEAD was read (and `prepare`d) here; now the rest.
            let work = &*work;
            let run = |r: &mut Reader<'_>| Ok(work.run(r, &mut work.state()));
            let summary = if work.needs_line_numbers() {
                stream.for_each(opts.jobs, run, &mut sink)?
            } else {
                stream.for_each_relative(opts.jobs, run, |out, ds, off| {
                    sink(W::shift_lines(out, off), ds)
                })?
            };
            progress.finish();
            return Ok(Done {
                stats: summary.stats,
                encoding: stream.encoding_info().cloned(),
                bytes: stream.bytes_read(),
                diagnostics: summary.diagnostics,
            });
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

/// A source that moves a progress bar by the bytes taken from it.
struct Tally<R> {
    inner: R,
    bar: ProgressBar,
    done: u64,
}

impl<R: io::Read> io::Read for Tally<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.done += n as u64;
        self.bar.set_position(self.done);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tally<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.done += n as u64;
        self.bar.set_position(self.done);
    }
}

/// Reads standard input whole, moving a progress bar by the bytes read.
pub fn read_stdin() -> io::Result<Vec<u8>> {
    let progress = Progress::new(None);
    progress.message("reading standard input");
    let mut v = Vec::new();
    let mut stdin = io::stdin().lock();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                v.extend_from_slice(&buf[..n]);
                progress.set(v.len() as u64);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    progress.finish();
    Ok(v)
}
