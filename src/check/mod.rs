//! Validation of a whole document, record by record: `check`.
//!
//! A [`Finding`] is one problem at one line: which [`Rule`] found it, how
//! severe it is, the record it is in, the path of tags that leads to it
//! (`INDI.BIRT.DATE`) and the text that offends. Rules are of five kinds,
//! each rule with a stable id (`group.name`) and a one-line description in
//! [`rules()`]:
//!
//! - `read.*`: the reader's diagnostics (line-level problems);
//! - `structure.*`: substructures and their cardinality, per the ELF data
//!   model for 5.5.1 files and per GEDCOM 7's cardinality table for 7.0
//!   files (custom `_` tags are always allowed);
//! - `link.*`: pointers to nothing, to the wrong record type, one-sided
//!   family links, duplicate xref_ids;
//! - `value.*`: payload grammar (dates, ages, enumerations, coordinates);
//! - `plausible.*`: dates that cannot all be true, with thresholds in
//!   [`Thresholds`].
//!
//! Records are checked one at a time as they come (a [`RecordTree`] from
//! [`Records`](crate::tree::Records), any record [`NodeRef`], or, in
//! [`Checker::run_chunks`], straight from a chunk's reader's events, with
//! no tree built); what needs more than one record (links, family ages) is
//! kept as small facts and judged at the end.
//!
//! [`RecordTree`]: crate::tree::RecordTree

/// Declares a file's rules, each a `static` [`Rule`] with its id, severity
/// and description, and `RULES`, the list of them in that order.
macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident = $id:literal, $severity:ident, $description:expr;)*) => {
        $(
            $(#[$doc])*
            pub(crate) static $name: Rule = Rule {
                id: $id,
                severity: crate::Severity::$severity,
                description: $description,
            };
        )*
        /// The rules of this file, in the order `check --list-rules` gives.
        pub(crate) static RULES: &[&Rule] = &[$(&$name),*];
    };
}

mod checker;
mod config;
mod inspect;
mod links;
mod plausible;
mod read;
mod run;
mod structure;
pub(crate) use structure::{known_tag, standard_sub, Shape};
mod values;

use std::sync::OnceLock;

use crate::tree::NodeRef;
use crate::Severity;

pub use checker::{Checker, RunError, Summary};
pub use config::{CheckConfig, Thresholds, UnknownRule};
pub use inspect::Inspection;

/// Which grammar and structure rules a document is checked against: the
/// version the reader reads it as (one rule, [`Version::from_vers`], decides
/// both).
pub use crate::version::Version;

/// One rule: a stable id, how severe what it finds is, and what it checks.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// `group.name`, e.g. `link.missing-target`.
    pub id: &'static str,
    /// The severity of its findings.
    pub severity: Severity,
    /// One line: what it checks.
    pub description: &'static str,
}

/// One problem found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule that found it.
    pub rule: &'static Rule,
    /// The 1-based line of the structure it is about (0: the document as a
    /// whole).
    pub line: u64,
    /// The xref_id of the record it is in, if that record has one.
    pub record: Option<String>,
    /// The tags from the record down to the structure, joined by `.`
    /// (`INDI.BIRT.DATE`).
    pub path: String,
    /// What is wrong, in lower case.
    pub message: String,
    /// The text that offends (a payload, a pointer), if any.
    pub text: Option<String>,
}

impl Finding {
    /// A finding about `node`: its line, record and path (see
    /// [`path_of`]), and its payload (or pointer) as the text.
    pub fn at(rule: &'static Rule, node: NodeRef<'_>, message: impl Into<String>) -> Finding {
        let text = match node.pointer() {
            Some(p) => Some(p.to_string()),
            None => node.text().map(|t| t.into_owned()),
        };
        let path = path_of(node);
        // The record, unless it is further up than the path goes.
        let record = if path.starts_with('…') {
            None
        } else {
            node.record().xref().map(|x| x.to_string())
        };
        Finding {
            rule,
            line: node.line(),
            record,
            path,
            message: message.into(),
            text,
        }
    }

    /// The severity (the rule's).
    pub fn severity(&self) -> Severity {
        self.rule.severity
    }
}

/// A tag of at most 8 octets as a number, its octets big-endian from the
/// top, so that keys sort as the tags do and compare in one instruction
/// (`None`: a longer tag).
pub(crate) const fn tag_key(tag: &[u8]) -> Option<u64> {
    if tag.len() > 8 {
        return None;
    }
    // Shifted in register by register: no octets stored and read back.
    let mut k = 0u64;
    let mut i = 0;
    while i < tag.len() {
        k = k << 8 | tag[i] as u64;
        i += 1;
    }
    match tag.len() {
        0 => Some(0),
        n => Some(k << (8 * (8 - n))),
    }
}

/// Paths longer than this many tags keep only their last tags, after `…`.
pub(crate) const MAX_PATH: usize = 32;

/// The tags from `node`'s record down to it, joined by `.`; for a node
/// deeper than 32 tags, `…` and the last 31 (so that the cost stays
/// bounded whatever the input's nesting).
pub fn path_of(node: NodeRef<'_>) -> String {
    let mut tags = vec![node.tag()];
    let mut n = node;
    let mut elided = false;
    while let Some(p) = n.parent() {
        if tags.len() == MAX_PATH {
            tags.truncate(MAX_PATH - 1);
            elided = true;
            break;
        }
        tags.push(p.tag());
        n = p;
    }
    tags.reverse();
    let mut path = String::new();
    write_path(&mut path, elided, &tags);
    path
}

/// Appends `tags` (a record's tag first) joined by `.` to `out`, as
/// [`path_of`] joins them: at most [`MAX_PATH`] of them, `…` first in
/// place of the elided ones.
pub(crate) fn push_path(out: &mut String, tags: &[&str]) {
    match tags.len().checked_sub(MAX_PATH - 1) {
        Some(from) if tags.len() > MAX_PATH => write_path(out, true, &tags[from..]),
        _ => write_path(out, false, tags),
    }
}

/// The one way a path is written: `…` when tags were `elided`, then
/// `shown` joined by `.`.
fn write_path(out: &mut String, elided: bool, shown: &[&str]) {
    if elided {
        out.push('…');
    }
    for (i, t) in shown.iter().enumerate() {
        if i > 0 || elided {
            out.push('.');
        }
        out.push_str(t);
    }
}

/// Every rule, in the order `check --list-rules` prints them: `read`,
/// `structure`, `link`, `value`, `plausible`.
///
/// ```
/// use gedcom_elf::check::rules;
///
/// let ids: Vec<&str> = rules().iter().map(|r| r.id).collect();
/// assert!(ids.contains(&"read.too-deep"));
/// assert!(ids.contains(&"link.missing-target"));
/// assert!(ids.contains(&"value.date"));
/// ```
pub fn rules() -> &'static [&'static Rule] {
    static ALL: OnceLock<Vec<&'static Rule>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<&'static Rule> = read::rules().iter().collect();
        for group in [
            structure::RULES,
            links::RULES,
            values::RULES,
            plausible::RULES,
        ] {
            all.extend(group.iter().copied());
        }
        all
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Tree;

    #[test]
    fn paths_are_elided_alike_from_a_node_and_from_a_list_of_tags() {
        let mut text = String::from("0 HEAD\n0 @I1@ INDI\n");
        for level in 1..40 {
            text += &format!("{level} T{level}\n");
        }
        let tree = Tree::from_slice(text.as_bytes()).unwrap();
        for node in tree.nodes() {
            let mut tags = vec![node.tag()];
            let mut n = node;
            while let Some(p) = n.parent() {
                tags.push(p.tag());
                n = p;
            }
            tags.reverse();
            let mut joined = String::new();
            push_path(&mut joined, &tags);
            assert_eq!(path_of(node), joined);
            assert!(path_of(node).split('.').count() <= MAX_PATH);
        }
    }
}
