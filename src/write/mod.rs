//! The writer: structures in, ELF octets out (seed §2.3, §3.5, §4.4-§4.5, §5, §6).
//!
//! [`Writer`] is push style: [`Writer::begin`] a structure (tag, optional xref, optional
//! payload), write its substructures, [`Writer::end`] it. Levels are computed. Each call
//! writes the structure's lines at once:
//!
//! * **`@` signs** (§5): every `@` of a text payload becomes `@@`, except the `@` signs of
//!   an escape its tag preserves ([`WriterConfig::escapes`]; by default `DATE` keeps
//!   `@#D...@ `); pointers are written as they are.
//! * **Characters the output encoding lacks** become unicode escapes `@#U<hex>@ `
//!   (§5.3); for ANSEL, letters are decomposed into base and marks where ANSEL can
//!   express them, and marks are written before their base.
//! * **Line breaks** in text (LF, CRLF, CR) become `CONT` lines; **`CONC` lines** keep every
//!   line within [`WriterConfig::max_line_bytes`] (255 by default, level, tag and
//!   terminator included, counted in output octets), splitting only between characters
//!   (never inside a UTF-8 sequence, a combining sequence, an `@@` pair or an escape) and
//!   next to whitespace only when the line has no other split point (§4.5). Additional
//!   lines come before substructures.
//! * **Serialisation metadata** (§6): the `HEAD` gets a `CHAR` line naming the output
//!   encoding as its first substructure ([`WriterConfig::set_head_char`]); the caller's
//!   `CHAR` gives way to it, its substructures (but `VERS`) moving under the writer's
//!   `CHAR`; [`Writer::begin_head`] writes a `HEAD` with `GEDC`, `CHAR` and the caller's
//!   `SCHMA`; [`Writer::trailer`] writes `TRLR`.
//! * **Nothing left out unreported**: the few things the `CHAR` rule cannot keep (a
//!   second `CHAR`, ...) are counted and listed by [`Writer::dropped_count`] and
//!   [`Writer::dropped`], with their input lines.
//! * **One line terminator** for the whole output ([`LineEnding`]), an optional byte-order
//!   mark, and never a line this crate's reader would call unparsable or too deep: input
//!   that cannot be represented is refused with a [`WriteError`] before anything of it is
//!   written.
//!
//! ```
//! use gedcom_elf::write::{Writer, WriteValue};
//!
//! let mut w = Writer::new(Vec::new());
//! w.begin("HEAD", None, None)?;
//! w.end()?;
//! w.begin("INDI", Some("@I1@"), None)?;
//! w.leaf("NAME", Some(WriteValue::Text("Ada /Lovelace/")))?;
//! w.leaf("EMAIL", Some(WriteValue::Text("ada@example.org")))?;
//! w.leaf("NOTE", Some(WriteValue::Text("First line\nsecond line")))?;
//! w.leaf("FAMS", Some(WriteValue::Pointer("@F1@")))?;
//! w.end()?;
//! w.trailer()?;
//! let out = w.finish()?;
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n\
//!      1 EMAIL ada@@example.org\n1 NOTE First line\n2 CONT second line\n\
//!      1 FAMS @F1@\n0 TRLR\n"
//! );
//! # Ok::<(), gedcom_elf::write::WriteError>(())
//! ```

mod text;
pub mod typed;

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use crate::encoding::{self, Encoder, Encoding};
use crate::escape::EscapeTable;
use crate::event::{Event, Value};
use crate::scan::{is_pointer, is_valid_xref};
use unicode_normalization::char::canonical_combining_class;

/// The line terminator written after every line (seed §3.5: one form for the whole file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// U+000A, as on Unix, Linux and modern Mac OS. The default.
    #[default]
    Lf,
    /// U+000D U+000A, as on Windows.
    CrLf,
    /// U+000D, as on traditional Mac OS.
    Cr,
}

impl LineEnding {
    /// The terminator's characters.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }

    /// Looks a terminator up by name: `lf`, `crlf` or `cr` (case ignored).
    #[must_use]
    pub fn from_name(name: &str) -> Option<LineEnding> {
        match name.to_ascii_lowercase().as_str() {
            "lf" => Some(LineEnding::Lf),
            "crlf" => Some(LineEnding::CrLf),
            "cr" => Some(LineEnding::Cr),
            _ => None,
        }
    }
}

/// Configuration of a [`Writer`]. Build it with the chained setters;
/// [`WriterConfig::default`] documents each default.
///
/// ```
/// use gedcom_elf::Encoding;
/// use gedcom_elf::write::{LineEnding, WriterConfig};
///
/// let config = WriterConfig::new()
///     .encoding(Encoding::Ansel)
///     .line_ending(LineEnding::CrLf)
///     .max_line_bytes(80);
/// assert_eq!(config.get_encoding(), Encoding::Ansel);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriterConfig {
    encoding: Encoding,
    bom: Option<bool>,
    line_ending: LineEnding,
    max_line_bytes: usize,
    escapes: EscapeTable,
    set_head_char: bool,
    headless: bool,
    cr_is_line_break: bool,
}

impl Default for WriterConfig {
    /// * encoding: UTF-8 (seed §3.5: the recommended default);
    /// * byte-order mark: written for UTF-16 only (§3.5 recommends one for UTF-16 and
    ///   none for UTF-8);
    /// * line ending: [`LineEnding::Lf`];
    /// * line limit: 255 octets, level, tag and terminator included (§4.5);
    /// * escape-preserving tags: the default schema's (`DATE` preserves `D`); must agree
    ///   with the `ESC` lines of the `SCHMA` written, if any (see [`Writer::begin_head`]);
    /// * the `HEAD`'s `CHAR` line is the writer's, naming the output encoding: on;
    /// * headless output (no `HEAD` first): refused;
    /// * a CR in text is a line break (as are LF and CRLF).
    fn default() -> Self {
        WriterConfig {
            encoding: Encoding::Utf8,
            bom: None,
            line_ending: LineEnding::Lf,
            max_line_bytes: 255,
            escapes: EscapeTable::default(),
            set_head_char: true,
            headless: false,
            cr_is_line_break: true,
        }
    }
}

impl WriterConfig {
    /// The default configuration.
    #[must_use]
    pub fn new() -> Self {
        WriterConfig::default()
    }

    /// The output encoding. Default UTF-8. Every [`Encoding`] this crate reads can be
    /// written; characters it lacks become unicode escapes.
    #[must_use]
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// Write a byte-order mark (`Some(true)`), never (`Some(false)`), or only for UTF-16
    /// (`None`, the default). Encodings without one ignore this.
    #[must_use]
    pub fn bom(mut self, bom: Option<bool>) -> Self {
        self.bom = bom;
        self
    }

    /// The line terminator. Default [`LineEnding::Lf`].
    #[must_use]
    pub fn line_ending(mut self, line_ending: LineEnding) -> Self {
        self.line_ending = line_ending;
        self
    }

    /// The most octets a line should take, level, tag and terminator included. Default
    /// 255. Text payloads are split with `CONC` to fit; a line that cannot be made to fit
    /// (a long xref, tag or pointer, or an escape longer than the room left) is written
    /// whole, the unit that does not fit on a line of its own.
    #[must_use]
    pub fn max_line_bytes(mut self, n: usize) -> Self {
        self.max_line_bytes = n;
        self
    }

    /// Which tags preserve which escapes (seed §5.2). Default: `DATE` preserves `D`.
    #[must_use]
    pub fn escapes(mut self, table: EscapeTable) -> Self {
        self.escapes = table;
        self
    }

    /// Make the `CHAR` line of the `HEAD` name the output encoding. Default `true`: a
    /// level-0 `HEAD` gets `1 CHAR <encoding>` as its first substructure (with `2 VERS
    /// 125N` or `2 VERS 850` where the encoding needs one: [`Encoding::vers`]), and the
    /// `CHAR` the caller writes directly under it gives way to that one:
    ///
    /// * its payload is replaced, and so is the payload of each `VERS` directly under it;
    /// * its other substructures, with their subtrees and in order, are written under
    ///   the writer's `CHAR`, after its `VERS` line if any, wherever the caller's `CHAR`
    ///   stood in the `HEAD`;
    /// * the substructures of its `VERS` go under the writer's `VERS` line, when there
    ///   is one;
    /// * what cannot be kept is left out and reported ([`Writer::dropped`],
    ///   [`DropReason`]): the substructures of a `VERS` when there is no `VERS` line, an
    ///   xref on the `CHAR` or a `VERS` (readers would not recognise a `CHAR` or `VERS`
    ///   line that has one), a `CONT` or `CONC` structure that would become the writer's
    ///   `CHAR`'s or `VERS`'s first substructure (readers would take it for an additional
    ///   line of it), a second `CHAR` under the same `HEAD`, whole, and a structure that
    ///   what moved or was left out before it makes too deep for a reader (a substructure
    ///   of an `ERROR`, `CONT` or `CONC` that follows: the writer keeps track of the
    ///   level the caller's own order of structures gives until the two agree again, and
    ///   refuses, as usual, what is too deep there too).
    ///
    /// Tags are compared without regard to case, as encoding detection does. The output
    /// of a `HEAD` is held in memory until its `CHAR` ends (or it ends), so that what
    /// moves can be moved.
    ///
    /// ```
    /// use gedcom_elf::Encoding;
    /// use gedcom_elf::write::{rewrite, WriterConfig};
    ///
    /// let input = b"0 HEAD\n1 SOUR x\n1 CHAR ANSI\n2 VERS 1250\n2 _NOTE kept\n3 _SUB too\n0 TRLR\n";
    /// let mut out = Vec::new();
    /// let stats = rewrite(input, None, WriterConfig::new().encoding(Encoding::Ascii), &mut out)?;
    /// assert_eq!(out, b"0 HEAD\n1 CHAR ASCII\n2 _NOTE kept\n3 _SUB too\n1 SOUR x\n0 TRLR\n");
    /// assert_eq!(stats.dropped_count, 0);
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    #[must_use]
    pub fn set_head_char(mut self, yes: bool) -> Self {
        self.set_head_char = yes;
        self
    }

    /// Allow output whose first structure is not a bare `HEAD` (a fragment this crate's
    /// reader reads only with `ReaderConfig::headless`). Default `false`.
    #[must_use]
    pub fn headless(mut self, yes: bool) -> Self {
        self.headless = yes;
        self
    }

    /// Treat a CR (U+000D) in text, alone or before an LF, as a line break (`true`, the
    /// default: `"a\r\nb"` and `"a\rb"` give a `CONT` line like `"a\nb"`), or (`false`)
    /// only LF, a CR being written as the unicode escape `@#UD@ ` so that it reads back
    /// as a CR. Texts from a reader hold LF as their only line break, so [`rewrite`] uses
    /// `false`.
    #[must_use]
    pub fn cr_is_line_break(mut self, yes: bool) -> Self {
        self.cr_is_line_break = yes;
        self
    }

    /// The output encoding.
    #[must_use]
    pub fn get_encoding(&self) -> Encoding {
        self.encoding
    }

    /// The line terminator.
    #[must_use]
    pub fn get_line_ending(&self) -> LineEnding {
        self.line_ending
    }

    /// The line limit in octets.
    #[must_use]
    pub fn get_max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// The escape-preservation table.
    #[must_use]
    pub fn get_escapes(&self) -> &EscapeTable {
        &self.escapes
    }

    /// Whether a byte-order mark is written.
    #[must_use]
    pub fn writes_bom(&self) -> bool {
        self.bom.unwrap_or(self.encoding.is_utf16())
            && !Encoder::new(self.encoding).bom().is_empty()
    }
}

/// What went wrong in a [`Writer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WriteErrorKind {
    /// Writing to the underlying writer failed.
    Io,
    /// A tag does not match `[0-9A-Za-z_]+`.
    InvalidTag,
    /// An xref does not match `XRefID` (`"@" [a-zA-Z0-9_] [^@:!]* "@"`), holds a line
    /// break, or holds a character the output encoding lacks.
    InvalidXref,
    /// A pointer does not match `Pointer` (`"@" [a-zA-Z0-9_] [^@]* "@"`), holds a line
    /// break, or holds a character the output encoding lacks.
    InvalidPointer,
    /// An event's level is not the level the writer is at.
    LevelJump,
    /// [`Writer::end`] with no structure open.
    NothingOpen,
    /// A `CONT` or `CONC` structure as the first substructure: a reader would take it for
    /// an additional line of its superstructure (seed §4.5).
    ContinuationTag,
    /// The line would be too deep for a reader (seed §4.1): its level would exceed the
    /// level of the last line not tagged `CONT`, `CONC` or `ERROR` by more than one (a
    /// substructure of an `ERROR`, `CONT` or `CONC` structure that follows a shallower
    /// line).
    TooDeep,
    /// The first structure is not a bare `HEAD` (see [`WriterConfig::headless`]).
    MissingHead,
    /// [`rewrite`] could not read its input (not GEDCOM, unsupported encoding).
    Read,
    /// A handle of a [`TypedDocument`](typed::TypedDocument) that is not from that
    /// document, or a pointer whose target is not a record.
    InvalidHandle,
    /// A structure type that is not an IRI (empty, or with whitespace), or a schema
    /// typed writing cannot use (an older draft's IRI dictionary).
    InvalidType,
    /// A structure type no tag can be given in its context (see [`typed`]).
    Untaggable,
}

/// An error from a [`Writer`]. Nothing of the refused structure was written.
///
/// One pointer wide, so that the `Result`s of the writer's calls are returned in a
/// register.
#[derive(Debug)]
pub struct WriteError(Box<ErrorInner>);

#[derive(Debug)]
struct ErrorInner {
    kind: WriteErrorKind,
    message: String,
    io: Option<io::Error>,
    line: Option<u64>,
}

impl WriteError {
    #[cold]
    pub(crate) fn new(kind: WriteErrorKind, message: impl Into<String>) -> Self {
        WriteError(Box::new(ErrorInner {
            kind,
            message: message.into(),
            io: None,
            line: None,
        }))
    }

    /// The error, of the structure on input line `line` (not set when it is 0, the line
    /// of a synthetic structure, or when the error has a line already).
    #[cold]
    pub(crate) fn at_line(mut self, line: u64) -> Self {
        if line != 0 && self.0.line.is_none() {
            self.0.line = Some(line);
        }
        self
    }

    /// The input line of the structure the error is about: for an error of
    /// [`Writer::write_event`] (and so of [`rewrite`]) the [`Begin::line`](crate::Begin)
    /// of the event that failed, for a [`WriteErrorKind::Read`] error of [`rewrite`] the
    /// line the reader stopped at, for an error of [`bridge::write_tree`](crate::bridge::write_tree)
    /// the tree node's line. `None` for an error of a call that takes no line
    /// ([`Writer::begin`] ...), and for a failing [`Event::End`], which carries no line.
    /// Not part of the [`Display`](fmt::Display) form, which is the message alone.
    #[must_use]
    pub fn line(&self) -> Option<u64> {
        self.0.line
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> WriteErrorKind {
        self.0.kind
    }

    /// A lowercase description.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .io
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<io::Error> for WriteError {
    #[cold]
    fn from(e: io::Error) -> Self {
        WriteError(Box::new(ErrorInner {
            kind: WriteErrorKind::Io,
            message: format!("cannot write: {e}"),
            io: Some(e),
            line: None,
        }))
    }
}

/// Why something was left out of the output: see [`Dropped`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// A second (or later) `CHAR` directly under a `HEAD` that got the writer's `CHAR`
    /// line ([`WriterConfig::set_head_char`]), left out with its substructures: the
    /// output names its encoding once.
    SecondChar,
    /// A substructure (with its own) of a `VERS` under the `HEAD`'s `CHAR`, when the
    /// output encoding needs no `VERS` line ([`Encoding::vers`]) to keep it under.
    NoVersLine,
    /// The xref of the `HEAD`'s `CHAR` or of a `VERS` under it (only the xref is left
    /// out): readers would not recognise a `1 CHAR` or `2 VERS` line with an xref as
    /// naming the encoding (seed §3.2).
    CharXref,
    /// A `CONT` or `CONC` structure (with its substructures) under the `HEAD`'s `CHAR`
    /// or a `VERS` under it that would become the first substructure of the writer's
    /// `CHAR` or `VERS`, where a reader would take it for an additional line of that
    /// line (changing the encoding's name).
    Continuation,
    /// A structure (with its substructures) that, once the `CHAR` rule has moved or left
    /// out what stood before it, would be read as too deep (seed §4.1: more than one
    /// level below the last line not tagged `CONT`, `CONC` or `ERROR`), though it was
    /// not where the caller put it: a substructure of an `ERROR` (`CONT`, `CONC`) that
    /// follows the `HEAD`'s `CHAR`, a `VERS` under it or a structure left out. (Where
    /// the `CHAR`'s substructures meet those of its `VERS`, and after a stretch of only
    /// `ERROR`, `CONT` and `CONC` lines that what moved leaves behind, the writer
    /// checks against the lowest level the output can have there: such a structure may
    /// be one a reader would accept.)
    TooDeep,
    /// A structure (with its substructures) that is serialisation metadata with no
    /// structure type (seed §7): under the `HEAD`'s `CHAR` (or a `VERS` under it), under
    /// a `TRLR`, or a `TRLR` that is not the last record. A
    /// [`TypedDocument`](typed::TypedDocument) has no place for it (see
    /// [`bridge::typed_document`](crate::bridge::typed_document)).
    Untyped,
    /// The payload of a `HEAD` or `TRLR`, which a
    /// [`TypedDocument`](typed::TypedDocument) has no place for.
    UntypedPayload,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DropReason::SecondChar => "a second char under the head (the output names its encoding once)",
            DropReason::NoVersLine => {
                "under a vers of the head's char, and the output encoding has no vers line to keep it under"
            }
            DropReason::CharXref => {
                "the xref of the head's char or of its vers (readers would not recognise the line)"
            }
            DropReason::Continuation => {
                "a cont or conc that would be read as an additional line of the char or vers line"
            }
            DropReason::TooDeep => {
                "too deep for a reader where it stands once what came before it moved or was left out"
            }
            DropReason::Untyped => "serialisation metadata with no structure type",
            DropReason::UntypedPayload => "the payload of serialisation metadata",
        })
    }
}

/// Something a writer left out of its output (a structure with its substructures, or,
/// for [`DropReason::CharXref`], an xref): see [`Writer::dropped`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Dropped {
    /// The structure's tag.
    pub tag: String,
    /// The structure's line in the input, when known: given to
    /// [`Writer::write_event`] (as [`Begin::line`](crate::Begin)) or by a tree; `None`
    /// through [`Writer::begin`].
    pub line: Option<u64>,
    /// Why it was left out.
    pub reason: DropReason,
}

impl Dropped {
    /// How many a [`Writer`] (and [`RewriteStats`]) keeps; the others are only counted.
    pub const KEPT: usize = 100;

    pub(crate) fn new(tag: &str, line: Option<u64>, reason: DropReason) -> Self {
        Dropped {
            tag: tag.to_owned(),
            line: line.filter(|&l| l != 0),
            reason,
        }
    }
}

impl fmt::Display for Dropped {
    /// `line 7: _X: <reason>`, or `_X: <reason>` when the line is not known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        write!(f, "{}: {}", self.tag, self.reason)
    }
}

/// A payload to write: text (decoded, as [`Payload::text`](crate::Payload::text) gives
/// it) or a pointer (`@` signs included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteValue<'v> {
    /// A string payload; escaped, split and encoded by the writer.
    Text(&'v str),
    /// A pointer such as `@I1@`, written as it is.
    Pointer(&'v str),
}

/// One step of a preorder walk over structures, for [`Writer::write_steps`]: the thin
/// adapter any tree can offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step<'v> {
    /// A structure begins.
    Begin {
        /// Its tag.
        tag: &'v str,
        /// Its xref, `@` signs included.
        xref: Option<&'v str>,
        /// Its payload.
        value: Option<WriteValue<'v>>,
    },
    /// The most recently begun open structure ends.
    End,
}

/// A structure with substructures, for [`Writer::write_structure`].
pub trait Structure {
    /// The tag.
    fn tag(&self) -> &str;
    /// The xref, `@` signs included.
    fn xref(&self) -> Option<&str>;
    /// The payload.
    fn value(&self) -> Option<WriteValue<'_>>;
    /// The substructures, in order.
    fn children(&self) -> impl Iterator<Item = &Self>;
}

/// An owned structure: the simplest [`Structure`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// The tag.
    pub tag: String,
    /// The xref, `@` signs included.
    pub xref: Option<String>,
    /// The payload: text, or a pointer when `pointer` is set.
    pub value: Option<String>,
    /// Whether `value` is a pointer.
    pub pointer: bool,
    /// The substructures.
    pub children: Vec<Node>,
}

impl Node {
    /// A structure with a tag only.
    #[must_use]
    pub fn new(tag: impl Into<String>) -> Self {
        Node {
            tag: tag.into(),
            ..Node::default()
        }
    }

    /// Sets a text payload.
    #[must_use]
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.value = Some(text.into());
        self.pointer = false;
        self
    }

    /// Sets a pointer payload.
    #[must_use]
    pub fn pointer(mut self, xref: impl Into<String>) -> Self {
        self.value = Some(xref.into());
        self.pointer = true;
        self
    }

    /// Sets the xref.
    #[must_use]
    pub fn xref(mut self, xref: impl Into<String>) -> Self {
        self.xref = Some(xref.into());
        self
    }

    /// Appends a substructure.
    #[must_use]
    pub fn child(mut self, child: Node) -> Self {
        self.children.push(child);
        self
    }
}

impl Structure for Node {
    fn tag(&self) -> &str {
        &self.tag
    }
    fn xref(&self) -> Option<&str> {
        self.xref.as_deref()
    }
    fn value(&self) -> Option<WriteValue<'_>> {
        self.value.as_deref().map(|v| {
            if self.pointer {
                WriteValue::Pointer(v)
            } else {
                WriteValue::Text(v)
            }
        })
    }
    fn children(&self) -> impl Iterator<Item = &Self> {
        self.children.iter()
    }
}

/// An ELF schema to write under `HEAD` (seed §6.2), for [`Writer::begin_head`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// External schema IRIs (`2 SCHMA IRI`).
    pub external: Vec<String>,
    /// Prefix abbreviations (`2 PRFX prefix IRI`).
    pub prefixes: Vec<(String, String)>,
    /// Escape-preserving tags (`2 ESC TAG TYPES`); the writer preserves exactly these.
    pub escapes: EscapeTable,
    /// IRI definitions (`2 IRI`, with `3 ISA` and `3 TAG` lines).
    pub iris: Vec<IriDefinition>,
}

impl Default for Schema {
    /// No external schema, prefix or IRI; `ESC DATE D`, as in the default schema.
    fn default() -> Self {
        Schema {
            external: Vec::new(),
            prefixes: Vec::new(),
            escapes: EscapeTable::default(),
            iris: Vec::new(),
        }
    }
}

/// One IRI definition structure of a [`Schema`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IriDefinition {
    /// The structure type identifier (prefix shortened or not).
    pub iri: String,
    /// Supertypes (`3 ISA`).
    pub supertypes: Vec<String>,
    /// Tag definitions (`3 TAG tag superstructure...`).
    pub tags: Vec<(String, Vec<String>)>,
}

/// What [`Writer::begin_head`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadOptions {
    /// Write `1 GEDC` with `2 VERS 5.5.1`, `2 FORM LINEAGE-LINKED` and, when `elf` is
    /// set, `2 ELF` with that version. Default on, ELF `1.0.0`.
    pub gedc: bool,
    /// The ELF version under `GEDC`. Default `Some("1.0.0")`.
    pub elf: Option<String>,
    /// The schema; `None` (the default) writes none, and readers use the default schema.
    pub schema: Option<Schema>,
}

impl Default for HeadOptions {
    fn default() -> Self {
        HeadOptions {
            gedc: true,
            elf: Some("1.0.0".into()),
            schema: None,
        }
    }
}

/// Octets of `[0-9A-Za-z_]`: the characters of tags and of the first character of an
/// xref id or pointer.
const ID_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || b == b'_';
        i += 1;
    }
    t
};

/// Classes of octets inside an xref or pointer (between its first character and its
/// closing `@`), for a one-lookup-per-octet check.
const C_AT_BREAK: u8 = 1;
/// `:` and `!`, which an xref id may not hold (a pointer may).
const C_XREF_ONLY: u8 = 2;
/// A non-ASCII octet.
const C_HIGH: u8 = 4;
const ID_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b == b'@' || b == b'\n' || b == b'\r' {
            C_AT_BREAK
        } else if b == b':' || b == b'!' {
            C_XREF_ONLY
        } else if b >= 0x80 {
            C_HIGH
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Non-zero when some octet of `w` is `@` (with `AT`) or a control character below
/// U+0020 (LF and CR; a tab or another control character only costs the general
/// path), or has a bit of `high` set.
#[inline(always)]
fn special_octets<const AT: bool>(w: u64, high: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // The classic "has an octet less than n" test, for n = 0x01 (after the xor) and
    // n = 0x20: exact as a whole, for octets below 0x80 (`!w` masks the others out).
    let control = w.wrapping_sub(LO * 0x20) & !w;
    let at = if AT {
        let x = w ^ (LO * u64::from(b'@'));
        x.wrapping_sub(LO) & !x
    } else {
        0
    };
    (at | control) & HI | (w & high)
}

#[inline(always)]
fn word8(c: &[u8]) -> u64 {
    <[u8; 8]>::try_from(c).map_or(0, u64::from_le_bytes)
}

#[inline(always)]
fn word4(c: &[u8]) -> u64 {
    <[u8; 4]>::try_from(c).map_or(0, |w| u64::from(u32::from_le_bytes(w)))
}

/// Non-zero when `b` holds `@`, LF or CR, or (with `high` = `0x8080...`) a non-ASCII
/// octet. Eight octets at a time; a short `b` is read as at most two overlapping words,
/// so that no length costs a per-octet loop (most payloads are short).
#[inline(always)]
fn scan_special(b: &[u8], high: u64) -> u64 {
    scan_octets::<true>(b, high)
}

/// [`scan_special`] without the `@` test: control characters and `high` only.
#[inline(always)]
fn scan_control(b: &[u8], high: u64) -> u64 {
    scan_octets::<false>(b, high)
}

/// [`scan_special`] (`AT`) or [`scan_control`].
#[inline(always)]
fn scan_octets<const AT: bool>(b: &[u8], high: u64) -> u64 {
    let n = b.len();
    if n >= 8 {
        let mut hit = 0u64;
        let mut i = 0;
        while i + 8 < n {
            hit |= special_octets::<AT>(word8(&b[i..i + 8]), high);
            i += 8;
        }
        // The last eight octets, overlapping the words already seen.
        hit | special_octets::<AT>(word8(&b[n - 8..]), high)
    } else if n >= 4 {
        special_octets::<AT>(word4(&b[..4]) | (word4(&b[n - 4..]) << 32), high)
    } else if n > 0 {
        // Every octet of the word is one of `b`'s.
        let w = u32::from_le_bytes([b[0], b[n / 2], b[n - 1], b[0]]);
        special_octets::<AT>(u64::from(w) | (u64::from(w) << 32), high)
    } else {
        0
    }
}

/// `true` when `b` holds no `@`, LF or CR (nor another control character).
#[inline]
fn plain(b: &[u8]) -> bool {
    scan_special(b, 0) == 0
}

/// `true` when `text` is not empty and cannot end in whitespace in any encoding: its
/// last character is neither a space or tab nor a combining mark (which ANSEL writes
/// before its base, so that a space could come last).
#[inline(always)]
fn plain_end(text: &str) -> bool {
    match text.as_bytes().last() {
        Some(&last) if last < 0x80 => last != b' ' && last != b'\t',
        Some(_) => plain_end_non_ascii(text),
        None => false,
    }
}

/// [`plain_end`] for valid UTF-8 octets: decodes the last character only.
#[inline]
fn plain_end_utf8(b: &[u8]) -> bool {
    let n = b.len();
    let last = match *b {
        [] => return false,
        [.., c] if c < 0x80 => return c != b' ' && c != b'\t',
        // Combining marks begin at U+0300: a two-octet character from C0 80 up to
        // CB BF is below it, and so is any character ending in such a pair.
        [.., a, _] if (0xC0..0xCC).contains(&a) => return true,
        [.., a, c] if a & 0xE0 == 0xC0 => (u32::from(a & 0x1F) << 6) | u32::from(c & 0x3F),
        [.., a, b1, c] if a & 0xF0 == 0xE0 => {
            (u32::from(a & 0x0F) << 12) | (u32::from(b1 & 0x3F) << 6) | u32::from(c & 0x3F)
        }
        _ => {
            // Four octets (or octets that are not valid UTF-8: the careful way).
            return std::str::from_utf8(&b[n.saturating_sub(4)..]).is_ok_and(plain_end)
                || std::str::from_utf8(b).is_ok_and(plain_end);
        }
    };
    char::from_u32(last).is_some_and(|c| canonical_combining_class(c) == 0)
}

/// [`plain_end`] for a text whose last character is not ASCII.
#[inline(never)]
fn plain_end_non_ascii(text: &str) -> bool {
    // Combining marks begin at U+0300.
    text.chars()
        .next_back()
        .is_some_and(|c| c < '\u{300}' || canonical_combining_class(c) == 0)
}

/// Copies `s` to the start of `d` (`d.len() == s.len()`) with fixed-size moves for the
/// short strings lines are made of, instead of a call to `memcpy`.
#[inline(always)]
fn copy_short(d: &mut [u8], s: &[u8]) {
    let n = s.len();
    if n < 8 {
        if n >= 4 {
            mov::<4>(d, s, 0);
            mov::<4>(d, s, n - 4);
        } else if n > 0 {
            d[0] = s[0];
            d[n / 2] = s[n / 2];
            d[n - 1] = s[n - 1];
        }
    } else if n <= 16 {
        mov::<8>(d, s, 0);
        mov::<8>(d, s, n - 8);
    } else if n <= 32 {
        mov::<16>(d, s, 0);
        mov::<16>(d, s, n - 16);
    } else if n <= 64 {
        mov::<32>(d, s, 0);
        mov::<32>(d, s, n - 32);
    } else {
        d[..n].copy_from_slice(s);
    }
}

/// Copies the `N` octets of `s` at `at` to `d` at `at`, as one array: a slice copy
/// of a length the compiler does not see as constant became a call to `memcpy`.
/// Panics, as slicing does, when either range is out of bounds.
#[inline(always)]
fn mov<const N: usize>(d: &mut [u8], s: &[u8], at: usize) {
    let from: &[u8; N] = s[at..at + N].try_into().expect("a range of N octets");
    let to: &mut [u8; N] = (&mut d[at..at + N])
        .try_into()
        .expect("a range of N octets");
    *to = *from;
}

/// `true` for a structure that leaves the level the next line is compared with (its
/// previous level, seed §4.4) as it was: one tagged `CONT`, `CONC` or `ERROR`. A line
/// after one may be deeper than it by more than one level.
pub(crate) fn keeps_previous_level(tag: &str) -> bool {
    matches!(tag, "CONT" | "CONC" | "ERROR")
}

/// `true` for a tag the fast path may write: `[0-9A-Za-z_]+`, and none that a rule
/// treats specially (`HEAD` and `CHAR` in any case, `CONT`, `CONC`, `ERROR`; a few
/// other tags are sent to the slow path too, which is only slower).
#[inline(always)]
fn fast_tag(t: &[u8]) -> bool {
    if let Ok(four) = <[u8; 4]>::try_from(t) {
        let w = u32::from_le_bytes(four) | 0x2020_2020;
        ID_CHAR[four[0] as usize]
            & ID_CHAR[four[1] as usize]
            & ID_CHAR[four[2] as usize]
            & ID_CHAR[four[3] as usize]
            && w != u32::from_le_bytes(*b"head")
            && w != u32::from_le_bytes(*b"char")
            && w != u32::from_le_bytes(*b"cont")
            && w != u32::from_le_bytes(*b"conc")
    } else {
        !t.is_empty() && t != b"ERROR" && t.iter().all(|&b| ID_CHAR[b as usize])
    }
}

/// `true` for a tag that [`Writer::begin_raw`] may take: one the fast path writes.
pub(crate) fn raw_tag_ok(t: &[u8]) -> bool {
    fast_tag(t)
}

/// Non-zero when `b` holds a non-ASCII octet (eight at a time, as [`scan_special`]).
#[inline(always)]
fn scan_high(b: &[u8]) -> u64 {
    const HI: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    if n >= 8 {
        let mut hit = 0u64;
        let mut i = 0;
        while i + 8 < n {
            hit |= word8(&b[i..i + 8]);
            i += 8;
        }
        (hit | word8(&b[n - 8..])) & HI
    } else if n >= 4 {
        (word4(&b[..4]) | word4(&b[n - 4..])) & HI
    } else {
        b.iter().fold(0, |h, &c| h | u64::from(c)) & HI
    }
}

/// `true` when `x` matches `Pointer` or (`bad` including [`C_XREF_ONLY`]) `XRefID`, holds
/// no line break, and no octet of a class in `bad`.
#[inline(always)]
fn fast_id(x: &[u8], bad: u8) -> bool {
    let n = x.len();
    if n < 3 || x[0] != b'@' || x[n - 1] != b'@' || !ID_CHAR[x[1] as usize] {
        return false;
    }
    let mut c = 0u8;
    for &b in &x[2..n - 1] {
        c |= ID_CLASS[b as usize];
    }
    c & bad == 0
}

/// The decimal digits of `level`: `digits[i..]`.
fn level_digits(level: u32) -> ([u8; 10], usize) {
    let mut digits = [0u8; 10];
    let mut n = level;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    (digits, i)
}

/// Flush the buffer to the underlying writer once it holds this much.
const FLUSH_AT: usize = 1 << 16;
/// The longest line the fast path writes (longer ones take the general path).
const FAST_LINE_MAX: usize = 4096;
/// Room in the buffer beyond [`FLUSH_AT`]: one fast line and the terminator's second
/// octet, stored even when the terminator has one.
const BUF_LEN: usize = FLUSH_AT + FAST_LINE_MAX + 2;
/// The deepest level the fast path writes: one digit.
const FAST_DEPTH: usize = 10;

/// A payload as octets for [`Writer::begin_raw`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum RawPayload<'a> {
    /// No payload.
    None,
    /// A pointer, `@` signs included.
    Pointer(&'a [u8]),
    /// A string payload on one line, before any decoding.
    Text(&'a [u8]),
}

/// Where the caller's `CHAR` stands in a `HEAD` that got the writer's `CHAR` line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum CharState {
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
struct HeadChar {
    state: CharState,
    /// The output encoding has a `VERS` line (under the writer's `CHAR`).
    vers_line: bool,
    /// The end of the writer's `CHAR` lines: where what the caller's `CHAR` holds goes.
    ins: usize,
    /// The start of what was written since the caller's `CHAR` began.
    seg: usize,
    /// A `VERS` directly under the caller's `CHAR` is open.
    in_vers: bool,
    /// Where what the open `VERS` holds begins.
    vers_start: usize,
    /// What the caller's `VERS` structures held (kept when there is a `VERS` line):
    /// moved before the rest, under the writer's `VERS` line.
    vers_spans: Vec<(usize, usize)>,
    /// The writer's `CHAR` (`VERS`) has no substructure in the output yet.
    char_bare: bool,
    vers_bare: bool,
    /// The previous level (see `Writer::previous_level`) before the caller's `CHAR`, at
    /// the end of what it holds so far in the output, and at the end of what its `VERS`
    /// structures hold so far.
    outer_prev: usize,
    char_prev: usize,
    vers_prev: usize,
}

/// `true` for a `CONT` or `CONC` tag.
fn is_continuation(tag: &str) -> bool {
    tag == "CONT" || tag == "CONC"
}

/// The push-style ELF writer. See the [module documentation](self).
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
    out: Option<W>,
    /// Output not yet flushed: `buf[..pos]`. `buf` is initialised octets, at least
    /// [`BUF_LEN`] of them.
    buf: Vec<u8>,
    pos: usize,
    config: WriterConfig,
    enc: Encoder,
    /// The number of open structures.
    depth: usize,
    /// The innermost open structure has no substructure yet (and is not a `HEAD` whose
    /// `CHAR` line the writer wrote).
    fresh: bool,
    /// The open record is a level-0 `HEAD` whose `CHAR` line the writer wrote.
    head_open: bool,
    /// Where the caller's `CHAR` under such a `HEAD` stands, and what it holds.
    head_char: HeadChar,
    /// What was left out: how many, and the first [`Dropped::KEPT`].
    dropped_count: u64,
    dropped: Vec<Dropped>,
    /// From the caller's `CHAR` or a structure left out on, until the two agree again,
    /// the output's previous level may differ from the one the caller's own order of
    /// lines gives (what the `CHAR` rule moved or left out): `caller_prev` is the latter,
    /// so that a structure too deep only in the output is left out and reported, not
    /// refused.
    tracking: bool,
    caller_prev: usize,
    /// The input line of the structure [`Writer::begin_at_line`] begins (0: not known);
    /// stale afterwards.
    event_line: u64,
    /// The buffer was grown to hold a `HEAD` (see `holding`): shrink it at the next flush.
    held_growth: bool,
    /// Open structures from this depth on are being left out (see [`Writer::dropped`]);
    /// `usize::MAX` when none is.
    skip_from: usize,
    /// [`Writer::end`] does some bookkeeping when the depth falls to this value.
    watch: usize,
    /// The fast path writes structures at depths below this (0: it is off).
    fast_depth: usize,
    /// The longest line the fast path writes: the line limit, at most [`FAST_LINE_MAX`].
    fast_line_max: usize,
    /// `0x8080...` when the fast path takes ASCII only (not UTF-8 output), else 0.
    high: u64,
    /// The octet classes the fast path refuses in an xref or pointer: `@` and line
    /// breaks, and non-ASCII octets unless the output is UTF-8.
    id_bad: u8,
    /// Level of the last line not tagged CONT, CONC or ERROR (as a reader computes it),
    /// 0 before the first.
    previous_level: usize,
    started: bool,
    scratch: String,
    lines: Vec<(usize, usize)>,
    /// The fast path leaves the buffer to the general path (which flushes it) from
    /// this position on: [`FLUSH_AT`], or for a collecting writer the buffer's length
    /// less room for a fast line.
    flush_at: usize,
    /// The writer keeps its whole output in its buffer (see [`Writer::collecting`]).
    collect: bool,
    line: Vec<u8>,
    /// The output encoding holds every character (UTF-8, UTF-16).
    utf: bool,
    /// The output encoding is UTF-16 (two octets per ASCII character).
    utf16: bool,
    /// The output encoding is UTF-8: text is written as it is.
    utf8: bool,
    /// The line terminator's characters, its width in output octets, and its octets
    /// padded to two (fast path, not UTF-16).
    term: &'static str,
    term_width: usize,
    term2: [u8; 2],
}

impl<W: Write> fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer")
            .field("config", &self.config)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

/// `true` when `tag` matches `[0-9A-Za-z_]+`.
#[inline]
fn valid_tag(tag: &str) -> bool {
    !tag.is_empty() && tag.bytes().all(|b| ID_CHAR[b as usize])
}

/// `true` when `x` matches `Pointer` (`"@" [a-zA-Z0-9_] [^@]* "@"`) or, with `xref`,
/// `XRefID` (`"@" [a-zA-Z0-9_] [^@:!]* "@"`), and holds no line break: one pass.
#[inline]
fn xref_grammar(x: &[u8], xref: bool) -> bool {
    let n = x.len();
    n >= 3
        && x[0] == b'@'
        && ID_CHAR[x[1] as usize]
        && x[n - 1] == b'@'
        && x[2..n - 1]
            .iter()
            .all(|&b| b != b'@' && b != b'\n' && b != b'\r' && !(xref && (b == b':' || b == b'!')))
}

impl<W: Write> Writer<W> {
    /// A writer with the default [`WriterConfig`] (UTF-8, LF, 255-octet lines).
    pub fn new(out: W) -> Self {
        Writer::with_config(out, WriterConfig::default())
    }

    /// A writer with `config`.
    pub fn with_config(out: W, config: WriterConfig) -> Self {
        let encoding = config.encoding;
        let term = config.line_ending.as_str();
        let t = term.as_bytes();
        let mut w = Writer {
            out: Some(out),
            buf: vec![0; BUF_LEN],
            pos: 0,
            enc: Encoder::new(config.encoding),
            depth: 0,
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
            high: if encoding == Encoding::Utf8 {
                0
            } else {
                0x8080_8080_8080_8080
            },
            id_bad: if encoding == Encoding::Utf8 {
                C_AT_BREAK
            } else {
                C_AT_BREAK | C_HIGH
            },
            config,
            previous_level: 0,
            started: false,
            scratch: String::new(),
            lines: Vec::new(),
            flush_at: FLUSH_AT,
            collect: false,
            line: Vec::new(),
            utf: matches!(
                encoding,
                Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be
            ),
            utf16: encoding.is_utf16(),
            utf8: encoding == Encoding::Utf8,
            term,
            term_width: t.len() * if encoding.is_utf16() { 2 } else { 1 },
            term2: [t[0], t.get(1).copied().unwrap_or(0)],
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
    fn update_gates(&mut self) {
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
        } else if !self.head_open {
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
    fn holding(&self) -> bool {
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

    /// The number of open structures (the level the next structure gets).
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

    /// The fast path of [`Writer::begin`]: checks and writes, in one pass and straight
    /// into the buffer, a structure that needs none of the general path's work (see
    /// [`Writer`]), and returns `true`; returns `false`, having changed nothing, for any
    /// other (including every one to refuse).
    #[inline(always)]
    fn begin_fast(&mut self, tag: &str, xref: Option<&str>, value: Option<WriteValue<'_>>) -> bool {
        if !self.fast_state() {
            return false;
        }
        let t = tag.as_bytes();
        if !fast_tag(t) {
            return false;
        }
        let bad = self.id_bad;
        // Level, space, tag, terminator.
        let mut len = 2 + t.len() + self.term_width;
        if let Some(x) = xref {
            if !fast_id(x.as_bytes(), bad | C_XREF_ONLY) {
                return false;
            }
            len += x.len() + 1;
        }
        let payload: &[u8] = match value {
            None => &[],
            Some(WriteValue::Pointer(p)) => {
                if !fast_id(p.as_bytes(), bad) {
                    return false;
                }
                p.as_bytes()
            }
            Some(WriteValue::Text(text)) => {
                // Non-empty, no `@`, CR or LF, no trailing whitespace (nor a character
                // that may be a combining mark after it), ASCII unless UTF-8 output.
                let b = text.as_bytes();
                if !plain_end(text) {
                    return false;
                }
                if scan_special(b, self.high) != 0 {
                    return self.begin_fast_escaped(t, xref, text, len);
                }
                b
            }
        };
        self.put_fast_line_within(t, xref.map(str::as_bytes), payload, len)
    }

    /// Output begun, not UTF-16, no dropped parent, a one-digit level; room in the
    /// buffer; not too deep for a reader (after ERROR, CONT or CONC lines): the state
    /// the fast path writes in.
    #[inline(always)]
    fn fast_state(&self) -> bool {
        let depth = self.depth;
        depth < self.fast_depth && self.pos < self.flush_at && depth <= self.previous_level + 1
    }

    /// Writes the checked line `LEVEL [XREF ]TAG[ PAYLOAD]` (`len`: its length without
    /// the payload and the space before it) and opens the structure, when it is within
    /// the line limit (and the fast path's longest line); `false` otherwise.
    #[inline(always)]
    fn put_fast_line_within(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        payload: &[u8],
        mut len: usize,
    ) -> bool {
        if !payload.is_empty() {
            len += 1 + payload.len();
        }
        if len > self.fast_line_max {
            return false;
        }
        self.put_fast_line(t, xref, payload, len);
        true
    }

    /// The fast path of [`Writer::begin`] for a structure a reader produced, given as
    /// its octets in the input (the tree bridge's): writes it and returns `true` when
    /// the fast path would write the same structure given as text, and those octets are
    /// that text; returns `false`, having changed nothing, otherwise (the caller then
    /// decodes the structure and calls [`Writer::begin`]).
    ///
    /// What the reader guarantees is not checked again: `tag` matches `Tag` (the caller
    /// has checked it with [`raw_tag_ok`]), an xref matches `XRefID` and a pointer
    /// `Pointer`. What is checked: the state, ASCII xref and pointer octets (others are
    /// decoded on their own), and a text that is ASCII, or (with `utf8`, the caller
    /// knowing the octets are valid UTF-8) UTF-8 for UTF-8 output, with no `@`, control
    /// character or trailing whitespace, on a line within the limit.
    #[inline(always)]
    pub(crate) fn begin_raw(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        value: RawPayload<'_>,
        utf8: bool,
    ) -> bool {
        self.begin_raw_with::<false>(t, xref, value, utf8)
    }

    /// [`Writer::begin_raw`] for a text whose `@` signs the caller has checked: its
    /// octets are what escaping its decoded text gives again, under the escape types
    /// the writer's configuration preserves for `t` (see the tree bridge). Everything
    /// else is checked as there.
    #[inline(never)]
    pub(crate) fn begin_raw_at_signs(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        text: &[u8],
        utf8: bool,
    ) -> bool {
        self.begin_raw_with::<true>(t, xref, RawPayload::Text(text), utf8)
    }

    /// [`Writer::begin_raw`]; with `AT_OK`, `@` signs in a text are not looked at.
    #[inline(always)]
    fn begin_raw_with<const AT_OK: bool>(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        value: RawPayload<'_>,
        utf8: bool,
    ) -> bool {
        if !self.fast_state() {
            return false;
        }
        let mut len = 2 + t.len() + self.term_width;
        let mut high = 0;
        if let Some(x) = xref {
            high |= scan_high(x);
            len += x.len() + 1;
        }
        let payload: &[u8] = match value {
            RawPayload::None => &[],
            RawPayload::Pointer(p) => {
                high |= scan_high(p);
                p
            }
            RawPayload::Text(b) => {
                match b.last() {
                    Some(&last) if last < 0x80 => {
                        if last == b' ' || last == b'\t' {
                            return false;
                        }
                    }
                    Some(_) => {}
                    None => return false,
                }
                let scan = if AT_OK { scan_control } else { scan_special };
                if scan(b, 0x8080_8080_8080_8080) != 0 {
                    // Not ASCII only: valid UTF-8 octets of plain text, written as
                    // UTF-8, not ending in what may be a combining mark.
                    if !(utf8 && self.utf8) || scan(b, 0) != 0 || !plain_end_utf8(b) {
                        return false;
                    }
                }
                b
            }
        };
        if high != 0 {
            return false;
        }
        self.put_fast_line_within(t, xref, payload, len)
    }

    /// The fast path for a text with `@` signs (escapes such as `@#DJULIAN@ ` in a
    /// `DATE`, e-mail addresses): when it holds no control character, and no non-ASCII
    /// one unless the output is UTF-8, it is prepared as the general path prepares it and,
    /// when the result fits on the line, written. `len`: the line's length without the
    /// payload and the space before it.
    #[inline(never)]
    fn begin_fast_escaped(&mut self, t: &[u8], xref: Option<&str>, text: &str, len: usize) -> bool {
        let b = text.as_bytes();
        // Only `@` signs set it apart (the scan's control-character and high tests,
        // without the `@` one).
        let mut hit = 0u64;
        let mut rest = b;
        while let Some((c, r)) = rest.split_first_chunk::<8>() {
            let w = u64::from_le_bytes(*c);
            hit |= (w.wrapping_sub(0x2020_2020_2020_2020) & !w) | (w & self.high);
            rest = r;
        }
        for &c in rest {
            hit |= u64::from(c < 0x20) << 7 | (u64::from(c) & self.high);
        }
        if hit & 0x8080_8080_8080_8080 != 0 {
            return false;
        }
        let preserve = self.config.escapes.lookup(t);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        text::prepare(text, preserve, &self.enc, &mut scratch);
        let len = len + 1 + scratch.len();
        let fits = len <= self.fast_line_max;
        if fits {
            self.put_fast_line(t, xref.map(str::as_bytes), scratch.as_bytes(), len);
        }
        self.scratch = scratch;
        fits
    }

    /// Writes line `LEVEL [XREF ]TAG[ PAYLOAD]` (`len` octets with the terminator) for
    /// the fast path, which has checked everything, and opens the structure.
    #[inline(always)]
    fn put_fast_line(&mut self, t: &[u8], xref: Option<&[u8]>, payload: &[u8], len: usize) {
        let depth = self.depth;
        self.put_line_raw(depth as u8, t, xref, payload, len);
        self.previous_level = depth;
        self.depth = depth + 1;
        self.fresh = true;
    }

    /// Writes line `LEVEL [XREF ]TAG[ PAYLOAD]` octet for octet: `level` below 10, `len`
    /// octets with the terminator, room for `len + 1` in the buffer (the terminator is
    /// stored as two octets).
    #[inline(always)]
    fn put_line_raw(
        &mut self,
        level: u8,
        t: &[u8],
        xref: Option<&[u8]>,
        payload: &[u8],
        len: usize,
    ) {
        let pos = self.pos;
        let line = &mut self.buf[pos..pos + len + 1];
        line[0] = b'0' + level;
        line[1] = b' ';
        let mut i = 2;
        if let Some(x) = xref {
            copy_short(&mut line[i..i + x.len()], x);
            i += x.len();
            line[i] = b' ';
            i += 1;
        }
        copy_short(&mut line[i..i + t.len()], t);
        i += t.len();
        if !payload.is_empty() {
            line[i] = b' ';
            i += 1;
            copy_short(&mut line[i..i + payload.len()], payload);
            i += payload.len();
        }
        line[i..i + 2].copy_from_slice(&self.term2);
        self.pos = pos + len;
    }

    /// [`Writer::begin`] for every structure: all rules, all encodings, any depth.
    #[cold]
    #[inline(never)]
    fn begin_general(
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
        }
        let continuation = tag == "CONT" || tag == "CONC";
        if continuation && depth > 0 && self.fresh {
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

        self.write_lines(level, xref, tag, value, first_line)?;
        if !keeps_previous_level(tag) {
            self.previous_level = depth;
        }
        let head = self.config.set_head_char && depth == 0 && tag.eq_ignore_ascii_case("HEAD");
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
            if !keeps_previous_level(tag) {
                self.caller_prev = depth;
            }
            self.converge();
        }
    }

    /// Stops `tracking` once the output's previous level is the caller's again (and no
    /// caller's `CHAR` or structure left out is open, inside which they may part
    /// again): from then on both change alike.
    fn converge(&mut self) {
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

    /// The `CHAR` rule (see [`WriterConfig::set_head_char`]) for a structure to begin at
    /// `depth` (1 to 3) in a `HEAD` with the writer's `CHAR` line: returns `true` when it
    /// took the structure (one that is not written: the caller's `CHAR` or a `VERS` under
    /// it, whose substructures are, or a structure left out), `false` for one to write
    /// as usual.
    #[cold]
    fn char_rule(
        &mut self,
        depth: usize,
        tag: &str,
        xref: Option<&str>,
        line: Option<u64>,
    ) -> bool {
        let hc = &mut self.head_char;
        match depth {
            1 if tag.eq_ignore_ascii_case("CHAR") => {
                if hc.state != CharState::Before {
                    self.drop_structure(depth, tag, line, DropReason::SecondChar);
                    return true;
                }
                hc.state = CharState::Open;
                hc.seg = self.pos;
                hc.outer_prev = self.previous_level;
                if !self.tracking {
                    self.tracking = true;
                    self.caller_prev = self.previous_level;
                }
                // What it holds follows the writer's CHAR line, or its VERS line.
                hc.char_prev = if hc.vers_line { 2 } else { 1 };
                hc.vers_prev = 2;
                hc.char_bare = !hc.vers_line;
                hc.vers_bare = true;
                self.previous_level = hc.char_prev;
            }
            2 if hc.state == CharState::Open && tag.eq_ignore_ascii_case("VERS") => {
                hc.in_vers = true;
                hc.vers_start = self.pos;
                if hc.vers_line {
                    hc.char_prev = self.previous_level;
                    self.previous_level = hc.vers_prev;
                }
            }
            2 if hc.state == CharState::Open => {
                // A CONT or CONC first under the caller's CHAR is the caller's mistake
                // (refused as usual); one that would be first only under the writer's
                // is left out.
                if !(is_continuation(tag) && !self.fresh && hc.char_bare) {
                    return false;
                }
                self.drop_structure(depth, tag, line, DropReason::Continuation);
                return true;
            }
            3 if hc.in_vers => {
                let reason = if !hc.vers_line {
                    DropReason::NoVersLine
                } else if is_continuation(tag) && !self.fresh && hc.vers_bare {
                    DropReason::Continuation
                } else {
                    return false;
                };
                self.drop_structure(depth, tag, line, reason);
                return true;
            }
            _ => return false,
        }
        // The caller's CHAR or a VERS under it: not written; its substructures are.
        if xref.is_some() {
            self.record_drop(tag, line, DropReason::CharXref);
        }
        self.depth = depth + 1;
        self.fresh = true;
        self.update_gates();
        true
    }

    /// Leaves out the structure beginning at `depth`, with its substructures, and
    /// records it.
    #[cold]
    fn drop_structure(&mut self, depth: usize, tag: &str, line: Option<u64>, reason: DropReason) {
        // What follows it may now be too deep in the output but not where the caller
        // put it.
        if !self.tracking {
            self.tracking = true;
            self.caller_prev = self.previous_level;
        }
        self.record_drop(tag, line, reason);
        self.skip_from = depth;
        self.depth = depth + 1;
        self.update_gates();
    }

    #[cold]
    fn record_drop(&mut self, tag: &str, line: Option<u64>, reason: DropReason) {
        self.dropped_count += 1;
        if self.dropped.len() < Dropped::KEPT {
            self.dropped.push(Dropped::new(tag, line, reason));
        }
    }

    /// How many structures (and xrefs) the writer has left out so far: see
    /// [`Writer::dropped`]. Read it before [`Writer::finish`], which consumes the
    /// writer.
    #[must_use]
    pub fn dropped_count(&self) -> u64 {
        self.dropped_count
    }

    /// The first [`Dropped::KEPT`] (100) structures (and xrefs) the writer has left out
    /// so far, in the order met, each with its tag, input line (when it came through
    /// [`Writer::write_event`] or from a tree) and [`DropReason`]; [`Writer::dropped_count`] counts them
    /// all. Only the `CHAR` rule of [`WriterConfig::set_head_char`] leaves anything out:
    /// a writer writes everything else it is given, or refuses it with an error.
    ///
    /// Read it before [`Writer::finish`], which consumes the writer.
    ///
    /// ```
    /// use gedcom_elf::write::{DropReason, Writer};
    /// use gedcom_elf::Reader;
    ///
    /// let input = b"0 HEAD\n1 CHAR UTF-8\n2 _X kept\n1 CHAR ANSEL\n2 _Y\n0 TRLR\n";
    /// let mut w = Writer::new(Vec::new());
    /// for event in Reader::from_slice(input) {
    ///     w.write_event(&event.unwrap(), gedcom_elf::Encoding::Utf8)?;
    /// }
    /// assert_eq!(w.dropped_count(), 1);
    /// let d = &w.dropped()[0];
    /// assert_eq!((d.tag.as_str(), d.line, d.reason), ("CHAR", Some(4), DropReason::SecondChar));
    /// assert_eq!(w.finish()?, b"0 HEAD\n1 CHAR UTF-8\n2 _X kept\n0 TRLR\n");
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    #[must_use]
    pub fn dropped(&self) -> &[Dropped] {
        &self.dropped
    }

    /// Takes what this writer left out (a piece writer's, see the tree bridge).
    pub(crate) fn take_dropped(&mut self) -> (u64, Vec<Dropped>) {
        (
            std::mem::take(&mut self.dropped_count),
            std::mem::take(&mut self.dropped),
        )
    }

    /// Adds what another writer left out (after what this one did).
    pub(crate) fn add_dropped(&mut self, count: u64, dropped: Vec<Dropped>) {
        self.dropped_count += count;
        let room = Dropped::KEPT.saturating_sub(self.dropped.len());
        self.dropped.extend(dropped.into_iter().take(room));
    }

    /// Moves what the open caller's `CHAR` holds under the writer's `CHAR` line: the
    /// substructures of its `VERS` structures first (under the writer's `VERS` line),
    /// then the others, each in order. Ends the caller's `CHAR` (as far as the rule
    /// goes); nothing to do when none is open.
    fn settle_char(&mut self) {
        let hc = &mut self.head_char;
        if !self.head_open || hc.state != CharState::Open {
            return;
        }
        hc.state = CharState::Done;
        if hc.in_vers {
            hc.in_vers = false;
            if hc.vers_line {
                hc.vers_spans.push((hc.vers_start, self.pos));
            }
        }
        let (ins, seg, end) = (hc.ins, hc.seg, self.pos);
        if !hc.vers_spans.is_empty() {
            // Stable partition: the VERS spans, then the rest.
            let held = self.buf[seg..end].to_vec();
            let mut at = seg;
            let mut put = |buf: &mut [u8], a: usize, b: usize| {
                buf[at..at + b - a].copy_from_slice(&held[a - seg..b - seg]);
                at += b - a;
            };
            for &(a, b) in &hc.vers_spans {
                put(&mut self.buf, a, b);
            }
            let mut from = seg;
            for &(a, b) in &hc.vers_spans {
                put(&mut self.buf, from, a);
                from = b;
            }
            put(&mut self.buf, from, end);
            hc.vers_spans.clear();
        }
        self.buf[ins..end].rotate_right(end - seg);
    }

    /// Ends the innermost open structure.
    ///
    /// # Errors
    /// [`WriteErrorKind::NothingOpen`] when no structure is open.
    #[inline]
    pub fn end(&mut self) -> Result<(), WriteError> {
        let Some(depth) = self.depth.checked_sub(1) else {
            return Err(WriteError::new(
                WriteErrorKind::NothingOpen,
                "end with no structure open",
            ));
        };
        self.depth = depth;
        self.fresh = false;
        if depth == self.watch {
            self.ended_watched();
        }
        Ok(())
    }

    /// The end of a dropped structure's outermost frame, of a `HEAD` with the writer's
    /// `CHAR`, or of the caller's `CHAR` or a `VERS` directly under it there.
    #[cold]
    fn ended_watched(&mut self) {
        let depth = self.depth;
        if depth == self.skip_from {
            self.skip_from = usize::MAX;
            self.converge();
        } else if depth == 2 && self.head_char.in_vers {
            let hc = &mut self.head_char;
            hc.in_vers = false;
            if hc.vers_line {
                hc.vers_spans.push((hc.vers_start, self.pos));
                hc.vers_prev = self.previous_level;
                self.previous_level = hc.char_prev;
            }
        } else if depth == 1 && self.head_char.state == CharState::Open {
            let moved = self.head_char.seg != self.head_char.ins;
            self.settle_char();
            if moved {
                // What follows in the output follows what came before the caller's
                // CHAR (a lower bound when that was only CONT, CONC or ERROR lines, which
                // now follow what moved).
                self.previous_level = self.head_char.outer_prev;
            }
            self.converge();
        } else if depth == 0 {
            self.head_open = false;
            self.head_char = HeadChar::default();
        }
        self.update_gates();
    }

    /// Begins and ends a structure with no substructures.
    ///
    /// # Errors
    /// As [`Writer::begin`].
    pub fn leaf(&mut self, tag: &str, value: Option<WriteValue<'_>>) -> Result<(), WriteError> {
        self.begin(tag, None, value)?;
        self.end()
    }

    /// Writes a `HEAD` record per seed §6 and leaves it open for more substructures:
    /// `0 HEAD`, `1 CHAR` naming the output encoding (see
    /// [`WriterConfig::set_head_char`]), `1 GEDC` (with `2 VERS 5.5.1`, `2 FORM
    /// LINEAGE-LINKED`, `2 ELF`), and the schema as `1 SCHMA`, whose `ESC` lines become
    /// the writer's escape table.
    ///
    /// ```
    /// use gedcom_elf::write::{HeadOptions, Schema, Writer};
    ///
    /// let mut w = Writer::new(Vec::new());
    /// w.begin_head(&HeadOptions { schema: Some(Schema::default()), ..HeadOptions::default() })?;
    /// w.end()?;
    /// w.trailer()?;
    /// assert_eq!(
    ///     String::from_utf8(w.finish()?).unwrap(),
    ///     "0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n\
    ///      2 ELF 1.0.0\n1 SCHMA\n2 ESC DATE D\n0 TRLR\n"
    /// );
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Writer::begin`]; [`WriteErrorKind::MissingHead`] when something was written
    /// already or a structure is open.
    pub fn begin_head(&mut self, opts: &HeadOptions) -> Result<(), WriteError> {
        if self.depth != 0 {
            return Err(WriteError::new(
                WriteErrorKind::MissingHead,
                "a HEAD must be a record",
            ));
        }
        self.begin("HEAD", None, None)?;
        if opts.gedc {
            self.begin("GEDC", None, None)?;
            self.leaf("VERS", Some(WriteValue::Text("5.5.1")))?;
            self.leaf("FORM", Some(WriteValue::Text("LINEAGE-LINKED")))?;
            if let Some(v) = &opts.elf {
                self.leaf("ELF", Some(WriteValue::Text(v)))?;
            }
            self.end()?;
        }
        if !self.config.set_head_char {
            let enc = self.config.encoding;
            self.leaf("CHAR", Some(WriteValue::Text(enc.char_value())))?;
        }
        if let Some(schema) = &opts.schema {
            self.config.escapes = schema.escapes.clone();
            self.begin("SCHMA", None, None)?;
            for iri in &schema.external {
                self.leaf("SCHMA", Some(WriteValue::Text(iri)))?;
            }
            for (prefix, iri) in &schema.prefixes {
                self.leaf("PRFX", Some(WriteValue::Text(&format!("{prefix} {iri}"))))?;
            }
            for (tag, set) in schema.escapes.iter() {
                let types: String = (b'A'..=b'Z')
                    .filter(|&t| set.contains(t))
                    .map(char::from)
                    .collect();
                let tag = String::from_utf8_lossy(tag);
                self.leaf("ESC", Some(WriteValue::Text(&format!("{tag} {types}"))))?;
            }
            for def in &schema.iris {
                self.begin("IRI", None, Some(WriteValue::Text(&def.iri)))?;
                for s in &def.supertypes {
                    self.leaf("ISA", Some(WriteValue::Text(s)))?;
                }
                for (tag, supers) in &def.tags {
                    let mut payload = tag.clone();
                    for s in supers {
                        payload.push(' ');
                        payload.push_str(s);
                    }
                    self.leaf("TAG", Some(WriteValue::Text(&payload)))?;
                }
                self.end()?;
            }
            self.end()?;
        }
        Ok(())
    }

    /// Ends every open structure and writes `0 TRLR`.
    ///
    /// # Errors
    /// As [`Writer::begin`].
    pub fn trailer(&mut self) -> Result<(), WriteError> {
        while self.depth != 0 {
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
        steps: impl IntoIterator<Item = Step<'v>>,
    ) -> Result<(), WriteError> {
        for step in steps {
            match step {
                Step::Begin { tag, xref, value } => self.begin(tag, xref, value)?,
                Step::End => self.end()?,
            }
        }
        Ok(())
    }

    /// Writes one reader event: the way to copy (re-serialise) a file. Text payloads are
    /// written from [`Payload::text`](crate::Payload::text); xrefs and pointers, which
    /// the reader hands over as raw octets, are decoded from `source` (the reader's
    /// [`Reader::encoding`](crate::Reader::encoding); UTF-8 for UTF-16 input, which
    /// [`Input`](crate::Input) transcodes). The [`Begin::line`](crate::Begin) of a
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
        while self.depth != 0 {
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
        let grammar = xref_grammar(x.as_bytes(), kind != WriteErrorKind::InvalidPointer);
        debug_assert!(
            !grammar
                || match kind {
                    WriteErrorKind::InvalidPointer => is_pointer(x.as_bytes()),
                    _ => is_valid_xref(x.as_bytes()),
                }
        );
        if grammar && (self.utf || self.enc.can_encode_verbatim(x)) {
            return Ok(());
        }
        let what = if kind == WriteErrorKind::InvalidPointer {
            "pointer"
        } else {
            "xref"
        };
        Err(WriteError::new(
            kind,
            format!(
                "invalid {what} {x:?}: not of the {} production, or not representable in {}",
                if what == "xref" { "XRefID" } else { "Pointer" },
                self.config.encoding
            ),
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

    /// Writes `1 CHAR <encoding>` (and `2 VERS` when the encoding needs it), and gets
    /// the `CHAR` rule ready for the `HEAD`.
    fn write_char_lines(&mut self) {
        let enc = self.config.encoding;
        self.emit_line(1, None, "CHAR", Some(enc.char_value()));
        let vers = enc.vers();
        self.previous_level = 1;
        if let Some(v) = vers {
            self.emit_line(2, None, "VERS", Some(v));
            self.previous_level = 2;
        }
        self.head_char = HeadChar {
            vers_line: vers.is_some(),
            ins: self.pos,
            ..HeadChar::default()
        };
    }

    fn write_lines(
        &mut self,
        level: u32,
        xref: Option<&str>,
        tag: &str,
        value: Option<WriteValue<'_>>,
        bare_first: bool,
    ) -> Result<(), WriteError> {
        match value {
            None => self.emit_line(level, xref, tag, None),
            Some(WriteValue::Pointer(p)) => self.emit_line(level, xref, tag, Some(p)),
            Some(WriteValue::Text(t)) => self.write_text(level, xref, tag, t, bare_first),
        }
        Ok(())
    }

    /// Writes the lines of a text payload; `bare_first`: none of it on the first line
    /// (which must read `0 HEAD` exactly), all on additional lines.
    fn write_text(
        &mut self,
        level: u32,
        xref: Option<&str>,
        tag: &str,
        text: &str,
        bare_first: bool,
    ) {
        let term = self.term_width;
        let max = self.config.max_line_bytes;
        // Fast path: a short single-line text with no `@`, in an encoding that takes it
        // octet for octet.
        if !bare_first && self.fits_verbatim(level, xref, tag, text) {
            self.emit_line(level, xref, tag, Some(text));
            return;
        }
        let preserve = self.config.escapes.lookup(tag.as_bytes());
        let sub = level.saturating_add(1);
        let conc_budget = max.saturating_sub(self.prefix_width(sub, None, "CONC") + term);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut lines = std::mem::take(&mut self.lines);
        for (i, seg) in text::Segments::new(text, self.config.cr_is_line_break).enumerate() {
            let (x, t) = if i == 0 { (xref, tag) } else { (None, "CONT") };
            let l = if i == 0 { level } else { sub };
            if !(i == 0 && bare_first) && self.fits_verbatim(l, x, t, seg) {
                // As in the fast path of a one-line text: no escaping, no split.
                self.emit_line(l, x, t, Some(seg));
                continue;
            }
            scratch.clear();
            text::prepare(seg, preserve, &self.enc, &mut scratch);
            if scratch.is_empty() {
                self.emit_line(l, x, t, None);
                if i == 0 && text.is_empty() {
                    // An empty text, not an absent payload.
                    self.emit_line(sub, None, "CONC", None);
                }
                continue;
            }
            let mut first_budget = max.saturating_sub(self.prefix_width(l, x, t) + term);
            let bare = i == 0 && bare_first;
            if bare {
                self.emit_line(l, x, t, None);
                first_budget = conc_budget;
            }
            lines.clear();
            text::split(&scratch, &self.enc, first_budget, conc_budget, |a, b| {
                lines.push((a, b));
            });
            for (k, &(a, b)) in lines.iter().enumerate() {
                let chunk = &scratch[a..b];
                if k == 0 && !bare {
                    self.emit_line(l, x, t, Some(chunk));
                } else {
                    self.emit_line(sub, None, "CONC", Some(chunk));
                }
            }
            if text::ends_in_whitespace(&scratch) {
                // Readers remove trailing whitespace, except (as this crate's does) on a
                // line followed by a CONC line: an empty one keeps it.
                self.emit_line(sub, None, "CONC", None);
            }
        }
        self.scratch = scratch;
        self.lines = lines;
    }

    /// `true` when `text` can be the payload of line `LEVEL [XREF ]TAG` as it is: it
    /// holds no `@`, CR or LF (nor another control character), does not end in whitespace
    /// (see `plain_end`), fits within the line limit,
    /// and the output encoding takes it octet for octet (UTF-8; any other but UTF-16
    /// when it is ASCII). What escaping and splitting would leave unchanged.
    #[inline(always)]
    fn fits_verbatim(&self, level: u32, xref: Option<&str>, tag: &str, text: &str) -> bool {
        if self.utf16 {
            return false;
        }
        let b = text.as_bytes();
        let term = self.term_width;
        let max = self.config.max_line_bytes;
        // Level (at most 10 digits), spaces, xref and tag: a bound on the prefix.
        let bound = 13 + tag.len() + xref.map_or(0, str::len) + b.len() + term;
        // The length first: a long text (most continued ones) is not scanned.
        (bound <= max || self.prefix_width(level, xref, tag) + b.len() + term <= max)
            && plain_end(text)
            && plain(b)
            && (self.utf8 || text.is_ascii())
    }

    /// The width of `LEVEL [XREF ]TAG ` (the space before a payload included) in output
    /// octets.
    fn prefix_width(&self, level: u32, xref: Option<&str>, tag: &str) -> usize {
        let digits = level.checked_ilog10().map_or(1, |d| d as usize + 1);
        let unit = if self.config.encoding.is_utf16() {
            2
        } else {
            1
        };
        // Level, space, tag, space before the payload, and the space after an xref.
        let ascii = digits + 1 + tag.len() + 1 + usize::from(xref.is_some());
        unit * ascii + xref.map_or(0, |x| self.enc.width(x))
    }

    /// Appends one line: `LEVEL [XREF ]TAG[ PAYLOAD]` and the terminator.
    fn emit_line(&mut self, level: u32, xref: Option<&str>, tag: &str, payload: Option<&str>) {
        if self.utf8 && level < 10 && payload != Some("") {
            // Octet for octet, straight into the buffer when there is room.
            let p = payload.unwrap_or("");
            let len = 2
                + xref.map_or(0, |x| x.len() + 1)
                + tag.len()
                + payload.map_or(0, |p| p.len() + 1)
                + self.term.len();
            if self.pos + len < self.buf.len() {
                self.put_line_raw(
                    level as u8,
                    tag.as_bytes(),
                    xref.map(str::as_bytes),
                    p.as_bytes(),
                    len,
                );
                return;
            }
        }
        let mut buf = std::mem::take(&mut self.line);
        buf.clear();
        if self.utf16 {
            self.line_utf16(level, xref, tag, payload, &mut buf);
        } else {
            let raw = self.utf8;
            let (digits, i) = level_digits(level);
            buf.extend_from_slice(&digits[i..]);
            buf.push(b' ');
            if let Some(x) = xref {
                if raw {
                    buf.extend_from_slice(x.as_bytes());
                } else {
                    self.enc.encode(x, &mut buf);
                }
                buf.push(b' ');
            }
            buf.extend_from_slice(tag.as_bytes());
            if let Some(p) = payload {
                buf.push(b' ');
                if raw {
                    buf.extend_from_slice(p.as_bytes());
                } else {
                    self.enc.encode(p, &mut buf);
                }
            }
            buf.extend_from_slice(self.term.as_bytes());
        }
        self.put(&buf);
        self.line = buf;
    }

    fn line_utf16(
        &self,
        level: u32,
        xref: Option<&str>,
        tag: &str,
        payload: Option<&str>,
        out: &mut Vec<u8>,
    ) {
        let (digits, i) = level_digits(level);
        let mut line = String::with_capacity(64);
        line.push_str(std::str::from_utf8(&digits[i..]).unwrap_or("0"));
        line.push(' ');
        if let Some(x) = xref {
            line.push_str(x);
            line.push(' ');
        }
        line.push_str(tag);
        if let Some(p) = payload {
            line.push(' ');
            line.push_str(p);
        }
        line.push_str(self.term);
        self.enc.encode(&line, out);
    }

    /// Appends octets to the buffer, growing it when they do not fit (flushing happens
    /// only between structures, see [`Writer::begin_general`]).
    fn put(&mut self, b: &[u8]) {
        let end = self.pos + b.len();
        if end + FAST_LINE_MAX + 2 > self.buf.len() {
            // Keep room for a fast line after the flush threshold.
            self.buf.resize(end + FAST_LINE_MAX + 2, 0);
        }
        self.buf[self.pos..end].copy_from_slice(b);
        self.pos = end;
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

/// What [`rewrite`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RewriteStats {
    /// Structures written.
    pub structures: u64,
    /// Error-severity diagnostics of the reader.
    pub read_errors: u64,
    /// Warning-severity diagnostics of the reader.
    pub read_warnings: u64,
    /// The input's encoding.
    pub input_encoding: Option<Encoding>,
    /// Structures (and xrefs) the writer left out: [`Writer::dropped_count`].
    pub dropped_count: u64,
    /// The first [`Dropped::KEPT`] of them, with their input lines:
    /// [`Writer::dropped`].
    pub dropped: Vec<Dropped>,
}

/// Reads `input` and writes it again with `config`: the canonical form (single spaces,
/// `@` escaping, `CONC` splits, one line terminator) in the configured encoding, with the
/// `HEAD`'s `CHAR` naming it. The input's escape table (from its schema) is kept, so
/// preserved escapes stay preserved. `input_encoding` overrides the detected encoding.
///
/// Every structure read is written, except what the `CHAR` rule of
/// [`WriterConfig::set_head_char`] leaves out, which [`RewriteStats::dropped_count`] counts
/// and [`RewriteStats::dropped`] lists with input lines.
///
/// ```
/// use gedcom_elf::Encoding;
/// use gedcom_elf::write::{rewrite, LineEnding, WriterConfig};
///
/// let input = b"0 HEAD\r\n1 CHAR ANSEL\r\n0  @I1@  INDI\r\n1 NAME Ren\xE2ee\r\n0 TRLR\r\n";
/// let mut out = Vec::new();
/// rewrite(input, None, WriterConfig::new(), &mut out)?;
/// assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Renée\n0 TRLR\n".as_bytes());
///
/// let mut ascii = Vec::new();
/// let config = WriterConfig::new().encoding(Encoding::Ascii).line_ending(LineEnding::CrLf);
/// rewrite(input, None, config, &mut ascii)?;
/// assert_eq!(ascii, b"0 HEAD\r\n1 CHAR ASCII\r\n0 @I1@ INDI\r\n1 NAME Ren@#UE9@ e\r\n0 TRLR\r\n");
/// # Ok::<(), gedcom_elf::write::WriteError>(())
/// ```
///
/// # Errors
/// [`WriteErrorKind::Read`] when the input cannot be read (nothing is written); any error
/// of [`Writer::write_event`] (for instance [`WriteErrorKind::TooDeep`] for substructures
/// of an `ERROR` structure the reader made from a too-deep line, which no writer can
/// reproduce). [`WriteError::line`] is the input line of the structure refused, or where
/// reading stopped (the message does not repeat it).
pub fn rewrite<W: Write>(
    input: &[u8],
    input_encoding: Option<Encoding>,
    config: WriterConfig,
    out: W,
) -> Result<RewriteStats, WriteError> {
    let read_error = |e: crate::Error| {
        let error = WriteError::new(WriteErrorKind::Read, e.message());
        match e.position() {
            Some(p) => error.at_line(p.line),
            None => error,
        }
    };
    let prepared = crate::Input::with_encoding(input, input_encoding).map_err(read_error)?;
    let enc = prepared.encoding_info().encoding;
    let source = if enc.is_utf16() { Encoding::Utf8 } else { enc };
    let mut reader = prepared.reader();
    let mut stats = RewriteStats {
        input_encoding: Some(enc),
        ..RewriteStats::default()
    };
    let mut writer: Option<Writer<W>> = None;
    let mut out = Some(out);
    loop {
        let event = reader.next_event().map_err(read_error)?;
        for d in reader.drain_diagnostics() {
            match d.severity() {
                crate::Severity::Error => stats.read_errors += 1,
                _ => stats.read_warnings += 1,
            }
        }
        let Some(event) = event else { break };
        let w = match writer.as_mut() {
            Some(w) => w,
            None => {
                // The escape table is complete once the first event was read.
                let config = config
                    .clone()
                    .escapes(reader.escape_table().clone())
                    .cr_is_line_break(false);
                let o = out
                    .take()
                    .ok_or_else(|| WriteError::new(WriteErrorKind::Io, "no output"))?;
                writer.insert(Writer::with_config(o, config))
            }
        };
        if matches!(event, Event::Begin(_)) {
            stats.structures += 1;
        }
        w.write_event(&event, source)?;
    }
    if let Some(mut w) = writer {
        (stats.dropped_count, stats.dropped) = w.take_dropped();
        w.finish()?;
    }
    Ok(stats)
}

/// An xref or pointer as the reader hands it over (raw octets, `@` signs included) as
/// text: as it is when it is UTF-8 (or ASCII), else decoded from `source`. The part
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
/// ```
#[must_use]
pub fn decode_xref(bytes: &[u8], source: Encoding) -> Cow<'_, str> {
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

    /// Writes `script` (`+TAG [VALUE]` begins a structure, `-` ends one) with `enc`;
    /// returns the output as text and what was dropped, as `TAG/reason`.
    fn script(enc: Encoding, script: &[&str]) -> (String, Vec<String>) {
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().encoding(enc));
        for step in script {
            if let Some(rest) = step.strip_prefix('+') {
                let (tag, value) = match rest.split_once(' ') {
                    Some((t, v)) => (t, Some(WriteValue::Text(v))),
                    None => (rest, None),
                };
                w.begin(tag, None, value).unwrap();
            } else {
                w.end().unwrap();
            }
        }
        w.trailer().unwrap();
        let dropped = w
            .dropped()
            .iter()
            .map(|d| format!("{}/{:?}", d.tag, d.reason))
            .collect();
        assert_eq!(w.dropped_count(), w.dropped().len() as u64);
        (String::from_utf8(w.finish().unwrap()).unwrap(), dropped)
    }

    #[test]
    fn char_substructures_move_under_the_writers_char() {
        let steps = [
            "+HEAD",
            "+SOUR x",
            "-",
            "+CHAR ANSEL",
            "+_A a",
            "+_B",
            "-",
            "-",
            "+NOTE n",
            "-",
            "-",
            "+DATE d",
            "-",
        ];
        let (out, dropped) = script(Encoding::Utf8, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR UTF-8\n2 _A a\n3 _B\n2 NOTE n\n1 SOUR x\n1 DATE d\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        // After the writer's VERS line.
        let (out, _) = script(Encoding::Windows1250, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n2 _A a\n3 _B\n2 NOTE n\n1 SOUR x\n1 DATE d\n0 TRLR\n"
        );
        // Unchanged output for a CHAR holding nothing but a VERS.
        let (out, dropped) = script(
            Encoding::Utf8,
            &["+HEAD", "+CHAR ANSI", "+VERS 1250", "-", "-", "+SOUR x"],
        );
        assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n1 SOUR x\n0 TRLR\n");
        assert!(dropped.is_empty());
    }

    #[test]
    fn vers_substructures_go_under_the_writers_vers_or_are_dropped() {
        let steps = [
            "+HEAD",
            "+CHAR ANSI",
            "+_A",
            "-",
            "+VERS 1251",
            "+_V v",
            "+_W",
            "-",
            "-",
            "-",
            "+_B",
            "-",
            "+VERS x",
            "+_U",
            "-",
            "-",
        ];
        let (out, dropped) = script(Encoding::Ibm850, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR IBMPC\n2 VERS 850\n3 _V v\n4 _W\n3 _U\n2 _A\n2 _B\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        let (out, dropped) = script(Encoding::Ascii, &steps);
        assert_eq!(out, "0 HEAD\n1 CHAR ASCII\n2 _A\n2 _B\n0 TRLR\n");
        assert_eq!(dropped, ["_V/NoVersLine", "_U/NoVersLine"]);
    }

    #[test]
    fn a_second_char_is_dropped_whole() {
        let (out, dropped) = script(
            Encoding::Utf8,
            &[
                "+HEAD",
                "+CHAR UTF-8",
                "+_A",
                "-",
                "-",
                "+CHAR ANSEL",
                "+_B",
                "+_C",
                "-",
                "-",
                "-",
                "+SOUR s",
                "-",
                "-",
                "+HEAD",
                "+CHAR x",
                "+_D",
            ],
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR UTF-8\n2 _A\n1 SOUR s\n0 HEAD\n1 CHAR UTF-8\n2 _D\n0 TRLR\n"
        );
        assert_eq!(dropped, ["CHAR/SecondChar"]);
        // Case ignored, as encoding detection does.
        let (out, dropped) = script(Encoding::Utf8, &["+HEAD", "+char x", "+vers y", "+_V"]);
        assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
        assert_eq!(dropped, ["_V/NoVersLine"]);
    }

    #[test]
    fn xrefs_of_char_and_vers_are_dropped_and_reported() {
        let mut w = Writer::with_config(
            Vec::new(),
            WriterConfig::new().encoding(Encoding::Windows1253),
        );
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", Some("@C@"), Some(WriteValue::Text("ANSI")))
            .unwrap();
        w.begin("VERS", Some("@V@"), Some(WriteValue::Text("1253")))
            .unwrap();
        w.leaf("_X", None).unwrap();
        w.trailer().unwrap();
        let reasons: Vec<_> = w.dropped().iter().map(|d| (&*d.tag, d.reason)).collect();
        assert_eq!(
            reasons,
            [
                ("CHAR", DropReason::CharXref),
                ("VERS", DropReason::CharXref)
            ]
        );
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 CHAR ANSI\n2 VERS 1253\n3 _X\n0 TRLR\n"
        );
    }

    #[test]
    fn a_continuation_that_would_come_first_is_dropped() {
        // First under the writer's CHAR (no VERS line): would be read as part of its
        // payload. After the writer's VERS line it is a structure of its own.
        let steps = [
            "+HEAD",
            "+CHAR ANSI",
            "+VERS 1250",
            "-",
            "+CONC x",
            "-",
            "+CONT y",
            "-",
            "+_A",
            "-",
            "+CONT z",
        ];
        let (out, dropped) = script(Encoding::Utf8, &steps);
        assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n2 _A\n2 CONT z\n0 TRLR\n");
        assert_eq!(dropped, ["CONC/Continuation", "CONT/Continuation"]);
        let (out, dropped) = script(Encoding::Windows1250, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n2 CONC x\n2 CONT y\n2 _A\n2 CONT z\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        // Under the writer's VERS likewise.
        let (out, dropped) = script(
            Encoding::Windows1250,
            &[
                "+HEAD", "+CHAR", "+VERS", "+_V", "-", "-", "+VERS", "+_W", "-", "+CONC c",
            ],
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _V\n3 _W\n3 CONC c\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        let (_, dropped) = script(
            Encoding::Windows1250,
            &["+HEAD", "+CHAR", "+VERS", "+_V", "-", "+CONT c"],
        );
        assert!(dropped.is_empty());
        let (out, dropped) = script(
            Encoding::Windows1250,
            &[
                "+HEAD", "+CHAR", "+VERS", "-", "+VERS", "+_V", "-", "+CONT c", "-", "+_W",
            ],
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _V\n3 CONT c\n3 _W\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        // First under the caller's own CHAR: the caller's mistake, refused.
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        let e = w.leaf("CONT", None).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::ContinuationTag);
    }

    #[test]
    fn levels_after_what_moved_are_checked_where_it_stood() {
        // The ERROR chain after the caller's CHAR follows `1 SOUR` in the output, not
        // `3 _B`: its level-3 line is too deep there (not where the caller put it: left
        // out and reported, not refused).
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.leaf("SOUR", None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.begin("_A", None, None).unwrap();
        w.leaf("_B", None).unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("_C", None, None).unwrap();
        w.leaf("_D", None).unwrap();
        w.end().unwrap();
        // Back in step: a level-2 line is where the caller's order has it.
        w.end().unwrap();
        w.begin("_E", None, None).unwrap();
        w.leaf("_F", None).unwrap();
        w.trailer().unwrap();
        let reasons: Vec<_> = w.dropped().iter().map(|d| (&*d.tag, d.reason)).collect();
        assert_eq!(reasons, [("_C", DropReason::TooDeep)]);
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 CHAR UTF-8\n2 _A\n3 _B\n1 SOUR\n1 ERROR\n2 ERROR\n2 _E\n3 _F\n0 TRLR\n"
        );
        // Too deep where the caller put it too: refused.
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.leaf("SOUR", None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.leaf("_A", None).unwrap();
        w.end().unwrap();
        w.leaf("NOTE", None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        let e = w.leaf("_C", None).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::TooDeep);
        // The VERS structures of a CHAR left out (no VERS line in ASCII): what follows
        // them is checked where it ends up.
        let (out, dropped) = script(
            Encoding::Ascii,
            &[
                "+HEAD", "+CHAR", "+VERS", "+_V", "+_W", "-", "-", "-", "+ERROR", "+_X", "-", "-",
                "+_Y", "+_Z",
            ],
        );
        assert_eq!(out, "0 HEAD\n1 CHAR ASCII\n2 ERROR\n2 _Y\n3 _Z\n0 TRLR\n");
        assert_eq!(dropped, ["_V/NoVersLine", "_X/TooDeep"]);
        // Right after the writer's CHAR it follows what was there, `3 _B`.
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.begin("_A", None, None).unwrap();
        w.leaf("_B", None).unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.leaf("_C", None).unwrap();
        w.trailer().unwrap();
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 CHAR UTF-8\n2 _A\n3 _B\n1 ERROR\n2 ERROR\n3 _C\n0 TRLR\n"
        );
        // Inside the CHAR, the levels are checked where its substructures go: after
        // the writer's VERS line, 3 under ERROR is fine.
        let mut w = Writer::with_config(
            Vec::new(),
            WriterConfig::new().encoding(Encoding::Windows1255),
        );
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.leaf("_C", None).unwrap();
        w.trailer().unwrap();
        let out = w.finish().unwrap();
        assert_eq!(
            out,
            b"0 HEAD\n1 CHAR ANSI\n2 VERS 1255\n2 ERROR\n3 _C\n0 TRLR\n"
        );
    }

    #[test]
    fn a_long_head_is_held_then_flushed_as_usual() {
        // More than the flush threshold before the CHAR: all of it held, the CHAR's
        // substructure moved to the top, and the buffer back to its size afterwards.
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out);
        w.begin("HEAD", None, None).unwrap();
        let note = "n".repeat(200);
        for _ in 0..1000 {
            w.leaf("NOTE", Some(WriteValue::Text(&note))).unwrap();
        }
        w.begin("CHAR", None, None).unwrap();
        w.leaf("_A", Some(WriteValue::Text("a"))).unwrap();
        w.end().unwrap();
        assert!(w.buf.len() > BUF_LEN);
        w.end().unwrap();
        for _ in 0..1000 {
            w.leaf("NOTE", Some(WriteValue::Text(&note))).unwrap();
        }
        assert_eq!(w.buf.len(), BUF_LEN);
        w.trailer().unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("0 HEAD\n1 CHAR UTF-8\n2 _A a\n1 NOTE nnn"));
        assert_eq!(text.matches("\n2 _A a\n").count(), 1);
        assert_eq!(text.lines().count(), 2004);
    }

    #[test]
    fn a_writer_dropped_inside_the_char_still_moves_its_substructures() {
        let mut out = Vec::new();
        {
            let mut w = Writer::with_config(
                &mut out,
                WriterConfig::new().encoding(Encoding::Windows1250),
            );
            w.begin("HEAD", None, None).unwrap();
            w.leaf("SOUR", None).unwrap();
            w.begin("CHAR", None, None).unwrap();
            w.leaf("_A", None).unwrap();
            w.begin("VERS", None, None).unwrap();
            w.begin("_V", None, None).unwrap();
        }
        assert_eq!(
            out,
            b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _V\n2 _A\n1 SOUR\n"
        );
    }

    #[test]
    fn without_head_char_nothing_is_moved_or_dropped() {
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().set_head_char(false));
        w.begin("HEAD", None, None).unwrap();
        w.leaf("SOUR", None).unwrap();
        w.begin("CHAR", Some("@C@"), Some(WriteValue::Text("ANSEL")))
            .unwrap();
        w.leaf("CONC", None).unwrap_err();
        w.leaf("_A", None).unwrap();
        w.end().unwrap();
        w.leaf("CHAR", None).unwrap();
        w.trailer().unwrap();
        assert_eq!(w.dropped_count(), 0);
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 SOUR\n1 @C@ CHAR ANSEL\n2 _A\n1 CHAR\n0 TRLR\n"
        );
    }

    #[test]
    fn drops_past_the_kept_ones_are_counted() {
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.leaf("CHAR", None).unwrap();
        for _ in 0..250 {
            w.leaf("CHAR", None).unwrap();
        }
        assert_eq!(w.dropped_count(), 250);
        assert_eq!(w.dropped().len(), Dropped::KEPT);
        let (count, list) = w.take_dropped();
        w.add_dropped(count, list.clone());
        w.add_dropped(count, list);
        assert_eq!(w.dropped_count(), 500);
        assert_eq!(w.dropped().len(), Dropped::KEPT);
    }

    #[test]
    fn errors_and_drops_carry_the_event_line() {
        let input = b"0 HEAD\n1 CHAR ANSEL\n1 CHAR UTF-8\n0 @I\xC3\xA9@ INDI\n0 TRLR\n";
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().encoding(Encoding::Ascii));
        let mut error = None;
        for event in crate::Reader::from_slice(input) {
            if let Err(e) = w.write_event(&event.unwrap(), Encoding::Utf8) {
                error = Some(e);
                break;
            }
        }
        let e = error.expect("the xref is refused");
        assert_eq!((e.kind(), e.line()), (WriteErrorKind::InvalidXref, Some(4)));
        assert!(!e.to_string().contains('4'), "{e}");
        assert_eq!(w.dropped()[0].line, Some(3));
        assert_eq!(
            w.dropped()[0].to_string(),
            format!("line 3: CHAR: {}", DropReason::SecondChar)
        );
        // Through `begin`, no line.
        let e = w.begin("_X", Some("@x:y@"), None).unwrap_err();
        assert_eq!(e.line(), None);
        assert_eq!(
            std::mem::size_of::<WriteError>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn copy_short_copies_every_length() {
        // Each length through every branch and past the longest fixed-size move, into
        // a line with octets before and after that must stay as they are.
        for n in 0..=140usize {
            let s: Vec<u8> = (0..n).map(|i| (i * 7 + n) as u8).collect();
            let mut line = vec![0xEEu8; n + 6];
            copy_short(&mut line[3..3 + n], &s);
            assert_eq!(&line[3..3 + n], &s[..], "length {n}");
            assert!(
                line[..3].iter().chain(&line[3 + n..]).all(|&b| b == 0xEE),
                "length {n}"
            );
        }
    }

    #[test]
    fn plain_agrees_with_a_byte_loop() {
        // Every length up to 40, each special octet (and its neighbours, high octets,
        // control characters) at each position.
        for len in 0..40 {
            for at in 0..len.max(1) {
                for c in [
                    b'@', b'\n', b'\r', b'?', b'A', 0x80, 0xC0, 0xFF, 0x00, 0x0B, 0x3F, 0x1F, 0x20,
                    0x41, 0x7F,
                ] {
                    let mut b = vec![b'x'; len];
                    if len > 0 {
                        b[at] = c;
                    }
                    let naive = !b.iter().any(|&c| c == b'@' || c < 0x20);
                    assert_eq!(plain(&b), naive, "{b:?}");
                    let ascii = naive && b.is_ascii();
                    assert_eq!(scan_special(&b, 0x8080_8080_8080_8080) == 0, ascii, "{b:?}");
                }
            }
        }
    }

    #[test]
    fn xref_grammar_agrees_with_the_reader() {
        let cases: &[&[u8]] = &[
            b"@I1@",
            b"@@",
            b"@I@",
            b"@_@",
            b"@I:1@",
            b"@I!1@",
            b"@I@1@",
            b"@I 1@",
            b"@-1@",
            b"I1",
            b"@I1",
            b"@I\n1@",
            b"@I\r1@",
            b"@\xC3\xA91@",
            b"@1\xC3\xA9@",
            b"@",
        ];
        for &x in cases {
            let no_break = !x.contains(&b'\n') && !x.contains(&b'\r');
            assert_eq!(xref_grammar(x, true), is_valid_xref(x) && no_break, "{x:?}");
            assert_eq!(xref_grammar(x, false), is_pointer(x) && no_break, "{x:?}");
        }
    }
}
