//! The GEDCOM X formal date grammar: [`GedcomxDate::parse`] and its
//! parser (a cursor over the text's bytes).

use super::calendar::{gregorian_leap, solar_month_days};
use super::gedcomx::{
    GedcomxDate, GedcomxDuration, GedcomxError, GedcomxErrorKind, GedcomxForm, GedcomxSimple,
    GedcomxTime, GedcomxZone,
};

impl GedcomxDate {
    /// Reads a formal date, strictly: `A` first for an approximate date or
    /// range; a simple date `±YYYY[-MM[-DD[Thh[:mm[:ss]][±hh[:mm]|Z]]]]` with
    /// a four-digit year (`+` for year 0), a month 01–12, a day within its
    /// Gregorian month, an hour 00–24 (24 only on the hour), minutes and
    /// seconds 00–59; ranges `x/y` (x's first day not after y's last),
    /// `x/P…` (the end within +9999-12-31), `/x` and `x/`. A recurring date
    /// (`R…`) is a [`GedcomxErrorKind::Recurring`] error: not supported.
    ///
    /// ```
    /// use gedcom_elf::value::{GedcomxDate, GedcomxErrorKind, GedcomxForm};
    ///
    /// let d = GedcomxDate::parse("A+1887-03/+1890")?;
    /// assert!(d.approximate);
    /// assert!(matches!(d.form, GedcomxForm::Range(a, _) if a.month == Some(3)));
    /// assert_eq!(d.to_string(), "A+1887-03/+1890");
    ///
    /// let err = GedcomxDate::parse("R4/+1776-04-02/+1776-04-09").unwrap_err();
    /// assert_eq!(err.kind(), GedcomxErrorKind::Recurring);
    /// assert_eq!(GedcomxDate::parse("+1887-13").unwrap_err().to_string(), "byte 6: expected a month 01-12");
    /// # Ok::<(), gedcom_elf::value::GedcomxError>(())
    /// ```
    pub fn parse(formal: &str) -> Result<GedcomxDate, GedcomxError> {
        let mut p = FormalParser {
            b: formal.as_bytes(),
            pos: 0,
        };
        let date = p.date()?;
        if p.pos < p.b.len() {
            return Err(p.err(GedcomxErrorKind::Syntax, "the end"));
        }
        Ok(date)
    }
}

/// The formal date parser: a cursor over the text's bytes.
struct FormalParser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl FormalParser<'_> {
    fn err(&self, kind: GedcomxErrorKind, expected: &'static str) -> GedcomxError {
        let kind = if self.pos >= self.b.len() && kind == GedcomxErrorKind::Syntax {
            GedcomxErrorKind::End
        } else {
            kind
        };
        GedcomxError::new(kind, self.pos, expected)
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Exactly `n` digits, as a number.
    fn digits(&mut self, n: usize, expected: &'static str) -> Result<u32, GedcomxError> {
        let mut v = 0;
        for _ in 0..n {
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    v = v * 10 + u32::from(c - b'0');
                    self.pos += 1;
                }
                _ => return Err(self.err(GedcomxErrorKind::Syntax, expected)),
            }
        }
        Ok(v)
    }

    /// Two digits within `max`, else an error of `kind` at their start.
    fn two(
        &mut self,
        max: u32,
        kind: GedcomxErrorKind,
        expected: &'static str,
    ) -> Result<u8, GedcomxError> {
        let at = self.pos;
        let v = self.digits(2, expected)?;
        if v > max {
            return Err(GedcomxError::new(kind, at, expected));
        }
        Ok(v as u8)
    }

    /// `date := "A"? (simple | range)`, or a recurring date (an error).
    fn date(&mut self) -> Result<GedcomxDate, GedcomxError> {
        if self.peek() == Some(b'R') {
            return Err(self.err(
                GedcomxErrorKind::Recurring,
                "a date that is not recurring (`R`: not supported)",
            ));
        }
        let approximate = self.eat(b'A');
        if self.peek() == Some(b'P') {
            return Err(self.err(
                GedcomxErrorKind::Duration,
                "a date (a duration alone is not one)",
            ));
        }
        let form = if self.eat(b'/') {
            GedcomxForm::Before(self.simple()?)
        } else {
            let start = self.simple()?;
            if !self.eat(b'/') {
                GedcomxForm::Simple(start)
            } else if self.pos == self.b.len() {
                GedcomxForm::After(start)
            } else if self.peek() == Some(b'P') {
                let at = self.pos;
                let p = self.duration()?;
                if p.end_from(&start).is_none() {
                    return Err(GedcomxError::new(
                        GedcomxErrorKind::Overflow,
                        at,
                        "a duration ending by +9999-12-31",
                    ));
                }
                GedcomxForm::Duration(start, p)
            } else {
                let end_at = self.pos;
                let end = self.simple()?;
                if start.jdn_range().0 > end.jdn_range().1 {
                    return Err(GedcomxError::new(
                        GedcomxErrorKind::Order,
                        end_at,
                        "an end not before the start",
                    ));
                }
                GedcomxForm::Range(start, end)
            }
        };
        Ok(GedcomxDate { approximate, form })
    }

    /// `simple := ("+" | "-") YYYY ("-" MM ("-" DD ("T" time)?)?)?`.
    fn simple(&mut self) -> Result<GedcomxSimple, GedcomxError> {
        let sign_at = self.pos;
        let negative = match self.peek() {
            Some(b'+') => false,
            Some(b'-') => true,
            _ => return Err(self.err(GedcomxErrorKind::Syntax, "`+` or `-` and a year")),
        };
        self.pos += 1;
        let year = self.digits(4, "a year of four digits")? as i32;
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(self.err(GedcomxErrorKind::Year, "a year of four digits"));
        }
        if negative && year == 0 {
            return Err(GedcomxError::new(
                GedcomxErrorKind::Year,
                sign_at,
                "`+` for the year 0",
            ));
        }
        let mut d = GedcomxSimple::year(if negative { -year } else { year });
        if !self.eat(b'-') {
            return Ok(d);
        }
        let month = self.two(12, GedcomxErrorKind::Month, "a month 01-12")?;
        if month == 0 {
            return Err(GedcomxError::new(
                GedcomxErrorKind::Month,
                self.pos - 2,
                "a month 01-12",
            ));
        }
        d.month = Some(month);
        if !self.eat(b'-') {
            return Ok(d);
        }
        let days = solar_month_days(month, gregorian_leap(i64::from(d.year)));
        let day = self.two(days, GedcomxErrorKind::Day, "a day of the month")?;
        if day == 0 {
            return Err(GedcomxError::new(
                GedcomxErrorKind::Day,
                self.pos - 2,
                "a day of the month",
            ));
        }
        d.day = Some(day);
        if self.eat(b'T') {
            d.time = Some(self.time()?);
        }
        Ok(d)
    }

    /// `time := hh (":" mm (":" ss)?)? ("Z" | ("+" | "-") hh (":" mm)?)?`.
    fn time(&mut self) -> Result<GedcomxTime, GedcomxError> {
        let hour_at = self.pos;
        let hour = self.two(24, GedcomxErrorKind::Time, "an hour 00-24")?;
        let mut t = GedcomxTime {
            hour,
            minute: None,
            second: None,
            zone: None,
        };
        if self.eat(b':') {
            t.minute = Some(self.two(59, GedcomxErrorKind::Time, "a minute 00-59")?);
            if self.eat(b':') {
                t.second = Some(self.two(59, GedcomxErrorKind::Time, "a second 00-59")?);
            }
        }
        if hour == 24 && (t.minute.unwrap_or(0) != 0 || t.second.unwrap_or(0) != 0) {
            return Err(GedcomxError::new(
                GedcomxErrorKind::Time,
                hour_at,
                "an hour 00-23 (24 only on the hour)",
            ));
        }
        match self.peek() {
            Some(b'Z') => {
                self.pos += 1;
                t.zone = Some(GedcomxZone::Utc);
            }
            Some(c @ (b'+' | b'-')) => {
                self.pos += 1;
                let hours = self.two(23, GedcomxErrorKind::Zone, "an offset of 00-23 hours")?;
                let minutes = if self.eat(b':') {
                    Some(self.two(59, GedcomxErrorKind::Zone, "an offset of 00-59 minutes")?)
                } else {
                    None
                };
                t.zone = Some(GedcomxZone::Offset {
                    negative: c == b'-',
                    hours,
                    minutes,
                });
            }
            _ => {}
        }
        Ok(t)
    }

    /// `duration := "P" (n "Y")? (n "M")? (n "D")? ("T" (n "H")? (n "M")?
    /// (n "S")?)?`, each `n` of one to four digits, at least one part, and
    /// at least one after `T`.
    fn duration(&mut self) -> Result<GedcomxDuration, GedcomxError> {
        let start = self.pos;
        self.pos += 1; // `P`
        let mut p = GedcomxDuration::default();
        let mut any = false;
        // The date part, then the time part.
        for (time, units) in [(false, *b"YMD"), (true, *b"HMS")] {
            if time {
                if !self.eat(b'T') {
                    break;
                }
                if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(self.err(
                        GedcomxErrorKind::Duration,
                        "a number of hours, minutes or seconds",
                    ));
                }
            }
            let mut next_unit = 0;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                let at = self.pos;
                let mut n: u32 = 0;
                let mut len = 0;
                while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
                    n = n * 10 + u32::from(c - b'0');
                    len += 1;
                    self.pos += 1;
                    if len > 4 {
                        return Err(GedcomxError::new(
                            GedcomxErrorKind::Duration,
                            at,
                            "a number of one to four digits",
                        ));
                    }
                }
                let unit = self.peek();
                let Some(i) = units[next_unit..]
                    .iter()
                    .position(|u| Some(*u) == unit)
                    .map(|i| i + next_unit)
                else {
                    return Err(self.err(
                        GedcomxErrorKind::Duration,
                        if time {
                            "`H`, `M` or `S` in that order"
                        } else {
                            "`Y`, `M`, `D` in that order, or `T`"
                        },
                    ));
                };
                self.pos += 1;
                next_unit = i + 1;
                any = true;
                let n = Some(n as u16);
                match (time, i) {
                    (false, 0) => p.years = n,
                    (false, 1) => p.months = n,
                    (false, _) => p.days = n,
                    (true, 0) => p.hours = n,
                    (true, 1) => p.minutes = n,
                    (true, _) => p.seconds = n,
                }
            }
        }
        if !any {
            return Err(GedcomxError::new(
                GedcomxErrorKind::Duration,
                start,
                "a duration of at least one part",
            ));
        }
        Ok(p)
    }
}
