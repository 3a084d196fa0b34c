//! The GEDCOM X file format (`.gedx`): a document exported from GEDCOM with
//! its media, written and read back; the archive's layout and manifest as
//! the file format specification asks; bad archives (random bytes, every
//! truncation of a real one, bytes changed, no manifest, no document) give
//! the right error kind and never a panic.

#![cfg(feature = "gedcomx")]

mod common;
use common::Rng;

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use gedcom_elf::gedcomx::gedx::{
    media_type, read_gedx, select_media, write_gedx, Exclusion, GedxErrorKind, Manifest, Media,
    CONFORMS_TO, JSON_TYPE, MANIFEST,
};
use gedcom_elf::gedcomx::{to_writer, Format, Options};

/// A fresh directory under the system's temporary one, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("gedx-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A GEDCOM file naming media beside it, in a directory below it, by URL,
/// outside it, and missing.
const GEDCOM: &str = "0 HEAD\n1 CHAR UTF-8\n\
    0 @I1@ INDI\n1 NAME Anna /Berg/\n1 OBJE\n2 FILE photos/anna.jpg\n3 FORM jpg\n\
    1 OBJE @M1@\n1 OBJE @M2@\n1 OBJE @M3@\n1 OBJE @M4@\n1 OBJE @M5@\n\
    0 @M1@ OBJE\n1 FILE census%201901.tif\n2 FORM tif\n\
    0 @M2@ OBJE\n1 FILE https://example.org/anna.png\n\
    0 @M3@ OBJE\n1 FILE ../outside.jpg\n\
    0 @M4@ OBJE\n1 FILE letters/gone.pdf\n\
    0 @M5@ OBJE\n1 FILE ./photos/anna.jpg\n\
    0 TRLR\n";

/// Bytes that stand for a file's content, different for each name.
fn content(name: &str) -> Vec<u8> {
    name.bytes().cycle().take(3000 + name.len() * 7).collect()
}

/// The `about` values of the document's source descriptions.
fn abouts(json: &[u8]) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    doc["sourceDescriptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|sd| sd["about"].as_str().map(str::to_string))
        .collect()
}

/// The GEDCOM export of [`GEDCOM`], as if read from `root/input/`, written
/// there with its media as a `.gedx`; the document, the media chosen, the
/// values left out and the archive's bytes.
fn export_with_media(root: &Path) -> Exported {
    let dir = &root.join("input");
    std::fs::create_dir_all(dir.join("photos")).unwrap();
    std::fs::write(dir.join("photos/anna.jpg"), content("photos/anna.jpg")).unwrap();
    std::fs::write(dir.join("census 1901.tif"), content("census 1901.tif")).unwrap();
    std::fs::write(root.join("outside.jpg"), b"outside").unwrap();
    let mut json = Vec::new();
    to_writer(GEDCOM.as_bytes(), &mut json, Options::default()).unwrap();
    let abouts = abouts(&json);
    let chosen = select_media(dir, abouts.iter().map(String::as_str));
    let file = dir.join("out.gedx");
    let out = std::fs::File::create(&file).unwrap();
    write_gedx(out, &mut &json[..], Format::Json, &chosen.included).unwrap();
    let gedx = std::fs::read(&file).unwrap();
    Exported {
        json,
        media: chosen.included,
        excluded: chosen.excluded,
        gedx,
    }
}

/// What [`export_with_media`] made.
struct Exported {
    json: Vec<u8>,
    media: Vec<Media>,
    excluded: Vec<(String, Exclusion)>,
    gedx: Vec<u8>,
}

#[test]
fn a_document_and_its_media_are_written_and_read_back() {
    let dir = Dir::new("roundtrip");
    let Exported {
        json,
        media,
        excluded,
        gedx,
    } = export_with_media(&dir.0);

    // The media beside the input go in, once each; the rest is reported.
    let names: Vec<_> = media.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["photos/anna.jpg", "census 1901.tif"]);
    assert_eq!(
        excluded,
        [
            ("https://example.org/anna.png".to_string(), Exclusion::Url),
            ("../outside.jpg".to_string(), Exclusion::Escapes),
            ("letters/gone.pdf".to_string(), Exclusion::NotFound),
        ]
    );

    let read = read_gedx(Cursor::new(&gedx)).unwrap();
    assert_eq!(read.name, "tree.json");
    assert_eq!(read.format, Format::Json);
    assert_eq!(read.bytes, json, "the document comes back byte for byte");
    let listed: Vec<_> = read
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.content_type.as_deref(), e.size))
        .collect();
    let expected: Vec<_> = media
        .iter()
        .map(|m| {
            let size = std::fs::metadata(&m.path).unwrap().len();
            (m.name.as_str(), media_type(&m.name), size)
        })
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(media_type("photos/anna.jpg"), Some("image/jpeg"));
    assert_eq!(media_type("census 1901.tif"), Some("image/tiff"));

    // Each media entry holds its file's bytes.
    let mut zip = zip::ZipArchive::new(Cursor::new(&gedx)).unwrap();
    for m in &media {
        let mut bytes = Vec::new();
        zip.by_name(&m.name)
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        assert_eq!(bytes, std::fs::read(&m.path).unwrap(), "{}", m.name);
    }
}

#[test]
fn the_manifest_comes_first_and_says_what_the_specification_asks() {
    let dir = Dir::new("manifest");
    let Exported { media, gedx, .. } = export_with_media(&dir.0);
    let mut zip = zip::ZipArchive::new(Cursor::new(&gedx)).unwrap();
    let order: Vec<_> = (0..zip.len())
        .map(|i| zip.by_index(i).unwrap().name().unwrap().to_string())
        .collect();
    let mut expected = vec![MANIFEST.to_string(), "tree.json".to_string()];
    expected.extend(media.iter().map(|m| m.name.clone()));
    assert_eq!(order, expected);

    let mut text = String::new();
    zip.by_name(MANIFEST)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    // RFC 822 header fields, CR LF, sections separated by an empty line.
    let sections: Vec<&str> = text.trim_end().split("\r\n\r\n").collect();
    assert_eq!(sections.len(), 1 + 1 + media.len(), "{text}");
    let main: Vec<&str> = sections[0].split("\r\n").collect();
    assert_eq!(main[0], "Manifest-Version: 1.0");
    assert!(main.contains(&format!("X-DC-conformsTo: {CONFORMS_TO}").as_str()));
    assert!(
        main.iter().all(|l| !l.starts_with("Name:")),
        "no Name in the main section"
    );
    assert_eq!(
        sections[1],
        format!("Name: tree.json\r\nContent-Type: {JSON_TYPE}")
    );
    for (section, m) in sections[2..].iter().zip(&media) {
        let t = media_type(&m.name).unwrap();
        assert_eq!(*section, format!("Name: {}\r\nContent-Type: {t}", m.name));
    }
    let parsed = Manifest::parse(&text);
    assert!(parsed.conforms());
    assert_eq!(parsed.sections.len(), 1 + media.len());
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let a = export_with_media(&Dir::new("same-a").0).gedx;
    let b = export_with_media(&Dir::new("same-b").0).gedx;
    assert_eq!(a, b, "no time nor path of the run in the archive");
}

#[test]
fn xml_documents_and_unknown_media_types() {
    let dir = Dir::new("xml");
    std::fs::write(dir.0.join("notes.xyz"), b"plain").unwrap();
    let media = [Media {
        name: "notes.xyz".into(),
        path: dir.0.join("notes.xyz"),
    }];
    let mut xml = Vec::new();
    let options = Options {
        format: Format::Xml,
        ..Options::default()
    };
    to_writer(GEDCOM.as_bytes(), &mut xml, options).unwrap();
    let gedx = write_gedx(Cursor::new(Vec::new()), &mut &xml[..], Format::Xml, &media)
        .unwrap()
        .into_inner();
    let read = read_gedx(Cursor::new(&gedx)).unwrap();
    assert_eq!((read.name.as_str(), read.format), ("tree.xml", Format::Xml));
    assert_eq!(read.bytes, xml);
    assert_eq!(
        read.manifest.content_type("tree.xml"),
        Some("application/x-gedcomx-v1+xml")
    );
    assert_eq!(
        read.entries[0].content_type.as_deref(),
        Some("application/octet-stream")
    );
}

#[test]
fn a_missing_media_file_is_an_error_naming_it() {
    let dir = Dir::new("missing");
    let media = [Media {
        name: "a.jpg".into(),
        path: dir.0.join("a.jpg"),
    }];
    let err = write_gedx(
        Cursor::new(Vec::new()),
        &mut &b"{}"[..],
        Format::Json,
        &media,
    )
    .unwrap_err();
    assert_eq!(err.kind(), GedxErrorKind::Media);
    assert!(err.to_string().contains("a.jpg"), "{err}");
}

/// A zip archive of `entries` (name, bytes), stored.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

const CONFORMING: &[u8] =
    b"Manifest-Version: 1.0\r\nX-DC-conformsTo: http://gedcomx.org/file/v1\r\n";

#[test]
fn archives_without_a_manifest_or_a_document_are_refused() {
    let kind = |bytes: Vec<u8>| read_gedx(Cursor::new(bytes)).unwrap_err().kind();
    assert_eq!(
        kind(zip_of(&[("tree.json", b"{}")])),
        GedxErrorKind::NoManifest
    );
    assert_eq!(kind(zip_of(&[])), GedxErrorKind::NoManifest);
    let no_conformance = zip_of(&[
        (MANIFEST, b"Manifest-Version: 1.0\r\n"),
        ("tree.json", b"{}"),
    ]);
    assert_eq!(kind(no_conformance), GedxErrorKind::NotConformant);
    assert_eq!(
        kind(zip_of(&[(MANIFEST, CONFORMING), ("a.jpg", b"x")])),
        GedxErrorKind::NoDocument
    );
    // A manifest section naming a document that is not in the archive.
    let mut manifest = CONFORMING.to_vec();
    manifest.extend_from_slice(b"\r\nName: tree.json\r\n");
    assert_eq!(
        kind(zip_of(&[(MANIFEST, &manifest)])),
        GedxErrorKind::NoDocument
    );
    // A document the manifest does not list is still found by its name.
    let doc = read_gedx(Cursor::new(zip_of(&[
        (MANIFEST, CONFORMING),
        ("tree.json", b"{}"),
    ])))
    .unwrap();
    assert_eq!(doc.bytes, b"{}");
    // A manifest section without Content-Type is JSON, as the specification says.
    let mut manifest = CONFORMING.to_vec();
    manifest.extend_from_slice(b"\r\nName: family/main.json\r\n");
    let doc = read_gedx(Cursor::new(zip_of(&[
        (MANIFEST, &manifest),
        ("family/main.json", b"{\"persons\":[]}"),
    ])))
    .unwrap();
    assert_eq!(
        (doc.name.as_str(), doc.format),
        ("family/main.json", Format::Json)
    );
}

#[test]
fn random_bytes_are_not_a_zip() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for len in (0..2000).step_by(7) {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let err = read_gedx(Cursor::new(bytes)).unwrap_err();
        assert_eq!(err.kind(), GedxErrorKind::NotZip, "{len} bytes: {err}");
    }
    let err = read_gedx(Cursor::new(b"0 HEAD\n0 TRLR\n".to_vec())).unwrap_err();
    assert_eq!(err.kind(), GedxErrorKind::NotZip);
    assert!(err.to_string().contains("not a zip archive"), "{err}");
}

#[test]
fn every_truncation_of_a_real_gedx_is_truncated() {
    let dir = Dir::new("truncated");
    let gedx = export_with_media(&dir.0).gedx;
    assert!(read_gedx(Cursor::new(&gedx)).is_ok());
    for len in 0..gedx.len() {
        let err = read_gedx(Cursor::new(&gedx[..len])).unwrap_err();
        let expected = match len {
            0..4 => GedxErrorKind::NotZip,
            _ => GedxErrorKind::Truncated,
        };
        assert_eq!(
            err.kind(),
            expected,
            "cut at {len} of {}: {err}",
            gedx.len()
        );
    }
}

#[test]
fn changed_bytes_give_a_result_or_an_error_never_a_panic() {
    let dir = Dir::new("flipped");
    let Exported { json, gedx, .. } = export_with_media(&dir.0);
    let mut rng = Rng(42);
    let mut kinds = std::collections::HashSet::new();
    for _ in 0..3000 {
        let mut bytes = gedx.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len());
            bytes[at] = rng.next() as u8;
        }
        match read_gedx(Cursor::new(bytes)) {
            // A change the reader cannot see (in a media entry, or a field it ignores).
            Ok(doc) => assert_eq!(doc.bytes, json),
            Err(e) => {
                assert!(!e.to_string().is_empty());
                kinds.insert(e.kind());
            }
        }
    }
    assert!(kinds.contains(&GedxErrorKind::Corrupt), "{kinds:?}");
}
