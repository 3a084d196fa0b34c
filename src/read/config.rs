//! [`ReaderConfig`]: every knob of the reader, with documented defaults.

use crate::payload::TrailingWhitespace;

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
    pub(crate) trailing_whitespace: TrailingWhitespace,
    pub(crate) headless: bool,
    pub(crate) strict: bool,
    pub(crate) max_retained_diagnostics: usize,
    pub(crate) decomposed: bool,
}

impl Default for ReaderConfig {
    /// * trailing whitespace: [`TrailingWhitespace::KeepBeforeConc`];
    /// * headless fragments: refused (the first line must be `0 HEAD`);
    /// * strict: off (errors are recovered and reported as diagnostics);
    /// * retained diagnostics: 10,000 not yet drained (the rest are counted);
    /// * decomposed text: off (text is NFC).
    fn default() -> Self {
        ReaderConfig {
            trailing_whitespace: TrailingWhitespace::KeepBeforeConc,
            headless: false,
            strict: false,
            max_retained_diagnostics: 10_000,
            decomposed: false,
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
        self.trailing_whitespace = rule;
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

    /// Whether strict mode is on.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Whether headless fragments are read.
    pub fn is_headless(&self) -> bool {
        self.headless
    }
}
