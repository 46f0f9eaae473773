//! The pair set: pair keys, their hash map, and the dense list of current pairs with what
//! changed in it during the last update.

use crate::id::NULL;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Order-independent key of a proxy pair: (min id) << 32 | (max id).
#[inline]
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    ((lo as u64) << 32) | hi as u64
}

/// The two proxy ids of a pair key, smaller first.
#[inline]
pub(crate) fn pair_ids(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// A multiplicative hash for `u64` keys: std's SipHash is several times slower and its DoS
/// resistance buys nothing here. Lookup only; no result depends on map order.
#[derive(Default, Clone, Copy)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map keyed by pair keys (or packed cell coordinates).
pub(crate) type PairMap = HashMap<u64, u32, BuildHasherDefault<PairHasher>>;

#[derive(Clone, Copy, Debug)]
pub(super) struct PairEntry {
    pub(super) key: u64,
    /// The caller's value (a contact index, or [`NULL`]).
    pub(super) value: u32,
}

/// Where each live pair sits in the pair list: an open-addressing table (linear probing,
/// Fibonacci hashing, deletion by backward shift, at most 5/8 full) of list places, each
/// with the high half of its key's hash. A key is found by its hash's half and then
/// checked against the list, so a slot is 8 bytes where std's map (which this replaced)
/// held 17 a bucket. And a key's slot can be asked for before it is read
/// ([`Self::prefetch`]): each update inserts and removes hundreds of keys in a table of tens
/// of thousands that is not in cache, and the keys are known ahead, so their slots can be
/// loading while the ones before them are changed (`docs/decisions.md`, "The pair index").
#[derive(Clone, Default)]
pub(super) struct PairIndex {
    /// A power of two of slots (none before the first insert); an [`EMPTY`] place marks a
    /// free one.
    slots: Vec<IndexSlot>,
    len: usize,
}

#[derive(Clone, Copy)]
struct IndexSlot {
    /// The high 32 bits of the key's hash: its home slot, and a filter before the list.
    tag: u32,
    /// The pair's place in the list.
    place: u32,
}

/// How many keys ahead [`Pairs::remove_ended`] and [`Pairs::insert_all`] ask for index
/// slots.
const PREFETCH_AHEAD: usize = 8;

/// A free slot's place.
const EMPTY: u32 = u32::MAX;

#[inline]
fn tag(key: u64) -> u32 {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

impl PairIndex {
    /// The slot a tag's key is looked for from (the tag's high bits).
    #[inline]
    fn home(&self, tag: u32) -> usize {
        let bits = self.slots.len().trailing_zeros();
        ((tag as u64) << 32 >> (64 - bits)) as usize
    }

    /// The slot holding `key` (whose entries in `list` are checked), or the free slot
    /// where it would go.
    #[inline]
    fn find(&self, key: u64, list: &[PairEntry]) -> usize {
        let mask = self.slots.len() - 1;
        let t = tag(key);
        let mut i = self.home(t);
        loop {
            let s = self.slots[i];
            if s.place == EMPTY || s.tag == t && list[s.place as usize].key == key {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Starts loading the slot where `key` would be found.
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        if !self.slots.is_empty() {
            crate::math::prefetch(&self.slots[self.home(tag(key))]);
        }
    }

    /// The place of `key` in `list`, if it is there.
    pub(super) fn get(&self, key: u64, list: &[PairEntry]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let s = self.slots[self.find(key, list)];
        (s.place != EMPTY).then_some(s.place)
    }

    /// Adds `list[place]`'s key, which is not in the index.
    pub(super) fn insert(&mut self, place: u32, list: &[PairEntry]) {
        if (self.len + 1) * 8 > self.slots.len() * 5 {
            self.grow();
        }
        let key = list[place as usize].key;
        let i = self.find(key, list);
        debug_assert_eq!(self.slots[i].place, EMPTY, "pair {key:x} indexed twice");
        self.slots[i] = IndexSlot {
            tag: tag(key),
            place,
        };
        self.len += 1;
    }

    /// Records that `key`, in the index, moved to `place` (its entry in `list` is still at
    /// its old place).
    pub(super) fn relocate(&mut self, key: u64, place: u32, list: &[PairEntry]) {
        let i = self.find(key, list);
        debug_assert_ne!(self.slots[i].place, EMPTY, "pair {key:x} not indexed");
        self.slots[i].place = place;
    }

    /// Removes `key` (whose entry in `list` is still there); false if it was not indexed.
    pub(super) fn remove(&mut self, key: u64, list: &[PairEntry]) -> bool {
        if self.slots.is_empty() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let mut hole = self.find(key, list);
        if self.slots[hole].place == EMPTY {
            return false;
        }
        self.len -= 1;
        // Backward shift: each later slot of the run that may sit in the hole (its home is
        // not between the hole and itself) moves into it, and leaves a hole of its own.
        let mut j = (hole + 1) & mask;
        loop {
            let s = self.slots[j];
            if s.place == EMPTY {
                break;
            }
            let home = self.home(s.tag);
            if j.wrapping_sub(home) & mask >= j.wrapping_sub(hole) & mask {
                self.slots[hole] = s;
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole].place = EMPTY;
        true
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let free = IndexSlot {
            tag: 0,
            place: EMPTY,
        };
        let old = std::mem::replace(&mut self.slots, vec![free; size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|s| s.place != EMPTY) {
            // Places are unique: the first free slot from home.
            let mut i = self.home(s.tag);
            while self.slots[i].place != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// The index of every entry of `list`, or `None` if a key is listed twice.
    pub(super) fn of(list: &[PairEntry]) -> Option<Self> {
        let mut index = PairIndex::default();
        for (place, e) in list.iter().enumerate() {
            if index.get(e.key, list).is_some() {
                return None;
            }
            index.insert(place as u32, list);
        }
        Some(index)
    }
}

/// The pair set (a dense list plus a key → position index) and what changed in it during
/// the last update.
#[derive(Default)]
pub(super) struct Pairs {
    pub(super) index: PairIndex,
    pub(super) list: Vec<PairEntry>,
    pub(super) begun: Vec<u64>,
    pub(super) ended: Vec<(u64, u32)>,
    /// Scratch of an update: the ended pairs' places in `list`, ascending.
    pub(super) ended_at: Vec<u32>,
}

impl Pairs {
    pub(super) fn insert(&mut self, key: u64) {
        self.list.push(PairEntry { key, value: NULL });
        self.index.insert((self.list.len() - 1) as u32, &self.list);
    }

    /// Removes the pairs at the places `ended_at` lists (ascending), from the last one
    /// back, so that each one's place still holds it when its turn comes (a removal moves
    /// only the last entry). The index slots of the keys removed and moved
    /// [`PREFETCH_AHEAD`] removals later are asked for ahead.
    pub(super) fn remove_ended(&mut self) {
        let ended_at = std::mem::take(&mut self.ended_at);
        for (n, &k) in ended_at.iter().enumerate().rev() {
            if let Some(&ahead) = n.checked_sub(PREFETCH_AHEAD).map(|a| &ended_at[a]) {
                self.index.prefetch(self.list[ahead as usize].key);
                let last = self.list.len().saturating_sub(1 + PREFETCH_AHEAD);
                self.index.prefetch(self.list[last].key);
            }
            self.remove_at(k as usize);
        }
        self.ended_at = ended_at;
    }

    /// Adds the pairs of `keys` in their order.
    pub(super) fn insert_all(&mut self, keys: &[u64]) {
        for (n, &key) in keys.iter().enumerate() {
            if let Some(&ahead) = keys.get(n + PREFETCH_AHEAD) {
                self.index.prefetch(ahead);
            }
            self.insert(key);
        }
    }

    pub(super) fn remove_at(&mut self, k: usize) -> PairEntry {
        let removed = self.index.remove(self.list[k].key, &self.list);
        debug_assert!(removed, "pair at {k} not indexed");
        let last = self.list.len() - 1;
        if k != last {
            self.index
                .relocate(self.list[last].key, k as u32, &self.list);
        }
        self.list.swap_remove(k)
    }

    /// The place of `key` in the list, if it is a live pair.
    #[inline]
    pub(super) fn place(&self, key: u64) -> Option<u32> {
        self.index.get(key, &self.list)
    }
}

#[cfg(test)]
mod tests {
    use super::{pair_key, Pairs};
    use std::collections::HashMap;

    /// The pair set's index against std's map under random inserts and removals of keys
    /// drawn from a small range (long probe runs, removals inside them, growth), and
    /// rebuilt from the list.
    #[test]
    fn index_matches_a_hash_map() {
        let mut pairs = Pairs::default();
        let mut reference: HashMap<u64, ()> = HashMap::new();
        let mut rng = crate::collision::test_util::Rng::new(0x2545_f491_4f6c_dd1d);
        let check = |pairs: &Pairs, reference: &HashMap<u64, ()>| {
            assert_eq!(pairs.list.len(), reference.len());
            for (k, e) in pairs.list.iter().enumerate() {
                assert!(reference.contains_key(&e.key));
                assert_eq!(pairs.place(e.key), Some(k as u32));
            }
        };
        for step in 0..200_000u32 {
            let r = rng.next_u64();
            let (a, b) = ((r % 300) as u32, ((r >> 20) % 300) as u32);
            if a == b {
                continue;
            }
            let key = pair_key(a, b);
            match (pairs.place(key), (r >> 40) % 3 == 0) {
                (Some(k), true) => {
                    assert_eq!(pairs.remove_at(k as usize).key, key);
                    reference.remove(&key);
                }
                (None, false) => {
                    pairs.insert(key);
                    reference.insert(key, ());
                }
                (place, _) => assert_eq!(place.is_some(), reference.contains_key(&key)),
            }
            assert_eq!(pairs.index.len, reference.len());
            if step % 1000 == 0 {
                check(&pairs, &reference);
            }
        }
        check(&pairs, &reference);
        pairs.index = super::PairIndex::of(&pairs.list).unwrap();
        check(&pairs, &reference);
        let mut twice = pairs.list.clone();
        twice.push(twice[0]);
        assert!(super::PairIndex::of(&twice).is_none());
        check(&pairs, &reference);
        assert_eq!(pairs.place(pair_key(1000, 1001)), None);
    }
}
