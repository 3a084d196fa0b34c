//! GEDZIP (`.gdz`, feature `gedzip`): FamilySearch's zip archive of a
//! GEDCOM dataset, the entry `gedcom.ged`, with the media files its `FILE`
//! payloads name (GEDCOM 7 specification, "The FamilySearch GEDZIP file
//! format").
//!
//! [`read_gedzip`] gives `gedcom.ged`'s bytes, read into memory up to a
//! limit ([`DEFAULT_MAX_GEDCOM`], 4 GiB, or [`read_gedzip_with`]'s, so a zip
//! bomb stops with [`GedzipErrorKind::TooLarge`]), and the list of the
//! other entries; [`list_gedzip`] lists them without reading `gedcom.ged`.
//! Those bytes are read like a `.ged` file's ([`Input`](crate::Input),
//! [`Reader`](crate::Reader), [`Tree`](crate::Tree)). Bad input is an
//! error with a [`GedzipErrorKind`] (not a zip, cut short, damaged, no
//! `gedcom.ged`), never a panic. [`is_zip`] tells a zip archive by its
//! first bytes, for callers that must decide between a `.ged` and a `.gdz`.
//!
//! The zip reading itself (telling input that is no zip from an archive
//! cut short, bounded reads of an entry, the zip library's errors given a
//! kind) lives here and serves the GEDCOM X file format
//! (`gedcomx::gedx`) too.
//!
//! ```
//! use std::io::{Cursor, Write};
//! use gedcom_elf::gedzip::{read_gedzip, GedzipErrorKind};
//!
//! // A GEDZIP made with the zip crate: gedcom.ged and a photo.
//! let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
//! let options = zip::write::SimpleFileOptions::default();
//! zip.start_file("gedcom.ged", options)?;
//! zip.write_all(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n")?;
//! zip.start_file("photos/anna.jpg", options)?;
//! zip.write_all(b"\xff\xd8\xff")?;
//! let bytes = zip.finish()?.into_inner();
//!
//! let gdz = read_gedzip(Cursor::new(&bytes))?;
//! assert!(gdz.gedcom.starts_with(b"0 HEAD"));
//! assert_eq!(gdz.media[0].name, "photos/anna.jpg");
//! assert_eq!(gdz.media[0].size, 3);
//!
//! let err = read_gedzip(Cursor::new(b"0 HEAD\n0 TRLR\n")).unwrap_err();
//! assert_eq!(err.kind(), GedzipErrorKind::NotZip);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;

use crate::escape::{percent_decode, percent_encode};

use zip::result::ZipError;
use zip::ZipArchive;

/// The entry that holds the dataset.
pub const GEDCOM_ENTRY: &str = "gedcom.ged";

/// How much of `gedcom.ged` [`read_gedzip`] reads into memory: 4 GiB.
pub const DEFAULT_MAX_GEDCOM: u64 = 4 << 30;

/// The four bytes a zip archive's first entry starts with (`PK\3\4`).
pub const ZIP_SIGNATURE: &[u8; 4] = b"PK\x03\x04";

/// The signature of a zip archive's end record (`PK\5\6`; an empty
/// archive is nothing else).
const END_RECORD: &[u8; 4] = b"PK\x05\x06";

/// Whether `start` (the first bytes of an input) is the start of a zip
/// archive: a local file header, or the end record of an empty archive.
/// No GEDCOM file starts so.
///
/// ```
/// assert!(gedcom_elf::gedzip::is_zip(b"PK\x03\x04\x14\x00"));
/// assert!(!gedcom_elf::gedzip::is_zip(b"0 HEAD\n"));
/// ```
pub fn is_zip(start: &[u8]) -> bool {
    start.starts_with(ZIP_SIGNATURE) || start.starts_with(END_RECORD)
}

// ---------------------------------------------------------------- errors

/// What went wrong with an archive, for a caller to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GedzipErrorKind {
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
    /// No `gedcom.ged` entry.
    NoGedcom,
    /// An entry is larger than the limit.
    TooLarge,
    /// Reading the input failed.
    Io,
}

/// An error reading a GEDZIP (or another zip archive);
/// [`kind`](Self::kind) says which, the message says what.
#[derive(Debug)]
pub struct GedzipError {
    kind: GedzipErrorKind,
    message: String,
    source: Option<io::Error>,
}

impl GedzipError {
    pub(crate) fn new(kind: GedzipErrorKind, message: impl Into<String>) -> Self {
        GedzipError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    fn io(kind: GedzipErrorKind, message: impl Into<String>, source: io::Error) -> Self {
        GedzipError {
            kind,
            message: message.into(),
            source: Some(source),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> GedzipErrorKind {
        self.kind
    }

    /// The message, without the I/O error under it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error and its I/O source, taken apart (for an error type of
    /// another format built from this one).
    pub(crate) fn into_parts(self) -> (GedzipErrorKind, String, Option<io::Error>) {
        (self.kind, self.message, self.source)
    }
}

impl fmt::Display for GedzipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match &self.source {
            Some(e) => write!(f, ": {e}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for GedzipError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A zip library error while doing `what`, given its kind.
pub(crate) fn zip_error(what: &str, e: ZipError) -> GedzipError {
    use GedzipErrorKind as K;
    match e {
        ZipError::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => GedzipError::io(
            K::Truncated,
            format!("{what}: the zip archive ends too soon"),
            e,
        ),
        ZipError::Io(e) if e.kind() == io::ErrorKind::InvalidData => {
            GedzipError::io(K::Corrupt, format!("{what}: damaged zip data"), e)
        }
        ZipError::Io(e) => GedzipError::io(K::Io, what.to_string(), e),
        ZipError::InvalidArchive(m) => {
            GedzipError::new(K::Corrupt, format!("{what}: damaged zip archive ({m})"))
        }
        ZipError::UnsupportedArchive(m) => GedzipError::new(
            K::Unsupported,
            format!("{what}: unsupported zip archive ({m})"),
        ),
        ZipError::CompressionMethodNotSupported(m) => GedzipError::new(
            K::Unsupported,
            format!("{what}: compression method {m} is not supported (only stored and deflate)"),
        ),
        ZipError::InvalidPassword => {
            GedzipError::new(K::Unsupported, format!("{what}: encrypted zip entry"))
        }
        ZipError::FileNotFound => GedzipError::new(K::Corrupt, format!("{what}: entry not found")),
        other => GedzipError::new(K::Corrupt, format!("{what}: {other}")),
    }
}

// ---------------------------------------------------------------- zip reading

/// Opens `input` as a zip archive, telling input that is no zip at all
/// ([`NotZip`](GedzipErrorKind::NotZip)) from an archive cut short
/// ([`Truncated`](GedzipErrorKind::Truncated)) or damaged.
pub(crate) fn open_zip<R: Read + Seek>(mut input: R) -> Result<ZipArchive<R>, GedzipError> {
    let (head, has_end) = sniff(&mut input)
        .map_err(|e| GedzipError::io(GedzipErrorKind::Io, "reading the zip archive", e))?;
    match ZipArchive::new(input) {
        Ok(archive) => Ok(archive),
        Err(_) if !is_zip(&head) && !has_end => Err(GedzipError::new(
            GedzipErrorKind::NotZip,
            "not a zip archive",
        )),
        Err(_) if !has_end => Err(GedzipError::new(
            GedzipErrorKind::Truncated,
            "truncated zip archive: it starts as one but its end (the central directory) is missing",
        )),
        Err(e) => Err(zip_error("reading the zip archive", e)),
    }
}

/// The input's first four bytes, and whether its last 64 KiB and some
/// (the end record and the longest comment) hold a whole end record (an
/// archive cut short has lost it). Leaves `input` at its start.
fn sniff<R: Read + Seek>(input: &mut R) -> io::Result<([u8; 4], bool)> {
    let len = input.seek(SeekFrom::End(0))?;
    input.seek(SeekFrom::Start(0))?;
    let mut head = [0; 4];
    let n = input.by_ref().take(4).read(&mut head)?;
    if n < 4 {
        head = [0; 4];
    }
    let tail = len.min(65_535 + 22);
    input.seek(SeekFrom::Start(len - tail))?;
    let mut buf = Vec::with_capacity(tail as usize);
    input.by_ref().take(tail).read_to_end(&mut buf)?;
    input.seek(SeekFrom::Start(0))?;
    // A whole end record: its signature, 18 more bytes, and its comment.
    let has_end = (0..buf.len().saturating_sub(21)).any(|p| {
        let comment = usize::from(u16::from_le_bytes([buf[p + 20], buf[p + 21]]));
        buf[p..p + 4] == *END_RECORD && p + 22 + comment <= buf.len()
    });
    Ok((head, has_end))
}

/// Reads entry `index` (named `name`) whole, refusing more than `limit`
/// bytes whatever its header declares.
pub(crate) fn read_entry<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    index: usize,
    name: &str,
    limit: u64,
) -> Result<Vec<u8>, GedzipError> {
    let what = format!("reading {name}");
    let mut file = archive.by_index(index).map_err(|e| zip_error(&what, e))?;
    let too_large = || {
        GedzipError::new(
            GedzipErrorKind::TooLarge,
            format!("{name} is larger than the limit of {limit} bytes"),
        )
    };
    if file.size() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(file.size().min(limit).min(1 << 24) as usize);
    (&mut file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| zip_error(&what, ZipError::Io(e)))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// An entry of an archive that was listed, not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name in the zip (a `/`-separated path).
    pub name: String,
    /// Its size as the zip declares it (uncompressed).
    pub size: u64,
}

/// The files of `archive` (no directories) but those `skip` refuses, in
/// the archive's order.
pub(crate) fn entries<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    skip: impl Fn(&str) -> bool,
) -> Result<Vec<Entry>, GedzipError> {
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let file = archive
            .by_index_raw(i)
            .map_err(|e| zip_error("reading the zip directory", e))?;
        let name = String::from_utf8_lossy(file.name_raw()).into_owned();
        if file.is_dir() || skip(&name) {
            continue;
        }
        out.push(Entry {
            name,
            size: file.size(),
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------- GEDZIP

/// A GEDZIP read: the dataset's bytes and the other entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gedzip {
    /// The bytes of `gedcom.ged`.
    pub gedcom: Vec<u8>,
    /// The other entries (the media files), in the archive's order.
    pub media: Vec<Entry>,
}

/// Reads a GEDZIP: `gedcom.ged` into memory (at most
/// [`DEFAULT_MAX_GEDCOM`] bytes) and the list of the other entries.
///
/// # Errors
/// [`GedzipErrorKind::NotZip`], [`Truncated`](GedzipErrorKind::Truncated),
/// [`Corrupt`](GedzipErrorKind::Corrupt),
/// [`Unsupported`](GedzipErrorKind::Unsupported) for the archive;
/// [`NoGedcom`](GedzipErrorKind::NoGedcom) without `gedcom.ged`;
/// [`TooLarge`](GedzipErrorKind::TooLarge) past the limit;
/// [`Io`](GedzipErrorKind::Io) when reading `input` fails.
pub fn read_gedzip(input: impl Read + Seek) -> Result<Gedzip, GedzipError> {
    read_gedzip_with(input, DEFAULT_MAX_GEDCOM)
}

/// [`read_gedzip`] with a limit of `max_gedcom` bytes on `gedcom.ged`.
///
/// # Errors
/// As [`read_gedzip`].
pub fn read_gedzip_with(input: impl Read + Seek, max_gedcom: u64) -> Result<Gedzip, GedzipError> {
    let mut archive = open_zip(input)?;
    let index = gedcom_index(&archive)?;
    let gedcom = read_entry(&mut archive, index, GEDCOM_ENTRY, max_gedcom)?;
    let media = entries(&mut archive, |n| n == GEDCOM_ENTRY)?;
    Ok(Gedzip { gedcom, media })
}

/// The entries of a GEDZIP other than `gedcom.ged` (which must be there),
/// without reading any.
///
/// # Errors
/// As [`read_gedzip`], but for the size of `gedcom.ged`.
pub fn list_gedzip(input: impl Read + Seek) -> Result<Vec<Entry>, GedzipError> {
    let mut archive = open_zip(input)?;
    gedcom_index(&archive)?;
    entries(&mut archive, |n| n == GEDCOM_ENTRY)
}

fn gedcom_index<R: Read + Seek>(archive: &ZipArchive<R>) -> Result<usize, GedzipError> {
    archive.index_for_name(GEDCOM_ENTRY).ok_or_else(|| {
        GedzipError::new(
            GedzipErrorKind::NoGedcom,
            format!("not a GEDZIP file: no {GEDCOM_ENTRY} entry"),
        )
    })
}

// ---------------------------------------------------------------- paths

/// Where a `FILE` payload points, as GEDZIP sees it ([`classify_path`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilePath {
    /// A URL with a scheme (`https:`, `ftp:`, `file:`, ...): left as it is.
    Url,
    /// An absolute local path (`/photos/a.jpg`, `C:\photos\a.jpg`,
    /// `\\host\share`): left as it is, never put in an archive.
    Absolute,
    /// A relative path that climbs out of its directory (a `..` segment),
    /// or has a query or fragment: no archive entry can be it.
    Outside,
    /// A local file: the candidate zip entry names, most likely first (a
    /// name without percent-escapes decoded, so not percent-escaped).
    Local(Vec<String>),
}

/// Whether a `FILE` payload is a URL, an absolute path, or a local file
/// and then which zip entry names it may mean. `legacy` is for a 5.5.1
/// payload, a plain file name: a backslash separates directories, and the
/// name as written is tried before its percent-escapes decoded; a 7.0
/// payload (`legacy` false) is a URL reference, its escapes decoded.
/// `.` segments and empty ones are dropped.
///
/// ```
/// use gedcom_elf::gedzip::{classify_path, FilePath};
///
/// let local = |n: &[&str]| FilePath::Local(n.iter().map(|s| s.to_string()).collect());
/// assert_eq!(classify_path("media/Bront%C3%AB.jpg", false), local(&["media/Brontë.jpg"]));
/// assert_eq!(classify_path("photos\\a%201.jpg", true), local(&["photos/a%201.jpg", "photos/a 1.jpg"]));
/// assert_eq!(classify_path("https://example.com/a.jpg", false), FilePath::Url);
/// assert_eq!(classify_path("C:\\photos\\a.jpg", true), FilePath::Absolute);
/// assert_eq!(classify_path("../a.jpg", false), FilePath::Outside);
/// ```
pub fn classify_path(payload: &str, legacy: bool) -> FilePath {
    let syntax = match legacy {
        true => PathSyntax::Gedcom551,
        false => PathSyntax::Gedcom7,
    };
    match entry_names(payload, syntax) {
        Ok(names) => FilePath::Local(names),
        Err(NoEntry::Absolute) => FilePath::Absolute,
        Err(NoEntry::Url) => FilePath::Url,
        Err(NoEntry::Outside | NoEntry::Empty | NoEntry::Unusable) => FilePath::Outside,
    }
}

/// How the text of a media path is read by [`entry_names`]: the one rule
/// from a path to a zip entry name, which GEDZIP ([`classify_path`]) and
/// the GEDCOM X file (`gedcomx::gedx`, an `about` value) share. What the
/// variants differ in is listed here, and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathSyntax {
    /// A GEDCOM 7 `FILE` payload, a URL reference: a `?`, `#` or `\`
    /// (written or escaped) makes it [`NoEntry::Outside`]; the name is the
    /// payload with its escapes decoded.
    Gedcom7,
    /// A GEDCOM 5.5.1 `FILE` payload, a plain file name: `\` separates
    /// directories, and the name as written is tried before the one with
    /// its escapes decoded.
    Gedcom551,
    /// A GEDCOM X `about` value (a `FILE` payload of either version, not
    /// rewritten in the document): `\` separates directories, the escapes
    /// decoded; decoded, it may not begin with `/` or `\` either
    /// ([`NoEntry::Absolute`]), and the name it gives may not begin with a
    /// scheme, a single letter's (`c:x`) included ([`NoEntry::Url`]): the
    /// `about` is the entry's reference as it stands, unescaped, where a
    /// GEDZIP payload is rewritten with its `:` escaped ([`file_path_of`]).
    GedxAbout,
}

/// Why a media path names no zip entry ([`entry_names`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoEntry {
    /// A drive letter (`C:`) or a `/` or `\` first.
    Absolute,
    /// A URL scheme first (`https:`).
    Url,
    /// A `..` segment (or, in 7.0, a query, a fragment or a `\`).
    Outside,
    /// Nothing but separators and `.` segments.
    Empty,
    /// Control characters (a line break, a tab) in every name it may mean.
    Unusable,
}

/// The zip entry names a media path may mean, most likely first (relative,
/// `/`-separated, with no empty, `.` or `..` segment, no control
/// character), or why it means none. `syntax` says how its text is read.
pub(crate) fn entry_names(payload: &str, syntax: PathSyntax) -> Result<Vec<String>, NoEntry> {
    let b = payload.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if drive || payload.starts_with(['/', '\\']) {
        return Err(NoEntry::Absolute);
    }
    if has_scheme(payload, false) {
        return Err(NoEntry::Url);
    }
    let decoded = percent_decode(payload);
    match syntax {
        PathSyntax::Gedcom7 if payload.contains(['?', '#', '\\']) || decoded.contains('\\') => {
            return Err(NoEntry::Outside);
        }
        PathSyntax::GedxAbout if decoded.starts_with(['/', '\\']) => {
            return Err(NoEntry::Absolute);
        }
        _ => {}
    }
    let texts: &[&str] = match syntax {
        PathSyntax::Gedcom551 => &[payload, &decoded],
        PathSyntax::Gedcom7 | PathSyntax::GedxAbout => &[&decoded],
    };
    let mut names: Vec<String> = Vec::new();
    let mut unusable = false;
    for text in texts {
        let mut parts = Vec::new();
        for part in text.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." => return Err(NoEntry::Outside),
                p => parts.push(p),
            }
        }
        let name = parts.join("/");
        if name.chars().any(char::is_control) {
            unusable = true;
        } else if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    if syntax == PathSyntax::GedxAbout && names.iter().any(|n| has_scheme(n, true)) {
        return Err(NoEntry::Url);
    }
    match (names.is_empty(), unusable) {
        (false, _) => Ok(names),
        (true, true) => Err(NoEntry::Unusable),
        (true, false) => Err(NoEntry::Empty),
    }
}

/// The 7.0 `FILE` payload that names zip entry `name`: each segment
/// percent-escaped but for letters, digits and `-._~` (`media/Brontë
/// 1.jpg` is `media/Bront%C3%AB%201.jpg`).
///
/// ```
/// assert_eq!(gedcom_elf::gedzip::file_path_of("media/Brontë 1.jpg"), "media/Bront%C3%AB%201.jpg");
/// ```
pub fn file_path_of(name: &str) -> String {
    name.split('/')
        .map(percent_encode)
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether `s` starts with a URI scheme (`https:`); a single letter (`C:`,
/// which may be a Windows drive) counts only when `one_letter` says so.
pub(crate) fn has_scheme(s: &str, one_letter: bool) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut bytes = scheme.bytes();
    (one_letter || scheme.len() > 1)
        && bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

// ---------------------------------------------------------------- media

/// Where the media files a dataset names are looked for: the directory
/// of the input file, or the GEDZIP archive it came from (or nowhere).
/// [`contains`](Self::contains) is a pure lookup, safe from any thread;
/// [`copy`](Self::copy) reads a file.
pub struct MediaFiles {
    inner: MediaInner,
}

type Archive = ZipArchive<Box<dyn ReadSeek>>;

/// What an archive of media is read from.
pub trait ReadSeek: Read + Seek + Send + Sync {}
impl<T: Read + Seek + Send + Sync> ReadSeek for T {}

enum MediaInner {
    None,
    Directory {
        dir: PathBuf,
        root: Option<PathBuf>,
    },
    Archive {
        archive: Box<Archive>,
        names: HashSet<String>,
    },
}

impl fmt::Debug for MediaFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            MediaInner::None => f.write_str("MediaFiles::None"),
            MediaInner::Directory { dir, .. } => write!(f, "MediaFiles::Directory({dir:?})"),
            MediaInner::Archive { names, .. } => {
                write!(f, "MediaFiles::Archive({} entries)", names.len())
            }
        }
    }
}

impl MediaFiles {
    /// No media anywhere: every local path is missing.
    pub fn none() -> Self {
        MediaFiles {
            inner: MediaInner::None,
        }
    }

    /// The files in `dir` and below it (a name whose real path, symbolic
    /// links followed, leaves `dir` is not there).
    pub fn directory(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        let root = dir.canonicalize().ok();
        MediaFiles {
            inner: MediaInner::Directory { dir, root },
        }
    }

    /// The entries of the GEDZIP (or any zip) archive `input`, but its
    /// `gedcom.ged`.
    ///
    /// # Errors
    /// As [`read_gedzip`], for the archive.
    pub fn archive(input: impl ReadSeek + 'static) -> Result<Self, GedzipError> {
        let mut archive = open_zip(Box::new(input) as Box<dyn ReadSeek>)?;
        let names = entries(&mut archive, |n| n == GEDCOM_ENTRY)?
            .into_iter()
            .map(|e| e.name)
            .collect();
        Ok(MediaFiles {
            inner: MediaInner::Archive {
                archive: Box::new(archive),
                names,
            },
        })
    }

    /// Whether there is a file named `name` (a `/`-separated relative
    /// path, as [`classify_path`] gives).
    pub fn contains(&self, name: &str) -> bool {
        match &self.inner {
            MediaInner::None => false,
            MediaInner::Archive { names, .. } => names.contains(name),
            MediaInner::Directory { dir, root } => {
                let path = name.split('/').fold(dir.clone(), |p, s| p.join(s));
                match (root, path.canonicalize()) {
                    (Some(root), Ok(real)) => real.starts_with(root) && real.is_file(),
                    _ => false,
                }
            }
        }
    }

    /// The archive's entries (for a [`MediaFiles::archive`]; none for the
    /// others), sorted.
    pub fn names(&self) -> Vec<String> {
        match &self.inner {
            MediaInner::Archive { names, .. } => {
                let mut v: Vec<String> = names.iter().cloned().collect();
                v.sort();
                v
            }
            _ => Vec::new(),
        }
    }

    /// Copies file `name` into `out`.
    ///
    /// # Errors
    /// [`GedzipErrorKind::Io`] when it cannot be read (or is not there),
    /// or `out` fails; the archive's errors as [`read_gedzip`]'s.
    pub fn copy(&mut self, name: &str, out: &mut dyn io::Write) -> Result<u64, GedzipError> {
        let what = format!("copying media file {name}");
        match &mut self.inner {
            MediaInner::None => Err(GedzipError::new(GedzipErrorKind::Io, what)),
            MediaInner::Directory { dir, .. } => {
                let path = name.split('/').fold(dir.clone(), |p, s| p.join(s));
                let mut file = std::fs::File::open(&path)
                    .map_err(|e| GedzipError::io(GedzipErrorKind::Io, what.clone(), e))?;
                io::copy(&mut file, out).map_err(|e| GedzipError::io(GedzipErrorKind::Io, what, e))
            }
            MediaInner::Archive { archive, .. } => {
                let mut file = archive.by_name(name).map_err(|e| zip_error(&what, e))?;
                io::copy(&mut file, out).map_err(|e| zip_error(&what, ZipError::Io(e)))
            }
        }
    }
}

// ---------------------------------------------------------------- writing

/// Writes a GEDZIP archive: [`gedcom`](Self::gedcom) first (deflated,
/// zip64 so that it may pass 4 GiB), then media entries
/// ([`add`](Self::add), stored: media files are compressed already), then
/// [`finish`](Self::finish). Entries carry no time (1980-01-01), so the
/// same content gives the same bytes.
///
/// ```
/// use std::io::{Cursor, Write};
/// use gedcom_elf::gedzip::{read_gedzip, GedzipWriter};
///
/// let mut gdz = GedzipWriter::new(Cursor::new(Vec::new()));
/// gdz.gedcom()?.write_all(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n")?;
/// gdz.add("media/a.jpg", &mut &b"\xff\xd8"[..])?;
/// let bytes = gdz.finish()?.into_inner();
/// let back = read_gedzip(Cursor::new(bytes))?;
/// assert_eq!(back.media[0].name, "media/a.jpg");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GedzipWriter<W: io::Write + Seek> {
    zip: zip::ZipWriter<W>,
    names: HashSet<String>,
}

impl<W: io::Write + Seek> GedzipWriter<W> {
    /// An archive written into `out`.
    pub fn new(out: W) -> Self {
        GedzipWriter {
            zip: zip::ZipWriter::new(out),
            names: HashSet::new(),
        }
    }

    /// Starts the `gedcom.ged` entry and gives the writer of its bytes.
    ///
    /// # Errors
    /// [`GedzipErrorKind::Io`] when writing fails; `Corrupt` when it was
    /// started already.
    pub fn gedcom(&mut self) -> Result<&mut zip::ZipWriter<W>, GedzipError> {
        if !self.names.insert(GEDCOM_ENTRY.to_string()) {
            return Err(GedzipError::new(
                GedzipErrorKind::Corrupt,
                "gedcom.ged written twice",
            ));
        }
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        self.zip
            .start_file(GEDCOM_ENTRY, options)
            .map_err(|e| zip_error("writing gedcom.ged", e))?;
        Ok(&mut self.zip)
    }

    /// Adds entry `name` with the bytes of `data`.
    ///
    /// # Errors
    /// `Corrupt` for a name given twice or that is no relative path;
    /// [`GedzipErrorKind::Io`] when reading `data` or writing fails.
    pub fn add(&mut self, name: &str, data: &mut dyn Read) -> Result<u64, GedzipError> {
        self.start(name)?;
        io::copy(data, &mut self.zip)
            .map_err(|e| GedzipError::io(GedzipErrorKind::Io, format!("writing {name}"), e))
    }

    /// Adds entry `name` with the file `media` has as `source` (its name
    /// there, which is `name` but for a file renamed on the way).
    ///
    /// # Errors
    /// As [`add`](Self::add) and [`MediaFiles::copy`].
    pub fn add_from(
        &mut self,
        name: &str,
        source: &str,
        media: &mut MediaFiles,
    ) -> Result<u64, GedzipError> {
        self.start(name)?;
        media.copy(source, &mut self.zip)
    }

    fn start(&mut self, name: &str) -> Result<(), GedzipError> {
        let bad = name.is_empty()
            || name.starts_with('/')
            || name.contains('\\')
            || name
                .split('/')
                .any(|s| s.is_empty() || s == "." || s == "..");
        if bad || !self.names.insert(name.to_string()) {
            return Err(GedzipError::new(
                GedzipErrorKind::Corrupt,
                format!("{name}: not a relative path, or an entry named twice"),
            ));
        }
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(true);
        self.zip
            .start_file(name, options)
            .map_err(|e| zip_error(&format!("writing {name}"), e))
    }

    /// Whether entry `name` was written.
    pub fn has(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Writes the archive's directory and gives `out` back.
    ///
    /// # Errors
    /// [`GedzipErrorKind::Io`] when writing fails.
    pub fn finish(self) -> Result<W, GedzipError> {
        self.zip
            .finish()
            .map_err(|e| zip_error("writing the zip directory", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            zip.start_file(*name, deflated).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// The one path rule read three ways: what the syntaxes share, and
    /// each of the differences `PathSyntax` lists.
    #[test]
    fn entry_names_share_one_rule_and_differ_where_the_syntax_says() {
        use PathSyntax::{Gedcom551, Gedcom7, GedxAbout};
        let ok = |n: &[&str]| Ok(n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        for syntax in [Gedcom7, Gedcom551, GedxAbout] {
            assert_eq!(entry_names("./a//b/c.jpg", syntax), ok(&["a/b/c.jpg"]));
            assert_eq!(entry_names("C:\\x.jpg", syntax), Err(NoEntry::Absolute));
            assert_eq!(entry_names("/x.jpg", syntax), Err(NoEntry::Absolute));
            assert_eq!(entry_names("https://e.org/x", syntax), Err(NoEntry::Url));
            assert_eq!(entry_names("a/../../x", syntax), Err(NoEntry::Outside));
            assert_eq!(entry_names("./.", syntax), Err(NoEntry::Empty));
            assert_eq!(entry_names("a%0Ab", syntax).is_err(), syntax != Gedcom551);
        }
        // 5.5.1: `\` a separator, the name as written first.
        assert_eq!(
            entry_names("p\\a%201.jpg", Gedcom551),
            ok(&["p/a%201.jpg", "p/a 1.jpg"])
        );
        assert_eq!(entry_names("a%0Ab", Gedcom551), ok(&["a%0Ab"]));
        // 7.0: a URL reference; a `\`, query or fragment names no entry.
        assert_eq!(entry_names("p\\a.jpg", Gedcom7), Err(NoEntry::Outside));
        assert_eq!(entry_names("a.jpg?x", Gedcom7), Err(NoEntry::Outside));
        assert_eq!(entry_names("a%5Cb.jpg", Gedcom7), Err(NoEntry::Outside));
        assert_eq!(entry_names("a%0Ab", Gedcom7), Err(NoEntry::Unusable));
        // A GEDCOM X `about`: `\` a separator, escapes decoded, checked
        // again once decoded, and no scheme (one letter's too) in the name.
        assert_eq!(entry_names("p\\a%201.jpg", GedxAbout), ok(&["p/a 1.jpg"]));
        assert_eq!(entry_names("a.jpg?x", GedxAbout), ok(&["a.jpg?x"]));
        assert_eq!(entry_names("%2Fetc/x", GedxAbout), Err(NoEntry::Absolute));
        assert_eq!(entry_names("%2Fetc/x", Gedcom7), ok(&["etc/x"]));
        assert_eq!(entry_names("./c:x.jpg", GedxAbout), Err(NoEntry::Url));
        assert_eq!(entry_names("./c:x.jpg", Gedcom7), ok(&["c:x.jpg"]));
        assert_eq!(file_path_of("c:x.jpg"), "c%3Ax.jpg");
    }

    #[test]
    fn gedcom_ged_is_read_and_the_rest_listed() {
        let bytes = zip_of(&[
            ("a.jpg", b"12"),
            (GEDCOM_ENTRY, b"0 HEAD\n0 TRLR\n"),
            ("d/b.png", b"3"),
        ]);
        let gdz = read_gedzip(Cursor::new(&bytes)).unwrap();
        assert_eq!(gdz.gedcom, b"0 HEAD\n0 TRLR\n");
        let names: Vec<_> = gdz
            .media
            .iter()
            .map(|e| (e.name.as_str(), e.size))
            .collect();
        assert_eq!(names, [("a.jpg", 2), ("d/b.png", 1)]);
        assert_eq!(list_gedzip(Cursor::new(&bytes)).unwrap(), gdz.media);
    }

    #[test]
    fn errors_have_their_kinds() {
        let kind = |b: &[u8]| read_gedzip(Cursor::new(b)).unwrap_err().kind();
        assert_eq!(kind(b""), GedzipErrorKind::NotZip);
        assert_eq!(
            kind(&zip_of(&[("other.ged", b"0 HEAD\n")])),
            GedzipErrorKind::NoGedcom
        );
        let whole = zip_of(&[(GEDCOM_ENTRY, &[b'x'; 5000])]);
        assert_eq!(kind(&whole[..whole.len() - 1]), GedzipErrorKind::Truncated);
        let err = read_gedzip_with(Cursor::new(&whole), 4999).unwrap_err();
        assert_eq!(err.kind(), GedzipErrorKind::TooLarge);
        assert_eq!(
            read_gedzip_with(Cursor::new(&whole), 5000)
                .unwrap()
                .gedcom
                .len(),
            5000
        );
    }

    #[test]
    fn every_cut_is_truncated_and_changed_bytes_never_panic() {
        let ged = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NAME Ann /Lee/\n0 TRLR\n".repeat(20);
        let whole = zip_of(&[(GEDCOM_ENTRY, &ged), ("media/a.jpg", &[7; 300])]);
        for len in 0..whole.len() {
            let kind = read_gedzip(Cursor::new(&whole[..len])).unwrap_err().kind();
            let expected = match len {
                0..4 => GedzipErrorKind::NotZip,
                _ => GedzipErrorKind::Truncated,
            };
            assert_eq!(kind, expected, "cut at {len}");
        }
        // xorshift: bytes changed at random places give a result or an error.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut corrupt = 0;
        for _ in 0..2000 {
            let mut bytes = whole.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = next() as u8;
            }
            match read_gedzip(Cursor::new(&bytes)) {
                Ok(gdz) => assert_eq!(gdz.gedcom, ged),
                Err(e) => corrupt += usize::from(e.kind() == GedzipErrorKind::Corrupt),
            }
        }
        assert!(corrupt > 0);
    }
}
