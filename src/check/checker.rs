//! The [`Checker`]: records in, findings out, facts kept for the end.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;

use super::links::{self, Role};
use super::plausible::{self, age_range};
use super::{read, structure, values, CheckConfig, Finding, Rule, Version};
use crate::tree::{NodeRef, Records, Step};
use crate::{Diagnostic, Error, Severity};

/// No record: the pointer's record has no xref_id.
const NONE: u32 = u32::MAX;

/// Strings numbered as they are first seen.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |n| n)
    }
}

/// A pointer as a record's inspection found it.
#[derive(Debug)]
struct PointerFact {
    target: Box<str>,
    line: u64,
    path: Box<str>,
    expected: Option<&'static [&'static str]>,
    role: Role,
}

/// A pointer kept for the end.
struct Pointer {
    target: u32,
    /// The xref_id of the record it is in, or [`NONE`].
    from: u32,
    line: u64,
    path: u32,
    expected: Option<&'static [&'static str]>,
    role: Role,
}

/// A family's marriage date, kept for the end.
struct Marriage {
    family: u32,
    span: (i64, i64),
    line: u64,
    text: Box<str>,
}

/// What checking one record found: its own findings and the facts the
/// rules about more than one record need. Made by [`Checker::inspect`]
/// (which only reads the checker, so records can be inspected on several
/// threads) and given to [`Checker::absorb`] in document order.
#[derive(Debug)]
pub struct Inspection {
    findings: Vec<Finding>,
    xref: Option<Box<str>>,
    tag: Box<str>,
    line: u64,
    pointers: Vec<PointerFact>,
    birth: Option<(i64, i64)>,
    marriage: Option<((i64, i64), u64, Box<str>)>,
    /// The version a first record that is the HEAD says.
    head_version: Option<Version>,
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
    fn count(&mut self, f: &Finding) {
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
/// [`Records`], the reader's diagnostics included, in line order.
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
    config: CheckConfig,
    version: Version,
    started: bool,
    xrefs: Interner,
    paths: Interner,
    tags: Interner,
    /// Per xref_id: the tag and line of the record that has it.
    defined: Vec<Option<(u32, u64)>>,
    pointers: Vec<Pointer>,
    births: HashMap<u32, (i64, i64)>,
    marriages: Vec<Marriage>,
    records: u64,
}

impl Checker {
    /// A checker running `config`'s rules.
    pub fn new(config: CheckConfig) -> Checker {
        Checker {
            config,
            version: Version::Gedcom551,
            started: false,
            xrefs: Interner::default(),
            paths: Interner::default(),
            tags: Interner::default(),
            defined: Vec::new(),
            pointers: Vec::new(),
            births: HashMap::new(),
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
        let head_version = (!self.started && record.tag() == "HEAD").then(|| version_of(record));
        let version = head_version.unwrap_or(self.version);
        let config = &self.config;
        let mut findings = Vec::new();
        if config.has_group("structure") {
            structure::check(record, version, &mut findings);
        }
        let (want_values, want_links, want_plausible) = (
            config.has_group("value"),
            config.has_group("link"),
            config.has_group("plausible"),
        );
        let limits = config.limits();
        let record_tag = record.tag();
        let mut pointers = Vec::new();
        let mut path: Vec<&str> = Vec::new();
        // The depth of an extension's structure being skipped.
        let mut skip: Option<usize> = None;
        for step in record.walk() {
            let node = match step {
                Step::Enter(n) => n,
                Step::Leave(_) => {
                    path.pop();
                    if skip.is_some_and(|d| path.len() < d) {
                        skip = None;
                    }
                    continue;
                }
            };
            path.push(node.tag());
            if skip.is_some() {
                continue;
            }
            if node.tag().starts_with('_') {
                skip = Some(path.len());
                continue;
            }
            if want_values {
                values::check(node, &mut findings);
            }
            if want_plausible && node.tag() == "AGE" {
                plausible::age(node, limits, &mut findings);
            }
            if let Some(p) = node.pointer() {
                if want_links || want_plausible {
                    let role = if path.len() == 2 {
                        let pedigree = node.child("PEDI").and_then(|p| p.text());
                        Role::of(record_tag, node.tag(), pedigree.as_deref())
                    } else {
                        Role::Other
                    };
                    pointers.push(PointerFact {
                        target: p.to_string().into(),
                        line: node.line(),
                        path: path.join(".").into(),
                        expected: structure::pointer_target(node, version),
                        role,
                    });
                }
            }
        }
        let mut birth = None;
        let mut marriage = None;
        if want_plausible && record_tag == "INDI" {
            birth = plausible::person(record, limits, &mut findings);
        }
        if want_plausible && record_tag == "FAM" {
            marriage = record
                .children_with_tag("MARR")
                .filter_map(|m| m.child("DATE"))
                .find_map(|d| {
                    let span = plausible::span(Some(d))?;
                    Some((span, d.line(), d.text()?.into()))
                });
        }
        findings.retain(|f| config.has(f.rule));
        findings.sort_by_key(|f| f.line);
        Inspection {
            findings,
            xref: record.xref().map(|x| x.to_string().into()),
            tag: record_tag.into(),
            line: record.line(),
            pointers,
            birth,
            marriage,
            head_version,
        }
    }

    /// Keeps the facts of a record's inspection and pushes its findings to
    /// `out`, records in document order.
    pub fn absorb(&mut self, inspection: Inspection, out: &mut Vec<Finding>) {
        let Inspection {
            findings,
            xref,
            tag,
            line,
            pointers,
            birth,
            marriage,
            head_version,
        } = inspection;
        if !self.started {
            self.started = true;
            self.version = head_version.unwrap_or(self.version);
        }
        self.records += 1;
        let mut from = NONE;
        if let Some(x) = &xref {
            from = self.xrefs.id(x);
            let i = from as usize;
            if self.defined.len() <= i {
                self.defined.resize(i + 1, None);
            }
            match self.defined[i] {
                Some((_, first)) => {
                    if self.config.has(&links::DUPLICATE_XREF) {
                        out.push(Finding {
                            rule: &links::DUPLICATE_XREF,
                            line,
                            record: Some(x.to_string()),
                            path: tag.to_string(),
                            message: format!(
                                "{x} is also the xref_id of the record at line {first}"
                            ),
                            text: Some(x.to_string()),
                        });
                    }
                }
                None => self.defined[i] = Some((self.tags.id(&tag), line)),
            }
        }
        out.extend(findings);
        for p in pointers {
            let target = self.xrefs.id(&p.target);
            let path = self.paths.id(&p.path);
            self.pointers.push(Pointer {
                target,
                from,
                line: p.line,
                path,
                expected: p.expected,
                role: p.role,
            });
        }
        if from != NONE {
            if let Some(b) = birth {
                self.births.insert(from, b);
            }
            if let Some((span, line, text)) = marriage {
                self.marriages.push(Marriage {
                    family: from,
                    span,
                    line,
                    text,
                });
            }
        }
    }

    /// The finding of a reader's diagnostic, if its rule runs.
    pub fn diagnostic(&self, d: &Diagnostic) -> Option<Finding> {
        let f = read::finding(d);
        self.config.has(f.rule).then_some(f)
    }

    /// The findings that need every record (links, family ages), pushed
    /// to `out` in line order.
    pub fn finish(self, out: &mut Vec<Finding>) {
        let mut found = Vec::new();
        let c = &self.config;
        let name = |id: u32| self.xrefs.name(id);
        let tag_of = |id: u32| {
            self.defined
                .get(id as usize)
                .copied()
                .flatten()
                .map(|(t, _)| self.tags.name(t))
        };
        let at = |rule: &'static Rule, p: &Pointer, message: String| Finding {
            rule,
            line: p.line,
            record: (p.from != NONE).then(|| name(p.from).to_string()),
            path: self.paths.name(p.path).to_string(),
            message,
            text: Some(name(p.target).to_string()),
        };
        for p in &self.pointers {
            match tag_of(p.target) {
                None if c.has(&links::MISSING_TARGET) => found.push(at(
                    &links::MISSING_TARGET,
                    p,
                    format!("{} names no record", name(p.target)),
                )),
                Some(t) if c.has(&links::WRONG_TYPE) => {
                    if let Some(expected) = p.expected.filter(|e| !e.contains(&t)) {
                        found.push(at(
                            &links::WRONG_TYPE,
                            p,
                            format!(
                                "{} is a {t} record; {} points to {}",
                                name(p.target),
                                self.paths.name(p.path),
                                expected.join(" or ")
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
        // The family links, both ways.
        let mut spouse_of = HashSet::new();
        let mut has_spouse = HashSet::new();
        let mut child_of = HashMap::new();
        let mut has_child = HashSet::new();
        let mut parents: HashMap<u32, Vec<(u32, bool)>> = HashMap::new();
        for p in self.pointers.iter().filter(|p| p.from != NONE) {
            let pair = (p.from, p.target);
            match p.role {
                Role::Spouse => {
                    spouse_of.insert(pair);
                }
                Role::Child(exempt) => {
                    child_of.insert(pair, exempt);
                }
                Role::Husband | Role::Wife => {
                    has_spouse.insert((p.target, p.from));
                    let wife = p.role == Role::Wife;
                    parents.entry(p.from).or_default().push((p.target, wife));
                }
                Role::HasChild => {
                    has_child.insert((p.target, p.from));
                }
                Role::Other => {}
            }
        }
        let is = |id: u32, tag: &str| tag_of(id) == Some(tag);
        if c.has(&links::ONE_SIDED) {
            for p in self.pointers.iter().filter(|p| p.from != NONE) {
                let (from, to) = (name(p.from), name(p.target));
                let message = match p.role {
                    Role::Spouse
                        if is(p.target, "FAM") && !has_spouse.contains(&(p.from, p.target)) =>
                    {
                        format!("the family {to} has no HUSB or WIFE pointing to {from}")
                    }
                    Role::Husband | Role::Wife
                        if is(p.target, "INDI") && !spouse_of.contains(&(p.target, p.from)) =>
                    {
                        format!("{to} has no FAMS pointing to the family {from}")
                    }
                    Role::Child(_)
                        if is(p.target, "FAM") && !has_child.contains(&(p.from, p.target)) =>
                    {
                        format!("the family {to} has no CHIL pointing to {from}")
                    }
                    Role::HasChild
                        if is(p.target, "INDI") && !child_of.contains_key(&(p.target, p.from)) =>
                    {
                        format!("{to} has no FAMC pointing to the family {from}")
                    }
                    _ => continue,
                };
                found.push(at(&links::ONE_SIDED, p, message));
            }
        }
        // Parents' ages at their children's births.
        let limits = c.limits();
        let none = Vec::new();
        for p in self.pointers.iter().filter(|p| p.role == Role::HasChild) {
            let (family, child) = (p.from, p.target);
            if child_of.get(&(child, family)) == Some(&true) {
                continue;
            }
            let Some(&born) = self.births.get(&child) else {
                continue;
            };
            for &(parent, wife) in parents.get(&family).unwrap_or(&none) {
                let Some(&pb) = self.births.get(&parent) else {
                    continue;
                };
                let (least, most) = age_range(pb, born);
                let who = format!("{} ({})", name(parent), if wife { "WIFE" } else { "HUSB" });
                let child = name(child);
                if most < limits.min_parent_age {
                    found.push(at(
                        &plausible::PARENT_TOO_YOUNG,
                        p,
                        format!("{who} was at most {} at the birth of {child}", most as i64),
                    ));
                } else if !wife && least > limits.max_parent_age {
                    found.push(at(
                        &plausible::PARENT_TOO_OLD,
                        p,
                        format!(
                            "{who} was at least {} at the birth of {child}",
                            least as i64
                        ),
                    ));
                } else if wife && least > limits.max_mother_age {
                    found.push(at(
                        &plausible::MOTHER_TOO_OLD,
                        p,
                        format!(
                            "{who} was at least {} at the birth of {child}",
                            least as i64
                        ),
                    ));
                }
            }
        }
        for m in &self.marriages {
            for &(spouse, _) in parents.get(&m.family).unwrap_or(&none) {
                let Some(&sb) = self.births.get(&spouse) else {
                    continue;
                };
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
        found.retain(|f| c.has(f.rule));
        found.sort_by_key(|f| f.line);
        out.extend(found);
    }

    /// Checks every record of `records` and gives every finding to `sink`
    /// in line order: each record's findings and the reader's diagnostics
    /// as the records come (one record behind, so that the diagnostics of
    /// a record's lines come with it), then those of [`Checker::finish`].
    /// The same findings in the same order at every number of
    /// [`jobs`](Records::jobs) and [`batch_bytes`](Records::batch_bytes).
    ///
    /// # Errors
    /// [`RunError::Read`]: reading failed (the findings of what was read
    /// before were given); [`RunError::Sink`]: `sink` failed.
    pub fn run<R, E, S>(
        mut self,
        records: &mut Records<R>,
        mut sink: S,
    ) -> Result<Summary, RunError<E>>
    where
        R: Read,
        S: FnMut(&Finding) -> Result<(), E>,
    {
        let mut summary = Summary::default();
        let mut held = Vec::new();
        let mut pending = Vec::new();
        let mut give = |list: &mut Vec<Finding>, summary: &mut Summary| {
            list.sort_by_key(|f| f.line);
            for f in list.drain(..) {
                summary.count(&f);
                sink(&f).map_err(RunError::Sink)?;
            }
            Ok(())
        };
        let mut failed = None;
        while let Some(next) = records.next() {
            pending.extend(
                records
                    .drain_diagnostics()
                    .filter_map(|d| self.diagnostic(&d)),
            );
            let record = match next {
                Ok(r) => r,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let line = record.root().line();
            let (mut now, later): (Vec<_>, Vec<_>) =
                pending.drain(..).partition(|f: &Finding| f.line < line);
            pending = later;
            now.append(&mut held);
            give(&mut now, &mut summary)?;
            self.record(record.root(), &mut held);
        }
        pending.extend(
            records
                .drain_diagnostics()
                .filter_map(|d| self.diagnostic(&d)),
        );
        summary.records = self.records;
        held.append(&mut pending);
        if let Some(e) = failed {
            give(&mut held, &mut summary)?;
            return Err(RunError::Read(e));
        }
        self.finish(&mut held);
        give(&mut held, &mut summary)?;
        Ok(summary)
    }
}

/// The version a HEAD says: 7.0 when `GEDC.VERS` begins with `7`.
pub(crate) fn version_of(head: NodeRef<'_>) -> Version {
    match head.first("GEDC.VERS").and_then(|v| v.text()) {
        Some(v) if v.trim_start().starts_with('7') => Version::Gedcom7,
        _ => Version::Gedcom551,
    }
}
