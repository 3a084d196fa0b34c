//! The [`Checker`]: records in, findings out, facts kept for the end.
//!
//! Records are inspected on any thread ([`inspect_into`]: findings of the
//! record alone, and facts as plain data in one string buffer per batch);
//! the calling thread absorbs them in document order (xref_ids defined,
//! pointers kept with their targets as text); [`Checker::finish`] resolves
//! the pointers on `jobs` threads and judges links and family ages with
//! sorted lists, not hash sets.

use std::fmt;
use std::io::Read;

use super::config::Groups;
use super::links::{self, Role};
use super::plausible::{self, age_range};
use super::{join_path, read, structure, values, CheckConfig, Finding, Rule, Version};
use crate::ordered::{par_ranges, Pool};
use crate::par::{first_record_reader, Chunks, Numbering};
use crate::tree::hash::FastMap as HashMap;
use crate::tree::{NodeRef, RecordTree, Records, Schema, Step, Tree};
use crate::{Diagnostic, Error, Severity};

/// No record: a pointer's record has no xref_id, or its target is none.
const NONE: u32 = u32::MAX;

/// A range of a string buffer.
type Span = (u32, u32);

/// Strings numbered as they are first seen.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, u32>,
    /// Each id's string in `text`.
    names: Vec<Span>,
    text: String,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
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

/// A pointer as an inspection found it.
#[derive(Debug)]
struct PointerFact {
    target: Span,
    line: u64,
    path: Span,
    expected: Option<&'static [&'static str]>,
    role: Role,
}

/// What an inspection found of one record.
#[derive(Debug)]
struct RecordFacts {
    xref: Option<Span>,
    tag: Span,
    line: u64,
    /// The end of its pointers and findings in the inspection's lists.
    pointers_end: usize,
    findings_end: usize,
    birth: Option<(i64, i64)>,
    marriage: Option<((i64, i64), u64, Span)>,
    /// The version a first record that is the HEAD says.
    head_version: Option<Version>,
}

/// What inspecting records found: each record's own findings and the
/// facts that the rules about more than one record need, as plain data
/// (one string buffer for all the records inspected together). Made by
/// [`Checker::inspect`] (which only reads the checker, so records can be
/// inspected on several threads) and given to [`Checker::absorb`] in
/// document order.
#[derive(Debug, Default)]
pub struct Inspection {
    strings: String,
    records: Vec<RecordFacts>,
    pointers: Vec<PointerFact>,
    findings: Vec<Finding>,
}

impl Inspection {
    /// The records inspected.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no record was inspected.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    fn text(&self, (a, b): Span) -> &str {
        self.strings.get(a as usize..b as usize).unwrap_or("")
    }

    fn put(&mut self, s: &str) -> Span {
        let start = self.strings.len() as u32;
        self.strings.push_str(s);
        (start, self.strings.len() as u32)
    }
}

/// A pointer kept for the end (32 bytes: there are millions).
struct Pointer {
    /// Its target's text in the checker's `targets`.
    target: Span,
    /// The id of the record it is in, or [`NONE`].
    from: u32,
    path: u32,
    line: u64,
    /// The record tags it may point to: an index of the checker's
    /// `expected` list, 0 for any.
    expected: u8,
    role: Role,
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
    groups: Groups,
    jobs: usize,
    version: Version,
    started: bool,
    /// The records' xref_ids, numbered as they are defined.
    xrefs: Interner,
    paths: Interner,
    tags: Interner,
    /// Per xref_id: the tag and line of the first record that has it.
    defined: Vec<(u32, u64)>,
    /// Per xref_id: the span of the birth of the individual that has it.
    births: Vec<Option<(i64, i64)>>,
    /// The pointers' targets, one after the other.
    targets: String,
    /// The lists of record tags pointers may point to (the first: any).
    expected: Vec<Option<&'static [&'static str]>>,
    pointers: Vec<Pointer>,
    marriages: Vec<Marriage>,
    records: u64,
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
            xrefs: Interner::default(),
            paths: Interner::default(),
            tags: Interner::default(),
            defined: Vec::new(),
            births: Vec::new(),
            targets: String::new(),
            expected: vec![None],
            pointers: Vec::new(),
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
        for i in 0..parts.records.len() {
            self.absorb_record(&parts, i, &mut findings, out);
        }
    }

    /// Keeps the facts of the `i`th record of `found`, its findings taken
    /// from `findings` to `out`.
    fn absorb_record(
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
        if let Some(x) = r.xref.map(|x| found.text(x)) {
            match self.xrefs.ids.get(x) {
                Some(&id) => {
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
                    from = self.xrefs.id(x);
                    let tag = self.tags.id(tag);
                    self.defined.push((tag, r.line));
                    self.births.push(None);
                    new = true;
                }
            }
        }
        let start = if i == 0 {
            0
        } else {
            found.records[i - 1].findings_end
        };
        out.extend(findings.take(r.findings_end - start));
        let start = if i == 0 {
            0
        } else {
            found.records[i - 1].pointers_end
        };
        for p in &found.pointers[start..r.pointers_end] {
            let begin = self.targets.len() as u32;
            self.targets.push_str(found.text(p.target));
            let path = self.paths.id(found.text(p.path));
            let expected = match self.expected.iter().position(|&e| same(e, p.expected)) {
                Some(i) => i,
                None => {
                    self.expected.push(p.expected);
                    self.expected.len() - 1
                }
            };
            self.pointers.push(Pointer {
                target: (begin, self.targets.len() as u32),
                from,
                path,
                line: p.line,
                expected: u8::try_from(expected).unwrap_or(0),
                role: p.role,
            });
        }
        if new {
            self.births[from as usize] = r.birth;
        }
        if let (Some((span, line, text)), true) = (r.marriage, from != NONE) {
            self.marriages.push(Marriage {
                family: from,
                span,
                line,
                text: found.text(text).into(),
            });
        }
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
        let c = &self.config;
        let target_text = |p: &Pointer| {
            self.targets
                .get(p.target.0 as usize..p.target.1 as usize)
                .unwrap_or("")
        };
        // Each pointer's target record, or NONE.
        let resolved: Vec<u32> = par_ranges(self.pointers.len(), self.jobs, |range| {
            self.pointers[range]
                .iter()
                .map(|p| self.xrefs.ids.get(target_text(p)).copied().unwrap_or(NONE))
                .collect::<Vec<u32>>()
        })
        .concat();
        let name = |id: u32| self.xrefs.name(id);
        let tag_of = |id: u32| {
            self.defined
                .get(id as usize)
                .map(|&(t, _)| self.tags.name(t))
        };
        let at = |rule: &'static Rule, p: &Pointer, message: String| Finding {
            rule,
            line: p.line,
            record: (p.from != NONE).then(|| name(p.from).to_string()),
            path: self.paths.name(p.path).to_string(),
            message,
            text: Some(target_text(p).to_string()),
        };
        let mut found = Vec::new();
        for (p, &to) in self.pointers.iter().zip(&resolved) {
            match tag_of(to) {
                None if c.has(&links::MISSING_TARGET) => found.push(at(
                    &links::MISSING_TARGET,
                    p,
                    format!("{} names no record", target_text(p)),
                )),
                Some(t) if c.has(&links::WRONG_TYPE) => {
                    let expected = self.expected.get(p.expected as usize).copied().flatten();
                    if let Some(expected) = expected.filter(|e| !e.contains(&t)) {
                        found.push(at(
                            &links::WRONG_TYPE,
                            p,
                            format!(
                                "{} is a {t} record; {} points to {}",
                                target_text(p),
                                self.paths.name(p.path),
                                expected.join(" or ")
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
        // The family links as (individual, family, pointer) lists, sorted:
        // each way of saying a link, to find the one said only one way.
        let mut spouse_of = Vec::new();
        let mut has_spouse = Vec::new();
        let mut child_of = Vec::new();
        let mut has_child = Vec::new();
        for (k, (p, &to)) in self.pointers.iter().zip(&resolved).enumerate() {
            if p.from == NONE || to == NONE {
                continue;
            }
            match p.role {
                Role::Spouse => spouse_of.push((p.from, to, k as u32)),
                Role::Child(_) => child_of.push((p.from, to, k as u32)),
                Role::Husband | Role::Wife => has_spouse.push((to, p.from, k as u32)),
                Role::HasChild => has_child.push((to, p.from, k as u32)),
                Role::Other => {}
            }
        }
        for list in [
            &mut spouse_of,
            &mut has_spouse,
            &mut child_of,
            &mut has_child,
        ] {
            list.sort_unstable();
        }
        let has = |list: &[(u32, u32, u32)], pair: (u32, u32)| {
            let i = list.partition_point(|&(a, b, _)| (a, b) < pair);
            list.get(i).is_some_and(|&(a, b, _)| (a, b) == pair)
        };
        let is = |id: u32, tag: &str| tag_of(id) == Some(tag);
        if c.has(&links::ONE_SIDED) {
            let ways = [
                (
                    &spouse_of,
                    &has_spouse,
                    "FAM",
                    "the family {f} has no HUSB or WIFE pointing to {i}",
                ),
                (
                    &has_spouse,
                    &spouse_of,
                    "INDI",
                    "{i} has no FAMS pointing to the family {f}",
                ),
                (
                    &child_of,
                    &has_child,
                    "FAM",
                    "the family {f} has no CHIL pointing to {i}",
                ),
                (
                    &has_child,
                    &child_of,
                    "INDI",
                    "{i} has no FAMC pointing to the family {f}",
                ),
            ];
            for (said, back, target, message) in ways {
                for &(i, f, k) in said.iter() {
                    let to = resolved[k as usize];
                    if is(to, target) && !has(back, (i, f)) {
                        let text = message.replace("{i}", name(i)).replace("{f}", name(f));
                        found.push(at(&links::ONE_SIDED, &self.pointers[k as usize], text));
                    }
                }
            }
        }
        if self.groups.plausible {
            self.family_ages(&resolved, &has_spouse, &child_of, &mut found);
        }
        found.retain(|f| c.has(f.rule));
        found.sort_by_key(|f| f.line);
        out.extend(found);
    }

    /// The parents' ages at their children's births and the spouses' at
    /// their marriage. `has_spouse` and `child_of` are sorted lists of
    /// (individual, family, pointer).
    fn family_ages(
        &self,
        resolved: &[u32],
        has_spouse: &[(u32, u32, u32)],
        child_of: &[(u32, u32, u32)],
        found: &mut Vec<Finding>,
    ) {
        let limits = self.config.limits();
        let name = |id: u32| self.xrefs.name(id);
        let birth = |id: u32| self.births.get(id as usize).copied().flatten();
        // Parents by family: (family, parent, is the WIFE).
        let mut parents: Vec<(u32, u32, bool)> = has_spouse
            .iter()
            .map(|&(i, f, k)| (f, i, self.pointers[k as usize].role == Role::Wife))
            .collect();
        parents.sort_unstable();
        let parents_of = |family: u32| {
            let a = parents.partition_point(|p| p.0 < family);
            let b = parents.partition_point(|p| p.0 <= family);
            &parents[a..b]
        };
        let exempt = |child: u32, family: u32| {
            let i = child_of.partition_point(|&(a, b, _)| (a, b) < (child, family));
            child_of.get(i).is_some_and(|&(a, b, k)| {
                (a, b) == (child, family) && self.pointers[k as usize].role == Role::Child(true)
            })
        };
        for (p, &child) in self.pointers.iter().zip(resolved) {
            if p.role != Role::HasChild || child == NONE || p.from == NONE {
                continue;
            }
            let family = p.from;
            let Some(born) = birth(child).filter(|_| !exempt(child, family)) else {
                continue;
            };
            for &(_, parent, wife) in parents_of(family) {
                let Some(pb) = birth(parent) else { continue };
                let (least, most) = age_range(pb, born);
                let who = format!("{} ({})", name(parent), if wife { "WIFE" } else { "HUSB" });
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
                found.push(Finding {
                    rule,
                    line: p.line,
                    record: Some(name(family).to_string()),
                    path: self.paths.name(p.path).to_string(),
                    message: format!("{who} {message} at the birth of {}", name(child)),
                    text: Some(name(child).to_string()),
                });
            }
        }
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

    /// Checks the input of `chunks` as [`Checker::run`] checks a stream of
    /// records, with the same findings in the same order: each chunk is
    /// read into a tree of its records and inspected on one of the chunks'
    /// [`jobs`](Chunks::jobs) threads (this checker's own
    /// [`jobs`](Checker::jobs) do not count here), and the inspections are
    /// absorbed in document order on the calling thread. The fast way to
    /// check a file that is in memory (or mapped).
    ///
    /// ```
    /// use gedcom_elf::check::{CheckConfig, Checker};
    /// use gedcom_elf::par::Chunks;
    /// use gedcom_elf::{Input, ReaderConfig};
    ///
    /// let input = Input::new(b"0 HEAD\n1 CHAR UTF-8\n0 @F1@ FAM\n1 HUSB @F1@\n0 TRLR\n")?;
    /// let chunks = Chunks::new(&input, ReaderConfig::new())?.jobs(2);
    /// let mut found = Vec::new();
    /// Checker::new(CheckConfig::new()).run_chunks(chunks, |f| {
    ///     found.push((f.line, f.rule.id));
    ///     Ok::<(), std::convert::Infallible>(())
    /// }).unwrap();
    /// assert_eq!(found, [(4, "link.wrong-type")]);
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Checker::run`].
    pub fn run_chunks<E, S>(
        mut self,
        chunks: Chunks<'_>,
        mut sink: S,
    ) -> Result<Summary, RunError<E>>
    where
        S: FnMut(&Finding) -> Result<(), E>,
    {
        let head = first_record_reader(chunks.first.clone());
        let schema = Schema::from_reader(head.clone()).map_err(RunError::Read)?;
        // The version, from the HEAD, before the chunks are read.
        let head_tree = Tree::build_with_schema(head, schema.clone()).map_err(RunError::Read)?;
        if let Some(h) = head_tree.records().next() {
            self.version = structure::version_of(h);
        }
        self.started = true;
        let sizes: Vec<usize> = (0..chunks.len()).map(|i| chunks.range(i).len()).collect();
        let text = crate::tree::utf8_prefix(chunks.first.input());
        let (config, groups, version) = (self.config.clone(), self.groups, self.version);
        self.jobs = chunks.jobs;
        let mut summary = Summary::default();
        let mut out = Out {
            held: Vec::new(),
            pending: Vec::new(),
        };
        let mut failed_sink = None;
        let result = chunks.run(
            Numbering::Global,
            |i, reader, ds| {
                let tree = Tree::of_chunk(reader, schema.clone(), text, (i == 0, sizes[i]), ds)?;
                let mut found = Inspection::default();
                for r in tree.records() {
                    let first = i == 0 && r.id().index() == 0;
                    inspect_into(&config, groups, version, first, r, &mut found);
                }
                Ok(found)
            },
            |found, ds, _| {
                out.pending
                    .extend(ds.iter().filter_map(|d| self.diagnostic(d)));
                if let Err(e) = out.absorb(&mut self, found, &mut summary, &mut sink) {
                    failed_sink = Some(e);
                    return Err(Error::from(std::io::Error::other("the sink failed")));
                }
                Ok(())
            },
        );
        if let Some(e) = failed_sink {
            return Err(e);
        }
        let failed = match result {
            Ok(end) => {
                out.pending
                    .extend(end.diagnostics.iter().filter_map(|d| self.diagnostic(d)));
                None
            }
            Err(e) => Some(e),
        };
        self.end(out, failed, summary, &mut sink)
    }

    /// Gives what is held and pending and, unless reading failed, the
    /// findings of [`Checker::finish`].
    fn end<E, S>(
        self,
        mut out: Out,
        failed: Option<Error>,
        mut summary: Summary,
        sink: &mut S,
    ) -> Result<Summary, RunError<E>>
    where
        S: FnMut(&Finding) -> Result<(), E>,
    {
        summary.records = self.records;
        let mut rest = std::mem::take(&mut out.held);
        rest.append(&mut out.pending);
        if failed.is_none() {
            self.finish(&mut rest);
        }
        give(&mut rest, &mut summary, sink)?;
        match failed {
            Some(e) => Err(RunError::Read(e)),
            None => Ok(summary),
        }
    }

    /// Inspects the records after the HEAD on `jobs` threads in
    /// [`Checker::run`] (default 1: on the calling thread), in groups of
    /// about 64 KiB of records; what they find is absorbed in document
    /// order, so the findings are the same at every number of jobs.
    pub fn jobs(mut self, jobs: usize) -> Checker {
        self.jobs = jobs.max(1);
        self
    }

    /// Checks every record of `records` and gives every finding to `sink`
    /// in line order: each record's findings and the reader's diagnostics
    /// as the records come (one record behind, so that the diagnostics of
    /// a record's lines come with it), then those of [`Checker::finish`].
    /// The same findings in the same order at every number of
    /// [`jobs`](Checker::jobs), of the records' [`jobs`](Records::jobs) and
    /// of their [`batch_bytes`](Records::batch_bytes).
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
        let mut out = Out {
            held: Vec::new(),
            pending: Vec::new(),
        };
        let mut failed = None;
        let next = |records: &mut Records<R>, out: &mut Out, checker: &Checker| {
            let next = records.next();
            let ds = records.drain_diagnostics();
            out.pending
                .extend(ds.filter_map(|d| checker.diagnostic(&d)));
            next
        };
        // The HEAD (or whatever comes first) here: it decides the version.
        match next(records, &mut out, &self) {
            Some(Ok(head)) => {
                let inspection = self.inspect(head.root());
                out.absorb(&mut self, inspection, &mut summary, &mut sink)?;
            }
            Some(Err(e)) => failed = Some(e),
            None => {}
        }
        let (config, groups, version) = (self.config.clone(), self.groups, self.version);
        let work = move |group: Vec<RecordTree>| -> Inspection {
            let mut found = Inspection::default();
            for r in &group {
                inspect_into(&config, groups, version, false, r.root(), &mut found);
            }
            found
        };
        let jobs = self.jobs;
        std::thread::scope(|scope| {
            let mut pool = (jobs > 1).then(|| Pool::scoped(scope, &work, jobs, 2));
            let mut group = Vec::new();
            let mut bytes = 0;
            while failed.is_none() {
                let record = match next(records, &mut out, &self) {
                    Some(Ok(r)) => Some(r),
                    Some(Err(e)) => {
                        failed = Some(e);
                        None
                    }
                    None => None,
                };
                let end = record.is_none();
                if let Some(r) = record {
                    bytes += r.bytes().len();
                    group.push(r);
                }
                if group.is_empty() || (!end && bytes < GROUP && pool.is_some()) {
                    if end {
                        break;
                    }
                    continue;
                }
                bytes = 0;
                let group = std::mem::take(&mut group);
                match pool.as_mut() {
                    Some(pool) => {
                        pool.submit(group);
                        while !pool.has_room() || (end && pool.in_flight() > 0) {
                            if let Some(i) = pool.next() {
                                out.absorb(&mut self, i, &mut summary, &mut sink)?;
                            }
                        }
                    }
                    None => out.absorb(&mut self, work(group), &mut summary, &mut sink)?,
                }
                if end {
                    break;
                }
            }
            if let Some(pool) = pool.as_mut() {
                while let Some(i) = pool.next() {
                    out.absorb(&mut self, i, &mut summary, &mut sink)?;
                }
            }
            Ok::<(), RunError<E>>(())
        })?;
        out.pending.extend(
            records
                .drain_diagnostics()
                .filter_map(|d| self.diagnostic(&d)),
        );
        summary.records = self.records;
        let mut rest = std::mem::take(&mut out.held);
        rest.append(&mut out.pending);
        if failed.is_none() {
            self.finish(&mut rest);
        }
        give(&mut rest, &mut summary, &mut sink)?;
        match failed {
            Some(e) => Err(RunError::Read(e)),
            None => Ok(summary),
        }
    }
}

/// Inspects one record into `found`: see [`Checker::inspect`]. `first`:
/// the first record of the document (a HEAD there decides the version).
fn inspect_into(
    config: &CheckConfig,
    g: Groups,
    version: Version,
    first: bool,
    record: NodeRef<'_>,
    found: &mut Inspection,
) {
    let record_tag = record.tag();
    let head_version = (first && record_tag == "HEAD").then(|| structure::version_of(record));
    let version = head_version.unwrap_or(version);
    let findings_start = found.findings.len();
    let findings = &mut found.findings;
    if g.structure {
        structure::check(record, version, findings);
    }
    let limits = config.limits();
    let mut pointers = Vec::new();
    // The tags from the record down.
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
        let tag = node.tag();
        path.push(tag);
        if skip.is_some() {
            continue;
        }
        if tag.starts_with('_') {
            skip = Some(path.len());
            continue;
        }
        if g.value {
            values::check(node, tag, version, findings);
        }
        if g.plausible && tag == "AGE" {
            plausible::age(node, limits, findings);
        }
        if !(g.link || g.plausible) {
            continue;
        }
        if let Some(p) = node.pointer() {
            // GEDCOM 7's null pointer points nowhere on purpose.
            if version == Version::Gedcom7 && p.as_bytes() == b"@VOID@" {
                continue;
            }
            let role = if path.len() == 2 {
                let pedigree = node.child("PEDI").and_then(|p| p.text());
                Role::of(record_tag, tag, pedigree.as_deref())
            } else {
                Role::Other
            };
            pointers.push((
                p,
                node.line(),
                join_path(&path),
                structure::pointer_target(node, version),
                role,
            ));
        }
    }
    let mut birth = None;
    let mut marriage = None;
    if g.plausible && record_tag == "INDI" {
        birth = plausible::person(record, limits, findings);
    }
    if g.plausible && record_tag == "FAM" {
        marriage = record
            .children_with_tag("MARR")
            .filter_map(|m| m.child("DATE"))
            .find_map(|d| Some((plausible::span(Some(d))?, d.line(), d.text()?)));
    }
    let mut mine = findings.split_off(findings_start);
    mine.retain(|f| config.has(f.rule));
    // Every finding here is in this record (`Finding::at` leaves it out
    // when the node is too deep to walk up to it).
    let own = record.xref().map(|x| x.to_string());
    for f in &mut mine {
        if f.record.is_none() && f.path.starts_with('…') {
            f.record.clone_from(&own);
        }
    }
    mine.sort_by_key(|f| f.line);
    found.findings.append(&mut mine);
    let xref = record.xref().map(|x| found.put(&x.to_str_lossy()));
    let tag = found.put(record_tag);
    for (target, line, path, expected, role) in pointers {
        let target = found.put(&target.to_str_lossy());
        let path = found.put(&path);
        found.pointers.push(PointerFact {
            target,
            line,
            path,
            expected,
            role,
        });
    }
    let marriage = marriage.map(|(span, line, text)| (span, line, found.put(&text)));
    found.records.push(RecordFacts {
        xref,
        tag,
        line: record.line(),
        pointers_end: found.pointers.len(),
        findings_end: found.findings.len(),
        birth,
        marriage,
        head_version,
    });
}

/// Whether two lists of record tags are the same list of the tables.
fn same(a: Option<&'static [&'static str]>, b: Option<&'static [&'static str]>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
        (None, None) => true,
        _ => false,
    }
}

/// Bytes of records inspected together on a thread.
const GROUP: usize = 64 << 10;

/// The findings on their way to the sink in [`Checker::run`].
struct Out {
    /// The last record's findings, held until the next record comes.
    held: Vec<Finding>,
    /// The reader's diagnostics not given yet.
    pending: Vec<Finding>,
}

impl Out {
    /// Absorbs the records of `inspection` one by one, giving before each
    /// the findings held and the diagnostics before its first line (its
    /// own findings are held until the next record's turn).
    fn absorb<E, S>(
        &mut self,
        checker: &mut Checker,
        inspection: Inspection,
        summary: &mut Summary,
        sink: &mut S,
    ) -> Result<(), RunError<E>>
    where
        S: FnMut(&Finding) -> Result<(), E>,
    {
        let mut findings = inspection.findings.into_iter();
        let parts = Inspection {
            findings: Vec::new(),
            ..inspection
        };
        for (i, r) in parts.records.iter().enumerate() {
            let line = r.line;
            if !self.pending.is_empty() {
                let (now, later): (Vec<_>, Vec<_>) = self
                    .pending
                    .drain(..)
                    .partition(|f: &Finding| f.line < line);
                self.pending = later;
                let mut now = now;
                now.append(&mut self.held);
                give(&mut now, summary, sink)?;
            } else if !self.held.is_empty() {
                give(&mut self.held, summary, sink)?;
            }
            checker.absorb_record(&parts, i, &mut findings, &mut self.held);
        }
        Ok(())
    }
}

/// Gives `list`'s findings to `sink` in line order (stable: a diagnostic
/// before a finding of the same line), counting them.
fn give<E, S>(
    list: &mut Vec<Finding>,
    summary: &mut Summary,
    sink: &mut S,
) -> Result<(), RunError<E>>
where
    S: FnMut(&Finding) -> Result<(), E>,
{
    list.sort_by_key(|f| f.line);
    for f in list.drain(..) {
        summary.count(&f);
        sink(&f).map_err(RunError::Sink)?;
    }
    Ok(())
}
