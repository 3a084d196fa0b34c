//! gedcom-elf (skeleton; the reader lands in the next commits).
#![forbid(unsafe_code)]

pub mod encoding;
