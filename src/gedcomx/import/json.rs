//! GEDCOM X JSON behind [`Src`]: serde_json's `Value`, each object with its
//! JSON path (`persons[3].facts[0]`) for errors and issues.

use std::cell::RefCell;

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

/// Parses `input` as JSON.
pub(super) fn parse(input: &[u8]) -> Result<Value> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    serde_json::from_slice(input).map_err(|e| {
        let (kind, what) = match e.classify() {
            serde_json::error::Category::Eof => (ImportErrorKind::Syntax, "truncated JSON"),
            serde_json::error::Category::Syntax => (ImportErrorKind::Syntax, "malformed JSON"),
            _ => (ImportErrorKind::NotGedcomx, "not JSON"),
        };
        let message = format!("{what} at line {} column {}: {e}", e.line(), e.column());
        ImportError::new(kind, Location::Document, message)
    })
}

/// The document in `value`.
pub(super) fn document(value: &Value, issues: &mut Vec<Issue>) -> Result<Gedcomx> {
    let Value::Object(map) = value else {
        return Err(ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Document,
            "not a GEDCOM X document: the JSON is not an object",
        ));
    };
    if !map.is_empty() && !map.keys().any(|k| MEMBERS.contains(&k.as_str())) {
        return Err(ImportError::new(
            ImportErrorKind::NotGedcomx,
            Location::Document,
            "not a GEDCOM X document: no member of one (persons, relationships, \
             sourceDescriptions...)",
        ));
    }
    read::document(J::new(map, String::new()), issues)
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
        let v = parse(s.as_bytes())?;
        let mut issues = Vec::new();
        document(&v, &mut issues).map(|d| (d, issues))
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
