//! Rows as Arrow record batches (feature `parquet`): each table's schema
//! from its columns, and a batch from any rows, column by column through
//! [`Row::cell`]; what Parquet and Arrow IPC writers take.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use super::rows::{Cell, ColumnType, Row};
use super::Table;

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
    let columns: Vec<ArrayRef> = R::COLUMNS
        .iter()
        .enumerate()
        .map(|(i, c)| -> ArrayRef {
            match c.ty {
                ColumnType::Int64 => {
                    let mut b = Int64Builder::with_capacity(rows.len());
                    for row in rows {
                        match row.cell(i) {
                            Cell::Int(n) => b.append_value(n),
                            _ => b.append_null(),
                        }
                    }
                    Arc::new(b.finish())
                }
                ColumnType::Text => {
                    let mut b = StringBuilder::with_capacity(rows.len(), rows.len() * 8);
                    for row in rows {
                        match row.cell(i) {
                            Cell::Text(s) => b.append_value(s),
                            _ => b.append_null(),
                        }
                    }
                    Arc::new(b.finish())
                }
            }
        })
        .collect();
    RecordBatch::try_new(schema(R::TABLE), columns)
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
