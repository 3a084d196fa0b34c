//! A citation's source part written once per source, not once per
//! citation.
//!
//! A citation with a page (or data, or a note) is a source description of
//! its own whose citation carries its source record's elements, then its
//! own, and a formatted value that begins with the record's (see
//! [`formatted`]). Most of such a description is its source's, the same
//! for every citation of the source. In compact output:
//!
//! 1. the threads that map write, in place of the source's part of a
//!    citation ([`SplicedCitation`]), a marker: the octet `0xFF` (which
//!    UTF-8 never holds), the part's kind and the source's number in the
//!    [`Index`] (they neither read the source's elements nor write them);
//! 2. the export's writer, as it takes a group's source descriptions in
//!    order, makes each source's parts once, with the same emitters, in an
//!    arena, and puts in place of each marker a reference to its part
//!    there ([`Splicer::resolve`]); what it spools is a quarter of the
//!    descriptions' octets;
//! 3. when the descriptions' turn comes, [`Splicer::write`] writes them
//!    with the parts in place of the references, by vectored writes from
//!    the arena (no copy, no look-up).
//!
//! Pretty output, whose indentation depends on where a part goes, writes
//! each citation whole. The document is the same either way: tests compare
//! the compact document with the pretty one (`tests/gedcomx_export.rs`).

use std::io::{self, IoSlice, Write};
use std::sync::Arc;

use smallvec::SmallVec;

use super::emit::{xml_escaped, Emit, Json, Node, Xml};
use super::index::Index;
use super::model::{
    aside, formatted, CitationElement, ElementView, CITATION_ELEMENTS_OF, CITATION_VALUE,
};

/// The octet a marker begins with (no UTF-8 text holds it).
const MARK: u8 = 0xFF;

/// A marker's length: [`MARK`], its kind, the source's number (`u32`,
/// little-endian).
const MARKER: usize = 6;

/// What a marker stands for: the source's part of the formatted value
/// when the citation adds nothing to it ([`formatted`] of the source's
/// elements alone).
const VALUE_ALONE: u8 = 0;

/// The source's part of the formatted value when the citation's own
/// elements follow it: the source's joined values and `, `, or nothing.
const VALUE_BEFORE_OWN: u8 = 1;

/// The source's elements, written as the first items of the list.
const ELEMENTS: u8 = 2;

/// The marker of part `kind` of the source numbered `ordinal`.
fn marker(kind: u8, ordinal: u32) -> [u8; MARKER] {
    let k = ordinal.to_le_bytes();
    [MARK, kind, k[0], k[1], k[2], k[3]]
}

/// A citation (`SourceCitation`) whose source's part is written as
/// markers: its own elements follow the source's `count` elements, and
/// the values of its own elements that the formatted value joins
/// (`own_value`) follow the source's part of it.
pub(crate) struct SplicedCitation<'a> {
    ordinal: u32,
    /// The kind of the value's marker: whether own elements follow.
    value: u8,
    count: usize,
    own: &'a [ElementView<'a>],
    own_value: String,
}

impl<'a> SplicedCitation<'a> {
    /// The citation of the source numbered `ordinal` (which has `count`
    /// elements, at least one) with its `own` elements.
    pub(crate) fn new(ordinal: u32, count: usize, own: &'a [ElementView<'a>]) -> Self {
        // Joined as `formatted` joins them.
        let mut own_value = String::new();
        let mut value = VALUE_ALONE;
        for e in own.iter().filter(|e| !aside(e.name)) {
            if value == VALUE_BEFORE_OWN {
                own_value.push_str(", ");
            }
            own_value.push_str(e.value);
            value = VALUE_BEFORE_OWN;
        }
        SplicedCitation {
            ordinal,
            value,
            count,
            own,
            own_value,
        }
    }
}

impl Node for SplicedCitation<'_> {
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()> {
        // As `emit_citation`, with no language.
        e.text_spliced(
            &CITATION_VALUE,
            &marker(self.value, self.ordinal),
            &self.own_value,
        )?;
        e.list_spliced(
            &CITATION_ELEMENTS_OF,
            &marker(ELEMENTS, self.ordinal),
            self.count,
            self.own,
        )
    }
}

/// Where a source's parts are in [`Splicer`]'s arena: the starts of
/// [`VALUE_ALONE`], [`VALUE_BEFORE_OWN`] and [`ELEMENTS`], and the end
/// of the last ([`NOT_MADE`] until they are made).
type Parts = [usize; 4];

/// The [`Parts`] of a source whose parts are not made yet.
const NOT_MADE: Parts = [usize::MAX; 4];

/// Writes at the end of `arena` the parts of the source `id` with
/// `elements`, in XML or JSON, and gives where they are.
fn make_parts(arena: &mut Vec<u8>, id: &str, elements: &[CitationElement], xml: bool) -> Parts {
    let views: SmallVec<[ElementView<'_>; 8]> =
        elements.iter().map(CitationElement::view).collect();
    let escaped = |arena: &mut Vec<u8>, s: &str| {
        if xml {
            // Writing to a Vec cannot fail.
            let _ = xml_escaped(arena, s, false);
        } else {
            crate::escape::json_content_into(arena, s);
        }
    };
    let value = formatted(&views, id);
    let alone = arena.len();
    escaped(arena, &value);
    let before_own = arena.len();
    if views.iter().any(|e| !aside(e.name)) {
        escaped(arena, &value);
        arena.extend_from_slice(b", ");
    }
    let list = arena.len();
    if xml {
        let _ = Xml::new(arena, false, 0).list(&CITATION_ELEMENTS_OF, &views);
    } else {
        for (i, v) in views.iter().enumerate() {
            if i > 0 {
                arena.push(b',');
            }
            let _ = Json::new(arena, false, 0).object(v);
        }
    }
    [alone, before_own, list, arena.len()]
}

/// Puts the sources' parts in place of their markers, in the output's
/// format: each source's made once, at its first marker, and kept (a few
/// hundred octets a source cited with a page).
#[derive(Debug)]
pub(crate) struct Splicer {
    index: Arc<Index>,
    xml: bool,
    /// The parts made, one source's after another's.
    arena: Vec<u8>,
    /// Each source's, by its number (a table small enough to stay in
    /// the cache: the parts themselves are not read to be found).
    parts: Vec<Parts>,
    /// The start of a reference cut by the end of what was written last.
    carry: SmallVec<[u8; REFERENCE]>,
    /// What [`Splicer::resolve`] gave last.
    resolved: Vec<u8>,
}

/// A reference's length ([`Splicer::resolve`]).
const REFERENCE: usize = 13;

/// The most slices [`Splicer::write`] gives one vectored write (a system
/// takes at least 1024).
const SLICES: usize = 1024;

/// The number of the source a (whole) marker names.
fn ordinal(m: &[u8]) -> u32 {
    u32::from_le_bytes([m[2], m[3], m[4], m[5]])
}

/// Writes every octet of `slices` to `out`.
fn write_all_vectored(
    out: &mut (impl Write + ?Sized),
    slices: &mut [IoSlice<'_>],
) -> io::Result<()> {
    let mut slices = slices;
    IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Splicer {
    /// A splicer of the sources of `index` in XML (`xml`) or JSON.
    pub(crate) fn new(index: Arc<Index>, xml: bool) -> Self {
        Splicer {
            index,
            xml,
            arena: Vec::new(),
            parts: Vec::new(),
            carry: SmallVec::new(),
            resolved: Vec::new(),
        }
    }

    /// Puts in place of each marker of `bytes` (a group's source
    /// descriptions, whole markers) a reference to the part it stands for
    /// (made now if it was not): [`MARK`], the part's start in the arena
    /// (`u64`) and its length (`u32`), little-endian. [`Splicer::write`]
    /// takes what this gives ([`Splicer::resolved`]), with no look-up.
    ///
    /// # Errors
    /// `InvalidData` for a marker of no source of the index.
    pub(crate) fn resolve(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut resolved = std::mem::take(&mut self.resolved);
        resolved.clear();
        resolved.reserve(bytes.len() + bytes.len() / 16);
        let mut at = 0;
        while let Some(k) = memchr::memchr(MARK, &bytes[at..]) {
            resolved.extend_from_slice(&bytes[at..at + k]);
            let m = bytes
                .get(at + k..at + k + MARKER)
                .ok_or_else(|| invalid("a citation's marker cut short"))?;
            let (from, to) = self.part(m)?;
            let len = u32::try_from(to - from).map_err(|_| invalid("a part too long"))?;
            resolved.push(MARK);
            resolved.extend_from_slice(&(from as u64).to_le_bytes());
            resolved.extend_from_slice(&len.to_le_bytes());
            at += k + MARKER;
        }
        resolved.extend_from_slice(&bytes[at..]);
        self.resolved = resolved;
        Ok(())
    }

    /// What [`Splicer::resolve`] gave last.
    pub(crate) fn resolved(&self) -> &[u8] {
        &self.resolved
    }

    /// [`Splicer::write`] of what [`Splicer::resolve`] gave last, then
    /// [`Splicer::end`].
    ///
    /// # Errors
    /// `out`'s.
    pub(crate) fn write_resolved(&mut self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let resolved = std::mem::take(&mut self.resolved);
        let written = self.write(out, &resolved);
        self.resolved = resolved;
        written?;
        self.end()
    }

    /// Writes `bytes` (what [`Splicer::resolve`] gave, whole or in pieces
    /// in order) to `out` with each reference replaced by the part it
    /// names: the octets between them and the parts, as they are, in
    /// vectored writes (no copy here). A reference may be cut between one
    /// call and the next ([`Splicer::end`] says whether one was left cut).
    ///
    /// # Errors
    /// `out`'s; `InvalidData` for a reference out of the arena.
    pub(crate) fn write(
        &mut self,
        out: &mut (impl Write + ?Sized),
        bytes: &[u8],
    ) -> io::Result<()> {
        let mut rest = bytes;
        if !self.carry.is_empty() {
            let take = (REFERENCE - self.carry.len()).min(rest.len());
            self.carry.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.carry.len() < REFERENCE {
                return Ok(());
            }
            let r: [u8; REFERENCE] = self.carry[..].try_into().unwrap_or_default();
            self.carry.clear();
            out.write_all(self.referenced(&r)?)?;
        }
        let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(SLICES);
        let (mut at, mut cut): (usize, &[u8]) = (0, &[]);
        while let Some(k) = memchr::memchr(MARK, &rest[at..]) {
            if k > 0 {
                slices.push(IoSlice::new(&rest[at..at + k]));
            }
            let Some(r) = rest.get(at + k..at + k + REFERENCE) else {
                // A reference cut at the end waits for the next call.
                cut = &rest[at + k..];
                at = rest.len();
                break;
            };
            slices.push(IoSlice::new(self.referenced(r)?));
            at += k + REFERENCE;
            if slices.len() + 2 > SLICES {
                write_all_vectored(out, &mut slices)?;
                slices.clear();
            }
        }
        if at < rest.len() {
            slices.push(IoSlice::new(&rest[at..]));
        }
        write_all_vectored(out, &mut slices)?;
        drop(slices);
        self.carry.extend_from_slice(cut);
        Ok(())
    }

    /// The part reference `r` names.
    fn referenced(&self, r: &[u8]) -> io::Result<&[u8]> {
        let from = u64::from_le_bytes(r[1..9].try_into().unwrap_or_default());
        let len = u32::from_le_bytes(r[9..13].try_into().unwrap_or_default());
        usize::try_from(from)
            .ok()
            .and_then(|from| {
                self.arena
                    .get(from..from.checked_add(usize::try_from(len).ok()?)?)
            })
            .ok_or_else(|| invalid("a citation's part out of the arena"))
    }

    /// Ends what [`Splicer::write`] was given.
    ///
    /// # Errors
    /// `InvalidData` when it ended inside a marker.
    pub(crate) fn end(&mut self) -> io::Result<()> {
        match self.carry.is_empty() {
            true => Ok(()),
            false => Err(invalid("a citation's marker cut short")),
        }
    }

    /// Where in the arena the part marker `m` stands for is: its
    /// source's parts, made now if they were not.
    fn part(&mut self, m: &[u8]) -> io::Result<(usize, usize)> {
        let ordinal = ordinal(m);
        let k = usize::try_from(ordinal).map_err(|_| invalid("no such source"))?;
        let parts = match self.parts.get(k) {
            Some(&parts) if parts != NOT_MADE => parts,
            _ => {
                // The index holds the source (the table grows to its
                // numbers only).
                let (id, elements) = self
                    .index
                    .source_at(ordinal)
                    .ok_or_else(|| invalid("a citation's marker of no source"))?;
                if self.parts.len() <= k {
                    self.parts.resize(k + 1, NOT_MADE);
                }
                self.parts[k] = make_parts(&mut self.arena, id, &elements, self.xml);
                self.parts[k]
            }
        };
        match m.get(1) {
            Some(&VALUE_ALONE) => Ok((parts[0], parts[1])),
            Some(&VALUE_BEFORE_OWN) => Ok((parts[1], parts[2])),
            Some(&ELEMENTS) => Ok((parts[2], parts[3])),
            _ => Err(invalid("a citation's marker of no kind")),
        }
    }

    /// A writer to `out` through this splicer ([`Splicer::write`]).
    pub(crate) fn to<'a, W: Write + ?Sized>(&'a mut self, out: &'a mut W) -> Through<'a, W> {
        Through { splicer: self, out }
    }
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// What is written to it goes to its output through its [`Splicer`].
pub(crate) struct Through<'a, W: Write + ?Sized> {
    splicer: &'a mut Splicer,
    out: &'a mut W,
}

impl<W: Write + ?Sized> Write for Through<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.splicer.write(self.out, buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReaderConfig;

    fn splicer(xml: bool) -> Splicer {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @S1@ SOUR\n1 AUTH An <author>\n1 TITL A \"title\"\n\
0 @S2@ SOUR\n1 ABBR Short\n0 TRLR\n";
        let index = Index::from_read(&input[..], ReaderConfig::new(), 1).unwrap();
        Splicer::new(Arc::new(index), xml)
    }

    #[test]
    fn the_parts_are_the_sources_values_and_elements_escaped() {
        for xml in [false, true] {
            let mut s = splicer(xml);
            let bytes = [
                &b"<"[..],
                &marker(VALUE_ALONE, 0),
                b"|",
                &marker(VALUE_BEFORE_OWN, 0),
                b"|",
                &marker(VALUE_BEFORE_OWN, 1),
                b"|",
                &marker(VALUE_ALONE, 1),
                b"|",
                &marker(ELEMENTS, 1),
                b">",
            ]
            .concat();
            s.resolve(&bytes).unwrap();
            let mut out = Vec::new();
            s.write_resolved(&mut out).unwrap();
            let out = String::from_utf8(out).unwrap();
            let (author, title, element) = match xml {
                false => (
                    "An <author>",
                    r#"A \"title\""#,
                    r#"{"name":"http://terms.fhiso.org/sources/shortTitle","value":"Short"}"#,
                ),
                true => (
                    "An &lt;author&gt;",
                    "A \"title\"",
                    r#"<cev:element name="http://terms.fhiso.org/sources/shortTitle"><cev:value>Short</cev:value></cev:element>"#,
                ),
            };
            let alone = format!("{author}, {title}");
            // S2 has only a short title: it stands in alone, and gives way
            // to the citation's own elements.
            assert_eq!(out, format!("<{alone}|{alone}, ||Short|{element}>"));
        }
    }

    #[test]
    fn a_reference_cut_anywhere_is_written_whole() {
        let mut s = splicer(false);
        let bytes = [
            &b"a"[..],
            &marker(ELEMENTS, 0),
            &marker(VALUE_ALONE, 1),
            b"b",
            &marker(VALUE_ALONE, 0),
        ]
        .concat();
        s.resolve(&bytes).unwrap();
        let resolved = s.resolved().to_vec();
        let mut whole = Vec::new();
        s.write(&mut whole, &resolved).unwrap();
        s.end().unwrap();
        for cut in 0..=resolved.len() {
            for second in cut..=resolved.len() {
                let mut out = Vec::new();
                for piece in [
                    &resolved[..cut],
                    &resolved[cut..second],
                    &resolved[second..],
                ] {
                    s.write(&mut out, piece).unwrap();
                }
                s.end().unwrap();
                assert_eq!(out, whole, "cut at {cut} and {second}");
            }
        }
        // Ended inside a reference: an error, not a part made up.
        s.write(&mut Vec::new(), &resolved[..resolved.len() - 1])
            .unwrap();
        assert_eq!(s.end().unwrap_err().kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn a_marker_of_no_source_or_cut_short_is_an_error() {
        let mut s = splicer(false);
        for bytes in [
            marker(ELEMENTS, 2).to_vec(),
            marker(ELEMENTS, u32::MAX).to_vec(),
            marker(7, 0).to_vec(),
            marker(ELEMENTS, 0)[..4].to_vec(),
        ] {
            let e = s.resolve(&bytes).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{bytes:?}");
        }
    }
}
