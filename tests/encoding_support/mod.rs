//! Helpers shared by the `encoding_*` integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gedcom_elf::{Diagnostic, DiagnosticKind, Event, Reader, Value};

/// Everything a reader produced, rendered for comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Read {
    /// One line per event: `+LEVEL TAG [XREF] [=POINTER | "TEXT"]` or `-LEVEL TAG`.
    pub events: Vec<String>,
    /// `(tag, text)` of every Begin with a string payload, in order.
    pub texts: Vec<(String, String)>,
    /// Every diagnostic, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// The error that stopped reading, as `(kind, line, message)`.
    pub error: Option<(gedcom_elf::ErrorKind, Option<u64>, String)>,
}

impl Read {
    /// The texts of the structures tagged `tag`, in order.
    pub fn texts_of(&self, tag: &str) -> Vec<&str> {
        self.texts
            .iter()
            .filter(|(t, _)| t == tag)
            .map(|(_, s)| s.as_str())
            .collect()
    }

    /// The diagnostics of `kind`.
    pub fn diagnostics_of(&self, kind: DiagnosticKind) -> Vec<&Diagnostic> {
        self.diagnostics.iter().filter(|d| d.kind == kind).collect()
    }
}

/// Reads every event (and every payload's text) and every diagnostic.
pub fn read(mut reader: Reader<'_>) -> Read {
    let mut out = Read::default();
    loop {
        let next = reader.next_event();
        out.diagnostics.extend(reader.drain_diagnostics());
        match next {
            Ok(Some(Event::Begin(b))) => {
                let mut s = format!("+{} {}", b.level, b.tag);
                if let Some(x) = &b.xref {
                    s += &format!(" {x}");
                }
                match &b.value {
                    Some(Value::Pointer(p)) => s += &format!(" ={p}"),
                    Some(Value::Text(t)) => {
                        let text = t.text().into_owned();
                        s += &format!(" {text:?}");
                        out.texts.push((b.tag.to_string(), text));
                    }
                    None => {}
                }
                out.events.push(s);
            }
            Ok(Some(Event::End(e))) => out.events.push(format!("-{} {}", e.level, e.tag)),
            Ok(None) => break,
            Err(e) => {
                out.error = Some((
                    e.kind(),
                    e.position().map(|p| p.line),
                    e.message().to_string(),
                ));
                break;
            }
        }
    }
    out
}

/// `s` in UTF-16 (big endian when `be`), with a byte-order mark when `bom`.
pub fn utf16(s: &str, be: bool, bom: bool) -> Vec<u8> {
    let mut units = Vec::new();
    if bom {
        units.push(0xFEFF_u16);
    }
    units.extend(s.encode_utf16());
    units
        .into_iter()
        .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
        .collect()
}

/// A fixture of this repository's `corpus/` folder.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The path of a fixture of this repository's `corpus/` folder.
pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name)
}

/// A file of the external corpus in `../shared/corpus`, read in place; `None` (after
/// printing why) when it is not there.
pub fn shared(name: &str) -> Option<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");
    let path = Path::new(dir).join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            println!(
                "skipping: external corpus file {} not readable ({e})",
                path.display()
            );
            None
        }
    }
}
