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

/// A tag as one number, to look it up in a table of tags by comparing
/// numbers: its bytes (little-endian) and, in the top byte, its length; a
/// tag of more than seven bytes (longer than any table's) is `u64::MAX`.
pub(crate) const fn tag_key(tag: &[u8]) -> u64 {
    if tag.len() > 7 {
        return u64::MAX;
    }
    let mut key = (tag.len() as u64) << 56;
    let mut i = 0;
    while i < tag.len() {
        key |= (tag[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// The [`tag_key`]s of a table's tags, in its order.
pub(crate) const fn tag_keys<T, const N: usize>(table: &[(&str, T); N]) -> [u64; N] {
    let mut keys = [0; N];
    let mut i = 0;
    while i < N {
        keys[i] = tag_key(table[i].0.as_bytes());
        i += 1;
    }
    keys
}

/// Where `tag` is in a table whose [`tag_keys`] are `keys`.
pub(crate) fn tag_row(keys: &[u64], tag: &str) -> Option<usize> {
    let key = tag_key(tag.as_bytes());
    keys.iter().position(|&k| k == key)
}

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

/// [`xref_id`] of an xref's raw bytes: borrowed when the id is the xref's
/// own text (letters, digits, `_` and `-` between its `@` signs: most).
pub(crate) fn xref_id_of(xref: std::borrow::Cow<'_, [u8]>) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if let Cow::Borrowed(bytes) = xref {
        let inner = bytes.strip_prefix(b"@").unwrap_or(bytes);
        let inner = inner.strip_suffix(b"@").unwrap_or(inner);
        let plain = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-';
        if inner.iter().all(plain) {
            if let Ok(id) = std::str::from_utf8(inner) {
                return Cow::Borrowed(id);
            }
        }
    }
    Cow::Owned(xref_id(&String::from_utf8_lossy(&xref)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_s_row_is_found_by_its_key_and_only_its_own() {
        const TABLE: [(&str, u8); 4] = [("BIRT", 0), ("CHR", 1), ("SSN", 2), ("_MILT", 3)];
        const KEYS: [u64; 4] = tag_keys(&TABLE);
        for (i, (tag, _)) in TABLE.iter().enumerate() {
            assert_eq!(tag_row(&KEYS, tag), Some(i));
        }
        // Prefixes, extensions, a NUL the zero padding could hide, case,
        // the long and the empty.
        for tag in [
            "BIR",
            "BIRTH",
            "CHR\0",
            "birt",
            "",
            "_MILTARY",
            "ABCDEFGHIJ",
        ] {
            assert_eq!(tag_row(&KEYS, tag), None, "{tag:?}");
        }
        assert_eq!(tag_key(b"ABCDEFGH"), u64::MAX);
    }
    use std::borrow::Cow;

    #[test]
    fn an_xref_s_id_is_borrowed_when_it_is_the_xref_s_own_text() {
        for xref in [
            "@I1@", "@a_b-C9@", "@I 1@", "@F.1@", "@é@", "@@", "I1", "@~1@",
        ] {
            let borrowed = xref_id_of(Cow::Borrowed(xref.as_bytes()));
            assert_eq!(borrowed, xref_id(xref), "{xref}");
            let plain = xref.trim_matches('@');
            let own_text = plain
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b));
            assert_eq!(matches!(borrowed, Cow::Borrowed(_)), own_text, "{xref}");
            let owned = xref_id_of(Cow::Owned(xref.as_bytes().to_vec()));
            assert_eq!(owned, xref_id(xref), "{xref}");
        }
        // Bytes that are not UTF-8 are read as the lossy text.
        let bad = xref_id_of(Cow::Borrowed(b"@I\xff@"));
        assert_eq!(bad, xref_id("@I\u{fffd}@"));
    }
}
