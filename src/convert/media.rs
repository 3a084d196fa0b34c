//! A GEDZIP's media (feature `gedzip`): the `FILE` payloads of a converted
//! record that name local files, looked up beside the input (or in the
//! archive it came from), rewritten to name their archive entry when they
//! do not, and listed for the archive; the ones not found, absolute paths
//! and `file:` URLs reported as not carried.

use crate::gedzip::{classify_path, file_path_of, FilePath, MediaFiles, GEDCOM_ENTRY};

use super::{CNode, ConvertReport};

/// One media file to put in the archive: its name where it is found, and
/// its entry's name (the same but for a file named `gedcom.ged`).
pub(super) type Carried = (String, String);

const NOT_FOUND: &str =
    "a local media file not found beside the input: not in the archive, the path left as is";
const ABSOLUTE: &str = "an absolute media path: left as is, not put in the archive";
const FILE_URL: &str = "a file: URL: left as is, not put in the archive";
const OUTSIDE: &str =
    "a media path outside the input's directory (.., a query or fragment): left as is, not put in the archive";
/// The reason given for an input archive's entry no `FILE` names.
pub(super) const UNNAMED: &str = "an entry of the input archive no FILE names: not in the archive";

/// The `FILE` payloads of `record` (7.0 output: under `OBJE`, or `_OBJE`,
/// a 5.5.1 embedded object kept as an extension where 7.0 has no `OBJE`
/// (an embedded object elsewhere is an `OBJE` record by now), and their
/// `TRAN`s, or
/// `_TRAN`s, a 7.0 `TRAN` that went through 5.5.1):
/// each local one found in `files` named as its entry and pushed on
/// `carried`, the others reported. `legacy`: the input was 5.5.1 (its
/// paths plain file names, `\` a separator).
pub(super) fn media_paths(
    record: &mut CNode,
    files: &MediaFiles,
    legacy: bool,
    carried: &mut Vec<Carried>,
    report: &mut ConvertReport,
) {
    let mut path = record.tag.clone();
    walk(record, files, legacy, &mut path, carried, report);
}

fn walk(
    n: &mut CNode,
    files: &MediaFiles,
    legacy: bool,
    path: &mut String,
    carried: &mut Vec<Carried>,
    report: &mut ConvertReport,
) {
    let object = n.tag == "OBJE" || n.tag == "_OBJE";
    for c in &mut n.children {
        let len = path.len();
        path.push('.');
        path.push_str(&c.tag);
        if object && c.tag == "FILE" {
            one(c, files, legacy, path, carried, report);
            for t in c
                .children
                .iter_mut()
                .filter(|t| t.tag == "TRAN" || t.tag == "_TRAN")
            {
                let len = path.len();
                path.push('.');
                path.push_str(&t.tag);
                one(t, files, legacy, path, carried, report);
                path.truncate(len);
            }
        } else if !c.children.is_empty() {
            walk(c, files, legacy, path, carried, report);
        }
        path.truncate(len);
    }
}

/// One `FILE` (or `FILE.TRAN`) payload.
fn one(
    n: &mut CNode,
    files: &MediaFiles,
    legacy: bool,
    path: &str,
    carried: &mut Vec<Carried>,
    report: &mut ConvertReport,
) {
    if n.pointer {
        return;
    }
    let Some(payload) = n.value.as_deref().filter(|p| !p.is_empty()) else {
        return;
    };
    let why = match classify_path(payload, legacy) {
        FilePath::Url
            if payload
                .get(..5)
                .is_some_and(|s| s.eq_ignore_ascii_case("file:")) =>
        {
            FILE_URL
        }
        FilePath::Url => return,
        FilePath::Absolute => ABSOLUTE,
        FilePath::Outside => OUTSIDE,
        FilePath::Local(names) => match names.into_iter().find(|m| files.contains(m)) {
            Some(name) => {
                let entry = entry_of(&name, files);
                let named = matches!(classify_path(payload, false),
                    FilePath::Local(m) if m.first() == Some(&entry));
                if !named {
                    n.value = Some(file_path_of(&entry));
                    report.changed("FILE path made its GEDZIP entry's name");
                }
                carried.push((name, entry));
                return;
            }
            None => NOT_FOUND,
        },
    };
    report.not_carried.add(path, why, n.line);
}

/// The entry a file found as `name` gets: `name`, but `gedcom.ged` (the
/// dataset's) renamed `gedcom-N.ged`, the first N no file has.
fn entry_of(name: &str, files: &MediaFiles) -> String {
    if name != GEDCOM_ENTRY {
        return name.to_string();
    }
    (1u64..)
        .map(|k| format!("gedcom-{k}.ged"))
        .find(|c| !files.contains(c))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_found_rewritten_missing_and_absolute_reported() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("photos")).unwrap();
        std::fs::write(dir.join("photos/a b.jpg"), b"x").unwrap();
        std::fs::write(dir.join("gedcom.ged"), b"y").unwrap();
        let files = MediaFiles::directory(&dir);
        let file = |p: &str| CNode::text("FILE", p);
        let mut obje = CNode {
            tag: "OBJE".into(),
            children: vec![
                file("photos\\a b.jpg"),
                file("missing.jpg"),
                file("C:\\x.jpg"),
                file("https://example.com/x.jpg"),
                file("gedcom.ged"),
            ],
            ..CNode::default()
        };
        let (mut carried, mut report) = (Vec::new(), ConvertReport::default());
        media_paths(&mut obje, &files, true, &mut carried, &mut report);
        let values: Vec<_> = obje.children.iter().map(CNode::text_value).collect();
        assert_eq!(
            values,
            [
                "photos/a%20b.jpg",
                "missing.jpg",
                "C:\\x.jpg",
                "https://example.com/x.jpg",
                "gedcom-1.ged"
            ]
        );
        assert_eq!(
            carried,
            [
                ("photos/a b.jpg".to_string(), "photos/a b.jpg".to_string()),
                ("gedcom.ged".to_string(), "gedcom-1.ged".to_string())
            ]
        );
        let reasons: Vec<_> = report.not_carried.entries().map(|e| e.reason).collect();
        assert_eq!(reasons, [NOT_FOUND, ABSOLUTE]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "gedcom-elf-media-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
