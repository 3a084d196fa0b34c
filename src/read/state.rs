//! What a reader carries: its counters ([`ReadStats`]), what it is set up
//! with for a whole input ([`Setup`]), and the state that crosses from one
//! chunk of whole records to the next ([`ReadState`]), with the reader's
//! crate-private API for reading in chunks (`first_chunk`, `resume`,
//! `into_state`).

use std::sync::Arc;

use super::{Phase, Reader, ReaderConfig, HEAD_ASCII_WINDOW};
use crate::diag::{Diagnostic, DiagnosticKind, Error, Position, Severity};
use crate::encoding::Detection as EncodingInfo;
use crate::escape::EscapeTable;
use crate::payload::Decoding;
use crate::scan::Cursor;
use crate::version::Version;

/// Counters kept while reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Non-blank line strings read.
    pub lines: u64,
    /// Structures begun (Begin events).
    pub structures: u64,
    /// Greatest structure level seen.
    pub max_level: u32,
    /// Diagnostics by kind, indexed like [`DiagnosticKind::ALL`].
    pub diagnostics: Vec<u64>,
    /// Diagnostics that were counted but not retained (see
    /// [`ReaderConfig::max_retained_diagnostics`]).
    pub diagnostics_dropped: u64,
}

impl ReadStats {
    /// How many diagnostics of `kind` were reported.
    pub fn count(&self, kind: DiagnosticKind) -> u64 {
        self.diagnostics.get(kind.index()).copied().unwrap_or(0)
    }

    /// How many error-severity diagnostics were reported.
    pub fn errors(&self) -> u64 {
        DiagnosticKind::ALL
            .iter()
            .zip(&self.diagnostics)
            .filter(|(k, _)| k.severity() == Severity::Error)
            .map(|(_, n)| n)
            .sum()
    }
}

/// What a reader is set up with for a whole input, fixed once the HEAD was
/// read: the configuration, the encoding and how it was decided, how
/// payloads decode, the schema's escape table. Cheap to clone (the encoding
/// information is shared): every batch read apart starts from a clone.
#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub(super) config: ReaderConfig,
    pub(super) info: Arc<EncodingInfo>,
    pub(super) decoding: Decoding,
    pub(super) escapes: EscapeTable,
    /// The version read as (the HEAD's `GEDC.VERS`, or the caller's), and
    /// the number of the `VERS` line that said it (`None`: forced, or not
    /// said). Also in `decoding`, for payloads.
    pub(super) version: Version,
    pub(super) version_line: Option<u64>,
}

/// The state of a reader that crosses from one chunk of whole records to
/// the next: the reader owns it while it reads and gives it back
/// ([`Reader::into_state`]); the next chunk's reader takes it
/// ([`Reader::resume`]). Moved, never copied field by field.
///
/// A level-0 line closes every open structure, so input cut just before a
/// level-0 line reads, chunk by chunk, into exactly the events of the whole:
/// only this small state (the [`Setup`], seed §4.1's previous level, whether
/// `TRLR` was seen, the counters, the line number) crosses the cut. A chunk
/// read apart on another thread starts from a [`template`](ReadState::template)
/// instead, and [`par`](crate::par)'s merge makes its output what a
/// sequential read gives. The streaming and parallel readers are built on
/// it.
#[derive(Clone, Debug)]
pub(crate) struct ReadState {
    pub(super) setup: Setup,
    /// Level of the closest preceding line not tagged CONT, CONC or ERROR.
    pub(super) previous_level: Option<u32>,
    /// CONT/CONC lines at this level directly after a too-deep line are
    /// its children, not stray continuation lines.
    pub(super) error_children: Option<u32>,
    pub(super) seen_trlr: bool,
    pub(super) warned_after_trlr: bool,
    pub(super) stats: ReadStats,
    /// The number and (global) byte offset of the last line read: what
    /// [`Reader::last_read`] gives before a resumed reader has read a line,
    /// so a chunk with no line string carries them on.
    pub(super) last_line: u64,
    pub(super) last_byte: u64,
    /// Number of the line where the next chunk starts.
    pub(crate) next_line: u64,
}

impl ReadState {
    /// The state before any line, with `setup`.
    pub(super) fn new(setup: Setup) -> ReadState {
        ReadState {
            setup,
            previous_level: None,
            error_children: None,
            seen_trlr: false,
            warned_after_trlr: false,
            stats: ReadStats {
                diagnostics: vec![0; DiagnosticKind::ALL.len()],
                ..ReadStats::default()
            },
            last_line: 1,
            last_byte: 0,
            next_line: 1,
        }
    }

    /// The state a chunk read apart starts from (parallel reading): this
    /// one's setup (configuration, encoding, escapes); nothing read yet,
    /// lines numbered from 1.
    pub(crate) fn template(&self) -> ReadState {
        ReadState::new(self.setup.clone())
    }

    /// Adds `off` to the line numbers of a chunk that was read numbered
    /// from line 1 (see [`crate::par`]'s relative numbering).
    pub(crate) fn shift_lines(&mut self, off: u64) {
        self.last_line = self.last_line.saturating_add(off);
        self.next_line = self.next_line.saturating_add(off);
    }

    /// Whether a `TRLR` record was read.
    pub(crate) fn seen_trlr(&self) -> bool {
        self.seen_trlr
    }

    /// The counters so far.
    pub(crate) fn stats(&self) -> &ReadStats {
        &self.stats
    }

    /// The encoding information.
    pub(crate) fn info(&self) -> &EncodingInfo {
        &self.setup.info
    }

    /// The version read as.
    pub(crate) fn version(&self) -> Version {
        self.setup.version
    }

    /// The escape table in force.
    pub(crate) fn escapes(&self) -> &EscapeTable {
        &self.setup.escapes
    }

    /// The number of the last line read (or carried in).
    pub(crate) fn last_line(&self) -> u64 {
        self.last_line
    }

    /// The byte offset of the last line read, `base` included.
    pub(crate) fn last_byte(&self) -> u64 {
        self.last_byte
    }

    /// The end-of-input check of a chunked read: a missing `TRLR`.
    pub(crate) fn finish(&mut self) -> Option<Diagnostic> {
        if self.seen_trlr {
            return None;
        }
        self.stats.diagnostics[DiagnosticKind::MissingTrlr.index()] += 1;
        Some(Diagnostic::missing_trlr(Position {
            line: self.last_line,
            byte: self.last_byte,
        }))
    }
}

impl<'a> Reader<'a> {
    /// A reader over `input[..end]` that treats `end` as a chunk boundary:
    /// structures still open there end, but no `TRLR` check is made.
    pub(crate) fn first_chunk(mut self, end: usize) -> Self {
        let end = end.min(self.input.len());
        if self.head_ascii.is_none() {
            // Whether a missing `CHAR` line deserves a warning is judged on
            // the input's first bytes, not on the first chunk's.
            let body = &self.input[self.cursor.position().min(self.input.len())..];
            self.head_ascii = Some(body[..body.len().min(HEAD_ASCII_WINDOW)].is_ascii());
        }
        let (pos, line) = (self.cursor.position().min(end), self.cursor.line_number());
        self.cursor = Cursor::new(&self.input[..end], pos, line);
        self.chunked = true;
        self
    }

    /// Resumes reading at `input[start..end]`, a chunk that starts with a
    /// level-0 line, with the state the chunk before gave back (or a
    /// [`template`](ReadState::template)). Its `next_line` is the number of
    /// the line at `start`; `base` is added to byte offsets in diagnostics.
    pub(crate) fn resume(
        input: &'a [u8],
        start: usize,
        end: usize,
        state: ReadState,
        base: u64,
    ) -> Self {
        let end = end.min(input.len());
        let cursor = Cursor::new(&input[..end], start.min(end), state.next_line);
        let mut r = Reader::with_state(input, state);
        r.cursor = cursor;
        r.base = base;
        r.resumed = true;
        r.chunked = true;
        r
    }

    /// Gives back the state, to be carried into the next chunk. Meaningful
    /// once this reader has returned its last event.
    pub(crate) fn into_state(self) -> ReadState {
        let (last_line, last_byte) = self.last_read();
        let next_line = self.cursor.line_number();
        ReadState {
            last_line,
            last_byte,
            next_line,
            ..self.state
        }
    }

    /// Runs the start (HEAD check, schema) and returns the state a later
    /// chunk starts from.
    pub(crate) fn template(&mut self) -> Result<ReadState, Error> {
        if self.phase == Phase::Start {
            self.start()?;
        }
        Ok(self.state.template())
    }

    /// Tells the reader whether the input's first bytes are ASCII (a
    /// stream's first batch sees only itself).
    pub(crate) fn set_head_ascii(&mut self, ascii: bool) {
        self.head_ascii = Some(ascii);
    }

    /// Whether this reader is past its last event.
    pub(crate) fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// A chunk made by [`Reader::resume`] and not read yet, for a caller
    /// that reads only some of its records, each through a reader of its
    /// own ([`Reader::resume`] over the same window). `None` for any other
    /// reader.
    pub(crate) fn unread_chunk(&self) -> Option<UnreadChunk<'a>> {
        if !self.resumed || self.phase != Phase::Start || self.has_pending {
            return None;
        }
        Some(UnreadChunk {
            window: self.cursor.input(),
            start: self.cursor.position(),
            line: self.cursor.line_number(),
            base: self.base,
            template: self.state.template(),
        })
    }
}

/// What [`Reader::unread_chunk`] gives: the window (the input up to the
/// chunk's end), where the chunk starts in it and the number of its line
/// there, the base of byte offsets, and the state (setup: configuration,
/// encoding, escapes, version) a reader of one of its records starts from
/// (its `next_line` set to the record's line).
#[derive(Debug)]
pub(crate) struct UnreadChunk<'a> {
    pub(crate) window: &'a [u8],
    pub(crate) start: usize,
    pub(crate) line: u64,
    pub(crate) base: u64,
    pub(crate) template: ReadState,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk with no line string (only blank lines) carries on the last
    /// line and byte it was given, instead of pointing at its own start.
    #[test]
    fn a_resumed_reader_that_reads_no_line_carries_the_last_line_and_byte() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n\n\n\n";
        let cut = 20; // after `1 CHAR UTF-8\n`
        let mut first = Reader::from_slice(input).first_chunk(cut);
        while first.next_event().unwrap().is_some() {}
        let state = first.into_state();
        assert_eq!((state.last_line(), state.last_byte()), (2, 7));

        let mut second = Reader::resume(input, cut, 32, state, 0);
        while second.next_event().unwrap().is_some() {}
        let state = second.into_state();
        assert_eq!((state.last_line(), state.last_byte()), (3, 20));

        let mut blank = Reader::resume(input, 32, input.len(), state, 0);
        assert!(blank.next_event().unwrap().is_none());
        let mut state = blank.into_state();
        assert_eq!((state.last_line(), state.last_byte()), (3, 20));
        let missing = state.finish().expect("no trlr was read");
        assert_eq!((missing.position.line, missing.position.byte), (3, 20));
    }
}
