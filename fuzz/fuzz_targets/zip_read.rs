//! Damaged and hostile zip archives through the GEDZIP and GEDCOM X file
//! readers: the input itself as an archive, and a real `.gedx` (its
//! document the input) with bytes changed where the input's first bytes
//! say. Nothing may panic or hang, a document is never read past its
//! limit, and an archive whose changes touched nothing reads back whole.
#![no_main]

use std::io::Cursor;

use gedcom_elf::gedcomx::gedx::{read_gedx_with, write_gedx, Manifest, ReadOptions};
use gedcom_elf::gedcomx::Format;
use gedcom_elf::gedzip::{list_gedzip, read_gedzip_with};
use libfuzzer_sys::fuzz_target;

const LIMIT: u64 = 1 << 16;

fn options() -> ReadOptions {
    ReadOptions {
        max_document: LIMIT,
        max_manifest: LIMIT,
        require_conformance: false,
    }
}

fuzz_target!(|data: &[u8]| {
    // The input as an archive, and as a manifest's text.
    if let Ok(gdz) = read_gedzip_with(Cursor::new(data), LIMIT) {
        assert!(gdz.gedcom.len() as u64 <= LIMIT);
    }
    let _ = list_gedzip(Cursor::new(data));
    if let Ok(doc) = read_gedx_with(Cursor::new(data), options()) {
        assert!(doc.bytes.len() as u64 <= LIMIT);
    }
    let _ = Manifest::parse(&String::from_utf8_lossy(data));

    // A real archive of the input, changed at up to four places.
    let Some((edits, document)) = data.split_at_checked(8) else {
        return;
    };
    let format = if edits[0] & 1 == 0 { Format::Json } else { Format::Xml };
    let zip = write_gedx(Cursor::new(Vec::new()), &mut &document[..], format, &[])
        .expect("writing to memory")
        .into_inner();
    let mut changed = zip.clone();
    for pair in edits.chunks(2) {
        let at = usize::from(u16::from_le_bytes([pair[0], pair[1]])) % changed.len();
        changed[at] ^= pair[1] | 1;
    }
    match read_gedx_with(Cursor::new(&changed), options()) {
        Ok(doc) => assert!(doc.bytes.len() as u64 <= LIMIT),
        Err(_) if changed == zip => panic!("an archive as written did not read"),
        Err(_) => {}
    }
    if document.len() as u64 <= LIMIT {
        let whole = read_gedx_with(Cursor::new(&zip), options()).expect("as written");
        assert_eq!(whole.bytes, document);
    }
    let _ = read_gedzip_with(Cursor::new(&changed), LIMIT);
});
