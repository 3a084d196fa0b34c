//! The GEDCOM X file format (`.gedx`, `http://gedcomx.org/file/v1`): a zip
//! archive holding a manifest, GEDCOM X documents and the media files they
//! describe.
//!
//! **Writing** ([`write_gedx`]): the first entry is `META-INF/MANIFEST.MF`,
//! whose main section says `Manifest-Version: 1.0`, `User-Agent` and
//! `X-DC-conformsTo: http://gedcomx.org/file/v1`, followed by a section per
//! resource (`Name:` and `Content-Type:`); then the document (`tree.json`,
//! `application/x-gedcomx-v1+json`, copied from any [`Read`], so the
//! document can wait in a temporary file rather than in memory); then the
//! media files, each typed by its extension ([`media_type`], one table:
//! [`MEDIA_TYPES`]). The manifest can come first because every name is
//! known before anything is written. No time is recorded (no
//! `X-DC-created`, zip times of 1980-01-01), so the same input gives the
//! same bytes.
//!
//! Which media go in: [`select_media`] takes the directory of the GEDCOM
//! input and the `about` values of its `OBJE` source descriptions, and
//! keeps the relative paths that name a file beside the input. URLs,
//! absolute paths and paths that climb out of the directory (`..`, or a
//! link leading outside it) are refused, and every value not included is
//! given back with its [`Exclusion`], for the caller to report.
//!
//! **Reading** ([`read_gedx`]): the manifest is read (it must exist and
//! its main section must say `X-DC-conformsTo: http://gedcomx.org/file/v1`),
//! the main document is the manifest's `tree.json`, or else its first
//! resource typed as a GEDCOM X document (JSON, or XML: `…+xml`; a section
//! without `Content-Type` is JSON, as the specification says), or else an
//! entry named `tree.json` or `tree.xml`. Its bytes are read into memory up
//! to [`ReadOptions::max_document`] ([`DEFAULT_MAX_DOCUMENT`], 1 GiB), so a
//! zip bomb stops with [`GedxErrorKind::TooLarge`]; the other entries are
//! listed with their types and sizes, not read. Bad input is an error
//! with a [`GedxErrorKind`], never a panic.
//!
//! The zip reading (telling no zip from a truncated or damaged one,
//! bounded reads) is [`gedzip`]'s, shared with GEDZIP; the
//! `gedcomx` feature turns `gedzip` on.
//!
//! The specification asks for JSON documents; [`Format::Xml`] writes
//! `tree.xml` typed `application/x-gedcomx-v1+xml` for readers that take
//! it, and reading accepts both.
//!
//! ```
//! use std::io::Cursor;
//! use gedcom_elf::gedcomx::gedx::{read_gedx, write_gedx, GedxErrorKind};
//! use gedcom_elf::gedcomx::Format;
//!
//! let document = br#"{"persons":[{"id":"I1"}]}"#;
//! let zip = write_gedx(Cursor::new(Vec::new()), &mut &document[..], Format::Json, &[])?;
//! let gedx = read_gedx(Cursor::new(zip.into_inner()))?;
//! assert_eq!(gedx.name, "tree.json");
//! assert_eq!(gedx.format, Format::Json);
//! assert_eq!(gedx.bytes, document);
//! assert_eq!(gedx.manifest.main_field("X-DC-conformsTo"), Some("http://gedcomx.org/file/v1"));
//!
//! let err = read_gedx(Cursor::new(b"not a zip".to_vec())).unwrap_err();
//! assert_eq!(err.kind(), GedxErrorKind::NotZip);
//! # Ok::<(), gedcom_elf::gedcomx::gedx::GedxError>(())
//! ```

use crate::gedzip::{entry_names, has_scheme, NoEntry, PathSyntax};
use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::Format;
use crate::gedzip::{self, open_zip, read_entry, GedzipError, GedzipErrorKind};

/// The manifest's entry name.
pub const MANIFEST: &str = "META-INF/MANIFEST.MF";

/// The identifier of the GEDCOM X file format, the value of the manifest's
/// `X-DC-conformsTo`.
pub const CONFORMS_TO: &str = "http://gedcomx.org/file/v1";

/// The media type of a GEDCOM X JSON document.
pub const JSON_TYPE: &str = "application/x-gedcomx-v1+json";

/// The media type of a GEDCOM X XML document.
pub const XML_TYPE: &str = "application/x-gedcomx-v1+xml";

/// The media type of a file whose extension [`MEDIA_TYPES`] does not know
/// (the manifest must give every resource one).
pub const UNKNOWN_TYPE: &str = "application/octet-stream";

/// How much of a document [`read_gedx`] reads into memory unless told
/// otherwise: 1 GiB.
pub const DEFAULT_MAX_DOCUMENT: u64 = 1 << 30;

/// How much of a manifest [`read_gedx`] reads: 1 MiB, thousands of
/// sections.
pub const DEFAULT_MAX_MANIFEST: u64 = 1 << 20;

/// Manifest lines are cut at this many bytes (the JAR manifest rule, which
/// readers of `MANIFEST.MF` files expect); the rest continues on lines that
/// start with a space.
const LINE_BYTES: usize = 72;

/// A media file's extension (lower case), its media type (IANA's, as the
/// GEDCOM 7 specification's migration guide maps the 5.5.1 `FORM` values),
/// and whether its content is compressed already (stored in the zip rather
/// than deflated again).
pub const MEDIA_TYPES: &[(&str, &str, bool)] = &[
    ("bmp", "image/bmp", false),
    ("gif", "image/gif", true),
    ("jpg", "image/jpeg", true),
    ("jpeg", "image/jpeg", true),
    ("jpe", "image/jpeg", true),
    ("png", "image/png", true),
    ("tif", "image/tiff", false),
    ("tiff", "image/tiff", false),
    ("webp", "image/webp", true),
    ("heic", "image/heic", true),
    ("svg", "image/svg+xml", false),
    ("pcx", "image/vnd.zbrush.pcx", false),
    ("ole", "application/ole", false),
    ("pdf", "application/pdf", false),
    ("txt", "text/plain", false),
    ("htm", "text/html", false),
    ("html", "text/html", false),
    ("ged", "text/vnd.familysearch.gedcom", false),
    ("wav", "audio/wav", false),
    ("mp3", "audio/mpeg", true),
    ("m4a", "audio/mp4", true),
    ("ogg", "audio/ogg", true),
    ("flac", "audio/flac", true),
    ("mp4", "video/mp4", true),
    ("m4v", "video/mp4", true),
    ("mov", "video/quicktime", true),
    ("avi", "video/x-msvideo", false),
    ("mpg", "video/mpeg", true),
    ("mpeg", "video/mpeg", true),
    ("webm", "video/webm", true),
];

/// The media type of a file by its name's extension (any case), from
/// [`MEDIA_TYPES`]; `None` for an extension it does not list.
///
/// ```
/// use gedcom_elf::gedcomx::gedx::media_type;
/// assert_eq!(media_type("photos/Anna 1901.JPG"), Some("image/jpeg"));
/// assert_eq!(media_type("census.tif"), Some("image/tiff"));
/// assert_eq!(media_type("notes"), None);
/// ```
pub fn media_type(name: &str) -> Option<&'static str> {
    media_entry(name).map(|(_, t, _)| *t)
}

/// The media type of a file extension or a 5.5.1 `FORM` value (`jpg`,
/// any case, without the dot), from [`MEDIA_TYPES`].
///
/// ```
/// use gedcom_elf::gedcomx::gedx::extension_media_type;
/// assert_eq!(extension_media_type("JPG"), Some("image/jpeg"));
/// assert_eq!(extension_media_type("doc"), None);
/// ```
pub fn extension_media_type(ext: &str) -> Option<&'static str> {
    extension_entry(ext).map(|(_, t, _)| *t)
}

fn extension_entry(ext: &str) -> Option<&'static (&'static str, &'static str, bool)> {
    MEDIA_TYPES
        .iter()
        .find(|(e, _, _)| e.eq_ignore_ascii_case(ext))
}

fn media_entry(name: &str) -> Option<&'static (&'static str, &'static str, bool)> {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let (_, ext) = file.rsplit_once('.')?;
    extension_entry(ext)
}

// ---------------------------------------------------------------- errors

/// What went wrong, for a caller to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GedxErrorKind {
    /// The input is not a zip archive at all.
    NotZip,
    /// A zip archive that ends too soon (its central directory, or an
    /// entry's data, is cut off).
    Truncated,
    /// A zip archive whose structure or data is damaged (a bad central
    /// directory, a checksum that does not match).
    Corrupt,
    /// A zip feature this reader lacks: encryption, a compression method
    /// other than stored and deflate.
    Unsupported,
    /// No `META-INF/MANIFEST.MF` entry.
    NoManifest,
    /// The manifest does not say `X-DC-conformsTo: http://gedcomx.org/file/v1`.
    NotConformant,
    /// Neither the manifest nor the entries name a GEDCOM X document.
    NoDocument,
    /// The document (or the manifest) is larger than the limit.
    TooLarge,
    /// A name that cannot go in the archive (writing): absolute, climbing
    /// out with `..`, reserved (the manifest's, the document's), or twice.
    InvalidName,
    /// A media file could not be read (writing).
    Media,
    /// Reading the input or writing the output failed.
    Io,
}

/// An error reading or writing a GEDCOM X file; [`kind`](Self::kind) says
/// which, the message says what and where.
#[derive(Debug)]
pub struct GedxError {
    kind: GedxErrorKind,
    message: String,
    source: Option<io::Error>,
}

impl GedxError {
    fn new(kind: GedxErrorKind, message: impl Into<String>) -> Self {
        GedxError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    fn io(kind: GedxErrorKind, message: impl Into<String>, source: io::Error) -> Self {
        GedxError {
            kind,
            message: message.into(),
            source: Some(source),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> GedxErrorKind {
        self.kind
    }
}

impl fmt::Display for GedxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match &self.source {
            Some(e) => write!(f, ": {e}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for GedxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<io::Error> for GedxError {
    fn from(e: io::Error) -> Self {
        GedxError::io(GedxErrorKind::Io, "GEDCOM X file", e)
    }
}

/// The zip reading's errors (shared with [`gedzip`]) as
/// this format's: the same kinds, and the same messages.
impl From<GedzipError> for GedxError {
    fn from(e: GedzipError) -> Self {
        use GedzipErrorKind as Z;
        let (kind, message, source) = e.into_parts();
        let kind = match kind {
            Z::NotZip => GedxErrorKind::NotZip,
            Z::Truncated => GedxErrorKind::Truncated,
            Z::Corrupt => GedxErrorKind::Corrupt,
            Z::Unsupported => GedxErrorKind::Unsupported,
            Z::TooLarge => GedxErrorKind::TooLarge,
            Z::Io => GedxErrorKind::Io,
            // Not asked here: no entry is looked for under a GEDZIP's name.
            Z::NoGedcom => GedxErrorKind::NoDocument,
        };
        GedxError {
            kind,
            message,
            source,
        }
    }
}

/// A zip library error while doing `what`.
fn zip_error(what: &str, e: ZipError) -> GedxError {
    gedzip::zip_error(what, e).into()
}

// ---------------------------------------------------------------- manifest

/// A header field of the manifest: its name as written (names compare in
/// any case) and its value, continuation lines joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The field's name (`Content-Type`).
    pub name: String,
    /// Its value, leading white space removed.
    pub value: String,
}

/// A parsed `META-INF/MANIFEST.MF`: the main section's fields, then one
/// section per resource (each starting with `Name`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The fields about the file itself.
    pub main: Vec<Field>,
    /// The resources' sections, in order; each one's first field is `Name`.
    pub sections: Vec<Vec<Field>>,
}

fn field<'a>(fields: &'a [Field], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case(name))
        .map(|f| f.value.as_str())
}

impl Manifest {
    /// Parses a manifest's text: sections separated by empty lines, fields
    /// `Name: value` (names in any case, the value's leading white space
    /// dropped), a line starting with a space continuing the field before
    /// it (the space dropped), lines ended by CR LF, LF or CR. A line that
    /// is neither is ignored. The first section is the main one unless it
    /// starts with `Name`; a later section that does not is ignored (it
    /// names no resource).
    pub fn parse(text: &str) -> Manifest {
        let mut manifest = Manifest::default();
        let mut section: Vec<Field> = Vec::new();
        let mut first = true;
        let mut close = |section: &mut Vec<Field>, first: &mut bool| {
            if section.is_empty() {
                return;
            }
            let fields = std::mem::take(section);
            let named = fields[0].name.eq_ignore_ascii_case("Name");
            match (*first, named) {
                (true, false) => manifest.main = fields,
                (_, true) => manifest.sections.push(fields),
                // A second section without a Name: no resource to attach it to.
                (false, false) => {}
            }
            *first = false;
        };
        for line in text.split("\r\n").flat_map(|l| l.split(['\r', '\n'])) {
            if line.is_empty() {
                close(&mut section, &mut first);
            } else if let Some(more) = line.strip_prefix(' ') {
                if let Some(last) = section.last_mut() {
                    last.value.push_str(more);
                }
            } else if let Some((name, value)) = line.split_once(':') {
                section.push(Field {
                    name: name.trim().to_string(),
                    value: value.trim_start_matches([' ', '\t']).to_string(),
                });
            }
        }
        close(&mut section, &mut first);
        manifest
    }

    /// The main section's first field named `name` (any case).
    pub fn main_field(&self, name: &str) -> Option<&str> {
        field(&self.main, name)
    }

    /// The resources the manifest names, each with its `Content-Type` if it
    /// gives one.
    pub fn resources(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.sections
            .iter()
            .map(|s| (s[0].value.as_str(), field(s, "Content-Type")))
    }

    /// The `Content-Type` of the resource named `name`, if the manifest
    /// has a section for it and the section gives one.
    pub fn content_type(&self, name: &str) -> Option<&str> {
        self.resources()
            .find(|(n, _)| *n == name)
            .and_then(|(_, t)| t)
    }

    /// Whether the main section has `X-DC-conformsTo: http://gedcomx.org/file/v1`.
    pub fn conforms(&self) -> bool {
        self.main.iter().any(|f| {
            f.name.eq_ignore_ascii_case("X-DC-conformsTo") && f.value.trim() == CONFORMS_TO
        })
    }
}

/// Writes `name: value` cut into lines of [`LINE_BYTES`] (at character
/// boundaries), CR LF after each.
fn write_field(out: &mut String, name: &str, value: &str) {
    let mut line = format!("{name}: {value}");
    let mut first = true;
    while !line.is_empty() {
        let room = if first { LINE_BYTES } else { LINE_BYTES - 1 };
        let mut cut = line.len().min(room);
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        if !first {
            out.push(' ');
        }
        out.push_str(&line[..cut]);
        out.push_str("\r\n");
        line.drain(..cut);
        first = false;
    }
}

/// The manifest text for a document named `document` of type `doc_type`
/// and the media `(name, type)` after it.
fn manifest_text(document: &str, doc_type: &str, media: &[(&str, &str)]) -> String {
    let mut out = String::new();
    write_field(&mut out, "Manifest-Version", "1.0");
    write_field(
        &mut out,
        "User-Agent",
        concat!("gedcom-elf/", env!("CARGO_PKG_VERSION")),
    );
    write_field(&mut out, "X-DC-conformsTo", CONFORMS_TO);
    for (name, content_type) in std::iter::once((document, doc_type)).chain(media.iter().copied()) {
        out.push_str("\r\n");
        write_field(&mut out, "Name", name);
        write_field(&mut out, "Content-Type", content_type);
    }
    out
}

// ---------------------------------------------------------------- writing

/// A media file to put in the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Media {
    /// Its entry name in the zip: the relative path the document's `about`
    /// gives, `/`-separated, without `./` (an `about` resolves against the
    /// archive's root).
    pub name: String,
    /// The file on disk.
    pub path: PathBuf,
}

/// Whether `name` is in the manifest's directory (`META-INF/`, any case).
fn is_reserved(name: &str) -> bool {
    name.get(..9)
        .is_some_and(|p| p.eq_ignore_ascii_case("META-INF/"))
}

/// Why an entry name cannot go in the archive, if it cannot.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("an empty name");
    }
    if name.starts_with('/') || name.contains('\\') || has_scheme(name, true) {
        return Err("not a relative path");
    }
    if name.chars().any(char::is_control) {
        return Err("control characters (a manifest line cannot hold them)");
    }
    if name
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err("not a plain relative path (empty, `.` or `..` segments)");
    }
    if is_reserved(name) {
        return Err("reserved for the manifest");
    }
    Ok(())
}

/// Writes a GEDCOM X file to `out`: the manifest, then the document read
/// from `document` to its end (`tree.json`, or `tree.xml` for
/// [`Format::Xml`]), then each of `media` in order. Gives `out` back,
/// finished.
///
/// The document is deflated and written with ZIP64 sizes (its size is not
/// known beforehand; every current zip reader takes them); media files are
/// deflated unless [`MEDIA_TYPES`] says they are compressed already, and
/// typed by their extension ([`UNKNOWN_TYPE`] for one it does not list).
///
/// # Errors
/// [`GedxErrorKind::InvalidName`] for a media name that is not a plain
/// relative path, is the manifest's or the document's, or comes twice;
/// [`GedxErrorKind::Media`] when a media file cannot be read (the message
/// names it); [`GedxErrorKind::Io`] when reading the document or writing
/// `out` fails.
pub fn write_gedx<W: Write + Seek>(
    out: W,
    document: &mut dyn Read,
    format: Format,
    media: &[Media],
) -> Result<W, GedxError> {
    let (doc_name, doc_type) = match format {
        Format::Json => ("tree.json", JSON_TYPE),
        Format::Xml => ("tree.xml", XML_TYPE),
    };
    let mut names = HashSet::from([doc_name]);
    let mut typed = Vec::with_capacity(media.len());
    for m in media {
        let invalid = |why: &str| {
            GedxError::new(
                GedxErrorKind::InvalidName,
                format!("media entry `{}` ({}): {why}", m.name, m.path.display()),
            )
        };
        check_name(&m.name).map_err(invalid)?;
        if !names.insert(m.name.as_str()) {
            return Err(invalid("named twice, or the document's name"));
        }
        let entry = media_entry(&m.name);
        typed.push((
            m.name.as_str(),
            entry.map_or(UNKNOWN_TYPE, |e| e.1),
            entry.is_some_and(|e| e.2),
        ));
    }
    let listed: Vec<_> = typed.iter().map(|&(n, t, _)| (n, t)).collect();
    let manifest = manifest_text(doc_name, doc_type, &listed);

    let write_err = |what: &str| {
        let what = what.to_string();
        move |e| zip_error(&format!("writing {what}"), e)
    };
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let mut zip = ZipWriter::new(out);
    zip.start_file(MANIFEST, deflated)
        .map_err(write_err(MANIFEST))?;
    zip.write_all(manifest.as_bytes())
        .map_err(|e| GedxError::io(GedxErrorKind::Io, format!("writing {MANIFEST}"), e))?;

    zip.start_file(doc_name, deflated.large_file(true))
        .map_err(write_err(doc_name))?;
    copy(document, &mut zip).map_err(|(reading, e)| match reading {
        true => GedxError::io(GedxErrorKind::Io, "reading the GEDCOM X document", e),
        false => GedxError::io(GedxErrorKind::Io, format!("writing {doc_name}"), e),
    })?;

    for (m, &(name, _, compressed)) in media.iter().zip(&typed) {
        let media_err = |e| {
            GedxError::io(
                GedxErrorKind::Media,
                format!("media file {} (`{name}`)", m.path.display()),
                e,
            )
        };
        let mut file = File::open(&m.path).map_err(media_err)?;
        let size = file.metadata().map_err(media_err)?.len();
        let method = match compressed {
            true => CompressionMethod::Stored,
            false => CompressionMethod::Deflated,
        };
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(size >= u64::from(u32::MAX));
        zip.start_file(name, options).map_err(write_err(name))?;
        copy(&mut file, &mut zip).map_err(|(reading, e)| match reading {
            true => media_err(e),
            false => GedxError::io(GedxErrorKind::Io, format!("writing {name}"), e),
        })?;
    }
    zip.finish().map_err(write_err("the zip directory"))
}

/// Copies `from` to `to`, telling a reading error (`true`) from a writing
/// one.
fn copy(from: &mut dyn Read, to: &mut dyn Write) -> Result<u64, (bool, io::Error)> {
    let mut buf = vec![0; 1 << 16];
    let mut total = 0;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err((true, e)),
        };
        to.write_all(&buf[..n]).map_err(|e| (false, e))?;
        total += n as u64;
    }
}

// ---------------------------------------------------------------- choosing media

/// Why an `about` value was not included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Exclusion {
    /// A URL (`https:`, `file:`): not a file beside the input.
    Url,
    /// An absolute path (`/…`, `//host/…`, `\…`, a Windows drive `C:…`).
    Absolute,
    /// A path that climbs out of the input's directory (`..`, or a link
    /// that leads outside it).
    Escapes,
    /// A name the archive keeps for itself (the manifest, `META-INF/`, the
    /// document).
    Reserved,
    /// No file of that name beside the input (or not a regular file).
    NotFound,
    /// A name with control characters (a line break, a tab), which the
    /// manifest's lines cannot hold.
    Unusable,
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exclusion::Url => "a URL, not a file beside the input",
            Exclusion::Absolute => "an absolute path",
            Exclusion::Escapes => "a path leading outside the input's directory",
            Exclusion::Reserved => "a name the GEDCOM X file keeps for its manifest or document",
            Exclusion::NotFound => "no such file beside the input",
            Exclusion::Unusable => "a name with control characters",
        })
    }
}

/// What [`select_media`] found: the files to include, and the values left
/// out with the reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MediaSelection {
    /// The files to put in the archive, each once, in the order first named.
    pub included: Vec<Media>,
    /// The `about` values not included, in order (each once).
    pub excluded: Vec<(String, Exclusion)>,
}

/// The zip entry name an `about` value names, or why it names none: a
/// relative path, percent-escapes decoded, `./` segments dropped (GEDZIP's
/// rule, [`entry_names`] with the `about`'s syntax), and not one of the
/// names the archive keeps for itself.
fn entry_name(about: &str) -> Result<String, Exclusion> {
    let name = match entry_names(about, PathSyntax::GedxAbout) {
        Ok(mut names) if !names.is_empty() => names.swap_remove(0),
        Ok(_) | Err(NoEntry::Empty) => return Err(Exclusion::NotFound),
        Err(NoEntry::Absolute) => return Err(Exclusion::Absolute),
        Err(NoEntry::Url) => return Err(Exclusion::Url),
        Err(NoEntry::Outside) => return Err(Exclusion::Escapes),
        Err(NoEntry::Unusable) => return Err(Exclusion::Unusable),
    };
    if is_reserved(&name) || name == "tree.json" || name == "tree.xml" {
        Err(Exclusion::Reserved)
    } else {
        Ok(name)
    }
}

/// Chooses the media files of a GEDCOM X file: of `abouts` (the `about`
/// values of the document's `OBJE` source descriptions: the GEDCOM `FILE`
/// paths), those that are relative paths naming a regular file in `dir`
/// (the directory of the GEDCOM input) or below it. Each value not
/// included is in [`MediaSelection::excluded`] with its reason; a value
/// that names a file already included is included once.
///
/// Backslashes separate directories as slashes do (GEDCOM files written on
/// Windows use them); the entry name always uses `/`, so a document that
/// wrote the `about` with backslashes refers to the entry only after the
/// same normalisation.
///
/// ```
/// use gedcom_elf::gedcomx::gedx::{select_media, Exclusion};
///
/// let dir = std::env::temp_dir().join(format!("gedx-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("photos"))?;
/// std::fs::write(dir.join("photos/anna.jpg"), b"\xff\xd8")?;
/// let chosen = select_media(&dir, ["./photos/anna.jpg", "https://example.org/b.jpg", "../c.jpg", "gone.png"]);
/// assert_eq!(chosen.included[0].name, "photos/anna.jpg");
/// assert_eq!(chosen.excluded, [
///     ("https://example.org/b.jpg".to_string(), Exclusion::Url),
///     ("../c.jpg".to_string(), Exclusion::Escapes),
///     ("gone.png".to_string(), Exclusion::NotFound),
/// ]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn select_media<'a>(dir: &Path, abouts: impl IntoIterator<Item = &'a str>) -> MediaSelection {
    let mut selection = MediaSelection::default();
    let mut seen = HashSet::new();
    let root = dir.canonicalize().ok();
    for about in abouts {
        if !seen.insert(about) {
            continue;
        }
        let name = match entry_name(about) {
            Ok(name) => name,
            Err(why) => {
                selection.excluded.push((about.to_string(), why));
                continue;
            }
        };
        if selection.included.iter().any(|m| m.name == name) {
            continue;
        }
        let path = name.split('/').fold(dir.to_path_buf(), |p, s| p.join(s));
        let found = match (&root, path.canonicalize()) {
            (Some(root), Ok(real)) if !real.starts_with(root) => Err(Exclusion::Escapes),
            (Some(_), Ok(real)) if real.is_file() => Ok(()),
            _ => Err(Exclusion::NotFound),
        };
        match found {
            Ok(()) => selection.included.push(Media { name, path }),
            Err(why) => selection.excluded.push((about.to_string(), why)),
        }
    }
    selection
}

// ---------------------------------------------------------------- reading

/// Limits and rules for [`read_gedx_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// The most bytes of the main document read into memory
    /// ([`DEFAULT_MAX_DOCUMENT`]); a larger one is a
    /// [`GedxErrorKind::TooLarge`] error, whatever its entry claims.
    pub max_document: u64,
    /// The most bytes of the manifest read ([`DEFAULT_MAX_MANIFEST`]).
    pub max_manifest: u64,
    /// Whether the manifest must say `X-DC-conformsTo:
    /// http://gedcomx.org/file/v1` (the specification's requirement; the
    /// specification's own example lacks it). Default `true`.
    pub require_conformance: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_document: DEFAULT_MAX_DOCUMENT,
            max_manifest: DEFAULT_MAX_MANIFEST,
            require_conformance: true,
        }
    }
}

/// An entry of a GEDCOM X file other than its manifest and main document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name in the zip.
    pub name: String,
    /// Its `Content-Type` from the manifest, if the manifest gives one.
    pub content_type: Option<String>,
    /// Its size as the zip declares it (uncompressed).
    pub size: u64,
}

/// A GEDCOM X file read: the main document's bytes, the manifest, and the
/// other entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GedxDocument {
    /// The main document's entry name (`tree.json`).
    pub name: String,
    /// Its format, from its `Content-Type` (or its name's extension when
    /// the manifest has no section for it).
    pub format: Format,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The manifest.
    pub manifest: Manifest,
    /// The other entries (not the manifest, not the main document; no
    /// directories), in the archive's order.
    pub entries: Vec<Entry>,
}

/// The GEDCOM X format of a `Content-Type` (parameters ignored).
fn document_format(content_type: &str) -> Option<Format> {
    let t = content_type.split(';').next().unwrap_or("").trim();
    if t.eq_ignore_ascii_case(JSON_TYPE) {
        Some(Format::Json)
    } else if t.eq_ignore_ascii_case(XML_TYPE) {
        Some(Format::Xml)
    } else {
        None
    }
}

/// Reads a GEDCOM X file with the [default](ReadOptions::default) limits.
/// See [`read_gedx_with`].
///
/// # Errors
/// As [`read_gedx_with`].
pub fn read_gedx(input: impl Read + Seek) -> Result<GedxDocument, GedxError> {
    read_gedx_with(input, ReadOptions::default())
}

/// Reads a GEDCOM X file: its manifest, its main document into memory,
/// the list of its other entries (see the [module docs](self) for which
/// document is the main one).
///
/// # Errors
/// [`GedxErrorKind::NotZip`], [`Truncated`](GedxErrorKind::Truncated),
/// [`Corrupt`](GedxErrorKind::Corrupt),
/// [`Unsupported`](GedxErrorKind::Unsupported) for the archive;
/// [`NoManifest`](GedxErrorKind::NoManifest),
/// [`NotConformant`](GedxErrorKind::NotConformant),
/// [`NoDocument`](GedxErrorKind::NoDocument) for its content;
/// [`TooLarge`](GedxErrorKind::TooLarge) past `options`' limits;
/// [`Io`](GedxErrorKind::Io) when reading `input` fails.
pub fn read_gedx_with(
    mut input: impl Read + Seek,
    options: ReadOptions,
) -> Result<GedxDocument, GedxError> {
    let mut archive = open_zip(&mut input).map_err(|e| match e.kind() {
        GedzipErrorKind::NotZip => GedxError::new(
            GedxErrorKind::NotZip,
            "not a GEDCOM X file: not a zip archive",
        ),
        _ => e.into(),
    })?;

    let Some(index) = archive.index_for_name(MANIFEST) else {
        return Err(GedxError::new(
            GedxErrorKind::NoManifest,
            format!("not a GEDCOM X file: no {MANIFEST} entry"),
        ));
    };
    let bytes = read_entry(&mut archive, index, MANIFEST, options.max_manifest)?;
    let manifest = Manifest::parse(&String::from_utf8_lossy(&bytes));
    if options.require_conformance && !manifest.conforms() {
        let said: Vec<_> = manifest
            .main
            .iter()
            .filter(|f| f.name.eq_ignore_ascii_case("X-DC-conformsTo"))
            .map(|f| f.value.as_str())
            .collect();
        let message = match said.is_empty() {
            true => {
                format!("not a GEDCOM X file: its manifest has no `X-DC-conformsTo: {CONFORMS_TO}`")
            }
            false => format!(
                "not a GEDCOM X file: its manifest conforms to {}, not {CONFORMS_TO}",
                said.join(", ")
            ),
        };
        return Err(GedxError::new(GedxErrorKind::NotConformant, message));
    }

    let present = |name: &str| archive.index_for_name(name).is_some();
    let documents: Vec<(&str, Format)> = manifest
        .resources()
        .filter_map(|(name, t)| Some((name, t.map_or(Some(Format::Json), document_format)?)))
        .filter(|(name, _)| present(name))
        .collect();
    let chosen = documents
        .iter()
        .find(|(name, _)| *name == "tree.json")
        .or(documents.first())
        .map(|&(n, f)| (n.to_string(), f))
        .or_else(|| {
            [("tree.json", Format::Json), ("tree.xml", Format::Xml)]
                .into_iter()
                .find(|(n, _)| present(n))
                .map(|(n, f)| (n.to_string(), f))
        });
    let Some((name, format)) = chosen else {
        return Err(GedxError::new(
            GedxErrorKind::NoDocument,
            "GEDCOM X file without a document: no manifest section typed \
             application/x-gedcomx-v1+json or +xml names an entry, and there is no tree.json",
        ));
    };
    let index = archive
        .index_for_name(&name)
        .ok_or_else(|| GedxError::new(GedxErrorKind::NoDocument, format!("no entry {name}")))?;
    let bytes = read_entry(&mut archive, index, &name, options.max_document)?;

    let entries = gedzip::entries(&mut archive, |n| n == MANIFEST || n == name)?
        .into_iter()
        .map(|e| Entry {
            content_type: manifest.content_type(&e.name).map(str::to_string),
            name: e.name,
            size: e.size,
        })
        .collect();
    Ok(GedxDocument {
        name,
        format,
        bytes,
        manifest,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn manifest_lines_are_cut_at_72_bytes_and_joined_back() {
        let long = format!("photos/{}é{}.jpg", "a".repeat(70), "b".repeat(80));
        let text = manifest_text("tree.json", JSON_TYPE, &[(&long, "image/jpeg")]);
        for line in text.split("\r\n") {
            assert!(line.len() <= LINE_BYTES, "{line:?}");
        }
        let parsed = Manifest::parse(&text);
        assert_eq!(parsed.content_type(&long), Some("image/jpeg"));
        assert_eq!(parsed.content_type("tree.json"), Some(JSON_TYPE));
        assert!(parsed.conforms());
        assert_eq!(parsed.main_field("manifest-version"), Some("1.0"));
    }

    #[test]
    fn manifest_parsing_follows_the_header_rules() {
        // The specification's example (no conformsTo), LF endings, extra blank lines,
        // a field name in another case, a value after several spaces.
        let text = "X-DC-created: 2013-05-17T12:31:14\n\n\nName: tree.json\ncontent-type:   \
                    application/x-gedcomx-v1+json\n\nName: images/alma-birth-\n certificate.jpg\n\
                    Content-Type: image/jpeg\n";
        let m = Manifest::parse(text);
        assert_eq!(m.main_field("x-dc-created"), Some("2013-05-17T12:31:14"));
        assert!(!m.conforms());
        let resources: Vec<_> = m.resources().collect();
        assert_eq!(
            resources,
            [
                ("tree.json", Some(JSON_TYPE)),
                ("images/alma-birth-certificate.jpg", Some("image/jpeg"))
            ]
        );
        // A manifest that starts with a resource has an empty main section.
        let m = Manifest::parse("Name: a.json\r\n");
        assert!(m.main.is_empty());
        assert_eq!(m.resources().collect::<Vec<_>>(), [("a.json", None)]);
    }

    #[test]
    fn about_values_become_entry_names_or_exclusions() {
        assert_eq!(entry_name("./images/a.jpg"), Ok("images/a.jpg".into()));
        assert_eq!(entry_name("images\\b%20c.png"), Ok("images/b c.png".into()));
        assert_eq!(entry_name("http://x.org/a.jpg"), Err(Exclusion::Url));
        assert_eq!(entry_name("file:///tmp/a.jpg"), Err(Exclusion::Url));
        assert_eq!(entry_name("C:\\photos\\a.jpg"), Err(Exclusion::Absolute));
        assert_eq!(entry_name("d:photo.jpg"), Err(Exclusion::Absolute));
        assert_eq!(entry_name("/tmp/a.jpg"), Err(Exclusion::Absolute));
        assert_eq!(entry_name("\\\\server\\a.jpg"), Err(Exclusion::Absolute));
        assert_eq!(entry_name("a/../../b.jpg"), Err(Exclusion::Escapes));
        assert_eq!(entry_name("%2E%2E/b.jpg"), Err(Exclusion::Escapes));
        assert_eq!(entry_name("META-INF/MANIFEST.MF"), Err(Exclusion::Reserved));
        assert_eq!(entry_name("tree.json"), Err(Exclusion::Reserved));
        assert_eq!(entry_name("a%0Ab.jpg"), Err(Exclusion::Unusable));
    }

    #[test]
    fn every_media_type_is_a_type_slash_subtype_and_extensions_are_unique() {
        let mut seen = HashSet::new();
        for (ext, t, _) in MEDIA_TYPES {
            assert!(seen.insert(ext), "{ext} twice");
            assert_eq!(*ext, ext.to_ascii_lowercase());
            let (top, sub) = t.split_once('/').expect("type/subtype");
            assert!(!top.is_empty() && !sub.is_empty(), "{t}");
            assert_eq!(media_type(&format!("x.{}", ext.to_uppercase())), Some(*t));
        }
    }

    #[test]
    fn bad_media_names_are_refused_before_anything_is_written() {
        for name in [
            "/abs.jpg",
            "a/../b.jpg",
            "META-INF/x",
            "tree.json",
            "",
            "a//b.jpg",
            "a\nb",
        ] {
            let media = [Media {
                name: name.into(),
                path: "Cargo.toml".into(),
            }];
            let err = write_gedx(
                Cursor::new(Vec::new()),
                &mut &b"{}"[..],
                Format::Json,
                &media,
            )
            .unwrap_err();
            assert_eq!(err.kind(), GedxErrorKind::InvalidName, "{name}: {err}");
        }
    }

    #[test]
    fn the_document_limit_holds_whatever_the_entry_declares() {
        let doc = vec![b' '; 10_000];
        let zip = write_gedx(Cursor::new(Vec::new()), &mut &doc[..], Format::Json, &[]).unwrap();
        let bytes = zip.into_inner();
        let options = ReadOptions {
            max_document: 9_999,
            ..ReadOptions::default()
        };
        let err = read_gedx_with(Cursor::new(&bytes), options).unwrap_err();
        assert_eq!(err.kind(), GedxErrorKind::TooLarge);
        let options = ReadOptions {
            max_document: 10_000,
            ..ReadOptions::default()
        };
        assert_eq!(
            read_gedx_with(Cursor::new(&bytes), options).unwrap().bytes,
            doc
        );
    }

    #[test]
    fn a_manifest_without_conformance_is_refused_unless_asked_not_to() {
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        let o = SimpleFileOptions::default();
        zip.start_file(MANIFEST, o).unwrap();
        zip.write_all(b"Manifest-Version: 1.0\r\n\r\nName: a.xml\r\nContent-Type: application/x-gedcomx-v1+xml\r\n")
            .unwrap();
        zip.start_file("a.xml", o).unwrap();
        zip.write_all(b"<gedcomx/>").unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let err = read_gedx(Cursor::new(&bytes)).unwrap_err();
        assert_eq!(err.kind(), GedxErrorKind::NotConformant);
        let lenient = ReadOptions {
            require_conformance: false,
            ..ReadOptions::default()
        };
        let doc = read_gedx_with(Cursor::new(&bytes), lenient).unwrap();
        assert_eq!((doc.name.as_str(), doc.format), ("a.xml", Format::Xml));
        assert_eq!(doc.bytes, b"<gedcomx/>");
    }
}
