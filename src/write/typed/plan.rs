//! [`plan()`]: the tags, xref ids and schema lines a [`TypedDocument`] is written with.

use std::collections::{HashMap, HashSet};

use crate::tree::schema::{Schema, SchemaSource, METADATA, UNDEFINED, UNDEFINED_TAG_BASE};
use crate::write::error::{WriteError, WriteErrorKind};
use crate::write::value::{HeadOptions, HeadSchema, IriDefinition};
use crate::write::writer::Writer;

use super::document::{
    RecordId, StructureId, TypedDocument, TypedValue, DOC_TYPE, META_TYPE, NONE,
};

/// How much of the schema a written `SCHMA` carries (see the [module
/// documentation](crate::write::typed)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SchemaLines {
    /// The whole schema written with, plus the new definitions. The default.
    #[default]
    Full,
    /// Only the tag and supertype definitions the output relies on, plus the new
    /// ones.
    Minimal,
}

/// How a [`TypedDocument`] is written: from [`plan()`].
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per document type id: the expanded IRI.
    pub(super) expanded: Vec<String>,
    /// Per node: index into `tags`.
    pub(super) node_tag: Vec<u32>,
    pub(super) tags: Vec<Box<str>>,
    pub(super) xrefs: HashMap<u32, Box<str>>,
    pub(super) invented: Vec<(Box<str>, String)>,
    pub(super) schema: Option<HeadSchema>,
}

impl Plan {
    /// The tag `id` is written with.
    #[must_use]
    pub fn tag(&self, id: impl Into<StructureId>) -> Option<&str> {
        let t = *self.node_tag.get(id.into().0 as usize)?;
        Some(&self.tags[t as usize])
    }

    /// The xref id `record` is written with (`None` when it has none).
    #[must_use]
    pub fn xref(&self, record: RecordId) -> Option<&str> {
        self.xrefs.get(&record.0).map(|x| &**x)
    }

    /// The tags invented for types the schema has no tag for, with their types.
    pub fn invented(&self) -> impl Iterator<Item = (&str, &str)> {
        self.invented.iter().map(|(t, i)| (&**t, i.as_str()))
    }

    /// The `SCHMA` written under the `HEAD`; `None` when none is (the default
    /// schema is in force).
    #[must_use]
    pub fn schema(&self) -> Option<&HeadSchema> {
        self.schema.as_ref()
    }

    /// The expanded type of `id`.
    #[must_use]
    pub fn structure_type<'p>(
        &'p self,
        doc: &TypedDocument,
        id: impl Into<StructureId>,
    ) -> Option<&'p str> {
        let n = doc.nodes.get(id.into().0 as usize)?;
        self.expanded.get(n.ty as usize).map(String::as_str)
    }
}

pub(super) fn untaggable(message: String) -> WriteError {
    WriteError::new(WriteErrorKind::Untaggable, message)
}

/// `true` when `tag` can never be chosen in context `ctx`: continuation tags
/// everywhere, `HEAD`/`TRLR` for records, `CHAR`/`SCHMA` under the `HEAD`.
pub(super) fn reserved_in(tag: &str, ctx: u32) -> bool {
    if tag == "CONT" || tag == "CONC" {
        return true;
    }
    match ctx {
        DOC_TYPE => tag == "TRLR" || tag.eq_ignore_ascii_case("HEAD"),
        META_TYPE => tag.eq_ignore_ascii_case("CHAR") || tag == "SCHMA",
        _ => false,
    }
}

pub(super) const SPECIAL_TAGS: &[&str] = &[
    "HEAD", "TRLR", "CHAR", "SCHMA", "CONT", "CONC", "ERROR", "UNDEF", "GEDC",
];

/// `_` and the last segment of `iri` in capitals, at most `max` characters.
pub(super) fn tag_base(iri: &str) -> String {
    let seg = iri
        .trim_end_matches(['/', '#', ':'])
        .rsplit(['/', '#', ':'])
        .next()
        .unwrap_or("");
    let mut s = String::from("_");
    let mut prev_us = true;
    for c in seg.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        };
        if c == '_' && prev_us {
            continue;
        }
        prev_us = c == '_';
        s.push(c);
    }
    while s.len() > 1 && s.ends_with('_') {
        s.pop();
    }
    if s.len() == 1 {
        s.push('X');
    }
    s.truncate(15);
    s
}

/// A breadth-first ISA path from `from` up to `to` (both included), as edges.
pub(super) fn isa_path<'s>(schema: &'s Schema, from: &'s str, to: &str) -> Vec<(&'s str, &'s str)> {
    if from == to {
        return Vec::new();
    }
    let mut prev: HashMap<&str, &str> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    let mut seen: HashSet<&str> = HashSet::from([from]);
    while let Some(x) = queue.pop_front() {
        for s in schema.supertypes(x) {
            if seen.insert(s) {
                prev.insert(s, x);
                if s == to {
                    let mut edges = Vec::new();
                    let mut cur = s;
                    while let Some(&p) = prev.get(cur) {
                        edges.push((p, cur));
                        cur = p;
                    }
                    edges.reverse();
                    return edges;
                }
                queue.push_back(s);
            }
        }
    }
    Vec::new()
}

/// The supertypes, and the tags with their superstructure types, of one IRI.
type IriLines = (Vec<String>, Vec<(String, Vec<String>)>);

/// Accumulates the IRI definitions of a written schema, in first-use order.
#[derive(Default)]
pub(super) struct SchemaOut {
    order: Vec<String>,
    defs: HashMap<String, IriLines>,
}

impl SchemaOut {
    pub(super) fn entry(&mut self, iri: &str) -> &mut IriLines {
        if !self.defs.contains_key(iri) {
            self.order.push(iri.to_string());
        }
        self.defs.entry(iri.to_string()).or_default()
    }

    pub(super) fn isa(&mut self, iri: &str, sup: &str) {
        let e = self.entry(iri);
        if !e.0.iter().any(|s| s == sup) {
            e.0.push(sup.to_string());
        }
    }

    pub(super) fn tag(&mut self, iri: &str, tag: &str, sup: &str) {
        let e = self.entry(iri);
        match e.1.iter_mut().find(|(t, _)| t == tag) {
            Some((_, sups)) => {
                if !sups.iter().any(|s| s == sup) {
                    sups.push(sup.to_string());
                }
            }
            None => e.1.push((tag.to_string(), vec![sup.to_string()])),
        }
    }

    pub(super) fn into_iris(mut self, shorten: &dyn Fn(&str) -> String) -> Vec<IriDefinition> {
        self.order
            .iter()
            .filter_map(|iri| {
                let (isa, tags) = self.defs.remove(iri)?;
                if isa.is_empty() && tags.is_empty() {
                    return None;
                }
                Some(IriDefinition {
                    iri: shorten(iri),
                    supertypes: isa.iter().map(|s| shorten(s)).collect(),
                    tags: tags
                        .into_iter()
                        .map(|(t, sups)| (t, sups.iter().map(|s| shorten(s)).collect()))
                        .collect(),
                })
            })
            .collect()
    }
}

/// Decides tags, xref ids and the `SCHMA` for writing `doc` under `schema` (see the
/// [module documentation](crate::write::typed)).
///
/// # Errors
/// [`WriteErrorKind::InvalidType`] for an empty type or one with whitespace, or an
/// older-draft dictionary as `schema`; [`WriteErrorKind::Untaggable`] for an
/// undefined tag identifier whose tag is defined in its context (or is `CONT` or
/// `CONC`), a structure tagged `ERROR` with substructures, or a type the written
/// schema would not give back;
/// [`WriteErrorKind::InvalidXref`] for two records with the same fixed xref id.
pub fn plan(doc: &TypedDocument, schema: &Schema, lines: SchemaLines) -> Result<Plan, WriteError> {
    if schema.source() == SchemaSource::Dictionary {
        return Err(WriteError::new(
            WriteErrorKind::InvalidType,
            "typed writing needs an ELF schema, not an older draft's IRI dictionary",
        ));
    }
    let expanded: Vec<String> = doc
        .types
        .iter()
        .map(|t| schema.expand(t).into_owned())
        .collect();
    for (i, t) in expanded.iter().enumerate().skip(2) {
        if t.is_empty() || t.contains(char::is_whitespace) {
            return Err(WriteError::new(
                WriteErrorKind::InvalidType,
                format!(
                    "structure type {:?} is not an IRI (empty or with whitespace)",
                    doc.types[i]
                ),
            ));
        }
    }

    // Two spellings of one IRI (prefixed and not) are one type.
    let mut first_of: HashMap<&str, u32> = HashMap::new();
    let canon: Vec<u32> = expanded
        .iter()
        .enumerate()
        .map(|(i, t)| *first_of.entry(t.as_str()).or_insert(i as u32))
        .collect();

    // Reverse index: type -> (tag, superstructure type), schema order.
    let mut by_type: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
    for (tag, sup, ty) in schema.all_tag_definitions() {
        by_type.entry(ty).or_default().push((tag, sup));
    }

    // Pass 1: a tag for every distinct (context, type) pair the schema covers.
    let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
    let mut pair_order: Vec<(u32, u32)> = Vec::new();
    let mut decided: Vec<Option<(String, Option<String>)>> = Vec::new();
    let mut node_pair: Vec<u32> = Vec::with_capacity(doc.nodes.len());
    for i in 0..doc.nodes.len() as u32 {
        let key = (
            canon[doc.context(i) as usize],
            canon[doc.nodes[i as usize].ty as usize],
        );
        let next = pairs.len() as u32;
        let p = *pairs.entry(key).or_insert(next);
        if p == next {
            pair_order.push(key);
            decided.push(None);
        }
        node_pair.push(p);
    }
    let mut pending: Vec<u32> = Vec::new();
    for (p, &(ctx, ty)) in pair_order.iter().enumerate() {
        let (c, t) = (&expanded[ctx as usize], &expanded[ty as usize]);
        if t == UNDEFINED {
            if schema.type_of(c, "UNDEF").is_some_and(|x| x == t.as_str()) {
                decided[p] = Some(("UNDEF".into(), None));
                continue;
            }
            return Err(untaggable(format!(
                "elf:Undefined under {c}: UNDEF is defined there"
            )));
        }
        if let Some(tag) = t.strip_prefix(UNDEFINED_TAG_BASE) {
            let ok = !tag.is_empty()
                && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !reserved_in(tag, ctx)
                && schema.type_of(c, tag).is_some_and(|x| x == t.as_str());
            if !ok {
                return Err(untaggable(format!(
                    "{t} under {c}: {tag:?} is not a tag, is reserved there, or has a tag definition there"
                )));
            }
            decided[p] = Some((tag.into(), None));
            continue;
        }
        let found = by_type.get(t.as_str()).and_then(|cands| {
            cands.iter().find(|&&(tag, sup)| {
                !reserved_in(tag, ctx)
                    && schema.is_eventual_supertype(sup, c)
                    && schema.type_of(c, tag).is_some_and(|x| x == t.as_str())
            })
        });
        match found {
            Some(&(tag, sup)) => decided[p] = Some((tag.into(), Some(sup.into()))),
            None => pending.push(p as u32),
        }
    }

    // Pass 2: new tags, colliding with nothing in use.
    let mut used: HashSet<String> = SPECIAL_TAGS.iter().map(|t| t.to_string()).collect();
    for (tag, _, _) in schema.all_tag_definitions() {
        used.insert(tag.to_ascii_uppercase());
    }
    for (tag, _) in schema.escapes().iter() {
        used.insert(String::from_utf8_lossy(tag).to_ascii_uppercase());
    }
    for (tag, _) in decided.iter().flatten() {
        used.insert(tag.to_ascii_uppercase());
    }
    let mut invented: Vec<(Box<str>, String)> = Vec::new();
    let mut invented_for: HashMap<u32, String> = HashMap::new();
    for &p in &pending {
        let (_, ty) = pair_order[p as usize];
        let tag = match invented_for.get(&ty) {
            Some(t) => t.clone(),
            None => {
                let base = tag_base(&expanded[ty as usize]);
                let mut tag = base.clone();
                let mut n = 2u32;
                while used.contains(&tag.to_ascii_uppercase()) {
                    let suffix = n.to_string();
                    let keep = base.len().min(15usize.saturating_sub(suffix.len()).max(2));
                    tag = format!("{}{suffix}", &base[..keep]);
                    n += 1;
                }
                used.insert(tag.to_ascii_uppercase());
                invented_for.insert(ty, tag.clone());
                invented.push((tag.clone().into(), expanded[ty as usize].clone()));
                tag
            }
        };
        decided[p as usize] = Some((tag, None));
    }

    // The schema to write.
    let needs_schema = !invented.is_empty() || schema.source() != SchemaSource::Default;
    let mut out_schema = None;
    if needs_schema {
        let mut so = SchemaOut::default();
        match lines {
            SchemaLines::Full => {
                for iri in schema.iris() {
                    for s in schema.supertypes(iri) {
                        so.isa(iri, s);
                    }
                }
                for (tag, sup, ty) in schema.all_tag_definitions() {
                    so.tag(ty, tag, sup);
                }
            }
            SchemaLines::Minimal => {
                let require = |so: &mut SchemaOut, c: &str, tag: &str, ty: &str, sup: &str| {
                    for (a, b) in isa_path(schema, c, sup) {
                        so.isa(a, b);
                    }
                    so.tag(ty, tag, sup);
                };
                // The HEAD lines the writer adds: GEDC with VERS, FORM, ELF.
                let mut head_lines: Vec<(String, &str)> = Vec::new();
                if let Some(g) = schema
                    .type_of(METADATA, "GEDC")
                    .filter(|t| !t.is_undefined())
                {
                    let g = g.iri().into_owned();
                    head_lines.push((METADATA.to_string(), "GEDC"));
                    for t in ["VERS", "FORM", "ELF"] {
                        head_lines.push((g.clone(), t));
                    }
                }
                for (c, tag) in &head_lines {
                    let Some(ty) = schema.type_of(c, tag).filter(|t| !t.is_undefined()) else {
                        continue;
                    };
                    let ty = ty.iri().into_owned();
                    let def = schema
                        .tag_definitions(tag)
                        .find(|&(sup, t)| t == ty && schema.is_eventual_supertype(sup, c));
                    if let Some((sup, _)) = def {
                        require(&mut so, c, tag, &ty, sup);
                    }
                }
                for (p, &(ctx, ty)) in pair_order.iter().enumerate() {
                    if let Some((tag, Some(sup))) = &decided[p] {
                        require(
                            &mut so,
                            &expanded[ctx as usize],
                            tag,
                            &expanded[ty as usize],
                            sup,
                        );
                    }
                }
            }
        }
        for &p in &pending {
            let (ctx, ty) = pair_order[p as usize];
            if let Some((tag, _)) = &decided[p as usize] {
                so.tag(&expanded[ty as usize], tag, &expanded[ctx as usize]);
            }
        }
        // Prefix shortening: the longest prefix whose name expansion reads back.
        let prefixes: Vec<(String, String)> = schema
            .prefixes()
            .into_iter()
            .filter(|(k, v)| !k.is_empty() && !k.contains(':') && !v.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let used_prefixes = std::cell::RefCell::new(HashSet::new());
        let shorten = |iri: &str| -> String {
            let best = prefixes
                .iter()
                .filter(|(_, v)| iri.len() > v.len() && iri.starts_with(v.as_str()))
                .max_by_key(|(_, v)| v.len());
            match best {
                Some((k, v)) => {
                    used_prefixes.borrow_mut().insert(k.clone());
                    format!("{k}:{}", &iri[v.len()..])
                }
                None => iri.to_string(),
            }
        };
        let iris = so.into_iris(&shorten);
        let used_prefixes = used_prefixes.into_inner();
        let prefixes = prefixes
            .into_iter()
            .filter(|(k, _)| lines == SchemaLines::Full || used_prefixes.contains(k))
            .collect();
        out_schema = Some(HeadSchema {
            external: schema.external_schemas().map(str::to_string).collect(),
            prefixes,
            escapes: schema.escapes().clone(),
            iris,
        });
    }

    // Check: every pair the output uses resolves to its type under the written
    // schema (or, with none written, the default one).
    let readback = match &out_schema {
        Some(s) => schema_of(s)?,
        None => Schema::default_schema(),
    };
    let mut tags: Vec<Box<str>> = Vec::new();
    let mut tag_ids: HashMap<String, u32> = HashMap::new();
    let mut pair_tag: Vec<u32> = Vec::with_capacity(pair_order.len());
    for (p, &(ctx, ty)) in pair_order.iter().enumerate() {
        let Some((tag, _)) = &decided[p] else {
            return Err(untaggable("internal: a structure got no tag".into()));
        };
        let (c, t) = (&expanded[ctx as usize], &expanded[ty as usize]);
        if !readback.type_of(c, tag).is_some_and(|x| x == t.as_str()) {
            return Err(untaggable(format!(
                "{t} under {c} as {tag} would not read back as {t}"
            )));
        }
        let next = tags.len() as u32;
        let id = *tag_ids.entry(tag.clone()).or_insert_with(|| {
            tags.push(tag.as_str().into());
            next
        });
        pair_tag.push(id);
    }
    let node_tag: Vec<u32> = node_pair.iter().map(|&p| pair_tag[p as usize]).collect();
    // A reader takes the substructures of an ERROR line for too-deep lines.
    if let Some(i) = (0..doc.nodes.len())
        .find(|&i| doc.nodes[i].first != NONE && &*tags[node_tag[i] as usize] == "ERROR")
    {
        return Err(untaggable(format!(
            "structure {i} is tagged ERROR and has substructures, which a reader would take for too-deep lines"
        )));
    }

    // Xref ids: fixed ones, then one for each pointed-to record.
    let mut xrefs: HashMap<u32, Box<str>> = HashMap::new();
    let mut fixed: HashSet<String> = HashSet::new();
    for &r in &doc.records {
        if let Some(x) = &doc.nodes[r as usize].xref {
            if !fixed.insert(x.to_ascii_lowercase()) {
                return Err(WriteError::new(
                    WriteErrorKind::InvalidXref,
                    format!("two records have the xref id {x}"),
                ));
            }
            xrefs.insert(r, x.clone());
        }
    }
    let mut pointed = vec![false; doc.nodes.len()];
    for n in &doc.nodes {
        if let Some(TypedValue::Pointer(r)) = &n.value {
            pointed[r.0 as usize] = true;
        }
    }
    let mut counters: HashMap<u8, u32> = HashMap::new();
    for &r in &doc.records {
        if !pointed[r as usize] || xrefs.contains_key(&r) {
            continue;
        }
        let tag = &tags[node_tag[r as usize] as usize];
        let letter = tag
            .bytes()
            .find(u8::is_ascii_alphanumeric)
            .map_or(b'X', |b| b.to_ascii_uppercase());
        let n = counters.entry(letter).or_insert(0);
        let x = loop {
            *n += 1;
            let x = format!("@{}{}@", letter as char, n);
            if !fixed.contains(&x.to_ascii_lowercase()) {
                break x;
            }
        };
        xrefs.insert(r, x.into());
    }

    Ok(Plan {
        expanded,
        node_tag,
        tags,
        xrefs,
        invented,
        schema: out_schema,
    })
}

/// The schema a reader takes from a `HEAD` holding `s` as its `SCHMA`.
fn schema_of(s: &HeadSchema) -> Result<std::sync::Arc<Schema>, WriteError> {
    let mut w = Writer::new(Vec::new());
    w.begin_head(&HeadOptions {
        gedc: false,
        elf: None,
        schema: Some(s.clone()),
    })?;
    w.trailer()?;
    let bytes = w.finish()?;
    Schema::from_reader(crate::Reader::from_slice(&bytes))
        .map_err(|e| WriteError::new(WriteErrorKind::Read, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn tag_bases() {
        assert_eq!(tag_base("https://example.com/ext/Nickname"), "_NICKNAME");
        assert_eq!(tag_base("https://example.com/ext#nick-name"), "_NICK_NAME");
        assert_eq!(tag_base("urn:x:label/"), "_LABEL");
        assert_eq!(tag_base("https://example.com/"), "_EXAMPLE_COM");
        assert_eq!(tag_base("https://example.com/ext/--"), "_X");
        assert_eq!(
            tag_base("https://e/AVeryLongTypeNameIndeed"),
            "_AVERYLONGTYPEN"
        );
    }
}
