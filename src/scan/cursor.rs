//! The reader's line source: finds a line string and parses it in one step,
//! recording offsets rather than slices.
//!
//! [`Lines`](super::Lines) and [`parse_line`](super::parse_line) are the
//! public, slice-based form of the same rules; this form exists because the
//! structure reader keeps one line read ahead, and a record of offsets that
//! is written in place is far cheaper to keep than a set of slices that is
//! built and then moved.

use super::bytes::find_break;
use super::{is_id, is_upper_id, is_valid_xref, is_ws, trim_end, LineError};

/// One non-blank line string, parsed against the `Line` production. Every
/// position is a byte offset in the buffer being scanned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// 1-based physical line number.
    pub number: u64,
    /// First byte of the line string (leading whitespace removed).
    pub start: usize,
    /// End of the line string, trailing whitespace kept.
    pub end: usize,
    /// End of the line string without trailing whitespace.
    pub trimmed_end: usize,
    /// The written level (meaningful when `error` is `None`).
    pub level: u32,
    /// Why the line string is unparsable, if it is.
    pub error: Option<LineError>,
    /// The xref, `@` signs included; empty (`xref_start == xref_end`) when absent.
    pub xref_start: usize,
    pub xref_end: usize,
    /// The tag.
    pub tag_start: usize,
    pub tag_end: usize,
    /// Whether the tag is one the structure rules treat specially.
    pub kind: TagKind,
    /// How the line departs from GEDCOM 7's line form: [`gedcom7`] bits.
    pub gedcom7: u8,
    /// With [`gedcom7::BLANK`]: the number of the first of the blank lines
    /// before this one (they run up to `number`), and where it starts.
    pub blank_from: u64,
    pub blank_start: usize,
}

/// How a line departs from GEDCOM 7's stricter `Line` production, which
/// the scanner reads as ELF's (7.0 §1: a file is lines, each `Level D [Xref
/// D] Tag [D LineVal] EOL`, `D` one space, no whitespace before the level,
/// tags of upper-case letters, digits and underscores): a set of these
/// bits, found while the line is scanned. The line GEDCOM 7 allows, nearly
/// every line, has none, so the reader's 7.0 mode tests one byte a line.
pub(crate) mod gedcom7 {
    /// Blank lines (empty, or only spaces and tabs) just before the line.
    pub const BLANK: u8 = 1;
    /// Whitespace before the level.
    pub const LEADING: u8 = 2;
    /// A delimiter other than one space between level, xref, tag and payload.
    pub const DELIMITER: u8 = 4;
    /// Lowercase letters in the tag.
    pub const LOWERCASE: u8 = 8;
}

impl Scanned {
    /// The first way this line departs from GEDCOM 7's line form, other than
    /// the blank lines before it ([`Scanned::blank_lines`]): a description,
    /// or `None` for a line GEDCOM 7 allows (or an unparsable one, reported
    /// as that).
    pub fn gedcom7_departure(&self) -> Option<&'static str> {
        let f = self.gedcom7;
        if f & gedcom7::LEADING != 0 {
            Some("whitespace before the level")
        } else if f & gedcom7::DELIMITER != 0 {
            Some("a delimiter other than one space")
        } else if f & gedcom7::LOWERCASE != 0 {
            Some("lowercase letters in the tag")
        } else {
            None
        }
    }

    /// The blank lines just before this line, which GEDCOM 7 does not
    /// allow: each one's number and the offset where it starts.
    pub fn blank_lines<'i>(&self, input: &'i [u8]) -> impl Iterator<Item = (u64, usize)> + 'i {
        let (line, end) = match self.gedcom7 & gedcom7::BLANK != 0 {
            true => (self.blank_from, self.number),
            false => (self.number, self.number),
        };
        blank_run(input, self.blank_start, line, end)
    }
}

/// The lines from `pos` (numbered from `line`) that are known to be blank,
/// up to the line numbered `until` or the end of `input`: each one's number
/// and the offset where it starts.
fn blank_run(
    input: &[u8],
    mut pos: usize,
    mut line: u64,
    until: u64,
) -> impl Iterator<Item = (u64, usize)> + '_ {
    std::iter::from_fn(move || {
        if line >= until || pos >= input.len() {
            return None;
        }
        let here = (line, pos);
        pos = find_break(input, pos).map_or(input.len(), |b| after_break(input, b));
        line += 1;
        Some(here)
    })
}

/// The offset just past the line break at `end` (CRLF is one break).
#[inline(always)]
fn after_break(input: &[u8], end: usize) -> usize {
    end + 1 + usize::from(input[end] == b'\r' && input.get(end + 1) == Some(&b'\n'))
}

/// The tags the structure rules treat specially (seed §4.1-§4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum TagKind {
    /// Any other tag (and the tag of an unparsable line).
    #[default]
    Other,
    /// `CONT`.
    Cont,
    /// `CONC`.
    Conc,
    /// `ERROR`.
    Error,
}

impl TagKind {
    /// The kind of `tag`.
    #[inline(always)]
    pub fn of(tag: &[u8]) -> TagKind {
        match *tag {
            [b'C', b'O', b'N', b'T'] => TagKind::Cont,
            [b'C', b'O', b'N', b'C'] => TagKind::Conc,
            [b'E', b'R', b'R', b'O', b'R'] => TagKind::Error,
            _ => TagKind::Other,
        }
    }

    /// `CONT` or `CONC`.
    #[inline(always)]
    pub fn is_continuation(self) -> bool {
        matches!(self, TagKind::Cont | TagKind::Conc)
    }
}

impl Scanned {
    /// The payload range without trailing whitespace, when there is a payload.
    #[inline(always)]
    pub fn payload(&self) -> Option<(usize, usize)> {
        (self.trimmed_end > self.tag_end).then(|| (self.tag_end + 1, self.trimmed_end))
    }

    /// The payload range up to the end of the line string, trailing
    /// whitespace kept: present whenever the payload is, and also when only
    /// whitespace follows the tag's delimiter.
    #[inline(always)]
    pub fn payload_untrimmed(&self) -> Option<(usize, usize)> {
        (self.end > self.tag_end + 1).then(|| (self.tag_end + 1, self.end))
    }

    /// Whether the line has an xref.
    #[inline(always)]
    pub fn has_xref(&self) -> bool {
        self.xref_end > self.xref_start
    }
}

/// Parses the line string `input[start..end]` (leading whitespace removed,
/// not empty) into `out`. The rules are those of
/// [`parse_line`](super::parse_line), which is built on this function.
#[inline(always)]
pub(crate) fn parse_at(input: &[u8], start: usize, end: usize, out: &mut Scanned) {
    out.start = start;
    out.end = end;
    let n = start + trim_end(&input[start..end]).len();
    out.trimmed_end = n;
    out.xref_start = 0;
    out.xref_end = 0;
    match parse_fields(input, start, n, out) {
        Ok(()) => {
            out.error = None;
            // What the fields leave to see: whitespace before the level,
            // and what follows the tag (a space, or nothing).
            if start > 0 && is_ws(input[start - 1]) {
                out.gedcom7 |= gedcom7::LEADING;
            }
            if out.tag_end < end && input[out.tag_end] != b' ' {
                out.gedcom7 |= gedcom7::DELIMITER;
            }
        }
        Err(e) => {
            // An unparsable line is reported as that.
            out.gedcom7 = 0;
            out.error = Some(e);
            out.tag_start = start;
            out.tag_end = start;
            out.kind = TagKind::Other;
        }
    }
}

/// The `Line` production over `t[i..n]`, `n` the trimmed end.
#[inline(always)]
fn parse_fields(t: &[u8], mut i: usize, n: usize, out: &mut Scanned) -> Result<(), LineError> {
    // Number ::= "0" | [1-9] [0-9]*
    let level = match t.get(i) {
        Some(b'0') if i < n => {
            i += 1;
            0u32
        }
        Some(&d @ b'1'..=b'9') if i < n => {
            let mut v = u32::from(d - b'0');
            i += 1;
            while i < n && t[i].is_ascii_digit() {
                v = v.saturating_mul(10).saturating_add(u32::from(t[i] - b'0'));
                i += 1;
            }
            v
        }
        _ => return Err(LineError::Level),
    };
    out.level = level;
    let mut form = 0;
    // S
    if i >= n || !is_ws(t[i]) {
        return Err(if i < n && t[i].is_ascii_digit() {
            LineError::Level
        } else {
            LineError::Delimiter
        });
    }
    i = delimiter(t, i, n, &mut form);
    // (XRefID S)?
    if i < n && t[i] == b'@' {
        let close = match memchr::memchr(b'@', &t[i + 1..n]) {
            Some(k) => i + 1 + k,
            None => return Err(LineError::Xref),
        };
        if !is_valid_xref(&t[i..=close]) {
            return Err(LineError::Xref);
        }
        out.xref_start = i;
        out.xref_end = close + 1;
        i = close + 1;
        if i >= n || !is_ws(t[i]) {
            return Err(LineError::Delimiter);
        }
        i = delimiter(t, i, n, &mut form);
    }
    // Tag: its upper-case part, then (rarely) the rest.
    let tag_start = i;
    i = t[i..n]
        .iter()
        .position(|&b| !is_upper_id(b))
        .map_or(n, |k| i + k);
    if i < n && is_id(t[i]) {
        form |= gedcom7::LOWERCASE;
        i = t[i..n].iter().position(|&b| !is_id(b)).map_or(n, |k| i + k);
    }
    if i == tag_start {
        return Err(LineError::Tag);
    }
    // (S Payload)?
    if i < n && !is_ws(t[i]) {
        return Err(LineError::Tag);
    }
    out.tag_start = tag_start;
    out.tag_end = i;
    out.kind = TagKind::of(&t[tag_start..i]);
    out.gedcom7 = form;
    Ok(())
}

/// Skips the delimiter that begins at `t[i]` (whitespace), giving the
/// position after it; adds [`gedcom7::DELIMITER`] to `form` unless it is
/// one space.
#[inline(always)]
fn delimiter(t: &[u8], i: usize, n: usize, form: &mut u8) -> usize {
    let next = skip_ws(t, i + 1, n);
    if t[i] != b' ' || next != i + 1 {
        *form |= gedcom7::DELIMITER;
    }
    next
}

/// The first position at or after `i` (and before `n`) that is not a space or tab.
#[inline(always)]
fn skip_ws(t: &[u8], i: usize, n: usize) -> usize {
    match t.get(i) {
        Some(&b) if i < n && is_ws(b) => {
            t[i..n].iter().position(|&b| !is_ws(b)).map_or(n, |k| i + k)
        }
        _ => i,
    }
}

/// A position in a buffer and the number of the line that starts there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    input: &'a [u8],
    pos: usize,
    line: u64,
    /// Where the blank lines at the end of the input start, and the first
    /// one's number, once the cursor has reached the end.
    tail: (u64, usize),
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos` (clamped to the input), calling the line there `line`.
    pub fn new(input: &'a [u8], pos: usize, line: u64) -> Self {
        Cursor {
            input,
            pos: pos.min(input.len()),
            line,
            tail: (line, input.len()),
        }
    }

    /// The blank lines at the end of the input (after its last line string),
    /// once [`Cursor::next_into`] has found no more line strings: each one's
    /// number and start.
    pub fn blank_tail(&self) -> impl Iterator<Item = (u64, usize)> + 'a {
        blank_run(self.input, self.tail.1, self.tail.0, u64::MAX)
    }

    /// The buffer being scanned.
    #[inline]
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// Offset of the next unscanned byte.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Number of the physical line that starts at [`Cursor::position`].
    #[inline]
    pub fn line_number(&self) -> u64 {
        self.line
    }

    /// The shape nearly every line has: a one-digit level at the very start,
    /// one space, an upper-case tag, then a space or the line's end. Parsed
    /// here without the general path's loops; anything else (and the line
    /// after a blank one) is left to it, which gives the same result for
    /// these lines. These are lines as GEDCOM 7 writes them: the reader's
    /// 7.0 check finds nothing to see in them ([`gedcom7`] bits none).
    #[inline(always)]
    fn next_simple(&mut self, out: &mut Scanned) -> bool {
        let input = self.input;
        let start = self.pos;
        let Some(&[d @ b'0'..=b'9', b' ', t]) = input.get(start..start.wrapping_add(3)) else {
            return false;
        };
        if !is_upper_id(t) {
            return false;
        }
        let tag_start = start + 2;
        let tag_end = input[tag_start + 1..]
            .iter()
            .position(|&b| !is_upper_id(b))
            .map_or(input.len(), |k| tag_start + 1 + k);
        let end = match input.get(tag_end) {
            None => input.len(),
            Some(b'\n' | b'\r') => tag_end,
            Some(b' ') => find_break(input, tag_end + 1).unwrap_or(input.len()),
            Some(_) => return false,
        };
        let next = match input.get(end) {
            None => end,
            Some(_) => after_break(input, end),
        };
        let trimmed = tag_end + trim_end(&input[tag_end..end]).len();
        out.number = self.line;
        self.line += u64::from(next > end);
        self.pos = next;
        out.start = start;
        out.end = end;
        out.trimmed_end = trimmed;
        out.level = u32::from(d - b'0');
        out.error = None;
        out.xref_start = 0;
        out.xref_end = 0;
        out.tag_start = tag_start;
        out.tag_end = tag_end;
        out.kind = TagKind::of(&input[tag_start..tag_end]);
        out.gedcom7 = 0;
        true
    }

    /// Finds the next non-blank line string and parses it into `out`;
    /// `false` at the end of the input (then `out` is unchanged).
    ///
    /// Line breaks are LF, CR and CRLF (LF CR is two); leading spaces and
    /// tabs are removed; blank line strings are skipped but counted.
    #[inline(always)]
    pub fn next_into(&mut self, out: &mut Scanned) -> bool {
        if self.next_simple(out) {
            return true;
        }
        let (line, pos) = (self.line, self.pos);
        match self.next_raw() {
            Some((number, start, end)) => {
                out.number = number;
                parse_at(self.input, start, end, out);
                if number > line {
                    out.gedcom7 |= gedcom7::BLANK;
                    out.blank_from = line;
                    out.blank_start = pos;
                }
                true
            }
            None => false,
        }
    }

    /// The next non-blank line string, unparsed: its number, start and end
    /// (leading whitespace removed, trailing kept); `None` at the end.
    #[inline(always)]
    pub fn next_raw(&mut self) -> Option<(u64, usize, usize)> {
        let input = self.input;
        let first = (self.line, self.pos);
        loop {
            let mut start = self.pos;
            if start >= input.len() {
                self.tail = first;
                return None;
            }
            while start < input.len() && is_ws(input[start]) {
                start += 1;
            }
            let (end, next) = match find_break(input, start) {
                Some(end) => (end, after_break(input, end)),
                None => (input.len(), input.len()),
            };
            let number = self.line;
            self.pos = next;
            self.line += u64::from(next > end);
            if end > start {
                return Some((number, start, end));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GEDCOM 7's line form: one space between the fields, nothing before
    /// the level, upper-case tags; the payload after its one space is the
    /// payload's, spaces and all.
    #[test]
    fn gedcom7_departures() {
        let first = |text: &str| {
            let mut s = Scanned::default();
            assert!(Cursor::new(text.as_bytes(), 0, 1).next_into(&mut s));
            s.gedcom7_departure()
        };
        for fine in [
            "0 HEAD",
            "0 @I1@ INDI",
            "1 NAME  two spaces are payload",
            "1 SEX M ",
            "0 TRLR\n",
        ] {
            assert_eq!(first(fine), None, "{fine:?}");
        }
        let leading = Some("whitespace before the level");
        let delimiter = Some("a delimiter other than one space");
        assert_eq!(first("  0 HEAD"), leading);
        assert_eq!(first("\t1 NAME x"), leading);
        assert_eq!(first("1  NAME x"), delimiter);
        assert_eq!(first("1\tNAME x"), delimiter);
        assert_eq!(first("0 @I1@  INDI"), delimiter);
        assert_eq!(first("0  @I1@ INDI"), delimiter);
        assert_eq!(first("1 NAME\tx"), delimiter);
        assert_eq!(first("1 birt"), Some("lowercase letters in the tag"));
        assert_eq!(first("1 _Ext y"), Some("lowercase letters in the tag"));
        // Unparsable lines are reported as that, not as this.
        assert_eq!(first("not a line"), None);
    }

    /// Blank lines (empty, or spaces and tabs only) before a line are
    /// marked on it, with the first one's number and start; the scanner
    /// still skips them.
    #[test]
    fn blank_lines_before_a_line() {
        let input = b"0 HEAD\n\n \t\r\n1 X\n2 Y\n\n\rbad\n\n  3 Z";
        let scanned = all(input);
        let blanks: Vec<Vec<(u64, usize)>> = scanned
            .iter()
            .map(|s| s.blank_lines(input).collect())
            .collect();
        assert_eq!(
            blanks,
            [
                vec![],
                vec![(2, 7), (3, 8)],
                vec![],
                vec![(6, 20), (7, 21)],
                vec![(9, 26)]
            ]
        );
        assert_eq!(scanned[0].gedcom7, 0);
        assert_eq!(scanned[1].gedcom7, gedcom7::BLANK);
        // An unparsable line is reported as that, its blank lines as theirs.
        assert_eq!(scanned[3].gedcom7, gedcom7::BLANK);
        assert_eq!(scanned[4].gedcom7, gedcom7::BLANK | gedcom7::LEADING);
        assert_eq!(
            scanned[4].gedcom7_departure(),
            Some("whitespace before the level")
        );
        // A first line after blank lines, and one that is only blank lines.
        let first = all(b"\r\n0 HEAD");
        assert_eq!(
            first[0].blank_lines(b"\r\n0 HEAD").collect::<Vec<_>>(),
            [(1, 0)]
        );
        assert!(all(b"\n\n").is_empty());
    }

    /// The blank lines after the last line string, once the end is reached.
    #[test]
    fn blank_lines_at_the_end() {
        let tail = |input: &'static [u8]| {
            let mut c = Cursor::new(input, 0, 1);
            let mut s = Scanned::default();
            while c.next_into(&mut s) {}
            c.blank_tail().collect::<Vec<_>>()
        };
        assert_eq!(tail(b"0 TRLR\n"), []);
        assert_eq!(tail(b"0 TRLR"), []);
        assert_eq!(tail(b"0 TRLR\n\n"), [(2, 7)]);
        assert_eq!(tail(b"0 TRLR\r\n\r\n \t"), [(2, 8), (3, 10)]);
        assert_eq!(tail(b"\n"), [(1, 0)]);
        assert_eq!(tail(b""), []);
    }

    /// The fast path gives a line the same [`gedcom7`] bits as the general
    /// one (`parse_at`) gives it, on inputs rich in what they look at.
    #[test]
    fn gedcom7_bits_agree_between_paths() {
        for input in random_inputs(b"01 \t\n\r@AZ_xa!", 0x9e37_79b9_7f4a_7c15, 30) {
            for s in all(&input) {
                let mut general = Scanned::default();
                parse_at(&input, s.start, s.end, &mut general);
                assert_eq!(s.gedcom7 & !gedcom7::BLANK, general.gedcom7, "{input:?}");
            }
        }
    }

    /// 4000 inputs of under `max_len` octets drawn from `alphabet` by a
    /// xorshift generator from `seed`: the same ones every run.
    fn random_inputs(alphabet: &[u8], mut seed: u64, max_len: u64) -> Vec<Vec<u8>> {
        (0..4000)
            .map(|_| {
                let len = (seed % max_len) as usize;
                let mut input = Vec::with_capacity(len);
                for _ in 0..len {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    input.push(alphabet[(seed % alphabet.len() as u64) as usize]);
                }
                input
            })
            .collect()
    }

    fn all(input: &[u8]) -> Vec<Scanned> {
        let mut c = Cursor::new(input, 0, 1);
        let mut out = Vec::new();
        let mut s = Scanned::default();
        while c.next_into(&mut s) {
            out.push(s);
        }
        out
    }

    #[test]
    fn agrees_with_lines_and_parse_line() {
        let input: &[u8] =
            b"0 HEAD\r\n\r\n  1 CHAR UTF-8 \n2 @X1@ NOTE  a \t\r1 BIRT \n1 NOTE  \t\nbad\n\n1\n0 @x INDI\n\
              1 2 X\n1 NA-ME x\n1 NAME\tx\n1 _A\n\r1 B\n12 DEEP\n01 X\n1 NAME\xc3\xa9\n1 X \n1 Y\t\r\n0 TRLR";
        let scanned = all(input);
        let lines: Vec<_> = super::super::Lines::new(input).collect();
        assert_eq!(scanned.len(), lines.len());
        for (s, l) in scanned.iter().zip(&lines) {
            assert_eq!((s.number, s.start, s.end), (l.number, l.start, l.end()));
            let parsed = super::super::parse_line(l.text);
            match parsed {
                Ok(p) => {
                    assert_eq!(s.error, None);
                    assert_eq!(s.level, p.level);
                    assert_eq!(&input[s.tag_start..s.tag_end], p.tag);
                    let xref = s.has_xref().then(|| &input[s.xref_start..s.xref_end]);
                    assert_eq!(xref, p.xref);
                    assert_eq!(s.payload().map(|(a, b)| &input[a..b]), p.payload);
                    assert_eq!(
                        s.payload_untrimmed().map(|(a, b)| &input[a..b]),
                        p.payload_untrimmed
                    );
                }
                Err(e) => assert_eq!(s.error, Some(e)),
            }
        }
    }

    #[test]
    fn agrees_with_lines_and_parse_line_on_random_input() {
        // Inputs over an alphabet rich in the grammar's delimiters.
        for input in random_inputs(b"0123 \t\n\r@AZ_x:!-\xc3", 0x2545_f491_4f6c_dd1d, 40) {
            let scanned = all(&input);
            let lines: Vec<_> = super::super::Lines::new(&input).collect();
            assert_eq!(scanned.len(), lines.len(), "{input:?}");
            for (s, l) in scanned.iter().zip(&lines) {
                assert_eq!((s.number, s.start, s.end), (l.number, l.start, l.end()));
                match super::super::parse_line(l.text) {
                    Ok(p) => {
                        assert_eq!((s.error, s.level), (None, p.level), "{input:?}");
                        assert_eq!(s.kind, TagKind::of(p.tag));
                        assert_eq!(&input[s.tag_start..s.tag_end], p.tag);
                        assert_eq!(s.payload().map(|(a, b)| &input[a..b]), p.payload);
                        assert_eq!(
                            s.payload_untrimmed().map(|(a, b)| &input[a..b]),
                            p.payload_untrimmed
                        );
                    }
                    Err(e) => assert_eq!(s.error, Some(e), "{input:?}"),
                }
            }
        }
    }

    #[test]
    fn line_numbers_count_blank_lines() {
        let numbers: Vec<u64> = all(b"a\n\r\nb\r\rc").iter().map(|s| s.number).collect();
        assert_eq!(numbers, [1, 3, 5]);
    }
}
