//! `gedcom-elf`: the command-line tool over the public `gedcom_elf` API.
//!
//! One parser ([`cli`]), one way to stderr and to the exit status
//! ([`report`]), one way to write output ([`output`]), one way to read
//! input ([`drive`]); a module per command.
//!
//! Exit status: 0 done (recovered problems included), 1 `--strict` stopped
//! at an error, 2 could not read or write (not GEDCOM, unsupported
//! encoding, i/o, usage), 3 `get` found nothing.

mod cli;
mod count_cmd;
mod drive;
mod edit_cmd;
mod events;
mod get_cmd;
mod json;
mod json_cmd;
mod output;
mod progress;
mod report;
mod rewrite_cmd;
mod stats;
mod tree_cmd;
mod typing;

use std::io::Write;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind as ClapKind};
use clap::Parser;
use gedcom_elf::edit::EditRules;
use gedcom_elf::write::WriterConfig;

use cli::{Cli, Command, Settings};
use drive::Source;
use output::Output;
use report::Report;

/// A small GEDCOM file bundled with the binary for the no-argument demo.
const SAMPLE: &[u8] = include_bytes!("../../../corpus/sample.ged");

/// Prints text for standard output (help, version, completions) and
/// commits it; a closed pipe is success.
fn print(text: &[u8]) -> ExitCode {
    let mut out = Output::stdout();
    let written = out.write_all(text).map_err(|e| out.fail(e));
    let settings = Settings::new();
    Report::new("gedcom-elf", &settings).finish(written.and_then(|()| out.commit()))
}

fn main() -> ExitCode {
    output::on_interrupt();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let Cli { global, command } = cli;
    let Some(mut command) = command else {
        // The demo: `stats` on the bundled sample, with the options given.
        let mut settings = Settings::new();
        settings.jobs = global.jobs.unwrap_or(settings.jobs);
        settings.strict = global.strict;
        settings.encoding = global.encoding;
        settings.quiet = global.quiet;
        settings.all_warnings = global.all_warnings;
        let source = Source::Bundled("corpus/sample.ged", SAMPLE);
        let mut report = Report::new(source.name(), &settings);
        let result = stats::run(&settings, &source, &mut report);
        return report.finish(result);
    };
    let settings = match command.settings(&global) {
        Ok(s) => s,
        Err(e) => return usage(&e),
    };
    run(command, &settings)
}

/// A clap error: help and version go to standard output (status 0), a
/// usage error to stderr (status 2).
fn usage(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ClapKind::DisplayHelp | ClapKind::DisplayVersion => print(e.to_string().as_bytes()),
        ClapKind::InvalidSubcommand => {
            // `gedcom-elf FILE`: say so, rather than "unrecognized subcommand".
            let file = match e.get(ContextKind::InvalidSubcommand) {
                Some(ContextValue::String(f)) if std::path::Path::new(f).is_file() => f,
                _ => {
                    let _ = write!(std::io::stderr(), "{e}");
                    return ExitCode::from(2);
                }
            };
            let _ = write!(
                std::io::stderr(),
                "error: '{file}' is a file, not a command: to read it, name a command \
                 first, e.g. 'gedcom-elf stats {file}'\n\nFor more information, try '--help'.\n"
            );
            ExitCode::from(2)
        }
        _ => {
            let _ = write!(std::io::stderr(), "{e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command, settings: &Settings) -> ExitCode {
    let (source, mut report) = match &command {
        Command::Completions { shell } => {
            let mut text = Vec::new();
            cli::completions(*shell, &mut text);
            return print(&text);
        }
        Command::Events { input, .. }
        | Command::Stats { input, .. }
        | Command::Count { input, .. }
        | Command::Json { input, .. }
        | Command::Get { input, .. }
        | Command::Edit { input, .. }
        | Command::Fmt { input, .. }
        | Command::Convert { input, .. } => {
            let source = Source::from_arg(&input.file);
            let report = Report::new(source.name(), settings);
            (source, report)
        }
    };
    let r = &mut report;
    let result = match command {
        Command::Events { types, .. } => events::run(settings, &source, types, r),
        Command::Stats { tree: true, .. } => tree_cmd::stats(settings, &source, r),
        Command::Stats { .. } => stats::run(settings, &source, r),
        Command::Count { .. } => count_cmd::run(settings, &source, r),
        Command::Json { .. } => json_cmd::run(settings, &source, r),
        Command::Get { xref, path, .. } => {
            get_cmd::run(settings, &source, &xref, path.as_deref(), r)
        }
        Command::Edit {
            drop_tag,
            rename_tag,
            output,
            ..
        } => {
            let mut rules = EditRules::new();
            for t in drop_tag {
                rules = rules.drop_tag(t);
            }
            for (old, new) in rename_tag {
                rules = rules.rename_tag(old, new);
            }
            let out = output.output.as_deref();
            edit_cmd::run(&source, settings.encoding, &rules, out, r)
        }
        Command::Fmt { output, .. } => {
            let out = output.output.as_deref();
            rewrite_cmd::run(settings, &source, WriterConfig::new(), out, r)
        }
        Command::Convert {
            to_encoding,
            line_ending,
            output,
            ..
        } => {
            let config = WriterConfig::new()
                .encoding(to_encoding)
                .line_ending(line_ending);
            rewrite_cmd::run(settings, &source, config, output.output.as_deref(), r)
        }
        Command::Completions { .. } => Ok(()),
    };
    report.finish(result)
}
