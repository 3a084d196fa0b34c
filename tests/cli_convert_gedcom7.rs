//! `convert --to-version` through the binary: a file and standard input give
//! the library's output, `-o OUT` is written whole or not at all, what 5.5.1
//! cannot carry is reported on stderr with its lines, and 7.0 output in
//! another encoding is refused; `fmt` of a 7.0 file keeps its `@` signs.

mod cli_support;

use cli_support::{arg, run, temp_file};
use gedcom_elf::convert::{convert, ConvertConfig};
use gedcom_elf::Version;

const INPUT551: &str = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
    0 @i1@ INDI\n1 SEX m\n1 BIRT\n2 DATE @#DJULIAN@ 1 MAR 1700/01\n1 NOTE a@@b\n0 TRLR\n";
const INPUT7: &str = "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 SEX X\n1 NOTE @@lead a@b\n\
    1 EXID 12\n1 FAMC @VOID@\n0 TRLR\n";

fn library(input: &str, to: Version) -> Vec<u8> {
    let mut out = Vec::new();
    convert(input.as_bytes(), &ConvertConfig::new(to), &mut out).unwrap();
    out
}

#[test]
fn a_file_and_standard_input_convert_as_the_library_does() {
    for (input, to, name) in [
        (INPUT551, "7.0", Version::Gedcom7),
        (INPUT7, "5.5.1", Version::Gedcom551),
    ] {
        let path = temp_file("cli_convert7", &format!("in-{to}.ged"), input.as_bytes());
        let file = run(&["convert", arg(&path), "--to-version", to], None);
        assert!(
            file.status.success(),
            "{}",
            String::from_utf8_lossy(&file.stderr)
        );
        assert_eq!(file.stdout, library(input, name));
        let stdin = run(
            &["convert", "-", "--to-version", to],
            Some(input.as_bytes()),
        );
        assert!(stdin.status.success());
        assert_eq!(stdin.stdout, file.stdout);
        // Redirected from a file standing past other bytes (`< FILE`): the
        // file mapped from there, not copied.
        let before = b"0 HEAD\n0 @X1@ INDI\n0 TRLR\n";
        let both = [&before[..], input.as_bytes()].concat();
        let path = temp_file("cli_convert7", &format!("past-{to}.ged"), &both);
        let mut redirected = std::fs::File::open(&path).unwrap();
        std::io::Seek::seek(
            &mut redirected,
            std::io::SeekFrom::Start(before.len() as u64),
        )
        .unwrap();
        let redirected =
            cli_support::run_from_file(&["convert", "-", "--to-version", to], redirected);
        assert!(redirected.status.success());
        assert_eq!(redirected.stdout, file.stdout);
        let stderr = String::from_utf8_lossy(&file.stderr);
        assert!(
            stderr.contains(&format!(
                "converted GEDCOM {} to {to}",
                if to == "7.0" { "5.5.1" } else { "7.0" }
            )),
            "{stderr}"
        );
    }
}

#[test]
fn what_5_5_1_cannot_carry_is_reported_with_its_lines() {
    let path = temp_file("cli_convert7", "report.ged", INPUT7.as_bytes());
    let out = run(&["convert", arg(&path), "--to-version", "5.5.1"], None);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let name = arg(&path);
    for (line, path) in [(5, "INDI.SEX"), (7, "INDI.EXID"), (8, "INDI.FAMC")] {
        let want = format!("{name}:{line}: warning: not carried to GEDCOM 5.5.1: {path} (");
        assert!(stderr.contains(&want), "{want} in {stderr}");
    }
    assert!(
        stderr.contains("3 structures not carried to GEDCOM 5.5.1"),
        "{stderr}"
    );
    // --quiet keeps stderr quiet.
    let quiet = run(
        &["--quiet", "convert", arg(&path), "--to-version", "5.5.1"],
        None,
    );
    assert!(quiet.status.success());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
}

#[test]
fn output_is_written_whole_or_not_at_all() {
    let path = temp_file("cli_convert7", "whole.ged", INPUT551.as_bytes());
    let out_path = temp_file("cli_convert7", "out.ged", b"old contents\n");
    let ok = run(
        &[
            "convert",
            arg(&path),
            "--to-version",
            "7.0",
            "-o",
            arg(&out_path),
        ],
        None,
    );
    assert!(ok.status.success());
    assert!(ok.stdout.is_empty());
    assert_eq!(
        std::fs::read(&out_path).unwrap(),
        library(INPUT551, Version::Gedcom7)
    );
    // 7.0 is UTF-8 only: refused, and OUT left as it was.
    std::fs::write(&out_path, b"old contents\n").unwrap();
    let refused = run(
        &[
            "convert",
            arg(&path),
            "--to-version",
            "7.0",
            "--to-encoding",
            "ansel",
            "-o",
            arg(&out_path),
        ],
        None,
    );
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("UTF-8 only"), "{stderr}");
    assert_eq!(std::fs::read(&out_path).unwrap(), b"old contents\n");
    // Neither a version nor an encoding: a usage error.
    let usage = run(&["convert", arg(&path)], None);
    assert_eq!(usage.status.code(), Some(2));
    let version = run(&["convert", arg(&path), "--to-version", "6"], None);
    assert_eq!(version.status.code(), Some(2));
}

#[test]
fn fmt_of_a_7_0_file_keeps_its_at_signs() {
    let path = temp_file("cli_convert7", "fmt7.ged", INPUT7.as_bytes());
    let out = run(&["fmt", arg(&path)], None);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), INPUT7);
    // And a 7.0 file converted to 7.0 is written again as it is.
    let same = run(&["convert", arg(&path), "--to-version", "7"], None);
    assert_eq!(String::from_utf8(same.stdout).unwrap(), INPUT7);
}

#[test]
fn fmt_of_every_7_0_sample_is_byte_for_byte_from_a_file_and_stdin() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus7");
    if !dir.is_dir() {
        eprintln!("skipping: ../shared/corpus7 is absent");
        return;
    }
    let mut n = 0;
    for sub in ["gedcom70", "gedcom71"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "ged") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let file = run(&["fmt", arg(&path)], None);
            assert!(file.status.success(), "{}", path.display());
            assert!(file.stdout == bytes, "{}", path.display());
            let stdin = run(&["fmt", "-"], Some(&bytes));
            assert!(stdin.stdout == bytes, "{} from stdin", path.display());
            n += 1;
        }
    }
    assert!(n >= 20, "{n} files");
}

#[test]
fn get_writes_a_7_0_record_by_its_at_rule() {
    let path = temp_file("cli_convert7", "get7.ged", INPUT7.as_bytes());
    let out = run(&["get", arg(&path), "@I1@"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // The record's lines as the file has them.
    let want: String = INPUT7
        .lines()
        .skip_while(|l| !l.starts_with("0 @I1@"))
        .take_while(|l| *l != "0 TRLR")
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(text, want);
    assert!(text.contains("1 NOTE @@lead a@b\n"));
}

/// The README's examples of `convert --to-version` are the binary's output
/// (stdout, then stderr) on the project's corpus files;
/// `UPDATE_README=1` writes them in.
#[test]
fn the_readme_examples_are_the_binarys_output() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme_path = std::path::Path::new(root).join("README.md");
    let mut readme = std::fs::read_to_string(&readme_path).unwrap();
    let mut stale = Vec::new();
    for (file, to) in [
        ("corpus/convert-551.ged", "7.0"),
        ("corpus/convert-70.ged", "5.5.1"),
    ] {
        let out = cli_support::bin()
            .current_dir(root)
            .args(["convert", file, "--to-version", to])
            .output()
            .unwrap();
        assert!(out.status.success());
        let command = format!("$ gedcom-elf convert {file} --to-version {to}\n");
        let start = readme
            .find(&command)
            .unwrap_or_else(|| panic!("README.md has no {command:?}"))
            + command.len();
        let end = start + readme[start..].find("```\n").expect("the block's end");
        let want = format!(
            "{}{}",
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap()
        );
        if readme[start..end] != want {
            stale.push(file);
            readme.replace_range(start..end, &want);
        }
    }
    if std::env::var_os("UPDATE_README").is_some() {
        std::fs::write(&readme_path, readme).unwrap();
    } else {
        assert!(
            stale.is_empty(),
            "README.md's examples of {stale:?} are not the output; run \
             UPDATE_README=1 cargo test --test cli_convert_gedcom7"
        );
    }
}

/// `-o NAME.gdz` writes a GEDZIP: the library's archive, the media found
/// beside the input, a missing one reported at its line; `--gdz` writes the
/// same bytes to standard output; 5.5.1 (or no version) into an archive is
/// refused with nothing written.
#[test]
fn a_gdz_output_is_the_librarys_archive_and_5_5_1_is_refused() {
    use gedcom_elf::convert::convert_to_gedzip;
    use gedcom_elf::gedzip::{read_gedzip, MediaFiles};
    let input = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
        0 @M1@ OBJE\n1 FILE photos\\anna.jpg\n2 FORM jpg\n1 FILE lost.jpg\n2 FORM jpg\n0 TRLR\n";
    let path = temp_file("cli_convert_gdz", "family.ged", input.as_bytes());
    let dir = path.parent().unwrap();
    std::fs::create_dir_all(dir.join("photos")).unwrap();
    std::fs::write(dir.join("photos/anna.jpg"), b"\xff\xd8\xff").unwrap();
    let out = dir.join("family.GDZ");
    let _ = std::fs::remove_file(&out);
    let done = run(
        &[
            "convert",
            arg(&path),
            "--to-version",
            "7.0",
            "-o",
            arg(&out),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}:9: warning: not carried to GEDCOM 7.0: OBJE.FILE (a local media file not found",
            arg(&path)
        )),
        "{stderr}"
    );
    let written = std::fs::read(&out).unwrap();
    let mut files = MediaFiles::directory(dir);
    let config = ConvertConfig::new(Version::Gedcom7);
    let (_, library) = convert_to_gedzip(
        input.as_bytes(),
        &config,
        &mut files,
        std::io::Cursor::new(Vec::new()),
    )
    .unwrap();
    assert_eq!(written, library.into_inner());
    let gdz = read_gedzip(std::io::Cursor::new(&written)).unwrap();
    assert!(String::from_utf8(gdz.gedcom)
        .unwrap()
        .contains("1 FILE photos/anna.jpg\n"));
    assert_eq!(gdz.media[0].name, "photos/anna.jpg");

    let stdout = run(
        &["convert", arg(&path), "--to-version", "7.0", "--gdz"],
        None,
    );
    assert!(stdout.status.success());
    assert_eq!(stdout.stdout, written);

    // And from that archive to an archive: the media come from it.
    let again = dir.join("again.gdz");
    let done = run(
        &[
            "convert",
            arg(&out),
            "--to-version",
            "7.0",
            "-o",
            arg(&again),
        ],
        None,
    );
    assert!(done.status.success());
    let gdz = read_gedzip(std::io::Cursor::new(std::fs::read(&again).unwrap())).unwrap();
    assert_eq!(gdz.media.len(), 1);

    for args in [
        &[
            "convert",
            arg(&path),
            "--to-version",
            "5.5.1",
            "-o",
            arg(&again),
        ][..],
        &["convert", arg(&path), "--to-version", "5.5.1", "--gdz"][..],
        &["convert", arg(&path), "--to-encoding", "utf-8", "--gdz"][..],
    ] {
        let before = std::fs::read(&again).unwrap();
        let refused = run(args, None);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        assert!(refused.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains("holds GEDCOM 7 only"), "{stderr}");
        assert_eq!(std::fs::read(&again).unwrap(), before);
    }
}
