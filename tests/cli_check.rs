//! `gedcom-elf check` through the built binary: JSON Lines and text,
//! exit statuses, rule selection, standard input, several files, jobs.

mod cli_support;
mod common;

use cli_support::run;
use std::path::PathBuf;

const FAMILY: &str = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
0 @I1@ INDI\n1 NAME Jean /Martin/\n1 SEX M\n1 BIRT\n2 DATE 12 MAR 1850\n1 FAMS @F1@\n\
0 @I2@ INDI\n1 NAME Marie /Durand/\n1 SEX female\n1 BIRT\n2 DATE ABT 1790\n1 DEAT\n2 DATE 1 JAN 1780\n\
0 @I3@ INDI\n1 NAME Paul /Martin/\n1 BIRT\n2 DATE 1858\n1 FAMC @F1@\n\
0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 SOUR @S1@\n0 TRLR\n";

const CLEAN: &str = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
1 SOUR test\n1 SUBM @U1@\n0 @U1@ SUBM\n1 NAME Ada\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 SEX F\n0 TRLR\n";

fn file(name: &str, text: &str) -> PathBuf {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gedcom-elf-check-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn findings_are_json_lines_with_every_field_and_errors_exit_1() {
    let f = file("family.ged", FAMILY);
    let o = run(&["check", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let stdout = out(&o);
    let lines: Vec<&str> = stdout.lines().collect();
    let rules: Vec<String> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            for key in [
                "file", "line", "record", "path", "rule", "severity", "message", "text",
            ] {
                assert!(v.get(key).is_some(), "{key} missing in {l}");
            }
            format!("{}:{}", v["line"], v["rule"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        rules,
        [
            "14:value.enum",
            "18:plausible.death-before-birth",
            "26:link.one-sided",
            "27:plausible.parent-too-young",
            "27:plausible.mother-too-old",
            "28:link.missing-target"
        ]
    );
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["record"], "@I2@");
    assert_eq!(first["path"], "INDI.SEX");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["text"], "female");
    assert!(
        err(&o).contains("summary: 2 errors, 4 warnings in 6 records"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_clean_file_exits_0_and_warnings_alone_do_not_fail() {
    let f = file("clean.ged", CLEAN);
    let o = run(&["check", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert_eq!(out(&o), "");
    let f = file("warn.ged", FAMILY);
    let o = run(
        &["check", "--rules", "plausible", f.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o).lines().count(), 3);
}

#[test]
fn text_format_is_file_line_severity_rule_message() {
    let f = file("text.ged", FAMILY);
    let name = f.to_str().unwrap();
    let o = run(
        &["check", "--format", "text", "--rules", "value", name],
        None,
    );
    assert_eq!(
        out(&o),
        format!("{name}:14: error: [value.enum] not a SEX value: byte 0: expected `M`, `F` or `U`: female\n")
    );
}

#[test]
fn rules_and_skip_select_and_an_unknown_rule_is_a_usage_error() {
    let f = file("select.ged", FAMILY);
    let name = f.to_str().unwrap();
    let o = run(&["check", "--skip", "plausible,link.one-sided", name], None);
    let text = out(&o);
    assert!(
        !text.contains("plausible.") && !text.contains("one-sided"),
        "{text}"
    );
    assert!(text.contains("link.missing-target"));
    let o = run(&["check", "--rules", "no.such", name], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("no rule or group is named 'no.such'"),
        "{}",
        err(&o)
    );
}

#[test]
fn list_rules_lists_every_rule_with_its_severity() {
    let o = run(&["check", "--list-rules"], None);
    assert_eq!(o.status.code(), Some(0));
    let text = out(&o);
    let n = gedcom_elf::check::rules().len();
    assert_eq!(text.lines().count(), n);
    assert!(text
        .lines()
        .any(|l| l.starts_with("link.missing-target ") && l.contains(" error ")));
    assert!(text
        .lines()
        .any(|l| l.starts_with("plausible.too-old ") && l.contains(" warning ")));
}

#[test]
fn standard_input_and_every_job_count_give_the_same_findings() {
    let f = file("jobs.ged", FAMILY);
    let name = f.to_str().unwrap();
    let one = run(&["check", "-j", "1", name], None);
    for args in [
        vec!["check", "-j", "2", name],
        vec!["check", "-j", "3", "--chunk-bytes", "7", name],
    ] {
        assert_eq!(out(&run(&args, None)), out(&one), "{args:?}");
    }
    let stdin = run(
        &["check", "-j", "2", "--chunk-bytes", "5", "-"],
        Some(FAMILY.as_bytes()),
    );
    assert_eq!(out(&stdin), out(&one).replace(name, "<stdin>"));
    assert_eq!(stdin.status.code(), Some(1));
}

#[test]
fn several_files_one_unreadable_exit_2_after_checking_the_others() {
    let a = file("many-a.ged", CLEAN);
    let b = file("many-b.ged", FAMILY);
    let o = run(
        &[
            "check",
            a.to_str().unwrap(),
            "/nonexistent/x.ged",
            b.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("/nonexistent/x.ged: error:"),
        "{}",
        err(&o)
    );
    assert_eq!(out(&o).lines().count(), 6);
    let not_gedcom = file("not.ged", "hello\n");
    let o = run(&["check", not_gedcom.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}

#[test]
fn every_corpus_file_is_checked_without_a_panic() {
    let files = common::all_corpus_paths();
    assert!(!files.is_empty());
    let mut args = vec!["check".to_string(), "-q".to_string()];
    args.extend(files.iter().map(|p| p.to_string_lossy().into_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&args, None);
    assert!(matches!(o.status.code(), Some(0..=2)), "{}", err(&o));
    assert!(!err(&o).contains("panicked"), "{}", err(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let f = file("full.ged", FAMILY);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gedcom-elf"))
        .args(["check", f.to_str().unwrap()])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("<stdout>: error: cannot write"),
        "{}",
        err(&o)
    );
}
