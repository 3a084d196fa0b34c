//! Positions, diagnostics (recovered problems) and errors (reading stopped).

use std::collections::BTreeMap;
use std::fmt;

/// Where something is in the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// 1-based physical line number (every line break counts).
    pub line: u64,
    /// 0-based byte offset in the buffer that was read.
    pub byte: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.line)
    }
}

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input is suspicious or non-conformant, but its meaning is clear.
    Warning,
    /// The input is malformed; the reader recovered as the spec prescribes
    /// (for example by creating an `ERROR` structure). A strict reader stops.
    Error,
}

impl Severity {
    /// `"warning"` or `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! kinds {
    ($( $(#[$doc:meta])* $name:ident = $id:literal, $sev:ident; )*) => {
        /// What kind of problem a [`Diagnostic`] reports.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum DiagnosticKind { $( $(#[$doc])* $name, )* }

        impl DiagnosticKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [DiagnosticKind] = &[$(DiagnosticKind::$name),*];

            /// A stable kebab-case identifier, e.g. `"too-deep"`.
            pub fn id(self) -> &'static str {
                match self { $(DiagnosticKind::$name => $id,)* }
            }

            /// The kind's place in [`DiagnosticKind::ALL`] (and in
            /// [`ReadStats::diagnostics`](crate::ReadStats::diagnostics)).
            pub(crate) fn index(self) -> usize {
                self as usize
            }

            /// The severity diagnostics of this kind have.
            pub fn severity(self) -> Severity {
                match self { $(DiagnosticKind::$name => Severity::$sev,)* }
            }
        }
    };
}

kinds! {
    /// A line string that does not match the `Line` production (§4.1);
    /// it became an `ERROR` structure.
    UnparsableLine = "unparsable-line", Error;
    /// A line more than one level deeper than its previous level (§4.1);
    /// it became an `ERROR` structure with its substructures.
    TooDeep = "too-deep", Error;
    /// A line tagged `ERROR` in the input (an error line, §4.1.1).
    ErrorTag = "error-tag", Warning;
    /// A `CONT`/`CONC` line that is not an additional line of the structure
    /// before it (§4.5); it was read as a structure of its own.
    StrayContinuation = "stray-continuation", Warning;
    /// The input ends without a `TRLR` record.
    MissingTrlr = "missing-trlr", Warning;
    /// A `CONT`/`CONC` additional line carries an xref (seed §4.5 says it
    /// has none); the line was joined and the xref ignored.
    ContinuationXref = "continuation-xref", Warning;
    /// Lines follow the `TRLR` record.
    AfterTrlr = "after-trlr", Warning;
    /// A unicode escape (§5.3) whose code point is not a character; kept verbatim.
    InvalidUnicodeEscape = "invalid-unicode-escape", Warning;
    /// A payload is not valid in its character encoding; the bad bytes became U+FFFD
    /// (in a GEDCOM 7 document, which must be UTF-8, they were read as windows-1252).
    InvalidEncoding = "invalid-utf8", Warning;
    /// A payload holds CESU-8 surrogate pairs (§3.3); they were decoded.
    Cesu8 = "cesu-8", Warning;
    /// A payload holds a NUL byte.
    NulByte = "nul-byte", Warning;
    /// A payload holds a byte that its 7- or 8-bit encoding does not assign.
    UnmappedByte = "unmapped-byte", Warning;
    /// Something about the character encoding (for example a `CHAR` line
    /// that contradicts the byte-order mark).
    Encoding = "encoding", Warning;
    /// A pointer whose xref matches no xref_id, or more than one (seed
    /// §5.1); the tree resolves it to a synthetic `UNDEF` record.
    UnresolvedPointer = "unresolved-pointer", Warning;
    /// An xref_id given to more than one structure (seed §5.1).
    DuplicateXref = "duplicate-xref", Warning;
    /// A malformed or contradictory part of the HEAD's ELF schema or
    /// IRI dictionary (seed §6.2, §7); it was ignored or resolved as
    /// documented in [`crate::tree::schema`].
    Schema = "schema", Warning;
    /// A `CONC` line in a GEDCOM 7 document, which has no `CONC` (7.0 §1):
    /// it was not joined to the payload before it but kept as a structure
    /// of its own, a substructure like any other.
    ConcInGedcom7 = "conc-in-gedcom7", Warning;
    /// A line of a GEDCOM 7 document that 7.0's grammar does not allow
    /// but ELF's does (7.0 §1): whitespace before the level, a delimiter
    /// other than one space, lowercase letters in a tag. It was read as a
    /// 5.5.1 line is (the tag as written).
    Gedcom7Line = "gedcom7-line", Warning;
}

impl fmt::Display for DiagnosticKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A problem the reader recovered from. Reading goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// Where: the line the problem belongs to.
    pub position: Position,
    /// A lowercase description naming the problem.
    pub message: String,
}

/// The message of every [`DiagnosticKind::MissingTrlr`] diagnostic.
pub(crate) const MISSING_TRLR: &str = "missing trlr record at end of input";
/// The message of every [`DiagnosticKind::AfterTrlr`] diagnostic.
pub(crate) const AFTER_TRLR: &str = "line after the trlr record";

impl Diagnostic {
    /// The `missing-trlr` warning, at the last line string read.
    pub(crate) fn missing_trlr(position: Position) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::MissingTrlr,
            position,
            message: MISSING_TRLR.into(),
        }
    }

    /// The `after-trlr` warning, at the first line after the `TRLR` record.
    pub(crate) fn after_trlr(position: Position) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::AfterTrlr,
            position,
            message: AFTER_TRLR.into(),
        }
    }

    /// The severity of [`Diagnostic::kind`].
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Diagnostic {
    /// `line 12: error: ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: {}: {}",
            self.position.line,
            self.severity(),
            self.message
        )
    }
}

/// Why reading stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The first line string is not `0 HEAD` (seed §3.2): the input is not ELF/GEDCOM.
    NotGedcom,
    /// The character encoding named by the input or the caller is not supported.
    UnsupportedEncoding,
    /// Strict mode stopped at the first error-severity diagnostic of this kind.
    Strict(DiagnosticKind),
    /// Reading the underlying source failed.
    Io,
    /// A configured limit was exceeded (see the limit's documentation).
    Limit,
    /// A state that should not happen (a bug: please report it), such as a
    /// worker thread that is gone or a piece of input that was never read.
    Internal,
}

impl Error {
    /// An [`ErrorKind::Internal`] error: a state that should not happen.
    #[cold]
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Error::new(
            ErrorKind::Internal,
            None,
            format!("internal error: {}", message.into()),
        )
    }
}

/// An error that stopped reading. Small: a kind, a position and a message.
#[derive(Clone, Debug)]
pub struct Error {
    kind: ErrorKind,
    position: Option<Position>,
    message: String,
    source: Option<std::sync::Arc<std::io::Error>>,
}

impl Error {
    pub(crate) fn new(
        kind: ErrorKind,
        position: Option<Position>,
        message: impl Into<String>,
    ) -> Self {
        Error {
            kind,
            position,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn strict(d: &Diagnostic) -> Self {
        Error::new(
            ErrorKind::Strict(d.kind),
            Some(d.position),
            d.message.clone(),
        )
    }

    /// Adds `off` to the line of the position (a chunk read numbered from
    /// line 1).
    pub(crate) fn shift_line(&mut self, off: u64) {
        if let Some(p) = &mut self.position {
            p.line = p.line.saturating_add(off);
        }
    }

    /// The error with `off` added to its line number (saturating; an error
    /// without a position is returned as it is): for an error kept in a
    /// result of the hidden `for_each_relative`, which numbers each chunk's
    /// lines from 1 (the command-line tool's).
    #[doc(hidden)]
    #[must_use]
    pub fn with_line_offset(mut self, off: u64) -> Error {
        self.shift_line(off);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where, when it concerns a place in the input.
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// The lowercase message, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<crate::encoding::DetectError> for Error {
    /// An unsupported encoding named by the input (its `CHAR` line).
    fn from(e: crate::encoding::DetectError) -> Self {
        Error::new(
            ErrorKind::UnsupportedEncoding,
            Some(Position {
                line: e.line as u64,
                byte: 0,
            }),
            e.to_string(),
        )
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error {
            kind: ErrorKind::Io,
            position: None,
            message: format!("i/o error: {e}"),
            source: Some(std::sync::Arc::new(e)),
        }
    }
}

impl fmt::Display for Error {
    /// `line 3: not a gedcom file: ...`; the position is omitted when unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "line {}: {}", p.line, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as _)
    }
}

/// Structures an output could not carry as they were, per path of tags
/// (`INDI.SEX`) and reason: how many, and their first input lines. The
/// report of the GEDCOM X export (`gedcomx::NotConverted`) and of the
/// conversion between GEDCOM versions (`convert::NotCarried`).
///
/// ```
/// use gedcom_elf::diag::NotCarried;
///
/// let mut report = NotCarried::default();
/// report.add("INDI.SEX", "a value the target lacks", 12);
/// report.add("INDI.SEX", "a value the target lacks", 40);
/// let mut later = NotCarried::default();
/// later.add("FAM._X", "an extension", 90);
/// report.merge(later);
/// let entries: Vec<_> = report.entries().map(|e| (e.path, e.count, e.lines.to_vec())).collect();
/// assert_eq!(entries, [("FAM._X", 1, vec![90]), ("INDI.SEX", 2, vec![12, 40])]);
/// assert_eq!(report.total(), 3);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NotCarried {
    entries: BTreeMap<(String, &'static str), (u64, Vec<u64>)>,
    total: u64,
}

/// One path and reason of [`NotCarried`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotCarriedEntry<'a> {
    /// The tags from the record down (`INDI.SEX`), as in the input.
    pub path: &'a str,
    /// Why, and what became of it.
    pub reason: &'static str,
    /// How many structures.
    pub count: u64,
    /// Their first input lines (at most [`NotCarried::LINES`]).
    pub lines: &'a [u64],
}

impl NotCarried {
    /// Lines kept per path and reason.
    pub const LINES: usize = 5;
    /// Paths kept; beyond them, structures are only counted in the total.
    pub const PATHS: usize = 10_000;

    /// Counts one structure (with its substructures) at `path`, input
    /// line `line` (0: none, not kept).
    pub fn add(&mut self, path: impl Into<String>, reason: &'static str, line: u64) {
        self.total += 1;
        let key = (path.into(), reason);
        if self.entries.len() >= Self::PATHS && !self.entries.contains_key(&key) {
            return;
        }
        let (n, lines) = self.entries.entry(key).or_default();
        *n += 1;
        if lines.len() < Self::LINES && line > 0 {
            lines.push(line);
        }
    }

    /// Adds `later`'s counts (of the structures after these), as if each
    /// had been [`add`](NotCarried::add)ed here in turn.
    pub fn merge(&mut self, later: NotCarried) {
        self.total += later.total;
        for (key, (count, mut lines)) in later.entries {
            if self.entries.len() >= Self::PATHS && !self.entries.contains_key(&key) {
                continue;
            }
            let (n, kept) = self.entries.entry(key).or_default();
            *n += count;
            lines.truncate(Self::LINES - kept.len().min(Self::LINES));
            kept.append(&mut lines);
        }
    }

    /// Every structure counted.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// `true` when everything was carried.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The paths, sorted, with their reasons.
    pub fn entries(&self) -> impl Iterator<Item = NotCarriedEntry<'_>> {
        self.entries
            .iter()
            .map(|((path, reason), (count, lines))| NotCarriedEntry {
                path,
                reason,
                count: *count,
                lines,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_unique_ids() {
        let mut ids: Vec<_> = DiagnosticKind::ALL.iter().map(|k| k.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), DiagnosticKind::ALL.len());
    }

    #[test]
    fn display_names_the_line() {
        let d = Diagnostic {
            kind: DiagnosticKind::TooDeep,
            position: Position { line: 7, byte: 40 },
            message: "too-deep line".into(),
        };
        assert_eq!(d.to_string(), "line 7: error: too-deep line");
        let e = Error::strict(&d);
        assert_eq!(e.kind(), ErrorKind::Strict(DiagnosticKind::TooDeep));
        assert_eq!(e.to_string(), "line 7: too-deep line");
    }
}
