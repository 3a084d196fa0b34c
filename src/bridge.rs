//! Writing trees: the bridge between [`tree`](crate::tree) and
//! [`write`](crate::write). Neither depends on the other; this module
//! depends on both.
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
//! [`typed_document`] turns a tree into a
//! [`TypedDocument`]: the structures by type, for
//! [`write_typed`](crate::write::typed::write_typed) to write again with tags and xref
//! ids of its choosing.

use std::collections::HashMap;
use std::io;

use crate::encoding::Encoding;
use crate::event::Value;
use crate::tree::{NodeRef, SchemaSource, Step, Tree};
use crate::write::typed::{RecordId, StructureId, TypedDocument, TypedValue};
use crate::write::{decode_xref, WriteError, WriteErrorKind, WriteValue, Writer};

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
    for step in node.walk() {
        match step {
            Step::Enter(n) => {
                let xref = n
                    .xref()
                    .map(|x| decode_xref(x.as_bytes(), source).into_owned());
                let (text, pointer);
                let value = match n.value() {
                    Some(Value::Pointer(p)) => {
                        pointer = decode_xref(p.as_bytes(), source).into_owned();
                        Some(WriteValue::Pointer(&pointer))
                    }
                    Some(Value::Text(t)) => {
                        text = t.text();
                        Some(WriteValue::Text(&text))
                    }
                    None => None,
                };
                w.begin(n.tag(), xref.as_deref(), value)?;
            }
            Step::Leave(_) => w.end()?,
        }
    }
    Ok(())
}

/// Writes every record of `tree` in document order, except a final bare
/// `TRLR` (the `HEAD` gets the writer's own `CHAR` line; synthetic `UNDEF`
/// records are not written). Call [`Writer::trailer`] after it.
///
/// # Errors
/// As [`write_node`].
pub fn write_tree<W: io::Write>(
    w: &mut Writer<W>,
    tree: &Tree<'_>,
    source: Encoding,
) -> Result<(), WriteError> {
    let n = tree.record_count();
    for (i, record) in tree.records().enumerate() {
        let bare_trlr = record.tag() == "TRLR" && record.children().next().is_none();
        if i + 1 == n && bare_trlr {
            break;
        }
        write_node(w, record, source)?;
    }
    Ok(())
}

/// The typed structures of `tree` (seed §7) as a [`TypedDocument`]: every record
/// but `HEAD` and `TRLR` (the synthetic `UNDEF` records of dangling pointers last,
/// as `elf:Undefined` records), and the `HEAD`'s typed substructures (all but
/// `CHAR` and `SCHMA`; `GEDC` included, so write with `head.gedc` off) as metadata.
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
/// let doc = typed_document(&tree)?;
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
pub fn typed_document(tree: &Tree<'_>) -> Result<TypedDocument, WriteError> {
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
    for (i, r) in tree.records().enumerate() {
        let Some(ty) = r.structure_type() else {
            if i == 0 && r.tag().eq_ignore_ascii_case("HEAD") {
                head = Some(r);
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
    Ok(doc)
}
