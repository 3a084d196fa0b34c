//! `gedcom-elf table` through the built binary: the same directory at every
//! `--jobs` and `--chunk-bytes`, one `nodes` row per structure `count`
//! counts, standard input and GEDZIP archives read as files are, a bad file
//! among good ones reported and skipped, DIR written whole or not at all,
//! and Parquet and Arrow files that read back as the library's rows.

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

mod cli_support;

use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use cli_support::run;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_table")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Runs `table` with `args` then the inputs, into `out`; panics unless it
/// exits with `status`.
fn table(args: &[&str], inputs: &[&str], out: &Path, status: i32) -> String {
    let mut all = vec!["table", "-o", s(out)];
    all.extend_from_slice(args);
    all.extend_from_slice(inputs);
    let o = run(&all, None);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(status), "{all:?}: {stderr}");
    stderr
}

/// The JSON Lines rows of one table of an output directory, parsed.
fn rows(dir: &Path, table: &str) -> Vec<serde_json::Value> {
    let parts = contents(&dir.join(table));
    let lines = parts.values().flat_map(|b| b.split(|&c| c == b'\n'));
    lines
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// The inputs of the comparisons: the shared corpus (when present), a
/// generated file, the project's sample.
fn inputs(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = common::shared_corpus()
        .map(|d| common::ged_files(&d).into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    let generated = dir.join("generated.ged");
    let mut bytes = Vec::new();
    generate::generate(1500, 3, &mut bytes).unwrap();
    std::fs::write(&generated, bytes).unwrap();
    files.push(s(&generated).to_string());
    files.push(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged").to_string());
    files
}

#[test]
fn the_output_is_the_same_at_every_jobs_and_chunk_size() {
    let dir = scratch("same");
    let files = inputs(&dir);
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    for format in ["csv", "jsonl"] {
        let mut first: Option<BTreeMap<String, Vec<u8>>> = None;
        let runs: [&[&str]; 4] = [
            &["--jobs", "1"],
            &["--jobs", "2", "--chunk-bytes", "1000"],
            &["--jobs", "3", "--chunk-bytes", "300"],
            &["--jobs", "2", "--chunk-bytes", "70000"],
        ];
        for (i, how) in runs.iter().enumerate() {
            let out = dir.join(format!("{format}-{i}"));
            let mut args = vec!["--format", format, "--part-bytes", "200000"];
            args.extend_from_slice(how);
            table(&args, &files, &out, 0);
            let got = contents(&out);
            assert!(got.keys().any(|k| k.starts_with("nodes/part-00001.")));
            match &first {
                None => first = Some(got),
                Some(f) => {
                    assert_eq!(f.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>());
                    for (name, bytes) in f {
                        assert!(&got[name] == bytes, "{format} {how:?}: {name} differs");
                    }
                }
            }
        }
    }
}

/// `count`'s structures and records of `file`.
fn count(file: &str) -> (u64, u64) {
    let o = run(&["count", file], None);
    let text = String::from_utf8(o.stdout).unwrap();
    let words: Vec<&str> = text.split_whitespace().collect();
    let records = words[0].parse().unwrap();
    let structures = words[2].parse().unwrap();
    (records, structures)
}

#[test]
fn nodes_rows_are_the_structures_count_counts() {
    let dir = scratch("count");
    let files = inputs(&dir);
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let out = dir.join("out");
    table(&["--format", "jsonl", "--jobs", "2"], &files, &out, 0);
    let nodes = rows(&out, "nodes");
    let file_rows = rows(&out, "files");
    assert_eq!(file_rows.len(), files.len());
    for (id, file) in files.iter().enumerate() {
        let (records, structures) = count(file);
        let of_file = nodes.iter().filter(|r| r["file_id"] == id as u64);
        assert_eq!(of_file.count() as u64, structures, "{file}");
        let row = &file_rows[id];
        assert_eq!(row["path"], *file);
        assert_eq!(row["status"], "ok");
        assert_eq!(
            (row["records"].as_u64(), row["structures"].as_u64()),
            (Some(records), Some(structures))
        );
        let level0 = nodes
            .iter()
            .filter(|r| r["file_id"] == id as u64 && r["level"] == 0);
        assert_eq!(level0.count() as u64, records, "{file}");
    }
}

#[test]
fn standard_input_and_archives_give_the_file_s_rows() {
    let dir = scratch("stdin");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    let bytes = std::fs::read(sample).unwrap();
    let out = dir.join("file");
    table(&["--format", "jsonl"], &[sample], &out, 0);
    let file = contents(&out.join("nodes"));
    let o = cli_support::bin()
        .args(["table", "--format", "jsonl", "--chunk-bytes", "500", "-o"])
        .arg(dir.join("stdin"))
        .arg("-")
        .stdin(std::fs::File::open(sample).unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(contents(&dir.join("stdin").join("nodes")), file);
    // A GEDZIP archive of the same file.
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("gedcom.ged", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(&bytes).unwrap();
    let archive = dir.join("sample.gdz");
    std::fs::write(&archive, zip.finish().unwrap().into_inner()).unwrap();
    let out = dir.join("gdz");
    table(&["--format", "jsonl"], &[s(&archive)], &out, 0);
    assert_eq!(contents(&out.join("nodes")), file);
}

#[test]
fn a_bad_file_in_a_directory_is_reported_and_skipped() {
    let dir = scratch("bad");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    std::fs::copy(sample, input.join("a.ged")).unwrap();
    std::fs::write(input.join("b.ged"), b"\x89PNG\r\n\x1a\n not gedcom at all").unwrap();
    std::fs::copy(sample, input.join("sub").join("c.GED")).unwrap();
    std::fs::write(input.join("notes.txt"), b"not an input").unwrap();
    let out = dir.join("out");
    let stderr = table(&["--format", "jsonl"], &[s(&input)], &out, 2);
    assert!(stderr.contains("b.ged"), "{stderr}");
    let files = rows(&out, "files");
    let status: Vec<(String, String)> = files
        .iter()
        .map(|r| {
            let name = Path::new(r["path"].as_str().unwrap()).file_name().unwrap();
            (
                name.to_string_lossy().into_owned(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [("a.ged", "ok"), ("b.ged", "failed"), ("c.GED", "ok")];
    let expected: Vec<_> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(status, expected);
    assert!(files[1]["error"].as_str().is_some_and(|e| !e.is_empty()));
    let failed: Vec<_> = rows(&out, "diagnostics")
        .into_iter()
        .filter(|r| r["kind"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["file_id"], 1);
    // The good files' rows are all there, the same for both.
    let (_, structures) = count(sample);
    let nodes = rows(&out, "nodes");
    for id in [0, 2] {
        let n = nodes.iter().filter(|r| r["file_id"] == id).count() as u64;
        assert_eq!(n, structures);
    }
}

#[test]
fn the_directory_is_written_whole_or_not_at_all() {
    let dir = scratch("whole");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    // A directory that holds something is refused, and left as it was.
    let out = dir.join("full");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("keep"), b"mine").unwrap();
    let stderr = table(&[], &[sample], &out, 2);
    assert!(stderr.contains("not empty"), "{stderr}");
    assert_eq!(contents(&out).len(), 1);
    // An empty one is filled; only the tables asked for are written.
    let out = dir.join("empty");
    std::fs::create_dir_all(&out).unwrap();
    table(&["--tables", "edges,files"], &[sample], &out, 0);
    let names: Vec<String> = contents(&out).into_keys().collect();
    assert_eq!(names, ["edges/part-00000.csv", "files/part-00000.csv"]);
    // Nothing is left beside the outputs.
    let mut beside: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["empty", "full"]);
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_and_arrow_are_the_same_at_every_jobs_and_chunk_size() {
    let dir = scratch("columnar");
    let files = inputs(&dir);
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    for format in ["parquet", "arrow"] {
        let mut first: Option<BTreeMap<String, Vec<u8>>> = None;
        for (i, (jobs, chunk)) in [("1", "10000000"), ("2", "1000"), ("3", "300")]
            .iter()
            .enumerate()
        {
            let out = dir.join(format!("{format}-{i}"));
            let args = [
                "--format",
                format,
                "--jobs",
                jobs,
                "--chunk-bytes",
                chunk,
                "--row-group-bytes",
                "100000",
                "--part-bytes",
                "1000000",
            ];
            table(&args, &files, &out, 0);
            let got = contents(&out);
            assert!(got.contains_key(&format!("nodes/part-00001.{format}")));
            match &first {
                None => first = Some(got),
                Some(f) => assert!(f == &got, "{format} at --jobs {jobs} --chunk-bytes {chunk}"),
            }
        }
    }
    // One table as an Arrow IPC stream on stdout: the same at any jobs.
    let stream = |jobs: &str| {
        let mut args = vec!["table", "--format", "arrow", "--tables", "edges", "-o", "-"];
        args.extend(["--jobs", jobs, "--chunk-bytes", "500"]);
        args.extend(&files);
        let o = run(&args, None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    };
    let one = stream("1");
    assert!(one.len() > 1000);
    assert!(stream("3") == one);
    // Two tables do not fit in one stream.
    let o = run(&["table", "--format", "arrow", "-o", "-", files[0]], None);
    assert_eq!(o.status.code(), Some(2));
}

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_needs_the_feature() {
    let dir = scratch("nofeature");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    let stderr = table(&["--format", "parquet"], &[sample], &dir.join("out"), 2);
    assert!(stderr.contains("--features parquet"), "{stderr}");
    assert!(!dir.join("out").exists());
}

/// The record batches of one table of an output directory, its parts in
/// order, read back with the Parquet or Arrow IPC reader; and how many row
/// groups each Parquet part has.
#[cfg(feature = "parquet")]
fn read_back(dir: &Path, table: &str, format: &str) -> (Vec<arrow_array::RecordBatch>, Vec<usize>) {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let (mut batches, mut groups) = (Vec::new(), Vec::new());
    // BTreeMap: the parts in name order, which is their order.
    for name in contents(&dir.join(table)).keys() {
        let file = std::fs::File::open(dir.join(table).join(name)).unwrap();
        match format {
            "parquet" => {
                let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
                groups.push(builder.metadata().num_row_groups());
                batches.extend(builder.build().unwrap().map(Result::unwrap));
            }
            _ => {
                let reader = arrow_ipc::reader::FileReader::try_new(file, None).unwrap();
                batches.extend(reader.map(Result::unwrap));
            }
        }
    }
    (batches, groups)
}

/// Whether `got` (batches end to end) holds exactly the rows of `want`,
/// column by column.
#[cfg(feature = "parquet")]
fn same_rows(got: &[arrow_array::RecordBatch], want: &arrow_array::RecordBatch) -> bool {
    let mut at = 0;
    for batch in got {
        let n = batch.num_rows();
        if at + n > want.num_rows() || batch.num_columns() != want.num_columns() {
            return false;
        }
        let expected = want.slice(at, n);
        let equal = (0..batch.num_columns())
            .all(|c| batch.column(c).to_data() == expected.column(c).to_data());
        if !equal {
            return false;
        }
        at += n;
    }
    at == want.num_rows()
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_and_arrow_read_back_as_the_library_s_rows() {
    use gedcom_elf::table::arrow::record_batch;
    use gedcom_elf::table::{collect_input, Tables};
    use gedcom_elf::{Input, ReaderConfig};

    let dir = scratch("read_back");
    let file = dir.join("generated.ged");
    let mut bytes = Vec::new();
    generate::generate(6000, 5, &mut bytes).unwrap();
    std::fs::write(&file, &bytes).unwrap();
    let input = Input::new(&bytes).unwrap();
    let (rows, _, _) =
        collect_input(&input, ReaderConfig::new(), 0, Tables::ALL, 1, 1 << 20).unwrap();
    let nodes = record_batch(&rows.nodes).unwrap();
    let events = record_batch(&rows.events).unwrap();
    assert!(nodes.num_rows() > 10_000 && events.num_rows() > 1000);
    for format in ["parquet", "arrow"] {
        let out = dir.join(format);
        // Small chunks, row groups and parts: a row group holds more than
        // one window of 8192 rows, windows span chunks, and `nodes` has
        // several row groups and parts.
        let args = [
            "--format",
            format,
            "--jobs",
            "2",
            "--chunk-bytes",
            "5000",
            "--row-group-bytes",
            "1500000",
            "--part-bytes",
            "4000000",
        ];
        table(&args, &[s(&file)], &out, 0);
        let (got, groups) = read_back(&out, "nodes", format);
        assert!(same_rows(&got, &nodes), "{format}: nodes");
        if format == "parquet" {
            assert!(groups.len() > 1 && groups[0] > 1, "{groups:?}");
        }
        let (got, _) = read_back(&out, "events", format);
        assert!(same_rows(&got, &events), "{format}: events");
    }
}

/// A file whose records have 20 tags of their own (`_T00` ... `_T19`), in
/// turn, again and again: more partitions than are written at once.
fn many_tags(dir: &Path) -> PathBuf {
    let mut text = String::from("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 CHAR UTF-8\n");
    for i in 0..400 {
        let tag = format!("_T{:02}", (i * 7) % 20);
        text += &format!("0 @X{i}@ {tag}\n1 NOTE note {i}\n2 CONT more\n");
        if i % 50 == 0 {
            text += &format!("0 @I{i}@ INDI\n1 NAME A /B{i}/\n1 BIRT\n2 DATE 1 JAN 1900\n");
        }
    }
    text += "0 TRLR\n";
    let file = dir.join("many_tags.ged");
    std::fs::write(&file, text).unwrap();
    file
}

/// The JSON Lines rows of a partitioned table: each partition's rows, its
/// value (the directory's name after `column=`) put back in as `column`.
fn partition_rows(
    dir: &Path,
    table: &str,
    column: &str,
) -> BTreeMap<String, Vec<serde_json::Value>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir.join(table)).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let value = name
            .strip_prefix(&format!("{column}="))
            .unwrap_or_else(|| panic!("{table}/{name} is not a partition of {column}"));
        assert!(path.is_dir(), "{table}/{name}");
        let rows: Vec<serde_json::Value> = contents(&path)
            .values()
            .flat_map(|b| {
                b.split(|&c| c == b'\n')
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
            })
            .map(|l| {
                let mut row: serde_json::Value = serde_json::from_slice(l).unwrap();
                assert!(row.get(column).is_none(), "{column} in the file's rows");
                let v = match value.parse::<i64>() {
                    Ok(n) if column == "file_id" => serde_json::Value::from(n),
                    _ => serde_json::Value::from(value),
                };
                row.as_object_mut().unwrap().insert(column.to_string(), v);
                row
            })
            .collect();
        out.insert(value.to_string(), rows);
    }
    out
}

/// The rows of an unpartitioned table, by their value of `column`, in order.
fn rows_by(dir: &Path, table: &str, column: &str) -> BTreeMap<String, Vec<serde_json::Value>> {
    let mut out: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    for row in rows(dir, table) {
        let key = match &row[column] {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        out.entry(key).or_default().push(row);
    }
    out
}

/// Whether every row (as a set of columns) is the same.
fn same_json(a: &[serde_json::Value], b: &[serde_json::Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[test]
fn partitions_hold_the_unpartitioned_rows_the_same_at_every_jobs_and_chunk_size() {
    let dir = scratch("partitioned");
    let mut files = inputs(&dir);
    files.push(s(&many_tags(&dir)).to_string());
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let plain = dir.join("plain");
    table(
        &["--format", "jsonl", "--part-bytes", "200000"],
        &files,
        &plain,
        0,
    );
    for (by, column, tables) in [
        ("record_tag", "record_tag", &["nodes", "events"][..]),
        (
            "file",
            "file_id",
            &["nodes", "files", "diagnostics", "events", "edges"][..],
        ),
    ] {
        for format in ["csv", "jsonl"] {
            let mut first: Option<BTreeMap<String, Vec<u8>>> = None;
            let runs: [&[&str]; 3] = [
                &["--jobs", "1"],
                &["--jobs", "2", "--chunk-bytes", "1000"],
                &["--jobs", "3", "--chunk-bytes", "300"],
            ];
            for (i, how) in runs.iter().enumerate() {
                let out = dir.join(format!("{by}-{format}-{i}"));
                let mut args = vec!["--format", format, "--partition-by", by];
                args.extend(["--part-bytes", "200000"]);
                args.extend_from_slice(how);
                table(&args, &files, &out, 0);
                let got = contents(&out);
                match &first {
                    None => first = Some(got),
                    Some(f) => {
                        assert_eq!(f.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>());
                        for (name, bytes) in f {
                            assert!(&got[name] == bytes, "{by} {format} {how:?}: {name} differs");
                        }
                    }
                }
            }
            let got = first.unwrap();
            if format == "csv" {
                // The header has no partition column.
                let first = if by == "file" {
                    "file_id=0"
                } else {
                    "record_tag=INDI"
                };
                let header = &got[&format!("nodes/{first}/part-00000.csv")];
                let header = String::from_utf8_lossy(header.split(|&c| c == b'\n').next().unwrap());
                assert!(!header.split(',').any(|c| c == column), "{header}");
                continue;
            }
            // The partitions hold the unpartitioned rows, in order.
            let out = dir.join(format!("{by}-{format}-0"));
            for table in tables {
                let want = rows_by(&plain, table, column);
                let got = partition_rows(&out, table, column);
                assert_eq!(
                    want.keys().collect::<Vec<_>>(),
                    got.keys().collect::<Vec<_>>()
                );
                for (key, rows) in &want {
                    assert!(same_json(rows, &got[key]), "{by}: {table} {key}");
                }
            }
        }
    }
    // Tables without the column are not partitioned.
    let out = dir.join("record_tag-jsonl-0");
    assert!(out.join("individuals/part-00000.jsonl").is_file());
    assert!(out.join("files/part-00000.jsonl").is_file());
    // The record tags of its own, more than are written at once: closed
    // and opened again, a new part each time.
    let parts = contents(&out.join("nodes/record_tag=_T03"));
    assert!(parts.len() > 1, "{:?}", parts.keys());
}

#[cfg(feature = "parquet")]
#[test]
fn partitions_are_refused_on_standard_output() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    let o = run(
        &[
            "table",
            "--format",
            "arrow",
            "--tables",
            "nodes",
            "--partition-by",
            "file",
            "-o",
            "-",
            sample,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--partition-by"), "{stderr}");
    assert!(o.stdout.is_empty());
}

#[cfg(feature = "parquet")]
#[test]
fn partitioned_parquet_and_arrow_are_the_same_at_every_jobs_and_chunk_size() {
    let dir = scratch("partitioned_columnar");
    let mut files = inputs(&dir);
    files.push(s(&many_tags(&dir)).to_string());
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    for by in ["record_tag", "file"] {
        for format in ["parquet", "arrow"] {
            let mut first: Option<BTreeMap<String, Vec<u8>>> = None;
            for (i, (jobs, chunk)) in [("1", "10000000"), ("2", "1000"), ("3", "300")]
                .iter()
                .enumerate()
            {
                let out = dir.join(format!("{by}-{format}-{i}"));
                let args = [
                    "--format",
                    format,
                    "--partition-by",
                    by,
                    "--jobs",
                    jobs,
                    "--chunk-bytes",
                    chunk,
                    "--row-group-bytes",
                    "100000",
                    "--part-bytes",
                    "1000000",
                ];
                table(&args, &files, &out, 0);
                let got = contents(&out);
                let column = if by == "file" {
                    "file_id=0"
                } else {
                    "record_tag=INDI"
                };
                assert!(got.contains_key(&format!("nodes/{column}/part-00000.{format}")));
                match &first {
                    None => first = Some(got),
                    Some(f) => assert!(
                        f == &got,
                        "{by} {format} at --jobs {jobs} --chunk-bytes {chunk}"
                    ),
                }
            }
        }
    }
    // The partition column is not in the files.
    let out = dir.join("record_tag-parquet-0");
    let (batches, _) = read_back(&out.join("nodes"), "record_tag=INDI", "parquet");
    let schema = batches[0].schema();
    assert!(schema.field_with_name("record_tag").is_err());
    assert!(schema.field_with_name("tag").is_ok());
}

/// A GEDZIP archive of `bytes` whose deflated `gedcom.ged` is damaged in
/// its middle.
fn damaged_gdz(bytes: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("gedcom.ged", deflated).unwrap();
    zip.write_all(bytes).unwrap();
    let mut archive = zip.finish().unwrap().into_inner();
    // The local header (30 bytes and the name) comes first, the central
    // directory (about 80 bytes) last: the middle is deflated data.
    assert!(archive.len() > 4000, "{} bytes", archive.len());
    let middle = archive.len() / 2;
    for b in &mut archive[middle..middle + 64] {
        *b ^= 0x5a;
    }
    archive
}

#[test]
fn a_file_that_stops_being_readable_fails_alone() {
    let dir = scratch("damaged");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    std::fs::copy(sample, input.join("a.ged")).unwrap();
    let mut bytes = Vec::new();
    generate::generate(1500, 3, &mut bytes).unwrap();
    std::fs::write(dir.join("b.ged"), &bytes).unwrap();
    std::fs::write(input.join("b.gdz"), damaged_gdz(&bytes)).unwrap();
    std::fs::copy(sample, input.join("c.ged")).unwrap();
    for format in ["jsonl", "csv"] {
        let out = dir.join(format!("out-{format}"));
        let stderr = table(&["--format", format, "--jobs", "2"], &[s(&input)], &out, 2);
        assert!(stderr.contains("b.gdz"), "{stderr}");
        if format == "csv" {
            continue;
        }
        let files = rows(&out, "files");
        let status: Vec<&str> = files
            .iter()
            .map(|r| r["status"].as_str().unwrap())
            .collect();
        assert_eq!(status, ["ok", "failed", "ok"]);
        let error = files[1]["error"].as_str().unwrap();
        assert!(
            error.contains("GEDZIP") || error.contains("gedcom.ged"),
            "{error}"
        );
        assert!(files[1]["lines"].is_null());
        let failed: Vec<_> = rows(&out, "diagnostics")
            .into_iter()
            .filter(|r| r["kind"] == "failed")
            .collect();
        assert_eq!(failed.len(), 1);
        assert_eq!(
            (&failed[0]["file_id"], &failed[0]["message"]),
            (&1.into(), &error.into())
        );
        // The good files' rows are all there.
        let (_, structures) = count(sample);
        let nodes = rows(&out, "nodes");
        for id in [0, 2] {
            let n = nodes.iter().filter(|r| r["file_id"] == id).count() as u64;
            assert_eq!(n, structures);
        }
        // The damaged file's rows before its failure are kept: those of
        // the file as it was, from its start. (An archive's gedcom.ged is
        // unpacked whole before it is read: a damaged one gives none.)
        let whole = dir.join("whole");
        let _ = std::fs::remove_dir_all(&whole);
        table(&["--format", "jsonl"], &[s(&dir.join("b.ged"))], &whole, 0);
        let strip = |mut r: serde_json::Value| {
            r.as_object_mut().unwrap().remove("file_id");
            r
        };
        let got: Vec<_> = nodes
            .into_iter()
            .filter(|r| r["file_id"] == 1)
            .map(strip)
            .collect();
        let want: Vec<_> = rows(&whole, "nodes").into_iter().map(strip).collect();
        assert!(got.len() < want.len());
        assert!(same_json(&got, &want[..got.len()]));
        assert_eq!(files[1]["structures"], got.len());
    }
}

#[test]
fn many_small_files_read_side_by_side_give_the_sequential_output() {
    let dir = scratch("small_files");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    // Copies and variants of the corpus files and the sample, a GEDZIP, a
    // file that is not GEDCOM, and a generated file larger than a chunk
    // among them.
    let mut sources: Vec<Vec<u8>> = common::shared_corpus()
        .map(|d| {
            common::ged_files(&d)
                .into_iter()
                .map(|(n, _)| std::fs::read(n).unwrap())
                .filter(|b| b.len() < 1 << 20)
                .collect()
        })
        .unwrap_or_default();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sample.ged");
    sources.push(std::fs::read(sample).unwrap());
    let mut n = 0;
    for round in 0..3 {
        for bytes in &sources {
            let mut bytes = bytes.clone();
            if round % 2 == 1 {
                // A variant: some bytes of the middle changed.
                let middle = bytes.len() / 2;
                let end = (middle + 40).min(bytes.len());
                for b in &mut bytes[middle..end] {
                    if b.is_ascii_lowercase() {
                        *b = b'x';
                    }
                }
            }
            let sub = if n % 3 == 0 { "sub/" } else { "" };
            std::fs::write(input.join(format!("{sub}f{n:03}.ged")), bytes).unwrap();
            n += 1;
        }
    }
    std::fs::write(input.join("g-bad.ged"), b"not gedcom").unwrap();
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("gedcom.ged", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(&sources[sources.len() - 1]).unwrap();
    std::fs::write(
        input.join("g-archive.gdz"),
        zip.finish().unwrap().into_inner(),
    )
    .unwrap();
    let mut big = Vec::new();
    generate::generate(20000, 3, &mut big).unwrap();
    assert!(big.len() > 2 << 20, "{} bytes", big.len());
    std::fs::write(input.join("m-big.ged"), big).unwrap();
    let formats: &[&str] = if cfg!(feature = "parquet") {
        &["jsonl", "parquet"]
    } else {
        &["jsonl"]
    };
    for format in formats {
        // The sequential order: every file larger than a chunk of 100
        // bytes, so each is read alone, its chunks on the threads.
        let out = dir.join(format!("{format}-sequential"));
        let args = ["--format", format, "--jobs", "2", "--chunk-bytes", "100"];
        table(&args, &[s(&input)], &out, 2);
        let sequential = contents(&out);
        assert!(sequential.len() >= 8);
        for jobs in ["1", "2", "3"] {
            let out = dir.join(format!("{format}-{jobs}"));
            table(&["--format", format, "--jobs", jobs], &[s(&input)], &out, 2);
            let got = contents(&out);
            assert_eq!(
                sequential.keys().collect::<Vec<_>>(),
                got.keys().collect::<Vec<_>>()
            );
            for (name, bytes) in &sequential {
                assert!(
                    &got[name] == bytes,
                    "{format} --jobs {jobs}: {name} differs"
                );
            }
        }
    }
    let files = rows(&dir.join("jsonl-2"), "files");
    assert_eq!(files.len(), n + 3);
    let failed: Vec<_> = files.iter().filter(|r| r["status"] == "failed").collect();
    assert_eq!(failed.len(), 1);
    assert!(failed[0]["path"].as_str().unwrap().ends_with("g-bad.ged"));
}
