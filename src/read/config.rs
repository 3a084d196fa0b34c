//! [`ReaderConfig`]: every knob of the reader, with documented defaults.

use crate::encoding::Encoding;
use crate::payload::TrailingWhitespace;
use crate::version::Version;

/// Configuration of a [`Reader`](super::Reader). Build it with the chained
/// setters; [`ReaderConfig::default`] documents each default.
///
/// ```
/// use gedcom_elf::{ReaderConfig, TrailingWhitespace};
/// let config = ReaderConfig::new()
///     .strict(true)
///     .trailing_whitespace(TrailingWhitespace::Trim);
/// assert!(config.is_strict());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderConfig {
    /// `None`: the version's default (see [`ReaderConfig::default`]).
    pub(crate) trailing_whitespace: Option<TrailingWhitespace>,
    pub(crate) headless: bool,
    pub(crate) strict: bool,
    pub(crate) max_retained_diagnostics: usize,
    pub(crate) decomposed: bool,
    pub(crate) encoding: Option<Encoding>,
    pub(crate) version: Option<Version>,
}

impl Default for ReaderConfig {
    /// * trailing whitespace: [`TrailingWhitespace::KeepBeforeConc`] for
    ///   5.5.1, [`TrailingWhitespace::Keep`] for GEDCOM 7 (whose payloads keep
    ///   every character, trailing spaces included);
    /// * headless fragments: refused (the first line must be `0 HEAD`);
    /// * strict: off (errors are recovered and reported as diagnostics);
    /// * retained diagnostics: 10,000 not yet drained (the rest are counted);
    /// * decomposed text: off (text is NFC);
    /// * encoding: detected from the input (seed §3.1-§3.2);
    /// * version: detected from `HEAD.GEDC.VERS` ([`Version::from_vers`]).
    fn default() -> Self {
        ReaderConfig {
            trailing_whitespace: None,
            headless: false,
            strict: false,
            max_retained_diagnostics: 10_000,
            decomposed: false,
            encoding: None,
            version: None,
        }
    }
}

impl ReaderConfig {
    /// The default configuration.
    pub fn new() -> Self {
        ReaderConfig::default()
    }

    /// What to do with trailing whitespace on line strings.
    pub fn trailing_whitespace(mut self, rule: TrailingWhitespace) -> Self {
        self.trailing_whitespace = Some(rule);
        self
    }

    /// Read inputs that do not start with `0 HEAD` (fragments) instead of
    /// refusing them. Default `false`.
    pub fn headless(mut self, yes: bool) -> Self {
        self.headless = yes;
        self
    }

    /// Stop with an [`Error`](crate::Error) at the first error-severity
    /// diagnostic instead of recovering. Default `false`.
    pub fn strict(mut self, yes: bool) -> Self {
        self.strict = yes;
        self
    }

    /// How many diagnostics to keep while the caller does not drain them
    /// (see [`Reader::drain_diagnostics`](super::Reader::drain_diagnostics)).
    /// Further ones are only counted. Default 10,000.
    pub fn max_retained_diagnostics(mut self, n: usize) -> Self {
        self.max_retained_diagnostics = n;
        self
    }

    /// Keep combining characters decomposed rather than composing text to
    /// NFC (matters for ANSEL input). Default `false`.
    pub fn decomposed(mut self, yes: bool) -> Self {
        self.decomposed = yes;
        self
    }

    /// Read the input in `encoding`, in place of the detected and specified
    /// encodings. Default `None`: detect.
    pub fn encoding(mut self, encoding: Option<Encoding>) -> Self {
        self.encoding = encoding;
        self
    }

    /// Read the input as GEDCOM `version`, whatever its `HEAD.GEDC.VERS`
    /// says. Default `None`: the `HEAD` decides ([`Version::from_vers`];
    /// 5.5.1 when it says nothing). Forcing [`Version::Gedcom7`] on an input
    /// with no `CHAR` line and no byte-order mark also reads it as UTF-8.
    pub fn version(mut self, version: Option<Version>) -> Self {
        self.version = version;
        self
    }

    /// The trailing-whitespace rule for a document of `version`: the
    /// caller's, else the version's default.
    pub(crate) fn trailing_whitespace_for(&self, version: Version) -> TrailingWhitespace {
        self.trailing_whitespace.unwrap_or(match version {
            Version::Gedcom551 => TrailingWhitespace::KeepBeforeConc,
            Version::Gedcom7 => TrailingWhitespace::Keep,
        })
    }

    /// The caller's version, if one was set.
    pub fn forced_version(&self) -> Option<Version> {
        self.version
    }

    /// The caller's encoding, if one was set.
    pub fn forced_encoding(&self) -> Option<Encoding> {
        self.encoding
    }

    /// Whether strict mode is on.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Whether headless fragments are read.
    pub fn is_headless(&self) -> bool {
        self.headless
    }
}
