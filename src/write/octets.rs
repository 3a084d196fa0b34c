//! Octet-level helpers of the writer: the checks and copies of its fast path (eight
//! octets at a time, fixed-size moves) and the grammar of tags, xrefs and pointers.

use unicode_normalization::char::canonical_combining_class;

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
pub(super) const C_AT_BREAK: u8 = 1;
/// `:` and `!`, which an xref id may not hold (a pointer may).
pub(super) const C_XREF_ONLY: u8 = 2;
/// A non-ASCII octet.
pub(super) const C_HIGH: u8 = 4;
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
/// U+0020 (with `CONTROL`: LF and CR; a tab or another control character only costs
/// the general path), or has a bit of `high` set.
#[inline(always)]
fn special_octets<const AT: bool, const CONTROL: bool>(w: u64, high: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // The classic "has an octet less than n" test, for n = 0x01 (after the xor) and
    // n = 0x20: exact as a whole, for octets below 0x80 (`!w` masks the others out).
    let control = if CONTROL {
        w.wrapping_sub(LO * 0x20) & !w
    } else {
        0
    };
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
pub(super) fn scan_special(b: &[u8], high: u64) -> u64 {
    scan_octets::<true, true>(b, high)
}

/// [`scan_special`] without the `@` test: control characters and `high` only.
#[inline(always)]
pub(super) fn scan_control(b: &[u8], high: u64) -> u64 {
    scan_octets::<false, true>(b, high)
}

/// [`scan_special`] (`AT` and `CONTROL`), [`scan_control`] (`CONTROL`) or [`scan_high`].
#[inline(always)]
fn scan_octets<const AT: bool, const CONTROL: bool>(b: &[u8], high: u64) -> u64 {
    let n = b.len();
    if n >= 8 {
        let mut hit = 0u64;
        let mut i = 0;
        while i + 8 < n {
            hit |= special_octets::<AT, CONTROL>(word8(&b[i..i + 8]), high);
            i += 8;
        }
        // The last eight octets, overlapping the words already seen.
        hit | special_octets::<AT, CONTROL>(word8(&b[n - 8..]), high)
    } else if n >= 4 {
        special_octets::<AT, CONTROL>(word4(&b[..4]) | (word4(&b[n - 4..]) << 32), high)
    } else if n > 0 {
        // Every octet of the word is one of `b`'s.
        let w = u32::from_le_bytes([b[0], b[n / 2], b[n - 1], b[0]]);
        special_octets::<AT, CONTROL>(u64::from(w) | (u64::from(w) << 32), high)
    } else {
        0
    }
}

/// `true` when `b` holds no `@`, LF or CR (nor another control character).
#[inline]
pub(super) fn plain(b: &[u8]) -> bool {
    scan_special(b, 0) == 0
}

/// `true` when `text` is not empty and cannot end in whitespace in any encoding: its
/// last character is neither a space or tab nor a combining mark (which ANSEL writes
/// before its base, so that a space could come last).
#[inline(always)]
pub(super) fn plain_end(text: &str) -> bool {
    match text.as_bytes().last() {
        Some(&last) if last < 0x80 => last != b' ' && last != b'\t',
        Some(_) => plain_end_non_ascii(text),
        None => false,
    }
}

/// [`plain_end`] for valid UTF-8 octets: decodes the last character only.
#[inline]
pub(super) fn plain_end_utf8(b: &[u8]) -> bool {
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
pub(super) fn copy_short(d: &mut [u8], s: &[u8]) {
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
/// previous level, seed §4.4) as it was: one tagged `CONT`, `CONC` or `ERROR`, or in
/// GEDCOM 7 (`gedcom7`) `CONT` or `ERROR`: 7.0 reads a `CONC` as a structure of its
/// own. A line after one may be deeper than it by more than one level.
pub(crate) fn keeps_previous_level(tag: &str, gedcom7: bool) -> bool {
    tag == "ERROR" || continues_payload(tag, gedcom7)
}

/// `true` for a tag a reader takes for a further line of its
/// superstructure's payload when it stands first under it: `CONT`, and in
/// 5.5.1 `CONC` (GEDCOM 7 (`gedcom7`) reads a `CONC` as a structure of its
/// own, which sets the level).
pub(crate) fn continues_payload(tag: &str, gedcom7: bool) -> bool {
    tag == "CONT" || (tag == "CONC" && !gedcom7)
}

/// `true` for a tag the fast path may write: `[0-9A-Za-z_]+`, and none that a rule
/// treats specially (`HEAD` and `CHAR` in any case, `CONT`, `CONC`, `ERROR`; a few
/// other tags are sent to the slow path too, which is only slower).
#[inline(always)]
pub(super) fn fast_tag(t: &[u8]) -> bool {
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

/// `true` for a tag that [`Writer::begin_raw`](crate::write::Writer::begin_raw) may take: one the fast path writes.
pub(crate) fn raw_tag_ok(t: &[u8]) -> bool {
    fast_tag(t)
}

/// Non-zero when `b` holds a non-ASCII octet (eight at a time, as [`scan_special`]).
#[inline(always)]
pub(super) fn scan_high(b: &[u8]) -> u64 {
    scan_octets::<false, false>(b, 0x8080_8080_8080_8080)
}

/// `true` when `x` matches `Pointer` or (`bad` including [`C_XREF_ONLY`]) `XRefID`, holds
/// no line break, and no octet of a class in `bad`.
#[inline(always)]
pub(super) fn fast_id(x: &[u8], bad: u8) -> bool {
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

pub(super) fn is_continuation(tag: &str) -> bool {
    tag == "CONT" || tag == "CONC"
}

/// `true` when `tag` matches `[0-9A-Za-z_]+`.
#[inline]
pub(super) fn valid_tag(tag: &str) -> bool {
    crate::scan::is_tag(tag.as_bytes())
}

/// `true` when `x` matches `Pointer` (`"@" [a-zA-Z0-9_] [^@]* "@"`) or, with `xref`,
/// `XRefID` (`"@" [a-zA-Z0-9_] [^@:!]* "@"`), and holds no line break.
#[inline]
pub(super) fn xref_grammar(x: &[u8], xref: bool) -> bool {
    fast_id(x, C_AT_BREAK | if xref { C_XREF_ONLY } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{is_pointer, is_valid_xref};

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
