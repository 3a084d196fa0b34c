//! What a writer is given: payloads, preorder steps, structures, and the `HEAD`'s
//! options and schema.

use crate::escape::EscapeTable;

/// A payload to write: text (decoded, as [`Payload::text`](crate::Payload::text) gives
/// it) or a pointer (`@` signs included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteValue<'v> {
    /// A string payload; escaped, split and encoded by the writer.
    Text(&'v str),
    /// A pointer such as `@I1@`, written as it is.
    Pointer(&'v str),
}

/// One step of a preorder walk over structures to write, for
/// [`Writer::write_steps`](crate::write::Writer::write_steps): the thin adapter any tree
/// can offer. (Not a [`tree::Step`](crate::tree::Step), a step of a [`Tree`](crate::Tree)'s own walk.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteStep<'v> {
    /// A structure begins.
    Begin {
        /// Its tag.
        tag: &'v str,
        /// Its xref, `@` signs included.
        xref: Option<&'v str>,
        /// Its payload.
        value: Option<WriteValue<'v>>,
    },
    /// The most recently begun open structure ends.
    End,
}

/// A structure with substructures, for
/// [`Writer::write_structure`](crate::write::Writer::write_structure).
pub trait Structure {
    /// The tag.
    fn tag(&self) -> &str;
    /// The xref, `@` signs included.
    fn xref(&self) -> Option<&str>;
    /// The payload.
    fn value(&self) -> Option<WriteValue<'_>>;
    /// The substructures, in order.
    fn children(&self) -> impl Iterator<Item = &Self>;
}

/// An owned structure: the simplest [`Structure`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// The tag.
    pub tag: String,
    /// The xref, `@` signs included.
    pub xref: Option<String>,
    /// The payload: text, or a pointer when `pointer` is set.
    pub value: Option<String>,
    /// Whether `value` is a pointer.
    pub pointer: bool,
    /// The substructures.
    pub children: Vec<Node>,
}

impl Node {
    /// A structure with a tag only.
    #[must_use]
    pub fn new(tag: impl Into<String>) -> Self {
        Node {
            tag: tag.into(),
            ..Node::default()
        }
    }

    /// Sets a text payload.
    #[must_use]
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.value = Some(text.into());
        self.pointer = false;
        self
    }

    /// Sets a pointer payload.
    #[must_use]
    pub fn pointer(mut self, xref: impl Into<String>) -> Self {
        self.value = Some(xref.into());
        self.pointer = true;
        self
    }

    /// Sets the xref.
    #[must_use]
    pub fn xref(mut self, xref: impl Into<String>) -> Self {
        self.xref = Some(xref.into());
        self
    }

    /// Appends a substructure.
    #[must_use]
    pub fn child(mut self, child: Node) -> Self {
        self.children.push(child);
        self
    }
}

impl Structure for Node {
    fn tag(&self) -> &str {
        &self.tag
    }
    fn xref(&self) -> Option<&str> {
        self.xref.as_deref()
    }
    fn value(&self) -> Option<WriteValue<'_>> {
        self.value.as_deref().map(|v| {
            if self.pointer {
                WriteValue::Pointer(v)
            } else {
                WriteValue::Text(v)
            }
        })
    }
    fn children(&self) -> impl Iterator<Item = &Self> {
        self.children.iter()
    }
}

/// The schema a `HEAD` declares, as its `1 SCHMA` structure (seed §6.2), for
/// [`Writer::begin_head`](crate::write::Writer::begin_head): the lines to write. (Not a
/// [`tree::Schema`](crate::tree::Schema), the schema a reader builds from such lines.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadSchema {
    /// External schema IRIs (`2 SCHMA IRI`).
    pub external: Vec<String>,
    /// Prefix abbreviations (`2 PRFX prefix IRI`).
    pub prefixes: Vec<(String, String)>,
    /// Escape-preserving tags (`2 ESC TAG TYPES`); the writer preserves exactly these.
    pub escapes: EscapeTable,
    /// IRI definitions (`2 IRI`, with `3 ISA` and `3 TAG` lines).
    pub iris: Vec<IriDefinition>,
}

impl Default for HeadSchema {
    /// No external schema, prefix or IRI; `ESC DATE D`, as in the default schema.
    fn default() -> Self {
        HeadSchema {
            external: Vec::new(),
            prefixes: Vec::new(),
            escapes: EscapeTable::default(),
            iris: Vec::new(),
        }
    }
}

/// One IRI definition structure of a [`HeadSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IriDefinition {
    /// The structure type identifier (prefix shortened or not).
    pub iri: String,
    /// Supertypes (`3 ISA`).
    pub supertypes: Vec<String>,
    /// Tag definitions (`3 TAG tag superstructure...`).
    pub tags: Vec<(String, Vec<String>)>,
}

/// What [`Writer::begin_head`](crate::write::Writer::begin_head) writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadOptions {
    /// Write `1 GEDC` with `2 VERS 5.5.1`, `2 FORM LINEAGE-LINKED` and, when `elf` is
    /// set, `2 ELF` with that version. Default on, ELF `1.0.0`.
    pub gedc: bool,
    /// The ELF version under `GEDC`. Default `Some("1.0.0")`.
    pub elf: Option<String>,
    /// The schema; `None` (the default) writes none, and readers use the default schema.
    pub schema: Option<HeadSchema>,
}

impl Default for HeadOptions {
    fn default() -> Self {
        HeadOptions {
            gedc: true,
            elf: Some("1.0.0".into()),
            schema: None,
        }
    }
}
