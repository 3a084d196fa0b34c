//! `plausible.*`: dates that cannot all be true.
//!
//! A date is the span of Julian day numbers it can mean
//! ([`Date::jdn_range`]): a rule fires only when every day of the spans
//! breaks it, so a vague date (`BEF 1900`, `1850`) fires less often than an
//! exact one, and never wrongly.

use super::{tag_key, Finding, Rule, Thresholds};
use crate::tree::NodeRef;
use crate::value::{Age, Date};

/// Days in a mean Gregorian year.
pub(crate) const YEAR: f64 = 365.2425;

rules! {
    /// `plausible.death-before-birth`.
    DEATH_BEFORE_BIRTH = "plausible.death-before-birth", Warning, "a death dated before the birth";
    /// `plausible.after-death`.
    AFTER_DEATH = "plausible.after-death", Warning,
        "an event dated after the person's death or burial (burial, probate and posthumous LDS ordinances excepted)";
    /// `plausible.too-old`.
    TOO_OLD = "plausible.too-old", Warning,
        "a person older than --max-age (120) at death, at a dated event or in an AGE payload";
    /// `plausible.parent-too-young`.
    PARENT_TOO_YOUNG = "plausible.parent-too-young", Warning,
        "a parent younger than --min-parent-age (12) at a child's birth (PEDI adopted or foster exempts)";
    /// `plausible.parent-too-old`.
    PARENT_TOO_OLD = "plausible.parent-too-old", Warning,
        "a father (HUSB) older than --max-parent-age (70) at a child's birth (PEDI adopted or foster exempts)";
    /// `plausible.mother-too-old`.
    MOTHER_TOO_OLD = "plausible.mother-too-old", Warning,
        "a mother (WIFE) older than --max-mother-age (55) at a child's birth (PEDI adopted or foster exempts)";
    /// `plausible.married-too-young`.
    MARRIED_TOO_YOUNG = "plausible.married-too-young", Warning,
        "a spouse younger than --min-marriage-age (12) at the family's marriage";
}

/// [`LIFE_EVENTS`] as [`tag_key`]s.
const LIFE_KEYS: [u64; LIFE_EVENTS.len()] = {
    let mut keys = [0u64; LIFE_EVENTS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = tag_key(LIFE_EVENTS[i].as_bytes()).unwrap();
        i += 1;
    }
    keys
};

/// Individual events and attributes whose date says the person was alive.
const LIFE_EVENTS: [&str; 31] = [
    "ADOP", "BAPM", "BARM", "BASM", "BLES", "CAST", "CENS", "CHR", "CHRA", "CONF", "DSCR", "EDUC",
    "EMIG", "EVEN", "FACT", "FCOM", "GRAD", "IDNO", "IMMI", "NATI", "NATU", "NCHI", "NMR", "OCCU",
    "ORDN", "PROP", "RELI", "RESI", "RETI", "SSN", "TITL",
];

/// The span of days a DATE node can mean, if it is a date with one.
pub(crate) fn span(date: NodeRef<'_>) -> Option<(i64, i64)> {
    let text = date.text()?;
    Date::parse(&text).ok()?.jdn_range()
}

/// Whole years from `days` (rounded toward zero), for messages.
fn years(days: f64) -> i64 {
    (days / YEAR) as i64
}

/// The fewest and most years between two spans: from `a` to `b`.
pub(crate) fn age_range(a: (i64, i64), b: (i64, i64)) -> (f64, f64) {
    let least = b.0.saturating_sub(a.1) as f64 / YEAR;
    let most = b.1.saturating_sub(a.0) as f64 / YEAR;
    (least, most)
}

/// Judges one individual record by its own dates; gives its birth's span.
/// `span_of` gives a DATE node's span (as [`span`] does, or from what was
/// worked out before).
pub(crate) fn person<'t>(
    record: NodeRef<'t>,
    limits: &Thresholds,
    span_of: impl Fn(NodeRef<'t>) -> Option<(i64, i64)>,
    out: &mut Vec<Finding>,
) -> Option<(i64, i64)> {
    // The first BIRT, DEAT, BURI and CREM with a date that has a span,
    // in one pass over the events.
    let mut firsts: [Option<((i64, i64), NodeRef<'t>)>; 4] = [None; 4];
    for e in record.children() {
        let i = match e.tag() {
            "BIRT" => 0,
            "DEAT" => 1,
            "BURI" => 2,
            "CREM" => 3,
            _ => continue,
        };
        if firsts[i].is_none() {
            firsts[i] = e.child("DATE").and_then(|d| Some((span_of(d)?, d)));
        }
    }
    let [birth, death, buri, crem] = firsts;
    let buried = buri.or(crem);
    if let (Some((b, _)), Some((d, node))) = (birth, death) {
        if d.1 < b.0 {
            out.push(Finding::at(
                &DEATH_BEFORE_BIRTH,
                node,
                format!(
                    "death dated before the birth (line {})",
                    birth.map_or(0, |b| b.1.line())
                ),
            ));
        } else {
            let (least, _) = age_range(b, d);
            if least > limits.max_age {
                out.push(Finding::at(
                    &TOO_OLD,
                    node,
                    format!("died at {} or older", years(least * YEAR)),
                ));
            }
        }
    }
    let end = [death, buried]
        .into_iter()
        .flatten()
        .min_by_key(|(s, _)| s.1);
    let mut oldest: Option<(f64, NodeRef<'_>)> = None;
    for event in record.children() {
        if !tag_key(event.tag().as_bytes()).is_some_and(|k| LIFE_KEYS.contains(&k)) {
            continue;
        }
        let Some(date) = event.child("DATE") else {
            continue;
        };
        let Some(s) = span_of(date) else { continue };
        if let Some((e, node)) = end {
            if s.0 > e.1 {
                let what = if node.parent().is_some_and(|p| p.tag() == "DEAT") {
                    "death"
                } else {
                    "burial"
                };
                out.push(Finding::at(
                    &AFTER_DEATH,
                    date,
                    format!(
                        "{} dated after the {what} (line {})",
                        event.tag(),
                        node.line()
                    ),
                ));
                continue;
            }
        }
        if let Some((b, _)) = birth {
            let (least, _) = age_range(b, s);
            if least > limits.max_age && oldest.is_none_or(|(o, _)| least > o) {
                oldest = Some((least, date));
            }
        }
    }
    if death.is_none() {
        if let Some((least, node)) = oldest {
            let tag = node.parent().map_or("", |p| p.tag());
            out.push(Finding::at(
                &TOO_OLD,
                node,
                format!("{} at the age of {} or more", tag, years(least * YEAR)),
            ));
        }
    }
    birth.map(|b| b.0)
}

/// Judges an `AGE` payload against the greatest age.
pub(crate) fn age(node: NodeRef<'_>, limits: &Thresholds, out: &mut Vec<Finding>) {
    let Some(text) = node.text() else { return };
    let Some((least, _)) = Age::parse(&text).ok().and_then(|a| a.days_range()) else {
        return;
    };
    if least as f64 > limits.max_age * YEAR {
        out.push(Finding::at(
            &TOO_OLD,
            node,
            format!("an age of {} years or more", years(least as f64)),
        ));
    }
}
