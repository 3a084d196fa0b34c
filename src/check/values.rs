//! `value.*`: payloads against their grammar.

use super::{Finding, Rule};
use crate::tree::NodeRef;
use crate::value::{Age, Date};
use crate::Severity;

/// `value.date`.
pub(crate) static DATE: Rule = Rule {
    id: "value.date",
    severity: Severity::Error,
    description: "a DATE payload that is not a date (5.5.1/ELF or GEDCOM 7 grammar)",
};

/// `value.age`.
pub(crate) static AGE: Rule = Rule {
    id: "value.age",
    severity: Severity::Error,
    description: "an AGE payload that is not an age (5.5.1/ELF or GEDCOM 7 grammar)",
};

/// The rules of this file.
pub(crate) static RULES: &[&Rule] = &[&DATE, &AGE];

/// Checks the payload of `node` (a standard structure, not under an
/// extension), pushing a finding if it breaks its grammar.
pub(crate) fn check(node: NodeRef<'_>, out: &mut Vec<Finding>) {
    let tag = node.tag();
    if tag != "DATE" && tag != "AGE" {
        return;
    }
    let Some(text) = node.text() else { return };
    let problem = if tag == "DATE" {
        Date::parse(&text)
            .err()
            .map(|e| (&DATE, format!("not a date: {e}")))
    } else {
        Age::parse(&text)
            .err()
            .map(|e| (&AGE, format!("not an age: {e}")))
    };
    if let Some((rule, message)) = problem {
        out.push(Finding::at(rule, node, message));
    }
}
