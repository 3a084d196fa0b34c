//! Minimal RFC 8259 JSON output (strings and objects of the `events` contract).

use std::io::{self, Write};

/// Writes `s` as a JSON string: `"` and `\` escaped, control characters as
/// `\n`, `\r`, `\t`, `\b`, `\f` or `\u00xx`; everything else raw UTF-8.
pub fn write_str<W: Write>(out: &mut W, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.write_all(&bytes[start..i])?;
        if esc.is_empty() {
            write!(out, "\\u{:04x}", b)?;
        } else {
            out.write_all(esc)?;
        }
        start = i + 1;
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
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
}
