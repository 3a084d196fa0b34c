//! The writer's `CHAR` rule end to end (issue #17, item 4): what the input's `HEAD.CHAR`
//! holds is kept under the writer's `CHAR` (its `VERS` replaced), and what cannot be
//! kept is reported with its input line; writer errors carry the input line.

use gedcom_elf::bridge::{write_tree, write_tree_parallel_chunked};
use gedcom_elf::tree::Tree;
use gedcom_elf::write::{rewrite, DropReason, RewriteStats, WriteErrorKind, Writer, WriterConfig};
use gedcom_elf::{Encoding, Event, Input, Reader};

/// `rewrite` of `input` to `enc`: the output and the stats.
fn fmt(input: &[u8], enc: Encoding) -> (Vec<u8>, RewriteStats) {
    let mut out = Vec::new();
    let stats = rewrite(input, None, WriterConfig::new().encoding(enc), &mut out)
        .unwrap_or_else(|e| panic!("{enc}: {e}"));
    (out, stats)
}

/// The structures of the first `HEAD.CHAR` of `bytes` as `LEVEL TAG PAYLOAD` lines (the
/// payloads decoded), `VERS` subtrees apart: `(others, vers)`. Also checks that the
/// encoding read is `enc` and that reading gave no error.
fn char_contents(bytes: &[u8], enc: Encoding) -> (Vec<String>, Vec<String>) {
    let input = Input::new(bytes).unwrap();
    assert_eq!(input.encoding_info().encoding, enc);
    let mut reader = input.reader();
    let (mut others, mut vers) = (Vec::new(), Vec::new());
    let (mut in_char, mut in_vers, mut chars) = (false, false, 0);
    let mut in_head = false;
    while let Some(e) = reader.next_event().unwrap() {
        let Event::Begin(b) = e else { continue };
        if b.level == 0 {
            in_head = b.tag == "HEAD";
        } else if in_head && b.level == 1 {
            in_char = b.tag == "CHAR";
            chars += usize::from(in_char);
            in_char &= chars == 1;
        } else if in_char {
            if b.level == 2 {
                in_vers = b.tag == "VERS";
            }
            let line = format!("{} {} {}", b.level, b.tag, b.text().unwrap_or_default());
            if !in_vers {
                others.push(line);
            } else if b.level > 2 {
                vers.push(line);
            }
        }
    }
    assert!(
        reader
            .drain_diagnostics()
            .all(|d| d.severity() != gedcom_elf::Severity::Error),
        "errors reading the output"
    );
    (others, vers)
}

/// A HEAD whose CHAR holds custom tags, a note, and a VERS with a substructure.
const INPUT: &[u8] = b"0 HEAD\n1 SOUR app\n1 CHAR ANSEL\n2 VERS 1.0\n3 _VNOTE on the version\n\
2 _COMMENT keep me\n3 _YYY and me\n2 NOTE a note\n3 CONT second line\n1 GEDC\n2 VERS 5.5.1\n\
0 @I1@ INDI\n1 NAME Ada\n0 TRLR\n";

#[test]
fn what_the_char_holds_survives_every_output_encoding() {
    let want = [
        "2 _COMMENT keep me",
        "3 _YYY and me",
        "2 NOTE a note\nsecond line",
    ];
    for enc in [
        Encoding::Utf8,
        Encoding::Ascii,
        Encoding::Ansel,
        Encoding::Windows1250,
        Encoding::Utf16Le,
        Encoding::Utf16Be,
        Encoding::Ibm850,
    ] {
        let (out, stats) = fmt(INPUT, enc);
        let (others, vers) = char_contents(&out, enc);
        assert_eq!(others, want, "{enc}");
        if enc.vers().is_some() {
            // Under the writer's VERS line.
            assert_eq!(vers, ["3 _VNOTE on the version"], "{enc}");
            assert_eq!(stats.dropped_count, 0, "{enc}");
        } else {
            // Nowhere to go: reported, with its line.
            assert!(vers.is_empty(), "{enc}");
            assert_eq!(stats.dropped_count, 1, "{enc}");
            let d = &stats.dropped[0];
            assert_eq!(
                (d.tag.as_str(), d.line, d.reason),
                ("_VNOTE", Some(5), DropReason::NoVersLine),
                "{enc}"
            );
        }
    }
    // The octets, for one encoding without and one with a VERS line: the writer's
    // CHAR first in the HEAD, what the input's held under it, the rest in order.
    assert_eq!(
        String::from_utf8(fmt(INPUT, Encoding::Utf8).0).unwrap(),
        "0 HEAD\n1 CHAR UTF-8\n2 _COMMENT keep me\n3 _YYY and me\n2 NOTE a note\n\
         3 CONT second line\n1 SOUR app\n1 GEDC\n2 VERS 5.5.1\n0 @I1@ INDI\n1 NAME Ada\n0 TRLR\n"
    );
    assert_eq!(
        String::from_utf8(fmt(INPUT, Encoding::Windows1250).0).unwrap(),
        "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _VNOTE on the version\n2 _COMMENT keep me\n\
         3 _YYY and me\n2 NOTE a note\n3 CONT second line\n1 SOUR app\n1 GEDC\n2 VERS 5.5.1\n\
         0 @I1@ INDI\n1 NAME Ada\n0 TRLR\n"
    );
}

#[test]
fn a_char_with_only_a_vers_gives_the_same_output_as_before() {
    let input = b"0 HEAD\n1 CHAR ANSI\n2 VERS 1251\n1 SOUR x\n0 TRLR\n";
    let (out, stats) = fmt(input, Encoding::Utf8);
    assert_eq!(out, b"0 HEAD\n1 CHAR UTF-8\n1 SOUR x\n0 TRLR\n");
    assert_eq!(stats, {
        let mut s = RewriteStats::default();
        s.structures = 5;
        s.input_encoding = Some(Encoding::Windows1251);
        s
    });
    let (out, _) = fmt(input, Encoding::Windows1258);
    assert_eq!(out, b"0 HEAD\n1 CHAR ANSI\n2 VERS 1258\n1 SOUR x\n0 TRLR\n");
}

#[test]
fn a_second_char_is_reported_with_its_line() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n2 _A a\n1 SOUR s\n1 CHAR ANSEL\n2 _B b\n0 TRLR\n";
    let (out, stats) = fmt(input, Encoding::Utf8);
    assert_eq!(out, b"0 HEAD\n1 CHAR UTF-8\n2 _A a\n1 SOUR s\n0 TRLR\n");
    assert_eq!(stats.dropped_count, 1);
    assert_eq!(stats.dropped[0].line, Some(5));
    assert_eq!(stats.dropped[0].reason, DropReason::SecondChar);
    assert_eq!(
        stats.dropped[0].to_string(),
        "line 5: CHAR: a second char under the head (the output names its encoding once)"
    );
    // The same through a live writer, before `finish`.
    let mut w = Writer::new(Vec::new());
    for e in Reader::from_slice(input) {
        w.write_event(&e.unwrap(), Encoding::Utf8).unwrap();
    }
    assert_eq!(w.dropped_count(), 1);
    assert_eq!(w.dropped(), &stats.dropped[..]);
}

#[test]
fn xrefs_and_leading_continuations_are_reported() {
    let input = b"0 HEAD\n1 @C1@ CHAR ANSI\n2 @V1@ VERS 1250\n2 CONT stray\n2 _A\n0 TRLR\n";
    let (out, stats) = fmt(input, Encoding::Utf8);
    assert_eq!(out, b"0 HEAD\n1 CHAR UTF-8\n2 _A\n0 TRLR\n");
    let got: Vec<_> = stats
        .dropped
        .iter()
        .map(|d| (d.tag.as_str(), d.line, d.reason))
        .collect();
    assert_eq!(
        got,
        [
            ("CHAR", Some(2), DropReason::CharXref),
            ("VERS", Some(3), DropReason::CharXref),
            ("CONT", Some(4), DropReason::Continuation),
        ]
    );
    // After the writer's VERS line the stray CONT is a structure of its own, as in the
    // input; the output's CHAR and VERS lines carry no xref, so readers find them.
    let (out, stats) = fmt(input, Encoding::Windows1254);
    assert_eq!(
        out,
        b"0 HEAD\n1 CHAR ANSI\n2 VERS 1254\n2 CONT stray\n2 _A\n0 TRLR\n"
    );
    assert_eq!(stats.dropped_count, 2);
    assert_eq!(
        char_contents(&out, Encoding::Windows1254).0,
        ["2 CONT stray", "2 _A "]
    );
}

#[test]
fn write_event_errors_carry_the_input_line() {
    // An xref ASCII cannot hold, on line 4.
    let input = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 @Jé@ INDI\n0 TRLR\n".as_bytes();
    let mut w = Writer::with_config(Vec::new(), WriterConfig::new().encoding(Encoding::Ascii));
    let mut failed = None;
    for e in Reader::from_slice(input) {
        if let Err(err) = w.write_event(&e.unwrap(), Encoding::Utf8) {
            failed = Some(err);
            break;
        }
    }
    let err = failed.expect("refused");
    assert_eq!(err.kind(), WriteErrorKind::InvalidXref);
    assert_eq!(err.line(), Some(4));
    assert!(!err.to_string().contains("line"), "{err}");
    // rewrite gives the same.
    let config = WriterConfig::new().encoding(Encoding::Ascii);
    let err = rewrite(input, None, config, &mut Vec::new()).unwrap_err();
    assert_eq!(
        (err.kind(), err.line()),
        (WriteErrorKind::InvalidXref, Some(4))
    );
    // A level jump: the event's line.
    let events: Vec<_> = Reader::from_slice(b"0 HEAD\n0 @I1@ INDI\n1 NAME n\n0 TRLR\n")
        .map(Result::unwrap)
        .collect();
    let mut w = Writer::new(Vec::new());
    w.write_event(&events[0], Encoding::Utf8).unwrap();
    // The INDI record (line 2) while the HEAD is open.
    let err = w.write_event(&events[2], Encoding::Utf8).unwrap_err();
    assert_eq!(
        (err.kind(), err.line()),
        (WriteErrorKind::LevelJump, Some(2))
    );
    // An End carries no line.
    let err = w.write_event(&events[4], Encoding::Utf8).unwrap_err();
    assert_eq!((err.kind(), err.line()), (WriteErrorKind::LevelJump, None));
    // A read error of rewrite: where reading stopped, not repeated in the message.
    let err = rewrite(b"0 NOTE x\n", None, WriterConfig::new(), &mut Vec::new()).unwrap_err();
    assert_eq!((err.kind(), err.line()), (WriteErrorKind::Read, Some(1)));
    assert!(err.to_string().starts_with("not a gedcom file"), "{err}");
}

#[test]
fn tree_writes_keep_the_char_and_report_with_lines() {
    let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n2 _A a\n1 CHAR ANSEL\n");
    for i in 0..200 {
        input += &format!("0 @I{i}@ INDI\n1 NAME n{i}\n");
    }
    // A later HEAD record, with a second CHAR, written by a piece writer.
    input += "0 HEAD\n1 CHAR x\n2 _B\n1 CHAR y\n0 @Jé@ INDI\n0 TRLR\n";
    let tree = Tree::from_slice(input.as_bytes()).unwrap();
    let config = WriterConfig::new().encoding(Encoding::Ascii);
    let run = |pieces: Option<usize>| {
        let mut w = Writer::with_config(Vec::new(), config.clone());
        let r = match pieces {
            None => write_tree(&mut w, &tree, Encoding::Utf8),
            Some(n) => write_tree_parallel_chunked(&mut w, &tree, Encoding::Utf8, 2, n),
        };
        let dropped: Vec<_> = w.dropped().iter().map(|d| (d.line, d.reason)).collect();
        let count = w.dropped_count();
        (
            r.map_err(|e| (e.kind(), e.line())),
            dropped,
            count,
            w.finish().unwrap(),
        )
    };
    let serial = run(None);
    assert_eq!(
        serial.1,
        [
            (Some(4), DropReason::SecondChar),
            (Some(408), DropReason::SecondChar)
        ]
    );
    assert_eq!(serial.2, 2);
    // An xref ASCII cannot hold: refused, with the node's line.
    assert_eq!(serial.0, Err((WriteErrorKind::InvalidXref, Some(409))));
    let text = String::from_utf8(serial.3.clone()).unwrap();
    assert!(text.starts_with("0 HEAD\n1 CHAR ASCII\n2 _A a\n0 @I0@ INDI\n"));
    assert!(text.ends_with("0 HEAD\n1 CHAR ASCII\n2 _B\n"), "{text}");
    for n in [1, 50, 1000] {
        assert_eq!(run(Some(n)), serial, "pieces of {n}");
    }
}
