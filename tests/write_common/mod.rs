//! Helpers of the writer and editor tests.
//!
//! Event rendering for round-trip comparisons: one string per event, the HEAD's CHAR
//! structure (and its substructures) left out, texts optionally in NFC.

#![allow(dead_code)]

use gedcom_elf::{Encoding, Event, Input, Severity, Value};
use unicode_normalization::UnicodeNormalization;

/// The rendered events of `bytes` and the number of error diagnostics, or the read error.
pub fn events(bytes: &[u8], nfc: bool) -> Result<(Vec<String>, usize), String> {
    let input = Input::new(bytes).map_err(|e| e.to_string())?;
    let enc = input.encoding_info().encoding;
    let enc = if enc.is_utf16() { Encoding::Utf8 } else { enc };
    // Xrefs and pointers are raw octets in the input's encoding.
    let decode = |b: &[u8]| gedcom_elf::write::decode_xref(b, enc).into_owned();
    let mut reader = input.reader();
    let mut out = Vec::new();
    let mut errors = 0;
    let mut in_head = false;
    let mut skip_from: Option<u32> = None;
    loop {
        let event = reader.next_event().map_err(|e| e.to_string())?;
        errors += reader
            .drain_diagnostics()
            .filter(|d| d.severity() == Severity::Error)
            .count();
        let Some(event) = event else { break };
        match event {
            Event::Begin(b) => {
                if b.level == 0 {
                    in_head = b.tag.eq_ignore_ascii_case("HEAD");
                }
                if skip_from.is_some() {
                    continue;
                }
                if in_head && b.level == 1 && b.tag.eq_ignore_ascii_case("CHAR") {
                    skip_from = Some(1);
                    continue;
                }
                let mut s = format!("+{} {}", b.level, b.tag);
                if let Some(x) = &b.xref {
                    s += &format!(" {}", decode(x.as_bytes()));
                }
                match &b.value {
                    Some(Value::Pointer(p)) => s += &format!(" ={}", decode(p.as_bytes())),
                    Some(Value::Text(t)) => {
                        let text = t.text();
                        if nfc {
                            s += &format!(" {:?}", text.nfc().collect::<String>());
                        } else {
                            s += &format!(" {text:?}");
                        }
                    }
                    None => {}
                }
                out.push(s);
            }
            Event::End(e) => {
                if let Some(l) = skip_from {
                    if e.level == l {
                        skip_from = None;
                    }
                    continue;
                }
                out.push(format!("-{} {}", e.level, e.tag));
            }
        }
    }
    Ok((out, errors))
}

/// The files of `corpus/` and `../shared/corpus/` (when present), GEDCOM only.
pub fn corpus_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("corpus")];
    let shared = root.join("../shared/corpus");
    if shared.is_dir() {
        dirs.push(shared);
    } else {
        eprintln!("skipping the shared corpus: ../shared/corpus is absent");
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let is_ged = p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| x.eq_ignore_ascii_case("ged"));
            if is_ged && p.is_file() {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}
