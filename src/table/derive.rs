//! The derived tables' rows from one record's `nodes` rows.

use super::rows::{
    CitationRow, DatedPlace, EdgeRow, EventRow, FamilyRow, IndividualRow, NodeRow, Rows,
};
use super::{Table, Tables};
use crate::value::{Date, Name};

/// The tags of events and attributes of individuals and families (5.5.1
/// and 7.0); any other substructure of a record with a `DATE` or `PLAC` is
/// an event too.
const EVENTS: &[&str] = &[
    "ADOP", "ANUL", "BAPL", "BAPM", "BARM", "BASM", "BIRT", "BLES", "BURI", "CAST", "CENS", "CHR",
    "CHRA", "CONF", "CONL", "CREM", "DEAT", "DIV", "DIVF", "DSCR", "EDUC", "EMIG", "ENDL", "ENGA",
    "EVEN", "FACT", "FCOM", "GRAD", "IDNO", "IMMI", "MARB", "MARC", "MARL", "MARR", "MARS", "NATI",
    "NATU", "NCHI", "NMR", "OCCU", "ORDN", "PROB", "PROP", "RELI", "RESI", "RETI", "SLGC", "SLGS",
    "SSN", "TITL", "WILL",
];

/// The indexes of node `i`'s substructures in `nodes` (a record's rows in
/// document order: a structure's descendants follow it, deeper than it).
fn children(nodes: &[NodeRow], i: usize) -> impl Iterator<Item = usize> + '_ {
    let level = nodes[i].level;
    let end = nodes[i + 1..]
        .iter()
        .position(|n| n.level <= level)
        .map_or(nodes.len(), |k| i + 1 + k);
    (i + 1..end).filter(move |&j| nodes[j].level == level + 1)
}

/// Node `i`'s first substructure tagged `tag`.
fn child(nodes: &[NodeRow], i: usize, tag: &str) -> Option<usize> {
    children(nodes, i).find(|&j| nodes[j].tag == tag)
}

/// The text of node `i`'s first substructure tagged `tag`.
fn child_text(nodes: &[NodeRow], i: usize, tag: &str) -> Option<String> {
    child(nodes, i, tag).and_then(|j| nodes[j].text.clone())
}

/// Node `i`'s first `DATE` (as written, and its day range) and `PLAC`.
fn dated(nodes: &[NodeRow], i: Option<usize>) -> DatedPlace {
    let Some(i) = i else {
        return DatedPlace::default();
    };
    let date = child_text(nodes, i, "DATE");
    let range = date
        .as_deref()
        .and_then(|d| Date::parse(d).ok())
        .and_then(|d| d.jdn_range());
    DatedPlace {
        date,
        first_day: range.map(|r| r.0),
        last_day: range.map(|r| r.1),
        place: child_text(nodes, i, "PLAC"),
    }
}

/// Adds the derived rows of one record (`nodes`: its rows, the record's
/// first) of the `tables` asked for.
pub(super) fn record(nodes: &[NodeRow], tables: Tables, rows: &mut Rows) {
    let Some(head) = nodes.first() else {
        return;
    };
    let tag = head.tag.as_str();
    if tag == "INDI" && tables.contains(Table::Individuals) {
        rows.individuals.push(individual(nodes));
    }
    if tag == "FAM" && tables.contains(Table::Families) {
        rows.families.push(family(nodes));
    }
    if tag == "FAM" && tables.contains(Table::Edges) {
        for j in children(nodes, 0) {
            let n = &nodes[j];
            let (true, Some(person)) = (matches!(&*n.tag, "HUSB" | "WIFE" | "CHIL"), &n.pointer)
            else {
                continue;
            };
            rows.edges.push(EdgeRow {
                file_id: n.file_id,
                node_id: n.node_id,
                family_id: head.node_id,
                family: head.xref.clone(),
                person: person.clone(),
                role: n.tag.clone(),
                pedigree: child_text(nodes, j, "PEDI"),
            });
        }
    }
    if matches!(tag, "INDI" | "FAM") && tables.contains(Table::Events) {
        for j in children(nodes, 0) {
            let n = &nodes[j];
            let dated_child = || child(nodes, j, "DATE").or_else(|| child(nodes, j, "PLAC"));
            if !EVENTS.contains(&n.tag.as_str()) && dated_child().is_none() {
                continue;
            }
            rows.events.push(EventRow {
                file_id: n.file_id,
                node_id: n.node_id,
                record_id: head.node_id,
                record_tag: head.tag.clone(),
                record_xref: head.xref.clone(),
                tag: n.tag.clone(),
                kind: child_text(nodes, j, "TYPE"),
                value: n.text.clone(),
                when: dated(nodes, Some(j)),
                age: child_text(nodes, j, "AGE"),
                line: n.line,
            });
        }
    }
    if tag != "HEAD" && tables.contains(Table::Citations) {
        for (j, n) in nodes.iter().enumerate().skip(1) {
            if n.tag != "SOUR" {
                continue;
            }
            rows.citations.push(CitationRow {
                file_id: n.file_id,
                node_id: n.node_id,
                record_id: head.node_id,
                record_xref: head.xref.clone(),
                parent_id: n.parent_id.unwrap_or(head.node_id),
                path: n.path.clone(),
                source: n.pointer.clone(),
                text: n.text.clone(),
                page: child_text(nodes, j, "PAGE"),
                quality: child_text(nodes, j, "QUAY"),
                line: n.line,
            });
        }
    }
}

fn individual(nodes: &[NodeRow]) -> IndividualRow {
    let head = &nodes[0];
    let name_at = child(nodes, 0, "NAME");
    let payload = name_at.and_then(|i| nodes[i].text.as_deref());
    let parsed = payload.map(|p| Name::parse_lenient(p).0);
    let piece = |tag: &str| name_at.and_then(|i| child_text(nodes, i, tag));
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    IndividualRow {
        file_id: head.file_id,
        record_id: head.node_id,
        xref: head.xref.clone(),
        name: parsed.as_ref().and_then(|n| non_empty(&n.full())),
        given: piece("GIVN").or_else(|| parsed.as_ref().and_then(|n| non_empty(&n.given))),
        surname: piece("SURN").or_else(|| {
            let surname = parsed.as_ref().and_then(|n| n.surname.as_deref());
            surname.and_then(non_empty)
        }),
        sex: child_text(nodes, 0, "SEX"),
        birth: dated(nodes, child(nodes, 0, "BIRT")),
        death: dated(nodes, child(nodes, 0, "DEAT")),
        line: head.line,
    }
}

fn family(nodes: &[NodeRow]) -> FamilyRow {
    let head = &nodes[0];
    let pointer = |tag: &str| child(nodes, 0, tag).and_then(|i| nodes[i].pointer.clone());
    FamilyRow {
        file_id: head.file_id,
        record_id: head.node_id,
        xref: head.xref.clone(),
        husband: pointer("HUSB"),
        wife: pointer("WIFE"),
        children: children(nodes, 0)
            .filter(|&j| nodes[j].tag == "CHIL")
            .count() as u64,
        marriage: dated(nodes, child(nodes, 0, "MARR")),
        line: head.line,
    }
}
