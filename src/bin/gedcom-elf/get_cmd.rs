//! `gedcom-elf get FILE XREF [PATH]`: one record, or the nodes at a path
//! under it, as GEDCOM text.
//!
//! The text is written in UTF-8 with LF line breaks and single spaces,
//! each line at its level in the document: payload line breaks become
//! `CONT` lines, `@` signs are written by the writer's rule
//! ([`payload_lines_as`], in the document's version), and no line is split
//! with `CONC`.
//!
//! Nothing here needs another record: the output is the structures whose
//! xref_id is XREF (every one of them, when it is duplicated, so the whole
//! input is read) and their substructures, with pointers written as they
//! are, never followed. So `get` works on the event stream, record by
//! record, on `--jobs` threads for a file and in bounded memory for
//! standard input, and builds no tree.

use std::io::{self, Write};

use gedcom_elf::tree::Schema;
use gedcom_elf::write::payload_lines_as;
use gedcom_elf::{Begin, Encoding, Error, Event, Reader, Value};

use crate::cli::Settings;
use crate::drive::{self, Source, Work};
use crate::output::Output;
use crate::report::{Fail, Report};
use crate::typing::Typing;

/// Writes one structure's line (and its `CONT` lines).
fn write_line<W: Write>(out: &mut W, b: &Begin<'_>, schema: &Schema) -> io::Result<()> {
    let level = b.level;
    write!(out, "{level}")?;
    if let Some(x) = &b.xref {
        out.write_all(b" ")?;
        out.write_all(x.as_bytes())?;
    }
    write!(out, " {}", b.tag)?;
    match &b.value {
        Some(Value::Pointer(p)) => {
            out.write_all(b" ")?;
            out.write_all(p.as_bytes())?;
        }
        Some(Value::Text(t)) => {
            let preserve = schema.escapes().lookup(b.tag.as_bytes());
            let text = t.text();
            let lines = payload_lines_as(&text, preserve, Encoding::Utf8, schema.version());
            for (k, line) in lines.enumerate() {
                if k > 0 {
                    write!(out, "\n{} CONT", level + 1)?;
                }
                if !line.is_empty() {
                    write!(out, " {line}")?;
                }
            }
        }
        None => {}
    }
    out.write_all(b"\n")
}

/// One structure with the xref_id asked for, while it is open.
pub struct Found {
    /// Its level.
    level: u32,
    /// How many segments of the path the open structures below it match.
    matched: usize,
    /// The level of the structure being printed, if one is.
    printing: Option<u32>,
    out: Vec<u8>,
    open: bool,
}

/// What [`Find`] carries from chunk to chunk: the finds in document order
/// (more than one when one holds another with the same xref_id), and the
/// first line of the outermost one, until the line after it is known.
#[derive(Default)]
pub struct Finds {
    list: Vec<Found>,
    from: Option<u64>,
    closed: bool,
}

/// Finds the structures and writes the nodes asked for.
struct Find {
    xref: Vec<u8>,
    /// `None`: the structure itself; else the path's segments.
    path: Option<Vec<String>>,
    typing: Typing,
}

/// A chunk's output.
#[derive(Default)]
pub struct Out {
    text: Vec<u8>,
    /// Structures found.
    found: u64,
    /// Nodes printed.
    printed: u64,
    /// The lines of the structures found (first, last), for their diagnostics.
    lines: Vec<(u64, u64)>,
}

impl Find {
    fn begin(&self, b: &Begin<'_>, finds: &mut Finds, out: &mut Out) {
        if finds.closed {
            finds.closed = false;
            if let Some(from) = finds.from.take() {
                out.lines.push((from, b.line.saturating_sub(1)));
            }
        }
        let schema = &self.typing.schema;
        // Writing to a Vec cannot fail.
        for f in finds.list.iter_mut().filter(|f| f.open) {
            if f.printing.is_some() {
                let _ = write_line(&mut f.out, b, schema);
                continue;
            }
            let Some(path) = &self.path else { continue };
            let depth = (b.level - f.level) as usize;
            if f.matched + 1 == depth
                && path.get(depth - 1).is_some_and(|s| s == "*" || *s == b.tag)
            {
                f.matched = depth;
                if depth == path.len() {
                    f.printing = Some(b.level);
                    out.printed += 1;
                    let _ = write_line(&mut f.out, b, schema);
                }
            }
        }
        if b.xref.as_ref().is_some_and(|x| x.as_bytes() == self.xref) {
            out.found += 1;
            if finds.list.is_empty() {
                finds.from = Some(b.line);
            }
            let mut f = Found {
                level: b.level,
                matched: 0,
                printing: None,
                out: Vec::new(),
                open: true,
            };
            if self.path.is_none() {
                f.printing = Some(b.level);
                out.printed += 1;
                let _ = write_line(&mut f.out, b, schema);
            }
            finds.list.push(f);
        }
    }

    fn end(&self, level: u32, finds: &mut Finds, out: &mut Out) {
        for f in finds.list.iter_mut().filter(|f| f.open) {
            if f.printing == Some(level) {
                f.printing = None;
            }
            if level == f.level {
                f.open = false;
            } else if f.matched >= (level - f.level) as usize {
                f.matched = (level - f.level) as usize - 1;
            }
        }
        // The first find holds every later one: once it is closed, all are.
        if finds.list.first().is_some_and(|f| !f.open) {
            for f in finds.list.drain(..) {
                out.text.extend_from_slice(&f.out);
            }
            finds.closed = true;
        }
    }
}

impl Work for Find {
    type Out = Out;

    fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        self.typing.prepare(reader)
    }

    fn run(&self, events: &mut Reader<'_>) -> (Out, Option<Error>) {
        let (mut out, finds) = (Out::default(), &mut Finds::default());
        let error = loop {
            match events.next_event() {
                Ok(Some(Event::Begin(b))) => self.begin(&b, finds, &mut out),
                Ok(Some(Event::End(e))) => self.end(e.level, finds, &mut out),
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        // Records are whole in a chunk: what is open ends with it.
        if let Some(from) = finds.from {
            out.lines.push((from, u64::MAX));
        }
        (out, error)
    }
}

/// `get`: prints the structures found, with the diagnostics on their lines;
/// the others are counted in one note.
pub fn run(
    settings: &Settings,
    source: &Source,
    xref: &str,
    path: Option<&str>,
    report: &mut Report,
) -> Result<(), Fail> {
    let xref = if xref.starts_with('@') {
        xref.to_string()
    } else {
        format!("@{xref}@")
    };
    let mut work = Find {
        xref: xref.clone().into_bytes(),
        // As a tree's paths: empty segments are ignored.
        path: path.map(|p| {
            p.split('.')
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        }),
        typing: Typing::new(),
    };
    let mut out = Output::stdout();
    let (mut found, mut printed, mut elsewhere) = (0u64, 0u64, 0u64);
    let done = drive::run(settings, source, &mut work, |got, ds| {
        for d in &ds {
            let line = d.position.line;
            if got.lines.iter().any(|&(a, b)| (a..=b).contains(&line)) {
                report.diagnostic(d);
            } else {
                elsewhere += 1;
            }
        }
        out.write_all(&got.text).map_err(|e| out.fail(e))?;
        found += got.found;
        printed += got.printed;
        Ok(())
    })?;
    elsewhere += done.summary.diagnostics.len() as u64;
    out.commit()?;
    if elsewhere > 0 {
        report.note(&format!(
            "{elsewhere} diagnostics elsewhere in the file not shown ('gedcom-elf stats' shows them)"
        ));
    }
    if found == 0 {
        return Err(Fail::NotFound(format!("no structure has xref_id {xref}")));
    }
    if found > 1 {
        report.warning(&format!(
            "{found} structures have xref_id {xref}; printed each"
        ));
    }
    if printed == 0 {
        return Err(Fail::NotFound(format!(
            "nothing at path {} under {xref}",
            path.unwrap_or_default()
        )));
    }
    Ok(())
}
