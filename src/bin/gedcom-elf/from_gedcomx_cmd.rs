//! `gedcom-elf from-gedcomx`: a GEDCOM X document (JSON, XML, or the
//! GEDCOM X file format `.gedx`) as GEDCOM 5.5.1 / ELF, through the
//! library's `gedcomx::import`.
//!
//! The document is read whole (GEDCOM X has no records to stream by), its
//! syntax taken from the file's extension (`.json`, `.xml`, `.gedx`) or,
//! failing that, from its first bytes (`{`, `<`, a zip's `PK`). The GEDCOM is written whole or
//! not at all; what it could not carry is listed on stderr, a warning each
//! (at its XML line, or naming its JSON path), the first [`SHOWN`] unless
//! `--all-warnings`, then a count.

use std::io::{self, Read};
use std::path::Path;

use gedcom_elf::gedcomx::import::{self, Issue, IssueKind, Location, Syntax};

use crate::cli::Settings;
use crate::drive::Source;
use crate::output::Output;
use crate::report::{Fail, Report, SHOWN};

/// The syntax a file's extension names, if it names one.
fn by_extension(path: &str) -> Option<Syntax> {
    let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "json" => Some(Syntax::Json),
        "xml" => Some(Syntax::Xml),
        "gedx" => Some(Syntax::Gedx),
        _ => None,
    }
}

/// `from-gedcomx FILE|- [-o OUT]`.
pub fn run(
    settings: &Settings,
    source: &Source,
    output: Option<&str>,
    report: &mut Report,
) -> Result<(), Fail> {
    let cannot_read = |e: io::Error| Fail::Other(format!("cannot read: {e}"));
    let (input, named) = match source {
        Source::File(path) => (
            std::fs::read(path).map_err(cannot_read)?,
            by_extension(path),
        ),
        Source::Stdin | Source::Sample => {
            let mut v = Vec::new();
            io::stdin()
                .lock()
                .read_to_end(&mut v)
                .map_err(cannot_read)?;
            (v, None)
        }
    };
    let (doc, mut issues) =
        import::read_as(&input, named).map_err(|e| Fail::Other(e.to_string()))?;
    // Written straight to the output: it replaces OUT only when committed.
    let mut out = Output::create(output)?;
    let written = import::to_gedcom(&doc, &mut out, &mut issues);
    if let Err(e) = written {
        out.check()?;
        return Err(Fail::Other(e.to_string()));
    }
    summarise(&issues, settings, report);
    out.commit()
}

/// A warning per issue (the first [`SHOWN`] unless `--all-warnings`), then
/// the counts.
fn summarise(issues: &[Issue], settings: &Settings, report: &Report) {
    let shown = if settings.diag.all_warnings {
        issues.len()
    } else {
        SHOWN as usize
    };
    for i in issues.iter().take(shown) {
        let what = match i.kind {
            IssueKind::NotImported => "not imported",
            IssueKind::Dangling => "dangling reference",
        };
        match &i.at {
            Location::Xml { line, path } => {
                report.warning_at(Some(*line), &format!("{what}: {path}: {}", i.message))
            }
            at => report.warning(&format!("{what}: {at}: {}", i.message)),
        }
    }
    if issues.len() > shown {
        report.note(&format!(
            "{} more not shown (--all-warnings shows them)",
            issues.len() - shown
        ));
    }
    let dangling = issues
        .iter()
        .filter(|i| i.kind == IssueKind::Dangling)
        .count();
    let lost = issues.len() - dangling;
    if lost > 0 {
        report.note(&format!(
            "{lost} propert{} of the GEDCOM X input not imported (no GEDCOM equivalent)",
            if lost == 1 { "y" } else { "ies" }
        ));
    }
    if dangling > 0 {
        report.note(&format!(
            "{dangling} reference{} to nothing in the document left out",
            if dangling == 1 { "" } else { "s" }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_syntax_whatever_its_case() {
        assert_eq!(by_extension("a.JSON"), Some(Syntax::Json));
        assert_eq!(by_extension("dir.x/a.xml"), Some(Syntax::Xml));
        assert_eq!(by_extension("a.gedx"), Some(Syntax::Gedx));
        assert!(by_extension("a.txt").is_none());
        assert!(by_extension("-").is_none());
    }
}
