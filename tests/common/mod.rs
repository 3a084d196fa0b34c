//! Helpers shared by the integration tests.
#![allow(dead_code)]

use gedcom_elf::{Event, Reader, ReaderConfig, Value};

/// Renders every event compactly: `+L TAG [@X@] [=@P@ | "text"]` and `-L TAG`,
/// then diagnostics as `!LINE kind`.
pub fn render_with(input: &[u8], config: ReaderConfig) -> Vec<String> {
    let mut reader = Reader::with_config(input, config);
    let mut out = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(Event::Begin(b))) => {
                let mut s = format!("+{} {}", b.level, b.tag);
                if let Some(x) = &b.xref {
                    s += &format!(" {x}");
                }
                match &b.value {
                    Some(Value::Pointer(p)) => s += &format!(" ={p}"),
                    Some(Value::Text(t)) => s += &format!(" {:?}", t.text()),
                    None => {}
                }
                out.push(s);
            }
            Ok(Some(Event::End(e))) => out.push(format!("-{} {}", e.level, e.tag)),
            Ok(None) => break,
            Err(e) => {
                out.push(format!("ERR {:?} {}", e.kind(), e));
                break;
            }
        }
    }
    for d in reader.drain_diagnostics() {
        out.push(format!("!{} {}", d.position.line, d.kind.id()));
    }
    out
}

/// Renders with the encoding forced to UTF-8 (most rule tests have no `CHAR`
/// line, and would otherwise be read as ANSEL, the GEDCOM default).
pub fn render(input: &[u8]) -> Vec<String> {
    render_with(input, utf8())
}

pub fn utf8() -> ReaderConfig {
    ReaderConfig::new().encoding(Some(gedcom_elf::Encoding::Utf8))
}

/// Only the begin lines and diagnostics (ends are implied by nesting).
pub fn begins(input: &[u8]) -> Vec<String> {
    render(input)
        .into_iter()
        .filter(|s| !s.starts_with('-'))
        .collect()
}

/// The directory of the external corpus, when present.
pub fn shared_corpus() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: ../shared/corpus is absent");
        None
    }
}

/// Every `.ged` file (any case) in `dir`, as `(name, bytes)`, sorted by name.
pub fn ged_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged")))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// The `.ged` files of every corpus there is, each directory's sorted:
/// `../shared/corpus`, the GEDCOM 7 samples of `../shared/corpus7`, and
/// the project's `corpus/`. Directories that are absent are passed over.
pub fn all_corpus_paths() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in [
        "../shared/corpus",
        "../shared/corpus7/gedcom70",
        "../shared/corpus7/gedcom71",
        "corpus",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<std::path::PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("ged")))
            .collect();
        files.sort();
        all.extend(files);
    }
    all
}

/// The project's own corpus (`corpus/`).
pub fn project_corpus() -> Vec<(String, Vec<u8>)> {
    let files = ged_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    assert!(files.len() > 40, "corpus/ has only {} files", files.len());
    files
}

/// How many records of each tag `input` has (`HEAD` and `TRLR` included),
/// as the reader reads it.
pub fn record_counts(input: &[u8]) -> std::collections::BTreeMap<String, usize> {
    let prepared = gedcom_elf::Input::new(input).expect("input");
    let mut reader = prepared.reader();
    let mut counts = std::collections::BTreeMap::new();
    while let Some(event) = reader.next_event().expect("read") {
        if let Event::Begin(b) = event {
            if b.level == 0 {
                *counts.entry(b.tag.to_string()).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// `counts` as `record_counts` gives them, from `(tag, count)` pairs.
pub fn counts_of(pairs: &[(&str, usize)]) -> std::collections::BTreeMap<String, usize> {
    pairs.iter().map(|(t, n)| (t.to_string(), *n)).collect()
}

/// A small deterministic xorshift generator for generated test cases (the
/// project's habit: no proptest dependency, see README).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
