//! Personal names: the `NAME` payload of GEDCOM 5.5.1 (ELF's personal name
//! format) and GEDCOM 7 (`PersonalName`), `Given /Surname/ Suffix`, in one
//! typed [`Name`] that borrows its pieces from the payload; and
//! [`NamePieces`], the name's `NPFX`, `GIVN`, `NICK`, `SPFX`, `SURN` and
//! `NSFX` substructures.
//!
//! The payload is free text in which two slashes mark off the surname (or
//! family name): the text before the first slash is the given part, the
//! text between the slashes the surname, the text after the second slash
//! the suffix. Each piece is read without the white space around it (the
//! space that separates it from the slashes), and otherwise as written. A
//! name with no slash has no surname; `//` is an empty surname, which ELF
//! writes when none is known.
//!
//! GEDCOM 7 allows one surname, that is two slashes or none, and ELF says a
//! name should have exactly two. What does not fit is a [`NameError`] (its
//! [`NameErrorKind`], the byte offset and what was expected there), and
//! [`Name::parse_lenient`] gives what parses along with it: with more than
//! two slashes the suffix keeps the rest of the text, slashes and all; with
//! one slash the surname runs to the end of the payload. A line break is an
//! error too, as a name is a line string (the name is kept).
//!
//! ```
//! use gedcom_elf::value::{Name, NameErrorKind};
//!
//! let name = Name::parse("John Paul /Smith/ Jr.")?;
//! assert_eq!(name.given, "John Paul");
//! assert_eq!(name.surname.as_deref(), Some("Smith"));
//! assert_eq!(name.suffix, "Jr.");
//!
//! let err = Name::parse("Anne /Boleyn").unwrap_err();
//! assert_eq!((err.kind(), err.offset()), (NameErrorKind::Unclosed, 5));
//! assert_eq!(err.to_string(), "byte 5: expected a second `/` closing the surname");
//! let (kept, _) = Name::parse_lenient("Anne /Boleyn");
//! assert_eq!(kept.to_string(), "Anne /Boleyn/");
//! # Ok::<(), gedcom_elf::value::NameError>(())
//! ```

use std::borrow::Cow;
use std::fmt;

use super::parse::trim_str;

/// A personal name: `Given /Surname/ Suffix`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Name<'a> {
    /// The text before the first slash (all of it when there is none),
    /// without the white space around it; may be empty.
    pub given: Cow<'a, str>,
    /// The text between the slashes, without the white space around it;
    /// `None` when the payload has no slash, `Some("")` for `//`.
    pub surname: Option<Cow<'a, str>>,
    /// The text after the second slash, without the white space around it;
    /// may be empty.
    pub suffix: Cow<'a, str>,
}

/// What kind of problem a [`NameError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameErrorKind {
    /// A third slash: GEDCOM 7 allows one surname.
    ExtraSlash,
    /// One slash with none to close the surname.
    Unclosed,
    /// A line break (CR or LF): a name is one line.
    LineBreak,
}

/// Why a payload is not a well-formed personal name: the kind, the byte
/// offset in the payload and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError {
    kind: NameErrorKind,
    offset: usize,
}

impl NameError {
    /// The kind of problem.
    pub fn kind(&self) -> NameErrorKind {
        self.kind
    }

    /// The byte offset in the payload: of the third slash, of the slash left
    /// unclosed, or of the line break.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What was expected, as a message.
    pub fn expected(&self) -> &'static str {
        match self.kind {
            NameErrorKind::ExtraSlash => "no more than two `/` (one surname)",
            NameErrorKind::Unclosed => "a second `/` closing the surname",
            NameErrorKind::LineBreak => "a name on one line",
        }
    }
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: expected {}", self.offset, self.expected())
    }
}

impl std::error::Error for NameError {}

/// `text` without the white space around it.
fn trim(text: &str) -> &str {
    trim_str(text).1
}

impl<'a> Name<'a> {
    /// Parses a `NAME` payload (see the [module docs](self)).
    ///
    /// ```
    /// use gedcom_elf::value::Name;
    ///
    /// let n = Name::parse("/Lovelace/")?;
    /// assert_eq!((n.given.as_ref(), n.surname.as_deref()), ("", Some("Lovelace")));
    /// assert_eq!(Name::parse("Cher")?.surname, None);
    /// assert_eq!(Name::parse("Ada //")?.surname.as_deref(), Some(""));
    /// # Ok::<(), gedcom_elf::value::NameError>(())
    /// ```
    ///
    /// # Errors
    /// A [`NameError`] for more than two slashes, one slash, or a line
    /// break; [`Name::parse_lenient`] keeps what parses.
    pub fn parse(payload: &'a str) -> Result<Name<'a>, NameError> {
        match Name::parse_lenient(payload) {
            (name, None) => Ok(name),
            (_, Some(e)) => Err(e),
        }
    }

    /// Parses a `NAME` payload, giving what parses along with the first
    /// problem, if any (see the [module docs](self)).
    ///
    /// ```
    /// use gedcom_elf::value::{Name, NameErrorKind};
    ///
    /// let (name, err) = Name::parse_lenient("Jean /de la/ Fontaine /x/");
    /// assert_eq!(name.surname.as_deref(), Some("de la"));
    /// assert_eq!(name.suffix, "Fontaine /x/");
    /// assert_eq!(err.map(|e| (e.kind(), e.offset())), Some((NameErrorKind::ExtraSlash, 22)));
    /// ```
    pub fn parse_lenient(payload: &'a str) -> (Name<'a>, Option<NameError>) {
        // One pass: the first line break and the first three slashes.
        let mut line_break = None;
        let mut slashes = [0; 3];
        let mut found = 0;
        for (i, &c) in payload.as_bytes().iter().enumerate() {
            match c {
                b'/' if found < 3 => {
                    slashes[found] = i;
                    found += 1;
                }
                b'\r' | b'\n' if line_break.is_none() => line_break = Some(i),
                _ => {}
            }
        }
        let mut error = line_break.map(|offset| NameError {
            kind: NameErrorKind::LineBreak,
            offset,
        });
        let [open, close, third] = slashes;
        if found == 0 {
            let name = Name {
                given: Cow::Borrowed(trim(payload)),
                ..Name::default()
            };
            return (name, error);
        }
        let given = Cow::Borrowed(trim(&payload[..open]));
        if found == 1 {
            let name = Name {
                given,
                surname: Some(Cow::Borrowed(trim(&payload[open + 1..]))),
                suffix: Cow::Borrowed(""),
            };
            error = error.or(Some(NameError {
                kind: NameErrorKind::Unclosed,
                offset: open,
            }));
            return (name, error);
        }
        if found == 3 {
            error = error.or(Some(NameError {
                kind: NameErrorKind::ExtraSlash,
                offset: third,
            }));
        }
        let name = Name {
            given,
            surname: Some(Cow::Borrowed(trim(&payload[open + 1..close]))),
            suffix: Cow::Borrowed(trim(&payload[close + 1..])),
        };
        (name, error)
    }

    /// The name as it is usually written: the pieces that are not empty,
    /// separated by single spaces, with no slashes (`John Smith Jr.`).
    ///
    /// ```
    /// use gedcom_elf::value::Name;
    ///
    /// assert_eq!(Name::parse("John /Smith/ Jr.")?.full(), "John Smith Jr.");
    /// assert_eq!(Name::parse("/Smith/")?.full(), "Smith");
    /// # Ok::<(), gedcom_elf::value::NameError>(())
    /// ```
    pub fn full(&self) -> String {
        let pieces = [
            self.given.as_ref(),
            self.surname.as_deref().unwrap_or(""),
            self.suffix.as_ref(),
        ];
        let words: Vec<&str> = pieces.into_iter().filter(|p| !p.is_empty()).collect();
        words.join(" ")
    }

    /// The same name, owning its pieces.
    pub fn into_owned(self) -> Name<'static> {
        let own = |c: Cow<'a, str>| Cow::Owned(c.into_owned());
        Name {
            given: own(self.given),
            surname: self.surname.map(own),
            suffix: own(self.suffix),
        }
    }
}

impl fmt::Display for Name<'_> {
    /// The payload in its usual form: `Given /Surname/ Suffix`, one space
    /// between a piece and a slash, none around an empty piece.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(surname) = &self.surname else {
            return f.write_str(&self.given);
        };
        if !self.given.is_empty() {
            write!(f, "{} ", self.given)?;
        }
        write!(f, "/{surname}/")?;
        if !self.suffix.is_empty() {
            write!(f, " {}", self.suffix)?;
        }
        Ok(())
    }
}

/// The pieces of a name given by the substructures of a `NAME` (or of its
/// `FONE`, `ROMN` or `TRAN` variants): one entry per substructure, in
/// document order. GEDCOM 7 allows each tag more than once; 5.5.1 allows it
/// once, its payload a comma-separated list (split it with
/// [`comma_list`](super::comma_list)). ELF says the `NAME` payload is more
/// correct where the two disagree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NamePieces<'a> {
    /// `NPFX`: prefixes (`Lt. Cmndr.`).
    pub prefix: Vec<Cow<'a, str>>,
    /// `GIVN`: given names.
    pub given: Vec<Cow<'a, str>>,
    /// `NICK`: nicknames.
    pub nickname: Vec<Cow<'a, str>>,
    /// `SPFX`: surname prefixes (`de la`).
    pub surname_prefix: Vec<Cow<'a, str>>,
    /// `SURN`: surnames.
    pub surname: Vec<Cow<'a, str>>,
    /// `NSFX`: suffixes (`Jr.`).
    pub suffix: Vec<Cow<'a, str>>,
}

impl<'a> NamePieces<'a> {
    /// The tags of the name pieces, in the order of the fields.
    pub const TAGS: [&'static str; 6] = ["NPFX", "GIVN", "NICK", "SPFX", "SURN", "NSFX"];

    /// Adds the payload of a substructure tagged `tag`; `false` (and nothing
    /// added) when `tag` is not one of [`NamePieces::TAGS`].
    ///
    /// ```
    /// use gedcom_elf::value::NamePieces;
    ///
    /// let mut pieces = NamePieces::default();
    /// assert!(pieces.push("SURN", "Smith".into()));
    /// assert!(!pieces.push("TYPE", "birth".into()));
    /// assert_eq!(pieces.surname, ["Smith"]);
    /// ```
    pub fn push(&mut self, tag: &str, text: Cow<'a, str>) -> bool {
        let list = match tag {
            "NPFX" => &mut self.prefix,
            "GIVN" => &mut self.given,
            "NICK" => &mut self.nickname,
            "SPFX" => &mut self.surname_prefix,
            "SURN" => &mut self.surname,
            "NSFX" => &mut self.suffix,
            _ => return false,
        };
        list.push(text);
        true
    }

    /// Whether no piece is given.
    pub fn is_empty(&self) -> bool {
        self.lists().iter().all(|l| l.is_empty())
    }

    /// The lists in the order of [`NamePieces::TAGS`].
    fn lists(&self) -> [&Vec<Cow<'a, str>>; 6] {
        [
            &self.prefix,
            &self.given,
            &self.nickname,
            &self.surname_prefix,
            &self.surname,
            &self.suffix,
        ]
    }

    /// Each piece with its tag, in the order of [`NamePieces::TAGS`].
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        Self::TAGS
            .into_iter()
            .zip(self.lists())
            .flat_map(|(tag, list)| list.iter().map(move |t| (tag, t.as_ref())))
    }

    /// The same pieces, owning their text.
    pub fn into_owned(self) -> NamePieces<'static> {
        let own =
            |v: Vec<Cow<'a, str>>| v.into_iter().map(|c| Cow::Owned(c.into_owned())).collect();
        NamePieces {
            prefix: own(self.prefix),
            given: own(self.given),
            nickname: own(self.nickname),
            surname_prefix: own(self.surname_prefix),
            surname: own(self.surname),
            suffix: own(self.suffix),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule said the long way, a search per piece: what the one pass
    /// of [`Name::parse_lenient`] must agree with.
    fn by_searches(payload: &str) -> (Name<'_>, Option<NameError>) {
        let line_break = payload.find(['\r', '\n']);
        let mut error = line_break.map(|offset| NameError {
            kind: NameErrorKind::LineBreak,
            offset,
        });
        let Some(open) = payload.find('/') else {
            let given = Cow::Borrowed(trim(payload));
            return (
                Name {
                    given,
                    ..Name::default()
                },
                error,
            );
        };
        let given = Cow::Borrowed(trim(&payload[..open]));
        let rest = &payload[open + 1..];
        let Some(close) = rest.find('/').map(|c| open + 1 + c) else {
            let kind = NameErrorKind::Unclosed;
            error = error.or(Some(NameError { kind, offset: open }));
            let surname = Some(Cow::Borrowed(trim(rest)));
            let suffix = Cow::Borrowed("");
            return (
                Name {
                    given,
                    surname,
                    suffix,
                },
                error,
            );
        };
        let suffix = &payload[close + 1..];
        if let Some(third) = suffix.find('/') {
            let kind = NameErrorKind::ExtraSlash;
            error = error.or(Some(NameError {
                kind,
                offset: close + 1 + third,
            }));
        }
        let surname = Some(Cow::Borrowed(trim(&payload[open + 1..close])));
        (
            Name {
                given,
                surname,
                suffix: Cow::Borrowed(trim(suffix)),
            },
            error,
        )
    }

    #[test]
    fn the_one_pass_agrees_with_a_search_per_piece_on_every_short_payload() {
        // Every payload of up to six of these characters: slashes, line
        // breaks, white space and a letter, in every order.
        let alphabet = ['/', '\r', '\n', ' ', '\t', 'a', 'é'];
        let mut payloads = vec![String::new()];
        let mut checked = 0;
        for _ in 0..6 {
            let mut longer = Vec::new();
            for p in &payloads {
                for c in alphabet {
                    let q = format!("{p}{c}");
                    assert_eq!(Name::parse_lenient(&q), by_searches(&q), "{q:?}");
                    checked += 1;
                    longer.push(q);
                }
            }
            payloads = longer;
        }
        assert_eq!(checked, (1..=6).map(|n| 7_usize.pow(n)).sum::<usize>());
    }

    fn parts(s: &str) -> (String, Option<String>, String) {
        let n = Name::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        (
            n.given.into_owned(),
            n.surname.map(Cow::into_owned),
            n.suffix.into_owned(),
        )
    }

    fn err(s: &str) -> (NameErrorKind, usize) {
        let e = Name::parse(s).unwrap_err();
        (e.kind(), e.offset())
    }

    #[test]
    fn given_surname_suffix() {
        let p =
            |g: &str, s: Option<&str>, x: &str| (g.to_string(), s.map(String::from), x.to_string());
        assert_eq!(parts("John /Smith/ Jr."), p("John", Some("Smith"), "Jr."));
        assert_eq!(parts("John/Smith/Jr."), p("John", Some("Smith"), "Jr."));
        assert_eq!(
            parts("  John  Paul  / Smith /  "),
            p("John  Paul", Some("Smith"), "")
        );
        assert_eq!(parts("/Smith/"), p("", Some("Smith"), ""));
        assert_eq!(parts("//"), p("", Some(""), ""));
        assert_eq!(parts("Cher"), p("Cher", None, ""));
        assert_eq!(parts(""), p("", None, ""));
        assert_eq!(
            parts("Lt. Cmndr. Joseph /Allen/ jr."),
            p("Lt. Cmndr. Joseph", Some("Allen"), "jr.")
        );
        assert_eq!(parts("... /Smith/"), p("...", Some("Smith"), ""));
    }

    #[test]
    fn pieces_borrow_from_the_payload() {
        let n = Name::parse("Ada /Lovelace/").unwrap();
        assert!(matches!(n.given, Cow::Borrowed(_)));
        assert!(matches!(n.surname, Some(Cow::Borrowed(_))));
        let owned: Name<'static> = n.clone().into_owned();
        assert_eq!(owned, n);
    }

    #[test]
    fn slashes_that_do_not_fit() {
        assert_eq!(err("A /B/ C /D/"), (NameErrorKind::ExtraSlash, 8));
        assert_eq!(err("A /B"), (NameErrorKind::Unclosed, 2));
        assert_eq!(err("/"), (NameErrorKind::Unclosed, 0));
        assert_eq!(err("///"), (NameErrorKind::ExtraSlash, 2));
        assert_eq!(err("A\nB"), (NameErrorKind::LineBreak, 1));
        let (n, e) = Name::parse_lenient("A /B/ C /D/");
        assert_eq!((n.suffix.as_ref(), e.is_some()), ("C /D/", true));
        let (n, _) = Name::parse_lenient("A /B ");
        assert_eq!(n.surname.as_deref(), Some("B"));
        assert_eq!(
            Name::parse("A /B/ C /").unwrap_err().to_string(),
            "byte 8: expected no more than two `/` (one surname)"
        );
    }

    #[test]
    fn printing_and_reading_again_agree() {
        for s in [
            "John /Smith/ Jr.",
            "/Smith/",
            "//",
            "Cher",
            "",
            "a/b/",
            "A /B",
            "A /B/ C /D/ E",
        ] {
            let (n, _) = Name::parse_lenient(s);
            let printed = n.to_string();
            assert_eq!(Name::parse_lenient(&printed).0, n, "{s:?} -> {printed:?}");
        }
        assert_eq!(
            Name::parse("John/Smith/Jr.").unwrap().to_string(),
            "John /Smith/ Jr."
        );
    }

    #[test]
    fn name_pieces() {
        let mut p = NamePieces::default();
        assert!(p.is_empty());
        for (tag, text) in [
            ("GIVN", "John"),
            ("GIVN", "Paul"),
            ("NSFX", "Jr."),
            ("NOTE", "x"),
        ] {
            p.push(tag, Cow::Borrowed(text));
        }
        assert_eq!(p.given, ["John", "Paul"]);
        let all: Vec<_> = p.iter().collect();
        assert_eq!(all, [("GIVN", "John"), ("GIVN", "Paul"), ("NSFX", "Jr.")]);
        assert_eq!(p.clone().into_owned(), p);
    }
}
