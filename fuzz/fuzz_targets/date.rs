//! Arbitrary text through the `DATE` payload parser.
//!
//! 1. `Date::parse` never panics; an error's offset lies within the input;
//! 2. what parses prints (5.5.1/ELF form) to text that parses to the same
//!    value, and its day span is computed without panicking;
//! 3. its GEDCOM 7 form, when it has one, parses to the same dates less
//!    their historical (dual) years, with the same day span.
#![no_main]

use gedcom_elf::value::{Date, SimpleDate, Year};
use libfuzzer_sys::fuzz_target;

/// The date less its historical (dual) year.
fn logical<'a>(d: &SimpleDate<'a>) -> SimpleDate<'a> {
    SimpleDate {
        year: Year {
            logical: d.year.logical,
            historical: None,
        },
        ..d.clone()
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let date = match Date::parse(&text) {
        Ok(d) => d,
        Err(e) => {
            assert!(e.offset() <= text.len(), "{text:?}: {e}");
            return;
        }
    };
    let printed = date.to_string();
    assert_eq!(Date::parse(&printed).as_ref(), Ok(&date), "{text:?} -> {printed:?}");
    let span = date.jdn_range();
    if let Ok(g7) = date.gedcom7() {
        let back = Date::parse(&g7.payload)
            .unwrap_or_else(|e| panic!("{text:?} -> {:?}: {e}", g7.payload));
        let want: Vec<_> = date.dates().map(logical).collect();
        let got: Vec<_> = back.dates().cloned().collect();
        assert_eq!(got, want, "{text:?} -> {:?}", g7.payload);
        assert_eq!(back.jdn_range(), span, "{text:?}");
    }
});
