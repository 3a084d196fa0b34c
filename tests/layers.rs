//! The crate's layers, as its docs list them, hold in its code.
//!
//! `src/lib.rs` lists the library's top-level modules in layers, lowest
//! first: `//! N. `a`, `b`: ...`. A module may use modules of its own layer
//! or of a lower one, never of a higher one; and no modules may use each
//! other in a cycle, neither top-level modules nor the files of one
//! directory module. This test reads `src/**/*.rs` (the command-line tool
//! in `src/bin` aside: it uses the public API), takes every `crate::`
//! path (and `super::` path) outside comments, and checks both rules. The
//! checker's own tests below show that it fails on a forbidden edge and on a
//! cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `text` without its comments (line, doc and block comments), the contents
/// of its string literals and its `#[cfg(test)]` items, so that paths named
/// in docs, in strings and in tests do not count.
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
                out.push('"');
            }
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            i = find(&b[i..], b"\n").map_or(b.len(), |k| i + k);
            continue;
        }
        if b[i..].starts_with(b"/*") {
            i = find(&b[i..], b"*/").map_or(b.len(), |k| i + k + 2);
            continue;
        }
        if c == b'"' {
            in_str = true;
        }
        // A character literal such as '"' would open a string.
        if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3;
            continue;
        }
        if c.is_ascii() {
            out.push(c as char);
        } else {
            out.push(' ');
        }
        i += 1;
    }
    without_tests(&out)
}

/// `code` without the item after each `#[cfg(test)]` (up to its matching
/// closing brace, or its semicolon).
fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(k) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..k]);
        let after = &rest[k..];
        let (mut depth, mut end) = (0usize, after.len());
        for (j, c) in after.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 1 => {
                    end = j + 1;
                    break;
                }
                '}' => depth = depth.saturating_sub(1),
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// An identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segments of the paths in a `{...}` group that starts at `s`
/// (just after its `{`), nested groups skipped.
fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_start = true;
    for (k, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            c if at_start && depth == 0 && (c.is_ascii_alphanumeric() || c == '_') => {
                heads.push(ident(&s[k..]).to_string());
                at_start = false;
            }
            c if c.is_whitespace() => {}
            _ => at_start = false,
        }
    }
    heads
}

/// The first segment of every path after `prefix` (`crate::`, `super::`)
/// in `code`, groups included.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find(prefix) {
        let at = from + k;
        from = at + prefix.len();
        // `super::super::`, `foo_crate::`: not ours.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            out.extend(group_heads(group));
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Names the crate root re-exports, by the module they come from
/// (`pub use read::{Reader, ...}` in `lib.rs`).
fn re_exports(lib: &str) -> BTreeMap<String, String> {
    let code = strip_comments(lib);
    let mut map = BTreeMap::new();
    for stmt in code.split(';') {
        let Some(k) = stmt.find("pub use ") else {
            continue;
        };
        let path = stmt[k + "pub use ".len()..].trim();
        let path = path.strip_prefix("crate::").unwrap_or(path);
        let module = ident(path).to_string();
        let rest = &path[module.len()..];
        let names: Vec<String> = match rest.find('{') {
            Some(b) => group_heads(&rest[b + 1..]),
            None => vec![ident(rest.rsplit("::").next().unwrap_or("")).to_string()],
        };
        // A path's last segment is the name; in a group, the group's heads
        // are either names or further modules: both are looked up by name.
        for n in names {
            map.insert(n, module.clone());
        }
        if let Some(last) = rest.rsplit("::").next() {
            let last = ident(last.trim());
            if !last.is_empty() {
                map.insert(last.to_string(), module.clone());
            }
        }
    }
    map
}

/// The layers `lib.rs`'s docs list: module → layer number.
fn layers(lib: &str) -> BTreeMap<String, u32> {
    let mut map = BTreeMap::new();
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//! ") else {
            continue;
        };
        let Some((number, rest)) = doc.split_once(". ") else {
            continue;
        };
        let Ok(n) = number.trim().parse::<u32>() else {
            continue;
        };
        let names = rest.split(':').next().unwrap_or("");
        for part in names.split(',') {
            if let Some(m) = part
                .trim()
                .strip_prefix('`')
                .and_then(|p| p.strip_suffix('`'))
            {
                map.insert(m.to_string(), n);
            }
        }
    }
    map
}

/// A source file: its path below `src/`, and its text.
struct File {
    path: String,
    text: String,
}

/// The edges between modules: top-level (`a` → `b`) and, within a
/// directory module, between its files (`tree::schema` → `tree::types`).
fn edges(files: &[File], exports: &BTreeMap<String, String>) -> BTreeSet<(String, String)> {
    let mut set = BTreeSet::new();
    for f in files {
        let parts: Vec<&str> = f.path.trim_end_matches(".rs").split('/').collect();
        let top = parts[0];
        if top == "lib" || top == "bin" {
            continue;
        }
        // The file's own module path: `tree::schema` (`tree` for mod.rs).
        let own: Vec<&str> = parts.iter().copied().filter(|p| *p != "mod").collect();
        let code = strip_comments(&f.text);
        let mut add = |to: String| {
            if to != own.join("::") {
                set.insert((own.join("::"), to));
            }
        };
        for first in paths_after(&code, "crate::") {
            let module = exports.get(&first).cloned().unwrap_or(first.clone());
            if module == top && own.len() > 1 {
                // `crate::tree::types::...` from inside `tree`: a file edge.
                for k in code.match_indices(&format!("crate::{top}::")) {
                    let sub = ident(&code[k.0 + top.len() + 9..]);
                    if !sub.is_empty() {
                        add(format!("{top}::{sub}"));
                    }
                }
            } else if module != top {
                add(module);
            }
        }
        if own.len() > 1 {
            // `super::x` in `tree/schema.rs` is `tree::x`.
            for sub in paths_after(&code, "super::") {
                add(format!("{top}::{sub}"));
            }
        } else {
            for first in paths_after(&code, "super::") {
                let module = exports.get(&first).cloned().unwrap_or(first);
                if module != top {
                    add(module);
                }
            }
        }
    }
    // File edges inside a module stay inside it; a file's edges to other
    // modules count as its module's.
    set.into_iter()
        .map(|(a, b)| {
            let (ta, tb) = (top_of(&a), top_of(&b));
            if ta == tb {
                (a, b)
            } else {
                (ta.to_string(), tb.to_string())
            }
        })
        .filter(|(a, b)| a != b)
        .collect()
}

fn top_of(m: &str) -> &str {
    m.split("::").next().unwrap_or(m)
}

/// Every way the edges break the layers: an unlisted module, an edge to a
/// higher layer, a cycle.
fn problems(edges: &BTreeSet<(String, String)>, layers: &BTreeMap<String, u32>) -> Vec<String> {
    let mut out = Vec::new();
    for (a, b) in edges {
        let (ta, tb) = (top_of(a), top_of(b));
        if ta == tb {
            continue;
        }
        match (layers.get(ta), layers.get(tb)) {
            (Some(la), Some(lb)) if lb > la => out.push(format!(
                "{a} (layer {la}) uses {b} (layer {lb}), a higher layer"
            )),
            (None, _) => out.push(format!("{ta} is in no layer of the crate docs")),
            (_, None) => out.push(format!("{tb} is in no layer of the crate docs")),
            _ => {}
        }
    }
    // Cycles: a module that reaches itself.
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    for start in next.keys() {
        let mut seen = BTreeSet::new();
        let mut stack = vec![(*start, vec![*start])];
        while let Some((m, path)) = stack.pop() {
            for &n in next.get(m).into_iter().flatten() {
                if n == *start {
                    // Each cycle once: told from its least module.
                    if path.iter().all(|m| m >= start) {
                        let mut cycle = path.clone();
                        cycle.push(n);
                        out.push(format!("cycle: {}", cycle.join(" -> ")));
                    }
                } else if seen.insert(n) {
                    let mut p = path.clone();
                    p.push(n);
                    stack.push((n, p));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn read_sources(dir: &Path, base: &Path, out: &mut Vec<File>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_sources(&p, base, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let path = p
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(File {
                path,
                text: std::fs::read_to_string(&p).unwrap(),
            });
        }
    }
}

#[test]
fn the_crate_s_modules_keep_to_the_layers_its_docs_list() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_sources(&src, &src, &mut files);
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let layers = layers(&lib);
    assert!(
        layers.len() >= 10,
        "the crate docs list too few modules: {layers:?}"
    );
    let edges = edges(&files, &re_exports(&lib));
    // The checker sees the crate's real edges.
    assert!(edges.contains(&("read".to_string(), "scan".to_string())));
    let found = problems(&edges, &layers);
    assert!(found.is_empty(), "layer problems:\n{}", found.join("\n"));
}

fn file(path: &str, text: &str) -> File {
    File {
        path: path.into(),
        text: text.into(),
    }
}

#[test]
fn test_modules_and_strings_do_not_count() {
    let code = "fn f() { let s = \"crate::tree\"; }\n#[cfg(test)]\nmod tests { use crate::tree::X; fn g() { if x { } } }\nuse crate::scan::Y;\n";
    assert_eq!(paths_after(&strip_comments(code), "crate::"), ["scan"]);
}

const LIB: &str = "//! 1. `scan`: lines\n//! 2. `read`, `input`: events\n//! 3. `tree`: trees\npub use read::{Reader, Event};\n";

#[test]
fn the_checker_finds_an_edge_to_a_higher_layer() {
    let files = [
        file("scan/mod.rs", "use crate::read::Reader; // upward\n"),
        file("read/mod.rs", "fn f() {}\n"),
    ];
    let found = problems(&edges(&files, &re_exports(LIB)), &layers(LIB));
    assert_eq!(
        found,
        ["scan (layer 1) uses read (layer 2), a higher layer"]
    );
}

#[test]
fn the_checker_finds_an_edge_through_a_root_re_export_and_ignores_comments() {
    let files = [
        file(
            "scan/mod.rs",
            "// crate::tree::x in a comment\nfn f() -> crate::Event { todo!() }\n/* crate::tree */",
        ),
        file("tree/mod.rs", "use crate::{scan, read::{Reader, Event}};\n"),
    ];
    let edges = edges(&files, &re_exports(LIB));
    let want: BTreeSet<(String, String)> = [("scan", "read"), ("tree", "read"), ("tree", "scan")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(edges, want);
    assert_eq!(problems(&edges, &layers(LIB)).len(), 1);
}

#[test]
fn the_checker_finds_a_cycle_between_modules_and_between_the_files_of_one() {
    let files = [
        file("read/mod.rs", "use crate::input::Info;\n"),
        file("input.rs", "use crate::read::Reader;\n"),
        file("tree/schema.rs", "use super::types::StructureType;\n"),
        file("tree/types.rs", "use crate::tree::schema::Schema;\n"),
    ];
    let found = problems(&edges(&files, &re_exports(LIB)), &layers(LIB));
    assert!(
        found.contains(&"cycle: input -> read -> input".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"cycle: tree::schema -> tree::types -> tree::schema".to_string()),
        "{found:?}"
    );
}

#[test]
fn an_unlisted_module_is_a_problem() {
    let files = [file("extra.rs", "use crate::scan::Lines;\n")];
    let found = problems(&edges(&files, &re_exports(LIB)), &layers(LIB));
    assert_eq!(found, ["extra is in no layer of the crate docs"]);
}
