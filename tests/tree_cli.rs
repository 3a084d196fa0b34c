//! The tree's command-line commands: `json`, `get`, `events --types`,
//! `stats --tree`.

use std::io::Write;
use std::process::{Command, Output};

fn run(args: &[&str], input: &[u8]) -> Output {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gedcom-elf-tree-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!(
        "{}.ged",
        args.join("_").replace(['/', '.', '@'], "")
    ));
    std::fs::File::create(&file)
        .unwrap()
        .write_all(input)
        .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gedcom-elf"));
    let (first, rest) = args.split_at(1);
    cmd.args(first).arg(&file).args(rest);
    let out = cmd.output().unwrap();
    std::fs::remove_file(&file).ok();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

const SAMPLE: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 BIRT\n\
2 DATE @#DJULIAN@ 10 DEC 1815\n2 PLAC London\n1 NOTE a@@b \"q\"\n2 CONT line2\n1 FAMS @F1@\n\
0 @F1@ FAM\n1 HUSB @I2@\n0 TRLR\n";

#[test]
fn json_lines_one_object_per_record() {
    let out = run(&["json"], SAMPLE);
    assert!(out.status.success());
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[0],
        r#"{"tag":"HEAD","line":1,"children":[{"tag":"CHAR","text":"UTF-8","line":2}]}"#
    );
    let e = "https://terms.fhiso.org/elf/";
    assert_eq!(
        lines[1],
        format!(
            r#"{{"tag":"INDI","xref":"@I1@","type":"{e}INDIVIDUAL_RECORD","line":3,"children":[{{"tag":"NAME","text":"Ada /Lovelace/","type":"{e}PERSONAL_NAME_STRUCTURE","line":4}},{{"tag":"BIRT","type":"{e}BIRTH","line":5,"children":[{{"tag":"DATE","text":"@#DJULIAN@ 10 DEC 1815","type":"{e}DATE_VALUE","line":6}},{{"tag":"PLAC","text":"London","type":"{e}PLACE_STRUCTURE","line":7}}]}},{{"tag":"NOTE","text":"a@b \"q\"\nline2","type":"{e}NOTE_STRUCTURE","line":8}},{{"tag":"FAMS","pointer":"@F1@","type":"{e}SPOUSE_TO_FAMILY_LINK","line":10}}]}}"#
        )
    );
    assert_eq!(lines[3], r#"{"tag":"TRLR","line":13}"#);
    // `json` streams: checks that need the whole document (a pointer that
    // matches no xref_id) are `stats --tree`'s.
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err, "");
    let tree = run(&["stats", "--tree"], SAMPLE);
    let err = String::from_utf8(tree.stderr).unwrap();
    assert!(
        err.contains(":12: warning: pointer @I2@ matches no xref_id"),
        "{err}"
    );
}

#[test]
fn json_of_a_hundred_thousand_levels() {
    let mut s = String::from("0 HEAD\n0 @I1@ INDI\n");
    for l in 1..100_000 {
        s.push_str(&format!("{l} _X\n"));
    }
    s.push_str("0 TRLR\n");
    let out = run(&["json"], s.as_bytes());
    assert!(out.status.success());
    let text = stdout(&out);
    let line = text.lines().nth(1).unwrap();
    assert_eq!(line.matches('{').count(), 100_000);
    assert_eq!(line.matches('}').count(), 100_000);
    assert!(line.ends_with(&"]}".repeat(99_999)));
}

#[test]
fn get_prints_a_record_or_the_nodes_at_a_path() {
    let out = run(&["get", "@I1@"], SAMPLE);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 BIRT\n2 DATE @#DJULIAN@ 10 DEC 1815\n2 PLAC London\n\
         1 NOTE a@@b \"q\"\n2 CONT line2\n1 FAMS @F1@\n"
    );
    let out = run(&["get", "I1", "BIRT.PLAC"], SAMPLE);
    assert_eq!(stdout(&out), "2 PLAC London\n");
    let out = run(&["get", "@I9@"], SAMPLE);
    assert_eq!(out.status.code(), Some(3));
    let out = run(&["get", "@I1@", "NOPE"], SAMPLE);
    assert_eq!(out.status.code(), Some(3));
    let out = run(&["get"], SAMPLE);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["json", "extra"], SAMPLE);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn events_types_is_the_last_key_and_absent_on_metadata() {
    let out = run(&["events", "--types"], SAMPLE);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], r#"{"begin":"HEAD","level":0}"#);
    assert_eq!(lines[1], r#"{"begin":"CHAR","level":1,"text":"UTF-8"}"#);
    assert_eq!(
        lines[4],
        r#"{"begin":"INDI","level":0,"xref":"@I1@","type":"https://terms.fhiso.org/elf/INDIVIDUAL_RECORD"}"#
    );
    assert!(text.contains(
        r#"{"begin":"FAMS","level":1,"pointer":"@F1@","type":"https://terms.fhiso.org/elf/SPOUSE_TO_FAMILY_LINK"}"#
    ));
    assert!(text.lines().last().unwrap().starts_with(r#"{"end":"TRLR""#));
    assert!(text.contains("{\"begin\":\"TRLR\",\"level\":0}\n"));
    // Without --types, nothing changes.
    let plain = stdout(&run(&["events"], SAMPLE));
    assert!(!plain.contains("\"type\""));
    assert_eq!(plain.lines().count(), lines.len());
}

#[test]
fn stats_tree_reports_nodes_undef_and_memory() {
    let out = run(&["stats", "--tree"], SAMPLE);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("nodes:       12\n"), "{text}");
    assert!(text.contains("records:     4\n"), "{text}");
    assert!(text.contains("undef:       1\n"), "{text}");
    assert!(text.contains("tree memory: "), "{text}");
}

#[test]
fn stats_tree_is_the_same_on_any_number_of_threads_and_chunks() {
    let mut input = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..300 {
        // Pointers forward and back across chunks, a dangling one, a duplicate.
        input.extend_from_slice(
            format!(
                "0 @I{i}@ INDI\n1 NAME P{i}\n1 FAMS @F{}@\n0 @F{i}@ FAM\n1 HUSB @I{}@\n",
                (i + 7) % 311,
                (i * 13) % 300
            )
            .as_bytes(),
        );
    }
    input.extend_from_slice(b"0 @I5@ INDI\n0 @F3@ FAM\n0 TRLR\n");
    // Everything but the timing and the temporary file's name.
    let without_time = |o: &Output| -> String {
        let all = stdout(o)
            .lines()
            .filter(|l| !l.contains("time"))
            .collect::<Vec<_>>()
            .join("\n")
            + &String::from_utf8_lossy(&o.stderr);
        all.lines()
            .map(|l| l.split_once(".ged").map_or(l, |(_, rest)| rest))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let want = without_time(&run(&["stats", "--tree", "--jobs", "1"], &input));
    assert!(want.contains("undef:"), "{want}");
    for (jobs, chunk) in [("2", "64"), ("2", "1000"), ("3", "1"), ("1", "50")] {
        let got = run(
            &["stats", "--tree", "--jobs", jobs, "--chunk-bytes", chunk],
            &input,
        );
        assert_eq!(without_time(&got), want, "jobs {jobs} chunk {chunk}");
    }
}
