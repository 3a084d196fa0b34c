//! `gedcom-elf from-gedcomx` through the built binary: GEDCOM X from our
//! own `gedcomx` command back to GEDCOM, the syntax from the extension or
//! the first byte, what could not be imported on stderr, the output
//! written whole or not at all, and bad input refused with status 2 and a
//! message naming where.

#![cfg(feature = "gedcomx")]

mod cli_support;

use cli_support::run;
use std::path::PathBuf;

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    cli_support::temp_file("cli_from_gedcomx", name, bytes)
}

use cli_support::arg as s;

const FAMILY: &str = "0 HEAD\n1 CHAR UTF-8\n1 SUBM @U1@\n\
0 @U1@ SUBM\n1 NAME Ann Submitter\n\
0 @I1@ INDI\n1 NAME John /Smith/\n1 SEX M\n1 BIRT\n2 DATE 2 MAR 1850\n2 PLAC York\n\
0 @I2@ INDI\n1 NAME Mary /Jones/\n1 SEX F\n\
0 @I3@ INDI\n1 NAME Tom /Smith/\n1 FAMC @F1@\n2 PEDI birth\n1 SOUR @S1@\n2 PAGE p. 4\n\
0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n2 DATE 1875\n\
0 @S1@ SOUR\n1 AUTH Clerk, Parish\n1 TITL Register of York\n1 REPO @R1@\n\
0 @R1@ REPO\n1 NAME York Archives\n0 TRLR\n";

/// `gedcomx` of FAMILY in `format`.
fn exported(format: &str) -> Vec<u8> {
    let o = run(
        &["gedcomx", "--format", format, "-"],
        Some(FAMILY.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0));
    o.stdout
}

/// The records of a GEDCOM text, each with its lines, HEAD left out.
fn records(ged: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in ged.lines() {
        if line.starts_with("0 ") {
            out.push(String::new());
        }
        if let Some(r) = out.last_mut() {
            r.push_str(line);
            r.push('\n');
        }
    }
    out.retain(|r| !r.starts_with("0 HEAD"));
    out
}

#[test]
fn our_own_gedcomx_comes_back_as_the_same_records() {
    for format in ["json", "xml"] {
        let o = run(&["from-gedcomx", "-"], Some(&exported(format)));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.is_empty(), "{format}: {err}");
        let ged = String::from_utf8(o.stdout).unwrap();
        assert!(
            ged.starts_with("0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n"),
            "{ged}"
        );
        assert!(ged.contains("1 SUBM @U1@\n"), "{ged}");
        let recs = records(&ged);
        for want in [
            "0 @I1@ INDI\n1 NAME John /Smith/\n1 SEX M\n1 BIRT\n2 DATE 2 MAR 1850\n2 PLAC York\n1 FAMS @F1@\n",
            "0 @I3@ INDI\n1 NAME Tom /Smith/\n1 FAMC @F1@\n2 PEDI birth\n1 SOUR @S1@\n2 PAGE p. 4\n",
            "0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n2 DATE 1875\n",
            "0 @S1@ SOUR\n1 AUTH Clerk, Parish\n1 TITL Register of York\n1 REPO @R1@\n",
            "0 @R1@ REPO\n1 NAME York Archives\n",
            "0 @U1@ SUBM\n1 NAME Ann Submitter\n",
        ] {
            assert!(recs.iter().any(|r| r == want), "{format}: no {want:?} in {recs:#?}");
        }
        assert_eq!(recs.last().map(String::as_str), Some("0 TRLR\n"));
    }
}

#[test]
fn a_gedx_file_of_our_own_comes_back_too() {
    let gedx = temp("family.gedx", &exported("gedx"));
    let from_gedx = run(&["from-gedcomx", s(&gedx)], None);
    assert_eq!(
        from_gedx.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&from_gedx.stderr)
    );
    let from_json = run(&["from-gedcomx", "-"], Some(&exported("json")));
    assert_eq!(from_gedx.stdout, from_json.stdout);
    // From standard input, the zip is known by its first bytes.
    let piped = run(&["from-gedcomx", "-"], Some(&std::fs::read(&gedx).unwrap()));
    assert_eq!(piped.stdout, from_json.stdout);
}

#[test]
fn the_syntax_comes_from_the_extension_or_the_first_byte() {
    let json = exported("json");
    let xml = exported("xml");
    let out = |args: &[&str]| {
        let o = run(args, None);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o.stdout
    };
    let by_json = out(&["from-gedcomx", s(&temp("tree.json", &json))]);
    let by_xml = out(&["from-gedcomx", s(&temp("tree.XML", &xml))]);
    let sniffed = out(&["from-gedcomx", s(&temp("tree.txt", &xml))]);
    assert_eq!(by_json, by_xml);
    assert_eq!(by_xml, sniffed);
    // An extension that says otherwise than the content: an error that says
    // where the JSON reader stopped.
    let o = run(&["from-gedcomx", s(&temp("wrong.json", &xml))], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("wrong.json: error: malformed JSON at line 1 column 1"),
        "{err}"
    );
}

#[test]
fn what_cannot_be_imported_is_listed_and_quiet_hides_it() {
    let doc = br##"{"persons":[{"id":"I1","names":[{"id":"n1","nameForms":[{"fullText":"Ada"}]}],
      "sources":[{"description":"#S404"}]}]}"##;
    let o = run(&["from-gedcomx", "-"], Some(doc));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "<stdin>: warning: not imported: persons[0].names[0].id: `id`: no GEDCOM equivalent"
        ),
        "{err}"
    );
    assert!(
        err.contains("<stdin>: warning: dangling reference: persons[0].sources[0]: `#S404` refers to nothing in the document: left out"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>: note: 1 property of the GEDCOM X input not imported"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>: note: 1 reference to nothing in the document left out"),
        "{err}"
    );
    // XML issues are at their lines.
    let xml = b"<gedcomx xmlns=\"http://gedcomx.org/v1/\">\n<person id=\"I1\">\n<evidence/>\n</person></gedcomx>";
    let x = run(&["from-gedcomx", "-"], Some(xml));
    let err = String::from_utf8_lossy(&x.stderr);
    assert!(
        err.contains("<stdin>:3: warning: not imported: gedcomx/person[1]/evidence: <evidence>"),
        "{err}"
    );
    let q = run(&["from-gedcomx", "--quiet", "-"], Some(doc));
    assert!(
        q.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&q.stderr)
    );
    assert_eq!(q.stdout, o.stdout);
}

#[test]
fn out_is_written_whole_or_not_at_all_and_bad_input_says_where() {
    let out = temp("keep.ged", b"precious");
    let truncated = temp(
        "truncated.json",
        br#"{"persons":[{"id":"I1","facts":[{"type":"x""#,
    );
    let untyped = temp(
        "untyped.xml",
        b"<gedcomx xmlns=\"http://gedcomx.org/v1/\">\n<person>\n<fact/>\n</person></gedcomx>",
    );
    let shape = temp(
        "shape.json",
        br#"{"persons":[{"facts":[{"type":"x","date":"1900"}]}]}"#,
    );
    let not_gedcomx = temp("n.txt", b"0 HEAD\n0 TRLR\n");
    let gedx = temp("tree.gedx", b"PK\x03\x04");
    for (file, says) in [
        (s(&truncated), "truncated JSON"),
        (s(&untyped), "untyped.xml: error: line 3 (gedcomx/person[1]/fact[1]/type): the required property `type` is missing"),
        (s(&shape), "persons[0].facts[0].date: expected an object"),
        (s(&not_gedcomx), "not a GEDCOM X document"),
        (s(&gedx), "truncated zip archive"),
        ("/nonexistent/x.json", "cannot read"),
    ] {
        let o = run(&["from-gedcomx", file, "-o", s(&out)], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(says), "{file}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(std::fs::read(&out).unwrap(), b"precious", "{file}");
    }
    // A good one replaces OUT.
    let good = temp("good.json", &exported("json"));
    let o = run(&["from-gedcomx", s(&good), "-o", s(&out)], None);
    assert_eq!(o.status.code(), Some(0));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("0 HEAD\n") && written.ends_with("0 TRLR\n"));
    // No temporary file left beside OUT.
    let dir = out.parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
