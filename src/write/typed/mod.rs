//! Typed serialisation (seed §5.1, §6, §7): structures described by their
//! structure type identifier, written with tags and xref ids the writer chooses.
//!
//! A [`TypedDocument`] holds records, `HEAD` substructures (serialisation
//! metadata, superstructure type `elf:Metadata`) and their substructures, each
//! with a structure type IRI, an optional payload and substructures in order.
//! Pointers name their target by [`RecordId`], never by xref. [`plan`](fn@plan) decides how
//! to write it under a [`Schema`] (by default the built-in
//! default schema) and [`write_typed`] writes it:
//!
//! * **Tags** come from the schema's tag definitions, in the context of the
//!   superstructure's type (`elf:Document` for records): the first tag definition
//!   (in schema order) for the structure's type whose superstructure type is an
//!   eventual supertype of the superstructure's type, and which a reader resolves
//!   back to the same type (a tag whose definitions conflict there is passed over).
//!   So `elf:PARENT1_POINTER` under `elf:FAM_RECORD` is `HUSB`, and
//!   `elf:Parent1Age` under `elf:MARRIAGE` is `HUSB` too. `elf:Undefined` is `UNDEF`
//!   and an undefined tag identifier `elf:Undefined#TAG` is `TAG` (refused where
//!   `TAG` has a definition).
//! * **New tags** (§7.2): a type the schema gives no tag in some context gets a
//!   fresh tag: `_` and the last segment of its IRI in capitals (at most 15
//!   characters, a number appended when needed), colliding with no tag of the
//!   schema's tag or escape definitions, no tag the output uses and no tag with a
//!   special meaning (`HEAD`, `TRLR`, `CHAR`, `SCHMA`, `CONT`, `CONC`, `ERROR`,
//!   `UNDEF`, `GEDC`). One type keeps one new tag in all its contexts.
//! * **The schema** (§6.2): when a tag was invented, or the schema is not the
//!   default one, the `HEAD` gets a `SCHMA`. A `SCHMA` replaces the default schema
//!   entirely, so it carries, besides the new `IRI`/`TAG` lines, either the whole
//!   schema written with ([`SchemaLines::Full`], the default: any structure of any
//!   type added to the file later is typed as before) or just the definitions this
//!   output relies on, with the `ISA` lines linking each superstructure type to the
//!   type its tag definition names ([`SchemaLines::Minimal`]). Either way, prefixes
//!   and escape preservation (`ESC`) are kept. The written schema is read back
//!   before anything is written and every (superstructure type, tag) pair the output
//!   uses is checked to resolve to the intended type; otherwise the write is refused
//!   ([`WriteErrorKind::Untaggable`](crate::write::WriteErrorKind::Untaggable)).
//! * **Xref ids** (§5.1): only records that are pointed to get one (or those the
//!   caller gave one with [`TypedDocument::set_xref`]): `@` + the first letter or
//!   digit of the record's tag + a number (`@I1@`, `@F1@`, `@S2@` …, numbered in
//!   document order per letter), never one the caller fixed.
//!
//! ```
//! use gedcom_elf::tree::{Schema, Tree};
//! use gedcom_elf::write::typed::{write_typed, TypedDocument, TypedOptions};
//!
//! let mut doc = TypedDocument::new();
//! let ada = doc.add_record("elf:INDIVIDUAL_RECORD");
//! doc.add_text(ada, "elf:PERSONAL_NAME_STRUCTURE", "Ada /Lovelace/")?;
//! doc.add_text(ada, "https://example.com/ext/Nickname", "Ada")?;
//! let fam = doc.add_record("elf:FAM_RECORD");
//! doc.add_pointer(fam, "elf:PARENT2_POINTER", ada)?;
//! let marr = doc.add(fam, "elf:MARRIAGE")?;
//! let age = doc.add(marr, "elf:Parent2Age")?;
//! doc.add_text(age, "elf:AGE_AT_EVENT", "19y")?;
//!
//! let mut out = Vec::new();
//! let plan = write_typed(&doc, &Schema::default_schema(), &TypedOptions::minimal(), &mut out)?;
//! let text = String::from_utf8(out.clone()).unwrap();
//! assert_eq!(plan.invented().collect::<Vec<_>>(), [("_NICKNAME", "https://example.com/ext/Nickname")]);
//! assert!(text.ends_with(
//!     "0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 _NICKNAME Ada\n\
//!      0 FAM\n1 WIFE @I1@\n1 MARR\n2 WIFE\n3 AGE 19y\n0 TRLR\n"));
//! assert!(text.contains("2 IRI https://example.com/ext/Nickname\n3 TAG _NICKNAME elf:INDIVIDUAL_RECORD\n"));
//!
//! // Read back: the same types.
//! let tree = Tree::from_slice(&out)?;
//! let nick = tree.find("@I1@").unwrap().child("_NICKNAME").unwrap();
//! assert_eq!(nick.structure_type().unwrap(), "https://example.com/ext/Nickname");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod document;
mod plan;

use std::io::Write;

use crate::tree::schema::Schema;

use super::config::WriterConfig;
use super::error::WriteError;
use super::value::{HeadOptions, WriteValue};
use super::writer::Writer;

use document::{bad_handle, NONE};
pub use document::{RecordId, StructureId, TypedDocument, TypedValue};
pub use plan::{plan, Plan, SchemaLines};

/// Options of [`write_typed`].
#[derive(Clone, Debug, Default)]
pub struct TypedOptions {
    /// The writer's configuration (encoding, line ending, line limit …). Its escape
    /// table is replaced by the schema's.
    pub config: WriterConfig,
    /// The `GEDC` lines of the `HEAD` (see [`HeadOptions`]).
    pub head: HeadOptions,
    /// How much of the schema a written `SCHMA` carries.
    pub schema_lines: SchemaLines,
}

impl TypedOptions {
    /// The default options with [`SchemaLines::Minimal`].
    #[must_use]
    pub fn minimal() -> Self {
        TypedOptions {
            schema_lines: SchemaLines::Minimal,
            ..TypedOptions::default()
        }
    }
}

/// Writes `doc` under `schema` with `opts`: plans it (see [`plan`](fn@plan)), then writes
/// `HEAD` (with `CHAR`, `GEDC` per `opts.head`, the `SCHMA` when one is needed, and
/// the metadata structures), the records and `TRLR`. Returns the plan (tags, xref
/// ids, new tags). Nothing is written when planning fails.
///
/// # Errors
/// As [`plan`](fn@plan) and [`Writer::begin`] (for instance a fixed xref with a character the
/// output encoding lacks).
pub fn write_typed<W: Write>(
    doc: &TypedDocument,
    schema: &Schema,
    opts: &TypedOptions,
    out: W,
) -> Result<Plan, WriteError> {
    let plan = plan(doc, schema, opts.schema_lines)?;
    let config = opts.config.clone().escapes(schema.escapes().clone());
    let mut w = Writer::with_config(out, config);
    w.begin_head(&HeadOptions {
        schema: plan.schema.clone(),
        ..opts.head.clone()
    })?;
    for &m in &doc.metadata {
        write_subtree(&mut w, doc, &plan, m)?;
    }
    w.end()?;
    for &r in &doc.records {
        write_subtree(&mut w, doc, &plan, r)?;
    }
    w.trailer()?;
    w.finish()?;
    Ok(plan)
}

fn write_node<W: Write>(
    w: &mut Writer<W>,
    doc: &TypedDocument,
    plan: &Plan,
    i: u32,
) -> Result<(), WriteError> {
    let n = &doc.nodes[i as usize];
    let tag = &plan.tags[plan.node_tag[i as usize] as usize];
    let xref = plan.xrefs.get(&i).map(|x| &**x);
    let value = match &n.value {
        None => None,
        Some(TypedValue::Text(t)) => Some(WriteValue::Text(t)),
        Some(TypedValue::Pointer(r)) => {
            let x = plan
                .xrefs
                .get(&r.0)
                .ok_or_else(|| bad_handle("the pointer's target"))?;
            Some(WriteValue::Pointer(x))
        }
    };
    w.begin(tag, xref, value)
}

/// Writes node `root` and its subtree without recursion.
fn write_subtree<W: Write>(
    w: &mut Writer<W>,
    doc: &TypedDocument,
    plan: &Plan,
    root: u32,
) -> Result<(), WriteError> {
    write_node(w, doc, plan, root)?;
    let mut stack = vec![doc.nodes[root as usize].first];
    while let Some(top) = stack.last_mut() {
        let c = *top;
        if c == NONE {
            stack.pop();
            w.end()?;
            continue;
        }
        *top = doc.nodes[c as usize].next;
        write_node(w, doc, plan, c)?;
        stack.push(doc.nodes[c as usize].first);
    }
    Ok(())
}
