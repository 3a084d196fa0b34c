//! An open-addressing hash index from xref bytes to entries of the tree's
//! xref table: 4 bytes per slot, keys never copied.

use crate::tree::hash::hash_bytes;

/// Slots hold `entry + 1`; 0 is empty. Capacity is a power of two at least
/// twice the number of entries, so probe sequences stay short.
#[derive(Clone, Debug, Default)]
pub(crate) struct XrefIndex {
    slots: Vec<u32>,
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
            slots: vec![0; cap],
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
        let mask = self.slots.len() - 1;
        let mut i = hash_bytes(key) as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = entry + 1;
                    return Insert::New;
                }
                s => {
                    if key_of(s - 1) == key {
                        return Insert::Existing(s - 1);
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The entry stored under `key`.
    pub(crate) fn find<'k>(&self, key: &[u8], key_of: impl Fn(u32) -> &'k [u8]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = hash_bytes(key) as usize & mask;
        loop {
            match self.slots[i] {
                0 => return None,
                s => {
                    if key_of(s - 1) == key {
                        return Some(s - 1);
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Bytes of memory held.
    pub(crate) fn memory(&self) -> usize {
        self.slots.capacity() * 4
    }
}
