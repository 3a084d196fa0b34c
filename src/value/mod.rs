//! Typed values of payloads.
//!
//! So far: [`date`], the `DATE` payloads of GEDCOM 5.5.1 as clarified by
//! FHISO's ELF *Date, Age and Time Microformats* draft, and of GEDCOM 7, in
//! one typed [`Date`] that borrows from its input, with Julian day numbers
//! for every standard calendar and printing back in either form; and
//! [`age`], the `AGE` payloads of both, in one typed [`Age`]; [`name`],
//! personal names (`Given /Surname/ Suffix`) as a [`Name`] and the name
//! pieces of its substructures as [`NamePieces`]; [`place`], the
//! jurisdictions of a `PLAC` ([`Place`]) and the `LATI`/`LONG` coordinates
//! of its `MAP` ([`Coordinates`]); and [`enums`], the enumerated payloads
//! (`SEX`, `PEDI`, `QUAY`, `RESN`, `ADOP`, a `NAME`'s `TYPE`, `MEDI`,
//! `ROLE`) as typed enums, and [`check_enumeration`] for a validator.
//!
//! Every parser follows the same conventions: it borrows from its input
//! where it can (`into_owned` makes a value that does not), reads leniently
//! what ELF lets a reader accept (white space, case) and says so in its
//! docs, and reports the rest as a typed error with a `kind()`, the byte
//! offset where it went wrong and what was expected there.
//!
//! ```
//! use gedcom_elf::value::{Calendar, Date};
//!
//! let date = Date::parse("BET @#DJULIAN@ 1 MAR 1700 AND 1701")?;
//! let Date::Between(from, to) = &date else { unreachable!() };
//! assert_eq!(from.calendar, Calendar::Julian);
//! assert_eq!(to.calendar, Calendar::Gregorian);
//! assert_eq!(date.jdn_range(), Some((2_342_043, 2_342_702)));
//! assert_eq!(date.gedcom7().unwrap().payload, "BET JULIAN 1 MAR 1700 AND 1701");
//! # Ok::<(), gedcom_elf::value::DateError>(())
//! ```
//!
//! The README's example: a dual year, which GEDCOM 7 dropped, goes to its
//! `PHRASE`.
//!
//! ```
//! use gedcom_elf::value::Date;
//!
//! let d = Date::parse("ABT @#DJULIAN@ 1 MAR 1700/01")?;
//! assert_eq!(d.to_string(), "ABT @#DJULIAN@ 1 MAR 1700/01");
//! let g7 = d.gedcom7().unwrap();
//! assert_eq!(g7.payload, "ABT JULIAN 1 MAR 1701");
//! assert_eq!(g7.phrase.as_deref(), Some("ABT @#DJULIAN@ 1 MAR 1700/01"));
//! assert_eq!(d.jdn_range(), Some((2_342_408, 2_342_408))); // 12 MAR 1701 Gregorian
//! # Ok::<(), gedcom_elf::value::DateError>(())
//! ```
//!
//! The README's age example: a bound with no space and an upper-case unit
//! read leniently, and a 5.5.1 age word in its GEDCOM 7 form.
//!
//! ```
//! use gedcom_elf::value::Age;
//!
//! let age = Age::parse(">21Y 6m")?;
//! assert_eq!(age.to_string(), "> 21y 6m");
//! assert_eq!(age.days_range(), Some((7_833, None))); // 21 x 365 + 6 x 28, no end
//! let child = Age::parse("CHILD")?.gedcom7().unwrap();
//! assert_eq!((child.payload.as_str(), child.phrase.as_deref()), ("< 8y", Some("Child")));
//! assert_eq!(Age::parse("3 months").unwrap_err().to_string(), "byte 1: expected `y`, `m`, `w` or `d`");
//! # Ok::<(), gedcom_elf::value::AgeError>(())
//! ```
//!
//! And [`gedcomx`]: a date as a GEDCOM X formal date ([`Date::gedcomx`],
//! proleptic Gregorian), and a formal date read back ([`GedcomxDate`]).
//!
//! ```
//! use gedcom_elf::value::{Date, GedcomxDate};
//!
//! let gx = Date::parse("ABT @#DJULIAN@ 4 OCT 1582")?.gedcomx().unwrap();
//! assert_eq!(gx.to_string(), "A+1582-10-14");
//! let back = GedcomxDate::parse("/-0043")?.to_date();
//! assert_eq!(back.to_string(), "BEF 44 B.C.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Names, places and enumerations (the README's example reads them from a
//! tree: see [`NodeRef::name`](crate::tree::NodeRef::name)).
//!
//! ```
//! use gedcom_elf::value::{check_enumeration, Coordinates, Name, Pedigree, Place};
//!
//! let name = Name::parse("Jean /de La Fontaine/")?;
//! assert_eq!((name.given.as_ref(), name.surname.as_deref()), ("Jean", Some("de La Fontaine")));
//! let place = Place::parse("Château-Thierry, Aisne, , France");
//! assert_eq!(place.jurisdictions().collect::<Vec<_>>(), ["Château-Thierry", "Aisne", "", "France"]);
//! let map = Coordinates::parse("N49.0464", "E3.4031").unwrap();
//! assert_eq!((map.latitude, map.longitude), (49.0464, 3.4031));
//! assert_eq!(Pedigree::parse("birth").unwrap().as_str(), "BIRTH");
//! let strict = check_enumeration("PEDI", Some("FAMC"), true, "birth").unwrap();
//! assert_eq!(strict.unwrap_err().to_string(), "byte 0: expected `ADOPTED`, `BIRTH`, `FOSTER`, `SEALING` or `OTHER`");
//! # Ok::<(), gedcom_elf::value::NameError>(())
//! ```

/// Declares a payload parser's error type: the kind (`$kind`), the byte
/// offset where the text went wrong and what was expected there, with
/// `new`, the getters, `Display` (`byte N: expected …`) and `Error`.
macro_rules! payload_error {
    ($(#[$doc:meta])* $name:ident, $kind:ty) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            kind: $kind,
            offset: usize,
            expected: &'static str,
        }

        impl $name {
            pub(crate) fn new(kind: $kind, offset: usize, expected: &'static str) -> Self {
                $name {
                    kind,
                    offset,
                    expected,
                }
            }

            /// The kind of problem.
            pub fn kind(&self) -> $kind {
                self.kind
            }

            /// The byte offset in the text where it went wrong (for a
            /// list, where the item begins).
            pub fn offset(&self) -> usize {
                self.offset
            }

            /// What was expected at [`offset`](Self::offset).
            pub fn expected(&self) -> &'static str {
                self.expected
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "byte {}: expected {}", self.offset, self.expected)
            }
        }

        impl std::error::Error for $name {}
    };
}

pub mod age;
pub(crate) mod calendar;
pub mod date;
pub mod enums;
mod formal;
pub mod gedcomx;
pub mod language;
pub mod name;
mod parse;
pub mod place;
mod print;

pub use age::{
    Age, AgeBound, AgeError, AgeErrorKind, AgeNotGedcom7, AgeWord, Duration, Gedcom7Age,
};
pub use date::{
    Approximation, Calendar, Date, DateError, DateErrorKind, Epoch, Month, SimpleDate, Year,
};
pub use enums::{
    check_enumeration, AdoptedBy, EnumError, EnumErrorKind, MediaType, NameType, Pedigree, Quality,
    Restriction, Role, Sex,
};
pub use gedcomx::{
    FormalText, GedcomxDate, GedcomxDuration, GedcomxError, GedcomxErrorKind, GedcomxForm,
    GedcomxSimple, GedcomxTime, GedcomxZone, NotGedcomx,
};
pub use language::{language_name, language_tag, languages};
pub use name::{Name, NameError, NameErrorKind, NamePieces};
pub use place::{
    comma_list, coordinate, format_coordinate, latitude, longitude, Axis, CoordinateError,
    CoordinateErrorKind, Coordinates, Place,
};
pub use print::{Gedcom7Date, NotGedcom7};
