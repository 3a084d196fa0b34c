//! Structure type identifiers (seed §7) while streaming: [`TypeResolver`].

use std::sync::Arc;

use crate::event::{Begin, Event};
use crate::tree::iri::StructureType;
use crate::tree::schema::{Ctx, Schema, TypeKey};

/// Gives each structure of an event stream its structure type identifier
/// (seed §7.3) as the events go by: feed it every Begin and End in order.
///
/// It keeps one small context per open structure (O(depth), no
/// recursion), and remembers the last resolutions by (context, tag) in a
/// fixed memo of 256 slots, so that the pairs a document repeats cost a
/// comparison each. Records are typed in the context `elf:Document` and the
/// HEAD's substructures in `elf:Metadata`; serialisation metadata (the HEAD
/// itself, its `CHAR` and `SCHMA` with their subtrees, `TRLR`) has no type.
///
/// ```
/// use gedcom_elf::{Event, Reader};
/// use gedcom_elf::tree::{Schema, TypeResolver};
///
/// let input = b"0 HEAD\n1 CHAR UTF-8\n0 @F1@ FAM\n1 HUSB @I1@\n1 MARR\n2 HUSB\n3 AGE 30y\n0 TRLR\n";
/// let schema = Schema::from_reader(Reader::from_slice(input))?;
/// let mut types = TypeResolver::new(schema);
/// let mut out = Vec::new();
/// for event in Reader::from_slice(input) {
///     let event = event?;
///     if let Some(t) = types.event(&event) {
///         out.push(t.to_string().replace("https://terms.fhiso.org/elf/", "elf:"));
///     }
/// }
/// assert_eq!(out, ["elf:FAM_RECORD", "elf:PARENT1_POINTER", "elf:MARRIAGE",
///                  "elf:Parent1Age", "elf:AGE_AT_EVENT"]);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TypeResolver {
    schema: Arc<Schema>,
    stack: Vec<Ctx>,
    records: u64,
    /// The line of the document's first record, when the events may start
    /// later in the document.
    first_line: Option<u64>,
    /// Substructures' resolutions remembered, one slot per hash of (context,
    /// tag) ([`Memo`]); empty until the first substructure.
    memo: Vec<Memo>,
}

/// A substructure's resolution, remembered: the type and the context of its
/// own substructures depend only on its superstructure's context and its
/// tag ([`Schema::resolve`]), and a document holds a few dozen such pairs,
/// met again and again. A hit costs a comparison of two words instead of a
/// look-up of the tag and a search of the context's ancestors.
#[derive(Clone, Copy, Debug)]
struct Memo {
    ctx: Ctx,
    /// The tag's [`packed`] form; 0 in an empty slot.
    tag: u64,
    key: Option<TypeKey>,
    child: Ctx,
}

/// Slots of [`TypeResolver`]'s memo (a power of two).
const MEMO_SLOTS: usize = 256;

/// A tag of up to 7 bytes as one word (its bytes, its length in the top
/// byte: never 0); `None` for a longer tag, which is not remembered.
#[inline]
fn packed(tag: &str) -> Option<u64> {
    let b = tag.as_bytes();
    if b.is_empty() || b.len() > 7 {
        return None;
    }
    // Byte by byte: a copy into a buffer read back as a word stalls the
    // read until the copy's stores reach it.
    let mut w = (b.len() as u64) << 56;
    for (i, &c) in b.iter().enumerate() {
        w |= u64::from(c) << (8 * i);
    }
    Some(w)
}

/// The memo slot of (`ctx`, a packed tag).
#[inline]
fn slot(ctx: Ctx, tag: u64) -> usize {
    let c: u64 = match ctx {
        Ctx::Untyped => 0,
        Ctx::Head => 1,
        Ctx::Unknown => 2,
        Ctx::Dict => 3,
        Ctx::Type(t) => 4 + u64::from(t),
    };
    let h = (tag ^ c.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 56) as usize & (MEMO_SLOTS - 1)
}

impl TypeResolver {
    /// A resolver for a document read with `schema` (see
    /// [`Schema::from_reader`]).
    pub fn new(schema: Arc<Schema>) -> Self {
        TypeResolver {
            schema,
            stack: Vec::new(),
            records: 0,
            first_line: None,
            memo: Vec::new(),
        }
    }

    /// Tells the resolver that the document's first record begins at `line`,
    /// for events that may start anywhere in the document (a chunk, a batch):
    /// the first record it is given is typed as the document's first (where a
    /// `HEAD` is serialisation metadata) only when it begins at that line.
    /// The events' line numbers must be the document's.
    ///
    /// ```
    /// use gedcom_elf::{Event, Reader};
    /// use gedcom_elf::tree::{Schema, TypeResolver};
    ///
    /// let input = b"0 HEAD\n1 CHAR UTF-8\n0 HEAD\n0 TRLR\n";
    /// let schema = Schema::from_reader(Reader::from_slice(input))?;
    /// let mut types = TypeResolver::new(schema).document_starts_at(1);
    /// // The events from line 3 on, as a chunk that starts there.
    /// let mut typed = Vec::new();
    /// let mut started = false;
    /// for event in Reader::from_slice(input) {
    ///     let event = event?;
    ///     started |= matches!(&event, Event::Begin(b) if b.line == 3);
    ///     if started {
    ///         typed.push(types.event(&event).map(|t| t.to_string()));
    ///     }
    /// }
    /// // The HEAD at line 3 is not the document's first record: not metadata.
    /// assert!(typed[0].is_some());
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    #[must_use]
    pub fn document_starts_at(mut self, line: u64) -> Self {
        self.first_line = Some(line);
        self
    }

    /// The schema in use.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The type of the structure `begin` starts (`None` for serialisation
    /// metadata). Call [`TypeResolver::end`] when it ends.
    pub fn begin<'r>(&'r mut self, begin: &'r Begin<'_>) -> Option<StructureType<'r>> {
        let tag: &'r str = &begin.tag;
        let (key, ctx) = match self.stack.last() {
            None => {
                let first =
                    self.records == 0 && self.first_line.is_none_or(|line| line == begin.line);
                self.records += 1;
                self.schema.record(tag, first)
            }
            Some(&parent) => self.resolve(parent, tag),
        };
        self.stack.push(ctx);
        key.map(|k| self.schema.structure_type(k, tag))
    }

    /// [`Schema::resolve`], through the memo.
    #[inline]
    fn resolve(&mut self, parent: Ctx, tag: &str) -> (Option<TypeKey>, Ctx) {
        let Some(packed) = packed(tag) else {
            return self.schema.resolve(parent, tag);
        };
        if self.memo.is_empty() {
            let empty = Memo {
                ctx: Ctx::Untyped,
                tag: 0,
                key: None,
                child: Ctx::Untyped,
            };
            self.memo = vec![empty; MEMO_SLOTS];
        }
        let at = slot(parent, packed);
        let m = self.memo[at];
        if m.tag == packed && m.ctx == parent {
            return (m.key, m.child);
        }
        let (key, child) = self.schema.resolve(parent, tag);
        self.memo[at] = Memo {
            ctx: parent,
            tag: packed,
            key,
            child,
        };
        (key, child)
    }

    /// The most recently begun structure ends.
    pub fn end(&mut self) {
        self.stack.pop();
    }

    /// Tells the resolver that the document's first record came before the
    /// events it will be given (a chunk that starts later in the document),
    /// so that the first record it sees is not typed as the document's first
    /// (where a `HEAD` is serialisation metadata).
    pub fn after_first_record(&mut self) {
        self.records = self.records.max(1);
    }

    /// [`TypeResolver::begin`] or [`TypeResolver::end`], by event.
    pub fn event<'r>(&'r mut self, event: &'r Event<'_>) -> Option<StructureType<'r>> {
        match event {
            Event::Begin(b) => self.begin(b),
            Event::End(_) => {
                self.end();
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;

    /// The IRI of each record's type, in order.
    fn record_types(types: &mut TypeResolver, input: &[u8]) -> Vec<Option<String>> {
        let mut out = Vec::new();
        for e in Reader::with_config(input, crate::ReaderConfig::new().headless(true)) {
            let e = e.unwrap();
            let level0 = matches!(&e, Event::Begin(b) if b.level == 0);
            let t = types.event(&e).map(|t| t.iri().into_owned());
            if level0 {
                out.push(t);
            }
        }
        out
    }

    /// The memo gives what the schema gives, for more (context, tag) pairs
    /// than it has slots (so slots are taken over), tags of every length.
    #[test]
    fn remembered_resolutions_are_the_schema_s() {
        let tags = [
            "NAME",
            "BIRT",
            "DATE",
            "PLAC",
            "SOUR",
            "PAGE",
            "NOTE",
            "CONT",
            "FAMC",
            "PEDI",
            "HUSB",
            "AGE",
            "_X",
            "_LONGTAG",
            "_LONGERTAGX",
            "MARR",
            "TYPE",
            "ADDR",
            "CITY",
            "OBJE",
        ];
        let mut doc = String::from("0 HEAD\n1 CHAR UTF-8\n");
        for (r, record) in ["INDI", "FAM", "SOUR", "_REC", "NOTE"].iter().enumerate() {
            for i in 0..40 {
                doc += &format!("0 @X{r}_{i}@ {record}\n");
                for (j, a) in tags.iter().enumerate() {
                    let b = tags[(i + j) % tags.len()];
                    let c = tags[(i * 7 + j) % tags.len()];
                    doc += &format!("1 {a}\n2 {b}\n3 {c}\n");
                }
            }
        }
        doc += "0 TRLR\n";
        let schema = crate::tree::Schema::default_schema();
        let mut memo = TypeResolver::new(schema.clone());
        // The schema alone, as the resolver calls it.
        let mut stack: Vec<Ctx> = Vec::new();
        let mut records = 0;
        let mut begins = 0;
        for e in Reader::from_slice(doc.as_bytes()) {
            let e = e.unwrap();
            let got = memo.event(&e).map(|t| t.iri().into_owned());
            match &e {
                Event::Begin(b) => {
                    let (key, ctx) = match stack.last() {
                        None => {
                            records += 1;
                            schema.record(&b.tag, records == 1)
                        }
                        Some(&parent) => schema.resolve(parent, &b.tag),
                    };
                    stack.push(ctx);
                    let want = key.map(|k| schema.structure_type(k, &b.tag).iri().into_owned());
                    assert_eq!(got, want, "{} at line {}", b.tag, b.line);
                    begins += 1;
                }
                Event::End(_) => {
                    stack.pop();
                }
            }
        }
        assert!(begins > 11_000, "{begins}");
    }

    #[test]
    fn after_first_record_types_the_first_record_seen_as_a_later_one() {
        let schema = crate::tree::Schema::default_schema();
        let whole = record_types(
            &mut TypeResolver::new(schema.clone()),
            b"0 HEAD\n0 HEAD\n0 TRLR\n",
        );
        // A HEAD that is not first is not serialisation metadata.
        assert_ne!(whole[0], whole[1]);
        let mut later = TypeResolver::new(schema);
        later.after_first_record();
        let chunk = record_types(&mut later, b"0 HEAD\n0 TRLR\n");
        assert_eq!(chunk[0], whole[1]);
    }

    #[test]
    fn a_first_record_at_another_line_than_the_document_s_is_a_later_one() {
        let schema = crate::tree::Schema::default_schema();
        let whole = record_types(
            &mut TypeResolver::new(schema.clone()),
            b"0 HEAD\n0 HEAD\n0 TRLR\n",
        );
        // Line 1 is the document's first record: metadata.
        let mut at_one = TypeResolver::new(schema.clone()).document_starts_at(1);
        assert_eq!(record_types(&mut at_one, b"0 HEAD\n0 TRLR\n")[0], whole[0]);
        // A chunk whose first line is 2 of a document that starts at 1.
        let mut later = TypeResolver::new(schema).document_starts_at(0);
        assert_eq!(record_types(&mut later, b"0 HEAD\n0 TRLR\n")[0], whole[1]);
    }
}
