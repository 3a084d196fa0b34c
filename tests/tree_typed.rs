//! The typed accessors of tree nodes (`NodeRef::date`, `name`, `place`,
//! `coordinates`, `sex` and the others) on a small document and on every
//! file of `../shared/corpus`.

mod value_support;

use std::borrow::Cow;

use gedcom_elf::tree::Tree;
use gedcom_elf::value::{
    AdoptedBy, Age, CoordinateErrorKind, Date, MediaType, Name, NameType, Pedigree, Quality,
    Restriction, Role, Sex,
};
use gedcom_elf::Input;

const DOC: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n\
0 @I1@ INDI\n\
1 NAME Lt. Cmndr. Joseph /Allen/ jr.\n\
2 TYPE birth\n\
2 NPFX Lt. Cmndr.\n\
2 GIVN Joseph\n\
2 NICK Joe\n\
2 SURN Allen\n\
2 NSFX jr.\n\
1 NAME Joe\n\
2 CONC  /Allen/\n\
2 TYPE aka\n\
1 SEX M\n\
1 RESN locked\n\
1 BIRT\n\
2 DATE 2 OCT 1822\n\
2 PLAC Cove, Cache, Utah\n\
3 MAP\n\
4 LATI N41.6\n\
4 LONG W111.8\n\
1 DEAT\n\
2 AGE 75y\n\
2 PLAC Hyde Park\n\
3 CONC , Cache, Utah\n\
1 ADOP\n\
2 FAMC @F1@\n\
3 ADOP BOTH\n\
1 FAMC @F1@\n\
2 PEDI adopted\n\
1 ASSO @I2@\n\
2 RELA Godfather\n\
1 SOUR @S1@\n\
2 QUAY 3\n\
2 EVEN BIRT\n\
3 ROLE CHIL\n\
0 @S1@ SOUR\n\
1 REPO @R1@\n\
2 CALN 1234\n\
3 MEDI Film\n\
0 TRLR\n";

#[test]
fn every_accessor_on_a_small_document() {
    let tree = Tree::from_slice(DOC).unwrap();
    let indi = tree.find("@I1@").unwrap();
    let first = |path: &str| indi.first(path).unwrap_or_else(|| panic!("{path}"));

    let names: Vec<_> = indi.children_with_tag("NAME").collect();
    let name = names[0].name().unwrap().unwrap();
    assert_eq!(name, Name::parse("Lt. Cmndr. Joseph /Allen/ jr.").unwrap());
    assert!(matches!(name.given, Cow::Borrowed(_)), "one line: borrowed");
    let pieces = names[0].name_pieces();
    assert_eq!(
        (pieces.prefix.len(), pieces.nickname[0].as_ref()),
        (1, "Joe")
    );
    assert_eq!(pieces.iter().count(), 5);
    assert!(names[1].name_pieces().is_empty());
    // Continued on a CONC line: decoded, owned, the same type.
    let joined = names[1].name().unwrap().unwrap();
    assert!(matches!(joined.given, Cow::Owned(_)));
    assert_eq!(joined.to_string(), "Joe /Allen/");
    assert_eq!(first("NAME.TYPE").name_type(), Some(Ok(NameType::Birth)));

    assert_eq!(first("SEX").sex(), Some(Ok(Sex::Male)));
    assert_eq!(
        first("RESN").restrictions(),
        Some(Ok(vec![Restriction::Locked]))
    );
    assert_eq!(first("BIRT.DATE").date(), Some(Date::parse("2 OCT 1822")));
    assert_eq!(first("DEAT.AGE").age(), Some(Age::parse("75y")));
    let cove = first("BIRT.PLAC");
    assert_eq!(cove.place().unwrap().largest(), Some("Utah"));
    let c = cove.coordinates().unwrap().unwrap();
    assert_eq!((c.latitude, c.longitude), (41.6, -111.8));
    let hyde = first("DEAT.PLAC");
    assert_eq!(hyde.place().unwrap().to_string(), "Hyde Park, Cache, Utah");
    assert_eq!(hyde.coordinates(), None);
    assert_eq!(
        first("ADOP.FAMC.ADOP").adopted_by(),
        Some(Ok(AdoptedBy::Both))
    );
    assert_eq!(first("FAMC.PEDI").pedigree(), Some(Ok(Pedigree::Adopted)));
    assert_eq!(first("SOUR.QUAY").quality(), Some(Ok(Quality::Direct)));
    assert_eq!(first("SOUR.EVEN.ROLE").role(), Some(Ok(Role::Child)));
    let medi = tree.path("SOUR.REPO.CALN.MEDI").next().unwrap();
    assert_eq!(medi.media_type(), Some(Ok(MediaType::Film)));

    // No string payload: None; a payload of another kind: its error.
    assert_eq!(first("BIRT").date(), None);
    assert_eq!(first("FAMC").sex(), None);
    assert!(first("ASSO.RELA").role().unwrap().is_err());
    assert!(first("BIRT.DATE").sex().unwrap().is_err());
}

#[test]
fn a_date_borrowed_from_the_tree_outlives_its_node() {
    let tree = Tree::from_slice(DOC).unwrap();
    // The date borrows from the input, not from the node handle.
    let date: Date<'_> = {
        let node = tree.path("INDI.BIRT.DATE").next().unwrap();
        node.date().unwrap().unwrap()
    };
    assert_eq!(date.to_string(), "2 OCT 1822");
}

#[test]
fn coordinates_report_the_missing_half() {
    let doc = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 PLAC X\n3 MAP\n4 LONG E1\n0 TRLR\n";
    let tree = Tree::from_slice(doc).unwrap();
    let plac = tree.path("INDI.BIRT.PLAC").next().unwrap();
    let e = plac.coordinates().unwrap().unwrap_err();
    assert_eq!(e.kind(), CoordinateErrorKind::Missing);
    assert_eq!(e.to_string(), "byte 0: expected a `LATI`");
}

/// Every `NAME`, `PLAC`, `LATI`, `LONG`, `SEX`, `PEDI` and `QUAY` node of
/// the corpus reads through its accessor as its payload reads through the
/// parser: no panic, and the same counts as the `value_*` tests.
#[test]
fn every_typed_node_of_the_shared_corpus() {
    let Some(dir) = value_support::shared_corpus() else {
        return;
    };
    let mut counts = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for (_, bytes) in value_support::ged_files(&dir) {
        let Ok(input) = Input::new(&bytes) else {
            continue;
        };
        let Ok(tree) = Tree::from_input(&input) else {
            continue;
        };
        for node in tree.nodes() {
            let text = node.text();
            let text = text.as_deref().unwrap_or("");
            let ok = match node.tag() {
                "NAME" => {
                    let got = node.name();
                    assert_eq!(
                        got.clone().map(|r| r.is_ok()).unwrap_or(true),
                        Name::parse(text).is_ok()
                    );
                    got.is_none_or(|r| r.is_ok())
                }
                "PLAC" => {
                    let got = node.place().map(|p| p.to_string());
                    let _ = node.coordinates();
                    got.is_none_or(|p| p == gedcom_elf::value::Place::parse(text).to_string())
                }
                "LATI" => node
                    .text()
                    .is_none_or(|_| gedcom_elf::value::latitude(text).is_ok()),
                "LONG" => node
                    .text()
                    .is_none_or(|_| gedcom_elf::value::longitude(text).is_ok()),
                "SEX" => node
                    .sex()
                    .is_none_or(|r| r == Sex::parse(text) && r.is_ok()),
                "PEDI" => node
                    .pedigree()
                    .is_none_or(|r| r == Pedigree::parse(text) && r.is_ok()),
                "QUAY" => node
                    .quality()
                    .is_none_or(|r| r == Quality::parse(text) && r.is_ok()),
                _ => continue,
            };
            let c = counts.entry(node.tag().to_string()).or_default();
            c.0 += 1;
            c.1 += usize::from(!ok);
        }
    }
    eprintln!("corpus (tag: nodes, errors): {counts:?}");
    // When written: as the value tests count the same payloads, 4,375 names
    // and 6,125 places, all read; 4,037 SEX nodes, 558 of them continued
    // on CONT lines in the willis copies; no MAP.
    let get = |tag: &str| counts.get(tag).copied().unwrap_or_default();
    assert!(get("NAME").0 >= 4_000 && get("NAME").1 == 0, "{counts:?}");
    assert!(get("PLAC").0 >= 6_000 && get("PLAC").1 == 0, "{counts:?}");
    assert!(get("SEX").0 >= 4_000 && get("SEX").1 <= 600, "{counts:?}");
    assert!(get("QUAY").0 >= 200, "{counts:?}");
    assert!(get("PEDI").0 >= 4, "{counts:?}");
}
