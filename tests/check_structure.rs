//! The `check` validator's structure tables (`src/tables/*.tsv`): that
//! they are what `scripts/derive_structure_tables.py` derives from the specs,
//! and that the 5.5.1 table's tags in context agree with the default schema
//! the tree types structures with. (The rules themselves are unit-tested in
//! `src/check/structure.rs`: the checker has no public API yet.)

use std::path::PathBuf;
use std::process::Command;

use gedcom_elf::tree::Schema;

const ELF551: &str = include_str!("../src/tables/elf551.tsv");
const GEDCOM70: &str = include_str!("../src/tables/gedcom70.tsv");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `sub` rows of a table: (parent, tag, child, min, max).
fn subs(table: &str) -> Vec<(&str, &str, &str, &str, &str)> {
    table
        .lines()
        .filter_map(|l| match l.split('\t').collect::<Vec<_>>()[..] {
            ["sub", p, t, c, min, max] => Some((p, t, c, min, max)),
            _ => None,
        })
        .collect()
}

#[test]
fn tables_are_derived_from_the_specs() {
    let specs = root().join("../shared/specs");
    if !specs.join("elf/data-model.md").exists() || !specs.join("gedcom7").exists() {
        eprintln!("no specs at {}: skipped", specs.display());
        return;
    }
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gedcom-elf-structure-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let run = Command::new("python3")
        .arg(root().join("scripts/derive_structure_tables.py"))
        .arg(&specs)
        .arg(root().join("src/tree/default-schema.ged"))
        .arg(&out)
        .output();
    let Ok(run) = run else {
        eprintln!("no python3: skipped");
        return;
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for (name, committed) in [("elf551.tsv", ELF551), ("gedcom70.tsv", GEDCOM70)] {
        let derived = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(
            derived == committed,
            "src/tables/{name} is not what the script derives: rerun it"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn elf_tags_agree_with_the_default_schema() {
    let schema = Schema::default_schema();
    let iri = |t: &str| match t {
        "Document" => "https://terms.fhiso.org/elf/Document".to_string(),
        "Metadata" => "https://terms.fhiso.org/elf/Metadata".to_string(),
        t => format!("https://terms.fhiso.org/elf/{t}"),
    };
    let mut checked = 0;
    for (parent, tag, child, _, _) in subs(ELF551) {
        // The serialisation layer's own structures, TRLR, and the table's
        // departures (AGE in attributes, SOUR in note and multimedia
        // records) are not in the schema.
        if child == "Serialisation" || child == "TRLR" {
            continue;
        }
        if (child == "AGE_AT_EVENT" && tag == "AGE")
            || (child == "SOURCE_CITATION" && matches!(parent, "NOTE_RECORD" | "MULTIMEDIA_RECORD"))
        {
            // In events the schema has AGE too; elsewhere it has none.
            let t = schema.type_of(&iri(parent), tag).map(|t| t.to_string());
            assert!(
                t.as_ref()
                    .is_none_or(|t| *t == iri(child) || t.contains("/elf/Undefined")),
                "{parent} {tag}: {t:?}"
            );
            continue;
        }
        // HEAD is the metadata: the schema types it in its own way.
        if parent == "Document" && tag == "HEAD" {
            continue;
        }
        let got = schema.type_of(&iri(parent), tag).map(|t| t.to_string());
        assert_eq!(got, Some(iri(child)), "{parent} {tag}");
        checked += 1;
    }
    assert!(checked > 800, "{checked}");
}

#[test]
fn tables_are_well_formed() {
    for table in [ELF551, GEDCOM70] {
        let types: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix("type\t"))
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        let rows = subs(table);
        assert!(rows.len() > 800);
        for (p, t, c, min, max) in &rows {
            assert!(types.contains(p) && types.contains(c), "{p} {t} {c}");
            assert!(t
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
            assert!(matches!(*min, "0" | "1") && matches!(*max, "1" | "M"));
        }
        // One type per tag in each context.
        let mut keys: Vec<(&str, &str)> = rows.iter().map(|r| (r.0, r.1)).collect();
        keys.sort();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}
