//! Arbitrary bytes through the editor and the re-serialiser:
//!
//! * the editor with no changes gives back the input octet for octet (when it reads it at
//!   all), and with drops and renames does not panic;
//! * `rewrite` (the `fmt` command) on an input read without error diagnostics succeeds,
//!   and reading its output gives the same structures, in the form
//!   `tests/write_common` renders them (the HEAD's CHAR and VERS lines left out, the
//!   CHAR's other substructures compared, where the writer moves them), unless the
//!   writer reports leaving out a structure that form does not leave out (a 7.0 output's
//!   `CHAR`, whose substructures alone go); everything it reports left out has its input
//!   line.
#![no_main]

#[path = "../../tests/write_common/mod.rs"]
mod write_common;

use gedcom_elf::edit::{edit, Action, EditRules};
use gedcom_elf::write::{rewrite, DropReason, Dropped, WriterConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut out = Vec::new();
    if edit(data, None, &mut out, |_| Action::Keep).is_ok() {
        assert!(out == data, "edit with no changes changed the input");
    }
    let rules = EditRules::new()
        .drop_tag("_X")
        .drop_tag("NOTE")
        .rename_tag("NAME", "_NAME");
    let _ = edit(data, None, &mut Vec::new(), |b| rules.action(b));

    if let Ok((before, 0)) = write_common::events(data, false) {
        let mut formatted = Vec::new();
        let stats = rewrite(data, None, WriterConfig::new(), &mut formatted)
            .expect("an input without errors is representable");
        let (after, errors) = write_common::events(&formatted, false).expect("the output reads");
        assert_eq!(errors, 0, "the output has errors");
        assert_eq!(
            stats.dropped.len() as u64,
            stats.dropped_count.min(Dropped::KEPT as u64)
        );
        assert!(stats.dropped.iter().all(|d| d.line.is_some()));
        // A second CHAR, VERS substructures and xrefs of CHAR or VERS lines are not
        // compared; a structure left out for another reason is missing from the output.
        let listed_all = stats.dropped_count as usize == stats.dropped.len();
        let uncompared = |d: &Dropped| {
            matches!(
                d.reason,
                DropReason::SecondChar | DropReason::NoVersLine | DropReason::CharXref
            )
        };
        // The CHAR of a 7.0 output's HEAD is left out with its substructures; the
        // compared form already leaves out the CHAR line and its VERS, so what is left
        // is the input's form with the CHAR's other substructures taken out.
        let char7 = |d: &Dropped| d.reason == DropReason::Gedcom7Char;
        if listed_all && stats.dropped.iter().all(uncompared) {
            assert_eq!(after, before);
        } else if listed_all && stats.dropped.iter().all(|d| uncompared(d) || char7(d)) {
            let mut rest = before.iter();
            assert!(
                after.iter().all(|a| rest.any(|b| b == a)),
                "the output is not the input less its CHAR's substructures"
            );
        } else {
            assert!(after.len() <= before.len());
            assert!(after.len() < before.len() || !listed_all);
        }
    }
});
