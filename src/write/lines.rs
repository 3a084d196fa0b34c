//! The writer's general output of lines: escaping, `CONT` and `CONC` lines, any
//! encoding.

use std::io::Write;

use super::octets::{plain, plain_end};
use super::text;
use super::writer::{Writer, FAST_LINE_MAX};
use crate::scan::decimal_digits;

impl<W: Write> Writer<W> {
    /// Writes the lines of a text payload; `bare_first`: none of it on the first line
    /// (which must read `0 HEAD` exactly), all on additional lines.
    pub(super) fn write_text(
        &mut self,
        level: u32,
        xref: Option<&str>,
        tag: &str,
        text: &str,
        bare_first: bool,
    ) {
        if self.g7 {
            self.write_text7(level, xref, tag, text);
            return;
        }
        let term = self.term_width;
        let max = self.config.max_line_bytes;
        // Fast path: a short single-line text with no `@`, in an encoding that takes it
        // octet for octet.
        if !bare_first && self.fits_verbatim(level, xref, tag, text) {
            self.emit_line(level, xref, tag, Some(text));
            return;
        }
        let preserve = self.config.escapes.lookup(tag.as_bytes());
        let sub = level.saturating_add(1);
        let conc_budget = max.saturating_sub(self.prefix_width(sub, None, "CONC") + term);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut lines = std::mem::take(&mut self.lines);
        for (i, seg) in text::Segments::new(text, self.config.cr_is_line_break).enumerate() {
            let (x, t) = if i == 0 { (xref, tag) } else { (None, "CONT") };
            let l = if i == 0 { level } else { sub };
            if !(i == 0 && bare_first) && self.fits_verbatim(l, x, t, seg) {
                // As in the fast path of a one-line text: no escaping, no split.
                self.emit_line(l, x, t, Some(seg));
                continue;
            }
            scratch.clear();
            text::prepare(seg, preserve, &self.enc, &mut scratch);
            if scratch.is_empty() {
                self.emit_line(l, x, t, None);
                if i == 0 && text.is_empty() {
                    // An empty text, not an absent payload.
                    self.emit_line(sub, None, "CONC", None);
                }
                continue;
            }
            let mut first_budget = max.saturating_sub(self.prefix_width(l, x, t) + term);
            let bare = i == 0 && bare_first;
            if bare {
                self.emit_line(l, x, t, None);
                first_budget = conc_budget;
            }
            lines.clear();
            text::split(&scratch, &self.enc, first_budget, conc_budget, |a, b| {
                lines.push((a, b));
            });
            for (k, &(a, b)) in lines.iter().enumerate() {
                let chunk = &scratch[a..b];
                if k == 0 && !bare {
                    self.emit_line(l, x, t, Some(chunk));
                } else {
                    self.emit_line(sub, None, "CONC", Some(chunk));
                }
            }
            if text::ends_in_whitespace(&scratch) {
                // Readers remove trailing whitespace, except (as this crate's does) on a
                // line followed by a CONC line: an empty one keeps it.
                self.emit_line(sub, None, "CONC", None);
            }
        }
        self.scratch = scratch;
        self.lines = lines;
    }

    /// [`Writer::write_text`] for GEDCOM 7 output: a line per line of `text` (LF, CRLF
    /// and CR each a break; `CONT` lines after the first), a leading `@` of each doubled,
    /// nothing else changed, no split.
    fn write_text7(&mut self, level: u32, xref: Option<&str>, tag: &str, text: &str) {
        let sub = level.saturating_add(1);
        let mut scratch = std::mem::take(&mut self.scratch);
        for (i, seg) in text::Segments::new(text, true).enumerate() {
            let (l, x, t) = if i == 0 {
                (level, xref, tag)
            } else {
                (sub, None, "CONT")
            };
            scratch.clear();
            text::prepare7(seg, &mut scratch);
            let payload = (!scratch.is_empty()).then_some(scratch.as_str());
            self.emit_line(l, x, t, payload);
        }
        self.scratch = scratch;
    }

    /// `true` when `text` can be the payload of line `LEVEL [XREF ]TAG` as it is: it
    /// holds no `@`, CR or LF (nor another control character), does not end in whitespace
    /// (see `plain_end`), fits within the line limit,
    /// and the output encoding takes it octet for octet (UTF-8; any other but UTF-16
    /// when it is ASCII). What escaping and splitting would leave unchanged.
    #[inline(always)]
    fn fits_verbatim(&self, level: u32, xref: Option<&str>, tag: &str, text: &str) -> bool {
        if self.utf16 {
            return false;
        }
        let b = text.as_bytes();
        let term = self.term_width;
        let max = self.config.max_line_bytes;
        // Level (at most 10 digits), spaces, xref and tag: a bound on the prefix.
        let bound = 13 + tag.len() + xref.map_or(0, str::len) + b.len() + term;
        // The length first: a long text (most continued ones) is not scanned.
        (bound <= max || self.prefix_width(level, xref, tag) + b.len() + term <= max)
            && plain_end(text)
            && plain(b)
            && (self.utf8 || text.is_ascii())
    }

    /// The width of `LEVEL [XREF ]TAG ` (the space before a payload included) in output
    /// octets.
    fn prefix_width(&self, level: u32, xref: Option<&str>, tag: &str) -> usize {
        let digits = level.checked_ilog10().map_or(1, |d| d as usize + 1);
        let unit = if self.config.encoding.is_utf16() {
            2
        } else {
            1
        };
        // Level, space, tag, space before the payload, and the space after an xref.
        let ascii = digits + 1 + tag.len() + 1 + usize::from(xref.is_some());
        unit * ascii + xref.map_or(0, |x| self.enc.width(x))
    }

    /// Appends one line: `LEVEL [XREF ]TAG[ PAYLOAD]` and the terminator.
    pub(super) fn emit_line(
        &mut self,
        level: u32,
        xref: Option<&str>,
        tag: &str,
        payload: Option<&str>,
    ) {
        if self.utf8 && level < 10 && payload != Some("") {
            // Octet for octet, straight into the buffer when there is room.
            let p = payload.unwrap_or("");
            let len = 2
                + xref.map_or(0, |x| x.len() + 1)
                + tag.len()
                + payload.map_or(0, |p| p.len() + 1)
                + self.term.len();
            if self.pos + len < self.buf.len() {
                self.put_line_raw(
                    level as u8,
                    tag.as_bytes(),
                    xref.map(str::as_bytes),
                    p.as_bytes(),
                    len,
                );
                return;
            }
        }
        let mut buf = std::mem::take(&mut self.line);
        buf.clear();
        let (digits, i) = decimal_digits(level);
        let digits = std::str::from_utf8(&digits[i..]).unwrap_or("0");
        // Part by part in the output encoding: an xref's or payload's marks stay with it
        // (ANSEL writes marks before their base).
        for (k, part) in [Some(digits), xref, Some(tag), payload]
            .into_iter()
            .enumerate()
        {
            if let Some(part) = part {
                if k > 0 {
                    self.enc.encode(" ", &mut buf);
                }
                self.enc.encode(part, &mut buf);
            }
        }
        self.enc.encode(self.term, &mut buf);
        self.put(&buf);
        self.line = buf;
    }

    /// Appends octets to the buffer, growing it when they do not fit (flushing happens
    /// only between structures, see [`Writer::begin_general`]).
    pub(super) fn put(&mut self, b: &[u8]) {
        let end = self.pos + b.len();
        if end + FAST_LINE_MAX + 2 > self.buf.len() {
            // Keep room for a fast line after the flush threshold.
            self.buf.resize(end + FAST_LINE_MAX + 2, 0);
        }
        self.buf[self.pos..end].copy_from_slice(b);
        self.pos = end;
    }
}
