//! [`rewrite`]: a whole read and write, and [`decode_xref`](crate::write::decode_xref).

use std::io::Write;

use crate::encoding::Encoding;
use crate::event::Event;

use super::config::WriterConfig;
use super::error::{Dropped, WriteError, WriteErrorKind};
use super::writer::Writer;

/// What [`rewrite`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RewriteStats {
    /// Structures written.
    pub structures: u64,
    /// Error-severity diagnostics of the reader.
    pub read_errors: u64,
    /// Warning-severity diagnostics of the reader.
    pub read_warnings: u64,
    /// The input's encoding.
    pub input_encoding: Option<Encoding>,
    /// Structures (and xrefs) the writer left out: [`Writer::dropped_count`].
    pub dropped_count: u64,
    /// The first [`Dropped::KEPT`] of them, with their input lines:
    /// [`Writer::dropped`].
    pub dropped: Vec<Dropped>,
}

/// Reads `input` and writes it again with `config`: the canonical form (single spaces,
/// `@` escaping, `CONC` splits, one line terminator) in the configured encoding, with the
/// `HEAD`'s `CHAR` naming it. The input's escape table (from its schema) is kept, so
/// preserved escapes stay preserved. `input_encoding` overrides the detected encoding.
///
/// Every structure read is written, except what the `CHAR` rule of
/// [`WriterConfig::set_head_char`] leaves out, which [`RewriteStats::dropped_count`] counts
/// and [`RewriteStats::dropped`] lists with input lines.
///
/// ```
/// use gedcom_elf::Encoding;
/// use gedcom_elf::write::{rewrite, LineEnding, WriterConfig};
///
/// let input = b"0 HEAD\r\n1 CHAR ANSEL\r\n0  @I1@  INDI\r\n1 NAME Ren\xE2ee\r\n0 TRLR\r\n";
/// let mut out = Vec::new();
/// rewrite(input, None, WriterConfig::new(), &mut out)?;
/// assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Renée\n0 TRLR\n".as_bytes());
///
/// let mut ascii = Vec::new();
/// let config = WriterConfig::new().encoding(Encoding::Ascii).line_ending(LineEnding::CrLf);
/// rewrite(input, None, config, &mut ascii)?;
/// assert_eq!(ascii, b"0 HEAD\r\n1 CHAR ASCII\r\n0 @I1@ INDI\r\n1 NAME Ren@#UE9@ e\r\n0 TRLR\r\n");
/// # Ok::<(), gedcom_elf::write::WriteError>(())
/// ```
///
/// # Errors
/// [`WriteErrorKind::Read`] when the input cannot be read (nothing is written); any error
/// of [`Writer::write_event`] (for instance [`WriteErrorKind::TooDeep`] for substructures
/// of an `ERROR` structure the reader made from a too-deep line, which no writer can
/// reproduce). [`WriteError::line`] is the input line of the structure refused, or where
/// reading stopped (the message does not repeat it).
pub fn rewrite<W: Write>(
    input: &[u8],
    input_encoding: Option<Encoding>,
    config: WriterConfig,
    out: W,
) -> Result<RewriteStats, WriteError> {
    let read_error = |e: crate::Error| {
        let error = WriteError::new(WriteErrorKind::Read, e.message());
        match e.position() {
            Some(p) => error.at_line(p.line),
            None => error,
        }
    };
    let prepared = crate::Input::with_encoding(input, input_encoding).map_err(read_error)?;
    let enc = prepared.encoding_info().encoding;
    let mut reader = prepared.reader();
    let mut stats = RewriteStats {
        input_encoding: Some(enc),
        ..RewriteStats::default()
    };
    let mut writer: Option<Writer<W>> = None;
    let mut out = Some(out);
    loop {
        let event = reader.next_event().map_err(read_error)?;
        for d in reader.drain_diagnostics() {
            match d.severity() {
                crate::Severity::Error => stats.read_errors += 1,
                _ => stats.read_warnings += 1,
            }
        }
        let Some(event) = event else { break };
        let w = match writer.as_mut() {
            Some(w) => w,
            None => {
                // The escape table is complete once the first event was read.
                let config = config
                    .clone()
                    .escapes(reader.escape_table().clone())
                    .cr_is_line_break(false);
                let o = out
                    .take()
                    .ok_or_else(|| WriteError::new(WriteErrorKind::Io, "no output"))?;
                writer.insert(Writer::with_config(o, config))
            }
        };
        if matches!(event, Event::Begin(_)) {
            stats.structures += 1;
        }
        w.write_event(&event, enc)?;
    }
    if let Some(mut w) = writer {
        (stats.dropped_count, stats.dropped) = w.take_dropped();
        w.finish()?;
    }
    Ok(stats)
}
