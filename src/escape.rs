//! `@` handling in payloads (seed §5): `@@`, escapes, unicode escapes, and
//! the escape-preservation part of the schema (§6.2).

use std::borrow::Cow;

use crate::diag::DiagnosticKind;

/// A set of escape types (`A`-`Z`): the escapes a tag preserves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EscapeSet(u32);

impl EscapeSet {
    /// The empty set: every escape is removed.
    pub const NONE: EscapeSet = EscapeSet(0);

    /// The set of the uppercase ASCII letters in `types`; other bytes are ignored.
    pub fn from_types(types: &[u8]) -> Self {
        let mut s = EscapeSet::NONE;
        for &t in types {
            s.insert(t);
        }
        s
    }

    /// Adds escape type `t` (ignored unless `A`-`Z`).
    pub fn insert(&mut self, t: u8) {
        if t.is_ascii_uppercase() {
            self.0 |= 1 << (t - b'A');
        }
    }

    /// `true` when escapes of type `t` are preserved.
    #[inline]
    pub fn contains(self, t: u8) -> bool {
        t.is_ascii_uppercase() && self.0 & (1 << (t - b'A')) != 0
    }

    /// The escape types in both sets.
    #[must_use]
    pub fn intersection(self, other: EscapeSet) -> EscapeSet {
        EscapeSet(self.0 & other.0)
    }

    /// `true` when no escape type is preserved.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Which tags preserve which escape types (the `ESC` lines of a schema).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EscapeTable {
    entries: Vec<(Box<[u8]>, EscapeSet)>,
}

impl Default for EscapeTable {
    /// The default schema's table: `DATE` preserves `D` (seed §6.2, Appendix A).
    fn default() -> Self {
        let mut t = EscapeTable::empty();
        t.add(b"DATE", EscapeSet::from_types(b"D"));
        t
    }
}

impl EscapeTable {
    /// No escape-preserving tags (a schema without `ESC` lines).
    pub fn empty() -> Self {
        EscapeTable {
            entries: Vec::new(),
        }
    }

    /// Adds (merges) the escape types `set` for `tag`.
    pub fn add(&mut self, tag: &[u8], set: EscapeSet) {
        match self.entries.iter_mut().find(|(t, _)| &t[..] == tag) {
            Some((_, s)) => s.0 |= set.0,
            None => self.entries.push((tag.into(), set)),
        }
    }

    /// Adds the payload of an `ESC` line: `TAG TYPES`, whitespace separated.
    /// Returns `false` (and adds nothing) when it is not of that shape.
    pub fn add_esc_payload(&mut self, payload: &[u8]) -> bool {
        let mut tokens = payload
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|t| !t.is_empty());
        match (tokens.next(), tokens.next(), tokens.next()) {
            (Some(tag), Some(types), None) => {
                self.add(tag, EscapeSet::from_types(types));
                true
            }
            _ => false,
        }
    }

    /// The escape types `tag` preserves.
    #[inline]
    pub fn lookup(&self, tag: &[u8]) -> EscapeSet {
        for (t, s) in &self.entries {
            // Length first: most tags differ in length, and short equal-length
            // compares stay inline.
            if t.len() == tag.len() && t.iter().zip(tag).all(|(a, b)| a == b) {
                return *s;
            }
        }
        EscapeSet::NONE
    }

    /// `(tag, set)` pairs in the order they were first defined.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], EscapeSet)> {
        self.entries.iter().map(|(t, s)| (&t[..], *s))
    }
}

/// The code point of a unicode escape's hex digits, if they name a character.
fn unicode_escape_char(hex: &[u8]) -> Option<char> {
    if hex.is_empty() || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut v: u32 = 0;
    for &h in hex {
        let d = (h as char).to_digit(16)?;
        v = v.checked_mul(16)?.checked_add(d)?;
    }
    if v == 0 {
        return None;
    }
    char::from_u32(v)
}

/// Decodes the `@`s of an (already joined, already character-decoded)
/// payload in one left-to-right pass, earliest match first (seed §5):
///
/// * `@@` becomes `@`;
/// * an escape `"@#" [A-Z] [^\r\n@]* "@ "` is kept verbatim when its type is
///   in `preserve`, a unicode escape (`@#U<hex>@ `) becomes its character,
///   and any other escape is removed (with its trailing space);
/// * any other `@` is kept.
///
/// A unicode escape that names no character is kept verbatim and reported
/// as [`DiagnosticKind::InvalidUnicodeEscape`]. Allocates only when
/// something changes.
pub fn unescape<'a>(
    text: Cow<'a, str>,
    preserve: EscapeSet,
    report: &mut dyn FnMut(DiagnosticKind),
) -> Cow<'a, str> {
    let b = text.as_bytes();
    let Some(first) = memchr::memchr(b'@', b) else {
        return text;
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut p = first;
    while p < b.len() {
        // `b[p]` is an '@'.
        let next = b.get(p + 1).copied();
        let mut replace: Option<(usize, Option<char>)> = None; // (end, replacement)
        if next == Some(b'@') {
            replace = Some((p + 2, Some('@')));
        } else if next == Some(b'#') && b.get(p + 2).is_some_and(u8::is_ascii_uppercase) {
            let ty = b[p + 2];
            let body = p + 3;
            if let Some(k) = memchr::memchr3(b'@', b'\n', b'\r', &b[body..]) {
                let at = body + k;
                if b[at] == b'@' && b.get(at + 1) == Some(&b' ') {
                    let end = at + 2;
                    if ty == b'U' {
                        match unicode_escape_char(&b[body..at]) {
                            Some(c) => replace = Some((end, Some(c))),
                            None => report(DiagnosticKind::InvalidUnicodeEscape),
                        }
                    } else if !preserve.contains(ty) {
                        replace = Some((end, None));
                    }
                    if replace.is_none() {
                        // Kept verbatim: skip the whole escape.
                        p = match memchr::memchr(b'@', &b[end..]) {
                            Some(k) => end + k,
                            None => b.len(),
                        };
                        continue;
                    }
                }
            }
        }
        match replace {
            Some((end, c)) => {
                let o = out.get_or_insert_with(|| String::with_capacity(b.len()));
                o.push_str(&text[copied..p]);
                if let Some(c) = c {
                    o.push(c);
                }
                copied = end;
                p = end;
            }
            None => p += 1,
        }
        p = match memchr::memchr(b'@', &b[p.min(b.len())..]) {
            Some(k) => p + k,
            None => b.len(),
        };
    }
    match out {
        None => text,
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// Writes `s` as a JSON string (RFC 8259): `"` and `\` escaped, control
/// characters as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00xx`, everything else
/// as it is (UTF-8). The one JSON escaping of the crate and its tool (the
/// `json`, `events`, `check` output and the GEDCOM X export).
///
/// ```
/// let mut out = Vec::new();
/// gedcom_elf::escape::json_string(&mut out, "a \"b\"\n\u{1}é")?;
/// assert_eq!(String::from_utf8(out).unwrap(), r#""a \"b\"\n\u0001é""#);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn json_string<W: std::io::Write + ?Sized>(out: &mut W, s: &str) -> std::io::Result<()> {
    let bytes = s.as_bytes();
    // Most strings are short and need no escape: written in one piece.
    if bytes.len() <= 62 && json_plain(bytes) {
        let mut buf = [b'"'; 64];
        buf[1..=bytes.len()].copy_from_slice(bytes);
        return out.write_all(&buf[..bytes.len() + 2]);
    }
    out.write_all(b"\"")?;
    json_escaped(out, bytes)?;
    out.write_all(b"\"")
}

/// `bytes` (UTF-8) escaped as the inside of a JSON string: [`json_string`]
/// less its quotes.
#[inline]
fn json_escaped<W: std::io::Write + ?Sized>(out: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time past the ones that need no escape (most).
        if let Some(w) = bytes.get(i..i + 8) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            if !json_special(w) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => {
                i += 1;
                continue;
            }
        };
        out.write_all(&bytes[start..i])?;
        if esc.is_empty() {
            write!(out, "\\u{b:04x}")?;
        } else {
            out.write_all(esc)?;
        }
        i += 1;
        start = i;
    }
    out.write_all(&bytes[start..])
}

/// Whether no byte of `bytes` needs an escape in a JSON string (see
/// [`json_special`]), eight at a time.
#[inline]
pub(crate) fn json_plain(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        if json_special(u64::from_le_bytes(c.try_into().unwrap_or_default())) {
            return false;
        }
    }
    let mut last = [b' '; 8];
    let rest = chunks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    !json_special(u64::from_le_bytes(last))
}

/// Appends `bytes` to `out` when no byte needs an escape in a JSON string,
/// checked eight at a time as they are copied (one pass, no call to copy
/// a short string); `false`, and `out` as it was, otherwise. Inlined in
/// its callers, the escapes' hot path.
#[inline(always)]
pub(crate) fn push_json_plain(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    let start = out.len();
    out.reserve(bytes.len());
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let eight: [u8; 8] = c.try_into().unwrap_or_default();
        if json_special(u64::from_le_bytes(eight)) {
            out.truncate(start);
            return false;
        }
        out.extend_from_slice(&eight);
    }
    let rest = chunks.remainder();
    if let (Some(last), false) = (bytes.len().checked_sub(8), rest.is_empty()) {
        // The last eight again, over the ones just copied.
        let eight: [u8; 8] = bytes[last..].try_into().unwrap_or_default();
        if json_special(u64::from_le_bytes(eight)) {
            out.truncate(start);
            return false;
        }
        out.truncate(out.len() - (8 - rest.len()));
        out.extend_from_slice(&eight);
        return true;
    }
    let n = bytes.len();
    if n >= 4 {
        // Four to seven: the first four and the last four, overlapping.
        let first: [u8; 4] = bytes[..4].try_into().unwrap_or_default();
        let last: [u8; 4] = bytes[n - 4..].try_into().unwrap_or_default();
        let both = u64::from(u32::from_le_bytes(first)) | u64::from(u32::from_le_bytes(last)) << 32;
        if json_special(both) {
            return false;
        }
        out.extend_from_slice(&first);
        out.truncate(start + n - 4);
        out.extend_from_slice(&last);
        return true;
    }
    for &b in rest {
        if b < 0x20 || b == b'"' || b == b'\\' {
            out.truncate(start);
            return false;
        }
        out.push(b);
    }
    true
}

/// [`json_string`] into a `Vec`: a string with no byte to escape (most)
/// is copied as it is checked ([`push_json_plain`]). Out of line, the
/// check inlined in it: one call a string.
#[inline(never)]
pub(crate) fn json_string_into(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    json_content_into(out, s);
    out.push(b'"');
}

/// `s` escaped as the inside of a JSON string (its quotes left out), at
/// the end of `out`: a piece of a string written in pieces, or
/// [`json_string_into`]'s inside.
#[inline]
pub(crate) fn json_content_into(out: &mut Vec<u8>, s: &str) {
    if !push_json_plain(out, s.as_bytes()) {
        json_escaped_into(out, s.as_bytes());
    }
}

/// [`json_escaped`] into a `Vec`, out of line: few strings need it.
#[cold]
#[inline(never)]
fn json_escaped_into(out: &mut Vec<u8>, bytes: &[u8]) {
    // Writing to a Vec cannot fail.
    let _ = json_escaped(out, bytes);
}

/// Whether one of the eight bytes of `w` needs an escape in a JSON string:
/// below 0x20, `"` or `\\`. Exact for "any": a borrow runs only upwards
/// from a byte that is flagged itself.
#[inline(always)]
fn json_special(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    (control | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')))) != 0
}

/// GEDCOM 7's only `@` rule, on an (already joined, already decoded)
/// payload: a line (the payload's start, or after a line feed: a `CONT`
/// line) that begins with `@@` begins with one `@` instead. Every other `@`
/// is kept, `@@` in mid-line stays two, and `@#...@` is text (7.0 has no
/// escapes). Borrows when it can (a single line's leading `@` is sliced
/// off).
pub fn unescape_leading_at(text: Cow<'_, str>) -> Cow<'_, str> {
    let b = text.as_bytes();
    let leading = b.starts_with(b"@@");
    let inner = memchr::memmem::find(b, b"\n@@").is_some();
    match (leading, inner, text) {
        (false, false, text) => text,
        (true, false, Cow::Borrowed(s)) => Cow::Borrowed(&s[1..]),
        (_, _, text) => {
            let mut out = String::with_capacity(text.len());
            for (i, line) in text.split('\n').enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(if line.starts_with("@@") {
                    &line[1..]
                } else {
                    line
                });
            }
            Cow::Owned(out)
        }
    }
}

/// GEDCOM 7's `@` rule for writing, the reverse of [`unescape_leading_at`]:
/// appends one line of a payload (no line break in it) to `out` with a
/// leading `@` doubled. Every other `@` is written as it is: 7.0 has no
/// escapes, and `@@` in mid-line is two `@` signs.
///
/// ```
/// let mut out = String::new();
/// gedcom_elf::escape::escape_leading_at_line("@me and a@b", &mut out);
/// assert_eq!(out, "@@me and a@b");
/// ```
pub fn escape_leading_at_line(line: &str, out: &mut String) {
    if line.starts_with('@') {
        out.push('@');
    }
    out.push_str(line);
}

/// [`escape_leading_at_line`] for a whole text whose line breaks are LF
/// (each line after one is a `CONT` line): borrows when no line begins with
/// `@`. `unescape_leading_at` gives the text back.
pub fn escape_leading_at(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    if !b.starts_with(b"@") && memchr::memmem::find(b, b"\n@").is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 2);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        escape_leading_at_line(line, &mut out);
    }
    Cow::Owned(out)
}

/// `s` for a URI: every octet but URI's unreserved characters (letters,
/// digits, `-._~`) as `%XX`.
pub(crate) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `s` with its `%XX` escapes decoded (a `%` that begins none is kept);
/// `s` as it is when the octets decoded are not UTF-8.
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |k: usize| b.get(k).and_then(|&c| char::from(c).to_digit(16));
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_content_is_the_string_less_its_quotes_and_joins_as_it() {
        let pieces = [
            "",
            "plain",
            "a \"quoted\" \\ back",
            "tab\tline\n\u{1}",
            "ça 😀",
            "12345678901234567890",
        ];
        for a in pieces {
            let mut out = b"<".to_vec();
            json_content_into(&mut out, a);
            let mut whole = Vec::new();
            json_string(&mut whole, a).unwrap();
            assert_eq!(out[1..], whole[1..whole.len() - 1], "{a:?}");
            for b in pieces {
                // Pieces escaped one after another: the two joined, escaped.
                let mut joined = b"\"".to_vec();
                json_content_into(&mut joined, a);
                json_content_into(&mut joined, b);
                joined.push(b'"');
                let mut whole = Vec::new();
                json_string(&mut whole, &format!("{a}{b}")).unwrap();
                assert_eq!(joined, whole, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn json_string_into_a_vec_is_json_string() {
        for len in 0..20 {
            let plain = "é".repeat(len / 2) + &"a".repeat(len % 2);
            for at in (0..=plain.len()).filter(|&at| plain.is_char_boundary(at)) {
                for special in ["", "\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}"] {
                    let s = format!("{}{special}{}", &plain[..at], &plain[at..]);
                    let mut expected = b"x".to_vec();
                    json_string(&mut expected, &s).unwrap();
                    let mut out = b"x".to_vec();
                    json_string_into(&mut out, &s);
                    assert_eq!(out, expected, "{s:?}");
                    let mut pushed = b"x".to_vec();
                    let plain = push_json_plain(&mut pushed, s.as_bytes());
                    assert_eq!(plain, json_plain(s.as_bytes()), "{s:?}");
                    let kept: &[u8] = if plain { s.as_bytes() } else { b"" };
                    assert_eq!(pushed, [b"x", kept].concat(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn json_plain_finds_a_byte_to_escape_wherever_it_stands() {
        for len in 0..24 {
            let plain = "é".repeat(len / 2) + &"a".repeat(len % 2);
            assert!(json_plain(plain.as_bytes()), "{plain:?}");
            for at in 0..=plain.len() {
                for special in ["\"", "\\", "\n", "\u{1}", "\u{1f}"] {
                    if !plain.is_char_boundary(at) {
                        continue;
                    }
                    let s = format!("{}{special}{}", &plain[..at], &plain[at..]);
                    assert!(!json_plain(s.as_bytes()), "{s:?}");
                }
            }
        }
        // Bytes just above the control range and `DEL` need no escape.
        assert!(json_plain(b" !#[]~\x7f"));
    }

    /// The spec's and `escapes.ged`'s examples: only a line's leading `@@`.
    #[test]
    fn gedcom7_escaping_is_undone_by_unescaping() {
        for text in ["", "@", "@@", "a@b", "@x\n@@y\nz@", "\n@", "@#DJULIAN@ 1"] {
            let e = escape_leading_at(text);
            assert!(!e.starts_with('@') || e.starts_with("@@"), "{text:?}");
            assert_eq!(unescape_leading_at(Cow::Borrowed(&e)), text, "{text:?}");
        }
        assert!(matches!(escape_leading_at("a@b"), Cow::Borrowed(_)));
    }

    #[test]
    fn gedcom7_unescapes_only_a_leading_double_at() {
        let u = |s: &str| unescape_leading_at(Cow::Borrowed(s)).into_owned();
        assert_eq!(u("@@ one leading"), "@ one leading");
        assert_eq!(u("doubled @@ internal"), "doubled @@ internal");
        assert_eq!(u("single@internal"), "single@internal");
        assert_eq!(u("@@@@@ has four"), "@@@@ has four");
        assert_eq!(u("me@x.com\n@@me and @I"), "me@x.com\n@me and @I");
        assert_eq!(u("@@a\n@@b @@c\n@d"), "@a\n@b @@c\n@d");
        assert_eq!(u("@#DJULIAN@ 1 JAN 1700"), "@#DJULIAN@ 1 JAN 1700");
        assert_eq!(u("@#U263A@ x"), "@#U263A@ x");
        assert_eq!(u(""), "");
        assert!(matches!(
            unescape_leading_at(Cow::Borrowed("@@x")),
            Cow::Borrowed("@x")
        ));
        assert!(matches!(
            unescape_leading_at(Cow::Borrowed("a@@x")),
            Cow::Borrowed("a@@x")
        ));
        assert_eq!(unescape_leading_at(Cow::Owned("@@x".into())), "@x");
    }

    /// [`json_string`] as a string.
    fn j(s: &str) -> String {
        let mut v = Vec::new();
        json_string(&mut v, s).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn escapes() {
        assert_eq!(j("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(j("x\ny\r\t\u{8}\u{c}"), r#""x\ny\r\t\b\f""#);
        assert_eq!(j("\u{0}\u{1f}"), r#""\u0000\u001f""#);
        assert_eq!(j("Москва/é"), "\"Москва/é\"");
    }

    /// The escaping of the byte-by-byte rules, written the simplest way.
    fn reference(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn every_special_byte_at_every_place_of_a_word() {
        // Each byte below 0x80 at each offset of strings of 1-20 bytes, among
        // bytes that need no escape and among two-byte characters (which
        // the eight-byte test must not take for specials).
        for fill in ["a", "é"] {
            for len in 1..=20 {
                for at in 0..len {
                    for b in 0u8..0x80 {
                        let mut s: Vec<String> = (0..len).map(|_| fill.to_string()).collect();
                        s[at] = char::from(b).to_string();
                        let s = s.concat();
                        assert_eq!(j(&s), reference(&s), "{s:?}");
                    }
                }
            }
        }
        assert!(!json_special(u64::from_le_bytes(*b"abc~\x7f !#")));
        assert!(json_special(u64::from_le_bytes(*b"abcdefg\x1f")));
    }

    fn un(s: &str, preserve: &[u8]) -> (String, usize) {
        let mut n = 0;
        let out = unescape(
            Cow::Borrowed(s),
            EscapeSet::from_types(preserve),
            &mut |_| n += 1,
        );
        (out.into_owned(), n)
    }

    fn note(s: &str) -> String {
        un(s, b"").0
    }

    #[test]
    fn seed_decomposition_table() {
        assert_eq!(note("name@example.com"), "name@example.com");
        assert_eq!(note("name@@example.com"), "name@example.com");
        assert_eq!(note("name@@@example.com"), "name@@example.com");
        assert_eq!(note("name@@@@example.com"), "name@@example.com");
        assert_eq!(note("some@#XYZ@ thing"), "something");
        assert_eq!(note("some@@#XYZ@ thing"), "some@#XYZ@ thing");
        assert_eq!(note("some@@@#XYZ@ thing"), "some@thing");
    }

    #[test]
    fn date_preserves_d_and_note_does_not() {
        assert_eq!(un("ABT @#DJULIAN@ 1540", b"D").0, "ABT @#DJULIAN@ 1540");
        assert_eq!(note("ABT @#DJULIAN@ 1540"), "ABT 1540");
        // Preserving D does not preserve other types.
        assert_eq!(un("@#QX@ a@#DX@ b", b"D").0, "a@#DX@ b");
        // The seed's `@@#Dx@@ yz` subtlety: both pairs decode to single @s.
        assert_eq!(un("@@#Dx@@ yz", b"D").0, "@#Dx@ yz");
    }

    #[test]
    fn an_escape_needs_its_trailing_space() {
        assert_eq!(note("@#DJULIAN@"), "@#DJULIAN@");
        assert_eq!(note("@#DJULIAN@1540"), "@#DJULIAN@1540");
        assert_eq!(note("@#dJULIAN@ x"), "@#dJULIAN@ x");
        assert_eq!(note("a@#D\nX@ b"), "a@#D\nX@ b");
    }

    #[test]
    fn unicode_escapes() {
        assert_eq!(un("Jo@#UE3@ o", b"").0, "João");
        assert_eq!(un("Jo@#Ue3@ o", b"").0, "João");
        assert_eq!(un("@#U1F600@ !", b"").0, "😀!");
        // Unicode escapes are decoded even on escape-preserving tags.
        assert_eq!(un("@#U41@ ", b"DU").0, "A");
        for bad in [
            "@#UD800@ x",
            "@#U110000@ x",
            "@#UXYZ@ x",
            "@#U@ x",
            "@#U0@ x",
        ] {
            assert_eq!(un(bad, b""), (bad.to_string(), 1), "{bad}");
        }
    }

    #[test]
    fn borrowed_when_nothing_changes() {
        let r = unescape(
            Cow::Borrowed("a@b @#DX@ c"),
            EscapeSet::from_types(b"D"),
            &mut |_| {},
        );
        assert!(matches!(r, Cow::Borrowed(_)));
        let r = unescape(Cow::Borrowed("a@@b"), EscapeSet::NONE, &mut |_| {});
        assert!(matches!(r, Cow::Owned(_)));
    }

    #[test]
    fn lone_at_signs_at_the_edges() {
        assert_eq!(note("@"), "@");
        assert_eq!(note("x@"), "x@");
        assert_eq!(note("@#"), "@#");
        assert_eq!(note("@#A"), "@#A");
        assert_eq!(note("@@@"), "@@");
    }

    #[test]
    fn escape_table() {
        let mut t = EscapeTable::empty();
        assert!(t.add_esc_payload(b"_OLD QGGQ"));
        assert!(!t.add_esc_payload(b"_OLD"));
        assert!(t.add_esc_payload(b"_OLD\tX"));
        let s = t.lookup(b"_OLD");
        assert!(s.contains(b'Q') && s.contains(b'G') && s.contains(b'X') && !s.contains(b'D'));
        assert!(t.lookup(b"DATE").is_empty());
        assert!(EscapeTable::default().lookup(b"DATE").contains(b'D'));
    }

    #[test]
    fn percent_escapes_round_trip() {
        for s in ["me 1.jpg", "a/b?c=d&e", "Ærø ~ 100%", ""] {
            assert_eq!(percent_decode(&percent_encode(s)), s);
        }
        assert_eq!(percent_encode("a b/c~"), "a%20b%2Fc~");
        assert_eq!(percent_decode("me%201.jpg"), "me 1.jpg");
        // Not escapes: kept.
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        // Octets that are not UTF-8: the value as given.
        assert_eq!(percent_decode("%FF"), "%FF");
    }
}
