//! Arbitrary bytes through the editor and the re-serialiser:
//!
//! * the editor with no changes gives back the input octet for octet (when it reads it at
//!   all), and with drops and renames does not panic;
//! * `rewrite` (the `fmt` command) on an input read without error diagnostics succeeds,
//!   and reading its output gives the same structures (apart from the HEAD's CHAR).
#![no_main]

use gedcom_elf::edit::{edit, Action, EditRules};
use gedcom_elf::write::{rewrite, WriterConfig};
use gedcom_elf::{Encoding, Event, Input, Severity, Value};
use libfuzzer_sys::fuzz_target;

/// Rendered structures, without the HEAD's CHAR subtree; `None` when unreadable; the flag
/// says whether an error diagnostic was met.
fn events(bytes: &[u8]) -> Option<(Vec<String>, bool)> {
    let input = Input::new(bytes).ok()?;
    let enc = input.encoding_info().encoding;
    let enc = if enc.is_utf16() { Encoding::Utf8 } else { enc };
    let decode = |b: &[u8]| gedcom_elf::write::decode_xref(b, enc).into_owned();
    let mut reader = input.reader();
    let mut out = Vec::new();
    let mut errors = false;
    let mut in_head = false;
    let mut skip = false;
    loop {
        let e = reader.next_event().ok()?;
        errors |= reader
            .drain_diagnostics()
            .any(|d| d.severity() == Severity::Error);
        let Some(e) = e else { break };
        match e {
            Event::Begin(b) => {
                if b.level == 0 {
                    in_head = b.tag.eq_ignore_ascii_case("HEAD");
                }
                if skip {
                    continue;
                }
                if in_head && b.level == 1 && b.tag.eq_ignore_ascii_case("CHAR") {
                    skip = true;
                    continue;
                }
                let mut s = format!("+{} {}", b.level, b.tag);
                if let Some(x) = &b.xref {
                    s += &format!(" {}", decode(x.as_bytes()));
                }
                match &b.value {
                    Some(Value::Pointer(p)) => s += &format!(" ={}", decode(p.as_bytes())),
                    Some(Value::Text(t)) => s += &format!(" {:?}", t.text()),
                    None => {}
                }
                out.push(s);
            }
            Event::End(e) => {
                if skip {
                    skip = e.level != 1;
                    continue;
                }
                out.push(format!("-{} {}", e.level, e.tag));
            }
        }
    }
    Some((out, errors))
}

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

    if let Some((before, false)) = events(data) {
        let mut formatted = Vec::new();
        rewrite(data, None, WriterConfig::new(), &mut formatted)
            .expect("an input without errors is representable");
        let (after, errors) = events(&formatted).expect("the output reads");
        assert!(!errors, "the output has errors");
        assert_eq!(after, before);
    }
});
