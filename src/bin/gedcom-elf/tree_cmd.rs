//! What the tree adds to the commands: loading a whole input,
//! `stats --tree` (builds the tree and reports its size, so that its cost
//! can be measured from outside) and `events --types`.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::tree::{Schema, Tree, TypeResolver};

use crate::drive::FileBytes;
use crate::events::write_typed_event;
use crate::{fail, finish, print_diagnostic, Options};

/// The whole input: the bundled sample, standard input, or the file.
pub fn load(opts: &Options) -> Result<FileBytes, ExitCode> {
    let loaded = match (opts.bundled, opts.file.as_str()) {
        (Some(b), _) => Ok(FileBytes::Read(b.to_vec())),
        (None, "-") => {
            let mut v = Vec::new();
            io::stdin()
                .lock()
                .read_to_end(&mut v)
                .map(|_| FileBytes::Read(v))
        }
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

/// `stats --tree`.
pub fn stats(opts: &Options) -> ExitCode {
    let name = opts.name();
    with_input(opts, |prepared, file| {
        let started = Instant::now();
        let tree = match Tree::build(prepared.reader_with_config(opts.config())) {
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

/// `events --types`: the event stream with each typed begin's
/// `"type"` last. Sequential: types follow the superstructure chain.
pub fn events_with_types(opts: &Options) -> ExitCode {
    let name = opts.name();
    with_input(opts, |prepared, _file| {
        let mut reader = prepared.reader_with_config(opts.config());
        let mut types = match Schema::from_reader(reader.clone()) {
            Ok(s) => TypeResolver::new(s),
            Err(e) => return fail(&name, &e),
        };
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        let result = loop {
            let next = reader.next_event();
            for d in reader.drain_diagnostics() {
                print_diagnostic(&name, &d);
            }
            match next {
                Ok(Some(event)) => {
                    let ty = types.event(&event);
                    if let Err(e) = write_typed_event(&mut out, &event, ty) {
                        break Err(e.into());
                    }
                }
                Ok(None) => break Ok(Vec::new()),
                Err(e) => break Err(e),
            }
        };
        let flushed = out.flush();
        finish(&name, result, flushed)
    })
}
