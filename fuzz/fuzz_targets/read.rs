//! Arbitrary bytes through the reader: drain every event, every payload's
//! text and fragments, and every diagnostic. Must not panic or hang, and
//! must keep its structure invariants.
#![no_main]

use gedcom_elf::{Event, Reader, ReaderConfig, TrailingWhitespace, Value, Version};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the configuration; the rest is the input.
    let (flags, input) = match data.split_first() {
        Some((f, rest)) => (*f, rest),
        None => (0, data),
    };
    let tw = match flags & 3 {
        0 => TrailingWhitespace::KeepBeforeConc,
        1 => TrailingWhitespace::Trim,
        _ => TrailingWhitespace::Keep,
    };
    let config = ReaderConfig::new()
        .trailing_whitespace(tw)
        .headless(flags & 4 != 0)
        .strict(flags & 8 != 0)
        // GEDCOM 7's payload rules, whatever the input's HEAD says.
        .version((flags & 16 != 0).then_some(Version::Gedcom7))
        .max_retained_diagnostics(64);
    let mut reader = Reader::with_config(input, config);
    let mut depth: u64 = 0;
    let mut events: u64 = 0;
    loop {
        match reader.next_event() {
            Ok(Some(Event::Begin(b))) => {
                assert_eq!(u64::from(b.level), depth, "levels nest");
                depth += 1;
                if let Some(Value::Text(t)) = &b.value {
                    let text = t.text();
                    let _ = t.joined_bytes();
                    assert!(t.fragments().count() >= 1);
                    // Decoding is deterministic.
                    assert_eq!(text, t.text());
                }
                assert!(b.span.start <= b.span.end && b.span.end <= input.len());
                let _ = b.into_owned();
            }
            Ok(Some(Event::End(e))) => {
                assert!(depth > 0, "end without begin");
                depth -= 1;
                assert_eq!(u64::from(e.level), depth);
            }
            Ok(None) => break,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                depth = 0;
                break;
            }
        }
        events += 1;
        // Each non-blank line yields at most one begin and one end.
        assert!(events <= 2 * (input.len() as u64) + 2);
        for d in reader.drain_diagnostics() {
            assert!(d.position.line >= 1);
        }
    }
    assert_eq!(depth, 0, "every begin has its end");
    assert!(reader.next_event().map_or(true, |e| e.is_none()));
});
