//! `gedcom-elf table FILE... -o DIR`: the library's `table` rows of every
//! input, as CSV or JSON Lines, a directory per table, part files in each.
//!
//! Each input is read through `drive::run` (a file's chunks on `--jobs`
//! threads, standard input in batches; small files, of at most one chunk,
//! next to each other, side by side, each whole on one worker of the
//! crate's ordered pool, `par::map_in_order`, their rows written in their
//! order as if read one after another); a chunk's rows are made and
//! encoded on its thread, and appended in document order to the table's
//! current part file, which is closed for the next (`part-00001.csv`, ...)
//! once it holds `--part-bytes`, at a row's end. The output therefore
//! depends only on the inputs, never on `--jobs` or `--chunk-bytes`. An
//! input that cannot be read is a `failed` row of `files` and of
//! `diagnostics` (the rows read before its failure stay) and the next one
//! is read. Everything is written into a directory beside DIR, renamed to
//! DIR at the end: DIR is whole or absent.
//!
//! With `--partition-by`, a chunk's rows of a table with the partition
//! column are noted, on the chunk's thread, as runs of one value ([`Runs`]),
//! and encoded without the column; the sink writes each run, in order, to
//! its partition's parts (`TABLE/COLUMN=VALUE/part-*`), at most
//! [`OPEN_PARTITIONS`] of a table open at once (the one that had rows the
//! longest ago closed for another), a file's partitions closed after its
//! rows. Every decision is taken in the rows' order, so partitioned output
//! too is the same at every `--jobs` and `--chunk-bytes`.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
#[cfg(feature = "parquet")]
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(feature = "parquet")]
use gedcom_elf::table::{arrow::BatchBuilder, NodeRow};

use gedcom_elf::table::{
    write_csv_header_except, write_csv_row, write_jsonl_row, Cell, Collector, DiagnosticRow,
    FileRow, PartitionBy, Row, Rows, Table, Tables,
};
use gedcom_elf::{Diagnostic, Error, Reader};

use crate::cli::{JobOpts, ReadOpts, Settings, TableArgs};
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
    /// Appends `row` without the column at index `skip` (a partition's).
    fn push<R: Row>(&mut self, row: &R, format: Format, skip: Option<usize>) {
        // Writing to a Vec cannot fail.
        let _ = match format {
            Format::Jsonl => write_jsonl_row(&mut self.bytes, row, skip),
            _ => write_csv_row(&mut self.bytes, row, skip),
        };
        self.ends.push(self.bytes.len());
    }
}

/// A partition column's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Null,
    Int(i64),
    Text(Box<str>),
}

impl Key {
    fn new(cell: Cell<'_>) -> Key {
        match cell {
            Cell::Null => Key::Null,
            Cell::Int(n) => Key::Int(n),
            Cell::Text(s) => Key::Text(s.into()),
        }
    }

    fn is(&self, cell: Cell<'_>) -> bool {
        match (self, cell) {
            (Key::Null, Cell::Null) => true,
            (Key::Int(a), Cell::Int(b)) => *a == b,
            (Key::Text(a), Cell::Text(b)) => **a == *b,
            _ => false,
        }
    }

    fn cell(&self) -> Cell<'_> {
        match self {
            Key::Null => Cell::Null,
            Key::Int(n) => Cell::Int(*n),
            Key::Text(s) => Cell::Text(s),
        }
    }
}

/// A partitioned table's rows of a chunk, as runs of rows of one partition:
/// each run's partition value and the end of its rows. Empty for a table
/// written unpartitioned.
#[derive(Default)]
struct Runs(Vec<(Key, usize)>);

impl Runs {
    /// Notes that the rows up to `end` include `row`, the last one, whose
    /// partition column is at `column` (none: not partitioned).
    fn note<R: Row>(&mut self, row: &R, column: Option<usize>, end: usize) {
        let Some(c) = column else {
            return;
        };
        let cell = row.cell(c);
        match self.0.last_mut() {
            Some((key, last)) if key.is(cell) => *last = end,
            _ => self.0.push((Key::new(cell), end)),
        }
    }
}

/// A chunk's rows of one table: encoded (CSV, JSON Lines) or a record
/// batch (Parquet, Arrow).
enum Data {
    Encoded(Encoded),
    #[cfg(feature = "parquet")]
    Batch(gedcom_elf::table::arrow::SizedBatch),
}

impl Data {
    fn rows(&self) -> usize {
        match self {
            Data::Encoded(e) => e.ends.len(),
            #[cfg(feature = "parquet")]
            Data::Batch(b) => b.batch.num_rows(),
        }
    }
}

/// A chunk's rows of one table, and their partitions.
struct Piece {
    table: Table,
    data: Data,
    runs: Runs,
}

/// `rows` as a piece of their table; `None` for no rows.
fn piece<R: Row>(rows: &[R], format: Format, by: Option<PartitionBy>) -> Option<Piece> {
    if rows.is_empty() {
        return None;
    }
    let column = by.and_then(|p| p.column_index(R::TABLE));
    let mut runs = Runs::default();
    for (i, row) in rows.iter().enumerate() {
        runs.note(row, column, i + 1);
    }
    let data = match format {
        #[cfg(feature = "parquet")]
        Format::Columnar(_) => Data::Batch(columnar::batch(rows)?),
        _ => {
            let mut e = Encoded::default();
            rows.iter().for_each(|row| e.push(row, format, column));
            Data::Encoded(e)
        }
    };
    Some(Piece {
        table: R::TABLE,
        data,
        runs,
    })
}

/// The pieces of `rows` of `tables`, `nodes` given (the collector hands
/// its rows over one by one), in the tables' order.
fn pieces(
    rows: &Rows,
    tables: Tables,
    format: Format,
    by: Option<PartitionBy>,
    mut nodes: Option<Piece>,
) -> Vec<Piece> {
    tables
        .iter()
        .filter_map(|t| match t {
            Table::Nodes => nodes.take().filter(|p| p.data.rows() > 0),
            Table::Files => piece(&rows.files, format, by),
            Table::Diagnostics => piece(&rows.diagnostics, format, by),
            Table::Individuals => piece(&rows.individuals, format, by),
            Table::Families => piece(&rows.families, format, by),
            Table::Edges => piece(&rows.edges, format, by),
            Table::Events => piece(&rows.events, format, by),
            Table::Citations => piece(&rows.citations, format, by),
        })
        .collect()
}

/// A chunk's output: its tables' rows, and its counts.
struct Chunk {
    pieces: Vec<Piece>,
    records: u64,
    structures: u64,
}

/// A file's rows, chunk by chunk.
struct Tabulate {
    collector: Collector,
    tables: Tables,
    format: Format,
    partition: Option<PartitionBy>,
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
        let (f, by) = (self.format, self.partition);
        let column = by.and_then(|p| p.column_index(Table::Nodes));
        let mut runs = Runs::default();
        let (data, error) = match f {
            #[cfg(feature = "parquet")]
            Format::Columnar(_) => {
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
                let error = self.collector.collect_with(reader, &mut rows, |n| {
                    nodes.push(n);
                    runs.note(n, column, nodes.len());
                });
                let used = std::iter::once(nodes.len()).chain(nodes.text_bytes());
                for (r, n) in self.room.iter().zip(used) {
                    r.fetch_max(n, Ordering::Relaxed);
                }
                // The cells follow the columns' types: finish does not fail.
                (nodes.finish().ok().map(Data::Batch), error)
            }
            _ => {
                // The nodes encoded as they come.
                let mut nodes = Encoded::default();
                let error = self.collector.collect_with(reader, &mut rows, |n| {
                    nodes.push(n, f, column);
                    runs.note(n, column, nodes.ends.len());
                });
                (Some(Data::Encoded(nodes)), error)
            }
        };
        let nodes = data.map(|data| Piece {
            table: Table::Nodes,
            data,
            runs,
        });
        let chunk = Chunk {
            pieces: pieces(&rows, self.tables, f, by, nodes),
            records: rows.records,
            structures: rows.structures,
        };
        (chunk, error)
    }
}

/// One table's part files (or one partition's, in its directory).
struct Parts {
    dir: PathBuf,
    table: Table,
    format: Format,
    limit: usize,
    /// The column left out (a partition's).
    skip: Option<usize>,
    next: usize,
    file: Option<BufWriter<File>>,
    written: usize,
}

impl Parts {
    fn new(dir: PathBuf, table: Table, format: Format, limit: usize) -> Parts {
        Parts {
            dir,
            table,
            format,
            limit,
            skip: None,
            next: 0,
            file: None,
            written: 0,
        }
    }

    /// Closes the part being written and opens the next, its header in it.
    fn open_next(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.close()?;
        let name = format!("part-{:05}.{}", self.next, self.format.extension());
        self.next += 1;
        let mut file = BufWriter::with_capacity(1 << 20, File::create(self.dir.join(name))?);
        self.written = 0;
        if self.format == Format::Csv {
            write_csv_header_except(&mut file, self.table, self.skip)?;
        }
        Ok(self.file.insert(file))
    }

    /// Writes the rows `rows` of `e`.
    fn write(&mut self, e: &Encoded, rows: Range<usize>) -> io::Result<()> {
        let mut start = match rows.start {
            0 => 0,
            i => e.ends[i - 1],
        };
        for &end in &e.ends[rows] {
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

/// Where rows go: a table's (or a partition's) part files.
enum Dest {
    Parts(Parts),
    #[cfg(feature = "parquet")]
    Columnar(Box<columnar::Out>),
}

impl Dest {
    /// Writes the rows `rows` of `data`.
    fn write(&mut self, data: &Data, rows: Range<usize>) -> io::Result<()> {
        match (self, data) {
            (Dest::Parts(p), Data::Encoded(e)) => p.write(e, rows),
            #[cfg(feature = "parquet")]
            (Dest::Columnar(out), Data::Batch(b)) => out.take(b, rows),
            #[cfg(feature = "parquet")]
            _ => Err(io::Error::other("rows of another format")),
        }
    }

    /// Closes the last part (making one when there was none).
    fn finish(&mut self) -> io::Result<()> {
        match self {
            Dest::Parts(p) => p.finish(),
            #[cfg(feature = "parquet")]
            Dest::Columnar(out) => out.finish(),
        }
    }

    /// The number of the part it would open next.
    fn next_part(&self) -> usize {
        match self {
            Dest::Parts(p) => p.next,
            #[cfg(feature = "parquet")]
            Dest::Columnar(out) => out.next_part(),
        }
    }
}

/// The most partitions of one table written at once: when another one
/// comes, the one that had rows the longest ago is closed (its next rows
/// go to a new part). Each holds its current part open, and a Parquet
/// partition its row group being gathered.
const OPEN_PARTITIONS: usize = 16;

/// A partition being written.
struct Open {
    key: Key,
    dest: Dest,
    /// When it last had rows (a count of runs).
    used: u64,
}

/// One table's output: its directory (or standard output), its part files,
/// or its partitions' directories of part files.
struct TableOut {
    table: Table,
    /// The table's directory; none: standard output.
    dir: Option<PathBuf>,
    format: Format,
    limit: usize,
    #[cfg(feature = "parquet")]
    limits: columnar::Limits,
    /// How it is partitioned, and the partition column's index.
    partition: Option<(PartitionBy, usize)>,
    /// Unpartitioned: its one output.
    plain: Option<Dest>,
    open: Vec<Open>,
    /// The next part of the partitions closed before their last rows.
    next: HashMap<Key, usize>,
    uses: u64,
}

impl TableOut {
    /// An output without the partition column when `skip`, its parts in
    /// `dir` numbered from `next`.
    fn dest(&self, dir: Option<PathBuf>, skip: Option<usize>, next: usize) -> io::Result<Dest> {
        match (self.format, dir) {
            #[cfg(feature = "parquet")]
            (Format::Columnar(kind), dir) => {
                let out = columnar::Out::new(self.table, dir, kind, self.limits, skip, next)?;
                Ok(Dest::Columnar(Box::new(out)))
            }
            (format, Some(dir)) => {
                let mut p = Parts::new(dir, self.table, format, self.limit);
                (p.skip, p.next) = (skip, next);
                Ok(Dest::Parts(p))
            }
            (_, None) => Err(io::Error::other("no output directory")),
        }
    }

    /// The output of the partition `key`, opened (a partition opened the
    /// longest ago closed when [`OPEN_PARTITIONS`] are open).
    fn partition(&mut self, by: PartitionBy, column: usize, key: &Key) -> io::Result<&mut Dest> {
        self.uses += 1;
        let i = match self.open.iter().position(|o| o.key == *key) {
            Some(i) => i,
            None => {
                if self.open.len() >= OPEN_PARTITIONS {
                    let oldest = (0..self.open.len()).min_by_key(|&i| self.open[i].used);
                    if let Some(i) = oldest {
                        let mut o = self.open.swap_remove(i);
                        o.dest.finish()?;
                        self.next.insert(o.key, o.dest.next_part());
                    }
                }
                let dir = self.dir.as_ref().map(|d| d.join(by.dir_name(key.cell())));
                if let Some(dir) = &dir {
                    fs::create_dir_all(dir)?;
                }
                let next = self.next.remove(key).unwrap_or(0);
                let dest = self.dest(dir, Some(column), next)?;
                self.open.push(Open {
                    key: key.clone(),
                    dest,
                    used: 0,
                });
                self.open.len() - 1
            }
        };
        self.open[i].used = self.uses;
        Ok(&mut self.open[i].dest)
    }

    /// Writes a piece of its rows.
    fn write(&mut self, piece: &Piece) -> io::Result<()> {
        let Some((by, column)) = self.partition else {
            if self.plain.is_none() {
                self.plain = Some(self.dest(self.dir.clone(), None, 0)?);
            }
            return match &mut self.plain {
                Some(d) => d.write(&piece.data, 0..piece.data.rows()),
                None => Ok(()),
            };
        };
        let mut start = 0;
        for (key, end) in &piece.runs.0 {
            self.partition(by, column, key)?
                .write(&piece.data, start..*end)?;
            start = *end;
        }
        Ok(())
    }

    /// Closes every partition open.
    fn close_partitions(&mut self) -> io::Result<()> {
        for mut o in self.open.drain(..) {
            o.dest.finish()?;
            self.next.insert(o.key, o.dest.next_part());
        }
        Ok(())
    }

    /// Closes everything; an unpartitioned table with no rows gets one
    /// part all the same (a partitioned one, no partition).
    fn finish(&mut self) -> io::Result<()> {
        self.close_partitions()?;
        if self.partition.is_none() && self.plain.is_none() {
            self.plain = Some(self.dest(self.dir.clone(), None, 0)?);
        }
        match &mut self.plain {
            Some(d) => d.finish(),
            None => Ok(()),
        }
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
    outs: Vec<TableOut>,
    format: Format,
    /// The tables asked for.
    tables: Tables,
    partition: Option<PartitionBy>,
}

impl Sink {
    fn write(&mut self, pieces: &[Piece]) -> io::Result<()> {
        for piece in pieces {
            if let Some(out) = self.outs.iter_mut().find(|o| o.table == piece.table) {
                out.write(piece)?;
            }
        }
        Ok(())
    }

    /// Writes a chunk's rows.
    fn chunk(&mut self, chunk: Chunk) -> io::Result<()> {
        self.write(&chunk.pieces)
    }

    /// Writes rows of `files` and `diagnostics`.
    fn file_rows(&mut self, rows: Rows) -> io::Result<()> {
        let only = [Table::Files, Table::Diagnostics];
        let tables = self.tables.iter().filter(|t| only.contains(t)).collect();
        let pieces = pieces(&rows, tables, self.format, self.partition, None);
        self.write(&pieces)
    }

    fn diagnostics(&mut self, file_id: u32, ds: &[Diagnostic]) -> io::Result<()> {
        if ds.is_empty() {
            return Ok(());
        }
        let diagnostics = ds.iter().map(|d| DiagnosticRow::new(file_id, d)).collect();
        self.file_rows(Rows {
            diagnostics,
            ..Rows::default()
        })
    }

    /// A file's rows are all written: with `--partition-by file`, its
    /// partitions are closed (files come one after another: none comes
    /// back).
    fn end_file(&mut self) -> io::Result<()> {
        if self.partition != Some(PartitionBy::File) {
            return Ok(());
        }
        self.outs
            .iter_mut()
            .try_for_each(TableOut::close_partitions)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.outs.iter_mut().try_for_each(TableOut::finish)
    }
}

/// A file's work: its rows made by `tables`' collector.
fn work(file_id: u32, tables: Tables, format: Format, partition: Option<PartitionBy>) -> Tabulate {
    Tabulate {
        collector: Collector::new(file_id, tables),
        tables,
        format,
        partition,
        #[cfg(feature = "parquet")]
        room: (0..=NodeRow::COLUMNS.len())
            .map(|_| AtomicUsize::new(0))
            .collect(),
    }
}

/// A small file read whole on a worker of the pool, its rows not written
/// yet: its chunks' outputs and diagnostics in order, how the reading
/// ended, and the version its HEAD gave.
struct Read {
    chunks: Vec<(Chunk, Vec<Diagnostic>)>,
    result: Result<drive::Done, Fail>,
    version: Option<String>,
}

/// Reads the file `path` whole, on the calling thread (`settings` asks
/// for one job), keeping its rows.
fn read_whole(settings: &Settings, path: &str, mut work: Tabulate) -> Read {
    let source = Source::File(path.to_string());
    let mut chunks = Vec::new();
    let result = drive::run(settings, &source, &mut work, |chunk, ds| {
        chunks.push((chunk, ds));
        Ok(())
    });
    Read {
        chunks,
        result,
        version: work.collector.version().map(str::to_string),
    }
}

/// What reading one input left: its `files` row. The input is read here
/// (a file's chunks on `--jobs` threads, standard input in batches), or
/// was read whole already (`read`, a small file) and its rows are written
/// here, as they would have been.
fn tabulate(
    settings: &Settings,
    args: &TableArgs,
    sink: &mut Sink,
    (file_id, path): (u32, &str),
    tables: Tables,
    read: Option<Read>,
) -> Result<FileRow, Fail> {
    let source = match path {
        "-" => Source::Stdin,
        _ => Source::File(path.to_string()),
    };
    let mut report = Report::new(source.name(), settings);
    let out_fail = |e: io::Error| Fail::Output(args.output.clone(), e);
    let (format, partition) = (sink.format, sink.partition);
    let (mut records, mut structures, mut diagnostics) = (0, 0, 0u64);
    let mut take = |chunk: Chunk, ds: Vec<Diagnostic>| {
        report.diagnostics(&ds);
        diagnostics += ds.len() as u64;
        records += chunk.records;
        structures += chunk.structures;
        sink.diagnostics(file_id, &ds).map_err(out_fail)?;
        sink.chunk(chunk).map_err(out_fail)
    };
    let (result, version) = match read {
        Some(read) => {
            let taken = read
                .chunks
                .into_iter()
                .try_for_each(|(chunk, ds)| take(chunk, ds));
            (taken.and(read.result), read.version)
        }
        None => {
            let mut work = work(file_id, tables, format, partition);
            let result = drive::run(settings, &source, &mut work, take);
            (result, work.collector.version().map(str::to_string))
        }
    };
    let mut row = FileRow {
        file_id,
        path: path.to_string(),
        version,
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
    let partition = match &args.partition_by {
        None => None,
        Some(name) => match PartitionBy::from_name(name) {
            Some(p) => Some(p),
            None => return refuse(&format!("no way to partition by {name}")),
        },
    };
    if partition.is_some() && to_stdout {
        return refuse("--partition-by writes a directory of partitions: -o - writes one stream");
    }
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
        #[cfg(feature = "parquet")]
        let limits = columnar::Limits {
            part: limit,
            row_group: args.row_group_bytes.unwrap_or(ROW_GROUP_BYTES),
            jobs: settings.jobs(),
        };
        let outs = tables.iter().map(|table| {
            let dir = root.map(|r| r.join(table.name()));
            if let Some(dir) = &dir {
                fs::create_dir(dir)?;
            }
            Ok(TableOut {
                table,
                dir,
                format,
                limit,
                #[cfg(feature = "parquet")]
                limits,
                partition: partition.and_then(|p| Some((p, p.column_index(table)?))),
                plain: None,
                open: Vec::new(),
                next: HashMap::new(),
                uses: 0,
            })
        });
        let mut sink = Sink {
            outs: outs.collect::<io::Result<Vec<_>>>().map_err(out_fail)?,
            format,
            tables,
            partition,
        };
        let inputs = inputs(&args.files);
        if u32::try_from(inputs.len()).is_err() {
            return Err(Fail::Other("too many inputs".into()));
        }
        let mut failed = false;
        // Its files row written, an input is done.
        let mut done = |sink: &mut Sink, row: FileRow| -> Result<(), Fail> {
            failed |= row.status != "ok";
            let files = vec![row];
            sink.file_rows(Rows {
                files,
                ..Rows::default()
            })
            .map_err(out_fail)?;
            sink.end_file().map_err(out_fail)
        };
        // A file of at most one chunk is small: small files next to each
        // other are read side by side, each whole on one worker of the
        // pool, their rows written in their order.
        let chunk = args.jobs.chunk_bytes.unwrap_or(drive::CHUNK) as u64;
        let small = |(path, error): &(String, Option<String>)| {
            error.is_none()
                && path != "-"
                && fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= chunk)
        };
        let jobs = settings.jobs();
        let one = Settings {
            jobs: JobOpts {
                jobs: Some(1),
                chunk_bytes: args.jobs.chunk_bytes,
            },
            ..settings.clone()
        };
        let mut i = 0;
        while i < inputs.len() {
            let run = (i..inputs.len()).take_while(|&k| small(&inputs[k])).count();
            if run > 1 && jobs > 1 {
                let items = (i..i + run).map(|k| (k as u32, inputs[k].0.as_str()));
                let (format, partition) = (sink.format, sink.partition);
                let read = |(file_id, path): (u32, &'_ str)| {
                    let work = work(file_id, tables, format, partition);
                    (file_id, read_whole(&one, path, work))
                };
                gedcom_elf::par::map_in_order(jobs, items, read, |(file_id, read)| {
                    let path = &inputs[file_id as usize].0;
                    let ids = (file_id, path.as_str());
                    let row = tabulate(&settings, args, &mut sink, ids, tables, Some(read))?;
                    done(&mut sink, row)
                })?;
                i += run;
                continue;
            }
            let (path, error) = &inputs[i];
            let file_id = i as u32;
            let row = match error {
                None => tabulate(&settings, args, &mut sink, (file_id, path), tables, None)?,
                Some(message) => {
                    say(path, None, "error", message);
                    FileRow {
                        file_id,
                        path: path.clone(),
                        status: "failed",
                        error: Some(message.clone()),
                        ..FileRow::default()
                    }
                }
            };
            done(&mut sink, row)?;
            i += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn node(file_id: u32, record_tag: &str) -> gedcom_elf::table::NodeRow {
        gedcom_elf::table::NodeRow {
            file_id,
            record_tag: record_tag.into(),
            ..Default::default()
        }
    }

    #[test]
    fn runs_are_rows_of_one_partition_value_in_order() {
        let rows = [
            node(0, "HEAD"),
            node(0, "INDI"),
            node(0, "INDI"),
            node(0, "FAM"),
            node(1, "INDI"),
        ];
        let runs = |by: PartitionBy| {
            let piece = piece(&rows, Format::Jsonl, Some(by)).unwrap();
            assert_eq!(piece.data.rows(), rows.len());
            piece.runs.0
        };
        let text = |s: &str| Key::Text(s.into());
        assert_eq!(
            runs(PartitionBy::RecordTag),
            [
                (text("HEAD"), 1),
                (text("INDI"), 3),
                (text("FAM"), 4),
                (text("INDI"), 5)
            ]
        );
        assert_eq!(
            runs(PartitionBy::File),
            [(Key::Int(0), 4), (Key::Int(1), 5)]
        );
        // Unpartitioned, or a table without the column: no runs.
        assert!(piece(&rows, Format::Jsonl, None).unwrap().runs.0.is_empty());
        let files = [FileRow::default()];
        let p = piece(&files, Format::Csv, Some(PartitionBy::RecordTag)).unwrap();
        assert!(p.runs.0.is_empty());
        // The partition column is left out of the encoded rows.
        let data = piece(&rows, Format::Jsonl, Some(PartitionBy::RecordTag));
        // Without the parquet feature, the only variant.
        #[allow(clippy::infallible_destructuring_match)]
        let e = match data.unwrap().data {
            Data::Encoded(e) => e,
            #[cfg(feature = "parquet")]
            Data::Batch(_) => panic!("not encoded"),
        };
        let text = String::from_utf8(e.bytes).unwrap();
        assert!(!text.contains("record_tag") && text.contains("\"file_id\":1"));
    }
}
