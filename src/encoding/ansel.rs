//! ANSEL (ANSI/NISO Z39.47) to Unicode, with the GEDCOM additions (BE, BF, CD, CE, CF, FC)
//! and the MARC-8 extras (8D, 8E, C7, C8).
//!
//! In ANSEL a combining mark comes *before* the letter it sits on; in Unicode it comes
//! after. The decoder holds back a run of marks until the next base character, writes the
//! base, then the marks in their original order. A run of marks with no base after it (at
//! the end of the payload, or before a control character such as a line feed or a NUL) is
//! written out bare, at its place. Unicode then reads it as a mark on the character before
//! it, and NFC output may compose the two (`abc` + stray acute gives `abć`); there is no
//! base in the input to put it on, and inventing one (a space) would change the text.

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::UnicodeNormalization;

use super::codepage::push_ascii;
use super::{report_nuls, DecodeOptions, DecodeProblem};

/// What one ANSEL octet 80-FF stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AnselChar {
    /// A spacing character.
    Spacing(char),
    /// A combining (non-spacing) mark, written before its base in ANSEL.
    Combining(char),
    /// Not assigned.
    Unassigned,
}

/// The Unicode meaning of ANSEL octet `b` (80-FF; anything lower is ASCII and not asked).
fn lookup(b: u8) -> AnselChar {
    use AnselChar::{Combining as M, Spacing as S};
    match b {
        // MARC-8 joiners.
        0x8D => S('\u{200D}'), // zero width joiner
        0x8E => S('\u{200C}'), // zero width non-joiner
        // Spacing graphic characters (Z39.47).
        0xA1 => S('\u{0141}'), // Ł slash l, uppercase
        0xA2 => S('\u{00D8}'), // Ø slash o, uppercase
        0xA3 => S('\u{0110}'), // Đ slash d, uppercase
        0xA4 => S('\u{00DE}'), // Þ thorn, uppercase
        0xA5 => S('\u{00C6}'), // Æ ligature ae, uppercase
        0xA6 => S('\u{0152}'), // Œ ligature oe, uppercase
        0xA7 => S('\u{02B9}'), // ʹ miagkii znak (soft sign), single prime
        0xA8 => S('\u{00B7}'), // · middle dot
        0xA9 => S('\u{266D}'), // ♭ musical flat
        0xAA => S('\u{00AE}'), // ® patent mark, registered sign
        0xAB => S('\u{00B1}'), // ± plus-or-minus
        0xAC => S('\u{01A0}'), // Ơ hook o, uppercase
        0xAD => S('\u{01AF}'), // Ư hook u, uppercase
        0xAE => S('\u{02BC}'), // ʼ alif
        0xB0 => S('\u{02BB}'), // ʻ ayn
        0xB1 => S('\u{0142}'), // ł slash l, lowercase
        0xB2 => S('\u{00F8}'), // ø slash o, lowercase
        0xB3 => S('\u{0111}'), // đ slash d, lowercase
        0xB4 => S('\u{00FE}'), // þ thorn, lowercase
        0xB5 => S('\u{00E6}'), // æ ligature ae, lowercase
        0xB6 => S('\u{0153}'), // œ ligature oe, lowercase
        0xB7 => S('\u{02BA}'), // ʺ tverdyi znak (hard sign), double prime
        0xB8 => S('\u{0131}'), // ı dotless i
        0xB9 => S('\u{00A3}'), // £ british pound
        0xBA => S('\u{00F0}'), // ð eth
        0xBC => S('\u{01A1}'), // ơ hook o, lowercase
        0xBD => S('\u{01B0}'), // ư hook u, lowercase
        0xBE => S('\u{25A1}'), // □ empty box (GEDCOM)
        0xBF => S('\u{25A0}'), // ■ black box (GEDCOM)
        0xC0 => S('\u{00B0}'), // ° degree sign
        0xC1 => S('\u{2113}'), // ℓ script l
        0xC2 => S('\u{2117}'), // ℗ phonograph copyright mark
        0xC3 => S('\u{00A9}'), // © copyright sign
        0xC4 => S('\u{266F}'), // ♯ musical sharp
        0xC5 => S('\u{00BF}'), // ¿ inverted question mark
        0xC6 => S('\u{00A1}'), // ¡ inverted exclamation mark
        0xC7 => S('\u{00DF}'), // ß eszett (MARC-8)
        0xC8 => S('\u{20AC}'), // € euro sign (MARC-8)
        0xCD => S('e'),        // midline e (GEDCOM)
        0xCE => S('o'),        // midline o (GEDCOM)
        0xCF => S('\u{00DF}'), // ß es zet (GEDCOM)
        // Combining marks.
        0xE0 => M('\u{0309}'), // hook above, low rising tone mark
        0xE1 => M('\u{0300}'), // grave
        0xE2 => M('\u{0301}'), // acute
        0xE3 => M('\u{0302}'), // circumflex
        0xE4 => M('\u{0303}'), // tilde
        0xE5 => M('\u{0304}'), // macron
        0xE6 => M('\u{0306}'), // breve
        0xE7 => M('\u{0307}'), // dot above
        0xE8 => M('\u{0308}'), // diaeresis, umlaut
        0xE9 => M('\u{030C}'), // caron, hacek
        0xEA => M('\u{030A}'), // ring above, circle above
        0xEB => M('\u{FE20}'), // ligature, left half
        0xEC => M('\u{FE21}'), // ligature, right half
        0xED => M('\u{0315}'), // comma above right, high comma off center
        0xEE => M('\u{030B}'), // double acute
        0xEF => M('\u{0310}'), // candrabindu
        0xF0 => M('\u{0327}'), // cedilla
        0xF1 => M('\u{0328}'), // ogonek, right hook
        0xF2 => M('\u{0323}'), // dot below
        0xF3 => M('\u{0324}'), // diaeresis below, double dot below
        0xF4 => M('\u{0325}'), // ring below, circle below
        0xF5 => M('\u{0333}'), // double low line, double underscore
        0xF6 => M('\u{0332}'), // low line, underscore
        0xF7 => M('\u{0326}'), // comma below, left hook
        0xF8 => M('\u{031C}'), // left half ring below, right cedilla
        0xF9 => M('\u{032E}'), // breve below, half circle below
        0xFA => M('\u{FE22}'), // double tilde, left half
        0xFB => M('\u{FE23}'), // double tilde, right half
        0xFC => M('\u{0338}'), // diacritic slash (GEDCOM), long solidus overlay
        0xFE => M('\u{0313}'), // comma above, high comma centred
        _ => AnselChar::Unassigned,
    }
}

/// Appends the ANSEL text `bytes` to `out` as Unicode.
///
/// In NFC mode (the default) the output is exactly the NFC of what decomposed mode gives,
/// but only the clusters that hold combining marks go through the normaliser: ANSEL text
/// outside them is ASCII, spacing characters that NFC leaves alone, U+FFFD and control
/// characters, none of which composes with its neighbours.
pub(super) fn decode_ansel(
    bytes: &[u8],
    opts: DecodeOptions,
    out: &mut String,
    report: &mut dyn FnMut(DecodeProblem),
) {
    let start = out.len();
    let compose = !opts.decomposed;
    // Combining marks waiting for their base: always a run of mark octets in `bytes`.
    let mut pending: &[u8] = &[];
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            if pending.is_empty() {
                // Copy the whole ASCII run in one go.
                let rest = &bytes[i..];
                let run = rest.iter().position(|&b| b >= 0x80).unwrap_or(rest.len());
                report_nuls(&rest[..run], report);
                push_ascii(&rest[..run], out);
                i += run;
                continue;
            }
            if b < 0x20 || b == 0x7F {
                // A control character is no base: the marks stay bare before it.
                flush_bare(&mut pending, out, start, compose);
                if b == 0 {
                    report(DecodeProblem::Nul);
                }
                out.push(char::from(b));
            } else {
                put_base(char::from(b), &mut pending, out, compose);
            }
            i += 1;
            continue;
        }
        match lookup(b) {
            AnselChar::Combining(_) => {
                // Marks are contiguous: extend the pending run to take this one in.
                let from = i - pending.len();
                pending = &bytes[from..=i];
            }
            AnselChar::Spacing(c) => put_base(c, &mut pending, out, compose),
            AnselChar::Unassigned => {
                report(DecodeProblem::UnassignedAnsel(b));
                put_base(char::REPLACEMENT_CHARACTER, &mut pending, out, compose);
            }
        }
        i += 1;
    }
    // Marks at the very end have no base: written bare.
    flush_bare(&mut pending, out, start, compose);
}

/// Writes a base character, then the pending marks (in their ANSEL order), and empties the
/// run; in NFC mode the cluster is then normalised.
fn put_base(base: char, pending: &mut &[u8], out: &mut String, compose: bool) {
    let at = out.len();
    out.push(base);
    if pending.is_empty() {
        return;
    }
    if compose {
        if let ([m], true) = (*pending, base.is_ascii()) {
            // The common case, one mark on an ASCII letter: NFC is the primary composite
            // when there is one, and the pair as it is otherwise.
            if let AnselChar::Combining(mark) = lookup(*m) {
                *pending = &[];
                match unicode_normalization::char::compose(base, mark) {
                    Some(c) => {
                        out.truncate(at);
                        out.push(c);
                    }
                    None => out.push(mark),
                }
                return;
            }
        }
    }
    flush_marks(pending, out);
    if compose {
        normalise_from(at, out);
    }
}

/// Writes the pending marks with no base after them. In NFC mode they are normalised
/// together with the cluster they join: back to the last starter written by this call.
fn flush_bare(pending: &mut &[u8], out: &mut String, start: usize, compose: bool) {
    if pending.is_empty() {
        return;
    }
    let at = out.len();
    flush_marks(pending, out);
    if compose {
        let mut from = at;
        if let Some(tail) = out.get(start..at) {
            for (k, c) in tail.char_indices().rev() {
                from = start + k;
                if canonical_combining_class(c) == 0 {
                    break;
                }
            }
        }
        normalise_from(from, out);
    }
}

/// Replaces `out[from..]` by its NFC.
fn normalise_from(from: usize, out: &mut String) {
    if let Some(tail) = out.get(from..) {
        let composed: String = tail.nfc().collect();
        out.truncate(from);
        out.push_str(&composed);
    }
}

/// Writes the pending marks, in their ANSEL order, and empties the run.
fn flush_marks(pending: &mut &[u8], out: &mut String) {
    for &m in *pending {
        if let AnselChar::Combining(c) = lookup(m) {
            out.push(c);
        }
    }
    *pending = &[];
}

#[cfg(test)]
mod tests {
    use super::super::tests::{dec, dec_opts};
    use super::super::{DecodeOptions, DecodeProblem, Encoding};
    use super::*;

    const DECOMPOSED: DecodeOptions = DecodeOptions { decomposed: true };

    fn ansel(bytes: &[u8]) -> String {
        let (s, p) = dec(Encoding::Ansel, bytes);
        assert!(p.is_empty(), "{p:?}");
        s
    }

    fn ansel_raw(bytes: &[u8]) -> String {
        let (s, p) = dec_opts(Encoding::Ansel, bytes, DECOMPOSED);
        assert!(p.is_empty(), "{p:?}");
        s
    }

    #[test]
    fn every_spacing_character() {
        let table: [(u8, char); 44] = [
            (0xA1, 'Ł'),
            (0xA2, 'Ø'),
            (0xA3, 'Đ'),
            (0xA4, 'Þ'),
            (0xA5, 'Æ'),
            (0xA6, 'Œ'),
            (0xA7, 'ʹ'),
            (0xA8, '·'),
            (0xA9, '♭'),
            (0xAA, '®'),
            (0xAB, '±'),
            (0xAC, 'Ơ'),
            (0xAD, 'Ư'),
            (0xAE, 'ʼ'),
            (0xB0, 'ʻ'),
            (0xB1, 'ł'),
            (0xB2, 'ø'),
            (0xB3, 'đ'),
            (0xB4, 'þ'),
            (0xB5, 'æ'),
            (0xB6, 'œ'),
            (0xB7, 'ʺ'),
            (0xB8, 'ı'),
            (0xB9, '£'),
            (0xBA, 'ð'),
            (0xBC, 'ơ'),
            (0xBD, 'ư'),
            (0xBE, '□'),
            (0xBF, '■'),
            (0xC0, '°'),
            (0xC1, 'ℓ'),
            (0xC2, '℗'),
            (0xC3, '©'),
            (0xC4, '♯'),
            (0xC5, '¿'),
            (0xC6, '¡'),
            (0xC7, 'ß'),
            (0xC8, '€'),
            (0xCD, 'e'),
            (0xCE, 'o'),
            (0xCF, 'ß'),
            (0x8D, '\u{200D}'),
            (0x8E, '\u{200C}'),
            (0x41, 'A'),
        ];
        for (b, c) in table {
            assert_eq!(ansel(&[b]), c.to_string(), "{b:02X}");
            assert_eq!(ansel_raw(&[b]), c.to_string(), "{b:02X}");
        }
        assert_eq!(ansel(b"Br\xB2derbund"), "Brøderbund");
    }

    #[test]
    fn every_mark_is_combining() {
        let mut count = 0;
        for b in 0x80..=0xFFu8 {
            if let AnselChar::Combining(c) = lookup(b) {
                count += 1;
                assert!((0xE0..=0xFE).contains(&b), "{b:02X}");
                let s = ansel_raw(&[b, b'a']);
                assert_eq!(s, format!("a{c}"));
                // Unicode says it is a combining character.
                assert_ne!(unicode_normalization::char::canonical_combining_class(c), 0);
            }
        }
        assert_eq!(count, 30);
    }

    #[test]
    fn sample_of_marks_nfc() {
        assert_eq!(ansel(b"\xE2e"), "é");
        assert_eq!(ansel_raw(b"\xE2e"), "e\u{301}");
        assert_eq!(ansel(b"\xE1a"), "à");
        assert_eq!(ansel(b"\xE3o"), "ô");
        assert_eq!(ansel(b"\xE4n"), "ñ");
        assert_eq!(ansel(b"\xE8u"), "ü");
        assert_eq!(ansel(b"\xE9s"), "š");
        assert_eq!(ansel(b"\xEAA"), "Å");
        assert_eq!(ansel(b"\xEEo"), "ő");
        assert_eq!(ansel(b"\xF0c"), "ç");
        assert_eq!(ansel(b"\xF1a"), "ą");
        assert_eq!(ansel(b"\xF2d"), "ḍ");
        assert_eq!(ansel(b"\xE7z"), "ż");
        assert_eq!(ansel(b"Ren\xE2e M\xE8uller"), "René Müller");
        // No precomposed form: stays decomposed even in NFC.
        assert_eq!(ansel(b"\xE2q"), "q\u{301}");
        assert_eq!(ansel(b"\xEBt\xECs"), "t\u{FE20}s\u{FE21}");
    }

    #[test]
    fn stacked_marks_keep_order() {
        // Dot below then circumflex on 'e': ANSEL order kept when decomposed.
        assert_eq!(ansel_raw(b"\xF2\xE3e"), "e\u{323}\u{302}");
        assert_eq!(ansel(b"\xF2\xE3e"), "ệ");
        // Two marks of the same class keep their order in NFC as well.
        assert_eq!(ansel_raw(b"\xE2\xE8u"), "u\u{301}\u{308}");
        assert_eq!(ansel(b"\xE8\xE2u"), "\u{1D8}"); // ǘ
        assert_eq!(ansel(b"\xE8\xE5u"), "\u{1D6}"); // ǖ
        assert_eq!(ansel(b"\xE5\xE8u"), "\u{1E7B}"); // ṻ
                                                     // Different classes: NFC puts the cedilla (202) before the acute (230).
        assert_eq!(ansel_raw(b"\xE2\xF0c"), "c\u{301}\u{327}");
        assert_eq!(ansel(b"\xE2\xF0c"), "\u{1E09}"); // ḉ
                                                     // Three marks and a spacing base.
        assert_eq!(ansel_raw(b"\xE1\xE2\xE3\xA2x"), "Ø\u{300}\u{301}\u{302}x");
    }

    #[test]
    fn mark_without_base() {
        // At the end of the payload: written bare. In Unicode a combining character belongs
        // to the character before it, so NFC may compose the two.
        assert_eq!(ansel_raw(b"abc\xE2"), "abc\u{301}");
        assert_eq!(ansel(b"abc\xE2"), "ab\u{107}");
        assert_eq!(ansel(b"ab\xE2"), "ab\u{301}");
        assert_eq!(ansel(b"\xE2\xE3"), "\u{301}\u{302}");
        // Before a control character: bare, before it.
        assert_eq!(ansel_raw(b"x\xE2\ny"), "x\u{301}\ny");
        // Before a space: the space is the base (a spacing accent).
        assert_eq!(ansel_raw(b"\xE2 x"), " \u{301}x");
    }

    #[test]
    fn unassigned_octets() {
        for b in [
            0x80u8, 0x88, 0x9F, 0xA0, 0xAF, 0xBB, 0xC9, 0xCC, 0xD0, 0xDF, 0xFD, 0xFF,
        ] {
            let (s, p) = dec(Encoding::Ansel, &[b'a', b, b'b']);
            assert_eq!(s, "a\u{FFFD}b", "{b:02X}");
            assert_eq!(p, vec![DecodeProblem::UnassignedAnsel(b)]);
        }
        // A mark before an unassigned octet sits on the U+FFFD.
        let (s, p) = dec_opts(Encoding::Ansel, b"\xE2\xFF", DECOMPOSED);
        assert_eq!(s, "\u{FFFD}\u{301}");
        assert_eq!(p, vec![DecodeProblem::UnassignedAnsel(0xFF)]);
    }

    #[test]
    fn ascii_and_nul() {
        assert_eq!(ansel(b"0 HEAD"), "0 HEAD");
        let (s, p) = dec(Encoding::Ansel, b"a\0\xE2\0");
        assert_eq!(s, "a\0\u{301}\0");
        assert_eq!(p, vec![DecodeProblem::Nul, DecodeProblem::Nul]);
    }

    #[test]
    fn nfc_does_not_touch_earlier_output() {
        let mut out = String::from("e");
        decode_into_ansel(b"\xE2", &mut out);
        // The bare mark is appended; the 'e' already in `out` is left alone.
        assert_eq!(out, "e\u{301}");
    }

    /// NFC mode composes only the clusters with marks; whatever the input, its output must
    /// be the NFC of the decomposed output (which is what normalising it all would give).
    #[test]
    fn nfc_mode_is_nfc_of_decomposed_mode() {
        const ALPHABET: &[u8] =
            b"aAeEoOuUcCsSzZnNgGiIyY \n\0\x01\xAC\xBC\xAD\xBD\xA2\xB2\xB8\xA5\xCD\xCF\xFF\xC9";
        let marks: Vec<u8> = (0xE0..=0xFE).filter(|&b| b != 0xFD).collect();
        let mut rng = super::super::tests::XorShift(0x2545_F491_4F6C_DD1D);
        for round in 0..20_000 {
            let len = (rng.next() % 12) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let r = rng.next();
                    if r.is_multiple_of(2) {
                        marks[(r >> 8) as usize % marks.len()]
                    } else {
                        ALPHABET[(r >> 8) as usize % ALPHABET.len()]
                    }
                })
                .collect();
            let prefix = ["", "e", "\u{301}", "x\n"][round % 4];
            let (mut nfc, mut raw) = (prefix.to_string(), prefix.to_string());
            super::super::decode_into(
                Encoding::Ansel,
                &bytes,
                DecodeOptions::default(),
                &mut nfc,
                &mut |_| {},
            );
            super::super::decode_into(Encoding::Ansel, &bytes, DECOMPOSED, &mut raw, &mut |_| {});
            let want: String = raw[prefix.len()..].nfc().collect();
            assert_eq!(&nfc[..prefix.len()], prefix);
            assert_eq!(nfc[prefix.len()..], want, "{bytes:02X?}");
        }
    }

    /// The one-mark fast path agrees with NFC for every ASCII base and every mark.
    #[test]
    fn one_mark_on_ascii_is_nfc() {
        for base in 0x20..0x7Fu8 {
            for mark in 0xE0..=0xFEu8 {
                let AnselChar::Combining(m) = lookup(mark) else {
                    continue;
                };
                let want: String = [char::from(base), m].into_iter().nfc().collect();
                assert_eq!(ansel(&[mark, base]), want, "{mark:02X} {base:02X}");
            }
        }
    }

    fn decode_into_ansel(bytes: &[u8], out: &mut String) {
        super::super::decode_into(
            Encoding::Ansel,
            bytes,
            DecodeOptions::default(),
            out,
            &mut |_| {},
        );
    }
}
