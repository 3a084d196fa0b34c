//! `gedcom-elf`: the command-line tool over the public `gedcom_elf` API.
//!
//! One parser ([`cli`]), one way to stderr and to the exit status
//! ([`report`]), one way to write output ([`output`]), one way to read
//! input ([`drive`]); a module per command.
//!
//! Exit status: 0 done (recovered problems included), 1 `--strict` stopped
//! at an error, 2 could not read or write (not GEDCOM, unsupported
//! encoding, i/o, usage), 3 `get` found nothing.

mod check_cmd;
mod cli;
mod convert_cmd;
mod count_cmd;
mod drive;
mod edit_cmd;
mod events;
mod from_gedcomx_cmd;
mod gedcomx_cmd;
mod get_cmd;
mod json;
mod json_cmd;
mod output;
mod progress;
mod report;
mod rewrite_cmd;
mod stats;
mod table_cmd;
mod tree_cmd;
mod typing;

use std::io::Write;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind as ClapKind};
use clap::{CommandFactory, Parser};
use gedcom_elf::write::WriterConfig;

use cli::{Cli, Command, Settings};
use drive::Source;
use output::Output;
use report::Report;

/// Prints text for standard output (help, version, completions) and
/// commits it; a closed pipe is success.
fn print(text: &[u8]) -> ExitCode {
    let written = Output::print(|out| out.write_all(text));
    Report::new("gedcom-elf", &Settings::default()).finish(written)
}

fn main() -> ExitCode {
    output::on_interrupt();
    match Cli::try_parse_from(cli::hoist(std::env::args_os().collect())) {
        Ok(cli) => run(cli.command),
        Err(e) => usage(&e),
    }
}

/// A clap error: help and version go to standard output (status 0), a
/// usage error to stderr (status 2).
fn usage(e: &clap::Error) -> ExitCode {
    let text = match (e.kind(), e.get(ContextKind::InvalidSubcommand)) {
        (ClapKind::DisplayHelp | ClapKind::DisplayVersion, _) => {
            return print(e.to_string().as_bytes())
        }
        // `gedcom-elf FILE`: say so, rather than "unrecognized subcommand".
        (ClapKind::InvalidSubcommand, Some(ContextValue::String(file)))
            if std::path::Path::new(file).is_file() =>
        {
            format!(
                "error: '{file}' is a file, not a command: to read it, name a command \
                 first, e.g. 'gedcom-elf stats {file}'\n\nFor more information, try '--help'.\n"
            )
        }
        (ClapKind::InvalidSubcommand, _) => e.to_string(),
        // Without clap's tip for values that look like options: here an
        // option is never meant as a value.
        _ => {
            let arg = match e.get(ContextKind::InvalidArg) {
                Some(ContextValue::String(a)) => a.as_str(),
                _ => "",
            };
            let tip = format!("\n  tip: to pass '{arg}' as a value, use '-- {arg}'\n");
            e.to_string().replace(&tip, "")
        }
    };
    let _ = write!(std::io::stderr(), "{text}");
    ExitCode::from(2)
}

/// Runs `command`; with none, the demo: `stats` on the bundled sample.
fn run(command: Option<Command>) -> ExitCode {
    if let Some(Command::Check(args)) = &command {
        return check_cmd::run(args);
    }
    if let Some(Command::Table(args)) = &command {
        return table_cmd::run(args);
    }
    let (source, settings) = match command.as_ref().map(Command::settings) {
        None => (Source::Sample, Settings::default()),
        Some(Some(("-", settings))) => (Source::Stdin, settings),
        Some(Some((file, settings))) => (Source::File(file.into()), settings),
        Some(None) => {
            let mut text = Vec::new();
            if let Some(Command::Completions { shell }) = command {
                clap_complete::generate(shell, &mut Cli::command(), "gedcom-elf", &mut text);
            }
            return print(&text);
        }
    };
    let (mut report, s) = (Report::new(source.name(), &settings), &settings);
    let r = &mut report;
    let Some(command) = command else {
        let result = stats::run(s, &source, r);
        return report.finish(result);
    };
    let result = match command {
        Command::Events { types, .. } => events::run(s, &source, types, r),
        Command::Stats {
            list_media: true, ..
        } => stats::list_media(&source),
        Command::Stats { tree: true, .. } => tree_cmd::stats(s, &source, r),
        Command::Stats { .. } => stats::run(s, &source, r),
        Command::Count { .. } => count_cmd::run(s, &source, r),
        Command::Json { .. } => json_cmd::run(s, &source, r),
        Command::Gedcomx {
            format,
            pretty,
            keep_extensions,
            output,
            ..
        } => {
            let how = (format.as_str(), pretty, keep_extensions);
            gedcomx_cmd::run(s, &source, how, output.output.as_deref(), r)
        }
        Command::FromGedcomx { output, .. } => {
            from_gedcomx_cmd::run(s, &source, output.output.as_deref(), r)
        }
        Command::Get { xref, path, .. } => get_cmd::run(s, &source, &xref, path.as_deref(), r),
        Command::Edit { e } => edit_cmd::run(&source, e, r),
        Command::Fmt { w } => rewrite_cmd::run(s, &source, WriterConfig::new(), &w.output, r),
        Command::Convert {
            to_encoding: e,
            to_version: Some(v),
            line_ending: l,
            gdz,
            w,
            ..
        } => convert_cmd::run(s, &source, (v, e, l, gdz), &w.output, r),
        Command::Convert {
            to_encoding: e,
            line_ending: l,
            gdz,
            w,
            ..
        } => {
            let config = WriterConfig::new().line_ending(l);
            let config = match e {
                Some(e) => config.encoding(e),
                None => config,
            };
            match gdz {
                true => Err(convert_cmd::gdz_refused(None)),
                false => rewrite_cmd::run(s, &source, config, &w.output, r),
            }
        }
        Command::Completions { .. } | Command::Check(_) | Command::Table(_) => Ok(()),
    };
    report.finish(result)
}
