//! Streaming input: read any [`Read`] (stdin, pipes, sockets) in
//! batches of whole records, with bounded memory.
//!
//! [`StreamReader::read_batch_into`] fills a buffer the caller lends with the
//! next batch of whole records and returns a [`Batch`]: a reader whose events
//! borrow that buffer. Batches are cut just before level-0 lines, and the
//! reader's small carried state crosses each cut, so the events, diagnostics
//! and line numbers are exactly those of [`Reader`] over the whole input.
//! Memory stays at about one batch (64 KiB by default), the largest record
//! and what a read brings in (at most 1 MiB). [`StreamReader::for_each`]
//! reads the batches on [`jobs`](StreamReader::jobs) threads instead (then
//! up to `jobs + 1` batches and their outputs are held, or
//! `jobs * ahead + 1` with [`ahead`](StreamReader::ahead), and the read
//! buffers they were cut from).
//!
//! What this layer owns: handing batches to a [`Reader`] and the reader's
//! state from one batch to the next, and merging the batches read on
//! threads. The bytes, the encoding (decided on the whole HEAD, as
//! [`Input`](crate::Input) decides it) and the cuts come from the crate's
//! batch source, shared with [`Records`](crate::tree::Records); the
//! threads from its ordered pool, shared with [`par`](crate::par).
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
//! // Any Read will do: a file, stdin, a socket (no BufReader needed).
//! let mut stream = StreamReader::new(text.as_bytes())
//!     .batch_bytes(16);
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

use std::io::Read;

use bytes::Bytes;

use crate::diag::{Diagnostic, Error};
use crate::event::Event;
use crate::ordered::Pool;
use crate::par::{first_line_string, ChunkOut, Merger, Summary};
use crate::read::{ReadState, ReadStats, Reader, ReaderConfig};
use crate::source::{utf16_warning, FromRead, Piece, Source};

/// The default [`StreamReader::batch_bytes`]: 64 KiB.
pub const DEFAULT_BATCH_BYTES: usize = 64 << 10;

/// The most a read of the source asks for: 1 MiB. Reads go straight into
/// the source's buffer (the source is a buffer already: a `BufReader`
/// around it adds nothing), and the batches handed to threads share that
/// buffer: the input's bytes are copied by the read (and those read past
/// a cut once more, when the buffer grows for the next batch). A buffer is
/// freed when the last batch cut from it is read, so the batches in flight
/// hold a few of them at most.
const READ_BYTES: usize = 1 << 20;

/// A reader over any [`Read`], batch by batch. See the [module
/// docs](self).
#[derive(Debug)]
pub struct StreamReader<R> {
    /// The batches: bytes read, the encoding decided, UTF-16 transcoded.
    source: Source<FromRead<R>>,
    config: ReaderConfig,
    batch: usize,
    jobs: usize,
    /// Batches in flight per thread (plus one), in `for_each`.
    ahead: usize,
    state: Option<ReadState>,
    done: bool,
    diagnostics: Vec<Diagnostic>,
}

impl<R: Read> StreamReader<R> {
    /// A stream reader with the default [`ReaderConfig`].
    pub fn new(source: R) -> Self {
        StreamReader::with_config(source, ReaderConfig::default())
    }

    /// A stream reader with `config` ([`ReaderConfig::encoding`] included).
    pub fn with_config(source: R, config: ReaderConfig) -> Self {
        StreamReader {
            source: Source::new(FromRead::new(source, READ_BYTES), config.forced_encoding()),
            config,
            batch: DEFAULT_BATCH_BYTES,
            jobs: 1,
            ahead: 1,
            state: None,
            done: false,
            diagnostics: Vec::new(),
        }
    }

    /// Sets the batch size in bytes (at least 1): a batch ends at the first
    /// record boundary at least this many bytes after its start. Default
    /// [`DEFAULT_BATCH_BYTES`].
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch = bytes.max(1);
        self
    }

    /// Threads for [`StreamReader::for_each`] (default 1: on the calling
    /// thread).
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// Batches [`StreamReader::for_each`] keeps in flight per thread, cut
    /// and waiting or being read, with one more waiting for the first
    /// thread free (default 1, at least 1). More keeps the threads busy
    /// while a batch that takes longer than the others holds up the ones
    /// after it (outputs are taken in order), at the memory of those
    /// batches and their outputs. The events and outputs do not depend
    /// on it.
    pub fn ahead(mut self, batches: usize) -> Self {
        self.ahead = batches.max(1);
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
        self.state.as_ref().map(ReadState::stats)
    }

    /// Bytes handed out in batches so far: the input after its byte-order
    /// mark (UTF-16 transcoded to UTF-8), which byte offsets refer to.
    pub fn bytes_read(&self) -> u64 {
        self.source.bytes_read()
    }

    /// The GEDCOM version the stream is read as (the HEAD's, see
    /// [`Reader::version`](crate::Reader::version)), once the first batch was
    /// read; every batch carries it.
    pub fn version(&self) -> Option<crate::Version> {
        self.state.as_ref().map(ReadState::version)
    }

    /// The encoding of the stream and how it was decided, once the first
    /// batch was read.
    pub fn encoding_info(&self) -> Option<&crate::EncodingInfo> {
        self.state.as_ref().map(ReadState::info)
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
        let Some(piece) = self.source.next_piece(self.batch)? else {
            self.done = true;
            let problems = self.source.transcode_problems();
            if problems > 0 {
                // `Input` counts these before reading starts; a stream knows
                // the total only now.
                self.diagnostics.push(utf16_warning(problems));
            }
            if let Some(d) = self.state.as_mut().and_then(ReadState::finish) {
                self.diagnostics.push(d);
            }
            return Ok(None);
        };
        buf.clear();
        buf.extend_from_slice(&piece.bytes);
        let reader = match (piece.start, self.state.take()) {
            (Some(start), _) => {
                let config = self.config.clone();
                let mut r = Reader::prepared(buf, config, start.info, start.encoding)
                    .first_chunk(buf.len());
                r.set_head_ascii(start.head_ascii);
                r
            }
            (None, Some(state)) => Reader::resume(buf, 0, buf.len(), state, piece.offset),
            (None, None) => {
                self.done = true;
                return Ok(None);
            }
        };
        Ok(Some(Batch {
            reader: Some(reader),
            leftover: Vec::new(),
            state: &mut self.state,
            done: &mut self.done,
        }))
    }
}

impl<R: Read> StreamReader<R> {
    /// Reads the rest of the stream on [`jobs`](StreamReader::jobs)
    /// threads, handing each batch's output and diagnostics to `sink` in
    /// document order.
    ///
    /// The first batch (the HEAD) is read on the calling thread, unless
    /// [`read_batch_into`](StreamReader::read_batch_into) read it already:
    /// read the HEAD that way first to look at it (its schema, its
    /// encoding) before the rest goes to the threads. The calling thread
    /// cuts the batches, counting their line breaks (a pass over the bytes
    /// at the speed of `memchr`), and keeps up to `jobs + 1` of them in
    /// flight, each in a buffer of its own; a thread reads a batch from the
    /// state right after the HEAD (as [`Chunks`](crate::par::Chunks) reads a
    /// chunk), its lines numbered as the input's. `work` gets that batch's
    /// reader; `sink` gets `work`'s result and the batch's diagnostics. The
    /// results are those of reading batch by batch on one thread, in the
    /// same order.
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
    /// let mut stream = StreamReader::new(text.as_bytes()).batch_bytes(256).jobs(2);
    /// let mut names = 0;
    /// let summary = stream.for_each(
    ///     |reader| {
    ///         let mut n = 0;
    ///         while let Some(e) = reader.next_event()? {
    ///             if let Event::Begin(b) = e {
    ///                 n += usize::from(b.tag == "NAME");
    ///             }
    ///         }
    ///         Ok(n)
    ///     },
    ///     |n, diagnostics| {
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
    pub fn for_each<T, F, S>(&mut self, work: F, mut sink: S) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'_>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>) -> Result<(), Error>,
    {
        self.for_each_numbered(true, work, |t, ds, _| sink(t, ds))
    }

    /// [`StreamReader::for_each`] without counting line breaks: each batch
    /// is read numbered from line 1, and `sink` also gets the number of
    /// lines before the batch (diagnostics come out numbered already). For
    /// the command-line tool's work that needs no line numbers; hidden from
    /// the API, like [`Chunks`](crate::par::Chunks)' own.
    #[doc(hidden)]
    pub fn for_each_relative<T, F, S>(&mut self, work: F, sink: S) -> Result<Summary, Error>
    where
        T: Send,
        F: Fn(&mut Reader<'_>) -> Result<T, Error> + Sync,
        S: FnMut(T, Vec<Diagnostic>, u64) -> Result<(), Error>,
    {
        self.for_each_numbered(false, work, sink)
    }

    /// [`StreamReader::for_each`] (`global`) or `for_each_relative`.
    fn for_each_numbered<T, F, S>(
        &mut self,
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
        if self.state.is_none() {
            // The HEAD, on this thread, as `read_batch_into` reads it.
            let mut buf = Vec::new();
            let batch = self.read_batch_into(&mut buf)?;
            let head = batch.and_then(|mut batch| {
                let result = work(batch.reader.as_mut()?);
                let diagnostics: Vec<Diagnostic> = batch.drain_diagnostics().collect();
                Some((result, diagnostics))
            });
            if let (Some((result, diagnostics)), Some(state)) = (head, &self.state) {
                // The first merged: its diagnostics need no fixing up.
                merger.continue_from(state);
                if result.is_err() {
                    self.done = true;
                }
                sink(result?, diagnostics, 0)?;
            }
        } else if let Some(state) = &self.state {
            // What the batches read before left: counters, TRLR seen.
            merger.continue_from(state);
        }
        let Some(state) = &self.state else {
            self.done = true;
            return Ok(merger.finish());
        };
        if !self.done {
            let template = state.template();
            let lines = state.next_line.saturating_sub(1);
            let numbering = (global, lines);
            let result = self.run_batches(&template, numbering, &mut merger, &work, &mut sink);
            self.done = true;
            result?;
        }
        let mut summary = merger.finish();
        let problems = self.source.transcode_problems();
        if problems > 0 {
            summary.diagnostics.insert(0, utf16_warning(problems));
        }
        Ok(summary)
    }

    /// The batches after the HEAD for [`StreamReader::for_each_numbered`],
    /// read on up to [`jobs`](StreamReader::jobs) threads of a [`Pool`] while this thread cuts
    /// them and merges their outputs in order: `numbering` is whether lines
    /// are numbered as the input's, and the number of lines before the
    /// batches.
    fn run_batches<T, F, S>(
        &mut self,
        template: &ReadState,
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
        let read = |(bytes, base, first_line): (Bytes, u64, u64)| {
            let mut state = template.clone();
            state.next_line = first_line;
            let first = first_line_string(&bytes);
            let mut r = Reader::resume(&bytes, 0, bytes.len(), state, base);
            let result = work(&mut r);
            let diagnostics: Vec<Diagnostic> = r.drain_diagnostics().collect();
            let state = r.into_state();
            let out = ChunkOut {
                result,
                diagnostics,
                state,
            };
            (out, base, first_line, first)
        };
        if global {
            // The calling thread counts each batch's lines as it cuts it.
            self.source.count_lines_from(lines);
        }
        std::thread::scope(|scope| {
            // By default one batch per thread in flight, and one more
            // waiting for the first thread free. On the 300 MB generated
            // file at 2 jobs, two per thread were as fast and held more
            // (`events --types -`: 1.29 s and 7.2 MB peak RSS against 1.27 s
            // and 7.0 MB; with a third process busy on one core, 2.56 s and
            // 8.2 MB against 2.63 s and 7.5 MB); one per thread alone was
            // slower (`count -` 0.46 s against 0.39 s). Work whose batches
            // vary more sets more ([`StreamReader::ahead`]).
            let mut pool = Pool::scoped(scope, &read, self.jobs, self.ahead).with_extra(1);
            let mut cut_error = None;
            let mut at_end = false;
            loop {
                while !at_end && cut_error.is_none() && pool.has_room() {
                    match self.source.next_piece(self.batch) {
                        Ok(Some(Piece {
                            bytes,
                            offset,
                            lines_before,
                            ..
                        })) => {
                            let first_line = if global {
                                lines_before.saturating_add(1)
                            } else {
                                1
                            };
                            pool.submit((bytes, offset, first_line));
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
                let read = out.state.next_line.saturating_sub(1);
                out.shift_lines(lines);
                let (t, ds) = merger.push(out, lines + 1 + blank, base + skip as u64);
                sink(t?, ds, lines)?;
                lines = lines.saturating_add(read);
            }
        })
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
    state: &'b mut Option<ReadState>,
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

    /// The batch's reader, to read the batch with: as through
    /// [`Batch::next_event`], the stream goes on after the batch once the
    /// reader has returned `None`, and stops when it returned an error or
    /// was left before its end. Code written for a [`Reader`] (a chunk's,
    /// as [`StreamReader::for_each`] hands it over) reads the first batch
    /// this way. `None` once [`Batch::next_event`] ended the batch.
    pub fn reader_mut(&mut self) -> Option<&mut Reader<'b>> {
        self.reader.as_mut()
    }

    fn close(&mut self) {
        if let Some(mut reader) = self.reader.take() {
            self.leftover.extend(reader.drain_diagnostics());
            *self.state = Some(reader.into_state());
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
