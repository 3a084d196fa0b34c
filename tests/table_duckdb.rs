//! `table --format parquet` read by DuckDB and Polars (feature `parquet`):
//! both engines' row counts of every table equal the library's, and a
//! recursive query over `edges` in DuckDB finds the ancestors the tree API
//! finds.
//!
//! DuckDB and Polars are Python packages in a virtual environment that
//! `.ci/run` makes (`target/venv`; `GEDCOM_ELF_PYTHON` names another
//! interpreter). Without them the test says so and passes, except when
//! `GEDCOM_ELF_DUCKDB` is set (as `.ci/run` sets it), where it fails.
#![cfg(feature = "parquet")]

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

mod cli_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use gedcom_elf::table::{collect_input, Table, Tables};
use gedcom_elf::tree::Tree;
use gedcom_elf::{Input, ReaderConfig};

/// The Python with DuckDB, or `None` (the test is skipped) when there is
/// none and CI does not require it.
fn python() -> Option<PathBuf> {
    let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/venv/bin/python");
    let python = std::env::var_os("GEDCOM_ELF_PYTHON").map_or(default, PathBuf::from);
    let works = Command::new(&python)
        .args(["-c", "import duckdb, polars"])
        .output()
        .is_ok_and(|o| o.status.success());
    match (works, std::env::var_os("GEDCOM_ELF_DUCKDB").is_some()) {
        (true, _) => Some(python),
        (false, true) => panic!(
            "GEDCOM_ELF_DUCKDB is set but {} cannot import duckdb and polars (.ci/run installs them)",
            python.display()
        ),
        (false, false) => {
            eprintln!(
                "skipped: no DuckDB and Polars at {} (python3 -m venv target/venv && \
                 target/venv/bin/pip install duckdb polars)",
                python.display()
            );
            None
        }
    }
}

/// Runs `script` (which reads the dataset at `sys.argv[1]`, `arg` in
/// `sys.argv[2]`, the tables' names in `sys.argv[3]`) and parses its
/// output: one `key<TAB>value` per line.
fn duckdb(python: &Path, script: &str, dir: &Path, arg: &str) -> BTreeMap<String, String> {
    let tables: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
    let o = Command::new(python)
        .args(["-c", script, dir.to_str().unwrap(), arg, &tables.join(",")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "duckdb script failed: {stderr}");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Row counts of every table, and of `nodes` per file, by DuckDB; and by
/// Polars, a second engine, as `polars.TABLE`.
const COUNTS: &str = r#"
import sys, duckdb, polars
d = sys.argv[1]
for t in sys.argv[3].split(","):
    n = duckdb.sql(f"select count(*) from read_parquet('{d}/{t}/*.parquet')").fetchall()[0][0]
    print(f"{t}\t{n}")
    n = polars.scan_parquet(f"{d}/{t}/*.parquet").select(polars.len()).collect().item()
    print(f"polars.{t}\t{n}")
for f, n in duckdb.sql(f"select file_id, count(*) from read_parquet('{d}/nodes/*.parquet') group by 1").fetchall():
    print(f"nodes.{f}\t{n}")
"#;

/// The ancestors of the people `sys.argv[2]` names (`FILE_ID:XREF,...`),
/// by a recursive query over `edges`: the partners of every family the
/// person, or an ancestor, is a child of.
const ANCESTORS: &str = r#"
import sys, duckdb
d = sys.argv[1]
duckdb.sql(f"create view edges as select * from read_parquet('{d}/edges/*.parquet')")
for who in sys.argv[2].split(","):
    f, x = who.split(":", 1)
    rows = duckdb.execute("""
        with recursive anc(person) as (
            select p.person from edges c join edges p
              on p.file_id = c.file_id and p.family_id = c.family_id and p.role in ('HUSB', 'WIFE')
             where c.file_id = $f and c.role = 'CHIL' and c.person = $x
            union
            select p.person from anc
              join edges c on c.file_id = $f and c.role = 'CHIL' and c.person = anc.person
              join edges p on p.file_id = c.file_id and p.family_id = c.family_id
                          and p.role in ('HUSB', 'WIFE')
        )
        select person from anc order by person""", {"f": int(f), "x": x}).fetchall()
    print(f"{who}\t{' '.join(r[0] for r in rows)}")
"#;

/// The ancestors of `xref` through the tree: the `HUSB` and `WIFE` of the
/// families whose `CHIL` points at a person, again and again.
fn tree_ancestors(tree: &Tree<'_>, xref: &str) -> BTreeSet<String> {
    let families: Vec<_> = tree.records().filter(|r| r.tag() == "FAM").collect();
    let mut found = BTreeSet::new();
    let mut todo = vec![xref.to_string()];
    while let Some(person) = todo.pop() {
        for family in &families {
            let child = family.children_with_tag("CHIL");
            if !child
                .filter_map(|c| c.pointer())
                .any(|p| p.to_string() == person)
            {
                continue;
            }
            for partner in family
                .children()
                .filter(|c| matches!(c.tag(), "HUSB" | "WIFE"))
            {
                if let Some(p) = partner.pointer().map(|p| p.to_string()) {
                    if found.insert(p.clone()) {
                        todo.push(p);
                    }
                }
            }
        }
    }
    found
}

#[test]
fn duckdb_reads_the_parquet_tables_as_the_library_makes_them() {
    let Some(python) = python() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("table_duckdb");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<PathBuf> = common::shared_corpus()
        .map(|d| {
            common::ged_files(&d)
                .into_iter()
                .map(|(n, _)| n.into())
                .collect()
        })
        .unwrap_or_default();
    let generated = dir.join("generated.ged");
    let mut bytes = Vec::new();
    generate::generate(3000, 5, &mut bytes).unwrap();
    std::fs::write(&generated, &bytes).unwrap();
    files.push(generated.clone());
    let out = dir.join("out");
    let mut args = vec!["table", "--format", "parquet", "--jobs", "2"];
    // Small row groups and parts, so that there are several.
    args.extend([
        "--row-group-bytes",
        "300000",
        "--part-bytes",
        "2000000",
        "-o",
    ]);
    args.push(out.to_str().unwrap());
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let o = cli_support::run(&args, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("nodes/part-00001.parquet").is_file());

    // Row counts: DuckDB's equal the library's.
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    for (id, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).unwrap();
        let input = Input::new(&bytes).unwrap();
        let config = ReaderConfig::new();
        let (rows, _, ds) =
            collect_input(&input, config, id as u32, Tables::ALL, 1, 1 << 20).unwrap();
        let counts = [
            (Table::Nodes, rows.nodes.len()),
            (Table::Files, 1),
            (Table::Diagnostics, ds.len()),
            (Table::Individuals, rows.individuals.len()),
            (Table::Families, rows.families.len()),
            (Table::Edges, rows.edges.len()),
            (Table::Events, rows.events.len()),
            (Table::Citations, rows.citations.len()),
        ];
        for (table, n) in counts {
            *ours.entry(table.name().to_string()).or_default() += n as u64;
            *ours.entry(format!("polars.{}", table.name())).or_default() += n as u64;
        }
        ours.insert(format!("nodes.{id}"), rows.nodes.len() as u64);
    }
    let theirs = duckdb(&python, COUNTS, &out, "");
    let theirs: BTreeMap<String, u64> = theirs
        .into_iter()
        .map(|(k, v)| (k, v.parse().unwrap()))
        .collect();
    assert_eq!(theirs, ours);
    assert!(ours["individuals"] >= 3000 && ours["edges"] > 0);

    // Ancestors: a recursive query over edges finds the tree's.
    let tree = Tree::from_slice(&bytes).unwrap();
    let id = files.len() - 1;
    let people: Vec<String> = tree
        .records()
        .filter(|r| r.tag() == "INDI")
        .step_by(97)
        .filter_map(|r| r.xref().map(|x| x.to_string()))
        .collect();
    let asked: Vec<String> = people.iter().map(|x| format!("{id}:{x}")).collect();
    let theirs = duckdb(&python, ANCESTORS, &out, &asked.join(","));
    let mut with_ancestors = 0;
    for (who, x) in asked.iter().zip(&people) {
        let expected = tree_ancestors(&tree, x);
        let got: BTreeSet<String> = theirs[who].split_whitespace().map(String::from).collect();
        assert_eq!(got, expected, "{who}");
        with_ancestors += usize::from(expected.len() > 1);
    }
    assert!(
        with_ancestors >= 3,
        "only {with_ancestors} people with ancestors"
    );
}

/// Per `nodes` and `events`, the rows by record tag of the dataset at
/// `sys.argv[1]` (read as it is) and at `sys.argv[2]` (partitioned by
/// record_tag: the column from the directories' names), with that
/// column's type; per table, the rows by file of `sys.argv[3]`
/// (partitioned by file), with `file_id`'s type; and Polars' count of
/// the partitioned `nodes`.
const PARTITIONED: &str = r#"
import sys, duckdb, polars
plain, by_tag, by_file = sys.argv[1], sys.argv[2].split(",")[0], sys.argv[2].split(",")[1]
for t in ["nodes", "events"]:
    for tag, n in duckdb.sql(f"select record_tag, count(*) from read_parquet('{plain}/{t}/*.parquet') group by 1").fetchall():
        print(f"plain.{t}.{tag}\t{n}")
    rel = f"read_parquet('{by_tag}/{t}/*/*.parquet', hive_partitioning = true)"
    for tag, n in duckdb.sql(f"select record_tag, count(*) from {rel} group by 1").fetchall():
        print(f"hive.{t}.{tag}\t{n}")
    ty = duckdb.sql(f"select distinct typeof(record_tag) from {rel}").fetchall()
    print(f"type.{t}.record_tag\t{ty}")
for t in sys.argv[3].split(","):
    for f, n in duckdb.sql(f"select file_id, count(*) from read_parquet('{plain}/{t}/*.parquet') group by 1").fetchall():
        print(f"plain.{t}.{f}\t{n}")
    rel = f"read_parquet('{by_file}/{t}/*/*.parquet', hive_partitioning = true)"
    for f, n in duckdb.sql(f"select file_id, count(*) from {rel} group by 1").fetchall():
        print(f"hive.{t}.{f}\t{n}")
    ty = duckdb.sql(f"select distinct typeof(file_id) from {rel}").fetchall()
    print(f"type.{t}.file_id\t{ty}")
n = polars.scan_parquet(f"{by_tag}/nodes/", hive_partitioning=True).filter(polars.col("record_tag") == "_FOO").select(polars.len()).collect().item()
print(f"polars._FOO\t{n}")
"#;

#[test]
fn duckdb_reads_hive_partitions_as_the_unpartitioned_rows() {
    let Some(python) = python() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("table_duckdb_hive");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<PathBuf> = common::shared_corpus()
        .map(|d| {
            common::ged_files(&d)
                .into_iter()
                .map(|(n, _)| n.into())
                .collect()
        })
        .unwrap_or_default();
    let generated = dir.join("generated.ged");
    let mut bytes = Vec::new();
    generate::generate(2000, 5, &mut bytes).unwrap();
    std::fs::write(&generated, &bytes).unwrap();
    files.push(generated);
    // Records of a tag of their own.
    let custom = dir.join("custom.ged");
    let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..30 {
        text += &format!(
            "0 @F{i}@ _FOO\n1 NOTE {i}\n0 @I{i}@ INDI\n1 BIRT\n2 DATE {}\n",
            1900 + i
        );
    }
    text += "0 TRLR\n";
    std::fs::write(&custom, text).unwrap();
    files.push(custom);
    let run = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["table", "--format", "parquet", "--jobs", "2"];
        args.extend(["--row-group-bytes", "300000", "--part-bytes", "2000000"]);
        args.extend_from_slice(extra);
        args.extend(["-o", out.to_str().unwrap()]);
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let o = cli_support::run(&args, None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let plain = run("plain", &[]);
    let by_tag = run("by_tag", &["--partition-by", "record_tag"]);
    let by_file = run("by_file", &["--partition-by", "file"]);
    assert!(by_tag.join("nodes/record_tag=_FOO").is_dir());
    let both = format!("{},{}", by_tag.display(), by_file.display());
    let got = duckdb(&python, PARTITIONED, &plain, &both);
    let mut compared = 0;
    for (key, n) in &got {
        if let Some(rest) = key.strip_prefix("plain.") {
            assert_eq!(got.get(&format!("hive.{rest}")), Some(n), "{rest}");
            compared += 1;
        }
        if let Some(rest) = key.strip_prefix("hive.") {
            assert_eq!(got.get(&format!("plain.{rest}")), Some(n), "{rest}");
        }
    }
    assert!(compared > 30, "{got:?}");
    assert_eq!(got["plain.nodes._FOO"], "60");
    assert_eq!(got["polars._FOO"], "60");
    for t in ["nodes", "events"] {
        assert_eq!(got[&format!("type.{t}.record_tag")], "[('VARCHAR',)]");
    }
    for t in Table::ALL {
        let key = format!("type.{}.file_id", t.name());
        assert_eq!(got[&key], "[('BIGINT',)]", "{key}");
    }
}
