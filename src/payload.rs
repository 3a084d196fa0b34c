//! Payloads: raw borrowed bytes until asked, text on demand.

use std::borrow::Cow;
use std::fmt;

use crate::diag::DiagnosticKind;
use crate::encoding::{self, DecodeOptions, DecodeProblem, Encoding};
use crate::escape::{self, EscapeSet};
use crate::scan::{Cursor, Scanned, TagKind};

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
}

impl Default for Decoding {
    /// UTF-8, no escapes preserved, [`TrailingWhitespace::KeepBeforeConc`], NFC.
    fn default() -> Self {
        Decoding {
            preserve: EscapeSet::NONE,
            encoding: Encoding::Utf8,
            trailing_whitespace: TrailingWhitespace::default(),
            decomposed: false,
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
#[derive(Clone)]
pub struct Payload<'a> {
    /// The first line's payload (trailing whitespace already handled).
    first: Cow<'a, [u8]>,
    /// The octets from the start of `first` to the end of `rest` as text,
    /// when the reader knows they are valid UTF-8 (a UTF-8 input validated
    /// once as a whole): `text()` then needs no validation. `first` is its
    /// prefix and `rest` its suffix.
    valid: Option<&'a str>,
    /// The additional lines exactly as they stand in the input (line
    /// strings with their line breaks); empty when there are none.
    rest: Cow<'a, [u8]>,
    decoding: Decoding,
}

/// Payloads are equal when their bytes and decoding are (whether the reader
/// had validated the text already does not matter).
impl PartialEq for Payload<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.first == other.first && self.rest == other.rest && self.decoding == other.decoding
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
    pub fn new(first: impl Into<Cow<'a, [u8]>>, decoding: Decoding) -> Self {
        Payload {
            first: first.into(),
            valid: None,
            rest: Cow::Borrowed(&[]),
            decoding,
        }
    }

    /// A payload whose additional lines are the line strings in `rest`
    /// (each a `CONT` or `CONC` line; blank lines are skipped).
    pub fn with_additional_lines(
        first: impl Into<Cow<'a, [u8]>>,
        rest: impl Into<Cow<'a, [u8]>>,
        decoding: Decoding,
    ) -> Self {
        Payload {
            first: first.into(),
            valid: None,
            rest: rest.into(),
            decoding,
        }
    }

    /// A single-line UTF-8 payload whose text is already known to be valid
    /// (the reader validates a UTF-8 input once, as a whole).
    pub(crate) fn validated(text: &'a str, decoding: Decoding) -> Self {
        Payload {
            first: Cow::Borrowed(text.as_bytes()),
            valid: Some(text),
            rest: Cow::Borrowed(&[]),
            decoding,
        }
    }

    /// A UTF-8 payload with additional lines whose octets are known to be
    /// valid: `span` runs from the start of `first` to the end of `rest`
    /// (the reader's and the tree's input, validated once as a whole).
    pub(crate) fn validated_continued(
        first: &'a [u8],
        rest: &'a [u8],
        span: &'a str,
        decoding: Decoding,
    ) -> Self {
        // Slices of one buffer: the same addresses mean the same octets.
        let b = span.as_bytes();
        let fits = b.len() >= first.len() + rest.len()
            && (first.is_empty() || std::ptr::eq(b.as_ptr(), first.as_ptr()))
            && std::ptr::eq(b[b.len() - rest.len()..].as_ptr(), rest.as_ptr());
        Payload {
            first: Cow::Borrowed(first),
            valid: fits.then_some(span),
            rest: Cow::Borrowed(rest),
            decoding,
        }
    }

    /// How this payload is decoded.
    pub fn decoding(&self) -> Decoding {
        self.decoding
    }

    /// `true` when the payload has `CONT`/`CONC` additional lines.
    pub fn is_continued(&self) -> bool {
        !self.rest.is_empty()
    }

    /// The first line's payload, raw.
    pub fn first_line(&self) -> &[u8] {
        &self.first
    }

    /// The raw additional lines, as they stand in the input.
    pub fn additional_lines(&self) -> &[u8] {
        &self.rest
    }

    /// The payload's fragments, one per line, raw.
    pub fn fragments(&self) -> Fragments<'_> {
        let mut lines = Cursor::new(&self.rest, 0, 1);
        let next = next_additional(&mut lines);
        Fragments {
            first: Some(&self.first),
            lines,
            next,
            trailing_whitespace: self.decoding.trailing_whitespace,
        }
    }

    /// The joined raw bytes: fragments concatenated, with a line feed before
    /// each `CONT` fragment; escapes and encoding untouched. Borrowed when
    /// there is a single line.
    pub fn joined_bytes(&self) -> Cow<'a, [u8]> {
        if self.rest.is_empty() {
            return self.first.clone();
        }
        let mut out = Vec::with_capacity(self.first.len() + self.rest.len());
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
        let preserve = self.decoding.preserve;
        if self.rest.is_empty() {
            if let Some(s) = self.valid {
                return escape::unescape(Cow::Borrowed(s), preserve, &mut |_| {});
            }
        } else if let Some(joined) = self.join_utf8() {
            return escape::unescape(Cow::Owned(joined), preserve, &mut |_| {});
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
        let (first, rest) = match self.valid {
            Some(s) => (
                s.get(..self.first.len())?,
                s.get(s.len() - self.rest.len()..)?,
            ),
            None => (
                simdutf8::basic::from_utf8(&self.first).ok()?,
                simdutf8::basic::from_utf8(&self.rest).ok()?,
            ),
        };
        join_valid(first, rest, self.decoding.trailing_whitespace)
    }

    /// Like [`Payload::text`], reporting each problem met through `report`.
    pub fn text_with(&self, report: &mut dyn FnMut(DiagnosticKind)) -> Cow<'a, str> {
        let decoded = decode(self.joined_bytes(), self.decoding, Some(&mut *report));
        escape::unescape(decoded, self.decoding.preserve, report)
    }

    /// A payload that owns its bytes.
    pub fn into_owned(self) -> Payload<'static> {
        Payload {
            first: Cow::Owned(self.first.into_owned()),
            valid: None,
            rest: Cow::Owned(self.rest.into_owned()),
            decoding: self.decoding,
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
        let keep = match self.trailing_whitespace {
            TrailingWhitespace::Keep => true,
            TrailingWhitespace::Trim => false,
            TrailingWhitespace::KeepBeforeConc => {
                matches!(self.next, Some((Joint::Conc, ..)))
            }
        };
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
                    let b = span.as_bytes();
                    let p = Payload::validated_continued(&b[..first.len()], &b[at..], span, dec);
                    assert!(p.valid.is_some());
                    assert_eq!(p.text(), general, "{first:?} {tw:?}");
                }
            }
        }
        // Slices of another buffer are not taken as the span's.
        let other = String::from("a\n2 CONT b");
        let p = Payload::validated_continued(b"a", b"2 CONT b", &other, d(b""));
        assert!(p.valid.is_none());
        assert_eq!(p.text(), "a\nb");
    }

    #[test]
    fn into_owned_keeps_the_text() {
        let rest = b"1 CONT x".to_vec();
        let p = Payload::with_additional_lines(&b"a"[..], &rest[..], d(b"")).into_owned();
        drop(rest);
        assert_eq!(p.text(), "a\nx");
    }
}
