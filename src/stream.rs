//! Streaming input: read any [`BufRead`] (stdin, pipes, sockets) in
//! batches of whole records, with bounded memory.
//!
//! [`StreamReader::read_batch_into`] fills a buffer the caller lends with the
//! next batch of whole records and returns a [`Batch`]: a reader whose events
//! borrow that buffer. Batches are cut just before level-0 lines, and the
//! reader's small carried state crosses each cut, so the events, diagnostics
//! and line numbers are exactly those of [`Reader`] over the whole input.
//! Memory stays at about one batch (64 KiB by default) plus the largest
//! record. [`StreamReader::for_each_relative`] reads the batches on several
//! threads instead (then about `2 * jobs` batches are held).
//!
//! # Why not an `Iterator`, and why batches
//! An event borrows the buffer it was read into. An iterator cannot hand out
//! items that borrow from itself, and a buffer refilled for every event would
//! make each event copy its bytes. A batch borrows the caller's buffer for
//! many events at once, so reading stays zero-copy inside the batch.
//!
//! ```
//! use gedcom_elf::stream::StreamReader;
//! use gedcom_elf::Event;
//!
//! let text = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada\n0 @I2@ INDI\n1 NAME Bo\n0 TRLR\n";
//! // Any BufRead will do: a file, stdin, a socket.
//! let mut stream = StreamReader::new(std::io::BufReader::with_capacity(8, text.as_bytes()))
//!     .batch_size(16);
//! let mut buf = Vec::new();
//! let mut names = Vec::new();
//! while let Some(mut batch) = stream.read_batch_into(&mut buf)? {
//!     while let Some(event) = batch.next_event()? {
//!         if let Event::Begin(b) = event {
//!             if b.tag == "NAME" {
//!                 names.push(b.text().unwrap().into_owned());
//!             }
//!         }
//!     }
//!     for d in batch.drain_diagnostics() {
//!         eprintln!("{d}");
//!     }
//! }
//! assert_eq!(names, ["Ada", "Bo"]);
//! assert_eq!(stream.drain_diagnostics().count(), 0); // TRLR was there
//! # Ok::<(), gedcom_elf::Error>(())
//! ```

use std::io::BufRead;

use crate::diag::{Diagnostic, Error};
use crate::encoding::{self, Encoding, Utf16Decoder};
use crate::event::Event;
use crate::ordered::Pool;
use crate::par::{count_breaks, first_line_string, ChunkOut, Merger, Summary};
use crate::read::{Carry, ReadStats, Reader, ReaderConfig};

/// The default batch size: 64 KiB.
pub const DEFAULT_BATCH: usize = 64 << 10;

/// How many bytes are read before the encoding is decided (the HEAD must
/// fit, as in `HEAD_SCAN_LIMIT` of the encoding detection).
const DETECT_BYTES: usize = 64 << 10;

/// A reader over any [`BufRead`], batch by batch. See the [module
/// docs](self).
#[derive(Debug)]
pub struct StreamReader<R> {
    source: R,
    config: ReaderConfig,
    batch: usize,
    /// Bytes already read (and transcoded); `pending[head..]` are not yet
    /// handed out.
    pending: Vec<u8>,
    head: usize,
    /// Where the search for the next cut resumes (an offset in `pending`).
    search: usize,
    /// Offset of `pending[0]` in the decoded stream.
    offset: u64,
    eof: bool,
    utf16: Option<Utf16Decoder>,
    /// Unpaired surrogates and truncated code units met while transcoding.
    utf16_problems: usize,
    payload_encoding: Encoding,
    carry: Option<Carry>,
    started: bool,
    done: bool,
    diagnostics: Vec<Diagnostic>,
}

impl<R: BufRead> StreamReader<R> {
    /// A stream reader with the default [`ReaderConfig`].
    pub fn new(source: R) -> Self {
        StreamReader::with_config(source, ReaderConfig::default())
    }

    /// A stream reader with `config` ([`ReaderConfig::encoding`] included).
    pub fn with_config(source: R, config: ReaderConfig) -> Self {
        StreamReader {
            source,
            config,
            batch: DEFAULT_BATCH,
            pending: Vec::new(),
            head: 0,
            search: 0,
            offset: 0,
            eof: false,
            utf16: None,
            utf16_problems: 0,
            payload_encoding: Encoding::Utf8,
            carry: None,
            started: false,
            done: false,
            diagnostics: Vec::new(),
        }
    }

    /// Sets the batch size in bytes (at least 1): a batch ends at the first
    /// record boundary at least this many bytes after its start. Default
    /// [`DEFAULT_BATCH`].
    pub fn batch_size(mut self, bytes: usize) -> Self {
        self.batch = bytes.max(1);
        self
    }

    /// Diagnostics that belong to no batch: at end of input, `missing-trlr`
    /// and, for UTF-16 with unpaired surrogates or a truncated code unit, the
    /// `encoding` warning that [`Input`](crate::Input) gives before reading
    /// starts (a stream knows the count only at the end).
    pub fn drain_diagnostics(&mut self) -> std::vec::Drain<'_, Diagnostic> {
        self.diagnostics.drain(..)
    }

    /// Counters over the batches read so far.
    pub fn stats(&self) -> Option<&ReadStats> {
        self.carry.as_ref().map(Carry::stats)
    }

    /// Bytes handed out in batches so far: the input after its byte-order
    /// mark (UTF-16 transcoded to UTF-8), which byte offsets refer to.
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// The encoding of the stream and how it was decided, once the first
    /// batch was read.
    pub fn encoding_info(&self) -> Option<&crate::EncodingInfo> {
        self.carry.as_ref().map(Carry::info)
    }

    /// Reads raw bytes from the source into `pending`, transcoding UTF-16.
    /// Returns `false` at end of input.
    fn fill(&mut self) -> Result<bool, Error> {
        if self.eof {
            return Ok(false);
        }
        let chunk = match self.source.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Ok(true),
            Err(e) => return Err(e.into()),
        };
        let n = chunk.len();
        if n == 0 {
            self.eof = true;
            let problems = &mut self.utf16_problems;
            if let Some(d) = self.utf16.as_mut() {
                d.decode_chunk(&[], true, &mut self.pending, &mut |p| count(problems, p));
            }
            return Ok(false);
        }
        let problems = &mut self.utf16_problems;
        match self.utf16.as_mut() {
            Some(d) => d.decode_chunk(chunk, false, &mut self.pending, &mut |p| count(problems, p)),
            None => self.pending.extend_from_slice(chunk),
        }
        self.source.consume(n);
        Ok(true)
    }

    /// Decides the encoding from the first bytes (seed §3.1-§3.2).
    fn detect(&mut self) -> Result<encoding::Detection, Error> {
        while self.pending.len() < DETECT_BYTES && self.fill()? {}
        let info = crate::input::detect(&self.pending, self.config.forced_encoding())?;
        let raw = std::mem::take(&mut self.pending);
        let body = &raw[info.bom_len.min(raw.len())..];
        if info.encoding.is_utf16() {
            let mut d = Utf16Decoder::new(info.encoding == Encoding::Utf16Be);
            let problems = &mut self.utf16_problems;
            d.decode_chunk(body, self.eof, &mut self.pending, &mut |p| {
                count(problems, p)
            });
            self.utf16 = Some(d);
            self.payload_encoding = Encoding::Utf8;
        } else {
            self.pending.extend_from_slice(body);
            self.payload_encoding = info.encoding;
        }
        Ok(info)
    }

    /// Cuts the next batch of whole records into `buf` (its old content is
    /// discarded): with the encoding decided, for the first, whether the
    /// input's first bytes are ASCII (they decide the missing-CHAR
    /// warning), and its offset in the decoded stream. `None` at the end of
    /// the input (the first batch is given even when it is empty).
    #[allow(clippy::type_complexity)]
    fn next_piece(
        &mut self,
        buf: &mut Vec<u8>,
    ) -> Result<Option<(Option<encoding::Detection>, bool, u64)>, Error> {
        let info = if self.started {
            None
        } else {
            self.started = true;
            Some(self.detect()?)
        };
        // Gather at least a batch, ending at a record boundary.
        let cut = loop {
            let live = &self.pending[self.head..];
            let from = self.search.max(self.batch);
            match next_boundary(live, from, self.eof) {
                Search::Found(c) => break c,
                Search::NeedMore(resume) => self.search = resume,
                Search::End => break live.len(),
            }
            if !self.fill()? && self.eof && self.pending.len() == self.head {
                break 0;
            }
        };
        self.search = 0;
        if cut == 0 && info.is_none() {
            return Ok(None);
        }
        // The first bytes (the same the slice reader looks at) decide the
        // missing-CHAR warning.
        let live = &self.pending[self.head..];
        let head_ascii =
            info.is_some() && live[..live.len().min(crate::read::HEAD_ASCII_WINDOW)].is_ascii();
        buf.clear();
        buf.extend_from_slice(&self.pending[self.head..self.head + cut]);
        self.head += cut;
        if self.head > (64 << 10) && self.head * 2 > self.pending.len() {
            self.pending.drain(..self.head);
            self.head = 0;
        }
        let base = self.offset;
        self.offset += cut as u64;
        Ok(Some((info, head_ascii, base)))
    }

    /// Reads the next batch of whole records into `buf` (its old content is
    /// discarded) and returns a reader over it, or `None` at the end.
    ///
    /// # Errors
    /// I/O errors of the source; an unsupported encoding; the errors of
    /// [`Reader::next_event`] for the first batch are returned by the
    /// batch's `next_event`.
    pub fn read_batch_into<'b>(
        &'b mut self,
        buf: &'b mut Vec<u8>,
    ) -> Result<Option<Batch<'b>>, Error> {
        if self.done {
            return Ok(None);
        }
        let Some((info, head_ascii, base)) = self.next_piece(buf)? else {
            self.done = true;
            if self.utf16_problems > 0 {
                // `Input` counts these before reading starts; a stream knows
                // the total only now.
                self.diagnostics.push(utf16_warning(self.utf16_problems));
            }
            if let Some(d) = self.carry.as_mut().and_then(Carry::finish) {
                self.diagnostics.push(d);
            }
            return Ok(None);
        };
        let reader = match (info, self.carry.take()) {
            (Some(info), _) => {
                let enc = self.payload_encoding;
                let mut r =
                    Reader::prepared(buf, self.config.clone(), info, enc).first_chunk(buf.len());
                r.set_head_ascii(head_ascii);
                r
            }
            (None, Some(carry)) => Reader::resume(buf, 0, buf.len(), carry, base),
            (None, None) => {
                self.done = true;
                return Ok(None);
            }
        };
        Ok(Some(Batch {
            reader: Some(reader),
            leftover: Vec::new(),
            carry: &mut self.carry,
            done: &mut self.done,
        }))
    }
}

impl<R: BufRead> StreamReader<R> {
    /// Reads the rest of the stream on `jobs` threads, handing each
    /// batch's output and diagnostics to `sink` in document order.
    ///
    /// The first batch (the HEAD) is read on the calling thread, unless
    /// [`read_batch_into`](StreamReader::read_batch_into) read it already:
    /// read the HEAD that way first to look at it (its schema, its
    /// encoding) before the rest goes to the threads. The calling thread
    /// cuts the batches and keeps up to `2 * jobs` of them in flight, each
    /// in a buffer of its own; a thread reads a batch from the state right
    /// after the HEAD (as [`Chunks`](crate::par::Chunks) reads a chunk),
    /// numbering its lines from 1. `work` gets that batch's reader. `sink`
    /// gets `work`'s result, the batch's diagnostics (global line numbers
    /// and byte offsets) and the number of lines before the batch, which
    /// turns the batch's line numbers into the input's. The results are
    /// those of reading batch by batch on one thread, in the same order.
    ///
    /// Returns the end-of-input diagnostics (an `encoding` warning for
    /// UTF-16 with unpaired surrogates, then `missing-trlr`) and the
    /// counters over the whole input, the batches read before included.
    ///
    /// ```
    /// use gedcom_elf::stream::StreamReader;
    /// use gedcom_elf::Event;
    ///
    /// let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
    /// for i in 0..500 {
    ///     text.push_str(&format!("0 @I{i}@ INDI\n1 NAME N{i}\n"));
    /// }
    /// text.push_str("0 TRLR\n");
    /// let mut stream = StreamReader::new(text.as_bytes()).batch_size(256);
    /// let mut names = 0;
    /// let summary = stream.for_each_relative(
    ///     2,
    ///     |reader| {
    ///         let mut n = 0;
    ///         while let Some(e) = reader.next_event()? {
    ///             if let Event::Begin(b) = e {
    ///                 n += usize::from(b.tag == "NAME");
    ///             }
    ///         }
    ///         Ok(n)
    ///     },
    ///     |n, diagnostics, _lines_before| {
    ///         assert!(diagnostics.is_empty());
    ///         names += n;
    ///         Ok(())
    ///     },
    /// )?;
    /// assert_eq!(names, 500);
    /// assert_eq!(summary.stats.structures, 1003); // HEAD, CHAR, 500 x 2, TRLR
    /// assert!(summary.diagnostics.is_empty());
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    ///
    /// # Errors
    /// The first error of `work` or `sink` (no later result is handed
    /// over), an I/O error of the source (after the results of the batches
    /// before it), and as [`read_batch_into`](StreamReader::read_batch_into).
    /// A panic in `work` is resumed on the calling thread.
    pub fn for_each_relative<T, F, S>(
        &mut self,
        jobs: usize,
        work: F,
        sink: S,
    ) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'_>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>, u64) -> Result<(), Error>,
    {
        self.for_each_numbered(jobs, false, work, sink)
    }

    /// Like [`StreamReader::for_each_relative`], but each batch's reader
    /// numbers its lines as the input's: the calling thread counts the line
    /// breaks of each batch as it cuts it (a pass over the bytes, at the
    /// speed of `memchr`). For work whose output carries line numbers.
    ///
    /// # Errors
    /// As [`StreamReader::for_each_relative`].
    pub fn for_each<T, F, S>(&mut self, jobs: usize, work: F, mut sink: S) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'_>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>) -> Result<(), Error>,
    {
        self.for_each_numbered(jobs, true, work, |t, ds, _| sink(t, ds))
    }

    /// [`StreamReader::for_each`] (`global`) or
    /// [`StreamReader::for_each_relative`].
    fn for_each_numbered<T, F, S>(
        &mut self,
        jobs: usize,
        global: bool,
        work: F,
        mut sink: S,
    ) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'_>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>, u64) -> Result<(), Error>,
    {
        let mut merger = Merger::new();
        if self.done {
            // Read to its end, or stopped by an error.
            return Ok(Summary {
                diagnostics: Vec::new(),
                stats: self.stats().cloned().unwrap_or_default(),
            });
        }
        if self.carry.is_none() {
            // The HEAD, on this thread, as `read_batch_into` reads it.
            let mut buf = Vec::new();
            let batch = self.read_batch_into(&mut buf)?;
            let head = batch.and_then(|mut batch| {
                let r = batch.reader.as_mut()?;
                let (result, first) = (work(r), first_line_string(r.input()));
                let diagnostics: Vec<Diagnostic> = batch.drain_diagnostics().collect();
                Some((result, first, diagnostics))
            });
            if let Some((result, (blank, skip), diagnostics)) = head {
                if let Some(carry) = self.carry.clone() {
                    let out = ChunkOut {
                        result,
                        diagnostics,
                        carry,
                    };
                    let (t, ds) = merger.push(out, 1 + blank, skip as u64);
                    if t.is_err() {
                        self.done = true;
                    }
                    sink(t?, ds, 0)?;
                }
            }
        } else if let Some(carry) = self.carry.clone() {
            // What the batches read before left: counters, TRLR seen.
            merger.continue_from(carry);
        }
        let Some(carry) = self.carry.clone() else {
            self.done = true;
            return Ok(merger.finish());
        };
        if !self.done {
            let template = carry.template();
            let lines = carry.next_line.saturating_sub(1);
            let numbering = (global, lines);
            let result = self.run_batches(
                jobs.max(1),
                &template,
                numbering,
                &mut merger,
                &work,
                &mut sink,
            );
            self.done = true;
            result?;
        }
        let mut summary = merger.finish();
        if self.utf16_problems > 0 {
            summary
                .diagnostics
                .insert(0, utf16_warning(self.utf16_problems));
        }
        Ok(summary)
    }

    /// The batches after the HEAD for [`StreamReader::for_each_numbered`],
    /// read on up to `jobs` threads of a [`Pool`] while this thread cuts
    /// them and merges their outputs in order: `numbering` is whether lines
    /// are numbered as the input's, and the number of lines before the
    /// batches.
    fn run_batches<T, F, S>(
        &mut self,
        jobs: usize,
        template: &Carry,
        (global, mut lines): (bool, u64),
        merger: &mut Merger,
        work: &F,
        sink: &mut S,
    ) -> Result<(), Error>
    where
        T: Send,
        F: Fn(&mut Reader<'_>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>, u64) -> Result<(), Error>,
    {
        // One batch read on a worker: its bytes, its offset and the number
        // of its first line (1 when numbered relatively). Its output comes
        // back with its offset and where its first line string is.
        let read = |(bytes, base, first_line): (Vec<u8>, u64, u64)| {
            let mut carry = template.clone();
            carry.next_line = first_line;
            let first = first_line_string(&bytes);
            let mut r = Reader::resume(&bytes, 0, bytes.len(), carry, base);
            let result = work(&mut r);
            let diagnostics: Vec<Diagnostic> = r.drain_diagnostics().collect();
            let carry = r.into_carry();
            let out = ChunkOut {
                result,
                diagnostics,
                carry,
            };
            (out, base, first_line, first)
        };
        std::thread::scope(|scope| {
            // Up to two batches per thread in flight.
            let mut pool = Pool::scoped(scope, &read, jobs, 2);
            // Lines before the next batch to cut (global numbering).
            let mut cut_lines = lines;
            let mut cut_error = None;
            let mut at_end = false;
            loop {
                while !at_end && cut_error.is_none() && pool.has_room() {
                    let mut buf = Vec::new();
                    match self.next_piece(&mut buf) {
                        Ok(Some((_, _, base))) => {
                            let first_line = if global {
                                let first = cut_lines.saturating_add(1);
                                cut_lines = cut_lines.saturating_add(count_breaks(&buf));
                                first
                            } else {
                                1
                            };
                            pool.submit((buf, base, first_line));
                        }
                        Ok(None) => at_end = true,
                        // Given after the batches cut before it.
                        Err(e) => cut_error = Some(e),
                    }
                }
                let Some((mut out, base, first_line, (blank, skip))) = pool.next() else {
                    return cut_error.map_or(Ok(()), Err);
                };
                if global {
                    let (t, ds) = merger.push(out, first_line + blank, base + skip as u64);
                    sink(t?, ds, 0)?;
                    continue;
                }
                // Numbered from 1: renumbered as the whole's.
                let read = out.carry.next_line.saturating_sub(1);
                out.shift_lines(lines);
                let (t, ds) = merger.push(out, lines + 1 + blank, base + skip as u64);
                sink(t?, ds, lines)?;
                lines = lines.saturating_add(read);
            }
        })
    }
}

/// The warning for `n` unpaired surrogates or truncated code units met
/// transcoding UTF-16 input read in pieces, given at its end (the whole
/// count is known only then).
pub(crate) fn utf16_warning(n: usize) -> Diagnostic {
    Diagnostic {
        kind: crate::DiagnosticKind::Encoding,
        position: crate::Position { line: 1, byte: 0 },
        message: format!(
            "the utf-16 input held {n} unpaired surrogate{s} or truncated code unit{s}, replaced by U+FFFD",
            s = if n == 1 { "" } else { "s" }
        ),
    }
}

/// Counts a transcoding problem (a NUL is kept and reported by the reader).
pub(crate) fn count(problems: &mut usize, p: encoding::DecodeProblem) {
    if p != encoding::DecodeProblem::Nul {
        *problems += 1;
    }
}

/// The outcome of a search for a cut.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Search {
    /// Cut here.
    Found(usize),
    /// No cut yet; resume the search at this offset once more bytes arrive.
    NeedMore(usize),
    /// End of input: the rest is the last batch.
    End,
}

/// The first line start at or after `from` (and after the first line) where
/// a batch may be cut: a complete, well-formed level-0 line not tagged
/// `CONT`, `CONC` or `ERROR`. At end of input the last line counts as
/// complete.
pub(crate) fn next_boundary(buf: &[u8], from: usize, eof: bool) -> Search {
    // Not before the end of the first line string (blank lines aside).
    let first_end = crate::scan::Lines::new(buf)
        .next()
        .map_or(buf.len(), |l| l.end());
    let from = from.max(first_end + 1);
    if from > buf.len() {
        return if eof {
            Search::End
        } else {
            Search::NeedMore(from)
        };
    }
    let mut breaks = memchr::memchr2_iter(b'\n', b'\r', &buf[from - 1..])
        .map(|k| from - 1 + k)
        .peekable();
    while let Some(q) = breaks.next() {
        if buf[q] == b'\r' && buf.get(q + 1) == Some(&b'\n') {
            continue; // the LF that follows ends this break
        }
        let start = q + 1;
        let end = match breaks.peek() {
            Some(&e) => e,
            None if eof => buf.len(),
            // The line is not complete yet: look at it again later.
            None => return Search::NeedMore(start),
        };
        let text = &buf[start..end];
        let text = &text[text
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count()..];
        if crate::par::starts_record(text) {
            return Search::Found(start);
        }
    }
    if eof {
        Search::End
    } else {
        Search::NeedMore(buf.len().max(from))
    }
}

/// A reader over one batch of whole records. Its events borrow the buffer
/// given to [`StreamReader::read_batch_into`]. Dropping it early reads the
/// rest of the batch, so that the stream's state stays exact.
#[derive(Debug)]
pub struct Batch<'b> {
    reader: Option<Reader<'b>>,
    /// Diagnostics not yet drained when the reader was closed.
    leftover: Vec<Diagnostic>,
    carry: &'b mut Option<Carry>,
    done: &'b mut bool,
}

impl<'b> Batch<'b> {
    /// The next event of this batch, or `None` at its end.
    ///
    /// # Errors
    /// As [`Reader::next_event`].
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event<'b>>, Error> {
        let Some(reader) = self.reader.as_mut() else {
            return Ok(None);
        };
        // Returned as it came: rewrapping the event would copy it.
        let next = reader.next_event();
        match &next {
            Ok(Some(_)) => {}
            Ok(None) => self.close(),
            Err(_) => {
                *self.done = true;
                self.close();
            }
        }
        next
    }

    /// `true` when diagnostics wait to be drained (cheaper than draining nothing,
    /// for a caller that asks after every event).
    pub fn has_diagnostics(&self) -> bool {
        !self.leftover.is_empty()
            || self
                .reader
                .as_ref()
                .is_some_and(|r| !r.diagnostics().is_empty())
    }

    /// Diagnostics reported in this batch and not yet drained.
    pub fn drain_diagnostics(&mut self) -> impl Iterator<Item = Diagnostic> + use<'_, 'b> {
        self.leftover.drain(..).chain(
            self.reader
                .as_mut()
                .into_iter()
                .flat_map(|r| r.drain_diagnostics()),
        )
    }

    /// The batch's reader (for its stats, encoding, escape table).
    pub fn reader(&self) -> Option<&Reader<'b>> {
        self.reader.as_ref()
    }

    fn close(&mut self) {
        if let Some(mut reader) = self.reader.take() {
            self.leftover.extend(reader.drain_diagnostics());
            *self.carry = Some(reader.into_carry());
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.as_mut() {
            while let Ok(Some(_)) = reader.next_event() {}
            if !reader.is_done() {
                *self.done = true;
            }
        }
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_need_complete_regular_level_zero_lines() {
        use Search::*;
        let b = b"0 HEAD\n0 @I1@ INDI\n1 X\n0 TRLR";
        assert_eq!(next_boundary(b, 0, false), Found(7));
        assert_eq!(next_boundary(b, 8, false), NeedMore(23));
        assert_eq!(next_boundary(b, 8, true), Found(23));
        assert_eq!(next_boundary(b"0 HEAD\n0 CONC x\n0 @I1@x\n", 1, true), End);
        assert_eq!(next_boundary(b"0 HEAD\r\n\t0 TRLR\r\n", 1, false), Found(8));
        assert_eq!(next_boundary(b"0 HEAD\r", 1, false), NeedMore(7));
        assert_eq!(next_boundary(b"0 HEAD", 1, true), End);
        assert_eq!(next_boundary(b"", 1, true), End);
        assert_eq!(next_boundary(b"\n\n0 HEAD\n0 TRLR\n", 1, false), Found(9));
    }
}
