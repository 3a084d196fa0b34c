//! Checks the benchmark data generator in `benches/support/generate.rs`:
//! determinism, exact statistics, line length and line shape.

#[path = "../benches/support/generate.rs"]
mod generate;

use std::collections::HashSet;

use generate::{generate, generate_bytes, GenStats};

fn make(individuals: u64, seed: u64) -> (Vec<u8>, GenStats) {
    let mut out = Vec::new();
    let stats = generate(individuals, seed, &mut out).expect("writing to a Vec");
    (out, stats)
}

/// One parsed line: `LEVEL (@XREF@ )?TAG( payload)?`.
struct Line<'a> {
    level: u32,
    xref: Option<&'a str>,
    tag: &'a str,
    payload: Option<&'a str>,
}

fn parse_line(line: &str) -> Result<Line<'_>, String> {
    let (level, rest) = line.split_once(' ').ok_or("no space after level")?;
    if level.is_empty()
        || !level.bytes().all(|b| b.is_ascii_digit())
        || (level.len() > 1 && level.starts_with('0'))
    {
        return Err(format!("bad level {level:?}"));
    }
    let level: u32 = level.parse().map_err(|_| "level too large")?;
    let (xref, rest) = if let Some(after) = rest.strip_prefix('@') {
        let end = after.find('@').ok_or("unterminated xref")?;
        let name = &after[..end];
        let xref = &rest[..end + 2];
        if name.is_empty()
            || name.starts_with('#')
            || !name.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(format!("bad xref {xref:?}"));
        }
        let rest = after[end + 1..]
            .strip_prefix(' ')
            .ok_or("no space after xref")?;
        (Some(xref), rest)
    } else {
        (None, rest)
    };
    let (tag, payload) = match rest.split_once(' ') {
        Some((t, p)) => (t, Some(p)),
        None => (rest, None),
    };
    if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(format!("bad tag {tag:?}"));
    }
    if payload == Some("") {
        return Err("empty payload after space".into());
    }
    Ok(Line {
        level,
        xref,
        tag,
        payload,
    })
}

/// Every `@` in a payload is part of a pointer (the whole payload), a
/// leading `@#D...@ ` calendar escape, or an `@@` pair.
fn check_at_signs(payload: &str) -> Result<(), String> {
    let body = if let Some(rest) = payload.strip_prefix("@#D") {
        let end = rest.find("@ ").ok_or("unterminated escape")?;
        &rest[end + 2..]
    } else {
        payload
    };
    let mut bytes = body.bytes();
    while let Some(b) = bytes.next() {
        if b == b'@' && bytes.next() != Some(b'@') {
            return Err(format!("lone @ in {payload:?}"));
        }
    }
    Ok(())
}

fn is_pointer(payload: &str) -> bool {
    payload.len() > 2
        && payload.starts_with('@')
        && payload.ends_with('@')
        && !payload.starts_with("@#")
        && payload[1..payload.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric())
}

/// Validates the whole file and recounts its statistics independently.
fn check_file(bytes: &[u8], stats: &GenStats) {
    let text = std::str::from_utf8(bytes).expect("output is UTF-8");
    assert!(!text.contains('\r'), "LF line endings only");
    assert!(text.ends_with('\n'), "last line ends in LF");
    assert!(text.starts_with("0 HEAD\n"));
    assert!(text.ends_with("\n0 TRLR\n"));
    assert!(text.contains("\n1 CHAR UTF-8\n"));

    let lines: Vec<&str> = text[..text.len() - 1].split('\n').collect();
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(stats.bytes, bytes.len() as u64, "bytes");
    assert_eq!(stats.lines, newlines, "lines");
    assert_eq!(lines.len() as u64, newlines);

    let mut continuation = 0;
    let mut records = 0;
    let mut prev_level = 0;
    let mut prev_payload: Option<&str> = None;
    let mut defined = HashSet::new();
    let mut pointers = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let n = i + 1;
        let line = parse_line(raw).unwrap_or_else(|e| panic!("line {n} {raw:?}: {e}"));
        if i == 0 {
            assert_eq!(line.level, 0);
        } else {
            assert!(
                line.level <= prev_level + 1,
                "line {n} {raw:?}: level jumps from {prev_level}"
            );
        }
        if line.level == 0 {
            records += 1;
        }
        if let Some(x) = line.xref {
            assert_eq!(line.level, 0, "line {n}: xref below level 0");
            assert!(defined.insert(x), "line {n}: xref {x} defined twice");
        }
        if let Some(p) = line.payload {
            if is_pointer(p) {
                pointers.push((n, p));
            } else {
                check_at_signs(p).unwrap_or_else(|e| panic!("line {n}: {e}"));
            }
        }
        match line.tag {
            "CONT" | "CONC" => {
                continuation += 1;
                assert!(line.xref.is_none());
                assert!(
                    (line.level > 0 && line.level == prev_level) || line.level == prev_level + 1
                );
                if line.tag == "CONC" {
                    let p = line.payload.expect("CONC carries text");
                    assert!(!p.starts_with(' '), "line {n}: CONC after a space");
                    let before = prev_payload.expect("CONC follows text");
                    assert!(!before.ends_with(' '), "line {n}: CONC before a space");
                }
            }
            _ => {}
        }
        prev_level = line.level;
        prev_payload = line.payload;
    }
    assert_eq!(stats.structures, stats.lines - continuation, "structures");
    assert_eq!(stats.records, records, "records");
    for (n, p) in pointers {
        assert!(defined.contains(p), "line {n}: pointer {p} to nothing");
    }
}

#[test]
fn same_seed_same_bytes() {
    let (a, sa) = make(2_000, 42);
    let (b, sb) = make(2_000, 42);
    assert_eq!(sa, sb);
    assert!(a == b, "same seed must give the same bytes");
    let (c, _) = make(2_000, 43);
    assert!(a != c, "another seed gives another file");
}

#[test]
fn stats_and_shape_match() {
    for (individuals, seed) in [(0, 1), (1, 1), (2, 5), (7, 9), (500, 3), (5_000, 11)] {
        let (bytes, stats) = make(individuals, seed);
        check_file(&bytes, &stats);
        let indi = bytes
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(b"0 @I") && l.ends_with(b"@ INDI"))
            .count() as u64;
        assert_eq!(indi, individuals);
    }
}

#[test]
fn lines_average_about_21_bytes() {
    let (_, stats) = make(20_000, 1);
    let avg = stats.bytes as f64 / stats.lines as f64;
    assert!((17.0..=25.0).contains(&avg), "average line length {avg:.2}");
}

#[test]
fn content_exercises_the_reader() {
    let (bytes, stats) = make(5_000, 2);
    let text = std::str::from_utf8(&bytes).unwrap();
    for needle in [
        "\n1 FAMC @F",
        "\n1 FAMS @F",
        "\n1 HUSB @I",
        "\n1 WIFE @I",
        "\n1 CHIL @I",
        "\n1 MARR\n",
        "\n2 SOUR @S",
        "\n2 GIVN ",
        "\n2 SURN ",
        "\n2 DATE @#DJULIAN@ ",
        "\n2 DATE ABT ",
        "\n2 DATE BET ",
        " AND ",
        "\n1 OCCU ",
        "\n2 CONT ",
        "\n2 CONC ",
        "@@example.com\n",
        "\n1 _UID ",
        "\n2 _PRIM Y\n",
        "\n1 TITL ",
        "\n1 AUTH ",
        "\n1 PUBL ",
        "Müller",
        "Łódź",
        "Москва",
        "李",
    ] {
        assert!(text.contains(needle), "missing {needle:?}");
    }
    assert!(stats.lines > stats.structures, "has continuation lines");
}

#[test]
fn generate_bytes_reaches_target() {
    for target in [1u64, 300, 50_000, 1 << 20] {
        let mut out = Vec::new();
        let stats = generate_bytes(target, 8, &mut out).unwrap();
        assert!(stats.bytes >= target, "{} < {target}", stats.bytes);
        assert_eq!(stats.bytes, out.len() as u64);
        if target >= 1 << 20 {
            assert!(
                stats.bytes < target + target / 50,
                "overshoot {}",
                stats.bytes
            );
        }
        check_file(&out, &stats);
    }
}
