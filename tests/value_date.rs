//! `gedcom_elf::value::date` against the specifications' examples, known
//! Julian day numbers, generated round trips and every `DATE` payload of
//! `../shared/corpus`.

mod common;

use common::Rng;

use gedcom_elf::value::{Calendar, Date, DateErrorKind as K, Epoch, Month, SimpleDate, Year};
use gedcom_elf::{Event, Input, Value};

/// What a payload must give: its canonical 5.5.1/ELF form, or an error.
enum Want {
    /// Parses, and prints as this.
    Ok(&'static str),
    /// Parses into ELF's inferred unknown calendar (no calendar escape, not
    /// well-formed in the Gregorian calendar), and prints as written.
    NotGregorian,
    /// Is an error of this kind.
    Err(K),
}

/// Every date example of the ELF *Date, Age and Time Microformats* draft
/// (`elf/dates.md`), with what the draft says of it.
const ELF_EXAMPLES: &[(&str, Want)] = &[
    // §Generic date syntax.
    ("63 B.C.", Want::Ok("63 B.C.")),
    ("21 JAN 1793", Want::Ok("21 JAN 1793")),
    ("@#DJULIAN@ 29 MAY 1453", Want::Ok("@#DJULIAN@ 29 MAY 1453")),
    // "1 JAN" cannot match the Date production (no year).
    ("1 JAN", Want::Err(K::End)),
    // Not well-formed in the Gregorian calendar: kept, in an unknown calendar.
    ("12 AUGUST 2000", Want::NotGregorian),
    ("12 AUG 2000", Want::Ok("12 AUG 2000")),
    ("29 FEB 1973", Want::NotGregorian),
    ("29 FEB 1700", Want::NotGregorian),
    ("29 FEB 2018", Want::NotGregorian),
    ("@#DJULIAN@ 29 FEB 1700", Want::Ok("@#DJULIAN@ 29 FEB 1700")),
    // The Julian calendar has 29 FEB 1900, the Gregorian does not.
    ("@#DJULIAN@ 29 FEB 1900", Want::Ok("@#DJULIAN@ 29 FEB 1900")),
    ("@#DGREGORIAN@ 29 FEB 1900", Want::Err(K::Day)),
    ("29 FEB 1900", Want::NotGregorian),
    ("@#DISLAMIC@ 1 RAJ 1420", Want::Ok("@#DISLAMIC@ 1 RAJ 1420")),
    ("@#DISLAMIC@ 9 RAM 1422", Want::Ok("@#DISLAMIC@ 9 RAM 1422")),
    // §Years: dual years.
    ("30 JAN 1648/1649", Want::Ok("30 JAN 1648/49")),
    ("30 JAN 1648/49", Want::Ok("30 JAN 1648/49")),
    ("30 JAN 1648/9", Want::Ok("30 JAN 1648/49")),
    ("30 JAN 1649", Want::Ok("30 JAN 1649")),
    // A recorded error is not a dual year: 1842/1845 is not one year apart.
    ("12 JAN 1842/1845", Want::NotGregorian),
    ("10 FEB 1521/22", Want::Ok("10 FEB 1521/22")),
    ("1 APR 1522", Want::Ok("1 APR 1522")),
    ("1 APR 1522/23", Want::Ok("1 APR 1522/23")),
    ("1 APR 1523", Want::Ok("1 APR 1523")),
    ("@#DJULIAN@ 1740/1620", Want::Err(K::DualYear)),
    // "1616/8" is unabbreviated: historical 1616, logical year 8.
    ("1616/8", Want::NotGregorian),
    // §Epochs.
    ("1752 A.D.", Want::Ok("1752")),
    ("A.D. 1752", Want::Err(K::Syntax)),
    ("1 A.D.", Want::Ok("1")),
    ("1 B.C.", Want::Ok("1 B.C.")),
    ("63 BC", Want::Ok("63 B.C.")),
    ("25 OCT 3 HENRY_V", Want::NotGregorian),
    ("24 DEC 2018 A.D.", Want::Ok("24 DEC 2018")),
    ("24 DEC 2018", Want::Ok("24 DEC 2018")),
    // §Date modifiers.
    ("ABT JAN 1901", Want::Ok("ABT JAN 1901")),
    ("ABT 1899", Want::Ok("ABT 1899")),
    ("EST 1903", Want::Ok("EST 1903")),
    ("EST 1660", Want::Ok("EST 1660")),
    ("CAL 1898", Want::Ok("CAL 1898")),
    ("ABT 1808", Want::Ok("ABT 1808")),
    ("CAL 1808", Want::Ok("CAL 1808")),
    // Not in the grammar (the draft's editorial note).
    ("EST ABT 1881", Want::Err(K::Syntax)),
    // "JUNE" is not a month of the Julian calendar, so the draft's own
    // example of an interpreted date is not well-formed (a defect of the
    // draft); with JUN it is.
    (
        "INT @#DJULIAN@ 18 JUNE 1502 (Saturday before the Feast of the Nativity of St John the Baptist)",
        Want::Err(K::Month),
    ),
    (
        "INT @#DJULIAN@ 18 JUN 1502 (Saturday before the Feast of the Nativity of St John the Baptist)",
        Want::Ok("INT @#DJULIAN@ 18 JUN 1502 (Saturday before the Feast of the Nativity of St John the Baptist)"),
    ),
    (
        "INT 25 JAN 1840 (L'an mil huit cent quarante, le vingt-cinquième jour du mois de janvier)",
        Want::Ok("INT 25 JAN 1840 (L'an mil huit cent quarante, le vingt-cinquième jour du mois de janvier)"),
    ),
    ("BEF 1745", Want::Ok("BEF 1745")),
    ("BET 4 APR 1854 AND 3 APR 1855", Want::Ok("BET 4 APR 1854 AND 3 APR 1855")),
    ("ABT 1855", Want::Ok("ABT 1855")),
    ("BET 1 JAN 1898 AND 31 MAR 1898", Want::Ok("BET 1 JAN 1898 AND 31 MAR 1898")),
    // §DatePeriod.
    ("FROM 1861 TO 1865", Want::Ok("FROM 1861 TO 1865")),
    ("FROM 4 MAR 1861 TO 15 APR 1865", Want::Ok("FROM 4 MAR 1861 TO 15 APR 1865")),
    ("TO 15 APR 1865", Want::Ok("TO 15 APR 1865")),
    ("FROM JUL 1863 TO 15 APR 1865", Want::Ok("FROM JUL 1863 TO 15 APR 1865")),
    // Nested modifiers are only an editorial idea.
    ("FROM BEF JUL 1863 TO 15 APR 1865", Want::Err(K::Syntax)),
    ("FROM 1 JAN 1898 TO 31 MAR 1898", Want::Ok("FROM 1 JAN 1898 TO 31 MAR 1898")),
    (
        "FROM @#DJULIAN@ 11 JUN 1727 TO @#DGREGORIAN@ 25 OCT 1760",
        Want::Ok("FROM @#DJULIAN@ 11 JUN 1727 TO 25 OCT 1760"),
    ),
    // §Gregorian: 5 B.C. was a leap year (1 - 5 = -4).
    ("@#DGREGORIAN@ 29 FEB 5 B.C.", Want::Ok("29 FEB 5 B.C.")),
    ("@#DGREGORIAN@ 29 FEB 6 B.C.", Want::Err(K::Day)),
    ("54 NOV 2018", Want::NotGregorian),
    // §Hebrew: Cheshvan and Kislev of AM 5779 had 30 days (the draft says
    // 5779 had 355 days; it had 385, which also gives both 30 days).
    ("@#DHEBREW@ 30 CSH 5779", Want::Ok("@#DHEBREW@ 30 CSH 5779")),
    ("@#DHEBREW@ 30 KSL 5779", Want::Ok("@#DHEBREW@ 30 KSL 5779")),
    ("@#DHEBREW@ 1 TSH 5779 B.C.", Want::Err(K::Epoch)),
    // §French Republican: 13 months, COMP with 5 or 6 days, no dual years.
    ("@#DFRENCH R@ 6 COMP 11", Want::Ok("@#DFRENCH R@ 6 COMP 11")),
    ("@#DFRENCH R@ 6 COMP 12", Want::Err(K::Day)),
    ("@#DFRENCH R@ 1 FERV 2", Want::Err(K::Month)),
    ("@#DFRENCH R@ 1 VEND 2/3", Want::Err(K::DualYear)),
    // §Calendar escapes.
    ("@#DUNKNOWN@ 1 JAN 1900", Want::Ok("@#DUNKNOWN@ 1 JAN 1900")),
    ("@#DROMAN@ 71", Want::Ok("@#DROMAN@ 71")),
    ("@#FRENCHR@ 1 VEND 2", Want::Err(K::Syntax)),
];

/// Every date payload of the GEDCOM 7 specification's date section, its
/// calendar appendix and the 5.5.1-to-7.0 migration guide
/// (`gedcom7/gedcom-2-data-types.md`, `gedcom-6-appendix-calendars.md`,
/// `gedcomio-migrate.md`, and the examples in the other chapters).
const GEDCOM7_EXAMPLES: &[(&str, Want)] = &[
    ("", Want::Ok("")),
    ("AFT 1850", Want::Ok("AFT 1850")),
    ("BEF 1850", Want::Ok("BEF 1850")),
    ("BEF 1851", Want::Ok("BEF 1851")),
    ("30 JAN 1649", Want::Ok("30 JAN 1649")),
    ("6 DEC 1907", Want::Ok("6 DEC 1907")),
    ("BET 1903 AND 1904", Want::Ok("BET 1903 AND 1904")),
    ("FROM 1670 TO 1800", Want::Ok("FROM 1670 TO 1800")),
    (
        "FROM 1670 TO JULIAN 1800",
        Want::Ok("FROM 1670 TO @#DJULIAN@ 1800"),
    ),
    (
        "FROM JULIAN 1670 TO 1800",
        Want::Ok("FROM @#DJULIAN@ 1670 TO 1800"),
    ),
    (
        "FROM GREGORIAN 1670 TO GREGORIAN 1800",
        Want::Ok("FROM 1670 TO 1800"),
    ),
    (
        "FROM GREGORIAN 1670 TO JULIAN 1800",
        Want::Ok("FROM 1670 TO @#DJULIAN@ 1800"),
    ),
    (
        "FROM JULIAN 1670 TO GREGORIAN 1800",
        Want::Ok("FROM @#DJULIAN@ 1670 TO 1800"),
    ),
    ("1910", Want::Ok("1910")),
    ("1930", Want::Ok("1930")),
    ("2 OCT 1837", Want::Ok("2 OCT 1837")),
    ("2 OCT 1937", Want::Ok("2 OCT 1937")),
    ("24 JUN 1852", Want::Ok("24 JUN 1852")),
    ("31 AUG 2018", Want::Ok("31 AUG 2018")),
    ("31 DEC 2020", Want::Ok("31 DEC 2020")),
    ("4 NOV 1837", Want::Ok("4 NOV 1837")),
    ("ABT MAR 1894", Want::Ok("ABT MAR 1894")),
    ("AFT 1800", Want::Ok("AFT 1800")),
    ("BEF 1970", Want::Ok("BEF 1970")),
    (
        "BET 1 JAN 1867 AND 31 MAR 1867",
        Want::Ok("BET 1 JAN 1867 AND 31 MAR 1867"),
    ),
    ("BET 1648 AND 1649", Want::Ok("BET 1648 AND 1649")),
    ("BET 1880 AND 1900", Want::Ok("BET 1880 AND 1900")),
    (
        "FROM 6 APR 1917 TO 11 NOV 1918",
        Want::Ok("FROM 6 APR 1917 TO 11 NOV 1918"),
    ),
    ("FROM 667 BCE TO 324", Want::Ok("FROM 667 B.C. TO 324")),
    ("TO 1800", Want::Ok("TO 1800")),
    ("TO 24 MAR 1880", Want::Ok("TO 24 MAR 1880")),
    ("JULIAN 30 JAN 1648", Want::Ok("@#DJULIAN@ 30 JAN 1648")),
    // The migration guide's 5.5.1 inputs: a reversed range (which ELF
    // forbids and 7.0 conversion must swap), a malformed escape, a dual year.
    ("BET 1900 AND 1880", Want::Err(K::Order)),
    ("@#ROMAN@ 71", Want::Err(K::Syntax)),
    ("30 JAN 1648/9", Want::Ok("30 JAN 1648/49")),
];

fn check(examples: &[(&str, Want)]) {
    for (input, want) in examples {
        let got = Date::parse(input);
        match (want, &got) {
            (Want::Ok(canonical), Ok(d)) => {
                assert_eq!(d.to_string(), *canonical, "{input:?}");
                assert_eq!(Date::parse(canonical).as_ref(), Ok(d), "{input:?}");
            }
            (Want::NotGregorian, Ok(d)) => {
                assert!(
                    d.dates().all(|x| x.calendar == Calendar::NotGregorian),
                    "{input:?}: {d:?}"
                );
                assert_eq!(Date::parse(&d.to_string()).as_ref(), Ok(d), "{input:?}");
                assert_eq!(d.jdn_range(), None, "{input:?}");
            }
            (Want::Err(kind), Err(e)) => assert_eq!(e.kind(), *kind, "{input:?}: {e}"),
            _ => panic!("{input:?}: {got:?}"),
        }
    }
}

#[test]
fn every_example_of_the_elf_date_draft() {
    check(ELF_EXAMPLES);
}

#[test]
fn every_example_of_the_gedcom7_date_section() {
    check(GEDCOM7_EXAMPLES);
    // And each one that is GEDCOM 7 prints back as itself in 7.0 form.
    for (input, want) in GEDCOM7_EXAMPLES {
        if let (Want::Ok(_), Ok(d)) = (want, Date::parse(input)) {
            let g7 = d.gedcom7().unwrap();
            if d.dates().all(|x| x.year.historical.is_none()) {
                let expected = input.replace("GREGORIAN ", "");
                assert_eq!(g7.payload, expected, "{input:?}");
                assert_eq!(g7.phrase, None);
            }
        }
    }
    // The migration guide's dual year: the logical year, the 5.5.1 form as
    // the phrase.
    let g7 = Date::parse("30 JAN 1648/9").unwrap().gedcom7().unwrap();
    assert_eq!(g7.payload, "30 JAN 1649");
    assert_eq!(g7.phrase.as_deref(), Some("30 JAN 1648/49"));
    assert!(Date::parse("@#DROMAN@ 71").unwrap().gedcom7().is_err());
    assert!(Date::parse("29 FEB 1900").unwrap().gedcom7().is_err());
}

fn jdn(s: &str) -> i64 {
    let (a, b) = Date::parse(s).unwrap().jdn_range().unwrap();
    assert_eq!(a, b, "{s} is not one day");
    a
}

#[test]
fn julian_day_numbers_of_known_days() {
    // Gregorian JDNs were checked against an independent implementation,
    // Python's `datetime.date(y, m, d).toordinal() + 1721425` (ordinal 1 is
    // 1 January AD 1, JDN 1721426).
    // The J2000.0 epoch: JD 2451545.0 is noon, 1 January 2000.
    assert_eq!(jdn("1 JAN 2000"), 2_451_545);
    // The reform: Thursday 4 October 1582 (Julian) was followed by Friday 15
    // October 1582 (Gregorian), JDN 2299160 and 2299161 (Meeus, Astronomical
    // Algorithms, ch. 7).
    assert_eq!(jdn("@#DJULIAN@ 4 OCT 1582"), 2_299_160);
    assert_eq!(jdn("15 OCT 1582"), 2_299_161);
    assert_eq!(jdn("1 JAN 1"), 1_721_426);
    // Newton was born 25 December 1642 (Julian), 4 January 1643 (Gregorian).
    assert_eq!(jdn("@#DJULIAN@ 25 DEC 1642"), 2_321_157);
    assert_eq!(jdn("4 JAN 1643"), 2_321_157);
    // JD 0 is 1 January 4713 B.C. in the Julian calendar (Scaliger's epoch).
    assert_eq!(jdn("@#DJULIAN@ 1 JAN 4713 B.C."), 0);
    // French Republican: 1 Vendémiaire I is 22 September 1792 (GEDCOM 7's
    // appendix A), 9 Thermidor II is 27 July 1794 (Robespierre's fall), 18
    // Brumaire VIII is 9 November 1799 (Bonaparte's coup), 1 Vendémiaire XIV
    // is 23 September 1805, and 11 Nivôse XIV is 1 January 1806, the day the
    // calendar was abolished.
    for (fr, greg, expected) in [
        ("@#DFRENCH R@ 1 VEND 1", "22 SEP 1792", 2_375_840),
        ("@#DFRENCH R@ 9 THER 2", "27 JUL 1794", 2_376_513),
        ("@#DFRENCH R@ 18 BRUM 8", "9 NOV 1799", 2_378_444),
        ("@#DFRENCH R@ 1 VEND 14", "23 SEP 1805", 2_380_588),
        ("@#DFRENCH R@ 11 NIVO 14", "1 JAN 1806", 2_380_688),
    ] {
        assert_eq!((jdn(fr), jdn(greg)), (expected, expected), "{fr}");
    }
    // Hebrew: Rosh Hashanah AM 5760 was 11 September 1999; AM 5779 began on
    // 10 September 2018 (the ELF draft: "began in September AD 2018");
    // Passover (15 Nisan) 5784 was 23 April 2024; 1 Tishrei 5785 was 3
    // October 2024 (published Jewish calendars).
    for (heb, greg, expected) in [
        ("@#DHEBREW@ 1 TSH 5760", "11 SEP 1999", 2_451_433),
        ("@#DHEBREW@ 1 TSH 5779", "10 SEP 2018", 2_458_372),
        ("@#DHEBREW@ 15 NSN 5784", "23 APR 2024", 2_460_424),
        ("@#DHEBREW@ 1 TSH 5785", "3 OCT 2024", 2_460_587),
    ] {
        assert_eq!((jdn(heb), jdn(greg)), (expected, expected), "{heb}");
    }
    // The Hebrew epoch, 1 Tishrei AM 1: 7 September 3761 B.C. (proleptic
    // Gregorian) and 7 October 3761 B.C. (proleptic Julian), per the ELF
    // draft and GEDCOM 7's appendix A.
    let epoch = jdn("@#DHEBREW@ 1 TSH 1");
    assert_eq!(jdn("@#DGREGORIAN@ 7 SEP 3761 B.C."), epoch);
    assert_eq!(jdn("@#DJULIAN@ 7 OCT 3761 B.C."), epoch);
    // In a common year ADR and ADS are the same month (Adar): ELF writes
    // ADR, GEDCOM 7 recommends ADS.
    assert_eq!(jdn("@#DHEBREW@ 1 ADR 5780"), jdn("@#DHEBREW@ 1 ADS 5780"));
    let adar = Date::parse("@#DHEBREW@ 1 ADS 5780").unwrap();
    assert_eq!(adar, Date::parse("HEBREW 1 ADR 5780").unwrap());
    assert_eq!(adar.to_string(), "@#DHEBREW@ 1 ADR 5780");
    assert_eq!(adar.gedcom7().unwrap().payload, "HEBREW 1 ADS 5780");
    let adar2 = Date::parse("@#DHEBREW@ 1 ADS 5779").unwrap();
    assert_eq!(adar2.gedcom7().unwrap().payload, "HEBREW 1 ADS 5779");
    assert_eq!(adar2.to_string(), "@#DHEBREW@ 1 ADS 5779");
    let adar1 = Date::parse("@#DHEBREW@ 1 ADR 5779").unwrap();
    assert_eq!(adar1.gedcom7().unwrap().payload, "HEBREW 1 ADR 5779");
    // 5779 is a leap year: Adar I precedes Adar II by 30 days.
    assert_eq!(
        jdn("@#DHEBREW@ 1 ADS 5779") - jdn("@#DHEBREW@ 1 ADR 5779"),
        30
    );
}

#[test]
fn ranges_cover_the_whole_year_or_month() {
    let r = |s: &str| Date::parse(s).unwrap().jdn_range();
    assert_eq!(r("2000"), Some((2_451_545, 2_451_910)));
    // 1 B.C. is astronomical year 0, a Gregorian leap year of 366 days,
    // ending the day before 1 JAN 1.
    let (a, b) = r("1 B.C.").unwrap();
    assert_eq!((b - a + 1, b + 1), (366, jdn("1 JAN 1")));
    assert_eq!(r("2 B.C.").map(|(a, b)| b - a + 1), Some(365));
    // AM 5779: 385 days, 10 September 2018 to 29 September 2019 (1 Tishrei
    // 5780 was 30 September 2019, JDN 2458757 by Python's `datetime`).
    assert_eq!(r("@#DHEBREW@ 5779"), Some((2_458_372, 2_458_756)));
    // Year III (leap): 366 days.
    let (a, b) = r("@#DFRENCH R@ 3").unwrap();
    assert_eq!(b - a + 1, 366);
    assert_eq!(r("@#DFRENCH R@ 19"), None);
    assert_eq!(r("ABT 1900"), r("1900"));
    assert_eq!(r("BET 1900 AND 1910").map(|x| x.0), r("1900").map(|x| x.0));
    assert_eq!(r("AFT 1900").map(|x| x.1), Some(i64::MAX));
    assert_eq!(r("TO 1900").map(|x| x.0), Some(i64::MIN));
    assert_eq!(r("(phrase)"), None);
    assert_eq!(r(""), None);
}

/// The Hebrew year lengths from the ELF draft's own method: the molad of
/// Tishrei counted from 2:5:204 in steps of 29 days 12 hours 793 halakim,
/// then the draft's table of four gates. An independent derivation of what
/// the crate computes with the postponement rules.
fn four_gates_year_days(y: i64) -> i64 {
    const HOUR: i64 = 1080;
    const DAY: i64 = 24 * HOUR;
    const WEEK: i64 = 7 * DAY;
    let before = y - 1;
    let months = 235 * (before / 19)
        + [
            0, 12, 24, 37, 49, 61, 74, 86, 99, 111, 123, 136, 148, 160, 173, 185, 197, 210, 222,
        ][(before % 19) as usize];
    let molad = (2 * DAY + 5 * HOUR + 204 + months * (DAY + 12 * HOUR + 793)) % WEEK;
    let at = |d: i64, h: i64, p: i64| d * DAY + h * HOUR + p;
    let gates = [
        (at(0, 18, 0), [355, 355, 355, 385]),
        (at(1, 9, 204), [353, 353, 353, 383]),
        (at(1, 20, 491), [355, 355, 355, 383]),
        (at(2, 15, 589), [355, 355, 355, 385]),
        (at(2, 18, 0), [354, 354, 355, 385]),
        (at(3, 18, 0), [354, 354, 354, 384]),
        (at(4, 11, 695), [354, 354, 354, 383]),
        (at(5, 9, 204), [354, 354, 354, 385]),
        (at(5, 18, 0), [355, 355, 355, 385]),
        (at(6, 0, 408), [353, 353, 353, 383]),
        (at(6, 9, 204), [355, 353, 353, 383]),
        (at(6, 20, 491), [355, 355, 355, 383]),
        (at(7, 0, 0), [355, 355, 355, 385]),
    ];
    let column = match y % 19 {
        1 | 4 | 9 | 12 | 15 => 0,
        7 | 18 => 1,
        2 | 5 | 10 | 13 | 16 => 2,
        _ => 3,
    };
    gates.iter().find(|(below, _)| molad < *below).unwrap().1[column]
}

#[test]
fn hebrew_years_agree_with_the_table_of_four_gates() {
    // The draft's worked example: AM 5779's molad is 2:14:316, in the fourth
    // row. The draft then says 5779 is the second year of its Metonic cycle
    // and so 355 days long, but 5779 = 19 × 304 + 3: the third year, a leap
    // year of 385 days (5778, the years elapsed, leaves 2). AM 5779 did have
    // Adar I and II: it ran from 10 September 2018 to 29 September 2019.
    assert_eq!(four_gates_year_days(5779), 385);
    for y in 1..=6000 {
        let (a, b) = Date::parse(&format!("@#DHEBREW@ {y}"))
            .unwrap()
            .jdn_range()
            .unwrap();
        assert_eq!(b - a + 1, four_gates_year_days(y), "AM {y}");
    }
}

/// A well-formed date in any calendar.
fn gen_date(rng: &mut Rng) -> SimpleDate<'static> {
    let (calendar, months) = match rng.below(6) {
        0 | 1 => (Calendar::Gregorian, 12),
        2 => (Calendar::Julian, 12),
        3 => (Calendar::Hebrew, 13),
        4 => (Calendar::FrenchRepublican, 13),
        _ => (Calendar::Other("ROMAN".into()), 0),
    };
    let solar = months == 12 && calendar != Calendar::Hebrew;
    let logical = match calendar {
        Calendar::FrenchRepublican => 1 + rng.below(18) as i32,
        Calendar::Hebrew => 1 + rng.below(7000) as i32,
        _ => 1 + rng.below(3000) as i32,
    };
    let historical = (solar && rng.below(5) == 0).then(|| logical - 1 + 2 * rng.below(2) as i32);
    let historical = historical.filter(|h| *h > 0);
    let epoch = match calendar {
        Calendar::Other(_) => (rng.below(3) == 0).then(|| Epoch::Other("A.U.C.".into())),
        _ if solar && rng.below(4) == 0 => Some(Epoch::BeforeChrist),
        _ => None,
    };
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
    if rng.below(4) != 0 {
        if months == 0 {
            date.month = Some(Month::Other("KSEP".into()));
            date.day = (rng.below(2) == 0).then(|| 1 + rng.below(31) as u32);
        } else {
            let mut m = 1 + rng.below(months) as u8;
            // Adar of a common Hebrew year is ADR (6), however written.
            if date.calendar == Calendar::Hebrew && m == 7 && (7 * logical + 1) % 19 >= 7 {
                m = 6;
            }
            date.month = Some(Month::Known(m));
            if rng.below(3) != 0 {
                let max = date.month_days().unwrap();
                date.day = Some(1 + rng.below(max as usize) as u32);
            }
        }
    }
    date
}

fn gen(rng: &mut Rng) -> Date<'static> {
    let phrases = ["", "Feast of St John", "l'an X", "ça & là; 1/2"];
    let phrase = phrases[rng.below(4)];
    loop {
        let d = match rng.below(11) {
            0 => Date::Empty,
            1 => Date::Exact(gen_date(rng)),
            2 => Date::From(gen_date(rng)),
            3 => Date::To(gen_date(rng)),
            4 => Date::FromTo(gen_date(rng), gen_date(rng)),
            5 => Date::Before(gen_date(rng)),
            6 => Date::After(gen_date(rng)),
            7 => Date::Between(gen_date(rng), gen_date(rng)),
            8 => Date::Approximate(
                [
                    gedcom_elf::value::Approximation::About,
                    gedcom_elf::value::Approximation::Calculated,
                    gedcom_elf::value::Approximation::Estimated,
                ][rng.below(3)],
                gen_date(rng),
            ),
            9 => Date::Interpreted(gen_date(rng), phrase.into()),
            _ => Date::Phrase(phrase.into()),
        };
        // BET x AND y needs x not after y.
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

#[test]
fn generated_dates_round_trip_in_both_forms() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut g7_checked = 0;
    for _ in 0..20_000 {
        let d = gen(&mut rng);
        let text = d.to_string();
        assert_eq!(Date::parse(&text), Ok(d.clone()), "{text:?}");
        // GEDCOM 7: same dates, less the phrase and the historical year.
        if let Ok(g7) = d.gedcom7() {
            let back = Date::parse(&g7.payload).unwrap_or_else(|e| panic!("{:?}: {e}", g7.payload));
            let strip = |x: &SimpleDate<'static>| SimpleDate {
                year: Year {
                    logical: x.year.logical,
                    historical: None,
                },
                ..x.clone()
            };
            let want: Vec<_> = d.dates().map(strip).collect();
            let got: Vec<_> = back.dates().cloned().collect();
            assert_eq!(got, want, "{text:?} -> {:?}", g7.payload);
            assert_eq!(back.jdn_range(), d.jdn_range());
            g7_checked += 1;
        }
    }
    assert!(g7_checked > 10_000, "{g7_checked}");
}

#[test]
fn random_text_never_panics_and_what_parses_prints_stably() {
    let alphabet: Vec<&str> = vec![
        " ", "  ", "1", "29", "1900", "/", "-", "(", ")", "@#D", "@", "JULIAN", "HEBREW",
        "FRENCH R", "JAN", "FEB", "TSH", "ADR", "VEND", "COMP", "B.C.", "BCE", "BC", "A.D.",
        "FROM", "TO", "BET", "AND", "BEF", "AFT", "ABT", "INT", "x", "é", "_X", "$", ".", "\t",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut parsed = 0;
    for _ in 0..50_000 {
        let n = rng.below(9);
        let s: String = (0..n).map(|_| *rng.pick(&alphabet)).collect();
        if let Ok(d) = Date::parse(&s) {
            parsed += 1;
            let printed = d.to_string();
            assert_eq!(
                Date::parse(&printed).as_ref(),
                Ok(&d),
                "{s:?} -> {printed:?}"
            );
        }
    }
    assert!(parsed > 100, "{parsed}");
}

#[test]
fn every_date_payload_of_the_shared_corpus() {
    let Some(dir) = common::shared_corpus() else {
        return;
    };
    let (mut total, mut failed) = (0, 0);
    let mut per_file = Vec::new();
    let mut unusual = Vec::new();
    for (name, bytes) in common::ged_files(&dir) {
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        let (mut n, mut bad) = (0, Vec::new());
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
            n += 1;
            match Date::parse(&text) {
                Ok(d) => {
                    for x in d.dates() {
                        if x.calendar != Calendar::Gregorian {
                            unusual.push(format!("{text:?}: {:?}", x.calendar));
                        }
                    }
                    let printed = d.to_string();
                    assert_eq!(Date::parse(&printed).as_ref(), Ok(&d), "{name}: {text:?}");
                }
                Err(e) => bad.push(format!("{text:?}: {e} ({:?})", e.kind())),
            }
        }
        total += n;
        failed += bad.len();
        let short = name.rsplit('/').next().unwrap_or(&name).to_string();
        eprintln!("{short}: {n} DATE payloads, {} errors", bad.len());
        for b in &bad {
            eprintln!("    {b}");
        }
        per_file.push((short, n, bad.len()));
    }
    eprintln!("corpus: {total} DATE payloads, {failed} errors");
    unusual.sort();
    unusual.dedup();
    for u in &unusual {
        eprintln!("    not Gregorian: {u}");
    }
    // The files that are GEDCOM as written parse fully.
    for (file, n, bad) in &per_file {
        let clean = ["TGC5", "Harry_Potter", "Sopranos", "utf8_", "ANSEL.GED"]
            .iter()
            .any(|p| file.starts_with(p));
        if clean {
            assert_eq!(*bad, 0, "{file}");
        }
        // The others' errors, each inspected by hand: "ABT. 1880", "BET.
        // 1928 - 1970", words ("DECEASED", "NOT MARRIED", "INFANT"), a day
        // and month with no year ("20 MAR", "7 Nov"), "14/11/1931", "17 0ct
        // 1986" (a zero for the O).
        let known = match file.as_str() {
            "5.5.1 sample 1.ged" => 46,
            "a31486.ged" => 1,
            f if f.starts_with("willis") => 1,
            _ => 0,
        };
        assert!(*bad <= known, "{file}: {bad} errors, {known} known");
        assert!(*n > 0 || *bad == 0);
    }
    assert!(total > 8000, "{total}");
}
