//! Navigation: [`NodeRef`] and its iterators over an arena.

use super::*;

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
        let tag = core.kinds[kind as usize].tag.as_bytes();
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

/// A structure in a [`Tree`](crate::tree::Tree) or
/// [`RecordTree`](crate::tree::RecordTree): a cheap `Copy` handle (a reference
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
    /// Valid UTF-8: `bytes[base..base + text.len()]` (a chunk's own
    /// tree knows only its chunk's).
    pub(crate) text: &'t str,
    pub(crate) base: usize,
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
        Src {
            bytes,
            text: "",
            base: 0,
        }
    }

    /// `bytes[a..b]` as text, when it lies in the valid prefix (payloads and
    /// tags begin and end next to ASCII octets, so inside a valid prefix
    /// they are valid themselves; `get` checks the boundaries anyway).
    #[inline]
    fn text(&self, a: usize, b: usize) -> Option<&'t str> {
        self.text
            .get(a.checked_sub(self.base)?..b.checked_sub(self.base)?)
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
        if self.flags() & SYNTHETIC != 0 {
            return "UNDEF";
        }
        &self.kind().tag
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
        // The escape table is looked up by the kind's tag octets.
        let decoding = Decoding {
            preserve: c.shared.escapes.lookup(self.kind().tag.as_bytes()),
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
    /// `None` when the payload is not a pointer, for GEDCOM 7's null
    /// pointer `@VOID@` (when no record has that xref_id), and in a
    /// [`RecordTree`](crate::tree::RecordTree), which holds no other records.
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
