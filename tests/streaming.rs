//! The streaming reader gives the same events, diagnostics and line numbers
//! as the slice reader, at every buffer and batch size.

mod common;

#[path = "../benches/support/generate.rs"]
mod generate;

use std::io::BufReader;

use gedcom_elf::stream::StreamReader;
use gedcom_elf::{Diagnostic, Event, Input, ReaderConfig};

type Read = (Vec<Event<'static>>, Vec<Diagnostic>, Option<String>);

fn slice_read(bytes: &[u8]) -> Read {
    let input = match Input::new(bytes) {
        Ok(i) => i,
        Err(e) => return (Vec::new(), Vec::new(), Some(e.to_string())),
    };
    let mut reader = input.reader();
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

fn stream_read(bytes: &[u8], capacity: usize, batch: usize) -> Read {
    let source = BufReader::with_capacity(capacity, bytes);
    let mut stream = StreamReader::with_config(source, ReaderConfig::new()).batch_bytes(batch);
    let (mut events, mut diags) = (Vec::new(), Vec::new());
    let mut buf = Vec::new();
    loop {
        let mut batch = match stream.read_batch_into(&mut buf) {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => return (events, diags, Some(e.to_string())),
        };
        loop {
            let r = batch.next_event();
            let (pending, before) = (batch.has_diagnostics(), diags.len());
            diags.extend(batch.drain_diagnostics());
            assert_eq!(pending, diags.len() > before, "has_diagnostics");
            assert!(!batch.has_diagnostics());
            match r {
                Ok(Some(e)) => events.push(e.into_owned()),
                Ok(None) => break,
                Err(e) => return (events, diags, Some(e.to_string())),
            }
        }
    }
    diags.extend(stream.drain_diagnostics());
    (events, diags, None)
}

/// Events are compared without spans (a batch's spans are relative to its
/// buffer); diagnostics in full (their byte offsets are global).
fn normalise(mut r: Read) -> Read {
    for e in &mut r.0 {
        if let Event::Begin(b) = e {
            b.span = Default::default();
        }
    }
    r
}

/// Asserts that two normalised reads agree: the error, then the events,
/// then the diagnostics; `what` names the case.
fn assert_reads_equal(got: &Read, want: &Read, what: &str) {
    assert_eq!(got.2, want.2, "{what}: error");
    assert_eq!(got.0, want.0, "{what}: events");
    assert_eq!(got.1, want.1, "{what}: diagnostics");
}

fn assert_same(name: &str, bytes: &[u8], capacities: &[usize], batches: &[usize]) {
    let want = normalise(slice_read(bytes));
    for &cap in capacities {
        for &batch in batches {
            let got = normalise(stream_read(bytes, cap, batch));
            assert_reads_equal(
                &got,
                &want,
                &format!("{name}: capacity {cap}, batch {batch}"),
            );
        }
    }
}

#[test]
fn every_buffer_size_from_one_byte_on_the_project_corpus() {
    let caps: Vec<usize> = (1..=9).chain([16, 61, 4096]).collect();
    for (name, bytes) in common::project_corpus() {
        assert_same(&name, &bytes, &caps, &[1, 5, 64, 1 << 16]);
    }
}

#[test]
fn shared_corpus_streams_identically_including_ansel_and_utf16() {
    let Some(dir) = common::shared_corpus() else {
        return;
    };
    for (name, bytes) in common::ged_files(&dir) {
        assert_same(&name, &bytes, &[61, 8192], &[1, 777, 1 << 16]);
    }
}

#[test]
fn crlf_split_between_reads_keeps_line_numbers() {
    let bytes = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NOTE a\r\n2 CONT b\r\nbad\r\n0 TRLR\r\n0 X\r\n";
    let caps: Vec<usize> = (1..=bytes.len()).collect();
    assert_same("crlf", bytes, &caps, &[1, 2, 3, 10, 1000]);
}

#[test]
fn diagnostics_survive_until_the_batch_is_drained() {
    let bytes = b"0 HEAD\n1 CHAR UTF-8\nbad\n0 @I1@ INDI\n1 NAME n\n2 NOTE a\n1 CONT x\n0 TRLR\n";
    let mut stream = StreamReader::new(BufReader::with_capacity(4, &bytes[..])).batch_bytes(1);
    let mut buf = Vec::new();
    let mut lines = Vec::new();
    while let Some(mut batch) = stream.read_batch_into(&mut buf).unwrap() {
        while batch.next_event().unwrap().is_some() {}
        lines.extend(batch.drain_diagnostics().map(|d| d.position.line));
    }
    assert_eq!(lines, [3, 7]);
}

/// Fuzz `chunks` found: without a CHAR line, whether defaulting to ANSEL is
/// worth a warning was judged on the first batch alone.
#[test]
fn regression_missing_char_warning_is_judged_on_the_same_bytes() {
    let bytes = b"0 HEAD\n0 @I1@ INDI\n1 NAME Ren\xE9\n0 TRLR\n";
    let want = normalise(slice_read(bytes));
    assert!(want
        .1
        .iter()
        .any(|d| d.message.contains("reading it as ansel")));
    let got = normalise(stream_read(bytes, 3, 1));
    assert_eq!(got.1, want.1);
}

/// Fuzz `chunks` found: a stream transcoding UTF-16 dropped the warning
/// `Input` gives for unpaired surrogates. A stream learns the count only at
/// the end, so that is where it reports it.
#[test]
fn regression_utf16_transcoding_problems_are_reported_by_streams_too() {
    let text = "0 HEAD\n1 CHAR UNICODE\n1 NOTE x\n0 TRLR\n";
    let mut bytes = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        if u == u16::from(b'x') {
            bytes.extend(0xD800u16.to_le_bytes()); // an unpaired high surrogate
        } else {
            bytes.extend(u.to_le_bytes());
        }
    }
    let utf16 = |r: &Read| {
        r.1.iter()
            .filter(|d| d.message.contains("unpaired surrogate"))
            .count()
    };
    let want = slice_read(&bytes);
    let got = stream_read(&bytes, 5, 7);
    assert_eq!((utf16(&want), utf16(&got)), (1, 1));
    assert_eq!(
        got.1.last().map(|d| d.kind),
        Some(gedcom_elf::DiagnosticKind::Encoding)
    );
}

#[test]
fn missing_trlr_before_many_blank_lines_is_placed_at_the_last_line() {
    let mut bytes = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME A /B/\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'\n', 5000));
    assert_same("blank tail", &bytes, &[1, 7, 4096], &[1, 64, 1 << 16]);
    let mut bytes = b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'\n', 5000));
    bytes.extend_from_slice(b"0 @X@ INDI\n");
    bytes.extend(std::iter::repeat_n(b'\r', 5000));
    assert_same(
        "blank tail after trlr",
        &bytes,
        &[1, 7, 4096],
        &[1, 64, 1 << 16],
    );
}

/// [`StreamReader::for_each_relative`] on `jobs` threads (every event
/// renumbered with the lines before its batch), or with `global`
/// [`StreamReader::for_each`] (numbered as the input's already): the
/// events, the batches' diagnostics, then the end-of-input ones. With
/// `head_first`, the HEAD's batch is read with `read_batch_into` before
/// (through [`Batch::reader_mut`](gedcom_elf::stream::Batch::reader_mut)
/// with `global`).
fn stream_parallel(
    bytes: &[u8],
    batch: usize,
    (jobs, ahead): (usize, usize),
    head_first: bool,
    global: bool,
) -> Read {
    let source = BufReader::with_capacity(61, bytes);
    let mut stream = StreamReader::with_config(source, ReaderConfig::new())
        .batch_bytes(batch)
        .jobs(jobs)
        .ahead(ahead);
    let (mut events, mut diags) = (Vec::new(), Vec::new());
    if head_first {
        let mut buf = Vec::new();
        let batch = match stream.read_batch_into(&mut buf) {
            Ok(Some(b)) => Some(b),
            Ok(None) => None,
            Err(e) => return (events, diags, Some(e.to_string())),
        };
        if let Some(mut batch) = batch {
            loop {
                // Through the batch, or (with `global`) its reader.
                let r = match batch.reader_mut() {
                    Some(reader) if global => {
                        let r = reader.next_event();
                        diags.extend(reader.drain_diagnostics());
                        r
                    }
                    _ => batch.next_event(),
                };
                diags.extend(batch.drain_diagnostics());
                match r {
                    Ok(Some(e)) => events.push(e.into_owned()),
                    Ok(None) => break,
                    Err(e) => return (events, diags, Some(e.to_string())),
                }
            }
        }
    }
    let drain = |reader: &mut gedcom_elf::Reader<'_>| {
        let mut out = Vec::new();
        while let Some(e) = reader.next_event()? {
            out.push(e.into_owned());
        }
        Ok(out)
    };
    let mut take = |out: Vec<Event<'static>>, ds, lines_before| {
        for mut e in out {
            if let Event::Begin(b) = &mut e {
                b.line += lines_before;
            }
            events.push(e);
        }
        diags.extend(ds);
        Ok(())
    };
    let summary = if global {
        stream.for_each(drain, |out, ds| take(out, ds, 0))
    } else {
        stream.for_each_relative(drain, take)
    };
    match summary {
        Ok(s) => {
            diags.extend(s.diagnostics);
            (events, diags, None)
        }
        Err(e) => (events, diags, Some(e.to_string())),
    }
}

#[test]
fn batches_read_on_several_threads_give_the_slice_readers_events_and_diagnostics() {
    let mut inputs = common::project_corpus();
    if let Some(dir) = common::shared_corpus() {
        inputs.extend(common::ged_files(&dir));
    }
    // Lines after TRLR in a later batch, problems in several batches.
    let mut late = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..200 {
        late.extend_from_slice(format!("0 @I{i}@ INDI\n1 NAME N{i}\n").as_bytes());
        if i % 50 == 7 {
            late.extend_from_slice(b"2 X\n!!\n4 DEEP\n");
        }
        if i == 120 {
            late.extend_from_slice(b"0 TRLR\n");
        }
    }
    inputs.push(("late".into(), late));
    for (name, bytes) in &inputs {
        let want = normalise(slice_read(bytes));
        for batch in [1, 300, 1 << 16] {
            // Batches in flight: one per thread (the default), and more.
            for (jobs, ahead) in [(1, 1), (2, 1), (2, 3), (3, 2)] {
                for (head_first, global) in
                    [(false, false), (true, false), (false, true), (true, true)]
                {
                    let threads = (jobs, ahead);
                    let got = normalise(stream_parallel(bytes, batch, threads, head_first, global));
                    let what = format!(
                        "{name}: batch {batch}, jobs {jobs}, ahead {ahead}, head first {head_first}, \
                         global {global}"
                    );
                    assert_reads_equal(&got, &want, &what);
                }
            }
        }
    }
}

#[test]
fn batches_read_on_several_threads_count_what_the_slice_reader_counts() {
    let mut inputs = common::project_corpus();
    let mut generated = Vec::new();
    generate::generate_bytes(400_000, 2, &mut generated).unwrap();
    inputs.push(("generated".into(), generated));
    for (name, bytes) in &inputs {
        let Ok(input) = Input::new(bytes) else {
            continue;
        };
        let mut reader = input.reader();
        while let Ok(Some(_)) = reader.next_event() {}
        let want = reader.stats().clone();
        for jobs in [1, 2] {
            let mut stream = StreamReader::new(&bytes[..]).batch_bytes(4096).jobs(jobs);
            let got = stream
                .for_each_relative(
                    |r| {
                        while r.next_event()?.is_some() {}
                        Ok(())
                    },
                    |(), _, _| Ok(()),
                )
                .map(|s| s.stats);
            if let Ok(got) = got {
                assert_eq!(got, want, "{name}: jobs {jobs}");
            }
        }
    }
}

/// The encoding is decided on the whole HEAD, however long, as for a whole
/// input: a stream decided on its first 64 KiB and missed a `CHAR` line
/// after them (reading UTF-8 as ANSEL, with a warning).
#[test]
fn a_char_line_after_64_kib_of_head_decides_a_streams_encoding() {
    let mut text = String::from("0 HEAD\n1 NOTE ");
    text.extend(std::iter::repeat_n('n', 70_000));
    text.push_str("\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME \u{c9}lisabeth\n0 TRLR\n");
    let bytes = text.as_bytes();
    let want = slice_read(bytes);
    assert!(want.1.is_empty(), "{:?}", want.1);
    assert_same("long head", bytes, &[61, 8192], &[1, 1 << 16]);
    let name = want.0.iter().find_map(|e| match e {
        Event::Begin(b) if b.tag == "NAME" => b.text().map(|t| t.into_owned()),
        _ => None,
    });
    assert_eq!(name.as_deref(), Some("\u{c9}lisabeth"));
}
