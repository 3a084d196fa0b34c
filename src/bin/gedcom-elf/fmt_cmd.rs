//! `fmt FILE [--input-encoding NAME] [-o OUT]`: the canonical form (UTF-8, LF, single
//! spaces, canonical CONC splits).

use std::process::ExitCode;

use gedcom_elf::write::WriterConfig;

/// `fmt`.
pub fn run(args: &[String]) -> ExitCode {
    match crate::convert_cmd::parse(args, false) {
        Ok(parsed) => crate::convert_cmd::rewrite_file(&parsed, WriterConfig::new()),
        Err(e) => {
            eprintln!("gedcom-elf fmt: {e}\n\n{}", crate::USAGE);
            ExitCode::from(2)
        }
    }
}
