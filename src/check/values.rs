//! `value.*`: payloads against their grammar.

use super::{Rule, Version};
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

/// Whether the value rules judge the payloads of structures tagged `tag`.
pub(crate) fn judged(tag: &str) -> bool {
    matches!(
        tag,
        "DATE"
            | "AGE"
            | "LATI"
            | "LONG"
            | "SEX"
            | "PEDI"
            | "QUAY"
            | "RESN"
            | "ADOP"
            | "TYPE"
            | "MEDI"
            | "ROLE"
    )
}

/// What is wrong with `text`, the payload of a standard structure tagged
/// `tag` (not under an extension) under one tagged `parent`, if it breaks
/// its grammar: the rule and the message.
pub(crate) fn problem(
    tag: &str,
    parent: Option<&str>,
    version: Version,
    text: &str,
) -> Option<(&'static Rule, String)> {
    match tag {
        "DATE" => Date::parse(text).err().map(|e| not_a_date(&e)),
        "AGE" => Age::parse(text)
            .err()
            .map(|e| (&AGE, format!("not an age: {e}"))),
        "LATI" => latitude(text)
            .err()
            .map(|e| (&COORDINATE, format!("not a latitude: {e}"))),
        "LONG" => longitude(text)
            .err()
            .map(|e| (&COORDINATE, format!("not a longitude: {e}"))),
        "SEX" | "PEDI" | "QUAY" | "RESN" | "ADOP" | "TYPE" | "MEDI" | "ROLE" => {
            let gedcom7 = version == Version::Gedcom7;
            match check_enumeration(tag, parent, gedcom7, text) {
                Some(Err(e)) => Some((&ENUM, format!("not a {tag} value: {e}"))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The rule and message of a DATE payload that did not parse.
pub(crate) fn not_a_date(e: &DateError) -> (&'static Rule, String) {
    (&DATE, format!("not a date: {e}"))
}
