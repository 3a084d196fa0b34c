//! `gedcom_elf::value::name` against the specifications' examples,
//! generated round trips and every `NAME` payload of `../shared/corpus`.

mod value_support;

use std::borrow::Cow;

use gedcom_elf::value::{Name, NameErrorKind as K};
use value_support::Rng;

/// Parses `input` and checks its pieces.
fn pieces(input: &str, given: &str, surname: Option<&str>, suffix: &str) {
    let n = Name::parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
    assert_eq!(
        (n.given.as_ref(), n.surname.as_deref(), n.suffix.as_ref()),
        (given, surname, suffix),
        "{input:?}"
    );
    assert_eq!(Name::parse(&n.to_string()), Ok(n), "{input:?}");
}

/// Every `NAME` payload written in the GEDCOM 7 specification and the ELF
/// data model (none of them breaks a rule).
#[test]
fn the_examples_of_the_specifications() {
    pieces("John /Doe/", "John", Some("Doe"), "");
    pieces(
        "Lt. Cmndr. Joseph /Allen/ jr.",
        "Lt. Cmndr. Joseph",
        Some("Allen"),
        "jr.",
    );
    pieces(
        "Juan /Hernandez Martinez/",
        "Juan",
        Some("Hernandez Martinez"),
        "",
    );
    pieces(
        "Velislava Velcheva /Marinova/",
        "Velislava Velcheva",
        Some("Marinova"),
        "",
    );
    // No surname known: the two slashes side by side (ELF's advice).
    pieces("Mary //", "Mary", Some(""), "");
    pieces("Gordon //", "Gordon", Some(""), "");
    // A name with no slash at all: GEDCOM 7's first alternative.
    pieces("Mark Twain", "Mark Twain", None, "");
    // Surname first, as the culture writes it.
    pieces("/橘/ 逸勢", "", Some("橘"), "逸勢");
    // ELF's elision of a known but unread part.
    pieces("... /Smith/", "...", Some("Smith"), "");
}

#[test]
fn the_rules_gedcom7_and_elf_add() {
    // GEDCOM 7: at most one surname, so at most two slashes.
    let e = Name::parse("/孔/德庸/").unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::ExtraSlash, 11));
    // The lenient reading keeps the rest in the suffix.
    let (n, _) = Name::parse_lenient("/孔/德庸/");
    assert_eq!(
        (n.surname.as_deref(), n.suffix.as_ref()),
        (Some("孔"), "德庸/")
    );
    // ELF: exactly two slashes; one is an unclosed surname.
    let e = Name::parse("William /Shakespeare").unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::Unclosed, 8));
    assert_eq!(
        e.to_string(),
        "byte 8: expected a second `/` closing the surname"
    );
    // A line string: no line break.
    assert_eq!(Name::parse("A\r\n/B/").unwrap_err().kind(), K::LineBreak);
    // What ELF only advises against is not an error: commas and digits.
    assert!(Name::parse("John /Smith/, 3rd").is_ok());
}

#[test]
fn parsed_pieces_borrow_and_owned_pieces_compare_equal() {
    let text = String::from("Ada /Lovelace/");
    let n = Name::parse(&text).unwrap();
    assert!(matches!(n.surname, Some(Cow::Borrowed(_))));
    let owned = n.clone().into_owned();
    drop(text);
    assert_eq!(owned.full(), "Ada Lovelace");
}

/// Generated names of random pieces (with spaces, slashes and elisions)
/// print to text that reads back the same, strictly when the name was well
/// formed and leniently otherwise.
#[test]
fn generated_round_trips() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let words = [
        "", " ", "Ada", "de la", "Mc Kay", "...", "é", "/", "x/y", "  Jr. ", "\t",
    ];
    for _ in 0..20_000 {
        let n = rng.below(4);
        let text: String = (0..=n)
            .map(|i| {
                let w = *rng.pick(&words);
                if i < n && rng.below(2) == 0 {
                    format!("{w}/")
                } else {
                    w.to_string()
                }
            })
            .collect();
        let (name, err) = Name::parse_lenient(&text);
        let printed = name.to_string();
        let (again, _) = Name::parse_lenient(&printed);
        assert_eq!(again, name, "{text:?} -> {printed:?}");
        assert_eq!(err.is_none(), Name::parse(&text).is_ok());
        if let Some(e) = err {
            assert!(e.offset() < text.len(), "{text:?}");
        } else {
            assert_eq!(Name::parse(&printed), Ok(name), "{text:?}");
        }
    }
}

#[test]
fn every_name_payload_of_the_shared_corpus() {
    let Some(found) = value_support::corpus_payloads(&["NAME"]) else {
        return;
    };
    let (mut total, mut surnames, mut bad) = (0, 0, Vec::new());
    for f in &found {
        total += 1;
        let (name, err) = Name::parse_lenient(&f.text);
        surnames += usize::from(name.surname.is_some());
        assert_eq!(Name::parse_lenient(&name.to_string()).0, name, "{f:?}");
        if let Some(e) = err {
            bad.push(format!("{}:{}: {:?}: {e}", f.file, f.line, f.text));
        }
    }
    eprintln!(
        "corpus: {total} NAME payloads, {surnames} with a surname, {} errors",
        bad.len()
    );
    for b in &bad {
        eprintln!("    {b}");
    }
    // When written: 4,375 payloads (the UTF-16 copies of willis included),
    // 4,332 with a surname, every one of them well formed.
    assert!(total >= 4_000, "{total}");
    assert!(surnames * 10 >= total * 9, "{surnames} of {total}");
    assert!(bad.is_empty(), "{bad:#?}");
}
