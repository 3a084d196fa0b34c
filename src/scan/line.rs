//! The `Line` production of seed §4.1.

use super::cursor::{parse_at, Scanned};
use super::{is_id, is_upper_id};

/// A line string parsed against the `Line` production (seed §4.1):
/// `Number S (XRefID S)? Tag (S Payload)?`.
///
/// All slices borrow from the line string. The S before the payload matches
/// exactly one whitespace character, so further whitespace is payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The level (`Number`); values beyond `u32::MAX` saturate.
    pub level: u32,
    /// The structure identifier, `@` signs included.
    pub xref: Option<&'a [u8]>,
    /// The tag (always ASCII: `[0-9a-zA-Z_]+`).
    pub tag: &'a [u8],
    /// The payload with trailing whitespace removed; `None` when absent.
    pub payload: Option<&'a [u8]>,
    /// The payload up to the end of the line string, trailing whitespace
    /// kept. `Some` whenever `payload` is, and also when only whitespace
    /// follows the tag's delimiter.
    pub payload_untrimmed: Option<&'a [u8]>,
}

/// Why a line string does not match the `Line` production.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LineError {
    /// The line string does not begin with a level (`0` or `[1-9][0-9]*`).
    Level,
    /// A required whitespace delimiter is missing.
    Delimiter,
    /// Something that begins with `@` where the xref belongs is not an `XRefID`.
    Xref,
    /// The tag is missing or holds a character outside `[0-9a-zA-Z_]`.
    Tag,
}

impl LineError {
    /// A short lowercase description.
    pub fn describe(self) -> &'static str {
        match self {
            LineError::Level => "no valid level",
            LineError::Delimiter => "missing whitespace delimiter",
            LineError::Xref => "malformed xref",
            LineError::Tag => "malformed tag",
        }
    }
}

/// `true` when `t` matches `Tag ::= [0-9a-zA-Z_]+` as a whole.
///
/// ```
/// use gedcom_elf::scan::is_tag;
///
/// assert!(is_tag(b"_UID") && is_tag(b"NOTE"));
/// assert!(!is_tag(b"") && !is_tag(b"NO TE") && !is_tag(b"@I1@"));
/// ```
#[inline]
pub fn is_tag(t: &[u8]) -> bool {
    !t.is_empty() && t.iter().all(|&b| is_id(b))
}

/// `true` when `p` matches `Pointer ::= "@" [a-zA-Z0-9_] [^@]* "@"` as a whole.
#[inline]
pub fn is_pointer(p: &[u8]) -> bool {
    p.len() >= 3
        && p[0] == b'@'
        && is_id(p[1])
        && p[p.len() - 1] == b'@'
        && memchr::memchr(b'@', &p[2..p.len() - 1]).is_none()
}

/// `true` when `x` matches `XRefID ::= "@" [a-zA-Z0-9_] [^@:!]* "@"` as a whole.
pub fn is_valid_xref(x: &[u8]) -> bool {
    x.len() >= 3
        && x[0] == b'@'
        && is_id(x[1])
        && x[x.len() - 1] == b'@'
        && x[2..x.len() - 1]
            .iter()
            .all(|&b| b != b'@' && b != b':' && b != b'!')
}

/// Parses one line string (leading whitespace already removed, as
/// [`super::Lines`] yields it).
///
/// # Errors
/// Returns the first way in which `text` fails to match the `Line`
/// production; such a line string is an *unparsable line string*.
#[inline]
pub fn parse_line(text: &[u8]) -> Result<Line<'_>, LineError> {
    let mut s = Scanned::default();
    parse_at(text, 0, text.len(), &mut s);
    if let Some(e) = s.error {
        return Err(e);
    }
    Ok(Line {
        level: s.level,
        xref: s.has_xref().then(|| &text[s.xref_start..s.xref_end]),
        tag: &text[s.tag_start..s.tag_end],
        payload: s.payload().map(|(a, b)| &text[a..b]),
        payload_untrimmed: s.payload_untrimmed().map(|(a, b)| &text[a..b]),
    })
}

/// The tag of a record whose first line is the plain `0 @ID@ TAG` (an id
/// of `[0-9a-zA-Z_]`, a tag of `[0-9A-Z_]`, a line break right after it):
/// what [`parse_line`] reads from that line, without its general checks,
/// for who meets every record's first line (the GEDCOM X index, which
/// passes over most records). `None` for any other line, which
/// `parse_line` reads.
pub(crate) fn plain_record_tag(record: &[u8]) -> Option<&[u8]> {
    let rest = record.strip_prefix(b"0 @")?;
    let id = rest.iter().position(|&b| !is_id(b))?;
    let rest = rest[id..].strip_prefix(b"@ ").filter(|_| id > 0)?;
    let end = rest.iter().position(|&b| !is_upper_id(b))?;
    match rest.get(end) {
        Some(b'\n' | b'\r') if end > 0 => Some(&rest[..end]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain record line's tag is the one `parse_line` reads, and a line
    /// that is not plain is left to it: every line of the corpus and lines
    /// near the plain form.
    #[test]
    fn a_plain_record_line_s_tag_is_parse_line_s() {
        let mut lines: Vec<Vec<u8>> = [
            "0 @I1@ INDI\n",
            "0 @F_2@ FAM\r\n",
            "0 @S1@ SOUR\r",
            "0 @N1@ NOTE text\n",
            "0 @@ INDI\n",
            "0 @I1@INDI\n",
            "0 @I1@  INDI\n",
            "0 @I 1@ INDI\n",
            "0 @I1@ indi\n",
            "0 @I1@ _UID\n",
            "0 @I1@ INDI",
            "0 @I1@ \n",
            "00 @I1@ INDI\n",
            "0 HEAD\n",
            " 0 @I1@ INDI\n",
            "0 @I:1@ INDI\n",
            "0 @1@ 1A\n",
        ]
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .collect();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
        let corpus = std::fs::read_dir(dir).into_iter().flatten().flatten();
        for entry in corpus {
            let bytes = std::fs::read(entry.path()).unwrap_or_default();
            for line in super::super::Lines::new(&bytes) {
                lines.push([line.text, b"\n"].concat());
            }
        }
        let mut plain = 0;
        for line in &lines {
            let Some(tag) = plain_record_tag(line) else {
                continue;
            };
            plain += 1;
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let parsed = parse_line(text).expect("a plain line parses");
            assert_eq!((parsed.level, parsed.tag), (0, tag), "{line:?}");
        }
        assert!(plain > 20, "{plain} plain lines");
        for line in ["0 @I1@ INDI\n", "0 @F_2@ FAM\r\n", "0 @S1@ SOUR\r"] {
            assert!(plain_record_tag(line.as_bytes()).is_some(), "{line:?}");
        }
        for line in [
            "0 @N1@ NOTE text\n",
            "0 @@ INDI\n",
            "0 @I1@  INDI\n",
            "0 @I1@ INDI",
            "0 @I1@ indi\n",
        ] {
            assert_eq!(plain_record_tag(line.as_bytes()), None, "{line:?}");
        }
    }

    fn ok(s: &str) -> Line<'_> {
        parse_line(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e:?}"))
    }

    #[test]
    fn the_seed_cleopatra_lines() {
        let l = ok("0 @I1@ INDI");
        assert_eq!(
            (l.level, l.xref, l.tag, l.payload),
            (0, Some(&b"@I1@"[..]), &b"INDI"[..], None)
        );
        let l = ok("1 NAME Cleopatra");
        assert_eq!(l.payload, Some(&b"Cleopatra"[..]));
        let l = ok("1 FAMC @F2@");
        assert!(is_pointer(l.payload.unwrap()));
    }

    #[test]
    fn level_production() {
        assert_eq!(parse_line(b"01 NAME x"), Err(LineError::Level));
        assert_eq!(parse_line(b"x NAME"), Err(LineError::Level));
        assert_eq!(parse_line(b"-1 NAME"), Err(LineError::Level));
        assert_eq!(ok("10 NAME").level, 10);
        assert_eq!(ok("99999999999999999999 NAME").level, u32::MAX);
    }

    #[test]
    fn delimiters_are_required() {
        assert_eq!(parse_line(b"0HEAD"), Err(LineError::Delimiter));
        assert_eq!(
            parse_line(b"0@I1@INDI"),
            Err(LineError::Xref).or(Err(LineError::Delimiter))
        );
        assert_eq!(parse_line(b"0 @I1@INDI"), Err(LineError::Delimiter));
        assert_eq!(parse_line(b"1"), Err(LineError::Delimiter));
        assert_eq!(parse_line(b"1 "), Err(LineError::Delimiter));
    }

    #[test]
    fn tabs_and_runs_of_whitespace_delimit() {
        let l = ok("1\t@X1@ \t NAME\tJohn");
        assert_eq!(
            (l.xref, l.tag, l.payload),
            (Some(&b"@X1@"[..]), &b"NAME"[..], Some(&b"John"[..]))
        );
    }

    #[test]
    fn only_one_delimiter_before_the_payload() {
        assert_eq!(ok("1 NOTE  x").payload, Some(&b" x"[..]));
        assert_eq!(ok("1 NOTE \tx").payload, Some(&b"\tx"[..]));
    }

    #[test]
    fn trailing_whitespace() {
        let l = ok("1 NOTE abc  ");
        assert_eq!(l.payload, Some(&b"abc"[..]));
        assert_eq!(l.payload_untrimmed, Some(&b"abc  "[..]));
        let l = ok("1 BIRT ");
        assert_eq!((l.payload, l.payload_untrimmed), (None, None));
        let l = ok("1 NOTE  \t");
        assert_eq!((l.payload, l.payload_untrimmed), (None, Some(&b" \t"[..])));
    }

    #[test]
    fn xref_production() {
        assert_eq!(ok("0 @I 1@ INDI").xref, Some(&b"@I 1@"[..]));
        assert_eq!(parse_line(b"0 @:x@ INDI"), Err(LineError::Xref));
        assert_eq!(parse_line(b"0 @I:1@ INDI"), Err(LineError::Xref));
        assert_eq!(parse_line(b"0 @I!1@ INDI"), Err(LineError::Xref));
        assert_eq!(parse_line(b"0 @@ INDI"), Err(LineError::Xref));
        assert_eq!(parse_line(b"0 @I1 INDI"), Err(LineError::Xref));
    }

    #[test]
    fn tag_production() {
        assert_eq!(ok("1 _my_Tag2 x").tag, b"_my_Tag2");
        assert_eq!(parse_line(b"1 NA-ME x"), Err(LineError::Tag));
        assert_eq!(parse_line(b"1 NAME/x/"), Err(LineError::Tag));
        assert_eq!(parse_line(b"1 @X@ "), Err(LineError::Delimiter));
        assert_eq!(parse_line("1 ÑAME".as_bytes()), Err(LineError::Tag));
    }

    #[test]
    fn pointer_production() {
        assert!(is_pointer(b"@I1@"));
        assert!(is_pointer(b"@I 1:!@"));
        assert!(!is_pointer(b"@I1@ x"));
        assert!(!is_pointer(b"@#DJULIAN@"));
        assert!(!is_pointer(b"@@"));
        assert!(!is_pointer(b"@@@"));
        assert!(!is_pointer(b"@a@b@"));
        assert!(!is_pointer(b"x@I1@"));
    }
}
