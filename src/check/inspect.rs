//! Inspecting a record: its own findings and its facts as plain data, on
//! any thread (see [`Checker::inspect`](super::Checker::inspect)(super::Checker::inspect)).

use super::config::Groups;
use super::links::Role;
use super::{plausible, push_path, structure, values, CheckConfig, Finding, Version};
use crate::tree::hash::{hash_bytes, FastMap};
use crate::tree::{NodeRef, Step};
use crate::value::Date;

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
    pub(super) pointers_end: usize,
    pub(super) findings_end: usize,
    pub(super) birth: Option<(i64, i64)>,
    pub(super) marriage: Option<((i64, i64), u64, Span)>,
    /// The version a first record that is the HEAD says.
    pub(super) head_version: Option<Version>,
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
    /// The distinct paths of the pointers, in the order first seen: a
    /// few dozen, where the pointers are millions.
    pub(super) paths: Vec<Span>,
    /// The paths' ids by text, while inspecting.
    pub(super) path_ids: FastMap<Box<str>, u32>,
    /// A path being written.
    pub(super) scratch: String,
    /// The spans of the dates of a record's events (`INDI.BIRT.DATE`), by
    /// node, worked out once for the value and the plausibility rules.
    pub(super) dates: Vec<(u32, Option<(i64, i64)>)>,
    /// The structure rules' memory of the kinds of the tree being
    /// inspected.
    pub(super) kinds: structure::Kinds,
    /// Per kind of the tree being inspected: the id of its path in
    /// `paths` (`u32::MAX`: not seen) and its pointers' target code
    /// ([`structure::target_code`]), both fixed by the kind's tags from its
    /// record down ([`NodeRef::kind_index`]).
    pub(super) kind_paths: Vec<(u32, u8)>,
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

    pub(super) fn text(&self, (a, b): Span) -> &str {
        self.strings.get(a as usize..b as usize).unwrap_or("")
    }
}

/// Appends `s` to `strings`, giving its span there.
fn put(strings: &mut String, s: &str) -> Span {
    let start = strings.len() as u32;
    strings.push_str(s);
    (start, strings.len() as u32)
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

/// Inspects one record into `found`: see [`Checker::inspect`](super::Checker::inspect). `first`:
/// the first record of the document (a HEAD there decides the version);
/// `same_tree`: the record is of the tree of the record inspected into
/// `found` before (what was learnt of its kinds holds).
pub(super) fn inspect_into(
    config: &CheckConfig,
    g: Groups,
    version: Version,
    (first, same_tree): (bool, bool),
    record: NodeRef<'_>,
    found: &mut Inspection,
) {
    if !same_tree {
        found.kinds.clear();
        found.kind_paths.clear();
    }
    let record_tag = record.tag();
    let head_version = (first && record_tag == "HEAD").then(|| structure::version_of(record));
    let version = head_version.unwrap_or(version);
    let findings_start = found.findings.len();
    if g.structure {
        structure::check(record, version, &mut found.kinds, &mut found.findings);
    }
    let limits = config.limits();
    let own = record.xref();
    let xref = own.as_ref().map(|x| {
        let x = x.to_str_lossy();
        (put(&mut found.strings, &x), hash_bytes(x.as_bytes()))
    });
    let tag = put(&mut found.strings, record_tag);
    // The dates of the events that the plausibility rules read.
    let dated = g.plausible && matches!(record_tag, "INDI" | "FAM");
    found.dates.clear();
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
        if dated && path.len() == 3 && tag == "DATE" {
            // Parsed once for both groups of rules.
            let text = node.text();
            let date = text.as_deref().map(Date::parse);
            if let (true, Some(Err(e))) = (g.value, &date) {
                values::not_a_date(node, e, &mut found.findings);
            }
            let span = date.and_then(|d| d.ok()?.jdn_range());
            found.dates.push((node.id().index() as u32, span));
        } else if g.value {
            values::check(node, tag, version, &mut found.findings);
        }
        if g.plausible && tag == "AGE" {
            plausible::age(node, limits, &mut found.findings);
        }
        if !(g.link || g.plausible) {
            continue;
        }
        if let Some(p) = node.pointer() {
            // GEDCOM 7's null pointer points nowhere on purpose.
            if version == Version::Gedcom7 && p.as_bytes() == b"@VOID@" {
                continue;
            }
            let role = match path.len() {
                2 => Role::of(record_tag, tag, node),
                _ => Role::Other,
            };
            let p = p.to_str_lossy();
            let target = put(&mut found.strings, &p);
            // The path and target of a pointer: worked out once per kind.
            let of_node = |found: &mut Inspection| {
                let target = structure::pointer_target(node, version, &mut found.kinds);
                (path_id(found, &path), structure::target_code(target))
            };
            let (path, expected) = match node.kind_index() {
                Some(k) => match found.kind_paths.get(k) {
                    Some(&known) if known.0 != u32::MAX => known,
                    _ => {
                        let known = of_node(found);
                        if found.kind_paths.len() <= k {
                            found.kind_paths.resize(k + 1, (u32::MAX, 0));
                        }
                        found.kind_paths[k] = known;
                        known
                    }
                },
                None => of_node(found),
            };
            found.pointers.push(PointerFact {
                target,
                hash: hash_bytes(p.as_bytes()),
                line: node.line(),
                path,
                expected,
                role,
            });
        }
    }
    let dates = &found.dates;
    // A date's span, as worked out in the walk (or now, for one it did
    // not see).
    let span = |d: NodeRef<'_>| match dates.binary_search_by_key(&(d.id().index() as u32), |e| e.0)
    {
        Ok(i) => dates[i].1,
        Err(_) => plausible::span(d),
    };
    let mut birth = None;
    let mut marriage = None;
    if g.plausible && record_tag == "INDI" {
        birth = plausible::person(record, limits, span, &mut found.findings);
    }
    if g.plausible && record_tag == "FAM" {
        marriage = record
            .children_with_tag("MARR")
            .filter_map(|m| m.child("DATE"))
            .find_map(|d| Some((span(d)?, d.line(), d.text()?)))
            .map(|(s, line, text)| (s, line, put(&mut found.strings, &text)));
    }
    let findings = &mut found.findings;
    let mut mine = findings.split_off(findings_start);
    mine.retain(|f| config.has(f.rule));
    if !mine.is_empty() {
        // Every finding here is in this record (`Finding::at` cannot say
        // so when the node is too deep to walk up to it).
        let own = own.map(|x| x.to_string());
        for f in &mut mine {
            f.record.clone_from(&own);
        }
        mine.sort_by_key(|f| f.line);
        findings.append(&mut mine);
    }
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
