//! Inspecting a record: its own findings and its facts as plain data, on
//! any thread (see [`Checker::inspect`](super::Checker::inspect)(super::Checker::inspect)).

use super::config::Groups;
use super::links::Role;
use super::{plausible, push_path, structure, values, CheckConfig, Finding, Version};
use crate::tree::{NodeRef, Step};

/// A range of a string buffer.
pub(super) type Span = (u32, u32);

/// A pointer as an inspection found it.
#[derive(Debug)]
pub(super) struct PointerFact {
    pub(super) target: Span,
    pub(super) line: u64,
    pub(super) path: Span,
    pub(super) expected: Option<&'static [&'static str]>,
    pub(super) role: Role,
}

/// What an inspection found of one record.
#[derive(Debug)]
pub(super) struct RecordFacts {
    pub(super) xref: Option<Span>,
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

/// Inspects one record into `found`: see [`Checker::inspect`](super::Checker::inspect). `first`:
/// the first record of the document (a HEAD there decides the version).
pub(super) fn inspect_into(
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
    let Inspection {
        strings,
        records,
        pointers,
        findings,
    } = found;
    let findings_start = findings.len();
    if g.structure {
        structure::check(record, version, findings);
    }
    let limits = config.limits();
    let xref = record.xref().map(|x| put(strings, &x.to_str_lossy()));
    let tag = put(strings, record_tag);
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
            let role = match path.len() {
                2 => Role::of(record_tag, tag, node),
                _ => Role::Other,
            };
            let target = put(strings, &p.to_str_lossy());
            let start = strings.len() as u32;
            push_path(strings, &path);
            pointers.push(PointerFact {
                target,
                line: node.line(),
                path: (start, strings.len() as u32),
                expected: structure::pointer_target(node, version),
                role,
            });
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
            .find_map(|d| Some((plausible::span(d)?, d.line(), put(strings, &d.text()?))));
    }
    let mut mine = findings.split_off(findings_start);
    mine.retain(|f| config.has(f.rule));
    // Every finding here is in this record (`Finding::at` cannot say so
    // when the node is too deep to walk up to it).
    let own = record.xref().map(|x| x.to_string());
    for f in &mut mine {
        f.record.clone_from(&own);
    }
    mine.sort_by_key(|f| f.line);
    findings.append(&mut mine);
    records.push(RecordFacts {
        xref,
        tag,
        line: record.line(),
        pointers_end: pointers.len(),
        findings_end: findings.len(),
        birth,
        marriage,
        head_version,
    });
}
