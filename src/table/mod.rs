//! Flat tables of GEDCOM documents, for SQL engines, dataframes and
//! clusters: one row per structure (`nodes`), per input file (`files`), per
//! diagnostic (`diagnostics`), and rows derived from each record
//! (`individuals`, `families`, `edges`, `events`, `citations`).
//!
//! Every row of a file's structures is made from the reader's events of the
//! record it belongs to, so a chunk of whole records gives its rows alone:
//! chunks read on several threads give, in document order, exactly the rows
//! of one sequential read. A structure is identified by the byte offset of
//! its first line in its file (`node_id`), which needs no numbering across
//! chunks or files; with the file's `file_id` it is unique in a dataset.
//!
//! Rows are plain structs ([`NodeRow`], [`IndividualRow`], ...) gathered in
//! [`Rows`] by a [`Collector`]; every row type lists its table's columns
//! once ([`Row::COLUMNS`], with types and meanings) and gives its cells by
//! index ([`Row::cell`]), which is all a writer needs ([`write_csv`],
//! [`write_jsonl`]).
//!
//! ```
//! use gedcom_elf::table::{Collector, Tables, write_csv};
//! use gedcom_elf::Reader;
//!
//! let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n\
//!               1 BIRT\n2 DATE 10 DEC 1815\n0 TRLR\n";
//! let mut collector = Collector::new(0, Tables::ALL);
//! let reader = Reader::from_slice(input);
//! collector.prepare(&reader)?;
//! let (rows, error) = collector.collect(&mut reader.clone());
//! assert!(error.is_none());
//! assert_eq!(rows.nodes.len(), 7);
//! assert_eq!(rows.nodes[5].path, "INDI.BIRT.DATE");
//! let ada = &rows.individuals[0];
//! assert_eq!((ada.name.as_deref(), ada.birth.first_day), (Some("Ada Lovelace"), Some(2_384_318)));
//! let mut csv = Vec::new();
//! write_csv(&mut csv, &rows.individuals, true)?;
//! assert!(csv.starts_with(b"file_id,record_id,xref,name,given,surname,"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "parquet")]
pub mod arrow;
mod collect;
mod derive;
mod partition;
mod rows;
mod write;

pub use collect::{collect_input, Collector};
pub use partition::{PartitionBy, DEFAULT_PARTITION};
pub use rows::{
    CitationRow, Column, ColumnType, DatedPlace, DiagnosticRow, EdgeRow, EventRow, FamilyRow,
    FileRow, IndividualRow, NodeRow, Row, Rows,
};
pub use write::{
    cell_csv, write_csv, write_csv_header, write_csv_header_except, write_csv_row, write_jsonl,
    write_jsonl_row, Cell,
};

/// One of the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// One row per structure ([`NodeRow`]).
    Nodes,
    /// One row per input file ([`FileRow`]).
    Files,
    /// One row per diagnostic of the reader, or file that failed
    /// ([`DiagnosticRow`]).
    Diagnostics,
    /// One row per `INDI` record ([`IndividualRow`]).
    Individuals,
    /// One row per `FAM` record ([`FamilyRow`]).
    Families,
    /// One row per `HUSB`, `WIFE` and `CHIL` of a `FAM` record ([`EdgeRow`]).
    Edges,
    /// One row per event or attribute of an `INDI` or `FAM` record
    /// ([`EventRow`]).
    Events,
    /// One row per source citation ([`CitationRow`]).
    Citations,
}

impl Table {
    /// Every table, in the order of their documentation.
    pub const ALL: [Table; 8] = [
        Table::Nodes,
        Table::Files,
        Table::Diagnostics,
        Table::Individuals,
        Table::Families,
        Table::Edges,
        Table::Events,
        Table::Citations,
    ];

    /// The table's name (lowercase, plural): its directory's name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Nodes => "nodes",
            Table::Files => "files",
            Table::Diagnostics => "diagnostics",
            Table::Individuals => "individuals",
            Table::Families => "families",
            Table::Edges => "edges",
            Table::Events => "events",
            Table::Citations => "citations",
        }
    }

    /// The table named `name` (as [`Table::name`] gives it).
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The table's columns, in order.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Nodes => NodeRow::COLUMNS,
            Table::Files => FileRow::COLUMNS,
            Table::Diagnostics => DiagnosticRow::COLUMNS,
            Table::Individuals => IndividualRow::COLUMNS,
            Table::Families => FamilyRow::COLUMNS,
            Table::Edges => EdgeRow::COLUMNS,
            Table::Events => EventRow::COLUMNS,
            Table::Citations => CitationRow::COLUMNS,
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of tables: those a [`Collector`] makes rows for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tables(u8);

impl Tables {
    /// Every table.
    pub const ALL: Tables = Tables(u8::MAX);
    /// No table.
    pub const NONE: Tables = Tables(0);

    /// This set with `table` in it.
    pub fn with(self, table: Table) -> Tables {
        Tables(self.0 | table.bit())
    }

    /// Whether `table` is in the set.
    pub fn contains(self, table: Table) -> bool {
        self.0 & table.bit() != 0
    }

    /// The tables in the set, in [`Table::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Table> {
        Table::ALL.into_iter().filter(move |t| self.contains(*t))
    }
}

impl FromIterator<Table> for Tables {
    fn from_iter<I: IntoIterator<Item = Table>>(iter: I) -> Tables {
        iter.into_iter().fold(Tables::NONE, Tables::with)
    }
}
