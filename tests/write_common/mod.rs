//! Helpers of the writer and editor tests.
//!
//! Event rendering for round-trip comparisons: one string per event, texts optionally
//! in NFC, in a form the writer's `CHAR` rule leaves as it is: in each `HEAD`, the
//! substructures of the first `CHAR` but its `VERS` structures come first (where the
//! writer puts them, under its own `CHAR`), then the `HEAD`'s other substructures but
//! every `CHAR`; the `CHAR` and `VERS` lines themselves are left out.

#![allow(dead_code)]

use gedcom_elf::{Begin, Encoding, Event, Input, Severity, Value};
use unicode_normalization::UnicodeNormalization;

/// Where the events of a `HEAD` go (see the module documentation).
#[derive(Clone, Copy, PartialEq, Eq)]
enum InHead {
    /// Not in a `HEAD`, or directly in one.
    Out,
    /// In its first `CHAR`.
    Char,
    /// In a `VERS` of that `CHAR`, or in a later `CHAR`: left out.
    Skip(u32),
}

/// Renders `b` as one string: level, tag, xref, payload.
fn render(b: &Begin<'_>, decode: &dyn Fn(&[u8]) -> String, nfc: bool) -> String {
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
    s
}

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
    let mut chars = 0;
    let mut at = InHead::Out;
    // A HEAD's first CHAR's substructures, and the rest of it.
    let mut char_part: Vec<String> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
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
                    chars = 0;
                    out.push(render(&b, &decode, nfc));
                    continue;
                }
                if !in_head {
                    out.push(render(&b, &decode, nfc));
                    continue;
                }
                match at {
                    InHead::Skip(_) => {}
                    InHead::Out if b.level == 1 && b.tag.eq_ignore_ascii_case("CHAR") => {
                        chars += 1;
                        at = if chars == 1 {
                            InHead::Char
                        } else {
                            InHead::Skip(1)
                        };
                    }
                    InHead::Out => rest.push(render(&b, &decode, nfc)),
                    InHead::Char if b.level == 2 && b.tag.eq_ignore_ascii_case("VERS") => {
                        at = InHead::Skip(2);
                    }
                    InHead::Char => char_part.push(render(&b, &decode, nfc)),
                }
            }
            Event::End(e) => {
                let end = format!("-{} {}", e.level, e.tag);
                if !in_head {
                    out.push(end);
                    continue;
                }
                match at {
                    InHead::Skip(l) if l == e.level => {
                        at = if l == 2 { InHead::Char } else { InHead::Out };
                    }
                    InHead::Skip(_) => {}
                    InHead::Char if e.level == 1 => at = InHead::Out,
                    InHead::Char => char_part.push(end),
                    InHead::Out if e.level == 0 => {
                        out.append(&mut char_part);
                        out.append(&mut rest);
                        out.push(end);
                    }
                    InHead::Out => rest.push(end),
                }
            }
        }
    }
    // A HEAD the input ends in.
    out.append(&mut char_part);
    out.append(&mut rest);
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
