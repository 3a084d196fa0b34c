//! The writer's configuration: [`WriterConfig`] and [`LineEnding`].

use crate::encoding::{Encoder, Encoding};
use crate::escape::EscapeTable;
use crate::version::Version;

/// The line terminator written after every line (seed §3.5: one form for the whole file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// U+000A, as on Unix, Linux and modern Mac OS. The default.
    #[default]
    Lf,
    /// U+000D U+000A, as on Windows.
    CrLf,
    /// U+000D, as on traditional Mac OS.
    Cr,
}

impl LineEnding {
    /// The terminator's characters.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }

    /// Looks a terminator up by name: `lf`, `crlf` or `cr` (case ignored).
    #[must_use]
    pub fn from_name(name: &str) -> Option<LineEnding> {
        match name.to_ascii_lowercase().as_str() {
            "lf" => Some(LineEnding::Lf),
            "crlf" => Some(LineEnding::CrLf),
            "cr" => Some(LineEnding::Cr),
            _ => None,
        }
    }
}

/// Configuration of a [`Writer`](crate::write::Writer). Build it with the chained setters;
/// [`WriterConfig::default`] documents each default. The getters are named for what
/// they give ([`WriterConfig::output_encoding`], [`WriterConfig::line_limit`], ...), the
/// setters for what they set, as in [`ReaderConfig`](crate::ReaderConfig).
///
/// ```
/// use gedcom_elf::Encoding;
/// use gedcom_elf::write::{LineEnding, WriterConfig};
///
/// let config = WriterConfig::new()
///     .encoding(Encoding::Ansel)
///     .line_ending(LineEnding::CrLf)
///     .max_line_bytes(80);
/// assert_eq!(config.output_encoding(), Encoding::Ansel);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriterConfig {
    pub(super) encoding: Encoding,
    pub(super) bom: Option<bool>,
    pub(super) line_ending: LineEnding,
    pub(super) max_line_bytes: usize,
    pub(super) escapes: EscapeTable,
    pub(super) set_head_char: bool,
    pub(super) headless: bool,
    pub(super) base_level: usize,
    pub(super) cr_is_line_break: bool,
    pub(super) version: Option<Version>,
}

impl Default for WriterConfig {
    /// * encoding: UTF-8 (seed §3.5: the recommended default);
    /// * byte-order mark: written for UTF-16 only (§3.5 recommends one for UTF-16 and
    ///   none for UTF-8);
    /// * line ending: [`LineEnding::Lf`];
    /// * line limit: 255 octets, level, tag and terminator included (§4.5);
    /// * escape-preserving tags: the default schema's (`DATE` preserves `D`); must agree
    ///   with the `ESC` lines of the `SCHMA` written, if any (see
    ///   [`Writer::begin_head`](crate::write::Writer::begin_head));
    /// * the `HEAD`'s `CHAR` line is the writer's, naming the output encoding: on;
    /// * headless output (no `HEAD` first): refused;
    /// * base level: 0 (records);
    /// * a CR in text is a line break (as are LF and CRLF);
    /// * version: GEDCOM 5.5.1 ([`Version::Gedcom551`]), except that a
    ///   [`Rewriter`](crate::write::Rewriter) given no version writes the input's.
    fn default() -> Self {
        WriterConfig {
            encoding: Encoding::Utf8,
            bom: None,
            line_ending: LineEnding::Lf,
            max_line_bytes: 255,
            escapes: EscapeTable::default(),
            set_head_char: true,
            headless: false,
            base_level: 0,
            cr_is_line_break: true,
            version: None,
        }
    }
}

impl WriterConfig {
    /// The default configuration.
    #[must_use]
    pub fn new() -> Self {
        WriterConfig::default()
    }

    /// The output encoding. Default UTF-8. Every [`Encoding`] this crate reads can be
    /// written; characters it lacks become unicode escapes.
    #[must_use]
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// Write a byte-order mark (`Some(true)`), never (`Some(false)`), or only for UTF-16
    /// (`None`, the default). Encodings without one ignore this.
    #[must_use]
    pub fn bom(mut self, bom: Option<bool>) -> Self {
        self.bom = bom;
        self
    }

    /// The line terminator. Default [`LineEnding::Lf`].
    #[must_use]
    pub fn line_ending(mut self, line_ending: LineEnding) -> Self {
        self.line_ending = line_ending;
        self
    }

    /// The most octets a line should take, level, tag and terminator included. Default
    /// 255. Text payloads are split with `CONC` to fit; a line that cannot be made to fit
    /// (a long xref, tag or pointer, or an escape longer than the room left) is written
    /// whole, the unit that does not fit on a line of its own.
    #[must_use]
    pub fn max_line_bytes(mut self, n: usize) -> Self {
        self.max_line_bytes = n;
        self
    }

    /// Which tags preserve which escapes (seed §5.2). Default: `DATE` preserves `D`.
    #[must_use]
    pub fn escapes(mut self, table: EscapeTable) -> Self {
        self.escapes = table;
        self
    }

    /// Make the `CHAR` line of the `HEAD` name the output encoding. Default `true`: a
    /// level-0 `HEAD` gets `1 CHAR <encoding>` as its first substructure (with `2 VERS
    /// 125N` or `2 VERS 850` where the encoding needs one: [`Encoding::vers`]), and the
    /// `CHAR` the caller writes directly under it gives way to that one:
    ///
    /// * its payload is replaced, and so is the payload of each `VERS` directly under it;
    /// * its other substructures, with their subtrees and in order, are written under
    ///   the writer's `CHAR`, after its `VERS` line if any, wherever the caller's `CHAR`
    ///   stood in the `HEAD`;
    /// * the substructures of its `VERS` go under the writer's `VERS` line, when there
    ///   is one;
    /// * what cannot be kept is left out and reported
    ///   ([`Writer::dropped`](crate::write::Writer::dropped),
    ///   [`DropReason`](crate::write::DropReason)): the substructures of a `VERS` when
    ///   there is no `VERS` line, an xref on the `CHAR` or a `VERS` (readers would not
    ///   recognise a `CHAR` or `VERS` line that has one), a `CONT` or `CONC` structure that
    ///   would become the writer's `CHAR`'s or `VERS`'s first substructure (readers would
    ///   take it for an additional line of it), a second `CHAR` under the same `HEAD`,
    ///   whole, and a structure that what moved or was left out before it makes too deep
    ///   for a reader (a substructure of an `ERROR`, `CONT` or `CONC` that follows: the
    ///   writer keeps track of the level the caller's own order of structures gives until
    ///   the two agree again, and refuses, as usual, what is too deep there too).
    ///
    /// Tags are compared without regard to case, as encoding detection does. The output
    /// of a `HEAD` is held in memory until its `CHAR` ends (or it ends), so that what
    /// moves can be moved.
    ///
    /// ```
    /// use gedcom_elf::Encoding;
    /// use gedcom_elf::write::{rewrite, WriterConfig};
    ///
    /// let input = b"0 HEAD\n1 SOUR x\n1 CHAR ANSI\n2 VERS 1250\n2 _NOTE kept\n3 _SUB too\n0 TRLR\n";
    /// let mut out = Vec::new();
    /// let stats = rewrite(input, None, WriterConfig::new().encoding(Encoding::Ascii), &mut out)?;
    /// assert_eq!(out, b"0 HEAD\n1 CHAR ASCII\n2 _NOTE kept\n3 _SUB too\n1 SOUR x\n0 TRLR\n");
    /// assert_eq!(stats.dropped_count, 0);
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    #[must_use]
    pub fn set_head_char(mut self, yes: bool) -> Self {
        self.set_head_char = yes;
        self
    }

    /// Allow output whose first structure is not a bare `HEAD` (a fragment this crate's
    /// reader reads only with `ReaderConfig::headless`). Default `false`.
    #[must_use]
    pub fn headless(mut self, yes: bool) -> Self {
        self.headless = yes;
        self
    }

    /// The level the writer's outermost structures are written at. Default 0: records.
    /// Above 0, for a fragment taken from inside a document, which needs
    /// [`headless`](Self::headless) (else its first structure is refused as not a
    /// `0 HEAD`): each structure is written at its level in that document;
    /// [`Writer::depth`](crate::write::Writer::depth) is that level (`level` before the
    /// first structure), [`Writer::write_event`](crate::write::Writer::write_event) takes
    /// the document's events as they are, and [`Writer::end`](crate::write::Writer::end)
    /// ends no more structures than were begun. The `CHAR` rule concerns a `HEAD` at
    /// level 0 only.
    ///
    /// ```
    /// use gedcom_elf::write::{WriteValue, Writer, WriterConfig};
    ///
    /// // A level-2 subtree, as it stands in its document, with no CONC line.
    /// let config = WriterConfig::new().headless(true).base_level(2).max_line_bytes(usize::MAX);
    /// let mut w = Writer::with_config(Vec::new(), config);
    /// w.begin("DATE", None, Some(WriteValue::Text("@#DJULIAN@ 1 MAR 1701")))?;
    /// w.leaf("NOTE", Some(WriteValue::Text("a@b\nsecond line")))?;
    /// w.end()?;
    /// assert!(w.end().is_err()); // nothing open at level 2
    /// assert_eq!(
    ///     w.finish()?,
    ///     b"2 DATE @#DJULIAN@ 1 MAR 1701\n3 NOTE a@@b\n4 CONT second line\n"
    /// );
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    #[must_use]
    pub fn base_level(mut self, level: usize) -> Self {
        self.base_level = level;
        self
    }

    /// Treat a CR (U+000D) in text, alone or before an LF, as a line break (`true`, the
    /// default: `"a\r\nb"` and `"a\rb"` give a `CONT` line like `"a\nb"`), or (`false`)
    /// only LF, a CR being written as the unicode escape `@#UD@ ` so that it reads back as
    /// a CR. Texts from a reader hold LF as their only line break, so
    /// [`rewrite`](crate::write::rewrite()) uses `false`.
    #[must_use]
    pub fn cr_is_line_break(mut self, yes: bool) -> Self {
        self.cr_is_line_break = yes;
        self
    }

    /// The GEDCOM version the output follows. Default [`Version::Gedcom551`] (a
    /// [`Rewriter`](crate::write::Rewriter) given none writes its input's version).
    /// [`Version::Gedcom7`] output (GEDCOM 7.0 §1.3 and §2):
    ///
    /// * is UTF-8 only: any other [`encoding`](Self::encoding) is refused at the first
    ///   structure ([`WriteErrorKind::UnsupportedEncoding`](crate::write::WriteErrorKind::UnsupportedEncoding));
    /// * has no line limit and no `CONC` lines ([`max_line_bytes`](Self::max_line_bytes)
    ///   is ignored); line breaks in text still become `CONT` lines, and a CR is always
    ///   one (7.0 cannot hold a CR otherwise);
    /// * doubles only an `@` that begins a line's payload (`escape::escape_leading_at_line`):
    ///   no escapes are preserved or written, and mid-text `@` signs stay single;
    /// * has no `CHAR` line: a `CHAR` directly under the `HEAD` is left out and reported
    ///   ([`DropReason::Gedcom7Char`](crate::write::DropReason::Gedcom7Char)), and
    ///   [`Writer::begin_head`](crate::write::Writer::begin_head) writes `GEDC.VERS 7.0`.
    ///
    /// ```
    /// use gedcom_elf::Version;
    /// use gedcom_elf::write::{WriteValue, Writer, WriterConfig};
    ///
    /// let mut w = Writer::with_config(Vec::new(), WriterConfig::new().version(Version::Gedcom7));
    /// w.begin("HEAD", None, None)?;
    /// w.end()?;
    /// w.begin("INDI", Some("@I1@"), None)?;
    /// w.leaf("EMAIL", Some(WriteValue::Text("ada@example.org")))?;
    /// w.leaf("NOTE", Some(WriteValue::Text("@home\nline two")))?;
    /// w.end()?;
    /// w.trailer()?;
    /// assert_eq!(
    ///     String::from_utf8(w.finish()?).unwrap(),
    ///     "0 HEAD\n0 @I1@ INDI\n1 EMAIL ada@example.org\n1 NOTE @@home\n2 CONT line two\n0 TRLR\n"
    /// );
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    #[must_use]
    pub fn version(mut self, version: Version) -> Self {
        self.version = Some(version);
        self
    }

    /// The GEDCOM version of the output (see [`version`](Self::version)).
    #[must_use]
    pub fn output_version(&self) -> Version {
        self.version.unwrap_or_default()
    }

    /// The version set with [`version`](Self::version), if one was.
    pub(super) fn version_set(&self) -> Option<Version> {
        self.version
    }

    /// The output encoding.
    #[must_use]
    pub fn output_encoding(&self) -> Encoding {
        self.encoding
    }

    /// The line terminator.
    #[must_use]
    pub fn output_line_ending(&self) -> LineEnding {
        self.line_ending
    }

    /// The line limit in octets.
    #[must_use]
    pub fn line_limit(&self) -> usize {
        self.max_line_bytes
    }

    /// The escape-preservation table.
    #[must_use]
    pub fn escape_table(&self) -> &EscapeTable {
        &self.escapes
    }

    /// Whether a byte-order mark is written.
    #[must_use]
    pub fn writes_bom(&self) -> bool {
        self.bom.unwrap_or(self.encoding.is_utf16())
            && !Encoder::new(self.encoding).bom().is_empty()
    }
}
