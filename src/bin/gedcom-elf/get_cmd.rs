//! `gedcom-elf get FILE XREF [PATH]`: one record, or the nodes at a path
//! under it, as GEDCOM text.
//!
//! The text is written from the tree, in UTF-8 with LF line breaks and
//! single spaces, each line at its level in the document: payload line
//! breaks become `CONT` lines, `@` is written `@@` except in the escapes
//! the tag preserves (seed §5.2), and no line is split with `CONC`.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use gedcom_elf::tree::{NodeRef, Step, Tree};
use gedcom_elf::{EscapeSet, Value};

use crate::tree_cmd::with_input;
use crate::{fail, finish, print_diagnostic, Options};

/// Writes a payload's text with `@` encoded: preserved escapes verbatim,
/// every other `@` doubled.
fn write_payload<W: Write>(out: &mut W, text: &str, preserve: EscapeSet) -> io::Result<()> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        if b[i] != b'@' {
            i += 1;
            continue;
        }
        // "@#" [A-Z] [^@\r\n]* "@ " with a preserved type stays as it is.
        if b.get(i + 1) == Some(&b'#') && b.get(i + 2).is_some_and(|&t| preserve.contains(t)) {
            if let Some(j) = b[i + 3..]
                .iter()
                .position(|&c| c == b'@' || c == b'\n' || c == b'\r')
            {
                let at = i + 3 + j;
                if b[at] == b'@' && b.get(at + 1) == Some(&b' ') {
                    i = at + 2;
                    continue;
                }
            }
        }
        out.write_all(&b[start..i])?;
        out.write_all(b"@@")?;
        i += 1;
        start = i;
    }
    out.write_all(&b[start..])
}

/// Writes the subtree of `node` as GEDCOM lines.
pub fn write_subtree<W: Write>(
    out: &mut W,
    node: NodeRef<'_>,
    escapes: &dyn Fn(&str) -> EscapeSet,
) -> io::Result<()> {
    let base = node.level() as usize;
    let mut walk = node.walk();
    while let Some(step) = walk.next() {
        let Step::Enter(n) = step else { continue };
        let level = base + walk.depth() - 1;
        write!(out, "{level}")?;
        if let Some(x) = n.xref() {
            out.write_all(b" ")?;
            out.write_all(x.as_bytes())?;
        }
        write!(out, " {}", n.tag())?;
        match n.value() {
            Some(Value::Pointer(p)) => {
                out.write_all(b" ")?;
                out.write_all(p.as_bytes())?;
            }
            Some(Value::Text(t)) => {
                let text = t.text();
                let preserve = escapes(n.tag());
                for (k, line) in text.split('\n').enumerate() {
                    if k > 0 {
                        write!(out, "\n{} CONT", level + 1)?;
                    }
                    if !line.is_empty() {
                        out.write_all(b" ")?;
                        write_payload(out, line, preserve)?;
                    }
                }
            }
            None => {}
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

pub fn run(opts: &Options) -> ExitCode {
    let name = opts.name();
    let (xref, path) = match &opts.args[..] {
        [x] => (x.clone(), None),
        [x, p] => (x.clone(), Some(p.clone())),
        _ => {
            eprintln!("gedcom-elf: usage: gedcom-elf get FILE XREF [PATH]");
            return ExitCode::from(2);
        }
    };
    let xref = if xref.starts_with('@') {
        xref
    } else {
        format!("@{xref}@")
    };
    with_input(opts, |prepared, _file| {
        let tree = match Tree::build(prepared.reader_with_config(opts.config())) {
            Ok(t) => t,
            Err(e) => return fail(&name, &e),
        };
        for d in tree.diagnostics() {
            print_diagnostic(&name, d);
        }
        let found = tree.find_all(&xref);
        if found.is_empty() {
            eprintln!("{}: error: no structure has xref_id {xref}", name);
            return ExitCode::from(1);
        }
        if found.len() > 1 {
            eprintln!(
                "{}: warning: {} structures have xref_id {xref}; printing each",
                name,
                found.len()
            );
        }
        let schema = tree.schema().clone();
        let escapes = move |tag: &str| schema.escapes().lookup(tag.as_bytes());
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        let mut printed = 0;
        let mut written = Ok(());
        'out: for record in found {
            let nodes: Vec<NodeRef<'_>> = match &path {
                None => vec![record],
                Some(p) => record.path(p).collect(),
            };
            for n in nodes {
                printed += 1;
                written = write_subtree(&mut out, n, &escapes);
                if written.is_err() {
                    break 'out;
                }
            }
        }
        let flushed = written.and_then(|()| out.flush());
        let code = finish(&name, Ok(Vec::new()), flushed);
        if printed == 0 {
            eprintln!(
                "{name}: error: nothing at path {} under {xref}",
                path.unwrap_or_default()
            );
            return ExitCode::from(1);
        }
        code
    })
}
