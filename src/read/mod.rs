//! The structure reader: line strings → begin/end events (seed §4).
//!
//! [`Reader`] pulls one [`Event`] at a time from a byte slice. It applies,
//! in one pass and without recursion, the rules of seed §4.1-§4.5:
//! previous levels, too-deep lines and unparsable line strings (turned
//! into `ERROR` structures), `CONT`/`CONC` additional lines (kept raw in the
//! [`Payload`], joined only on request), and reports every recovered
//! problem as a [`Diagnostic`].

mod config;
mod head;

use std::borrow::Cow;
use std::sync::Arc;

pub use config::ReaderConfig;

use crate::diag::{Diagnostic, DiagnosticKind, Error, ErrorKind, Position, Severity};
use crate::encoding::{Detection as EncodingInfo, Encoding, EncodingSource};
use crate::escape::EscapeTable;
use crate::event::{Begin, End, Event, Origin, Span, Value, Xref};
use crate::payload::{Decoding, Payload};
use crate::scan::{is_pointer, Cursor, Line, LineError, Lines, Scanned, TagKind};

const ERROR_TAG: &str = "ERROR";

/// How many bytes from the start decide whether a missing `CHAR` line is
/// worth a warning (defaulting to ANSEL matters only for non-ASCII text).
pub(crate) const HEAD_ASCII_WINDOW: usize = 64 << 10;

/// Counters kept while reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Non-blank line strings read.
    pub lines: u64,
    /// Structures begun (Begin events).
    pub structures: u64,
    /// Greatest structure level seen.
    pub max_level: u32,
    /// Diagnostics by kind, indexed like [`DiagnosticKind::ALL`].
    pub diagnostics: Vec<u64>,
    /// Diagnostics that were counted but not retained (see
    /// [`ReaderConfig::max_retained_diagnostics`]).
    pub diagnostics_dropped: u64,
}

impl ReadStats {
    /// How many diagnostics of `kind` were reported.
    pub fn count(&self, kind: DiagnosticKind) -> u64 {
        DiagnosticKind::ALL
            .iter()
            .position(|&k| k == kind)
            .and_then(|i| self.diagnostics.get(i).copied())
            .unwrap_or(0)
    }

    /// How many error-severity diagnostics were reported.
    pub fn errors(&self) -> u64 {
        DiagnosticKind::ALL
            .iter()
            .zip(&self.diagnostics)
            .filter(|(k, _)| k.severity() == Severity::Error)
            .map(|(_, n)| n)
            .sum()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Start,
    Body,
    Closing,
    Done,
}

/// An open structure.
#[derive(Clone, Copy, Debug)]
struct Frame<'a> {
    /// The level written in the input (levels nest by it).
    written: u32,
    tag: &'a str,
}

/// What a line contributes to its Begin, once classified.
struct Head<'a> {
    tag: &'a str,
    xref: Option<&'a [u8]>,
    origin: Origin,
    /// The first line's payload as a range of the input, trailing
    /// whitespace removed and kept.
    first: Option<(usize, usize)>,
    first_untrimmed: Option<(usize, usize)>,
    /// A too-deep line re-serialised, when that differs from the input.
    made: Option<Vec<u8>>,
}

/// What a reader is set up with for a whole input, fixed once the HEAD was
/// read: the configuration, the encoding and how it was decided, how
/// payloads decode, the schema's escape table. Cheap to clone (the encoding
/// information is shared): every batch read apart starts from a clone.
#[derive(Clone, Debug)]
struct Setup {
    config: ReaderConfig,
    info: Arc<EncodingInfo>,
    decoding: Decoding,
    escapes: EscapeTable,
}

/// The state of a reader that crosses from one chunk of whole records to
/// the next: the reader owns it while it reads and gives it back
/// ([`Reader::into_state`]); the next chunk's reader takes it
/// ([`Reader::resume`]). Moved, never copied field by field.
///
/// A level-0 line closes every open structure, so input cut just before a
/// level-0 line reads, chunk by chunk, into exactly the events of the whole:
/// only this small state (the [`Setup`], seed §4.1's previous level, whether
/// `TRLR` was seen, the counters, the line number) crosses the cut. A chunk
/// read apart on another thread starts from a [`template`](ReadState::template)
/// instead, and [`par`](crate::par)'s merge makes its output what a
/// sequential read gives. The streaming and parallel readers are built on
/// it.
#[derive(Clone, Debug)]
pub(crate) struct ReadState {
    setup: Setup,
    /// Level of the closest preceding line not tagged CONT, CONC or ERROR.
    previous_level: Option<u32>,
    /// CONT/CONC lines at this level directly after a too-deep line are
    /// its children, not stray continuation lines.
    error_children: Option<u32>,
    seen_trlr: bool,
    warned_after_trlr: bool,
    stats: ReadStats,
    /// The number and (global) byte offset of the last line read: what
    /// [`Reader::last_read`] gives before a resumed reader has read a line,
    /// so a chunk with no line string carries them on.
    last_line: u64,
    last_byte: u64,
    /// Number of the line where the next chunk starts.
    pub(crate) next_line: u64,
}

impl ReadState {
    /// The state before any line, with `setup`.
    fn new(setup: Setup) -> ReadState {
        ReadState {
            setup,
            previous_level: None,
            error_children: None,
            seen_trlr: false,
            warned_after_trlr: false,
            stats: ReadStats {
                diagnostics: vec![0; DiagnosticKind::ALL.len()],
                ..ReadStats::default()
            },
            last_line: 1,
            last_byte: 0,
            next_line: 1,
        }
    }

    /// The state a chunk read apart starts from (parallel reading): this
    /// one's setup (configuration, encoding, escapes); nothing read yet,
    /// lines numbered from 1.
    pub(crate) fn template(&self) -> ReadState {
        ReadState::new(self.setup.clone())
    }

    /// Adds `off` to the line numbers of a chunk that was read numbered
    /// from line 1 (see [`crate::par`]'s relative numbering).
    pub(crate) fn shift_lines(&mut self, off: u64) {
        self.last_line = self.last_line.saturating_add(off);
        self.next_line = self.next_line.saturating_add(off);
    }

    /// Whether a `TRLR` record was read.
    pub(crate) fn seen_trlr(&self) -> bool {
        self.seen_trlr
    }

    /// The counters so far.
    pub(crate) fn stats(&self) -> &ReadStats {
        &self.stats
    }

    /// The encoding information.
    pub(crate) fn info(&self) -> &EncodingInfo {
        &self.setup.info
    }

    /// The escape table in force.
    pub(crate) fn escapes(&self) -> &EscapeTable {
        &self.setup.escapes
    }

    /// The number of the last line read (or carried in).
    pub(crate) fn last_line(&self) -> u64 {
        self.last_line
    }

    /// The byte offset of the last line read, `base` included.
    pub(crate) fn last_byte(&self) -> u64 {
        self.last_byte
    }

    /// The end-of-input check of a chunked read: a missing `TRLR`.
    pub(crate) fn finish(&mut self) -> Option<Diagnostic> {
        if self.seen_trlr {
            return None;
        }
        let kind = DiagnosticKind::MissingTrlr;
        if let Some(i) = DiagnosticKind::ALL.iter().position(|&k| k == kind) {
            self.stats.diagnostics[i] += 1;
        }
        Some(Diagnostic::missing_trlr(Position {
            line: self.last_line,
            byte: self.last_byte,
        }))
    }
}

impl<'a> Reader<'a> {
    /// A reader over `input[..end]` that treats `end` as a chunk boundary:
    /// structures still open there end, but no `TRLR` check is made.
    pub(crate) fn first_chunk(mut self, end: usize) -> Self {
        let end = end.min(self.input.len());
        if self.head_ascii.is_none() {
            // Whether a missing `CHAR` line deserves a warning is judged on
            // the input's first bytes, not on the first chunk's.
            let body = &self.input[self.cursor.position().min(self.input.len())..];
            self.head_ascii = Some(body[..body.len().min(HEAD_ASCII_WINDOW)].is_ascii());
        }
        let (pos, line) = (self.cursor.position().min(end), self.cursor.line_number());
        self.cursor = Cursor::new(&self.input[..end], pos, line);
        self.chunked = true;
        self
    }

    /// Resumes reading at `input[start..end]`, a chunk that starts with a
    /// level-0 line, with the state the chunk before gave back (or a
    /// [`template`](ReadState::template)). Its `next_line` is the number of
    /// the line at `start`; `base` is added to byte offsets in diagnostics.
    pub(crate) fn resume(
        input: &'a [u8],
        start: usize,
        end: usize,
        state: ReadState,
        base: u64,
    ) -> Self {
        let end = end.min(input.len());
        let cursor = Cursor::new(&input[..end], start.min(end), state.next_line);
        let mut r = Reader::with_state(input, state);
        r.cursor = cursor;
        r.base = base;
        r.resumed = true;
        r.chunked = true;
        r
    }

    /// Gives back the state, to be carried into the next chunk. Meaningful
    /// once this reader has returned its last event.
    pub(crate) fn into_state(self) -> ReadState {
        let (last_line, last_byte) = self.last_read();
        let next_line = self.cursor.line_number();
        ReadState {
            last_line,
            last_byte,
            next_line,
            ..self.state
        }
    }

    /// Runs the start (HEAD check, schema) and returns the state a later
    /// chunk starts from.
    pub(crate) fn template(&mut self) -> Result<ReadState, Error> {
        if self.phase == Phase::Start {
            self.start()?;
        }
        Ok(self.state.template())
    }

    /// Offset of the next unscanned byte.
    pub(crate) fn position(&self) -> usize {
        self.cursor.position()
    }

    /// Tells the reader whether the input's first bytes are ASCII (a
    /// stream's first batch sees only itself).
    pub(crate) fn set_head_ascii(&mut self, ascii: bool) {
        self.head_ascii = Some(ascii);
    }

    /// Whether this reader is past its last event.
    pub(crate) fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }
}

/// A pull reader over a byte slice, yielding borrowed [`Event`]s.
///
/// ```
/// use gedcom_elf::{Event, Reader};
///
/// let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 NOTE a@@b\n2 CONT c\n0 TRLR\n";
/// let mut reader = Reader::from_slice(input);
/// let mut names = Vec::new();
/// while let Some(event) = reader.next_event()? {
///     if let Event::Begin(b) = event {
///         if b.tag == "NAME" || b.tag == "NOTE" {
///             names.push(b.text().unwrap().into_owned());
///         }
///     }
/// }
/// assert_eq!(names, ["Ada /Lovelace/", "a@b\nc"]);
/// assert_eq!(reader.drain_diagnostics().count(), 0);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
///
/// # Why it is also an `Iterator`
/// Events borrow from the input slice (`'a`), never from the reader, so the
/// slice reader can implement [`Iterator`] with `Item = Result<Event<'a>,
/// Error>`: `for event in Reader::from_slice(input)`. Use
/// [`Reader::next_event`] in a `while let` loop when you also want to drain
/// diagnostics between events. (A reader over `BufRead` cannot be an
/// iterator: its events borrow a buffer the caller lends for each call.)
///
/// # The fast idiom
/// An [`Event`] is a plain value of 128 bytes that borrows the input, small
/// enough that moving it out of the `Result` (`while let Some(e) =
/// reader.next_event()?`) compiles to register moves rather than calls to
/// `memcpy`. Matching on a reference costs no copy at all, and stays the
/// fastest for a loop that hands whole events on: on a generated file,
/// callgrind counts 576 instructions per line for it against 617 for a
/// loop that moves each event into a variable and passes that on by
/// reference (685 when events were 160 bytes), and the wall time differs
/// more, 0.56 s against 0.80 s on 300 MB:
///
/// ```
/// # use gedcom_elf::{Event, Reader};
/// # let input = b"0 HEAD\n0 @I1@ INDI\n1 NAME Ada\n0 TRLR\n";
/// let mut reader = Reader::from_slice(input);
/// let mut records = 0;
/// while let Some(event) = reader.next_event().as_ref().map_err(Clone::clone)? {
///     if let Event::Begin(b) = event {
///         records += usize::from(b.level == 0);
///     }
/// }
/// assert_eq!(records, 3);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
///
/// # Memory
/// State is O(depth): one small frame per open structure, no recursion (a
/// nesting of 100,000 levels is fine), no allocation per line.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    input: &'a [u8],
    /// The window being read, as `str`, when it is valid UTF-8 as a whole,
    /// and the offset in `input` where that `str` begins.
    input_str: Option<&'a str>,
    input_str_base: usize,
    /// Reading a chunk of whole records (see [`ReadState`]): no HEAD check at
    /// the start, no TRLR check at the end.
    resumed: bool,
    chunked: bool,
    /// Added to byte offsets in diagnostics (a streamed batch's offset).
    base: u64,
    /// Whether the input's first `HEAD_ASCII_WINDOW` bytes are ASCII, when
    /// the caller knows better than the window being read (a stream).
    head_ascii: Option<bool>,
    cursor: Cursor<'a>,
    /// An error found before reading began (reported by the first call).
    deferred: Option<Error>,
    phase: Phase,
    stack: Vec<Frame<'a>>,
    /// The line read ahead, waiting for its Begin (when `has_pending`).
    /// For an unparsable line, `level` is previous level + 1.
    pending: Scanned,
    has_pending: bool,
    /// Offset before which no payload can hold a problem worth a
    /// diagnostic: the input up to here is valid in its encoding (UTF-8, or
    /// ASCII for the others) and holds no NUL and no unicode escape.
    clean_until: usize,
    diagnostics: Vec<Diagnostic>,
    /// What crosses from one chunk to the next (see [`ReadState`]).
    state: ReadState,
}

impl<'a> Reader<'a> {
    /// A reader with the default [`ReaderConfig`].
    pub fn from_slice(input: &'a [u8]) -> Self {
        Reader::with_config(input, ReaderConfig::default())
    }

    /// A reader with `config`. The encoding is detected (or taken from
    /// [`ReaderConfig::encoding`]); nothing is read until the first
    /// [`Reader::next_event`]. UTF-16 input cannot be read in place: read it
    /// through [`Input`](crate::Input), which transcodes it once.
    pub fn with_config(input: &'a [u8], config: ReaderConfig) -> Self {
        match crate::encoding::detect(input, config.encoding).map_err(Error::from) {
            Ok(info) if info.encoding.is_utf16() => {
                let mut r = Reader::prepared(&[], config, info, Encoding::Utf8);
                r.deferred = Some(Error::new(
                    ErrorKind::UnsupportedEncoding,
                    None,
                    "utf-16 input must be transcoded before it is read in place: read it through gedcom_elf::Input",
                ));
                r
            }
            Ok(info) => {
                let skip = info.bom_len;
                let encoding = info.encoding;
                let mut r = Reader::prepared(input, config, info, encoding);
                r.cursor = Cursor::new(input, skip, 1);
                r
            }
            Err(e) => {
                // Nothing is read: the error is reported by the first call.
                let info = EncodingInfo {
                    encoding: Encoding::Utf8,
                    source: EncodingSource::Default,
                    bom_len: 0,
                    detected: None,
                    char_value: None,
                    char_line: None,
                    warnings: Vec::new(),
                    head_ok: false,
                };
                let mut r = Reader::prepared(input, config, info, Encoding::Utf8);
                r.deferred = Some(e);
                r
            }
        }
    }

    /// A reader over bytes whose encoding was decided already.
    pub(crate) fn prepared(
        input: &'a [u8],
        config: ReaderConfig,
        info: EncodingInfo,
        payload_encoding: Encoding,
    ) -> Self {
        let decoding = Decoding {
            encoding: payload_encoding,
            trailing_whitespace: config.trailing_whitespace,
            decomposed: config.decomposed,
            ..Decoding::default()
        };
        let setup = Setup {
            config,
            info: Arc::new(info),
            decoding,
            escapes: EscapeTable::default(),
        };
        Reader::with_state(input, ReadState::new(setup))
    }

    /// A reader over `input` (from its start) in `state`.
    fn with_state(input: &'a [u8], state: ReadState) -> Self {
        Reader {
            input,
            input_str: None,
            input_str_base: 0,
            resumed: false,
            chunked: false,
            base: 0,
            head_ascii: None,
            cursor: Cursor::new(input, 0, state.next_line),
            deferred: None,
            phase: Phase::Start,
            stack: Vec::new(),
            pending: Scanned::default(),
            has_pending: false,
            clean_until: 0,
            diagnostics: Vec::new(),
            state,
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &ReaderConfig {
        &self.state.setup.config
    }

    /// The character encoding of the input.
    pub fn encoding(&self) -> Encoding {
        self.state.setup.info.encoding
    }

    /// The character encoding of the input and how it was decided.
    pub fn encoding_info(&self) -> &EncodingInfo {
        &self.state.setup.info
    }

    /// The escape-preservation table in force (from the HEAD's schema, or
    /// the default schema). Complete once the first event was read.
    pub fn escape_table(&self) -> &EscapeTable {
        &self.state.setup.escapes
    }

    /// The input being read.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// Diagnostics reported and not yet drained, oldest first.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Removes and yields the diagnostics not yet drained, oldest first.
    /// Draining after each event keeps memory flat on files with many
    /// problems.
    pub fn drain_diagnostics(&mut self) -> std::vec::Drain<'_, Diagnostic> {
        self.diagnostics.drain(..)
    }

    /// Counters so far.
    pub fn stats(&self) -> &ReadStats {
        &self.state.stats
    }

    /// Depth of the structure most recently begun and not ended (0 when
    /// none is open).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The next event, or `None` after the last.
    ///
    /// # Errors
    /// * [`ErrorKind::NotGedcom`] when the first line string is not `0 HEAD`
    ///   (and [`ReaderConfig::headless`] is off): no event is produced;
    /// * [`ErrorKind::Strict`] in strict mode, at the first error-severity
    ///   diagnostic.
    ///
    /// After an error, further calls return `Ok(None)`.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event<'a>>, Error> {
        // The hot path: a line is waiting; either it closes the innermost
        // open structure or it begins a new one.
        if self.phase == Phase::Body && self.has_pending {
            if let Some(top) = self.stack.last() {
                if top.written >= self.pending.level {
                    return Ok(Some(self.pop()));
                }
            }
            return self.begin();
        }
        self.next_slow()
    }

    #[inline(never)]
    fn next_slow(&mut self) -> Result<Option<Event<'a>>, Error> {
        loop {
            match self.phase {
                Phase::Start => self.start()?,
                Phase::Body => {
                    if self.has_pending {
                        return self.next_event();
                    }
                    self.phase = Phase::Closing;
                }
                Phase::Closing => {
                    if !self.stack.is_empty() {
                        return Ok(Some(self.pop()));
                    }
                    self.phase = Phase::Done;
                    if !self.state.seen_trlr && !self.chunked {
                        let (line, byte) = self.last_read();
                        self.report_at(
                            DiagnosticKind::MissingTrlr,
                            Position { line, byte },
                            crate::diag::MISSING_TRLR.into(),
                        )?;
                    }
                }
                Phase::Done => return Ok(None),
            }
        }
    }

    /// `input[start..end]` as `&'a str` when the window is known to be
    /// valid UTF-8 and payloads are UTF-8.
    #[inline]
    fn str_of(&self, start: usize, end: usize) -> Option<&'a str> {
        if self.state.setup.decoding.encoding != Encoding::Utf8 {
            return None;
        }
        self.input_str?
            .get(start.checked_sub(self.input_str_base)?..end - self.input_str_base)
    }

    /// The tag `input[start..end]` as `&'a str`. Tags are ASCII by the
    /// grammar; when the whole input is known to be valid UTF-8 this is a
    /// slice of it, with no per-line validation.
    #[inline]
    fn tag_str(&self, start: usize, end: usize) -> &'a str {
        if let Some(s) = self.input_str {
            if let Some(t) = start
                .checked_sub(self.input_str_base)
                .and_then(|a| s.get(a..end - self.input_str_base))
            {
                return t;
            }
        }
        std::str::from_utf8(&self.input[start..end]).unwrap_or(ERROR_TAG)
    }

    #[inline]
    fn pop(&mut self) -> Event<'a> {
        let frame = self.stack.pop();
        Event::End(End {
            level: self.stack.len() as u32,
            tag: Cow::Borrowed(frame.map_or(ERROR_TAG, |f| f.tag)),
        })
    }

    fn start(&mut self) -> Result<(), Error> {
        if let Some(e) = self.deferred.take() {
            self.phase = Phase::Done;
            return Err(e);
        }
        if !self.resumed {
            self.check_head()?;
        }
        // Payload diagnostics need a look at each payload only when the
        // input holds something that could produce one.
        let window = self.cursor.input();
        let from = self.cursor.position();
        let body = &window[from..];
        // The longest valid UTF-8 prefix, as `str`: tags and payloads in it
        // need no validation of their own.
        let (valid, input_str) = match simdutf8::compat::from_utf8(body) {
            Ok(s) => (body.len(), Some(s)),
            // The valid prefix, validated again only when there is an invalid
            // octet (one pass over a valid input).
            Err(e) => {
                let valid = e.valid_up_to();
                (valid, simdutf8::basic::from_utf8(&body[..valid]).ok())
            }
        };
        self.input_str = input_str;
        self.input_str_base = from;
        let clean = match self.state.setup.decoding.encoding {
            Encoding::Utf8 => valid,
            _ => ascii_prefix(body),
        };
        let clean = [memchr::memchr(0, body), memchr::memmem::find(body, b"@#U")]
            .into_iter()
            .flatten()
            .fold(clean, usize::min);
        self.clean_until = from + clean;
        self.phase = Phase::Body;
        if !self.resumed {
            // Defaulting to ANSEL only matters when there are non-ASCII
            // bytes; whether there are is judged on the first
            // `HEAD_ASCII_WINDOW` bytes, which a stream has before it reads.
            let defaulted = self.state.setup.info.source == EncodingSource::Default
                && self.state.setup.info.char_value.is_none();
            let head_ascii = self
                .head_ascii
                .unwrap_or_else(|| body[..body.len().min(HEAD_ASCII_WINDOW)].is_ascii());
            if !(defaulted && head_ascii) {
                for w in self.state.setup.info.warnings.clone() {
                    let line = self.state.setup.info.char_line.unwrap_or(1) as u64;
                    self.report(DiagnosticKind::Encoding, line, 0, w)?;
                }
            }
        }
        self.read_ahead();
        Ok(())
    }

    /// The first line must be `0 HEAD` (seed §3.2); the HEAD's schema gives
    /// the escape-preserving tags.
    fn check_head(&mut self) -> Result<(), Error> {
        let mut probe = self.probe();
        match probe.next() {
            Some(raw) if head::is_head_line(raw.text) => {
                let trailing = self.state.setup.config.trailing_whitespace;
                self.state.setup.escapes = head::escape_table(probe, trailing, &mut |_, _, _| {});
            }
            _ if self.state.setup.config.headless => {}
            other => {
                self.phase = Phase::Done;
                let (line, byte, found) = match other {
                    Some(raw) => (
                        raw.number,
                        raw.start,
                        String::from_utf8_lossy(&raw.text[..raw.text.len().min(40)]).into_owned(),
                    ),
                    None => (1, 0, String::new()),
                };
                let message = if found.is_empty() {
                    "not a gedcom file: the input is empty".to_string()
                } else {
                    format!("not a gedcom file: the first line is {found:?}, not \"0 HEAD\"")
                };
                return Err(Error::new(
                    ErrorKind::NotGedcom,
                    Some(Position {
                        line,
                        byte: byte as u64,
                    }),
                    message,
                ));
            }
        }
        Ok(())
    }

    /// The line strings from the reader's position on.
    fn probe(&self) -> Lines<'a> {
        let c = &self.cursor;
        Lines::starting_at(c.input(), c.position(), c.line_number())
    }

    /// The HEAD's escape table as the reader builds it (seed §6.2), for a
    /// reader that has not started: the tree's schema takes its `ESC` lines
    /// from here, with each payload that is not a tag and escape types given
    /// to `rejected` (line number, byte offset, payload).
    pub(crate) fn head_escapes(&self, rejected: &mut dyn FnMut(u64, usize, &[u8])) -> EscapeTable {
        let mut probe = self.probe();
        match probe.next() {
            Some(raw) if head::is_head_line(raw.text) => {
                head::escape_table(probe, self.state.setup.config.trailing_whitespace, rejected)
            }
            _ => EscapeTable::default(),
        }
    }

    /// The number and start of the last line read, for end-of-input
    /// diagnostics. The line read ahead stays in `pending` at the end of
    /// the input (the cursor leaves it as it was), and line numbers start at
    /// 1, so a number of 0 means no line has been read yet. (Copying the two
    /// values out for every line compiled to one 16-byte load of two fields
    /// just stored apart, which the processor cannot forward from the
    /// stores.)
    /// Byte offsets are the whole input's (`base` included).
    fn last_read(&self) -> (u64, u64) {
        if self.pending.number == 0 {
            (self.state.last_line, self.state.last_byte)
        } else {
            (self.pending.number, self.base + self.pending.start as u64)
        }
    }

    /// Reads the next line into `pending`, computing the level of an
    /// unparsable line; `false` at the end of the input.
    #[inline(always)]
    fn read_ahead(&mut self) -> bool {
        if !self.cursor.next_into(&mut self.pending) {
            self.has_pending = false;
            return false;
        }
        self.has_pending = true;
        self.state.stats.lines += 1;
        if self.pending.error.is_some() {
            self.pending.level = self.state.previous_level.map_or(0, |p| p.saturating_add(1));
        }
        true
    }

    /// The line read ahead as slices.
    fn line_of(&self, p: &Scanned) -> Result<Line<'a>, LineError> {
        let input = self.input;
        match p.error {
            Some(e) => Err(e),
            None => Ok(Line {
                level: p.level,
                xref: p.has_xref().then(|| &input[p.xref_start..p.xref_end]),
                tag: &input[p.tag_start..p.tag_end],
                payload: p.payload().map(|(a, b)| &input[a..b]),
                payload_untrimmed: p.payload_untrimmed().map(|(a, b)| &input[a..b]),
            }),
        }
    }

    fn report(
        &mut self,
        kind: DiagnosticKind,
        line: u64,
        byte: usize,
        message: String,
    ) -> Result<(), Error> {
        let byte = self.base + byte as u64;
        self.report_at(kind, Position { line, byte }, message)
    }

    /// [`Reader::report`] at a position in the whole input (`base`
    /// included).
    fn report_at(
        &mut self,
        kind: DiagnosticKind,
        position: Position,
        message: String,
    ) -> Result<(), Error> {
        if let Some(i) = DiagnosticKind::ALL.iter().position(|&k| k == kind) {
            self.state.stats.diagnostics[i] += 1;
        }
        let d = Diagnostic {
            kind,
            position,
            message,
        };
        let err = (self.state.setup.config.strict && kind.severity() == Severity::Error)
            .then(|| Error::strict(&d));
        if self.diagnostics.len() < self.state.setup.config.max_retained_diagnostics {
            self.diagnostics.push(d);
        } else {
            self.state.stats.diagnostics_dropped += 1;
        }
        match err {
            Some(e) => {
                self.phase = Phase::Done;
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// Everything about a line that is not the common case: unparsable and
    /// too-deep lines, CONT/CONC and ERROR tags, lines after TRLR.
    #[cold]
    #[inline(never)]
    fn unusual(&mut self, p: &Scanned) -> Result<Head<'a>, Error> {
        let text = &self.input[p.start..p.end];
        let (line, byte) = (p.number, p.start);
        let parent_written = self.stack.last().map(|f| f.written);
        let error_children = self.state.error_children.take();
        let head = match self.line_of(p) {
            Err(e) => {
                let msg = format!(
                    "unparsable line string ({}): {:?}",
                    e.describe(),
                    String::from_utf8_lossy(&text[..text.len().min(60)])
                );
                self.report(DiagnosticKind::UnparsableLine, line, byte, msg)?;
                Head {
                    tag: ERROR_TAG,
                    xref: None,
                    origin: Origin::UnparsableLine,
                    first: Some((p.start, p.trimmed_end)),
                    first_untrimmed: Some((p.start, p.end)),
                    made: None,
                }
            }
            Ok(l) => {
                let too_deep = match self.state.previous_level {
                    Some(prev) => l.level > prev.saturating_add(1),
                    None => l.level > 0,
                } || parent_written.is_some_and(|w| l.level > w.saturating_add(1));
                let is_continuation = l.tag == b"CONT" || l.tag == b"CONC";
                let previous = self.state.previous_level;
                if !is_continuation && l.tag != ERROR_TAG.as_bytes() {
                    self.state.previous_level = Some(l.level);
                }
                if too_deep {
                    let msg = match (previous, parent_written) {
                        (Some(prev), _) if l.level > prev.saturating_add(1) => {
                            format!("too-deep line: level {} follows level {prev}", l.level)
                        }
                        (None, _) => format!("too-deep line: level {} begins the input", l.level),
                        (_, w) => format!(
                            "too-deep line: level {} inside a structure written at level {}",
                            l.level,
                            w.unwrap_or(0)
                        ),
                    };
                    self.report(DiagnosticKind::TooDeep, line, byte, msg)?;
                    Head {
                        tag: ERROR_TAG,
                        xref: l.xref,
                        origin: Origin::TooDeepLine {
                            original_level: l.level,
                        },
                        first: Some((p.start, p.trimmed_end)),
                        first_untrimmed: None,
                        made: reserialise(&l, &text[..p.trimmed_end - p.start]),
                    }
                } else {
                    let tag = self.tag_str(p.tag_start, p.tag_end);
                    if l.tag == ERROR_TAG.as_bytes() {
                        self.report(
                            DiagnosticKind::ErrorTag,
                            line,
                            byte,
                            "error line: a structure tagged error in the input".into(),
                        )?;
                    } else if is_continuation {
                        if l.xref.is_none() && error_children == Some(l.level) {
                            self.state.error_children = error_children;
                        } else {
                            let msg = format!(
                                "{} line attached to nothing: it does not directly follow the line it would continue",
                                tag.to_ascii_lowercase()
                            );
                            self.report(DiagnosticKind::StrayContinuation, line, byte, msg)?;
                        }
                    }
                    Head {
                        tag,
                        xref: l.xref,
                        origin: Origin::Line,
                        first: p.payload(),
                        first_untrimmed: p.payload_untrimmed(),
                        made: None,
                    }
                }
            }
        };
        if self.state.seen_trlr && !self.state.warned_after_trlr {
            self.state.warned_after_trlr = true;
            self.report(
                DiagnosticKind::AfterTrlr,
                line,
                byte,
                crate::diag::AFTER_TRLR.into(),
            )?;
        }
        Ok(head)
    }

    /// The diagnostics of one payload's bytes (invalid UTF-8, NUL, ...).
    #[inline(never)]
    fn payload_diagnostics(
        &mut self,
        value: Option<&Value<'a>>,
        line: u64,
        byte: usize,
    ) -> Result<(), Error> {
        if let Some(Value::Text(payload)) = value.filter(|v| may_have_problems(v)) {
            // At most a few kinds per payload: kept inline, no allocation.
            let mut kinds: smallvec::SmallVec<[DiagnosticKind; 4]> = smallvec::SmallVec::new();
            payload.text_with(&mut |k| {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            });
            for k in kinds {
                let enc = self.state.setup.info.encoding;
                let msg = match k {
                    DiagnosticKind::InvalidUnicodeEscape => {
                        "invalid unicode escape kept verbatim".to_string()
                    }
                    DiagnosticKind::NulByte => "nul byte in payload".to_string(),
                    DiagnosticKind::Cesu8 => {
                        "payload holds cesu-8 surrogate pairs (read as the characters they encode)"
                            .to_string()
                    }
                    DiagnosticKind::UnmappedByte if enc == Encoding::Ascii => {
                        "payload holds bytes 80-ff, which ascii does not have; read as windows-1252"
                            .to_string()
                    }
                    DiagnosticKind::UnmappedByte => {
                        format!(
                            "payload holds bytes that {enc} does not assign; replaced by U+FFFD"
                        )
                    }
                    _ => format!("payload is not valid {enc}; bad bytes replaced by U+FFFD"),
                };
                self.report(k, line, byte, msg)?;
            }
        }
        Ok(())
    }

    /// Whether the pending line is a `CONT`/`CONC` additional line at level `child`.
    #[inline(always)]
    fn continues(&self, child: Option<u32>) -> bool {
        let q = &self.pending;
        q.error.is_none() && Some(q.level) == child && q.kind.is_continuation()
    }

    /// Reads the `CONT`/`CONC` additional lines at level `child`, the pending
    /// line being the first, leaving the first other line pending. Returns
    /// where they start and whether the first is a `CONC`, and moves `end`
    /// to the end of the last.
    #[inline(never)]
    fn additional_lines_from_pending(
        &mut self,
        child: Option<u32>,
        end: &mut usize,
    ) -> Result<Option<(usize, bool)>, Error> {
        let mut rest: Option<(usize, bool)> = None;
        loop {
            let q = &self.pending;
            let (number, start, q_end) = (q.number, q.start, q.end);
            let conc = q.kind == TagKind::Conc;
            if q.has_xref() {
                // Family Tree Maker writes `1 @N1@ CONT ...` in NOTE records.
                self.report(
                    DiagnosticKind::ContinuationXref,
                    number,
                    start,
                    "xref on a continuation line ignored".into(),
                )?;
            }
            rest.get_or_insert((start, conc));
            *end = q_end;
            if !self.read_ahead() || !self.continues(child) {
                return Ok(rest);
            }
        }
    }

    /// Whether the pending line is the common case: well formed, not too
    /// deep, not tagged `CONT`, `CONC` or `ERROR`, nothing pending from a
    /// too-deep line, before `TRLR`.
    #[inline(always)]
    fn is_plain(&self) -> bool {
        let p = &self.pending;
        p.error.is_none() && {
            let limit = self.state.previous_level.map_or(0, |v| v.saturating_add(1));
            let limit = self
                .stack
                .last()
                .map_or(limit, |f| limit.min(f.written.saturating_add(1)));
            p.level <= limit
                && p.kind == TagKind::Other
                && self.state.error_children.is_none()
                && !self.state.seen_trlr
        }
    }

    /// The Begin of the pending line and its additional lines.
    #[inline(never)]
    fn begin(&mut self) -> Result<Option<Event<'a>>, Error> {
        if !self.has_pending {
            return Err(Error::internal("no line pending"));
        }
        let p = self.pending;
        if !self.is_plain() {
            return self.begin_unusual(&p);
        }
        self.state.previous_level = Some(p.level);
        let input = self.input;
        let head = Head {
            tag: self.tag_str(p.tag_start, p.tag_end),
            xref: p.has_xref().then(|| &input[p.xref_start..p.xref_end]),
            origin: Origin::Line,
            first: p.payload(),
            first_untrimmed: p.payload_untrimmed(),
            made: None,
        };
        self.finish_begin(&p, head)
    }

    /// The Begin of a line that is not plain (see [`Reader::unusual`]).
    #[cold]
    #[inline(never)]
    fn begin_unusual(&mut self, p: &Scanned) -> Result<Option<Event<'a>>, Error> {
        let head = self.unusual(p)?;
        self.finish_begin(p, head)
    }

    /// The rest of a Begin, once its line is classified: the frame, the
    /// additional lines, the value, the payload's diagnostics. Inlined in
    /// both callers, so the plain one loses the branches it cannot take.
    #[inline(always)]
    fn finish_begin(&mut self, p: &Scanned, head: Head<'a>) -> Result<Option<Event<'a>>, Error> {
        let input = self.input;
        let Head {
            tag,
            xref,
            origin,
            first,
            first_untrimmed,
            made,
        } = head;
        let (line, start) = (p.number, p.start);
        let level = self.stack.len() as u32;
        if level == 0 && tag4(tag.as_bytes()) == TRLR {
            self.state.seen_trlr = true;
        }
        self.stack.push(Frame {
            written: p.level,
            tag,
        });
        self.state.stats.structures += 1;
        self.state.stats.max_level = self.state.stats.max_level.max(level);

        // Read ahead: CONT/CONC additional lines directly below, one level
        // deeper (a too-deep line has none: they are its children). They
        // are rare, so their loop is out of line.
        let too_deep = matches!(origin, Origin::TooDeepLine { .. });
        let child = p.level.checked_add(1);
        let mut end = p.end;
        let rest = if !self.read_ahead() || too_deep || !self.continues(child) {
            None
        } else {
            self.additional_lines_from_pending(child, &mut end)?
        };
        if too_deep {
            self.state.error_children = child;
        }

        let keep_first =
            (self.state.setup.config.trailing_whitespace).keeps(matches!(rest, Some((_, true))));
        let first = if keep_first {
            first_untrimmed.or(first)
        } else {
            first
        };
        let decoding = || Decoding {
            preserve: self.state.setup.escapes.lookup(tag.as_bytes()),
            ..self.state.setup.decoding
        };
        let value = match (made, first, rest) {
            (Some(made), ..) => Some(Value::Text(Payload::new(made, decoding()))),
            (None, None, None) => None,
            (None, Some((a, b)), None) => {
                let f = &input[a..b];
                if origin == Origin::Line && is_pointer(f) {
                    Some(Value::Pointer(Xref::new(f)))
                } else {
                    Some(Value::Text(match self.str_of(a, b) {
                        Some(text) => Payload::validated(text, decoding()),
                        None => Payload::new(f, decoding()),
                    }))
                }
            }
            (None, f, Some((rest_start, _))) => {
                // One window from the first line's payload to the end of
                // the additional lines.
                let from = f.map_or(rest_start, |(a, _)| a);
                let first_len = f.map_or(0, |(a, b)| b - a);
                let rest_at = rest_start - from;
                Some(Value::Text(match self.str_of(from, end) {
                    Some(span) => Payload::validated_window(span, first_len, rest_at, decoding()),
                    None => Payload::window(&input[from..end], first_len, rest_at, decoding()),
                }))
            }
        };
        if end > self.clean_until {
            self.payload_diagnostics(value.as_ref(), line, start)?;
        }
        // Built in place: a `map` from `Begin` to the event costs a copy.
        Ok(Some(Event::Begin(Begin {
            level,
            xref: xref.map(Xref::new),
            tag: Cow::Borrowed(tag),
            value,
            line,
            span: Span { start, end },
            origin,
        })))
    }
}

/// The length of the longest ASCII prefix of `b`.
fn ascii_prefix(b: &[u8]) -> usize {
    let mut at = 0;
    for chunk in b.chunks(256) {
        if !chunk.is_ascii() {
            return at + chunk.iter().position(|c| !c.is_ascii()).unwrap_or(0);
        }
        at += chunk.len();
    }
    at
}

/// `false` when a payload cannot produce a payload diagnostic: its raw
/// bytes are ASCII (valid in every supported encoding) with no NUL and no
/// unicode escape. Spares decoding every payload of a file whose few
/// non-ASCII bytes turned payload checks on.
fn may_have_problems(value: &Value<'_>) -> bool {
    let Value::Text(p) = value else {
        return false;
    };
    [p.first_line(), p.additional_lines()].iter().any(|b| {
        !b.is_ascii() || memchr::memchr(0, b).is_some() || memchr::memmem::find(b, b"@#U").is_some()
    })
}

/// The first four bytes of a four-byte tag as a number, else 0: compares
/// tags without a call to `memcmp`.
#[inline(always)]
fn tag4(tag: &[u8]) -> u32 {
    match *tag {
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

const TRLR: u32 = u32::from_le_bytes(*b"TRLR");

/// The too-deep line as a line string with single spaces (seed §4.4), or
/// `None` when `trimmed`, the line string, already is in that form.
fn reserialise(l: &Line<'_>, trimmed: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(trimmed.len());
    out.extend_from_slice(l.level.to_string().as_bytes());
    if let Some(x) = l.xref {
        out.push(b' ');
        out.extend_from_slice(x);
    }
    out.push(b' ');
    out.extend_from_slice(l.tag);
    if let Some(p) = l.payload {
        out.push(b' ');
        out.extend_from_slice(p);
    }
    (out != trimmed).then_some(out)
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Event<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk with no line string (only blank lines) carries on the last
    /// line and byte it was given, instead of pointing at its own start.
    #[test]
    fn a_resumed_reader_that_reads_no_line_carries_the_last_line_and_byte() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n\n\n\n";
        let cut = 20; // after `1 CHAR UTF-8\n`
        let mut first = Reader::from_slice(input).first_chunk(cut);
        while first.next_event().unwrap().is_some() {}
        let state = first.into_state();
        assert_eq!((state.last_line(), state.last_byte()), (2, 7));

        let mut second = Reader::resume(input, cut, 32, state, 0);
        while second.next_event().unwrap().is_some() {}
        let state = second.into_state();
        assert_eq!((state.last_line(), state.last_byte()), (3, 20));

        let mut blank = Reader::resume(input, 32, input.len(), state, 0);
        assert!(blank.next_event().unwrap().is_none());
        let mut state = blank.into_state();
        assert_eq!((state.last_line(), state.last_byte()), (3, 20));
        let missing = state.finish().expect("no trlr was read");
        assert_eq!((missing.position.line, missing.position.byte), (3, 20));
    }
}
