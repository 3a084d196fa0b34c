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

/// Writes `s` as a JSON string: the library's one rule
/// ([`gedcom_elf::escape::json_string`]).
pub fn write_str<W: Write>(out: &mut W, s: &str) -> io::Result<()> {
    gedcom_elf::escape::json_string(out, s)
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
