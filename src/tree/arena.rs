//! The node arena shared by [`Tree`](super::Tree) and
//! [`RecordTree`](super::RecordTree), its builder, and [`NodeRef`]
//! navigation.

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
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kind {
    /// The kind of the parent (or a root marker), which with the tag
    /// identifies the kind.
    parent: u32,
    tag: ByteRef,
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
        self.doc_nodes = self.nodes.len() as u32;
        self.doc_xrefs = self.xrefs.len() as u32;
        self.nodes.shrink_to_fit();
        self.big_kinds.shrink_to_fit();
        self.big_lens.shrink_to_fit();
        Arc::make_mut(&mut self.kinds).shrink_to_fit();
        self.xrefs.shrink_to_fit();
        self.rests.shrink_to_fit();
        self.roots.shrink_to_fit();
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
        for (n, duplicated) in unresolved {
            let r = self.val(n);
            let key = get(buf, &extra, r);
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
                    tag: ByteRef::default(),
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

const KIND_CACHE: usize = 1024;
/// Never a parent kind (kinds are fewer than structures, and the two root
/// markers are `u32::MAX` and `u32::MAX - 1`).
const NO_KIND: u32 = u32::MAX - 2;

#[inline]
fn cache_slot(parent_kind: u32, word: u64, len: usize) -> usize {
    let h = (word ^ (u64::from(parent_kind) << 40)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 32) as usize & (len - 1)
}

/// A tag of at most 8 bytes packed into a word.
#[inline]
fn tag_word(t: &[u8]) -> Option<u64> {
    if t.len() > 8 {
        return None;
    }
    // Shifts, not a copy through memory: a byte copy followed by a word
    // load stalls on store forwarding.
    let mut w = 0u64;
    for (i, &b) in t.iter().enumerate() {
        if b == 0 {
            return None;
        }
        w |= u64::from(b) << (8 * i);
    }
    Some(w)
}

/// Builds a [`Core`] from Begin/End events whose borrowed data lies in
/// `buf` (or anywhere else: such data is copied).
pub(crate) struct Builder<'b> {
    buf: &'b [u8],
    core: Core,
    stack: Vec<u32>,
    /// Kinds of tags of up to 8 bytes, keyed by the tag packed in a word
    /// (tags hold no NUL, so the packing is unambiguous): no string
    /// compares on the hot path.
    kind_words: FastMap<(u32, u64), u32>,
    /// A direct-mapped cache in front of `kind_words`.
    kind_cache: Vec<(u32, u64, u32)>,
    kind_map: FastMap<(u32, &'b str), u32>,
    owned_kinds: FastMap<(u32, String), u32>,
    records: u64,
    /// Whether to note keys for pointer resolution (whole trees only).
    resolve: bool,
    xref_keys: KeyList,
    pointer_keys: KeyList,
    /// Type resolutions kept from one record tree to the next.
    pub(crate) memo: Option<ResolveMemo>,
}

/// Type resolutions by context and tag word, reusable across builds with
/// the same schema.
pub(crate) type ResolveMemo = FastMap<(Ctx, u64), (Option<TypeKey>, Ctx)>;

impl<'b> Builder<'b> {
    /// `expected_nodes` sizes the arena (an estimate is fine).
    pub(crate) fn new(
        buf: &'b [u8],
        shared: Arc<Shared>,
        expected_nodes: usize,
        resolve: bool,
    ) -> Result<Self, Error> {
        let buf_len = u32::try_from(buf.len()).map_err(|_| limit("input too large"))?;
        Ok(Builder {
            buf,
            core: Core {
                nodes: Vec::with_capacity(expected_nodes),
                big_kinds: Vec::new(),
                big_lens: Vec::new(),
                kinds: Arc::default(),
                xrefs: Vec::new(),
                rests: Vec::new(),
                extra: Arc::default(),
                buf_len,
                roots: Vec::new(),
                doc_nodes: 0,
                doc_xrefs: 0,
                index: None,
                undef_index: None,
                dups: Vec::new(),
                base: Decoding::default(),
                has_base: false,
                captured: Captured::default(),
                line_offset: 0,
                shared,
                utf8_prefix: OnceLock::new(),
            },
            stack: Vec::new(),
            kind_words: FastMap::default(),
            kind_cache: vec![(NO_KIND, 0, 0); if resolve { KIND_CACHE } else { 64 }],
            kind_map: FastMap::default(),
            owned_kinds: FastMap::default(),
            records: 0,
            resolve,
            xref_keys: KeyList::default(),
            pointer_keys: KeyList::default(),
            memo: None,
        })
    }

    fn locate(&mut self, s: &[u8]) -> Result<ByteRef, Error> {
        if s.is_empty() {
            return Ok(ByteRef::default());
        }
        let start = s.as_ptr() as usize;
        let base = self.buf.as_ptr() as usize;
        if start >= base && start - base + s.len() <= self.buf.len() {
            return Ok(ByteRef {
                off: (start - base) as u32,
                len: s.len() as u32,
            });
        }
        let off = self.core.buf_len as usize + self.core.extra.len();
        if off + s.len() > u32::MAX as usize {
            return Err(limit("too much data outside the input"));
        }
        Arc::make_mut(&mut self.core.extra).extend_from_slice(s);
        Ok(ByteRef {
            off: off as u32,
            len: s.len() as u32,
        })
    }

    // The `Cow` matters: borrowed tags key the map without a copy.
    #[allow(clippy::ptr_arg)]
    fn kind(&mut self, parent_kind: u32, tag: &Cow<'b, str>) -> Result<u32, Error> {
        let word = tag_word(tag.as_bytes());
        if let Some(w) = word {
            let slot = cache_slot(parent_kind, w, self.kind_cache.len());
            let c = self.kind_cache[slot];
            if c.0 == parent_kind && c.1 == w {
                return Ok(c.2);
            }
            if let Some(&k) = self.kind_words.get(&(parent_kind, w)) {
                self.kind_cache[slot] = (parent_kind, w, k);
                return Ok(k);
            }
        } else if let Cow::Borrowed(t) = tag {
            if let Some(&k) = self.kind_map.get(&(parent_kind, *t)) {
                return Ok(k);
            }
        } else if let Some(&k) = self.owned_kinds.get(&(parent_kind, tag.to_string())) {
            return Ok(k);
        }
        let schema = &self.core.shared.schema;
        let (key, ctx) = match parent_kind {
            ROOT_FIRST => schema.record(tag, true),
            ROOT => schema.record(tag, false),
            k => {
                let ctx = self.core.kinds[k as usize].ctx;
                match (word, self.memo.as_mut()) {
                    (Some(w), Some(memo)) => *memo
                        .entry((ctx, w))
                        .or_insert_with(|| schema.resolve(ctx, tag)),
                    _ => schema.resolve(ctx, tag),
                }
            }
        };
        let id = self.core.kinds.len() as u32;
        let tag_ref = self.locate(tag.as_bytes())?;
        Arc::make_mut(&mut self.core.kinds).push(Kind {
            parent: parent_kind,
            tag: tag_ref,
            key,
            ctx,
        });
        match tag {
            _ if word.is_some() => {
                self.kind_words
                    .insert((parent_kind, word.unwrap_or_default()), id);
            }
            Cow::Borrowed(t) => {
                self.kind_map.insert((parent_kind, t), id);
            }
            Cow::Owned(t) => {
                self.owned_kinds.insert((parent_kind, t.clone()), id);
            }
        }
        Ok(id)
    }

    /// Adds the structure `b` begins.
    pub(crate) fn begin(&mut self, b: &Begin<'b>) -> Result<(), Error> {
        let id = self.core.nodes.len();
        if id >= (u32::MAX - 2) as usize {
            return Err(limit("too many structures"));
        }
        let id = id as u32;
        let parent = self.stack.last().copied().unwrap_or(NONE);
        let parent_kind = if parent == NONE {
            if self.records == 0 {
                ROOT_FIRST
            } else {
                ROOT
            }
        } else {
            self.core.kind_of(parent)
        };
        let kind = self.kind(parent_kind, &b.tag)?;
        let mut flags = match b.origin {
            Origin::UnparsableLine => UNPARSABLE,
            Origin::TooDeepLine { .. } => TOO_DEEP,
            _ => 0,
        };
        let val = match &b.value {
            None => ByteRef::default(),
            Some(Value::Pointer(x)) => {
                flags |= V_POINTER;
                if self.resolve {
                    self.pointer_keys.push(id, x.as_bytes());
                }
                self.locate(x.as_bytes())?
            }
            Some(Value::Text(p)) => {
                flags |= V_TEXT;
                if !self.core.has_base {
                    self.core.has_base = true;
                    self.core.base = p.decoding();
                }
                if p.is_continued() {
                    flags |= HAS_REST;
                    let r = self.locate(p.additional_lines())?;
                    self.core.rests.push((id, r));
                }
                self.locate(p.first_line())?
            }
        };
        if let Some(x) = &b.xref {
            flags |= HAS_XREF;
            let r = self.locate(x.as_bytes())?;
            if self.resolve {
                let entry = self.core.xrefs.len() as u32;
                self.xref_keys.push(entry, x.as_bytes());
            }
            self.core.xrefs.push((id, r));
        }
        if parent == NONE {
            self.records += 1;
            self.core.roots.push(id);
        }
        let line = u32::try_from(b.line).unwrap_or(u32::MAX);
        self.core.push_node(parent, kind, line, val, flags);
        self.stack.push(id);
        Ok(())
    }

    /// The most recently begun structure ends.
    pub(crate) fn end(&mut self) {
        if let Some(id) = self.stack.pop() {
            self.core.nodes[id as usize].end = self.core.nodes.len() as u32;
        }
    }

    /// Tells a builder of a later chunk of a document that the document's
    /// first record is in an earlier chunk.
    pub(crate) fn after_first_record(&mut self) {
        self.records = self.records.max(1);
    }

    /// Closes what is still open and returns the arena as it is, for
    /// [`Joiner::append`].
    pub(crate) fn into_part(mut self) -> Core {
        while !self.stack.is_empty() {
            self.end();
        }
        self.keep_keys();
        self.core
    }

    fn keep_keys(&mut self) {
        if self.resolve {
            let c = &mut self.core.captured;
            c.xrefs.push(std::mem::take(&mut self.xref_keys));
            c.pointers.push(std::mem::take(&mut self.pointer_keys));
        }
    }

    /// Closes what is still open and returns the arena (its xref_ids not
    /// yet indexed: see [`Core::resolve_pointers`]).
    pub(crate) fn finish(mut self) -> Core {
        while !self.stack.is_empty() {
            self.end();
        }
        self.core.seal();
        self.keep_keys();
        self.core
    }
}

/// Concatenates the arenas of consecutive chunks of one document (built
/// over the same buffer, every chunk but the first with
/// [`Builder::after_first_record`]) into the arena of the whole, equal to
/// what one [`Builder`] over the whole would have built: node ids are
/// offset, kinds are mapped to the whole's (numbered in order of first
/// use, as one builder numbers them), references to the chunks' own bytes
/// are offset.
pub(crate) struct Joiner {
    core: Core,
    /// The whole's kinds by parent kind and tag.
    kinds: FastMap<(u32, Vec<u8>), u32>,
}

impl Joiner {
    /// An empty whole over `buf`, room for about `expected_nodes`.
    pub(crate) fn new(
        buf: &[u8],
        shared: Arc<Shared>,
        expected_nodes: usize,
    ) -> Result<Self, Error> {
        // The builder checks the limits and sets up an empty arena.
        let core = Builder::new(buf, shared, expected_nodes, true)?.core;
        Ok(Joiner {
            core,
            kinds: FastMap::default(),
        })
    }

    /// Appends the arena of the next chunk, whose node lines are numbered
    /// from its own first line: `line_offset` is added to them.
    pub(crate) fn append(&mut self, buf: &[u8], part: Core, line_offset: u64) -> Result<(), Error> {
        // Line numbers saturate at `u32::MAX`, as the builder stores them.
        let line_off = u32::try_from(line_offset).unwrap_or(u32::MAX);
        let whole = &mut self.core;
        let buf_len = whole.buf_len;
        let node_off =
            u32::try_from(whole.nodes.len()).map_err(|_| limit("too many structures"))?;
        if whole.nodes.len() + part.nodes.len() >= (u32::MAX - 2) as usize {
            return Err(limit("too many structures"));
        }
        let extra_off = whole.extra.len() as u32;
        if buf_len as usize + whole.extra.len() + part.extra.len() > u32::MAX as usize {
            return Err(limit("too much data outside the input"));
        }
        let rebase = |r: ByteRef| {
            if r.off >= buf_len && r.len > 0 {
                ByteRef {
                    off: r.off + extra_off,
                    len: r.len,
                }
            } else {
                r
            }
        };
        // Kinds: a chunk's kinds are numbered in order of first use in the
        // chunk, parents before children, so mapping them in order keeps
        // the whole's numbering in order of first use in the document.
        let mut map = Vec::with_capacity(part.kinds.len());
        for k in part.kinds.iter() {
            let parent = match k.parent {
                ROOT_FIRST | ROOT => k.parent,
                p => map[p as usize],
            };
            let tag = part.bytes(buf, k.tag).to_vec();
            let next = whole.kinds.len() as u32;
            let g = *self.kinds.entry((parent, tag)).or_insert(next);
            if g == next {
                Arc::make_mut(&mut whole.kinds).push(Kind {
                    parent,
                    tag: rebase(k.tag),
                    key: k.key,
                    ctx: k.ctx,
                });
            }
            map.push(g);
        }
        Arc::make_mut(&mut whole.extra).extend_from_slice(&part.extra);
        if !whole.has_base && part.has_base {
            whole.has_base = true;
            whole.base = part.base;
        }
        let fix = |n: &Node, kind16: u16| Node {
            parent: if n.parent == NONE {
                NONE
            } else {
                n.parent + node_off
            },
            end: n.end + node_off,
            val_off: if n.val_off >= buf_len && n.len8 != 0 {
                n.val_off + extra_off
            } else {
                n.val_off
            },
            kind16,
            line: n.line.saturating_add(line_off),
            ..*n
        };
        let small: Option<Vec<u16>> = if part.big_kinds.is_empty() {
            map.iter()
                .map(|&g| u16::try_from(g).ok().filter(|&g| g != u16::MAX))
                .collect()
        } else {
            None
        };
        match small {
            Some(small) => whole
                .nodes
                .extend(part.nodes.iter().map(|n| fix(n, small[n.kind16 as usize]))),
            None => {
                whole.nodes.reserve(part.nodes.len());
                for (i, n) in part.nodes.iter().enumerate() {
                    let id = node_off + i as u32;
                    let g = map[part.kind_of(i as u32) as usize];
                    let kind16 = match u16::try_from(g) {
                        Ok(k) if k != u16::MAX => k,
                        _ => {
                            whole.big_kinds.push((id, g));
                            u16::MAX
                        }
                    };
                    whole.nodes.push(fix(n, kind16));
                }
            }
        }
        let xref_off = whole.xrefs.len() as u32;
        for mut l in part.captured.xrefs {
            l.offset += xref_off;
            whole.captured.xrefs.push(l);
        }
        for mut l in part.captured.pointers {
            l.offset += node_off;
            whole.captured.pointers.push(l);
        }
        let lens = part.big_lens.iter().map(|&(n, x)| (n + node_off, x));
        whole.big_lens.extend(lens);
        let xrefs = part.xrefs.iter().map(|&(n, r)| (n + node_off, rebase(r)));
        whole.xrefs.extend(xrefs);
        let rests = part.rests.iter().map(|&(n, r)| (n + node_off, rebase(r)));
        whole.rests.extend(rests);
        whole.roots.extend(part.roots.iter().map(|&r| r + node_off));
        Ok(())
    }

    /// The whole arena (its xref_ids not yet indexed: see
    /// [`Core::resolve_pointers`]).
    pub(crate) fn finish(mut self) -> Core {
        self.core.seal();
        self.core
    }
}

/// The id of a node in its tree: an index in document order (synthetic
/// `UNDEF` records come after the document's nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A depth-first walk of whole subtrees that hands out most structures as
/// their octets in the input ([`RawNode`]), for a caller that can use them as
/// they stand (the tree bridge's writer fast path), and the others (synthetic
/// records, payloads continued on additional lines) as [`NodeRef`]s. One step
/// per structure and per end, in O(1): no search for xrefs, which are met in
/// order.
pub(crate) struct RawWalk<'t> {
    core: &'t Core,
    buf: &'t [u8],
    next: u32,
    limit: u32,
    /// One past the last node of each open structure's subtree.
    ends: Vec<u32>,
    /// The first entry of `core.xrefs` for a node at `next` or later.
    xref_at: usize,
    /// Text payloads ending before this offset are valid UTF-8 (0 when the
    /// input is not UTF-8).
    utf8_until: usize,
}

/// A step of a [`RawWalk`].
pub(crate) enum RawStep<'t> {
    /// A structure begins, as its octets.
    Raw(RawNode<'t>),
    /// A structure begins that is not just its octets.
    Node(NodeRef<'t>),
    /// The innermost open structure ends.
    Leave,
}

impl<'t> RawWalk<'t> {
    /// A walk of the nodes `from..to`, which are whole subtrees.
    pub(crate) fn new(core: &'t Core, buf: &'t [u8], from: u32, to: u32) -> Self {
        let utf8_until = if core.base.encoding == crate::encoding::Encoding::Utf8 {
            // A payload begins and ends next to ASCII octets (delimiters, line
            // breaks), so inside a valid prefix it is valid itself.
            *core.utf8_prefix.get_or_init(|| utf8_prefix(buf).len())
        } else {
            0
        };
        RawWalk {
            core,
            buf,
            next: from,
            limit: to.min(core.nodes.len() as u32),
            ends: Vec::with_capacity(16),
            xref_at: core.xrefs.partition_point(|e| e.0 < from),
            utf8_until,
        }
    }

    /// The structure with id `id`.
    pub(crate) fn node(&self, id: u32) -> NodeRef<'t> {
        NodeRef::new(self.core, self.buf, id)
    }

    /// The escape types the tree's payloads preserve, by tag (what
    /// [`NodeRef::payload`] decodes with).
    pub(crate) fn escapes(&self) -> &'t EscapeTable {
        &self.core.shared.escapes
    }

    /// The number of kinds: every [`RawNode::kind`] is below it.
    pub(crate) fn kinds(&self) -> usize {
        self.core.kinds.len()
    }

    /// The next step.
    #[inline(always)]
    pub(crate) fn step(&mut self) -> Option<RawStep<'t>> {
        if let Some(&end) = self.ends.last() {
            if self.next >= end {
                self.ends.pop();
                return Some(RawStep::Leave);
            }
        }
        if self.next >= self.limit {
            return None;
        }
        let id = self.next;
        self.next += 1;
        let core = self.core;
        let node = &core.nodes[id as usize];
        self.ends.push(node.end);
        let f = node.flags;
        let mut xref = None;
        if f & HAS_XREF != 0 {
            let xs = &core.xrefs;
            while xs.get(self.xref_at).is_some_and(|e| e.0 < id) {
                self.xref_at += 1;
            }
            if let Some(e) = xs.get(self.xref_at).filter(|e| e.0 == id) {
                xref = Some(core.bytes(self.buf, e.1));
                self.xref_at += 1;
            }
        }
        if f & (SYNTHETIC | HAS_REST) != 0 {
            return Some(RawStep::Node(NodeRef::new(core, self.buf, id)));
        }
        let kind = match node.kind16 {
            u16::MAX => side(&core.big_kinds, id),
            k => u32::from(k),
        };
        let tag = core.bytes(self.buf, core.kinds[kind as usize].tag);
        let mut utf8 = false;
        let value = if f & (V_POINTER | V_TEXT) == 0 {
            RawValue::None
        } else {
            let r = match node.len8 {
                u8::MAX => core.val(id),
                len => ByteRef {
                    off: node.val_off,
                    len: u32::from(len),
                },
            };
            let octets = core.bytes(self.buf, r);
            if f & V_POINTER != 0 {
                RawValue::Pointer(octets)
            } else {
                utf8 = (r.off as usize + r.len as usize) <= self.utf8_until;
                RawValue::Text(octets)
            }
        };
        Some(RawStep::Raw(RawNode {
            id,
            kind,
            tag,
            xref,
            value,
            utf8,
        }))
    }
}

/// A structure's octets as they stand in the input: see [`RawWalk`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawNode<'t> {
    /// The structure's id (see [`RawWalk::node`]).
    pub(crate) id: u32,
    /// The structure's kind, which fixes its tag: below [`RawWalk::kinds`].
    pub(crate) kind: u32,
    /// The tag.
    pub(crate) tag: &'t [u8],
    /// The xref_id, `@` signs included.
    pub(crate) xref: Option<&'t [u8]>,
    /// The payload, on one line.
    pub(crate) value: RawValue<'t>,
    /// A text payload's octets are known to be valid UTF-8 in a UTF-8 input
    /// (otherwise only ASCII octets stand for themselves).
    pub(crate) utf8: bool,
}

/// A payload's octets as they stand in the input, before any decoding.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RawValue<'t> {
    /// No payload.
    None,
    /// A pointer, `@` signs included.
    Pointer(&'t [u8]),
    /// A string payload with no additional lines.
    Text(&'t [u8]),
}

/// A structure in a [`Tree`](super::Tree) or
/// [`RecordTree`](super::RecordTree): a cheap `Copy` handle (a reference
/// to the tree and an index) with the navigation methods.
#[derive(Clone, Copy)]
pub struct NodeRef<'t> {
    core: &'t Core,
    buf: Src<'t>,
    id: u32,
}

/// The buffer a tree's nodes index, and its longest valid UTF-8 prefix as
/// text (empty when not known): payloads and tags inside that prefix are
/// sliced from it with no UTF-8 check of their own.
#[derive(Clone, Copy)]
pub(crate) struct Src<'t> {
    pub(crate) bytes: &'t [u8],
    pub(crate) text: &'t str,
}

impl std::fmt::Debug for Src<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Src")
            .field("len", &self.bytes.len())
            .field("text_len", &self.text.len())
            .finish()
    }
}

impl<'t> Src<'t> {
    /// `bytes` with no known valid prefix.
    pub(crate) fn bytes_only(bytes: &'t [u8]) -> Self {
        Src { bytes, text: "" }
    }

    /// `bytes[a..b]` as text, when it lies in the valid prefix (payloads and
    /// tags begin and end next to ASCII octets, so inside a valid prefix
    /// they are valid themselves; `get` checks the boundaries anyway).
    #[inline]
    fn text(&self, a: usize, b: usize) -> Option<&'t str> {
        self.text.get(a..b)
    }
}

impl std::fmt::Debug for NodeRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeRef")
            .field("id", &self.id)
            .field("line", &self.line())
            .field("tag", &self.tag())
            .finish()
    }
}

impl PartialEq for NodeRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.core, other.core) && self.id == other.id
    }
}

impl Eq for NodeRef<'_> {}

impl<'t> NodeRef<'t> {
    pub(crate) fn new(core: &'t Core, buf: &'t [u8], id: u32) -> Self {
        NodeRef {
            core,
            buf: Src::bytes_only(buf),
            id,
        }
    }

    /// A node of a tree whose buffer's valid UTF-8 prefix is known.
    pub(crate) fn with_src(core: &'t Core, buf: Src<'t>, id: u32) -> Self {
        NodeRef { core, buf, id }
    }

    fn node(&self) -> &'t Node {
        &self.core.nodes[self.id as usize]
    }

    fn flags(&self) -> u8 {
        self.core.flags(self.id)
    }

    fn kind(&self) -> &'t Kind {
        &self.core.kinds[self.core.kind_of(self.id) as usize]
    }

    fn at(&self, id: u32) -> NodeRef<'t> {
        NodeRef { id, ..*self }
    }

    /// The node's id.
    pub fn id(&self) -> NodeId {
        NodeId(self.id)
    }

    /// The tag.
    pub fn tag(&self) -> &'t str {
        let k = self.kind();
        if self.flags() & SYNTHETIC != 0 {
            return "UNDEF";
        }
        let (off, len) = (k.tag.off as usize, k.tag.len as usize);
        if let Some(t) = self.buf.text(off, off + len) {
            return t;
        }
        std::str::from_utf8(self.core.bytes(self.buf.bytes, k.tag)).unwrap_or("ERROR")
    }

    /// The xref_id, `@` signs included.
    pub fn xref(&self) -> Option<Xref<'t>> {
        if self.flags() & HAS_XREF == 0 {
            return None;
        }
        let r = self.core.xref_entry(self.id)?;
        Some(Xref::new(self.core.bytes(self.buf.bytes, r)))
    }

    /// The payload: a pointer or a string.
    pub fn value(&self) -> Option<Value<'t>> {
        let f = self.flags();
        if f & V_POINTER != 0 {
            Some(Value::Pointer(Xref::new(
                self.core.bytes(self.buf.bytes, self.core.val(self.id)),
            )))
        } else if f & V_TEXT != 0 {
            self.payload().map(Value::Text)
        } else {
            None
        }
    }

    /// The pointer payload, if the payload is a pointer.
    pub fn pointer(&self) -> Option<Xref<'t>> {
        if self.flags() & V_POINTER == 0 {
            return None;
        }
        Some(Xref::new(
            self.core.bytes(self.buf.bytes, self.core.val(self.id)),
        ))
    }

    /// The string payload, raw until [`Payload::text`] (as the reader
    /// decodes it: same encoding, escapes and `CONT`/`CONC` joining).
    pub fn payload(&self) -> Option<Payload<'t>> {
        let f = self.flags();
        if f & V_TEXT == 0 {
            return None;
        }
        let c = self.core;
        let first = c.val(self.id);
        let rest = if f & HAS_REST != 0 {
            c.rests
                .binary_search_by_key(&self.id, |e| e.0)
                .ok()
                .map(|i| c.rests[i].1)
        } else {
            None
        };
        // The tag's octets, not `tag()`: no UTF-8 check for the lookup.
        let decoding = Decoding {
            preserve: c
                .shared
                .escapes
                .lookup(c.bytes(self.buf.bytes, self.kind().tag)),
            ..c.base
        };
        // Inside the input's valid UTF-8 prefix, a UTF-8 payload is sliced
        // from it as text: `text()` then checks nothing.
        let utf8 = c.base.encoding == crate::encoding::Encoding::Utf8;
        let rest = match rest {
            Some(r) if r.len > 0 => r,
            _ => {
                let (a, n) = (first.off as usize, first.len as usize);
                if let Some(t) = self.buf.text(a, a + n).filter(|_| utf8) {
                    return Some(Payload::validated_window(t, n, n, decoding));
                }
                return Some(Payload::new(c.bytes(self.buf.bytes, first), decoding));
            }
        };
        // The first line's payload and the additional lines are one window
        // of the input (both in `buf`, the additional lines after it); in
        // any other case the payload is made of the two parts.
        let from = if first.len == 0 { rest.off } else { first.off };
        let (from, first_len) = (from as usize, first.len as usize);
        let (rest_off, end) = (rest.off as usize, rest.off as usize + rest.len as usize);
        if rest_off >= from + first_len {
            let rest_at = rest_off - from;
            if let Some(t) = self.buf.text(from, end).filter(|_| utf8) {
                return Some(Payload::validated_window(t, first_len, rest_at, decoding));
            }
            if let Some(window) = self.buf.bytes.get(from..end) {
                return Some(Payload::window(window, first_len, rest_at, decoding));
            }
        }
        Some(Payload::with_additional_lines(
            c.bytes(self.buf.bytes, first),
            c.bytes(self.buf.bytes, rest),
            decoding,
        ))
    }

    /// The decoded text of a string payload (see [`Payload::text`]).
    pub fn text(&self) -> Option<Cow<'t, str>> {
        self.payload().map(|p| p.text())
    }

    /// The 1-based number of the structure's first line in the input (0
    /// for synthetic `UNDEF` records).
    pub fn line(&self) -> u64 {
        if self.flags() & SYNTHETIC != 0 {
            return 0;
        }
        self.node().line as u64 + self.core.line_offset
    }

    /// How the structure arose (see [`Origin`]).
    pub fn origin(&self) -> Origin {
        let f = self.flags();
        if f & UNPARSABLE != 0 {
            Origin::UnparsableLine
        } else if f & TOO_DEEP != 0 {
            let digits: u32 = self
                .core
                .bytes(self.buf.bytes, self.core.val(self.id))
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .try_fold(0u32, |n, &d| {
                    n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
                })
                .unwrap_or(u32::MAX);
            Origin::TooDeepLine {
                original_level: digits,
            }
        } else {
            Origin::Line
        }
    }

    /// `true` for the synthetic `UNDEF` records made for unresolved pointers.
    pub fn is_synthetic(&self) -> bool {
        self.flags() & SYNTHETIC != 0
    }

    /// The structure's type identifier (seed §7); `None` for serialisation
    /// metadata (and, in dictionary mode, pseudo-structures).
    pub fn structure_type(&self) -> Option<StructureType<'t>> {
        let k = self.kind();
        k.key
            .map(|key| self.core.shared.schema.structure_type(key, self.tag()))
    }

    /// The superstructure (`None` for records).
    pub fn parent(&self) -> Option<NodeRef<'t>> {
        let p = self.node().parent;
        (p != NONE).then(|| self.at(p))
    }

    /// The level: 0 for records, one more than the parent's otherwise.
    /// O(level).
    pub fn level(&self) -> u32 {
        let mut n = 0;
        let mut p = self.node().parent;
        while p != NONE {
            n += 1;
            p = self.core.nodes[p as usize].parent;
        }
        n
    }

    /// The record this node belongs to (itself for a record).
    pub fn record(&self) -> NodeRef<'t> {
        let mut id = self.id;
        loop {
            let p = self.core.nodes[id as usize].parent;
            if p == NONE {
                return self.at(id);
            }
            id = p;
        }
    }

    /// The substructures, in document order.
    pub fn children(&self) -> Children<'t> {
        Children {
            core: self.core,
            buf: self.buf,
            next: self.id + 1,
            limit: self.node().end,
        }
    }

    /// `true` when the node has substructures.
    pub fn has_children(&self) -> bool {
        self.node().end > self.id + 1
    }

    /// The substructures tagged `tag`.
    pub fn children_with_tag<'q>(&self, tag: &'q str) -> impl Iterator<Item = NodeRef<'t>> + 'q
    where
        't: 'q,
    {
        self.children().filter(move |c| c.tag() == tag)
    }

    /// The first substructure tagged `tag`.
    pub fn child(&self, tag: &str) -> Option<NodeRef<'t>> {
        self.children().find(|c| c.tag() == tag)
    }

    /// The next structure with the same superstructure.
    pub fn next_sibling(&self) -> Option<NodeRef<'t>> {
        let e = self.node().end;
        let limit = match self.parent() {
            Some(p) => p.node().end,
            None if self.id < self.core.doc_nodes => self.core.doc_nodes,
            None => self.core.nodes.len() as u32,
        };
        (e < limit).then(|| self.at(e))
    }

    /// Every structure below this one, in document order (O(1) per step).
    pub fn descendants(&self) -> impl Iterator<Item = NodeRef<'t>> + 't {
        let me = *self;
        (self.id + 1..self.node().end).map(move |i| me.at(i))
    }

    /// The number of structures in this subtree, itself included.
    pub fn subtree_len(&self) -> usize {
        (self.node().end - self.id) as usize
    }

    /// A [`RawWalk`] of this subtree.
    pub(crate) fn raw_walk(&self) -> RawWalk<'t> {
        RawWalk::new(self.core, self.buf.bytes, self.id, self.node().end)
    }

    /// A depth-first walk of this subtree as enter/leave steps, with no
    /// recursion (any depth is fine).
    pub fn walk(&self) -> Walk<'t> {
        Walk {
            start: *self,
            next: self.id,
            limit: self.node().end,
            stack: Vec::new(),
        }
    }

    /// The nodes at `path` below this node: tags separated by `.`, each
    /// matching a substructure of the previous one (`BIRT.PLAC` gives the
    /// `PLAC` of each `BIRT`); `*` matches any tag. Document order.
    pub fn path<'p>(&self, path: &'p str) -> PathIter<'t, 'p> {
        PathIter::new(self.children(), path)
    }

    /// The first node at `path` (see [`NodeRef::path`]).
    pub fn first(&self, path: &str) -> Option<NodeRef<'t>> {
        self.path(path).next()
    }

    /// What a pointer payload resolves to (seed §5.1): the one structure
    /// with that xref_id, or else the synthetic `UNDEF` record for it.
    /// `None` when the payload is not a pointer, and in a
    /// [`RecordTree`](super::RecordTree), which holds no other records.
    pub fn target(&self) -> Option<NodeRef<'t>> {
        let p = self.pointer()?;
        let key = p.as_bytes();
        self.core
            .lookup(self.buf.bytes, key)
            .or_else(|| self.core.lookup_undef(self.buf.bytes, key))
            .map(|id| self.at(id))
    }
}

/// The substructures of a node (or the records of a tree).
#[derive(Clone, Debug)]
pub struct Children<'t> {
    core: &'t Core,
    buf: Src<'t>,
    next: u32,
    limit: u32,
}

impl<'t> Children<'t> {
    pub(crate) fn range(core: &'t Core, buf: Src<'t>, next: u32, limit: u32) -> Self {
        Children {
            core,
            buf,
            next,
            limit,
        }
    }
}

impl<'t> Iterator for Children<'t> {
    type Item = NodeRef<'t>;

    fn next(&mut self) -> Option<NodeRef<'t>> {
        if self.next >= self.limit {
            return None;
        }
        let id = self.next;
        self.next = self.core.nodes[id as usize].end.max(id + 1);
        Some(NodeRef {
            core: self.core,
            buf: self.buf,
            id,
        })
    }
}

/// One step of a [`Walk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'t> {
    /// A structure begins; its substructures follow, then its `Leave`.
    Enter(NodeRef<'t>),
    /// A structure ends.
    Leave(NodeRef<'t>),
}

/// A depth-first walk: see [`NodeRef::walk`].
#[derive(Clone, Debug)]
pub struct Walk<'t> {
    start: NodeRef<'t>,
    next: u32,
    limit: u32,
    stack: Vec<u32>,
}

impl<'t> Walk<'t> {
    /// How many structures are open (the level of the next `Enter`,
    /// relative to the walk's start).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }
}

impl<'t> Iterator for Walk<'t> {
    type Item = Step<'t>;

    fn next(&mut self) -> Option<Step<'t>> {
        let nodes = &self.start.core.nodes;
        if let Some(&top) = self.stack.last() {
            if self.next >= nodes[top as usize].end {
                self.stack.pop();
                return Some(Step::Leave(self.start.at(top)));
            }
        }
        if self.next < self.limit {
            let id = self.next;
            self.next += 1;
            self.stack.push(id);
            return Some(Step::Enter(self.start.at(id)));
        }
        None
    }
}

/// The nodes at a path: see [`NodeRef::path`].
#[derive(Clone, Debug)]
pub struct PathIter<'t, 'p> {
    segments: Vec<&'p str>,
    stack: Vec<Children<'t>>,
}

impl<'t, 'p> PathIter<'t, 'p> {
    pub(crate) fn new(start: Children<'t>, path: &'p str) -> Self {
        let segments: Vec<&'p str> = path.split('.').filter(|s| !s.is_empty()).collect();
        let stack = if segments.is_empty() {
            Vec::new()
        } else {
            vec![start]
        };
        PathIter { segments, stack }
    }
}

impl<'t> Iterator for PathIter<'t, '_> {
    type Item = NodeRef<'t>;

    fn next(&mut self) -> Option<NodeRef<'t>> {
        loop {
            let depth = self.stack.len();
            let top = self.stack.last_mut()?;
            match top.next() {
                None => {
                    self.stack.pop();
                }
                Some(c) => {
                    let seg = self.segments[depth - 1];
                    if seg == "*" || c.tag() == seg {
                        if depth == self.segments.len() {
                            return Some(c);
                        }
                        self.stack.push(c.children());
                    }
                }
            }
        }
    }
}
