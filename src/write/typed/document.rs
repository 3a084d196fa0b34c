//! [`TypedDocument`]: structures by structure type, with their ids and payloads.

use std::collections::HashMap;

use crate::scan::is_valid_xref;
use crate::tree::schema::{DOCUMENT, METADATA};
use crate::write::error::{WriteError, WriteErrorKind};

pub(super) const NONE: u32 = u32::MAX;
/// Type ids 0 and 1 of every document: the contexts of records and of the HEAD's
/// substructures.
pub(super) const DOC_TYPE: u32 = 0;
pub(super) const META_TYPE: u32 = 1;

/// A structure of a [`TypedDocument`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructureId(pub(super) u32);

/// A record of a [`TypedDocument`]: what pointers point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordId(pub(super) u32);

impl From<RecordId> for StructureId {
    fn from(r: RecordId) -> Self {
        StructureId(r.0)
    }
}

impl StructureId {
    /// The structure's index in its document (creation order).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A payload of a typed structure.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypedValue {
    /// Text (escaped, split and encoded by the writer).
    Text(String),
    /// A pointer to a record, written with that record's xref id.
    Pointer(RecordId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    Record,
    Metadata,
    Child(u32),
}

#[derive(Clone, Debug)]
pub(super) struct TNode {
    pub(super) ty: u32,
    pub(super) place: Place,
    pub(super) value: Option<TypedValue>,
    pub(super) xref: Option<Box<str>>,
    pub(super) first: u32,
    pub(super) last: u32,
    pub(super) next: u32,
}

/// Structures described by structure type identifier (see the [module
/// documentation](crate::write::typed)). Built without recursion and written without it: any
/// depth is fine.
#[derive(Clone, Debug)]
pub struct TypedDocument {
    pub(super) types: Vec<Box<str>>,
    pub(super) type_ids: HashMap<Box<str>, u32>,
    pub(super) nodes: Vec<TNode>,
    pub(super) records: Vec<u32>,
    pub(super) metadata: Vec<u32>,
}

impl Default for TypedDocument {
    fn default() -> Self {
        TypedDocument::new()
    }
}

pub(super) fn bad_handle(what: &str) -> WriteError {
    WriteError::new(
        WriteErrorKind::InvalidHandle,
        format!("{what} is not a structure of this document"),
    )
}

impl TypedDocument {
    /// An empty document.
    #[must_use]
    pub fn new() -> Self {
        let mut d = TypedDocument {
            types: Vec::new(),
            type_ids: HashMap::new(),
            nodes: Vec::new(),
            records: Vec::new(),
            metadata: Vec::new(),
        };
        d.intern(DOCUMENT);
        d.intern(METADATA);
        d
    }

    pub(super) fn intern(&mut self, ty: &str) -> u32 {
        if let Some(&id) = self.type_ids.get(ty) {
            return id;
        }
        let id = self.types.len() as u32;
        self.types.push(ty.into());
        self.type_ids.insert(ty.into(), id);
        id
    }

    pub(super) fn push(&mut self, ty: &str, place: Place) -> u32 {
        let ty = self.intern(ty);
        let id = self.nodes.len() as u32;
        self.nodes.push(TNode {
            ty,
            place,
            value: None,
            xref: None,
            first: NONE,
            last: NONE,
            next: NONE,
        });
        id
    }

    /// Appends a record of type `ty` (an IRI, or a prefixed name such as
    /// `elf:INDIVIDUAL_RECORD`, expanded with the schema's prefixes when written).
    pub fn add_record(&mut self, ty: &str) -> RecordId {
        let id = self.push(ty, Place::Record);
        self.records.push(id);
        RecordId(id)
    }

    /// Appends a substructure of the `HEAD` (superstructure type `elf:Metadata`).
    pub fn add_metadata(&mut self, ty: &str) -> StructureId {
        let id = self.push(ty, Place::Metadata);
        self.metadata.push(id);
        StructureId(id)
    }

    /// Appends a substructure of type `ty` to `parent`.
    ///
    /// # Errors
    /// [`WriteErrorKind::InvalidHandle`] when `parent` is not from this document.
    pub fn add(
        &mut self,
        parent: impl Into<StructureId>,
        ty: &str,
    ) -> Result<StructureId, WriteError> {
        let p = parent.into().0;
        if p as usize >= self.nodes.len() {
            return Err(bad_handle("the parent"));
        }
        let id = self.push(ty, Place::Child(p));
        let parent = &mut self.nodes[p as usize];
        let last = parent.last;
        parent.last = id;
        if last == NONE {
            parent.first = id;
        } else {
            self.nodes[last as usize].next = id;
        }
        Ok(StructureId(id))
    }

    /// Appends a substructure with a text payload.
    ///
    /// # Errors
    /// As [`TypedDocument::add`].
    pub fn add_text(
        &mut self,
        parent: impl Into<StructureId>,
        ty: &str,
        text: impl Into<String>,
    ) -> Result<StructureId, WriteError> {
        let id = self.add(parent, ty)?;
        self.nodes[id.0 as usize].value = Some(TypedValue::Text(text.into()));
        Ok(id)
    }

    /// Appends a substructure pointing to `target`.
    ///
    /// # Errors
    /// As [`TypedDocument::set_value`].
    pub fn add_pointer(
        &mut self,
        parent: impl Into<StructureId>,
        ty: &str,
        target: RecordId,
    ) -> Result<StructureId, WriteError> {
        self.check_record(target)?;
        let id = self.add(parent, ty)?;
        self.nodes[id.0 as usize].value = Some(TypedValue::Pointer(target));
        Ok(id)
    }

    pub(super) fn check_record(&self, r: RecordId) -> Result<(), WriteError> {
        match self.nodes.get(r.0 as usize) {
            Some(n) if n.place == Place::Record => Ok(()),
            _ => Err(bad_handle("the pointer's target")),
        }
    }

    /// Sets (or, with `None`, removes) the payload of `id`.
    ///
    /// # Errors
    /// [`WriteErrorKind::InvalidHandle`] when `id` or the pointer's target is not
    /// from this document.
    pub fn set_value(
        &mut self,
        id: impl Into<StructureId>,
        value: Option<TypedValue>,
    ) -> Result<(), WriteError> {
        if let Some(TypedValue::Pointer(r)) = &value {
            self.check_record(*r)?;
        }
        let n = self
            .nodes
            .get_mut(id.into().0 as usize)
            .ok_or_else(|| bad_handle("the structure"))?;
        n.value = value;
        Ok(())
    }

    /// Fixes the xref id of `record` (`@` signs included, as `@I7@`): it is written
    /// whether or not the record is pointed to, and no generated id equals it.
    ///
    /// # Errors
    /// [`WriteErrorKind::InvalidHandle`]; [`WriteErrorKind::InvalidXref`] when
    /// `xref` does not match `XRefID` (`"@" [a-zA-Z0-9_] [^@:!]* "@"`) or holds a
    /// line break.
    pub fn set_xref(&mut self, record: RecordId, xref: &str) -> Result<(), WriteError> {
        self.check_record(record)?;
        if !is_valid_xref(xref.as_bytes()) || xref.contains(['\n', '\r']) {
            return Err(WriteError::new(
                WriteErrorKind::InvalidXref,
                format!("invalid xref {xref:?}: not of the XRefID production"),
            ));
        }
        self.nodes[record.0 as usize].xref = Some(xref.into());
        Ok(())
    }

    /// The number of structures.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// `true` when the document holds no structure.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The records, in order.
    pub fn records(&self) -> impl Iterator<Item = RecordId> + '_ {
        self.records.iter().map(|&r| RecordId(r))
    }

    /// The `HEAD` substructures, in order.
    pub fn metadata(&self) -> impl Iterator<Item = StructureId> + '_ {
        self.metadata.iter().map(|&r| StructureId(r))
    }

    /// The substructures of `id`, in order (none for an id not from this document).
    pub fn children(&self, id: impl Into<StructureId>) -> impl Iterator<Item = StructureId> + '_ {
        let first = self
            .nodes
            .get(id.into().0 as usize)
            .map_or(NONE, |n| n.first);
        std::iter::successors((first != NONE).then_some(first), move |&c| {
            let n = self.nodes[c as usize].next;
            (n != NONE).then_some(n)
        })
        .map(StructureId)
    }

    /// The type of `id`, as given.
    #[must_use]
    pub fn structure_type(&self, id: impl Into<StructureId>) -> Option<&str> {
        let n = self.nodes.get(id.into().0 as usize)?;
        Some(&self.types[n.ty as usize])
    }

    /// The payload of `id`.
    #[must_use]
    pub fn value(&self, id: impl Into<StructureId>) -> Option<&TypedValue> {
        self.nodes.get(id.into().0 as usize)?.value.as_ref()
    }

    /// The xref id the caller fixed for `record`.
    #[must_use]
    pub fn xref(&self, record: RecordId) -> Option<&str> {
        self.nodes.get(record.0 as usize)?.xref.as_deref()
    }

    /// The record a structure belongs to (itself for a record; `None` for the
    /// `HEAD`'s substructures and their subtrees).
    #[must_use]
    pub fn record_of(&self, id: impl Into<StructureId>) -> Option<RecordId> {
        let mut i = id.into().0;
        loop {
            match self.nodes.get(i as usize)?.place {
                Place::Record => return Some(RecordId(i)),
                Place::Metadata => return None,
                Place::Child(p) => i = p,
            }
        }
    }

    /// The superstructure's type id of node `i`.
    pub(super) fn context(&self, i: u32) -> u32 {
        match self.nodes[i as usize].place {
            Place::Record => DOC_TYPE,
            Place::Metadata => META_TYPE,
            Place::Child(p) => self.nodes[p as usize].ty,
        }
    }
}
