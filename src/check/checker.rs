//! The [`Checker`]: records in, findings out, facts kept for the end.

use std::fmt;
use std::io::Read;

use super::config::Groups;
use super::links::{self, Role};
use super::plausible::{self, age_range};
use super::{read, structure, values, CheckConfig, Finding, Rule, Version};
use crate::tree::hash::{BuildWordHasher, FastMap as HashMap};

type HashSet<K> = std::collections::HashSet<K, BuildWordHasher>;
use crate::ordered::Pool;
use crate::par::{first_record_reader, Chunks, Numbering};
use crate::tree::{NodeRef, RecordTree, Records, Schema, Step, Tree};
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

/// A pointer as a record's inspection found it: its target and path are
/// ranges of the inspection's `strings`.
#[derive(Debug)]
struct PointerFact {
    target: (u32, u32),
    line: u64,
    path: (u32, u32),
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
    /// The record's xref_id and tag, then its pointers' targets and
    /// paths: one allocation per record.
    strings: String,
    xref: Option<(u32, u32)>,
    tag: (u32, u32),
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
    groups: Groups,
    jobs: usize,
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
            groups: config.groups(),
            jobs: 1,
            config,
            version: Version::Gedcom551,
            started: false,
            xrefs: Interner::default(),
            paths: Interner::default(),
            tags: Interner::default(),
            defined: Vec::new(),
            pointers: Vec::new(),
            births: HashMap::default(),
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
        let first = !self.started;
        inspect(&self.config, self.groups, self.version, first, record)
    }

    /// Keeps the facts of a record's inspection and pushes its findings to
    /// `out`, records in document order.
    pub fn absorb(&mut self, inspection: Inspection, out: &mut Vec<Finding>) {
        let Inspection {
            findings,
            strings,
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
        let text = |(a, b): (u32, u32)| strings.get(a as usize..b as usize).unwrap_or("");
        let tag = text(tag);
        let mut from = NONE;
        if let Some(x) = xref.map(text) {
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
                None => self.defined[i] = Some((self.tags.id(tag), line)),
            }
        }
        out.extend(findings);
        for p in pointers {
            let target = self.xrefs.id(text(p.target));
            let path = self.paths.id(text(p.path));
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
        let mut spouse_of = HashSet::default();
        let mut has_spouse = HashSet::default();
        let mut child_of = HashMap::default();
        let mut has_child = HashSet::default();
        let mut parents: HashMap<u32, Vec<(u32, bool)>> = HashMap::default();
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
        let (config, groups, version) = (self.config.clone(), self.groups, self.version);
        let mut summary = Summary::default();
        let mut out = Out {
            held: Vec::new(),
            pending: Vec::new(),
        };
        let mut failed_sink = None;
        let result = chunks.run(
            Numbering::Global,
            |i, reader, ds| {
                let tree = Tree::of_chunk(reader, schema.clone(), i == 0, sizes[i], ds)?;
                let first = |r: &NodeRef<'_>| i == 0 && r.id().index() == 0;
                Ok(tree
                    .records()
                    .map(|r| inspect(&config, groups, version, first(&r), r))
                    .collect::<Vec<_>>())
            },
            |inspections, ds, _| {
                out.pending
                    .extend(ds.iter().filter_map(|d| self.diagnostic(d)));
                for i in inspections {
                    if let Err(e) = out.absorb(&mut self, i, &mut summary, &mut sink) {
                        failed_sink = Some(e);
                        return Err(Error::from(std::io::Error::other("the sink failed")));
                    }
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
        let work = move |group: Vec<RecordTree>| -> Vec<Inspection> {
            group
                .iter()
                .map(|r| inspect(&config, groups, version, false, r.root()))
                .collect()
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
                            for i in pool.next().into_iter().flatten() {
                                out.absorb(&mut self, i, &mut summary, &mut sink)?;
                            }
                        }
                    }
                    None => {
                        for i in work(group) {
                            out.absorb(&mut self, i, &mut summary, &mut sink)?;
                        }
                    }
                }
                if end {
                    break;
                }
            }
            if let Some(pool) = pool.as_mut() {
                while let Some(is) = pool.next() {
                    for i in is {
                        out.absorb(&mut self, i, &mut summary, &mut sink)?;
                    }
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

/// Checks one record: see [`Checker::inspect`]. `first`: the first record
/// of the document (a HEAD there decides the version).
fn inspect(
    config: &CheckConfig,
    g: Groups,
    version: Version,
    first: bool,
    record: NodeRef<'_>,
) -> Inspection {
    let head_version = (first && record.tag() == "HEAD").then(|| structure::version_of(record));
    let version = head_version.unwrap_or(version);
    let mut findings = Vec::new();
    if g.structure {
        structure::check(record, version, &mut findings);
    }
    let (want_values, want_links, want_plausible) = (g.value, g.link, g.plausible);
    let limits = config.limits();
    let record_tag = record.tag();
    let mut strings = String::new();
    let put = |strings: &mut String, s: &str| {
        let start = strings.len() as u32;
        strings.push_str(s);
        (start, strings.len() as u32)
    };
    let xref = record.xref().map(|x| put(&mut strings, &x.to_str_lossy()));
    let tag = put(&mut strings, record_tag);
    let mut pointers = Vec::new();
    // The tags from the record down, and the same joined by dots.
    let mut path: Vec<&str> = Vec::new();
    let mut joined = String::new();
    let mut ends: Vec<usize> = Vec::new();
    // The depth of an extension's structure being skipped.
    let mut skip: Option<usize> = None;
    for step in record.walk() {
        let node = match step {
            Step::Enter(n) => n,
            Step::Leave(_) => {
                path.pop();
                joined.truncate(ends.pop().unwrap_or(0));
                if skip.is_some_and(|d| path.len() < d) {
                    skip = None;
                }
                continue;
            }
        };
        path.push(node.tag());
        ends.push(joined.len());
        if !joined.is_empty() {
            joined.push('.');
        }
        joined.push_str(node.tag());
        if skip.is_some() {
            continue;
        }
        if node.tag().starts_with('_') {
            skip = Some(path.len());
            continue;
        }
        if want_values {
            values::check(node, node.tag(), version, &mut findings);
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
                    target: put(&mut strings, &p.to_str_lossy()),
                    line: node.line(),
                    path: put(&mut strings, &joined),
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
        strings,
        xref,
        tag,
        line: record.line(),
        pointers,
        birth,
        marriage,
        head_version,
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
    /// Gives the held findings and the diagnostics before the record
    /// `inspection` is about, then absorbs it (its findings held).
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
        let line = inspection.line;
        let (mut now, later): (Vec<_>, Vec<_>) = self
            .pending
            .drain(..)
            .partition(|f: &Finding| f.line < line);
        self.pending = later;
        now.append(&mut self.held);
        give(&mut now, summary, sink)?;
        checker.absorb(inspection, &mut self.held);
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
