//! GEDCOM records to GEDCOM X items, one record at a time (the table is in
//! [the module docs](super)).
//!
//! [`Mapper::map_record`] reads one record's tree and gives the items it
//! becomes: a person, a source description and the descriptions of its
//! citations, an agent... Whatever it does not map is counted in
//! [`NotConverted`] with its path and lines, so nothing disappears
//! silently. What a record borrows from others (its children's
//! `FAMC.PEDI`, a cited source's elements, a repository's name) comes from
//! the input's [`Index`], gathered before; the only state kept from one
//! record to the next is that report, the pedigrees families took and the
//! ids of the places described, so groups of records map alike on any
//! thread.

use crate::escape::percent_encode;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

use super::gedx::extension_media_type;
use super::index::{repository_element, repository_row, Index};
use super::model::formatted_owned;
use super::model::{
    Address, Agent, Attribution, CitationElement, Coverage, Date, Document, Gender, Identifier,
    Iri, Note, Person, PlaceDescription, PlaceReference, Qualifier, Relationship, SourceCitation,
    SourceDescription, SourceReference, TextValue, Timestamp,
};
use super::table::{local, tag_keys, tag_row, value_cow, value_text, xref_id_of};
pub use super::table::{pedigree_fact, xref_id, CITATION_ELEMENTS, THROUGH_REPOSITORY};
use super::view::{
    CitationView, CoupleView, DateView, FactView, NameFormView, NameView, ParentChildView,
    PersonView, PlaceView, QualifierView,
};
use super::ELF;
#[cfg(test)]
use super::GX;
use crate::tree::NodeRef;
use crate::value::calendar::UNIX_EPOCH_JDN;
use crate::value::{Date as GedcomDate, Sex};
use smallvec::{smallvec, SmallVec};

/// One item of a document, as a record maps to it.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// The document's attribution (from the `HEAD`).
    Attribution(Attribution),
    /// The document's language (the `HEAD`'s `LANG`, as a language tag).
    Lang(String),
    /// A person (`INDI`).
    Person(Person),
    /// A relationship (from a `FAM`).
    Relationship(Relationship),
    /// A source description (`SOUR`, `OBJE`, a citation).
    SourceDescription(SourceDescription),
    /// An agent (`REPO`, `SUBM`).
    Agent(Agent),
    /// A document (`NOTE` record, a source's `TEXT`).
    Document(Document),
    /// A place with coordinates (a `PLAC` with a `MAP`), once per name and
    /// coordinates.
    Place(PlaceDescription),
}

/// Where a record's mapping puts its items as it makes them: a list of
/// owned ones ([`Mapper::map_record`]), or the export's sections, written
/// at once ([`Mapping::map`](super::Mapping::map)). The items most records
/// make (a person, a citation's description, a parent-child relationship)
/// come as views, borrowed from the tree and the index; a list owns them.
pub(crate) trait Items {
    /// An owned item.
    fn item(&mut self, item: Item);
    /// A person, which the items may take (the mapping reuses the
    /// buffers left in it).
    fn person(&mut self, person: &mut PersonView<'_>);
    /// The description of a citation.
    fn citation(&mut self, description: CitationView<'_>);
    /// A family's couple relationship.
    fn couple(&mut self, relationship: CoupleView<'_>);
    /// A family's parent-child relationship.
    fn parent_child(&mut self, relationship: ParentChildView<'_>);
}

impl Items for Vec<Item> {
    fn item(&mut self, item: Item) {
        self.push(item);
    }

    fn person(&mut self, person: &mut PersonView<'_>) {
        self.push(Item::Person(std::mem::take(person).into_person()));
    }

    fn citation(&mut self, description: CitationView<'_>) {
        self.push(Item::SourceDescription(
            description.into_source_description(),
        ));
    }

    fn couple(&mut self, relationship: CoupleView<'_>) {
        self.push(Item::Relationship(relationship.into_relationship()));
    }

    fn parent_child(&mut self, relationship: ParentChildView<'_>) {
        self.push(Item::Relationship(relationship.into_relationship()));
    }
}

/// Individual events and attributes: tag and GEDCOM X fact type.
pub(crate) const PERSON_FACTS: [(&str, &str); 34] = [
    ("BIRT", gx!("Birth")),
    ("CHR", gx!("Christening")),
    ("DEAT", gx!("Death")),
    ("BURI", gx!("Burial")),
    ("CREM", gx!("Cremation")),
    ("ADOP", gx!("Adoption")),
    ("BAPM", gx!("Baptism")),
    ("BARM", gx!("BarMitzvah")),
    ("BASM", gx!("BatMitzvah")),
    ("BLES", gx!("Blessing")),
    ("CHRA", gx!("AdultChristening")),
    ("CONF", gx!("Confirmation")),
    ("FCOM", gx!("FirstCommunion")),
    ("ORDN", gx!("Ordination")),
    ("NATU", gx!("Naturalization")),
    ("EMIG", gx!("Emigration")),
    ("IMMI", gx!("Immigration")),
    ("CENS", gx!("Census")),
    ("PROB", gx!("Probate")),
    ("WILL", gx!("Will")),
    ("GRAD", gx!("Graduation")),
    ("RETI", gx!("Retirement")),
    ("CAST", gx!("Caste")),
    ("DSCR", gx!("PhysicalDescription")),
    ("EDUC", gx!("Education")),
    ("IDNO", gx!("NationalId")),
    ("NATI", gx!("Nationality")),
    ("NCHI", gx!("NumberOfChildren")),
    ("NMR", gx!("NumberOfMarriages")),
    ("OCCU", gx!("Occupation")),
    ("PROP", gx!("Property")),
    ("RELI", gx!("Religion")),
    ("RESI", gx!("Residence")),
    ("SSN", gx!("NationalId")),
];

/// [`PERSON_FACTS`]' tags as numbers ([`tag_keys`]).
const PERSON_FACT_KEYS: [u64; 34] = tag_keys(&PERSON_FACTS);

/// Family events and attributes: tag and GEDCOM X couple fact type.
pub(crate) const COUPLE_FACTS: [(&str, &str); 9] = [
    ("ANUL", gx!("Annulment")),
    ("DIV", gx!("Divorce")),
    ("DIVF", gx!("DivorceFiling")),
    ("ENGA", gx!("Engagement")),
    ("MARB", gx!("MarriageBanns")),
    ("MARC", gx!("MarriageContract")),
    ("MARR", gx!("Marriage")),
    ("MARL", gx!("MarriageLicense")),
    ("NCHI", gx!("NumberOfChildren")),
];

/// [`COUPLE_FACTS`]' tags as numbers ([`tag_keys`]).
const COUPLE_FACT_KEYS: [u64; 9] = tag_keys(&COUPLE_FACTS);

/// The language tag of a 5.5.1 language name (any case, ELF's table:
/// [`crate::value::language_tag`]), or of a value that is a tag already
/// (letters and hyphens, at most 8 letters before the first hyphen).
pub fn language_tag(name: &str) -> Option<String> {
    let name = name.trim();
    let known = crate::value::language_tag(name).map(str::to_string);
    known.or_else(|| {
        let first = name.split('-').next().unwrap_or("");
        let tag_like = (2..=8).contains(&first.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && first.bytes().all(|b| b.is_ascii_lowercase());
        tag_like.then(|| name.to_string())
    })
}

/// The 5.5.1 language name of a language tag (ELF's table, any case of
/// the tag), if it has one: the reverse of [`language_tag`].
pub(crate) use crate::value::language_name;

/// Why a structure was not converted.
pub mod reason {
    /// No GEDCOM X property holds it in this mapping.
    pub const NO_EQUIVALENT: &str = "no GEDCOM X equivalent in this mapping";
    /// An extension tag (`_X`).
    pub const EXTENSION: &str = "extension tag";
    /// A pointer to a note record the index does not hold: missing, empty,
    /// or past [`Index::NOTE_BUDGET`](super::Index::NOTE_BUDGET).
    pub const NOTE_POINTER: &str =
        "pointer to a NOTE record that is missing, empty or past the index's budget";
    /// A value the mapping does not know.
    pub const UNKNOWN_VALUE: &str = "value not understood";
    /// A family fact with no couple to hold it.
    pub const NO_COUPLE: &str = "the family has fewer than two partners";
    /// A `FAMC.PEDI` whose family record is missing or does not list the
    /// individual as a child.
    pub const PEDIGREE: &str = "PEDI whose FAM record is missing or does not list the child";
    /// A second structure where GEDCOM X holds one.
    pub const SECOND: &str = "a second one: GEDCOM X holds one";
    /// A `HEAD` that is not the first record: the document had begun (a
    /// second `HEAD`, or one after the records of a headless input).
    pub const LATE_HEAD: &str = "HEAD after other records: the document had begun";
    /// A structure of the `HEAD` that describes the file (its encoding,
    /// the program that wrote it, its destination, date and name...).
    pub const FILE_METADATA: &str = "describes the GEDCOM file, not its data";
    /// A record with no xref_id where one is needed.
    pub const NO_XREF: &str = "record with no xref_id";
    /// A place whose description's id ([`place_id`](super::place_id)) is
    /// another place's: a 64-bit hash's collision, so rare that it is
    /// reported rather than worked around.
    pub const PLACE_ID: &str = "place description id already another place's";
}

/// What was not converted: per path of tags (`INDI.BIRT.FAMC`) and
/// reason (one of [`reason`]'s), how many and the first lines.
pub type NotConverted = crate::diag::NotCarried;

/// One path of [`NotConverted`].
pub type Skipped<'a> = crate::diag::NotCarriedEntry<'a>;

/// Maps records one at a time (see [the module docs](super)).
#[derive(Debug, Default)]
pub struct Mapper {
    report: NotConverted,
    /// What records borrow from others (pedigrees, source elements).
    index: Arc<Index>,
    /// The `FAMC.PEDI` facts taken by families: (family id, child id).
    used: Vec<(String, String)>,
    /// The places this mapper described (their ids, [`place_id`]).
    places: HashSet<String>,
    /// Keep extension structures as notes ([`Mapper::keep_extensions`]).
    keep: bool,
    /// Records mapped so far (only the first may be the `HEAD`).
    records: u64,
    /// Buffers each record's mapping leaves for the next.
    spare: Spare,
}

/// Buffers a record's mapping empties and the next one reuses (a person's
/// names and facts), so that a group of records allocates them once rather
/// than once a record. Held empty, with no lifetime of their own.
#[derive(Debug, Default)]
struct Spare {
    names: Vec<NameView<'static>>,
    facts: Vec<FactView<'static>>,
}

/// `v` emptied, as a vector of another type of the same size and
/// alignment (the same type of another lifetime): its allocation is kept
/// (collected in place), not freed.
fn reuse<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// The id of the description of a place with coordinates: `~P` and 16
/// hexadecimal digits of a 64-bit FNV-1a hash of its name and coordinates.
/// Made from what it describes, it is the same whatever record names the
/// place first, and in whatever order or on whatever thread records are
/// mapped; `~P` begins no record's id (`~` begins only `~XX` hex escapes
/// and `~L`) and no derived one.
pub fn place_id(name: &str, latitude: f64, longitude: f64) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = name
        .bytes()
        .chain([0xff])
        .chain(latitude.to_bits().to_le_bytes())
        .chain(longitude.to_bits().to_le_bytes());
    for b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("~P{hash:016x}")
}

/// A record's id: its xref's ([`xref_id`]), or `~L` and its line when it has
/// none (which no xref's id can be).
fn record_id(record: NodeRef<'_>) -> Cow<'_, str> {
    match record.xref() {
        Some(x) => xref_id_of(x.into_bytes()),
        None => Cow::Owned(format!("~L{}", record.line())),
    }
}

/// The id a pointer payload points to ([`xref_id`]), borrowed from the
/// tree when it can be.
fn pointer_id(node: NodeRef<'_>) -> Option<Cow<'_, str>> {
    node.pointer().map(|p| xref_id_of(p.into_bytes()))
}

/// The payload's text, if it has some that is not empty.
fn text(node: NodeRef<'_>) -> Option<String> {
    value_text(node.text())
}

/// The fact type of an `EVEN`, `FACT` (or unknown event) with `TYPE`: a
/// `data:` URI holding the type's text (the tag's, when no `TYPE`).
fn data_uri(kind: &str) -> String {
    format!("data:,{}", percent_encode(kind))
}

/// A GEDCOM X `Date` from a `DATE` node: the payload verbatim, and the
/// formal date when the payload is understood.
pub fn date(node: NodeRef<'_>) -> Date {
    DateView::of(node).into_date()
}

/// `hh:mm[:ss[.fff]]` as milliseconds since midnight.
fn time_millis(t: &str) -> Option<i64> {
    let (hms, fraction) = match t.trim().split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (t.trim(), None),
    };
    let mut parts = hms.split(':');
    let mut field = |max: i64| -> Option<Option<i64>> {
        match parts.next() {
            None => Some(None),
            Some(p) if (1..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) => {
                let n: i64 = p.parse().ok()?;
                (n <= max).then_some(Some(n))
            }
            Some(_) => None,
        }
    };
    let h = field(23)??;
    let m = field(59)??;
    let s = field(59)?.unwrap_or(0);
    if parts.next().is_some() {
        return None;
    }
    let ms = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            digits.parse().ok()?
        }
        Some(_) => return None,
    };
    Some(((h * 60 + m) * 60 + s) * 1000 + ms)
}

/// A `CHAN`'s `DATE` (and `TIME`) as a timestamp: a Gregorian day, read as
/// UTC (GEDCOM gives no zone). `None` when it is not one day, or not in
/// the years 0001 to 9999.
pub fn timestamp(date_node: NodeRef<'_>) -> Option<Timestamp> {
    let parsed = date_node.date()?.ok()?;
    let GedcomDate::Exact(day) = &parsed else {
        return None;
    };
    // One day (a whole proleptic Gregorian one), in the years 0001-9999.
    let (first, last) = day.jdn_range()?;
    if first != last {
        return None;
    }
    let time = match date_node.child("TIME") {
        Some(t) => time_millis(&t.text()?)?,
        None => 0,
    };
    let millis = (first - UNIX_EPOCH_JDN) * 86_400_000 + time;
    Timestamp::from_millis(millis)
}

/// A citation's substructure as a qualifier of its reference, named by
/// its structure type IRI (ELF's, or one made of its tag).
fn qualifier(n: NodeRef<'_>) -> Qualifier {
    let name = n.structure_type().map(|t| t.iri().into_owned());
    let name = name.unwrap_or_else(|| format!("{ELF}{}", n.tag()));
    Qualifier::new(name, text(n))
}

/// The tags from the record down to `node`, joined with `.`.
fn path_of(node: NodeRef<'_>) -> String {
    let mut tags = vec![node.tag()];
    let mut at = node;
    while let Some(p) = at.parent() {
        tags.push(p.tag());
        at = p;
    }
    tags.reverse();
    tags.join(".")
}

/// The state of one record's mapping.
struct Ctx<'m> {
    report: &'m mut NotConverted,
    /// Keep extension structures as notes.
    keep: bool,
    /// The extension structures kept so far, as notes for the record's
    /// item, with their lines.
    kept: Vec<(Note, u64)>,
    places: &'m mut HashSet<String>,
    spare: &'m mut Spare,
    index: &'m Index,
    items: &'m mut dyn Items,
    /// The record's id, which derived ids start with (borrowed from the
    /// tree when it can be: most xrefs are their ids).
    owner: Cow<'m, str>,
    /// Derived descriptions so far: citations, media, transcriptions,
    /// places.
    cites: u32,
    media: u32,
    texts: u32,
}

impl Ctx<'_> {
    /// Counts `node` (with its substructures) as not converted.
    fn skip(&mut self, node: NodeRef<'_>, reason: &'static str) {
        self.report.add(path_of(node), reason, node.line());
    }

    /// Counts `node` as not converted, for the usual reason of its tag; an
    /// extension structure is kept as a note instead with
    /// [`Mapper::keep_extensions`].
    fn other(&mut self, node: NodeRef<'_>) {
        if !node.tag().starts_with('_') {
            return self.skip(node, reason::NO_EQUIVALENT);
        }
        if self.keep {
            let note = Note {
                subject: Some(path_of(node)),
                text: gedcom_lines(node),
            };
            self.kept.push((note, node.line()));
            return;
        }
        self.skip(node, reason::EXTENSION);
    }

    /// Gives the extension structures kept so far to `notes`, the record's
    /// own item's (what is kept after is counted as not converted).
    fn keep_into(&mut self, notes: &mut Vec<Note>) {
        notes.extend(self.kept.drain(..).map(|(note, _)| note));
    }

    /// Counts the substructures of `node` not in `handled`.
    fn rest(&mut self, node: NodeRef<'_>, handled: &[&str]) {
        for c in node.children() {
            if !handled.contains(&c.tag()) {
                self.other(c);
            }
        }
    }

    /// A `NOTE`: its text as a note; a pointer, the record's text (through
    /// the index), or counted when the index does not hold it.
    fn note(&mut self, node: NodeRef<'_>) -> Option<Note> {
        if let Some(id) = pointer_id(node) {
            // The record's text, through the index.
            let Some(text) = self.index.note(&id) else {
                self.skip(node, reason::NOTE_POINTER);
                return None;
            };
            self.rest(node, &[]);
            return Some(Note {
                subject: None,
                text: text.to_string(),
            });
        }
        self.rest(node, &[]);
        // An empty note says nothing (and GEDCOM X requires the text).
        Some(Note {
            subject: None,
            text: text(node)?,
        })
    }

    /// An identifier from `REFN`, `RIN`, `AFN`, `RFN` or `_UID`: typed by
    /// the structure's ELF type IRI; untyped for an extension tag.
    fn identifier(&mut self, node: NodeRef<'_>) -> Option<Identifier> {
        self.rest(node, &[]);
        let typed = !node.tag().starts_with('_');
        Some(Identifier {
            kind: typed
                .then(|| node.structure_type().map(|t| t.iri().into_owned()))
                .flatten(),
            value: text(node)?,
        })
    }

    /// A `CHAN`: the date as `modified`, a note as the change message.
    fn change(&mut self, node: NodeRef<'_>, into: &mut Attribution) {
        for c in node.children() {
            match c.tag() {
                "DATE" => match timestamp(c) {
                    Some(t) => {
                        into.modified = Some(t);
                        self.rest(c, &["TIME"]);
                    }
                    None => self.skip(c, reason::UNKNOWN_VALUE),
                },
                "NOTE" if c.pointer().is_none() && into.change_message.is_none() => {
                    into.change_message = text(c);
                    self.rest(c, &[]);
                }
                _ => self.other(c),
            }
        }
    }

    /// A fresh id for a description derived from this record (`I1.s1`).
    fn derived(&mut self, kind: char) -> String {
        self.derived_after("", kind)
    }

    /// [`Ctx::derived`] as a local reference (`#I1.s1`): one string for the
    /// reference and, after its `#`, the id.
    fn derived_local(&mut self, kind: char) -> String {
        self.derived_after("#", kind)
    }

    /// A fresh derived id after `prefix`, made at its length (`format!`
    /// would grow it on the way).
    fn derived_after(&mut self, prefix: &str, kind: char) -> String {
        let n = match kind {
            's' => &mut self.cites,
            'm' => &mut self.media,
            _ => &mut self.texts,
        };
        *n += 1;
        // `.`, the kind and up to ten digits (a `u32`).
        let mut id = String::with_capacity(prefix.len() + self.owner.len() + 12);
        id.push_str(prefix);
        id.push_str(&self.owner);
        id.push('.');
        id.push(kind);
        let _ = write!(id, "{n}");
        id
    }

    /// A transcription (`TEXT`) of the description `of`.
    fn transcription(&mut self, node: NodeRef<'_>, of: &str) {
        self.rest(node, &[]);
        // An empty text says nothing (and GEDCOM X requires the text).
        if text(node).is_none() {
            return;
        }
        let id = self.derived('t');
        self.items.item(Item::Document(Document {
            id,
            kind: Some(Iri::Borrowed(gx!("Transcription"))),
            sources: vec![SourceReference {
                description: local(of),
                qualifiers: Vec::new(),
            }],
            text: node.text().map(Cow::into_owned).unwrap_or_default(),
            ..Document::default()
        }));
    }

    /// A citation's `QUAY`, or its `EVEN` with the `ROLE` under it, as
    /// qualifiers of `reference`; `false` (nothing done) for any other
    /// structure.
    fn reference_qualifier(&mut self, c: NodeRef<'_>, reference: &mut SourceReference) -> bool {
        match c.tag() {
            "QUAY" => reference.qualifiers.push(qualifier(c)),
            "EVEN" => {
                reference.qualifiers.push(qualifier(c));
                for r in c.children() {
                    match r.tag() {
                        "ROLE" => reference.qualifiers.push(qualifier(r)),
                        _ => self.other(r),
                    }
                }
            }
            _ => return false,
        }
        true
    }

    /// A source citation (`SOUR` under anything but the record itself).
    fn citation(&mut self, node: NodeRef<'_>) -> Option<SourceReference> {
        let mut reference = SourceReference::default();
        let Some(target) = pointer_id(node) else {
            // A text citation: a description of its own.
            let id = self.derived('s');
            let mut sd = SourceDescription {
                id: id.clone(),
                citations: vec![SourceCitation {
                    value: text(node).unwrap_or_else(|| local(&id)),
                    ..SourceCitation::default()
                }],
                ..SourceDescription::default()
            };
            for c in node.children() {
                match c.tag() {
                    "TEXT" => self.transcription(c, &id),
                    "NOTE" => sd.notes.extend(self.note(c)),
                    "QUAY" => reference.qualifiers.push(qualifier(c)),
                    _ => self.other(c),
                }
            }
            self.items.item(Item::SourceDescription(sd));
            reference.description = local(&id);
            return Some(reference);
        };
        let own = node
            .children()
            .any(|c| matches!(c.tag(), "PAGE" | "DATA" | "NOTE"));
        if !own {
            reference.description = local(&target);
            for c in node.children() {
                if !self.reference_qualifier(c, &mut reference) {
                    self.other(c);
                }
            }
            return Some(reference);
        }
        // A description of its own, a component of the record's: the
        // record's elements, then the citation's own (the table's later
        // rows).
        let local_id = self.derived_local('s');
        let id = &local_id[1..];
        let mut notes = Vec::new();
        for c in node.children() {
            match c.tag() {
                "PAGE" => {}
                "DATA" => {
                    for d in c.children() {
                        match d.tag() {
                            "DATE" => {}
                            "TEXT" => self.transcription(d, id),
                            _ => self.other(d),
                        }
                    }
                }
                "NOTE" => notes.extend(self.note(c)),
                _ if self.reference_qualifier(c, &mut reference) => {}
                _ => self.other(c),
            }
        }
        let mut own = SmallVec::new();
        let all = 0..CITATION_ELEMENTS.len();
        elements_of(node, all, |name, v| own.push((name, v)), self);
        let (ordinal, record) = self.index.source(&target).unwrap_or_default();
        self.items.citation(CitationView {
            id: Cow::Borrowed(id),
            record,
            ordinal,
            source: target,
            notes,
            own,
        });
        reference.description = local_id;
        Some(reference)
    }

    /// A multimedia link (`OBJE`): a pointer as it is, an inline one as a
    /// description of its own.
    fn media(&mut self, node: NodeRef<'_>) -> Option<SourceReference> {
        let description = match pointer_id(node) {
            Some(target) => {
                self.rest(node, &[]);
                target
            }
            None => {
                let id = self.derived('m');
                let sd = self.media_description(node, id.clone());
                self.items.item(Item::SourceDescription(sd));
                Cow::Owned(id)
            }
        };
        Some(SourceReference {
            description: local(&description),
            qualifiers: Vec::new(),
        })
    }

    /// A description of a multimedia record or inline `OBJE`: the first
    /// `FILE` as `about`, its `FORM` as the media type, `TITL` as title and
    /// citation.
    fn media_description(&mut self, node: NodeRef<'_>, id: String) -> SourceDescription {
        let mut sd = SourceDescription {
            id,
            ..SourceDescription::default()
        };
        let form_of = |f: NodeRef<'_>, sd: &mut SourceDescription, cx: &mut Self| {
            let form = text(f).unwrap_or_default();
            let form = form.trim().trim_start_matches('.').to_ascii_lowercase();
            match extension_media_type(&form) {
                Some(t) if sd.media_type.is_none() => sd.media_type = Some(t.into()),
                _ => cx.skip(f, reason::UNKNOWN_VALUE),
            }
            cx.rest(f, &[]);
        };
        let title = |t: NodeRef<'_>, sd: &mut SourceDescription| {
            if let Some(v) = text(t) {
                sd.titles.push(TextValue::new(v));
            }
        };
        for c in node.children() {
            match c.tag() {
                "FILE" if sd.about.is_none() => {
                    sd.about = text(c).map(|f| uri_reference(&f));
                    for f in c.children() {
                        match f.tag() {
                            "FORM" => form_of(f, &mut sd, self),
                            "TITL" => title(f, &mut sd),
                            _ => self.other(f),
                        }
                    }
                }
                "FILE" => self.skip(c, reason::SECOND),
                "FORM" => form_of(c, &mut sd, self),
                "TITL" => title(c, &mut sd),
                "NOTE" => sd.notes.extend(self.note(c)),
                "REFN" | "RIN" | "_UID" => sd.identifiers.extend(self.identifier(c)),
                "CHAN" => self.change(c, &mut sd.attribution),
                _ => self.other(c),
            }
        }
        let value = sd
            .titles
            .first()
            .map(|t| t.value.clone())
            .or_else(|| sd.about.clone())
            .unwrap_or_else(|| local(&sd.id));
        sd.citations.push(SourceCitation {
            value,
            ..SourceCitation::default()
        });
        sd
    }

    /// A fact from an event or attribute structure, its texts borrowed from
    /// the tree ([`FactView::into_fact`] owns them).
    fn fact<'t>(&mut self, node: NodeRef<'t>, kind: Option<&'static str>) -> FactView<'t> {
        let generic = kind.is_none();
        let mut fact = FactView {
            kind: kind.map(Iri::Borrowed).unwrap_or_default(),
            ..FactView::default()
        };
        fact.value = value_cow(node.text()).filter(|t| t.trim() != "Y");
        let mut typed = None;
        for c in node.children() {
            let tag = c.tag();
            match tag {
                "TYPE" if generic && typed.is_none() => {
                    typed = text(c);
                    self.rest(c, &[]);
                }
                "DATE" => {
                    if fact.date.is_some() {
                        self.skip(c, reason::SECOND);
                        continue;
                    }
                    fact.date = Some(DateView::of(c));
                    self.rest(c, &[]);
                }
                "PLAC" => {
                    if fact.place.is_some() {
                        self.skip(c, reason::SECOND);
                        continue;
                    }
                    fact.place = Some(PlaceView {
                        original: c.text(),
                        description: self.place(c),
                    });
                    self.rest(c, &["MAP"]);
                }
                "AGE" | "CAUS" | "RELI" => fact.qualifiers.push(QualifierView {
                    name: match tag {
                        "AGE" => gx!("Age"),
                        "CAUS" => gx!("Cause"),
                        _ => gx!("Religion"),
                    },
                    value: value_cow(c.text()),
                }),
                "SOUR" => fact.sources.extend(self.citation(c)),
                "NOTE" => fact.notes.extend(self.note(c)),
                _ => self.other(c),
            }
            if matches!(tag, "AGE" | "CAUS" | "RELI") {
                self.rest(c, &[]);
            }
        }
        if generic {
            fact.kind = data_uri(typed.as_deref().unwrap_or(node.tag())).into();
        }
        fact
    }

    /// The description of a `PLAC` with a `MAP` (`#id`): made the first
    /// time its name and coordinates are met, referenced after.
    fn place(&mut self, plac: NodeRef<'_>) -> Option<String> {
        let map = plac.child("MAP")?;
        self.rest(map, &["LATI", "LONG"]);
        let c = match plac.coordinates()? {
            Ok(c) => c,
            Err(_) => {
                self.skip(map, reason::UNKNOWN_VALUE);
                return None;
            }
        };
        // GEDCOM X requires a place description's name.
        let Some(name) = text(plac) else {
            self.skip(map, reason::NO_EQUIVALENT);
            return None;
        };
        let id = place_id(&name, c.latitude, c.longitude);
        if self.places.insert(id.clone()) {
            self.items.item(Item::Place(PlaceDescription {
                id: id.clone(),
                names: vec![TextValue::new(name)],
                latitude: Some(c.latitude),
                longitude: Some(c.longitude),
            }));
        }
        Some(local(&id))
    }

    /// A `NAME`: a name, and a nickname name per `NICK`.
    fn names<'t>(&mut self, node: NodeRef<'t>, into: &mut Vec<NameView<'t>>) {
        let mut name = NameView {
            forms: smallvec![NameFormView::Of(node)],
            ..NameView::default()
        };
        let mut nicknames = Vec::new();
        for c in node.children() {
            match c.tag() {
                "NPFX" | "GIVN" | "SPFX" | "SURN" | "NSFX" => self.rest(c, &[]),
                "NICK" => {
                    self.rest(c, &[]);
                    if let Some(n) = value_cow(c.text()) {
                        nicknames.push(NameView {
                            kind: Some(Iri::Borrowed(gx!("Nickname"))),
                            forms: smallvec![NameFormView::Text(n)],
                            ..NameView::default()
                        });
                    }
                }
                "TYPE" => {
                    let kind = match text(c)
                        .unwrap_or_default()
                        .trim()
                        .to_ascii_lowercase()
                        .as_str()
                    {
                        "birth" | "maiden" => Some(gx!("BirthName")),
                        "married" => Some(gx!("MarriedName")),
                        "aka" => Some(gx!("AlsoKnownAs")),
                        _ => None,
                    };
                    match kind {
                        Some(k) if name.kind.is_none() => name.kind = Some(Iri::Borrowed(k)),
                        _ => self.skip(c, reason::UNKNOWN_VALUE),
                    }
                    self.rest(c, &[]);
                }
                "FONE" | "ROMN" => {
                    name.forms.push(NameFormView::Of(c));
                    self.rest(c, &["NPFX", "GIVN", "NICK", "SPFX", "SURN", "NSFX"]);
                    for n in c.children_with_tag("NICK") {
                        self.skip(n, reason::NO_EQUIVALENT);
                    }
                }
                "SOUR" => name.sources.extend(self.citation(c)),
                "NOTE" => name.notes.extend(self.note(c)),
                _ => self.other(c),
            }
        }
        into.push(name);
        into.extend(nicknames);
    }
}

/// A structure and its substructures as GEDCOM lines, levels counted from
/// 0 (a payload's further lines as `CONT` lines).
fn gedcom_lines(node: NodeRef<'_>) -> String {
    let mut out = String::new();
    let base = node.level();
    for n in std::iter::once(node).chain(node.descendants()) {
        let level = n.level() - base;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{level} {}", n.tag()));
        if let Some(p) = n.pointer() {
            out.push_str(&format!(" {}", p.to_str_lossy()));
        }
        if let Some(t) = n.text() {
            let mut lines = t.split('\n');
            if let Some(first) = lines.next() {
                out.push(' ');
                out.push_str(first);
            }
            for more in lines {
                out.push_str(&format!("\n{} CONT {more}", level + 1));
            }
        }
    }
    out
}

/// The citation elements [`CITATION_ELEMENTS`] names under `node` (a
/// `SOUR` record or citation), in the table's order, each structure's
/// payload as the value, given to `into` (name, value).
fn elements_of<'t>(
    node: NodeRef<'t>,
    rows: std::ops::Range<usize>,
    mut into: impl FnMut(&'static str, Cow<'t, str>),
    cx: &mut Ctx<'_>,
) {
    // Rows of one tag or two (`REPO.CALN`): the children, and the
    // children's children, met once each, in the table's order.
    let mut found: SmallVec<[(usize, NodeRef<'t>); 4]> = SmallVec::new();
    for c in node.children() {
        for (row, (path, _)) in CITATION_ELEMENTS.iter().enumerate() {
            if !rows.contains(&row) {
                continue;
            }
            match path.split_once('.') {
                None if *path == c.tag() => found.push((row, c)),
                Some((first, second)) if first == c.tag() => {
                    found.extend(c.children().filter(|g| g.tag() == second).map(|g| (row, g)));
                }
                _ => {}
            }
        }
    }
    found.sort_by_key(|(row, _)| *row);
    for (row, n) in found {
        let (_, name) = CITATION_ELEMENTS[row];
        if let Some(v) = value_cow(n.text()) {
            into(name, v);
        }
        // Their substructures are not elements (a CALN's MEDI).
        cx.rest(n, &[]);
    }
}

/// A file path or URL as a URI reference: spaces and other bytes a URI
/// cannot hold percent-encoded, backslashes made slashes.
fn uri_reference(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.trim().bytes() {
        match b {
            b'\\' => out.push('/'),
            b if b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=%".contains(&b) => {
                out.push(char::from(b))
            }
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A phone number as a `tel:` (or `fax:`) URI: white space removed, every
/// byte but letters, digits and RFC 3966's `+ - . ( )` percent-encoded.
fn phone_uri(scheme: &str, number: &str) -> String {
    let mut out = format!("{scheme}:");
    for b in number.bytes().filter(|b| !b.is_ascii_whitespace()) {
        if b.is_ascii_alphanumeric() || b"+-.()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Mapper {
    /// A mapper with nothing mapped yet, borrowing from other records
    /// through `index` (see [`Index`]: without the input's index, families
    /// carry no `FAMC.PEDI` facts and citations no record elements).
    pub fn new(index: Arc<Index>) -> Self {
        Mapper {
            index,
            ..Mapper::default()
        }
    }

    /// A mapper for records after the first: a `HEAD` among them is
    /// counted as late ([`reason::LATE_HEAD`]) rather than mapped.
    pub fn after_first(mut self) -> Self {
        self.records = self.records.max(1);
        self
    }

    /// With `keep`, an extension structure (a tag starting with `_`) under
    /// a record that becomes a person, a relationship, a source description
    /// or a document is kept as a note of that item (its path as the
    /// subject, its GEDCOM lines as the text) rather than counted as not
    /// converted. Under any other record, and as a record itself, it is
    /// still counted.
    pub fn keep_extensions(mut self, keep: bool) -> Self {
        self.keep = keep;
        self
    }

    /// What was not converted so far.
    pub fn not_converted(&self) -> &NotConverted {
        &self.report
    }

    /// Takes the `FAMC.PEDI` facts families used so far: (family id,
    /// child id).
    pub fn take_used(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.used)
    }

    /// Maps one record, appending its items to `items`.
    pub fn map_record(&mut self, record: NodeRef<'_>, items: &mut Vec<Item>) {
        self.map_into(record, items);
    }

    /// Maps one record, giving its items to `items` as they are made (the
    /// export writes them at once: [`Mapping::map`](super::Mapping::map)).
    pub(crate) fn map_into(&mut self, record: NodeRef<'_>, items: &mut dyn Items) {
        let first = self.records == 0;
        self.records += 1;
        let mut cx = Ctx {
            keep: self.keep,
            kept: Vec::new(),
            report: &mut self.report,
            places: &mut self.places,
            spare: &mut self.spare,
            index: &self.index,
            items,
            owner: record_id(record),
            cites: 0,
            media: 0,
            texts: 0,
        };
        let needs_xref = !matches!(record.tag(), "HEAD" | "TRLR");
        if needs_xref && record.xref().is_none() {
            cx.skip(record, reason::NO_XREF);
            return;
        }
        match record.tag() {
            "HEAD" if !first => cx.skip(record, reason::LATE_HEAD),
            "HEAD" => head(&mut cx, record),
            "TRLR" => cx.rest(record, &[]),
            "INDI" => person(&mut cx, record),
            "FAM" => family(&mut cx, record, &mut self.used),
            "SOUR" => source(&mut cx, record),
            "REPO" | "SUBM" => agent(&mut cx, record),
            "OBJE" => {
                let id = cx.owner.to_string();
                let mut sd = cx.media_description(record, id);
                cx.keep_into(&mut sd.notes);
                cx.items.item(Item::SourceDescription(sd));
            }
            "NOTE" => note_record(&mut cx, record),
            // An extension record, or one GEDCOM X has no place for (SUBN).
            tag => {
                let reason = match tag.starts_with('_') {
                    true => reason::EXTENSION,
                    false => reason::NO_EQUIVALENT,
                };
                cx.skip(record, reason);
            }
        }
        // The extensions kept that no item of the record's own took (its
        // item has no notes, or it made none).
        for (note, line) in std::mem::take(&mut cx.kept) {
            let path = note.subject.unwrap_or_default();
            cx.report.add(path, reason::EXTENSION, line);
        }
    }

    /// Ends the mapping of these records: what was not converted. (The
    /// `FAMC.PEDI` facts no family took are counted by whoever saw every
    /// record: [`Export::finish`](super::Export::finish).)
    pub fn finish(self) -> NotConverted {
        self.report
    }
}

/// The `HEAD`: its `SUBM` is the document's contributor; the rest describes
/// the file, not the data, and is counted.
fn head(cx: &mut Ctx<'_>, record: NodeRef<'_>) {
    let mut attribution = Attribution::default();
    for c in record.children() {
        match (c.tag(), pointer_id(c)) {
            ("SUBM", Some(id)) if attribution.contributor.is_none() => {
                attribution.contributor = Some(local(&id));
                cx.rest(c, &[]);
            }
            ("LANG", None) => match text(c).as_deref().and_then(language_tag) {
                Some(tag) => {
                    cx.items.item(Item::Lang(tag));
                    cx.rest(c, &[]);
                }
                None => cx.skip(c, reason::UNKNOWN_VALUE),
            },
            _ if c.tag().starts_with('_') => cx.other(c),
            _ => cx.skip(c, reason::FILE_METADATA),
        }
    }
    cx.items.item(Item::Attribution(attribution));
}

/// An `INDI`: the person, its names and facts borrowed from the tree. (Its
/// `FAMC.PEDI`s are its families' to map, through the [`Index`].)
fn person(cx: &mut Ctx<'_>, record: NodeRef<'_>) {
    let mut view = PersonView {
        id: cx.owner.clone(),
        person: Person::default(),
        names: reuse(std::mem::take(&mut cx.spare.names)),
        facts: reuse(std::mem::take(&mut cx.spare.facts)),
    };
    let (p, facts) = (&mut view.person, &mut view.facts);
    for c in record.children() {
        let tag = c.tag();
        // The tags most individuals have are not looked for in the facts'
        // table.
        let fact = match tag {
            "NAME" | "SEX" | "FAMC" | "FAMS" | "SOUR" | "NOTE" | "CHAN" => None,
            _ => tag_row(&PERSON_FACT_KEYS, tag).map(|i| &PERSON_FACTS[i]),
        };
        if let Some((_, kind)) = fact {
            facts.push(cx.fact(c, Some(kind)));
            continue;
        }
        match tag {
            "NAME" => cx.names(c, &mut view.names),
            "SEX" => match (c.sex(), &p.gender) {
                (Some(Ok(sex)), None) => {
                    let kind = match sex {
                        Sex::Male => gx!("Male"),
                        Sex::Female => gx!("Female"),
                        Sex::X => gx!("Intersex"),
                        Sex::Unknown => gx!("Unknown"),
                    };
                    p.gender = Some(Gender {
                        kind: Iri::Borrowed(kind),
                    });
                    cx.rest(c, &[]);
                }
                (Some(Ok(_)), Some(_)) => cx.skip(c, reason::SECOND),
                _ => cx.skip(c, reason::UNKNOWN_VALUE),
            },
            "EVEN" | "FACT" => facts.push(cx.fact(c, None)),
            "RESN" => {
                let words = text(c).unwrap_or_default().to_ascii_lowercase();
                if words.contains("privacy") || words.contains("confidential") {
                    p.private = true;
                }
                if words.contains("locked") {
                    cx.skip(c, reason::NO_EQUIVALENT);
                }
                cx.rest(c, &[]);
            }
            "FAMC" => {
                // The link itself is the family's CHIL, and the family
                // takes its PEDI from the index.
                for f in c.children() {
                    match (f.tag(), f.pedigree().map(|p| p.map(pedigree_fact))) {
                        ("PEDI", Some(Ok(Some(_)))) if c.pointer().is_some() => {}
                        ("PEDI", Some(Ok(None))) => cx.skip(f, reason::NO_EQUIVALENT),
                        ("PEDI", _) => cx.skip(f, reason::UNKNOWN_VALUE),
                        _ => cx.other(f),
                    }
                }
            }
            // The family's HUSB and WIFE make these links.
            "FAMS" => cx.rest(c, &[]),
            "SOUR" => p.sources.extend(cx.citation(c)),
            "NOTE" => p.notes.extend(cx.note(c)),
            "OBJE" => p.media.extend(cx.media(c)),
            "REFN" | "RIN" | "AFN" | "RFN" | "_UID" => p.identifiers.extend(cx.identifier(c)),
            "CHAN" => cx.change(c, &mut p.attribution),
            _ => cx.other(c),
        }
    }
    cx.keep_into(&mut view.person.notes);
    cx.items.person(&mut view);
    cx.spare.names = reuse(view.names);
    cx.spare.facts = reuse(view.facts);
}

/// A `FAM`: a couple relationship (the family's id) when it has two
/// partners, and a parent-child relationship per partner and child
/// (`FAMILY.PARENT.CHILD`).
fn family(cx: &mut Ctx<'_>, record: NodeRef<'_>, used: &mut Vec<(String, String)>) {
    // Inline up to four partners and four children (most families).
    let mut parents: SmallVec<[Cow<'_, str>; 4]> = SmallVec::new();
    let mut children: SmallVec<[Cow<'_, str>; 4]> = SmallVec::new();
    // Husbands before wives, whatever the order of the lines.
    let mut husbands = 0;
    for c in record.children() {
        let Some(id) = pointer_id(c).filter(|_| matches!(c.tag(), "HUSB" | "WIFE" | "CHIL")) else {
            continue;
        };
        let list = match c.tag() {
            "CHIL" => &mut children,
            _ => &mut parents,
        };
        if list.contains(&id) {
            cx.skip(c, reason::SECOND);
            continue;
        }
        if c.tag() == "HUSB" {
            list.insert(husbands, id);
            husbands += 1;
        } else {
            list.push(id);
        }
        cx.rest(c, &[]);
    }
    let couple = parents.len() == 2;
    let mut view = CoupleView {
        relationship: Relationship {
            id: cx.owner.to_string(),
            kind: Iri::Borrowed(gx!("Couple")),
            person1: parents.first().map(|p| local(p)).unwrap_or_default(),
            person2: parents.get(1).map(|p| local(p)).unwrap_or_default(),
            ..Relationship::default()
        },
        facts: Vec::new(),
    };
    let (rel, facts) = (&mut view.relationship, &mut view.facts);
    for c in record.children() {
        let tag = c.tag();
        if matches!(tag, "HUSB" | "WIFE" | "CHIL") && c.pointer().is_some() {
            continue;
        }
        if !couple && !matches!(tag, "HUSB" | "WIFE" | "CHIL") {
            cx.skip(c, reason::NO_COUPLE);
            continue;
        }
        if let Some(i) = tag_row(&COUPLE_FACT_KEYS, tag) {
            let kind = COUPLE_FACTS[i].1;
            facts.push(cx.fact(c, Some(kind)));
            continue;
        }
        match tag {
            "EVEN" | "FACT" => facts.push(cx.fact(c, None)),
            "SOUR" => rel.sources.extend(cx.citation(c)),
            "NOTE" => rel.notes.extend(cx.note(c)),
            "OBJE" => rel.media.extend(cx.media(c)),
            "REFN" | "RIN" | "_UID" => rel.identifiers.extend(cx.identifier(c)),
            "CHAN" => cx.change(c, &mut rel.attribution),
            _ => cx.other(c),
        }
    }
    if couple {
        cx.keep_into(&mut view.relationship.notes);
        cx.items.couple(view);
    }
    let family = &*cx.owner;
    for child in &children {
        let pedigree = cx.index.pedigree(family, child);
        if !pedigree.is_empty() && !parents.is_empty() {
            used.push((family.to_string(), child.to_string()));
        }
        for parent in &parents {
            cx.items.parent_child(ParentChildView {
                family,
                parent,
                child,
                facts: pedigree,
            });
        }
    }
}

/// A `SOUR` record: a source description whose citation has a formatted
/// value and the citation elements.
fn source(cx: &mut Ctx<'_>, record: NodeRef<'_>) {
    let id = cx.owner.to_string();
    let mut sd = SourceDescription {
        id: id.clone(),
        ..SourceDescription::default()
    };
    // The rows before the repository's name, its name (through the
    // index), the rows after.
    let mut elements = Vec::new();
    let row = repository_row();
    let mut push = |name, v: Cow<'_, str>| elements.push(CitationElement::new(name, v));
    elements_of(record, 0..row, &mut push, cx);
    let repository = record.children().find_map(|c| match c.tag() {
        "REPO" => pointer_id(c),
        _ => None,
    });
    if let Some(name) = repository.and_then(|r| cx.index.repository_name(&r)) {
        elements.push(repository_element(name));
    }
    let mut push = |name, v: Cow<'_, str>| elements.push(CitationElement::new(name, v));
    elements_of(record, row..CITATION_ELEMENTS.len(), &mut push, cx);
    for c in record.children() {
        match c.tag() {
            "AUTH" | "ABBR" | "PUBL" => {}
            "TITL" => sd.titles.extend(text(c).map(TextValue::new)),
            "REPO" => {
                match pointer_id(c) {
                    Some(r) if sd.repository.is_none() => sd.repository = Some(local(&r)),
                    Some(_) => cx.skip(c, reason::SECOND),
                    None => {}
                }
                for r in c.children() {
                    match r.tag() {
                        "CALN" => {}
                        _ => cx.other(r),
                    }
                }
            }
            "DATA" => {
                for d in c.children() {
                    match d.tag() {
                        "EVEN" => {
                            let mut coverage = Coverage::default();
                            for e in d.children() {
                                match e.tag() {
                                    "DATE" => coverage.temporal = Some(date(e)),
                                    "PLAC" => {
                                        coverage.spatial = Some(PlaceReference {
                                            original: text(e),
                                            description: None,
                                        })
                                    }
                                    _ => {
                                        cx.other(e);
                                        continue;
                                    }
                                }
                                cx.rest(e, &[]);
                            }
                            if let Some(events) = text(d) {
                                let v = format!("Events recorded: {events}");
                                sd.descriptions.push(TextValue::new(v));
                            }
                            sd.coverage.push(coverage);
                        }
                        "NOTE" => sd.notes.extend(cx.note(d)),
                        _ => cx.other(d),
                    }
                }
            }
            "TEXT" => cx.transcription(c, &id),
            "NOTE" => sd.notes.extend(cx.note(c)),
            "REFN" | "RIN" | "_UID" => sd.identifiers.extend(cx.identifier(c)),
            "CHAN" => cx.change(c, &mut sd.attribution),
            _ => cx.other(c),
        }
    }
    sd.citations.push(SourceCitation {
        lang: None,
        value: formatted_owned(&elements, &id),
        elements,
    });
    cx.keep_into(&mut sd.notes);
    cx.items.item(Item::SourceDescription(sd));
}

/// A `REPO` or `SUBM`: an agent.
fn agent(cx: &mut Ctx<'_>, record: NodeRef<'_>) {
    let mut a = Agent {
        id: cx.owner.to_string(),
        ..Agent::default()
    };
    for c in record.children() {
        match c.tag() {
            "NAME" => {
                a.names.extend(text(c).map(TextValue::new));
                cx.rest(c, &[]);
            }
            "ADDR" => {
                let part = |tag: &str| c.child(tag).and_then(text);
                a.addresses.push(Address {
                    value: text(c),
                    city: part("CITY"),
                    country: part("CTRY"),
                    postal_code: part("POST"),
                    state_or_province: part("STAE"),
                    street: [part("ADR1"), part("ADR2"), part("ADR3")],
                });
                cx.rest(c, &["CITY", "CTRY", "POST", "STAE", "ADR1", "ADR2", "ADR3"]);
            }
            "PHON" => a.phones.extend(text(c).map(|t| phone_uri("tel", &t))),
            "FAX" => a.phones.extend(text(c).map(|t| phone_uri("fax", &t))),
            "EMAIL" => a
                .emails
                .extend(text(c).map(|t| format!("mailto:{}", uri_reference(&t)))),
            "WWW" if a.homepage.is_none() => a.homepage = text(c).map(|t| uri_reference(&t)),
            "REFN" | "RIN" | "RFN" | "_UID" => a.identifiers.extend(cx.identifier(c)),
            _ => cx.other(c),
        }
        if matches!(c.tag(), "PHON" | "FAX" | "EMAIL" | "WWW") {
            cx.rest(c, &[]);
        }
    }
    cx.items.item(Item::Agent(a));
}

/// A `NOTE` record: a document holding its text.
fn note_record(cx: &mut Ctx<'_>, record: NodeRef<'_>) {
    // GEDCOM X requires a document's text: an empty note is its id.
    let mut d = Document {
        id: cx.owner.to_string(),
        text: text(record).unwrap_or_else(|| local(&cx.owner)),
        ..Document::default()
    };
    for c in record.children() {
        match c.tag() {
            "SOUR" => d.sources.extend(cx.citation(c)),
            "CHAN" => cx.change(c, &mut d.attribution),
            _ => cx.other(c),
        }
    }
    cx.keep_into(&mut d.notes);
    cx.items.item(Item::Document(d));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gedcomx::model::{Fact, NamePart};
    use crate::tree::Tree;

    /// The items and the report of a document made of `body`.
    fn map(body: &str) -> (Vec<Item>, NotConverted) {
        let input = format!("0 HEAD\n1 CHAR UTF-8\n1 SUBM @U1@\n{body}0 TRLR\n");
        let tree = Tree::from_slice(input.as_bytes()).unwrap();
        let mut mapper = Mapper::new(index(&input));
        let mut items = Vec::new();
        for record in tree.records() {
            mapper.map_record(record, &mut items);
        }
        (items, mapper.finish())
    }

    /// The index of `input`.
    fn index(input: &str) -> Arc<Index> {
        Arc::new(Index::from_read(input.as_bytes(), Default::default(), 1).unwrap())
    }

    /// The items of one kind.
    fn of<'i, T>(items: &'i [Item], pick: fn(&'i Item) -> Option<&'i T>) -> Vec<&'i T> {
        items.iter().filter_map(pick).collect()
    }

    fn persons(items: &[Item]) -> Vec<&Person> {
        of(items, |i| match i {
            Item::Person(x) => Some(x),
            _ => None,
        })
    }

    fn relationships(items: &[Item]) -> Vec<&Relationship> {
        of(items, |i| match i {
            Item::Relationship(x) => Some(x),
            _ => None,
        })
    }

    fn descriptions(items: &[Item]) -> Vec<&SourceDescription> {
        of(items, |i| match i {
            Item::SourceDescription(x) => Some(x),
            _ => None,
        })
    }

    fn documents(items: &[Item]) -> Vec<&Document> {
        of(items, |i| match i {
            Item::Document(x) => Some(x),
            _ => None,
        })
    }

    /// The report as `path reason lines` strings, but for the `HEAD`'s
    /// `CHAR` every document here has.
    fn skipped(r: &NotConverted) -> Vec<String> {
        r.entries()
            .filter(|s| s.path != "HEAD.CHAR")
            .map(|s| format!("{} {} {:?}", s.path, s.reason, s.lines))
            .collect()
    }

    fn part(kind: &str, value: &str) -> NamePart {
        NamePart {
            kind: Some([GX, kind].concat().into()),
            value: value.into(),
            qualifiers: Vec::new(),
        }
    }

    #[test]
    fn the_head_s_submitter_is_the_attribution_and_the_rest_is_counted() {
        let (items, report) = map("");
        let contributor = Some("#U1".to_string());
        assert_eq!(
            items,
            [Item::Attribution(Attribution {
                contributor,
                ..Attribution::default()
            })]
        );
        // The file's encoding is not data.
        let head: Vec<_> = report
            .entries()
            .map(|s| (s.path, s.reason, s.lines))
            .collect();
        assert_eq!(head, [("HEAD.CHAR", reason::FILE_METADATA, &[2][..])]);
    }

    #[test]
    fn a_second_head_is_counted_whole() {
        let (items, report) = map("0 HEAD\n1 SUBM @U2@\n");
        assert_eq!(items.len(), 1);
        assert_eq!(
            skipped(&report),
            [format!("HEAD {} [4]", reason::LATE_HEAD)]
        );
    }

    #[test]
    fn the_head_s_language_is_the_document_s() {
        assert_eq!(language_tag("English").as_deref(), Some("en"));
        // Without the `*` ELF's table marks six tags with.
        assert_eq!(language_tag("Cantonese").as_deref(), Some("yue"));
        assert_eq!(language_tag("anglo-saxon").as_deref(), Some("ang"));
        assert_eq!(language_tag("fr-CA").as_deref(), Some("fr-CA"));
        assert_eq!(language_tag("Klingonese"), None);
        let tree = Tree::from_slice(b"0 HEAD\n1 CHAR UTF-8\n1 LANG German\n0 TRLR\n").unwrap();
        let mut items = Vec::new();
        Mapper::default().map_record(tree.records().next().unwrap(), &mut items);
        assert_eq!(items[0], Item::Lang("de".into()));
    }

    #[test]
    fn ids_are_xrefs_without_at_signs_and_other_bytes_escaped() {
        assert_eq!(xref_id("@I1@"), "I1");
        assert_eq!(xref_id("@a_b-C@"), "a_b-C");
        assert_eq!(xref_id("@I.1 x@"), "I~2E1~20x");
    }

    #[test]
    fn a_name_s_parts_come_from_its_pieces_or_from_the_name() {
        let (items, report) = map("0 @I1@ INDI\n1 NAME Jean /de La Fontaine/ Jr\n\
             0 @I2@ INDI\n1 NAME Lt. Jean /Fontaine/\n2 NPFX Lt.\n2 GIVN Jean\n2 SPFX de La\n\
             2 SURN Fontaine\n2 NSFX Jr\n2 TYPE birth\n");
        assert_eq!(skipped(&report), [""; 0]);
        let p = persons(&items);
        let form = &p[0].names[0].name_forms[0];
        assert_eq!(form.full_text.as_deref(), Some("Jean de La Fontaine Jr"));
        assert_eq!(
            form.parts,
            [
                part("Given", "Jean"),
                part("Surname", "de La Fontaine"),
                part("Suffix", "Jr")
            ]
        );
        let name = &p[1].names[0];
        assert_eq!(name.kind.as_deref(), Some("http://gedcomx.org/BirthName"));
        let mut particle = part("Surname", "de La");
        particle.qualifiers = vec![Qualifier::new(Iri::Borrowed(gx!("Particle")), None)];
        assert_eq!(
            name.name_forms[0].parts,
            [
                part("Prefix", "Lt."),
                part("Given", "Jean"),
                particle,
                part("Surname", "Fontaine"),
                part("Suffix", "Jr")
            ]
        );
    }

    #[test]
    fn a_nickname_is_a_name_of_its_own_and_variants_are_forms() {
        let (items, report) = map(
            "0 @I1@ INDI\n1 NAME Robert /Smith/\n2 NICK Bob\n2 ROMN Robert /Smit/\n2 TYPE user\n",
        );
        let names = &persons(&items)[0].names;
        assert_eq!(names.len(), 2);
        assert_eq!(names[0].name_forms.len(), 2);
        assert_eq!(
            names[0].name_forms[1].full_text.as_deref(),
            Some("Robert Smit")
        );
        assert_eq!(
            names[1].kind.as_deref(),
            Some("http://gedcomx.org/Nickname")
        );
        assert_eq!(names[1].name_forms[0].full_text.as_deref(), Some("Bob"));
        // A name type GEDCOM X lacks.
        assert_eq!(
            skipped(&report),
            [format!("INDI.NAME.TYPE {} [8]", reason::UNKNOWN_VALUE)]
        );
    }

    #[test]
    fn sex_is_gender_and_a_bad_one_is_counted() {
        let (items, report) = map("0 @I1@ INDI\n1 SEX F\n0 @I2@ INDI\n1 SEX Q\n");
        let p = persons(&items);
        let female = Some(Gender {
            kind: Iri::Borrowed(gx!("Female")),
        });
        assert_eq!((&p[0].gender, &p[1].gender), (&female, &None));
        assert_eq!(
            skipped(&report),
            [format!("INDI.SEX {} [7]", reason::UNKNOWN_VALUE)]
        );
    }

    #[test]
    fn events_are_facts_with_dates_places_values_and_qualifiers() {
        let (items, report) = map(
            "0 @I1@ INDI\n1 BIRT Y\n2 DATE ABT 1815\n2 PLAC Paris, France\n\
             1 DEAT\n2 DATE 3 MAR 1901\n2 AGE 85y\n2 CAUS fever\n\
             1 OCCU Baker\n1 EVEN Won a prize\n2 TYPE Award ceremony\n2 DATE nonsense\n",
        );
        assert_eq!(skipped(&report), [""; 0]);
        let facts = &persons(&items)[0].facts;
        assert_eq!(facts[0].kind, "http://gedcomx.org/Birth");
        assert_eq!(facts[0].value, None);
        let date = facts[0].date.as_ref().unwrap();
        assert_eq!(
            (date.original.as_deref(), date.formal.as_deref()),
            (Some("ABT 1815"), Some("A+1815"))
        );
        assert_eq!(
            facts[0].place.as_ref().unwrap().original.as_deref(),
            Some("Paris, France")
        );
        let death = &facts[1];
        assert_eq!(
            death.date.as_ref().unwrap().formal.as_deref(),
            Some("+1901-03-03")
        );
        assert_eq!(
            death.qualifiers,
            [
                Qualifier::new(Iri::Borrowed(gx!("Age")), Some("85y".into())),
                Qualifier::new(Iri::Borrowed(gx!("Cause")), Some("fever".into()))
            ]
        );
        assert_eq!(
            (&*facts[2].kind, facts[2].value.as_deref()),
            ("http://gedcomx.org/Occupation", Some("Baker"))
        );
        assert_eq!(facts[3].kind, "data:,Award%20ceremony");
        assert_eq!(facts[3].value.as_deref(), Some("Won a prize"));
        // Not understood: the original kept, no formal date.
        let d = facts[3].date.as_ref().unwrap();
        assert_eq!(
            (d.original.as_deref(), d.formal.as_deref()),
            (Some("nonsense"), None)
        );
    }

    #[test]
    fn places_with_coordinates_are_described_once() {
        let (items, report) = map(
            "0 @I1@ INDI\n1 BIRT\n2 PLAC Gibraltar\n3 MAP\n4 LATI N36.1408\n4 LONG W5.3536\n\
             1 DEAT\n2 PLAC Gibraltar\n3 MAP\n4 LATI N36.1408\n4 LONG W5.3536\n\
             1 BURI\n2 PLAC Gibraltar\n3 MAP\n4 LATI N36.1408\n\
             0 @I2@ INDI\n1 BIRT\n2 PLAC Gibraltar\n3 MAP\n4 LATI N36.1408\n4 LONG W5.3536\n",
        );
        let places: Vec<&PlaceDescription> = items
            .iter()
            .filter_map(|i| match i {
                Item::Place(p) => Some(p),
                _ => None,
            })
            .collect();
        assert_eq!(places.len(), 1);
        let id = place_id("Gibraltar", 36.1408, -5.3536);
        assert!(id.starts_with("~P") && id.len() == 18, "{id}");
        assert_ne!(id, place_id("Gibraltar", 36.1408, -5.3535));
        assert_ne!(id, place_id("Gibraltar ", 36.1408, -5.3536));
        assert_eq!(places[0].id, id);
        assert_eq!(
            (places[0].latitude, places[0].longitude),
            (Some(36.1408), Some(-5.3536))
        );
        let p = persons(&items);
        let reference = |p: &Person, i: usize| p.facts[i].place.clone().unwrap().description;
        let id = format!("#{id}");
        assert_eq!(reference(p[0], 0), Some(id.clone()));
        assert_eq!(reference(p[0], 1), Some(id.clone()));
        assert_eq!(reference(p[1], 0), Some(id));
        // A MAP with a latitude and no longitude: the name only, counted.
        assert_eq!(reference(p[0], 2), None);
        assert_eq!(
            skipped(&report),
            [format!("INDI.BURI.PLAC.MAP {} [17]", reason::UNKNOWN_VALUE)]
        );
    }

    #[test]
    fn a_family_is_a_couple_and_a_parent_child_relationship_per_parent_and_child() {
        let (items, report) = map(
            "0 @I3@ INDI\n1 FAMC @F1@\n2 PEDI adopted\n\
             0 @F1@ FAM\n1 WIFE @I2@\n1 HUSB @I1@\n1 CHIL @I3@\n1 CHIL @I4@\n1 MARR\n2 DATE 1900\n",
        );
        assert_eq!(skipped(&report), [""; 0]);
        let r = relationships(&items);
        let ids: Vec<&str> = r.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["F1", "F1.I1.I3", "F1.I2.I3", "F1.I1.I4", "F1.I2.I4"]);
        assert_eq!(
            (&*r[0].kind, r[0].person1.as_str(), r[0].person2.as_str()),
            ("http://gedcomx.org/Couple", "#I1", "#I2")
        );
        assert_eq!(r[0].facts[0].kind, "http://gedcomx.org/Marriage");
        assert_eq!(
            (r[2].person1.as_str(), r[2].person2.as_str()),
            ("#I2", "#I3")
        );
        let adoptive = vec![Fact {
            kind: Iri::Borrowed(gx!("AdoptiveParent")),
            ..Fact::default()
        }];
        assert_eq!((&r[1].facts, &r[2].facts), (&adoptive, &adoptive));
        assert!(r[3].facts.is_empty());
    }

    #[test]
    fn a_citation_s_description_carries_its_source_s_elements_and_repository_name() {
        // The citation comes before the source and repository records: the
        // index has them all the same.
        let (items, report) = map("0 @I1@ INDI\n1 SOUR @S1@\n2 PAGE folio 3\n\
             0 @S1@ SOUR\n1 TITL Parish register\n1 AUTH Vicar\n1 REPO @R1@\n2 CALN 42\n\
             0 @R1@ REPO\n1 NAME County archives\n");
        assert_eq!(skipped(&report), [""; 0]);
        let sd = descriptions(&items);
        let element = |name: &str, value: &str| {
            let base = if name.contains('_') {
                ELF
            } else {
                crate::gedcomx::CEV
            };
            CitationElement::new(format!("{base}{name}"), value)
        };
        let of_source = [
            element("authorName", "Vicar"),
            element("title", "Parish register"),
            element("SOURCE_CALL_NUMBER", "42"),
            element("NAME_OF_REPOSITORY", "County archives"),
        ];
        // The citation's own description: the record's elements, then its own.
        assert_eq!(sd[0].id, "I1.s1");
        let mut own = of_source.to_vec();
        own.push(element("WHERE_WITHIN_SOURCE", "folio 3"));
        assert_eq!(sd[0].citations[0].elements, own);
        assert_eq!(
            sd[0].citations[0].value,
            "Vicar, Parish register, 42, folio 3"
        );
        // The record's own: its repository's name too, not in the value.
        assert_eq!(sd[1].id, "S1");
        assert_eq!(sd[1].citations[0].elements, of_source);
        assert_eq!(sd[1].citations[0].value, "Vicar, Parish register, 42");
    }

    #[test]
    fn a_family_with_one_parent_keeps_its_children_and_counts_its_facts() {
        let (items, report) = map(
            "0 @F1@ FAM\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n0 @I3@ INDI\n1 FAMC @F1@\n2 PEDI birth\n",
        );
        let r = relationships(&items);
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].id.as_str(), &*r[0].kind),
            ("F1.I2.I3", "http://gedcomx.org/ParentChild")
        );
        // The individual comes after the family: its PEDI, from the
        // index, is a fact of the relationship all the same.
        assert_eq!(r[0].facts[0].kind, Iri::Borrowed(gx!("BiologicalParent")));
        assert_eq!(
            skipped(&report),
            [format!("FAM.MARR {} [7]", reason::NO_COUPLE)]
        );
    }

    #[test]
    fn a_source_record_has_a_formatted_citation_and_elements_in_table_order() {
        let (items, report) = map(
            "0 @S1@ SOUR\n1 TITL Les ancêtres de Charlemagne\n1 AUTH Settipani, Christian\n\
             1 ABBR Ancêtres\n1 PUBL Paris, 1989\n1 REPO @R1@\n2 CALN 929.7\n1 TEXT A line.\n",
        );
        assert_eq!(skipped(&report), [""; 0]);
        let sd = descriptions(&items)[0];
        let c = &sd.citations[0];
        let names: Vec<&str> = c.elements.iter().map(|e| &*e.name).collect();
        assert_eq!(
            names,
            [
                "http://terms.fhiso.org/sources/authorName",
                "http://terms.fhiso.org/sources/title",
                "http://terms.fhiso.org/sources/shortTitle",
                "https://terms.fhiso.org/elf/SOURCE_PUBLICATION_FACTS",
                "https://terms.fhiso.org/elf/SOURCE_CALL_NUMBER",
            ]
        );
        assert_eq!(
            c.value,
            "Settipani, Christian, Les ancêtres de Charlemagne, Paris, 1989, 929.7"
        );
        assert_eq!(sd.repository.as_deref(), Some("#R1"));
        assert_eq!(sd.titles, [TextValue::new("Les ancêtres de Charlemagne")]);
        let d = documents(&items)[0];
        assert_eq!(
            (d.id.as_str(), d.kind.as_deref(), d.text.as_str()),
            ("S1.t1", Some("http://gedcomx.org/Transcription"), "A line.")
        );
        assert_eq!(d.sources[0].description, "#S1");
    }

    #[test]
    fn citations_become_references_or_descriptions_of_their_own() {
        let (items, report) = map(
            "0 @I1@ INDI\n1 SOUR @S1@\n2 QUAY 3\n1 BIRT\n2 SOUR @S1@\n3 PAGE p. 12\n\
             3 DATA\n4 DATE 1 JAN 1900\n1 SOUR A family bible\n",
        );
        assert_eq!(skipped(&report), [""; 0]);
        let p = persons(&items)[0];
        assert_eq!(p.sources[0].description, "#S1");
        assert_eq!(p.sources[0].qualifiers[0].value.as_deref(), Some("3"));
        assert_eq!(p.facts[0].sources[0].description, "#I1.s1");
        assert_eq!(p.sources[1].description, "#I1.s2");
        let sd = descriptions(&items);
        assert_eq!(sd[0].component_of.as_ref().unwrap().description, "#S1");
        let elements = &sd[0].citations[0].elements;
        assert_eq!(
            elements,
            &[
                CitationElement::new(format!("{ELF}WHERE_WITHIN_SOURCE"), "p. 12"),
                CitationElement::new(format!("{ELF}ENTRY_RECORDING_DATE"), "1 JAN 1900"),
            ]
        );
        assert_eq!(sd[0].citations[0].value, "p. 12, 1 JAN 1900");
        assert_eq!(sd[1].citations[0].value, "A family bible");
        assert!(sd[1].component_of.is_none());
    }

    #[test]
    fn repositories_and_submitters_are_agents() {
        let (items, report) = map(
            "0 @R1@ REPO\n1 NAME Archives\n1 ADDR 1 Main St\n2 CITY Springfield\n2 CTRY USA\n\
             1 PHON +1 555 0100\n1 EMAIL a@@b.org\n1 WWW https://b.org/\n1 NOTE kept?\n",
        );
        let Item::Agent(a) = &items[1] else {
            panic!("{items:?}")
        };
        assert_eq!(a.names, [TextValue::new("Archives")]);
        assert_eq!(a.phones, ["tel:+15550100"]);
        assert_eq!(a.emails, ["mailto:a@b.org"]);
        assert_eq!(a.homepage.as_deref(), Some("https://b.org/"));
        assert_eq!(a.addresses[0].city.as_deref(), Some("Springfield"));
        assert_eq!(
            skipped(&report),
            [format!("REPO.NOTE {} [12]", reason::NO_EQUIVALENT)]
        );
    }

    #[test]
    fn notes_inline_and_pointed_to_are_notes_and_records_documents() {
        let (items, report) = map(
            "0 @I1@ INDI\n1 NOTE Some\n2 CONT text\n1 NOTE @N1@\n1 NOTE @N2@\n\
             0 @N1@ NOTE A note\n1 CONC , continued\n",
        );
        let notes: Vec<&str> = persons(&items)[0]
            .notes
            .iter()
            .map(|n| n.text.as_str())
            .collect();
        // The pointer to N1 carries its text (through the index; the record
        // comes after the individual); N2 does not exist.
        assert_eq!(notes, ["Some\ntext", "A note, continued"]);
        let d = documents(&items)[0];
        assert_eq!(
            (d.id.as_str(), d.text.as_str()),
            ("N1", "A note, continued")
        );
        assert_eq!(
            skipped(&report),
            [format!("INDI.NOTE {} [8]", reason::NOTE_POINTER)]
        );
    }

    #[test]
    fn multimedia_is_a_described_file_and_a_media_reference() {
        let (items, report) = map(
            "0 @O1@ OBJE\n1 FILE photos/me 1.jpg\n2 FORM jpg\n2 TITL Me\n\
             0 @I1@ INDI\n1 OBJE @O1@\n1 OBJE\n2 FILE x.gif\n2 FORM GIF\n",
        );
        assert_eq!(skipped(&report), [""; 0]);
        let sd = descriptions(&items);
        assert_eq!(sd[0].about.as_deref(), Some("photos/me%201.jpg"));
        assert_eq!(sd[0].media_type.as_deref(), Some("image/jpeg"));
        assert_eq!(sd[0].citations[0].value, "Me");
        assert_eq!(sd[1].id, "I1.m1");
        assert_eq!(sd[1].media_type.as_deref(), Some("image/gif"));
        let media: Vec<&str> = persons(&items)[0]
            .media
            .iter()
            .map(|m| m.description.as_str())
            .collect();
        assert_eq!(media, ["#O1", "#I1.m1"]);
    }

    #[test]
    fn a_spare_buffer_is_lent_empty_with_its_allocation() {
        let mut spare: Vec<FactView<'static>> = Vec::with_capacity(8);
        spare.push(FactView::default());
        let at = spare.as_ptr() as usize;
        let lent: Vec<FactView<'_>> = reuse(spare);
        assert!(lent.is_empty());
        assert_eq!((lent.capacity(), lent.as_ptr() as usize), (8, at));
        // The person's buffers come back to the spare ones after each
        // person: a second person starts with them.
        let (items, _) = map("0 @I1@ INDI\n1 NAME A /B/\n1 BIRT\n2 DATE 1900\n\
             0 @I2@ INDI\n1 NAME C /D/\n1 DEAT Y\n");
        let p = persons(&items);
        assert_eq!((p[0].facts.len(), p[1].facts.len()), (1, 1));
        assert_eq!(
            p[1].names[0].name_forms[0].full_text.as_deref(),
            Some("C D")
        );
    }

    #[test]
    fn identifiers_are_typed_by_their_structure_type() {
        let (items, _) = map("0 @I1@ INDI\n1 REFN 42\n1 RIN 7\n1 _UID ABC\n");
        let ids = &persons(&items)[0].identifiers;
        let kinds: Vec<Option<&str>> = ids.iter().map(|i| i.kind.as_deref()).collect();
        assert_eq!(
            kinds,
            [
                Some("https://terms.fhiso.org/elf/USER_REFERENCE_NUMBER"),
                Some("https://terms.fhiso.org/elf/AUTOMATED_RECORD_ID"),
                None
            ]
        );
    }

    #[test]
    fn a_change_date_is_the_modified_timestamp() {
        let (items, report) = map(
            "0 @I1@ INDI\n1 CHAN\n2 DATE 2 JAN 1970\n3 TIME 01:00:00.5\n2 NOTE fixed\n\
             0 @I2@ INDI\n1 CHAN\n2 DATE ABT 1970\n",
        );
        let p = persons(&items);
        let a = &p[0].attribution;
        let t = a.modified.as_ref().unwrap();
        assert_eq!(
            (t.millis, t.date_time.as_str()),
            (90_000_500, "1970-01-02T01:00:00.500")
        );
        assert_eq!(a.change_message.as_deref(), Some("fixed"));
        assert_eq!(
            skipped(&report),
            [format!("INDI.CHAN.DATE {} [11]", reason::UNKNOWN_VALUE)]
        );
    }

    #[test]
    fn kept_extensions_are_notes_of_the_record_s_item() {
        let input = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 _MILT yes\n3 DATE 1900\n3 NOTE a\n4 CONT b\n\
                     0 @R1@ REPO\n1 _X y\n0 @X1@ _LOC\n\
                     0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 _F f\n1 NOTE own\n\
                     0 @F2@ FAM\n1 CHIL @I1@\n1 _G g\n0 @S1@ SOUR\n1 _S s\n\
                     0 @O1@ OBJE\n1 FILE a.jpg\n1 _O o\n0 @N1@ NOTE t\n1 _N n\n0 TRLR\n";
        let tree = Tree::from_slice(input.as_bytes()).unwrap();
        let mut mapper = Mapper::new(index(input)).keep_extensions(true);
        let mut items = Vec::new();
        for record in tree.records() {
            mapper.map_record(record, &mut items);
        }
        let notes = &persons(&items)[0].notes;
        assert_eq!(
            notes,
            &[Note {
                subject: Some("INDI.BIRT._MILT".into()),
                text: "0 _MILT yes\n1 DATE 1900\n1 NOTE a\n2 CONT b".into(),
            }]
        );
        // Every other record's item that has notes takes them, after its
        // own.
        let kept = |path: &str, text: &str| Note {
            subject: Some(path.into()),
            text: text.into(),
        };
        let own = Note {
            subject: None,
            text: "own".into(),
        };
        let couple = &relationships(&items)[0];
        assert_eq!(couple.notes, [own, kept("FAM._F", "0 _F f")]);
        let sd = descriptions(&items);
        assert_eq!(sd[0].notes, [kept("SOUR._S", "0 _S s")]);
        assert_eq!(sd[1].notes, [kept("OBJE._O", "0 _O o")]);
        assert_eq!(documents(&items)[0].notes, [kept("NOTE._N", "0 _N n")]);
        // An agent has no notes and an extension record no item: counted
        // (a family of one parent counts what is its couple's).
        let report = mapper.finish();
        assert_eq!(
            skipped(&report),
            [
                format!("FAM._G {} [19]", reason::NO_COUPLE),
                format!("REPO._X {} [10]", reason::EXTENSION),
                format!("_LOC {} [11]", reason::EXTENSION),
            ]
        );
    }

    #[test]
    fn extension_tags_and_records_are_counted_with_their_lines() {
        let (_, report) = map("0 @I1@ INDI\n1 _MILT\n2 DATE 1900\n0 @X1@ _LOC\n0 INDI\n");
        assert_eq!(
            skipped(&report),
            [
                format!("INDI {} [8]", reason::NO_XREF),
                format!("INDI._MILT {} [5]", reason::EXTENSION),
                format!("_LOC {} [7]", reason::EXTENSION),
            ]
        );
        assert_eq!(report.total(), 4);
    }
}
