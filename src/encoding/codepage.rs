//! Single-octet code pages: ASCII (lenient), the windows code pages and Mac Roman through
//! `encoding_rs`, and IBM PC code pages 437 and 850 through tables of our own.

use super::{report_nuls, DecodeProblem};

/// Appends ASCII text. Octets 80-FF are decoded as windows-1252 and reported as
/// [`DecodeProblem::NonAscii`], one report per octet.
pub(super) fn decode_ascii(bytes: &[u8], out: &mut String, report: &mut dyn FnMut(DecodeProblem)) {
    if bytes.is_ascii() {
        report_nuls(bytes, report);
        push_ascii(bytes, out);
        return;
    }
    let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
    for &b in bytes {
        if b == 0 {
            report(DecodeProblem::Nul);
        } else if b >= 0x80 {
            report(DecodeProblem::NonAscii);
        }
    }
    out.push_str(&text);
}

/// Appends text in a single-octet `encoding_rs` encoding (windows-125x, Mac Roman).
pub(super) fn decode_encoding_rs(
    enc: &'static encoding_rs::Encoding,
    bytes: &[u8],
    out: &mut String,
    report: &mut dyn FnMut(DecodeProblem),
) {
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    if had_errors {
        // Every octet of a single-octet encoding gives exactly one character, so the
        // characters line up with the octets.
        for (&b, c) in bytes.iter().zip(text.chars()) {
            if b == 0 {
                report(DecodeProblem::Nul);
            } else if c == char::REPLACEMENT_CHARACTER {
                report(DecodeProblem::UnmappedByte(b));
            }
        }
    } else {
        report_nuls(bytes, report);
    }
    out.push_str(&text);
}

/// Appends text in a code page whose octets 00-7F are ASCII and whose octets 80-FF are given
/// by `high`.
pub(super) fn decode_table(
    high: &[char; 128],
    bytes: &[u8],
    out: &mut String,
    report: &mut dyn FnMut(DecodeProblem),
) {
    report_nuls(bytes, report);
    let mut rest = bytes;
    while !rest.is_empty() {
        let run = rest.iter().position(|&b| b >= 0x80).unwrap_or(rest.len());
        push_ascii(&rest[..run], out);
        rest = &rest[run..];
        let non_ascii = rest.iter().position(|&b| b < 0x80).unwrap_or(rest.len());
        for &b in &rest[..non_ascii] {
            out.push(high[usize::from(b & 0x7F)]);
        }
        rest = &rest[non_ascii..];
    }
}

/// Appends octets that are all ASCII.
pub(super) fn push_ascii(bytes: &[u8], out: &mut String) {
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(s),
        // Callers only pass ASCII; be lossy rather than panic if one does not.
        Err(_) => out.extend(bytes.iter().map(|&b| char::from(b))),
    }
}

/// IBM PC code page 437, octets 80-FF (from the code page definition; 00-7F are ASCII).
#[rustfmt::skip]
pub(super) static IBM437_HIGH: [char; 128] = [
    // 80
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å',
    // 90
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ',
    // A0
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»',
    // B0
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐',
    // C0
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧',
    // D0
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀',
    // E0
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩',
    // F0
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{A0}',
];

/// IBM PC code page 850, octets 80-FF (from the code page definition; 00-7F are ASCII).
#[rustfmt::skip]
pub(super) static IBM850_HIGH: [char; 128] = [
    // 80
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å',
    // 90
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', 'ø', '£', 'Ø', '×', 'ƒ',
    // A0
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '®', '¬', '½', '¼', '¡', '«', '»',
    // B0
    '░', '▒', '▓', '│', '┤', 'Á', 'Â', 'À', '©', '╣', '║', '╗', '╝', '¢', '¥', '┐',
    // C0
    '└', '┴', '┬', '├', '─', '┼', 'ã', 'Ã', '╚', '╔', '╩', '╦', '╠', '═', '╬', '¤',
    // D0
    'ð', 'Ð', 'Ê', 'Ë', 'È', 'ı', 'Í', 'Î', 'Ï', '┘', '┌', '█', '▄', '¦', 'Ì', '▀',
    // E0
    'Ó', 'ß', 'Ô', 'Ò', 'õ', 'Õ', 'µ', 'þ', 'Þ', 'Ú', 'Û', 'Ù', 'ý', 'Ý', '¯', '´',
    // F0
    '\u{AD}', '±', '‗', '¾', '¶', '§', '÷', '¸', '°', '¨', '·', '¹', '³', '²', '■', '\u{A0}',
];

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::super::Encoding;
    use super::*;

    #[test]
    fn ibm_tables_spot_checks() {
        // Letters GEDCOM files actually use.
        assert_eq!(IBM437_HIGH[0x82 - 0x80], 'é');
        assert_eq!(IBM437_HIGH[0x81 - 0x80], 'ü');
        assert_eq!(IBM437_HIGH[0xE1 - 0x80], 'ß');
        assert_eq!(IBM850_HIGH[0x9B - 0x80], 'ø');
        assert_eq!(IBM850_HIGH[0xD0 - 0x80], 'ð');
        assert_eq!(IBM850_HIGH[0xE7 - 0x80], 'þ');
        // Every octet is assigned, and the two pages agree on 80-9A.
        for i in 0..128 {
            assert_ne!(IBM437_HIGH[i], char::REPLACEMENT_CHARACTER);
            assert!(u32::from(IBM437_HIGH[i]) >= 0xA0);
            assert!(u32::from(IBM850_HIGH[i]) >= 0xA0);
        }
        assert_eq!(IBM437_HIGH[..0x1B], IBM850_HIGH[..0x1B]);
    }

    #[test]
    fn ibm_mixed_runs() {
        let (s, p) = dec(Encoding::Ibm437, b"Andr\x82 M\x81ller \x9C5");
        assert_eq!(s, "André Müller £5");
        assert!(p.is_empty());
        let (s, _) = dec(Encoding::Ibm850, b"\xB5\xD6\xE9");
        assert_eq!(s, "ÁÍÚ");
    }

    #[test]
    fn mac_roman_and_1252_all_octets_decode() {
        let all: Vec<u8> = (1..=255).collect();
        for enc in [
            Encoding::MacRoman,
            Encoding::Windows1252,
            Encoding::Windows1250,
        ] {
            let (s, p) = dec(enc, &all);
            assert_eq!(s.chars().count(), 255, "{enc}");
            assert!(p.is_empty(), "{enc}: {p:?}");
        }
    }
}
