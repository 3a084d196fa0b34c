//! The Begin of one line: the common case inlined in the per-line path,
//! everything unusual (unparsable and too-deep lines, `CONT`/`CONC` and
//! `ERROR` tags, lines after `TRLR`) and the payload diagnostics out of line.

use std::borrow::Cow;

use super::{Frame, Reader, ERROR_TAG};
use crate::diag::{DiagnosticKind, Error};
use crate::encoding::Encoding;
use crate::event::{Begin, Event, Origin, Span, Value, Xref};
use crate::payload::{Decoding, Payload};
use crate::scan::{is_pointer, Line, LineError, Scanned, TagKind};
use crate::version::Version;

/// What a line contributes to its Begin, once classified.
struct Head<'a> {
    tag: &'a str,
    xref: Option<&'a [u8]>,
    origin: Origin,
    /// The first line's payload as a range of the input, trailing
    /// whitespace removed and kept.
    first: Option<(usize, usize)>,
    first_untrimmed: Option<(usize, usize)>,
    /// A too-deep line re-serialised, when that differs from the input.
    made: Option<Vec<u8>>,
}

impl<'a> Reader<'a> {
    /// The line read ahead as slices.
    fn line_of(&self, p: &Scanned) -> Result<Line<'a>, LineError> {
        let input = self.input;
        match p.error {
            Some(e) => Err(e),
            None => Ok(Line {
                level: p.level,
                xref: p.has_xref().then(|| &input[p.xref_start..p.xref_end]),
                tag: &input[p.tag_start..p.tag_end],
                payload: p.payload().map(|(a, b)| &input[a..b]),
                payload_untrimmed: p.payload_untrimmed().map(|(a, b)| &input[a..b]),
            }),
        }
    }

    /// Everything about a line that is not the common case: unparsable and
    /// too-deep lines, CONT/CONC and ERROR tags, lines after TRLR.
    #[cold]
    #[inline(never)]
    fn unusual(&mut self, p: &Scanned) -> Result<Head<'a>, Error> {
        let text = &self.input[p.start..p.end];
        let (line, byte) = (p.number, p.start);
        let parent_written = self.stack.last().map(|f| f.written);
        let error_children = self.state.error_children.take();
        let head = match self.line_of(p) {
            Err(e) => {
                let msg = format!(
                    "unparsable line string ({}): {:?}",
                    e.describe(),
                    String::from_utf8_lossy(&text[..text.len().min(60)])
                );
                self.report(DiagnosticKind::UnparsableLine, line, byte, msg)?;
                Head {
                    tag: ERROR_TAG,
                    xref: None,
                    origin: Origin::UnparsableLine,
                    first: Some((p.start, p.trimmed_end)),
                    first_untrimmed: Some((p.start, p.end)),
                    made: None,
                }
            }
            Ok(l) => {
                let too_deep = match self.state.previous_level {
                    Some(prev) => l.level > prev.saturating_add(1),
                    None => l.level > 0,
                } || parent_written.is_some_and(|w| l.level > w.saturating_add(1));
                // GEDCOM 7 has no CONC: there it is a structure like any other.
                let conc7 = l.tag == b"CONC" && self.state.setup.version == Version::Gedcom7;
                let is_continuation = l.tag == b"CONT" || (l.tag == b"CONC" && !conc7);
                let previous = self.state.previous_level;
                if !is_continuation && l.tag != ERROR_TAG.as_bytes() {
                    self.state.previous_level = Some(l.level);
                }
                if too_deep {
                    let msg = match (previous, parent_written) {
                        (Some(prev), _) if l.level > prev.saturating_add(1) => {
                            format!("too-deep line: level {} follows level {prev}", l.level)
                        }
                        (None, _) => format!("too-deep line: level {} begins the input", l.level),
                        (_, w) => format!(
                            "too-deep line: level {} inside a structure written at level {}",
                            l.level,
                            w.unwrap_or(0)
                        ),
                    };
                    self.report(DiagnosticKind::TooDeep, line, byte, msg)?;
                    Head {
                        tag: ERROR_TAG,
                        xref: l.xref,
                        origin: Origin::TooDeepLine {
                            original_level: l.level,
                        },
                        first: Some((p.start, p.trimmed_end)),
                        first_untrimmed: None,
                        made: reserialise(&l, &text[..p.trimmed_end - p.start]),
                    }
                } else {
                    let tag = self.tag_str(p.tag_start, p.tag_end);
                    if conc7 {
                        self.report(
                            DiagnosticKind::ConcInGedcom7,
                            line,
                            byte,
                            "conc line in a gedcom 7 document, which has no conc: kept as a structure, not joined to the payload before it".into(),
                        )?;
                    } else if l.tag == ERROR_TAG.as_bytes() {
                        self.report(
                            DiagnosticKind::ErrorTag,
                            line,
                            byte,
                            "error line: a structure tagged error in the input".into(),
                        )?;
                    } else if is_continuation {
                        if l.xref.is_none() && error_children == Some(l.level) {
                            self.state.error_children = error_children;
                        } else {
                            let msg = format!(
                                "{} line attached to nothing: it does not directly follow the line it would continue",
                                tag.to_ascii_lowercase()
                            );
                            self.report(DiagnosticKind::StrayContinuation, line, byte, msg)?;
                        }
                    }
                    Head {
                        tag,
                        xref: l.xref,
                        origin: Origin::Line,
                        first: p.payload(),
                        first_untrimmed: p.payload_untrimmed(),
                        made: None,
                    }
                }
            }
        };
        if self.state.seen_trlr && !self.state.warned_after_trlr {
            self.state.warned_after_trlr = true;
            self.report(
                DiagnosticKind::AfterTrlr,
                line,
                byte,
                crate::diag::AFTER_TRLR.into(),
            )?;
        }
        Ok(head)
    }

    /// The diagnostics of one payload's bytes (invalid UTF-8, NUL, ...).
    #[inline(never)]
    fn payload_diagnostics(
        &mut self,
        value: Option<&Value<'a>>,
        line: u64,
        byte: usize,
    ) -> Result<(), Error> {
        if let Some(Value::Text(payload)) = value.filter(|v| may_have_problems(v)) {
            // At most a few kinds per payload: kept inline, no allocation.
            let mut kinds: smallvec::SmallVec<[DiagnosticKind; 4]> = smallvec::SmallVec::new();
            payload.text_with(&mut |k| {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            });
            for k in kinds {
                let enc = self.state.setup.info.encoding;
                let msg = match k {
                    DiagnosticKind::InvalidUnicodeEscape => {
                        "invalid unicode escape kept verbatim".to_string()
                    }
                    DiagnosticKind::NulByte => "nul byte in payload".to_string(),
                    DiagnosticKind::Cesu8 => {
                        "payload holds cesu-8 surrogate pairs (read as the characters they encode)"
                            .to_string()
                    }
                    DiagnosticKind::UnmappedByte if enc == Encoding::Ascii => {
                        "payload holds bytes 80-ff, which ascii does not have; read as windows-1252"
                            .to_string()
                    }
                    DiagnosticKind::UnmappedByte => {
                        format!(
                            "payload holds bytes that {enc} does not assign; replaced by U+FFFD"
                        )
                    }
                    DiagnosticKind::InvalidEncoding
                        if self.state.setup.decoding.version == Version::Gedcom7
                            && enc == Encoding::Utf8 =>
                    {
                        "payload is not valid utf-8, which gedcom 7 requires; the bad bytes read as windows-1252".to_string()
                    }
                    _ => format!("payload is not valid {enc}; bad bytes replaced by U+FFFD"),
                };
                self.report(k, line, byte, msg)?;
            }
        }
        Ok(())
    }

    /// Whether the pending line is a `CONT`/`CONC` additional line at level `child`.
    #[inline(always)]
    fn continues(&self, child: Option<u32>) -> bool {
        let q = &self.pending;
        q.error.is_none()
            && Some(q.level) == child
            && q.kind.is_continuation()
            && (q.kind == TagKind::Cont || self.state.setup.version != Version::Gedcom7)
    }

    /// Reads the `CONT`/`CONC` additional lines at level `child`, the pending
    /// line being the first, leaving the first other line pending. Returns
    /// where they start and whether the first is a `CONC`, and moves `end`
    /// to the end of the last.
    #[inline(never)]
    fn additional_lines_from_pending(
        &mut self,
        child: Option<u32>,
        end: &mut usize,
    ) -> Result<Option<(usize, bool)>, Error> {
        let mut rest: Option<(usize, bool)> = None;
        loop {
            let q = &self.pending;
            let (number, start, q_end) = (q.number, q.start, q.end);
            let conc = q.kind == TagKind::Conc;
            if q.gedcom7 != 0 {
                let q = *q;
                self.gedcom7_line(&q)?;
            }
            let q = &self.pending;
            if q.has_xref() {
                // Family Tree Maker writes `1 @N1@ CONT ...` in NOTE records.
                self.report(
                    DiagnosticKind::ContinuationXref,
                    number,
                    start,
                    "xref on a continuation line ignored".into(),
                )?;
            }
            rest.get_or_insert((start, conc));
            *end = q_end;
            if !self.read_ahead() || !self.continues(child) {
                return Ok(rest);
            }
        }
    }

    /// Whether the pending line is the common case: well formed, not too
    /// deep, not tagged `CONT`, `CONC` or `ERROR`, nothing pending from a
    /// too-deep line, before `TRLR`.
    #[inline(always)]
    fn is_plain(&self) -> bool {
        let p = &self.pending;
        p.error.is_none() && {
            let limit = self.state.previous_level.map_or(0, |v| v.saturating_add(1));
            let limit = self
                .stack
                .last()
                .map_or(limit, |f| limit.min(f.written.saturating_add(1)));
            p.level <= limit
                && p.kind == TagKind::Other
                && self.state.error_children.is_none()
                && !self.state.seen_trlr
        }
    }

    /// The Begin of the pending line and its additional lines.
    #[inline(never)]
    pub(super) fn begin(&mut self) -> Result<Option<Event<'a>>, Error> {
        if !self.has_pending {
            return Err(Error::internal("no line pending"));
        }
        let p = self.pending;
        self.gedcom7_line(&p)?;
        if !self.is_plain() {
            return self.begin_unusual(&p);
        }
        self.state.previous_level = Some(p.level);
        let input = self.input;
        let head = Head {
            tag: self.tag_str(p.tag_start, p.tag_end),
            xref: p.has_xref().then(|| &input[p.xref_start..p.xref_end]),
            origin: Origin::Line,
            first: p.payload(),
            first_untrimmed: p.payload_untrimmed(),
            made: None,
        };
        self.finish_begin(&p, head)
    }

    /// Reports, in a GEDCOM 7 document, a line that departs from 7.0's
    /// grammar and the blank lines before it. The scanner found how
    /// ([`Scanned::gedcom7`]): nearly every line has nothing to report, and
    /// costs one byte's test.
    #[inline(always)]
    fn gedcom7_line(&mut self, p: &Scanned) -> Result<(), Error> {
        match p.gedcom7 {
            0 => Ok(()),
            _ if self.state.setup.version != Version::Gedcom7 => Ok(()),
            _ => self.report_gedcom7_line(p),
        }
    }

    #[cold]
    #[inline(never)]
    fn report_gedcom7_line(&mut self, p: &Scanned) -> Result<(), Error> {
        let input = self.input;
        for (line, start) in p.blank_lines(input) {
            self.report_blank_line(line, start)?;
        }
        if let Some(what) = p.gedcom7_departure() {
            let message =
                format!("{what}, which gedcom 7 does not allow: read as gedcom 5.5.1 reads it");
            self.report(DiagnosticKind::Gedcom7Line, p.number, p.start, message)?;
        }
        Ok(())
    }

    /// Reports the blank lines at the end of a GEDCOM 7 document (or of
    /// this piece of it), once the last line is read.
    #[cold]
    #[inline(never)]
    pub(super) fn gedcom7_blank_tail(&mut self) -> Result<(), Error> {
        for (line, start) in self.cursor.blank_tail() {
            self.report_blank_line(line, start)?;
        }
        Ok(())
    }

    fn report_blank_line(&mut self, line: u64, start: usize) -> Result<(), Error> {
        let message =
            "a blank line, which gedcom 7 does not allow: skipped as gedcom 5.5.1 skips it";
        self.report(DiagnosticKind::Gedcom7Line, line, start, message.into())
    }

    /// The Begin of a line that is not plain (see [`Reader::unusual`]).
    #[cold]
    #[inline(never)]
    fn begin_unusual(&mut self, p: &Scanned) -> Result<Option<Event<'a>>, Error> {
        let head = self.unusual(p)?;
        self.finish_begin(p, head)
    }

    /// The rest of a Begin, once its line is classified: the frame, the
    /// additional lines, the value, the payload's diagnostics. Inlined in
    /// both callers, so the plain one loses the branches it cannot take.
    #[inline(always)]
    fn finish_begin(&mut self, p: &Scanned, head: Head<'a>) -> Result<Option<Event<'a>>, Error> {
        let input = self.input;
        let Head {
            tag,
            xref,
            origin,
            first,
            first_untrimmed,
            made,
        } = head;
        let (line, start) = (p.number, p.start);
        let level = self.stack.len() as u32;
        if level == 0 && tag4(tag.as_bytes()) == TRLR {
            self.state.seen_trlr = true;
        }
        self.stack.push(Frame {
            written: p.level,
            tag,
        });
        self.state.stats.structures += 1;
        self.state.stats.max_level = self.state.stats.max_level.max(level);

        // Read ahead: CONT/CONC additional lines directly below, one level
        // deeper (a too-deep line has none: they are its children). They
        // are rare, so their loop is out of line.
        let too_deep = matches!(origin, Origin::TooDeepLine { .. });
        let child = p.level.checked_add(1);
        let mut end = p.end;
        let rest = if !self.read_ahead() || too_deep || !self.continues(child) {
            None
        } else {
            self.additional_lines_from_pending(child, &mut end)?
        };
        if too_deep {
            self.state.error_children = child;
        }

        let keep_first =
            (self.state.setup.decoding.trailing_whitespace).keeps(matches!(rest, Some((_, true))));
        // A pointer is told by the payload without trailing whitespace,
        // whatever the rule keeps of a text's.
        let trimmed = first;
        let first = if keep_first {
            first_untrimmed.or(first)
        } else {
            first
        };
        let decoding = || Decoding {
            preserve: self.state.setup.escapes.lookup(tag.as_bytes()),
            ..self.state.setup.decoding
        };
        let value = match (made, first, rest) {
            (Some(made), ..) => Some(Value::Text(Payload::new(made, decoding()))),
            (None, None, None) => None,
            (None, Some((a, b)), None) => {
                let f = &input[a..b];
                let (ta, tb) = trimmed.unwrap_or((a, b));
                if origin == Origin::Line && is_pointer(&input[ta..tb]) {
                    Some(Value::Pointer(Xref::new(&input[ta..tb])))
                } else {
                    Some(Value::Text(match self.str_of(a, b) {
                        Some(text) => Payload::validated(text, decoding()),
                        None => Payload::new(f, decoding()),
                    }))
                }
            }
            (None, f, Some((rest_start, _))) => {
                // One window from the first line's payload to the end of
                // the additional lines.
                let from = f.map_or(rest_start, |(a, _)| a);
                let first_len = f.map_or(0, |(a, b)| b - a);
                let rest_at = rest_start - from;
                Some(Value::Text(match self.str_of(from, end) {
                    Some(span) => Payload::validated_window(span, first_len, rest_at, decoding()),
                    None => Payload::window(&input[from..end], first_len, rest_at, decoding()),
                }))
            }
        };
        if end > self.clean_until {
            self.payload_diagnostics(value.as_ref(), line, start)?;
        }
        // Built in place: a `map` from `Begin` to the event costs a copy.
        Ok(Some(Event::Begin(Begin {
            level,
            xref: xref.map(Xref::new),
            tag: Cow::Borrowed(tag),
            value,
            line,
            span: Span { start, end },
            origin,
        })))
    }
}

/// `false` when a payload cannot produce a payload diagnostic: its raw
/// bytes are ASCII (valid in every supported encoding) with no NUL and no
/// unicode escape. Spares decoding every payload of a file whose few
/// non-ASCII bytes turned payload checks on.
fn may_have_problems(value: &Value<'_>) -> bool {
    let Value::Text(p) = value else {
        return false;
    };
    [p.first_line(), p.additional_lines()].iter().any(|b| {
        !b.is_ascii() || memchr::memchr(0, b).is_some() || memchr::memmem::find(b, b"@#U").is_some()
    })
}

/// The first four bytes of a four-byte tag as a number, else 0: compares
/// tags without a call to `memcmp`.
#[inline(always)]
fn tag4(tag: &[u8]) -> u32 {
    match *tag {
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

const TRLR: u32 = u32::from_le_bytes(*b"TRLR");

/// The too-deep line as a line string with single spaces (seed §4.4), or
/// `None` when `trimmed`, the line string, already is in that form.
fn reserialise(l: &Line<'_>, trimmed: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(trimmed.len());
    out.extend_from_slice(l.level.to_string().as_bytes());
    if let Some(x) = l.xref {
        out.push(b' ');
        out.extend_from_slice(x);
    }
    out.push(b' ');
    out.extend_from_slice(l.tag);
    if let Some(p) = l.payload {
        out.push(b' ');
        out.extend_from_slice(p);
    }
    (out != trimmed).then_some(out)
}

#[cfg(test)]
mod tests {
    use crate::{DiagnosticKind, Event, Reader, ReaderConfig, Version};

    /// `(level, tag, text)` of each Begin, and the diagnostics' kinds.
    fn read(
        input: &[u8],
        config: ReaderConfig,
    ) -> (Vec<(u32, String, String)>, Vec<DiagnosticKind>) {
        let mut r = Reader::with_config(input, config);
        let mut begins = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            if let Event::Begin(b) = e {
                let text = b.text().map(|t| t.into_owned()).unwrap_or_default();
                begins.push((b.level, b.tag.to_string(), text));
            }
        }
        (begins, r.drain_diagnostics().map(|d| d.kind).collect())
    }

    /// In GEDCOM 7, `CONC` is a structure like any other (with a warning),
    /// `CONT` still joins, and the lines after a `CONC` nest as usual.
    #[test]
    fn gedcom7_conc_is_a_structure() {
        let input = b"0 HEAD\n0 @N1@ SNOTE a\n1 CONT b\n1 CONC c\n2 _X d\n1 CONT e\n0 TRLR\n";
        let g7 = ReaderConfig::new().version(Some(Version::Gedcom7));
        let (begins, kinds) = read(input, g7);
        let want = [
            (0, "HEAD", ""),
            (0, "SNOTE", "a\nb"),
            (1, "CONC", "c"),
            (2, "_X", "d"),
            (1, "CONT", "e"),
            (0, "TRLR", ""),
        ];
        let got: Vec<(u32, &str, &str)> = begins
            .iter()
            .map(|(l, t, x)| (*l, t.as_str(), x.as_str()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            kinds,
            [
                DiagnosticKind::ConcInGedcom7,
                DiagnosticKind::StrayContinuation
            ]
        );
        // 5.5.1 joins the CONC; its child is then a substructure of the note.
        let utf8 = ReaderConfig::new().encoding(Some(crate::Encoding::Utf8));
        let (begins, _) = read(input, utf8);
        assert_eq!(begins[1].2, "a\nbc");
    }

    /// GEDCOM 7 has no blank lines: each one in a 7.0 document (empty, or
    /// spaces and tabs only; before any line, a continuation line too, or
    /// at the end) is skipped with a `gedcom7-line` warning naming it;
    /// 5.5.1 skips them silently.
    #[test]
    fn gedcom7_blank_lines() {
        let body = "0 @I1@ INDI\n\n1 NOTE a\n \t\r\n\n2 CONT b\n0 TRLR\n\n";
        let g7 = format!("0 HEAD\n1 GEDC\n2 VERS 7.0\n{body}");
        let mut r = Reader::from_slice(g7.as_bytes());
        let mut texts = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            if let Event::Begin(b) = e {
                texts.push(b.text().map(|t| t.into_owned()).unwrap_or_default());
            }
        }
        assert!(texts.contains(&"a\nb".to_string()), "{texts:?}");
        let found: Vec<(DiagnosticKind, u64, u64, String)> = r
            .drain_diagnostics()
            .map(|d| (d.kind, d.position.line, d.position.byte, d.message))
            .collect();
        let blank = "a blank line, which gedcom 7 does not allow: skipped as gedcom 5.5.1 skips it";
        let at = |needle: &str| g7.find(needle).unwrap() as u64;
        let want = [
            (5, at("\n\n1 NOTE") + 1),
            (7, at(" \t\r\n")),
            (8, at("\n\n2 CONT") + 1),
            (11, g7.len() as u64 - 1),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|&(line, byte)| (DiagnosticKind::Gedcom7Line, line, byte, blank.to_string()))
            .collect();
        assert_eq!(found, want);
        let g551 =
            format!("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n{body}");
        let (_, kinds) = read(g551.as_bytes(), ReaderConfig::new());
        assert_eq!(kinds, []);
    }

    /// A pointer is a pointer whatever happens to trailing spaces (7.0 keeps them).
    #[test]
    fn gedcom7_pointer_with_trailing_space() {
        let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 FAMC @VOID@ \n1 NOTE x \n0 TRLR\n";
        let mut r = Reader::from_slice(input);
        let mut values = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            if let Event::Begin(b) = e {
                match (&b.value, b.tag.as_ref()) {
                    (Some(crate::Value::Pointer(p)), _) => values.push(p.to_string()),
                    (Some(crate::Value::Text(t)), "NOTE") => values.push(t.text().into_owned()),
                    _ => {}
                }
            }
        }
        assert_eq!(values, ["@VOID@", "x "]);
    }
}
