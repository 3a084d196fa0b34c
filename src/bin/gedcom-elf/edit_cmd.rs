//! `edit FILE [--drop-tag TAG]... [--rename-tag OLD=NEW]... [--encoding NAME] [-o OUT]`:
//! the byte-exact editor.

use std::io::Write;
use std::process::ExitCode;

use gedcom_elf::edit::{edit, EditRules};
use gedcom_elf::Encoding;

use crate::drive::Progress;

fn valid_tag(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn parse(args: &[String]) -> Result<(String, Option<String>, Option<Encoding>, EditRules), String> {
    let mut rules = EditRules::new();
    let mut file = None;
    let mut output = None;
    let mut encoding = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" => output = Some(it.next().ok_or("-o needs a file")?.clone()),
            "--drop-tag" => {
                let t = it.next().ok_or("--drop-tag needs a TAG")?;
                if !valid_tag(t) {
                    return Err(format!("invalid tag {t:?}"));
                }
                rules = rules.drop_tag(t.clone());
            }
            "--rename-tag" => {
                let spec = it.next().ok_or("--rename-tag needs OLD=NEW")?;
                let (old, new) = spec
                    .split_once('=')
                    .ok_or_else(|| format!("--rename-tag wants OLD=NEW, not {spec:?}"))?;
                if !valid_tag(old) || !valid_tag(new) || new == "CONT" || new == "CONC" {
                    return Err(format!("invalid rename {spec:?}"));
                }
                rules = rules.rename_tag(old, new);
            }
            "--encoding" => {
                let name = it.next().ok_or("--encoding needs a NAME")?;
                encoding = Some(
                    Encoding::from_name(name)
                        .ok_or_else(|| format!("unknown encoding {name:?}"))?,
                );
            }
            "-" => file = Some(a.clone()),
            s if s.starts_with('-') => return Err(format!("unknown option {s:?}")),
            s => {
                if file.replace(s.to_string()).is_some() {
                    return Err("more than one FILE given".into());
                }
            }
        }
    }
    Ok((file.ok_or("missing FILE")?, output, encoding, rules))
}

/// `edit`.
pub fn run(args: &[String]) -> ExitCode {
    let (file, output, encoding, rules) = match parse(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("gedcom-elf edit: {e}\n\n{}", crate::USAGE);
            return ExitCode::from(2);
        }
    };
    let input = match crate::convert_cmd::load(&file) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{file}: error: cannot read: {e}");
            return ExitCode::from(2);
        }
    };
    let progress = Progress::new(Some(input.bytes.bytes().len() as u64));
    let mut out = match crate::convert_cmd::open_output(output.as_deref(), Some(progress.bar())) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gedcom-elf: error: cannot create output: {e}");
            return ExitCode::from(2);
        }
    };
    let edited = edit(input.bytes.bytes(), encoding, &mut out, |b| rules.action(b));
    progress.finish();
    match edited {
        Ok(stats) => {
            eprintln!(
                "{}: {} structures, {} dropped, {} renamed",
                input.name, stats.structures, stats.dropped, stats.renamed
            );
            crate::convert_cmd::flushed(out.flush())
        }
        Err(e) => {
            let _ = out.flush();
            eprintln!("{}: error: {e}", input.name);
            ExitCode::from(2)
        }
    }
}
