//! ELF schemas (seed §6.2, §7, Appendix A) and the older drafts' IRI
//! dictionaries: which structure type identifier each tag has in each
//! context.
//!
//! A [`Schema`] is read from the HEAD of a document:
//!
//! * every `1 SCHMA` under the HEAD, merged: `PRFX prefix IRI`, `IRI` with
//!   `ISA` and `TAG` substructures, `ESC TAG TYPES`, and `SCHMA IRI`
//!   (external schemas: recorded, never fetched). IRIs are prefix-expanded;
//!   the prefix `elf` is predefined as `https://terms.fhiso.org/elf/` and a
//!   `PRFX elf ...` line overrides it. With any `SCHMA`, that schema
//!   replaces the default ([`SchemaSource::Document`]).
//! * with no `SCHMA`, the older drafts' IRI dictionary (seed 000 and 003
//!   §6): `1 PRFX` and `1 DEFN` directly under the HEAD
//!   ([`SchemaSource::Dictionary`]);
//! * with neither, the built-in default schema of seed Appendix A
//!   ([`SchemaSource::Default`]).
//! * GEDCOM 7's extension tags: each `2 TAG _EXT URI` under a `1 SCHMA`
//!   (7.0 §1 "Extension Tags") makes `URI` the structure type of every
//!   structure tagged `_EXT`, wherever it is (a record, a substructure, a
//!   relocated standard structure such as `_DATE` for `g7:DATE`), unless
//!   the schema's own tag definitions give that tag a type in that context.
//!   In a GEDCOM 7 document ([`Schema::version`]) the `SCHMA` only documents
//!   extension tags: the schema is GEDCOM 7's ([`Schema::gedcom7`]: the
//!   standard structure types of the specification's tables, in context;
//!   the HEAD has a type, `g7:HEAD`) with them added
//!   ([`SchemaSource::Document`] when there are any), not a replacement. A
//!   tag the `SCHMA` gives several URIs (7.0 allows that for concepts that
//!   never meet in one place, which only the extensions' own documentation
//!   tells apart) gets the first; a `TAG` payload that is not an extension
//!   tag and a URI is ignored with a [`DiagnosticKind::Schema`] diagnostic.
//!
//! # Interpretations
//!
//! * Appendix A defines `elf:BURIAL` with the tag `BRI`, evidently a typo for
//!   GEDCOM's `BURI`. Wherever a schema (the default one or a document's)
//!   gives `https://terms.fhiso.org/elf/BURIAL` the tag `BRI`, the tag
//!   `BURI` is defined for it too, in the same contexts.
//! * Conflicting `PRFX` lines for one prefix: the first wins, with a
//!   diagnostic. So for a default namespace or `DEFN` in a dictionary.
//! * A tag definition whose first token is not a tag, or which names no
//!   superstructure type, is ignored with a diagnostic; so is anything
//!   unknown inside a `SCHMA`.
//! * Tag and supertype definitions that give one structure two types are
//!   reported once per tag as a [`DiagnosticKind::Schema`] diagnostic when
//!   the schema is read; such structures get `elf:Undefined#TAG` (§7.3).
//! * In dictionary mode types do not depend on context (that is how those
//!   drafts work): `CHAR`, `CONC`, `CONT`, `DEFN`, `PRFX` and `TRLR` are
//!   pseudo-structures without a type (their substructures neither), and
//!   every other tag maps per seed 003 §6.2, `HEAD` included. `UNDEF` is
//!   `elf:Undefined` in every mode.

use crate::scan::is_tag;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::diag::{Diagnostic, DiagnosticKind, Position};
use crate::escape::EscapeTable;
use crate::event::{Begin, Event, Value};
use crate::read::Reader;
use crate::tree::hash::FastMap;
use crate::tree::iri::StructureType;
use crate::{Error, Input, Version};

pub use super::iri::{DOCUMENT, ELF_NS, G7_NS, METADATA, UNDEFINED, UNDEFINED_TAG_BASE};

/// The older drafts' fallback namespace for tags (seed 003 §6.2 rule 5).
pub const OLD_ELF_NS: &str = "http://terms.fhiso.org/elf/";

/// The default schema: seed 001 Appendix A, extracted verbatim as
/// `shared/default-schema.ged` (FHISO ELF serialisation draft, "Appendix A:
/// Default Schema").
pub const DEFAULT_SCHEMA_GED: &str = include_str!("default-schema.ged");

/// GEDCOM 7's structure tables as `scripts/derive_structure_tables.py`
/// derives them from the specification's `substructures.tsv`,
/// `cardinalities.tsv` and `payloads.tsv`: the `sub` rows (superstructure
/// type, tag, type, cardinality) give [`Schema::gedcom7`] its tag
/// definitions, and the validator its structure rules.
pub(crate) const GEDCOM70_TABLE: &str = include_str!("../tables/gedcom70.tsv");

const NO_SUFFIX: u32 = u32::MAX;

/// Where a [`Schema`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaSource {
    /// The built-in schema of the document's version: the HEAD has no
    /// `SCHMA` and no older-draft dictionary. Seed Appendix A's default
    /// schema for 5.5.1 ([`Schema::default_schema`]), the GEDCOM 7
    /// specification's structure types for 7.0 ([`Schema::gedcom7`]).
    Default,
    /// The `SCHMA` structures of the document's HEAD.
    Document,
    /// An older draft's IRI dictionary (`1 PRFX` / `1 DEFN` under the HEAD).
    Dictionary,
}

/// A structure's type as stored: an interned base IRI plus, optionally, the
/// tail of the tag from byte `suffix` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TypeKey {
    pub(crate) base: u32,
    pub(crate) suffix: u32,
}

/// The superstructure context a tag is resolved in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ctx {
    /// Inside serialisation metadata (CHAR, SCHMA, TRLR subtrees): no type.
    Untyped,
    /// Directly under the HEAD.
    Head,
    /// Under a structure of this (interned) type.
    Type(u32),
    /// Under a structure whose type the schema knows nothing about.
    Unknown,
    /// Dictionary mode: context does not matter.
    Dict,
}

/// An ELF schema or older-draft IRI dictionary, ready to give structure
/// types. Immutable and cheap to share (`Send + Sync`).
///
/// ```
/// use gedcom_elf::tree::{Schema, SchemaSource};
///
/// let schema = Schema::default_schema();
/// assert_eq!(schema.source(), SchemaSource::Default);
/// let t = schema.type_of("https://terms.fhiso.org/elf/FAM_RECORD", "HUSB").unwrap();
/// assert_eq!(t.to_string(), "https://terms.fhiso.org/elf/PARENT1_POINTER");
/// let t = schema.type_of("https://terms.fhiso.org/elf/MARRIAGE", "HUSB").unwrap();
/// assert_eq!(t.to_string(), "https://terms.fhiso.org/elf/Parent1Age");
/// ```
#[derive(Clone, Debug)]
pub struct Schema {
    source: SchemaSource,
    /// The version of the document whose HEAD it was read from.
    version: Version,
    /// GEDCOM 7 extension tags (`SCHMA.TAG`) and the URIs they stand for.
    extension_tags: FastMap<Box<str>, u32>,
    iris: Vec<Box<str>>,
    ids: FastMap<Box<str>, u32>,
    supers: Vec<Vec<u32>>,
    ancestors: Vec<OnceLock<Box<[u32]>>>,
    tags: FastMap<Box<str>, Vec<(u32, u32)>>,
    /// Every tag definition `(tag, superstructure type, type)`, in schema order.
    definitions: Vec<(Box<str>, u32, u32)>,
    prefixes: Vec<(Box<str>, Box<str>)>,
    escapes: EscapeTable,
    external: Vec<Box<str>>,
    dict_default: Option<u32>,
    dict_ns: FastMap<Box<str>, u32>,
    dict_defn: FastMap<Box<str>, Vec<u32>>,
    diagnostics: Vec<Diagnostic>,
    has_undefined_iris: bool,
    document: u32,
    metadata: u32,
    undefined: u32,
    undefined_tag: u32,
    old_elf: u32,
    /// GEDCOM 7's schema: the HEAD is a record like the others.
    g7: bool,
}

#[derive(Default)]
struct RawIri {
    iri: String,
    line: Position,
    isa: Vec<(String, Position)>,
    tags: Vec<(String, Position)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum L1 {
    Schma,
    Other,
}

/// Builds a [`Schema`] from the Begin events of a document's HEAD, with
/// the escape table of its `ESC` lines from the reader's own parser.
#[derive(Default)]
pub(crate) struct SchemaBuilder {
    records: u32,
    in_head: bool,
    done: bool,
    l1: Option<L1>,
    iri: Option<usize>,
    has_schma: bool,
    prfx: Vec<(String, Position)>,
    iris: Vec<RawIri>,
    escapes: EscapeTable,
    /// `ESC` payloads the reader's parser rejected.
    bad_escapes: Vec<(String, Position)>,
    external: Vec<String>,
    old_prfx: Vec<(String, Position)>,
    old_defn: Vec<(String, Position)>,
    /// GEDCOM 7 `TAG` payloads under a `SCHMA`.
    extension_tags: Vec<(String, Position)>,
    version: Version,
    diagnostics: Vec<Diagnostic>,
}

fn pos(b: &Begin<'_>) -> Position {
    Position {
        line: b.line,
        byte: b.span.start as u64,
    }
}

fn payload_text(b: &Begin<'_>) -> Option<String> {
    match &b.value {
        Some(Value::Text(p)) => Some(p.text().into_owned()),
        Some(Value::Pointer(x)) => Some(x.to_str_lossy().into_owned()),
        None => None,
    }
}

fn diag(position: Position, message: String) -> Diagnostic {
    Diagnostic {
        kind: DiagnosticKind::Schema,
        position,
        message,
    }
}

impl SchemaBuilder {
    /// Reads the HEAD of the input `reader` is about to read.
    fn read(mut reader: Reader<'_>) -> Result<SchemaBuilder, Error> {
        let mut b = SchemaBuilder {
            version: reader.version(),
            ..SchemaBuilder::default()
        };
        b.escapes = reader.head_escapes(&mut |line, byte, payload| {
            let text = String::from_utf8_lossy(payload).into_owned();
            let at = Position {
                line,
                byte: byte as u64,
            };
            b.bad_escapes.push((text, at));
        });
        while let Some(e) = reader.next_event()? {
            if let Event::Begin(begin) = e {
                if !b.begin(&begin) {
                    break;
                }
            }
        }
        Ok(b)
    }

    /// Feeds one Begin event. Returns `false` when `begin` is not part of
    /// the HEAD (the first record, when tagged `HEAD`): the HEAD is over and
    /// further events change nothing.
    fn begin(&mut self, b: &Begin<'_>) -> bool {
        if self.done {
            return false;
        }
        if b.level == 0 {
            self.records += 1;
            if self.records == 1 && b.tag.eq_ignore_ascii_case("HEAD") {
                self.in_head = true;
                return true;
            }
            self.done = true;
            self.in_head = false;
            return false;
        }
        if !self.in_head {
            return true;
        }
        match b.level {
            1 => {
                self.iri = None;
                self.l1 = Some(match b.tag.as_ref() {
                    "SCHMA" => {
                        self.has_schma = true;
                        if b.value.is_some() {
                            self.diagnostics.push(diag(
                                pos(b),
                                "schma under the head has a payload; ignored".into(),
                            ));
                        }
                        L1::Schma
                    }
                    "PRFX" => {
                        self.old_prfx
                            .push((payload_text(b).unwrap_or_default(), pos(b)));
                        L1::Other
                    }
                    "DEFN" => {
                        self.old_defn
                            .push((payload_text(b).unwrap_or_default(), pos(b)));
                        L1::Other
                    }
                    _ => L1::Other,
                });
            }
            2 if self.l1 == Some(L1::Schma) => {
                self.iri = None;
                let text = payload_text(b);
                match (b.tag.as_ref(), text) {
                    ("PRFX", Some(t)) => self.prfx.push((t, pos(b))),
                    // Its table is the reader's (`SchemaBuilder::read`).
                    ("ESC", Some(_)) => {}
                    ("SCHMA", Some(t)) => self.external.push(t.trim().to_string()),
                    // GEDCOM 7's `HEAD.SCHMA.TAG`; in a 5.5.1 schema a
                    // `TAG` belongs under an `IRI` (below).
                    ("TAG", Some(t)) if self.version == Version::Gedcom7 => {
                        self.extension_tags.push((t, pos(b)))
                    }
                    ("IRI", Some(t)) => {
                        self.iri = Some(self.iris.len());
                        self.iris.push(RawIri {
                            iri: t.trim().to_string(),
                            line: pos(b),
                            ..RawIri::default()
                        });
                    }
                    ("PRFX" | "ESC" | "SCHMA" | "IRI" | "TAG", None) => {
                        self.diagnostics.push(diag(
                            pos(b),
                            format!("{} in a schma without a payload; ignored", b.tag),
                        ))
                    }
                    (tag, _) => self.diagnostics.push(diag(
                        pos(b),
                        format!("unknown structure {tag:?} in a schma; ignored"),
                    )),
                }
            }
            3 if self.iri.is_some() => {
                let i = self.iri.unwrap_or_default();
                let text = payload_text(b);
                match (b.tag.as_ref(), text) {
                    ("ISA", Some(t)) => self.iris[i].isa.push((t, pos(b))),
                    ("TAG", Some(t)) => self.iris[i].tags.push((t, pos(b))),
                    (tag, _) => self.diagnostics.push(diag(
                        pos(b),
                        format!("{tag:?} under an iri definition (expected isa or tag with a payload); ignored"),
                    )),
                }
            }
            _ => {}
        }
        true
    }

    /// The schema: the document's `SCHMA`s when there were any, else its
    /// older-draft dictionary when it had one, else the default schema.
    fn finish(self) -> Arc<Schema> {
        if self.version == Version::Gedcom7 {
            // 7.0's SCHMA documents extension tags; it replaces nothing.
            let mut s = (*Schema::gedcom7()).clone();
            s.diagnostics = self.diagnostics;
            if !self.extension_tags.is_empty() {
                s.source = SchemaSource::Document;
            }
            s.add_extension_tags(&self.extension_tags);
            return Arc::new(s);
        }
        if self.has_schma {
            Arc::new(self.build_schema(SchemaSource::Document))
        } else if !self.old_prfx.is_empty() || !self.old_defn.is_empty() {
            Arc::new(self.build_dictionary())
        } else {
            Schema::default_schema()
        }
    }

    fn build_dictionary(self) -> Schema {
        let mut s = Schema::empty(SchemaSource::Dictionary);
        s.diagnostics = self.diagnostics;
        for (text, at) in &self.old_prfx {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            match tokens[..] {
                [iri] => {
                    if s.dict_default.is_some() {
                        s.diagnostics.push(diag(
                            *at,
                            "second default namespace definition ignored".into(),
                        ));
                    } else {
                        s.dict_default = Some(s.intern(iri));
                    }
                }
                [key, iri] => {
                    let valid = key.ends_with('_')
                        && key[..key.len() - 1]
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric());
                    if !valid {
                        s.diagnostics.push(diag(
                            *at,
                            format!("namespace key {key:?} does not match [0-9A-Za-z]*_; ignored"),
                        ));
                    } else if s.dict_ns.contains_key(key) {
                        s.diagnostics.push(diag(
                            *at,
                            format!("second namespace definition for {key:?} ignored"),
                        ));
                    } else {
                        let id = s.intern(iri);
                        s.dict_ns.insert(key.into(), id);
                    }
                }
                _ => s.diagnostics.push(diag(
                    *at,
                    format!(
                        "prfx payload {text:?} is neither an iri nor a key and an iri; ignored"
                    ),
                )),
            }
        }
        for (text, at) in &self.old_defn {
            let mut tokens = text.split_whitespace();
            let (Some(key), Some(_)) = (tokens.next(), tokens.clone().next()) else {
                s.diagnostics.push(diag(
                    *at,
                    format!("defn payload {text:?} is not a tag and one or more iris; ignored"),
                ));
                continue;
            };
            if !is_tag(key.as_bytes()) {
                s.diagnostics
                    .push(diag(*at, format!("defn key {key:?} is not a tag; ignored")));
                continue;
            }
            if s.dict_defn.contains_key(key) {
                s.diagnostics
                    .push(diag(*at, format!("second defn for {key:?} ignored")));
                continue;
            }
            let ids: Vec<u32> = tokens.map(|i| s.intern(i)).collect();
            s.dict_defn.insert(key.into(), ids);
        }
        s.finish_tables();
        s
    }

    fn build_schema(self, source: SchemaSource) -> Schema {
        let mut s = Schema::empty(source);
        s.diagnostics = self.diagnostics;
        s.prefixes.push(("elf".into(), ELF_NS.into()));
        let mut declared: Vec<&str> = Vec::new();
        for (text, at) in &self.prfx {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            let [p, iri] = tokens[..] else {
                s.diagnostics.push(diag(
                    *at,
                    format!("prfx payload {text:?} is not a prefix and an iri; ignored"),
                ));
                continue;
            };
            let p = p.strip_suffix(':').unwrap_or(p);
            if declared.contains(&p) {
                let same = s.prefixes.iter().any(|(k, v)| &**k == p && &**v == iri);
                if !same {
                    s.diagnostics.push(diag(
                        *at,
                        format!("conflicting prfx for {p:?} ignored (the first one is used)"),
                    ));
                }
                continue;
            }
            declared.push(p);
            s.prefixes.retain(|(k, _)| &**k != p);
            s.prefixes.push((p.into(), iri.into()));
        }
        s.escapes = self.escapes;
        for (text, at) in &self.bad_escapes {
            s.diagnostics.push(diag(
                *at,
                format!("esc payload {text:?} is not a tag and escape types; ignored"),
            ));
        }
        for x in &self.external {
            let e = s.expand(x).into_owned();
            s.external.push(e.into());
        }
        let burial = format!("{ELF_NS}BURIAL");
        for raw in &self.iris {
            if raw.iri.is_empty() || raw.iri.contains(char::is_whitespace) {
                s.diagnostics.push(diag(
                    raw.line,
                    format!("iri definition {:?} is not an iri; ignored", raw.iri),
                ));
                continue;
            }
            let iri = s.expand(&raw.iri).into_owned();
            let id = s.intern(&iri);
            for (sup, at) in &raw.isa {
                let sup = sup.trim();
                if sup.is_empty() || sup.contains(char::is_whitespace) {
                    s.diagnostics.push(diag(
                        *at,
                        format!("isa payload {sup:?} is not an iri; ignored"),
                    ));
                    continue;
                }
                let e = s.expand(sup).into_owned();
                let sid = s.intern(&e);
                if !s.supers[id as usize].contains(&sid) {
                    s.supers[id as usize].push(sid);
                }
            }
            for (text, at) in &raw.tags {
                let mut tokens = text.split_whitespace();
                let tag = tokens.next().unwrap_or_default();
                let sups: Vec<&str> = tokens.collect();
                if !is_tag(tag.as_bytes()) || sups.is_empty() {
                    s.diagnostics.push(diag(
                        *at,
                        format!("tag payload {text:?} is not a tag and one or more superstructure types; ignored"),
                    ));
                    continue;
                }
                let names: &[&str] = if tag == "BRI" && iri == burial {
                    &["BRI", "BURI"]
                } else {
                    &[tag]
                };
                for t in names {
                    for sup in &sups {
                        let e = s.expand(sup).into_owned();
                        let sid = s.intern(&e);
                        let defs = s.tags.entry((*t).into()).or_default();
                        if !defs.contains(&(sid, id)) {
                            defs.push((sid, id));
                            s.definitions.push(((*t).into(), sid, id));
                        }
                    }
                }
            }
        }
        s.add_extension_tags(&self.extension_tags);
        s.finish_tables();
        s.check_conflicts();
        s
    }
}

impl Schema {
    fn empty(source: SchemaSource) -> Schema {
        let mut s = Schema {
            source,
            version: Version::Gedcom551,
            extension_tags: FastMap::default(),
            iris: Vec::new(),
            ids: FastMap::default(),
            supers: Vec::new(),
            ancestors: Vec::new(),
            tags: FastMap::default(),
            definitions: Vec::new(),
            prefixes: Vec::new(),
            escapes: EscapeTable::empty(),
            external: Vec::new(),
            dict_default: None,
            dict_ns: FastMap::default(),
            dict_defn: FastMap::default(),
            diagnostics: Vec::new(),
            has_undefined_iris: false,
            document: 0,
            metadata: 0,
            undefined: 0,
            undefined_tag: 0,
            old_elf: 0,
            g7: false,
        };
        s.document = s.intern(DOCUMENT);
        s.metadata = s.intern(METADATA);
        s.undefined = s.intern(UNDEFINED);
        s.undefined_tag = s.intern(UNDEFINED_TAG_BASE);
        s.old_elf = s.intern(OLD_ELF_NS);
        s
    }

    /// Adds GEDCOM 7 tag definitions (`TAG` payloads: an extension tag and
    /// a URI), the first URI of a tag winning.
    fn add_extension_tags(&mut self, defs: &[(String, Position)]) {
        for (text, at) in defs {
            let mut tokens = text.split_whitespace();
            let (Some(tag), Some(uri), None) = (tokens.next(), tokens.next(), tokens.next()) else {
                self.diagnostics.push(diag(
                    *at,
                    format!("tag payload {text:?} is not an extension tag and a uri; ignored"),
                ));
                continue;
            };
            if !(tag.len() > 1 && tag.starts_with('_') && is_tag(tag.as_bytes())) {
                self.diagnostics.push(diag(
                    *at,
                    format!("tag definition for {tag:?}, which is not an extension tag; ignored"),
                ));
                continue;
            }
            if self.extension_tags.contains_key(tag) {
                continue;
            }
            let id = self.intern(uri);
            self.extension_tags.insert(tag.into(), id);
        }
        // Interning may have added IRIs.
        if self.ancestors.len() != self.iris.len() {
            self.ancestors.resize_with(self.iris.len(), OnceLock::new);
        }
    }

    /// The URI a GEDCOM 7 `SCHMA.TAG` gives the extension tag `tag`.
    fn extension_key(&self, tag: &str) -> Option<TypeKey> {
        self.extension_tags.get(tag).map(|&base| TypeKey {
            base,
            suffix: NO_SUFFIX,
        })
    }

    /// The GEDCOM version of the document whose HEAD this schema was read
    /// from ([`Reader::version`]); 5.5.1 for the default schema.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The URI a GEDCOM 7 `HEAD.SCHMA.TAG` line gives the extension tag
    /// `tag` (the first, when it gives several), if any.
    pub fn extension_uri(&self, tag: &str) -> Option<&str> {
        self.extension_tags
            .get(tag)
            .map(|&id| &*self.iris[id as usize])
    }

    fn intern(&mut self, iri: &str) -> u32 {
        if let Some(&id) = self.ids.get(iri) {
            return id;
        }
        let id = self.iris.len() as u32;
        self.iris.push(iri.into());
        self.ids.insert(iri.into(), id);
        self.supers.push(Vec::new());
        id
    }

    fn finish_tables(&mut self) {
        self.ancestors = (0..self.iris.len()).map(|_| OnceLock::new()).collect();
        self.has_undefined_iris = self
            .iris
            .iter()
            .any(|i| i.starts_with(UNDEFINED_TAG_BASE) && i.len() > UNDEFINED_TAG_BASE.len());
    }

    /// Reports tags whose definitions give some superstructure type two
    /// different types. Bounded work: skipped for very large schemas.
    fn check_conflicts(&mut self) {
        let n = self.iris.len();
        let mut tags: Vec<(&str, &[(u32, u32)])> = self
            .tags
            .iter()
            .filter(|(_, defs)| defs.iter().any(|d| d.1 != defs[0].1))
            .map(|(t, d)| (&**t, &d[..]))
            .collect();
        tags.sort_by(|a, b| a.0.cmp(b.0));
        let work: usize = tags.iter().map(|(_, d)| d.len()).sum::<usize>() * n;
        if work > 20_000_000 {
            return;
        }
        let mut found = Vec::new();
        for (tag, defs) in tags {
            for s in 0..n as u32 {
                let anc = self.ancestors_of(s);
                let mut ty = None;
                let mut conflict = false;
                for &(d, t) in defs.iter() {
                    if anc.binary_search(&d).is_ok() {
                        match ty {
                            None => ty = Some(t),
                            Some(x) if x != t => conflict = true,
                            _ => {}
                        }
                    }
                }
                if conflict {
                    found.push(format!(
                        "conflicting tag definitions: tag {tag} under {} has more than one type; such structures are elf:Undefined#{tag}",
                        self.iris[s as usize]
                    ));
                    break;
                }
            }
        }
        for m in found {
            self.diagnostics.push(diag(Position::default(), m));
        }
    }

    /// The reflexive-transitive closure of ISA from `id`, sorted.
    fn ancestors_of(&self, id: u32) -> &[u32] {
        self.ancestors[id as usize].get_or_init(|| {
            let mut seen = vec![id];
            let mut stack = vec![id];
            while let Some(x) = stack.pop() {
                for &s in &self.supers[x as usize] {
                    if !seen.contains(&s) {
                        seen.push(s);
                        stack.push(s);
                    }
                }
            }
            seen.sort_unstable();
            seen.into_boxed_slice()
        })
    }

    /// The built-in default schema (seed Appendix A), shared.
    pub fn default_schema() -> Arc<Schema> {
        static DEFAULT: OnceLock<Arc<Schema>> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                let reader = Reader::from_slice(DEFAULT_SCHEMA_GED.as_bytes());
                let b = SchemaBuilder::read(reader).unwrap_or_default();
                let mut s = b.build_schema(SchemaSource::Default);
                s.diagnostics.clear();
                Arc::new(s)
            })
            .clone()
    }

    /// The GEDCOM 7 schema, shared: every standard structure's type from
    /// the specification's tables ([`G7_NS`] and the type's name:
    /// `g7:record-INDI`, `g7:BIRT`, `g7:FAM-HUSB` for a family's `HUSB`
    /// and `g7:HUSB` for an event's, `g7:HEAD`), records under
    /// [`DOCUMENT`]; the prefix `g7` [expands](Schema::expand) to
    /// [`G7_NS`]. The schema of a 7.0 document is this one with the
    /// extension tags of its `HEAD.SCHMA` added.
    ///
    /// ```
    /// use gedcom_elf::tree::Schema;
    ///
    /// let g7 = Schema::gedcom7();
    /// let husb = g7.type_of(&g7.expand("g7:record-FAM"), "HUSB").unwrap();
    /// assert_eq!(husb.to_string(), "https://gedcom.io/terms/v7/FAM-HUSB");
    /// let husb = g7.type_of(&g7.expand("g7:MARR"), "HUSB").unwrap();
    /// assert_eq!(husb.to_string(), "https://gedcom.io/terms/v7/HUSB");
    /// ```
    pub fn gedcom7() -> Arc<Schema> {
        static G7: OnceLock<Arc<Schema>> = OnceLock::new();
        G7.get_or_init(|| {
            let mut s = Schema::empty(SchemaSource::Default);
            s.version = Version::Gedcom7;
            s.g7 = true;
            s.prefixes.push(("g7".into(), G7_NS.into()));
            for row in GEDCOM70_TABLE.lines() {
                let mut cols = row.split('\t');
                let (Some("sub"), Some(sup), Some(tag), Some(ty)) =
                    (cols.next(), cols.next(), cols.next(), cols.next())
                else {
                    continue;
                };
                let sid = match sup {
                    "Document" => s.document,
                    _ => s.intern(&format!("{G7_NS}{sup}")),
                };
                let id = s.intern(&format!("{G7_NS}{ty}"));
                let defs = s.tags.entry(tag.into()).or_default();
                if !defs.contains(&(sid, id)) {
                    defs.push((sid, id));
                    s.definitions.push((tag.into(), sid, id));
                }
            }
            s.finish_tables();
            Arc::new(s)
        })
        .clone()
    }

    /// Reads the schema from the HEAD of the input `reader` is about to
    /// read (a reader that has not yet returned an event). The reader is
    /// consumed; clone it first to read the document too. Only the HEAD is
    /// read: the look over the whole input that a reader makes when it
    /// starts is left to the reader of the document.
    ///
    /// # Errors
    /// The reader's errors (not GEDCOM, unsupported encoding, strict mode).
    pub fn from_reader(reader: Reader<'_>) -> Result<Arc<Schema>, Error> {
        Ok(SchemaBuilder::read(crate::par::first_record_reader(reader))?.finish())
    }

    /// Reads the schema from the HEAD of `input`.
    ///
    /// # Errors
    /// As [`Schema::from_reader`].
    pub fn from_input(input: &Input<'_>) -> Result<Arc<Schema>, Error> {
        Schema::from_reader(input.reader())
    }

    /// Where this schema came from.
    pub fn source(&self) -> SchemaSource {
        self.source
    }

    /// Problems met while reading the schema, in document order (conflict
    /// reports last, with line 0).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The prefixes in force, `elf` first unless overridden (schema mode),
    /// or the namespace keys (dictionary mode).
    pub fn prefixes(&self) -> Vec<(&str, &str)> {
        match self.source {
            SchemaSource::Dictionary => {
                let mut v: Vec<(&str, &str)> = self
                    .dict_ns
                    .iter()
                    .map(|(k, &id)| (&**k, &*self.iris[id as usize]))
                    .collect();
                v.sort_unstable();
                v
            }
            _ => self.prefixes.iter().map(|(k, v)| (&**k, &**v)).collect(),
        }
    }

    /// The default namespace of an older-draft dictionary.
    pub fn default_namespace(&self) -> Option<&str> {
        self.dict_default.map(|id| &*self.iris[id as usize])
    }

    /// Prefix-expands `s` (seed §6.2): `prefix:rest` with a known prefix
    /// becomes the prefix's IRI followed by `rest`.
    pub fn expand<'s>(&self, s: &'s str) -> Cow<'s, str> {
        if let Some((p, rest)) = s.split_once(':') {
            if let Some((_, iri)) = self.prefixes.iter().find(|(k, _)| &**k == p) {
                return Cow::Owned(format!("{iri}{rest}"));
            }
        }
        Cow::Borrowed(s)
    }

    /// The escape-preservation table of the schema's `ESC` lines.
    pub fn escapes(&self) -> &EscapeTable {
        &self.escapes
    }

    /// The IRIs of the external schemas named by nested `SCHMA` lines
    /// (recorded, never fetched), expanded.
    pub fn external_schemas(&self) -> impl Iterator<Item = &str> {
        self.external.iter().map(|s| &**s)
    }

    /// The tag definitions for `tag`: `(superstructure type, type)` pairs,
    /// expanded IRIs, in schema order.
    pub fn tag_definitions(&self, tag: &str) -> impl Iterator<Item = (&str, &str)> {
        self.tags
            .get(tag)
            .into_iter()
            .flatten()
            .map(|&(s, t)| (&*self.iris[s as usize], &*self.iris[t as usize]))
    }

    /// Every tag definition of the schema as `(tag, superstructure type,
    /// type)`, expanded IRIs, in the order the schema gives them (empty for
    /// an older-draft dictionary). For writers: the reverse of
    /// [`Schema::type_of`].
    pub fn all_tag_definitions(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.definitions
            .iter()
            .map(|(t, s, ty)| (&**t, &*self.iris[*s as usize], &*self.iris[*ty as usize]))
    }

    /// Every IRI the schema names (defined types, supertypes, superstructure
    /// types, and the built-in `elf:Document`, `elf:Metadata` and
    /// `elf:Undefined` ones), expanded, in first-mention order.
    pub fn iris(&self) -> impl Iterator<Item = &str> {
        self.iris.iter().map(|s| &**s)
    }

    /// The direct supertypes of `iri` (its `ISA` lines), expanded.
    pub fn supertypes(&self, iri: &str) -> impl Iterator<Item = &str> {
        self.ids
            .get(iri)
            .map(|&id| &self.supers[id as usize][..])
            .unwrap_or_default()
            .iter()
            .map(|&s| &*self.iris[s as usize])
    }

    /// `true` when `sup` is an eventual supertype of `sub` (`sub` itself
    /// included), following ISA chains.
    pub fn is_eventual_supertype(&self, sup: &str, sub: &str) -> bool {
        if sup == sub {
            return true;
        }
        match (self.ids.get(sup), self.ids.get(sub)) {
            (Some(&p), Some(&b)) => self.ancestors_of(b).binary_search(&p).is_ok(),
            _ => false,
        }
    }

    /// The type of a structure tagged `tag` whose superstructure has type
    /// `superstructure` (an expanded IRI), per seed §7.3; `None` in
    /// dictionary mode for pseudo-structures. Use
    /// [`DOCUMENT`] for records and [`METADATA`] for the HEAD's
    /// substructures.
    pub fn type_of<'t>(&'t self, superstructure: &str, tag: &'t str) -> Option<StructureType<'t>> {
        let ctx = match self.source {
            SchemaSource::Dictionary => Ctx::Dict,
            _ => self
                .ids
                .get(superstructure)
                .map_or(Ctx::Unknown, |&id| Ctx::Type(id)),
        };
        let (key, _) = self.resolve(ctx, tag);
        key.map(|k| self.structure_type(k, tag))
    }

    /// `true` for an older draft's pseudo-structure tags.
    fn is_pseudo(tag: &str) -> bool {
        matches!(tag, "CHAR" | "CONC" | "CONT" | "DEFN" | "PRFX" | "TRLR")
    }

    fn undefined_key(&self, tag: &str) -> TypeKey {
        if tag == "UNDEF" {
            TypeKey {
                base: self.undefined,
                suffix: NO_SUFFIX,
            }
        } else {
            TypeKey {
                base: self.undefined_tag,
                suffix: 0,
            }
        }
    }

    /// The context of a record: `first` is true for the input's first record.
    pub(crate) fn record(&self, tag: &str, first: bool) -> (Option<TypeKey>, Ctx) {
        if self.source == SchemaSource::Dictionary {
            return self.resolve(Ctx::Dict, tag);
        }
        if tag == "TRLR" {
            (None, Ctx::Untyped)
        } else if first && !self.g7 && tag.eq_ignore_ascii_case("HEAD") {
            (None, Ctx::Head)
        } else {
            self.resolve(Ctx::Type(self.document), tag)
        }
    }

    /// The type of `tag` in context `ctx`, and the context of its
    /// substructures.
    pub(crate) fn resolve(&self, ctx: Ctx, tag: &str) -> (Option<TypeKey>, Ctx) {
        let s = match ctx {
            Ctx::Untyped => return (None, Ctx::Untyped),
            Ctx::Dict => return self.resolve_dict(tag),
            Ctx::Head => {
                if tag == "CHAR" || tag == "SCHMA" {
                    return (None, Ctx::Untyped);
                }
                self.metadata
            }
            Ctx::Unknown => {
                let k = self
                    .extension_key(tag)
                    .unwrap_or_else(|| self.undefined_key(tag));
                return (Some(k), self.child_ctx(k, tag));
            }
            Ctx::Type(s) => s,
        };
        let undefined = |tag| {
            self.extension_key(tag)
                .unwrap_or_else(|| self.undefined_key(tag))
        };
        let key = match self.tags.get(tag) {
            None => undefined(tag),
            Some(defs) => {
                let anc = self.ancestors_of(s);
                let mut ty = None;
                let mut conflict = false;
                for &(d, t) in defs {
                    if anc.binary_search(&d).is_ok() {
                        match ty {
                            None => ty = Some(t),
                            Some(x) if x != t => conflict = true,
                            _ => {}
                        }
                    }
                }
                match ty {
                    Some(t) if !conflict => TypeKey {
                        base: t,
                        suffix: NO_SUFFIX,
                    },
                    _ => undefined(tag),
                }
            }
        };
        (Some(key), self.child_ctx(key, tag))
    }

    fn child_ctx(&self, k: TypeKey, tag: &str) -> Ctx {
        if k.suffix == NO_SUFFIX {
            return Ctx::Type(k.base);
        }
        if self.has_undefined_iris {
            let full = format!("{UNDEFINED_TAG_BASE}{tag}");
            if let Some(&id) = self.ids.get(full.as_str()) {
                return Ctx::Type(id);
            }
        }
        Ctx::Unknown
    }

    fn resolve_dict(&self, tag: &str) -> (Option<TypeKey>, Ctx) {
        if Schema::is_pseudo(tag) {
            return (None, Ctx::Untyped);
        }
        if tag == "UNDEF" {
            return (Some(self.undefined_key(tag)), Ctx::Dict);
        }
        let key = if let Some(first) = self.dict_defn.get(tag).and_then(|v| v.first()) {
            TypeKey {
                base: *first,
                suffix: NO_SUFFIX,
            }
        } else if let Some(ns) = tag
            .find('_')
            .and_then(|i| self.dict_ns.get(&tag[..=i]).map(|&ns| (ns, i + 1)))
        {
            TypeKey {
                base: ns.0,
                suffix: ns.1 as u32,
            }
        } else {
            TypeKey {
                base: self.dict_default.unwrap_or(self.old_elf),
                suffix: 0,
            }
        };
        (Some(key), Ctx::Dict)
    }

    /// The public view of a stored type for a structure tagged `tag`.
    pub(crate) fn structure_type<'t>(&'t self, k: TypeKey, tag: &'t str) -> StructureType<'t> {
        let base = self.iris.get(k.base as usize).map_or("", |s| &**s);
        let suffix = if k.suffix == NO_SUFFIX {
            ""
        } else {
            tag.get(k.suffix as usize..).unwrap_or("")
        };
        StructureType::new(base, suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_schema_has_no_problems() {
        let s = Schema::default_schema();
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
        assert_eq!(
            s.escapes().lookup(b"DATE"),
            crate::EscapeSet::from_types(b"D")
        );
        let buri = s
            .type_of(&format!("{ELF_NS}INDIVIDUAL_RECORD"), "BURI")
            .unwrap();
        assert_eq!(buri.to_string(), format!("{ELF_NS}BURIAL"));
    }

    /// GEDCOM 7 `SCHMA.TAG`: an extension tag's URI is its type everywhere,
    /// the first URI of a tag given two; standard tags keep GEDCOM 7's
    /// types; a malformed `TAG` payload is reported.
    #[test]
    fn gedcom7_extension_tags() {
        let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n1 SCHMA\n2 TAG _A http://x/a\n2 TAG _A http://x/a2\n2 TAG NAME http://x/n\n2 TAG _B\n0 TRLR\n";
        let s = Schema::from_reader(Reader::from_slice(input)).unwrap();
        assert_eq!(
            (s.version(), s.source()),
            (Version::Gedcom7, SchemaSource::Document)
        );
        assert_eq!(s.extension_uri("_A"), Some("http://x/a"));
        assert_eq!(s.extension_uri("NAME"), None);
        let messages: Vec<&str> = s.diagnostics().iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        let (under_record, _) = s.resolve(Ctx::Type(s.document), "_A");
        let (unknown, _) = s.resolve(Ctx::Unknown, "_A");
        for k in [under_record, unknown] {
            assert_eq!(s.structure_type(k.unwrap(), "_A").to_string(), "http://x/a");
        }
        let indi = s.type_of(DOCUMENT, "INDI").unwrap().to_string();
        assert_eq!(indi, format!("{G7_NS}record-INDI"));
        // A 7.0 HEAD with no SCHMA: GEDCOM 7's types, version 7.
        let s = Schema::from_reader(Reader::from_slice(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n"))
            .unwrap();
        assert_eq!(
            (s.version(), s.source()),
            (Version::Gedcom7, SchemaSource::Default)
        );
        assert_eq!(Schema::default_schema().version(), Version::Gedcom551);
    }

    /// GEDCOM 7's types come from the specification's tables, in context:
    /// every `sub` row of the table is a tag definition, and the types
    /// depend on the superstructure's.
    #[test]
    fn gedcom7_types_are_the_tables() {
        let s = Schema::gedcom7();
        let g7 = |name: &str| format!("{G7_NS}{name}");
        let type_of = |sup: &str, tag: &str| s.type_of(sup, tag).map(|t| t.to_string());
        assert_eq!(type_of(DOCUMENT, "HEAD"), Some(g7("HEAD")));
        assert_eq!(type_of(&g7("HEAD"), "SCHMA"), Some(g7("SCHMA")));
        assert_eq!(type_of(&g7("SCHMA"), "TAG"), Some(g7("TAG")));
        assert_eq!(type_of(&g7("record-FAM"), "HUSB"), Some(g7("FAM-HUSB")));
        assert_eq!(type_of(&g7("MARR"), "HUSB"), Some(g7("HUSB")));
        assert_eq!(type_of(&g7("record-INDI"), "BIRT"), Some(g7("BIRT")));
        assert_eq!(type_of(&g7("BIRT"), "DATE"), Some(g7("DATE")));
        assert_eq!(type_of(&g7("HEAD"), "DATE"), Some(g7("HEAD-DATE")));
        // A tag the tables do not have there is undefined.
        assert_eq!(
            type_of(&g7("record-INDI"), "HUSB"),
            Some(format!("{UNDEFINED_TAG_BASE}HUSB"))
        );
        let rows = GEDCOM70_TABLE
            .lines()
            .filter(|l| l.starts_with("sub\t"))
            .count();
        assert_eq!(s.all_tag_definitions().count(), rows);
        assert_eq!(s.expand("g7:INDI-NAME"), g7("INDI-NAME"));
        assert!(s.diagnostics().is_empty());
    }

    /// A `TAG` directly under a 5.5.1 `SCHMA` is not GEDCOM 7's extension
    /// tag: it is an unknown structure there, as before GEDCOM 7 was read.
    #[test]
    fn a_5_5_1_schma_tag_is_not_an_extension_tag() {
        let input = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 SCHMA\n2 TAG _A http://x/a\n0 TRLR\n";
        let s = Schema::from_reader(Reader::from_slice(input)).unwrap();
        assert_eq!(s.version(), Version::Gedcom551);
        assert_eq!(s.extension_uri("_A"), None);
        let messages: Vec<&str> = s.diagnostics().iter().map(|d| d.message.as_str()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("unknown structure \"TAG\"")),
            "{messages:?}"
        );
    }

    /// The `ESC` lines are the reader's (one parser): a continued one is
    /// joined, a malformed one reported with its position.
    #[test]
    fn escape_lines_come_from_the_reader() {
        let input = b"0 HEAD\n1 SCHMA\n2 ESC _A\n3 CONC  Q\n2 ESC _B\n2 IRI elf:X\n0 TRLR\n";
        let s = Schema::from_reader(Reader::from_slice(input)).unwrap();
        assert!(s.escapes().lookup(b"_A").contains(b'Q'));
        assert!(s.escapes().lookup(b"DATE").is_empty());
        let d = &s.diagnostics()[0];
        assert_eq!((d.position.line, d.position.byte), (5, 34));
        assert!(d.message.starts_with("esc payload \"_B\""), "{}", d.message);
    }
}
