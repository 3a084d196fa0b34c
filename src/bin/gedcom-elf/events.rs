//! `gedcom-elf events`: the JSON Lines event stream (a contract).

use std::io::{self, Write};
use std::process::ExitCode;

use gedcom_elf::{Error, Event, StructureType, Value};

use crate::drive::{self, Events, Work};
use crate::json::write_str;
use crate::{finish, print_diagnostics, Options};

/// Writes one event as a JSON object line.
pub fn write_event<W: Write>(out: &mut W, event: &Event<'_>) -> io::Result<()> {
    write_typed_event(out, event, None)
}

/// Writes one event as a JSON object line; a begin gets `"type"` as its last
/// key when `ty` is given (`--types`).
pub fn write_typed_event<W: Write>(
    out: &mut W,
    event: &Event<'_>,
    ty: Option<StructureType<'_>>,
) -> io::Result<()> {
    match event {
        Event::Begin(b) => {
            out.write_all(b"{\"begin\":")?;
            write_str(out, &b.tag)?;
            write!(out, ",\"level\":{}", b.level)?;
            if let Some(x) = &b.xref {
                out.write_all(b",\"xref\":")?;
                write_str(out, &x.to_str_lossy())?;
            }
            match &b.value {
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
            if let Some(t) = ty {
                out.write_all(b",\"type\":")?;
                write_str(out, &t.iri())?;
            }
            out.write_all(b"}\n")
        }
        Event::End(e) => {
            out.write_all(b"{\"end\":")?;
            write_str(out, &e.tag)?;
            writeln!(out, ",\"level\":{}}}", e.level)
        }
    }
}

/// Renders a chunk's events; a reading error ends the chunk.
struct Render;

impl Work for Render {
    type Out = (Vec<u8>, Option<Error>);

    fn run<'a, E: Events<'a>>(&self, events: &mut E) -> Self::Out {
        let mut out = Vec::with_capacity(1 << 16);
        loop {
            match events.next_event() {
                Ok(Some(e)) => {
                    // Writing to a Vec cannot fail.
                    let _ = write_event(&mut out, &e);
                }
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e)),
            }
        }
    }
}

pub fn run(opts: &Options) -> ExitCode {
    if opts.types {
        return crate::tree_cmd::events_with_types(opts);
    }
    let name = opts.name();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = drive::run(opts, &Render, |(bytes, err), ds| {
        print_diagnostics(&name, &ds);
        out.write_all(&bytes)?;
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    });
    let flushed = out.flush();
    finish(&name, result.map(|d| d.diagnostics), flushed)
}
