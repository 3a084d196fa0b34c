//! The items most records make, as the export writes them: what the
//! mapping found, with texts borrowed from the record's tree and the
//! [`Index`](super::Index), written without making the owned item first.
//!
//! Persons are half of a document, and most of a person is its names and
//! facts. The owned model costs each a few allocations (a fact's value,
//! its date's two texts, its place's text; a name's full text and each
//! part's) made only to be written and freed. A [`FactView`] borrows
//! those texts from the tree (a payload with no escape and no
//! continuation is a slice of the input) and keeps the parsed date until
//! it is written; a [`NameFormView`] is its node, its full text and parts
//! worked out as it is written. A family's couple ([`CoupleView`]) has
//! facts the same way, its parent-child relationships
//! ([`ParentChildView`]) are their ids, and a citation's description
//! ([`CitationView`]) borrows its source's elements from the index. What
//! is rare (sources, notes, a place's description) stays owned.
//!
//! Each view writes exactly what its owned counterpart writes: both go
//! through the one list of the shape's properties in
//! [`model`](super::model) ([`FactParts`], [`RelationshipParts`],
//! [`SourceParts`], [`emit_name`], [`emit_date`]...), and `into_*` makes
//! the counterpart, which [`Mapper::map_record`](super::Mapper::map_record)
//! gives (through [`Items`](super::map::Items) for a `Vec<Item>`).

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::io;

use smallvec::SmallVec;

use super::emit::{Emit, Node};
use super::model::{
    emit_citation, emit_date, emit_name, emit_name_form, emit_name_part, emit_place,
    emit_qualifier, emit_source_reference, formatted, Attribution, CitationElement, Date,
    ElementView, Fact, FactParts, Iri, Name, NameForm, NamePart, Note, Person, PlaceReference,
    Qualifier, Relationship, RelationshipParts, SourceCitation, SourceDescription, SourceParts,
    SourceReference,
};
use super::splice::SplicedCitation;
use super::table::local;
use crate::tree::NodeRef;
use crate::value::gedcomx::GedcomxDate;
use crate::value::{Date as GedcomDate, Name as GedcomName};

/// A fact ([`Fact`]), its texts borrowed from the tree.
#[derive(Clone, Debug, Default)]
pub(crate) struct FactView<'t> {
    pub(crate) kind: Iri,
    pub(crate) sources: SmallVec<[SourceReference; 1]>,
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
            sources: self.sources.into_vec(),
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
        emit_date(e, original, Some(formal.text().as_str()))
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

/// Calls `f` with the concatenation of `pieces`, made on the stack when
/// it fits in a [`Short`] (an id, a reference to one).
fn joined<R>(pieces: &[&str], f: impl FnOnce(&str) -> R) -> R {
    let mut short = Short::default();
    if pieces.iter().all(|p| short.write_str(p).is_ok()) {
        if let Ok(text) = std::str::from_utf8(&short.bytes[..short.len]) {
            return f(text);
        }
    }
    f(&pieces.concat())
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

/// A person: the owned [`Person`] but for its id, names and facts (empty
/// there), which are borrowed.
#[derive(Clone, Debug, Default)]
pub(crate) struct PersonView<'t> {
    /// The person's id (the owned person's is left empty).
    pub(crate) id: Cow<'t, str>,
    pub(crate) person: Person,
    pub(crate) names: Vec<NameView<'t>>,
    pub(crate) facts: Vec<FactView<'t>>,
}

impl PersonView<'_> {
    /// The same person, owned.
    pub(crate) fn into_person(self) -> Person {
        Person {
            id: self.id.into_owned(),
            names: self.names.into_iter().map(NameView::into_name).collect(),
            facts: self.facts.into_iter().map(FactView::into_fact).collect(),
            ..self.person
        }
    }
}

impl Node for PersonView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        self.person.emit_with(e, &self.id, &self.names, &self.facts)
    }
}

/// A couple relationship: the owned [`Relationship`] but for its facts
/// (empty there), which are views.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoupleView<'t> {
    pub(crate) relationship: Relationship,
    pub(crate) facts: Vec<FactView<'t>>,
}

impl CoupleView<'_> {
    /// The same relationship, owned.
    pub(crate) fn into_relationship(self) -> Relationship {
        Relationship {
            facts: self.facts.into_iter().map(FactView::into_fact).collect(),
            ..self.relationship
        }
    }
}

impl Node for CoupleView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        let r = &self.relationship;
        RelationshipParts {
            id: &r.id,
            kind: &r.kind,
            attribution: &r.attribution,
            sources: &r.sources,
            notes: &r.notes,
            media: &r.media,
            identifiers: &r.identifiers,
            person1: &r.person1,
            person2: &r.person2,
            facts: &self.facts,
        }
        .emit(e)
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
        let mut words: SmallVec<[&str; 5]> = SmallVec::new();
        let given = [
            Some(parsed.given.as_ref()),
            parsed.surname.as_deref(),
            Some(parsed.suffix.as_ref()),
        ];
        for word in given.into_iter().flatten().filter(|s| !s.is_empty()) {
            if !words.is_empty() {
                words.push(" ");
            }
            words.push(word);
        }
        // The pieces, by kind (in `PIECES`' order), then as they come.
        let mut pieces: SmallVec<[(usize, Cow<'_, str>); 4]> = SmallVec::new();
        for c in node.children() {
            let tag = c.tag();
            if let Some(at) = PIECES.iter().position(|(t, ..)| *t == tag) {
                pieces.push((at, c.text().unwrap_or_default()));
            }
        }
        pieces.sort_by_key(|(at, _)| *at);
        let part = |kind: &'static str, value, particle| PartView {
            kind,
            value,
            particle,
        };
        let mut parts: SmallVec<[PartView<'_>; 4]> = SmallVec::new();
        if pieces.is_empty() {
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
        for (at, v) in pieces.iter().filter(|(_, v)| !v.trim().is_empty()) {
            let (_, kind, particle) = PIECES[*at];
            parts.push(part(kind, v, particle));
        }
        joined(&words, |full| f((!full.is_empty()).then_some(full), &parts))
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

/// The pieces of a name that are its parts: tag, part type, and whether
/// the part is qualified a Particle (a surname prefix). (`NICK` is a name
/// of its own.)
const PIECES: [(&str, &str, bool); 5] = [
    ("NPFX", gx!("Prefix"), false),
    ("GIVN", gx!("Given"), false),
    ("SPFX", gx!("Surname"), true),
    ("SURN", gx!("Surname"), false),
    ("NSFX", gx!("Suffix"), false),
];

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

/// The description of a citation of its own (a `SOUR` pointer with a
/// `PAGE`, `DATA` or `NOTE`; [`SourceDescription`]): a component of its
/// source record's description, whose citation has the record's elements
/// (borrowed from the [`Index`](super::Index)) and then its own (borrowed
/// from the tree), and the formatted value they make.
#[derive(Clone, Debug)]
pub(crate) struct CitationView<'a> {
    pub(crate) id: Cow<'a, str>,
    /// The source record's id.
    pub(crate) source: Cow<'a, str>,
    pub(crate) notes: Vec<Note>,
    /// The source record's elements.
    pub(crate) record: Cow<'a, [CitationElement]>,
    /// The source record's number in the index, when the description is
    /// written with markers in place of the record's part (see
    /// [`splice`](super::splice): compact output only, whose writer
    /// replaces them).
    pub(crate) ordinal: Option<u32>,
    /// The citation's own elements: name and value.
    pub(crate) own: SmallVec<[(&'static str, Cow<'a, str>); 2]>,
}

impl CitationView<'_> {
    /// Calls `f` with the elements, the record's then the citation's own.
    fn with_elements<R>(&self, f: impl FnOnce(&[ElementView<'_>]) -> R) -> R {
        let own = self.own.iter().map(|(name, v)| ElementView::new(name, v));
        let all: SmallVec<[ElementView<'_>; 8]> = self
            .record
            .iter()
            .map(CitationElement::view)
            .chain(own)
            .collect();
        f(&all)
    }

    /// Writes the description with `citation`.
    fn emit_with<E: Emit, C: Node>(&self, e: &mut E, citation: &C) -> io::Result<()> {
        joined(&["#", &self.source], |source| {
            SourceParts {
                id: &self.id,
                media_type: None,
                about: None,
                citations: std::slice::from_ref(citation),
                component_of: Some(&LocalReference(source)),
                titles: &[],
                notes: &self.notes,
                attribution: &Attribution::default(),
                coverage: &[],
                descriptions: &[],
                identifiers: &[],
                repository: None,
            }
            .emit(e)
        })
    }

    /// The same description, owned.
    pub(crate) fn into_source_description(self) -> SourceDescription {
        let value = self.with_elements(|all| formatted(all, &self.source));
        let own = self
            .own
            .into_iter()
            .map(|(n, v)| CitationElement::new(n, v));
        let mut elements = self.record.into_owned();
        elements.extend(own);
        SourceDescription {
            id: self.id.into_owned(),
            component_of: Some(SourceReference {
                description: local(&self.source),
                qualifiers: Vec::new(),
            }),
            citations: vec![SourceCitation {
                lang: None,
                value,
                elements,
            }],
            notes: self.notes,
            ..SourceDescription::default()
        }
    }
}

impl Node for CitationView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        if let (Some(k), false) = (self.ordinal, self.record.is_empty()) {
            let own: SmallVec<[ElementView<'_>; 2]> = self
                .own
                .iter()
                .map(|(name, v)| ElementView::new(name, v))
                .collect();
            let citation = SplicedCitation::new(k, self.record.len(), &own);
            return self.emit_with(e, &citation);
        }
        self.with_elements(|elements| {
            let value = formatted(elements, &self.source);
            let citation = CitationOf {
                value: &value,
                elements,
            };
            self.emit_with(e, &citation)
        })
    }
}

/// A citation ([`SourceCitation`]) with no language.
struct CitationOf<'a> {
    value: &'a str,
    elements: &'a [ElementView<'a>],
}

impl Node for CitationOf<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_citation(e, None, self.value, self.elements)
    }
}

/// A reference ([`SourceReference`]) to `#id`, with no qualifiers.
struct LocalReference<'a>(&'a str);

impl Node for LocalReference<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_source_reference(e, self.0, &[])
    }
}

/// A parent-child relationship of a family ([`Relationship`]): its id is
/// `FAMILY.PARENT.CHILD`, its facts the child's `FAMC.PEDI` in the family.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ParentChildView<'a> {
    pub(crate) family: &'a str,
    pub(crate) parent: &'a str,
    pub(crate) child: &'a str,
    /// Fact types (and the `PEDI` lines, not written).
    pub(crate) facts: &'a [(&'static str, u64)],
}

/// The relationship type of [`ParentChildView`].
const PARENT_CHILD: &str = gx!("ParentChild");

impl ParentChildView<'_> {
    /// The same relationship, owned.
    pub(crate) fn into_relationship(self) -> Relationship {
        Relationship {
            id: [self.family, ".", self.parent, ".", self.child].concat(),
            kind: Iri::Borrowed(PARENT_CHILD),
            person1: local(self.parent),
            person2: local(self.child),
            facts: self
                .facts
                .iter()
                .map(|(kind, _)| Fact {
                    kind: Iri::Borrowed(kind),
                    ..Fact::default()
                })
                .collect(),
            ..Relationship::default()
        }
    }
}

impl Node for ParentChildView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        let facts: SmallVec<[TypeOnly; 2]> = self.facts.iter().map(|(k, _)| TypeOnly(k)).collect();
        let id = [self.family, ".", self.parent, ".", self.child];
        joined(&id, |id| {
            joined(&["#", self.parent], |person1| {
                joined(&["#", self.child], |person2| {
                    RelationshipParts {
                        id,
                        kind: PARENT_CHILD,
                        attribution: &Attribution::default(),
                        sources: &[],
                        notes: &[],
                        media: &[],
                        identifiers: &[],
                        person1,
                        person2,
                        facts: &facts,
                    }
                    .emit(e)
                })
            })
        })
    }
}

/// A fact ([`Fact`]) with a type and nothing else.
struct TypeOnly(&'static str);

impl Node for TypeOnly {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        FactParts::<Date, PlaceReference, Qualifier> {
            kind: self.0,
            sources: &[],
            notes: &[],
            date: None,
            place: None,
            value: None,
            qualifiers: &[],
        }
        .emit(e)
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
