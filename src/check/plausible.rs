//! `plausible.*`: dates that cannot all be true.
//!
//! A date is the span of Julian day numbers it can mean
//! ([`Date::jdn_range`](crate::value::Date::jdn_range)): a rule fires only when every day of the spans
//! breaks it, so a vague date (`BEF 1900`, `1850`) fires less often than an
//! exact one, and never wrongly.

use super::{tag_key, Finding, Rule, Thresholds};
use crate::value::Age;

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

/// Whether `tag` is one of [`LIFE_EVENTS`].
pub(crate) fn life_event(tag: &str) -> bool {
    tag_key(tag.as_bytes()).is_some_and(|k| LIFE_KEYS.binary_search(&k).is_ok())
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

/// A record's substructure (an event, say) as the plausibility rules see
/// it: its tag ([`dated_tag`]) and its first `DATE`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dated {
    pub(crate) tag: &'static str,
    pub(crate) date: Option<DateFact>,
}

/// A `DATE`: the span of days it can mean (`None`: not a date with one)
/// and its line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DateFact {
    pub(crate) span: Option<(i64, i64)>,
    pub(crate) line: u64,
}

/// The tag of a record's substructure whose date these rules read
/// (`BIRT`, `DEAT`, `BURI`, `CREM`, `MARR` and [`LIFE_EVENTS`]), as a
/// `'static` string; `None` for any other.
pub(crate) fn dated_tag(tag: &str) -> Option<&'static str> {
    const ENDS: [&str; 5] = ["BIRT", "DEAT", "BURI", "CREM", "MARR"];
    if let Some(t) = ENDS.iter().find(|&&t| t == tag) {
        return Some(t);
    }
    let k = tag_key(tag.as_bytes())?;
    LIFE_KEYS.binary_search(&k).ok().map(|i| LIFE_EVENTS[i])
}

/// A finding about the `DATE` of `event`, in a record tagged `record`;
/// its text is the caller's to fill in (the `DATE`'s payload).
fn at_date(
    rule: &'static Rule,
    (record, event): (&str, &str),
    date: &DateFact,
    message: String,
) -> Finding {
    Finding {
        rule,
        line: date.line,
        record: None,
        path: format!("{record}.{event}.DATE"),
        message,
        text: None,
    }
}

/// How the messages of [`DEATH_BEFORE_BIRTH`] and [`AFTER_DEATH`] end:
/// the line of the date they compare with.
fn line_reference(line: u64) -> String {
    format!("(line {line})")
}

/// Adds `by` to the line a finding's message ends with, if its rule's
/// messages end with a [`line_reference`] (see
/// [`Inspection::shift_lines`](super::Inspection)).
pub(super) fn shift_line_reference(f: &mut Finding, by: u64) {
    if f.rule != &DEATH_BEFORE_BIRTH && f.rule != &AFTER_DEATH {
        return;
    }
    let Some(open) = f.message.rfind("(line ") else {
        return;
    };
    let digits = f.message.get(open + 6..f.message.len().saturating_sub(1));
    if let Some(line) = digits.and_then(|d| d.parse::<u64>().ok()) {
        if line != 0 {
            f.message.truncate(open);
            f.message.push_str(&line_reference(line.saturating_add(by)));
        }
    }
}

/// Judges one individual record (tagged `record`) by the dates of its
/// substructures `events`, in order; gives its birth's span.
pub(crate) fn person(
    record: &str,
    events: &[Dated],
    limits: &Thresholds,
    out: &mut Vec<Finding>,
) -> Option<(i64, i64)> {
    // The first BIRT, DEAT, BURI and CREM with a date that has a span,
    // in one pass over the events.
    let mut firsts: [Option<((i64, i64), &Dated)>; 4] = [None; 4];
    for e in events {
        let i = match e.tag {
            "BIRT" => 0,
            "DEAT" => 1,
            "BURI" => 2,
            "CREM" => 3,
            _ => continue,
        };
        if firsts[i].is_none() {
            firsts[i] = e.date.and_then(|d| Some((d.span?, e)));
        }
    }
    fn date(e: &Dated) -> DateFact {
        e.date.unwrap_or(DateFact {
            span: None,
            line: 0,
        })
    }
    let [birth, death, buri, crem] = firsts;
    let buried = buri.or(crem);
    if let (Some((b, born)), Some((d, died))) = (birth, death) {
        if d.1 < b.0 {
            out.push(at_date(
                &DEATH_BEFORE_BIRTH,
                (record, died.tag),
                &date(died),
                format!(
                    "death dated before the birth {}",
                    line_reference(date(born).line)
                ),
            ));
        } else {
            let (least, _) = age_range(b, d);
            if least > limits.max_age {
                out.push(at_date(
                    &TOO_OLD,
                    (record, died.tag),
                    &date(died),
                    format!("died at {} or older", years(least * YEAR)),
                ));
            }
        }
    }
    let end = [death, buried]
        .into_iter()
        .flatten()
        .min_by_key(|(s, _)| s.1);
    let mut oldest: Option<(f64, &Dated)> = None;
    for event in events {
        if !life_event(event.tag) {
            continue;
        }
        let Some(d) = event.date else { continue };
        let Some(s) = d.span else { continue };
        if let Some((e, ended)) = end {
            if s.0 > e.1 {
                let what = if ended.tag == "DEAT" {
                    "death"
                } else {
                    "burial"
                };
                out.push(at_date(
                    &AFTER_DEATH,
                    (record, event.tag),
                    &d,
                    format!(
                        "{} dated after the {what} {}",
                        event.tag,
                        line_reference(date(ended).line)
                    ),
                ));
                continue;
            }
        }
        if let Some((b, _)) = birth {
            let (least, _) = age_range(b, s);
            if least > limits.max_age && oldest.is_none_or(|(o, _)| least > o) {
                oldest = Some((least, event));
            }
        }
    }
    if death.is_none() {
        if let Some((least, event)) = oldest {
            out.push(at_date(
                &TOO_OLD,
                (record, event.tag),
                &date(event),
                format!(
                    "{} at the age of {} or more",
                    event.tag,
                    years(least * YEAR)
                ),
            ));
        }
    }
    birth.map(|b| b.0)
}

/// The first `MARR` of `events` with a date that has a span: its index in
/// `events` and the span.
pub(crate) fn marriage(events: &[Dated]) -> Option<(usize, (i64, i64))> {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == "MARR")
        .find_map(|(i, e)| Some((i, e.date?.span?)))
}

/// What is wrong with an `AGE` payload `text` by the greatest age, if
/// anything.
pub(crate) fn age(text: &str, limits: &Thresholds) -> Option<(&'static Rule, String)> {
    let (least, _) = Age::parse(text).ok().and_then(|a| a.days_range())?;
    (least as f64 > limits.max_age * YEAR).then(|| {
        (
            &TOO_OLD,
            format!("an age of {} years or more", years(least as f64)),
        )
    })
}
