//! Parallel reading of record-aligned chunks.
//!
//! A level-0 line closes every open structure, so a buffer cut just before
//! a well-formed level-0 line (whose tag is not `CONT`, `CONC` or `ERROR`)
//! reads, chunk by chunk, into exactly the events of the whole. [`Chunks`]
//! finds such cuts, hands out a [`Reader`] per chunk (line numbers and byte
//! offsets are global), and [`Chunks::map`] runs a function over every chunk
//! on [`jobs`](Chunks::jobs) threads, returning results, diagnostics and
//! counters in document order, equal to a sequential read.
//!
//! ```
//! use gedcom_elf::par::Chunks;
//! use gedcom_elf::{Event, Input, ReaderConfig};
//!
//! let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
//! for i in 0..1000 {
//!     text += &format!("0 @I{i}@ INDI\n1 NAME Person {i}\n");
//! }
//! text += "0 TRLR\n";
//! let input = Input::new(text.as_bytes())?;
//! let chunks = Chunks::new(&input, ReaderConfig::new())?.batch_bytes(4096).jobs(2);
//! assert!(chunks.len() > 1);
//! let out = chunks.map(|reader| {
//!     let mut names = 0u32;
//!     while let Some(e) = reader.next_event()? {
//!         if let Event::Begin(b) = e {
//!             names += u32::from(b.tag == "NAME");
//!         }
//!     }
//!     Ok(names)
//! })?;
//! assert_eq!(out.results.iter().sum::<u32>(), 1000);
//! assert_eq!(out.stats.structures, 2003);
//! assert!(out.diagnostics.is_empty());
//! # Ok::<(), gedcom_elf::Error>(())
//! ```

use std::sync::Mutex;

use crate::diag::{Diagnostic, DiagnosticKind, Error, Position};
use crate::input::Input;
use crate::read::{ReadState, ReadStats, Reader, ReaderConfig};
use crate::scan::count_breaks;
use crate::scan::Lines;
use crate::source::{next_cut, Cut};

/// Offsets where `input` may be cut into chunks of at least `target`
/// bytes, each starting at a well-formed level-0 line not tagged `CONT`,
/// `CONC` or `ERROR` and ending after its own first line. The first chunk
/// starts at `from`; the returned offsets are the starts of the others.
/// (The rule that cuts a stream into batches, with all of the input there.)
pub fn record_boundaries(input: &[u8], from: usize, target: usize) -> Vec<usize> {
    let target = target.max(1);
    let mut cuts = Vec::new();
    let mut start = from.min(input.len());
    while let Cut::At(c) = next_cut(&input[start..], target, true) {
        start += c;
        cuts.push(start);
    }
    cuts
}

/// The end of the first record of `bytes`: where a chunk after it may
/// start (see [`record_boundaries`]), or the end of `bytes`.
pub(crate) fn first_record_end(bytes: &[u8]) -> usize {
    match next_cut(bytes, 0, true) {
        Cut::At(c) => c,
        _ => bytes.len(),
    }
}

/// A reader of the first record of what `reader` reads (which must not
/// have started): for reading the HEAD's schema without the look over the
/// whole input that a reader makes when it starts.
pub(crate) fn first_record_reader(reader: Reader<'_>) -> Reader<'_> {
    let end = first_record_end(reader.input());
    reader.first_chunk(end)
}

/// An input split into record-aligned chunks of about
/// [`batch_bytes`](Chunks::batch_bytes), ready to be read on
/// [`jobs`](Chunks::jobs) threads.
#[derive(Debug)]
pub struct Chunks<'a> {
    bytes: &'a [u8],
    /// `(start, end, first line number)` of each chunk (the number is 1 for
    /// every chunk when they are read with relative numbering).
    ranges: Vec<(usize, usize, u64)>,
    /// The state every chunk but the first starts from.
    template: ReadState,
    /// The reader of the whole input, not started: chunk 0's reads the HEAD.
    pub(crate) first: Reader<'a>,
    pub(crate) jobs: usize,
    /// As set by [`Chunks::batch_bytes`]; the default depends on `jobs`.
    pub(crate) batch_bytes: Option<usize>,
}

/// What [`Chunks::map`] returns: per-chunk results and the merged
/// diagnostics and counters, all in document order.
#[derive(Debug)]
pub struct Output<T> {
    /// The function's result for each chunk, in document order.
    pub results: Vec<T>,
    /// Every diagnostic the chunks' readers still held when the function
    /// returned, in document order, as a sequential read reports them.
    pub diagnostics: Vec<Diagnostic>,
    /// Counters summed over the chunks.
    pub stats: ReadStats,
}

impl<'a> Chunks<'a> {
    /// Splits `input` into chunks of the default size, to be read on one
    /// thread (see [`Chunks::batch_bytes`] and [`Chunks::jobs`]). The HEAD
    /// is read first (its check, its schema's escape table), so every chunk
    /// knows them.
    ///
    /// # Errors
    /// As [`Reader::next_event`]: the input does not start with `0 HEAD`, or
    /// its encoding is not supported.
    pub fn new(input: &'a Input<'_>, config: ReaderConfig) -> Result<Self, Error> {
        Chunks::from_reader(input.bytes(), input.reader_with_config(config))
    }

    fn from_reader(bytes: &'a [u8], first: Reader<'a>) -> Result<Self, Error> {
        // The HEAD alone: a reader's start looks over its whole window once.
        let template = first_record_reader(first.clone()).template()?;
        let mut chunks = Chunks {
            bytes,
            ranges: Vec::new(),
            template,
            first,
            jobs: 1,
            batch_bytes: None,
        };
        chunks.cut();
        Ok(chunks)
    }

    /// Cuts chunks of about `bytes` bytes each, at least one record (the
    /// first holds at least the HEAD). Default: the input's length over 8
    /// chunks per job, between 64 KiB and 4 MiB. The results are the same
    /// whatever the chunks.
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch_bytes = Some(bytes.max(1));
        self.cut();
        self
    }

    /// Reads the chunks on `jobs` threads (default 1: on the calling
    /// thread; never more threads than chunks).
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        if self.batch_bytes.is_none() {
            self.cut();
        }
        self
    }

    fn cut(&mut self) {
        let default = || (self.bytes.len() / (8 * self.jobs)).clamp(64 << 10, 4 << 20);
        let target = self.batch_bytes.unwrap_or_else(default);
        let mut start = 0;
        self.ranges.clear();
        let cuts = record_boundaries(self.bytes, 0, target);
        for &cut in cuts.iter().chain(std::iter::once(&self.bytes.len())) {
            // Line numbers are counted later, on all the threads.
            self.ranges.push((start, cut, 0));
            start = cut;
        }
    }

    /// Numbers each chunk's first line, counting line breaks on `jobs`
    /// threads (the one pass over all the bytes before reading starts).
    fn number_lines(&mut self, jobs: usize) {
        let bytes = self.bytes;
        let ranges = &self.ranges;
        let counts = crate::ordered::par_ranges(ranges.len(), jobs, |share| {
            let chunks = &ranges[share];
            chunks
                .iter()
                .map(|&(s, e, _)| count_breaks(&bytes[s..e]))
                .collect::<Vec<_>>()
        })
        .concat();
        let mut line = 1;
        for (r, c) in self.ranges.iter_mut().zip(counts) {
            r.2 = line;
            line += c;
        }
    }

    /// The GEDCOM version every chunk is read as: the HEAD's (see
    /// [`Reader::version`]), carried to each chunk's reader.
    pub fn version(&self) -> crate::Version {
        self.template.version()
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Always `false`: there is at least one chunk.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Byte range of chunk `i` in the input's bytes.
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        let (s, e, _) = self.ranges[i];
        s..e
    }

    /// A reader of chunk `i` alone (offsets are global; line numbers are
    /// global once [`Chunks::number_lines`] ran, relative otherwise).
    /// Chunk 0 is the one that read the HEAD.
    fn reader(&self, i: usize) -> Reader<'a> {
        let (start, end, line) = self.ranges[i];
        let mut state = self.template.clone();
        state.next_line = line;
        Reader::resume(self.bytes, start, end, state, 0)
    }

    /// Runs `work` on a reader of every chunk, on [`jobs`](Chunks::jobs)
    /// threads, and merges what they leave in document order.
    /// Diagnostics are those still in each reader when `work` returns (so
    /// `work` should not drain them), fixed up across chunks so that they
    /// equal a sequential read's: one `after-trlr` at the first line after
    /// the first `TRLR`, and `missing-trlr` when no chunk had one.
    ///
    /// Every result is kept until the end; see [`Chunks::for_each`] to
    /// consume them in order as they come, in bounded memory.
    ///
    /// # Errors
    /// The first error `work` returns, in document order.
    pub fn map<T, F>(self, work: F) -> Result<Output<T>, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'a>) -> Result<T, Error> + Sync,
    {
        let mut results = Vec::with_capacity(self.len());
        let mut diagnostics = Vec::new();
        let summary = self.for_each(work, |t, ds| {
            results.push(t);
            diagnostics.extend(ds);
            Ok(())
        })?;
        diagnostics.extend(summary.diagnostics);
        Ok(Output {
            results,
            diagnostics,
            stats: summary.stats,
        })
    }

    /// Like [`Chunks::map`], but hands each chunk's result and diagnostics
    /// to `sink` in document order as soon as the chunks before it are done.
    /// At most `2 * jobs` chunks are in flight, so memory stays bounded by
    /// the chunk size, whatever the input's size.
    ///
    /// # Errors
    /// The first error of `work` or `sink`, in document order.
    pub fn for_each<T, F, S>(self, work: F, mut sink: S) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'a>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>) -> Result<(), Error>,
    {
        self.run(
            Numbering::Global,
            |_, reader, _| work(reader),
            |t, ds, _| sink(t, ds),
        )
    }

    /// Like [`Chunks::for_each`], without the pass over all of the input
    /// that numbers each chunk's first line before any chunk is read: each
    /// chunk is read numbered from line 1, and `sink` also gets the number
    /// to add to the line numbers `work` saw (the lines of the chunks before
    /// it). The diagnostics it is handed, an error `work` returns and the
    /// [`Summary`] are renumbered already. It saved about 6% of
    /// `gedcom-elf count --jobs 2` on the 300 MB generated file; it is the
    /// command-line tool's, hidden from the API.
    #[doc(hidden)]
    pub fn for_each_relative<T, F, S>(self, work: F, sink: S) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'a>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>, u64) -> Result<(), Error>,
    {
        self.run(Numbering::Relative, |_, reader, _| work(reader), sink)
    }

    /// Reads the chunks numbered as `numbering` says, for a `work` that is
    /// also told the chunk's index and may drain the reader's diagnostics as
    /// it goes into the vector it is given (those still in the reader at the
    /// end follow them): the chunk's diagnostics, fixed up and handed to
    /// `sink` with the chunk's line offset (0 when numbered globally).
    pub(crate) fn run<T, F, S>(
        mut self,
        numbering: Numbering,
        work: F,
        mut sink: S,
    ) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(usize, &mut Reader<'a>, &mut Vec<Diagnostic>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>, u64) -> Result<(), Error>,
    {
        let n = self.ranges.len();
        let jobs = self.jobs.clamp(1, n.max(1));
        if numbering == Numbering::Global {
            self.number_lines(jobs);
        } else {
            for r in &mut self.ranges {
                r.2 = 1;
            }
        }
        let mut merger = Merger::new();
        let first_end = self.ranges.first().map_or(self.bytes.len(), |r| r.1);
        let first = Mutex::new(Some(self.first.clone().first_chunk(first_end)));
        let this = &self;
        let run = |i: usize| {
            let taken = if i == 0 {
                first.lock().ok().and_then(|mut f| f.take())
            } else {
                None
            };
            let mut reader = taken.unwrap_or_else(|| this.reader(i));
            let mut diagnostics = Vec::new();
            let result = work(i, &mut reader, &mut diagnostics);
            diagnostics.extend(reader.drain_diagnostics());
            ChunkOut {
                result,
                diagnostics,
                state: reader.into_state(),
            }
        };
        // Relative numbering: the lines of the chunks merged so far. Chunk
        // 0 read the HEAD numbered from line 1, as a whole read would.
        let mut offset = 0u64;
        let emit = |i: usize, mut out: ChunkOut<T>| -> Result<(), Error> {
            let (start, _, line) = self.ranges[i];
            let (blank, skip) = first_line_string(&self.bytes[start..]);
            let off = match numbering {
                Numbering::Global => 0,
                Numbering::Relative => {
                    let off = offset;
                    offset = off.saturating_add(out.state.next_line.saturating_sub(1));
                    if off > 0 {
                        out.shift_lines(off);
                    }
                    off
                }
            };
            let (t, ds) = merger.push(
                out,
                (line + blank).saturating_add(off),
                (start + skip) as u64,
            );
            sink(t?, ds, off)
        };
        if !crate::ordered::run_in_order(n, jobs, run, emit)? {
            return Err(Error::internal("a chunk was not read"));
        }
        Ok(merger.finish())
    }
}

/// Runs `work` on each item `items` gives (taken on the calling thread as
/// there is room) on up to `jobs` threads of the crate's one ordered pool,
/// and hands the results to `emit` in the items' order; at most two items
/// per thread are in flight. The command-line tool's (`table` reads many
/// small files side by side with it), hidden from the API.
///
/// # Errors
/// The first error `emit` returns: no further item is taken.
#[doc(hidden)]
pub fn map_in_order<I, T, E, W, S>(
    jobs: usize,
    items: impl Iterator<Item = I>,
    work: W,
    emit: S,
) -> Result<(), E>
where
    I: Send,
    T: Send,
    W: Fn(I) -> T + Sync,
    S: FnMut(T) -> Result<(), E>,
{
    crate::ordered::map_in_order(jobs, items, work, emit)
}

/// How the chunks' lines are numbered while they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Numbering {
    /// Globally: a pass over the input counts each chunk's first line first.
    Global,
    /// From line 1 in every chunk, renumbered as the chunks are merged.
    Relative,
}

/// What [`Chunks::for_each`] (and
/// [`StreamReader::for_each`](crate::stream::StreamReader::for_each))
/// returns after the last chunk.
#[derive(Debug)]
pub struct Summary {
    /// End-of-input diagnostics (a missing `TRLR`).
    pub diagnostics: Vec<Diagnostic>,
    /// Counters summed over the chunks.
    pub stats: ReadStats,
}

/// Merges chunk outputs in document order: what a chunk read with a
/// template [`ReadState`] gives, made what a sequential read gives (the
/// after-trlr warning once, at the right line; the counters; the end-of-input
/// check). Shared with [`Records`](crate::tree::Records)' parallel batches.
pub(crate) struct Merger {
    stats: ReadStats,
    trlr_seen: bool,
    warned: bool,
    /// The number and byte offset of the last line merged.
    last: Option<(u64, u64)>,
}

impl Merger {
    pub(crate) fn new() -> Self {
        Merger {
            stats: ReadStats {
                diagnostics: vec![0; DiagnosticKind::ALL.len()],
                ..ReadStats::default()
            },
            trlr_seen: false,
            warned: false,
            last: None,
        }
    }

    /// Takes what a sequential read of the input's start left (counters,
    /// whether `TRLR` was seen and warned after), its diagnostics given
    /// already, as the first chunk merged.
    pub(crate) fn continue_from(&mut self, state: &ReadState) {
        self.merge(state, &mut Vec::new(), 1, 0);
    }

    /// Takes the next chunk's output; `first_line` and `start` locate its
    /// first line. Its diagnostics come back fixed up even when its result
    /// is an error (those the chunk gave before it).
    pub(crate) fn push<T>(
        &mut self,
        out: ChunkOut<T>,
        first_line: u64,
        start: u64,
    ) -> (Result<T, Error>, Vec<Diagnostic>) {
        let ChunkOut {
            result,
            mut diagnostics,
            state,
        } = out;
        self.merge(&state, &mut diagnostics, first_line, start);
        (result, diagnostics)
    }

    /// Merges a chunk's final state, fixing up its diagnostics `ds`.
    fn merge(&mut self, state: &ReadState, ds: &mut Vec<Diagnostic>, first_line: u64, start: u64) {
        let s = state.stats();
        self.stats.lines += s.lines;
        self.stats.structures += s.structures;
        self.stats.max_level = self.stats.max_level.max(s.max_level);
        self.stats.diagnostics_dropped += s.diagnostics_dropped;
        for (t, c) in self.stats.diagnostics.iter_mut().zip(&s.diagnostics) {
            *t += c;
        }
        // A sequential read warns once, at the first line after the first
        // TRLR; a chunk's own reader knows only its own TRLR.
        let after = DiagnosticKind::AfterTrlr.index();
        self.stats.diagnostics[after] -= s.diagnostics[after];
        if self.warned {
            ds.retain(|d| d.kind != DiagnosticKind::AfterTrlr);
        } else if self.trlr_seen {
            ds.retain(|d| d.kind != DiagnosticKind::AfterTrlr);
            let position = Position {
                line: first_line,
                byte: start,
            };
            ds.insert(0, Diagnostic::after_trlr(position));
        }
        let warned_here = ds.iter().any(|d| d.kind == DiagnosticKind::AfterTrlr)
            || (!self.warned && s.diagnostics[after] > 0 && !self.trlr_seen);
        if warned_here && !self.warned {
            self.stats.diagnostics[after] = 1;
        }
        self.warned |= warned_here;
        self.trlr_seen |= state.seen_trlr();
        self.last = Some((state.last_line(), state.last_byte()));
    }

    /// Whether a chunk merged so far read a `TRLR` record.
    pub(crate) fn trlr_seen(&self) -> bool {
        self.trlr_seen
    }

    pub(crate) fn finish(mut self) -> Summary {
        let mut diagnostics = Vec::new();
        if let Some((line, byte)) = self.last.filter(|_| !self.trlr_seen) {
            self.stats.diagnostics[DiagnosticKind::MissingTrlr.index()] += 1;
            diagnostics.push(Diagnostic::missing_trlr(Position { line, byte }));
        }
        Summary {
            diagnostics,
            stats: self.stats,
        }
    }
}

/// Where a chunk's first line string is: the blank lines before it and
/// its byte offset in the chunk (after leading whitespace), as the reader
/// would report them.
pub(crate) fn first_line_string(bytes: &[u8]) -> (u64, usize) {
    Lines::new(bytes)
        .next()
        .map_or((0, 0), |l| (l.number - 1, l.start))
}

pub(crate) struct ChunkOut<T> {
    pub(crate) result: Result<T, Error>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) state: ReadState,
}

impl<T> ChunkOut<T> {
    /// Adds `off` to every line number of a chunk read numbered from line 1.
    pub(crate) fn shift_lines(&mut self, off: u64) {
        if let Err(e) = &mut self.result {
            e.shift_line(off);
        }
        for d in &mut self.diagnostics {
            d.position.line = d.position.line.saturating_add(off);
        }
        self.state.shift_lines(off);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every Begin's line and every diagnostic, numbered globally or from
    /// each chunk's first line and renumbered at the merge.
    fn lines_and_diagnostics(
        input: &[u8],
        numbering: Numbering,
        config: ReaderConfig,
        jobs: usize,
    ) -> Result<(Vec<u64>, Vec<Diagnostic>, ReadStats), String> {
        let chunks = Chunks::from_reader(input, Reader::with_config(input, config))
            .map_err(|e| e.to_string())?
            .batch_bytes(1)
            .jobs(jobs);
        let mut lines = Vec::new();
        let mut diagnostics = Vec::new();
        let work = |_: usize, r: &mut Reader<'_>, _: &mut Vec<Diagnostic>| {
            let mut begun = Vec::new();
            while let Some(e) = r.next_event()? {
                if let crate::Event::Begin(b) = e {
                    begun.push(b.line);
                }
            }
            Ok(begun)
        };
        let summary = chunks
            .run(numbering, work, |begun, ds, off| {
                lines.extend(begun.iter().map(|l| l + off));
                diagnostics.extend(ds);
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        diagnostics.extend(summary.diagnostics);
        Ok((lines, diagnostics, summary.stats))
    }

    #[test]
    fn relative_numbering_merges_to_the_global_numbers() {
        let base = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME a\n9 DEEP x\n\n\nnot a line\n\
                    0 @N1@ NOTE a\n1 CONT b\n2 CONC c\n  \n0 CONT stray\n0 TRLR\n\n0 @I2@ INDI\n1 X\n";
        let variants = [
            base.to_string(),
            base.replace('\n', "\r\n"),
            base.replace('\n', "\r"),
            // No TRLR at all: the missing-trlr diagnostic names the last line.
            base.replace("0 TRLR", "0 @I3@ INDI"),
        ];
        for input in &variants {
            for config in [ReaderConfig::new(), ReaderConfig::new().strict(true)] {
                for jobs in [1, 2] {
                    let global = lines_and_diagnostics(
                        input.as_bytes(),
                        Numbering::Global,
                        config.clone(),
                        jobs,
                    );
                    let relative = lines_and_diagnostics(
                        input.as_bytes(),
                        Numbering::Relative,
                        config.clone(),
                        jobs,
                    );
                    assert_eq!(global, relative, "{input:?} jobs {jobs}");
                    if let Ok((lines, ds, _)) = &global {
                        assert!(lines.len() > 10 && !ds.is_empty(), "{input:?}");
                    }
                }
            }
        }
        // The lines are those of a sequential read.
        let input = variants[0].as_bytes();
        let sequential: Vec<u64> = Reader::from_slice(input)
            .filter_map(|e| match e.unwrap() {
                crate::Event::Begin(b) => Some(b.line),
                crate::Event::End(_) => None,
            })
            .collect();
        let (lines, _, _) =
            lines_and_diagnostics(input, Numbering::Relative, ReaderConfig::new(), 2).unwrap();
        assert_eq!(lines, sequential);
    }

    #[test]
    fn boundaries_are_regular_level_zero_lines() {
        let input = b"0 HEAD\n1 X\n0 CONT a\n 0 @I1@ INDI\n1 NAME n\n0 ERROR e\n0 TRLR\n";
        let cuts = record_boundaries(input, 7, 1);
        let starts: Vec<&[u8]> = cuts.iter().map(|&c| &input[c..c + 6]).collect();
        assert_eq!(starts, [&b" 0 @I1"[..], b"0 TRLR"]);
    }
}
