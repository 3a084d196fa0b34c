//! The one way anything reaches stderr, and the exit status.
//!
//! Every message is `FILE:LINE: severity: message`, or `FILE: severity:
//! message` when no line applies. `FILE` is the input for reading
//! problems and the output (`<stdout>` or `-o`'s path) for writing ones.
//! A failure is printed once; warnings are hidden by `--quiet`; beyond the
//! first [`SHOWN`] diagnostics of a kind, a count (unless `--all-warnings`).
//! A failure to write to stderr itself is ignored: there is nowhere left to
//! say it.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use gedcom_elf::write::{Dropped, WriteError};
use gedcom_elf::{Diagnostic, Error, ErrorKind, Severity};

use crate::cli::Settings;

/// Diagnostics of one kind shown before the rest are only counted.
pub const SHOWN: u64 = 20;

/// Why a command stopped.
#[derive(Debug)]
pub enum Fail {
    /// Reading the input failed, or `--strict` stopped at an error.
    Input(Error),
    /// Writing the output (named) failed.
    Output(String, io::Error),
    /// The writer refused a structure of the input.
    Write(WriteError),
    /// `get` found nothing: the message.
    NotFound(String),
    /// Anything else that stopped the command (about the input): the message.
    Other(String),
}

impl Fail {
    /// The exit status: 1 for `--strict`, 3 for nothing found, 0 for a
    /// closed standard output (`| head`), 2 otherwise.
    pub fn status(&self) -> u8 {
        match self {
            Fail::Input(e) if matches!(e.kind(), ErrorKind::Strict(_)) => 1,
            Fail::Output(_, e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            Fail::NotFound(_) => 3,
            _ => 2,
        }
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Input(e)
    }
}

impl From<WriteError> for Fail {
    fn from(e: WriteError) -> Fail {
        Fail::Write(e)
    }
}

/// Prints one line to stderr.
pub fn say(name: &str, line: Option<u64>, severity: &str, message: &str) {
    let mut err = io::stderr().lock();
    let _ = match line {
        Some(l) => writeln!(err, "{name}:{l}: {severity}: {message}"),
        None => writeln!(err, "{name}: {severity}: {message}"),
    };
}

/// The diagnostics and the failure of one command's input.
pub struct Report {
    /// The input's name.
    pub name: String,
    quiet: bool,
    all: bool,
    /// Per kind: how many were shown, and how many more were not.
    kinds: BTreeMap<&'static str, (u64, u64)>,
    /// The last error printed, so that `--strict`'s error is not printed again.
    last_error: Option<(u64, String)>,
    /// Error diagnostics reported, printed or not.
    pub errors: u64,
}

impl Report {
    /// A report on the input called `name`.
    pub fn new(name: impl Into<String>, settings: &Settings) -> Report {
        Report {
            name: name.into(),
            quiet: settings.diag.quiet,
            all: settings.diag.all_warnings,
            kinds: BTreeMap::new(),
            last_error: None,
            errors: 0,
        }
    }

    /// Reports a diagnostic: printed, or counted for the summary.
    pub fn diagnostic(&mut self, d: &Diagnostic) {
        let error = d.severity() == Severity::Error;
        self.errors += u64::from(error);
        if self.quiet && !error {
            return;
        }
        let (shown, over) = self.kinds.entry(d.kind.id()).or_default();
        if !self.all && *shown >= SHOWN {
            *over += 1;
            return;
        }
        *shown += 1;
        say(
            &self.name,
            Some(d.position.line),
            d.severity().as_str(),
            &d.message,
        );
        if error {
            self.last_error = Some((d.position.line, d.message.clone()));
        }
    }

    /// Reports each diagnostic.
    pub fn diagnostics<'d>(&mut self, ds: impl IntoIterator<Item = &'d Diagnostic>) {
        for d in ds {
            self.diagnostic(d);
        }
    }

    /// A warning of the command's own about the input (hidden by `--quiet`).
    pub fn warning(&self, message: &str) {
        self.tell(None, "warning", message);
    }

    /// A warning of the command's own at a line of the input (hidden by
    /// `--quiet`).
    pub fn warning_at(&self, line: Option<u64>, message: &str) {
        self.tell(line, "warning", message);
    }

    /// A note (hidden by `--quiet`).
    pub fn note(&self, message: &str) {
        self.tell(None, "note", message);
    }

    /// A warning or a note of the command's own, at a line of the input or
    /// about it all (hidden by `--quiet`).
    fn tell(&self, line: Option<u64>, severity: &str, message: &str) {
        if !self.quiet {
            say(&self.name, line, severity, message);
        }
    }

    /// What a writer left out of the output: a warning each, at its input
    /// line, and a note for those only counted (hidden by `--quiet`).
    pub fn dropped(&self, listed: &[Dropped], count: u64) {
        for d in listed {
            let message = format!("{} left out of the output: {}", d.tag, d.reason);
            self.tell(d.line, "warning", &message);
        }
        let more = count.saturating_sub(listed.len() as u64);
        if more > 0 {
            self.tell(
                None,
                "note",
                &format!("{more} more structures left out of the output"),
            );
        }
    }

    /// The end of the command: the counts of diagnostics not shown (one
    /// line per kind), then the failure if there is one (printed once), and
    /// the exit status.
    pub fn finish(self, result: Result<(), Fail>) -> ExitCode {
        for (kind, (_, over)) in &self.kinds {
            if *over > 0 {
                let message =
                    format!("{over} more {kind} diagnostics not shown (--all-warnings shows them)");
                say(&self.name, None, "note", &message);
            }
        }
        let Err(fail) = result else {
            return ExitCode::SUCCESS;
        };
        match &fail {
            Fail::Input(e) => {
                let line = e.position().map(|p| p.line);
                let again = matches!(e.kind(), ErrorKind::Strict(_))
                    && line.is_some_and(|l| {
                        self.last_error.as_ref() == Some(&(l, e.message().to_string()))
                    });
                if !again {
                    say(&self.name, line, "error", e.message());
                }
            }
            Fail::Output(_, e) if e.kind() == io::ErrorKind::BrokenPipe => {}
            Fail::Output(name, e) => say(name, None, "error", &format!("cannot write: {e}")),
            Fail::Write(e) => say(&self.name, e.line(), "error", e.message()),
            Fail::NotFound(message) | Fail::Other(message) => {
                say(&self.name, None, "error", message)
            }
        }
        ExitCode::from(fail.status())
    }
}
