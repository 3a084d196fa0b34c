//! Typed values of payloads.
//!
//! So far: [`date`], the `DATE` payloads of GEDCOM 5.5.1 as clarified by
//! FHISO's ELF *Date, Age and Time Microformats* draft, and of GEDCOM 7, in
//! one typed [`Date`] that borrows from its input, with Julian day numbers
//! for every standard calendar and printing back in either form; and
//! [`age`], the `AGE` payloads of both, in one typed [`Age`].
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

pub mod age;
mod calendar;
pub mod date;
pub mod gedcomx;
mod parse;
mod print;

pub use age::{
    Age, AgeBound, AgeError, AgeErrorKind, AgeNotGedcom7, AgeWord, Duration, Gedcom7Age,
};
pub use date::{
    Approximation, Calendar, Date, DateError, DateErrorKind, Epoch, Month, SimpleDate, Year,
};
pub use gedcomx::{
    GedcomxDate, GedcomxDuration, GedcomxError, GedcomxErrorKind, GedcomxForm, GedcomxSimple,
    GedcomxTime, GedcomxZone, NotGedcomx,
};
pub use print::{Gedcom7Date, NotGedcom7};
