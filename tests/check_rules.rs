//! The `check` rules: each with an input that triggers it and one that
//! does not; the same findings at every number of jobs; the shared corpus
//! checked without a panic.

mod common;

use std::convert::Infallible;

use gedcom_elf::check::{rules, CheckConfig, Checker, Finding, Thresholds};
use gedcom_elf::par::Chunks;
use gedcom_elf::tree::Records;
use gedcom_elf::{Input, ReaderConfig};

const HEAD: &str = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";

/// Every finding of `body` (after a 5.5.1 HEAD, before the TRLR), checked
/// with `config`.
fn findings_with(body: &str, config: CheckConfig) -> Vec<Finding> {
    let text = format!("{HEAD}{body}0 TRLR\n");
    let mut out = Vec::new();
    Checker::new(config)
        .run(&mut Records::new(text.as_bytes()), |f| {
            out.push(f.clone());
            Ok::<(), Infallible>(())
        })
        .unwrap();
    out
}

/// `(line, rule id)` of each finding of the rule's group.
fn found(body: &str, group: &str) -> Vec<(u64, &'static str)> {
    let config = CheckConfig::new().only([group]).unwrap();
    findings_with(body, config)
        .iter()
        .map(|f| (f.line, f.rule.id))
        .collect()
}

/// Lines are counted from the HEAD's 5 lines.
const L: u64 = 5;

#[test]
fn every_rule_has_a_unique_id_in_a_known_group_and_a_description() {
    let mut ids: Vec<&str> = rules().iter().map(|r| r.id).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate rule ids");
    for r in rules() {
        let group = r.id.split('.').next().unwrap();
        assert!(
            ["read", "structure", "link", "value", "plausible"].contains(&group),
            "{}",
            r.id
        );
        assert!(!r.description.is_empty() && !r.description.contains('\n'));
    }
}

#[test]
fn read_rules_are_the_readers_diagnostics() {
    let body = "0 @I1@ INDI\n2 PLAC Deep\n1 NAME A /B/\nnot a line\n";
    assert_eq!(
        found(body, "read"),
        [(L + 2, "read.too-deep"), (L + 4, "read.unparsable-line")]
    );
    assert_eq!(found("0 @I1@ INDI\n1 NAME A /B/\n", "read"), []);
    // The missing TRLR comes at the end.
    let text = format!("{HEAD}0 @I1@ INDI\n");
    let mut ids = Vec::new();
    Checker::new(CheckConfig::new())
        .run(&mut Records::new(text.as_bytes()), |f| {
            ids.push(f.rule.id);
            Ok::<(), Infallible>(())
        })
        .unwrap();
    assert_eq!(ids, ["read.missing-trlr"]);
}

#[test]
fn link_missing_target() {
    let body = "0 @I1@ INDI\n1 FAMS @F1@\n1 SOUR @S9@\n0 @F1@ FAM\n1 HUSB @I1@\n";
    assert_eq!(found(body, "link"), [(L + 3, "link.missing-target")]);
    let f = &findings_with(body, CheckConfig::new().only(["link"]).unwrap())[0];
    assert_eq!(f.record.as_deref(), Some("@I1@"));
    assert_eq!(f.path, "INDI.SOUR");
    assert_eq!(f.text.as_deref(), Some("@S9@"));
    assert_eq!(f.message, "@S9@ names no record");
    let fixed = format!("{body}0 @S9@ SOUR\n1 TITL Parish register\n");
    assert_eq!(found(&fixed, "link"), []);
}

#[test]
fn a_gedcom_7_void_pointer_names_no_record_on_purpose() {
    let head7 = "0 HEAD\n1 GEDC\n2 VERS 7.0\n";
    let text = format!("{head7}0 @I1@ INDI\n1 FAMC @VOID@\n0 TRLR\n");
    let mut ids = Vec::new();
    Checker::new(CheckConfig::new().only(["link"]).unwrap())
        .run(&mut Records::new(text.as_bytes()), |f| {
            ids.push(f.rule.id);
            Ok::<(), Infallible>(())
        })
        .unwrap();
    assert!(ids.is_empty(), "{ids:?}");
    // In a 5.5.1 file it is an xref_id like any other.
    assert_eq!(
        found("0 @I1@ INDI\n1 FAMC @VOID@\n", "link"),
        [(L + 2, "link.missing-target")]
    );
}

#[test]
fn link_one_sided_both_ways() {
    // FAMS without the family's HUSB/WIFE, CHIL without the child's FAMC.
    let body = "0 @I1@ INDI\n1 FAMS @F1@\n0 @I2@ INDI\n0 @F1@ FAM\n1 CHIL @I2@\n";
    assert_eq!(
        found(body, "link.one-sided"),
        [(L + 2, "link.one-sided"), (L + 5, "link.one-sided")]
    );
    let body = "0 @I1@ INDI\n1 FAMS @F1@\n0 @I2@ INDI\n1 FAMC @F1@\n0 @F1@ FAM\n1 WIFE @I1@\n1 CHIL @I2@\n";
    assert_eq!(found(body, "link"), []);
}

#[test]
fn link_duplicate_xref() {
    let body = "0 @I1@ INDI\n0 @I1@ INDI\n";
    assert_eq!(found(body, "link"), [(L + 2, "link.duplicate-xref")]);
    assert_eq!(found("0 @I1@ INDI\n0 @I2@ INDI\n", "link"), []);
}

#[test]
fn value_date_and_age() {
    let body = "0 @I1@ INDI\n1 BIRT\n2 DATE 1 JAN 1900\n1 DEAT\n2 DATE BET 1950\n2 AGE 50 years\n";
    assert_eq!(
        found(body, "value"),
        [(L + 5, "value.date"), (L + 6, "value.age")]
    );
    let body = "0 @I1@ INDI\n1 DEAT\n2 DATE BET 1950 AND 1951\n2 AGE 50y\n";
    assert_eq!(found(body, "value"), []);
    // Nothing under an extension is judged.
    assert_eq!(found("0 @I1@ INDI\n1 _X\n2 DATE whenever\n", "value"), []);
}

#[test]
fn value_enumerations_and_coordinates() {
    let body = "0 @I1@ INDI\n1 SEX male\n1 FAMC @F1@\n2 PEDI natural\n1 BIRT\n2 PLAC Ely\n3 MAP\n4 LATI N95.5\n4 LONG 0.26\n";
    assert_eq!(
        found(body, "value"),
        [
            (L + 2, "value.enum"),
            (L + 4, "value.enum"),
            (L + 8, "value.coordinate"),
            (L + 9, "value.coordinate")
        ]
    );
    let body = "0 @I1@ INDI\n1 SEX M\n1 FAMC @F1@\n2 PEDI birth\n1 BIRT\n2 PLAC Ely\n3 MAP\n4 LATI N52.4\n4 LONG E0.26\n";
    assert_eq!(found(body, "value"), []);
}

#[test]
fn plausible_dates_of_one_person() {
    let body = "0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n1 DEAT\n2 DATE 1890\n";
    assert_eq!(
        found(body, "plausible"),
        [(L + 5, "plausible.death-before-birth")]
    );
    let body = "0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n1 DEAT\n2 DATE 1950\n1 RESI\n2 DATE 1960\n1 BURI\n2 DATE 1950\n1 PROB\n2 DATE 1951\n";
    assert_eq!(found(body, "plausible"), [(L + 7, "plausible.after-death")]);
    let body = "0 @I1@ INDI\n1 BIRT\n2 DATE 1800\n1 DEAT\n2 DATE 1930\n";
    assert_eq!(found(body, "plausible"), [(L + 5, "plausible.too-old")]);
    let body = "0 @I1@ INDI\n1 CENS\n2 AGE 130y\n";
    assert_eq!(found(body, "plausible"), [(L + 3, "plausible.too-old")]);
    // Vague dates that may be right are not judged.
    let body =
        "0 @I1@ INDI\n1 BIRT\n2 DATE BEF 1900\n1 DEAT\n2 DATE 1890\n1 RESI\n2 DATE AFT 1880\n";
    assert_eq!(found(body, "plausible"), []);
}

fn family(father: &str, mother: &str, child: &str, pedigree: &str, married: &str) -> String {
    format!(
        "0 @I1@ INDI\n1 BIRT\n2 DATE {father}\n1 FAMS @F1@\n\
         0 @I2@ INDI\n1 BIRT\n2 DATE {mother}\n1 FAMS @F1@\n\
         0 @I3@ INDI\n1 BIRT\n2 DATE {child}\n1 FAMC @F1@\n{pedigree}\
         0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 MARR\n2 DATE {married}\n1 CHIL @I3@\n"
    )
}

#[test]
fn plausible_ages_in_a_family() {
    let fine = family("1900", "1905", "1930", "", "1928");
    assert_eq!(found(&fine, "plausible"), []);
    let chil = L + 18;
    assert_eq!(
        found(&family("1925", "1905", "1930", "", "1928"), "plausible"),
        [
            (L + 17, "plausible.married-too-young"),
            (chil, "plausible.parent-too-young")
        ]
    );
    assert_eq!(
        found(&family("1850", "1905", "1930", "", "1928"), "plausible"),
        [(chil, "plausible.parent-too-old")]
    );
    assert_eq!(
        found(&family("1900", "1870", "1930", "", "1928"), "plausible"),
        [(chil, "plausible.mother-too-old")]
    );
    // An adopted or foster child exempts the parents' ages.
    let adopted = family("1850", "1870", "1930", "2 PEDI adopted\n", "1928");
    assert_eq!(found(&adopted, "plausible"), []);
    // Thresholds are options.
    let t = Thresholds {
        max_parent_age: 90.0,
        ..Thresholds::default()
    };
    let config = CheckConfig::new()
        .only(["plausible"])
        .unwrap()
        .thresholds(t);
    let body = family("1850", "1905", "1930", "", "1928");
    assert!(findings_with(&body, config).is_empty());
}

#[test]
fn deep_nesting_costs_no_more_than_its_lines() {
    // A citation's note's citation ... 100,000 levels deep, and a bad date
    // at the bottom: checked without recursing that deep, the path elided.
    let mut body = String::from("0 @I1@ INDI\n1 BIRT\n");
    for level in 2..100_002 {
        let tag = if level % 2 == 0 {
            "SOUR @S1@"
        } else {
            "NOTE x"
        };
        body += &format!("{level} {tag}\n");
    }
    body += "100002 DATE someday\n0 @S1@ SOUR\n";
    let found = findings_with(&body, CheckConfig::new().only(["value", "link"]).unwrap());
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!((f.rule.id, f.line), ("value.date", L + 100_003));
    assert_eq!(f.record.as_deref(), Some("@I1@"));
    assert!(
        f.path.starts_with("….") && f.path.ends_with(".NOTE.DATE"),
        "{}",
        f.path
    );
    assert_eq!(f.path.split('.').count(), 32);
}

#[test]
fn rules_and_skip_select() {
    let body = "0 @I1@ INDI\n1 FAMS @F9@\n1 BIRT\n2 DATE BET 1900\n";
    let all = findings_with(body, CheckConfig::new());
    assert!(all.iter().any(|f| f.rule.id == "link.missing-target"));
    assert!(all.iter().any(|f| f.rule.id == "value.date"));
    let skipped = findings_with(body, CheckConfig::new().skip(["value.date"]).unwrap());
    assert!(skipped.iter().all(|f| f.rule.id != "value.date"));
    assert_eq!(skipped.len(), all.len() - 1);
    assert!(CheckConfig::new().only(["nonsense"]).is_err());
}

fn show(f: &Finding) -> String {
    format!(
        "{}:{}:{}:{:?}:{}:{:?}",
        f.line, f.rule.id, f.message, f.record, f.path, f.text
    )
}

/// The findings of a file read whole and cut into chunks of `batch` bytes
/// on `jobs` threads.
fn check_chunks(path: &std::path::Path, jobs: usize, batch: usize) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).unwrap();
    let input = match Input::new(&bytes) {
        Ok(i) => i,
        Err(e) => return Err(format!("{e} after []")),
    };
    let chunks = match Chunks::new(&input, ReaderConfig::new()) {
        Ok(c) => c.jobs(jobs).batch_bytes(batch),
        Err(e) => return Err(format!("{e} after []")),
    };
    let mut out = Vec::new();
    let r = Checker::new(CheckConfig::new()).run_chunks(chunks, |f| {
        out.push(show(f));
        Ok::<(), Infallible>(())
    });
    match r {
        Ok(_) => Ok(out),
        Err(e) => Err(format!("{e} after {out:?}")),
    }
}

fn check_file(path: &std::path::Path, jobs: usize, batch: usize) -> Result<Vec<String>, String> {
    let file = std::fs::File::open(path).unwrap();
    let mut records = Records::new(std::io::BufReader::new(file))
        .jobs(jobs)
        .batch_bytes(batch);
    let mut out = Vec::new();
    let r = Checker::new(CheckConfig::new())
        .jobs(jobs)
        .run(&mut records, |f| {
            out.push(show(f));
            Ok::<(), Infallible>(())
        });
    match r {
        Ok(_) => Ok(out),
        Err(e) => Err(format!("{e} after {out:?}")),
    }
}

#[test]
fn the_corpus_is_checked_alike_at_every_job_count() {
    let files = common::all_corpus_paths();
    let mut counts = std::collections::BTreeMap::new();
    for path in &files {
        let one = check_file(path, 1, 64 << 10);
        for (jobs, batch) in [(2, 1), (3, 4096), (8, 64 << 10)] {
            assert_eq!(
                one,
                check_file(path, jobs, batch),
                "{} at {jobs} jobs",
                path.display()
            );
            let chunked = check_chunks(path, jobs, batch);
            assert_eq!(one, chunked, "{} in chunks at {jobs} jobs", path.display());
        }
        for line in one.iter().flatten() {
            let rule = line.split(':').nth(1).unwrap().to_string();
            *counts.entry(rule).or_insert(0u64) += 1;
        }
    }
    eprintln!("{} files; findings per rule: {counts:#?}", files.len());
}
