//! `gedcom-elf json`: the whole tree as JSON Lines, one object per record.
//!
//! Each node is `{"tag":...,"xref":...,"pointer"|"text":...,"type":...,
//! "line":N,"children":[...]}` in that key order; absent keys are left out
//! (`children` when there are none, `type` on serialisation metadata).
//! Written with an explicit walk, never recursion, so any depth works.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use gedcom_elf::tree::{NodeRef, Step, Tree};
use gedcom_elf::Value;

use crate::json::write_str;
use crate::tree_cmd::with_input;
use crate::{fail, finish, print_diagnostic, Options};

/// Writes a node's own keys, without the closing brace.
fn write_head<W: Write>(out: &mut W, n: &NodeRef<'_>) -> io::Result<()> {
    out.write_all(b"{\"tag\":")?;
    write_str(out, n.tag())?;
    if let Some(x) = n.xref() {
        out.write_all(b",\"xref\":")?;
        write_str(out, &x.to_str_lossy())?;
    }
    match n.value() {
        Some(Value::Pointer(p)) => {
            out.write_all(b",\"pointer\":")?;
            write_str(out, &p.to_str_lossy())?;
        }
        Some(Value::Text(t)) => {
            out.write_all(b",\"text\":")?;
            write_str(out, &t.text())?;
        }
        None => {}
    }
    if let Some(t) = n.structure_type() {
        out.write_all(b",\"type\":")?;
        write_str(out, &t.iri())?;
    }
    write!(out, ",\"line\":{}", n.line())
}

/// Writes one record (or any subtree) as a single JSON object line.
pub fn write_record<W: Write>(out: &mut W, record: NodeRef<'_>) -> io::Result<()> {
    for step in record.walk() {
        match step {
            Step::Enter(n) => {
                if n != record
                    && n.parent()
                        .is_some_and(|p| p.id().index() + 1 != n.id().index())
                {
                    out.write_all(b",")?;
                }
                write_head(out, &n)?;
                if n.has_children() {
                    out.write_all(b",\"children\":[")?;
                }
            }
            Step::Leave(n) => {
                if n.has_children() {
                    out.write_all(b"]")?;
                }
                out.write_all(b"}")?;
            }
        }
    }
    out.write_all(b"\n")
}

pub fn run(opts: &Options) -> ExitCode {
    let name = opts.name();
    with_input(opts, |prepared, _file| {
        let tree = match Tree::build(prepared.reader_with_config(opts.config())) {
            Ok(t) => t,
            Err(e) => return fail(&name, &e),
        };
        for d in tree.diagnostics() {
            print_diagnostic(&name, d);
        }
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        let mut written = Ok(());
        for record in tree.records() {
            written = write_record(&mut out, record);
            if written.is_err() {
                break;
            }
        }
        let flushed = written.and_then(|()| out.flush());
        finish(&name, Ok(Vec::new()), flushed)
    })
}
