//! Arbitrary bytes through the GEDCOM X import.
//!
//! 1. `import::import` never panics: the bytes are a document (GEDCOM
//!    written, issues given) or an error;
//! 2. the GEDCOM it writes reads back as a tree with no error diagnostic.
#![no_main]

use gedcom_elf::gedcomx::import;
use gedcom_elf::tree::Tree;
use gedcom_elf::Severity;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok((ged, _issues)) = import::import(data, Vec::new()) else {
        return;
    };
    let tree = Tree::from_slice(&ged).expect("the import's GEDCOM reads back");
    assert!(
        tree.diagnostics().iter().all(|d| d.severity() != Severity::Error),
        "{}",
        String::from_utf8_lossy(&ged)
    );
});
