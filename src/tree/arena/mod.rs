//! The node arena shared by [`Tree`](super::Tree) and
//! [`RecordTree`](super::RecordTree): its storage ([`Core`], here), its
//! builder (`build.rs`: events in, nodes out) and navigation (`nav.rs`:
//! [`NodeRef`] and its iterators).

mod build;
mod nav;

pub(crate) use build::{Builder, Joiner, ResolveMemo};
pub use nav::{Children, NodeId, NodeRef, PathIter, Step, Walk};
pub(crate) use nav::{RawStep, RawValue, RawWalk, Src};

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::diag::{Diagnostic, DiagnosticKind, Error, ErrorKind, Position};
use crate::escape::EscapeTable;
use crate::event::{Begin, Origin, Value, Xref};
use crate::payload::{Decoding, Payload};
use crate::tree::hash::FastMap;
use crate::tree::index::{KeyList, XrefIndex};
use crate::tree::iri::StructureType;
use crate::tree::schema::{Ctx, Schema, TypeKey};

pub(crate) const NONE: u32 = u32::MAX;
const ROOT_FIRST: u32 = u32::MAX;
const ROOT: u32 = u32::MAX - 1;

const V_TEXT: u8 = 1;
const V_POINTER: u8 = 2;
const HAS_REST: u8 = 4;
const HAS_XREF: u8 = 8;
const UNPARSABLE: u8 = 16;
const TOO_DEEP: u8 = 32;
const SYNTHETIC: u8 = 64;

/// A byte range in the tree's buffer (`off < buffer length`) or, past it,
/// in the tree's own `extra` bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteRef {
    off: u32,
    len: u32,
}

/// One structure: 20 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    parent: u32,
    /// One past the last node of this node's subtree (nodes are in
    /// document order, so a subtree is a contiguous range).
    end: u32,
    line: u32,
    /// Where the first line's payload starts (see [`ByteRef`]).
    val_off: u32,
    /// The kind, or `u16::MAX` when it is in `Core::big_kinds`.
    kind16: u16,
    flags: u8,
    /// The first line's payload length, or `u8::MAX` when it is in
    /// `Core::big_lens`.
    len8: u8,
}

/// What nodes with the same tag under the same kind of parent share: the
/// tag, its type and the context of its substructures.
#[derive(Clone, Debug)]
pub(crate) struct Kind {
    /// The kind of the parent (or a root marker), which with the tag
    /// identifies the kind.
    parent: u32,
    /// The tag, made once per kind: [`NodeRef::tag`] lends it with no
    /// slicing or UTF-8 check (it is asked for more often than any other
    /// part of a structure).
    ///
    /// [`NodeRef::tag`]: super::NodeRef::tag
    tag: Box<str>,
    key: Option<TypeKey>,
    ctx: Ctx,
}

/// What all trees of one document share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) schema: Arc<Schema>,
    pub(crate) escapes: EscapeTable,
}

/// The arena.
#[derive(Debug)]
pub(crate) struct Core {
    nodes: Vec<Node>,
    /// `(node, kind)` for kinds of `u16::MAX` or more, by node.
    big_kinds: Vec<(u32, u32)>,
    /// `(node, length)` for payload lengths of `u8::MAX` or more, by node.
    big_lens: Vec<(u32, u32)>,
    /// Shared, not copied, by the record trees split from one batch
    /// ([`Core::split_records`]): each of them would otherwise copy every
    /// kind of the batch, and a batch of many short records, each with
    /// tags of its own, would cost time quadratic in its size.
    kinds: Arc<Vec<Kind>>,
    /// `(node, xref)` for nodes with an xref_id, by node.
    xrefs: Vec<(u32, ByteRef)>,
    /// `(node, additional lines)` for continued payloads, by node.
    rests: Vec<(u32, ByteRef)>,
    /// Octets that are not in the input (shared like `kinds`).
    extra: Arc<Vec<u8>>,
    buf_len: u32,
    pub(crate) roots: Vec<u32>,
    /// Nodes of the document; synthetic UNDEF records follow.
    pub(crate) doc_nodes: u32,
    /// The xref entries of the document (synthetic ones follow).
    doc_xrefs: u32,
    index: Option<XrefIndex>,
    undef_index: Option<XrefIndex>,
    /// Sorted xref entries whose key is defined more than once.
    dups: Vec<u32>,
    base: Decoding,
    /// Whether `base` is from a payload (else the default).
    has_base: bool,
    /// Keys noted while building, for [`Core::resolve_pointers`].
    captured: Captured,
    pub(crate) line_offset: u64,
    pub(crate) shared: Arc<Shared>,
    /// The length of the input's longest valid UTF-8 prefix, found on first
    /// use (by the raw walk that writes trees).
    utf8_prefix: OnceLock<usize>,
}

/// The longest valid UTF-8 prefix of `buf`, as text (one pass when `buf`
/// is valid as a whole).
pub(crate) fn utf8_prefix(buf: &[u8]) -> &str {
    match simdutf8::compat::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => simdutf8::basic::from_utf8(&buf[..e.valid_up_to()]).unwrap_or_default(),
    }
}

#[inline]
fn get<'x>(buf: &'x [u8], extra: &'x [u8], r: ByteRef) -> &'x [u8] {
    let (off, len) = (r.off as usize, r.len as usize);
    if let Some(b) = buf.get(off..off + len) {
        b
    } else {
        let o = off.saturating_sub(buf.len());
        extra.get(o..o + len).unwrap_or_default()
    }
}

fn side(v: &[(u32, u32)], id: u32) -> u32 {
    v.binary_search_by_key(&id, |e| e.0).map_or(0, |i| v[i].1)
}

impl Core {
    #[inline]
    fn bytes<'t>(&'t self, buf: &'t [u8], r: ByteRef) -> &'t [u8] {
        get(buf, &self.extra, r)
    }

    #[inline]
    fn kind_of(&self, id: u32) -> u32 {
        match self.nodes[id as usize].kind16 {
            u16::MAX => side(&self.big_kinds, id),
            k => u32::from(k),
        }
    }

    #[inline]
    fn val(&self, id: u32) -> ByteRef {
        let n = &self.nodes[id as usize];
        let len = match n.len8 {
            u8::MAX => side(&self.big_lens, id),
            l => u32::from(l),
        };
        ByteRef {
            off: n.val_off,
            len,
        }
    }

    #[inline]
    fn flags(&self, id: u32) -> u8 {
        self.nodes[id as usize].flags
    }

    /// Appends a node (its id is the arena's length).
    #[inline]
    fn push_node(&mut self, parent: u32, kind: u32, line: u32, val: ByteRef, flags: u8) {
        let id = self.nodes.len() as u32;
        let kind16 = match u16::try_from(kind) {
            Ok(k) if k != u16::MAX => k,
            _ => {
                self.big_kinds.push((id, kind));
                u16::MAX
            }
        };
        let len8 = match u8::try_from(val.len) {
            Ok(l) if l != u8::MAX => l,
            _ => {
                self.big_lens.push((id, val.len));
                u8::MAX
            }
        };
        self.nodes.push(Node {
            parent,
            end: NONE,
            line,
            val_off: val.off,
            kind16,
            flags,
            len8,
        });
    }

    /// Bytes of memory held by the arena (capacities, not lengths).
    pub(crate) fn memory(&self) -> usize {
        use std::mem::size_of;
        self.nodes.capacity() * size_of::<Node>()
            + (self.big_kinds.capacity() + self.big_lens.capacity()) * 8
            + self.kinds.capacity() * size_of::<Kind>()
            + self.kinds.iter().map(|k| k.tag.len()).sum::<usize>()
            + self.xrefs.capacity() * size_of::<(u32, ByteRef)>()
            + self.rests.capacity() * size_of::<(u32, ByteRef)>()
            + self.extra.capacity()
            + self.roots.capacity() * 4
            + self.dups.capacity() * 4
            + self.index.as_ref().map_or(0, XrefIndex::memory)
            + self.undef_index.as_ref().map_or(0, XrefIndex::memory)
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    fn xref_entry(&self, node: u32) -> Option<ByteRef> {
        self.xrefs
            .binary_search_by_key(&node, |e| e.0)
            .ok()
            .map(|i| self.xrefs[i].1)
    }

    /// Marks every node and xref so far as the document's and gives back
    /// the room the arena's vectors reserved (a finished arena only grows by
    /// the synthetic UNDEF records).
    fn seal(&mut self) {
        self.mark_document();
        self.nodes.shrink_to_fit();
        self.big_kinds.shrink_to_fit();
        self.big_lens.shrink_to_fit();
        Arc::make_mut(&mut self.kinds).shrink_to_fit();
        self.xrefs.shrink_to_fit();
        self.rests.shrink_to_fit();
        self.roots.shrink_to_fit();
    }

    /// Marks every node and xref so far as the document's.
    pub(crate) fn mark_document(&mut self) {
        self.doc_nodes = self.nodes.len() as u32;
        self.doc_xrefs = self.xrefs.len() as u32;
    }

    /// Indexes the xref_ids, reports duplicate ones and makes the synthetic
    /// UNDEF records for pointers that resolve to no single structure, on
    /// `jobs` threads (see [`XrefIndex::build`]).
    pub(crate) fn resolve_pointers(
        &mut self,
        buf: &[u8],
        diagnostics: &mut Diagnostics,
        jobs: usize,
    ) {
        self.doc_xrefs = self.xrefs.len() as u32;
        let extra = std::mem::take(&mut self.extra);
        // Pointers that match no single xref_id: (node, matched several).
        let mut captured = std::mem::take(&mut self.captured);
        let unresolved: Vec<(u32, bool)> = {
            let xrefs = &self.xrefs;
            let key_of = |e: u32| get(buf, &extra, xrefs[e as usize].1);
            let (index, pairs) = XrefIndex::build(&mut captured.xrefs, jobs, &key_of);
            let mut dups = Vec::with_capacity(pairs.len());
            for &(e, first) in &pairs {
                dups.push(first);
                let node = xrefs[e as usize].0;
                let first_node = xrefs[first as usize].0;
                diagnostics.push(Diagnostic {
                    kind: DiagnosticKind::DuplicateXref,
                    position: Position {
                        line: self.nodes[node as usize].line as u64 + self.line_offset,
                        byte: 0,
                    },
                    message: format!(
                        "duplicate xref_id {} (first given on line {}); pointers to it resolve to an undef record",
                        String::from_utf8_lossy(key_of(e)),
                        self.nodes[first_node as usize].line as u64 + self.line_offset
                    ),
                });
            }
            dups.sort_unstable();
            dups.dedup();
            let this = &*self;
            let long_key = |n: u32| get(buf, &extra, this.val(n));
            let dups_ref = &dups;
            let found = index.find_many(
                &mut captured.pointers,
                jobs,
                &long_key,
                &key_of,
                &|n, found| match found {
                    Some(e) if dups_ref.binary_search(&e).is_err() => None,
                    found => Some((n, found.is_some())),
                },
            );
            self.index = Some(index);
            self.dups = dups;
            found
        };
        let mut undef = XrefIndex::with_entries(unresolved.len());
        // Exact reservations: the arena was shrunk to fit, and a doubling
        // would show up as memory.
        self.nodes.reserve_exact(unresolved.len());
        self.xrefs.reserve_exact(unresolved.len());
        let undef_kind = self.kinds.len() as u32;
        let mut any = false;
        // GEDCOM 7's null pointer points nowhere on purpose.
        let void_is_null = self.shared.schema.version() == crate::Version::Gedcom7;
        for (n, duplicated) in unresolved {
            let r = self.val(n);
            let key = get(buf, &extra, r);
            if void_is_null && !duplicated && key == b"@VOID@" {
                continue;
            }
            let entry = self.xrefs.len() as u32;
            let xrefs = &self.xrefs;
            if undef
                .insert(key, entry, |i| get(buf, &extra, xrefs[i as usize].1))
                .is_some()
            {
                continue;
            }
            if !any {
                any = true;
                Arc::make_mut(&mut self.kinds).push(Kind {
                    parent: ROOT,
                    tag: "UNDEF".into(),
                    key: self.shared.schema.resolve(Ctx::Unknown, "UNDEF").0,
                    ctx: Ctx::Unknown,
                });
            }
            let id = self.nodes.len() as u32;
            let line = self.nodes[n as usize].line;
            diagnostics.push(Diagnostic {
                kind: DiagnosticKind::UnresolvedPointer,
                position: Position {
                    line: line as u64 + self.line_offset,
                    byte: 0,
                },
                message: format!(
                    "pointer {} matches {} xref_id; it resolves to a synthetic undef record",
                    String::from_utf8_lossy(key),
                    if duplicated { "more than one" } else { "no" }
                ),
            });
            self.push_node(
                NONE,
                undef_kind,
                0,
                ByteRef::default(),
                HAS_XREF | SYNTHETIC,
            );
            self.nodes[id as usize].end = id + 1;
            self.xrefs.push((id, r));
        }
        self.extra = extra;
        self.nodes.shrink_to_fit();
        self.big_kinds.shrink_to_fit();
        self.xrefs.shrink_to_fit();
        self.undef_index = Some(undef);
    }

    /// The node with xref_id `key` when exactly one has it.
    pub(crate) fn lookup(&self, buf: &[u8], key: &[u8]) -> Option<u32> {
        let index = self.index.as_ref()?;
        let e = index.find(key, |i| self.bytes(buf, self.xrefs[i as usize].1))?;
        if self.dups.binary_search(&e).is_ok() {
            return None;
        }
        Some(self.xrefs[e as usize].0)
    }

    /// The synthetic UNDEF record for `key`.
    fn lookup_undef(&self, buf: &[u8], key: &[u8]) -> Option<u32> {
        let index = self.undef_index.as_ref()?;
        let e = index.find(key, |i| self.bytes(buf, self.xrefs[i as usize].1))?;
        self.xrefs.get(e as usize).map(|x| x.0)
    }

    /// The structures whose xref_id is `key` (more than one when duplicated).
    pub(crate) fn all_with_xref(&self, buf: &[u8], key: &[u8]) -> Vec<u32> {
        self.xrefs[..self.doc_xrefs as usize]
            .iter()
            .filter(|(_, r)| self.bytes(buf, *r) == key)
            .map(|e| e.0)
            .collect()
    }

    pub(crate) fn synthetic(&self) -> std::ops::Range<u32> {
        self.doc_nodes..self.nodes.len() as u32
    }

    /// Whether `self` and `other` share their kinds and outside octets (as
    /// the record trees split from one batch do).
    #[cfg(test)]
    pub(crate) fn shares_tables_with(&self, other: &Core) -> bool {
        Arc::ptr_eq(&self.kinds, &other.kinds) && Arc::ptr_eq(&self.extra, &other.extra)
    }

    /// Notes the length of `buf`'s longest valid UTF-8 prefix, when it was
    /// found elsewhere first (see [`utf8_prefix`]).
    pub(crate) fn note_utf8_prefix(&self, len: usize) {
        let _ = self.utf8_prefix.set(len);
    }

    /// One arena per record, for an arena of several records without an
    /// index (record trees). Node ids are rebased; byte references are
    /// unchanged (the records share their buffer).
    pub(crate) fn split_records(self) -> Vec<Core> {
        if self.roots.len() <= 1 {
            return vec![self];
        }
        let rebase = |x: u32, by: u32| if x == NONE { NONE } else { x - by };
        // The side tables are sorted by node: a record's entries are one
        // run of each, found by binary search (a batch of records read
        // together splits in time linear in its size).
        fn part<T: Copy>(v: &[(u32, T)], r: std::ops::Range<u32>) -> Vec<(u32, T)> {
            debug_assert!(v.windows(2).all(|w| w[0].0 < w[1].0));
            let from = v.partition_point(|e| e.0 < r.start);
            let to = v.partition_point(|e| e.0 < r.end);
            v[from..to].iter().map(|&(n, b)| (n - r.start, b)).collect()
        }
        self.roots
            .iter()
            .map(|&root| {
                let end = self.nodes[root as usize].end;
                let nodes: Vec<Node> = self.nodes[root as usize..end as usize]
                    .iter()
                    .map(|n| Node {
                        parent: rebase(n.parent, root),
                        end: n.end - root,
                        ..*n
                    })
                    .collect();
                Core {
                    doc_nodes: nodes.len() as u32,
                    nodes,
                    big_kinds: part(&self.big_kinds, root..end),
                    big_lens: part(&self.big_lens, root..end),
                    kinds: self.kinds.clone(),
                    xrefs: part(&self.xrefs, root..end),
                    rests: part(&self.rests, root..end),
                    extra: self.extra.clone(),
                    buf_len: self.buf_len,
                    roots: vec![0],
                    doc_xrefs: 0,
                    index: None,
                    undef_index: None,
                    dups: Vec::new(),
                    base: self.base,
                    has_base: self.has_base,
                    captured: Captured::default(),
                    line_offset: self.line_offset,
                    shared: self.shared.clone(),
                    utf8_prefix: OnceLock::new(),
                }
            })
            .collect()
    }
}

/// Keys noted by builders: the xref_ids (by entry) and the pointers (by
/// node), one list per chunk.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    xrefs: Vec<KeyList>,
    pointers: Vec<KeyList>,
}

/// Retained diagnostics, capped.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    pub(crate) list: Vec<Diagnostic>,
    pub(crate) dropped: u64,
}

/// How many diagnostics a tree keeps; further ones are counted.
pub(crate) const MAX_DIAGNOSTICS: usize = 10_000;

impl Diagnostics {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        if self.list.len() < MAX_DIAGNOSTICS {
            self.list.push(d);
        } else {
            self.dropped += 1;
        }
    }
}

fn limit(what: &str) -> Error {
    Error::new(
        ErrorKind::Limit,
        None,
        format!("{what}: a tree holds at most 4 GiB of input and 4 billion structures; read larger inputs record by record"),
    )
}
