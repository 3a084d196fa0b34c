//! `fmt` and `convert`: the input written again by the library's writer,
//! event by event (a file memory-mapped, standard input streamed in bounded
//! memory), to standard output or, whole or not at all, to `-o OUT`.

use std::io::{self, Write};

use gedcom_elf::stream::StreamReader;
use gedcom_elf::write::{WriteErrorKind, Writer, WriterConfig};
use gedcom_elf::{Encoding, Event, Reader, Severity};

use crate::cli::Settings;
use crate::drive::{Source, BATCH};
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{Fail, Report};

/// The library's [`rewrite`](gedcom_elf::write::rewrite), fed piece by
/// piece, so that standard input streams through it in bounded memory: each
/// event is written as it is read, the writer's escape table is the input's
/// (complete once the first event was read), and xrefs are decoded from the
/// reader's encoding (see `decode_xref`).
struct Rewriter<W: Write> {
    config: WriterConfig,
    out: Option<W>,
    writer: Option<(Writer<W>, Encoding)>,
    read_errors: u64,
}

impl<W: Write> Rewriter<W> {
    fn new(config: WriterConfig, out: W) -> Self {
        Rewriter {
            config,
            out: Some(out),
            writer: None,
            read_errors: 0,
        }
    }

    /// Writes every event of `events`, reporting its diagnostics and moving
    /// `progress` to the input offsets read.
    fn feed(
        &mut self,
        events: &mut Reader<'_>,
        report: &mut Report,
        progress: Option<&Progress>,
    ) -> Result<(), Fail> {
        let mut begins = 0u32;
        loop {
            let event = events.next_event();
            if !events.diagnostics().is_empty() {
                for d in events.drain_diagnostics() {
                    self.read_errors += u64::from(d.severity() == Severity::Error);
                    report.diagnostic(&d);
                }
            }
            let Some(event) = event? else { return Ok(()) };
            let (w, source) = match self.writer.as_mut() {
                Some(w) => w,
                None => {
                    let source = events.encoding();
                    let config = self.config.clone();
                    let config = config
                        .escapes(events.escape_table().clone())
                        .cr_is_line_break(false);
                    let Some(o) = self.out.take() else {
                        return Ok(());
                    };
                    self.writer.insert((Writer::with_config(o, config), source))
                }
            };
            if let (Some(p), Event::Begin(b)) = (progress, &event) {
                begins += 1;
                if begins.is_multiple_of(4096) {
                    p.set(b.span.end as u64);
                }
            }
            w.write_event(&event, *source)?;
        }
    }

    /// Ends the output, reporting what the writer dropped.
    fn finish(self, report: &Report) -> Result<(), Fail> {
        if let Some((w, _)) = self.writer {
            report.dropped(w.dropped(), w.dropped_count());
            w.finish()?;
        }
        if self.read_errors > 0 {
            report.warning(&format!(
                "the input has {} reading error(s); ERROR structures were written as the reader made them",
                self.read_errors
            ));
        }
        Ok(())
    }
}

/// Rewrites `source` with `config` into `output` (standard output when
/// `None`).
pub fn run(
    settings: &Settings,
    source: &Source,
    config: WriterConfig,
    output: Option<&str>,
    report: &mut Report,
) -> Result<(), Fail> {
    let mut out = Output::create(output)?;
    let mut rewriter = Rewriter::new(config, &mut out);
    let result = match source {
        Source::Stdin => stream(settings, &mut rewriter, report),
        _ => {
            let file = source.load()?;
            let input = gedcom_elf::Input::with_encoding(&file[..], settings.encoding())?;
            let progress = Progress::new(Some(input.bytes().len() as u64));
            let mut reader = input.reader_with_config(settings.config());
            rewriter.feed(&mut reader, report, Some(&progress))
        }
    }
    .and_then(|()| rewriter.finish(report));
    match result {
        // The writer's i/o error is the output's.
        Err(Fail::Write(e)) if e.kind() == WriteErrorKind::Io => {
            out.check()?;
            Err(Fail::Write(e))
        }
        Err(f) => Err(f),
        Ok(()) => out.commit(),
    }
}

fn stream<W: Write>(
    settings: &Settings,
    rewriter: &mut Rewriter<W>,
    report: &mut Report,
) -> Result<(), Fail> {
    let progress = Progress::new(None);
    let source = progress.wrap(io::stdin().lock());
    let config = settings.config().encoding(settings.encoding());
    let mut stream = StreamReader::with_config(source, config).batch_bytes(BATCH);
    let mut buf = Vec::new();
    while let Some(mut batch) = stream.read_batch_into(&mut buf)? {
        if let Some(reader) = batch.reader_mut() {
            rewriter.feed(reader, report, None)?;
        }
    }
    for d in stream.drain_diagnostics() {
        rewriter.read_errors += u64::from(d.severity() == Severity::Error);
        report.diagnostic(&d);
    }
    Ok(())
}
