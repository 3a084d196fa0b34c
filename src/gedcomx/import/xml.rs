//! GEDCOM X XML behind [`Src`]: the document read with quick-xml into a
//! small element tree (namespaces resolved here: GEDCOM X elements by
//! their local names, FHISO's as `cev:NAME`, any other as `{URI}NAME`),
//! each element with its line for errors and issues.

use std::cell::RefCell;

use quick_xml::events::Event;
use quick_xml::Reader;

use super::read::{self, not_read, timestamp_of_date_time, Result, Src};
use super::{Gedcomx, ImportError, ImportErrorKind, Issue, Location};
use crate::gedcomx::model::{Identifier, Timestamp};
use crate::gedcomx::{CEV, GEDCOMX};

/// Elements nested deeper than this are refused (a GEDCOM X document
/// needs a dozen levels).
const MAX_DEPTH: usize = 200;

/// The XML namespace, bound to `xml:` always.
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// An element: its name as this reader writes it, attributes, child
/// elements, its own text, and its line.
#[derive(Debug, Default)]
pub(super) struct El {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<El>,
    text: String,
    line: u64,
}

/// A namespace-qualified name as this reader writes it.
fn qualified(ns: Option<&str>, local: &str) -> String {
    match ns {
        Some(GEDCOMX) => local.to_string(),
        Some(CEV) => format!("cev:{local}"),
        Some(XML_NS) => format!("xml:{local}"),
        Some(other) => format!("{{{other}}}{local}"),
        None => local.to_string(),
    }
}

/// Namespace declarations in scope: (prefix, URI), `""` the default.
struct Scopes(Vec<Vec<(String, String)>>);

impl Scopes {
    fn resolve(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some(XML_NS);
        }
        self.0
            .iter()
            .rev()
            .flat_map(|s| s.iter())
            .find(|(p, _)| p == prefix)
            .map(|(_, u)| u.as_str())
            .filter(|u| !u.is_empty())
    }
}

/// The line (from 1) of byte `pos`, counting from the last one asked.
struct Lines<'a> {
    input: &'a [u8],
    pos: usize,
    line: u64,
}

impl Lines<'_> {
    fn at(&mut self, pos: u64) -> u64 {
        let pos = usize::try_from(pos)
            .unwrap_or(usize::MAX)
            .min(self.input.len());
        if pos >= self.pos {
            self.line += self.input[self.pos..pos]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            self.pos = pos;
        }
        self.line
    }
}

fn syntax(line: u64, message: String) -> ImportError {
    ImportError::new(
        ImportErrorKind::Syntax,
        Location::Xml {
            line,
            path: String::new(),
        },
        message,
    )
}

/// Parses `input` into its root element.
pub(super) fn parse(input: &[u8]) -> Result<El> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let text = std::str::from_utf8(input).map_err(|e| {
        ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Document,
            format!("the XML is not UTF-8: {e}"),
        )
    })?;
    let mut reader = Reader::from_str(text);
    let mut lines = Lines {
        input,
        pos: 0,
        line: 1,
    };
    let mut scopes = Scopes(Vec::new());
    let mut stack: Vec<El> = Vec::new();
    let mut root: Option<El> = None;
    loop {
        let start = lines.at(reader.buffer_position());
        let event = reader.read_event().map_err(|e| {
            let line = lines.at(reader.error_position());
            syntax(line, format!("malformed XML: {e}"))
        })?;
        let (element, empty) = match event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                scopes.0.pop();
                let el = stack.pop().unwrap_or_default();
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None => root = Some(el),
                }
                continue;
            }
            Event::Text(t) => {
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&t.xml10_content());
                }
                continue;
            }
            Event::CData(t) => {
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&t.xml10_content());
                }
                continue;
            }
            Event::GeneralRef(r) => {
                let c = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => match r.xml10_content().as_ref() {
                        "amp" => "&".into(),
                        "lt" => "<".into(),
                        "gt" => ">".into(),
                        "quot" => "\"".into(),
                        "apos" => "'".into(),
                        other => {
                            return Err(syntax(start, format!("unknown entity &{other};")));
                        }
                    },
                };
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&c);
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        if root.is_some() {
            return Err(syntax(start, "a second root element".into()));
        }
        if stack.len() >= MAX_DEPTH {
            return Err(ImportError::new(
                ImportErrorKind::TooDeep,
                Location::Xml {
                    line: start,
                    path: String::new(),
                },
                format!("elements nested deeper than {MAX_DEPTH}"),
            ));
        }
        // Namespace declarations first, then the names.
        let mut declared = Vec::new();
        let mut raw = Vec::new();
        for a in element.attributes() {
            let a = a.map_err(|e| syntax(start, format!("malformed attribute: {e}")))?;
            let key: &str = a.key.as_ref();
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| syntax(start, format!("malformed attribute value: {e}")))?
                .into_owned();
            if key == "xmlns" {
                declared.push((String::new(), value));
            } else if let Some(p) = key.strip_prefix("xmlns:") {
                declared.push((p.to_string(), value));
            } else {
                raw.push((key.to_string(), value));
            }
        }
        scopes.0.push(declared);
        let qname = element.name();
        let name: &str = qname.as_ref();
        let (prefix, local) = name.split_once(':').unwrap_or(("", name));
        let ns = scopes.resolve(prefix);
        if !prefix.is_empty() && ns.is_none() {
            return Err(syntax(
                start,
                format!("the prefix `{prefix}` is not declared"),
            ));
        }
        let mut el = El {
            name: qualified(ns, local),
            line: start,
            ..El::default()
        };
        for (key, value) in raw {
            let name = match key.split_once(':') {
                // Unprefixed attributes are in no namespace.
                None => key,
                Some((p, l)) => match scopes.resolve(p) {
                    Some(ns) => qualified(Some(ns), l),
                    None => return Err(syntax(start, format!("the prefix `{p}` is not declared"))),
                },
            };
            el.attrs.push((name, value));
        }
        if empty {
            scopes.0.pop();
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None => root = Some(el),
            }
        } else {
            stack.push(el);
        }
    }
    if let Some(open) = stack.last() {
        return Err(syntax(
            lines.at(reader.buffer_position()),
            format!(
                "truncated XML: <{}> (line {}) is not closed",
                open.name, open.line
            ),
        ));
    }
    root.ok_or_else(|| {
        ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Document,
            "not a GEDCOM X document: no XML element",
        )
    })
}

/// The document under `root`.
pub(super) fn document(root: &El, issues: &mut Vec<Issue>) -> Result<Gedcomx> {
    if root.name != "gedcomx" {
        return Err(ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Xml {
                line: root.line,
                path: root.name.clone(),
            },
            format!(
                "not a GEDCOM X document: the root element is <{}>, not <gedcomx> in {GEDCOMX}",
                root.name
            ),
        ));
    }
    read::document(X::new(root, "gedcomx".into()), issues)
}

fn loc(line: u64, path: String) -> Location {
    Location::Xml { line, path }
}

/// One element and its path.
pub(super) struct X<'a> {
    el: &'a El,
    path: String,
    /// Attributes (`@name`), child element names and `#text` read.
    used: RefCell<Vec<String>>,
    extra: RefCell<Vec<Issue>>,
}

impl<'a> X<'a> {
    fn new(el: &'a El, path: String) -> Self {
        X {
            el,
            path,
            used: RefCell::new(Vec::new()),
            extra: RefCell::new(Vec::new()),
        }
    }

    /// The children named `xml` (marked read).
    fn named(&self, xml: &str) -> impl Iterator<Item = &'a El> + '_ {
        self.used.borrow_mut().push(xml.to_string());
        let el: &'a El = self.el;
        let xml = xml.to_string();
        el.children.iter().filter(move |c| c.name == xml)
    }

    /// The one child named `xml`; a second is an issue.
    fn one(&self, xml: &str) -> Option<&'a El> {
        let mut all = self.named(xml);
        let first = all.next();
        for more in all {
            self.extra.borrow_mut().push(Issue {
                kind: super::IssueKind::NotImported,
                at: loc(more.line, format!("{}/{xml}", self.path)),
                message: format!("a second <{xml}>: GEDCOM X holds one"),
            });
        }
        first
    }

    /// The text of the one child `xml`, whose own attributes and children
    /// are reported.
    fn child_text(&self, xml: &str) -> Option<(&'a El, String)> {
        let el = self.one(xml)?;
        let x = X::new(el, format!("{}/{xml}", self.path));
        x.used.borrow_mut().push("#text".into());
        let mut extra = Vec::new();
        x.done(&mut extra);
        self.extra.borrow_mut().extend(extra);
        Some((el, el.text.clone()))
    }

    fn value_error(&self, el: &El, xml: &str, message: String) -> ImportError {
        ImportError::new(
            ImportErrorKind::Value,
            loc(el.line, format!("{}/{xml}", self.path)),
            message,
        )
    }

    fn resource(&self, el: &'a El, path: String) -> Result<String> {
        let x = X::new(el, path);
        let uri = x.attr("resource", "resource")?;
        let uri = uri.ok_or_else(|| {
            ImportError::new(
                ImportErrorKind::Missing,
                x.at(),
                "the required attribute `resource` is missing",
            )
        })?;
        let mut extra = Vec::new();
        x.done(&mut extra);
        self.extra.borrow_mut().extend(extra);
        Ok(uri)
    }
}

impl<'a> Src for X<'a> {
    fn at(&self) -> Location {
        loc(self.el.line, self.path.clone())
    }

    fn at_member(&self, _: &str, xml: &str) -> Location {
        let line = self
            .el
            .children
            .iter()
            .find(|c| c.name == xml)
            .map_or(self.el.line, |c| c.line);
        loc(line, format!("{}/{xml}", self.path))
    }

    fn attr(&self, _: &str, xml: &str) -> Result<Option<String>> {
        self.used.borrow_mut().push(format!("@{xml}"));
        Ok(self
            .el
            .attrs
            .iter()
            .find(|(k, _)| k == xml)
            .map(|(_, v)| v.clone()))
    }

    fn flag(&self, json: &str, xml: &str) -> Result<bool> {
        match self.attr(json, xml)?.as_deref().map(str::trim) {
            None | Some("false") | Some("0") => Ok(false),
            Some("true") | Some("1") => Ok(true),
            Some(other) => Err(ImportError::new(
                ImportErrorKind::Type,
                self.at(),
                format!("`{xml}` is `{other}`: expected true or false"),
            )),
        }
    }

    fn text(&self, _: &str, xml: &str) -> Result<Option<String>> {
        Ok(self.child_text(xml).map(|(_, t)| t))
    }

    fn content(&self, _: &str) -> Result<Option<String>> {
        self.used.borrow_mut().push("#text".into());
        Ok(Some(self.el.text.clone()))
    }

    fn number(&self, _: &str, xml: &str) -> Result<Option<f64>> {
        let Some((el, t)) = self.child_text(xml) else {
            return Ok(None);
        };
        match t.trim().parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Some(n)),
            _ => Err(self.value_error(el, xml, format!("`{t}` is not a number"))),
        }
    }

    fn timestamp(&self, _: &str, xml: &str) -> Result<Option<Timestamp>> {
        let Some((el, t)) = self.child_text(xml) else {
            return Ok(None);
        };
        match timestamp_of_date_time(&t) {
            Some(ts) => Ok(Some(ts)),
            None => Err(self.value_error(
                el,
                xml,
                format!("`{t}` is not an xsd:dateTime in the years 1 to 9999"),
            )),
        }
    }

    fn child(&self, _: &str, xml: &str) -> Result<Option<Self>> {
        Ok(self
            .one(xml)
            .map(|el| X::new(el, format!("{}/{xml}", self.path))))
    }

    fn list(&self, _: &str, xml: &str) -> Result<Vec<Self>> {
        let path = &self.path;
        Ok(self
            .named(xml)
            .enumerate()
            .map(|(i, el)| X::new(el, format!("{path}/{xml}[{}]", i + 1)))
            .collect())
    }

    fn reference(&self, _: &str, xml: &str) -> Result<Option<String>> {
        match self.one(xml) {
            None => Ok(None),
            Some(el) => self.resource(el, format!("{}/{xml}", self.path)).map(Some),
        }
    }

    fn references(&self, _: &str, xml: &str) -> Result<Vec<String>> {
        let items: Vec<&El> = self.named(xml).collect();
        items
            .into_iter()
            .enumerate()
            .map(|(i, el)| self.resource(el, format!("{}/{xml}[{}]", self.path, i + 1)))
            .collect()
    }

    fn identifiers(&self) -> Result<Vec<Identifier>> {
        let items: Vec<&El> = self.named("identifier").collect();
        let mut ids = Vec::new();
        for (i, el) in items.into_iter().enumerate() {
            let x = X::new(el, format!("{}/identifier[{}]", self.path, i + 1));
            let kind = x.attr("type", "type")?;
            let value = x.content("value")?.unwrap_or_default();
            let mut extra = Vec::new();
            x.done(&mut extra);
            self.extra.borrow_mut().extend(extra);
            ids.push(Identifier { kind, value });
        }
        Ok(ids)
    }

    fn element_value(&self) -> Result<Option<String>> {
        if let Some((_, t)) = self.child_text("cev:value") {
            return Ok(Some(t));
        }
        // Seed 004's SourceCitation example: the text inline.
        self.used.borrow_mut().push("#text".into());
        let own = &self.el.text;
        Ok((!own.trim().is_empty()).then(|| own.clone()))
    }

    fn done(self, issues: &mut Vec<Issue>) {
        let here = self.at();
        let used = self.used.into_inner();
        let is_used = |k: &str| used.iter().any(|u| u == k);
        for (k, _) in &self.el.attrs {
            if !is_used(&format!("@{k}")) {
                let at = loc(self.el.line, format!("{}/@{k}", self.path));
                issues.push(not_read(at, &format!("attribute `{k}`")));
            }
        }
        for c in &self.el.children {
            if !is_used(&c.name) {
                let at = loc(c.line, format!("{}/{}", self.path, c.name));
                issues.push(not_read(at, &format!("<{}>", c.name)));
            }
        }
        if !is_used("#text") && !self.el.text.trim().is_empty() {
            issues.push(not_read(here, "text"));
        }
        issues.extend(self.extra.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_resolved_through_any_prefix_and_text_keeps_its_references() {
        let input = "<?xml version=\"1.0\"?>\n<g:gedcomx xmlns:g=\"http://gedcomx.org/v1/\" \
                     xmlns:c=\"http://terms.fhiso.org/sources/\">\n<g:x a=\"1\" xml:lang=\"fr\">\
                     A &amp; B&#x21;<![CDATA[<c>]]></g:x><c:element/><y xmlns=\"urn:other\"/></g:gedcomx>";
        let root = parse(input.as_bytes()).unwrap();
        assert_eq!(root.name, "gedcomx");
        let names: Vec<&str> = root.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["x", "cev:element", "{urn:other}y"]);
        let x = &root.children[0];
        assert_eq!(x.text, "A & B!<c>");
        assert_eq!(
            x.attrs,
            [("a".into(), "1".into()), ("xml:lang".into(), "fr".into())]
        );
        assert_eq!((root.line, x.line), (2, 3));
    }

    #[test]
    fn malformed_xml_is_an_error_at_its_line() {
        for (input, line) in [
            ("<gedcomx>\n<a>\n</b></gedcomx>", 3),
            ("<gedcomx>\n<p:a/></gedcomx>", 2),
            ("<gedcomx>\n\n<a>&nope;</a></gedcomx>", 3),
            ("<gedcomx/><gedcomx/>", 1),
        ] {
            let e = parse(input.as_bytes()).unwrap_err();
            assert_eq!(e.kind(), ImportErrorKind::Syntax, "{input}: {e}");
            assert!(
                matches!(e.at(), Location::Xml { line: l, .. } if *l == line),
                "{input}: {e}"
            );
        }
    }
}
