//! Arbitrary text through the `NAME`, `PLAC`, `LATI`/`LONG` and enumerated
//! payload parsers.
//!
//! 1. no parser panics; an error's offset lies within the input;
//! 2. a name (read leniently) prints to text that reads back to the same
//!    name, strictly too when it was well formed;
//! 3. a place prints to text with the same jurisdictions;
//! 4. a coordinate prints to text that reads back to the same degrees;
//! 5. an enumerated value prints (7.0 and 5.5.1 spellings) to text that
//!    parses to the same value, and the strict check never panics.
#![no_main]

use gedcom_elf::value::{
    check_enumeration, coordinate, format_coordinate, Axis, Name, Pedigree, Place, Restriction,
    Role, Sex,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    let (name, err) = Name::parse_lenient(&text);
    if let Some(e) = &err {
        assert!(e.offset() <= text.len(), "{text:?}: {e}");
    }
    let printed = name.to_string();
    assert_eq!(Name::parse_lenient(&printed).0, name, "{text:?} -> {printed:?}");
    if err.is_none() {
        assert_eq!(Name::parse(&printed), Ok(name.clone()), "{text:?} -> {printed:?}");
    }

    let place = Place::parse(&text);
    let printed = place.to_string();
    let again = Place::parse(&printed);
    assert!(again.jurisdictions().eq(place.jurisdictions()), "{text:?} -> {printed:?}");

    for axis in [Axis::Latitude, Axis::Longitude] {
        match coordinate(axis, &text) {
            Ok(v) => {
                let printed = format_coordinate(axis, v).expect("in range");
                assert_eq!(coordinate(axis, &printed), Ok(v), "{text:?} -> {printed:?}");
            }
            Err(e) => assert!(e.offset() <= text.len(), "{text:?}: {e}"),
        }
    }

    if let Ok(s) = Sex::parse(&text) {
        assert_eq!(Sex::parse(s.as_str()), Ok(s));
    }
    if let Ok(p) = Pedigree::parse(&text) {
        assert_eq!(Pedigree::parse(p.as_str()), Ok(p));
        if let Some(old) = p.gedcom551() {
            assert_eq!(Pedigree::parse(old), Ok(p));
        }
    }
    if let Ok(r) = Role::parse(&text) {
        assert_eq!(Role::parse(r.as_str()), Ok(r));
    }
    match Restriction::parse_list(&text) {
        Ok(list) => {
            let printed: Vec<_> = list.iter().map(|r| r.as_str()).collect();
            assert_eq!(Restriction::parse_list(&printed.join(", ")), Ok(list));
        }
        Err(e) => assert!(e.offset() <= text.len(), "{text:?}: {e}"),
    }
    for (tag, parent) in [("SEX", None), ("RESN", None), ("ROLE", Some("EVEN")), ("MEDI", Some("FORM"))] {
        for g7 in [false, true] {
            if let Some(Err(e)) = check_enumeration(tag, parent, g7, &text) {
                assert!(e.offset() <= text.len(), "{text:?}: {e}");
            }
        }
    }
});
