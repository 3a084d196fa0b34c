//! The row types: each table's columns (name, type, meaning) listed once,
//! and its cells by index.

use super::Table;
use crate::diag::Diagnostic;

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// A signed 64-bit integer.
    Int64,
    /// UTF-8 text.
    Text,
}

impl ColumnType {
    /// The type's SQL name (`BIGINT`, `VARCHAR`).
    pub fn sql(self) -> &'static str {
        match self {
            ColumnType::Int64 => "BIGINT",
            ColumnType::Text => "VARCHAR",
        }
    }
}

/// A column of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Column {
    /// The column's name.
    pub name: &'static str,
    /// Its type.
    pub ty: ColumnType,
    /// Whether a cell may be null.
    pub nullable: bool,
    /// What it holds, in one sentence.
    pub doc: &'static str,
}

const fn int(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        ty: ColumnType::Int64,
        nullable: false,
        doc,
    }
}

const fn opt_int(name: &'static str, doc: &'static str) -> Column {
    Column {
        nullable: true,
        ..int(name, doc)
    }
}

const fn text(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        ty: ColumnType::Text,
        nullable: false,
        doc,
    }
}

const fn opt_text(name: &'static str, doc: &'static str) -> Column {
    Column {
        nullable: true,
        ..text(name, doc)
    }
}

/// One cell of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    /// No value.
    Null,
    /// An integer.
    Int(i64),
    /// Text.
    Text(&'a str),
}

impl<'a> From<Option<&'a str>> for Cell<'a> {
    fn from(s: Option<&'a str>) -> Cell<'a> {
        s.map_or(Cell::Null, Cell::Text)
    }
}

impl From<Option<i64>> for Cell<'_> {
    fn from(n: Option<i64>) -> Self {
        n.map_or(Cell::Null, Cell::Int)
    }
}

/// A row of one table.
pub trait Row {
    /// The table the row belongs to.
    const TABLE: Table;
    /// The table's columns, in order.
    const COLUMNS: &'static [Column];
    /// The cell of column `i` (of [`Row::COLUMNS`]); [`Cell::Null`] past
    /// the last column.
    fn cell(&self, i: usize) -> Cell<'_>;
}

/// An `i64` from an unsigned count or offset (saturating: offsets beyond
/// 2^63 do not occur).
fn n(v: u64) -> Cell<'static> {
    Cell::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// One structure of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeRow {
    /// The file's id (see [`FileRow::file_id`]).
    pub file_id: u32,
    /// The byte offset of the structure's first line in its file as read
    /// (without a byte-order mark, UTF-16 transcoded: [`Input::bytes`](crate::Input::bytes)).
    pub node_id: u64,
    /// The `node_id` of its record (its own for a record).
    pub record_id: u64,
    /// The `node_id` of its superstructure; `None` for a record.
    pub parent_id: Option<u64>,
    /// Its position among its superstructure's substructures, from 0;
    /// `None` for a record.
    pub ordinal: Option<u32>,
    /// Its level.
    pub level: u32,
    /// Its tag.
    pub tag: String,
    /// The tags from its record down to it, joined by dots.
    pub path: String,
    /// Its record's tag.
    pub record_tag: String,
    /// Its record's xref_id, `@` signs included.
    pub record_xref: Option<String>,
    /// Its own xref_id.
    pub xref: Option<String>,
    /// Its pointer payload.
    pub pointer: Option<String>,
    /// Its string payload, decoded (additional lines joined, `@@` undone).
    pub text: Option<String>,
    /// Its structure type's IRI, when the schema knows it.
    pub ty: Option<String>,
    /// The number of its first line.
    pub line: u64,
}

impl Row for NodeRow {
    const TABLE: Table = Table::Nodes;
    const COLUMNS: &'static [Column] = &[
        int("file_id", "the file's id (files.file_id)"),
        int("node_id", "byte offset of the structure's first line in its file as read: without a byte-order mark, UTF-16 transcoded to UTF-8, a GEDZIP's gedcom.ged"),
        int("record_id", "node_id of the structure's record (its own for a record)"),
        opt_int("parent_id", "node_id of its superstructure; null for a record"),
        opt_int("ordinal", "position among its superstructure's substructures, from 0; null for a record (order records by node_id)"),
        int("level", "its level: 0 for a record"),
        text("tag", "its tag"),
        text("path", "the tags from its record down to it, joined by dots (INDI.BIRT.DATE)"),
        text("record_tag", "its record's tag"),
        opt_text("record_xref", "its record's xref_id, @ signs included"),
        opt_text("xref", "its own xref_id"),
        opt_text("pointer", "its pointer payload (@I1@)"),
        opt_text("text", "its string payload, decoded: CONT/CONC joined, @@ undone"),
        opt_text("type", "its structure type's IRI, when the document's schema knows it"),
        int("line", "the number of its first line in its file"),
    ];

    #[inline(always)]
    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.node_id),
            2 => n(self.record_id),
            3 => self.parent_id.map_or(Cell::Null, n),
            4 => self.ordinal.map_or(Cell::Null, |o| Cell::Int(o.into())),
            5 => Cell::Int(self.level.into()),
            6 => Cell::Text(&self.tag),
            7 => Cell::Text(&self.path),
            8 => Cell::Text(&self.record_tag),
            9 => self.record_xref.as_deref().into(),
            10 => self.xref.as_deref().into(),
            11 => self.pointer.as_deref().into(),
            12 => self.text.as_deref().into(),
            13 => self.ty.as_deref().into(),
            14 => n(self.line),
            _ => Cell::Null,
        }
    }
}

/// One input file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileRow {
    /// The file's id: its position among the inputs, from 0.
    pub file_id: u32,
    /// Its path as given (or found in a directory); `-` for standard input.
    pub path: String,
    /// Its size in bytes as read (a GEDZIP's: its `gedcom.ged`'s), when
    /// it could be read.
    pub size: Option<u64>,
    /// The encoding it was read in.
    pub encoding: Option<String>,
    /// The HEAD's `GEDC.VERS`.
    pub version: Option<String>,
    /// Records read.
    pub records: u64,
    /// Structures read (rows of `nodes`).
    pub structures: u64,
    /// Lines read (`None` when the file failed).
    pub lines: Option<u64>,
    /// Diagnostics of the reader.
    pub diagnostics: u64,
    /// `ok`, or `failed` when the file could not be read to its end.
    pub status: &'static str,
    /// Why it failed.
    pub error: Option<String>,
}

impl Row for FileRow {
    const TABLE: Table = Table::Files;
    const COLUMNS: &'static [Column] = &[
        int("file_id", "the file's id: its position among the inputs (directories expanded, sorted), from 0"),
        text("path", "its path as given or found in a directory; - for standard input"),
        opt_int("size", "its size in bytes as read (a GEDZIP's: its gedcom.ged's); null when it could not be read"),
        opt_text("encoding", "the character encoding it was read in"),
        opt_text("version", "the HEAD's GEDC.VERS"),
        int("records", "records read"),
        int("structures", "structures read: its rows of nodes"),
        opt_int("lines", "lines read; null when it failed"),
        int("diagnostics", "diagnostics of the reader (its rows of diagnostics, the failure aside)"),
        text("status", "ok, or failed when it could not be read to its end (the rows before the failure are kept)"),
        opt_text("error", "why it failed"),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => Cell::Text(&self.path),
            2 => self.size.map_or(Cell::Null, n),
            3 => self.encoding.as_deref().into(),
            4 => self.version.as_deref().into(),
            5 => n(self.records),
            6 => n(self.structures),
            7 => self.lines.map_or(Cell::Null, n),
            8 => n(self.diagnostics),
            9 => Cell::Text(self.status),
            10 => self.error.as_deref().into(),
            _ => Cell::Null,
        }
    }
}

/// One diagnostic of the reader, or a file's failure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiagnosticRow {
    /// The file's id.
    pub file_id: u32,
    /// The line it is about (0 when none).
    pub line: u64,
    /// The byte offset of that line.
    pub byte: Option<u64>,
    /// The kind's identifier (`too-deep`, ...; `failed` for a failure).
    pub kind: String,
    /// `warning` or `error`.
    pub severity: &'static str,
    /// The message.
    pub message: String,
}

impl DiagnosticRow {
    /// The row of a reader's diagnostic.
    pub fn new(file_id: u32, d: &Diagnostic) -> DiagnosticRow {
        DiagnosticRow {
            file_id,
            line: d.position.line,
            byte: Some(d.position.byte),
            kind: d.kind.id().to_string(),
            severity: d.kind.severity().as_str(),
            message: d.message.clone(),
        }
    }
}

impl Row for DiagnosticRow {
    const TABLE: Table = Table::Diagnostics;
    const COLUMNS: &'static [Column] = &[
        int("file_id", "the file's id"),
        int("line", "the line it is about; 0 when none"),
        opt_int("byte", "the byte offset of that line"),
        text("kind", "the reader's diagnostic kind (too-deep, unparsable-line, ...), or failed: the file could not be read on"),
        text("severity", "warning or error"),
        text("message", "what is wrong"),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.line),
            2 => self.byte.map_or(Cell::Null, n),
            3 => Cell::Text(&self.kind),
            4 => Cell::Text(self.severity),
            5 => Cell::Text(&self.message),
            _ => Cell::Null,
        }
    }
}

/// A date and a place: an event's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatedPlace {
    /// The `DATE` payload as written.
    pub date: Option<String>,
    /// The first Julian day number the date can mean (`i64::MIN` for
    /// `BEF x`), when the date layer computes it.
    pub first_day: Option<i64>,
    /// The last one (`i64::MAX` for `AFT x`).
    pub last_day: Option<i64>,
    /// The `PLAC` payload.
    pub place: Option<String>,
}

impl DatedPlace {
    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => self.date.as_deref().into(),
            1 => self.first_day.into(),
            2 => self.last_day.into(),
            _ => self.place.as_deref().into(),
        }
    }
}

/// What `*_first_day` columns hold.
const FIRST_DAY: &str = "the first Julian day number the date can mean (the smallest BIGINT for BEF and TO); null for a phrase or a calendar not computed";
/// What `*_last_day` columns hold.
const LAST_DAY: &str =
    "the last Julian day number the date can mean (the largest BIGINT for AFT and FROM)";

macro_rules! dated {
    ($p:literal, $what:literal) => {
        [
            opt_text(
                concat!($p, "_date"),
                concat!("the first ", $what, "'s DATE as written"),
            ),
            opt_int(concat!($p, "_first_day"), FIRST_DAY),
            opt_int(concat!($p, "_last_day"), LAST_DAY),
            opt_text(concat!($p, "_place"), concat!("that ", $what, "'s PLAC")),
        ]
    };
}

const BIRTH: [Column; 4] = dated!("birth", "BIRT");
const DEATH: [Column; 4] = dated!("death", "DEAT");
const MARRIAGE: [Column; 4] = dated!("marriage", "MARR");

/// One `INDI` record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndividualRow {
    /// The file's id.
    pub file_id: u32,
    /// The record's `node_id`.
    pub record_id: u64,
    /// Its xref_id.
    pub xref: Option<String>,
    /// Its first `NAME` as usually written (no slashes).
    pub name: Option<String>,
    /// That name's given part (its `GIVN` when it has one).
    pub given: Option<String>,
    /// Its surname (its `SURN` when it has one).
    pub surname: Option<String>,
    /// The first `SEX` payload.
    pub sex: Option<String>,
    /// The first `BIRT`.
    pub birth: DatedPlace,
    /// The first `DEAT`.
    pub death: DatedPlace,
    /// The record's first line.
    pub line: u64,
}

const INDIVIDUAL_COLUMNS: [Column; 16] = [
    int("file_id", "the file's id"),
    int("record_id", "the record's node_id"),
    opt_text("xref", "its xref_id"),
    opt_text("name", "its first NAME as usually written, without slashes"),
    opt_text(
        "given",
        "that name's given names (its GIVN when it has one)",
    ),
    opt_text("surname", "that name's surname (its SURN when it has one)"),
    opt_text("sex", "the first SEX payload"),
    BIRTH[0],
    BIRTH[1],
    BIRTH[2],
    BIRTH[3],
    DEATH[0],
    DEATH[1],
    DEATH[2],
    DEATH[3],
    int("line", "the record's first line"),
];

impl Row for IndividualRow {
    const TABLE: Table = Table::Individuals;
    const COLUMNS: &'static [Column] = &INDIVIDUAL_COLUMNS;

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.record_id),
            2 => self.xref.as_deref().into(),
            3 => self.name.as_deref().into(),
            4 => self.given.as_deref().into(),
            5 => self.surname.as_deref().into(),
            6 => self.sex.as_deref().into(),
            7..=10 => self.birth.cell(i - 7),
            11..=14 => self.death.cell(i - 11),
            15 => n(self.line),
            _ => Cell::Null,
        }
    }
}

/// One `FAM` record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamilyRow {
    /// The file's id.
    pub file_id: u32,
    /// The record's `node_id`.
    pub record_id: u64,
    /// Its xref_id.
    pub xref: Option<String>,
    /// The first `HUSB` pointer.
    pub husband: Option<String>,
    /// The first `WIFE` pointer.
    pub wife: Option<String>,
    /// How many `CHIL` substructures.
    pub children: u64,
    /// The first `MARR`.
    pub marriage: DatedPlace,
    /// The record's first line.
    pub line: u64,
}

const FAMILY_COLUMNS: [Column; 11] = [
    int("file_id", "the file's id"),
    int("record_id", "the record's node_id"),
    opt_text("xref", "its xref_id"),
    opt_text("husband", "the first HUSB pointer"),
    opt_text("wife", "the first WIFE pointer"),
    int("children", "how many CHIL it has"),
    MARRIAGE[0],
    MARRIAGE[1],
    MARRIAGE[2],
    MARRIAGE[3],
    int("line", "the record's first line"),
];

impl Row for FamilyRow {
    const TABLE: Table = Table::Families;
    const COLUMNS: &'static [Column] = &FAMILY_COLUMNS;

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.record_id),
            2 => self.xref.as_deref().into(),
            3 => self.husband.as_deref().into(),
            4 => self.wife.as_deref().into(),
            5 => n(self.children),
            6..=9 => self.marriage.cell(i - 6),
            10 => n(self.line),
            _ => Cell::Null,
        }
    }
}

/// One `HUSB`, `WIFE` or `CHIL` of a `FAM` record: a person's place in a
/// family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeRow {
    /// The file's id.
    pub file_id: u32,
    /// The `node_id` of the `HUSB`, `WIFE` or `CHIL` structure.
    pub node_id: u64,
    /// The family record's `node_id`.
    pub family_id: u64,
    /// The family's xref_id.
    pub family: Option<String>,
    /// The person's pointer.
    pub person: String,
    /// `HUSB`, `WIFE` or `CHIL`.
    pub role: String,
    /// A `PEDI` under it (rare: 5.5.1 puts it under the child's `FAMC`).
    pub pedigree: Option<String>,
}

impl Row for EdgeRow {
    const TABLE: Table = Table::Edges;
    const COLUMNS: &'static [Column] = &[
        int("file_id", "the file's id"),
        int("node_id", "node_id of the HUSB, WIFE or CHIL structure"),
        int("family_id", "the family record's node_id"),
        opt_text("family", "the family's xref_id"),
        text(
            "person",
            "the person's pointer (individuals.xref of the same file_id)",
        ),
        text("role", "HUSB, WIFE or CHIL"),
        opt_text(
            "pedigree",
            "a PEDI under it; the child's own is in nodes, path INDI.FAMC.PEDI",
        ),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.node_id),
            2 => n(self.family_id),
            3 => self.family.as_deref().into(),
            4 => Cell::Text(&self.person),
            5 => Cell::Text(&self.role),
            6 => self.pedigree.as_deref().into(),
            _ => Cell::Null,
        }
    }
}

/// One event or attribute of an `INDI` or `FAM` record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventRow {
    /// The file's id.
    pub file_id: u32,
    /// The event structure's `node_id`.
    pub node_id: u64,
    /// Its record's `node_id`.
    pub record_id: u64,
    /// Its record's tag (`INDI` or `FAM`).
    pub record_tag: String,
    /// Its record's xref_id.
    pub record_xref: Option<String>,
    /// The event's tag.
    pub tag: String,
    /// Its `TYPE`.
    pub kind: Option<String>,
    /// Its payload (`Y`, an attribute's value).
    pub value: Option<String>,
    /// Its first `DATE` and `PLAC`.
    pub when: DatedPlace,
    /// Its first `AGE`.
    pub age: Option<String>,
    /// Its first line.
    pub line: u64,
}

impl Row for EventRow {
    const TABLE: Table = Table::Events;
    const COLUMNS: &'static [Column] = &[
        int("file_id", "the file's id"),
        int("node_id", "the event structure's node_id"),
        int("record_id", "its record's node_id"),
        text("record_tag", "its record's tag: INDI or FAM"),
        opt_text("record_xref", "its record's xref_id"),
        text(
            "tag",
            "the event's or attribute's tag (BIRT, MARR, OCCU, EVEN, ...)",
        ),
        opt_text("type", "its TYPE"),
        opt_text("value", "its payload (Y, or an attribute's value)"),
        opt_text("date", "its first DATE as written"),
        opt_int("first_day", FIRST_DAY),
        opt_int("last_day", LAST_DAY),
        opt_text("place", "its first PLAC"),
        opt_text("age", "its first AGE as written"),
        int("line", "its first line"),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.node_id),
            2 => n(self.record_id),
            3 => Cell::Text(&self.record_tag),
            4 => self.record_xref.as_deref().into(),
            5 => Cell::Text(&self.tag),
            6 => self.kind.as_deref().into(),
            7 => self.value.as_deref().into(),
            8..=11 => self.when.cell(i - 8),
            12 => self.age.as_deref().into(),
            13 => n(self.line),
            _ => Cell::Null,
        }
    }
}

/// One source citation (a `SOUR` substructure).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CitationRow {
    /// The file's id.
    pub file_id: u32,
    /// The `SOUR` structure's `node_id`.
    pub node_id: u64,
    /// Its record's `node_id`.
    pub record_id: u64,
    /// Its record's xref_id.
    pub record_xref: Option<String>,
    /// The `node_id` of the structure it cites for.
    pub parent_id: u64,
    /// Its path (`INDI.BIRT.SOUR`).
    pub path: String,
    /// The source record's pointer.
    pub source: Option<String>,
    /// The text of a source described in place (no pointer).
    pub text: Option<String>,
    /// Its `PAGE`.
    pub page: Option<String>,
    /// Its `QUAY`.
    pub quality: Option<String>,
    /// Its first line.
    pub line: u64,
}

impl Row for CitationRow {
    const TABLE: Table = Table::Citations;
    const COLUMNS: &'static [Column] = &[
        int("file_id", "the file's id"),
        int("node_id", "the SOUR structure's node_id"),
        int("record_id", "its record's node_id"),
        opt_text("record_xref", "its record's xref_id"),
        int("parent_id", "node_id of the structure it is a citation for"),
        text("path", "its path (INDI.BIRT.SOUR)"),
        opt_text("source", "the source record's pointer"),
        opt_text(
            "text",
            "the text of a source described in place, without a pointer",
        ),
        opt_text("page", "its PAGE"),
        opt_text("quay", "its QUAY"),
        int("line", "its first line"),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Int(self.file_id.into()),
            1 => n(self.node_id),
            2 => n(self.record_id),
            3 => self.record_xref.as_deref().into(),
            4 => n(self.parent_id),
            5 => Cell::Text(&self.path),
            6 => self.source.as_deref().into(),
            7 => self.text.as_deref().into(),
            8 => self.page.as_deref().into(),
            9 => self.quality.as_deref().into(),
            10 => n(self.line),
            _ => Cell::Null,
        }
    }
}

/// Rows of every table: those a chunk of records gives (the file-level
/// tables, `files` and `diagnostics`, are their caller's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// `nodes`.
    pub nodes: Vec<NodeRow>,
    /// `individuals`.
    pub individuals: Vec<IndividualRow>,
    /// `families`.
    pub families: Vec<FamilyRow>,
    /// `edges`.
    pub edges: Vec<EdgeRow>,
    /// `events`.
    pub events: Vec<EventRow>,
    /// `citations`.
    pub citations: Vec<CitationRow>,
    /// `files`: the caller's (a [`Collector`](super::Collector) leaves it
    /// empty), for writers that take every table's rows in one [`Rows`].
    pub files: Vec<FileRow>,
    /// `diagnostics`: the caller's, as `files`.
    pub diagnostics: Vec<DiagnosticRow>,
    /// Records read (whether or not a table has a row for them).
    pub records: u64,
    /// Structures read (whether or not `nodes` is asked for).
    pub structures: u64,
}

impl Rows {
    /// Appends `other`'s rows to these.
    pub fn append(&mut self, other: &mut Rows) {
        self.nodes.append(&mut other.nodes);
        self.individuals.append(&mut other.individuals);
        self.families.append(&mut other.families);
        self.edges.append(&mut other.edges);
        self.events.append(&mut other.events);
        self.citations.append(&mut other.citations);
        self.files.append(&mut other.files);
        self.diagnostics.append(&mut other.diagnostics);
        self.records += std::mem::take(&mut other.records);
        self.structures += std::mem::take(&mut other.structures);
    }
}
