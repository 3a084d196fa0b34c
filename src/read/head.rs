//! What the reader learns from the HEAD before the first event.

use crate::escape::EscapeTable;
use crate::scan::{is_ws, parse_line, Lines};

/// `true` when `text`, whitespace-normalised and upper-cased, is `0 HEAD`
/// (seed §3.2).
pub(crate) fn is_head_line(text: &[u8]) -> bool {
    let mut words = text.split(|&b| is_ws(b)).filter(|w| !w.is_empty());
    matches!(
        (words.next(), words.next(), words.next()),
        (Some(b"0"), Some(h), None) if h.eq_ignore_ascii_case(b"HEAD")
    )
}

/// The escape-preservation table of the HEAD's schema (seed §6.2): the
/// `ESC` lines under every `1 SCHMA`, merged; with no `SCHMA` at all, the
/// default schema's (`DATE` preserves `D`). `lines` starts after `0 HEAD`;
/// scanning stops at the next level-0 line.
pub(crate) fn escape_table(lines: Lines<'_>) -> EscapeTable {
    let mut table = EscapeTable::empty();
    let mut has_schema = false;
    let mut in_schema = false;
    for raw in lines {
        let Ok(line) = parse_line(raw.text) else {
            continue;
        };
        match line.level {
            0 => break,
            1 => {
                in_schema = line.tag == b"SCHMA";
                has_schema |= in_schema;
            }
            2 if in_schema && line.tag == b"ESC" => {
                table.add_esc_payload(line.payload.unwrap_or_default());
            }
            _ => {}
        }
    }
    if has_schema {
        table
    } else {
        EscapeTable::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_line_is_normalised() {
        assert!(is_head_line(b"0 HEAD"));
        assert!(is_head_line(b"0\t head  "));
        assert!(!is_head_line(b"0 HEAD x"));
        assert!(!is_head_line(b"1 HEAD"));
        assert!(!is_head_line(b"0 @H@ HEAD"));
        assert!(!is_head_line(b"00 HEAD"));
    }

    #[test]
    fn schema_escape_lines() {
        let t = escape_table(Lines::new(b"1 CHAR UTF-8\n0 @I1@ INDI\n1 SCHMA\n2 ESC X Y"));
        assert!(t.lookup(b"DATE").contains(b'D'));
        assert!(t.lookup(b"X").is_empty());
        let t = escape_table(Lines::new(
            b"1 SCHMA\n2 ESC _OLD QG\n1 SOUR x\n2 ESC _NOT Z\n1 SCHMA\n2 ESC _B B",
        ));
        assert!(t.lookup(b"DATE").is_empty());
        assert!(t.lookup(b"_OLD").contains(b'G'));
        assert!(t.lookup(b"_NOT").is_empty());
        assert!(t.lookup(b"_B").contains(b'B'));
    }
}
