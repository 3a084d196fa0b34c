//! A person as the export writes it: what the mapping found, its names'
//! and facts' texts borrowed from the record's tree, written without
//! making the owned [`Person`] first.
//!
//! Persons are half of a document, and most of a person is its names and
//! facts. The owned model costs each a few allocations (a fact's value,
//! its date's two texts, its place's text; a name's full text and each
//! part's) made only to be written and freed. A [`FactView`] borrows
//! those texts from the tree (a payload with no escape and no
//! continuation is a slice of the input) and keeps the parsed date until
//! it is written; a [`NameFormView`] is its node, its full text and parts
//! worked out as it is written. What is rare (sources, notes, a place's
//! description) stays owned.
//!
//! Each view writes exactly what its owned counterpart writes: both go
//! through the one list of the shape's properties in
//! [`model`](super::model) ([`FactParts`], [`emit_name`], [`emit_date`]...),
//! and `into_*` makes the counterpart, which
//! [`Mapper::map_record`](super::Mapper::map_record) gives.

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::io;

use smallvec::SmallVec;

use super::emit::{Emit, Node};
use super::model::{
    emit_date, emit_name, emit_name_form, emit_name_part, emit_place, emit_qualifier, Date, Fact,
    FactParts, Iri, Name, NameForm, NamePart, Note, Person, PlaceReference, Qualifier,
    SourceReference,
};
use crate::tree::NodeRef;
use crate::value::gedcomx::GedcomxDate;
use crate::value::{Date as GedcomDate, Name as GedcomName};

/// A fact ([`Fact`]), its texts borrowed from the tree.
#[derive(Clone, Debug, Default)]
pub(crate) struct FactView<'t> {
    pub(crate) kind: Iri,
    pub(crate) sources: Vec<SourceReference>,
    pub(crate) notes: Vec<Note>,
    pub(crate) date: Option<DateView<'t>>,
    pub(crate) place: Option<PlaceView<'t>>,
    pub(crate) value: Option<Cow<'t, str>>,
    pub(crate) qualifiers: Vec<QualifierView<'t>>,
}

impl FactView<'_> {
    /// The same fact, owned.
    pub(crate) fn into_fact(self) -> Fact {
        Fact {
            kind: self.kind,
            sources: self.sources,
            notes: self.notes,
            date: self.date.map(DateView::into_date),
            place: self.place.map(PlaceView::into_place),
            value: self.value.map(Cow::into_owned),
            qualifiers: self
                .qualifiers
                .into_iter()
                .map(QualifierView::into_qualifier)
                .collect(),
        }
    }
}

impl Node for FactView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        FactParts {
            kind: &self.kind,
            sources: &self.sources,
            notes: &self.notes,
            date: self.date.as_ref(),
            place: self.place.as_ref(),
            value: self.value.as_deref(),
            qualifiers: &self.qualifiers,
        }
        .emit(e)
    }
}

/// A date ([`Date`]): the `DATE`'s payload verbatim, and the formal date
/// when the payload is understood (made into text as it is written).
#[derive(Clone, Debug, Default)]
pub(crate) struct DateView<'t> {
    original: Option<Cow<'t, str>>,
    formal: Option<GedcomxDate>,
}

impl<'t> DateView<'t> {
    /// The date of a `DATE` node: the one rule for a GEDCOM X date
    /// ([`map::date`](super::map::date) is this, owned).
    pub(crate) fn of(node: NodeRef<'t>) -> Self {
        let original = node.text();
        let formal = original
            .as_deref()
            .and_then(|t| GedcomDate::parse(t).ok())
            .and_then(|d| d.gedcomx().ok());
        DateView { original, formal }
    }

    /// The same date, owned.
    pub(crate) fn into_date(self) -> Date {
        Date {
            original: self.original.map(Cow::into_owned),
            formal: self.formal.map(|g| g.to_string()),
        }
    }
}

impl Node for DateView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        let original = self.original.as_deref();
        let Some(formal) = &self.formal else {
            return emit_date(e, original, None);
        };
        // Made on the stack when it fits (a formal date is short).
        let mut short = Short::default();
        if write!(short, "{formal}").is_ok() {
            if let Ok(text) = std::str::from_utf8(&short.bytes[..short.len]) {
                return emit_date(e, original, Some(text));
            }
        }
        emit_date(e, original, Some(&formal.to_string()))
    }
}

/// Text written into 64 bytes on the stack; a write that does not fit
/// fails.
struct Short {
    bytes: [u8; 64],
    len: usize,
}

impl Default for Short {
    fn default() -> Self {
        Short {
            bytes: [0; 64],
            len: 0,
        }
    }
}

impl fmt::Write for Short {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A place reference ([`PlaceReference`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct PlaceView<'t> {
    pub(crate) original: Option<Cow<'t, str>>,
    pub(crate) description: Option<String>,
}

impl PlaceView<'_> {
    /// The same reference, owned.
    pub(crate) fn into_place(self) -> PlaceReference {
        PlaceReference {
            original: self.original.map(Cow::into_owned),
            description: self.description,
        }
    }
}

impl Node for PlaceView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_place(e, self.description.as_deref(), self.original.as_deref())
    }
}

/// A qualifier ([`Qualifier`]) named by one of the mapping's constants.
#[derive(Clone, Debug)]
pub(crate) struct QualifierView<'t> {
    pub(crate) name: &'static str,
    pub(crate) value: Option<Cow<'t, str>>,
}

impl QualifierView<'_> {
    /// The same qualifier, owned.
    pub(crate) fn into_qualifier(self) -> Qualifier {
        Qualifier::new(Iri::Borrowed(self.name), self.value.map(Cow::into_owned))
    }
}

impl Node for QualifierView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_qualifier(e, self.name, self.value.as_deref())
    }
}

/// A person: the owned [`Person`] but for its names and facts (empty
/// there), which are views.
#[derive(Clone, Debug, Default)]
pub(crate) struct PersonView<'t> {
    pub(crate) person: Person,
    pub(crate) names: Vec<NameView<'t>>,
    pub(crate) facts: Vec<FactView<'t>>,
}

impl PersonView<'_> {
    /// The same person, owned.
    pub(crate) fn into_person(self) -> Person {
        Person {
            names: self.names.into_iter().map(NameView::into_name).collect(),
            facts: self.facts.into_iter().map(FactView::into_fact).collect(),
            ..self.person
        }
    }
}

impl Node for PersonView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        self.person.emit_with(e, &self.names, &self.facts)
    }
}

/// A name ([`Name`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct NameView<'t> {
    pub(crate) kind: Option<Iri>,
    pub(crate) sources: Vec<SourceReference>,
    pub(crate) notes: Vec<Note>,
    pub(crate) forms: SmallVec<[NameFormView<'t>; 1]>,
}

impl NameView<'_> {
    /// The same name, owned.
    pub(crate) fn into_name(self) -> Name {
        Name {
            kind: self.kind,
            sources: self.sources,
            notes: self.notes,
            name_forms: self
                .forms
                .into_iter()
                .map(NameFormView::into_name_form)
                .collect(),
        }
    }
}

impl Node for NameView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_name(
            e,
            self.kind.as_deref(),
            &self.sources,
            &self.notes,
            &self.forms,
        )
    }
}

/// A name form ([`NameForm`]).
#[derive(Clone, Debug)]
pub(crate) enum NameFormView<'t> {
    /// A `NAME`, `FONE` or `ROMN`: the full text and parts of its payload
    /// and pieces ([`NameFormView::with`]).
    Of(NodeRef<'t>),
    /// A full text alone (a nickname's).
    Text(Cow<'t, str>),
}

impl NameFormView<'_> {
    /// Calls `f` with the full text and parts of a `NAME`, `FONE` or
    /// `ROMN` node: the full text is the payload's given name, surname and
    /// suffix (`/` dropped); the parts are the pieces (`NPFX`, `GIVN`,
    /// `SPFX` as a Surname qualified Particle, `SURN`, `NSFX`) when it has
    /// some, else the payload's given name, surname and suffix.
    fn with<R>(node: NodeRef<'_>, f: impl FnOnce(Option<&str>, &[PartView<'_>]) -> R) -> R {
        let payload = node.text().unwrap_or_default();
        let (parsed, _) = GedcomName::parse_lenient(&payload);
        let mut full = String::new();
        let words = [
            Some(parsed.given.as_ref()),
            parsed.surname.as_deref(),
            Some(parsed.suffix.as_ref()),
        ];
        for word in words.into_iter().flatten().filter(|s| !s.is_empty()) {
            if !full.is_empty() {
                full.push(' ');
            }
            full.push_str(word);
        }
        let pieces = node.name_pieces();
        let part = |kind: &'static str, value, particle| PartView {
            kind,
            value,
            particle,
        };
        let mut parts: SmallVec<[PartView<'_>; 4]> = SmallVec::new();
        let given_pieces = !(pieces.prefix.is_empty()
            && pieces.given.is_empty()
            && pieces.surname_prefix.is_empty()
            && pieces.surname.is_empty()
            && pieces.suffix.is_empty());
        if given_pieces {
            for (list, kind, particle) in [
                (&pieces.prefix, gx!("Prefix"), false),
                (&pieces.given, gx!("Given"), false),
                (&pieces.surname_prefix, gx!("Surname"), true),
                (&pieces.surname, gx!("Surname"), false),
                (&pieces.suffix, gx!("Suffix"), false),
            ] {
                for v in list.iter().filter(|v| !v.trim().is_empty()) {
                    parts.push(part(kind, v, particle));
                }
            }
        } else {
            if !parsed.given.is_empty() {
                parts.push(part(gx!("Given"), &parsed.given, false));
            }
            if let Some(s) = parsed.surname.as_deref().filter(|s| !s.is_empty()) {
                parts.push(part(gx!("Surname"), s, false));
            }
            if !parsed.suffix.is_empty() {
                parts.push(part(gx!("Suffix"), &parsed.suffix, false));
            }
        }
        f((!full.is_empty()).then_some(&full), &parts)
    }

    /// The same name form, owned.
    pub(crate) fn into_name_form(self) -> NameForm {
        match self {
            NameFormView::Of(node) => NameFormView::with(node, |full, parts| NameForm {
                lang: None,
                full_text: full.map(str::to_string),
                parts: parts.iter().copied().map(PartView::to_part).collect(),
            }),
            NameFormView::Text(text) => NameForm {
                full_text: Some(text.into_owned()),
                ..NameForm::default()
            },
        }
    }
}

impl Node for NameFormView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        match self {
            NameFormView::Of(node) => {
                NameFormView::with(*node, |full, parts| emit_name_form(e, None, full, parts))
            }
            NameFormView::Text(text) => emit_name_form::<_, NamePart>(e, None, Some(text), &[]),
        }
    }
}

/// A name part ([`NamePart`]), qualified a Particle or not.
#[derive(Clone, Copy, Debug)]
struct PartView<'a> {
    kind: &'static str,
    value: &'a str,
    particle: bool,
}

/// The qualifiers of a surname particle.
const PARTICLE: [QualifierView<'static>; 1] = [QualifierView {
    name: gx!("Particle"),
    value: None,
}];

impl PartView<'_> {
    fn qualifiers(&self) -> &'static [QualifierView<'static>] {
        match self.particle {
            true => &PARTICLE,
            false => &[],
        }
    }

    fn to_part(self) -> NamePart {
        NamePart {
            kind: Some(Iri::Borrowed(self.kind)),
            value: self.value.to_string(),
            qualifiers: self
                .qualifiers()
                .iter()
                .cloned()
                .map(QualifierView::into_qualifier)
                .collect(),
        }
    }
}

impl Node for PartView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_name_part(e, Some(self.kind), self.value, self.qualifiers())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_holds_64_bytes_and_refuses_more() {
        let mut short = Short::default();
        assert!(write!(short, "{}", "x".repeat(60)).is_ok());
        assert!(short.write_str("12345").is_err());
        assert!(short.write_str("1234").is_ok());
        assert_eq!(&short.bytes[60..short.len], b"1234");
    }
}
