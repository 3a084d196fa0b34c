//! `stats --tree`: builds the whole tree and reports its size, so that its
//! cost can be measured from outside.
//!
//! The one command that needs the whole document at once: a tree holds
//! every record, and resolving pointers (UNDEF records for pointers that
//! match no xref_id, duplicate xref_ids) needs all of them. Standard input
//! is therefore read whole first. Every other command streams.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use gedcom_elf::par::Chunks;
use gedcom_elf::tree::Tree;
use gedcom_elf::Input;

use crate::cli::Settings;
use crate::drive::Source;
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{Fail, Report};

/// `stats --tree`.
pub fn stats(settings: &Settings, source: &Source, report: &mut Report) -> Result<(), Fail> {
    let file = source.load()?;
    let prepared = Input::with_encoding(&file[..], settings.encoding())?;
    let started = Instant::now();
    // The build is one library call that reports no progress, so the bar
    // shows the time it has taken.
    let progress = Progress::step(format!(
        "building the tree of {:.1} MB",
        prepared.bytes().len() as f64 / 1e6
    ));
    // Record-aligned chunks on --jobs threads; identical to `Tree::build`.
    let chunks = Chunks::new(&prepared, settings.config())?.jobs(settings.jobs());
    let tree = match settings.jobs.chunk_bytes {
        Some(bytes) => Tree::from_chunks(chunks.batch_bytes(bytes)),
        None => Tree::from_chunks(chunks),
    };
    drop(progress);
    let tree = tree?;
    let elapsed = started.elapsed().as_secs_f64();
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    report.diagnostics(tree.diagnostics());
    for d in tree.diagnostics() {
        *kinds.entry(d.kind.id()).or_default() += 1;
    }
    let total = tree.diagnostics().len() as u64 + tree.diagnostics_dropped();
    Output::print(|out| {
        let bytes = prepared.bytes().len();
        let memory = tree.memory_bytes();
        writeln!(out, "file:        {}", report.name)?;
        writeln!(out, "bytes:       {}", file.len())?;
        writeln!(out, "nodes:       {}", tree.len())?;
        writeln!(out, "records:     {}", tree.record_count())?;
        writeln!(out, "undef:       {}", tree.undefined_records().count())?;
        writeln!(out, "schema:      {:?}", tree.schema().source())?;
        writeln!(
            out,
            "tree memory: {} bytes ({:.2}x the input, {:.1} bytes per node)",
            memory,
            memory as f64 / bytes.max(1) as f64,
            memory as f64 / tree.len().max(1) as f64
        )?;
        writeln!(out, "diagnostics: {total}")?;
        for (k, n) in &kinds {
            writeln!(out, "  {k:<24} {n}")?;
        }
        if elapsed > 0.0 {
            writeln!(
                out,
                "build time:  {:.3} s ({:.1} MB/s)",
                elapsed,
                file.len() as f64 / 1e6 / elapsed
            )?;
        }
        Ok(())
    })
}
