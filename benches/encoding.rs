//! Reading the same content in UTF-8, ANSEL and UTF-16LE, in one run (issue 3: ANSEL at
//! 0.5x or better of the UTF-8 event throughput, UTF-16 at 0.4x or better).
//!
//! The content is the generator's UTF-8 output (`GEDCOM_BENCH_MB`, default 64), turned in
//! the bench setup into:
//!
//! * **ANSEL**, `1 CHAR ANSEL`: ASCII as it is; a character ANSEL has (`ø`, `Ł`, `ß`, ...)
//!   as its octet; any other character that decomposes (NFD) into such a base and ANSEL
//!   combining marks as the marks then the base (`ộ` is `F2 E3 o`, as ANSEL writes a mark
//!   before its letter); everything else (Cyrillic, Greek, CJK) as an ELF unicode escape
//!   `@#U<hex>@ `, so that the decoded text is exactly the UTF-8 text. The escapes make the
//!   ANSEL file larger and add escape decoding to its cost: a conservative choice, and what
//!   an ANSEL export of such names has to do.
//! * **UTF-16LE** with a byte-order mark, `1 CHAR UNICODE`.
//!
//! All three are read with [`TrailingWhitespace::Keep`]: an escape needs its trailing
//! space, which the default rule would trim at the end of a line. The setup checks that the
//! three give the same events and the same texts before anything is timed.
//!
//! Each bench reads every event and every payload's text and asserts the event count;
//! the UTF-16 bench includes [`Input::new`] (detection and transcoding). Throughput is
//! given in bytes **of the UTF-8 content** for all three, so the reported rates are
//! directly comparable: the ratio of two rates is the ratio of their event throughputs.
//!
//! Ratios from the medians of one run:
//!
//! ```text
//! GEDCOM_BENCH_MB=32 cargo bench --bench encoding
//! for b in utf8 ansel utf16le; do
//!   jq .median.point_estimate target/criterion/encoding/$b/new/estimates.json
//! done
//! ```

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gedcom_elf::{Encoding, Event, Input, Reader, ReaderConfig, TrailingWhitespace, Value};
use unicode_normalization::UnicodeNormalization;

#[path = "support/generate.rs"]
mod generate;

/// ANSEL's spacing characters (the octet for each Unicode character; `ß` as the GEDCOM
/// `CF`, and the midline `e`/`o` left out, since ASCII has them).
const ANSEL_SPACING: [(char, u8); 40] = [
    ('\u{200D}', 0x8D),
    ('\u{200C}', 0x8E),
    ('Ł', 0xA1),
    ('Ø', 0xA2),
    ('Đ', 0xA3),
    ('Þ', 0xA4),
    ('Æ', 0xA5),
    ('Œ', 0xA6),
    ('ʹ', 0xA7),
    ('·', 0xA8),
    ('♭', 0xA9),
    ('®', 0xAA),
    ('±', 0xAB),
    ('Ơ', 0xAC),
    ('Ư', 0xAD),
    ('ʼ', 0xAE),
    ('ʻ', 0xB0),
    ('ł', 0xB1),
    ('ø', 0xB2),
    ('đ', 0xB3),
    ('þ', 0xB4),
    ('æ', 0xB5),
    ('œ', 0xB6),
    ('ʺ', 0xB7),
    ('ı', 0xB8),
    ('£', 0xB9),
    ('ð', 0xBA),
    ('ơ', 0xBC),
    ('ư', 0xBD),
    ('□', 0xBE),
    ('■', 0xBF),
    ('°', 0xC0),
    ('ℓ', 0xC1),
    ('℗', 0xC2),
    ('©', 0xC3),
    ('♯', 0xC4),
    ('¿', 0xC5),
    ('¡', 0xC6),
    ('€', 0xC8),
    ('ß', 0xCF),
];

/// ANSEL's combining marks.
const ANSEL_MARKS: [(char, u8); 30] = [
    ('\u{0309}', 0xE0),
    ('\u{0300}', 0xE1),
    ('\u{0301}', 0xE2),
    ('\u{0302}', 0xE3),
    ('\u{0303}', 0xE4),
    ('\u{0304}', 0xE5),
    ('\u{0306}', 0xE6),
    ('\u{0307}', 0xE7),
    ('\u{0308}', 0xE8),
    ('\u{030C}', 0xE9),
    ('\u{030A}', 0xEA),
    ('\u{FE20}', 0xEB),
    ('\u{FE21}', 0xEC),
    ('\u{0315}', 0xED),
    ('\u{030B}', 0xEE),
    ('\u{0310}', 0xEF),
    ('\u{0327}', 0xF0),
    ('\u{0328}', 0xF1),
    ('\u{0323}', 0xF2),
    ('\u{0324}', 0xF3),
    ('\u{0325}', 0xF4),
    ('\u{0333}', 0xF5),
    ('\u{0332}', 0xF6),
    ('\u{0326}', 0xF7),
    ('\u{031C}', 0xF8),
    ('\u{032E}', 0xF9),
    ('\u{FE22}', 0xFA),
    ('\u{FE23}', 0xFB),
    ('\u{0338}', 0xFC),
    ('\u{0313}', 0xFE),
];

fn spacing_octet(c: char) -> Option<u8> {
    if c.is_ascii() {
        return Some(c as u8);
    }
    ANSEL_SPACING.iter().find(|(s, _)| *s == c).map(|(_, b)| *b)
}

fn mark_octet(c: char) -> Option<u8> {
    ANSEL_MARKS.iter().find(|(m, _)| *m == c).map(|(_, b)| *b)
}

/// Appends `c` in ANSEL (see the module documentation).
fn push_ansel(c: char, out: &mut Vec<u8>) {
    if let Some(b) = spacing_octet(c) {
        out.push(b);
        return;
    }
    let nfd: Vec<char> = std::iter::once(c).nfd().collect();
    if let Some((&base, marks)) = nfd.split_first() {
        let marks: Option<Vec<u8>> = marks.iter().map(|&m| mark_octet(m)).collect();
        if let (Some(base), Some(marks)) = (spacing_octet(base), marks) {
            if !marks.is_empty() {
                out.extend_from_slice(&marks);
                out.push(base);
                return;
            }
        }
    }
    out.extend_from_slice(format!("@#U{:X}@ ", u32::from(c)).as_bytes());
}

/// The generated UTF-8 text in ANSEL, `CHAR` line changed.
fn to_ansel(utf8: &str) -> Vec<u8> {
    let text = utf8.replacen("\n1 CHAR UTF-8\n", "\n1 CHAR ANSEL\n", 1);
    let mut out = Vec::with_capacity(text.len() + text.len() / 4);
    let mut cache: std::collections::HashMap<char, Vec<u8>> = std::collections::HashMap::new();
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c as u8);
        } else {
            out.extend_from_slice(cache.entry(c).or_insert_with(|| {
                let mut v = Vec::new();
                push_ansel(c, &mut v);
                v
            }));
        }
    }
    out
}

/// The generated UTF-8 text in UTF-16LE with a byte-order mark, `CHAR` line changed.
fn to_utf16le(utf8: &str) -> Vec<u8> {
    let text = utf8.replacen("\n1 CHAR UTF-8\n", "\n1 CHAR UNICODE\n", 1);
    let mut out = Vec::with_capacity(2 * text.len() + 2);
    out.extend_from_slice(&[0xFF, 0xFE]);
    for u in text.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out
}

fn config() -> ReaderConfig {
    ReaderConfig::new().trailing_whitespace(TrailingWhitespace::Keep)
}

/// Reads every event and every payload's text; returns (events, text bytes).
fn read_all(mut reader: Reader<'_>) -> (u64, usize) {
    let (mut n, mut text_bytes) = (0u64, 0usize);
    while let Some(e) = reader.next_event().expect("generated input reads") {
        if let Event::Begin(b) = &e {
            if let Some(Value::Text(t)) = &b.value {
                text_bytes += t.text().len();
            }
        }
        black_box(&e);
        n += 1;
    }
    (n, text_bytes)
}

/// Every event rendered with its text, for the setup's equivalence check.
fn render(reader: Reader<'_>) -> Vec<String> {
    reader
        .map(|e| match e.expect("generated input reads") {
            Event::Begin(b) if b.tag == "CHAR" => "CHAR".to_string(),
            Event::Begin(b) => format!("+{} {} {:?}", b.level, b.tag, b.text()),
            Event::End(e) => format!("-{} {}", e.level, e.tag),
        })
        .collect()
}

fn encodings(c: &mut Criterion) {
    let (utf8, stats) = generate::bench_input();
    let text = std::str::from_utf8(&utf8).expect("the generator writes UTF-8");
    let ansel = to_ansel(text);
    let utf16 = to_utf16le(text);
    let events = 2 * stats.structures;

    // Same content, same events, same texts, no diagnostics.
    let utf16_input = Input::new(&utf16).expect("utf-16 input");
    assert_eq!(utf16_input.encoding_info().encoding, Encoding::Utf16Le);
    let ansel_reader = Reader::with_config(&ansel, config());
    assert_eq!(ansel_reader.encoding(), Encoding::Ansel);
    let want = render(Reader::with_config(&utf8, config()));
    assert_eq!(want.len() as u64, events);
    assert!(render(ansel_reader) == want, "ANSEL content differs");
    assert!(
        render(utf16_input.reader_with_config(config())) == want,
        "UTF-16 content differs"
    );
    for bytes in [&utf8, &ansel] {
        let mut r = Reader::with_config(bytes, config());
        while r.next_event().expect("reads").is_some() {}
        assert_eq!(r.diagnostics(), &[], "no diagnostics expected");
    }
    eprintln!(
        "encoding bench: {} events; utf-8 {} bytes, ansel {} bytes, utf-16le {} bytes",
        events,
        utf8.len(),
        ansel.len(),
        utf16.len()
    );

    let mut g = c.benchmark_group("encoding");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(utf8.len() as u64));

    g.bench_function("utf8", |b| {
        b.iter(|| {
            let (n, t) = read_all(Reader::with_config(black_box(&utf8), config()));
            assert_eq!(n, events);
            black_box(t);
        })
    });
    g.bench_function("ansel", |b| {
        b.iter(|| {
            let (n, t) = read_all(Reader::with_config(black_box(&ansel), config()));
            assert_eq!(n, events);
            black_box(t);
        })
    });
    g.bench_function("utf16le", |b| {
        b.iter(|| {
            let input = Input::new(black_box(&utf16)).expect("utf-16 input");
            let (n, t) = read_all(input.reader_with_config(config()));
            assert_eq!(n, events);
            black_box(t);
        })
    });
    g.finish();
}

criterion_group!(benches, encodings);
criterion_main!(benches);
