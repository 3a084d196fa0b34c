//! One GEDCOM X document written record by record, in bounded memory.
//!
//! A document lists its persons, then its relationships, source
//! descriptions, agents, documents and places, while a GEDCOM file mixes its
//! records. [`Export`] writes persons straight to the output and each other
//! section to a [`Spool`] of its own (a temporary file, or memory), then
//! appends the spools in order at [`Export::finish`]. Once the index says
//! that no record left can add to the sections before one (no `INDI` left,
//! for relationships; no `INDI` and no `FAM`, for source descriptions),
//! that section's spool is appended and the section goes on straight to
//! the output: a file of individuals, then families, then sources spools
//! little more than the citations' descriptions, in compact output with
//! each source's part of them written once (the `splice` module):
//! the parts are put in place as the spool is appended. Memory holds the
//! written sections of the batches being mapped (a few, each about 64 KiB
//! of input, [`Export::stream`]; each item is written as the mapping makes
//! it), whatever the input's size.

use std::io::{self, Read, Seek, SeekFrom, Write};

use super::emit::{Json, Node, Xml};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::index::{Index, RECORD_TAGS};
use super::map::{reason, Item, Items, Mapper, NotConverted};
use super::splice::Splicer;
use super::view::{CitationView, CoupleView, ParentChildView, PersonView};
use super::{Format, Options, CEV, GEDCOMX};
use crate::read::Reader;
use crate::stream::StreamReader;
use crate::tree::{NodeRef, Schema, Tree};
use crate::Diagnostic;

/// Where a section waits for its turn: written once, then read back once.
pub trait Spool: Write {
    /// Copies everything written so far to `out`.
    ///
    /// # Errors
    /// Reading the spool or writing `out`.
    fn copy_to(&mut self, out: &mut dyn Write) -> io::Result<()>;
}

impl Spool for Vec<u8> {
    fn copy_to(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self)
    }
}

impl Spool for std::fs::File {
    fn copy_to(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.flush()?;
        self.seek(SeekFrom::Start(0))?;
        let mut buf = vec![0; 1 << 16];
        loop {
            match self.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => out.write_all(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Spool for io::BufWriter<std::fs::File> {
    fn copy_to(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.flush()?;
        self.get_mut().copy_to(out)
    }
}

/// The sections after persons, in document order: (JSON member, XML element).
const SPOOLED: [(&str, &str); 5] = [
    ("relationships", "relationship"),
    ("sourceDescriptions", "sourceDescription"),
    ("agents", "agent"),
    ("documents", "document"),
    ("places", "place"),
];

/// The batch size [`Export::stream`] reads best with (256 KiB; set it with
/// [`StreamReader::batch_bytes`]): on the 300 MB generated file at two
/// jobs, 4% faster than the stream's default of 64 KiB (fewer groups to
/// hand over and absorb), slower again from 1 MiB, with the same peak
/// memory. The document does not depend on it.
pub const BATCH_BYTES: usize = 256 << 10;

/// The batches per thread [`Export::stream`] reads best with in flight
/// (3; set it with [`StreamReader::ahead`]): a group of individuals with
/// many citations takes longer to map than the next, and groups are
/// absorbed in order; with more in flight, the threads go on while one is
/// held up. On the 300 MB generated file at 2 jobs, with the index read as
/// far ahead ([`Index::AHEAD`]), about 3% faster than one per thread
/// (x0.93 to x0.99 in five groups of 12 to 16 alternating rounds), for
/// 8 MB more peak memory. The document does not depend on it.
pub const AHEAD: usize = 3;

/// How records are mapped and written: the options and the input's
/// [`Index`], shared by every thread that maps. Each call of
/// [`Mapping::map`] maps a group of records into a [`Mapped`], on any
/// thread; [`Export::absorb`] takes the groups in document order. The
/// document is the same however the records are grouped.
#[derive(Clone, Debug, Default)]
pub struct Mapping {
    options: Options,
    index: Arc<Index>,
    /// Section buffers [`Export::absorb`] gave back, emptied, for the next
    /// groups to write into: they grow in the first groups, not in each.
    spare: Arc<Mutex<Vec<Sections>>>,
}

/// A group's written items: persons, then the spooled sections
/// ([`SPOOLED`]).
type Sections = [Vec<u8>; 6];

/// The source descriptions' place in [`Sections`].
const SOURCES: usize = 2;

/// Sets of section buffers [`Mapping`] keeps for reuse (more than the
/// groups in flight at once).
const SPARE: usize = 16;

/// A group of records mapped and written ([`Mapping::map`]), waiting to
/// be absorbed in order ([`Export::absorb`]).
#[derive(Debug, Default)]
pub struct Mapped {
    /// Persons, then the spooled sections ([`SPOOLED`]), written; in JSON
    /// each item begins with a comma (the first item of a section drops
    /// it).
    sections: Sections,
    counts: [u64; 6],
    /// The places described: id, name and coordinates (to tell two places
    /// of one id apart), written.
    places: Vec<(String, PlaceKey, Vec<u8>)>,
    /// The `HEAD`'s attribution and language (the first record only).
    head: Vec<Item>,
    report: NotConverted,
    /// The `FAMC.PEDI` facts families took.
    used: Vec<(String, String)>,
    /// The files media descriptions are about (`OBJE.FILE`), in order.
    media: Vec<String>,
    /// The records of [`RECORD_TAGS`] mapped.
    records: [u64; 2],
    /// The source descriptions hold markers of their sources' parts
    /// ([`splice`](super::splice)).
    spliced: bool,
}

/// A place's name and the bits of its latitude and longitude.
type PlaceKey = (String, u64, u64);

impl Mapping {
    /// A mapping with `options`, borrowing from other records through
    /// `index` (the index of the whole input).
    pub fn new(options: Options, index: Arc<Index>) -> Self {
        Mapping {
            options,
            index,
            spare: Arc::default(),
        }
    }

    /// Buffers for a group's sections: given back ones, or new ones.
    fn sections(&self) -> Sections {
        let spare = self.spare.lock().map(|mut s| s.pop());
        if let Ok(Some(sections)) = spare {
            return sections;
        }
        let mut sections = Sections::default();
        // Persons take most of a document: room for them at once.
        sections[0].reserve(1 << 17);
        sections
    }

    /// Keeps a group's section buffers, emptied, for another group.
    fn give_back(&self, mut sections: Sections) {
        for s in &mut sections {
            s.clear();
        }
        if let Ok(mut spare) = self.spare.lock() {
            if spare.len() < SPARE {
                spare.push(sections);
            }
        }
    }

    /// Maps `records` and writes their items. `first`: the group begins
    /// the input (its first record may be the `HEAD`, whose attribution
    /// and language begin the document).
    pub fn map<'a>(&self, records: impl IntoIterator<Item = NodeRef<'a>>, first: bool) -> Mapped {
        let mut mapper =
            Mapper::new(self.index.clone()).keep_extensions(self.options.keep_extensions);
        if !first {
            mapper = mapper.after_first();
        }
        let mut mapped = Mapped {
            sections: self.sections(),
            ..Mapped::default()
        };
        let mut writing = Writing {
            mapping: self,
            mapped: &mut mapped,
        };
        for record in records {
            let tag = record.tag();
            if let Some(k) = RECORD_TAGS.iter().position(|t| *t == tag) {
                writing.mapped.records[k] += 1;
            }
            mapper.map_into(record, &mut writing);
        }
        mapped.used = mapper.take_used();
        mapped.report = mapper.finish();
        mapped
    }

    /// Writes `node` at the end of `out`, a section: in JSON, a comma and
    /// the object; in XML, the element `xml`.
    fn emit<N: Node>(&self, out: &mut Vec<u8>, xml: &str, node: &N) {
        let pretty = self.options.pretty;
        // Writing to a Vec cannot fail.
        let _ = if self.options.format == Format::Json {
            out.push(b',');
            if pretty {
                out.extend_from_slice(b"\n    ");
            }
            Json::new(out, pretty, 2).object(node)
        } else {
            Xml::new(out, pretty, 1).element(xml, node)
        };
    }

    /// Writes `item` into its section of `mapped`.
    fn write(&self, item: Item, mapped: &mut Mapped) {
        let mut place = Vec::new();
        let (out, n): (&mut Vec<u8>, Option<usize>) = match &item {
            Item::Attribution(_) | Item::Lang(_) => {
                mapped.head.push(item);
                return;
            }
            Item::Place(_) => (&mut place, None),
            Item::Person(_) => (&mut mapped.sections[0], Some(0)),
            Item::Relationship(_) => (&mut mapped.sections[1], Some(1)),
            Item::SourceDescription(d) => {
                if let Some(about) = &d.about {
                    mapped.media.push(about.clone());
                }
                (&mut mapped.sections[2], Some(2))
            }
            Item::Agent(_) => (&mut mapped.sections[3], Some(3)),
            Item::Document(_) => (&mut mapped.sections[4], Some(4)),
        };
        match &item {
            Item::Person(p) => self.emit(out, "person", p),
            Item::Relationship(r) => self.emit(out, "relationship", r),
            Item::SourceDescription(s) => self.emit(out, "sourceDescription", s),
            Item::Agent(a) => self.emit(out, "agent", a),
            Item::Document(d) => self.emit(out, "document", d),
            Item::Place(p) => self.emit(out, "place", p),
            Item::Attribution(_) | Item::Lang(_) => {}
        }
        match (n, item) {
            (Some(n), _) => mapped.counts[n] += 1,
            (None, Item::Place(p)) => {
                let name = p.names.first().map(|t| t.value.clone()).unwrap_or_default();
                let bits = |c: Option<f64>| c.unwrap_or_default().to_bits();
                let key = (name, bits(p.latitude), bits(p.longitude));
                mapped.places.push((p.id, key, place));
            }
            (None, _) => {}
        }
    }
}

/// A group's items written as they are mapped, in their sections.
struct Writing<'a> {
    mapping: &'a Mapping,
    mapped: &'a mut Mapped,
}

impl Writing<'_> {
    /// Writes `node` in section `n` (of [`Sections`]), its XML element
    /// named `xml`.
    fn section<N: Node>(&mut self, n: usize, xml: &str, node: &N) {
        self.mapping.emit(&mut self.mapped.sections[n], xml, node);
        self.mapped.counts[n] += 1;
    }
}

impl Items for Writing<'_> {
    fn item(&mut self, item: Item) {
        self.mapping.write(item, self.mapped);
    }

    fn person(&mut self, person: &mut PersonView<'_>) {
        self.section(0, "person", &*person);
    }

    fn citation(&mut self, mut description: CitationView<'_>) {
        if self.mapping.options.pretty {
            // Markers are for compact output only.
            description.ordinal = None;
        }
        self.mapped.spliced |= description.ordinal.is_some();
        self.section(SOURCES, "sourceDescription", &description);
    }

    fn couple(&mut self, relationship: CoupleView<'_>) {
        self.section(1, "relationship", &relationship);
    }

    fn parent_child(&mut self, relationship: ParentChildView<'_>) {
        self.section(1, "relationship", &relationship);
    }
}

/// A GEDCOM X document written record by record to `W`, its later
/// sections spooled in `S`.
///
/// ```
/// use std::sync::Arc;
/// use gedcom_elf::gedcomx::{Export, Format, Index, Options};
/// use gedcom_elf::tree::Records;
///
/// let input: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 SEX F\n0 TRLR\n";
/// let index = Arc::new(Index::from_read(input, Default::default(), 1)?);
/// let mut out = Vec::new();
/// let mut export = Export::new(&mut out, Options::default(), index, Vec::new)?;
/// for record in Records::new(input) {
///     export.record(record?.root())?;
/// }
/// let not_converted = export.finish()?;
/// assert_eq!(not_converted.total(), 1); // HEAD.CHAR: it describes the file
/// let json = String::from_utf8(out).unwrap();
/// assert!(json.starts_with(r#"{"persons":[{"id":"I1","gender":{"type":"http://gedcomx.org/Female"}"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Export<W: Write, S: Spool> {
    out: W,
    mapping: Mapping,
    /// The spooled sections and how many items each holds.
    spools: Vec<(S, u64)>,
    /// Persons written.
    persons: u64,
    /// Records (groups) absorbed.
    groups: u64,
    /// The document's start (and its attribution) written.
    started: bool,
    attribution: Option<super::Attribution>,
    lang: Option<String>,
    report: NotConverted,
    /// The places described: id to name and coordinates.
    places: HashMap<String, PlaceKey>,
    /// The files media descriptions are about, each once, in order.
    media: Vec<String>,
    media_seen: HashSet<String>,
    /// The `FAMC.PEDI` facts families took.
    used: HashSet<(String, String)>,
    /// The section written straight to the output (of [`Sections`]; 0:
    /// persons): those before it are whole and written, those after it
    /// spooled. A later section's array begins with its first item.
    frontier: usize,
    /// The records of [`RECORD_TAGS`] not yet absorbed, when the index
    /// knows the input's ([`Index::records`]).
    left: Option<[u64; 2]>,
    /// Copies a spool to the end of the output ([`Export::append_with`]).
    append: Append<W, S>,
    /// Puts the sources' parts in place of their markers in the source
    /// descriptions.
    splicer: Splicer,
    /// The source descriptions' spool holds markers.
    spool_spliced: bool,
}

/// How a spool is copied to the end of the output: all that was written
/// to it, after what the document wrote there before.
pub type Append<W, S> = fn(&mut S, &mut W) -> io::Result<()>;

impl<W: Write, S: Spool> Export<W, S> {
    /// A document to `out`, borrowing from other records through `index`
    /// (the whole input's, [`Index::from_read`]), its sections after
    /// persons in spools made by `spool` (five of them, made here). The
    /// index's counts of `INDI` and `FAM` records tell when relationships
    /// and source descriptions may go straight to `out`; an index of
    /// another input can make [`Export::absorb`] fail.
    ///
    /// # Errors
    /// Making a spool.
    pub fn new(
        out: W,
        options: Options,
        index: Arc<Index>,
        mut spool: impl FnMut() -> S,
    ) -> io::Result<Self> {
        Export::try_new(out, options, index, || Ok(spool()))
    }

    /// As [`Export::new`], with spools that may fail to be made
    /// (temporary files).
    ///
    /// # Errors
    /// Making a spool.
    pub fn try_new(
        out: W,
        options: Options,
        index: Arc<Index>,
        mut spool: impl FnMut() -> io::Result<S>,
    ) -> io::Result<Self> {
        let spools = (0..SPOOLED.len())
            .map(|_| spool().map(|s| (s, 0)))
            .collect::<io::Result<_>>()?;
        let xml = options.format == Format::Xml;
        Ok(Export {
            out,
            splicer: Splicer::new(index.clone(), xml),
            spool_spliced: false,
            left: index.records(),
            frontier: 0,
            mapping: Mapping::new(options, index),
            spools,
            persons: 0,
            groups: 0,
            started: false,
            attribution: None,
            lang: None,
            report: NotConverted::default(),
            places: HashMap::new(),
            media: Vec::new(),
            media_seen: HashSet::new(),
            used: HashSet::new(),
            append: |spool, out| spool.copy_to(out),
        })
    }

    /// Copies each spool to the output with `append` instead of
    /// [`Spool::copy_to`] (through [`Write`], the default): for the
    /// kernel's copy from a temporary file to the output file or pipe
    /// (`std::io::copy` between files), when a section's spool is
    /// appended as it goes straight to the output and at the end. The
    /// source descriptions' spool of compact output, which holds
    /// references to its sources' parts, is read through
    /// [`Spool::copy_to`] whatever `append` is, the parts put in place by
    /// vectored writes.
    #[must_use]
    pub fn append_with(mut self, append: Append<W, S>) -> Self {
        self.append = append;
        self
    }

    /// The mapping, to map groups of records on other threads
    /// ([`Mapping::map`]) for [`Export::absorb`].
    pub fn mapping(&self) -> &Mapping {
        &self.mapping
    }

    /// What was not converted so far.
    pub fn not_converted(&self) -> &NotConverted {
        &self.report
    }

    /// The files the media descriptions written so far are about (their
    /// `about`, from `OBJE.FILE`), each once, in the
    /// order first met: what a `.gedx` may carry
    /// ([`select_media`](super::gedx::select_media)).
    pub fn media(&self) -> &[String] {
        &self.media
    }

    /// Maps one record (see the mapping in [the module docs](super)) and
    /// writes what it gives: [`Mapping::map`] and [`Export::absorb`].
    ///
    /// # Errors
    /// Writing the output or a spool.
    pub fn record(&mut self, record: NodeRef<'_>) -> io::Result<()> {
        let mapped = self.mapping.map([record], self.groups == 0);
        self.absorb(mapped)
    }

    /// Maps every record of `stream` (from its start: no batch read yet)
    /// on its [`jobs`](StreamReader::jobs)
    /// threads (it reads best with batches of [`BATCH_BYTES`], [`AHEAD`]
    /// per thread in flight) and absorbs them in order: each batch is read into a tree of
    /// its own ([`Tree::build_piece`]) and mapped on the thread that reads
    /// it, so the document is the same at every number of jobs and batch
    /// size. The HEAD's batch is read here first (the document's schema and
    /// its first record). `diagnostics` hears the reader's diagnostics, in
    /// document order, as they come.
    ///
    /// # Errors
    /// The first reading error (the records read whole before it are
    /// written), or a write error.
    pub fn stream<R: Read>(
        &mut self,
        stream: &mut StreamReader<R>,
        mut diagnostics: impl FnMut(Vec<Diagnostic>),
    ) -> Result<(), super::ExportError> {
        use super::ExportError::{Read as ReadFailed, Write as WriteFailed};
        let mut buf = Vec::new();
        let Some(mut batch) = stream.read_batch_into(&mut buf).map_err(ReadFailed)? else {
            diagnostics(stream.drain_diagnostics().collect());
            return Ok(());
        };
        let Some(reader) = batch.reader_mut() else {
            diagnostics(batch.drain_diagnostics().collect());
            return Ok(());
        };
        let schema = Schema::from_reader(reader.clone()).map_err(ReadFailed)?;
        let first = self.groups == 0;
        let (tree, failed) = Tree::build_piece(reader, &schema, first);
        let mapped = self.mapping.map(tree.records(), first);
        drop(tree);
        diagnostics(batch.drain_diagnostics().collect());
        drop(batch);
        self.absorb(mapped).map_err(WriteFailed)?;
        if let Some(e) = failed {
            return Err(ReadFailed(e));
        }
        let mapping = self.mapping.clone();
        let work = |reader: &mut Reader<'_>| {
            let (tree, failed) = Tree::build_piece(reader, &schema, false);
            Ok((mapping.map(tree.records(), false), failed))
        };
        // A write error waits here while a stand-in stops the reading.
        let mut write_failed = None;
        let read = stream.for_each(work, |(mapped, failed), ds| {
            diagnostics(ds);
            if let Err(e) = self.absorb(mapped) {
                write_failed = Some(e);
                return Err(crate::Error::from(io::Error::other("output failed")));
            }
            failed.map_or(Ok(()), Err)
        });
        match (read, write_failed) {
            (_, Some(e)) => Err(WriteFailed(e)),
            (Err(e), None) => Err(ReadFailed(e)),
            (Ok(summary), None) => {
                diagnostics(summary.diagnostics);
                Ok(())
            }
        }
    }

    /// Writes a group of records mapped by [`Mapping::map`] (with `first`
    /// set for the group that begins the input, and only for it); groups
    /// are absorbed in document order.
    ///
    /// # Errors
    /// Writing the output or a spool; `InvalidData` for an item of a
    /// section already written whole (the index is another input's: it
    /// counted fewer `INDI` or `FAM` records than come).
    pub fn absorb(&mut self, mapped: Mapped) -> io::Result<()> {
        self.groups += 1;
        for item in mapped.head {
            match item {
                Item::Lang(l) => self.lang = Some(l),
                Item::Attribution(a) => self.attribution = Some(a),
                _ => {}
            }
        }
        self.report.merge(mapped.report);
        self.used.extend(mapped.used);
        for about in mapped.media {
            if self.media_seen.insert(about.clone()) {
                self.media.push(about);
            }
        }
        let json = self.mapping.options.format == Format::Json;
        let Mapped {
            sections,
            counts,
            places,
            records,
            spliced,
            ..
        } = mapped;
        for (i, (bytes, n)) in sections.iter().zip(counts).enumerate() {
            if n == 0 {
                continue;
            }
            self.start()?;
            if i < self.frontier {
                let name = i.checked_sub(1).map_or("persons", |k| SPOOLED[k].0);
                let message = format!(
                    "an item of a section already written ({name}): the index is not this input's"
                );
                return Err(io::Error::new(io::ErrorKind::InvalidData, message));
            }
            if i == self.frontier && i > 0 && self.spools[i - 1].1 == 0 {
                self.begin_section(i)?;
            }
            // Source descriptions with markers, written to the output.
            let splice = spliced && i == SOURCES;
            let (out, total): (&mut dyn Write, &mut u64) = match i {
                0 => (&mut self.out, &mut self.persons),
                _ if i == self.frontier => (&mut self.out, &mut self.spools[i - 1].1),
                _ => {
                    self.spool_spliced |= splice;
                    let (s, total) = &mut self.spools[i - 1];
                    (s, total)
                }
            };
            // A section's first item has no comma before it.
            let skip = usize::from(json && *total == 0);
            match (splice, i == self.frontier) {
                (true, true) => {
                    self.splicer.resolve(&bytes[skip..])?;
                    self.splicer.write_resolved(out)?;
                }
                (true, false) => {
                    // The parts this writer will need, made while the
                    // threads that map are busy, not after them.
                    self.splicer.resolve(&bytes[skip..])?;
                    out.write_all(self.splicer.resolved())?;
                }
                (false, _) => out.write_all(&bytes[skip..])?,
            }
            *total += n;
        }
        self.mapping.give_back(sections);
        for (id, key, bytes) in places {
            match self.places.get(&id) {
                Some(seen) if *seen == key => continue,
                // Two places of one id (a 64-bit hash's collision): the
                // second's description is not written.
                Some(_) => {
                    self.report
                        .add(format!("PLAC.MAP {id}"), reason::PLACE_ID, 0);
                    continue;
                }
                None => {}
            }
            self.start()?;
            let (spool, total) = &mut self.spools[4];
            let skip = usize::from(json && *total == 0);
            spool.write_all(&bytes[skip..])?;
            *total += 1;
            self.places.insert(id, key);
        }
        if let Some(left) = &mut self.left {
            for (l, n) in left.iter_mut().zip(records) {
                *l = l.saturating_sub(n);
            }
        }
        self.advance()
    }

    /// Moves the straight section on while the index says no record left
    /// can add to it: persons and relationships take items of one record
    /// each (`INDI`, `FAM`), the later sections of any record.
    fn advance(&mut self) -> io::Result<()> {
        let Some(left) = self.left else {
            return Ok(());
        };
        while self.frontier < RECORD_TAGS.len() && left[..=self.frontier].iter().all(|&n| n == 0) {
            self.start()?;
            self.end_straight()?;
            self.frontier += 1;
            if self.spools[self.frontier - 1].1 > 0 {
                self.begin_section(self.frontier)?;
                self.append_spool(self.frontier)?;
            }
        }
        Ok(())
    }

    /// Appends section `k`'s spool to the output (`k` after persons): with
    /// [`Export::append_with`]'s function, or through the splicer when it
    /// holds markers.
    fn append_spool(&mut self, k: usize) -> io::Result<()> {
        let spool = &mut self.spools[k - 1].0;
        if k == SOURCES && self.spool_spliced {
            spool.copy_to(&mut self.splicer.to(&mut self.out))?;
            return self.splicer.end();
        }
        (self.append)(spool, &mut self.out)
    }

    /// Begins section `k`'s array (JSON; `k` after persons).
    fn begin_section(&mut self, k: usize) -> io::Result<()> {
        if self.mapping.options.format != Format::Json {
            return Ok(());
        }
        let name = SPOOLED[k - 1].0;
        match self.mapping.options.pretty {
            true => write!(self.out, ",\n  \"{name}\": ["),
            false => write!(self.out, ",\"{name}\":["),
        }
    }

    /// Ends a section's array of `items` (JSON).
    fn end_section(&mut self, items: u64) -> io::Result<()> {
        if self.mapping.options.format != Format::Json {
            return Ok(());
        }
        let pretty = self.mapping.options.pretty;
        self.out
            .write_all(if pretty && items > 0 { b"\n  ]" } else { b"]" })
    }

    /// Ends the straight section: persons' array even when empty (simpler,
    /// and valid), a later one's when it has begun.
    fn end_straight(&mut self) -> io::Result<()> {
        match self.frontier {
            0 => self.end_section(self.persons),
            k if self.spools[k - 1].1 > 0 => self.end_section(self.spools[k - 1].1),
            _ => Ok(()),
        }
    }

    /// Writes the document's start and attribution, once, before the
    /// first item.
    fn start(&mut self) -> io::Result<()> {
        if std::mem::replace(&mut self.started, true) {
            return Ok(());
        }
        let pretty = self.mapping.options.pretty;
        let attribution = self.attribution.take().filter(|a| !a.is_empty());
        let lang = self.lang.take();
        match self.mapping.options.format {
            Format::Json => {
                self.out.write_all(b"{")?;
                if let Some(l) = &lang {
                    self.out.write_all(if pretty {
                        b"\n  \"lang\": "
                    } else {
                        b"\"lang\":"
                    })?;
                    crate::escape::json_string(&mut self.out, l)?;
                    self.out.write_all(b",")?;
                }
                if let Some(a) = &attribution {
                    self.out.write_all(if pretty {
                        b"\n  \"attribution\": "
                    } else {
                        b"\"attribution\":"
                    })?;
                    let mut json = Vec::new();
                    Json::new(&mut json, pretty, 1).object(a)?;
                    self.out.write_all(&json)?;
                    self.out.write_all(b",")?;
                }
                self.out.write_all(if pretty {
                    b"\n  \"persons\": ["
                } else {
                    b"\"persons\":["
                })
            }
            Format::Xml => {
                self.out
                    .write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")?;
                write!(self.out, "<gedcomx xmlns=\"{GEDCOMX}\" xmlns:cev=\"{CEV}\"")?;
                if let Some(l) = &lang {
                    self.out.write_all(b" xml:lang=\"")?;
                    super::emit::xml_escaped(&mut self.out, l, true)?;
                    self.out.write_all(b"\"")?;
                }
                self.out.write_all(b">")?;
                if let Some(a) = &attribution {
                    Xml::new(&mut self.out, pretty, 1).element("attribution", a)?;
                }
                Ok(())
            }
        }
    }

    /// Writes the rest of the document (the spooled sections in order) and
    /// flushes the output; gives what was not converted.
    ///
    /// # Errors
    /// Writing the output, appending a spool.
    pub fn finish(mut self) -> io::Result<NotConverted> {
        self.start()?;
        let pretty = self.mapping.options.pretty;
        let json = self.mapping.options.format == Format::Json;
        self.end_straight()?;
        for k in self.frontier + 1..=SPOOLED.len() {
            let n = self.spools[k - 1].1;
            if n == 0 {
                continue;
            }
            self.begin_section(k)?;
            self.append_spool(k)?;
            self.end_section(n)?;
        }
        match (json, pretty) {
            (true, true) => self.out.write_all(b"\n}\n")?,
            (true, false) => self.out.write_all(b"}\n")?,
            (false, true) => self.out.write_all(b"\n</gedcomx>\n")?,
            (false, false) => self.out.write_all(b"</gedcomx>\n")?,
        }
        self.out.flush()?;
        // The `FAMC.PEDI` facts no family took.
        for ((family, child), _, line) in self.mapping.index.pedigrees() {
            if !self.used.contains(&(family.to_string(), child.to_string())) {
                self.report.add("INDI.FAMC.PEDI", reason::PEDIGREE, line);
            }
        }
        Ok(self.report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gedcomx::map::reason;
    use crate::tree::Records;
    use crate::ReaderConfig;

    fn export(input: &[u8], options: Options) -> (String, NotConverted) {
        let config = ReaderConfig::new().headless(true);
        let index = Index::from_read(input, config, 1).unwrap();
        let (out, report, _) = export_with(input, options, index).unwrap();
        (String::from_utf8(out).unwrap(), report)
    }

    /// A document exported with `index` (at one group a record), what was
    /// not converted, and the section written straight at the end.
    fn export_with(
        input: &[u8],
        options: Options,
        index: Index,
    ) -> io::Result<(Vec<u8>, NotConverted, usize)> {
        let mut out = Vec::new();
        let config = ReaderConfig::new().headless(true);
        let mut export = Export::new(&mut out, options, Arc::new(index), Vec::new)?;
        for record in Records::with_config(input, config) {
            export.record(record.unwrap().root())?;
        }
        let frontier = export.frontier;
        let report = export.finish()?;
        Ok((out, report, frontier))
    }

    /// Sections written straight once no record left can add to the ones
    /// before them give the document that spooling them all gives, in
    /// every format, whatever the records' order.
    #[test]
    fn sections_written_straight_are_the_spooled_document() {
        let head = "0 HEAD\n1 CHAR UTF-8\n";
        let indi =
            |i: u32| format!("0 @I{i}@ INDI\n1 NAME A /B{i}/\n1 BIRT\n2 SOUR @S1@\n3 PAGE p{i}\n");
        let fam =
            |i: u32| format!("0 @F{i}@ FAM\n1 HUSB @I{i}@\n1 WIFE @I9@\n1 CHIL @I8@\n1 MARR\n");
        let sour = |i: u32| format!("0 @S{i}@ SOUR\n1 TITL T{i}\n1 REPO @R1@\n");
        let rest = "0 @R1@ REPO\n1 NAME R\n0 @N1@ NOTE n\n";
        let orders: Vec<(String, usize)> = vec![
            // Individuals, families, sources: straight from the second
            // section on, then from the third.
            (
                format!(
                    "{head}{}{}{}{}{}{rest}0 TRLR\n",
                    indi(1),
                    indi(2),
                    fam(1),
                    fam(2),
                    sour(1)
                ),
                2,
            ),
            // A family among the individuals: relationships spooled first.
            (
                format!(
                    "{head}{}{}{}{}{}{rest}0 TRLR\n",
                    indi(1),
                    fam(1),
                    indi(2),
                    fam(2),
                    sour(1)
                ),
                2,
            ),
            // Sources first, then families, individuals last.
            (
                format!(
                    "{head}{}{rest}{}{}{}0 TRLR\n",
                    sour(1),
                    fam(1),
                    indi(1),
                    indi(2)
                ),
                2,
            ),
            // No family: straight to source descriptions after the last
            // individual.
            (
                format!("{head}{}{}{}{rest}0 TRLR\n", indi(1), sour(1), indi(2)),
                2,
            ),
            // No individual.
            (format!("{head}{}{}{rest}0 TRLR\n", fam(1), sour(1)), 2),
            (format!("{head}0 TRLR\n"), 2),
            // No trailer: the last record still closes its sections.
            (format!("{head}{}{}", indi(1), fam(1)), 2),
        ];
        let mut inputs: Vec<(Vec<u8>, Option<usize>)> = orders
            .into_iter()
            .map(|(s, f)| (s.into_bytes(), Some(f)))
            .collect();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged")) {
                inputs.push((std::fs::read(&p).unwrap(), None));
            }
        }
        let config = ReaderConfig::new().headless(true);
        let mut compared = 0;
        for (input, want_frontier) in &inputs {
            let Ok(index) = Index::from_read(&input[..], config.clone(), 1) else {
                continue;
            };
            for format in [Format::Json, Format::Xml] {
                for pretty in [false, true] {
                    let options = Options {
                        format,
                        pretty,
                        ..Options::default()
                    };
                    let (straight, _, frontier) =
                        export_with(input, options, index.clone()).unwrap();
                    let spooled = index.clone().without_counts();
                    let (all_spooled, _, none) = export_with(input, options, spooled).unwrap();
                    assert_eq!(none, 0);
                    if let Some(f) = want_frontier {
                        assert_eq!(frontier, *f);
                    }
                    assert!(
                        straight == all_spooled,
                        "{}\n{}",
                        String::from_utf8_lossy(&straight),
                        String::from_utf8_lossy(&all_spooled)
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 40, "{compared}");
    }

    /// A spool goes to the output through the export's `append`, when its
    /// section goes straight to the output and at the end: the same
    /// document as through [`Spool::copy_to`]. (Not the source
    /// descriptions' of compact output, which holds references to its
    /// sources' parts: through [`Spool::copy_to`], the parts put in place.)
    #[test]
    fn spools_are_appended_with_the_export_s_append() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        #[allow(clippy::ptr_arg)] // the spool's type, as `Append` has it
        fn counted(spool: &mut Vec<u8>, out: &mut &mut Vec<u8>) -> io::Result<()> {
            CALLS.fetch_add(1, Ordering::SeqCst);
            out.write_all(spool)
        }
        let input: &[u8] = b"0 HEAD\n0 @I1@ INDI\n1 SOUR @S1@\n2 PAGE p. 1\n0 @I2@ INDI\n\
            0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 @S1@ SOUR\n1 TITL T\n\
            0 @R1@ REPO\n1 NAME R\n0 TRLR\n";
        let config = ReaderConfig::new().headless(true);
        let index = Arc::new(Index::from_read(input, config.clone(), 1).unwrap());
        for (format, pretty) in [
            (Format::Json, true),
            (Format::Xml, true),
            (Format::Json, false),
        ] {
            let options = Options {
                format,
                pretty,
                ..Options::default()
            };
            CALLS.store(0, Ordering::SeqCst);
            let mut out = Vec::new();
            let mut appending = Export::new(&mut out, options, index.clone(), Vec::new)
                .unwrap()
                .append_with(counted);
            for record in Records::with_config(input, config.clone()) {
                appending.record(record.unwrap().root()).unwrap();
            }
            appending.finish().unwrap();
            // The citation's description once the families are written
            // (pretty), the repository's agent at the end.
            let calls = if pretty { 2 } else { 1 };
            assert_eq!(CALLS.load(Ordering::SeqCst), calls, "{format:?}");
            assert_eq!(String::from_utf8(out).unwrap(), export(input, options).0);
        }
    }

    /// An index of another input, whose last individual comes before this
    /// input's: an error, not a document with persons after relationships.
    #[test]
    fn an_index_of_another_input_is_an_error_not_a_broken_document() {
        let input =
            b"0 HEAD\n0 @I1@ INDI\n0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 @I2@ INDI\n0 TRLR\n";
        let other = b"0 HEAD\n0 @I1@ INDI\n0 TRLR\n";
        let index = Index::from_read(&other[..], ReaderConfig::new(), 1).unwrap();
        let e = export_with(input, Options::default(), index).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("not this input's"), "{e}");
    }

    #[test]
    fn sections_come_in_document_order_whatever_the_records_order() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n0 @R1@ REPO\n1 NAME R\n0 @S1@ SOUR\n1 TITL T\n\
                      0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 @I1@ INDI\n0 TRLR\n";
        let (json, _) = export(input, Options::default());
        let at = |key: &str| json.find(key).unwrap();
        assert!(at("\"persons\"") < at("\"relationships\""));
        assert!(at("\"relationships\"") < at("\"sourceDescriptions\""));
        assert!(at("\"sourceDescriptions\"") < at("\"agents\""));
        let xml_options = Options {
            format: Format::Xml,
            ..Options::default()
        };
        let (xml, _) = export(input, xml_options);
        let at = |key: &str| xml.find(key).unwrap();
        assert!(at("<person ") < at("<relationship "));
        assert!(at("<relationship ") < at("<sourceDescription "));
        assert!(at("<sourceDescription ") < at("<agent "));
    }

    #[test]
    fn a_pedigree_no_family_takes_is_counted_at_the_end() {
        // F1 lists I1 (its PEDI is a fact, though the family comes first);
        // F2 does not list I1, and F3 does not exist.
        let input = b"0 HEAD\n0 @F1@ FAM\n1 HUSB @I2@\n1 CHIL @I1@\n0 @F2@ FAM\n1 HUSB @I2@\n\
                      0 @I1@ INDI\n1 FAMC @F1@\n2 PEDI adopted\n1 FAMC @F2@\n2 PEDI foster\n\
                      1 FAMC @F3@\n2 PEDI birth\n0 TRLR\n";
        let (json, report) = export(input, Options::default());
        assert!(json.contains(r##""id":"F1.I2.I1","type":"http://gedcomx.org/ParentChild","person1":{"resource":"#I2"},"person2":{"resource":"#I1"},"facts":[{"type":"http://gedcomx.org/AdoptiveParent"}]"##), "{json}");
        let entries: Vec<_> = report
            .entries()
            .map(|s| (s.path, s.reason, s.lines.to_vec()))
            .collect();
        assert_eq!(
            entries,
            [("INDI.FAMC.PEDI", reason::PEDIGREE, vec![11, 13])]
        );
    }

    #[test]
    fn the_document_is_the_same_at_every_jobs_and_batch_size() {
        let mut input = String::from("0 HEAD\n1 SUBM @U1@\n1 LANG French\n0 @U1@ SUBM\n1 NAME U\n");
        for i in 0..200 {
            input.push_str(&format!(
                "0 @I{i}@ INDI\n1 NAME A{i} /B/\n1 BIRT\n2 PLAC P{}\n3 MAP\n4 LATI N1.{}\n4 LONG E2\n\
                 1 FAMC @F{}@\n2 PEDI adopted\n1 SOUR @S{}@\n2 PAGE p{i}\n1 _X x\n\
                 0 @F{i}@ FAM\n1 HUSB @I{}@\n1 WIFE @I{}@\n1 CHIL @I{}@\n\
                 0 @S{i}@ SOUR\n1 TITL T{i}\n1 REPO @R{}@\n0 @R{i}@ REPO\n1 NAME R{i}\n",
                i % 7, i % 5, (i + 3) % 200, (i + 9) % 200, i / 2, i / 3, (i + 1) % 200, i % 11
            ));
        }
        input.push_str("0 TRLR\n");
        for format in [Format::Json, Format::Xml] {
            for pretty in [false, true] {
                let options = Options {
                    format,
                    pretty,
                    keep_extensions: false,
                };
                let run = |jobs: usize, batch: usize| {
                    let index =
                        Index::from_read(input.as_bytes(), ReaderConfig::new(), jobs).unwrap();
                    let mut out = Vec::new();
                    let mut export =
                        Export::new(&mut out, options, Arc::new(index), Vec::new).unwrap();
                    let mut stream = StreamReader::new(input.as_bytes())
                        .jobs(jobs)
                        .ahead(jobs)
                        .batch_bytes(batch);
                    export.stream(&mut stream, |_| {}).unwrap();
                    let report = export.finish().unwrap();
                    (out, report)
                };
                let one = run(1, 1 << 16);
                assert!(one.1.total() > 0);
                for (jobs, group) in [(1, 1), (2, 1), (2, 300), (3, 4096), (8, 1 << 20)] {
                    assert!(
                        one == run(jobs, group),
                        "{format:?} {pretty} {jobs} {group}"
                    );
                }
            }
        }
    }

    /// Every record of `input`, mapped as the export maps it (items written
    /// as they are made, persons, citations' descriptions and parent-child
    /// relationships from views) and as `Mapper::map_record` maps it (the
    /// owned model), writes the same bytes in every section.
    fn items_are_written_as_the_model_writes_them(name: &str, input: &[u8]) {
        let config = ReaderConfig::new().headless(true);
        let index = Arc::new(Index::from_read(input, config.clone(), 1).unwrap());
        for format in [Format::Json, Format::Xml] {
            for (pretty, keep_extensions) in [(false, false), (true, false), (false, true)] {
                let options = Options {
                    format,
                    pretty,
                    keep_extensions,
                };
                let mapping = Mapping::new(options, index.clone());
                for (i, record) in Records::with_config(input, config.clone()).enumerate() {
                    let Ok(record) = record else { break };
                    let root = record.root();
                    let exported = mapping.map([root], i == 0);
                    let mut mapper = Mapper::new(index.clone()).keep_extensions(keep_extensions);
                    if i > 0 {
                        mapper = mapper.after_first();
                    }
                    let mut items = Vec::new();
                    mapper.map_record(root, &mut items);
                    let mut model = Mapped::default();
                    for item in items {
                        mapping.write(item, &mut model);
                    }
                    let at = format!("{name} line {} {format:?} {pretty}", root.line());
                    // Compact output's citations hold markers of their
                    // sources' parts: the parts put in their place.
                    let mut sections = exported.sections.clone();
                    if exported.spliced {
                        let mut splicer = Splicer::new(index.clone(), format == Format::Xml);
                        splicer.resolve(&exported.sections[SOURCES]).unwrap();
                        sections[SOURCES].clear();
                        splicer.write_resolved(&mut sections[SOURCES]).unwrap();
                    }
                    assert_eq!(sections, model.sections, "{at}");
                    assert_eq!(exported.counts, model.counts, "{at}");
                }
            }
        }
    }

    #[test]
    fn items_written_as_mapped_are_the_model_s_items() {
        // Every property of a fact, escapes and continuations (texts the
        // tree cannot lend), a second date and place, extensions.
        let input = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann /Lee/\n1 SEX F\n\
            1 BIRT\n2 DATE ABT 1900\n2 DATE 1901\n2 PLAC Here, There\n3 MAP\n4 LATI N1.5\n\
            4 LONG W2\n2 PLAC Again\n2 AGE 3y\n2 CAUS fe@@ver\n3 CONC ish\n2 RELI  \n\
            2 SOUR @S1@\n3 PAGE 4\n2 SOUR @S1@\n2 NOTE a note\n3 CONT on two lines\n2 _X y\n\
            1 DEAT Y\n1 OCCU Baker\n2 CONC y\n1 EVEN\n2 TYPE Fair\n2 DATE 3 MAR 1920\n\
            1 FACT blue\n2 TYPE Eyes\n1 RESI\n2 DATE BET 1900 AND 1910\n1 _Y z\n\
            0 @I2@ INDI\n1 BURI\n2 DATE 29 FEB 1901\n2 PLAC\n1 FAMC @F1@\n2 PEDI adopted\n\
            0 @S1@ SOUR\n1 TITL T\n0 TRLR\n";
        items_are_written_as_the_model_writes_them("facts", input.as_bytes());
        // Citations' descriptions (a source's and a repository's elements,
        // their own, notes, a transcription, an unknown source, a text
        // citation), families (a pedigree, extensions kept on the couple),
        // media, and the other records with extensions.
        let input = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 SOUR @S1@\n2 PAGE p. 3\n\
            2 DATA\n3 DATE 1 JAN 1900\n3 TEXT Born\n2 NOTE seen\n2 QUAY 2\n2 _X x\n\
            1 SOUR @S9@\n2 PAGE 9\n1 SOUR A bible\n2 NOTE old\n1 OBJE\n2 FILE a b.jpg\n3 FORM jpg\n\
            1 FAMC @F1@\n2 PEDI foster\n0 @I2@ INDI\n1 FAMS @F1@\n0 @I3@ INDI\n1 FAMS @F1@\n\
            0 @F1@ FAM\n1 HUSB @I2@\n1 WIFE @I3@\n1 CHIL @I1@\n1 CHIL @I4@\n1 MARR\n2 DATE 1890\n\
            2 SOUR @S1@\n3 PAGE 7\n1 _Y y\n1 NOTE n\n0 @F2@ FAM\n1 WIFE @I3@\n1 CHIL @I2@\n\
            1 DIV\n0 @S1@ SOUR\n1 AUTH Vicar\n1 TITL Register\n1 ABBR Reg\n1 PUBL Parish\n\
            1 REPO @R1@\n2 CALN 42\n1 TEXT words\n1 _Z z\n0 @R1@ REPO\n1 NAME Archives\n\
            0 @O1@ OBJE\n1 FILE c.png\n1 _W w\n0 @N1@ NOTE text\n1 _V v\n1 SOUR @S1@\n2 PAGE 1\n\
            0 TRLR\n";
        items_are_written_as_the_model_writes_them("items", input.as_bytes());
        let dirs = [
            concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"),
            concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"),
        ];
        let mut files = 0;
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let ged = path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("ged"));
                if let (true, Ok(bytes)) = (ged, std::fs::read(&path)) {
                    items_are_written_as_the_model_writes_them(&path.display().to_string(), &bytes);
                    files += 1;
                }
            }
        }
        assert!(files > 10, "{files} corpus files");
    }

    #[test]
    fn an_empty_document_is_still_one_document() {
        let (json, _) = export(b"0 HEAD\n0 TRLR\n", Options::default());
        assert_eq!(json, "{\"persons\":[]}\n");
        let xml_options = Options {
            format: Format::Xml,
            ..Options::default()
        };
        let (xml, _) = export(b"0 HEAD\n0 TRLR\n", xml_options);
        assert!(xml.ends_with("<gedcomx xmlns=\"http://gedcomx.org/v1/\" xmlns:cev=\"http://terms.fhiso.org/sources/\"></gedcomx>\n"));
    }

    #[test]
    fn the_head_s_language_is_the_document_s() {
        let input = b"0 HEAD\n1 LANG French\n0 @I1@ INDI\n0 TRLR\n";
        let (json, report) = export(input, Options::default());
        assert!(json.starts_with("{\"lang\":\"fr\",\"persons\":["), "{json}");
        assert!(report.is_empty());
        let xml_options = Options {
            format: Format::Xml,
            ..Options::default()
        };
        let (xml, _) = export(input, xml_options);
        assert!(
            xml.contains(" xml:lang=\"fr\"><person id=\"I1\"/>"),
            "{xml}"
        );
    }

    #[test]
    fn a_head_after_other_records_is_counted() {
        let (json, report) = export(
            b"0 @I1@ INDI\n0 HEAD\n1 SUBM @U1@\n0 TRLR\n",
            Options::default(),
        );
        assert!(!json.contains("attribution"));
        let entries: Vec<_> = report.entries().map(|s| (s.path, s.reason)).collect();
        assert_eq!(entries, [("HEAD", reason::LATE_HEAD)]);
    }
}
