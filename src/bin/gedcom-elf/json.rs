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

    #[test]
    fn numbers_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::from(u32::MAX), u64::MAX] {
            let mut v = Vec::new();
            write_u64(&mut v, n).unwrap();
            assert_eq!(String::from_utf8(v).unwrap(), n.to_string());
        }
    }
}
