//! Structure type identifiers (seed §7): the IRIs the ELF data model names,
//! and [`StructureType`], what a schema gives a structure. Used by the
//! schema and by type resolution; depends on neither.

use std::borrow::Cow;
use std::fmt;

/// The `elf:` namespace: `https://terms.fhiso.org/elf/`.
pub const ELF_NS: &str = "https://terms.fhiso.org/elf/";
/// The `g7:` namespace of GEDCOM 7's structure types:
/// `https://gedcom.io/terms/v7/`.
pub const G7_NS: &str = "https://gedcom.io/terms/v7/";
/// `elf:Document`, the superstructure type of records.
pub const DOCUMENT: &str = "https://terms.fhiso.org/elf/Document";
/// `elf:Metadata`, the superstructure type of the HEAD's substructures.
pub const METADATA: &str = "https://terms.fhiso.org/elf/Metadata";
/// `elf:Undefined`, the type of `UNDEF` structures.
pub const UNDEFINED: &str = "https://terms.fhiso.org/elf/Undefined";
/// The start of undefined tag identifiers: `elf:Undefined#` + tag.
pub const UNDEFINED_TAG_BASE: &str = "https://terms.fhiso.org/elf/Undefined#";
/// A structure type identifier: an expanded IRI such as
/// `https://terms.fhiso.org/elf/BIRTH`, `elf:Undefined`, or an undefined tag
/// identifier `elf:Undefined#TAG`.
///
/// Stored as two borrowed parts (a base IRI from the schema and, for
/// undefined tags and older-draft namespaces, the tail of the tag) so that
/// no type ever needs an allocation; [`fmt::Display`] writes the whole IRI
/// and [`StructureType::iri`] joins it.
#[derive(Clone, Copy, Debug)]
pub struct StructureType<'t> {
    base: &'t str,
    suffix: &'t str,
}

impl<'t> StructureType<'t> {
    pub(crate) fn new(base: &'t str, suffix: &'t str) -> Self {
        StructureType { base, suffix }
    }

    /// The expanded IRI (borrowed unless it has a tag part).
    pub fn iri(&self) -> Cow<'t, str> {
        if self.suffix.is_empty() {
            Cow::Borrowed(self.base)
        } else {
            Cow::Owned(format!("{}{}", self.base, self.suffix))
        }
    }

    /// The IRI as a base from the schema and the tail of the tag that
    /// follows it (empty for most types).
    pub fn parts(&self) -> (&'t str, &'t str) {
        (self.base, self.suffix)
    }

    /// `true` for `elf:Undefined` and the undefined tag identifiers
    /// `elf:Undefined#TAG`.
    pub fn is_undefined(&self) -> bool {
        (self.base == UNDEFINED && self.suffix.is_empty()) || self.base == UNDEFINED_TAG_BASE
    }

    fn bytes(&self) -> impl Iterator<Item = u8> + 't {
        self.base.bytes().chain(self.suffix.bytes())
    }

    fn len(&self) -> usize {
        self.base.len() + self.suffix.len()
    }
}

impl PartialEq for StructureType<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.bytes().eq(other.bytes())
    }
}

impl Eq for StructureType<'_> {}

impl PartialEq<str> for StructureType<'_> {
    fn eq(&self, other: &str) -> bool {
        self.len() == other.len() && self.bytes().eq(other.bytes())
    }
}

impl PartialEq<&str> for StructureType<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl fmt::Display for StructureType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base)?;
        f.write_str(self.suffix)
    }
}
