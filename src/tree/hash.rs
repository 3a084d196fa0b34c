//! A small, fast, non-cryptographic hash for the tree's internal tables
//! (tags, kinds, xrefs). The tables never hold attacker-chosen keys in a way
//! that matters for denial of service beyond what one input can cost
//! anyway: probing is bounded by the table's load factor.

use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0x9e6c_63d0_676a_9a99;

/// Word-at-a-time multiply-rotate hasher.
#[derive(Clone, Copy, Default)]
pub(crate) struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(23) ^ w).wrapping_mul(K);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.mix(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Final avalanche so that the low bits (used for bucket selection)
        // depend on every input bit.
        let mut h = self.0;
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        h
    }
}

/// `BuildHasher` for `HashMap`s keyed by short strings or small integers.
pub(crate) type BuildWordHasher = BuildHasherDefault<WordHasher>;

/// A `HashMap` using [`WordHasher`].
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, BuildWordHasher>;

/// Hashes a byte string.
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = WordHasher::default();
    h.write(bytes);
    h.finish()
}
