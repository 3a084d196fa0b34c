//! The external corpus in `../shared/corpus` (read in place, never copied; each test
//! skips with a message when a file is absent), through the public API.
//!
//! * `ANSEL.GED`: every spacing character and combining mark, checked against what the
//!   file's own notes say each one is;
//! * `TGC55C.ged` (and `TGC55CLF.ged`): the ANSEL notes that put each mark on each letter;
//! * `willis-ansel.ged` and the two UTF-16 exports of the same data: identical records
//!   apart from the one record whose em dash the ANSEL exporter could not write;
//! * `utf16le.ged`, `utf16be.ged`: UTF-16 files that say `CHAR ANSEL`.

mod encoding_support;

use std::collections::BTreeMap;

use encoding_support::{read, shared};
use gedcom_elf::{
    DiagnosticKind, Encoding, EncodingSource, ErrorKind, Event, Input, Reader, ReaderConfig, Value,
};
use unicode_normalization::UnicodeNormalization;

/// One structure with a string payload: where it is, its text, and its raw octets.
#[derive(Clone, Debug)]
struct Node {
    /// Tags from the record down, `INDI/BIRT/PLAC`.
    path: String,
    text: String,
    /// The first line's payload as it stands in the input.
    first_line: Vec<u8>,
    /// The payload's line fragments, raw, each with `true` for a `CONT`.
    fragments: Vec<(bool, Vec<u8>)>,
}

/// Every string-valued structure of `input`, read with `config`.
fn nodes(input: &Input<'_>, config: ReaderConfig) -> Vec<Node> {
    let mut reader = input.reader_with_config(config);
    let mut path: Vec<String> = Vec::new();
    let mut out = Vec::new();
    while let Some(event) = reader.next_event().expect("the corpus files read") {
        match event {
            Event::Begin(b) => {
                path.push(b.tag.to_string());
                if let Some(Value::Text(p)) = &b.value {
                    out.push(Node {
                        path: path.join("/"),
                        text: p.text().into_owned(),
                        first_line: p.first_line().to_vec(),
                        fragments: p
                            .fragments()
                            .map(|f| (f.joint == gedcom_elf::Joint::Cont, f.bytes.to_vec()))
                            .collect(),
                    });
                }
            }
            Event::End(_) => {
                path.pop();
            }
        }
    }
    out
}

fn decomposed() -> ReaderConfig {
    ReaderConfig::new().decomposed(true)
}

/// NFC of one base letter and one combining mark.
fn nfc_pair(base: char, mark: char) -> String {
    [base, mark].into_iter().nfc().collect()
}

/// Parses the notes' `code: E0 (Unicode: hook above, 0309)` into (0xE0, U+0309).
fn parse_code_note(text: &str) -> Option<(u8, char)> {
    let rest = &text[text.find("code: ")? + 6..];
    let byte = u8::from_str_radix(rest.get(..2)?, 16).ok()?;
    let inside = &rest[rest.find("(Unicode: ")? + 10..rest.find(')')?];
    let (_, hex) = inside.rsplit_once(", ")?;
    let mark = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((byte, mark))
}

// ---- ANSEL.GED -----------------------------------------------------------------------

/// ANSEL's names for its spacing characters, as `ANSEL.GED` writes them, and the
/// Unicode character each name stands for.
const SPACING_NAMES: [(&str, char); 35] = [
    ("slash l - uppercase", '\u{0141}'),
    ("slash o - uppercase", '\u{00D8}'),
    ("slash d - uppercase", '\u{0110}'),
    ("thorn - uppercase", '\u{00DE}'),
    ("ligature ae - uppercase", '\u{00C6}'),
    ("ligature oe - uppercase", '\u{0152}'),
    ("miagkii znak", '\u{02B9}'),
    ("middle dot", '\u{00B7}'),
    ("musical flat", '\u{266D}'),
    ("patent mark", '\u{00AE}'),
    ("plus-or-minus", '\u{00B1}'),
    ("hook o - uppercase", '\u{01A0}'),
    ("hook u - uppercase", '\u{01AF}'),
    ("alif", '\u{02BC}'),
    ("ayn", '\u{02BB}'),
    ("slash l - lowercase", '\u{0142}'),
    ("slash o - lowercase", '\u{00F8}'),
    ("slash d - lowercase", '\u{0111}'),
    ("thorn - lowercase", '\u{00FE}'),
    ("ligature ae - lowercase", '\u{00E6}'),
    ("ligature oe - lowercase", '\u{0153}'),
    ("tverdyi znak", '\u{02BA}'),
    ("dotless i - lowercase", '\u{0131}'),
    ("british pound", '\u{00A3}'),
    ("eth", '\u{00F0}'),
    ("hook o - lowercase", '\u{01A1}'),
    ("hook u - lowercase", '\u{01B0}'),
    ("degree sign", '\u{00B0}'),
    ("script l", '\u{2113}'),
    ("phonograph copyright mark", '\u{2117}'),
    ("copyright symbol", '\u{00A9}'),
    ("musical sharp", '\u{266F}'),
    ("inverted question mark", '\u{00BF}'),
    ("inverted exclamation mark", '\u{00A1}'),
    ("es zet", '\u{00DF}'),
];

/// The notes: "the test string is 'character name (test character), ...' where ...
/// 'test character' is a single byte representing this character in ANSEL".
#[test]
fn ansel_gedcom_spacing_characters_match_their_names() {
    let Some(bytes) = shared("ANSEL.GED") else {
        return;
    };
    let input = Input::new(&bytes).expect("ANSEL.GED reads");
    let info = input.encoding_info();
    assert_eq!(
        (info.encoding, info.source),
        (Encoding::Ansel, EncodingSource::CharLine)
    );
    let names: BTreeMap<&str, char> = SPACING_NAMES.into_iter().collect();
    let mut seen: BTreeMap<String, (u8, char)> = BTreeMap::new();
    let all = nodes(&input, ReaderConfig::new());
    let mut current_name = String::new();
    for node in &all {
        if node.path == "INDI/NAME" {
            current_name.clone_from(&node.text);
        }
        if !current_name.starts_with("/Special Characters") || !node.path.ends_with("/PLAC") {
            continue;
        }
        // The decoded items and the raw octets, side by side.
        let items: Vec<&str> = node.text.split(", ").collect();
        let raw_items: Vec<&[u8]> = node
            .first_line
            .split(|&b| b == b',')
            .map(|i| i.strip_prefix(b" ").unwrap_or(i))
            .collect();
        assert_eq!(items.len(), raw_items.len(), "{}", node.text);
        for (item, raw) in items.iter().zip(raw_items) {
            let (name, rest) = item.rsplit_once(" (").expect("name (char)");
            let decoded = rest.strip_suffix(')').expect("closing parenthesis");
            let mut chars = decoded.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                panic!("{item:?}: one character expected");
            };
            // The raw item is `name (X)` with X a single octet 80-FF.
            let octet = raw[raw.len() - 2];
            assert!(raw.ends_with(b")") && octet >= 0x80, "{raw:?}");
            assert_eq!(raw[raw.len() - 3], b'(', "{raw:?}");
            let want = names
                .get(name)
                .unwrap_or_else(|| panic!("{name:?} is not a name the notes use"));
            assert_eq!(c, *want, "{name} (octet {octet:02X})");
            assert!(
                seen.insert(name.to_string(), (octet, c)).is_none(),
                "{name}"
            );
        }
    }
    assert_eq!(seen.len(), SPACING_NAMES.len(), "every name is tested once");
    // Distinct octets, and the uppercase/lowercase pairs the names describe are case pairs.
    let octets: std::collections::BTreeSet<u8> = seen.values().map(|(o, _)| *o).collect();
    assert_eq!(octets.len(), seen.len());
    for (name, (_, upper)) in &seen {
        if let Some(base) = name.strip_suffix(" - uppercase") {
            let (_, lower) = seen[&format!("{base} - lowercase")];
            assert_eq!(upper.to_lowercase().collect::<String>(), lower.to_string());
        }
    }
    // The same through the in-place reader.
    let r = read(Reader::from_slice(&bytes));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let via_input: Vec<&str> = all.iter().map(|n| n.text.as_str()).collect();
    let in_place: Vec<&str> = r.texts.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(in_place, via_input);
}

/// The notes: "Within the name the hex-values of the non-spacing character is given in
/// ANSEL and UNICODE. The test strings contain the whole latin alphabet combined with this
/// non-spacing character: capital letters in the BIRT.PLAC tag and small letters in the
/// DEAT.PLAC tag."
#[test]
fn ansel_gedcom_marks_match_their_codes() {
    let Some(bytes) = shared("ANSEL.GED") else {
        return;
    };
    let input = Input::new(&bytes).expect("ANSEL.GED reads");
    let nfc = nodes(&input, ReaderConfig::new());
    let raw = nodes(&input, decomposed());
    assert_eq!(nfc.len(), raw.len());
    let mut mark = None;
    let mut checked = BTreeMap::new();
    for (n, d) in nfc.iter().zip(&raw) {
        if n.path == "INDI/NAME" {
            mark = parse_code_note(&n.text);
            continue;
        }
        let Some((octet, m)) = mark else {
            continue;
        };
        let letters = match n.path.as_str() {
            "INDI/BIRT/PLAC" => 'A'..='Z',
            "INDI/DEAT/PLAC" => 'a'..='z',
            _ => continue,
        };
        // The raw payload is the ANSEL code before each letter, as the notes say.
        let want_raw: Vec<u8> = letters.clone().flat_map(|c| [octet, c as u8]).collect();
        assert_eq!(n.first_line, want_raw, "{octet:02X}");
        // Decomposed: each letter followed by the mark the notes name.
        let want_decomposed: String = letters.clone().flat_map(|c| [c, m]).collect();
        assert_eq!(d.text, want_decomposed, "{octet:02X}");
        // NFC: the precomposed character where Unicode has one, letter + mark otherwise.
        let want_nfc: String = letters.clone().map(|c| nfc_pair(c, m)).collect();
        assert_eq!(n.text, want_nfc, "{octet:02X}");
        assert_eq!(n.text, d.text.nfc().collect::<String>());
        *checked.entry(octet).or_insert(0) += 1;
    }
    // E0-FB and FE: 29 marks, each on capitals and small letters.
    let want: Vec<u8> = (0xE0..=0xFB).chain([0xFE]).collect();
    assert_eq!(checked.keys().copied().collect::<Vec<u8>>(), want);
    assert!(checked.values().all(|&n| n == 2), "{checked:?}");
    // Spot checks, written out from the Unicode tables.
    let plac = |octet: u8, path: &str| -> String {
        let at = raw
            .iter()
            .position(|n| {
                n.path == "INDI/NAME" && parse_code_note(&n.text).map(|p| p.0) == Some(octet)
            })
            .expect("the mark's person");
        nfc[at + 1..]
            .iter()
            .find(|n| n.path == path)
            .map(|n| n.text.clone())
            .expect("the person's PLAC")
    };
    assert_eq!(
        plac(0xE2, "INDI/BIRT/PLAC"),
        "\u{00C1}B\u{0301}\u{0106}D\u{0301}\u{00C9}F\u{0301}\u{01F4}H\u{0301}\u{00CD}J\u{0301}\u{1E30}\u{0139}\u{1E3E}\u{0143}\u{00D3}\u{1E54}Q\u{0301}\u{0154}\u{015A}T\u{0301}\u{00DA}V\u{0301}\u{1E82}X\u{0301}\u{00DD}\u{0179}"
    );
    assert_eq!(plac(0xE9, "INDI/DEAT/PLAC"), "ǎb̌čďěf̌ǧȟǐǰǩľm̌ňǒp̌q̌řšťǔv̌w̌x̌y̌ž");
    assert_eq!(
        plac(0xF0, "INDI/BIRT/PLAC"),
        "A\u{0327}B\u{0327}\u{00C7}\u{1E10}\u{0228}F\u{0327}\u{0122}\u{1E28}I\u{0327}J\u{0327}\u{0136}\u{013B}M\u{0327}\u{0145}O\u{0327}P\u{0327}Q\u{0327}\u{0156}\u{015E}\u{0162}U\u{0327}V\u{0327}W\u{0327}X\u{0327}Y\u{0327}Z\u{0327}"
    );
}

// ---- TGC55C.ged ----------------------------------------------------------------------

/// The torture test's NOTE lists, after each `code: XX (Unicode: name, HHHH)` line, four
/// lines of `XX letter` pairs. Every pair must decode to the letter with that mark; in NFC
/// the precomposed character where Unicode has one.
fn check_tgc_marks(name: &str) {
    let Some(bytes) = shared(name) else {
        return;
    };
    let input = Input::new(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(input.encoding_info().encoding, Encoding::Ansel, "{name}");
    let find = |config| {
        nodes(&input, config)
            .into_iter()
            .find(|n| n.text.contains("code: E0 ("))
            .unwrap_or_else(|| panic!("{name}: no note with the ANSEL marks"))
    };
    let (nfc, raw) = (find(ReaderConfig::new()), find(decomposed()));
    // Expected lines, from the raw fragments and the codes the notes give.
    let mut mark: Option<(u8, char)> = None;
    let mut want_decomposed = Vec::new();
    let mut want_nfc = Vec::new();
    let mut per_mark: BTreeMap<u8, usize> = BTreeMap::new();
    for (is_cont, fragment) in &raw.fragments {
        let text = String::from_utf8_lossy(fragment);
        if text.contains("code: ") {
            mark = parse_code_note(&text);
            assert!(mark.is_some(), "{name}: cannot parse {text:?}");
            continue;
        }
        let Some((octet, m)) = mark else {
            continue;
        };
        let pairs = fragment.trim_ascii_start();
        if !is_cont || pairs.is_empty() || !pairs.starts_with(&[octet]) {
            continue;
        }
        let indent = &text[..fragment.len() - pairs.len()];
        let (mut d, mut n) = (indent.to_string(), indent.to_string());
        for pair in pairs.chunks(2) {
            let [code, letter] = pair else {
                panic!("{name}: odd pair in {text:?}");
            };
            assert_eq!(*code, octet, "{name}: {text:?}");
            assert!(letter.is_ascii_alphabetic(), "{name}: {text:?}");
            let letter = char::from(*letter);
            d.extend([letter, m]);
            n += &nfc_pair(letter, m);
            *per_mark.entry(octet).or_default() += 1;
        }
        want_decomposed.push(d);
        want_nfc.push(n);
    }
    let want_marks: Vec<u8> = (0xE0..=0xFB).chain([0xFE]).collect();
    assert_eq!(
        per_mark.keys().copied().collect::<Vec<_>>(),
        want_marks,
        "{name}"
    );
    // Four lines of 13 letters: A-M, N-Z, a-m, n-z.
    assert!(per_mark.values().all(|&n| n == 52), "{name}: {per_mark:?}");
    // The decoded note's lines of pairs are exactly those, in the same order.
    let lines_of = |text: &str, count: usize| -> Vec<String> {
        let all: Vec<String> = text
            .split('\n')
            .filter(|l| l.starts_with("     ") && !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        assert_eq!(all.len(), count, "{name}");
        all
    };
    assert_eq!(
        lines_of(&raw.text, want_decomposed.len()),
        want_decomposed,
        "{name}"
    );
    assert_eq!(lines_of(&nfc.text, want_nfc.len()), want_nfc, "{name}");
    // Some of them really are precomposed in NFC.
    assert!(nfc
        .text
        .contains("\u{00C1}B\u{0301}\u{0106}D\u{0301}\u{00C9}"));
    assert!(nfc.text.contains("\u{00C5}B\u{030A}C\u{030A}"));
    assert!(raw
        .text
        .contains("A\u{0301}B\u{0301}C\u{0301}D\u{0301}E\u{0301}"));
}

#[test]
fn tgc55c_marks_on_every_letter() {
    check_tgc_marks("TGC55C.ged");
}

#[test]
fn tgc55clf_marks_on_every_letter() {
    check_tgc_marks("TGC55CLF.ged");
}

// ---- willis: ANSEL against UTF-16 ----------------------------------------------------

/// One event, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ev {
    Begin {
        level: u32,
        tag: String,
        xref: Option<String>,
        pointer: Option<String>,
        text: Option<String>,
    },
    End {
        level: u32,
        tag: String,
    },
}

/// The records of a file (HEAD left out), each as its events.
fn records(bytes: &[u8], name: &str) -> Vec<Vec<Ev>> {
    let input = Input::new(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut reader = input.reader();
    let mut out: Vec<Vec<Ev>> = Vec::new();
    while let Some(e) = reader
        .next_event()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    {
        let ev = match e {
            Event::Begin(b) => {
                if b.level == 0 {
                    out.push(Vec::new());
                }
                Ev::Begin {
                    level: b.level,
                    tag: b.tag.to_string(),
                    xref: b.xref.as_ref().map(|x| x.to_string()),
                    pointer: b.pointer().map(|p| p.to_string()),
                    text: b.text().map(|t| t.into_owned()),
                }
            }
            Event::End(e) => Ev::End {
                level: e.level,
                tag: e.tag.to_string(),
            },
        };
        out.last_mut().expect("events begin with a record").push(ev);
    }
    let unmapped = reader.stats().count(DiagnosticKind::UnmappedByte)
        + reader.stats().count(DiagnosticKind::InvalidEncoding);
    assert_eq!(unmapped, 0, "{name}: undecodable octets");
    assert!(
        matches!(out.first().and_then(|r| r.first()), Some(Ev::Begin { tag, .. }) if tag == "HEAD"),
        "{name}"
    );
    out.remove(0);
    out
}

#[test]
fn willis_ansel_and_utf16_hold_the_same_records_but_one_em_dash() {
    let (Some(ansel), Some(le), Some(be)) = (
        shared("willis-ansel.ged"),
        shared("willis-unicode-littleendian.ged"),
        shared("willis-unicode-bigendian.ged"),
    ) else {
        return;
    };
    let ansel_info = Input::new(&ansel).unwrap().encoding_info().clone();
    assert_eq!(ansel_info.encoding, Encoding::Ansel);
    assert_eq!(
        Input::new(&le).unwrap().encoding_info().encoding,
        Encoding::Utf16Le
    );
    assert_eq!(
        Input::new(&be).unwrap().encoding_info().encoding,
        Encoding::Utf16Be
    );
    let ansel = records(&ansel, "willis-ansel.ged");
    let le = records(&le, "willis-unicode-littleendian.ged");
    let be = records(&be, "willis-unicode-bigendian.ged");
    // The two byte orders: identical.
    assert_eq!(le, be);
    assert_eq!(ansel.len(), le.len());
    assert!(ansel.len() > 1000, "{} records", ansel.len());
    // ANSEL against UTF-16: exactly one record differs.
    let differing: Vec<usize> = (0..ansel.len()).filter(|&i| ansel[i] != le[i]).collect();
    assert_eq!(differing.len(), 1, "records {differing:?} differ");
    let (a, u) = (&ansel[differing[0]], &le[differing[0]]);
    assert_eq!(a.len(), u.len());
    let mut dashes = 0;
    for (ea, eu) in a.iter().zip(u) {
        if ea == eu {
            continue;
        }
        // Only a text differs, and only where UTF-16 has an em dash: the exporter wrote
        // its low octet, 0x14 (a control character), in the ANSEL file.
        let (
            Ev::Begin {
                text: Some(ta),
                level: la,
                tag: ga,
                ..
            },
            Ev::Begin {
                text: Some(tu),
                level: lu,
                tag: gu,
                ..
            },
        ) = (ea, eu)
        else {
            panic!("{ea:?} differs from {eu:?} in more than the text");
        };
        assert_eq!((la, ga), (lu, gu));
        assert!(tu.contains('\u{2014}'), "{tu:?}");
        assert!(!ta.contains('\u{2014}'));
        assert_eq!(*ta, tu.replace('\u{2014}', "\u{14}"));
        dashes += tu.matches('\u{2014}').count();
    }
    assert!(dashes >= 1);
    // No em dash anywhere else in the UTF-16 records.
    let all_dashes: usize = le
        .iter()
        .flatten()
        .map(|e| match e {
            Ev::Begin { text: Some(t), .. } => t.matches('\u{2014}').count(),
            _ => 0,
        })
        .sum();
    assert_eq!(all_dashes, dashes);
    // The other non-ASCII texts are the same in both.
    let non_ascii = |recs: &[Vec<Ev>]| -> Vec<String> {
        recs.iter()
            .flatten()
            .filter_map(|e| match e {
                Ev::Begin { text: Some(t), .. } if !t.replace('\u{2014}', "").is_ascii() => {
                    Some(t.clone())
                }
                _ => None,
            })
            .collect()
    };
    let others = non_ascii(&ansel);
    assert!(!others.is_empty());
    assert_eq!(others, non_ascii(&le));
}

// ---- utf16le.ged, utf16be.ged --------------------------------------------------------

#[test]
fn utf16_files_saying_char_ansel_decode() {
    let (Some(le), Some(be)) = (shared("utf16le.ged"), shared("utf16be.ged")) else {
        return;
    };
    let mut reads = Vec::new();
    for (bytes, want) in [(&le, Encoding::Utf16Le), (&be, Encoding::Utf16Be)] {
        let input = Input::new(bytes).expect("utf16 files read");
        let info = input.encoding_info();
        assert_eq!(
            (info.encoding, info.source, info.bom_len),
            (want, EncodingSource::ByteOrderMark, 2)
        );
        assert_eq!(info.char_value.as_deref(), Some("ANSEL"));
        assert_eq!(input.transcode_problems(), 0);
        let r = read(input.reader());
        assert_eq!(r.error, None);
        // One warning: the CHAR line cannot be right.
        let warned = r.diagnostics_of(DiagnosticKind::Encoding);
        assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
        assert_eq!(warned.len(), 1);
        assert_eq!(
            Some(warned[0].position.line),
            info.char_line.map(|l| l as u64)
        );
        assert_eq!(r.texts_of("NAME"), ["Matt /Harrah/"]);
        assert_eq!(r.texts_of("SURN"), ["Harrah"]);
        assert_eq!(r.events.first().map(String::as_str), Some("+0 HEAD"));
        assert_eq!(r.events.last().map(String::as_str), Some("-0 TRLR"));
        // The in-place reader refuses UTF-16, as documented.
        let err = Reader::from_slice(bytes).next_event().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnsupportedEncoding);
        reads.push(r);
    }
    assert_eq!(reads[0].events, reads[1].events);
    assert_eq!(reads[0].texts, reads[1].texts);
}
