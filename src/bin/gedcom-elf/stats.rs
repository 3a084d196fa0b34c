//! `gedcom-elf stats`: what a file holds, and how fast it was read.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use gedcom_elf::{DiagnosticKind, EncodingSource, Event};

use crate::{fail, print_diagnostic, Input, Options};

pub fn run(opts: &Options, input: &Input) -> ExitCode {
    if opts.tree {
        return crate::tree_stats::run(opts, input);
    }
    let prepared = match gedcom_elf::Input::with_encoding(&input.bytes, opts.encoding) {
        Ok(p) => p,
        Err(e) => return fail(&input.name, &e),
    };
    let started = Instant::now();
    let mut reader = prepared.reader_with_config(opts.config());
    let mut records: BTreeMap<String, u64> = BTreeMap::new();
    let mut shown = 0u32;
    let result = loop {
        let next = reader.next_event();
        for d in reader.drain_diagnostics() {
            // Show the first few; all are counted below.
            if shown < 20 {
                print_diagnostic(&input.name, &d);
            }
            shown += 1;
        }
        match next {
            Ok(Some(Event::Begin(b))) if b.level == 0 => match records.get_mut(b.tag.as_ref()) {
                Some(n) => *n += 1,
                None => {
                    records.insert(b.tag.into_owned(), 1);
                }
            },
            Ok(Some(_)) => {}
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    let elapsed = started.elapsed().as_secs_f64();
    if shown > 20 {
        eprintln!("{}: ... and {} more diagnostics", input.name, shown - 20);
    }
    if let Err(e) = result {
        return fail(&input.name, &e);
    }
    let stats = reader.stats();
    let mb = input.bytes.len() as f64 / 1e6;
    println!("file:        {}", input.name);
    println!("bytes:       {}", input.bytes.len());
    let info = reader.encoding_info();
    let how = match info.source {
        EncodingSource::Caller => "given with --encoding".to_string(),
        EncodingSource::ByteOrderMark => "from the byte-order mark".to_string(),
        EncodingSource::Sniffed => "sniffed from the first octets".to_string(),
        EncodingSource::CharLine => format!(
            "from the CHAR line {:?} (line {})",
            info.char_value.as_deref().unwrap_or(""),
            info.char_line.unwrap_or(0)
        ),
        _ => "the GEDCOM default (no CHAR line, no byte-order mark)".to_string(),
    };
    println!("encoding:    {} ({how})", info.encoding);
    if let Some(d) = info.detected {
        println!("  detected:  {d}");
    }
    if let Some(c) = &info.char_value {
        println!("  specified: CHAR {c}");
    }
    println!("lines:       {}", stats.lines);
    println!("structures:  {}", stats.structures);
    println!("max level:   {}", stats.max_level);
    println!("records:     {}", records.values().sum::<u64>());
    for (tag, n) in &records {
        println!("  {tag:<10} {n}");
    }
    let total: u64 = stats.diagnostics.iter().sum();
    println!("diagnostics: {total}");
    for kind in DiagnosticKind::ALL {
        let n = stats.count(*kind);
        if n > 0 {
            println!("  {:<24} {n} ({})", kind.id(), kind.severity());
        }
    }
    if elapsed > 0.0 {
        println!("time:        {:.3} s ({:.1} MB/s)", elapsed, mb / elapsed);
    }
    ExitCode::SUCCESS
}
