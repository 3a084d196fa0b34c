//! Round trips through the writer:
//!
//! * every file of `corpus/` and `../shared/corpus/` that reads without an error
//!   diagnostic: `events(fmt(x)) == events(x)` apart from the HEAD's CHAR and VERS lines
//!   (whose substructures are compared), and likewise for `convert` to each output
//!   encoding (texts compared in NFC for ANSEL, whose reader composes);
//! * a property test: random structure trees (with random `CHAR` structures under the
//!   `HEAD`), written with random configurations, read back equal (`read(write(x)) ==
//!   x`, the `CHAR`'s substructures under the writer's `CHAR`), and the writer reports
//!   what its `CHAR` rule leaves out.

mod common;
mod write_common;

use common::Rng;
use gedcom_elf::write::{
    rewrite, DropReason, LineEnding, Node, WriteErrorKind, Writer, WriterConfig,
};
use gedcom_elf::Encoding;
use unicode_normalization::UnicodeNormalization;
use write_common::{corpus_files, events};

/// Output encodings and line endings tried on every corpus file.
const TARGETS: &[(Encoding, Option<bool>, LineEnding)] = &[
    (Encoding::Utf8, None, LineEnding::Lf),
    (Encoding::Utf8, Some(true), LineEnding::CrLf),
    (Encoding::Ascii, None, LineEnding::Cr),
    (Encoding::Ansel, None, LineEnding::CrLf),
    (Encoding::Utf16Le, None, LineEnding::CrLf),
    (Encoding::Utf16Be, None, LineEnding::Lf),
    (Encoding::Windows1252, None, LineEnding::CrLf),
    (Encoding::Windows1250, None, LineEnding::Lf),
    (Encoding::Windows1251, None, LineEnding::Lf),
    (Encoding::Ibm850, None, LineEnding::Lf),
    (Encoding::MacRoman, None, LineEnding::Cr),
];

/// `true` when no line of `out` (in `enc`) exceeds `max` octets, terminator included.
fn lines_within(out: &[u8], enc: Encoding, bom: usize, max: usize) -> Result<(), String> {
    let body = &out[bom..];
    let unit = if enc.is_utf16() { 2 } else { 1 };
    let is_break = |i: usize| -> Option<bool> {
        // Some(true) for CR, Some(false) for LF.
        let c = match enc {
            Encoding::Utf16Le => (body[i + 1] == 0).then_some(body[i]),
            Encoding::Utf16Be => (body[i] == 0).then_some(body[i + 1]),
            _ => Some(body[i]),
        }?;
        match c {
            b'\r' => Some(true),
            b'\n' => Some(false),
            _ => None,
        }
    };
    let mut start = 0;
    let mut i = 0;
    while i + unit <= body.len() {
        if let Some(cr) = is_break(i) {
            let mut end = i + unit;
            if cr && end + unit <= body.len() && is_break(end) == Some(false) {
                end += unit;
            }
            if end - start > max {
                let line = String::from_utf8_lossy(&body[start..end]).into_owned();
                return Err(format!("line of {} octets: {line:?}", end - start));
            }
            start = end;
            i = end;
        } else {
            i += unit;
        }
    }
    Ok(())
}

#[test]
fn corpus_fmt_and_convert_keep_the_events() {
    let mut checked = 0;
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        let Ok((original, errors)) = events(&bytes, false) else {
            continue;
        };
        if errors > 0 {
            continue;
        }
        let original_nfc = events(&bytes, true).unwrap().0;
        for &(enc, bom, le) in TARGETS {
            let config = WriterConfig::new().encoding(enc).bom(bom).line_ending(le);
            let writes_bom = config.writes_bom();
            let mut out = Vec::new();
            let stats = match rewrite(&bytes, None, config, &mut out) {
                Ok(stats) => stats,
                Err(e) if e.kind() == WriteErrorKind::UnsupportedEncoding => {
                    // A GEDCOM 7 input is written as 7.0, which is UTF-8 only.
                    let seven = gedcom_elf::Input::new(&bytes).unwrap().reader().version();
                    assert!(
                        seven == gedcom_elf::Version::Gedcom7 && enc != Encoding::Utf8,
                        "{name} -> {enc}: {e}"
                    );
                    continue;
                }
                Err(e) => {
                    // Xrefs hold no escapes: one the target lacks a character of is
                    // refused.
                    let xref = matches!(
                        e.kind(),
                        WriteErrorKind::InvalidXref | WriteErrorKind::InvalidPointer
                    );
                    assert!(
                        xref && !enc.is_utf16() && enc != Encoding::Utf8,
                        "{name} -> {enc}: {e}"
                    );
                    assert!(e.line().is_some(), "{name} -> {enc}: {e}");
                    eprintln!("{name} -> {enc}: refused as expected: {e}");
                    continue;
                }
            };
            let nfc = enc == Encoding::Ansel;
            let (again, errors) =
                events(&out, nfc).unwrap_or_else(|e| panic!("{name} -> {enc}: {e}"));
            assert_eq!(errors, 0, "{name} -> {enc}: errors reading the output");
            let want = if nfc { &original_nfc } else { &original };
            // `events` leaves out a second CHAR, VERS substructures and the CHAR's and
            // VERS's xrefs; anything else the writer left out is missing from the output.
            let compared = stats.dropped_count as usize == stats.dropped.len()
                && stats.dropped.iter().all(|d| {
                    matches!(
                        d.reason,
                        DropReason::SecondChar | DropReason::NoVersLine | DropReason::CharXref
                    )
                });
            if !compared {
                assert!(again.len() < want.len(), "{name} -> {enc}");
                eprintln!("{name} -> {enc}: left out {:?}", stats.dropped);
                continue;
            }
            if &again != want {
                let k = again
                    .iter()
                    .zip(want.iter())
                    .position(|(a, b)| a != b)
                    .unwrap_or(again.len().min(want.len()));
                panic!(
                    "{name} -> {enc}: event {k} differs:\n  got  {:?}\n  want {:?}",
                    again.get(k),
                    want.get(k)
                );
            }
            let bom_len = if writes_bom {
                gedcom_elf::encoding::Encoder::new(enc).bom().len()
            } else {
                0
            };
            if let Err(e) = lines_within(&out, enc, bom_len, 255) {
                // Only unsplittable lines may be longer: check the reason.
                assert!(
                    !e.contains(" CONC ") || e.len() > 600,
                    "{name} -> {enc}: {e}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 10, "only {checked} files checked");
    eprintln!(
        "{checked} corpus files round-tripped through {} targets",
        TARGETS.len()
    );
}

const TAGS: &[&str] = &[
    "NOTE",
    "NAME",
    "DATE",
    "PLAC",
    "_X",
    "SOUR",
    "TEXT",
    "EMAIL",
    "ERROR",
    "_LONG_TAG_NAME_9",
];

const PIECES: &[&str] = &[
    "a",
    "b",
    "Z",
    "0",
    " ",
    "  ",
    "\t",
    "@",
    "@@",
    "#",
    "D",
    "U",
    "\n",
    "\r\n",
    "é",
    "e\u{301}",
    "\u{301}",
    "ж",
    "😀",
    "ß",
    "Ø",
    "@#DJULIAN@ ",
    "@#DGREGORIAN@",
    "@#UE9@ ",
    "@#XQ@ ",
    "@#U@ ",
    "@I1@",
    "Ærø",
    "ő",
    "€",
    "ǘ",
    "\u{0}",
    "~",
    "The quick brown fox ",
];

fn text(rng: &mut Rng) -> String {
    let n = match rng.below(10) {
        0 => 0,
        1..=6 => rng.below(8),
        _ => rng.below(120),
    };
    let mut s = String::new();
    for _ in 0..n {
        let piece: &&str = rng.pick(PIECES);
        s.push_str(piece);
    }
    s
}

fn node(rng: &mut Rng, depth: usize, first_child: bool, xrefs: &mut u32) -> Node {
    let mut tag = rng.pick(TAGS).to_string();
    if !first_child && rng.below(12) == 0 {
        tag = rng.pick(&["CONT", "CONC"]).to_string();
    }
    let mut n = Node::new(tag);
    if depth == 0 && rng.below(2) == 0 {
        *xrefs += 1;
        n = n.xref(format!("@R{xrefs}@"));
    }
    match rng.below(4) {
        0 => {}
        1 => n = n.pointer(format!("@P{}@", rng.below(100))),
        _ => n = n.text(text(rng)),
    }
    n
}

/// Grows `root` (at `depth`) by `n` random structures appended along random paths
/// (without recursion).
fn grow(rng: &mut Rng, root: &mut Node, depth: usize, n: usize, xrefs: &mut u32) {
    for _ in 0..n {
        let mut cur = &mut *root;
        let mut depth = depth + 1;
        loop {
            let leaf = matches!(cur.tag.as_str(), "ERROR" | "CONT" | "CONC");
            if leaf {
                break;
            }
            if cur.children.is_empty() || rng.below(3) == 0 {
                let first = cur.children.is_empty();
                cur.children.push(node(rng, depth, first, xrefs));
                break;
            }
            let i = rng.below(cur.children.len());
            cur = &mut cur.children[i];
            depth += 1;
        }
    }
}

/// A random `CHAR` for the `HEAD`: random substructures, among them `VERS` structures
/// with their own, perhaps xrefs.
fn char_structure(rng: &mut Rng, xrefs: &mut u32) -> Node {
    let mut c = Node::new("CHAR").text(text(rng));
    if rng.below(4) == 0 {
        c = c.xref("@C@");
    }
    for k in 0..rng.below(6) {
        if rng.below(3) == 0 {
            let mut v = Node::new("VERS").text(text(rng));
            if rng.below(4) == 0 {
                v = v.xref("@V@");
            }
            let n = rng.below(5);
            grow(rng, &mut v, 2, n, xrefs);
            c.children.push(v);
        } else {
            let mut n = node(rng, 2, k == 0, xrefs);
            let k = rng.below(4);
            grow(rng, &mut n, 2, k, xrefs);
            c.children.push(n);
        }
    }
    c
}

/// A random document: HEAD (with a NOTE, and perhaps CHAR structures before or after
/// it), records with random subtrees (built without recursion), TRLR.
fn document(rng: &mut Rng) -> Vec<Node> {
    let mut xrefs = 0;
    let mut head = Node::new("HEAD").child(Node::new("NOTE").text(text(rng)));
    for _ in 0..rng.below(4).saturating_sub(1) {
        let c = char_structure(rng, &mut xrefs);
        let at = rng.below(head.children.len() + 1);
        head.children.insert(at, c);
    }
    let mut records = vec![head];
    for _ in 0..rng.below(6) {
        let mut record = node(rng, 0, true, &mut xrefs);
        let n = rng.below(25);
        grow(rng, &mut record, 0, n, &mut xrefs);
        records.push(record);
    }
    records.push(Node::new("TRLR"));
    records
}

/// What the writer's CHAR rule leaves out of `head` when the output has a `VERS` line
/// or not (`vers_line`): the drops it must report, and `head` as written (the first
/// CHAR's substructures but its `VERS` structures first, then its other substructures
/// but the `CHAR` structures; `VERS` substructures left out of the comparison).
fn head_as_written(head: &Node, vers_line: bool) -> (Node, u64) {
    let mut drops = 0;
    let mut kept = Vec::new();
    let mut rest = Vec::new();
    let mut first = true;
    for c in &head.children {
        if c.tag != "CHAR" {
            rest.push(c.clone());
            continue;
        }
        if !first {
            drops += 1;
            continue;
        }
        first = false;
        drops += u64::from(c.xref.is_some());
        // The writer's CHAR (VERS) has no substructure yet.
        let mut char_bare = !vers_line;
        let mut vers_bare = true;
        for (i, s) in c.children.iter().enumerate() {
            let continuation = matches!(s.tag.as_str(), "CONT" | "CONC");
            if s.tag == "VERS" {
                drops += u64::from(s.xref.is_some());
                for (j, v) in s.children.iter().enumerate() {
                    let continuation = matches!(v.tag.as_str(), "CONT" | "CONC");
                    if !vers_line || (continuation && j > 0 && vers_bare) {
                        drops += 1;
                    } else {
                        vers_bare = false;
                    }
                }
            } else if continuation && i > 0 && char_bare {
                drops += 1;
            } else {
                char_bare = false;
                kept.push(s.clone());
            }
        }
    }
    // The CHAR (whose line `expected` leaves out) first.
    let mut written = Node::new("HEAD");
    written.value = head.value.clone();
    let mut c = Node::new("CHAR");
    c.children = kept;
    written.children.push(c);
    written.children.append(&mut rest);
    (written, drops)
}

/// The events a reader should report for `doc` (rendered as `write_common::events`
/// does), texts normalised like the reader's, and the number of structures the writer
/// should report left out.
fn expected(doc: &[Node], nfc: bool, cr: bool, vers_line: bool) -> (Vec<String>, u64) {
    let mut out = Vec::new();
    let mut drops = 0;
    for record in doc {
        let mut stack: Vec<(&Node, usize)> = Vec::new();
        let head;
        let record = if record.tag == "HEAD" {
            let (h, d) = head_as_written(record, vers_line);
            head = h;
            drops += d;
            &head
        } else {
            record
        };
        // The HEAD's CHAR line (the writer's) is left out, as `write_common::events`
        // does.
        let char_line =
            |n: &Node, level: usize| record.tag == "HEAD" && level == 1 && n.tag == "CHAR";
        stack.push((record, 0));
        push_begin(&mut out, record, 0, nfc, cr);
        while let Some((n, i)) = stack.pop() {
            if let Some(c) = n.children.get(i) {
                stack.push((n, i + 1));
                if !char_line(c, stack.len()) {
                    push_begin(&mut out, c, stack.len() as u32, nfc, cr);
                }
                stack.push((c, 0));
            } else if !char_line(n, stack.len()) {
                out.push(format!("-{} {}", stack.len(), n.tag));
            }
        }
    }
    (out, drops)
}

fn push_begin(out: &mut Vec<String>, n: &Node, level: u32, nfc: bool, cr: bool) {
    let mut s = format!("+{level} {}", n.tag);
    if let Some(x) = &n.xref {
        s += &format!(" {x}");
    }
    if let Some(v) = &n.value {
        if n.pointer {
            s += &format!(" ={v}");
        } else {
            let t = if cr {
                v.replace("\r\n", "\n").replace('\r', "\n")
            } else {
                v.clone()
            };
            if nfc {
                s += &format!(" {:?}", t.nfc().collect::<String>());
            } else {
                s += &format!(" {t:?}");
            }
        }
    }
    out.push(s);
}

#[test]
fn property_read_of_write_is_identity() {
    let encodings = gedcom_elf::encoding::ALL_ENCODINGS;
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    // Cases with substructures moved under the writer's CHAR, and with drops.
    let (mut moved, mut dropped) = (0, 0);
    for case in 0..600 {
        let doc = document(&mut rng);
        let enc = encodings[case % encodings.len()];
        let max = *rng.pick(&[255usize, 255, 40, 24, 12]);
        let le = *rng.pick(&[LineEnding::Lf, LineEnding::CrLf, LineEnding::Cr]);
        let cr = rng.below(2) == 0;
        let config = WriterConfig::new()
            .encoding(enc)
            .line_ending(le)
            .max_line_bytes(max)
            .cr_is_line_break(cr);
        let mut w = Writer::with_config(Vec::new(), config);
        for record in &doc {
            w.write_structure(record)
                .unwrap_or_else(|e| panic!("case {case}: {e}"));
        }
        let reported = w.dropped_count();
        assert_eq!(reported, w.dropped().len() as u64, "case {case}");
        let out = w.finish().unwrap();
        let nfc = enc == Encoding::Ansel;
        let (got, errors) = events(&out, nfc).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let (want, drops) = expected(&doc, nfc, cr, enc.vers().is_some());
        assert_eq!(reported, drops, "case {case}: structures reported dropped");
        dropped += usize::from(drops > 0);
        moved += usize::from(got.get(1).is_some_and(|e| e.starts_with("+2 ")));
        if got != want || errors != 0 {
            let k = got
                .iter()
                .zip(want.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            panic!(
                "case {case} ({enc}, max {max}, {le:?}, {errors} errors): event {k}\n  got  {:?}\n  want {:?}\noutput:\n{}",
                got.get(k),
                want.get(k),
                String::from_utf8_lossy(&out)
            );
        }
        // Every line within the limit unless one unit cannot be split further.
        let bom = if enc.is_utf16() { 2 } else { 0 };
        if max == 255 {
            lines_within(&out, enc, bom, 255).unwrap_or_else(|e| panic!("case {case}: {e}"));
        }
    }
    assert!(
        moved > 100 && dropped > 50,
        "{moved} cases moved, {dropped} dropped"
    );
}

/// Fuzz `rewrite` crash b794e926, end to end: `fmt` splits an `ESC` line longer than
/// the line limit with `CONC`; reading the output must still preserve the escape types
/// the line gives, so that a `DATE` escape survives.
#[test]
fn a_long_esc_line_split_by_fmt_keeps_its_escape_types() {
    let filler = "x".repeat(300);
    let input = format!(
        "0 HEAD\n1 SCHMA\n2 ESC DATE {filler}D\n0 @I1@ INDI\n1 BIRT\n2 DATE @#DJULIAN@ 1 JAN 1700\n0 TRLR\n"
    );
    let mut out = Vec::new();
    rewrite(input.as_bytes(), None, WriterConfig::new(), &mut out).unwrap();
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(
        text.contains("\n3 CONC "),
        "the ESC line was not split:\n{text}"
    );
    let (before, _) = events(input.as_bytes(), false).unwrap();
    let (after, errors) = events(&out, false).unwrap();
    assert_eq!(errors, 0);
    assert_eq!(after, before);
    assert!(
        after.iter().any(|e| e.contains("@#DJULIAN@ 1 JAN 1700")),
        "{after:?}"
    );
}

/// Fuzz `rewrite` crash 2c4d8d23: a HEAD whose `VERS` reads `7.0INEAGE-LINKED` is read
/// as GEDCOM 7.0, so `fmt` writes 7.0 and leaves its `CHAR` out, reporting it at its
/// line. The `CHAR` had no substructure, so the compared form of the output is the
/// input's: the fuzz target took that report for the loss of a structure.
#[test]
fn fuzz_rewrite_2c4d8d23_a_7_0_head_s_char_left_out_loses_nothing_else() {
    let input: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 7.0INEAGE-LINKED\r1 CHAR MACINTOSH\r0 @I1@ INDIMC @VOID@\n0 TRLR\n";
    let mut out = Vec::new();
    let stats = rewrite(input, None, WriterConfig::new(), &mut out).unwrap();
    let reasons: Vec<_> = stats.dropped.iter().map(|d| (d.reason, d.line)).collect();
    assert_eq!(reasons, [(DropReason::Gedcom7Char, Some(4))]);
    assert!(!String::from_utf8_lossy(&out).contains("CHAR"));
    let (before, _) = events(input, false).unwrap();
    let (after, errors) = events(&out, false).unwrap();
    assert_eq!(errors, 0);
    assert_eq!(after, before);
}
