//! Structure types (seed §7) chunk by chunk: the HEAD's schema, read once
//! before the chunks, and a [`TypeResolver`] per chunk (or one for a whole
//! stream) that types exactly as one resolver over the whole document.
//! Chunks are read with the document's line numbers for this.

use std::sync::Arc;

use gedcom_elf::tree::{Schema, TypeResolver};
use gedcom_elf::{Error, Event, Reader};

/// The document's schema and where its first record begins.
pub struct Typing {
    /// The HEAD's schema (the default one until [`Typing::prepare`]).
    pub schema: Arc<Schema>,
    /// The line of the document's first structure (the HEAD).
    first_line: u64,
}

impl Typing {
    /// The default schema, until [`Typing::prepare`] reads the HEAD's.
    pub fn new() -> Typing {
        Typing {
            schema: Schema::default_schema(),
            first_line: 1,
        }
    }

    /// Reads the schema from the HEAD; `reader` has not returned an event.
    pub fn prepare(&mut self, reader: &Reader<'_>) -> Result<(), Error> {
        self.schema = Schema::from_reader(reader.clone())?;
        if let Some(Event::Begin(b)) = reader.clone().next_event()? {
            self.first_line = b.line;
        }
        Ok(())
    }

    /// A resolver for one chunk, or for a whole stream: it types its first
    /// record as the document's first only when it is (by its line).
    pub fn resolver(&self) -> TypeResolver {
        TypeResolver::new(self.schema.clone()).document_starts_at(self.first_line)
    }
}
