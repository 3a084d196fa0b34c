//! Enumerated payloads: `SEX`, `PEDI`, `QUAY`, `RESN`, `ADOP` (under
//! `FAMC`), the `TYPE` of a `NAME`, `MEDI` and `ROLE`, each a typed enum
//! for GEDCOM 5.5.1 (as ELF reads it) and GEDCOM 7 alike.
//!
//! Each enum has every value of either version. `parse` reads a payload
//! **leniently**: white space around the value is dropped and the value is
//! matched in any ASCII case, because 5.5.1 writes some sets in lower case
//! (`birth`, `confidential`, `photo`), others in upper case (`M`, `HUSB`,
//! `CHIL`), GEDCOM 7 writes every set in upper case, and files mix them
//! (`Birth`, `f`). `as_str` gives the GEDCOM 7 spelling, and `gedcom551`
//! the 5.5.1 one (`None` for a value 5.5.1 does not have, such as `SEX X`
//! or `PEDI OTHER`).
//!
//! [`check_enumeration`] is the strict form a validator wants: for a tag in
//! its context and a version, whether the payload is one of that version's
//! values, written as that version writes it. GEDCOM 7 enumerations are
//! case-sensitive and also allow extension tags (`_MYVALUE`); 5.5.1's are
//! read in any case, as above, but only with the values 5.5.1 has. ELF
//! lists the same values as "known values", adding that others may be used
//! in some sets; the check follows 5.5.1's closed lists, except where 5.5.1
//! itself allows user-defined values (a `NAME`'s `TYPE`), which is not an
//! enumeration there.
//!
//! ```
//! use gedcom_elf::value::{check_enumeration, EnumErrorKind, Pedigree, Sex};
//!
//! assert_eq!(Sex::parse("f")?, Sex::Female);
//! assert_eq!(Pedigree::parse("Birth")?.as_str(), "BIRTH");
//! assert_eq!(Pedigree::Birth.gedcom551(), Some("birth"));
//!
//! // GEDCOM 7 is case-sensitive, 5.5.1 is read in any case.
//! let e = check_enumeration("PEDI", Some("FAMC"), true, "birth").unwrap().unwrap_err();
//! assert_eq!(e.kind(), EnumErrorKind::Case);
//! assert!(check_enumeration("PEDI", Some("FAMC"), false, "birth").unwrap().is_ok());
//! // X is a sex of GEDCOM 7 only.
//! assert!(check_enumeration("SEX", Some("INDI"), true, "X").unwrap().is_ok());
//! let e = check_enumeration("SEX", Some("INDI"), false, "X").unwrap().unwrap_err();
//! assert_eq!(e.to_string(), "byte 0: expected `M`, `F` or `U`");
//! // A tag with no enumerated payload in that context.
//! assert_eq!(check_enumeration("PEDI", Some("INDI"), false, "birth"), None);
//! # Ok::<(), gedcom_elf::value::EnumError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use super::parse::{is_extension_tag, trim_space, trim_str};

/// What kind of problem an [`EnumError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnumErrorKind {
    /// The payload (or a list item) is empty.
    Empty,
    /// Not a value of the set.
    Unknown,
    /// A value of the set in the wrong case (GEDCOM 7's strict check only:
    /// `birth` for `BIRTH`).
    Case,
    /// A value of the set that the version does not have (`SEX X` in
    /// 5.5.1, `PEDI OTHER` in 5.5.1).
    Version,
}

payload_error!(
    /// Why a payload is not a value of its enumeration: the kind, the byte
    /// offset in the payload and the values expected there.
    EnumError,
    EnumErrorKind
);

/// Defines an enumeration: its values with their GEDCOM 7 spelling and their
/// 5.5.1 spelling (or `None`), and the messages listing either version's
/// values.
macro_rules! enumeration {
    (
        $(#[$meta:meta])*
        $name:ident, expected7: $exp7:literal, expected551: $exp551:literal,
        $( $(#[$vmeta:meta])* $variant:ident = $g7:literal, $g551:expr; )+
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The values of either version, for messages.
            const EXPECTED: &'static str = $exp7;

            /// The values of GEDCOM 5.5.1, for messages.
            const EXPECTED_551: &'static str = $exp551;

            /// The GEDCOM 7 spelling (upper case).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $g7,)+
                }
            }

            /// The GEDCOM 5.5.1 spelling, `None` for a value 5.5.1 does not
            /// have.
            pub fn gedcom551(self) -> Option<&'static str> {
                match self {
                    $($name::$variant => $g551,)+
                }
            }

            /// Parses a payload leniently: white space around it dropped,
            /// any ASCII case, either version's values (see the
            /// [module docs](self)).
            ///
            /// # Errors
            /// [`EnumErrorKind::Empty`] for an empty payload,
            /// [`EnumErrorKind::Unknown`] for any other text that is not a
            /// value.
            pub fn parse(payload: &str) -> Result<$name, EnumError> {
                let (at, word) = trim_str(payload);
                if word.is_empty() {
                    return Err(EnumError::new(EnumErrorKind::Empty, at, Self::EXPECTED));
                }
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| {
                        v.as_str().eq_ignore_ascii_case(word)
                            || v.gedcom551().is_some_and(|s| s.eq_ignore_ascii_case(word))
                    })
                    .ok_or(EnumError::new(EnumErrorKind::Unknown, at, Self::EXPECTED))
            }

            /// The strict check of one value: as [`check_enumeration`] does.
            fn check(word: &str, at: usize, gedcom7: bool) -> Result<(), EnumError> {
                let expected = if gedcom7 { Self::EXPECTED } else { Self::EXPECTED_551 };
                if word.is_empty() {
                    return Err(EnumError::new(EnumErrorKind::Empty, at, expected));
                }
                if gedcom7 && is_extension_tag(word) {
                    return Ok(());
                }
                let Ok(v) = Self::parse(word) else {
                    return Err(EnumError::new(EnumErrorKind::Unknown, at, expected));
                };
                match (gedcom7, v.gedcom551()) {
                    (true, _) if v.as_str() == word => Ok(()),
                    (true, _) => Err(EnumError::new(EnumErrorKind::Case, at, expected)),
                    (false, Some(_)) => Ok(()),
                    (false, None) => Err(EnumError::new(EnumErrorKind::Version, at, expected)),
                }
            }
        }

        impl fmt::Display for $name {
            /// The GEDCOM 7 spelling.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = EnumError;

            fn from_str(s: &str) -> Result<Self, EnumError> {
                $name::parse(s)
            }
        }
    };
}

enumeration! {
    /// `SEX`: the sex of an individual.
    Sex,
    expected7: "`M`, `F`, `U` or `X`",
    expected551: "`M`, `F` or `U`",
    /// `M`: male.
    Male = "M", Some("M");
    /// `F`: female.
    Female = "F", Some("F");
    /// `X`: neither only male nor only female (GEDCOM 7).
    X = "X", None;
    /// `U`: not known from the records.
    Unknown = "U", Some("U");
}

enumeration! {
    /// `PEDI` under `FAMC`: how a child belongs to a family.
    Pedigree,
    expected7: "`ADOPTED`, `BIRTH`, `FOSTER`, `SEALING` or `OTHER`",
    expected551: "`adopted`, `birth`, `foster` or `sealing`",
    /// `ADOPTED`: adoptive parents.
    Adopted = "ADOPTED", Some("adopted");
    /// `BIRTH`: birth parents.
    Birth = "BIRTH", Some("birth");
    /// `FOSTER`: a foster family.
    Foster = "FOSTER", Some("foster");
    /// `SEALING`: sealed to the parents (a Latter-day Saint ordinance).
    Sealing = "SEALING", Some("sealing");
    /// `OTHER`: some other link (GEDCOM 7; its meaning in a `PHRASE`).
    Other = "OTHER", None;
}

enumeration! {
    /// `QUAY` under a source citation: the quality of the evidence, 0 to 3.
    Quality,
    expected7: "`0`, `1`, `2` or `3`",
    expected551: "`0`, `1`, `2` or `3`",
    /// `0`: unreliable evidence or estimated data.
    Unreliable = "0", Some("0");
    /// `1`: questionable reliability.
    Questionable = "1", Some("1");
    /// `2`: secondary evidence.
    Secondary = "2", Some("2");
    /// `3`: direct and primary evidence.
    Direct = "3", Some("3");
}

impl Quality {
    /// The number: 0 to 3.
    pub fn number(self) -> u8 {
        self as u8
    }
}

enumeration! {
    /// `RESN`: a restriction notice. GEDCOM 7's payload is a comma list of
    /// them ([`Restriction::parse_list`]).
    Restriction,
    expected7: "`CONFIDENTIAL`, `LOCKED` or `PRIVACY`",
    expected551: "`confidential`, `locked` or `privacy`",
    /// `CONFIDENTIAL`: not to be distributed.
    Confidential = "CONFIDENTIAL", Some("confidential");
    /// `LOCKED`: not to be changed.
    Locked = "LOCKED", Some("locked");
    /// `PRIVACY`: details withheld for privacy.
    Privacy = "PRIVACY", Some("privacy");
}

impl Restriction {
    /// Parses a GEDCOM 7 `RESN` list (`CONFIDENTIAL, LOCKED`; a 5.5.1
    /// payload of one value is a list of one), each item as
    /// [`Restriction::parse`] reads it.
    ///
    /// ```
    /// use gedcom_elf::value::Restriction;
    ///
    /// let r = Restriction::parse_list("CONFIDENTIAL, locked")?;
    /// assert_eq!(r, [Restriction::Confidential, Restriction::Locked]);
    /// assert_eq!(Restriction::parse_list("PRIVACY,,LOCKED").unwrap_err().offset(), 8);
    /// # Ok::<(), gedcom_elf::value::EnumError>(())
    /// ```
    ///
    /// # Errors
    /// The first item that is not a restriction, with its offset in the
    /// whole payload.
    pub fn parse_list(payload: &str) -> Result<Vec<Restriction>, EnumError> {
        list_items(payload)
            .map(|(at, item)| {
                Restriction::parse(item).map_err(|e| EnumError::new(e.kind, at, e.expected))
            })
            .collect()
    }
}

enumeration! {
    /// `ADOP` under `FAMC` under an adoption event: which parent adopted.
    AdoptedBy,
    expected7: "`HUSB`, `WIFE` or `BOTH`",
    expected551: "`HUSB`, `WIFE` or `BOTH`",
    /// `HUSB`: the family's husband (GEDCOM 7: its first partner).
    Husband = "HUSB", Some("HUSB");
    /// `WIFE`: the family's wife (GEDCOM 7: its second partner).
    Wife = "WIFE", Some("WIFE");
    /// `BOTH`: both.
    Both = "BOTH", Some("BOTH");
}

enumeration! {
    /// `TYPE` under `NAME`: the kind of name. 5.5.1 also allows values of
    /// the user's own, which this type does not hold: read the text.
    NameType,
    expected7: "`AKA`, `BIRTH`, `IMMIGRANT`, `MAIDEN`, `MARRIED`, `PROFESSIONAL` or `OTHER`",
    expected551: "`aka`, `birth`, `immigrant`, `maiden` or `married`",
    /// `AKA`: also known as, an unofficial name.
    Aka = "AKA", Some("aka");
    /// `BIRTH`: the name given at or near birth.
    Birth = "BIRTH", Some("birth");
    /// `IMMIGRANT`: the name taken on immigrating.
    Immigrant = "IMMIGRANT", Some("immigrant");
    /// `MAIDEN`: the name before marriage.
    Maiden = "MAIDEN", Some("maiden");
    /// `MARRIED`: the name taken on marriage.
    Married = "MARRIED", Some("married");
    /// `PROFESSIONAL`: a name used in a profession (GEDCOM 7).
    Professional = "PROFESSIONAL", None;
    /// `OTHER`: another kind (GEDCOM 7; its meaning in a `PHRASE`).
    Other = "OTHER", None;
}

enumeration! {
    /// `MEDI` under `CALN` (and under `FORM`): the medium of a source or
    /// file.
    MediaType,
    expected7: "`AUDIO`, `BOOK`, `CARD`, `ELECTRONIC`, `FICHE`, `FILM`, `MAGAZINE`, `MANUSCRIPT`, `MAP`, `NEWSPAPER`, `PHOTO`, `TOMBSTONE`, `VIDEO` or `OTHER`",
    expected551: "`audio`, `book`, `card`, `electronic`, `fiche`, `film`, `magazine`, `manuscript`, `map`, `newspaper`, `photo`, `tombstone` or `video`",
    /// `AUDIO`.
    Audio = "AUDIO", Some("audio");
    /// `BOOK`.
    Book = "BOOK", Some("book");
    /// `CARD`.
    Card = "CARD", Some("card");
    /// `ELECTRONIC`.
    Electronic = "ELECTRONIC", Some("electronic");
    /// `FICHE`: microfiche.
    Fiche = "FICHE", Some("fiche");
    /// `FILM`: microfilm.
    Film = "FILM", Some("film");
    /// `MAGAZINE`.
    Magazine = "MAGAZINE", Some("magazine");
    /// `MANUSCRIPT`.
    Manuscript = "MANUSCRIPT", Some("manuscript");
    /// `MAP`.
    Map = "MAP", Some("map");
    /// `NEWSPAPER`.
    Newspaper = "NEWSPAPER", Some("newspaper");
    /// `PHOTO`: a photograph.
    Photo = "PHOTO", Some("photo");
    /// `TOMBSTONE`.
    Tombstone = "TOMBSTONE", Some("tombstone");
    /// `VIDEO`.
    Video = "VIDEO", Some("video");
    /// `OTHER`: another medium (GEDCOM 7; its meaning in a `PHRASE`).
    Other = "OTHER", None;
}

enumeration! {
    /// `ROLE` under `ASSO` (GEDCOM 7) and under a cited event (`SOUR.EVEN`):
    /// the part a person played. 5.5.1 has the first six and a description
    /// of its own in parentheses (`(Godfather)`), which this type does not
    /// hold: see [`Role::descriptor`].
    Role,
    expected7: "`CHIL`, `CLERGY`, `FATH`, `FRIEND`, `GODP`, `HUSB`, `MOTH`, `MULTIPLE`, `NGHBR`, `OFFICIATOR`, `PARENT`, `SPOU`, `WIFE`, `WITN` or `OTHER`",
    expected551: "`CHIL`, `HUSB`, `WIFE`, `MOTH`, `FATH`, `SPOU` or a description in parentheses",
    /// `CHIL`: child.
    Child = "CHIL", Some("CHIL");
    /// `CLERGY`: a religious official (GEDCOM 7).
    Clergy = "CLERGY", None;
    /// `FATH`: father.
    Father = "FATH", Some("FATH");
    /// `FRIEND`: a friend (GEDCOM 7).
    Friend = "FRIEND", None;
    /// `GODP`: godparent (GEDCOM 7).
    Godparent = "GODP", None;
    /// `HUSB`: husband.
    Husband = "HUSB", Some("HUSB");
    /// `MOTH`: mother.
    Mother = "MOTH", Some("MOTH");
    /// `MULTIPLE`: a sibling of a multiple birth (GEDCOM 7).
    Multiple = "MULTIPLE", None;
    /// `NGHBR`: neighbour (GEDCOM 7).
    Neighbour = "NGHBR", None;
    /// `OFFICIATOR`: who officiated (GEDCOM 7).
    Officiator = "OFFICIATOR", None;
    /// `PARENT`: parent (GEDCOM 7).
    Parent = "PARENT", None;
    /// `SPOU`: spouse.
    Spouse = "SPOU", Some("SPOU");
    /// `WIFE`: wife.
    Wife = "WIFE", Some("WIFE");
    /// `WITN`: witness (GEDCOM 7).
    Witness = "WITN", None;
    /// `OTHER`: another part (GEDCOM 7; its meaning in a `PHRASE`).
    Other = "OTHER", None;
}

impl Role {
    /// The description of a 5.5.1 role written in parentheses
    /// (`(Godfather)` gives `Godfather`), white space around it dropped;
    /// `None` for any other payload.
    ///
    /// ```
    /// use gedcom_elf::value::Role;
    ///
    /// assert_eq!(Role::descriptor(" (Godfather) "), Some("Godfather"));
    /// assert_eq!(Role::descriptor("GODP"), None);
    /// ```
    pub fn descriptor(payload: &str) -> Option<&str> {
        let (_, word) = trim_str(payload);
        let inner = word.strip_prefix('(')?.strip_suffix(')')?;
        let (a, b) = trim_space(inner.as_bytes());
        Some(&inner[a..b])
    }
}

/// The items of a comma list, each trimmed, with its offset.
fn list_items(payload: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    payload.split(',').map(move |item| {
        let at = start;
        start += item.len() + 1;
        let (a, word) = trim_str(item);
        (at + a, word)
    })
}

/// Which enumeration a tag has in its context, if any.
#[derive(Clone, Copy)]
enum Set {
    Sex,
    Pedigree,
    Quality,
    Restriction,
    AdoptedBy,
    NameType,
    MediaType,
    Role,
}

fn set_of(tag: &str, parent_tag: Option<&str>, gedcom7: bool) -> Option<Set> {
    Some(match (tag, parent_tag) {
        ("SEX", _) => Set::Sex,
        ("PEDI", Some("FAMC")) => Set::Pedigree,
        ("QUAY", Some("SOUR")) => Set::Quality,
        ("RESN", _) => Set::Restriction,
        ("ADOP", Some("FAMC")) => Set::AdoptedBy,
        // 5.5.1 allows user-defined name types: not an enumeration there.
        ("TYPE", Some("NAME")) if gedcom7 => Set::NameType,
        ("MEDI", Some("CALN" | "FORM")) => Set::MediaType,
        ("ROLE", Some("ASSO" | "EVEN")) => Set::Role,
        _ => return None,
    })
}

/// An enumerated payload spelt as the target version spells it, for the
/// version conversion: `None` when `tag` under `parent_tag` has no
/// enumerated payload in GEDCOM 7 (the contexts of [`check_enumeration`]),
/// `Some(None)` when `text` is none of the enumeration's values (read
/// leniently, either version's spelling) or one the target lacks, and
/// `Some(Some(value))` otherwise (GEDCOM 7's spelling when `to_gedcom7`,
/// else 5.5.1's). A `RESN` is read as one value.
pub(crate) fn respell(
    tag: &str,
    parent_tag: Option<&str>,
    to_gedcom7: bool,
    text: &str,
) -> Option<Option<&'static str>> {
    fn spell<T>(
        parsed: Result<T, EnumError>,
        g7: fn(T) -> &'static str,
        g551: fn(T) -> Option<&'static str>,
        to_gedcom7: bool,
    ) -> Option<&'static str> {
        let value = parsed.ok()?;
        if to_gedcom7 {
            Some(g7(value))
        } else {
            g551(value)
        }
    }
    let t = to_gedcom7;
    Some(match set_of(tag, parent_tag, true)? {
        Set::Sex => spell(Sex::parse(text), Sex::as_str, Sex::gedcom551, t),
        Set::Pedigree => spell(
            Pedigree::parse(text),
            Pedigree::as_str,
            Pedigree::gedcom551,
            t,
        ),
        Set::Quality => spell(Quality::parse(text), Quality::as_str, Quality::gedcom551, t),
        Set::Restriction => spell(
            Restriction::parse(text),
            Restriction::as_str,
            Restriction::gedcom551,
            t,
        ),
        Set::AdoptedBy => spell(
            AdoptedBy::parse(text),
            AdoptedBy::as_str,
            AdoptedBy::gedcom551,
            t,
        ),
        Set::NameType => spell(
            NameType::parse(text),
            NameType::as_str,
            NameType::gedcom551,
            t,
        ),
        Set::MediaType => spell(
            MediaType::parse(text),
            MediaType::as_str,
            MediaType::gedcom551,
            t,
        ),
        Set::Role => spell(Role::parse(text), Role::as_str, Role::gedcom551, t),
    })
}

/// Checks an enumerated payload strictly, as a validator does: `None` when
/// `tag` under `parent_tag` has no enumerated payload, otherwise whether
/// `text` is one of the values of that version (GEDCOM 7 when `gedcom7`,
/// else 5.5.1 as ELF reads it).
///
/// The tags and contexts: `SEX` anywhere; `PEDI` under `FAMC`; `QUAY` under
/// `SOUR`; `RESN` anywhere (GEDCOM 7: a comma list of values); `ADOP` under
/// `FAMC`; `TYPE` under `NAME` (GEDCOM 7 only: 5.5.1 allows values of the
/// user's own); `MEDI` under `CALN` or `FORM`; `ROLE` under `ASSO` or `EVEN`
/// (5.5.1: also a description in parentheses).
///
/// GEDCOM 7 values must be written exactly (upper case; a lower-case value
/// is an [`EnumErrorKind::Case`] error), and an extension tag (`_FOO`) is
/// allowed. 5.5.1 values are matched in any ASCII case, and a GEDCOM 7 value
/// 5.5.1 does not have is an [`EnumErrorKind::Version`] error. White space
/// around the value is ignored in both.
///
/// ```
/// use gedcom_elf::value::{check_enumeration, EnumErrorKind};
///
/// assert_eq!(check_enumeration("RESN", None, true, "CONFIDENTIAL, LOCKED"), Some(Ok(())));
/// assert_eq!(check_enumeration("ROLE", Some("EVEN"), false, "(Godfather)"), Some(Ok(())));
/// assert_eq!(check_enumeration("ROLE", Some("ASSO"), true, "_SPONSOR"), Some(Ok(())));
/// let e = check_enumeration("MEDI", Some("CALN"), false, "OTHER").unwrap().unwrap_err();
/// assert_eq!(e.kind(), EnumErrorKind::Version);
/// assert_eq!(check_enumeration("TYPE", Some("NAME"), false, "nickname"), None);
/// ```
pub fn check_enumeration(
    tag: &str,
    parent_tag: Option<&str>,
    gedcom7: bool,
    text: &str,
) -> Option<Result<(), EnumError>> {
    let set = set_of(tag, parent_tag, gedcom7)?;
    let (at, word) = trim_str(text);
    Some(match set {
        Set::Sex => Sex::check(word, at, gedcom7),
        Set::Pedigree => Pedigree::check(word, at, gedcom7),
        Set::Quality => Quality::check(word, at, gedcom7),
        Set::Restriction if gedcom7 => {
            list_items(text).try_for_each(|(at, item)| Restriction::check(item, at, gedcom7))
        }
        Set::Restriction => Restriction::check(word, at, gedcom7),
        Set::AdoptedBy => AdoptedBy::check(word, at, gedcom7),
        Set::NameType => NameType::check(word, at, gedcom7),
        Set::MediaType => MediaType::check(word, at, gedcom7),
        Set::Role if !gedcom7 && Role::descriptor(word).is_some() => Ok(()),
        Set::Role => Role::check(word, at, gedcom7),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(tag: &str, parent: Option<&str>, g7: bool, text: &str) -> Result<(), EnumErrorKind> {
        check_enumeration(tag, parent, g7, text)
            .expect("enumerated")
            .map_err(|e| e.kind())
    }

    #[test]
    fn respell_gives_each_versions_spelling_through_the_contexts() {
        assert_eq!(respell("SEX", None, true, "m"), Some(Some("M")));
        assert_eq!(respell("SEX", None, false, "X"), Some(None));
        assert_eq!(
            respell("PEDI", Some("FAMC"), true, "birth"),
            Some(Some("BIRTH"))
        );
        assert_eq!(
            respell("PEDI", Some("FAMC"), false, "BIRTH"),
            Some(Some("birth"))
        );
        assert_eq!(respell("PEDI", Some("FAMC"), true, "godly"), Some(None));
        assert_eq!(respell("PEDI", Some("INDI"), true, "birth"), None);
        assert_eq!(
            respell("TYPE", Some("NAME"), true, "aka"),
            Some(Some("AKA"))
        );
        assert_eq!(respell("NOTE", None, true, "x"), None);
    }

    #[test]
    fn every_value_parses_from_either_spelling_in_any_case() {
        fn all<T: Copy + PartialEq + fmt::Debug>(
            values: &[T],
            g7: fn(T) -> &'static str,
            g551: fn(T) -> Option<&'static str>,
            parse: fn(&str) -> Result<T, EnumError>,
        ) {
            for &v in values {
                assert_eq!(parse(g7(v)), Ok(v));
                assert_eq!(parse(&g7(v).to_ascii_lowercase()), Ok(v));
                assert_eq!(parse(&format!(" {}\t", g7(v))), Ok(v));
                if let Some(s) = g551(v) {
                    assert_eq!(parse(s), Ok(v));
                    assert!(s.eq_ignore_ascii_case(g7(v)));
                }
            }
        }
        all(Sex::ALL, Sex::as_str, Sex::gedcom551, Sex::parse);
        all(
            Pedigree::ALL,
            Pedigree::as_str,
            Pedigree::gedcom551,
            Pedigree::parse,
        );
        all(
            Quality::ALL,
            Quality::as_str,
            Quality::gedcom551,
            Quality::parse,
        );
        all(
            Restriction::ALL,
            Restriction::as_str,
            Restriction::gedcom551,
            Restriction::parse,
        );
        all(
            AdoptedBy::ALL,
            AdoptedBy::as_str,
            AdoptedBy::gedcom551,
            AdoptedBy::parse,
        );
        all(
            NameType::ALL,
            NameType::as_str,
            NameType::gedcom551,
            NameType::parse,
        );
        all(
            MediaType::ALL,
            MediaType::as_str,
            MediaType::gedcom551,
            MediaType::parse,
        );
        all(Role::ALL, Role::as_str, Role::gedcom551, Role::parse);
    }

    #[test]
    fn the_sets_have_the_values_of_each_version() {
        let count = |v: &[Option<&str>]| v.iter().filter(|s| s.is_some()).count();
        assert_eq!(Sex::ALL.len(), 4);
        assert_eq!(
            count(&Sex::ALL.iter().map(|s| s.gedcom551()).collect::<Vec<_>>()),
            3
        );
        assert_eq!((Pedigree::ALL.len(), NameType::ALL.len()), (5, 7));
        assert_eq!((MediaType::ALL.len(), Role::ALL.len()), (14, 15));
        let roles551: Vec<_> = Role::ALL.iter().filter_map(|r| r.gedcom551()).collect();
        assert_eq!(roles551, ["CHIL", "FATH", "HUSB", "MOTH", "SPOU", "WIFE"]);
        assert_eq!(Quality::Direct.number(), 3);
        assert_eq!(Quality::parse("2").unwrap(), Quality::Secondary);
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = Sex::parse("  Male").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (EnumErrorKind::Unknown, 2));
        assert_eq!(e.to_string(), "byte 2: expected `M`, `F`, `U` or `X`");
        assert_eq!(
            Quality::parse(" ").unwrap_err().kind(),
            EnumErrorKind::Empty
        );
        assert_eq!(
            Quality::parse("4").unwrap_err().expected(),
            "`0`, `1`, `2` or `3`"
        );
        assert_eq!("foster".parse::<Pedigree>(), Ok(Pedigree::Foster));
        assert_eq!(MediaType::Photo.to_string(), "PHOTO");
    }

    #[test]
    fn strict_checks_by_version() {
        use EnumErrorKind as K;
        assert_eq!(check("SEX", None, true, "M"), Ok(()));
        assert_eq!(check("SEX", None, true, "m"), Err(K::Case));
        assert_eq!(check("SEX", None, false, "m"), Ok(()));
        assert_eq!(check("SEX", None, false, "X"), Err(K::Version));
        assert_eq!(check("SEX", None, false, "_X"), Err(K::Unknown));
        assert_eq!(check("SEX", None, true, "_X"), Ok(()));
        assert_eq!(check("SEX", None, true, ""), Err(K::Empty));
        assert_eq!(check("QUAY", Some("SOUR"), true, "3"), Ok(()));
        assert_eq!(check("QUAY", Some("SOUR"), false, "4"), Err(K::Unknown));
        assert_eq!(check("PEDI", Some("FAMC"), false, "Sealing"), Ok(()));
        assert_eq!(check("PEDI", Some("FAMC"), false, "OTHER"), Err(K::Version));
        assert_eq!(check("ADOP", Some("FAMC"), true, "BOTH"), Ok(()));
        assert_eq!(check("TYPE", Some("NAME"), true, "PROFESSIONAL"), Ok(()));
        assert_eq!(check("TYPE", Some("NAME"), true, "maiden"), Err(K::Case));
        assert_eq!(check("MEDI", Some("FORM"), true, "OTHER"), Ok(()));
        assert_eq!(check("MEDI", Some("CALN"), false, "Photo"), Ok(()));
        assert_eq!(check("ROLE", Some("ASSO"), true, "GODP"), Ok(()));
        assert_eq!(check("ROLE", Some("EVEN"), false, "GODP"), Err(K::Version));
        assert_eq!(check("ROLE", Some("EVEN"), false, "( Witness )"), Ok(()));
        assert_eq!(
            check("ROLE", Some("EVEN"), true, "(Witness)"),
            Err(K::Unknown)
        );
        assert_eq!(check("RESN", None, false, "locked"), Ok(()));
        assert_eq!(
            check("RESN", None, false, "locked, privacy"),
            Err(K::Unknown)
        );
        assert_eq!(check("RESN", None, true, "LOCKED, PRIVACY"), Ok(()));
        assert_eq!(check("RESN", None, true, "LOCKED,"), Err(K::Empty));
        let e = check_enumeration("RESN", None, true, "LOCKED, privacy")
            .unwrap()
            .unwrap_err();
        assert_eq!((e.kind(), e.offset()), (K::Case, 8));
    }

    #[test]
    fn tags_without_an_enumeration_in_their_context() {
        for (tag, parent, g7) in [
            ("PEDI", None, true),
            ("QUAY", Some("INDI"), true),
            ("ADOP", Some("INDI"), false),
            ("ADOP", None, true),
            ("TYPE", Some("NAME"), false),
            ("TYPE", Some("EVEN"), true),
            ("MEDI", Some("OBJE"), true),
            ("ROLE", Some("INDI"), true),
            ("NAME", Some("INDI"), true),
        ] {
            assert_eq!(
                check_enumeration(tag, parent, g7, "x"),
                None,
                "{tag} {parent:?}"
            );
        }
    }

    #[test]
    fn role_descriptors() {
        assert_eq!(Role::descriptor("()"), Some(""));
        assert_eq!(Role::descriptor("(a) (b)"), Some("a) (b"));
        assert_eq!(Role::descriptor("(open"), None);
        assert_eq!(Role::descriptor(""), None);
    }
}
