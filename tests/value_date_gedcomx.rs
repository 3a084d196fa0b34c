//! `gedcom_elf::value::gedcomx` against every example of *The GEDCOM X Date
//! Format* (`../shared/specs/gedcomx/date-format-specification.md`), known
//! days of the other calendars, generated dates, random formal text and
//! every `DATE` payload of `../shared/corpus`.

mod common;

use common::Rng;

use gedcom_elf::value::{
    Approximation, Calendar, Date, Epoch, GedcomxDate, GedcomxErrorKind as K, GedcomxForm, Month,
    NotGedcomx, SimpleDate, Year,
};
use gedcom_elf::{Event, Input, Value};

/// What a formal example must give.
enum Want {
    /// Parses (and prints as written); its `DATE` is the first text, and
    /// that `DATE` converts back to the second (the example itself where
    /// nothing is lost: no time of day, no duration, no `A` on a range).
    Ok(&'static str, &'static str),
    /// Is an error of this kind.
    Err(K),
}

/// Every example of the specification, section by section.
const EXAMPLES: &[(&str, Want)] = &[
    // §5.2.3 Simple date.
    (
        "+1752-01-18T22:14:03Z",
        Want::Ok("18 JAN 1752", "+1752-01-18"),
    ),
    (
        "+1964-11-14T10-07:00",
        Want::Ok("14 NOV 1964", "+1964-11-14"),
    ),
    ("+1889-05-17T14:23", Want::Ok("17 MAY 1889", "+1889-05-17")),
    ("+1492-07-27", Want::Ok("27 JUL 1492", "+1492-07-27")),
    ("+0186-03", Want::Ok("MAR 186", "+0186-03")),
    ("-1321", Want::Ok("1322 B.C.", "-1321")),
    // §5.3.3 Duration: never a date alone.
    ("P17Y6M2D", Want::Err(K::Duration)),
    ("P186D", Want::Err(K::Duration)),
    ("PT5H17M", Want::Err(K::Duration)),
    ("P1000Y18M72DT56H10M1S", Want::Err(K::Duration)),
    // §5.4.2 Closed date range.
    ("+1752/+1823", Want::Ok("BET 1752 AND 1823", "+1752/+1823")),
    (
        "+1825-04-13/+1825-11-26",
        Want::Ok("BET 13 APR 1825 AND 26 NOV 1825", "+1825-04-13/+1825-11-26"),
    ),
    (
        "+1933-02-19/P74Y",
        Want::Ok("BET 19 FEB 1933 AND 19 FEB 2007", "+1933-02-19/+2007-02-19"),
    ),
    // §5.5.2 Open-ended date range.
    ("/+1887-03", Want::Ok("BEF MAR 1887", "/+1887-03")),
    ("+1976-07-11/", Want::Ok("AFT 11 JUL 1976", "+1976-07-11/")),
    ("/-1287", Want::Ok("BEF 1288 B.C.", "/-1287")),
    ("/+0000", Want::Ok("BEF 1 B.C.", "/+0000")),
    ("-0001-04/", Want::Ok("AFT APR 2 B.C.", "-0001-04/")),
    // §5.6.3 Recurring date: not supported.
    ("R4/+1776-04-02/+1776-04-09", Want::Err(K::Recurring)),
    ("R/+2000/P12Y", Want::Err(K::Recurring)),
    ("R100/+1830/+1840", Want::Err(K::Recurring)),
    // §5.7.1 Approximate date.
    ("A+1680", Want::Ok("ABT 1680", "A+1680")),
    ("A-1400", Want::Ok("ABT 1401 B.C.", "A-1400")),
    (
        "A+1980-05-18T18:53Z",
        Want::Ok("ABT 18 MAY 1980", "A+1980-05-18"),
    ),
    ("A+2014-08-19", Want::Ok("ABT 19 AUG 2014", "A+2014-08-19")),
    // §5.8.1 Approximate date range: GEDCOM has no approximate range.
    ("A+1752/+1823", Want::Ok("BET 1752 AND 1823", "+1752/+1823")),
    (
        "A+1825-04-13/+1825-11-26",
        Want::Ok("BET 13 APR 1825 AND 26 NOV 1825", "+1825-04-13/+1825-11-26"),
    ),
    (
        "A+1633-02-19/P74Y",
        Want::Ok("BET 19 FEB 1633 AND 19 FEB 1707", "+1633-02-19/+1707-02-19"),
    ),
    ("A/+1887-03", Want::Ok("BEF MAR 1887", "/+1887-03")),
    ("A+1976-07-11/", Want::Ok("AFT 11 JUL 1976", "+1976-07-11/")),
    ("A/-1287", Want::Ok("BEF 1288 B.C.", "/-1287")),
    ("A/+0000", Want::Ok("BEF 1 B.C.", "/+0000")),
    ("A-0001-04/", Want::Ok("AFT APR 2 B.C.", "-0001-04/")),
    // §6.1 URI representation (the part after `gedcomx-date:`).
    ("+1863-09-14", Want::Ok("14 SEP 1863", "+1863-09-14")),
    ("A+1742", Want::Ok("ABT 1742", "A+1742")),
    (
        "+1834-10/+1835-05",
        Want::Ok("BET OCT 1834 AND MAY 1835", "+1834-10/+1835-05"),
    ),
];

#[test]
fn every_example_of_the_specification() {
    let mut round_trips = 0;
    for (formal, want) in EXAMPLES {
        match (GedcomxDate::parse(formal), want) {
            (Ok(d), Want::Ok(date, back)) => {
                assert_eq!(&d.to_string(), formal, "prints back");
                let g = d.to_date();
                assert_eq!(&g.to_string(), date, "{formal}");
                assert_eq!(Date::parse(date).as_ref(), Ok(&g), "{formal}");
                let again = g.gedcomx().unwrap_or_else(|e| panic!("{formal}: {e}"));
                assert_eq!(&again.to_string(), back, "{formal}");
                round_trips += usize::from(back == formal);
            }
            (Err(e), Want::Err(kind)) => {
                assert_eq!(e.kind(), *kind, "{formal}: {e}");
                assert!(e.offset() <= formal.len());
            }
            (got, _) => panic!("{formal}: {got:?}"),
        }
    }
    // Of the 36 examples, 7 are errors and 13 lose a time of day (4), a
    // duration (1) or an `A` on a range (8).
    assert_eq!(round_trips, 16);
}

/// The formal date of a payload.
fn gx(s: &str) -> Result<String, NotGedcomx> {
    Date::parse(s)
        .unwrap_or_else(|e| panic!("{s:?}: {e}"))
        .gedcomx()
        .map(|g| g.to_string())
}

#[test]
fn other_calendars_convert_through_their_days() {
    let cases = [
        // The day before the Gregorian reform, in the Julian calendar.
        ("@#DJULIAN@ 4 OCT 1582", "+1582-10-14"),
        ("15 OCT 1582", "+1582-10-15"),
        ("@#DJULIAN@ 15 MAR 44 B.C.", "-0043-03-13"),
        ("44 B.C.", "-0043"),
        ("@#DHEBREW@ 1 TSH 5760", "+1999-09-11"),
        ("@#DHEBREW@ 1 TSH 5780", "+2019-09-30"),
        ("@#DFRENCH R@ 1 VEND 1", "+1792-09-22"),
        // 18 Brumaire VIII, Napoleon's coup.
        ("@#DFRENCH R@ 18 BRUM 8", "+1799-11-09"),
        // A month of another calendar is the span of its days.
        ("@#DFRENCH R@ BRUM 8", "+1799-10-23/+1799-11-21"),
        ("@#DHEBREW@ TSH 5760", "+1999-09-11/+1999-10-10"),
        // Dual years are their logical (Gregorian) year.
        ("30 JAN 1750/51", "+1751-01-30"),
        ("@#DJULIAN@ 30 JAN 1750/51", "+1751-02-10"),
        ("ABT @#DJULIAN@ 1 MAR 1700/01", "A+1701-03-12"),
    ];
    for (payload, formal) in cases {
        assert_eq!(gx(payload).as_deref(), Ok(formal), "{payload}");
        let back = GedcomxDate::parse(formal).unwrap().to_date();
        let d = Date::parse(payload).unwrap();
        assert_eq!(back.jdn_range(), d.jdn_range(), "{payload}");
    }
}

#[test]
fn what_has_no_formal_date_says_why() {
    assert_eq!(gx(""), Err(NotGedcomx::Empty));
    assert_eq!(gx("(Feast of St John)"), Err(NotGedcomx::Phrase));
    assert_eq!(gx("29 FEB 1900"), Err(NotGedcomx::UnknownCalendar));
    assert_eq!(
        gx("@#DISLAMIC@ 1 RAJ 1420"),
        Err(NotGedcomx::Calendar("ISLAMIC".into()))
    );
    assert_eq!(gx("@#DFRENCH R@ 1 VEND 20"), Err(NotGedcomx::NoDays));
    assert_eq!(gx("12000"), Err(NotGedcomx::Year(12_000)));
    assert_eq!(gx("FROM 1900 TO 1800"), Err(NotGedcomx::Order));
    assert_eq!(
        NotGedcomx::Phrase.to_string(),
        "a date phrase alone has no formal date"
    );
    // A date phrase with its interpretation is the interpretation.
    assert_eq!(gx("INT 1900 (nineteen hundred)").as_deref(), Ok("+1900"));
}

/// A well-formed date in any calendar.
fn gen_date(rng: &mut Rng) -> SimpleDate<'static> {
    let (calendar, months) = match rng.below(7) {
        0..=2 => (Calendar::Gregorian, 12),
        3 => (Calendar::Julian, 12),
        4 => (Calendar::Hebrew, 13),
        5 => (Calendar::FrenchRepublican, 13),
        _ => (Calendar::Other("ROMAN".into()), 0),
    };
    let solar = months == 12;
    let logical = match calendar {
        Calendar::FrenchRepublican => 1 + rng.below(19) as i32,
        Calendar::Hebrew => 1 + rng.below(9000) as i32,
        _ => 1 + rng.below(3000) as i32,
    };
    let historical = (solar && rng.below(5) == 0).then(|| logical - 1);
    let historical = historical.filter(|h| *h > 0);
    let epoch = (solar && rng.below(4) == 0).then_some(Epoch::BeforeChrist);
    let mut date = SimpleDate {
        calendar,
        day: None,
        month: None,
        year: Year {
            logical,
            historical,
        },
        epoch,
    };
    if months > 0 && rng.below(4) != 0 {
        let mut m = 1 + rng.below(months) as u8;
        // Adar of a common Hebrew year is ADR (6).
        if date.calendar == Calendar::Hebrew && m == 7 && (7 * logical + 1) % 19 >= 7 {
            m = 6;
        }
        date.month = Some(Month::Known(m));
        if rng.below(3) != 0 {
            let max = date.month_days().unwrap();
            date.day = Some(1 + rng.below(max as usize) as u32);
        }
    }
    date
}

fn gen(rng: &mut Rng) -> Date<'static> {
    loop {
        let d = match rng.below(10) {
            0 => Date::Exact(gen_date(rng)),
            1 => Date::From(gen_date(rng)),
            2 => Date::To(gen_date(rng)),
            3 => Date::FromTo(gen_date(rng), gen_date(rng)),
            4 => Date::Before(gen_date(rng)),
            5 => Date::After(gen_date(rng)),
            6 => Date::Between(gen_date(rng), gen_date(rng)),
            7 => Date::Approximate(
                [
                    Approximation::About,
                    Approximation::Calculated,
                    Approximation::Estimated,
                ][rng.below(3)],
                gen_date(rng),
            ),
            8 => Date::Interpreted(gen_date(rng), "a phrase".into()),
            _ => Date::Phrase("a phrase".into()),
        };
        // Only a BET x AND y with x not after y is a date.
        if let Date::Between(a, b) = &d {
            if let (Some(x), Some(y)) = (a.jdn_range(), b.jdn_range()) {
                if x.0 > y.1 {
                    continue;
                }
            }
        }
        return d;
    }
}

/// The same formal date without `A` on a range (which GEDCOM cannot keep).
fn without_range_approximation(mut d: GedcomxDate) -> GedcomxDate {
    if !matches!(d.form, GedcomxForm::Simple(_)) {
        d.approximate = false;
    }
    d
}

#[test]
fn generated_dates_keep_their_days() {
    let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
    let (mut converted, mut spans) = (0, 0);
    for _ in 0..30_000 {
        let d = gen(&mut rng);
        let gx = match d.gedcomx() {
            Ok(gx) => gx,
            Err(e) => {
                // Only what the conversion documents.
                match &e {
                    NotGedcomx::Phrase => assert!(matches!(d, Date::Phrase(_))),
                    NotGedcomx::Calendar(c) => assert_eq!(c, "ROMAN"),
                    NotGedcomx::NoDays => assert_eq!(d.jdn_range(), None, "{d}"),
                    NotGedcomx::Order => assert!(matches!(d, Date::FromTo(..)), "{d}"),
                    _ => panic!("{d}: {e}"),
                }
                continue;
            }
        };
        converted += 1;
        let formal = gx.to_string();
        let parsed = GedcomxDate::parse(&formal).unwrap_or_else(|e| panic!("{d} -> {formal}: {e}"));
        assert_eq!(parsed, gx, "{d} -> {formal}");
        let back = parsed.to_date();
        // The same days: exact, as a non-Gregorian month or year becomes
        // the span of its Gregorian days.
        assert_eq!(back.jdn_range(), d.jdn_range(), "{d} -> {formal} -> {back}");
        let text = back.to_string();
        assert_eq!(Date::parse(&text).as_ref(), Ok(&back), "{text:?}");
        // And converting again is stable.
        assert_eq!(
            back.gedcomx().map(|g| g.to_string()),
            Ok(without_range_approximation(gx.clone()).to_string()),
            "{d}"
        );
        spans += usize::from(matches!(gx.form, GedcomxForm::Range(..)));
    }
    assert!(converted > 20_000, "{converted}");
    assert!(spans > 2_000, "{spans}");
}

#[test]
fn random_formal_text_never_panics_and_what_parses_prints_stably() {
    let alphabet = [
        "+1887", "-0043", "+0000", "+9999", "-9999", "+2000", "A", "R", "/", "/", "P", "T", "Z",
        ":", "0", "1", "-", "+", "12", "24", "-02", "-12", "-13", "-29", "-31", "-00", "Y", "M",
        "D", "H", "S", "P1Y", "P18M", "T10", "T24", ":30", ":60", "+05", "-07:00", "x", " ",
    ];
    let mut rng = Rng(0x5DEE_CE66_D1CE_B00C);
    let mut parsed = 0;
    for _ in 0..100_000 {
        let n = 1 + rng.below(6);
        let s: String = (0..n).map(|_| *rng.pick(&alphabet)).collect();
        match GedcomxDate::parse(&s) {
            Ok(d) => {
                parsed += 1;
                let printed = d.to_string();
                assert_eq!(GedcomxDate::parse(&printed).as_ref(), Ok(&d), "{s:?}");
                let g = d.to_date();
                let text = g.to_string();
                assert_eq!(Date::parse(&text).as_ref(), Ok(&g), "{s:?} -> {text:?}");
                assert!(g.gedcomx().is_ok(), "{s:?} -> {text:?}");
            }
            Err(e) => assert!(e.offset() <= s.len(), "{s:?}: {e}"),
        }
    }
    assert!(parsed > 1_000, "{parsed}");
}

#[test]
fn every_date_payload_of_the_shared_corpus() {
    let Some(dir) = common::shared_corpus() else {
        return;
    };
    let (mut total, mut formal) = (0, 0);
    let mut why = std::collections::BTreeMap::<String, usize>::new();
    for (name, bytes) in common::ged_files(&dir) {
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        for event in input.reader() {
            let Ok(Event::Begin(b)) = event else {
                continue;
            };
            if b.tag != "DATE" {
                continue;
            }
            let Some(Value::Text(t)) = &b.value else {
                continue;
            };
            let text = t.text();
            let Ok(d) = Date::parse(&text) else {
                continue;
            };
            total += 1;
            match d.gedcomx() {
                Ok(gx) => {
                    formal += 1;
                    let f = gx.to_string();
                    let back = GedcomxDate::parse(&f)
                        .unwrap_or_else(|e| panic!("{name}: {text:?} -> {f}: {e}"));
                    assert_eq!(
                        back.to_date().jdn_range(),
                        d.jdn_range(),
                        "{name}: {text:?}"
                    );
                }
                Err(e) => {
                    let kind = format!("{e:?}");
                    let kind = kind.split('(').next().unwrap_or_default().to_string();
                    *why.entry(kind).or_default() += 1;
                }
            }
        }
    }
    eprintln!("corpus: {total} dates, {formal} with a formal GEDCOM X form");
    for (kind, n) in &why {
        eprintln!("    {n} {kind}");
    }
    assert!(total == 0 || formal * 10 > total * 9, "{formal} of {total}");
}
