//! Events shared by the reader, the writer and the tree.

use std::borrow::Cow;
use std::fmt;

use crate::payload::Payload;

/// An xref (structure identifier) or pointer, `@` signs included, as raw
/// bytes borrowed from the input.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Xref<'a>(Cow<'a, [u8]>);

impl<'a> Xref<'a> {
    /// Wraps raw bytes such as `b"@I1@"`.
    pub fn new(bytes: impl Into<Cow<'a, [u8]>>) -> Self {
        Xref(bytes.into())
    }

    /// The raw bytes, `@` signs included.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The raw bytes, `@` signs included, borrowed from the input when
    /// the xref is.
    pub fn into_bytes(self) -> Cow<'a, [u8]> {
        self.0
    }

    /// The xref as text (invalid UTF-8 replaced by U+FFFD).
    pub fn to_str_lossy(&self) -> Cow<'_, str> {
        // The usual xref, valid (ASCII), is checked word by word first.
        match std::str::from_utf8(&self.0) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(&self.0),
        }
    }

    /// An xref that owns its bytes.
    pub fn into_owned(self) -> Xref<'static> {
        Xref(Cow::Owned(self.0.into_owned()))
    }
}

impl fmt::Debug for Xref<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_str_lossy())
    }
}

impl fmt::Display for Xref<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_str_lossy())
    }
}

/// A structure's payload: a pointer or a string (seed §4.1: a payload that
/// matches the `Pointer` production as a whole is a pointer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// A pointer to the structure with this xref.
    Pointer(Xref<'a>),
    /// A string payload; see [`Payload::text`].
    Text(Payload<'a>),
}

impl<'a> Value<'a> {
    /// The pointer, if this is one.
    pub fn as_pointer(&self) -> Option<&Xref<'a>> {
        match self {
            Value::Pointer(x) => Some(x),
            Value::Text(_) => None,
        }
    }

    /// The string payload, if this is one.
    pub fn as_text(&self) -> Option<&Payload<'a>> {
        match self {
            Value::Text(p) => Some(p),
            Value::Pointer(_) => None,
        }
    }

    /// A value that owns its bytes.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Pointer(x) => Value::Pointer(x.into_owned()),
            Value::Text(p) => Value::Text(p.into_owned()),
        }
    }
}

/// A byte range `start..end` in the buffer that was read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset just past the last byte.
    pub end: usize,
}

/// Where a structure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Origin {
    /// A well-formed line (possibly one literally tagged `ERROR`, or a stray
    /// `CONT`/`CONC` line).
    Line,
    /// An unparsable line string, turned into an `ERROR` structure whose
    /// payload is the line string (seed §4.1.1).
    UnparsableLine,
    /// A too-deep line, turned into an `ERROR` structure whose payload is
    /// the line re-serialised with single spaces (seed §4.2).
    TooDeepLine {
        /// The level written on the line.
        original_level: u32,
    },
}

/// The start of a structure. Its substructures follow, then its [`End`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Begin<'a> {
    /// The structure's level: 0 for records, one more than its
    /// superstructure's otherwise (for `ERROR` structures the corrected
    /// level, not the level written in the input).
    pub level: u32,
    /// The structure identifier, if any.
    pub xref: Option<Xref<'a>>,
    /// The tag (`[0-9a-zA-Z_]+`).
    pub tag: Cow<'a, str>,
    /// The payload, if any.
    pub value: Option<Value<'a>>,
    /// 1-based number of the structure's first line.
    pub line: u64,
    /// Bytes of the first line through the last additional line (line
    /// strings only, without the final line break).
    pub span: Span,
    /// How the structure arose.
    pub origin: Origin,
}

impl<'a> Begin<'a> {
    /// The pointer payload, if the payload is a pointer.
    pub fn pointer(&self) -> Option<&Xref<'a>> {
        self.value.as_ref().and_then(Value::as_pointer)
    }

    /// The decoded text of a string payload (see [`Payload::text`]).
    pub fn text(&self) -> Option<Cow<'a, str>> {
        match &self.value {
            Some(Value::Text(p)) => Some(p.text()),
            _ => None,
        }
    }

    /// A `Begin` that owns its data.
    pub fn into_owned(self) -> Begin<'static> {
        Begin {
            level: self.level,
            xref: self.xref.map(Xref::into_owned),
            tag: Cow::Owned(self.tag.into_owned()),
            value: self.value.map(Value::into_owned),
            line: self.line,
            span: self.span,
            origin: self.origin,
        }
    }
}

/// The end of a structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End<'a> {
    /// The level of the structure that ends.
    pub level: u32,
    /// Its tag.
    pub tag: Cow<'a, str>,
}

impl End<'_> {
    /// An `End` that owns its data.
    pub fn into_owned(self) -> End<'static> {
        End {
            level: self.level,
            tag: Cow::Owned(self.tag.into_owned()),
        }
    }
}

/// A reader event: structures begin and end in document order, properly
/// nested.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A structure begins.
    Begin(Begin<'a>),
    /// The most recently begun open structure ends.
    End(End<'a>),
}

impl Event<'_> {
    /// An event that owns its data.
    pub fn into_owned(self) -> Event<'static> {
        match self {
            Event::Begin(b) => Event::Begin(b.into_owned()),
            Event::End(e) => Event::End(e.into_owned()),
        }
    }
}
