//! The command line's contract, through the built binary: output written
//! whole or not at all, in place or not; closed and full standard output;
//! one parser's usage errors; one diagnostic format; exit statuses. Each
//! test is named for the problem it guards against.

mod cli_support;

use cli_support::run;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_gedcom-elf");

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gedcom-elf-contract-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Files in `d` other than those named.
fn others(d: &Path, named: &[&str]) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !named.contains(&n.as_str()))
        .collect()
}

const SMALL: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 NOTE a\n2 CONT b\n0 @I2@ INDI\n1 NAME B\n0 TRLR\n";

/// About `records` records, a few MB for 40,000.
fn big(records: usize) -> Vec<u8> {
    let mut s = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..records {
        s += &format!("0 @I{i}@ INDI\n1 NAME Person /N{i}/\n1 NOTE a\n2 CONC b\n2 CONT c@@d\n");
    }
    s += "0 TRLR\n";
    s.into_bytes()
}

/// Every command, with FILE (or `-`) where it goes, writing to stdout.
fn every_command(file: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["events", file]),
        v(&["events", "--types", file]),
        v(&["json", file]),
        v(&["gedcomx", file]),
        v(&["gedcomx", "--format", "xml", "--pretty", file]),
        v(&["stats", file]),
        v(&["stats", "--tree", file]),
        v(&["count", file]),
        v(&["get", file, "@I1@"]),
        v(&["fmt", file]),
        v(&["convert", "--to-encoding", "ansel", file]),
        v(&["edit", file]),
        v(&[]),
        v(&["--help"]),
        v(&["events", "--help"]),
        v(&["--version"]),
        v(&["completions", "bash"]),
    ]
}

#[test]
fn fmt_convert_and_edit_in_place_replace_the_input_safely() {
    let d = dir("in-place");
    let x = d.join("x.ged");
    for args in [
        &["fmt"][..],
        &["convert", "--to-encoding", "utf-16le"],
        &["convert", "--to-encoding", "ansel", "--line-ending", "crlf"],
        &["edit", "--drop-tag", "NOTE"],
        &["edit"],
    ] {
        let input = big(20_000);
        std::fs::write(&x, &input).unwrap();
        let mut want_args = args.to_vec();
        want_args.push("-");
        let want = run(&want_args, Some(&input));
        assert!(want.status.success(), "{args:?}: {}", stderr(&want));
        let mut all = args.to_vec();
        all.extend([s(&x), "-o", s(&x)]);
        let o = run(&all, None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert!(std::fs::read(&x).unwrap() == want.stdout, "{args:?}");
        assert!(others(&d, &["x.ged"]).is_empty(), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn out_through_a_symbolic_link_replaces_the_file_it_names() {
    let d = dir("link");
    let x = d.join("x.ged");
    std::fs::write(&x, b"0 HEAD\n1 CHAR UTF-8\n0  @I1@   INDI\n0 TRLR\n").unwrap();
    let link = d.join("link.ged");
    std::os::unix::fs::symlink(&x, &link).unwrap();
    let o = run(&["fmt", s(&link), "-o", s(&link)], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&x).unwrap(),
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 TRLR\n"
    );
}

/// `-o` naming a pipe (or a device such as `/dev/null`) writes into it, as
/// `> OUT` would; renaming a temporary file over it would destroy it (as
/// root, over `/dev/null`, it turned the null device into a file that
/// every `> /dev/null` of the machine then wrote to and every read of it
/// returned).
#[cfg(unix)]
#[test]
fn out_that_is_a_pipe_is_written_into_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let d = dir("pipe");
    let x = d.join("x.ged");
    std::fs::write(&x, SMALL).unwrap();
    let fifo = d.join("out");
    for args in [
        &["fmt"][..],
        &["convert", "--to-encoding", "utf-16le"],
        &["edit", "--drop-tag", "NOTE"],
        // Sections spooled to files and appended to OUT.
        &["gedcomx"],
        &["gedcomx", "--format", "xml", "--pretty"],
        &["from-gedcomx"],
    ] {
        let input = match args[0] {
            "from-gedcomx" => {
                let json = run(&["gedcomx", s(&x)], None);
                assert!(json.status.success(), "{}", stderr(&json));
                let path = d.join("x.json");
                std::fs::write(&path, &json.stdout).unwrap();
                path
            }
            _ => x.clone(),
        };
        let mut want_args = args.to_vec();
        want_args.push(s(&input));
        let want = run(&want_args, None);
        assert!(want.status.success(), "{args:?}: {}", stderr(&want));
        // A pipe buffer holds it: the command finishes before it is read.
        assert!(!want.stdout.is_empty() && want.stdout.len() < 16 << 10);
        let _ = std::fs::remove_file(&fifo);
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        // Open for reading and writing: no wait for a writer, and the
        // command's open does not wait for a reader.
        let mut reader = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        let mut all = want_args.clone();
        all.extend(["-o", s(&fifo)]);
        let o = run(&all, None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?}: the pipe was replaced");
        let mut got = vec![0; want.stdout.len()];
        reader.read_exact(&mut got).unwrap();
        assert!(got == want.stdout, "{args:?}");
        let mut left = others(&d, &["x.ged", "x.json", "out"]);
        left.sort();
        assert!(left.is_empty(), "{args:?}: {left:?}");
    }
}

/// `-o` naming a directory is refused before any work, naming it.
#[test]
fn out_that_is_a_directory_is_refused() {
    let d = dir("out-dir");
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    for args in [&["fmt", "-"][..], &["gedcomx", "-"]] {
        let mut all = args.to_vec();
        all.extend(["-o", s(&sub)]);
        let o = run(&all, Some(SMALL));
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains(s(&sub)) && e.contains("is a directory"), "{e}");
        assert!(others(&d, &["sub"]).is_empty());
        assert!(std::fs::read_dir(&sub).unwrap().next().is_none());
    }
}

#[cfg(unix)]
#[test]
fn out_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let d = dir("perm");
    let out = d.join("out.ged");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o604)).unwrap();
    let o = run(&["fmt", "-", "-o", s(&out)], Some(SMALL));
    assert!(o.status.success(), "{}", stderr(&o));
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o604);
}

#[test]
fn a_failing_run_leaves_an_existing_out_byte_identical() {
    let d = dir("failing");
    let out = d.join("keep.ged");
    let keep = b"precious \x00\xff bytes\n".to_vec();
    let not_gedcom = d.join("not.ged");
    std::fs::write(&not_gedcom, b"0 INDI\n0 TRLR\n").unwrap();
    let bad = d.join("bad.ged");
    let mut broken = big(30_000);
    broken.extend_from_slice(b"nonsense line\n");
    std::fs::write(&bad, &broken).unwrap();
    // A writer error after much was written: substructures under a too-deep line.
    let too_deep = d.join("deep.ged");
    let mut deep = big(30_000);
    deep.truncate(deep.len() - b"0 TRLR\n".len());
    deep.extend_from_slice(b"0 @X@ INDI\n3 FAMC @F1@\n4 PAGE 1\n0 TRLR\n");
    std::fs::write(&too_deep, &deep).unwrap();
    let o = s(&out);
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["fmt", "/nonexistent/x.ged", "-o", o], 2),
        (
            vec!["convert", "--to-encoding", "ascii", "/nonexistent", "-o", o],
            2,
        ),
        (vec!["edit", "/nonexistent", "-o", o], 2),
        (vec!["fmt", s(&not_gedcom), "-o", o], 2),
        (vec!["edit", s(&not_gedcom), "-o", o], 2),
        (vec!["fmt", "--strict", s(&bad), "-o", o], 1),
        (
            vec![
                "convert",
                "--strict",
                "--to-encoding",
                "ansel",
                s(&bad),
                "-o",
                o,
            ],
            1,
        ),
        (vec!["fmt", s(&too_deep), "-o", o], 2),
    ];
    for (args, code) in cases {
        std::fs::write(&out, &keep).unwrap();
        let r = run(&args, None);
        assert_eq!(r.status.code(), Some(code), "{args:?}: {}", stderr(&r));
        assert_eq!(std::fs::read(&out).unwrap(), keep, "{args:?}");
        assert!(
            others(&d, &["keep.ged", "not.ged", "bad.ged", "deep.ged"]).is_empty(),
            "{args:?}"
        );
    }
    // From standard input too.
    std::fs::write(&out, &keep).unwrap();
    let r = run(&["fmt", "--strict", "-", "-o", o], Some(&broken));
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    assert_eq!(std::fs::read(&out).unwrap(), keep);
}

/// Starts `args` with stdin fed `input` in pieces (slowly, so that the
/// command is still running when it is interrupted).
fn start_slow(args: &[&str], input: Vec<u8>) -> (Child, std::thread::JoinHandle<()>) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for piece in input.chunks(64 << 10) {
            if pipe.write_all(piece).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
    (child, feeder)
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_out_untouched_and_no_temporary_file() {
    let d = dir("interrupt");
    let out = d.join("out.ged");
    let keep = b"keep me\n".to_vec();
    for signal in ["INT", "TERM"] {
        std::fs::write(&out, &keep).unwrap();
        let (mut child, feeder) = start_slow(&["fmt", "-", "-o", s(&out)], big(200_000));
        // Wait until the temporary file holds some output.
        let started = std::time::Instant::now();
        loop {
            let written: u64 = std::fs::read_dir(&d)
                .unwrap()
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name() != "out.ged")
                .map(|e| e.metadata().map_or(0, |m| m.len()))
                .sum();
            if written > 0 {
                break;
            }
            assert!(started.elapsed().as_secs() < 60, "no output was written");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        feeder.join().unwrap();
        assert_eq!(status.code(), Some(130), "{signal}");
        assert_eq!(std::fs::read(&out).unwrap(), keep, "{signal}");
        assert!(others(&d, &["out.ged"]).is_empty(), "{signal}");
    }
}

#[test]
fn a_closed_standard_output_ends_every_command_quietly() {
    let d = dir("head");
    let file = d.join("big.ged");
    std::fs::write(&file, big(40_000)).unwrap();
    for args in every_command(s(&file)) {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // `| head -1`: one line read, then the pipe closed.
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let _ = stdout.read_line(&mut line);
        drop(stdout);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
    }
}

/// Standard output is written through a duplicate of its descriptor;
/// with none to duplicate (closed before the command starts, as `>&-`
/// leaves it), through the standard library's handle, which drops what is
/// written: every command ends as it would with its output read.
#[cfg(unix)]
#[test]
fn a_standard_output_closed_from_the_start_ends_every_command_quietly() {
    let d = dir("closed");
    let file = d.join("small.ged");
    std::fs::write(&file, SMALL).unwrap();
    for args in every_command(s(&file)) {
        let o = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(BIN)
            .args(&args)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&o);
        let read = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(o.status.code(), read.status.code(), "{args:?}: {err}");
        // The same warnings and notes, but for `count`'s timing.
        let untimed = |e: &str| -> Vec<String> {
            e.lines()
                .filter(|l| !l.contains(" MB/s"))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(untimed(&err), untimed(&stderr(&read)), "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_one_error_line_and_status_2_for_every_command() {
    let d = dir("full");
    let file = d.join("small.ged");
    std::fs::write(&file, SMALL).unwrap();
    for args in every_command(s(&file)) {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = Command::new(BIN)
            .args(&args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(
            errors,
            ["<stdout>: error: cannot write: No space left on device (os error 28)"],
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn many_more_jobs_than_work_neither_panic_nor_change_the_output() {
    let input = big(2_000);
    let one = run(&["count", "--jobs", "1", "-"], Some(&input));
    assert!(one.status.success());
    for args in [
        &["count", "--jobs", "20000", "-"][..],
        &["events", "--jobs", "5000", "-"],
    ] {
        let o = run(args, Some(&input));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        if args[0] == "count" {
            assert_eq!(o.stdout, one.stdout);
        }
    }
    let d = dir("jobs");
    let file = d.join("x.ged");
    std::fs::write(&file, &input).unwrap();
    for cmd in ["count", "stats", "json"] {
        let o = run(&[cmd, "--jobs", "20000", s(&file)], None);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
    }
    let o = run(&["stats", "--tree", "--jobs", "20000", s(&file)], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn version_help_and_help_of_a_command() {
    let v = run(&["--version"], None);
    assert!(v.status.success());
    assert_eq!(
        String::from_utf8_lossy(&v.stdout).trim(),
        format!("gedcom-elf {}", env!("CARGO_PKG_VERSION"))
    );
    let h = run(&["--help"], None);
    let text = String::from_utf8_lossy(&h.stdout);
    assert!(h.status.success());
    assert!(text.contains("Exit status:"), "{text}");
    assert!(text.contains("3  get found nothing"), "{text}");
    for args in [
        &["help", "events"][..],
        &["events", "--help"],
        &["events", "-h"],
    ] {
        let o = run(args, None);
        assert!(o.status.success(), "{args:?}");
        let t = String::from_utf8_lossy(&o.stdout);
        assert!(t.contains("Usage: gedcom-elf events"), "{args:?}: {t}");
        assert!(t.contains("--types"), "{args:?}");
        // Only the options events takes.
        assert!(
            !t.contains("--tree") && !t.contains("--output"),
            "{args:?}: {t}"
        );
    }
}

/// A short usage error: status 2, naming what was wrong, pointing at
/// `--help`, without the whole help.
fn usage_error(args: &[&str], names: &str) {
    let o = run(args, None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(names), "{args:?}: {err}");
    assert!(err.contains("--help"), "{args:?}: {err}");
    assert!(err.lines().count() <= 8, "{args:?}: {err}");
    assert!(!err.contains("Commands:"), "{args:?}: {err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn usage_errors_are_short_and_name_what_is_wrong() {
    usage_error(&["bogus"], "'bogus'");
    usage_error(&["events", "--bogus", "x.ged"], "'--bogus'");
    usage_error(&["events"], "<FILE>");
    usage_error(&["events", "a.ged", "b.ged"], "'b.ged'");
    usage_error(&["get", "a.ged"], "<XREF>");
    usage_error(&["events", "--jobs", "0", "a.ged"], "--jobs");
    usage_error(&["count", "--chunk-bytes", "x", "a.ged"], "--chunk-bytes");
    usage_error(&["convert", "a.ged"], "--to-encoding");
    usage_error(&["completions", "tcsh"], "'tcsh'");
}

#[test]
fn a_file_given_where_the_command_goes_is_pointed_out() {
    let d = dir("file-first");
    let file = d.join("x.ged");
    std::fs::write(&file, SMALL).unwrap();
    let o = run(&[s(&file)], None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is a file, not a command") && err.contains("stats"),
        "{err}"
    );
}

#[test]
fn options_that_do_not_apply_are_refused() {
    usage_error(&["events", "--tree", "x.ged"], "'--tree'");
    usage_error(&["stats", "--types", "x.ged"], "'--types'");
    usage_error(&["count", "-o", "out", "x.ged"], "'-o'");
    usage_error(&["fmt", "--jobs", "2", "x.ged"], "'--jobs'");
    usage_error(&["--jobs", "2", "edit", "x.ged"], "'--jobs'");
    usage_error(&["--strict", "edit", "x.ged"], "'--strict'");
    usage_error(&["--quiet", "completions", "bash"], "'--quiet'");
    usage_error(&["edit", "--strict", "x.ged"], "'--strict'");
    // Renamed: one meaning per option name.
    usage_error(
        &["fmt", "--input-encoding", "ansel", "x.ged"],
        "'--input-encoding'",
    );
}

#[test]
fn options_go_before_or_after_file_and_before_the_command() {
    let want = run(&["count", "-"], Some(SMALL));
    assert!(want.status.success());
    for args in [
        &["count", "--jobs", "2", "-"][..],
        &["count", "-", "--jobs", "2"],
        &["--jobs", "2", "count", "-"],
        &["-j", "1", "--strict", "--quiet", "count", "-"],
        &["--encoding", "utf-8", "count", "-"],
    ] {
        let o = run(args, Some(SMALL));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(o.stdout, want.stdout, "{args:?}");
    }
}

#[test]
fn a_double_dash_ends_the_options() {
    let d = dir("dashdash");
    let file = d.join("-x.ged");
    std::fs::write(&file, SMALL).unwrap();
    let name = file.file_name().unwrap().to_str().unwrap();
    let o = Command::new(BIN)
        .current_dir(&d)
        .args(["count", "--", name])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("4 records"));
}

#[test]
fn encoding_names_the_input_s_encoding_in_every_command() {
    // Windows-1252 octets, declared as UTF-8: --encoding overrides the CHAR line.
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xe9\n0 TRLR\n";
    for args in [
        &["events", "--encoding", "windows-1252", "-"][..],
        &["fmt", "--encoding", "windows-1252", "-"],
        &[
            "convert",
            "--encoding",
            "windows-1252",
            "--to-encoding",
            "utf-8",
            "-",
        ],
        &["get", "--encoding", "windows-1252", "-", "I1", "NAME"],
    ] {
        let o = run(args, Some(input));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("José"),
            "{args:?}"
        );
    }
    // convert's output encoding is --to-encoding.
    let o = run(&["convert", "--to-encoding", "ascii", "-"], Some(SMALL));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 CHAR ASCII"));
}

#[test]
fn strict_prints_its_error_once() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\nbad\n1 NAME x\n0 TRLR\n";
    for cmd in ["events", "stats", "count", "json", "fmt"] {
        let o = run(&[cmd, "--strict", "-"], Some(input));
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        let err = stderr(&o);
        assert_eq!(
            err, "<stdin>:4: error: unparsable line string (no valid level): \"bad\"\n",
            "{cmd}"
        );
    }
}

#[test]
fn diagnostics_have_one_format_in_every_command() {
    let d = dir("format");
    let file = d.join("f.ged");
    std::fs::write(
        &file,
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\nbad\n1 NAME x\n0 TRLR\n",
    )
    .unwrap();
    let f = s(&file);
    let want = format!("{f}:4: error: unparsable line string (no valid level): \"bad\"");
    for args in [
        &["events", f][..],
        &["events", "--types", f],
        &["stats", f],
        &["stats", "--tree", f],
        &["count", f],
        &["json", f],
        &["get", f, "I1"],
        &["fmt", f],
        &["convert", "--to-encoding", "ascii", f],
    ] {
        let o = run(args, None);
        assert!(o.status.success(), "{args:?}");
        let err = stderr(&o);
        assert_eq!(
            err.lines()
                .filter(|l| l.contains(": error: "))
                .collect::<Vec<_>>(),
            [want.as_str()],
            "{args:?}: {err}"
        );
        for line in err.lines() {
            assert!(line.starts_with(&format!("{f}:")), "{args:?}: {line}");
        }
    }
    // Not GEDCOM: FILE:LINE too, status 2, in every command.
    std::fs::write(&file, b"0 INDI\n").unwrap();
    for args in [
        &["events", f][..],
        &["stats", "--tree", f],
        &["edit", f],
        &["fmt", f],
    ] {
        let o = run(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&o),
            format!(
                "{f}:1: error: not a gedcom file: the first line is \"0 INDI\", not \"0 HEAD\"\n"
            ),
            "{args:?}"
        );
    }
}

#[test]
fn warnings_past_twenty_of_a_kind_are_counted_unless_all_warnings_and_quiet_hides_them() {
    // 30 pointers to nothing would be the tree's; 30 unparsable lines are every command's.
    let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
    for i in 0..30 {
        input += &format!("junk {i}\n");
    }
    input += "0 TRLR\n";
    let input = input.into_bytes();
    for cmd in ["events", "stats", "count", "json", "fmt"] {
        let o = run(&[cmd, "-"], Some(&input));
        let err = stderr(&o);
        assert_eq!(
            err.matches("unparsable line string").count(),
            20,
            "{cmd}: {err}"
        );
        assert!(
            err.contains("<stdin>: note: 10 more unparsable-line diagnostics not shown"),
            "{cmd}: {err}"
        );
        let all = run(&[cmd, "--all-warnings", "-"], Some(&input));
        assert_eq!(
            stderr(&all).matches("unparsable line string").count(),
            30,
            "{cmd}"
        );
    }
    // Warnings: a missing TRLR, quieted.
    let o = run(&["events", "--quiet", "-"], Some(b"0 HEAD\n1 CHAR UTF-8\n"));
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
    let o = run(&["events", "-"], Some(b"0 HEAD\n1 CHAR UTF-8\n"));
    assert!(stderr(&o).contains(": warning: "), "{}", stderr(&o));
}

#[test]
fn get_exits_3_for_nothing_found_and_shows_only_its_records_diagnostics() {
    let input =
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\nbad one\n0 @I2@ INDI\nbad two\n1 NAME x\n0 TRLR\n";
    let o = run(&["get", "-", "I2"], Some(input));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "0 @I2@ INDI\n1 ERROR bad two\n1 NAME x\n"
    );
    let err = stderr(&o);
    assert!(err.contains("<stdin>:6: error: unparsable"), "{err}");
    assert!(!err.contains(":4:"), "{err}");
    assert!(
        err.contains("<stdin>: note: 1 diagnostics elsewhere"),
        "{err}"
    );
    for args in [&["get", "-", "I9"][..], &["get", "-", "I1", "BIRT"]] {
        let o = run(args, Some(input));
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        assert!(o.stdout.is_empty());
    }
}

/// `get` writes payloads by the writer's `@` rule: a CR the reader decoded
/// from `@#UD@ ` goes out as that escape, never as a line break.
#[test]
fn get_writes_at_signs_and_a_cr_by_the_writer_s_rule() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a@#UD@ b x@y\n2 CONT c\n1 DATE @#DJULIAN@ 1540\n0 TRLR\n";
    let o = run(&["get", "-", "I1"], Some(input));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "0 @I1@ INDI\n1 NOTE a@#UD@ b x@@y\n2 CONT c\n1 DATE @#DJULIAN@ 1540\n"
    );
}

/// `get` prints a record as it stands in the document, even where `fmt`'s
/// writer must refuse: substructures under an `ERROR` the reader made from a
/// too-deep line (which is why `get` keeps its own line writer).
#[test]
fn get_prints_what_the_rewriting_writer_would_refuse_as_it_stands() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME A\n3 DEEP x\n4 DEEPER y\n1 NOTE\n2 CONT b\n0 TRLR\n";
    let o = run(&["get", "-", "I1"], Some(input));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "0 @I1@ INDI\n1 NAME A\n2 ERROR 3 DEEP x\n3 DEEPER y\n1 NOTE\n2 CONT b\n"
    );
    assert!(
        stderr(&o).contains("<stdin>:5: error: too-deep line"),
        "{}",
        stderr(&o)
    );
    // fmt cannot write it back so that it reads the same, and says where.
    let o = run(&["fmt", "-"], Some(input));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<stdin>:6: error:"), "{}", stderr(&o));
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell], None);
        assert!(o.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("gedcom-elf") && text.contains("to-encoding"),
            "{shell}"
        );
    }
}

/// Runs `command` under `script`, on a terminal of its own, with the bar
/// shown at once; what the terminal showed. `None` where `script` is not
/// installed.
fn on_a_terminal(command: &str) -> Option<String> {
    let o = Command::new("script")
        .args(["-qfec", command, "/dev/null"])
        .env("GEDCOM_ELF_PROGRESS_DELAY_MS", "0")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    assert!(o.status.success(), "{command}: {}", stderr(&o));
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

#[cfg(unix)]
#[test]
fn progress_shows_on_a_terminal_stderr_but_never_between_output_lines() {
    let d = dir("progress");
    let file = d.join("big.ged");
    std::fs::write(&file, big(60_000)).unwrap();
    let f = s(&file);
    // stderr the terminal, stdout elsewhere: the bar, in MB.
    let Some(shown) = on_a_terminal(&format!("{BIN} events {f} > /dev/null")) else {
        eprintln!("no `script` here: terminal behaviour not checked");
        return;
    };
    assert!(shown.contains(" MB"), "{shown:?}");
    assert!(
        !shown.contains("MiB") && !shown.contains("KiB"),
        "{shown:?}"
    );
    // Both on the same terminal: no bar among the output lines.
    let same = on_a_terminal(&format!("{BIN} events {f}")).unwrap();
    assert!(same.contains("\"begin\":\"INDI\""));
    assert!(!same.contains(" MB"), "{}", &same[..same.len().min(2000)]);
}

const CHAR_WITH_TAGS: &[u8] = b"0 HEAD\n1 SOUR x\n1 CHAR ANSEL\n2 VERS 1.0\n2 _COMMENT keep me\n3 _YYY and me\n2 NOTE a note\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n";

#[test]
fn custom_tags_under_char_survive_fmt_and_convert() {
    for (args, char_lines) in [
        (&["fmt", "-"][..], "1 CHAR UTF-8\n"),
        (
            &["convert", "--to-encoding", "ascii", "-"],
            "1 CHAR ASCII\n",
        ),
        (
            &["convert", "--to-encoding", "windows-1250", "-"],
            "1 CHAR ANSI\n2 VERS 1250\n",
        ),
    ] {
        let o = run(args, Some(CHAR_WITH_TAGS));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let want = format!(
            "0 HEAD\n{char_lines}2 _COMMENT keep me\n3 _YYY and me\n2 NOTE a note\n1 SOUR x\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n"
        );
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{args:?}");
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    // UTF-16 too: read back, the same structures.
    let o = run(
        &["convert", "--to-encoding", "utf-16le", "-"],
        Some(CHAR_WITH_TAGS),
    );
    let back = run(&["fmt", "-"], Some(&o.stdout));
    assert!(String::from_utf8_lossy(&back.stdout).contains("2 _COMMENT keep me\n3 _YYY and me\n"));
}

#[test]
fn what_the_writer_leaves_out_is_reported_with_its_line() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n1 CHAR ANSEL\n2 _X y\n0 TRLR\n";
    let o = run(&["fmt", "-"], Some(input));
    assert!(o.status.success());
    assert_eq!(
        stderr(&o),
        "<stdin>:3: warning: CHAR left out of the output: a second char under the head (the output names its encoding once)\n"
    );
    let quiet = run(&["fmt", "--quiet", "-"], Some(input));
    assert_eq!(stderr(&quiet), "");
}

#[test]
fn a_writer_error_names_the_input_line() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @X@ INDI\n3 FAMC @F1@\n4 PAGE 1\n0 TRLR\n";
    let o = run(&["fmt", "-"], Some(input));
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let last = err.lines().last().unwrap();
    assert!(last.starts_with("<stdin>:5: error: "), "{err}");
}
