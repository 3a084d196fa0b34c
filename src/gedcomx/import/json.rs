//! GEDCOM X JSON behind [`Src`]: serde_json's `Value` of one item at a
//! time, each object with its JSON path (`persons[3].facts[0]`) for errors
//! and issues.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::read::{self, not_read, timestamp_of_millis, Result, Src};
use super::{Gedcomx, ImportError, ImportErrorKind, Issue, Location};
use crate::gedcomx::model::{Identifier, Timestamp};

/// The members of a document's object this reader knows.
const MEMBERS: [&str; 8] = [
    "lang",
    "attribution",
    "persons",
    "relationships",
    "sourceDescriptions",
    "agents",
    "documents",
    "places",
];

/// A serde_json error as an import error.
fn syntax_error(e: &serde_json::Error) -> ImportError {
    let (kind, what) = match e.classify() {
        serde_json::error::Category::Eof => (ImportErrorKind::Syntax, "truncated JSON"),
        serde_json::error::Category::Syntax => (ImportErrorKind::Syntax, "malformed JSON"),
        serde_json::error::Category::Data => (
            ImportErrorKind::NotGedcomx,
            "not a GEDCOM X document: the JSON is not an object",
        ),
        serde_json::error::Category::Io => (ImportErrorKind::NotGedcomx, "not JSON"),
    };
    let message = format!("{what} at line {} column {}: {e}", e.line(), e.column());
    ImportError::new(kind, Location::Document, message)
}

/// The JSON value of one item, read whole (the input's syntax was checked
/// by the first pass).
fn value_of(raw: &RawValue) -> Result<Value> {
    serde_json::from_str(raw.get()).map_err(|e| syntax_error(&e))
}

fn wrong(path: String, expected: &str) -> ImportError {
    ImportError::new(
        ImportErrorKind::Type,
        Location::Json(path),
        format!("expected {expected}"),
    )
}

/// Reads the document in `input`, item by item: a first pass checks the
/// syntax and finds each member of the document's object and each item of
/// its sections (borrowed, not parsed); each item is then parsed into a
/// `Value`, read into the model and dropped, so memory holds the model and
/// one item's `Value`, never the whole document's.
pub(super) fn document(input: &[u8], issues: &mut Vec<Issue>) -> Result<Gedcomx> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let top: BTreeMap<String, &RawValue> =
        serde_json::from_slice(input).map_err(|e| syntax_error(&e))?;
    if !top.is_empty() && !top.keys().any(|k| MEMBERS.contains(&k.as_str())) {
        return Err(ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Document,
            "not a GEDCOM X document: no member of one (persons, relationships, \
             sourceDescriptions...)",
        ));
    }
    /// The items of a section (`null`: none).
    fn items<'a>(key: &str, raw: &'a RawValue) -> Result<Vec<&'a RawValue>> {
        match raw.get().trim_start().as_bytes().first() {
            Some(b'[') => serde_json::from_str(raw.get()).map_err(|e| syntax_error(&e)),
            Some(b'n') => Ok(Vec::new()),
            _ => Err(wrong(key.to_string(), "an array")),
        }
    }
    /// Each item of a section read with `each`.
    fn section<T>(
        key: &str,
        raw: &RawValue,
        issues: &mut Vec<Issue>,
        each: impl for<'x> Fn(J<'x>, &mut Vec<Issue>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        for (i, item) in items(key, raw)?.into_iter().enumerate() {
            let path = format!("{key}[{i}]");
            let Value::Object(map) = value_of(item)? else {
                return Err(wrong(path, "an object"));
            };
            out.push(each(J::new(&map, path), issues)?);
        }
        Ok(out)
    }
    let mut doc = Gedcomx::default();
    // The document's own members, read through a J over them (so that
    // what it does not read is reported as usual).
    let mut own = Map::new();
    for (key, raw) in &top {
        match key.as_str() {
            "persons" => doc.persons = section(key, raw, issues, |j, i| read::person(j, i))?,
            "relationships" => {
                doc.relationships = section(key, raw, issues, |j, i| read::relationship(j, i))?
            }
            "sourceDescriptions" => {
                doc.source_descriptions =
                    section(key, raw, issues, |j, i| read::source_description(j, i))?
            }
            "agents" => doc.agents = section(key, raw, issues, |j, i| read::agent(j, i))?,
            "documents" => {
                doc.documents = section(key, raw, issues, |j, i| read::document_item(j, i))?
            }
            "places" => doc.places = section(key, raw, issues, |j, i| read::place(j, i))?,
            _ => {
                own.insert(key.clone(), value_of(raw)?);
            }
        }
    }
    let j = J::new(&own, String::new());
    doc.lang = j.attr("lang", "xml:lang")?;
    doc.attribution = read::attribution(&j, issues)?;
    j.done(issues);
    Ok(doc)
}

/// One JSON object and its path.
pub(super) struct J<'a> {
    map: &'a Map<String, Value>,
    path: String,
    used: RefCell<Vec<String>>,
    /// Issues found inside members read whole (a reference's object).
    extra: RefCell<Vec<Issue>>,
}

impl<'a> J<'a> {
    fn new(map: &'a Map<String, Value>, path: String) -> Self {
        J {
            map,
            path,
            used: RefCell::new(Vec::new()),
            extra: RefCell::new(Vec::new()),
        }
    }

    fn member_path(&self, json: &str) -> String {
        match self.path.is_empty() {
            true => json.to_string(),
            false => format!("{}.{json}", self.path),
        }
    }

    /// The member `json` (marked read), `null` counting as absent.
    fn get(&self, json: &str) -> Option<&'a Value> {
        self.used.borrow_mut().push(json.to_string());
        self.map.get(json).filter(|v| !v.is_null())
    }

    fn wrong(&self, path: String, expected: &str) -> ImportError {
        ImportError::new(
            ImportErrorKind::Type,
            Location::Json(path),
            format!("expected {expected}"),
        )
    }

    fn string(&self, json: &str) -> Result<Option<String>> {
        match self.get(json) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.wrong(self.member_path(json), "a string")),
        }
    }

    /// `{"resource": uri}` at `path`.
    fn resource(&self, v: &'a Value, path: String) -> Result<String> {
        let Value::Object(m) = v else {
            return Err(self.wrong(path, "an object with a `resource`"));
        };
        let r = J::new(m, path.clone());
        let uri = r.string("resource")?;
        let uri = uri.ok_or_else(|| self.wrong(path, "an object with a `resource`"))?;
        let mut extra = Vec::new();
        r.done(&mut extra);
        self.extra.borrow_mut().extend(extra);
        Ok(uri)
    }
}

impl<'a> Src for J<'a> {
    fn at(&self) -> Location {
        Location::Json(self.path.clone())
    }

    fn at_member(&self, json: &str, _: &str) -> Location {
        Location::Json(self.member_path(json))
    }

    fn attr(&self, json: &str, _: &str) -> Result<Option<String>> {
        self.string(json)
    }

    fn flag(&self, json: &str, _: &str) -> Result<bool> {
        match self.get(json) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.wrong(self.member_path(json), "true or false")),
        }
    }

    fn text(&self, json: &str, _: &str) -> Result<Option<String>> {
        self.string(json)
    }

    fn content(&self, json: &str) -> Result<Option<String>> {
        self.string(json)
    }

    fn number(&self, json: &str, _: &str) -> Result<Option<f64>> {
        match self.get(json) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err(self.wrong(self.member_path(json), "a number")),
        }
    }

    fn timestamp(&self, json: &str, _: &str) -> Result<Option<Timestamp>> {
        match self.get(json) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_i64().and_then(timestamp_of_millis) {
                Some(t) => Ok(Some(t)),
                None => Err(ImportError::new(
                    ImportErrorKind::Value,
                    Location::Json(self.member_path(json)),
                    format!("{n} is not a time in the years 1 to 9999 (milliseconds)"),
                )),
            },
            Some(_) => Err(self.wrong(self.member_path(json), "a number (milliseconds)")),
        }
    }

    fn child(&self, json: &str, _: &str) -> Result<Option<Self>> {
        match self.get(json) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(J::new(m, self.member_path(json)))),
            Some(_) => Err(self.wrong(self.member_path(json), "an object")),
        }
    }

    fn list(&self, json: &str, _: &str) -> Result<Vec<Self>> {
        let path = self.member_path(json);
        match self.get(json) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Object(m) => Ok(J::new(m, format!("{path}[{i}]"))),
                    _ => Err(self.wrong(format!("{path}[{i}]"), "an object")),
                })
                .collect(),
            Some(_) => Err(self.wrong(path, "an array")),
        }
    }

    fn reference(&self, json: &str, _: &str) -> Result<Option<String>> {
        match self.get(json) {
            None => Ok(None),
            Some(v) => self.resource(v, self.member_path(json)).map(Some),
        }
    }

    fn references(&self, json: &str, _: &str) -> Result<Vec<String>> {
        let path = self.member_path(json);
        match self.get(json) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| self.resource(v, format!("{path}[{i}]")))
                .collect(),
            Some(_) => Err(self.wrong(path, "an array")),
        }
    }

    fn identifiers(&self) -> Result<Vec<Identifier>> {
        let path = self.member_path("identifiers");
        let Some(v) = self.get("identifiers") else {
            return Ok(Vec::new());
        };
        let Value::Object(m) = v else {
            return Err(self.wrong(path, "an object of identifier types"));
        };
        let mut ids = Vec::new();
        for (kind, values) in m {
            let kind = (kind != "$").then(|| kind.clone());
            let at = format!("{path}.{}", kind.as_deref().unwrap_or("$"));
            let one = |v: &Value, at: String| match v {
                Value::String(s) => Ok(Identifier {
                    kind: kind.clone(),
                    value: s.clone(),
                }),
                _ => Err(self.wrong(at, "a string")),
            };
            match values {
                Value::Array(a) => {
                    for (i, v) in a.iter().enumerate() {
                        ids.push(one(v, format!("{at}[{i}]"))?);
                    }
                }
                v => ids.push(one(v, at)?),
            }
        }
        Ok(ids)
    }

    fn element_value(&self) -> Result<Option<String>> {
        match self.get("value") {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            // Seed 004 allows a JSON integer.
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Some(n.to_string())),
            Some(_) => Err(self.wrong(self.member_path("value"), "a string or an integer")),
        }
    }

    fn done(self, issues: &mut Vec<Issue>) {
        let used = self.used.into_inner();
        for key in self.map.keys() {
            if !used.iter().any(|u| u == key) {
                let at = match self.path.is_empty() {
                    true => key.clone(),
                    false => format!("{}.{key}", self.path),
                };
                issues.push(not_read(Location::Json(at), &format!("`{key}`")));
            }
        }
        issues.extend(self.extra.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<(Gedcomx, Vec<Issue>)> {
        let mut issues = Vec::new();
        document(s.as_bytes(), &mut issues).map(|d| (d, issues))
    }

    #[test]
    fn paths_name_the_member_in_errors_and_issues() {
        let e = read(r#"{"persons":[{},{"names":[{"nameForms":3}]}]}"#).unwrap_err();
        assert_eq!(
            e.at(),
            &Location::Json("persons[1].names[0].nameForms".into())
        );
        assert_eq!(e.kind(), ImportErrorKind::Type);
        let (_, issues) =
            read(r#"{"persons":[{"id":"I1","gender":{"type":"t","x":1}}],"y":2}"#).unwrap();
        let at: Vec<String> = issues.iter().map(|i| i.at.to_string()).collect();
        assert_eq!(at, ["persons[0].gender.x", "y"]);
    }

    #[test]
    fn identifiers_are_arrays_or_single_values_per_type() {
        let (d, _) =
            read(r#"{"persons":[{"identifiers":{"$":["a","b"],"http://x/T":"c"}}]}"#).unwrap();
        let ids: Vec<(Option<&str>, &str)> = d.persons[0]
            .identifiers
            .iter()
            .map(|i| (i.kind.as_deref(), i.value.as_str()))
            .collect();
        assert_eq!(ids, [(None, "a"), (None, "b"), (Some("http://x/T"), "c")]);
    }

    #[test]
    fn a_citation_element_s_value_may_be_an_integer() {
        let (d, _) = read(
            r#"{"sourceDescriptions":[{"citations":[{"value":"v","elements":[{"name":"n","value":2}]}]}]}"#,
        )
        .unwrap();
        assert_eq!(d.source_descriptions[0].citations[0].elements[0].value, "2");
    }
}
