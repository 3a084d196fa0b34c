//! Trees written back through the writer read as the same events (apart
//! from the HEAD's CHAR payload, which names the output encoding).

mod common;

use gedcom_elf::bridge::write_tree;
use gedcom_elf::{Event, Input, Severity, Tree, Value, Writer};

/// Events as comparable strings, without the HEAD's CHAR structure (the
/// writer writes its own, first), spans and line numbers.
fn events(bytes: &[u8]) -> Option<Vec<String>> {
    let input = Input::new(bytes).ok()?;
    let mut reader = input.reader();
    let mut out = Vec::new();
    let mut record = String::new();
    let mut in_char = false;
    while let Some(e) = reader.next_event().ok()? {
        match e {
            Event::Begin(b) if b.level == 0 => {
                record = b.tag.to_string();
                out.push(format!("+0 {record}"));
            }
            Event::Begin(b) if b.level == 1 => {
                in_char = b.tag == "CHAR" && record == "HEAD";
                if !in_char {
                    out.push(format!("+1 {} {:?}", b.tag, b.text()));
                }
            }
            Event::End(e) if e.level == 1 && in_char => in_char = false,
            _ if in_char => {}
            Event::Begin(b) => {
                let value = match &b.value {
                    Some(Value::Pointer(p)) => format!("={p}"),
                    Some(Value::Text(t)) => format!("{:?}", t.text()),
                    None => String::new(),
                };
                let xref = b.xref.as_ref().map(|x| x.to_string()).unwrap_or_default();
                out.push(format!("+{} {} {xref} {value}", b.level, b.tag));
            }
            Event::End(e) => out.push(format!("-{} {}", e.level, e.tag)),
        }
    }
    if reader
        .drain_diagnostics()
        .any(|d| d.severity() == Severity::Error)
    {
        return None;
    }
    Some(out)
}

#[test]
fn corpus_trees_written_back_read_the_same() {
    let mut checked = 0;
    let mut files = common::project_corpus();
    if let Some(dir) = common::shared_corpus() {
        files.extend(common::ged_files(&dir));
    }
    for (name, bytes) in files {
        let Some(want) = events(&bytes) else { continue };
        let input = Input::new(&bytes).unwrap();
        let source = input.encoding_info().encoding;
        let source = if source.is_utf16() {
            gedcom_elf::Encoding::Utf8
        } else {
            source
        };
        let tree = Tree::from_input(&input).unwrap();
        let mut w = Writer::new(Vec::new());
        write_tree(&mut w, &tree, source).unwrap_or_else(|e| panic!("{name}: {e}"));
        // A final TRLR is written by the writer; none if the input had none.
        if tree.records().last().is_some_and(|r| r.tag() == "TRLR") {
            w.trailer().unwrap();
        }
        let out = w.finish().unwrap();
        assert_eq!(events(&out).as_ref(), Some(&want), "{name}");
        checked += 1;
    }
    assert!(checked > 30, "only {checked} files checked");
}
