//! GEDZIP (`.gdz`) through the built binary: every command that reads a
//! file reads an archive's `gedcom.ged` as it reads that file; a `.gdz` and
//! the `.ged` of the same document in `../shared/corpus7` give the same
//! events but for the changes the archive's `gedcom.ged` makes;
//! `stats --list-media` lists the archive's media; bad archives are refused
//! with a message and exit status 2, never a panic. The official archives
//! are read where they are (never copied into the repository); archives
//! made here from `corpus/` files cover the same ground without them.

#![cfg(feature = "gedzip")]

mod cli_support;

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use cli_support::run;

/// A scratch directory for this test file, under Cargo's target directory.
fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_gedzip");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A zip archive of `entries` (name, bytes), deflated.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, deflated).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// The names and sizes of an archive's files (no directories), in order.
fn zip_listing(archive: &[u8]) -> Vec<(String, u64)> {
    let mut zip = zip::ZipArchive::new(Cursor::new(archive)).unwrap();
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let f = zip.by_index(i).unwrap();
        if !f.is_dir() {
            out.push((f.name().unwrap().to_string(), f.size()));
        }
    }
    out
}

/// An archive's `gedcom.ged`, by the zip crate.
fn gedcom_of(archive: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipArchive::new(Cursor::new(archive)).unwrap();
    let mut bytes = Vec::new();
    zip.by_name("gedcom.ged")
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// The commands that read a file, each as its arguments before the file.
const COMMANDS: &[&[&str]] = &[
    &["events"],
    &["events", "--types"],
    &["json"],
    &["count"],
    &["stats"],
    &["stats", "--tree"],
    &["check"],
    &["fmt"],
    &["convert", "--to-encoding", "utf-16le"],
    &["get", "@I1@"],
    &["edit", "--drop", "NOTE"],
];

/// `args` then `file` run; stdout and stderr with `file` replaced by
/// `FILE` and the lines that time the run dropped, and the exit status.
fn output(args: &[&str], file: &Path) -> (String, String, Option<i32>) {
    let mut all = args.to_vec();
    let get = args[0] == "get";
    if get {
        all.pop();
    }
    all.push(s(file));
    if get {
        all.push(args[1]);
    }
    let o = run(&all, None);
    let err = clean(&o.stderr, s(file));
    assert!(!err.contains("panicked"), "{all:?}: {err}");
    (clean(&o.stdout, s(file)), err, o.status.code())
}

/// Output with `name` replaced by `FILE` and the lines that time the run
/// dropped.
fn clean(bytes: &[u8], name: &str) -> String {
    String::from_utf8_lossy(bytes)
        .replace(name, "FILE")
        .lines()
        .filter(|l| !l.starts_with("time:") && !l.contains("build time:"))
        .filter(|l| !l.contains("note: ") || !l.contains(" s, "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every command gives for the archive what it gives for its `gedcom.ged`
/// written out as a file of its own.
fn reads_as_its_gedcom(archive: &Path, name: &str) {
    let bytes = std::fs::read(archive).unwrap();
    let ged = scratch().join(format!("{name}.ged"));
    std::fs::write(&ged, gedcom_of(&bytes)).unwrap();
    for args in COMMANDS {
        let (gdz_out, gdz_err, gdz_status) = output(args, archive);
        let (ged_out, ged_err, ged_status) = output(args, &ged);
        assert_eq!(gdz_status, ged_status, "{args:?} {archive:?}: {gdz_err}");
        assert_eq!(gdz_out, ged_out, "{args:?} {archive:?}");
        assert_eq!(gdz_err, ged_err, "{args:?} {archive:?}");
    }
}

/// The `.gdz` files of `../shared/corpus7` (in every directory).
fn corpus7_archives() -> Vec<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus7"));
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "gdz") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Without the shared corpus there is nothing to compare: said, not failed.
fn corpus7_or_skip() -> Option<Vec<PathBuf>> {
    let archives = corpus7_archives();
    if archives.is_empty() {
        eprintln!("skipped: no .gdz in ../shared/corpus7");
        return None;
    }
    Some(archives)
}

#[test]
fn every_official_archive_reads_as_its_gedcom_ged() {
    let Some(archives) = corpus7_or_skip() else {
        return;
    };
    for (i, archive) in archives.iter().enumerate() {
        reads_as_its_gedcom(archive, &format!("official-{i}"));
    }
}

/// A change an official archive's `gedcom.ged` makes to the `.ged` file of
/// the same document, as an edit of the `.ged`'s events: in the record with
/// the xref id `record`, the one event line `from` becomes `to` (`None`:
/// left out); with no `from`, the whole record is left out.
struct Change {
    record: &'static str,
    from: Option<&'static str>,
    to: Option<&'static str>,
}

/// `maximal70`'s `O1` names its second file by a `file:` URL in the `.ged`
/// and by the archive's entry in the archives.
const LOCAL_FILE1: Change = Change {
    record: "@O1@",
    from: Some(r#"{"begin":"FILE","level":1,"text":"file:///path/to/file1"}"#),
    to: Some(r#"{"begin":"FILE","level":1,"text":"path/to/file1"}"#),
};

/// Each official archive, the `.ged` of the same document (paths under
/// `../shared/corpus7`), and what the archive's `gedcom.ged` changes, found
/// by comparing the two texts (both also differ in line endings, CR LF in
/// the archives, which events do not show).
const PAIRS: &[(&str, &str, &[Change])] = &[
    (
        "gedcom70/maximal70.gdz",
        "gedcom70/maximal70.ged",
        &[
            LOCAL_FILE1,
            // No record `O3` (its only file is an http URL), and the source
            // `S1` points to `O1` and `O2` rather than `O2` and `O3`.
            Change {
                record: "@O3@",
                from: None,
                to: None,
            },
            Change {
                record: "@S1@",
                from: Some(r#"{"begin":"OBJE","level":1,"pointer":"@O2@"}"#),
                to: Some(r#"{"begin":"OBJE","level":1,"pointer":"@O1@"}"#),
            },
            Change {
                record: "@S1@",
                from: Some(r#"{"begin":"OBJE","level":1,"pointer":"@O3@"}"#),
                to: Some(r#"{"begin":"OBJE","level":1,"pointer":"@O2@"}"#),
            },
        ],
    ),
    // In a directory of its own: `maximal70.ged` one level up.
    (
        "gedcom70/maximal70/maximal70.gdz",
        "gedcom70/maximal70.ged",
        &[LOCAL_FILE1],
    ),
    ("gedcom70/minimal70.gdz", "gedcom70/minimal70.ged", &[]),
    ("gedcom71/minimal71.gdz", "gedcom71/minimal71.ged", &[]),
];

/// `events` (JSON Lines) with `changes` made, each where it says and once.
fn changed(events: &str, changes: &[Change]) -> String {
    let mut lines: Vec<Option<&str>> = events.lines().map(Some).collect();
    let record = |lines: &[Option<&str>], xref: &str| {
        let begin = format!(r#""level":0,"xref":"{xref}"}}"#);
        let start = lines
            .iter()
            .position(|l| l.is_some_and(|l| l.starts_with(r#"{"begin""#) && l.ends_with(&begin)))
            .unwrap_or_else(|| panic!("no record {xref}"));
        let len = lines[start..]
            .iter()
            .position(|l| {
                l.is_some_and(|l| l.starts_with(r#"{"end""#) && l.ends_with(r#""level":0}"#))
            })
            .unwrap();
        start..start + len + 1
    };
    // Each change is found in the events as they were.
    let mut edits = Vec::new();
    for c in changes {
        let range = record(&lines, c.record);
        match c.from {
            None => edits.extend(range.map(|i| (i, None))),
            Some(from) => {
                let at: Vec<usize> = range.filter(|&i| lines[i] == Some(from)).collect();
                assert_eq!(at.len(), 1, "{} {from}", c.record);
                edits.push((at[0], c.to));
            }
        }
    }
    for (i, to) in edits {
        lines[i] = to;
    }
    lines
        .into_iter()
        .flatten()
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Every official `.gdz` gives the events of the `.ged` of the same
/// document: the same, but for the changes its `gedcom.ged` makes (listed
/// in `PAIRS`, each found where it says). No archive is passed over.
#[test]
fn archives_and_their_ged_siblings_give_the_same_events() {
    let Some(archives) = corpus7_or_skip() else {
        return;
    };
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus7"));
    let mut listed: Vec<PathBuf> = PAIRS.iter().map(|(gdz, _, _)| root.join(gdz)).collect();
    listed.sort();
    assert_eq!(archives, listed, "an archive not in PAIRS, or one gone");
    for (gdz, ged, changes) in PAIRS {
        let (archive, sibling) = (root.join(gdz), root.join(ged));
        let events = |f: &Path| {
            let o = run(&["events", s(f)], None);
            assert_eq!(o.status.code(), Some(0), "{f:?}");
            String::from_utf8(o.stdout).unwrap()
        };
        let (a, b) = (events(&archive), events(&sibling));
        assert!(a.lines().count() > 4, "{gdz}");
        assert_eq!(a, changed(&b, changes), "{gdz} and {ged}");
        // The changes are differences: without them the two differ.
        assert_eq!(a == b, changes.is_empty(), "{gdz}");
    }
}

#[test]
fn list_media_lists_the_archive_but_gedcom_ged() {
    let Some(archives) = corpus7_or_skip() else {
        return;
    };
    let mut with_media = 0;
    for archive in &archives {
        let o = run(&["stats", "--list-media", s(archive)], None);
        assert_eq!(o.status.code(), Some(0), "{archive:?}");
        let listed: Vec<(String, u64)> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let (size, name) = l.split_once('\t').unwrap();
                (name.to_string(), size.parse().unwrap())
            })
            .collect();
        let mut expected = zip_listing(&std::fs::read(archive).unwrap());
        expected.retain(|(n, _)| n != "gedcom.ged");
        assert_eq!(listed, expected, "{archive:?}");
        with_media += usize::from(!listed.is_empty());
    }
    assert!(with_media >= 1, "maximal70.gdz has media");
}

/// A GEDCOM file of `corpus/` packed with two media files, as `NAME.gdz`
/// (a name per test: tests run at once, and a file rewritten while
/// another process maps it would fault).
fn made_archive(name: &str) -> (PathBuf, Vec<u8>) {
    let ged = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged")).unwrap();
    let bytes = zip_of(&[
        ("media/a.jpg", b"\xff\xd8\xff\xe0"),
        ("gedcom.ged", &ged),
        ("notes/n.txt", b"a note"),
    ]);
    let path = scratch().join(format!("{name}.gdz"));
    std::fs::write(&path, &bytes).unwrap();
    (path, ged)
}

#[test]
fn a_made_archive_reads_as_its_gedcom_ged_and_lists_its_media() {
    let (archive, ged) = made_archive("made");
    reads_as_its_gedcom(&archive, "made");
    let o = run(&["events", s(&archive)], None);
    let plain = scratch().join("sample-plain.ged");
    std::fs::write(&plain, &ged).unwrap();
    assert_eq!(o.stdout, run(&["events", s(&plain)], None).stdout);
    let o = run(&["stats", "--list-media", s(&archive)], None);
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "4\tmedia/a.jpg\n6\tnotes/n.txt\n"
    );
    // A plain GEDCOM file has no media to list: said, exit status 2.
    let o = run(&["stats", "--list-media", s(&plain)], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("GEDZIP"));
}

#[test]
fn a_zip_is_read_as_gedzip_whatever_its_name() {
    let (archive, ged) = made_archive("to-rename");
    let renamed = scratch().join("archive-named.ged");
    std::fs::copy(&archive, &renamed).unwrap();
    let plain = scratch().join("sample-plain2.ged");
    std::fs::write(&plain, &ged).unwrap();
    let a = run(&["json", s(&renamed)], None);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, run(&["json", s(&plain)], None).stdout);
}

#[test]
fn bad_archives_are_refused_with_a_message() {
    let dir = scratch();
    let (archive, _) = made_archive("to-cut");
    let whole = std::fs::read(&archive).unwrap();
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "not-zip.gdz",
            b"0 HEAD\n0 TRLR\n".to_vec(),
            "not a zip archive",
        ),
        (
            "truncated.gdz",
            whole[..whole.len() / 2].to_vec(),
            "truncated",
        ),
        (
            "no-gedcom.gdz",
            zip_of(&[("family.ged", b"0 HEAD\n0 TRLR\n")]),
            "no gedcom.ged entry",
        ),
        ("empty.gdz", Vec::new(), "not a zip archive"),
    ];
    for (name, bytes, message) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        for args in [&["events"][..], &["check"], &["stats", "--list-media"]] {
            let mut all = args.to_vec();
            all.push(s(&path));
            let o = run(&all, None);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{all:?}: {err}");
            assert!(err.contains(message), "{all:?}: {err}");
            assert!(!err.contains("panicked"), "{all:?}: {err}");
        }
    }
}

/// `fmt`, `convert` and `edit` write GEDCOM: never over the archive they
/// read (its media would be lost), nor into a file named `.gdz`.
#[test]
fn gedcom_is_not_written_over_an_archive() {
    let (archive, _) = made_archive("kept");
    let renamed = scratch().join("kept-zip.ged");
    std::fs::copy(&archive, &renamed).unwrap();
    let before = std::fs::read(&archive).unwrap();
    let elsewhere = scratch().join("elsewhere.gdz");
    let _ = std::fs::remove_file(&elsewhere);
    for args in [
        &["fmt"][..],
        &["convert", "--to-encoding", "utf-8"],
        &["edit"],
    ] {
        for (input, out) in [
            (&archive, &archive),
            (&renamed, &renamed),
            (&archive, &elsewhere),
        ] {
            let mut all = args.to_vec();
            all.extend([s(input), "-o", s(out)]);
            let o = run(&all, None);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{all:?}: {err}");
            assert!(err.contains("not a GEDZIP archive"), "{all:?}: {err}");
        }
        // Written elsewhere, under another name, it is the archive's GEDCOM.
        let ged = scratch().join("written.ged");
        let mut all = args.to_vec();
        all.extend([s(&archive), "-o", s(&ged)]);
        assert_eq!(run(&all, None).status.code(), Some(0), "{all:?}");
        assert!(std::fs::read(&ged).unwrap().starts_with(b"0 HEAD"));
    }
    assert_eq!(std::fs::read(&archive).unwrap(), before);
    assert_eq!(std::fs::read(&renamed).unwrap(), before);
    assert!(!elsewhere.exists());
}

/// An archive on standard input is read whole and unpacked: every command
/// gives what it gives for the archive as a file (standard output; the
/// diagnostics but for the name).
#[test]
fn an_archive_on_standard_input_reads_as_the_file() {
    let (archive, _) = made_archive("piped");
    let bytes = std::fs::read(&archive).unwrap();
    // Not `stats`: its byte count leaves out a byte-order mark on a stream
    // and not in a file, for any GEDCOM file.
    for args in COMMANDS.iter().filter(|a| a[0] != "stats") {
        let (file_out, file_err, file_status) = output(args, &archive);
        let (pipe_out, pipe_err, pipe_status) = {
            let mut all = args.to_vec();
            all.insert(if args[0] == "get" { 1 } else { all.len() }, "-");
            let o = run(&all, Some(&bytes));
            let err = clean(&o.stderr, "<stdin>");
            assert!(!err.contains("panicked"), "{all:?}: {err}");
            (clean(&o.stdout, "<stdin>"), err, o.status.code())
        };
        assert_eq!(pipe_status, file_status, "{args:?}: {pipe_err}");
        assert!(pipe_out == file_out, "{args:?}: stdout differs");
        assert_eq!(pipe_err, file_err, "{args:?}");
    }
    let o = run(&["events", "-"], Some(&bytes[..bytes.len() / 2]));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated zip archive"));
}
