//! GEDCOM X formal dates (*The GEDCOM X Date Format*, `gedcomx.org/date/v1`):
//! [`Date::gedcomx`] converts a `DATE` payload to one, and
//! [`GedcomxDate::parse`] reads one and gives a `DATE` back
//! ([`GedcomxDate::to_date`]).
//!
//! A formal date is in the proleptic Gregorian calendar, with astronomical
//! years of a sign and four digits (`+1875`, `+0001`; `+0000` is 1 B.C.,
//! `-0043` is 44 B.C.), each part after the year optional from the right:
//! `±YYYY[-MM[-DD[Thh[:mm[:ss]][±hh[:mm]|Z]]]]`. On that, the forms:
//!
//! | form | formal | from a `DATE` | back to a `DATE` |
//! |------|--------|---------------|------------------|
//! | simple date | `+1875-05-03` | `3 MAY 1875`, `INT x (phrase)` | `3 MAY 1875` |
//! | approximate date | `A+1680` | `ABT`, `CAL`, `EST 1680` | `ABT 1680` |
//! | closed range | `+1887/+1890` | `BET x AND y`, `FROM x TO y` | `BET x AND y` |
//! | before | `/+1887` | `BEF x`, `TO x` | `BEF x` |
//! | after | `+1887/` | `AFT x`, `FROM x` | `AFT x` |
//! | approximate range | `A+1887/+1890`, `A/+1887` | an approximate date with a span (below) | as without `A` |
//! | start and duration | `+1933-02-19/P74Y` | never | `BET x AND x + duration` |
//! | recurring | `R3/+1830/+1840` | never | an error: not supported |
//!
//! What is lost, either way: GEDCOM X has no period, so `FROM x TO y` and
//! `BET x AND y` both become `x/y` (read back as `BET`), `FROM x` becomes
//! `x/` and `TO x` becomes `/x`; the approximation's kind (`ABT`, `CAL`,
//! `EST`) becomes `A` (read back as `ABT`); GEDCOM has no approximate range,
//! so `A` on a range is dropped when reading back; a date phrase is not part
//! of a formal date (GEDCOM X keeps the text in the date's `original`, for
//! which the payload itself, `date.to_string()`, serves); a time of day is
//! read and kept in [`GedcomxTime`] but a `DATE` payload has none (GEDCOM 7
//! puts it in a `TIME` substructure), so [`GedcomxDate::to_date`] drops it.
//!
//! What is kept: the days. A Gregorian date keeps its precision (`MAR 1887`
//! is `+1887-03`), a dual year is its logical (later, Gregorian) year. A date
//! in the Julian, Hebrew or French Republican calendar goes through its
//! Julian day numbers: a day is the Gregorian day; a month or year is the
//! Gregorian month or year when its days are exactly those, else the span of
//! its first and last days (`@#DJULIAN@ 1700` is `+1700-01-11/+1701-01-11`,
//! and `ABT` it is `A+1700-01-11/+1701-01-11`); as the end of `BEF`, `TO` or
//! a range its last day, as the start of `AFT`, `FROM` or a range its first
//! (as [`Date::jdn_range`] reads them). So a converted date read back spans
//! the same Julian day numbers as the original.
//!
//! ```
//! use gedcom_elf::value::{Date, GedcomxDate};
//!
//! let d = Date::parse("BET @#DJULIAN@ 4 OCT 1582 AND 1600")?;
//! let gx = d.gedcomx().unwrap();
//! assert_eq!(gx.to_string(), "+1582-10-14/+1600");
//!
//! let back = GedcomxDate::parse("A-0043-03-15")?.to_date();
//! assert_eq!(back.to_string(), "ABT 15 MAR 44 B.C.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use super::calendar::{gregorian_leap, gregorian_of_jdn, solar_jdn, solar_month_days};
use super::date::{Approximation, Calendar, Date, Epoch, Month, SimpleDate, Year};

/// The largest year of a formal date (the smallest is its negation).
const MAX_YEAR: i32 = 9999;

/// A GEDCOM X formal date: approximate or not, and its form.
///
/// `Display` writes the formal text, which [`GedcomxDate::parse`] reads
/// back as an equal value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GedcomxDate {
    /// A leading `A`: an approximate date or date range.
    pub approximate: bool,
    /// The date or range.
    pub form: GedcomxForm,
}

/// The form of a [`GedcomxDate`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GedcomxForm {
    /// A simple date: `+1875-05-03`.
    Simple(GedcomxSimple),
    /// A closed range of a start and an end date: `+1887/+1890`.
    Range(GedcomxSimple, GedcomxSimple),
    /// A closed range of a start date and a duration: `+1933-02-19/P74Y`.
    Duration(GedcomxSimple, GedcomxDuration),
    /// An open-ended range before its end date: `/+1887`.
    Before(GedcomxSimple),
    /// An open-ended range after its start date: `+1887/`.
    After(GedcomxSimple),
}

/// A simple date of the proleptic Gregorian calendar, with the precision
/// written: a year, a month, a day, and a time of day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GedcomxSimple {
    /// The astronomical year, −9999 to 9999: 0 is 1 B.C., −1 is 2 B.C.
    pub year: i32,
    /// The month, 1–12, when given.
    pub month: Option<u8>,
    /// The day of the month, when given (only with a month).
    pub day: Option<u8>,
    /// The time of day, when given (only with a day).
    pub time: Option<GedcomxTime>,
}

/// A time of day: `Thh[:mm[:ss]]` and its zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GedcomxTime {
    /// The hour, 0–24 (24 only with no minutes and seconds but zero: the
    /// midnight that ends the day).
    pub hour: u8,
    /// The minute, 0–59, when given.
    pub minute: Option<u8>,
    /// The second, 0–59, when given (only with a minute).
    pub second: Option<u8>,
    /// The zone: `None` for local time.
    pub zone: Option<GedcomxZone>,
}

/// The zone of a [`GedcomxTime`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GedcomxZone {
    /// `Z`: UTC.
    Utc,
    /// `±hh[:mm]`: the local time's offset from UTC.
    Offset {
        /// `-`: behind UTC.
        negative: bool,
        /// The hours, 0–23.
        hours: u8,
        /// The minutes, 0–59, when given.
        minutes: Option<u8>,
    },
}

/// A duration: `P[nY][nM][nD][T[nH][nM][nS]]`, each number of one to four
/// digits and not normalized (`P18M` is not `P1Y6M`); at least one part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GedcomxDuration {
    /// `nY`.
    pub years: Option<u16>,
    /// `nM` before `T`.
    pub months: Option<u16>,
    /// `nD`.
    pub days: Option<u16>,
    /// `nH`.
    pub hours: Option<u16>,
    /// `nM` after `T`.
    pub minutes: Option<u16>,
    /// `nS`.
    pub seconds: Option<u16>,
}

/// What kind of problem a [`GedcomxError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GedcomxErrorKind {
    /// A character that the grammar does not allow there.
    Syntax,
    /// The text ended where more was required.
    End,
    /// A recurring date (`R…`), which this crate does not support.
    Recurring,
    /// A year of other than four digits, or `-0000`.
    Year,
    /// A month outside 01–12.
    Month,
    /// A day outside its month.
    Day,
    /// An hour, minute or second out of range.
    Time,
    /// A zone offset out of range.
    Zone,
    /// A duration with no part, or a duration alone.
    Duration,
    /// A range whose start is after its end.
    Order,
    /// A start date plus a duration after +9999-12-31.
    Overflow,
}

payload_error!(
    /// Why a text is not a GEDCOM X formal date: the kind, the byte offset and
    /// what was expected there.
    GedcomxError,
    GedcomxErrorKind
);

/// Why a `DATE` payload has no GEDCOM X formal date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotGedcomx {
    /// The empty payload: no date.
    Empty,
    /// A date phrase alone: only the text (GEDCOM X's `original`).
    Phrase,
    /// A date in ELF's unknown calendar (`@#DUNKNOWN@`, or no calendar on a
    /// date that is not well-formed in the Gregorian one).
    UnknownCalendar,
    /// A calendar this crate does not compute with (`@#DROMAN@`, `_X`).
    Calendar(String),
    /// A date whose days are not defined: a French Republican year after
    /// XVIII (whose leap years ELF leaves open), or a month number outside
    /// its calendar in a value built by hand.
    NoDays,
    /// A (Gregorian, astronomical) year outside −9999 to 9999.
    Year(i64),
    /// `FROM x TO y` with x after y: a formal range starts first.
    Order,
}

impl fmt::Display for NotGedcomx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotGedcomx::Empty => f.write_str("the payload is empty"),
            NotGedcomx::Phrase => f.write_str("a date phrase alone has no formal date"),
            NotGedcomx::UnknownCalendar => {
                f.write_str("a date in an unknown calendar has no Gregorian days")
            }
            NotGedcomx::Calendar(c) => {
                write!(f, "calendar {c:?} is not one this crate converts")
            }
            NotGedcomx::NoDays => f.write_str("the date's days are not defined"),
            NotGedcomx::Year(y) => {
                write!(f, "year {y} is outside the formal years -9999 to +9999")
            }
            NotGedcomx::Order => f.write_str("the period's start is after its end"),
        }
    }
}

impl std::error::Error for NotGedcomx {}

impl GedcomxSimple {
    /// A date of a year alone.
    pub(super) fn year(year: i32) -> Self {
        GedcomxSimple {
            year,
            month: None,
            day: None,
            time: None,
        }
    }

    /// The day of a Julian day number, if its year is a formal one.
    fn of_jdn(jdn: i64) -> Result<Self, NotGedcomx> {
        let (y, m, d) = gregorian_of_jdn(jdn);
        Ok(GedcomxSimple {
            year: formal_year(y)?,
            month: Some(m),
            day: Some(d),
            time: None,
        })
    }

    /// The first and last Julian day numbers of the date (its time of day
    /// aside): the day, or the whole month or year.
    pub fn jdn_range(&self) -> (i64, i64) {
        let y = i64::from(self.year);
        match (self.month, self.day) {
            (Some(m), Some(d)) => {
                let j = solar_jdn(y, m, u32::from(d), false);
                (j, j)
            }
            (Some(m), None) => (
                solar_jdn(y, m, 1, false),
                solar_jdn(y, m, solar_month_days(m, gregorian_leap(y)), false),
            ),
            _ => (solar_jdn(y, 1, 1, false), solar_jdn(y, 12, 31, false)),
        }
    }

    /// The same date as a Gregorian [`SimpleDate`]: a year up to 0 as
    /// `B.C.` (0 is 1 B.C.); the time of day is dropped.
    pub fn to_simple_date(&self) -> SimpleDate<'static> {
        let (logical, epoch) = if self.year <= 0 {
            (1 - self.year, Some(Epoch::BeforeChrist))
        } else {
            (self.year, None)
        };
        SimpleDate {
            calendar: Calendar::Gregorian,
            day: self.day.map(u32::from),
            month: self.month.map(Month::Known),
            year: Year {
                logical,
                historical: None,
            },
            epoch,
        }
    }
}

/// `y` as a formal year, or why it is not one.
fn formal_year(y: i64) -> Result<i32, NotGedcomx> {
    match i32::try_from(y) {
        Ok(y) if (-MAX_YEAR..=MAX_YEAR).contains(&y) => Ok(y),
        _ => Err(NotGedcomx::Year(y)),
    }
}

/// A formal date's text, made without the formatter on the stack (a
/// formal date is short): [`GedcomxDate::text`]. Every `Display` of this
/// module writes one.
#[derive(Clone, Copy)]
pub struct FormalText {
    bytes: [u8; FormalText::CAPACITY],
    len: usize,
}

impl FormalText {
    /// Room for the longest text: `A` and a range of two dates with times
    /// and zones, of any values a hand-made date may hold (80 bytes; a
    /// parsed one has at most 55).
    const CAPACITY: usize = 96;

    fn new() -> Self {
        FormalText {
            bytes: [0; FormalText::CAPACITY],
            len: 0,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Signs, digits and letters: ASCII.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }

    /// Writes to `f` the text `fill` makes.
    fn display(f: &mut fmt::Formatter<'_>, fill: impl FnOnce(&mut FormalText)) -> fmt::Result {
        let mut t = FormalText::new();
        fill(&mut t);
        f.write_str(t.as_str())
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `n` zero-padded to `width` digits (at least), after `prefix`.
    fn padded(&mut self, prefix: u8, n: u32, width: usize) {
        self.push(prefix);
        self.digits(n, width);
    }

    /// `n` zero-padded to `width` digits (at least).
    fn digits(&mut self, n: u32, width: usize) {
        let (digits, i) = crate::scan::decimal_digits(n);
        for _ in digits.len() - i..width {
            self.push(b'0');
        }
        for &d in &digits[i..] {
            self.push(d);
        }
    }

    fn simple(&mut self, d: &GedcomxSimple) {
        let sign = if d.year < 0 { b'-' } else { b'+' };
        let y = d.year.unsigned_abs();
        if y < 10_000 {
            // Four digits at once, the common case.
            let four = [y / 1000, y / 100 % 10, y / 10 % 10, y % 10].map(|n| b'0' + n as u8);
            self.push(sign);
            four.iter().for_each(|&b| self.push(b));
        } else {
            self.padded(sign, y, 4);
        }
        for (prefix, part) in [(b'-', d.month), (b'-', d.day)] {
            let Some(n) = part else { break };
            match n < 100 {
                true => {
                    self.push(prefix);
                    self.push(b'0' + n / 10);
                    self.push(b'0' + n % 10);
                }
                false => self.padded(prefix, u32::from(n), 2),
            }
        }
        if let Some(t) = &d.time {
            self.time(t);
        }
    }

    fn time(&mut self, t: &GedcomxTime) {
        self.padded(b'T', u32::from(t.hour), 2);
        if let Some(m) = t.minute {
            self.padded(b':', u32::from(m), 2);
        }
        if let Some(s) = t.second {
            self.padded(b':', u32::from(s), 2);
        }
        match t.zone {
            None => {}
            Some(GedcomxZone::Utc) => self.push(b'Z'),
            Some(GedcomxZone::Offset {
                negative,
                hours,
                minutes,
            }) => {
                self.padded(if negative { b'-' } else { b'+' }, u32::from(hours), 2);
                if let Some(m) = minutes {
                    self.padded(b':', u32::from(m), 2);
                }
            }
        }
    }

    fn duration(&mut self, p: &GedcomxDuration) {
        self.push(b'P');
        let date = [(p.years, b'Y'), (p.months, b'M'), (p.days, b'D')];
        let time = [(p.hours, b'H'), (p.minutes, b'M'), (p.seconds, b'S')];
        for (i, parts) in [date, time].iter().enumerate() {
            if i == 1 && parts.iter().any(|(n, _)| n.is_some()) {
                self.push(b'T');
            }
            for &(n, unit) in parts {
                if let Some(n) = n {
                    self.digits(u32::from(n), 1);
                    self.push(unit);
                }
            }
        }
    }
}

impl fmt::Debug for FormalText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for GedcomxSimple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        FormalText::display(f, |t| t.simple(self))
    }
}

impl fmt::Display for GedcomxTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        FormalText::display(f, |t| t.time(self))
    }
}

impl fmt::Display for GedcomxDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        FormalText::display(f, |t| t.duration(self))
    }
}

impl fmt::Display for GedcomxDate {
    /// The formal text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().as_str())
    }
}

impl GedcomxDuration {
    /// The end of a range from `start` lasting this duration, at the start's
    /// precision (as the specification's example `+1933-02-19/P74Y`, "to
    /// February 19, 2007", reads): years and months are added to the year
    /// and month (a start of a year alone adds whole years of the months,
    /// 18 months as 1 year), then days to a start with a day; a day past the
    /// end of the month it lands in is that month's last; units finer than
    /// the start's precision, and the time units, are dropped. `None` after
    /// +9999-12-31.
    pub fn end_from(&self, start: &GedcomxSimple) -> Option<GedcomxSimple> {
        let years = i64::from(self.years.unwrap_or(0));
        let months = i64::from(self.months.unwrap_or(0));
        let days = i64::from(self.days.unwrap_or(0));
        let y = i64::from(start.year);
        let Some(m) = start.month else {
            let year = i32::try_from(y + years + months / 12).ok()?;
            return (year <= MAX_YEAR).then(|| GedcomxSimple::year(year));
        };
        let total = 12 * (y + years) + i64::from(m) - 1 + months;
        let (ey, em) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u8);
        let Some(d) = start.day else {
            let year = i32::try_from(ey).ok()?;
            return (year <= MAX_YEAR).then_some(GedcomxSimple {
                year,
                month: Some(em),
                day: None,
                time: None,
            });
        };
        let last = solar_month_days(em, gregorian_leap(ey));
        let jdn = solar_jdn(ey, em, u32::from(d).min(last), false) + days;
        let end = GedcomxSimple::of_jdn(jdn).ok()?;
        (end.year <= MAX_YEAR).then_some(end)
    }
}

impl GedcomxDate {
    /// The formal text (as `Display` writes it).
    pub fn formal(&self) -> String {
        self.to_string()
    }

    /// The formal text, on the stack (what `Display` writes).
    ///
    /// ```
    /// use gedcom_elf::value::Date;
    ///
    /// let d = Date::parse("ABT @#DJULIAN@ 9 NOV 1503")?.gedcomx().unwrap();
    /// assert_eq!(d.text().as_str(), "A+1503-11-19");
    /// # Ok::<(), gedcom_elf::value::DateError>(())
    /// ```
    pub fn text(&self) -> FormalText {
        let mut t = FormalText::new();
        if self.approximate {
            t.push(b'A');
        }
        match &self.form {
            GedcomxForm::Simple(d) => t.simple(d),
            GedcomxForm::Range(a, b) => {
                t.simple(a);
                t.push(b'/');
                t.simple(b);
            }
            GedcomxForm::Duration(a, p) => {
                t.simple(a);
                t.push(b'/');
                t.duration(p);
            }
            GedcomxForm::Before(d) => {
                t.push(b'/');
                t.simple(d);
            }
            GedcomxForm::After(d) => {
                t.simple(d);
                t.push(b'/');
            }
        }
        t
    }

    /// The `DATE` payload (GEDCOM 5.5.1 and 7 alike) this formal date means,
    /// as the [module docs](self) list: a simple date is an exact date, `A`
    /// is `ABT` (and dropped on a range, which GEDCOM cannot approximate),
    /// `x/y` is `BET x AND y`, `/x` is `BEF x`, `x/` is `AFT x`, a start and
    /// a duration is `BET` the start `AND` its end
    /// ([`GedcomxDuration::end_from`]); years up to 0 are `B.C.` (0 is 1
    /// B.C.); a time of day is dropped.
    ///
    /// ```
    /// use gedcom_elf::value::GedcomxDate;
    ///
    /// let d = GedcomxDate::parse("+1933-02-19/P74Y")?;
    /// assert_eq!(d.to_date().to_string(), "BET 19 FEB 1933 AND 19 FEB 2007");
    /// let d = GedcomxDate::parse("/+0000")?;
    /// assert_eq!(d.to_date().to_string(), "BEF 1 B.C.");
    /// # Ok::<(), gedcom_elf::value::GedcomxError>(())
    /// ```
    pub fn to_date(&self) -> Date<'static> {
        match &self.form {
            GedcomxForm::Simple(d) if self.approximate => {
                Date::Approximate(Approximation::About, d.to_simple_date())
            }
            GedcomxForm::Simple(d) => Date::Exact(d.to_simple_date()),
            GedcomxForm::Range(a, b) => Date::Between(a.to_simple_date(), b.to_simple_date()),
            GedcomxForm::Duration(a, p) => {
                // Parsing checked that the end exists; a value built by hand
                // with an end past +9999 ends at the start.
                let end = p.end_from(a).unwrap_or(*a);
                Date::Between(a.to_simple_date(), end.to_simple_date())
            }
            GedcomxForm::Before(d) => Date::Before(d.to_simple_date()),
            GedcomxForm::After(d) => Date::After(d.to_simple_date()),
        }
    }
}

/// A date converted: one formal simple date, or (a non-Gregorian month or
/// year that is not a whole Gregorian one) the span of its first and last
/// days.
enum Point {
    One(GedcomxSimple),
    Span(GedcomxSimple, GedcomxSimple),
}

impl Point {
    fn first(&self) -> GedcomxSimple {
        match self {
            Point::One(d) | Point::Span(d, _) => *d,
        }
    }

    fn last(&self) -> GedcomxSimple {
        match self {
            Point::One(d) | Point::Span(_, d) => *d,
        }
    }
}

/// One date as formal dates (see the module docs).
fn point(d: &SimpleDate<'_>) -> Result<Point, NotGedcomx> {
    match &d.calendar {
        Calendar::Unknown | Calendar::NotGregorian => return Err(NotGedcomx::UnknownCalendar),
        Calendar::Other(name) => return Err(NotGedcomx::Calendar(name.to_string())),
        _ => {}
    }
    if d.calendar == Calendar::Gregorian {
        // Its own formal date, once its month and day are checked.
        if !d.has_days() {
            return Err(NotGedcomx::NoDays);
        }
        let month = match d.month {
            Some(Month::Known(m)) => Some(m),
            _ => None,
        };
        return Ok(Point::One(GedcomxSimple {
            year: formal_year(d.astronomical_year())?,
            month,
            day: d.day.map(|x| x as u8),
            time: None,
        }));
    }
    let (first, last) = d.jdn_range().ok_or(NotGedcomx::NoDays)?;
    let a = GedcomxSimple::of_jdn(first)?;
    let b = GedcomxSimple::of_jdn(last)?;
    if first == last {
        return Ok(Point::One(a));
    }
    let month = GedcomxSimple { day: None, ..a };
    if month.jdn_range() == (first, last) {
        return Ok(Point::One(month));
    }
    let year = GedcomxSimple::year(a.year);
    if year.jdn_range() == (first, last) {
        return Ok(Point::One(year));
    }
    Ok(Point::Span(a, b))
}

impl Date<'_> {
    /// The GEDCOM X formal date of this payload, or why it has none: see the
    /// [`gedcomx` module](super::gedcomx) for the mapping and what is lost.
    /// GEDCOM X's `original` is the payload itself (`to_string()`).
    ///
    /// ```
    /// use gedcom_elf::value::{Date, NotGedcomx};
    ///
    /// let f = |s| Date::parse(s).unwrap().gedcomx().map(|g| g.to_string());
    /// assert_eq!(f("3 MAY 1875"), Ok("+1875-05-03".into()));
    /// assert_eq!(f("EST 1680"), Ok("A+1680".into()));
    /// assert_eq!(f("FROM 1887 TO MAR 1890"), Ok("+1887/+1890-03".into()));
    /// assert_eq!(f("BEF 44 B.C."), Ok("/-0043".into()));
    /// assert_eq!(f("AFT 1750/51"), Ok("+1751/".into()));
    /// assert_eq!(f("@#DHEBREW@ 1 TSH 5760"), Ok("+1999-09-11".into()));
    /// assert_eq!(f("INT 1900 (about then)"), Ok("+1900".into()));
    /// assert_eq!(f("(unknown)"), Err(NotGedcomx::Phrase));
    /// ```
    pub fn gedcomx(&self) -> Result<GedcomxDate, NotGedcomx> {
        let (approximate, form) = match self {
            Date::Empty => return Err(NotGedcomx::Empty),
            Date::Phrase(_) => return Err(NotGedcomx::Phrase),
            Date::Exact(d) | Date::Interpreted(d, _) | Date::Approximate(_, d) => {
                let form = match point(d)? {
                    Point::One(x) => GedcomxForm::Simple(x),
                    Point::Span(a, b) => GedcomxForm::Range(a, b),
                };
                (matches!(self, Date::Approximate(..)), form)
            }
            Date::Before(d) | Date::To(d) => (false, GedcomxForm::Before(point(d)?.last())),
            Date::After(d) | Date::From(d) => (false, GedcomxForm::After(point(d)?.first())),
            Date::Between(a, b) | Date::FromTo(a, b) => {
                let (a, b) = (point(a)?.first(), point(b)?.last());
                if a.jdn_range().0 > b.jdn_range().1 {
                    return Err(NotGedcomx::Order);
                }
                (false, GedcomxForm::Range(a, b))
            }
        };
        Ok(GedcomxDate { approximate, form })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use GedcomxErrorKind as K;

    /// The formal text as the grammar spells it, by the formatter.
    fn spelled(d: &GedcomxSimple) -> String {
        let sign = if d.year < 0 { '-' } else { '+' };
        let mut s = format!("{sign}{:04}", d.year.unsigned_abs());
        for n in [d.month, d.day].into_iter().map_while(|n| n) {
            s += &format!("-{n:02}");
        }
        if let Some(t) = &d.time {
            s += &format!("T{:02}", t.hour);
            for n in [t.minute, t.second].into_iter().map_while(|n| n) {
                s += &format!(":{n:02}");
            }
            match t.zone {
                Some(GedcomxZone::Utc) => s.push('Z'),
                Some(GedcomxZone::Offset {
                    negative,
                    hours,
                    minutes,
                }) => {
                    s += &format!("{}{hours:02}", if negative { '-' } else { '+' });
                    if let Some(m) = minutes {
                        s += &format!(":{m:02}");
                    }
                }
                None => {}
            }
        }
        s
    }

    #[test]
    fn the_text_is_the_formatter_s_for_any_value() {
        let zones = [
            None,
            Some(GedcomxZone::Utc),
            Some(GedcomxZone::Offset {
                negative: true,
                hours: 5,
                minutes: None,
            }),
            Some(GedcomxZone::Offset {
                negative: false,
                hours: 23,
                minutes: Some(59),
            }),
        ];
        let mut times = vec![None];
        for zone in zones {
            for (minute, second) in [(None, None), (Some(7), None), (Some(59), Some(255))] {
                times.push(Some(GedcomxTime {
                    hour: 24,
                    minute,
                    second,
                    zone,
                }));
            }
        }
        let mut dates = Vec::new();
        for year in [
            -9999,
            -43,
            0,
            7,
            1503,
            9999,
            10_000,
            -123_456,
            i32::MIN,
            i32::MAX,
        ] {
            for (month, day) in [(None, None), (Some(3), None), (Some(12), Some(31))] {
                for time in &times {
                    dates.push(GedcomxSimple {
                        year,
                        month,
                        day,
                        time: *time,
                    });
                }
            }
        }
        // Out of range, as a hand-made value may be.
        dates.push(GedcomxSimple {
            year: 1,
            month: Some(200),
            day: Some(255),
            time: None,
        });
        let long = GedcomxDuration {
            years: Some(u16::MAX),
            months: Some(0),
            days: Some(12),
            hours: Some(1),
            minutes: None,
            seconds: Some(u16::MAX),
        };
        for a in &dates {
            assert_eq!(a.to_string(), spelled(a));
            let b = dates[dates.len() / 2];
            let forms = [
                (GedcomxForm::Simple(*a), spelled(a)),
                (
                    GedcomxForm::Range(*a, *a),
                    format!("{}/{}", spelled(a), spelled(a)),
                ),
                (GedcomxForm::Before(*a), format!("/{}", spelled(a))),
                (GedcomxForm::After(b), format!("{}/", spelled(&b))),
                (
                    GedcomxForm::Duration(*a, long),
                    format!("{}/P65535Y0M12DT1H65535S", spelled(a)),
                ),
            ];
            for (form, text) in forms {
                for approximate in [false, true] {
                    let date = GedcomxDate {
                        approximate,
                        form: form.clone(),
                    };
                    let expected = format!("{}{text}", if approximate { "A" } else { "" });
                    assert_eq!(date.text().as_str(), expected);
                    assert_eq!(date.to_string(), expected);
                }
            }
        }
        let days = GedcomxDuration {
            days: Some(3),
            ..GedcomxDuration::default()
        };
        assert_eq!(days.to_string(), "P3D");
    }

    fn ok(s: &str) -> GedcomxDate {
        let d = GedcomxDate::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        assert_eq!(d.to_string(), s, "prints back");
        d
    }

    fn err(s: &str) -> (K, usize) {
        let e = GedcomxDate::parse(s).expect_err(s);
        (e.kind(), e.offset())
    }

    fn simple(s: &str) -> GedcomxSimple {
        match ok(s).form {
            GedcomxForm::Simple(d) => d,
            f => panic!("{s:?}: {f:?}"),
        }
    }

    fn gx(s: &str) -> Result<String, NotGedcomx> {
        Date::parse(s).unwrap().gedcomx().map(|g| g.to_string())
    }

    #[test]
    fn gregorian_of_jdn_inverts_solar_jdn() {
        let mut jdn = solar_jdn(-10_000, 1, 1, false);
        for y in -10_000..=10_000 {
            for m in 1..=12 {
                for d in 1..=solar_month_days(m, gregorian_leap(y)) {
                    assert_eq!(gregorian_of_jdn(jdn), (y, m, d as u8), "{jdn}");
                    jdn += 1;
                }
            }
        }
    }

    #[test]
    fn year() {
        assert_eq!(simple("+1680"), GedcomxSimple::year(1680));
        assert_eq!(simple("-0043").year, -43);
        assert_eq!(simple("+0000").year, 0);
        assert_eq!(simple("+9999").year, 9999);
        assert_eq!(simple("-9999").year, -9999);
        assert_eq!(err("-0000"), (K::Year, 0));
        assert_eq!(err("+10000"), (K::Year, 5));
        assert_eq!(err("+187"), (K::End, 4));
        assert_eq!(err("1875"), (K::Syntax, 0));
        assert_eq!(err(""), (K::End, 0));
        assert_eq!(err("+18x5"), (K::Syntax, 3));
        assert_eq!(err(" +1875"), (K::Syntax, 0));
        assert_eq!(err("+1875 "), (K::Syntax, 5));
    }

    #[test]
    fn month_and_day() {
        let d = simple("+1875-05-03");
        assert_eq!(
            (d.year, d.month, d.day, d.time),
            (1875, Some(5), Some(3), None)
        );
        assert_eq!(simple("+0186-03").month, Some(3));
        assert_eq!(err("+1875-13"), (K::Month, 6));
        assert_eq!(err("+1875-00"), (K::Month, 6));
        assert_eq!(err("+1875-5"), (K::End, 7));
        assert_eq!(err("+1875-"), (K::End, 6));
        assert_eq!(err("+1875-05-32"), (K::Day, 9));
        assert_eq!(err("+1875-05-00"), (K::Day, 9));
        // The proleptic Gregorian leap years: 1900 no, 2000 and 1 B.C. yes.
        assert_eq!(err("+1900-02-29"), (K::Day, 9));
        assert_eq!(simple("+2000-02-29").day, Some(29));
        assert_eq!(simple("+0000-02-29").day, Some(29));
        assert_eq!(err("+1875-05-03-"), (K::Syntax, 11));
        // A time only after a day.
        assert_eq!(err("+1875-05T10"), (K::Syntax, 8));
    }

    #[test]
    fn time_of_day() {
        let t = simple("+1752-01-18T22:14:03Z").time.unwrap();
        assert_eq!(
            t,
            GedcomxTime {
                hour: 22,
                minute: Some(14),
                second: Some(3),
                zone: Some(GedcomxZone::Utc)
            }
        );
        let t = simple("+1964-11-14T10-07:00").time.unwrap();
        assert_eq!(t.minute, None);
        assert_eq!(
            t.zone,
            Some(GedcomxZone::Offset {
                negative: true,
                hours: 7,
                minutes: Some(0)
            })
        );
        simple("+1889-05-17T14:23");
        simple("+1889-05-17T14+05");
        simple("+1889-05-17T24");
        simple("+1889-05-17T24:00:00");
        assert_eq!(err("+1889-05-17T24:01"), (K::Time, 12));
        assert_eq!(err("+1889-05-17T25"), (K::Time, 12));
        assert_eq!(err("+1889-05-17T14:60"), (K::Time, 15));
        assert_eq!(err("+1889-05-17T14:23:60"), (K::Time, 18));
        assert_eq!(err("+1889-05-17T14:"), (K::End, 15));
        assert_eq!(err("+1889-05-17T"), (K::End, 12));
        assert_eq!(err("+1889-05-17T14+24"), (K::Zone, 15));
        assert_eq!(err("+1889-05-17T14+05:60"), (K::Zone, 18));
        assert_eq!(err("+1889-05-17T14Z+01"), (K::Syntax, 15));
    }

    #[test]
    fn ranges() {
        let d = ok("+1887/+1890");
        assert!(!d.approximate);
        assert!(matches!(d.form, GedcomxForm::Range(a, b) if a.year == 1887 && b.year == 1890));
        assert!(matches!(ok("/+1887").form, GedcomxForm::Before(d) if d.year == 1887));
        assert!(matches!(ok("+1887/").form, GedcomxForm::After(d) if d.year == 1887));
        assert!(ok("A+1887/+1890").approximate);
        assert!(ok("A/+1887").approximate);
        ok("+1890/+1890");
        // Different precisions: the start's first day against the end's last.
        ok("+1890-12/+1890");
        ok("+1890/+1890-01");
        assert_eq!(err("+1891/+1890"), (K::Order, 6));
        assert_eq!(err("+1890-02/+1890-01-31"), (K::Order, 9));
        assert_eq!(err("/"), (K::End, 1));
        assert_eq!(err("//+1890"), (K::Syntax, 1));
        assert_eq!(err("+1887//"), (K::Syntax, 6));
        assert_eq!(err("+1887/+1890/"), (K::Syntax, 11));
        assert_eq!(err("A"), (K::End, 1));
        assert_eq!(err("AA+1887"), (K::Syntax, 1));
        assert_eq!(err("+1887A"), (K::Syntax, 5));
    }

    #[test]
    fn durations() {
        let d = ok("+1933-02-19/P74Y");
        let GedcomxForm::Duration(start, p) = d.form else {
            panic!()
        };
        assert_eq!(p.years, Some(74));
        assert_eq!(p.end_from(&start).unwrap().to_string(), "+2007-02-19");
        ok("+1933/P17Y6M2D");
        ok("+1933/P186D");
        ok("+1933-01-01T10/PT5H17M");
        ok("+1000/P1000Y18M72DT56H10M1S");
        ok("+1933/P0Y");
        // Normalised only when added.
        let end = |s: &str| match ok(s).form {
            GedcomxForm::Duration(a, p) => p.end_from(&a).unwrap().to_string(),
            f => panic!("{f:?}"),
        };
        assert_eq!(end("+1933/P18M"), "+1934");
        assert_eq!(end("+1933-11/P3M"), "+1934-02");
        assert_eq!(end("+2000-02-29/P1Y"), "+2001-02-28");
        assert_eq!(end("+2000-01-31/P1M"), "+2000-02-29");
        assert_eq!(end("+1999-12-31/P1D"), "+2000-01-01");
        assert_eq!(end("-0001-12-31/P1D"), "+0000-01-01");
        assert_eq!(end("+9999-12-30/P1D"), "+9999-12-31");
        assert_eq!(err("+9999-12-31/P1D"), (K::Overflow, 12));
        assert_eq!(err("+9000/P1000Y"), (K::Overflow, 6));
        assert_eq!(err("+1933/P"), (K::Duration, 6));
        assert_eq!(err("+1933/PT"), (K::Duration, 8));
        assert_eq!(err("+1933/P1D1Y"), (K::Duration, 10));
        assert_eq!(err("+1933/P1Y1Y"), (K::Duration, 10));
        assert_eq!(err("+1933/P1H"), (K::Duration, 8));
        assert_eq!(err("+1933/P12345Y"), (K::Duration, 7));
        assert_eq!(err("+1933/P1"), (K::Duration, 8));
        assert_eq!(err("P74Y"), (K::Duration, 0));
        assert_eq!(err("AP74Y"), (K::Duration, 1));
        assert_eq!(err("/P74Y"), (K::Syntax, 1));
    }

    #[test]
    fn recurring_dates_are_not_supported() {
        for s in [
            "R4/+1776-04-02/+1776-04-09",
            "R/+2000/P12Y",
            "R100/+1830/+1840",
        ] {
            assert_eq!(err(s), (K::Recurring, 0), "{s}");
        }
        let e = GedcomxDate::parse("R/+2000/P12Y").unwrap_err();
        assert_eq!(
            e.to_string(),
            "byte 0: expected a date that is not recurring (`R`: not supported)"
        );
    }

    #[test]
    fn to_date() {
        let d = |s: &str| GedcomxDate::parse(s).unwrap().to_date().to_string();
        assert_eq!(d("+1875-05-03"), "3 MAY 1875");
        assert_eq!(d("+1752-01-18T22:14:03Z"), "18 JAN 1752");
        assert_eq!(d("A+1680"), "ABT 1680");
        assert_eq!(d("+1887/+1890"), "BET 1887 AND 1890");
        assert_eq!(d("A+1887/+1890"), "BET 1887 AND 1890");
        assert_eq!(d("/+1887-03"), "BEF MAR 1887");
        assert_eq!(d("+1976-07-11/"), "AFT 11 JUL 1976");
        assert_eq!(d("/+0000"), "BEF 1 B.C.");
        assert_eq!(d("-0001-04/"), "AFT APR 2 B.C.");
        assert_eq!(d("-1321"), "1322 B.C.");
        assert_eq!(d("+0001"), "1");
    }

    #[test]
    fn from_dates() {
        assert_eq!(gx("3 MAY 1875").unwrap(), "+1875-05-03");
        assert_eq!(gx("MAY 1875").unwrap(), "+1875-05");
        assert_eq!(gx("1680").unwrap(), "+1680");
        assert_eq!(gx("1").unwrap(), "+0001");
        assert_eq!(gx("1 B.C.").unwrap(), "+0000");
        assert_eq!(gx("44 B.C.").unwrap(), "-0043");
        assert_eq!(gx("30 JAN 1750/51").unwrap(), "+1751-01-30");
        assert_eq!(gx("ABT 1680").unwrap(), "A+1680");
        assert_eq!(gx("CAL 1680").unwrap(), "A+1680");
        assert_eq!(gx("EST 1680").unwrap(), "A+1680");
        assert_eq!(gx("BEF 1887").unwrap(), "/+1887");
        assert_eq!(gx("TO 1887").unwrap(), "/+1887");
        assert_eq!(gx("AFT 1887").unwrap(), "+1887/");
        assert_eq!(gx("FROM 1887").unwrap(), "+1887/");
        assert_eq!(gx("BET 1887 AND 1890").unwrap(), "+1887/+1890");
        assert_eq!(gx("FROM 1887 TO 1890").unwrap(), "+1887/+1890");
        assert_eq!(gx("INT 1887 (eighteen eighty-seven)").unwrap(), "+1887");
        assert_eq!(gx("FROM 1890 TO 1887"), Err(NotGedcomx::Order));
        assert_eq!(gx(""), Err(NotGedcomx::Empty));
        assert_eq!(gx("(no idea)"), Err(NotGedcomx::Phrase));
        assert_eq!(gx("29 FEB 1900"), Err(NotGedcomx::UnknownCalendar));
        assert_eq!(gx("@#DUNKNOWN@ 1900"), Err(NotGedcomx::UnknownCalendar));
        assert_eq!(
            gx("@#DROMAN@ 71"),
            Err(NotGedcomx::Calendar("ROMAN".into()))
        );
        assert_eq!(gx("@#DFRENCH R@ 19"), Err(NotGedcomx::NoDays));
        assert_eq!(gx("10000"), Err(NotGedcomx::Year(10_000)));
        assert_eq!(gx("10000 B.C.").unwrap(), "-9999");
        assert_eq!(gx("10001 B.C."), Err(NotGedcomx::Year(-10_000)));
    }

    #[test]
    fn other_calendars_by_their_days() {
        assert_eq!(gx("@#DJULIAN@ 4 OCT 1582").unwrap(), "+1582-10-14");
        assert_eq!(gx("@#DHEBREW@ 1 TSH 5760").unwrap(), "+1999-09-11");
        assert_eq!(gx("@#DFRENCH R@ 1 VEND 1").unwrap(), "+1792-09-22");
        // A month or year spanning parts of Gregorian ones: its days.
        assert_eq!(gx("@#DJULIAN@ 1700").unwrap(), "+1700-01-11/+1701-01-11");
        assert_eq!(
            gx("ABT @#DJULIAN@ MAR 1700").unwrap(),
            "A+1700-03-12/+1700-04-11"
        );
        assert_eq!(gx("BEF @#DJULIAN@ 1700").unwrap(), "/+1701-01-11");
        assert_eq!(gx("AFT @#DJULIAN@ 1700").unwrap(), "+1700-01-11/");
        assert_eq!(
            gx("BET @#DJULIAN@ 1700 AND @#DHEBREW@ 5760").unwrap(),
            "+1700-01-11/+2000-09-29"
        );
        // Where Julian and Gregorian agree (the 3rd century), whole months
        // and years stay whole.
        assert_eq!(gx("@#DJULIAN@ MAR 250").unwrap(), "+0250-03");
        assert_eq!(gx("@#DJULIAN@ 250").unwrap(), "+0250");
        assert_eq!(gx("@#DJULIAN@ 44 B.C.").unwrap(), "-0044-12-30/-0043-12-29");
    }
}
