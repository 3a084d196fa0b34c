//! `gedcom-elf table FILE... -o DIR`: the library's `table` rows of every
//! input, as CSV or JSON Lines, a directory per table, part files in each.
//!
//! Each input is read through `drive::run` (a file's chunks on `--jobs`
//! threads, standard input in batches); a chunk's rows are made and
//! encoded on its thread, and appended in document order to the table's
//! current part file, which is closed for the next (`part-00001.csv`, ...)
//! once it holds `--part-bytes`, at a row's end. The output therefore
//! depends only on the inputs, never on `--jobs` or `--chunk-bytes`. An
//! input that cannot be read is a `failed` row of `files` and of
//! `diagnostics` (the rows read before its failure stay) and the next one
//! is read. Everything is written into a directory beside DIR, renamed to
//! DIR at the end: DIR is whole or absent.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
#[cfg(feature = "parquet")]
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(feature = "parquet")]
use gedcom_elf::table::{arrow::BatchBuilder, NodeRow};

use gedcom_elf::table::{
    write_csv, write_csv_header, write_jsonl, Collector, DiagnosticRow, FileRow, Row, Rows, Table,
    Tables,
};
use gedcom_elf::{Diagnostic, Error, Reader};

use crate::cli::{ReadOpts, Settings, TableArgs};
use crate::drive::{self, Source, Work};
use crate::output::pending;
use crate::report::{say, Fail, Report};

/// A part file is closed for the next once it holds this much (unless
/// `--part-bytes`).
const PART_BYTES: usize = 256 << 20;

#[cfg(feature = "parquet")]
#[path = "table_columnar.rs"]
mod columnar;

/// A Parquet row group is closed once its rows' estimated size reaches
/// this (unless `--row-group-bytes`).
#[cfg(feature = "parquet")]
const ROW_GROUP_BYTES: usize = 96 << 20;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Jsonl,
    /// Parquet or Arrow IPC: rows handed to the sink, written by columns.
    #[cfg(feature = "parquet")]
    Columnar(columnar::Kind),
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            _ => "csv",
        }
    }
}

/// One table's rows of a chunk, encoded, and where each row ends.
#[derive(Default)]
struct Encoded {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Encoded {
    fn push<R: Row>(&mut self, row: &R, format: Format) {
        // Writing to a Vec cannot fail.
        let _ = match format {
            Format::Jsonl => write_jsonl(&mut self.bytes, std::slice::from_ref(row)),
            _ => write_csv(&mut self.bytes, std::slice::from_ref(row), false),
        };
        self.ends.push(self.bytes.len());
    }
}

fn encode<R: Row>(rows: &[R], format: Format) -> Encoded {
    let mut e = Encoded::default();
    rows.iter().for_each(|row| e.push(row, format));
    e
}

/// A chunk's output: its tables' rows encoded, and its counts.
struct Chunk {
    tables: Vec<(Table, Encoded)>,
    /// Its tables' record batches, for a columnar format.
    #[cfg(feature = "parquet")]
    batches: Vec<gedcom_elf::table::arrow::SizedBatch>,
    records: u64,
    structures: u64,
}

/// A file's rows, chunk by chunk.
struct Tabulate {
    collector: Collector,
    tables: Tables,
    format: Format,
    /// The most `nodes` rows a chunk had so far, then the most bytes of
    /// text each column had.
    #[cfg(feature = "parquet")]
    room: Vec<AtomicUsize>,
}

impl Work for Tabulate {
    type Out = Chunk;

    fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        self.collector.prepare(reader)
    }

    fn run(&self, reader: &mut Reader<'_>) -> (Chunk, Option<Error>) {
        let mut rows = Rows::default();
        let f = self.format;
        #[cfg(feature = "parquet")]
        if let Format::Columnar(_) = f {
            // The nodes go straight into their columns.
            // Room for what the largest chunk so far had in each column:
            // the columns are seldom copied as they grow.
            let room: Vec<usize> = self
                .room
                .iter()
                .map(|r| r.load(Ordering::Relaxed))
                .collect();
            let (rows_room, text_room) = room.split_first().unwrap_or((&0, &[]));
            let mut nodes = BatchBuilder::<NodeRow>::with_capacity(*rows_room, text_room);
            let error = self
                .collector
                .collect_with(reader, &mut rows, |n| nodes.push(n));
            let used = std::iter::once(nodes.len()).chain(nodes.text_bytes());
            for (r, n) in self.room.iter().zip(used) {
                r.fetch_max(n, Ordering::Relaxed);
            }
            let chunk = Chunk {
                tables: Vec::new(),
                batches: columnar::batches(self.tables, nodes, &rows),
                records: rows.records,
                structures: rows.structures,
            };
            return (chunk, error);
        }
        // The nodes encoded as they come.
        let mut nodes = Encoded::default();
        let error = self
            .collector
            .collect_with(reader, &mut rows, |n| nodes.push(n, f));
        let mut nodes = Some(nodes);
        let tables = self
            .tables
            .iter()
            .filter_map(|t| {
                let e = match t {
                    Table::Nodes => nodes.take()?,
                    Table::Individuals => encode(&rows.individuals, f),
                    Table::Families => encode(&rows.families, f),
                    Table::Edges => encode(&rows.edges, f),
                    Table::Events => encode(&rows.events, f),
                    Table::Citations => encode(&rows.citations, f),
                    Table::Files | Table::Diagnostics => return None,
                };
                Some((t, e))
            })
            .collect();
        let chunk = Chunk {
            tables,
            #[cfg(feature = "parquet")]
            batches: Vec::new(),
            records: rows.records,
            structures: rows.structures,
        };
        (chunk, error)
    }
}

/// One table's part files.
struct Parts {
    dir: PathBuf,
    table: Table,
    format: Format,
    limit: usize,
    next: usize,
    file: Option<BufWriter<File>>,
    written: usize,
}

impl Parts {
    fn new(root: &Path, table: Table, format: Format, limit: usize) -> io::Result<Parts> {
        let dir = root.join(table.name());
        fs::create_dir(&dir)?;
        Ok(Parts {
            dir,
            table,
            format,
            limit,
            next: 0,
            file: None,
            written: 0,
        })
    }

    /// Closes the part being written and opens the next, its header in it.
    fn open_next(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.close()?;
        let name = format!("part-{:05}.{}", self.next, self.format.extension());
        self.next += 1;
        let mut file = BufWriter::with_capacity(1 << 20, File::create(self.dir.join(name))?);
        self.written = 0;
        if self.format == Format::Csv {
            write_csv_header(&mut file, self.table)?;
        }
        Ok(self.file.insert(file))
    }

    fn write(&mut self, e: &Encoded) -> io::Result<()> {
        let mut start = 0;
        for &end in &e.ends {
            let file = match &mut self.file {
                Some(f) if self.written < self.limit => f,
                _ => self.open_next()?,
            };
            file.write_all(&e.bytes[start..end])?;
            self.written += end - start;
            start = end;
        }
        Ok(())
    }

    fn close(&mut self) -> io::Result<()> {
        match self.file.take() {
            Some(f) => f.into_inner().map_err(|e| e.into_error())?.sync_all(),
            None => Ok(()),
        }
    }

    /// Closes the last part; a table with no rows gets one part all the
    /// same (a CSV one with its header), so that every table's directory
    /// reads.
    fn finish(&mut self) -> io::Result<()> {
        if self.next == 0 {
            self.open_next()?;
        }
        self.close()
    }
}

/// The temporary directory beside DIR: removed when dropped, unless renamed.
struct Staging {
    temp: PathBuf,
    done: bool,
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_dir_all(&self.temp);
            pending(&self.temp, false);
        }
    }
}

/// Refuses a DIR that exists and is not an empty directory, and makes the
/// temporary directory beside it (and the directories above it).
fn stage(out: &Path) -> Result<Staging, String> {
    match fs::read_dir(out).map(|mut entries| entries.next().is_none()) {
        Ok(true) => {}
        Ok(false) => return Err("exists and is not empty: name a new directory".into()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) if out.exists() => return Err(format!("cannot use it: {e}")),
        Err(e) => return Err(e.to_string()),
    }
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.ok_or("names no directory")?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let temp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    fs::create_dir(&temp).map_err(|e| format!("cannot create {}: {e}", temp.display()))?;
    pending(&temp, true);
    Ok(Staging { temp, done: false })
}

/// The inputs: files as given, directories' `*.ged` and `*.gdz` files
/// (recursively, sorted by path), `-`; a directory that cannot be listed is
/// an input with its error.
fn inputs(args: &[String]) -> Vec<(String, Option<String>)> {
    fn walk(dir: &Path, out: &mut Vec<(String, Option<String>)>) {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return out.push((dir.display().to_string(), Some(e.to_string()))),
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for path in paths {
            let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            let ext = path.extension().map(|e| e.to_ascii_lowercase());
            if is_dir {
                walk(&path, out);
            } else if (ext.as_deref() == Some("ged".as_ref())
                || ext.as_deref() == Some("gdz".as_ref()))
                && path.is_file()
            {
                out.push((path.display().to_string(), None));
            }
        }
    }
    let mut out = Vec::new();
    for arg in args {
        match arg != "-" && Path::new(arg).is_dir() {
            true => walk(Path::new(arg), &mut out),
            false => out.push((arg.clone(), None)),
        }
    }
    out
}

/// A failure's line and message.
fn failure(fail: &Fail) -> (Option<u64>, String) {
    match fail {
        Fail::Input(e) => (e.position().map(|p| p.line), e.message().to_string()),
        Fail::Write(e) => (e.line(), e.message().to_string()),
        Fail::Output(_, e) => (None, format!("cannot write: {e}")),
        Fail::NotFound(m) | Fail::Other(m) => (None, m.clone()),
    }
}

/// The output: every table's parts, in the temporary directory (or a
/// stream on standard output).
struct Sink {
    parts: Vec<Parts>,
    format: Format,
    #[cfg(feature = "parquet")]
    columnar: Vec<columnar::Out>,
    /// The tables asked for.
    #[cfg(feature = "parquet")]
    tables: Tables,
}

impl Sink {
    fn parts(&mut self, table: Table) -> Option<&mut Parts> {
        self.parts.iter_mut().find(|p| p.table == table)
    }

    /// Writes a chunk's rows.
    fn chunk(&mut self, chunk: Chunk) -> io::Result<()> {
        for (table, e) in &chunk.tables {
            if let Some(p) = self.parts(*table) {
                p.write(e)?;
            }
        }
        #[cfg(feature = "parquet")]
        self.columnar(chunk.batches)?;
        Ok(())
    }

    /// Writes rows of `files` and `diagnostics`.
    fn file_rows(&mut self, rows: Rows) -> io::Result<()> {
        #[cfg(feature = "parquet")]
        if let Format::Columnar(_) = self.format {
            return self.columnar(columnar::file_batches(self.tables, &rows));
        }
        let (files, diagnostics) = (
            encode(&rows.files, self.format),
            encode(&rows.diagnostics, self.format),
        );
        if let Some(p) = self.parts(Table::Diagnostics) {
            p.write(&diagnostics)?;
        }
        match self.parts(Table::Files) {
            Some(p) => p.write(&files),
            None => Ok(()),
        }
    }

    fn diagnostics(&mut self, file_id: u32, ds: &[Diagnostic]) -> io::Result<()> {
        let diagnostics = ds.iter().map(|d| DiagnosticRow::new(file_id, d)).collect();
        self.file_rows(Rows {
            diagnostics,
            ..Rows::default()
        })
    }

    /// Writes batches, each to its table's output.
    #[cfg(feature = "parquet")]
    fn columnar(&mut self, batches: Vec<gedcom_elf::table::arrow::SizedBatch>) -> io::Result<()> {
        for batch in batches {
            let table = batch.table;
            if let Some(out) = self.columnar.iter_mut().find(|o| o.table() == table) {
                out.take(batch)?;
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        for p in &mut self.parts {
            p.finish()?;
        }
        #[cfg(feature = "parquet")]
        for out in &mut self.columnar {
            out.finish()?;
        }
        Ok(())
    }
}

/// What reading one input left: its `files` row.
fn tabulate(
    settings: &Settings,
    args: &TableArgs,
    sink: &mut Sink,
    (file_id, path): (u32, &str),
    tables: Tables,
) -> Result<FileRow, Fail> {
    let source = match path {
        "-" => Source::Stdin,
        _ => Source::File(path.to_string()),
    };
    let mut report = Report::new(source.name(), settings);
    let mut work = Tabulate {
        collector: Collector::new(file_id, tables),
        tables,
        format: sink.format,
        #[cfg(feature = "parquet")]
        room: (0..=NodeRow::COLUMNS.len())
            .map(|_| AtomicUsize::new(0))
            .collect(),
    };
    let out_fail = |e: io::Error| Fail::Output(args.output.clone(), e);
    let (mut records, mut structures, mut diagnostics) = (0, 0, 0u64);
    let result = drive::run(settings, &source, &mut work, |chunk, ds| {
        report.diagnostics(&ds);
        diagnostics += ds.len() as u64;
        records += chunk.records;
        structures += chunk.structures;
        sink.diagnostics(file_id, &ds).map_err(out_fail)?;
        sink.chunk(chunk).map_err(out_fail)
    });
    let mut row = FileRow {
        file_id,
        path: path.to_string(),
        version: work.collector.version().map(str::to_string),
        records,
        structures,
        status: "ok",
        ..FileRow::default()
    };
    let row = match result {
        Ok(done) => {
            report.diagnostics(&done.summary.diagnostics);
            let end = &done.summary.diagnostics;
            sink.diagnostics(file_id, end).map_err(out_fail)?;
            row.size = Some(done.bytes);
            row.encoding = done.encoding.map(|e| e.encoding.name().to_string());
            row.lines = Some(done.summary.stats.lines);
            row.diagnostics = diagnostics + end.len() as u64;
            row
        }
        Err(f @ Fail::Output(..)) => return Err(f),
        Err(fail) => {
            let (line, message) = failure(&fail);
            say(&source.name(), line, "error", &message);
            let failed = DiagnosticRow {
                file_id,
                line: line.unwrap_or(0),
                byte: None,
                kind: "failed".into(),
                severity: "error",
                message: message.clone(),
            };
            sink.file_rows(Rows {
                diagnostics: vec![failed],
                ..Rows::default()
            })
            .map_err(out_fail)?;
            row.diagnostics = diagnostics;
            row.status = "failed";
            row.error = Some(message);
            row
        }
    };
    // The counts of the diagnostics not shown.
    report.finish(Ok(()));
    Ok(row)
}

/// `table`: exit 0 when every input was read, 2 when one could not be (the
/// others are written) or the output could not be.
pub fn run(args: &TableArgs) -> ExitCode {
    let settings = Settings {
        read: ReadOpts {
            strict: false,
            encoding: args.encoding.clone(),
            // Each file's own HEAD decides.
            gedcom_version: None,
        },
        jobs: args.jobs.clone(),
        diag: args.diag.clone(),
    };
    let tables = match args.tables.is_empty() {
        true => Tables::ALL,
        false => args
            .tables
            .iter()
            .filter_map(|t| Table::from_name(t))
            .collect(),
    };
    let refuse = |message: &str| {
        say(&args.output, None, "error", message);
        ExitCode::from(2)
    };
    let to_stdout = args.output == "-";
    let format = match (args.format.as_str(), to_stdout) {
        ("jsonl", false) => Format::Jsonl,
        ("csv", false) => Format::Csv,
        #[cfg(feature = "parquet")]
        ("parquet", false) => Format::Columnar(columnar::Kind::Parquet),
        #[cfg(feature = "parquet")]
        ("arrow", false) => Format::Columnar(columnar::Kind::ArrowFiles),
        #[cfg(feature = "parquet")]
        ("arrow", true) if tables.iter().count() == 1 => {
            Format::Columnar(columnar::Kind::ArrowStdout)
        }
        #[cfg(not(feature = "parquet"))]
        ("parquet" | "arrow", _) => return refuse(
            "this gedcom-elf was built without Parquet and Arrow: build it with --features parquet",
        ),
        #[cfg(feature = "parquet")]
        ("arrow", true) => {
            return refuse("-o - writes one Arrow IPC stream: name one table (--tables nodes)")
        }
        _ => return refuse("-o - is for --format arrow; the other formats write a directory"),
    };
    let mut staging = match to_stdout {
        true => None,
        false => match stage(Path::new(&args.output)) {
            Ok(s) => Some(s),
            Err(message) => return refuse(&message),
        },
    };
    let result = (|| -> Result<bool, Fail> {
        let out_fail = |e: io::Error| Fail::Output(args.output.clone(), e);
        let root = staging.as_ref().map(|s| s.temp.as_path());
        let limit = args.part_bytes.unwrap_or(PART_BYTES);
        let mut sink = Sink {
            parts: Vec::new(),
            format,
            #[cfg(feature = "parquet")]
            columnar: Vec::new(),
            #[cfg(feature = "parquet")]
            tables,
        };
        match (format, root) {
            #[cfg(feature = "parquet")]
            (Format::Columnar(kind), root) => {
                let limits = columnar::Limits {
                    part: limit,
                    row_group: args.row_group_bytes.unwrap_or(ROW_GROUP_BYTES),
                    jobs: settings.jobs(),
                };
                sink.columnar = columnar::outs(root, tables, kind, limits).map_err(out_fail)?;
            }
            (_, Some(root)) => {
                let parts = tables.iter().map(|t| Parts::new(root, t, format, limit));
                sink.parts = parts.collect::<io::Result<Vec<_>>>().map_err(out_fail)?;
            }
            (_, None) => return Err(Fail::Other("no output directory".into())),
        }
        let mut failed = false;
        for (i, (path, error)) in inputs(&args.files).into_iter().enumerate() {
            let file_id = u32::try_from(i).map_err(|_| Fail::Other("too many inputs".into()))?;
            let row = match error {
                None => tabulate(&settings, args, &mut sink, (file_id, &path), tables)?,
                Some(message) => {
                    say(&path, None, "error", &message);
                    FileRow {
                        file_id,
                        path,
                        status: "failed",
                        error: Some(message),
                        ..FileRow::default()
                    }
                }
            };
            failed |= row.status != "ok";
            let files = vec![row];
            sink.file_rows(Rows {
                files,
                ..Rows::default()
            })
            .map_err(out_fail)?;
        }
        sink.finish().map_err(out_fail)?;
        if let Some(staging) = &mut staging {
            fs::rename(&staging.temp, &args.output).map_err(out_fail)?;
            staging.done = true;
            pending(&staging.temp, false);
        }
        Ok(failed)
    })();
    match result {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(2),
        Err(fail) => {
            let (_, message) = failure(&fail);
            let name = match &fail {
                Fail::Output(name, _) => name.as_str(),
                _ => "gedcom-elf table",
            };
            say(name, None, "error", &message);
            ExitCode::from(fail.status().max(2))
        }
    }
}
