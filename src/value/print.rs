//! Printing dates back: the canonical 5.5.1/ELF payload (`Display`) and a
//! GEDCOM 7 payload with its `PHRASE` ([`Date::gedcom7`]).
//!
//! The canonical form writes one space between words, upper-case keywords
//! and months, no calendar for the Gregorian calendar, the calendar escape
//! for the others, `B.C.` and no default epoch, and a dual year with its
//! logical year in two digits (as 5.5.1 requires) when that reads back as
//! the same year. Printing and parsing again gives an equal [`Date`].

use std::fmt;

use super::calendar::hebrew_leap;
use super::date::{Calendar, Date, Epoch, Month, SimpleDate, Year};
use super::parse::{dual_logical, g7_tag, is_extension_tag};

/// A date as a GEDCOM 7 `DATE` payload and the `PHRASE` substructure to go
/// with it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gedcom7Date {
    /// The payload: no phrase, no dual year, calendar words, `BCE`.
    pub payload: String,
    /// A date phrase (from `INT x (phrase)` or `(phrase)`), or for a date
    /// with a dual year (which GEDCOM 7 removed) the 5.5.1 form of the date,
    /// as the GEDCOM 7 appendix on dual dates suggests.
    pub phrase: Option<String>,
}

/// Why a date has no GEDCOM 7 form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotGedcom7 {
    /// GEDCOM 7 has no unknown calendar, and reads a date with no calendar
    /// as Gregorian.
    UnknownCalendar,
    /// A calendar that GEDCOM 7 can only name with an extension tag (`_X`).
    Calendar(String),
    /// An epoch or month of an unknown calendar that is not a GEDCOM 7 tag.
    Word(String),
}

impl fmt::Display for NotGedcom7 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotGedcom7::UnknownCalendar => f.write_str("GEDCOM 7 has no unknown calendar"),
            NotGedcom7::Calendar(c) => {
                write!(
                    f,
                    "calendar {c:?} is not a GEDCOM 7 calendar or extension tag"
                )
            }
            NotGedcom7::Word(w) => write!(f, "{w:?} is not a GEDCOM 7 month or epoch tag"),
        }
    }
}

impl std::error::Error for NotGedcom7 {}

/// Writes `year`: a dual year with its logical year abbreviated to two digits
/// when that reads back as the same year, else written in full (zero-padded
/// to three digits, which is never read as abbreviated).
fn write_year(f: &mut fmt::Formatter<'_>, year: Year) -> fmt::Result {
    let Some(h) = year.historical else {
        return write!(f, "{}", year.logical);
    };
    let l = year.logical;
    let two = format!("{:02}", l.unsigned_abs() % 100);
    if (i64::from(h) - i64::from(l)).abs() < 10 && dual_logical(h, &two, 0) == Ok(l) {
        return write!(f, "{h}/{two}");
    }
    if (0..100).contains(&l) {
        write!(f, "{h}/{l:03}")
    } else {
        write!(f, "{h}/{l}")
    }
}

impl SimpleDate<'_> {
    /// Writes the parts after the calendar: `[[day] month] year [epoch]`,
    /// with `bce` as the word for [`Epoch::BeforeChrist`].
    /// `gedcom7` writes GEDCOM 7's words: `BCE`, and `ADS` for Adar in a
    /// common Hebrew year (7.0's recommendation; ELF's is `ADR`).
    fn write_parts(&self, f: &mut fmt::Formatter<'_>, gedcom7: bool) -> fmt::Result {
        if let Some(d) = self.day {
            write!(f, "{d} ")?;
        }
        match &self.month {
            Some(Month::Known(6))
                if gedcom7
                    && self.calendar == Calendar::Hebrew
                    && !hebrew_leap(i64::from(self.year.logical)) =>
            {
                f.write_str("ADS ")?
            }
            Some(Month::Known(m)) => {
                match self
                    .calendar
                    .month_names()
                    .get(usize::from(*m).wrapping_sub(1))
                {
                    Some(name) => write!(f, "{name} ")?,
                    // Only a value built by hand has a month number outside
                    // its calendar: printed as the number, never a panic.
                    None => write!(f, "{m} ")?,
                }
            }
            Some(Month::Other(m)) => write!(f, "{m} ")?,
            None => {}
        }
        if !gedcom7 {
            write_year(f, self.year)?;
        } else {
            write!(f, "{}", self.year.logical)?;
        }
        match &self.epoch {
            Some(Epoch::BeforeChrist) if gedcom7 => f.write_str(" BCE"),
            Some(Epoch::BeforeChrist) => f.write_str(" B.C."),
            Some(Epoch::Other(e)) => write!(f, " {e}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for SimpleDate<'_> {
    /// The canonical 5.5.1/ELF form of one date.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.calendar {
            Calendar::Gregorian | Calendar::NotGregorian => {}
            Calendar::Julian => f.write_str("@#DJULIAN@ ")?,
            Calendar::Hebrew => f.write_str("@#DHEBREW@ ")?,
            Calendar::FrenchRepublican => f.write_str("@#DFRENCH R@ ")?,
            Calendar::Unknown => f.write_str("@#DUNKNOWN@ ")?,
            // A GEDCOM 7 extension calendar has no escape: its tag is kept.
            Calendar::Other(name) if name.starts_with('_') => write!(f, "{name} ")?,
            Calendar::Other(name) => write!(f, "@#D{name}@ ")?,
        }
        self.write_parts(f, false)
    }
}

impl fmt::Display for Date<'_> {
    /// The canonical 5.5.1/ELF payload.
    ///
    /// ```
    /// use gedcom_elf::value::Date;
    ///
    /// let d = Date::parse("abt  @#DJULIAN@ 30 jan 1648/9")?;
    /// assert_eq!(d.to_string(), "ABT @#DJULIAN@ 30 JAN 1648/49");
    /// assert_eq!(Date::parse(&d.to_string())?, d);
    /// # Ok::<(), gedcom_elf::value::DateError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Date::Empty => Ok(()),
            Date::Exact(d) => write!(f, "{d}"),
            Date::From(d) => write!(f, "FROM {d}"),
            Date::To(d) => write!(f, "TO {d}"),
            Date::FromTo(a, b) => write!(f, "FROM {a} TO {b}"),
            Date::Before(d) => write!(f, "BEF {d}"),
            Date::After(d) => write!(f, "AFT {d}"),
            Date::Between(a, b) => write!(f, "BET {a} AND {b}"),
            Date::Approximate(a, d) => write!(f, "{} {d}", a.keyword()),
            Date::Interpreted(d, p) => write!(f, "INT {d} ({p})"),
            Date::Phrase(p) => write!(f, "({p})"),
        }
    }
}

/// One date in GEDCOM 7 form, for `format!`.
struct G7<'d, 'a>(&'d SimpleDate<'a>);

impl fmt::Display for G7<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.calendar {
            Calendar::Julian => f.write_str("JULIAN ")?,
            Calendar::Hebrew => f.write_str("HEBREW ")?,
            Calendar::FrenchRepublican => f.write_str("FRENCH_R ")?,
            Calendar::Other(name) => write!(f, "{name} ")?,
            _ => {}
        }
        self.0.write_parts(f, true)
    }
}

impl SimpleDate<'_> {
    /// Why this date has no GEDCOM 7 form, if it has none.
    fn not_gedcom7(&self) -> Option<NotGedcom7> {
        match &self.calendar {
            Calendar::Unknown | Calendar::NotGregorian => return Some(NotGedcom7::UnknownCalendar),
            Calendar::Other(name) if !is_extension_tag(name) => {
                return Some(NotGedcom7::Calendar(name.to_string()))
            }
            _ => {}
        }
        let words = [
            match &self.month {
                Some(Month::Other(m)) => Some(m),
                _ => None,
            },
            match &self.epoch {
                Some(Epoch::Other(e)) => Some(e),
                _ => None,
            },
        ];
        words
            .into_iter()
            .flatten()
            .find(|w| !g7_tag(w))
            .map(|w| NotGedcom7::Word(w.to_string()))
    }
}

impl Date<'_> {
    /// The GEDCOM 7 form: the payload, and the `PHRASE` to go with it.
    /// Dual years become their logical year, with the 5.5.1 form as the
    /// phrase; dates in an unknown calendar have no GEDCOM 7 form.
    ///
    /// ```
    /// use gedcom_elf::value::Date;
    ///
    /// let d = Date::parse("INT @#DJULIAN@ 25 JAN 1840 B.C. (the 25th day of January)")?;
    /// let g7 = d.gedcom7().unwrap();
    /// assert_eq!(g7.payload, "JULIAN 25 JAN 1840 BCE");
    /// assert_eq!(g7.phrase.as_deref(), Some("the 25th day of January"));
    /// assert_eq!(Date::parse(&g7.payload)?, Date::Exact(d.dates().next().unwrap().clone()));
    ///
    /// let dual = Date::parse("30 JAN 1648/49")?.gedcom7().unwrap();
    /// assert_eq!((dual.payload.as_str(), dual.phrase.as_deref()), ("30 JAN 1649", Some("30 JAN 1648/49")));
    /// # Ok::<(), gedcom_elf::value::DateError>(())
    /// ```
    pub fn gedcom7(&self) -> Result<Gedcom7Date, NotGedcom7> {
        if let Some(e) = self.dates().find_map(SimpleDate::not_gedcom7) {
            return Err(e);
        }
        let payload = match self {
            Date::Empty | Date::Phrase(_) => String::new(),
            Date::Exact(d) | Date::Interpreted(d, _) => G7(d).to_string(),
            Date::From(d) => format!("FROM {}", G7(d)),
            Date::To(d) => format!("TO {}", G7(d)),
            Date::FromTo(a, b) => format!("FROM {} TO {}", G7(a), G7(b)),
            Date::Before(d) => format!("BEF {}", G7(d)),
            Date::After(d) => format!("AFT {}", G7(d)),
            Date::Between(a, b) => format!("BET {} AND {}", G7(a), G7(b)),
            Date::Approximate(a, d) => format!("{} {}", a.keyword(), G7(d)),
        };
        let phrase = match self.phrase() {
            Some(p) => Some(p.to_string()),
            None if self.dates().any(|d| d.year.historical.is_some()) => Some(self.to_string()),
            None => None,
        };
        Ok(Gedcom7Date { payload, phrase })
    }
}
