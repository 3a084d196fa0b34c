//! Helpers shared by the `value_*` and `tree_typed` tests: the payloads of
//! chosen tags in `../shared/corpus`, with their superstructure's tag.
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;

#[allow(unused_imports)]
pub use common::{ged_files, shared_corpus, Rng};

use gedcom_elf::{Event, Input, Value};

/// A payload of the corpus.
#[derive(Debug)]
pub struct Found {
    /// The file's name.
    pub file: String,
    /// The line.
    pub line: u64,
    /// The tag.
    pub tag: String,
    /// The superstructure's tag.
    pub parent: Option<String>,
    /// The decoded payload text ("" for none).
    pub text: String,
}

/// Every structure of the shared corpus tagged one of `tags`, or `None`
/// when the corpus is absent.
pub fn corpus_payloads(tags: &[&str]) -> Option<Vec<Found>> {
    let dir = shared_corpus()?;
    let mut out = Vec::new();
    for (name, bytes) in ged_files(&dir) {
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        let file = name.rsplit('/').next().unwrap_or(&name).to_string();
        let mut stack: Vec<String> = Vec::new();
        for event in input.reader() {
            match event {
                Ok(Event::Begin(b)) => {
                    if tags.contains(&b.tag.as_ref()) {
                        let text = match &b.value {
                            Some(Value::Text(t)) => t.text().into_owned(),
                            _ => String::new(),
                        };
                        out.push(Found {
                            file: file.clone(),
                            line: b.line,
                            tag: b.tag.to_string(),
                            parent: stack.last().cloned(),
                            text,
                        });
                    }
                    stack.push(b.tag.to_string());
                }
                Ok(Event::End(_)) => {
                    stack.pop();
                }
                Err(_) => break,
            }
        }
    }
    Some(out)
}
