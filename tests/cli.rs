//! The command-line tool: exit statuses, stdin vs file, --jobs, and the
//! memory-mapped input path (the CLI's one `unsafe` block).

mod cli_support;

use cli_support::run;

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gedcom-elf-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn big_input() -> Vec<u8> {
    let mut s = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..40_000 {
        s += &format!("0 @I{i}@ INDI\n1 NAME Person /N{i}/\n1 NOTE a\n2 CONC b\n2 CONT c@@d\n");
        if i == 20_000 {
            s += "bad line\n";
        }
    }
    s += "0 TRLR\n";
    s.into_bytes()
}

#[test]
fn events_are_the_same_from_a_file_from_stdin_and_on_any_number_of_jobs() {
    let bytes = big_input();
    let path = temp_file("big.ged", &bytes);
    let path = path.to_str().unwrap();
    let one = run(&["events", "--jobs", "1", path], None);
    assert_eq!(one.status.code(), Some(0));
    for args in [
        &["events", "--jobs", "2", path][..],
        &["events", "--jobs", "3", path],
        &["events", "-"],
    ] {
        let other = run(args, Some(&bytes));
        assert_eq!(other.status.code(), Some(0), "{args:?}");
        assert!(other.stdout == one.stdout, "{args:?}: output differs");
        let err = String::from_utf8_lossy(&other.stderr);
        let bad = bytes
            .split(|&b| b == b'\n')
            .position(|l| l == b"bad line")
            .unwrap()
            + 1;
        assert!(
            err.contains(&format!(":{bad}: error: unparsable line string")),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn exit_statuses() {
    let ok = temp_file("ok.ged", b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
    let bad = temp_file("bad.ged", b"0 HEAD\nnot a line\n0 TRLR\n");
    let not = temp_file("not.ged", b"hello\n");
    let charset = temp_file("charset.ged", b"0 HEAD\n1 CHAR EBCDIC\n0 TRLR\n");
    let p = |p: &std::path::PathBuf| p.to_str().unwrap().to_string();
    assert_eq!(run(&["events", &p(&ok)], None).status.code(), Some(0));
    assert_eq!(run(&["events", &p(&bad)], None).status.code(), Some(0));
    let strict = run(&["events", "--strict", &p(&bad)], None);
    assert_eq!(strict.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&strict.stderr).contains(":2: error: unparsable line string"));
    // Events before the error are written.
    assert_eq!(
        String::from_utf8_lossy(&strict.stdout),
        "{\"begin\":\"HEAD\",\"level\":0}\n"
    );
    let not_gedcom = run(&["events", &p(&not)], None);
    assert_eq!(not_gedcom.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&not_gedcom.stderr).contains("not a gedcom file"));
    assert!(not_gedcom.stdout.is_empty());
    let unsupported = run(&["stats", &p(&charset)], None);
    assert_eq!(unsupported.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unsupported.stderr).contains("EBCDIC"));
    assert_eq!(
        run(&["events", "/nonexistent/x.ged"], None).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["events", "--encoding", "klingon", &p(&ok)], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["frobnicate", &p(&ok)], None).status.code(), Some(2));
    assert_eq!(
        run(&["events", "--jobs", "0", &p(&ok)], None).status.code(),
        Some(2)
    );
}

#[test]
fn memory_mapped_and_empty_files() {
    // A non-empty file goes through the memory map; an empty one cannot be
    // mapped everywhere and falls back to a plain read.
    let bytes = big_input();
    let mapped = temp_file("mapped.ged", &bytes);
    let out = run(&["count", mapped.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "40002 records, 120004 structures, 200004 lines, 1 diagnostics\n"
    );
    let empty = temp_file("empty.ged", b"");
    let out = run(&["count", empty.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the input is empty"));
}

#[test]
fn no_arguments_runs_stats_on_the_bundled_sample() {
    let out = run(&[], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("corpus/sample.ged (bundled)"), "{text}");
    assert!(text.contains("encoding:    utf-8"), "{text}");
    assert!(text.contains("diagnostics: 0"), "{text}");
}

#[test]
fn stats_counts_records_and_reports_how_the_encoding_was_decided() {
    let path = temp_file("stats.ged", &big_input());
    let out = run(&["stats", "--jobs", "2", path.to_str().unwrap()], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  INDI       40000"), "{text}");
    assert!(
        text.contains("from the CHAR line \"UTF-8\" (line 2)"),
        "{text}"
    );
    assert!(
        text.contains("unparsable-line          1 (error)"),
        "{text}"
    );
}
