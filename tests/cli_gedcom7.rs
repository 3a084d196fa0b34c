//! The command line on GEDCOM 7 files: `stats` reports the version and how
//! it was decided (a 5.5.5 HEAD reads as 5.5.1), `--vers` forces one,
//! `events` applies the 7.0 payload rules and `events` and `json` say which
//! they applied; file and standard input agree.

mod cli_support;

use cli_support::run;

fn escapes() -> Option<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus7/gedcom70/escapes.ged"
    );
    if std::path::Path::new(path).is_file() {
        Some(path.to_string())
    } else {
        eprintln!("skipping: ../shared/corpus7 is absent");
        None
    }
}

/// The `version:` line of `stats`' output.
fn version_line(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().find(|l| l.starts_with("version:"));
    line.unwrap_or_else(|| panic!("no version line in {text}"))
        .to_string()
}

#[test]
fn stats_reports_the_version_and_where_it_came_from() {
    let Some(path) = escapes() else { return };
    let bytes = std::fs::read(&path).unwrap();
    // The line of `2 VERS 7.0` in the file.
    let vers = bytes
        .split(|&b| b == b'\n')
        .position(|l| l.trim_ascii() == b"2 VERS 7.0")
        .expect("a VERS line")
        + 1;
    let want = format!("version:     7.0 (from HEAD.GEDC.VERS, line {vers})");
    let file = run(&["stats", &path], None);
    assert!(file.status.success());
    assert_eq!(version_line(&file.stdout), want);
    let stdin = run(&["stats", "-"], Some(&bytes));
    assert_eq!(version_line(&stdin.stdout), want);
    for args in [
        &["stats", "--vers", "5.5.1", &path][..],
        &["--vers=5.5.1", "stats", &path],
    ] {
        let forced = run(args, None);
        assert!(forced.status.success(), "{args:?}");
        assert_eq!(
            version_line(&forced.stdout),
            "version:     5.5.1 (given with --vers)"
        );
    }
    let headless = b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n";
    let out = run(&["stats", "-"], Some(headless));
    assert_eq!(
        version_line(&out.stdout),
        "version:     5.5.1 (the default: no HEAD.GEDC.VERS)"
    );
    let bad = run(&["stats", "--vers", "6", &path], None);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn events_apply_the_version_s_payload_rules() {
    let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE @@me and a@@b\n0 TRLR\n";
    let texts = |args: &[&str]| {
        let out = run(args, Some(input));
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("SNOTE") && l.contains("\"text\""))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let g7 = texts(&["events", "-"]);
    assert_eq!(g7.len(), 1);
    assert!(g7[0].contains(r#""text":"@me and a@@b""#), "{g7:?}");
    let g551 = texts(&["events", "--vers", "5.5.1", "-"]);
    assert!(g551[0].contains(r#""text":"@me and a@b""#), "{g551:?}");
}

/// `events` and `json` say on standard error when they read an input as
/// GEDCOM 7, or as `--vers` said, and where that came from; an input read
/// as 5.5.1 by default gets no note, and `--quiet` hides it.
#[test]
fn events_and_json_say_the_version_they_read_by() {
    let g7 = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n";
    let g551 = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 TRLR\n";
    let stderr = |args: &[&str], input: &[u8]| {
        let out = run(args, Some(input));
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    for command in ["events", "json"] {
        assert_eq!(
            stderr(&[command, "-"], g7),
            "<stdin>: note: read as GEDCOM 7.0 (from HEAD.GEDC.VERS, line 3)\n"
        );
        assert_eq!(stderr(&[command, "-"], g551), "");
        assert_eq!(
            stderr(&[command, "--vers", "5.5.1", "-"], g7),
            "<stdin>: note: read as GEDCOM 5.5.1 (given with --vers)\n"
        );
        assert_eq!(stderr(&[command, "-q", "-"], g7), "");
    }
    if let Some(path) = escapes() {
        let said = stderr(&["events", &path], b"");
        assert_eq!(
            said,
            format!("{path}: note: read as GEDCOM 7.0 (from HEAD.GEDC.VERS, line 3)\n")
        );
    }
}

/// `--vers 7.0` on an input with no `CHAR` line and no byte-order mark reads
/// it as UTF-8 (GEDCOM 7's only encoding), and `stats` says so, for a file as
/// for standard input.
#[test]
fn forcing_7_makes_an_undeclared_encoding_utf8() {
    let input = "0 HEAD\n0 @I1@ INDI\n1 NAME Zoë\n0 TRLR\n";
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("cli_gedcom7_no_char.ged");
    std::fs::write(&path, input).unwrap();
    let path = path.to_str().unwrap();
    let encoding = |out: &std::process::Output| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().find(|l| l.starts_with("encoding:"));
        line.unwrap_or_else(|| panic!("no encoding line in {text}"))
            .to_string()
    };
    let file = run(&["stats", "--vers", "7.0", path], None);
    let stdin = run(&["stats", "--vers", "7.0", "-"], Some(input.as_bytes()));
    for out in [&file, &stdin] {
        assert!(out.status.success());
        assert!(
            encoding(out).starts_with("encoding:    utf-8 "),
            "{}",
            encoding(out)
        );
        assert_eq!(
            version_line(&out.stdout),
            "version:     7.0 (given with --vers)"
        );
    }
    let default = run(&["stats", path], None);
    assert!(
        encoding(&default).starts_with("encoding:    ansel "),
        "{}",
        encoding(&default)
    );
    let events = run(&["events", "--vers", "7", path], None);
    assert!(String::from_utf8_lossy(&events.stdout).contains(r#""text":"Zoë""#));
}

/// A HEAD with `GEDC.VERS 5.5.5` (GEDCOM 5.5.5, a 5.5.1 revision) is read
/// as 5.5.1: `stats` says so, from the `VERS` line, for a file as for
/// standard input, and `events` unescapes every `@@` as 5.5.1 does, with
/// no note (what a 7.0 `VERS` changes, shown alongside).
#[test]
fn a_head_with_vers_5_5_5_is_read_as_5_5_1() {
    let input = |vers: &str| {
        format!(
            "0 HEAD\n1 GEDC\n2 VERS {vers}\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
             0 @N1@ NOTE a@@b\n0 TRLR\n"
        )
    };
    let v555 = input("5.5.5");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("cli_gedcom7_vers_5_5_5.ged");
    std::fs::write(&path, &v555).unwrap();
    let path = path.to_str().unwrap();
    let file = run(&["stats", path], None);
    let stdin = run(&["stats", "-"], Some(v555.as_bytes()));
    for out in [&file, &stdin] {
        assert!(out.status.success());
        assert_eq!(
            version_line(&out.stdout),
            "version:     5.5.1 (from HEAD.GEDC.VERS, line 3)"
        );
    }
    let events = |input: &str| {
        let out = run(&["events", "-"], Some(input.as_bytes()));
        assert!(out.status.success());
        let note = String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.contains(r#""xref":"@N1@""#))
            .expect("the NOTE")
            .to_string();
        (note, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    assert_eq!(
        events(&v555),
        (
            r#"{"begin":"NOTE","level":0,"xref":"@N1@","text":"a@b"}"#.to_string(),
            String::new()
        )
    );
    let (note, said) = events(&input("7.0"));
    assert_eq!(
        note,
        r#"{"begin":"NOTE","level":0,"xref":"@N1@","text":"a@@b"}"#
    );
    assert!(said.contains("read as GEDCOM 7.0"), "{said}");
}
