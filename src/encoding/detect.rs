//! Whole-input encoding detection: ELF §3.1 (detected encoding) and §3.2 (specified
//! encoding), plus this project's table of implementation-defined `CHAR` values.

use std::fmt;

use super::utf16::decode_utf16_into_string;
use super::{normalise_whitespace, Encoding};
use crate::version::Version;

/// How many octets (after any byte-order mark) [`detect`] looks at, at most, while scanning
/// the `HEAD` record for a `CHAR` line. Real `HEAD` records are a few hundred octets, and
/// the scan stops at the first line of the next record, so this only bounds the work on
/// damaged or hostile input.
pub const HEAD_SCAN_LIMIT: usize = 1 << 20;

/// Where the encoding chosen by [`detect`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EncodingSource {
    /// The caller named it (for instance a command-line `--encoding`); it overrides
    /// everything else.
    Caller,
    /// A byte-order mark at the start of the input (ELF §3.1).
    ByteOrderMark,
    /// The first two octets looked like an ASCII character in UTF-16 (ELF §3.1).
    Sniffed,
    /// The `1 CHAR` line of the `HEAD` record (ELF §3.2).
    CharLine,
    /// Nothing said anything: ANSEL, the GEDCOM default.
    Default,
}

impl fmt::Display for EncodingSource {
    /// A short lowercase description: `caller`, `byte-order mark`, `sniffed`, `char line`,
    /// `default`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodingSource::Caller => "caller",
            EncodingSource::ByteOrderMark => "byte-order mark",
            EncodingSource::Sniffed => "sniffed",
            EncodingSource::CharLine => "char line",
            EncodingSource::Default => "default",
        })
    }
}

/// What [`detect`] found out about an input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Detection {
    /// The encoding to read the input with.
    pub encoding: Encoding,
    /// Where [`encoding`](Self::encoding) came from.
    pub source: EncodingSource,
    /// How many octets of byte-order mark to skip before reading (0, 2 or 3).
    pub bom_len: usize,
    /// The detected encoding of ELF §3.1, from a byte-order mark or UTF-16 sniffing; `None`
    /// when there was neither. Reported even when the caller chose the encoding.
    pub detected: Option<Encoding>,
    /// The payload of the `1 CHAR` line in the `HEAD` record as written (case kept, runs
    /// of spaces and tabs collapsed to one space); `None` when the `HEAD` has no such line.
    pub char_value: Option<String>,
    /// The 1-based line number of that `CHAR` line.
    pub char_line: Option<usize>,
    /// Lowercase warnings for the user (quoted values from the input keep their case).
    pub warnings: Vec<String>,
    /// Whether the first non-blank line string, whitespace-normalised and upper-cased, is
    /// exactly `0 HEAD`. When it is not, ELF says the input is not ELF and the reader must
    /// stop with an error; [`detect`] still returns what it has, with no `CHAR` line read.
    pub head_ok: bool,
}

/// The `CHAR` line of the `HEAD` names an encoding this crate does not support.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DetectError {
    /// The `CHAR` payload as written (whitespace-normalised, case kept).
    pub value: String,
    /// The 1-based line number of the `CHAR` line (a byte-order mark does not count).
    pub line: usize,
}

impl fmt::Display for DetectError {
    /// `unsupported character encoding "EBCDIC" on line 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported character encoding \"{}\" on line {}",
            self.value, self.line
        )
    }
}

impl std::error::Error for DetectError {}

/// Decides the encoding of a whole input.
///
/// In this order:
///
/// 1. `caller`, when given, is the encoding (source [`EncodingSource::Caller`]); a
///    byte-order mark is still stripped when it matches the caller's encoding, and the
///    `HEAD` is still scanned (read with the caller's encoding) for
///    [`char_value`](Detection::char_value) and [`head_ok`](Detection::head_ok). A `CHAR`
///    value that would be an error becomes a warning.
/// 2. A byte-order mark decides the detected encoding and is stripped (`EF BB BF` UTF-8,
///    `FF FE` UTF-16LE, `FE FF` UTF-16BE). Without one, first octets `xx 00` give UTF-16LE
///    and `00 xx` UTF-16BE, for `xx` in 01-7F.
/// 3. The `HEAD` is scanned: the start of the input is read with the detected encoding
///    (octet = code point when there is none), split into line strings at LF, CR and CRLF,
///    whitespace-normalised and ASCII-upper-cased. The first non-blank one must be
///    `0 HEAD`; the scan stops at the next line string that starts with `0 ` or after
///    `HEAD_SCAN_LIMIT` (1 MiB) octets. A line string `1 CHAR X` gives the specified encoding:
///
///    | `X` | encoding |
///    |---|---|
///    | `ASCII`, `ANSEL`, `UTF-8` | that one |
///    | `UNICODE`, `UTF-16` | the detected UTF-16; UTF-8 with a warning when none was detected |
///    | `UTF8` | UTF-8, with a warning |
///    | `ANSI`, `WINDOWS`, `ANSI WINDOWS` | windows-1252, or windows-125N when the next line string is `2 VERS 125N` (also `CP125N`, `WINDOWS-125N`) |
///    | `IBMPC`, `IBM PC`, `MSDOS`, `IBM DOS` | IBM 437, or IBM 850 when the next line string is `2 VERS 850` (also `CP850`, `IBM850`) |
///    | `MACINTOSH`, `MAC` | Mac Roman |
///    | `ISO-8859-1`, `LATIN1` | windows-1252 |
///    | anything else | `Err(DetectError)` naming it and its line |
///
///    Only the first `CHAR` line of the `HEAD` counts; one in any other record is never
///    used.
/// 4. With no specified encoding: the detected one, else ANSEL (source
///    [`EncodingSource::Default`], with a warning), or UTF-8 (source
///    [`EncodingSource::Default`], no warning) when a `2 VERS` line under `1 GEDC`,
///    before any `CHAR` line, names GEDCOM 7 ([`Version::from_vers`]). When UTF-16 was detected and the `CHAR`
///    line names anything else, UTF-16 is kept with a warning: the `CHAR` line could only
///    be read as UTF-16 in the first place. When a UTF-8 byte-order mark was seen and the
///    `CHAR` line names another encoding, the `CHAR` line wins (as ELF says), with a
///    warning.
///
/// # Errors
///
/// [`DetectError`] when, with no `caller`, the `CHAR` line of the `HEAD` names an encoding
/// outside the table above.
pub fn detect(input: &[u8], caller: Option<Encoding>) -> Result<Detection, DetectError> {
    let mut warnings = Vec::new();
    let (detected, bom) = sniff(input);
    let (bom_len, scan_enc) = match caller {
        Some(c) => {
            let matching = bom > 0 && detected == Some(c);
            if bom > 0 && !matching {
                if let Some(d) = detected {
                    warnings.push(format!(
                        "the input starts with a {d} byte-order mark, left in place because the caller chose {c}"
                    ));
                }
            }
            (if matching { bom } else { 0 }, Some(c))
        }
        None => (bom, detected),
    };
    let body = input.get(bom_len..).unwrap_or_default();
    let scan = scan_head(body, scan_enc, &mut warnings);
    let detected_source = if bom > 0 {
        EncodingSource::ByteOrderMark
    } else {
        EncodingSource::Sniffed
    };

    // With a caller's choice the CHAR line decides nothing, so its warnings would mislead.
    let mut char_warnings = Vec::new();
    let specified = scan
        .char_line
        .as_ref()
        .map(|c| specified_encoding(c, detected, &mut char_warnings));
    if caller.is_none() {
        warnings.append(&mut char_warnings);
    }

    let (encoding, source) = match caller {
        Some(c) => {
            if let Some(Err(e)) = &specified {
                warnings.push(format!("{e} ignored: the caller chose {c}"));
            }
            (c, EncodingSource::Caller)
        }
        None => match (specified, detected) {
            (Some(Err(e)), _) => return Err(e),
            (Some(Ok(s)), Some(d)) if d.is_utf16() && !s.is_utf16() => {
                warnings.push(format!(
                    "the char line says \"{}\" but the input is {d} ({detected_source}); reading it as {d}",
                    scan.char_line.as_ref().map_or("", |c| c.raw.as_str()),
                ));
                (d, detected_source)
            }
            (Some(Ok(s)), Some(d)) => {
                if d != s && !s.is_utf16() {
                    warnings.push(format!(
                        "the input starts with a {d} byte-order mark but the char line says \"{}\"; reading it as {s}",
                        scan.char_line.as_ref().map_or("", |c| c.raw.as_str()),
                    ));
                }
                (s, EncodingSource::CharLine)
            }
            (Some(Ok(s)), None) => (s, EncodingSource::CharLine),
            (None, Some(d)) => (d, detected_source),
            // GEDCOM 7 files are UTF-8 (and say so by a byte-order mark, if at all).
            (None, None) if scan.version == Some(Version::Gedcom7) => {
                (Encoding::Utf8, EncodingSource::Default)
            }
            (None, None) => {
                if scan.head_ok {
                    warnings.push("no char line in the head record; reading it as ansel".into());
                }
                (Encoding::Ansel, EncodingSource::Default)
            }
        },
    };

    Ok(Detection {
        encoding,
        source,
        bom_len,
        detected,
        char_value: scan.char_line.as_ref().map(|c| c.raw.clone()),
        char_line: scan.char_line.as_ref().map(|c| c.line),
        warnings,
        head_ok: scan.head_ok,
    })
}

/// ELF §3.1: the detected encoding and the length of its byte-order mark (0 when sniffed).
fn sniff(input: &[u8]) -> (Option<Encoding>, usize) {
    match input {
        [0xEF, 0xBB, 0xBF, ..] => (Some(Encoding::Utf8), 3),
        [0xFF, 0xFE, ..] => (Some(Encoding::Utf16Le), 2),
        [0xFE, 0xFF, ..] => (Some(Encoding::Utf16Be), 2),
        [0x01..=0x7F, 0x00, ..] => (Some(Encoding::Utf16Le), 0),
        [0x00, 0x01..=0x7F, ..] => (Some(Encoding::Utf16Be), 0),
        _ => (None, 0),
    }
}

/// A `1 CHAR` line found in the `HEAD`.
#[derive(Debug)]
struct CharLine {
    /// The payload as written, whitespace-normalised.
    raw: String,
    /// The payload upper-cased.
    upper: String,
    /// Its 1-based line number.
    line: usize,
    /// The payload of a `2 VERS` line string right after it, upper-cased.
    vers: Option<String>,
}

/// What the `HEAD` scan found.
#[derive(Debug)]
struct HeadScan {
    head_ok: bool,
    char_line: Option<CharLine>,
    /// What `HEAD.GEDC.VERS` says, when the scan met it before a `CHAR` line.
    version: Option<Version>,
}

/// How the scan turns octets into characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScanKind {
    /// Octet = code point (no detected encoding, or an 8-bit one other than UTF-8).
    Latin1,
    /// UTF-8, lossy.
    Utf8,
    /// UTF-16 in the given byte order (true = big endian), lossy.
    Utf16(bool),
}

impl ScanKind {
    fn of(enc: Option<Encoding>) -> ScanKind {
        match enc {
            Some(Encoding::Utf8) => ScanKind::Utf8,
            Some(Encoding::Utf16Le) => ScanKind::Utf16(false),
            Some(Encoding::Utf16Be) => ScanKind::Utf16(true),
            _ => ScanKind::Latin1,
        }
    }

    fn decode(self, line: &[u8]) -> String {
        match self {
            ScanKind::Latin1 => line.iter().map(|&b| char::from(b)).collect(),
            ScanKind::Utf8 => String::from_utf8_lossy(line).into_owned(),
            ScanKind::Utf16(be) => {
                let mut s = String::new();
                decode_utf16_into_string(line, be, &mut s, &mut |_| {});
                s
            }
        }
    }
}

/// Splits octets into raw line strings at LF, CR and CRLF (LF CR is two breaks), yielding
/// each with its 1-based line number.
struct RawLines<'a> {
    rest: &'a [u8],
    kind: ScanKind,
    line_no: usize,
    /// The octets end at the scan limit, not at the end of the input: a last line with no
    /// break after it is incomplete and not yielded.
    cut: bool,
}

impl RawLines<'_> {
    /// The offset of the next CR or LF in `rest` and the width of one code unit.
    fn find_break(&self) -> (Option<usize>, usize) {
        match self.kind {
            ScanKind::Latin1 | ScanKind::Utf8 => (memchr::memchr2(b'\n', b'\r', self.rest), 1),
            ScanKind::Utf16(be) => {
                let pos = self
                    .rest
                    .chunks_exact(2)
                    .position(|u| is_break_unit(u, be))
                    .map(|i| i * 2);
                (pos, 2)
            }
        }
    }
}

/// Whether a UTF-16 code unit is CR or LF.
fn is_break_unit(unit: &[u8], be: bool) -> bool {
    match (unit, be) {
        ([0, b], true) | ([b, 0], false) => *b == b'\n' || *b == b'\r',
        _ => false,
    }
}

impl<'a> Iterator for RawLines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let line_no = self.line_no;
        let (pos, width) = self.find_break();
        let Some(pos) = pos else {
            let line = std::mem::take(&mut self.rest);
            return if self.cut {
                None
            } else {
                Some((line_no, line))
            };
        };
        let (line, after) = self.rest.split_at(pos);
        // `after` starts with the break; a CR followed by LF is one break.
        let is_cr = match self.kind {
            ScanKind::Utf16(true) => after.get(1) == Some(&b'\r'),
            _ => after.first() == Some(&b'\r'),
        };
        let next_is_lf = match self.kind {
            ScanKind::Utf16(be) => after
                .get(2..4)
                .is_some_and(|u| is_break_unit(u, be) && u.contains(&b'\n')),
            _ => after.get(1) == Some(&b'\n'),
        };
        let skip = if is_cr && next_is_lf {
            2 * width
        } else {
            width
        };
        self.rest = after.get(skip..).unwrap_or_default();
        self.line_no += 1;
        Some((line_no, line))
    }
}

/// Normalised line strings: (line number, as written but whitespace-normalised, upper-cased);
/// blank line strings are skipped.
fn normalised_lines(
    raw: RawLines<'_>,
    kind: ScanKind,
) -> impl Iterator<Item = (usize, String, String)> + '_ {
    raw.filter_map(move |(n, bytes)| {
        let norm = normalise_whitespace(&kind.decode(bytes));
        if norm.is_empty() {
            None
        } else {
            let upper = norm.to_ascii_uppercase();
            Some((n, norm, upper))
        }
    })
}

/// ELF §3.2: checks the first line string and looks for the `CHAR` line of the `HEAD`.
fn scan_head(body: &[u8], enc: Option<Encoding>, warnings: &mut Vec<String>) -> HeadScan {
    let kind = ScanKind::of(enc);
    let mut limit = body.len().min(HEAD_SCAN_LIMIT);
    if matches!(kind, ScanKind::Utf16(_)) && limit < body.len() {
        limit &= !1;
    }
    let cut = limit < body.len();
    let raw = RawLines {
        rest: body.get(..limit).unwrap_or_default(),
        kind,
        line_no: 1,
        cut,
    };
    let mut lines = normalised_lines(raw, kind);
    let mut scan = HeadScan {
        head_ok: false,
        char_line: None,
        version: None,
    };
    let mut in_gedc = false;
    match lines.next() {
        Some((_, _, upper)) if upper == "0 HEAD" => scan.head_ok = true,
        _ => return scan,
    }
    while let Some((n, norm, upper)) = lines.next() {
        if upper.starts_with("0 ") {
            return scan;
        }
        if upper.starts_with("1 ") {
            in_gedc = upper == "1 GEDC";
        } else if let Some(vers) = upper.strip_prefix("2 VERS ").filter(|_| in_gedc) {
            scan.version
                .get_or_insert(Version::from_vers(vers.as_bytes()));
        }
        if let (Some(raw), Some(value)) = (norm.get(7..), upper.strip_prefix("1 CHAR ")) {
            let mut char_line = CharLine {
                raw: raw.to_string(),
                upper: value.to_string(),
                line: n,
                vers: None,
            };
            if let Some((_, _, next)) = lines.next() {
                char_line.vers = next.strip_prefix("2 VERS ").map(str::to_string);
            }
            scan.char_line = Some(char_line);
            return scan;
        }
    }
    if cut {
        warnings.push(format!(
            "stopped looking for a char line after {HEAD_SCAN_LIMIT} octets of head record"
        ));
    }
    scan
}

/// Maps a `CHAR` value (and the `VERS` after it) to an encoding, per this project's table.
fn specified_encoding(
    c: &CharLine,
    detected: Option<Encoding>,
    warnings: &mut Vec<String>,
) -> Result<Encoding, DetectError> {
    let vers = c.vers.as_deref();
    let enc = match c.upper.as_str() {
        "ASCII" => Encoding::Ascii,
        "ANSEL" => Encoding::Ansel,
        "UTF-8" => Encoding::Utf8,
        "UNICODE" | "UTF-16" => match detected {
            Some(d) if d.is_utf16() => {
                if c.upper != "UNICODE" {
                    warnings.push(format!(
                        "\"{}\" is not a gedcom char value (gedcom says unicode); reading the input as {d}",
                        c.raw
                    ));
                }
                d
            }
            _ => {
                warnings.push(format!(
                    "the char line says \"{}\" but the input is not utf-16 (no byte-order mark, and it does not start like utf-16); reading it as utf-8",
                    c.raw
                ));
                Encoding::Utf8
            }
        },
        "UTF8" => {
            warnings.push(format!(
                "\"{}\" is not a gedcom char value (gedcom says utf-8); reading the input as utf-8",
                c.raw
            ));
            Encoding::Utf8
        }
        "ANSI" | "WINDOWS" | "ANSI WINDOWS" => {
            windows_code_page(vers).unwrap_or(Encoding::Windows1252)
        }
        "IBMPC" | "IBM PC" | "MSDOS" | "IBM DOS" => {
            code_page("IBMPC", vers, &["CP", "IBM"]).unwrap_or(Encoding::Ibm437)
        }
        "MACINTOSH" | "MAC" => Encoding::MacRoman,
        "ISO-8859-1" | "LATIN1" => Encoding::Windows1252,
        _ => {
            return Err(DetectError {
                value: c.raw.clone(),
                line: c.line,
            })
        }
    };
    Ok(enc)
}

/// `125N`, `CP125N` or `WINDOWS-125N` (N in 0-8) on a `VERS` line.
fn windows_code_page(vers: Option<&str>) -> Option<Encoding> {
    code_page("ANSI", vers, &["CP", "WINDOWS-"])
}

/// The encoding a `VERS` line names under a `CHAR` line whose value is (or is an alias
/// of) `char_value`: its payload, less one of `prefixes`, is the encoding's
/// [`Encoding::vers`] (the table the writer writes from, read the other way).
fn code_page(char_value: &str, vers: Option<&str>, prefixes: &[&str]) -> Option<Encoding> {
    let v = vers?;
    let digits = prefixes.iter().find_map(|p| v.strip_prefix(p)).unwrap_or(v);
    Encoding::from_char_and_vers(char_value, digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(input: &[u8]) -> Detection {
        detect(input, None).expect("detection should succeed")
    }

    fn utf16(s: &str, be: bool, bom: bool) -> Vec<u8> {
        let mut units: Vec<u16> = Vec::new();
        if bom {
            units.push(0xFEFF);
        }
        units.extend(s.encode_utf16());
        units
            .into_iter()
            .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
            .collect()
    }

    /// Every warning is lowercase outside the quoted input values.
    fn assert_lowercase_warnings(d: &Detection) {
        for w in &d.warnings {
            let outside: String = w.split('"').step_by(2).collect();
            assert_eq!(outside, outside.to_lowercase(), "{w}");
        }
    }

    #[test]
    fn utf8_bom_and_char() {
        let d = ok(b"\xEF\xBB\xBF0 HEAD\r\n1 CHAR UTF-8\r\n0 TRLR\r\n");
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(d.source, EncodingSource::CharLine);
        assert_eq!(d.bom_len, 3);
        assert_eq!(d.detected, Some(Encoding::Utf8));
        assert_eq!(d.char_value.as_deref(), Some("UTF-8"));
        assert_eq!(d.char_line, Some(2));
        assert!(d.head_ok);
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    }

    #[test]
    fn utf8_bom_without_char() {
        let d = ok(b"\xEF\xBB\xBF0 HEAD\n1 SOUR X\n0 TRLR\n");
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(d.source, EncodingSource::ByteOrderMark);
        assert_eq!(d.bom_len, 3);
        assert_eq!(d.char_value, None);
    }

    #[test]
    fn utf8_bom_with_other_char_follows_char_with_warning() {
        let d = ok(b"\xEF\xBB\xBF0 HEAD\n1 CHAR ANSEL\n");
        assert_eq!(d.encoding, Encoding::Ansel);
        assert_eq!(d.source, EncodingSource::CharLine);
        assert_eq!(d.bom_len, 3);
        assert_eq!(d.warnings.len(), 1);
        assert_lowercase_warnings(&d);
    }

    #[test]
    fn no_bom_no_char_defaults_to_ansel() {
        let d = ok(b"0 HEAD\n1 SOUR X\n0 @I1@ INDI\n");
        assert_eq!(d.encoding, Encoding::Ansel);
        assert_eq!(d.source, EncodingSource::Default);
        assert_eq!(d.bom_len, 0);
        assert_eq!(d.detected, None);
        assert!(d.head_ok);
        assert_eq!(d.warnings.len(), 1);
        assert_lowercase_warnings(&d);
    }

    #[test]
    fn no_bom_char_lines() {
        for (value, enc) in [
            ("ASCII", Encoding::Ascii),
            ("ANSEL", Encoding::Ansel),
            ("UTF-8", Encoding::Utf8),
        ] {
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n0 TRLR\n").as_bytes());
            assert_eq!(d.encoding, enc, "{value}");
            assert_eq!(d.source, EncodingSource::CharLine);
            assert_eq!(d.bom_len, 0);
            assert!(d.warnings.is_empty());
        }
    }

    #[test]
    fn utf16_bom_both_endians() {
        for be in [false, true] {
            let want = if be {
                Encoding::Utf16Be
            } else {
                Encoding::Utf16Le
            };
            let input = utf16("0 HEAD\r\n1 CHAR UNICODE\r\n0 TRLR\r\n", be, true);
            let d = ok(&input);
            assert_eq!(d.encoding, want);
            assert_eq!(d.source, EncodingSource::CharLine);
            assert_eq!(d.bom_len, 2);
            assert_eq!(d.detected, Some(want));
            assert_eq!(d.char_line, Some(2));
            assert!(d.warnings.is_empty());
            // Without a CHAR line the byte-order mark decides.
            let d = ok(&utf16("0 HEAD\n0 TRLR\n", be, true));
            assert_eq!(
                (d.encoding, d.source),
                (want, EncodingSource::ByteOrderMark)
            );
        }
    }

    #[test]
    fn utf16_sniffed_both_endians() {
        for be in [false, true] {
            let want = if be {
                Encoding::Utf16Be
            } else {
                Encoding::Utf16Le
            };
            let d = ok(&utf16("0 HEAD\n1 SOUR X\n", be, false));
            assert_eq!(d.encoding, want);
            assert_eq!(d.source, EncodingSource::Sniffed);
            assert_eq!(d.bom_len, 0);
            assert_eq!(d.detected, Some(want));
            assert!(d.head_ok);
            let d = ok(&utf16("0 HEAD\n1 CHAR unicode\n", be, false));
            assert_eq!((d.encoding, d.source), (want, EncodingSource::CharLine));
        }
        // 00 00 or 80 00 is no sniffed UTF-16.
        assert_eq!(sniff(b"\0\0"), (None, 0));
        assert_eq!(sniff(b"\x80\0"), (None, 0));
        assert_eq!(sniff(b"0"), (None, 0));
    }

    #[test]
    fn utf16_detected_char_ansel_keeps_utf16() {
        let d = ok(&utf16("0 HEAD\n1 CHAR ANSEL\n", false, true));
        assert_eq!(d.encoding, Encoding::Utf16Le);
        assert_eq!(d.source, EncodingSource::ByteOrderMark);
        assert_eq!(d.char_value.as_deref(), Some("ANSEL"));
        assert_eq!(d.warnings.len(), 1);
        assert!(d.warnings[0].contains("\"ANSEL\""), "{:?}", d.warnings);
        assert_lowercase_warnings(&d);
        let d = ok(&utf16("0 HEAD\n1 CHAR UTF-8\n", true, false));
        assert_eq!(
            (d.encoding, d.source),
            (Encoding::Utf16Be, EncodingSource::Sniffed)
        );
        assert_eq!(d.warnings.len(), 1);
    }

    #[test]
    fn char_case_and_spacing() {
        let d = ok(b"0 head\n1  char   ansi\n0 trlr\n");
        assert_eq!(d.encoding, Encoding::Windows1252);
        assert_eq!(d.char_value.as_deref(), Some("ansi"));
        let d = ok(b"  0\tHEAD  \r\n\t1 Char\t Ansi  Windows \r\n");
        assert_eq!(d.encoding, Encoding::Windows1252);
        assert_eq!(d.char_value.as_deref(), Some("Ansi Windows"));
    }

    #[test]
    fn ansi_aliases() {
        for value in [
            "ANSI",
            "WINDOWS",
            "ANSI WINDOWS",
            "ISO-8859-1",
            "LATIN1",
            "latin1",
        ] {
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n").as_bytes());
            assert_eq!(d.encoding, Encoding::Windows1252, "{value}");
            assert_eq!(d.source, EncodingSource::CharLine);
            assert!(d.warnings.is_empty());
        }
    }

    #[test]
    fn ansi_vers_code_pages() {
        let d = ok(b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n0 TRLR\n");
        assert_eq!(d.encoding, Encoding::Windows1250);
        let pages = [
            Encoding::Windows1250,
            Encoding::Windows1251,
            Encoding::Windows1252,
            Encoding::Windows1253,
            Encoding::Windows1254,
            Encoding::Windows1255,
            Encoding::Windows1256,
            Encoding::Windows1257,
            Encoding::Windows1258,
        ];
        for (n, enc) in pages.into_iter().enumerate() {
            for vers in [
                format!("125{n}"),
                format!("cp125{n}"),
                format!("Windows-125{n}"),
            ] {
                let input = format!("0 HEAD\r1 CHAR WINDOWS\r2 VERS {vers}\r");
                assert_eq!(ok(input.as_bytes()).encoding, enc, "{vers}");
            }
        }
        // Unknown VERS, or a VERS that is not the next line string: plain 1252.
        for input in [
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1259\n",
            "0 HEAD\n1 CHAR ANSI\n2 VERS 5.5\n",
            "0 HEAD\n1 CHAR ANSI\n1 SUBM @S@\n2 VERS 1250\n",
            "0 HEAD\n1 CHAR ANSI\n0 @S@ SUBM\n2 VERS 1250\n",
        ] {
            assert_eq!(
                ok(input.as_bytes()).encoding,
                Encoding::Windows1252,
                "{input}"
            );
        }
        // Blank line strings between CHAR and VERS are discarded, so VERS is still next.
        let d = ok(b"0 HEAD\n1 CHAR ANSI\n\n  \n2 VERS 1251\n");
        assert_eq!(d.encoding, Encoding::Windows1251);
    }

    #[test]
    fn ibm_pc_aliases() {
        for value in ["IBMPC", "IBM PC", "MSDOS", "IBM DOS", "ibm  dos"] {
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n").as_bytes());
            assert_eq!(d.encoding, Encoding::Ibm437, "{value}");
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n2 VERS 850\n").as_bytes());
            assert_eq!(d.encoding, Encoding::Ibm850, "{value}");
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n2 VERS 437\n").as_bytes());
            assert_eq!(d.encoding, Encoding::Ibm437, "{value}");
        }
    }

    #[test]
    fn macintosh_aliases() {
        for value in ["MACINTOSH", "MAC", "Macintosh"] {
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n").as_bytes());
            assert_eq!(d.encoding, Encoding::MacRoman, "{value}");
        }
    }

    #[test]
    fn utf8_spelling_aliases_warn() {
        for value in ["UTF8", "UTF-16", "UNICODE", "utf8"] {
            let d = ok(format!("0 HEAD\n1 CHAR {value}\n").as_bytes());
            assert_eq!(d.encoding, Encoding::Utf8, "{value}");
            assert_eq!(d.source, EncodingSource::CharLine);
            assert_eq!(d.warnings.len(), 1, "{value}");
            assert_lowercase_warnings(&d);
        }
        // UTF-16 spelled out on a UTF-16 input: that UTF-16, with a warning.
        let d = ok(&utf16("0 HEAD\n1 CHAR UTF-16\n", true, true));
        assert_eq!(d.encoding, Encoding::Utf16Be);
        assert_eq!(d.warnings.len(), 1);
    }

    /// GEDCOM 7 is UTF-8: a 7.0 `HEAD` with no `CHAR` line and no byte-order mark is
    /// read as UTF-8, with no warning; a `VERS` anywhere but under `GEDC` does not count.
    #[test]
    fn gedcom7_without_char_is_utf8() {
        for vers in ["7.0", "7.0.1", "7.1"] {
            let d = ok(format!("0 HEAD\n1 GEDC\n2 VERS {vers}\n0 TRLR\n").as_bytes());
            assert_eq!(
                (d.encoding, d.source),
                (Encoding::Utf8, EncodingSource::Default)
            );
            assert!(d.warnings.is_empty(), "{vers}: {:?}", d.warnings);
        }
        for text in [
            "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n0 TRLR\n",
            "0 HEAD\n1 SOUR X\n2 VERS 7.0\n0 TRLR\n",
            "0 HEAD\n1 GEDC\n1 SOUR X\n2 VERS 7.0\n",
        ] {
            assert_eq!(ok(text.as_bytes()).encoding, Encoding::Ansel, "{text}");
        }
        // A CHAR line still decides.
        let d = ok(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n1 CHAR ANSI\n");
        assert_eq!(d.encoding, Encoding::Windows1252);
    }

    #[test]
    fn char_in_a_record_is_ignored() {
        let d = ok(b"0 HEAD\n1 SOUR X\n0 @I1@ INDI\n1 CHAR UTF-8\n");
        assert_eq!(d.encoding, Encoding::Ansel);
        assert_eq!(d.source, EncodingSource::Default);
        assert_eq!(d.char_value, None);
        // Nor a CHAR at another level in the HEAD.
        let d = ok(b"0 HEAD\n1 SOUR X\n2 CHAR UTF-8\n");
        assert_eq!(d.encoding, Encoding::Ansel);
        // Only the first CHAR of the HEAD counts.
        let d = ok(b"0 HEAD\n1 CHAR ASCII\n1 CHAR EBCDIC\n");
        assert_eq!(d.encoding, Encoding::Ascii);
    }

    #[test]
    fn unsupported_char_is_an_error_with_line() {
        let err = detect(b"0 HEAD\r\n1 SOUR X\r\n1 CHAR EBCDIC\r\n0 TRLR\r\n", None).unwrap_err();
        assert_eq!(err.value, "EBCDIC");
        assert_eq!(err.line, 3);
        assert_eq!(
            err.to_string(),
            "unsupported character encoding \"EBCDIC\" on line 3"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(err);
        assert!(boxed.to_string().starts_with("unsupported"));
        // Blank lines count in line numbers; LF CR is two breaks.
        let err = detect(b"\n0 HEAD\n\r1 CHAR  big5\n", None).unwrap_err();
        assert_eq!((err.value.as_str(), err.line), ("big5", 4));
        // Even on UTF-16 input.
        let err = detect(&utf16("0 HEAD\n1 CHAR EBCDIC\n", false, true), None).unwrap_err();
        assert_eq!(err.line, 2);
    }

    #[test]
    fn caller_overrides_everything() {
        // A matching byte-order mark is stripped.
        let d = detect(b"\xEF\xBB\xBF0 HEAD\n1 CHAR ANSEL\n", Some(Encoding::Utf8)).unwrap();
        assert_eq!(
            (d.encoding, d.source),
            (Encoding::Utf8, EncodingSource::Caller)
        );
        assert_eq!(d.bom_len, 3);
        assert_eq!(d.detected, Some(Encoding::Utf8));
        assert_eq!(d.char_value.as_deref(), Some("ANSEL"));
        assert!(d.head_ok);
        // A byte-order mark of another encoding is left alone, with a warning.
        let d = detect(b"\xEF\xBB\xBF0 HEAD\n", Some(Encoding::Windows1252)).unwrap();
        assert_eq!(d.encoding, Encoding::Windows1252);
        assert_eq!(d.bom_len, 0);
        assert!(!d.head_ok);
        assert_eq!(d.warnings.len(), 1);
        assert_lowercase_warnings(&d);
        // CHAR warnings do not apply when the caller decides.
        let d = detect(b"0 HEAD\n1 CHAR UTF8\n", Some(Encoding::Utf8)).unwrap();
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        // An unsupported CHAR value is only a warning.
        let d = detect(b"0 HEAD\n1 CHAR EBCDIC\n", Some(Encoding::Ascii)).unwrap();
        assert_eq!(d.encoding, Encoding::Ascii);
        assert_eq!(d.char_value.as_deref(), Some("EBCDIC"));
        assert_eq!(d.warnings.len(), 1);
        assert!(d.warnings[0].contains("\"EBCDIC\""));
        // UTF-16 chosen by the caller: the HEAD is scanned as UTF-16.
        let input = utf16("0 HEAD\n1 CHAR UNICODE\n", true, true);
        let d = detect(&input, Some(Encoding::Utf16Be)).unwrap();
        assert_eq!((d.bom_len, d.head_ok), (2, true));
        assert_eq!(d.char_value.as_deref(), Some("UNICODE"));
        // The caller may also contradict the sniffed UTF-16.
        let d = detect(&utf16("0 HEAD\n", false, false), Some(Encoding::Ansel)).unwrap();
        assert_eq!(d.encoding, Encoding::Ansel);
        assert_eq!(d.detected, Some(Encoding::Utf16Le));
    }

    #[test]
    fn first_line_must_be_head() {
        for input in [
            &b"1 HEAD\n1 CHAR UTF-8\n"[..],
            b"0 HEADER\n1 CHAR UTF-8\n",
            b"0 @H@ HEAD\n1 CHAR UTF-8\n",
            b"",
            b"\n\n",
            b"\xFF\xFE",
        ] {
            let d = ok(input);
            assert!(!d.head_ok, "{input:?}");
            assert_eq!(d.char_value, None);
        }
        // Leading blank lines and whitespace are fine.
        let d = ok(b"\r\n\n \t\r0 HEAD\n1 CHAR UTF-8");
        assert!(d.head_ok);
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(d.char_line, Some(5));
        // No HEAD but a UTF-16 byte-order mark: still UTF-16.
        let d = ok(&utf16("x", true, true));
        assert_eq!((d.encoding, d.head_ok), (Encoding::Utf16Be, false));
        // Bad head, nothing detected: ANSEL, and no warning (the reader reports the error).
        let d = ok(b"garbage");
        assert_eq!(
            (d.encoding, d.source),
            (Encoding::Ansel, EncodingSource::Default)
        );
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn line_breaks() {
        // CR only, CRLF, LF: each one break.
        assert_eq!(ok(b"0 HEAD\r1 SOUR X\r1 CHAR UTF-8\r").char_line, Some(3));
        assert_eq!(ok(b"0 HEAD\r\n1 SOUR X\r\n1 CHAR UTF-8").char_line, Some(3));
        // LF CR: two breaks.
        assert_eq!(ok(b"0 HEAD\n\r1 SOUR X\n\r1 CHAR UTF-8").char_line, Some(5));
        let d = ok(&utf16(
            "0 HEAD\n\r1 SOUR X\r\n1 CHAR UNICODE\r",
            false,
            true,
        ));
        assert_eq!(d.char_line, Some(4));
        assert_eq!(d.encoding, Encoding::Utf16Le);
        let d = ok(&utf16("0 HEAD\r1 CHAR UNICODE", true, false));
        assert_eq!(d.char_line, Some(2));
    }

    #[test]
    fn non_ascii_in_head_does_not_matter() {
        let d = ok(b"0 HEAD\n1 SOUR Br\xB2derbund \xFF\n1 CHAR ANSEL\n");
        assert_eq!(d.encoding, Encoding::Ansel);
        let d = ok(b"\xEF\xBB\xBF0 HEAD\n1 SOUR \xFF\xC3\xA9\n1 CHAR UTF-8\n");
        assert_eq!(d.encoding, Encoding::Utf8);
    }

    #[test]
    fn scan_is_bounded() {
        // A HEAD longer than the limit with a CHAR line after it: not found, and a warning.
        let mut input = b"0 HEAD\n".to_vec();
        while input.len() < HEAD_SCAN_LIMIT + 100 {
            input.extend_from_slice(b"1 NOTE padding padding padding padding\n");
        }
        input.extend_from_slice(b"1 CHAR UTF-8\n");
        let d = ok(&input);
        assert_eq!(d.encoding, Encoding::Ansel);
        assert_eq!(d.char_value, None);
        assert!(
            d.warnings.iter().any(|w| w.contains("stopped")),
            "{:?}",
            d.warnings
        );
        // A huge file whose HEAD ends early is scanned only up to the end of the HEAD.
        let mut big = b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n".to_vec();
        big.resize(3 << 20, b'x');
        let d = ok(&big);
        assert_eq!(d.encoding, Encoding::Ascii);
        assert!(d.warnings.is_empty());
        // One enormous line: not yielded as a line, no panic.
        let mut long = b"0 HEAD\n1 NOTE ".to_vec();
        long.resize(HEAD_SCAN_LIMIT + 10, b'y');
        let d = ok(&long);
        assert!(d.head_ok);
        // The same in UTF-16 with an odd length.
        let mut long16 = utf16("0 HEAD\n1 NOTE ", false, true);
        long16.resize(HEAD_SCAN_LIMIT + 11, b'y');
        let d = ok(&long16);
        assert!(d.head_ok);
        assert_eq!(d.encoding, Encoding::Utf16Le);
    }

    #[test]
    fn source_display() {
        assert_eq!(EncodingSource::ByteOrderMark.to_string(), "byte-order mark");
        assert_eq!(EncodingSource::CharLine.to_string(), "char line");
    }
}
