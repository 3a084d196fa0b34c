//! Character encodings (placeholder until the encodings work lands: UTF-8 and ASCII only).

/// A character encoding the reader can decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-8.
    Utf8,
    /// US ASCII.
    Ascii,
}

/// A problem met while decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeProblem {
    /// Invalid UTF-8.
    InvalidUtf8,
    /// A NUL byte.
    Nul,
}

/// Decoding options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Keep decomposed.
    pub decomposed: bool,
}

/// Decodes `bytes` into `out`.
pub fn decode_into(
    _enc: Encoding,
    bytes: &[u8],
    _opts: DecodeOptions,
    out: &mut String,
    report: &mut dyn FnMut(DecodeProblem),
) {
    if simdutf8::basic::from_utf8(bytes).is_err() {
        report(DecodeProblem::InvalidUtf8);
    }
    out.push_str(&String::from_utf8_lossy(bytes));
}
