//! The writer's `HEAD`: [`Writer::begin_head`], the `CHAR` rule of
//! [`WriterConfig::set_head_char`](crate::write::WriterConfig::set_head_char) and what it leaves out ([`Writer::dropped`]).

use std::io::Write;

use super::error::{DropReason, Dropped, WriteError, WriteErrorKind};
use super::octets::is_continuation;
use super::value::{HeadOptions, WriteValue};
use super::writer::{CharState, HeadChar, Writer};

impl<W: Write> Writer<W> {
    /// The `CHAR` rule (see [`WriterConfig::set_head_char`](crate::write::WriterConfig::set_head_char)) for a structure to begin at
    /// `depth` (1 to 3) in a `HEAD` with the writer's `CHAR` line: returns `true` when it
    /// took the structure (one that is not written: the caller's `CHAR` or a `VERS` under
    /// it, whose substructures are, or a structure left out), `false` for one to write
    /// as usual.
    #[cold]
    pub(super) fn char_rule(
        &mut self,
        depth: usize,
        tag: &str,
        xref: Option<&str>,
        line: Option<u64>,
    ) -> bool {
        let hc = &mut self.head_char;
        match depth {
            1 if tag.eq_ignore_ascii_case("CHAR") => {
                if hc.state != CharState::Before {
                    self.drop_structure(depth, tag, line, DropReason::SecondChar);
                    return true;
                }
                hc.state = CharState::Open;
                hc.seg = self.pos;
                hc.outer_prev = self.previous_level;
                self.track();
                let hc = &mut self.head_char;
                // What it holds follows the writer's CHAR line, or its VERS line.
                hc.char_prev = if hc.vers_line { 2 } else { 1 };
                hc.vers_prev = 2;
                hc.char_bare = !hc.vers_line;
                hc.vers_bare = true;
                self.previous_level = hc.char_prev;
            }
            2 if hc.state == CharState::Open && tag.eq_ignore_ascii_case("VERS") => {
                hc.in_vers = true;
                hc.vers_start = self.pos;
                if hc.vers_line {
                    hc.char_prev = self.previous_level;
                    self.previous_level = hc.vers_prev;
                }
            }
            2 if hc.state == CharState::Open => {
                // A CONT or CONC first under the caller's CHAR is the caller's mistake
                // (refused as usual); one that would be first only under the writer's
                // is left out.
                if !(is_continuation(tag) && !self.fresh && hc.char_bare) {
                    return false;
                }
                self.drop_structure(depth, tag, line, DropReason::Continuation);
                return true;
            }
            3 if hc.in_vers => {
                let reason = if !hc.vers_line {
                    DropReason::NoVersLine
                } else if is_continuation(tag) && !self.fresh && hc.vers_bare {
                    DropReason::Continuation
                } else {
                    return false;
                };
                self.drop_structure(depth, tag, line, reason);
                return true;
            }
            _ => return false,
        }
        // The caller's CHAR or a VERS under it: not written; its substructures are.
        if xref.is_some() {
            self.record_drop(tag, line, DropReason::CharXref);
        }
        self.depth = depth + 1;
        self.fresh = true;
        self.update_gates();
        true
    }

    /// Leaves out the structure beginning at `depth`, with its substructures, and
    /// records it.
    #[cold]
    pub(super) fn drop_structure(
        &mut self,
        depth: usize,
        tag: &str,
        line: Option<u64>,
        reason: DropReason,
    ) {
        // What follows it may now be too deep in the output but not where the caller
        // put it.
        self.track();
        self.record_drop(tag, line, reason);
        self.skip_from = depth;
        self.depth = depth + 1;
        self.update_gates();
    }

    /// Starts `tracking` the caller's previous level (from the output's), unless on.
    fn track(&mut self) {
        if !self.tracking {
            self.tracking = true;
            self.caller_prev = self.previous_level;
        }
    }

    #[cold]
    fn record_drop(&mut self, tag: &str, line: Option<u64>, reason: DropReason) {
        self.dropped_count += 1;
        if self.dropped.len() < Dropped::KEPT {
            self.dropped.push(Dropped::new(tag, line, reason));
        }
    }

    /// How many structures (and xrefs) the writer has left out so far: see
    /// [`Writer::dropped`]. Read it before [`Writer::finish`], which consumes the
    /// writer.
    #[must_use]
    pub fn dropped_count(&self) -> u64 {
        self.dropped_count
    }

    /// The first [`Dropped::KEPT`] (100) structures (and xrefs) the writer has left out so
    /// far, in the order met, each with its tag, input line (when it came through
    /// [`Writer::write_event`] or from a tree) and [`DropReason`];
    /// [`Writer::dropped_count`] counts them all. Only the `CHAR` rule of
    /// [`WriterConfig::set_head_char`](crate::write::WriterConfig::set_head_char) leaves
    /// anything out: a writer writes everything else it is given, or refuses it with an
    /// error.
    ///
    /// Read it before [`Writer::finish`], which consumes the writer.
    ///
    /// ```
    /// use gedcom_elf::write::{DropReason, Writer};
    /// use gedcom_elf::Reader;
    ///
    /// let input = b"0 HEAD\n1 CHAR UTF-8\n2 _X kept\n1 CHAR ANSEL\n2 _Y\n0 TRLR\n";
    /// let mut w = Writer::new(Vec::new());
    /// for event in Reader::from_slice(input) {
    ///     w.write_event(&event.unwrap(), gedcom_elf::Encoding::Utf8)?;
    /// }
    /// assert_eq!(w.dropped_count(), 1);
    /// let d = &w.dropped()[0];
    /// assert_eq!((d.tag.as_str(), d.line, d.reason), ("CHAR", Some(4), DropReason::SecondChar));
    /// assert_eq!(w.finish()?, b"0 HEAD\n1 CHAR UTF-8\n2 _X kept\n0 TRLR\n");
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    #[must_use]
    pub fn dropped(&self) -> &[Dropped] {
        &self.dropped
    }

    /// Takes what this writer left out (a piece writer's, see the tree bridge).
    pub(crate) fn take_dropped(&mut self) -> (u64, Vec<Dropped>) {
        (
            std::mem::take(&mut self.dropped_count),
            std::mem::take(&mut self.dropped),
        )
    }

    /// Adds what another writer left out (after what this one did).
    pub(crate) fn add_dropped(&mut self, count: u64, dropped: Vec<Dropped>) {
        self.dropped_count += count;
        let room = Dropped::KEPT.saturating_sub(self.dropped.len());
        self.dropped.extend(dropped.into_iter().take(room));
    }

    /// Moves what the open caller's `CHAR` holds under the writer's `CHAR` line: the
    /// substructures of its `VERS` structures first (under the writer's `VERS` line),
    /// then the others, each in order. Ends the caller's `CHAR` (as far as the rule
    /// goes); nothing to do when none is open.
    pub(super) fn settle_char(&mut self) {
        let hc = &mut self.head_char;
        if !self.head_open || hc.state != CharState::Open {
            return;
        }
        hc.state = CharState::Done;
        if hc.in_vers {
            hc.in_vers = false;
            if hc.vers_line {
                hc.vers_spans.push((hc.vers_start, self.pos));
            }
        }
        let (ins, seg, end) = (hc.ins, hc.seg, self.pos);
        if !hc.vers_spans.is_empty() {
            // Stable partition: the VERS spans, then the rest.
            let held = self.buf[seg..end].to_vec();
            let mut at = seg;
            let mut put = |buf: &mut [u8], a: usize, b: usize| {
                buf[at..at + b - a].copy_from_slice(&held[a - seg..b - seg]);
                at += b - a;
            };
            for &(a, b) in &hc.vers_spans {
                put(&mut self.buf, a, b);
            }
            let mut from = seg;
            for &(a, b) in &hc.vers_spans {
                put(&mut self.buf, from, a);
                from = b;
            }
            put(&mut self.buf, from, end);
            hc.vers_spans.clear();
        }
        self.buf[ins..end].rotate_right(end - seg);
    }

    /// The end of a dropped structure's outermost frame, of a `HEAD` with the writer's
    /// `CHAR`, or of the caller's `CHAR` or a `VERS` directly under it there.
    #[cold]
    pub(super) fn ended_watched(&mut self) {
        let depth = self.depth;
        if depth == self.skip_from {
            self.skip_from = usize::MAX;
            self.converge();
        } else if depth == 2 && self.head_char.in_vers {
            let hc = &mut self.head_char;
            hc.in_vers = false;
            if hc.vers_line {
                hc.vers_spans.push((hc.vers_start, self.pos));
                hc.vers_prev = self.previous_level;
                self.previous_level = hc.char_prev;
            }
        } else if depth == 1 && self.head_char.state == CharState::Open {
            let moved = self.head_char.seg != self.head_char.ins;
            self.settle_char();
            if moved {
                // What follows in the output follows what came before the caller's
                // CHAR (a lower bound when that was only CONT, CONC or ERROR lines, which
                // now follow what moved).
                self.previous_level = self.head_char.outer_prev;
            }
            self.converge();
        } else if depth == 0 {
            self.head_open = false;
            self.head7_open = false;
            self.head_char = HeadChar::default();
        }
        self.update_gates();
    }

    /// Writes a `HEAD` record per seed §6 and leaves it open for more substructures:
    /// `0 HEAD`, `1 CHAR` naming the output encoding (see
    /// [`WriterConfig::set_head_char`](crate::write::WriterConfig::set_head_char)),
    /// `1 GEDC` (with `2 VERS 5.5.1`, `2 FORM LINEAGE-LINKED`, `2 ELF`), and the schema as
    /// `1 SCHMA`, whose `ESC` lines become the writer's escape table. For GEDCOM 7
    /// output ([`WriterConfig::version`](crate::write::WriterConfig::version)): `0 HEAD`,
    /// `1 GEDC`, `2 VERS 7.0` only (the schema, an ELF one, is not written).
    ///
    /// ```
    /// use gedcom_elf::write::{HeadOptions, HeadSchema, Writer};
    ///
    /// let mut w = Writer::new(Vec::new());
    /// w.begin_head(&HeadOptions { schema: Some(HeadSchema::default()), ..HeadOptions::default() })?;
    /// w.end()?;
    /// w.trailer()?;
    /// assert_eq!(
    ///     String::from_utf8(w.finish()?).unwrap(),
    ///     "0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n\
    ///      2 ELF 1.0.0\n1 SCHMA\n2 ESC DATE D\n0 TRLR\n"
    /// );
    /// # Ok::<(), gedcom_elf::write::WriteError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Writer::begin`]; [`WriteErrorKind::MissingHead`] when something was written
    /// already or a structure is open.
    pub fn begin_head(&mut self, opts: &HeadOptions) -> Result<(), WriteError> {
        if self.depth != 0 {
            return Err(WriteError::new(
                WriteErrorKind::MissingHead,
                "a HEAD must be a record",
            ));
        }
        self.begin("HEAD", None, None)?;
        if self.g7 {
            // GEDCOM 7: the version only (no FORM, no ELF, no CHAR); an ELF schema has
            // no 7.0 form (7.0's SCHMA holds TAG lines only).
            if opts.gedc {
                self.begin("GEDC", None, None)?;
                self.leaf("VERS", Some(WriteValue::Text("7.0")))?;
                self.end()?;
            }
            return Ok(());
        }
        if opts.gedc {
            self.begin("GEDC", None, None)?;
            self.leaf("VERS", Some(WriteValue::Text("5.5.1")))?;
            self.leaf("FORM", Some(WriteValue::Text("LINEAGE-LINKED")))?;
            if let Some(v) = &opts.elf {
                self.leaf("ELF", Some(WriteValue::Text(v)))?;
            }
            self.end()?;
        }
        if !self.config.set_head_char {
            let enc = self.config.encoding;
            self.leaf("CHAR", Some(WriteValue::Text(enc.char_value())))?;
        }
        if let Some(schema) = &opts.schema {
            self.config.escapes = schema.escapes.clone();
            self.begin("SCHMA", None, None)?;
            for iri in &schema.external {
                self.leaf("SCHMA", Some(WriteValue::Text(iri)))?;
            }
            for (prefix, iri) in &schema.prefixes {
                self.leaf("PRFX", Some(WriteValue::Text(&format!("{prefix} {iri}"))))?;
            }
            for (tag, set) in schema.escapes.iter() {
                let types: String = (b'A'..=b'Z')
                    .filter(|&t| set.contains(t))
                    .map(char::from)
                    .collect();
                let tag = String::from_utf8_lossy(tag);
                self.leaf("ESC", Some(WriteValue::Text(&format!("{tag} {types}"))))?;
            }
            for def in &schema.iris {
                self.begin("IRI", None, Some(WriteValue::Text(&def.iri)))?;
                for s in &def.supertypes {
                    self.leaf("ISA", Some(WriteValue::Text(s)))?;
                }
                for (tag, supers) in &def.tags {
                    let payload: Vec<&str> = std::iter::once(tag)
                        .chain(supers)
                        .map(String::as_str)
                        .collect();
                    self.leaf("TAG", Some(WriteValue::Text(&payload.join(" "))))?;
                }
                self.end()?;
            }
            self.end()?;
        }
        Ok(())
    }

    /// Writes `1 CHAR <encoding>` (and `2 VERS` when the encoding needs it), and gets
    /// the `CHAR` rule ready for the `HEAD`.
    pub(super) fn write_char_lines(&mut self) {
        let enc = self.config.encoding;
        self.emit_line(1, None, "CHAR", Some(enc.char_value()));
        let vers = enc.vers();
        self.previous_level = 1;
        if let Some(v) = vers {
            self.emit_line(2, None, "VERS", Some(v));
            self.previous_level = 2;
        }
        self.head_char = HeadChar {
            vers_line: vers.is_some(),
            ins: self.pos,
            ..HeadChar::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encoding;
    use crate::write::writer::BUF_LEN;
    use crate::write::WriterConfig;

    /// Writes `script` (`+TAG [VALUE]` begins a structure, `-` ends one) with `enc`;
    /// returns the output as text and what was dropped, as `TAG/reason`.
    fn script(enc: Encoding, script: &[&str]) -> (String, Vec<String>) {
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().encoding(enc));
        for step in script {
            if let Some(rest) = step.strip_prefix('+') {
                let (tag, value) = match rest.split_once(' ') {
                    Some((t, v)) => (t, Some(WriteValue::Text(v))),
                    None => (rest, None),
                };
                w.begin(tag, None, value).unwrap();
            } else {
                w.end().unwrap();
            }
        }
        w.trailer().unwrap();
        let dropped = w
            .dropped()
            .iter()
            .map(|d| format!("{}/{:?}", d.tag, d.reason))
            .collect();
        assert_eq!(w.dropped_count(), w.dropped().len() as u64);
        (String::from_utf8(w.finish().unwrap()).unwrap(), dropped)
    }

    #[test]
    fn char_substructures_move_under_the_writers_char() {
        let steps = [
            "+HEAD",
            "+SOUR x",
            "-",
            "+CHAR ANSEL",
            "+_A a",
            "+_B",
            "-",
            "-",
            "+NOTE n",
            "-",
            "-",
            "+DATE d",
            "-",
        ];
        let (out, dropped) = script(Encoding::Utf8, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR UTF-8\n2 _A a\n3 _B\n2 NOTE n\n1 SOUR x\n1 DATE d\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        // After the writer's VERS line.
        let (out, _) = script(Encoding::Windows1250, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n2 _A a\n3 _B\n2 NOTE n\n1 SOUR x\n1 DATE d\n0 TRLR\n"
        );
        // Unchanged output for a CHAR holding nothing but a VERS.
        let (out, dropped) = script(
            Encoding::Utf8,
            &["+HEAD", "+CHAR ANSI", "+VERS 1250", "-", "-", "+SOUR x"],
        );
        assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n1 SOUR x\n0 TRLR\n");
        assert!(dropped.is_empty());
    }

    #[test]
    fn vers_substructures_go_under_the_writers_vers_or_are_dropped() {
        let steps = [
            "+HEAD",
            "+CHAR ANSI",
            "+_A",
            "-",
            "+VERS 1251",
            "+_V v",
            "+_W",
            "-",
            "-",
            "-",
            "+_B",
            "-",
            "+VERS x",
            "+_U",
            "-",
            "-",
        ];
        let (out, dropped) = script(Encoding::Ibm850, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR IBMPC\n2 VERS 850\n3 _V v\n4 _W\n3 _U\n2 _A\n2 _B\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        let (out, dropped) = script(Encoding::Ascii, &steps);
        assert_eq!(out, "0 HEAD\n1 CHAR ASCII\n2 _A\n2 _B\n0 TRLR\n");
        assert_eq!(dropped, ["_V/NoVersLine", "_U/NoVersLine"]);
    }

    #[test]
    fn a_second_char_is_dropped_whole() {
        let (out, dropped) = script(
            Encoding::Utf8,
            &[
                "+HEAD",
                "+CHAR UTF-8",
                "+_A",
                "-",
                "-",
                "+CHAR ANSEL",
                "+_B",
                "+_C",
                "-",
                "-",
                "-",
                "+SOUR s",
                "-",
                "-",
                "+HEAD",
                "+CHAR x",
                "+_D",
            ],
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR UTF-8\n2 _A\n1 SOUR s\n0 HEAD\n1 CHAR UTF-8\n2 _D\n0 TRLR\n"
        );
        assert_eq!(dropped, ["CHAR/SecondChar"]);
        // Case ignored, as encoding detection does.
        let (out, dropped) = script(Encoding::Utf8, &["+HEAD", "+char x", "+vers y", "+_V"]);
        assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
        assert_eq!(dropped, ["_V/NoVersLine"]);
    }

    #[test]
    fn xrefs_of_char_and_vers_are_dropped_and_reported() {
        let mut w = Writer::with_config(
            Vec::new(),
            WriterConfig::new().encoding(Encoding::Windows1253),
        );
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", Some("@C@"), Some(WriteValue::Text("ANSI")))
            .unwrap();
        w.begin("VERS", Some("@V@"), Some(WriteValue::Text("1253")))
            .unwrap();
        w.leaf("_X", None).unwrap();
        w.trailer().unwrap();
        let reasons: Vec<_> = w.dropped().iter().map(|d| (&*d.tag, d.reason)).collect();
        assert_eq!(
            reasons,
            [
                ("CHAR", DropReason::CharXref),
                ("VERS", DropReason::CharXref)
            ]
        );
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 CHAR ANSI\n2 VERS 1253\n3 _X\n0 TRLR\n"
        );
    }

    #[test]
    fn a_continuation_that_would_come_first_is_dropped() {
        // First under the writer's CHAR (no VERS line): would be read as part of its
        // payload. After the writer's VERS line it is a structure of its own.
        let steps = [
            "+HEAD",
            "+CHAR ANSI",
            "+VERS 1250",
            "-",
            "+CONC x",
            "-",
            "+CONT y",
            "-",
            "+_A",
            "-",
            "+CONT z",
        ];
        let (out, dropped) = script(Encoding::Utf8, &steps);
        assert_eq!(out, "0 HEAD\n1 CHAR UTF-8\n2 _A\n2 CONT z\n0 TRLR\n");
        assert_eq!(dropped, ["CONC/Continuation", "CONT/Continuation"]);
        let (out, dropped) = script(Encoding::Windows1250, &steps);
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n2 CONC x\n2 CONT y\n2 _A\n2 CONT z\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        // Under the writer's VERS likewise.
        let (out, dropped) = script(
            Encoding::Windows1250,
            &[
                "+HEAD", "+CHAR", "+VERS", "+_V", "-", "-", "+VERS", "+_W", "-", "+CONC c",
            ],
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _V\n3 _W\n3 CONC c\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        let (_, dropped) = script(
            Encoding::Windows1250,
            &["+HEAD", "+CHAR", "+VERS", "+_V", "-", "+CONT c"],
        );
        assert!(dropped.is_empty());
        let (out, dropped) = script(
            Encoding::Windows1250,
            &[
                "+HEAD", "+CHAR", "+VERS", "-", "+VERS", "+_V", "-", "+CONT c", "-", "+_W",
            ],
        );
        assert_eq!(
            out,
            "0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _V\n3 CONT c\n3 _W\n0 TRLR\n"
        );
        assert!(dropped.is_empty());
        // First under the caller's own CHAR: the caller's mistake, refused.
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        let e = w.leaf("CONT", None).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::ContinuationTag);
    }

    #[test]
    fn levels_after_what_moved_are_checked_where_it_stood() {
        // The ERROR chain after the caller's CHAR follows `1 SOUR` in the output, not
        // `3 _B`: its level-3 line is too deep there (not where the caller put it: left
        // out and reported, not refused).
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.leaf("SOUR", None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.begin("_A", None, None).unwrap();
        w.leaf("_B", None).unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("_C", None, None).unwrap();
        w.leaf("_D", None).unwrap();
        w.end().unwrap();
        // Back in step: a level-2 line is where the caller's order has it.
        w.end().unwrap();
        w.begin("_E", None, None).unwrap();
        w.leaf("_F", None).unwrap();
        w.trailer().unwrap();
        let reasons: Vec<_> = w.dropped().iter().map(|d| (&*d.tag, d.reason)).collect();
        assert_eq!(reasons, [("_C", DropReason::TooDeep)]);
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 CHAR UTF-8\n2 _A\n3 _B\n1 SOUR\n1 ERROR\n2 ERROR\n2 _E\n3 _F\n0 TRLR\n"
        );
        // Too deep where the caller put it too: refused.
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.leaf("SOUR", None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.leaf("_A", None).unwrap();
        w.end().unwrap();
        w.leaf("NOTE", None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        let e = w.leaf("_C", None).unwrap_err();
        assert_eq!(e.kind(), WriteErrorKind::TooDeep);
        // The VERS structures of a CHAR left out (no VERS line in ASCII): what follows
        // them is checked where it ends up.
        let (out, dropped) = script(
            Encoding::Ascii,
            &[
                "+HEAD", "+CHAR", "+VERS", "+_V", "+_W", "-", "-", "-", "+ERROR", "+_X", "-", "-",
                "+_Y", "+_Z",
            ],
        );
        assert_eq!(out, "0 HEAD\n1 CHAR ASCII\n2 ERROR\n2 _Y\n3 _Z\n0 TRLR\n");
        assert_eq!(dropped, ["_V/NoVersLine", "_X/TooDeep"]);
        // Right after the writer's CHAR it follows what was there, `3 _B`.
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.begin("_A", None, None).unwrap();
        w.leaf("_B", None).unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.leaf("_C", None).unwrap();
        w.trailer().unwrap();
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 CHAR UTF-8\n2 _A\n3 _B\n1 ERROR\n2 ERROR\n3 _C\n0 TRLR\n"
        );
        // Inside the CHAR, the levels are checked where its substructures go: after
        // the writer's VERS line, 3 under ERROR is fine.
        let mut w = Writer::with_config(
            Vec::new(),
            WriterConfig::new().encoding(Encoding::Windows1255),
        );
        w.begin("HEAD", None, None).unwrap();
        w.begin("CHAR", None, None).unwrap();
        w.begin("ERROR", None, None).unwrap();
        w.leaf("_C", None).unwrap();
        w.trailer().unwrap();
        let out = w.finish().unwrap();
        assert_eq!(
            out,
            b"0 HEAD\n1 CHAR ANSI\n2 VERS 1255\n2 ERROR\n3 _C\n0 TRLR\n"
        );
    }

    #[test]
    fn a_long_head_is_held_then_flushed_as_usual() {
        // More than the flush threshold before the CHAR: all of it held, the CHAR's
        // substructure moved to the top, and the buffer back to its size afterwards.
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out);
        w.begin("HEAD", None, None).unwrap();
        let note = "n".repeat(200);
        for _ in 0..1000 {
            w.leaf("NOTE", Some(WriteValue::Text(&note))).unwrap();
        }
        w.begin("CHAR", None, None).unwrap();
        w.leaf("_A", Some(WriteValue::Text("a"))).unwrap();
        w.end().unwrap();
        assert!(w.buf.len() > BUF_LEN);
        w.end().unwrap();
        for _ in 0..1000 {
            w.leaf("NOTE", Some(WriteValue::Text(&note))).unwrap();
        }
        assert_eq!(w.buf.len(), BUF_LEN);
        w.trailer().unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("0 HEAD\n1 CHAR UTF-8\n2 _A a\n1 NOTE nnn"));
        assert_eq!(text.matches("\n2 _A a\n").count(), 1);
        assert_eq!(text.lines().count(), 2004);
    }

    #[test]
    fn a_writer_dropped_inside_the_char_still_moves_its_substructures() {
        let mut out = Vec::new();
        {
            let mut w = Writer::with_config(
                &mut out,
                WriterConfig::new().encoding(Encoding::Windows1250),
            );
            w.begin("HEAD", None, None).unwrap();
            w.leaf("SOUR", None).unwrap();
            w.begin("CHAR", None, None).unwrap();
            w.leaf("_A", None).unwrap();
            w.begin("VERS", None, None).unwrap();
            w.begin("_V", None, None).unwrap();
        }
        assert_eq!(
            out,
            b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n3 _V\n2 _A\n1 SOUR\n"
        );
    }

    #[test]
    fn without_head_char_nothing_is_moved_or_dropped() {
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().set_head_char(false));
        w.begin("HEAD", None, None).unwrap();
        w.leaf("SOUR", None).unwrap();
        w.begin("CHAR", Some("@C@"), Some(WriteValue::Text("ANSEL")))
            .unwrap();
        w.leaf("CONC", None).unwrap_err();
        w.leaf("_A", None).unwrap();
        w.end().unwrap();
        w.leaf("CHAR", None).unwrap();
        w.trailer().unwrap();
        assert_eq!(w.dropped_count(), 0);
        assert_eq!(
            w.finish().unwrap(),
            b"0 HEAD\n1 SOUR\n1 @C@ CHAR ANSEL\n2 _A\n1 CHAR\n0 TRLR\n"
        );
    }

    #[test]
    fn drops_past_the_kept_ones_are_counted() {
        let mut w = Writer::new(Vec::new());
        w.begin("HEAD", None, None).unwrap();
        w.leaf("CHAR", None).unwrap();
        for _ in 0..250 {
            w.leaf("CHAR", None).unwrap();
        }
        assert_eq!(w.dropped_count(), 250);
        assert_eq!(w.dropped().len(), Dropped::KEPT);
        let (count, list) = w.take_dropped();
        w.add_dropped(count, list.clone());
        w.add_dropped(count, list);
        assert_eq!(w.dropped_count(), 500);
        assert_eq!(w.dropped().len(), Dropped::KEPT);
    }

    #[test]
    fn errors_and_drops_carry_the_event_line() {
        let input = b"0 HEAD\n1 CHAR ANSEL\n1 CHAR UTF-8\n0 @I\xC3\xA9@ INDI\n0 TRLR\n";
        let mut w = Writer::with_config(Vec::new(), WriterConfig::new().encoding(Encoding::Ascii));
        let mut error = None;
        for event in crate::Reader::from_slice(input) {
            if let Err(e) = w.write_event(&event.unwrap(), Encoding::Utf8) {
                error = Some(e);
                break;
            }
        }
        let e = error.expect("the xref is refused");
        assert_eq!((e.kind(), e.line()), (WriteErrorKind::InvalidXref, Some(4)));
        assert!(!e.to_string().contains('4'), "{e}");
        assert_eq!(w.dropped()[0].line, Some(3));
        assert_eq!(
            w.dropped()[0].to_string(),
            format!("line 3: CHAR: {}", DropReason::SecondChar)
        );
        // Through `begin`, no line.
        let e = w.begin("_X", Some("@x:y@"), None).unwrap_err();
        assert_eq!(e.line(), None);
        assert_eq!(
            std::mem::size_of::<WriteError>(),
            std::mem::size_of::<usize>()
        );
    }
}
