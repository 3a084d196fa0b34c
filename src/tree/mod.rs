//! Trees on demand: a whole document as an arena of compact nodes
//! ([`Tree`]), or one owned record at a time ([`Records`], [`RecordTree`]);
//! structure type identifiers from the document's ELF schema ([`schema`],
//! [`TypeResolver`]).
//!
//! A [`Tree`] is built from the public [`Reader`] only. Its nodes are 20
//! bytes each (parent, end of subtree, line, payload offset, and packed
//! kind, flags and payload length) and borrow every string from the input:
//! tags, xrefs and payloads stay raw bytes until asked for, and payload text
//! is decoded by
//! [`Payload::text`](crate::Payload::text) exactly as the reader would.
//! Children are in document order; a subtree is a contiguous range of
//! nodes, so walks, drops and serialisation never recurse.
//!
//! ```
//! use gedcom_elf::tree::Tree;
//!
//! let input = b"0 HEAD\n1 CHAR UTF-8\n\
//!     0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 BIRT\n2 DATE 10 DEC 1815\n2 PLAC London\n1 FAMS @F1@\n\
//!     0 @F1@ FAM\n1 HUSB @I2@\n1 WIFE @I1@\n0 TRLR\n";
//! let tree = Tree::from_slice(input)?;
//! let ada = tree.find("@I1@").unwrap();
//! assert_eq!(ada.first("BIRT.PLAC").unwrap().text().unwrap(), "London");
//! assert_eq!(ada.structure_type().unwrap(), "https://terms.fhiso.org/elf/INDIVIDUAL_RECORD");
//!
//! // Pointers resolve to their record, or to a synthetic UNDEF record.
//! let fam = ada.child("FAMS").unwrap().target().unwrap();
//! assert_eq!(fam.tag(), "FAM");
//! let husband = fam.child("HUSB").unwrap().target().unwrap();
//! assert_eq!((husband.tag(), husband.is_synthetic()), ("UNDEF", true));
//!
//! // Paths from the top name the record's tag first.
//! let dates: Vec<_> = tree.path("INDI.BIRT.DATE").map(|n| n.text().unwrap()).collect();
//! assert_eq!(dates, ["10 DEC 1815"]);
//! # Ok::<(), gedcom_elf::Error>(())
//! ```

mod arena;
pub(crate) mod hash;
mod index;
mod iri;
mod records;
pub mod schema;
mod typed;
mod types;

use std::sync::{Arc, OnceLock};

pub use arena::{Children, NodeId, NodeRef, PathIter, Step, Walk};
pub(crate) use arena::{RawStep, RawValue, RawWalk};
pub use iri::StructureType;
pub use records::{RecordTree, Records};
pub use schema::{Schema, SchemaSource};
pub use types::TypeResolver;

use crate::diag::{Diagnostic, Error};
use crate::escape::EscapeTable;
use crate::event::Event;
use crate::par::{Chunks, Numbering};
use crate::read::Reader;
use crate::Input;
use arena::{Builder, Core, Diagnostics, Joiner, Shared, Src};

pub(crate) use arena::utf8_prefix;

/// A whole document as a tree: see the [module documentation](self).
///
/// Memory: the input (borrowed, not copied) plus 20 bytes per
/// structure, plus small tables for xref_ids, continued payloads and the
/// xref index. [`Tree::memory_bytes`] reports it.
pub struct Tree<'a> {
    input: &'a [u8],
    core: Core,
    diagnostics: Diagnostics,
    /// The input's longest valid UTF-8 prefix, found on first use: nodes'
    /// payloads and tags inside it need no UTF-8 check of their own.
    text: OnceLock<&'a str>,
    /// Where `text` begins in the input (a chunk's own tree's: its
    /// chunk's).
    text_base: usize,
}

impl std::fmt::Debug for Tree<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tree")
            .field("nodes", &self.len())
            .field("records", &self.record_count())
            .finish()
    }
}

/// What a tree's nodes share: its schema and the escape table.
fn shared_of(schema: &Arc<Schema>, escapes: EscapeTable) -> Arc<Shared> {
    Arc::new(Shared {
        schema: schema.clone(),
        escapes,
    })
}

/// A builder fed with everything `reader` reads (about `size` bytes;
/// `first`: the HEAD is among them; `keys`: its pointers will be resolved),
/// its diagnostics to `take`: the one way a tree, a chunk's part of one,
/// or a chunk's own tree is read.
fn read_into<'a>(
    reader: &mut Reader<'a>,
    shared: Arc<Shared>,
    (first, size, keys): (bool, usize, bool),
    take: impl FnMut(Diagnostic),
) -> Result<Builder<'a>, Error> {
    let mut builder = Builder::new(reader.input(), shared, size / 16 + 16, true)?;
    if !keys {
        builder.without_keys();
    }
    if !first {
        builder.after_first_record();
    }
    feed(&mut builder, reader, take)?;
    Ok(builder)
}

/// Feeds every event of `reader` to `builder` ([`Reader::feed`]).
fn feed<'a>(
    builder: &mut Builder<'a>,
    reader: &mut Reader<'a>,
    take: impl FnMut(Diagnostic),
) -> Result<(), Error> {
    reader.feed(
        |e| match e {
            Event::Begin(b) => builder.begin(b),
            Event::End(_) => {
                builder.end();
                Ok(())
            }
        },
        take,
    )
}

impl<'a> Tree<'a> {
    /// Builds the tree of everything `reader` reads, with the schema of
    /// its HEAD (`reader` must not have returned an event yet).
    ///
    /// # Errors
    /// The reader's errors: not GEDCOM, unsupported encoding, strict mode;
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit) for inputs of 4 GiB or
    /// more (read those with [`Records`]).
    pub fn build(reader: Reader<'a>) -> Result<Tree<'a>, Error> {
        let schema = Schema::from_reader(reader.clone())?;
        Tree::build_with_schema(reader, schema)
    }

    /// Like [`Tree::build`], typing structures with `schema` instead of the
    /// HEAD's.
    ///
    /// # Errors
    /// As [`Tree::build`].
    pub fn build_with_schema(
        mut reader: Reader<'a>,
        schema: Arc<Schema>,
    ) -> Result<Tree<'a>, Error> {
        let input = reader.input();
        let mut diagnostics = Diagnostics::default();
        let (shared, size) = (shared_of(&schema, EscapeTable::default()), input.len());
        let builder = read_into(&mut reader, shared, (true, size, true), |d| {
            diagnostics.push(d)
        })?;
        // The end of input's own (a missing TRLR).
        for d in reader.drain_diagnostics() {
            diagnostics.push(d);
        }
        diagnostics.dropped += reader.stats().diagnostics_dropped;
        let mut core = builder.finish();
        core.shared = shared_of(&schema, reader.escape_table().clone());
        core.resolve_pointers(input, &mut diagnostics, 1);
        Ok(Tree {
            input,
            core,
            diagnostics,
            text: OnceLock::new(),
            text_base: 0,
        })
    }

    /// The tree of one piece of a document: the records `reader` reads,
    /// typed with `schema` (the document's, from its HEAD:
    /// [`Schema::from_reader`]); `first`: the piece begins the document
    /// (its first record may be the HEAD). For work on record-aligned
    /// pieces on many threads ([`StreamReader::for_each`]'s batches,
    /// [`Chunks::for_each`]'s chunks) that wants trees: one arena per piece,
    /// made and dropped on the thread that reads it.
    ///
    /// A piece holds only some of the records, so pointers are not
    /// resolved ([`NodeRef::target`] is `None`, [`Tree::find`] finds
    /// nothing) and no xref_ids are indexed. The reader's diagnostics stay
    /// with it, for the engine that made it to merge. Reading stops at the
    /// first error, which comes with the tree of the records read whole
    /// before it. The tree's [`input`](Tree::input) ends where the piece
    /// ends (a chunk's reader reads part of a longer input), and the UTF-8
    /// check its text needs covers the piece alone.
    ///
    /// ```
    /// use gedcom_elf::stream::StreamReader;
    /// use gedcom_elf::tree::{Schema, Tree};
    ///
    /// let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n");
    /// for i in 0..300 {
    ///     input += &format!("0 @I{i}@ INDI\n1 NAME Person {i}\n1 SEX F\n");
    /// }
    /// input += "0 TRLR\n";
    /// let mut stream = StreamReader::new(input.as_bytes()).batch_bytes(1024).jobs(2);
    /// // The HEAD's batch first, on this thread: the document's schema.
    /// let mut buf = Vec::new();
    /// let mut batch = stream.read_batch_into(&mut buf)?.unwrap();
    /// let reader = batch.reader_mut().unwrap();
    /// let schema = Schema::from_reader(reader.clone())?;
    /// let (tree, error) = Tree::build_piece(reader, &schema, true);
    /// assert!(error.is_none());
    /// let mut women = tree.records().filter(|r| r.first("SEX").is_some()).count();
    /// drop(batch);
    /// // The other batches on two threads, a tree each.
    /// stream.for_each(
    ///     |reader| {
    ///         let (tree, error) = Tree::build_piece(reader, &schema, false);
    ///         match error {
    ///             Some(e) => Err(e),
    ///             None => Ok(tree.records().filter(|r| r.first("SEX").is_some()).count()),
    ///         }
    ///     },
    ///     |n, _diagnostics| {
    ///         women += n;
    ///         Ok(())
    ///     },
    /// )?;
    /// assert_eq!(women, 300);
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    ///
    /// [`StreamReader::for_each`]: crate::stream::StreamReader::for_each
    /// [`Chunks::for_each`]: crate::par::Chunks::for_each
    pub fn build_piece(
        reader: &mut Reader<'a>,
        schema: &Arc<Schema>,
        first: bool,
    ) -> (Tree<'a>, Option<Error>) {
        // A chunk's reader reads `input[start..]` of an input that begins
        // with the chunks before it (and may go on after it).
        let (input, start) = reader.window();
        let start = start.min(input.len());
        let shared = shared_of(schema, reader.escape_table().clone());
        let built = Builder::new(
            input,
            shared.clone(),
            (input.len() - start) / 16 + 16,
            false,
        );
        let (mut builder, mut failed) = match built {
            Ok(b) => (b, None),
            // Too large for an arena: nothing is read.
            Err(e) => (Builder::empty(shared), Some(e)),
        };
        if !first {
            builder.after_first_record();
        }
        // Records read whole (their level-0 structure ended).
        let mut ended = 0;
        if failed.is_none() {
            let fed = reader.feed_keeping_diagnostics(|e| match e {
                Event::Begin(b) => builder.begin(b),
                Event::End(e) => {
                    builder.end();
                    ended += usize::from(e.level == 0);
                    Ok(())
                }
            });
            failed = fed.err();
        }
        let mut core = builder.finish_piece(ended);
        core.shared = shared_of(schema, reader.escape_table().clone());
        let tree = Tree {
            input,
            core,
            diagnostics: Diagnostics::default(),
            text: OnceLock::new(),
            // Its nodes are past `start`: the text it checks is from there.
            text_base: start,
        };
        // The reader found the valid text from there as it began: not
        // looked for again.
        if let Some((base, text)) = reader.valid_text().filter(|(base, _)| *base == start) {
            debug_assert_eq!(text.len(), arena::utf8_prefix(&input[base..]).len());
            tree.note_utf8_prefix(text);
        }
        (tree, failed)
    }

    /// Builds the tree of the input of `chunks` on its
    /// [`jobs`](Chunks::jobs) threads: the same tree as [`Tree::build`] of
    /// `input.reader_with_config(config)`, node for node, with the same
    /// diagnostics in the same order, faster on large inputs when there are
    /// cores to spare. With one job and no
    /// [`batch_bytes`](Chunks::batch_bytes) set it is [`Tree::build`];
    /// with `batch_bytes` set, the input is cut and merged even with one
    /// job: the result is the same whatever the chunks.
    ///
    /// Each thread builds the arena of one chunk after another, while the
    /// calling thread appends finished arenas, in document order, to the
    /// whole's; the xref_ids are then indexed and the pointers resolved on
    /// `jobs` threads, each taking its share of the index.
    ///
    /// ```
    /// use gedcom_elf::par::Chunks;
    /// use gedcom_elf::tree::Tree;
    /// use gedcom_elf::{Input, ReaderConfig};
    ///
    /// let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
    /// for i in 0..2000 {
    ///     text += &format!("0 @I{i}@ INDI\n1 NAME Person {i}\n1 FAMC @F{}@\n", i / 2);
    /// }
    /// text += "0 @F0@ FAM\n1 CHIL @I0@\n0 TRLR\n";
    /// let input = Input::new(text.as_bytes())?;
    /// let tree = Tree::from_chunks(Chunks::new(&input, ReaderConfig::new())?.jobs(2))?;
    /// assert_eq!(tree.record_count(), 2003);
    /// let family = tree.find("@I1@").unwrap().child("FAMC").unwrap().target().unwrap();
    /// assert_eq!(family.xref().unwrap().as_bytes(), b"@F0@");
    /// // @F1@ .. @F999@ are not defined: one UNDEF record and one diagnostic each.
    /// assert_eq!(tree.undefined_records().count(), 999);
    /// assert_eq!(tree.diagnostics().len(), 999);
    ///
    /// // Equal to the sequential build.
    /// let sequential = Tree::from_input(&input)?;
    /// assert_eq!(tree.len(), sequential.len());
    /// assert_eq!(tree.diagnostics(), sequential.diagnostics());
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tree::build`] (the first error in document order).
    pub fn from_chunks(chunks: Chunks<'a>) -> Result<Tree<'a>, Error> {
        let jobs = chunks.jobs;
        if jobs <= 1 && chunks.batch_bytes.is_none() {
            return Tree::build(chunks.first);
        }
        let bytes: &'a [u8] = chunks.first.input();
        let schema = Schema::from_reader(chunks.first.clone())?;
        let shared = shared_of(&schema, EscapeTable::default());
        let mut whole = Joiner::new(bytes, shared.clone(), bytes.len() / 16 + 16)?;
        let sizes: Vec<usize> = (0..chunks.len()).map(|i| chunks.range(i).len()).collect();
        let mut diagnostics = Diagnostics::default();
        let mut escapes = None;
        // Chunks are read numbered from line 1 and their nodes renumbered as
        // they are joined: no pass to number the chunks' first lines.
        let summary = chunks.run(
            Numbering::Relative,
            |i, reader, ds| {
                let builder = read_into(reader, shared.clone(), (i == 0, sizes[i], true), |d| {
                    ds.push(d)
                })?;
                let escapes = (i == 0).then(|| reader.escape_table().clone());
                Ok((builder.into_part(), escapes))
            },
            |(part, e), ds, line_offset| {
                if e.is_some() {
                    escapes = e;
                }
                whole.append(part, line_offset)?;
                for d in ds {
                    diagnostics.push(d);
                }
                Ok(())
            },
        )?;
        for d in summary.diagnostics {
            diagnostics.push(d);
        }
        diagnostics.dropped += summary.stats.diagnostics_dropped;
        let mut core = whole.finish();
        core.shared = shared_of(&schema, escapes.unwrap_or_default());
        core.resolve_pointers(bytes, &mut diagnostics, jobs);
        Ok(Tree {
            input: bytes,
            core,
            diagnostics,
            text: OnceLock::new(),
            text_base: 0,
        })
    }

    /// Tells the tree that the input's first `text.len()` octets are
    /// `text` ([`utf8_prefix`] of the part of the input its nodes are in),
    /// so that the whole input's is not looked for.
    pub(crate) fn note_utf8_prefix(&self, text: &'a str) {
        if self.text.set(text).is_ok() {
            // The raw walks' too (see [`Tree::src`]).
            self.core.note_utf8_prefix(self.text_base + text.len());
        }
    }

    /// Builds the tree of a UTF-8 (or ASCII, ANSEL, ...) byte slice.
    ///
    /// # Errors
    /// As [`Tree::build`]; UTF-16 must go through [`Tree::from_input`].
    pub fn from_slice(input: &'a [u8]) -> Result<Tree<'a>, Error> {
        Tree::build(Reader::from_slice(input))
    }

    /// Builds the tree of a prepared [`Input`] (any supported encoding).
    ///
    /// # Errors
    /// As [`Tree::build`].
    pub fn from_input(input: &'a Input<'_>) -> Result<Tree<'a>, Error> {
        Tree::build(input.reader())
    }

    /// The bytes the tree borrows from.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// The schema that typed the structures.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.core.shared.schema
    }

    /// The input and its valid UTF-8 prefix, for nodes.
    fn src(&self) -> Src<'_> {
        let input = self.input;
        let text = *self.text.get_or_init(|| {
            let text = arena::utf8_prefix(input.get(self.text_base..).unwrap_or_default());
            // The raw walks that write the tree need the same prefix (its
            // end: no node lies before `text_base`).
            self.core.note_utf8_prefix(self.text_base + text.len());
            text
        });
        Src {
            bytes: input,
            text,
            base: self.text_base,
        }
    }

    /// The records in document order (`HEAD` and `TRLR` included; the
    /// synthetic `UNDEF` records are not: see [`Tree::undefined_records`]).
    pub fn records(&self) -> Children<'_> {
        Children::range(&self.core, self.src(), 0, self.core.doc_nodes)
    }

    /// A raw walk of records `a..b` (`b` at most the number of records).
    pub(crate) fn raw_walk_records(&self, a: usize, b: usize) -> RawWalk<'_> {
        let at = |i: usize| {
            self.core
                .roots
                .get(i)
                .copied()
                .unwrap_or(self.core.doc_nodes)
        };
        RawWalk::new(&self.core, self.input, at(a), at(b).max(at(a)))
    }

    /// The number of records (as [`Tree::records`] counts them).
    pub fn record_count(&self) -> usize {
        self.core.roots.len()
    }

    /// The `i`-th record.
    pub fn record(&self, i: usize) -> Option<NodeRef<'_>> {
        let id = *self.core.roots.get(i)?;
        Some(NodeRef::with_src(&self.core, self.src(), id))
    }

    /// The synthetic `UNDEF` records, one per distinct xref that pointers
    /// use but no single structure has as its xref_id (seed §5.1). Each has
    /// that xref as its xref_id, no payload and no substructures.
    pub fn undefined_records(&self) -> Children<'_> {
        let r = self.core.synthetic();
        Children::range(&self.core, self.src(), r.start, r.end)
    }

    /// The structure whose xref_id is `xref` (`@` signs included), when
    /// exactly one structure has it.
    pub fn find(&self, xref: &str) -> Option<NodeRef<'_>> {
        self.core
            .lookup(self.input, xref.as_bytes())
            .map(|id| NodeRef::with_src(&self.core, self.src(), id))
    }

    /// Every structure whose xref_id is `xref` (more than one when it is
    /// duplicated). O(number of xref_ids).
    pub fn find_all(&self, xref: &str) -> Vec<NodeRef<'_>> {
        self.core
            .all_with_xref(self.input, xref.as_bytes())
            .into_iter()
            .map(|id| NodeRef::with_src(&self.core, self.src(), id))
            .collect()
    }

    /// The node with id `id`.
    ///
    /// # Panics
    /// When `id` is not from this tree.
    pub fn node(&self, id: NodeId) -> NodeRef<'_> {
        assert!(id.index() < self.core.len(), "node id out of range");
        NodeRef::with_src(&self.core, self.src(), id.0)
    }

    /// Every node in document order, then the synthetic records.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> + '_ {
        let (core, src) = (&self.core, self.src());
        (0..core.len() as u32).map(move |i| NodeRef::with_src(core, src, i))
    }

    /// The number of structures of the document (one per Begin event;
    /// synthetic records not counted).
    pub fn len(&self) -> usize {
        self.core.doc_nodes as usize
    }

    /// `true` when the document has no structures.
    pub fn is_empty(&self) -> bool {
        self.core.doc_nodes == 0
    }

    /// The nodes at `path`, whose first tag names records: `INDI.BIRT.DATE`
    /// (see [`NodeRef::path`]).
    pub fn path<'p>(&self, path: &'p str) -> PathIter<'_, 'p> {
        PathIter::new(self.records(), path)
    }

    /// The reader's diagnostics and the tree's own (unresolved pointers,
    /// duplicate xref_ids), at most 10,000; see [`Tree::diagnostics_dropped`].
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics.list
    }

    /// Diagnostics counted but not kept.
    pub fn diagnostics_dropped(&self) -> u64 {
        self.diagnostics.dropped
    }

    /// Bytes of memory the tree holds beyond its input (node arena, side
    /// tables, index), by capacity.
    pub fn memory_bytes(&self) -> usize {
        self.core.memory() + self.diagnostics.list.capacity() * std::mem::size_of::<Diagnostic>()
    }
}
