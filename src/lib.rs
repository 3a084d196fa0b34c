//! # gedcom-elf
//!
//! A fast, zero-copy reader and writer for GEDCOM 5.5.1 as clarified by
//! FHISO's *Extended Legacy Format* (ELF) serialisation draft. The same
//! reader reads GEDCOM 7 files by 7.0's payload rules, the [`Version`]
//! decided by the HEAD's `GEDC.VERS` (see [`read`]).
//!
//! The crate is layered. Each module uses only modules of its own layer
//! or of lower ones, and no modules use each other in a cycle (the test
//! `tests/layers.rs` reads this list and checks the code against it):
//!
//! 1. `diag`, `encoding`, `ordered`, `version`: diagnostics and errors
//!    ([`Diagnostic`], [`Error`]), character encodings ([`encoding`]), the
//!    ordered worker pool (numbered work on several threads, results in
//!    order, in bounded memory), and the GEDCOM [`Version`] (5.5.1 or 7, from
//!    `HEAD.GEDC.VERS`: the one rule encoding detection, the reader and
//!    `check` share);
//! 2. `escape`, `scan`, `value`: `@` escapes, the pure, allocation-free line
//!    scanner over `&[u8]` ([`scan`]: line strings, seed §3.4, and the `Line`
//!    production, §4.1, with its byte-scanning helpers), and typed payload
//!    values ([`value`]: `DATE` payloads of 5.5.1/ELF and GEDCOM 7, Julian
//!    day numbers for their calendars, `AGE` payloads, personal names,
//!    places and their coordinates, and enumerated payloads);
//! 3. `payload`, `event`: payloads that stay raw bytes until asked
//!    ([`Payload::text`] joins, decodes and unescapes, §5, allocating only
//!    when it must) and the [`Event`]s that carry them;
//! 4. `read`: the structure reader ([`read`]): begin/end events with previous
//!    levels, `ERROR` structures, `CONT`/`CONC` additional lines and
//!    diagnostics (§4);
//! 5. `input`, `source`, `gedzip`: [`Input`], encoding detection before
//!    reading; the batch source under the streaming readers (bytes in from
//!    a reader, the encoding decided, UTF-16 transcoded, record-aligned
//!    pieces out, cut by the rule that cuts a slice into chunks); GEDZIP
//!    archives (feature `gedzip`: `gedcom.ged` and its media, and the zip
//!    reading the GEDCOM X file format shares);
//! 6. `par`, `stream`: record-aligned chunks of a slice read on several
//!    threads ([`par`]), and any `Read` in bounded memory ([`stream`]),
//!    both giving exactly the events of a whole-buffer read;
//! 7. `tree`: trees on demand (a whole document, or one owned record at a
//!    time), pointer resolution, ELF structure type identifiers from the
//!    document's schema ([`tree`]);
//! 8. `write`: a push-style writer (escaping, `CONT`/`CONC` splitting, every
//!    output encoding; [`write`](mod@write));
//! 9. `edit`, `bridge`, `check`, `table`, `convert`: a byte-exact editor ([`edit`]),
//!    writing trees ([`bridge`]), validating a document record by record
//!    ([`check`]), conversion between GEDCOM 5.5.1 and 7.0 record by record
//!    ([`convert`]), and flat tables of documents for SQL engines ([`table`]:
//!    rows of structures and of individuals, families, edges, events and
//!    citations, chunk by chunk, as CSV or JSON Lines);
//! 10. `gedcomx`: GEDCOM X export and import (feature `gedcomx`): records
//!     mapped to GEDCOM X persons, relationships, sources with FHISO
//!     citation elements and agents, written as JSON or XML record by
//!     record; and a GEDCOM X document read back and written as GEDCOM.
//!
//! [`Input`] detects the character encoding (byte-order mark, UTF-16
//! sniffing, the HEAD's `CHAR` line) and transcodes UTF-16 once;
//! [`Reader::from_slice`] reads UTF-8, ASCII, ANSEL and the code pages in
//! place.
//!
//! ## Reading
//!
//! ```
//! use gedcom_elf::{Event, Reader, Value};
//!
//! let input = "0 HEAD\n1 CHAR UTF-8\n\
//!              0 @I1@ INDI\n1 NAME Élisabeth /Dupont/\n1 FAMS @F1@\n\
//!              1 BIRT\n2 DATE @#DJULIAN@ 3 MAR 1701\n\
//!              1 NOTE Born in\n2 CONC  Paris.\n2 CONT mail: e@@x.org\n\
//!              0 TRLR\n";
//! let mut reader = Reader::from_slice(input.as_bytes());
//! let mut out = Vec::new();
//! while let Some(event) = reader.next_event()? {
//!     match event {
//!         Event::Begin(b) => {
//!             let value = match &b.value {
//!                 Some(Value::Pointer(p)) => format!(" -> {p}"),
//!                 Some(Value::Text(t)) => format!(" {:?}", t.text()),
//!                 None => String::new(),
//!             };
//!             out.push(format!("{} {}{}", b.level, b.tag, value));
//!         }
//!         Event::End(_) => {}
//!     }
//! }
//! assert_eq!(out[3], "1 NAME \"Élisabeth /Dupont/\"");
//! assert_eq!(out[4], "1 FAMS -> @F1@");
//! assert_eq!(out[6], "2 DATE \"@#DJULIAN@ 3 MAR 1701\""); // DATE keeps D escapes
//! assert_eq!(out[7], "1 NOTE \"Born in Paris.\\nmail: e@x.org\"");
//! # Ok::<(), gedcom_elf::Error>(())
//! ```
//!
//! ## Trees
//!
//! ```
//! use gedcom_elf::Tree;
//!
//! let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 PLAC London\n1 FAMS @F1@\n0 TRLR\n";
//! let tree = Tree::from_slice(input)?;
//! let ada = tree.find("@I1@").unwrap();
//! assert_eq!(ada.first("BIRT.PLAC").unwrap().text().unwrap(), "London");
//! assert_eq!(ada.structure_type().unwrap(), "https://terms.fhiso.org/elf/INDIVIDUAL_RECORD");
//! // @F1@ names no record: the pointer resolves to a synthetic UNDEF record.
//! assert_eq!(ada.child("FAMS").unwrap().target().unwrap().tag(), "UNDEF");
//! # Ok::<(), gedcom_elf::Error>(())
//! ```
//!
//! ## Writing
//!
//! ```
//! use gedcom_elf::{Writer, WriteValue};
//!
//! let mut w = Writer::new(Vec::new());
//! w.begin("HEAD", None, None)?;
//! w.end()?;
//! w.begin("INDI", Some("@I1@"), None)?;
//! w.leaf("EMAIL", Some(WriteValue::Text("ada@example.org")))?;
//! w.leaf("NOTE", Some(WriteValue::Text("two\nlines")))?;
//! w.end()?;
//! w.trailer()?;
//! let out = String::from_utf8(w.finish()?).unwrap();
//! assert_eq!(
//!     out,
//!     "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL ada@@example.org\n\
//!      1 NOTE two\n2 CONT lines\n0 TRLR\n"
//! );
//! # Ok::<(), gedcom_elf::WriteError>(())
//! ```
//!
//! ## Recovering from bad input
//!
//! Malformed lines never stop the reader (unless [`ReaderConfig::strict`]):
//! they become `ERROR` structures exactly as the spec prescribes, and each
//! problem is reported as a [`Diagnostic`] with its line number.
//!
//! ```
//! use gedcom_elf::{DiagnosticKind, Event, Reader};
//!
//! let input = b"0 HEAD\n0 @I1@ INDI\n2 PLAC Moscow\n3 ROMN Moskva\n1 NAME Ivan IV\n0 TRLR";
//! let mut reader = Reader::from_slice(input);
//! let begins: Vec<String> = reader
//!     .by_ref()
//!     .filter_map(|e| match e.unwrap() {
//!         Event::Begin(b) => Some(format!("{} {} {}", b.level, b.tag, b.text().unwrap_or_default())),
//!         Event::End(_) => None,
//!     })
//!     .collect();
//! assert_eq!(begins[2], "1 ERROR 2 PLAC Moscow");
//! assert_eq!(begins[3], "2 ROMN Moskva");
//! let d: Vec<_> = reader.drain_diagnostics().collect();
//! assert_eq!((d[0].kind, d[0].position.line), (DiagnosticKind::TooDeep, 3));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bridge;
pub mod check;
pub mod convert;
pub mod diag;
pub mod edit;
pub mod encoding;
pub mod escape;
pub mod event;
#[cfg(feature = "gedcomx")]
pub mod gedcomx;
#[cfg(feature = "gedzip")]
pub mod gedzip;
mod input;
mod ordered;
pub mod par;
pub mod payload;
pub mod read;
pub mod scan;
mod source;
pub mod stream;
pub mod table;
pub mod tree;
pub mod value;
mod version;
pub mod write;

pub use diag::{Diagnostic, DiagnosticKind, Error, ErrorKind, Position, Severity};
pub use encoding::{Encoding, EncodingSource};
pub use escape::{EscapeSet, EscapeTable};
pub use event::{Begin, End, Event, Origin, Span, Value, Xref};
pub use input::{EncodingInfo, Input};
pub use payload::{Decoding, Fragment, Joint, Payload, TrailingWhitespace};
pub use read::{ReadStats, Reader, ReaderConfig};
pub use tree::{
    NodeId, NodeRef, RecordTree, Records, Schema, SchemaSource, StructureType, Tree, TypeResolver,
};
pub use version::Version;
pub use write::{
    rewrite, LineEnding, WriteError, WriteErrorKind, WriteValue, Writer, WriterConfig,
};
