//! `gedcom_elf::value::place` against the specifications' examples,
//! generated round trips and every `PLAC`, `LATI` and `LONG` payload of
//! `../shared/corpus`.

mod value_support;

use gedcom_elf::value::{
    comma_list, format_coordinate, latitude, longitude, Axis, CoordinateErrorKind as K,
    Coordinates, Place,
};
use value_support::Rng;

fn jurisdictions(text: &str) -> Vec<&str> {
    comma_list(text).collect()
}

/// Every `PLAC` payload written in the GEDCOM 7 specification, with its
/// jurisdictions.
#[test]
fn the_places_of_the_gedcom7_examples() {
    for (text, want) in [
        (
            ", , Austro-Hungarian Empire",
            &["", "", "Austro-Hungarian Empire"][..],
        ),
        (", Oneida, Idaho, USA", &["", "Oneida", "Idaho", "USA"]),
        (
            "Baltimore, , Maryland, USA",
            &["Baltimore", "", "Maryland", "USA"],
        ),
        ("Cove, Cache, Utah", &["Cove", "Cache", "Utah"]),
        (
            "Queens, New York, New York, USA",
            &["Queens", "New York", "New York", "USA"],
        ),
        ("千代田, 東京, 日本", &["千代田", "東京", "日本"]),
    ] {
        let place = Place::parse(text);
        assert_eq!(place.jurisdictions().collect::<Vec<_>>(), want, "{text:?}");
        assert_eq!(place.len(), want.len());
        // Each of these is written in the printed form already.
        assert_eq!(place.to_string(), text);
    }
    // A `FORM` is a comma list of the same shape.
    assert_eq!(jurisdictions("City, County, State, Country").len(), 4);
}

/// GEDCOM 7's coordinate examples and the edges of each range.
#[test]
fn coordinates_of_the_specifications() {
    assert_eq!(latitude("N18.150944"), Ok(18.150944));
    assert_eq!(longitude("E168.150944"), Ok(168.150944));
    let c = Coordinates::parse("N50.9876", "W1.5").unwrap();
    assert_eq!((c.latitude, c.longitude), (50.9876, -1.5));
    for (axis, ok, over) in [
        (Axis::Latitude, ["N90", "S90", "N0", "S0.0"], "N90.000001"),
        (Axis::Longitude, ["E180", "W180", "E0", "W0.0"], "W180.1"),
    ] {
        for s in ok {
            assert!(gedcom_elf::value::coordinate(axis, s).is_ok(), "{s}");
        }
        let e = gedcom_elf::value::coordinate(axis, over).unwrap_err();
        assert_eq!((e.kind(), e.offset(), e.axis()), (K::Range, 1, axis));
    }
    // Degrees, minutes and seconds must not appear (ELF), nor a sign.
    for s in ["N18 9 3.4", "N18°9'3.4\"", "-18.15", "18.15"] {
        assert!(latitude(s).is_err(), "{s}");
    }
    assert_eq!(latitude("S18.15"), Ok(-18.15));
}

/// Generated places and coordinates print to text that reads back the same.
#[test]
fn generated_round_trips() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let items = ["", " ", "London", " New  York ", "Île-de-France", "\t"];
    for _ in 0..10_000 {
        let n = rng.below(5);
        let text = (0..n)
            .map(|_| *rng.pick(&items))
            .collect::<Vec<_>>()
            .join(",");
        let place = Place::parse(&text);
        let printed = place.to_string();
        let again = Place::parse(&printed);
        assert_eq!(
            again.jurisdictions().collect::<Vec<_>>(),
            place.jurisdictions().collect::<Vec<_>>(),
            "{text:?} -> {printed:?}"
        );
        let degrees = (rng.next() % 360_000_001) as f64 / 1e6 - 180.0;
        for axis in [Axis::Latitude, Axis::Longitude] {
            match format_coordinate(axis, degrees) {
                Some(s) => assert_eq!(gedcom_elf::value::coordinate(axis, &s), Ok(degrees), "{s}"),
                None => assert!(degrees.abs() > axis.max()),
            }
        }
    }
}

#[test]
fn every_place_and_coordinate_payload_of_the_shared_corpus() {
    let Some(found) = value_support::corpus_payloads(&["PLAC", "LATI", "LONG"]) else {
        return;
    };
    let (mut places, mut items, mut empty_items) = (0, 0, 0);
    let (mut coordinates, mut bad) = (0, Vec::new());
    for f in &found {
        match f.tag.as_str() {
            "PLAC" => {
                places += 1;
                let place = Place::parse(&f.text);
                let list: Vec<_> = place.jurisdictions().collect();
                items += list.len();
                empty_items += list.iter().filter(|j| j.is_empty()).count();
                let printed = place.to_string();
                assert_eq!(
                    Place::parse(&printed).jurisdictions().collect::<Vec<_>>(),
                    list
                );
            }
            tag => {
                coordinates += 1;
                let axis = if tag == "LATI" {
                    Axis::Latitude
                } else {
                    Axis::Longitude
                };
                match gedcom_elf::value::coordinate(axis, &f.text) {
                    Ok(v) => {
                        let printed = format_coordinate(axis, v).unwrap();
                        assert_eq!(gedcom_elf::value::coordinate(axis, &printed), Ok(v));
                    }
                    Err(e) => bad.push(format!("{}:{}: {:?}: {e}", f.file, f.line, f.text)),
                }
            }
        }
    }
    eprintln!(
        "corpus: {places} PLAC payloads ({items} jurisdictions, {empty_items} empty), \
         {coordinates} LATI/LONG payloads, {} errors",
        bad.len()
    );
    for b in &bad {
        eprintln!("    {b}");
    }
    // When written: 6,125 places (the UTF-16 copies of willis included) of
    // 18,574 jurisdictions, one of them empty; no file has a `MAP`, so the
    // coordinate parser's corpus is the tests above and `tree_typed`.
    assert!(places >= 6_000, "{places}");
    assert!(items >= places, "{items}");
    assert!(bad.is_empty(), "{bad:#?}");
}
