//! Rows as Arrow record batches (feature `parquet`): each table's schema
//! from its columns, a batch from any rows, column by column through
//! [`Row::cell`] ([`BatchBuilder`], on any thread: a chunk's rows become
//! its batch on the chunk's thread), batches of any sizes cut again into
//! windows whose bounds depend only on the rows ([`windows`]), and a
//! Parquet row group's columns encoded on several threads
//! ([`encode_columns`]); what Parquet and Arrow IPC writers take.

use std::sync::Arc;

use std::marker::PhantomData;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowColumnWriter};
use parquet::errors::ParquetError;

use super::rows::{Cell, ColumnType, Row};
use super::Table;
use crate::ordered;

/// `table`'s Arrow schema: its columns in order, `Int64` or `Utf8`,
/// nullable as [`Column::nullable`](super::Column::nullable) says.
pub fn schema(table: Table) -> SchemaRef {
    let fields: Vec<Field> = table
        .columns()
        .iter()
        .map(|c| {
            let ty = match c.ty {
                ColumnType::Int64 => DataType::Int64,
                ColumnType::Text => DataType::Utf8,
            };
            Field::new(c.name, ty, c.nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// `rows` as one record batch of their table's [`schema`].
///
/// ```
/// use gedcom_elf::table::arrow::record_batch;
/// use gedcom_elf::table::{collect_input, Tables};
/// use gedcom_elf::{Input, ReaderConfig};
///
/// let input = Input::new(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 SEX F\n0 TRLR\n")?;
/// let (rows, _, _) = collect_input(&input, ReaderConfig::new(), 0, Tables::ALL, 1, 1 << 20)?;
/// let batch = record_batch(&rows.nodes)?;
/// assert_eq!((batch.num_rows(), batch.num_columns()), (5, 15));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Arrow's, should a column not fit its type (it does not happen: the
/// cells follow the columns' types).
pub fn record_batch<R: Row>(rows: &[R]) -> Result<RecordBatch, ArrowError> {
    let mut b = BatchBuilder::<R>::new();
    rows.iter().for_each(|r| b.push(r));
    Ok(b.finish()?.batch)
}

/// About how many bytes `row` takes in memory as Arrow columns: 8 per
/// integer, the text and its 4-byte offset per string, 1 per null. It
/// depends only on the row, so cuts made by it (a Parquet file's row
/// groups) do not depend on how rows were batched.
pub fn estimated_bytes<R: Row>(row: &R) -> usize {
    (0..R::COLUMNS.len())
        .map(|i| match row.cell(i) {
            Cell::Null => 1,
            Cell::Int(_) => 8,
            Cell::Text(s) => s.len() + 4,
        })
        .sum()
}

enum Builder {
    Int(Int64Builder),
    Text(StringBuilder),
}

/// A record batch of one table made row by row (no row kept: each cell
/// goes to its column as it comes), with each row's
/// [`estimated_bytes`].
pub struct BatchBuilder<R: Row> {
    columns: Vec<Builder>,
    sizes: Vec<u32>,
    row: PhantomData<fn(&R)>,
}

/// A record batch and the [`estimated_bytes`] of each of its rows.
#[derive(Clone, Debug)]
pub struct SizedBatch {
    /// Their table.
    pub table: Table,
    /// The rows.
    pub batch: RecordBatch,
    /// Each row's estimated size in memory, in order.
    pub sizes: Vec<u32>,
}

impl<R: Row> Default for BatchBuilder<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Row> BatchBuilder<R> {
    /// An empty batch of `R`'s table.
    pub fn new() -> Self {
        Self::with_capacity(0, &[])
    }

    /// An empty batch of `R`'s table with room for `rows` rows and, in
    /// each text column `i`, `text[i]` bytes (0 past `text`'s end): what
    /// [`BatchBuilder::text_bytes`] said of a batch like it, so that the
    /// columns are not copied as they grow, nor hold twice what they need.
    pub fn with_capacity(rows: usize, text: &[usize]) -> Self {
        let columns = R::COLUMNS
            .iter()
            .enumerate()
            .map(|(i, c)| match c.ty {
                ColumnType::Int64 => Builder::Int(Int64Builder::with_capacity(rows)),
                ColumnType::Text => {
                    let bytes = text.get(i).copied().unwrap_or(0);
                    Builder::Text(StringBuilder::with_capacity(rows, bytes))
                }
            })
            .collect();
        BatchBuilder {
            columns,
            sizes: Vec::with_capacity(rows),
            row: PhantomData,
        }
    }

    /// Appends `row`.
    #[inline]
    pub fn push(&mut self, row: &R) {
        let mut size = 0;
        let columns = &mut self.columns[..R::COLUMNS.len()];
        for (i, column) in columns.iter_mut().enumerate() {
            let cell = row.cell(i);
            size += match cell {
                Cell::Null => 1,
                Cell::Int(_) => 8,
                Cell::Text(s) => s.len() + 4,
            };
            match (column, cell) {
                (Builder::Int(b), Cell::Int(n)) => b.append_value(n),
                (Builder::Text(b), Cell::Text(s)) => b.append_value(s),
                (Builder::Int(b), _) => b.append_null(),
                (Builder::Text(b), _) => b.append_null(),
            }
        }
        self.sizes.push(u32::try_from(size).unwrap_or(u32::MAX));
    }

    /// The rows appended so far.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// The bytes of text in each column so far (0 for an integer column).
    pub fn text_bytes(&self) -> Vec<usize> {
        let bytes = |c: &Builder| match c {
            Builder::Int(_) => 0,
            Builder::Text(b) => b.values_slice().len(),
        };
        self.columns.iter().map(bytes).collect()
    }

    /// Whether no row was appended.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// The batch of the rows appended.
    ///
    /// # Errors
    /// Arrow's, should a column not fit its type (it does not happen).
    pub fn finish(self) -> Result<SizedBatch, ArrowError> {
        let columns: Vec<ArrayRef> = self
            .columns
            .into_iter()
            .map(|c| -> ArrayRef {
                match c {
                    Builder::Int(mut b) => std::sync::Arc::new(b.finish()),
                    Builder::Text(mut b) => std::sync::Arc::new(b.finish()),
                }
            })
            .collect();
        let batch = RecordBatch::try_new(schema(R::TABLE), columns)?;
        Ok(SizedBatch {
            table: R::TABLE,
            batch,
            sizes: self.sizes,
        })
    }
}

/// Where the rows `start..start + len` of `pieces` (batches of one schema,
/// end to end) lie: each piece's share, as (piece, offset, rows).
fn parts(pieces: &[RecordBatch], start: usize, len: usize) -> Vec<(&RecordBatch, usize, usize)> {
    let mut parts = Vec::new();
    let (mut at, mut want) = (0, start..start + len);
    for p in pieces {
        let range = at..at + p.num_rows();
        at = range.end;
        let (from, to) = (want.start.max(range.start), want.end.min(range.end));
        if from < to {
            parts.push((p, from - range.start, to - from));
            want.start = to;
        }
    }
    parts
}

/// Column `c` of `parts` (see [`parts`]) as one array: a slice when they
/// are one piece's and not `copy`, else a new array of their values (as
/// [`record_batch`] makes it from rows, whatever the pieces' bounds).
fn column(parts: &[(&RecordBatch, usize, usize)], c: usize, copy: bool) -> ArrayRef {
    if let ([(p, offset, n)], false) = (parts, copy) {
        return p.column(c).slice(*offset, *n);
    }
    let len = parts.iter().map(|p| p.2).sum();
    match parts.first().map(|p| p.0.column(c).data_type()) {
        Some(DataType::Int64) => {
            let mut b = Int64Builder::with_capacity(len);
            for (p, offset, n) in parts {
                let a = p.column(c).as_primitive::<Int64Type>();
                for i in *offset..offset + n {
                    match a.is_null(i) {
                        true => b.append_null(),
                        false => b.append_value(a.value(i)),
                    }
                }
            }
            std::sync::Arc::new(b.finish())
        }
        _ => {
            let mut b = StringBuilder::with_capacity(len, 0);
            for (p, offset, n) in parts {
                let a = p.column(c).as_string::<i32>();
                for i in *offset..offset + n {
                    match a.is_null(i) {
                        true => b.append_null(),
                        false => b.append_value(a.value(i)),
                    }
                }
            }
            std::sync::Arc::new(b.finish())
        }
    }
}

/// The bounds of the batches of `rows` rows (the last one what is left)
/// that `total` rows are cut into.
fn bounds(total: usize, rows: usize) -> impl Iterator<Item = (usize, usize)> {
    let rows = rows.max(1);
    (0..total)
        .step_by(rows)
        .map(move |start| (start, rows.min(total - start)))
}

/// The rows of `pieces` (batches of one schema, end to end) cut again into batches of `rows` rows (the last one what is left), so
/// that the batches depend only on the rows, not on the pieces' bounds. A
/// batch within one piece is a slice of it unless `copy`; every other is
/// new, as [`record_batch`] would make it (Arrow IPC writes a slice's
/// buffers as they are: `copy` makes the file independent of the pieces).
///
/// # Errors
/// Arrow's, should the pieces' schemas differ.
pub fn windows(
    pieces: &[RecordBatch],
    rows: usize,
    copy: bool,
) -> Result<Vec<RecordBatch>, ArrowError> {
    let Some(schema) = pieces.first().map(RecordBatch::schema) else {
        return Ok(Vec::new());
    };
    let total = pieces.iter().map(RecordBatch::num_rows).sum();
    bounds(total, rows)
        .map(|(start, len)| {
            let parts = parts(pieces, start, len);
            let columns = (0..schema.fields().len())
                .map(|c| column(&parts, c, copy))
                .collect();
            RecordBatch::try_new(schema.clone(), columns)
        })
        .collect()
}

/// About how many bytes column `c` of `batches` holds.
fn column_bytes(batches: &[RecordBatch], c: usize) -> usize {
    batches
        .iter()
        .map(|b| {
            let a = b.column(c);
            match a.data_type() {
                DataType::Utf8 => {
                    let o = a.as_string::<i32>().value_offsets();
                    (o[o.len() - 1] - o[0]) as usize + 4 * a.len()
                }
                _ => 8 * a.len(),
            }
        })
        .sum()
}

/// Encodes one Parquet row group's columns: column `c` of `pieces`
/// (batches of one schema, end to end: the row group's rows) through
/// `writers[c]` (the writers of one row group, as
/// `ArrowRowGroupWriterFactory::create_column_writers` gives them for the
/// pieces' schema), on up to `jobs` threads, the largest columns first, each
/// thread a share of the columns of about equal size. Each column is
/// written `rows` rows at a time counted from the row group's start (as
/// [`windows`] cuts them; a window that spans pieces is copied on the
/// column's thread), so the bytes depend only on the rows, never on the
/// pieces' bounds or `jobs`. The chunks come back in column order, to be
/// appended to the row group.
///
/// # Errors
/// Parquet's, from a writer.
pub fn encode_columns(
    writers: Vec<ArrowColumnWriter>,
    pieces: &[RecordBatch],
    rows: usize,
    jobs: usize,
) -> Result<Vec<ArrowColumnChunk>, ParquetError> {
    let Some(schema) = pieces.first().map(RecordBatch::schema) else {
        return writers.into_iter().map(ArrowColumnWriter::close).collect();
    };
    let total = pieces.iter().map(RecordBatch::num_rows).sum();
    let windows: Vec<_> = bounds(total, rows)
        .map(|(start, len)| parts(pieces, start, len))
        .collect();
    let n = writers.len();
    // Columns to threads: each, largest first, to the least loaded.
    let mut order: Vec<(usize, usize)> = (0..n).map(|c| (column_bytes(pieces, c), c)).collect();
    order.sort_by(|a, b| b.cmp(a));
    let jobs = jobs.clamp(1, n.max(1));
    let mut shares: Vec<(usize, Vec<(usize, ArrowColumnWriter)>)> =
        (0..jobs).map(|_| (0, Vec::new())).collect();
    let mut writers: Vec<Option<ArrowColumnWriter>> = writers.into_iter().map(Some).collect();
    for (bytes, c) in order {
        let least = shares.iter_mut().min_by_key(|s| s.0);
        if let (Some(share), Some(w)) = (least, writers[c].take()) {
            share.0 += bytes;
            share.1.push((c, w));
        }
    }
    let encode = |(c, mut w): (usize, ArrowColumnWriter)| {
        let field = schema.field(c);
        for parts in &windows {
            for leaf in compute_leaves(field, &column(parts, c, false))? {
                w.write(&leaf)?;
            }
        }
        Ok((c, w.close()?))
    };
    let shares = shares.into_iter().map(|s| s.1).collect();
    let done = ordered::run_scoped(shares, |share: Vec<(usize, ArrowColumnWriter)>| {
        share
            .into_iter()
            .map(encode)
            .collect::<Result<Vec<_>, ParquetError>>()
    });
    let mut chunks: Vec<Option<ArrowColumnChunk>> = (0..n).map(|_| None).collect();
    for share in done {
        for (c, chunk) in share? {
            chunks[c] = Some(chunk);
        }
    }
    chunks
        .into_iter()
        .map(|c| c.ok_or_else(|| ParquetError::General("a column was not encoded".into())))
        .collect()
}
