//! The arena's builder: events in, nodes out.

use super::*;

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
        Ok(Builder::sized(
            buf,
            shared,
            expected_nodes,
            resolve,
            buf_len,
        ))
    }

    /// A builder of no input, its pointers never resolved: where a piece
    /// too large for an arena is read ([`Tree::build_piece`](crate::tree::Tree::build_piece)).
    pub(crate) fn empty(shared: Arc<Shared>) -> Builder<'static> {
        Builder::sized(&[], shared, 0, false, 0)
    }

    /// A builder of `buf`, whose length (`buf_len`) fits an arena.
    fn sized(
        buf: &'b [u8],
        shared: Arc<Shared>,
        expected_nodes: usize,
        resolve: bool,
        buf_len: u32,
    ) -> Self {
        Builder {
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
        }
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
        Arc::make_mut(&mut self.core.kinds).push(Kind {
            parent: parent_kind,
            tag: tag.as_ref().into(),
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

    /// Tells a builder not to note keys for pointer resolution: for a tree
    /// whose pointers are never resolved (a chunk's own tree).
    pub(crate) fn without_keys(&mut self) {
        self.resolve = false;
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

    /// Closes what is still open and returns the arena of a piece's own
    /// tree (its pointers never resolved) with its first `records` records
    /// only (the ones read whole): as [`Builder::finish`], without giving
    /// back reserved room (a piece's tree lives briefly).
    pub(crate) fn finish_piece(mut self, records: usize) -> Core {
        while !self.stack.is_empty() {
            self.end();
        }
        let core = &mut self.core;
        if let Some(&cut) = core.roots.get(records) {
            // Nodes, xref_ids and continued payloads are in node order.
            core.roots.truncate(records);
            core.nodes.truncate(cut as usize);
            for list in [&mut core.xrefs, &mut core.rests] {
                list.truncate(list.partition_point(|e| e.0 < cut));
            }
        }
        core.mark_document();
        self.core
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
    pub(crate) fn append(&mut self, part: Core, line_offset: u64) -> Result<(), Error> {
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
            let tag = k.tag.as_bytes().to_vec();
            let next = whole.kinds.len() as u32;
            let g = *self.kinds.entry((parent, tag)).or_insert(next);
            if g == next {
                Arc::make_mut(&mut whole.kinds).push(Kind {
                    parent,
                    tag: k.tag.clone(),
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
