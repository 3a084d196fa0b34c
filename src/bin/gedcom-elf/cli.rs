//! The command line: one `clap` parser for every command.
//!
//! Each command takes only the options that apply to it, so its `--help`
//! lists just those and any other is a usage error naming it. The options
//! shared by the reading commands (`--jobs`, `--strict`, `--encoding`,
//! `--quiet`, `--all-warnings`) may also stand before the command's name:
//! [`hoist`] moves them after it.

use std::ffi::OsString;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use gedcom_elf::scan::is_tag;
use gedcom_elf::table::{PartitionBy, Table};
use gedcom_elf::write::LineEnding;
use gedcom_elf::{Encoding, Version};

/// How the exit status is chosen: in `--help` and the README.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  done (problems the reader recovered from included)
  1  --strict stopped at the first error; check found an error
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
                  With no command, runs 'stats' on a small sample bundled with the program. \
                  --jobs, --strict, --encoding, --quiet and --all-warnings may also stand \
                  before the command's name.",
    after_help = EXIT_STATUS,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// One JSON object per structure begin and end (JSON Lines)
    Events {
        /// Add each structure's ELF type identifier ("type", last)
        #[arg(long)]
        types: bool,
        #[command(flatten)]
        r: Reading,
    },
    /// Records per tag, lines, depth, encoding, diagnostics, speed
    Stats {
        /// Build the whole tree: nodes, UNDEF records, tree memory, pointers
        /// that match no xref_id (standard input is read whole first)
        #[arg(long)]
        tree: bool,
        /// List the media entries of a GEDZIP (.gdz) archive, one per line
        /// (size, a tab, name), instead of the statistics
        #[arg(long, conflicts_with = "tree")]
        list_media: bool,
        #[command(flatten)]
        r: Reading,
    },
    /// Records, structures and lines, at full speed
    Count {
        #[command(flatten)]
        r: Reading,
    },
    /// One JSON object per record, children nested, with types and line numbers
    Json {
        #[command(flatten)]
        r: Reading,
    },
    /// One GEDCOM X document (JSON, XML, or a .gedx file with the media) with FHISO
    /// citation elements; what is not converted is listed on stderr
    Gedcomx {
        /// The output format: GEDCOM X JSON or XML, or gedx: the GEDCOM X file format
        /// (a zip of a manifest, tree.json and the media files beside the input that
        /// OBJE FILE lines name)
        #[arg(long, value_name = "json|xml|gedx", default_value = "json",
              value_parser = ["json", "xml", "gedx"])]
        format: String,
        /// Indent the output, one property per line
        #[arg(long)]
        pretty: bool,
        /// Keep extension structures (_TAG) as notes of their person, relationship or
        /// source instead of listing them as not converted
        #[arg(long)]
        keep_extensions: bool,
        #[command(flatten)]
        output: OutputArg,
        #[command(flatten)]
        r: Reading,
    },
    /// A GEDCOM X document (JSON, XML or .gedx) as GEDCOM 5.5.1 / ELF; what GEDCOM cannot
    /// carry is listed on stderr
    FromGedcomx {
        #[command(flatten)]
        output: OutputArg,
        #[command(flatten)]
        diag: DiagOpts,
        /// The GEDCOM X document (FILE.json, FILE.xml or FILE.gedx; otherwise its first
        /// bytes tell: {, <, or a zip), or - for standard input
        #[arg(value_name = "FILE")]
        file: String,
    },
    /// The structures with xref_id XREF (or the nodes at PATH under them) as GEDCOM
    #[command(after_help = "Exit status 3 when no structure has XREF, or nothing is at PATH.")]
    Get {
        #[command(flatten)]
        r: Reading,
        /// The xref_id, with or without its @ signs: I1 or @I1@
        #[arg(value_name = "XREF")]
        xref: String,
        /// Tags separated by dots under XREF (BIRT.DATE; * matches any tag)
        #[arg(value_name = "PATH")]
        path: Option<String>,
    },
    /// Drop or rename tags; every other octet is copied as it is
    Edit {
        #[command(flatten)]
        e: Editing,
    },
    /// The canonical form: UTF-8, LF, single spaces, CONC splits at 255 octets
    Fmt {
        #[command(flatten)]
        w: Rewriting,
    },
    /// Write FILE again in another encoding (unicode escapes for characters it lacks), or
    /// convert it to another GEDCOM version (--to-version)
    Convert {
        /// The output's encoding (required unless --to-version is given)
        #[arg(long, value_name = "NAME", value_parser = to_encoding,
            required_unless_present = "to_version", long_help = format!(
            "The output's encoding (required unless --to-version is given): {ENCODINGS}; \
             UNICODE (or utf-16): utf-16le. GEDCOM 7 output is UTF-8 only"))]
        to_encoding: Option<Encoding>,
        /// Convert to this GEDCOM version: 7.0 or 5.5.1 (dates, enumerations, notes,
        /// xref ids, extensions; what cannot be carried is reported)
        #[arg(long, value_name = "7.0|5.5.1", value_parser = to_version)]
        to_version: Option<gedcom_elf::Version>,
        /// The output's line breaks
        #[arg(long, value_name = "lf|crlf|cr", default_value = "lf", value_parser = line_ending)]
        line_ending: LineEnding,
        /// Write a GEDZIP archive (gedcom.ged and the media files its FILE paths name,
        /// found beside FILE or in the .gdz it is), as -o NAME.gdz does; with
        /// --to-version 7.0 only
        #[arg(long)]
        gdz: bool,
        #[command(flatten)]
        jobs: JobOpts,
        #[command(flatten)]
        w: Rewriting,
    },
    /// Validate: findings as JSON Lines on stdout, a summary per file on stderr
    #[command(
        after_help = "Exit status 0 when no file has an error finding, 1 when one has, \
                            2 when a file could not be read."
    )]
    Check(CheckArgs),
    /// Flat tables (nodes, files, diagnostics, individuals, families, edges, events,
    /// citations) of any number of files, as CSV, JSON Lines, Parquet or Arrow, for SQL engines
    #[command(
        after_help = "Exit status 0 when every file was read, 2 when one could not be \
                            (the others are written, and it is listed in files and diagnostics)."
    )]
    Table(TableArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

/// `check`'s options.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Print `FILE:LINE: severity: [rule] message` lines instead of JSON Lines
    #[arg(long, value_name = "jsonl|text", default_value = "jsonl",
          value_parser = ["jsonl", "text"])]
    pub format: String,
    /// Run only these rules (ids or groups: link, value.date, ...)
    #[arg(long, value_name = "ID,...", value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Do not run these rules (ids or groups)
    #[arg(long, value_name = "ID,...", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// List the rules (id, severity, what each checks) and exit
    #[arg(long)]
    pub list_rules: bool,
    /// A parent younger than this at a child's birth is reported [default: 12]
    #[arg(long, value_name = "YEARS")]
    pub min_parent_age: Option<f64>,
    /// A father older than this at a child's birth is reported [default: 70]
    #[arg(long, value_name = "YEARS")]
    pub max_parent_age: Option<f64>,
    /// A mother older than this at a child's birth is reported [default: 55]
    #[arg(long, value_name = "YEARS")]
    pub max_mother_age: Option<f64>,
    /// A person older than this is reported [default: 120]
    #[arg(long, value_name = "YEARS")]
    pub max_age: Option<f64>,
    /// A spouse younger than this at the marriage is reported [default: 12]
    #[arg(long, value_name = "YEARS")]
    pub min_marriage_age: Option<f64>,
    /// Print no summary
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub jobs: JobOpts,
    #[command(flatten)]
    pub encoding: EncodingOpt,
    /// The GEDCOM files (or GEDZIP .gdz archives), or - for standard input
    #[arg(value_name = "FILE", required_unless_present = "list_rules")]
    pub files: Vec<String>,
}

/// `table`'s options.
#[derive(Args, Debug)]
pub struct TableArgs {
    /// The directory to write: a directory per table, part files in each
    /// (written beside it first, renamed when done; it must not exist, or be empty);
    /// - for an Arrow IPC stream on stdout
    #[arg(short = 'o', long = "output", value_name = "DIR", required = true)]
    pub output: String,
    /// The output format: parquet (zstd) and arrow (Arrow IPC; with -o -, one table as a
    /// stream on stdout) need the `parquet` cargo feature
    #[arg(long, value_name = "csv|jsonl|parquet|arrow", default_value = "csv",
          value_parser = ["csv", "jsonl", "parquet", "arrow"])]
    pub format: String,
    /// The tables to write [default: all]
    #[arg(long, value_name = "TABLE,...", value_delimiter = ',',
          value_parser = PossibleValuesParser::new(Table::ALL.map(Table::name)))]
    pub tables: Vec<String>,
    /// Start a new part file of a table once its part holds about N bytes
    /// [default: 256 MiB]
    #[arg(long, value_name = "N", value_parser = positive)]
    pub part_bytes: Option<usize>,
    /// Close a Parquet row group once its rows hold about N bytes (in memory, as
    /// Arrow columns) [default: 96 MiB]
    #[arg(long, value_name = "N", value_parser = positive)]
    pub row_group_bytes: Option<usize>,
    /// Write Hive partitions, DIR/TABLE/COLUMN=VALUE/part-*: by record_tag (nodes, events;
    /// the other tables unpartitioned) or by file (file_id=N: every table). The column is
    /// left out of the files (its directory's name holds it, percent-escaped) [default: none]
    #[arg(long, value_name = "record_tag|file",
          value_parser = PossibleValuesParser::new(PartitionBy::ALL.map(PartitionBy::name)))]
    pub partition_by: Option<String>,
    #[command(flatten)]
    pub jobs: JobOpts,
    #[command(flatten)]
    pub encoding: EncodingOpt,
    #[command(flatten)]
    pub diag: DiagOpts,
    /// GEDCOM files, GEDZIP (.gdz) archives, directories (their *.ged and *.gdz
    /// files, recursively), or - for standard input
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
}

/// The options of the commands that read and print.
#[derive(Args, Debug)]
pub struct Reading {
    #[command(flatten)]
    pub read: ReadOpts,
    #[command(flatten)]
    pub jobs: JobOpts,
    #[command(flatten)]
    pub diag: DiagOpts,
    #[command(flatten)]
    pub input: InputArg,
}

/// The options of the commands that write GEDCOM again.
#[derive(Args, Debug)]
pub struct Rewriting {
    #[command(flatten)]
    pub read: ReadOpts,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub diag: DiagOpts,
    #[command(flatten)]
    pub input: InputArg,
}

/// The options of `edit` (which has no strict mode).
#[derive(Args, Debug)]
pub struct Editing {
    /// Drop every structure with this tag, and its substructures (repeatable)
    #[arg(long, value_name = "TAG", value_parser = tag)]
    pub drop_tag: Vec<String>,
    /// Rename the tag OLD to NEW (repeatable)
    #[arg(long, value_name = "OLD=NEW", value_parser = rename)]
    pub rename_tag: Vec<(String, String)>,
    #[command(flatten)]
    pub encoding: EncodingOpt,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub diag: DiagOpts,
    #[command(flatten)]
    pub input: InputArg,
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
    /// Write to OUT (a file is replaced only when the command succeeds, and may be
    /// FILE itself; a device or a pipe is written into) instead of standard output
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,
}

/// `--encoding` alone (the editor has no strict mode).
#[derive(Args, Debug, Clone, Default)]
pub struct EncodingOpt {
    /// The input's encoding, instead of the detected one
    #[arg(long, value_name = "NAME", value_parser = encoding, long_help = format!(
        "The input's encoding, instead of the detected one: {ENCODINGS}"))]
    pub encoding: Option<Encoding>,
}

/// How the input is read.
#[derive(Args, Debug, Clone, Default)]
pub struct ReadOpts {
    /// Stop at the first error (exit status 1)
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub encoding: EncodingOpt,
    /// Read it as GEDCOM VERSION (5.5.1 or 7.0), not as its HEAD.GEDC.VERS says
    #[arg(long = "vers", value_name = "VERSION", value_parser = gedcom_version)]
    pub gedcom_version: Option<Version>,
}

/// Threads and pieces.
#[derive(Args, Debug, Clone, Default)]
pub struct JobOpts {
    /// Threads for reading [default: every core]
    #[arg(long, short = 'j', value_name = "N", value_parser = positive)]
    pub jobs: Option<usize>,
    /// Cut a file into chunks of about N bytes (default 2 MiB; a tree's: 4 MiB), standard
    /// input into batches of about N bytes (default 64 KiB; gedcomx reads both in batches
    /// of 256 KiB); the output does not depend on it (for testing)
    #[arg(long, value_name = "N", value_parser = positive)]
    pub chunk_bytes: Option<usize>,
}

/// What is printed to stderr.
#[derive(Args, Debug, Clone, Default)]
pub struct DiagOpts {
    /// Print no warnings (errors still)
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print every diagnostic (default: the first 20 of each kind, then a count)
    #[arg(long)]
    pub all_warnings: bool,
}

/// The shared options given before the command's name, moved after it,
/// where the command's parser takes them (or refuses them, naming them,
/// when the command does not take them). Nothing moves when no command
/// follows them.
pub fn hoist(mut args: Vec<OsString>) -> Vec<OsString> {
    let text = |i: usize| args.get(i).and_then(|a| a.to_str()).unwrap_or("");
    let mut i = 1;
    loop {
        let a = text(i);
        if matches!(a, "--jobs" | "-j" | "--encoding" | "--vers") {
            i += 2;
        } else if matches!(a, "--strict" | "--quiet" | "-q" | "--all-warnings")
            || a.starts_with("--jobs=")
            || a.starts_with("--encoding=")
            || a.starts_with("--vers=")
            || (a.starts_with("-j") && a.len() > 2)
        {
            i += 1;
        } else {
            break;
        }
    }
    if i == 1 || i >= args.len() || text(i).starts_with('-') {
        return args;
    }
    let command = args.remove(i);
    args.insert(1, command);
    args
}

fn positive(s: &str) -> Result<usize, String> {
    let n = s.parse().ok().filter(|&n: &usize| n > 0);
    n.ok_or_else(|| "a positive whole number is required".into())
}

/// The input's encoding by name. `UNICODE` and `utf-16` are refused: they do not say
/// the byte order, which a byte-order mark or the octets tell anyway.
fn encoding(s: &str) -> Result<Encoding, String> {
    Encoding::from_name(s).ok_or_else(|| format!("unknown encoding (known: {ENCODINGS})"))
}

/// The version to read as, by name (`5.5.1`, `7.0`, `7`, ...).
fn gedcom_version(s: &str) -> Result<Version, String> {
    Version::from_name(s).ok_or_else(|| "5.5.1 or 7.0".into())
}

/// The output's encoding by name: as [`encoding`], and `UNICODE` or `utf-16` mean
/// UTF-16LE (what most files that say so are).
fn to_encoding(s: &str) -> Result<Encoding, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "unicode" | "utf-16" | "utf16" => Ok(Encoding::Utf16Le),
        _ => encoding(s),
    }
}

fn to_version(s: &str) -> Result<gedcom_elf::Version, String> {
    gedcom_elf::Version::from_name(s).ok_or_else(|| "7.0 or 5.5.1".into())
}

fn line_ending(s: &str) -> Result<LineEnding, String> {
    LineEnding::from_name(s).ok_or_else(|| "lf, crlf or cr".into())
}

fn tag(s: &str) -> Result<String, String> {
    let tag = is_tag(s.as_bytes()).then(|| s.to_string());
    tag.ok_or_else(|| "a tag is letters, digits and _".into())
}

fn rename(s: &str) -> Result<(String, String), String> {
    let (old, new) = s.split_once('=').ok_or("OLD=NEW is required")?;
    if !is_tag(old.as_bytes()) || !is_tag(new.as_bytes()) {
        return Err("tags are letters, digits and _".into());
    }
    if new == "CONT" || new == "CONC" {
        return Err("a structure cannot become an additional line (CONT, CONC)".into());
    }
    Ok((old.to_string(), new.to_string()))
}

/// What a command runs with: its option groups, and the defaults of those
/// it does not take (every core, the detected encoding, problems recovered).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub read: ReadOpts,
    pub jobs: JobOpts,
    pub diag: DiagOpts,
}

impl Settings {
    /// Threads for reading: `--jobs`, or every core.
    pub fn jobs(&self) -> usize {
        (self.jobs.jobs)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// The input's encoding, if `--encoding` gives it.
    pub fn encoding(&self) -> Option<Encoding> {
        self.read.encoding.encoding
    }

    /// The reader configuration these settings ask for.
    pub fn config(&self) -> gedcom_elf::ReaderConfig {
        gedcom_elf::ReaderConfig::new()
            .strict(self.read.strict)
            .version(self.read.gedcom_version)
    }
}

impl Command {
    /// The command's input and settings (`None` for `completions`).
    pub fn settings(&self) -> Option<(&str, Settings)> {
        let of = |read: &ReadOpts, jobs: Option<&JobOpts>, diag: &DiagOpts| Settings {
            read: read.clone(),
            jobs: jobs.cloned().unwrap_or_default(),
            diag: diag.clone(),
        };
        Some(match self {
            Command::Events { r, .. }
            | Command::Stats { r, .. }
            | Command::Count { r }
            | Command::Json { r }
            | Command::Gedcomx { r, .. }
            | Command::Get { r, .. } => {
                (r.input.file.as_str(), of(&r.read, Some(&r.jobs), &r.diag))
            }
            Command::FromGedcomx { file, diag, .. } => {
                (file.as_str(), of(&ReadOpts::default(), None, diag))
            }
            Command::Fmt { w } => (w.input.file.as_str(), of(&w.read, None, &w.diag)),
            Command::Convert { w, jobs, .. } => {
                (w.input.file.as_str(), of(&w.read, Some(jobs), &w.diag))
            }
            Command::Edit { e } => {
                let read = ReadOpts {
                    strict: false,
                    encoding: e.encoding.clone(),
                    gedcom_version: None,
                };
                (e.input.file.as_str(), of(&read, None, &e.diag))
            }
            Command::Completions { .. } | Command::Check(_) | Command::Table(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_parser_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn shared_options_before_the_command_move_after_it() {
        let moved = hoist(args(&["g", "--jobs", "3", "--strict", "-j2", "count", "x"]));
        assert_eq!(
            moved,
            args(&["g", "count", "--jobs", "3", "--strict", "-j2", "x"])
        );
        // Nothing to move, or no command after them: as given.
        for a in [
            &["g", "count", "x"][..],
            &["g", "--jobs", "2"],
            &["g", "--help"],
        ] {
            assert_eq!(hoist(args(a)), args(a));
        }
    }

    #[test]
    fn settings_come_from_the_command_s_options() {
        let cli = Cli::try_parse_from(hoist(args(&["g", "-j", "3", "count", "--strict", "x"])));
        let command = cli.unwrap().command.unwrap();
        let (file, s) = command.settings().unwrap();
        assert_eq!((file, s.jobs(), s.read.strict), ("x", 3, true));
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
