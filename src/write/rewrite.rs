//! [`rewrite`]: a whole read and write, and [`Rewriter`], the same fed reader by reader.

use std::io::Write;

use crate::encoding::Encoding;
use crate::event::Event;
use crate::read::Reader;

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
    let mut rewriter = Rewriter::new(config, out);
    loop {
        let event = reader.next_event().map_err(read_error)?;
        for d in reader.drain_diagnostics() {
            match d.severity() {
                crate::Severity::Error => stats.read_errors += 1,
                _ => stats.read_warnings += 1,
            }
        }
        let Some(event) = event else { break };
        if matches!(event, Event::Begin(_)) {
            stats.structures += 1;
        }
        rewriter.write_event(&reader, &event)?;
    }
    if let Some(w) = rewriter.writer_mut() {
        (stats.dropped_count, stats.dropped) = w.take_dropped();
    }
    rewriter.finish()?;
    Ok(stats)
}

/// [`rewrite`] fed event by event, from one reader after another: the batches of a
/// [`StreamReader`](crate::stream::StreamReader) (so that a stream is written again in
/// bounded memory), or one reader of a whole input. Its one [`Writer`] is made at the
/// first event, with the input's escape table (complete once a reader returned an
/// event) and with a CR in a text kept a character
/// ([`WriterConfig::cr_is_line_break`] off), in the input's GEDCOM version
/// ([`Reader::version`](crate::Reader::version)) unless the configuration sets one
/// ([`WriterConfig::version`]): `fmt` of a 7.0 file writes 7.0 (its `@` signs as
/// they were, and its byte-order mark or its absence, when the output's encoding
/// is the input's and [`WriterConfig::bom`] was not set); xref ids are decoded from the reader's
/// encoding ([`decode_xref`](super::decode_xref)).
///
/// ```
/// use gedcom_elf::write::{Rewriter, WriterConfig};
/// use gedcom_elf::Input;
///
/// let input = Input::new(b"0 HEAD\n1 CHAR ASCII\n0  @I1@  INDI\n1 EMAIL a@@b\n0 TRLR\n")?;
/// let mut reader = input.reader();
/// let mut rewriter = Rewriter::new(WriterConfig::new(), Vec::new());
/// while let Some(event) = reader.next_event()? {
///     rewriter.write_event(&reader, &event)?;
/// }
/// let out = rewriter.finish()?.unwrap_or_default();
/// assert_eq!(out, b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL a@@b\n0 TRLR\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Rewriter<W: Write> {
    config: WriterConfig,
    out: Option<W>,
    writer: Option<(Writer<W>, Encoding)>,
}

impl<W: Write> Rewriter<W> {
    /// Writes with `config` (its escape table replaced by the input's) into `out`.
    pub fn new(config: WriterConfig, out: W) -> Self {
        Rewriter {
            config,
            out: Some(out),
            writer: None,
        }
    }

    /// Writes `event`, which `reader` read ([`Writer::write_event`]).
    ///
    /// # Errors
    /// As [`Writer::write_event`].
    pub fn write_event(
        &mut self,
        reader: &Reader<'_>,
        event: &Event<'_>,
    ) -> Result<(), WriteError> {
        let (writer, source) = match (self.writer.as_mut(), self.out.take()) {
            (Some(w), _) => w,
            (None, out) => {
                let version = self.config.version_set().unwrap_or(reader.version());
                let mut config = (self.config.clone())
                    .escapes(reader.escape_table().clone())
                    .cr_is_line_break(false)
                    .version(version);
                if config.bom.is_none()
                    && version.is_gedcom7()
                    && config.encoding == reader.encoding()
                {
                    // 7.0 output keeps the input's byte-order mark, or its absence.
                    config.bom = Some(reader.encoding_info().bom_len > 0);
                }
                let out = out.ok_or_else(|| WriteError::new(WriteErrorKind::Io, "no output"))?;
                self.writer
                    .insert((Writer::with_config(out, config), reader.encoding()))
            }
        };
        writer.write_event(event, *source)
    }

    /// The writer, once an event was written: for what it left out
    /// ([`Writer::dropped`]).
    pub fn writer_mut(&mut self) -> Option<&mut Writer<W>> {
        self.writer.as_mut().map(|(w, _)| w)
    }

    /// Ends the output ([`Writer::finish`]): the writer's output, or `None` when no
    /// event was written.
    ///
    /// # Errors
    /// As [`Writer::finish`].
    pub fn finish(self) -> Result<Option<W>, WriteError> {
        self.writer.map(|(w, _)| w.finish()).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::StreamReader;

    #[test]
    fn a_stream_fed_batch_by_batch_is_written_as_rewrite_writes_it() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a@#UD@ b\n2 CONT c@@d\n1 BIRT\n2 DATE @#DJULIAN@ 1540\n0 @I2@ INDI\n1 FAMS @F1@\n0 TRLR\n";
        let mut whole = Vec::new();
        rewrite(input, None, WriterConfig::new(), &mut whole).unwrap();
        let mut stream = StreamReader::new(&input[..]).batch_bytes(8);
        let mut rewriter = Rewriter::new(WriterConfig::new(), Vec::new());
        let mut buf = Vec::new();
        while let Some(mut batch) = stream.read_batch_into(&mut buf).unwrap() {
            if let Some(reader) = batch.reader_mut() {
                while let Some(event) = reader.next_event().unwrap() {
                    rewriter.write_event(reader, &event).unwrap();
                }
            }
        }
        assert_eq!(rewriter.finish().unwrap(), Some(whole));
        // Nothing read, nothing written.
        assert_eq!(
            Rewriter::new(WriterConfig::new(), Vec::<u8>::new())
                .finish()
                .unwrap(),
            None
        );
    }
}
