//! Arbitrary bytes through encoding detection and every decoder.
//!
//! The first three bytes choose what happens to the rest:
//!
//! * byte 0: the caller's encoding (`None` or one of `ALL_ENCODINGS`), and bit 7 the
//!   decomposed-text option;
//! * byte 1: bits 0-2 a template put before the rest (a HEAD whose `CHAR` line, and `VERS`
//!   line after it, are chosen by byte 2; a `CHAR` line in a record; fixed HEADs), so that
//!   every `CHAR` value, alias and `VERS` code page is one byte away; bits 3-4 how the
//!   whole is wrapped: as it is, with a UTF-8 byte-order mark, or as UTF-16LE/BE (each
//!   octet one code unit), with a byte-order mark when bit 5 is set;
//! * byte 2: the `CHAR` value (low 5 bits) and the `VERS` value (high 3 bits).
//!
//! Then:
//!
//! 1. `encoding::detect` with and without the caller's encoding;
//! 2. `Input::with_encoding`: every event and every payload's text; for 8-bit encodings the
//!    in-place `Reader` with `ReaderConfig::encoding` gives the same events and texts; for
//!    UTF-16 it gives the documented error; an unsupported `CHAR` gives the same error
//!    both ways;
//! 3. `decode_into` of the raw rest in every encoding, both options: output appended, every
//!    U+FFFD reported (outside Unicode input), ANSEL NFC output equal to the NFC of its
//!    decomposed output, UTF-16 equal to `utf16_to_utf8`;
//! 4. the chunked `Utf16Decoder`, cut where the input says, equal to the whole-buffer
//!    transcoding, reports included, in both byte orders, and reusable after `last`;
//! 5. `Encoding::from_name` on the rest;
//! 6. CESU-8: the rest (read as UTF-8, lossily) with its supplementary characters written
//!    as CESU-8 surrogate pairs decodes back to the same text, one report per pair.
#![no_main]

use gedcom_elf::encoding::{
    decode_into, detect, utf16_to_utf8, DecodeOptions, DecodeProblem, Utf16Decoder, ALL_ENCODINGS,
};
use gedcom_elf::{Encoding, ErrorKind, Event, Input, Reader, ReaderConfig, Value};
use libfuzzer_sys::fuzz_target;
use unicode_normalization::UnicodeNormalization;

/// `CHAR` values: every name and alias of the project's table, in several spellings, and
/// some that are not supported.
const CHAR_VALUES: [&str; 32] = [
    "ANSEL",
    "ASCII",
    "UTF-8",
    "UNICODE",
    "UTF-16",
    "UTF8",
    "ANSI",
    "WINDOWS",
    "ANSI WINDOWS",
    "ansi\t windows",
    "ISO-8859-1",
    "LATIN1",
    "IBMPC",
    "IBM PC",
    "MSDOS",
    "IBM DOS",
    "MACINTOSH",
    "MAC",
    "ansel",
    "Utf-8",
    "unicode",
    "Ansi",
    "ibmpc",
    "macintosh",
    "EBCDIC",
    "UTF-32",
    "BIG5",
    "",
    "ANSEL ANSEL",
    "KOI8-R",
    "ISO 8859-2",
    "  UTF-8  ",
];

/// `VERS` lines after the `CHAR` line (`None`: no `VERS` line).
const VERS_VALUES: [Option<&str>; 8] = [
    None,
    Some("1250"),
    Some("CP1251"),
    Some("windows-1253"),
    Some("125"),
    Some("850"),
    Some("5.5.1"),
    Some("1258"),
];

/// The bytes before the rest: template `t`, with the `CHAR` and `VERS` values `values`
/// picks.
fn prefix(t: u8, values: u8) -> Vec<u8> {
    let c = CHAR_VALUES[usize::from(values & 31)];
    let v = VERS_VALUES[usize::from(values >> 5)];
    let vers = |eol: &str| v.map_or(String::new(), |v| format!("2 VERS {v}{eol}"));
    let text = match t & 7 {
        0 => String::new(),
        1 => format!("0 HEAD\n1 CHAR {c}\n{}", vers("\n")),
        2 => format!(
            "0 HEAD\r\n1 SOUR X\r\n1 CHAR {c}\r\n{}0 @N1@ NOTE ",
            vers("\r\n")
        ),
        3 => format!("0 HEAD\n1 SOUR X\n0 @I1@ INDI\n1 CHAR {c}\n1 NAME "),
        4 => "0 HEAD\n1 SOUR X\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME ".to_string(),
        5 => "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE ".to_string(),
        // Every windows code page, and 1259, which is none.
        6 => format!(
            "0 HEAD\n1 CHAR ANSI\n2 VERS 125{}\n0 @N1@ NOTE ",
            values % 10
        ),
        _ => format!("0 HEAD\r1 CHAR {c}\r1 NOTE "),
    };
    text.into_bytes()
}

/// Every event rendered with its text, the diagnostics' kinds and lines, and the error.
fn read_all(mut reader: Reader<'_>) -> (Vec<String>, Vec<(u64, String)>, Option<ErrorKind>) {
    let mut events = Vec::new();
    let mut diagnostics = Vec::new();
    let mut depth = 0u32;
    let error = loop {
        let next = reader.next_event();
        for d in reader.drain_diagnostics() {
            assert!(d.position.line >= 1);
            diagnostics.push((d.position.line, d.kind.id().to_string()));
        }
        match next {
            Ok(Some(Event::Begin(b))) => {
                assert_eq!(b.level, depth);
                depth += 1;
                let text = match &b.value {
                    Some(Value::Text(t)) => {
                        let text = t.text();
                        assert_eq!(text, t.text(), "decoding is deterministic");
                        Some(text.into_owned())
                    }
                    Some(Value::Pointer(p)) => Some(p.to_string()),
                    None => None,
                };
                events.push(format!("+{} {} {:?}", b.level, b.tag, text));
            }
            Ok(Some(Event::End(e))) => {
                depth -= 1;
                assert_eq!(e.level, depth);
                events.push(format!("-{} {}", e.level, e.tag));
            }
            Ok(None) => break None,
            Err(e) => break Some(e.kind()),
        }
    };
    assert!(reader.next_event().is_ok_and(|e| e.is_none()));
    (events, diagnostics, error)
}

/// `bytes` with each octet as one UTF-16 code unit.
fn widen(bytes: &[u8], big_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 * bytes.len() + 2);
    if bom {
        out.extend_from_slice(if big_endian { b"\xFE\xFF" } else { b"\xFF\xFE" });
    }
    for &b in bytes {
        out.extend_from_slice(&if big_endian { [0, b] } else { [b, 0] });
    }
    out
}

fn decode(enc: Encoding, bytes: &[u8], decomposed: bool) -> (String, Vec<DecodeProblem>) {
    let mut out = String::from("<");
    let mut problems = Vec::new();
    decode_into(
        enc,
        bytes,
        DecodeOptions { decomposed },
        &mut out,
        &mut |p| problems.push(p),
    );
    assert!(out.starts_with('<'), "output is appended");
    out.remove(0);
    (out, problems)
}

fn check_detection_and_reading(input: &[u8], caller: Option<Encoding>, decomposed: bool) {
    let detected = detect(input, caller);
    match (&detected, caller) {
        (Ok(d), Some(c)) => assert_eq!(d.encoding, c),
        (Ok(_), None) => {}
        (Err(e), None) => assert!(e.line >= 1 && !e.to_string().is_empty()),
        (Err(_), Some(_)) => panic!("a caller's encoding cannot fail"),
    }
    if let Ok(d) = &detected {
        assert!(d.bom_len <= input.len());
    }
    let config = ReaderConfig::new()
        .decomposed(decomposed)
        .max_retained_diagnostics(64);
    let in_place = Reader::with_config(input, config.clone().encoding(caller));
    match Input::with_encoding(input, caller) {
        Ok(prepared) => {
            let info = prepared.encoding_info();
            let d = detected
                .as_ref()
                .expect("Input read it, so detection succeeded");
            // Input adds one warning when UTF-16 transcoding met bad code units.
            let extra = usize::from(prepared.transcode_problems() > 0);
            assert_eq!(info.warnings.len(), d.warnings.len() + extra);
            let mut same = info.clone();
            same.warnings.truncate(d.warnings.len());
            assert_eq!(&same, d);
            let via_input = read_all(prepared.reader_with_config(config));
            if info.encoding.is_utf16() {
                let (events, _, error) = read_all(in_place);
                assert!(events.is_empty());
                assert_eq!(error, Some(ErrorKind::UnsupportedEncoding));
            } else {
                assert_eq!(in_place.encoding(), info.encoding);
                assert_eq!(read_all(in_place), via_input);
            }
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::UnsupportedEncoding);
            assert!(caller.is_none() && detected.is_err());
            let (events, _, error) = read_all(in_place);
            assert!(events.is_empty());
            assert_eq!(error, Some(ErrorKind::UnsupportedEncoding));
        }
    }
}

fn check_decoders(bytes: &[u8]) {
    for enc in ALL_ENCODINGS {
        let (nfc, nfc_problems) = decode(enc, bytes, false);
        let (raw, raw_problems) = decode(enc, bytes, true);
        assert_eq!(nfc_problems, raw_problems, "{enc}");
        if !bytes.is_empty() {
            assert!(!raw.is_empty(), "{enc}");
        }
        if !matches!(enc, Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be) {
            assert!(
                raw.matches('\u{FFFD}').count() <= raw_problems.len(),
                "{enc}"
            );
        }
        if enc == Encoding::Ansel {
            assert_eq!(nfc, raw.nfc().collect::<String>());
        } else {
            assert_eq!(nfc, raw, "{enc}: only ANSEL is normalised");
        }
        if enc.is_utf16() {
            let mut problems = Vec::new();
            let whole = utf16_to_utf8(bytes, enc == Encoding::Utf16Be, &mut |p| problems.push(p));
            assert_eq!(whole, raw.as_bytes(), "{enc}");
            assert_eq!(problems, raw_problems, "{enc}");
        }
    }
}

/// The chunked decoder, cut at the lengths `cuts` gives in turn, against the whole.
fn check_chunked_utf16(bytes: &[u8], cuts: &[u8]) {
    for big_endian in [false, true] {
        let mut whole_problems = Vec::new();
        let whole = utf16_to_utf8(bytes, big_endian, &mut |p| whole_problems.push(p));
        assert!(std::str::from_utf8(&whole).is_ok());
        let mut decoder = Utf16Decoder::new(big_endian);
        // Twice: the decoder resets after the last chunk.
        for _ in 0..2 {
            let mut out = Vec::new();
            let mut problems = Vec::new();
            let mut rest = bytes;
            let mut k = 0;
            let mut empty_before = false;
            while !rest.is_empty() {
                let n = match cuts.get(k % cuts.len().max(1)) {
                    // An empty chunk now and then, but never two in a row.
                    Some(&c) if c % 9 == 0 && empty_before => 1,
                    Some(&c) => usize::from(c % 9),
                    None => rest.len(),
                };
                empty_before = n == 0;
                let (chunk, after) = rest.split_at(n.min(rest.len()));
                decoder.decode_chunk(chunk, false, &mut out, &mut |p| problems.push(p));
                rest = after;
                k += 1;
            }
            decoder.decode_chunk(&[], true, &mut out, &mut |p| problems.push(p));
            assert_eq!(out, whole);
            assert_eq!(problems, whole_problems);
        }
    }
}

/// `text` with every supplementary character written as a CESU-8 surrogate pair.
fn cesu8(text: &str) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut pairs = 0;
    for c in text.chars() {
        if u32::from(c) > 0xFFFF {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let u = u32::from(*u);
                out.extend_from_slice(&[
                    0xE0 | (u >> 12) as u8,
                    0x80 | ((u >> 6) & 0x3F) as u8,
                    0x80 | (u & 0x3F) as u8,
                ]);
            }
            pairs += 1;
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    (out, pairs)
}

fn check_cesu8(rest: &[u8]) {
    let text = String::from_utf8_lossy(rest);
    let (bytes, pairs) = cesu8(&text);
    let (decoded, problems) = decode(Encoding::Utf8, &bytes, false);
    assert_eq!(decoded, text);
    let reported = problems
        .iter()
        .filter(|p| **p == DecodeProblem::Cesu8)
        .count();
    assert_eq!(reported, pairs);
    assert!(problems
        .iter()
        .all(|p| matches!(p, DecodeProblem::Cesu8 | DecodeProblem::Nul)));
}

fuzz_target!(|data: &[u8]| {
    let (flags, mode, values, rest) = match data {
        [f, m, v, rest @ ..] => (*f, *m, *v, rest),
        _ => return,
    };
    let caller = match usize::from(flags & 0x7F) % (ALL_ENCODINGS.len() + 1) {
        0 => None,
        i => Some(ALL_ENCODINGS[i - 1]),
    };
    let decomposed = flags & 0x80 != 0;
    let mut body = prefix(mode, values);
    body.extend_from_slice(rest);
    let bom = mode & 0x20 != 0;
    let input = match (mode >> 3) & 3 {
        0 => body,
        1 => widen(&body, false, bom),
        2 => widen(&body, true, bom),
        _ => [b"\xEF\xBB\xBF".as_slice(), &body].concat(),
    };

    check_detection_and_reading(&input, caller, decomposed);
    if caller.is_some() {
        // The same input, detected.
        check_detection_and_reading(&input, None, decomposed);
    }
    check_decoders(rest);
    check_chunked_utf16(rest, data);
    check_cesu8(rest);
    if let Some(enc) = Encoding::from_name(&String::from_utf8_lossy(rest)) {
        assert_eq!(Encoding::from_name(enc.name()), Some(enc));
    }
});
