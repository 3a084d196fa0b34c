//! `gedcom-elf check FILE...`: the library's `check::Checker` over each
//! file's records, findings as JSON Lines (or text) on stdout, a summary
//! per file on stderr.

use std::io::{self, Write};
use std::process::ExitCode;

use gedcom_elf::check::{rules, CheckConfig, Checker, Finding, RunError, Summary, Thresholds};
use gedcom_elf::par::Chunks;
use gedcom_elf::tree::Records;
use gedcom_elf::{Input, ReaderConfig};

use crate::cli::CheckArgs;
use crate::drive::{FileBytes, Tally, CHUNK};
use crate::json::{write_str, write_u64};
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{say, Fail};

/// Writes one finding as a JSON object on a line.
fn json(out: &mut Output, file: &str, f: &Finding) -> io::Result<()> {
    out.write_all(b"{\"file\":")?;
    write_str(out, file)?;
    out.write_all(b",\"line\":")?;
    write_u64(out, f.line)?;
    out.write_all(b",\"record\":")?;
    match &f.record {
        Some(r) => write_str(out, r)?,
        None => out.write_all(b"null")?,
    }
    for (key, value) in [
        ("path", f.path.as_str()),
        ("rule", f.rule.id),
        ("severity", f.severity().as_str()),
        ("message", &f.message),
    ] {
        write!(out, ",\"{key}\":")?;
        write_str(out, value)?;
    }
    out.write_all(b",\"text\":")?;
    match &f.text {
        Some(t) => write_str(out, t)?,
        None => out.write_all(b"null")?,
    }
    out.write_all(b"}\n")
}

/// Writes one finding as `FILE:LINE: severity: [rule] message`.
fn text(out: &mut Output, file: &str, f: &Finding) -> io::Result<()> {
    write!(
        out,
        "{file}:{}: {}: [{}] {}",
        f.line,
        f.severity(),
        f.rule.id,
        f.message
    )?;
    match &f.text {
        Some(t) if !t.contains('\n') && !f.message.contains(t.as_str()) => writeln!(out, ": {t}"),
        _ => writeln!(out),
    }
}

/// The configuration the options ask for.
fn config(args: &CheckArgs) -> Result<CheckConfig, String> {
    let mut config = CheckConfig::new();
    if !args.rules.is_empty() {
        config = config.only(&args.rules).map_err(|e| e.to_string())?;
    }
    let d = Thresholds::default();
    Ok(config
        .skip(&args.skip)
        .map_err(|e| e.to_string())?
        .thresholds(Thresholds {
            min_parent_age: args.min_parent_age.unwrap_or(d.min_parent_age),
            max_parent_age: args.max_parent_age.unwrap_or(d.max_parent_age),
            max_mother_age: args.max_mother_age.unwrap_or(d.max_mother_age),
            max_age: args.max_age.unwrap_or(d.max_age),
            min_marriage_age: args.min_marriage_age.unwrap_or(d.min_marriage_age),
        }))
}

/// `check`: exit 0 when no file has an error finding, 1 when one has, 2
/// when a file could not be read or the output could not be written.
pub fn run(args: &CheckArgs, jobs: usize) -> ExitCode {
    let mut out = Output::stdout();
    if args.list_rules {
        let listed = rules().iter().try_for_each(|r| {
            writeln!(
                out,
                "{:<30} {:<7} {}",
                r.id,
                r.severity.as_str(),
                r.description
            )
        });
        return finish(
            listed.map_err(|e| out.fail(e)).and_then(|()| out.commit()),
            0,
        );
    }
    let config = match config(args) {
        Ok(c) => c,
        Err(message) => {
            say("gedcom-elf", None, "error", &message);
            return ExitCode::from(2);
        }
    };
    let mut status = 0;
    for file in &args.files {
        let name = if file == "-" {
            "<stdin>"
        } else {
            file.as_str()
        };
        let result = check_one(args, &config, jobs, file, name, &mut out);
        match result {
            Ok(s) => {
                if !args.quiet {
                    let message = format!(
                        "{} errors, {} warnings in {} records",
                        s.errors, s.warnings, s.records
                    );
                    say(name, None, "summary", &message);
                }
                if s.errors > 0 {
                    status = status.max(1);
                }
            }
            Err(Fail::Input(e)) => {
                say(name, e.position().map(|p| p.line), "error", e.message());
                status = 2;
            }
            Err(f) => return finish(Err(f), status),
        }
    }
    finish(out.commit(), status)
}

/// The exit status: the output's failure, or `status`.
fn finish(result: Result<(), Fail>, status: u8) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(status),
        Err(Fail::Output { name, error }) if error.kind() == io::ErrorKind::BrokenPipe => {
            let _ = name;
            ExitCode::from(status)
        }
        Err(Fail::Output { name, error }) => {
            say(&name, None, "error", &format!("cannot write: {error}"));
            ExitCode::from(2)
        }
        Err(_) => ExitCode::from(2),
    }
}

/// Checks one file (mapped, in chunks on `jobs` threads) or standard
/// input (streamed, records inspected on `jobs` threads), its findings
/// written to `out`.
fn check_one(
    args: &CheckArgs,
    config: &CheckConfig,
    jobs: usize,
    file: &str,
    name: &str,
    out: &mut Output,
) -> Result<Summary, Fail> {
    let write = if args.format == "text" { text } else { json };
    let reader_config = ReaderConfig::new().encoding(args.encoding.encoding);
    let checker = Checker::new(config.clone()).jobs(jobs);
    let result = if file == "-" {
        let progress = Progress::new(None);
        let reader = Tally {
            inner: io::stdin().lock(),
            progress: &progress,
        };
        let records = Records::with_config(reader, reader_config).jobs(jobs);
        let mut records = match args.chunk_bytes {
            Some(n) => records.batch_bytes(n),
            None => records,
        };
        checker.run(&mut records, |f| write(out, name, f))
    } else {
        let bytes = FileBytes::open(file).map_err(|e| Fail::Input(e.into()))?;
        let input = Input::with_encoding(bytes.bytes(), args.encoding.encoding)?;
        let chunks = Chunks::new(&input, reader_config)?.jobs(jobs);
        let chunks = chunks.batch_bytes(args.chunk_bytes.unwrap_or(CHUNK));
        let progress = Progress::step(format!(
            "checking {:.1} MB",
            bytes.bytes().len() as f64 / 1e6
        ));
        let result = checker.run_chunks(chunks, |f| write(out, name, f));
        progress.finish();
        result
    };
    result.map_err(|e| match e {
        RunError::Read(e) => Fail::Input(e),
        RunError::Sink(e) => out.fail(e),
    })
}
