//! Encoders: Unicode text to the octets of an output encoding (the writer's side of this
//! module).
//!
//! An [`Encoder`] answers three questions for the writer: can this character be written
//! as it is ([`Encoder::can_encode`])? how many octets does this text take
//! ([`Encoder::width`])? and what are they ([`Encoder::encode`])? Characters it cannot
//! write become unicode escapes `@#U<hex>@ ` (seed §5.3) through
//! [`Encoder::push_representable`], which also knows the ANSEL rules:
//!
//! * a precomposed letter that ANSEL lacks but can build from a base and combining marks
//!   is decomposed (`é` becomes `e` + U+0301, written `E2 65`);
//! * combining marks are written *before* their base, as ANSEL wants;
//! * a combining mark with no base ANSEL can carry (at the start of a text, after a
//!   control character, after an escape) becomes a unicode escape, so that it cannot
//!   attach itself to the wrong character.
//!
//! The single-octet tables are the inverses of this module's own decoders, built once on
//! first use, so reading back what was written gives the same characters.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use unicode_normalization::char::{canonical_combining_class, decompose_canonical};

use super::{decode_into, DecodeOptions, Encoding, ALL_ENCODINGS};

/// Characters 80-FF of a single-octet encoding, inverted.
#[derive(Debug)]
struct Table {
    to_octet: HashMap<char, u8>,
}

static TABLES: [OnceLock<Table>; ALL_ENCODINGS.len()] =
    [const { OnceLock::new() }; ALL_ENCODINGS.len()];

fn table(enc: Encoding) -> Option<&'static Table> {
    if matches!(
        enc,
        Encoding::Utf8 | Encoding::Ascii | Encoding::Utf16Le | Encoding::Utf16Be
    ) {
        return None;
    }
    let i = ALL_ENCODINGS.iter().position(|&e| e == enc)?;
    Some(TABLES[i].get_or_init(|| build_table(enc)))
}

fn build_table(enc: Encoding) -> Table {
    let mut to_octet = HashMap::new();
    // Downwards, so that of two octets for one character the higher wins (ANSEL: the
    // GEDCOM eszett CF rather than the MARC-8 C7).
    for b in (0x80..=0xFFu8).rev() {
        let mut s = String::new();
        let mut bad = false;
        decode_into(
            enc,
            &[b],
            DecodeOptions { decomposed: true },
            &mut s,
            &mut |_| bad = true,
        );
        let mut chars = s.chars();
        if let (Some(c), None, false) = (chars.next(), chars.next(), bad) {
            if c != char::REPLACEMENT_CHARACTER && !c.is_ascii() {
                to_octet.entry(c).or_insert(b);
            }
        }
    }
    Table { to_octet }
}

/// `true` for a combining character (canonical combining class other than 0).
#[inline]
fn is_mark(c: char) -> bool {
    !c.is_ascii() && canonical_combining_class(c) != 0
}

/// Writes Unicode text in one output [`Encoding`].
///
/// ```
/// use gedcom_elf::encoding::{Encoder, Encoding};
///
/// let ansel = Encoder::new(Encoding::Ansel);
/// let mut text = String::new();
/// ansel.push_representable("Renée Ж.", &mut text);
/// assert_eq!(text, "Rene\u{301}e @#U416@ .");
/// let mut octets = Vec::new();
/// ansel.encode("Rene\u{301}e", &mut octets);
/// assert_eq!(octets, b"Ren\xE2ee");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Encoder {
    encoding: Encoding,
    table: Option<&'static Table>,
}

impl Encoder {
    /// An encoder for `encoding` (any [`Encoding`] this crate reads can also be written).
    #[must_use]
    pub fn new(encoding: Encoding) -> Self {
        Encoder {
            encoding,
            table: table(encoding),
        }
    }

    /// The encoding written.
    #[must_use]
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The byte-order mark of the encoding (`EF BB BF`, `FF FE`, `FE FF`), empty for
    /// encodings without one.
    #[must_use]
    pub fn bom(&self) -> &'static [u8] {
        match self.encoding {
            Encoding::Utf8 => b"\xEF\xBB\xBF",
            Encoding::Utf16Le => b"\xFF\xFE",
            Encoding::Utf16Be => b"\xFE\xFF",
            _ => b"",
        }
    }

    /// `true` when the encoding holds `c` as it is (U+0000 counts as representable: it is
    /// written as the octet 00, which this crate's reader keeps with a warning).
    #[inline]
    #[must_use]
    pub fn can_encode(&self, c: char) -> bool {
        match self.encoding {
            Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be => true,
            Encoding::Ascii => c.is_ascii(),
            _ => c.is_ascii() || self.table.is_some_and(|t| t.to_octet.contains_key(&c)),
        }
    }

    /// `true` when every character of `s` is representable and `s` holds no combining mark
    /// the encoding would move (ANSEL writes marks before their base).
    #[must_use]
    pub fn can_encode_verbatim(&self, s: &str) -> bool {
        match self.encoding {
            Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be => true,
            _ if s.is_ascii() => true,
            Encoding::Ascii => false,
            Encoding::Ansel => s.chars().all(|c| self.can_encode(c) && !is_mark(c)),
            _ => s.chars().all(|c| self.can_encode(c)),
        }
    }

    /// The number of octets `s` takes in this encoding. `s` should hold only
    /// representable characters (as [`Encoder::push_representable`] leaves it); any other
    /// character is counted as the one octet [`Encoder::encode`] writes for it.
    #[inline]
    #[must_use]
    pub fn width(&self, s: &str) -> usize {
        match self.encoding {
            Encoding::Utf8 | Encoding::Ascii => s.len(),
            Encoding::Utf16Le | Encoding::Utf16Be => {
                if s.is_ascii() {
                    2 * s.len()
                } else {
                    s.chars().map(|c| 2 * c.len_utf16()).sum()
                }
            }
            _ => {
                if s.is_ascii() {
                    s.len()
                } else {
                    s.chars().count()
                }
            }
        }
    }

    /// Appends `text` to `out`, each character the encoding cannot hold replaced by a
    /// unicode escape `@#U<HEX>@ ` (seed §5.3). For ANSEL, precomposed letters ANSEL can
    /// build from a base and marks are decomposed, and a combining mark with no base ANSEL
    /// can carry is escaped. `text` is taken as it is otherwise: `@` signs are not touched
    /// (escaping them is the writer's business).
    pub fn push_representable(&self, text: &str, out: &mut String) {
        match self.encoding {
            Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be => out.push_str(text),
            _ if text.is_ascii() => out.push_str(text),
            Encoding::Ansel => self.push_ansel(text, out),
            _ => {
                for c in text.chars() {
                    if self.can_encode(c) {
                        out.push(c);
                    } else {
                        push_unicode_escape(c, out);
                    }
                }
            }
        }
    }

    fn push_ansel(&self, text: &str, out: &mut String) {
        // Whether the last character written is a base ANSEL can put marks on.
        let mut base = false;
        for c in text.chars() {
            if is_mark(c) {
                if base && self.can_encode(c) {
                    out.push(c);
                } else {
                    push_unicode_escape(c, out);
                }
                continue;
            }
            if self.can_encode(c) {
                out.push(c);
                base = c >= ' ' && c != '\u{7F}' && c != '@';
                continue;
            }
            // Decompose when every part is writable: a base, then marks.
            let mut parts = [char::default(); 8];
            let mut n = 0;
            let mut fits = true;
            decompose_canonical(c, |p| {
                if n < parts.len() {
                    parts[n] = p;
                    n += 1;
                } else {
                    fits = false;
                }
            });
            let ok = fits
                && n > 1
                && !is_mark(parts[0])
                && parts[0] != '@'
                && parts[..n].iter().all(|&p| self.can_encode(p))
                && parts[1..n].iter().all(|&p| is_mark(p));
            if ok {
                out.extend(&parts[..n]);
                base = true;
            } else {
                push_unicode_escape(c, out);
                base = false;
            }
        }
    }

    /// Appends the octets of `s` to `out`. ANSEL combining marks are moved before their
    /// base. A character the encoding cannot hold (see [`Encoder::push_representable`])
    /// becomes `?`.
    pub fn encode(&self, s: &str, out: &mut Vec<u8>) {
        match self.encoding {
            Encoding::Utf8 => out.extend_from_slice(s.as_bytes()),
            Encoding::Utf16Le => {
                for u in s.encode_utf16() {
                    out.extend_from_slice(&u.to_le_bytes());
                }
            }
            Encoding::Utf16Be => {
                for u in s.encode_utf16() {
                    out.extend_from_slice(&u.to_be_bytes());
                }
            }
            _ if s.is_ascii() => out.extend_from_slice(s.as_bytes()),
            Encoding::Ascii => {
                out.extend(s.chars().map(|c| if c.is_ascii() { c as u8 } else { b'?' }))
            }
            Encoding::Ansel => {
                // Marks follow their base in Unicode and precede it in ANSEL: hold each
                // base back until its marks are out.
                let mut held: Option<u8> = None;
                for c in s.chars() {
                    let o = self.octet(c);
                    if is_mark(c) {
                        out.push(o);
                    } else {
                        if let Some(h) = held.replace(o) {
                            out.push(h);
                        }
                    }
                }
                if let Some(h) = held {
                    out.push(h);
                }
            }
            _ => out.extend(s.chars().map(|c| self.octet(c))),
        }
    }

    #[inline]
    fn octet(&self, c: char) -> u8 {
        if c.is_ascii() {
            return c as u8;
        }
        self.table
            .and_then(|t| t.to_octet.get(&c).copied())
            .unwrap_or(b'?')
    }
}

/// Appends the unicode escape of `c`: `@#U`, its code point in uppercase hexadecimal, `@ `.
pub fn push_unicode_escape(c: char, out: &mut String) {
    let _ = write!(out, "@#U{:X}@ ", u32::from(c));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(enc: Encoding, s: &str) -> String {
        let mut out = String::new();
        Encoder::new(enc).push_representable(s, &mut out);
        out
    }

    fn enc(enc: Encoding, s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        Encoder::new(enc).encode(s, &mut out);
        out
    }

    fn dec(enc: Encoding, b: &[u8]) -> String {
        let mut s = String::new();
        decode_into(enc, b, DecodeOptions::default(), &mut s, &mut |_| {});
        s
    }

    #[test]
    fn ascii_escapes_everything_else() {
        assert_eq!(rep(Encoding::Ascii, "João"), "Jo@#UE3@ o");
        assert_eq!(rep(Encoding::Ascii, "😀"), "@#U1F600@ ");
        assert_eq!(rep(Encoding::Ascii, "plain @ text"), "plain @ text");
    }

    #[test]
    fn unicode_encodings_hold_everything() {
        for e in [Encoding::Utf8, Encoding::Utf16Le, Encoding::Utf16Be] {
            assert_eq!(rep(e, "Jo\u{E3}o 😀"), "Jo\u{E3}o 😀");
        }
        assert_eq!(enc(Encoding::Utf16Le, "A😀"), b"A\0\x3D\xD8\x00\xDE");
        assert_eq!(enc(Encoding::Utf16Be, "A"), b"\0A");
        assert_eq!(Encoder::new(Encoding::Utf16Be).width("A😀"), 6);
    }

    #[test]
    fn ansel_decomposes_and_reorders() {
        let s = rep(Encoding::Ansel, "Müller ǘ Ø ß");
        assert_eq!(s, "Mu\u{308}ller u\u{308}\u{301} Ø ß");
        let b = enc(Encoding::Ansel, &s);
        assert_eq!(b, b"M\xE8uller \xE8\xE2u \xA2 \xCF");
        assert_eq!(dec(Encoding::Ansel, &b), "Müller ǘ Ø ß");
    }

    #[test]
    fn ansel_orphan_marks_are_escaped() {
        assert_eq!(rep(Encoding::Ansel, "\u{301}a"), "@#U301@ a");
        assert_eq!(rep(Encoding::Ansel, "@\u{301}"), "@@#U301@ ");
        assert_eq!(rep(Encoding::Ansel, "\n\u{301}"), "\n@#U301@ ");
        // A base ANSEL lacks: the base and its marks are escaped.
        assert_eq!(rep(Encoding::Ansel, "ж\u{301}"), "@#U436@ @#U301@ ");
        // A mark ANSEL lacks on a good base.
        assert_eq!(rep(Encoding::Ansel, "a\u{20DD}"), "a@#U20DD@ ");
    }

    #[test]
    fn code_pages_round_trip_their_own_characters() {
        for e in ALL_ENCODINGS {
            let Some(t) = table(e) else { continue };
            let encoder = Encoder::new(e);
            for (&c, &o) in &t.to_octet {
                if is_mark(c) {
                    continue;
                }
                let mut out = Vec::new();
                encoder.encode(&c.to_string(), &mut out);
                assert_eq!(out, [o], "{e} {c:?}");
                assert_eq!(dec(e, &out), c.to_string(), "{e} {c:?}");
            }
        }
        assert_eq!(rep(Encoding::Windows1252, "café ő"), "café @#U151@ ");
        assert_eq!(enc(Encoding::Windows1252, "café"), b"caf\xE9");
        assert_eq!(enc(Encoding::MacRoman, "é"), b"\x8E");
    }

    #[test]
    fn verbatim_check() {
        let a = Encoder::new(Encoding::Ansel);
        assert!(a.can_encode_verbatim("JULIAN"));
        assert!(a.can_encode_verbatim("Ø"));
        assert!(!a.can_encode_verbatim("e\u{301}"));
        assert!(!Encoder::new(Encoding::Ascii).can_encode_verbatim("é"));
    }
}
