//! `table --format parquet|arrow` (feature `parquet`): rows gathered into
//! record batches of [`BATCH_ROWS`] rows in document order, written as
//! Parquet (zstd; a row group closed once its rows' estimated size reaches
//! `--row-group-bytes`) or as Arrow IPC files, a new part once one holds
//! `--part-bytes` (estimated), or as one Arrow IPC stream to standard
//! output. The batches and cuts depend only on the rows, so the files do
//! not depend on `--jobs` or `--chunk-bytes`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_ipc::writer::{FileWriter, StreamWriter};
use gedcom_elf::table::arrow::{estimated_bytes, record_batch, schema};
use gedcom_elf::table::{Row, Rows, Table, Tables};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

/// Rows per record batch.
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

enum Writer {
    Parquet(Box<ArrowWriter<BufWriter<File>>>),
    Ipc(FileWriter<BufWriter<File>>),
    Stream(StreamWriter<BufWriter<io::Stdout>>),
}

fn other<E: std::error::Error + Send + Sync + 'static>(e: E) -> io::Error {
    io::Error::other(e)
}

/// One table's output.
pub trait Out {
    /// Takes the rows of its table out of `rows` and writes them.
    fn take(&mut self, rows: &mut Rows) -> io::Result<()>;
    /// Writes what is pending and closes the last part (a table with no
    /// rows gets one part all the same, its schema in it).
    fn finish(&mut self) -> io::Result<()>;
}

/// The sizes parts and row groups are cut at.
#[derive(Clone, Copy)]
pub struct Limits {
    pub part: usize,
    pub row_group: usize,
}

struct Columnar<R: Row> {
    dir: Option<PathBuf>,
    kind: Kind,
    limits: Limits,
    pick: fn(&mut Rows) -> &mut Vec<R>,
    pending: Vec<R>,
    group: usize,
    part: usize,
    next: usize,
    writer: Option<Writer>,
}

impl<R: Row> Columnar<R> {
    fn open(&mut self) -> io::Result<&mut Writer> {
        if self.writer.is_none() {
            let schema = schema(R::TABLE);
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
                            let props = WriterProperties::builder()
                                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                                .set_max_row_group_row_count(None)
                                .set_max_row_group_bytes(None)
                                .build();
                            let w = ArrowWriter::try_new(file, schema, Some(props));
                            Writer::Parquet(Box::new(w.map_err(other)?))
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

    fn write_pending(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let batch = record_batch(&self.pending).map_err(other)?;
        self.pending.clear();
        match self.open()? {
            Writer::Parquet(w) => w.write(&batch).map_err(other),
            Writer::Ipc(w) => w.write(&batch).map_err(other),
            Writer::Stream(w) => w.write(&batch).map_err(other),
        }
    }

    fn close(&mut self) -> io::Result<()> {
        self.write_pending()?;
        match self.writer.take() {
            Some(Writer::Parquet(w)) => {
                let file = w.into_inner().map_err(other)?;
                file.into_inner().map_err(|e| e.into_error())?.sync_all()
            }
            Some(Writer::Ipc(w)) => {
                let file = w.into_inner().map_err(other)?;
                file.into_inner().map_err(|e| e.into_error())?.sync_all()
            }
            Some(Writer::Stream(w)) => w.into_inner().map_err(other)?.flush(),
            None => Ok(()),
        }
    }

    fn push(&mut self, row: R) -> io::Result<()> {
        let n = estimated_bytes(&row);
        self.pending.push(row);
        self.group += n;
        self.part += n;
        if self.pending.len() >= BATCH_ROWS || self.group >= self.limits.row_group {
            self.write_pending()?;
        }
        if self.group >= self.limits.row_group {
            self.group = 0;
            if let Some(Writer::Parquet(w)) = &mut self.writer {
                w.flush().map_err(other)?;
            }
        }
        if self.part >= self.limits.part && self.kind != Kind::ArrowStdout {
            self.part = 0;
            self.group = 0;
            self.close()?;
        }
        Ok(())
    }
}

impl<R: Row> Out for Columnar<R> {
    fn take(&mut self, rows: &mut Rows) -> io::Result<()> {
        for row in std::mem::take((self.pick)(rows)) {
            self.push(row)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.next == 0 {
            self.open()?;
        }
        self.close()
    }
}

/// The outputs of `tables`: each in its directory under `root`, or, with
/// no root, the one table as a stream on standard output.
pub fn outs(
    root: Option<&Path>,
    tables: Tables,
    kind: Kind,
    limits: Limits,
) -> io::Result<Vec<Box<dyn Out>>> {
    fn out<R: Row + 'static>(
        root: Option<&Path>,
        kind: Kind,
        limits: Limits,
        pick: fn(&mut Rows) -> &mut Vec<R>,
    ) -> io::Result<Box<dyn Out>> {
        let dir = root.map(|r| r.join(R::TABLE.name()));
        if let Some(dir) = &dir {
            std::fs::create_dir(dir)?;
        }
        Ok(Box::new(Columnar {
            dir,
            kind,
            limits,
            pick,
            pending: Vec::new(),
            group: 0,
            part: 0,
            next: 0,
            writer: None,
        }))
    }
    let (r, k, l) = (root, kind, limits);
    tables
        .iter()
        .map(|t| match t {
            Table::Nodes => out(r, k, l, |rows| &mut rows.nodes),
            Table::Files => out(r, k, l, |rows| &mut rows.files),
            Table::Diagnostics => out(r, k, l, |rows| &mut rows.diagnostics),
            Table::Individuals => out(r, k, l, |rows| &mut rows.individuals),
            Table::Families => out(r, k, l, |rows| &mut rows.families),
            Table::Edges => out(r, k, l, |rows| &mut rows.edges),
            Table::Events => out(r, k, l, |rows| &mut rows.events),
            Table::Citations => out(r, k, l, |rows| &mut rows.citations),
        })
        .collect()
}
