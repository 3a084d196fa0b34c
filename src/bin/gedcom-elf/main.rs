//! `gedcom-elf`: the command-line tool over the public `gedcom_elf` API.
//!
//! Exit status: 0 when reading completes (recovered errors included), 1 in
//! `--strict` mode at the first error, 2 when reading ceases (not GEDCOM,
//! unsupported encoding, i/o error, bad usage).

mod convert_cmd;
mod edit_cmd;
mod events;
mod fmt_cmd;
mod json;
mod stats;

use std::io::{self, Read, Write};
use std::process::ExitCode;

use gedcom_elf::{Diagnostic, Encoding, Error, ErrorKind, ReaderConfig};

pub const USAGE: &str = "\
usage: gedcom-elf <command> [options] FILE

commands:
  events [--strict] [--encoding NAME] FILE   one JSON object per structure begin and end
  stats [--strict] [--encoding NAME] FILE    records per tag, lines, depth, encoding,
                                             diagnostics, speed
  edit FILE [--drop-tag TAG]... [--rename-tag OLD=NEW]... [--encoding NAME] [-o OUT]
                                             change tags, copy every other octet as it is
  fmt FILE [--input-encoding NAME] [-o OUT]  canonical form: UTF-8, LF, single spaces,
                                             @ escaping, CONC splits within 255 octets
  convert FILE --encoding NAME [--line-ending lf|crlf|cr] [--input-encoding NAME] [-o OUT]
                                             re-serialise in NAME (unicode escapes for
                                             characters NAME lacks; UNICODE = utf-16le)

--encoding NAME reads FILE in NAME instead of the detected encoding: utf-8,
ascii, ansel, utf-16le, utf-16be, windows-1250 ... windows-1258 (or ANSI),
ibm437 (IBMPC), ibm850, macintosh (MAC); case-insensitive.

FILE '-' reads standard input. With no arguments, runs `stats` on a bundled
sample file.";

/// A small GEDCOM file bundled with the binary for the no-argument demo.
const SAMPLE: &[u8] = include_bytes!("../../../corpus/sample.ged");

/// Options shared by the commands.
pub struct Options {
    pub strict: bool,
    pub encoding: Option<Encoding>,
    pub file: String,
}

impl Options {
    /// The reader configuration these options ask for.
    pub fn config(&self) -> ReaderConfig {
        ReaderConfig::new().strict(self.strict)
    }
}

/// The input bytes and the name diagnostics use for them.
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

pub fn load(file: &str) -> io::Result<Input> {
    if file == "-" {
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes)?;
        Ok(Input {
            name: "<stdin>".into(),
            bytes,
        })
    } else {
        Ok(Input {
            name: file.to_string(),
            bytes: std::fs::read(file)?,
        })
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

/// Prints an error and picks the exit status for it.
pub fn fail(name: &str, e: &Error) -> ExitCode {
    match e.position() {
        Some(p) => eprintln!("{name}:{}: error: {}", p.line, e.message()),
        None => eprintln!("{name}: error: {}", e.message()),
    }
    match e.kind() {
        ErrorKind::Strict(_) => ExitCode::from(1),
        _ => ExitCode::from(2),
    }
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut strict = false;
    let mut encoding = None;
    let mut file = None;
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--strict" => strict = true,
            "--encoding" => {
                let name = args.next().ok_or("--encoding needs a NAME")?;
                encoding = Some(
                    Encoding::from_name(name)
                        .ok_or_else(|| format!("unknown encoding {name:?}"))?,
                );
            }
            "-" => file = Some(a.clone()),
            s if s.starts_with('-') => return Err(format!("unknown option {s:?}")),
            s => {
                if file.replace(s.to_string()).is_some() {
                    return Err("more than one FILE given".into());
                }
            }
        }
    }
    let file = file.ok_or("missing FILE")?;
    Ok(Options {
        strict,
        encoding,
        file,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        let input = Input {
            name: "corpus/sample.ged (bundled)".into(),
            bytes: SAMPLE.to_vec(),
        };
        let opts = Options {
            strict: false,
            encoding: None,
            file: input.name.clone(),
        };
        return stats::run(&opts, &input);
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
    let input = match load(&opts.file) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{}: error: cannot read: {e}", opts.file);
            return ExitCode::from(2);
        }
    };
    match command {
        "events" => events::run(&opts, &input),
        "stats" => stats::run(&opts, &input),
        other => {
            eprintln!("gedcom-elf: unknown command {other:?}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Treats a closed stdout (`| head`) as success.
pub fn finish_output(r: io::Result<()>) -> Result<(), ExitCode> {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("gedcom-elf: error: cannot write output: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Flushes `out`, mapping failure like [`finish_output`].
pub fn flush<W: Write>(out: &mut W) -> Result<(), ExitCode> {
    finish_output(out.flush())
}
