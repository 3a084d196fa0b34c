//! `structure.*`: substructures, their cardinality and payload kinds.
//!
//! The rules know, for each structure type, which standard tags may appear
//! under it, the type each such substructure has there, how many of it may
//! or must appear, and what kind of payload the type takes. The tables are
//! data files derived from the specs by `scripts/derive_structure_tables.py`
//! (see its header for how): `src/tables/elf551.tsv` from the ELF data model and
//! default schema for 5.5.1 files, `src/tables/gedcom70.tsv` from GEDCOM 7.0's
//! substructure, cardinality and payload tables. They are parsed once per
//! process.
//!
//! A structure's type comes from its tag and its superstructure's type alone
//! (not from the document's own schema), so a record is checked in one walk
//! with no allocation unless something is found. Custom tags (`_` first) and
//! everything under them are never checked; so are `ERROR` and `UNDEF`
//! structures, which the reader and the link rules report. A structure the
//! tables do not allow where it stands is reported once and not looked
//! into: with no known type, nothing under it can be judged. (So the walk
//! goes no deeper than the data models do, however deep the input.)
//!
//! # Severities
//!
//! * `structure.unexpected` is a warning: ELF (and practice) treat a
//!   standard tag out of place as an unknown extension that a reader must
//!   accept and keep; the data is there, only its meaning is unknown.
//! * `structure.too-many`, `structure.missing` and `structure.payload` are
//!   errors: both GEDCOM grammars forbid them outright, and what they break
//!   (a second `SEX`, an `ASSO` without `RELA`, a `FAMC` whose payload is
//!   no pointer) is data a reader cannot take at face value. ELF calls the
//!   offending structure an extension rather than rejecting the dataset; an
//!   error here does not mean the file cannot be read.
//!
//! # Interpretations
//!
//! * The version is 7.0 when `HEAD.GEDC.VERS` begins with `7`, else 5.5.1
//!   ([`version_of`]). 7.1 files are checked against the 7.0 tables, so the
//!   structures 7.1 adds are reported as unexpected.
//! * In 5.5.1 a substructure the ELF data model lists with no cardinality
//!   marker may appear any number of times; the data model's entries marked
//!   as GEDCOM 5.5 only (the 5.5 `OBJE` record's `FORM` and `BLOB`) are
//!   allowed but never required; in the 5.5 form of a multimedia link
//!   (`OBJE` with `FORM`, `TITL` and `FILE` side by side) the `FILE` needs
//!   no `FORM` of its own. ELF has no submission record: `0 SUBN` is
//!   an extension record there; nor has it GEDCOM 5.5.1's LDS ordinances
//!   (`BAPL`, `SLGC`, ...), `RFN`/`AFN` in individuals, or addresses, phones
//!   and e-mails in events: all reported as unexpected (warnings).
//! * A few departures from the data model, where it is narrower than GEDCOM
//!   5.5.1 and would make common conformant data wrong: a `RESI` need not
//!   have an `ADDR`, attributes (`OCCU`, `RESI`, ...) may have an `AGE`, and
//!   note and multimedia records may have a `SOUR`, as in 5.5.1.
//! * The serialisation layer's own structures (`HEAD.CHAR`, `HEAD.SCHMA`,
//!   the older drafts' `HEAD.PRFX` and `HEAD.DEFN`, `HEAD.GEDC.ELF`) are
//!   allowed in 5.5.1 files and not looked into.
//! * A missing payload is an error only where the payload is a pointer or
//!   (7.0) a data type with no empty string (enumerations, integers,
//!   language tags, exact dates, names, ...); a 5.5.1 string may be empty.
//!   7.0 also requires every structure below level 0 to have a payload or a
//!   substructure.
//! * `ASSO` points to an individual in both versions, as both data models
//!   say (GEDCOM 5.5.1's example of an `ASSO` to a submitter is at odds with
//!   its own grammar); a pointer elsewhere is for the link rules to report.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Finding, Rule, Version};
use crate::tree::NodeRef;

rules! {
    /// A standard tag under a structure whose type does not allow it.
    UNEXPECTED = "structure.unexpected", Warning,
        "a standard tag where its superstructure's type does not allow it (an extension: kept, but its meaning is unknown)";
    /// More substructures of one type than the superstructure allows.
    TOO_MANY = "structure.too-many", Error,
        "more substructures of one type than its superstructure allows ({0:1} or {1:1})";
    /// A required substructure is missing.
    MISSING = "structure.missing", Error, "a required substructure ({1:1} or {1:M}) is missing";
    /// A payload of the wrong kind, or one missing or where none may be.
    PAYLOAD = "structure.payload", Error,
        "a pointer where text is expected or text where a pointer is, a payload where none is allowed, or a required payload missing";
}

/// The 5.5.1 tables (ELF data model and default schema).
const ELF551: &str = include_str!("../tables/elf551.tsv");
/// The 7.0 tables.
const GEDCOM70: &str = crate::tree::schema::GEDCOM70_TABLE;

/// The most substructure tags any one type may allow (the tables have at
/// most 62, 7.0's `INDI` record): the size of the per-structure counters.
const MAX_SUBS: usize = 128;

/// The pointer targets there are, each a one-tag slice to hand out.
static TARGETS: &[&[&str]] = &[
    &["FAM"],
    &["INDI"],
    &["NOTE"],
    &["OBJE"],
    &["REPO"],
    &["SNOTE"],
    &["SOUR"],
    &["SUBM"],
];

/// The payload a structure type takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PayloadKind {
    /// No payload (`-`).
    Nothing,
    /// A string, possibly empty (`text`).
    Text,
    /// A string that may not be empty (`text+`).
    NonEmpty,
    /// `Y` or nothing (`Y`; the value rules check the `Y`).
    YOrNothing,
    /// A pointer (`@TAG`).
    Pointer,
    /// A pointer or a string (`@TAG|text`).
    PointerOrText,
    /// A pointer or nothing (`@TAG|-`).
    PointerOrNothing,
    /// Anything, and nothing under it is checked (`*`).
    Unchecked,
}

/// A structure type.
#[derive(Debug)]
struct Type {
    /// Its name in the tables (`INDIVIDUAL_RECORD`, `record-INDI`).
    name: &'static str,
    /// Its payload.
    payload: PayloadKind,
    /// The records its pointer may point to.
    target: Option<&'static [&'static str]>,
    /// Its substructures: `subs[first..end]`, sorted by tag.
    first: u32,
    /// See `first`.
    end: u32,
    /// The substructures it requires (at least one): indexes in `subs`
    /// of one per counter, so that a structure's end looks at these
    /// alone.
    required: Vec<u32>,
}

/// A substructure a type allows.
#[derive(Debug)]
struct Sub {
    /// The tag as a number ([`key`]).
    key: u64,
    /// The tag.
    tag: &'static str,
    /// Its type there.
    child: u16,
    /// The counter it is counted in: the index, among its superstructure's
    /// substructures, of the first with the same type (two tags of one type,
    /// `EMAIL` and `EMAI`, count together).
    slot: u8,
    /// At least this many.
    min: u8,
    /// At most this many (0: any number).
    max: u8,
}

/// One version's tables.
#[derive(Debug)]
struct Table {
    /// `g7:` or `elf:`, for messages.
    prefix: &'static str,
    types: Vec<Type>,
    subs: Vec<Sub>,
    /// The type of the document (the records' superstructure).
    document: u16,
}

impl Table {
    /// Parses a table file (see the script's header for the format).
    fn parse(text: &'static str, prefix: &'static str) -> Table {
        let mut types = Vec::new();
        let mut ids: HashMap<&str, u16> = HashMap::new();
        let mut rows = Vec::new();
        for line in text.lines() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let f: Vec<&'static str> = line.split('\t').collect();
            match f[..] {
                ["type", name, payload] => {
                    let (payload, target) = parse_payload(payload);
                    ids.insert(name, types.len() as u16);
                    types.push(Type {
                        name,
                        payload,
                        target,
                        first: 0,
                        end: 0,
                        required: Vec::new(),
                    });
                }
                ["sub", parent, tag, child, min, max] => rows.push((parent, tag, child, min, max)),
                _ => panic!("structure table: bad line {line:?}"),
            }
        }
        let id = |name: &str| -> u16 {
            *ids.get(name)
                .unwrap_or_else(|| panic!("structure table: unknown type {name}"))
        };
        let mut subs: Vec<(u16, Sub)> = rows
            .into_iter()
            .map(|(parent, tag, child, min, max)| {
                (
                    id(parent),
                    Sub {
                        key: key(tag.as_bytes())
                            .unwrap_or_else(|| panic!("structure table: long tag {tag}")),
                        tag,
                        child: id(child),
                        slot: 0,
                        min: min.parse().expect("structure table: min"),
                        max: if max == "M" {
                            0
                        } else {
                            max.parse().expect("structure table: max")
                        },
                    },
                )
            })
            .collect();
        subs.sort_by(|a, b| (a.0, a.1.tag).cmp(&(b.0, b.1.tag)));
        let mut at = 0;
        while at < subs.len() {
            let parent = subs[at].0;
            let end = at + subs[at..].iter().take_while(|s| s.0 == parent).count();
            assert!(end - at <= MAX_SUBS, "structure table: too many tags");
            for i in at..end {
                let child = subs[i].1.child;
                let slot = (at..end).find(|&j| subs[j].1.child == child).unwrap_or(i);
                subs[i].1.slot = (slot - at) as u8;
            }
            let t = &mut types[parent as usize];
            (t.first, t.end) = (at as u32, end as u32);
            t.required = (at..end)
                .filter(|&i| subs[i].1.min > 0 && subs[i].1.slot as usize == i - at)
                .map(|i| i as u32)
                .collect();
            at = end;
        }
        Table {
            prefix,
            document: id("Document"),
            types,
            subs: subs.into_iter().map(|s| s.1).collect(),
        }
    }

    /// The tables of `version`.
    fn of(version: Version) -> &'static Table {
        static ELF: OnceLock<Table> = OnceLock::new();
        static G7: OnceLock<Table> = OnceLock::new();
        match version {
            Version::Gedcom551 => ELF.get_or_init(|| Table::parse(ELF551, "elf:")),
            Version::Gedcom7 => G7.get_or_init(|| Table::parse(GEDCOM70, "g7:")),
        }
    }

    /// The substructures of type `ty`.
    fn subs(&self, ty: u16) -> &[Sub] {
        let t = &self.types[ty as usize];
        &self.subs[t.first as usize..t.end as usize]
    }

    /// The index in `subs` of the substructure with tag `tag` of type `ty`.
    fn lookup_index(&self, ty: u16, tag: &str) -> Option<usize> {
        let t = &self.types[ty as usize];
        let k = key(tag.as_bytes())?;
        let i = self.subs(ty).binary_search_by(|s| s.key.cmp(&k)).ok()?;
        Some(t.first as usize + i)
    }
}

/// A class code ([`classify`]) of a tag no table has a type for where
/// it stands: its superstructure is not a standard structure, or takes
/// anything.
pub(crate) const NO_CLASS: u32 = 0;
/// A class code: not one of its superstructure's substructures.
const NOT_A_SUB: u32 = u32::MAX;
/// A class code: a tag that is never checked ([`unchecked_tag`]).
const UNCHECKED: u32 = u32::MAX - 1;

/// What a structure is among its superstructure's substructures.
enum Class<'t> {
    /// Never checked ([`unchecked_tag`]), or under a structure whose
    /// substructures are not classified.
    Unchecked,
    /// Not one of them.
    NotASub,
    /// This one.
    Sub(&'t Sub),
}

/// What a structure tagged `tag` is under one of type `parent` (`None`: a
/// record) in `version`'s data model, as a number: a structure's class
/// depends only on its tags from its record down, so the caller can keep
/// it per such path rather than look it up per structure. [`NO_CLASS`]
/// when `parent` takes anything (nothing under it is standard).
pub(crate) fn classify(version: Version, parent: Option<u16>, tag: &str) -> u32 {
    let table = Table::of(version);
    let p = parent.unwrap_or(table.document);
    if table.types[p as usize].payload == PayloadKind::Unchecked {
        return NO_CLASS;
    }
    if unchecked_tag(tag) {
        return UNCHECKED;
    }
    table
        .lookup_index(p, tag)
        .map_or(NOT_A_SUB, |i| i as u32 + 1)
}

impl Table {
    fn class(&self, code: u32) -> Class<'_> {
        match code {
            NO_CLASS | UNCHECKED => Class::Unchecked,
            NOT_A_SUB => Class::NotASub,
            c => self
                .subs
                .get(c as usize - 1)
                .map_or(Class::NotASub, Class::Sub),
        }
    }
}

/// The type a class code gives a structure (`None`: not a standard
/// structure where it stands).
#[cfg(test)]
fn type_of_class(version: Version, code: u32) -> Option<u16> {
    match Table::of(version).class(code) {
        Class::Sub(sub) => Some(sub.child),
        Class::Unchecked | Class::NotASub => None,
    }
}

/// The records a structure of type `ty` may point to (`None`: any, or no
/// standard type).
pub(crate) fn target_of_type(version: Version, ty: Option<u16>) -> Option<&'static [&'static str]> {
    Table::of(version).types.get(usize::from(ty?))?.target
}

/// What the rules keep of an open structure.
#[derive(Clone, Copy, Debug)]
struct Open {
    /// Its type, if it is a standard structure where it stands.
    ty: Option<u16>,
    /// Whether it is checked: its payload, and its substructures' classes
    /// and numbers (a standard structure under a checked one, or a
    /// standard record).
    checked: bool,
    /// Where its counters start in [`Structures::counts`].
    counts_at: u32,
    /// Its tag as a number ([`key`]).
    key: Option<u64>,
    /// Its payload: a pointer; a string that is not empty.
    pointer: bool,
    text: bool,
    has_children: bool,
    /// Whether a `FORM` is among its substructures.
    has_form: bool,
}

/// The structure rules over the structures of records as they begin and
/// end (a reader's events, or a tree's walk): each structure's class is
/// given by the caller ([`classify`], kept per path), its substructures are
/// counted as they come, and its payload and missing substructures are
/// judged at its end. Findings go to the caller's list, made by the
/// caller's `at` (a finding about the structure that begins or ends).
#[derive(Debug, Default)]
pub(crate) struct Structures {
    open: Vec<Open>,
    /// The counters of the open checked structures, one per substructure
    /// tag of their type.
    counts: Vec<u8>,
    /// Findings of a 5.5.1 `FILE` with no `FORM` under an `OBJE` that may
    /// still have one (GEDCOM 5.5's multimedia link): the `OBJE`'s depth
    /// and the finding's index, dropped at the `OBJE`'s end if it has.
    pending: Vec<(usize, usize)>,
}

/// How deep below its record a structure is checked: no standard
/// structure nests this deep but through cycles of the data model (a
/// citation's note's citation ...).
const MAX_CHECKED_DEPTH: usize = 64;

impl Structures {
    /// Forgets the open structures (after a read error, say).
    pub(crate) fn clear(&mut self) {
        self.open.clear();
        self.counts.clear();
        self.pending.clear();
    }

    /// The type of the innermost open structure.
    pub(crate) fn ty(&self) -> Option<u16> {
        self.open.last().and_then(|o| o.ty)
    }

    /// A structure tagged `tag` ([`tag_key`](super::tag_key): `key`)
    /// begins, of class `code` ([`classify`] of the innermost open
    /// structure's [`ty`](Structures::ty) and `tag`), its payload a
    /// `pointer` or a non-empty `text` (or neither).
    pub(crate) fn begin(
        &mut self,
        version: Version,
        (tag, key, code): (&str, Option<u64>, u32),
        (pointer, text): (bool, bool),
        out: &mut Vec<Finding>,
        at: impl Fn(&'static Rule, String) -> Finding,
    ) {
        let table = Table::of(version);
        let class = table.class(code);
        let depth = self.open.len();
        let mut ty = match class {
            Class::Sub(sub) => Some(sub.child),
            _ => None,
        };
        let mut checked = false;
        match self.open.last_mut() {
            None => match class {
                Class::Sub(_) => checked = true,
                Class::NotASub => out.push(at(
                    &UNEXPECTED,
                    format!("{tag} is no standard record: an extension record"),
                )),
                Class::Unchecked => {}
            },
            Some(parent) => {
                parent.has_children = true;
                if key == FORM {
                    parent.has_form = true;
                }
                if parent.ty.is_none() {
                    ty = None;
                }
                if parent.checked {
                    let info = &table.types[parent.ty.unwrap_or(0) as usize];
                    match class {
                        Class::Unchecked => {}
                        Class::NotASub => out.push(at(
                            &UNEXPECTED,
                            format!(
                                "{tag} is not a substructure of {}{}",
                                table.prefix, info.name
                            ),
                        )),
                        Class::Sub(sub) => {
                            let n = &mut self.counts[parent.counts_at as usize + sub.slot as usize];
                            *n = n.saturating_add(1);
                            if sub.max != 0 && *n > sub.max {
                                let what = match sub.max {
                                    1 => "one".to_string(),
                                    m => m.to_string(),
                                };
                                out.push(at(
                                    &TOO_MANY,
                                    format!(
                                        "more than {what} {} ({}{}) in {}{}",
                                        sub.tag,
                                        table.prefix,
                                        table.types[sub.child as usize].name,
                                        table.prefix,
                                        info.name
                                    ),
                                ));
                            }
                            checked = depth <= MAX_CHECKED_DEPTH;
                        }
                    }
                }
            }
        }
        let counts_at = self.counts.len() as u32;
        if checked {
            if let Some(t) = ty {
                if table.types[t as usize].payload == PayloadKind::Unchecked {
                    // Neither its payload nor anything under it is judged.
                    checked = false;
                } else {
                    let n = table.subs(t).len();
                    self.counts.resize(self.counts.len() + n, 0);
                }
            }
        }
        self.open.push(Open {
            ty,
            checked,
            counts_at,
            key,
            pointer,
            text,
            has_children: false,
            has_form: false,
        });
    }

    /// The innermost open structure ends: its payload and its missing
    /// substructures are judged.
    pub(crate) fn end(
        &mut self,
        version: Version,
        out: &mut Vec<Finding>,
        at: impl Fn(&'static Rule, String) -> Finding,
    ) {
        let Some(o) = self.open.pop() else { return };
        let depth = self.open.len();
        while let Some(&(d, i)) = self.pending.last() {
            if d != depth {
                break;
            }
            self.pending.pop();
            if o.has_form && i < out.len() {
                out.remove(i);
            }
        }
        if !o.checked {
            return;
        }
        let table = Table::of(version);
        let Some(ty) = o.ty else { return };
        let info = &table.types[ty as usize];
        if let Some(message) = payload_problem(info.payload, version, &o, depth == 0) {
            out.push(at(&PAYLOAD, message.to_string()));
        }
        let counts = &self.counts[o.counts_at as usize..];
        // GEDCOM 5.5's multimedia link (`OBJE` with `FORM`, `TITL` and
        // `FILE` side by side), which ELF accepts: the `FORM` of a `FILE`
        // may be its superstructure's.
        let old_form = version == Version::Gedcom551
            && o.key == FILE
            && self.open.last().is_some_and(|p| p.key == OBJE);
        for &r in &info.required {
            let Some(sub) = table.subs.get(r as usize) else {
                continue;
            };
            if counts[(r - info.first) as usize] < sub.min {
                out.push(at(
                    &MISSING,
                    format!(
                        "{}{} has no {} ({}{})",
                        table.prefix,
                        info.name,
                        sub.tag,
                        table.prefix,
                        table.types[sub.child as usize].name
                    ),
                ));
                if old_form && sub.tag == "FORM" {
                    self.pending.push((depth - 1, out.len() - 1));
                }
            }
        }
        self.counts.truncate(o.counts_at as usize);
    }
}

const FORM: Option<u64> = super::tag_key(b"FORM");
const FILE: Option<u64> = super::tag_key(b"FILE");
const OBJE: Option<u64> = super::tag_key(b"OBJE");

/// A tag as a number (`None`: a longer tag, which no table has).
fn key(tag: &[u8]) -> Option<u64> {
    super::tag_key(tag)
}

/// A payload column: the kind and the pointer's target.
fn parse_payload(s: &str) -> (PayloadKind, Option<&'static [&'static str]>) {
    let target = |tag: &str| {
        Some(
            *TARGETS
                .iter()
                .find(|t| t[0] == tag)
                .unwrap_or_else(|| panic!("structure table: unknown target {tag}")),
        )
    };
    match s {
        "-" => (PayloadKind::Nothing, None),
        "text" => (PayloadKind::Text, None),
        "text+" => (PayloadKind::NonEmpty, None),
        "Y" => (PayloadKind::YOrNothing, None),
        "*" => (PayloadKind::Unchecked, None),
        _ => {
            let s = s
                .strip_prefix('@')
                .unwrap_or_else(|| panic!("structure table: bad payload {s}"));
            match s.split_once('|') {
                None => (PayloadKind::Pointer, target(s)),
                Some((t, "text")) => (PayloadKind::PointerOrText, target(t)),
                Some((t, "-")) => (PayloadKind::PointerOrNothing, target(t)),
                Some(_) => panic!("structure table: bad payload {s}"),
            }
        }
    }
}

/// The payload a standard structure takes, as the converter needs it
/// ([`standard_sub`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// No payload.
    Nothing,
    /// A string.
    Text,
    /// `Y` or nothing (an event).
    YOrNothing,
    /// A pointer.
    Pointer,
    /// A pointer or a string.
    PointerOrText,
    /// A pointer or nothing.
    PointerOrNothing,
    /// Anything (nothing under it is a standard structure either).
    Any,
}

/// The standard structure `tag` is under a structure of type `parent`
/// (`None`: a record) in `version`'s data model: its type and the payload it
/// takes; `None` when `tag` is not a standard substructure there (or the
/// parent is one whose substructures are not checked).
pub(crate) fn standard_sub(
    version: Version,
    parent: Option<u16>,
    tag: &str,
) -> Option<(u16, Shape)> {
    let t = Table::of(version);
    let p = parent.unwrap_or(t.document);
    if t.types.get(p as usize)?.payload == PayloadKind::Unchecked {
        return None;
    }
    let child = t.subs[t.lookup_index(p, tag)?].child;
    let shape = match t.types[child as usize].payload {
        PayloadKind::Nothing => Shape::Nothing,
        PayloadKind::Text | PayloadKind::NonEmpty => Shape::Text,
        PayloadKind::YOrNothing => Shape::YOrNothing,
        PayloadKind::Pointer => Shape::Pointer,
        PayloadKind::PointerOrText => Shape::PointerOrText,
        PayloadKind::PointerOrNothing => Shape::PointerOrNothing,
        PayloadKind::Unchecked => Shape::Any,
    };
    Some((child, shape))
}

/// Whether `tag` is a standard structure's tag anywhere in `version`'s data
/// model.
pub(crate) fn known_tag(version: Version, tag: &str) -> bool {
    Table::of(version).subs.iter().any(|s| s.tag == tag)
}

/// Whether a tag is never checked: custom tags, and the reader's `ERROR`
/// and the synthetic `UNDEF` (reported by other rules).
fn unchecked_tag(tag: &str) -> bool {
    tag.starts_with('_') || tag == "ERROR" || tag == "UNDEF"
}

/// The version a document's `HEAD` says it is, by the reader's rule
/// ([`Version::from_vers`] on `HEAD.GEDC.VERS`); 5.5.1 when `head` is no
/// `HEAD` or says nothing.
pub(crate) fn version_of(head: NodeRef<'_>) -> Version {
    (head.tag() == "HEAD")
        .then(|| head.child("GEDC"))
        .flatten()
        .and_then(|g| g.child("VERS"))
        .and_then(|v| v.payload())
        .map_or(Version::Gedcom551, |p| Version::from_vers(p.first_line()))
}

/// What is wrong with the payload of `o`, of payload kind `kind`, if
/// anything (`top`: a record).
fn payload_problem(
    kind: PayloadKind,
    version: Version,
    o: &Open,
    top: bool,
) -> Option<&'static str> {
    use PayloadKind::*;
    if o.pointer {
        return match kind {
            Nothing => Some("a pointer where no payload is allowed"),
            Text | NonEmpty | YOrNothing => Some("a pointer where text is expected"),
            _ => None,
        };
    }
    let need = match kind {
        Unchecked => return None,
        Text | YOrNothing | PointerOrText => version == Version::Gedcom7 && !top && !o.has_children,
        Nothing | NonEmpty | Pointer | PointerOrNothing => true,
    };
    match (kind, need && o.text) {
        (_, _) if !need => None,
        (Nothing, true) => Some("a payload where none is allowed"),
        (NonEmpty, false) => Some("no payload where one is required"),
        (Pointer, true) => Some("text where a pointer is expected"),
        (Pointer, false) => Some("no pointer where one is required"),
        (PointerOrNothing, true) => Some("text where a pointer (or nothing) is expected"),
        // 7.0: every structure needs a payload or a substructure.
        (_, false) if version == Version::Gedcom7 && !top && !o.has_children => {
            Some("neither a payload nor substructures")
        }
        _ => None,
    }
}

/// Whether a payload counts as text for the payload rules: a string that
/// is not empty (or continued on more lines).
pub(crate) fn has_text(payload: Option<&crate::Payload<'_>>) -> bool {
    payload.is_some_and(|p| !p.first_line().is_empty() || p.is_continued())
}

impl Structures {
    /// The class of a structure tagged `tag` beginning now ([`classify`]
    /// under the innermost open structure).
    pub(crate) fn classify_next(&self, version: Version, tag: &str) -> u32 {
        match self.open.last() {
            None => classify(version, None, tag),
            Some(Open { ty: Some(t), .. }) => classify(version, Some(*t), tag),
            Some(_) => NO_CLASS,
        }
    }
}

/// Checks `record`'s structures against the data model of `version` (the
/// rules of [`Structures`] over the record's walk).
#[cfg(test)]
pub(crate) fn check(record: NodeRef<'_>, version: Version, out: &mut Vec<Finding>) {
    use crate::tree::Step;
    let mut rules = Structures::default();
    let mut open: Vec<NodeRef<'_>> = Vec::new();
    for step in record.walk() {
        match step {
            Step::Enter(n) => {
                let code = rules.classify_next(version, n.tag());
                let shape = (n.pointer().is_some(), has_text(n.payload().as_ref()));
                let tag = (n.tag(), key(n.tag().as_bytes()), code);
                rules.begin(version, tag, shape, out, |r, m| Finding::at(r, n, m));
                open.push(n);
            }
            Step::Leave(n) => {
                rules.end(version, out, |r, m| Finding::at(r, n, m));
                open.pop();
            }
        }
    }
}

/// A pointer target ([`target_of_type`]) as one octet (there are
/// millions of pointers to keep): 0 for none.
pub(crate) fn target_code(target: Option<&'static [&'static str]>) -> u8 {
    target
        .and_then(|t| TARGETS.iter().position(|&u| std::ptr::eq(u, t) || u == t))
        .map_or(0, |i| i as u8 + 1)
}

/// The pointer target of a [`target_code`].
pub(crate) fn target_of(code: u8) -> Option<&'static [&'static str]> {
    TARGETS.get(usize::from(code).checked_sub(1)?).copied()
}

/// The tags of the records a pointer at `node` may point to (`None`: any,
/// or `node` is not a pointer structure the data model knows).
#[cfg(test)]
pub(crate) fn pointer_target(
    node: NodeRef<'_>,
    version: Version,
) -> Option<&'static [&'static str]> {
    let mut chain = vec![node];
    while let Some(p) = chain.last().and_then(|n| n.parent()) {
        chain.push(p);
    }
    let mut ty = None;
    for (i, n) in chain.iter().rev().enumerate() {
        if i > 0 && ty.is_none() {
            return None;
        }
        ty = type_of_class(version, classify(version, ty, n.tag()));
    }
    target_of_type(version, ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Tree;
    use crate::Input;

    /// The findings of a whole document, as `(rule id, path, line)`.
    fn run(src: &str) -> Vec<(&'static str, String, u64)> {
        let tree = Tree::from_slice(src.as_bytes()).unwrap();
        let version = version_of(tree.records().next().unwrap());
        let mut out = Vec::new();
        for r in tree.records() {
            check(r, version, &mut out);
        }
        out.into_iter()
            .map(|f| (f.rule.id, f.path, f.line))
            .collect()
    }

    const H551: &str = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
    const H7: &str = "0 HEAD\n1 GEDC\n2 VERS 7.0\n";

    fn doc551(body: &str) -> String {
        format!("{H551}{body}0 TRLR\n")
    }

    fn doc7(body: &str) -> String {
        format!("{H7}{body}0 TRLR\n")
    }

    /// The findings of `body` after a 5.5.1 `HEAD`, lines counted from the
    /// body's first.
    fn r551(body: &str) -> Vec<(&'static str, String, u64)> {
        shift(run(&doc551(body)), H551)
    }

    /// The findings of `body` after a 7.0 `HEAD`, lines counted from the
    /// body's first.
    fn r7(body: &str) -> Vec<(&'static str, String, u64)> {
        shift(run(&doc7(body)), H7)
    }

    fn shift(
        found: Vec<(&'static str, String, u64)>,
        head: &str,
    ) -> Vec<(&'static str, String, u64)> {
        let n = head.lines().count() as u64;
        found.into_iter().map(|(r, p, l)| (r, p, l - n)).collect()
    }

    fn rules(found: &[(&'static str, String, u64)]) -> Vec<&'static str> {
        found.iter().map(|f| f.0).collect()
    }

    #[test]
    fn tables_parse() {
        for v in [Version::Gedcom551, Version::Gedcom7] {
            let t = Table::of(v);
            assert!(t.types.len() > 150);
            assert!(t.subs.len() > 800);
            for ty in 0..t.types.len() as u16 {
                let subs = t.subs(ty);
                assert!(subs.windows(2).all(|w| w[0].tag < w[1].tag));
            }
        }
    }

    #[test]
    fn rule_ids() {
        for r in RULES {
            assert!(r.id.starts_with("structure."));
        }
        assert_eq!(RULES.len(), 4);
    }

    #[test]
    fn version_detection() {
        let (d7, d551) = (doc7(""), doc551(""));
        let t = Tree::from_slice(d7.as_bytes()).unwrap();
        assert_eq!(version_of(t.records().next().unwrap()), Version::Gedcom7);
        let t = Tree::from_slice(d551.as_bytes()).unwrap();
        assert_eq!(version_of(t.records().next().unwrap()), Version::Gedcom551);
        let t = Tree::from_slice(b"0 HEAD\n0 TRLR\n").unwrap();
        assert_eq!(version_of(t.records().next().unwrap()), Version::Gedcom551);
        let t = Tree::from_slice(b"0 HEAD\n1 GEDC\n2 VERS 7.1.0\n0 TRLR\n").unwrap();
        assert_eq!(version_of(t.records().next().unwrap()), Version::Gedcom7);
        // The checker and the reader agree: one rule decides.
        for vers in ["7.0", "7.0.14", "7.1", "5.5.5", "5.5.1", "70", ""] {
            let text = format!("0 HEAD\n1 GEDC\n2 VERS {vers}\n0 TRLR\n");
            let t = Tree::from_slice(text.as_bytes()).unwrap();
            let reader = crate::Reader::from_slice(text.as_bytes()).version();
            assert_eq!(version_of(t.records().next().unwrap()), reader, "{vers}");
        }
    }

    #[test]
    fn clean_documents() {
        let body = "0 @I1@ INDI\n1 NAME John /Smith/\n2 GIVN John\n1 SEX M\n\
                    1 BIRT\n2 DATE 1 JAN 1900\n2 PLAC Here\n1 FAMS @F1@\n\
                    1 RESI\n2 DATE 1900\n2 PLAC There\n1 OCCU Smith\n2 AGE 40y\n\
                    0 @F1@ FAM\n1 HUSB @I1@\n1 MARR Y\n";
        assert_eq!(r551(body), vec![]);
        assert_eq!(r7(body), vec![]);
    }

    #[test]
    fn unexpected() {
        // SEX under BIRT: a standard tag in the wrong place.
        let body = "0 @I1@ INDI\n1 BIRT\n2 SEX M\n3 DATE 1900\n";
        let want = vec![("structure.unexpected", "INDI.BIRT.SEX".to_string(), 3)];
        assert_eq!(r551(body), want);
        assert_eq!(r7(body), want);
        // An extension record: one finding, nothing under it.
        let body = "0 @X1@ WEALTH\n1 SEX M\n1 BIRT\n";
        assert_eq!(rules(&r551(body)), ["structure.unexpected"]);
        assert_eq!(rules(&r7(body)), ["structure.unexpected"]);
        // 5.5.1 CHAR is serialisation metadata; 7.0 has none.
        assert_eq!(r551(""), vec![]);
        let f = run("0 HEAD\n1 GEDC\n2 VERS 7.0\n1 CHAR UTF-8\n0 TRLR\n");
        assert_eq!(f, vec![("structure.unexpected", "HEAD.CHAR".into(), 4)]);
        // SNOTE is a 7.0 record only.
        let body = "0 @N1@ SNOTE text\n";
        assert_eq!(r7(body), vec![]);
        assert_eq!(rules(&r551(body)), ["structure.unexpected"]);
    }

    #[test]
    fn departures_from_the_elf_data_model() {
        // As in GEDCOM 5.5.1: RESI without ADDR, AGE in attributes, SOUR in
        // note and multimedia records.
        let body = "0 @I1@ INDI\n1 RESI\n2 PLAC There\n1 OCCU Smith\n2 AGE 40y\n\
                    0 @N1@ NOTE text\n1 SOUR @S1@\n\
                    0 @O1@ OBJE\n1 FILE a.jpg\n2 FORM jpg\n1 SOUR @S1@\n";
        assert_eq!(r551(body), vec![]);
        // What ELF leaves out on purpose stays out: LDS ordinances, RFN.
        let body = "0 @I1@ INDI\n1 BAPL\n2 DATE 1900\n1 RFN 12\n";
        assert_eq!(
            rules(&r551(body)),
            ["structure.unexpected", "structure.unexpected"]
        );
    }

    #[test]
    fn custom_tags_are_never_checked() {
        let body = "0 @I1@ INDI\n1 _CUSTOM @F1@\n2 SEX M\n2 SEX F\n2 FAMC text\n\
                    1 BIRT\n2 _X\n3 HUSB\n0 @X@ _REC\n1 SEX M\n1 SEX F\n";
        assert_eq!(r551(body), vec![]);
        assert_eq!(r7(body), vec![]);
    }

    #[test]
    fn too_many() {
        let body = "0 @I1@ INDI\n1 SEX M\n1 SEX F\n1 BIRT\n2 DATE 1900\n2 DATE 1901\n";
        let found = r551(body);
        assert_eq!(
            found,
            vec![
                ("structure.too-many", "INDI.SEX".into(), 3),
                ("structure.too-many", "INDI.BIRT.DATE".into(), 6),
            ]
        );
        assert_eq!(
            rules(&r7(body)),
            ["structure.too-many", "structure.too-many"]
        );
        // Repeatable ones are fine.
        let body = "0 @I1@ INDI\n1 NAME A\n1 NAME B\n1 BIRT Y\n1 BIRT Y\n";
        assert_eq!(r551(body), vec![]);
        assert_eq!(r7(body), vec![]);
    }

    #[test]
    fn two_tags_of_one_type_count_together() {
        // EMAIL and EMAI are both elf:ADDRESS_EMAIL ({0:M}): fine; HEAD's
        // SOUR twice in 7.0 is not.
        let body = "0 @S1@ SUBM\n1 NAME X\n1 EMAIL a@b\n1 EMAI c@d\n";
        assert_eq!(r551(body), vec![]);
        let f = run("0 HEAD\n1 GEDC\n2 VERS 7.0\n1 SOUR A\n1 SOUR B\n0 TRLR\n");
        assert_eq!(f, vec![("structure.too-many", "HEAD.SOUR".into(), 5)]);
    }

    #[test]
    fn missing() {
        // ASSO needs RELA in both; 7.0's GEDC needs VERS.
        let body = "0 @I1@ INDI\n1 ASSO @I2@\n0 @I2@ INDI\n1 SEX F\n";
        assert_eq!(
            r551(body),
            vec![("structure.missing", "INDI.ASSO".into(), 2)]
        );
        assert_eq!(r7(body), vec![("structure.missing", "INDI.ASSO".into(), 2)]);
        let body = "0 @I1@ INDI\n1 ASSO @I2@\n2 RELA Friend\n0 @I2@ INDI\n1 SEX F\n";
        assert_eq!(r551(body), vec![]);
        let body7 = "0 @I1@ INDI\n1 ASSO @I2@\n2 ROLE FRIEND\n0 @I2@ INDI\n1 SEX F\n";
        assert_eq!(r7(body7), vec![]);
        let f = run("0 HEAD\n1 GEDC\n2 FORM x\n0 TRLR\n");
        assert_eq!(f, vec![]);
        let f = run("0 HEAD\n1 DEST x\n0 TRLR\n");
        assert_eq!(f, vec![]);
        // 5.5.1 CHAN needs its DATE.
        let body = "0 @I1@ INDI\n1 CHAN\n2 NOTE n\n";
        assert_eq!(
            r551(body),
            vec![("structure.missing", "INDI.CHAN".into(), 2)]
        );
        // 5.5.1's FILE needs a FORM, unless it is in a GEDCOM 5.5 link.
        let body = "0 @I1@ INDI\n1 OBJE\n2 FILE a.jpg\n1 OBJE\n2 FORM jpg\n2 FILE b.jpg\n";
        assert_eq!(
            r551(body),
            vec![("structure.missing", "INDI.OBJE.FILE".into(), 3)]
        );
        // The GEDCOM 5.5 OBJE record's FORM and BLOB are not required.
        let body = "0 @O1@ OBJE\n1 FILE a.jpg\n2 FORM jpeg\n";
        assert_eq!(r551(body), vec![]);
    }

    #[test]
    fn payload() {
        // A pointer where text is expected, and text where a pointer is.
        let body = "0 @I1@ INDI\n1 NAME @I1@\n1 FAMC family\n";
        let want = vec![
            ("structure.payload", "INDI.NAME".to_string(), 2),
            ("structure.payload", "INDI.FAMC".to_string(), 3),
        ];
        assert_eq!(r551(body), want);
        assert_eq!(r7(body), want);
        // A payload where none is allowed; a missing pointer.
        let body = "0 @I1@ INDI\n1 CHAN yes\n2 DATE 1 JAN 2000\n1 FAMS\n2 NOTE n\n";
        assert_eq!(
            r551(body),
            vec![
                ("structure.payload", "INDI.CHAN".into(), 2),
                ("structure.payload", "INDI.FAMS".into(), 4),
            ]
        );
        assert_eq!(rules(&r7(body)), ["structure.payload", "structure.payload"]);
        // 5.5.1 notes and citations take a pointer or text; 7.0 NOTE text
        // only, SNOTE a pointer only.
        let body = "0 @I1@ INDI\n1 NOTE @N1@\n1 NOTE text\n1 SOUR @S1@\n1 SOUR text\n";
        assert_eq!(r551(body), vec![]);
        let f = r7(body);
        assert_eq!(
            f,
            vec![
                ("structure.payload", "INDI.NOTE".into(), 2),
                ("structure.payload", "INDI.SOUR".into(), 5),
            ]
        );
        assert_eq!(r7("0 @I1@ INDI\n1 SNOTE @N1@\n"), vec![]);
        // 7.0: an enumeration may not be empty; every structure needs a
        // payload or substructures.
        let f = r7("0 @I1@ INDI\n1 SEX\n1 BIRT\n1 DEAT Y\n");
        assert_eq!(
            f,
            vec![
                ("structure.payload", "INDI.SEX".into(), 2),
                ("structure.payload", "INDI.BIRT".into(), 3),
            ]
        );
        // 5.5.1 strings may be empty.
        assert_eq!(r551("0 @I1@ INDI\n1 SEX\n1 BIRT\n"), vec![]);
    }

    #[test]
    fn target_codes_round_trip() {
        assert_eq!(target_code(None), 0);
        assert_eq!(target_of(0), None);
        for t in TARGETS {
            let code = target_code(Some(t));
            assert_ne!(code, 0);
            assert_eq!(target_of(code), Some(*t));
        }
        assert_eq!(target_of(u8::MAX), None);
    }

    #[test]
    fn pointer_targets() {
        let body = "0 @I1@ INDI\n1 FAMC @F1@\n1 ASSO @I2@\n2 RELA x\n1 ALIA @I3@\n1 ANCI @U1@\n\
                    1 NOTE @N1@\n1 SOUR @S1@\n1 OBJE @O1@\n1 NAME x\n1 SNOTE @N2@\n\
                    0 @F1@ FAM\n1 HUSB @I1@\n1 CHIL @I1@\n1 MARR\n2 HUSB\n3 AGE 20y\n\
                    0 @S1@ SOUR\n1 REPO @R1@\n";
        for (version, note) in [(Version::Gedcom551, "NOTE"), (Version::Gedcom7, "SNOTE")] {
            let src = match version {
                Version::Gedcom551 => doc551(body),
                Version::Gedcom7 => doc7(body),
            };
            let tree = Tree::from_slice(src.as_bytes()).unwrap();
            let target = |path: &str| {
                let (rec, rest) = path.split_once('.').unwrap();
                let r = tree.records().find(|r| r.tag() == rec).unwrap();
                pointer_target(r.first(rest).unwrap(), version)
            };
            assert_eq!(target("INDI.FAMC"), Some(&["FAM"][..]));
            assert_eq!(target("INDI.ASSO"), Some(&["INDI"][..]));
            assert_eq!(target("INDI.ALIA"), Some(&["INDI"][..]));
            assert_eq!(target("INDI.ANCI"), Some(&["SUBM"][..]));
            assert_eq!(target("INDI.SOUR"), Some(&["SOUR"][..]));
            assert_eq!(target("INDI.OBJE"), Some(&["OBJE"][..]));
            assert_eq!(target("INDI.NAME"), None);
            assert_eq!(target("FAM.HUSB"), Some(&["INDI"][..]));
            assert_eq!(target("FAM.CHIL"), Some(&["INDI"][..]));
            assert_eq!(target("FAM.MARR.HUSB"), None);
            assert_eq!(target("SOUR.REPO"), Some(&["REPO"][..]));
            let n = if version == Version::Gedcom7 {
                "INDI.SNOTE"
            } else {
                "INDI.NOTE"
            };
            assert_eq!(target(n), Some(&[note][..]));
        }
        let d7 = doc7("");
        let tree = Tree::from_slice(d7.as_bytes()).unwrap();
        let head = tree.records().next().unwrap();
        assert_eq!(pointer_target(head, Version::Gedcom7), None);
        // Under a custom tag, or deeper than any standard structure: none.
        let mut deep = String::from("0 @I1@ INDI\n");
        for l in 1..30 {
            deep.push_str(&format!("{l} _X\n"));
        }
        deep.push_str("30 FAMC @F1@\n");
        let d = doc551(&deep);
        let t = Tree::from_slice(d.as_bytes()).unwrap();
        let indi = t.records().nth(1).unwrap();
        let famc = indi.descendants().find(|n| n.tag() == "FAMC").unwrap();
        assert_eq!(pointer_target(famc, Version::Gedcom551), None);
        let d = doc551("0 @I1@ INDI\n1 _X\n2 FAMC @F1@\n");
        let t = Tree::from_slice(d.as_bytes()).unwrap();
        let famc = t.records().nth(1).unwrap().first("_X.FAMC").unwrap();
        assert_eq!(pointer_target(famc, Version::Gedcom551), None);
        let t = Tree::from_slice(b"0 HEAD\n1 SUBM @U1@\n0 TRLR\n").unwrap();
        let subm = t.records().next().unwrap().child("SUBM").unwrap();
        assert_eq!(
            pointer_target(subm, Version::Gedcom551),
            Some(&["SUBM"][..])
        );
        assert_eq!(pointer_target(subm, Version::Gedcom7), Some(&["SUBM"][..]));
    }

    /// The `.ged` files in `dir` and its subdirectories.
    fn ged_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                ged_files(&p, out);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("ged")) {
                out.push(p);
            }
        }
    }

    /// Runs the rules over the shared corpora, printing the counts per file
    /// and rule (`cargo test --lib corpus -- --nocapture`) and two findings
    /// per file and message (all of them with `STRUCT_ALL` set).
    #[test]
    fn corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
        let mut files = Vec::new();
        ged_files(&root.join("corpus"), &mut files);
        ged_files(&root.join("corpus7"), &mut files);
        files.sort();
        if files.is_empty() {
            eprintln!("no corpus at {}: skipped", root.display());
            return;
        }
        let mut total: std::collections::BTreeMap<&str, usize> = Default::default();
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let Ok(input) = Input::new(&bytes) else {
                println!("{}: not read", path.display());
                continue;
            };
            let Ok(tree) = Tree::from_input(&input) else {
                println!("{}: no tree", path.display());
                continue;
            };
            let version = tree.records().next().map_or(Version::Gedcom551, version_of);
            let mut out = Vec::new();
            for r in tree.records() {
                check(r, version, &mut out);
            }
            let mut per: std::collections::BTreeMap<&str, usize> = Default::default();
            for f in &out {
                *per.entry(f.rule.id).or_default() += 1;
                *total.entry(f.rule.id).or_default() += 1;
            }
            let name = path.strip_prefix(&root).unwrap_or(path);
            println!("{} ({version:?}): {per:?}", name.display());
            let mut shown: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
            for f in &out {
                let n = shown.entry((f.rule.id, f.message.as_str())).or_default();
                *n += 1;
                if *n <= 2 || std::env::var_os("STRUCT_ALL").is_some() {
                    println!(
                        "    {} line {} {}: {} {:?}",
                        f.rule.id, f.line, f.path, f.message, f.text
                    );
                }
            }
        }
        println!("total: {total:?}");
    }
}
