//! What a writer refuses ([`WriteError`]) and what it leaves out ([`Dropped`]).

use std::fmt;
use std::io;

/// What went wrong in a [`Writer`](crate::write::Writer).
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
    /// [`Writer::end`](crate::write::Writer::end) with no structure open.
    NothingOpen,
    /// A `CONT` or `CONC` structure as the first substructure: a reader would take it for
    /// an additional line of its superstructure (seed §4.5).
    ContinuationTag,
    /// The line would be too deep for a reader (seed §4.1): its level would exceed the
    /// level of the last line not tagged `CONT`, `CONC` or `ERROR` by more than one (a
    /// substructure of an `ERROR`, `CONT` or `CONC` structure that follows a shallower
    /// line).
    TooDeep,
    /// The first structure is not a bare `HEAD` (see
    /// [`WriterConfig::headless`](crate::write::WriterConfig::headless)).
    MissingHead,
    /// [`rewrite`](crate::write::rewrite()) could not read its input (not GEDCOM, unsupported
    /// encoding).
    Read,
    /// A handle of a [`TypedDocument`](crate::write::typed::TypedDocument) that is not from that
    /// document, or a pointer whose target is not a record.
    InvalidHandle,
    /// A structure type that is not an IRI (empty, or with whitespace), or a schema
    /// typed writing cannot use (an older draft's IRI dictionary).
    InvalidType,
    /// A structure type no tag can be given in its context (see [`typed`](crate::write::typed)).
    Untaggable,
    /// GEDCOM 7 output in an encoding other than UTF-8 (7.0 files are UTF-8 only), or
    /// something else GEDCOM 7 cannot hold (a payload on the `HEAD`).
    UnsupportedEncoding,
}

/// An error from a [`Writer`](crate::write::Writer). Nothing of the refused structure was written.
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
    /// [`Writer::write_event`](crate::write::Writer::write_event) (and so of
    /// [`rewrite`](crate::write::rewrite())) the [`Begin::line`](crate::Begin) of the event
    /// that failed, for a [`WriteErrorKind::Read`] error of
    /// [`rewrite`](crate::write::rewrite()) the line the reader stopped at, for an error of
    /// [`bridge::write_tree`](crate::bridge::write_tree) the tree node's line. `None` for
    /// an error of a call that takes no line
    /// ([`Writer::begin`](crate::write::Writer::begin) ...), and for a failing
    /// [`Event::End`](crate::Event::End), which carries no line. Not part of the
    /// [`Display`](fmt::Display) form, which is the message alone.
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
    /// A second (or later) `CHAR` directly under a `HEAD` that got the writer's `CHAR` line
    /// ([`WriterConfig::set_head_char`](crate::write::WriterConfig::set_head_char)), left
    /// out with its substructures: the output names its encoding once.
    SecondChar,
    /// A substructure (with its own) of a `VERS` under the `HEAD`'s `CHAR`, when the output
    /// encoding needs no `VERS` line ([`Encoding::vers`](crate::Encoding::vers)) to keep it
    /// under.
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
    /// [`TypedDocument`](crate::write::typed::TypedDocument) has no place for it (see
    /// [`bridge::typed_document`](crate::bridge::typed_document)).
    Untyped,
    /// The payload of a `HEAD` or `TRLR`, which a
    /// [`TypedDocument`](crate::write::typed::TypedDocument) has no place for.
    UntypedPayload,
    /// A `CHAR` (with its substructures) directly under the `HEAD` of GEDCOM 7 output,
    /// which is UTF-8 and names no encoding.
    Gedcom7Char,
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
            DropReason::Gedcom7Char => "a char under the head of GEDCOM 7 output (UTF-8, no char line)",
        })
    }
}

/// Something a writer left out of its output (a structure with its substructures, or,
/// for [`DropReason::CharXref`], an xref): see [`Writer::dropped`](crate::write::Writer::dropped).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Dropped {
    /// The structure's tag.
    pub tag: String,
    /// The structure's line in the input, when known: given to
    /// [`Writer::write_event`](crate::write::Writer::write_event) (as
    /// [`Begin::line`](crate::Begin)) or by a tree; `None` through
    /// [`Writer::begin`](crate::write::Writer::begin).
    pub line: Option<u64>,
    /// Why it was left out.
    pub reason: DropReason,
}

impl Dropped {
    /// How many a [`Writer`](crate::write::Writer) (and
    /// [`RewriteStats`](crate::write::RewriteStats)) keeps; the others are only counted.
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
