//! `gedcom-elf check FILE...`: the library's `check::Checker` over each
//! file (mapped, in chunks on `--jobs` threads) or standard input
//! (streamed), findings as JSON Lines or text on stdout, a summary per file
//! on stderr.

use std::io::{self, Write};
use std::process::ExitCode;

use gedcom_elf::check::{rules, CheckConfig, Checker, Finding, Summary, Thresholds};
use gedcom_elf::par::Chunks;
use gedcom_elf::tree::Records;
use gedcom_elf::Input;

use crate::cli::{CheckArgs, ReadOpts, Settings};
use crate::drive::{Source, CHUNK};
use crate::json::{write_str, write_u64};
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{say, Fail, Report};

/// Writes one finding as a JSON object on a line (into a buffer: one
/// write to the output a finding, and there may be hundreds of thousands).
fn json(out: &mut Vec<u8>, file: &str, f: &Finding) -> io::Result<()> {
    out.write_all(b"{\"file\":")?;
    write_str(out, file)?;
    out.write_all(b",\"line\":")?;
    write_u64(out, f.line)?;
    // The keys with their quotes and colons, written as they are.
    for (key, value) in [
        (&b",\"record\":"[..], f.record.as_deref()),
        (b",\"path\":", Some(f.path.as_str())),
        (b",\"rule\":", Some(f.rule.id)),
        (b",\"severity\":", Some(f.severity().as_str())),
        (b",\"message\":", Some(f.message.as_str())),
        (b",\"text\":", f.text.as_deref()),
    ] {
        out.write_all(key)?;
        match value {
            Some(v) => write_str(out, v)?,
            None => out.write_all(b"null")?,
        }
    }
    out.write_all(b"}\n")
}

/// Writes one finding as `FILE:LINE: severity: [rule] message[: text]`.
fn text(out: &mut Vec<u8>, file: &str, f: &Finding) -> io::Result<()> {
    let (line, severity, rule) = (f.line, f.severity(), f.rule.id);
    write!(out, "{file}:{line}: {severity}: [{rule}] {}", f.message)?;
    match &f.text {
        Some(t) if !t.contains('\n') && !f.message.contains(t.as_str()) => writeln!(out, ": {t}"),
        _ => writeln!(out),
    }
}

/// The configuration the options ask for.
fn config(args: &CheckArgs) -> Result<CheckConfig, Fail> {
    let only = |c: CheckConfig| match args.rules.is_empty() {
        true => Ok(c),
        false => c.only(&args.rules),
    };
    let d = Thresholds::default();
    let config = only(CheckConfig::new()).and_then(|c| c.skip(&args.skip));
    Ok(config
        .map_err(|e| Fail::Other(e.to_string()))?
        .thresholds(Thresholds {
            min_parent_age: args.min_parent_age.unwrap_or(d.min_parent_age),
            max_parent_age: args.max_parent_age.unwrap_or(d.max_parent_age),
            max_mother_age: args.max_mother_age.unwrap_or(d.max_mother_age),
            max_age: args.max_age.unwrap_or(d.max_age),
            min_marriage_age: args.min_marriage_age.unwrap_or(d.min_marriage_age),
        }))
}

/// `check`: exit 0 when no file has an error finding, 1 when one has, 2
/// when a file could not be read (the others are checked) or the output
/// could not be written.
pub fn run(args: &CheckArgs) -> ExitCode {
    let settings = Settings {
        read: ReadOpts {
            strict: false,
            encoding: args.encoding.clone(),
            gedcom_version: None,
        },
        jobs: args.jobs.clone(),
        ..Settings::default()
    };
    let report = || Report::new("gedcom-elf", &settings);
    if args.list_rules {
        return report().finish(Output::print(|out| {
            rules().iter().try_for_each(|r| {
                let severity = r.severity.as_str();
                writeln!(out, "{:<30} {severity:<7} {}", r.id, r.description)
            })
        }));
    }
    let config = match config(args) {
        Ok(c) => c,
        Err(fail) => return report().finish(Err(fail)),
    };
    let (mut out, mut status) = (Output::stdout(), 0);
    for file in &args.files {
        let source = match file.as_str() {
            "-" => Source::Stdin,
            f => Source::File(f.into()),
        };
        let name = source.name();
        let report = Report::new(name.as_str(), &settings);
        match check(args, &config, &settings, (&source, &name), &mut out) {
            Ok(s) => {
                if !args.quiet {
                    let (e, w, r) = (s.errors, s.warnings, s.records);
                    let message = format!("{e} errors, {w} warnings in {r} records");
                    say(&name, None, "summary", &message);
                }
                status = status.max(u8::from(s.errors > 0));
            }
            Err(fail @ Fail::Output(..)) => return report.finish(Err(fail)),
            Err(fail) => {
                status = 2;
                let _ = report.finish(Err(fail));
            }
        }
    }
    match out.commit() {
        Ok(()) => ExitCode::from(status),
        Err(fail) => report().finish(Err(fail)),
    }
}

/// Checks one input (and the name findings give it), its findings
/// written to `out`.
fn check(
    args: &CheckArgs,
    config: &CheckConfig,
    settings: &Settings,
    (source, name): (&Source, &str),
    out: &mut Output,
) -> Result<Summary, Fail> {
    let write = if args.format == "text" { text } else { json };
    let reader_config = settings.config().encoding(settings.encoding());
    let (checker, jobs) = (Checker::new(config.clone()), settings.jobs());
    let mut line = Vec::new();
    let mut sink = |f: &Finding| {
        line.clear();
        write(&mut line, name, f)?;
        out.write_all(&line)
    };
    let result = if let Source::Stdin = source {
        let progress = Progress::new(None);
        let records = Records::with_config(progress.wrap(crate::drive::stdin()?), reader_config);
        let mut records = records.jobs(jobs);
        if let Some(n) = settings.jobs.chunk_bytes {
            records = records.batch_bytes(n);
        }
        checker.jobs(jobs).run(&mut records, &mut sink)
    } else {
        let bytes = source.load()?;
        let input = Input::with_encoding(&bytes, settings.encoding())?;
        let chunks = Chunks::new(&input, reader_config)?.jobs(jobs);
        let chunks = chunks.batch_bytes(settings.jobs.chunk_bytes.unwrap_or(CHUNK));
        let _progress = Progress::step(format!(
            "checking {:.1} MB",
            input.bytes().len() as f64 / 1e6
        ));
        checker.run_chunks(chunks, &mut sink)
    };
    result.map_err(|e| match e {
        gedcom_elf::check::RunError::Read(e) => Fail::Input(e),
        gedcom_elf::check::RunError::Sink(e) => out.fail(e),
    })
}
