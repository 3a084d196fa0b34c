//! `convert FILE --encoding NAME [--line-ending lf|crlf|cr] [--input-encoding NAME] [-o OUT]`:
//! re-serialises FILE in another encoding (and `fmt`'s shared plumbing).

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

use gedcom_elf::write::{rewrite, LineEnding, WriterConfig};
use gedcom_elf::Encoding;

/// The input bytes and the name diagnostics use for them.
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Reads FILE (`-`: standard input) whole: the editor and the re-serialiser work on a
/// slice.
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

/// Where the output goes: `-o OUT`, or standard output.
pub fn open_output(path: Option<&str>) -> io::Result<Box<dyn Write>> {
    Ok(match path {
        None | Some("-") => Box::new(BufWriter::with_capacity(1 << 16, io::stdout().lock())),
        Some(p) => Box::new(BufWriter::with_capacity(1 << 16, File::create(p)?)),
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

/// Reads the file, rewrites it with `config`, reports problems; the exit status.
pub fn rewrite_file(args: &RewriteArgs, config: WriterConfig) -> ExitCode {
    let input = match load(&args.file) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{}: error: cannot read: {e}", args.file);
            return ExitCode::from(2);
        }
    };
    let mut out = match open_output(args.output.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gedcom-elf: error: cannot create output: {e}");
            return ExitCode::from(2);
        }
    };
    let result = rewrite(&input.bytes, args.input_encoding, config, &mut out);
    match result {
        Ok(stats) => {
            if stats.read_errors > 0 {
                eprintln!(
                    "{}: warning: the input has {} reading error(s); ERROR structures were written as the reader made them",
                    input.name, stats.read_errors
                );
            }
            flushed(out.flush())
        }
        Err(e) => {
            let _ = out.flush();
            eprintln!("{}: error: {e}", input.name);
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
