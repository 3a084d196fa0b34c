//! `fmt` and `convert`: the input written again by the library's writer,
//! event by event (a file memory-mapped, standard input streamed in bounded
//! memory), to standard output or, whole or not at all, to `-o OUT`.

use std::io::Write;

use gedcom_elf::stream::StreamReader;
use gedcom_elf::write::{Rewriter, WriteErrorKind, WriterConfig};
use gedcom_elf::{Event, Reader};

use crate::cli::{OutputArg, Settings};
use crate::drive::{Source, BATCH};
use crate::output::Output;
use crate::progress::Progress;
use crate::report::{Fail, Report};

/// Writes every event of `events` with `rewriter` (the library's
/// [`rewrite`](gedcom_elf::write::rewrite), fed piece by piece, so that
/// standard input streams through it in bounded memory), reporting the
/// reader's diagnostics and moving
/// `progress` to the input offsets read.
fn feed<W: Write>(
    rewriter: &mut Rewriter<W>,
    events: &mut Reader<'_>,
    report: &mut Report,
    progress: Option<&Progress>,
) -> Result<(), Fail> {
    let mut begins = 0u32;
    loop {
        let event = events.next_event();
        for d in events.drain_diagnostics() {
            report.diagnostic(&d);
        }
        let Some(event) = event? else { return Ok(()) };
        if let (Some(p), Event::Begin(b)) = (progress, &event) {
            begins += 1;
            if begins.is_multiple_of(4096) {
                p.set(b.span.end as u64);
            }
        }
        rewriter.write_event(events, &event)?;
    }
}

/// Rewrites `source` with `config` into `-o OUT` (or standard output),
/// reporting what the writer dropped.
pub fn run(
    settings: &Settings,
    source: &Source,
    config: WriterConfig,
    output: &OutputArg,
    report: &mut Report,
) -> Result<(), Fail> {
    source.check_gedcom_output(output.output.as_deref())?;
    let mut out = Output::create(output.output.as_deref())?;
    let mut rewriter = Rewriter::new(config, &mut out);
    let result = match source {
        Source::Stdin => stream(settings, &mut rewriter, report),
        _ => {
            let file = source.load()?;
            let input = gedcom_elf::Input::with_encoding(&file[..], settings.encoding())?;
            let progress = Progress::new(Some(input.bytes().len() as u64));
            let mut reader = input.reader_with_config(settings.config());
            feed(&mut rewriter, &mut reader, report, Some(&progress))
        }
    };
    let result = result.and_then(|()| {
        if let Some(w) = rewriter.writer_mut() {
            report.dropped(w.dropped(), w.dropped_count());
        }
        rewriter.finish()?;
        if report.errors > 0 {
            report.warning(&format!(
                "the input has {} reading error(s); ERROR structures were written as the reader made them",
                report.errors
            ));
        }
        Ok(())
    });
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
    let config = settings.config().encoding(settings.encoding());
    let source = progress.wrap(crate::drive::stdin()?);
    let mut stream = StreamReader::with_config(source, config).batch_bytes(BATCH);
    let mut buf = Vec::new();
    while let Some(mut batch) = stream.read_batch_into(&mut buf)? {
        if let Some(reader) = batch.reader_mut() {
            feed(rewriter, reader, report, None)?;
        }
    }
    for d in stream.drain_diagnostics() {
        report.diagnostic(&d);
    }
    Ok(())
}
