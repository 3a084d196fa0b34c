//! Arbitrary text through the `AGE` payload parser.
//!
//! 1. `Age::parse` never panics; an error's offset lies within the input;
//! 2. what parses prints (5.5.1/ELF form) to text that parses to the same
//!    value, and its day span is computed without panicking, its fewest days
//!    not above its most;
//! 3. its GEDCOM 7 form, when it has one, parses: to the same age for a
//!    duration or the empty payload, to an upper bound for `CHILD` and
//!    `INFANT`.
#![no_main]

use gedcom_elf::value::{Age, AgeBound};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let age = match Age::parse(&text) {
        Ok(a) => a,
        Err(e) => {
            assert!(e.offset() <= text.len(), "{text:?}: {e}");
            return;
        }
    };
    let printed = age.to_string();
    assert_eq!(Age::parse(&printed), Ok(age), "{text:?} -> {printed:?}");
    if let Some((min, Some(max))) = age.days_range() {
        assert!(min <= max, "{text:?}");
    }
    if let Ok(g7) = age.gedcom7() {
        let back = Age::parse(&g7.payload)
            .unwrap_or_else(|e| panic!("{text:?} -> {:?}: {e}", g7.payload));
        match age {
            Age::Word(_) => assert!(
                matches!(back, Age::Duration(Some(AgeBound::AtMost), _)),
                "{text:?} -> {:?}",
                g7.payload
            ),
            _ => assert_eq!(back, age, "{text:?} -> {:?}", g7.payload),
        }
    }
});
