//! The command line and encodings: `gedcom-elf events|stats --encoding NAME FILE`, and
//! what `stats` says about the encoding and how it was decided.

mod encoding_support;

use std::path::PathBuf;
use std::process::{Command, Output};

use encoding_support::{fixture_path, utf16};

const BIN: &str = env!("CARGO_BIN_EXE_gedcom-elf");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file in the target directory's temporary folder, unique to this test.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("encoding_cli");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("temp file");
    path
}

/// The `"text"` values of the JSON lines whose `begin` is `tag`.
fn texts(events: &str, tag: &str) -> Vec<String> {
    let prefix = format!("{{\"begin\":\"{tag}\",");
    events
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .filter_map(|l| {
            let at = l.find("\"text\":\"")? + 8;
            Some(l[at..l.len() - 2].to_string())
        })
        .collect()
}

#[test]
fn events_reads_a_code_page_fixture_by_its_char_line() {
    let path = fixture_path("enc-windows-1250.ged");
    let o = run(&["events", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        texts(&stdout(&o), "NAME"),
        [
            "Antonín /Dvořák/",
            "Pál /Erdős/",
            "Łukasz /Żółć/",
            "Štefan /Ďurčo/"
        ]
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn encoding_option_overrides_the_char_line() {
    // The 1250 fixture read as windows-1252: ř (F8) becomes ø, ő (F5) becomes õ.
    let path = fixture_path("enc-windows-1250.ged");
    for name in ["windows-1252", "WINDOWS-1252", "ansi", "Latin1", "cp1252"] {
        let o = run(&["events", "--encoding", name, path.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let names = texts(&stdout(&o), "NAME");
        assert_eq!(names[0], "Antonín /Dvoøák/", "{name}");
        assert_eq!(names[1], "Pál /Erdõs/", "{name}");
    }
    // And the other way: the 1252 fixture forced to 1250.
    let path = fixture_path("enc-windows-1252.ged");
    let o = run(&[
        "events",
        "--encoding",
        "windows-1250",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(texts(&stdout(&o), "NAME")[1], "Jürgen /Groß/");
    assert_eq!(texts(&stdout(&o), "NAME")[2], "Sřren /Kierkegĺrd/");
    // The option may come after the file too.
    let o = run(&["events", path.to_str().unwrap(), "--encoding", "ibmpc"]);
    assert!(o.status.success());
    assert_eq!(texts(&stdout(&o), "NAME")[0], "Jos\u{0398} /Mu\u{00B1}oz/");
}

#[test]
fn encoding_option_reads_a_file_with_an_unsupported_char() {
    let path = temp_file(
        "ebcdic.ged",
        b"0 HEAD\n1 CHAR EBCDIC\n0 @I1@ INDI\n1 NAME Jos\xE9\n0 TRLR\n",
    );
    let file = path.to_str().unwrap();
    // Without --encoding: an error naming the value and its line, exit status 2.
    let o = run(&["events", file]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(":2: error:"), "{err}");
    assert!(err.contains("\"EBCDIC\""), "{err}");
    let o = run(&["stats", file]);
    assert_eq!(o.status.code(), Some(2));
    // With it: read, with a warning.
    let o = run(&["events", "--encoding", "windows-1252", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(texts(&stdout(&o), "NAME"), ["José"]);
    assert!(stderr(&o).contains("EBCDIC"), "{}", stderr(&o));
}

#[test]
fn encoding_option_rejects_unknown_names() {
    let path = fixture_path("enc-ibm437.ged");
    for name in ["ebcdic", "utf-16", "unicode", ""] {
        let o = run(&["events", "--encoding", name, path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(stderr(&o).contains("unknown encoding"), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let o = run(&["events", path.to_str().unwrap(), "--encoding"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn encoding_option_reads_utf16_without_a_byte_order_mark() {
    // "0 HEAD" in UTF-16BE without a mark is sniffed; forcing the wrong byte order reads
    // garbage (and no HEAD), the right one reads it.
    let bytes = utf16("0 HEAD\n0 @N1@ NOTE Ωmega\n0 TRLR\n", true, false);
    let path = temp_file("utf16be-nobom.ged", &bytes);
    let file = path.to_str().unwrap();
    let o = run(&["events", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(texts(&stdout(&o), "NOTE"), ["Ωmega"]);
    let o = run(&["events", "--encoding", "UTF-16BE", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(texts(&stdout(&o), "NOTE"), ["Ωmega"]);
    let o = run(&["events", "--encoding", "utf-16le", file]);
    assert_eq!(o.status.code(), Some(2), "not gedcom when read backwards");
}

/// `stats` line `encoding:    NAME (HOW)` and the detected/specified lines after it.
fn encoding_lines(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .skip_while(|l| !l.starts_with("encoding:"))
        .take_while(|l| l.starts_with("encoding:") || l.starts_with("  "))
        .filter(|l| !l.starts_with("  ") || l.contains("detected:") || l.contains("specified:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn stats_reports_the_encoding_and_how_it_was_decided() {
    let utf16_bytes = utf16("0 HEAD\n1 CHAR ANSEL\n0 TRLR\n", false, true);
    let sniffed = utf16("0 HEAD\n0 TRLR\n", true, false);
    let cases: Vec<(Vec<u8>, &[&str], Vec<&str>)> = vec![
        (
            std::fs::read(fixture_path("enc-windows-1250.ged")).unwrap(),
            &[],
            vec![
                "encoding:    windows-1250 (from the CHAR line \"ANSI\" (line 6))",
                "  specified: CHAR ANSI",
            ],
        ),
        (
            std::fs::read(fixture_path("enc-macroman.ged")).unwrap(),
            &["--encoding", "MAC"],
            vec![
                "encoding:    macintosh (given with --encoding)",
                "  specified: CHAR MACINTOSH",
            ],
        ),
        (
            b"\xEF\xBB\xBF0 HEAD\n0 TRLR\n".to_vec(),
            &[],
            vec![
                "encoding:    utf-8 (from the byte-order mark)",
                "  detected:  utf-8",
            ],
        ),
        (
            utf16_bytes,
            &[],
            vec![
                "encoding:    utf-16le (from the byte-order mark)",
                "  detected:  utf-16le",
                "  specified: CHAR ANSEL",
            ],
        ),
        (
            sniffed,
            &[],
            vec![
                "encoding:    utf-16be (sniffed from the first octets)",
                "  detected:  utf-16be",
            ],
        ),
        (
            b"0 HEAD\n0 TRLR\n".to_vec(),
            &[],
            vec!["encoding:    ansel (the GEDCOM default (no CHAR line, no byte-order mark))"],
        ),
    ];
    for (i, (bytes, opts, want)) in cases.into_iter().enumerate() {
        let path = temp_file(&format!("stats-{i}.ged"), &bytes);
        let mut args = vec!["stats"];
        args.extend_from_slice(opts);
        args.push(path.to_str().unwrap());
        let o = run(&args);
        assert!(o.status.success(), "case {i}: {}", stderr(&o));
        assert_eq!(encoding_lines(&o), want, "case {i}:\n{}", stdout(&o));
    }
}

#[test]
fn stats_warns_when_utf16_says_char_ansel() {
    let bytes = utf16("0 HEAD\n1 SOUR X\n1 CHAR ANSEL\n0 TRLR\n", true, true);
    let path = temp_file("utf16-ansel.ged", &bytes);
    let o = run(&["stats", path.to_str().unwrap()]);
    assert!(o.status.success());
    let err = stderr(&o);
    assert!(err.contains(":3: warning:"), "{err}");
    assert!(err.contains("\"ANSEL\""), "{err}");
    assert!(stdout(&o).contains("encoding                 1 (warning)"));
}
