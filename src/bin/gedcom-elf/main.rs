//! `gedcom-elf`: the command-line tool over the public `gedcom_elf` API.
//!
//! Exit status: 0 when reading completes (recovered errors included), 1 in
//! `--strict` mode at the first error, 2 when reading ceases (not GEDCOM,
//! unsupported encoding, i/o error, bad usage).

mod convert_cmd;
mod count_cmd;
mod drive;
mod edit_cmd;
mod events;
mod fmt_cmd;
mod get_cmd;
mod json;
mod json_cmd;
mod stats;
mod tree_cmd;
mod typing;

use std::io;
use std::process::ExitCode;

use gedcom_elf::{Diagnostic, Encoding, Error, ErrorKind, ReaderConfig};

pub const USAGE: &str = "\
usage: gedcom-elf <command> [options] FILE

commands:
  events FILE   one JSON object per structure begin and end
  stats FILE    records per tag, lines, depth, encoding, diagnostics, speed
  count FILE    records, structures and lines, at full speed
  json FILE     one JSON object per record: nested children, types, line numbers
  get FILE XREF [PATH]
                the structures with xref_id XREF (or the nodes at PATH under
                them, e.g. BIRT.DATE) as GEDCOM text
  edit FILE [--drop-tag TAG]... [--rename-tag OLD=NEW]... [--encoding NAME] [-o OUT]
                change tags, copy every other octet as it is
  fmt FILE [--input-encoding NAME] [-o OUT]
                canonical form: UTF-8, LF, single spaces, CONC splits in 255 octets
  convert FILE --encoding NAME [--line-ending lf|crlf|cr] [--input-encoding NAME] [-o OUT]
                re-serialise in NAME (unicode escapes for characters NAME lacks;
                UNICODE = utf-16le)

options:
  --strict          stop at the first error (exit status 1)
  --encoding NAME   read FILE in NAME instead of the detected encoding: utf-8,
                    ascii, ansel, utf-16le, utf-16be, windows-1250 ... -1258
                    (or ANSI), ibm437 (IBMPC), ibm850, macintosh (MAC)
  --jobs N          threads for reading (default: all cores): a file's
                    chunks, or standard input's batches after the HEAD
  --types           (events) add each structure's ELF type identifier
  --tree            (stats) build the whole tree: nodes, UNDEF records, memory,
                    pointers that match no xref_id. A tree holds the whole
                    document: standard input is read whole into memory first;
                    the tree is built on --jobs threads
  --chunk-bytes N   cut a file into chunks of about N bytes (default 2 MiB; the
                    tree: 4 MiB), and
                    standard input into batches of about N bytes (default
                    64 KiB); output does not depend on it (for testing)

FILE '-' reads standard input as a stream, in bounded memory, except for
`stats --tree` (the whole tree) and `edit` (the editor maps what it reads
back to the original octets, so it works on the whole input). Files are
memory-mapped; events, stats, count, json, get and events --types read them
in record-aligned chunks on --jobs threads, with the same output as one
thread. On a terminal, a command that runs longer than a second shows a
progress bar on stderr. With no arguments, runs `stats` on a
sample bundled with the program.";

/// A small GEDCOM file bundled with the binary for the no-argument demo.
const SAMPLE: &[u8] = include_bytes!("../../../corpus/sample.ged");

/// Options shared by the commands.
pub struct Options {
    pub strict: bool,
    pub encoding: Option<Encoding>,
    pub jobs: usize,
    /// `--chunk-bytes`: chunk size for files, batch size for stdin.
    pub chunk: Option<usize>,
    pub file: String,
    /// Bytes to read instead of `file` (the bundled sample).
    pub bundled: Option<&'static [u8]>,
    /// `--tree` (stats) and `--types` (events).
    pub tree: bool,
    pub types: bool,
    /// Positional arguments after FILE (`get`'s XREF and PATH).
    pub args: Vec<String>,
}

impl Options {
    /// The reader configuration these options ask for.
    pub fn config(&self) -> ReaderConfig {
        ReaderConfig::new().strict(self.strict)
    }

    /// The name diagnostics use for the input.
    pub fn name(&self) -> String {
        match (self.bundled, self.file.as_str()) {
            (Some(_), _) => "corpus/sample.ged (bundled)".into(),
            (None, "-") => "<stdin>".into(),
            (None, f) => f.into(),
        }
    }
}

/// Prints a diagnostic to stderr as `FILE:LINE: severity: message`.
pub fn print_diagnostic(name: &str, d: &Diagnostic) {
    eprintln!(
        "{name}:{}: {}: {}",
        d.position.line,
        d.severity(),
        d.message
    );
}

/// Prints diagnostics to stderr.
pub fn print_diagnostics(name: &str, ds: &[Diagnostic]) {
    for d in ds {
        print_diagnostic(name, d);
    }
}

/// `true` for an error that only says stdout was closed (`| head`).
fn is_broken_pipe(e: &Error) -> bool {
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<io::Error>())
        .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// Prints an error and picks the exit status for it.
pub fn fail(name: &str, e: &Error) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::SUCCESS;
    }
    match e.position() {
        Some(p) => eprintln!("{name}:{}: error: {}", p.line, e.message()),
        None => eprintln!("{name}: error: {}", e.message()),
    }
    match e.kind() {
        ErrorKind::Strict(_) => ExitCode::from(1),
        _ => ExitCode::from(2),
    }
}

/// The exit of a command that wrote output: end-of-input diagnostics, then
/// the status.
pub fn finish(
    name: &str,
    result: Result<Vec<Diagnostic>, Error>,
    flushed: io::Result<()>,
) -> ExitCode {
    match (result, flushed) {
        (Err(e), _) => fail(name, &e),
        (Ok(_), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Ok(_), Err(e)) => {
            eprintln!("gedcom-elf: error: cannot write output: {e}");
            ExitCode::from(2)
        }
        (Ok(ds), Ok(())) => {
            print_diagnostics(name, &ds);
            ExitCode::SUCCESS
        }
    }
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut strict = false;
    let mut encoding = None;
    let mut jobs = default_jobs();
    let mut chunk = None;
    let mut file = None;
    let (mut tree, mut types, mut rest) = (false, false, Vec::new());
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--strict" => strict = true,
            "--tree" => tree = true,
            "--types" => types = true,
            "--encoding" => {
                let name = args.next().ok_or("--encoding needs a NAME")?;
                encoding = Some(
                    Encoding::from_name(name)
                        .ok_or_else(|| format!("unknown encoding {name:?}"))?,
                );
            }
            "--jobs" | "-j" => {
                let n = args.next().ok_or("--jobs needs a number")?;
                jobs = n
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--jobs takes a positive number, not {n:?}"))?;
            }
            "--chunk-bytes" => {
                let n = args.next().ok_or("--chunk-bytes needs a number")?;
                chunk =
                    Some(n.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("--chunk-bytes takes a positive number, not {n:?}")
                    })?);
            }
            "-" => file = Some(a.clone()),
            s if s.starts_with('-') => return Err(format!("unknown option {s:?}")),
            s => {
                if file.is_some() {
                    rest.push(s.to_string());
                } else {
                    file = Some(s.to_string());
                }
            }
        }
    }
    let file = file.ok_or("missing FILE")?;
    Ok(Options {
        strict,
        encoding,
        jobs,
        chunk,
        file,
        bundled: None,
        tree,
        types,
        args: rest,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        let opts = Options {
            strict: false,
            encoding: None,
            jobs: default_jobs(),
            chunk: None,
            file: String::new(),
            bundled: Some(SAMPLE),
            tree: false,
            types: false,
            args: Vec::new(),
        };
        return stats::run(&opts);
    }
    let command = args[0].as_str();
    if matches!(command, "-h" | "--help" | "help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match command {
        "edit" => return edit_cmd::run(&args[1..]),
        "fmt" => return fmt_cmd::run(&args[1..]),
        "convert" => return convert_cmd::run(&args[1..]),
        _ => {}
    }
    let opts = match parse_options(&args[1..]) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gedcom-elf: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !opts.args.is_empty() && command != "get" {
        eprintln!("gedcom-elf: more than one FILE given\n\n{USAGE}");
        return ExitCode::from(2);
    }
    match command {
        "events" => events::run(&opts),
        "stats" => stats::run(&opts),
        "count" => count_cmd::run(&opts),
        "json" => json_cmd::run(&opts),
        "get" => get_cmd::run(&opts),
        other => {
            eprintln!("gedcom-elf: unknown command {other:?}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
