//! What mapping one record needs from others, gathered by a first pass
//! over the reader's events.
//!
//! A record maps on its own except in four places: a family's
//! parent-child relationships carry the `FAMC.PEDI` of its children's
//! records; a citation's description carries its source record's citation
//! elements; a source's citation carries its repository's name; a pointer
//! to a `NOTE` record carries the record's text. The [`Index`] holds those
//! (a few strings per source, repository and pedigree, and the notes'
//! texts up to [`Index::NOTE_BUDGET`]; nothing per person), so records can
//! be mapped in any order and on any thread, and the output does not
//! depend on which record comes first.
//!
//! ```
//! use gedcom_elf::gedcomx::Index;
//!
//! let input: &[u8] = b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n2 PEDI adopted\n\
//!     0 @R1@ REPO\n1 NAME Archives\n0 @S1@ SOUR\n1 TITL Parish register\n1 REPO @R1@\n0 TRLR\n";
//! let index = Index::from_read(input, Default::default(), 1)?;
//! assert_eq!(index.pedigree("F1", "I1"), [("http://gedcomx.org/AdoptiveParent", 4)]); // its line
//! let elements = index.source_elements("S1");
//! assert_eq!(elements.len(), 2); // the title, the repository's name
//! assert_eq!(elements[1].value, "Archives");
//! # Ok::<(), gedcom_elf::Error>(())
//! ```

use std::borrow::Cow;
use std::io::Read;

use smallvec::SmallVec;

use super::model::CitationElement;
use super::table::{pedigree_fact, value_text, xref_id, CITATION_ELEMENTS, THROUGH_REPOSITORY};
use crate::event::Event;
use crate::read::UnreadChunk;
use crate::scan::{count_breaks, parse_line, plain_record_tag, Lines};
use crate::source::record_starts;
use crate::stream::StreamReader;
use crate::tree::hash::FastMap;
use crate::value::Pedigree;
use crate::{Error, Reader, ReaderConfig};

/// The records the index looks into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Person,
    Repository,
    Source,
    Note,
}

/// A source record's own citation elements and its repository.
#[derive(Clone, Debug, Default, PartialEq)]
struct Source {
    /// The elements under the record, in [`CITATION_ELEMENTS`]'s order.
    elements: Vec<CitationElement>,
    /// Where the repository's name goes among them (after the elements of
    /// the rows before its own), and the repository's id; `None` too once
    /// [`Index::resolve_repositories`] put the name among the elements.
    repository: Option<(usize, String)>,
    /// Its place in [`Index::source_ids`]: the source's number in this
    /// index.
    ordinal: u32,
}

/// A child's `FAMC.PEDI` facts in one family: fact types, with their lines.
type Pedigrees = Vec<(&'static str, u64)>;

/// A record's id as the index's tables key it: held inline up to 16 bytes
/// (most ids), so that a look-up compares it in the table rather than
/// through a pointer to another cache line (the citations' look-ups of
/// their sources waited on those).
type Id = SmallVec<[u8; 16]>;

fn id_key(id: &str) -> Id {
    Id::from_slice(id.as_bytes())
}

/// An id of the tables as text (each was made from a `str`).
fn id_text(id: &Id) -> &str {
    std::str::from_utf8(id).unwrap_or_default()
}

/// The facts records borrow from one another (see [the module
/// docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Index {
    /// Family id to child id to the `FAMC.PEDI` facts, with their lines
    /// (two levels, so that a look-up makes no key).
    pedigrees: FastMap<Id, FastMap<Id, Pedigrees>>,
    /// Repository id to its first `NAME`.
    repositories: FastMap<Id, String>,
    /// Source record id to its elements (the first record of an id).
    sources: FastMap<Id, Source>,
    /// The sources' ids, each at its [`Source::ordinal`].
    source_ids: Vec<Id>,
    /// Note record id to its text (the first record of an id), while the
    /// texts fit [`Index::NOTE_BUDGET`].
    notes: FastMap<Id, String>,
    /// The notes' ids in the document's order (merged in that order, so
    /// the budget leaves out the same notes however the input was cut).
    note_order: Vec<String>,
    /// Bytes of the notes' texts kept.
    note_bytes: usize,
    /// Bytes of the notes' texts it may keep ([`Index::note_budget`]).
    note_budget: usize,
    /// The `INDI` and the `FAM` records ([`RECORD_TAGS`]).
    records: [u64; 2],
    /// Read from the input's start to its end by [`Index::read`]: its
    /// counts are the input's ([`Index::records`]).
    whole: bool,
}

/// The records an index counts ([`Index::records`]), in the document's
/// order of the sections they alone give: row `k` gives section `k`
/// (`INDI` persons, `FAM` relationships), which the export writes straight
/// once no record of rows `0..=k` is left.
pub(crate) const RECORD_TAGS: [&str; 2] = ["INDI", "FAM"];

impl Default for Index {
    fn default() -> Self {
        Index {
            pedigrees: FastMap::default(),
            repositories: FastMap::default(),
            sources: FastMap::default(),
            source_ids: Vec::new(),
            notes: FastMap::default(),
            note_order: Vec::new(),
            note_bytes: 0,
            note_budget: Index::NOTE_BUDGET,
            records: [0; 2],
            whole: false,
        }
    }
}

impl Index {
    /// Bytes of `NOTE` records' texts an index keeps by default (64 MiB):
    /// the notes after them are left out, and a pointer to one of them is
    /// counted as not converted, so memory stays bounded whatever the input.
    pub const NOTE_BUDGET: usize = 64 << 20;

    /// Keeps at most `bytes` of `NOTE` records' texts (default
    /// [`Index::NOTE_BUDGET`]), the first in the document's order however
    /// the input is cut into batches.
    pub fn note_budget(mut self, bytes: usize) -> Self {
        self.note_budget = bytes;
        self
    }

    /// The batches [`Index::from_read`] reads on threads: 1 MiB. Most
    /// records are passed over, so a batch costs
    /// little to read and larger ones spend less in handing them over (on
    /// the 300 MB generated file at 2 jobs, the whole `gedcomx` export took
    /// 3.07 s with batches of 64 KiB and 2.96 s with these).
    pub const BATCH_BYTES: usize = 1 << 20;

    /// The batches per thread [`Index::read`] keeps in flight
    /// ([`StreamReader::ahead`]): 3. A batch of individuals costs little
    /// to read, one of sources much more, and they are merged in order;
    /// with more in flight, the threads go on while one is held up. On the
    /// 300 MB generated file at 2 jobs, with the export's stream read as
    /// far ahead ([`export::AHEAD`](super::export::AHEAD)), the whole
    /// `gedcomx` export was about 3% faster (its median wall time x0.93 to
    /// x0.99 that of one per thread, in five groups of 12 to 16 alternating
    /// rounds).
    pub const AHEAD: usize = 3;

    /// An empty index.
    pub fn new() -> Self {
        Index::default()
    }

    /// Reads `input` (whole records, from its start) on `jobs` threads
    /// ([`StreamReader::for_each`], in batches of [`Index::BATCH_BYTES`],
    /// [`Index::AHEAD`] per thread in flight) and gathers its index. The reader's diagnostics are not kept: the
    /// second pass, which maps, gives them. `input` is read straight into
    /// the stream's buffer: it needs no `BufReader`.
    ///
    /// # Errors
    /// A reading error that ends the input (an I/O error, too many
    /// diagnostics under a strict configuration).
    pub fn from_read<R: Read>(input: R, config: ReaderConfig, jobs: usize) -> Result<Self, Error> {
        Index::new().read(input, config, jobs, Some(Index::BATCH_BYTES))
    }

    /// As [`Index::from_read`], adding to this index (with its
    /// [`note_budget`](Index::note_budget)), in batches of `batch_bytes`
    /// when given ([`StreamReader::batch_bytes`]), [`Index::AHEAD`] per
    /// thread in flight.
    ///
    /// # Errors
    /// As [`Index::from_read`].
    pub fn read<R: Read>(
        mut self,
        input: R,
        config: ReaderConfig,
        jobs: usize,
        batch_bytes: Option<usize>,
    ) -> Result<Self, Error> {
        let mut stream = StreamReader::with_config(input, config)
            .jobs(jobs.max(1))
            .ahead(Index::AHEAD);
        if let Some(n) = batch_bytes {
            stream = stream.batch_bytes(n);
        }
        let budget = self.note_budget;
        let index = &mut self;
        stream.for_each(
            |reader| {
                let mut part = Index::new().note_budget(budget);
                part.scan(reader)?;
                Ok(part)
            },
            |part, _| {
                index.merge(part);
                Ok(())
            },
        )?;
        self.resolve_repositories();
        self.whole = true;
        Ok(self)
    }

    /// Puts each source's repository name among its elements, in its row,
    /// when the index holds the name (a source whose repository has none
    /// yet keeps its pointer, resolved as it is asked for): then
    /// [`Index::source_elements`] lends the same elements instead of making
    /// them. A repository's name, once held, never changes (the
    /// first `NAME` of the first record of an id). The elements have room
    /// for the name ([`Index::end_source`]): nothing is moved to make it.
    fn resolve_repositories(&mut self) {
        let repositories = &self.repositories;
        for source in self.sources.values_mut() {
            let Some((at, repository)) = &source.repository else {
                continue;
            };
            let Some(name) = repositories.get(repository.as_bytes()) else {
                continue;
            };
            let element = repository_element(name);
            source.elements.insert(*at, element);
            source.repository = None;
        }
    }

    /// Adds what the records `reader` reads hold: a reader of a whole
    /// input, or of part of one, is read event by event to its end.
    ///
    /// A batch of a [`StreamReader`] (what [`Index::read`] gives it) is
    /// not read whole: of its records, only those the index looks into are
    /// read, each run of them one after another by a reader of its own;
    /// the others are passed over at the cost of finding where they end
    /// (by the rule that cuts batches). Those read are the `REPO`, `SOUR`
    /// and `NOTE` records, and the `INDI` records that hold the octets
    /// `PEDI` (a `PEDI` line holds them; most individuals have none; the
    /// batch is searched for them once). The index is the same either way.
    ///
    /// # Errors
    /// The reader's (of the records read).
    pub fn scan(&mut self, reader: &mut Reader<'_>) -> Result<(), Error> {
        let Some(chunk) = reader.unread_chunk() else {
            return self.scan_events(reader);
        };
        let UnreadChunk {
            window,
            start,
            mut line,
            base,
            template,
        } = chunk;
        let mut pedi = memchr::memmem::find_iter(&window[start..], b"PEDI")
            .map(|k| start + k)
            .peekable();
        // Lines are counted up to a run read, not over each record passed.
        let (mut at, mut counted) = (start, start);
        // The run of records to read, from its start to where it ends so far.
        let mut run: Option<(usize, usize)> = None;
        let mut read_run = |index: &mut Index, (from, to): (usize, usize)| {
            line += count_breaks(&window[counted..from]);
            counted = from;
            let mut state = template.clone();
            state.next_line = line;
            index.scan_events(&mut Reader::resume(window, from, to, state, base))
        };
        let ends = record_starts(window, start).chain(std::iter::once(window.len()));
        for next in ends {
            if next <= at {
                break;
            }
            // Whether the record holds `PEDI` (which holds no line break,
            // so no record ends inside it).
            let mut has_pedi = false;
            while pedi.next_if(|&k| k < next).is_some() {
                has_pedi = true;
            }
            match looked_into(&window[at..next], has_pedi) {
                Look::Read => {
                    run = Some((run.map_or(at, |(from, _)| from), next));
                }
                Look::Pass(k) => {
                    if let Some(k) = k {
                        self.records[k] += 1;
                    }
                    if let Some(r) = run.take() {
                        read_run(self, r)?;
                    }
                }
            }
            at = next;
        }
        if let Some(r) = run {
            read_run(self, r)?;
        }
        Ok(())
    }

    /// [`Index::scan`] of every event.
    fn scan_events(&mut self, reader: &mut Reader<'_>) -> Result<(), Error> {
        // The record being read (only the kinds the index looks into, with
        // an xref_id) and, in a source record, the tags down to the
        // structure just begun.
        let mut record: Option<(Kind, String)> = None;
        let mut path: Vec<String> = Vec::new();
        let mut family: Option<String> = None;
        let mut source = Source::default();
        let mut found: Vec<(usize, CitationElement)> = Vec::new();
        while let Some(event) = reader.next_event()? {
            let Event::Begin(b) = event else {
                continue;
            };
            let level = b.level as usize;
            if level == 0 {
                self.end_source(&record, &mut source, &mut found);
                if let Some(k) = RECORD_TAGS.iter().position(|t| *t == b.tag) {
                    self.records[k] += 1;
                }
                let kind = match b.tag.as_ref() {
                    "INDI" => Some(Kind::Person),
                    "REPO" => Some(Kind::Repository),
                    "SOUR" => Some(Kind::Source),
                    "NOTE" => Some(Kind::Note),
                    _ => None,
                };
                record = kind.zip(b.xref.as_ref().map(|x| xref_id(&x.to_str_lossy())));
                if let Some((Kind::Note, id)) = &record {
                    let text = b.value.as_ref().and_then(|v| v.as_text()).map(|p| p.text());
                    if let Some(t) = value_text(text) {
                        self.keep_note(id, t);
                    }
                }
                path.clear();
                family = None;
                continue;
            }
            let Some((kind, id)) = &record else {
                continue;
            };
            let text = || value_text(b.value.as_ref().and_then(|v| v.as_text()).map(|p| p.text()));
            match (kind, level) {
                (Kind::Person, 1) => {
                    family = match b.tag.as_ref() {
                        "FAMC" => b.pointer().map(|p| xref_id(&p.to_str_lossy())),
                        _ => None,
                    };
                }
                (Kind::Person, 2) if b.tag == "PEDI" => {
                    let fact = text()
                        .and_then(|t| Pedigree::parse(&t).ok())
                        .and_then(pedigree_fact);
                    if let (Some(fact), Some(f)) = (fact, &family) {
                        self.pedigrees
                            .entry(id_key(f))
                            .or_default()
                            .entry(id_key(id))
                            .or_default()
                            .push((fact, b.line));
                    }
                }
                (Kind::Repository, 1) if b.tag == "NAME" => {
                    if let Some(t) = text() {
                        self.repositories.entry(id_key(id)).or_insert(t);
                    }
                }
                (Kind::Source, _) => {
                    path.truncate(level - 1);
                    path.push(b.tag.to_string());
                    let joined = path.join(".");
                    if joined == "REPO" && source.repository.is_none() {
                        if let Some(p) = b.pointer() {
                            let id = xref_id(&p.to_str_lossy());
                            source.repository = Some((repository_row(), id));
                        }
                    }
                    let row = CITATION_ELEMENTS.iter().position(|(p, _)| *p == joined);
                    if let (Some(row), Some(t)) = (row, text()) {
                        let (_, name) = CITATION_ELEMENTS[row];
                        found.push((row, CitationElement::new(name, t)));
                    }
                }
                _ => {}
            }
        }
        self.end_source(&record, &mut source, &mut found);
        Ok(())
    }

    /// Keeps the source record just read (the first of its id).
    fn end_source(
        &mut self,
        record: &Option<(Kind, String)>,
        source: &mut Source,
        found: &mut Vec<(usize, CitationElement)>,
    ) {
        let mut taken = std::mem::take(source);
        let mut elements = std::mem::take(found);
        let Some((Kind::Source, id)) = record else {
            return;
        };
        if self.sources.contains_key(id.as_bytes()) {
            return;
        }
        // The table's order, each row's in the document's (a stable sort).
        elements.sort_by_key(|(row, _)| *row);
        if let Some((row, _)) = &mut taken.repository {
            *row = elements.iter().filter(|(r, _)| *r < *row).count();
        }
        // Room for the repository's name, put in later.
        let room = usize::from(taken.repository.is_some());
        taken.elements = Vec::with_capacity(elements.len() + room);
        taken.elements.extend(elements.into_iter().map(|(_, e)| e));
        self.insert_source(id_key(id), taken);
    }

    /// Adds what `later` (the index of the records after these) holds.
    pub fn merge(&mut self, later: Index) {
        for (ours, theirs) in self.records.iter_mut().zip(later.records) {
            *ours += theirs;
        }
        for (family, children) in later.pedigrees {
            let ours = self.pedigrees.entry(family).or_default();
            for (child, mut facts) in children {
                ours.entry(child).or_default().append(&mut facts);
            }
        }
        for (id, name) in later.repositories {
            self.repositories.entry(id).or_insert(name);
        }
        let mut sources = later.sources;
        for id in later.source_ids {
            if let Some(source) = sources.remove(&id) {
                if !self.sources.contains_key(&id) {
                    self.insert_source(id, source);
                }
            }
        }
        let mut notes = later.notes;
        for id in later.note_order {
            if let Some(text) = notes.remove(id.as_bytes()) {
                self.keep_note(&id, text);
            }
        }
    }

    /// Keeps a source record (the first of its id), numbered next.
    fn insert_source(&mut self, id: Id, mut source: Source) {
        source.ordinal = u32::try_from(self.source_ids.len()).unwrap_or(u32::MAX);
        self.source_ids.push(id.clone());
        self.sources.insert(id, source);
    }

    /// Keeps a note record's text, the first of its id, within the budget.
    fn keep_note(&mut self, id: &str, text: String) {
        if self.notes.contains_key(id.as_bytes()) || self.note_bytes + text.len() > self.note_budget
        {
            return;
        }
        self.note_bytes += text.len();
        self.notes.insert(id_key(id), text);
        self.note_order.push(id.to_string());
    }

    /// How many records of each of [`RECORD_TAGS`] the input has (the
    /// level-0 lines the reader reads as such), when the index was read
    /// from the input's start to its end ([`Index::read`]).
    pub(crate) fn records(&self) -> Option<[u64; 2]> {
        self.whole.then_some(self.records)
    }

    /// This index with its counts unknown, as if not read whole (for
    /// tests of what the counts change).
    #[cfg(test)]
    pub(crate) fn without_counts(mut self) -> Self {
        self.whole = false;
        self
    }

    /// The text of the note record `id`, if the index kept it (see
    /// [`Index::NOTE_BUDGET`]).
    pub fn note(&self, id: &str) -> Option<&str> {
        self.notes.get(id.as_bytes()).map(String::as_str)
    }

    /// The `FAMC.PEDI` facts of `child` in `family` (ids as
    /// [`xref_id`] makes them): fact type names and lines.
    pub fn pedigree(&self, family: &str, child: &str) -> &[(&'static str, u64)] {
        self.pedigrees
            .get(family.as_bytes())
            .and_then(|children| children.get(child.as_bytes()))
            .map_or(&[], Vec::as_slice)
    }

    /// Every `FAMC.PEDI` fact: (family id, child id), fact type, line; sorted.
    pub fn pedigrees(&self) -> Vec<((&str, &str), &'static str, u64)> {
        let mut all: Vec<_> = self
            .pedigrees
            .iter()
            .flat_map(|(family, children)| {
                children.iter().flat_map(move |(child, facts)| {
                    facts
                        .iter()
                        .map(move |(f, l)| ((id_text(family), id_text(child)), *f, *l))
                })
            })
            .collect();
        all.sort();
        all
    }

    /// The name of the repository `id`, if it has one.
    pub fn repository_name(&self, id: &str) -> Option<&str> {
        self.repositories.get(id.as_bytes()).map(String::as_str)
    }

    /// The citation elements of the source record `id` (none when there is
    /// no such record): its own, in [`CITATION_ELEMENTS`]' order, with its
    /// repository's name in its row. Borrowed once the index is whole
    /// ([`Index::from_read`] put the repositories' names among the
    /// elements).
    pub fn source_elements(&self, id: &str) -> Cow<'_, [CitationElement]> {
        self.source(id)
            .map_or(Cow::Borrowed(&[]), |(_, elements)| elements)
    }

    /// The source record `id`'s elements ([`Index::source_elements`]) and
    /// its number in this index (what [`Index::source_at`] takes; none
    /// past `u32::MAX - 1` sources), if the index holds it.
    pub(crate) fn source(&self, id: &str) -> Option<(Option<u32>, Cow<'_, [CitationElement]>)> {
        let source = self.sources.get(id.as_bytes())?;
        let ordinal = Some(source.ordinal).filter(|&k| k != u32::MAX);
        Some((ordinal, self.elements_of(source)))
    }

    /// The id and the elements of the source numbered `ordinal`
    /// ([`Index::source`]).
    pub(crate) fn source_at(&self, ordinal: u32) -> Option<(&str, Cow<'_, [CitationElement]>)> {
        let id = self.source_ids.get(usize::try_from(ordinal).ok()?)?;
        let source = self.sources.get(id)?;
        Some((id_text(id), self.elements_of(source)))
    }

    /// A source's elements with its repository's name in its row.
    fn elements_of<'a>(&'a self, source: &'a Source) -> Cow<'a, [CitationElement]> {
        let Some((at, repo)) = &source.repository else {
            return Cow::Borrowed(&source.elements);
        };
        let name = self.repository_name(repo).map(|name| (*at, name));
        let mut elements = Vec::with_capacity(source.elements.len() + 1);
        let (at, rest) = match name {
            Some((at, _)) => source.elements.split_at(at),
            None => (&source.elements[..], &[][..]),
        };
        elements.extend_from_slice(at);
        if let Some((_, name)) = name {
            elements.push(repository_element(name));
        }
        elements.extend_from_slice(rest);
        Cow::Owned(elements)
    }
}

/// What [`Index::scan`] does with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Look {
    /// Reads it.
    Read,
    /// Passes over it, a record of [`RECORD_TAGS`] (its row) or another.
    Pass(Option<usize>),
}

/// Whether the index looks into `record` (the octets of one, from its
/// level-0 line, blank lines before it aside): a `REPO`, `SOUR` or `NOTE`,
/// an `INDI` that holds `PEDI` (`pedi`: the record holds the octets), or a
/// first line that does not parse (the reader judges it).
fn looked_into(record: &[u8], pedi: bool) -> Look {
    let tag = match plain_record_tag(record) {
        Some(tag) => tag,
        None => {
            let Some(first) = Lines::new(record).next() else {
                return Look::Pass(None);
            };
            match parse_line(first.text) {
                Ok(l) if l.level == 0 => l.tag,
                _ => return Look::Read,
            }
        }
    };
    match tag {
        b"REPO" | b"SOUR" | b"NOTE" => Look::Read,
        b"INDI" if pedi => Look::Read,
        tag => Look::Pass(RECORD_TAGS.iter().position(|t| t.as_bytes() == tag)),
    }
}

/// The row of [`CITATION_ELEMENTS`] that holds the repository's name.
pub(crate) fn repository_row() -> usize {
    CITATION_ELEMENTS
        .iter()
        .position(|(path, _)| *path == THROUGH_REPOSITORY)
        .unwrap_or(CITATION_ELEMENTS.len())
}

/// The citation element of a repository's name.
pub(crate) fn repository_element(name: &str) -> CitationElement {
    let (_, element) = CITATION_ELEMENTS[repository_row()];
    CitationElement::new(element, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index read as a whole (every event of one reader) and the index
    /// read in batches, of whose records only some are read: the same, at
    /// every batch size, on the repository's corpus and on records that
    /// put the record cutter to the test (blank lines, leading white space,
    /// CR and CRLF line breaks, a `PEDI` that is not a tag, a bad line).
    #[test]
    fn batches_read_in_part_give_the_index_of_the_whole() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged")) {
                inputs.push(std::fs::read(&p).unwrap());
            }
        }
        let mut made = String::from("0 HEAD\n1 CHAR UTF-8\n");
        for i in 0..30 {
            made.push_str(&format!(
                "0 @I{i}@ INDI\n1 NOTE no PEDI here\n1 FAMC @F{}@\n2 PEDI adopted\n\n  \
                 0 @F{i}@ FAM\n1 CHIL @I{i}@\n\
                 0 @S{i}@ SOUR\n1 TITL T{i}\n2 CONC  more\n1 REPO @R{}@\n2 CALN {i}\n\
                 \t0 @R{i}@ REPO\n1 NAME R{i}\n0 @N{i}@ NOTE n{i}\n1 CONT m\n\
                 0 @I{}@ INDI\n1 FAMC @F{i}@\n2 PEDI foster\nbad line\n",
                i % 4,
                (i + 1) % 30,
                100 + i
            ));
        }
        made.push_str("0 TRLR\n");
        inputs.push(made.clone().into_bytes());
        inputs.push(made.replace('\n', "\r\n").into_bytes());
        inputs.push(made.replace('\n', "\r").into_bytes());
        let mut compared = 0;
        for input in &inputs {
            let mut whole = Index::new();
            let mut reader = Reader::with_config(input, ReaderConfig::new());
            if whole.scan(&mut reader).is_err() {
                continue;
            }
            whole.resolve_repositories();
            whole.whole = true;
            for (jobs, batch) in [(1, 1), (2, 7), (2, 64), (1, 4096)] {
                let cut = Index::new()
                    .read(&input[..], ReaderConfig::new(), jobs, Some(batch))
                    .unwrap();
                assert!(cut == whole, "{jobs} {batch}: {cut:?} {whole:?}");
            }
            // The records counted are the tree's records of those tags.
            let mut records = [0; 2];
            for r in crate::tree::Records::with_config(&input[..], ReaderConfig::new()) {
                let Ok(r) = r else { break };
                if let Some(k) = RECORD_TAGS.iter().position(|t| *t == r.root().tag()) {
                    records[k] += 1;
                }
            }
            assert_eq!(whole.records(), Some(records));
            compared += 1;
        }
        assert!(compared > 50, "{compared}");
        // The made input has what the index holds (20 lines a round, after
        // the two of the HEAD).
        let index = Index::from_read(made.as_bytes(), ReaderConfig::new(), 2).unwrap();
        assert_eq!(index.pedigree("F1", "I1"), [(gx!("AdoptiveParent"), 26)]);
        assert_eq!(index.pedigree("F1", "I101"), [(gx!("FosterParent"), 41)]);
        assert_eq!(index.source_elements("S3").len(), 3);
        assert_eq!(index.note("N29"), Some("n29\nm"));
        assert_eq!(index.records(), Some([60, 30]));
        assert_eq!(Index::new().records(), None);
    }

    #[test]
    fn the_note_budget_keeps_the_first_notes_however_the_input_is_cut() {
        let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n");
        for i in 0..40 {
            // Ten bytes of text each, ids out of order, some ids twice.
            input.push_str(&format!("0 @N{}@ NOTE note {i:05}\n", (i * 7) % 37));
        }
        input.push_str("0 TRLR\n");
        let kept = |jobs: usize, batch: usize| {
            let index = Index::new()
                .note_budget(95)
                .read(input.as_bytes(), ReaderConfig::new(), jobs, Some(batch))
                .unwrap();
            let mut texts: Vec<(String, String)> = index
                .notes
                .iter()
                .map(|(k, v)| (id_text(k).to_string(), v.clone()))
                .collect();
            texts.sort();
            (index.note_order.clone(), texts)
        };
        let one = kept(1, 1 << 16);
        // Nine notes of ten bytes fit in 95: the first nine, in order.
        let first: Vec<String> = (0..9).map(|i| format!("N{}", (i * 7) % 37)).collect();
        assert_eq!(one.0, first);
        for (jobs, batch) in [(1, 1), (2, 1), (2, 40), (3, 100), (8, 7)] {
            assert_eq!(kept(jobs, batch), one, "{jobs} {batch}");
        }
    }
}
