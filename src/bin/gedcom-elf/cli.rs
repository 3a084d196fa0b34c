//! The command line: one `clap` parser for every command.
//!
//! Each command takes only the options that apply to it, so its `--help`
//! lists just those and any other is a usage error. The options shared by
//! the reading commands (`--jobs`, `--strict`, `--encoding`, `--quiet`,
//! `--all-warnings`) may also stand before the command name; they are then
//! handed to the command, and refused when it does not take them.

use clap::error::ErrorKind as ClapKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use gedcom_elf::write::LineEnding;
use gedcom_elf::Encoding;

/// How the exit status is chosen: in `--help` and the README.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  done (problems the reader recovered from included)
  1  --strict stopped at the first error
  2  could not read or write: not GEDCOM, unsupported encoding, i/o error,
     bad usage
  3  get found nothing

FILE '-' reads standard input. Diagnostics go to stderr as
FILE:LINE: severity: message. See 'gedcom-elf help COMMAND'.";

const ENCODINGS: &str = "utf-8, ascii, ansel, utf-16le, utf-16be, \
windows-1250 ... windows-1258 (ANSI: windows-1252), ibm437 (IBMPC), ibm850, macintosh (MAC); \
case-insensitive";

/// `gedcom-elf`: read, check and rewrite GEDCOM 5.5.1 (FHISO ELF) files.
#[derive(Parser, Debug)]
#[command(
    name = "gedcom-elf",
    version,
    about = "Read, check and rewrite GEDCOM 5.5.1 files (FHISO Extended Legacy Format)",
    long_about = "Read, check and rewrite GEDCOM 5.5.1 files (FHISO Extended Legacy Format).\n\n\
                  With no command, runs 'stats' on a small sample bundled with the program.",
    after_help = EXIT_STATUS,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The shared options, when given before the command name.
#[derive(Args, Debug, Default)]
#[command(next_help_heading = "Options for the commands that take them (also after the command)")]
pub struct Global {
    /// Threads for reading
    #[arg(long, short = 'j', value_name = "N", value_parser = positive)]
    pub jobs: Option<usize>,
    /// Stop at the first error (exit status 1)
    #[arg(long)]
    pub strict: bool,
    /// The input's encoding, instead of the detected one
    #[arg(long, value_name = "NAME", value_parser = encoding)]
    pub encoding: Option<Encoding>,
    /// Print no warnings (errors still)
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print every diagnostic (default: the first 20 of each kind, then a count)
    #[arg(long)]
    pub all_warnings: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// One JSON object per structure begin and end (JSON Lines)
    Events {
        /// Add each structure's ELF type identifier ("type", last)
        #[arg(long)]
        types: bool,
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        jobs: JobOpts,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// Records per tag, lines, depth, encoding, diagnostics, speed
    Stats {
        /// Build the whole tree: nodes, UNDEF records, tree memory, pointers
        /// that match no xref_id (standard input is read whole first)
        #[arg(long)]
        tree: bool,
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        jobs: JobOpts,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// Records, structures and lines, at full speed
    Count {
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        jobs: JobOpts,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// One JSON object per record, children nested, with types and line numbers
    Json {
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        jobs: JobOpts,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// The structures with xref_id XREF (or the nodes at PATH under them) as GEDCOM
    #[command(after_help = "Exit status 3 when no structure has XREF, or nothing is at PATH.")]
    Get {
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        jobs: JobOpts,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
        /// The xref_id, with or without its @ signs: I1 or @I1@
        #[arg(value_name = "XREF")]
        xref: String,
        /// Tags separated by dots under XREF (BIRT.DATE; * matches any tag)
        #[arg(value_name = "PATH")]
        path: Option<String>,
    },
    /// Drop or rename tags; every other octet is copied as it is
    Edit {
        /// Drop every structure with this tag, and its substructures (repeatable)
        #[arg(long, value_name = "TAG", value_parser = tag)]
        drop_tag: Vec<String>,
        /// Rename the tag OLD to NEW (repeatable)
        #[arg(long, value_name = "OLD=NEW", value_parser = rename)]
        rename_tag: Vec<(String, String)>,
        #[command(flatten)]
        encoding: EncodingOpt,
        #[command(flatten)]
        output: OutputArg,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// The canonical form: UTF-8, LF, single spaces, CONC splits at 255 octets
    Fmt {
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        output: OutputArg,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// Write FILE again in another encoding (unicode escapes for characters it lacks)
    Convert {
        /// The output's encoding (required)
        #[arg(long, value_name = "NAME", value_parser = to_encoding, long_help = format!(
            "The output's encoding (required): {ENCODINGS}; UNICODE (or utf-16): utf-16le"))]
        to_encoding: Encoding,
        /// The output's line breaks
        #[arg(long, value_name = "lf|crlf|cr", default_value = "lf", value_parser = line_ending)]
        line_ending: LineEnding,
        #[command(flatten)]
        read: ReadOpts,
        #[command(flatten)]
        output: OutputArg,
        #[command(flatten)]
        diag: DiagOpts,
        #[command(flatten)]
        input: InputArg,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

/// The input, for every command that reads one.
#[derive(Args, Debug)]
pub struct InputArg {
    /// The GEDCOM file, or - for standard input
    #[arg(value_name = "FILE")]
    pub file: String,
}

/// `-o OUT`.
#[derive(Args, Debug)]
pub struct OutputArg {
    /// Write to OUT (replaced only when the command succeeds; may be FILE itself)
    /// instead of standard output
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
}

/// `--encoding` alone (the editor has no strict mode).
#[derive(Args, Debug, Default)]
pub struct EncodingOpt {
    /// The input's encoding, instead of the detected one
    #[arg(long, value_name = "NAME", value_parser = encoding, long_help = format!(
        "The input's encoding, instead of the detected one: {ENCODINGS}"))]
    pub encoding: Option<Encoding>,
}

/// How the input is read.
#[derive(Args, Debug, Default)]
pub struct ReadOpts {
    /// Stop at the first error (exit status 1)
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub encoding: EncodingOpt,
}

/// Threads and pieces.
#[derive(Args, Debug, Default)]
pub struct JobOpts {
    /// Threads for reading [default: every core]
    #[arg(long, short = 'j', value_name = "N", value_parser = positive)]
    pub jobs: Option<usize>,
    /// Cut a file into chunks of about N bytes (default 2 MiB; a tree's: 4 MiB), standard
    /// input into batches of about N bytes (default 64 KiB); the output does not depend
    /// on it (for testing)
    #[arg(long, value_name = "N", value_parser = positive)]
    pub chunk_bytes: Option<usize>,
}

/// What is printed to stderr.
#[derive(Args, Debug, Default)]
pub struct DiagOpts {
    /// Print no warnings (errors still)
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print every diagnostic (default: the first 20 of each kind, then a count)
    #[arg(long)]
    pub all_warnings: bool,
}

fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("a positive whole number is required".into()),
    }
}

/// The input's encoding by name. `UNICODE` and `utf-16` are refused: they do not say
/// the byte order, which a byte-order mark or the octets tell anyway.
fn encoding(s: &str) -> Result<Encoding, String> {
    Encoding::from_name(s).ok_or_else(|| format!("unknown encoding (known: {ENCODINGS})"))
}

/// The output's encoding by name: as [`encoding`], and `UNICODE` or `utf-16` mean
/// UTF-16LE (what most files that say so are).
fn to_encoding(s: &str) -> Result<Encoding, String> {
    let key = s.trim().to_ascii_lowercase();
    if matches!(key.as_str(), "unicode" | "utf-16" | "utf16") {
        return Ok(Encoding::Utf16Le);
    }
    encoding(s)
}

fn line_ending(s: &str) -> Result<LineEnding, String> {
    LineEnding::from_name(s).ok_or_else(|| "lf, crlf or cr".into())
}

fn valid_tag(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn tag(s: &str) -> Result<String, String> {
    if valid_tag(s) {
        Ok(s.to_string())
    } else {
        Err("a tag is letters, digits and _".into())
    }
}

fn rename(s: &str) -> Result<(String, String), String> {
    let (old, new) = s.split_once('=').ok_or("OLD=NEW is required")?;
    if !valid_tag(old) || !valid_tag(new) {
        return Err("tags are letters, digits and _".into());
    }
    if new == "CONT" || new == "CONC" {
        return Err("a structure cannot become an additional line (CONT, CONC)".into());
    }
    Ok((old.to_string(), new.to_string()))
}

/// What a reading command runs with, shared options merged.
#[derive(Debug, Clone)]
pub struct Settings {
    pub strict: bool,
    pub encoding: Option<Encoding>,
    pub jobs: usize,
    /// `--chunk-bytes`: chunk size for files, batch size for standard input.
    pub chunk: Option<usize>,
    pub quiet: bool,
    pub all_warnings: bool,
}

impl Settings {
    /// The defaults: every core, detected encoding, all recovered.
    pub fn new() -> Settings {
        Settings {
            strict: false,
            encoding: None,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            chunk: None,
            quiet: false,
            all_warnings: false,
        }
    }

    /// The reader configuration these settings ask for.
    pub fn config(&self) -> gedcom_elf::ReaderConfig {
        gedcom_elf::ReaderConfig::new().strict(self.strict)
    }
}

/// The option groups a command takes, to merge the shared options into.
struct Groups<'a> {
    name: &'static str,
    read: Option<&'a mut ReadOpts>,
    encoding: Option<&'a mut EncodingOpt>,
    jobs: Option<&'a mut JobOpts>,
    diag: Option<&'a mut DiagOpts>,
}

impl Command {
    fn groups(&mut self) -> Groups<'_> {
        let none = |name| Groups {
            name,
            read: None,
            encoding: None,
            jobs: None,
            diag: None,
        };
        match self {
            Command::Events {
                read, jobs, diag, ..
            } => Groups {
                name: "events",
                read: Some(read),
                jobs: Some(jobs),
                diag: Some(diag),
                ..none("")
            },
            Command::Stats {
                read, jobs, diag, ..
            } => Groups {
                name: "stats",
                read: Some(read),
                jobs: Some(jobs),
                diag: Some(diag),
                ..none("")
            },
            Command::Count {
                read, jobs, diag, ..
            } => Groups {
                name: "count",
                read: Some(read),
                jobs: Some(jobs),
                diag: Some(diag),
                ..none("")
            },
            Command::Json {
                read, jobs, diag, ..
            } => Groups {
                name: "json",
                read: Some(read),
                jobs: Some(jobs),
                diag: Some(diag),
                ..none("")
            },
            Command::Get {
                read, jobs, diag, ..
            } => Groups {
                name: "get",
                read: Some(read),
                jobs: Some(jobs),
                diag: Some(diag),
                ..none("")
            },
            Command::Edit { encoding, diag, .. } => Groups {
                name: "edit",
                encoding: Some(encoding),
                diag: Some(diag),
                ..none("")
            },
            Command::Fmt { read, diag, .. } => Groups {
                name: "fmt",
                read: Some(read),
                diag: Some(diag),
                ..none("")
            },
            Command::Convert { read, diag, .. } => Groups {
                name: "convert",
                read: Some(read),
                diag: Some(diag),
                ..none("")
            },
            Command::Completions { .. } => none("completions"),
        }
    }

    /// The command's settings: its own options, then those given before its
    /// name. A shared option the command does not take is a usage error.
    pub fn settings(&mut self, global: &Global) -> Result<Settings, clap::Error> {
        let mut g = self.groups();
        let name = g.name;
        let refuse = |option: &str| {
            let mut cmd = Cli::command();
            cmd.build();
            let sub = cmd.find_subcommand_mut(name).map(|c| c.clone());
            let mut sub = sub.unwrap_or(cmd);
            sub.error(
                ClapKind::ArgumentConflict,
                format!("the option '{option}' does not apply to '{name}'"),
            )
        };
        let mut s = Settings::new();
        let read_strict = g.read.as_deref().map(|r| r.strict);
        let encoding = match (g.read.as_deref_mut(), g.encoding.as_deref_mut()) {
            (Some(r), _) => Some(&mut r.encoding),
            (None, Some(e)) => Some(e),
            (None, None) => None,
        };
        match encoding {
            Some(e) => s.encoding = e.encoding.or(global.encoding),
            None if global.encoding.is_some() => return Err(refuse("--encoding")),
            None => {}
        }
        match read_strict {
            Some(strict) => s.strict = strict || global.strict,
            None if global.strict => return Err(refuse("--strict")),
            None => {}
        }
        match g.jobs {
            Some(j) => {
                if let Some(n) = j.jobs.or(global.jobs) {
                    s.jobs = n;
                }
                s.chunk = j.chunk_bytes;
            }
            None if global.jobs.is_some() => return Err(refuse("--jobs")),
            None => {}
        }
        match g.diag {
            Some(d) => {
                s.quiet = d.quiet || global.quiet;
                s.all_warnings = d.all_warnings || global.all_warnings;
            }
            None if global.quiet => return Err(refuse("--quiet")),
            None if global.all_warnings => return Err(refuse("--all-warnings")),
            None => {}
        }
        Ok(s)
    }
}

/// Writes the completion script for `shell` to `out`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "gedcom-elf", out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parser_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn shared_options_before_the_command_are_merged() {
        let mut cli = Cli::try_parse_from(["g", "--jobs", "3", "--strict", "count", "x"]).unwrap();
        let s = cli.command.as_mut().unwrap().settings(&cli.global).unwrap();
        assert_eq!((s.jobs, s.strict), (3, true));
    }

    #[test]
    fn the_command_s_own_value_wins() {
        let mut cli = Cli::try_parse_from(["g", "-j", "3", "count", "-j", "1", "x"]).unwrap();
        let s = cli.command.as_mut().unwrap().settings(&cli.global).unwrap();
        assert_eq!(s.jobs, 1);
    }

    #[test]
    fn a_shared_option_the_command_does_not_take_is_refused() {
        let mut cli = Cli::try_parse_from(["g", "--jobs", "2", "edit", "x"]).unwrap();
        let e = cli
            .command
            .as_mut()
            .unwrap()
            .settings(&cli.global)
            .unwrap_err();
        assert!(
            e.to_string().contains("'--jobs' does not apply to 'edit'"),
            "{e}"
        );
    }

    #[test]
    fn unicode_is_utf16le_for_output_only_and_names_are_case_insensitive() {
        assert_eq!(to_encoding("UNICODE"), Ok(Encoding::Utf16Le));
        assert!(encoding("UNICODE").is_err());
        assert_eq!(encoding("Windows-1250"), Ok(Encoding::Windows1250));
        assert!(encoding("klingon").is_err());
    }

    #[test]
    fn renames_cannot_make_additional_lines() {
        assert!(rename("NOTE=CONT").is_err());
        assert!(rename("NOTE").is_err());
        assert_eq!(rename("_X=NOTE"), Ok(("_X".into(), "NOTE".into())));
    }
}
