//! Arbitrary text through the GEDCOM X formal date conversions.
//!
//! 1. read as a `DATE` payload, what parses converts to a formal date (or a
//!    reason) without panicking; the formal text parses to the same value,
//!    and read back as a `DATE` spans the same Julian day numbers;
//! 2. read as a formal date, `GedcomxDate::parse` never panics and an
//!    error's offset lies within the input; what parses prints to text that
//!    parses to the same value, and its `DATE` prints to a payload that
//!    parses to the same `DATE` and converts again.
#![no_main]

use gedcom_elf::value::{Date, GedcomxDate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(date) = Date::parse(&text) {
        if let Ok(gx) = date.gedcomx() {
            let formal = gx.to_string();
            let back = GedcomxDate::parse(&formal)
                .unwrap_or_else(|e| panic!("{text:?} -> {formal:?}: {e}"));
            assert_eq!(back, gx, "{text:?} -> {formal:?}");
            assert_eq!(back.to_date().jdn_range(), date.jdn_range(), "{text:?}");
        }
    }
    match GedcomxDate::parse(&text) {
        Ok(gx) => {
            let printed = gx.to_string();
            assert_eq!(GedcomxDate::parse(&printed).as_ref(), Ok(&gx), "{text:?}");
            let date = gx.to_date();
            let payload = date.to_string();
            assert_eq!(
                Date::parse(&payload).as_ref(),
                Ok(&date),
                "{text:?} -> {payload:?}"
            );
            assert!(date.gedcomx().is_ok(), "{text:?} -> {payload:?}");
        }
        Err(e) => assert!(e.offset() <= text.len(), "{text:?}: {e}"),
    }
});
