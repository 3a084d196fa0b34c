//! The two serialisations of the model, written by hand and streaming: a
//! value is written as it is walked, with no intermediate document.
//!
//! Every model type describes itself once ([`Node::emit`]): each property
//! with its JSON member name, its XML name and how XML carries it (an
//! attribute, a child element with text, the element's own text, a child
//! element of a model type, a list of them). [`Json`] and [`Xml`] turn that
//! one description into their format. XML writes an element's attributes
//! before its children, so [`Xml`] walks a value twice: once for the
//! attributes, once for the children (no buffering either way).

use std::io::{self, Write};

/// An `Identifier`: a value and its type (`None`: untyped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identifier {
    /// The identifier's type (a URI), if it has one.
    pub kind: Option<String>,
    /// The value.
    pub value: String,
}

/// A model type: its properties, in its JSON member order.
pub trait Node {
    /// Describes the value's properties to `e`.
    ///
    /// # Errors
    /// The writer's.
    fn emit<E: Emit>(&self, e: &mut E) -> io::Result<()>;
}

/// The bytes of [`Prop`]'s JSON member start, `,"name":` (a name of up to
/// 20 bytes), then zeros: [`Json`] copies this many at once and keeps the
/// member's.
const TOKEN: usize = 24;

/// A property's names: its JSON member name (letters and digits, as the
/// model's are) and its XML name, and the JSON member's start as it is
/// written (`,"name":`), made once, at compile time, so that a member's
/// name costs one fixed-size copy. Build one in a constant
/// ([`Prop::new`]).
///
/// ```
/// use gedcom_elf::gedcomx::emit::Prop;
///
/// const LANG: Prop = Prop::new("lang", "xml:lang");
/// assert_eq!((LANG.json(), LANG.xml()), ("lang", "xml:lang"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prop {
    json: &'static str,
    xml: &'static str,
    /// `,"json":` then zeros, one byte more than [`TOKEN`] (the member
    /// without its comma is the [`TOKEN`] from the second).
    token: [u8; TOKEN + 1],
    /// The length of `,"json":`.
    len: u8,
}

impl Prop {
    /// The property whose JSON member is `json` and whose XML name is
    /// `xml`.
    ///
    /// # Panics
    /// When `json` is empty, longer than 20 bytes, or holds other than
    /// ASCII letters and digits: in a constant, a compile error.
    pub const fn new(json: &'static str, xml: &'static str) -> Prop {
        let name = json.as_bytes();
        assert!(
            !name.is_empty() && name.len() + 4 <= TOKEN,
            "a JSON member name of 1 to 20 bytes"
        );
        let mut token = [0; TOKEN + 1];
        token[0] = b',';
        token[1] = b'"';
        let mut i = 0;
        while i < name.len() {
            assert!(
                name[i].is_ascii_alphanumeric(),
                "a JSON member name of letters and digits"
            );
            token[2 + i] = name[i];
            i += 1;
        }
        token[2 + i] = b'"';
        token[3 + i] = b':';
        Prop {
            json,
            xml,
            token,
            len: (name.len() + 4) as u8,
        }
    }

    /// The JSON member name.
    pub const fn json(&self) -> &'static str {
        self.json
    }

    /// The XML name (an attribute's or an element's).
    pub const fn xml(&self) -> &'static str {
        self.xml
    }
}

/// A [`Prop`] made at compile time: `prop!("lang", "xml:lang")` is a
/// reference to a constant.
macro_rules! prop {
    ($json:literal, $xml:literal) => {{
        const P: $crate::gedcomx::emit::Prop = $crate::gedcomx::emit::Prop::new($json, $xml);
        &P
    }};
}
pub(crate) use prop;

/// What a model type's properties are written through (see [`Node`]).
/// Absent values (`None`, empty lists) are left out.
pub trait Emit {
    /// `true` for XML (for the rare property whose order differs).
    fn is_xml(&self) -> bool;

    /// A string: a JSON member, an XML attribute.
    fn attr(&mut self, p: &Prop, value: Option<&str>) -> io::Result<()>;

    /// A boolean: a JSON member, an XML attribute (written when `true`).
    fn flag(&mut self, p: &Prop, value: bool) -> io::Result<()>;

    /// A string: a JSON member, an XML child element holding the text.
    fn text(&mut self, p: &Prop, value: Option<&str>) -> io::Result<()>;

    /// The element's own text in XML, a JSON member (`p`'s XML name is
    /// not used).
    fn content(&mut self, p: &Prop, value: &str) -> io::Result<()>;

    /// A timestamp: a JSON number (milliseconds since the epoch), an XML
    /// child element holding an `xsd:dateTime`.
    fn timestamp(&mut self, p: &Prop, millis: i64, date_time: &str) -> io::Result<()>;

    /// A number: a JSON number, an XML child element holding it.
    fn number(&mut self, p: &Prop, value: Option<f64>) -> io::Result<()>;

    /// A value of a model type: a JSON object member, an XML child element.
    fn child<N: Node>(&mut self, p: &Prop, value: Option<&N>) -> io::Result<()>;

    /// A list: a JSON array member, repeated XML child elements.
    fn list<N: Node>(&mut self, p: &Prop, items: &[N]) -> io::Result<()>;

    /// A resource reference: `{"resource": uri}`, `<xml resource="uri"/>`.
    fn reference(&mut self, p: &Prop, uri: Option<&str>) -> io::Result<()>;

    /// A list of resource references.
    fn references(&mut self, p: &Prop, uris: &[String]) -> io::Result<()>;

    /// A set of identifiers: in JSON an object with a member per type (an
    /// array of values; `$` for untyped ones), in XML `<identifier
    /// type="...">value</identifier>` elements.
    fn identifiers(&mut self, ids: &[Identifier]) -> io::Result<()>;

    /// [`Emit::text`] of a value whose start is written elsewhere:
    /// `spliced` (octets that stand for it, as they are, in place of the
    /// start escaped), then `rest`, escaped. For compact output (a pretty
    /// one's indentation is not known where the start is written).
    fn text_spliced(&mut self, p: &Prop, spliced: &[u8], rest: &str) -> io::Result<()>;

    /// [`Emit::list`] of a list whose first `count` items are written
    /// elsewhere: `spliced` (octets that stand for them, as they are, in
    /// place of the items and the separators between them), then
    /// `items`. For compact output, as [`Emit::text_spliced`].
    fn list_spliced<N: Node>(
        &mut self,
        p: &Prop,
        spliced: &[u8],
        count: usize,
        items: &[N],
    ) -> io::Result<()>;
}

/// Writes `s` as XML 1.0 character data (`attr`: inside a double-quoted
/// attribute). `&`, `<` and `>` are escaped, and in an attribute `"` and the
/// white space a parser would normalise (tab, LF, CR) as character
/// references; CR in text too. Characters XML 1.0 cannot carry (C0 controls
/// other than tab, LF and CR; U+FFFE, U+FFFF) are written as U+FFFD.
pub(crate) fn xml_escaped<W: Write + ?Sized>(out: &mut W, s: &str, attr: bool) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: &str = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' if attr => "&quot;",
            '\t' if attr => "&#9;",
            '\n' if attr => "&#10;",
            '\r' => "&#13;",
            '\t' | '\n' => continue,
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => "\u{fffd}",
            _ => continue,
        };
        out.write_all(&s.as_bytes()[start..i])?;
        out.write_all(esc.as_bytes())?;
        start = i + c.len_utf8();
    }
    out.write_all(&s.as_bytes()[start..])
}

/// The JSON writer, into a `Vec` (the export's sections; a document's
/// members are short, and are appended as they are checked):
/// compact, or pretty (two spaces per level, `"key": value`).
pub struct Json<'w> {
    out: &'w mut Vec<u8>,
    pretty: bool,
    depth: usize,
    /// Whether the object being written has a member yet.
    first: bool,
}

impl<'w> Json<'w> {
    /// A writer to `out`, at nesting `depth` (for pretty indentation).
    pub fn new(out: &'w mut Vec<u8>, pretty: bool, depth: usize) -> Self {
        Json {
            out,
            pretty,
            depth,
            first: true,
        }
    }

    /// Writes `value` as a JSON object.
    ///
    /// # Errors
    /// The writer's.
    pub fn object<N: Node>(&mut self, value: &N) -> io::Result<()> {
        self.out.push(b'{');
        let first = std::mem::replace(&mut self.first, true);
        self.depth += 1;
        value.emit(self)?;
        self.depth -= 1;
        if !self.first {
            self.newline()?;
        }
        self.first = first;
        self.out.push(b'}');
        Ok(())
    }

    fn newline(&mut self) -> io::Result<()> {
        newline(self.out, self.pretty, self.depth)
    }

    /// Starts a member named by the model: the comma, the indentation and
    /// the key. Compact, one copy of [`TOKEN`] bytes of the property's
    /// written start (from its comma, or from after it), cut back to the
    /// member's.
    #[inline]
    fn key(&mut self, p: &Prop) -> io::Result<()> {
        let comma = !std::mem::replace(&mut self.first, false);
        if self.pretty {
            return self.key_escaped_after(comma, p.json);
        }
        let skip = usize::from(!comma);
        if let Some(window) = p.token[skip..].first_chunk::<TOKEN>() {
            let end = self.out.len() + usize::from(p.len) - skip;
            self.out.extend_from_slice(window);
            self.out.truncate(end);
        }
        Ok(())
    }

    /// Starts a member whose name may need escapes (an identifier's type,
    /// a URI).
    fn key_escaped(&mut self, key: &str) -> io::Result<()> {
        let comma = !std::mem::replace(&mut self.first, false);
        self.key_escaped_after(comma, key)
    }

    fn key_escaped_after(&mut self, comma: bool, key: &str) -> io::Result<()> {
        if comma {
            self.out.push(b',');
        }
        self.newline()?;
        crate::escape::json_string_into(self.out, key);
        self.out
            .extend_from_slice(if self.pretty { b": " } else { b":" });
        Ok(())
    }

    /// Writes `items` as an array, each with `each`.
    fn array<T>(
        &mut self,
        items: &[T],
        mut each: impl FnMut(&mut Self, &T) -> io::Result<()>,
    ) -> io::Result<()> {
        self.array_of(items.iter(), |s, item| each(s, item))
    }

    /// Writes an array of `items`, each with `each`.
    fn array_of<T>(
        &mut self,
        items: impl Iterator<Item = T>,
        each: impl FnMut(&mut Self, T) -> io::Result<()>,
    ) -> io::Result<()> {
        self.array_after(&[], 0, items, each)
    }

    /// Writes an array whose first `count` items are written elsewhere
    /// (`spliced` stands for them, see [`Emit::list_spliced`]), then
    /// `items`, each with `each`.
    fn array_after<T>(
        &mut self,
        spliced: &[u8],
        count: usize,
        items: impl Iterator<Item = T>,
        mut each: impl FnMut(&mut Self, T) -> io::Result<()>,
    ) -> io::Result<()> {
        self.out.push(b'[');
        self.depth += 1;
        self.out.extend_from_slice(spliced);
        for (i, item) in items.enumerate() {
            if count + i > 0 {
                self.out.push(b',');
            }
            self.newline()?;
            each(self, item)?;
        }
        self.depth -= 1;
        self.newline()?;
        self.out.push(b']');
        Ok(())
    }

    fn resource(&mut self, uri: &str) -> io::Result<()> {
        self.out.push(b'{');
        self.depth += 1;
        self.newline()?;
        self.out.extend_from_slice(if self.pretty {
            b"\"resource\": "
        } else {
            b"\"resource\":"
        });
        crate::escape::json_string_into(self.out, uri);
        self.depth -= 1;
        self.newline()?;
        self.out.push(b'}');
        Ok(())
    }
}

impl Emit for Json<'_> {
    fn is_xml(&self) -> bool {
        false
    }

    fn attr(&mut self, p: &Prop, value: Option<&str>) -> io::Result<()> {
        self.text(p, value)
    }

    fn flag(&mut self, p: &Prop, value: bool) -> io::Result<()> {
        if value {
            self.key(p)?;
            self.out.extend_from_slice(b"true");
        }
        Ok(())
    }

    fn text(&mut self, p: &Prop, value: Option<&str>) -> io::Result<()> {
        if let Some(v) = value {
            self.key(p)?;
            crate::escape::json_string_into(self.out, v);
        }
        Ok(())
    }

    fn content(&mut self, p: &Prop, value: &str) -> io::Result<()> {
        self.text(p, Some(value))
    }

    fn timestamp(&mut self, p: &Prop, millis: i64, _: &str) -> io::Result<()> {
        self.key(p)?;
        write!(self.out, "{millis}")
    }

    fn number(&mut self, p: &Prop, value: Option<f64>) -> io::Result<()> {
        match value.filter(|v| v.is_finite()) {
            Some(v) => {
                self.key(p)?;
                write!(self.out, "{v}")
            }
            None => Ok(()),
        }
    }

    fn child<N: Node>(&mut self, p: &Prop, value: Option<&N>) -> io::Result<()> {
        if let Some(v) = value {
            self.key(p)?;
            self.object(v)?;
        }
        Ok(())
    }

    fn list<N: Node>(&mut self, p: &Prop, items: &[N]) -> io::Result<()> {
        if !items.is_empty() {
            self.key(p)?;
            self.array(items, |s, n| s.object(n))?;
        }
        Ok(())
    }

    fn reference(&mut self, p: &Prop, uri: Option<&str>) -> io::Result<()> {
        if let Some(uri) = uri {
            self.key(p)?;
            self.resource(uri)?;
        }
        Ok(())
    }

    fn references(&mut self, p: &Prop, uris: &[String]) -> io::Result<()> {
        if !uris.is_empty() {
            self.key(p)?;
            self.array(uris, |s, u| s.resource(u))?;
        }
        Ok(())
    }

    fn text_spliced(&mut self, p: &Prop, spliced: &[u8], rest: &str) -> io::Result<()> {
        self.key(p)?;
        self.out.push(b'"');
        self.out.extend_from_slice(spliced);
        crate::escape::json_content_into(self.out, rest);
        self.out.push(b'"');
        Ok(())
    }

    fn list_spliced<N: Node>(
        &mut self,
        p: &Prop,
        spliced: &[u8],
        count: usize,
        items: &[N],
    ) -> io::Result<()> {
        if count == 0 && items.is_empty() {
            return Ok(());
        }
        self.key(p)?;
        self.array_after(spliced, count, items.iter(), |s, n| s.object(n))
    }

    fn identifiers(&mut self, ids: &[Identifier]) -> io::Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.key(prop!("identifiers", "identifier"))?;
        self.out.push(b'{');
        let first = std::mem::replace(&mut self.first, true);
        self.depth += 1;
        // One member per type, in the order the types first appear.
        for (i, id) in ids.iter().enumerate() {
            let ty = id.kind.as_deref();
            if ids[..i].iter().any(|e| e.kind.as_deref() == ty) {
                continue;
            }
            let values = ids[i..].iter().filter(|e| e.kind.as_deref() == ty);
            self.key_escaped(ty.unwrap_or("$"))?;
            self.array_of(values, |s, e| {
                crate::escape::json_string_into(s.out, &e.value);
                Ok(())
            })?;
        }
        self.depth -= 1;
        self.newline()?;
        self.first = first;
        self.out.push(b'}');
        Ok(())
    }
}

/// Which of its two walks [`Xml`] is on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Attributes,
    Children,
}

/// The XML writer: compact, or pretty (two spaces per level; an element
/// holding text stays on one line).
pub struct Xml<'w, W: Write + ?Sized> {
    out: &'w mut W,
    pretty: bool,
    depth: usize,
    pass: Pass,
    /// The start tag being written is not closed yet (`>` or `/>`).
    open: bool,
    /// The element being written has child elements.
    nested: bool,
}

impl<'w, W: Write + ?Sized> Xml<'w, W> {
    /// A writer to `out`, at nesting `depth` (for pretty indentation).
    pub fn new(out: &'w mut W, pretty: bool, depth: usize) -> Self {
        Xml {
            out,
            pretty,
            depth,
            pass: Pass::Children,
            open: false,
            nested: false,
        }
    }

    fn newline(&mut self) -> io::Result<()> {
        newline(&mut self.out, self.pretty, self.depth)
    }

    /// Closes the start tag of the element whose children are written.
    fn close_start(&mut self) -> io::Result<()> {
        if std::mem::replace(&mut self.open, false) {
            self.out.write_all(b">")?;
        }
        Ok(())
    }

    /// Begins a child element: closes the parent's start tag, indents, and
    /// writes `<name`.
    fn begin(&mut self, name: &str) -> io::Result<()> {
        self.close_start()?;
        self.nested = true;
        self.newline()?;
        write!(self.out, "<{name}")
    }

    /// Writes `value` as the element `name` (with `extra` attributes first:
    /// the root's namespace declarations).
    ///
    /// # Errors
    /// The writer's.
    pub fn element<N: Node>(&mut self, name: &str, value: &N) -> io::Result<()> {
        self.element_with(name, &[], value)
    }

    /// As [`Xml::element`], with attributes written before the value's.
    pub(crate) fn element_with<N: Node>(
        &mut self,
        name: &str,
        extra: &[(&str, &str)],
        value: &N,
    ) -> io::Result<()> {
        let pass = self.pass;
        self.begin(name)?;
        for (k, v) in extra {
            write!(self.out, " {k}=\"")?;
            xml_escaped(self.out, v, true)?;
            self.out.write_all(b"\"")?;
        }
        self.pass = Pass::Attributes;
        value.emit(self)?;
        self.pass = Pass::Children;
        self.open = true;
        self.nested = false;
        self.depth += 1;
        value.emit(self)?;
        self.depth -= 1;
        if self.open {
            self.open = false;
            self.out.write_all(b"/>")?;
        } else {
            if self.nested {
                self.newline()?;
            }
            write!(self.out, "</{name}>")?;
        }
        // Back to the parent, which now has a child element.
        (self.pass, self.nested) = (pass, true);
        Ok(())
    }

    /// An element holding only text (and `attr`, if given).
    fn text_element(
        &mut self,
        name: &str,
        attr: Option<(&str, &str)>,
        text: &str,
    ) -> io::Result<()> {
        self.begin(name)?;
        if let Some((k, v)) = attr {
            write!(self.out, " {k}=\"")?;
            xml_escaped(self.out, v, true)?;
            self.out.write_all(b"\"")?;
        }
        self.out.write_all(b">")?;
        xml_escaped(self.out, text, false)?;
        write!(self.out, "</{name}>")
    }
}

impl<W: Write + ?Sized> Emit for Xml<'_, W> {
    fn is_xml(&self) -> bool {
        true
    }

    fn attr(&mut self, p: &Prop, value: Option<&str>) -> io::Result<()> {
        if let (Pass::Attributes, Some(v)) = (self.pass, value) {
            write!(self.out, " {}=\"", p.xml)?;
            xml_escaped(self.out, v, true)?;
            self.out.write_all(b"\"")?;
        }
        Ok(())
    }

    fn flag(&mut self, p: &Prop, value: bool) -> io::Result<()> {
        if self.pass == Pass::Attributes && value {
            write!(self.out, " {}=\"true\"", p.xml)?;
        }
        Ok(())
    }

    fn text(&mut self, p: &Prop, value: Option<&str>) -> io::Result<()> {
        match (self.pass, value) {
            (Pass::Children, Some(v)) => self.text_element(p.xml, None, v),
            _ => Ok(()),
        }
    }

    fn content(&mut self, _: &Prop, value: &str) -> io::Result<()> {
        if self.pass == Pass::Children {
            self.close_start()?;
            xml_escaped(self.out, value, false)?;
        }
        Ok(())
    }

    fn timestamp(&mut self, p: &Prop, _: i64, date_time: &str) -> io::Result<()> {
        self.text(p, Some(date_time))
    }

    fn number(&mut self, p: &Prop, value: Option<f64>) -> io::Result<()> {
        match value.filter(|v| v.is_finite()) {
            Some(v) => self.text(p, Some(&v.to_string())),
            None => Ok(()),
        }
    }

    fn child<N: Node>(&mut self, p: &Prop, value: Option<&N>) -> io::Result<()> {
        match (self.pass, value) {
            (Pass::Children, Some(v)) => self.element(p.xml, v),
            _ => Ok(()),
        }
    }

    fn list<N: Node>(&mut self, p: &Prop, items: &[N]) -> io::Result<()> {
        if self.pass == Pass::Children {
            for item in items {
                self.element(p.xml, item)?;
            }
        }
        Ok(())
    }

    fn reference(&mut self, p: &Prop, uri: Option<&str>) -> io::Result<()> {
        if let (Pass::Children, Some(uri)) = (self.pass, uri) {
            self.begin(p.xml)?;
            self.out.write_all(b" resource=\"")?;
            xml_escaped(self.out, uri, true)?;
            self.out.write_all(b"\"/>")?;
        }
        Ok(())
    }

    fn references(&mut self, p: &Prop, uris: &[String]) -> io::Result<()> {
        for uri in uris {
            self.reference(p, Some(uri))?;
        }
        Ok(())
    }

    fn identifiers(&mut self, ids: &[Identifier]) -> io::Result<()> {
        if self.pass == Pass::Children {
            for id in ids {
                let ty = id.kind.as_deref().map(|t| ("type", t));
                self.text_element("identifier", ty, &id.value)?;
            }
        }
        Ok(())
    }

    fn text_spliced(&mut self, p: &Prop, spliced: &[u8], rest: &str) -> io::Result<()> {
        if self.pass != Pass::Children {
            return Ok(());
        }
        self.begin(p.xml)?;
        self.out.write_all(b">")?;
        self.out.write_all(spliced)?;
        xml_escaped(self.out, rest, false)?;
        write!(self.out, "</{}>", p.xml)
    }

    fn list_spliced<N: Node>(
        &mut self,
        p: &Prop,
        spliced: &[u8],
        count: usize,
        items: &[N],
    ) -> io::Result<()> {
        if self.pass != Pass::Children {
            return Ok(());
        }
        if count > 0 {
            // What `begin` does before each element, for the spliced ones.
            self.close_start()?;
            self.nested = true;
            self.out.write_all(spliced)?;
        }
        for item in items {
            self.element(p.xml, item)?;
        }
        Ok(())
    }
}

/// In pretty output, a line break and two spaces per level of `depth`
/// (nothing otherwise): the one indentation of both formats.
fn newline<W: Write + ?Sized>(out: &mut W, pretty: bool, depth: usize) -> io::Result<()> {
    if pretty {
        out.write_all(b"\n")?;
        for _ in 0..depth {
            out.write_all(b"  ")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`Json`] writes of `p`'s name: a first member, then another.
    fn members(p: &Prop) -> String {
        let mut out = Vec::new();
        let mut json = Json::new(&mut out, false, 0);
        json.key(p).unwrap();
        json.out.push(b'1');
        json.key(p).unwrap();
        json.out.push(b'2');
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_member_name_is_written_whole_whatever_its_length() {
        let names = [
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "lang",
            "names",
            "identifiers",
            "stateOrProvince",
            "abcdefghijklmnopqrst",
        ];
        for name in names {
            let p = Prop::new(name, "x");
            assert_eq!(members(&p), format!("\"{name}\":1,\"{name}\":2"));
        }
        // Pretty: the same names, indented.
        let mut out = Vec::new();
        let mut json = Json::new(&mut out, true, 1);
        json.key(prop!("lang", "xml:lang")).unwrap();
        json.key(prop!("lang", "xml:lang")).unwrap();
        assert_eq!(out, b"\n  \"lang\": ,\n  \"lang\": ");
    }

    #[test]
    #[should_panic(expected = "1 to 20 bytes")]
    fn a_member_name_longer_than_the_token_is_refused() {
        let _ = Prop::new("abcdefghijklmnopqrstu", "x");
    }

    #[test]
    #[should_panic(expected = "letters and digits")]
    fn a_member_name_that_needs_an_escape_is_refused() {
        let _ = Prop::new("a\"b", "x");
    }

    fn xml(s: &str, attr: bool) -> String {
        let mut out = Vec::new();
        xml_escaped(&mut out, s, attr).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn xml_escapes_markup_and_replaces_what_xml_cannot_carry() {
        assert_eq!(xml("a<b>&\"c\"\n", false), "a&lt;b&gt;&amp;\"c\"\n");
        assert_eq!(xml("a\"b\tc\nd", true), "a&quot;b&#9;c&#10;d");
        assert_eq!(xml("x\u{1}\ry", false), "x\u{fffd}&#13;y");
    }
}
