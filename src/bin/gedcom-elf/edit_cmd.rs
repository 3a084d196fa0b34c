//! `edit`: the byte-exact editor, whole or not at all into `-o OUT`.

use gedcom_elf::edit::{edit, EditError, EditRules};

use crate::cli::Editing;
use crate::drive::Source;
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{Fail, Report};

/// `edit`: drops and renames tags of `source`, every other octet copied.
/// The editor maps what it reads back to the original octets, so it works
/// on the whole input (standard input is read whole first).
pub fn run(source: &Source, e: Editing, report: &mut Report) -> Result<(), Fail> {
    let rules = EditRules {
        drop_tags: e.drop_tag,
        rename_tags: e.rename_tag,
    };
    source.check_gedcom_output(e.output.output.as_deref())?;
    let input = source.load()?;
    let mut out = Output::create(e.output.output.as_deref())?;
    let progress = Progress::new(Some(input.len() as u64));
    let edited = edit(&input[..], e.encoding.encoding, &mut out, |b| {
        progress.set(b.span.end as u64);
        rules.action(b)
    });
    drop(progress);
    let stats = edited.map_err(|e| match e {
        EditError::Read(e) => Fail::Input(e),
        EditError::Io(e) => out.fail(e),
        other => Fail::Other(other.to_string()),
    })?;
    out.commit()?;
    report.note(&format!(
        "{} structures, {} dropped, {} renamed",
        stats.structures, stats.dropped, stats.renamed
    ));
    if stats.read_errors > 0 {
        report.warning(&format!(
            "the input has {} reading error(s); its octets were copied as they are",
            stats.read_errors
        ));
    }
    Ok(())
}
