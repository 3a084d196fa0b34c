//! Running the built binary, for the tests of the command line.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary, as a command to add arguments to.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gedcom-elf"))
}

/// Runs the binary with `args`, `stdin` fed from a thread (the child may
/// fill its stdout pipe first, or never read its stdin), and waits.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let bytes = stdin.unwrap_or_default().to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// Runs the binary with `args` and standard input redirected from `file`
/// (`< FILE`: a regular file, read from where it stands), and waits.
pub fn run_from_file(args: &[&str], file: std::fs::File) -> Output {
    bin().args(args).stdin(Stdio::from(file)).output().unwrap()
}

/// Writes `bytes` to the file `name` in `CARGO_TARGET_TMPDIR`'s directory
/// `dir` (made if need be); gives its path.
pub fn temp_file(dir: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A path as the `&str` an argument list takes.
pub fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}
