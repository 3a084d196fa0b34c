//! `stats --tree`: builds the whole tree and reports its size, so that its
//! cost can be measured from outside.
//!
//! The one command that needs the whole document at once: a tree holds
//! every record, and resolving pointers (UNDEF records for pointers that
//! match no xref_id, duplicate xref_ids) needs all of them. Standard input
//! is therefore read whole first. Every other command streams.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::tree::Tree;
use gedcom_elf::{Error, Input, ReaderConfig};

use crate::drive::{read_stdin, FileBytes, Progress};
use crate::{fail, print_diagnostic, Options};

/// The whole input: the bundled sample, standard input, or the file.
pub fn load(opts: &Options) -> Result<FileBytes, ExitCode> {
    let loaded = match (opts.bundled, opts.file.as_str()) {
        (Some(b), _) => Ok(FileBytes::Read(b.to_vec())),
        (None, "-") => read_stdin().map(FileBytes::Read),
        (None, f) => FileBytes::open(f),
    };
    loaded.map_err(|e| {
        eprintln!("{}: error: cannot read: {e}", opts.name());
        ExitCode::from(2)
    })
}

/// Loads the input named by `opts` and runs `f` on it, encoding decided.
/// Failures to read or to detect the encoding end the command here.
pub fn with_input(
    opts: &Options,
    f: impl FnOnce(&gedcom_elf::Input<'_>, &FileBytes) -> ExitCode,
) -> ExitCode {
    let file = match load(opts) {
        Ok(f) => f,
        Err(code) => return code,
    };
    match gedcom_elf::Input::with_encoding(file.bytes(), opts.encoding) {
        Ok(prepared) => f(&prepared, &file),
        Err(e) => fail(&opts.name(), &e),
    }
}

/// Builds the tree of the whole input on `jobs` threads (`--jobs`): the one
/// place a tree is built. The build is one library call that reports no progress, so the bar
/// shows the time it has taken.
pub fn build_tree<'a>(
    input: &'a Input<'_>,
    config: ReaderConfig,
    jobs: usize,
    chunk: Option<usize>,
) -> Result<Tree<'a>, Error> {
    let progress = Progress::step(format!(
        "building the tree of {} MB",
        input.bytes().len() / 1_000_000
    ));
    // Record-aligned chunks on `jobs` threads; identical to `Tree::build`.
    let tree = match chunk {
        Some(bytes) => Tree::build_parallel_chunked(input, config, jobs, bytes),
        None => Tree::build_parallel(input, config, jobs),
    };
    progress.finish();
    tree
}

/// `stats --tree`.
pub fn stats(opts: &Options) -> ExitCode {
    let name = opts.name();
    with_input(opts, |prepared, file| {
        let started = Instant::now();
        let tree = match build_tree(prepared, opts.config(), opts.jobs, opts.chunk) {
            Ok(t) => t,
            Err(e) => return fail(&name, &e),
        };
        let elapsed = started.elapsed().as_secs_f64();
        let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
        for (i, d) in tree.diagnostics().iter().enumerate() {
            if i < 20 {
                print_diagnostic(&name, d);
            }
            *kinds.entry(d.kind.id()).or_default() += 1;
        }
        let shown = tree.diagnostics().len() as u64 + tree.diagnostics_dropped();
        if shown > 20 {
            eprintln!("{name}: ... and {} more diagnostics", shown - 20);
        }
        let bytes = prepared.bytes().len();
        let memory = tree.memory_bytes();
        println!("file:        {name}");
        println!("bytes:       {}", file.bytes().len());
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
                file.bytes().len() as f64 / 1e6 / elapsed
            );
        }
        ExitCode::SUCCESS
    })
}
