//! An open-addressing hash index from xref bytes to entries of the tree's
//! xref table.
//!
//! Slots are 16 bytes and hold short keys (up to 12 bytes, the usual
//! `@I123456@`) inline, so that a lookup touches one slot and no other
//! memory; longer keys keep their hash in the slot and are compared in the
//! input only when the hashes agree.

use crate::tree::hash::hash_bytes;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// `entry + 1`; 0 for an empty slot.
    entry: u32,
    /// A short key, NUL-padded (xrefs this short hold no NUL), or for a
    /// long key: a zero first byte, then the key's hash.
    key: [u8; 12],
}

/// The in-slot form of `key`.
#[inline]
fn pack(key: &[u8], hash: u64) -> ([u8; 12], bool) {
    let mut k = [0u8; 12];
    if !key.is_empty() && key.len() <= 12 && !key.contains(&0) {
        k[..key.len()].copy_from_slice(key);
        (k, true)
    } else {
        k[4..].copy_from_slice(&hash.to_le_bytes());
        (k, false)
    }
}

/// Capacity is a power of two at least twice the number of entries, so
/// probe sequences stay short.
#[derive(Clone, Debug, Default)]
pub(crate) struct XrefIndex {
    slots: Vec<Slot>,
    len: usize,
}

/// The outcome of inserting a key.
pub(crate) enum Insert {
    /// The key was new.
    New,
    /// The key was already present for this entry.
    Existing(u32),
}

impl XrefIndex {
    /// An index with room for `n` entries.
    pub(crate) fn with_entries(n: usize) -> Self {
        let cap = (n.max(4) * 2).next_power_of_two();
        XrefIndex {
            slots: vec![Slot::default(); cap],
            len: 0,
        }
    }

    /// Doubles the capacity, re-placing every slot. Needs no key: a short
    /// key is in its slot, a long one's hash is.
    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(8);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap]);
        let mask = cap - 1;
        for s in old.into_iter().filter(|s| s.entry != 0) {
            let h = if s.key[0] == 0 {
                let mut b = [0u8; 8];
                b.copy_from_slice(&s.key[4..]);
                u64::from_le_bytes(b)
            } else {
                let len = s.key.iter().position(|&b| b == 0).unwrap_or(12);
                hash_bytes(&s.key[..len])
            };
            let mut i = h as usize & mask;
            while self.slots[i].entry != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// The slot holding `key` (whose hash is `h`), or the empty slot where
    /// it would go.
    #[inline]
    fn probe<'k>(&self, key: &[u8], h: u64, key_of: impl Fn(u32) -> &'k [u8]) -> (usize, [u8; 12]) {
        let mask = self.slots.len() - 1;
        let (packed, short) = pack(key, h);
        let mut i = h as usize & mask;
        loop {
            let s = &self.slots[i];
            if s.entry == 0 || (s.key == packed && (short || key_of(s.entry - 1) == key)) {
                return (i, packed);
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts `entry` under `key` unless the key is present.
    /// `key_of(e)` gives the key of a stored entry.
    pub(crate) fn insert<'k>(
        &mut self,
        key: &[u8],
        entry: u32,
        key_of: impl Fn(u32) -> &'k [u8],
    ) -> Insert {
        self.insert_hashed(key, hash_bytes(key), entry, key_of)
    }

    /// [`XrefIndex::insert`] with the key's hash already computed.
    pub(crate) fn insert_hashed<'k>(
        &mut self,
        key: &[u8],
        hash: u64,
        entry: u32,
        key_of: impl Fn(u32) -> &'k [u8],
    ) -> Insert {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let (i, packed) = self.probe(key, hash, key_of);
        let s = &mut self.slots[i];
        if s.entry == 0 {
            *s = Slot {
                entry: entry + 1,
                key: packed,
            };
            self.len += 1;
            Insert::New
        } else {
            Insert::Existing(s.entry - 1)
        }
    }

    /// The entry stored under `key`.
    pub(crate) fn find<'k>(&self, key: &[u8], key_of: impl Fn(u32) -> &'k [u8]) -> Option<u32> {
        self.find_hashed(key, hash_bytes(key), key_of)
    }

    /// [`XrefIndex::find`] with the key's hash already computed.
    pub(crate) fn find_hashed<'k>(
        &self,
        key: &[u8],
        hash: u64,
        key_of: impl Fn(u32) -> &'k [u8],
    ) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (i, _) = self.probe(key, hash, key_of);
        self.slots[i].entry.checked_sub(1)
    }

    /// Bytes of memory held.
    pub(crate) fn memory(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_long_and_odd_keys() {
        let keys: Vec<Vec<u8>> = vec![
            b"@I1@".to_vec(),
            b"@I1@@".to_vec(),
            b"@ABCDEFGHIJ@".to_vec(),
            b"@ABCDEFGHIJK@".to_vec(),
            b"@ABCDEFGHIJKL@".to_vec(),
            b"@A\0@".to_vec(),
            b"@A@".to_vec(),
        ];
        let mut ix = XrefIndex::with_entries(0);
        for (e, k) in keys.iter().enumerate() {
            assert!(matches!(
                ix.insert(k, e as u32, |i| &keys[i as usize]),
                Insert::New
            ));
        }
        for (e, k) in keys.iter().enumerate() {
            assert_eq!(ix.find(k, |i| &keys[i as usize]), Some(e as u32));
            assert!(matches!(
                ix.insert(k, 99, |i| &keys[i as usize]),
                Insert::Existing(x) if x == e as u32
            ));
        }
        assert_eq!(ix.find(b"", |i| &keys[i as usize]), None);
        assert_eq!(ix.find(b"@ABCDEFGHIJ", |i| &keys[i as usize]), None);
        assert_eq!(ix.find(b"@A", |i| &keys[i as usize]), None);
    }
}
