//! The structure reader: line strings → begin/end events (seed §4).
//!
//! [`Reader`] pulls one [`Event`] at a time from a byte slice. It applies,
//! in one pass and without recursion, the rules of seed §4.1-§4.5:
//! previous levels, too-deep lines and unparsable line strings (turned
//! into `ERROR` structures), `CONT`/`CONC` additional lines (kept raw in the
//! [`Payload`](crate::Payload), joined only on request), and reports every recovered
//! problem as a [`Diagnostic`].
//!
//! # GEDCOM 7
//! The same reader reads GEDCOM 7 files in its 7.0 mode: the version is
//! taken from the HEAD's `GEDC.VERS` when reading starts (see
//! [`Reader::version`]; [`ReaderConfig::version`] forces one) and carried
//! to every chunk. In that mode only a line's leading `@@` is unescaped and
//! there are no `@#...@` escapes ([`Payload::text`](crate::Payload::text)),
//! a `CONC` line is a structure of its own (with a
//! [`DiagnosticKind::ConcInGedcom7`] warning) while `CONT` joins as in
//! 5.5.1, trailing spaces stay part of payloads, and octets that are not
//! UTF-8 are read as windows-1252 with an
//! [`InvalidEncoding`](DiagnosticKind::InvalidEncoding) warning. The 5.5.1
//! path pays one comparison per continuation line and nothing per plain
//! line.

mod begin;
mod config;
mod head;
mod state;

use std::borrow::Cow;
use std::sync::Arc;

pub use config::ReaderConfig;
pub use state::ReadStats;
use state::Setup;
pub(crate) use state::{ReadState, UnreadChunk};

use crate::diag::{Diagnostic, DiagnosticKind, Error, ErrorKind, Position, Severity};
use crate::encoding::{Detection as EncodingInfo, Encoding, EncodingSource};
use crate::escape::EscapeTable;
use crate::event::{End, Event};
use crate::payload::Decoding;
use crate::scan::{ascii_prefix, Cursor, Lines, Scanned};
use crate::version::Version;

const ERROR_TAG: &str = "ERROR";

/// How many bytes from the start decide whether a missing `CHAR` line is
/// worth a warning (defaulting to ANSEL matters only for non-ASCII text).
pub(crate) const HEAD_ASCII_WINDOW: usize = 64 << 10;

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
        let (mut info, mut payload_encoding) = (info, payload_encoding);
        let version = config.version.unwrap_or_default();
        if version == Version::Gedcom7
            && info.source == EncodingSource::Default
            && info.char_value.is_none()
            && payload_encoding == Encoding::Ansel
        {
            // Forced to 7 with no word on the encoding: GEDCOM 7 is UTF-8.
            info.encoding = Encoding::Utf8;
            info.warnings.retain(|w| !w.contains("reading it as ansel"));
            payload_encoding = Encoding::Utf8;
        }
        let decoding = Decoding {
            encoding: payload_encoding,
            trailing_whitespace: config.trailing_whitespace_for(version),
            decomposed: config.decomposed,
            version,
            ..Decoding::default()
        };
        let setup = Setup {
            config,
            info: Arc::new(info),
            decoding,
            escapes: EscapeTable::default(),
            version,
            version_line: None,
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

    /// The GEDCOM version the input is read as: the caller's
    /// ([`ReaderConfig::version`]), else what the HEAD's `GEDC.VERS` says
    /// ([`Version::from_vers`]: 7.0, 7.0.x and 7.1 are 7; 5.5.5 and
    /// anything else 5.5.1), else 5.5.1. Known before the first event (the
    /// HEAD is looked at when this is asked); every chunk of a parallel or
    /// streamed read carries the HEAD's.
    ///
    /// ```
    /// use gedcom_elf::{Event, Reader, Version};
    /// let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE @@me and @I\n0 TRLR\n";
    /// let mut reader = Reader::from_slice(input);
    /// assert_eq!(reader.version(), Version::Gedcom7);
    /// assert_eq!(reader.version_line(), Some(3));
    /// let mut texts = Vec::new();
    /// while let Some(event) = reader.next_event()? {
    ///     if let Event::Begin(b) = event {
    ///         texts.extend(b.text().map(|t| t.into_owned()));
    ///     }
    /// }
    /// assert_eq!(texts, ["7.0", "@me and @I"]);
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    pub fn version(&self) -> Version {
        self.version_and_line().0
    }

    /// The number of the `HEAD.GEDC.VERS` line that decided
    /// [`Reader::version`]; `None` when the caller forced the version or
    /// the HEAD says none.
    pub fn version_line(&self) -> Option<u64> {
        self.version_and_line().1
    }

    fn version_and_line(&self) -> (Version, Option<u64>) {
        let setup = &self.state.setup;
        if self.phase != Phase::Start || self.resumed || setup.config.version.is_some() {
            return (setup.version, setup.version_line);
        }
        match self.head_version() {
            Some((v, line)) => (v, Some(line)),
            None => (setup.version, None),
        }
    }

    /// What the HEAD at the reader's position says its version is.
    fn head_version(&self) -> Option<(Version, u64)> {
        let mut probe = self.probe();
        match probe.next() {
            Some(raw) if head::is_head_line(raw.text) => head::version(probe),
            _ => None,
        }
    }

    /// The input being read.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// The longest valid UTF-8 prefix of the window's input from where
    /// the reader started reading, and where that is (what the tree's
    /// `utf8_prefix` would find there again); `None` before the first
    /// event.
    pub(crate) fn valid_text(&self) -> Option<(usize, &'a str)> {
        self.input_str.map(|s| (self.input_str_base, s))
    }

    /// What is left to read: the input up to where this reader stops (a
    /// chunk's end, for a reader of one chunk of an input), and the start
    /// of the next line in it.
    pub(crate) fn window(&self) -> (&'a [u8], usize) {
        (self.cursor.input(), self.cursor.position())
    }

    /// Where [`input`](Reader::input) begins in the whole input: 0, except
    /// for a reader of one batch of a stream ([`crate::stream`]), whose
    /// offset in the stream it is. Added to a [`Span`](crate::Span)'s
    /// offsets, it gives the whole input's, as diagnostics' positions are.
    pub fn base_offset(&self) -> u64 {
        self.base
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

    /// Hands every remaining event to `on` where it lies (matched in place:
    /// moving an event out of the result would copy it through memory) and
    /// each diagnostic to `take` as soon as it is reported, in order.
    /// Diagnostics of the end of input (a missing `TRLR`) stay with the
    /// reader. The loop of everything that consumes a whole piece's events
    /// (a tree's builder, `check`'s walk).
    pub(crate) fn feed(
        &mut self,
        on: impl FnMut(&Event<'a>) -> Result<(), Error>,
        mut take: impl FnMut(Diagnostic),
    ) -> Result<(), Error> {
        self.feed_to(on, Some(&mut take))
    }

    /// [`Reader::feed`] leaving every diagnostic with the reader, for the
    /// engine that made it to merge (a piece's tree).
    pub(crate) fn feed_keeping_diagnostics(
        &mut self,
        on: impl FnMut(&Event<'a>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.feed_to(on, None)
    }

    /// [`Reader::feed`], the diagnostics to `take` if there is one.
    fn feed_to(
        &mut self,
        mut on: impl FnMut(&Event<'a>) -> Result<(), Error>,
        mut take: Option<&mut dyn FnMut(Diagnostic)>,
    ) -> Result<(), Error> {
        loop {
            let next = self.next_event();
            match &next {
                Ok(Some(e)) => on(e)?,
                Ok(None) => return Ok(()),
                Err(_) => {}
            }
            #[allow(clippy::question_mark)] // `next?` would move the event
            if let Err(e) = next {
                return Err(e);
            }
            if let Some(take) = take.as_mut() {
                if !self.diagnostics.is_empty() {
                    self.drain_diagnostics().for_each(&mut **take);
                }
            }
        }
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
                    if self.state.setup.version == Version::Gedcom7 {
                        self.gedcom7_blank_tail()?;
                    }
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
                let setup = &mut self.state.setup;
                if setup.config.version.is_none() {
                    if let Some((version, line)) = head::version(probe.clone()) {
                        setup.version = version;
                        setup.version_line = Some(line);
                        setup.decoding.version = version;
                        setup.decoding.trailing_whitespace =
                            setup.config.trailing_whitespace_for(version);
                    }
                }
                let trailing = setup.decoding.trailing_whitespace;
                setup.escapes = head::escape_table(probe, trailing, &mut |_, _, _| {});
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
            Some(raw) if head::is_head_line(raw.text) => head::escape_table(
                probe,
                self.state.setup.decoding.trailing_whitespace,
                rejected,
            ),
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
        self.state.stats.diagnostics[kind.index()] += 1;
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
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Event<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().transpose()
    }
}
