//! UTF-8 decoding with U+FFFD replacement and CESU-8 repair.

use super::{report_nuls, DecodeProblem};

/// Appends the UTF-8 text `bytes` to `out`, replacing invalid sequences by U+FFFD and
/// decoding CESU-8 surrogate pairs to the characters they stand for.
pub(super) fn decode_utf8(bytes: &[u8], out: &mut String, report: &mut dyn FnMut(DecodeProblem)) {
    // Fast path: the whole payload is valid.
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        report_nuls(bytes, report);
        out.push_str(s);
        return;
    }
    let mut rest = bytes;
    while !rest.is_empty() {
        match simdutf8::compat::from_utf8(rest) {
            Ok(s) => {
                report_nuls(rest, report);
                out.push_str(s);
                return;
            }
            Err(e) => {
                let (valid, bad) = rest.split_at(e.valid_up_to());
                push_valid(valid, out, report);
                if let Some(c) = cesu8_pair(bad) {
                    report(DecodeProblem::Cesu8);
                    out.push(c);
                    rest = &bad[6..];
                    continue;
                }
                report(DecodeProblem::InvalidUtf8);
                out.push(char::REPLACEMENT_CHARACTER);
                match e.error_len() {
                    // error_len is at least 1 and at most 3, and never past the input.
                    Some(n) => rest = bad.get(n..).unwrap_or_default(),
                    // An incomplete sequence at the end of the input.
                    None => return,
                }
            }
        }
    }
}

/// Pushes a prefix that the validator has already accepted.
fn push_valid(valid: &[u8], out: &mut String, report: &mut dyn FnMut(DecodeProblem)) {
    report_nuls(valid, report);
    match std::str::from_utf8(valid) {
        Ok(s) => out.push_str(s),
        // Cannot happen (the validator said it is valid); stay lossy rather than panic.
        Err(_) => out.push_str(&String::from_utf8_lossy(valid)),
    }
}

/// If `bytes` starts with a CESU-8 surrogate pair (`ED A0-AF 80-BF ED B0-BF 80-BF`), the
/// supplementary character it encodes.
fn cesu8_pair(bytes: &[u8]) -> Option<char> {
    match *bytes {
        [0xED, h1 @ 0xA0..=0xAF, h2 @ 0x80..=0xBF, 0xED, l1 @ 0xB0..=0xBF, l2 @ 0x80..=0xBF, ..] => {
            // Each three-octet form carries 16 bits: 1101 hhhh hhhh hhhh.
            let high = 0xD000 | (u32::from(h1 & 0x3F) << 6) | u32::from(h2 & 0x3F);
            let low = 0xD000 | (u32::from(l1 & 0x3F) << 6) | u32::from(l2 & 0x3F);
            let cp = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            char::from_u32(cp)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::super::{DecodeProblem, Encoding};

    #[test]
    fn valid_utf8_passes() {
        let text = "Miloš 𠀡 Brøderbund";
        assert_eq!(
            dec(Encoding::Utf8, text.as_bytes()),
            (text.to_string(), vec![])
        );
        assert_eq!(dec(Encoding::Utf8, b""), (String::new(), vec![]));
    }

    #[test]
    fn invalid_sequences_become_replacement() {
        let (s, p) = dec(Encoding::Utf8, b"a\xFFb\xC3");
        assert_eq!(s, "a\u{FFFD}b\u{FFFD}");
        assert_eq!(p, vec![DecodeProblem::InvalidUtf8; 2]);
        // Same replacement policy as the standard library's lossy conversion.
        let input = b"\xF0\x9F\x98x\xE2\x82\xC0\x80\xED\xA0\x80z";
        let (s, p) = dec(Encoding::Utf8, input);
        assert_eq!(s, String::from_utf8_lossy(input));
        assert_eq!(p.len(), s.matches('\u{FFFD}').count());
    }

    #[test]
    fn cesu8_pair_is_repaired() {
        // The example from the ELF specification: U+20021 as CESU-8.
        let (s, p) = dec(Encoding::Utf8, b"x\xED\xA1\x80\xED\xB0\xA1y");
        assert_eq!(s, "x\u{20021}y");
        assert_eq!(p, vec![DecodeProblem::Cesu8]);
        // Highest: U+10FFFF = DBFF DFFF.
        let (s, p) = dec(Encoding::Utf8, b"\xED\xAF\xBF\xED\xBF\xBF");
        assert_eq!(s, "\u{10FFFF}");
        assert_eq!(p, vec![DecodeProblem::Cesu8]);
    }

    #[test]
    fn lone_cesu8_surrogates_are_invalid() {
        // A high surrogate followed by something else: each octet is invalid.
        let (s, p) = dec(Encoding::Utf8, b"\xED\xA1\x80a");
        assert_eq!(s, "\u{FFFD}\u{FFFD}\u{FFFD}a");
        assert_eq!(p, vec![DecodeProblem::InvalidUtf8; 3]);
        // Truncated pair at the end.
        let (s, p) = dec(Encoding::Utf8, b"\xED\xA1\x80\xED\xB0");
        assert!(s.chars().all(|c| c == '\u{FFFD}'));
        assert!(p.iter().all(|p| *p == DecodeProblem::InvalidUtf8));
    }

    #[test]
    fn nul_reported_in_order() {
        let (s, p) = dec(Encoding::Utf8, b"\0\xFF\0");
        assert_eq!(s, "\0\u{FFFD}\0");
        assert_eq!(
            p,
            vec![
                DecodeProblem::Nul,
                DecodeProblem::InvalidUtf8,
                DecodeProblem::Nul
            ]
        );
    }
}
