//! `gedcom-elf gedcomx` through the built binary: the document it writes
//! (read back with serde_json), the not-converted summary on stderr, the
//! output written whole or not at all, the exit statuses, and the same
//! output at every `--jobs` and chunk size, from a file and from stdin.

#![cfg(feature = "gedcomx")]

#[path = "../benches/support/generate.rs"]
mod generate;

mod cli_support;

use cli_support::run;
use std::path::PathBuf;

use serde_json::Value;

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    cli_support::temp_file("cli_gedcomx", name, bytes)
}

use cli_support::arg as s;

const FAMILY: &str = "0 HEAD\n1 CHAR UTF-8\n1 SUBM @U1@\n\
0 @U1@ SUBM\n1 NAME Ann Submitter\n\
0 @I1@ INDI\n1 NAME John /Smith/\n1 SEX M\n1 BIRT\n2 DATE 2 MAR 1850\n2 PLAC York\n1 _MILT yes\n\
0 @I2@ INDI\n1 NAME Mary /Jones/\n1 SEX F\n\
0 @I3@ INDI\n1 NAME Tom /Smith/\n1 FAMC @F1@\n2 PEDI birth\n1 SOUR @S1@\n2 PAGE p. 4\n\
0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 MARR\n2 DATE 1875\n\
0 @S1@ SOUR\n1 AUTH Clerk, Parish\n1 TITL Register of York\n1 REPO @R1@\n\
0 @R1@ REPO\n1 NAME York Archives\n0 TRLR\n";

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

fn ids(doc: &Value, section: &str) -> Vec<String> {
    doc[section]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x["id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_small_family_becomes_persons_relationships_sources_and_agents() {
    let o = run(&["gedcomx", "-"], Some(FAMILY.as_bytes()));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let doc = json(&o.stdout);
    assert_eq!(doc["attribution"]["contributor"]["resource"], "#U1");
    assert_eq!(ids(&doc, "persons"), ["I1", "I2", "I3"]);
    assert_eq!(ids(&doc, "relationships"), ["F1", "F1.I1.I3", "F1.I2.I3"]);
    assert_eq!(ids(&doc, "sourceDescriptions"), ["I3.s1", "S1"]);
    assert_eq!(ids(&doc, "agents"), ["U1", "R1"]);
    let birth = &doc["persons"][0]["facts"][0];
    assert_eq!(birth["date"]["formal"], "+1850-03-02");
    assert_eq!(birth["place"]["original"], "York");
    let pc = &doc["relationships"][1];
    assert_eq!(
        pc["facts"][0]["type"],
        "http://gedcomx.org/BiologicalParent"
    );
    let s1 = &doc["sourceDescriptions"][1];
    assert_eq!(
        s1["citations"][0]["value"],
        "Clerk, Parish, Register of York"
    );
    assert_eq!(
        s1["citations"][0]["elements"][0]["name"],
        "http://terms.fhiso.org/sources/authorName"
    );
    assert_eq!(s1["repository"]["resource"], "#R1");
    let page = &doc["sourceDescriptions"][0];
    assert_eq!(page["componentOf"]["description"], "#S1");
    // What was not converted: a warning at its line, and the total.
    assert!(
        err.contains("<stdin>:12: warning: not converted to GEDCOM X: INDI._MILT (extension tag): 1 time, line 12"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>: note: 2 structures not converted"),
        "{err}"
    );
    // --quiet hides them.
    let q = run(&["gedcomx", "--quiet", "-"], Some(FAMILY.as_bytes()));
    assert!(
        q.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&q.stderr)
    );
    assert_eq!(q.stdout, o.stdout);
}

#[test]
fn keep_extensions_makes_extension_structures_notes() {
    let o = run(
        &["gedcomx", "--keep-extensions", "-"],
        Some(FAMILY.as_bytes()),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let doc = json(&o.stdout);
    let note = &doc["persons"][0]["notes"][0];
    assert_eq!(note["subject"], "INDI._MILT");
    assert_eq!(note["text"], "0 _MILT yes");
    assert!(!err.contains("_MILT"), "{err}");
    assert!(
        err.contains("<stdin>: note: 1 structure not converted"),
        "{err}"
    );
}

#[test]
fn xml_has_the_same_items_in_the_gedcomx_namespace() {
    let o = run(
        &["gedcomx", "--format", "xml", "-"],
        Some(FAMILY.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0));
    let xml = String::from_utf8(o.stdout).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gedcomx xmlns=\"http://gedcomx.org/v1/\" xmlns:cev=\"http://terms.fhiso.org/sources/\"><attribution><contributor resource=\"#U1\"/></attribution><person id=\"I1\">"), "{xml}");
    assert!(xml.ends_with("</gedcomx>\n"));
    for (element, n) in [
        ("<person ", 3),
        ("<relationship ", 3),
        ("<sourceDescription ", 2),
        ("<agent ", 2),
        // S1's author, title and repository's name; I3's citation: those
        // and its page.
        ("<cev:element ", 7),
    ] {
        assert_eq!(xml.matches(element).count(), n, "{element}");
    }
    assert!(xml.contains("<cev:element name=\"http://terms.fhiso.org/sources/title\"><cev:value>Register of York</cev:value></cev:element>"));
    // Pretty: the same elements, indented.
    let p = run(
        &["gedcomx", "--format", "xml", "--pretty", "-"],
        Some(FAMILY.as_bytes()),
    );
    let pretty = String::from_utf8(p.stdout).unwrap();
    assert!(
        pretty.contains("\n  <person id=\"I1\">\n    <gender type=\"http://gedcomx.org/Male\"/>"),
        "{pretty}"
    );
    let squeeze = |s: &str| s.lines().map(str::trim).collect::<String>();
    assert_eq!(squeeze(&pretty), squeeze(&xml));
}

#[test]
fn pretty_json_is_the_same_document() {
    let compact = run(&["gedcomx", "-"], Some(FAMILY.as_bytes()));
    let pretty = run(&["gedcomx", "--pretty", "-"], Some(FAMILY.as_bytes()));
    assert!(pretty.stdout.windows(4).any(|w| w == b"\n  \""));
    assert_eq!(json(&compact.stdout), json(&pretty.stdout));
}

/// Six hundred sources (the index numbers them from 0: S256's number 255
/// and S512's 511 hold the octet 0xFF that begins a marker; some with only
/// a short title, some with nothing, some whose title needs escapes), cited
/// with pages, dates, notes and short titles of their own by individuals
/// and a family, then by records after the families (whose source
/// descriptions go straight to the output, not to a spool).
fn many_citations() -> Vec<u8> {
    let mut g = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 1..=1500 {
        let s = (i * 7) % 600 + 1;
        g += &format!("0 @I{i}@ INDI\n1 NAME Person{i} /Name/\n1 BIRT\n2 DATE {i} AD\n");
        g += &format!("2 SOUR @S{s}@\n3 PAGE p. {i}, \"{s}\"\n");
        match i % 4 {
            0 => {
                g += &format!(
                    "1 SOUR @S{}@\n2 DATA\n3 DATE 1 JAN 19{:02}\n",
                    s % 600 + 1,
                    i % 100
                )
            }
            1 => g += &format!("1 SOUR @S{s}@\n2 NOTE seen\n"),
            2 => g += &format!("1 SOUR @S{s}@\n2 PAGE leaf {i}\n2 ABBR own short\n"),
            _ => g += &format!("1 SOUR @S{s}@\n"),
        }
    }
    g += "0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n1 SOUR @S256@\n2 PAGE f. 1\n";
    for s in 1..=600 {
        g += &format!("0 @S{s}@ SOUR\n");
        match s % 10 {
            0 => g += "1 ABBR Short only\n",
            1 => {}
            2 => g += "1 TITL Here & <there> \"quoted\" back\\slash, ça\n",
            _ => g += &format!("1 AUTH Author {s}\n1 TITL Title {s}\n1 PUBL Town, 1{s:03}\n1 REPO @R{}@\n2 CALN {s}/9\n", s % 7),
        }
    }
    for r in 0..7 {
        g += &format!("0 @R{r}@ REPO\n1 NAME Archive {r}\n");
    }
    g += "0 @N1@ NOTE One\n1 SOUR @S256@\n2 PAGE p. 9\n";
    g += "0 @N2@ NOTE Two\n1 SOUR @S512@\n2 PAGE p. 511\n0 TRLR\n";
    g.into_bytes()
}

#[test]
fn citations_written_once_per_source_are_the_pretty_document_s() {
    // Compact output writes each source's part of its citations once and
    // puts it in place as the output is written; pretty output writes each
    // citation whole. The two documents are the same.
    let input = many_citations();
    let file = temp("many_citations.ged", &input);
    let squeeze = |s: &[u8]| {
        String::from_utf8(s.to_vec())
            .unwrap()
            .lines()
            .map(str::trim_start)
            .collect::<String>()
    };
    for format in ["json", "xml"] {
        let pretty = run(&["gedcomx", "--format", format, "--pretty", s(&file)], None);
        assert_eq!(pretty.status.code(), Some(0));
        for args in [
            vec!["--jobs", "1"],
            vec!["--jobs", "2", "--chunk-bytes", "3000"],
        ] {
            let mut a = vec!["gedcomx", "--format", format];
            a.extend(&args);
            let out = file.with_extension(format!("{format}.out"));
            for compact in [
                run(&[&a[..], &[s(&file)]].concat(), None).stdout,
                run(&[&a[..], &["-"]].concat(), Some(&input)).stdout,
                {
                    run(&[&a[..], &[s(&file), "-o", s(&out)]].concat(), None);
                    std::fs::read(&out).unwrap()
                },
            ] {
                assert!(!compact.contains(&0xFF), "{format} {args:?}: a marker");
                match format {
                    "json" => assert_eq!(json(&compact), json(&pretty.stdout), "{args:?}"),
                    _ => assert!(squeeze(&compact) == squeeze(&pretty.stdout), "{args:?}"),
                }
            }
        }
    }
    let doc = json(&run(&["gedcomx", s(&file)], None).stdout);
    let descriptions = doc["sourceDescriptions"].as_array().unwrap();
    let of = |id: &str| {
        descriptions
            .iter()
            .find(|d| d["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    // S256 (number 255) cited by F1 (spooled) and N1 (straight): the
    // source's elements, then the page.
    for (id, page) in [("F1.s1", "f. 1"), ("N1.s1", "p. 9")] {
        let citation = &of(id)["citations"][0];
        let value = citation["value"].as_str().unwrap();
        assert_eq!(
            value,
            format!("Author 256, Title 256, Town, 1256, 256/9, {page}")
        );
        let elements = citation["elements"].as_array().unwrap();
        assert_eq!(elements.len(), 6, "{id}");
        assert_eq!(elements[4]["value"], "Archive 4", "{id}");
        assert_eq!(elements[5]["value"], page, "{id}");
    }
    // S512 (number 511, a title that needs escapes) by N2, S22 by I3.
    let escaped = "Here & <there> \"quoted\" back\\slash, ça";
    let n2 = &of("N2.s1")["citations"][0];
    assert_eq!(n2["value"], format!("{escaped}, p. 511"));
    assert_eq!(n2["elements"].as_array().unwrap().len(), 2);
    let i3 = &of("I3.s1")["citations"][0];
    assert_eq!(i3["value"], format!("{escaped}, p. 3, \"22\""));
    // S20, a short title alone, cited with a note by I517: the title
    // stands in for the value.
    let short = &of("I517.s2")["citations"][0];
    assert_eq!(short["value"], "Short only");
    assert_eq!(short["elements"].as_array().unwrap().len(), 1);
}

#[test]
fn the_output_is_the_same_at_every_jobs_and_chunk_size_from_a_file_and_stdin() {
    let mut input = Vec::new();
    generate::generate(3_000, 20, &mut input).unwrap();
    let file = temp("generated.ged", &input);
    for format in ["json", "xml"] {
        let base = run(
            &["gedcomx", "--format", format, "--jobs", "1", s(&file)],
            None,
        );
        assert_eq!(
            base.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&base.stderr)
        );
        assert!(base.stdout.len() > input.len() / 2);
        for args in [
            vec!["--jobs", "2"],
            vec!["--jobs", "3", "--chunk-bytes", "5000"],
            vec!["--jobs", "1", "--chunk-bytes", "1"],
        ] {
            let mut a = vec!["gedcomx", "--format", format];
            a.extend(&args);
            let from_file = run(&[&a[..], &[s(&file)]].concat(), None);
            assert!(
                from_file.stdout == base.stdout,
                "{format} {args:?} from the file"
            );
            assert_eq!(from_file.stderr, base.stderr, "{format} {args:?}");
            let from_stdin = run(&[&a[..], &["-"]].concat(), Some(&input));
            assert!(
                from_stdin.stdout == base.stdout,
                "{format} {args:?} from stdin"
            );
            // The spooled sections are appended to the file by the kernel's
            // copy, not through the output's buffer: the same bytes.
            let out = file.with_extension(format!("{format}.out"));
            let to_file = run(&[&a[..], &[s(&file), "-o", s(&out)]].concat(), None);
            assert_eq!(to_file.status.code(), Some(0), "{format} {args:?} -o");
            assert!(
                std::fs::read(&out).unwrap() == base.stdout,
                "{format} {args:?} to a file"
            );
        }
    }
    let doc = json(&run(&["gedcomx", s(&file)], None).stdout);
    assert_eq!(doc["persons"].as_array().unwrap().len(), 3_000);
}

#[test]
fn out_is_written_whole_or_not_at_all() {
    let out = temp("keep.json", b"precious");
    let not_gedcom = temp("not.ged", b"0 INDI\n0 TRLR\n");
    let mut broken = FAMILY.as_bytes().to_vec();
    broken.truncate(broken.len() - b"0 TRLR\n".len());
    broken.extend_from_slice(b"nonsense line\n0 TRLR\n");
    let bad = temp("bad.ged", &broken);
    for (args, code) in [
        (vec!["gedcomx", s(&not_gedcom), "-o", s(&out)], 2),
        (vec!["gedcomx", "/nonexistent/x.ged", "-o", s(&out)], 2),
        (vec!["gedcomx", "--strict", s(&bad), "-o", s(&out)], 1),
    ] {
        let o = run(&args, None);
        assert_eq!(
            o.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"precious", "{args:?}");
    }
    // Without --strict the bad line is a diagnostic, and the rest converts.
    let o = run(&["gedcomx", s(&bad), "-o", s(&out)], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("bad.ged:34: error:"), "{err}");
    assert_eq!(
        ids(&json(&std::fs::read(&out).unwrap()), "persons"),
        ["I1", "I2", "I3"]
    );
}

/// Every file of the repository's corpus, and of the shared corpus when it
/// is there, converts to JSON that parses and to XML that closes the
/// document with as many persons; never a panic.
#[test]
fn every_corpus_file_converts() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"),
    ] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            files.extend(
                entries
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ged"))),
            );
        }
    }
    assert!(files.len() > 20);
    for f in &files {
        let o = run(&["gedcomx", "--quiet", s(f)], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{f:?}: {err}");
        if o.status.code() != Some(0) {
            // Not GEDCOM, or an encoding we refuse: said, and status 2.
            assert_eq!(o.status.code(), Some(2), "{f:?}: {err}");
            assert!(err.contains("error"), "{f:?}: {err}");
            continue;
        }
        let doc = json(&o.stdout);
        let persons = doc["persons"].as_array().map_or(0, Vec::len);
        let x = run(&["gedcomx", "--quiet", "--format", "xml", s(f)], None);
        let xml = String::from_utf8_lossy(&x.stdout);
        assert!(xml.ends_with("</gedcomx>\n"), "{f:?}");
        assert_eq!(xml.matches("<person ").count(), persons, "{f:?}");
    }
}

#[test]
fn gedx_is_a_zip_of_the_manifest_the_json_document_and_the_media_beside_the_input() {
    use gedcom_elf::gedcomx::gedx::read_gedx;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_gedcomx_gedx");
    std::fs::create_dir_all(dir.join("photos")).unwrap();
    std::fs::write(dir.join("photos/me 1.jpg"), b"\xff\xd8 not really a jpeg").unwrap();
    let input = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann /Lee/\n\
                 1 OBJE\n2 FILE photos/me 1.jpg\n3 FORM jpg\n1 OBJE\n2 FILE ../outside.png\n\
                 1 OBJE\n2 FILE gone.png\n0 @O1@ OBJE\n1 FILE https://example.org/a.png\n0 TRLR\n";
    let ged = dir.join("tree.ged");
    std::fs::write(&ged, input).unwrap();
    let out = dir.join("tree.gedx");
    let _ = std::fs::remove_file(&out);
    let o = run(
        &["gedcomx", "--format", "gedx", s(&ged), "-o", s(&out)],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // Every media value not included is named, with the reason.
    for (about, why) in [
        ("../outside.png", "outside the input's directory"),
        ("gone.png", "no such file"),
        ("https://example.org/a.png", "a URL"),
    ] {
        assert!(
            err.lines().any(|l| l.contains(about) && l.contains(why)),
            "{about}: {err}"
        );
    }
    let gedx = read_gedx(std::fs::File::open(&out).unwrap()).unwrap();
    assert_eq!(
        gedx.manifest.main_field("X-DC-conformsTo"),
        Some("http://gedcomx.org/file/v1")
    );
    assert_eq!(gedx.name, "tree.json");
    // tree.json is the document `--format json` writes.
    let json = run(&["gedcomx", s(&ged)], None);
    assert_eq!(gedx.bytes, json.stdout);
    let doc = self::json(&gedx.bytes);
    assert_eq!(doc["sourceDescriptions"][0]["about"], "photos/me%201.jpg");
    let names: Vec<&str> = gedx.entries.iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"photos/me 1.jpg"), "{names:?}");
    assert_eq!(
        gedx.manifest.content_type("photos/me 1.jpg"),
        Some("image/jpeg")
    );
    // From standard input there is no directory: no media, and a note.
    let o = run(
        &["gedcomx", "--format", "gedx", "-"],
        Some(input.as_bytes()),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("4 media files named; none included"), "{err}");
    let gedx = read_gedx(std::io::Cursor::new(o.stdout)).unwrap();
    assert_eq!(gedx.bytes, json.stdout);
    assert!(gedx.entries.is_empty(), "{:?}", gedx.entries);
}

/// Standard input redirected from a file (`< FILE`) is read twice, from
/// where it stands, with no copy: the same document, diagnostics and line
/// numbers as from a pipe, at every `--jobs`.
#[test]
fn stdin_redirected_from_a_file_is_read_from_where_it_stands() {
    use std::io::{Seek, SeekFrom};
    let before = "0 HEAD\n1 CHAR UTF-8\n0 @X1@ INDI\n1 NAME Not /Here/\n0 TRLR\n";
    let both = [before.as_bytes(), FAMILY.as_bytes()].concat();
    let file = temp("redirected.ged", &both);
    for jobs in ["1", "2"] {
        let piped = run(&["gedcomx", "-j", jobs, "-"], Some(FAMILY.as_bytes()));
        assert_eq!(piped.status.code(), Some(0));
        let mut stdin = std::fs::File::open(&file).unwrap();
        stdin.seek(SeekFrom::Start(before.len() as u64)).unwrap();
        let redirected = cli_support::run_from_file(&["gedcomx", "-j", jobs, "-"], stdin);
        let err = String::from_utf8_lossy(&redirected.stderr);
        assert_eq!(redirected.status.code(), Some(0), "{err}");
        assert_eq!(redirected.stdout, piped.stdout, "-j {jobs}");
        assert_eq!(redirected.stderr, piped.stderr, "-j {jobs}");
        assert!(!String::from_utf8_lossy(&redirected.stdout).contains("X1"));
    }
    // From its start, a larger input: the document of the named file.
    let mut input = Vec::new();
    generate::generate(2_000, 21, &mut input).unwrap();
    let generated = temp("redirected-generated.ged", &input);
    let named = run(&["gedcomx", "-j", "2", s(&generated)], None);
    let stdin = std::fs::File::open(&generated).unwrap();
    let redirected = cli_support::run_from_file(&["gedcomx", "-j", "2", "-"], stdin);
    assert_eq!(redirected.status.code(), Some(0));
    assert!(redirected.stdout == named.stdout);
}

#[test]
fn a_gedzip_converts_as_its_gedcom_ged_from_a_file_and_from_stdin() {
    let gdz = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus7/gedcom70/maximal70.gdz"
    );
    let archive = std::fs::read(gdz).unwrap_or_else(|e| panic!("{gdz}: {e}"));
    let gedcom = gedcom_elf::gedzip::read_gedzip(std::io::Cursor::new(&archive))
        .unwrap()
        .gedcom;
    let plain = run(&["gedcomx", "-"], Some(&gedcom));
    assert_eq!(plain.status.code(), Some(0));
    assert!(json(&plain.stdout)["persons"]
        .as_array()
        .is_some_and(|p| !p.is_empty()));
    let from_file = run(&["gedcomx", gdz], None);
    assert_eq!(from_file.status.code(), Some(0));
    assert_eq!(from_file.stdout, plain.stdout);
    let from_stdin = run(&["gedcomx", "-"], Some(&archive));
    assert_eq!(from_stdin.status.code(), Some(0));
    assert_eq!(from_stdin.stdout, plain.stdout);
    // Redirected from the archive (`< FILE`): unpacked, not read twice.
    let redirected = std::fs::File::open(gdz).unwrap();
    let redirected = cli_support::run_from_file(&["gedcomx", "-"], redirected);
    assert_eq!(redirected.status.code(), Some(0));
    assert_eq!(redirected.stdout, plain.stdout);
}
