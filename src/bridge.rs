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

use std::io;

use crate::encoding::Encoding;
use crate::event::Value;
use crate::tree::{NodeRef, Step, Tree};
use crate::write::{decode_xref, WriteError, WriteValue, Writer};

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
