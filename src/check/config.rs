//! What a check runs: which rules, and the plausibility thresholds.

use std::fmt;

use super::{rules, Rule};

/// The ages the `plausible.*` rules judge by, in years.
///
/// A date is a span (a year is its whole year; `BEF x` runs from the
/// beginning of time), and a rule fires only when every reading of the
/// dates breaks it: a father born `ABT 1800` and a child born `1805` is
/// reported (at most 6), one born `BEF 1800` is not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// A parent younger than this at a child's birth (default 12).
    pub min_parent_age: f64,
    /// A parent older than this at a child's birth (default 70).
    pub max_parent_age: f64,
    /// A mother (the family's `WIFE`) older than this at a child's birth
    /// (default 55).
    pub max_mother_age: f64,
    /// A person older than this at death, at their last dated event, or in
    /// an `AGE` payload (default 120).
    pub max_age: f64,
    /// A spouse younger than this at the marriage (default 12).
    pub min_marriage_age: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            min_parent_age: 12.0,
            max_parent_age: 70.0,
            max_mother_age: 55.0,
            max_age: 120.0,
            min_marriage_age: 12.0,
        }
    }
}

/// A rule id (or group) that names no rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRule(pub String);

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no rule or group is named '{}' (the rules: 'gedcom-elf check --list-rules')",
            self.0
        )
    }
}

impl std::error::Error for UnknownRule {}

/// The rules a [`Checker`](super::Checker) runs and its thresholds.
///
/// Defaults: every rule of [`rules()`], [`Thresholds::default`].
///
/// ```
/// use gedcom_elf::check::CheckConfig;
///
/// let config = CheckConfig::new().only(["link", "value.date"])?.skip(["link.one-sided"])?;
/// assert!(config.runs("link.missing-target"));
/// assert!(!config.runs("link.one-sided"));
/// assert!(!config.runs("structure.too-many"));
/// assert!(CheckConfig::new().skip(["no.such-rule"]).is_err());
/// # Ok::<(), gedcom_elf::check::UnknownRule>(())
/// ```
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Per rule of [`rules()`], in its order: whether it runs.
    on: Vec<bool>,
    thresholds: Thresholds,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig::new()
    }
}

impl CheckConfig {
    /// Every rule, the default thresholds.
    pub fn new() -> CheckConfig {
        CheckConfig {
            on: vec![true; rules().len()],
            thresholds: Thresholds::default(),
        }
    }

    /// Which rules `name` selects: the rule with that id, or every rule of
    /// the group (`link` or `link.*`).
    fn select(name: &str) -> Result<Vec<bool>, UnknownRule> {
        let group = name.strip_suffix(".*").unwrap_or(name);
        let picked: Vec<bool> = rules()
            .iter()
            .map(|r| r.id == name || r.id.split('.').next() == Some(group))
            .collect();
        if picked.iter().any(|&p| p) {
            Ok(picked)
        } else {
            Err(UnknownRule(name.to_string()))
        }
    }

    /// Runs only the rules named (ids or groups).
    ///
    /// # Errors
    /// A name that is neither a rule's id nor a group.
    pub fn only<I, S>(mut self, names: I) -> Result<CheckConfig, UnknownRule>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut on = vec![false; self.on.len()];
        for name in names {
            for (o, p) in on.iter_mut().zip(Self::select(name.as_ref())?) {
                *o |= p;
            }
        }
        for (o, keep) in self.on.iter_mut().zip(on) {
            *o &= keep;
        }
        Ok(self)
    }

    /// Does not run the rules named (ids or groups).
    ///
    /// # Errors
    /// A name that is neither a rule's id nor a group.
    pub fn skip<I, S>(mut self, names: I) -> Result<CheckConfig, UnknownRule>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for name in names {
            for (o, p) in self.on.iter_mut().zip(Self::select(name.as_ref())?) {
                *o &= !p;
            }
        }
        Ok(self)
    }

    /// Judges plausibility by `thresholds`.
    pub fn thresholds(mut self, thresholds: Thresholds) -> CheckConfig {
        self.thresholds = thresholds;
        self
    }

    /// The thresholds plausibility is judged by.
    pub fn limits(&self) -> &Thresholds {
        &self.thresholds
    }

    /// Whether the rule with this id runs.
    pub fn runs(&self, id: &str) -> bool {
        rules()
            .iter()
            .zip(&self.on)
            .any(|(r, &on)| on && r.id == id)
    }

    /// Whether `rule` runs.
    pub(crate) fn has(&self, rule: &Rule) -> bool {
        rules()
            .iter()
            .zip(&self.on)
            .any(|(r, &on)| on && std::ptr::eq(*r, rule))
    }

    /// Whether any rule of the group (`link`) runs.
    pub(crate) fn has_group(&self, group: &str) -> bool {
        rules()
            .iter()
            .zip(&self.on)
            .any(|(r, &on)| on && r.id.split('.').next() == Some(group))
    }

    /// Whether any rule of each group runs: structure, value, link,
    /// plausible.
    pub(crate) fn groups(&self) -> Groups {
        Groups {
            structure: self.has_group("structure"),
            value: self.has_group("value"),
            link: self.has_group("link"),
            plausible: self.has_group("plausible"),
        }
    }
}

/// Which groups of rules run (worked out once per check, not per record).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Groups {
    pub(crate) structure: bool,
    pub(crate) value: bool,
    pub(crate) link: bool,
    pub(crate) plausible: bool,
}
