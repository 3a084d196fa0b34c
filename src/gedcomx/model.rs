//! The GEDCOM X data types the export writes, owned, with FHISO's
//! [`CitationElement`] and the `elements` property of [`SourceCitation`]
//! (seed 004).
//!
//! Only the properties the mapping fills are here. Each type's
//! [`Node::emit`] lists its properties once, in the order both formats
//! write them: the XML schema's order of child elements (which the JSON
//! members follow too; a JSON object's member order carries no meaning),
//! except where seed 004's examples fix another.
//!
//! `kind` stands for the `type` property throughout.

use std::borrow::Cow;
use std::io;

pub use super::emit::Identifier;

/// A type or name IRI: most are the mapping's constants (borrowed, no
/// allocation); those read from a document are owned.
pub type Iri = Cow<'static, str>;
use super::emit::{prop, Emit, Node, Prop};
use super::table::local;
use smallvec::SmallVec;

/// A FHISO citation element (seed 004, §2): one piece of what a formatted
/// citation says, named by an IRI.
///
/// ```
/// use gedcom_elf::gedcomx::{CitationElement, CEV};
///
/// let title = CitationElement::new(format!("{CEV}title"), "Les ancêtres de Charlemagne").lang("fr");
/// assert_eq!(title.name, "http://terms.fhiso.org/sources/title");
/// assert_eq!(title.to_json(), r#"{"name":"http://terms.fhiso.org/sources/title","value":"Les ancêtres de Charlemagne","lang":"fr"}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CitationElement {
    /// The optional layer identifier.
    pub layer: Option<String>,
    /// The citation element name: an IRI (required).
    pub name: Iri,
    /// The optional language tag (RFC 5646) of the value.
    pub lang: Option<String>,
    /// The value: plain text (required).
    pub value: String,
}

impl CitationElement {
    /// The element `name` with `value`, no layer and no language.
    pub fn new(name: impl Into<Iri>, value: impl Into<String>) -> Self {
        CitationElement {
            layer: None,
            name: name.into(),
            lang: None,
            value: value.into(),
        }
    }

    /// The same element with the language tag `lang`.
    pub fn lang(mut self, lang: impl Into<String>) -> Self {
        self.lang = Some(lang.into());
        self
    }

    /// Its compact JSON serialisation (seed 004 §2.1).
    pub fn to_json(&self) -> String {
        super::to_json(self, false)
    }

    /// Its XML serialisation as a `<cev:element>` (seed 004 §2.2), with the
    /// value in a `<cev:value>` child.
    pub fn to_xml(&self) -> String {
        super::to_xml("cev:element", self, false)
    }
}

impl CitationElement {
    /// The element, borrowed.
    pub(crate) fn view(&self) -> ElementView<'_> {
        ElementView {
            layer: self.layer.as_deref(),
            name: &self.name,
            lang: self.lang.as_deref(),
            value: &self.value,
        }
    }
}

impl Node for CitationElement {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        self.view().emit(e)
    }
}

/// A [`CitationElement`], borrowed: what is written, and what a formatted
/// citation is made of ([`formatted`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ElementView<'a> {
    pub(crate) layer: Option<&'a str>,
    pub(crate) name: &'a str,
    pub(crate) lang: Option<&'a str>,
    pub(crate) value: &'a str,
}

impl<'a> ElementView<'a> {
    /// An element with no layer and no language.
    pub(crate) fn new(name: &'a str, value: &'a str) -> Self {
        ElementView {
            layer: None,
            name,
            lang: None,
            value,
        }
    }
}

/// A citation's formatted value (GEDCOM X requires one): its elements'
/// values joined with commas (author, title, publication facts, call
/// number, where within the source, the date of the entry), but for the
/// short title and the repository's name, which only stand in when there
/// is nothing else; the source's id (`#S1`) when there are no elements.
pub(crate) fn formatted(elements: &[ElementView<'_>], id: &str) -> String {
    let main = || elements.iter().filter(|e| !aside(e.name));
    let Some(first) = main().next() else {
        return elements
            .first()
            .map_or_else(|| local(id), |e| e.value.to_string());
    };
    let len = main().map(|e| e.value.len() + 2).sum::<usize>();
    let mut value = String::with_capacity(len);
    value.push_str(first.value);
    for e in main().skip(1) {
        value.push_str(", ");
        value.push_str(e.value);
    }
    value
}

/// Whether [`formatted`] leaves out the element named `name`: a short
/// title, a repository's name.
pub(crate) fn aside(name: &str) -> bool {
    name.ends_with("/shortTitle") || name.ends_with("/NAME_OF_REPOSITORY")
}

/// [`formatted`] of owned elements.
pub(crate) fn formatted_owned(elements: &[CitationElement], id: &str) -> String {
    let views: SmallVec<[ElementView<'_>; 8]> =
        elements.iter().map(CitationElement::view).collect();
    formatted(&views, id)
}

impl Node for ElementView<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        // The seed's JSON example has `name`, `value`, `lang`; its XML one
        // has `xml:lang` before `name`.
        if e.is_xml() {
            e.attr(prop!("lang", "xml:lang"), self.lang)?;
        }
        e.attr(prop!("name", "name"), Some(self.name))?;
        e.attr(prop!("layer", "layer"), self.layer)?;
        e.text(prop!("value", "cev:value"), Some(self.value))?;
        if !e.is_xml() {
            e.attr(prop!("lang", "xml:lang"), self.lang)?;
        }
        Ok(())
    }
}

/// A `SourceCitation`: a formatted citation (`value`, required by GEDCOM X)
/// and, as seed 004 adds, the citation elements it is made of.
///
/// ```
/// use gedcom_elf::gedcomx::{CitationElement, SourceCitation, CEV};
///
/// let c = SourceCitation {
///     lang: None,
///     value: "Settipani, Les ancêtres de Charlemagne".into(),
///     elements: vec![CitationElement::new(format!("{CEV}authorName"), "Settipani, Christian")],
/// };
/// assert!(c.to_json().ends_with(r#""elements":[{"name":"http://terms.fhiso.org/sources/authorName","value":"Settipani, Christian"}]}"#));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceCitation {
    /// The language of the formatted citation (and the elements' default).
    pub lang: Option<String>,
    /// The formatted citation.
    pub value: String,
    /// The citation elements, in order.
    pub elements: Vec<CitationElement>,
}

impl SourceCitation {
    /// Its compact JSON serialisation (seed 004 §3.1).
    pub fn to_json(&self) -> String {
        super::to_json(self, false)
    }

    /// Its XML serialisation as a `<citation>` in the GEDCOM X namespace
    /// (seed 004 §3.2; the elements' values in `<cev:value>`).
    pub fn to_xml(&self) -> String {
        super::to_xml("citation", self, false)
    }
}

impl Node for SourceCitation {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_citation(e, self.lang.as_deref(), &self.value, &self.elements)
    }
}

/// A `SourceCitation`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_citation<E: Emit, N: Node>(
    e: &mut E,
    lang: Option<&str>,
    value: &str,
    elements: &[N],
) -> io::Result<()> {
    e.attr(prop!("lang", "xml:lang"), lang)?;
    e.text(&CITATION_VALUE, Some(value))?;
    e.list(&CITATION_ELEMENTS_OF, elements)
}

/// A `SourceCitation`'s formatted `value`.
pub(crate) const CITATION_VALUE: Prop = Prop::new("value", "value");

/// A `SourceCitation`'s `elements` (seed 004).
pub(crate) const CITATION_ELEMENTS_OF: Prop = Prop::new("elements", "cev:element");

/// A `Qualifier`: a name (URI) and an optional value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qualifier {
    /// The qualifier's name.
    pub name: Iri,
    /// Its value.
    pub value: Option<String>,
}

impl Qualifier {
    /// The qualifier `name` with `value`.
    pub fn new(name: impl Into<Iri>, value: Option<String>) -> Self {
        Qualifier {
            name: name.into(),
            value,
        }
    }
}

impl Node for Qualifier {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_qualifier(e, &self.name, self.value.as_deref())
    }
}

/// A `Qualifier`'s properties: this one and the export's borrowed one
/// ([`view`](super::view)) are written by this.
pub(crate) fn emit_qualifier<E: Emit>(
    e: &mut E,
    name: &str,
    value: Option<&str>,
) -> io::Result<()> {
    e.attr(prop!("name", "name"), Some(name))?;
    match value {
        Some(v) => e.content(prop!("value", ""), v),
        None => Ok(()),
    }
}

/// A `SourceReference`: a reference to a source description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceReference {
    /// The description referenced (`#id` for one in the same document).
    pub description: String,
    /// Qualifiers for the reference.
    pub qualifiers: Vec<Qualifier>,
}

impl Node for SourceReference {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_source_reference(e, &self.description, &self.qualifiers)
    }
}

/// A `SourceReference`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_source_reference<E: Emit>(
    e: &mut E,
    description: &str,
    qualifiers: &[Qualifier],
) -> io::Result<()> {
    e.attr(prop!("description", "description"), Some(description))?;
    e.list(prop!("qualifiers", "qualifier"), qualifiers)
}

/// A `Note`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Note {
    /// A subject or title.
    pub subject: Option<String>,
    /// The text.
    pub text: String,
}

impl Node for Note {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.text(prop!("subject", "subject"), self.subject.as_deref())?;
        e.text(prop!("text", "text"), Some(&self.text))
    }
}

/// A point in time as both formats write it: milliseconds since
/// 1970-01-01T00:00:00 (JSON) and an `xsd:dateTime` (XML).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// Milliseconds since the epoch.
    pub millis: i64,
    /// The same instant as `YYYY-MM-DDThh:mm:ss[.fff]`.
    pub date_time: String,
}

impl Timestamp {
    /// The instant `millis` milliseconds after 1970-01-01T00:00:00 UTC;
    /// `None` outside the years 0001-9999 (what `xsd:dateTime` writes
    /// here).
    pub fn from_millis(millis: i64) -> Option<Timestamp> {
        use crate::value::calendar::{gregorian_of_jdn, UNIX_EPOCH_JDN};
        let days = millis.div_euclid(86_400_000);
        let ms = millis.rem_euclid(86_400_000);
        let (y, m, d) = gregorian_of_jdn(days.checked_add(UNIX_EPOCH_JDN)?);
        if !(1..=9999).contains(&y) {
            return None;
        }
        // `YYYY-MM-DDThh:mm:ss[.sss]`, each field zero-padded, written
        // from its last digit.
        let (s, frac) = ((ms / 1000) as u32, (ms % 1000) as u32);
        let mut text = *b"0000-00-00T00:00:00.000";
        let fields = [
            (0..4, y as u32),
            (5..7, u32::from(m)),
            (8..10, u32::from(d)),
            (11..13, s / 3600),
            (14..16, s / 60 % 60),
            (17..19, s % 60),
            (20..23, frac),
        ];
        for (at, mut n) in fields {
            for digit in text[at].iter_mut().rev() {
                *digit = b'0' + (n % 10) as u8;
                n /= 10;
            }
        }
        let len = if frac == 0 { 19 } else { 23 };
        let date_time = String::from_utf8_lossy(&text[..len]).into_owned();
        Some(Timestamp { millis, date_time })
    }
}

/// An `Attribution`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attribution {
    /// Reference to the contributor (`#id` of an agent).
    pub contributor: Option<String>,
    /// When the data was last modified.
    pub modified: Option<Timestamp>,
    /// Why it was changed.
    pub change_message: Option<String>,
}

impl Attribution {
    /// `true` when it says nothing.
    pub fn is_empty(&self) -> bool {
        self.contributor.is_none() && self.modified.is_none() && self.change_message.is_none()
    }
}

impl Node for Attribution {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.reference(
            prop!("contributor", "contributor"),
            self.contributor.as_deref(),
        )?;
        if let Some(t) = &self.modified {
            e.timestamp(prop!("modified", "modified"), t.millis, &t.date_time)?;
        }
        e.text(
            prop!("changeMessage", "changeMessage"),
            self.change_message.as_deref(),
        )
    }
}

/// An attribution, written only when it says something.
fn attribution<E: Emit>(e: &mut E, a: &Attribution) -> io::Result<()> {
    e.child(
        prop!("attribution", "attribution"),
        (!a.is_empty()).then_some(a),
    )
}

/// A GEDCOM X `Date`: the original text and, when understood, the formal
/// date.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Date {
    /// The text as given.
    pub original: Option<String>,
    /// The GEDCOM X formal date.
    pub formal: Option<String>,
}

impl Node for Date {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_date(e, self.original.as_deref(), self.formal.as_deref())
    }
}

/// A `Date`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_date<E: Emit>(
    e: &mut E,
    original: Option<&str>,
    formal: Option<&str>,
) -> io::Result<()> {
    e.text(prop!("original", "original"), original)?;
    e.text(prop!("formal", "formal"), formal)
}

/// A `PlaceReference`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlaceReference {
    /// The place's text as given.
    pub original: Option<String>,
    /// A place description, if any.
    pub description: Option<String>,
}

impl Node for PlaceReference {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_place(e, self.description.as_deref(), self.original.as_deref())
    }
}

/// A `PlaceReference`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_place<E: Emit>(
    e: &mut E,
    description: Option<&str>,
    original: Option<&str>,
) -> io::Result<()> {
    e.attr(prop!("description", "description"), description)?;
    e.text(prop!("original", "original"), original)
}

/// A `Fact` (of a person or a relationship).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fact {
    /// The fact type (a URI; required).
    pub kind: Iri,
    /// Sources.
    pub sources: Vec<SourceReference>,
    /// Notes.
    pub notes: Vec<Note>,
    /// When.
    pub date: Option<Date>,
    /// Where.
    pub place: Option<PlaceReference>,
    /// The value.
    pub value: Option<String>,
    /// Qualifiers (`Age`, `Cause`, `Religion`).
    pub qualifiers: Vec<Qualifier>,
}

impl Node for Fact {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        let parts = FactParts {
            kind: &self.kind,
            sources: &self.sources,
            notes: &self.notes,
            date: self.date.as_ref(),
            place: self.place.as_ref(),
            value: self.value.as_deref(),
            qualifiers: &self.qualifiers,
        };
        parts.emit(e)
    }
}

/// A `Fact`'s properties, borrowed: this model's and the export's
/// borrowed one ([`view`](super::view)) are written by [`FactParts::emit`].
pub(crate) struct FactParts<'a, D, P, Q> {
    pub(crate) kind: &'a str,
    pub(crate) sources: &'a [SourceReference],
    pub(crate) notes: &'a [Note],
    pub(crate) date: Option<&'a D>,
    pub(crate) place: Option<&'a P>,
    pub(crate) value: Option<&'a str>,
    pub(crate) qualifiers: &'a [Q],
}

impl<D: Node, P: Node, Q: Node> FactParts<'_, D, P, Q> {
    /// Writes the fact's properties.
    pub(crate) fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("type", "type"), Some(self.kind))?;
        e.list(prop!("sources", "source"), self.sources)?;
        e.list(prop!("notes", "note"), self.notes)?;
        e.child(prop!("date", "date"), self.date)?;
        e.child(prop!("place", "place"), self.place)?;
        e.text(prop!("value", "value"), self.value)?;
        e.list(prop!("qualifiers", "qualifier"), self.qualifiers)
    }
}

/// A `NamePart`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamePart {
    /// Its type (`Prefix`, `Given`, `Surname`, `Suffix`).
    pub kind: Option<Iri>,
    /// The text.
    pub value: String,
    /// Qualifiers (`Particle`).
    pub qualifiers: Vec<Qualifier>,
}

impl Node for NamePart {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_name_part(e, self.kind.as_deref(), &self.value, &self.qualifiers)
    }
}

/// A `NamePart`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_name_part<E: Emit, Q: Node>(
    e: &mut E,
    kind: Option<&str>,
    value: &str,
    qualifiers: &[Q],
) -> io::Result<()> {
    e.attr(prop!("type", "type"), kind)?;
    e.attr(prop!("value", "value"), Some(value))?;
    e.list(prop!("qualifiers", "qualifier"), qualifiers)
}

/// A `NameForm`: one rendering of a name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameForm {
    /// The language of the form.
    pub lang: Option<String>,
    /// The whole name.
    pub full_text: Option<String>,
    /// Its parts.
    pub parts: Vec<NamePart>,
}

impl Node for NameForm {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_name_form(
            e,
            self.lang.as_deref(),
            self.full_text.as_deref(),
            &self.parts,
        )
    }
}

/// A `NameForm`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_name_form<E: Emit, P: Node>(
    e: &mut E,
    lang: Option<&str>,
    full_text: Option<&str>,
    parts: &[P],
) -> io::Result<()> {
    e.attr(prop!("lang", "xml:lang"), lang)?;
    e.text(prop!("fullText", "fullText"), full_text)?;
    e.list(prop!("parts", "part"), parts)
}

/// A `Name`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Name {
    /// The name type (`BirthName`, `Nickname`...).
    pub kind: Option<Iri>,
    /// Sources.
    pub sources: Vec<SourceReference>,
    /// Notes.
    pub notes: Vec<Note>,
    /// Its forms.
    pub name_forms: Vec<NameForm>,
}

impl Node for Name {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        emit_name(
            e,
            self.kind.as_deref(),
            &self.sources,
            &self.notes,
            &self.name_forms,
        )
    }
}

/// A `Name`'s properties (as [`emit_qualifier`]).
pub(crate) fn emit_name<E: Emit, F: Node>(
    e: &mut E,
    kind: Option<&str>,
    sources: &[SourceReference],
    notes: &[Note],
    forms: &[F],
) -> io::Result<()> {
    e.attr(prop!("type", "type"), kind)?;
    e.list(prop!("sources", "source"), sources)?;
    e.list(prop!("notes", "note"), notes)?;
    e.list(prop!("nameForms", "nameForm"), forms)
}

/// A `Gender`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gender {
    /// The gender type (`Male`, `Female`, `Unknown`, `Intersex`).
    pub kind: Iri,
}

impl Node for Gender {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("type", "type"), Some(&*self.kind))
    }
}

/// A `Person`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Person {
    /// The id (fragment identifier).
    pub id: String,
    /// Designated for limited distribution.
    pub private: bool,
    /// Who said so and when it changed.
    pub attribution: Attribution,
    /// Sources.
    pub sources: Vec<SourceReference>,
    /// Notes.
    pub notes: Vec<Note>,
    /// Media (source references to media descriptions).
    pub media: Vec<SourceReference>,
    /// Identifiers.
    pub identifiers: Vec<Identifier>,
    /// Gender.
    pub gender: Option<Gender>,
    /// Names.
    pub names: Vec<Name>,
    /// Facts.
    pub facts: Vec<Fact>,
}

impl Node for Person {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        self.emit_with(e, &self.id, &self.names, &self.facts)
    }
}

impl Person {
    /// Writes the person's properties with `id`, `names` and `facts` for
    /// its own (the export writes a person's id, names and facts borrowed
    /// from the tree, [`view`](super::view)).
    pub(crate) fn emit_with<E: Emit, N: Node, F: Node>(
        &self,
        e: &mut E,
        id: &str,
        names: &[N],
        facts: &[F],
    ) -> io::Result<()> {
        e.attr(prop!("id", "id"), Some(id))?;
        e.flag(prop!("private", "private"), self.private)?;
        attribution(e, &self.attribution)?;
        e.list(prop!("sources", "source"), &self.sources)?;
        e.list(prop!("notes", "note"), &self.notes)?;
        e.list(prop!("media", "media"), &self.media)?;
        e.identifiers(&self.identifiers)?;
        e.child(prop!("gender", "gender"), self.gender.as_ref())?;
        e.list(prop!("names", "name"), names)?;
        e.list(prop!("facts", "fact"), facts)
    }
}

/// A `Relationship`: a couple, or a parent and a child.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relationship {
    /// The id.
    pub id: String,
    /// `Couple` or `ParentChild` (URI).
    pub kind: Iri,
    /// Who said so and when it changed.
    pub attribution: Attribution,
    /// Sources.
    pub sources: Vec<SourceReference>,
    /// Notes.
    pub notes: Vec<Note>,
    /// Media.
    pub media: Vec<SourceReference>,
    /// Identifiers.
    pub identifiers: Vec<Identifier>,
    /// The first person (a partner, or the parent): `#id`.
    pub person1: String,
    /// The second person (a partner, or the child): `#id`.
    pub person2: String,
    /// Facts.
    pub facts: Vec<Fact>,
}

impl Node for Relationship {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        RelationshipParts {
            id: &self.id,
            kind: &self.kind,
            attribution: &self.attribution,
            sources: &self.sources,
            notes: &self.notes,
            media: &self.media,
            identifiers: &self.identifiers,
            person1: &self.person1,
            person2: &self.person2,
            facts: &self.facts,
        }
        .emit(e)
    }
}

/// A `Relationship`'s properties, borrowed (as [`FactParts`]).
pub(crate) struct RelationshipParts<'a, F> {
    pub(crate) id: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) attribution: &'a Attribution,
    pub(crate) sources: &'a [SourceReference],
    pub(crate) notes: &'a [Note],
    pub(crate) media: &'a [SourceReference],
    pub(crate) identifiers: &'a [Identifier],
    /// `#id`.
    pub(crate) person1: &'a str,
    /// `#id`.
    pub(crate) person2: &'a str,
    pub(crate) facts: &'a [F],
}

impl<F: Node> RelationshipParts<'_, F> {
    /// Writes the relationship's properties.
    pub(crate) fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("id", "id"), Some(self.id))?;
        e.attr(prop!("type", "type"), Some(self.kind))?;
        attribution(e, self.attribution)?;
        e.list(prop!("sources", "source"), self.sources)?;
        e.list(prop!("notes", "note"), self.notes)?;
        e.list(prop!("media", "media"), self.media)?;
        e.identifiers(self.identifiers)?;
        e.reference(prop!("person1", "person1"), Some(self.person1))?;
        e.reference(prop!("person2", "person2"), Some(self.person2))?;
        e.list(prop!("facts", "fact"), self.facts)
    }
}

/// A `TextValue`: text and its language.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextValue {
    /// The language.
    pub lang: Option<String>,
    /// The text.
    pub value: String,
}

impl TextValue {
    /// `value` with no language.
    pub fn new(value: impl Into<String>) -> Self {
        TextValue {
            lang: None,
            value: value.into(),
        }
    }
}

impl Node for TextValue {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("lang", "xml:lang"), self.lang.as_deref())?;
        e.content(prop!("value", ""), &self.value)
    }
}

/// A `Coverage`: where and when a source's records are about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Where.
    pub spatial: Option<PlaceReference>,
    /// When.
    pub temporal: Option<Date>,
}

impl Node for Coverage {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.child(prop!("spatial", "spatial"), self.spatial.as_ref())?;
        e.child(prop!("temporal", "temporal"), self.temporal.as_ref())
    }
}

/// A `SourceDescription`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceDescription {
    /// The id.
    pub id: String,
    /// The media type of a media file.
    pub media_type: Option<String>,
    /// The URI of what is described (a media file's path).
    pub about: Option<String>,
    /// The citations (at least one).
    pub citations: Vec<SourceCitation>,
    /// The source this one is a part of.
    pub component_of: Option<SourceReference>,
    /// Titles.
    pub titles: Vec<TextValue>,
    /// Notes.
    pub notes: Vec<Note>,
    /// Who said so and when it changed.
    pub attribution: Attribution,
    /// Coverage.
    pub coverage: Vec<Coverage>,
    /// Human-readable descriptions.
    pub descriptions: Vec<TextValue>,
    /// Identifiers.
    pub identifiers: Vec<Identifier>,
    /// The repository (`#id` of an agent).
    pub repository: Option<String>,
}

impl Node for SourceDescription {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        SourceParts {
            id: &self.id,
            media_type: self.media_type.as_deref(),
            about: self.about.as_deref(),
            citations: &self.citations,
            component_of: self.component_of.as_ref(),
            titles: &self.titles,
            notes: &self.notes,
            attribution: &self.attribution,
            coverage: &self.coverage,
            descriptions: &self.descriptions,
            identifiers: &self.identifiers,
            repository: self.repository.as_deref(),
        }
        .emit(e)
    }
}

/// A `SourceDescription`'s properties, borrowed (as [`FactParts`]).
pub(crate) struct SourceParts<'a, C, R> {
    pub(crate) id: &'a str,
    pub(crate) media_type: Option<&'a str>,
    pub(crate) about: Option<&'a str>,
    pub(crate) citations: &'a [C],
    pub(crate) component_of: Option<&'a R>,
    pub(crate) titles: &'a [TextValue],
    pub(crate) notes: &'a [Note],
    pub(crate) attribution: &'a Attribution,
    pub(crate) coverage: &'a [Coverage],
    pub(crate) descriptions: &'a [TextValue],
    pub(crate) identifiers: &'a [Identifier],
    pub(crate) repository: Option<&'a str>,
}

impl<C: Node, R: Node> SourceParts<'_, C, R> {
    /// Writes the description's properties.
    pub(crate) fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("id", "id"), Some(self.id))?;
        e.attr(prop!("mediaType", "mediaType"), self.media_type)?;
        e.attr(prop!("about", "about"), self.about)?;
        e.list(prop!("citations", "citation"), self.citations)?;
        e.child(prop!("componentOf", "componentOf"), self.component_of)?;
        e.list(prop!("titles", "title"), self.titles)?;
        e.list(prop!("notes", "note"), self.notes)?;
        attribution(e, self.attribution)?;
        e.list(prop!("coverage", "coverage"), self.coverage)?;
        e.list(prop!("descriptions", "description"), self.descriptions)?;
        e.identifiers(self.identifiers)?;
        e.reference(prop!("repository", "repository"), self.repository)
    }
}

/// An `Address`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Address {
    /// The whole address.
    pub value: Option<String>,
    /// City.
    pub city: Option<String>,
    /// Country.
    pub country: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// State or province.
    pub state_or_province: Option<String>,
    /// Street lines 1 to 3.
    pub street: [Option<String>; 3],
}

impl Node for Address {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.text(prop!("value", "value"), self.value.as_deref())?;
        e.text(prop!("city", "city"), self.city.as_deref())?;
        e.text(prop!("country", "country"), self.country.as_deref())?;
        e.text(
            prop!("postalCode", "postalCode"),
            self.postal_code.as_deref(),
        )?;
        let state = self.state_or_province.as_deref();
        e.text(prop!("stateOrProvince", "stateOrProvince"), state)?;
        let streets = [
            prop!("street", "street"),
            prop!("street2", "street2"),
            prop!("street3", "street3"),
        ];
        for (s, p) in self.street.iter().zip(streets) {
            e.text(p, s.as_deref())?;
        }
        Ok(())
    }
}

/// An `Agent`: a repository or a submitter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agent {
    /// The id.
    pub id: String,
    /// Identifiers.
    pub identifiers: Vec<Identifier>,
    /// Names.
    pub names: Vec<TextValue>,
    /// Homepage.
    pub homepage: Option<String>,
    /// `mailto:` URIs.
    pub emails: Vec<String>,
    /// `tel:` and `fax:` URIs.
    pub phones: Vec<String>,
    /// Addresses.
    pub addresses: Vec<Address>,
}

impl Node for Agent {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("id", "id"), Some(&self.id))?;
        e.identifiers(&self.identifiers)?;
        e.list(prop!("names", "name"), &self.names)?;
        e.reference(prop!("homepage", "homepage"), self.homepage.as_deref())?;
        e.references(prop!("emails", "email"), &self.emails)?;
        e.references(prop!("phones", "phone"), &self.phones)?;
        e.list(prop!("addresses", "address"), &self.addresses)
    }
}

/// A `Document`: a note record's text, or a source's transcription.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// The id.
    pub id: String,
    /// The document type (`Transcription`), if any.
    pub kind: Option<Iri>,
    /// Who said so and when it changed.
    pub attribution: Attribution,
    /// Sources (a transcription's source).
    pub sources: Vec<SourceReference>,
    /// Notes.
    pub notes: Vec<Note>,
    /// The text (plain).
    pub text: String,
}

impl Node for Document {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("id", "id"), Some(&self.id))?;
        e.attr(prop!("type", "type"), self.kind.as_deref())?;
        attribution(e, &self.attribution)?;
        e.list(prop!("sources", "source"), &self.sources)?;
        e.list(prop!("notes", "note"), &self.notes)?;
        e.text(prop!("text", "text"), Some(&self.text))
    }
}

/// A `PlaceDescription`: a place's name and coordinates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlaceDescription {
    /// The id.
    pub id: String,
    /// Names.
    pub names: Vec<TextValue>,
    /// Degrees north (negative: south).
    pub latitude: Option<f64>,
    /// Degrees east (negative: west).
    pub longitude: Option<f64>,
}

impl Node for PlaceDescription {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        e.attr(prop!("id", "id"), Some(&self.id))?;
        e.list(prop!("names", "name"), &self.names)?;
        e.number(prop!("latitude", "latitude"), self.latitude)?;
        e.number(prop!("longitude", "longitude"), self.longitude)
    }
}

/// A whole GEDCOM X document, as [`import`](super::import) reads it: the
/// sections in document order. (The export writes its documents record by
/// record and never holds one whole.)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gedcomx {
    /// The document's language.
    pub lang: Option<String>,
    /// Who made the document.
    pub attribution: Attribution,
    /// Persons.
    pub persons: Vec<Person>,
    /// Relationships.
    pub relationships: Vec<Relationship>,
    /// Source descriptions.
    pub source_descriptions: Vec<SourceDescription>,
    /// Agents.
    pub agents: Vec<Agent>,
    /// Documents.
    pub documents: Vec<Document>,
    /// Place descriptions.
    pub places: Vec<PlaceDescription>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_is_written_as_an_xsd_date_time_in_the_years_it_can_be() {
        // The instants as `date -u -d @SECONDS +%FT%T` gives them.
        let cases = [
            (0, Some("1970-01-01T00:00:00")),
            (-1, Some("1969-12-31T23:59:59.999")),
            (1_000_000_000_123, Some("2001-09-09T01:46:40.123")),
            (951_782_400_007, Some("2000-02-29T00:00:00.007")),
            (-62_135_596_800_000, Some("0001-01-01T00:00:00")),
            (253_402_300_799_999, Some("9999-12-31T23:59:59.999")),
            (-62_135_596_800_001, None),
            (253_402_300_800_000, None),
            (i64::MIN, None),
        ];
        for (millis, text) in cases {
            let t = Timestamp::from_millis(millis);
            assert_eq!(t.as_ref().map(|t| t.date_time.as_str()), text, "{millis}");
            assert!(t.is_none_or(|t| t.millis == millis));
        }
    }
}
