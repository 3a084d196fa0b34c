//! The [`Writer`]: its state, the public calls and the general path of
//! [`Writer::begin`].

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use crate::encoding::{self, Encoder, Encoding};
use crate::escape::EscapeTable;
use crate::event::{Event, Value};

use super::config::WriterConfig;
use super::error::{DropReason, Dropped, WriteError, WriteErrorKind};
use super::octets::{
    continues_payload, keeps_previous_level, valid_tag, xref_grammar, C_AT_BREAK, C_HIGH,
};
use super::value::{Structure, WriteStep, WriteValue};

/// Flush the buffer to the underlying writer once it holds this much.
const FLUSH_AT: usize = 1 << 16;
/// The longest line the fast path writes (longer ones take the general path).
pub(super) const FAST_LINE_MAX: usize = 4096;
/// Room in the buffer beyond [`FLUSH_AT`]: one fast line and the terminator's second
/// octet, stored even when the terminator has one.
pub(super) const BUF_LEN: usize = FLUSH_AT + FAST_LINE_MAX + 2;
/// The deepest level the fast path writes: one digit.
const FAST_DEPTH: usize = 10;

/// Where the caller's `CHAR` stands in a `HEAD` that got the writer's `CHAR` line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum CharState {
    /// None met yet.
    #[default]
    Before,
    /// The first one is open: its substructures are written at the end of the buffer
    /// and moved under the writer's `CHAR` when it ends.
    Open,
    /// The first one has ended (another is dropped).
    Done,
}

/// The state of the `CHAR` rule (see [`WriterConfig::set_head_char`]) in a `HEAD` that
/// got the writer's `CHAR` line. Offsets are into the writer's buffer, which is not
/// flushed while the `HEAD` is open and its caller's `CHAR` has not ended.
#[derive(Debug, Default)]
pub(super) struct HeadChar {
    pub(super) state: CharState,
    /// The output encoding has a `VERS` line (under the writer's `CHAR`).
    pub(super) vers_line: bool,
    /// The end of the writer's `CHAR` lines: where what the caller's `CHAR` holds goes.
    pub(super) ins: usize,
    /// The start of what was written since the caller's `CHAR` began.
    pub(super) seg: usize,
    /// A `VERS` directly under the caller's `CHAR` is open.
    pub(super) in_vers: bool,
    /// Where what the open `VERS` holds begins.
    pub(super) vers_start: usize,
    /// What the caller's `VERS` structures held (kept when there is a `VERS` line):
    /// moved before the rest, under the writer's `VERS` line.
    pub(super) vers_spans: Vec<(usize, usize)>,
    /// The writer's `CHAR` (`VERS`) has no substructure in the output yet.
    pub(super) char_bare: bool,
    pub(super) vers_bare: bool,
    /// The previous level (see `Writer::previous_level`) before the caller's `CHAR`, at
    /// the end of what it holds so far in the output, and at the end of what its `VERS`
    /// structures hold so far.
    pub(super) outer_prev: usize,
    pub(super) char_prev: usize,
    pub(super) vers_prev: usize,
}

/// The push-style ELF writer. See the [module documentation](crate::write).
///
/// Output is buffered; [`Writer::finish`] ends the open structures, flushes and hands the
/// underlying writer back (dropping the writer flushes too, ignoring errors).
///
/// # Memory
/// O(1): no frame per open structure and no recursion (any depth is fine), a 68 KiB
/// output buffer and scratch space for the longest payload. One exception: a `HEAD` that
/// gets the writer's `CHAR` line is held in the buffer until the caller's `CHAR` under it
/// ends (or it ends), so that the `CHAR`'s substructures can be moved under the writer's
/// (see [`WriterConfig::set_head_char`]). The list of [`Writer::dropped`] structures
/// holds at most [`Dropped::KEPT`].
///
/// # Fast path
/// Most structures are a tag with a short payload that needs no escaping or split:
/// [`Writer::begin`] first tries to check and write such a structure in one pass
/// straight into the output buffer, and leaves everything else (first line, `HEAD`,
/// `CHAR`, `CONT`, `CONC`, `ERROR`, levels of two or more digits, texts with `@`, line
/// breaks, trailing whitespace or a character needing an escape, lines over the limit,
/// UTF-16, refusals, a full buffer, what is inside the `HEAD`'s `CHAR` or a structure
/// left out, and what follows them until the levels agree again) to the general path,
/// which applies every rule.
pub struct Writer<W: Write> {
    pub(super) out: Option<W>,
    /// Output not yet flushed: `buf[..pos]`. `buf` is initialised octets, at least
    /// [`BUF_LEN`] of them.
    pub(super) buf: Vec<u8>,
    pub(super) pos: usize,
    pub(super) config: WriterConfig,
    pub(super) enc: Encoder,
    /// The level the next structure gets: the number of open structures, plus
    /// [`WriterConfig::base_level`].
    pub(super) depth: usize,
    /// The innermost open structure has no substructure yet (and is not a `HEAD` whose
    /// `CHAR` line the writer wrote).
    pub(super) fresh: bool,
    /// The open record is a level-0 `HEAD` whose `CHAR` line the writer wrote.
    pub(super) head_open: bool,
    /// Where the caller's `CHAR` under such a `HEAD` stands, and what it holds.
    pub(super) head_char: HeadChar,
    /// What was left out: how many, and the first [`Dropped::KEPT`].
    pub(super) dropped_count: u64,
    pub(super) dropped: Vec<Dropped>,
    /// From the caller's `CHAR` or a structure left out on, until the two agree again,
    /// the output's previous level may differ from the one the caller's own order of
    /// lines gives (what the `CHAR` rule moved or left out): `caller_prev` is the latter,
    /// so that a structure too deep only in the output is left out and reported, not
    /// refused.
    pub(super) tracking: bool,
    pub(super) caller_prev: usize,
    /// The input line of the structure [`Writer::begin_at_line`] begins (0: not known);
    /// stale afterwards.
    pub(super) event_line: u64,
    /// The buffer was grown to hold a `HEAD` (see `holding`): shrink it at the next flush.
    pub(super) held_growth: bool,
    /// Open structures from this depth on are being left out (see [`Writer::dropped`]);
    /// `usize::MAX` when none is.
    pub(super) skip_from: usize,
    /// [`Writer::end`] does some bookkeeping when the depth falls to this value.
    pub(super) watch: usize,
    /// The fast path writes structures at depths below this (0: it is off).
    pub(super) fast_depth: usize,
    /// The longest line the fast path writes: the line limit, at most [`FAST_LINE_MAX`].
    pub(super) fast_line_max: usize,
    /// `0x8080...` when the fast path takes ASCII only (not UTF-8 output), else 0.
    pub(super) high: u64,
    /// The octet classes the fast path refuses in an xref or pointer: `@` and line
    /// breaks, and non-ASCII octets unless the output is UTF-8.
    pub(super) id_bad: u8,
    /// Level of the last line not tagged CONT, CONC or ERROR (as a reader computes it),
    /// 0 before the first.
    pub(super) previous_level: usize,
    pub(super) started: bool,
    pub(super) scratch: String,
    pub(super) lines: Vec<(usize, usize)>,
    /// The fast path leaves the buffer to the general path (which flushes it) from
    /// this position on: [`FLUSH_AT`], or for a collecting writer the buffer's length
    /// less room for a fast line.
    pub(super) flush_at: usize,
    /// The writer keeps its whole output in its buffer (see [`Writer::collecting`]).
    pub(super) collect: bool,
    pub(super) line: Vec<u8>,
    /// The output encoding holds every character (UTF-8, UTF-16).
    pub(super) utf: bool,
    /// The output encoding is UTF-16 (two octets per ASCII character).
    pub(super) utf16: bool,
    /// The output encoding is UTF-8: text is written as it is.
    pub(super) utf8: bool,
    /// The line terminator's characters, its width in output octets, and its octets
    /// padded to two (fast path, not UTF-16).
    pub(super) term: &'static str,
    pub(super) term_width: usize,
    pub(super) term2: [u8; 2],
    /// The output is GEDCOM 7 ([`WriterConfig::version`]).
    pub(super) g7: bool,
    /// GEDCOM 7 output, and the open record is a level-0 `HEAD` (whose `CHAR` is left out).
    pub(super) head7_open: bool,
}

impl<W: Write> fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer")
            .field("config", &self.config)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

impl<W: Write> Writer<W> {
    /// A writer with the default [`WriterConfig`] (UTF-8, LF, 255-octet lines).
    pub fn new(out: W) -> Self {
        Writer::with_config(out, WriterConfig::default())
    }

    /// A writer with `config`.
    pub fn with_config(out: W, mut config: WriterConfig) -> Self {
        let g7 = config.output_version().is_gedcom7();
        if g7 {
            // No line limit, no CONC.
            config.max_line_bytes = usize::MAX;
        }
        let encoding = config.encoding;
        let (utf8, utf16) = (encoding == Encoding::Utf8, encoding.is_utf16());
        let base = config.base_level;
        let term = config.line_ending.as_str();
        let t = term.as_bytes();
        let mut w = Writer {
            out: Some(out),
            buf: vec![0; BUF_LEN],
            pos: 0,
            enc: Encoder::new(config.encoding),
            depth: base,
            fresh: false,
            head_open: false,
            head_char: HeadChar::default(),
            dropped_count: 0,
            dropped: Vec::new(),
            tracking: false,
            caller_prev: 0,
            event_line: 0,
            held_growth: false,
            skip_from: usize::MAX,
            watch: usize::MAX,
            fast_depth: 0,
            fast_line_max: config.max_line_bytes.min(FAST_LINE_MAX),
            high: if utf8 { 0 } else { 0x8080_8080_8080_8080 },
            id_bad: if utf8 {
                C_AT_BREAK
            } else {
                C_AT_BREAK | C_HIGH
            },
            config,
            // What came before a fragment is not known: its first structure is fine.
            previous_level: base.saturating_sub(1),
            started: false,
            scratch: String::new(),
            lines: Vec::new(),
            flush_at: FLUSH_AT,
            collect: false,
            line: Vec::new(),
            utf: utf8 || utf16,
            utf16,
            utf8,
            term,
            term_width: t.len() * if utf16 { 2 } else { 1 },
            term2: [t[0], t.get(1).copied().unwrap_or(0)],
            g7,
            head7_open: false,
        };
        w.update_gates();
        w
    }

    /// A writer with `config` that keeps all its output in `buf` (whose octets it
    /// overwrites, growing it as needed) until [`Writer::take_collected`]: no copy to
    /// an underlying writer.
    pub(crate) fn collecting(config: WriterConfig, mut buf: Vec<u8>) -> Writer<io::Sink> {
        let mut w = Writer::with_config(io::sink(), config);
        if buf.len() < BUF_LEN {
            buf.resize(BUF_LEN, 0);
        }
        w.flush_at = buf.len() - FAST_LINE_MAX - 2;
        w.buf = buf;
        w.collect = true;
        w
    }

    /// Recomputes `fast_depth` and `watch` from the state they summarise.
    pub(super) fn update_gates(&mut self) {
        let char_open = self.head_open && self.head_char.state == CharState::Open;
        // Inside the caller's CHAR every structure takes the general path, which applies
        // the CHAR rule, and so does every one while the caller's previous level is
        // tracked.
        self.fast_depth = if self.started && !self.utf16 && !char_open && !self.tracking {
            FAST_DEPTH.min(self.skip_from.saturating_add(1))
        } else {
            0
        };
        self.watch = if self.skip_from != usize::MAX {
            self.skip_from
        } else if !self.head_open && !self.head7_open {
            usize::MAX
        } else if self.head_char.in_vers {
            2
        } else if char_open {
            1
        } else {
            0
        };
    }

    /// `true` while the buffer may not be flushed: a `HEAD` with the writer's `CHAR` line
    /// is open and its caller's `CHAR` has not ended (what it holds moves up).
    pub(super) fn holding(&self) -> bool {
        self.head_open && self.head_char.state != CharState::Done
    }

    /// The configuration in use.
    pub fn config(&self) -> &WriterConfig {
        &self.config
    }

    /// Replaces the escape-preservation table (for instance with
    /// [`Reader::escape_table`](crate::Reader::escape_table) when copying a file).
    pub fn set_escapes(&mut self, table: EscapeTable) {
        self.config.escapes = table;
    }

    /// The level the next structure gets: the number of open structures, plus
    /// [`WriterConfig::base_level`].
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Begins a structure one level below the innermost open one (a record when none is
    /// open) and writes its lines: the first line, then `CONT`/`CONC` lines for a text
    /// payload.
    ///
    /// # Errors
    /// A [`WriteError`], with nothing written, when the structure cannot be represented:
    /// [`WriteErrorKind::InvalidTag`], [`InvalidXref`](WriteErrorKind::InvalidXref),
    /// [`InvalidPointer`](WriteErrorKind::InvalidPointer),
    /// [`ContinuationTag`](WriteErrorKind::ContinuationTag),
    /// [`TooDeep`](WriteErrorKind::TooDeep), [`MissingHead`](WriteErrorKind::MissingHead);
    /// [`WriteErrorKind::Io`] when the underlying writer fails.
    #[inline]
    pub fn begin(
        &mut self,
        tag: &str,
        xref: Option<&str>,
        value: Option<WriteValue<'_>>,
    ) -> Result<(), WriteError> {
        if self.begin_fast(tag, xref, value) {
            Ok(())
        } else {
            self.begin_general(tag, xref, value, None)
        }
    }

    /// [`Writer::begin`] for the structure on input line `line` (0: not known), which
    /// [`Writer::dropped`] and the error name.
    #[inline]
    pub(crate) fn begin_at_line(
        &mut self,
        tag: &str,
        xref: Option<&str>,
        value: Option<WriteValue<'_>>,
        line: u64,
    ) -> Result<(), WriteError> {
        // Stored for the general path, rather than kept at hand through the fast path
        // (which then runs short of registers).
        self.event_line = line;
        if self.begin_fast(tag, xref, value) {
            Ok(())
        } else {
            self.begin_general_at_line(tag, xref, value)
        }
    }

    /// [`Writer::begin_general`] for the structure on input line `event_line` (set just
    /// before by [`Writer::begin_at_line`]): its errors and drops name it.
    #[cold]
    #[inline(never)]
    fn begin_general_at_line(
        &mut self,
        tag: &str,
        xref: Option<&str>,
        value: Option<WriteValue<'_>>,
    ) -> Result<(), WriteError> {
        let line = std::mem::take(&mut self.event_line);
        self.begin_general(tag, xref, value, Some(line).filter(|&l| l != 0))
            .map_err(|e| e.at_line(line))
    }

    /// [`Writer::begin`] for every structure: all rules, all encodings, any depth.
    #[cold]
    #[inline(never)]
    pub(super) fn begin_general(
        &mut self,
        tag: &str,
        xref: Option<&str>,
        value: Option<WriteValue<'_>>,
        line: Option<u64>,
    ) -> Result<(), WriteError> {
        if !valid_tag(tag) {
            return Err(WriteError::new(
                WriteErrorKind::InvalidTag,
                format!("invalid tag {tag:?}: tags are [0-9A-Za-z_]+"),
            ));
        }
        if self.g7 && !self.utf8 {
            return Err(WriteError::new(
                WriteErrorKind::UnsupportedEncoding,
                format!(
                    "GEDCOM 7 output is UTF-8 only, not {}",
                    self.config.encoding
                ),
            ));
        }
        if self.pos >= self.flush_at {
            if self.collect || self.holding() {
                // Keep room for a fast line after the new threshold.
                self.buf.resize(self.buf.len() * 2, 0);
                self.flush_at = self.buf.len() - FAST_LINE_MAX - 2;
                self.held_growth = !self.collect;
            } else {
                self.flush_buf()?;
                if self.held_growth {
                    // Grown while a HEAD was held: back to the usual size.
                    self.held_growth = false;
                    self.buf.truncate(BUF_LEN);
                    self.buf.shrink_to_fit();
                    self.flush_at = FLUSH_AT;
                }
            }
        }
        let depth = self.depth;
        if depth > 0 {
            if depth > self.skip_from {
                // A substructure of a dropped structure: left out with it.
                self.depth = depth + 1;
                self.caller_line(depth, tag);
                return Ok(());
            }
            if self.head_open && depth <= 3 && self.char_rule(depth, tag, xref, line) {
                self.caller_line(depth, tag);
                return Ok(());
            }
            if self.head7_open && depth == 1 && tag.eq_ignore_ascii_case("CHAR") {
                self.drop_structure(depth, tag, line, DropReason::Gedcom7Char);
                self.caller_line(depth, tag);
                return Ok(());
            }
        }
        let level = u32::try_from(depth).map_err(|_| {
            WriteError::new(WriteErrorKind::TooDeep, "more than 2^32 levels of nesting")
        })?;
        if !self.started && !self.config.headless {
            // A text payload is fine: it goes on additional lines (see `write_text`).
            let bare_head = depth == 0
                && tag.eq_ignore_ascii_case("HEAD")
                && xref.is_none()
                && !matches!(value, Some(WriteValue::Pointer(_)));
            if !bare_head {
                return Err(WriteError::new(
                    WriteErrorKind::MissingHead,
                    format!(
                        "the first line must be a bare 0 HEAD, not a {tag} (with xref or pointer)"
                    ),
                ));
            }
            if self.g7 && matches!(value, Some(WriteValue::Text(t)) if !t.is_empty()) {
                return Err(WriteError::new(
                    WriteErrorKind::UnsupportedEncoding,
                    "GEDCOM 7 has no place for a payload of the HEAD",
                ));
            }
        }
        if continues_payload(tag, self.g7) && depth > 0 && self.fresh {
            return Err(WriteError::new(
                WriteErrorKind::ContinuationTag,
                format!("a {tag} structure cannot be the first substructure: it would be read as an additional line"),
            ));
        }
        if depth > 0 {
            let prev = self.previous_level;
            if depth > prev.saturating_add(1) {
                if self.tracking && depth <= self.caller_prev.saturating_add(1) {
                    // Not too deep where the caller put it: what the CHAR rule moved or
                    // left out made it so.
                    self.drop_structure(depth, tag, line, DropReason::TooDeep);
                    self.caller_line(depth, tag);
                    return Ok(());
                }
                return Err(WriteError::new(
                    WriteErrorKind::TooDeep,
                    format!("a level-{level} {tag} after a level-{prev} line would be read as too deep (its superstructure is tagged ERROR, CONT or CONC)"),
                ));
            }
        }
        if let Some(x) = xref {
            self.check_xref(x, WriteErrorKind::InvalidXref)?;
        }
        if let Some(WriteValue::Pointer(p)) = value {
            self.check_xref(p, WriteErrorKind::InvalidPointer)?;
        }
        let first_line = !self.started && !self.config.headless;
        self.start_output();

        match value {
            Some(WriteValue::Text(text)) => self.write_text(level, xref, tag, text, first_line),
            Some(WriteValue::Pointer(p)) => self.emit_line(level, xref, tag, Some(p)),
            None => self.emit_line(level, xref, tag, None),
        }
        if !self.keeps_level(tag) {
            self.previous_level = depth;
        }
        let is_head = depth == 0 && tag.eq_ignore_ascii_case("HEAD");
        let head = self.config.set_head_char && !self.g7 && is_head;
        if depth == 0 {
            self.head7_open = self.g7 && is_head;
        }
        self.depth = depth + 1;
        // A HEAD with the writer's CHAR line has a substructure.
        self.fresh = !head;
        if depth == 0 {
            self.head_open = head;
        }
        if head {
            self.write_char_lines();
        } else if self.head_open && (depth == 2 || depth == 3) {
            // Kept under the writer's CHAR or VERS, which then has a substructure.
            let hc = &mut self.head_char;
            if depth == 2 && hc.state == CharState::Open {
                hc.char_bare = false;
            } else if depth == 3 && hc.in_vers {
                hc.vers_bare = false;
            }
        }
        self.caller_line(depth, tag);
        self.update_gates();
        Ok(())
    }

    /// Notes, while `tracking`, that the caller's structure `tag` began at `depth`
    /// (written or not): the previous level as the caller's order of lines has it.
    #[inline]
    fn caller_line(&mut self, depth: usize, tag: &str) {
        if self.tracking {
            if !self.keeps_level(tag) {
                self.caller_prev = depth;
            }
            self.converge();
        }
    }

    /// Stops `tracking` once the output's previous level is the caller's again (and no
    /// caller's `CHAR` or structure left out is open, inside which they may part
    /// again): from then on both change alike.
    pub(super) fn converge(&mut self) {
        let char_open = self.head_open && self.head_char.state == CharState::Open;
        if self.tracking
            && !char_open
            && self.skip_from == usize::MAX
            && self.caller_prev == self.previous_level
        {
            self.tracking = false;
            self.update_gates();
        }
    }

    /// Ends the innermost open structure.
    ///
    /// # Errors
    /// [`WriteErrorKind::NothingOpen`] when no structure is open.
    #[inline]
    pub fn end(&mut self) -> Result<(), WriteError> {
        if self.depth <= self.config.base_level {
            return Err(WriteError::new(
                WriteErrorKind::NothingOpen,
                "end with no structure open",
            ));
        }
        let depth = self.depth - 1;
        self.depth = depth;
        self.fresh = false;
        if depth == self.watch {
            self.ended_watched();
        }
        Ok(())
    }

    /// Begins and ends a structure with no substructures.
    ///
    /// # Errors
    /// As [`Writer::begin`].
    pub fn leaf(&mut self, tag: &str, value: Option<WriteValue<'_>>) -> Result<(), WriteError> {
        self.begin(tag, None, value)?;
        self.end()
    }

    /// Ends every open structure and writes `0 TRLR` (at the
    /// [`base_level`](WriterConfig::base_level), which is 0 unless set).
    ///
    /// # Errors
    /// As [`Writer::begin`].
    pub fn trailer(&mut self) -> Result<(), WriteError> {
        while self.depth > self.config.base_level {
            self.end()?;
        }
        self.begin("TRLR", None, None)?;
        self.end()
    }

    /// Writes a structure and all its substructures (iteratively: any depth is fine).
    ///
    /// # Errors
    /// As [`Writer::begin`]; structures begun before the error stay open.
    pub fn write_structure<S: Structure>(&mut self, s: &S) -> Result<(), WriteError> {
        let base = self.depth;
        self.begin(s.tag(), s.xref(), s.value())?;
        let mut stack = Vec::with_capacity(16);
        stack.push(s.children());
        while let Some(top) = stack.last_mut() {
            match top.next() {
                Some(child) => {
                    self.begin(child.tag(), child.xref(), child.value())?;
                    stack.push(child.children());
                }
                None => {
                    stack.pop();
                    self.end()?;
                }
            }
        }
        debug_assert_eq!(self.depth, base);
        Ok(())
    }

    /// Writes a preorder walk of structures (the adapter for any tree).
    ///
    /// # Errors
    /// As [`Writer::begin`] and [`Writer::end`].
    pub fn write_steps<'v>(
        &mut self,
        steps: impl IntoIterator<Item = WriteStep<'v>>,
    ) -> Result<(), WriteError> {
        for step in steps {
            match step {
                WriteStep::Begin { tag, xref, value } => self.begin(tag, xref, value)?,
                WriteStep::End => self.end()?,
            }
        }
        Ok(())
    }

    /// Writes one reader event: the way to copy (re-serialise) a file. Text payloads are
    /// written from [`Payload::text`](crate::Payload::text); xrefs and pointers, which
    /// the reader hands over as raw octets, are decoded from `source`, the reader's
    /// [`Reader::encoding`](crate::Reader::encoding) (as [`decode_xref`]). The [`Begin::line`](crate::Begin) of a
    /// structure goes into [`Writer::dropped`] if it is left out, and into
    /// [`WriteError::line`] if it is refused.
    ///
    /// # Errors
    /// [`WriteErrorKind::LevelJump`] when the event's level is not the writer's depth;
    /// otherwise as [`Writer::begin`] and [`Writer::end`]. An error for a `Begin` event
    /// has its line ([`WriteError::line`]).
    pub fn write_event(&mut self, event: &Event<'_>, source: Encoding) -> Result<(), WriteError> {
        match event {
            Event::Begin(b) => {
                if b.level as usize != self.depth {
                    return Err(WriteError::new(
                        WriteErrorKind::LevelJump,
                        format!(
                            "a level-{} {} begins at depth {}",
                            b.level, b.tag, self.depth
                        ),
                    )
                    .at_line(b.line));
                }
                let xref = b.xref.as_ref().map(|x| decode_xref(x.as_bytes(), source));
                let text;
                let pointer;
                let value = match &b.value {
                    None => None,
                    Some(Value::Text(p)) => {
                        text = p.text();
                        Some(WriteValue::Text(&text))
                    }
                    Some(Value::Pointer(x)) => {
                        pointer = decode_xref(x.as_bytes(), source);
                        Some(WriteValue::Pointer(&pointer))
                    }
                };
                self.begin_at_line(&b.tag, xref.as_deref(), value, b.line)
            }
            Event::End(e) => {
                if (e.level as usize).checked_add(1) != Some(self.depth) {
                    return Err(WriteError::new(
                        WriteErrorKind::LevelJump,
                        format!("a level-{} {} ends at depth {}", e.level, e.tag, self.depth),
                    ));
                }
                self.end()
            }
        }
    }

    /// Ends every open structure, flushes, and returns the underlying writer.
    ///
    /// Read [`Writer::dropped_count`] and [`Writer::dropped`] before: they go with the
    /// writer. (Ending the open structures leaves nothing more out.)
    ///
    /// # Errors
    /// [`WriteErrorKind::Io`] when writing or flushing fails.
    pub fn finish(mut self) -> Result<W, WriteError> {
        while self.depth > self.config.base_level {
            self.end()?;
        }
        self.flush_buf()?;
        let mut out = self.out.take().ok_or_else(|| {
            WriteError::new(WriteErrorKind::Io, "the writer was finished already")
        })?;
        out.flush()?;
        Ok(out)
    }

    #[inline]
    fn check_xref(&self, x: &str, kind: WriteErrorKind) -> Result<(), WriteError> {
        let pointer = kind == WriteErrorKind::InvalidPointer;
        if xref_grammar(x.as_bytes(), !pointer) && (self.utf || self.enc.can_encode_verbatim(x)) {
            return Ok(());
        }
        let (what, production) = if pointer {
            ("pointer", "Pointer")
        } else {
            ("xref", "XRefID")
        };
        let enc = self.config.encoding;
        Err(WriteError::new(
            kind,
            format!("invalid {what} {x:?}: not of the {production} production, or not representable in {enc}"),
        ))
    }

    fn start_output(&mut self) {
        if !self.started {
            self.started = true;
            if self.config.writes_bom() {
                let bom = self.enc.bom();
                self.put(bom);
            }
        }
    }

    /// Appends `bytes`, whole structures another writer with this one's configuration
    /// wrote (headless, without a BOM), to the output between two records. The caller
    /// has checked that no structure is open and that this writer has begun its output.
    pub(crate) fn append_records(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        debug_assert!(self.depth == 0 && self.started);
        self.flush_buf()?;
        if let Some(out) = self.out.as_mut() {
            out.write_all(bytes)?;
        }
        self.fresh = false;
        Ok(())
    }

    /// Whether a structure tagged `tag` leaves the level the next line is
    /// compared with as it was, in this writer's version
    /// (`octets::keeps_previous_level`).
    pub(crate) fn keeps_level(&self, tag: &str) -> bool {
        keeps_previous_level(tag, self.g7)
    }

    /// Sets the level of the last line not tagged `CONT`, `CONC` or `ERROR`,
    /// as it is in the records [`append_records`](Self::append_records) gave
    /// (the level a record tagged so at level 0 keeps from before it).
    pub(crate) fn set_previous_level(&mut self, level: usize) {
        self.previous_level = level;
    }

    /// A collecting writer's buffer and the length of its output in it (see
    /// [`Writer::collecting`]); the writer is left empty.
    pub(crate) fn take_collected(&mut self) -> (Vec<u8>, usize) {
        self.settle_char();
        let pos = std::mem::take(&mut self.pos);
        (std::mem::take(&mut self.buf), pos)
    }

    /// `true` when this writer has begun its output (a BOM or a first line).
    pub(crate) fn has_started(&self) -> bool {
        self.started
    }

    fn flush_buf(&mut self) -> Result<(), WriteError> {
        if let Some(out) = self.out.as_mut() {
            if self.pos > 0 {
                out.write_all(&self.buf[..self.pos])?;
            }
        }
        self.pos = 0;
        Ok(())
    }
}

impl<W: Write> Drop for Writer<W> {
    fn drop(&mut self) {
        if self.out.is_some() {
            self.settle_char();
            let _ = self.flush_buf();
            if let Some(out) = self.out.as_mut() {
                let _ = out.flush();
            }
        }
    }
}

/// An xref or pointer as the reader hands it over (raw octets, `@` signs included) as
/// text: as it is when it is UTF-8 (or ASCII), else decoded from `source`, the reader's
/// [`Reader::encoding`](crate::Reader::encoding) (a reader of UTF-16 input reads it
/// transcoded, so its octets are UTF-8 then). The part
/// between the `@` signs is decoded on its own and without normalisation, so that ANSEL
/// combining marks can neither move past the closing `@` nor compose into the first
/// character: what matched `XRefID` or `Pointer` as octets still matches as text.
///
/// ```
/// use gedcom_elf::Encoding;
/// use gedcom_elf::write::decode_xref;
///
/// assert_eq!(decode_xref(b"@I1@", Encoding::Ansel), "@I1@");
/// assert_eq!(decode_xref(b"@I\xE2e@", Encoding::Ansel), "@Ie\u{301}@");
/// assert_eq!(decode_xref(b"@I1\xE2@", Encoding::Ansel), "@I1\u{301}@");
/// assert_eq!(decode_xref("@Ié@".as_bytes(), Encoding::Utf16Le), "@Ié@");
/// ```
#[must_use]
pub fn decode_xref(bytes: &[u8], source: Encoding) -> Cow<'_, str> {
    let source = if source.is_utf16() {
        Encoding::Utf8
    } else {
        source
    };
    if let Ok(s) = std::str::from_utf8(bytes) {
        if s.is_ascii() || matches!(source, Encoding::Utf8) {
            return Cow::Borrowed(s);
        }
    }
    let (open, inner, close) = match bytes {
        [b'@', inner @ .., b'@'] => ("@", inner, "@"),
        _ => ("", bytes, ""),
    };
    let mut out = String::with_capacity(bytes.len() + 8);
    out.push_str(open);
    encoding::decode_into(
        source,
        inner,
        encoding::DecodeOptions { decomposed: true },
        &mut out,
        &mut |_| {},
    );
    out.push_str(close);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragment(base: usize) -> Writer<Vec<u8>> {
        let config = WriterConfig::new()
            .headless(true)
            .set_head_char(false)
            .base_level(base)
            .max_line_bytes(usize::MAX);
        Writer::with_config(Vec::new(), config)
    }

    #[test]
    fn a_fragment_is_written_at_its_levels_in_the_document() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 DATE @#DJULIAN@ 1 JAN 1700\n\
                      2 NOTE a@@b c\n3 CONT second\n3 _X @I1@\n1 NAME n\n0 TRLR\n";
        // The reader's events of the level-2 subtrees (under BIRT), written as they came.
        let mut w = fragment(2);
        for event in crate::Reader::from_slice(input) {
            let event = event.unwrap();
            let level = match &event {
                Event::Begin(b) => b.level,
                Event::End(e) => e.level,
            };
            if level >= 2 {
                w.write_event(&event, Encoding::Utf8).unwrap();
            }
        }
        assert_eq!(w.depth(), 2);
        assert_eq!(
            String::from_utf8(w.finish().unwrap()).unwrap(),
            "2 DATE @#DJULIAN@ 1 JAN 1700\n2 NOTE a@@b c\n3 CONT second\n\
             3 _X @I1@\n"
        );
    }

    #[test]
    fn a_fragment_ends_no_more_than_it_began_and_needs_headless() {
        let mut w = fragment(12);
        assert_eq!(w.end().unwrap_err().kind(), WriteErrorKind::NothingOpen);
        w.begin("_A", Some("@A@"), None).unwrap();
        w.leaf("_B", Some(WriteValue::Pointer("@A@"))).unwrap();
        w.end().unwrap();
        assert_eq!(w.end().unwrap_err().kind(), WriteErrorKind::NothingOpen);
        w.begin("_C", None, None).unwrap();
        // Left open: finish ends it.
        assert_eq!(w.finish().unwrap(), b"12 @A@ _A\n13 _B @A@\n12 _C\n");
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().base_level(1));
        let e = w.begin("NAME", None, None).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::MissingHead);
    }

    #[test]
    fn with_no_line_limit_nothing_is_split() {
        let long = "word ".repeat(3000) + "end";
        let mut w = fragment(1);
        w.leaf("NOTE", Some(WriteValue::Text(&long))).unwrap();
        w.leaf("TEXT", Some(WriteValue::Text(&format!("{long}\n{long}"))))
            .unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            out,
            format!("1 NOTE {long}\n1 TEXT {long}\n2 CONT {long}\n")
        );
    }
}
