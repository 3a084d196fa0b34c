//! The editor with no changes gives back every input octet for octet: every file of
//! `corpus/` and `../shared/corpus/` (errors or not), in every encoding it can be
//! converted to, and inputs with ERROR structures; with changes, only the changed lines
//! differ.

mod write_common;

use gedcom_elf::edit::{edit, Action, EditRules};
use gedcom_elf::write::{rewrite, LineEnding, WriterConfig};
use gedcom_elf::Encoding;
use write_common::corpus_files;

fn unchanged(input: &[u8]) -> Result<Vec<u8>, gedcom_elf::edit::EditError> {
    let mut out = Vec::new();
    edit(input, None, &mut out, |_| Action::Keep)?;
    Ok(out)
}

#[test]
fn corpus_files_come_back_identical() {
    let mut n = 0;
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        match unchanged(&bytes) {
            Ok(out) => assert!(out == bytes, "{}: output differs", path.display()),
            Err(e) => eprintln!("{}: not edited: {e}", path.display()),
        }
        n += 1;
        // The same file in other encodings and line endings (when it converts).
        for (enc, le) in [
            (Encoding::Utf16Le, LineEnding::CrLf),
            (Encoding::Utf16Be, LineEnding::Cr),
            (Encoding::Ansel, LineEnding::Lf),
            (Encoding::Windows1252, LineEnding::CrLf),
            (Encoding::Ascii, LineEnding::Lf),
        ] {
            let mut converted = Vec::new();
            let config = WriterConfig::new().encoding(enc).line_ending(le);
            if rewrite(&bytes, None, config, &mut converted).is_err() {
                continue;
            }
            let out = unchanged(&converted).unwrap();
            assert!(
                out == converted,
                "{} as {enc}: output differs",
                path.display()
            );
        }
    }
    assert!(n > 10);
}

#[test]
fn inputs_with_errors_come_back_identical() {
    let inputs: &[&[u8]] = &[
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n2 PLAC x\n3 ROMN y\n1 NAME Ivan IV\n0 TRLR\n",
        b"0 HEAD\nunexpected content\n0 TRLR\n",
        b"0 HEAD\n  \t1 ERROR x \r\n2 CONT y\r\n\r\n0 @N1@ NOTE t\n1 SOUR @S1@\n1 CONT stray\n0 TRLR\n1 AFTER\n",
        b"0 HEAD\n1 CHAR ANSEL\n1 NOTE \xE2e\xFF\x80\n0 TRLR",
        b"0 HEAD\n1 CHAR UTF-8\n1 NOTE \xC3\x28 bad utf-8 \xED\xA0\x80\n0 TRLR\n",
        b"0 HEAD\n1 CHAR ASCII\n1 NOTE \xE9 \0 nul\n0 TRLR\n",
        b"\xEF\xBB\xBF0 HEAD\r1 CHAR UTF-8\r1 @X@ CONT x\r0 @@ INDI\r0 TRLR\r",
        b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n1 NOTE \xF5\x81\n0 TRLR\n",
    ];
    for input in inputs {
        assert_eq!(unchanged(input).unwrap(), *input);
    }
}

#[test]
fn drop_and_rename_change_only_their_lines() {
    let input = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 _UID 1\r\n1 NAME A\r\n1 FAMC @F1@\r\n2 _FREL x\r\n3 _SUB y\r\n2 PEDI birth\r\n0 TRLR\r\n";
    let rules = EditRules::new()
        .drop_tag("_UID")
        .drop_tag("_FREL")
        .rename_tag("PEDI", "_PEDI");
    let mut out = Vec::new();
    let stats = edit(input, None, &mut out, |b| rules.action(b)).unwrap();
    assert_eq!(
        out,
        b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME A\r\n1 FAMC @F1@\r\n2 _PEDI birth\r\n0 TRLR\r\n"
    );
    assert_eq!((stats.dropped, stats.renamed), (2, 1));
}
