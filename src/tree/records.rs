//! Record-at-a-time trees: [`Records`] reads any `std::io::Read` and yields
//! one owned, self-contained [`RecordTree`] per record.

use std::io::Read;
use std::sync::{Arc, OnceLock};

use bytes::{Buf, Bytes, BytesMut};

use crate::diag::{Diagnostic, DiagnosticKind, Error, Position};
use crate::encoding::{Encoding, EncodingSource, Utf16Decoder};
use crate::escape::EscapeTable;
use crate::event::Event;
use crate::input::EncodingInfo;
use crate::par::count_breaks;
use crate::read::{Carry, Reader, ReaderConfig};
use crate::scan::parse_line;
use crate::stream::{count, next_boundary, utf16_warning, Search};
use crate::tree::arena::{
    utf8_prefix, Builder, Core, Diagnostics, NodeRef, PathIter, ResolveMemo, Shared, Src,
};
use crate::tree::schema::Schema;

const CHUNK: usize = 1 << 20;
/// The default of [`Records::batch_bytes`]: records after the HEAD are read
/// in batches of whole records of at least this many bytes (or one record,
/// when it is larger): one reader and one arena builder per batch, split
/// into a tree per record afterwards. Read one by one, short records spent
/// more on setting up a reader and a builder than on reading.
const BATCH: usize = 64 << 10;
const BOM: &[u8] = b"\xEF\xBB\xBF";
/// How much is read before detecting the encoding (the detector scans the
/// HEAD within its first MiB).
const HEAD_SCAN_LIMIT: usize = 1 << 20;

/// One record as an owned tree: its bytes (a [`Bytes`] slice of a buffer
/// shared with neighbouring records, never copied) and its nodes. Navigating
/// it makes one text copy of the shared buffer (see [`RecordTree::root`]).
/// `Send + Sync`: hand records to other threads freely.
///
/// Node navigation is the same as in a [`Tree`](super::Tree), except that
/// pointers do not resolve ([`NodeRef::target`] is `None`): a record tree
/// holds no other record.
pub struct RecordTree {
    /// What the nodes index: the batch of records read together.
    buf: Bytes,
    /// The record's own bytes, a slice of `buf`.
    bytes: Bytes,
    /// The longest valid UTF-8 prefix of `buf`, copied as text on the first
    /// navigation of any tree of the batch (the trees of a batch share it):
    /// payloads and tags inside it are sliced from it with no UTF-8 check of
    /// their own, as a [`Tree`](super::Tree)'s are from its input.
    text: Arc<OnceLock<Box<str>>>,
    core: Core,
}

impl std::fmt::Debug for RecordTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordTree")
            .field("root", &self.root())
            .field("nodes", &self.len())
            .finish()
    }
}

impl RecordTree {
    /// The record.
    ///
    /// The first call on any tree of a batch copies the batch's longest
    /// valid UTF-8 prefix once, as text shared by the batch's trees, so that
    /// [`NodeRef::text`] and [`NodeRef::tag`] slice it without checking each
    /// payload (about 64 KiB per batch; a copy of the input's bytes, at most,
    /// while the trees are kept).
    pub fn root(&self) -> NodeRef<'_> {
        NodeRef::with_src(&self.core, self.src(), 0)
    }

    /// The batch's bytes and their valid UTF-8 prefix, for nodes.
    fn src(&self) -> Src<'_> {
        let text = self.text.get_or_init(|| utf8_prefix(&self.buf).into());
        Src {
            bytes: &self.buf,
            text,
        }
    }

    /// The bytes the record was read from (UTF-16 input transcoded to
    /// UTF-8): from the start of its first line (leading whitespace
    /// included) through the line breaks and blank lines that follow its
    /// last line. A slice of a buffer shared with the records read in the
    /// same batch; the first record's bytes also hold any blank lines
    /// before it.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The number of structures in the record, itself included.
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Always `false`: a record tree holds at least its record.
    pub fn is_empty(&self) -> bool {
        self.core.len() == 0
    }

    /// The nodes at `path` below the record (see [`NodeRef::path`]).
    pub fn path<'p>(&self, path: &'p str) -> PathIter<'_, 'p> {
        self.root().path(path)
    }

    /// Every node in document order.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> + '_ {
        let src = self.src();
        (0..self.core.len() as u32).map(move |i| NodeRef::with_src(&self.core, src, i))
    }

    /// The schema that typed the record (the document's).
    pub fn schema(&self) -> &Arc<Schema> {
        &self.core.shared.schema
    }

    /// Bytes of memory the nodes hold (the record's bytes not included).
    /// The tables of tags and of octets made while reading (re-serialised
    /// too-deep lines), and the batch's text once a node was asked for (see
    /// [`RecordTree::root`]), are shared by the trees of one batch and
    /// counted in full for each.
    pub fn memory_bytes(&self) -> usize {
        self.core.memory() + self.text.get().map_or(0, |t| t.len())
    }
}

/// An iterator of [`RecordTree`]s read from any [`Read`] source, for files
/// larger than memory: peak memory is bounded by the largest record or
/// batch of records ([`Records::batch_bytes`], 64 KiB by default) and a
/// read buffer of 1 MiB, plus the trees the caller keeps, not by the file.
///
/// The first record must be the HEAD (unless [`ReaderConfig::headless`]);
/// its schema types every record. Records are split at lines whose level
/// is 0, which is exactly where the reader begins records. After the HEAD,
/// whole records are read in batches of about 64 KiB
/// ([`Records::batch_bytes`]), each by one [`Reader`] over its bytes, and
/// each batch is split into a tree per record.
///
/// ```
/// use gedcom_elf::tree::Records;
///
/// let input: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada\n0 @I2@ INDI\n1 NAME Bo\n0 TRLR\n";
/// let mut names = Vec::new();
/// for record in Records::new(input) {
///     let record = record?;
///     if let Some(name) = record.root().child("NAME") {
///         names.push((name.line(), name.text().unwrap().into_owned()));
///     }
/// }
/// assert_eq!(names, [(4, "Ada".to_string()), (6, "Bo".to_string())]);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
///
/// # Errors
/// Each item is a `Result`: reading the source can fail (i/o), the first
/// record may not be a HEAD ([`ErrorKind::NotGedcom`](crate::ErrorKind)),
/// the `CHAR` line may name an unsupported encoding, strict mode stops at
/// the first error, and a record of 4 GiB or more is refused
/// ([`ErrorKind::Limit`](crate::ErrorKind)). The iterator ends after an
/// error.
///
/// # Differences from reading the whole input
/// None in the structures. A record that begins with a level-0 `CONT`,
/// `CONC` or `ERROR` line (malformed input) is always read in the same
/// batch as the record before it, because the reader judges its lines by
/// the level of the line before it; the two are still yielded as two record
/// trees. Each batch's reader resumes with the state the one before left
/// (the HEAD's escapes, whether `TRLR` was seen), so the diagnostics are
/// the whole-file reader's, in the same order and at the same lines and
/// bytes, with two exceptions: the warning for a missing `CHAR` line
/// (ANSEL by default) is decided on the first MiB rather than the input's
/// first 64 KiB, and the warning for unpaired surrogates in UTF-16 input
/// comes last (with the count, but not the first line), because the count
/// is known only at the end.
pub struct Records<R> {
    src: R,
    config: ReaderConfig,
    batch: usize,
    buf: BytesMut,
    eof: bool,
    started: bool,
    done: bool,
    pos: usize,
    breaks: u64,
    seen_line: bool,
    line_base: u64,
    byte_base: u64,
    utf16: Option<Utf16Decoder>,
    raw: Vec<u8>,
    encoding: Encoding,
    info: Option<EncodingInfo>,
    shared: Option<Arc<Shared>>,
    records: u64,
    /// The reader's state carried from one piece to the next (escapes,
    /// whether `TRLR` was seen and warned after, counters).
    carry: Option<Carry>,
    /// Line number and byte offset of the last line string read.
    last_read: Option<(u64, u64)>,
    /// Unpaired surrogates and truncated code units met transcoding UTF-16.
    utf16_problems: usize,
    diagnostics: Diagnostics,
    memo: ResolveMemo,
    ready: std::collections::VecDeque<RecordTree>,
}

impl<R: Read> Records<R> {
    /// Reads `src` with the default [`ReaderConfig`].
    pub fn new(src: R) -> Self {
        Records::with_config(src, ReaderConfig::default())
    }

    /// Reads `src` with `config`.
    pub fn with_config(src: R, config: ReaderConfig) -> Self {
        Records {
            src,
            config,
            batch: BATCH,
            buf: BytesMut::new(),
            eof: false,
            started: false,
            done: false,
            pos: 0,
            breaks: 0,
            seen_line: false,
            line_base: 0,
            byte_base: 0,
            utf16: None,
            raw: Vec::new(),
            encoding: Encoding::Utf8,
            info: None,
            shared: None,
            records: 0,
            carry: None,
            last_read: None,
            utf16_problems: 0,
            diagnostics: Diagnostics::default(),
            memo: ResolveMemo::default(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// Reads the records after the HEAD in batches of at least `bytes`
    /// bytes of whole records (default 64 KiB). Each batch is read by one
    /// reader into one arena, then split into a tree per record; the trees
    /// of a batch share its buffer, so a tree that is kept keeps the batch's
    /// bytes alive. `1` reads every record alone (slower on short records).
    /// The trees are the same at every batch size.
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch = bytes.max(1);
        self
    }

    /// The encoding and how it was decided (after the first record).
    pub fn encoding_info(&self) -> Option<&EncodingInfo> {
        self.info.as_ref()
    }

    /// The document's schema (after the first record).
    pub fn schema(&self) -> Option<&Arc<Schema>> {
        self.shared.as_ref().map(|s| &s.schema)
    }

    /// Removes and yields the diagnostics so far (line numbers of the whole
    /// input). At most 10,000 are kept between drains.
    pub fn drain_diagnostics(&mut self) -> std::vec::Drain<'_, Diagnostic> {
        self.diagnostics.list.drain(..)
    }

    /// Diagnostics counted but not kept.
    pub fn diagnostics_dropped(&self) -> u64 {
        self.diagnostics.dropped
    }

    fn read_raw(&mut self, into_buf: bool) -> Result<usize, Error> {
        loop {
            let r = if into_buf {
                let len = self.buf.len();
                self.buf.resize(len + CHUNK, 0);
                let r = self.src.read(&mut self.buf[len..]);
                self.buf.truncate(len + *r.as_ref().unwrap_or(&0));
                r
            } else {
                self.raw.resize(CHUNK, 0);
                let r = self.src.read(&mut self.raw);
                self.raw.truncate(*r.as_ref().unwrap_or(&0));
                r
            };
            match r {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Reads more input into `buf`; sets `eof` at the end.
    fn fill(&mut self) -> Result<(), Error> {
        match self.utf16.as_mut() {
            None => {
                if self.read_raw(true)? == 0 {
                    self.eof = true;
                }
            }
            Some(_) => {
                let n = self.read_raw(false)?;
                let mut out = Vec::with_capacity(n / 2 + 8);
                if let Some(dec) = self.utf16.as_mut() {
                    let problems = &mut self.utf16_problems;
                    dec.decode_chunk(&self.raw[..n], n == 0, &mut out, &mut |p| {
                        count(problems, p)
                    });
                }
                if n == 0 {
                    self.eof = true;
                }
                self.buf.extend_from_slice(&out);
            }
        }
        Ok(())
    }

    fn start(&mut self) -> Result<(), Error> {
        self.started = true;
        while self.buf.len() < HEAD_SCAN_LIMIT && !self.eof {
            self.fill()?;
        }
        let info = crate::input::detect(&self.buf, self.config.forced_encoding())?;
        let bom = info.bom_len.min(self.buf.len());
        self.buf.advance(bom);
        if info.encoding.is_utf16() {
            let mut dec = Utf16Decoder::new(info.encoding == Encoding::Utf16Be);
            let mut out = Vec::with_capacity(self.buf.len() / 2 + 8);
            let problems = &mut self.utf16_problems;
            dec.decode_chunk(&self.buf, self.eof, &mut out, &mut |p| count(problems, p));
            self.buf = BytesMut::from(&out[..]);
            self.utf16 = Some(dec);
            self.encoding = Encoding::Utf8;
        } else {
            self.encoding = info.encoding;
        }
        // As the reader does: defaulting to ANSEL only matters when there
        // are non-ASCII bytes (judged on what was read so far).
        let defaulted = info.source == EncodingSource::Default && info.char_value.is_none();
        if !(defaulted && self.buf.is_ascii()) {
            for w in &info.warnings {
                self.diagnostics.push(Diagnostic {
                    kind: DiagnosticKind::Encoding,
                    position: Position {
                        line: info.char_line.unwrap_or(1) as u64,
                        byte: 0,
                    },
                    message: w.clone(),
                });
            }
        }
        self.info = Some(info);
        Ok(())
    }

    /// The end of the record that starts at `buf[0]`, reading as needed.
    fn find_end(&mut self) -> Result<Option<usize>, Error> {
        loop {
            let len = self.buf.len();
            if self.pos >= len {
                if self.eof {
                    return Ok((len > 0).then_some(len));
                }
                self.fill()?;
                continue;
            }
            let found = memchr::memchr2(b'\n', b'\r', &self.buf[self.pos..]);
            let (brk, next) = match found {
                None if !self.eof => {
                    self.fill()?;
                    continue;
                }
                None => (len, len),
                Some(i) => {
                    let brk = self.pos + i;
                    if self.buf[brk] == b'\r' {
                        if brk + 1 < len {
                            (
                                brk,
                                if self.buf[brk + 1] == b'\n' {
                                    brk + 2
                                } else {
                                    brk + 1
                                },
                            )
                        } else if self.eof {
                            (brk, brk + 1)
                        } else {
                            self.fill()?;
                            continue;
                        }
                    } else {
                        (brk, brk + 1)
                    }
                }
            };
            let line = &self.buf[self.pos..brk];
            let text = match line.iter().position(|&b| b != b' ' && b != b'\t') {
                Some(i) => &line[i..],
                None => &[][..],
            };
            if !text.is_empty() {
                // A record starts at a level-0 line; one tagged CONT, CONC
                // or ERROR stays with the record before it, so that each
                // piece starts where the reader's state is known (the
                // level before a CONT/CONC/ERROR line matters).
                let starts = |l: crate::scan::Line<'_>| {
                    l.level == 0 && !matches!(l.tag, b"CONT" | b"CONC" | b"ERROR")
                };
                if self.seen_line && text[0] == b'0' && parse_line(text).is_ok_and(starts) {
                    return Ok(Some(self.pos));
                }
                self.seen_line = true;
            }
            self.pos = next;
            if next > brk {
                self.breaks += 1;
            }
        }
    }

    /// The end of a batch of whole records that starts at `buf[0]` and
    /// holds at least [`Records::batch_bytes`] bytes where the input has
    /// them, reading as needed; counts its line breaks into `breaks`.
    fn find_batch_end(&mut self) -> Result<Option<usize>, Error> {
        loop {
            if self.buf.is_empty() && self.eof {
                return Ok(None);
            }
            let end = match next_boundary(&self.buf, self.pos.max(self.batch), self.eof) {
                Search::Found(end) => end,
                Search::End => self.buf.len(),
                Search::NeedMore(at) => {
                    self.pos = at;
                    self.fill()?;
                    continue;
                }
            };
            self.breaks = count_breaks(&self.buf[..end]);
            return Ok(Some(end));
        }
    }

    /// Reads the records in `bytes` (one, or more when records begin with
    /// level-0 `CONT`, `CONC` or `ERROR` lines) into `self.ready`.
    fn build(&mut self, bytes: Bytes, line_base: u64, byte_base: u64) -> Result<(), Error> {
        let first = self.records == 0;
        self.records += 1;
        // A reader with a caller's encoding strips a byte-order mark that
        // matches it. The input's own mark is gone already, so a first
        // piece that still starts with one (a U+FEFF beginning the first
        // line) gets a mark in front for the reader to strip, as a
        // whole-file reader keeps them. Later pieces are read by resuming,
        // which strips nothing.
        let bytes = if first && self.encoding == Encoding::Utf8 && bytes.starts_with(BOM) {
            let mut guarded = BOM.to_vec();
            guarded.extend_from_slice(&bytes);
            Bytes::from(guarded)
        } else {
            bytes
        };
        // The first piece (the HEAD) is read like the start of a whole
        // input; every later one resumes with the state the one before left
        // (as the stream reader's batches do), so that the reader itself
        // gives the after-trlr warning where a whole read gives it. Lines
        // are numbered from 1 in each piece (node line numbers are relative
        // to the piece); byte offsets are the whole's (the first piece
        // starts at 0, and a resumed reader adds `byte_base`).
        let mut reader = if first {
            let config = self
                .config
                .clone()
                .encoding(Some(self.encoding))
                .headless(self.config.is_headless());
            Reader::with_config(&bytes, config).first_chunk(bytes.len())
        } else {
            let Some(mut carry) = self.carry.take() else {
                return Err(Error::new(
                    crate::diag::ErrorKind::Limit,
                    None,
                    "internal: no reader state to resume",
                ));
            };
            carry.next_line = 1;
            Reader::resume(&bytes, 0, bytes.len(), carry, byte_base)
        };
        let lines_before = reader.stats().lines;
        let fix = move |p: Position| Position {
            line: p.line + line_base,
            ..p
        };
        let relocate = |e: &Error| Error::new(e.kind(), e.position().map(fix), e.message());
        let shared = match &self.shared {
            Some(s) => s.clone(),
            None => {
                let schema = Schema::from_reader(reader.clone()).map_err(|e| relocate(&e))?;
                Arc::new(Shared {
                    schema,
                    escapes: EscapeTable::default(),
                })
            }
        };
        let mut builder = Builder::new(&bytes, shared.clone(), bytes.len() / 16 + 4, false)?;
        builder.memo = Some(std::mem::take(&mut self.memo));
        // Where each record's first line string starts.
        let mut starts: Vec<usize> = Vec::new();
        loop {
            // Matched by reference: moving each event out of the `Result`
            // and then out of the `Option` copied it twice.
            let next = reader.next_event();
            if !reader.diagnostics().is_empty() {
                for d in reader.drain_diagnostics() {
                    // The encoding warnings were given when reading began.
                    if d.kind == DiagnosticKind::Encoding {
                        continue;
                    }
                    let position = fix(d.position);
                    self.diagnostics.push(Diagnostic { position, ..d });
                }
            }
            match &next {
                Ok(Some(Event::Begin(b))) => {
                    if b.level == 0 {
                        starts.push(b.span.start);
                    }
                    builder.begin(b)?
                }
                Ok(Some(Event::End(_))) => builder.end(),
                Ok(None) => break,
                Err(e) => return Err(relocate(e)),
            }
        }
        self.memo = builder.memo.take().unwrap_or_default();
        let mut core = builder.finish();
        core.line_offset = line_base;
        if self.shared.is_none() {
            let s = Arc::new(Shared {
                schema: shared.schema.clone(),
                escapes: reader.escape_table().clone(),
            });
            self.shared = Some(s.clone());
            core.shared = s;
        }
        let carry = reader.into_carry();
        if carry.stats().lines > lines_before {
            let p = fix(Position {
                line: carry.last_line(),
                byte: carry.last_byte(),
            });
            self.last_read = Some((p.line, p.byte));
        }
        self.carry = Some(carry);
        let cores = core.split_records();
        // Each record's bytes run from its first line's first byte (leading
        // whitespace included; the batch's start for the first record) to
        // where the next record's begin.
        let line_start = |s: usize| {
            let before = bytes[..s.min(bytes.len())]
                .iter()
                .rev()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            s - before
        };
        let line_start_or_end = |i: usize| starts.get(i).map_or(bytes.len(), |&s| line_start(s));
        let known = starts.len() == cores.len();
        let text = Arc::new(OnceLock::new());
        for (i, core) in cores.into_iter().enumerate() {
            let (from, to) = if !known {
                (0, bytes.len())
            } else if i == 0 {
                (0, line_start_or_end(1))
            } else {
                (line_start(starts[i]), line_start_or_end(i + 1))
            };
            let tree = RecordTree {
                buf: bytes.clone(),
                bytes: bytes.slice(from..to),
                text: text.clone(),
                core,
            };
            if tree.core.len() > 0 {
                self.ready.push_back(tree);
            }
        }
        Ok(())
    }

    fn next_record(&mut self) -> Result<Option<RecordTree>, Error> {
        loop {
            if let Some(t) = self.ready.pop_front() {
                return Ok(Some(t));
            }
            if !self.read_next()? {
                return Ok(None);
            }
        }
    }

    /// Reads and builds the next piece of input; `false` at the end.
    fn read_next(&mut self) -> Result<bool, Error> {
        if !self.started {
            self.start()?;
        }
        let end = if self.records == 0 {
            self.find_end()?
        } else {
            self.find_batch_end()?
        };
        let Some(end) = end else {
            if self.records == 0 && !self.config.is_headless() {
                // The reader's own error for an empty input.
                let mut r =
                    Reader::with_config(b"", self.config.clone().encoding(Some(self.encoding)));
                r.next_event()?;
            }
            if self.utf16_problems > 0 {
                // The whole-file reader gives this warning first; here the
                // count is known only at the end (as in a stream).
                self.diagnostics.push(utf16_warning(self.utf16_problems));
            }
            if !self.carry.as_ref().is_some_and(Carry::seen_trlr) {
                // At the last line string, as a whole read reports it
                // (line 1, byte 0 when there is none).
                let (line, byte) = self.last_read.unwrap_or((1, 0));
                self.diagnostics.push(Diagnostic {
                    kind: DiagnosticKind::MissingTrlr,
                    position: Position { line, byte },
                    message: "missing trlr record at end of input".into(),
                });
            }
            return Ok(false);
        };
        let bytes = self.buf.split_to(end).freeze();
        let (line_base, byte_base) = (self.line_base, self.byte_base);
        self.line_base += self.breaks;
        self.byte_base += end as u64;
        self.pos = 0;
        self.breaks = 0;
        self.seen_line = false;
        self.build(bytes, line_base, byte_base).map(|()| true)
    }
}

impl<R: Read> Iterator for Records<R> {
    type Item = Result<RecordTree, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(t)) => Some(Ok(t)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_of_one_batch_share_their_kinds_instead_of_copying_them() {
        // Every record has a tag of its own, and one a too-deep line (whose
        // payload is made outside the input): copying the batch's tables
        // into each of its trees took time quadratic in the batch.
        let mut input = String::from("0 HEAD\n");
        for i in 0..2000 {
            input.push_str(&format!("0 _T{i} x\n"));
        }
        input.push_str("0 _D\n3  DEEP  y\n0 TRLR\n");
        let trees: Vec<RecordTree> = Records::new(input.as_bytes()).map(Result::unwrap).collect();
        assert_eq!(trees.len(), 2003);
        let (head, rest) = trees.split_first().unwrap();
        assert!(!head.core.shares_tables_with(&rest[0].core));
        for t in &rest[1..] {
            assert!(t.core.shares_tables_with(&rest[0].core));
        }
        // Each still reads its own tag, and the made payload.
        assert_eq!(rest[1999].root().tag(), "_T1999");
        let deep = rest[2000].root().children().next().unwrap();
        assert_eq!(deep.text().as_deref(), Some("3 DEEP  y"));
    }

    #[test]
    fn trees_of_one_batch_share_one_text_copy_made_on_first_navigation() {
        let input = "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE caf\u{e9}\n0 @N2@ NOTE na\u{ef}ve\n0 TRLR\n";
        let trees: Vec<RecordTree> = Records::new(input.as_bytes()).map(Result::unwrap).collect();
        let (a, b) = (&trees[1], &trees[2]);
        assert!(Arc::ptr_eq(&a.text, &b.text));
        assert!(a.text.get().is_none(), "made only when a node is asked for");
        assert_eq!(a.root().text().as_deref(), Some("caf\u{e9}"));
        // The copy is the batch's valid prefix, so `b` finds it made and its
        // payload is a slice of it.
        let copy = b.text.get().expect("made by `a`'s navigation");
        let text = b.root().text().unwrap();
        assert_eq!(text, "na\u{ef}ve");
        let at = text.as_ptr() as usize - copy.as_ptr() as usize;
        assert!(at + text.len() <= copy.len());
        assert!(b.memory_bytes() >= copy.len());
    }
}
