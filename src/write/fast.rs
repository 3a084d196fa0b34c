//! The writer's fast path: a structure that needs none of the general path's work,
//! checked and written in one pass straight into the output buffer.

use std::io::Write;

use super::octets::{
    copy_short, fast_id, fast_tag, plain_end, plain_end_utf8, scan_control, scan_high,
    scan_special, C_XREF_ONLY,
};
use super::text;
use super::value::WriteValue;
use super::writer::Writer;

/// A payload as octets for [`Writer::begin_raw`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum RawPayload<'a> {
    /// No payload.
    None,
    /// A pointer, `@` signs included.
    Pointer(&'a [u8]),
    /// A string payload on one line, before any decoding.
    Text(&'a [u8]),
}

impl<W: Write> Writer<W> {
    /// The fast path of [`Writer::begin`]: checks and writes, in one pass and straight
    /// into the buffer, a structure that needs none of the general path's work (see
    /// [`Writer`]), and returns `true`; returns `false`, having changed nothing, for any
    /// other (including every one to refuse).
    #[inline(always)]
    pub(super) fn begin_fast(
        &mut self,
        tag: &str,
        xref: Option<&str>,
        value: Option<WriteValue<'_>>,
    ) -> bool {
        if !self.fast_state() {
            return false;
        }
        let t = tag.as_bytes();
        if !fast_tag(t) {
            return false;
        }
        let bad = self.id_bad;
        // Level, space, tag, terminator.
        let mut len = 2 + t.len() + self.term_width;
        if let Some(x) = xref {
            if !fast_id(x.as_bytes(), bad | C_XREF_ONLY) {
                return false;
            }
            len += x.len() + 1;
        }
        let payload: &[u8] = match value {
            None => &[],
            Some(WriteValue::Pointer(p)) => {
                if !fast_id(p.as_bytes(), bad) {
                    return false;
                }
                p.as_bytes()
            }
            Some(WriteValue::Text(text)) => {
                // Non-empty, no `@`, CR or LF, no trailing whitespace (nor a character
                // that may be a combining mark after it), ASCII unless UTF-8 output.
                let b = text.as_bytes();
                if !plain_end(text) {
                    return false;
                }
                if scan_special(b, self.high) != 0 {
                    return self.begin_fast_escaped(t, xref, text, len);
                }
                b
            }
        };
        self.put_fast_line_within(t, xref.map(str::as_bytes), payload, len)
    }

    /// Output begun, not UTF-16, no dropped parent, a one-digit level; room in the
    /// buffer; not too deep for a reader (after ERROR, CONT or CONC lines): the state
    /// the fast path writes in.
    #[inline(always)]
    fn fast_state(&self) -> bool {
        let depth = self.depth;
        depth < self.fast_depth && self.pos < self.flush_at && depth <= self.previous_level + 1
    }

    /// Writes the checked line `LEVEL [XREF ]TAG[ PAYLOAD]` (`len`: its length without
    /// the payload and the space before it) and opens the structure, when it is within
    /// the line limit (and the fast path's longest line); `false` otherwise.
    #[inline(always)]
    fn put_fast_line_within(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        payload: &[u8],
        mut len: usize,
    ) -> bool {
        if !payload.is_empty() {
            len += 1 + payload.len();
        }
        if len > self.fast_line_max {
            return false;
        }
        let depth = self.depth;
        self.put_line_raw(depth as u8, t, xref, payload, len);
        self.previous_level = depth;
        self.depth = depth + 1;
        self.fresh = true;
        true
    }

    /// The fast path of [`Writer::begin`] for a structure a reader produced, given as
    /// its octets in the input (the tree bridge's): writes it and returns `true` when
    /// the fast path would write the same structure given as text, and those octets are
    /// that text; returns `false`, having changed nothing, otherwise (the caller then
    /// decodes the structure and calls [`Writer::begin`]).
    ///
    /// What the reader guarantees is not checked again: `tag` matches `Tag` (the caller
    /// has checked it with [`raw_tag_ok`](crate::write::octets::raw_tag_ok)), an xref matches `XRefID` and a pointer
    /// `Pointer`. What is checked: the state, ASCII xref and pointer octets (others are
    /// decoded on their own), and a text that is ASCII, or (with `utf8`, the caller
    /// knowing the octets are valid UTF-8) UTF-8 for UTF-8 output, with no `@`, control
    /// character or trailing whitespace, on a line within the limit.
    #[inline(always)]
    pub(crate) fn begin_raw(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        value: RawPayload<'_>,
        utf8: bool,
    ) -> bool {
        self.begin_raw_with::<false>(t, xref, value, utf8)
    }

    /// [`Writer::begin_raw`] for a text whose `@` signs the caller has checked: its
    /// octets are what escaping its decoded text gives again, under the escape types
    /// the writer's configuration preserves for `t` (see the tree bridge). Everything
    /// else is checked as there.
    #[inline(never)]
    pub(crate) fn begin_raw_at_signs(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        text: &[u8],
        utf8: bool,
    ) -> bool {
        self.begin_raw_with::<true>(t, xref, RawPayload::Text(text), utf8)
    }

    /// [`Writer::begin_raw`]; with `AT_OK`, `@` signs in a text are not looked at.
    #[inline(always)]
    fn begin_raw_with<const AT_OK: bool>(
        &mut self,
        t: &[u8],
        xref: Option<&[u8]>,
        value: RawPayload<'_>,
        utf8: bool,
    ) -> bool {
        // A text's `@` signs were checked against the 5.5.1 rule.
        if !self.fast_state() || (AT_OK && self.g7) {
            return false;
        }
        let mut len = 2 + t.len() + self.term_width;
        let mut high = 0;
        if let Some(x) = xref {
            high |= scan_high(x);
            len += x.len() + 1;
        }
        let payload: &[u8] = match value {
            RawPayload::None => &[],
            RawPayload::Pointer(p) => {
                high |= scan_high(p);
                p
            }
            RawPayload::Text(b) => {
                match b.last() {
                    Some(&last) if last < 0x80 => {
                        if last == b' ' || last == b'\t' {
                            return false;
                        }
                    }
                    Some(_) => {}
                    None => return false,
                }
                let scan = if AT_OK { scan_control } else { scan_special };
                if scan(b, 0x8080_8080_8080_8080) != 0 {
                    // Not ASCII only: valid UTF-8 octets of plain text, written as
                    // UTF-8, not ending in what may be a combining mark.
                    if !(utf8 && self.utf8) || scan(b, 0) != 0 || !plain_end_utf8(b) {
                        return false;
                    }
                }
                b
            }
        };
        if high != 0 {
            return false;
        }
        self.put_fast_line_within(t, xref, payload, len)
    }

    /// The fast path for a text with `@` signs (escapes such as `@#DJULIAN@ ` in a
    /// `DATE`, e-mail addresses): when it holds no control character, and no non-ASCII
    /// one unless the output is UTF-8, it is prepared as the general path prepares it and,
    /// when the result fits on the line, written. `len`: the line's length without the
    /// payload and the space before it.
    #[inline(never)]
    fn begin_fast_escaped(&mut self, t: &[u8], xref: Option<&str>, text: &str, len: usize) -> bool {
        // Only `@` signs set it apart.
        if scan_control(text.as_bytes(), self.high) != 0 {
            return false;
        }
        let preserve = self.config.escapes.lookup(t);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        if self.g7 {
            text::prepare7(text, &mut scratch);
        } else {
            text::prepare(text, preserve, &self.enc, &mut scratch);
        }
        let fits = self.put_fast_line_within(t, xref.map(str::as_bytes), scratch.as_bytes(), len);
        self.scratch = scratch;
        fits
    }

    /// Writes line `LEVEL [XREF ]TAG[ PAYLOAD]` octet for octet: `level` below 10, `len`
    /// octets with the terminator, room for `len + 1` in the buffer (the terminator is
    /// stored as two octets).
    #[inline(always)]
    pub(super) fn put_line_raw(
        &mut self,
        level: u8,
        t: &[u8],
        xref: Option<&[u8]>,
        payload: &[u8],
        len: usize,
    ) {
        let pos = self.pos;
        let line = &mut self.buf[pos..pos + len + 1];
        line[0] = b'0' + level;
        line[1] = b' ';
        let mut i = 2;
        if let Some(x) = xref {
            copy_short(&mut line[i..i + x.len()], x);
            i += x.len();
            line[i] = b' ';
            i += 1;
        }
        copy_short(&mut line[i..i + t.len()], t);
        i += t.len();
        if !payload.is_empty() {
            line[i] = b' ';
            i += 1;
            copy_short(&mut line[i..i + payload.len()], payload);
            i += payload.len();
        }
        line[i..i + 2].copy_from_slice(&self.term2);
        self.pos = pos + len;
    }
}
