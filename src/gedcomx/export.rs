//! One GEDCOM X document written record by record, in bounded memory.
//!
//! A document lists its persons, then its relationships, source
//! descriptions, agents, documents and places, while a GEDCOM file mixes its
//! records. [`Export`] writes persons straight to the output and each other
//! section to a [`Spool`] of its own (a temporary file, or memory), then
//! appends the spools in order at [`Export::finish`]. Memory holds one
//! record's items at a time, whatever the input's size.

use std::io::{self, Read, Seek, SeekFrom, Write};

use super::emit::{Json, Xml};
use super::map::{Item, Mapper, NotConverted};
use super::{Format, Options, CEV, GEDCOMX};
use crate::tree::NodeRef;

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

/// A GEDCOM X document written record by record to `W`, its later
/// sections spooled in `S`.
///
/// ```
/// use gedcom_elf::gedcomx::{Export, Format, Options};
/// use gedcom_elf::tree::Records;
///
/// let input: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ada /Lovelace/\n1 SEX F\n0 TRLR\n";
/// let mut out = Vec::new();
/// let mut export = Export::new(&mut out, Options::default(), Vec::new)?;
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
    options: Options,
    mapper: Mapper,
    items: Vec<Item>,
    /// The spooled sections and how many items each holds.
    spools: Vec<(S, u64)>,
    /// Persons written.
    persons: u64,
    /// The document's start (and its attribution) written.
    started: bool,
    attribution: Option<super::Attribution>,
    lang: Option<String>,
}

impl<W: Write, S: Spool> Export<W, S> {
    /// A document to `out`, its sections after persons in spools made by
    /// `spool` (five of them, made here).
    ///
    /// # Errors
    /// Making a spool.
    pub fn new(out: W, options: Options, mut spool: impl FnMut() -> S) -> io::Result<Self> {
        Export::try_new(out, options, || Ok(spool()))
    }

    /// As [`Export::new`], with spools that may fail to be made
    /// (temporary files).
    ///
    /// # Errors
    /// Making a spool.
    pub fn try_new(
        out: W,
        options: Options,
        mut spool: impl FnMut() -> io::Result<S>,
    ) -> io::Result<Self> {
        let spools = (0..SPOOLED.len())
            .map(|_| spool().map(|s| (s, 0)))
            .collect::<io::Result<_>>()?;
        Ok(Export {
            out,
            options,
            mapper: Mapper::new().keep_extensions(options.keep_extensions),
            items: Vec::new(),
            spools,
            persons: 0,
            started: false,
            attribution: None,
            lang: None,
        })
    }

    /// What was not converted so far.
    pub fn not_converted(&self) -> &NotConverted {
        self.mapper.not_converted()
    }

    /// Maps one record (see the mapping in [the module docs](super)) and
    /// writes what it gives.
    ///
    /// # Errors
    /// Writing the output or a spool.
    pub fn record(&mut self, record: NodeRef<'_>) -> io::Result<()> {
        let mut items = std::mem::take(&mut self.items);
        self.mapper.map_record(record, &mut items);
        for item in items.drain(..) {
            self.item(&item)?;
        }
        self.items = items;
        Ok(())
    }

    /// Writes one item to its section.
    fn item(&mut self, item: &Item) -> io::Result<()> {
        if let Item::Lang(l) = item {
            match self.started {
                false => self.lang = Some(l.clone()),
                true => self.mapper.report_late_head(),
            }
            return Ok(());
        }
        if let Item::Attribution(a) = item {
            match self.started {
                false => self.attribution = Some(a.clone()),
                // A HEAD after other records (a headless read): too late
                // for the document's start, and said so.
                true if !a.is_empty() => self.mapper.report_late_head(),
                true => {}
            }
            return Ok(());
        }
        self.start()?;
        let (json, pretty) = (self.options.format == Format::Json, self.options.pretty);
        let section = match item {
            Item::Person(_) | Item::Attribution(_) | Item::Lang(_) => None,
            Item::Relationship(_) => Some(0),
            Item::SourceDescription(_) => Some(1),
            Item::Agent(_) => Some(2),
            Item::Document(_) => Some(3),
            Item::Place(_) => Some(4),
        };
        let (out, n): (&mut dyn Write, &mut u64) = match section {
            None => (&mut self.out, &mut self.persons),
            Some(i) => {
                let (s, n) = &mut self.spools[i];
                (s, n)
            }
        };
        if json {
            if *n > 0 {
                out.write_all(b",")?;
            }
            if pretty {
                out.write_all(b"\n    ")?;
            }
            let mut e = Json::new(out, pretty, 2);
            match item {
                Item::Person(p) => e.object(p),
                Item::Relationship(r) => e.object(r),
                Item::SourceDescription(s) => e.object(s),
                Item::Agent(a) => e.object(a),
                Item::Document(d) => e.object(d),
                Item::Place(p) => e.object(p),
                Item::Attribution(a) => e.object(a),
                Item::Lang(_) => Ok(()),
            }?;
        } else {
            let mut e = Xml::new(out, pretty, 1);
            match item {
                Item::Person(p) => e.element("person", p),
                Item::Relationship(r) => e.element("relationship", r),
                Item::SourceDescription(s) => e.element("sourceDescription", s),
                Item::Agent(a) => e.element("agent", a),
                Item::Document(d) => e.element("document", d),
                Item::Place(p) => e.element("place", p),
                Item::Attribution(a) => e.element("attribution", a),
                Item::Lang(_) => Ok(()),
            }?;
        }
        *n += 1;
        Ok(())
    }

    /// Writes the document's start and attribution, once, before the
    /// first item.
    fn start(&mut self) -> io::Result<()> {
        if std::mem::replace(&mut self.started, true) {
            return Ok(());
        }
        let pretty = self.options.pretty;
        let attribution = self.attribution.take().filter(|a| !a.is_empty());
        let lang = self.lang.take();
        match self.options.format {
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
                    Json::new(&mut self.out, pretty, 1).object(a)?;
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
    /// Writing the output, reading a spool.
    pub fn finish(mut self) -> io::Result<NotConverted> {
        self.start()?;
        let pretty = self.options.pretty;
        let json = self.options.format == Format::Json;
        if json {
            // The persons' array (empty ones included: simpler, and valid).
            self.out.write_all(if pretty && self.persons > 0 {
                b"\n  ]"
            } else {
                b"]"
            })?;
        }
        for ((name, _), (spool, n)) in SPOOLED.iter().zip(&mut self.spools) {
            if *n == 0 {
                continue;
            }
            if json {
                match pretty {
                    true => write!(self.out, ",\n  \"{name}\": [")?,
                    false => write!(self.out, ",\"{name}\":[")?,
                }
                spool.copy_to(&mut self.out)?;
                self.out.write_all(if pretty { b"\n  ]" } else { b"]" })?;
            } else {
                spool.copy_to(&mut self.out)?;
            }
        }
        match (json, pretty) {
            (true, true) => self.out.write_all(b"\n}\n")?,
            (true, false) => self.out.write_all(b"}\n")?,
            (false, true) => self.out.write_all(b"\n</gedcomx>\n")?,
            (false, false) => self.out.write_all(b"</gedcomx>\n")?,
        }
        self.out.flush()?;
        Ok(self.mapper.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gedcomx::map::reason;
    use crate::tree::Records;
    use crate::ReaderConfig;

    fn export(input: &[u8], options: Options) -> (String, NotConverted) {
        let mut out = Vec::new();
        let mut export = Export::new(&mut out, options, Vec::new).unwrap();
        let config = ReaderConfig::new().headless(true);
        for record in Records::with_config(input, config) {
            export.record(record.unwrap().root()).unwrap();
        }
        let report = export.finish().unwrap();
        (String::from_utf8(out).unwrap(), report)
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
        assert_eq!(entries, [("HEAD.SUBM", reason::LATE_HEAD)]);
    }
}
