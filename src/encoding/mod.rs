//! Character encodings: detecting the encoding of a GEDCOM / ELF octet stream and decoding
//! payloads to UTF-8.
//!
//! The module has three parts:
//!
//! * [`detect()`] looks at the start of the whole input and decides which [`Encoding`] it is in,
//!   following ELF §3.1 (byte-order marks and UTF-16 sniffing) and §3.2 (the `1 CHAR` line of
//!   the `HEAD` record), plus this project's table of implementation-defined `CHAR` values.
//! * [`decode_into`] turns the bytes of one payload (already joined from its `CONT`/`CONC`
//!   lines) into UTF-8. It never fails: bad input becomes U+FFFD (or what the rules of the
//!   encoding say) and every problem is reported through a callback as a [`DecodeProblem`].
//! * [`Utf16Decoder`] and [`utf16_to_utf8`] transcode UTF-16 input to UTF-8, in bounded chunks
//!   for streaming or in one go.
//!
//! # Conventions shared by every decoder
//!
//! * A NUL (U+0000) is decoded as U+0000 and reported as [`DecodeProblem::Nul`], whatever the
//!   encoding.
//! * Reports come in input order, one per occurrence; de-duplicating them (say, once per line)
//!   is the caller's business.
//! * Output is appended; what is already in `out` is never touched.
//! * Only ANSEL output is ever normalised (see [`DecodeOptions`]); text that arrives as
//!   Unicode (UTF-8, UTF-16) or through a code page is passed on as it is.

mod ansel;
mod codepage;
#[cfg(test)]
mod corpus_tests;
mod detect;
mod encode;
mod utf16;
mod utf8;

use std::fmt;

pub use detect::{detect, DetectError, Detection, EncodingSource};
pub use encode::{push_unicode_escape, Encoder};
pub use utf16::{utf16_to_utf8, Utf16Decoder};

/// A character encoding this crate can read.
///
/// The three encodings ELF requires (ASCII, ANSEL, UTF-8), UTF-16 in both byte orders, and
/// the legacy code pages that GEDCOM files are found in under implementation-defined `CHAR`
/// values (`ANSI`, `IBMPC`, `MACINTOSH`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-8 (`CHAR UTF-8`).
    Utf8,
    /// US-ASCII, the subset U+0001 to U+007F of UTF-8 (`CHAR ASCII`).
    Ascii,
    /// ANSEL (ANSI/NISO Z39.47) with the GEDCOM additions and the MARC-8 extras (`CHAR ANSEL`).
    Ansel,
    /// UTF-16, little endian (`CHAR UNICODE`).
    Utf16Le,
    /// UTF-16, big endian (`CHAR UNICODE`).
    Utf16Be,
    /// Windows code page 1250, Central European (`CHAR ANSI` with `VERS 1250`).
    Windows1250,
    /// Windows code page 1251, Cyrillic (`CHAR ANSI` with `VERS 1251`).
    Windows1251,
    /// Windows code page 1252, Western European (`CHAR ANSI`).
    Windows1252,
    /// Windows code page 1253, Greek (`CHAR ANSI` with `VERS 1253`).
    Windows1253,
    /// Windows code page 1254, Turkish (`CHAR ANSI` with `VERS 1254`).
    Windows1254,
    /// Windows code page 1255, Hebrew (`CHAR ANSI` with `VERS 1255`).
    Windows1255,
    /// Windows code page 1256, Arabic (`CHAR ANSI` with `VERS 1256`).
    Windows1256,
    /// Windows code page 1257, Baltic (`CHAR ANSI` with `VERS 1257`).
    Windows1257,
    /// Windows code page 1258, Vietnamese (`CHAR ANSI` with `VERS 1258`).
    Windows1258,
    /// IBM PC code page 437, the original DOS code page (`CHAR IBMPC`).
    Ibm437,
    /// IBM PC code page 850, DOS Western European (`CHAR IBMPC` with `VERS 850`).
    Ibm850,
    /// Mac OS Roman (`CHAR MACINTOSH`).
    MacRoman,
}

/// Every encoding, in declaration order (handy for tests and for listing CLI choices).
pub const ALL_ENCODINGS: [Encoding; 17] = [
    Encoding::Utf8,
    Encoding::Ascii,
    Encoding::Ansel,
    Encoding::Utf16Le,
    Encoding::Utf16Be,
    Encoding::Windows1250,
    Encoding::Windows1251,
    Encoding::Windows1252,
    Encoding::Windows1253,
    Encoding::Windows1254,
    Encoding::Windows1255,
    Encoding::Windows1256,
    Encoding::Windows1257,
    Encoding::Windows1258,
    Encoding::Ibm437,
    Encoding::Ibm850,
    Encoding::MacRoman,
];

impl Encoding {
    /// The canonical lowercase name: `"utf-8"`, `"ascii"`, `"ansel"`, `"utf-16le"`,
    /// `"utf-16be"`, `"windows-1250"` ... `"windows-1258"`, `"ibm437"`, `"ibm850"`,
    /// `"macintosh"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Ascii => "ascii",
            Encoding::Ansel => "ansel",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
            Encoding::Windows1250 => "windows-1250",
            Encoding::Windows1251 => "windows-1251",
            Encoding::Windows1252 => "windows-1252",
            Encoding::Windows1253 => "windows-1253",
            Encoding::Windows1254 => "windows-1254",
            Encoding::Windows1255 => "windows-1255",
            Encoding::Windows1256 => "windows-1256",
            Encoding::Windows1257 => "windows-1257",
            Encoding::Windows1258 => "windows-1258",
            Encoding::Ibm437 => "ibm437",
            Encoding::Ibm850 => "ibm850",
            Encoding::MacRoman => "macintosh",
        }
    }

    /// Looks an encoding up by name, for a command-line `--encoding NAME`.
    ///
    /// Case is ignored, as are leading and trailing spaces, and runs of spaces or tabs inside
    /// count as one space. Accepted:
    ///
    /// * every canonical [`name`](Self::name);
    /// * the `CHAR` values and their project aliases: `ASCII`, `ANSEL`, `UTF-8`, `UTF8`,
    ///   `ANSI`, `WINDOWS`, `ANSI WINDOWS`, `ISO-8859-1`, `LATIN1` (all windows-1252),
    ///   `IBMPC`, `IBM PC`, `MSDOS`, `IBM DOS` (ibm437), `MACINTOSH`, `MAC` (Mac Roman);
    /// * common spellings: `us-ascii`, `utf16le`, `utf16be`, `cp1250` ... `cp1258`,
    ///   `cp437`, `cp850`, `ibm-437`, `ibm-850`, `macroman`, `mac-roman`, `x-mac-roman`.
    ///
    /// `UNICODE`, `UTF-16` and `UTF16` give `None`: they do not say which byte order is
    /// meant, so a caller must name `utf-16le` or `utf-16be` (a file with a byte-order mark
    /// needs no `--encoding` at all).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Encoding> {
        let key = normalise_whitespace(name).to_ascii_lowercase();
        let enc = match key.as_str() {
            "utf-8" | "utf8" => Encoding::Utf8,
            "ascii" | "us-ascii" => Encoding::Ascii,
            "ansel" => Encoding::Ansel,
            "utf-16le" | "utf16le" => Encoding::Utf16Le,
            "utf-16be" | "utf16be" => Encoding::Utf16Be,
            "windows-1250" | "cp1250" => Encoding::Windows1250,
            "windows-1251" | "cp1251" => Encoding::Windows1251,
            "windows-1252" | "cp1252" | "ansi" | "windows" | "ansi windows" | "iso-8859-1"
            | "latin1" => Encoding::Windows1252,
            "windows-1253" | "cp1253" => Encoding::Windows1253,
            "windows-1254" | "cp1254" => Encoding::Windows1254,
            "windows-1255" | "cp1255" => Encoding::Windows1255,
            "windows-1256" | "cp1256" => Encoding::Windows1256,
            "windows-1257" | "cp1257" => Encoding::Windows1257,
            "windows-1258" | "cp1258" => Encoding::Windows1258,
            "ibm437" | "ibm-437" | "cp437" | "ibmpc" | "ibm pc" | "msdos" | "ibm dos" => {
                Encoding::Ibm437
            }
            "ibm850" | "ibm-850" | "cp850" => Encoding::Ibm850,
            "macintosh" | "mac" | "macroman" | "mac-roman" | "x-mac-roman" => Encoding::MacRoman,
            _ => return None,
        };
        Some(enc)
    }

    /// What a writer puts on the `1 CHAR` line for this encoding: `"UTF-8"`, `"ASCII"`,
    /// `"ANSEL"`, `"UNICODE"` (both UTF-16 forms), `"ANSI"` (every windows-125x; a writer adds
    /// `2 VERS 125N` for anything but 1252), `"IBMPC"` (437 and 850; `2 VERS 850` for the
    /// latter), `"MACINTOSH"`. See [`Encoding::vers`] for the `VERS` line.
    #[must_use]
    pub fn char_value(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Ascii => "ASCII",
            Encoding::Ansel => "ANSEL",
            Encoding::Utf16Le | Encoding::Utf16Be => "UNICODE",
            Encoding::Windows1250
            | Encoding::Windows1251
            | Encoding::Windows1252
            | Encoding::Windows1253
            | Encoding::Windows1254
            | Encoding::Windows1255
            | Encoding::Windows1256
            | Encoding::Windows1257
            | Encoding::Windows1258 => "ANSI",
            Encoding::Ibm437 | Encoding::Ibm850 => "IBMPC",
            Encoding::MacRoman => "MACINTOSH",
        }
    }

    /// The payload of the `2 VERS` line a writer puts under the `1 CHAR` line, for an
    /// encoding the [`char_value`](Self::char_value) alone does not name: the code page
    /// number of windows-1250, -1251 and -1253 to -1258 (`"1250"` ...; `CHAR ANSI` alone
    /// means windows-1252) and of IBM 850 (`"850"`; `CHAR IBMPC` alone means IBM 437).
    /// `None` for every other encoding, which needs no `VERS` line. Encoding detection
    /// reads the same table the other way (`CHAR ANSI` with `VERS 1250` is windows-1250).
    ///
    /// ```
    /// use gedcom_elf::Encoding;
    ///
    /// assert_eq!(Encoding::Windows1250.vers(), Some("1250"));
    /// assert_eq!(Encoding::Ibm850.vers(), Some("850"));
    /// assert_eq!(Encoding::Windows1252.vers(), None);
    /// assert_eq!(Encoding::Utf8.vers(), None);
    /// ```
    #[must_use]
    pub fn vers(self) -> Option<&'static str> {
        Some(match self {
            Encoding::Windows1250 => "1250",
            Encoding::Windows1251 => "1251",
            Encoding::Windows1253 => "1253",
            Encoding::Windows1254 => "1254",
            Encoding::Windows1255 => "1255",
            Encoding::Windows1256 => "1256",
            Encoding::Windows1257 => "1257",
            Encoding::Windows1258 => "1258",
            Encoding::Ibm850 => "850",
            Encoding::Utf8
            | Encoding::Ascii
            | Encoding::Ansel
            | Encoding::Utf16Le
            | Encoding::Utf16Be
            | Encoding::Windows1252
            | Encoding::Ibm437
            | Encoding::MacRoman => return None,
        })
    }

    /// The encoding whose [`char_value`](Self::char_value) is `char_value` and whose
    /// [`vers`](Self::vers) is `vers` (exact, upper case), if any.
    pub(crate) fn from_char_and_vers(char_value: &str, vers: &str) -> Option<Encoding> {
        ALL_ENCODINGS
            .into_iter()
            .find(|e| e.vers() == Some(vers) && e.char_value() == char_value)
    }

    /// True for [`Encoding::Utf16Le`] and [`Encoding::Utf16Be`], the only encodings here that
    /// are not ASCII-compatible (a line break is two octets).
    #[must_use]
    pub fn is_utf16(self) -> bool {
        matches!(self, Encoding::Utf16Le | Encoding::Utf16Be)
    }

    /// The `encoding_rs` encoding behind the windows code pages and Mac Roman.
    fn encoding_rs(self) -> Option<&'static encoding_rs::Encoding> {
        Some(match self {
            Encoding::Windows1250 => encoding_rs::WINDOWS_1250,
            Encoding::Windows1251 => encoding_rs::WINDOWS_1251,
            Encoding::Windows1252 => encoding_rs::WINDOWS_1252,
            Encoding::Windows1253 => encoding_rs::WINDOWS_1253,
            Encoding::Windows1254 => encoding_rs::WINDOWS_1254,
            Encoding::Windows1255 => encoding_rs::WINDOWS_1255,
            Encoding::Windows1256 => encoding_rs::WINDOWS_1256,
            Encoding::Windows1257 => encoding_rs::WINDOWS_1257,
            Encoding::Windows1258 => encoding_rs::WINDOWS_1258,
            Encoding::MacRoman => encoding_rs::MACINTOSH,
            _ => return None,
        })
    }
}

impl fmt::Display for Encoding {
    /// Writes the canonical [`name`](Encoding::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A problem met while decoding. Decoding never fails; each problem is reported through the
/// caller's callback, once per occurrence, in input order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeProblem {
    /// UTF-8 input held an invalid sequence; it was replaced by U+FFFD (one per maximal
    /// invalid subpart, as `String::from_utf8_lossy` does).
    InvalidUtf8,
    /// UTF-8 input held a CESU-8 surrogate pair (`ED A0-AF xx ED B0-BF xx`); it was decoded to
    /// the character it stands for. ELF says a reader may do so but must warn.
    Cesu8,
    /// ASCII input held an octet 80-FF; it was decoded as windows-1252.
    NonAscii,
    /// ANSEL input held this octet, which ANSEL does not assign; it became U+FFFD.
    UnassignedAnsel(u8),
    /// UTF-16 input held a high surrogate without a low one after it, or a low surrogate
    /// without a high one before it; it became U+FFFD.
    UnpairedSurrogate,
    /// The input held a NUL (U+0000), which is no valid ELF character; it was kept as U+0000.
    Nul,
    /// Code-page input (windows-125x) held this octet, which the code page leaves unassigned;
    /// it became U+FFFD.
    UnmappedByte(u8),
    /// UTF-16 input ended in the middle of a code unit (an odd number of octets); the lone
    /// octet became U+FFFD.
    TruncatedUtf16,
}

impl fmt::Display for DecodeProblem {
    /// A short lowercase description, fit for a warning.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeProblem::InvalidUtf8 => f.write_str("invalid utf-8 sequence"),
            DecodeProblem::Cesu8 => f.write_str("cesu-8 surrogate pair in utf-8"),
            DecodeProblem::NonAscii => f.write_str("non-ascii octet in ascii text"),
            DecodeProblem::UnassignedAnsel(b) => write!(f, "unassigned ansel octet 0x{b:02x}"),
            DecodeProblem::UnpairedSurrogate => f.write_str("unpaired utf-16 surrogate"),
            DecodeProblem::Nul => f.write_str("nul character"),
            DecodeProblem::UnmappedByte(b) => {
                write!(f, "octet 0x{b:02x} is unassigned in the code page")
            }
            DecodeProblem::TruncatedUtf16 => f.write_str("utf-16 input ends in half a code unit"),
        }
    }
}

/// Options for [`decode_into`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Affects ANSEL only. `false` (the default): the output is in Unicode Normalisation Form
    /// C, so ANSEL `E2 65` gives `"é"` (U+00E9); canonical ordering may reorder stacked marks
    /// of different combining classes. `true`: no normalisation at all; each base character
    /// is followed by its combining marks in the order ANSEL gave them (`"e\u{301}"`), and the
    /// precomposed ANSEL specials (such as U+01A0 `Ơ`) stay precomposed, so this is not NFD
    /// but a faithful image of the ANSEL input.
    pub decomposed: bool,
}

/// Decodes `bytes` (a whole payload, already joined from its `CONT`/`CONC` lines) from `enc`
/// to UTF-8, appending to `out`.
///
/// Never fails and never panics: invalid input becomes U+FFFD (or what the rules of the
/// encoding say) and each problem is reported once per occurrence, in input order, through
/// `report`. Per encoding:
///
/// * UTF-8: validated with `simdutf8`; invalid sequences give U+FFFD and
///   [`DecodeProblem::InvalidUtf8`]; a CESU-8 surrogate pair gives the real character and
///   [`DecodeProblem::Cesu8`].
/// * ASCII: 01-7F as they are; an octet 80-FF is decoded as windows-1252 and reported as
///   [`DecodeProblem::NonAscii`].
/// * ANSEL: see [`DecodeOptions`]; combining marks move after their base character; an
///   unassigned octet gives U+FFFD and [`DecodeProblem::UnassignedAnsel`]. A combining mark
///   with no base after it (at the end of the payload, or before a control character such as
///   a line feed) is emitted as a bare combining character at that place; Unicode then reads
///   it as a mark on the character before it, which NFC may compose with it.
/// * UTF-16 (both byte orders): as [`utf16_to_utf8`]; a byte-order mark is not stripped here.
/// * windows-125x and Mac Roman: via `encoding_rs`; an unassigned octet gives U+FFFD and
///   [`DecodeProblem::UnmappedByte`].
/// * IBM 437 and 850: via this crate's own tables (every octet is assigned).
/// * Every encoding: U+0000 is kept and reported as [`DecodeProblem::Nul`].
pub fn decode_into(
    enc: Encoding,
    bytes: &[u8],
    opts: DecodeOptions,
    out: &mut String,
    report: &mut dyn FnMut(DecodeProblem),
) {
    match enc {
        Encoding::Utf8 => utf8::decode_utf8(bytes, out, report),
        Encoding::Ascii => codepage::decode_ascii(bytes, out, report),
        Encoding::Ansel => ansel::decode_ansel(bytes, opts, out, report),
        Encoding::Utf16Le => utf16::decode_utf16_into_string(bytes, false, out, report),
        Encoding::Utf16Be => utf16::decode_utf16_into_string(bytes, true, out, report),
        Encoding::Ibm437 => codepage::decode_table(&codepage::IBM437_HIGH, bytes, out, report),
        Encoding::Ibm850 => codepage::decode_table(&codepage::IBM850_HIGH, bytes, out, report),
        Encoding::Windows1250
        | Encoding::Windows1251
        | Encoding::Windows1252
        | Encoding::Windows1253
        | Encoding::Windows1254
        | Encoding::Windows1255
        | Encoding::Windows1256
        | Encoding::Windows1257
        | Encoding::Windows1258
        | Encoding::MacRoman => match enc.encoding_rs() {
            Some(e) => codepage::decode_encoding_rs(e, bytes, out, report),
            // Unreachable by construction; fall back to the lenient 1252 reading.
            None => codepage::decode_encoding_rs(encoding_rs::WINDOWS_1252, bytes, out, report),
        },
    }
}

/// Reports one [`DecodeProblem::Nul`] per NUL octet in `bytes` (which must be text in an
/// ASCII-compatible encoding, where octet 00 is always U+0000).
fn report_nuls(bytes: &[u8], report: &mut dyn FnMut(DecodeProblem)) {
    for _ in memchr::memchr_iter(0, bytes) {
        report(DecodeProblem::Nul);
    }
}

/// Collapses runs of spaces and tabs to one space and trims both ends.
fn normalise_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split([' ', '\t']).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes and collects the problems.
    pub(crate) fn dec(enc: Encoding, bytes: &[u8]) -> (String, Vec<DecodeProblem>) {
        dec_opts(enc, bytes, DecodeOptions::default())
    }

    pub(crate) fn dec_opts(
        enc: Encoding,
        bytes: &[u8],
        opts: DecodeOptions,
    ) -> (String, Vec<DecodeProblem>) {
        let mut out = String::new();
        let mut problems = Vec::new();
        decode_into(enc, bytes, opts, &mut out, &mut |p| problems.push(p));
        (out, problems)
    }

    #[test]
    fn names_round_trip() {
        for enc in ALL_ENCODINGS {
            assert_eq!(Encoding::from_name(enc.name()), Some(enc), "{enc}");
            assert_eq!(enc.to_string(), enc.name());
            assert_eq!(enc.name(), enc.name().to_ascii_lowercase());
        }
    }

    #[test]
    fn from_name_aliases() {
        let cases = [
            ("ANSI", Encoding::Windows1252),
            ("  ansi   windows ", Encoding::Windows1252),
            ("Windows", Encoding::Windows1252),
            ("ISO-8859-1", Encoding::Windows1252),
            ("latin1", Encoding::Windows1252),
            ("IBMPC", Encoding::Ibm437),
            ("ibm\tpc", Encoding::Ibm437),
            ("MSDOS", Encoding::Ibm437),
            ("IBM DOS", Encoding::Ibm437),
            ("cp850", Encoding::Ibm850),
            ("MACINTOSH", Encoding::MacRoman),
            ("Mac", Encoding::MacRoman),
            ("UTF8", Encoding::Utf8),
            ("UTF-8", Encoding::Utf8),
            ("cp1250", Encoding::Windows1250),
            ("US-ASCII", Encoding::Ascii),
        ];
        for (name, enc) in cases {
            assert_eq!(Encoding::from_name(name), Some(enc), "{name}");
        }
        for name in ["UNICODE", "utf-16", "UTF16", "ebcdic", "", "   "] {
            assert_eq!(Encoding::from_name(name), None, "{name}");
        }
    }

    #[test]
    fn char_values() {
        assert_eq!(Encoding::Utf8.char_value(), "UTF-8");
        assert_eq!(Encoding::Ascii.char_value(), "ASCII");
        assert_eq!(Encoding::Ansel.char_value(), "ANSEL");
        assert_eq!(Encoding::Utf16Le.char_value(), "UNICODE");
        assert_eq!(Encoding::Utf16Be.char_value(), "UNICODE");
        assert_eq!(Encoding::Windows1250.char_value(), "ANSI");
        assert_eq!(Encoding::Windows1258.char_value(), "ANSI");
        assert_eq!(Encoding::Ibm437.char_value(), "IBMPC");
        assert_eq!(Encoding::Ibm850.char_value(), "IBMPC");
        assert_eq!(Encoding::MacRoman.char_value(), "MACINTOSH");
        for enc in ALL_ENCODINGS {
            assert_eq!(enc.is_utf16(), enc.char_value() == "UNICODE");
        }
    }

    #[test]
    fn vers_names_the_code_page_the_char_value_leaves_open() {
        let with: Vec<(Encoding, &str)> = ALL_ENCODINGS
            .into_iter()
            .filter_map(|e| e.vers().map(|v| (e, v)))
            .collect();
        assert_eq!(
            with,
            [
                (Encoding::Windows1250, "1250"),
                (Encoding::Windows1251, "1251"),
                (Encoding::Windows1253, "1253"),
                (Encoding::Windows1254, "1254"),
                (Encoding::Windows1255, "1255"),
                (Encoding::Windows1256, "1256"),
                (Encoding::Windows1257, "1257"),
                (Encoding::Windows1258, "1258"),
                (Encoding::Ibm850, "850"),
            ]
        );
        // CHAR and VERS together name one encoding; each CHAR value alone names one too
        // (the encoding of its family without a VERS), except UNICODE's two byte orders.
        for enc in ALL_ENCODINGS {
            if let Some(v) = enc.vers() {
                assert_eq!(Encoding::from_char_and_vers(enc.char_value(), v), Some(enc));
            }
            let alone = ALL_ENCODINGS
                .into_iter()
                .filter(|e| e.char_value() == enc.char_value() && e.vers().is_none())
                .count();
            assert_eq!(alone, if enc.is_utf16() { 2 } else { 1 }, "{enc}");
        }
        assert_eq!(Encoding::from_char_and_vers("ANSI", "1252"), None);
        assert_eq!(Encoding::from_char_and_vers("IBMPC", "1250"), None);
    }

    #[test]
    fn problems_display_lowercase() {
        let all = [
            DecodeProblem::InvalidUtf8,
            DecodeProblem::Cesu8,
            DecodeProblem::NonAscii,
            DecodeProblem::UnassignedAnsel(0xAF),
            DecodeProblem::UnpairedSurrogate,
            DecodeProblem::Nul,
            DecodeProblem::UnmappedByte(0xAA),
            DecodeProblem::TruncatedUtf16,
        ];
        for p in all {
            let s = p.to_string();
            assert_eq!(s, s.to_lowercase());
        }
    }

    #[test]
    fn appends_to_existing_output() {
        for enc in ALL_ENCODINGS {
            let mut out = String::from("prefix:");
            let bytes: &[u8] = if enc.is_utf16() {
                if enc == Encoding::Utf16Le {
                    b"o\0k\0"
                } else {
                    b"\0o\0k"
                }
            } else {
                b"ok"
            };
            decode_into(enc, bytes, DecodeOptions::default(), &mut out, &mut |_| {
                panic!("no problem expected")
            });
            assert_eq!(out, "prefix:ok", "{enc}");
        }
    }

    #[test]
    fn nul_is_reported_everywhere() {
        for enc in ALL_ENCODINGS {
            let bytes: &[u8] = match enc {
                Encoding::Utf16Le => b"a\0\0\0",
                Encoding::Utf16Be => b"\0a\0\0",
                _ => b"a\0",
            };
            let (s, p) = dec(enc, bytes);
            assert_eq!(s, "a\0", "{enc}");
            assert_eq!(p, vec![DecodeProblem::Nul], "{enc}");
        }
    }

    #[test]
    fn code_pages_non_ascii() {
        let cases: [(Encoding, &[u8], &str); 10] = [
            (Encoding::Windows1252, b"caf\xE9", "café"),
            (Encoding::Windows1250, b"\xF5", "ő"),
            (Encoding::Windows1251, b"\xC0\xE1\xE2", "Абв"),
            (Encoding::Windows1253, b"\xE1", "α"),
            (Encoding::Windows1254, b"\xF0", "ğ"),
            (Encoding::Windows1255, b"\xE0", "א"),
            (Encoding::Windows1256, b"\xC7", "ا"),
            (Encoding::Windows1257, b"\xE0", "ą"),
            (Encoding::Ibm437, b"\x82", "é"),
            (Encoding::MacRoman, b"\x8E", "é"),
        ];
        for (enc, bytes, want) in cases {
            assert_eq!(dec(enc, bytes), (want.to_string(), vec![]), "{enc}");
        }
        assert_eq!(
            dec(Encoding::Ibm850, b"\x82\x9B"),
            ("éø".to_string(), vec![])
        );
        assert_eq!(
            dec(Encoding::Windows1258, b"\xD2"),
            ("\u{0309}".to_string(), vec![])
        );
    }

    #[test]
    fn unmapped_code_page_byte() {
        // 0xAA has no character in windows-1253.
        let (s, p) = dec(Encoding::Windows1253, b"a\xAAb\0");
        assert_eq!(s, "a\u{FFFD}b\0");
        assert_eq!(
            p,
            vec![DecodeProblem::UnmappedByte(0xAA), DecodeProblem::Nul]
        );
    }

    #[test]
    fn ascii_non_ascii_is_1252() {
        let (s, p) = dec(Encoding::Ascii, b"Caf\xE9 \x80");
        assert_eq!(s, "Café €");
        assert_eq!(p, vec![DecodeProblem::NonAscii, DecodeProblem::NonAscii]);
        assert_eq!(
            dec(Encoding::Ascii, b"plain"),
            ("plain".to_string(), vec![])
        );
    }

    /// A small deterministic generator, so the random tests need no dependency.
    pub(crate) struct XorShift(pub(crate) u64);

    impl XorShift {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// Random octets, biased towards the interesting ones.
        pub(crate) fn bytes(&mut self, max_len: usize) -> Vec<u8> {
            const SPECIAL: &[u8] = b"\0\n\r 0\xE2\xED\xA0\xB0\xD8\xDC\xFF\xFE\xEF\xBB\xBFaA";
            let len = (self.next() % (max_len as u64 + 1)) as usize;
            (0..len)
                .map(|_| {
                    let r = self.next();
                    if r.is_multiple_of(3) {
                        SPECIAL[(r >> 8) as usize % SPECIAL.len()]
                    } else {
                        (r >> 16) as u8
                    }
                })
                .collect()
        }
    }

    #[test]
    fn random_inputs_never_panic() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let prefixes: [&[u8]; 4] = [
            b"",
            b"0 HEAD\n1 CHAR ",
            b"0 HEAD\r1 CHAR ANSI\r2 VERS ",
            b"\xFF\xFE0\0",
        ];
        for round in 0..3000 {
            let bytes = rng.bytes(48);
            for enc in ALL_ENCODINGS {
                let decomposed = round % 2 == 0;
                let mut out = String::new();
                let mut problems = 0usize;
                decode_into(
                    enc,
                    &bytes,
                    DecodeOptions { decomposed },
                    &mut out,
                    &mut |_| problems += 1,
                );
                if !bytes.is_empty() {
                    assert!(!out.is_empty(), "{enc}");
                }
                // Outside Unicode input (which may hold a literal U+FFFD), every U+FFFD
                // comes with a report.
                if !matches!(enc, Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be) {
                    assert!(problems >= out.matches('\u{FFFD}').count(), "{enc}");
                }
            }
            let mut input = prefixes[round % prefixes.len()].to_vec();
            input.extend_from_slice(&bytes);
            for caller in [None, Some(Encoding::Ansel), Some(Encoding::Utf16Be)] {
                if let Ok(d) = detect(&input, caller) {
                    assert!(d.bom_len <= input.len());
                } else {
                    assert!(caller.is_none());
                }
            }
        }
    }

    #[test]
    fn never_panics_on_any_byte_pair() {
        let mut bytes = Vec::new();
        for a in 0..=255u8 {
            for b in [0u8, 0x41, 0x80, 0xBF, 0xE2, 0xED, 0xFF] {
                bytes.push(a);
                bytes.push(b);
            }
        }
        for enc in ALL_ENCODINGS {
            for opts in [DecodeOptions::default(), DecodeOptions { decomposed: true }] {
                let mut out = String::new();
                decode_into(enc, &bytes, opts, &mut out, &mut |_| {});
                for cut in [1, 2, 3, 5] {
                    decode_into(enc, &bytes[..cut], opts, &mut out, &mut |_| {});
                    decode_into(
                        enc,
                        &bytes[bytes.len() - cut..],
                        opts,
                        &mut out,
                        &mut |_| {},
                    );
                }
            }
        }
    }
}
