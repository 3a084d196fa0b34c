//! The reference for writing trees: every structure decoded and given to
//! `Writer::begin` as text. Shared by `tests/tree_write.rs` and the `tree` fuzz
//! target, which compare `bridge::write_tree` (most structures as the input's own
//! octets) and `write_tree_parallel` with it.

use gedcom_elf::tree::{Step, Tree};
use gedcom_elf::write::{decode_xref, WriteError, WriteValue};
use gedcom_elf::{Encoding, Value, Writer};

/// Writes the records of `tree` as `bridge::write_tree` does (all but a final bare
/// `TRLR`), structure by structure with decoded strings; stops at the first error.
pub fn write_decoded<W: std::io::Write>(
    w: &mut Writer<W>,
    tree: &Tree<'_>,
    source: Encoding,
) -> Result<(), WriteError> {
    let mut records: Vec<_> = tree.records().collect();
    if records
        .last()
        .is_some_and(|r| r.tag() == "TRLR" && !r.has_children())
    {
        records.pop();
    }
    for record in records {
        for step in record.walk() {
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
                            text = t.text().into_owned();
                            Some(WriteValue::Text(&text))
                        }
                        None => None,
                    };
                    w.begin(n.tag(), xref.as_deref(), value)?;
                }
                Step::Leave(_) => w.end()?,
            }
        }
    }
    Ok(())
}
