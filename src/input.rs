//! [`Input`]: bytes prepared for reading, whatever their character encoding.

use std::borrow::Cow;

use crate::diag::Error;
use crate::encoding::{self, DecodeProblem, Detection, Encoding};
use crate::read::{Reader, ReaderConfig};
use crate::scan::count_breaks;

/// The character encoding of an input and how it was decided (seed
/// §3.1-§3.2).
pub type EncodingInfo = Detection;

/// An input ready for a [`Reader`]: its encoding detected, its byte-order
/// mark skipped, and UTF-16 transcoded to UTF-8 once (so that the reader can
/// still hand out events borrowed from one buffer).
///
/// Inputs in UTF-8, ASCII, ANSEL and the supported code pages are borrowed
/// as they are: their payloads are decoded lazily, after `CONT`/`CONC`
/// joining. Only UTF-16 input is copied.
///
/// ```
/// use gedcom_elf::{Encoding, Input};
///
/// // "0 HEAD\n1 CHAR UNICODE\n0 TRLR\n" as UTF-16LE with a byte-order mark.
/// let text = "0 HEAD\n1 CHAR UNICODE\n1 NOTE Ærø\n0 TRLR\n";
/// let mut bytes = vec![0xFF, 0xFE];
/// bytes.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
///
/// let input = Input::new(&bytes)?;
/// assert_eq!(input.encoding_info().encoding, Encoding::Utf16Le);
/// let notes: Vec<String> = input
///     .reader()
///     .filter_map(|e| match e.unwrap() {
///         gedcom_elf::Event::Begin(b) if b.tag == "NOTE" => Some(b.text().unwrap().into_owned()),
///         _ => None,
///     })
///     .collect();
/// assert_eq!(notes, ["Ærø"]);
/// # Ok::<(), gedcom_elf::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Input<'a> {
    bytes: Cow<'a, [u8]>,
    info: EncodingInfo,
    /// The encoding of `bytes` (UTF-8 once UTF-16 was transcoded).
    payload_encoding: Encoding,
    transcode_problems: usize,
}

impl<'a> Input<'a> {
    /// Detects the encoding of `bytes` (byte-order mark, UTF-16 sniffing,
    /// the HEAD's `CHAR` line; ANSEL by default).
    ///
    /// # Errors
    /// [`ErrorKind::UnsupportedEncoding`](crate::ErrorKind::UnsupportedEncoding) when the HEAD's `CHAR` line names an
    /// encoding this crate does not support.
    pub fn new(bytes: &'a [u8]) -> Result<Self, Error> {
        Input::with_encoding(bytes, None)
    }

    /// Like [`Input::new`], but `encoding`, when given, takes the place of
    /// the detected and specified encodings.
    ///
    /// # Errors
    /// As [`Input::new`].
    pub fn with_encoding(bytes: &'a [u8], encoding: Option<Encoding>) -> Result<Self, Error> {
        let mut info = detect(bytes, encoding)?;
        let body = &bytes[info.bom_len.min(bytes.len())..];
        let (bytes, payload_encoding, transcode_problems) = match info.encoding {
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let mut n = 0;
                let big = info.encoding == Encoding::Utf16Be;
                // A NUL is no transcoding problem: it is kept, and the reader reports it.
                let out = encoding::utf16_to_utf8(body, big, &mut |p| {
                    if p != DecodeProblem::Nul {
                        n += 1;
                    }
                });
                if n > 0 {
                    info.warnings.push(format!(
                        "the {} input holds {n} unpaired surrogate{} or truncated code unit{}, replaced by U+FFFD (the first on line {})",
                        info.encoding,
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "" } else { "s" },
                        first_replacement_line(&out),
                    ));
                }
                (Cow::Owned(out), Encoding::Utf8, n)
            }
            e => (Cow::Borrowed(body), e, 0),
        };
        Ok(Input {
            bytes,
            info,
            payload_encoding,
            transcode_problems,
        })
    }

    /// The encoding and how it was decided.
    pub fn encoding_info(&self) -> &EncodingInfo {
        &self.info
    }

    /// The bytes a reader reads: the input without its byte-order mark,
    /// transcoded to UTF-8 when it was UTF-16. Byte offsets in events and
    /// diagnostics refer to these bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Unpaired surrogates and truncated code units met while transcoding
    /// UTF-16 (each became U+FFFD). When there are any, the
    /// [`encoding_info`](Input::encoding_info) warnings say so, and a reader
    /// reports that as an `encoding` diagnostic.
    pub fn transcode_problems(&self) -> usize {
        self.transcode_problems
    }

    /// A reader with the default configuration.
    pub fn reader(&self) -> Reader<'_> {
        self.reader_with_config(ReaderConfig::default())
    }

    /// A reader with `config` (its [`ReaderConfig::encoding`] is ignored:
    /// the input's was decided already).
    pub fn reader_with_config(&self, config: ReaderConfig) -> Reader<'_> {
        Reader::prepared(
            &self.bytes,
            config,
            self.info.clone(),
            self.payload_encoding,
        )
    }
}

/// The 1-based line (LF, CR or CRLF breaks) of the first U+FFFD in transcoded
/// text: the first replacement when the input held no U+FFFD of its own.
fn first_replacement_line(utf8: &[u8]) -> usize {
    let at = memchr::memmem::find(utf8, "\u{FFFD}".as_bytes()).unwrap_or(utf8.len());
    1 + count_breaks(&utf8[..at]) as usize
}

/// Runs detection, turning an unsupported `CHAR` value into an [`Error`].
pub(crate) fn detect(bytes: &[u8], encoding: Option<Encoding>) -> Result<Detection, Error> {
    Ok(encoding::detect(bytes, encoding)?)
}
