//! Minimal RFC 8259 JSON output (strings and objects of the `events` contract).

use std::io::{self, Write};

use gedcom_elf::{Begin, StructureType, Value};

/// Writes a structure's `,"xref":…`, `,"pointer":…` or `,"text":…`, and
/// `,"type":…` keys, those that apply, in that order: the fields `events`
/// and `json` share.
pub fn write_fields<W: Write>(
    out: &mut W,
    b: &Begin<'_>,
    ty: Option<StructureType<'_>>,
) -> io::Result<()> {
    if let Some(x) = &b.xref {
        out.write_all(b",\"xref\":")?;
        write_str(out, &x.to_str_lossy())?;
    }
    match &b.value {
        Some(Value::Pointer(p)) => {
            out.write_all(b",\"pointer\":")?;
            write_str(out, &p.to_str_lossy())?;
        }
        Some(Value::Text(t)) => {
            out.write_all(b",\"text\":")?;
            write_str(out, &t.text())?;
        }
        None => {}
    }
    if let Some(t) = ty {
        out.write_all(b",\"type\":")?;
        write_str(out, &t.iri())?;
    }
    Ok(())
}

/// Writes `s` as a JSON string: `"` and `\` escaped, control characters as
/// `\n`, `\r`, `\t`, `\b`, `\f` or `\u00xx`; everything else raw UTF-8.
pub fn write_str<W: Write>(out: &mut W, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time past the ones that need no escape (most).
        if let Some(w) = bytes.get(i..i + 8) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            if !has_special(w) {
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
            write!(out, "\\u{:04x}", b)?;
        } else {
            out.write_all(esc)?;
        }
        i += 1;
        start = i;
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

/// Whether one of the eight bytes of `w` needs an escape in a JSON string:
/// below 0x20, `"` or `\`. Exact for "any": a borrow runs only upwards
/// from a byte that is flagged itself.
#[inline(always)]
fn has_special(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    (control | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')))) != 0
}

/// Writes `n` in decimal (what `write!(out, "{n}")` writes, without the
/// formatting machinery).
pub fn write_u64<W: Write>(out: &mut W, n: u64) -> io::Result<()> {
    out.write_all(itoa::Buffer::new().format(n).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> String {
        let mut v = Vec::new();
        write_str(&mut v, s).unwrap();
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
        assert!(!has_special(u64::from_le_bytes(*b"abc~\x7f !#")));
        assert!(has_special(u64::from_le_bytes(*b"abcdefg\x1f")));
    }

    #[test]
    fn numbers_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::from(u32::MAX), u64::MAX] {
            let mut v = Vec::new();
            write_u64(&mut v, n).unwrap();
            assert_eq!(String::from_utf8(v).unwrap(), n.to_string());
        }
    }
}
