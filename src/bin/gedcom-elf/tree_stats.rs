//! `gedcom-elf stats --tree`: builds the whole tree and reports its size,
//! so that its cost can be measured from outside.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::tree::Tree;

use crate::{fail, print_diagnostic, Input, Options};

pub fn run(opts: &Options, input: &Input) -> ExitCode {
    let prepared = match gedcom_elf::Input::with_encoding(&input.bytes, opts.encoding) {
        Ok(p) => p,
        Err(e) => return fail(&input.name, &e),
    };
    let started = Instant::now();
    let tree = match Tree::build(prepared.reader_with_config(opts.config())) {
        Ok(t) => t,
        Err(e) => return fail(&input.name, &e),
    };
    let elapsed = started.elapsed().as_secs_f64();
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    for (i, d) in tree.diagnostics().iter().enumerate() {
        if i < 20 {
            print_diagnostic(&input.name, d);
        }
        *kinds.entry(d.kind.id()).or_default() += 1;
    }
    let shown = tree.diagnostics().len() as u64 + tree.diagnostics_dropped();
    if shown > 20 {
        eprintln!("{}: ... and {} more diagnostics", input.name, shown - 20);
    }
    let bytes = prepared.bytes().len();
    let memory = tree.memory_bytes();
    println!("file:        {}", input.name);
    println!("bytes:       {}", input.bytes.len());
    println!("nodes:       {}", tree.len());
    println!("records:     {}", tree.record_count());
    println!("undef:       {}", tree.undefined_records().count());
    println!("schema:      {:?}", tree.schema().source());
    println!(
        "tree memory: {} bytes ({:.2}x the input, {:.1} bytes per node)",
        memory,
        memory as f64 / bytes.max(1) as f64,
        memory as f64 / tree.len().max(1) as f64
    );
    println!("diagnostics: {shown}");
    for (k, n) in &kinds {
        println!("  {k:<24} {n}");
    }
    if elapsed > 0.0 {
        println!(
            "build time:  {:.3} s ({:.1} MB/s)",
            elapsed,
            input.bytes.len() as f64 / 1e6 / elapsed
        );
    }
    ExitCode::SUCCESS
}
