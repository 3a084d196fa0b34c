//! Writing a GEDZIP from the conversion (`convert::convert_to_gedzip`): the
//! official archives of `../shared/corpus7` converted to 5.5.1 (their media
//! unpacked beside), back to a 7.0 `.gdz`, and read back with the crate's
//! reader: the same events as the plain conversion but for the `FILE` paths
//! rewritten to name their entries, every local path an entry, every entry's
//! bytes the original's; a 7.0 archive converted to a 7.0 archive keeps
//! every named entry; missing media, absolute paths and `file:` URLs are
//! reported; 5.5.1 output is refused.
#![cfg(feature = "gedzip")]

use std::io::Cursor;
use std::path::{Path, PathBuf};

use gedcom_elf::convert::{convert, convert_to_gedzip, ConvertConfig, ConvertReport};
use gedcom_elf::gedzip::{classify_path, read_gedzip, FilePath, MediaFiles};
use gedcom_elf::write::WriteErrorKind;
use gedcom_elf::{Event, Input, Value, Version};

fn corpus7() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus7/gedcom70");
    dir.is_dir().then_some(dir)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("convert_gedzip")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every event as a line: level, tag, xref, payload.
fn events(input: &[u8]) -> Vec<String> {
    let prepared = Input::new(input).unwrap();
    let mut reader = prepared.reader();
    let mut out = Vec::new();
    let mut level = 0;
    while let Some(event) = reader.next_event().unwrap() {
        match event {
            Event::Begin(b) => {
                let value = match &b.value {
                    None => String::new(),
                    Some(Value::Text(p)) => p.text().into_owned(),
                    Some(Value::Pointer(x)) => String::from_utf8_lossy(x.as_bytes()).into_owned(),
                };
                let xref = b
                    .xref
                    .as_ref()
                    .map(|x| String::from_utf8_lossy(x.as_bytes()).into_owned());
                out.push(format!("{level} {} {xref:?} {value}", b.tag));
                level += 1;
            }
            Event::End(_) => level -= 1,
        }
    }
    out
}

fn plain(input: &[u8], to: Version) -> Vec<u8> {
    let mut out = Vec::new();
    convert(input, &ConvertConfig::new(to), &mut out).unwrap();
    out
}

fn to_gdz(input: &[u8], files: &mut MediaFiles) -> (ConvertReport, Vec<u8>) {
    let config = ConvertConfig::new(Version::Gedcom7);
    let (report, out) = convert_to_gedzip(input, &config, files, Cursor::new(Vec::new())).unwrap();
    (report, out.into_inner())
}

/// An archive's entries but `gedcom.ged`, with their bytes.
fn entries(gdz: &[u8]) -> Vec<(String, Vec<u8>)> {
    let listed = read_gedzip(Cursor::new(gdz)).unwrap().media;
    let mut files = MediaFiles::archive(Cursor::new(gdz.to_vec())).unwrap();
    listed
        .into_iter()
        .map(|e| {
            let mut bytes = Vec::new();
            files.copy(&e.name, &mut bytes).unwrap();
            (e.name, bytes)
        })
        .collect()
}

/// The `FILE` payloads of `OBJE`s (and their `TRAN`s or `_TRAN`s) in `ged`
/// that are local paths, as the entry names they mean.
fn local_paths(ged: &[u8]) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for e in events(ged) {
        let mut parts = e.splitn(4, ' ');
        let level: usize = parts.next().unwrap().parse().unwrap();
        let tag = parts.next().unwrap().to_string();
        let value = parts.nth(1).unwrap_or_default();
        tags.truncate(level);
        let parent = tags.last().map(String::as_str);
        let media = match tag.as_str() {
            "FILE" => matches!(parent, Some("OBJE" | "_OBJE")),
            "TRAN" | "_TRAN" => parent == Some("FILE"),
            _ => false,
        };
        if let (true, FilePath::Local(names)) = (media, classify_path(value, false)) {
            out.push(names[0].clone());
        }
        tags.push(tag);
    }
    out
}

#[test]
fn corpus_archives_round_trip_through_5_5_1_with_their_media() {
    let Some(dir) = corpus7() else {
        eprintln!("skipping: ../shared/corpus7 is absent");
        return;
    };
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "gdz") {
            continue;
        }
        seen += 1;
        let original = std::fs::read(&path).unwrap();
        let ged = read_gedzip(Cursor::new(&original)).unwrap().gedcom;
        let media = entries(&original);

        // To 5.5.1, the media unpacked beside it, and back to a .gdz.
        let work = temp_dir(path.file_stem().unwrap().to_str().unwrap());
        for (name, bytes) in &media {
            let file = work.join(name);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, bytes).unwrap();
        }
        let legacy = plain(&ged, Version::Gedcom551);
        std::fs::write(work.join("family.ged"), &legacy).unwrap();
        let (report, gdz) = to_gdz(&legacy, &mut MediaFiles::directory(&work));
        let back = read_gedzip(Cursor::new(&gdz)).unwrap();

        // The same events as the plain conversion, but the FILE paths,
        // which name their entries.
        let expected = events(&plain(&legacy, Version::Gedcom7));
        let got = events(&back.gedcom);
        assert_eq!(got.len(), expected.len(), "{}", path.display());
        for (g, e) in got.iter().zip(&expected) {
            if g != e {
                assert!(
                    g.split(' ').nth(1) == Some("FILE") || g.split(' ').nth(1) == Some("_TRAN"),
                    "{}: {g} for {e}",
                    path.display()
                );
            }
        }
        // The original's records (their substructures are what the two
        // conversions documentedly change: @VOID@ pointers left out,
        // 7.0-only structures kept as extensions).
        let records = |e: &[String]| e.iter().filter(|l| l.starts_with("0 ")).count();
        assert_eq!(records(&events(&ged)), records(&got), "{}", path.display());
        // Every local path an entry, with the original's bytes.
        let carried = entries(&gdz);
        for name in local_paths(&back.gedcom) {
            let (_, bytes) = carried
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("{name} not in the archive"));
            let (_, want) = media.iter().find(|(n, _)| *n == name).unwrap();
            assert_eq!(bytes, want, "{name}");
        }
        // Nothing in the archive that no path names, and none missing.
        assert_eq!(carried.len(), local_paths(&back.gedcom).len());
        assert!(report
            .not_carried
            .entries()
            .all(|e| !e.reason.contains("not found")));
    }
    assert!(seen >= 2, "the corpus's .gdz files");
}

#[test]
fn an_archive_converted_to_an_archive_keeps_its_named_entries() {
    let Some(dir) = corpus7() else {
        eprintln!("skipping: ../shared/corpus7 is absent");
        return;
    };
    let original = std::fs::read(dir.join("maximal70.gdz")).unwrap();
    let ged = read_gedzip(Cursor::new(&original)).unwrap().gedcom;
    let mut files = MediaFiles::archive(Cursor::new(original.clone())).unwrap();
    let (report, gdz) = to_gdz(&ged, &mut files);
    let back = read_gedzip(Cursor::new(&gdz)).unwrap();
    assert_eq!(back.gedcom, plain(&ged, Version::Gedcom7));
    let before = entries(&original);
    let after = entries(&gdz);
    for (name, bytes) in &after {
        assert!(before.contains(&(name.clone(), bytes.clone())), "{name}");
    }
    // Each entry of the input either carried or reported.
    let reported: Vec<_> = report
        .not_carried
        .entries()
        .filter(|e| e.reason.contains("input archive"))
        .map(|e| e.path.to_string())
        .collect();
    for (name, _) in &before {
        assert!(
            after.iter().any(|(n, _)| n == name) || reported.contains(name),
            "{name}"
        );
    }
    assert_eq!(after.len(), 5);
}

#[test]
fn missing_absolute_and_file_urls_are_reported_and_kept() {
    let dir = temp_dir("missing");
    std::fs::create_dir_all(dir.join("media")).unwrap();
    std::fs::write(dir.join("media/here.jpg"), b"jpeg").unwrap();
    let input = "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @O1@ OBJE\n1 FILE media/here.jpg\n2 FORM image/jpeg\n\
        1 FILE media/gone.jpg\n2 FORM image/jpeg\n1 FILE /abs/x.jpg\n2 FORM image/jpeg\n\
        1 FILE file:///abs/y.jpg\n2 FORM image/jpeg\n1 FILE https://example.com/z.jpg\n2 FORM image/jpeg\n\
        1 FILE ../up.jpg\n2 FORM image/jpeg\n0 TRLR\n";
    let (report, gdz) = to_gdz(input.as_bytes(), &mut MediaFiles::directory(&dir));
    let back = read_gedzip(Cursor::new(&gdz)).unwrap();
    assert_eq!(back.gedcom, input.as_bytes(), "every path left as it was");
    assert_eq!(
        entries(&gdz),
        [("media/here.jpg".to_string(), b"jpeg".to_vec())]
    );
    let lines: Vec<_> = report
        .not_carried
        .entries()
        .flat_map(|e| e.lines.to_vec())
        .collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(sorted, [7, 9, 11, 15]);
}

#[test]
fn legacy_paths_are_found_and_rewritten_and_5_5_1_output_is_refused() {
    let dir = temp_dir("legacy");
    std::fs::create_dir_all(dir.join("My Photos")).unwrap();
    std::fs::write(dir.join("My Photos/Anna Brontë.jpg"), b"A").unwrap();
    let input = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
        0 @I1@ INDI\n1 OBJE\n2 FILE My Photos\\Anna Brontë.jpg\n3 FORM jpg\n\
        0 @M1@ OBJE\n1 FILE My Photos\\Anna Brontë.jpg\n2 FORM jpg\n0 TRLR\n";
    let mut files = MediaFiles::directory(&dir);
    let (report, gdz) = to_gdz(input.as_bytes(), &mut files);
    let text = String::from_utf8(read_gedzip(Cursor::new(&gdz)).unwrap().gedcom).unwrap();
    assert_eq!(
        text.matches("FILE My%20Photos/Anna%20Bront%C3%AB.jpg\n")
            .count(),
        2,
        "{text}"
    );
    assert_eq!(
        entries(&gdz),
        [("My Photos/Anna Brontë.jpg".to_string(), b"A".to_vec())]
    );
    assert_eq!(report.changes["FILE path made its GEDZIP entry's name"], 2);

    let config = ConvertConfig::new(Version::Gedcom551);
    let err = convert_to_gedzip(
        input.as_bytes(),
        &config,
        &mut files,
        Cursor::new(Vec::new()),
    )
    .unwrap_err();
    assert_eq!(err.kind(), WriteErrorKind::UnsupportedEncoding);
    assert!(err.message().contains("GEDCOM 7 only"), "{}", err.message());
}
