//! Inspecting records: their own findings and their facts as plain data,
//! on any thread (see [`Checker::inspect`](super::Checker::inspect)).
//!
//! One walk does it, over the structures of records as they begin and end:
//! a reader's events (a chunk of a file: [`Walk`] straight over the reader,
//! no tree built) or a record tree's walk ([`inspect_into`]). Each rule's
//! own module judges what the walk hands it (a payload, a structure that
//! begins or ends, a record's dated events).

use std::borrow::Cow;

use super::config::Groups;
use super::links::Role;
use super::plausible::{DateFact, Dated};
use super::structure::{self, Structures};
use super::{plausible, push_path, values, CheckConfig, Finding, Rule, Version};
use crate::event::{Value, Xref};
use crate::tree::hash::{hash_bytes, FastMap};
use crate::tree::{NodeRef, Step};
use crate::value::{Date, Pedigree};

/// A range of a string buffer.
pub(super) type Span = (u32, u32);

/// A pointer as an inspection found it.
#[derive(Debug)]
pub(super) struct PointerFact {
    pub(super) target: Span,
    /// The target's hash ([`hash_bytes`]), worked out here, on the
    /// inspecting thread, not where the pointers are resolved.
    pub(super) hash: u64,
    pub(super) line: u64,
    /// The path's id in the inspection's `paths`.
    pub(super) path: u32,
    /// The record tags it may point to ([`structure::target_code`]).
    pub(super) expected: u8,
    pub(super) role: Role,
}

/// What an inspection found of one record.
#[derive(Debug)]
pub(super) struct RecordFacts {
    /// The xref_id and its hash.
    pub(super) xref: Option<(Span, u64)>,
    pub(super) tag: Span,
    pub(super) line: u64,
    /// The end of its pointers and findings in the inspection's lists.
    pub(super) pointers_end: u32,
    pub(super) findings_end: u32,
    /// Its index in the inspection's `dated`, or `u32::MAX` (most records
    /// have none: records' facts are kept small, there are millions).
    pub(super) dated: u32,
    /// The version a first record that is the HEAD says.
    pub(super) head_version: Option<Version>,
}

/// What the family-age rules need of a record: the birth of an
/// individual, the marriage of a family (its span, line and payload).
#[derive(Debug)]
pub(super) struct DatedFacts {
    pub(super) birth: Option<(i64, i64)>,
    pub(super) marriage: Option<((i64, i64), u64, Span)>,
}

/// What inspecting records found: each record's own findings and the
/// facts that the rules about more than one record need, as plain data
/// (one string buffer for all the records inspected together). Made by
/// [`Checker::inspect`](super::Checker::inspect) (which only reads the checker, so records can be
/// inspected on several threads) and given to [`Checker::absorb`](super::Checker::absorb) in
/// document order.
#[derive(Debug, Default)]
pub struct Inspection {
    pub(super) strings: String,
    pub(super) records: Vec<RecordFacts>,
    pub(super) pointers: Vec<PointerFact>,
    pub(super) findings: Vec<Finding>,
    /// See [`RecordFacts::dated`].
    pub(super) dated: Vec<DatedFacts>,
    /// The distinct paths of the pointers, in the order first seen: a
    /// few dozen, where the pointers are millions.
    pub(super) paths: Vec<Span>,
    /// The paths' ids by text, while inspecting.
    pub(super) path_ids: FastMap<Box<str>, u32>,
    /// A path being written.
    pub(super) scratch: String,
    /// The kinds of structure seen, and what is known of each.
    pub(super) kinds: Kinds,
}

impl Inspection {
    /// An inspection with room for the records of about `bytes` octets
    /// (records of a few hundred octets, a pointer in every 128).
    pub(super) fn with_room(bytes: usize) -> Inspection {
        let mut found = Inspection::default();
        found.records.reserve(bytes / 256);
        found.pointers.reserve(bytes / 128);
        found.strings.reserve(bytes / 16);
        found
    }

    /// The records inspected.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no record was inspected.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Adds `by` to every line number it holds (findings, their messages'
    /// line references, records, pointers, marriages): a chunk read
    /// numbered from line 1, renumbered once the lines before it are
    /// known.
    pub(super) fn shift_lines(&mut self, by: u64) {
        if by == 0 {
            return;
        }
        for r in &mut self.records {
            r.line = r.line.saturating_add(by);
        }
        for p in &mut self.pointers {
            p.line = p.line.saturating_add(by);
        }
        for d in &mut self.dated {
            if let Some((_, line, _)) = &mut d.marriage {
                *line = line.saturating_add(by);
            }
        }
        for f in &mut self.findings {
            if f.line != 0 {
                f.line = f.line.saturating_add(by);
            }
            plausible::shift_line_reference(f, by);
        }
    }

    pub(super) fn text(&self, (a, b): Span) -> &str {
        self.strings.get(a as usize..b as usize).unwrap_or("")
    }
}

/// A kind of structure: its tags from its record down (`INDI.BIRT.DATE`),
/// numbered as first seen. What the rules make of a structure's place
/// (its class among its superstructure's substructures, a pointer's path
/// and target) depends on its kind alone, so it is worked out once per
/// kind: a few hundred, where the structures are millions.
#[derive(Debug, Default)]
pub(super) struct Kinds {
    /// The version the kinds were worked out for.
    version: Option<Version>,
    /// Per superstructure kind ([`ROOT`] for records) and tag
    /// ([`tag_key`](super::tag_key)):
    /// the kind.
    ids: FastMap<(u32, u64), u32>,
    info: Vec<KindInfo>,
    /// The kinds found last, by a few bits of their superstructure kind
    /// and tag: looked at before `ids` (a few hundred kinds make most of
    /// a file, so this almost always has the one asked for).
    recent: Vec<(u64, u32, u32)>,
}

/// How many entries [`Kinds::recent`] has (a power of two).
const RECENT: usize = 1024;

/// What is known of a kind.
#[derive(Clone, Copy, Debug)]
struct KindInfo {
    /// Its class ([`structure::classify`]), or [`UNKNOWN`].
    class: u32,
    /// Its pointers' path id in the inspection's `paths`, or [`UNKNOWN`].
    path: u32,
    /// Its pointers' target ([`structure::target_code`]), once `path` is
    /// known.
    target: u8,
    /// What its tag is to the walk ([`tag_flags`]).
    flags: u8,
}

/// [`tag_flags`]: an extension's tag (`_` first).
const EXTENSION: u8 = 1;
/// [`tag_flags`]: a payload the value rules judge ([`values::judged`]).
const JUDGED: u8 = 2;
/// [`tag_flags`]: `DATE`.
const DATE: u8 = 4;
/// [`tag_flags`]: `AGE`.
const AGE: u8 = 8;
/// [`tag_flags`]: `PEDI`.
const PEDI: u8 = 16;
/// [`tag_flags`]: an event whose first `DATE` the plausibility rules read
/// (in an individual or family record).
const DATED_EVENT: u8 = 32;

/// What a tag is to the walk: the tests made once per kind.
fn tag_flags(tag: &str) -> u8 {
    let mut f = 0;
    if tag.starts_with('_') {
        f |= EXTENSION;
    }
    if values::judged(tag) {
        f |= JUDGED;
    }
    match tag {
        "DATE" => f |= DATE,
        "AGE" => f |= AGE,
        "PEDI" => f |= PEDI,
        _ => {}
    }
    if plausible::dated_tag(tag).is_some() {
        f |= DATED_EVENT;
    }
    f
}

/// Not worked out yet.
const UNKNOWN: u32 = u32::MAX;
/// No kind: a tag too long for a [`tag_key`](super::tag_key), or under
/// one.
const NO_KIND: u32 = u32::MAX;
/// The superstructure kind of records.
const ROOT: u32 = u32::MAX - 1;
/// No pointer.
const NO_POINTER: u32 = u32::MAX;
/// How deep a pointer's structure may be to have a target: no standard
/// structure is deeper.
const MAX_TARGET_DEPTH: usize = 16;

impl Kinds {
    /// Starts the kinds of a document of `version`.
    fn version(&mut self, version: Version) {
        if self.version != Some(version) {
            self.ids.clear();
            self.info.clear();
            self.recent.clear();
            self.version = Some(version);
        }
    }

    /// The kind of a structure tagged `tag` (`key`: its
    /// [`tag_key`](super::tag_key)) under one of kind `parent`.
    fn id(&mut self, parent: u32, (tag, key): (&str, Option<u64>)) -> u32 {
        let Some(key) = key else {
            return NO_KIND;
        };
        if parent == NO_KIND {
            return NO_KIND;
        }
        let slot = (key ^ u64::from(parent).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            >> (64 - RECENT.trailing_zeros());
        if let Some(&(k, p, id)) = self.recent.get(slot as usize) {
            if k == key && p == parent {
                return id;
            }
        }
        let next = self.info.len() as u32;
        let id = *self.ids.entry((parent, key)).or_insert(next);
        if id == next {
            self.info.push(KindInfo {
                class: UNKNOWN,
                path: UNKNOWN,
                target: 0,
                flags: tag_flags(tag),
            });
        }
        if self.recent.is_empty() {
            self.recent = vec![(0, NO_KIND, NO_KIND); RECENT];
        }
        self.recent[slot as usize] = (key, parent, id);
        id
    }

    fn get(&self, kind: u32) -> Option<&KindInfo> {
        self.info.get(kind as usize)
    }
}

/// An open structure, as the walk keeps it. (The walk's frames are
/// slots, written field by field where they lie: a frame made whole and
/// then moved into place would be written in parts and read back whole,
/// which stalls the processor's store forwarding on every line.)
#[derive(Debug, Default)]
struct Frame<'a> {
    kind: u32,
    /// [`SKIP`], [`SEEN_PEDI`].
    flags: u32,
    tag: Cow<'a, str>,
    line: u64,
    value: Option<Value<'a>>,
    /// An `INDI.FAMC`'s pointer, to be marked adopted or foster by its
    /// first `PEDI`.
    famc: u32,
    /// A record's substructure whose first `DATE` the plausibility rules
    /// read: its index in [`Walk::events`].
    event: u32,
}

/// [`Frame::flags`]: under (or itself) an extension, not judged by the
/// value, link or plausibility rules.
const SKIP: u32 = 1;
/// [`Frame::flags`]: its first `PEDI` was seen.
const SEEN_PEDI: u32 = 2;

/// The rules over the structures of records as they begin and end, into
/// an [`Inspection`]: [`Walk::begin`] and [`Walk::end`] in document order,
/// records whole.
pub(super) struct Walk<'a, 'c> {
    config: &'c CheckConfig,
    g: Groups,
    version: Version,
    /// The version the HEAD says, if the first record to come may be the
    /// HEAD: its `head_version` if it is.
    head: Option<Version>,
    structures: Structures,
    /// The open structures are `frames[..depth]`.
    frames: Vec<Frame<'a>>,
    depth: usize,
    /// The current record's structure findings, then its others (the
    /// structure rules' first, as a record is judged).
    structure_found: Vec<Finding>,
    other_found: Vec<Finding>,
    /// The current record's xref_id and tag in the inspection's strings,
    /// its line, and which record rules of the plausibility rules read it.
    record: (Option<(Span, u64)>, Span, u64, Dating),
    head_version: Option<Version>,
    /// The current record's substructures whose dates the plausibility
    /// rules read, and the payloads of those dates (for the findings'
    /// texts).
    events: Vec<Dated>,
    dates: Vec<Option<Value<'a>>>,
}

/// Which of the plausibility rules' record rules a record is for (worked
/// out from its tag once, as it begins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dating {
    No,
    Person,
    Family,
}

/// Appends `s` to `strings`, giving its span there.
fn put(strings: &mut String, s: &str) -> Span {
    let start = strings.len() as u32;
    strings.push_str(s);
    (start, strings.len() as u32)
}

impl<'a, 'c> Walk<'a, 'c> {
    /// A walk of the records of a document of `version`; `head`: the
    /// version a HEAD that is the first record says (the caller read it
    /// first), `None` when the first record to come is not the document's.
    pub(super) fn new(
        config: &'c CheckConfig,
        g: Groups,
        version: Version,
        head: Option<Version>,
    ) -> Walk<'a, 'c> {
        Walk {
            config,
            g,
            version,
            head,
            structures: Structures::default(),
            frames: Vec::new(),
            depth: 0,
            structure_found: Vec::new(),
            other_found: Vec::new(),
            record: (None, (0, 0), 0, Dating::No),
            head_version: None,
            events: Vec::new(),
            dates: Vec::new(),
        }
    }

    /// The tag of the `i`th open structure.
    fn tag(&self, i: usize) -> &str {
        self.frames.get(i).map_or("", |f| &f.tag)
    }

    /// The open structures.
    fn open(&self) -> &[Frame<'a>] {
        self.frames.get(..self.depth).unwrap_or(&[])
    }

    /// A structure begins: at level 0 a record, else a substructure of the
    /// innermost open one. `value`: its payload. (`tag` is a `Cow` to keep
    /// it borrowed from the input, as it comes.)
    #[allow(clippy::ptr_arg)]
    pub(super) fn begin(
        &mut self,
        found: &mut Inspection,
        tag: &Cow<'a, str>,
        xref: Option<&Xref<'a>>,
        value: Option<&Value<'a>>,
        line: u64,
    ) {
        let level = self.depth;
        if level == 0 {
            self.start_record(found, tag, xref, line);
        }
        let version = self.version;
        let parent = level.checked_sub(1).and_then(|i| self.frames.get(i));
        let parent_kind = parent.map_or(ROOT, |f| f.kind);
        let key = super::tag_key(tag.as_bytes());
        let kind = found.kinds.id(parent_kind, (tag, key));
        let info = found.kinds.get(kind);
        let flags = info.map_or_else(|| tag_flags(tag), |k| k.flags);
        let class = match info {
            Some(k) if k.class != UNKNOWN => k.class,
            _ => {
                let c = self.structures.classify_next(version, tag);
                if let Some(k) = found.kinds.info.get_mut(kind as usize) {
                    k.class = c;
                }
                c
            }
        };
        let pointer = value.and_then(Value::as_pointer);
        let text = structure::has_text(value.and_then(Value::as_text));
        let skip = parent.is_some_and(|f| f.flags & SKIP != 0) || flags & EXTENSION != 0;
        if self.frames.len() == level {
            self.frames.push(Frame::default());
        }
        let f = &mut self.frames[level];
        f.kind = kind;
        f.flags = if skip { SKIP } else { 0 };
        f.tag.clone_from(tag);
        f.line = line;
        f.value = value.cloned();
        f.famc = NO_POINTER;
        f.event = NO_POINTER;
        self.depth = level + 1;
        let tag: &str = tag;
        {
            let frames = self.frames.get(..self.depth).unwrap_or(&[]);
            self.structures.begin(
                version,
                (tag, key, class),
                (pointer.is_some(), text),
                &mut self.structure_found,
                |rule, message| finding(frames, rule, message),
            );
        }
        if skip {
            return;
        }
        let g = self.g;
        let dated = self.record.3 != Dating::No;
        if dated && level == 1 && flags & DATED_EVENT != 0 {
            if let Some(tag) = plausible::dated_tag(tag) {
                self.frames[level].event = self.events.len() as u32;
                self.events.push(Dated { tag, date: None });
                self.dates.push(None);
            }
        }
        if level == 2
            && flags & PEDI != 0
            && self.frames[1].famc != NO_POINTER
            && self.frames[1].flags & SEEN_PEDI == 0
        {
            self.frames[1].flags |= SEEN_PEDI;
            let adopted = value
                .and_then(Value::as_text)
                .map(|p| Pedigree::parse(&p.text()))
                .is_some_and(|p| matches!(p, Ok(Pedigree::Adopted | Pedigree::Foster)));
            if adopted {
                if let Some(p) = found.pointers.get_mut(self.frames[1].famc as usize) {
                    p.role = Role::Child(true);
                }
            }
        }
        if dated && level == 2 && flags & DATE != 0 {
            // Parsed once for both groups of rules.
            // (A date is a large value: matched where it is made, not
            // moved through `Option` and `Result` adapters.)
            let mut span = None;
            if let Some(Value::Text(p)) = value {
                match Date::parse(&p.text()) {
                    Ok(d) => span = d.jdn_range(),
                    Err(e) if g.value => {
                        let (rule, message) = values::not_a_date(&e);
                        self.other(rule, message);
                    }
                    Err(_) => {}
                }
            }
            let event = self.frames[1].event;
            if let Some(e @ Dated { date: None, .. }) = self.events.get_mut(event as usize) {
                e.date = Some(DateFact { span, line });
                self.dates[event as usize] = value.cloned();
            }
        } else if g.value && flags & JUDGED != 0 {
            if let Some(text) = value.and_then(Value::as_text).map(|p| p.text()) {
                let parent = level.checked_sub(1).map(|i| self.tag(i));
                if let Some((rule, message)) = values::problem(tag, parent, version, &text) {
                    self.other(rule, message);
                }
            }
        }
        if g.plausible && flags & AGE != 0 {
            if let Some(text) = value.and_then(Value::as_text).map(|p| p.text()) {
                if let Some((rule, message)) = plausible::age(&text, self.config.limits()) {
                    self.other(rule, message);
                }
            }
        }
        if !(g.link || g.plausible) {
            return;
        }
        if let Some(p) = pointer {
            // GEDCOM 7's null pointer points nowhere on purpose.
            if version == Version::Gedcom7 && p.as_bytes() == b"@VOID@" {
                return;
            }
            let role = match level {
                1 => Role::of(self.tag(0), tag),
                _ => Role::Other,
            };
            let p = p.to_str_lossy();
            let target = put(&mut found.strings, &p);
            let (path, expected) = match found.kinds.get(kind) {
                Some(k) if k.path != UNKNOWN => (k.path, k.target),
                _ => {
                    let known = self.pointer_kind(found, level);
                    if let Some(k) = found.kinds.info.get_mut(kind as usize) {
                        (k.path, k.target) = known;
                    }
                    known
                }
            };
            if role == Role::Child(false) {
                self.frames[level].famc = found.pointers.len() as u32;
            }
            found.pointers.push(PointerFact {
                target,
                hash: hash_bytes(p.as_bytes()),
                line,
                path,
                expected,
                role,
            });
        }
    }

    /// The path id and target code of the pointers of the innermost open
    /// structure (at `level`).
    fn pointer_kind(&self, found: &mut Inspection, level: usize) -> (u32, u8) {
        let tags: Vec<&str> = (0..self.depth).map(|i| self.tag(i)).collect();
        let path = path_id(found, &tags);
        let target = match level <= MAX_TARGET_DEPTH {
            true => structure::target_of_type(self.version, self.structures.ty()),
            false => None,
        };
        (path, structure::target_code(target))
    }

    /// A finding other than the structure rules' about the innermost open
    /// structure.
    fn other(&mut self, rule: &'static Rule, message: String) {
        let f = finding(self.open(), rule, message);
        self.other_found.push(f);
    }

    /// The innermost open structure ends.
    pub(super) fn end(&mut self, found: &mut Inspection) {
        if self.depth == 0 {
            return;
        }
        {
            let frames = self.frames.get(..self.depth).unwrap_or(&[]);
            self.structures
                .end(self.version, &mut self.structure_found, |rule, message| {
                    finding(frames, rule, message)
                });
        }
        self.depth -= 1;
        if self.depth == 0 {
            self.end_record(found);
        }
    }

    fn start_record(
        &mut self,
        found: &mut Inspection,
        tag: &str,
        xref: Option<&Xref<'a>>,
        line: u64,
    ) {
        let head = self.head.take();
        self.head_version = head.filter(|_| tag == "HEAD");
        if let Some(v) = self.head_version {
            self.version = v;
        }
        found.kinds.version(self.version);
        let xref = xref.map(|x| {
            let x = x.to_str_lossy();
            (put(&mut found.strings, &x), hash_bytes(x.as_bytes()))
        });
        let t = put(&mut found.strings, tag);
        let dating = match tag {
            _ if !self.g.plausible => Dating::No,
            "INDI" => Dating::Person,
            "FAM" => Dating::Family,
            _ => Dating::No,
        };
        self.record = (xref, t, line, dating);
        self.events.clear();
        self.dates.clear();
        self.structure_found.clear();
        self.other_found.clear();
        self.structures.clear();
    }

    fn end_record(&mut self, found: &mut Inspection) {
        let (xref, tag, line, dating) = self.record;
        let mut mine = std::mem::take(&mut self.structure_found);
        if !self.g.structure {
            mine.clear();
        }
        mine.append(&mut self.other_found);
        let limits = self.config.limits();
        let mut birth = None;
        let mut marriage = None;
        // The text of the `i`th event's date.
        let dates = &self.dates;
        let text = |i: usize| match dates.get(i) {
            Some(Some(Value::Text(p))) => Some(p.text()),
            _ => None,
        };
        if dating == Dating::Person {
            let from = mine.len();
            birth = plausible::person("INDI", &self.events, limits, &mut mine);
            for f in &mut mine[from..] {
                let i = self
                    .events
                    .iter()
                    .position(|e| e.date.is_some_and(|d| d.line == f.line));
                f.text = i.and_then(text).map(|t| t.into_owned());
            }
        }
        if dating == Dating::Family {
            marriage = plausible::marriage(&self.events).and_then(|(i, s)| {
                let line = self.events[i].date?.line;
                Some((s, line, put(&mut found.strings, &text(i)?)))
            });
        }
        mine.retain(|f| self.config.has(f.rule));
        if !mine.is_empty() {
            // Every finding here is in this record (a path too deep to
            // name it does not say so).
            let own = xref.map(|(x, _)| found.text(x).to_string());
            for f in &mut mine {
                f.record.clone_from(&own);
            }
            mine.sort_by_key(|f| f.line);
            found.findings.append(&mut mine);
        }
        self.structure_found = mine;
        let dated = match (birth, marriage) {
            (None, None) => u32::MAX,
            _ => {
                found.dated.push(DatedFacts { birth, marriage });
                found.dated.len() as u32 - 1
            }
        };
        found.records.push(RecordFacts {
            xref,
            tag,
            line,
            pointers_end: found.pointers.len() as u32,
            findings_end: found.findings.len() as u32,
            dated,
            head_version: self.head_version,
        });
    }
}

/// A finding about the innermost of the open structures `frames`: its
/// line, path and payload. The record is the caller's to fill in.
fn finding(frames: &[Frame<'_>], rule: &'static Rule, message: String) -> Finding {
    let names: Vec<&str> = frames.iter().map(|f| &*f.tag).collect();
    let mut path = String::new();
    push_path(&mut path, &names);
    let node = frames.last();
    let text = match node.and_then(|f| f.value.as_ref()) {
        Some(Value::Pointer(p)) => Some(p.to_string()),
        Some(Value::Text(p)) => Some(p.text().into_owned()),
        None => None,
    };
    Finding {
        rule,
        line: node.map_or(0, |f| f.line),
        record: None,
        path,
        message,
        text,
    }
}

/// The id of the path `path` in `found`'s paths.
fn path_id(found: &mut Inspection, path: &[&str]) -> u32 {
    found.scratch.clear();
    push_path(&mut found.scratch, path);
    if let Some(&id) = found.path_ids.get(found.scratch.as_str()) {
        return id;
    }
    let id = found.paths.len() as u32;
    let span = put(&mut found.strings, &found.scratch);
    found.paths.push(span);
    found.path_ids.insert(found.scratch.as_str().into(), id);
    id
}

impl<'a> Walk<'a, '_> {
    /// Walks one record of a tree: its structures as they begin and end
    /// (the walk's buffers serve every record given to it).
    pub(super) fn record(&mut self, found: &mut Inspection, record: NodeRef<'a>) {
        for step in record.walk() {
            match step {
                Step::Enter(n) => {
                    let value = match n.pointer() {
                        Some(p) => Some(Value::Pointer(p)),
                        None => n.payload().map(Value::Text),
                    };
                    let tag = Cow::Borrowed(n.tag());
                    self.begin(found, &tag, n.xref().as_ref(), value.as_ref(), n.line());
                }
                Step::Leave(_) => self.end(found),
            }
        }
    }
}

/// Inspects one record of a tree into `found`: see
/// [`Checker::inspect`](super::Checker::inspect). `first`: the first
/// record of the document (a HEAD there decides the version).
pub(super) fn inspect_into(
    config: &CheckConfig,
    g: Groups,
    version: Version,
    first: bool,
    record: NodeRef<'_>,
    found: &mut Inspection,
) {
    let head = (first && record.tag() == "HEAD").then(|| structure::version_of(record));
    Walk::new(config, g, head.unwrap_or(version), head).record(found, record);
}
