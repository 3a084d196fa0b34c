//! Arbitrary bytes through the GEDCOM X export: the index (read whole, or
//! in batches of 1 to 64 bytes), then JSON and XML mapped at one and two
//! jobs (one batch of 64 KiB, or batches of 1 to 64 bytes);
//! the document and the not-converted report must be the same every way,
//! and nothing may panic or hang.
#![no_main]

use std::sync::Arc;

use gedcom_elf::gedcomx::{Export, Format, Index, Options};
use gedcom_elf::stream::StreamReader;
use libfuzzer_sys::fuzz_target;

/// The document and the report's total, or the error's text.
fn export(input: &[u8], format: Format, jobs: usize, batch: usize) -> Result<(Vec<u8>, u64), String> {
    let mut out = Vec::new();
    let options = Options { format, pretty: batch % 2 == 0, ..Options::default() };
    // The index read whole at one job, in batches of `batch` bytes at two
    // (of which it reads only the records it looks into): the same index.
    let index = match jobs {
        1 => Index::from_read(input, Default::default(), 1),
        _ => Index::new().read(input, Default::default(), jobs, Some(batch)),
    }
    .map_err(|e| e.to_string())?;
    let mut export =
        Export::new(&mut out, options, Arc::new(index), Vec::new).map_err(|e| e.to_string())?;
    let batch = if jobs == 1 { 1 << 16 } else { batch };
    let mut stream = StreamReader::new(input).jobs(jobs).batch_bytes(batch);
    export.stream(&mut stream, |_| {}).map_err(|e| e.to_string())?;
    let report = export.finish().map_err(|e| e.to_string())?;
    Ok((out, report.total()))
}

fuzz_target!(|data: &[u8]| {
    let (flags, input) = match data.split_first() {
        Some((f, rest)) => (*f, rest),
        None => (0, data),
    };
    let format = if flags & 2 == 0 { Format::Json } else { Format::Xml };
    let batch = usize::from(flags >> 2) % 64 + 1;
    let one = export(input, format, 1, batch);
    let two = export(input, format, 2, batch);
    assert_eq!(one, two);
});
