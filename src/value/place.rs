//! Places: the `PLAC` payload, a comma-separated list of jurisdictions
//! (ELF's comma-separated list, GEDCOM 7's `List:Text`), in a typed
//! [`Place`] that borrows from the payload; and the `LATI` and `LONG`
//! payloads of a `MAP`, read into signed degrees ([`latitude`],
//! [`longitude`], [`Coordinates`]).
//!
//! **Jurisdictions** are the items between commas, from the smallest to the
//! largest (`Westminster, London, England`), each without the white space
//! around it, which neither version lets an item keep. An empty item stays,
//! empty, in its place (`, London, England` is a place whose smallest
//! jurisdiction is not known); the empty payload has no jurisdictions.
//! [`comma_list`] splits any comma-separated payload the same way (the
//! `FORM` of a `PLAC`, 5.5.1's name pieces).
//!
//! **Coordinates** are a hemisphere letter, `N` or `S` for a latitude, `E`
//! or `W` for a longitude, then a decimal number of degrees with no space
//! (`N50.9876`, `W1.5`), in both versions. North and east are positive.
//! Read leniently: white space around the payload and a lower-case letter.
//! Anything else, and a latitude above 90 or a longitude above 180, is a
//! [`CoordinateError`] with its [`CoordinateErrorKind`], the byte offset and
//! what was expected there.
//!
//! ```
//! use gedcom_elf::value::{latitude, longitude, CoordinateErrorKind, Place};
//!
//! let place = Place::parse("Westminster,  London ,England");
//! assert_eq!(place.jurisdictions().collect::<Vec<_>>(), ["Westminster", "London", "England"]);
//! assert_eq!(place.to_string(), "Westminster, London, England");
//!
//! assert_eq!(latitude("N50.9876")?, 50.9876);
//! assert_eq!(longitude("W1.5")?, -1.5);
//! let err = longitude("W181").unwrap_err();
//! assert_eq!(err.kind(), CoordinateErrorKind::Range);
//! assert_eq!(err.to_string(), "byte 1: expected degrees from 0 to 180");
//! # Ok::<(), gedcom_elf::value::CoordinateError>(())
//! ```

use std::borrow::Cow;
use std::fmt;

use super::parse::trim_space;

/// The items of a comma-separated payload, each without the white space
/// around it; empty items kept; none for an empty (or all white space)
/// payload.
///
/// ```
/// use gedcom_elf::value::comma_list;
///
/// assert_eq!(comma_list(" a, ,b ").collect::<Vec<_>>(), ["a", "", "b"]);
/// assert_eq!(comma_list(" ").count(), 0);
/// ```
pub fn comma_list(payload: &str) -> impl Iterator<Item = &str> + '_ {
    let (a, b) = trim_space(payload.as_bytes());
    let items = (a < b).then(|| {
        payload.split(',').map(|item| {
            let (a, b) = trim_space(item.as_bytes());
            &item[a..b]
        })
    });
    items.into_iter().flatten()
}

/// A `PLAC` payload: a list of jurisdictions, smallest first. It holds the
/// payload (borrowed or owned) and splits it on demand.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Place<'a> {
    text: Cow<'a, str>,
}

impl<'a> Place<'a> {
    /// Reads a `PLAC` payload. Every text is a list of jurisdictions, so
    /// this cannot fail.
    pub fn parse(payload: &'a str) -> Place<'a> {
        Place {
            text: Cow::Borrowed(payload),
        }
    }

    /// A place of a payload that is borrowed or owned.
    pub fn from_text(text: Cow<'a, str>) -> Place<'a> {
        Place { text }
    }

    /// The payload as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The jurisdictions, smallest first (see [`comma_list`]).
    ///
    /// ```
    /// use gedcom_elf::value::Place;
    ///
    /// let p = Place::parse(", Cook, Illinois, USA");
    /// assert_eq!(p.jurisdictions().collect::<Vec<_>>(), ["", "Cook", "Illinois", "USA"]);
    /// assert_eq!(p.len(), 4);
    /// assert_eq!(p.largest(), Some("USA"));
    /// ```
    pub fn jurisdictions(&self) -> impl Iterator<Item = &str> + '_ {
        comma_list(&self.text)
    }

    /// The number of jurisdictions.
    pub fn len(&self) -> usize {
        self.jurisdictions().count()
    }

    /// Whether there are no jurisdictions (an empty payload).
    pub fn is_empty(&self) -> bool {
        self.jurisdictions().next().is_none()
    }

    /// The smallest jurisdiction (the first item), when there is one.
    pub fn smallest(&self) -> Option<&str> {
        self.jurisdictions().next()
    }

    /// The largest jurisdiction (the last item), when there is one.
    pub fn largest(&self) -> Option<&str> {
        self.jurisdictions().last()
    }

    /// The same place, owning its text.
    pub fn into_owned(self) -> Place<'static> {
        Place {
            text: Cow::Owned(self.text.into_owned()),
        }
    }
}

impl fmt::Display for Place<'_> {
    /// The jurisdictions separated by `, `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, j) in self.jurisdictions().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(j)?;
        }
        Ok(())
    }
}

/// Which coordinate: a `LATI` or a `LONG`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// `LATI`: degrees north (positive) or south of the equator.
    Latitude,
    /// `LONG`: degrees east (positive) or west of the prime meridian.
    Longitude,
}

impl Axis {
    /// The hemisphere letters, positive first: `N`, `S` or `E`, `W`.
    pub fn letters(self) -> [char; 2] {
        match self {
            Axis::Latitude => ['N', 'S'],
            Axis::Longitude => ['E', 'W'],
        }
    }

    /// The largest number of degrees: 90 or 180.
    pub fn max(self) -> f64 {
        match self {
            Axis::Latitude => 90.0,
            Axis::Longitude => 180.0,
        }
    }

    /// The tag: `LATI` or `LONG`.
    pub fn tag(self) -> &'static str {
        match self {
            Axis::Latitude => "LATI",
            Axis::Longitude => "LONG",
        }
    }
}

/// What kind of problem a [`CoordinateError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoordinateErrorKind {
    /// No hemisphere letter first (`-1.5`, `50.9876`), or the other axis's.
    Hemisphere,
    /// No decimal number after the letter (`N`, `N50°`, `N1,5`, `N 50`).
    Number,
    /// More degrees than the axis has (90 or 180).
    Range,
    /// The coordinate is missing (a `MAP` with no `LATI`, or no `LONG`).
    Missing,
}

/// Why a payload is not a coordinate: its axis, the kind, the byte offset
/// in the payload and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoordinateError {
    axis: Axis,
    kind: CoordinateErrorKind,
    offset: usize,
}

impl CoordinateError {
    /// Latitude or longitude.
    pub fn axis(&self) -> Axis {
        self.axis
    }

    /// The kind of problem.
    pub fn kind(&self) -> CoordinateErrorKind {
        self.kind
    }

    /// The byte offset in the payload where it went wrong.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What was expected at [`offset`](Self::offset).
    pub fn expected(&self) -> &'static str {
        use Axis::*;
        use CoordinateErrorKind::*;
        match (self.kind, self.axis) {
            (Hemisphere, Latitude) => "`N` or `S`",
            (Hemisphere, Longitude) => "`E` or `W`",
            (Number, _) => "a decimal number of degrees (digits, then `.` and digits)",
            (Range, Latitude) => "degrees from 0 to 90",
            (Range, Longitude) => "degrees from 0 to 180",
            (Missing, Latitude) => "a `LATI`",
            (Missing, Longitude) => "a `LONG`",
        }
    }

    /// An error for a missing coordinate.
    pub fn missing(axis: Axis) -> Self {
        CoordinateError {
            axis,
            kind: CoordinateErrorKind::Missing,
            offset: 0,
        }
    }
}

impl fmt::Display for CoordinateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: expected {}", self.offset, self.expected())
    }
}

impl std::error::Error for CoordinateError {}

/// Reads a coordinate of `axis`: signed degrees.
///
/// # Errors
/// See [`CoordinateErrorKind`].
pub fn coordinate(axis: Axis, payload: &str) -> Result<f64, CoordinateError> {
    let err = |kind, offset| CoordinateError { axis, kind, offset };
    let b = payload.as_bytes();
    let (start, end) = trim_space(b);
    let [pos, neg] = axis.letters();
    let sign = match b
        .get(start)
        .filter(|_| start < end)
        .map(u8::to_ascii_uppercase)
    {
        Some(c) if c == pos as u8 => 1.0,
        Some(c) if c == neg as u8 => -1.0,
        _ => return Err(err(CoordinateErrorKind::Hemisphere, start)),
    };
    let at = start + 1;
    let number = &b[at..end];
    let int = number.iter().take_while(|c| c.is_ascii_digit()).count();
    let bad = |i: usize| err(CoordinateErrorKind::Number, at + i);
    if int == 0 {
        return Err(bad(0));
    }
    if int < number.len() {
        if number[int] != b'.' {
            return Err(bad(int));
        }
        let frac = number[int + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if frac == 0 || int + 1 + frac < number.len() {
            return Err(bad(int + 1 + frac));
        }
    }
    // Digits and one `.` between digits: always a valid f64.
    let degrees: f64 = payload[at..end].parse().map_err(|_| bad(0))?;
    if degrees > axis.max() {
        return Err(err(CoordinateErrorKind::Range, at));
    }
    Ok(sign * degrees)
}

/// Reads a `LATI` payload (`N50.9876`): degrees, north positive.
///
/// ```
/// use gedcom_elf::value::latitude;
///
/// assert_eq!(latitude("S33.8688")?, -33.8688);
/// assert_eq!(latitude(" n0 ")?, 0.0);
/// assert!(latitude("N91").is_err());
/// assert!(latitude("E10").is_err());
/// # Ok::<(), gedcom_elf::value::CoordinateError>(())
/// ```
///
/// # Errors
/// See [`CoordinateErrorKind`].
pub fn latitude(payload: &str) -> Result<f64, CoordinateError> {
    coordinate(Axis::Latitude, payload)
}

/// Reads a `LONG` payload (`W1.5`): degrees, east positive.
///
/// # Errors
/// See [`CoordinateErrorKind`].
pub fn longitude(payload: &str) -> Result<f64, CoordinateError> {
    coordinate(Axis::Longitude, payload)
}

/// Prints signed degrees as a coordinate payload of `axis`: the hemisphere
/// letter, then the number with as many digits as it takes to read back the
/// same value (`-1.5` is `W1.5` as a longitude). `None` for a value out of
/// range or not a number.
///
/// ```
/// use gedcom_elf::value::{format_coordinate, Axis};
///
/// assert_eq!(format_coordinate(Axis::Longitude, -1.5).as_deref(), Some("W1.5"));
/// assert_eq!(format_coordinate(Axis::Latitude, 50.0).as_deref(), Some("N50"));
/// assert_eq!(format_coordinate(Axis::Latitude, 90.5), None);
/// ```
pub fn format_coordinate(axis: Axis, degrees: f64) -> Option<String> {
    if degrees.is_nan() || degrees.abs() > axis.max() {
        return None;
    }
    let [pos, neg] = axis.letters();
    let letter = if degrees < 0.0 { neg } else { pos };
    Some(format!("{letter}{}", degrees.abs()))
}

/// A point: the `LATI` and `LONG` of a `MAP`, in signed degrees (north and
/// east positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coordinates {
    /// Degrees north of the equator (negative: south), -90 to 90.
    pub latitude: f64,
    /// Degrees east of the prime meridian (negative: west), -180 to 180.
    pub longitude: f64,
}

impl Coordinates {
    /// Reads a `LATI` and a `LONG` payload.
    ///
    /// ```
    /// use gedcom_elf::value::Coordinates;
    ///
    /// let c = Coordinates::parse("N50.9876", "W1.5")?;
    /// assert_eq!((c.latitude, c.longitude), (50.9876, -1.5));
    /// assert_eq!(c.to_string(), "N50.9876 W1.5");
    /// # Ok::<(), gedcom_elf::value::CoordinateError>(())
    /// ```
    ///
    /// # Errors
    /// The latitude's error if any, else the longitude's.
    pub fn parse(lati: &str, long: &str) -> Result<Coordinates, CoordinateError> {
        Ok(Coordinates {
            latitude: latitude(lati)?,
            longitude: longitude(long)?,
        })
    }
}

impl fmt::Display for Coordinates {
    /// The two payloads separated by a space (`N50.9876 W1.5`); a value out
    /// of range prints as its number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let one = |axis, v: f64| format_coordinate(axis, v).unwrap_or_else(|| v.to_string());
        write!(
            f,
            "{} {}",
            one(Axis::Latitude, self.latitude),
            one(Axis::Longitude, self.longitude)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(axis: Axis, s: &str) -> (CoordinateErrorKind, usize) {
        let e = coordinate(axis, s).unwrap_err();
        assert_eq!(e.axis(), axis);
        (e.kind(), e.offset())
    }

    #[test]
    fn jurisdictions() {
        let j = |s: &str| {
            Place::parse(s)
                .jurisdictions()
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(j("a,b , c"), ["a", "b", "c"]);
        assert_eq!(j(",,"), ["", "", ""]);
        assert_eq!(j(""), Vec::<String>::new());
        assert_eq!(j("  "), Vec::<String>::new());
        assert_eq!(j("London"), ["London"]);
        assert_eq!(j(" , London"), ["", "London"]);
        let p = Place::parse(" a ,, b ");
        assert_eq!(
            (p.len(), p.smallest(), p.largest()),
            (3, Some("a"), Some("b"))
        );
        assert_eq!(p.to_string(), "a, , b");
        assert_eq!(Place::parse(&p.to_string()).to_string(), p.to_string());
        assert!(Place::parse("").is_empty());
        assert_eq!(p.clone().into_owned(), p);
    }

    #[test]
    fn coordinates_in_both_hemispheres() {
        assert_eq!(latitude("N18.150944"), Ok(18.150944));
        assert_eq!(longitude("E168.150944"), Ok(168.150944));
        assert_eq!(latitude("S90"), Ok(-90.0));
        assert_eq!(longitude("W180.0"), Ok(-180.0));
        assert_eq!(longitude("e0"), Ok(0.0));
        assert_eq!(latitude("\tN07.5 "), Ok(7.5));
    }

    #[test]
    fn coordinate_errors() {
        use CoordinateErrorKind as K;
        let (lat, long) = (Axis::Latitude, Axis::Longitude);
        assert_eq!(err(lat, "50.1"), (K::Hemisphere, 0));
        assert_eq!(err(lat, "-50.1"), (K::Hemisphere, 0));
        assert_eq!(err(lat, "E50"), (K::Hemisphere, 0));
        assert_eq!(err(long, "N50"), (K::Hemisphere, 0));
        assert_eq!(err(lat, ""), (K::Hemisphere, 0));
        assert_eq!(err(lat, "N"), (K::Number, 1));
        assert_eq!(err(lat, "N 50"), (K::Number, 1));
        assert_eq!(err(lat, "N50."), (K::Number, 4));
        assert_eq!(err(lat, "N.5"), (K::Number, 1));
        assert_eq!(err(lat, "N5.5.5"), (K::Number, 4));
        assert_eq!(err(lat, "N50°"), (K::Number, 3));
        assert_eq!(err(lat, "N1,5"), (K::Number, 2));
        assert_eq!(err(lat, "N1e5"), (K::Number, 2));
        assert_eq!(err(lat, "N-5"), (K::Number, 1));
        assert_eq!(err(lat, "N90.01"), (K::Range, 1));
        assert_eq!(err(long, "E180.5"), (K::Range, 1));
        assert_eq!(err(lat, "Né"), (K::Number, 1));
        assert_eq!(err(lat, "éN"), (K::Hemisphere, 0));
        let e = CoordinateError::missing(long);
        assert_eq!(e.to_string(), "byte 0: expected a `LONG`");
    }

    #[test]
    fn printing_and_reading_again_agree() {
        for s in ["N50.9876", "S0.000001", "N90", "N0", "S12.345678901234"] {
            let v = latitude(s).unwrap();
            let printed = format_coordinate(Axis::Latitude, v).unwrap();
            assert_eq!(latitude(&printed), Ok(v), "{s} -> {printed}");
        }
        assert_eq!(format_coordinate(Axis::Longitude, f64::NAN), None);
        assert_eq!(
            format_coordinate(Axis::Longitude, -0.0).as_deref(),
            Some("E0")
        );
        let c = Coordinates::parse("S1", "E2").unwrap();
        assert_eq!(c.to_string(), "S1 E2");
    }
}
