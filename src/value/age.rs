//! `AGE` payloads: GEDCOM 5.5.1 as the FHISO ELF *Date, Age and Time
//! Microformats* draft clarifies it (its `elf:Age` datatype), and GEDCOM 7,
//! in one typed [`Age`].
//!
//! One parser reads both grammars:
//!
//! - **durations**: numbers of years `y`, months `m` and days `d` (5.5.1,
//!   ELF), and weeks `w` (GEDCOM 7), each present at most once and in that
//!   order (`1y 2m 3w 4d`), at least one of them;
//! - a **bare year** (`58`), which ELF allows and reads as `58y` (5.5.1
//!   required the `y`; GEDCOM 7 does too), alone only: `15 2m` is an error;
//! - a **bound** before a duration: `<` (at most that age) and `>` (at
//!   least that age), as ELF reads them (GEDCOM 7 says less than and
//!   greater than; with ages rounded down the difference is a day);
//! - the 5.5.1 **age words** `CHILD`, `INFANT` and `STILLBORN`, never with a
//!   bound;
//! - the empty payload (GEDCOM 7, whose meaning may be in a `PHRASE`).
//!
//! What is lenient, as ELF's conventions allow a reader to accept input it
//! would not write: any run of spaces, tabs, CRs and LFs where either grammar
//! has a space, or none at all (`2y0m`, `>21y`, which ELF allows), leading
//! and trailing white space, and units and age words in any ASCII case (ELF's
//! productions are case-sensitive; `17Y` is read as `17y`). Leading zeros are
//! dropped, as ELF allows. Everything else is an [`AgeError`] with its
//! [`AgeErrorKind`], the byte offset where it went wrong and what was expected
//! there.
//!
//! The printed form ([`Display`](fmt::Display)) is ELF's recommended one:
//! one space after the bound and between parts, lower-case units, the `y` of
//! a bare year, no leading zeros, no zero part added or removed. An age with
//! weeks has no 5.5.1 form; it prints with its `w`, as GEDCOM 7 writes it.
//! [`Age::gedcom7`] gives the GEDCOM 7 payload and `PHRASE`.
//!
//! ```
//! use gedcom_elf::value::{Age, AgeBound, AgeErrorKind, Duration};
//!
//! let age = Age::parse(">21Y 6m")?;
//! let years_and_months = Duration { years: Some(21), months: Some(6), ..Duration::default() };
//! assert_eq!(age, Age::Duration(Some(AgeBound::AtLeast), years_and_months));
//! assert_eq!(age.to_string(), "> 21y 6m");
//!
//! let err = Age::parse("3 months").unwrap_err();
//! assert_eq!(err.kind(), AgeErrorKind::Syntax);
//! assert_eq!(err.offset(), 1);
//! assert_eq!(err.to_string(), "byte 1: expected `y`, `m`, `w` or `d`");
//! # Ok::<(), gedcom_elf::value::AgeError>(())
//! ```

use std::fmt;

use super::parse::{is_space, trim_space};

/// The bound of an age: `<` or `>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgeBound {
    /// `<`: at most the age given (ELF; GEDCOM 7 says less than).
    AtMost,
    /// `>`: at least the age given (ELF; GEDCOM 7 says greater than).
    AtLeast,
}

impl AgeBound {
    /// The symbol: `<` or `>`.
    pub fn symbol(self) -> char {
        match self {
            AgeBound::AtMost => '<',
            AgeBound::AtLeast => '>',
        }
    }
}

/// A 5.5.1 age word, which GEDCOM 7 removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgeWord {
    /// `CHILD`: 5.5.1 says under 8 years; ELF sets no firm limit.
    Child,
    /// `INFANT`: 5.5.1 says under 1 year; ELF sets no firm limit.
    Infant,
    /// `STILLBORN`: died just before, at or just after birth (5.5.1: about
    /// 0 days old).
    Stillborn,
}

impl AgeWord {
    /// The keyword: `CHILD`, `INFANT` or `STILLBORN`.
    pub fn keyword(self) -> &'static str {
        match self {
            AgeWord::Child => "CHILD",
            AgeWord::Infant => "INFANT",
            AgeWord::Stillborn => "STILLBORN",
        }
    }
}

const WORDS: [AgeWord; 3] = [AgeWord::Child, AgeWord::Infant, AgeWord::Stillborn];

/// The numbers of an age: calendar years, months, weeks (GEDCOM 7 only) and
/// days, each given or not. ELF's sum of its parts, which a reader must not
/// convert from one unit to another (`2y`, `2y 0m` and `24m` differ).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Duration {
    /// `y`: calendar years.
    pub years: Option<u32>,
    /// `m`: calendar months.
    pub months: Option<u32>,
    /// `w`: weeks (GEDCOM 7).
    pub weeks: Option<u32>,
    /// `d`: days.
    pub days: Option<u32>,
}

impl Duration {
    /// The parts in order, each with its unit letter.
    fn parts(&self) -> [(Option<u32>, char); 4] {
        [
            (self.years, 'y'),
            (self.months, 'm'),
            (self.weeks, 'w'),
            (self.days, 'd'),
        ]
    }

    /// Whether no part is given (only built by hand: a parsed duration has
    /// at least one).
    pub fn is_empty(&self) -> bool {
        self.parts().iter().all(|(n, _)| n.is_none())
    }

    /// The fewest and most days this duration can mean, read as ages are
    /// written (rounded down to its smallest part): see [`Age::days_range`].
    /// `None` when no part is given.
    pub fn days_range(&self) -> Option<(u64, u64)> {
        // Each unit's fewest and most days.
        const SPAN: [(u64, u64); 4] = [(365, 366), (28, 31), (7, 7), (1, 1)];
        let counts = [self.years, self.months, self.weeks, self.days];
        let smallest = counts.iter().rposition(Option::is_some)?;
        let (mut min, mut max) = (0, 0);
        for (i, (n, (lo, hi))) in counts.iter().zip(SPAN).enumerate() {
            let n = u64::from(n.unwrap_or(0));
            min += n * lo;
            // Up to one more of the smallest unit, less a day.
            max += if i == smallest {
                (n + 1) * hi - 1
            } else {
                n * hi
            };
        }
        Some((min, max))
    }
}

/// An `AGE` payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Age {
    /// The empty payload (GEDCOM 7; the meaning may be in a `PHRASE`).
    Empty,
    /// A duration, with its bound if any.
    Duration(Option<AgeBound>, Duration),
    /// `CHILD`, `INFANT` or `STILLBORN` (5.5.1, ELF).
    Word(AgeWord),
}

/// What kind of problem an [`AgeError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgeErrorKind {
    /// A word or character that the grammar does not allow there.
    Syntax,
    /// The payload ended where more was required.
    End,
    /// A number that does not fit in 32 bits.
    Number,
    /// A unit given twice or after a smaller one (`2m 1y`).
    Order,
}

payload_error!(
    /// Why a payload is not an age: the kind, the byte offset in the payload and
    /// what was expected there.
    AgeError,
    AgeErrorKind
);

const START: &str = "`<`, `>`, a number, `CHILD`, `INFANT` or `STILLBORN`";
const UNIT: &str = "`y`, `m`, `w` or `d`";

impl Age {
    /// Parses an `AGE` payload of GEDCOM 5.5.1/ELF or GEDCOM 7 (see the
    /// [module docs](super::age) for what each grammar contributes and what
    /// is read leniently).
    ///
    /// ```
    /// use gedcom_elf::value::{Age, AgeWord, Duration};
    ///
    /// assert_eq!(Age::parse("child")?, Age::Word(AgeWord::Child));
    /// let d = Duration { years: Some(58), ..Duration::default() };
    /// assert_eq!(Age::parse("58")?, Age::Duration(None, d));
    /// assert_eq!(Age::parse("58y")?, Age::Duration(None, d));
    /// assert!(Age::parse("< CHILD").is_err());
    /// # Ok::<(), gedcom_elf::value::AgeError>(())
    /// ```
    pub fn parse(payload: &str) -> Result<Age, AgeError> {
        let b = payload.as_bytes();
        let (start, end) = trim_space(b);
        if start == end {
            return Ok(Age::Empty);
        }
        if b[start].is_ascii_alphabetic() {
            let word = &payload[start..end];
            return WORDS
                .into_iter()
                .find(|w| w.keyword().eq_ignore_ascii_case(word))
                .map(Age::Word)
                .ok_or(AgeError::new(AgeErrorKind::Syntax, start, START));
        }
        let skip_space = |mut pos: usize| {
            while pos < end && is_space(b[pos]) {
                pos += 1;
            }
            pos
        };
        let mut pos = start;
        let bound = match b[pos] {
            b'<' => Some(AgeBound::AtMost),
            b'>' => Some(AgeBound::AtLeast),
            _ => None,
        };
        if bound.is_some() {
            pos = skip_space(pos + 1);
            if pos == end {
                return Err(AgeError::new(AgeErrorKind::End, pos, "a number"));
            }
        }
        let mut d = Duration::default();
        // The index of the last unit read: y 0, m 1, w 2, d 3.
        let mut last: Option<usize> = None;
        loop {
            let at = pos;
            while pos < end && b[pos].is_ascii_digit() {
                pos += 1;
            }
            if pos == at {
                let expected = match (last, bound) {
                    (Some(_), _) => "a number or the end",
                    (None, Some(_)) => "a number",
                    (None, None) => START,
                };
                return Err(AgeError::new(AgeErrorKind::Syntax, at, expected));
            }
            let n = payload[at..pos].parse::<u32>().map_err(|_| {
                AgeError::new(AgeErrorKind::Number, at, "a number that fits in 32 bits")
            })?;
            let unit =
                b.get(pos)
                    .filter(|_| pos < end)
                    .and_then(|c| match c.to_ascii_lowercase() {
                        b'y' => Some(0),
                        b'm' => Some(1),
                        b'w' => Some(2),
                        b'd' => Some(3),
                        _ => None,
                    });
            let Some(unit) = unit else {
                if pos == end && last.is_none() {
                    // ELF's BareYear.
                    d.years = Some(n);
                    break;
                }
                let kind = if pos == end {
                    AgeErrorKind::End
                } else {
                    AgeErrorKind::Syntax
                };
                return Err(AgeError::new(kind, pos, UNIT));
            };
            if last.is_some_and(|l| unit <= l) {
                return Err(AgeError::new(
                    AgeErrorKind::Order,
                    pos,
                    "a unit smaller than the one before (`y`, `m`, `w`, `d` in that order)",
                ));
            }
            *[&mut d.years, &mut d.months, &mut d.weeks, &mut d.days][unit] = Some(n);
            last = Some(unit);
            pos = skip_space(pos + 1);
            if pos == end {
                break;
            }
        }
        Ok(Age::Duration(bound, d))
    }

    /// The fewest and most days of life this age can mean, for comparing it
    /// with the days between two dates. The rule: an age is its lived time
    /// rounded down to its smallest part (GEDCOM 7 says so, and ELF says ages
    /// should generally be), so `40y` is 40 years up to 41 years less a day;
    /// a year is 365 or 366 days, a month 28 to 31, a week 7. So the fewest
    /// days count every part at its shortest, and the most count every part
    /// at its longest with one more of the smallest unit, less a day. `<`
    /// starts at 0, `>` has no end (`None`); both include the age given, as
    /// ELF reads them. `None` for the empty payload and the age words, which
    /// ELF gives no firm limits (their GEDCOM 7 forms from [`Age::gedcom7`]
    /// carry 5.5.1's).
    ///
    /// ```
    /// use gedcom_elf::value::Age;
    ///
    /// assert_eq!(Age::parse("40y")?.days_range(), Some((14_600, Some(15_005))));
    /// assert_eq!(Age::parse("2y 3m")?.days_range(), Some((814, Some(855))));
    /// assert_eq!(Age::parse("< 5d")?.days_range(), Some((0, Some(5))));
    /// assert_eq!(Age::parse("> 1w")?.days_range(), Some((7, None)));
    /// assert_eq!(Age::parse("CHILD")?.days_range(), None);
    /// # Ok::<(), gedcom_elf::value::AgeError>(())
    /// ```
    pub fn days_range(&self) -> Option<(u64, Option<u64>)> {
        let Age::Duration(bound, d) = self else {
            return None;
        };
        let (min, max) = d.days_range()?;
        Some(match bound {
            None => (min, Some(max)),
            Some(AgeBound::AtMost) => (0, Some(max)),
            Some(AgeBound::AtLeast) => (min, None),
        })
    }

    /// The GEDCOM 7 form: the payload, and the `PHRASE` to go with it. A
    /// duration is as printed; `CHILD` and `INFANT` become `< 8y` and `< 1y`
    /// with the phrase `Child` and `Infant`, as the GEDCOM 7 migration guide
    /// does (5.5.1 defined them so). `STILLBORN` has no GEDCOM 7 payload:
    /// the guide moves it out of the age (see [`AgeNotGedcom7::Stillborn`]).
    ///
    /// ```
    /// use gedcom_elf::value::{Age, AgeNotGedcom7};
    ///
    /// let g7 = Age::parse("CHILD")?.gedcom7().unwrap();
    /// assert_eq!((g7.payload.as_str(), g7.phrase.as_deref()), ("< 8y", Some("Child")));
    /// assert_eq!(Age::parse(">3w2d")?.gedcom7().unwrap().payload, "> 3w 2d");
    /// assert_eq!(Age::parse("STILLBORN")?.gedcom7(), Err(AgeNotGedcom7::Stillborn));
    /// # Ok::<(), gedcom_elf::value::AgeError>(())
    /// ```
    pub fn gedcom7(&self) -> Result<Gedcom7Age, AgeNotGedcom7> {
        let (payload, phrase) = match self {
            Age::Word(AgeWord::Child) => ("< 8y".to_string(), Some("Child".to_string())),
            Age::Word(AgeWord::Infant) => ("< 1y".to_string(), Some("Infant".to_string())),
            Age::Word(AgeWord::Stillborn) => return Err(AgeNotGedcom7::Stillborn),
            Age::Empty | Age::Duration(..) => (self.to_string(), None),
        };
        Ok(Gedcom7Age { payload, phrase })
    }
}

/// An age as a GEDCOM 7 `AGE` payload and the `PHRASE` substructure to go
/// with it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gedcom7Age {
    /// The payload: a bound and a duration, or empty.
    pub payload: String,
    /// The age word's meaning in English, for `CHILD` and `INFANT`.
    pub phrase: Option<String>,
}

/// Why an age has no GEDCOM 7 form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgeNotGedcom7 {
    /// `STILLBORN`, which says how someone died as well as their age. The
    /// GEDCOM 7 migration guide removes the `AGE` line and puts the facts on
    /// the individual's events instead: a `DEAT` with `AGE 0y` (unless it
    /// has an age), a `BIRT` with `TYPE Stillborn` (unless it has a type),
    /// and optionally `NOTE Stillborn` where the age was. That is a change
    /// of structures, for a converter, not of this payload.
    Stillborn,
}

impl fmt::Display for AgeNotGedcom7 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgeNotGedcom7::Stillborn => f.write_str(
                "GEDCOM 7 has no STILLBORN age (it becomes DEAT.AGE 0y and BIRT.TYPE Stillborn)",
            ),
        }
    }
}

impl std::error::Error for AgeNotGedcom7 {}

impl fmt::Display for Duration {
    /// The parts given, each with its unit, one space between them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for (n, unit) in self.parts() {
            if let Some(n) = n {
                write!(f, "{sep}{n}{unit}")?;
                sep = " ";
            }
        }
        Ok(())
    }
}

impl fmt::Display for Age {
    /// The canonical form (see the [module docs](super::age)). A duration
    /// with no part (only built by hand) prints as the empty payload.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Age::Empty => Ok(()),
            Age::Word(w) => f.write_str(w.keyword()),
            Age::Duration(_, d) if d.is_empty() => Ok(()),
            Age::Duration(Some(b), d) => write!(f, "{} {d}", b.symbol()),
            Age::Duration(None, d) => write!(f, "{d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dur(y: Option<u32>, m: Option<u32>, w: Option<u32>, d: Option<u32>) -> Duration {
        Duration {
            years: y,
            months: m,
            weeks: w,
            days: d,
        }
    }

    fn err(s: &str) -> (AgeErrorKind, usize) {
        let e = Age::parse(s).unwrap_err();
        (e.kind(), e.offset())
    }

    #[test]
    fn durations_in_every_unit_and_order() {
        let cases = [
            ("42y", dur(Some(42), None, None, None)),
            ("6m", dur(None, Some(6), None, None)),
            ("8w", dur(None, None, Some(8), None)),
            ("21d", dur(None, None, None, Some(21))),
            ("42y 6m 9d", dur(Some(42), Some(6), None, Some(9))),
            ("1y 2m 3w 4d", dur(Some(1), Some(2), Some(3), Some(4))),
            ("6m 9d", dur(None, Some(6), None, Some(9))),
            ("0y", dur(Some(0), None, None, None)),
        ];
        for (s, d) in cases {
            assert_eq!(Age::parse(s), Ok(Age::Duration(None, d)), "{s}");
            assert_eq!(Age::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(err("2m 1y"), (AgeErrorKind::Order, 4));
        assert_eq!(err("1y 2y"), (AgeErrorKind::Order, 4));
        assert_eq!(err("1d1w"), (AgeErrorKind::Order, 3));
    }

    #[test]
    fn bare_year_alone_only() {
        let y58 = Age::Duration(None, dur(Some(58), None, None, None));
        assert_eq!(Age::parse("58"), Ok(y58));
        assert_eq!(Age::parse("058").unwrap().to_string(), "58y");
        assert_eq!(
            Age::parse("> 58"),
            Ok(Age::Duration(
                Some(AgeBound::AtLeast),
                dur(Some(58), None, None, None)
            ))
        );
        assert_eq!(err("15 2m"), (AgeErrorKind::Syntax, 2));
        assert_eq!(err("2y 3"), (AgeErrorKind::End, 4));
        assert_eq!(err("3 months"), (AgeErrorKind::Syntax, 1));
        assert_eq!(err("3x"), (AgeErrorKind::Syntax, 1));
    }

    #[test]
    fn bounds() {
        for (s, b, printed) in [
            ("< 8y", AgeBound::AtMost, "< 8y"),
            ("<8y", AgeBound::AtMost, "< 8y"),
            (">\t8y", AgeBound::AtLeast, "> 8y"),
        ] {
            let age = Age::parse(s).unwrap();
            assert_eq!(age, Age::Duration(Some(b), dur(Some(8), None, None, None)));
            assert_eq!(age.to_string(), printed);
        }
        assert_eq!(err("<"), (AgeErrorKind::End, 1));
        assert_eq!(err("< "), (AgeErrorKind::End, 1));
        assert_eq!(err("< CHILD"), (AgeErrorKind::Syntax, 2));
        assert_eq!(err("<> 1y"), (AgeErrorKind::Syntax, 1));
        assert_eq!(err("8y <"), (AgeErrorKind::Syntax, 3));
    }

    #[test]
    fn age_words() {
        for (s, w) in [
            ("CHILD", AgeWord::Child),
            ("Infant", AgeWord::Infant),
            (" stillborn ", AgeWord::Stillborn),
        ] {
            assert_eq!(Age::parse(s), Ok(Age::Word(w)));
            assert_eq!(Age::parse(s).unwrap().to_string(), w.keyword());
        }
        assert_eq!(err("CHILDREN"), (AgeErrorKind::Syntax, 0));
        assert_eq!(err(" Database online."), (AgeErrorKind::Syntax, 1));
    }

    #[test]
    fn lenient_space_and_case() {
        let a = Age::parse("  >42Y\t6M\r\n9D ").unwrap();
        assert_eq!(
            a,
            Age::Duration(
                Some(AgeBound::AtLeast),
                dur(Some(42), Some(6), None, Some(9))
            )
        );
        assert_eq!(a.to_string(), "> 42y 6m 9d");
        assert_eq!(Age::parse("2y0m").unwrap().to_string(), "2y 0m");
        assert_eq!(Age::parse(" \t"), Ok(Age::Empty));
        assert_eq!(Age::parse(""), Ok(Age::Empty));
    }

    #[test]
    fn numbers_fit_in_32_bits() {
        assert_eq!(
            Age::parse("4294967295d").unwrap().to_string(),
            "4294967295d"
        );
        assert_eq!(err("4294967296d"), (AgeErrorKind::Number, 0));
        assert_eq!(err("1y 99999999999m"), (AgeErrorKind::Number, 3));
        let max = Age::parse("> 4294967295y 4294967295m 4294967295w 4294967295d").unwrap();
        assert!(max.days_range().is_some());
    }

    #[test]
    fn days_ranges() {
        let r = |s: &str| Age::parse(s).unwrap().days_range();
        assert_eq!(r("0d"), Some((0, Some(0))));
        assert_eq!(r("5d"), Some((5, Some(5))));
        assert_eq!(r("1w"), Some((7, Some(13))));
        assert_eq!(r("1m"), Some((28, Some(61))));
        assert_eq!(r("0y"), Some((0, Some(365))));
        assert_eq!(r("1y 1d"), Some((366, Some(367))));
        assert_eq!(r("< 1y"), Some((0, Some(731))));
        assert_eq!(r("> 1y"), Some((365, None)));
        assert_eq!(r(""), None);
        assert_eq!(r("INFANT"), None);
        assert_eq!(Age::Duration(None, Duration::default()).days_range(), None);
    }

    #[test]
    fn gedcom7_forms() {
        let g = |s: &str| Age::parse(s).unwrap().gedcom7();
        let infant = g("INFANT").unwrap();
        assert_eq!(infant.payload, "< 1y");
        assert_eq!(infant.phrase.as_deref(), Some("Infant"));
        assert_eq!(g("58").unwrap().payload, "58y");
        assert_eq!(g("").unwrap().payload, "");
        assert_eq!(g("<2y0m").unwrap().phrase, None);
        assert_eq!(g("stillborn"), Err(AgeNotGedcom7::Stillborn));
    }

    #[test]
    fn a_hand_built_empty_duration_prints_as_the_empty_payload() {
        let a = Age::Duration(Some(AgeBound::AtMost), Duration::default());
        assert_eq!(a.to_string(), "");
        assert_eq!(Age::parse(&a.to_string()), Ok(Age::Empty));
    }

    #[test]
    fn odd_input_is_an_error_not_a_panic() {
        for s in [
            "y",
            "<y",
            "1yy",
            "1y m",
            "é",
            "1é",
            "<é",
            "9\u{0}",
            "1y\u{301}",
            "((",
            "-1y",
            "+1y",
            "1.5y",
            "1y,2m",
        ] {
            assert!(Age::parse(s).is_err(), "{s:?}");
        }
    }
}
