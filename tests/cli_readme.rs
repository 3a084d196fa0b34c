//! The README's command reference is the binary's own `-h` text: this test
//! fails when they differ, and `UPDATE_README=1 cargo test --test
//! cli_readme` writes the current text into the README.

use std::process::Command;

const BEGIN: &str = "<!-- help:begin (generated: UPDATE_README=1 cargo test --test cli_readme) -->";
const END: &str = "<!-- help:end -->";

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_gedcom-elf"))
        .args(args)
        .arg("-h")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}");
    String::from_utf8(o.stdout).unwrap()
}

/// The section: the tool's help, then each command's.
fn section() -> String {
    let mut s = format!("{BEGIN}\n```text\n$ gedcom-elf -h\n{}```\n", help(&[]));
    for cmd in [
        "events",
        "stats",
        "count",
        "json",
        "gedcomx",
        "get",
        "edit",
        "fmt",
        "convert",
        "check",
        "table",
        "completions",
    ] {
        s += &format!("\n```text\n$ gedcom-elf {cmd} -h\n{}```\n", help(&[cmd]));
    }
    s + END
}

#[test]
fn the_readme_command_reference_is_the_help_text() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (Some(a), Some(b)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md has no {BEGIN} ... {END} section");
    };
    let now = &readme[a..b + END.len()];
    let want = section();
    if now == want {
        return;
    }
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{want}{}", &readme[..a], &readme[b + END.len()..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!("README.md's command reference is not the -h text; run UPDATE_README=1 cargo test --test cli_readme");
}
