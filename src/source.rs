//! The batch source: bytes in from any reader, record-aligned pieces out.
//! [`StreamReader`](crate::stream::StreamReader) and
//! [`Records`](crate::tree::Records) both read through it.
//!
//! What it owns:
//! * the read buffer, filled from a [`Read`] ([`FromRead`]), read straight
//!   into it (a `BufReader` passes a read at least as large as its own
//!   buffer through);
//! * the character encoding, decided once from the input's first bytes
//!   (seed §3.1-§3.2) with exactly what [`Input`](crate::Input) decides on
//!   the whole input, and UTF-16 transcoded to UTF-8 as it is read;
//! * where the input is cut: just before a line where a record may start
//!   ([`starts_record`]), found by [`next_cut`], the rule that also cuts a
//!   slice into chunks ([`par`](crate::par), the case where all of the
//!   input is there).
//!
//! Each [`Piece`] is a [`Bytes`] slice of the buffer (shared, never
//! copied) with its byte offset in the decoded stream and, when asked, the
//! number of lines before it; the first comes with how the encoding was
//! decided. Reading the pieces (the reader and the state carried from one
//! to the next) and running them on threads ([`ordered`](crate::ordered))
//! are the callers' part.

use std::io::Read;

use bytes::{Buf, Bytes, BytesMut};

use crate::diag::{Diagnostic, DiagnosticKind, Error, Position};
use crate::encoding::{DecodeProblem, Detection, Encoding, Utf16Decoder};
use crate::read::HEAD_ASCII_WINDOW;
use crate::scan::{count_breaks, parse_line, Lines};

/// How far the encoding detection scans the HEAD for its `CHAR` line
/// (`HEAD_SCAN_LIMIT` of [`encoding::detect`](crate::encoding::detect())).
/// The source holds the HEAD's end or more than this many bytes before it
/// detects, so that it decides what detection over the whole input decides.
const HEAD_SCAN_LIMIT: usize = 1 << 20;

/// `true` when a piece may start with this line string: a well-formed
/// level-0 line that is not tagged `CONT`, `CONC` or `ERROR`. (A level-0
/// line closes every open structure; the reader judges a `CONT`, `CONC` or
/// `ERROR` line by the line before it, so those stay with it.)
pub(crate) fn starts_record(text: &[u8]) -> bool {
    // A level 0 is written `0` (no leading zero): any other line is passed
    // over without being parsed.
    text.first() == Some(&b'0')
        && matches!(parse_line(text), Ok(l) if l.level == 0 && !matches!(l.tag, b"CONT" | b"CONC" | b"ERROR"))
}

/// The outcome of a search for a cut.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Cut here.
    At(usize),
    /// No cut yet; resume the search at this offset once more bytes arrive.
    NeedMore(usize),
    /// End of input: the rest is the last piece.
    End,
}

/// The first line start at or after `from` (and after the end of the first
/// line string of `buf`) where `buf` may be cut: the start of a complete
/// line (leading whitespace included) whose text [`starts_record`]. With
/// `eof`, `buf` is all there is (a slice) and its last line is complete.
pub(crate) fn next_cut(buf: &[u8], from: usize, eof: bool) -> Cut {
    // Not before the end of the first line string (blank lines aside).
    let first_end = Lines::new(buf).next().map_or(buf.len(), |l| l.end());
    let from = from.max(first_end + 1);
    if from > buf.len() {
        return if eof { Cut::End } else { Cut::NeedMore(from) };
    }
    let mut breaks = memchr::memchr2_iter(b'\n', b'\r', &buf[from - 1..])
        .map(|k| from - 1 + k)
        .peekable();
    while let Some(q) = breaks.next() {
        if buf[q] == b'\r' && buf.get(q + 1) == Some(&b'\n') {
            continue; // the LF that follows ends this break
        }
        let start = q + 1;
        let end = match breaks.peek() {
            Some(&e) => e,
            None if eof => buf.len(),
            // The line is not complete yet: look at it again later.
            None => return Cut::NeedMore(start),
        };
        let text = &buf[start..end];
        let text = &text[text
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count()..];
        if starts_record(text) {
            return Cut::At(start);
        }
    }
    if eof {
        Cut::End
    } else {
        Cut::NeedMore(buf.len().max(from))
    }
}

/// The starts of the records of a complete `buf` (at its end) after the
/// one at `from`: the cuts [`next_cut`] finds one after another (what
/// [`record_boundaries`](crate::par::record_boundaries) gives with a
/// target of 1 byte), found faster where no line is indented and each CR
/// has its LF (most inputs): then only the lines that begin with `0` right
/// after an LF are looked at.
pub(crate) fn record_starts(buf: &[u8], from: usize) -> impl Iterator<Item = usize> + '_ {
    let plain = plain_lines(&buf[from.min(buf.len())..]);
    let lf0 = memchr::memmem::Finder::new(b"\n0");
    let mut at = from;
    std::iter::from_fn(move || {
        let rest = buf.get(at..)?;
        let cut = match plain {
            true => next_cut_plain(rest, &lf0),
            false => next_cut(rest, 0, true),
        };
        match cut {
            Cut::At(k) => {
                at += k;
                Some(at)
            }
            Cut::NeedMore(_) | Cut::End => None,
        }
    })
}

/// Whether every line of `buf` begins right after an LF with no white
/// space: no line is indented, and each CR is followed by an LF.
fn plain_lines(buf: &[u8]) -> bool {
    let indented = |b: &[u8]| memchr::memmem::find(buf, b).is_some();
    if indented(b"\n ") || indented(b"\n\t") {
        return false;
    }
    memchr::memchr(b'\r', buf).is_none()
        || memchr::memchr_iter(b'\r', buf).count()
            == memchr::memmem::find_iter(buf, b"\r\n").count()
}

/// [`next_cut`] of a complete `buf` (at its end) for which [`plain_lines`]
/// holds: the same cut, found by looking only at the lines that begin
/// with `0` right after an LF (`lf0` finds the octets LF `0`).
fn next_cut_plain(buf: &[u8], lf0: &memchr::memmem::Finder<'_>) -> Cut {
    let first_end = Lines::new(buf).next().map_or(buf.len(), |l| l.end());
    let mut from = first_end;
    while let Some(k) = buf.get(from..).and_then(|rest| lf0.find(rest)) {
        let start = from + k + 1;
        let end = memchr::memchr2(b'\n', b'\r', &buf[start..]).map_or(buf.len(), |e| start + e);
        if starts_record(&buf[start..end]) {
            return Cut::At(start);
        }
        from = start;
    }
    Cut::End
}

/// How much more than a piece's rest a [`Source`] reads for it, to find
/// where its last record ends (16 KiB).
const PAST_CUT: usize = 16 << 10;

/// The size of piece from which a [`Source`] reads for each piece
/// (256 KiB) rather than several pieces at a read.
const READ_PER_PIECE: usize = 256 << 10;

/// Where a [`Source`] gets its bytes.
pub(crate) trait Pull {
    /// Appends the next bytes of input to `out`, about `want` of them or
    /// fewer; 0 at the end of the input.
    fn pull(&mut self, out: &mut BytesMut, want: usize) -> std::io::Result<usize>;
}

/// Bytes from a [`Read`], read straight into the buffer: up to `most` at
/// a time once reads fill what is asked (a file), less while they return
/// less (a pipe), so that the buffer's new bytes, zeroed before each read,
/// are about what a read gives.
#[derive(Debug)]
pub(crate) struct FromRead<R> {
    inner: R,
    most: usize,
    ask: usize,
}

impl<R> FromRead<R> {
    /// The least asked of a read (unless `most` is less).
    const LEAST: usize = 64 << 10;

    pub(crate) fn new(inner: R, most: usize) -> Self {
        let most = most.max(1);
        FromRead {
            inner,
            most,
            ask: most.min(Self::LEAST),
        }
    }
}

impl<R: Read> Pull for FromRead<R> {
    fn pull(&mut self, out: &mut BytesMut, want: usize) -> std::io::Result<usize> {
        let len = out.len();
        let ask = self.ask.min(want.max(Self::LEAST.min(self.most)));
        out.resize(len + ask, 0);
        let read = loop {
            match self.inner.read(&mut out[len..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r,
            }
        };
        let n = *read.as_ref().unwrap_or(&0);
        out.truncate(len + n);
        if n == ask && ask == self.ask {
            self.ask = (self.ask * 2).min(self.most);
        } else if n < ask / 2 {
            self.ask = (self.ask / 2).max(self.most.min(Self::LEAST));
        }
        read
    }
}

/// How the encoding was decided, given with the first [`Piece`].
#[derive(Debug)]
pub(crate) struct Start {
    /// The detection (seed §3.1-§3.2).
    pub(crate) info: Detection,
    /// The encoding of the pieces' bytes (UTF-8 for transcoded UTF-16).
    pub(crate) encoding: Encoding,
    /// Whether the input's first [`HEAD_ASCII_WINDOW`] bytes (after its
    /// byte-order mark) are ASCII: they decide whether defaulting to ANSEL
    /// deserves a warning, as they do for a whole input.
    pub(crate) head_ascii: bool,
}

/// A piece of whole records.
#[derive(Debug)]
pub(crate) struct Piece {
    pub(crate) bytes: Bytes,
    /// Its offset in the decoded stream (after the byte-order mark).
    pub(crate) offset: u64,
    /// The lines before it, when the source counts them (else 0).
    pub(crate) lines_before: u64,
    /// For the first piece: how the encoding was decided.
    pub(crate) start: Option<Start>,
}

/// Record-aligned pieces of an input read from `P`. See the [module
/// docs](self).
#[derive(Debug)]
pub(crate) struct Source<P> {
    input: P,
    /// The caller's encoding, in place of the detected one.
    forced: Option<Encoding>,
    /// Decoded bytes read and not yet handed out (raw ones until the
    /// encoding is decided).
    buf: BytesMut,
    /// Where the search for the next cut resumes (an offset in `buf`).
    search: usize,
    started: bool,
    eof: bool,
    /// For UTF-16: the transcoder, raw bytes read and not yet transcoded,
    /// and the transcoded ones before they join `buf`.
    utf16: Option<Utf16Decoder>,
    raw: BytesMut,
    decoded: Vec<u8>,
    /// Unpaired surrogates and truncated code units met transcoding.
    problems: usize,
    /// Offset of `buf[0]` in the decoded stream.
    offset: u64,
    /// Lines before `buf[0]`, when counted.
    lines: Option<u64>,
}

impl<P: Pull> Source<P> {
    /// A source of `input`, read in `forced` when given (else detected).
    pub(crate) fn new(input: P, forced: Option<Encoding>) -> Self {
        Source {
            input,
            forced,
            buf: BytesMut::new(),
            search: 0,
            started: false,
            eof: false,
            utf16: None,
            raw: BytesMut::new(),
            decoded: Vec::new(),
            problems: 0,
            offset: 0,
            lines: None,
        }
    }

    /// Counts the lines of the pieces from now on, `lines` coming before
    /// the next one.
    pub(crate) fn count_lines_from(&mut self, lines: u64) {
        self.lines = Some(lines);
    }

    /// Bytes handed out so far (decoded, after the byte-order mark).
    pub(crate) fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// Unpaired surrogates and truncated code units met transcoding UTF-16
    /// so far (each became U+FFFD).
    pub(crate) fn transcode_problems(&self) -> usize {
        self.problems
    }

    /// Reads more input into `buf` (transcoded once the encoding is
    /// decided); `false` at the end of the input.
    fn fill(&mut self) -> Result<bool, Error> {
        self.fill_toward(usize::MAX)
    }

    /// [`Source::fill`], reading about `want` bytes or fewer (a piece's
    /// rest, and a little more to find its end): the bytes after a cut are
    /// copied when the next piece's are read, so few are read past it.
    fn fill_toward(&mut self, want: usize) -> Result<bool, Error> {
        if self.eof {
            return Ok(false);
        }
        let Some(decoder) = self.utf16.as_mut() else {
            self.eof = self.input.pull(&mut self.buf, want)? == 0;
            return Ok(!self.eof);
        };
        self.eof = self.input.pull(&mut self.raw, want)? == 0;
        let problems = &mut self.problems;
        self.decoded.clear();
        decoder.decode_chunk(&self.raw, self.eof, &mut self.decoded, &mut |p| {
            count(problems, p)
        });
        self.raw.clear();
        self.buf.extend_from_slice(&self.decoded);
        Ok(!self.eof)
    }

    /// Decides the encoding from the input's first bytes.
    ///
    /// The detector scans the HEAD up to [`HEAD_SCAN_LIMIT`] bytes: the
    /// source reads until it holds the HEAD's end (a complete level-0 line
    /// after the first line), more than that limit or all of the input, and
    /// at least [`HEAD_ASCII_WINDOW`] bytes, so that the detection and the
    /// missing-`CHAR` judgement are those of the whole input. (A stream
    /// reading only a fixed window decided differently for a HEAD longer
    /// than it; holding a whole MiB for every input cost memory for
    /// nothing.)
    fn start(&mut self) -> Result<Start, Error> {
        self.started = true;
        // Byte-order marks are at most 3 bytes.
        while self.buf.len() < HEAD_ASCII_WINDOW + 3 && self.fill()? {}
        let info = loop {
            let info = crate::input::detect(&self.buf, self.forced)?;
            let bom = info.bom_len.min(self.buf.len());
            let body = &self.buf[bom..];
            let scanned_as = self.forced.or(info.detected);
            if self.eof || body.len() > HEAD_SCAN_LIMIT || holds_head_end(body, scanned_as) {
                break info;
            }
            // Twice as much before looking again (each look is over all).
            let want = (self.buf.len() * 2).min(bom + HEAD_SCAN_LIMIT + 1);
            while self.buf.len() < want && self.fill()? {}
        };
        self.buf.advance(info.bom_len.min(self.buf.len()));
        let encoding = if info.encoding.is_utf16() {
            let mut decoder = Utf16Decoder::new(info.encoding == Encoding::Utf16Be);
            let problems = &mut self.problems;
            self.decoded.clear();
            decoder.decode_chunk(&self.buf, self.eof, &mut self.decoded, &mut |p| {
                count(problems, p)
            });
            self.buf = BytesMut::from(&self.decoded[..]);
            self.utf16 = Some(decoder);
            Encoding::Utf8
        } else {
            info.encoding
        };
        let head_ascii = self.buf[..self.buf.len().min(HEAD_ASCII_WINDOW)].is_ascii();
        Ok(Start {
            info,
            encoding,
            head_ascii,
        })
    }

    /// The next piece of whole records: at least `at_least` bytes where the
    /// input has them, cut at the first line where a record may start after
    /// that ([`next_cut`]). `at_least` 0 gives one record (more when records
    /// begin with level-0 `CONT`, `CONC` or `ERROR` lines). The first piece
    /// comes with how the encoding was decided, even when it is empty;
    /// `None` after the last.
    ///
    /// # Errors
    /// I/O errors of the input; an unsupported encoding (first piece).
    pub(crate) fn next_piece(&mut self, at_least: usize) -> Result<Option<Piece>, Error> {
        let start = if self.started {
            None
        } else {
            Some(self.start()?)
        };
        let cut = loop {
            match next_cut(&self.buf, self.search.max(at_least), self.eof) {
                Cut::At(c) => break c,
                Cut::End => break self.buf.len(),
                Cut::NeedMore(resume) => self.search = resume,
            }
            // At the end of the input, the search above ends it. A large
            // piece is read about to its end (the bytes read past a cut
            // are copied when the next piece grows the buffer); small ones
            // several to a read.
            let want = match at_least >= READ_PER_PIECE {
                true => at_least.saturating_sub(self.buf.len()) + PAST_CUT,
                false => usize::MAX,
            };
            self.fill_toward(want)?;
        };
        self.search = 0;
        if cut == 0 && start.is_none() {
            return Ok(None);
        }
        let bytes = self.buf.split_to(cut).freeze();
        let lines_before = self.lines.unwrap_or(0);
        if let Some(lines) = self.lines.as_mut() {
            *lines += count_breaks(&bytes);
        }
        let offset = self.offset;
        self.offset += cut as u64;
        Ok(Some(Piece {
            bytes,
            offset,
            lines_before,
            start,
        }))
    }
}

/// Whether `body` (the input after its byte-order mark, scanned in
/// `encoding` as the detector scans it) holds the end of its first record:
/// a complete line after the first one whose first word is `0` and that
/// has a second word. The detector's scan of the HEAD stops there (or
/// before), so it decides on `body` what it decides on the whole input.
fn holds_head_end(body: &[u8], encoding: Option<Encoding>) -> bool {
    let utf16;
    let text = match encoding {
        Some(e) if e.is_utf16() => {
            let mut out = Vec::with_capacity(body.len() / 2 + 4);
            Utf16Decoder::new(e == Encoding::Utf16Be).decode_chunk(
                body,
                false,
                &mut out,
                &mut |_| {},
            );
            utf16 = out;
            &utf16[..]
        }
        _ => body,
    };
    // Complete lines only: the bytes before the last break.
    let Some(last) = memchr::memrchr2(b'\n', b'\r', text) else {
        return false;
    };
    let is_ws = |b: &u8| *b == b' ' || *b == b'\t';
    let mut lines = text[..last]
        .split(|&b| b == b'\n' || b == b'\r')
        .filter(|l| !l.iter().all(is_ws));
    lines.next(); // the HEAD's own line
    lines.any(|l| {
        let mut words = l.split(is_ws).filter(|w| !w.is_empty());
        words.next() == Some(b"0") && words.next().is_some()
    })
}

/// Counts a transcoding problem (a NUL is kept and reported by the reader).
fn count(problems: &mut usize, p: DecodeProblem) {
    if p != DecodeProblem::Nul {
        *problems += 1;
    }
}

/// The warning for `n` unpaired surrogates or truncated code units met
/// transcoding UTF-16 input read in pieces, given at its end (the whole
/// count is known only then).
pub(crate) fn utf16_warning(n: usize) -> Diagnostic {
    Diagnostic {
        kind: DiagnosticKind::Encoding,
        position: Position { line: 1, byte: 0 },
        message: format!(
            "the utf-16 input held {n} unpaired surrogate{s} or truncated code unit{s}, replaced by U+FFFD",
            s = if n == 1 { "" } else { "s" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::record_boundaries;

    #[test]
    fn cuts_need_complete_regular_level_zero_lines() {
        use Cut::*;
        let b = b"0 HEAD\n0 @I1@ INDI\n1 X\n0 TRLR";
        assert_eq!(next_cut(b, 0, false), At(7));
        assert_eq!(next_cut(b, 8, false), NeedMore(23));
        assert_eq!(next_cut(b, 8, true), At(23));
        assert_eq!(next_cut(b"0 HEAD\n0 CONC x\n0 @I1@x\n", 1, true), End);
        assert_eq!(next_cut(b"0 HEAD\r\n\t0 TRLR\r\n", 1, false), At(8));
        assert_eq!(next_cut(b"0 HEAD\r", 1, false), NeedMore(7));
        assert_eq!(next_cut(b"0 HEAD", 1, true), End);
        assert_eq!(next_cut(b"", 1, true), End);
        assert_eq!(next_cut(b"\n\n0 HEAD\n0 TRLR\n", 1, false), At(9));
    }

    #[test]
    fn plain_lines_are_cut_where_every_line_is_looked_at() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
        for e in std::fs::read_dir(dir).unwrap() {
            inputs.push(std::fs::read(e.unwrap().path()).unwrap());
        }
        let made: &[&[u8]] = &[
            b"\n\n0 HEAD\n1 X\n\n0 @I1@ INDI\n0 CONC x\n0 @I1@x\n0\n00 X\n0 TRLR",
            b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME 0\r\n0 CONT y\r\n0 ERROR\r\n0 TRLR\r\n",
            b"0 HEAD\n\r\n0 A\r\n\n0 B",
            b"0 HEAD",
            b"",
            b"\n",
            b"0 A\n0",
            b"0 A\n0 B\r",
            // Not plain: the line-by-line rule.
            b"0 A\n  0 B\n0 C\n",
            b"0 A\r0 B\r\t0 C",
        ];
        inputs.extend(made.iter().map(|m| m.to_vec()));
        let mut plain = 0;
        for input in &inputs {
            // Leading white space and lone CRs are not plain.
            let indented = input
                .windows(2)
                .any(|w| w[0] == b'\n' && matches!(w[1], b' ' | b'\t'));
            let lone_cr = input
                .iter()
                .enumerate()
                .any(|(i, &b)| b == b'\r' && input.get(i + 1) != Some(&b'\n'));
            assert_eq!(plain_lines(input), !indented && !lone_cr);
            plain += usize::from(plain_lines(input));
            // The same starts as the rule cutting one record at a time.
            for from in [0, 1, input.len() / 3, input.len()] {
                let from = from.min(input.len());
                let starts: Vec<usize> = record_starts(input, from).collect();
                assert_eq!(starts, record_boundaries(input, from, 1), "{from}");
            }
        }
        assert!(plain >= 10, "{plain}");
        assert!(!plain_lines(b"0 A\n  0 B\n"));
        assert!(!plain_lines(b"0 A\r0 B\r"));
    }

    /// A reader that hands out at most `step` bytes per call.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Every piece of `bytes` read `step` bytes at a time: the first at
    /// least `first` bytes, the others `batch`.
    fn pieces(bytes: &[u8], step: usize, first: usize, batch: usize) -> (Vec<Piece>, usize) {
        let read = FromRead::new(Trickle { bytes, step }, 1 << 20);
        let mut source = Source::new(read, None);
        source.count_lines_from(0);
        let mut out = vec![source.next_piece(first).unwrap().unwrap()];
        while let Some(p) = source.next_piece(batch).unwrap() {
            out.push(p);
        }
        (out, source.transcode_problems())
    }

    const INPUTS: &[&[u8]] = &[
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME a\n0 @I2@ INDI\n0 TRLR\n",
        b"\n\n  0 HEAD\r\n1 X\r\n\t0 @I1@ INDI\r\n1 NOTE a\r\n2 CONT b\r\n0 TRLR",
        b"0 HEAD\r0 CONT x\r0 CONC y\r 0 ERROR z\r0 @N1@ NOTE n\r\r\r0 TRLR\r",
        b"0 HEAD\nnot a line\n0x\n00 INDI\n0 @I1@ INDI\n5 DEEP\n0 TRLR\n\n\n",
        b"0 HEAD",
        b"",
        b"\n\n",
    ];

    /// The pieces of `input` read `step` bytes at a time are those the
    /// slice is cut into: the first at least `first` bytes (0: the first
    /// record alone, as `Records` reads), the others `batch`.
    fn check_pieces(input: &[u8], step: usize, first: usize, batch: usize) {
        let (pieces, _) = pieces(input, step, first, batch);
        let mut cuts: Vec<usize> = Vec::new();
        let head = if first == 0 {
            let end = crate::par::first_record_end(input);
            cuts.push(end);
            end
        } else {
            0
        };
        cuts.extend(record_boundaries(input, head, batch));
        cuts.retain(|&c| c < input.len());
        let got: Vec<usize> = pieces.iter().skip(1).map(|p| p.offset as usize).collect();
        let what = format!(
            "{} bytes: batch {batch}, step {step}, first {first}",
            input.len()
        );
        assert_eq!(got, cuts, "{what}");
        let joined: Vec<u8> = pieces.iter().flat_map(|p| p.bytes.to_vec()).collect();
        assert!(joined == input, "{what}");
        let mut before = 0;
        let mut at = 0;
        for p in &pieces {
            before += count_breaks(&input[at..p.offset as usize]);
            at = p.offset as usize;
            assert_eq!(p.lines_before, before, "{what}");
        }
        assert!(pieces[0].start.is_some());
        assert!(pieces[1..].iter().all(|p| p.start.is_none()));
    }

    #[test]
    fn cutting_a_stream_at_every_batch_size_equals_cutting_the_slice() {
        for &input in INPUTS {
            for batch in 1..=input.len() + 1 {
                for step in [1, 2, 3, 7, 64, 1 << 20] {
                    for first in [batch, 0] {
                        check_pieces(input, step, first, batch);
                    }
                }
            }
        }
    }

    /// Pieces of [`READ_PER_PIECE`] and more, each read to about its end
    /// (and past it by [`PAST_CUT`], or more for a record longer than
    /// that): the slice's cuts too.
    #[test]
    fn large_pieces_read_to_their_end_are_the_slice_s_pieces() {
        let mut input = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
        for n in 0..40_000 {
            input.extend(format!("0 @I{n}@ INDI\n1 NAME A{n} /B/\n1 SEX F\n").bytes());
            if n % 9_000 == 0 {
                // A record longer than what is read past a cut.
                input.extend(format!("0 @N{n}@ NOTE x\n").bytes());
                for _ in 0..(3 * PAST_CUT / 20) {
                    input.extend(b"1 CONT 0123456789\n");
                }
            }
        }
        input.extend(b"0 TRLR\n");
        assert!(input.len() > 4 * READ_PER_PIECE, "{}", input.len());
        for batch in [READ_PER_PIECE, READ_PER_PIECE + 4_099, 1 << 20] {
            for step in [4_099, 64 << 10, 1 << 20] {
                check_pieces(&input, step, batch, batch);
            }
        }
    }

    fn utf16(text: &str, big: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if bom {
            out.extend(0xFEFFu16.to_be_bytes());
            if !big {
                out.reverse();
            }
        }
        for u in text.encode_utf16() {
            // An `x` becomes an unpaired high surrogate.
            let u = if u == u16::from(b'x') { 0xD800 } else { u };
            out.extend(if big {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        out
    }

    #[test]
    fn utf16_split_at_every_byte_transcodes_as_the_whole() {
        let text = "0 HEAD\r\n1 CHAR UNICODE\n0 @N1@ NOTE \u{1F600} caf\u{e9} x\n1 CONT \u{4E2D}\n0 TRLR\n";
        for (big, bom) in [(false, true), (true, true), (false, false), (true, false)] {
            let mut bytes = utf16(text, big, bom);
            for odd in [false, true] {
                if odd {
                    bytes.push(b'!'); // a truncated code unit at the end
                }
                let info = crate::input::detect(&bytes, None).unwrap();
                let mut problems = 0;
                let want = crate::encoding::utf16_to_utf8(&bytes[info.bom_len..], big, &mut |p| {
                    count(&mut problems, p)
                });
                for split in 0..=bytes.len() {
                    // Two reads: the bytes before `split`, then the rest.
                    let two = Read::chain(&bytes[..split], &bytes[split..]);
                    let read = FromRead::new(two, 1 << 20);
                    let mut source = Source::new(read, None);
                    let mut got = Vec::new();
                    let mut start = None;
                    while let Some(p) = source.next_piece(1).unwrap() {
                        start = start.or(p.start);
                        got.extend_from_slice(&p.bytes);
                    }
                    let what = format!("big {big}, bom {bom}, odd {odd}, split {split}");
                    assert_eq!(
                        String::from_utf8_lossy(&got),
                        String::from_utf8_lossy(&want),
                        "{what}"
                    );
                    assert_eq!(source.transcode_problems(), problems, "{what}");
                    let start = start.unwrap();
                    assert_eq!(start.encoding, Encoding::Utf8, "{what}");
                    assert_eq!(start.info, info, "{what}");
                }
            }
        }
    }

    /// The encoding is decided as on the whole input, however long the HEAD
    /// (its `CHAR` line far from the start, or beyond the detector's limit)
    /// and however the input comes.
    #[test]
    fn detection_equals_the_whole_inputs_for_a_head_of_any_length() {
        for note in [0, 70_000, HEAD_SCAN_LIMIT - 40, HEAD_SCAN_LIMIT + 10] {
            for big in [false, true] {
                let mut text = String::from("0 HEAD\n1 NOTE ");
                text.extend(std::iter::repeat_n('n', note));
                text.push_str("\n1 CHAR ASCII\n2 VERS 1\n0 TRLR\n");
                let bytes = if big {
                    utf16(&text.replace("ASCII", "UNICODE"), true, true)
                } else {
                    text.into_bytes()
                };
                let want = crate::input::detect(&bytes, None).unwrap();
                for step in [7_000, 1 << 20] {
                    let read = FromRead::new(
                        Trickle {
                            bytes: &bytes,
                            step,
                        },
                        1 << 20,
                    );
                    let mut source = Source::new(read, None);
                    let first = source.next_piece(0).unwrap().unwrap();
                    let got = first.start.unwrap().info;
                    assert_eq!(got, want, "note {note}, utf-16 {big}, step {step}");
                }
            }
        }
    }
}
