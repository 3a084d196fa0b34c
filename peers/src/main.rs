//! Reading speed of gedcom-elf next to other Rust GEDCOM readers.
//!
//! ```text
//! cargo run --release -p gedcom-elf-peers -- FILE [--runs N]
//! ```
//!
//! The file is read into memory once; then each contender parses those same
//! bytes `N` times (default 5), one contender after the other, in this one
//! process. For each the median throughput is printed in MB/s (10^6 bytes
//! per second) along with its ratio to `line-count`, a memchr count of LF
//! bytes that stands for the physical limit of touching every byte once.
//! A ratio of 0.25 means a quarter of line-count's speed.
//!
//! Contenders:
//! - `line-count`: `memchr` count of `b'\n'`.
//! - `ged_io-stream`: `ged_io::GedcomStreamParser` over the in-memory bytes
//!   (a `&[u8]` is a `BufRead`), one typed record at a time.
//! - `ged_io-tree`: `ged_io::GedcomBuilder::build_from_bytes`, the whole
//!   file into a `GedcomData` tree (encoding detection and decoding
//!   included, as that is what this entry point does).
//! - `gedcom`: `gedcom::parse` over the text's `chars()` after a UTF-8
//!   check. This crate panics on input it does not know, so every contender
//!   runs under `catch_unwind` and a panic is reported, not propagated.
//! - `gedcom-elf-events`: `gedcom_elf::Reader::from_slice` with the default
//!   configuration, counting every `next_event` (Begin and End, so twice the
//!   number of structures; payload text is not decoded).
//! - `gedcom-elf-tree`: `gedcom_elf::tree::Tree::from_input`, the whole
//!   file into the arena tree (xref index, pointers resolved), counting
//!   records.
//! - `gedcom-elf-tree-parallel`: `gedcom_elf::tree::Tree::from_chunks` on
//!   every core, the same tree.
//! - `gedcom-elf-records`: `gedcom_elf::tree::Records` over the in-memory
//!   bytes (an `io::Read`), one owned record tree at a time, each dropped
//!   before the next: the counterpart of `ged_io-stream`.
//! - `gedcom-elf-records-parallel`: the same, with `Records::jobs` set to
//!   every core (batches of records read on worker threads, merged in
//!   order).
//!
//! Each timed run includes dropping what the contender built. Peak memory
//! is not measured here: run the binary under `/usr/bin/time -v` for that.

use std::hint::black_box;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What one run of a contender produced.
enum Outcome {
    /// Parsed everything; the number of items it reports (lines, records,
    /// events), to check that contenders saw the same file.
    Items(u64),
    /// Returned an error.
    Failed(String),
    /// Panicked, with the panic message.
    Panicked(String),
    /// Not available in this build.
    NotWired,
}

/// One reader under test.
struct Contender {
    name: &'static str,
    /// What [`Outcome::Items`] counts.
    unit: &'static str,
    run: fn(&[u8]) -> Outcome,
}

const CONTENDERS: &[Contender] = &[
    Contender {
        name: "line-count",
        unit: "lines",
        run: line_count,
    },
    Contender {
        name: "ged_io-stream",
        unit: "records",
        run: ged_io_stream,
    },
    Contender {
        name: "ged_io-tree",
        unit: "records",
        run: ged_io_tree,
    },
    Contender {
        name: "gedcom",
        unit: "records",
        run: gedcom_tree,
    },
    Contender {
        name: "gedcom-elf-events",
        unit: "events",
        run: |bytes| match elf_events(bytes) {
            None => Outcome::NotWired,
            Some(Ok(n)) => Outcome::Items(n),
            Some(Err(e)) => Outcome::Failed(e.to_string()),
        },
    },
    Contender {
        name: "gedcom-elf-events+text",
        unit: "events",
        run: elf_events_text,
    },
    Contender {
        name: "gedcom-elf-stream-64k",
        unit: "events",
        run: elf_stream,
    },
    Contender {
        name: "gedcom-elf-parallel",
        unit: "events",
        run: elf_parallel,
    },
    Contender {
        name: "gedcom-elf-tree",
        unit: "records",
        run: elf_tree,
    },
    Contender {
        name: "gedcom-elf-tree-parallel",
        unit: "records",
        run: elf_tree_parallel,
    },
    Contender {
        name: "gedcom-elf-records",
        unit: "records",
        run: elf_records,
    },
    Contender {
        name: "gedcom-elf-records-parallel",
        unit: "records",
        run: elf_records_parallel,
    },
];

/// Record trees one at a time (the HEAD and TRLR are records too, as in
/// `ged_io-stream`'s count).
fn elf_records(bytes: &[u8]) -> Outcome {
    records_on(bytes, 1)
}

/// The same record trees, their batches read on every core.
fn elf_records_parallel(bytes: &[u8]) -> Outcome {
    records_on(
        bytes,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )
}

fn records_on(bytes: &[u8], jobs: usize) -> Outcome {
    let mut n = 0u64;
    for r in gedcom_elf::tree::Records::new(bytes).jobs(jobs) {
        match r {
            Ok(r) => n += u64::from(black_box(&r).len() > 0),
            Err(e) => return Outcome::Failed(e.to_string()),
        }
    }
    Outcome::Items(n)
}

/// The whole file as a `gedcom_elf` tree (encoding detection included).
fn elf_tree(bytes: &[u8]) -> Outcome {
    let run = || -> Result<u64, gedcom_elf::Error> {
        let input = gedcom_elf::Input::new(bytes)?;
        let tree = gedcom_elf::tree::Tree::from_input(&input)?;
        Ok(black_box(&tree).record_count() as u64)
    };
    match run() {
        Ok(n) => Outcome::Items(n),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// The same tree built on every core.
fn elf_tree_parallel(bytes: &[u8]) -> Outcome {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = || -> Result<u64, gedcom_elf::Error> {
        let input = gedcom_elf::Input::new(bytes)?;
        let config = gedcom_elf::ReaderConfig::new();
        let chunks = gedcom_elf::par::Chunks::new(&input, config)?.jobs(jobs);
        let tree = gedcom_elf::tree::Tree::from_chunks(chunks)?;
        Ok(black_box(&tree).record_count() as u64)
    };
    match run() {
        Ok(n) => Outcome::Items(n),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// Events plus every string payload decoded with `text()`: the work a tree
/// of owned strings (what `ged_io` builds) implies.
fn elf_events_text(bytes: &[u8]) -> Outcome {
    let mut reader = gedcom_elf::Reader::from_slice(bytes);
    let mut events = 0u64;
    loop {
        // Matched by reference: moving a 128-byte event out of the
        // `Result` costs a copy (see `Reader`'s docs).
        match &reader.next_event() {
            Ok(Some(event)) => {
                if let gedcom_elf::Event::Begin(b) = event {
                    black_box(b.text());
                }
                events += 1;
            }
            Ok(None) => return Outcome::Items(events),
            Err(e) => return Outcome::Failed(e.to_string()),
        }
    }
}

/// The streaming reader over a 64 KiB `BufReader` (as for stdin).
fn elf_stream(bytes: &[u8]) -> Outcome {
    let source = std::io::BufReader::with_capacity(64 << 10, bytes);
    let mut stream = gedcom_elf::stream::StreamReader::new(source);
    let mut buf = Vec::new();
    let mut events = 0u64;
    loop {
        let mut batch = match stream.read_batch_into(&mut buf) {
            Ok(Some(b)) => b,
            Ok(None) => return Outcome::Items(events),
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        loop {
            match &batch.next_event() {
                Ok(Some(e)) => {
                    black_box(e);
                    events += 1;
                }
                Ok(None) => break,
                Err(e) => return Outcome::Failed(e.to_string()),
            }
        }
    }
}

/// Record-aligned chunks read on every core.
fn elf_parallel(bytes: &[u8]) -> Outcome {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = || -> Result<u64, gedcom_elf::Error> {
        let input = gedcom_elf::Input::new(bytes)?;
        let chunks = gedcom_elf::par::Chunks::new(&input, gedcom_elf::ReaderConfig::new())?;
        let out = chunks.batch_bytes(2 << 20).jobs(jobs).map(|r| {
            let mut n = 0u64;
            loop {
                match &r.next_event() {
                    Ok(Some(e)) => black_box(e),
                    Ok(None) => return Ok(n),
                    Err(e) => return Err(e.clone()),
                };
                n += 1;
            }
        })?;
        Ok(out.results.iter().sum())
    };
    match run() {
        Ok(n) => Outcome::Items(n),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

fn line_count(bytes: &[u8]) -> Outcome {
    Outcome::Items(memchr::memchr_iter(b'\n', bytes).count() as u64)
}

fn ged_io_stream(bytes: &[u8]) -> Outcome {
    let parser = match ged_io::GedcomStreamParser::new(bytes) {
        Ok(p) => p,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mut records = 0u64;
    for record in parser {
        match record {
            Ok(r) => {
                black_box(&r);
                records += 1;
            }
            Err(e) => return Outcome::Failed(format!("after {records} records: {e}")),
        }
    }
    Outcome::Items(records)
}

fn ged_io_tree(bytes: &[u8]) -> Outcome {
    match ged_io::GedcomBuilder::new().build_from_bytes(bytes) {
        Ok(data) => {
            let d = black_box(&data);
            let records = usize::from(d.header.is_some())
                + d.submitters.len()
                + d.submissions.len()
                + d.individuals.len()
                + d.families.len()
                + d.repositories.len()
                + d.sources.len()
                + d.multimedia.len()
                + d.shared_notes.len()
                + d.custom_data.len();
            Outcome::Items(records as u64)
        }
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

fn gedcom_tree(bytes: &[u8]) -> Outcome {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return Outcome::Failed(format!("not UTF-8: {e}")),
    };
    let data = gedcom::parse(text.chars());
    let d = black_box(&data);
    let records = 1 // the header is not optional in this crate
        + d.submitters.len()
        + d.individuals.len()
        + d.families.len()
        + d.repositories.len()
        + d.sources.len()
        + d.multimedia.len();
    Outcome::Items(records as u64)
}

/// gedcom-elf's event reader: the number of events (Begin and End) for the
/// whole file, with the default configuration. `None` is kept as the "not
/// wired" signal for builds without a reader; this one always has it.
fn elf_events(bytes: &[u8]) -> Option<Result<u64, gedcom_elf::Error>> {
    let mut reader = gedcom_elf::Reader::from_slice(bytes);
    let mut events = 0u64;
    loop {
        match &reader.next_event() {
            Ok(Some(event)) => {
                black_box(event);
                events += 1;
            }
            Ok(None) => return Some(Ok(events)),
            Err(e) => return Some(Err(e.clone())),
        }
    }
}

/// Runs a contender once, turning a panic into [`Outcome::Panicked`].
fn run_once(c: &Contender, bytes: &[u8]) -> (Outcome, Duration) {
    let start = Instant::now();
    let result = panic::catch_unwind(AssertUnwindSafe(|| (c.run)(black_box(bytes))));
    let elapsed = start.elapsed();
    let outcome = match result {
        Ok(o) => o,
        Err(payload) => {
            let msg = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "non-string panic payload".to_string()
            };
            Outcome::Panicked(msg)
        }
    };
    (outcome, elapsed)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        (times[mid - 1] + times[mid]) / 2
    }
}

/// The first line of a message, shortened to `max` characters.
fn short(msg: &str, max: usize) -> String {
    let line = msg.lines().next().unwrap_or("");
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    }
}

fn mb_per_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

const USAGE: &str = "usage: gedcom-elf-peers FILE [--runs N]";

fn parse_args() -> Result<(String, usize), String> {
    let mut file = None;
    let mut runs = 5;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" | "-r" => {
                let v = it.next().ok_or("--runs needs a value")?;
                runs = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or(format!("bad run count {v:?}"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            _ if file.is_none() && !arg.starts_with('-') => file = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    Ok((file.ok_or("no FILE given")?, runs))
}

fn main() -> ExitCode {
    let (path, runs) = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let size = bytes.len();
    // The table is printed at the end, after anything the peers print
    // themselves (the gedcom crate writes warnings to standard output).
    let mut table = vec![
        format!(
            "{path}: {size} bytes ({:.1} MB), {runs} run(s) per contender, median shown",
            size as f64 / 1e6
        ),
        format!(
            "{:<27} {:>10} {:>13} {:>22}  {}",
            "contender", "MB/s", "x line-count", "min..max MB/s", "items"
        ),
    ];

    // Panics are reported in the table; keep the default hook from printing
    // a message and backtrace note for each one.
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));

    let mut reference: Option<f64> = None;
    for c in CONTENDERS {
        let mut times = Vec::with_capacity(runs);
        let mut items = None;
        let mut problem = None;
        for run in 0..runs {
            let (outcome, t) = run_once(c, &bytes);
            eprintln!("  {} run {}: {:.3} s", c.name, run + 1, t.as_secs_f64());
            match outcome {
                Outcome::Items(n) => {
                    items = Some(n);
                    times.push(t);
                }
                Outcome::Failed(e) => problem = Some(format!("failed: {}", short(&e, 100))),
                Outcome::Panicked(m) => problem = Some(format!("panicked: {}", short(&m, 100))),
                Outcome::NotWired => problem = Some("not wired".to_string()),
            }
            if problem.is_some() {
                break;
            }
        }
        if let Some(p) = problem {
            table.push(format!(
                "{:<27} {:>10} {:>13} {:>22}  {p}",
                c.name, "-", "-", "-"
            ));
            continue;
        }
        let fastest = *times.iter().min().expect("at least one run");
        let slowest = *times.iter().max().expect("at least one run");
        let speed = mb_per_s(size, median(&mut times));
        let base = *reference.get_or_insert(speed);
        table.push(format!(
            "{:<27} {:>10.1} {:>13.4} {:>22}  {} {}",
            c.name,
            speed,
            speed / base,
            format!(
                "{:.1}..{:.1}",
                mb_per_s(size, slowest),
                mb_per_s(size, fastest)
            ),
            items.unwrap_or(0),
            c.unit
        ));
    }
    panic::set_hook(default_hook);
    for row in table {
        println!("{row}");
    }
    ExitCode::SUCCESS
}
