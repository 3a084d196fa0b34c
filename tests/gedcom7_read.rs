//! GEDCOM 7 reading: version detection and the 7.0 payload rules, on the
//! official sample files of `../shared/corpus7` (read from there, never
//! copied) and on small inputs for what the samples do not show.

mod common;

use std::io::BufReader;
use std::path::PathBuf;

use gedcom_elf::par::Chunks;
use gedcom_elf::stream::StreamReader;
use gedcom_elf::tree::{Records, Tree};
use gedcom_elf::{
    Diagnostic, DiagnosticKind, Encoding, Event, Input, Reader, ReaderConfig, Severity, Value,
    Version,
};

/// The directory of the GEDCOM 7 samples, when present.
fn corpus7() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus7");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: ../shared/corpus7 is absent");
        None
    }
}

/// Every `.ged` file under `../shared/corpus7` (its subdirectories
/// included), sorted, as (path, bytes).
fn samples() -> Vec<(String, Vec<u8>)> {
    let Some(root) = corpus7() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("ged"))
            {
                let bytes = std::fs::read(&path).unwrap();
                found.push((path.display().to_string(), bytes));
            }
        }
    }
    found.sort();
    assert!(found.len() >= 20, "only {} samples", found.len());
    found
}

fn sample(name: &str) -> Option<Vec<u8>> {
    let path = corpus7()?.join("gedcom70").join(name);
    Some(std::fs::read(path).unwrap())
}

/// The events (owned) and diagnostics of a whole read.
fn read_all(bytes: &[u8], config: ReaderConfig) -> (Vec<Event<'static>>, Vec<Diagnostic>) {
    let input = Input::new(bytes).expect("input");
    let mut reader = input.reader_with_config(config);
    let (mut events, mut diags) = (Vec::new(), Vec::new());
    while let Some(e) = reader.next_event().expect("read") {
        events.push(e.into_owned());
        diags.extend(reader.drain_diagnostics());
    }
    diags.extend(reader.drain_diagnostics());
    (events, diags)
}

/// The text of every Begin with `xref`, or of the first Begin tagged `tag`
/// under it, by xref.
fn text_of(events: &[Event<'_>], xref: &str, tag: Option<&str>) -> String {
    let mut in_record = false;
    for e in events {
        let Event::Begin(b) = e else { continue };
        if b.level == 0 {
            in_record = b.xref.as_ref().is_some_and(|x| x.to_str_lossy() == xref);
            if in_record && tag.is_none() {
                return b.text().expect("text").into_owned();
            }
        } else if in_record && Some(&*b.tag) == tag {
            return b.text().expect("text").into_owned();
        }
    }
    panic!("no {xref} {tag:?}");
}

#[test]
fn every_sample_reads_as_gedcom7_with_no_error_diagnostic() {
    for (name, bytes) in samples() {
        let input = Input::new(&bytes).expect("input");
        assert_eq!(input.reader().version(), Version::Gedcom7, "{name}");
        // 7.0 is UTF-8: with or without a byte-order mark, and no CHAR line.
        assert_eq!(input.encoding_info().encoding, Encoding::Utf8, "{name}");
        let (events, diags) = read_all(&bytes, ReaderConfig::new());
        assert!(events.len() > 4, "{name}");
        let errors: Vec<_> = diags
            .iter()
            .filter(|d| d.kind.severity() == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        // Nothing about the encoding either: these files are valid UTF-8.
        assert!(
            diags.iter().all(|d| !matches!(
                d.kind,
                DiagnosticKind::Encoding | DiagnosticKind::InvalidEncoding
            )),
            "{name}: {diags:?}"
        );
        let tree = Tree::from_input(&input).expect("tree");
        assert_eq!(tree.schema().version(), Version::Gedcom7, "{name}");
        let tree_errors: Vec<_> = tree
            .diagnostics()
            .iter()
            .filter(|d| d.kind.severity() == Severity::Error)
            .collect();
        assert!(tree_errors.is_empty(), "{name}: {tree_errors:?}");
    }
}

#[test]
fn versions_of_the_samples_and_of_other_heads() {
    for (name, bytes) in samples() {
        let vers_line = bytes
            .split(|&b| b == b'\n')
            .position(|l| l.trim_ascii() == b"2 VERS 7.0" || l.trim_ascii() == b"2 VERS 7.1")
            .map(|i| i as u64 + 1);
        let reader = Reader::from_slice(&bytes);
        assert_eq!(reader.version_line(), vers_line, "{name}");
        assert!(vers_line.is_some(), "{name}");
    }
    let cases = [
        ("7.0", Version::Gedcom7),
        ("7.0.14", Version::Gedcom7),
        ("7.1", Version::Gedcom7),
        ("5.5.5", Version::Gedcom551),
        ("5.5.1", Version::Gedcom551),
        ("5.5", Version::Gedcom551),
    ];
    for (vers, want) in cases {
        let text = format!("0 HEAD\n1 GEDC\n2 VERS {vers}\n1 CHAR UTF-8\n0 TRLR\n");
        let mut reader = Reader::from_slice(text.as_bytes());
        assert_eq!(reader.version(), want, "{vers}");
        while reader.next_event().unwrap().is_some() {}
        assert_eq!(reader.version(), want, "{vers} after reading");
    }
    // No GEDC.VERS: 5.5.1. A forced version wins over the HEAD.
    let text = b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n";
    assert_eq!(Reader::from_slice(text).version(), Version::Gedcom551);
    assert_eq!(Reader::from_slice(text).version_line(), None);
    let forced = ReaderConfig::new().version(Some(Version::Gedcom7));
    let reader = Reader::with_config(text, forced);
    assert_eq!(
        (reader.version(), reader.version_line()),
        (Version::Gedcom7, None)
    );
    let text = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE a@@b\n0 TRLR\n";
    let forced = ReaderConfig::new().version(Some(Version::Gedcom551));
    let (events, _) = read_all(text, forced);
    assert_eq!(text_of(&events, "@N1@", None), "a@b");
}

/// `escapes.ged`, as its comments and 7.0 §1 say: only a line string's
/// leading `@@` is an escape.
#[test]
fn escapes_sample_payloads() {
    let Some(bytes) = sample("escapes.ged") else {
        return;
    };
    let (events, diags) = read_all(&bytes, ReaderConfig::new());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        text_of(&events, "@I1@", Some("NOTE")),
        "me@example.com is an example email address.\n\
         @me and @I are example social media handles.\n\
         @@@@ has four @ characters where only the first is escaped."
    );
    let want = [
        ("@N01@", "@ one leading"),
        ("@N02@", "@one leading no space"),
        (
            "@N05@",
            "doubled @@ internal has two @ characters, not escaped",
        ),
        ("@N06@", "doubled@@internal no space"),
        ("@N07@", "single @ internal"),
        ("@N08@", "single@internal no space"),
        // The trailing space of the first line is part of the payload (7.0
        // keeps every character).
        (
            "@N19@",
            "@ at at front and @ inside line and \n@ at after CONT and @ inside CONT's line too.",
        ),
    ];
    for (xref, text) in want {
        assert_eq!(text_of(&events, xref, None), text, "{xref}");
    }
    // The same file read as 5.5.1 unescapes every `@@`: the rule is the version's.
    let (events, _) = read_all(
        &bytes,
        ReaderConfig::new().version(Some(Version::Gedcom551)),
    );
    assert_eq!(
        text_of(&events, "@N05@", None),
        "doubled @ internal has two @ characters, not escaped"
    );
}

/// `voidptr.ged`: `@VOID@` is a pointer payload that points nowhere, not an
/// unresolved pointer, in the reader, the tree and `check`.
#[test]
fn void_pointers() {
    let Some(bytes) = sample("voidptr.ged") else {
        return;
    };
    let (events, _) = read_all(&bytes, ReaderConfig::new());
    let voids: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Begin(b) => match &b.value {
                Some(Value::Pointer(p)) if p.as_bytes() == b"@VOID@" => Some(b.tag.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(voids, ["FAMS", "FAMC", "CHIL"]);
    let tree = Tree::from_slice(&bytes).expect("tree");
    assert!(
        tree.diagnostics()
            .iter()
            .all(|d| d.kind != DiagnosticKind::UnresolvedPointer),
        "{:?}",
        tree.diagnostics()
    );
    assert_eq!(tree.undefined_records().count(), 0);
    let void = tree
        .nodes()
        .filter(|n| n.pointer().is_some_and(|p| p.as_bytes() == b"@VOID@"))
        .map(|n| n.target().is_none())
        .collect::<Vec<_>>();
    assert_eq!(void, [true, true, true]);
    // In a 5.5.1 document `@VOID@` is a pointer like any other: to nothing.
    let text = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 FAMC @VOID@\n0 TRLR\n";
    let tree = Tree::from_slice(text).expect("tree");
    assert_eq!(tree.undefined_records().count(), 1);
    let mut found = Vec::new();
    gedcom_elf::check::Checker::new(gedcom_elf::check::CheckConfig::new())
        .run(&mut Records::new(&bytes[..]), |f| {
            found.push(f.rule.id.to_string());
            Ok::<(), std::convert::Infallible>(())
        })
        .expect("check");
    assert!(
        !found.iter().any(|r| r == "link.missing-target"),
        "{found:?}"
    );
}

/// `extensions.ged`: each `HEAD.SCHMA.TAG` gives its extension tag its URI
/// as the structure type, wherever the tag is.
#[test]
fn extension_tags_have_their_uris_as_types() {
    let Some(bytes) = sample("extensions.ged") else {
        return;
    };
    let tree = Tree::from_slice(&bytes).expect("tree");
    let schema = tree.schema();
    assert_eq!(schema.version(), Version::Gedcom7);
    assert_eq!(
        schema.extension_uri("_USER"),
        Some("https://gedcom.io/terms/v7/record-SUBM")
    );
    let mut types = Vec::new();
    for node in tree.nodes() {
        if node.tag().starts_with('_') {
            let ty = node.structure_type().map(|t| t.to_string());
            types.push((node.tag().to_string(), ty.unwrap_or_default()));
        }
    }
    let has = |tag: &str, uri: &str| types.iter().any(|(t, u)| t == tag && u == uri);
    assert!(
        has("_USER", "https://gedcom.io/terms/v7/record-SUBM"),
        "{types:?}"
    );
    assert!(
        has("_CREATOR", "https://gedcom.io/terms/v7/SUBM"),
        "{types:?}"
    );
    assert!(
        has("_PHRASE", "https://gedcom.io/terms/v7/PHRASE"),
        "{types:?}"
    );
    assert!(
        has("_RECORD", "http://example.com/record-type"),
        "{types:?}"
    );
    // `_PARTY` is given two URIs: the first is used.
    assert!(
        has("_PARTY", "http://example.com/party-participation"),
        "{types:?}"
    );
    // Undocumented extension tags have no URI: the undefined type.
    for tag in ["_EXT1", "_IN", "_LOC"] {
        let (_, uri) = types.iter().find(|(t, _)| t == tag).expect(tag);
        assert!(!uri.starts_with("http://example.com"), "{tag}: {uri}");
        assert_eq!(schema.extension_uri(tag), None);
    }
    // No schema diagnostic.
    assert!(
        schema.diagnostics().is_empty(),
        "{:?}",
        schema.diagnostics()
    );
}

/// GEDCOM 7's standard structures have the types of the specification's
/// tables, in context: every standard tag of every sample that is not
/// under an extension (whose substructures the extension defines) has a
/// `g7:` type, and the context-dependent ones differ as the tables say.
#[test]
fn standard_structures_have_gedcom7_types() {
    const G7: &str = "https://gedcom.io/terms/v7/";
    for (path, bytes) in samples() {
        let tree = Tree::from_slice(&bytes).expect("tree");
        for node in tree.nodes() {
            let mut up = Some(node);
            let mut extended = false;
            while let Some(n) = up {
                extended |= n.tag().starts_with('_');
                up = n.parent();
            }
            if extended || node.is_synthetic() || node.tag() == "TRLR" {
                continue;
            }
            let ty = node.structure_type().map(|t| t.to_string());
            assert!(
                ty.as_deref().is_some_and(|t| t.starts_with(G7)),
                "{path}:{}: {} has the type {ty:?}",
                node.line(),
                node.tag()
            );
        }
    }
    let Some(bytes) = sample("maximal70.ged") else {
        return;
    };
    let tree = Tree::from_slice(&bytes).expect("tree");
    let type_at = |path: &str| {
        let node = tree
            .records()
            .find_map(|r| r.first(path).or_else(|| (r.tag() == path).then_some(r)));
        node.and_then(|n| n.structure_type()).map(|t| t.to_string())
    };
    let g7 = |name: &str| Some(format!("{G7}{name}"));
    assert_eq!(type_at("HEAD"), g7("HEAD"));
    assert_eq!(type_at("INDI"), g7("record-INDI"));
    assert_eq!(type_at("GEDC"), g7("GEDC"));
    assert_eq!(type_at("HUSB"), g7("FAM-HUSB"));
    assert_eq!(type_at("MARR.HUSB"), g7("HUSB"));
    assert_eq!(type_at("NAME"), g7("INDI-NAME"));
}

#[test]
fn conc_is_a_structure_in_gedcom7() {
    let text = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE ab\n1 CONC cd\n1 CONT ef\n0 @N2@ SNOTE x\n1 CONT y\n0 TRLR\n";
    let (events, diags) = read_all(text, ReaderConfig::new());
    assert_eq!(text_of(&events, "@N1@", None), "ab");
    assert_eq!(text_of(&events, "@N1@", Some("CONC")), "cd");
    assert_eq!(text_of(&events, "@N2@", None), "x\ny");
    let kinds: Vec<(u64, DiagnosticKind)> =
        diags.iter().map(|d| (d.position.line, d.kind)).collect();
    // The CONT after the CONC continues nothing: it follows a structure at its level.
    assert_eq!(
        kinds,
        [
            (5, DiagnosticKind::ConcInGedcom7),
            (6, DiagnosticKind::StrayContinuation)
        ]
    );
    // The same lines in 5.5.1 are joined.
    let text551 = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 CHAR UTF-8\n0 @N1@ NOTE ab\n1 CONC cd\n1 CONT ef\n0 TRLR\n";
    let (events, diags) = read_all(text551, ReaderConfig::new());
    assert_eq!(text_of(&events, "@N1@", None), "abcd\nef");
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn gedcom7_keeps_escapes_long_lines_and_reads_stray_bytes_as_windows_1252() {
    let long = "x".repeat(1000);
    let text = format!(
        "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 BIRT\n2 DATE @#DJULIAN@ 1 JAN 1700\n1 NOTE @#U263A@ {long}\n0 TRLR\n"
    );
    let (events, diags) = read_all(text.as_bytes(), ReaderConfig::new());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        text_of(&events, "@I1@", Some("DATE")),
        "@#DJULIAN@ 1 JAN 1700"
    );
    assert_eq!(
        text_of(&events, "@I1@", Some("NOTE")),
        format!("@#U263A@ {long}")
    );
    // A windows-1252 "é" (E9) in a UTF-8 file: read as "é", with a warning at its line.
    let mut bytes = b"\xEF\xBB\xBF0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NAME Ren".to_vec();
    bytes.extend_from_slice(b"\xE9 /Caf\xC3\xA9/\n0 TRLR\n");
    let (events, diags) = read_all(&bytes, ReaderConfig::new());
    assert_eq!(text_of(&events, "@I1@", Some("NAME")), "René /Café/");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        (
            diags[0].kind,
            diags[0].position.line,
            diags[0].kind.severity()
        ),
        (DiagnosticKind::InvalidEncoding, 5, Severity::Warning)
    );
    assert!(
        diags[0].message.contains("windows-1252"),
        "{}",
        diags[0].message
    );
}

/// A 7.0 file with no byte-order mark and no `CHAR` line is UTF-8, not the
/// 5.5.1 default ANSEL.
#[test]
fn gedcom7_without_bom_or_char_is_utf8() {
    let text = "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NAME Zoë /Brontë/\n0 TRLR\n";
    let (events, diags) = read_all(text.as_bytes(), ReaderConfig::new());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(text_of(&events, "@I1@", Some("NAME")), "Zoë /Brontë/");
    // Forced to 7, a HEAD that says nothing is read as UTF-8 too.
    let text = "0 HEAD\n0 @I1@ INDI\n1 NAME Zoë\n0 TRLR\n";
    let forced = ReaderConfig::new().version(Some(Version::Gedcom7));
    let mut reader = Reader::with_config(text.as_bytes(), forced);
    assert_eq!(reader.encoding(), Encoding::Utf8);
    let mut names = Vec::new();
    while let Some(e) = reader.next_event().unwrap() {
        if let Event::Begin(b) = e {
            if b.tag == "NAME" {
                names.push(b.text().unwrap().into_owned());
            }
        }
    }
    assert_eq!(names, ["Zoë"]);
    assert_eq!(reader.drain_diagnostics().count(), 0);
}

/// Chunks, batches and `Records` carry the HEAD's version to every piece:
/// the same events (payloads' decoding included) and diagnostics as a whole
/// read, at several sizes and thread counts.
#[test]
fn parallel_and_streamed_reads_of_the_samples_equal_the_whole_read() {
    let mut extra = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n".to_vec();
    for i in 0..40 {
        extra.extend_from_slice(
            format!(
                "0 @N{i}@ SNOTE @@a@@b {i}\n1 CONT @@c\n1 CONC d\n0 @I{i}@ INDI\n1 FAMC @VOID@\n"
            )
            .as_bytes(),
        );
    }
    extra.extend_from_slice(b"0 TRLR\n");
    let mut files = samples();
    files.push(("generated".into(), extra));
    for (name, bytes) in files {
        let (events, diags) = read_all(&bytes, ReaderConfig::new());
        let input = Input::new(&bytes).unwrap();
        for (target, jobs) in [(1, 1), (1, 2), (64, 2), (300, 3), (1 << 20, 2)] {
            let chunks = Chunks::new(&input, ReaderConfig::new())
                .unwrap()
                .batch_bytes(target)
                .jobs(jobs);
            assert_eq!(chunks.version(), Version::Gedcom7, "{name}");
            let out = chunks
                .map(|reader| {
                    let mut events = Vec::new();
                    while let Some(e) = reader.next_event()? {
                        events.push(e.into_owned());
                    }
                    Ok(events)
                })
                .unwrap();
            assert_eq!(
                out.results.concat(),
                events,
                "{name}: chunks {target} {jobs}"
            );
            assert_eq!(out.diagnostics, diags, "{name}: chunks {target} {jobs}");
        }
        for (batch, jobs) in [(1, 1), (1, 2), (64, 2), (1 << 16, 1)] {
            let source = BufReader::with_capacity(61, &bytes[..]);
            let mut stream = StreamReader::with_config(source, ReaderConfig::new())
                .batch_bytes(batch)
                .jobs(jobs);
            let mut got = Vec::new();
            let mut got_diags = Vec::new();
            let summary = stream
                .for_each(
                    |reader| {
                        let mut out = Vec::new();
                        while let Some(e) = reader.next_event()? {
                            out.push(e.into_owned());
                        }
                        Ok(out)
                    },
                    |out, ds| {
                        got.extend(out);
                        got_diags.extend(ds);
                        Ok(())
                    },
                )
                .unwrap();
            got_diags.extend(summary.diagnostics);
            assert_eq!(stream.version(), Some(Version::Gedcom7), "{name}");
            // A batch's spans are relative to its buffer.
            let strip = |mut e: Event<'static>| {
                if let Event::Begin(b) = &mut e {
                    b.span = Default::default();
                }
                e
            };
            let want: Vec<_> = events.iter().cloned().map(strip).collect();
            let got: Vec<_> = got.into_iter().map(strip).collect();
            assert_eq!(got, want, "{name}: stream {batch} {jobs}");
            assert_eq!(got_diags, diags, "{name}: stream {batch} {jobs}");
        }
        // Records: each record's tree holds the whole read's payloads.
        let mut records = Records::new(&bytes[..]).batch_bytes(64).jobs(2);
        let mut texts = Vec::new();
        for r in records.by_ref() {
            let r = r.unwrap();
            for node in r.root().walk().filter_map(|s| match s {
                gedcom_elf::tree::Step::Enter(n) => Some(n),
                _ => None,
            }) {
                if let Some(t) = node.text() {
                    texts.push(t.into_owned());
                }
            }
        }
        let want: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::Begin(b) => match &b.value {
                    Some(Value::Text(_)) => b.text().map(|t| t.into_owned()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(texts, want, "{name}: records");
        assert_eq!(
            records.schema().map(|s| s.version()),
            Some(Version::Gedcom7),
            "{name}"
        );
    }
}

/// `check` maps the new reader kind to its rule, `read.conc-in-gedcom7`:
/// found on a 7.0 document's `CONC`, not on a 5.5.1 one's.
#[test]
fn check_reports_conc_in_gedcom7() {
    let rules = |text: &[u8]| {
        let mut found = Vec::new();
        gedcom_elf::check::Checker::new(gedcom_elf::check::CheckConfig::new())
            .run(&mut Records::new(text), |f| {
                found.push((f.line, f.rule.id.to_string()));
                Ok::<(), std::convert::Infallible>(())
            })
            .expect("check");
        found
    };
    let g7 = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE ab\n1 CONC cd\n0 TRLR\n";
    let found = rules(g7);
    assert!(
        found.contains(&(5, "read.conc-in-gedcom7".to_string())),
        "{found:?}"
    );
    let g551 = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @N1@ NOTE ab\n1 CONC cd\n0 TRLR\n";
    let found = rules(g551);
    assert!(
        !found.iter().any(|(_, r)| r == "read.conc-in-gedcom7"),
        "{found:?}"
    );
}

/// What real 7.0 files do that 7.0's grammar forbids (whitespace before
/// the level, runs of spaces or tabs between the fields, lowercase tags)
/// is read as 5.5.1 reads it, each with a `gedcom7-line` warning naming
/// the line; a 5.5.1 document, whose grammar allows the same, has none;
/// the parallel and streamed reads report the same lines; `check` reports
/// them as `read.gedcom7-line`.
#[test]
fn gedcom7_lines_read_leniently_with_diagnostics() {
    let body = "  0 @I1@ INDI\n1  NAME John /Doe/\n1 birt\n2 DATE 1 JAN 1900\n1 NOTE a\n\t2 CONT b\n1 SEX\tM\n0 TRLR\n";
    let g7 = format!("0 HEAD\n1 GEDC\n2 VERS 7.0\n{body}");
    let (events, diagnostics) = read_all(g7.as_bytes(), ReaderConfig::new());
    let lines: Vec<(u64, &str)> = diagnostics
        .iter()
        .map(|d| (d.position.line, d.message.split(',').next().unwrap_or("")))
        .collect();
    assert_eq!(
        lines,
        [
            (4, "whitespace before the level"),
            (5, "a delimiter other than one space"),
            (6, "lowercase letters in the tag"),
            (9, "whitespace before the level"),
            (10, "a delimiter other than one space"),
        ]
    );
    assert!(diagnostics
        .iter()
        .all(|d| d.kind == DiagnosticKind::Gedcom7Line && d.severity() == Severity::Warning));
    // Read as 5.5.1 reads it: the structures are all there.
    assert_eq!(text_of(&events, "@I1@", Some("NAME")), "John /Doe/");
    assert_eq!(text_of(&events, "@I1@", Some("NOTE")), "a\nb");
    let tags: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Begin(b) => Some(b.tag.as_ref()),
            _ => None,
        })
        .collect();
    assert!(tags.contains(&"birt") && tags.contains(&"SEX"), "{tags:?}");
    // The same lines from chunks and from a stream.
    let input = Input::new(g7.as_bytes()).unwrap();
    let read_through = |r: &mut Reader<'_>| {
        while r.next_event()?.is_some() {}
        Ok(())
    };
    let mut chunked = Vec::new();
    Chunks::new(&input, ReaderConfig::new())
        .unwrap()
        .jobs(2)
        .batch_bytes(16)
        .for_each(read_through, |(), ds| {
            chunked.extend(ds.iter().map(|d| d.position.line));
            Ok(())
        })
        .unwrap();
    assert_eq!(chunked, [4, 5, 6, 9, 10]);
    let mut streamed = Vec::new();
    StreamReader::new(BufReader::new(g7.as_bytes()))
        .jobs(2)
        .batch_bytes(16)
        .for_each(read_through, |(), ds| {
            streamed.extend(ds.iter().map(|d| d.position.line));
            Ok(())
        })
        .unwrap();
    assert_eq!(streamed, [4, 5, 6, 9, 10]);
    // 5.5.1 allows all of it.
    let g551 = format!("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n{body}");
    let (_, diagnostics) = read_all(g551.as_bytes(), ReaderConfig::new());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    // check's rule.
    let mut found = Vec::new();
    gedcom_elf::check::Checker::new(gedcom_elf::check::CheckConfig::new())
        .run(&mut Records::new(g7.as_bytes()), |f| {
            found.push((f.line, f.rule.id));
            Ok::<(), std::convert::Infallible>(())
        })
        .expect("check");
    let ours: Vec<u64> = found
        .iter()
        .filter(|(_, r)| *r == "read.gedcom7-line")
        .map(|(l, _)| *l)
        .collect();
    assert_eq!(ours, [4, 5, 6, 9, 10]);
}

/// A blank line is not a line of 7.0's grammar: each one in a 7.0 document
/// (between lines, before a continuation line, at the end) has a
/// `gedcom7-line` warning naming it, from a whole read, from chunks and
/// from a stream alike; a 5.5.1 document's blank lines have none.
#[test]
fn gedcom7_blank_lines_each_have_a_warning() {
    let body = "0 @I1@ INDI\n\n1 NAME John /Doe/\n \t\n1 NOTE a\n\r\n2 CONT b\n0 TRLR\n\n\n";
    let g7 = format!("0 HEAD\n1 GEDC\n2 VERS 7.0\n{body}");
    let (events, diagnostics) = read_all(g7.as_bytes(), ReaderConfig::new());
    let found: Vec<(u64, &str)> = diagnostics
        .iter()
        .map(|d| (d.position.line, d.message.split(',').next().unwrap_or("")))
        .collect();
    let want: Vec<(u64, &str)> = [5, 7, 9, 12, 13]
        .iter()
        .map(|&l| (l, "a blank line"))
        .collect();
    assert_eq!(found, want);
    assert!(diagnostics
        .iter()
        .all(|d| d.kind == DiagnosticKind::Gedcom7Line && d.severity() == Severity::Warning));
    assert_eq!(text_of(&events, "@I1@", Some("NOTE")), "a\nb");
    let lines: Vec<u64> = want.iter().map(|(l, _)| *l).collect();
    let input = Input::new(g7.as_bytes()).unwrap();
    let read_through = |r: &mut Reader<'_>| {
        while r.next_event()?.is_some() {}
        Ok(())
    };
    for batch in [8, 16, 64] {
        let mut chunked = Vec::new();
        Chunks::new(&input, ReaderConfig::new())
            .unwrap()
            .jobs(2)
            .batch_bytes(batch)
            .for_each(read_through, |(), ds| {
                chunked.extend(ds.iter().map(|d| d.position.line));
                Ok(())
            })
            .unwrap();
        assert_eq!(chunked, lines, "chunks of {batch}");
        let mut streamed = Vec::new();
        StreamReader::new(BufReader::new(g7.as_bytes()))
            .jobs(2)
            .batch_bytes(batch)
            .for_each(read_through, |(), ds| {
                streamed.extend(ds.iter().map(|d| d.position.line));
                Ok(())
            })
            .unwrap();
        assert_eq!(streamed, lines, "stream batches of {batch}");
    }
    let g551 = format!("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n{body}");
    let (_, diagnostics) = read_all(g551.as_bytes(), ReaderConfig::new());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

// ---- what each sample holds (the numbers counted from the files) ----

/// The record counts of every sample, as `grep '^0 '` counts them in the
/// files (a byte-order mark before the HEAD's line).
const RECORDS: &[(&str, &[(&str, usize)])] = &[
    ("gedcom70/age.ged", &[("HEAD", 1), ("INDI", 1), ("TRLR", 1)]),
    (
        "gedcom70/date.ged",
        &[("HEAD", 1), ("INDI", 8), ("TRLR", 1)],
    ),
    (
        "gedcom70/escapes.ged",
        &[("HEAD", 1), ("INDI", 1), ("SNOTE", 7), ("TRLR", 1)],
    ),
    (
        "gedcom70/extension-record.ged",
        &[("HEAD", 1), ("INDI", 1), ("TRLR", 1), ("_LOC", 2)],
    ),
    (
        "gedcom70/extensions.ged",
        &[
            ("HEAD", 1),
            ("INDI", 2),
            ("SOUR", 1),
            ("SUBM", 1),
            ("TRLR", 1),
            ("_LOC", 1),
            ("_PARTY", 1),
            ("_RECORD", 1),
            ("_USER", 1),
        ],
    ),
    (
        "gedcom70/filename-1.ged",
        &[("HEAD", 1), ("OBJE", 1), ("TRLR", 1)],
    ),
    (
        "gedcom70/lang.ged",
        &[("HEAD", 1), ("SUBM", 2), ("TRLR", 1)],
    ),
    (
        "gedcom70/long-url.ged",
        &[("HEAD", 1), ("SUBM", 1), ("TRLR", 1)],
    ),
    (
        "gedcom70/maximal70-lds.ged",
        &[
            ("FAM", 2),
            ("HEAD", 1),
            ("INDI", 4),
            ("SOUR", 2),
            ("TRLR", 1),
        ],
    ),
    (
        "gedcom70/maximal70-memories1.ged",
        &[
            ("FAM", 2),
            ("HEAD", 1),
            ("INDI", 4),
            ("OBJE", 2),
            ("SOUR", 2),
            ("TRLR", 1),
        ],
    ),
    (
        "gedcom70/maximal70-memories2.ged",
        &[
            ("FAM", 2),
            ("HEAD", 1),
            ("INDI", 4),
            ("OBJE", 2),
            ("SOUR", 2),
            ("TRLR", 1),
        ],
    ),
    (
        "gedcom70/maximal70-tree1.ged",
        &[
            ("FAM", 2),
            ("HEAD", 1),
            ("INDI", 4),
            ("SOUR", 2),
            ("TRLR", 1),
        ],
    ),
    (
        "gedcom70/maximal70-tree2.ged",
        &[
            ("FAM", 2),
            ("HEAD", 1),
            ("INDI", 4),
            ("SOUR", 2),
            ("TRLR", 1),
        ],
    ),
    (
        "gedcom70/maximal70.ged",
        &[
            ("FAM", 2),
            ("HEAD", 1),
            ("INDI", 4),
            ("OBJE", 3),
            ("REPO", 2),
            ("SNOTE", 2),
            ("SOUR", 2),
            ("SUBM", 2),
            ("TRLR", 1),
        ],
    ),
    ("gedcom70/minimal70.ged", &[("HEAD", 1), ("TRLR", 1)]),
    (
        "gedcom70/notes-1.ged",
        &[
            ("HEAD", 1),
            ("SNOTE", 3),
            ("SOUR", 1),
            ("SUBM", 1),
            ("TRLR", 1),
        ],
    ),
    (
        "gedcom70/obje-1.ged",
        &[("HEAD", 1), ("INDI", 1), ("OBJE", 2), ("TRLR", 1)],
    ),
    (
        "gedcom70/remarriage1.ged",
        &[("FAM", 2), ("HEAD", 1), ("INDI", 3), ("TRLR", 1)],
    ),
    (
        "gedcom70/remarriage2.ged",
        &[("FAM", 3), ("HEAD", 1), ("INDI", 3), ("TRLR", 1)],
    ),
    (
        "gedcom70/same-sex-marriage.ged",
        &[("FAM", 1), ("HEAD", 1), ("INDI", 2), ("TRLR", 1)],
    ),
    (
        "gedcom70/voidptr.ged",
        &[("FAM", 1), ("HEAD", 1), ("INDI", 2), ("TRLR", 1)],
    ),
    (
        "gedcom70/xref.ged",
        &[("HEAD", 1), ("INDI", 7), ("TRLR", 1)],
    ),
    ("gedcom71/minimal71.ged", &[("HEAD", 1), ("TRLR", 1)]),
    (
        "gedcom71/notes71.ged",
        &[
            ("HEAD", 1),
            ("SNOTE", 3),
            ("SOUR", 1),
            ("SUBM", 1),
            ("TRLR", 1),
        ],
    ),
];

#[test]
fn every_sample_has_the_records_its_file_has() {
    let Some(root) = corpus7() else {
        return;
    };
    let samples = samples();
    assert_eq!(samples.len(), RECORDS.len(), "a sample with no counts here");
    for (file, counts) in RECORDS {
        let bytes = std::fs::read(root.join(file)).unwrap();
        assert_eq!(
            common::record_counts(&bytes),
            common::counts_of(counts),
            "{file}"
        );
        // The tree has as many records (the TRLR too).
        let tree = Tree::from_slice(&bytes).expect("tree");
        let n: usize = counts.iter().map(|(_, n)| n).sum();
        assert_eq!(tree.record_count(), n, "{file}");
    }
}

/// The pointers of the `tag` substructures of `node`, in order.
fn pointers_of(node: gedcom_elf::tree::NodeRef<'_>, tag: &str) -> Vec<String> {
    node.children_with_tag(tag)
        .map(|c| c.pointer().expect("a pointer").to_string())
        .collect()
}

/// The texts of the `tag` substructures of `node`, in order.
fn texts_of(node: gedcom_elf::tree::NodeRef<'_>, tag: &str) -> Vec<String> {
    node.children_with_tag(tag)
        .map(|c| c.text().unwrap_or_default().into_owned())
        .collect()
}

/// Runs `check` on the tree of the official sample `name` (nothing when
/// `../shared/corpus7` is not there).
fn with_sample_tree(name: &str, check: impl FnOnce(&Tree<'_>)) {
    let Some(bytes) = sample(name) else {
        return;
    };
    check(&Tree::from_slice(&bytes).expect("tree"));
}

/// The record `xref` of `tree` (the test fails without it).
fn record<'t>(tree: &'t Tree, xref: &str) -> gedcom_elf::tree::NodeRef<'t> {
    tree.find(xref).unwrap_or_else(|| panic!("no {xref}"))
}

/// The `DATE` texts of the `tag` substructures of `node`, in order.
fn dates_of(node: gedcom_elf::tree::NodeRef<'_>, tag: &str) -> Vec<String> {
    node.children_with_tag(tag)
        .map(|e| e.child("DATE").unwrap().text().unwrap().into_owned())
        .collect()
}

/// `maximal70.ged`, the specification's sample of every structure: its
/// 19 records in order, and some of what they hold (numbers from the file).
#[test]
fn maximal70_has_its_records_and_what_they_hold() {
    let Some(bytes) = sample("maximal70.ged") else {
        return;
    };
    assert_eq!(
        bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        875
    );
    let tree = Tree::from_slice(&bytes).expect("tree");
    let ids: Vec<String> = tree
        .records()
        .filter_map(|r| r.xref().map(|x| x.to_string()))
        .collect();
    assert_eq!(
        ids,
        [
            "@F1@", "@F2@", "@I1@", "@I2@", "@I3@", "@I4@", "@O1@", "@O2@", "@O3@", "@R1@", "@R2@",
            "@N1@", "@N2@", "@S1@", "@S2@", "@U1@", "@U2@"
        ]
    );
    let find = |x: &str| record(&tree, x);
    let text = |x: &str, path: &str| {
        find(x)
            .first(path)
            .and_then(|n| n.text().map(|t| t.into_owned()))
            .unwrap_or_else(|| panic!("no {x} {path}"))
    };
    // The HEAD.
    let head = tree.records().next().unwrap();
    assert_eq!(head.tag(), "HEAD");
    assert_eq!(head.first("GEDC.VERS").unwrap().text().unwrap(), "7.0");
    assert_eq!(
        texts_of(head.child("SCHMA").unwrap(), "TAG"),
        [
            "_SKYPEID http://xmlns.com/foaf/0.1/skypeID",
            "_JABBERID http://xmlns.com/foaf/0.1/jabberID"
        ]
    );
    assert_eq!(
        head.child("SOUR").unwrap().text().unwrap(),
        "https://gedcom.io/"
    );
    assert_eq!(head.first("SOUR.VERS").unwrap().text().unwrap(), "0.4");
    assert_eq!(
        head.child("SUBM").unwrap().target().map(|t| t.tag()),
        Some("SUBM")
    );
    // The families: spouses, children (one a @VOID@ pointer, which points
    // nowhere).
    let f1 = find("@F1@");
    assert_eq!(pointers_of(f1, "HUSB"), ["@I1@"]);
    assert_eq!(pointers_of(f1, "WIFE"), ["@I2@"]);
    assert_eq!(pointers_of(f1, "CHIL"), ["@I4@", "@VOID@"]);
    let targets: Vec<Option<&str>> = f1
        .children_with_tag("CHIL")
        .map(|c| c.target().map(|t| t.tag()))
        .collect();
    assert_eq!(targets, [Some("INDI"), None]);
    assert_eq!(text("@F1@", "RESN"), "CONFIDENTIAL, LOCKED");
    assert_eq!(text("@F1@", "NCHI"), "2");
    assert_eq!(pointers_of(find("@F2@"), "CHIL"), ["@I1@"]);
    assert_eq!(text("@F2@", "MARR.DATE"), "1998");
    // The individuals.
    let i1 = find("@I1@");
    assert_eq!(
        texts_of(i1, "NAME"),
        [
            "Lt. Cmndr. Joseph \"John\" /de Allen/ jr.",
            "John /Doe/",
            "Aka",
            "Immigrant Name"
        ]
    );
    assert_eq!(
        pointers_of(i1, "FAMC"),
        ["@VOID@", "@VOID@", "@VOID@", "@F2@", "@F2@"]
    );
    assert_eq!(pointers_of(i1, "FAMS"), ["@VOID@", "@F1@"]);
    let sexes: Vec<String> = ["@I1@", "@I2@", "@I3@", "@I4@"]
        .iter()
        .map(|x| text(x, "SEX"))
        .collect();
    assert_eq!(sexes, ["M", "F", "X", "U"]);
    assert_eq!(pointers_of(find("@I4@"), "FAMC"), ["@F1@"]);
    // The media objects, notes, repositories and submitters.
    assert_eq!(
        texts_of(find("@O1@"), "FILE"),
        [
            "media/CharlotteBront%C3%AB.jpg",
            "file:///path/to/file1",
            "media/original.mp3"
        ]
    );
    assert_eq!(text("@O1@", "FILE.FORM"), "image/jpeg");
    assert_eq!(
        text("@O3@", "FILE"),
        "http://host.example.com/path/to/file3"
    );
    assert_eq!(find("@N1@").text().unwrap(), "Shared note 1");
    assert_eq!(
        texts_of(find("@N1@"), "TRAN"),
        ["Shared note 1", "Shared note 1"]
    );
    assert_eq!(find("@N2@").text().unwrap(), "Shared note 2");
    assert_eq!(text("@R1@", "NAME"), "Repository 1");
    assert_eq!(text("@R2@", "NAME"), "Repository 2");
    assert_eq!(text("@S1@", "DATA.EVEN"), "BIRT, DEAT");
    assert_eq!(text("@U1@", "NAME"), "GEDCOM Steering Committee");
    assert_eq!(text("@U2@", "NAME"), "Submitter 2");
}

/// `remarriage1.ged` (a second marriage of a divorced couple in the same
/// family), `remarriage2.ged` (in a new family) and `same-sex-marriage.ged`:
/// who is in which family, and the dates.
#[test]
fn remarriage_and_same_sex_marriage_samples_have_their_families() {
    with_sample_tree("remarriage1.ged", remarriage1);
    with_sample_tree("remarriage2.ged", remarriage2);
    with_sample_tree("same-sex-marriage.ged", same_sex_marriage);
}

fn remarriage1(tree: &Tree<'_>) {
    let find = |x: &str| record(tree, x);
    let dates = |x: &str, tag: &str| dates_of(find(x), tag);
    assert_eq!(pointers_of(find("@F1@"), "HUSB"), ["@I1@"]);
    assert_eq!(pointers_of(find("@F1@"), "WIFE"), ["@I2@"]);
    assert_eq!(dates("@F1@", "MARR"), ["1 APR 1911", "4 JUL 1914"]);
    assert_eq!(dates("@F1@", "DIV"), ["2 MAY 1912"]);
    assert_eq!(pointers_of(find("@F2@"), "WIFE"), ["@I3@"]);
    assert_eq!(dates("@F2@", "MARR"), ["3 JUN 1913"]);
    assert_eq!(pointers_of(find("@I1@"), "FAMS"), ["@F1@", "@F2@"]);
    assert_eq!(pointers_of(find("@I2@"), "FAMS"), ["@F1@"]);
    assert_eq!(dates("@I3@", "DEAT"), ["1 MAR 1914"]);
}

fn remarriage2(tree: &Tree<'_>) {
    let find = |x: &str| record(tree, x);
    let dates = |x: &str, tag: &str| dates_of(find(x), tag);
    assert_eq!(dates("@F1@", "MARR"), ["1 APR 1911"]);
    assert_eq!(dates("@F1@", "DIV"), ["2 MAY 1912"]);
    assert_eq!(pointers_of(find("@F3@"), "HUSB"), ["@I1@"]);
    assert_eq!(pointers_of(find("@F3@"), "WIFE"), ["@I2@"]);
    assert_eq!(dates("@F3@", "MARR"), ["4 JUL 1914"]);
    assert_eq!(pointers_of(find("@I1@"), "FAMS"), ["@F1@", "@F2@", "@F3@"]);
    assert_eq!(pointers_of(find("@I2@"), "FAMS"), ["@F1@", "@F3@"]);
}

fn same_sex_marriage(tree: &Tree<'_>) {
    let find = |x: &str| record(tree, x);
    let f1 = find("@F1@");
    assert_eq!(
        (pointers_of(f1, "HUSB"), pointers_of(f1, "WIFE")),
        (vec!["@I1@".to_string()], vec!["@I2@".to_string()])
    );
    for (x, name) in [("@I1@", "John /Doe/"), ("@I2@", "Richard /Roe/")] {
        let i = find(x);
        assert_eq!(texts_of(i, "NAME"), [name]);
        assert_eq!(texts_of(i, "SEX"), ["M"]);
        assert_eq!(pointers_of(i, "FAMS"), ["@F1@"]);
    }
}

/// `notes-1.ged`: a header note, an inline note, and three shared notes
/// pointed to once, twice, and from a note that points back (every
/// pointer resolves).
#[test]
fn notes_1_has_its_notes_and_their_pointers() {
    with_sample_tree("notes-1.ged", notes_1);
}

fn notes_1(tree: &Tree<'_>) {
    let find = |x: &str| record(tree, x);
    let head = tree.records().next().unwrap();
    assert_eq!(texts_of(head, "NOTE"), ["The header note"]);
    assert_eq!(pointers_of(head, "SUBM"), ["@1@"]);
    assert_eq!(texts_of(find("@1@"), "NOTE"), ["An inline submission note"]);
    assert_eq!(pointers_of(find("@1@"), "SNOTE"), ["@4@"]);
    assert_eq!(pointers_of(find("@2@"), "SNOTE"), ["@3@", "@4@", "@5@"]);
    for (x, text) in [
        ("@3@", "A single-use note record"),
        ("@4@", "A dual-use note record"),
        ("@5@", "A cyclic note record"),
    ] {
        assert_eq!(find(x).tag(), "SNOTE");
        assert_eq!(find(x).text().unwrap(), text);
    }
    assert_eq!(
        find("@3@").first("CHAN.DATE").unwrap().text().unwrap(),
        "25 MAY 2021"
    );
    assert_eq!(pointers_of(find("@5@"), "SOUR"), ["@2@"]);
    let pointers: Vec<_> = tree.nodes().filter(|n| n.pointer().is_some()).collect();
    assert_eq!(pointers.len(), 6);
    assert!(pointers
        .iter()
        .all(|n| n.target().is_some_and(|t| t.level() == 0)));
}

/// `age.ged`: 98 `CHR`s of one individual, each with an `AGE`: 97
/// durations, each read as a 7.0 age, and one empty `AGE` with a `PHRASE`.
#[test]
fn age_has_98_ages_each_a_7_0_age_or_a_phrase() {
    use gedcom_elf::value::Age;
    let Some(bytes) = sample("age.ged") else {
        return;
    };
    let tree = Tree::from_slice(&bytes).expect("tree");
    let indi = tree.find("@I1@").unwrap();
    assert_eq!(indi.children_with_tag("CHR").count(), 98);
    let ages: Vec<_> = indi
        .children_with_tag("CHR")
        .map(|c| {
            let ages: Vec<_> = c.children_with_tag("AGE").collect();
            assert_eq!(ages.len(), 1, "line {}", c.line());
            ages[0]
        })
        .collect();
    let mut empty = Vec::new();
    for age in &ages {
        let payload = age.text().unwrap_or_default();
        let parsed = Age::parse(&payload).unwrap_or_else(|e| panic!("{payload:?}: {e}"));
        if parsed == Age::Empty {
            empty.push(age.first("PHRASE").unwrap().text().unwrap().into_owned());
            continue;
        }
        parsed
            .gedcom7()
            .unwrap_or_else(|e| panic!("{payload:?}: {e:?}"));
    }
    assert_eq!(empty, ["Zero"]);
    let first_last: Vec<String> = [ages[0], ages[97]]
        .iter()
        .map(|a| a.text().unwrap().into_owned())
        .collect();
    assert_eq!(first_last, ["0y", "1y 30m 100w 400d"]);
}

/// `date.ged`: 1062 `BIRT.DATE`s in eight individuals by kind of date.
/// Each is read as a date with a 7.0 form, or refused as the value layer
/// documents: 116 ranges whose `AND` date is before the `BET` date
/// (`Order`), and 25 dates with a day beyond its month's last (`Day`: the
/// French Republican `COMP` has 5 or 6 days; the file gives up to 38).
#[test]
fn date_has_1062_dates_each_read_with_a_7_0_form_or_refused_as_documented() {
    use gedcom_elf::value::{Date, DateErrorKind};
    let Some(bytes) = sample("date.ged") else {
        return;
    };
    let tree = Tree::from_slice(&bytes).expect("tree");
    let births: Vec<(String, usize)> = tree
        .records()
        .filter_map(|r| Some((r.xref()?.to_string(), r.children_with_tag("BIRT").count())))
        .collect();
    let want = [
        ("@SIMPLE@", 6),
        ("@CALENDAR@", 21),
        ("@PERIOD@", 47),
        ("@APPROXIMATE@", 42),
        ("@CALCULATED@", 22),
        ("@RANGE@", 42),
        ("@CLOSED_RANGE@", 441),
        ("@CLOSED_PERIOD@", 441),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(x, n)| (x.to_string(), *n)).collect();
    assert_eq!(births, want);
    let mut kinds = std::collections::BTreeMap::new();
    let mut n = 0;
    for birt in tree.nodes().filter(|n| n.tag() == "BIRT") {
        let dates: Vec<_> = birt.children_with_tag("DATE").collect();
        assert_eq!(dates.len(), 1, "line {}", birt.line());
        let payload = dates[0].text().unwrap();
        let kind = match Date::parse(&payload) {
            Ok(date) => {
                let g7 = date
                    .gedcom7()
                    .unwrap_or_else(|e| panic!("{payload}: {e:?}"));
                assert!(g7.phrase.is_none(), "{payload}");
                match date {
                    Date::Exact(_) => "exact",
                    Date::From(_) => "FROM",
                    Date::To(_) => "TO",
                    Date::FromTo(..) => "FROM TO",
                    Date::Before(_) => "BEF",
                    Date::After(_) => "AFT",
                    Date::Between(..) => "BET AND",
                    Date::Approximate(..) => "ABT, CAL, EST",
                    other => panic!("{payload}: {other:?}"),
                }
            }
            Err(e) => match e.kind() {
                DateErrorKind::Order => "refused: Order",
                DateErrorKind::Day => "refused: Day",
                other => panic!("{payload}: {other:?}: {e}"),
            },
        };
        *kinds.entry(kind).or_insert(0) += 1;
        n += 1;
    }
    assert_eq!(n, 1062);
    let want = [
        ("ABT, CAL, EST", 63),
        ("AFT", 21),
        ("BEF", 21),
        ("BET AND", 302),
        ("FROM", 21),
        ("FROM TO", 441),
        ("TO", 25),
        ("exact", 27),
        ("refused: Day", 25),
        ("refused: Order", 116),
    ];
    assert_eq!(kinds, want.into_iter().collect());
}

/// `lang.ged`: the HEAD's language, a submitter's three, and another
/// submitter's 86: the tags of the 86 languages GEDCOM 5.5.1 names, which
/// its note lists.
#[test]
fn lang_has_its_language_tags() {
    let Some(bytes) = sample("lang.ged") else {
        return;
    };
    let tree = Tree::from_slice(&bytes).expect("tree");
    let head = tree.records().next().unwrap();
    assert_eq!(texts_of(head, "LANG"), ["af"]);
    assert_eq!(
        texts_of(tree.find("@1@").unwrap(), "LANG"),
        ["en", "ja", "es"]
    );
    let second = tree.find("@2@").unwrap();
    let tags = texts_of(second, "LANG");
    assert_eq!(tags.len(), 86);
    assert_eq!(
        (tags[0].as_str(), tags[14].as_str(), tags[85].as_str()),
        ("af", "ca-ES", "yi")
    );
    let note = second.child("NOTE").unwrap().text().unwrap().into_owned();
    let (_, names) = note.split_once("namely: ").unwrap();
    assert_eq!(names.split(", ").count(), 86);
}

/// `xref.ged`: seven individuals, one with no xref id, the others with ids
/// of every shape 7.0 allows.
#[test]
fn xref_has_its_seven_individuals_and_their_ids() {
    let Some(bytes) = sample("xref.ged") else {
        return;
    };
    let tree = Tree::from_slice(&bytes).expect("tree");
    let ids: Vec<Option<String>> = tree
        .records()
        .filter(|r| r.tag() == "INDI")
        .map(|r| r.xref().map(|x| x.to_string()))
        .collect();
    assert_eq!(
        ids,
        [
            None,
            Some("@I1@".into()),
            Some("@I@".into()),
            Some("@1@".into()),
            Some("@_@".into()),
            Some("@0XFFFFFFFF@".into()),
            Some(
                "@THEXREFPRODUCTIONDOESNOTHAVEAMAXIMUMLENGTHSOTHISISATESTOFALONGCROSSREFERENCEIDENTIFIER@"
                    .into()
            ),
        ]
    );
    for id in ids.iter().flatten() {
        assert_eq!(tree.find(id).map(|r| r.tag()), Some("INDI"), "{id}");
    }
}
