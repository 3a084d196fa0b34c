//! The seed's own examples (ELF serialisation draft, seed 001), read through
//! the library API.

mod common;
use common::{begins, render};

fn doc(body: &str) -> Vec<u8> {
    format!("0 HEAD\n{body}0 TRLR\n").into_bytes()
}

#[test]
fn charlemagne_minimal_file() {
    let input = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 ELF 1.0.0\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 INDI\n1 NAME Charlemagne\n0 TRLR\n";
    assert_eq!(
        render(input),
        [
            "+0 HEAD",
            "+1 GEDC",
            "+2 VERS \"5.5.1\"",
            "-2 VERS",
            "+2 ELF \"1.0.0\"",
            "-2 ELF",
            "+2 FORM \"LINEAGE-LINKED\"",
            "-2 FORM",
            "-1 GEDC",
            "+1 CHAR \"UTF-8\"",
            "-1 CHAR",
            "-0 HEAD",
            "+0 INDI",
            "+1 NAME \"Charlemagne\"",
            "-1 NAME",
            "-0 INDI",
            "+0 TRLR",
            "-0 TRLR",
        ]
    );
}

#[test]
fn cleopatra_xref_and_pointer() {
    let b = begins(&doc("0 @I1@ INDI\n1 NAME Cleopatra\n1 FAMC @F2@\n"));
    assert_eq!(
        b[1..4],
        ["+0 INDI @I1@", "+1 NAME \"Cleopatra\"", "+1 FAMC =@F2@"]
    );
}

#[test]
fn lincoln_cont_does_not_count_for_the_previous_level() {
    let b = begins(&doc(
        "0 INDI\n1 NOTE The 16th President of the United States.\n2 CONT Assassinated by John Wilkes Booth.\n",
    ));
    assert_eq!(
        b[2],
        "+1 NOTE \"The 16th President of the United States.\\nAssassinated by John Wilkes Booth.\""
    );
    assert_eq!(b.last().unwrap(), "+0 TRLR");
}

#[test]
fn too_deep_lines_and_the_cont_that_is_too_deep() {
    let r = render(&doc(
        "0 @S1@ SOUR\n2 NOTE text\n0 @N1@ NOTE This is text\n1 CONT more text\n2 CONT still more text\n",
    ));
    assert_eq!(
        r,
        [
            "+0 HEAD",
            "-0 HEAD",
            "+0 SOUR @S1@",
            "+1 ERROR \"2 NOTE text\"",
            "-1 ERROR",
            "-0 SOUR",
            "+0 NOTE @N1@ \"This is text\\nmore text\"",
            "+1 ERROR \"2 CONT still more text\"",
            "-1 ERROR",
            "-0 NOTE",
            "+0 TRLR",
            "-0 TRLR",
            "!3 too-deep",
            "!6 too-deep",
        ]
    );
}

#[test]
fn unexpected_content_becomes_an_error_line() {
    let r = render(b"0 HEAD\nunexpected content\n0 TRLR\n");
    assert_eq!(
        r,
        [
            "+0 HEAD",
            "+1 ERROR \"unexpected content\"",
            "-1 ERROR",
            "-0 HEAD",
            "+0 TRLR",
            "-0 TRLR",
            "!2 unparsable-line",
        ]
    );
}

#[test]
fn elizabeth_nesting() {
    let r = render(&doc(
        "0 @I1@ INDI\n1 NAME Elizabeth\n1 BIRT\n2 DATE 21 APR 1926\n",
    ));
    assert_eq!(
        r[2..12],
        [
            "+0 INDI @I1@",
            "+1 NAME \"Elizabeth\"",
            "-1 NAME",
            "+1 BIRT",
            "+2 DATE \"21 APR 1926\"",
            "-2 DATE",
            "-1 BIRT",
            "-0 INDI",
            "+0 TRLR",
            "-0 TRLR",
        ]
    );
}

#[test]
fn moscow_too_deep_line_keeps_its_substructures() {
    let r = render(&doc(
        "0 @I1@ INDI\n2 PLAC Москва\n3 ROMN Moscow\n1 NAME Ivan IV\n",
    ));
    assert_eq!(
        r[2..10],
        [
            "+0 INDI @I1@",
            "+1 ERROR \"2 PLAC Москва\"",
            "+2 ROMN \"Moscow\"",
            "-2 ROMN",
            "-1 ERROR",
            "+1 NAME \"Ivan IV\"",
            "-1 NAME",
            "-0 INDI",
        ]
    );
    assert_eq!(r.last().unwrap(), "!3 too-deep");
}

#[test]
fn too_deep_line_keeps_its_xref_and_reserialises_with_single_spaces() {
    let b = begins(&doc("0 @I1@ INDI\n2\t@P1@   PLAC  x  y\n3 CONT z\n"));
    assert_eq!(b[2], "+1 ERROR @P1@ \"2 @P1@ PLAC  x  y\"");
    // Continuation lines under a too-deep line stay as children: nothing is lost.
    assert_eq!(b[3], "+2 CONT \"z\"");
    assert_eq!(b.iter().filter(|s| s.starts_with('!')).count(), 1);
}

#[test]
fn cont_attached_to_nothing() {
    let r = render(&doc(
        "0 @N1@ NOTE This is text\n1 SOUR @S1@\n1 CONT attached to nothing\n",
    ));
    assert_eq!(
        r[2..8],
        [
            "+0 NOTE @N1@ \"This is text\"",
            "+1 SOUR =@S1@",
            "-1 SOUR",
            "+1 CONT \"attached to nothing\"",
            "-1 CONT",
            "-0 NOTE",
        ]
    );
    assert_eq!(r.last().unwrap(), "!4 stray-continuation");
}

#[test]
fn note_split_with_cont_and_conc() {
    let one = begins(&doc(
        "0 @N@ NOTE\n1 NOTE This is a test\n2 CONT with one line break\n",
    ));
    let two = begins(&doc(
        "0 @N@ NOTE\n1 NOTE This i\n2 CONC s a test\n2 CONT with on\n2 CONC e line break\n",
    ));
    assert_eq!(one[2], "+1 NOTE \"This is a test\\nwith one line break\"");
    assert_eq!(one, two);
}

#[test]
fn at_sign_decomposition_table() {
    let rows = [
        ("name@example.com", "name@example.com"),
        ("name@@example.com", "name@example.com"),
        ("name@@@example.com", "name@@example.com"),
        ("name@@@@example.com", "name@@example.com"),
        ("some@#XYZ@ thing", "something"),
        ("some@@#XYZ@ thing", "some@#XYZ@ thing"),
        ("some@@@#XYZ@ thing", "some@thing"),
    ];
    for (raw, text) in rows {
        let b = begins(&doc(&format!("0 @N1@ NOTE {raw}\n")));
        assert_eq!(b[1], format!("+0 NOTE @N1@ {text:?}"), "{raw}");
    }
}

#[test]
fn date_keeps_d_escapes_note_drops_them() {
    let b = begins(&doc(
        "0 @I1@ INDI\n1 BIRT\n2 DATE ABT @#DJULIAN@ 1540\n2 NOTE ABT @#DJULIAN@ 1540\n",
    ));
    assert_eq!(b[3], "+2 DATE \"ABT @#DJULIAN@ 1540\"");
    assert_eq!(b[4], "+2 NOTE \"ABT 1540\"");
}

#[test]
fn emai_and_date_conc_example() {
    let b = begins(&doc(
        "0 @I1@ INDI\n1 EMAI name@example.com\n2 DATE @#DGREG\n3 CONC ORIAN@ 2 JAN 2019\n",
    ));
    assert_eq!(b[2], "+1 EMAI \"name@example.com\"");
    assert_eq!(b[3], "+2 DATE \"@#DGREGORIAN@ 2 JAN 2019\"");
}

#[test]
fn the_time_example_with_a_trailing_space() {
    // `2 DATE` is too deep; `3 TIME` nests under it; `@ TRLR` is unparsable.
    let r = begins(b"0 HEAD\n0 @I1@ INDI\n2 DATE 3 JUN 2019 \n3 TIME 01:15:00\n@ TRLR\n");
    assert_eq!(
        r,
        [
            "+0 HEAD",
            "+0 INDI @I1@",
            "+1 ERROR \"2 DATE 3 JUN 2019\"",
            "+2 TIME \"01:15:00\"",
            "+3 ERROR \"@ TRLR\"",
            "!3 too-deep",
            "!5 unparsable-line",
            "!5 missing-trlr",
        ]
    );
}
