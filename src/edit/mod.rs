//! The ELF editor (seed §2.3): stream an input through, change selected structures, and
//! copy every other octet as it was.
//!
//! [`edit`] reads the input with this crate's [`Reader`](crate::Reader) and asks the
//! caller about each structure ([`Action`]). Everything the caller does not change is
//! copied from the *original* octets: line terminators, indentation, runs of delimiters,
//! trailing whitespace, escapes, blank lines, the byte-order mark and the encoding, lines
//! after `TRLR` and lines the reader turned into `ERROR` structures. An edit that changes
//! nothing gives back the input octet for octet, whatever its encoding (UTF-16 included:
//! offsets into the transcoded text the reader reads are mapped back to the original
//! octets).
//!
//! ```
//! use gedcom_elf::edit::{edit, EditRules};
//!
//! let input = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 _UID 1234\r\n2 _X y\r\n  1 NAME  Ada \r\n0 TRLR\r\n";
//! let rules = EditRules::new().drop_tag("_UID").rename_tag("NAME", "_NAME");
//! let mut out = Vec::new();
//! let stats = edit(input, None, &mut out, |b| rules.action(b))?;
//! assert_eq!(out, b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n  1 _NAME  Ada \r\n0 TRLR\r\n");
//! assert_eq!((stats.dropped, stats.renamed), (1, 1));
//!
//! // No change: the same octets.
//! let mut same = Vec::new();
//! edit(input, None, &mut same, |_| gedcom_elf::edit::Action::Keep)?;
//! assert_eq!(same, input);
//! # Ok::<(), gedcom_elf::edit::EditError>(())
//! ```

use std::fmt;
use std::io::{self, Write};

use crate::diag::Severity;
use crate::encoding::Encoding;
use crate::event::{Begin, Event, Origin};
use crate::input::Input;
use crate::scan::{is_tag, parse_line};

/// What to do with one structure.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Copy it as it is (its substructures are asked about in turn).
    Keep,
    /// Leave it out, with all its substructures and additional lines.
    Drop,
    /// Replace the tag on its first line, leaving everything else of the line as it was.
    /// Ignored for an `ERROR` structure the reader made from an unparsable or too-deep
    /// line (its line has no such tag).
    RenameTag(String),
}

/// Drop and rename rules by tag, for the `edit` command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditRules {
    /// Structures with these tags are dropped with their subtrees.
    pub drop_tags: Vec<String>,
    /// `(old, new)`: structures tagged `old` are retagged `new`.
    pub rename_tags: Vec<(String, String)>,
}

impl EditRules {
    /// No rules: everything is kept.
    #[must_use]
    pub fn new() -> Self {
        EditRules::default()
    }

    /// Adds a tag to drop.
    #[must_use]
    pub fn drop_tag(mut self, tag: impl Into<String>) -> Self {
        self.drop_tags.push(tag.into());
        self
    }

    /// Adds a rename.
    #[must_use]
    pub fn rename_tag(mut self, old: impl Into<String>, new: impl Into<String>) -> Self {
        self.rename_tags.push((old.into(), new.into()));
        self
    }

    /// The action for `b`: drop wins over rename; the first matching rename applies.
    #[must_use]
    pub fn action(&self, b: &Begin<'_>) -> Action {
        if self.drop_tags.iter().any(|t| *t == b.tag) {
            return Action::Drop;
        }
        match self.rename_tags.iter().find(|(old, _)| *old == b.tag) {
            Some((_, new)) => Action::RenameTag(new.clone()),
            None => Action::Keep,
        }
    }
}

/// What an [`edit`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EditStats {
    /// Structures read.
    pub structures: u64,
    /// Structures dropped (not counting their substructures).
    pub dropped: u64,
    /// Structures retagged.
    pub renamed: u64,
    /// Error-severity diagnostics of the reader (the input had errors; they were copied
    /// through as they were).
    pub read_errors: u64,
    /// The input's encoding.
    pub encoding: Option<Encoding>,
}

/// Why an [`edit`] stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum EditError {
    /// The input cannot be read as GEDCOM (not `0 HEAD` first, unsupported encoding).
    Read(crate::Error),
    /// Writing the output failed.
    Io(io::Error),
    /// A [`Action::RenameTag`] to something that is not a tag (`[0-9A-Za-z_]+`), or to
    /// `CONT`/`CONC`.
    InvalidTag(String),
    /// An offset of the reader could not be mapped back to the original octets (a bug;
    /// nothing wrong was written past the point reported).
    Offset(usize),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Read(e) => write!(f, "{e}"),
            EditError::Io(e) => write!(f, "cannot write: {e}"),
            EditError::InvalidTag(t) => write!(f, "invalid new tag {t:?}"),
            EditError::Offset(o) => write!(f, "internal error: offset {o} does not map back"),
        }
    }
}

impl std::error::Error for EditError {}

impl From<io::Error> for EditError {
    fn from(e: io::Error) -> Self {
        EditError::Io(e)
    }
}

impl From<crate::Error> for EditError {
    fn from(e: crate::Error) -> Self {
        EditError::Read(e)
    }
}

/// Maps offsets in the octets the reader reads back to the original octets.
enum OffsetMap<'o> {
    /// Same octets, after a byte-order mark of this length.
    Shift(usize),
    /// UTF-16 transcoded to UTF-8: walked forwards in step with the transcoder.
    Utf16 {
        src: &'o [u8],
        bom: usize,
        big: bool,
        u8pos: usize,
        u16pos: usize,
    },
}

impl OffsetMap<'_> {
    /// The original offset of reader offset `x`; offsets must be asked in order.
    fn map(&mut self, x: usize) -> Result<usize, EditError> {
        match self {
            OffsetMap::Shift(n) => Ok(x + *n),
            OffsetMap::Utf16 {
                src,
                bom,
                big,
                u8pos,
                u16pos,
            } => {
                let unit = |o: &[u8]| {
                    if *big {
                        u16::from_be_bytes([o[0], o[1]])
                    } else {
                        u16::from_le_bytes([o[0], o[1]])
                    }
                };
                // Mirrors `utf16_to_utf8`: a pair gives 4 octets, an unpaired surrogate or
                // a final odd octet gives U+FFFD (3 octets).
                while *u8pos < x {
                    let rem = &src[(*u16pos).min(src.len())..];
                    match rem.len() {
                        0 => break,
                        1 => {
                            *u16pos += 1;
                            *u8pos += 3;
                        }
                        _ => {
                            let u = unit(rem);
                            if (0xD800..0xDC00).contains(&u)
                                && rem.len() >= 4
                                && (0xDC00..0xE000).contains(&unit(&rem[2..]))
                            {
                                *u16pos += 4;
                                *u8pos += 4;
                            } else if (0xD800..0xE000).contains(&u) {
                                *u16pos += 2;
                                *u8pos += 3;
                            } else {
                                *u16pos += 2;
                                *u8pos += char::from_u32(u32::from(u)).map_or(3, char::len_utf8);
                            }
                        }
                    }
                }
                if *u8pos != x {
                    return Err(EditError::Offset(x));
                }
                Ok(*u16pos + *bom)
            }
        }
    }
}

/// Streams `input` to `out`, asking `decide` what to do with each structure, and copies
/// every octet it is not told to change (see the [module documentation](self)).
///
/// `encoding` overrides the detected encoding, as the reader's `--encoding` does. Reading
/// problems are not fatal: the lines concerned are copied as they are, and counted in
/// [`EditStats::read_errors`].
///
/// # Errors
/// [`EditError::Read`] when the input is not GEDCOM or names an unsupported encoding
/// (nothing is written); [`EditError::Io`] when writing fails; [`EditError::InvalidTag`]
/// for a bad [`Action::RenameTag`].
pub fn edit<W: Write>(
    input: &[u8],
    encoding: Option<Encoding>,
    out: &mut W,
    mut decide: impl FnMut(&Begin<'_>) -> Action,
) -> Result<EditStats, EditError> {
    let prepared = Input::with_encoding(input, encoding)?;
    let info = prepared.encoding_info();
    let bom = info.bom_len.min(input.len());
    let utf16 = info.encoding.is_utf16();
    let mut stats = EditStats {
        encoding: Some(info.encoding),
        ..EditStats::default()
    };
    let mut map = if utf16 {
        OffsetMap::Utf16 {
            src: &input[bom..],
            bom,
            big: info.encoding == Encoding::Utf16Be,
            u8pos: 0,
            u16pos: 0,
        }
    } else {
        OffsetMap::Shift(bom)
    };
    let data = prepared.bytes();
    let mut reader = prepared.reader();
    // Original octets written so far.
    let mut copied = 0usize;
    // While dropping: (level, first octet of the region in `data`, end of its last line).
    let mut dropping: Option<(u32, usize, usize)> = None;

    loop {
        let event = reader.next_event()?;
        for d in reader.drain_diagnostics() {
            if d.severity() == Severity::Error {
                stats.read_errors += 1;
            }
        }
        let Some(event) = event else { break };
        match event {
            Event::Begin(b) => {
                stats.structures += 1;
                if let Some((_, _, last)) = dropping.as_mut() {
                    *last = (*last).max(b.span.end);
                    continue;
                }
                match decide(&b) {
                    Action::Keep => {}
                    Action::Drop => {
                        stats.dropped += 1;
                        dropping = Some((b.level, line_start(data, b.span.start), b.span.end));
                    }
                    Action::RenameTag(new) => {
                        let valid = is_tag(new.as_bytes()) && new != "CONT" && new != "CONC";
                        if !valid {
                            return Err(EditError::InvalidTag(new));
                        }
                        if b.origin != Origin::Line {
                            continue;
                        }
                        let Some((t0, t1)) = tag_range(data, b.span.start) else {
                            continue;
                        };
                        let from = map.map(t0)?;
                        out.write_all(&input[copied..from])?;
                        if utf16 {
                            let big = info.encoding == Encoding::Utf16Be;
                            for u in new.encode_utf16() {
                                let o = if big {
                                    u.to_be_bytes()
                                } else {
                                    u.to_le_bytes()
                                };
                                out.write_all(&o)?;
                            }
                        } else {
                            out.write_all(new.as_bytes())?;
                        }
                        copied = map.map(t1)?;
                        stats.renamed += 1;
                    }
                }
            }
            Event::End(e) => {
                if let Some((level, start, last)) = dropping {
                    if e.level == level {
                        dropping = None;
                        let from = map.map(start)?;
                        out.write_all(&input[copied..from])?;
                        copied = map.map(after_line_break(data, last))?;
                    }
                }
            }
        }
    }
    out.write_all(&input[copied.min(input.len())..])?;
    Ok(stats)
}

/// The start of the line holding offset `s` (leading spaces and tabs included).
fn line_start(data: &[u8], mut s: usize) -> usize {
    while s > 0 && matches!(data[s - 1], b' ' | b'\t') {
        s -= 1;
    }
    s
}

/// The offset just past the line break at `e` (LF, CR or CRLF), or `e` at the end.
fn after_line_break(data: &[u8], e: usize) -> usize {
    match data.get(e) {
        Some(b'\r') if data.get(e + 1) == Some(&b'\n') => e + 2,
        Some(b'\r' | b'\n') => e + 1,
        _ => e.min(data.len()),
    }
}

/// The offsets of the tag on the line string starting at `start`.
fn tag_range(data: &[u8], start: usize) -> Option<(usize, usize)> {
    let rest = data.get(start..)?;
    let len = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
    let line = &rest[..len];
    let parsed = parse_line(line).ok()?;
    let off = parsed.tag.as_ptr() as usize - line.as_ptr() as usize;
    Some((start + off, start + off + parsed.tag.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(input: &[u8]) {
        let mut out = Vec::new();
        edit(input, None, &mut out, |_| Action::Keep).unwrap();
        assert_eq!(out, input);
    }

    #[test]
    fn identity_on_odd_inputs() {
        same(b"0 HEAD\n");
        same(b"0 HEAD");
        same(b"0 HEAD\n\n\n   \n1 X\n\r\n\r\r0 TRLR   \n\n junk\n");
        same(b"0 HEAD\n2 TOO DEEP\nunparsable line\n1 ERROR x\n0 TRLR\n1 AFTER\n");
        same(b"\xEF\xBB\xBF0 HEAD\r\n1 CHAR UTF-8\r\n0 TRLR");
    }

    fn utf16(text: &str, big: bool, bom: bool) -> Vec<u8> {
        let mut v = Vec::new();
        if bom {
            v.extend_from_slice(if big { b"\xFE\xFF" } else { b"\xFF\xFE" });
        }
        for u in text.encode_utf16() {
            v.extend_from_slice(&if big {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        v
    }

    #[test]
    fn utf16_maps_back() {
        let text = "0 HEAD\r\n1 CHAR UNICODE\n0 @I1@ INDI\n1 _UID x\n1 NAME Ærø 😀 /X/\n0 TRLR\n";
        for big in [false, true] {
            for bom in [false, true] {
                let input = utf16(text, big, bom);
                same(&input);
                let mut out = Vec::new();
                let rules = EditRules::new().drop_tag("_UID").rename_tag("NAME", "_N");
                edit(&input, None, &mut out, |b| rules.action(b)).unwrap();
                let want = text.replace("1 _UID x\n", "").replace("NAME", "_N");
                assert_eq!(out, utf16(&want, big, bom));
            }
        }
        // Unpaired surrogates and an odd final octet still map back.
        let mut input = utf16("0 HEAD\n1 NOTE a", false, true);
        input.extend_from_slice(&[0x00, 0xD8, b'b', 0, 0x00, 0xDC, b'\n', 0]);
        input.extend_from_slice(&utf16("1 _X y\n1 NOTE c\n", false, false));
        input.push(b'z');
        same(&input);
        let mut out = Vec::new();
        edit(&input, None, &mut out, |b| {
            if b.tag == "_X" {
                Action::Drop
            } else {
                Action::Keep
            }
        })
        .unwrap();
        let mut want = utf16("0 HEAD\n1 NOTE a", false, true);
        want.extend_from_slice(&[0x00, 0xD8, b'b', 0, 0x00, 0xDC, b'\n', 0]);
        want.extend_from_slice(&utf16("1 NOTE c\n", false, false));
        want.push(b'z');
        assert_eq!(out, want);
    }

    #[test]
    fn drop_takes_subtree_and_blank_lines_inside() {
        let input = b"0 HEAD\n0 @I1@ INDI\n  1 _UID a\n\n2 _SUB b\n2 CONT c\n1 NAME n\n0 TRLR";
        let mut out = Vec::new();
        let rules = EditRules::new().drop_tag("_UID");
        let s = edit(input, None, &mut out, |b| rules.action(b)).unwrap();
        assert_eq!(out, b"0 HEAD\n0 @I1@ INDI\n1 NAME n\n0 TRLR");
        assert_eq!(s.dropped, 1);
        // At the end of the input, without a final line break.
        let mut out = Vec::new();
        let rules = EditRules::new().drop_tag("TRLR");
        edit(input, None, &mut out, |b| rules.action(b)).unwrap();
        assert_eq!(
            out,
            b"0 HEAD\n0 @I1@ INDI\n  1 _UID a\n\n2 _SUB b\n2 CONT c\n1 NAME n\n"
        );
    }

    #[test]
    fn rename_keeps_the_rest_of_the_line() {
        let input = b"0 HEAD\n0\t@I1@   INDI \t\n1 NOTE x\n2 CONC y\n0 TRLR\n";
        let mut out = Vec::new();
        let rules = EditRules::new().rename_tag("INDI", "_PERSON");
        edit(input, None, &mut out, |b| rules.action(b)).unwrap();
        assert_eq!(
            out,
            b"0 HEAD\n0\t@I1@   _PERSON \t\n1 NOTE x\n2 CONC y\n0 TRLR\n"
        );
        let rules = EditRules::new().rename_tag("INDI", "CONT");
        let r = edit(input, None, &mut Vec::new(), |b| rules.action(b));
        assert!(matches!(r, Err(EditError::InvalidTag(_))));
    }

    #[test]
    fn not_gedcom_is_an_error() {
        let r = edit(b"hello", None, &mut Vec::new(), |_| Action::Keep);
        assert!(matches!(r, Err(EditError::Read(_))));
    }
}
