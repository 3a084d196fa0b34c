//! What the reader learns from the HEAD before the first event.

use crate::escape::EscapeTable;
use crate::payload::TrailingWhitespace;
use crate::scan::{is_ws, parse_line, Lines};
use crate::version::Version;

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
/// scanning stops at the next level-0 line. An `ESC` payload continued on
/// `CONC`/`CONT` lines is joined as the reader joins payloads (`trailing`:
/// the trailing-whitespace rule), so that the table agrees with the `ESC`
/// structures' text (a writer may split a long `ESC` line anywhere).
///
/// The one parser of `ESC` lines: the reader's table and the tree's
/// [`Schema`](crate::tree::Schema) both come from it. `rejected` is called
/// with the line number, byte offset and joined payload of each non-empty
/// `ESC` payload that is not a tag and escape types.
pub(crate) fn escape_table(
    lines: Lines<'_>,
    trailing: TrailingWhitespace,
    rejected: &mut dyn FnMut(u64, usize, &[u8]),
) -> EscapeTable {
    let mut table = EscapeTable::empty();
    let mut has_schema = false;
    let mut in_schema = false;
    // Unparsable lines stay in the sequence: they end a run of additional lines.
    let mut lines = lines
        .map(|raw| {
            parse_line(raw.text)
                .ok()
                .map(|l| (raw.number, raw.start, l))
        })
        .peekable();
    while let Some(item) = lines.next() {
        let Some((number, start, line)) = item else {
            continue;
        };
        match line.level {
            0 => break,
            1 => {
                in_schema = line.tag == b"SCHMA";
                has_schema |= in_schema;
            }
            2 if in_schema && line.tag == b"ESC" => {
                let mut payload = Vec::new();
                let mut current = line;
                loop {
                    // The next line, when it is an additional line of this one:
                    // `Some(true)` for CONC, `Some(false)` for CONT.
                    let joint = match lines.peek() {
                        Some(Some((_, _, n)))
                            if n.level == 3 && (n.tag == b"CONC" || n.tag == b"CONT") =>
                        {
                            Some(n.tag == b"CONC")
                        }
                        _ => None,
                    };
                    let keep = trailing.keeps(joint == Some(true));
                    let part = if keep {
                        current.payload_untrimmed
                    } else {
                        current.payload
                    };
                    payload.extend_from_slice(part.unwrap_or_default());
                    let Some(conc) = joint else {
                        break;
                    };
                    let Some(Some((_, _, next))) = lines.next() else {
                        break;
                    };
                    if !conc {
                        payload.push(b'\n');
                    }
                    current = next;
                }
                if !table.add_esc_payload(&payload) && !payload.is_empty() {
                    rejected(number, start, &payload);
                }
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

/// The version the HEAD says (`HEAD.GEDC.VERS`, through
/// [`Version::from_vers`]) and the number of its `VERS` line; `None` when
/// the HEAD has no `GEDC.VERS`. `lines` starts after `0 HEAD`; scanning
/// stops at the next level-0 line. The first `GEDC.VERS` counts.
pub(crate) fn version(lines: Lines<'_>) -> Option<(Version, u64)> {
    let mut in_gedc = false;
    for raw in lines {
        let Ok(line) = parse_line(raw.text) else {
            continue;
        };
        match line.level {
            0 => break,
            1 => in_gedc = line.tag == b"GEDC",
            2 if in_gedc && line.tag == b"VERS" => {
                let vers = line.payload.unwrap_or_default();
                return Some((Version::from_vers(vers), raw.number));
            }
            _ => {}
        }
    }
    None
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
    fn version_from_gedc_vers() {
        let v = |text: &[u8]| version(Lines::starting_at(text, 0, 2));
        assert_eq!(
            v(b"1 GEDC\n2 VERS 7.0\n0 TRLR\n"),
            Some((Version::Gedcom7, 3))
        );
        assert_eq!(
            v(b"1 SOUR X\n2 VERS 7.0\n1 GEDC\n2 FORM LINEAGE-LINKED\n2 VERS 5.5.5\n"),
            Some((Version::Gedcom551, 6))
        );
        // Not the HEAD's, or not under GEDC.
        assert_eq!(
            v(b"1 SOUR X\n2 VERS 7.0\n0 @I1@ INDI\n1 GEDC\n2 VERS 7.0\n"),
            None
        );
        assert_eq!(v(b"1 GEDC\n3 VERS 7.0\n"), None);
        assert_eq!(v(b""), None);
    }

    #[test]
    fn schema_escape_lines() {
        let t = escape_table(
            Lines::new(b"1 CHAR UTF-8\n0 @I1@ INDI\n1 SCHMA\n2 ESC X Y"),
            TrailingWhitespace::default(),
            &mut |_, _, _| {},
        );
        assert!(t.lookup(b"DATE").contains(b'D'));
        assert!(t.lookup(b"X").is_empty());
        let t = escape_table(
            Lines::new(b"1 SCHMA\n2 ESC _OLD QG\n1 SOUR x\n2 ESC _NOT Z\n1 SCHMA\n2 ESC _B B"),
            TrailingWhitespace::default(),
            &mut |_, _, _| {},
        );
        assert!(t.lookup(b"DATE").is_empty());
        assert!(t.lookup(b"_OLD").contains(b'G'));
        assert!(t.lookup(b"_NOT").is_empty());
        assert!(t.lookup(b"_B").contains(b'B'));
    }

    /// Fuzz `rewrite` crash b794e926: `fmt` split a long `ESC` line with `CONC`, and
    /// the reader's own table looked at the first line only, so `DATE` lost its `D`.
    #[test]
    fn continued_escape_lines_are_joined_as_payloads() {
        let table =
            |text: &[u8], trailing| escape_table(Lines::new(text), trailing, &mut |_, _, _| {});
        let keep = TrailingWhitespace::KeepBeforeConc;
        // Split inside the types, inside the tag, and right after the space.
        for text in [
            &b"1 SCHMA\n2 ESC DATE XY\n3 CONC ZD\n"[..],
            b"1 SCHMA\n2 ESC DA\n3 CONC TE D\n",
            b"1 SCHMA\n2 ESC DATE \n3 CONC D\n",
        ] {
            let t = table(text, keep);
            assert!(
                t.lookup(b"DATE").contains(b'D'),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        // Trailing whitespace as the reader treats it: removed, "DATED" is one word.
        let t = table(
            b"1 SCHMA\n2 ESC DATE \n3 CONC D\n",
            TrailingWhitespace::Trim,
        );
        assert!(t.lookup(b"DATE").is_empty());
        // A CONT adds a line feed, which does not separate words here (as in the tree's
        // schema, which reads the joined text).
        let t = table(b"1 SCHMA\n2 ESC DATE\n3 CONT D\n", keep);
        assert!(t.lookup(b"DATE").is_empty());
        // Not additional lines: a deeper or unparsable line between, a CONC one level
        // too deep.
        for text in [
            &b"1 SCHMA\n2 ESC DATE X\n3 _Y y\n3 CONC D\n"[..],
            b"1 SCHMA\n2 ESC DATE X\n???\n3 CONC D\n",
            b"1 SCHMA\n2 ESC DATE X\n4 CONC D\n",
        ] {
            let t = table(text, keep);
            assert!(
                !t.lookup(b"DATE").contains(b'D'),
                "{:?}",
                String::from_utf8_lossy(text)
            );
            assert!(t.lookup(b"DATE").contains(b'X'));
        }
    }
}
