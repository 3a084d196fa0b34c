//! The `table` module's rows: the same at every number of jobs and chunk
//! size, one `nodes` row per structure, each what the tree says of that
//! structure (tag, path, payload, xref, type, line, parent, position), and
//! the derived rows what the tree's records say.

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

use gedcom_elf::table::{collect_input, NodeRow, Rows, Table, Tables};
use gedcom_elf::tree::{NodeRef, Tree};
use gedcom_elf::value::Date;
use gedcom_elf::{Input, ReaderConfig};

/// The inputs: every corpus file that reads, and a generated file.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = common::all_corpus_paths()
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    let mut generated = Vec::new();
    generate::generate(400, 7, &mut generated).unwrap();
    all.push(("generated".into(), generated));
    all
}

fn rows(input: &Input<'_>, jobs: usize, batch: usize) -> Option<Rows> {
    let got = collect_input(input, ReaderConfig::new(), 3, Tables::ALL, jobs, batch);
    got.ok().map(|(rows, summary, _)| {
        assert_eq!(rows.nodes.len() as u64, summary.stats.structures);
        assert_eq!(rows.structures, summary.stats.structures);
        rows
    })
}

#[test]
fn rows_are_the_same_at_every_jobs_and_chunk_size() {
    let mut compared = 0;
    for (name, bytes) in inputs() {
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        let Some(whole) = rows(&input, 1, usize::MAX) else {
            continue;
        };
        for (jobs, batch) in [(2, 1), (3, 200), (2, 4096)] {
            let parts = rows(&input, jobs, batch).unwrap();
            assert!(
                parts == whole,
                "{name}: jobs {jobs}, chunks of {batch} bytes"
            );
        }
        compared += 1;
    }
    assert!(compared > 20, "only {compared} inputs read");
}

/// The tree's structures in document order, depth first, with their parent's
/// index and their position among its substructures.
fn walk<'t>(node: NodeRef<'t>, parent: Option<usize>, out: &mut Vec<(NodeRef<'t>, Option<usize>)>) {
    let me = out.len();
    out.push((node, parent));
    for child in node.children() {
        walk(child, Some(me), out);
    }
}

#[test]
fn nodes_are_the_tree_s_structures() {
    for (name, bytes) in inputs() {
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        let (Some(got), Ok(tree)) = (rows(&input, 2, 512), Tree::from_input(&input)) else {
            continue;
        };
        let mut nodes = Vec::new();
        for record in tree.records() {
            walk(record, None, &mut nodes);
        }
        assert_eq!(nodes.len(), got.nodes.len(), "{name}");
        let text = input.bytes();
        let mut ordinals = std::collections::HashMap::new();
        for (i, ((node, parent), row)) in nodes.iter().zip(&got.nodes).enumerate() {
            let at = format!("{name}: structure {i} ({row:?})");
            assert_eq!(row.tag, node.tag(), "{at}");
            assert_eq!(row.line, node.line(), "{at}");
            assert_eq!(row.level, node.level(), "{at}");
            assert_eq!(row.text.as_deref(), node.text().as_deref(), "{at}");
            let xref = node.xref().map(|x| x.to_string());
            assert_eq!(row.xref, xref, "{at}");
            assert_eq!(row.pointer, node.pointer().map(|x| x.to_string()), "{at}");
            let ty = node.structure_type().map(|t| t.iri().into_owned());
            assert_eq!(row.ty, ty, "{at}");
            // node_id is where the structure's line begins (after the white
            // space a line may start with).
            let before = &text[..row.node_id as usize];
            let at_start = before.iter().rposition(|b| !matches!(b, b' ' | b'\t'));
            let before = &before[..at_start.map_or(0, |k| k + 1)];
            let start = before.is_empty();
            assert!(
                start || before.ends_with(b"\n") || before.ends_with(b"\r"),
                "{at}"
            );
            assert!(!text[row.node_id as usize..].starts_with(b" "), "{at}");
            let parent_row: Option<&NodeRow> = parent.map(|p| &got.nodes[p]);
            assert_eq!(row.parent_id, parent_row.map(|p| p.node_id), "{at}");
            match parent_row {
                None => {
                    assert_eq!((row.record_id, row.ordinal), (row.node_id, None), "{at}");
                    assert_eq!(row.path, row.tag, "{at}");
                }
                Some(p) => {
                    assert_eq!(row.record_id, p.record_id, "{at}");
                    assert_eq!(row.path, format!("{}.{}", p.path, row.tag), "{at}");
                    let next = ordinals.entry(p.node_id).or_insert(0u32);
                    assert_eq!(row.ordinal, Some(*next), "{at}");
                    *next += 1;
                }
            }
        }
    }
}

/// The first `DATE` of `node`'s first `tag`, and its day range.
fn date_of(node: NodeRef<'_>, tag: &str) -> (Option<String>, Option<(i64, i64)>) {
    let date = node.first(&format!("{tag}.DATE")).and_then(|d| d.text());
    let range = date
        .as_deref()
        .and_then(|d| Date::parse(d).ok()?.jdn_range());
    (date.map(|d| d.into_owned()), range)
}

#[test]
fn derived_rows_are_what_the_tree_says() {
    let mut generated = Vec::new();
    generate::generate(300, 11, &mut generated).unwrap();
    let input = Input::new(&generated).unwrap();
    let got = rows(&input, 2, 4096).unwrap();
    let tree = Tree::from_input(&input).unwrap();
    let people: Vec<_> = tree.records().filter(|r| r.tag() == "INDI").collect();
    assert_eq!(people.len(), got.individuals.len());
    assert!(people.len() >= 300);
    for (person, row) in people.iter().zip(&got.individuals) {
        assert_eq!(row.xref, person.xref().map(|x| x.to_string()));
        let (date, range) = date_of(*person, "BIRT");
        assert_eq!(row.birth.date, date);
        assert_eq!(
            (row.birth.first_day, row.birth.last_day),
            (range.map(|r| r.0), range.map(|r| r.1))
        );
        let (date, _) = date_of(*person, "DEAT");
        assert_eq!(row.death.date, date);
        let sex = person
            .first("SEX")
            .and_then(|s| s.text())
            .map(|s| s.into_owned());
        assert_eq!(row.sex, sex);
    }
    assert!(got.individuals.iter().any(|r| r.birth.first_day.is_some()));
    let families: Vec<_> = tree.records().filter(|r| r.tag() == "FAM").collect();
    assert_eq!(families.len(), got.families.len());
    let mut edges = Vec::new();
    for family in &families {
        for member in family.children() {
            if let ("HUSB" | "WIFE" | "CHIL", Some(p)) = (member.tag(), member.pointer()) {
                let family = family.xref().map(|x| x.to_string());
                edges.push((family, p.to_string(), member.tag().to_string()));
            }
        }
    }
    let got_edges: Vec<_> = (got.edges.iter())
        .map(|e| (e.family.clone(), e.person.clone(), e.role.clone()))
        .collect();
    assert_eq!(got_edges, edges);
    assert!(!edges.is_empty());
    let citations = tree.records().filter(|r| r.tag() != "HEAD");
    let citations: usize = citations.map(|r| count_tag(r, "SOUR")).sum();
    assert_eq!(citations, got.citations.len());
}

/// How many structures under `node` (not itself) are tagged `tag`.
fn count_tag(node: NodeRef<'_>, tag: &str) -> usize {
    node.children()
        .map(|c| usize::from(c.tag() == tag) + count_tag(c, tag))
        .sum()
}

const BEGIN: &str = "<!-- columns:begin (generated: UPDATE_README=1 cargo test --test table) -->";
const END: &str = "<!-- columns:end -->";

/// The README's list of the tables' columns, from the columns themselves.
fn columns_section() -> String {
    let mut s = format!("{BEGIN}\n");
    for table in Table::ALL {
        s += &format!(
            "\n**`{}`**\n\n| column | type | meaning |\n|---|---|---|\n",
            table.name()
        );
        for c in table.columns() {
            let null = if c.nullable { ", null" } else { "" };
            s += &format!("| `{}` | {}{null} | {} |\n", c.name, c.ty.sql(), c.doc);
        }
    }
    s + "\n" + END
}

#[test]
fn the_readme_lists_every_table_s_columns() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (Some(a), Some(b)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md has no {BEGIN} ... {END} section");
    };
    let want = columns_section();
    if readme[a..b + END.len()] == want {
        return;
    }
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{want}{}", &readme[..a], &readme[b + END.len()..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!(
        "README.md's table columns are not the code's; run UPDATE_README=1 cargo test --test table"
    );
}
