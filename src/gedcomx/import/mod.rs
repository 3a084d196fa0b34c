//! GEDCOM X import: a GEDCOM X document (JSON or XML, with FHISO citation
//! elements in both of seed 004's XML forms) read into the owned
//! [`model`](super::model) types ([`Gedcomx`]), then written as GEDCOM
//! 5.5.1 / ELF through [`crate::write::Writer`], with a `HEAD.SCHMA` IRI
//! definition for every extension tag written.
//!
//! - `read.rs`: one description of how each model type is read, walked
//!   over either format through a small trait (the reverse of the
//!   export's `emit.rs`); every member or XML node it does not read is
//!   reported, never dropped silently;
//! - `json.rs`, `xml.rs`: the two formats behind that trait (serde_json:
//!   a first pass of borrowed `RawValue`s, then one item's `Value` at a
//!   time; an element tree read with quick-xml, namespaces resolved by
//!   hand);
//! - `to_gedcom.rs`: the document as GEDCOM records.
//!
//! ```
//! use gedcom_elf::gedcomx::import::{import, IssueKind};
//!
//! let json = br#"{"persons":[{"id":"I1","gender":{"type":"http://gedcomx.org/Female"},
//!   "names":[{"nameForms":[{"fullText":"Ada Lovelace","parts":[
//!     {"type":"http://gedcomx.org/Given","value":"Ada"},
//!     {"type":"http://gedcomx.org/Surname","value":"Lovelace"}]}]}],
//!   "facts":[{"type":"http://gedcomx.org/Birth","date":{"original":"10 DEC 1815"}}]}],
//!   "sourceDescriptions":[{"id":"S1","citations":[{"value":"Moore, Ada",
//!     "elements":[{"name":"http://terms.fhiso.org/sources/authorName","value":"Moore, Doris"}]}]}]}"#;
//! let (ged, issues) = import(json, Vec::new())?;
//! let ged = String::from_utf8(ged).unwrap();
//! assert!(ged.contains("0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 SEX F\n1 BIRT\n2 DATE 10 DEC 1815\n"));
//! assert!(ged.contains("0 @S1@ SOUR\n1 AUTH Moore, Doris\n"));
//! assert!(issues.iter().all(|i| i.kind != IssueKind::Dangling));
//! # Ok::<(), gedcom_elf::gedcomx::import::ImportError>(())
//! ```
//!
//! # The reverse mapping
//!
//! The export's table read backwards, through the same tables
//! ([`PERSON_FACTS`](super::map), [`COUPLE_FACTS`](super::map),
//! [`CITATION_ELEMENTS`](super::table::CITATION_ELEMENTS)); ids become
//! xref_ids (`~XX` escapes decoded; an id no xref_id can be gets a fresh
//! `@Xn@`).
//!
//! | GEDCOM X | GEDCOM |
//! |---|---|
//! | `attribution.contributor` of the document | `HEAD.SUBM` |
//! | `lang` of the document | `HEAD.LANG` (ELF's language name for the tag, when it has one) |
//! | `Person` | `INDI` (xref_id from the id) |
//! | `private` | `RESN privacy` |
//! | `Gender` | `SEX` (`Male` M, `Female` F, `Intersex` X, `Unknown` U) |
//! | `Name` | `NAME`: the payload is `fullText` with the surname parts between slashes (built from the parts when there is no `fullText`); `NPFX`, `GIVN`, `SPFX` (a Surname part qualified Particle), `SURN`, `NSFX` when the parts are not what the payload says |
//! | name type | `NAME.TYPE`: BirthName `birth`, MarriedName `married`, AlsoKnownAs `aka` |
//! | a `Name` of type Nickname | `NICK` of the name before it (of a `NAME` of its own when it comes first) |
//! | further name forms | `ROMN` (the form's `lang` as its `TYPE`) |
//! | `Fact` of a person | the [`PERSON_FACTS`](super::map) tag of its type (`Birth` `BIRT`...); `data:,TEXT` `EVEN` (no value) or `FACT` (a value) with `TYPE TEXT`; any other type the same with the type URI as `TYPE` |
//! | `value` | the payload (`Y` for an event with nothing else) |
//! | `date` | `DATE`: `original` verbatim, else the `formal` date as GEDCOM ([`GedcomxDate::to_date`](crate::value::GedcomxDate::to_date)) |
//! | `place` | `PLAC` (`original`, else the described place's first name), `MAP` `LATI`/`LONG` from the place description's coordinates |
//! | qualifiers Age, Cause, Religion | `AGE`, `CAUS`, `RELI` |
//! | `Couple` (or an untyped relationship) | `FAM`: `person1` `HUSB`, `person2` `WIFE` (each with a `FAMS`), facts by [`COUPLE_FACTS`](super::map) |
//! | `ParentChild` | `CHIL` of the family of that parent pair (an id `F.P.C` goes to family `F`; otherwise the couple of the child's two parents, or a family made for them), and the child's `FAMC` |
//! | facts BiologicalParent, AdoptiveParent, FosterParent | the child's `FAMC.PEDI` `birth`, `adopted`, `foster` (the export's `pedigree_fact` backwards) |
//! | `SourceDescription` with citation elements, or none of the below | `SOUR`: elements by [`CITATION_ELEMENTS`](super::table::CITATION_ELEMENTS) (`authorName` `AUTH`, `title` `TITL`, `shortTitle` `ABBR`, `…/SOURCE_PUBLICATION_FACTS` `PUBL`, `…/SOURCE_CALL_NUMBER` `REPO.CALN`; `…/NAME_OF_REPOSITORY` is the repository record's `NAME`, and reported when it says otherwise), when no element gives the title, the first of `titles`, or else the citation's `value` when it has no elements, as `TITL` |
//! | `repository` | `SOUR.REPO` |
//! | `coverage` | `SOUR.DATA.EVEN` (`temporal` `DATE`, `spatial` `PLAC`; the `Events recorded:` description its payload) |
//! | a `Document` of type Transcription with a source | `TEXT` of that source (of the citation's `DATA`, for a citation's description) |
//! | a description `componentOf` another | not a record: each reference to it is a citation `SOUR @RECORD@` with its elements (`PAGE`, `DATA.DATE`; the record's own, which the export repeats there, left to the record) and notes |
//! | a description with a `mediaType`, or referenced as `media` | `OBJE` (`FILE` `about`, `FORM` from the media type, `TITL` the title); inline under the referring record when its id is the export's for one (`I1.m1`) |
//! | a description whose id is the export's for a text citation (`I1.s2`: the referring record's id, `s`, a number) that only holds a citation `value` | each reference to it is a text citation `SOUR text` |
//! | `SourceReference` | a citation `SOUR @S@`; qualifiers named by the ELF IRIs of `QUAY`, `EVEN`, `ROLE` as those structures |
//! | `media` | `OBJE @O@` |
//! | `Agent` referenced as a `repository` | `REPO`; any other agent `SUBM` (`NAME`, `ADDR` with `ADR1`-`3`, `CITY`, `STAE`, `POST`, `CTRY`; `tel:` `PHON`, `fax:` `FAX`, `mailto:` `EMAIL`, `homepage` `WWW`) |
//! | `notes` | `NOTE` (a subject is reported) |
//! | `Document` (not a transcription) | `NOTE` record |
//! | `identifiers` | `REFN`, `RIN`, `AFN`, `RFN` by their ELF structure type IRIs; untyped `_UID` (declared in `HEAD.SCHMA`); other types `REFN` with the type as `TYPE` |
//! | `attribution.modified` | `CHAN.DATE` (and `TIME`), UTC; `changeMessage` `CHAN.NOTE` |
//!
//! Everything else is an [`Issue`] of kind [`IssueKind::NotImported`],
//! with its JSON path or XML line (or, found while writing GEDCOM, the
//! item's JSON path whichever syntax was read: [`Location::Item`]): members the model does not read (ids
//! of names and facts, `evidence`, `analysis`...), properties GEDCOM has
//! no place for, values not understood. A reference to an id the document
//! does not hold is an [`IssueKind::Dangling`] issue, and is left out.
//! Malformed input is an [`ImportError`] naming where.

mod json;
mod read;
mod to_gedcom;
mod xml;

use std::fmt;
use std::io::Write;

pub use super::model::Gedcomx;

/// A syntax of GEDCOM X.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// GEDCOM X JSON.
    Json,
    /// GEDCOM X XML.
    Xml,
    /// The GEDCOM X file format (`.gedx`): a zip holding a manifest and the
    /// document, JSON or XML ([`gedx`](super::gedx)).
    Gedx,
}

impl Syntax {
    /// The syntax the input's first bytes suggest: a zip's `PK\3\4` the
    /// file format; else the first byte that is not white space (or a
    /// byte-order mark): `{` JSON, `<` XML.
    pub fn sniff(input: &[u8]) -> Option<Syntax> {
        if input.starts_with(b"PK\x03\x04") {
            return Some(Syntax::Gedx);
        }
        let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        match input.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => Some(Syntax::Json),
            Some(b'<') => Some(Syntax::Xml),
            _ => None,
        }
    }
}

/// Where in the input: a JSON path (`persons[3].facts[0].date`), or an
/// XML line and the path of elements to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The whole input.
    Document,
    /// A JSON path from the document's object.
    Json(String),
    /// An item of the document read, by its JSON path whatever the syntax
    /// (`persons[3].facts[0]`): where the GEDCOM writing found it.
    Item(String),
    /// An XML line (from 1) and the element path (`gedcomx/person[2]/fact[1]`).
    Xml {
        /// The line.
        line: u64,
        /// The elements from the root.
        path: String,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Document => f.write_str("document"),
            Location::Json(p) if p.is_empty() => f.write_str("(the document)"),
            Location::Json(p) | Location::Item(p) => f.write_str(p),
            Location::Xml { line, path } => write!(f, "line {line} ({path})"),
        }
    }
}

/// What kind of problem an [`ImportError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportErrorKind {
    /// Neither JSON nor XML, or not a GEDCOM X document.
    NotGedcomx,
    /// Malformed JSON or XML (a truncated document...).
    Syntax,
    /// A value of the wrong type (a string where an object belongs...).
    Type,
    /// A required property is missing.
    Missing,
    /// A value that breaks its property's grammar (a malformed formal date).
    Value,
    /// Nested deeper than the reader follows.
    TooDeep,
    /// The GEDCOM writer refused what it was given, or writing failed.
    Write,
    /// A `.gedx` zip that cannot be read: truncated, damaged, of a feature
    /// the reader lacks, or its document past the size limit.
    Archive,
}

/// Why a document could not be imported, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    kind: ImportErrorKind,
    at: Location,
    message: String,
}

impl ImportError {
    pub(crate) fn new(kind: ImportErrorKind, at: Location, message: impl Into<String>) -> Self {
        ImportError {
            kind,
            at,
            message: message.into(),
        }
    }

    /// The kind of problem.
    pub fn kind(&self) -> ImportErrorKind {
        self.kind
    }

    /// Where: the JSON path or XML line.
    pub fn at(&self) -> &Location {
        &self.at
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Location::Document => f.write_str(&self.message),
            at => write!(f, "{at}: {}", self.message),
        }
    }
}

impl std::error::Error for ImportError {}

impl From<crate::write::WriteError> for ImportError {
    fn from(e: crate::write::WriteError) -> Self {
        ImportError::new(ImportErrorKind::Write, Location::Document, e.to_string())
    }
}

/// What kind of [`Issue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssueKind {
    /// Something of the input that the GEDCOM output does not carry.
    NotImported,
    /// A reference (`#id`) to nothing in the document: left out.
    Dangling,
}

/// Something the import could not carry over, and where it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The kind.
    pub kind: IssueKind,
    /// Where in the input.
    pub at: Location,
    /// What.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Reads a GEDCOM X document, JSON or XML as [`Syntax::sniff`] says;
/// gives it and what it held that the model does not.
///
/// # Errors
/// Not JSON or XML, not GEDCOM X, malformed or of the wrong shape.
pub fn read(input: &[u8]) -> Result<(Gedcomx, Vec<Issue>), ImportError> {
    read_as(input, None)
}

/// As [`read()`], in `syntax` when the caller knows it (a file's
/// extension), else as [`Syntax::sniff`] says.
///
/// # Errors
/// As [`read()`].
pub fn read_as(input: &[u8], syntax: Option<Syntax>) -> Result<(Gedcomx, Vec<Issue>), ImportError> {
    match syntax.or_else(|| Syntax::sniff(input)) {
        Some(Syntax::Json) => read_json(input),
        Some(Syntax::Xml) => read_xml(input),
        Some(Syntax::Gedx) => read_gedx(input),
        None => Err(ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Document,
            "not a GEDCOM X document: neither JSON (`{`), XML (`<`) nor a zip",
        )),
    }
}

/// Reads a GEDCOM X JSON document.
///
/// # Errors
/// As [`read()`].
pub fn read_json(input: &[u8]) -> Result<(Gedcomx, Vec<Issue>), ImportError> {
    let mut issues = Vec::new();
    let doc = json::document(input, &mut issues)?;
    Ok((doc, issues))
}

/// Reads a GEDCOM X XML document (namespace [`GEDCOMX`](super::GEDCOMX),
/// citation elements in [`CEV`](super::CEV)).
///
/// # Errors
/// As [`read()`].
pub fn read_xml(input: &[u8]) -> Result<(Gedcomx, Vec<Issue>), ImportError> {
    let root = xml::parse(input)?;
    let mut issues = Vec::new();
    let doc = xml::document(&root, &mut issues)?;
    Ok((doc, issues))
}

/// Reads a GEDCOM X file (`.gedx`): the main document of the zip
/// ([`gedx::read_gedx`](super::gedx::read_gedx): the manifest's
/// `tree.json`, or its first GEDCOM X resource), JSON or XML. The media
/// files it holds are not read.
///
/// # Errors
/// As [`read()`]; [`ImportErrorKind::Archive`] for a zip that cannot be
/// read, [`ImportErrorKind::NotGedcomx`] for one that is not a GEDCOM X
/// file.
pub fn read_gedx(input: &[u8]) -> Result<(Gedcomx, Vec<Issue>), ImportError> {
    use super::gedx::GedxErrorKind as K;
    let gedx = super::gedx::read_gedx(std::io::Cursor::new(input)).map_err(|e| {
        let kind = match e.kind() {
            K::NotZip | K::NoManifest | K::NotConformant | K::NoDocument => {
                ImportErrorKind::NotGedcomx
            }
            _ => ImportErrorKind::Archive,
        };
        ImportError::new(kind, Location::Document, e.to_string())
    })?;
    let read = match gedx.format {
        super::Format::Json => read_json(&gedx.bytes),
        super::Format::Xml => read_xml(&gedx.bytes),
    };
    // An error in the document names the entry too.
    read.map_err(|e| {
        let message = format!("{} (in {})", e.message, gedx.name);
        ImportError { message, ..e }
    })
}

/// Writes `doc` as GEDCOM 5.5.1 / ELF (UTF-8) to `out`; adds what it
/// could not carry to `issues`, and gives `out` back.
///
/// # Errors
/// The writer's: writing failed, or it refused a structure.
pub fn to_gedcom<W: Write>(
    doc: &Gedcomx,
    out: W,
    issues: &mut Vec<Issue>,
) -> Result<W, ImportError> {
    to_gedcom::write(doc, out, issues)
}

/// [`read()`] then [`to_gedcom()`]: GEDCOM X in, GEDCOM out, and the issues.
///
/// # Errors
/// As [`read()`] and [`to_gedcom()`].
pub fn import<W: Write>(input: &[u8], out: W) -> Result<(W, Vec<Issue>), ImportError> {
    let (doc, mut issues) = read(input)?;
    let out = to_gedcom(&doc, out, &mut issues)?;
    Ok((out, issues))
}
