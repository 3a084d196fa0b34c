//! Writes a deterministic, realistic GEDCOM 5.5.1 file for benchmarks and
//! tests.
//!
//! ```text
//! cargo run --release --example generate -- [--individuals N | --bytes SIZE] [--seed S] [-o FILE]
//! ```
//!
//! `SIZE` takes an optional `K`, `M` or `G` suffix (powers of 1024), e.g.
//! `300M`. Without `-o` the file goes to standard output. Statistics go to
//! standard error.

#[path = "../benches/support/generate.rs"]
mod generate;

use std::fs::File;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: generate [--individuals N | --bytes SIZE(e.g. 300M)] [--seed S] [-o FILE]";

enum Size {
    Individuals(u64),
    Bytes(u64),
}

struct Args {
    size: Size,
    seed: u64,
    output: Option<String>,
}

fn parse_size(s: &str) -> Option<u64> {
    let (digits, mult) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1u64 << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1 << 20),
        b'g' | b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        size: Size::Individuals(10_000),
        seed: 1,
        output: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--individuals" | "-n" => {
                let v = value(&arg)?;
                let n = v.parse().map_err(|_| format!("bad count {v:?}"))?;
                args.size = Size::Individuals(n);
            }
            "--bytes" | "-b" => {
                let v = value(&arg)?;
                let n = parse_size(&v).ok_or(format!("bad size {v:?}"))?;
                args.size = Size::Bytes(n);
            }
            "--seed" | "-s" => {
                let v = value(&arg)?;
                args.seed = v.parse().map_err(|_| format!("bad seed {v:?}"))?;
            }
            "-o" | "--output" => args.output = Some(value(&arg)?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn run(args: &Args) -> io::Result<generate::GenStats> {
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(File::create(path)?),
        None => Box::new(io::stdout().lock()),
    };
    // `generate` buffers internally; a BufWriter only adds a copy.
    let out = &mut out;
    match args.size {
        Size::Individuals(n) => generate::generate(n, args.seed, out),
        Size::Bytes(b) => generate::generate_bytes(b, args.seed, out),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    match run(&args) {
        Ok(st) => {
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "bytes {}  lines {}  structures {}  records {}",
                st.bytes, st.lines, st.structures, st.records
            );
            eprintln!(
                "average {:.2} bytes/line  ({} continuation lines)  seed {}  {:.2} s",
                st.bytes as f64 / st.lines.max(1) as f64,
                st.lines - st.structures,
                args.seed,
                secs
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
