//! Payloads: raw borrowed bytes until asked, text on demand.

use std::borrow::Cow;
use std::fmt;

use crate::diag::DiagnosticKind;
use crate::encoding::{self, DecodeOptions, DecodeProblem, Encoding};
use crate::escape::{self, EscapeSet};
use crate::scan::{Cursor, Scanned, TagKind};
use crate::version::Version;

/// What to do with trailing whitespace on line strings (seed §3.4 makes its
/// removal a "should").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TrailingWhitespace {
    /// Remove it, except on a line whose next line is a `CONC` additional
    /// line of the same structure: many programs (GEDitCOM, Family Tree
    /// Maker, ...) split `CONC` right after a space. The default.
    #[default]
    KeepBeforeConc,
    /// Always remove it.
    Trim,
    /// Never remove it from payloads.
    Keep,
}

impl TrailingWhitespace {
    /// Whether a line's trailing whitespace stays part of its payload, given
    /// whether the next line is a `CONC` additional line of the same
    /// structure: the one home of this rule (the reader, payloads and the
    /// HEAD's `ESC` lines all ask it).
    #[inline]
    #[must_use]
    pub fn keeps(self, conc_follows: bool) -> bool {
        match self {
            TrailingWhitespace::Keep => true,
            TrailingWhitespace::Trim => false,
            TrailingWhitespace::KeepBeforeConc => conc_follows,
        }
    }
}

/// How a payload's bytes turn into text. Set by the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decoding {
    /// The escape types this payload's tag preserves (from the schema).
    pub preserve: EscapeSet,
    /// The character encoding of the bytes.
    pub encoding: Encoding,
    /// The trailing-whitespace rule for additional lines.
    pub trailing_whitespace: TrailingWhitespace,
    /// Keep combining characters decomposed instead of composing to NFC.
    pub decomposed: bool,
    /// The GEDCOM version's payload rules: 5.5.1 (every `@@` unescaped,
    /// `@#...@` escapes) or 7 (only a line's leading `@@`, no escapes,
    /// bytes that are not UTF-8 read as windows-1252).
    pub version: Version,
}

impl Default for Decoding {
    /// UTF-8, no escapes preserved, [`TrailingWhitespace::KeepBeforeConc`], NFC.
    fn default() -> Self {
        Decoding {
            preserve: EscapeSet::NONE,
            encoding: Encoding::Utf8,
            trailing_whitespace: TrailingWhitespace::default(),
            decomposed: false,
            version: Version::Gedcom551,
        }
    }
}

/// How a fragment of a payload joins the text before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Joint {
    /// The payload of the structure's first line.
    First,
    /// A `CONT` line: a line feed, then the fragment.
    Cont,
    /// A `CONC` line: the fragment is appended as it is.
    Conc,
}

/// One line's share of a payload, as raw bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment<'p> {
    /// How it joins what comes before.
    pub joint: Joint,
    /// The line's payload bytes (escapes, `@@` and encoding still raw).
    pub bytes: &'p [u8],
}

/// A string payload: the first line's payload plus any `CONT`/`CONC`
/// additional lines, kept as raw bytes borrowed from the input.
///
/// Nothing is joined, unescaped or decoded until [`Payload::text`] is
/// called, and that allocates only when it must: when there are additional
/// lines to join, `@@` or escapes to rewrite, or bytes to transcode.
///
/// A payload is 40 bytes, so that a whole [`Event`](crate::Event) stays
/// within 128 and moving one out of [`Reader::next_event`](crate::Reader::next_event)
/// compiles to a few register moves rather than a call to `memcpy`.
#[derive(Clone)]
pub struct Payload<'a> {
    whole: Whole<'a>,
    /// The first line's payload is `whole[..first_len]` and the additional
    /// lines are `whole[rest_at..]` (between them: the first line's end and
    /// any blank lines). `u32` to keep the payload small; both are
    /// [`HUGE`] for parts of 4 GiB or more.
    first_len: u32,
    rest_at: u32,
    decoding: Decoding,
}

/// A payload's octets: a window of the input, or owned octets laid out
/// alike ([`Payload::into_owned`], or parts that were given apart: the
/// first line's payload, then the additional lines, in one allocation).
#[derive(Clone)]
enum Whole<'a> {
    /// A window known to be valid UTF-8 (a UTF-8 input, validated once as
    /// a whole): its text needs no validation.
    Str(&'a str),
    /// Octets, borrowed or owned.
    Bytes(Cow<'a, [u8]>),
}

/// `first_len` and `rest_at` of a payload whose parts are too long for
/// `u32` offsets (4 GiB or more): its octets are owned and begin with the
/// first line's payload length as 8 octets, little-endian. A third variant
/// of [`Whole`] for them would cost every event's drop an out-of-line call.
const HUGE: u32 = u32::MAX;

/// `n` as an offset of a borrowed or ordinary owned payload.
#[inline]
fn offset(n: usize) -> Option<u32> {
    u32::try_from(n).ok().filter(|&v| v != HUGE)
}

/// The first line's payload and the additional lines of a payload's
/// octets, given its offsets.
#[inline]
fn split(whole: &[u8], first_len: u32, rest_at: u32) -> (&[u8], &[u8]) {
    if first_len == HUGE {
        let (len, body) = whole.split_at(whole.len().min(8));
        let len = len
            .try_into()
            .map_or(0, |b: [u8; 8]| u64::from_le_bytes(b) as usize);
        return body.split_at(len.min(body.len()));
    }
    (
        whole.get(..first_len as usize).unwrap_or_default(),
        whole.get(rest_at as usize..).unwrap_or_default(),
    )
}

/// Payloads are equal when their bytes and decoding are (whether the reader
/// had validated the text already, or where the bytes are kept, does not
/// matter).
impl PartialEq for Payload<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts() && self.decoding == other.decoding
    }
}

impl Eq for Payload<'_> {}

impl fmt::Debug for Payload<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Payload")
            .field("text", &self.text())
            .field("continued", &self.is_continued())
            .finish()
    }
}

impl<'a> Payload<'a> {
    /// A payload of one line.
    #[inline]
    pub fn new(first: impl Into<Cow<'a, [u8]>>, decoding: Decoding) -> Self {
        match first.into() {
            Cow::Borrowed(b) => Self::window(b, b.len(), b.len(), decoding),
            Cow::Owned(first) => Self::owned(first, Vec::new(), decoding),
        }
    }

    /// A payload whose additional lines are the line strings in `rest`
    /// (each a `CONT` or `CONC` line; blank lines are skipped).
    ///
    /// Two borrowed parts that are both non-empty are copied: a payload
    /// keeps one window of the input, and two separate slices cannot be
    /// made one without `unsafe` code. The reader and the tree make their
    /// payloads from one window of their input and never copy.
    pub fn with_additional_lines(
        first: impl Into<Cow<'a, [u8]>>,
        rest: impl Into<Cow<'a, [u8]>>,
        decoding: Decoding,
    ) -> Self {
        match (first.into(), rest.into()) {
            (first, Cow::Borrowed([])) => Self::new(first, decoding),
            (Cow::Borrowed([]), Cow::Borrowed(rest)) => Self::window(rest, 0, 0, decoding),
            (first, rest) => Self::owned(first.into_owned(), rest.into_owned(), decoding),
        }
    }

    /// A payload of owned parts.
    fn owned(first: Vec<u8>, rest: Vec<u8>, decoding: Decoding) -> Self {
        let (Some(first_len), Some(_)) = (offset(first.len()), offset(first.len() + rest.len()))
        else {
            return Self::huge(&first, &rest, decoding);
        };
        let whole = if rest.is_empty() {
            first
        } else {
            [first, rest].concat()
        };
        Self::at(
            Whole::Bytes(Cow::Owned(whole)),
            first_len,
            first_len,
            decoding,
        )
    }

    /// A payload of owned parts in the [`HUGE`] form.
    fn huge(first: &[u8], rest: &[u8], decoding: Decoding) -> Self {
        let len = (first.len() as u64).to_le_bytes();
        let whole = [&len[..], first, rest].concat();
        Self::at(Whole::Bytes(Cow::Owned(whole)), HUGE, HUGE, decoding)
    }

    #[inline(always)]
    fn at(whole: Whole<'a>, first_len: u32, rest_at: u32, decoding: Decoding) -> Self {
        Payload {
            whole,
            first_len,
            rest_at,
            decoding,
        }
    }

    /// The payload in the window `whole`: the first line's payload is
    /// `whole[..first_len]` and the additional lines `whole[rest_at..]`
    /// (`first_len <= rest_at <= whole.len()`).
    #[inline(always)]
    pub(crate) fn window(
        whole: &'a [u8],
        first_len: usize,
        rest_at: usize,
        decoding: Decoding,
    ) -> Self {
        debug_assert!(first_len <= rest_at && rest_at <= whole.len());
        match (offset(first_len), offset(rest_at)) {
            (Some(f), Some(r)) => Self::at(Whole::Bytes(Cow::Borrowed(whole)), f, r, decoding),
            _ => Self::copied(whole, first_len, rest_at, decoding),
        }
    }

    /// Like [`Payload::window`], for a window whose octets are known to be
    /// valid UTF-8 (the reader's and the tree's input, validated once as a
    /// whole).
    #[inline(always)]
    pub(crate) fn validated_window(
        whole: &'a str,
        first_len: usize,
        rest_at: usize,
        decoding: Decoding,
    ) -> Self {
        debug_assert!(first_len <= rest_at && rest_at <= whole.len());
        match (offset(first_len), offset(rest_at)) {
            (Some(f), Some(r)) => Self::at(Whole::Str(whole), f, r, decoding),
            _ => Self::copied(whole.as_bytes(), first_len, rest_at, decoding),
        }
    }

    /// The payload of a window too long for `u32` offsets, copied. Out of
    /// line, so that the window constructors inline into the reader (with
    /// this copy inside them, they were calls).
    #[cold]
    #[inline(never)]
    fn copied(whole: &[u8], first_len: usize, rest_at: usize, decoding: Decoding) -> Self {
        Self::owned(
            whole.get(..first_len).unwrap_or_default().to_vec(),
            whole.get(rest_at..).unwrap_or_default().to_vec(),
            decoding,
        )
    }

    /// A single-line UTF-8 payload whose text is already known to be valid
    /// (the reader validates a UTF-8 input once, as a whole).
    #[inline(always)]
    pub(crate) fn validated(text: &'a str, decoding: Decoding) -> Self {
        Self::validated_window(text, text.len(), text.len(), decoding)
    }

    /// The first line's payload and the additional lines, borrowed for as
    /// long as the payload when it is a window of the input.
    #[inline]
    fn borrowed_parts(&self) -> Option<(&'a [u8], &'a [u8])> {
        let whole: &'a [u8] = match self.whole {
            Whole::Str(s) => s.as_bytes(),
            Whole::Bytes(Cow::Borrowed(b)) => b,
            Whole::Bytes(Cow::Owned(_)) => return None,
        };
        Some(split(whole, self.first_len, self.rest_at))
    }

    /// The first line's payload and the additional lines.
    #[inline]
    fn parts(&self) -> (&[u8], &[u8]) {
        let whole = match &self.whole {
            Whole::Str(s) => s.as_bytes(),
            Whole::Bytes(b) => b,
        };
        split(whole, self.first_len, self.rest_at)
    }

    /// The first line's payload and the additional lines as text, when the
    /// window is known to be valid UTF-8 (never in the [`HUGE`] form).
    #[inline]
    fn valid_parts(&self) -> Option<(&'a str, &'a str)> {
        match self.whole {
            Whole::Str(s) => Some((
                s.get(..self.first_len as usize)?,
                s.get(self.rest_at as usize..)?,
            )),
            Whole::Bytes(_) => None,
        }
    }

    /// How this payload is decoded.
    pub fn decoding(&self) -> Decoding {
        self.decoding
    }

    /// `true` when the payload has `CONT`/`CONC` additional lines.
    pub fn is_continued(&self) -> bool {
        !self.parts().1.is_empty()
    }

    /// The first line's payload, raw.
    pub fn first_line(&self) -> &[u8] {
        self.parts().0
    }

    /// The raw additional lines, as they stand in the input.
    pub fn additional_lines(&self) -> &[u8] {
        self.parts().1
    }

    /// The payload's fragments, one per line, raw.
    pub fn fragments(&self) -> Fragments<'_> {
        let (first, rest) = self.parts();
        let mut lines = Cursor::new(rest, 0, 1);
        let next = next_additional(&mut lines);
        Fragments {
            first: Some(first),
            lines,
            next,
            trailing_whitespace: self.decoding.trailing_whitespace,
        }
    }

    /// The joined raw bytes: fragments concatenated, with a line feed before
    /// each `CONT` fragment; escapes and encoding untouched. Borrowed when
    /// there is a single line.
    pub fn joined_bytes(&self) -> Cow<'a, [u8]> {
        match self.borrowed_parts() {
            Some((first, [])) => return Cow::Borrowed(first),
            None if !self.is_continued() => return Cow::Owned(self.parts().0.to_vec()),
            _ => {}
        }
        let (first, rest) = self.parts();
        let mut out = Vec::with_capacity(first.len() + rest.len());
        for f in self.fragments() {
            if f.joint == Joint::Cont {
                out.push(b'\n');
            }
            out.extend_from_slice(f.bytes);
        }
        Cow::Owned(out)
    }

    /// The payload as text: joined, decoded from its encoding, with `@@`
    /// unescaped, escapes preserved or removed per its tag, and unicode
    /// escapes replaced (seed §5). Problems are repaired silently; use
    /// [`Payload::text_with`] to hear about them (the reader reports them as
    /// diagnostics already).
    pub fn text(&self) -> Cow<'a, str> {
        if self.decoding.version == Version::Gedcom7 {
            return self.text7(None);
        }
        let preserve = self.decoding.preserve;
        match self.valid_parts() {
            Some((first, "")) => {
                return escape::unescape(Cow::Borrowed(first), preserve, &mut |_| {});
            }
            _ if self.is_continued() => {
                if let Some(joined) = self.join_utf8() {
                    return escape::unescape(Cow::Owned(joined), preserve, &mut |_| {});
                }
            }
            _ => {}
        }
        let decoded = decode(self.joined_bytes(), self.decoding, None);
        escape::unescape(decoded, self.decoding.preserve, &mut |_| {})
    }

    /// The joined text of a continued UTF-8 payload whose first line's payload and
    /// additional lines are each valid UTF-8 (known to be, or checked here), joined
    /// as text; `None` otherwise (another encoding, or a line that is not valid on
    /// its own, such as a `CONC` split inside a character), for the general path:
    /// join the octets, then decode.
    fn join_utf8(&self) -> Option<String> {
        if self.decoding.encoding != Encoding::Utf8 {
            return None;
        }
        let (first, rest) = match self.valid_parts() {
            Some(parts) => parts,
            None => {
                let (first, rest) = self.parts();
                (
                    simdutf8::basic::from_utf8(first).ok()?,
                    simdutf8::basic::from_utf8(rest).ok()?,
                )
            }
        };
        join_valid(first, rest, self.decoding.trailing_whitespace)
    }

    /// Like [`Payload::text`], reporting each problem met through `report`.
    pub fn text_with(&self, report: &mut dyn FnMut(DiagnosticKind)) -> Cow<'a, str> {
        if self.decoding.version == Version::Gedcom7 {
            return self.text7(Some(report));
        }
        let decoded = decode(self.joined_bytes(), self.decoding, Some(&mut *report));
        escape::unescape(decoded, self.decoding.preserve, report)
    }

    /// The text of a GEDCOM 7 payload: `CONT` lines joined, decoded (bytes
    /// that are not UTF-8 read as windows-1252), a leading `@@` of each line
    /// made one `@` and nothing else unescaped.
    fn text7(&self, report: Option<&mut dyn FnMut(DiagnosticKind)>) -> Cow<'a, str> {
        let joined = match (self.valid_parts(), report) {
            // Known valid and nobody listening (a NUL is valid UTF-8, but
            // `decode` reports it): nothing to check.
            (Some((first, "")), None) => Cow::Borrowed(first),
            (_, None) if self.is_continued() => match self.join_utf8() {
                Some(joined) => Cow::Owned(joined),
                None => decode(self.joined_bytes(), self.decoding, None),
            },
            (_, report) => decode(self.joined_bytes(), self.decoding, report),
        };
        escape::unescape_leading_at(joined)
    }

    /// A payload that owns its bytes.
    pub fn into_owned(self) -> Payload<'static> {
        match self.whole {
            Whole::Bytes(Cow::Owned(whole)) => Payload::at(
                Whole::Bytes(Cow::Owned(whole)),
                self.first_len,
                self.rest_at,
                self.decoding,
            ),
            _ => {
                let (first, rest) = self.parts();
                Payload::owned(first.to_vec(), rest.to_vec(), self.decoding)
            }
        }
    }
}

fn map_problem(p: DecodeProblem) -> DiagnosticKind {
    match p {
        DecodeProblem::Nul => DiagnosticKind::NulByte,
        DecodeProblem::Cesu8 => DiagnosticKind::Cesu8,
        DecodeProblem::NonAscii
        | DecodeProblem::UnassignedAnsel(_)
        | DecodeProblem::UnmappedByte(_) => DiagnosticKind::UnmappedByte,
        _ => DiagnosticKind::InvalidEncoding,
    }
}

/// Decodes joined payload bytes to text; borrows when they are valid as they are.
/// Problems are looked for only when someone listens.
fn decode<'a>(
    bytes: Cow<'a, [u8]>,
    d: Decoding,
    mut report: Option<&mut dyn FnMut(DiagnosticKind)>,
) -> Cow<'a, str> {
    if let Some(r) = report.as_mut() {
        if memchr::memchr(0, &bytes).is_some() {
            r(DiagnosticKind::NulByte);
        }
    }
    let bytes = match (d.encoding, bytes) {
        (Encoding::Utf8, b) if d.version == Version::Gedcom7 => {
            return utf8_or_windows_1252(b, d, report);
        }
        (Encoding::Utf8, Cow::Borrowed(b)) => match simdutf8::basic::from_utf8(b) {
            Ok(s) => return Cow::Borrowed(s),
            Err(_) => Cow::Borrowed(b),
        },
        (Encoding::Utf8, Cow::Owned(v)) => match String::from_utf8(v) {
            Ok(s) => return Cow::Owned(s),
            Err(e) => Cow::Owned(e.into_bytes()),
        },
        (_, Cow::Borrowed(b)) if b.is_ascii() => {
            return Cow::Borrowed(std::str::from_utf8(b).unwrap_or_default())
        }
        (_, b) => b,
    };
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    let opts = DecodeOptions {
        decomposed: d.decomposed,
    };
    let mut last = None;
    encoding::decode_into(d.encoding, &bytes, opts, &mut out, &mut |p| {
        let k = map_problem(p);
        // One report per kind and payload; NUL was reported above.
        if last != Some(k) && k != DiagnosticKind::NulByte {
            if let Some(r) = report.as_mut() {
                r(k);
            }
        }
        last = Some(k);
    });
    Cow::Owned(out)
}

/// GEDCOM 7's UTF-8, leniently: the octets that are not UTF-8 are read as
/// windows-1252 (what real files that break the rule hold), reported once
/// as [`DiagnosticKind::InvalidEncoding`].
fn utf8_or_windows_1252<'a>(
    bytes: Cow<'a, [u8]>,
    d: Decoding,
    report: Option<&mut dyn FnMut(DiagnosticKind)>,
) -> Cow<'a, str> {
    let bytes = match bytes {
        Cow::Borrowed(b) => match simdutf8::basic::from_utf8(b) {
            Ok(s) => return Cow::Borrowed(s),
            Err(_) => Cow::Borrowed(b),
        },
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(s) => return Cow::Owned(s),
            Err(e) => Cow::Owned(e.into_bytes()),
        },
    };
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    let opts = DecodeOptions {
        decomposed: d.decomposed,
    };
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        encoding::decode_into(
            Encoding::Windows1252,
            chunk.invalid(),
            opts,
            &mut out,
            &mut |_| {},
        );
    }
    if let Some(r) = report {
        r(DiagnosticKind::InvalidEncoding);
    }
    Cow::Owned(out)
}

/// The next `CONT`/`CONC` line of `lines`: its joint and its payload as offsets in
/// the scanned buffer (start, end without and end with trailing whitespace; all three
/// the line string's end when there is no payload). Lines that are not `CONT` or
/// `CONC` lines are skipped.
fn next_additional(lines: &mut Cursor<'_>) -> Option<(Joint, usize, usize, usize)> {
    let mut s = Scanned::default();
    while lines.next_into(&mut s) {
        let joint = match (s.error, s.kind) {
            (None, TagKind::Cont) => Joint::Cont,
            (None, TagKind::Conc) => Joint::Conc,
            _ => continue,
        };
        return Some(match s.payload_untrimmed() {
            Some((start, end)) => {
                let trimmed = s.payload().map_or(start, |(_, t)| t);
                (joint, start, trimmed, end)
            }
            None => (joint, s.end, s.end, s.end),
        });
    }
    None
}

/// Iterator over the [`Fragment`]s of a [`Payload`].
#[derive(Clone, Debug)]
pub struct Fragments<'p> {
    first: Option<&'p [u8]>,
    lines: Cursor<'p>,
    next: Option<(Joint, usize, usize, usize)>,
    trailing_whitespace: TrailingWhitespace,
}

impl Fragments<'_> {
    /// The next additional line's joint and payload, as a range of the
    /// additional lines (the first line's payload is not among them).
    #[inline]
    fn next_additional_range(&mut self) -> Option<(Joint, usize, usize)> {
        let (joint, start, trimmed, end) = self.next.take()?;
        self.next = next_additional(&mut self.lines);
        let keep = (self.trailing_whitespace).keeps(matches!(self.next, Some((Joint::Conc, ..))));
        Some((joint, start, if keep { end } else { trimmed }))
    }
}

impl<'p> Iterator for Fragments<'p> {
    type Item = Fragment<'p>;

    fn next(&mut self) -> Option<Fragment<'p>> {
        if let Some(first) = self.first.take() {
            return Some(Fragment {
                joint: Joint::First,
                bytes: first,
            });
        }
        let (joint, start, end) = self.next_additional_range()?;
        Some(Fragment {
            joint,
            bytes: &self.lines.input()[start..end],
        })
    }
}

/// The joined text of a payload whose first line's payload `first` and
/// additional lines `rest` are valid UTF-8 as they stand: fragments appended as
/// `str` slices, with no validation of the whole. `None` if a fragment does
/// not fall on character boundaries (it always does: payloads begin and end
/// next to ASCII delimiters).
fn join_valid(first: &str, rest: &str, trailing_whitespace: TrailingWhitespace) -> Option<String> {
    let mut out = String::with_capacity(first.len() + rest.len());
    out.push_str(first);
    let mut lines = Cursor::new(rest.as_bytes(), 0, 1);
    let next = next_additional(&mut lines);
    let mut f = Fragments {
        first: None,
        lines,
        next,
        trailing_whitespace,
    };
    while let Some((joint, start, end)) = f.next_additional_range() {
        if joint == Joint::Cont {
            out.push('\n');
        }
        out.push_str(rest.get(start..end)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_whitespace_stays_before_conc_by_default_only() {
        use TrailingWhitespace::*;
        let rules = [KeepBeforeConc, Trim, Keep];
        let before_conc: Vec<bool> = rules.iter().map(|r| r.keeps(true)).collect();
        let otherwise: Vec<bool> = rules.iter().map(|r| r.keeps(false)).collect();
        assert_eq!(before_conc, [true, false, true]);
        assert_eq!(otherwise, [false, false, true]);
    }

    fn d(preserve: &[u8]) -> Decoding {
        Decoding {
            preserve: EscapeSet::from_types(preserve),
            ..Decoding::default()
        }
    }

    #[test]
    fn single_line_text_borrows() {
        let p = Payload::new("Miloš".as_bytes(), d(b""));
        assert!(matches!(p.text(), Cow::Borrowed("Miloš")));
        let p = Payload::new(&b"a@b.c"[..], d(b""));
        assert!(matches!(p.text(), Cow::Borrowed("a@b.c")));
    }

    #[test]
    fn cont_and_conc_join_the_seed_example() {
        let rest = b"3 CONC s a test\n3 CONT with on\r\n3 CONC e line break";
        let p = Payload::with_additional_lines(&b"This i"[..], &rest[..], d(b""));
        assert_eq!(p.text(), "This is a test\nwith one line break");
        let joints: Vec<_> = p.fragments().map(|f| f.joint).collect();
        assert_eq!(
            joints,
            [Joint::First, Joint::Conc, Joint::Cont, Joint::Conc]
        );
    }

    #[test]
    fn join_happens_before_unescaping() {
        let p = Payload::with_additional_lines(
            &b"@#DGREG"[..],
            &b"3 CONC ORIAN@ 2 JAN 2019"[..],
            d(b"D"),
        );
        assert_eq!(p.text(), "@#DGREGORIAN@ 2 JAN 2019");
    }

    #[test]
    fn join_happens_before_utf8_validation() {
        // "š" is C5 A1; split between the two octets.
        let p = Payload::with_additional_lines(&b"Milo\xC5"[..], &b"2 CONC \xA1"[..], d(b""));
        let mut problems = Vec::new();
        assert_eq!(p.text_with(&mut |k| problems.push(k)), "Miloš");
        assert!(problems.is_empty());
    }

    #[test]
    fn invalid_utf8_is_replaced_and_reported() {
        let p = Payload::new(&b"a\xFFb"[..], d(b""));
        let mut problems = Vec::new();
        assert_eq!(p.text_with(&mut |k| problems.push(k)), "a\u{FFFD}b");
        assert_eq!(problems, [DiagnosticKind::InvalidEncoding]);
    }

    #[test]
    fn trailing_whitespace_before_conc() {
        let rest = b"2 CONC b \n2 CONC c \n2 CONT d ";
        let mk = |tw| {
            Payload::with_additional_lines(
                &b"a "[..],
                &rest[..],
                Decoding {
                    trailing_whitespace: tw,
                    ..Decoding::default()
                },
            )
        };
        assert_eq!(mk(TrailingWhitespace::KeepBeforeConc).text(), "a b c\nd");
        assert_eq!(mk(TrailingWhitespace::Trim).text(), "a bc\nd");
        assert_eq!(mk(TrailingWhitespace::Keep).text(), "a b c \nd ");
    }

    #[test]
    fn validated_continued_payloads_join_as_the_general_path_does() {
        // Every trailing-whitespace rule, blank and non-continuation lines among the
        // additional lines, an empty first line, `@@` and a CONC split inside "š"
        // (not valid line by line: the general path joins it).
        let cases: [(&str, &[u8]); 5] = [
            ("a ", b"2 CONC b \n\n2 CONC c \r\n2 CONT d \n2 CONT"),
            ("", b"2 CONT x@@y\n 2 CONC  z"),
            ("Milo\u{e9}", b"2 CONC \xC5\xA1 \n2 CONT \xE4\xB8\xAD"),
            ("x", b"2 CONC \xA1y"),
            ("x", b"2 CONT\n2 CONT \n2 CONC"),
        ];
        for (first, rest) in cases {
            for tw in [
                TrailingWhitespace::KeepBeforeConc,
                TrailingWhitespace::Trim,
                TrailingWhitespace::Keep,
            ] {
                let dec = Decoding {
                    trailing_whitespace: tw,
                    ..Decoding::default()
                };
                let general = {
                    let p = Payload::with_additional_lines(first.as_bytes(), rest, dec);
                    let decoded = decode(p.joined_bytes(), dec, None);
                    escape::unescape(decoded, dec.preserve, &mut |_| {}).into_owned()
                };
                let plain = Payload::with_additional_lines(first.as_bytes(), rest, dec);
                assert_eq!(plain.text(), general, "{first:?} {rest:?} {tw:?}");
                // The same octets as one validated buffer, as the reader has them.
                let mut buf = first.as_bytes().to_vec();
                buf.extend_from_slice(b"\n");
                let at = buf.len();
                buf.extend_from_slice(rest);
                if let Ok(span) = std::str::from_utf8(&buf) {
                    let p = Payload::validated_window(span, first.len(), at, dec);
                    assert!(p.valid_parts().is_some());
                    assert_eq!(p.text(), general, "{first:?} {tw:?}");
                }
                // The same window, not known to be valid, joins alike.
                let p = Payload::window(&buf, first.len(), at, dec);
                assert!(p.valid_parts().is_none());
                assert_eq!(p.text(), general, "{first:?} {tw:?}");
                assert_eq!(p.first_line(), first.as_bytes());
                assert_eq!(p.additional_lines(), rest);
            }
        }
    }

    #[test]
    fn a_payload_keeps_an_event_within_128_bytes() {
        // Moving a larger event out of `next_event` compiled to a call to
        // `memcpy` per event (40% of the time of a `while let Some(e)` loop).
        assert!(std::mem::size_of::<Payload<'_>>() <= 40);
        assert!(std::mem::size_of::<crate::Event<'_>>() <= 128);
        assert!(std::mem::size_of::<Result<Option<crate::Event<'_>>, crate::Error>>() <= 128);
    }

    #[test]
    fn windows_parts_and_owned_payloads_are_equal_when_their_bytes_are() {
        let buf = b"a b \r\n\n  2 CONC c";
        let window = Payload::window(buf, 4, 9, d(b""));
        let parts = Payload::with_additional_lines(&buf[..4], &buf[9..], d(b""));
        let owned = window.clone().into_owned();
        assert!(matches!(parts.whole, Whole::Bytes(Cow::Owned(_))));
        for p in [&window, &parts, &owned] {
            assert_eq!(p, &window);
            assert_eq!(p.first_line(), b"a b ");
            assert_eq!(p.additional_lines(), b"2 CONC c");
            assert!(p.is_continued());
            assert_eq!(p.text(), "a b c");
            assert_eq!(&*p.joined_bytes(), b"a b c");
        }
        // An empty first part and a borrowed rest are one window, no copy.
        let p = Payload::with_additional_lines(&b""[..], &buf[9..], d(b""));
        assert!(matches!(p.whole, Whole::Bytes(Cow::Borrowed(_))));
        assert_eq!(p.text(), "c");
        // A single line borrows its text and its joined bytes.
        let p = Payload::new(&buf[..3], d(b""));
        assert!(matches!(p.joined_bytes(), Cow::Borrowed(b"a b")));
        assert!(matches!(p.text(), Cow::Borrowed("a b")));
        assert_ne!(p, window);
    }

    #[test]
    fn the_form_for_parts_of_4_gib_keeps_its_parts() {
        // Parts of 4 GiB or more are kept owned behind a length header
        // (`HUGE`); built here from small parts, the form reads alike.
        let window = Payload::window(b"a b \n2 CONC c", 4, 5, d(b""));
        let huge = Payload::huge(b"a b ", b"2 CONC c", d(b""));
        assert!(matches!(huge.whole, Whole::Bytes(Cow::Owned(_))));
        assert_eq!((huge.first_len, huge.rest_at), (HUGE, HUGE));
        assert_eq!(huge, window);
        assert_eq!(huge.first_line(), b"a b ");
        assert_eq!(huge.additional_lines(), b"2 CONC c");
        assert_eq!(huge.text(), "a b c");
        let owned = huge.clone().into_owned();
        assert_eq!(owned, window);
        let single = Payload::huge(b"x@@y", b"", d(b""));
        assert!(!single.is_continued());
        assert_eq!(single.text(), "x@y");
        // A payload never takes the header form by chance: an offset of
        // exactly `u32::MAX` is one that does not fit.
        assert_eq!(offset(u32::MAX as usize), None);
        assert_eq!(offset(u32::MAX as usize - 1), Some(u32::MAX - 1));
    }

    /// GEDCOM 7: `CONT` lines joined, each line's leading `@@` one `@`, no
    /// escapes; octets that are not UTF-8 read as windows-1252 and reported.
    #[test]
    fn gedcom7_payloads() {
        let g7 = Decoding {
            version: Version::Gedcom7,
            trailing_whitespace: TrailingWhitespace::Keep,
            ..Decoding::default()
        };
        let p = Payload::with_additional_lines(&b"@@a@@b "[..], &b"2 CONT @@c @#DJULIAN@"[..], g7);
        assert_eq!(
            p.text(),
            "@a@@b 
@c @#DJULIAN@"
        );
        let mut problems = Vec::new();
        assert_eq!(
            p.text_with(&mut |k| problems.push(k)),
            "@a@@b 
@c @#DJULIAN@"
        );
        assert!(problems.is_empty());
        // A single valid line borrows, its leading `@` sliced off.
        let buf = "@@x".to_string();
        let p = Payload::validated(&buf, g7);
        assert!(matches!(p.text(), Cow::Borrowed("@x")));
        // windows-1252 E9 and 80 among valid UTF-8, on both lines.
        let p = Payload::with_additional_lines(&b"Ren\xE9 \xC3\xA9"[..], &b"2 CONT \x80"[..], g7);
        let mut problems = Vec::new();
        assert_eq!(p.text_with(&mut |k| problems.push(k)), "René é\n€");
        assert_eq!(problems, [DiagnosticKind::InvalidEncoding]);
        assert_eq!(p.text(), "René é\n€");
        // A NUL is reported from a window known to be valid too.
        let mut problems = Vec::new();
        let p = Payload::validated("a\0b", g7);
        assert_eq!(p.text_with(&mut |k| problems.push(k)), "a\0b");
        assert_eq!(problems, [DiagnosticKind::NulByte]);
        // The same octets in 5.5.1: U+FFFD.
        let p551 = Payload::new(&b"Ren\xE9"[..], Decoding::default());
        assert_eq!(p551.text(), "Ren\u{FFFD}");
    }

    #[test]
    fn into_owned_keeps_the_text() {
        let rest = b"1 CONT x".to_vec();
        let p = Payload::with_additional_lines(&b"a"[..], &rest[..], d(b"")).into_owned();
        drop(rest);
        assert_eq!(p.text(), "a\nx");
    }
}
