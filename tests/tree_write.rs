//! Trees written back through the writer read as the same events (apart
//! from the HEAD's CHAR and VERS lines, which name the output encoding; the
//! CHAR's other substructures are compared).

mod common;
#[path = "write_common/decoded.rs"]
mod decoded;
mod write_common;

use decoded::write_decoded;

use gedcom_elf::bridge::{write_tree, write_tree_parallel_chunked};
use gedcom_elf::{Input, Tree, Writer};

/// Events as comparable strings (see `write_common::events`), when the input reads
/// without error diagnostics.
fn events(bytes: &[u8]) -> Option<Vec<String>> {
    let (events, errors) = write_common::events(bytes, false).ok()?;
    (errors == 0).then_some(events)
}

#[test]
fn corpus_trees_written_back_read_the_same() {
    let mut checked = 0;
    for (name, bytes) in all_files() {
        let Some(want) = events(&bytes) else { continue };
        let input = Input::new(&bytes).unwrap();
        let source = input.encoding_info().encoding;
        let source = if source.is_utf16() {
            gedcom_elf::Encoding::Utf8
        } else {
            source
        };
        let tree = Tree::from_input(&input).unwrap();
        // Tree texts hold LF as their only line break: a CR in one is a character;
        // written in the input's GEDCOM version (its `@` rule).
        let config = gedcom_elf::WriterConfig::new()
            .cr_is_line_break(false)
            .version(input.reader().version());
        let mut w = Writer::with_config(Vec::new(), config);
        write_tree(&mut w, &tree, source).unwrap_or_else(|e| panic!("{name}: {e}"));
        // What the CHAR rule leaves out (a second CHAR ...) is reported with its line.
        assert!(
            w.dropped().iter().all(|d| d.line.is_some()),
            "{name}: {:?}",
            w.dropped()
        );
        // A final TRLR is written by the writer; none if the input had none.
        if tree.records().last().is_some_and(|r| r.tag() == "TRLR") {
            w.trailer().unwrap();
        }
        let out = w.finish().unwrap();
        assert_eq!(events(&out).as_ref(), Some(&want), "{name}");
        checked += 1;
    }
    assert!(checked > 30, "only {checked} files checked");
}

/// Writes `tree` with `config`, sequentially or (`pieces`: jobs and piece size) in
/// pieces; the output, or the error's kind and message after the output.
fn write_with(
    tree: &Tree<'_>,
    source: gedcom_elf::Encoding,
    config: &gedcom_elf::WriterConfig,
    pieces: Option<(usize, usize)>,
) -> (Vec<u8>, Option<String>) {
    let mut w = Writer::with_config(Vec::new(), config.clone());
    let result = match pieces {
        None => write_tree(&mut w, tree, source),
        Some((jobs, nodes)) => write_tree_parallel_chunked(&mut w, tree, source, jobs, nodes),
    };
    let error = result.err().map(|e| format!("{:?} {e}", e.kind()));
    if error.is_none() {
        w.trailer().unwrap();
    }
    (w.finish().unwrap(), error)
}

#[test]
fn parallel_tree_writing_writes_the_same_octets() {
    use gedcom_elf::{Encoding, LineEnding, WriterConfig};
    let mut files = all_files();
    // A larger file with every kind of record, and one with a structure the writer
    // refuses (a child under a too-deep line) in a late record.
    let mut big = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..400 {
        big += &format!(
            "0 @I{i}@ INDI\n1 NAME Jöhn /Doe {i}/\n1 NOTE mail a@@b.c\n2 CONT line two\n2 CONC  more \n1 FAMS @F{i}@\n1 BIRT\n2 DATE @#DJULIAN@ 1 JAN 1700\n"
        );
        if i == 300 {
            big += "1 EVEN\n3 PLAC too deep\n4 NOTE under it\n";
        }
    }
    big += "0 TRLR\n";
    files.push(("generated".into(), big.into_bytes()));
    let configs = [
        WriterConfig::new(),
        WriterConfig::new()
            .encoding(Encoding::Ansel)
            .line_ending(LineEnding::CrLf),
        WriterConfig::new().encoding(Encoding::Utf16Le),
        WriterConfig::new().bom(Some(true)).max_line_bytes(40),
    ];
    let compared = for_each_tree(&files, &configs, |name, tree, source, config| {
        let want = write_with(tree, source, config, None);
        for pieces in [(1, 1), (2, 1), (3, 7), (2, 1000)] {
            let got = write_with(tree, source, config, Some(pieces));
            assert!(got == want, "{name}: {pieces:?} {config:?}");
        }
    });
    assert!(compared > 100, "only {compared} trees compared");
}

#[test]
fn parallel_tree_writing_reports_the_first_error_after_the_output_before_it() {
    let input = b"0 HEAD\n0 @A@ INDI\n0 B\n1 C\n3 D\n4 E\n0 F\n1 G\n3 H\n4 I\n0 TRLR\n";
    let tree = Tree::from_slice(input).unwrap();
    let config = gedcom_elf::WriterConfig::new();
    let want = write_with(&tree, gedcom_elf::Encoding::Utf8, &config, None);
    assert!(want.1.is_some(), "the sequential write should fail");
    for jobs in 1..4 {
        let got = write_with(&tree, gedcom_elf::Encoding::Utf8, &config, Some((jobs, 1)));
        assert_eq!(got, want, "jobs {jobs}");
    }
}

/// Fuzz `tree` crash 826ebc93: a piece's writer starts afresh, and a record tagged
/// `ERROR` leaves the writer's previous level as it was, so a piece starting at one
/// wrongly found its level-2 substructure too deep. Pieces start at other records now.
#[test]
fn fuzz_tree_826ebc93_a_piece_never_starts_at_an_error_record() {
    let input = b"0 HEAD\n0 @I1@ INDI\n1 NAME x\n0 ERROR a\n1 ERROR b\n2 ERROR c\n0 CONT d\n1 ERROR e\n2 ERROR f\n0 @I2@ INDI\n0 TRLR\n";
    let tree = Tree::from_slice(input).unwrap();
    for config in [
        gedcom_elf::WriterConfig::new(),
        gedcom_elf::WriterConfig::new().headless(true),
    ] {
        let want = write_with(&tree, gedcom_elf::Encoding::Utf8, &config, None);
        assert_eq!(want.1, None, "the sequential write succeeds");
        for pieces in [(1, 1), (2, 1), (2, 2), (3, 1)] {
            let got = write_with(&tree, gedcom_elf::Encoding::Utf8, &config, Some(pieces));
            assert_eq!(got, want, "{pieces:?} {config:?}");
        }
    }
}

/// `write_tree` takes most structures as the input's octets; writing the decoded
/// tags, xrefs and texts through `Writer::begin` must give the same octets.
#[test]
fn octets_as_they_stand_are_written_as_their_decoded_text_would_be() {
    use gedcom_elf::{Encoding, LineEnding, WriterConfig};
    let mut files = all_files();
    files.push((
        "edges".into(),
        "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME a\u{301}\n1 NAME e\u{300}x\n1 NAME tail \n1 NOTE x\u{10348}\n1 NOTE \u{2028}\n1 _X caf\u{e9}\n1 SEX M\t\n0 @I\u{f6}@ INDI\n1 FAMC @F:1@\n1 ASSO @I\u{f6}@\n1 NOTE \u{1}x\n0 @F:1@ FAM\n0 TRLR\n"
            .into(),
    ));
    // `@` signs: pairs, pairs before `#`, lone ones, escapes kept, removed, decoded or
    // malformed, under the default schema and under one that replaces it.
    let at_signs =
        "1 EMAI a@@b.c\n1 NOTE a@b\n1 NOTE x@@@y\n1 NOTE @@#Dx@@ yz\n1 DATE @@#Dx@@ yz\n\
        1 DATE @#DJULIAN@ 1 JAN 1700\n1 DATE @#DJULIAN@1700\n1 NOTE @#DJULIAN@ 1 JAN\n\
        1 NOTE @#UE9@ x\n1 DATE ABT @#DJULIAN@ 5 @@ x\n1 NOTE @@@@\n1 NOTE end@@\n\
        1 DATE @#dX@ y\n1 DATE @#D@ x\n1 _OLD @#QX@ y\n1 _OLD @#GX@ @#DX@ y\n1 NOTE ends @\n\
        1 DATE @#DX@ @@#DY@ \u{e9}@@\n1 NOTE @@\n1 NOTE @\n";
    files.push((
        "at signs".into(),
        format!("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n{at_signs}0 TRLR\n").into(),
    ));
    files.push((
        "at signs, own schema".into(),
        format!("0 HEAD\n1 CHAR UTF-8\n1 SCHMA\n2 ESC _OLD QG\n0 @I1@ INDI\n{at_signs}0 TRLR\n")
            .into(),
    ));
    // A writer that keeps other escapes than the reader.
    let mut table = gedcom_elf::EscapeTable::empty();
    table.add(b"NOTE", gedcom_elf::EscapeSet::from_types(b"D"));
    table.add(b"_OLD", gedcom_elf::EscapeSet::from_types(b"Q"));
    let configs = [
        WriterConfig::new(),
        WriterConfig::new().line_ending(LineEnding::Cr),
        WriterConfig::new().encoding(Encoding::Ascii),
        WriterConfig::new().max_line_bytes(30),
        WriterConfig::new().escapes(table),
    ];
    let compared = for_each_tree(&files, &configs, |name, tree, source, config| {
        let (got, got_error) = write_with(tree, source, config, None);
        let mut w = Writer::with_config(Vec::new(), config.clone());
        let error = write_decoded(&mut w, tree, source)
            .err()
            .map(|e| format!("{:?} {e}", e.kind()));
        if error.is_none() {
            w.trailer().unwrap();
        }
        let want = w.finish().unwrap();
        assert_eq!(got_error, error, "{name}");
        assert!(
            got == want,
            "{name} {config:?}\n{}\n----\n{}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
    });
    assert!(compared > 100, "only {compared} outputs compared");
}

/// The project's corpus and, when present, the shared one.
fn all_files() -> Vec<(String, Vec<u8>)> {
    let mut files = common::project_corpus();
    if let Some(dir) = common::shared_corpus() {
        files.extend(common::ged_files(&dir));
    }
    files
}

/// `bytes` prepared, and the encoding its xrefs are in (UTF-16 inputs are read as
/// UTF-8), unless they cannot be read.
fn prepared(bytes: &[u8]) -> Option<(Input<'_>, gedcom_elf::Encoding)> {
    let input = Input::new(bytes).ok()?;
    let source = input.encoding_info().encoding;
    let source = if source.is_utf16() {
        gedcom_elf::Encoding::Utf8
    } else {
        source
    };
    Some((input, source))
}

/// Calls `f` with the tree of every readable file of `files`, its xrefs' encoding and
/// each of `configs`; returns the number of calls.
fn for_each_tree(
    files: &[(String, Vec<u8>)],
    configs: &[gedcom_elf::WriterConfig],
    mut f: impl FnMut(&str, &Tree<'_>, gedcom_elf::Encoding, &gedcom_elf::WriterConfig),
) -> usize {
    let mut calls = 0;
    for (name, bytes) in files {
        let Some((input, source)) = prepared(bytes) else {
            continue;
        };
        let Ok(tree) = Tree::from_input(&input) else {
            continue;
        };
        for config in configs {
            f(name, &tree, source, config);
            calls += 1;
        }
    }
    calls
}

/// Record-at-a-time trees written with `write_node` give what `write_tree` gives for
/// the whole tree (each record tree's octets are its own buffer).
#[test]
fn record_trees_write_what_the_whole_tree_writes() {
    use gedcom_elf::bridge::write_node;
    use gedcom_elf::tree::Records;
    let mut compared = 0;
    for (name, bytes) in all_files() {
        let Some((input, source)) = prepared(&bytes) else {
            continue;
        };
        let Ok(tree) = Tree::from_input(&input) else {
            continue;
        };
        let config = gedcom_elf::WriterConfig::new();
        let (want, want_error) = write_with(&tree, source, &config, None);
        if want_error.is_some() {
            continue;
        }
        let mut w = Writer::with_config(Vec::new(), config);
        let records: Vec<_> = Records::new(&bytes[..])
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let last = records.len().saturating_sub(1);
        for (i, r) in records.iter().enumerate() {
            let root = r.root();
            if i == last && root.tag() == "TRLR" && !root.has_children() {
                break;
            }
            write_node(&mut w, root, source).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        w.trailer().unwrap();
        let got = w.finish().unwrap();
        assert!(got == want, "{name}");
        compared += 1;
    }
    assert!(compared > 30, "only {compared} files compared");
}
