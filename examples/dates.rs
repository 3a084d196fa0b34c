//! Parses `DATE` payloads given as arguments (or a few samples) and prints
//! each one's reading: the canonical 5.5.1/ELF form, the GEDCOM 7 form and
//! the Julian day numbers it spans.
//!
//! `cargo run --example dates -- "ABT @#DJULIAN@ 1 MAR 1700/01"`

use gedcom_elf::value::Date;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let samples = [
        "ABT @#DJULIAN@ 1 MAR 1700/01",
        "FROM JULIAN 1670 TO 1800",
        "INT 25 JAN 1840 (le vingt-cinq janvier)",
        "@#DHEBREW@ 1 TSH 5760",
        "@#DFRENCH R@ 18 BRUM 8",
        "63 B.C.",
        "29 FEB 1900",
        "BET 1900 AND 1880",
        "ABT. 1880",
    ];
    let payloads: Vec<&str> = if args.is_empty() {
        samples.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    for payload in payloads {
        match Date::parse(payload) {
            Ok(date) => {
                let g7 = match date.gedcom7() {
                    Ok(g) => match g.phrase {
                        Some(p) => format!("{:?} + PHRASE {p:?}", g.payload),
                        None => format!("{:?}", g.payload),
                    },
                    Err(e) => format!("none ({e})"),
                };
                let jdn = match date.jdn_range() {
                    Some((a, b)) if a == b => format!("JDN {a}"),
                    Some((a, b)) => format!("JDN {a}..={b}"),
                    None => "no JDN".to_string(),
                };
                println!("{payload:?}\n  5.5.1: {date}\n  7.0:   {g7}\n  {jdn}");
            }
            Err(e) => println!("{payload:?}\n  error: {e} ({:?})", e.kind()),
        }
    }
}
