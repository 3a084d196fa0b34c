//! The rules the mapping and its [`Index`](super::Index) share, lowest
//! in the module so both may use them: how an xref becomes an id, the
//! citation elements' table, what a `PEDI` value becomes.

use crate::value::Pedigree;

/// The row of [`CITATION_ELEMENTS`] naming the repository's name: its
/// path goes through the `REPO` pointer to that record's `NAME`.
pub const THROUGH_REPOSITORY: &str = "REPO>NAME";

/// The citation elements of a source, in GEDCOM order (the 5.5.1 source
/// record, then the citation's own): the path of the structure under the
/// `SOUR` record or citation, and the element's name (an IRI). FHISO's own
/// elements (in [`CEV`](super::CEV)) where its vocabulary names one; the ELF
/// structure type IRI (in [`ELF`](super::ELF)) otherwise.
///
/// `REPO>NAME` is the `NAME` of the repository record the `REPO` pointer
/// points to (through the [`Index`](super::Index)).
pub const CITATION_ELEMENTS: [(&str, &str); 8] = [
    ("AUTH", cev!("authorName")),
    ("TITL", cev!("title")),
    ("ABBR", cev!("shortTitle")),
    ("PUBL", elf!("SOURCE_PUBLICATION_FACTS")),
    ("REPO.CALN", elf!("SOURCE_CALL_NUMBER")),
    (THROUGH_REPOSITORY, elf!("NAME_OF_REPOSITORY")),
    ("PAGE", elf!("WHERE_WITHIN_SOURCE")),
    ("DATA.DATE", elf!("ENTRY_RECORDING_DATE")),
];

/// An xref (`@I1@`) as a GEDCOM X id: without its `@` signs, every byte
/// other than ASCII letters, digits, `_` and `-` written `~XX` (hex), so
/// ids made by joining record ids with `.` never equal a record's id.
pub fn xref_id(xref: &str) -> String {
    let inner = xref.strip_prefix('@').unwrap_or(xref);
    let inner = inner.strip_suffix('@').unwrap_or(inner);
    let mut id = String::with_capacity(inner.len());
    for b in inner.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            id.push(char::from(b));
        } else {
            id.push_str(&format!("~{b:02X}"));
        }
    }
    id
}

/// A local reference to the item `id` (`#id`).
pub(crate) fn local(id: &str) -> String {
    ["#", id].concat()
}

/// The GEDCOM X fact type (its URI) of a `PEDI` value on a parent-child
/// relationship.
pub fn pedigree_fact(pedigree: Pedigree) -> Option<&'static str> {
    match pedigree {
        Pedigree::Birth => Some(gx!("BiologicalParent")),
        Pedigree::Adopted => Some(gx!("AdoptiveParent")),
        Pedigree::Foster => Some(gx!("FosterParent")),
        Pedigree::Sealing | Pedigree::Other => None,
    }
}

/// A payload's text as a value, if it has some that is not white space:
/// the one rule for what the mapping and the index take as a value.
pub(crate) fn value_text(text: Option<std::borrow::Cow<'_, str>>) -> Option<String> {
    value_cow(text).map(std::borrow::Cow::into_owned)
}

/// [`value_text`], borrowed when the payload is.
pub(crate) fn value_cow(
    text: Option<std::borrow::Cow<'_, str>>,
) -> Option<std::borrow::Cow<'_, str>> {
    text.filter(|t| !t.trim().is_empty())
}
