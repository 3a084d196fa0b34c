//! Typed serialisation (seed §5.1, §6, §7): structures described by their
//! structure type identifier, written with tags and xref ids the writer chooses.
//!
//! A [`TypedDocument`] holds records, `HEAD` substructures (serialisation
//! metadata, superstructure type `elf:Metadata`) and their substructures, each
//! with a structure type IRI, an optional payload and substructures in order.
//! Pointers name their target by [`RecordId`], never by xref. [`plan`] decides how
//! to write it under a [`Schema`] (by default the built-in
//! default schema) and [`write_typed`] writes it:
//!
//! * **Tags** come from the schema's tag definitions, in the context of the
//!   superstructure's type (`elf:Document` for records): the first tag definition
//!   (in schema order) for the structure's type whose superstructure type is an
//!   eventual supertype of the superstructure's type, and which a reader resolves
//!   back to the same type (a tag whose definitions conflict there is passed over).
//!   So `elf:PARENT1_POINTER` under `elf:FAM_RECORD` is `HUSB`, and
//!   `elf:Parent1Age` under `elf:MARRIAGE` is `HUSB` too. `elf:Undefined` is `UNDEF`
//!   and an undefined tag identifier `elf:Undefined#TAG` is `TAG` (refused where
//!   `TAG` has a definition).
//! * **New tags** (§7.2): a type the schema gives no tag in some context gets a
//!   fresh tag: `_` and the last segment of its IRI in capitals (at most 15
//!   characters, a number appended when needed), colliding with no tag of the
//!   schema's tag or escape definitions, no tag the output uses and no tag with a
//!   special meaning (`HEAD`, `TRLR`, `CHAR`, `SCHMA`, `CONT`, `CONC`, `ERROR`,
//!   `UNDEF`, `GEDC`). One type keeps one new tag in all its contexts.
//! * **The schema** (§6.2): when a tag was invented, or the schema is not the
//!   default one, the `HEAD` gets a `SCHMA`. A `SCHMA` replaces the default schema
//!   entirely, so it carries, besides the new `IRI`/`TAG` lines, either the whole
//!   schema written with ([`SchemaLines::Full`], the default: any structure of any
//!   type added to the file later is typed as before) or just the definitions this
//!   output relies on, with the `ISA` lines linking each superstructure type to the
//!   type its tag definition names ([`SchemaLines::Minimal`]). Either way, prefixes
//!   and escape preservation (`ESC`) are kept. The written schema is read back
//!   before anything is written and every (superstructure type, tag) pair the output
//!   uses is checked to resolve to the intended type; otherwise the write is refused
//!   ([`WriteErrorKind::Untaggable`]).
//! * **Xref ids** (§5.1): only records that are pointed to get one (or those the
//!   caller gave one with [`TypedDocument::set_xref`]): `@` + the first letter or
//!   digit of the record's tag + a number (`@I1@`, `@F1@`, `@S2@` …, numbered in
//!   document order per letter), never one the caller fixed.
//!
//! ```
//! use gedcom_elf::tree::{Schema, Tree};
//! use gedcom_elf::write::typed::{write_typed, TypedDocument, TypedOptions};
//!
//! let mut doc = TypedDocument::new();
//! let ada = doc.add_record("elf:INDIVIDUAL_RECORD");
//! doc.add_text(ada, "elf:PERSONAL_NAME_STRUCTURE", "Ada /Lovelace/")?;
//! doc.add_text(ada, "https://example.com/ext/Nickname", "Ada")?;
//! let fam = doc.add_record("elf:FAM_RECORD");
//! doc.add_pointer(fam, "elf:PARENT2_POINTER", ada)?;
//! let marr = doc.add(fam, "elf:MARRIAGE")?;
//! let age = doc.add(marr, "elf:Parent2Age")?;
//! doc.add_text(age, "elf:AGE_AT_EVENT", "19y")?;
//!
//! let mut out = Vec::new();
//! let plan = write_typed(&doc, &Schema::default_schema(), &TypedOptions::minimal(), &mut out)?;
//! let text = String::from_utf8(out.clone()).unwrap();
//! assert_eq!(plan.invented().collect::<Vec<_>>(), [("_NICKNAME", "https://example.com/ext/Nickname")]);
//! assert!(text.ends_with(
//!     "0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 _NICKNAME Ada\n\
//!      0 FAM\n1 WIFE @I1@\n1 MARR\n2 WIFE\n3 AGE 19y\n0 TRLR\n"));
//! assert!(text.contains("2 IRI https://example.com/ext/Nickname\n3 TAG _NICKNAME elf:INDIVIDUAL_RECORD\n"));
//!
//! // Read back: the same types.
//! let tree = Tree::from_slice(&out)?;
//! let nick = tree.find("@I1@").unwrap().child("_NICKNAME").unwrap();
//! assert_eq!(nick.structure_type().unwrap(), "https://example.com/ext/Nickname");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::io::Write;

use crate::scan::is_valid_xref;
use crate::tree::schema::{
    Schema, SchemaSource, DOCUMENT, METADATA, UNDEFINED, UNDEFINED_TAG_BASE,
};

use super::{
    HeadOptions, HeadSchema, IriDefinition, WriteError, WriteErrorKind, WriteValue, Writer,
    WriterConfig,
};

const NONE: u32 = u32::MAX;
/// Type ids 0 and 1 of every document: the contexts of records and of the HEAD's
/// substructures.
const DOC_TYPE: u32 = 0;
const META_TYPE: u32 = 1;

/// A structure of a [`TypedDocument`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructureId(u32);

/// A record of a [`TypedDocument`]: what pointers point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordId(u32);

impl From<RecordId> for StructureId {
    fn from(r: RecordId) -> Self {
        StructureId(r.0)
    }
}

impl StructureId {
    /// The structure's index in its document (creation order).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A payload of a typed structure.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypedValue {
    /// Text (escaped, split and encoded by the writer).
    Text(String),
    /// A pointer to a record, written with that record's xref id.
    Pointer(RecordId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Record,
    Metadata,
    Child(u32),
}

#[derive(Clone, Debug)]
struct TNode {
    ty: u32,
    place: Place,
    value: Option<TypedValue>,
    xref: Option<Box<str>>,
    first: u32,
    last: u32,
    next: u32,
}

/// Structures described by structure type identifier (see the [module
/// documentation](self)). Built without recursion and written without it: any
/// depth is fine.
#[derive(Clone, Debug)]
pub struct TypedDocument {
    types: Vec<Box<str>>,
    type_ids: HashMap<Box<str>, u32>,
    nodes: Vec<TNode>,
    records: Vec<u32>,
    metadata: Vec<u32>,
}

impl Default for TypedDocument {
    fn default() -> Self {
        TypedDocument::new()
    }
}

fn bad_handle(what: &str) -> WriteError {
    WriteError::new(
        WriteErrorKind::InvalidHandle,
        format!("{what} is not a structure of this document"),
    )
}

impl TypedDocument {
    /// An empty document.
    #[must_use]
    pub fn new() -> Self {
        let mut d = TypedDocument {
            types: Vec::new(),
            type_ids: HashMap::new(),
            nodes: Vec::new(),
            records: Vec::new(),
            metadata: Vec::new(),
        };
        d.intern(DOCUMENT);
        d.intern(METADATA);
        d
    }

    fn intern(&mut self, ty: &str) -> u32 {
        if let Some(&id) = self.type_ids.get(ty) {
            return id;
        }
        let id = self.types.len() as u32;
        self.types.push(ty.into());
        self.type_ids.insert(ty.into(), id);
        id
    }

    fn push(&mut self, ty: &str, place: Place) -> u32 {
        let ty = self.intern(ty);
        let id = self.nodes.len() as u32;
        self.nodes.push(TNode {
            ty,
            place,
            value: None,
            xref: None,
            first: NONE,
            last: NONE,
            next: NONE,
        });
        id
    }

    /// Appends a record of type `ty` (an IRI, or a prefixed name such as
    /// `elf:INDIVIDUAL_RECORD`, expanded with the schema's prefixes when written).
    pub fn add_record(&mut self, ty: &str) -> RecordId {
        let id = self.push(ty, Place::Record);
        self.records.push(id);
        RecordId(id)
    }

    /// Appends a substructure of the `HEAD` (superstructure type `elf:Metadata`).
    pub fn add_metadata(&mut self, ty: &str) -> StructureId {
        let id = self.push(ty, Place::Metadata);
        self.metadata.push(id);
        StructureId(id)
    }

    /// Appends a substructure of type `ty` to `parent`.
    ///
    /// # Errors
    /// [`WriteErrorKind::InvalidHandle`] when `parent` is not from this document.
    pub fn add(
        &mut self,
        parent: impl Into<StructureId>,
        ty: &str,
    ) -> Result<StructureId, WriteError> {
        let p = parent.into().0;
        if p as usize >= self.nodes.len() {
            return Err(bad_handle("the parent"));
        }
        let id = self.push(ty, Place::Child(p));
        let parent = &mut self.nodes[p as usize];
        let last = parent.last;
        parent.last = id;
        if last == NONE {
            parent.first = id;
        } else {
            self.nodes[last as usize].next = id;
        }
        Ok(StructureId(id))
    }

    /// Appends a substructure with a text payload.
    ///
    /// # Errors
    /// As [`TypedDocument::add`].
    pub fn add_text(
        &mut self,
        parent: impl Into<StructureId>,
        ty: &str,
        text: impl Into<String>,
    ) -> Result<StructureId, WriteError> {
        let id = self.add(parent, ty)?;
        self.nodes[id.0 as usize].value = Some(TypedValue::Text(text.into()));
        Ok(id)
    }

    /// Appends a substructure pointing to `target`.
    ///
    /// # Errors
    /// As [`TypedDocument::set_value`].
    pub fn add_pointer(
        &mut self,
        parent: impl Into<StructureId>,
        ty: &str,
        target: RecordId,
    ) -> Result<StructureId, WriteError> {
        self.check_record(target)?;
        let id = self.add(parent, ty)?;
        self.nodes[id.0 as usize].value = Some(TypedValue::Pointer(target));
        Ok(id)
    }

    fn check_record(&self, r: RecordId) -> Result<(), WriteError> {
        match self.nodes.get(r.0 as usize) {
            Some(n) if n.place == Place::Record => Ok(()),
            _ => Err(bad_handle("the pointer's target")),
        }
    }

    /// Sets (or, with `None`, removes) the payload of `id`.
    ///
    /// # Errors
    /// [`WriteErrorKind::InvalidHandle`] when `id` or the pointer's target is not
    /// from this document.
    pub fn set_value(
        &mut self,
        id: impl Into<StructureId>,
        value: Option<TypedValue>,
    ) -> Result<(), WriteError> {
        if let Some(TypedValue::Pointer(r)) = &value {
            self.check_record(*r)?;
        }
        let n = self
            .nodes
            .get_mut(id.into().0 as usize)
            .ok_or_else(|| bad_handle("the structure"))?;
        n.value = value;
        Ok(())
    }

    /// Fixes the xref id of `record` (`@` signs included, as `@I7@`): it is written
    /// whether or not the record is pointed to, and no generated id equals it.
    ///
    /// # Errors
    /// [`WriteErrorKind::InvalidHandle`]; [`WriteErrorKind::InvalidXref`] when
    /// `xref` does not match `XRefID` (`"@" [a-zA-Z0-9_] [^@:!]* "@"`) or holds a
    /// line break.
    pub fn set_xref(&mut self, record: RecordId, xref: &str) -> Result<(), WriteError> {
        self.check_record(record)?;
        if !is_valid_xref(xref.as_bytes()) || xref.contains(['\n', '\r']) {
            return Err(WriteError::new(
                WriteErrorKind::InvalidXref,
                format!("invalid xref {xref:?}: not of the XRefID production"),
            ));
        }
        self.nodes[record.0 as usize].xref = Some(xref.into());
        Ok(())
    }

    /// The number of structures.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// `true` when the document holds no structure.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The records, in order.
    pub fn records(&self) -> impl Iterator<Item = RecordId> + '_ {
        self.records.iter().map(|&r| RecordId(r))
    }

    /// The `HEAD` substructures, in order.
    pub fn metadata(&self) -> impl Iterator<Item = StructureId> + '_ {
        self.metadata.iter().map(|&r| StructureId(r))
    }

    /// The substructures of `id`, in order (none for an id not from this document).
    pub fn children(&self, id: impl Into<StructureId>) -> impl Iterator<Item = StructureId> + '_ {
        let first = self
            .nodes
            .get(id.into().0 as usize)
            .map_or(NONE, |n| n.first);
        std::iter::successors((first != NONE).then_some(first), move |&c| {
            let n = self.nodes[c as usize].next;
            (n != NONE).then_some(n)
        })
        .map(StructureId)
    }

    /// The type of `id`, as given.
    #[must_use]
    pub fn structure_type(&self, id: impl Into<StructureId>) -> Option<&str> {
        let n = self.nodes.get(id.into().0 as usize)?;
        Some(&self.types[n.ty as usize])
    }

    /// The payload of `id`.
    #[must_use]
    pub fn value(&self, id: impl Into<StructureId>) -> Option<&TypedValue> {
        self.nodes.get(id.into().0 as usize)?.value.as_ref()
    }

    /// The xref id the caller fixed for `record`.
    #[must_use]
    pub fn xref(&self, record: RecordId) -> Option<&str> {
        self.nodes.get(record.0 as usize)?.xref.as_deref()
    }

    /// The record a structure belongs to (itself for a record; `None` for the
    /// `HEAD`'s substructures and their subtrees).
    #[must_use]
    pub fn record_of(&self, id: impl Into<StructureId>) -> Option<RecordId> {
        let mut i = id.into().0;
        loop {
            match self.nodes.get(i as usize)?.place {
                Place::Record => return Some(RecordId(i)),
                Place::Metadata => return None,
                Place::Child(p) => i = p,
            }
        }
    }

    /// The superstructure's type id of node `i`.
    fn context(&self, i: u32) -> u32 {
        match self.nodes[i as usize].place {
            Place::Record => DOC_TYPE,
            Place::Metadata => META_TYPE,
            Place::Child(p) => self.nodes[p as usize].ty,
        }
    }
}

/// How much of the schema a written `SCHMA` carries (see the [module
/// documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SchemaLines {
    /// The whole schema written with, plus the new definitions. The default.
    #[default]
    Full,
    /// Only the tag and supertype definitions the output relies on, plus the new
    /// ones.
    Minimal,
}

/// Options of [`write_typed`].
#[derive(Clone, Debug, Default)]
pub struct TypedOptions {
    /// The writer's configuration (encoding, line ending, line limit …). Its escape
    /// table is replaced by the schema's.
    pub config: WriterConfig,
    /// The `GEDC` lines of the `HEAD` (see [`HeadOptions`]).
    pub head: HeadOptions,
    /// How much of the schema a written `SCHMA` carries.
    pub schema_lines: SchemaLines,
}

impl TypedOptions {
    /// The default options with [`SchemaLines::Minimal`].
    #[must_use]
    pub fn minimal() -> Self {
        TypedOptions {
            schema_lines: SchemaLines::Minimal,
            ..TypedOptions::default()
        }
    }
}

/// How a [`TypedDocument`] is written: from [`plan`].
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per document type id: the expanded IRI.
    expanded: Vec<String>,
    /// Per node: index into `tags`.
    node_tag: Vec<u32>,
    tags: Vec<Box<str>>,
    xrefs: HashMap<u32, Box<str>>,
    invented: Vec<(Box<str>, String)>,
    schema: Option<HeadSchema>,
}

impl Plan {
    /// The tag `id` is written with.
    #[must_use]
    pub fn tag(&self, id: impl Into<StructureId>) -> Option<&str> {
        let t = *self.node_tag.get(id.into().0 as usize)?;
        Some(&self.tags[t as usize])
    }

    /// The xref id `record` is written with (`None` when it has none).
    #[must_use]
    pub fn xref(&self, record: RecordId) -> Option<&str> {
        self.xrefs.get(&record.0).map(|x| &**x)
    }

    /// The tags invented for types the schema has no tag for, with their types.
    pub fn invented(&self) -> impl Iterator<Item = (&str, &str)> {
        self.invented.iter().map(|(t, i)| (&**t, i.as_str()))
    }

    /// The `SCHMA` written under the `HEAD`; `None` when none is (the default
    /// schema is in force).
    #[must_use]
    pub fn schema(&self) -> Option<&HeadSchema> {
        self.schema.as_ref()
    }

    /// The expanded type of `id`.
    #[must_use]
    pub fn structure_type<'p>(
        &'p self,
        doc: &TypedDocument,
        id: impl Into<StructureId>,
    ) -> Option<&'p str> {
        let n = doc.nodes.get(id.into().0 as usize)?;
        self.expanded.get(n.ty as usize).map(String::as_str)
    }
}

fn untaggable(message: String) -> WriteError {
    WriteError::new(WriteErrorKind::Untaggable, message)
}

/// `true` when `tag` can never be chosen in context `ctx`: continuation tags
/// everywhere, `HEAD`/`TRLR` for records, `CHAR`/`SCHMA` under the `HEAD`.
fn reserved_in(tag: &str, ctx: u32) -> bool {
    if tag == "CONT" || tag == "CONC" {
        return true;
    }
    match ctx {
        DOC_TYPE => tag == "TRLR" || tag.eq_ignore_ascii_case("HEAD"),
        META_TYPE => tag.eq_ignore_ascii_case("CHAR") || tag == "SCHMA",
        _ => false,
    }
}

const SPECIAL_TAGS: &[&str] = &[
    "HEAD", "TRLR", "CHAR", "SCHMA", "CONT", "CONC", "ERROR", "UNDEF", "GEDC",
];

/// `_` and the last segment of `iri` in capitals, at most `max` characters.
fn tag_base(iri: &str) -> String {
    let seg = iri
        .trim_end_matches(['/', '#', ':'])
        .rsplit(['/', '#', ':'])
        .next()
        .unwrap_or("");
    let mut s = String::from("_");
    let mut prev_us = true;
    for c in seg.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        };
        if c == '_' && prev_us {
            continue;
        }
        prev_us = c == '_';
        s.push(c);
    }
    while s.len() > 1 && s.ends_with('_') {
        s.pop();
    }
    if s.len() == 1 {
        s.push('X');
    }
    s.truncate(15);
    s
}

/// A breadth-first ISA path from `from` up to `to` (both included), as edges.
fn isa_path<'s>(schema: &'s Schema, from: &'s str, to: &str) -> Vec<(&'s str, &'s str)> {
    if from == to {
        return Vec::new();
    }
    let mut prev: HashMap<&str, &str> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    let mut seen: HashSet<&str> = HashSet::from([from]);
    while let Some(x) = queue.pop_front() {
        for s in schema.supertypes(x) {
            if seen.insert(s) {
                prev.insert(s, x);
                if s == to {
                    let mut edges = Vec::new();
                    let mut cur = s;
                    while let Some(&p) = prev.get(cur) {
                        edges.push((p, cur));
                        cur = p;
                    }
                    edges.reverse();
                    return edges;
                }
                queue.push_back(s);
            }
        }
    }
    Vec::new()
}

/// The supertypes, and the tags with their superstructure types, of one IRI.
type IriLines = (Vec<String>, Vec<(String, Vec<String>)>);

/// Accumulates the IRI definitions of a written schema, in first-use order.
#[derive(Default)]
struct SchemaOut {
    order: Vec<String>,
    defs: HashMap<String, IriLines>,
}

impl SchemaOut {
    fn entry(&mut self, iri: &str) -> &mut IriLines {
        if !self.defs.contains_key(iri) {
            self.order.push(iri.to_string());
        }
        self.defs.entry(iri.to_string()).or_default()
    }

    fn isa(&mut self, iri: &str, sup: &str) {
        let e = self.entry(iri);
        if !e.0.iter().any(|s| s == sup) {
            e.0.push(sup.to_string());
        }
    }

    fn tag(&mut self, iri: &str, tag: &str, sup: &str) {
        let e = self.entry(iri);
        match e.1.iter_mut().find(|(t, _)| t == tag) {
            Some((_, sups)) => {
                if !sups.iter().any(|s| s == sup) {
                    sups.push(sup.to_string());
                }
            }
            None => e.1.push((tag.to_string(), vec![sup.to_string()])),
        }
    }

    fn into_iris(mut self, shorten: &dyn Fn(&str) -> String) -> Vec<IriDefinition> {
        self.order
            .iter()
            .filter_map(|iri| {
                let (isa, tags) = self.defs.remove(iri)?;
                if isa.is_empty() && tags.is_empty() {
                    return None;
                }
                Some(IriDefinition {
                    iri: shorten(iri),
                    supertypes: isa.iter().map(|s| shorten(s)).collect(),
                    tags: tags
                        .into_iter()
                        .map(|(t, sups)| (t, sups.iter().map(|s| shorten(s)).collect()))
                        .collect(),
                })
            })
            .collect()
    }
}

/// Decides tags, xref ids and the `SCHMA` for writing `doc` under `schema` (see the
/// [module documentation](self)).
///
/// # Errors
/// [`WriteErrorKind::InvalidType`] for an empty type or one with whitespace, or an
/// older-draft dictionary as `schema`; [`WriteErrorKind::Untaggable`] for an
/// undefined tag identifier whose tag is defined in its context (or is `CONT` or
/// `CONC`), a structure tagged `ERROR` with substructures, or a type the written
/// schema would not give back;
/// [`WriteErrorKind::InvalidXref`] for two records with the same fixed xref id.
pub fn plan(doc: &TypedDocument, schema: &Schema, lines: SchemaLines) -> Result<Plan, WriteError> {
    if schema.source() == SchemaSource::Dictionary {
        return Err(WriteError::new(
            WriteErrorKind::InvalidType,
            "typed writing needs an ELF schema, not an older draft's IRI dictionary",
        ));
    }
    let expanded: Vec<String> = doc
        .types
        .iter()
        .map(|t| schema.expand(t).into_owned())
        .collect();
    for (i, t) in expanded.iter().enumerate().skip(2) {
        if t.is_empty() || t.contains(char::is_whitespace) {
            return Err(WriteError::new(
                WriteErrorKind::InvalidType,
                format!(
                    "structure type {:?} is not an IRI (empty or with whitespace)",
                    doc.types[i]
                ),
            ));
        }
    }

    // Two spellings of one IRI (prefixed and not) are one type.
    let mut first_of: HashMap<&str, u32> = HashMap::new();
    let canon: Vec<u32> = expanded
        .iter()
        .enumerate()
        .map(|(i, t)| *first_of.entry(t.as_str()).or_insert(i as u32))
        .collect();

    // Reverse index: type -> (tag, superstructure type), schema order.
    let mut by_type: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
    for (tag, sup, ty) in schema.all_tag_definitions() {
        by_type.entry(ty).or_default().push((tag, sup));
    }

    // Pass 1: a tag for every distinct (context, type) pair the schema covers.
    let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
    let mut pair_order: Vec<(u32, u32)> = Vec::new();
    let mut decided: Vec<Option<(String, Option<String>)>> = Vec::new();
    let mut node_pair: Vec<u32> = Vec::with_capacity(doc.nodes.len());
    for i in 0..doc.nodes.len() as u32 {
        let key = (
            canon[doc.context(i) as usize],
            canon[doc.nodes[i as usize].ty as usize],
        );
        let next = pairs.len() as u32;
        let p = *pairs.entry(key).or_insert(next);
        if p == next {
            pair_order.push(key);
            decided.push(None);
        }
        node_pair.push(p);
    }
    let mut pending: Vec<u32> = Vec::new();
    for (p, &(ctx, ty)) in pair_order.iter().enumerate() {
        let (c, t) = (&expanded[ctx as usize], &expanded[ty as usize]);
        if t == UNDEFINED {
            if schema.type_of(c, "UNDEF").is_some_and(|x| x == t.as_str()) {
                decided[p] = Some(("UNDEF".into(), None));
                continue;
            }
            return Err(untaggable(format!(
                "elf:Undefined under {c}: UNDEF is defined there"
            )));
        }
        if let Some(tag) = t.strip_prefix(UNDEFINED_TAG_BASE) {
            let ok = !tag.is_empty()
                && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !reserved_in(tag, ctx)
                && schema.type_of(c, tag).is_some_and(|x| x == t.as_str());
            if !ok {
                return Err(untaggable(format!(
                    "{t} under {c}: {tag:?} is not a tag, is reserved there, or has a tag definition there"
                )));
            }
            decided[p] = Some((tag.into(), None));
            continue;
        }
        let found = by_type.get(t.as_str()).and_then(|cands| {
            cands.iter().find(|&&(tag, sup)| {
                !reserved_in(tag, ctx)
                    && schema.is_eventual_supertype(sup, c)
                    && schema.type_of(c, tag).is_some_and(|x| x == t.as_str())
            })
        });
        match found {
            Some(&(tag, sup)) => decided[p] = Some((tag.into(), Some(sup.into()))),
            None => pending.push(p as u32),
        }
    }

    // Pass 2: new tags, colliding with nothing in use.
    let mut used: HashSet<String> = SPECIAL_TAGS.iter().map(|t| t.to_string()).collect();
    for (tag, _, _) in schema.all_tag_definitions() {
        used.insert(tag.to_ascii_uppercase());
    }
    for (tag, _) in schema.escapes().iter() {
        used.insert(String::from_utf8_lossy(tag).to_ascii_uppercase());
    }
    for (tag, _) in decided.iter().flatten() {
        used.insert(tag.to_ascii_uppercase());
    }
    let mut invented: Vec<(Box<str>, String)> = Vec::new();
    let mut invented_for: HashMap<u32, String> = HashMap::new();
    for &p in &pending {
        let (_, ty) = pair_order[p as usize];
        let tag = match invented_for.get(&ty) {
            Some(t) => t.clone(),
            None => {
                let base = tag_base(&expanded[ty as usize]);
                let mut tag = base.clone();
                let mut n = 2u32;
                while used.contains(&tag.to_ascii_uppercase()) {
                    let suffix = n.to_string();
                    let keep = base.len().min(15usize.saturating_sub(suffix.len()).max(2));
                    tag = format!("{}{suffix}", &base[..keep]);
                    n += 1;
                }
                used.insert(tag.to_ascii_uppercase());
                invented_for.insert(ty, tag.clone());
                invented.push((tag.clone().into(), expanded[ty as usize].clone()));
                tag
            }
        };
        decided[p as usize] = Some((tag, None));
    }

    // The schema to write.
    let needs_schema = !invented.is_empty() || schema.source() != SchemaSource::Default;
    let mut out_schema = None;
    if needs_schema {
        let mut so = SchemaOut::default();
        match lines {
            SchemaLines::Full => {
                for iri in schema.iris() {
                    for s in schema.supertypes(iri) {
                        so.isa(iri, s);
                    }
                }
                for (tag, sup, ty) in schema.all_tag_definitions() {
                    so.tag(ty, tag, sup);
                }
            }
            SchemaLines::Minimal => {
                let require = |so: &mut SchemaOut, c: &str, tag: &str, ty: &str, sup: &str| {
                    for (a, b) in isa_path(schema, c, sup) {
                        so.isa(a, b);
                    }
                    so.tag(ty, tag, sup);
                };
                // The HEAD lines the writer adds: GEDC with VERS, FORM, ELF.
                let mut head_lines: Vec<(String, &str)> = Vec::new();
                if let Some(g) = schema
                    .type_of(METADATA, "GEDC")
                    .filter(|t| !t.is_undefined())
                {
                    let g = g.iri().into_owned();
                    head_lines.push((METADATA.to_string(), "GEDC"));
                    for t in ["VERS", "FORM", "ELF"] {
                        head_lines.push((g.clone(), t));
                    }
                }
                for (c, tag) in &head_lines {
                    let Some(ty) = schema.type_of(c, tag).filter(|t| !t.is_undefined()) else {
                        continue;
                    };
                    let ty = ty.iri().into_owned();
                    let def = schema
                        .tag_definitions(tag)
                        .find(|&(sup, t)| t == ty && schema.is_eventual_supertype(sup, c));
                    if let Some((sup, _)) = def {
                        require(&mut so, c, tag, &ty, sup);
                    }
                }
                for (p, &(ctx, ty)) in pair_order.iter().enumerate() {
                    if let Some((tag, Some(sup))) = &decided[p] {
                        require(
                            &mut so,
                            &expanded[ctx as usize],
                            tag,
                            &expanded[ty as usize],
                            sup,
                        );
                    }
                }
            }
        }
        for &p in &pending {
            let (ctx, ty) = pair_order[p as usize];
            if let Some((tag, _)) = &decided[p as usize] {
                so.tag(&expanded[ty as usize], tag, &expanded[ctx as usize]);
            }
        }
        // Prefix shortening: the longest prefix whose name expansion reads back.
        let prefixes: Vec<(String, String)> = schema
            .prefixes()
            .into_iter()
            .filter(|(k, v)| !k.is_empty() && !k.contains(':') && !v.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let used_prefixes = std::cell::RefCell::new(HashSet::new());
        let shorten = |iri: &str| -> String {
            let best = prefixes
                .iter()
                .filter(|(_, v)| iri.len() > v.len() && iri.starts_with(v.as_str()))
                .max_by_key(|(_, v)| v.len());
            match best {
                Some((k, v)) => {
                    used_prefixes.borrow_mut().insert(k.clone());
                    format!("{k}:{}", &iri[v.len()..])
                }
                None => iri.to_string(),
            }
        };
        let iris = so.into_iris(&shorten);
        let used_prefixes = used_prefixes.into_inner();
        let prefixes = prefixes
            .into_iter()
            .filter(|(k, _)| lines == SchemaLines::Full || used_prefixes.contains(k))
            .collect();
        out_schema = Some(HeadSchema {
            external: schema.external_schemas().map(str::to_string).collect(),
            prefixes,
            escapes: schema.escapes().clone(),
            iris,
        });
    }

    // Check: every pair the output uses resolves to its type under the written
    // schema (or, with none written, the default one).
    let readback = match &out_schema {
        Some(s) => schema_of(s)?,
        None => Schema::default_schema(),
    };
    let mut tags: Vec<Box<str>> = Vec::new();
    let mut tag_ids: HashMap<String, u32> = HashMap::new();
    let mut pair_tag: Vec<u32> = Vec::with_capacity(pair_order.len());
    for (p, &(ctx, ty)) in pair_order.iter().enumerate() {
        let Some((tag, _)) = &decided[p] else {
            return Err(untaggable("internal: a structure got no tag".into()));
        };
        let (c, t) = (&expanded[ctx as usize], &expanded[ty as usize]);
        if !readback.type_of(c, tag).is_some_and(|x| x == t.as_str()) {
            return Err(untaggable(format!(
                "{t} under {c} as {tag} would not read back as {t}"
            )));
        }
        let next = tags.len() as u32;
        let id = *tag_ids.entry(tag.clone()).or_insert_with(|| {
            tags.push(tag.as_str().into());
            next
        });
        pair_tag.push(id);
    }
    let node_tag: Vec<u32> = node_pair.iter().map(|&p| pair_tag[p as usize]).collect();
    // A reader takes the substructures of an ERROR line for too-deep lines.
    if let Some(i) = (0..doc.nodes.len())
        .find(|&i| doc.nodes[i].first != NONE && &*tags[node_tag[i] as usize] == "ERROR")
    {
        return Err(untaggable(format!(
            "structure {i} is tagged ERROR and has substructures, which a reader would take for too-deep lines"
        )));
    }

    // Xref ids: fixed ones, then one for each pointed-to record.
    let mut xrefs: HashMap<u32, Box<str>> = HashMap::new();
    let mut fixed: HashSet<String> = HashSet::new();
    for &r in &doc.records {
        if let Some(x) = &doc.nodes[r as usize].xref {
            if !fixed.insert(x.to_ascii_lowercase()) {
                return Err(WriteError::new(
                    WriteErrorKind::InvalidXref,
                    format!("two records have the xref id {x}"),
                ));
            }
            xrefs.insert(r, x.clone());
        }
    }
    let mut pointed = vec![false; doc.nodes.len()];
    for n in &doc.nodes {
        if let Some(TypedValue::Pointer(r)) = &n.value {
            pointed[r.0 as usize] = true;
        }
    }
    let mut counters: HashMap<u8, u32> = HashMap::new();
    for &r in &doc.records {
        if !pointed[r as usize] || xrefs.contains_key(&r) {
            continue;
        }
        let tag = &tags[node_tag[r as usize] as usize];
        let letter = tag
            .bytes()
            .find(u8::is_ascii_alphanumeric)
            .map_or(b'X', |b| b.to_ascii_uppercase());
        let n = counters.entry(letter).or_insert(0);
        let x = loop {
            *n += 1;
            let x = format!("@{}{}@", letter as char, n);
            if !fixed.contains(&x.to_ascii_lowercase()) {
                break x;
            }
        };
        xrefs.insert(r, x.into());
    }

    Ok(Plan {
        expanded,
        node_tag,
        tags,
        xrefs,
        invented,
        schema: out_schema,
    })
}

/// The schema a reader takes from a `HEAD` holding `s` as its `SCHMA`.
fn schema_of(s: &HeadSchema) -> Result<std::sync::Arc<Schema>, WriteError> {
    let mut w = Writer::new(Vec::new());
    w.begin_head(&HeadOptions {
        gedc: false,
        elf: None,
        schema: Some(s.clone()),
    })?;
    w.trailer()?;
    let bytes = w.finish()?;
    Schema::from_reader(crate::Reader::from_slice(&bytes))
        .map_err(|e| WriteError::new(WriteErrorKind::Read, e.to_string()))
}

/// Writes `doc` under `schema` with `opts`: plans it (see [`plan`]), then writes
/// `HEAD` (with `CHAR`, `GEDC` per `opts.head`, the `SCHMA` when one is needed, and
/// the metadata structures), the records and `TRLR`. Returns the plan (tags, xref
/// ids, new tags). Nothing is written when planning fails.
///
/// # Errors
/// As [`plan`] and [`Writer::begin`] (for instance a fixed xref with a character the
/// output encoding lacks).
pub fn write_typed<W: Write>(
    doc: &TypedDocument,
    schema: &Schema,
    opts: &TypedOptions,
    out: W,
) -> Result<Plan, WriteError> {
    let plan = plan(doc, schema, opts.schema_lines)?;
    let config = opts.config.clone().escapes(schema.escapes().clone());
    let mut w = Writer::with_config(out, config);
    w.begin_head(&HeadOptions {
        schema: plan.schema.clone(),
        ..opts.head.clone()
    })?;
    for &m in &doc.metadata {
        write_subtree(&mut w, doc, &plan, m)?;
    }
    w.end()?;
    for &r in &doc.records {
        write_subtree(&mut w, doc, &plan, r)?;
    }
    w.trailer()?;
    w.finish()?;
    Ok(plan)
}

fn write_node<W: Write>(
    w: &mut Writer<W>,
    doc: &TypedDocument,
    plan: &Plan,
    i: u32,
) -> Result<(), WriteError> {
    let n = &doc.nodes[i as usize];
    let tag = &plan.tags[plan.node_tag[i as usize] as usize];
    let xref = plan.xrefs.get(&i).map(|x| &**x);
    let value = match &n.value {
        None => None,
        Some(TypedValue::Text(t)) => Some(WriteValue::Text(t)),
        Some(TypedValue::Pointer(r)) => {
            let x = plan
                .xrefs
                .get(&r.0)
                .ok_or_else(|| bad_handle("the pointer's target"))?;
            Some(WriteValue::Pointer(x))
        }
    };
    w.begin(tag, xref, value)
}

/// Writes node `root` and its subtree without recursion.
fn write_subtree<W: Write>(
    w: &mut Writer<W>,
    doc: &TypedDocument,
    plan: &Plan,
    root: u32,
) -> Result<(), WriteError> {
    write_node(w, doc, plan, root)?;
    let mut stack = vec![doc.nodes[root as usize].first];
    while let Some(top) = stack.last_mut() {
        let c = *top;
        if c == NONE {
            stack.pop();
            w.end()?;
            continue;
        }
        *top = doc.nodes[c as usize].next;
        write_node(w, doc, plan, c)?;
        stack.push(doc.nodes[c as usize].first);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_bases() {
        assert_eq!(tag_base("https://example.com/ext/Nickname"), "_NICKNAME");
        assert_eq!(tag_base("https://example.com/ext#nick-name"), "_NICK_NAME");
        assert_eq!(tag_base("urn:x:label/"), "_LABEL");
        assert_eq!(tag_base("https://example.com/"), "_EXAMPLE_COM");
        assert_eq!(tag_base("https://example.com/ext/--"), "_X");
        assert_eq!(
            tag_base("https://e/AVeryLongTypeNameIndeed"),
            "_AVERYLONGTYPEN"
        );
    }
}
