//! `read.*`: the reader's diagnostics, a rule per kind.

use std::sync::OnceLock;

use super::{Finding, Rule};
use crate::{Diagnostic, DiagnosticKind};

/// What a diagnostic of `kind` means, in one line.
fn description(kind: DiagnosticKind) -> &'static str {
    use DiagnosticKind as K;
    match kind {
        K::UnparsableLine => {
            "a line that is not `level [xref] tag [payload]` (it became an ERROR structure)"
        }
        K::TooDeep => "a line more than one level deeper than the line before it",
        K::ErrorTag => "an ERROR tag written in the input",
        K::StrayContinuation => "a CONT or CONC line with no payload to continue",
        K::MissingTrlr => "the input ends without a TRLR record",
        K::ContinuationXref => "a CONT or CONC line with an xref_id",
        K::AfterTrlr => "lines after the TRLR record",
        K::InvalidUnicodeEscape => "a malformed @#U...@ escape",
        K::InvalidEncoding => "bytes that are not valid in the document's encoding",
        K::Cesu8 => "UTF-8 with surrogate pairs encoded as two 3-byte sequences (CESU-8)",
        K::NulByte => "a NUL byte",
        K::UnmappedByte => "a byte the encoding does not map",
        K::Encoding => "the character encoding is undeclared, contradicted or guessed",
        K::UnresolvedPointer => "a pointer to no record",
        K::DuplicateXref => "an xref_id used by more than one record",
        K::Schema => "a malformed SCHMA (schema) structure in the HEAD",
        K::ConcInGedcom7 => "a CONC line in a GEDCOM 7 document (kept as a structure, not joined)",
        K::Gedcom7Line => {
            "a GEDCOM 7 line with whitespace before the level, a delimiter other than one space or a lowercase tag, or a blank line in a GEDCOM 7 document"
        }
    }
}

/// A rule per diagnostic kind, in the order of [`DiagnosticKind::ALL`],
/// with the kind's severity and `read.` before its id.
pub(crate) fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        DiagnosticKind::ALL
            .iter()
            .map(|&k| Rule {
                // Made once per process, for as long as it runs.
                id: Box::leak(format!("read.{}", k.id()).into_boxed_str()),
                severity: k.severity(),
                description: description(k),
            })
            .collect()
    })
}

/// The finding of a diagnostic: its rule's, at its line.
pub(crate) fn finding(d: &Diagnostic) -> Finding {
    Finding {
        rule: &rules()[d.kind.index()],
        line: d.position.line,
        record: None,
        path: String::new(),
        message: d.message.clone(),
        text: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_per_kind_with_its_severity() {
        for (&k, r) in DiagnosticKind::ALL.iter().zip(rules()) {
            assert_eq!(r.id, format!("read.{}", k.id()));
            assert_eq!(r.severity, k.severity());
            assert!(!r.description.is_empty());
        }
    }
}
