//! The [`Checker`]: records in, findings out, facts kept for the end.
//!
//! Records are inspected on any thread ([`inspect_into`]: findings of the
//! record alone, and facts as plain data in one string buffer per batch);
//! the calling thread absorbs them in document order (xref_ids defined,
//! pointers kept with their targets as text); [`Checker::finish`] resolves
//! the pointers on `jobs` threads and judges links and family ages with
//! sorted lists, not hash sets.

use std::fmt;
use std::ops::Range;
use std::sync::{Mutex, PoisonError};

use super::config::Groups;
use super::inspect::{inspect_into, Inspection, PointerFact, Span};
use super::links::{self, Role};
use super::plausible::{self, age_range};
use super::{read, structure, CheckConfig, Finding, Rule, Version};
use crate::ordered::par_ranges;
use crate::tree::hash::FastMap as HashMap;
use crate::tree::NodeRef;
use crate::{Diagnostic, Error, Severity};

/// Drops `value` on a thread of its own (or here, if no thread can be
/// made): large collections of small allocations take a while to free,
/// which nobody waits for.
fn drop_elsewhere<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("gedcom-elf-drop".into())
        .spawn(move || drop(value));
}

/// No record: a pointer's record has no xref_id, or its target is none.
const NONE: u32 = u32::MAX;

/// Strings numbered as they are first seen.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, u32>,
    /// Each id's string in `text`.
    names: Vec<Span>,
    text: String,
    /// The id given last.
    last: Option<u32>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        // Records come in runs of one tag: the last string asked for first.
        if let Some(id) = self.last.filter(|&id| self.name(id) == s) {
            return id;
        }
        if let Some(&id) = self.ids.get(s) {
            self.last = Some(id);
            return id;
        }
        let id = self.names.len() as u32;
        self.last = Some(id);
        let start = self.text.len() as u32;
        self.text.push_str(s);
        self.names.push((start, self.text.len() as u32));
        self.ids.insert(s.into(), id);
        id
    }

    fn name(&self, id: u32) -> &str {
        let Some(&(a, b)) = self.names.get(id as usize) else {
            return "";
        };
        self.text.get(a as usize..b as usize).unwrap_or("")
    }
}

/// The xref_ids defined, numbered as they are first defined: an
/// open-addressing table keyed by the hashes worked out where the records
/// were inspected, so that the thread absorbing them hashes nothing and
/// allocates nothing per record.
#[derive(Default)]
struct Xrefs {
    /// Per slot: an id plus one in the low half (0 for none) and the top
    /// of its hash in the high half, so that probing compares no text
    /// but the one that matches; a power of two long, at most half full.
    slots: Vec<u64>,
    hashes: Vec<u64>,
    /// Each id's text in `text`.
    names: Vec<Span>,
    text: String,
}

impl Xrefs {
    /// The id of `name`, whose hash is `hash`.
    fn find(&self, hash: u64, name: &str) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            let id = (slot as u32).checked_sub(1)?;
            if slot >> 32 == hash >> 32 && self.name(id) == name {
                return Some(id);
            }
            i = (i + 1) & mask;
        }
    }

    /// Makes room for `n` more ids.
    fn reserve(&mut self, n: usize) {
        let want = (self.names.len() + n).saturating_mul(2).next_power_of_two();
        if want > self.slots.len() {
            self.slots = vec![0; want];
            for (id, &h) in self.hashes.iter().enumerate() {
                Xrefs::place(&mut self.slots, h, id as u32);
            }
        }
        self.hashes.reserve(n);
        self.names.reserve(n);
    }

    /// Reads the slots where `hashes` begin their probes, so that the
    /// memory fetches overlap before the lookups that depend on them: the
    /// table is much larger than the caches, and one record's lookup
    /// waits for memory.
    fn warm(&self, hashes: impl Iterator<Item = u64>) -> u64 {
        let Some(mask) = self.slots.len().checked_sub(1) else {
            return 0;
        };
        hashes.fold(0, |acc, h| acc ^ self.slots[h as usize & mask])
    }

    /// Numbers `name` (not defined yet).
    fn insert(&mut self, hash: u64, name: &str) -> u32 {
        if (self.names.len() + 1) * 2 > self.slots.len() {
            let len = (self.slots.len() * 2).max(1 << 12);
            self.slots = vec![0; len];
            for (id, &h) in self.hashes.iter().enumerate() {
                Xrefs::place(&mut self.slots, h, id as u32);
            }
        }
        let id = self.names.len() as u32;
        let start = self.text.len() as u32;
        self.text.push_str(name);
        self.names.push((start, self.text.len() as u32));
        self.hashes.push(hash);
        Xrefs::place(&mut self.slots, hash, id);
        id
    }

    fn place(slots: &mut [u64], hash: u64, id: u32) {
        let mask = slots.len() - 1;
        let mut i = hash as usize & mask;
        while slots[i] != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = (hash >> 32 << 32) | u64::from(id + 1);
    }

    fn name(&self, id: u32) -> &str {
        let Some(&(a, b)) = self.names.get(id as usize) else {
            return "";
        };
        self.text.get(a as usize..b as usize).unwrap_or("")
    }
}

/// The pointers of one inspection, kept for the end as they came (moved,
/// not copied: there are millions).
struct Part {
    strings: String,
    pointers: Vec<PointerFact>,
    /// Per record with pointers: its id (or [`NONE`]) and the end of its
    /// pointers.
    froms: Vec<(u32, u32)>,
    /// The checker's path ids of the inspection's paths.
    paths: Vec<u32>,
}

impl Part {
    fn text(&self, (a, b): Span) -> &str {
        self.strings.get(a as usize..b as usize).unwrap_or("")
    }

    /// The record the `j`th pointer is in.
    fn from(&self, j: usize) -> u32 {
        let i = self.froms.partition_point(|&(_, end)| end as usize <= j);
        self.froms.get(i).map_or(NONE, |&(from, _)| from)
    }
}

/// A family's marriage date, kept for the end.
struct Marriage {
    family: u32,
    span: (i64, i64),
    line: u64,
    text: Box<str>,
}

/// What a whole check saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records checked (the HEAD and TRLR included).
    pub records: u64,
    /// Findings of severity error.
    pub errors: u64,
    /// Findings of severity warning.
    pub warnings: u64,
}

impl Summary {
    pub(super) fn count(&mut self, f: &Finding) {
        match f.severity() {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
    }
}

/// Why [`Checker::run`] stopped.
#[derive(Debug)]
pub enum RunError<E> {
    /// Reading the input failed (what was read before was checked and
    /// its findings given).
    Read(Error),
    /// The sink failed.
    Sink(E),
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Read(e) => e.fmt(f),
            RunError::Sink(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}

/// Checks a document record by record.
///
/// Give it every record in document order, the HEAD first
/// ([`Checker::record`]); each record's own findings come at once; the
/// findings that need every record (links, parents' ages) come from
/// [`Checker::finish`]. [`Checker::run`] does all of it over
/// [`Records`](crate::tree::Records), the reader's diagnostics included, in line order.
///
/// ```
/// use gedcom_elf::check::{CheckConfig, Checker};
/// use gedcom_elf::tree::Records;
///
/// let input: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
///     0 @I1@ INDI\n1 BIRT\n2 DATE BET 1900\n1 FAMS @F9@\n0 TRLR\n";
/// let mut found = Vec::new();
/// let summary = Checker::new(CheckConfig::new())
///     .run(&mut Records::new(input), |f| {
///         found.push(format!("{}: {} [{}] {}", f.line, f.severity(), f.rule.id, f.message));
///         Ok::<(), std::convert::Infallible>(())
///     })?;
/// assert_eq!(found, [
///     "8: error [value.date] not a date: byte 8: expected `AND`",
///     "9: error [link.missing-target] @F9@ names no record",
/// ]);
/// assert_eq!((summary.errors, summary.warnings), (2, 0));
/// # Ok::<(), gedcom_elf::check::RunError<std::convert::Infallible>>(())
/// ```
pub struct Checker {
    pub(super) config: CheckConfig,
    pub(super) groups: Groups,
    pub(super) jobs: usize,
    pub(super) version: Version,
    pub(super) started: bool,
    /// The records' xref_ids, numbered as they are defined.
    xrefs: Xrefs,
    paths: Interner,
    tags: Interner,
    /// Per xref_id: the tag and line of the first record that has it.
    defined: Vec<(u32, u64)>,
    /// Per xref_id: the span of the birth of the individual that has it.
    births: Vec<Option<(i64, i64)>>,
    parts: Vec<Part>,
    /// The records with pointers of the inspection being absorbed: see
    /// [`Part::froms`].
    froms: Vec<(u32, u32)>,
    marriages: Vec<Marriage>,
    pub(super) records: u64,
}

impl Checker {
    /// A checker running `config`'s rules.
    pub fn new(config: CheckConfig) -> Checker {
        Checker {
            groups: config.groups(),
            jobs: 1,
            config,
            version: Version::Gedcom551,
            started: false,
            xrefs: Xrefs::default(),
            paths: Interner::default(),
            tags: Interner::default(),
            defined: Vec::new(),
            births: Vec::new(),
            parts: Vec::new(),
            froms: Vec::new(),
            marriages: Vec::new(),
            records: 0,
        }
    }

    /// The version the document was found to be (from its HEAD; 5.5.1
    /// until the HEAD is seen).
    pub fn version(&self) -> Version {
        self.version
    }

    /// Checks one record: its findings are pushed to `out` in line order,
    /// its facts kept.
    pub fn record(&mut self, record: NodeRef<'_>, out: &mut Vec<Finding>) {
        let inspection = self.inspect(record);
        self.absorb(inspection, out);
    }

    /// Checks one record without changing the checker (so it may run on
    /// any thread): the first record given must be absorbed before the
    /// others are inspected, since the HEAD decides the version.
    pub fn inspect(&self, record: NodeRef<'_>) -> Inspection {
        let mut found = Inspection::default();
        let first = !self.started;
        inspect_into(
            &self.config,
            self.groups,
            self.version,
            first,
            record,
            &mut found,
        );
        found
    }

    /// Keeps the facts of an inspection and pushes its findings to `out`,
    /// inspections in document order.
    pub fn absorb(&mut self, inspection: Inspection, out: &mut Vec<Finding>) {
        let mut findings = inspection.findings.into_iter();
        let parts = Inspection {
            findings: Vec::new(),
            ..inspection
        };
        std::hint::black_box(self.warm(&parts));
        for i in 0..parts.records.len() {
            self.absorb_record(&parts, i, &mut findings, out);
        }
        self.keep(parts);
    }

    /// Makes room for the facts of about `records` records.
    pub(super) fn reserve(&mut self, records: usize) {
        self.xrefs.reserve(records);
        self.defined.reserve(records);
        self.births.reserve(records);
    }

    /// Fetches what absorbing the records of `found` will look up (see
    /// [`Xrefs::warm`]); gives a number that means nothing.
    pub(super) fn warm(&self, found: &Inspection) -> u64 {
        self.xrefs
            .warm(found.records.iter().filter_map(|r| r.xref.map(|x| x.1)))
    }

    /// Keeps the facts of the `i`th record of `found`, its findings taken
    /// from `findings` to `out`; [`Checker::keep`] after the last.
    pub(super) fn absorb_record(
        &mut self,
        found: &Inspection,
        i: usize,
        findings: &mut impl Iterator<Item = Finding>,
        out: &mut Vec<Finding>,
    ) {
        let r = &found.records[i];
        if !self.started {
            self.started = true;
            self.version = r.head_version.unwrap_or(self.version);
        }
        self.records += 1;
        let tag = found.text(r.tag);
        let mut from = NONE;
        let mut new = false;
        if let Some((x, hash)) = r.xref.map(|(x, h)| (found.text(x), h)) {
            match self.xrefs.find(hash, x) {
                Some(id) => {
                    from = id;
                    let first = self.defined[id as usize].1;
                    if self.config.has(&links::DUPLICATE_XREF) {
                        out.push(Finding {
                            rule: &links::DUPLICATE_XREF,
                            line: r.line,
                            record: Some(x.to_string()),
                            path: tag.to_string(),
                            message: format!(
                                "{x} is also the xref_id of the record at line {first}"
                            ),
                            text: Some(x.to_string()),
                        });
                    }
                }
                None => {
                    from = self.xrefs.insert(hash, x);
                    let tag = self.tags.id(tag);
                    self.defined.push((tag, r.line));
                    self.births.push(None);
                    new = true;
                }
            }
        }
        let (findings_start, pointers_start) = match i.checked_sub(1) {
            Some(p) => (found.records[p].findings_end, found.records[p].pointers_end),
            None => (0, 0),
        };
        out.extend(findings.take((r.findings_end - findings_start) as usize));
        if r.pointers_end > pointers_start {
            self.froms.push((from, r.pointers_end));
        }
        let dated = found.dated.get(r.dated as usize);
        if new {
            self.births[from as usize] = dated.and_then(|d| d.birth);
        }
        if let (Some((span, line, text)), true) = (dated.and_then(|d| d.marriage), from != NONE) {
            self.marriages.push(Marriage {
                family: from,
                span,
                line,
                text: found.text(text).into(),
            });
        }
    }

    /// Keeps the pointers of `found`, whose records have all been
    /// absorbed.
    pub(super) fn keep(&mut self, found: Inspection) {
        let froms = std::mem::take(&mut self.froms);
        if found.pointers.is_empty() {
            return;
        }
        let paths = found
            .paths
            .iter()
            .map(|&p| self.paths.id(found.text(p)))
            .collect();
        self.parts.push(Part {
            strings: found.strings,
            pointers: found.pointers,
            froms,
            paths,
        });
    }

    /// The finding of a reader's diagnostic, if its rule runs.
    pub fn diagnostic(&self, d: &Diagnostic) -> Option<Finding> {
        let f = read::finding(d);
        self.config.has(f.rule).then_some(f)
    }

    /// The findings that need every record (links, family ages), pushed
    /// to `out` in line order. The pointers are resolved on
    /// [`jobs`](Checker::jobs) threads.
    pub fn finish(self, out: &mut Vec<Finding>) {
        let from = out.len();
        self.finish_unsorted(out);
        out[from..].sort_by_key(|f| f.line);
    }

    /// [`Checker::finish`], its findings pushed in no particular order
    /// (for a caller that sorts what it gives anyway), the checker's
    /// memory freed on a thread of its own: millions of facts, whose
    /// freeing need not hold up the findings.
    pub(super) fn finish_unsorted(self, out: &mut Vec<Finding>) {
        let resolved = self.resolve();
        out.append(&mut self.judge(&resolved));
        drop_elsewhere((self, resolved));
    }

    /// Each pointer's target record, or [`NONE`], part by part (on
    /// [`jobs`](Checker::jobs) threads).
    fn resolve(&self) -> Vec<Vec<u32>> {
        par_ranges(self.parts.len(), self.jobs, |range| {
            self.parts[range]
                .iter()
                .map(|part| {
                    let find = |p: &PointerFact| self.xrefs.find(p.hash, part.text(p.target));
                    part.pointers
                        .iter()
                        .map(|p| find(p).unwrap_or(NONE))
                        .collect::<Vec<u32>>()
                })
                .collect::<Vec<_>>()
        })
        .concat()
    }

    /// The findings of the links and family ages, pointers resolved
    /// ([`Checker::resolve`]), in no particular order.
    fn judge(&self, resolved: &[Vec<u32>]) -> Vec<Finding> {
        let c = &self.config;
        let all = Pointers::new(&self.parts, resolved);
        let name = |id: u32| self.xrefs.name(id);
        let tag_of = |id: u32| {
            self.defined
                .get(id as usize)
                .map(|&(t, _)| self.tags.name(t))
        };
        let path = |part: &Part, p: &PointerFact| {
            let id = part.paths.get(p.path as usize).copied().unwrap_or(NONE);
            self.paths.name(id)
        };
        let at = |rule: &'static Rule, k: u32, message: String| {
            let (part, p, from, _) = all.get(k);
            Finding {
                rule,
                line: p.line,
                record: (from != NONE).then(|| name(from).to_string()),
                path: path(part, p).to_string(),
                message,
                text: Some(part.text(p.target).to_string()),
            }
        };
        // Each pointer's findings and the links it says, parts shared out
        // among the threads (concatenated in order: as one pass would).
        let (missing, wrong) = (c.has(&links::MISSING_TARGET), c.has(&links::WRONG_TYPE));
        let shares = par_ranges(self.parts.len(), self.jobs, |range| {
            let mut l = Links::default();
            for (k, part, p, from, to) in all.iter(range) {
                match tag_of(to) {
                    None if missing => l.found.push(at(
                        &links::MISSING_TARGET,
                        k,
                        format!("{} names no record", part.text(p.target)),
                    )),
                    Some(t) if wrong => {
                        let expected = structure::target_of(p.expected);
                        if let Some(expected) = expected.filter(|e| !e.contains(&t)) {
                            l.found.push(at(
                                &links::WRONG_TYPE,
                                k,
                                format!(
                                    "{} is a {t} record; {} points to {}",
                                    part.text(p.target),
                                    path(part, p),
                                    expected.join(" or ")
                                ),
                            ));
                        }
                    }
                    _ => {}
                }
                if from == NONE || to == NONE {
                    continue;
                }
                match p.role {
                    Role::Spouse => l.spouse_of.push((from, to, k)),
                    Role::Child(exempt) => {
                        l.child_of.push((from, to, k));
                        if exempt {
                            l.adopted.push((from, to));
                        }
                    }
                    Role::Husband | Role::Wife => {
                        l.has_spouse.push((to, from, k));
                        l.parents.push((from, to, p.role == Role::Wife));
                    }
                    Role::HasChild => l.has_child.push((to, from, k)),
                    Role::Other => {}
                }
            }
            l
        });
        let Links {
            mut found,
            spouse_of,
            has_spouse,
            child_of,
            has_child,
            mut parents,
            mut adopted,
        } = Links::concat(shares);
        // The family links as (individual, family, pointer) lists, sorted
        // (a list a thread): each way of saying a link, to find the one
        // said only one way.
        let lists = [spouse_of, has_spouse, child_of, has_child].map(Mutex::new);
        par_ranges(lists.len(), self.jobs, |range| {
            for list in &lists[range] {
                list.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .sort_unstable();
            }
        });
        parents.sort_unstable();
        adopted.sort_unstable();
        let [spouse_of, has_spouse, child_of, has_child] =
            lists.map(|l| l.into_inner().unwrap_or_else(PoisonError::into_inner));
        // Whether the record `id` is tagged `tag` (a tag's id).
        let tag_id = |tag: &str| self.tags.ids.get(tag).copied();
        let is = |id: u32, tag: Option<u32>| {
            tag.is_some() && self.defined.get(id as usize).map(|d| d.0) == tag
        };
        if c.has(&links::ONE_SIDED) {
            // Each list, the one that should say the same, and whether
            // its pointers point to the family (else to the individual).
            let ways = [
                (
                    &spouse_of,
                    &has_spouse,
                    true,
                    "the family {f} has no HUSB or WIFE pointing to {i}",
                ),
                (
                    &has_spouse,
                    &spouse_of,
                    false,
                    "{i} has no FAMS pointing to the family {f}",
                ),
                (
                    &child_of,
                    &has_child,
                    true,
                    "the family {f} has no CHIL pointing to {i}",
                ),
                (
                    &has_child,
                    &child_of,
                    false,
                    "{i} has no FAMC pointing to the family {f}",
                ),
            ];
            let (family, individual) = (tag_id("FAM"), tag_id("INDI"));
            // A way a thread, their findings in the order of the ways.
            let one_sided = par_ranges(ways.len(), self.jobs, |range| {
                let mut found = Vec::new();
                for &(said, back, to_family, message) in &ways[range] {
                    // Both lists sorted: one walk through each.
                    let mut j = 0;
                    for &(i, f, k) in said.iter() {
                        while back.get(j).is_some_and(|&(a, b, _)| (a, b) < (i, f)) {
                            j += 1;
                        }
                        let there = back.get(j).is_some_and(|&(a, b, _)| (a, b) == (i, f));
                        let (to, target) = if to_family {
                            (f, family)
                        } else {
                            (i, individual)
                        };
                        if is(to, target) && !there {
                            let text = message.replace("{i}", name(i)).replace("{f}", name(f));
                            found.push(at(&links::ONE_SIDED, k, text));
                        }
                    }
                }
                found
            });
            found.extend(one_sided.into_iter().flatten());
        }
        if self.groups.plausible {
            self.family_ages(&all, &parents, &adopted, &has_child, &mut found);
        }
        found.retain(|f| c.has(f.rule));
        found
    }

    /// The parents' ages at their children's births and the spouses' at
    /// their marriage. Sorted lists: `parents` (family, parent, is the
    /// WIFE), `adopted` (child, family: exempt) and `has_child` (child,
    /// family, pointer).
    fn family_ages(
        &self,
        all: &Pointers<'_>,
        parents: &[(u32, u32, bool)],
        adopted: &[(u32, u32)],
        has_child: &[(u32, u32, u32)],
        found: &mut Vec<Finding>,
    ) {
        let limits = self.config.limits();
        let name = |id: u32| self.xrefs.name(id);
        let birth = |id: u32| self.births.get(id as usize).copied().flatten();
        // Where each family's parents begin in `parents`, by family.
        let mut starts = vec![0u32; self.defined.len() + 1];
        for &(f, _, _) in parents {
            if let Some(n) = starts.get_mut(f as usize + 1) {
                *n += 1;
            }
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let parents_of = |family: u32| {
            let a = starts.get(family as usize).copied().unwrap_or(0) as usize;
            let b = starts.get(family as usize + 1).copied().unwrap_or(0) as usize;
            parents.get(a..b).unwrap_or_default()
        };
        let exempt = |child: u32, family: u32| adopted.binary_search(&(child, family)).is_ok();
        // The children shared out among the threads, their findings
        // concatenated in order.
        let shares = par_ranges(has_child.len(), self.jobs, |range| {
            let mut found = Vec::new();
            for &(child, family, k) in &has_child[range] {
                let Some(born) = birth(child).filter(|_| !exempt(child, family)) else {
                    continue;
                };
                for &(_, parent, wife) in parents_of(family) {
                    let Some(pb) = birth(parent) else { continue };
                    let (least, most) = age_range(pb, born);
                    let (rule, message) = if most < limits.min_parent_age {
                        (
                            &plausible::PARENT_TOO_YOUNG,
                            format!("was at most {}", most as i64),
                        )
                    } else if !wife && least > limits.max_parent_age {
                        (
                            &plausible::PARENT_TOO_OLD,
                            format!("was at least {}", least as i64),
                        )
                    } else if wife && least > limits.max_mother_age {
                        (
                            &plausible::MOTHER_TOO_OLD,
                            format!("was at least {}", least as i64),
                        )
                    } else {
                        continue;
                    };
                    let (part, p, _, _) = all.get(k);
                    found.push(Finding {
                        rule,
                        line: p.line,
                        record: Some(name(family).to_string()),
                        path: self
                            .paths
                            .name(part.paths.get(p.path as usize).copied().unwrap_or(NONE))
                            .to_string(),
                        message: format!(
                            "{} ({}) {message} at the birth of {}",
                            name(parent),
                            if wife { "WIFE" } else { "HUSB" },
                            name(child)
                        ),
                        text: Some(name(child).to_string()),
                    });
                }
            }
            found
        });
        found.extend(shares.into_iter().flatten());
        for m in &self.marriages {
            for &(_, spouse, _) in parents_of(m.family) {
                let Some(sb) = birth(spouse) else { continue };
                let (_, most) = age_range(sb, m.span);
                if most < limits.min_marriage_age {
                    found.push(Finding {
                        rule: &plausible::MARRIED_TOO_YOUNG,
                        line: m.line,
                        record: Some(name(m.family).to_string()),
                        path: "FAM.MARR.DATE".into(),
                        message: format!(
                            "{} was at most {} at the marriage",
                            name(spouse),
                            most as i64
                        ),
                        text: Some(m.text.to_string()),
                    });
                }
            }
        }
    }
}

/// What the pointers of some parts say: their findings and the family
/// links as [`Checker::finish`] lists them.
#[derive(Default)]
struct Links {
    found: Vec<Finding>,
    spouse_of: Vec<(u32, u32, u32)>,
    has_spouse: Vec<(u32, u32, u32)>,
    child_of: Vec<(u32, u32, u32)>,
    has_child: Vec<(u32, u32, u32)>,
    parents: Vec<(u32, u32, bool)>,
    adopted: Vec<(u32, u32)>,
}

impl Links {
    /// The lists of `shares` one after the other.
    fn concat(shares: Vec<Links>) -> Links {
        let mut all = Links::default();
        for s in shares {
            all.found.extend(s.found);
            all.spouse_of.extend(s.spouse_of);
            all.has_spouse.extend(s.has_spouse);
            all.child_of.extend(s.child_of);
            all.has_child.extend(s.has_child);
            all.parents.extend(s.parents);
            all.adopted.extend(s.adopted);
        }
        all
    }
}

/// Every pointer kept, numbered across the parts, with the records it
/// is from and to.
struct Pointers<'c> {
    parts: &'c [Part],
    resolved: &'c [Vec<u32>],
    /// The number of the first pointer of each part.
    starts: Vec<u32>,
}

impl<'c> Pointers<'c> {
    fn new(parts: &'c [Part], resolved: &'c [Vec<u32>]) -> Pointers<'c> {
        let mut n = 0u32;
        let starts = parts
            .iter()
            .map(|p| {
                let start = n;
                n = n.saturating_add(p.pointers.len() as u32);
                start
            })
            .collect();
        Pointers {
            parts,
            resolved,
            starts,
        }
    }

    /// The `k`th pointer: its part, itself, its record and its target.
    fn get(&self, k: u32) -> (&'c Part, &'c PointerFact, u32, u32) {
        let i = self.starts.partition_point(|&s| s <= k) - 1;
        let j = (k - self.starts[i]) as usize;
        let part = &self.parts[i];
        (part, &part.pointers[j], part.from(j), self.resolved[i][j])
    }

    /// The pointers of the parts `range` in document order, as `(k, ...)`
    /// of [`Pointers::get`].
    fn iter(
        &self,
        range: Range<usize>,
    ) -> impl Iterator<Item = (u32, &'c Part, &'c PointerFact, u32, u32)> + '_ {
        let (parts, resolved) = (&self.parts[range.clone()], &self.resolved[range.clone()]);
        parts
            .iter()
            .zip(resolved)
            .zip(&self.starts[range])
            .flat_map(|((part, resolved), &start)| {
                let mut froms = part.froms.iter().peekable();
                part.pointers
                    .iter()
                    .zip(resolved)
                    .enumerate()
                    .map(move |(j, (p, &to))| {
                        while froms.next_if(|&&(_, end)| end as usize <= j).is_some() {}
                        let from = froms.peek().map_or(NONE, |&&(f, _)| f);
                        (start + j as u32, part, p, from, to)
                    })
            })
    }
}
