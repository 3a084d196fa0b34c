//! Typed payloads of tree nodes: [`NodeRef::date`], [`NodeRef::name`],
//! [`NodeRef::place`], [`NodeRef::coordinates`], [`NodeRef::sex`] and the
//! others read a node's payload with the parsers of [`crate::value`].
//!
//! Each reads the node's own payload, whatever its tag (ask the `DATE` node
//! for its date, not the event), and gives `None` when the node has no
//! string payload. A payload on one line with no escapes to decode is a
//! slice of the input, and the value borrows from it for the tree's
//! lifetime; any other payload is decoded into a string that the value then
//! owns (`into_owned`), so the result has the same type either way.
//!
//! The README's example:
//!
//! ```
//! use gedcom_elf::tree::Tree;
//! use gedcom_elf::value::{check_enumeration, Pedigree, Sex};
//!
//! let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n\
//!     1 NAME Jean /de La Fontaine/\n1 SEX m\n1 BIRT\n\
//!     2 PLAC Ch\xc3\xa2teau-Thierry, Aisne, , France\n3 MAP\n4 LATI N49.0464\n4 LONG E3.4031\n\
//!     1 FAMC @F1@\n2 PEDI birth\n0 TRLR\n")?;
//! let jean = tree.find("@I1@").unwrap();
//! let name = jean.child("NAME").unwrap().name().unwrap()?;
//! assert_eq!((name.given.as_ref(), name.surname.as_deref()), ("Jean", Some("de La Fontaine")));
//! assert_eq!(jean.child("SEX").unwrap().sex(), Some(Ok(Sex::Male)));
//! let plac = jean.first("BIRT.PLAC").unwrap();
//! let place = plac.place().unwrap();
//! assert_eq!(place.jurisdictions().collect::<Vec<_>>(), ["Château-Thierry", "Aisne", "", "France"]);
//! let map = plac.coordinates().unwrap()?;
//! assert_eq!((map.latitude, map.longitude), (49.0464, 3.4031));
//! let pedi = jean.first("FAMC.PEDI").unwrap();
//! assert_eq!(pedi.pedigree(), Some(Ok(Pedigree::Birth)));
//! // Read leniently, but as GEDCOM 7 it should have been BIRTH.
//! let strict = check_enumeration("PEDI", Some("FAMC"), true, "birth").unwrap();
//! assert_eq!(strict.unwrap_err().to_string(), "byte 0: expected `ADOPTED`, `BIRTH`, `FOSTER`, `SEALING` or `OTHER`");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;

use super::NodeRef;
use crate::value::{
    AdoptedBy, Age, AgeError, Axis, CoordinateError, Coordinates, Date, DateError, EnumError,
    MediaType, Name, NameError, NamePieces, NameType, Pedigree, Place, Quality, Restriction, Role,
    Sex,
};

impl<'t> NodeRef<'t> {
    /// The payload parsed by `parse`, which needs the text only while it
    /// runs.
    fn parsed<T, E>(&self, parse: fn(&str) -> Result<T, E>) -> Option<Result<T, E>> {
        self.text().map(|t| parse(&t))
    }

    /// The payload as a `DATE` (see [`Date::parse`]): borrowed from the
    /// input when the payload is. `None` with no string payload.
    ///
    /// ```
    /// use gedcom_elf::tree::Tree;
    /// use gedcom_elf::value::Date;
    ///
    /// let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 DATE ABT 1815\n0 TRLR\n")?;
    /// let date = tree.path("INDI.BIRT.DATE").next().unwrap().date().unwrap().unwrap();
    /// assert!(matches!(date, Date::Approximate(..)));
    /// assert_eq!(date.to_string(), "ABT 1815");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn date(&self) -> Option<Result<Date<'t>, DateError>> {
        Some(match self.text()? {
            Cow::Borrowed(t) => Date::parse(t),
            Cow::Owned(t) => Date::parse(&t).map(Date::into_owned),
        })
    }

    /// The payload as an `AGE` (see [`Age::parse`]).
    ///
    /// ```
    /// use gedcom_elf::tree::Tree;
    ///
    /// let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 DEAT\n2 AGE 42y 6m\n0 TRLR\n")?;
    /// let age = tree.path("INDI.DEAT.AGE").next().unwrap().age().unwrap()?;
    /// assert_eq!(age.days_range(), Some((15_498, Some(15_588))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn age(&self) -> Option<Result<Age, AgeError>> {
        self.parsed(Age::parse)
    }

    /// The payload as a personal name (see [`Name::parse`]; for what parses
    /// of a name that is not well formed, use [`Name::parse_lenient`] on
    /// [`NodeRef::text`]). Borrowed from the input when the payload is.
    ///
    /// ```
    /// use gedcom_elf::tree::Tree;
    ///
    /// let tree = Tree::from_slice(
    ///     b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n2 GIVN Augusta Ada\n2 SURN Lovelace\n0 TRLR\n",
    /// )?;
    /// let name_node = tree.find("@I1@").unwrap().child("NAME").unwrap();
    /// let name = name_node.name().unwrap()?;
    /// assert_eq!((name.given.as_ref(), name.surname.as_deref()), ("Ada", Some("Lovelace")));
    /// assert_eq!(name_node.name_pieces().given, ["Augusta Ada"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> Option<Result<Name<'t>, NameError>> {
        Some(match self.text()? {
            Cow::Borrowed(t) => Name::parse(t),
            Cow::Owned(t) => Name::parse(&t).map(Name::into_owned),
        })
    }

    /// The name pieces of this node's substructures (`NPFX`, `GIVN`,
    /// `NICK`, `SPFX`, `SURN`, `NSFX`), for a `NAME` node or one of its
    /// variants; empty when there are none.
    pub fn name_pieces(&self) -> NamePieces<'t> {
        let mut pieces = NamePieces::default();
        for child in self.children() {
            let tag = child.tag();
            if NamePieces::TAGS.contains(&tag) {
                pieces.push(tag, child.text().unwrap_or_default());
            }
        }
        pieces
    }

    /// The payload as a place: its jurisdictions (see [`Place`]). Borrowed
    /// from the input when the payload is.
    ///
    /// ```
    /// use gedcom_elf::tree::Tree;
    ///
    /// let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 PLAC Marylebone, London, England\n0 TRLR\n")?;
    /// let place = tree.path("INDI.BIRT.PLAC").next().unwrap().place().unwrap();
    /// assert_eq!(place.jurisdictions().collect::<Vec<_>>(), ["Marylebone", "London", "England"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn place(&self) -> Option<Place<'t>> {
        self.text().map(Place::from_text)
    }

    /// The coordinates of a place: the `LATI` and `LONG` of the `MAP` of
    /// this `PLAC` node (or of this node, when it is the `MAP`). `None` when
    /// there is no `MAP`, or it has neither; an error of kind
    /// [`Missing`](crate::value::CoordinateErrorKind::Missing) when it has
    /// one and not the other.
    ///
    /// ```
    /// use gedcom_elf::tree::Tree;
    ///
    /// let tree = Tree::from_slice(
    ///     b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 PLAC Gibraltar\n3 MAP\n4 LATI N36.1408\n4 LONG W5.3536\n0 TRLR\n",
    /// )?;
    /// let plac = tree.path("INDI.BIRT.PLAC").next().unwrap();
    /// let c = plac.coordinates().unwrap()?;
    /// assert_eq!((c.latitude, c.longitude), (36.1408, -5.3536));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn coordinates(&self) -> Option<Result<Coordinates, CoordinateError>> {
        let map = if self.tag() == "MAP" {
            *self
        } else {
            self.child("MAP")?
        };
        let (lati, long) = (map.child("LATI"), map.child("LONG"));
        if lati.is_none() && long.is_none() {
            return None;
        }
        let read = |node: Option<NodeRef<'t>>, axis: Axis| {
            let text = node.ok_or(CoordinateError::missing(axis))?.text();
            crate::value::coordinate(axis, text.as_deref().unwrap_or(""))
        };
        Some(read(lati, Axis::Latitude).and_then(|latitude| {
            Ok(Coordinates {
                latitude,
                longitude: read(long, Axis::Longitude)?,
            })
        }))
    }

    /// The payload as a `SEX` (see [`Sex::parse`]: any case).
    ///
    /// ```
    /// use gedcom_elf::tree::Tree;
    /// use gedcom_elf::value::Sex;
    ///
    /// let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 SEX f\n0 TRLR\n")?;
    /// let sex = tree.find("@I1@").unwrap().child("SEX").unwrap().sex();
    /// assert_eq!(sex, Some(Ok(Sex::Female)));
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    pub fn sex(&self) -> Option<Result<Sex, EnumError>> {
        self.parsed(Sex::parse)
    }

    /// The payload as a `PEDI` (see [`Pedigree::parse`]).
    pub fn pedigree(&self) -> Option<Result<Pedigree, EnumError>> {
        self.parsed(Pedigree::parse)
    }

    /// The payload as a `QUAY` (see [`Quality::parse`]).
    pub fn quality(&self) -> Option<Result<Quality, EnumError>> {
        self.parsed(Quality::parse)
    }

    /// The payload as a `RESN`: a list of restrictions (see
    /// [`Restriction::parse_list`]).
    pub fn restrictions(&self) -> Option<Result<Vec<Restriction>, EnumError>> {
        self.parsed(Restriction::parse_list)
    }

    /// The payload as the `ADOP` of an adoption's `FAMC` (see
    /// [`AdoptedBy::parse`]).
    pub fn adopted_by(&self) -> Option<Result<AdoptedBy, EnumError>> {
        self.parsed(AdoptedBy::parse)
    }

    /// The payload as the `TYPE` of a `NAME` (see [`NameType::parse`]).
    pub fn name_type(&self) -> Option<Result<NameType, EnumError>> {
        self.parsed(NameType::parse)
    }

    /// The payload as a `MEDI` (see [`MediaType::parse`]).
    pub fn media_type(&self) -> Option<Result<MediaType, EnumError>> {
        self.parsed(MediaType::parse)
    }

    /// The payload as a `ROLE` (see [`Role::parse`]; a 5.5.1 description in
    /// parentheses is an error here: read it with [`Role::descriptor`]).
    pub fn role(&self) -> Option<Result<Role, EnumError>> {
        self.parsed(Role::parse)
    }
}

#[cfg(test)]
mod tests {
    use crate::tree::Tree;
    use crate::value::{CoordinateErrorKind, Date};
    use std::borrow::Cow;

    #[test]
    fn borrowed_and_owned_payloads() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 NAME Ada\n2 CONC  /Byron/\n\
            1 BIRT\n2 DATE 10 DEC 1815\n2 PLAC London\n3 CONC , England\n0 TRLR\n";
        let tree = Tree::from_slice(input).unwrap();
        let indi = tree.find("@I1@").unwrap();
        let names: Vec<_> = indi
            .children_with_tag("NAME")
            .map(|n| n.name().unwrap().unwrap())
            .collect();
        assert!(matches!(names[0].given, Cow::Borrowed(_)));
        assert_eq!(names[1].surname.as_deref(), Some("Byron"));
        let place = indi.first("BIRT.PLAC").unwrap().place().unwrap();
        assert_eq!(
            place.jurisdictions().collect::<Vec<_>>(),
            ["London", "England"]
        );
        let date = indi.first("BIRT.DATE").unwrap().date().unwrap().unwrap();
        assert_eq!(date, Date::parse("10 DEC 1815").unwrap());
        assert_eq!(indi.date(), None);
    }

    #[test]
    fn coordinates_need_both() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 PLAC A\n3 MAP\n4 LATI N1\n\
            1 DEAT\n2 PLAC B\n1 BURI\n2 PLAC C\n3 MAP\n4 LATI N1\n4 LONG X\n0 TRLR\n";
        let tree = Tree::from_slice(input).unwrap();
        let indi = tree.find("@I1@").unwrap();
        let e = indi.first("BIRT.PLAC").unwrap().coordinates().unwrap();
        assert_eq!(e.unwrap_err().kind(), CoordinateErrorKind::Missing);
        assert!(indi.first("DEAT.PLAC").unwrap().coordinates().is_none());
        let map = indi.first("BURI.PLAC.MAP").unwrap();
        assert_eq!(
            map.coordinates().unwrap().unwrap_err().kind(),
            CoordinateErrorKind::Hemisphere
        );
    }
}
