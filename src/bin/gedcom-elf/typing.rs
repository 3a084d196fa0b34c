//! Structure types (seed §7) chunk by chunk: the HEAD's schema, read once
//! before the chunks, and a [`TypeResolver`] per chunk (or one for a whole
//! stream) that types exactly as one resolver over the whole document.

use std::sync::Arc;

use gedcom_elf::tree::{Schema, SchemaBuilder, StructureType, TypeResolver};
use gedcom_elf::{Begin, Error, Event, Reader};

/// The document's schema and where its first record begins.
pub struct Typing {
    schema: Arc<Schema>,
    /// The line of the document's first structure (the HEAD).
    first_line: u64,
}

impl Typing {
    /// The default schema, until [`Typing::prepare`] reads the HEAD's.
    pub fn new() -> Typing {
        Typing {
            schema: SchemaBuilder::new().finish(),
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

    /// The schema in use.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// A resolver for one chunk, or for a whole stream.
    pub fn resolver(&self) -> Resolver {
        Resolver {
            types: TypeResolver::new(self.schema.clone()),
            first_line: self.first_line,
            started: false,
        }
    }
}

/// A [`TypeResolver`] that may start at any record boundary.
pub struct Resolver {
    types: TypeResolver,
    first_line: u64,
    started: bool,
}

impl Resolver {
    /// The type of the structure `b` begins.
    pub fn begin<'r>(&'r mut self, b: &'r Begin<'_>) -> Option<StructureType<'r>> {
        if !self.started {
            self.started = true;
            // A resolver types its first record as the document's first
            // (a HEAD there is serialisation metadata), unless told that the
            // chunk starts later in the document.
            if b.line != self.first_line {
                self.types.after_first_record();
            }
        }
        self.types.begin(b)
    }

    /// The most recently begun structure ends.
    pub fn end(&mut self) {
        self.types.end();
    }

    /// [`Resolver::begin`] or [`Resolver::end`], by event.
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
