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
mod hash;
mod index;
mod records;
pub mod schema;
mod types;

use std::sync::Arc;

pub use arena::{Children, NodeId, NodeRef, PathIter, Step, Walk};
pub use records::{RecordTree, Records};
pub use schema::{Schema, SchemaBuilder, SchemaSource};
pub use types::{StructureType, TypeResolver};

use crate::diag::{Diagnostic, Error};
use crate::escape::EscapeTable;
use crate::event::Event;
use crate::read::Reader;
use crate::Input;
use arena::{Builder, Core, Diagnostics, Shared};

/// A whole document as a tree: see the [module documentation](self).
///
/// Memory: the input (borrowed, not copied) plus 20 bytes per
/// structure, plus small tables for xref_ids, continued payloads and the
/// xref index. [`Tree::memory_bytes`] reports it.
pub struct Tree<'a> {
    input: &'a [u8],
    core: Core,
    diagnostics: Diagnostics,
}

impl std::fmt::Debug for Tree<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tree")
            .field("nodes", &self.len())
            .field("records", &self.record_count())
            .finish()
    }
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
        let shared = Arc::new(Shared {
            schema: schema.clone(),
            escapes: EscapeTable::default(),
        });
        let mut builder = Builder::new(input, shared, input.len() / 16 + 16, true)?;
        let mut diagnostics = Diagnostics::default();
        loop {
            // Matched where it lies: moving the event out of the result
            // would copy it through memory.
            let next = reader.next_event();
            match &next {
                Ok(Some(Event::Begin(b))) => builder.begin(b)?,
                Ok(Some(Event::End(_))) => builder.end(),
                Ok(None) => break,
                Err(_) => {}
            }
            next?;
            if !reader.diagnostics().is_empty() {
                for d in reader.drain_diagnostics() {
                    diagnostics.push(d);
                }
            }
        }
        diagnostics.dropped += reader.stats().diagnostics_dropped;
        let (mut core, pending) = builder.finish();
        core.shared = Arc::new(Shared {
            schema,
            escapes: reader.escape_table().clone(),
        });
        core.resolve_pointers(input, &mut diagnostics, pending);
        Ok(Tree {
            input,
            core,
            diagnostics,
        })
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

    /// The records in document order (`HEAD` and `TRLR` included; the
    /// synthetic `UNDEF` records are not: see [`Tree::undefined_records`]).
    pub fn records(&self) -> Children<'_> {
        Children::range(&self.core, self.input, 0, self.core.doc_nodes)
    }

    /// The number of records (as [`Tree::records`] counts them).
    pub fn record_count(&self) -> usize {
        self.core.roots.len()
    }

    /// The `i`-th record.
    pub fn record(&self, i: usize) -> Option<NodeRef<'_>> {
        let id = *self.core.roots.get(i)?;
        Some(NodeRef::new(&self.core, self.input, id))
    }

    /// The synthetic `UNDEF` records, one per distinct xref that pointers
    /// use but no single structure has as its xref_id (seed §5.1). Each has
    /// that xref as its xref_id, no payload and no substructures.
    pub fn undefined_records(&self) -> Children<'_> {
        let r = self.core.synthetic();
        Children::range(&self.core, self.input, r.start, r.end)
    }

    /// The structure whose xref_id is `xref` (`@` signs included), when
    /// exactly one structure has it.
    pub fn find(&self, xref: &str) -> Option<NodeRef<'_>> {
        self.core
            .lookup(self.input, xref.as_bytes())
            .map(|id| NodeRef::new(&self.core, self.input, id))
    }

    /// Every structure whose xref_id is `xref` (more than one when it is
    /// duplicated). O(number of xref_ids).
    pub fn find_all(&self, xref: &str) -> Vec<NodeRef<'_>> {
        self.core
            .all_with_xref(self.input, xref.as_bytes())
            .into_iter()
            .map(|id| NodeRef::new(&self.core, self.input, id))
            .collect()
    }

    /// The node with id `id`.
    ///
    /// # Panics
    /// When `id` is not from this tree.
    pub fn node(&self, id: NodeId) -> NodeRef<'_> {
        assert!(id.index() < self.core.len(), "node id out of range");
        NodeRef::new(&self.core, self.input, id.0)
    }

    /// Every node in document order, then the synthetic records.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> + '_ {
        (0..self.core.len() as u32).map(|i| NodeRef::new(&self.core, self.input, i))
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
