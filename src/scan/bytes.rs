//! Byte-scanning helpers shared by the scanner, the reader and the batch
//! source: finding and counting line breaks, and the ASCII prefix of a
//! buffer.

/// The first CR or LF at or after `i`.
///
/// Eight bytes at a time: `w - 0x0E..0E & !w & 0x80..80` flags the bytes
/// below 0x0E (exactly, up to and including the lowest flagged byte), which
/// are CR and LF or, rarely, another control character such as a tab.
/// Line strings are short, so this beats a vectorised search that must be
/// set up afresh for each line.
#[inline(always)]
pub(crate) fn find_break(hay: &[u8], mut i: usize) -> Option<usize> {
    const LOW: u64 = 0x0E0E_0E0E_0E0E_0E0E;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = hay.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0xFF; 8]));
        let m = w.wrapping_sub(LOW) & !w & HIGH;
        if m == 0 {
            i += 8;
            continue;
        }
        let k = i + (m.trailing_zeros() / 8) as usize;
        if matches!(hay[k], b'\n' | b'\r') {
            return Some(k);
        }
        i = k + 1;
    }
    hay.get(i..)?
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|k| i + k)
}

/// The decimal digits of `n`: `digits[i..]` of the returned
/// `(digits, i)` (a level when writing a line, a number of a formal date).
pub(crate) fn decimal_digits(n: u32) -> ([u8; 10], usize) {
    let mut digits = [0u8; 10];
    let (mut n, mut i) = (n, digits.len());
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    (digits, i)
}

/// Line breaks in `bytes` as the scanner counts them (CRLF is one).
pub(crate) fn count_breaks(bytes: &[u8]) -> u64 {
    if memchr::memchr(b'\r', bytes).is_none() {
        // memchr's vectorised count: 15 ms on 300 MB of generated text,
        // in 64 KiB pieces or whole, against 27 ms for a word at a time.
        return memchr::memchr_iter(b'\n', bytes).count() as u64;
    }
    let all = memchr::memchr2_iter(b'\n', b'\r', bytes).count();
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    (all - crlf) as u64
}

/// The length of the longest ASCII prefix of `b`.
pub(crate) fn ascii_prefix(b: &[u8]) -> usize {
    let mut at = 0;
    for chunk in b.chunks(256) {
        if !chunk.is_ascii() {
            return at + chunk.iter().position(|c| !c.is_ascii()).unwrap_or(0);
        }
        at += chunk.len();
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Lines;

    #[test]
    fn find_break_finds_the_first_cr_or_lf() {
        let mut hay = vec![b'a'; 40];
        assert_eq!(find_break(&hay, 0), None);
        for at in 0..40 {
            for brk in [b'\n', b'\r'] {
                let mut h = hay.clone();
                h[at] = brk;
                // Control bytes and high bytes before it are not breaks.
                if at > 2 {
                    h[at - 1] = b'\t';
                    h[at - 2] = 0x8D;
                    h[at - 3] = 0x0B;
                }
                for from in 0..=at {
                    assert_eq!(find_break(&h, from), Some(at), "at {at} from {from}");
                }
                assert_eq!(find_break(&h, at + 1), None);
            }
        }
        hay[39] = 0;
        assert_eq!(find_break(&hay, 0), None);
    }

    #[test]
    fn breaks_are_counted_like_the_scanner() {
        for s in [&b"a\nb\r\nc\rd\n\re"[..], b"", b"\r\n\r\n", b"x\r"] {
            let want = Lines::new(s).last().map_or(1, |l| l.number);
            let breaks = count_breaks(s);
            // The last line's number is one more than the breaks before it.
            assert!(breaks + 1 >= want, "{s:?}");
        }
        assert_eq!(count_breaks(b"a\nb\r\nc\rd\n\re"), 5);
        let text: Vec<u8> = (0..1000u32)
            .map(|i| [b'a', b'\n', 0x8a, 0x0b, 0x09, 0xff][(i * 7 % 13 % 6) as usize])
            .collect();
        for len in [0, 1, 7, 8, 9, 100, 1000] {
            let want = text[..len].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(count_breaks(&text[..len]), want);
        }
    }
}
