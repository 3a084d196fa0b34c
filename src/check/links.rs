//! `link.*`: pointers and the records they name, judged once every record
//! has been seen.

use super::Rule;

rules! {
    /// `link.missing-target`.
    MISSING_TARGET = "link.missing-target", Error, "a pointer to an xref_id that no record has";
    /// `link.wrong-type`.
    WRONG_TYPE = "link.wrong-type", Error,
        "a pointer to a record of a type the structure may not point to (FAMC to an INDI, ...)";
    /// `link.one-sided`.
    ONE_SIDED = "link.one-sided", Warning,
        "a family link without its counterpart (FAMS and the family's HUSB/WIFE, FAMC and its CHIL)";
    /// `link.duplicate-xref`.
    DUPLICATE_XREF = "link.duplicate-xref", Error, "an xref_id that more than one record has";
}

/// What a pointer says about the family links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Any other pointer.
    Other,
    /// `INDI.FAMS`: the individual is a spouse in the family.
    Spouse,
    /// `INDI.FAMC`: the individual is a child of the family; `true` when
    /// its `PEDI` says adopted or foster.
    Child(bool),
    /// `FAM.HUSB`.
    Husband,
    /// `FAM.WIFE`.
    Wife,
    /// `FAM.CHIL`.
    HasChild,
}

impl Role {
    /// The role of a pointer structure tagged `tag` at level 1 of a record
    /// tagged `record` (a `FAMC`'s as not adopted: its `PEDI` may say
    /// otherwise).
    pub(crate) fn of(record: &str, tag: &str) -> Role {
        match (record, tag) {
            ("INDI", "FAMS") => Role::Spouse,
            ("INDI", "FAMC") => Role::Child(false),
            ("FAM", "HUSB") => Role::Husband,
            ("FAM", "WIFE") => Role::Wife,
            ("FAM", "CHIL") => Role::HasChild,
            _ => Role::Other,
        }
    }
}
