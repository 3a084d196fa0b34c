//! Rows from a reader's events, record by record.

use std::sync::Arc;

use super::derive;
use super::rows::{NodeRow, Rows};
use super::{Table, Tables};
use crate::diag::{Diagnostic, Error};
use crate::event::Event;
use crate::input::Input;
use crate::par::{Chunks, Summary};
use crate::read::{Reader, ReaderConfig};
use crate::tree::{Schema, TypeResolver};

/// Makes the rows of one file's records, chunk by chunk: a chunk of whole
/// records (or the whole document) gives its rows alone, so the rows of a
/// file's chunks, concatenated in document order, are those of the whole
/// file whatever the chunks. [`Collector::prepare`] reads the HEAD first
/// (its schema types the structures, its `GEDC.VERS` is the version).
#[derive(Clone, Debug)]
pub struct Collector {
    file_id: u32,
    tables: Tables,
    schema: Arc<Schema>,
    first_line: u64,
    version: Option<String>,
}

impl Collector {
    /// A collector of the rows of `tables` for the file `file_id`, with the
    /// default schema until [`Collector::prepare`].
    pub fn new(file_id: u32, tables: Tables) -> Collector {
        Collector {
            file_id,
            tables,
            schema: Schema::default_schema(),
            first_line: 1,
            version: None,
        }
    }

    /// Reads the document's HEAD through a copy of `reader`, a reader of
    /// the whole document (or of its first batch) that has returned no
    /// event yet: the schema, the first line, the version.
    ///
    /// # Errors
    /// A reading error of the HEAD.
    pub fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        self.schema = Schema::from_reader(reader.clone())?;
        // A reader of the first record alone: one of the whole document
        // would look over all of it (UTF-8, NULs) before its first event,
        // on this one thread, before any chunk is read.
        let mut head = crate::par::first_record_reader(reader.clone());
        // The tags open, to know a HEAD.GEDC.VERS when it comes.
        let mut open: Vec<String> = Vec::new();
        while let Some(event) = head.next_event()? {
            match event {
                Event::Begin(b) => {
                    if open.is_empty() {
                        self.first_line = b.line;
                    }
                    let path = [open.as_slice(), &[b.tag.to_string()]].concat();
                    if path == ["HEAD", "GEDC", "VERS"] && self.version.is_none() {
                        self.version = b.text().map(|t| t.into_owned());
                    }
                    open.push(b.tag.into_owned());
                }
                Event::End(_) => {
                    open.pop();
                    if open.is_empty() {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// The HEAD's `GEDC.VERS`, once [`Collector::prepare`] read it.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// The file's id the rows carry.
    pub fn file_id(&self) -> u32 {
        self.file_id
    }

    /// Reads `reader` (whole records: a document, a chunk or a batch) to
    /// its end and gives its rows; a reading error ends it, without the
    /// rows of the record it interrupts, and is returned beside them.
    pub fn collect(&self, reader: &mut Reader<'_>) -> (Rows, Option<Error>) {
        let mut rows = Rows::default();
        let keep = self.tables.contains(Table::Nodes);
        let mut nodes = Vec::new();
        let error = self.collect_with(reader, &mut rows, |row| {
            if keep {
                nodes.push(row.clone());
            }
        });
        rows.nodes = nodes;
        (rows, error)
    }

    /// [`Collector::collect`] that hands each row of `nodes` to `node`
    /// (borrowed: the collector reuses its strings from one record to the
    /// next, so a node costs no allocation once a record of its shape has
    /// been read) instead of keeping it in `rows`, whose other tables and
    /// counts it fills. The rows of a record are handed over at its end,
    /// in document order; a reading error ends it, without the rows of the
    /// record it interrupts, and is returned.
    pub fn collect_with(
        &self,
        reader: &mut Reader<'_>,
        rows: &mut Rows,
        mut node: impl FnMut(&NodeRow),
    ) -> Option<Error> {
        let base = reader.base_offset();
        let mut types = TypeResolver::new(self.schema.clone()).document_starts_at(self.first_line);
        // The record being read (its first `len` rows; those past it are
        // kept for their strings), and the structures open in it: their
        // index in `record` and how many substructures they have so far.
        let mut record: Vec<NodeRow> = Vec::new();
        let mut len = 0;
        let mut open: Vec<(usize, u32)> = Vec::new();
        loop {
            // Matched in place: moving the event out of the result copied it.
            let event = reader.next_event();
            match &event {
                Ok(Some(Event::Begin(b))) => {
                    rows.structures += 1;
                    if len == record.len() {
                        record.push(NodeRow::default());
                    }
                    let (before, after) = record.split_at_mut(len);
                    let row = &mut after[0];
                    let node_id = base + b.span.start as u64;
                    row.file_id = self.file_id;
                    row.node_id = node_id;
                    row.level = b.level;
                    row.line = b.line;
                    set(&mut row.tag, &b.tag);
                    set_opt(
                        &mut row.xref,
                        b.xref.as_ref().map(|x| x.to_str_lossy()).as_deref(),
                    );
                    set_opt(
                        &mut row.pointer,
                        b.pointer().map(|p| p.to_str_lossy()).as_deref(),
                    );
                    set_opt(&mut row.text, b.text().as_deref());
                    match types.begin(b).map(|t| t.parts()) {
                        Some((base, suffix)) => {
                            let ty = row.ty.get_or_insert_with(String::new);
                            set(ty, base);
                            ty.push_str(suffix);
                        }
                        None => row.ty = None,
                    }
                    match open.last_mut() {
                        None => {
                            row.record_id = node_id;
                            row.parent_id = None;
                            row.ordinal = None;
                            row.path.clone_from(&row.tag);
                            row.record_tag.clone_from(&row.tag);
                            row.record_xref.clone_from(&row.xref);
                        }
                        Some((at, children)) => {
                            let parent = &before[*at];
                            row.ordinal = Some(*children);
                            *children += 1;
                            row.parent_id = Some(parent.node_id);
                            row.record_id = parent.record_id;
                            row.path.clone_from(&parent.path);
                            row.path.push('.');
                            row.path.push_str(&row.tag);
                            row.record_tag.clone_from(&parent.record_tag);
                            row.record_xref.clone_from(&parent.record_xref);
                        }
                    }
                    open.push((len, 0));
                    len += 1;
                }
                Ok(Some(Event::End(_))) => {
                    types.end();
                    open.pop();
                    if open.is_empty() {
                        rows.records += 1;
                        let nodes = &record[..len];
                        derive::record(nodes, self.tables, rows);
                        if self.tables.contains(Table::Nodes) {
                            nodes.iter().for_each(&mut node);
                        }
                        len = 0;
                    }
                }
                Ok(None) => return None,
                Err(_) => return event.err(),
            }
        }
    }
}

/// `to` made `from`, its buffer kept.
fn set(to: &mut String, from: &str) {
    to.clear();
    to.push_str(from);
}

/// `to` made `from`, its buffer kept when it has one.
fn set_opt(to: &mut Option<String>, from: Option<&str>) {
    match (to.as_mut(), from) {
        (Some(s), Some(from)) => set(s, from),
        (None, Some(from)) => *to = Some(from.to_string()),
        (_, None) => *to = None,
    }
}

/// The rows of a whole input, its chunks of about `batch_bytes` read on
/// `jobs` threads, with the reading's summary and diagnostics (in document
/// order): what the command-line tool's `table` writes for one file.
///
/// ```
/// use gedcom_elf::table::{collect_input, Tables};
/// use gedcom_elf::{Input, ReaderConfig};
///
/// let text = b"0 HEAD\n1 CHAR UTF-8\n0 @F1@ FAM\n1 HUSB @I1@\n1 CHIL @I2@\n0 TRLR\n";
/// let input = Input::new(text)?;
/// let (rows, _, _) = collect_input(&input, ReaderConfig::new(), 0, Tables::ALL, 2, 16)?;
/// let roles: Vec<_> = rows.edges.iter().map(|e| (e.role.as_str(), e.person.as_str())).collect();
/// assert_eq!(roles, [("HUSB", "@I1@"), ("CHIL", "@I2@")]);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
///
/// # Errors
/// A reading error (not GEDCOM, `strict` stopped): the rows before it are
/// lost.
pub fn collect_input(
    input: &Input<'_>,
    config: ReaderConfig,
    file_id: u32,
    tables: Tables,
    jobs: usize,
    batch_bytes: usize,
) -> Result<(Rows, Summary, Vec<Diagnostic>), Error> {
    let mut collector = Collector::new(file_id, tables);
    collector.prepare(&input.reader_with_config(config.clone()))?;
    let chunks = Chunks::new(input, config)?
        .batch_bytes(batch_bytes)
        .jobs(jobs);
    let (mut rows, mut diagnostics) = (Rows::default(), Vec::new());
    let collector = &collector;
    let summary = chunks.for_each(
        |reader| Ok(collector.collect(reader)),
        |(mut part, error), ds| {
            rows.append(&mut part);
            diagnostics.extend(ds);
            error.map_or(Ok(()), Err)
        },
    )?;
    diagnostics.extend(summary.diagnostics.iter().cloned());
    Ok((rows, summary, diagnostics))
}
