//! `gedcom-elf events`: the JSON Lines event stream (a contract).

use std::io::{self, Write};
use std::process::ExitCode;

use gedcom_elf::{Error, Event, Reader, StructureType, Value};

use crate::drive::{self, Events, Work};
use crate::json::{write_str, write_u64};
use crate::typing::{Resolver, Typing};
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
            out.write_all(b",\"level\":")?;
            write_u64(out, b.level.into())?;
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
            out.write_all(b",\"level\":")?;
            write_u64(out, e.level.into())?;
            out.write_all(b"}\n")
        }
    }
}

/// Renders a chunk's events (with their types for `--types`); a reading
/// error ends the chunk.
struct Render {
    typing: Option<Typing>,
}

impl Work for Render {
    type Out = (Vec<u8>, Option<Error>);
    type State = Option<Resolver>;

    fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        match self.typing.as_mut() {
            Some(t) => t.prepare(reader),
            None => Ok(()),
        }
    }

    fn state(&self) -> Option<Resolver> {
        self.typing.as_ref().map(Typing::resolver)
    }

    /// The output has no line numbers; with `--types`, a chunk's resolver
    /// tells the document's first record by its line.
    fn needs_line_numbers(&self) -> bool {
        self.typing.is_some()
    }

    fn shift_lines((out, err): Self::Out, off: u64) -> Self::Out {
        (out, err.map(|e| e.with_line_offset(off)))
    }

    fn run<'a, E: Events<'a>>(&self, events: &mut E, types: &mut Option<Resolver>) -> Self::Out {
        let mut out = Vec::with_capacity(1 << 16);
        loop {
            match events.next_event() {
                // Writing to a Vec cannot fail.
                Ok(Some(e)) => {
                    let _ = match types.as_mut() {
                        Some(t) => write_typed_event(&mut out, &e, t.event(&e)),
                        None => write_event(&mut out, &e),
                    };
                }
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e)),
            }
        }
    }
}

/// `events`, and `events --types`: each typed begin gets `"type"` last.
/// Chunks are typed on their own: the HEAD's schema is read first, and
/// every record is typed in the document's context, whatever came before
/// it.
pub fn run(opts: &Options) -> ExitCode {
    let name = opts.name();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut work = Render {
        typing: opts.types.then(Typing::new),
    };
    let result = drive::run(opts, &mut work, |(bytes, err), ds| {
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
