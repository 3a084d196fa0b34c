//! `convert FILE --encoding NAME [--line-ending lf|crlf|cr] [--input-encoding NAME] [-o OUT]`:
//! re-serialises FILE in another encoding (and `fmt`'s shared plumbing).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use gedcom_elf::stream::StreamReader;
use gedcom_elf::write::{LineEnding, WriteError, Writer, WriterConfig};
use gedcom_elf::{Diagnostic, Encoding, Event, ReaderConfig, Severity};

use indicatif::ProgressBar;

use crate::drive::{read_stdin, Counted, Events, FileBytes, Progress, BATCH};

/// The input bytes and the name diagnostics use for them.
pub struct Input {
    pub name: String,
    pub bytes: FileBytes,
}

/// FILE memory-mapped, or standard input (`-`) read whole, for the editor,
/// which works on a slice: [`gedcom_elf::edit::edit`] maps offsets in what
/// it reads back to the original octets (UTF-16 included), which a stream
/// of batches (transcoded, byte-order mark removed) cannot give it.
pub fn load(file: &str) -> io::Result<Input> {
    if file == "-" {
        Ok(Input {
            name: "<stdin>".into(),
            bytes: FileBytes::Read(read_stdin()?),
        })
    } else {
        Ok(Input {
            name: file.to_string(),
            bytes: FileBytes::open(file)?,
        })
    }
}

/// The exit status after flushing the output: a closed stdout (`| head`) is success.
pub fn flushed(r: io::Result<()>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gedcom-elf: error: cannot write output: {e}");
            ExitCode::from(2)
        }
    }
}

/// Where the output goes: `-o OUT`, or standard output; `bar`, when
/// given, moves by the bytes written.
pub fn open_output(path: Option<&str>, bar: Option<ProgressBar>) -> io::Result<Box<dyn Write>> {
    let raw: Box<dyn Write> = match path {
        None | Some("-") => Box::new(io::stdout().lock()),
        Some(p) => Box::new(File::create(p)?),
    };
    Ok(match bar {
        Some(bar) => Box::new(BufWriter::with_capacity(
            1 << 16,
            Counted { inner: raw, bar },
        )),
        None => Box::new(BufWriter::with_capacity(1 << 16, raw)),
    })
}

/// Parsed options of `convert` and `fmt`.
pub struct RewriteArgs {
    pub file: String,
    pub output: Option<String>,
    pub encoding: Option<Encoding>,
    pub input_encoding: Option<Encoding>,
    pub line_ending: LineEnding,
}

/// Parses `FILE [--encoding NAME] [--line-ending E] [--input-encoding NAME] [-o OUT]`;
/// `allow_output_options` false (for `fmt`) refuses `--encoding` and `--line-ending`.
pub fn parse(args: &[String], allow_output_options: bool) -> Result<RewriteArgs, String> {
    let mut r = RewriteArgs {
        file: String::new(),
        output: None,
        encoding: None,
        input_encoding: None,
        line_ending: LineEnding::Lf,
    };
    let mut file = None;
    let mut it = args.iter();
    let encoding = |name: Option<&String>, opt: &str| -> Result<Encoding, String> {
        let name = name.ok_or_else(|| format!("{opt} needs a NAME"))?;
        let key = name.to_ascii_lowercase();
        // UNICODE is UTF-16; little endian, as most files that say so are.
        if matches!(key.as_str(), "unicode" | "utf-16" | "utf16") {
            return Ok(Encoding::Utf16Le);
        }
        Encoding::from_name(name).ok_or_else(|| format!("unknown encoding {name:?}"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" => r.output = Some(it.next().ok_or("-o needs a file")?.clone()),
            "--encoding" if allow_output_options => {
                r.encoding = Some(encoding(it.next(), "--encoding")?)
            }
            "--input-encoding" => r.input_encoding = Some(encoding(it.next(), a)?),
            "--line-ending" if allow_output_options => {
                let name = it.next().ok_or("--line-ending needs lf, crlf or cr")?;
                r.line_ending = LineEnding::from_name(name)
                    .ok_or_else(|| format!("unknown line ending {name:?}"))?;
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
    r.file = file.ok_or("missing FILE")?;
    Ok(r)
}

/// Why a rewrite stopped.
enum Failure {
    /// The input could not be read (nothing was written).
    Read(gedcom_elf::Error),
    /// The writer refused a structure, or writing failed.
    Write(WriteError),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Read(e) => e.fmt(f),
            Failure::Write(e) => e.fmt(f),
        }
    }
}

/// The library's [`rewrite`](gedcom_elf::rewrite), fed piece by piece, so
/// that standard input streams through it in bounded memory: each event
/// is written as it is read, the writer's escape table is the input's
/// (complete once the first event was read), and xrefs are decoded from the
/// reader's encoding (UTF-8 for UTF-16, which is read transcoded).
struct Rewriter<W: Write> {
    config: WriterConfig,
    out: Option<W>,
    writer: Option<(Writer<W>, Encoding)>,
    read_errors: u64,
}

impl<W: Write> Rewriter<W> {
    fn new(config: WriterConfig, out: W) -> Self {
        Rewriter {
            config,
            out: Some(out),
            writer: None,
            read_errors: 0,
        }
    }

    fn count(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        for d in ds {
            if d.severity() == Severity::Error {
                self.read_errors += 1;
            }
        }
    }

    /// Writes every event of `events`, moving `progress` to the input
    /// offsets read.
    fn feed<'a, E: Events<'a>>(
        &mut self,
        events: &mut E,
        progress: Option<&Progress>,
    ) -> Result<(), Failure> {
        let mut begins = 0u32;
        loop {
            let event = events.next_event().map_err(Failure::Read)?;
            let ds = events.take_diagnostics();
            self.count(ds);
            let Some(event) = event else { return Ok(()) };
            let (w, source) = match self.writer.as_mut() {
                Some(w) => w,
                None => {
                    let (escapes, enc) = events
                        .reader()
                        .map(|r| (r.escape_table().clone(), r.encoding()))
                        .unwrap_or((Default::default(), Encoding::Utf8));
                    let source = if enc.is_utf16() { Encoding::Utf8 } else { enc };
                    let config = self.config.clone().escapes(escapes).cr_is_line_break(false);
                    let Some(o) = self.out.take() else {
                        return Ok(());
                    };
                    self.writer.insert((Writer::with_config(o, config), source))
                }
            };
            if let (Some(p), Event::Begin(b)) = (progress, &event) {
                begins += 1;
                if begins.is_multiple_of(4096) {
                    p.set(b.span.end as u64);
                }
            }
            w.write_event(&event, *source).map_err(Failure::Write)?;
        }
    }

    /// Ends the output.
    fn finish(self) -> Result<(), Failure> {
        match self.writer {
            Some((w, _)) => w.finish().map(drop).map_err(Failure::Write),
            None => Ok(()),
        }
    }
}

/// Rewrites a file (memory-mapped) or standard input (streamed).
fn rewrite_input<W: Write>(args: &RewriteArgs, rewriter: &mut Rewriter<W>) -> Result<(), Failure> {
    if args.file == "-" {
        let stdin = io::stdin();
        let config = ReaderConfig::new().encoding(args.input_encoding);
        let mut stream = StreamReader::with_config(stdin.lock(), config).batch_size(BATCH);
        let progress = Progress::new(None);
        let mut buf = Vec::new();
        let mut bytes = 0u64;
        loop {
            let Some(mut batch) = stream.read_batch_into(&mut buf).map_err(Failure::Read)? else {
                break;
            };
            rewriter.feed(&mut batch, None)?;
            drop(batch);
            bytes += buf.len() as u64;
            progress.set(bytes);
        }
        rewriter.count(stream.drain_diagnostics());
        return Ok(());
    }
    let file = FileBytes::open(&args.file).map_err(|e| Failure::Read(e.into()))?;
    let input = gedcom_elf::Input::with_encoding(file.bytes(), args.input_encoding)
        .map_err(Failure::Read)?;
    let progress = Progress::new(Some(input.bytes().len() as u64));
    rewriter.feed(&mut input.reader(), Some(&progress))
}

/// Rewrites the input with `config`, reports problems; the exit status.
pub fn rewrite_file(args: &RewriteArgs, config: WriterConfig) -> ExitCode {
    let name = if args.file == "-" {
        "<stdin>"
    } else {
        args.file.as_str()
    };
    let mut out = match open_output(args.output.as_deref(), None) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gedcom-elf: error: cannot create output: {e}");
            return ExitCode::from(2);
        }
    };
    let mut rewriter = Rewriter::new(config, &mut out);
    let result = rewrite_input(args, &mut rewriter);
    let read_errors = rewriter.read_errors;
    match result.and_then(|()| rewriter.finish()) {
        Ok(()) => {
            if read_errors > 0 {
                eprintln!(
                    "{name}: warning: the input has {read_errors} reading error(s); ERROR structures were written as the reader made them",
                );
            }
            flushed(out.flush())
        }
        Err(e) => {
            let _ = out.flush();
            eprintln!("{name}: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `convert`.
pub fn run(args: &[String]) -> ExitCode {
    let parsed = match parse(args, true) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("gedcom-elf convert: {e}\n\n{}", crate::USAGE);
            return ExitCode::from(2);
        }
    };
    let Some(encoding) = parsed.encoding else {
        eprintln!(
            "gedcom-elf convert: --encoding NAME is required\n\n{}",
            crate::USAGE
        );
        return ExitCode::from(2);
    };
    let config = WriterConfig::new()
        .encoding(encoding)
        .line_ending(parsed.line_ending);
    rewrite_file(&parsed, config)
}
