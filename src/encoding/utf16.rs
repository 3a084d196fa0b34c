//! UTF-16 to UTF-8 transcoding, whole or in bounded chunks.

use super::DecodeProblem;

/// Where decoded characters go: a `Vec<u8>` (for the streaming API) or a `String`.
trait Sink {
    fn push_ascii(&mut self, b: u8);
    fn push_char(&mut self, c: char);
}

impl Sink for Vec<u8> {
    #[inline]
    fn push_ascii(&mut self, b: u8) {
        self.push(b);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
}

impl Sink for String {
    #[inline]
    fn push_ascii(&mut self, b: u8) {
        self.push(char::from(b));
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.push(c);
    }
}

/// A UTF-16 to UTF-8 transcoder that takes its input in chunks of any size.
///
/// It carries a code unit split between two chunks and a high surrogate waiting for its low
/// half, so the output for any way of cutting the input is the same as [`utf16_to_utf8`] on
/// the whole. Unpaired surrogates become U+FFFD and are reported as
/// [`DecodeProblem::UnpairedSurrogate`]; an odd octet left over at the end becomes U+FFFD and
/// is reported as [`DecodeProblem::TruncatedUtf16`]; U+0000 is kept and reported as
/// [`DecodeProblem::Nul`]. A byte-order mark is not stripped (that is [`detect`]'s job, see
/// `Detection::bom_len`); U+FEFF anywhere is passed on as it is.
///
/// [`detect`]: super::detect()
#[derive(Clone, Debug)]
pub struct Utf16Decoder {
    big_endian: bool,
    /// The first octet of a code unit whose second octet is in the next chunk.
    split_octet: Option<u8>,
    /// A high surrogate whose low surrogate may come next.
    high: Option<u16>,
}

impl Utf16Decoder {
    /// A decoder for big-endian (`true`) or little-endian (`false`) UTF-16.
    #[must_use]
    pub fn new(big_endian: bool) -> Self {
        Utf16Decoder {
            big_endian,
            split_octet: None,
            high: None,
        }
    }

    /// Decodes one chunk, appending UTF-8 to `out`. Pass `last = true` with the final chunk
    /// (which may be empty) to flush a pending surrogate or odd octet; the decoder is then
    /// reset and can be used for a new stream.
    pub fn decode_chunk(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
        report: &mut dyn FnMut(DecodeProblem),
    ) {
        out.reserve(input.len() / 2 + 4);
        self.run(input, last, out, report);
    }

    fn run<S: Sink>(
        &mut self,
        mut input: &[u8],
        last: bool,
        out: &mut S,
        report: &mut dyn FnMut(DecodeProblem),
    ) {
        if let Some(first) = self.split_octet {
            if let Some((&second, rest)) = input.split_first() {
                self.split_octet = None;
                let unit = self.unit([first, second]);
                self.unit_in(unit, out, report);
                input = rest;
            }
        }
        let mut pairs = input.chunks_exact(2);
        for pair in &mut pairs {
            let [a, b] = *pair else { continue };
            let unit = self.unit([a, b]);
            if unit < 0x80 && unit != 0 && self.high.is_none() {
                // ASCII fast path.
                out.push_ascii(u8::try_from(unit).unwrap_or(b'?'));
            } else {
                self.unit_in(unit, out, report);
            }
        }
        if let [odd] = *pairs.remainder() {
            self.split_octet = Some(odd);
        }
        if last {
            self.finish(out, report);
        }
    }

    #[inline]
    fn unit(&self, octets: [u8; 2]) -> u16 {
        if self.big_endian {
            u16::from_be_bytes(octets)
        } else {
            u16::from_le_bytes(octets)
        }
    }

    fn unit_in<S: Sink>(&mut self, unit: u16, out: &mut S, report: &mut dyn FnMut(DecodeProblem)) {
        if let Some(high) = self.high.take() {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let cp = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                out.push_char(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                return;
            }
            report(DecodeProblem::UnpairedSurrogate);
            out.push_char(char::REPLACEMENT_CHARACTER);
        }
        match unit {
            0xD800..=0xDBFF => self.high = Some(unit),
            0xDC00..=0xDFFF => {
                report(DecodeProblem::UnpairedSurrogate);
                out.push_char(char::REPLACEMENT_CHARACTER);
            }
            _ => {
                if unit == 0 {
                    report(DecodeProblem::Nul);
                }
                out.push_char(
                    char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
                );
            }
        }
    }

    fn finish<S: Sink>(&mut self, out: &mut S, report: &mut dyn FnMut(DecodeProblem)) {
        if self.high.take().is_some() {
            report(DecodeProblem::UnpairedSurrogate);
            out.push_char(char::REPLACEMENT_CHARACTER);
        }
        if self.split_octet.take().is_some() {
            report(DecodeProblem::TruncatedUtf16);
            out.push_char(char::REPLACEMENT_CHARACTER);
        }
    }
}

/// Transcodes a whole UTF-16 buffer to UTF-8, with the rules of [`Utf16Decoder`].
pub fn utf16_to_utf8(
    input: &[u8],
    big_endian: bool,
    report: &mut dyn FnMut(DecodeProblem),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() / 2 + 4);
    Utf16Decoder::new(big_endian).run(input, true, &mut out, report);
    out
}

/// [`decode_into`](super::decode_into) for UTF-16: appends to a `String`.
pub(super) fn decode_utf16_into_string(
    input: &[u8],
    big_endian: bool,
    out: &mut String,
    report: &mut dyn FnMut(DecodeProblem),
) {
    out.reserve(input.len() / 2);
    Utf16Decoder::new(big_endian).run(input, true, out, report);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(s: &str, big_endian: bool) -> Vec<u8> {
        s.encode_utf16()
            .flat_map(|u| {
                if big_endian {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    }

    fn whole(input: &[u8], be: bool) -> (Vec<u8>, Vec<DecodeProblem>) {
        let mut problems = Vec::new();
        let out = utf16_to_utf8(input, be, &mut |p| problems.push(p));
        (out, problems)
    }

    fn chunked(input: &[u8], be: bool, size: usize) -> (Vec<u8>, Vec<DecodeProblem>) {
        let mut problems = Vec::new();
        let mut out = Vec::new();
        let mut dec = Utf16Decoder::new(be);
        let chunks: Vec<&[u8]> = input.chunks(size).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            let last = i + 1 == chunks.len();
            dec.decode_chunk(chunk, last, &mut out, &mut |p| problems.push(p));
        }
        if chunks.is_empty() {
            dec.decode_chunk(&[], true, &mut out, &mut |p| problems.push(p));
        }
        (out, problems)
    }

    #[test]
    fn round_trip_both_endians() {
        let text = "0 HEAD\r\n1 NAME Miloš /Brøderbund/ 𠀡 — ok\n";
        for be in [false, true] {
            let (out, p) = whole(&encode(text, be), be);
            assert_eq!(out, text.as_bytes());
            assert!(p.is_empty());
        }
    }

    #[test]
    fn chunked_equals_whole() {
        let text = "abc 𠀡é\u{FEFF}x\u{10FFFF}";
        for be in [false, true] {
            let mut inputs = vec![encode(text, be)];
            // Damaged variants: lone high, lone low, odd tail, NUL.
            let mut bad = encode("a", be);
            bad.extend_from_slice(&if be { [0xD8, 0x01] } else { [0x01, 0xD8] });
            bad.extend(encode("b", be));
            bad.extend_from_slice(&if be { [0xDC, 0x02] } else { [0x02, 0xDC] });
            bad.extend_from_slice(&[0, 0]);
            bad.extend_from_slice(&if be { [0xD8, 0x3D] } else { [0x3D, 0xD8] });
            bad.push(0x41);
            inputs.push(bad);
            inputs.push(Vec::new());
            inputs.push(vec![0x41]);
            let long: String = text.repeat(700);
            inputs.push(encode(&long, be));
            for input in &inputs {
                let reference = whole(input, be);
                for size in [1, 2, 3, 7, 4096] {
                    assert_eq!(chunked(input, be, size), reference, "size {size} be {be}");
                }
            }
        }
    }

    #[test]
    fn chunked_equals_whole_random() {
        let mut rng = super::super::tests::XorShift(0x2545_F491_4F6C_DD1D);
        for _ in 0..500 {
            let input = rng.bytes(40);
            for be in [false, true] {
                let reference = whole(&input, be);
                let size = 1 + (rng.next() % 9) as usize;
                assert_eq!(chunked(&input, be, size), reference);
                assert!(String::from_utf8(reference.0).is_ok());
            }
        }
    }

    #[test]
    fn unpaired_surrogates() {
        // LE: 'a', high D801, 'b', low DC02, high D83D at the end.
        let input = [0x61, 0, 0x01, 0xD8, 0x62, 0, 0x02, 0xDC, 0x3D, 0xD8];
        let (out, p) = whole(&input, false);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\u{FFFD}b\u{FFFD}\u{FFFD}"
        );
        assert_eq!(p, vec![DecodeProblem::UnpairedSurrogate; 3]);
        // Two highs in a row then a low: the first is unpaired, the second pairs.
        let input = [0xD8, 0x3D, 0xD8, 0x3D, 0xDE, 0x00];
        let (out, p) = whole(&input, true);
        assert_eq!(String::from_utf8(out).unwrap(), "\u{FFFD}\u{1F600}");
        assert_eq!(p, vec![DecodeProblem::UnpairedSurrogate]);
    }

    #[test]
    fn odd_trailing_octet() {
        let (out, p) = whole(&[0x41, 0x00, 0x42], false);
        assert_eq!(String::from_utf8(out).unwrap(), "A\u{FFFD}");
        assert_eq!(p, vec![DecodeProblem::TruncatedUtf16]);
    }

    #[test]
    fn decoder_reusable_after_last() {
        let mut dec = Utf16Decoder::new(false);
        let mut out = Vec::new();
        dec.decode_chunk(&[0x41], true, &mut out, &mut |_| {});
        dec.decode_chunk(&[0x42, 0x00], true, &mut out, &mut |_| {});
        assert_eq!(String::from_utf8(out).unwrap(), "\u{FFFD}B");
    }
}
