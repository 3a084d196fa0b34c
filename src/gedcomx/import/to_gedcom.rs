//! A document as GEDCOM records (the table is in [the module docs](super)),
//! written through [`Writer`] with the `HEAD.SCHMA` its extension tags
//! need.
//!
//! The document is indexed first (ids to xrefs, what each source
//! description becomes, the families), then the `HEAD` is written (its
//! `SCHMA` when an untyped identifier will be a `_UID`), then each record,
//! built as a [`Node`] and written at once. Issues name the item by its
//! JSON path (`persons[3].facts[0]`), whichever syntax was read.

use crate::escape::percent_decode;
use std::collections::{HashMap, HashSet};
use std::io::Write;

use super::{ImportError, Issue, IssueKind, Location};
use crate::gedcomx::gedx::MEDIA_TYPES;
use crate::gedcomx::map::{language_name, COUPLE_FACTS, PERSON_FACTS};
use crate::gedcomx::model::formatted_owned;
use crate::gedcomx::model::{
    Agent, Attribution, CitationElement, Date, Document, Fact, Gedcomx, Identifier, Name, NameForm,
    NamePart, Note, Person, PlaceReference, Qualifier, Relationship, SourceDescription,
    SourceReference,
};
use crate::gedcomx::table::{pedigree_fact, CITATION_ELEMENTS, THROUGH_REPOSITORY};
use crate::gedcomx::{ELF, GX};
use crate::tree::Schema;
use crate::value::{GedcomxDate, Name as GedcomName, Pedigree};
use crate::write::{HeadOptions, HeadSchema, IriDefinition, Node, Writer};

/// The structure type of `_UID`, the extension tag an untyped identifier
/// becomes: the GEDCOM X `Identifier` data type.
pub(crate) const UID_IRI: &str = "http://gedcomx.org/v1/Identifier";

/// What a source description becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A `SOUR` record.
    Source,
    /// An `OBJE` record.
    Media,
    /// An inline `OBJE` of the record its id starts with (`I1.m1`).
    InlineMedia,
    /// A citation of the record it is a component of, where referenced.
    Component,
    /// A text citation (`SOUR text`), where referenced (`I1.s2`).
    TextCitation,
}

/// One family: its xref, partners and children, in order.
#[derive(Default)]
struct Family {
    xref: String,
    /// The first relationship that names it (families are written in
    /// that order).
    first: usize,
    /// The relationship's index, for a couple.
    couple: Option<usize>,
    partners: Vec<String>,
    children: Vec<String>,
}

/// The state of the writing.
struct Cx<'d> {
    doc: &'d Gedcomx,
    issues: &'d mut Vec<Issue>,
    /// Record ids to xrefs (`@I1@`): the first item with the id.
    xrefs: HashMap<&'d str, String>,
    /// Each record's item (by its address) to its xref.
    own: HashMap<usize, String>,
    /// What each source description (by its address) becomes.
    roles: HashMap<usize, Role>,
    /// The descriptions written where they are referenced, once they were.
    referenced: HashSet<usize>,
    used_xrefs: HashSet<String>,
    persons: HashMap<&'d str, &'d Person>,
    descriptions: HashMap<&'d str, (&'d SourceDescription, Role)>,
    agents: HashMap<&'d str, &'d Agent>,
    places: HashMap<&'d str, usize>,
    /// Transcriptions by the id of the description they transcribe.
    texts: HashMap<&'d str, Vec<&'d Document>>,
    /// The ELF IRIs of `QUAY`, `EVEN` and `ROLE` in a citation.
    qualifiers: [(String, &'static str); 3],
    /// Identifier tags and the IRIs of their structure types.
    id_tags: Vec<(&'static str, Vec<String>)>,
}

/// The name the export gives the type of a structure `tag` where the
/// schema defines none.
fn undefined(tag: &str) -> String {
    format!("{ELF}Undefined#{tag}")
}

/// An item's address: which item it is, whatever its id.
fn address<T>(item: &T) -> usize {
    item as *const T as usize
}

/// The id a local reference (`#id`) names.
fn local(uri: &str) -> Option<&str> {
    uri.strip_prefix('#')
}

fn gx(name: &str) -> String {
    format!("{GX}{name}")
}

/// An id's xref content: `~XX` escapes (the export's) decoded.
fn id_text(id: &str) -> String {
    let b = id.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'~' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(v) = hex {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| id.to_string())
}

/// Whether `id` is one the export derives from its owner's (`I1.s2`):
/// the owner's id, `.`, `kind` and a number.
fn derived_from(id: &str, kind: char) -> Option<&str> {
    let (owner, tail) = id.rsplit_once('.')?;
    let n = tail.strip_prefix(kind)?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(owner)
}

/// A date as a `DATE` payload: the original, or the formal date in GEDCOM.
fn date_text(d: &Date) -> Option<String> {
    if let Some(o) = &d.original {
        return Some(o.clone());
    }
    let formal = GedcomxDate::parse(d.formal.as_deref()?).ok()?;
    Some(formal.to_date().to_string())
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

impl<'d> Cx<'d> {
    fn issue(&mut self, kind: IssueKind, at: &str, message: impl Into<String>) {
        self.issues.push(Issue {
            kind,
            at: Location::Item(at.to_string()),
            message: message.into(),
        });
    }

    fn not_imported(&mut self, at: &str, message: impl Into<String>) {
        self.issue(IssueKind::NotImported, at, message);
    }

    fn dangling(&mut self, at: &str, uri: &str) {
        let message = match local(uri) {
            Some(_) => format!("`{uri}` refers to nothing in the document: left out"),
            None => format!("`{uri}` refers outside the document: left out"),
        };
        self.issue(IssueKind::Dangling, at, message);
    }

    /// The xref of the record made of `item`, whose id is `id`: the id's
    /// when it can be one; a fresh `@Xn@` when it cannot, when the item has
    /// no id, or when an item before it has the same id (references go to
    /// that first one; the second is an issue).
    fn assign<T>(&mut self, item: &T, id: &'d str, at: &str) {
        let text = id_text(id);
        let mut xref = format!("@{text}@");
        let valid = !text.is_empty()
            && !text.contains(['\n', '\r'])
            && crate::scan::is_valid_xref(xref.as_bytes());
        let second = !id.is_empty() && self.xrefs.contains_key(id);
        if second {
            self.not_imported(
                &format!("{at}.id"),
                format!("a second item with the id `{id}`: references go to the first"),
            );
        }
        if !valid || second || self.used_xrefs.contains(&xref) {
            let mut n = self.used_xrefs.len() + 1;
            loop {
                xref = format!("@X{n}@");
                if !self.used_xrefs.contains(&xref) && !self.doc_has_id(&xref[1..xref.len() - 1]) {
                    break;
                }
                n += 1;
            }
        }
        self.used_xrefs.insert(xref.clone());
        if !id.is_empty() && !second {
            self.xrefs.insert(id, xref.clone());
        }
        self.own.insert(address(item), xref);
    }

    /// The xref [`Cx::assign`] gave `item`.
    fn own<T>(&self, item: &T) -> String {
        self.own.get(&address(item)).cloned().unwrap_or_default()
    }

    fn doc_has_id(&self, id: &str) -> bool {
        self.xrefs.contains_key(id)
            || self.persons.contains_key(id)
            || self.descriptions.contains_key(id)
            || self.agents.contains_key(id)
    }

    /// The xref of the record a reference names, if it names one.
    fn xref_of(&self, uri: &str) -> Option<String> {
        self.xrefs.get(local(uri)?).cloned()
    }

    /// A `NOTE` per note (its subject reported).
    fn notes(&mut self, notes: &[Note], at: &str, into: &mut Node) {
        for (i, n) in notes.iter().enumerate() {
            if n.subject.is_some() {
                self.not_imported(&format!("{at}.notes[{i}].subject"), "a note's subject");
            }
            into.children.push(Node::new("NOTE").text(n.text.clone()));
        }
    }

    /// `CHAN` from an attribution; its contributor reported.
    fn change(&mut self, a: &Attribution, at: &str, into: &mut Node) {
        if a.contributor.is_some() {
            self.not_imported(
                &format!("{at}.attribution.contributor"),
                "the contributor of a single item",
            );
        }
        let Some(t) = &a.modified else {
            if a.change_message.is_some() {
                self.not_imported(
                    &format!("{at}.attribution.changeMessage"),
                    "a change message with no time",
                );
            }
            return;
        };
        let (date, time) = t.date_time.split_once('T').unwrap_or((&t.date_time, ""));
        let mut parts = date.split('-');
        let (y, m, d) = (parts.next(), parts.next(), parts.next());
        let month = m
            .and_then(|m| m.parse::<usize>().ok())
            .and_then(|m| MONTHS.get(m.wrapping_sub(1)));
        let (Some(y), Some(month), Some(d)) = (y, month, d) else {
            self.not_imported(
                &format!("{at}.attribution.modified"),
                "a time not understood",
            );
            return;
        };
        let day = d.trim_start_matches('0');
        let mut date = Node::new("DATE").text(format!("{day} {month} {y}"));
        if !time.is_empty() {
            date.children.push(Node::new("TIME").text(time.to_string()));
        }
        let mut chan = Node::new("CHAN").child(date);
        if let Some(m) = &a.change_message {
            chan.children.push(Node::new("NOTE").text(m.clone()));
        }
        into.children.push(chan);
    }

    /// Identifiers of a record with tag `record`.
    fn identifiers(&mut self, ids: &[Identifier], record: &str, into: &mut Node) {
        for id in ids {
            let Some(kind) = &id.kind else {
                into.children.push(Node::new("_UID").text(id.value.clone()));
                continue;
            };
            let fits = |tag: &str| match tag {
                "AFN" => record == "INDI",
                "RFN" => matches!(record, "INDI" | "SUBM"),
                _ => true,
            };
            // Its structure type, or the export's name for a structure the
            // schema does not define (`elf:Undefined#RFN`).
            let tag = self
                .id_tags
                .iter()
                .find(|(t, iris)| {
                    fits(t) && (iris.iter().any(|i| i == kind) || *kind == undefined(t))
                })
                .map(|(t, _)| *t);
            match tag {
                Some(t) => into.children.push(Node::new(t).text(id.value.clone())),
                None => into.children.push(
                    Node::new("REFN")
                        .text(id.value.clone())
                        .child(Node::new("TYPE").text(kind.clone())),
                ),
            }
        }
    }

    /// Citations (`SOUR`) of source references.
    fn citations(&mut self, refs: &[SourceReference], at: &str, into: &mut Node) {
        for (i, r) in refs.iter().enumerate() {
            let at = format!("{at}.sources[{i}]");
            if let Some(n) = self.citation(r, &at) {
                into.children.push(n);
            }
        }
    }

    /// Qualifiers of a reference as `QUAY`, `EVEN`, `ROLE` under `node`.
    fn qualify(&mut self, qualifiers: &[Qualifier], at: &str, node: &mut Node) {
        for (i, q) in qualifiers.iter().enumerate() {
            let tag = self
                .qualifiers
                .iter()
                .find(|(iri, tag)| {
                    *iri == q.name || q.name == format!("{ELF}{tag}") || q.name == undefined(tag)
                })
                .map(|(_, t)| *t);
            let value = q.value.clone().unwrap_or_default();
            match tag {
                Some("ROLE") => match node.children.iter_mut().rev().find(|c| c.tag == "EVEN") {
                    Some(even) => even.children.push(Node::new("ROLE").text(value)),
                    None => self.not_imported(
                        &format!("{at}.qualifiers[{i}]"),
                        "a role with no event type before it",
                    ),
                },
                Some(t) => node.children.push(Node::new(t).text(value)),
                None => self.not_imported(
                    &format!("{at}.qualifiers[{i}]"),
                    format!("the qualifier `{}`", q.name),
                ),
            }
        }
    }

    /// One citation: a pointer to a source record, a component's citation
    /// of its record, or a text citation.
    fn citation(&mut self, r: &SourceReference, at: &str) -> Option<Node> {
        let Some(&(sd, role)) = local(&r.description).and_then(|id| self.descriptions.get(id))
        else {
            self.dangling(at, &r.description);
            return None;
        };
        let mut node = Node::new("SOUR");
        match role {
            Role::Source => {
                node = node.pointer(self.xref_of(&r.description)?);
            }
            Role::Component => {
                self.referenced.insert(address(sd));
                let of = sd.component_of.as_ref()?;
                let target = local(&of.description).and_then(|id| self.descriptions.get(id));
                let Some((_, Role::Source)) = target else {
                    self.dangling(at, &of.description);
                    return None;
                };
                node = node.pointer(self.xref_of(&of.description)?);
                self.component(sd, at, &mut node);
            }
            Role::TextCitation => {
                self.referenced.insert(address(sd));
                let value = sd.citations.first().map(|c| c.value.clone());
                node = node.text(value.unwrap_or_default());
                for t in self.texts.get(sd.id.as_str()).cloned().unwrap_or_default() {
                    node.children.push(Node::new("TEXT").text(t.text.clone()));
                }
                self.notes(&sd.notes, at, &mut node);
            }
            Role::Media | Role::InlineMedia => {
                self.not_imported(at, "a source reference to a media description");
                return None;
            }
        }
        self.qualify(&r.qualifiers, at, &mut node);
        Some(node)
    }

    /// What a component description adds to its citation: `PAGE`,
    /// `DATA` (`DATE`, `TEXT`), notes.
    fn component(&mut self, sd: &SourceDescription, at: &str, node: &mut Node) {
        let mut data = Node::new("DATA");
        let at = format!("{at} (the description {})", sd.id);
        if let Some(c) = sd.citations.first() {
            let target = sd.component_of.as_ref().and_then(|r| local(&r.description));
            let value = formatted_owned(&c.elements, target.unwrap_or_default());
            if c.value != value || c.lang.is_some() {
                self.not_imported(
                    &format!("{at}.citations[0]"),
                    "a citation's formatted value or language beyond its elements",
                );
            }
            // The record's elements, which the export repeats here: said by
            // the record already when it has the same.
            let record = target
                .and_then(|t| self.descriptions.get(t))
                .and_then(|(r, _)| r.citations.first())
                .map_or(&[][..], |rc| &rc.elements[..]);
            for (i, e) in c.elements.iter().enumerate() {
                match element_path(e) {
                    Some("PAGE") => node.children.push(Node::new("PAGE").text(e.value.clone())),
                    Some("DATA.DATE") => {
                        data.children.push(Node::new("DATE").text(e.value.clone()))
                    }
                    Some(_) if record.contains(e) => {}
                    _ => self.not_imported(
                        &format!("{at}.citations[0].elements[{i}]"),
                        format!("the citation element `{}` of a citation", e.name),
                    ),
                }
            }
        }
        for t in self.texts.get(sd.id.as_str()).cloned().unwrap_or_default() {
            data.children.push(Node::new("TEXT").text(t.text.clone()));
        }
        let page = node.children.iter().any(|c| c.tag == "PAGE");
        self.notes(&sd.notes, &at, node);
        // A citation that adds nothing still has a description of its own:
        // an empty DATA keeps it one.
        if !data.children.is_empty() || (!page && sd.notes.is_empty()) {
            node.children.push(data);
        }
    }

    /// A `DATE`, `PLAC` (with `MAP`) and the like for a fact.
    fn place(&mut self, p: &PlaceReference, at: &str) -> Option<Node> {
        let described = p.description.as_deref().map(|d| {
            let found = local(d).and_then(|id| self.places.get(id)).copied();
            (d, found)
        });
        let place = match described {
            Some((_, Some(i))) => Some(&self.doc.places[i]),
            Some((uri, None)) => {
                self.dangling(&format!("{at}.description"), uri);
                None
            }
            None => None,
        };
        let text = p.original.clone().or_else(|| {
            place
                .and_then(|pl| pl.names.first())
                .map(|n| n.value.clone())
        });
        let mut node = Node::new("PLAC");
        if let Some(t) = text {
            node = node.text(t);
        }
        if let Some(pl) = place {
            if let (Some(lat), Some(long)) = (pl.latitude, pl.longitude) {
                let ns = if lat < 0.0 { 'S' } else { 'N' };
                let ew = if long < 0.0 { 'W' } else { 'E' };
                node.children.push(
                    Node::new("MAP")
                        .child(Node::new("LATI").text(format!("{ns}{}", lat.abs())))
                        .child(Node::new("LONG").text(format!("{ew}{}", long.abs()))),
                );
            }
        }
        (node.value.is_some() || !node.children.is_empty()).then_some(node)
    }

    /// A fact as an event or attribute structure; `table` maps its type.
    fn fact(&mut self, f: &Fact, table: &[(&str, &str)], at: &str) -> Node {
        let known = table
            .iter()
            .find(|(_, t)| *t == f.kind)
            .map(|(tag, _)| *tag);
        let mut node;
        match known {
            Some(tag) => node = Node::new(tag),
            None => {
                let kind = match f.kind.strip_prefix("data:,") {
                    Some(text) => percent_decode(text),
                    None => f.kind.to_string(),
                };
                let tag = if f.value.is_some() { "FACT" } else { "EVEN" };
                node = Node::new(tag);
                if kind != tag {
                    node.children.push(Node::new("TYPE").text(kind));
                }
            }
        }
        if let Some(v) = &f.value {
            node = node.text(v.clone());
        }
        if let Some(d) = &f.date {
            if let Some(t) = date_text(d) {
                node.children.push(Node::new("DATE").text(t));
            }
        }
        if let Some(p) = &f.place {
            let p = self.place(p, &format!("{at}.place"));
            node.children.extend(p);
        }
        for (i, q) in f.qualifiers.iter().enumerate() {
            let tag = match q.name.strip_prefix(GX) {
                Some("Age") => "AGE",
                Some("Cause") => "CAUS",
                Some("Religion") => "RELI",
                _ => {
                    self.not_imported(
                        &format!("{at}.qualifiers[{i}]"),
                        format!("the fact qualifier `{}`", q.name),
                    );
                    continue;
                }
            };
            node.children
                .push(Node::new(tag).text(q.value.clone().unwrap_or_default()));
        }
        self.citations(&f.sources, at, &mut node);
        self.notes(&f.notes, at, &mut node);
        if node.value.is_none() && node.children.is_empty() {
            node = node.text("Y");
        }
        node
    }

    /// A name form as a `NAME` (or `ROMN`) payload and pieces.
    fn name_form(&mut self, tag: &str, form: &NameForm, at: &str) -> Node {
        let of = |kind: &str, particle: bool| -> Vec<&NamePart> {
            form.parts
                .iter()
                .filter(|p| {
                    p.kind.as_deref() == Some(&gx(kind))
                        && p.qualifiers.iter().any(|q| q.name == gx("Particle")) == particle
                })
                .collect()
        };
        let join = |parts: &[&NamePart], sep: &str| {
            parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(sep)
        };
        let surname_parts: Vec<&NamePart> = form
            .parts
            .iter()
            .filter(|p| p.kind.as_deref() == Some(&gx("Surname")))
            .collect();
        let surname = join(&surname_parts, " ");
        let payload = match &form.full_text {
            Some(full) if !surname.is_empty() => match full.rfind(&surname) {
                Some(i) => format!("{}/{surname}/{}", &full[..i], &full[i + surname.len()..]),
                None => full.clone(),
            },
            Some(full) => full.clone(),
            None => {
                let given = join(&of("Given", false), " ");
                let suffix = join(&of("Suffix", false), " ");
                let mut s = given;
                if !surname.is_empty() {
                    if !s.is_empty() {
                        s.push(' ');
                    }
                    s.push_str(&format!("/{surname}/"));
                }
                if !suffix.is_empty() {
                    if !s.is_empty() {
                        s.push(' ');
                    }
                    s.push_str(&suffix);
                }
                s
            }
        };
        let mut node = Node::new(tag);
        if !payload.is_empty() {
            node = node.text(payload.clone());
        }
        // The parts the payload alone gives (as the export reads them).
        let (parsed, _) = GedcomName::parse_lenient(&payload);
        let mut implied = Vec::new();
        if !parsed.given.is_empty() {
            implied.push((gx("Given"), parsed.given.to_string()));
        }
        if let Some(s) = parsed.surname.as_deref().filter(|s| !s.is_empty()) {
            implied.push((gx("Surname"), s.to_string()));
        }
        if !parsed.suffix.is_empty() {
            implied.push((gx("Suffix"), parsed.suffix.to_string()));
        }
        let plain = form.parts.iter().all(|p| p.qualifiers.is_empty());
        let stated: Vec<(String, String)> = form
            .parts
            .iter()
            .map(|p| {
                (
                    p.kind.as_deref().unwrap_or_default().to_string(),
                    p.value.clone(),
                )
            })
            .collect();
        if !(plain && stated == implied) {
            for (piece, kind, particle) in [
                ("NPFX", "Prefix", false),
                ("GIVN", "Given", false),
                ("SPFX", "Surname", true),
                ("SURN", "Surname", false),
                ("NSFX", "Suffix", false),
            ] {
                let parts = of(kind, particle);
                if !parts.is_empty() {
                    node.children
                        .push(Node::new(piece).text(join(&parts, ", ")));
                }
            }
            for (i, p) in form.parts.iter().enumerate() {
                let known = ["Prefix", "Given", "Surname", "Suffix"]
                    .iter()
                    .any(|k| p.kind.as_deref() == Some(&gx(k)));
                let other_qualifier = p.qualifiers.iter().any(|q| q.name != gx("Particle"));
                if !known || other_qualifier {
                    self.not_imported(
                        &format!("{at}.parts[{i}]"),
                        "a name part of another type or qualifier",
                    );
                }
            }
        }
        node
    }

    /// The names of a person.
    fn names(&mut self, names: &[Name], at: &str, into: &mut Node) {
        for (i, n) in names.iter().enumerate() {
            let at = format!("{at}.names[{i}]");
            let nickname = n.kind.as_deref() == Some(&gx("Nickname"));
            let last_name = into.children.iter().rposition(|c| c.tag == "NAME");
            if nickname {
                let text = n.name_forms.first().and_then(|f| {
                    f.full_text.clone().or_else(|| {
                        let v: Vec<&str> = f.parts.iter().map(|p| p.value.as_str()).collect();
                        (!v.is_empty()).then(|| v.join(" "))
                    })
                });
                let nick = Node::new("NICK").text(text.unwrap_or_default());
                match last_name {
                    Some(j) => into.children[j].children.push(nick),
                    None => into.children.push(Node::new("NAME").child(nick)),
                }
                if n.name_forms.len() > 1 || !n.sources.is_empty() || !n.notes.is_empty() {
                    self.not_imported(&at, "a nickname's further forms, sources or notes");
                }
                continue;
            }
            let mut node = match n.name_forms.first() {
                Some(f) => {
                    let node = self.name_form("NAME", f, &format!("{at}.nameForms[0]"));
                    if f.lang.is_some() {
                        self.not_imported(&format!("{at}.nameForms[0].lang"), "a name's language");
                    }
                    node
                }
                None => Node::new("NAME"),
            };
            match n.kind.as_deref().and_then(|k| k.strip_prefix(GX)) {
                None => {}
                Some("BirthName") => node.children.push(Node::new("TYPE").text("birth")),
                Some("MarriedName") => node.children.push(Node::new("TYPE").text("married")),
                Some("AlsoKnownAs") => node.children.push(Node::new("TYPE").text("aka")),
                Some(_) => self.not_imported(&format!("{at}.type"), "a name type GEDCOM lacks"),
            }
            if n.kind.as_deref().is_some_and(|k| !k.starts_with(GX)) {
                self.not_imported(&format!("{at}.type"), "a name type GEDCOM lacks");
            }
            for (j, f) in n.name_forms.iter().enumerate().skip(1) {
                let mut romn = self.name_form("ROMN", f, &format!("{at}.nameForms[{j}]"));
                if let Some(l) = &f.lang {
                    romn.children.push(Node::new("TYPE").text(l.clone()));
                }
                node.children.push(romn);
            }
            self.citations(&n.sources, &at, &mut node);
            self.notes(&n.notes, &at, &mut node);
            into.children.push(node);
        }
    }

    /// A media reference: a pointer, or an inline `OBJE`.
    fn media(&mut self, refs: &[SourceReference], at: &str, into: &mut Node) {
        for (i, r) in refs.iter().enumerate() {
            let at = format!("{at}.media[{i}]");
            let found = local(&r.description).and_then(|id| self.descriptions.get(id));
            match found {
                Some(&(sd, Role::InlineMedia)) => {
                    self.referenced.insert(address(sd));
                    let node = self.media_node(sd, &at, Node::new("OBJE"));
                    into.children.push(node);
                }
                Some((_, Role::Media)) => {
                    if let Some(x) = self.xref_of(&r.description) {
                        into.children.push(Node::new("OBJE").pointer(x));
                    }
                }
                Some(_) => self.not_imported(&at, "a media reference to a source"),
                None => self.dangling(&at, &r.description),
            }
            if !r.qualifiers.is_empty() {
                self.not_imported(&at, "qualifiers of a media reference");
            }
        }
    }

    /// An `OBJE` (record or inline) from a media description.
    fn media_node(&mut self, sd: &SourceDescription, at: &str, mut node: Node) -> Node {
        let mut file = Node::new("FILE");
        if let Some(a) = &sd.about {
            file = file.text(percent_decode(a));
        }
        if let Some(t) = &sd.media_type {
            match MEDIA_TYPES
                .iter()
                .find(|(_, m, _)| m.eq_ignore_ascii_case(t))
            {
                Some((form, _, _)) => file.children.push(Node::new("FORM").text(*form)),
                None => self.not_imported(&format!("{at}.mediaType"), "a media type 5.5.1 lacks"),
            }
        }
        if let Some(t) = sd.titles.first() {
            file.children.push(Node::new("TITL").text(t.value.clone()));
        }
        node.children.push(file);
        self.notes(&sd.notes, at, &mut node);
        self.identifiers(&sd.identifiers, "OBJE", &mut node);
        self.change(&sd.attribution, at, &mut node);
        if sd.titles.len() > 1 || sd.component_of.is_some() || !sd.coverage.is_empty() {
            self.not_imported(
                at,
                "further titles, componentOf or coverage of a media file",
            );
        }
        node
    }

    /// A `SOUR` record.
    fn source(&mut self, sd: &'d SourceDescription, at: &str) -> Node {
        let mut node = Node::new("SOUR").xref(self.own(sd));
        let mut repo = Node::new("REPO");
        if let Some(r) = &sd.repository {
            match self
                .xref_of(r)
                .filter(|_| local(r).is_some_and(|id| self.agents.contains_key(id)))
            {
                Some(x) => repo = repo.pointer(x),
                None => self.dangling(&format!("{at}.repository"), r),
            }
        }
        let repo_name = sd
            .repository
            .as_deref()
            .and_then(local)
            .and_then(|id| self.agents.get(id))
            .and_then(|a| a.names.first())
            .map(|n| n.value.as_str());
        let citation = sd.citations.first();
        let elements: &[CitationElement] = citation.map_or(&[], |c| &c.elements);
        let mut titled = false;
        for (i, e) in elements.iter().enumerate() {
            let eat = format!("{at}.citations[0].elements[{i}]");
            if e.lang.is_some() || e.layer.is_some() {
                self.not_imported(&eat, "a citation element's language or layer");
            }
            match element_path(e) {
                Some("REPO.CALN") => repo.children.push(Node::new("CALN").text(e.value.clone())),
                // The repository's name: its record's NAME says it.
                Some(THROUGH_REPOSITORY) if repo_name == Some(e.value.as_str()) => {}
                Some(tag @ ("AUTH" | "TITL" | "ABBR" | "PUBL")) => {
                    titled |= tag == "TITL";
                    node.children.push(Node::new(tag).text(e.value.clone()));
                }
                _ => self.not_imported(
                    &eat,
                    format!("the citation element `{}` of a source record", e.name),
                ),
            }
        }
        // No title element: the title, or the formatted citation, as TITL.
        if !titled {
            let title = sd.titles.first().map(|t| t.value.clone());
            let title = title.or_else(|| {
                citation
                    .filter(|c| c.elements.is_empty() && !c.value.is_empty())
                    .map(|c| c.value.clone())
            });
            if let Some(t) = title {
                node.children.push(Node::new("TITL").text(t));
            }
        }
        if sd.titles.len() > 1 {
            self.not_imported(&format!("{at}.titles"), "titles after the first");
        }
        if sd.citations.len() > 1 {
            self.not_imported(&format!("{at}.citations"), "citations after the first");
        }
        if let Some(c) = citation {
            if c.lang.is_some() {
                self.not_imported(&format!("{at}.citations[0].lang"), "a citation's language");
            }
            // The formatted citation, when its elements do not say it all
            // (as TITL when there are no elements).
            let said = c.elements.is_empty() || c.value == formatted_owned(&c.elements, &sd.id);
            if !said {
                self.not_imported(
                    &format!("{at}.citations[0].value"),
                    "a formatted citation saying more than its elements",
                );
            }
        }
        if repo.value.is_some() || !repo.children.is_empty() {
            node.children.push(repo);
        }
        // Coverage: DATA.EVEN, the "Events recorded" descriptions their payloads.
        let mut recorded = sd
            .descriptions
            .iter()
            .filter_map(|d| d.value.strip_prefix("Events recorded: "));
        let mut data = Node::new("DATA");
        for c in &sd.coverage {
            let mut even = Node::new("EVEN");
            if let Some(events) = recorded.next() {
                even = even.text(events.to_string());
            }
            if let Some(t) = c.temporal.as_ref().and_then(date_text) {
                even.children.push(Node::new("DATE").text(t));
            }
            if let Some(p) = c.spatial.as_ref().and_then(|p| p.original.clone()) {
                even.children.push(Node::new("PLAC").text(p));
            }
            data.children.push(even);
        }
        let other = sd
            .descriptions
            .iter()
            .filter(|d| !d.value.starts_with("Events recorded: "))
            .count();
        if other > 0 || recorded.next().is_some() {
            self.not_imported(&format!("{at}.descriptions"), "a source's descriptions");
        }
        if !data.children.is_empty() {
            node.children.push(data);
        }
        for t in self.texts.get(sd.id.as_str()).cloned().unwrap_or_default() {
            node.children.push(Node::new("TEXT").text(t.text.clone()));
        }
        self.notes(&sd.notes, at, &mut node);
        self.identifiers(&sd.identifiers, "SOUR", &mut node);
        self.change(&sd.attribution, at, &mut node);
        if sd.about.is_some() {
            self.not_imported(&format!("{at}.about"), "the URI a source is about");
        }
        if sd.component_of.is_some() {
            self.not_imported(
                &format!("{at}.componentOf"),
                "a source record's componentOf",
            );
        }
        node
    }

    /// A `REPO` or `SUBM` record.
    fn agent(&mut self, a: &Agent, tag: &str, at: &str) -> Node {
        let mut node = Node::new(tag).xref(self.own(a));
        if let Some(n) = a.names.first() {
            node.children.push(Node::new("NAME").text(n.value.clone()));
        }
        if a.names.len() > 1 {
            self.not_imported(&format!("{at}.names"), "an agent's names after the first");
        }
        for ad in &a.addresses {
            let mut addr = Node::new("ADDR");
            if let Some(v) = &ad.value {
                addr = addr.text(v.clone());
            }
            let parts = [
                ("ADR1", &ad.street[0]),
                ("ADR2", &ad.street[1]),
                ("ADR3", &ad.street[2]),
                ("CITY", &ad.city),
                ("STAE", &ad.state_or_province),
                ("POST", &ad.postal_code),
                ("CTRY", &ad.country),
            ];
            for (t, v) in parts {
                if let Some(v) = v {
                    addr.children.push(Node::new(t).text(v.clone()));
                }
            }
            node.children.push(addr);
        }
        for (i, p) in a.phones.iter().enumerate() {
            match p.split_once(':') {
                Some(("tel", n)) => node
                    .children
                    .push(Node::new("PHON").text(percent_decode(n))),
                Some(("fax", n)) => node.children.push(Node::new("FAX").text(percent_decode(n))),
                _ => self.not_imported(&format!("{at}.phones[{i}]"), "a phone that is not tel:"),
            }
        }
        for (i, e) in a.emails.iter().enumerate() {
            match e.strip_prefix("mailto:") {
                Some(m) => node
                    .children
                    .push(Node::new("EMAIL").text(percent_decode(m))),
                None => self.not_imported(&format!("{at}.emails[{i}]"), "an email not mailto:"),
            }
        }
        if let Some(h) = &a.homepage {
            node.children.push(Node::new("WWW").text(h.clone()));
        }
        self.identifiers(&a.identifiers, tag, &mut node);
        node
    }
}

/// The GEDCOM path [`CITATION_ELEMENTS`] gives a citation element's name.
fn element_path(e: &CitationElement) -> Option<&'static str> {
    CITATION_ELEMENTS
        .iter()
        .find(|(_, name)| e.name == *name)
        .map(|(path, _)| *path)
}

/// The IRIs of the structure types `tag` has in `schema`.
fn type_iris(schema: &Schema, tag: &str) -> Vec<String> {
    let mut v: Vec<String> = schema
        .tag_definitions(tag)
        .map(|(_, t)| t.to_string())
        .collect();
    v.dedup();
    v
}

/// Writes `doc` (see [`super::to_gedcom()`]).
pub(super) fn write<W: Write>(
    doc: &Gedcomx,
    out: W,
    issues: &mut Vec<Issue>,
) -> Result<W, ImportError> {
    let schema = Schema::default_schema();
    let citation = format!("{ELF}SOURCE_CITATION");
    let cited = |sup: &str, tag: &str| {
        schema
            .type_of(sup, tag)
            .map_or_else(|| format!("{ELF}{tag}"), |t| t.iri().into_owned())
    };
    let even = cited(&citation, "EVEN");
    let qualifiers = [
        (cited(&citation, "QUAY"), "QUAY"),
        (even.clone(), "EVEN"),
        (cited(&even, "ROLE"), "ROLE"),
    ];
    let id_tags = ["REFN", "RIN", "AFN", "RFN"]
        .into_iter()
        .map(|t| (t, type_iris(&schema, t)))
        .collect();
    let mut cx = Cx {
        doc,
        issues,
        xrefs: HashMap::new(),
        own: HashMap::new(),
        roles: HashMap::new(),
        referenced: HashSet::new(),
        used_xrefs: HashSet::new(),
        persons: HashMap::new(),
        descriptions: HashMap::new(),
        agents: HashMap::new(),
        places: HashMap::new(),
        texts: HashMap::new(),
        qualifiers,
        id_tags,
    };
    index(&mut cx);
    let repositories: HashSet<&str> = doc
        .source_descriptions
        .iter()
        .filter_map(|sd| sd.repository.as_deref().and_then(local))
        .collect();
    // `_UID` is written for untyped identifiers: declared in the HEAD,
    // which is written first.
    let untyped = |ids: &[Identifier]| ids.iter().any(|i| i.kind.is_none());
    let uid = doc.persons.iter().any(|p| untyped(&p.identifiers))
        || doc.relationships.iter().any(|r| untyped(&r.identifiers))
        || doc
            .source_descriptions
            .iter()
            .any(|s| untyped(&s.identifiers))
        || doc.agents.iter().any(|a| untyped(&a.identifiers));
    // The HEAD: the schema of the extension tags used, the contributor,
    // the language.
    let mut head = HeadOptions::default();
    if uid {
        head.schema = Some(schema_with(
            &schema,
            IriDefinition {
                iri: UID_IRI.into(),
                supertypes: Vec::new(),
                tags: vec![("_UID".into(), vec!["elf:Record".into()])],
            },
        ));
    }
    let mut w = Writer::new(out);
    w.begin_head(&head)?;
    w.write_structure(
        &Node::new("SOUR")
            .text("gedcom-elf")
            .child(Node::new("VERS").text(env!("CARGO_PKG_VERSION"))),
    )?;
    if let Some(c) = &doc.attribution.contributor {
        let agent = local(c).filter(|id| cx.agents.contains_key(id));
        match agent.and_then(|id| Some((id, cx.xrefs.get(id)?.clone()))) {
            Some((id, _)) if repositories.contains(id) => cx.not_imported(
                "attribution.contributor",
                "a contributor that is a repository",
            ),
            Some((_, x)) => w.write_structure(&Node::new("SUBM").pointer(x))?,
            None => cx.dangling("attribution.contributor", c),
        }
    }
    if let Some(l) = &doc.lang {
        let name = language_name(l).map_or_else(|| l.clone(), str::to_string);
        w.write_structure(&Node::new("LANG").text(name))?;
    }
    if doc.attribution.modified.is_some() || doc.attribution.change_message.is_some() {
        cx.not_imported(
            "attribution",
            "the document's modification time and message",
        );
    }
    w.end()?;

    // Families first: persons need their links.
    let families = families(&mut cx);
    let mut famc: HashMap<&str, Vec<Node>> = HashMap::new();
    let mut fams: HashMap<&str, Vec<Node>> = HashMap::new();
    for (f, pedigrees) in &families {
        for p in &f.partners {
            if let Some((&id, _)) = cx.persons.get_key_value(p.as_str()) {
                fams.entry(id)
                    .or_default()
                    .push(Node::new("FAMS").pointer(f.xref.clone()));
            }
        }
        for c in &f.children {
            if let Some((&id, _)) = cx.persons.get_key_value(c.as_str()) {
                let mut link = Node::new("FAMC").pointer(f.xref.clone());
                if let Some(p) = pedigrees.get(c) {
                    link.children.push(Node::new("PEDI").text(*p));
                }
                famc.entry(id).or_default().push(link);
            }
        }
    }

    for (i, p) in doc.persons.iter().enumerate() {
        let at = format!("persons[{i}]");
        let mut node = Node::new("INDI").xref(cx.own(p));
        if p.private {
            node.children.push(Node::new("RESN").text("privacy"));
        }
        cx.names(&p.names, &at, &mut node);
        if let Some(g) = &p.gender {
            match g.kind.strip_prefix(GX) {
                Some("Male") => node.children.push(Node::new("SEX").text("M")),
                Some("Female") => node.children.push(Node::new("SEX").text("F")),
                Some("Intersex") => node.children.push(Node::new("SEX").text("X")),
                Some("Unknown") => node.children.push(Node::new("SEX").text("U")),
                _ => cx.not_imported(&format!("{at}.gender"), "a gender GEDCOM lacks"),
            }
        }
        for (j, f) in p.facts.iter().enumerate() {
            let fact = cx.fact(f, &PERSON_FACTS, &format!("{at}.facts[{j}]"));
            node.children.push(fact);
        }
        node.children
            .extend(famc.remove(p.id.as_str()).unwrap_or_default());
        node.children
            .extend(fams.remove(p.id.as_str()).unwrap_or_default());
        cx.citations(&p.sources, &at, &mut node);
        cx.notes(&p.notes, &at, &mut node);
        cx.media(&p.media, &at, &mut node);
        cx.identifiers(&p.identifiers, "INDI", &mut node);
        cx.change(&p.attribution, &at, &mut node);
        w.write_structure(&node)?;
    }

    for (f, _) in &families {
        let mut node = Node::new("FAM").xref(f.xref.clone());
        for (k, p) in f.partners.iter().enumerate() {
            let Some(x) = cx.xrefs.get(p.as_str()).cloned() else {
                continue;
            };
            let female = cx.persons[p.as_str()]
                .gender
                .as_ref()
                .is_some_and(|g| g.kind == gx("Female"));
            // A couple: person1 HUSB, person2 WIFE; one parent: by gender.
            let tag = match (f.couple.is_some(), k, female) {
                (true, 0, _) => "HUSB",
                (true, _, _) => "WIFE",
                (false, _, true) => "WIFE",
                (false, _, false) => "HUSB",
            };
            node.children.push(Node::new(tag).pointer(x));
        }
        for c in &f.children {
            if let Some(x) = cx.xrefs.get(c.as_str()).cloned() {
                node.children.push(Node::new("CHIL").pointer(x));
            }
        }
        if let Some(i) = f.couple {
            let r = &doc.relationships[i];
            let at = format!("relationships[{i}]");
            for (j, fact) in r.facts.iter().enumerate() {
                let n = cx.fact(fact, &COUPLE_FACTS, &format!("{at}.facts[{j}]"));
                node.children.push(n);
            }
            cx.citations(&r.sources, &at, &mut node);
            cx.notes(&r.notes, &at, &mut node);
            cx.media(&r.media, &at, &mut node);
            cx.identifiers(&r.identifiers, "FAM", &mut node);
            cx.change(&r.attribution, &at, &mut node);
        }
        w.write_structure(&node)?;
    }

    // Note records before sources, as most files have them.
    for (i, d) in doc.documents.iter().enumerate() {
        let at = format!("documents[{i}]");
        if cx.own.contains_key(&address(d)) {
            let mut n = Node::new("NOTE").xref(cx.own(d)).text(d.text.clone());
            cx.citations(&d.sources, &at, &mut n);
            cx.notes(&d.notes, &at, &mut n);
            cx.change(&d.attribution, &at, &mut n);
            w.write_structure(&n)?;
        }
    }

    // Sources, then objects.
    for role in [Role::Source, Role::Media] {
        for (i, sd) in doc.source_descriptions.iter().enumerate() {
            if cx.roles.get(&address(sd)) != Some(&role) {
                continue;
            }
            let at = format!("sourceDescriptions[{i}]");
            let n = match role {
                Role::Source => cx.source(sd, &at),
                _ => {
                    let n = Node::new("OBJE").xref(cx.own(sd));
                    cx.media_node(sd, &at, n)
                }
            };
            w.write_structure(&n)?;
        }
    }

    for (i, a) in doc.agents.iter().enumerate() {
        let tag = match repositories.contains(a.id.as_str()) {
            true => "REPO",
            false => "SUBM",
        };
        let n = cx.agent(a, tag, &format!("agents[{i}]"));
        w.write_structure(&n)?;
    }

    // Descriptions written only where referenced, and never referenced.
    for (i, sd) in doc.source_descriptions.iter().enumerate() {
        let inline = matches!(
            cx.roles.get(&address(sd)),
            Some(Role::Component | Role::TextCitation | Role::InlineMedia)
        );
        if inline && !cx.referenced.contains(&address(sd)) {
            cx.not_imported(
                &format!("sourceDescriptions[{i}]"),
                "a citation's or an object's description (and its transcriptions) no item refers to",
            );
        }
    }

    // Places only described, never referenced, say nothing GEDCOM holds.
    let referenced: HashSet<&str> = doc
        .persons
        .iter()
        .flat_map(|p| &p.facts)
        .chain(doc.relationships.iter().flat_map(|r| &r.facts))
        .filter_map(|f| f.place.as_ref()?.description.as_deref().and_then(local))
        .collect();
    for (i, p) in doc.places.iter().enumerate() {
        if !referenced.contains(p.id.as_str()) {
            cx.not_imported(&format!("places[{i}]"), "a place no fact refers to");
        }
    }

    w.trailer()?;
    Ok(w.finish()?)
}

/// The default schema written out (a document's `SCHMA` replaces the
/// default one, so all of it is needed), and `extra`.
fn schema_with(schema: &Schema, extra: IriDefinition) -> HeadSchema {
    let short = |iri: &str| match iri.strip_prefix(ELF) {
        Some(rest) => format!("elf:{rest}"),
        None => iri.to_string(),
    };
    let mut tags: HashMap<&str, Vec<(&str, Vec<String>)>> = HashMap::new();
    for (tag, sup, ty) in schema.all_tag_definitions() {
        let list = tags.entry(ty).or_default();
        match list.iter_mut().find(|(t, _)| *t == tag) {
            Some((_, supers)) => supers.push(short(sup)),
            None => list.push((tag, vec![short(sup)])),
        }
    }
    let mut iris: Vec<IriDefinition> = schema
        .iris()
        .map(|iri| IriDefinition {
            iri: short(iri),
            supertypes: schema.supertypes(iri).map(short).collect(),
            tags: tags
                .remove(iri)
                .unwrap_or_default()
                .into_iter()
                .map(|(t, s)| (t.to_string(), s))
                .collect(),
        })
        .filter(|d| !d.supertypes.is_empty() || !d.tags.is_empty())
        .collect();
    iris.push(extra);
    HeadSchema {
        external: Vec::new(),
        prefixes: vec![("elf".into(), ELF.into())],
        escapes: schema.escapes().clone(),
        iris,
    }
}

/// Indexes the document: record ids to xrefs, what each description
/// becomes, the transcriptions.
fn index(cx: &mut Cx<'_>) {
    let doc = cx.doc;
    // Items without an id cannot be referenced.
    for p in doc.persons.iter().filter(|p| !p.id.is_empty()) {
        cx.persons.entry(p.id.as_str()).or_insert(p);
    }
    for a in doc.agents.iter().filter(|a| !a.id.is_empty()) {
        cx.agents.entry(a.id.as_str()).or_insert(a);
    }
    for (i, p) in doc
        .places
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.id.is_empty())
    {
        cx.places.entry(p.id.as_str()).or_insert(i);
    }
    let media_refs: HashSet<&str> = doc
        .persons
        .iter()
        .flat_map(|p| &p.media)
        .chain(doc.relationships.iter().flat_map(|r| &r.media))
        .filter_map(|r| local(&r.description))
        .collect();
    let owners: HashSet<&str> = doc
        .persons
        .iter()
        .map(|p| p.id.as_str())
        .chain(doc.relationships.iter().map(|r| r.id.as_str()))
        .chain(doc.source_descriptions.iter().map(|s| s.id.as_str()))
        .chain(doc.documents.iter().map(|d| d.id.as_str()))
        .collect();
    for sd in &doc.source_descriptions {
        let only_value = sd.citations.len() <= 1
            && sd.citations.iter().all(|c| c.elements.is_empty())
            && sd.titles.is_empty()
            && sd.about.is_none()
            && sd.media_type.is_none()
            && sd.repository.is_none()
            && sd.coverage.is_empty()
            && sd.identifiers.is_empty();
        let role = if sd.component_of.is_some() {
            Role::Component
        } else if sd.media_type.is_some() || media_refs.contains(sd.id.as_str()) {
            match derived_from(&sd.id, 'm') {
                Some(owner) if owners.contains(owner) => Role::InlineMedia,
                _ => Role::Media,
            }
        } else if only_value
            && derived_from(&sd.id, 's').is_some_and(|owner| owners.contains(owner))
        {
            Role::TextCitation
        } else {
            Role::Source
        };
        if !sd.id.is_empty() {
            cx.descriptions.entry(sd.id.as_str()).or_insert((sd, role));
        }
        cx.roles.insert(address(sd), role);
    }
    for d in &doc.documents {
        let target = d.sources.first().and_then(|s| local(&s.description));
        // A transcription of a source or citation is its TEXT; any other
        // document a note record.
        let transcribes = d.kind.as_deref() == Some(&gx("Transcription"))
            && d.sources.len() == 1
            && target.is_some_and(|t| {
                let role = cx.descriptions.get(t).map(|&(_, r)| r);
                matches!(
                    role,
                    Some(Role::Source | Role::Component | Role::TextCitation)
                )
            });
        match (transcribes, target) {
            (true, Some(t)) => cx.texts.entry(t).or_default().push(d),
            _ => {
                if d.kind.is_some() && d.kind.as_deref() != Some(&gx("Transcription")) {
                    let at = "documents";
                    cx.not_imported(at, format!("the document type of `{}`", d.id));
                }
            }
        }
    }
    // Xrefs: persons, couples, source and media records, agents, notes.
    for (i, p) in doc.persons.iter().enumerate() {
        cx.assign(p, &p.id, &format!("persons[{i}]"));
    }
    for (i, r) in doc.relationships.iter().enumerate() {
        if r.kind.is_empty() || r.kind == gx("Couple") {
            cx.assign(r, &r.id, &format!("relationships[{i}]"));
        }
    }
    for (i, sd) in doc.source_descriptions.iter().enumerate() {
        if matches!(cx.roles[&address(sd)], Role::Source | Role::Media) {
            cx.assign(sd, &sd.id, &format!("sourceDescriptions[{i}]"));
        }
    }
    for (i, a) in doc.agents.iter().enumerate() {
        cx.assign(a, &a.id, &format!("agents[{i}]"));
    }
    let transcriptions: HashSet<usize> = cx.texts.values().flatten().map(|d| address(*d)).collect();
    for (i, d) in doc.documents.iter().enumerate() {
        if !transcriptions.contains(&address(d)) {
            cx.assign(d, &d.id, &format!("documents[{i}]"));
        }
    }
}

/// Families from the relationships, with each child's pedigree.
fn families<'d>(cx: &mut Cx<'d>) -> Vec<(Family, HashMap<String, &'static str>)> {
    let doc = cx.doc;
    let mut families: Vec<(Family, HashMap<String, &'static str>)> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let person = |cx: &mut Cx<'d>, uri: &str, at: &str| -> Option<String> {
        match local(uri).filter(|id| cx.persons.contains_key(id)) {
            Some(id) => Some(id.to_string()),
            None => {
                cx.dangling(at, uri);
                None
            }
        }
    };
    // Couples.
    for (i, r) in doc.relationships.iter().enumerate() {
        if !(r.kind.is_empty() || r.kind == gx("Couple")) {
            continue;
        }
        let at = format!("relationships[{i}]");
        let mut f = Family {
            xref: cx.own(r),
            first: i,
            couple: Some(i),
            ..Family::default()
        };
        f.partners
            .extend(person(cx, &r.person1, &format!("{at}.person1")));
        f.partners
            .extend(person(cx, &r.person2, &format!("{at}.person2")));
        by_id.insert(r.id.clone(), families.len());
        families.push((f, HashMap::new()));
    }
    // Parents and children.
    let mut generic: Vec<(usize, String, String)> = Vec::new();
    for (i, r) in doc.relationships.iter().enumerate() {
        let at = format!("relationships[{i}]");
        if r.kind.is_empty() || r.kind == gx("Couple") {
            continue;
        }
        if r.kind != gx("ParentChild") {
            cx.not_imported(&at, format!("a relationship of type `{}`", r.kind));
            continue;
        }
        let (Some(parent), Some(child)) = (
            person(cx, &r.person1, &format!("{at}.person1")),
            person(cx, &r.person2, &format!("{at}.person2")),
        ) else {
            continue;
        };
        // The export's ids: FAMILY.PARENT.CHILD.
        let scheme = r.id.strip_suffix(&format!(".{}.{}", parent, child));
        let family = match scheme {
            Some(fid) if !fid.is_empty() => match by_id.get(fid) {
                Some(&k) => Some(k),
                None => {
                    let xref = format!("@{}@", id_text(fid));
                    let free = crate::scan::is_valid_xref(xref.as_bytes())
                        && !cx.used_xrefs.contains(&xref);
                    free.then(|| {
                        cx.used_xrefs.insert(xref.clone());
                        by_id.insert(fid.to_string(), families.len());
                        families.push((
                            Family {
                                xref,
                                first: i,
                                ..Family::default()
                            },
                            HashMap::new(),
                        ));
                        families.len() - 1
                    })
                }
            },
            _ => None,
        };
        match family {
            Some(k) => link(cx, &mut families[k], r, &parent, &child, &at),
            None => generic.push((i, parent, child)),
        }
    }
    // Other parent-child relationships: the family of the child's parents.
    let mut parents_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for (_, p, c) in &generic {
        let list = parents_of.entry(c.as_str()).or_default();
        if !list.contains(&p.as_str()) {
            list.push(p);
        }
    }
    let mut made: HashMap<Vec<String>, usize> = HashMap::new();
    // The families by their partners (sorted).
    let mut couples: HashMap<Vec<String>, usize> = HashMap::new();
    for (k, (f, _)) in families.iter().enumerate() {
        let mut key = f.partners.clone();
        key.sort();
        couples.entry(key).or_insert(k);
    }
    for (i, parent, child) in &generic {
        let r = &doc.relationships[*i];
        let at = format!("relationships[{i}]");
        let mut pair: Vec<String> = parents_of[child.as_str()]
            .iter()
            .take(2)
            .map(|s| s.to_string())
            .collect();
        if !pair.contains(parent) {
            pair = vec![parent.clone()];
        }
        let mut key = pair.clone();
        key.sort();
        let existing = couples.get(&key).copied();
        let k = match existing.or_else(|| made.get(&pair).copied()) {
            Some(k) => k,
            None => {
                let mut n = families.len() + 1;
                let xref = loop {
                    let x = format!("@F{n}@");
                    if !cx.used_xrefs.contains(&x) && !cx.doc_has_id(&x[1..x.len() - 1]) {
                        break x;
                    }
                    n += 1;
                };
                cx.used_xrefs.insert(xref.clone());
                made.insert(pair.clone(), families.len());
                families.push((
                    Family {
                        xref,
                        first: *i,
                        ..Family::default()
                    },
                    HashMap::new(),
                ));
                families.len() - 1
            }
        };
        link(cx, &mut families[k], r, parent, child, &at);
    }
    families.sort_by_key(|(f, _)| f.first);
    families
}

/// Puts a parent and child in a family, and the pedigree its facts say.
fn link(
    cx: &mut Cx<'_>,
    (f, pedigrees): &mut (Family, HashMap<String, &'static str>),
    r: &Relationship,
    parent: &str,
    child: &str,
    at: &str,
) {
    if !f.partners.iter().any(|p| p == parent) {
        if f.partners.len() < 2 {
            f.partners.push(parent.to_string());
        } else {
            cx.not_imported(at, "a third parent in one family");
            return;
        }
    }
    if !f.children.iter().any(|c| c == child) {
        f.children.push(child.to_string());
    }
    for (j, fact) in r.facts.iter().enumerate() {
        // The export's rule (`pedigree_fact`) read backwards.
        let pedi = Pedigree::ALL.iter().find_map(|&p| {
            let fact_type = pedigree_fact(p)?;
            (fact.kind == fact_type).then_some(p.gedcom551()?)
        });
        let Some(pedi) = pedi else {
            cx.not_imported(
                &format!("{at}.facts[{j}]"),
                format!("the parent-child fact `{}`", fact.kind),
            );
            continue;
        };
        match pedigrees.get(child) {
            None => {
                pedigrees.insert(child.to_string(), pedi);
            }
            Some(&p) if p == pedi => {}
            Some(_) => cx.not_imported(
                &format!("{at}.facts[{j}]"),
                "a second pedigree for the child in one family",
            ),
        }
        let extra = fact.date.is_some() || fact.place.is_some() || fact.value.is_some();
        if extra || !fact.sources.is_empty() || !fact.notes.is_empty() {
            cx.not_imported(&format!("{at}.facts[{j}]"), "a pedigree fact's details");
        }
    }
    let said = !r.sources.is_empty()
        || !r.notes.is_empty()
        || !r.media.is_empty()
        || !r.identifiers.is_empty()
        || !r.attribution.is_empty();
    if said {
        cx.not_imported(
            at,
            "sources, notes, media, identifiers of a parent-child link",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_decode_the_export_s_escapes_and_derived_ids_are_recognised() {
        assert_eq!(id_text("I~2E1"), "I.1");
        assert_eq!(id_text("a~zz"), "a~zz");
        assert_eq!(derived_from("I1.s12", 's'), Some("I1"));
        assert_eq!(derived_from("I1.s", 's'), None);
        assert_eq!(derived_from("I1.m1", 's'), None);
        assert_eq!(percent_decode("me%201.jpg"), "me 1.jpg");
        assert_eq!(percent_decode("100%"), "100%");
    }

    #[test]
    fn a_formal_date_alone_is_written_as_gedcom() {
        let d = Date {
            original: None,
            formal: Some("A+1815".into()),
        };
        assert_eq!(date_text(&d).as_deref(), Some("ABT 1815"));
        let d = Date {
            original: Some("circa 1815".into()),
            formal: Some("A+1815".into()),
        };
        assert_eq!(date_text(&d).as_deref(), Some("circa 1815"));
    }
}
