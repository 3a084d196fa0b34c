//! Languages: ELF's table of the GEDCOM 5.5.1 language names (`LANG`
//! payloads such as `English`, `Anglo-Saxon`) and their BCP 47 tags, the
//! one home of that table for the GEDCOM 7 conversion and the GEDCOM X
//! export and import.
//!
//! ```
//! use gedcom_elf::value::{language_name, language_tag};
//!
//! assert_eq!(language_tag("english"), Some("en"));
//! assert_eq!(language_tag("Cantonese"), Some("yue"));
//! assert_eq!(language_name("EN"), Some("English"));
//! assert_eq!(language_tag("Klingon"), None);
//! ```

/// One `name<TAB>tag` a line (`src/tables/languages.tsv`).
const LANGUAGES: &str = include_str!("../tables/languages.tsv");

/// The table's names and tags, in its order. ELF's table marks six tags
/// with a `*` (`Cantonese yue*`, `Catalan_Spn ca-ES*`, ...), a note of the
/// table's and no part of the tag: BCP 47 has no `*`, and GEDCOM 7's
/// `lang.ged` sample gives those names `yue`, `ca-ES`, `cmn`, `no`, `him`
/// and `sh`.
pub fn languages() -> impl Iterator<Item = (&'static str, &'static str)> {
    LANGUAGES
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, t)| (n.trim(), t.trim().trim_end_matches('*')))
}

/// The BCP 47 tag of a 5.5.1 language name (any ASCII case, white space
/// around it ignored), if the table has the name.
pub fn language_tag(name: &str) -> Option<&'static str> {
    let name = name.trim();
    languages()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, t)| t)
}

/// The 5.5.1 language name of a BCP 47 tag (any ASCII case): the table's
/// first name for it.
pub fn language_name(tag: &str) -> Option<&'static str> {
    let tag = tag.trim();
    languages()
        .find(|(_, t)| t.eq_ignore_ascii_case(tag))
        .map(|(n, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_tag_keeps_the_table_s_star_and_every_tag_has_its_name() {
        assert_eq!(languages().count(), 86);
        for (name, tag) in languages() {
            // BCP 47's characters only.
            assert!(
                !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
                "{name}: {tag}"
            );
            assert_eq!(language_tag(name), Some(tag));
            // The first name of the tag, which may be another one's.
            let first = language_name(tag).unwrap();
            assert_eq!(language_tag(first), Some(tag));
        }
        assert_eq!(language_tag(" catalan_spn "), Some("ca-ES"));
    }
}
