//! The hand-derived conformance corpus: every `corpus/NAME.ged` that has an
//! expected `tests/data/events/NAME.jsonl` is run through `gedcom-elf events`
//! (stdout compared byte for byte) and through the library (diagnostics
//! compared with `NAME.diag`: `LINE SEVERITY KIND`).

use std::path::Path;
use std::process::Command;

use gedcom_elf::Input;

fn diagnostics(bytes: &[u8]) -> String {
    let mut out = String::new();
    let input = match Input::new(bytes) {
        Ok(i) => i,
        Err(e) => {
            return format!(
                "{} error {:?}\n",
                e.position().map_or(1, |p| p.line),
                e.kind()
            )
        }
    };
    let mut reader = input.reader();
    loop {
        let r = reader.next_event();
        for d in reader.drain_diagnostics() {
            out += &format!("{} {} {}\n", d.position.line, d.severity(), d.kind.id());
        }
        match r {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => {
                let kind = match e.kind() {
                    gedcom_elf::ErrorKind::NotGedcom => "not-gedcom".to_string(),
                    k => format!("{k:?}"),
                };
                out += &format!("{} error {kind}\n", e.position().map_or(1, |p| p.line));
                break;
            }
        }
    }
    out
}

#[test]
fn every_case_matches_its_expected_events_and_diagnostics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected_dir = root.join("tests/data/events");
    let mut cases: Vec<_> = std::fs::read_dir(&expected_dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "jsonl")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for name in &cases {
        let ged = root.join("corpus").join(format!("{name}.ged"));
        let out = Command::new(env!("CARGO_BIN_EXE_gedcom-elf"))
            .arg("events")
            .arg(&ged)
            .output()
            .unwrap();
        let want = std::fs::read_to_string(expected_dir.join(format!("{name}.jsonl"))).unwrap();
        let got = String::from_utf8_lossy(&out.stdout);
        if got != want {
            failures.push(format!(
                "{name}: events differ\n--- want\n{want}--- got\n{got}"
            ));
        }
        let want_diag = std::fs::read_to_string(expected_dir.join(format!("{name}.diag"))).unwrap();
        let got_diag = diagnostics(&std::fs::read(&ged).unwrap());
        if got_diag.trim_end() != want_diag.trim_end() {
            failures.push(format!(
                "{name}: diagnostics differ\n--- want\n{want_diag}--- got\n{got_diag}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
