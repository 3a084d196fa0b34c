//! How each model type is read: one description per type, walked over
//! JSON or XML through [`Src`] (the reverse of the export's `Emit`: the
//! same JSON member and XML names, in the same roles).
//!
//! A [`Src`] remembers which of its members (XML attributes and child
//! elements) were read; [`Src::done`] reports the others as not imported,
//! so nothing the model does not hold disappears silently.

use super::{ImportError, ImportErrorKind, Issue, IssueKind, Location};
use crate::gedcomx::model::{
    Address, Agent, Attribution, CitationElement, Coverage, Date, Document, Fact, Gedcomx, Gender,
    Identifier, Iri, Name, NameForm, NamePart, Note, Person, PlaceDescription, PlaceReference,
    Qualifier, Relationship, SourceCitation, SourceDescription, SourceReference, TextValue,
    Timestamp,
};
use crate::value::GedcomxDate;

pub(super) type Result<T> = std::result::Result<T, ImportError>;

/// One object of the input (a JSON object, an XML element), read property
/// by property. JSON names first, XML names second, as `Emit` has them.
pub(super) trait Src: Sized {
    /// Where it is.
    fn at(&self) -> Location;

    /// Where its property `json`/`xml` is (for errors about its value).
    fn at_member(&self, json: &str, xml: &str) -> Location;

    /// A string: a JSON member, an XML attribute.
    fn attr(&self, json: &str, xml: &str) -> Result<Option<String>>;

    /// A boolean: a JSON member, an XML attribute.
    fn flag(&self, json: &str, xml: &str) -> Result<bool>;

    /// A string: a JSON member, an XML child element's text.
    fn text(&self, json: &str, xml: &str) -> Result<Option<String>>;

    /// A JSON member, the element's own text in XML.
    fn content(&self, json: &str) -> Result<Option<String>>;

    /// A number: a JSON number, an XML child element's text.
    fn number(&self, json: &str, xml: &str) -> Result<Option<f64>>;

    /// A timestamp: JSON milliseconds, an XML `xsd:dateTime`.
    fn timestamp(&self, json: &str, xml: &str) -> Result<Option<Timestamp>>;

    /// A value of a model type: a JSON object, an XML child element.
    fn child(&self, json: &str, xml: &str) -> Result<Option<Self>>;

    /// A list: a JSON array of objects, repeated XML child elements.
    fn list(&self, json: &str, xml: &str) -> Result<Vec<Self>>;

    /// A resource reference (`{"resource": uri}`, `<x resource="uri"/>`).
    fn reference(&self, json: &str, xml: &str) -> Result<Option<String>>;

    /// A list of resource references.
    fn references(&self, json: &str, xml: &str) -> Result<Vec<String>>;

    /// The identifiers (JSON: an object of arrays per type; XML:
    /// `<identifier type="...">` elements).
    fn identifiers(&self) -> Result<Vec<Identifier>>;

    /// A citation element's value: a JSON string or integer; in XML a
    /// `<cev:value>` child, or the element's own text (seed 004's
    /// `SourceCitation` example).
    fn element_value(&self) -> Result<Option<String>>;

    /// Reports every member not read as not imported.
    fn done(self, issues: &mut Vec<Issue>);
}

/// A required property missing.
fn missing<S: Src>(s: &S, json: &str, xml: &str) -> ImportError {
    ImportError::new(
        ImportErrorKind::Missing,
        s.at_member(json, xml),
        format!("the required property `{json}` is missing"),
    )
}

/// Each item of `list` read with `each`.
fn all<S: Src, T>(
    list: Vec<S>,
    issues: &mut Vec<Issue>,
    each: fn(S, &mut Vec<Issue>) -> Result<T>,
) -> Result<Vec<T>> {
    list.into_iter().map(|s| each(s, issues)).collect()
}

/// The document.
pub(super) fn document<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Gedcomx> {
    let doc = Gedcomx {
        lang: s.attr("lang", "xml:lang")?,
        attribution: attribution(&s, issues)?,
        persons: all(s.list("persons", "person")?, issues, person)?,
        relationships: all(
            s.list("relationships", "relationship")?,
            issues,
            relationship,
        )?,
        source_descriptions: all(
            s.list("sourceDescriptions", "sourceDescription")?,
            issues,
            source_description,
        )?,
        agents: all(s.list("agents", "agent")?, issues, agent)?,
        documents: all(s.list("documents", "document")?, issues, document_item)?,
        places: all(s.list("places", "place")?, issues, place)?,
    };
    s.done(issues);
    Ok(doc)
}

pub(super) fn attribution<S: Src>(s: &S, issues: &mut Vec<Issue>) -> Result<Attribution> {
    let Some(a) = s.child("attribution", "attribution")? else {
        return Ok(Attribution::default());
    };
    let out = Attribution {
        contributor: a.reference("contributor", "contributor")?,
        modified: a.timestamp("modified", "modified")?,
        change_message: a.text("changeMessage", "changeMessage")?,
    };
    a.done(issues);
    Ok(out)
}

pub(super) fn person<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Person> {
    let p = Person {
        id: s.attr("id", "id")?.unwrap_or_default(),
        private: s.flag("private", "private")?,
        attribution: attribution(&s, issues)?,
        sources: all(s.list("sources", "source")?, issues, source_reference)?,
        notes: all(s.list("notes", "note")?, issues, note)?,
        media: all(s.list("media", "media")?, issues, source_reference)?,
        identifiers: s.identifiers()?,
        gender: match s.child("gender", "gender")? {
            Some(g) => {
                let kind = g.attr("type", "type")?;
                let kind = kind.ok_or_else(|| missing(&g, "type", "type"))?;
                g.done(issues);
                Some(Gender { kind: kind.into() })
            }
            None => None,
        },
        names: all(s.list("names", "name")?, issues, name)?,
        facts: all(s.list("facts", "fact")?, issues, fact)?,
    };
    s.done(issues);
    Ok(p)
}

pub(super) fn relationship<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Relationship> {
    let r = Relationship {
        id: s.attr("id", "id")?.unwrap_or_default(),
        kind: s.attr("type", "type")?.unwrap_or_default().into(),
        attribution: attribution(&s, issues)?,
        sources: all(s.list("sources", "source")?, issues, source_reference)?,
        notes: all(s.list("notes", "note")?, issues, note)?,
        media: all(s.list("media", "media")?, issues, source_reference)?,
        identifiers: s.identifiers()?,
        person1: s
            .reference("person1", "person1")?
            .ok_or_else(|| missing(&s, "person1", "person1"))?,
        person2: s
            .reference("person2", "person2")?
            .ok_or_else(|| missing(&s, "person2", "person2"))?,
        facts: all(s.list("facts", "fact")?, issues, fact)?,
    };
    s.done(issues);
    Ok(r)
}

pub(super) fn source_description<S: Src>(
    s: S,
    issues: &mut Vec<Issue>,
) -> Result<SourceDescription> {
    let d = SourceDescription {
        id: s.attr("id", "id")?.unwrap_or_default(),
        media_type: s.attr("mediaType", "mediaType")?,
        about: s.attr("about", "about")?,
        citations: all(s.list("citations", "citation")?, issues, citation)?,
        component_of: match s.child("componentOf", "componentOf")? {
            Some(c) => Some(source_reference(c, issues)?),
            None => None,
        },
        titles: all(s.list("titles", "title")?, issues, text_value)?,
        notes: all(s.list("notes", "note")?, issues, note)?,
        attribution: attribution(&s, issues)?,
        coverage: all(s.list("coverage", "coverage")?, issues, coverage)?,
        descriptions: all(s.list("descriptions", "description")?, issues, text_value)?,
        identifiers: s.identifiers()?,
        repository: s.reference("repository", "repository")?,
    };
    s.done(issues);
    Ok(d)
}

pub(super) fn agent<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Agent> {
    let a = Agent {
        id: s.attr("id", "id")?.unwrap_or_default(),
        identifiers: s.identifiers()?,
        names: all(s.list("names", "name")?, issues, text_value)?,
        homepage: s.reference("homepage", "homepage")?,
        emails: s.references("emails", "email")?,
        phones: s.references("phones", "phone")?,
        addresses: all(s.list("addresses", "address")?, issues, address)?,
    };
    s.done(issues);
    Ok(a)
}

pub(super) fn document_item<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Document> {
    let d = Document {
        id: s.attr("id", "id")?.unwrap_or_default(),
        kind: s.attr("type", "type")?.map(Iri::from),
        attribution: attribution(&s, issues)?,
        sources: all(s.list("sources", "source")?, issues, source_reference)?,
        notes: all(s.list("notes", "note")?, issues, note)?,
        text: s.text("text", "text")?.unwrap_or_default(),
    };
    s.done(issues);
    Ok(d)
}

pub(super) fn place<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<PlaceDescription> {
    let p = PlaceDescription {
        id: s.attr("id", "id")?.unwrap_or_default(),
        names: all(s.list("names", "name")?, issues, text_value)?,
        latitude: s.number("latitude", "latitude")?,
        longitude: s.number("longitude", "longitude")?,
    };
    s.done(issues);
    Ok(p)
}

fn fact<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Fact> {
    let f = Fact {
        kind: s
            .attr("type", "type")?
            .ok_or_else(|| missing(&s, "type", "type"))?
            .into(),
        sources: all(s.list("sources", "source")?, issues, source_reference)?,
        notes: all(s.list("notes", "note")?, issues, note)?,
        date: match s.child("date", "date")? {
            Some(d) => Some(date(d, issues)?),
            None => None,
        },
        place: match s.child("place", "place")? {
            Some(p) => Some(place_reference(p, issues)?),
            None => None,
        },
        value: s.text("value", "value")?,
        qualifiers: all(s.list("qualifiers", "qualifier")?, issues, qualifier)?,
    };
    s.done(issues);
    Ok(f)
}

/// A date; a `formal` date must follow the GEDCOM X grammar.
fn date<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Date> {
    let d = Date {
        original: s.text("original", "original")?,
        formal: s.text("formal", "formal")?,
    };
    if let Some(f) = &d.formal {
        if let Err(e) = GedcomxDate::parse(f) {
            return Err(ImportError::new(
                ImportErrorKind::Value,
                s.at_member("formal", "formal"),
                format!("`{f}` is not a GEDCOM X formal date: {e}"),
            ));
        }
    }
    s.done(issues);
    Ok(d)
}

fn place_reference<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<PlaceReference> {
    let p = PlaceReference {
        description: s.attr("description", "description")?,
        original: s.text("original", "original")?,
    };
    s.done(issues);
    Ok(p)
}

fn qualifier<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Qualifier> {
    let q = Qualifier {
        name: s
            .attr("name", "name")?
            .ok_or_else(|| missing(&s, "name", "name"))?
            .into(),
        value: s.content("value")?,
    };
    s.done(issues);
    Ok(q)
}

fn source_reference<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<SourceReference> {
    let r = SourceReference {
        description: s
            .attr("description", "description")?
            .ok_or_else(|| missing(&s, "description", "description"))?,
        qualifiers: all(s.list("qualifiers", "qualifier")?, issues, qualifier)?,
    };
    s.done(issues);
    Ok(r)
}

fn note<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Note> {
    let n = Note {
        subject: s.text("subject", "subject")?,
        text: s.text("text", "text")?.unwrap_or_default(),
    };
    s.done(issues);
    Ok(n)
}

fn text_value<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<TextValue> {
    let t = TextValue {
        lang: s.attr("lang", "xml:lang")?,
        value: s.content("value")?.unwrap_or_default(),
    };
    s.done(issues);
    Ok(t)
}

fn coverage<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Coverage> {
    let c = Coverage {
        spatial: match s.child("spatial", "spatial")? {
            Some(p) => Some(place_reference(p, issues)?),
            None => None,
        },
        temporal: match s.child("temporal", "temporal")? {
            Some(d) => Some(date(d, issues)?),
            None => None,
        },
    };
    s.done(issues);
    Ok(c)
}

fn address<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Address> {
    let a = Address {
        value: s.text("value", "value")?,
        city: s.text("city", "city")?,
        country: s.text("country", "country")?,
        postal_code: s.text("postalCode", "postalCode")?,
        state_or_province: s.text("stateOrProvince", "stateOrProvince")?,
        street: [
            s.text("street", "street")?,
            s.text("street2", "street2")?,
            s.text("street3", "street3")?,
        ],
    };
    s.done(issues);
    Ok(a)
}

fn citation<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<SourceCitation> {
    let c = SourceCitation {
        lang: s.attr("lang", "xml:lang")?,
        value: s.text("value", "value")?.unwrap_or_default(),
        elements: all(s.list("elements", "cev:element")?, issues, element)?,
    };
    s.done(issues);
    Ok(c)
}

fn element<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<CitationElement> {
    let e = CitationElement {
        layer: s.attr("layer", "layer")?,
        name: s
            .attr("name", "name")?
            .ok_or_else(|| missing(&s, "name", "name"))?
            .into(),
        lang: s.attr("lang", "xml:lang")?,
        value: s
            .element_value()?
            .ok_or_else(|| missing(&s, "value", "cev:value"))?,
    };
    s.done(issues);
    Ok(e)
}

fn name<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<Name> {
    let n = Name {
        kind: s.attr("type", "type")?.map(Iri::from),
        sources: all(s.list("sources", "source")?, issues, source_reference)?,
        notes: all(s.list("notes", "note")?, issues, note)?,
        name_forms: all(s.list("nameForms", "nameForm")?, issues, name_form)?,
    };
    s.done(issues);
    Ok(n)
}

fn name_form<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<NameForm> {
    let f = NameForm {
        lang: s.attr("lang", "xml:lang")?,
        full_text: s.text("fullText", "fullText")?,
        parts: all(s.list("parts", "part")?, issues, name_part)?,
    };
    s.done(issues);
    Ok(f)
}

fn name_part<S: Src>(s: S, issues: &mut Vec<Issue>) -> Result<NamePart> {
    let p = NamePart {
        kind: s.attr("type", "type")?.map(Iri::from),
        value: s
            .attr("value", "value")?
            .ok_or_else(|| missing(&s, "value", "value"))?,
        qualifiers: all(s.list("qualifiers", "qualifier")?, issues, qualifier)?,
    };
    s.done(issues);
    Ok(p)
}

/// A member or node not read, as an issue.
pub(super) fn not_read(at: Location, what: &str) -> Issue {
    Issue {
        kind: IssueKind::NotImported,
        at,
        message: format!("{what}: no GEDCOM equivalent in this mapping"),
    }
}

/// Milliseconds since 1970-01-01T00:00:00 UTC as a timestamp
/// ([`Timestamp::from_millis`]).
pub(super) fn timestamp_of_millis(millis: i64) -> Option<Timestamp> {
    Timestamp::from_millis(millis)
}

/// An `xsd:dateTime` (`YYYY-MM-DDThh:mm:ss[.f*][Z|±hh:mm]`) as a timestamp
/// in UTC.
pub(super) fn timestamp_of_date_time(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    let (date, time) = s.split_once('T')?;
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    let bad = !(1..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&day);
    if d.next().is_some() || bad {
        return None;
    }
    // The zone, if any.
    let (clock, offset) = if let Some(c) = time.strip_suffix('Z') {
        (c, 0)
    } else if let Some(i) = time.rfind(['+', '-']) {
        let (c, z) = time.split_at(i);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let (h, mi) = z[1..].split_once(':')?;
        let (h, mi): (i64, i64) = (h.parse().ok()?, mi.parse().ok()?);
        if !(0..=23).contains(&h) || !(0..=59).contains(&mi) {
            return None;
        }
        (c, sign * (h * 60 + mi) * 60_000)
    } else {
        (time, 0)
    };
    let mut c = clock.split(':');
    let h: i64 = c.next()?.parse().ok()?;
    let mi: i64 = c.next()?.parse().ok()?;
    let sec = c.next().unwrap_or("0");
    if c.next().is_some() {
        return None;
    }
    let (sec, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let sec: i64 = sec.parse().ok()?;
    let frac: String = frac.chars().chain("000".chars()).take(3).collect();
    let ms: i64 = frac.parse().ok()?;
    if !(0..=23).contains(&h) || !(0..=59).contains(&mi) || !(0..=59).contains(&sec) {
        return None;
    }
    // The day counted from the epoch (`solar_jdn` checks no day against
    // its month: an impossible one is refused here).
    if day > i64::from(solar_month_days(m as u8, gregorian_leap(y))) {
        return None;
    }
    let days = solar_jdn(y, m as u8, day as u32, false) - UNIX_EPOCH_JDN;
    let millis = days * 86_400_000 + ((h * 60 + mi) * 60 + sec) * 1000 + ms - offset;
    timestamp_of_millis(millis)
}

use crate::value::calendar::{gregorian_leap, solar_jdn, solar_month_days, UNIX_EPOCH_JDN};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_both_ways_agree() {
        let t = timestamp_of_millis(90_000_500).unwrap();
        assert_eq!(t.date_time, "1970-01-02T01:00:00.500");
        let back = timestamp_of_date_time("1970-01-02T01:00:00.5Z").unwrap();
        assert_eq!(back, t);
        let zoned = timestamp_of_date_time("1970-01-02T03:00:00.500+02:00").unwrap();
        assert_eq!(zoned, t);
        let leap_day = timestamp_of_date_time("1600-02-29T00:00:00Z").unwrap();
        assert_eq!(
            timestamp_of_millis(leap_day.millis).unwrap().date_time,
            "1600-02-29T00:00:00"
        );
        assert!(timestamp_of_date_time("1700-02-29T00:00:00Z").is_none());
        assert!(timestamp_of_date_time("yesterday").is_none());
        assert!(timestamp_of_millis(i64::MIN / 2).is_none());
    }
}
