//! The writer: structures in, ELF octets out (seed §2.3, §3.5, §4.4-§4.5, §5, §6).
//!
//! [`Writer`] is push style: [`Writer::begin`] a structure (tag, optional xref, optional
//! payload), write its substructures, [`Writer::end`] it. Levels are computed. Each call
//! writes the structure's lines at once:
//!
//! * **`@` signs** (§5): every `@` of a text payload becomes `@@`, except the `@` signs of
//!   an escape its tag preserves ([`WriterConfig::escapes`]; by default `DATE` keeps
//!   `@#D...@ `); pointers are written as they are.
//! * **Characters the output encoding lacks** become unicode escapes `@#U<hex>@ `
//!   (§5.3); for ANSEL, letters are decomposed into base and marks where ANSEL can
//!   express them, and marks are written before their base.
//! * **Line breaks** in text (LF, CRLF, CR) become `CONT` lines; **`CONC` lines** keep every
//!   line within [`WriterConfig::max_line_bytes`] (255 by default, level, tag and
//!   terminator included, counted in output octets), splitting only between characters
//!   (never inside a UTF-8 sequence, a combining sequence, an `@@` pair or an escape) and
//!   next to whitespace only when the line has no other split point (§4.5). Additional
//!   lines come before substructures.
//! * **Serialisation metadata** (§6): the `HEAD` gets a `CHAR` line naming the output
//!   encoding as its first substructure ([`WriterConfig::set_head_char`]); the caller's
//!   `CHAR` gives way to it, its substructures (but `VERS`) moving under the writer's
//!   `CHAR`; [`Writer::begin_head`] writes a `HEAD` with `GEDC`, `CHAR` and the caller's
//!   `SCHMA`; [`Writer::trailer`] writes `TRLR`.
//! * **Nothing left out unreported**: the few things the `CHAR` rule cannot keep (a
//!   second `CHAR`, ...) are counted and listed by [`Writer::dropped_count`] and
//!   [`Writer::dropped`], with their input lines.
//! * **One line terminator** for the whole output ([`LineEnding`]), an optional byte-order
//!   mark, and never a line this crate's reader would call unparsable or too deep: input
//!   that cannot be represented is refused with a [`WriteError`] before anything of it is
//!   written.
//!
//! ```
//! use gedcom_elf::write::{Writer, WriteValue};
//!
//! let mut w = Writer::new(Vec::new());
//! w.begin("HEAD", None, None)?;
//! w.end()?;
//! w.begin("INDI", Some("@I1@"), None)?;
//! w.leaf("NAME", Some(WriteValue::Text("Ada /Lovelace/")))?;
//! w.leaf("EMAIL", Some(WriteValue::Text("ada@example.org")))?;
//! w.leaf("NOTE", Some(WriteValue::Text("First line\nsecond line")))?;
//! w.leaf("FAMS", Some(WriteValue::Pointer("@F1@")))?;
//! w.end()?;
//! w.trailer()?;
//! let out = w.finish()?;
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n\
//!      1 EMAIL ada@@example.org\n1 NOTE First line\n2 CONT second line\n\
//!      1 FAMS @F1@\n0 TRLR\n"
//! );
//! # Ok::<(), gedcom_elf::write::WriteError>(())
//! ```

mod config;
mod error;
mod fast;
mod head;
mod lines;
mod octets;
mod rewrite;
mod text;
pub mod typed;
mod value;
mod writer;

pub use config::{LineEnding, WriterConfig};
pub use error::{DropReason, Dropped, WriteError, WriteErrorKind};
pub(crate) use fast::RawPayload;
pub(crate) use octets::{continues_payload, keeps_previous_level, raw_tag_ok};
pub use rewrite::{rewrite, RewriteStats, Rewriter};
pub use text::{payload_lines, payload_lines_as};
pub use value::{HeadOptions, HeadSchema, IriDefinition, Node, Structure, WriteStep, WriteValue};
pub use writer::{decode_xref, Writer};
