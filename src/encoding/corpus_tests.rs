//! Tests against the external corpus in `../shared/corpus/` (skipped, with a message, when
//! that folder is absent). The files are read in place, never copied.

use std::path::PathBuf;

use super::*;

fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "shared", "corpus", name]
        .iter()
        .collect();
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            println!("skipping: corpus file {} not readable: {e}", path.display());
            None
        }
    }
}

/// Splits octets at CR, LF and CRLF, dropping empty lines (ASCII-compatible encodings only).
fn byte_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .filter(|l| !l.is_empty())
        .collect()
}

fn decode(enc: Encoding, bytes: &[u8], decomposed: bool) -> (String, Vec<DecodeProblem>) {
    let mut out = String::new();
    let mut problems = Vec::new();
    decode_into(
        enc,
        bytes,
        DecodeOptions { decomposed },
        &mut out,
        &mut |p| problems.push(p),
    );
    (out, problems)
}

const EXPECTED: [(&str, Encoding, EncodingSource); 20] = [
    ("ANSEL.GED", Encoding::Ansel, EncodingSource::CharLine),
    ("TGC55C.ged", Encoding::Ansel, EncodingSource::CharLine),
    ("TGC55CLF.ged", Encoding::Ansel, EncodingSource::CharLine),
    ("TGC551.ged", Encoding::Ansel, EncodingSource::CharLine),
    ("TGC551LF.ged", Encoding::Ansel, EncodingSource::CharLine),
    (
        "willis-ansel.ged",
        Encoding::Ansel,
        EncodingSource::CharLine,
    ),
    (
        "superlongline-ansel.ged",
        Encoding::Ansel,
        EncodingSource::CharLine,
    ),
    (
        "issue102_99levels.ged",
        Encoding::Ansel,
        EncodingSource::CharLine,
    ),
    // These two have no byte-order mark: UTF-16 is sniffed, then CHAR UNICODE confirms it.
    (
        "willis-unicode-bigendian.ged",
        Encoding::Utf16Be,
        EncodingSource::CharLine,
    ),
    (
        "willis-unicode-littleendian.ged",
        Encoding::Utf16Le,
        EncodingSource::CharLine,
    ),
    // These say CHAR ANSEL but have a UTF-16 byte-order mark.
    (
        "utf16le.ged",
        Encoding::Utf16Le,
        EncodingSource::ByteOrderMark,
    ),
    (
        "utf16be.ged",
        Encoding::Utf16Be,
        EncodingSource::ByteOrderMark,
    ),
    ("willis.ged", Encoding::Utf8, EncodingSource::CharLine),
    (
        "utf8_crlf_bom.ged",
        Encoding::Utf8,
        EncodingSource::CharLine,
    ),
    (
        "utf8_cr_nobom.ged",
        Encoding::Utf8,
        EncodingSource::CharLine,
    ),
    (
        "utf8_lf_nobom.ged",
        Encoding::Utf8,
        EncodingSource::CharLine,
    ),
    ("Harry_Potter.ged", Encoding::Utf8, EncodingSource::CharLine),
    ("Sopranos.ged", Encoding::Utf8, EncodingSource::CharLine),
    (
        "5.5.1 sample 1.ged",
        Encoding::Utf8,
        EncodingSource::CharLine,
    ),
    (
        "a31486.ged",
        Encoding::Windows1252,
        EncodingSource::CharLine,
    ),
];

#[test]
fn corpus_detection() {
    for (name, enc, source) in EXPECTED {
        let Some(bytes) = corpus_file(name) else {
            continue;
        };
        let d = detect(&bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(d.head_ok, "{name}");
        assert_eq!((d.encoding, d.source), (enc, source), "{name}");
        let bom = match &bytes[..] {
            [0xEF, 0xBB, 0xBF, ..] => 3,
            [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => 2,
            _ => 0,
        };
        assert_eq!(d.bom_len, bom, "{name}");
        if enc.is_utf16() {
            assert_eq!(d.detected, Some(enc), "{name}");
        }
        // Only the two mislabelled UTF-16 files warrant a warning.
        let warned = name.starts_with("utf16");
        assert_eq!(!d.warnings.is_empty(), warned, "{name}: {:?}", d.warnings);
    }
}

#[test]
fn corpus_decodes_cleanly() {
    for (name, _, _) in EXPECTED {
        let Some(bytes) = corpus_file(name) else {
            continue;
        };
        let Ok(d) = detect(&bytes, None) else {
            panic!("{name}: detection failed");
        };
        let body = &bytes[d.bom_len..];
        let text = if d.encoding.is_utf16() {
            let mut problems = Vec::new();
            let out = utf16_to_utf8(body, d.encoding == Encoding::Utf16Be, &mut |p| {
                problems.push(p)
            });
            assert!(problems.is_empty(), "{name}: {problems:?}");
            String::from_utf8(out).expect("the decoder writes valid UTF-8")
        } else {
            let mut all = String::new();
            for line in byte_lines(body) {
                let (s, problems) = decode(d.encoding, line, false);
                assert!(problems.is_empty(), "{name}: {problems:?} in {s:?}");
                all.push_str(&s);
                all.push('\n');
            }
            all
        };
        assert!(!text.contains('\u{FFFD}'), "{name}");
        assert!(text.trim_end().ends_with("0 TRLR"), "{name}");
    }
}

/// The corpus notes name each combining mark with its Unicode code point
/// (`code: E0 (Unicode: hook above, 0309)`), then list it on every letter. Check the decoder
/// against those notes.
fn check_marks_against_notes(name: &str) {
    let Some(bytes) = corpus_file(name) else {
        return;
    };
    let mut current: Option<(u8, char)> = None;
    let mut checked = 0;
    let mut marks_seen = Vec::new();
    for line in byte_lines(&bytes) {
        let text = String::from_utf8_lossy(line);
        if let Some(at) = text.find("code: ") {
            let code = &text[at + 6..];
            let byte = u8::from_str_radix(code.get(..2).unwrap_or(""), 16).ok();
            let cp = code
                .find(')')
                .and_then(|end| code.get(end.saturating_sub(4)..end))
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32);
            current = byte.zip(cp);
            if let Some((b, _)) = current {
                marks_seen.push(b);
            }
            continue;
        }
        let Some((mark, want)) = current else {
            continue;
        };
        let Some(start) = line.iter().position(|&b| b == mark) else {
            continue;
        };
        let pairs = &line[start..];
        let expected: String = pairs
            .chunks(2)
            .flat_map(|p| [char::from(p[p.len() - 1]), want])
            .collect();
        let (raw, problems) = decode(Encoding::Ansel, pairs, true);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        assert_eq!(raw, expected, "{name}: mark {mark:02X}");
        // NFC output is canonically equivalent and never longer.
        let (nfc, _) = decode(Encoding::Ansel, pairs, false);
        assert!(nfc.chars().count() <= raw.chars().count());
        assert!(!nfc.contains('\u{FFFD}'));
        checked += 1;
    }
    let expected_marks: Vec<u8> = (0xE0..=0xFB).chain([0xFE]).collect();
    assert_eq!(marks_seen, expected_marks, "{name}");
    assert!(checked >= 29 * 2, "{name}: only {checked} lines checked");
}

#[test]
fn ansel_gedcom_marks_match_notes() {
    check_marks_against_notes("ANSEL.GED");
}

#[test]
fn tgc55c_marks_match_notes() {
    check_marks_against_notes("TGC55C.ged");
}

/// TGC55C lists every spacing character as `A1 slash l - uppercase (X)`; check each
/// against what its description says.
#[test]
fn tgc55c_spacing_characters_match_notes() {
    let Some(bytes) = corpus_file("TGC55C.ged") else {
        return;
    };
    let descriptions: [(&str, char); 39] = [
        ("slash l - uppercase", 'Ł'),
        ("slash o - uppercase", 'Ø'),
        ("slash d - uppercase", 'Đ'),
        ("thorn - uppercase", 'Þ'),
        ("ligature ae - uppercase", 'Æ'),
        ("ligature oe - uppercase", 'Œ'),
        ("single prime", 'ʹ'),
        ("middle dot", '·'),
        ("musical flat", '♭'),
        ("registered sign", '®'),
        ("plus-or-minus", '±'),
        ("hook o - uppercase", 'Ơ'),
        ("hook u - uppercase", 'Ư'),
        ("left half ring", 'ʼ'),
        ("right half ring", 'ʻ'),
        ("slash l - lowercase", 'ł'),
        ("slash o - lowercase", 'ø'),
        ("slash d - lowercase", 'đ'),
        ("thorn - lowercase", 'þ'),
        ("ligature ae - lowercase", 'æ'),
        ("ligature oe - lowercase", 'œ'),
        ("double prime", 'ʺ'),
        ("dotless i - lowercase", 'ı'),
        ("british pound", '£'),
        ("eth", 'ð'),
        ("hook o - lowercase", 'ơ'),
        ("hook u - lowercase", 'ư'),
        ("empty box", '□'),
        ("black box", '■'),
        ("degree sign", '°'),
        ("script l", 'ℓ'),
        ("phonograph copyright mark", '℗'),
        ("copyright symbol", '©'),
        ("musical sharp", '♯'),
        ("inverted question mark", '¿'),
        ("inverted exclamation mark", '¡'),
        ("midline e", 'e'),
        ("midline o", 'o'),
        ("es zet", 'ß'),
    ];
    let mut found = 0;
    for line in byte_lines(&bytes) {
        let (text, problems) = decode(Encoding::Ansel, line, false);
        assert!(problems.is_empty());
        for (desc, want) in descriptions {
            // `1 CONT A1 slash l - uppercase (Ł)`
            let Some(rest) = text
                .strip_prefix("1 CONT ")
                .and_then(|t| t.get(3..))
                .and_then(|t| t.strip_prefix(desc))
            else {
                continue;
            };
            if !rest.starts_with(" (") && !rest.starts_with(" -") {
                continue;
            }
            let inside = rest.rsplit_once('(').map(|(_, r)| r.trim_end_matches(')'));
            assert_eq!(inside, Some(want.to_string().as_str()), "{text}");
            found += 1;
        }
    }
    assert_eq!(found, descriptions.len());
}

/// The ANSEL and UTF-16 exports of the willis family hold the same records; decoding both
/// must give (nearly) the same text.
#[test]
fn willis_ansel_matches_utf16() {
    let (Some(ansel), Some(le), Some(be)) = (
        corpus_file("willis-ansel.ged"),
        corpus_file("willis-unicode-littleendian.ged"),
        corpus_file("willis-unicode-bigendian.ged"),
    ) else {
        return;
    };
    let le = String::from_utf8(utf16_to_utf8(&le, false, &mut |p| panic!("{p:?}")))
        .expect("valid UTF-8");
    let be =
        String::from_utf8(utf16_to_utf8(&be, true, &mut |p| panic!("{p:?}"))).expect("valid UTF-8");
    let le_lines: Vec<&str> = le.lines().map(str::trim_end).collect();
    let be_lines: Vec<&str> = be.lines().map(str::trim_end).collect();
    let differ_be = le_lines
        .iter()
        .zip(&be_lines)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(le_lines.len(), be_lines.len());
    assert!(differ_be <= 1, "{differ_be}"); // the FILE line
    let ansel_lines: Vec<String> = byte_lines(&ansel)
        .into_iter()
        .map(|l| decode(Encoding::Ansel, l, false).0.trim_end().to_string())
        .collect();
    assert!(ansel_lines.iter().any(|l| l.contains("Brøderbund")));
    let differ = ansel_lines
        .iter()
        .zip(&le_lines)
        .filter(|(a, b)| a.as_str() != **b)
        .count();
    println!("willis: {differ} of {} lines differ", ansel_lines.len());
    // FILE, GEDC VERS and CHAR in the HEAD, and two lines where the ANSEL export could not
    // represent an em dash.
    assert!(differ <= 5, "{differ} lines differ");
}

/// Chunked UTF-16 decoding of a real file equals decoding it whole.
#[test]
fn willis_utf16_chunked() {
    let Some(bytes) = corpus_file("willis-unicode-bigendian.ged") else {
        return;
    };
    let whole = utf16_to_utf8(&bytes, true, &mut |_| {});
    for size in [3, 4096, 65_537] {
        let mut dec = Utf16Decoder::new(true);
        let mut out = Vec::new();
        for chunk in bytes.chunks(size) {
            dec.decode_chunk(chunk, false, &mut out, &mut |_| {});
        }
        dec.decode_chunk(&[], true, &mut out, &mut |_| {});
        assert_eq!(out, whole, "chunk size {size}");
    }
}
