//! The command line over chunks and streams: `json`, `events --types`, `get`,
//! `fmt` and `convert` give the same output from a file on any number of jobs
//! and chunk sizes, and from standard input in small batches; and that output
//! is what the library gives over the whole input (a tree, a type resolver,
//! `rewrite`).

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

mod cli_support;

use cli_support::run;
use std::path::PathBuf;
use std::process::Output;

use gedcom_elf::tree::{NodeRef, Schema, Step, Tree, TypeResolver};
use gedcom_elf::write::{rewrite, WriterConfig};
use gedcom_elf::{Encoding, Input, Value};

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_stream");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A document with what chunk cuts could get wrong: a second HEAD record
/// (typed as a record, not as metadata), nested duplicate xref_ids, deep
/// nesting, continuation lines, an unparsable line, records after TRLR.
fn tricky() -> Vec<u8> {
    let mut s = String::from(
        "0 HEAD\n1 CHAR UTF-8\n1 SOUR x\n2 VERS 1\n1 SCHMA\n2 TAG _UID http://example.org/uid\n",
    );
    for i in 0..600 {
        s += &format!("0 @I{i}@ INDI\n1 NAME Person /N{i}/\n1 _UID u{i}\n1 BIRT\n2 DATE @#DJULIAN@ {i} JAN 1700\n");
        s += "1 NOTE a@@b\n2 CONC c\n2 CONT d\n1 FAMS @F1@\n";
        if i % 50 == 7 {
            s += "0 HEAD\n1 SOUR again\n";
        }
        if i % 97 == 3 {
            s += "0 @D@ NOTE outer\n1 @D@ _X inner\n2 DATE 1 JAN 1900\n1 _Y\n2 _Z\n3 _W deep\n";
        }
        if i == 301 {
            s += "bad line\n";
        }
    }
    s += "0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @NOWHERE@\n0 TRLR\n0 @late@ NOTE after the trailer\n";
    s.into_bytes()
}

/// A generated file of about 1 MB, as the benchmarks read.
fn generated() -> Vec<u8> {
    let mut out = Vec::new();
    generate::generate(2_000, 7, &mut out).unwrap();
    out
}

/// Inputs: name and bytes.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = vec![
        ("tricky.ged".to_string(), tricky()),
        ("generated.ged".to_string(), generated()),
    ];
    v.extend(common::project_corpus());
    if let Some(dir) = common::shared_corpus() {
        v.extend(common::ged_files(&dir));
    }
    v
}

/// Runs `args` (FILE goes first, `extra` after it) on a file with several
/// jobs and chunk sizes and on stdin in small batches, and checks every
/// output against `--jobs 1` with the default chunk size. Returns that.
fn same_everywhere(name: &str, bytes: &[u8], args: &[&str], extra: &[&str]) -> Output {
    // One file per command: the tests run at the same time.
    let file = temp_file(
        &format!("{}-{}", args.join("-"), name.replace('/', "_")),
        bytes,
    );
    let file = file.to_str().unwrap();
    let with = |opts: &[&str], file: &str, stdin: Option<&[u8]>| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend_from_slice(opts);
        all.push(file);
        all.extend_from_slice(extra);
        run(&all, stdin)
    };
    let one = with(&["--jobs", "1"], file, None);
    for opts in [
        &["--jobs", "2"][..],
        &["--jobs", "2", "--chunk-bytes", "1"],
        &["--jobs", "3", "--chunk-bytes", "700"],
        &["--jobs", "1", "--chunk-bytes", "5000"],
    ] {
        let other = with(opts, file, None);
        assert_eq!(
            other.status.code(),
            one.status.code(),
            "{name} {args:?} {opts:?}"
        );
        assert!(
            other.stdout == one.stdout,
            "{name} {args:?} {opts:?}: output differs"
        );
    }
    for opts in [&[][..], &["--chunk-bytes", "1"], &["--chunk-bytes", "900"]] {
        let other = with(opts, "-", Some(bytes));
        assert_eq!(
            other.status.code(),
            one.status.code(),
            "{name} {args:?} stdin {opts:?}"
        );
        assert!(
            other.stdout == one.stdout,
            "{name} {args:?} stdin {opts:?}: output differs"
        );
    }
    one
}

/// JSON of one record from a tree (as `json` wrote it when it built one).
fn tree_json(out: &mut String, record: NodeRef<'_>) {
    let q = |s: &str| {
        let mut v = Vec::new();
        json_str(&mut v, s);
        String::from_utf8(v).unwrap()
    };
    for step in record.walk() {
        match step {
            Step::Enter(n) => {
                if n != record
                    && n.parent()
                        .is_some_and(|p| p.id().index() + 1 != n.id().index())
                {
                    out.push(',');
                }
                out.push_str(&format!("{{\"tag\":{}", q(n.tag())));
                if let Some(x) = n.xref() {
                    out.push_str(&format!(",\"xref\":{}", q(&x.to_str_lossy())));
                }
                match n.value() {
                    Some(Value::Pointer(p)) => {
                        out.push_str(&format!(",\"pointer\":{}", q(&p.to_str_lossy())))
                    }
                    Some(Value::Text(t)) => out.push_str(&format!(",\"text\":{}", q(&t.text()))),
                    None => {}
                }
                if let Some(t) = n.structure_type() {
                    out.push_str(&format!(",\"type\":{}", q(&t.iri())));
                }
                out.push_str(&format!(",\"line\":{}", n.line()));
                if n.has_children() {
                    out.push_str(",\"children\":[");
                }
            }
            Step::Leave(n) => {
                if n.has_children() {
                    out.push(']');
                }
                out.push('}');
            }
        }
    }
    out.push('\n');
}

/// RFC 8259 string, as the CLI writes it.
fn json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => out.extend_from_slice(c.to_string().as_bytes()),
        }
    }
    out.push(b'"');
}

#[test]
fn json_is_the_same_on_any_jobs_chunks_and_stdin_and_equals_the_trees() {
    for (name, bytes) in inputs() {
        let one = same_everywhere(&name, &bytes, &["json"], &[]);
        let Ok(input) = Input::new(&bytes) else {
            assert_eq!(one.status.code(), Some(2), "{name}");
            continue;
        };
        let Ok(tree) = Tree::from_input(&input) else {
            assert_eq!(one.status.code(), Some(2), "{name}");
            continue;
        };
        let mut want = String::new();
        for record in tree.records() {
            tree_json(&mut want, record);
        }
        assert_eq!(one.status.code(), Some(0), "{name}");
        assert!(
            String::from_utf8_lossy(&one.stdout) == want,
            "{name}: json differs from the tree's"
        );
    }
}

#[test]
fn events_types_are_the_same_on_any_jobs_chunks_and_stdin_and_equal_one_resolver() {
    for (name, bytes) in inputs() {
        let one = same_everywhere(&name, &bytes, &["events", "--types"], &[]);
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        // One resolver over the whole document: the types in order.
        let Ok(schema) = Schema::from_input(&input) else {
            continue;
        };
        let mut types = TypeResolver::new(schema);
        let mut want = Vec::new();
        for e in input.reader() {
            let Ok(e) = e else { break };
            if let Some(t) = types.event(&e) {
                want.push(t.iri().into_owned());
            }
        }
        let text = String::from_utf8(one.stdout).unwrap();
        let got: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(",\"type\":\"").map(|(_, t)| &t[..t.len() - 2]))
            .collect();
        assert_eq!(got.len(), want.len(), "{name}");
        assert!(
            got.iter().zip(&want).all(|(g, w)| g == w),
            "{name}: types differ"
        );
    }
}

#[test]
fn a_second_head_is_a_record_wherever_the_chunks_start() {
    let bytes = tricky();
    let out = same_everywhere("tricky-head.ged", &bytes, &["events", "--types"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("{\"begin\":\"HEAD\""))
        .collect();
    assert_eq!(heads.len(), 13);
    assert_eq!(heads[0], "{\"begin\":\"HEAD\",\"level\":0}");
    // Later HEADs are records of an undefined type, not metadata.
    assert!(
        heads[1..].iter().all(|h| h.contains("\"type\":")),
        "{heads:?}"
    );
}

#[test]
fn get_is_the_same_on_any_jobs_chunks_and_stdin_and_equals_the_trees() {
    let bytes = tricky();
    let input = Input::new(&bytes).unwrap();
    let tree = Tree::from_input(&input).unwrap();
    for (xref, path, count) in [
        ("@I5@", None, 1),
        ("I5", Some("BIRT.DATE"), 1),
        ("@I5@", Some("*"), 5),
        ("@D@", None, 14),
        ("@D@", Some("*.DATE"), 7),
        ("@D@", Some("_Y._Z._W"), 7),
    ] {
        let mut extra = vec![xref];
        extra.extend(path);
        let out = same_everywhere("get.ged", &bytes, &["get"], &extra);
        assert_eq!(out.status.code(), Some(0), "{xref} {path:?}");
        let full = if xref.starts_with('@') {
            xref.to_string()
        } else {
            format!("@{xref}@")
        };
        let found = tree.find_all(&full);
        let nodes: Vec<NodeRef<'_>> = match path {
            None => found,
            Some(p) => found.iter().flat_map(|r| r.path(p)).collect(),
        };
        assert_eq!(nodes.len(), count, "{xref} {path:?}");
        // Every node's line, with the lines of its subtree, in order.
        let text = String::from_utf8(out.stdout).unwrap();
        let mut want = Vec::new();
        for n in nodes {
            for d in std::iter::once(n).chain(n.descendants()) {
                want.push(format!("{} {}", d.level(), d.tag()));
            }
        }
        let got: Vec<String> = text
            .lines()
            .filter(|l| !l.contains(" CONT"))
            .map(|l| {
                let mut w = l.split(' ');
                let level = w.next().unwrap();
                let tag = w.find(|t| !t.starts_with('@')).unwrap();
                format!("{level} {tag}")
            })
            .collect();
        assert_eq!(got, want, "{xref} {path:?}");
        if xref == "@D@" {
            assert!(String::from_utf8_lossy(&out.stderr).contains("14 structures have xref_id @D@"));
        }
    }
    let none = same_everywhere("get.ged", &bytes, &["get"], &["@NOPE@"]);
    assert_eq!(none.status.code(), Some(3));
    let nothing = same_everywhere("get.ged", &bytes, &["get"], &["@I1@", "NOPE"]);
    assert_eq!(nothing.status.code(), Some(3));
}

#[test]
fn fmt_and_convert_stream_stdin_and_equal_the_library_rewrite() {
    for (name, bytes) in inputs() {
        for (args, config) in [
            (&["fmt"][..], WriterConfig::new()),
            (
                &[
                    "convert",
                    "--to-encoding",
                    "utf-16le",
                    "--line-ending",
                    "crlf",
                ],
                WriterConfig::new()
                    .encoding(Encoding::Utf16Le)
                    .line_ending(gedcom_elf::LineEnding::CrLf),
            ),
        ] {
            let mut want = Vec::new();
            let ok = rewrite(&bytes, None, config, &mut want).is_ok();
            let file = temp_file(&format!("{}-{}", args[0], name.replace('/', "_")), &bytes);
            let mut file_args = args.to_vec();
            file_args.insert(1, file.to_str().unwrap());
            let mut stdin_args = args.to_vec();
            stdin_args.insert(1, "-");
            for out in [run(&file_args, None), run(&stdin_args, Some(&bytes))] {
                assert_eq!(out.status.success(), ok, "{name} {args:?}");
                if ok {
                    assert!(out.stdout == want, "{name} {args:?}: differs from rewrite");
                }
            }
        }
    }
}

#[test]
fn edit_reads_stdin_and_files_alike() {
    let bytes = tricky();
    let file = temp_file("edit.ged", &bytes);
    let args = ["--drop-tag", "NOTE", "--rename-tag", "NAME=_N"];
    let mut from_file = vec!["edit", file.to_str().unwrap()];
    from_file.extend(args);
    let mut from_stdin = vec!["edit", "-"];
    from_stdin.extend(args);
    let a = run(&from_file, None);
    let b = run(&from_stdin, Some(&bytes));
    assert!(a.status.success() && b.status.success());
    assert!(a.stdout == b.stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    assert!(text.contains("1 _N Person /N5/\n") && !text.contains("NOTE"));
    // No progress bar when stderr is not a terminal.
    assert!(!String::from_utf8_lossy(&a.stderr).contains('\u{1b}'));
}

#[test]
fn edit_without_rules_and_the_tree_stats_are_unchanged_by_the_event_commands() {
    // `stats --tree` still builds the whole tree, and reports what needs it.
    let bytes = tricky();
    let out = run(&["stats", "--tree", "-"], Some(&bytes));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("undef:       1\n"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("duplicate xref_id @D@"), "{err}");
    let same = run(&["edit", "-"], Some(&bytes));
    assert!(same.stdout == bytes);
}

#[test]
fn chunk_bytes_must_be_positive() {
    let out = run(
        &["json", "--chunk-bytes", "0", "-"],
        Some(b"0 HEAD\n0 TRLR\n"),
    );
    assert_eq!(out.status.code(), Some(2));
}

/// Lines that report a time or a rate: they differ from run to run.
fn timeless(out: &[u8]) -> String {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| !l.starts_with("time:") && !l.contains(" MB/s, "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `count`, `stats` and `events` read a file's chunks numbered each from its
/// own first line (no pass over the file to number them first) and renumber
/// what they merge: every diagnostic and error must name the line a single
/// read names, whatever the jobs and chunks, with each kind of line break.
#[test]
fn count_stats_and_events_name_the_same_lines_on_any_jobs_and_chunks() {
    // Problems spread over many chunks: unparsable and too-deep lines,
    // stray CONT lines, a duplicate HEAD, lines after TRLR, blank lines.
    let mut doc = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..300 {
        doc += &format!("0 @I{i}@ INDI\n1 NAME n{i}\n\n");
        match i % 40 {
            3 => doc += "bad line\n",
            11 => doc += "3 DEEP x\n",
            17 => doc += "0 CONT stray\n",
            29 => doc += "  \n1 NOTE a\n2 CONC b\n\n",
            _ => {}
        }
    }
    doc += "0 TRLR\n0 @late@ NOTE after\n";
    let variants = [
        ("lf", doc.clone()),
        ("crlf", doc.replace('\n', "\r\n")),
        ("cr", doc.replace('\n', "\r")),
    ];
    for (name, text) in &variants {
        for (cmd, strict) in [
            ("count", false),
            ("count", true),
            ("stats", false),
            ("stats", true),
            ("events", false),
            ("events", true),
        ] {
            let file = temp_file(&format!("lines-{cmd}-{strict}-{name}.ged"), text.as_bytes());
            let file = file.to_str().unwrap();
            let args = |extra: &[&str]| {
                let mut v = vec![cmd];
                if strict {
                    v.push("--strict");
                }
                v.extend_from_slice(extra);
                v.push(file);
                run(&v, None)
            };
            let one = args(&["--jobs", "1"]);
            let stderr = timeless(&one.stderr);
            if cmd != "count" || strict {
                // The first problem: HEAD, CHAR, then three lines per record.
                assert!(
                    stderr.contains(".ged:15: error: unparsable"),
                    "{cmd} {name}: {stderr}"
                );
            }
            for extra in [
                &["--jobs", "2"][..],
                &["--jobs", "2", "--chunk-bytes", "1"],
                &["--jobs", "3", "--chunk-bytes", "300"],
                &["--jobs", "1", "--chunk-bytes", "64"],
            ] {
                let other = args(extra);
                let what = format!("{cmd} strict={strict} {name} {extra:?}");
                assert_eq!(other.status.code(), one.status.code(), "{what}");
                assert_eq!(timeless(&other.stdout), timeless(&one.stdout), "{what}");
                assert_eq!(timeless(&other.stderr), stderr, "{what}");
            }
        }
    }
}

/// `text` without the timing lines (`time:` and `… MB/s`).
fn untimed(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| !l.starts_with("time:") && !l.contains(" MB/s"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn stdin_batches_on_several_jobs_give_what_one_job_gives() {
    // Commands read the batches after the HEAD of standard input on --jobs
    // threads (numbered as the input's where the output carries line
    // numbers); everything they print, diagnostics and exit status
    // included, is what one job prints.
    for (name, bytes) in inputs() {
        for args in [
            &["count"][..],
            &["stats"],
            &["events"],
            &["events", "--strict"],
            &["events", "--types"],
            &["json"],
        ] {
            let with = |opts: &[&str]| {
                let mut all: Vec<&str> = args.to_vec();
                all.extend_from_slice(opts);
                all.push("-");
                run(&all, Some(&bytes))
            };
            let one = with(&["--jobs", "1", "--chunk-bytes", "900"]);
            for opts in [
                &["--jobs", "2"][..],
                &["--jobs", "2", "--chunk-bytes", "1"],
                &["--jobs", "3", "--chunk-bytes", "900"],
            ] {
                let other = with(opts);
                let what = format!("{name} {args:?} {opts:?}");
                assert_eq!(other.status.code(), one.status.code(), "{what}");
                assert_eq!(untimed(&other.stdout), untimed(&one.stdout), "{what}");
                assert_eq!(untimed(&other.stderr), untimed(&one.stderr), "{what}");
            }
        }
    }
}
