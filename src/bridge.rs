//! Writing trees: the bridge between [`tree`](crate::tree) and
//! [`write`](crate::write). The tree knows nothing of the writer, and the writer
//! walks no trees (only its typed writing uses the tree's schemas,
//! [`tree::Schema`](crate::tree::Schema)); this module walks trees into writers.
//!
//! ```
//! use gedcom_elf::bridge::write_tree;
//! use gedcom_elf::{Encoding, Tree, Writer};
//!
//! let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada\n1 NOTE a@@b\n2 CONT c\n0 TRLR\n";
//! let tree = Tree::from_slice(input)?;
//! let mut w = Writer::new(Vec::new());
//! write_tree(&mut w, &tree, Encoding::Utf8)?;
//! w.trailer()?;
//! assert_eq!(w.finish()?, input);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Speed
//! Most structures of a tree read from UTF-8 or ASCII are written as they stand in
//! the input: their tag, xref and payload octets go to the writer's fast path
//! without being decoded and encoded again, when the writer would write exactly
//! those octets (a one-line text with no control character or trailing whitespace,
//! within the line limit, for UTF-8 output or ASCII text, whose `@` signs, if any,
//! are `@@` pairs or escapes that reading and escaping again give back as they are).
//! The others (continued payloads, other `@` signs, other encodings, `ERROR`
//! structures) are decoded and go through [`Writer::begin`]; the output is the same
//! either way (the tests and the `tree` fuzz target compare the two).
//! [`write_tree_parallel`] writes pieces of records on several threads, in document
//! order.
//!
//! [`typed_document`] turns a tree into a
//! [`TypedDocument`]: the structures by type, for
//! [`write_typed`](crate::write::typed::write_typed) to write again with tags and xref
//! ids of its choosing.

use std::collections::HashMap;
use std::io;

use crate::encoding::Encoding;
use crate::escape::EscapeSet;
use crate::event::Value;
use crate::tree::{NodeRef, RawStep, RawValue, RawWalk, SchemaSource, Step, Tree};
use crate::write::typed::{RecordId, StructureId, TypedDocument, TypedValue};
use crate::write::{
    decode_xref, raw_tag_ok, DropReason, Dropped, RawPayload, WriteError, WriteErrorKind,
    WriteValue, Writer,
};

/// Writes `node` and its subtree, without recursion: text payloads as
/// decoded (the writer escapes and splits them again), pointers and xrefs
/// as they stand (decoded from `source`, the input's encoding).
///
/// # Errors
/// As [`Writer::begin`]: a structure the writer cannot represent (for
/// example a child of a too-deep `ERROR` structure) stops the write.
pub fn write_node<W: io::Write>(
    w: &mut Writer<W>,
    node: NodeRef<'_>,
    source: Encoding,
) -> Result<(), WriteError> {
    write_walk(w, node.raw_walk(), source)
}

/// Writes the structures of a walk (see [`write_node`]).
fn write_walk<W: io::Write>(
    w: &mut Writer<W>,
    mut walk: RawWalk<'_>,
    source: Encoding,
) -> Result<(), WriteError> {
    // Whether the writer's fast path takes each kind's tag (0: not known yet).
    let mut tag_ok = vec![0u8; walk.kinds()];
    // The escape types both the tree and the writer preserve, by kind (when known).
    let mut kept: Vec<Option<EscapeSet>> = vec![None; walk.kinds()];
    while let Some(step) = walk.step() {
        let n = match step {
            RawStep::Leave => {
                w.end()?;
                continue;
            }
            RawStep::Raw(raw) => {
                // Most structures: their octets are their text, written as they are.
                let ok = match tag_ok.get_mut(raw.kind as usize) {
                    Some(k) => {
                        if *k == 0 {
                            *k = if raw_tag_ok(raw.tag) { 1 } else { 2 };
                        }
                        *k == 1
                    }
                    None => false,
                };
                if ok {
                    let value = match raw.value {
                        RawValue::None => RawPayload::None,
                        RawValue::Pointer(p) => RawPayload::Pointer(p),
                        RawValue::Text(t) => RawPayload::Text(t),
                    };
                    if w.begin_raw(raw.tag, raw.xref, value, raw.utf8) {
                        continue;
                    }
                    // A text with `@` signs that read and escaped again are the same
                    // octets (e-mail addresses, dates with a calendar escape).
                    if let RawValue::Text(t) = raw.value {
                        if memchr::memchr(b'@', t).is_some() {
                            let k = &mut kept[raw.kind as usize];
                            let both = *k.get_or_insert_with(|| {
                                let read = walk.escapes().lookup(raw.tag);
                                let written = w.config().escape_table().lookup(raw.tag);
                                read.intersection(written)
                            });
                            if at_signs_stay(t, both)
                                && w.begin_raw_at_signs(raw.tag, raw.xref, t, raw.utf8)
                            {
                                continue;
                            }
                        }
                    }
                }
                walk.node(raw.id)
            }
            RawStep::Node(n) => n,
        };
        begin_decoded(w, n, source)?;
    }
    Ok(())
}

/// `true` when the one-line text payload `raw` (as it stands in the input, no line
/// break in it) is what the writer makes again of what a reader makes of it, as far as
/// `@` signs go, for a tag whose escapes of the types in `kept` both the reader and the
/// writer preserve (seed §5). Each `@` must be
/// * one of a pair `@@` that is not followed by `#` (read as one `@`, which the
///   writer doubles again: after a pair, `#` could make the read `@` begin an escape),
/// * or the first of an escape `@#T...@ ` with `T` in `kept` (not `U`), kept as it
///   is by both.
///
/// Any other `@` (alone, or beginning an escape that is removed or decoded) is
/// changed by one of the two, so the text is decoded and written the long way.
fn at_signs_stay(raw: &[u8], kept: EscapeSet) -> bool {
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'@', &raw[i..]) {
        let at = i + k;
        match raw.get(at + 1) {
            Some(b'@') => {
                if raw.get(at + 2) == Some(&b'#') {
                    return false;
                }
                i = at + 2;
            }
            Some(b'#') => {
                let t = raw.get(at + 2).copied().unwrap_or(0);
                if t == b'U' || !kept.contains(t) {
                    return false;
                }
                let body = at + 3;
                let Some(k) = memchr::memchr(b'@', &raw[body..]) else {
                    return false;
                };
                let close = body + k;
                if raw.get(close + 1) != Some(&b' ') {
                    return false;
                }
                i = close + 2;
            }
            _ => return false,
        }
    }
    true
}

/// Begins `n` with its xref, tag and payload decoded.
#[inline(never)]
fn begin_decoded<W: io::Write>(
    w: &mut Writer<W>,
    n: NodeRef<'_>,
    source: Encoding,
) -> Result<(), WriteError> {
    let xref_id = n.xref();
    let xref = xref_id.as_ref().map(|x| decode_xref(x.as_bytes(), source));
    let (text, pointer);
    let payload = n.value();
    let value = match &payload {
        Some(Value::Pointer(p)) => {
            pointer = decode_xref(p.as_bytes(), source);
            Some(WriteValue::Pointer(&pointer))
        }
        Some(Value::Text(t)) => {
            text = t.text();
            Some(WriteValue::Text(&text))
        }
        None => None,
    };
    w.begin_at_line(n.tag(), xref.as_deref(), value, n.line())
}

/// Writes every record of `tree` in document order, except a final bare
/// `TRLR` (the `HEAD` gets the writer's own `CHAR` line, under which the
/// substructures of the tree's move: see
/// [`WriterConfig::set_head_char`](crate::write::WriterConfig::set_head_char);
/// synthetic `UNDEF` records are not written). Call [`Writer::trailer`] after it.
///
/// What the writer leaves out, and the error it stops at, carry the tree node's
/// input line ([`Writer::dropped`], [`WriteError::line`]). Tree texts hold LF as their
/// only line break: write with
/// [`WriterConfig::cr_is_line_break`](crate::write::WriterConfig::cr_is_line_break)
/// off to keep a CR in one a character.
///
/// # Errors
/// As [`write_node`].
pub fn write_tree<W: io::Write>(
    w: &mut Writer<W>,
    tree: &Tree<'_>,
    source: Encoding,
) -> Result<(), WriteError> {
    write_walk(w, tree.raw_walk_records(0, records_to_write(tree)), source)
}

/// The number of records [`write_tree`] writes: all but a final bare `TRLR`.
fn records_to_write(tree: &Tree<'_>) -> usize {
    let n = tree.record_count();
    match n.checked_sub(1).and_then(|i| tree.record(i)) {
        Some(last) if last.tag() == "TRLR" && !last.has_children() => n - 1,
        _ => n,
    }
}

/// Roughly how many structures each thread of [`write_tree_parallel`] writes at a
/// time: about a megabyte of output.
const PARALLEL_PIECE_NODES: usize = 1 << 15;

/// [`write_tree`] on `jobs` threads: the same octets, written faster, and the same
/// [`Writer::dropped`] (the piece writers' are added to `w`'s in document order).
///
/// The first record (the `HEAD`) is written by `w`, then the other records are cut
/// into pieces of whole records (about a megabyte of output each) that `jobs`
/// threads write, each with a headless writer of `w`'s configuration, into
/// buffers that `w` writes out in document order. At most `2 * jobs` pieces are
/// held at once, so memory stays bounded whatever the tree's size. With `jobs` at
/// most 1, a small tree, or `w` inside a structure, it is [`write_tree`].
///
/// ```
/// use gedcom_elf::bridge::{write_tree, write_tree_parallel};
/// use gedcom_elf::{Encoding, Tree, Writer};
///
/// let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n");
/// for i in 0..50_000 {
///     input += &format!("0 @I{i}@ INDI\n1 NAME Person /{i}/\n1 NOTE a@@b\n2 CONT c\n");
/// }
/// input += "0 TRLR\n";
/// let tree = Tree::from_slice(input.as_bytes())?;
/// let mut w = Writer::new(Vec::new());
/// write_tree_parallel(&mut w, &tree, Encoding::Utf8, 2)?;
/// w.trailer()?;
/// assert_eq!(w.finish()?, input.as_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`write_tree`]: the first error in document order, after the output before
/// the structure that caused it.
pub fn write_tree_parallel<W: io::Write>(
    w: &mut Writer<W>,
    tree: &Tree<'_>,
    source: Encoding,
    jobs: usize,
) -> Result<(), WriteError> {
    if jobs <= 1 {
        return write_tree(w, tree, source);
    }
    write_tree_parallel_chunked(w, tree, source, jobs, PARALLEL_PIECE_NODES)
}

/// [`write_tree_parallel`] with pieces of about `piece_nodes` structures (at least
/// one record each), cut and written through piece writers even with one job: the
/// output is the same whatever the pieces (which the tests check).
///
/// # Errors
/// As [`write_tree`].
pub fn write_tree_parallel_chunked<W: io::Write>(
    w: &mut Writer<W>,
    tree: &Tree<'_>,
    source: Encoding,
    jobs: usize,
    piece_nodes: usize,
) -> Result<(), WriteError> {
    let n = records_to_write(tree);
    // A piece's writer starts afresh, so a piece starts at a record the writer opens
    // the same way whatever came before: not one that keeps the previous level (whether
    // its substructures are too deep depends on that level).
    let writer: &Writer<W> = w;
    let fresh = |i: usize| i >= n || tree.record(i).is_some_and(|r| !writer.keeps_level(r.tag()));
    // Pieces of whole records after the first ones: `bounds[k]..bounds[k + 1]`.
    let first = (1.min(n)..=n).find(|&i| fresh(i)).unwrap_or(n);
    let mut bounds = vec![first];
    let mut size = 0;
    for i in first..n {
        size += tree.record(i).map_or(1, |r| r.subtree_len());
        if size >= piece_nodes && fresh(i + 1) {
            bounds.push(i + 1);
            size = 0;
        }
    }
    if bounds.last() != Some(&n) {
        bounds.push(n);
    }
    let pieces = bounds.len() - 1;
    if pieces == 0 || w.depth() != 0 {
        return write_tree(w, tree, source);
    }
    write_walk(w, tree.raw_walk_records(0, bounds[0]), source)?;
    if !w.has_started() {
        // Nothing written yet (an empty tree): nothing to gain.
        return write_walk(w, tree.raw_walk_records(bounds[0], n), source);
    }
    let config = w.config().clone().headless(true).bom(Some(false));
    // Piece buffers go back to the workers once written out (fresh memory costs
    // page faults).
    let spare: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
    let run = |k: usize| {
        let buf = spare
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or_default();
        let mut piece = Writer::<io::Sink>::collecting(config.clone(), buf);
        let walk = tree.raw_walk_records(bounds[k], bounds[k + 1]);
        let result = write_walk(&mut piece, walk, source);
        // After an error, what was written before it (as `write_tree` leaves it).
        let dropped = piece.take_dropped();
        (piece.take_collected(), dropped, result.err())
    };
    type Piece = ((Vec<u8>, usize), (u64, Vec<Dropped>), Option<WriteError>);
    let emit = |_: usize, ((buf, len), (count, dropped), error): Piece| {
        w.append_records(&buf[..len])?;
        w.add_dropped(count, dropped);
        if let Ok(mut s) = spare.lock() {
            s.push(buf);
        }
        error.map_or(Ok(()), Err)
    };
    // Every piece is emitted unless `emit` fails: a worker's panic is resumed here.
    crate::ordered::run_in_order(pieces, jobs, run, emit)?;
    Ok(())
}

/// The typed structures of `tree` (seed §7) as a [`TypedDocument`]: every record
/// but `HEAD` and `TRLR` (the synthetic `UNDEF` records of dangling pointers last,
/// as `elf:Undefined` records), and the `HEAD`'s typed substructures (all but
/// `CHAR` and `SCHMA`; `GEDC` included, so write with `head.gedc` off) as metadata;
/// with the list of what it leaves out.
///
/// What has no structure type (serialisation metadata) has no place in a typed
/// document, which [`write_typed`](crate::write::typed::write_typed) writes with a
/// `CHAR` and a schema of its own: the `HEAD`'s `CHAR` (its payload and `VERS`
/// payloads only name the input's encoding) and `SCHMA` (read into the tree's schema,
/// which the tree reports ignored parts of as diagnostics) are replaced. Everything
/// else left out is listed, in document order, as [`Dropped`] with the input line:
/// the other substructures of the `CHAR` and those of its `VERS`
/// ([`DropReason::Untyped`]), a second `CHAR` ([`DropReason::SecondChar`]), the
/// payload of the `HEAD` or the last `TRLR` ([`DropReason::UntypedPayload`]), the
/// substructures of the last `TRLR` and any earlier `TRLR` record
/// ([`DropReason::Untyped`]).
/// Texts hold LF as their only line break (a CR in them is a character): write
/// with [`WriterConfig::cr_is_line_break`](crate::write::WriterConfig::cr_is_line_break)
/// off to keep it one.
/// Each keeps its structure type, its text and its substructures; a pointer
/// becomes a handle of the record it resolves to. Xref ids are not kept:
/// [`write_typed`](crate::write::typed::write_typed) gives one to each record that
/// is pointed to.
///
/// ```
/// use gedcom_elf::bridge::typed_document;
/// use gedcom_elf::write::typed::{write_typed, TypedOptions};
/// use gedcom_elf::Tree;
///
/// let input = b"0 HEAD\n0 @X7@ INDI\n1 NAME Ada\n0 @FAM-1@ FAM\n1 WIFE @X7@\n0 TRLR\n";
/// let tree = Tree::from_slice(input)?;
/// let (doc, dropped) = typed_document(&tree)?;
/// assert!(dropped.is_empty());
/// let mut opts = TypedOptions::default();
/// opts.head.gedc = false;
/// let mut out = Vec::new();
/// write_typed(&doc, tree.schema(), &opts, &mut out)?;
/// assert_eq!(out, b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada\n0 FAM\n1 WIFE @I1@\n0 TRLR\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`WriteErrorKind::InvalidType`] for a tree typed by an older draft's IRI
/// dictionary; [`WriteErrorKind::InvalidHandle`] for a pointer that resolves to a
/// structure that is not a record.
pub fn typed_document(tree: &Tree<'_>) -> Result<(TypedDocument, Vec<Dropped>), WriteError> {
    if tree.schema().source() == SchemaSource::Dictionary {
        return Err(WriteError::new(
            WriteErrorKind::InvalidType,
            "the tree is typed by an older draft's IRI dictionary",
        ));
    }
    let mut doc = TypedDocument::new();
    let mut handles: HashMap<usize, RecordId> = HashMap::new();
    let mut roots: Vec<(NodeRef<'_>, StructureId)> = Vec::new();
    let mut head = None;
    let mut dropped = Vec::new();
    let count = tree.record_count();
    for (i, r) in tree.records().enumerate() {
        let Some(ty) = r.structure_type() else {
            if i == 0 && r.tag().eq_ignore_ascii_case("HEAD") {
                head = Some(r);
                if r.value().is_some() {
                    dropped.push(untyped(r, DropReason::UntypedPayload));
                }
                untyped_head(r, &mut dropped);
            } else if i + 1 == count {
                // The last TRLR: replaced by the writer's, but for what it holds.
                if r.value().is_some() {
                    dropped.push(untyped(r, DropReason::UntypedPayload));
                }
                dropped.extend(r.children().map(|c| untyped(c, DropReason::Untyped)));
            } else {
                dropped.push(untyped(r, DropReason::Untyped));
            }
            continue;
        };
        let id = doc.add_record(&ty.iri());
        handles.insert(r.id().index(), id);
        roots.push((r, id.into()));
    }
    for r in tree.undefined_records() {
        let ty = r
            .structure_type()
            .map_or_else(|| crate::tree::schema::UNDEFINED.into(), |t| t.iri());
        let id = doc.add_record(&ty);
        handles.insert(r.id().index(), id);
    }
    if let Some(h) = head {
        for c in h.children() {
            if let Some(ty) = c.structure_type() {
                let id = doc.add_metadata(&ty.iri());
                roots.push((c, id));
            }
        }
    }
    for (root, id) in roots {
        let mut stack: Vec<StructureId> = Vec::new();
        for step in root.walk() {
            match step {
                Step::Enter(n) => {
                    let at = match stack.last() {
                        None => id,
                        Some(&parent) => {
                            let ty = n.structure_type().map(|t| t.iri());
                            let ty = ty.as_deref().unwrap_or(crate::tree::schema::UNDEFINED);
                            doc.add(parent, ty)?
                        }
                    };
                    let value = match n.value() {
                        None => None,
                        Some(Value::Text(t)) => Some(TypedValue::Text(t.text().into_owned())),
                        Some(Value::Pointer(_)) => {
                            let target = n.target().filter(|t| t.parent().is_none());
                            let handle = target.and_then(|t| handles.get(&t.id().index()));
                            match handle {
                                Some(&h) => Some(TypedValue::Pointer(h)),
                                None => {
                                    return Err(WriteError::new(
                                        WriteErrorKind::InvalidHandle,
                                        format!(
                                            "line {}: the pointer does not resolve to a record",
                                            n.line()
                                        ),
                                    ))
                                }
                            }
                        }
                    };
                    doc.set_value(at, value)?;
                    stack.push(at);
                }
                Step::Leave(_) => {
                    stack.pop();
                }
            }
        }
    }
    Ok((doc, dropped))
}

/// `n` as left out of a typed document.
fn untyped(n: NodeRef<'_>, reason: DropReason) -> Dropped {
    Dropped::new(n.tag(), Some(n.line()), reason)
}

/// What [`typed_document`] leaves out of the `HEAD`'s untyped substructures: the
/// `CHAR`'s (`VERS` payloads aside) and a second `CHAR`. The `SCHMA` is read into the
/// tree's schema.
fn untyped_head(head: NodeRef<'_>, dropped: &mut Vec<Dropped>) {
    let mut chars = 0;
    for c in head.children() {
        if c.structure_type().is_some() || c.tag() == "SCHMA" {
            continue;
        }
        if !c.tag().eq_ignore_ascii_case("CHAR") {
            dropped.push(untyped(c, DropReason::Untyped));
            continue;
        }
        chars += 1;
        if chars > 1 {
            dropped.push(untyped(c, DropReason::SecondChar));
            continue;
        }
        for s in c.children() {
            if s.tag().eq_ignore_ascii_case("VERS") {
                dropped.extend(s.children().map(|v| untyped(v, DropReason::Untyped)));
            } else {
                dropped.push(untyped(s, DropReason::Untyped));
            }
        }
    }
}
