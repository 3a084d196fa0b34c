//! `table --format parquet|arrow` (feature `parquet`): each chunk's rows
//! become one record batch per table on the chunk's thread (the library's
//! `BatchBuilder`, with each row's estimated size); here, in document
//! order, a table's batches are cut into row groups once their rows'
//! estimated size reaches `--row-group-bytes` and into parts once it
//! reaches `--part-bytes`. A Parquet row group's columns are encoded on
//! `--jobs` threads (`encode_columns`, zstd), on a thread of their own
//! while the next row group is gathered, and written in column order before
//! it; a part ends (its last row group, the file synced) on a thread of its
//! own while the next part begins;
//! Arrow IPC files, or one Arrow IPC stream on standard output, get the
//! rows in record batches of [`BATCH_ROWS`]. Within a row group, batches
//! (and the writes to a Parquet column) are [`BATCH_ROWS`] rows counted
//! from its start, whatever the chunks' bounds: the cuts depend only on the
//! rows, so the files do not depend on `--jobs` or `--chunk-bytes`. An
//! [`Out`] writes one table, or one partition of it (without the partition
//! column, its parts numbered on from where the partition's last ones
//! stopped).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::panic::resume_unwind;
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread::{self, JoinHandle};

use arrow_array::RecordBatch;
use arrow_ipc::writer::{FileWriter, StreamWriter};
use arrow_schema::SchemaRef;
use gedcom_elf::table::arrow::{encode_columns, schema, windows, BatchBuilder, SizedBatch};
use gedcom_elf::table::{Row, Table};
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding as ParquetEncoding, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

/// Rows per record batch, and per write to a Parquet column.
const BATCH_ROWS: usize = 8192;

/// Where a table goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Parquet,
    /// Arrow IPC files (`.arrow`) in the table's directory.
    ArrowFiles,
    /// One Arrow IPC stream on standard output.
    ArrowStdout,
}

/// Work done on a thread of its own while the caller goes on, or already
/// done (when no thread could be had, or none was asked for): a row group
/// being encoded while the next is gathered, a part ending while the next
/// begins.
enum Background<R, E> {
    Thread(JoinHandle<Result<R, E>>),
    Done(Result<R, E>),
}

impl<R: Send + 'static, E: From<io::Error> + Send + 'static> Background<R, E> {
    /// Runs `work` on a thread of its own when `background` and one can be
    /// had, else here.
    fn start(work: impl FnOnce() -> Result<R, E> + Send + 'static, background: bool) -> Self {
        if !background {
            return Background::Done(work());
        }
        // The work is sent once the thread runs: when none can be had, it
        // is still here, and done here.
        type Work<R, E> = Box<dyn FnOnce() -> Result<R, E> + Send>;
        let (tx, rx) = mpsc::channel::<Work<R, E>>();
        let spawned = thread::Builder::new().spawn(move || match rx.recv() {
            Ok(work) => work(),
            Err(e) => Err(io::Error::other(e).into()),
        });
        match spawned {
            Ok(handle) => match tx.send(Box::new(work)) {
                Ok(()) => Background::Thread(handle),
                Err(mpsc::SendError(work)) => Background::Done(work()),
            },
            Err(_) => Background::Done(work()),
        }
    }

    /// The work's result, waiting for it.
    fn finish(self) -> Result<R, E> {
        match self {
            Background::Thread(handle) => handle.join().unwrap_or_else(|e| resume_unwind(e)),
            Background::Done(result) => result,
        }
    }
}

/// A row group being encoded (see `encode_columns`).
type Encoding = Background<Vec<ArrowColumnChunk>, ParquetError>;

enum Writer {
    Parquet {
        file: Box<SerializedFileWriter<BufWriter<File>>>,
        factory: ArrowRowGroupWriterFactory,
        groups: usize,
        /// The last row group, being encoded: appended before the next one
        /// and before the file is closed.
        encoding: Option<Encoding>,
    },
    Ipc(FileWriter<BufWriter<File>>),
    Stream(StreamWriter<BufWriter<io::Stdout>>),
}

fn other<E: std::error::Error + Send + Sync + 'static>(e: E) -> io::Error {
    io::Error::other(e)
}

/// The sizes parts and row groups are cut at, and the threads a row
/// group's columns are encoded on.
#[derive(Clone, Copy)]
pub struct Limits {
    pub part: usize,
    pub row_group: usize,
    pub jobs: usize,
}

/// `rows` as one record batch of their table, with each row's estimated
/// size; `None` for no rows. Made on a chunk's thread.
pub fn batch<R: Row>(rows: &[R]) -> Option<SizedBatch> {
    if rows.is_empty() {
        return None;
    }
    let mut b = BatchBuilder::<R>::new();
    rows.iter().for_each(|r| b.push(r));
    // The cells follow the columns' types: finish does not fail.
    b.finish().ok()
}

/// Columns whose values grow with the rows (offsets, line numbers, the
/// record's offset, repeated along its structures): delta-encoded rather
/// than through a dictionary, which they would only fill (and each value
/// hashed into it).
const ASCENDING: [&str; 6] = [
    "node_id",
    "parent_id",
    "record_id",
    "family_id",
    "line",
    "byte",
];

/// Columns with no minimum and maximum kept: free text and xrefs (in no
/// useful order), and the columns whose every row group holds nearly the
/// whole range (structures' tags and paths, levels, ordinals): their
/// statistics would select no row group, and keeping them compares every
/// value. (`record_tag` and `file_id` keep theirs: a file's records of
/// one kind, and a file's rows, often fill row groups of their own.)
const NO_STATISTICS: [&str; 10] = [
    "text",
    "type",
    "message",
    "xref",
    "pointer",
    "record_xref",
    "path",
    "tag",
    "level",
    "ordinal",
];

/// Xrefs, nearly one value per record: no dictionary, which would be about
/// as large as the values and hash each of them (zstd takes a record's
/// repeated `record_xref` as well).
const NO_DICTIONARY: [&str; 3] = ["xref", "pointer", "record_xref"];

/// `table`'s Parquet properties: zstd, row groups cut by the caller,
/// values handed to the encoder [`BATCH_ROWS`] at a time (the windows'
/// size: fewer checks of the page's size), [`ASCENDING`],
/// [`NO_STATISTICS`] and [`NO_DICTIONARY`] columns as they say.
fn properties(table: Table) -> WriterProperties {
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_write_batch_size(BATCH_ROWS)
        .set_max_row_group_row_count(None)
        .set_max_row_group_bytes(None);
    for c in table.columns() {
        let path = || ColumnPath::from(c.name);
        if ASCENDING.contains(&c.name) {
            props = props
                .set_column_dictionary_enabled(path(), false)
                .set_column_encoding(path(), ParquetEncoding::DELTA_BINARY_PACKED);
        }
        if NO_DICTIONARY.contains(&c.name) {
            props = props.set_column_dictionary_enabled(path(), false);
        }
        if NO_STATISTICS.contains(&c.name) {
            props = props.set_column_statistics_enabled(path(), EnabledStatistics::None);
        }
    }
    props.build()
}

/// Appends the row group `encoding` encodes (if any) to `file`, waiting
/// for it.
fn append(
    file: &mut SerializedFileWriter<BufWriter<File>>,
    encoding: Option<Encoding>,
) -> io::Result<()> {
    let Some(encoding) = encoding else {
        return Ok(());
    };
    let chunks = encoding.finish().map_err(other)?;
    let mut group = file.next_row_group().map_err(other)?;
    for chunk in chunks {
        chunk.append_to_row_group(&mut group).map_err(other)?;
    }
    group.close().map_err(other)?;
    Ok(())
}

/// One table's output (or one partition's of a partitioned table).
pub struct Out {
    table: Table,
    dir: Option<PathBuf>,
    /// The columns written: all of the table's, or all but the partition's.
    schema: SchemaRef,
    /// The indices of those columns, when one is left out.
    keep: Option<Vec<usize>>,
    kind: Kind,
    limits: Limits,
    /// Whether a Parquet row group is encoded on a thread of its own while
    /// the next one is gathered, and a part ended on one while the next
    /// begins (not for a partition: up to
    /// `OPEN_PARTITIONS` of them are open at once, and each would hold one
    /// more row group).
    background: bool,
    /// The last part, ending on a thread of its own (with `background`):
    /// its last row group appended and its file synced while the next
    /// part begins.
    closing: Option<Background<(), io::Error>>,
    /// The rows of the row group being gathered (for Arrow IPC, of the
    /// record batch being gathered), end to end.
    pieces: Vec<RecordBatch>,
    rows: usize,
    group: usize,
    part: usize,
    next: usize,
    writer: Option<Writer>,
}

impl Out {
    /// An output of `table`'s rows: part files in `dir` numbered from
    /// `next` (or, with no directory, a stream on standard output),
    /// without the column at index `skip` (a partition's, which its
    /// directory names).
    pub fn new(
        table: Table,
        dir: Option<PathBuf>,
        kind: Kind,
        limits: Limits,
        skip: Option<usize>,
        next: usize,
    ) -> io::Result<Out> {
        let full = schema(table);
        let keep: Option<Vec<usize>> =
            skip.map(|s| (0..full.fields().len()).filter(|&i| i != s).collect());
        let schema = match &keep {
            Some(k) => std::sync::Arc::new(full.project(k).map_err(other)?),
            None => full,
        };
        Ok(Out {
            table,
            dir,
            schema,
            keep,
            kind,
            limits,
            background: skip.is_none(),
            closing: None,
            pieces: Vec::new(),
            rows: 0,
            group: 0,
            part: 0,
            next,
            writer: None,
        })
    }

    /// The number of the next part it would open.
    pub fn next_part(&self) -> usize {
        self.next
    }

    fn open(&mut self) -> io::Result<&mut Writer> {
        if self.writer.is_none() {
            let schema = self.schema.clone();
            let writer = match (self.kind, &self.dir) {
                (Kind::ArrowStdout, _) | (_, None) => {
                    let out = BufWriter::with_capacity(1 << 20, io::stdout());
                    Writer::Stream(StreamWriter::try_new(out, &schema).map_err(other)?)
                }
                (kind, Some(dir)) => {
                    let ext = if kind == Kind::Parquet {
                        "parquet"
                    } else {
                        "arrow"
                    };
                    let path = dir.join(format!("part-{:05}.{ext}", self.next));
                    let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
                    match kind {
                        Kind::Parquet => {
                            let props = properties(self.table);
                            let w = ArrowWriter::try_new(file, schema, Some(props));
                            let (file, factory) =
                                w.map_err(other)?.into_serialized_writer().map_err(other)?;
                            Writer::Parquet {
                                file: Box::new(file),
                                factory,
                                groups: 0,
                                encoding: None,
                            }
                        }
                        _ => Writer::Ipc(FileWriter::try_new(file, &schema).map_err(other)?),
                    }
                }
            };
            self.next += 1;
            self.writer = Some(writer);
        }
        match &mut self.writer {
            Some(w) => Ok(w),
            None => Err(io::Error::other("no writer")),
        }
    }

    /// Writes the rows gathered: a Parquet row group (the group ends
    /// here), or Arrow IPC batches (all of them when `end`, the group's
    /// whole batches only otherwise).
    fn write_pending(&mut self, end: bool) -> io::Result<()> {
        if self.pieces.is_empty() {
            return Ok(());
        }
        if self.kind == Kind::Parquet {
            let pieces = std::mem::take(&mut self.pieces);
            self.rows = 0;
            let (jobs, background) = (self.limits.jobs, self.background);
            let Writer::Parquet {
                file,
                factory,
                groups,
                encoding,
            } = self.open()?
            else {
                return Err(io::Error::other("no Parquet writer"));
            };
            // The row group before goes first: row groups stay in order.
            append(file, encoding.take())?;
            let writers = factory.create_column_writers(*groups).map_err(other)?;
            let encode = move || encode_columns(writers, &pieces, BATCH_ROWS, jobs);
            *encoding = Some(Encoding::start(encode, background));
            *groups += 1;
            return Ok(());
        }
        let mut batches = windows(&self.pieces, BATCH_ROWS, true).map_err(other)?;
        self.pieces.clear();
        self.rows = 0;
        if !end {
            if let Some(last) = batches.pop_if(|b| b.num_rows() < BATCH_ROWS) {
                self.rows = last.num_rows();
                self.pieces.push(last);
            }
        }
        match self.open()? {
            Writer::Parquet { .. } => Err(io::Error::other("a Parquet writer")),
            Writer::Ipc(w) => batches.iter().try_for_each(|b| w.write(b).map_err(other)),
            Writer::Stream(w) => batches.iter().try_for_each(|b| w.write(b).map_err(other)),
        }
    }

    fn close(&mut self) -> io::Result<()> {
        self.write_pending(true)?;
        match self.writer.take() {
            Some(Writer::Parquet {
                mut file, encoding, ..
            }) => {
                let end = move || {
                    append(&mut file, encoding)?;
                    let file = file.into_inner().map_err(other)?;
                    file.into_inner().map_err(|e| e.into_error())?.sync_all()
                };
                // At most one part ends on its own thread: the one before
                // first.
                self.wait_closing()?;
                // The part's end (its last row group appended, the file
                // synced) on a thread of its own, while the next part
                // begins; here without `background`, or when no thread can
                // be had.
                match Background::start(end, self.background) {
                    Background::Done(result) => result,
                    ending => {
                        self.closing = Some(ending);
                        Ok(())
                    }
                }
            }
            Some(Writer::Ipc(w)) => {
                let file = w.into_inner().map_err(other)?;
                file.into_inner().map_err(|e| e.into_error())?.sync_all()
            }
            Some(Writer::Stream(w)) => w.into_inner().map_err(other)?.flush(),
            None => Ok(()),
        }
    }

    /// Waits for the part ending on its own thread, if any.
    fn wait_closing(&mut self) -> io::Result<()> {
        match self.closing.take() {
            Some(ending) => ending.finish(),
            None => Ok(()),
        }
    }

    /// Writes the rows `rows` of a batch of its table's rows, cutting row
    /// groups and parts after the rows that fill them.
    pub fn take(&mut self, b: &SizedBatch, rows: Range<usize>) -> io::Result<()> {
        let sizes = b.sizes.get(rows.clone()).unwrap_or_default();
        let batch = match rows.len() == b.batch.num_rows() {
            true => b.batch.clone(),
            false => b.batch.slice(rows.start, rows.len()),
        };
        let batch = match &self.keep {
            Some(keep) => batch.project(keep).map_err(other)?,
            None => batch,
        };
        let mut start = 0;
        for (i, &size) in sizes.iter().enumerate() {
            self.group += size as usize;
            self.part += size as usize;
            let part_full = self.part >= self.limits.part && self.kind != Kind::ArrowStdout;
            if self.group < self.limits.row_group && !part_full {
                continue;
            }
            self.pieces.push(batch.slice(start, i + 1 - start));
            start = i + 1;
            self.write_pending(true)?;
            self.group = 0;
            if part_full {
                self.part = 0;
                self.close()?;
            }
        }
        let rest = batch.num_rows() - start;
        if rest > 0 {
            self.pieces.push(batch.slice(start, rest));
            self.rows += rest;
        }
        if self.kind != Kind::Parquet && self.rows >= BATCH_ROWS {
            self.write_pending(false)?;
        }
        Ok(())
    }

    /// Writes what is pending and closes the last part (a table with no
    /// rows gets one part all the same, its schema in it).
    pub fn finish(&mut self) -> io::Result<()> {
        if self.next == 0 {
            self.open()?;
        }
        self.close()?;
        self.wait_closing()
    }
}
