//! One test per writer rule: escaping (§5), CONT/CONC splitting (§4.5), terminators
//! (§3.5), encodings and metadata (§6), and the refusals.

mod write_common;

use gedcom_elf::write::{
    rewrite, HeadOptions, HeadSchema, LineEnding, Node, WriteErrorKind, WriteValue, Writer,
    WriterConfig,
};
use gedcom_elf::{Encoding, EscapeSet, EscapeTable, Event, Input, Reader};

/// Writes `HEAD`, whatever `body` writes, and `TRLR` with `config`; returns the octets.
fn write_with(
    config: WriterConfig,
    body: impl FnOnce(&mut Writer<Vec<u8>>) -> Result<(), gedcom_elf::WriteError>,
) -> Vec<u8> {
    let mut w = Writer::with_config(Vec::new(), config);
    w.begin("HEAD", None, None).unwrap();
    w.end().unwrap();
    body(&mut w).unwrap();
    w.trailer().unwrap();
    w.finish().unwrap()
}

/// The lines between the HEAD (with its CHAR) and the TRLR, as text.
fn body_lines(config: WriterConfig, tag: &str, text: &str) -> Vec<String> {
    let out = write_with(config, |w| w.leaf(tag, Some(WriteValue::Text(text))));
    let s = String::from_utf8(out).unwrap();
    let lines: Vec<String> = s.lines().map(str::to_string).collect();
    lines[2..lines.len() - 1].to_vec()
}

fn note(text: &str) -> Vec<String> {
    body_lines(WriterConfig::new(), "NOTE", text)
}

/// The text the reader gets back for the first structure tagged `tag`.
fn read_text(out: &[u8], tag: &str) -> Option<String> {
    let input = Input::new(out).unwrap();
    for e in input.reader() {
        if let Event::Begin(b) = e.unwrap() {
            if b.tag == tag {
                return b.text().map(|t| t.into_owned());
            }
        }
    }
    None
}

#[test]
fn at_signs_are_doubled() {
    assert_eq!(note("name@example.com"), ["0 NOTE name@@example.com"]);
    assert_eq!(note("@@"), ["0 NOTE @@@@"]);
    // A text that looks like a pointer stays text.
    let out = write_with(WriterConfig::new(), |w| {
        w.leaf("NOTE", Some(WriteValue::Text("@I1@")))
    });
    assert_eq!(read_text(&out, "NOTE").as_deref(), Some("@I1@"));
}

#[test]
fn escapes_preserved_only_for_their_tags() {
    let date = body_lines(WriterConfig::new(), "DATE", "ABT @#DJULIAN@ 1540");
    assert_eq!(date, ["0 DATE ABT @#DJULIAN@ 1540"]);
    assert_eq!(
        note("ABT @#DJULIAN@ 1540"),
        ["0 NOTE ABT @@#DJULIAN@@ 1540"]
    );
    // Other escape types are doubled even in a DATE.
    let date = body_lines(WriterConfig::new(), "DATE", "@#XQ@ 1");
    assert_eq!(date, ["0 DATE @@#XQ@@ 1"]);
    // Unicode escapes are never preserved.
    let date = body_lines(WriterConfig::new(), "DATE", "@#UE9@ ");
    assert_eq!(date[0], "0 DATE @@#UE9@@ ");
    // A schema's ESC lines.
    let mut table = EscapeTable::empty();
    table.add(b"_OLD", EscapeSet::from_types(b"QG"));
    let config = WriterConfig::new().escapes(table);
    assert_eq!(
        body_lines(config.clone(), "_OLD", "@#Qx@ y"),
        ["0 _OLD @#Qx@ y"]
    );
    assert_eq!(body_lines(config, "DATE", "@#DX@ y"), ["0 DATE @@#DX@@ y"]);
}

#[test]
fn the_seeds_date_subtlety() {
    // "@@#Dx@@ yz" in a DATE reads as "@#Dx@ yz", which is a date escape: written back
    // as one, not with @@.
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @E1@ EVEN\n1 DATE @@#Dx@@ yz\n0 TRLR\n";
    assert_eq!(read_text(input, "DATE").as_deref(), Some("@#Dx@ yz"));
    let mut out = Vec::new();
    rewrite(input, None, WriterConfig::new(), &mut out).unwrap();
    let s = String::from_utf8(out).unwrap();
    assert!(s.contains("\n1 DATE @#Dx@ yz\n"), "{s}");
    // The seed's EMAI/DATE example.
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @S1@ SUBM\n1 EMAI name@example.com\n2 DATE @#DGREG\n3 CONC ORIAN@ 2 JAN 2019\n0 TRLR\n";
    let mut out = Vec::new();
    rewrite(input, None, WriterConfig::new(), &mut out).unwrap();
    let s = String::from_utf8(out).unwrap();
    assert!(
        s.contains("1 EMAI name@@example.com\n2 DATE @#DGREGORIAN@ 2 JAN 2019\n"),
        "{s}"
    );
}

#[test]
fn line_breaks_become_cont() {
    assert_eq!(note("a\nb"), ["0 NOTE a", "1 CONT b"]);
    assert_eq!(note("a\r\nb\rc"), ["0 NOTE a", "1 CONT b", "1 CONT c"]);
    assert_eq!(note("\n"), ["0 NOTE", "1 CONT"]);
    assert_eq!(note("a\n\nb"), ["0 NOTE a", "1 CONT", "1 CONT b"]);
    // An empty text is not an absent payload.
    assert_eq!(note(""), ["0 NOTE", "1 CONC"]);
    let config = WriterConfig::new().cr_is_line_break(false);
    assert_eq!(body_lines(config, "NOTE", "a\rb"), ["0 NOTE a@#UD@ b"]);
}

#[test]
fn additional_lines_come_before_substructures() {
    let out = write_with(WriterConfig::new(), |w| {
        w.begin("NOTE", None, Some(WriteValue::Text("a\nb")))?;
        w.leaf("SOUR", Some(WriteValue::Pointer("@S1@")))?;
        w.end()
    });
    let s = String::from_utf8(out).unwrap();
    assert!(s.contains("0 NOTE a\n1 CONT b\n1 SOUR @S1@\n"), "{s}");
}

#[test]
fn trailing_and_leading_whitespace_survive() {
    for text in ["a ", " a", "  ", "a \nb", "\t", "x\n "] {
        let out = write_with(WriterConfig::new(), |w| {
            w.leaf("NOTE", Some(WriteValue::Text(text)))
        });
        assert_eq!(read_text(&out, "NOTE").as_deref(), Some(text), "{text:?}");
    }
    assert_eq!(note("a "), ["0 NOTE a ", "1 CONC"]);
}

/// Writes `text` with a line limit of `max` and returns the NOTE's lines.
fn split(text: &str, max: usize) -> Vec<String> {
    body_lines(WriterConfig::new().max_line_bytes(max), "NOTE", text)
}

#[test]
fn conc_splits_within_the_limit() {
    // "0 NOTE " is 7 octets and LF 1: 12 leaves 4 for the payload; "1 CONC " leaves 4.
    assert_eq!(
        split("abcdefghij", 12),
        ["0 NOTE abcd", "1 CONC efgh", "1 CONC ij"]
    );
    let long = "word ".repeat(200);
    let lines = split(long.trim_end(), 255);
    assert!(lines.len() > 3);
    for l in &lines {
        assert!(l.len() < 255, "{l:?}");
        // Not next to whitespace: no line ends in a space, no CONC payload begins with one.
        assert!(!l.ends_with(' '), "{l:?}");
        assert!(!l.starts_with("1 CONC  "), "{l:?}");
    }
    let joined: String = lines
        .iter()
        .map(|l| l.split_once(' ').unwrap().1.split_once(' ').unwrap().1)
        .collect();
    assert_eq!(joined, long.trim_end());
}

#[test]
fn split_point_on_an_at_pair() {
    // The limit would cut between the two @ of a pair: the pair moves down whole.
    assert_eq!(split("abc@d", 12), ["0 NOTE abc", "1 CONC @@d"]);
}

#[test]
fn split_point_in_an_escape() {
    let lines = body_lines(
        WriterConfig::new().max_line_bytes(14),
        "DATE",
        "ABT @#DJULIAN@ 1540",
    );
    // "ABT" then the space: the split between B and T is the one not next to whitespace;
    // the escape is never cut, and gets a line of its own.
    assert_eq!(
        lines,
        [
            "0 DATE AB",
            "1 CONC T ",
            "1 CONC @#DJULIAN@ ",
            "1 CONC 1540"
        ]
    );
    // Unicode escapes too.
    let lines = body_lines(
        WriterConfig::new()
            .encoding(Encoding::Ascii)
            .max_line_bytes(12),
        "NOTE",
        "abé",
    );
    assert_eq!(lines, ["0 NOTE ab", "1 CONC @#UE9@ ", "1 CONC"]);
}

#[test]
fn split_point_in_a_multibyte_character() {
    // "é" is two octets: with room for 4, "abcé" would need 5.
    assert_eq!(split("abcéf", 12), ["0 NOTE abc", "1 CONC éf"]);
    // A base and its combining marks stay together.
    assert_eq!(
        split("abce\u{301}f", 12),
        ["0 NOTE abc", "1 CONC e\u{301}f"]
    );
    // 😀 takes four octets and fits alone.
    assert_eq!(split("😀😀", 12), ["0 NOTE 😀", "1 CONC 😀"]);
}

#[test]
fn split_point_in_a_run_of_spaces() {
    // Only whitespace: a split inside it is unavoidable, and the spaces survive.
    let text = "        ";
    let out = write_with(WriterConfig::new().max_line_bytes(12), |w| {
        w.leaf("NOTE", Some(WriteValue::Text(text)))
    });
    assert_eq!(read_text(&out, "NOTE").as_deref(), Some(text));
    // With words around: the split goes between letters instead.
    assert_eq!(
        split("ab   cd", 12),
        ["0 NOTE a", "1 CONC b   ", "1 CONC cd"]
    );
}

#[test]
fn every_line_within_the_limit() {
    let text = "Ærø @ x@#DJULIAN@ 😀 e\u{301} ".repeat(100);
    for enc in gedcom_elf::encoding::ALL_ENCODINGS {
        for max in [20usize, 40, 255] {
            let config = WriterConfig::new()
                .encoding(enc)
                .max_line_bytes(max)
                .line_ending(LineEnding::CrLf);
            let out = write_with(config, |w| {
                w.begin("INDI", Some("@I1@"), None)?;
                w.leaf("DATE", Some(WriteValue::Text(&text)))?;
                w.leaf("NOTE", Some(WriteValue::Text(&text)))?;
                w.end()
            });
            let unit = if enc.is_utf16() { 2 } else { 1 };
            let body = if enc.is_utf16() { &out[2..] } else { &out[..] };
            let term: Vec<u8> = match enc {
                Encoding::Utf16Le => b"\r\0\n\0".to_vec(),
                Encoding::Utf16Be => b"\0\r\0\n".to_vec(),
                _ => b"\r\n".to_vec(),
            };
            let mut start = 0;
            let mut i = 0;
            while i + term.len() <= body.len() {
                if body[i..i + term.len()] == term[..] {
                    let len = i + term.len() - start;
                    // Lines that cannot be split: "1 CONC @#DJULIAN@ " and CRLF is 20
                    // characters, "1 CHAR UNICODE" and CRLF 16.
                    let floor = unit * 20;
                    assert!(len <= max.max(floor), "{enc} max {max}: line of {len}");
                    start = i + term.len();
                    i = start;
                } else {
                    i += unit;
                }
            }
            let back = read_text(&out, "NOTE").unwrap();
            let nfc = |s: &str| -> String {
                unicode_normalization::UnicodeNormalization::nfc(s).collect()
            };
            assert_eq!(nfc(&back), nfc(&text), "{enc}");
        }
    }
}

#[test]
fn terminators() {
    for (le, t) in [
        (LineEnding::Lf, "\n"),
        (LineEnding::CrLf, "\r\n"),
        (LineEnding::Cr, "\r"),
    ] {
        let out = write_with(WriterConfig::new().line_ending(le), |w| {
            w.leaf("NOTE", Some(WriteValue::Text("a\nb")))
        });
        let want = format!("0 HEAD{t}1 CHAR UTF-8{t}0 NOTE a{t}1 CONT b{t}0 TRLR{t}");
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}

#[test]
fn each_encoding() {
    let text = "Ærø Müller ő 😀 @";
    let cases: &[(Encoding, &[u8], &[u8])] = &[
        (Encoding::Utf8, b"", b"1 CHAR UTF-8\n"),
        (Encoding::Ascii, b"", b"1 CHAR ASCII\n"),
        (Encoding::Ansel, b"", b"1 CHAR ANSEL\n"),
        (
            Encoding::Utf16Le,
            b"\xFF\xFE",
            b"1\0 \0C\0H\0A\0R\0 \0U\0N\0I\0C\0O\0D\0E\0\n\0",
        ),
        (
            Encoding::Utf16Be,
            b"\xFE\xFF",
            b"\x001\0 \0C\0H\0A\0R\0 \0U\0N\0I\0C\0O\0D\0E\0\n",
        ),
        (Encoding::Windows1252, b"", b"1 CHAR ANSI\n"),
        (Encoding::Windows1250, b"", b"1 CHAR ANSI\n2 VERS 1250\n"),
        (Encoding::Ibm850, b"", b"1 CHAR IBMPC\n2 VERS 850\n"),
        (Encoding::MacRoman, b"", b"1 CHAR MACINTOSH\n"),
    ];
    for &(enc, bom, char_line) in cases {
        let out = write_with(WriterConfig::new().encoding(enc), |w| {
            w.leaf("NOTE", Some(WriteValue::Text(text)))
        });
        assert!(out.starts_with(bom), "{enc}");
        assert!(
            out.windows(char_line.len()).any(|w| w == char_line),
            "{enc}: no {:?}",
            String::from_utf8_lossy(char_line)
        );
        let input = Input::new(&out).unwrap();
        assert_eq!(input.encoding_info().encoding, enc);
        let back = read_text(&out, "NOTE").unwrap();
        let back: String =
            unicode_normalization::UnicodeNormalization::nfc(back.as_str()).collect();
        assert_eq!(back, text, "{enc}");
    }
    // ASCII: unicode escapes; ANSEL: decomposed, marks first.
    let out = write_with(WriterConfig::new().encoding(Encoding::Ascii), |w| {
        w.leaf("NOTE", Some(WriteValue::Text("João")))
    });
    assert!(out.windows(16).any(|w| w == b"0 NOTE Jo@#UE3@ "));
    let out = write_with(WriterConfig::new().encoding(Encoding::Ansel), |w| {
        w.leaf("NOTE", Some(WriteValue::Text("João")))
    });
    assert!(out.windows(12).any(|w| w == b"0 NOTE Jo\xE4ao"));
    // UTF-8 with a byte-order mark on request.
    let out = write_with(WriterConfig::new().bom(Some(true)), |_| Ok(()));
    assert!(out.starts_with(b"\xEF\xBB\xBF0 HEAD\n"));
}

#[test]
fn head_char_and_schema() {
    // A CHAR of the caller's is replaced and its VERS dropped; one is added if missing.
    let mut w = Writer::with_config(
        Vec::new(),
        WriterConfig::new().encoding(Encoding::Windows1251),
    );
    w.begin("HEAD", None, None).unwrap();
    w.begin("CHAR", None, Some(WriteValue::Text("ANSI")))
        .unwrap();
    w.leaf("VERS", Some(WriteValue::Text("1250"))).unwrap();
    w.end().unwrap();
    w.leaf("SOUR", Some(WriteValue::Text("x"))).unwrap();
    w.trailer().unwrap();
    let out = w.finish().unwrap();
    assert_eq!(out, b"0 HEAD\n1 CHAR ANSI\n2 VERS 1251\n1 SOUR x\n0 TRLR\n");

    let mut table = EscapeTable::empty();
    table.add(b"_OLD", EscapeSet::from_types(b"Q"));
    let schema = HeadSchema {
        external: vec!["https://fhiso.org/TR/elf-data-model/v1.0.0".into()],
        prefixes: vec![("elf".into(), "https://fhiso.org/elf/".into())],
        escapes: table,
        iris: vec![gedcom_elf::write::IriDefinition {
            iri: "elf:ADDRESS_EMAIL".into(),
            supertypes: vec![],
            tags: vec![("EMAIL".into(), vec!["elf:Agent".into()])],
        }],
    };
    let mut w = Writer::new(Vec::new());
    w.begin_head(&HeadOptions {
        gedc: false,
        elf: None,
        schema: Some(schema),
    })
    .unwrap();
    w.end().unwrap();
    w.leaf("_OLD", Some(WriteValue::Text("@#Qa@ b"))).unwrap();
    w.leaf("DATE", Some(WriteValue::Text("@#Da@ b"))).unwrap();
    w.trailer().unwrap();
    let out = String::from_utf8(w.finish().unwrap()).unwrap();
    assert_eq!(
        out,
        "0 HEAD\n1 CHAR UTF-8\n1 SCHMA\n2 SCHMA https://fhiso.org/TR/elf-data-model/v1.0.0\n\
         2 PRFX elf https://fhiso.org/elf/\n2 ESC _OLD Q\n2 IRI elf:ADDRESS_EMAIL\n\
         3 TAG EMAIL elf:Agent\n0 _OLD @#Qa@ b\n0 DATE @@#Da@@ b\n0 TRLR\n"
    );
    // The reader agrees on both.
    assert_eq!(
        read_text(out.as_bytes(), "_OLD").as_deref(),
        Some("@#Qa@ b")
    );
    assert_eq!(
        read_text(out.as_bytes(), "DATE").as_deref(),
        Some("@#Da@ b")
    );
}

#[test]
fn refusals() {
    let mut w = Writer::new(Vec::new());
    let e = w.begin("INDI", None, None).unwrap_err();
    assert_eq!(e.kind(), WriteErrorKind::MissingHead);
    w.begin("HEAD", None, None).unwrap();
    w.end().unwrap();
    let kind = |r: Result<(), gedcom_elf::WriteError>| r.unwrap_err().kind();
    assert_eq!(
        kind(w.begin("NA-ME", None, None)),
        WriteErrorKind::InvalidTag
    );
    assert_eq!(kind(w.begin("", None, None)), WriteErrorKind::InvalidTag);
    assert_eq!(
        kind(w.begin("INDI", Some("I1"), None)),
        WriteErrorKind::InvalidXref
    );
    assert_eq!(
        kind(w.begin("INDI", Some("@I:1@"), None)),
        WriteErrorKind::InvalidXref
    );
    let p = Some(WriteValue::Pointer("@I1@ x"));
    assert_eq!(
        kind(w.begin("FAMC", None, p)),
        WriteErrorKind::InvalidPointer
    );
    w.begin("INDI", Some("@I1@"), None).unwrap();
    assert_eq!(
        kind(w.begin("CONT", None, None)),
        WriteErrorKind::ContinuationTag
    );
    w.begin("ERROR", None, Some(WriteValue::Text("x"))).unwrap();
    assert_eq!(kind(w.begin("NOTE", None, None)), WriteErrorKind::TooDeep);
    w.end().unwrap();
    // A CONT structure after a sibling is fine: a reader sees a stray CONT structure.
    w.leaf("CONT", Some(WriteValue::Text("stray"))).unwrap();
    w.end().unwrap();
    assert_eq!(kind(w.end()), WriteErrorKind::NothingOpen);
    // Events at the wrong level.
    let input = b"0 HEAD\n1 NOTE x\n0 TRLR\n";
    let events: Vec<Event> = Reader::from_slice(input).map(Result::unwrap).collect();
    let mut w = Writer::new(Vec::new());
    let e = w.write_event(&events[1], Encoding::Utf8).unwrap_err();
    assert_eq!(e.kind(), WriteErrorKind::LevelJump);
    // Nothing of a refused structure was written.
    let out = w.finish().unwrap();
    assert!(out.is_empty());
    // An xref the encoding lacks a character of.
    let mut w = Writer::with_config(Vec::new(), WriterConfig::new().encoding(Encoding::Ascii));
    w.begin("HEAD", None, None).unwrap();
    w.end().unwrap();
    assert_eq!(
        kind(w.begin("INDI", Some("@Ié@"), None)),
        WriteErrorKind::InvalidXref
    );
}

#[test]
fn deep_nesting_without_recursion() {
    let depth = 100_000;
    let mut w = Writer::new(Vec::new());
    w.begin("HEAD", None, None).unwrap();
    w.end().unwrap();
    for _ in 0..depth {
        w.begin("_D", None, Some(WriteValue::Text("x"))).unwrap();
    }
    w.trailer().unwrap();
    let out = w.finish().unwrap();
    let mut reader = Reader::from_slice(&out);
    let mut max = 0;
    while let Some(e) = reader.next_event().unwrap() {
        if let Event::Begin(b) = e {
            max = max.max(b.level);
        }
    }
    assert_eq!(max as usize, depth - 1);
    assert_eq!(reader.stats().errors(), 0);

    // A deep Node tree through write_structure, built and dropped without recursion.
    let mut root = Node::new("_D");
    let mut cur = &mut root;
    for _ in 0..depth {
        cur.children.push(Node::new("_D").text("y"));
        cur = &mut cur.children[0];
    }
    let mut w = Writer::new(Vec::new());
    w.begin("HEAD", None, None).unwrap();
    w.end().unwrap();
    w.write_structure(&root).unwrap();
    w.trailer().unwrap();
    assert!(w.finish().unwrap().len() > depth * 8);
    // Drop iteratively (the derived Drop would recurse).
    let mut stack = vec![root];
    while let Some(mut n) = stack.pop() {
        stack.append(&mut n.children);
    }
}

#[test]
fn a_head_with_text_keeps_a_bare_first_line() {
    let mut w = Writer::new(Vec::new());
    w.begin("HEAD", None, Some(WriteValue::Text("x\ny")))
        .unwrap();
    w.trailer().unwrap();
    let out = w.finish().unwrap();
    assert_eq!(out, b"0 HEAD\n1 CONC x\n1 CONT y\n1 CHAR UTF-8\n0 TRLR\n");
    assert_eq!(read_text(&out, "HEAD").as_deref(), Some("x\ny"));
}

/// The lines one structure gets when written at `depth` (under `_N` structures), each
/// with its level made relative to `depth`, for comparing the writer's fast path
/// (levels below 10) with its general path (10 and deeper), which must agree (given a
/// line limit one octet longer for the extra digit).
fn lines_at(
    config: &WriterConfig,
    depth: usize,
    tag: &str,
    xref: Option<&str>,
    value: Option<WriteValue<'_>>,
) -> Vec<Vec<u8>> {
    let term = config.output_line_ending().as_str().as_bytes().to_vec();
    let out = write_with(config.clone(), |w| {
        for _ in 0..depth {
            w.begin("_N", None, None)?;
        }
        w.begin(tag, xref, value)?;
        w.end()?;
        for _ in 0..depth {
            w.end()?;
        }
        Ok(())
    });
    let mut lines = Vec::new();
    let mut rest = &out[..];
    while !rest.is_empty() {
        let at = rest
            .windows(term.len())
            .position(|w| w == term)
            .expect("every line is terminated");
        lines.push(rest[..at].to_vec());
        rest = &rest[at + term.len()..];
    }
    // HEAD, its CHAR, the _N lines; the TRLR.
    let body = &lines[2 + depth..lines.len() - 1];
    body.iter()
        .map(|l| {
            let sp = l.iter().position(|&b| b == b' ').unwrap();
            let level: usize = std::str::from_utf8(&l[..sp]).unwrap().parse().unwrap();
            let mut v = (level - depth).to_string().into_bytes();
            v.extend_from_slice(&l[sp..]);
            v
        })
        .collect()
}

/// Two writers past their HEAD: the next structure at level 0 (the fast path's) and at
/// level 10 (two digits: the general path's).
fn fast_and_general(config: &WriterConfig) -> (Writer<Vec<u8>>, Writer<Vec<u8>>) {
    let mut fast = Writer::with_config(Vec::new(), config.clone());
    let mut general = Writer::with_config(Vec::new(), config.clone());
    for w in [&mut fast, &mut general] {
        w.begin("HEAD", None, None).unwrap();
        w.end().unwrap();
    }
    for _ in 0..10 {
        general.begin("_N", None, None).unwrap();
    }
    (fast, general)
}

#[test]
fn fast_and_general_paths_agree() {
    let texts = [
        "plain",
        "é",
        "ends in é",
        "ends in я",
        "ends in 国",
        "space last ",
        "tab last\t",
        "a \u{301}",
        "mark last e\u{301}",
        "@ first",
        "last @",
        "mid@dle",
        "cr last\r",
        "lf last\n",
        "in\tside",
        "control\u{1}char",
        "@#DJULIAN@ 1540",
        "@#DJULIAN@ ",
        "a@#Dx@ y@",
        "@#UE9@ x",
        "@#DJULIÅN@ 1",
        "name@example.org",
        "@@",
        "ab",
        "abc",
        "abcd",
        "abcdefg",
        "abcdefgh",
        "abcdefghi",
        "0123456789abcdef",
        "0123456789abcdefg",
        "0123456789abcdef0123456789abcdef",
        "0123456789abcdef0123456789abcdef0",
        "",
    ];
    let configs = [
        WriterConfig::new(),
        WriterConfig::new().line_ending(LineEnding::CrLf),
        WriterConfig::new().line_ending(LineEnding::Cr),
        WriterConfig::new().encoding(Encoding::Ascii),
        WriterConfig::new().encoding(Encoding::Ansel),
        WriterConfig::new().encoding(Encoding::Windows1252),
        WriterConfig::new().cr_is_line_break(false),
    ];
    let mut compared = 0;
    for base in &configs {
        for text in texts {
            for tag in ["NOTE", "DATE", "_CUSTOM", "N"] {
                for xref in [None, Some("@X1@")] {
                    // Limits around the line's length: it fits exactly, by one more, or
                    // is one octet too long (at level 1; level 10 has one more digit).
                    let fast_len = 2
                        + xref.map_or(0, |x| x.len() + 1)
                        + tag.len()
                        + 1
                        + text.len()
                        + base.output_line_ending().as_str().len();
                    for max in [fast_len - 1, fast_len, fast_len + 1, 255] {
                        let fast = base.clone().max_line_bytes(max);
                        let general = base.clone().max_line_bytes(max + 1);
                        let v = Some(WriteValue::Text(text));
                        assert_eq!(
                            lines_at(&fast, 0, tag, xref, v),
                            lines_at(&general, 10, tag, xref, v),
                            "{text:?} {tag} {xref:?} {max} {:?}",
                            base
                        );
                        compared += 1;
                    }
                }
            }
        }
        for pointer in ["@I1@", "@I:1@", "@I é@", "@@", "@I@1@"] {
            for tag in ["FAMS", "_PTR"] {
                let v = Some(WriteValue::Pointer(pointer));
                let (mut fast, mut general) = fast_and_general(base);
                let a = fast.begin(tag, None, v).map_err(|e| e.kind());
                let b = general.begin(tag, None, v).map_err(|e| e.kind());
                assert_eq!(a, b, "{pointer:?} {base:?}");
                if a.is_ok() {
                    assert_eq!(
                        lines_at(base, 0, tag, None, v),
                        lines_at(base, 10, tag, None, v)
                    );
                }
                compared += 1;
            }
        }
        for xref in ["@I1@", "@I:1@", "@I!1@", "@I é@", "@-1@", "@I\n1@"] {
            let (mut fast, mut general) = fast_and_general(base);
            let a = fast.begin("INDI", Some(xref), None).map_err(|e| e.kind());
            let b = general
                .begin("INDI", Some(xref), None)
                .map_err(|e| e.kind());
            assert_eq!(a, b, "{xref:?} {base:?}");
            compared += 1;
        }
    }
    assert!(compared > 1000);
}

#[test]
fn fast_path_lines_read_back() {
    // Texts the fast path writes as they are, at the line limit, read back unchanged.
    let texts = ["plain text", "ends in é", "Москва", "北京市", "x"];
    for text in texts {
        let max = 2 + 4 + 1 + text.len() + 1;
        let config = WriterConfig::new().max_line_bytes(max);
        let out = write_with(config, |w| {
            w.begin("INDI", Some("@I1@"), None)?;
            w.leaf("NOTE", Some(WriteValue::Text(text)))?;
            w.end()
        });
        let s = String::from_utf8(out.clone()).unwrap();
        assert!(s.contains(&format!("\n1 NOTE {text}\n")), "{s}");
        assert!(!s.contains("CONC"), "{s}");
        assert_eq!(read_text(&out, "NOTE").as_deref(), Some(text));
    }
}
