//! One test (or more) per reader rule of the reader issue, through the library API.

mod common;
use common::{begins, render, render_with, shared_corpus};
use gedcom_elf::{DiagnosticKind, ErrorKind, Event, Reader, Severity, TrailingWhitespace};

#[test]
fn rule1_every_line_break_form_gives_the_same_events() {
    let lf = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a\n2 CONT b\n0 TRLR\n".to_vec();
    let want = render(&lf);
    let crlf: Vec<u8> = String::from_utf8(lf.clone())
        .unwrap()
        .replace('\n', "\r\n")
        .into();
    let cr: Vec<u8> = String::from_utf8(lf.clone())
        .unwrap()
        .replace('\n', "\r")
        .into();
    let mixed = b"0 HEAD\r\n1 CHAR UTF-8\r0 @I1@ INDI\n1 NOTE a\r\n2 CONT b\r0 TRLR".to_vec();
    let blank =
        b"\n\n  0 HEAD\n\t1 CHAR UTF-8\n \n0 @I1@ INDI\n1 NOTE a\n\n2 CONT b\n0 TRLR\n\n".to_vec();
    for input in [crlf, cr, mixed, blank] {
        assert_eq!(
            render(&input),
            want,
            "{:?}",
            String::from_utf8_lossy(&input)
        );
    }
}

#[test]
fn rule1_lf_cr_is_two_breaks_and_line_numbers_count_blank_lines() {
    let r = render(b"0 HEAD\n\r1 X y\n\n\r\n@bad\n0 TRLR");
    assert!(r.contains(&"!6 unparsable-line".to_string()), "{r:?}");
}

#[test]
fn rule1_trailing_whitespace_is_kept_only_before_conc() {
    let input = b"0 HEAD\n0 @N@ NOTE abc \n1 CONC def \n1 CONT ghi \n1 CONC jkl  \n0 TRLR\n";
    let text = |tw| render_with(input, common::utf8().trailing_whitespace(tw))[2].clone();
    assert_eq!(
        text(TrailingWhitespace::KeepBeforeConc),
        "+0 NOTE @N@ \"abc def\\nghi jkl\""
    );
    assert_eq!(
        text(TrailingWhitespace::Trim),
        "+0 NOTE @N@ \"abcdef\\nghijkl\""
    );
    assert_eq!(
        text(TrailingWhitespace::Keep),
        "+0 NOTE @N@ \"abc def \\nghi jkl  \""
    );
    // Without a CONC next, trailing whitespace goes.
    assert_eq!(begins(b"0 HEAD\n1 NAME x  \n0 TRLR")[1], "+1 NAME \"x\"");
}

#[test]
fn rule2_line_grammar() {
    let b = begins(
        b"0 HEAD\n1\t\tNAME\t x\n1 NOTE  two\n0 @I 1@ INDI\n1 FAMC @F 1@\n1 NOTE @F1@ x\n1 NOTE @#DJULIAN@\n1 NOTE @@\n0 TRLR",
    );
    assert_eq!(b[1], "+1 NAME \" x\"");
    assert_eq!(b[2], "+1 NOTE \" two\"");
    assert_eq!(b[3], "+0 INDI @I 1@");
    assert_eq!(b[4], "+1 FAMC =@F 1@");
    assert_eq!(b[5], "+1 NOTE \"@F1@ x\"");
    assert_eq!(b[6], "+1 NOTE \"@#DJULIAN@\"");
    assert_eq!(b[7], "+1 NOTE \"@\"");
}

#[test]
fn rule2_unparsable_lines() {
    for bad in [
        "01 NAME x",
        "1NAME",
        "0 @:x@ INDI",
        "1 NA-ME x",
        "1 @X@",
        "x",
        "1 NAME/x/",
    ] {
        let input = format!("0 HEAD\n{bad}\n0 TRLR\n");
        let b = begins(input.as_bytes());
        assert_eq!(b[1], format!("+1 ERROR {bad:?}"), "{bad}");
        assert_eq!(b[3], "!2 unparsable-line", "{bad}");
    }
}

#[test]
fn rule3_unparsable_line_goes_one_below_the_previous_level() {
    let r = render(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n??\n?? again\n1 NAME x\n0 TRLR");
    assert_eq!(
        r[2..12],
        [
            "+0 INDI @I1@",
            "+1 BIRT",
            "+2 DATE \"1900\"",
            "+3 ERROR \"??\"",
            "-3 ERROR",
            "+3 ERROR \"?? again\"",
            "-3 ERROR",
            "-2 DATE",
            "-1 BIRT",
            "+1 NAME \"x\"",
        ]
    );
}

#[test]
fn rule3_error_payload_is_decoded_like_any_other() {
    let b = begins(b"0 HEAD\nmail a@@b.org @#XJUNK@ end\n0 TRLR");
    assert_eq!(b[1], "+1 ERROR \"mail a@b.org end\"");
}

#[test]
fn rule3_literal_error_lines_are_warned_and_skip_the_previous_level() {
    let r = begins(b"0 HEAD\n1 ERROR x\n2 CONT y\n2 Z z\n0 TRLR");
    assert_eq!(r[1], "+1 ERROR \"x\\ny\"");
    // The previous level of `2 Z` is 0 (ERROR lines do not count): too deep.
    assert_eq!(r[2], "+2 ERROR \"2 Z z\"");
    assert!(r.contains(&"!2 error-tag".to_string()));
    assert!(r.contains(&"!4 too-deep".to_string()));
}

#[test]
fn rule3_levels_jumping_back_close_every_open_structure() {
    let r = render(b"0 HEAD\n1 A\n2 B\n3 C\n4 D\n1 E\n0 TRLR");
    assert_eq!(r[5..11], ["-4 D", "-3 C", "-2 B", "-1 A", "+1 E", "-1 E"]);
}

#[test]
fn rule4_stray_continuations_and_xrefs_on_continuations() {
    let r = begins(b"0 HEAD\n0 @N1@ NOTE a\n1 @N1@ CONT b\n1 CONC c\n0 CONT d\n0 TRLR");
    assert_eq!(r[1], "+0 NOTE @N1@ \"a\\nbc\"");
    assert_eq!(r[2], "+0 CONT \"d\"");
    assert!(r.contains(&"!3 continuation-xref".to_string()));
    assert!(r.contains(&"!5 stray-continuation".to_string()));
}

#[test]
fn rule4_a_structure_with_only_continuations_has_text() {
    let b = begins(b"0 HEAD\n1 NOTE\n2 CONT x\n1 NOTE\n2 CONC\n0 TRLR");
    assert_eq!(b[1], "+1 NOTE \"\\nx\"");
    assert_eq!(b[2], "+1 NOTE \"\"");
}

#[test]
fn rule4_conc_inside_a_utf8_sequence_is_joined_before_validation() {
    let input = b"0 HEAD\n1 NOTE Milo\xC5\n2 CONC \xA1 \xE6\x9D\n2 CONC \x8E\n0 TRLR\n";
    let b = begins(input);
    assert_eq!(b[1], "+1 NOTE \"Miloš 李\"");
    assert_eq!(b.len(), 3, "{b:?}");
}

#[test]
fn rule5_schema_escapes() {
    let custom = b"0 HEAD\n1 SCHMA\n2 ESC _OLD QG\n0 @I1@ INDI\n1 _OLD @#QX@ a@#GY@ b@#DZ@ c\n1 DATE @#DJULIAN@ 1700\n0 TRLR";
    let b = begins(custom);
    assert_eq!(b[4], "+1 _OLD \"@#QX@ a@#GY@ bc\"");
    // A SCHMA replaces the default schema: DATE no longer preserves D.
    assert_eq!(b[5], "+1 DATE \"1700\"");
    let no_esc = begins(b"0 HEAD\n1 SCHMA\n2 PRFX elf https://terms.fhiso.org/elf/\n0 @I1@ INDI\n1 DATE @#DJULIAN@ 1700\n0 TRLR");
    assert_eq!(no_esc[4], "+1 DATE \"1700\"");
}

#[test]
fn rule5_unicode_escapes() {
    let b = begins(b"0 HEAD\n1 NOTE Jo@#UE3@ o @#Ue9@ @#U1F600@ !\n1 NOTE trailing @#U41@ \n1 NOTE bad @#UD800@ x\n0 TRLR");
    assert_eq!(b[1], "+1 NOTE \"João é😀!\"");
    // Trailing whitespace is removed first, so an escape cannot end a line.
    assert_eq!(b[2], "+1 NOTE \"trailing @#U41@\"");
    assert_eq!(b[3], "+1 NOTE \"bad @#UD800@ x\"");
    assert_eq!(b[5], "!4 invalid-unicode-escape");
}

#[test]
fn rule6_first_line_must_be_head() {
    for input in [
        &b"0 @H@ HEAD\n0 TRLR"[..],
        b"1 HEAD\n",
        b"",
        b"\n\n",
        b"HEAD",
    ] {
        let r = render(input);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].starts_with("ERR NotGedcom"), "{r:?}");
    }
    // Whitespace-normalised and upper-cased; a UTF-8 BOM is skipped.
    assert_eq!(begins(b"\xEF\xBB\xBF  0 \t head \n0 TRLR")[0], "+0 head");
}

#[test]
fn rule6_headless_fragments_on_request() {
    let r = render_with(b"2 NAME x\n0 @I1@ INDI", common::utf8().headless(true));
    assert_eq!(r[0], "+0 ERROR \"2 NAME x\"");
    assert!(r.contains(&"!1 too-deep".to_string()));
    assert!(r.contains(&"!2 missing-trlr".to_string()));
}

#[test]
fn rule7_missing_trlr_and_lines_after_trlr() {
    let r = render(b"0 HEAD\n0 @I1@ INDI\n1 NAME x");
    assert_eq!(r.last().unwrap(), "!3 missing-trlr");
    assert_eq!(r[r.len() - 2], "-0 INDI");
    // The missing TRLR is reported at the last line read: its number and
    // its first byte, whatever blank lines follow it; with no line after
    // HEAD, at HEAD.
    for (input, want) in [
        (&b"0 HEAD\n0 @I1@ INDI\n  1 NAME x  \n\n \r\n"[..], (3, 21)),
        (&b"0 HEAD\r\n0 @I1@ INDI\r1 NAME x"[..], (3, 20)),
        (&b"0 HEAD\n\n"[..], (1, 0)),
    ] {
        let mut reader = Reader::with_config(input, common::utf8());
        while reader.next_event().unwrap().is_some() {}
        let d: Vec<_> = reader
            .drain_diagnostics()
            .filter(|d| d.kind == DiagnosticKind::MissingTrlr)
            .map(|d| (d.position.line, d.position.byte))
            .collect();
        assert_eq!(d, [want], "{input:?}");
    }
    let r = begins(b"0 HEAD\n0 TRLR\n0 @I1@ INDI\n1 NAME x\n0 TRLR");
    assert_eq!(r[2], "+0 INDI @I1@");
    assert_eq!(
        r.iter().filter(|s| s.starts_with('!')).collect::<Vec<_>>(),
        ["!3 after-trlr"]
    );
}

#[test]
fn rule8_diagnostics_carry_severity_kind_line_and_byte() {
    let input = b"0 HEAD\n1 NOTE a\xFFb\n1 NOTE nul\x00here\n2 X\n0 TRLR\n";
    let mut reader = Reader::with_config(input, common::utf8());
    let mut texts = Vec::new();
    while let Some(e) = reader.next_event().unwrap() {
        if let Event::Begin(b) = e {
            texts.push(b.text().unwrap_or_default().into_owned());
        }
    }
    assert_eq!(texts[1], "a\u{FFFD}b");
    assert_eq!(texts[2], "nul\u{0}here");
    let d: Vec<_> = reader.drain_diagnostics().collect();
    let got: Vec<_> = d
        .iter()
        .map(|d| (d.position.line, d.position.byte, d.kind))
        .collect();
    assert_eq!(
        got,
        [
            (2, 7, DiagnosticKind::InvalidEncoding),
            (3, 18, DiagnosticKind::NulByte),
        ]
    );
    assert!(d.iter().all(|d| d.severity() == Severity::Warning));
    assert!(d[0].message.contains("utf-8"));
    assert!(reader.diagnostics().is_empty());
}

#[test]
fn rule8_strict_mode_stops_at_the_first_error() {
    let input = b"0 HEAD\n1 NOTE a\n2 CONC b\n1 CONT stray\nbad line\n0 TRLR\n";
    let mut reader = Reader::with_config(input, common::utf8().strict(true));
    let mut n = 0;
    let err = loop {
        match reader.next_event() {
            Ok(Some(_)) => n += 1,
            Ok(None) => panic!("strict reader did not stop"),
            Err(e) => break e,
        }
    };
    assert_eq!(
        err.kind(),
        ErrorKind::Strict(DiagnosticKind::UnparsableLine)
    );
    assert_eq!(err.position().unwrap().line, 5);
    assert!(
        err.to_string()
            .starts_with("line 5: unparsable line string"),
        "{err}"
    );
    assert!(n > 0);
    assert!(reader.next_event().unwrap().is_none());
}

#[test]
fn deep_nesting_does_not_recurse() {
    let depth = 100_000u32;
    let mut input = String::from("0 HEAD\n");
    for l in 1..=depth {
        input += &format!("{l} _N\n");
    }
    input += "0 TRLR\n";
    let mut reader = Reader::from_slice(input.as_bytes());
    let (mut begins, mut ends, mut max) = (0u32, 0u32, 0u32);
    while let Some(e) = reader.next_event().unwrap() {
        match e {
            Event::Begin(b) => {
                begins += 1;
                max = max.max(b.level);
            }
            Event::End(_) => ends += 1,
        }
    }
    assert_eq!((begins, ends, max), (depth + 2, depth + 2, depth));
    assert_eq!(reader.stats().errors(), 0);
}

#[test]
fn the_reader_is_an_iterator_of_owned_able_events() {
    let input = b"0 HEAD\n1 NOTE x\n2 CONT y\n0 TRLR".to_vec();
    let owned: Vec<Event<'static>> = Reader::from_slice(&input)
        .map(|e| e.unwrap().into_owned())
        .collect();
    drop(input);
    assert_eq!(owned.len(), 6);
    match &owned[1] {
        Event::Begin(b) => assert_eq!(b.text().unwrap(), "x\ny"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn utf8_files_of_the_shared_corpus_read_without_error_diagnostics() {
    let Some(dir) = shared_corpus() else { return };
    // Files that are UTF-8 or ASCII; ANSEL and UTF-16 ones need the encodings work.
    for name in [
        "5.5.1 sample 1.ged",
        "Harry_Potter.ged",
        "issue102_99levels.ged",
        "utf8_cr_nobom.ged",
        "utf8_crlf_bom.ged",
        "utf8_lf_nobom.ged",
        "willis.ged",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let mut reader = Reader::from_slice(&bytes);
        let mut n = 0u64;
        while reader.next_event().unwrap().is_some() {
            n += 1;
        }
        assert!(n > 10, "{name}");
        let errors: Vec<_> = reader
            .drain_diagnostics()
            .filter(|d| d.severity() == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn sopranos_has_real_unparsable_lines_and_they_are_kept() {
    let Some(dir) = shared_corpus() else { return };
    let bytes = std::fs::read(dir.join("Sopranos.ged")).unwrap();
    let b = begins(&bytes);
    let errors: Vec<_> = b.iter().filter(|s| s.contains(" ERROR ")).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("This is the next line of the text"));
}

#[test]
fn rule9_problems_late_in_the_input_are_still_reported_on_their_line() {
    // A problem after a long clean stretch: the reader skips the payload
    // checks only before the first byte that could cause one.
    for (bad, kind) in [
        (&b"caf\xe9"[..], DiagnosticKind::InvalidEncoding),
        (&b"a\0b"[..], DiagnosticKind::NulByte),
        (&b"@#UZZ@ x"[..], DiagnosticKind::InvalidUnicodeEscape),
    ] {
        let mut input = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
        for i in 0..2000 {
            input.extend_from_slice(format!("0 @I{i}@ INDI\n1 NAME Ann /Smith/\n").as_bytes());
        }
        input.extend_from_slice(b"0 @N1@ NOTE ");
        input.extend_from_slice(bad);
        input.extend_from_slice(b"\n1 NOTE clean\n0 TRLR\n");
        let mut reader = Reader::from_slice(&input);
        let mut diagnostics = Vec::new();
        while let Some(e) = reader.next_event().unwrap() {
            drop(e);
            diagnostics.extend(reader.drain_diagnostics());
        }
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].kind, kind);
        assert_eq!(diagnostics[0].position.line, 2 + 2 * 2000 + 1);
    }
}
