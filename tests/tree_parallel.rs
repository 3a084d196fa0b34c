//! The parallel tree build equals the sequential one, node for node: the
//! same records in the same order, every node's tag, xref_id, payload,
//! line, origin, type, parent and subtree, every pointer's target, the same
//! UNDEF records, and the same diagnostics in the same order with the same
//! line numbers; over every file of corpus/ and ../shared/corpus, generated
//! files, and files with errors, with chunks from one record each to one
//! chunk for all, on one to three threads. Record trees read on several
//! threads (`Records::jobs`) equal those read on one, and so do the trees
//! of a stream's batches (`Tree::build_piece`).

mod common;

#[path = "../benches/support/generate.rs"]
mod generate;

use gedcom_elf::par::Chunks;
use gedcom_elf::stream::StreamReader;
use gedcom_elf::tree::{NodeRef, Records, Schema, Tree};
use gedcom_elf::{Input, Reader, ReaderConfig};

/// `input` in chunks of `bytes` on `jobs` threads.
fn chunks<'a>(input: &'a Input<'_>, jobs: usize, bytes: usize) -> Chunks<'a> {
    Chunks::new(input, ReaderConfig::new())
        .unwrap()
        .jobs(jobs)
        .batch_bytes(bytes)
}

/// Everything observable about one node, with ids for its links.
fn describe(n: NodeRef<'_>) -> String {
    let payload = n.payload().map(|p| {
        (
            p.first_line().to_vec(),
            p.additional_lines().to_vec(),
            p.text().into_owned(),
        )
    });
    format!(
        "{:?} {} {:?} {:?} {:?} line={} {:?} synthetic={} type={:?} parent={:?} len={} children={} target={:?} record={:?} next={:?}",
        n.id(),
        n.tag(),
        n.xref().map(|x| x.as_bytes().to_vec()),
        n.pointer().map(|x| x.as_bytes().to_vec()),
        payload,
        n.line(),
        n.origin(),
        n.is_synthetic(),
        n.structure_type().map(|t| t.to_string()),
        n.parent().map(|p| p.id()),
        n.subtree_len(),
        n.children().count(),
        n.target().map(|t| t.id()),
        n.record().id(),
        n.next_sibling().map(|s| s.id()),
    )
}

fn assert_same_tree(name: &str, what: &str, a: &Tree<'_>, b: &Tree<'_>) {
    assert_eq!(a.len(), b.len(), "{name} {what}: nodes");
    assert_eq!(a.record_count(), b.record_count(), "{name} {what}: records");
    for (x, y) in a.nodes().zip(b.nodes()) {
        assert_eq!(describe(x), describe(y), "{name} {what}");
    }
    assert_eq!(
        a.nodes().count(),
        b.nodes().count(),
        "{name} {what}: all nodes"
    );
    let ra: Vec<_> = a.records().map(|r| r.id()).collect();
    let rb: Vec<_> = b.records().map(|r| r.id()).collect();
    assert_eq!(ra, rb, "{name} {what}: record order");
    let ua: Vec<_> = a.undefined_records().map(describe).collect();
    let ub: Vec<_> = b.undefined_records().map(describe).collect();
    assert_eq!(ua, ub, "{name} {what}: undef records");
    assert_eq!(
        a.diagnostics(),
        b.diagnostics(),
        "{name} {what}: diagnostics"
    );
    assert_eq!(
        a.diagnostics_dropped(),
        b.diagnostics_dropped(),
        "{name} {what}: dropped"
    );
    assert_eq!(
        format!("{:?}", a.schema()),
        format!("{:?}", b.schema()),
        "{name} {what}: schema"
    );
    for n in a.nodes().filter_map(|n| n.xref()) {
        let x = String::from_utf8_lossy(n.as_bytes()).into_owned();
        assert_eq!(
            a.find(&x).map(|n| n.id()),
            b.find(&x).map(|n| n.id()),
            "{name} {what}: find {x}"
        );
        let all_a: Vec<_> = a.find_all(&x).iter().map(|n| n.id()).collect();
        let all_b: Vec<_> = b.find_all(&x).iter().map(|n| n.id()).collect();
        assert_eq!(all_a, all_b, "{name} {what}: find_all {x}");
    }
}

const CASES: [(usize, usize); 7] = [
    (1, 1),
    (1, 2),
    (7, 3),
    (64, 2),
    (4096, 2),
    (1 << 20, 2),
    (1 << 20, 1),
];

fn check_with(name: &str, bytes: &[u8], config: ReaderConfig) -> bool {
    let Ok(input) = Input::new(bytes) else {
        return false;
    };
    let sequential = Tree::build(input.reader_with_config(config.clone()));
    for (chunk, jobs) in CASES {
        let what = format!("chunks of {chunk}, {jobs} jobs");
        let parallel = Chunks::new(&input, config.clone())
            .and_then(|c| Tree::from_chunks(c.jobs(jobs).batch_bytes(chunk)));
        match (&sequential, &parallel) {
            (Ok(s), Ok(p)) => assert_same_tree(name, &what, s, p),
            (Err(s), Err(p)) => assert_eq!(s.to_string(), p.to_string(), "{name} {what}"),
            (s, p) => panic!(
                "{name} {what}: sequential {:?}, parallel {:?}",
                s.as_ref().err(),
                p.as_ref().err()
            ),
        }
    }
    // The default chunking.
    let parallel = Chunks::new(&input, config).and_then(|c| Tree::from_chunks(c.jobs(2)));
    match (&sequential, &parallel) {
        (Ok(s), Ok(p)) => assert_same_tree(name, "default chunks", s, p),
        (s, p) => assert_eq!(s.is_ok(), p.is_ok(), "{name}"),
    }
    sequential.is_ok()
}

fn check(name: &str, bytes: &[u8]) -> bool {
    check_with(name, bytes, ReaderConfig::new())
}

#[test]
fn corpus_files_build_the_same_in_parallel() {
    let mut built = 0;
    for (name, bytes) in common::project_corpus() {
        built += usize::from(check(&name, &bytes));
    }
    assert!(built > 40, "only {built} corpus files built");
}

#[test]
fn shared_corpus_builds_the_same_in_parallel() {
    let Some(dir) = common::shared_corpus() else {
        return;
    };
    let mut built = 0;
    for (name, bytes) in common::ged_files(&dir) {
        built += usize::from(check(&name, &bytes));
    }
    assert!(built > 0);
}

#[test]
fn generated_files_build_the_same_in_parallel() {
    for (individuals, seed) in [(40, 1), (400, 7)] {
        let mut bytes = Vec::new();
        generate::generate(individuals, seed, &mut bytes).unwrap();
        let input = Input::new(&bytes).unwrap();
        let tree = Tree::from_chunks(chunks(&input, 2, 512)).unwrap();
        assert!(tree.record_count() > individuals as usize);
        assert!(check(&format!("generated {individuals}/{seed}"), &bytes));
    }
}

/// Files with problems across chunk boundaries: duplicate xref_ids in
/// different chunks, dangling pointers (repeated, in several chunks),
/// ERROR structures, level-0 CONT lines, a missing TRLR, lines after the
/// TRLR, a too-deep line, unparsable lines.
#[test]
fn errors_across_chunks_are_reported_the_same() {
    let cases: &[&[u8]] = &[
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 FAMS @F9@\n0 @I2@ INDI\n1 FAMC @F9@\n0 @I1@ INDI\n1 NAME dup\n0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n1 CHIL @I3@\n0 @I2@ NOTE again\n0 @I2@ NOTE thrice\n0 TRLR\n",
        b"0 HEAD\n0 @I1@ INDI\n1 NAME a\n0 @I2@ INDI\n1 FAMC @F1@\n",
        b"0 HEAD\n0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n1 NAME x\n0 @I3@ INDI\n0 TRLR\n0 @I4@ INDI\n",
        b"0 HEAD\n0 TRLR\n\n\n0 @I2@ INDI\n0 TRLR\n",
        b"0 HEAD\n0 TRLR\n\n  \n\t0 TRLR\n\n  \n\t\n\t 0 @N1@ NOTE x\n",
        b"0 HEAD\n0 @I1@ INDI\n2 X\n0 CONT y\n3 Z\n0 ERROR e\n1 A\n0 TRLR\n",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME a\n9 DEEP x\nnot a line\n1 NOTE @\n0 @N1@ NOTE long\n1 CONT more\n1 CONC text\n0 @N1@ NOTE\n0 @X@ @Y@ Z\n0 TRLR\n",
        b"0 HEAD\n1 CHAR UTF-8\n0 @AVERYLONGXREFIDENTIFIER@ INDI\n1 ASSO @AVERYLONGXREFIDENTIFIER@\n1 ASSO @ANOTHERVERYLONGXREFID@\n0 @AVERYLONGXREFIDENTIFIER@ INDI\n0 @P@ INDI\n1 ASSO @ANOTHERVERYLONGXREFID@\n0 TRLR\n",
        // A second HEAD, which is no header, at the start of a chunk.
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 HEAD\n1 CHAR UTF-8\n1 SOUR x\n0 TRLR\n",
        b"0 HEAD\n1 CHAR UTF-8\n1 SCHMA\n2 TAG _X http://example.com/x\n0 @I1@ INDI\n1 _X a\n2 _Y @I1@\n1 NOTE a\\nb\n0 TRLR\n",
    ];
    // Each case also with CRLF and CR line breaks: chunks are numbered from
    // their own first line and renumbered as they are joined, so every
    // line-break form must count the same.
    let variants: Vec<Vec<u8>> = cases
        .iter()
        .flat_map(|c| {
            let crlf = String::from_utf8_lossy(c).replace('\n', "\r\n");
            let cr = String::from_utf8_lossy(c).replace('\n', "\r");
            [c.to_vec(), crlf.into_bytes(), cr.into_bytes()]
        })
        .collect();
    for bytes in &variants {
        let bytes = &bytes[..];
        let name = String::from_utf8_lossy(bytes);
        assert!(check(&name, bytes), "{name}");
        // A reader that keeps one diagnostic at a time, and a strict one.
        check_with(
            &name,
            bytes,
            ReaderConfig::new().max_retained_diagnostics(1),
        );
        check_with(&name, bytes, ReaderConfig::new().strict(true));
    }
}

/// Many duplicate and dangling pointers in many chunks: more diagnostics
/// than a tree keeps.
#[test]
fn many_diagnostics_are_capped_the_same() {
    let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..6000 {
        text += &format!(
            "0 @I{}@ INDI\n1 FAMC @F{i}@\n1 ASSO @I{}@\n",
            i % 3000,
            i + 10_000
        );
    }
    text += "0 TRLR\n";
    assert!(check("many diagnostics", text.as_bytes()));
    let input = Input::new(text.as_bytes()).unwrap();
    let tree = Tree::from_chunks(chunks(&input, 2, 300)).unwrap();
    assert_eq!(tree.diagnostics().len(), 10_000);
    assert!(tree.diagnostics_dropped() > 0);
}

/// UTF-16 and ANSEL inputs (transcoded or decoded by the reader).
#[test]
fn other_encodings_build_the_same() {
    let text = "0 HEAD\n1 CHAR UNICODE\n0 @I1@ INDI\n1 NAME Zoë /Brontë/\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 TRLR\n";
    let mut le = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        le.extend_from_slice(&u.to_le_bytes());
    }
    assert!(check("utf-16le", &le));
    let ansel = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Zo\xE8e /Bront\xE8e/\n1 NOTE caf\xE2e\n0 TRLR\n";
    assert!(check("ansel", ansel));
}

/// Fuzz `tree` crash c5ca13ae: no `CHAR` line, and the first non-ASCII
/// bytes come after the first record. Whether that deserves the "reading it
/// as ansel" warning is judged on the input's first 64 KiB; the parallel
/// build's first chunk used to judge it on the first record alone, and lost
/// the warning.
#[test]
fn fuzz_tree_missing_char_warning_judged_on_the_whole_head_window() {
    let bytes: &[u8] = b"0\thead  \n1 CHARU TF-8\n0 HEAD\n1 \xe4\xe4\xe4\x32\xe4\xe4AD\
\xe4\xe4\xe4\xe4\xe4\xe4\xe4\xe4\xe4\xe4\xe4\xe4ERROR x\n02 NOTE y\n0  TTRLR\nRLR\n";
    for config in [ReaderConfig::new(), ReaderConfig::new().headless(true)] {
        assert!(check_with("fuzz-c5ca13ae", bytes, config));
    }
    let input = Input::new(bytes).unwrap();
    let tree = Tree::from_chunks(chunks(&input, 2, 10)).unwrap();
    assert_eq!(
        tree.diagnostics()[0].kind,
        gedcom_elf::DiagnosticKind::Encoding
    );
}

/// Everything `Records` yields: each record tree's nodes (by [`describe`],
/// without the links a record tree does not resolve) and bytes, or the
/// error; then the diagnostics.
/// A record's nodes as a record tree or a piece's tree gives them (neither
/// resolves pointers).
fn record_nodes<'t>(nodes: impl Iterator<Item = NodeRef<'t>>, out: &mut Vec<String>) {
    for n in nodes {
        out.push(format!(
            "{} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?}",
            n.line(),
            n.tag(),
            n.xref(),
            n.pointer(),
            n.level(),
            n.text(),
            n.origin(),
            n.structure_type().map(|t| t.to_string()),
            n.target().map(|t| t.id()),
        ));
    }
}

fn record_trees(input: &[u8], config: ReaderConfig, batch: usize, jobs: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut records = Records::with_config(input, config)
        .batch_bytes(batch)
        .jobs(jobs);
    for r in records.by_ref() {
        match r {
            Ok(t) => {
                out.push(format!("record {:?}", String::from_utf8_lossy(t.bytes())));
                record_nodes(t.nodes(), &mut out);
            }
            Err(e) => out.push(format!("error {e}")),
        }
    }
    out.extend(records.drain_diagnostics().map(|d| format!("{d:?}")));
    out.push(format!("dropped {}", records.diagnostics_dropped()));
    out
}

/// A [`record_trees`] line without the record's bytes, which a piece's
/// tree does not keep.
fn without_bytes(line: String) -> String {
    match line.starts_with("record ") {
        true => "record".to_string(),
        false => line,
    }
}

/// The records of `input` as the trees of a stream's batches
/// ([`Tree::build_piece`]), with the diagnostics and the error, in
/// [`record_trees`]' form (without each record's bytes) and the number of
/// pieces read.
fn piece_trees(input: &[u8], config: ReaderConfig, batch: usize, jobs: usize) -> Vec<String> {
    let mut stream = StreamReader::with_config(input, config)
        .batch_bytes(batch)
        .jobs(jobs);
    let describe = |tree: &Tree<'_>| {
        let mut out = Vec::new();
        for r in tree.records() {
            out.push("record".to_string());
            record_nodes(std::iter::once(r).chain(r.descendants()), &mut out);
        }
        out
    };
    let (mut out, mut diagnostics, mut error) = (Vec::new(), Vec::new(), None);
    let mut buf = Vec::new();
    let mut batch = stream.read_batch_into(&mut buf).unwrap().unwrap();
    let reader = batch.reader_mut().unwrap();
    // An error in the HEAD, as record trees give it: before anything.
    let schema = match Schema::from_reader(reader.clone()) {
        Ok(schema) => schema,
        Err(e) => return vec![format!("error {e}")],
    };
    let (tree, failed) = Tree::build_piece(reader, &schema, true);
    out.extend(describe(&tree));
    diagnostics.extend(batch.drain_diagnostics());
    drop(batch);
    match failed {
        Some(e) => error = Some(e.to_string()),
        None => {
            let work = |r: &mut Reader<'_>| {
                let (tree, failed) = Tree::build_piece(r, &schema, false);
                Ok((describe(&tree), failed))
            };
            let read = stream.for_each(work, |(nodes, failed), ds| {
                out.extend(nodes);
                diagnostics.extend(ds);
                failed.map_or(Ok(()), Err)
            });
            match read {
                Ok(summary) => diagnostics.extend(summary.diagnostics),
                Err(e) => error = Some(e.to_string()),
            }
        }
    }
    out.extend(error.map(|e| format!("error {e}")));
    out.extend(diagnostics.iter().map(|d| format!("{d:?}")));
    out
}

/// Both corpora, a generated file, and a file with a strict-mode error in
/// a later batch (the records before it in its batch are still yielded, as
/// they are when each record is a batch), lines after TRLR in a later
/// batch, problems spread over many records and a pointer in each record.
fn inputs_with_late_errors() -> Vec<(String, Vec<u8>)> {
    let mut inputs = common::project_corpus();
    if let Some(dir) = common::shared_corpus() {
        inputs.extend(common::ged_files(&dir));
    }
    let mut generated = Vec::new();
    generate::generate_bytes(300_000, 5, &mut generated).unwrap();
    inputs.push(("generated".into(), generated));
    let mut late = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..300 {
        late.extend_from_slice(format!("0 @I{i}@ INDI\n1 NAME N{i}\n1 FAMC @F1@\n").as_bytes());
        if i == 150 {
            late.extend_from_slice(b"2 BAD LEVEL\n!!\n0 TRLR\n");
        }
    }
    inputs.push(("late".into(), late));
    inputs
}

/// Asserts that `read` (at a batch size and a number of jobs) gives `want`
/// at batches of 1, 700 and 64 KiB on one to three threads.
fn same_at_every_batch_and_jobs(
    name: &str,
    config: &ReaderConfig,
    want: &[String],
    read: impl Fn(usize, usize) -> Vec<String>,
) {
    for batch in [1, 700, 64 << 10] {
        for jobs in [1, 2, 3] {
            let got = read(batch, jobs);
            assert!(
                got == want,
                "{name}: batch {batch} jobs {jobs} strict {}: first difference at {:?}",
                config.is_strict(),
                got.iter().zip(want).position(|(a, b)| a != b)
            );
        }
    }
}

#[test]
fn the_trees_of_a_stream_s_batches_hold_the_record_trees() {
    let strict = ReaderConfig::new().strict(true);
    let mut errors = 0;
    for (name, bytes) in &inputs_with_late_errors() {
        for config in [ReaderConfig::new(), strict.clone()] {
            // The record trees, without their bytes and the count of
            // diagnostics not kept (none here).
            let want: Vec<String> = record_trees(bytes, config.clone(), 64 << 10, 1)
                .into_iter()
                .filter(|l| !l.starts_with("dropped"))
                .map(without_bytes)
                .collect();
            errors += usize::from(want.iter().any(|l| l.starts_with("error")));
            let read = |batch, jobs| piece_trees(bytes, config.clone(), batch, jobs);
            same_at_every_batch_and_jobs(name, &config, &want, read);
        }
    }
    assert!(errors >= 1, "a case with an error");
}

/// The records of `input` as the trees of its chunks ([`Chunks`], on
/// `jobs` threads, of about `batch` bytes; [`Tree::build_piece`]), in
/// [`record_trees`]' form for the nodes; each tree's input is asserted to
/// end at its chunk's end (a chunk's reader reads the end of an input that
/// goes on after it: the tree is of the chunk, not of all that).
fn chunk_trees(input: &[u8], batch: usize, jobs: usize) -> Vec<String> {
    let Ok(prepared) = Input::new(input) else {
        return Vec::new();
    };
    let Ok(schema) = Schema::from_reader(prepared.reader()) else {
        return Vec::new();
    };
    let Ok(chunks) = Chunks::new(&prepared, ReaderConfig::new()) else {
        return Vec::new();
    };
    let chunks = chunks.jobs(jobs).batch_bytes(batch);
    let ends: Vec<usize> = (0..chunks.len()).map(|i| chunks.range(i).end).collect();
    let work = |reader: &mut Reader<'_>| {
        // The first chunk is the one whose first line is before the first
        // chunk's end.
        let first = match reader.clone().next() {
            Some(Ok(gedcom_elf::Event::Begin(b))) => b.span.start < ends[0],
            _ => false,
        };
        let (tree, failed) = Tree::build_piece(reader, &schema, first);
        let mut out = vec![format!("ends {}", tree.input().len())];
        for r in tree.records() {
            out.push("record".to_string());
            record_nodes(std::iter::once(r).chain(r.descendants()), &mut out);
        }
        out.extend(failed.map(|e| format!("error {e}")));
        Ok(out)
    };
    let mut out = Vec::new();
    let mut i = 0;
    let read = chunks.for_each(work, |nodes, _| {
        for line in nodes {
            match line.strip_prefix("ends ") {
                Some(end) => assert_eq!(end, ends[i].to_string(), "chunk {i}'s tree's input"),
                None => out.push(line),
            }
        }
        i += 1;
        Ok(())
    });
    if let Err(e) = read {
        out.push(format!("error {e}"));
    }
    out
}

#[test]
fn the_trees_of_chunks_hold_the_record_trees_and_only_their_chunk() {
    for (name, bytes) in &inputs_with_late_errors() {
        // The nodes of the record trees (no diagnostics: a chunk's reader
        // leaves them to the merge, which this does not look at).
        let want: Vec<String> = record_trees(bytes, ReaderConfig::new(), 64 << 10, 1)
            .into_iter()
            .filter(|l| l.starts_with("record ") || l.starts_with(|c: char| c.is_ascii_digit()))
            .map(without_bytes)
            .collect();
        if want.is_empty() {
            continue;
        }
        let read = |batch, jobs| chunk_trees(bytes, batch, jobs);
        same_at_every_batch_and_jobs(name, &ReaderConfig::new(), &want, read);
    }
}

#[test]
fn record_trees_read_on_several_threads_equal_those_read_on_one() {
    let strict = ReaderConfig::new().strict(true);
    for (name, bytes) in &inputs_with_late_errors() {
        for config in [ReaderConfig::new(), strict.clone()] {
            let want = record_trees(bytes, config.clone(), 64 << 10, 1);
            let read = |batch, jobs| record_trees(bytes, config.clone(), batch, jobs);
            same_at_every_batch_and_jobs(name, &config, &want, read);
        }
    }
}

#[test]
fn record_trees_on_several_threads_can_be_dropped_half_read() {
    let mut bytes = Vec::new();
    generate::generate_bytes(2_000_000, 9, &mut bytes).unwrap();
    let mut records = Records::new(&bytes[..]).batch_bytes(4096).jobs(2);
    let first: Vec<_> = records.by_ref().take(50).map(Result::unwrap).collect();
    assert_eq!(first.len(), 50);
    // Dropping the iterator stops and joins its workers; the trees taken
    // stay valid.
    drop(records);
    assert_eq!(first[0].root().tag(), "HEAD");
    assert!(first[49].root().children().next().is_some());
}

/// A source that fails once `left` bytes were read.
struct Failing<'a> {
    data: &'a [u8],
    left: usize,
}

impl std::io::Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::other("the disk is gone"));
        }
        let k = buf.len().min(self.data.len()).min(self.left).min(4096);
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        self.left -= k;
        Ok(k)
    }
}

#[test]
fn an_io_error_comes_after_the_records_read_before_it_on_any_number_of_threads() {
    let mut bytes = Vec::new();
    generate::generate_bytes(3_000_000, 4, &mut bytes).unwrap();
    let run = |jobs: usize| {
        let source = Failing {
            data: &bytes,
            left: 2_500_000,
        };
        let mut records = Records::new(source).batch_bytes(8192).jobs(jobs);
        let mut roots = Vec::new();
        let mut error = None;
        for r in records.by_ref() {
            match r {
                Ok(t) => roots.push(t.root().line()),
                Err(e) => error = Some(e.to_string()),
            }
        }
        assert!(records.next().is_none(), "nothing after the error");
        (roots, error)
    };
    let one = run(1);
    assert!(one.0.len() > 1000, "records before the error");
    assert!(
        one.1
            .as_deref()
            .is_some_and(|e| e.contains("the disk is gone")),
        "{:?}",
        one.1
    );
    for jobs in [2, 3] {
        assert_eq!(run(jobs), one, "jobs {jobs}");
    }
}
