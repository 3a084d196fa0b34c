//! `gedcom-elf json`: the document as JSON Lines, one object per record.
//!
//! Each node is `{"tag":...,"xref":...,"pointer"|"text":...,"type":...,
//! "line":N,"children":[...]}` in that key order; absent keys are left out
//! (`children` when there are none, `type` on serialisation metadata).
//!
//! Written from the event stream, record by record: records are whole in
//! every chunk and batch, so a file is read on `--jobs` threads and
//! standard input streams in bounded memory. Nesting is a stack of flags,
//! never recursion, so any depth works. What needs the whole document
//! (pointers that match no xref_id, duplicate xref_ids) is `stats --tree`'s
//! to report.

use std::io::{self, Write};

use gedcom_elf::{Begin, Error, Event, Reader, StructureType};

use crate::cli::Settings;
use crate::drive::{Source, Work};
use crate::json::{write_fields, write_str, write_u64};
use crate::report::{Fail, Report};
use crate::typing::Typing;

/// Writes a node's own keys, without the closing brace.
fn write_head<W: Write>(
    out: &mut W,
    b: &Begin<'_>,
    ty: Option<StructureType<'_>>,
) -> io::Result<()> {
    out.write_all(b"{\"tag\":")?;
    write_str(out, &b.tag)?;
    write_fields(out, b, ty)?;
    out.write_all(b",\"line\":")?;
    write_u64(out, b.line)
}

/// Renders a chunk's records; a reading error ends the chunk, and the
/// record it interrupts is left out.
struct Render(Typing);

impl Work for Render {
    type Out = Vec<u8>;

    fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        self.0.prepare(reader)
    }

    fn run(&self, events: &mut Reader<'_>) -> (Vec<u8>, Option<Error>) {
        let mut types = self.0.resolver();
        // The structures still open: `true` once one has children.
        let mut open: Vec<bool> = Vec::new();
        let mut out = Vec::with_capacity(1 << 16);
        // Where the record being written began in `out`.
        let mut record = 0;
        loop {
            // Writing to a Vec cannot fail.
            match events.next_event() {
                Ok(Some(Event::Begin(b))) => {
                    match open.last_mut() {
                        None => record = out.len(),
                        Some(seen @ false) => {
                            *seen = true;
                            out.extend_from_slice(b",\"children\":[");
                        }
                        Some(true) => out.push(b','),
                    }
                    let ty = types.begin(&b);
                    let _ = write_head(&mut out, &b, ty);
                    open.push(false);
                }
                Ok(Some(Event::End(_))) => {
                    types.end();
                    if open.pop() == Some(true) {
                        out.push(b']');
                    }
                    out.push(b'}');
                    if open.is_empty() {
                        out.push(b'\n');
                    }
                }
                Ok(None) => return (out, None),
                Err(e) => {
                    if !open.is_empty() {
                        out.truncate(record);
                    }
                    return (out, Some(e));
                }
            }
        }
    }
}

pub fn run(settings: &Settings, source: &Source, report: &mut Report) -> Result<(), Fail> {
    let mut work = Render(Typing::new());
    crate::events::write_chunks(settings, source, &mut work, report)
}
