//! Record-at-a-time trees: [`Records`] reads any `std::io::Read` and yields
//! one owned, self-contained [`RecordTree`] per record.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;

use crate::diag::{Diagnostic, DiagnosticKind, Error, Position};
use crate::encoding::{Encoding, EncodingSource};
use crate::escape::EscapeTable;
use crate::event::Event;
use crate::input::EncodingInfo;
use crate::ordered::{Owned, Pool};
use crate::par::{first_line_string, ChunkOut, Merger};
use crate::read::{ReadState, Reader, ReaderConfig};
use crate::source::{utf16_warning, FromRead, Piece, Source, Start};
use crate::tree::arena::{
    utf8_prefix, Builder, Core, Diagnostics, NodeRef, PathIter, ResolveMemo, Shared, Src,
};
use crate::tree::schema::Schema;

/// How much is asked of the source at a time.
const CHUNK: usize = 1 << 20;
/// The default of [`Records::batch_bytes`]: records after the HEAD are read
/// in batches of whole records of at least this many bytes (or one record,
/// when it is larger): one reader and one arena builder per batch, split
/// into a tree per record afterwards. Read one by one, short records spent
/// more on setting up a reader and a builder than on reading.
const BATCH: usize = 64 << 10;
/// With [`Records::jobs`] above 1: the batches in flight per thread.
const IN_FLIGHT: usize = 4;

/// One record as an owned tree: its bytes (a [`Bytes`] slice of a buffer
/// shared with neighbouring records, never copied) and its nodes. Navigating
/// it makes one text copy of the shared buffer (see [`RecordTree::root`]).
/// `Send + Sync`: hand records to other threads freely.
///
/// Node navigation is the same as in a [`Tree`](super::Tree), except that
/// pointers do not resolve ([`NodeRef::target`] is `None`): a record tree
/// holds no other record.
pub struct RecordTree {
    /// What the nodes index: the batch of records read together.
    buf: Bytes,
    /// The record's own bytes, a slice of `buf`.
    bytes: Bytes,
    /// The longest valid UTF-8 prefix of `buf`, copied as text on the first
    /// navigation of any tree of the batch (the trees of a batch share it):
    /// payloads and tags inside it are sliced from it with no UTF-8 check of
    /// their own, as a [`Tree`](super::Tree)'s are from its input.
    text: Arc<OnceLock<Box<str>>>,
    core: Core,
}

impl std::fmt::Debug for RecordTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordTree")
            .field("root", &self.root())
            .field("nodes", &self.len())
            .finish()
    }
}

impl RecordTree {
    /// The record.
    ///
    /// The first call on any tree of a batch copies the batch's longest
    /// valid UTF-8 prefix once, as text shared by the batch's trees, so that
    /// [`NodeRef::text`] and [`NodeRef::tag`] slice it without checking each
    /// payload (about 64 KiB per batch; a copy of the input's bytes, at most,
    /// while the trees are kept).
    pub fn root(&self) -> NodeRef<'_> {
        NodeRef::with_src(&self.core, self.src(), 0)
    }

    /// The batch's bytes and their valid UTF-8 prefix, for nodes.
    fn src(&self) -> Src<'_> {
        let text = self.text.get_or_init(|| utf8_prefix(&self.buf).into());
        Src {
            bytes: &self.buf,
            text,
            base: 0,
        }
    }

    /// The bytes the record was read from (UTF-16 input transcoded to
    /// UTF-8): from the start of its first line (leading whitespace
    /// included) through the line breaks and blank lines that follow its
    /// last line. A slice of a buffer shared with the records read in the
    /// same batch; the first record's bytes also hold any blank lines
    /// before it.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The number of structures in the record, itself included.
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Always `false`: a record tree holds at least its record.
    pub fn is_empty(&self) -> bool {
        self.core.len() == 0
    }

    /// The nodes at `path` below the record (see [`NodeRef::path`]).
    pub fn path<'p>(&self, path: &'p str) -> PathIter<'_, 'p> {
        self.root().path(path)
    }

    /// Every node in document order.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> + '_ {
        let src = self.src();
        (0..self.core.len() as u32).map(move |i| NodeRef::with_src(&self.core, src, i))
    }

    /// The schema that typed the record (the document's).
    pub fn schema(&self) -> &Arc<Schema> {
        &self.core.shared.schema
    }

    /// Bytes of memory the nodes hold (the record's bytes not included).
    /// The tables of tags and of octets made while reading (re-serialised
    /// too-deep lines), and the batch's text once a node was asked for (see
    /// [`RecordTree::root`]), are shared by the trees of one batch and
    /// counted in full for each.
    pub fn memory_bytes(&self) -> usize {
        self.core.memory() + self.text.get().map_or(0, |t| t.len())
    }
}

/// An iterator of [`RecordTree`]s read from any [`Read`] source, for files
/// larger than memory: peak memory is bounded by the largest record or
/// batch of records ([`Records::batch_bytes`], 64 KiB by default) and a
/// read buffer of 1 MiB, plus the trees the caller keeps, not by the file.
///
/// The first record must be the HEAD (unless [`ReaderConfig::headless`]);
/// its schema types every record. Records are split at lines whose level
/// is 0, which is exactly where the reader begins records. After the HEAD,
/// whole records are read in batches of about 64 KiB
/// ([`Records::batch_bytes`]), each by one [`Reader`] over its bytes, and
/// each batch is split into a tree per record.
///
/// ```
/// use gedcom_elf::tree::Records;
///
/// let input: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada\n0 @I2@ INDI\n1 NAME Bo\n0 TRLR\n";
/// let mut names = Vec::new();
/// for record in Records::new(input) {
///     let record = record?;
///     if let Some(name) = record.root().child("NAME") {
///         names.push((name.line(), name.text().unwrap().into_owned()));
///     }
/// }
/// assert_eq!(names, [(4, "Ada".to_string()), (6, "Bo".to_string())]);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
///
/// # Errors
/// Each item is a `Result`: reading the source can fail (i/o), the first
/// record may not be a HEAD ([`ErrorKind::NotGedcom`](crate::ErrorKind)),
/// the `CHAR` line may name an unsupported encoding, strict mode stops at
/// the first error, and a record of 4 GiB or more is refused
/// ([`ErrorKind::Limit`](crate::ErrorKind)). The iterator ends after an
/// error; the records read completely before it are yielded first, at
/// every batch size and number of [`jobs`](Records::jobs) (in strict mode,
/// a batch that fails is read a second time, up to the record that failed).
///
/// # Differences from reading the whole input
/// None in the structures. A record that begins with a level-0 `CONT`,
/// `CONC` or `ERROR` line (malformed input) is always read in the same
/// batch as the record before it, because the reader judges its lines by
/// the level of the line before it; the two are still yielded as two record
/// trees. Each batch's reader resumes with the state the one before left
/// (the HEAD's escapes, whether `TRLR` was seen), so the diagnostics are
/// the whole-file reader's, in the same order and at the same lines and
/// bytes, with one exception: the warning for unpaired surrogates in
/// UTF-16 input comes last (with the count, but not the first line),
/// because the count is known only at the end.
pub struct Records<R> {
    /// The pieces: bytes read, the encoding decided, UTF-16 transcoded,
    /// cut before records, their lines counted.
    source: Source<FromRead<R>>,
    config: ReaderConfig,
    batch: usize,
    done: bool,
    /// The encoding of the pieces' bytes.
    encoding: Encoding,
    info: Option<EncodingInfo>,
    shared: Option<Arc<Shared>>,
    records: u64,
    /// The reader's state carried from one piece to the next (escapes,
    /// whether `TRLR` was seen and warned after, counters).
    state: Option<ReadState>,
    /// Threads for the batches after the HEAD ([`Records::jobs`]).
    jobs: usize,
    /// With more than one job: the batches' outputs merged so far.
    merger: Option<Merger>,
    /// An error met reading a batch, given once the trees of the records
    /// before it were yielded.
    failed: Option<Error>,
    /// With more than one job: the worker threads and the batches in flight.
    pool: Option<BatchPool>,
    /// Every batch was cut (parallel reading).
    cut_all: bool,
    /// An error met cutting batches ahead (reading the source), given once
    /// the batches cut before it were merged.
    cut_error: Option<Error>,
    /// Line number and byte offset of the last line string read.
    last_read: Option<(u64, u64)>,
    diagnostics: Diagnostics,
    memo: ResolveMemo,
    ready: std::collections::VecDeque<RecordTree>,
}

impl<R: Read> Records<R> {
    /// Reads `src` with the default [`ReaderConfig`].
    pub fn new(src: R) -> Self {
        Records::with_config(src, ReaderConfig::default())
    }

    /// Reads `src` with `config`.
    pub fn with_config(src: R, config: ReaderConfig) -> Self {
        let mut source = Source::new(FromRead::new(src, CHUNK), config.forced_encoding());
        source.count_lines_from(0);
        Records {
            source,
            config,
            batch: BATCH,
            done: false,
            encoding: Encoding::Utf8,
            info: None,
            shared: None,
            records: 0,
            state: None,
            jobs: 1,
            merger: None,
            failed: None,
            pool: None,
            cut_all: false,
            cut_error: None,
            last_read: None,
            diagnostics: Diagnostics::default(),
            memo: ResolveMemo::default(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// Reads the records after the HEAD in batches of at least `bytes`
    /// bytes of whole records (default 64 KiB). Each batch is read by one
    /// reader into one arena, then split into a tree per record; the trees
    /// of a batch share its buffer, so a tree that is kept keeps the batch's
    /// bytes alive. `1` reads every record alone (slower on short records).
    /// The trees are the same at every batch size.
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch = bytes.max(1);
        self
    }

    /// Reads the batches after the HEAD on `jobs` threads (default 1: on
    /// the calling thread). Each thread reads whole batches from the state
    /// the HEAD left, and their trees and diagnostics are merged in
    /// document order, so records, trees and diagnostics are the same at
    /// every number of jobs. With more than one job, the worker threads
    /// start with the first batch after the HEAD and stop when the
    /// iterator is dropped; up to 4 batches per job are read ahead, and
    /// their trees are held until they are yielded (memory: about
    /// `4 * jobs` batches more than with one job). Worth it when the
    /// caller's own work per record is small next to reading it: on a
    /// 2-core machine, the 300 MB generated file took 0.74-0.89 s with 2
    /// jobs and 1.09-1.20 s with one (the calling thread still moves and
    /// drops every tree).
    ///
    /// ```
    /// use gedcom_elf::tree::{RecordTree, Records};
    ///
    /// let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n");
    /// for i in 0..1000 {
    ///     input.push_str(&format!("0 @I{i}@ INDI\n1 NAME N{i}\n"));
    /// }
    /// input.push_str("0 TRLR\n");
    /// let xref = |t: RecordTree| t.root().xref().map(|x| x.to_string());
    /// let one: Vec<Option<String>> = Records::new(input.as_bytes())
    ///     .map(|r| r.map(xref))
    ///     .collect::<Result<_, _>>()?;
    /// let two: Vec<Option<String>> = Records::new(input.as_bytes())
    ///     .jobs(2)
    ///     .batch_bytes(1024)
    ///     .map(|r| r.map(xref))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(one, two);
    /// assert_eq!(two.len(), 1002);
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// The encoding and how it was decided (after the first record).
    pub fn encoding_info(&self) -> Option<&EncodingInfo> {
        self.info.as_ref()
    }

    /// The document's schema (after the first record).
    pub fn schema(&self) -> Option<&Arc<Schema>> {
        self.shared.as_ref().map(|s| &s.schema)
    }

    /// Removes and yields the diagnostics so far (line numbers of the whole
    /// input). At most 10,000 are kept between drains.
    pub fn drain_diagnostics(&mut self) -> std::vec::Drain<'_, Diagnostic> {
        self.diagnostics.list.drain(..)
    }

    /// Diagnostics counted but not kept.
    pub fn diagnostics_dropped(&self) -> u64 {
        self.diagnostics.dropped
    }

    /// Takes how the encoding was decided (with the first piece) and gives
    /// its warnings, as a reader of the whole input gives them: defaulting to
    /// ANSEL only matters when there are non-ASCII bytes, judged on the
    /// input's first 64 KiB.
    fn start(&mut self, start: Start) {
        let Start {
            info,
            encoding,
            head_ascii,
        } = start;
        self.encoding = encoding;
        let defaulted = info.source == EncodingSource::Default && info.char_value.is_none();
        if !(defaulted && head_ascii) {
            for w in &info.warnings {
                self.diagnostics.push(Diagnostic {
                    kind: DiagnosticKind::Encoding,
                    position: Position {
                        line: info.char_line.unwrap_or(1) as u64,
                        byte: 0,
                    },
                    message: w.clone(),
                });
            }
        }
        self.info = Some(info);
    }

    /// Reads the records in `bytes` (one, or more when records begin with
    /// level-0 `CONT`, `CONC` or `ERROR` lines) into `self.ready`, resuming
    /// with the state the piece before left.
    fn build(&mut self, bytes: Bytes, line_base: u64, byte_base: u64) -> Result<(), Error> {
        let first = self.records == 0;
        self.records += 1;
        // The first piece (the HEAD) is read like the start of a whole
        // input; every later one resumes with the state the one before left
        // (as the stream reader's batches do), so that the reader itself
        // gives the after-trlr warning where a whole read gives it. Lines
        // are numbered from 1 in each piece (node line numbers are relative
        // to the piece); byte offsets are the whole's (the first piece
        // starts at 0, and a resumed reader adds `byte_base`).
        let reader = if first {
            // As `Input` makes its reader: the encoding decided, the input's
            // byte-order mark gone, so offsets are `Input::bytes`' and a
            // second mark (a U+FEFF beginning the first line) is kept.
            let Some(info) = self.info.clone() else {
                return Err(Error::internal("no encoding before the first record"));
            };
            Reader::prepared(&bytes, self.config.clone(), info, self.encoding)
                .first_chunk(bytes.len())
        } else {
            let Some(mut state) = self.state.take() else {
                return Err(Error::internal("no reader state to resume"));
            };
            state.next_line = 1;
            Reader::resume(&bytes, 0, bytes.len(), state, byte_base)
        };
        let shared = match &self.shared {
            Some(s) => s.clone(),
            None => {
                let schema =
                    Schema::from_reader(reader.clone()).map_err(|e| relocate(&e, line_base))?;
                Arc::new(Shared {
                    schema,
                    escapes: EscapeTable::default(),
                })
            }
        };
        let memo = std::mem::take(&mut self.memo);
        let bases = (line_base, byte_base);
        let before = self.ready.len();
        let mut out = read_batch(reader, &bytes, shared.clone(), bases, memo, &mut self.ready);
        if self.shared.is_none() {
            // The HEAD's escapes, known once it was read.
            let s = Arc::new(Shared {
                schema: shared.schema.clone(),
                escapes: out.state.escapes().clone(),
            });
            for t in self.ready.iter_mut().skip(before) {
                t.core.shared = s.clone();
            }
            self.shared = Some(s);
        }
        self.memo = std::mem::take(&mut out.memo);
        for d in out.diagnostics {
            self.diagnostics.push(d);
        }
        if out.last_read.is_some() {
            self.last_read = out.last_read;
        }
        self.state = Some(out.state);
        if let Err(e) = out.result {
            // Yielded after the trees of the records before it.
            self.failed = Some(e);
        }
        Ok(())
    }

    /// Merges the next batch read by the worker threads ([`Records::jobs`]),
    /// first cutting batches for them while the pool has room (4 per
    /// thread in flight, [`Pool::has_room`]);
    /// `false` when there are none left. Each worker reads a batch from the
    /// state right after the HEAD; the outputs are merged in order as
    /// [`par`](crate::par) merges chunks. An error stops the trees at the
    /// batch that gave it (the trees before it are yielded first).
    fn build_parallel(&mut self) -> Result<bool, Error> {
        if self.pool.is_none() {
            let (Some(shared), Some(state)) = (self.shared.clone(), self.state.as_ref()) else {
                return Err(Error::internal("no reader state for parallel batches"));
            };
            // The HEAD's own state: a TRLR read (headless input), a warning
            // after it given.
            let mut merger = Merger::new();
            merger.continue_from(state);
            self.merger = Some(merger);
            let work = batch_reader(state.template(), shared, std::mem::take(&mut self.memo));
            self.pool = Some(Pool::owned(
                "gedcom-elf-records",
                work,
                self.jobs,
                IN_FLIGHT,
            ));
        }
        while self.cut_error.is_none()
            && !self.cut_all
            && self.pool.as_ref().is_some_and(Pool::has_room)
        {
            match self.source.next_piece(self.batch) {
                Ok(Some(piece)) => {
                    if let Some(pool) = self.pool.as_mut() {
                        pool.submit((piece.bytes, piece.lines_before, piece.offset));
                    }
                }
                Ok(None) => self.cut_all = true,
                // Given after the batches before it.
                Err(e) => self.cut_error = Some(e),
            }
        }
        let Some(pool) = self.pool.as_mut() else {
            return Ok(false);
        };
        let Some((out, mut trees, line_base, byte_base, (blank, skip))) = pool.next() else {
            return match self.cut_error.take() {
                Some(e) => Err(e),
                None => Ok(false),
            };
        };
        let chunk = ChunkOut {
            result: out.result,
            diagnostics: out.diagnostics,
            state: out.state,
        };
        let (result, ds) = match self.merger.as_mut() {
            Some(m) => m.push(chunk, line_base + 1 + blank, byte_base + skip as u64),
            None => (chunk.result, chunk.diagnostics),
        };
        for d in ds {
            self.diagnostics.push(d);
        }
        if out.last_read.is_some() {
            self.last_read = out.last_read;
        }
        // With an error, the trees of the records before it, yielded first;
        // the batches after it are not merged.
        self.ready.append(&mut trees);
        if let Err(e) = result {
            self.failed = Some(e);
            self.pool = None;
        }
        Ok(true)
    }

    /// Whether a `TRLR` record was read so far.
    fn seen_trlr(&self) -> bool {
        match &self.merger {
            Some(m) => m.trlr_seen(),
            None => self.state.as_ref().is_some_and(ReadState::seen_trlr),
        }
    }

    fn next_record(&mut self) -> Result<Option<RecordTree>, Error> {
        loop {
            if let Some(t) = self.ready.pop_front() {
                return Ok(Some(t));
            }
            if !self.read_next()? {
                return Ok(None);
            }
        }
    }

    /// Reads and builds the next piece of input; `false` at the end.
    fn read_next(&mut self) -> Result<bool, Error> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if self.records > 0 && self.jobs > 1 {
            return match self.build_parallel()? {
                true => Ok(true),
                false => self.end_of_input(),
            };
        }
        // The first piece is the HEAD alone: its schema types the rest.
        let at_least = if self.records == 0 { 0 } else { self.batch };
        let Some(Piece {
            bytes,
            offset,
            lines_before,
            start,
        }) = self.source.next_piece(at_least)?
        else {
            return self.end_of_input();
        };
        if let Some(start) = start {
            self.start(start);
            if bytes.is_empty() {
                return self.end_of_input();
            }
        }
        self.build(bytes, lines_before, offset).map(|()| true)
    }

    /// The checks at the end of the input; `Ok(false)`.
    fn end_of_input(&mut self) -> Result<bool, Error> {
        if self.records == 0 && !self.config.is_headless() {
            // The reader's own error for an empty input.
            let mut r = Reader::with_config(b"", self.config.clone().encoding(Some(self.encoding)));
            r.next_event()?;
        }
        let problems = self.source.transcode_problems();
        if problems > 0 {
            // The whole-file reader gives this warning first; here the
            // count is known only at the end (as in a stream).
            self.diagnostics.push(utf16_warning(problems));
        }
        if !self.seen_trlr() {
            // At the last line string, as a whole read reports it
            // (line 1, byte 0 when there is none).
            let (line, byte) = self.last_read.unwrap_or((1, 0));
            self.diagnostics
                .push(Diagnostic::missing_trlr(Position { line, byte }));
        }
        Ok(false)
    }
}

/// A batch for a worker: its bytes, the number of lines before it and its
/// byte offset in the input.
type Job = (Bytes, u64, u64);

/// What a worker hands back: the batch's output and trees, its line and
/// byte bases, and where its first line string is (blank lines before it,
/// offset).
type Done = (BatchOut, VecDeque<RecordTree>, u64, u64, (u64, usize));

/// The worker threads that read batches for [`Records::jobs`], kept across
/// calls of the iterator. Dropping it stops them (each finishes the batch
/// it is reading) and joins them.
type BatchPool = Pool<Job, Done, Owned<Box<dyn Fn(Job) -> Done + Send + Sync>>>;

/// What a worker does with a batch: reads it from the state right after
/// the HEAD (`template`) and splits it into trees. Each batch takes one of
/// the type-resolution memos left by the batches before (the HEAD's at
/// first) and leaves it for a later one.
fn batch_reader(
    template: ReadState,
    shared: Arc<Shared>,
    memo: ResolveMemo,
) -> Box<dyn Fn(Job) -> Done + Send + Sync> {
    let spare = Mutex::new(Vec::<ResolveMemo>::new());
    Box::new(move |(bytes, line_base, byte_base): Job| {
        let first = first_line_string(&bytes);
        let taken = spare.lock().ok().and_then(|mut s| s.pop());
        let memo = taken.unwrap_or_else(|| memo.clone());
        let reader = Reader::resume(&bytes, 0, bytes.len(), template.clone(), byte_base);
        let mut trees = VecDeque::new();
        let bases = (line_base, byte_base);
        let mut out = read_batch(reader, &bytes, shared.clone(), bases, memo, &mut trees);
        if let Ok(mut s) = spare.lock() {
            s.push(std::mem::take(&mut out.memo));
        }
        (out, trees, line_base, byte_base, first)
    })
}

/// What reading one batch gives.
struct BatchOut {
    /// The error that stopped the reader, if one did. Its record trees
    /// went to the sink (with an error, those of the records before it).
    result: Result<(), Error>,
    /// Its diagnostics (before the error, if any), numbered in the whole
    /// input; encoding warnings left out (they were given at the start).
    diagnostics: Vec<Diagnostic>,
    state: ReadState,
    /// The number and byte offset of its last line string, when it had one.
    last_read: Option<(u64, u64)>,
    memo: ResolveMemo,
    /// After an error: where the first record the reader did not finish
    /// begins (an offset in the batch).
    failed_at: usize,
}

/// `e` with its line number moved from the piece's to the whole input's.
fn relocate(e: &Error, line_base: u64) -> Error {
    let fix = |p: Position| Position {
        line: p.line + line_base,
        ..p
    };
    Error::new(e.kind(), e.position().map(fix), e.message())
}

/// Reads one batch of whole records (`reader` over `bytes`, lines numbered
/// from 1; `line_base` lines of the input come before them) and splits it
/// into a tree per record, handed to `sink` in order. Runs on any thread.
fn read_batch(
    reader: Reader<'_>,
    bytes: &Bytes,
    shared: Arc<Shared>,
    (line_base, byte_base): (u64, u64),
    memo: ResolveMemo,
    sink: &mut VecDeque<RecordTree>,
) -> BatchOut {
    // Kept to read the records before an error again (strict mode).
    let restart = reader.config().is_strict().then(|| reader.clone());
    let bases = (line_base, byte_base);
    let out = read_records(reader, bytes, shared.clone(), bases, memo, sink);
    if let (Err(_), Some(restart)) = (&out.result, restart) {
        // The records the reader finished before the error are yielded
        // before it, as they are when read in batches of one record: read
        // them again, without the record that failed.
        let cut = out.failed_at.min(bytes.len());
        if cut > 0 {
            // Succeeds: the part holds only records the reader finished.
            let part = restart.first_chunk(cut);
            let memo = ResolveMemo::default();
            read_records(part, &bytes.slice(..cut), shared, bases, memo, sink);
        }
    }
    out
}

/// [`read_batch`] without the second reading after an error.
fn read_records(
    mut reader: Reader<'_>,
    bytes: &Bytes,
    shared: Arc<Shared>,
    (line_base, byte_base): (u64, u64),
    memo: ResolveMemo,
    sink: &mut VecDeque<RecordTree>,
) -> BatchOut {
    let lines_before = reader.stats().lines;
    // Where the records that were ended end (the next one's line start).
    let mut ended = 0usize;
    let fix = move |p: Position| Position {
        line: p.line + line_base,
        ..p
    };
    let mut diagnostics = Vec::new();
    // Where each record's first line string starts.
    let mut starts: Vec<usize> = Vec::new();
    let mut builder = match Builder::new(bytes, shared, bytes.len() / 16 + 4, false) {
        Ok(b) => b,
        Err(e) => {
            return BatchOut {
                result: Err(e),
                diagnostics,
                state: reader.into_state(),
                last_read: None,
                memo,
                failed_at: 0,
            }
        }
    };
    builder.memo = Some(memo);
    let failure = loop {
        // Matched by reference: moving each event out of the `Result`
        // and then out of the `Option` copied it twice.
        let next = reader.next_event();
        if !reader.diagnostics().is_empty() {
            for d in reader.drain_diagnostics() {
                // The encoding warnings were given when reading began.
                if d.kind == DiagnosticKind::Encoding {
                    continue;
                }
                let position = fix(d.position);
                diagnostics.push(Diagnostic { position, ..d });
            }
        }
        match &next {
            Ok(Some(Event::Begin(b))) => {
                if b.level == 0 {
                    starts.push(b.span.start);
                }
                if let Err(e) = builder.begin(b) {
                    break Some(e);
                }
            }
            Ok(Some(Event::End(e))) => {
                builder.end();
                if e.level == 0 {
                    ended = starts.len();
                }
            }
            Ok(None) => break None,
            Err(e) => break Some(relocate(e, line_base)),
        }
    };
    let state = reader.into_state();
    let last_read = (state.stats().lines > lines_before).then(|| {
        let p = fix(Position {
            line: state.last_line(),
            byte: state.last_byte(),
        });
        (p.line, p.byte)
    });
    let line_start = |s: usize| {
        let before = bytes[..s.min(bytes.len())]
            .iter()
            .rev()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        s - before
    };
    if let Some(e) = failure {
        // The first record not ended began at its line, or is the one whose
        // first line gave the error.
        let at = match starts.get(ended) {
            Some(&s) => s,
            None => e
                .position()
                .map_or(0, |p| p.byte.saturating_sub(byte_base) as usize),
        };
        return BatchOut {
            result: Err(e),
            diagnostics,
            state,
            last_read,
            memo: ResolveMemo::default(),
            failed_at: line_start(at),
        };
    }
    let memo = builder.memo.take().unwrap_or_default();
    let mut core = builder.finish();
    core.line_offset = line_base;
    let cores = core.split_records();
    // Each record's bytes run from its first line's first byte (leading
    // whitespace included; the batch's start for the first record) to
    // where the next record's begin.
    let line_start_or_end = |i: usize| starts.get(i).map_or(bytes.len(), |&s| line_start(s));
    let known = starts.len() == cores.len();
    let text = Arc::new(OnceLock::new());
    sink.reserve(cores.len());
    for (i, core) in cores.into_iter().enumerate() {
        let (from, to) = if !known {
            (0, bytes.len())
        } else if i == 0 {
            (0, line_start_or_end(1))
        } else {
            (line_start(starts[i]), line_start_or_end(i + 1))
        };
        if core.len() > 0 {
            // Pushed as made: a record tree is about 450 bytes, and each
            // move through an iterator adapter copied it.
            sink.push_back(RecordTree {
                buf: bytes.clone(),
                bytes: bytes.slice(from..to),
                text: text.clone(),
                core,
            });
        }
    }
    BatchOut {
        result: Ok(()),
        diagnostics,
        state,
        last_read,
        memo,
        failed_at: 0,
    }
}

impl<R: Read> Iterator for Records<R> {
    type Item = Result<RecordTree, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(t)) => Some(Ok(t)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_of_one_batch_share_their_kinds_instead_of_copying_them() {
        // Every record has a tag of its own, and one a too-deep line (whose
        // payload is made outside the input): copying the batch's tables
        // into each of its trees took time quadratic in the batch.
        let mut input = String::from("0 HEAD\n");
        for i in 0..2000 {
            input.push_str(&format!("0 _T{i} x\n"));
        }
        input.push_str("0 _D\n3  DEEP  y\n0 TRLR\n");
        let trees: Vec<RecordTree> = Records::new(input.as_bytes()).map(Result::unwrap).collect();
        assert_eq!(trees.len(), 2003);
        let (head, rest) = trees.split_first().unwrap();
        assert!(!head.core.shares_tables_with(&rest[0].core));
        for t in &rest[1..] {
            assert!(t.core.shares_tables_with(&rest[0].core));
        }
        // Each still reads its own tag, and the made payload.
        assert_eq!(rest[1999].root().tag(), "_T1999");
        let deep = rest[2000].root().children().next().unwrap();
        assert_eq!(deep.text().as_deref(), Some("3 DEEP  y"));
    }

    #[test]
    fn trees_of_one_batch_share_one_text_copy_made_on_first_navigation() {
        let input = "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE caf\u{e9}\n0 @N2@ NOTE na\u{ef}ve\n0 TRLR\n";
        let trees: Vec<RecordTree> = Records::new(input.as_bytes()).map(Result::unwrap).collect();
        let (a, b) = (&trees[1], &trees[2]);
        assert!(Arc::ptr_eq(&a.text, &b.text));
        assert!(a.text.get().is_none(), "made only when a node is asked for");
        assert_eq!(a.root().text().as_deref(), Some("caf\u{e9}"));
        // The copy is the batch's valid prefix, so `b` finds it made and its
        // payload is a slice of it.
        let copy = b.text.get().expect("made by `a`'s navigation");
        let text = b.root().text().unwrap();
        assert_eq!(text, "na\u{ef}ve");
        let at = text.as_ptr() as usize - copy.as_ptr() as usize;
        assert!(at + text.len() <= copy.len());
        assert!(b.memory_bytes() >= copy.len());
    }
}
