//! Arbitrary bytes read four ways must agree: the slice reader, the
//! streaming reader (tiny `BufRead` capacity and batch size), parallel
//! record-aligned chunks, and the stream's batches on a worker thread —
//! the same events (spans aside for streaming), diagnostics and errors.
#![no_main]

use std::io::BufReader;

use gedcom_elf::par::Chunks;
use gedcom_elf::stream::StreamReader;
use gedcom_elf::{Diagnostic, Event, Input, Reader, ReaderConfig};
use libfuzzer_sys::fuzz_target;

type Read = (Vec<Event<'static>>, Vec<Diagnostic>, Option<String>);

fn no_spans(mut events: Vec<Event<'static>>) -> Vec<Event<'static>> {
    for e in &mut events {
        if let Event::Begin(b) = e {
            b.span = Default::default();
        }
    }
    events
}

fn slice(input: &Input<'_>, config: &ReaderConfig) -> Read {
    let mut reader = input.reader_with_config(config.clone());
    let (mut events, mut diags) = (Vec::new(), Vec::new());
    loop {
        let r = reader.next_event();
        diags.extend(reader.drain_diagnostics());
        match r {
            Ok(Some(e)) => events.push(e.into_owned()),
            Ok(None) => return (events, diags, None),
            Err(e) => return (events, diags, Some(e.to_string())),
        }
    }
}

fn stream(bytes: &[u8], config: &ReaderConfig, capacity: usize, batch: usize) -> Read {
    let source = BufReader::with_capacity(capacity, bytes);
    let mut s = StreamReader::with_config(source, config.clone()).batch_bytes(batch);
    let (mut events, mut diags) = (Vec::new(), Vec::new());
    let mut buf = Vec::new();
    loop {
        let mut b = match s.read_batch_into(&mut buf) {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => return (events, diags, Some(e.to_string())),
        };
        loop {
            let r = b.next_event();
            diags.extend(b.drain_diagnostics());
            match r {
                Ok(Some(e)) => events.push(e.into_owned()),
                Ok(None) => break,
                Err(e) => return (events, diags, Some(e.to_string())),
            }
        }
    }
    diags.extend(s.drain_diagnostics());
    (events, diags, None)
}

/// Every event of a chunk, owned.
fn drain(r: &mut Reader<'_>) -> Result<Vec<Event<'static>>, gedcom_elf::Error> {
    let mut events = Vec::new();
    while let Some(e) = r.next_event()? {
        events.push(e.into_owned());
    }
    Ok(events)
}

/// Appends a chunk read numbered from its first line, renumbered with the
/// `offset` lines before it, and its diagnostics.
fn renumbered(
    events: &mut Vec<Event<'static>>,
    diags: &mut Vec<Diagnostic>,
    chunk: Vec<Event<'static>>,
    ds: Vec<Diagnostic>,
    offset: u64,
) {
    for mut e in chunk {
        if let Event::Begin(b) = &mut e {
            b.line += offset;
        }
        events.push(e);
    }
    diags.extend(ds);
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, bytes)) = data.split_first() else {
        return;
    };
    let config = ReaderConfig::new().headless(flags & 1 != 0);
    let Ok(input) = Input::new(bytes) else {
        return;
    };
    let want = slice(&input, &config);

    // Streaming: spans are relative to each batch, so they are left out.
    let capacity = 1 + usize::from(flags >> 4);
    let batch = 1 + usize::from((flags >> 1) & 7) * 13;
    let got = stream(bytes, &config, capacity, batch);
    assert_eq!(got.2, want.2, "stream error");
    assert_eq!(no_spans(got.0), no_spans(want.0.clone()), "stream events");
    // UTF-16 transcoding trouble is reported before reading by `Input`, at
    // the end by a stream (which learns the count only then).
    let utf16 = |d: &Diagnostic| d.message.contains("unpaired surrogate");
    let (got_u, got_rest): (Vec<_>, Vec<_>) = got.1.into_iter().partition(utf16);
    let (want_u, want_rest): (Vec<_>, Vec<_>) = want.1.iter().cloned().partition(utf16);
    assert_eq!(got_u.len(), want_u.len(), "stream utf-16 warning");
    assert_eq!(got_rest, want_rest, "stream diagnostics");

    // Parallel chunks: only for input that reads without stopping.
    if want.2.is_none() {
        let Ok(chunks) = Chunks::new(&input, config.clone()) else {
            panic!("chunks refused what the reader read");
        };
        // One job: worker threads trip LeakSanitizer on glibc's thread-exit
        // bookkeeping; the chunking and the merge are the same code either way.
        let out = chunks
            .batch_bytes(1 + usize::from(flags >> 5))
            .map(|r| {
                let mut events = Vec::new();
                while let Some(e) = r.next_event()? {
                    events.push(e.into_owned());
                }
                Ok(events)
            })
            .expect("parallel read");
        assert_eq!(out.results.concat(), want.0, "parallel events");
        assert_eq!(out.diagnostics, want.1, "parallel diagnostics");

        // Each chunk numbered from its own first line, renumbered at the merge.
        let chunks = Chunks::new(&input, config.clone())
            .expect("chunks again")
            .batch_bytes(1 + usize::from(flags >> 5));
        let (mut events, mut diags) = (Vec::new(), Vec::new());
        let summary = chunks
            .for_each_relative(drain, |chunk, ds, offset| {
                renumbered(&mut events, &mut diags, chunk, ds, offset);
                Ok(())
            })
            .expect("relative read");
        diags.extend(summary.diagnostics);
        assert_eq!(events, want.0, "relative events");
        assert_eq!(diags, want.1, "relative diagnostics");

        // A stream's batches on a worker thread, merged the same way.
        let source = BufReader::with_capacity(capacity, bytes);
        let mut s = StreamReader::with_config(source, config.clone()).batch_bytes(batch);
        let (mut events, mut diags) = (Vec::new(), Vec::new());
        let summary = s
            .for_each_relative(drain, |batch, ds, offset| {
                renumbered(&mut events, &mut diags, batch, ds, offset);
                Ok(())
            })
            .expect("parallel stream");
        diags.extend(summary.diagnostics);
        assert_eq!(
            no_spans(events),
            no_spans(want.0.clone()),
            "parallel stream events"
        );
        let (got_u, got_rest): (Vec<_>, Vec<_>) = diags.into_iter().partition(utf16);
        assert_eq!(got_u.len(), want_u.len(), "parallel stream utf-16 warning");
        assert_eq!(got_rest, want_rest, "parallel stream diagnostics");

        // The same, numbered as the input's while read.
        let source = BufReader::with_capacity(capacity, bytes);
        let mut s = StreamReader::with_config(source, config.clone()).batch_bytes(batch);
        let (mut events, mut diags) = (Vec::new(), Vec::new());
        let summary = s
            .for_each(drain, |batch, ds| {
                renumbered(&mut events, &mut diags, batch, ds, 0);
                Ok(())
            })
            .expect("parallel stream, global lines");
        diags.extend(summary.diagnostics);
        assert_eq!(
            no_spans(events),
            no_spans(want.0.clone()),
            "global stream events"
        );
        let (got_u, got_rest): (Vec<_>, Vec<_>) = diags.into_iter().partition(utf16);
        assert_eq!(got_u.len(), want_u.len(), "global stream utf-16 warning");
        assert_eq!(got_rest, want_rest, "global stream diagnostics");
    }
});
