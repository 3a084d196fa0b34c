//! An open-addressing hash index from xref bytes to entries of the tree's
//! xref table.
//!
//! Slots are 16 bytes and hold short keys (up to 12 bytes, the usual
//! `@I123456@`) inline, so that a lookup touches one slot and no other
//! memory; longer keys keep their hash in the slot and are compared in the
//! input only when the hashes agree.
//!
//! The table is cut into shards of equal size: the top bits of a key's
//! hash choose its shard, the low bits its home slot in the shard, and
//! probing wraps within the shard. A whole tree's index is built in bulk
//! ([`XrefIndex::build`]) and its pointers are looked up in bulk
//! ([`XrefIndex::find_many`]): keys are first grouped by shard, then each
//! shard (a few hundred KiB, cache-resident) takes its keys in one go, on
//! as many threads as asked. Looking keys up one at a time in a table of
//! tens of MiB instead costs a cache miss each.

use std::ops::Range;

use crate::ordered::{par_ranges, run_scoped, split};
use crate::tree::hash::hash_bytes;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slot {
    /// `entry + 1`; 0 for an empty slot. (In a bulk lookup's list, the
    /// caller's item id.)
    entry: u32,
    /// A short key, NUL-padded (xrefs this short hold no NUL), or for a
    /// long key: a zero first byte, then the key's hash.
    key: [u8; 12],
}

impl Slot {
    /// Whether the key is held inline.
    #[inline]
    fn short(&self) -> bool {
        self.key[0] != 0
    }

    /// The key's hash, from the slot alone.
    #[inline]
    fn hash(&self) -> u64 {
        if self.short() {
            let len = self.key.iter().position(|&b| b == 0).unwrap_or(12);
            hash_bytes(&self.key[..len])
        } else {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.key[4..]);
            u64::from_le_bytes(b)
        }
    }
}

/// The in-slot form of `key`.
#[inline]
fn pack(key: &[u8], hash: u64) -> [u8; 12] {
    let mut k = [0u8; 12];
    if !key.is_empty() && key.len() <= 12 && !key.contains(&0) {
        k[..key.len()].copy_from_slice(key);
    } else {
        k[4..].copy_from_slice(&hash.to_le_bytes());
    }
    k
}

/// Average number of keys per shard in a bulk-built index: a shard's
/// slots (a power of two, at most two thirds full) then take 64 to 128
/// KiB.
const KEYS_PER_SHARD: usize = 4096;

/// See the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub(crate) struct XrefIndex {
    slots: Vec<Slot>,
    /// log2 of the number of shards.
    shard_bits: u32,
    /// Slots per shard, minus one.
    mask: usize,
    len: usize,
}

/// Keys captured while building, to be indexed or looked up in bulk:
/// `items[i]` holds a key and an id, to which `offset` is added (a
/// chunk's ids are local to it).
#[derive(Debug, Default)]
pub(crate) struct KeyList {
    pub(crate) items: Vec<Slot>,
    pub(crate) offset: u32,
    /// After [`group_in_place`], for each block `b` of [`BLOCK`] items:
    /// `items[starts[b * (shards + 1) + s]..starts[b * (shards + 1) + s +
    /// 1]]` are shard `s`'s of that block.
    starts: Vec<u32>,
    shards: usize,
}

impl KeyList {
    /// Notes `key` for `id`.
    #[inline]
    pub(crate) fn push(&mut self, id: u32, key: &[u8]) {
        self.items.push(Slot {
            entry: id,
            key: pack(key, hash_bytes(key)),
        });
    }

    /// The keys of shard `s`, block by block.
    fn of_shard(&self, s: usize) -> impl Iterator<Item = &Slot> + '_ {
        self.starts
            .chunks_exact(self.shards + 1)
            .flat_map(move |b| &self.items[b[s] as usize..b[s + 1] as usize])
    }
}

/// Items grouped at a time by [`group_in_place`]: 512 KiB, which stay in
/// the cache while they are moved about.
const BLOCK: usize = 1 << 15;

/// Groups a list's keys by shard, in place (not stably), block by block:
/// moving items about a whole list of tens of MiB would miss the cache at
/// every move.
fn group_in_place(list: &mut KeyList, shard_bits: u32) {
    let shards = 1usize << shard_bits;
    list.shards = shards;
    list.starts.clear();
    let mut base = 0u32;
    for block in list.items.chunks_mut(BLOCK) {
        let at = list.starts.len();
        list.starts.resize(at + shards + 1, 0);
        let starts = &mut list.starts[at..];
        for it in block.iter() {
            starts[shard_of(it.hash(), shard_bits) + 1] += 1;
        }
        for s in 1..=shards {
            starts[s] += starts[s - 1];
        }
        // Each shard's next unplaced position; an item found out of place
        // is swapped into the next free position of its own shard.
        let mut next: Vec<u32> = starts[..shards].to_vec();
        for s in 0..shards {
            let end = starts[s + 1];
            while next[s] < end {
                let i = next[s] as usize;
                let t = shard_of(block[i].hash(), shard_bits);
                if t == s {
                    next[s] += 1;
                } else {
                    block.swap(i, next[t] as usize);
                    next[t] += 1;
                }
            }
        }
        for x in starts.iter_mut() {
            *x += base;
        }
        base += block.len() as u32;
    }
}

/// Groups every list by shard, on `jobs` threads.
fn group_all(lists: &mut [KeyList], shard_bits: u32, jobs: usize) {
    let per = lists.len().div_ceil(jobs.max(1)).max(1);
    if jobs <= 1 || lists.len() <= 1 {
        for l in lists.iter_mut() {
            group_in_place(l, shard_bits);
        }
        return;
    }
    // Lists are of about equal size (chunks), so equal counts balance.
    run_scoped(lists.chunks_mut(per).collect(), |group| {
        for l in group {
            group_in_place(l, shard_bits);
        }
    });
}

/// Reads a shard's slots in order, one per cache line, so that the
/// hardware brings them in at streaming speed before they are probed in
/// random order.
fn warm(shard: &[Slot]) {
    let mut sum = 0u32;
    for s in shard.iter().step_by(4) {
        sum = sum.wrapping_add(s.entry);
    }
    std::hint::black_box(sum);
}

#[inline]
fn shard_of(h: u64, shard_bits: u32) -> usize {
    if shard_bits == 0 {
        0
    } else {
        (h >> (64 - shard_bits)) as usize
    }
}

/// Where `slot`'s key is in `shard` (slots of one shard), or the empty
/// slot where it would go. `same(a, b)` compares the full keys of two
/// long-key slots whose hashes agree.
#[inline]
fn probe_shard(shard: &[Slot], mask: usize, item: &Slot, same: impl Fn(&Slot) -> bool) -> usize {
    let mut i = item.hash() as usize & mask;
    loop {
        let s = &shard[i];
        if s.entry == 0 || (s.key == item.key && (item.short() || same(s))) {
            return i;
        }
        i = (i + 1) & mask;
    }
}

impl XrefIndex {
    /// An index with room for `n` entries (one shard, grown by
    /// [`XrefIndex::insert`] as needed).
    pub(crate) fn with_entries(n: usize) -> Self {
        let cap = (n.max(4) * 2).next_power_of_two();
        XrefIndex {
            slots: vec![Slot::default(); cap],
            shard_bits: 0,
            mask: cap - 1,
            len: 0,
        }
    }

    /// Builds the index of the keys in `lists` (reordering them), on
    /// `jobs` threads; a key's entry is its id plus its list's offset.
    /// Also returns `(entry, first entry with the same key)` for every
    /// repeated key, by entry: the first in entry order is the one indexed.
    /// `key_of(e)` gives the key of entry `e`.
    pub(crate) fn build<'k>(
        lists: &mut [KeyList],
        jobs: usize,
        key_of: &(dyn Fn(u32) -> &'k [u8] + Sync),
    ) -> (XrefIndex, Vec<(u32, u32)>) {
        let n: usize = lists.iter().map(|l| l.items.len()).sum();
        let shards = n.div_ceil(KEYS_PER_SHARD).next_power_of_two();
        let shard_bits = shards.trailing_zeros();
        group_all(lists, shard_bits, jobs);
        let lists = &*lists;
        let most = (0..shards)
            .map(|s| lists.iter().map(|l| l.of_shard(s).count()).sum::<usize>())
            .max()
            .unwrap_or(0);
        let cap = (most + most / 2 + 1).max(4).next_power_of_two();
        let mask = cap - 1;
        let mut slots = vec![Slot::default(); shards * cap];
        // Each thread fills its own shards. Keys come in no particular
        // order: the smallest entry of a key stays in the slot, and each
        // other one is reported once, when it meets a smaller one.
        let mut rest = &mut slots[..];
        let mut work = Vec::new();
        for g in split(shards, jobs) {
            let (mine, more) = rest.split_at_mut(g.len() * cap);
            rest = more;
            work.push((g, mine));
        }
        let fill = move |(g, mine): (Range<usize>, &mut [Slot])| {
            let mut losers = Vec::new();
            for (s, shard) in g.zip(mine.chunks_mut(cap)) {
                for l in lists {
                    for item in l.of_shard(s) {
                        let e = item.entry + l.offset;
                        let i =
                            probe_shard(shard, mask, item, |s| key_of(s.entry - 1) == key_of(e));
                        let slot = &mut shard[i];
                        if slot.entry == 0 {
                            *slot = Slot {
                                entry: e + 1,
                                key: item.key,
                            };
                        } else if e < slot.entry - 1 {
                            losers.push(slot.entry - 1);
                            slot.entry = e + 1;
                        } else {
                            losers.push(e);
                        }
                    }
                }
            }
            losers
        };
        let found: Vec<Vec<u32>> = run_scoped(work, fill);
        let mut losers: Vec<u32> = found.into_iter().flatten().collect();
        losers.sort_unstable();
        let index = XrefIndex {
            slots,
            shard_bits,
            mask,
            len: n - losers.len(),
        };
        // Repeated keys are few: find each one's first entry.
        let dups = losers
            .into_iter()
            .map(|e| (e, index.find(key_of(e), key_of).unwrap_or(e)))
            .collect();
        (index, dups)
    }

    /// Looks up, on `jobs` threads, the keys in `lists` (reordering them)
    /// and returns `keep(id, entry found)` for those it keeps, by id (an
    /// id plus its list's offset). `key_of(e)` gives the key of entry `e`;
    /// `long_key(id)` the key noted for `id` when it is longer than 12
    /// bytes.
    pub(crate) fn find_many<'k, T: Send + Ord>(
        &self,
        lists: &mut [KeyList],
        jobs: usize,
        long_key: &(dyn Fn(u32) -> &'k [u8] + Sync),
        key_of: &(dyn Fn(u32) -> &'k [u8] + Sync),
        keep: &(dyn Fn(u32, Option<u32>) -> Option<T> + Sync),
    ) -> Vec<T> {
        if self.slots.is_empty() {
            let mut out: Vec<T> = lists
                .iter()
                .flat_map(|l| l.items.iter().map(move |i| i.entry + l.offset))
                .filter_map(|id| keep(id, None))
                .collect();
            out.sort_unstable();
            return out;
        }
        let shards = 1usize << self.shard_bits;
        group_all(lists, self.shard_bits, jobs);
        let lists = &*lists;
        let cap = self.mask + 1;
        let found = par_ranges(shards, jobs, |g| {
            let mut out = Vec::new();
            for s in g {
                let shard = &self.slots[s * cap..(s + 1) * cap];
                warm(shard);
                for l in lists {
                    for item in l.of_shard(s) {
                        let id = item.entry + l.offset;
                        let hit = if item.short() {
                            let i = probe_shard(shard, self.mask, item, |_| false);
                            shard[i].entry.checked_sub(1)
                        } else {
                            // Rare: a long key is compared in full.
                            self.find(long_key(id), key_of)
                        };
                        out.extend(keep(id, hit));
                    }
                }
            }
            out
        });
        let mut out: Vec<T> = found.into_iter().flatten().collect();
        out.sort_unstable();
        out
    }

    /// Doubles the capacity of a one-shard index, re-placing every slot.
    /// Needs no key: a short key is in its slot, a long one's hash is.
    fn grow(&mut self) {
        debug_assert_eq!(self.shard_bits, 0);
        let cap = (self.slots.len() * 2).max(8);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap]);
        self.mask = cap - 1;
        for s in old.into_iter().filter(|s| s.entry != 0) {
            let mut i = s.hash() as usize & self.mask;
            while self.slots[i].entry != 0 {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = s;
        }
    }

    /// The slot holding `key` (whose hash is `h`), or the empty slot where
    /// it would go.
    #[inline]
    fn probe<'k>(&self, key: &[u8], h: u64, key_of: impl Fn(u32) -> &'k [u8]) -> (usize, [u8; 12]) {
        let packed = pack(key, h);
        let short = packed[0] != 0;
        let base = shard_of(h, self.shard_bits) * (self.mask + 1);
        let mut i = h as usize & self.mask;
        loop {
            let s = &self.slots[base + i];
            if s.entry == 0 || (s.key == packed && (short || key_of(s.entry - 1) == key)) {
                return (base + i, packed);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Inserts `entry` under `key` unless the key is present (one-shard
    /// indexes only), and then returns the entry it is present for.
    /// `key_of(e)` gives the key of a stored entry.
    pub(crate) fn insert<'k>(
        &mut self,
        key: &[u8],
        entry: u32,
        key_of: impl Fn(u32) -> &'k [u8],
    ) -> Option<u32> {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let (i, packed) = self.probe(key, hash_bytes(key), key_of);
        let s = &mut self.slots[i];
        if s.entry == 0 {
            *s = Slot {
                entry: entry + 1,
                key: packed,
            };
            self.len += 1;
            None
        } else {
            Some(s.entry - 1)
        }
    }

    /// The entry stored under `key`.
    pub(crate) fn find<'k>(&self, key: &[u8], key_of: impl Fn(u32) -> &'k [u8]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (i, _) = self.probe(key, hash_bytes(key), key_of);
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

    fn keys() -> Vec<Vec<u8>> {
        vec![
            b"@I1@".to_vec(),
            b"@I1@@".to_vec(),
            b"@ABCDEFGHIJ@".to_vec(),
            b"@ABCDEFGHIJK@".to_vec(),
            b"@ABCDEFGHIJKL@".to_vec(),
            b"@A\0@".to_vec(),
            b"@A@".to_vec(),
            Vec::new(),
        ]
    }

    #[test]
    fn short_long_and_odd_keys() {
        let keys = keys();
        let mut ix = XrefIndex::with_entries(0);
        for (e, k) in keys.iter().enumerate() {
            assert_eq!(ix.insert(k, e as u32, |i| &keys[i as usize]), None);
        }
        for (e, k) in keys.iter().enumerate() {
            assert_eq!(ix.find(k, |i| &keys[i as usize]), Some(e as u32));
            assert_eq!(ix.insert(k, 99, |i| &keys[i as usize]), Some(e as u32));
        }
        assert_eq!(ix.find(b"@ABCDEFGHIJ", |i| &keys[i as usize]), None);
        assert_eq!(ix.find(b"@A", |i| &keys[i as usize]), None);
    }

    /// Bulk building and bulk lookups agree with one-at-a-time inserts and
    /// finds, with many shards, repeated keys, several lists and threads.
    #[test]
    fn bulk_equals_one_at_a_time() {
        let mut all = keys();
        for i in 0..20_000u32 {
            all.push(format!("@I{}@", i % 15_000).into_bytes());
            if i % 97 == 0 {
                all.push(format!("@A-LONG-KEY-{}@", i % 700).into_bytes());
            }
        }
        let n = all.len();
        let key_of = |e: u32| &all[e as usize][..];
        let lists_of = |keys: &[Vec<u8>], parts: usize| -> Vec<KeyList> {
            split(keys.len(), parts)
                .into_iter()
                .map(|r| {
                    let mut l = KeyList {
                        offset: r.start as u32,
                        ..KeyList::default()
                    };
                    for i in r.clone() {
                        l.push((i - r.start) as u32, &keys[i]);
                    }
                    l
                })
                .collect()
        };
        let mut one = XrefIndex::with_entries(0);
        let mut want_dups = Vec::new();
        for (e, k) in all.iter().enumerate() {
            if let Some(first) = one.insert(k, e as u32, key_of) {
                want_dups.push((e as u32, first));
            }
        }
        let mut probes: Vec<Vec<u8>> = all.clone();
        probes.push(b"@NOPE@".to_vec());
        probes.push(b"@A-LONG-KEY-NOPE@".to_vec());
        for (jobs, parts) in [(1, 1), (2, 2), (3, 7)] {
            let mut lists = lists_of(&all, parts);
            let (bulk, dups) = XrefIndex::build(&mut lists, jobs, &key_of);
            assert_eq!(bulk.len, n - want_dups.len());
            assert!(bulk.shard_bits > 0);
            assert_eq!(dups, want_dups);
            for k in &probes {
                assert_eq!(bulk.find(k, key_of), one.find(k, key_of), "{k:?}");
            }
            let mut lists = lists_of(&probes, parts);
            let long_key = |i: u32| &probes[i as usize][..];
            let got = bulk.find_many(&mut lists, jobs, &long_key, &key_of, &|id, e| Some((id, e)));
            let want: Vec<_> = probes
                .iter()
                .enumerate()
                .map(|(i, k)| (i as u32, one.find(k, key_of)))
                .collect();
            assert_eq!(got, want);
        }
    }
}
