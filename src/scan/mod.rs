//! The line scanner: the lowest layer, pure and allocation-free.
//!
//! It turns a byte buffer into *line strings* (seed §3.4) and parses each
//! line string against the `Line` production (seed §4.1). It knows nothing of
//! structures, payload decoding or diagnostics; the [`crate::read`] layer
//! builds those on top.
//!
//! ```
//! use gedcom_elf::scan::{Lines, parse_line};
//!
//! let input = b"0 HEAD\r\n\r\n  1 CHAR UTF-8\r0 TRLR";
//! let lines: Vec<_> = Lines::new(input).collect();
//! assert_eq!(lines.len(), 3);
//! assert_eq!(lines[1].number, 3); // the blank line still counts
//! let line = parse_line(lines[1].text).unwrap();
//! assert_eq!((line.level, line.tag, line.payload), (1, &b"CHAR"[..], Some(&b"UTF-8"[..])));
//! ```

mod bytes;
mod cursor;
mod line;

pub(crate) use bytes::{ascii_prefix, count_breaks, decimal_digits};
pub(crate) use cursor::{Cursor, Scanned, TagKind};

pub(crate) use line::plain_record_tag;
pub use line::{is_pointer, is_tag, is_valid_xref, parse_line, Line, LineError};

const WS: u8 = 1;
const ID: u8 = 2;
const LOWER: u8 = 4;

/// Byte classes of the line grammar: whitespace (`S`) and `[0-9a-zA-Z_]`,
/// the lowercase letters marked apart (GEDCOM 7's tags have none).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = WS;
    t[b'\t' as usize] = WS;
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_lowercase() {
            t[b] = ID | LOWER;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            t[b] = ID;
        }
        b += 1;
    }
    t
};

/// `true` for the whitespace characters a line string can contain (space and tab).
#[inline(always)]
pub(crate) fn is_ws(b: u8) -> bool {
    CLASS[b as usize] == WS
}

/// `true` for `[0-9a-zA-Z_]`, the characters of tags and of an xref's first character.
#[inline(always)]
pub(crate) fn is_id(b: u8) -> bool {
    CLASS[b as usize] & ID != 0
}

/// `true` for `[0-9A-Z_]`, the characters of GEDCOM 7's tags.
#[inline(always)]
pub(crate) fn is_upper_id(b: u8) -> bool {
    CLASS[b as usize] == ID
}

/// Removes trailing spaces and tabs.
#[inline]
pub(crate) fn trim_end(mut s: &[u8]) -> &[u8] {
    while let [rest @ .., last] = s {
        if is_ws(*last) {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// One non-blank line string, as found in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLine<'a> {
    /// 1-based physical line number: every line break before it counts,
    /// including the breaks of blank lines.
    pub number: u64,
    /// Byte offset of the first byte of [`RawLine::text`] in the scanned buffer.
    pub start: usize,
    /// The line string without its line break and without leading
    /// whitespace. Trailing whitespace is kept: whether to remove it is a
    /// decision of the structure layer (seed §3.4 makes it a "should").
    pub text: &'a [u8],
}

impl RawLine<'_> {
    /// Byte offset just past [`RawLine::text`] (where its line break begins).
    #[inline]
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// An iterator over the non-blank line strings of a buffer.
///
/// Line breaks are LF, CR and CRLF; LF followed by CR is two breaks (seed
/// §3.4). Leading spaces and tabs are removed and line strings that are then
/// empty are skipped, but still counted in [`RawLine::number`].
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    cursor: Cursor<'a>,
}

impl<'a> Lines<'a> {
    /// Scans `input` from its start; the first line is line 1.
    pub fn new(input: &'a [u8]) -> Self {
        Lines::starting_at(input, 0, 1)
    }

    /// Scans `input` from byte `pos`, calling the line there `line`.
    pub fn starting_at(input: &'a [u8], pos: usize, line: u64) -> Self {
        Lines {
            cursor: Cursor::new(input, pos, line),
        }
    }

    /// Byte offset of the next unscanned byte.
    #[inline]
    pub fn position(&self) -> usize {
        self.cursor.position()
    }

    /// Number of the physical line that starts at [`Lines::position`].
    #[inline]
    pub fn line_number(&self) -> u64 {
        self.cursor.line_number()
    }

    /// The whole buffer being scanned.
    #[inline]
    pub fn input(&self) -> &'a [u8] {
        self.cursor.input()
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = RawLine<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<RawLine<'a>> {
        let (number, start, end) = self.cursor.next_raw()?;
        Some(RawLine {
            number,
            start,
            text: &self.cursor.input()[start..end],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &[u8]) -> Vec<(u64, &[u8])> {
        Lines::new(input).map(|l| (l.number, l.text)).collect()
    }

    #[test]
    fn every_line_break_form() {
        let want: Vec<(u64, &[u8])> = vec![(1, b"a"), (2, b"b"), (3, b"c")];
        assert_eq!(texts(b"a\nb\nc"), want);
        assert_eq!(texts(b"a\r\nb\r\nc\r\n"), want);
        assert_eq!(texts(b"a\rb\rc\r"), want);
        assert_eq!(texts(b"a\r\nb\rc\n"), want);
    }

    #[test]
    fn lf_cr_is_two_breaks() {
        assert_eq!(texts(b"a\n\rb"), vec![(1, &b"a"[..]), (3, &b"b"[..])]);
    }

    #[test]
    fn leading_whitespace_and_blank_lines() {
        assert_eq!(
            texts(b" \t a \n\n   \n\tb"),
            vec![(1, &b"a "[..]), (4, &b"b"[..])]
        );
        assert!(texts(b"").is_empty());
        assert!(texts(b"\n\r\n \t").is_empty());
    }

    #[test]
    fn offsets_point_into_the_input() {
        let input = b"0 HEAD\r\n  1 X\n";
        let lines: Vec<_> = Lines::new(input).collect();
        assert_eq!(lines[1].start, 10);
        assert_eq!(&input[lines[1].start..lines[1].end()], b"1 X");
    }

    #[test]
    fn byte_classes() {
        for b in 0..=255u8 {
            let id = b.is_ascii_alphanumeric() || b == b'_';
            assert_eq!(is_id(b), id, "{b}");
            assert_eq!(is_upper_id(b), id && !b.is_ascii_lowercase(), "{b}");
            assert_eq!(is_ws(b), b == b' ' || b == b'\t', "{b}");
        }
    }

    #[test]
    fn trim_end_removes_spaces_and_tabs_only() {
        assert_eq!(trim_end(b"ab \t "), b"ab");
        assert_eq!(trim_end(b" \t"), b"");
        assert_eq!(trim_end(b"a\x0b"), b"a\x0b");
    }
}
