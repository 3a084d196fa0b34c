//! `gedcom-elf events`: the JSON Lines event stream (a contract).

use std::io::{self, Write};

use gedcom_elf::{Error, Event, Reader, StructureType, Version};

use crate::cli::Settings;
use crate::drive::{self, Source, Work};
use crate::json::{write_fields, write_str, write_u64};
use crate::output::Output;
use crate::report::{Fail, Report};
use crate::typing::Typing;

/// Writes one event as a JSON object line; a begin gets `"type"` as its last
/// key when `ty` is given (`--types`).
pub fn write_event<W: Write>(
    out: &mut W,
    event: &Event<'_>,
    ty: Option<StructureType<'_>>,
) -> io::Result<()> {
    let (key, tag, level): (&[u8], _, _) = match event {
        Event::Begin(b) => (b"{\"begin\":", &b.tag, b.level),
        Event::End(e) => (b"{\"end\":", &e.tag, e.level),
    };
    out.write_all(key)?;
    write_str(out, tag)?;
    out.write_all(b",\"level\":")?;
    write_u64(out, level.into())?;
    if let Event::Begin(b) = event {
        write_fields(out, b, ty)?;
    }
    out.write_all(b"}\n")
}

/// Renders a chunk's events (with their types for `--types`); a reading
/// error ends the chunk.
struct Render(Option<Typing>);

impl Work for Render {
    type Out = Vec<u8>;

    fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        match self.0.as_mut() {
            Some(t) => t.prepare(reader),
            None => Ok(()),
        }
    }

    /// The output has no line numbers; with `--types`, a chunk's resolver
    /// tells the document's first record by its line.
    fn needs_line_numbers(&self) -> bool {
        self.0.is_some()
    }

    fn run(&self, events: &mut Reader<'_>) -> (Vec<u8>, Option<Error>) {
        let mut types = self.0.as_ref().map(Typing::resolver);
        let mut out = Vec::with_capacity(1 << 16);
        loop {
            match events.next_event() {
                // Writing to a Vec cannot fail.
                Ok(Some(e)) => {
                    let ty = types.as_mut().and_then(|t| t.event(&e));
                    let _ = write_event(&mut out, &e, ty);
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
pub fn run(
    settings: &Settings,
    source: &Source,
    types: bool,
    report: &mut Report,
) -> Result<(), Fail> {
    let mut work = Render(types.then(Typing::new));
    write_chunks(settings, source, &mut work, report)
}

/// Runs a command whose chunks' outputs are text for standard output, and
/// reports their diagnostics as they come; a chunk's reading error ends the
/// run after its text. An input read as GEDCOM 7, or as `--vers` said, gets
/// a note saying so: the payload rules differ (an input read as 5.5.1 by
/// default, the usual case, gets none).
pub fn write_chunks<W: Work<Out = Vec<u8>>>(
    settings: &Settings,
    source: &Source,
    work: &mut W,
    report: &mut Report,
) -> Result<(), Fail> {
    let mut out = Output::stdout();
    let done = drive::run(settings, source, work, |bytes, ds| {
        report.diagnostics(&ds);
        out.write_all(&bytes).map_err(|e| out.fail(e))
    })?;
    report.diagnostics(&done.summary.diagnostics);
    let told = settings.read.gedcom_version.is_some();
    if told || done.version.is_some_and(|(v, _)| v == Version::Gedcom7) {
        if let Some(version) = done.version_said(settings) {
            report.note(&format!("read as GEDCOM {version}"));
        }
    }
    out.commit()
}
