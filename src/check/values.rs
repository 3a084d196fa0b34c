//! `value.*`: payloads against their grammar.

use super::{Finding, Rule, Version};
use crate::tree::NodeRef;
use crate::value::{check_enumeration, latitude, longitude, Age, Date, DateError};

rules! {
    /// `value.date`.
    DATE = "value.date", Error, "a DATE payload that is not a date (5.5.1/ELF or GEDCOM 7 grammar)";
    /// `value.age`.
    AGE = "value.age", Error, "an AGE payload that is not an age (5.5.1/ELF or GEDCOM 7 grammar)";
    /// `value.enum`.
    ENUM = "value.enum", Error,
        "a payload outside its enumeration (SEX, PEDI, QUAY, RESN, ADOP, NAME.TYPE, MEDI, ROLE)";
    /// `value.coordinate`.
    COORDINATE = "value.coordinate", Error,
        "a LATI or LONG that is not N/S or E/W and degrees within range";
}

/// Checks the payload of `node` (a standard structure tagged `tag`, not
/// under an extension), pushing a finding if it breaks its grammar.
pub(crate) fn check(node: NodeRef<'_>, tag: &str, version: Version, out: &mut Vec<Finding>) {
    let rule = match tag {
        "DATE" => &DATE,
        "AGE" => &AGE,
        "LATI" | "LONG" => &COORDINATE,
        "SEX" | "PEDI" | "QUAY" | "RESN" | "ADOP" | "TYPE" | "MEDI" | "ROLE" => &ENUM,
        _ => return,
    };
    let Some(text) = node.text() else { return };
    let problem = match tag {
        "DATE" => {
            if let Err(e) = Date::parse(&text) {
                not_a_date(node, &e, out);
            }
            None
        }
        "AGE" => Age::parse(&text).err().map(|e| format!("not an age: {e}")),
        "LATI" => latitude(&text)
            .err()
            .map(|e| format!("not a latitude: {e}")),
        "LONG" => longitude(&text)
            .err()
            .map(|e| format!("not a longitude: {e}")),
        _ => {
            let parent = node.parent().map(|p| p.tag());
            let gedcom7 = version == Version::Gedcom7;
            match check_enumeration(tag, parent, gedcom7, &text) {
                Some(Err(e)) => Some(format!("not a {tag} value: {e}")),
                _ => None,
            }
        }
    };
    if let Some(message) = problem {
        out.push(Finding::at(rule, node, message));
    }
}

/// The finding of a DATE payload that did not parse.
pub(crate) fn not_a_date(node: NodeRef<'_>, e: &DateError, out: &mut Vec<Finding>) {
    out.push(Finding::at(&DATE, node, format!("not a date: {e}")));
}
