//! The GEDCOM version a document is read as: [`Version`], and the one rule
//! that turns a `HEAD.GEDC.VERS` payload into it ([`Version::from_vers`]).
//!
//! Encoding detection (a 7.0 file with no `CHAR` line and no byte-order mark
//! is UTF-8), the reader (its 7.0 payload rules) and `check` (its 7.0
//! tables) all decide the version here, so they never disagree.

use std::fmt;

/// Which GEDCOM a document is read (and checked) as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Version {
    /// GEDCOM 5.5.1 as clarified by ELF: every file that does not say it is
    /// 7 (5.5.5 and older versions included).
    #[default]
    Gedcom551,
    /// FamilySearch GEDCOM 7 (`HEAD.GEDC.VERS` 7.0, 7.0.x, 7.1, ...).
    Gedcom7,
}

impl Version {
    /// The version a `HEAD.GEDC.VERS` payload names: [`Version::Gedcom7`]
    /// for `7`, or `7.` followed by anything (7.0, 7.0.14, 7.1), surrounding
    /// whitespace ignored; [`Version::Gedcom551`] for everything else
    /// (5.5.1, 5.5.5, 5.5, 70, an empty payload).
    ///
    /// ```
    /// use gedcom_elf::Version;
    /// assert_eq!(Version::from_vers(b"7.0"), Version::Gedcom7);
    /// assert_eq!(Version::from_vers(b" 7.1 "), Version::Gedcom7);
    /// assert_eq!(Version::from_vers(b"5.5.5"), Version::Gedcom551);
    /// ```
    pub fn from_vers(vers: &[u8]) -> Version {
        match vers.trim_ascii() {
            [b'7'] | [b'7', b'.', ..] => Version::Gedcom7,
            _ => Version::Gedcom551,
        }
    }

    /// The version as `HEAD.GEDC.VERS` writes it: `5.5.1` or `7.0`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::Gedcom551 => "5.5.1",
            Version::Gedcom7 => "7.0",
        }
    }

    /// The version a name given by a person names (`5.5.1`, `551`, `5`,
    /// `7.0`, `7`, `70`, `7.1`, any case, with or without a `gedcom`
    /// before it); `None` for anything else.
    pub fn from_name(name: &str) -> Option<Version> {
        let n = name.trim().to_ascii_lowercase();
        let n = n.strip_prefix("gedcom").unwrap_or(&n).trim_start();
        match n {
            "5.5.1" | "551" | "5" | "5.5.5" => Some(Version::Gedcom551),
            "7" | "70" | "7.0" | "7.1" => Some(Version::Gedcom7),
            _ => None,
        }
    }

    /// Whether this is GEDCOM 7.
    pub fn is_gedcom7(self) -> bool {
        self == Version::Gedcom7
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vers_payloads() {
        for v in ["7.0", "7.0.1", "7.0.14", "7.1", "7", " 7.0\t"] {
            assert_eq!(Version::from_vers(v.as_bytes()), Version::Gedcom7, "{v}");
        }
        for v in ["5.5.1", "5.5.5", "5.5", "70", "7x", "", "V7.0", "17.0"] {
            assert_eq!(Version::from_vers(v.as_bytes()), Version::Gedcom551, "{v}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(Version::from_name("7.0"), Some(Version::Gedcom7));
        assert_eq!(Version::from_name("GEDCOM 7"), Some(Version::Gedcom7));
        assert_eq!(Version::from_name("5.5.1"), Some(Version::Gedcom551));
        assert_eq!(Version::from_name("6"), None);
        for v in [Version::Gedcom551, Version::Gedcom7] {
            assert_eq!(Version::from_name(v.as_str()), Some(v));
            assert_eq!(Version::from_vers(v.as_str().as_bytes()), v);
        }
    }
}
