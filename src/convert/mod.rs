//! Conversion between GEDCOM 5.5.1 and GEDCOM 7.0 (issue #21): [`convert`].
//!
//! The input is read record by record (one record's structures in memory at
//! a time, whatever the input's size), each record's structures rewritten by
//! the rules of `rules.rs`, and written through one [`Writer`] in the
//! target version ([`WriterConfig::version`]). Converting to 7.0 reads the
//! input twice: a first pass gathers the record ids (to make them valid 7.0
//! ids, renamed consistently with their pointers) and the extension tags the
//! rules make (to declare them in `HEAD.SCHMA`, written first).
//!
//! | 5.5.1 | 7.0 |
//! |---|---|
//! | `HEAD.CHAR`, `HEAD.GEDC.FORM` | left out (7.0 is UTF-8; `GEDC.VERS 7.0`) |
//! | `DATE` 5.5.1 syntax (`@#DJULIAN@`, `B.C.`, dual years, `INT d (p)`, `(p)`) | 7.0 syntax (`JULIAN`, `BCE`), the dual year's 5.5.1 form or the phrase in a `PHRASE`; an unparsable date becomes an empty `DATE` with the text as `PHRASE` |
//! | `AGE` (`CHILD`, `INFANT`, `STILLBORN`, `>21y`) | `< 8y` + `PHRASE Child`, `< 1y` + `PHRASE Infant`, `0y` + `PHRASE Stillborn`, `> 21y`; an unparsable age an empty `AGE` with a `PHRASE` |
//! | `SEX`, `PEDI`, `QUAY`, `ADOP`, `RESN`, `NAME.TYPE`, `MEDI`, `SOUR.EVEN.ROLE` | 7.0 spellings; a value 7.0 lacks `OTHER` + `PHRASE` where the enumeration has `OTHER`, else a `_` extension |
//! | `ASSO.RELA x` | `ROLE` (`ROLE OTHER` + `PHRASE x` unless `x` is a role); `ROLE OTHER` added when there was no `RELA` |
//! | `FILE.FORM jpg`, `FORM.TYPE photo` | `FORM image/jpeg`, `FORM.MEDI PHOTO` |
//! | `LANG English` | `LANG en` (BCP 47) |
//! | `SOUR text` (a citation with no pointer), its `TEXT` | `SOUR @VOID@` with `NOTE text` first, `DATA.TEXT` |
//! | `NOTE @N1@`, `0 @N1@ NOTE` | `SNOTE @N1@`, `0 @N1@ SNOTE` |
//! | `CONC` lines, `@@` everywhere | joined; only a leading `@` doubled, no line limit |
//! | xref ids (`@i-1@`) | upper case, `[A-Z0-9_]` only, unique; pointers renamed alike; a pointer to no record `@VOID@` (reported) |
//! | `ROMN`, `FONE` with the guide's `TYPE`s | `TRAN` with a `LANG` |
//! | `AFN`, `RIN`, `RFN` | `EXID` with the migration guide's `TYPE` URIs |
//! | a structure 7.0 does not have where it stands (`HEAD.FILE`, `SUBN`, an embedded `OBJE`, text `ALIA`, ...) | `_TAG`, declared `HEAD.SCHMA.TAG _TAG https://gedcom.io/terms/v5.5.1/TAG` |
//!
//! Back to 5.5.1 everything in the table is reversed where 5.5.1 can say it
//! (a `PHRASE` holding a dual date's 5.5.1 form gives it back; an extension
//! declared with [`TERMS_551`] gets its tag back), `CONC` lines keep lines
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

use std::collections::{BTreeMap, HashMap, HashSet};
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
        }
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

/// Reads `input` record by record, calling `each` with each record; counts
/// the reader's error and warning diagnostics into `counts`.
fn records(
    prepared: &crate::Input<'_>,
    counts: &mut (u64, u64),
    mut each: impl FnMut(CNode) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let mut reader = prepared.reader();
    let mut stack: Vec<CNode> = Vec::new();
    loop {
        let event = reader.next_event().map_err(read_error)?;
        for d in reader.drain_diagnostics() {
            match d.severity() {
                crate::Severity::Error => counts.0 += 1,
                _ => counts.1 += 1,
            }
        }
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
                let (value, pointer) = match &b.value {
                    None => (None, false),
                    Some(Value::Text(p)) => (Some(p.text().into_owned()), false),
                    Some(Value::Pointer(x)) => {
                        (Some(decode_xref(x.as_bytes(), source).into_owned()), true)
                    }
                };
                stack.push(CNode {
                    tag: b.tag.to_string(),
                    xref: b
                        .xref
                        .as_ref()
                        .map(|x| decode_xref(x.as_bytes(), source).into_owned()),
                    value,
                    pointer,
                    line: b.line,
                    children: Vec::new(),
                });
            }
            Event::End(_) => {
                let Some(node) = stack.pop() else { continue };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(node),
                    None => each(node)?,
                }
            }
        }
    }
    Ok(())
}

/// Writes `node` and its substructures (iteratively).
fn write_node<W: Write>(w: &mut Writer<W>, node: &CNode) -> Result<(), WriteError> {
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
    let mut stack = vec![node.children.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                begin(w, child)?;
                stack.push(child.children.iter());
            }
            None => {
                stack.pop();
                w.end()?;
            }
        }
    }
    Ok(())
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
/// Memory: one record at a time, and for 7.0 output the set of record ids
/// (and their new names) and of extension tags made.
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
    convert_with(input, config, &mut NoMedia, out)
}

/// What the conversion does with each record's media paths after its rules:
/// nothing, or (for a GEDZIP) [`media::media_paths`].
trait MediaStep {
    fn record(&mut self, record: &mut CNode, from: Version, report: &mut ConvertReport);
}

struct NoMedia;

impl MediaStep for NoMedia {
    fn record(&mut self, _: &mut CNode, _: Version, _: &mut ConvertReport) {}
}

#[cfg(feature = "gedzip")]
struct Media<'a> {
    files: &'a crate::gedzip::MediaFiles,
    carried: Vec<media::Carried>,
}

#[cfg(feature = "gedzip")]
impl MediaStep for Media<'_> {
    fn record(&mut self, record: &mut CNode, from: Version, report: &mut ConvertReport) {
        media::media_paths(
            record,
            self.files,
            !from.is_gedcom7(),
            &mut self.carried,
            report,
        );
    }
}

/// Converts `input` to GEDCOM 7.0 as [`convert`] does, into a GEDZIP
/// archive written to `out` (feature `gedzip`): `gedcom.ged`, then each
/// media file that a `FILE` payload (of an `OBJE`, or of a 5.5.1 embedded
/// object kept as `_OBJE`, and their `TRAN`s) names as a local relative
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
    let mut step = Media {
        files: &*files,
        carried: Vec::new(),
    };
    let mut report = convert_with(input, config, &mut step, gdz.gedcom().map_err(zip_io)?)?;
    let carried = step.carried;
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

/// [`convert`] with a step on each record's media paths.
fn convert_with<W: Write>(
    input: &[u8],
    config: &ConvertConfig,
    media: &mut dyn MediaStep,
    out: W,
) -> Result<ConvertReport, WriteError> {
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
    let mut ctx = rules::Ctx::new(from, to);
    let mut counts = (0, 0);
    if from != to && to.is_gedcom7() {
        // First pass: the ids, and the extension tags the rules make.
        let mut ids = Vec::new();
        let mut seen = HashSet::new();
        let mut scratch = ConvertReport::default();
        records(&prepared, &mut counts, |mut record| {
            if let Some(x) = &record.xref {
                if seen.insert(x.clone()) {
                    ids.push(x.clone());
                }
            }
            ctx.convert(&mut record, &mut scratch);
            Ok(())
        })?;
        let rename = rename_ids(&ids);
        ctx.set_ids(rename, seen, &mut report);
        counts = (0, 0);
    }
    let mut writer = Writer::with_config(out, wconfig);
    records(&prepared, &mut counts, |mut record| {
        if from != to {
            ctx.convert(&mut record, &mut report);
        }
        if to.is_gedcom7() {
            media.record(&mut record, from, &mut report);
        }
        report.records += 1;
        write_node(&mut writer, &record)
    })?;
    (report.read_errors, report.read_warnings) = counts;
    writer.finish()?;
    Ok(report)
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

/// New names for the ids (in document order) that are not valid 7.0 ids:
/// upper case, every other character `_`, a number appended while the name
/// is taken.
fn rename_ids(ids: &[String]) -> HashMap<String, String> {
    let mut taken: HashSet<String> = ids.iter().filter(|x| valid_id7(x)).cloned().collect();
    taken.insert("@VOID@".to_string());
    let mut map = HashMap::new();
    for id in ids.iter().filter(|x| !valid_id7(x)) {
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
        while taken.contains(&name) {
            name = format!("@{base}_{n}@");
            n += 1;
        }
        taken.insert(name.clone());
        map.insert(id.clone(), name);
    }
    map
}
