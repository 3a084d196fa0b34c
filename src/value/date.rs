//! `DATE` payloads: GEDCOM 5.5.1 as the FHISO ELF *Date, Age and Time
//! Microformats* draft clarifies it, and GEDCOM 7, in one typed [`Date`].
//!
//! One parser reads both grammars:
//!
//! - **calendars** as 5.5.1 escapes (`@#DGREGORIAN@`, `@#DJULIAN@`,
//!   `@#DHEBREW@`, `@#DFRENCH R@`, `@#DUNKNOWN@`) and as GEDCOM 7 words
//!   (`GREGORIAN`, `JULIAN`, `HEBREW`, `FRENCH_R`, extension tags `_X`); any
//!   other escape (`@#DROMAN@`, `@#DISLAMIC@`) is a calendar this crate does
//!   not know, kept as [`Calendar::Other`] with its month and epoch as
//!   written, because ELF says dates in unknown calendars must not be
//!   discarded and must be assumed well-formed;
//! - **dates** `[calendar] [[day] month] year [epoch]`, with the months of
//!   each calendar, dual years (`1648/49`, `1648/9`, `1648/1649`: Gregorian
//!   as 5.5.1 allows and Julian as ELF allows; the second integer is read
//!   as abbreviated exactly when ELF's abbreviation rule could have made
//!   it), and the epochs `B.C.` (5.5.1; ELF's deprecated `BC` too) and `BCE`
//!   (GEDCOM 7) in the Gregorian and Julian calendars, `A.D.` (and `A.M.`
//!   for Hebrew) as the default epoch that it is;
//! - **modifiers**: periods `FROM x`, `TO x`, `FROM x TO y`; ranges `BEF x`,
//!   `AFT x`, `BET x AND y` (the first not after the second, which ELF
//!   requires); approximations `ABT`, `CAL`, `EST`; interpreted dates
//!   `INT x (phrase)` and phrases alone `(phrase)` (5.5.1/ELF); the empty
//!   payload (GEDCOM 7).
//!
//! What is lenient, as ELF's conventions allow a reader to accept input it
//! would not write: any run of spaces and tabs where the grammar has one
//! space, leading and trailing white space, and keywords, calendar words and
//! escapes, month names and epochs in any ASCII case. A date with no calendar
//! that is not well-formed in the Gregorian calendar (`29 FEB 1900`, `12
//! AUGUST 2000`, a zero year) but matches the generic date syntax becomes
//! [`Calendar::NotGregorian`], ELF's inferred `@#DUNKNOWN@`, with its parts
//! as written. Everything else that does not match is a [`DateError`] with
//! its [`DateErrorKind`], the byte offset where it went wrong and what was
//! expected there. A GEDCOM 7 `PHRASE` substructure is not part of the
//! payload and so not of this value.
//!
//! ```
//! use gedcom_elf::value::{Calendar, Date, DateErrorKind, Month};
//!
//! let d = Date::parse("ABT @#DHEBREW@ 1 TSH 5760")?;
//! let Date::Approximate(_, date) = &d else { unreachable!() };
//! assert_eq!(date.calendar, Calendar::Hebrew);
//! assert_eq!(date.month, Some(Month::Known(1)));
//! assert_eq!(d.jdn_range(), Some((2_451_433, 2_451_433)));
//!
//! let err = Date::parse("BET 1900 1901").unwrap_err();
//! assert_eq!(err.kind(), DateErrorKind::Syntax);
//! assert_eq!(err.offset(), 9);
//! assert_eq!(err.to_string(), "byte 9: expected `AND`");
//! # Ok::<(), gedcom_elf::value::DateError>(())
//! ```

use std::borrow::Cow;

use super::calendar::{
    french_jdn, french_month_days, gregorian_leap, hebrew_jdn, hebrew_month_days, julian_leap,
    solar_jdn, solar_month_days, FRENCH_LAST_YEAR, FRENCH_MONTHS, GREGORIAN_MONTHS, HEBREW_MONTHS,
};

/// A calendar.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Calendar<'a> {
    /// `@#DGREGORIAN@`, `GREGORIAN`, or no calendar on a date that is
    /// well-formed in it.
    Gregorian,
    /// `@#DJULIAN@`, `JULIAN`.
    Julian,
    /// `@#DHEBREW@`, `HEBREW`.
    Hebrew,
    /// `@#DFRENCH R@`, `FRENCH_R`.
    FrenchRepublican,
    /// `@#DUNKNOWN@`: ELF's permanently reserved unknown calendar.
    Unknown,
    /// No calendar, on a date that is not well-formed in the Gregorian
    /// calendar: ELF treats it as `@#DUNKNOWN@` (and must not discard it).
    /// Its month and epoch are kept as written.
    NotGregorian,
    /// A calendar this crate does not know: the name inside a 5.5.1 escape
    /// (`ROMAN` for `@#DROMAN@`), or a GEDCOM 7 extension tag (`_ISLAMIC`).
    Other(Cow<'a, str>),
}

impl Calendar<'_> {
    /// Whether this is one of the four calendars this crate computes with.
    pub fn is_known(&self) -> bool {
        matches!(
            self,
            Calendar::Gregorian | Calendar::Julian | Calendar::Hebrew | Calendar::FrenchRepublican
        )
    }

    /// The month names of a known calendar, in order; empty for the others.
    pub fn month_names(&self) -> &'static [&'static str] {
        match self {
            Calendar::Gregorian | Calendar::Julian => &GREGORIAN_MONTHS,
            Calendar::Hebrew => &HEBREW_MONTHS,
            Calendar::FrenchRepublican => &FRENCH_MONTHS,
            _ => &[],
        }
    }

    /// The same calendar, owning its name.
    pub fn into_owned(self) -> Calendar<'static> {
        match self {
            Calendar::Gregorian => Calendar::Gregorian,
            Calendar::Julian => Calendar::Julian,
            Calendar::Hebrew => Calendar::Hebrew,
            Calendar::FrenchRepublican => Calendar::FrenchRepublican,
            Calendar::Unknown => Calendar::Unknown,
            Calendar::NotGregorian => Calendar::NotGregorian,
            Calendar::Other(name) => Calendar::Other(Cow::Owned(name.into_owned())),
        }
    }
}

/// A month: its number in a known calendar, or its name in another.
///
/// Adar of a common Hebrew year is `ADR` (number 6), as ELF writes it; `ADS`
/// (7), which GEDCOM 7 recommends for it, is read as 6 in a common year, and
/// [`Date::gedcom7`] writes it back as `ADS`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Month<'a> {
    /// The month's number (from 1) in [`Calendar::month_names`].
    Known(u8),
    /// The month as written, in a calendar that is not known.
    Other(Cow<'a, str>),
}

/// A calendar year: the logical year (years counted from 1 January, as
/// today), and for a dual year the historical one written first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Year {
    /// The logical year: `1649` in `30 JAN 1648/49`.
    pub logical: i32,
    /// The historical year of a dual year: `1648` in `30 JAN 1648/49`.
    pub historical: Option<i32>,
}

/// An epoch name other than the calendar's default.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Epoch<'a> {
    /// Before Christ: `B.C.` (5.5.1, ELF; also the deprecated `BC`) or `BCE`
    /// (GEDCOM 7), in the Gregorian and Julian calendars.
    BeforeChrist,
    /// An epoch as written, in a calendar that is not known.
    Other(Cow<'a, str>),
}

/// One date: `[calendar] [[day] month] year [epoch]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SimpleDate<'a> {
    /// The calendar.
    pub calendar: Calendar<'a>,
    /// The day of the month, when given.
    pub day: Option<u32>,
    /// The month, when given.
    pub month: Option<Month<'a>>,
    /// The year.
    pub year: Year,
    /// The epoch, unless the calendar's default.
    pub epoch: Option<Epoch<'a>>,
}

/// The approximation of [`Date::Approximate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Approximation {
    /// `ABT`: about.
    About,
    /// `CAL`: calculated from other data.
    Calculated,
    /// `EST`: estimated.
    Estimated,
}

impl Approximation {
    /// The keyword: `ABT`, `CAL` or `EST`.
    pub fn keyword(self) -> &'static str {
        match self {
            Approximation::About => "ABT",
            Approximation::Calculated => "CAL",
            Approximation::Estimated => "EST",
        }
    }
}

/// A `DATE` payload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Date<'a> {
    /// The empty payload (GEDCOM 7; the meaning may be in a `PHRASE`).
    Empty,
    /// A date alone.
    Exact(SimpleDate<'a>),
    /// `FROM x`: a period beginning on x.
    From(SimpleDate<'a>),
    /// `TO x`: a period ending on x.
    To(SimpleDate<'a>),
    /// `FROM x TO y`.
    FromTo(SimpleDate<'a>, SimpleDate<'a>),
    /// `BEF x`: on or before x.
    Before(SimpleDate<'a>),
    /// `AFT x`: on or after x.
    After(SimpleDate<'a>),
    /// `BET x AND y`: on or after x and on or before y.
    Between(SimpleDate<'a>, SimpleDate<'a>),
    /// `ABT x`, `CAL x`, `EST x`.
    Approximate(Approximation, SimpleDate<'a>),
    /// `INT x (phrase)`: a date phrase with its interpretation.
    Interpreted(SimpleDate<'a>, Cow<'a, str>),
    /// `(phrase)`: a date phrase alone.
    Phrase(Cow<'a, str>),
}

/// What kind of problem a [`DateError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateErrorKind {
    /// A word or character that the grammar does not allow there.
    Syntax,
    /// The payload ended where more was required.
    End,
    /// A malformed calendar escape (`@#D…@`).
    Calendar,
    /// A month that is not one of the calendar's.
    Month,
    /// A day that is zero, too large for its month, or given without a month.
    Day,
    /// A year that is zero or negative in a calendar that forbids it, or
    /// does not fit in 32 bits.
    Year,
    /// A dual year in a calendar that does not allow one.
    DualYear,
    /// An epoch that the calendar does not have.
    Epoch,
    /// A date phrase that is not closed, or holds a parenthesis or line break.
    Phrase,
    /// `BET x AND y` with x later than y.
    Order,
}

payload_error!(
    /// Why a payload is not a date: the kind, the byte offset in the payload
    /// and what was expected there.
    DateError,
    DateErrorKind
);

impl<'a> Date<'a> {
    /// The dates in the payload: none, one or two.
    pub fn dates(&self) -> impl Iterator<Item = &SimpleDate<'a>> {
        let (a, b) = match self {
            Date::Empty | Date::Phrase(_) => (None, None),
            Date::Exact(d)
            | Date::From(d)
            | Date::To(d)
            | Date::Before(d)
            | Date::After(d)
            | Date::Approximate(_, d)
            | Date::Interpreted(d, _) => (Some(d), None),
            Date::FromTo(x, y) | Date::Between(x, y) => (Some(x), Some(y)),
        };
        a.into_iter().chain(b)
    }

    /// The date phrase, if any.
    pub fn phrase(&self) -> Option<&str> {
        match self {
            Date::Interpreted(_, p) | Date::Phrase(p) => Some(p),
            _ => None,
        }
    }

    /// The first and last Julian day numbers the payload can mean, for
    /// sorting and comparing: a year or month is its whole span; `BEF x`
    /// runs from `i64::MIN`, `AFT x` to `i64::MAX` (and `FROM x`, `TO x`
    /// likewise); an approximation or interpretation is its date's span.
    /// `None` for the empty payload, a phrase alone, and a date in a calendar
    /// that this crate does not compute with (or a French Republican year
    /// after XVIII, whose leap years ELF leaves undefined).
    ///
    /// ```
    /// use gedcom_elf::value::Date;
    ///
    /// assert_eq!(Date::parse("1 JAN 2000")?.jdn_range(), Some((2_451_545, 2_451_545)));
    /// assert_eq!(Date::parse("FEB 1900")?.jdn_range(), Some((2_415_052, 2_415_079)));
    /// assert_eq!(Date::parse("BEF 2000")?.jdn_range(), Some((i64::MIN, 2_451_910)));
    /// # Ok::<(), gedcom_elf::value::DateError>(())
    /// ```
    pub fn jdn_range(&self) -> Option<(i64, i64)> {
        match self {
            Date::Empty | Date::Phrase(_) => None,
            Date::Exact(d) | Date::Approximate(_, d) | Date::Interpreted(d, _) => d.jdn_range(),
            Date::From(d) | Date::After(d) => Some((d.jdn_range()?.0, i64::MAX)),
            Date::To(d) | Date::Before(d) => Some((i64::MIN, d.jdn_range()?.1)),
            Date::FromTo(a, b) | Date::Between(a, b) => Some((a.jdn_range()?.0, b.jdn_range()?.1)),
        }
    }

    /// The same date, owning its text.
    pub fn into_owned(self) -> Date<'static> {
        let own = |c: Cow<'a, str>| Cow::Owned(c.into_owned());
        match self {
            Date::Empty => Date::Empty,
            Date::Exact(d) => Date::Exact(d.into_owned()),
            Date::From(d) => Date::From(d.into_owned()),
            Date::To(d) => Date::To(d.into_owned()),
            Date::FromTo(a, b) => Date::FromTo(a.into_owned(), b.into_owned()),
            Date::Before(d) => Date::Before(d.into_owned()),
            Date::After(d) => Date::After(d.into_owned()),
            Date::Between(a, b) => Date::Between(a.into_owned(), b.into_owned()),
            Date::Approximate(a, d) => Date::Approximate(a, d.into_owned()),
            Date::Interpreted(d, p) => Date::Interpreted(d.into_owned(), own(p)),
            Date::Phrase(p) => Date::Phrase(own(p)),
        }
    }
}

impl SimpleDate<'_> {
    /// The astronomical year of a Gregorian or Julian date (1 B.C. is 0,
    /// 2 B.C. is −1), or the logical year of another calendar's.
    pub fn astronomical_year(&self) -> i64 {
        let y = i64::from(self.year.logical);
        match self.epoch {
            Some(Epoch::BeforeChrist) => 1 - y,
            _ => y,
        }
    }

    /// The number of days in this date's month, for a known calendar and a
    /// date with a month (and, French Republican, a year up to XVIII or a
    /// month other than `COMP`).
    pub fn month_days(&self) -> Option<u32> {
        match self.month {
            Some(Month::Known(m)) => self.days_of(m),
            _ => None,
        }
    }

    /// The number of days in month `m` of this date's calendar and year
    /// (see [`SimpleDate::month_days`]).
    fn days_of(&self, m: u8) -> Option<u32> {
        let y = self.astronomical_year();
        match self.calendar {
            Calendar::Gregorian => Some(solar_month_days(m, gregorian_leap(y))),
            Calendar::Julian => Some(solar_month_days(m, julian_leap(y))),
            Calendar::Hebrew => Some(hebrew_month_days(y, m)),
            Calendar::FrenchRepublican if m < 13 => Some(30),
            Calendar::FrenchRepublican if y <= FRENCH_LAST_YEAR => Some(french_month_days(y, m)),
            // ELF leaves the leap years after XVIII open: up to 6 days.
            Calendar::FrenchRepublican => Some(6),
            _ => None,
        }
    }

    /// The first and last Julian day numbers this date can mean: the day,
    /// the whole month or the whole year. `None` for calendars this crate
    /// does not compute with, French Republican years after XVIII, a month
    /// number outside the calendar and a day outside its month.
    pub fn jdn_range(&self) -> Option<(i64, i64)> {
        let y = self.astronomical_year();
        let (m0, m1) = self.months()?;
        let jdn = |m: u8, d: u32| -> Option<i64> {
            match self.calendar {
                Calendar::Gregorian => Some(solar_jdn(y, m, d, false)),
                Calendar::Julian => Some(solar_jdn(y, m, d, true)),
                Calendar::Hebrew => Some(hebrew_jdn(y, m, d)),
                _ => french_jdn(y, m, d),
            }
        };
        if let Some(d) = self.day {
            let j = jdn(m0, d)?;
            return Some((j, j));
        }
        Some((jdn(m0, 1)?, jdn(m1, self.days_of(m1)?)?))
    }

    /// Whether [`SimpleDate::jdn_range`] has days to give, for a Gregorian
    /// or Julian date (whose days are always computed): its checks without
    /// the computing.
    pub(crate) fn has_days(&self) -> bool {
        matches!(self.calendar, Calendar::Gregorian | Calendar::Julian) && self.months().is_some()
    }

    /// The first and last month [`SimpleDate::jdn_range`] computes with,
    /// once the month and the day are checked: `None` for a calendar this
    /// crate does not compute with, a month number outside the calendar and
    /// a day outside its month.
    fn months(&self) -> Option<(u8, u8)> {
        let month = match self.month {
            // A month number outside the calendar (only built by hand).
            Some(Month::Known(m))
                if m == 0 || usize::from(m) > self.calendar.month_names().len() =>
            {
                return None
            }
            Some(Month::Known(m)) => Some(m),
            Some(Month::Other(_)) => return None,
            None => None,
        };
        let (first_month, last_month) = match self.calendar {
            Calendar::Gregorian | Calendar::Julian => (1, 12),
            Calendar::Hebrew | Calendar::FrenchRepublican => (1, 13),
            _ => return None,
        };
        let (m0, m1) = month.map_or((first_month, last_month), |m| (m, m));
        if let Some(d) = self.day {
            // A day outside its month (only built by hand) is no day.
            if d == 0 || d > self.days_of(m0)? {
                return None;
            }
        }
        Some((m0, m1))
    }

    /// The same date, owning its text.
    pub fn into_owned(self) -> SimpleDate<'static> {
        SimpleDate {
            calendar: self.calendar.into_owned(),
            day: self.day,
            month: self.month.map(|m| match m {
                Month::Known(i) => Month::Known(i),
                Month::Other(s) => Month::Other(Cow::Owned(s.into_owned())),
            }),
            year: self.year,
            epoch: self.epoch.map(|e| match e {
                Epoch::BeforeChrist => Epoch::BeforeChrist,
                Epoch::Other(s) => Epoch::Other(Cow::Owned(s.into_owned())),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `has_days` is `jdn_range`'s checks: the two agree on every month
    /// number and day, good and bad, of Gregorian and Julian dates in leap
    /// and common years, before and after Christ.
    #[test]
    fn has_days_is_whether_jdn_range_gives_days() {
        for calendar in [Calendar::Gregorian, Calendar::Julian] {
            for (logical, epoch) in [(1900, None), (2000, None), (4, Some(Epoch::BeforeChrist))] {
                for month in (0..=14).map(|m| Some(Month::Known(m))).chain([None]) {
                    for day in (0..=32).map(Some).chain([None]) {
                        let d = SimpleDate {
                            calendar: calendar.clone(),
                            day,
                            month: month.clone(),
                            year: Year {
                                logical,
                                historical: None,
                            },
                            epoch: epoch.clone(),
                        };
                        assert_eq!(d.has_days(), d.jdn_range().is_some(), "{d:?}");
                    }
                }
            }
        }
        let other = SimpleDate {
            calendar: Calendar::Hebrew,
            day: Some(1),
            month: Some(Month::Known(1)),
            year: Year {
                logical: 5780,
                historical: None,
            },
            epoch: None,
        };
        assert!(other.jdn_range().is_some() && !other.has_days());
    }
}
