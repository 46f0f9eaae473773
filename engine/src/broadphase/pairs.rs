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

/// The pair set (a dense list plus a key → position index) and what changed in it during
/// the last update.
#[derive(Default)]
pub(super) struct Pairs {
    pub(super) index: PairMap,
    pub(super) list: Vec<PairEntry>,
    pub(super) begun: Vec<u64>,
    pub(super) ended: Vec<(u64, u32)>,
    /// Scratch of an update: the ended pairs' places in `list`, ascending.
    pub(super) ended_at: Vec<u32>,
}

impl Pairs {
    pub(super) fn insert(&mut self, key: u64) {
        self.index.insert(key, self.list.len() as u32);
        self.list.push(PairEntry { key, value: NULL });
    }

    pub(super) fn remove_at(&mut self, k: usize) -> PairEntry {
        let e = self.list.swap_remove(k);
        self.index.remove(&e.key);
        if let Some(moved) = self.list.get(k) {
            self.index.insert(moved.key, k as u32);
        }
        e
    }
}
