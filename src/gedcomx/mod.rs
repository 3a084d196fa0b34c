//! GEDCOM X export and import (feature `gedcomx`): GEDCOM records mapped
//! to the GEDCOM X conceptual model, written as GEDCOM X JSON or XML
//! (namespace [`GEDCOMX`]), with FHISO's citation elements on source
//! citations (*Citation Elements: Bindings for GEDCOM X*, the
//! `CitationElement` data type and the `elements` property of
//! `SourceCitation`; namespace [`CEV`]); and GEDCOM X read back into GEDCOM
//! ([`import`]).
//!
//! - [`model`]: the owned GEDCOM X types the export needs, and
//!   [`CitationElement`];
//! - [`table`]: the rules the mapping and the index share (ids from
//!   xrefs, [`CITATION_ELEMENTS`](table::CITATION_ELEMENTS), `PEDI` facts);
//! - [`index`](mod@index): what a record borrows from others (its
//!   children's `FAMC.PEDI`, a cited source's elements, a repository's
//!   name), gathered by a first pass over the events ([`Index`]);
//! - [`map`]: one record's tree to its GEDCOM X items ([`Mapper`]), and
//!   what was not converted ([`NotConverted`]); for the export, a person's
//!   names and facts stay borrowed from the tree until written (`view.rs`,
//!   crate-private), which writes the same bytes as the owned model;
//! - [`export`](mod@export): records mapped in groups on any thread
//!   ([`Mapping`]) and the document written in order ([`Export`]; its
//!   sections after persons spooled, so memory stays bounded;
//!   [`Export::stream`] reads a stream's batches into trees and maps them
//!   on its threads); [`to_writer`] does it all for a reader;
//! - [`gedx`]: the GEDCOM X file format (`.gedx`: a zip with a manifest,
//!   `tree.json` and media files), written and read;
//! - [`import`]: a GEDCOM X document (JSON or XML) read into the model
//!   ([`Gedcomx`]) and written as GEDCOM through the export's own tables
//!   read backwards (its table is in its docs).
//!
//! JSON and XML are written by hand, streaming, through one description
//! of each type's properties (`emit.rs`): no serialisation framework and
//! no dependency. The import reads them with `serde_json` and `quick-xml`.
//!
//! ```
//! use gedcom_elf::gedcomx::{to_writer, Format, Options};
//!
//! let input: &[u8] = b"0 HEAD\n0 @I1@ INDI\n1 NAME Jean /Dupont/\n1 BIRT\n2 DATE ABT 1815\n\
//!     2 PLAC Paris\n0 @S1@ SOUR\n1 AUTH Settipani, Christian\n1 TITL Les anc\xc3\xaatres de Charlemagne\n0 TRLR\n";
//! let mut out = Vec::new();
//! let not_converted = to_writer(input, &mut out, Options::default())?;
//! let json = String::from_utf8(out).unwrap();
//! assert!(json.contains(r#""date":{"original":"ABT 1815","formal":"A+1815"}"#));
//! assert!(json.contains(r#"{"name":"http://terms.fhiso.org/sources/authorName","value":"Settipani, Christian"}"#));
//! assert!(not_converted.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The mapping
//!
//! One record at a time; ids are the records' xref_ids without `@` (other
//! than ASCII letters, digits, `_` and `-`, each byte written `~XX`), and
//! ids made from them join them with `.`, which no record's id holds.
//!
//! | GEDCOM | GEDCOM X |
//! |---|---|
//! | `HEAD.SUBM` | the document's `attribution.contributor` |
//! | `HEAD.LANG` | the document's `lang`: the language tag of ELF's table of 5.5.1 language names (`English` `en`), or the value when it is a tag already |
//! | `INDI` | `Person` (id from the xref_id) |
//! | `INDI.NAME` | `Name` with a `NameForm`: `fullText` (the name without slashes), parts from `NPFX` (Prefix), `GIVN` (Given), `SPFX` (Surname qualified Particle), `SURN` (Surname), `NSFX` (Suffix), or, with none of those, from the name's given part, surname and suffix |
//! | `NAME.TYPE` | name type: `birth` and `maiden` BirthName, `married` MarriedName, `aka` AlsoKnownAs (others not converted) |
//! | `NAME.NICK` | a further `Name` of type Nickname |
//! | `NAME.FONE`, `NAME.ROMN` | further name forms of the name |
//! | `INDI.SEX` | `Gender`: Male, Female, Unknown, Intersex (`X`) |
//! | `INDI.RESN` `privacy`, `confidential` | `private` |
//! | individual events and attributes | `Fact`s of the [`PERSON_FACTS`](map) types (`BIRT` Birth ... `SSN` NationalId) |
//! | `EVEN`, `FACT` | `Fact` of type `data:,TYPE` (the `TYPE`'s text percent-encoded; the tag when there is no `TYPE`) |
//! | event payload | the fact's `value` (not `Y`) |
//! | `DATE` | `date`: `original` verbatim, `formal` when the date layer understands it ([`Date::gedcomx`](crate::value::Date::gedcomx), proleptic Gregorian) |
//! | `PLAC` | `place.original` |
//! | `PLAC.MAP` (`LATI` and `LONG`) | a `PlaceDescription` in `places` (the name, `latitude`, `longitude`; one per name and coordinates, however many records name it, its id made from them: `~P` and 16 hex digits, [`place_id`](map::place_id)) as the place's `description` |
//! | `AGE`, `CAUS`, `RELI` under an event | qualifiers Age, Cause, Religion |
//! | `FAM` with two partners | a `Couple` relationship (the family's id): `HUSB`/`WIFE` as person1/person2, family events as facts (`MARR` Marriage, `DIV` Divorce ...) |
//! | `FAM.CHIL` | a `ParentChild` relationship per partner and child, id `FAMILY.PARENT.CHILD` |
//! | `INDI.FAMC.PEDI` | facts of those relationships: `birth` BiologicalParent, `adopted` AdoptiveParent, `foster` FosterParent (through the [`Index`], whatever the records' order; a `PEDI` whose family does not list the child is counted) |
//! | a family with fewer than two partners | its children's `ParentChild` relationships; its own facts and links are not converted |
//! | `SOUR` record | `SourceDescription`; `citations[0]`: a formatted `value` (author, title, publication facts, call numbers) and citation `elements` per [`CITATION_ELEMENTS`](map::CITATION_ELEMENTS) |
//! | `SOUR.TITL` | also `titles` |
//! | `SOUR.REPO` | `repository` (`#id`); its `CALN` a citation element, and the repository's `NAME` too (`NAME_OF_REPOSITORY`, through the [`Index`]; not in the formatted value) |
//! | `SOUR.DATA.EVEN` | `coverage` (its `DATE` temporal, `PLAC` spatial), and the events recorded as a `description` |
//! | `SOUR.TEXT`, citation `DATA.TEXT` | a `Document` of type Transcription (id `OWNER.tN`) with a source reference to the description |
//! | a citation with `PAGE`, `DATA` or `NOTE` | its own `SourceDescription` (id `OWNER.sN`: the record's id and the citation's number in the record), `componentOf` the record's, whose citation holds the source record's elements (through the [`Index`]) and then its own (`PAGE`, `DATA.DATE`); a `SourceReference` to it |
//! | a citation that is a bare pointer | a `SourceReference` to the record's description |
//! | citation `QUAY`, `EVEN`, `EVEN.ROLE` | qualifiers of the reference, named by their ELF structure type IRIs |
//! | a text citation (`SOUR text`) | its own description (id `OWNER.sN`) whose citation `value` is the text |
//! | `REPO`, `SUBM` | `Agent`: `NAME` names, `ADDR` addresses (`ADR1`-`3`, `CITY`, `STAE`, `POST`, `CTRY`), `PHON` `tel:` and `FAX` `fax:` phones, `EMAIL` `mailto:` emails, `WWW` homepage |
//! | `NOTE` under a record or structure | `notes`: its text, or a `NOTE` record's when it points to one (through the [`Index`], which keeps notes' texts up to [`Index::NOTE_BUDGET`]; a pointer to a note past it, or to none, is counted) |
//! | `NOTE` record | a `Document` (the record's id) holding its text |
//! | `OBJE` record, inline `OBJE` | `SourceDescription` (inline: id `OWNER.mN`): first `FILE` as `about`, `FORM` as `mediaType` (by [`gedx::MEDIA_TYPES`], the one table of file extensions), `TITL` as title and citation |
//! | `OBJE` under a person or family | `media` reference |
//! | `REFN`, `RIN`, `AFN`, `RFN`, `_UID` | `identifiers`, typed by the structure's ELF type IRI (untyped, `$`, when it has none) |
//! | `CHAN` | `attribution.modified` (its `DATE` and `TIME` as UTC), its `NOTE` the `changeMessage` |
//!
//! Everything else is counted in the [`NotConverted`] report with its
//! path of tags, a reason and its first lines: the `HEAD`'s description of
//! the file, pointers to `NOTE` records the index does not hold, LDS ordinances, `ASSO`, `ALIA`,
//! `ADDR` under events, extension tags, values not understood,
//! a second `DATE` or `SEX`.
//!
//! With [`Options::keep_extensions`] (`--keep-extensions`), extension
//! structures under persons, relationships, source descriptions and
//! documents are kept as their notes.
//!
//! A `HEAD` that is not the first record is counted whole (the document
//! had begun).
//!
//! The document depends only on the input: the same at every number of
//! threads and batch size ([`Export::stream`]),
//! since what records borrow from one another comes from the [`Index`] and
//! every derived id is made from its record or its content.

/// The GEDCOM X type URI `name` (a string literal) as a `&'static str`
/// made at compile time: [`GX`] and the name (a test holds the two equal).
macro_rules! gx {
    ($name:literal) => {
        concat!("http://gedcomx.org/", $name)
    };
}

/// A FHISO citation element name (a string literal) in [`CEV`], made at
/// compile time.
macro_rules! cev {
    ($name:literal) => {
        concat!("http://terms.fhiso.org/sources/", $name)
    };
}

/// An ELF structure type IRI (a string literal) in [`ELF`], made at
/// compile time.
macro_rules! elf {
    ($name:literal) => {
        concat!("https://terms.fhiso.org/elf/", $name)
    };
}

pub mod emit;
pub mod export;
pub mod gedx;
pub mod import;
pub mod index;
pub mod map;
pub mod model;
mod splice;
pub mod table;
mod view;

pub use export::{Export, Mapped, Mapping, Spool};
pub use index::Index;
pub use map::{Item, Mapper, NotConverted, Skipped};
pub use model::{
    Address, Agent, Attribution, CitationElement, Coverage, Date, Document, Fact, Gedcomx, Gender,
    Identifier, Iri, Name, NameForm, NamePart, Note, Person, PlaceDescription, PlaceReference,
    Qualifier, Relationship, SourceCitation, SourceDescription, SourceReference, TextValue,
    Timestamp,
};

use std::io::{Read, Write};

use emit::{Json, Node, Xml};

/// The GEDCOM X XML namespace, and the base of its type URIs.
pub const GEDCOMX: &str = "http://gedcomx.org/v1/";

/// The base of GEDCOM X's type URIs (`http://gedcomx.org/Birth`).
pub const GX: &str = "http://gedcomx.org/";

/// The FHISO citation-element namespace of seed 004 (later drafts write
/// it with `https://`): the `cev:` XML prefix and the base of the element
/// names FHISO defines (`authorName`, `title`, `shortTitle`).
pub const CEV: &str = "http://terms.fhiso.org/sources/";

/// The base of the ELF structure type IRIs, which name the citation
/// elements FHISO's vocabulary has none for.
pub const ELF: &str = "https://terms.fhiso.org/elf/";

/// The output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// GEDCOM X JSON (`application/x-gedcomx-v1+json`).
    #[default]
    Json,
    /// GEDCOM X XML (`application/x-gedcomx-v1+xml`).
    Xml,
}

/// How a document is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// JSON or XML.
    pub format: Format,
    /// Indented, a line per property (else compact).
    pub pretty: bool,
    /// Keep extension structures as notes (see
    /// [`Mapper::keep_extensions`]) rather than count them as not
    /// converted.
    pub keep_extensions: bool,
}

/// `value` as compact or pretty JSON.
pub(crate) fn to_json<N: Node>(value: &N, pretty: bool) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = Json::new(&mut out, pretty, 0).object(value);
    String::from_utf8(out).unwrap_or_default()
}

/// `value` as the XML element `name`.
pub(crate) fn to_xml<N: Node>(name: &str, value: &N, pretty: bool) -> String {
    let mut out = Vec::new();
    let _ = Xml::new(&mut out, pretty, 0).element(name, value);
    // The writer starts each element on a new line when pretty.
    String::from_utf8(out)
        .unwrap_or_default()
        .trim_start()
        .to_string()
}

/// An error of [`to_writer`]: reading the GEDCOM input, or writing.
#[derive(Debug)]
pub enum ExportError {
    /// Reading failed (see [`crate::Error`]).
    Read(crate::Error),
    /// Writing failed.
    Write(std::io::Error),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Read(e) => write!(f, "{e}"),
            ExportError::Write(e) => write!(f, "cannot write: {e}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// Reads GEDCOM from `input` and writes it to `out` as one GEDCOM X
/// document; gives what was not converted. The input is read into memory,
/// its [`Index`] gathered, then its records read one at a time
/// ([`crate::tree::Records`]) and mapped; the sections after persons wait
/// in memory too. For bounded memory, gather the index from a file and
/// use [`Export`] with file spools (as the command-line tool does).
///
/// # Errors
/// The first reading error, or a write error; `out` then holds an
/// unfinished document.
pub fn to_writer<R: Read, W: Write>(
    mut input: R,
    out: W,
    options: Options,
) -> Result<NotConverted, ExportError> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| ExportError::Read(e.into()))?;
    let index = Index::from_read(&bytes[..], crate::ReaderConfig::default(), 1)
        .map_err(ExportError::Read)?;
    let mut export = Export::new(out, options, std::sync::Arc::new(index), Vec::new)
        .map_err(ExportError::Write)?;
    for record in crate::tree::Records::new(&bytes[..]) {
        let record = record.map_err(ExportError::Read)?;
        export.record(record.root()).map_err(ExportError::Write)?;
    }
    export.finish().map_err(ExportError::Write)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_iri_macros_make_the_namespaces_constants() {
        assert_eq!(gx!(""), super::GX);
        assert_eq!(cev!(""), super::CEV);
        assert_eq!(elf!(""), super::ELF);
        assert_eq!(gx!("Birth"), format!("{}Birth", super::GX));
    }
}
