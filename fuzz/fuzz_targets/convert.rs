//! Arbitrary bytes through the GEDCOM 5.5.1 <-> 7.0 conversion, both ways:
//! it never panics; when it succeeds, its output reads back in the target
//! version, and converting that output to the same version again changes
//! nothing (a document already in the target version is written as it is);
//! everything it reports not carried has a path.
#![no_main]

use gedcom_elf::convert::{convert, ConvertConfig};
use gedcom_elf::{Input, Version};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for to in [Version::Gedcom7, Version::Gedcom551] {
        let mut out = Vec::new();
        let Ok(report) = convert(data, &ConvertConfig::new(to), &mut out) else {
            continue;
        };
        assert_eq!(report.to, to);
        assert!(report.not_carried.entries().all(|e| !e.path.is_empty()));
        let input = Input::new(&out).expect("the output reads");
        let mut reader = input.reader();
        while let Ok(Some(_)) = reader.next_event() {}
        assert_eq!(reader.version(), to, "the output is in the target version");
        let mut again = Vec::new();
        if convert(&out, &ConvertConfig::new(to), &mut again).is_ok() {
            assert_eq!(again, out, "converting to the same version changes nothing");
        }
    }
});
