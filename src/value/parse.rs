//! The `DATE` payload parser: one recursive descent over both grammars,
//! borrowing from its input (see [`Date::parse`] and the `date` module's
//! docs for what it accepts).

use std::borrow::Cow;

use super::calendar::{
    gregorian_leap, hebrew_leap, julian_leap, solar_month_days, FRENCH_MONTHS, GREGORIAN_MONTHS,
    HEBREW_MONTHS,
};
use super::date::{
    Approximation, Calendar, Date, DateError, DateErrorKind, Epoch, Month, SimpleDate, Year,
};

/// A word of up to 8 bytes as one integer, upper-cased, for comparing with
/// the keys below in one instruction; 0 (no key) for longer or empty words.
fn key(w: &str) -> u64 {
    let b = w.as_bytes();
    if b.is_empty() || b.len() > 8 {
        return 0;
    }
    let mut k = 0;
    for (i, c) in b.iter().enumerate() {
        k |= u64::from(c.to_ascii_uppercase()) << (8 * i);
    }
    k
}

/// [`key`] of an upper-case constant.
const fn ck(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut k = 0;
    let mut i = 0;
    while i < b.len() {
        k |= (b[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// [`ck`] of each of `names`.
const fn keys<const N: usize>(names: [&str; N]) -> [u64; N] {
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = ck(names[i]);
        i += 1;
    }
    out
}

const GREGORIAN_KEYS: [u64; 12] = keys(GREGORIAN_MONTHS);
const HEBREW_KEYS: [u64; 13] = keys(HEBREW_MONTHS);
const FRENCH_KEYS: [u64; 13] = keys(FRENCH_MONTHS);

/// The words that are never months (ELF's reserved words and GEDCOM 7's
/// `dateRestrict`).
const RESERVED: [u64; 18] = keys([
    "ABT", "AFT", "AND", "BCE", "BEF", "BET", "CAL", "EST", "EVERY", "FOR", "FROM", "INT", "POS",
    "REP", "TIME", "UNCERT", "UNK", "ZONE",
]);

/// ELF's white space characters (space, tab, CR, LF), which every value
/// parser of this module reads where its grammar has a space.
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The bounds of `b` without its leading and trailing white space
/// ([`is_space`]): `start == end` when it is all white space.
pub(super) fn trim_space(b: &[u8]) -> (usize, usize) {
    let start = b.iter().take_while(|&&c| is_space(c)).count();
    let trailing = b[start..].iter().rev().take_while(|&&c| is_space(c));
    (start, b.len() - trailing.count())
}

/// The part of `text` without white space around it ([`trim_space`]), and
/// its offset.
pub(super) fn trim_str(text: &str) -> (usize, &str) {
    let (a, b) = trim_space(text.as_bytes());
    (a, &text[a..b])
}

/// A GEDCOM 7 tag: an upper-case letter, or `_` and something, then
/// upper-case letters, digits and `_`.
pub(super) fn g7_tag(w: &str) -> bool {
    let b = w.as_bytes();
    let rest = match b {
        [b'_', rest @ ..] if !rest.is_empty() => rest,
        [c, rest @ ..] if c.is_ascii_uppercase() => rest,
        _ => return false,
    };
    rest.iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
}

/// A GEDCOM 7 extension tag (`_` then upper-case letters, digits, `_`).
pub(super) fn is_extension_tag(w: &str) -> bool {
    w.starts_with('_') && g7_tag(w)
}

/// ELF's `Month` production (`[A-Z] [A-Z0-9] [A-Z0-9]+`, any case here) or a
/// GEDCOM 7 extension tag (`_` then letters, digits, `_`), and no reserved word.
fn month_shaped(w: &str) -> bool {
    let b = w.as_bytes();
    let shaped = if b.first() == Some(&b'_') {
        b.len() > 1 && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    } else {
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b.iter().all(u8::is_ascii_alphanumeric)
    };
    shaped && !RESERVED.contains(&key(w))
}

/// ELF's `Epoch` production (any case here), a GEDCOM 7 `BCE` or extension
/// tag, and not the reserved `TO` and `AT`.
fn epoch_shaped(w: &str) -> bool {
    let b = w.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if first == b'$' {
        return b.len() > 1;
    }
    let k = key(w);
    if k == ck("BCE") || (first == b'_' && month_shaped(w)) {
        return true;
    }
    if !first.is_ascii_alphabetic() || k == ck("TO") || k == ck("AT") {
        return false;
    }
    let rest = &b[1..];
    (rest.len() == 1 && rest[0].is_ascii_alphabetic())
        || (rest
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'_')
            && rest.iter().any(|c| *c == b'.' || *c == b'_'))
}

/// A year as written: `"-"? digits ("/" "-"? digits)?`.
struct RawYear<'a> {
    first: &'a str,
    second: Option<&'a str>,
    at: usize,
}

/// A date's parts as written, before the calendar checks them.
struct Raw<'a> {
    day: Option<(&'a str, usize)>,
    month: Option<(&'a str, usize)>,
    year: RawYear<'a>,
    epoch: Option<(&'a str, usize)>,
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    end: usize,
}

impl<'a> Parser<'a> {
    fn bytes(&self) -> &'a [u8] {
        &self.s.as_bytes()[..self.end]
    }

    fn skip_space(&mut self) -> bool {
        let start = self.pos;
        while self.pos < self.end && is_space(self.bytes()[self.pos]) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// The word at the position (up to white space, `(` or the end), not
    /// consumed.
    fn peek_word(&self) -> &'a str {
        let b = self.bytes();
        let mut i = self.pos;
        while i < self.end && !is_space(b[i]) && b[i] != b'(' {
            i += 1;
        }
        &self.s[self.pos..i]
    }

    fn take_word(&mut self) -> (&'a str, usize) {
        let at = self.pos;
        let w = self.peek_word();
        self.pos += w.len();
        (w, at)
    }

    /// The word after the white space at the position, not consumed.
    fn peek_next_word(&self) -> &'a str {
        let mut p = Parser {
            s: self.s,
            pos: self.pos,
            end: self.end,
        };
        if !p.skip_space() {
            return "";
        }
        p.peek_word()
    }

    /// Whether the word after the one just taken is a month, making that one
    /// a day: a month-shaped word, unless it is a GEDCOM 7 extension tag with
    /// no year after it (then it is an epoch, as in `1900 _ERA`).
    fn day_follows(&self) -> bool {
        let next = self.peek_next_word();
        if !month_shaped(next) {
            return false;
        }
        if !next.starts_with('_') {
            return true;
        }
        let mut p = Parser {
            s: self.s,
            pos: self.pos,
            end: self.end,
        };
        p.skip_space();
        p.pos += next.len();
        let b = p.peek_next_word().as_bytes();
        b.first().is_some_and(|c| c.is_ascii_digit() || *c == b'-')
    }

    /// Requires white space, then something (`what`).
    fn space(&mut self, what: &'static str) -> Result<(), DateError> {
        if self.pos >= self.end {
            return Err(DateError::new(DateErrorKind::End, self.pos, what));
        }
        if !self.skip_space() {
            return Err(DateError::new(DateErrorKind::Syntax, self.pos, "a space"));
        }
        Ok(())
    }

    fn keyword(&mut self, kw: &'static str, what: &'static str) -> Result<(), DateError> {
        if self.pos >= self.end {
            return Err(DateError::new(DateErrorKind::End, self.pos, what));
        }
        let (w, at) = self.take_word();
        if key(w) != ck(kw) {
            return Err(DateError::new(DateErrorKind::Syntax, at, what));
        }
        Ok(())
    }

    fn date_value(&mut self) -> Result<Date<'a>, DateError> {
        if self.pos >= self.end {
            return Ok(Date::Empty);
        }
        let word = self.peek_word();
        let word_key = key(word);
        let upper = |k: &str| word_key == ck(k);
        let keyword_then_date = |p: &mut Self| -> Result<SimpleDate<'a>, DateError> {
            p.pos += word.len();
            p.space("a date")?;
            p.date()
        };
        let date = if self.bytes()[self.pos] == b'(' {
            Date::Phrase(self.phrase()?)
        } else if upper("FROM") {
            let from = keyword_then_date(self)?;
            if key(self.peek_next_word()) == ck("TO") {
                self.skip_space();
                self.pos += 2;
                self.space("a date")?;
                Date::FromTo(from, self.date()?)
            } else {
                Date::From(from)
            }
        } else if upper("TO") {
            Date::To(keyword_then_date(self)?)
        } else if upper("BEF") {
            Date::Before(keyword_then_date(self)?)
        } else if upper("AFT") {
            Date::After(keyword_then_date(self)?)
        } else if upper("BET") {
            let from = keyword_then_date(self)?;
            self.space("`AND`")?;
            self.keyword("AND", "`AND`")?;
            self.space("a date")?;
            let to_at = self.pos;
            let to = self.date()?;
            if !in_order(&from, &to) {
                return Err(DateError::new(
                    DateErrorKind::Order,
                    to_at,
                    "a date not before the first",
                ));
            }
            Date::Between(from, to)
        } else if upper("ABT") || upper("CAL") || upper("EST") {
            let a = if upper("ABT") {
                Approximation::About
            } else if upper("CAL") {
                Approximation::Calculated
            } else {
                Approximation::Estimated
            };
            Date::Approximate(a, keyword_then_date(self)?)
        } else if upper("INT") {
            let d = keyword_then_date(self)?;
            self.space("`(` and a date phrase")?;
            if self.pos >= self.end || self.bytes()[self.pos] != b'(' {
                return Err(DateError::new(
                    DateErrorKind::Syntax,
                    self.pos,
                    "`(` and a date phrase",
                ));
            }
            Date::Interpreted(d, self.phrase()?)
        } else {
            Date::Exact(self.date()?)
        };
        self.skip_space();
        if self.pos < self.end {
            return Err(DateError::new(
                DateErrorKind::Syntax,
                self.pos,
                "the end of the date",
            ));
        }
        Ok(date)
    }

    /// `"(" [^()\r\n]* ")"`, at a `(`.
    fn phrase(&mut self) -> Result<Cow<'a, str>, DateError> {
        let start = self.pos + 1;
        let b = self.bytes();
        let mut i = start;
        while i < self.end {
            match b[i] {
                b')' => {
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(&self.s[start..i]));
                }
                b'(' | b'\r' | b'\n' => {
                    return Err(DateError::new(
                        DateErrorKind::Phrase,
                        i,
                        "`)`, with no parenthesis or line break in a date phrase",
                    ))
                }
                _ => i += 1,
            }
        }
        Err(DateError::new(
            DateErrorKind::Phrase,
            self.end,
            "`)` closing the date phrase",
        ))
    }

    /// The calendar, if the date begins with one (and the space after it).
    fn calendar(&mut self) -> Result<Option<Calendar<'a>>, DateError> {
        let at = self.pos;
        let b = self.bytes();
        let cal = if b[at..].starts_with(b"@#D") || b[at..].starts_with(b"@#d") {
            let name_at = at + 3;
            let Some(len) = b[name_at..].iter().position(|&c| c == b'@') else {
                return Err(DateError::new(
                    DateErrorKind::Calendar,
                    self.end,
                    "`@` closing the calendar escape",
                ));
            };
            let name = &self.s[name_at..name_at + len];
            let nb = name.as_bytes();
            if nb.is_empty()
                || !nb[0].is_ascii_alphabetic()
                || !nb.iter().all(|c| c.is_ascii_alphabetic() || *c == b' ')
            {
                return Err(DateError::new(
                    DateErrorKind::Calendar,
                    name_at,
                    "a calendar name of letters and spaces",
                ));
            }
            self.pos = name_at + len + 1;
            let is = |k: &str| name.eq_ignore_ascii_case(k);
            if is("GREGORIAN") {
                Calendar::Gregorian
            } else if is("JULIAN") {
                Calendar::Julian
            } else if is("HEBREW") {
                Calendar::Hebrew
            } else if is("FRENCH R") {
                Calendar::FrenchRepublican
            } else if is("UNKNOWN") {
                Calendar::Unknown
            } else {
                Calendar::Other(Cow::Borrowed(name))
            }
        } else {
            let w = self.peek_word();
            if !matches!(
                w.as_bytes().first().map(u8::to_ascii_uppercase),
                Some(b'G' | b'J' | b'H' | b'F' | b'_')
            ) {
                return Ok(None);
            }
            let is = |k: &str| w.eq_ignore_ascii_case(k);
            let cal = if is("GREGORIAN") {
                Calendar::Gregorian
            } else if is("JULIAN") {
                Calendar::Julian
            } else if is("HEBREW") {
                Calendar::Hebrew
            } else if is("FRENCH_R") {
                Calendar::FrenchRepublican
            } else if w.starts_with('_') && month_shaped(w) {
                Calendar::Other(Cow::Borrowed(w))
            } else {
                return Ok(None);
            };
            self.pos += w.len();
            cal
        };
        self.space("a day, month or year")?;
        Ok(Some(cal))
    }

    /// `[calendar] [[day] month] year [epoch]`.
    fn date(&mut self) -> Result<SimpleDate<'a>, DateError> {
        if self.pos >= self.end {
            return Err(DateError::new(DateErrorKind::End, self.pos, "a date"));
        }
        let calendar = self.calendar()?;
        let raw = self.raw()?;
        // Numbers that do not fit are errors in every calendar.
        let year = year_of(&raw)?;
        let day = match raw.day {
            Some((d, at)) => Some(d.parse::<u32>().map_err(|_| {
                DateError::new(DateErrorKind::Day, at, "a day that fits in 32 bits")
            })?),
            None => None,
        };
        match calendar {
            Some(cal) => check(cal, &raw, year, day),
            None => match check(Calendar::Gregorian, &raw, year, day) {
                Ok(d) => Ok(d),
                Err(e) if e.kind() == DateErrorKind::Syntax => Err(e),
                Err(_) => Ok(as_written(Calendar::NotGregorian, &raw, year, day)),
            },
        }
    }

    /// `[[day] month] year [epoch]` as written.
    fn raw(&mut self) -> Result<Raw<'a>, DateError> {
        let (w, at) = self.take_word();
        let mut day = None;
        let mut month = None;
        let year_word;
        if w.as_bytes().first().is_some_and(u8::is_ascii_digit) && self.day_follows() {
            if !w.bytes().all(|c| c.is_ascii_digit()) {
                return Err(DateError::new(DateErrorKind::Syntax, at, "a day"));
            }
            day = Some((w, at));
            self.skip_space();
            month = Some(self.take_word());
            self.space("a year")?;
            year_word = self.take_word();
        } else if month_shaped(w) {
            month = Some((w, at));
            self.space("a year")?;
            year_word = self.take_word();
        } else {
            year_word = (w, at);
        }
        let (yw, yat) = year_word;
        // The year: "-"? digits ("/" "-"? digits)?, then maybe an epoch
        // with no space before it.
        let yb = yw.as_bytes();
        let number = |from: usize| -> usize {
            let mut i = from;
            if yb.get(i) == Some(&b'-') {
                i += 1;
            }
            let digits = yb[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 {
                from
            } else {
                i + digits
            }
        };
        let first_end = number(0);
        if first_end == 0 {
            let expected = if month.is_some() {
                "a year"
            } else {
                "a day, month or year"
            };
            return Err(DateError::new(DateErrorKind::Syntax, yat, expected));
        }
        let mut end = first_end;
        let mut second = None;
        if yb.get(end) == Some(&b'/') {
            let second_end = number(end + 1);
            if second_end == end + 1 {
                return Err(DateError::new(
                    DateErrorKind::Syntax,
                    yat + end + 1,
                    "the second year of a dual year",
                ));
            }
            second = Some(&yw[end + 1..second_end]);
            end = second_end;
        }
        let year = RawYear {
            first: &yw[..first_end],
            second,
            at: yat,
        };
        let mut epoch = None;
        if end < yw.len() {
            let rest = &yw[end..];
            if !epoch_shaped(rest) {
                return Err(DateError::new(
                    DateErrorKind::Syntax,
                    yat + end,
                    "an epoch or a space",
                ));
            }
            epoch = Some((rest, yat + end));
        } else if epoch_shaped(self.peek_next_word()) {
            self.skip_space();
            epoch = Some(self.take_word());
        }
        Ok(Raw {
            day,
            month,
            year,
            epoch,
        })
    }
}

/// Parses a signed decimal integer that fits `i32`.
fn int(s: &str, at: usize) -> Result<i32, DateError> {
    s.parse::<i32>()
        .map_err(|_| DateError::new(DateErrorKind::Year, at, "a year that fits in 32 bits"))
}

/// The logical year meant by the second part of dual year `first/second`:
/// ELF reads it as abbreviated exactly when its abbreviation rule (two
/// digits within 9 years, one digit within 1 year, no minus sign) could
/// have produced it, the nearest such year if several could.
pub(crate) fn dual_logical(historical: i32, second: &str, at: usize) -> Result<i32, DateError> {
    let digits = second.len();
    if !second.starts_with('-') && (digits == 1 || digits == 2) {
        let written: i64 = second.parse().unwrap_or(-1);
        let (window, modulus) = if digits == 2 { (9, 100) } else { (1, 10) };
        let h = i64::from(historical);
        let found = (0..=window)
            .flat_map(|k| [h + k, h - k])
            .find(|l| l.abs() % modulus == written);
        if let Some(l) = found {
            return i32::try_from(l).map_err(|_| {
                DateError::new(DateErrorKind::Year, at, "a year that fits in 32 bits")
            });
        }
    }
    int(second, at)
}

/// The year of `raw`, dual years resolved.
fn year_of(raw: &Raw<'_>) -> Result<Year, DateError> {
    let first = int(raw.year.first, raw.year.at)?;
    match raw.year.second {
        None => Ok(Year {
            logical: first,
            historical: None,
        }),
        Some(s) => {
            let at = raw.year.at + raw.year.first.len() + 1;
            Ok(Year {
                logical: dual_logical(first, s, at)?,
                historical: Some(first),
            })
        }
    }
}

/// A date in a calendar this crate does not compute with: its parts kept as
/// written (ELF: assumed well-formed).
fn as_written<'a>(
    calendar: Calendar<'a>,
    raw: &Raw<'a>,
    year: Year,
    day: Option<u32>,
) -> SimpleDate<'a> {
    SimpleDate {
        calendar,
        day,
        month: raw.month.map(|(m, _)| Month::Other(Cow::Borrowed(m))),
        year,
        epoch: raw.epoch.map(|(e, _)| Epoch::Other(Cow::Borrowed(e))),
    }
}

/// Checks `raw` (with its `year` and `day`) against `calendar`'s months,
/// days, years and epochs.
fn check<'a>(
    calendar: Calendar<'a>,
    raw: &Raw<'a>,
    year: Year,
    day: Option<u32>,
) -> Result<SimpleDate<'a>, DateError> {
    if !calendar.is_known() {
        return Ok(as_written(calendar, raw, year, day));
    }
    let names: &[u64] = match calendar {
        Calendar::Hebrew => &HEBREW_KEYS,
        Calendar::FrenchRepublican => &FRENCH_KEYS,
        _ => &GREGORIAN_KEYS,
    };
    let month = match raw.month {
        Some((m, at)) => match names.iter().position(|&n| n == key(m)) {
            // At most 13 months: the index fits.
            Some(i) => Some(i as u8 + 1),
            None => {
                return Err(DateError::new(
                    DateErrorKind::Month,
                    at,
                    match calendar {
                        Calendar::Hebrew => "a Hebrew month (TSH CSH KSL TVT SHV ADR ADS NSN IYR SVN TMZ AAV ELL)",
                        Calendar::FrenchRepublican => "a French Republican month (VEND BRUM FRIM NIVO PLUV VENT GERM FLOR PRAI MESS THER FRUC COMP)",
                        _ => "a month (JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC)",
                    },
                ))
            }
        },
        None => None,
    };
    let solar = matches!(calendar, Calendar::Gregorian | Calendar::Julian);
    let epoch = match raw.epoch {
        None => None,
        Some((e, at)) => {
            let k = key(e);
            let is = |name: &str| k == ck(name);
            if solar && (is("B.C.") || is("BC") || is("BCE")) {
                Some(Epoch::BeforeChrist)
            } else if (solar && (is("A.D.") || is("AD")))
                || (calendar == Calendar::Hebrew && (is("A.M.") || is("AM")))
            {
                None
            } else {
                return Err(DateError::new(
                    DateErrorKind::Epoch,
                    at,
                    match calendar {
                        Calendar::Hebrew => "no epoch, or `A.M.`",
                        Calendar::FrenchRepublican => "no epoch",
                        _ => "no epoch, `B.C.`, `BCE` or `A.D.`",
                    },
                ));
            }
        }
    };
    if year.logical <= 0 || year.historical.is_some_and(|h| h <= 0) {
        return Err(DateError::new(
            DateErrorKind::Year,
            raw.year.at,
            "a year greater than 0",
        ));
    }
    if year.historical.is_some() && calendar == Calendar::FrenchRepublican {
        return Err(DateError::new(
            DateErrorKind::DualYear,
            raw.year.at,
            "a year that is not a dual year",
        ));
    }
    if year
        .historical
        .is_some_and(|h| solar && (i64::from(h) - i64::from(year.logical)).abs() != 1)
    {
        return Err(DateError::new(
            DateErrorKind::DualYear,
            raw.year.at,
            "a dual year whose two years are one apart",
        ));
    }
    // Adar of a common Hebrew year is `ADR` (ELF); `ADS`, which GEDCOM 7
    // prefers for it, is read as the same month.
    let month = match month {
        Some(7) if calendar == Calendar::Hebrew && !hebrew_leap(i64::from(year.logical)) => Some(6),
        m => m,
    };
    let date = SimpleDate {
        calendar,
        day,
        month: month.map(Month::Known),
        year,
        epoch,
    };
    if let Some(d) = day {
        let max = date.month_days().unwrap_or(31);
        if d == 0 || d > max {
            let (_, at) = raw.day.unwrap_or(("", 0));
            return Err(DateError::new(
                DateErrorKind::Day,
                at,
                "a day within the month",
            ));
        }
    }
    Ok(date)
}

impl<'a> Date<'a> {
    /// Parses a `DATE` payload of GEDCOM 5.5.1/ELF or GEDCOM 7 (see the
    /// [module docs](super::date) for what each grammar contributes and what is
    /// read leniently).
    ///
    /// ```
    /// use gedcom_elf::value::{Date, Epoch};
    ///
    /// let d = Date::parse("FROM 63 B.C. TO 14")?;
    /// let Date::FromTo(from, _) = &d else { unreachable!() };
    /// assert_eq!(from.epoch, Some(Epoch::BeforeChrist));
    /// assert_eq!(Date::parse("FROM 63 BCE TO 14")?, d);
    /// # Ok::<(), gedcom_elf::value::DateError>(())
    /// ```
    pub fn parse(payload: &'a str) -> Result<Date<'a>, DateError> {
        if let Some(date) = fast(payload.as_bytes()) {
            return Ok(date);
        }
        general(payload)
    }
}

/// The general parser, for any payload.
fn general(payload: &str) -> Result<Date<'_>, DateError> {
    let (start, end) = trim_space(payload.as_bytes());
    let mut p = Parser {
        s: payload,
        pos: start,
        end,
    };
    p.date_value()
}

/// The commonest payloads, read without the general parser: upper-case
/// `[ABT |CAL |EST |BEF |AFT ]DATE` and `BET DATE AND DATE` with single
/// spaces, where `DATE` is `[@#DJULIAN@ ][[D ]MON ]YYYY`: a Gregorian
/// or Julian month name, a day of one or two digits within the month and a
/// year of one to four digits above 0. `None` for anything else, which
/// [`general`] reads; where this gives a date, it is the one [`general`]
/// gives (a unit test compares the two).
fn fast(b: &[u8]) -> Option<Date<'static>> {
    let (modifier, rest) = match b {
        [a, b_, c, b' ', rest @ ..] => (ck_bytes([*a, *b_, *c]), rest),
        _ => (0, b),
    };
    let wrap: fn(SimpleDate<'static>) -> Date<'static> = match modifier {
        m if m == ck("ABT") => |d| Date::Approximate(Approximation::About, d),
        m if m == ck("CAL") => |d| Date::Approximate(Approximation::Calculated, d),
        m if m == ck("EST") => |d| Date::Approximate(Approximation::Estimated, d),
        m if m == ck("BEF") => Date::Before,
        m if m == ck("AFT") => Date::After,
        m if m == ck("BET") => {
            let and = rest.windows(5).position(|w| w == b" AND ")?;
            let (a, b) = (&rest[..and], &rest[and + 5..]);
            let (from, to) = (fast_date(a)?, fast_date(b)?);
            return in_order(&from, &to).then_some(Date::Between(from, to));
        }
        _ => return fast_date(b).map(Date::Exact),
    };
    fast_date(rest).map(wrap)
}

/// `BET`'s rule: the second date does not end before the first begins
/// (dates without days are not compared).
fn in_order(from: &SimpleDate<'_>, to: &SimpleDate<'_>) -> bool {
    match (from.jdn_range(), to.jdn_range()) {
        (Some((first, _)), Some((_, last))) => first <= last,
        _ => true,
    }
}

/// The key of three upper-case bytes (as [`ck`]).
fn ck_bytes(b: [u8; 3]) -> u64 {
    u64::from(b[0]) | u64::from(b[1]) << 8 | u64::from(b[2]) << 16
}

/// `[@#DJULIAN@ ][[D ]MON ]YYYY` as [`fast`] reads it.
fn fast_date(b: &[u8]) -> Option<SimpleDate<'static>> {
    let (calendar, b) = match b.strip_prefix(b"@#DJULIAN@ ") {
        Some(rest) => (Calendar::Julian, rest),
        None => (Calendar::Gregorian, b),
    };
    let number = |digits: &[u8], max_len: usize| -> Option<u32> {
        if digits.is_empty() || digits.len() > max_len {
            return None;
        }
        let mut n = 0;
        for &c in digits {
            if !c.is_ascii_digit() {
                return None;
            }
            n = n * 10 + u32::from(c - b'0');
        }
        (n > 0).then_some(n)
    };
    let mut parts = b.split(|&c| c == b' ');
    let first = parts.next()?;
    let (day, month, year) = match (parts.next(), parts.next(), parts.next()) {
        (None, _, _) => (None, None, first),
        (Some(y), None, _) => (None, Some(first), y),
        (Some(m), Some(y), None) => (Some(number(first, 2)?), Some(m), y),
        _ => return None,
    };
    let year = number(year, 4)?;
    let month = match month {
        None => None,
        Some(m) => {
            let [a, b_, c] = <[u8; 3]>::try_from(m).ok()?;
            if !(a.is_ascii_uppercase() && b_.is_ascii_uppercase() && c.is_ascii_uppercase()) {
                return None;
            }
            let k = ck_bytes([a, b_, c]);
            // At most 12 months: the number fits.
            Some(GREGORIAN_KEYS.iter().position(|&n| n == k)? as u8 + 1)
        }
    };
    // Four digits at most: the year fits.
    let logical = year as i32;
    if let (Some(d), Some(m)) = (day, month) {
        let leap = match calendar {
            Calendar::Julian => julian_leap(i64::from(logical)),
            _ => gregorian_leap(i64::from(logical)),
        };
        if d > solar_month_days(m, leap) {
            return None;
        }
    }
    Some(SimpleDate {
        calendar,
        day,
        month: month.map(Month::Known),
        year: Year {
            logical,
            historical: None,
        },
        epoch: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::DateErrorKind as K;

    fn one(s: &str) -> SimpleDate<'_> {
        match Date::parse(s) {
            Ok(Date::Exact(d)) => d,
            other => panic!("{s:?}: {other:?}"),
        }
    }

    fn err(s: &str) -> (DateErrorKind, usize) {
        let e = Date::parse(s).expect_err(s);
        (e.kind(), e.offset())
    }

    fn ymd(y: i32, m: Option<u8>, d: Option<u32>) -> SimpleDate<'static> {
        SimpleDate {
            calendar: Calendar::Gregorian,
            day: d,
            month: m.map(Month::Known),
            year: Year {
                logical: y,
                historical: None,
            },
            epoch: None,
        }
    }

    #[test]
    fn date_day_month_year() {
        assert_eq!(one("21 JAN 1793"), ymd(1793, Some(1), Some(21)));
        assert_eq!(one("JAN 1901"), ymd(1901, Some(1), None));
        assert_eq!(one("1901"), ymd(1901, None, None));
        assert_eq!(one("07 DEC 0800"), ymd(800, Some(12), Some(7)));
        assert_eq!(err("1 JAN"), (K::End, 5));
        assert_eq!(err("JAN"), (K::End, 3));
        assert_eq!(err("1900 1901"), (K::Syntax, 5));
        assert_eq!(err("1900x"), (K::Syntax, 4));
        assert_eq!(err("A.D. 1752"), (K::Syntax, 0));
        assert_eq!(err("1x JAN 1900"), (K::Syntax, 0));
    }

    #[test]
    fn calendar_escapes_and_words() {
        for (s, cal) in [
            ("@#DGREGORIAN@ 1 JAN 1900", Calendar::Gregorian),
            ("GREGORIAN 1 JAN 1900", Calendar::Gregorian),
            ("@#DJULIAN@ 1 JAN 1900", Calendar::Julian),
            ("JULIAN 1 JAN 1900", Calendar::Julian),
            ("@#DHEBREW@ 1 TSH 5760", Calendar::Hebrew),
            ("HEBREW 1 TSH 5760", Calendar::Hebrew),
            ("@#DFRENCH R@ 1 VEND 1", Calendar::FrenchRepublican),
            ("FRENCH_R 1 VEND 1", Calendar::FrenchRepublican),
            ("@#DUNKNOWN@ 5 RAJ 1400", Calendar::Unknown),
            ("@#DROMAN@ 71", Calendar::Other("ROMAN".into())),
            ("_ISLAMIC 1 RAJ 1420", Calendar::Other("_ISLAMIC".into())),
        ] {
            assert_eq!(one(s).calendar, cal, "{s}");
        }
        let roman = one("@#DROMAN@ 5 KSEP 71 A.U.C.");
        assert_eq!(roman.month, Some(Month::Other("KSEP".into())));
        assert_eq!(roman.epoch, Some(Epoch::Other("A.U.C.".into())));
        assert_eq!(roman.jdn_range(), None);
        assert_eq!(err("@#DJULIAN 1 JAN 1900"), (K::Calendar, 20));
        assert_eq!(err("@#D1X@ 1900"), (K::Calendar, 3));
        assert_eq!(err("@#DJULIAN@1 JAN 1900"), (K::Syntax, 10));
        assert_eq!(err("@#DJULIAN@"), (K::End, 10));
        assert_eq!(err("@#ROMAN@ 71"), (K::Syntax, 0));
    }

    #[test]
    fn months_belong_to_their_calendar() {
        assert_eq!(one("@#DHEBREW@ ELL 5760").month, Some(Month::Known(13)));
        assert_eq!(one("@#DFRENCH R@ COMP 3").month, Some(Month::Known(13)));
        assert_eq!(err("@#DHEBREW@ 1 JAN 5760"), (K::Month, 13));
        assert_eq!(err("@#DJULIAN@ 1 VEND 1700"), (K::Month, 13));
        assert_eq!(err("@#DFRENCH R@ 1 FERV 3"), (K::Month, 15));
        // Without a calendar, a month that is not Gregorian makes the date
        // ELF's unknown calendar, kept as written.
        let d = one("12 AUGUST 2000");
        assert_eq!(d.calendar, Calendar::NotGregorian);
        assert_eq!(d.month, Some(Month::Other("AUGUST".into())));
    }

    #[test]
    fn days_fit_their_months() {
        assert_eq!(err("@#DGREGORIAN@ 29 FEB 1900"), (K::Day, 14));
        assert_eq!(one("@#DJULIAN@ 29 FEB 1900").day, Some(29));
        assert_eq!(one("29 FEB 1900").calendar, Calendar::NotGregorian);
        assert_eq!(one("29 FEB 2000").calendar, Calendar::Gregorian);
        assert_eq!(err("@#DGREGORIAN@ 0 JAN 1900"), (K::Day, 14));
        assert_eq!(err("@#DGREGORIAN@ 31 APR 1900"), (K::Day, 14));
        assert_eq!(err("99999999999 JAN 1900"), (K::Day, 0));
        // French Republican: the sixth complementary day only in leap years.
        assert_eq!(one("@#DFRENCH R@ 6 COMP 3").day, Some(6));
        assert_eq!(err("@#DFRENCH R@ 6 COMP 4"), (K::Day, 13));
        assert_eq!(err("@#DFRENCH R@ 31 VEND 4"), (K::Day, 13));
        // Hebrew: 5779 had 355 days, so a 30th of Cheshvan and of Kislev.
        assert_eq!(one("@#DHEBREW@ 30 CSH 5779").day, Some(30));
        assert_eq!(one("@#DHEBREW@ 30 KSL 5779").day, Some(30));
        // 5780 (a common year of 355 days): Adar has 29 days.
        assert_eq!(err("@#DHEBREW@ 30 ADR 5780"), (K::Day, 11));
    }

    #[test]
    fn years_dual_years_and_epochs() {
        let y = |s| one(s).year;
        let dual = |h, l| Year {
            logical: l,
            historical: Some(h),
        };
        assert_eq!(y("30 JAN 1648/49"), dual(1648, 1649));
        assert_eq!(y("30 JAN 1648/9"), dual(1648, 1649));
        assert_eq!(y("30 JAN 1648/1649"), dual(1648, 1649));
        assert_eq!(y("1699/00"), dual(1699, 1700));
        assert_eq!(y("@#DJULIAN@ 1699/0"), dual(1699, 1700));
        // "1616/8" is not abbreviated (no year ending in 8 is within one of
        // 1616): logical year 8, which is not one year from 1616.
        assert_eq!(err("@#DJULIAN@ 1616/8"), (K::DualYear, 11));
        assert_eq!(one("1616/8").calendar, Calendar::NotGregorian);
        assert_eq!(one("1616/8").year, dual(1616, 8));
        assert_eq!(err("@#DFRENCH R@ 3/4"), (K::DualYear, 13));
        assert_eq!(err("1648/"), (K::Syntax, 5));
        let bc = one("63 B.C.");
        assert_eq!(
            (bc.year.logical, &bc.epoch),
            (63, &Some(Epoch::BeforeChrist))
        );
        assert_eq!(one("63 BC"), bc);
        assert_eq!(one("63 BCE"), bc);
        assert_eq!(one("63B.C."), bc);
        assert_eq!(bc.astronomical_year(), -62);
        assert_eq!(one("24 DEC 2018 A.D."), one("24 DEC 2018"));
        assert_eq!(one("@#DHEBREW@ 5760 A.M."), one("@#DHEBREW@ 5760"));
        assert_eq!(err("@#DHEBREW@ 5760 B.C."), (K::Epoch, 16));
        assert_eq!(err("@#DFRENCH R@ 3 A.D."), (K::Epoch, 15));
        assert_eq!(err("@#DJULIAN@ 0"), (K::Year, 11));
        assert_eq!(err("@#DJULIAN@ -5"), (K::Year, 11));
        assert_eq!(err("@#DJULIAN@ 99999999999"), (K::Year, 11));
        assert_eq!(one("0").calendar, Calendar::NotGregorian);
        // Regnal years: an epoch name of another calendar, kept as written.
        let regnal = one("25 OCT 3 HENRY_V");
        assert_eq!(regnal.calendar, Calendar::NotGregorian);
        assert_eq!(regnal.epoch, Some(Epoch::Other("HENRY_V".into())));
    }

    #[test]
    fn modifiers() {
        let d = |s| one(s);
        assert_eq!(
            Date::parse("FROM 1861 TO 1865").unwrap(),
            Date::FromTo(d("1861"), d("1865"))
        );
        assert_eq!(Date::parse("FROM 1861").unwrap(), Date::From(d("1861")));
        assert_eq!(Date::parse("TO 1865").unwrap(), Date::To(d("1865")));
        assert_eq!(Date::parse("BEF 1745").unwrap(), Date::Before(d("1745")));
        assert_eq!(Date::parse("AFT 1745").unwrap(), Date::After(d("1745")));
        assert_eq!(
            Date::parse("BET 1854 AND 1855").unwrap(),
            Date::Between(d("1854"), d("1855"))
        );
        for (s, a) in [
            ("ABT 1899", Approximation::About),
            ("CAL 1898", Approximation::Calculated),
            ("EST 1903", Approximation::Estimated),
        ] {
            assert_eq!(Date::parse(s).unwrap(), Date::Approximate(a, d(&s[4..])));
        }
        assert_eq!(
            Date::parse("INT 1900 (about then)").unwrap(),
            Date::Interpreted(d("1900"), "about then".into())
        );
        assert_eq!(
            Date::parse("(Not known)").unwrap(),
            Date::Phrase("Not known".into())
        );
        assert_eq!(Date::parse("()").unwrap(), Date::Phrase("".into()));
        assert_eq!(Date::parse("").unwrap(), Date::Empty);
        assert_eq!(Date::parse("  \t").unwrap(), Date::Empty);
        assert_eq!(err("BET 1854"), (K::End, 8));
        assert_eq!(err("BET 1854 1855"), (K::Syntax, 9));
        assert_eq!(err("BET 1855 AND 1854"), (K::Order, 13));
        assert_eq!(err("FROM"), (K::End, 4));
        assert_eq!(err("FROM 1861 TO"), (K::End, 12));
        assert_eq!(err("EST ABT 1881"), (K::Syntax, 4));
        assert_eq!(err("INT 1900"), (K::End, 8));
        assert_eq!(err("INT 1900 [x]"), (K::Syntax, 9));
        // A word after a number may be a month: then a year must follow.
        assert_eq!(err("INT 1900 about"), (K::End, 14));
        assert_eq!(err("(a (b) c)"), (K::Phrase, 3));
        assert_eq!(err("(open"), (K::Phrase, 5));
        assert_eq!(err("(a) 1900"), (K::Syntax, 4));
        assert_eq!(err("1900 (a)"), (K::Syntax, 5));
    }

    #[test]
    fn lenient_space_and_case() {
        assert_eq!(
            Date::parse(" abt\t1  jan 1900 ").unwrap(),
            Date::parse("ABT 1 JAN 1900").unwrap()
        );
        assert_eq!(one("@#djulian@ 1 mar 1700"), one("@#DJULIAN@ 1 MAR 1700"));
        assert_eq!(one("julian 1 mar 1700"), one("JULIAN 1 MAR 1700"));
        assert_eq!(one("63 b.c."), one("63 B.C."));
        // The offsets count from the start of the payload, spaces included.
        assert_eq!(err("  BET 1854"), (K::End, 10));
    }

    #[test]
    fn phrases_and_names_are_borrowed() {
        let text = String::from("INT @#DROMAN@ 5 KSEP 71 (ante diem V Kal. Sept.)");
        let d = Date::parse(&text).unwrap();
        let Date::Interpreted(date, phrase) = &d else {
            panic!("{d:?}")
        };
        assert!(matches!(phrase, Cow::Borrowed(_)));
        assert!(matches!(&date.calendar, Calendar::Other(Cow::Borrowed(_))));
        let owned: Date<'static> = d.clone().into_owned();
        drop(text);
        assert_eq!(owned.phrase(), Some("ante diem V Kal. Sept."));
    }

    #[test]
    fn the_fast_path_reads_as_the_general_parser_does() {
        let mut taken = 0;
        let days = [
            "", "0", "1", "07", "28", "29", "30", "31", "32", "001", "1x",
        ];
        let months = [
            "", "JAN", "FEB", "APR", "DEC", "Jan", "JUNE", "AND", "BCE", "TSH", "A1C", "B.C",
        ];
        let years = [
            "0", "1", "99", "0800", "1900", "2000", "2001", "9999", "12345", "-5", "1648/49",
        ];
        let prefixes = [
            "",
            "ABT ",
            "CAL ",
            "EST ",
            "BEF ",
            "AFT ",
            "BET ",
            "TO ",
            "abt ",
            "ABT  ",
            "@#DJULIAN@ ",
            "@#DJULIAN@  ",
            "@#DJULIAN ",
            "@#DGREGORIAN@ ",
            "@#DHEBREW@ ",
            "ABT @#DJULIAN@ ",
            "BET 1 JAN 1500 AND ",
            "BET @#DJULIAN@ 29 FEB 1500 AND @#DJULIAN@ ",
            "BET 29 FEB 1500 AND ",
            "BET 1500 AND @#DJULIAN@ ",
            "BET 1500 AND BET ",
            "BET 1500 AND ABT ",
            "BET AND ",
        ];
        for prefix in prefixes {
            for day in days {
                for month in months {
                    for year in years {
                        let mut s = prefix.to_string();
                        for part in [day, month] {
                            if !part.is_empty() {
                                s += part;
                                s.push(' ');
                            }
                        }
                        s += year;
                        for text in [s.clone(), format!("{s} "), format!("{s} B.C.")] {
                            if let Some(d) = fast(text.as_bytes()) {
                                taken += 1;
                                assert_eq!(Ok(d), general(&text), "{text:?}");
                            }
                        }
                    }
                }
            }
        }
        assert!(taken > 1000, "{taken}");
        // Julian dates and ranges are among those taken.
        for text in ["@#DJULIAN@ 29 FEB 1500", "BET @#DJULIAN@ 1500 AND MAR 1501"] {
            assert!(fast(text.as_bytes()).is_some(), "{text}");
        }
    }

    #[test]
    fn odd_input_is_an_error_not_a_panic() {
        for s in [
            "@",
            "@#",
            "@#D",
            "@#D@",
            "@#DX@",
            "(",
            ")",
            "/",
            "-",
            "1/",
            "-/-",
            "1 -",
            "1 JAN -",
            "BET",
            "BET AND",
            "INT (",
            "INT 1 (",
            "FROM TO",
            "TO TO",
            "1 1 1",
            "é",
            "1 É 1900",
            "1900 $",
            "1900 $x",
            "\u{0}",
            "1900/99999999999",
            "-2147483648",
            "2147483648",
        ] {
            let _ = Date::parse(s);
        }
        assert_eq!(err("1900/99999999999"), (K::Year, 5));
        assert_eq!(one("1900 $x").epoch, Some(Epoch::Other("$x".into())));
    }
}
