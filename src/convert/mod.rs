//! Conversion between GEDCOM 5.5.1 and GEDCOM 7.0 (issue #21): [`convert`].
//!
//! The input is read record by record, in chunks of whole records on
//! [`ConvertConfig::jobs`] threads (a chunk's records in memory at a time
//! per thread, whatever the input's size), each record's structures
//! rewritten by the rules of `rules.rs` and written in the target version
//! ([`WriterConfig::version`]), the chunks' output joined in document order:
//! the same output at any number of threads. Converting to 7.0 reads the
//! input twice: a first pass gathers the record ids (to make them valid 7.0
//! ids, renamed consistently with their pointers) and the extension tags the
//! rules make (to declare them in `HEAD.SCHMA`, written first).
//!
//! | 5.5.1 | 7.0 |
//! |---|---|
//! | `HEAD.CHAR`, `HEAD.GEDC.FORM` | left out (7.0 is UTF-8; `GEDC.VERS 7.0`) |
//! | `0 head` (the header's tag in another case) | `0 HEAD` (and back) |
//! | `DATE` 5.5.1 syntax (`@#DJULIAN@`, `B.C.`, dual years, `INT d (p)`, `(p)`) | 7.0 syntax (`JULIAN`, `BCE`), the dual year's 5.5.1 form or the phrase in a `PHRASE`; an unparsable date becomes an empty `DATE` with the text as `PHRASE` |
//! | `AGE` (`CHILD`, `INFANT`, `>21y`) | `< 8y` + `PHRASE Child`, `< 1y` + `PHRASE Infant`, `> 21y`; an unparsable age an empty `AGE` with a `PHRASE` |
//! | `AGE STILLBORN` under an individual's event or attribute | the migration guide's: the line left out, `NOTE Stillborn` added where it stood; the individual's first `DEAT` given `AGE 0y` unless it has an age, its first `BIRT` `TYPE Stillborn` unless it has a type (each made when there is none) |
//! | `AGE STILLBORN` anywhere else (a family event's `HUSB`/`WIFE`: the individual is another record, which a record's rules do not change), or with substructures | `AGE 0y` + `PHRASE Stillborn` |
//! | `SEX`, `PEDI`, `QUAY`, `ADOP`, `RESN`, `NAME.TYPE`, `MEDI`, `SOUR.EVEN.ROLE` | 7.0 spellings; a value 7.0 lacks `OTHER` + `PHRASE` where the enumeration has `OTHER`, else a `_` extension |
//! | `ASSO.RELA x` | `ROLE` (`ROLE OTHER` + `PHRASE x` unless `x` is a role); `ROLE OTHER` added when there was no `RELA` |
//! | `FILE.FORM jpg`, `FORM.TYPE photo` | `FORM image/jpeg`, `FORM.MEDI PHOTO` |
//! | an embedded `OBJE` (no pointer; `FILE`, `TITL`, 5.5's `FORM`) | `OBJE @O<line>@` (its input line; `_2`, ... when the input has that id) and a record `0 @O<line>@ OBJE` with what it held, `TITL` and 5.5's `FORM` under its first `FILE`, converted as a record's substructures; the records made written after the input's, before `TRLR`, in input order |
//! | `LANG English` | `LANG en` (BCP 47) |
//! | `SOUR text` (a citation with no pointer), its `TEXT` | `SOUR @VOID@` with `NOTE text` first, `DATA.TEXT` |
//! | `NOTE @N1@`, `0 @N1@ NOTE` | `SNOTE @N1@`, `0 @N1@ SNOTE` |
//! | `CONC` lines, `@@` everywhere | joined; only a leading `@` doubled, no line limit |
//! | xref ids (`@i-1@`) | upper case, `[A-Z0-9_]` only, unique; pointers renamed alike; a pointer to no record `@VOID@` (reported) |
//! | `ROMN`, `FONE` with the guide's `TYPE`s | `TRAN` with a `LANG` |
//! | `AFN`, `RIN`, `RFN` | `EXID` with the migration guide's `TYPE` URIs |
//! | `INDI.WAC` (5.3's LDS initiatory, still written by some programs) | `INIL` |
//! | a structure 7.0 does not have where it stands (`HEAD.FILE`, `SUBN`, an embedded `OBJE` where 7.0 has no `OBJE`, text `ALIA`, ...) | `_TAG`, declared `HEAD.SCHMA.TAG _TAG https://gedcom.io/terms/v5.5.1/TAG` |
//!
//! Back to 5.5.1 everything in the table is reversed where 5.5.1 can say it
//! (an `OBJE` record and its pointer, both 5.5.1, are not embedded again;
//! an individual's stillbirth stays `DEAT.AGE 0y`, `BIRT.TYPE Stillborn` and
//! `NOTE Stillborn`, `AGE 0y` + `PHRASE Stillborn` is `AGE STILLBORN`;
//! a `PHRASE` holding a dual date's 5.5.1 form gives it back; an extension
//! declared with [`TERMS_551`] gets its tag back, where 5.5.1 can write
//! it), `CONC` lines keep lines
//! within 255 octets, and every structure 5.5.1 cannot carry is kept as a
//! `_` extension or, for a pointer to `@VOID@` (but a source citation with a
//! note, which becomes a text citation), left out, and either way reported
//! with its line in [`ConvertReport::not_carried`]. Nothing is dropped
//! silently. A document already in the target version is written again with
//! the version's rules and no conversion.
//!
//! ```
//! use gedcom_elf::convert::{convert, ConvertConfig};
//! use gedcom_elf::Version;
//!
//! let input = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
//!     0 @i1@ INDI\n1 SEX m\n1 BIRT\n2 DATE ABT @#DJULIAN@ 1 MAR 1700/01\n\
//!     1 NOTE mail me@home\n0 TRLR\n";
//! let mut out = Vec::new();
//! let report = convert(input, &ConvertConfig::new(Version::Gedcom7), &mut out)?;
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 SEX M\n1 BIRT\n\
//!      2 DATE ABT JULIAN 1 MAR 1701\n3 PHRASE ABT @#DJULIAN@ 1 MAR 1700/01\n\
//!      1 NOTE mail me@home\n0 TRLR\n"
//! );
//! assert_eq!(report.not_carried.total(), 0);
//!
//! // And back: the phrase gives the dual date back.
//! let seven = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 SEX X\n1 BIRT\n\
//!     2 DATE ABT JULIAN 1 MAR 1701\n3 PHRASE ABT @#DJULIAN@ 1 MAR 1700/01\n0 TRLR\n";
//! let mut back = Vec::new();
//! let report = convert(seven, &ConvertConfig::new(Version::Gedcom551), &mut back)?;
//! let text = String::from_utf8(back).unwrap();
//! assert!(text.contains("2 DATE ABT @#DJULIAN@ 1 MAR 1700/01\n"));
//! assert!(text.contains("1 _SEX X\n")); // 5.5.1 has no SEX X: kept, reported
//! let first = report.not_carried.entries().next().unwrap();
//! assert_eq!((first.path, first.lines), ("INDI.SEX", &[5][..]));
//! # Ok::<(), gedcom_elf::write::WriteError>(())
//! ```

#[cfg(feature = "gedzip")]
mod media;
mod rules;
mod tables;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;

use crate::encoding::Encoding;
use crate::event::{Event, Value};
use crate::version::Version;
use crate::write::{decode_xref, LineEnding, WriteError, WriteErrorKind, Writer, WriterConfig};

pub use crate::diag::{NotCarried, NotCarriedEntry};
pub use tables::TERMS_551;

/// Records nested deeper than this are refused
/// ([`WriteErrorKind::TooDeep`]): the rules walk a record recursively.
pub const MAX_DEPTH: usize = 1000;

/// What [`convert`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertConfig {
    to: Version,
    line_ending: LineEnding,
    encoding: Encoding,
    input_encoding: Option<Encoding>,
    jobs: usize,
    batch_bytes: Option<usize>,
}

impl ConvertConfig {
    /// Converts to `to`, with LF line endings, in UTF-8.
    #[must_use]
    pub fn new(to: Version) -> Self {
        ConvertConfig {
            to,
            line_ending: LineEnding::Lf,
            encoding: Encoding::Utf8,
            input_encoding: None,
            jobs: 1,
            batch_bytes: None,
        }
    }

    /// Converts on `jobs` threads (default 1: on the calling thread): the
    /// input cut into chunks of whole records, each chunk's records read,
    /// converted and written on one of the crate's ordered pool's threads,
    /// and the chunks' output joined in document order. The output and the
    /// report are the same whatever the number of threads.
    #[must_use]
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// Cuts the input into chunks of about `bytes` (default: as
    /// [`Chunks::batch_bytes`](crate::par::Chunks::batch_bytes)'s). The
    /// output does not depend on it (for testing).
    #[must_use]
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch_bytes = Some(bytes.max(1));
        self
    }

    /// The output's line terminator. Default LF.
    #[must_use]
    pub fn line_ending(mut self, line_ending: LineEnding) -> Self {
        self.line_ending = line_ending;
        self
    }

    /// The output's encoding. Default UTF-8, the only one 7.0 output may have
    /// (another is refused, [`WriteErrorKind::UnsupportedEncoding`]).
    #[must_use]
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The input's encoding, instead of the one detected.
    #[must_use]
    pub fn input_encoding(mut self, encoding: Option<Encoding>) -> Self {
        self.input_encoding = encoding;
        self
    }

    /// The target version.
    #[must_use]
    pub fn target(&self) -> Version {
        self.to
    }
}

/// What [`convert`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertReport {
    /// The input's version.
    pub from: Version,
    /// The output's version.
    pub to: Version,
    /// Records written (`HEAD` and `TRLR` included).
    pub records: u64,
    /// Error-severity diagnostics of the reader.
    pub read_errors: u64,
    /// Warning-severity diagnostics of the reader.
    pub read_warnings: u64,
    /// How many times each rule changed something (`date`, `xref renamed`,
    /// ...): what the conversion documents it changes.
    pub changes: BTreeMap<&'static str, u64>,
    /// What the target version cannot carry as it was.
    pub not_carried: NotCarried,
}

impl ConvertReport {
    pub(crate) fn changed(&mut self, rule: &'static str) {
        *self.changes.entry(rule).or_default() += 1;
    }
}

/// A structure being converted: owned, with its input line (0: made by the
/// conversion).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CNode {
    pub(crate) tag: String,
    pub(crate) xref: Option<String>,
    pub(crate) value: Option<String>,
    pub(crate) pointer: bool,
    pub(crate) line: u64,
    pub(crate) children: Vec<CNode>,
}

impl CNode {
    pub(crate) fn text(tag: &str, text: impl Into<String>) -> CNode {
        CNode {
            tag: tag.to_string(),
            value: Some(text.into()),
            ..CNode::default()
        }
    }

    /// The first child tagged `tag`.
    pub(crate) fn child(&self, tag: &str) -> Option<&CNode> {
        self.children.iter().find(|c| c.tag == tag)
    }

    /// Removes and returns the first child tagged `tag`.
    pub(crate) fn take_child(&mut self, tag: &str) -> Option<CNode> {
        let i = self.children.iter().position(|c| c.tag == tag)?;
        Some(self.children.remove(i))
    }

    /// The text payload ("" for none or a pointer).
    pub(crate) fn text_value(&self) -> &str {
        match &self.value {
            Some(v) if !self.pointer => v,
            _ => "",
        }
    }
}

/// Reads `reader` record by record, calling `each` with each record (the
/// reader's diagnostics are left in it). A record's nodes are reused for
/// the next ones (their strings keep their memory), so a record costs
/// allocations only where it is larger than the ones before it; `each` may
/// take the record (`std::mem::take`) to keep it.
fn records(
    reader: &mut crate::Reader<'_>,
    mut each: impl FnMut(&mut CNode) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let mut stack: Vec<CNode> = Vec::new();
    let mut spare: Vec<CNode> = Vec::new();
    let set = |slot: &mut Option<String>, text: Option<&str>| match (slot.as_mut(), text) {
        (_, None) => *slot = None,
        (Some(s), Some(t)) => {
            s.clear();
            s.push_str(t);
        }
        (None, Some(t)) => *slot = Some(t.to_string()),
    };
    loop {
        let event = reader.next_event().map_err(read_error)?;
        let Some(event) = event else { break };
        let source = reader.encoding();
        match event {
            Event::Begin(b) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(WriteError::new(
                        WriteErrorKind::TooDeep,
                        format!("a record nested deeper than {MAX_DEPTH} levels"),
                    )
                    .at_line(b.line));
                }
                let mut node = spare.pop().unwrap_or_default();
                node.tag.clear();
                node.tag.push_str(&b.tag);
                match &b.value {
                    None => {
                        node.value = None;
                        node.pointer = false;
                    }
                    Some(Value::Text(p)) => {
                        set(&mut node.value, Some(&p.text()));
                        node.pointer = false;
                    }
                    Some(Value::Pointer(x)) => {
                        set(&mut node.value, Some(&decode_xref(x.as_bytes(), source)));
                        node.pointer = true;
                    }
                }
                match &b.xref {
                    None => node.xref = None,
                    Some(x) => set(&mut node.xref, Some(&decode_xref(x.as_bytes(), source))),
                }
                node.line = b.line;
                stack.push(node);
            }
            Event::End(_) => {
                let Some(node) = stack.pop() else { continue };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(node),
                    None => {
                        let mut record = node;
                        each(&mut record)?;
                        recycle(record, &mut spare);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Puts `record`'s nodes (emptied of substructures) into `spare`.
fn recycle(record: CNode, spare: &mut Vec<CNode>) {
    let start = spare.len();
    spare.push(record);
    let mut i = start;
    while i < spare.len() {
        let mut children = std::mem::take(&mut spare[i].children);
        spare.append(&mut children);
        spare[i].children = children;
        i += 1;
    }
}

/// Writes `node` and its substructures (iteratively); gives the level (from
/// `node`'s, 0) of the last structure written not tagged `CONT`, `CONC` or
/// `ERROR`.
fn write_node<W: Write>(w: &mut Writer<W>, node: &CNode) -> Result<Option<usize>, WriteError> {
    let begin = |w: &mut Writer<W>, n: &CNode| {
        let value = n.value.as_deref().map(|v| {
            if n.pointer {
                crate::write::WriteValue::Pointer(v)
            } else {
                crate::write::WriteValue::Text(v)
            }
        });
        w.begin_at_line(&n.tag, n.xref.as_deref(), value, n.line)
    };
    begin(w, node)?;
    let mut last = (!w.keeps_level(&node.tag)).then_some(0);
    let mut stack = vec![node.children.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                begin(w, child)?;
                if !w.keeps_level(&child.tag) {
                    last = Some(stack.len());
                }
                stack.push(child.children.iter());
            }
            None => {
                stack.pop();
                w.end()?;
            }
        }
    }
    Ok(last)
}

/// A reading error as the conversion's error, at its line.
fn read_error(e: crate::Error) -> WriteError {
    let error = WriteError::new(WriteErrorKind::Read, e.message());
    match e.position() {
        Some(p) => error.at_line(p.line),
        None => error,
    }
}

/// Converts `input` (GEDCOM 5.5.1 or 7.0, as its `HEAD` says) to the
/// version `config` names, writing it into `out`. See the
/// [module docs](self) for what changes.
///
/// Memory: a few chunks of records per thread, and for 7.0 output the set
/// of record ids (and their new names), of extension tags made, and the
/// output of the `OBJE` records made from embedded objects (held until the
/// `TRLR`).
///
/// # Errors
/// [`WriteErrorKind::Read`] when the input cannot be read (before anything
/// is written, or where reading stopped); [`WriteErrorKind::TooDeep`] for a
/// record nested deeper than [`MAX_DEPTH`]; any error of the [`Writer`]
/// (for 7.0 output in an encoding other than UTF-8,
/// [`WriteErrorKind::UnsupportedEncoding`]).
pub fn convert<W: Write>(
    input: &[u8],
    config: &ConvertConfig,
    out: W,
) -> Result<ConvertReport, WriteError> {
    convert_with(input, config, &NoMedia, out).map(|(report, _)| report)
}

/// One media file a GEDZIP takes: its name where it was found, and its
/// entry's name.
type Carried = (String, String);

/// Writes the `OBJE` records the rules made from embedded objects since
/// the last call (`ctx` holds them) to `objects`, in the order made, each
/// after the media step, each counted.
fn write_objects<W: Write>(
    ctx: &mut rules::Ctx,
    media: &dyn MediaStep,
    from: Version,
    (carried, report): (&mut Vec<Carried>, &mut ConvertReport),
    objects: &mut Writer<W>,
) -> Result<(), WriteError> {
    for mut object in ctx.take_objects() {
        media.record(&mut object, from, carried, report);
        report.records += 1;
        write_node(objects, &object)?;
    }
    Ok(())
}

/// What the conversion does with each record's media paths after its rules
/// (on any thread): nothing, or (for a GEDZIP) `media::media_paths`.
trait MediaStep: Sync {
    fn record(
        &self,
        record: &mut CNode,
        from: Version,
        carried: &mut Vec<Carried>,
        report: &mut ConvertReport,
    );
}

struct NoMedia;

impl MediaStep for NoMedia {
    fn record(&self, _: &mut CNode, _: Version, _: &mut Vec<Carried>, _: &mut ConvertReport) {}
}

#[cfg(feature = "gedzip")]
struct Media<'a>(&'a crate::gedzip::MediaFiles);

#[cfg(feature = "gedzip")]
impl MediaStep for Media<'_> {
    fn record(
        &self,
        record: &mut CNode,
        from: Version,
        carried: &mut Vec<Carried>,
        report: &mut ConvertReport,
    ) {
        media::media_paths(record, self.0, !from.is_gedcom7(), carried, report);
    }
}

/// Converts `input` to GEDCOM 7.0 as [`convert`] does, into a GEDZIP
/// archive written to `out` (feature `gedzip`): `gedcom.ged`, then each
/// media file that a `FILE` payload (of an `OBJE`, the records made from
/// 5.5.1 embedded objects included, or of an embedded object kept as
/// `_OBJE`, and their `TRAN`s) names as a local relative
/// path and `files` has, once, in the order first named. Such a payload is
/// rewritten to name its entry (a 7.0 URL path: `/`, percent-escapes) when
/// it does not already; a 5.5.1 payload is a plain file name (`\` a
/// separator), tried as written, then with its percent-escapes decoded.
/// A local path `files` lacks, an absolute path and a `file:` URL are left
/// as they are and reported in [`ConvertReport::not_carried`], as is each
/// entry of an input archive ([`MediaFiles::archive`](crate::gedzip::MediaFiles::archive))
/// that no payload names; other URLs are left as they are.
///
/// Returns the report and `out`.
///
/// ```
/// use std::io::Cursor;
/// use gedcom_elf::convert::{convert_to_gedzip, ConvertConfig};
/// use gedcom_elf::gedzip::{read_gedzip, MediaFiles};
/// use gedcom_elf::Version;
///
/// let dir = std::env::temp_dir().join(format!("gdz-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("photos"))?;
/// std::fs::write(dir.join("photos/anna 1.jpg"), b"\xff\xd8")?;
/// let input = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
///     0 @M1@ OBJE\n1 FILE photos\\anna 1.jpg\n2 FORM jpg\n1 FILE lost.jpg\n2 FORM jpg\n0 TRLR\n";
/// let mut files = MediaFiles::directory(&dir);
/// let config = ConvertConfig::new(Version::Gedcom7);
/// let (report, out) = convert_to_gedzip(input, &config, &mut files, Cursor::new(Vec::new()))?;
///
/// let gdz = read_gedzip(Cursor::new(out.into_inner()))?;
/// let text = String::from_utf8(gdz.gedcom).unwrap();
/// assert!(text.contains("1 FILE photos/anna%201.jpg\n"));
/// assert_eq!(gdz.media[0].name, "photos/anna 1.jpg");
/// let lost = report.not_carried.entries().next().unwrap();
/// assert_eq!((lost.path, lost.lines), ("OBJE.FILE", &[9][..]));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`convert`]; [`WriteErrorKind::UnsupportedEncoding`] when `config`'s
/// target is not 7.0 (GEDZIP holds GEDCOM 7 only);
/// [`WriteErrorKind::Io`] when a media file cannot be read or the archive
/// cannot be written (the message says which).
#[cfg(feature = "gedzip")]
pub fn convert_to_gedzip<W: Write + std::io::Seek>(
    input: &[u8],
    config: &ConvertConfig,
    files: &mut crate::gedzip::MediaFiles,
    out: W,
) -> Result<(ConvertReport, W), WriteError> {
    use crate::gedzip::GedzipWriter;
    if !config.to.is_gedcom7() {
        return Err(WriteError::new(
            WriteErrorKind::UnsupportedEncoding,
            format!(
                "a GEDZIP archive holds GEDCOM 7 only, not {}: convert to 7.0",
                config.to
            ),
        ));
    }
    let zip_io =
        |e: crate::gedzip::GedzipError| WriteError::from(std::io::Error::other(e.to_string()));
    let mut gdz = GedzipWriter::new(out);
    let (mut report, carried) =
        convert_with(input, config, &Media(files), gdz.gedcom().map_err(zip_io)?)?;
    for (name, entry) in &carried {
        if !gdz.has(entry) {
            gdz.add_from(entry, name, files).map_err(zip_io)?;
        }
    }
    let named: HashSet<&str> = carried.iter().map(|(n, _)| n.as_str()).collect();
    for name in files.names() {
        if !named.contains(name.as_str()) {
            report.not_carried.add(name, media::UNNAMED, 0);
        }
    }
    let out = gdz.finish().map_err(zip_io)?;
    Ok((report, out))
}

/// What one chunk of the input gave: its records' output, what changed,
/// and the error that ended it, if one did.
struct Piece<T> {
    out: T,
    report: ConvertReport,
    error: Option<WriteError>,
}

/// A chunk's records written: runs of records a collecting writer wrote
/// (the bytes and their length), and records that a writer must write
/// after what came before (`CONT`, `CONC`, `ERROR` at level 0, whose level
/// depends on it); the media the records name.
#[derive(Default)]
struct Written {
    runs: Vec<Run>,
    carried: Vec<Carried>,
    /// The level of the last line not tagged `CONT`, `CONC` or `ERROR` the
    /// piece writer wrote.
    last_level: Option<usize>,
}

enum Run {
    Bytes(Vec<u8>, usize),
    Node(CNode),
    /// `OBJE` records made from embedded objects (7.0 output), written
    /// before the `TRLR`.
    Objects(Vec<u8>, usize),
    /// The `TRLR` (7.0 output): the records made so far go before it.
    Trailer(CNode),
}

/// Reads the input's chunks (`config`'s jobs and chunk size) on the
/// ordered pool, `work` converting each chunk's records but the `HEAD`
/// (read already), and hands the pieces to `sink` in document order; gives
/// the reader's error and warning counts.
fn chunked<T: Send>(
    prepared: &crate::Input<'_>,
    config: &ConvertConfig,
    work: impl Fn(
            &mut dyn FnMut(
                &mut dyn FnMut(&mut CNode) -> Result<(), WriteError>,
            ) -> Result<(), WriteError>,
        ) -> Piece<T>
        + Sync,
    mut sink: impl FnMut(Piece<T>) -> Result<(), WriteError>,
) -> Result<(u64, u64), WriteError> {
    let mut chunks = crate::par::Chunks::new(prepared, crate::ReaderConfig::default())
        .map_err(read_error)?
        .jobs(config.jobs);
    if let Some(bytes) = config.batch_bytes {
        chunks = chunks.batch_bytes(bytes);
    }
    let mut counts = (0u64, 0u64);
    let mut count = |ds: &[crate::Diagnostic]| {
        for d in ds {
            match d.severity() {
                crate::Severity::Error => counts.0 += 1,
                _ => counts.1 += 1,
            }
        }
    };
    // A conversion error is carried in the piece (after the records before
    // it), never as the reading's.
    let mut failed: Option<WriteError> = None;
    let summary = chunks.run(
        crate::par::Numbering::Global,
        |i, reader, _| {
            let mut first = i == 0;
            let mut each = |f: &mut dyn FnMut(&mut CNode) -> Result<(), WriteError>| {
                records(reader, |record| {
                    if std::mem::take(&mut first) {
                        return Ok(()); // the HEAD, read before
                    }
                    f(record)
                })
            };
            Ok(work(&mut each))
        },
        |piece, ds, _| {
            count(&ds);
            if failed.is_some() {
                return Ok(());
            }
            let error = match sink(piece) {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            failed = Some(error);
            Err(crate::Error::internal("conversion stopped"))
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let summary = summary.map_err(read_error)?;
    count(&summary.diagnostics);
    Ok(counts)
}

/// [`convert`] with a step on each record's media paths.
fn convert_with<W: Write>(
    input: &[u8],
    config: &ConvertConfig,
    media: &dyn MediaStep,
    out: W,
) -> Result<(ConvertReport, Vec<Carried>), WriteError> {
    // One input (its encoding decided, UTF-16 transcoded, once) for every pass;
    // its version is decided before the first event.
    let prepared = crate::Input::with_encoding(input, config.input_encoding).map_err(read_error)?;
    let from = prepared.reader().version();
    let to = config.to;
    let mut report = ConvertReport {
        from,
        to,
        ..ConvertReport::default()
    };
    let wconfig = WriterConfig::new()
        .version(to)
        .encoding(config.encoding)
        .line_ending(config.line_ending)
        .cr_is_line_break(false);
    if to.is_gedcom7() && config.encoding != Encoding::Utf8 {
        return Err(WriteError::new(
            WriteErrorKind::UnsupportedEncoding,
            format!("GEDCOM 7 output is UTF-8 only, not {}", config.encoding),
        ));
    }
    // The HEAD first, on this thread: what the rules take from it (the
    // system id, the extensions to give back) every record needs.
    let mut head = None;
    let mut head_reader = crate::par::first_record_reader(prepared.reader());
    records(&mut head_reader, |record| {
        head.get_or_insert_with(|| std::mem::take(record));
        Ok(())
    })?;
    let Some(mut head) = head else {
        return Err(read_error(crate::Error::internal("no HEAD record")));
    };
    // The reader takes a first record tagged `head` in any case for the
    // header; across versions it is written `HEAD` (a rule would judge
    // another spelling an extension, and no writer begins with one).
    if from != to && head.tag != "HEAD" && head.tag.eq_ignore_ascii_case("HEAD") {
        head.tag = "HEAD".into();
        report.changed("HEAD tag spelled HEAD");
    }
    // A 5.5.1 output of a 5.5.1 input keeps the HEAD, and so its schema:
    // the escapes the input's schema preserves are preserved, and every
    // other `@` doubled, as a reader of the output will take them (a schema
    // without `ESC` lines preserves none). Across versions the rules turn
    // the schema into `_SCHMA`, and the default table holds.
    let wconfig = if from == to && !to.is_gedcom7() {
        wconfig.escapes(head_reader.escape_table().clone())
    } else {
        wconfig
    };
    let mut ctx = rules::Ctx::new(from, to);
    if from != to && to.is_gedcom7() {
        // First pass: the ids, and the extension tags the rules make. The
        // ids are kept once (a set with a fast hash: every pointer is looked
        // up in it), and those 7.0 must rename in document order.
        let mut scratch = ConvertReport::default();
        ctx.convert(&mut head.clone(), &mut scratch);
        let mut seen = IdSet::default();
        let mut invalid: Vec<String> = Vec::new();
        let mut gather = |x: String| {
            if !seen.contains(&x) {
                if !valid_id7(&x) {
                    invalid.push(x.clone());
                }
                seen.insert(x);
            }
        };
        if let Some(x) = &head.xref {
            gather(x.clone());
        }
        let mut made = BTreeSet::new();
        let base = &ctx;
        chunked(
            &prepared,
            config,
            |each| {
                let mut ctx = base.clone();
                let mut scratch = ConvertReport::default();
                let mut ids = Vec::new();
                let error = each(&mut |record| {
                    if let Some(x) = &record.xref {
                        ids.push(x.clone());
                    }
                    ctx.convert(record, &mut scratch);
                    ctx.take_objects();
                    Ok(())
                })
                .err();
                Piece {
                    out: (ids, ctx.into_made()),
                    report: ConvertReport::default(),
                    error,
                }
            },
            |piece| {
                let (chunk_ids, chunk_made) = piece.out;
                for x in chunk_ids {
                    gather(x);
                }
                made.extend(chunk_made);
                piece.error.map_or(Ok(()), Err)
            },
        )?;
        let rename = rename_ids(&invalid, &seen);
        ctx.set_ids(rename, seen, &mut report);
        ctx.add_made(made);
    }
    let mut writer = Writer::with_config(out, wconfig.clone());
    if from != to {
        ctx.convert(&mut head, &mut report);
    }
    let mut carried = Vec::new();
    // The OBJE records made from embedded objects, written before the TRLR.
    let mut objects = Writer::<std::io::Sink>::collecting(
        wconfig.clone().headless(true).bom(Some(false)),
        Vec::new(),
    );
    write_objects(
        &mut ctx,
        media,
        from,
        (&mut carried, &mut report),
        &mut objects,
    )?;
    let (mut pending, len) = objects.take_collected();
    pending.truncate(len);
    if to.is_gedcom7() {
        media.record(&mut head, from, &mut carried, &mut report);
    }
    report.records += 1;
    write_node(&mut writer, &head)?;
    let piece_config = wconfig.headless(true).bom(Some(false));
    // Piece buffers go back to the workers once written out.
    let spare: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
    let base = &ctx;
    // The level of the last line not tagged CONT, CONC or ERROR in the
    // records appended since the writer last wrote one itself.
    let mut previous_level: Option<usize> = None;
    let counts = chunked(
        &prepared,
        config,
        |each| {
            let mut ctx = base.clone();
            let mut report = ConvertReport::default();
            let mut written = Written::default();
            let buf = spare
                .lock()
                .ok()
                .and_then(|mut s| s.pop())
                .unwrap_or_default();
            let mut piece = Writer::<std::io::Sink>::collecting(piece_config.clone(), buf);
            // The OBJE records the rules made, written by a writer of their
            // own (whole level-0 records: no line depends on another's).
            let collect = || Writer::<std::io::Sink>::collecting(piece_config.clone(), Vec::new());
            let mut objects = collect();
            // Until the chunk's first record the piece writer writes, records
            // whose level depends on the lines before them go to the writer
            // that wrote those.
            let mut run_started = false;
            let result = each(&mut |record| {
                if from != to {
                    ctx.convert(record, &mut report);
                    let to_report = (&mut written.carried, &mut report);
                    write_objects(&mut ctx, media, from, to_report, &mut objects)?;
                }
                if to.is_gedcom7() {
                    media.record(record, from, &mut written.carried, &mut report);
                }
                report.records += 1;
                if from != to && to.is_gedcom7() && record.tag == "TRLR" {
                    // The records made go before the TRLR: the piece's output
                    // so far, the records made so far (after those of the
                    // chunks before), the TRLR, and what follows (a new run,
                    // as at a chunk's start).
                    let (buf, len) = std::mem::replace(&mut piece, collect()).take_collected();
                    written.runs.push(Run::Bytes(buf, len));
                    let (buf, len) = std::mem::replace(&mut objects, collect()).take_collected();
                    written.runs.push(Run::Objects(buf, len));
                    written.runs.push(Run::Trailer(std::mem::take(record)));
                    written.last_level = None;
                    run_started = false;
                    return Ok(());
                }
                if !run_started && piece.keeps_level(&record.tag) {
                    written.runs.push(Run::Node(std::mem::take(record)));
                    return Ok(());
                }
                run_started = true;
                if let Some(level) = write_node(&mut piece, record)? {
                    written.last_level = Some(level);
                }
                Ok(())
            });
            let (buf, len) = piece.take_collected();
            written.runs.push(Run::Bytes(buf, len));
            let (buf, len) = objects.take_collected();
            if len > 0 {
                written.runs.push(Run::Objects(buf, len));
            }
            Piece {
                out: written,
                report,
                error: result.err(),
            }
        },
        |piece| {
            for run in piece.out.runs {
                match run {
                    Run::Bytes(buf, len) => {
                        if len > 0 {
                            writer.append_records(&buf[..len])?;
                        }
                        if let Ok(mut s) = spare.lock() {
                            s.push(buf);
                        }
                    }
                    Run::Node(node) => {
                        if let Some(level) = previous_level.take() {
                            writer.set_previous_level(level);
                        }
                        write_node(&mut writer, &node)?;
                    }
                    Run::Objects(buf, len) => pending.extend_from_slice(&buf[..len]),
                    Run::Trailer(node) => {
                        if !pending.is_empty() {
                            writer.append_records(&pending)?;
                            pending = Vec::new();
                        }
                        previous_level = None;
                        write_node(&mut writer, &node)?;
                    }
                }
            }
            if piece.out.last_level.is_some() {
                previous_level = piece.out.last_level;
            }
            carried.extend(piece.out.carried);
            report.records += piece.report.records;
            for (rule, n) in piece.report.changes {
                *report.changes.entry(rule).or_default() += n;
            }
            report.not_carried.merge(piece.report.not_carried);
            piece.error.map_or(Ok(()), Err)
        },
    )?;
    (report.read_errors, report.read_warnings) = counts;
    if !pending.is_empty() {
        // No TRLR (or records after it): the records made at the end.
        writer.append_records(&pending)?;
    }
    writer.finish()?;
    Ok((report, carried))
}

/// `true` for a valid GEDCOM 7 record id: `@[A-Z0-9_]+@`, not `@VOID@`.
pub(crate) fn valid_id7(id: &str) -> bool {
    id.len() > 2
        && id.starts_with('@')
        && id.ends_with('@')
        && id[1..id.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && id != "@VOID@"
}

/// The set of the input's record ids (a fast hash: every pointer of a 7.0
/// output is looked up in it).
pub(crate) type IdSet = HashSet<String, crate::tree::hash::BuildWordHasher>;

/// The ids' new names (looked up for every id and pointer of a 7.0 output).
pub(crate) type IdMap = HashMap<String, String, crate::tree::hash::BuildWordHasher>;

/// New names for the ids `invalid` (in document order, each once) that are
/// not valid 7.0 ids: upper case, every other character `_`, a number
/// appended while the name is taken (by an id of `all`, the input's ids,
/// which a valid name can only be if it is valid as it is, or by a new
/// name given before).
fn rename_ids(invalid: &[String], all: &IdSet) -> IdMap {
    let mut taken: HashSet<String> = HashSet::new();
    taken.insert("@VOID@".to_string());
    let mut map = IdMap::default();
    for id in invalid {
        let inner = id.trim_matches('@');
        let mut base: String = inner
            .chars()
            .map(|c| match c.to_ascii_uppercase() {
                c @ ('A'..='Z' | '0'..='9' | '_') => c,
                _ => '_',
            })
            .collect();
        if base.is_empty() {
            base.push('X');
        }
        let mut name = format!("@{base}@");
        let mut n = 2u64;
        while taken.contains(&name) || all.contains(&name) {
            name = format!("@{base}_{n}@");
            n += 1;
        }
        taken.insert(name.clone());
        map.insert(id.clone(), name);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader takes a first record tagged `head` in any case for the
    /// header (`corpus/rule-06-head-normalised.ged`): across versions it is
    /// written `HEAD`, both ways; in its own version as it was.
    #[test]
    fn a_header_tagged_head_in_another_case_is_written_head() {
        let run = |input: &str, to: Version| {
            let mut out = Vec::new();
            let report = convert(input.as_bytes(), &ConvertConfig::new(to), &mut out).unwrap();
            (String::from_utf8(out).unwrap(), report)
        };
        let (out, report) = run(
            "0\thead  \n1 CHAR UTF-8\n0 @I1@ INDI\n0 TRLR\n",
            Version::Gedcom7,
        );
        assert_eq!(out, "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n0 TRLR\n");
        assert_eq!(report.changes.get("HEAD tag spelled HEAD"), Some(&1));
        let (out, report) = run(
            "0 Head\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n0 TRLR\n",
            Version::Gedcom551,
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n\
             0 @I1@ INDI\n0 TRLR\n"
        );
        assert_eq!(report.changes.get("HEAD tag spelled HEAD"), Some(&1));
        let (out, report) = run("0 head\n1 CHAR UTF-8\n0 TRLR\n", Version::Gedcom551);
        assert_eq!(out, "0 head\n1 CHAR UTF-8\n0 TRLR\n");
        assert!(report.changes.is_empty());
    }
}
