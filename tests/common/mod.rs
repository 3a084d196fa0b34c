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

pub fn render(input: &[u8]) -> Vec<String> {
    render_with(input, ReaderConfig::default())
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
