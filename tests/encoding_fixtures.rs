//! The code-page fixtures of `corpus/enc-*.ged`: each holds characters outside ASCII in
//! one legacy encoding, named by its `CHAR` line (and `VERS`). The expected strings
//! are what the code-page definitions say those octets are.

mod encoding_support;

use encoding_support::{fixture, read, Read};
use gedcom_elf::{Encoding, EncodingSource, Input, Reader, ReaderConfig};

/// Reads a fixture through [`Input`] and, in place, through [`Reader::from_slice`];
/// both must agree. Checks the detection and that nothing was reported.
fn read_fixture(name: &str, want: Encoding, char_value: &str, char_line: usize) -> Read {
    let bytes = fixture(name);
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "{name} must not be valid UTF-8"
    );
    let input = Input::new(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let info = input.encoding_info();
    assert_eq!(info.encoding, want, "{name}");
    assert_eq!(info.source, EncodingSource::CharLine, "{name}");
    assert_eq!(info.char_value.as_deref(), Some(char_value), "{name}");
    assert_eq!(info.char_line, Some(char_line), "{name}");
    assert_eq!((info.bom_len, info.detected), (0, None), "{name}");
    assert!(info.warnings.is_empty(), "{name}: {:?}", info.warnings);
    // 8-bit input is borrowed as it is.
    assert_eq!(input.bytes(), &bytes[..]);
    let via_input = read(input.reader());
    assert_eq!(via_input.error, None, "{name}");
    assert!(
        via_input.diagnostics.is_empty(),
        "{name}: {:?}",
        via_input.diagnostics
    );
    let mut in_place = Reader::from_slice(&bytes);
    assert_eq!(in_place.encoding(), want);
    assert_eq!(in_place.encoding_info(), info);
    assert_eq!(in_place.next_event().map(|e| e.is_some()).ok(), Some(true));
    assert_eq!(read(Reader::from_slice(&bytes)), via_input, "{name}");
    via_input
}

#[test]
fn windows_1252() {
    let r = read_fixture("enc-windows-1252.ged", Encoding::Windows1252, "ANSI", 6);
    assert_eq!(
        r.texts_of("NAME"),
        [
            "José /Muñoz/",
            "Jürgen /Groß/",
            "Søren /Kierkegård/",
            "Šárka /Œhlenschläger/",
        ]
    );
    assert_eq!(r.texts_of("PLAC"), ["Besançon, Franche-Comté, France"]);
    // 80-9F are the windows-1252 typographic characters; CONC joins in mid-word.
    assert_eq!(
        r.texts_of("NOTE"),
        ["\u{201C}Née à Besançon\u{201D} \u{2014} 5 \u{20AC} \u{2026} 3\u{2030}\nŸvonne, Ðavid, Þór, ¿qué? ¡sí! ©®°±½"]
    );
}

#[test]
fn windows_1250_via_vers() {
    let r = read_fixture("enc-windows-1250.ged", Encoding::Windows1250, "ANSI", 6);
    assert_eq!(
        r.texts_of("NAME"),
        [
            "Antonín /Dvořák/",
            "Pál /Erdős/",
            "Łukasz /Żółć/",
            "Štefan /Ďurčo/"
        ]
    );
    assert_eq!(r.texts_of("PLAC"), ["Kraków, Małopolska, Polska"]);
    assert_eq!(
        r.texts_of("NOTE"),
        ["Žluťoučký kůň úpěl ďábelské ódy\nŢara Românească, Braşov, Hódmezővásárhely"]
    );
    // The same octets without the VERS line are windows-1252, which reads them otherwise.
    let bytes = fixture("enc-windows-1250.ged");
    let without_vers: Vec<u8> = {
        let at = bytes
            .windows(13)
            .position(|w| w == b"2 VERS 1250\r\n")
            .expect("the fixture has a VERS line");
        [&bytes[..at], &bytes[at + 13..]].concat()
    };
    let input = Input::new(&without_vers).unwrap();
    assert_eq!(input.encoding_info().encoding, Encoding::Windows1252);
    let r = read(input.reader());
    assert_eq!(r.texts_of("NAME")[0], "Antonín /Dvoøák/");
    assert_eq!(r.texts_of("NAME")[1], "Pál /Erdõs/");
}

#[test]
fn mac_roman() {
    let r = read_fixture("enc-macroman.ged", Encoding::MacRoman, "MACINTOSH", 6);
    assert_eq!(
        r.texts_of("NAME"),
        [
            "Käthe /Müller/",
            "Anders /Ångström/",
            "Œdipe /Straße/",
            "Inés /Peña/"
        ]
    );
    assert_eq!(r.texts_of("PLAC"), ["Çatalhöyük, Fjørtoft"]);
    assert_eq!(
        r.texts_of("NOTE"),
        ["\u{201C}quoted\u{201D} \u{2014} 5 \u{20AC} \u{2022} © \u{FB01}ne π \u{2248} 3.14 \u{221E}\nŸ ÿ \u{2030} \u{221A} \u{2211} \u{03A9}"]
    );
}

#[test]
fn ibm_437() {
    let r = read_fixture("enc-ibm437.ged", Encoding::Ibm437, "IBMPC", 6);
    assert_eq!(
        r.texts_of("NAME"),
        [
            "Björn /Ångström/",
            "Jürgen /Weiß/",
            "Ramón /Muñoz/",
            "François /Çelik/",
            "Renée /Öberg/",
        ]
    );
    assert_eq!(r.texts_of("PLAC"), ["Zürich, Schweiz"]);
    assert_eq!(
        r.texts_of("NOTE"),
        ["25°C ± 2, ¿sí? ¡Olé! «£ 5» ½ ¼\nα ß Σ µ \u{2554}\u{2550}\u{2557} \u{2591}\u{2592}\u{2593} ¥ \u{20A7} ƒ"]
    );
    // IBMPC with VERS 850 would be code page 850, where the same octets differ.
    let bytes = fixture("enc-ibm437.ged");
    let r850 = read(
        Input::with_encoding(&bytes, Some(Encoding::Ibm850))
            .unwrap()
            .reader(),
    );
    assert_eq!(r850.texts_of("NAME")[0], "Björn /Ångström/");
    assert_ne!(r850.texts_of("NOTE"), r.texts_of("NOTE"));
}

/// ANSEL marks precede their base letter; a mark that ends a line sits on the first
/// letter of the `CONC` continuation (ged4py #7).
#[test]
fn ansel_marks_across_conc() {
    let bytes = fixture("enc-ansel-conc.ged");
    let input = Input::new(&bytes).unwrap();
    assert_eq!(input.encoding_info().encoding, Encoding::Ansel);
    assert_eq!(input.encoding_info().char_line, Some(3));
    let nfc = read(input.reader());
    assert!(nfc.diagnostics.is_empty(), "{:?}", nfc.diagnostics);
    assert_eq!(nfc.texts_of("NAME"), ["René /Müller/"]);
    assert_eq!(
        nfc.texts_of("NOTE"),
        [
            "René and Björn\nDvořák",
            "stacked: Việt Nam, Brøderbund",
            // A mark before a line break has no base: it stays, bare, before the break.
            "bare at end\u{301}\nnext",
        ]
    );
    let decomposed = read(input.reader_with_config(ReaderConfig::new().decomposed(true)));
    assert_eq!(decomposed.texts_of("NAME"), ["Rene\u{301} /Mu\u{308}ller/"]);
    assert_eq!(
        decomposed.texts_of("NOTE"),
        [
            "Rene\u{301} and Bjo\u{308}rn\nDvor\u{30C}a\u{301}k",
            "stacked: Vie\u{323}\u{302}t Nam, Brøderbund",
            "bare at end\u{301}\nnext",
        ]
    );
    // In place, the same.
    assert_eq!(read(Reader::from_slice(&bytes)), nfc);
}
