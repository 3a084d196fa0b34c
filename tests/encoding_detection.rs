//! One test per detection rule and `CHAR` alias of issue 3, through the public API:
//! [`Input::new`], [`Input::with_encoding`], [`Reader::from_slice`] on 8-bit input and
//! [`ReaderConfig::encoding`].

mod encoding_support;

use encoding_support::{read, utf16, Read};
use gedcom_elf::{
    DiagnosticKind, Encoding, EncodingSource, ErrorKind, Input, Reader, ReaderConfig,
};

/// Reads `bytes` through [`Input::new`].
fn via_input(bytes: &[u8]) -> (gedcom_elf::EncodingInfo, Read) {
    let input = Input::new(bytes).unwrap_or_else(|e| panic!("{e}"));
    let info = input.encoding_info().clone();
    (info, read(input.reader()))
}

/// A one-person file: HEAD with `head` lines after `0 HEAD`, then a NAME line whose
/// payload is `name` (raw octets).
fn person(head: &str, name: &[u8]) -> Vec<u8> {
    let mut v = format!("0 HEAD\n{head}0 @I1@ INDI\n1 NAME ").into_bytes();
    v.extend_from_slice(name);
    v.extend_from_slice(b"\n0 TRLR\n");
    v
}

// ---- Rule 2: byte-order marks -------------------------------------------------------

#[test]
fn utf8_bom_is_removed_and_decides_without_char() {
    let bytes = [b"\xEF\xBB\xBF".as_slice(), &person("", "Zoë".as_bytes())].concat();
    let (info, r) = via_input(&bytes);
    assert_eq!(info.encoding, Encoding::Utf8);
    assert_eq!(info.source, EncodingSource::ByteOrderMark);
    assert_eq!(info.bom_len, 3);
    assert_eq!(info.detected, Some(Encoding::Utf8));
    assert_eq!(info.char_value, None);
    // The mark is no part of the first line: HEAD is recognised.
    assert_eq!(r.events[0], "+0 HEAD");
    assert_eq!(r.texts_of("NAME"), ["Zoë"]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    // In place, the same.
    assert_eq!(read(Reader::from_slice(&bytes)), r);
    assert_eq!(Input::new(&bytes).unwrap().bytes(), &bytes[3..]);
}

#[test]
fn utf8_bom_with_char_utf8() {
    let bytes = [
        b"\xEF\xBB\xBF".as_slice(),
        &person("1 CHAR UTF-8\n", "Zoë".as_bytes()),
    ]
    .concat();
    let (info, r) = via_input(&bytes);
    assert_eq!(
        (info.encoding, info.source, info.bom_len),
        (Encoding::Utf8, EncodingSource::CharLine, 3)
    );
    assert_eq!(info.char_line, Some(2));
    assert_eq!(r.texts_of("NAME"), ["Zoë"]);
    assert!(r.diagnostics.is_empty());
}

#[test]
fn utf8_bom_with_other_char_follows_char_and_warns() {
    let bytes = [
        b"\xEF\xBB\xBF".as_slice(),
        &person("1 CHAR ANSEL\n", b"Br\xB2derbund"),
    ]
    .concat();
    let (info, r) = via_input(&bytes);
    assert_eq!(
        (info.encoding, info.source, info.bom_len),
        (Encoding::Ansel, EncodingSource::CharLine, 3)
    );
    assert_eq!(r.texts_of("NAME"), ["Brøderbund"]);
    let warnings = r.diagnostics_of(DiagnosticKind::Encoding);
    assert_eq!(warnings.len(), 1, "{:?}", r.diagnostics);
    assert_eq!(warnings[0].position.line, 2);
}

#[test]
fn utf16_bom_both_byte_orders() {
    let text = "0 HEAD\r\n1 CHAR UNICODE\r\n0 @I1@ INDI\r\n1 NAME Ærø 😀 /Ŋ/\r\n0 TRLR\r\n";
    for (be, want) in [(false, Encoding::Utf16Le), (true, Encoding::Utf16Be)] {
        let bytes = utf16(text, be, true);
        let (info, r) = via_input(&bytes);
        assert_eq!(info.encoding, want);
        assert_eq!(info.source, EncodingSource::CharLine);
        assert_eq!((info.bom_len, info.detected), (2, Some(want)));
        assert_eq!(info.char_value.as_deref(), Some("UNICODE"));
        assert_eq!(r.texts_of("NAME"), ["Ærø 😀 /Ŋ/"]);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        // Transcoded once: the reader reads UTF-8.
        let input = Input::new(&bytes).unwrap();
        assert_eq!(input.bytes(), text.as_bytes());
        assert_eq!(input.transcode_problems(), 0);
        // Without a CHAR line the byte-order mark decides.
        let bytes = utf16("0 HEAD\n0 @N1@ NOTE ĳ\n0 TRLR\n", be, true);
        let (info, r) = via_input(&bytes);
        assert_eq!(
            (info.encoding, info.source),
            (want, EncodingSource::ByteOrderMark)
        );
        assert_eq!(r.texts_of("NOTE"), ["ĳ"]);
    }
}

#[test]
fn no_bom_no_char_is_ansel_the_default() {
    let bytes = person("1 SOUR X\n", b"Br\xB2derbund");
    let (info, r) = via_input(&bytes);
    assert_eq!(
        (info.encoding, info.source),
        (Encoding::Ansel, EncodingSource::Default)
    );
    assert_eq!((info.bom_len, info.detected), (0, None));
    assert_eq!(r.texts_of("NAME"), ["Brøderbund"]);
    // Defaulting is worth a warning when there is something to decode...
    assert_eq!(r.diagnostics_of(DiagnosticKind::Encoding).len(), 1);
    // ... and not for pure ASCII, where every encoding reads the same.
    let (info, r) = via_input(&person("", b"Plain"));
    assert_eq!(info.source, EncodingSource::Default);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

// ---- Rule 2: UTF-16 sniffing ---------------------------------------------------------

#[test]
fn utf16_sniffed_without_bom() {
    for (be, want) in [(false, Encoding::Utf16Le), (true, Encoding::Utf16Be)] {
        // No CHAR line: the sniffed encoding decides.
        let bytes = utf16("0 HEAD\n0 @N1@ NOTE Ωmega\n0 TRLR\n", be, false);
        let (info, r) = via_input(&bytes);
        assert_eq!(info.encoding, want);
        assert_eq!(info.source, EncodingSource::Sniffed);
        assert_eq!((info.bom_len, info.detected), (0, Some(want)));
        assert_eq!(r.texts_of("NOTE"), ["Ωmega"]);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        // CHAR UNICODE confirms it.
        let bytes = utf16("0 HEAD\n1 CHAR UNICODE\n0 TRLR\n", be, false);
        let (info, _) = via_input(&bytes);
        assert_eq!(
            (info.encoding, info.source),
            (want, EncodingSource::CharLine)
        );
    }
}

#[test]
fn no_sniffing_on_8_bit_starts() {
    // `xx 00` is UTF-16LE only for xx in 01-7F; `00 xx` UTF-16BE only for xx in 01-7F.
    for start in [&b"\x80\x00"[..], b"\x00\x00", b"\x00\x80", b"0 "] {
        let mut bytes = start.to_vec();
        bytes.extend_from_slice(b"HEAD\n");
        let info = Input::new(&bytes).unwrap().encoding_info().clone();
        assert_eq!(info.detected, None, "{start:?}");
        assert_eq!(info.encoding, Encoding::Ansel, "{start:?}");
    }
}

// ---- Rule 3: the CHAR line -----------------------------------------------------------

#[test]
fn char_is_case_and_space_insensitive() {
    for head in [
        "1 CHAR UTF-8\n",
        "1 char utf-8\n",
        "1 Char Utf-8\n",
        "1  CHAR\t UTF-8  \n",
        "\t1\tCHAR\tutf-8\n",
    ] {
        let bytes = person(head, "Zoë".as_bytes());
        let (info, r) = via_input(&bytes);
        assert_eq!(info.encoding, Encoding::Utf8, "{head:?}");
        assert_eq!(info.source, EncodingSource::CharLine, "{head:?}");
        assert_eq!(info.char_line, Some(2));
        assert_eq!(r.texts_of("NAME"), ["Zoë"], "{head:?}");
        assert_eq!(read(Reader::from_slice(&bytes)), r, "{head:?}");
    }
    // A multi-word value: runs of whitespace count as one space; the value is kept as
    // written apart from that.
    let (info, r) = via_input(&person("1 CHAR   ansi \t Windows\n", b"Jos\xE9"));
    assert_eq!(info.encoding, Encoding::Windows1252);
    assert_eq!(info.char_value.as_deref(), Some("ansi Windows"));
    assert_eq!(r.texts_of("NAME"), ["José"]);
    // The HEAD line itself is normalised too.
    let bytes = b"  0   head \r\n1 CHAR ANSEL\r\n0 @N1@ NOTE \xE2e\r\n0 TRLR\r\n";
    let (info, r) = via_input(bytes);
    assert!(info.head_ok);
    assert_eq!(info.encoding, Encoding::Ansel);
    assert_eq!(r.texts_of("NOTE"), ["é"]);
}

#[test]
fn char_ascii_ansel_utf8() {
    let (info, r) = via_input(&person("1 CHAR ASCII\n", b"Plain"));
    assert_eq!(
        (info.encoding, info.source),
        (Encoding::Ascii, EncodingSource::CharLine)
    );
    assert_eq!(r.texts_of("NAME"), ["Plain"]);
    assert!(r.diagnostics.is_empty());
    let (info, r) = via_input(&person("1 CHAR ANSEL\n", b"\xE8Ozt\xE8urk \xA5"));
    assert_eq!(info.encoding, Encoding::Ansel);
    assert_eq!(r.texts_of("NAME"), ["Öztürk Æ"]);
    let (info, r) = via_input(&person("1 CHAR UTF-8\n", "Öztürk Æ".as_bytes()));
    assert_eq!(info.encoding, Encoding::Utf8);
    assert_eq!(r.texts_of("NAME"), ["Öztürk Æ"]);
}

#[test]
fn char_ascii_with_high_octets_reads_windows_1252_and_warns() {
    let (info, r) = via_input(&person("1 CHAR ASCII\n", b"Caf\xE9 \x80"));
    assert_eq!(info.encoding, Encoding::Ascii);
    assert_eq!(r.texts_of("NAME"), ["Café €"]);
    let warned = r.diagnostics_of(DiagnosticKind::UnmappedByte);
    assert_eq!(warned.len(), 1, "{:?}", r.diagnostics);
    assert_eq!(warned[0].position.line, 4);
}

#[test]
fn windows_1252_aliases() {
    for alias in [
        "ANSI",
        "WINDOWS",
        "ANSI WINDOWS",
        "ansi  windows",
        "ISO-8859-1",
        "LATIN1",
        "Latin1",
    ] {
        let bytes = person(&format!("1 CHAR {alias}\n"), b"Jos\xE9 \x80 \x93x\x94");
        let (info, r) = via_input(&bytes);
        assert_eq!(info.encoding, Encoding::Windows1252, "{alias}");
        assert_eq!(info.source, EncodingSource::CharLine, "{alias}");
        assert_eq!(r.texts_of("NAME"), ["José € \u{201C}x\u{201D}"], "{alias}");
        assert!(r.diagnostics.is_empty(), "{alias}: {:?}", r.diagnostics);
        assert_eq!(read(Reader::from_slice(&bytes)), r, "{alias}");
    }
}

#[test]
fn vers_picks_the_windows_code_page() {
    // Each code page reads octet F0 (or C0) as its own letter.
    let cases = [
        ("1250", Encoding::Windows1250, "\u{0111}"), // đ
        ("1251", Encoding::Windows1251, "\u{0440}"), // р
        ("1252", Encoding::Windows1252, "ð"),
        ("1253", Encoding::Windows1253, "\u{03C0}"), // π
        ("1254", Encoding::Windows1254, "\u{011F}"), // ğ
        ("1255", Encoding::Windows1255, "\u{05E0}"), // נ
        ("1256", Encoding::Windows1256, "\u{064B}"), // ً
        ("1257", Encoding::Windows1257, "\u{0161}"), // š
        ("1258", Encoding::Windows1258, "\u{0111}"), // đ
    ];
    for (vers, enc, want) in cases {
        for head in [
            format!("1 CHAR ANSI\n2 VERS {vers}\n"),
            format!("1 CHAR WINDOWS\n2 VERS CP{vers}\n"),
            format!("1 char ansi\n2 vers windows-{vers}\n"),
        ] {
            let bytes = person(&head, b"\xF0");
            let (info, r) = via_input(&bytes);
            assert_eq!(info.encoding, enc, "{head:?}");
            assert_eq!(r.texts_of("NAME"), [want], "{head:?}");
            assert_eq!(read(Reader::from_slice(&bytes)), r, "{head:?}");
        }
    }
    // The issue's example: ő is F5 in windows-1250 and õ in windows-1252.
    let (info, r) = via_input(&person("1 CHAR ANSI\n2 VERS 1250\n", b"Erd\xF5s"));
    assert_eq!(info.encoding, Encoding::Windows1250);
    assert_eq!(r.texts_of("NAME"), ["Erdős"]);
    let (info, r) = via_input(&person("1 CHAR ANSI\n", b"Erd\xF5s"));
    assert_eq!(info.encoding, Encoding::Windows1252);
    assert_eq!(r.texts_of("NAME"), ["Erdõs"]);
    // Only the line right after CHAR counts.
    let (info, _) = via_input(&person("1 CHAR ANSI\n1 GEDC\n2 VERS 1250\n", b"x"));
    assert_eq!(info.encoding, Encoding::Windows1252);
}

#[test]
fn ibm_pc_aliases_and_vers_850() {
    for alias in ["IBMPC", "IBM PC", "MSDOS", "IBM DOS", "ibm\tdos", "ibmpc"] {
        // 82 is é in both; 9B is ¢ in 437 and ø in 850.
        let (info, r) = via_input(&person(&format!("1 CHAR {alias}\n"), b"\x82\x9B"));
        assert_eq!(info.encoding, Encoding::Ibm437, "{alias}");
        assert_eq!(r.texts_of("NAME"), ["é¢"], "{alias}");
        let (info, r) = via_input(&person(
            &format!("1 CHAR {alias}\n2 VERS 850\n"),
            b"\x82\x9B",
        ));
        assert_eq!(info.encoding, Encoding::Ibm850, "{alias}");
        assert_eq!(r.texts_of("NAME"), ["éø"], "{alias}");
    }
}

#[test]
fn macintosh_aliases() {
    for alias in ["MACINTOSH", "MAC", "Macintosh", "mac"] {
        let bytes = person(&format!("1 CHAR {alias}\n"), b"\x8E\xA7\xDB");
        let (info, r) = via_input(&bytes);
        assert_eq!(info.encoding, Encoding::MacRoman, "{alias}");
        assert_eq!(r.texts_of("NAME"), ["éß€"], "{alias}");
        assert_eq!(read(Reader::from_slice(&bytes)), r, "{alias}");
    }
}

#[test]
fn utf8_spellings_and_unicode_without_utf16_read_utf8_with_a_warning() {
    for alias in ["UTF8", "utf8", "UNICODE", "UTF-16"] {
        let (info, r) = via_input(&person(&format!("1 CHAR {alias}\n"), "Zoë".as_bytes()));
        assert_eq!(info.encoding, Encoding::Utf8, "{alias}");
        assert_eq!(info.source, EncodingSource::CharLine, "{alias}");
        assert_eq!(r.texts_of("NAME"), ["Zoë"], "{alias}");
        let warned = r.diagnostics_of(DiagnosticKind::Encoding);
        assert_eq!(warned.len(), 1, "{alias}: {:?}", r.diagnostics);
        assert_eq!(warned[0].position.line, 2, "{alias}");
        assert!(warned[0].message.contains(alias), "{}", warned[0].message);
    }
}

#[test]
fn utf16_with_char_ansel_keeps_utf16_and_warns() {
    let text = "0 HEAD\n1 SOUR X\n1 CHAR ANSEL\n0 @N1@ NOTE Ærø\n0 TRLR\n";
    for (be, bom) in [(false, true), (true, true), (false, false), (true, false)] {
        let want = if be {
            Encoding::Utf16Be
        } else {
            Encoding::Utf16Le
        };
        let source = if bom {
            EncodingSource::ByteOrderMark
        } else {
            EncodingSource::Sniffed
        };
        let (info, r) = via_input(&utf16(text, be, bom));
        assert_eq!((info.encoding, info.source), (want, source));
        assert_eq!(info.char_value.as_deref(), Some("ANSEL"));
        assert_eq!(r.texts_of("NOTE"), ["Ærø"]);
        let warned = r.diagnostics_of(DiagnosticKind::Encoding);
        assert_eq!(warned.len(), 1, "{:?}", r.diagnostics);
        assert_eq!(warned[0].position.line, 3);
        assert!(warned[0].message.contains("ANSEL"), "{}", warned[0].message);
        assert!(
            warned[0].message.contains(want.name()),
            "{}",
            warned[0].message
        );
    }
}

// ---- Rule 5: CHAR outside the HEAD ---------------------------------------------------

#[test]
fn char_inside_a_record_is_ignored() {
    // A CHAR line in an INDI record says nothing about the encoding.
    let bytes = b"0 HEAD\n1 SOUR X\n0 @I1@ INDI\n1 CHAR UTF-8\n1 NAME Br\xB2derbund\n0 TRLR\n";
    let (info, r) = via_input(bytes);
    assert_eq!(
        (info.encoding, info.source),
        (Encoding::Ansel, EncodingSource::Default)
    );
    assert_eq!(info.char_value, None);
    assert_eq!(r.texts_of("CHAR"), ["UTF-8"]);
    assert_eq!(r.texts_of("NAME"), ["Brøderbund"]);
    assert_eq!(read(Reader::from_slice(bytes)), r);
    // Nor one below another HEAD substructure.
    let (info, _) = via_input(b"0 HEAD\n1 SOUR X\n2 CHAR UTF-8\n0 TRLR\n");
    assert_eq!(info.encoding, Encoding::Ansel);
    // An unsupported value outside the HEAD is no error.
    let (info, r) = via_input(b"0 HEAD\n0 @I1@ INDI\n1 CHAR EBCDIC\n0 TRLR\n");
    assert_eq!(info.encoding, Encoding::Ansel);
    assert_eq!(r.error, None);
    // Only the first CHAR of the HEAD counts.
    let (info, _) = via_input(b"0 HEAD\n1 CHAR ASCII\n1 CHAR EBCDIC\n0 TRLR\n");
    assert_eq!((info.encoding, info.char_line), (Encoding::Ascii, Some(2)));
}

// ---- Rule 3: unsupported names -------------------------------------------------------

#[test]
fn unsupported_char_is_an_error_with_its_line() {
    let bytes = b"0 HEAD\r\n1 SOUR X\r\n1 CHAR EBCDIC\r\n0 TRLR\r\n";
    let err = Input::new(bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnsupportedEncoding);
    assert_eq!(err.position().map(|p| p.line), Some(3));
    assert!(err.message().contains("\"EBCDIC\""), "{}", err.message());
    assert!(err.to_string().starts_with("line 3: "), "{err}");
    // In place: the first call reports the same error, then nothing more.
    let mut reader = Reader::from_slice(bytes);
    let first = reader.next_event().unwrap_err();
    assert_eq!(first.kind(), ErrorKind::UnsupportedEncoding);
    assert_eq!(first.position().map(|p| p.line), Some(3));
    assert_eq!(first.message(), err.message());
    assert!(reader.next_event().unwrap().is_none());
    // Other names, on UTF-16 input too.
    for (bytes, line, name) in [
        (b"0 HEAD\n1 CHAR BIG5\n".to_vec(), 2, "BIG5"),
        (b"0 HEAD\n1 CHAR utf-32\n".to_vec(), 2, "utf-32"),
        (
            b"\n0 HEAD\n1 SOUR Y\n1 CHAR  ISO 8859-2\n".to_vec(),
            4,
            "ISO 8859-2",
        ),
        (utf16("0 HEAD\n1 CHAR KOI8-R\n", false, true), 2, "KOI8-R"),
    ] {
        let err = Input::new(&bytes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnsupportedEncoding, "{name}");
        assert_eq!(err.position().map(|p| p.line), Some(line), "{name}");
        assert!(err.message().contains(&format!("\"{name}\"")), "{err}");
    }
}

// ---- Rule 1: the caller's encoding ---------------------------------------------------

#[test]
fn caller_encoding_overrides_char_and_detection() {
    // CHAR says ANSEL; the octets are UTF-8; the caller knows better.
    let bytes = person("1 CHAR ANSEL\n", "Zoë".as_bytes());
    for input in [
        Input::with_encoding(&bytes, Some(Encoding::Utf8)).unwrap(),
        Input::with_encoding(&bytes, Encoding::from_name("utf-8")).unwrap(),
    ] {
        let info = input.encoding_info();
        assert_eq!(
            (info.encoding, info.source),
            (Encoding::Utf8, EncodingSource::Caller)
        );
        assert_eq!(info.char_value.as_deref(), Some("ANSEL"));
        let r = read(input.reader());
        assert_eq!(r.texts_of("NAME"), ["Zoë"]);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    }
    // The same through ReaderConfig::encoding, in place.
    let config = ReaderConfig::new().encoding(Some(Encoding::Utf8));
    assert_eq!(config.forced_encoding(), Some(Encoding::Utf8));
    let reader = Reader::with_config(&bytes, config);
    assert_eq!(reader.encoding_info().source, EncodingSource::Caller);
    assert_eq!(read(reader).texts_of("NAME"), ["Zoë"]);
    // Input::with_encoding(None) is Input::new.
    let input = Input::with_encoding(&bytes, None).unwrap();
    assert_eq!(
        input.encoding_info(),
        Input::new(&bytes).unwrap().encoding_info()
    );
    // An input's reader ignores ReaderConfig::encoding: its encoding was decided.
    let input = Input::new(&bytes).unwrap();
    let r = read(input.reader_with_config(ReaderConfig::new().encoding(Some(Encoding::Utf8))));
    assert_eq!(r.texts_of("NAME"), ["Zo©±"]);
}

#[test]
fn caller_encoding_turns_an_unsupported_char_into_a_warning() {
    let bytes = person("1 CHAR EBCDIC\n", b"Jos\xE9");
    assert_eq!(
        Input::new(&bytes).unwrap_err().kind(),
        ErrorKind::UnsupportedEncoding
    );
    let input = Input::with_encoding(&bytes, Some(Encoding::Windows1252)).unwrap();
    let r = read(input.reader());
    assert_eq!(r.error, None);
    assert_eq!(r.texts_of("NAME"), ["José"]);
    let warned = r.diagnostics_of(DiagnosticKind::Encoding);
    assert_eq!(warned.len(), 1, "{:?}", r.diagnostics);
    assert!(warned[0].message.contains("EBCDIC"));
    // In place, with ReaderConfig::encoding.
    let reader = Reader::with_config(
        &bytes,
        ReaderConfig::new().encoding(Some(Encoding::Windows1252)),
    );
    assert_eq!(read(reader), r);
}

#[test]
fn caller_encoding_overrides_sniffed_utf16_and_reads_utf16_without_bom() {
    // A caller may name UTF-16 for input without a mark...
    let bytes = utf16("0 HEAD\n0 @N1@ NOTE ŵ\n0 TRLR\n", true, false);
    let input = Input::with_encoding(&bytes, Some(Encoding::Utf16Be)).unwrap();
    assert_eq!(input.encoding_info().source, EncodingSource::Caller);
    assert_eq!(read(input.reader()).texts_of("NOTE"), ["ŵ"]);
    // ... and a matching mark is still removed.
    let bytes = utf16("0 HEAD\n0 @N1@ NOTE ŵ\n0 TRLR\n", false, true);
    let input = Input::with_encoding(&bytes, Some(Encoding::Utf16Le)).unwrap();
    assert_eq!(input.encoding_info().bom_len, 2);
    let r = read(input.reader());
    assert_eq!(r.events[0], "+0 HEAD");
    assert_eq!(r.texts_of("NOTE"), ["ŵ"]);
}

// ---- Reader::from_slice on UTF-16 ----------------------------------------------------

#[test]
fn reader_from_slice_refuses_utf16_as_documented() {
    let text = "0 HEAD\n1 CHAR UNICODE\n0 TRLR\n";
    for bytes in [
        utf16(text, false, true),
        utf16(text, true, true),
        utf16(text, false, false),
        utf16(text, true, false),
    ] {
        let mut reader = Reader::from_slice(&bytes);
        assert!(reader.encoding().is_utf16());
        assert!(reader.encoding_info().detected.is_some());
        let err = reader.next_event().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnsupportedEncoding);
        assert_eq!(err.position(), None);
        assert!(err.message().contains("gedcom_elf::Input"), "{err}");
        assert!(reader.next_event().unwrap().is_none());
        // Through Input it reads.
        let r = read(Input::new(&bytes).unwrap().reader());
        assert_eq!(r.error, None);
        assert_eq!(r.events.first().map(String::as_str), Some("+0 HEAD"));
    }
    // Also when the caller names UTF-16 for the in-place reader.
    let config = ReaderConfig::new().encoding(Some(Encoding::Utf16Le));
    let mut reader = Reader::with_config(b"0 HEAD\n0 TRLR\n", config);
    assert_eq!(
        reader.next_event().unwrap_err().kind(),
        ErrorKind::UnsupportedEncoding
    );
}

// ---- Encodings reported by the reader ------------------------------------------------

#[test]
fn reader_reports_the_encoding_in_use() {
    let cases: [(&[u8], Encoding, EncodingSource); 4] = [
        (
            b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n",
            Encoding::Utf8,
            EncodingSource::CharLine,
        ),
        (
            b"0 HEAD\n0 TRLR\n",
            Encoding::Ansel,
            EncodingSource::Default,
        ),
        (
            b"\xEF\xBB\xBF0 HEAD\n0 TRLR\n",
            Encoding::Utf8,
            EncodingSource::ByteOrderMark,
        ),
        (
            b"0 HEAD\n1 CHAR IBMPC\n0 TRLR\n",
            Encoding::Ibm437,
            EncodingSource::CharLine,
        ),
    ];
    for (bytes, enc, source) in cases {
        let reader = Reader::from_slice(bytes);
        assert_eq!(reader.encoding(), enc);
        assert_eq!(reader.encoding_info().source, source);
        let input = Input::new(bytes).unwrap();
        assert_eq!(input.reader().encoding_info(), input.encoding_info());
        assert_eq!(input.reader().encoding(), enc);
    }
}

// ---- UTF-16 transcoding problems -----------------------------------------------------

/// Unpaired surrogates become U+FFFD "with a warning" (issue 3): the warning reaches the
/// reader's diagnostics, not only `Input::transcode_problems`; NULs are no transcoding
/// problem (the reader reports them as `nul-byte`).
#[test]
fn utf16_unpaired_surrogates_become_fffd_with_a_warning() {
    for (be, eol) in [(false, "\n"), (true, "\n"), (false, "\r\n"), (true, "\r")] {
        let unit = |u: u16| if be { u.to_be_bytes() } else { u.to_le_bytes() };
        let text = |s: &str| utf16(&s.replace('\n', eol), be, false);
        let mut bytes = utf16("", be, true);
        bytes.extend_from_slice(&text("0 HEAD\n1 CHAR UNICODE\n0 @N1@ NOTE a"));
        bytes.extend_from_slice(&unit(0xD800)); // a high surrogate with no low one
        bytes.extend_from_slice(&text("b\n0 @N2@ NOTE c"));
        bytes.extend_from_slice(&unit(0xDC00)); // a lone low surrogate
        bytes.extend_from_slice(&text("\n0 @N3@ NOTE x"));
        bytes.extend_from_slice(&unit(0));
        bytes.extend_from_slice(&text("y\n0 TRLR\n"));
        let input = Input::new(&bytes).unwrap();
        assert_eq!(
            input.transcode_problems(),
            2,
            "two surrogates, the NUL is none"
        );
        let r = read(input.reader());
        assert_eq!(r.texts_of("NOTE"), ["a\u{FFFD}b", "c\u{FFFD}", "x\0y"]);
        let warned = r.diagnostics_of(DiagnosticKind::Encoding);
        assert_eq!(warned.len(), 1, "{:?}", r.diagnostics);
        assert!(
            warned[0].message.contains("surrogate"),
            "{}",
            warned[0].message
        );
        assert!(
            warned[0].message.contains("line 3"),
            "{}",
            warned[0].message
        );
        assert_eq!(r.diagnostics_of(DiagnosticKind::NulByte).len(), 1);
    }
    // A clean UTF-16 input has no such warning.
    let clean = utf16("0 HEAD\n0 @N1@ NOTE \u{1F600}\n0 TRLR\n", false, true);
    let input = Input::new(&clean).unwrap();
    assert_eq!(input.transcode_problems(), 0);
    assert!(read(input.reader()).diagnostics.is_empty());
}
