//! Calendar arithmetic: month tables and Julian day numbers for the four
//! calendars ELF and GEDCOM 7 define (Gregorian, Julian, Hebrew, French
//! Republican).
//!
//! A Julian day number (JDN) here is the integer number of the day that
//! begins at the preceding noon, as astronomers count it: 1 January 2000
//! (Gregorian) is 2451545. Years are *astronomical* inside this file: 1 B.C.
//! is year 0, 2 B.C. is year −1, and so on; the date layer converts.
//!
//! Every function takes and returns `i64` and uses floor division, so no
//! input within the `i32` years the parser allows can overflow or panic.

/// The Gregorian and Julian month names, in order (`JAN` = month 1).
pub(crate) const GREGORIAN_MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

/// The Hebrew month names, in the order of the civil year (`TSH` = month 1).
/// `ADR` is Adar I in a leap year and Adar in a common one; `ADS` is Adar II
/// in a leap year and (as GEDCOM 7 prefers) Adar in a common one.
pub(crate) const HEBREW_MONTHS: [&str; 13] = [
    "TSH", "CSH", "KSL", "TVT", "SHV", "ADR", "ADS", "NSN", "IYR", "SVN", "TMZ", "AAV", "ELL",
];

/// The French Republican month names; `COMP` (month 13) holds the *jours
/// complémentaires*.
pub(crate) const FRENCH_MONTHS: [&str; 13] = [
    "VEND", "BRUM", "FRIM", "NIVO", "PLUV", "VENT", "GERM", "FLOR", "PRAI", "MESS", "THER", "FRUC",
    "COMP",
];

/// The Hebrew month number of `ADR`.
const ADR: u8 = 6;
/// The Hebrew month number of `ADS`.
const ADS: u8 = 7;

/// The JDN of 1 Vendémiaire I (22 September 1792, Gregorian).
const FRENCH_EPOCH: i64 = 2_375_840;
/// The last French Republican year whose leap years the ELF draft defines.
pub(crate) const FRENCH_LAST_YEAR: i64 = 18;

/// The JDN of the day before 1 Tishrei AM 1: the Hebrew day count of
/// [`hebrew_elapsed_days`] starts at 1 on that Tishrei.
const HEBREW_EPOCH: i64 = 347_997;

/// Whether astronomical year `y` is a Gregorian leap year.
pub(crate) fn gregorian_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

/// Whether astronomical year `y` is a Julian leap year.
pub(crate) fn julian_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0
}

/// Days in month `m` (1–12) of a Gregorian or Julian year, by `leap`.
pub(crate) fn solar_month_days(m: u8, leap: bool) -> u32 {
    match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The JDN of day `d` of month `m` of astronomical year `y`, in the Gregorian
/// calendar (`julian == false`) or the Julian one. The months are counted
/// from March, so February's length only matters to the next year.
pub(crate) fn solar_jdn(y: i64, m: u8, d: u32, julian: bool) -> i64 {
    let a = i64::from(m <= 2);
    let yy = y + 4800 - a;
    let mm = i64::from(m) + 12 * a - 3;
    let base = i64::from(d) + (153 * mm + 2).div_euclid(5) + 365 * yy + yy.div_euclid(4);
    if julian {
        base - 32083
    } else {
        base - yy.div_euclid(100) + yy.div_euclid(400) - 32045
    }
}

/// The proleptic Gregorian `(astronomical year, month, day)` of a Julian day
/// number (the inverse of `solar_jdn(.., false)`), with floor division so
/// that any `i64` day far from the limits works.
pub(crate) fn gregorian_of_jdn(jdn: i64) -> (i64, u8, u8) {
    let a = jdn + 32044;
    let b = (4 * a + 3).div_euclid(146_097);
    let c = a - (146_097 * b).div_euclid(4);
    let d = (4 * c + 3).div_euclid(1461);
    let e = c - (1461 * d).div_euclid(4);
    let m = (5 * e + 2).div_euclid(153);
    let day = e - (153 * m + 2).div_euclid(5) + 1;
    let month = m + 3 - 12 * m.div_euclid(10);
    let year = 100 * b + d - 4800 + m.div_euclid(10);
    // Within 1..=31 and 1..=12 by construction.
    (year, month as u8, day as u8)
}

/// The Julian day number of 1970-01-01, the Unix epoch's day.
pub(crate) const UNIX_EPOCH_JDN: i64 = 2_440_588;

/// Whether Hebrew year `y` (AM) is a leap year: its place in the 19-year
/// Metonic cycle is 0, 3, 6, 8, 11, 14 or 17.
pub(crate) fn hebrew_leap(y: i64) -> bool {
    (7 * y + 1).rem_euclid(19) < 7
}

/// Days from the day before 1 Tishrei AM 1 to 1 Tishrei of year `y`
/// (so 1 for `y == 1`): the molad of Tishrei counted in months of 29 days,
/// 12 hours and 793 halakim from the first molad (day 2, 5 hours, 204
/// halakim), then the postponements (*dehiyyot*): a molad at or after noon
/// (18 hours from the previous sunset); the limits for a common year on a
/// Tuesday and for the year after a leap year on a Monday; and never on a
/// Sunday, Wednesday or Friday.
pub(crate) fn hebrew_elapsed_days(y: i64) -> i64 {
    let before = y - 1;
    let cycles = before.div_euclid(19);
    let in_cycle = before.rem_euclid(19);
    let months = 235 * cycles + 12 * in_cycle + (7 * in_cycle + 1).div_euclid(19);
    let parts = 204 + 793 * months.rem_euclid(1080);
    let hours = 5 + 12 * months + 793 * months.div_euclid(1080) + parts.div_euclid(1080);
    let day = 1 + 29 * months + hours.div_euclid(24);
    let part_of_day = 1080 * hours.rem_euclid(24) + parts.rem_euclid(1080);
    let weekday = day.rem_euclid(7);
    let mut new_year = day;
    if part_of_day >= 19440
        || (weekday == 2 && part_of_day >= 9924 && !hebrew_leap(y))
        || (weekday == 1 && part_of_day >= 16789 && hebrew_leap(y - 1))
    {
        new_year += 1;
    }
    if matches!(new_year.rem_euclid(7), 0 | 3 | 5) {
        new_year += 1;
    }
    new_year
}

/// The JDN of 1 Tishrei of Hebrew year `y`.
pub(crate) fn hebrew_new_year(y: i64) -> i64 {
    HEBREW_EPOCH + hebrew_elapsed_days(y)
}

/// The number of days in Hebrew year `y` (353–355 or 383–385).
pub(crate) fn hebrew_year_days(y: i64) -> i64 {
    hebrew_new_year(y + 1) - hebrew_new_year(y)
}

/// Days in Hebrew month `m` (1–13, see [`HEBREW_MONTHS`]) of year `y`; in a
/// common year `ADR` and `ADS` both name Adar, of 29 days.
pub(crate) fn hebrew_month_days(y: i64, m: u8) -> u32 {
    hebrew_month_days_in(hebrew_year_days(y), hebrew_leap(y), m)
}

/// [`hebrew_month_days`] of month `m` of a year of `len` days, a leap year
/// or not (`leap`).
fn hebrew_month_days_in(len: i64, leap: bool, m: u8) -> u32 {
    match m {
        2 if len % 10 == 5 => 30,
        2 => 29,
        3 if len % 10 == 3 => 29,
        3 => 30,
        ADR if leap => 30,
        4 | ADR | ADS | 9 | 11 | 13 => 29,
        _ => 30,
    }
}

/// The JDN of day `d` of Hebrew month `m` of year `y`.
pub(crate) fn hebrew_jdn(y: i64, m: u8, d: u32) -> i64 {
    let leap = hebrew_leap(y);
    // In a common year ADR and ADS are one month, the one in ADS's place.
    let m = if !leap && m == ADR { ADS } else { m };
    let new_year = hebrew_new_year(y);
    // The year's length once, not once a month.
    let len = hebrew_new_year(y + 1) - new_year;
    let mut days = new_year;
    for before in 1..m {
        if leap || before != ADR {
            days += i64::from(hebrew_month_days_in(len, leap, before));
        }
    }
    days + i64::from(d) - 1
}

/// Whether French Republican year `y` (1–18) is a leap year: the ELF draft
/// names years III, VII, XI and XV.
pub(crate) fn french_leap(y: i64) -> bool {
    y.rem_euclid(4) == 3
}

/// Days in French Republican month `m` (1–13) of year `y`.
pub(crate) fn french_month_days(y: i64, m: u8) -> u32 {
    match m {
        13 if french_leap(y) => 6,
        13 => 5,
        _ => 30,
    }
}

/// The JDN of day `d` of French Republican month `m` of year `y`, for the
/// years 1–18 whose leap years are defined, else `None`.
pub(crate) fn french_jdn(y: i64, m: u8, d: u32) -> Option<i64> {
    if !(1..=FRENCH_LAST_YEAR).contains(&y) {
        return None;
    }
    // One leap year (III, VII, XI, XV) in every four, the first in year III.
    let leap_days = y.div_euclid(4);
    Some(FRENCH_EPOCH + 365 * (y - 1) + leap_days + 30 * i64::from(m - 1) + i64::from(d) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gregorian_and_julian_known_days() {
        // The J2000 epoch, 1 January 2000 at noon, is JD 2451545.0.
        assert_eq!(solar_jdn(2000, 1, 1, false), 2_451_545);
        // The Gregorian reform: Thursday 4 October 1582 (Julian) was followed
        // by Friday 15 October 1582 (Gregorian).
        assert_eq!(solar_jdn(1582, 10, 4, true), 2_299_160);
        assert_eq!(solar_jdn(1582, 10, 15, false), 2_299_161);
        // JD 0 is 1 January 4713 B.C. (Julian), astronomical year -4712,
        // which is 24 November 4714 B.C. in the proleptic Gregorian calendar.
        assert_eq!(solar_jdn(-4712, 1, 1, true), 0);
        assert_eq!(solar_jdn(-4713, 11, 24, false), 0);
    }

    #[test]
    fn consecutive_days_follow_the_month_lengths() {
        for julian in [false, true] {
            let mut expected = solar_jdn(-1000, 1, 1, julian);
            for y in -1000..=2100 {
                let leap = if julian {
                    julian_leap(y)
                } else {
                    gregorian_leap(y)
                };
                for m in 1..=12 {
                    for d in 1..=solar_month_days(m, leap) {
                        assert_eq!(solar_jdn(y, m, d, julian), expected, "{y}-{m}-{d}");
                        expected += 1;
                    }
                }
            }
        }
    }

    #[test]
    fn leap_years() {
        assert!(gregorian_leap(2000) && !gregorian_leap(1900) && gregorian_leap(-4));
        assert!(julian_leap(1900) && !julian_leap(1901));
        // The Metonic cycle's leap years.
        let leaps: Vec<i64> = (1..=19).filter(|&y| hebrew_leap(y)).collect();
        assert_eq!(leaps, [3, 6, 8, 11, 14, 17, 19]);
        let leaps: Vec<i64> = (1..=18).filter(|&y| french_leap(y)).collect();
        assert_eq!(leaps, [3, 7, 11, 15]);
    }

    #[test]
    fn hebrew_months_fill_their_years() {
        for y in 1..=7000 {
            let start = hebrew_new_year(y);
            let len = hebrew_year_days(y);
            assert!(
                [353, 354, 355, 383, 384, 385].contains(&len),
                "{y}: {len} days"
            );
            assert_eq!(len > 360, hebrew_leap(y), "{y}");
            let last = hebrew_jdn(y, 13, hebrew_month_days(y, 13));
            assert_eq!(last, start + len - 1, "{y}");
            assert_eq!(hebrew_jdn(y, 1, 1), start);
        }
    }

    #[test]
    fn french_years_are_contiguous() {
        for y in 1..FRENCH_LAST_YEAR {
            let end = french_jdn(y, 13, french_month_days(y, 13)).unwrap();
            assert_eq!(french_jdn(y + 1, 1, 1), Some(end + 1), "{y}");
        }
        assert_eq!(french_jdn(19, 1, 1), None);
        assert_eq!(french_jdn(0, 1, 1), None);
    }
}
