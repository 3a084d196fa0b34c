//! Payload text to line payloads: `@` escaping (seed §5), unrepresentable characters
//! (§5.3), line breaks (CONT) and CONC split points (§4.5).

use memchr::{memchr, memchr2, memchr3};
use unicode_normalization::char::canonical_combining_class;

use crate::encoding::{Encoder, Encoding};
use crate::escape::EscapeSet;

/// The segments of `text` between line breaks (LF, CRLF, CR). Always at least one.
pub(super) struct Segments<'t> {
    rest: Option<&'t str>,
    cr: bool,
}

impl<'t> Segments<'t> {
    /// Segments split at LF, CRLF and CR, or (`cr` false) at LF only.
    pub(super) fn new(text: &'t str, cr: bool) -> Self {
        Segments {
            rest: Some(text),
            cr,
        }
    }
}

impl<'t> Iterator for Segments<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let rest = self.rest?;
        let b = rest.as_bytes();
        let found = if self.cr {
            memchr2(b'\n', b'\r', b)
        } else {
            memchr(b'\n', b)
        };
        match found {
            None => {
                self.rest = None;
                Some(rest)
            }
            Some(i) => {
                let next = if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                self.rest = Some(&rest[next..]);
                Some(&rest[..i])
            }
        }
    }
}

/// The end of a preserved escape `"@#" T [^\n\r@]* "@ "` starting at `at`, when its type
/// `T` is in `preserve` (never `U`: unicode escapes are always decoded by readers) and it
/// can be written verbatim in the output encoding.
fn preserved_escape_end(seg: &str, at: usize, preserve: EscapeSet, enc: &Encoder) -> Option<usize> {
    let b = seg.as_bytes();
    if preserve.is_empty() || b.get(at + 1) != Some(&b'#') {
        return None;
    }
    let t = *b.get(at + 2)?;
    if t == b'U' || !preserve.contains(t) {
        return None;
    }
    let body = at + 3;
    let close = body + memchr3(b'@', b'\n', b'\r', &b[body..])?;
    if b[close] != b'@' || b.get(close + 1) != Some(&b' ') {
        return None;
    }
    let end = close + 2;
    enc.can_encode_verbatim(&seg[at..end]).then_some(end)
}

/// Appends the line-payload form of `seg` (one segment, no line breaks) to `out`: each
/// `@` doubled unless it belongs to an escape `preserve` keeps; each character `enc`
/// cannot hold replaced by a unicode escape. Both happen in one pass, so neither is
/// applied to the other's `@` signs (seed §2.3 step 3).
pub(super) fn prepare(seg: &str, preserve: EscapeSet, enc: &Encoder, out: &mut String) {
    let b = seg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some(k) = memchr2(b'@', b'\r', &b[i..]) else {
            enc.push_representable(&seg[i..], out);
            return;
        };
        let at = i + k;
        if at > i {
            enc.push_representable(&seg[i..at], out);
        }
        if b[at] == b'\r' {
            // A carriage return that is not a line break: no line may hold one.
            out.push_str("@#UD@ ");
            i = at + 1;
            continue;
        }
        match preserved_escape_end(seg, at, preserve, enc) {
            Some(end) => {
                out.push_str(&seg[at..end]);
                i = end;
            }
            None => {
                out.push_str("@@");
                i = at + 1;
            }
        }
    }
}

/// GEDCOM 7's form of `seg` (one segment, no line breaks): a leading `@` doubled
/// (the `@` rule's one home: [`escape_leading_at_line`](crate::escape::escape_leading_at_line)).
pub(super) fn prepare7(seg: &str, out: &mut String) {
    crate::escape::escape_leading_at_line(seg, out);
}

/// The payloads of the lines [`Writer`](super::Writer) writes a text on, without `CONC`
/// splits: one per line of `text` (each LF starts a `CONT` line; a CR is a character), with
/// the writer's `@` rule (seed §5): every `@` doubled except those of an escape whose type
/// `preserve` holds (never `U`), a CR written `@#UD@ `, and each character `encoding` lacks
/// written as a unicode escape. For callers that lay out lines of their own.
///
/// ```
/// use gedcom_elf::write::payload_lines;
/// use gedcom_elf::{Encoding, EscapeSet};
///
/// let date = EscapeSet::from_types(b"D");
/// let lines: Vec<String> =
///     payload_lines("@#DJULIAN@ 1540\nada@example.org", date, Encoding::Utf8).collect();
/// assert_eq!(lines, ["@#DJULIAN@ 1540", "ada@@example.org"]);
/// ```
pub fn payload_lines(
    text: &str,
    preserve: EscapeSet,
    encoding: Encoding,
) -> impl Iterator<Item = String> + '_ {
    let enc = Encoder::new(encoding);
    Segments::new(text, false).map(move |seg| {
        let mut out = String::with_capacity(seg.len());
        prepare(seg, preserve, &enc, &mut out);
        out
    })
}

/// [`payload_lines`] by the `@` rule of `version`: for GEDCOM 7, only a
/// line's leading `@` doubled and nothing else changed (7.0 has no escapes,
/// and its text is UTF-8: `encoding` and `preserve` are not used).
///
/// ```
/// use gedcom_elf::write::payload_lines_as;
/// use gedcom_elf::{Encoding, EscapeSet, Version};
///
/// let lines: Vec<String> =
///     payload_lines_as("@home\nme@home", EscapeSet::NONE, Encoding::Utf8, Version::Gedcom7)
///         .collect();
/// assert_eq!(lines, ["@@home", "me@home"]);
/// ```
pub fn payload_lines_as(
    text: &str,
    preserve: EscapeSet,
    encoding: Encoding,
    version: crate::version::Version,
) -> Box<dyn Iterator<Item = String> + '_> {
    if version.is_gedcom7() {
        Box::new(Segments::new(text, false).map(|seg| {
            let mut out = String::with_capacity(seg.len() + 1);
            prepare7(seg, &mut out);
            out
        }))
    } else {
        Box::new(payload_lines(text, preserve, encoding))
    }
}

/// `true` for the whitespace of the line grammar (space and tab).
#[inline]
fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The end of the split unit that starts at `i` in a prepared payload: an `@@` pair, a
/// whole escape (`@#...@ `), or a character with the combining marks that follow it.
fn unit_end(p: &str, i: usize) -> usize {
    let b = p.as_bytes();
    let mut j = match b[i] {
        b'@' => {
            return match b.get(i + 1) {
                Some(b'@') => i + 2,
                Some(b'#') => match memchr(b'@', &b[i + 2..]) {
                    Some(k) => {
                        let close = i + 2 + k;
                        if b.get(close + 1) == Some(&b' ') {
                            close + 2
                        } else {
                            close + 1
                        }
                    }
                    None => b.len(),
                },
                _ => i + 1,
            }
        }
        c if c < 0x80 => i + 1,
        _ => i + p[i..].chars().next().map_or(1, char::len_utf8),
    };
    while j < b.len() && b[j] >= 0x80 {
        match p[j..].chars().next() {
            Some(c) if canonical_combining_class(c) != 0 => j += c.len_utf8(),
            _ => break,
        }
    }
    j
}

/// Splits a prepared payload `p` into line payloads: the first at most `first_budget`
/// octets, the others at most `conc_budget` (widths as `enc` writes them). Splits fall
/// between units only (never inside a UTF-8 sequence, a combining sequence, an `@@` pair or
/// an escape), and next to whitespace only when the line offers no other split point. A
/// unit wider than the budget gets a line of its own. Calls `emit` with the range of each
/// line payload.
pub(super) fn split(
    p: &str,
    enc: &Encoder,
    first_budget: usize,
    conc_budget: usize,
    emit: impl FnMut(usize, usize),
) {
    // Output octets are input octets (UTF-8, or ASCII, which `prepare` left ASCII).
    let octet_widths = matches!(enc.encoding(), Encoding::Utf8 | Encoding::Ascii);
    split_with(p, enc, first_budget, conc_budget, octet_widths, emit);
}

/// [`split`]; `octet_widths`: each octet of `p` is one octet of output, which allows
/// a faster search for split points in windows without `@` (the tests compare the two).
fn split_with(
    p: &str,
    enc: &Encoder,
    first_budget: usize,
    conc_budget: usize,
    octet_widths: bool,
    mut emit: impl FnMut(usize, usize),
) {
    let b = p.as_bytes();
    let mut start = 0;
    let mut budget = first_budget;
    loop {
        // Fast path: the rest fits.
        let rest = &p[start..];
        // (Every encoding takes at least one octet per four UTF-8 octets.)
        if rest.len() <= budget.saturating_mul(4) && enc.width(rest) <= budget {
            emit(start, b.len());
            return;
        }
        let limit = start + budget;
        // The last good split point within the budget (not next to whitespace), else
        // the last split point; `None` when the rest fits after all.
        let (good, any) =
            if octet_widths && limit < b.len() && memchr(b'@', &b[start..=limit]).is_none() {
                last_split_points(p, start, limit)
                    .unwrap_or_else(|| octet_split_points(p, start, limit))
            } else {
                match unit_split_points(p, enc, start, budget) {
                    Some(points) => points,
                    None => {
                        emit(start, b.len());
                        return;
                    }
                }
            };
        let cut = good.or(any).unwrap_or_else(|| unit_end(p, start));
        emit(start, cut);
        if cut >= b.len() {
            return;
        }
        start = cut;
        budget = conc_budget;
    }
}

/// [`octet_split_points`] found from `limit` backwards, which usually stops after a
/// few octets; `None` when a split point follows a non-ASCII character before a good
/// one is found (whether that character's unit begins with whitespace takes the
/// forward walk).
fn last_split_points(
    p: &str,
    start: usize,
    limit: usize,
) -> Option<(Option<usize>, Option<usize>)> {
    let b = p.as_bytes();
    let mut any = None;
    for k in (start + 1..=limit).rev() {
        let c = b[k];
        if unit_starts_at(p, k) {
            any = any.or(Some(k));
            // An ASCII octet before `k` is a unit of its own.
            let before = b[k - 1];
            if before >= 0x80 {
                return None;
            }
            if !is_ws(before) && !is_ws(c) {
                return Some((Some(k), any));
            }
        }
    }
    Some((None, any))
}

/// `true` when a unit of `p` (a character with its combining marks) starts at octet
/// `k`, in a window without `@`.
#[inline]
fn unit_starts_at(p: &str, k: usize) -> bool {
    match p.as_bytes()[k] {
        0..=0x7F => true,
        0x80..=0xBF => false,
        _ => p[k..]
            .chars()
            .next()
            .is_some_and(|ch| canonical_combining_class(ch) == 0),
    }
}

/// The split points of `p` after `start` up to `limit` for [`split_with`], in a window
/// of characters only (no `@@` pair or escape) one octet of width per octet: units told
/// apart octet by octet.
fn octet_split_points(p: &str, start: usize, limit: usize) -> (Option<usize>, Option<usize>) {
    let b = p.as_bytes();
    let (mut prev, mut good, mut any) = (start, None, None);
    for k in start + 1..=limit {
        let c = b[k];
        if unit_starts_at(p, k) {
            any = Some(k);
            if !(is_ws(b[prev]) || is_ws(b[k - 1]) || is_ws(c)) {
                good = Some(k);
            }
            prev = k;
        }
    }
    (good, any)
}

/// The split points of `p` after `start` within `budget` for [`split_with`], unit by
/// unit; `None` when the rest of `p` fits.
fn unit_split_points(
    p: &str,
    enc: &Encoder,
    start: usize,
    budget: usize,
) -> Option<(Option<usize>, Option<usize>)> {
    let b = p.as_bytes();
    let mut i = start;
    let mut w = 0;
    let mut good = None;
    let mut any = None;
    while i < b.len() {
        let j = unit_end(p, i);
        let uw = enc.width(&p[i..j]);
        if w + uw > budget {
            break;
        }
        w += uw;
        // A unit ending in whitespace (an escape), starting with it (a space carrying
        // combining marks, which ANSEL writes after them), or followed by it.
        let ws_unit = is_ws(b[i]) || is_ws(b[j - 1]);
        i = j;
        if i < b.len() {
            any = Some(i);
            if !ws_unit && !is_ws(b[i]) {
                good = Some(i);
            }
        }
    }
    (i < b.len()).then_some((good, any))
}

/// `true` when a line ending with `chunk` would end in whitespace in some encoding: its
/// last character is a space or tab, or is one followed only by combining marks (which
/// ANSEL writes before it).
pub(super) fn ends_in_whitespace(chunk: &str) -> bool {
    for c in chunk.chars().rev() {
        if c.is_ascii() || canonical_combining_class(c) == 0 {
            return c == ' ' || c == '\t';
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encoding;

    fn prep(s: &str, preserve: &[u8], e: Encoding) -> String {
        let mut out = String::new();
        prepare(
            s,
            EscapeSet::from_types(preserve),
            &Encoder::new(e),
            &mut out,
        );
        out
    }

    fn lines(p: &str, first: usize, conc: usize) -> Vec<String> {
        let mut v = Vec::new();
        split(p, &Encoder::new(Encoding::Utf8), first, conc, |a, b| {
            v.push(p[a..b].to_string())
        });
        v
    }

    #[test]
    fn segments() {
        let v: Vec<_> = Segments::new("a\nb\r\nc\rd", true).collect();
        assert_eq!(v, ["a", "b", "c", "d"]);
        let v: Vec<_> = Segments::new("a\r\nb", false).collect();
        assert_eq!(v, ["a\r", "b"]);
        let v: Vec<_> = Segments::new("", true).collect();
        assert_eq!(v, [""]);
        let v: Vec<_> = Segments::new("\n", true).collect();
        assert_eq!(v, ["", ""]);
        let v: Vec<_> = Segments::new("\n\r", true).collect();
        assert_eq!(v, ["", "", ""]);
    }

    #[test]
    fn at_signs() {
        let u = Encoding::Utf8;
        assert_eq!(prep("name@example.com", b"", u), "name@@example.com");
        assert_eq!(prep("ABT @#DJULIAN@ 1540", b"D", u), "ABT @#DJULIAN@ 1540");
        assert_eq!(prep("ABT @#DJULIAN@ 1540", b"", u), "ABT @@#DJULIAN@@ 1540");
        // The seed's subtlety: the decoded form of `@@#Dx@@ yz` is an escape in a DATE.
        assert_eq!(prep("@#Dx@ yz", b"D", u), "@#Dx@ yz");
        assert_eq!(prep("@@#Dx@ yz", b"D", u), "@@@#Dx@ yz");
        assert_eq!(prep("@#DA@#DB@ ", b"D", u), "@@#DA@#DB@ ");
        assert_eq!(prep("@#DX@", b"D", u), "@@#DX@@");
        // Unicode escapes are never preserved.
        assert_eq!(prep("@#UE9@ ", b"DU", u), "@@#UE9@@ ");
        // Escapes and unicode escapes do not touch each other's @ signs.
        assert_eq!(prep("é@x", b"", Encoding::Ascii), "@#UE9@ @@x");
        // A carriage return left in a segment is escaped.
        assert_eq!(prep("a\rb", b"", u), "a@#UD@ b");
        // A preserved escape the output encoding cannot hold is doubled instead.
        assert_eq!(
            prep("@#DJULIÅN@ 1", b"D", Encoding::Ascii),
            "@@#DJULI@#UC5@ N@@ 1"
        );
    }

    #[test]
    fn payload_lines_are_the_prepared_segments_at_lf() {
        let d = EscapeSet::from_types(b"D");
        let lines = |t: &str, e| payload_lines(t, d, e).collect::<Vec<_>>();
        assert_eq!(lines("", Encoding::Utf8), [""]);
        assert_eq!(
            lines("a@b\n\n@#DX@ c\rd", Encoding::Utf8),
            ["a@@b", "", "@#DX@ c@#UD@ d"]
        );
        assert_eq!(lines("é@", Encoding::Ascii), ["@#UE9@ @@"]);
    }

    #[test]
    fn whitespace_ends() {
        assert!(ends_in_whitespace("a "));
        assert!(ends_in_whitespace("a \u{301}"));
        assert!(ends_in_whitespace("@#U301@ "));
        assert!(!ends_in_whitespace("a\u{301}"));
        assert!(!ends_in_whitespace(""));
    }

    #[test]
    fn units() {
        let p = "a@@b@#DX@ ce\u{301}\u{302}z";
        let mut i = 0;
        let mut v = Vec::new();
        while i < p.len() {
            let j = unit_end(p, i);
            v.push(&p[i..j]);
            i = j;
        }
        assert_eq!(v, ["a", "@@", "b", "@#DX@ ", "c", "e\u{301}\u{302}", "z"]);
    }

    #[test]
    fn split_prefers_non_space_points() {
        assert_eq!(lines("abcdef", 10, 10), ["abcdef"]);
        assert_eq!(lines("abcdef", 4, 4), ["abcd", "ef"]);
        // "ab cd": the split at 3 or 2 would touch the space; 1 does not.
        assert_eq!(lines("ab cdef", 3, 10), ["a", "b cdef"]);
        // Only spaces: split inside them.
        assert_eq!(lines("      ", 4, 4), ["    ", "  "]);
        // Never inside @@ or an escape.
        assert_eq!(lines("a@@b", 2, 10), ["a", "@@b"]);
        assert_eq!(lines("@#DJULIAN@ x", 4, 20), ["@#DJULIAN@ ", "x"]);
        // Never inside a UTF-8 sequence or between a base and its marks.
        assert_eq!(lines("aé", 2, 10), ["a", "é"]);
        assert_eq!(lines("ae\u{301}b", 3, 10), ["a", "e\u{301}b"]);
        // Zero budgets still make progress.
        assert_eq!(lines("abc", 0, 0), ["a", "b", "c"]);
    }

    #[test]
    fn the_octet_search_for_split_points_agrees_with_the_unit_walk() {
        // Characters that matter to splitting: spaces, tabs, letters of 1 to 4
        // octets, combining marks (after letters and after spaces), `@` units.
        let pieces = [
            "a",
            "b",
            " ",
            "\t",
            "\u{e9}",
            "e\u{301}",
            " \u{301}",
            "\u{4e2d}",
            "\u{1F600}",
            "\u{5d0}\u{5b8}",
            "x\u{301}\u{302}",
            "@@",
            "@#DJULIAN@ ",
        ];
        let enc = Encoder::new(Encoding::Utf8);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let len = next(60);
            let at_signs = next(4) == 0;
            let mut p = String::new();
            for _ in 0..len {
                let k = next(pieces.len() - if at_signs { 0 } else { 2 });
                p.push_str(pieces[k]);
            }
            let (first, conc) = (next(30), next(30));
            let mut fast = Vec::new();
            split_with(&p, &enc, first, conc, true, |a, b| fast.push((a, b)));
            let mut slow = Vec::new();
            split_with(&p, &enc, first, conc, false, |a, b| slow.push((a, b)));
            assert_eq!(fast, slow, "{p:?} first {first} conc {conc}");
        }
    }
}
