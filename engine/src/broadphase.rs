//! Broadphase: incremental sweep-and-prune over fat AABBs on all three axes.
//!
//! Each proxy (one per shape; the proxy id is the shape's slot index) has a fat AABB, the
//! shape's bounds grown by a margin; it only changes when the shape's tight bounds leave
//! it. Every axis keeps its endpoints sorted. Frame to frame the order barely changes, so
//! an insertion sort repairs it in near-linear time, and each swap of a min past a max is
//! exactly a change of overlap on that axis (Baraff 1992; Cohen et al., I-COLLIDE 1995):
//! - a min moving left past a max starts an overlap on this axis: if the two fat boxes now
//!   overlap on all axes, the pair begins;
//! - a max moving left past a min ends the overlap on this axis: the pair ends.
//!
//! Both tests use the final boxes, so the pair set after the sort is exactly the set of
//! overlapping fat boxes, whatever order the swaps came in. Ties sort a min before a max,
//! so touching boxes count as overlapping, as [`Aabb::overlaps`] says.
//!
//! Adding many proxies at once (building a scene) would make the insertion sort quadratic;
//! past a threshold the axes are fully re-sorted and the pairs rebuilt with one sweep.
//!
//! The seam for the spatial grid (DESIGN.md §5) is [`BroadPhase::update`]: it takes the
//! moved fat boxes and produces sorted lists of begun and ended pairs; a grid of per-cell
//! SAPs can produce the same lists.

use crate::shape::Aabb;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Marks "no value" in pair and index slots.
pub(crate) const NULL: u32 = u32::MAX;

const ALIVE: u8 = 1;
const STATIC: u8 = 2;

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

/// A multiplicative hash for `u64` pair keys: std's SipHash is several times slower and
/// its DoS resistance buys nothing here. Lookup only; no result depends on map order.
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

pub(crate) type PairMap = HashMap<u64, u32, BuildHasherDefault<PairHasher>>;

#[derive(Clone, Copy, Debug)]
struct Endpoint {
    value: f32,
    /// proxy << 1 | is_max
    data: u32,
}

impl Endpoint {
    #[inline]
    fn proxy(self) -> u32 {
        self.data >> 1
    }
    #[inline]
    fn is_max(self) -> bool {
        self.data & 1 == 1
    }
    /// Sort order: by value, a min before a max at equal values.
    #[inline]
    fn less(self, other: Endpoint) -> bool {
        self.value < other.value || (self.value == other.value && !self.is_max() && other.is_max())
    }
}

/// Per-proxy data read by the pair tests.
#[derive(Default)]
struct Proxies {
    fat: Vec<Aabb>,
    flags: Vec<u8>,
    body: Vec<u32>,
}

impl Proxies {
    /// Whether two proxies may form a pair at all: not the same body, not both static.
    #[inline]
    fn may_pair(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        a != b && self.body[a] != self.body[b] && (self.flags[a] & self.flags[b] & STATIC) == 0
    }
}

/// The pair set and what changed in it during the last update.
#[derive(Default)]
struct Pairs {
    /// Live pairs; the value is the caller's (a contact index, or [`NULL`]).
    map: PairMap,
    begun: Vec<u64>,
    ended: Vec<(u64, u32)>,
}

impl Pairs {
    #[inline]
    fn begin(&mut self, a: u32, b: u32) {
        let key = pair_key(a, b);
        if let std::collections::hash_map::Entry::Vacant(e) = self.map.entry(key) {
            e.insert(NULL);
            self.begun.push(key);
        }
    }
    #[inline]
    fn end(&mut self, a: u32, b: u32) {
        let key = pair_key(a, b);
        if let Some(value) = self.map.remove(&key) {
            self.ended.push((key, value));
        }
    }
}

/// Incremental three-axis sweep-and-prune.
#[derive(Default)]
pub(crate) struct BroadPhase {
    proxies: Proxies,
    axes: [Vec<Endpoint>; 3],
    pairs: Pairs,
    /// Proxies created since the last update, not yet in the endpoint arrays.
    pending: Vec<u32>,
    /// Some fat box changed since the last update.
    moved: bool,
    live: usize,
}

impl BroadPhase {
    /// Adds proxy `id` (a shape slot) with its fat box. It joins the pairs at the next update.
    pub fn create_proxy(&mut self, id: u32, fat: Aabb, is_static: bool, body: u32) {
        let i = id as usize;
        let p = &mut self.proxies;
        if i >= p.fat.len() {
            p.fat.resize(i + 1, Aabb::default());
            p.flags.resize(i + 1, 0);
            p.body.resize(i + 1, NULL);
        }
        p.fat[i] = fat;
        p.flags[i] = ALIVE | if is_static { STATIC } else { 0 };
        p.body[i] = body;
        self.pending.push(id);
        self.live += 1;
    }

    /// Removes proxy `id` at once, with all its pairs; returns the values of the pairs that
    /// held one (the contacts the caller must destroy), in key order.
    pub fn destroy_proxy(&mut self, id: u32) -> Vec<u32> {
        let i = id as usize;
        self.proxies.flags[i] = 0;
        self.live -= 1;
        if let Some(pos) = self.pending.iter().position(|&p| p == id) {
            self.pending.remove(pos);
        } else {
            for axis in &mut self.axes {
                axis.retain(|e| e.proxy() != id);
            }
        }
        let mut removed: Vec<(u64, u32)> = Vec::new();
        self.pairs.map.retain(|&key, &mut value| {
            let (a, b) = pair_ids(key);
            let keep = a != id && b != id;
            if !keep {
                removed.push((key, value));
            }
            keep
        });
        removed.sort_unstable_by_key(|&(k, _)| k);
        removed
            .into_iter()
            .map(|(_, v)| v)
            .filter(|&v| v != NULL)
            .collect()
    }

    /// The fat box of proxy `id`.
    #[inline]
    pub fn fat_aabb(&self, id: u32) -> &Aabb {
        &self.proxies.fat[id as usize]
    }

    /// Replaces the fat box of proxy `id` (its tight box left the old one).
    #[inline]
    pub fn move_proxy(&mut self, id: u32, fat: Aabb) {
        self.proxies.fat[id as usize] = fat;
        self.moved = true;
    }

    /// Sets the caller's value of a live pair.
    #[inline]
    pub fn set_pair_value(&mut self, key: u64, value: u32) {
        if let Some(v) = self.pairs.map.get_mut(&key) {
            *v = value;
        }
    }

    /// Number of live pairs.
    #[inline]
    pub fn pair_count(&self) -> usize {
        self.pairs.map.len()
    }

    /// Re-sorts the axes after moves and insertions. Afterwards [`Self::begun`] lists the
    /// new pair keys and [`Self::ended`] the ended pairs with their values, both sorted by
    /// key, so what the caller does with them never depends on hash order or timing.
    pub fn update(&mut self) {
        self.pairs.begun.clear();
        self.pairs.ended.clear();
        let pending = self.pending.len();
        if pending > 64 && pending * 8 > self.live {
            self.rebuild();
        } else if pending > 0 || self.moved {
            for &id in &self.pending {
                for axis in &mut self.axes {
                    axis.push(Endpoint {
                        value: f32::MAX,
                        data: id << 1,
                    });
                    axis.push(Endpoint {
                        value: f32::MAX,
                        data: (id << 1) | 1,
                    });
                }
            }
            self.pending.clear();
            for (a, axis) in self.axes.iter_mut().enumerate() {
                refresh_values(axis, &self.proxies.fat, a);
                insertion_sort(axis, &self.proxies, &mut self.pairs);
            }
        }
        self.moved = false;
        self.pairs.begun.sort_unstable();
        self.pairs.ended.sort_unstable_by_key(|&(k, _)| k);
    }

    /// Pairs that began in the last update, sorted by key.
    #[inline]
    pub fn begun(&self) -> &[u64] {
        &self.pairs.begun
    }

    /// Pairs that ended in the last update with their values, sorted by key.
    #[inline]
    pub fn ended(&self) -> &[(u64, u32)] {
        &self.pairs.ended
    }

    /// Full re-sort of every axis and a sweep along x for the complete pair set.
    fn rebuild(&mut self) {
        for &id in &self.pending {
            for axis in &mut self.axes {
                axis.push(Endpoint {
                    value: 0.0,
                    data: id << 1,
                });
                axis.push(Endpoint {
                    value: 0.0,
                    data: (id << 1) | 1,
                });
            }
        }
        self.pending.clear();
        for (a, axis) in self.axes.iter_mut().enumerate() {
            refresh_values(axis, &self.proxies.fat, a);
            // Total order (value, min-before-max, proxy): the result is independent of the
            // previous order, so a rebuild is reproducible.
            axis.sort_unstable_by(|x, y| {
                x.value
                    .total_cmp(&y.value)
                    .then((x.data & 1).cmp(&(y.data & 1)))
                    .then(x.data.cmp(&y.data))
            });
        }
        let mut found: Vec<u64> = Vec::new();
        let mut active: Vec<u32> = Vec::new();
        let p = &self.proxies;
        for e in &self.axes[0] {
            let id = e.proxy();
            if e.is_max() {
                if let Some(pos) = active.iter().position(|&a| a == id) {
                    active.swap_remove(pos);
                }
            } else {
                let bb = &p.fat[id as usize];
                for &other in &active {
                    if p.may_pair(id, other) && bb.overlaps(&p.fat[other as usize]) {
                        found.push(pair_key(id, other));
                    }
                }
                active.push(id);
            }
        }
        found.sort_unstable();
        found.dedup();
        for &key in &found {
            let (a, b) = pair_ids(key);
            self.pairs.begin(a, b);
        }
        let ended = &mut self.pairs.ended;
        self.pairs.map.retain(|&key, &mut value| {
            let keep = found.binary_search(&key).is_ok();
            if !keep {
                ended.push((key, value));
            }
            keep
        });
    }
}

fn refresh_values(axis: &mut [Endpoint], fat: &[Aabb], a: usize) {
    for e in axis.iter_mut() {
        let bb = &fat[e.proxy() as usize];
        e.value = if e.is_max() { bb.max[a] } else { bb.min[a] };
    }
}

fn insertion_sort(axis: &mut [Endpoint], proxies: &Proxies, pairs: &mut Pairs) {
    for i in 1..axis.len() {
        let e = axis[i];
        let mut j = i;
        while j > 0 && e.less(axis[j - 1]) {
            let f = axis[j - 1];
            let (pe, pf) = (e.proxy(), f.proxy());
            if !e.is_max() && f.is_max() {
                if proxies.may_pair(pe, pf)
                    && proxies.fat[pe as usize].overlaps(&proxies.fat[pf as usize])
                {
                    pairs.begin(pe, pf);
                }
            } else if e.is_max() && !f.is_max() {
                pairs.end(pe, pf);
            }
            axis[j] = f;
            j -= 1;
        }
        axis[j] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    struct Rng(u64);
    impl Rng {
        fn f(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    fn brute(boxes: &[Aabb], alive: &[bool]) -> Vec<u64> {
        let mut v = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if alive[i] && alive[j] && boxes[i].overlaps(&boxes[j]) {
                    v.push(pair_key(i as u32, j as u32));
                }
            }
        }
        v
    }

    fn live_pairs(bp: &BroadPhase) -> Vec<u64> {
        let mut v: Vec<u64> = bp.pairs.map.keys().copied().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn incremental_matches_brute_force() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let n = 300;
        let mut boxes: Vec<Aabb> = Vec::new();
        let mut alive = vec![true; n];
        let mut bp = BroadPhase::default();
        for i in 0..n {
            let c = Vec3::new(rng.f(), rng.f(), rng.f()) * 20.0;
            let e = Vec3::new(rng.f(), rng.f(), rng.f()) * 1.5 + 0.05;
            let bb = Aabb {
                min: c - e,
                max: c + e,
            };
            boxes.push(bb);
            bp.create_proxy(i as u32, bb, false, i as u32);
        }
        bp.update();
        assert_eq!(live_pairs(&bp), brute(&boxes, &alive));
        for round in 0..40 {
            for (i, bb) in boxes.iter_mut().enumerate() {
                if !alive[i] || rng.f() < 0.5 {
                    continue;
                }
                let d = (Vec3::new(rng.f(), rng.f(), rng.f()) - 0.5) * 2.0;
                *bb = Aabb {
                    min: bb.min + d,
                    max: bb.max + d,
                };
                bp.move_proxy(i as u32, *bb);
            }
            if round % 7 == 3 {
                let victim = (rng.f() * n as f32) as usize % n;
                if alive[victim] {
                    alive[victim] = false;
                    bp.destroy_proxy(victim as u32);
                }
            }
            bp.update();
            assert_eq!(live_pairs(&bp), brute(&boxes, &alive), "round {round}");
        }
    }

    #[test]
    fn static_pairs_and_same_body_are_skipped() {
        let mut bp = BroadPhase::default();
        let bb = Aabb {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        };
        bp.create_proxy(0, bb, true, 0);
        bp.create_proxy(1, bb, true, 1);
        bp.create_proxy(2, bb, false, 2);
        bp.create_proxy(3, bb, false, 2);
        bp.update();
        assert_eq!(
            bp.begun(),
            &[
                pair_key(0, 2),
                pair_key(0, 3),
                pair_key(1, 2),
                pair_key(1, 3)
            ]
        );
    }
}
