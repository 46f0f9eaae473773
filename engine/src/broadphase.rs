//! Broadphase: a uniform spatial grid whose cells each keep a sweep-and-prune list.
//!
//! Each proxy (one per shape; the proxy id is the shape's slot index) has a fat AABB, the
//! shape's bounds grown by a margin; it only changes when the shape's tight bounds leave
//! it ([`BroadPhase::move_proxy`]). A resting world therefore moves no proxies and the
//! broadphase costs nothing but the check that nothing moved.
//!
//! The grid is hashed (only occupied cells exist, so there is no world boundary): a proxy
//! sits in every cell its fat box overlaps. Each cell keeps its dynamic and static
//! members apart, each list sorted by the lower bound of the fat box on the cell's own sort
//! axis (the axis along which its members' centres spread most, re-chosen only when a cell
//! takes many new members at once). Frame to frame a cell's order barely changes, so an
//! insertion sort repairs it in near-linear time.
//!
//! An update runs in four phases:
//! 1. **Re-bin** (serial, only the moved proxies): a proxy whose cell range changed leaves
//!    its old cells and joins its new ones; every cell holding a moved proxy is marked dirty.
//! 2. **Sweep** (the dirty cells in parallel): sort, then sweep the sorted list, testing
//!    only pairs with at least one moved member. A pair whose boxes span several common
//!    cells is reported by exactly one of them, its *owner*: the cell at the per-axis
//!    maximum of the two ranges' lower corners, which lies in both ranges. Static members
//!    are only tested against dynamic ones, so a resting pile never re-tests statics
//!    against statics. Pairs already in the pair set are dropped here, in parallel.
//! 3. **Ended pairs** (all pairs in parallel): a pair ends when one of its proxies moved
//!    and the fat boxes no longer overlap.
//! 4. **Apply** (serial): the new pairs, sorted by key, join the pair set; the ended ones,
//!    sorted by key, leave it.
//!
//! Proxies spanning more than [`MAX_CELLS_PER_PROXY`] cells (ground boxes, planes) go to a
//! separate *large* list; a moved proxy is tested against every large one, and a moved
//! large proxy against every proxy, so a large *moving* proxy (a kinematic platform the
//! size of the world) costs O(n) a step. Cell coordinates are clamped to ±2^20: a small
//! body beyond that (10,000 km out with 10 m cells) shares a boundary cell with every
//! other such body; still correct, but their sweep is no longer local. A static proxy that
//! moves (`set_body_transform` on a static body) makes its cells run the full sweep.
//!
//! Memory: at 100k bodies the broadphase's data (cells, member lists, proxy boxes) has
//! left the caches by the next step, so phases 1 and 2 prefetch what the next few moved
//! proxies and dirty cells will read, and a cell is one cache line (its sweep's finds go to
//! the worker's scratch, not to per-cell lists). `impetus-bench run <scene> --steps 200
//! --threads 1`, broadphase ms/step in alternated runs, step by step: one-line cells
//! `large_world` 4.44/4.93 -> 3.69/3.66 (`large_world_10k` 0.316/0.329 -> 0.249/0.255);
//! sweep prefetch 3.59/3.77 -> 2.81/2.84 (0.243/0.256 -> 0.231/0.230); re-bin prefetch
//! 2.73/2.67 -> 2.51/2.40 (0.210/0.209 -> 0.201/0.207).
//!
//! A panic unwinding out of [`BroadPhase::update`] (none is expected on valid input)
//! leaves it inconsistent: the world must not be stepped again after one.
//!
//! The pair set after an update is exactly the set of pairs of overlapping fat boxes that
//! may pair (not the same body, not both static), whatever the thread count or the order
//! cells were swept in; the begun and ended lists are sorted by key, so what the caller
//! does with them never depends on hash order or timing.

use crate::id::NULL;
use crate::math::prefetch;
use crate::math::Aabb;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const ALIVE: u8 = 1;
const STATIC: u8 = 2;
/// The fat box changed (or the proxy is new): set during an update only.
const MOVED: u8 = 4;
/// Listed in `moved`. Kept through destruction, so a slot reused before the next update is
/// not listed twice.
const QUEUED: u8 = 8;
/// In the grid's cells at `range`, or in the large list.
const INSERTED: u8 = 16;
/// In the large list rather than the grid.
const LARGE: u8 = 32;
/// Created since the last update: it had no pairs then.
const NEW: u8 = 64;

/// Cell coordinates are clamped to ±this, so they pack into 21 bits each and never
/// overflow. Clamping is monotonic: boxes that overlap still share a cell.
const COORD_LIMIT: i32 = (1 << 20) - 1;

/// A proxy overlapping more cells than this lives in the large list instead.
pub(crate) const MAX_CELLS_PER_PROXY: u64 = 64;

/// A cell that took more new members than this since its last sort is fully re-sorted,
/// and its sort axis re-chosen, instead of insertion-sorted.
const FULL_SORT_ADDED: u8 = 8;

/// Dirty cells per parallel sweep work item.
const SWEEP_CHUNK: usize = 32;

/// A proxy in at most this many cells keeps their indices, so a moved proxy whose cell
/// range did not change marks its cells without hashing.
const CACHED_CELLS: usize = 8;

/// Cell indices of a proxy (the first [`NULL`] ends the list; all [`NULL`] when the proxy
/// spans more than [`CACHED_CELLS`] cells and its cells are found by hashing).
type CellSlots = [u32; CACHED_CELLS];

/// Automatic cell size: this many times the median largest extent of the first proxies'
/// fat boxes (10 m for unit boxes). Measured against 4 (impetus-bench run <scene> --steps
/// 200, 1 thread, broadphase ms): pile 0.145 -> 0.129, large_world_10k 0.34 -> 0.28,
/// large_world 4.77 -> 4.45.
const AUTO_CELL_FACTOR: f32 = 8.0;

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

/// The block of cells a fat box overlaps, inclusive on both ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellRange {
    lo: [i32; 3],
    hi: [i32; 3],
}

impl CellRange {
    fn count(&self) -> u64 {
        (0..3)
            .map(|a| (self.hi[a] as i64 - self.lo[a] as i64 + 1) as u64)
            .product()
    }

    fn for_each(&self, mut f: impl FnMut([i32; 3])) {
        for x in self.lo[0]..=self.hi[0] {
            for y in self.lo[1]..=self.hi[1] {
                for z in self.lo[2]..=self.hi[2] {
                    f([x, y, z]);
                }
            }
        }
    }
}

/// The cell that reports a pair whose boxes overlap cell ranges `a` and `b`.
#[inline]
fn owner(a: &CellRange, b: &CellRange) -> [i32; 3] {
    [
        a.lo[0].max(b.lo[0]),
        a.lo[1].max(b.lo[1]),
        a.lo[2].max(b.lo[2]),
    ]
}

/// Per-proxy data, indexed by proxy id.
#[derive(Default)]
struct Proxies {
    fat: Vec<Aabb>,
    flags: Vec<u8>,
    body: Vec<u32>,
    range: Vec<CellRange>,
    slots: Vec<CellSlots>,
    /// The fat box at the last update, kept for moved proxies (see [`Proxies::existed`]).
    prev: Vec<Aabb>,
}

impl Proxies {
    /// Whether two proxies may form a pair at all: not the same body, not both static.
    #[inline]
    fn may_pair(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        a != b && self.body[a] != self.body[b] && (self.flags[a] & self.flags[b] & STATIC) == 0
    }

    /// Whether two proxies that may pair were a pair before this update. The pair set is
    /// exactly the overlapping fat boxes of the last update, so this is a box test on the
    /// boxes of then (a moved proxy's previous box), not a probe of the pair set's hash
    /// map: in the 100k-body world those probes missed the cache on every candidate.
    #[inline]
    fn existed(&self, a: u32, b: u32) -> bool {
        self.paired_at_last_update(a, b, MOVED)
    }

    /// Whether two proxies that may pair overlapped at the last update, taking a proxy
    /// flagged `moved_flag` at its previous box: [`MOVED`] during an update, [`QUEUED`]
    /// between updates.
    #[inline]
    fn paired_at_last_update(&self, a: u32, b: u32, moved_flag: u8) -> bool {
        let (a, b) = (a as usize, b as usize);
        let then = |i: usize| {
            if self.flags[i] & moved_flag != 0 {
                &self.prev[i]
            } else {
                &self.fat[i]
            }
        };
        (self.flags[a] | self.flags[b]) & NEW == 0 && then(a).overlaps(then(b))
    }

    #[inline]
    fn moved(&self, id: u32) -> bool {
        self.flags[id as usize] & MOVED != 0
    }

    #[inline]
    fn min(&self, id: u32, axis: usize) -> f32 {
        self.fat[id as usize].min[axis]
    }
}

/// One occupied cell of the grid: one cache line (asserted below). The sweep's finds and
/// scratch live with the sweeping worker, not here: with a `found` and a `moved_at` list
/// per cell (two more heap blocks, and a second pass over the dirty cells to gather the
/// finds) the cell took two lines, and at 100k bodies the dirty cells' lines no longer
/// stay in cache (figures in the module doc).
#[derive(Default)]
#[repr(align(64))]
struct Cell {
    coord: [i32; 3],
    /// Non-static members, sorted by fat-box minimum on `axis`.
    dynamic: Vec<u32>,
    /// Static members, sorted the same way.
    statics: Vec<u32>,
    axis: u8,
    /// Members added since the last sort (saturating: only `> FULL_SORT_ADDED` matters).
    added: u8,
    /// Holds a moved proxy: swept at the next update.
    dirty: bool,
    /// In the grid's dirty list (cleared only when the list is processed, so a cell
    /// freed and reused within one update is never listed twice).
    listed: bool,
}

const _: () = assert!(std::mem::size_of::<Cell>() == 64);

/// A sweeping worker's output and scratch.
#[derive(Default)]
struct SweepScratch {
    /// New pairs owned by the cells swept.
    found: Vec<u64>,
    /// Positions of the moved members in the current cell's `dynamic`.
    moved_at: Vec<u32>,
}

impl Cell {
    fn list(&mut self, is_static: bool) -> &mut Vec<u32> {
        if is_static {
            &mut self.statics
        } else {
            &mut self.dynamic
        }
    }

    /// Sorts both lists and appends to `out.found` every overlapping pair this cell owns
    /// that has a moved member and was not a pair before.
    fn sweep(&mut self, p: &Proxies, out: &mut SweepScratch) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let full = self.added > FULL_SORT_ADDED;
        if full {
            self.axis = spread_axis(&self.dynamic, p, self.axis);
        }
        self.added = 0;
        let a = self.axis as usize;
        sort_members(&mut self.dynamic, p, a, full);
        sort_members(&mut self.statics, p, a, full);
        let coord = self.coord;
        let found = &mut out.found;
        let mut test = |x: u32, y: u32| {
            if p.may_pair(x, y)
                && p.fat[x as usize].overlaps(&p.fat[y as usize])
                && owner(&p.range[x as usize], &p.range[y as usize]) == coord
                && !p.existed(x, y)
            {
                found.push(pair_key(x, y));
            }
        };
        let static_moved = self.statics.iter().any(|&s| p.moved(s));
        // Where the moved members sit, and the longest member on the axis (how far left a
        // box overlapping a given one can start).
        let moved_at = &mut out.moved_at;
        moved_at.clear();
        let mut max_extent = 0.0f32;
        for (i, &x) in self.dynamic.iter().enumerate() {
            let bb = &p.fat[x as usize];
            max_extent = max_extent.max(bb.max[a] - bb.min[a]);
            if p.moved(x) {
                moved_at.push(i as u32);
            }
        }
        if !static_moved && moved_at.len() * 4 <= self.dynamic.len() {
            // Few moved: scan around each moved member only. To the right, every member
            // starting before it ends; to the left, unmoved members back to where one of
            // the longest could still reach it (moved ones find this one on their right).
            for &i in moved_at.iter() {
                let i = i as usize;
                let x = self.dynamic[i];
                let (x_min, x_max) = (p.min(x, a), p.fat[x as usize].max[a]);
                for &y in &self.dynamic[i + 1..] {
                    if p.min(y, a) > x_max {
                        break;
                    }
                    test(x, y);
                }
                // Slack for the rounding of `max - min` far from the origin.
                let reach = x_min - max_extent - (x_min.abs() + max_extent) * 4.0 * f32::EPSILON;
                for &y in self.dynamic[..i].iter().rev() {
                    if p.min(y, a) < reach {
                        break;
                    }
                    if !p.moved(y) {
                        test(x, y);
                    }
                }
                for &s in &self.statics {
                    if p.min(s, a) > x_max {
                        break;
                    }
                    test(x, s);
                }
            }
            return;
        }
        for (i, &x) in self.dynamic.iter().enumerate() {
            let x_max = p.fat[x as usize].max[a];
            let x_moved = p.moved(x);
            for &y in &self.dynamic[i + 1..] {
                if p.min(y, a) > x_max {
                    break;
                }
                if x_moved || p.moved(y) {
                    test(x, y);
                }
            }
            if x_moved || static_moved {
                for &s in &self.statics {
                    if p.min(s, a) > x_max {
                        break;
                    }
                    if x_moved || p.moved(s) {
                        test(x, s);
                    }
                }
            }
        }
    }
}

/// The axis along which the centres of `ids` spread most (`current` for fewer than two).
fn spread_axis(ids: &[u32], p: &Proxies, current: u8) -> u8 {
    if ids.len() < 2 {
        return current;
    }
    let (mut sum, mut sum2) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
    for &id in ids {
        let bb = &p.fat[id as usize];
        let c = (0.5 * (bb.min + bb.max)).as_dvec3();
        sum += c;
        sum2 += c * c;
    }
    let n = ids.len() as f64;
    let var = sum2 / n - (sum / n) * (sum / n);
    if var.x >= var.y && var.x >= var.z {
        0
    } else if var.y >= var.z {
        1
    } else {
        2
    }
}

/// Sorts proxy ids by fat-box minimum on `axis`, ties by id: a full sort, or an insertion
/// sort for a list that is nearly in order already.
fn sort_members(ids: &mut [u32], p: &Proxies, axis: usize, full: bool) {
    let less = |x: u32, y: u32| {
        let (vx, vy) = (p.min(x, axis), p.min(y, axis));
        vx < vy || (vx == vy && x < y)
    };
    if full {
        ids.sort_unstable_by(|&x, &y| p.min(x, axis).total_cmp(&p.min(y, axis)).then(x.cmp(&y)));
        return;
    }
    for i in 1..ids.len() {
        let x = ids[i];
        let mut j = i;
        while j > 0 && less(x, ids[j - 1]) {
            ids[j] = ids[j - 1];
            j -= 1;
        }
        ids[j] = x;
    }
}

/// The hashed grid: occupied cells only, found by packed coordinates.
#[derive(Default)]
struct Grid {
    /// Cell edge, in m; 0 until chosen.
    size: f32,
    inv_size: f32,
    map: PairMap,
    cells: Vec<Cell>,
    free: Vec<u32>,
    /// Cells marked since the last sweep, each once.
    dirty_list: Vec<u32>,
}

impl Grid {
    /// Cells are centred on multiples of the cell size, so that bodies resting on the
    /// plane y = 0 (the commonest ground) sit in one layer of cells instead of straddling
    /// two: a resting unit box's fat box spans y ∈ [−0.12, 1.12], inside the cell
    /// [−5, 5) of the 10 m auto size.
    #[inline]
    fn coord(&self, v: f32) -> i32 {
        (v * self.inv_size + 0.5)
            .floor()
            .clamp(-(COORD_LIMIT as f32), COORD_LIMIT as f32) as i32
    }

    fn range(&self, bb: &Aabb) -> CellRange {
        CellRange {
            lo: [
                self.coord(bb.min.x),
                self.coord(bb.min.y),
                self.coord(bb.min.z),
            ],
            hi: [
                self.coord(bb.max.x),
                self.coord(bb.max.y),
                self.coord(bb.max.z),
            ],
        }
    }

    #[inline]
    fn pack(c: [i32; 3]) -> u64 {
        let f = |v: i32| (v + COORD_LIMIT) as u64;
        f(c[0]) | (f(c[1]) << 21) | (f(c[2]) << 42)
    }

    /// Marks cell `index` for the next sweep.
    #[inline]
    fn mark(&mut self, index: u32) {
        let cell = &mut self.cells[index as usize];
        cell.dirty = true;
        if !cell.listed {
            cell.listed = true;
            self.dirty_list.push(index);
        }
    }

    /// The index of the cell at `c`, created if needed.
    fn cell_at(&mut self, c: [i32; 3]) -> u32 {
        let key = Self::pack(c);
        if let Some(&i) = self.map.get(&key) {
            return i;
        }
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                self.cells.push(Cell::default());
                (self.cells.len() - 1) as u32
            }
        };
        self.cells[i as usize].coord = c;
        self.map.insert(key, i);
        i
    }

    /// Adds proxy `id` to every cell of `range`; returns the cells' indices when there are
    /// at most [`CACHED_CELLS`] of them.
    fn insert(&mut self, id: u32, is_static: bool, range: &CellRange) -> CellSlots {
        let mut slots = [NULL; CACHED_CELLS];
        let cache = range.count() <= CACHED_CELLS as u64;
        let mut k = 0;
        range.for_each(|c| {
            let index = self.cell_at(c);
            let cell = &mut self.cells[index as usize];
            cell.list(is_static).push(id);
            cell.added = cell.added.saturating_add(1);
            self.mark(index);
            if cache {
                slots[k] = index;
                k += 1;
            }
        });
        slots
    }

    /// Removes proxy `id` from its cells (`slots`, or `range` by hashing); frees cells
    /// left empty.
    fn remove(&mut self, id: u32, is_static: bool, range: &CellRange, slots: &CellSlots) {
        let remove_from = |grid: &mut Grid, index: u32| {
            let cell = &mut grid.cells[index as usize];
            let list = cell.list(is_static);
            if let Some(pos) = list.iter().position(|&x| x == id) {
                list.remove(pos);
            }
            if cell.dynamic.is_empty() && cell.statics.is_empty() {
                cell.dirty = false;
                cell.added = 0;
                let key = Self::pack(cell.coord);
                grid.map.remove(&key);
                grid.free.push(index);
            }
        };
        if slots[0] != NULL {
            for &index in slots.iter().take_while(|&&i| i != NULL) {
                remove_from(self, index);
            }
        } else {
            range.for_each(|c| match self.map.get(&Self::pack(c)) {
                Some(&index) => remove_from(self, index),
                None => debug_assert!(false, "proxy {id} missing from its cell"),
            });
        }
    }

    /// Marks the cells of a proxy that moved within them.
    fn mark_cells(&mut self, range: &CellRange, slots: &CellSlots) {
        if slots[0] != NULL {
            for &index in slots.iter().take_while(|&&i| i != NULL) {
                self.mark(index);
            }
        } else {
            range.for_each(|c| {
                if let Some(&i) = self.map.get(&Self::pack(c)) {
                    self.mark(i);
                }
            });
        }
    }
}

/// The dirty cells are visited out of memory order, and at 100k bodies what a sweep reads
/// (the cell, its member list, the members' fat boxes) has left the caches by the next
/// step: while cell `chunk[k]` is swept, start loading the cell four ahead, the member list
/// of the one two ahead and the members' boxes of the next, each stage reading only what
/// the stage before it asked for one or two cells earlier.
///
/// # Safety
/// `chunk` must be the calling worker's own part of the dirty list (see
/// [`CellsPtr::shared`]), and the worker must hold no `&mut` to a cell after `chunk[k]`.
#[inline]
unsafe fn prefetch_ahead(cells: &CellsPtr, p: &Proxies, chunk: &[u32], k: usize) {
    // SAFETY (all three): the cells after `chunk[k]` are this worker's and not yet
    // borrowed, per this function's contract; each view is dropped at once.
    if let Some(&c) = chunk.get(k + 4) {
        prefetch(&unsafe { cells.shared(c) }.coord);
    }
    if let Some(&c) = chunk.get(k + 2) {
        if let Some(first) = unsafe { cells.shared(c) }.dynamic.first() {
            prefetch(first);
        }
    }
    if let Some(&c) = chunk.get(k + 1) {
        for &m in &unsafe { cells.shared(c) }.dynamic {
            prefetch(&p.fat[m as usize]);
        }
    }
}

/// Shared mutable access to the cells for the parallel sweep.
struct CellsPtr(*mut Cell, usize);

// SAFETY: `CellsPtr` only hands out cells through `get`, whose callers guarantee that no
// two threads ever hold the same index (the dirty list has no duplicates).
unsafe impl Send for CellsPtr {}
unsafe impl Sync for CellsPtr {}

impl CellsPtr {
    /// # Safety
    /// `index` must be in bounds and no other reference to that cell may exist while the
    /// returned one lives.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self, index: u32) -> &mut Cell {
        debug_assert!((index as usize) < self.1);
        // SAFETY: in bounds and exclusive, per this function's contract.
        unsafe { &mut *self.0.add(index as usize) }
    }

    /// A shared view of cell `index`.
    ///
    /// # Safety
    /// No `&mut` to that cell may exist while the view lives: the cell must belong to the
    /// caller's part of the dirty list (each worker sweeps a disjoint chunk) and not be
    /// borrowed by the caller's own `get`.
    #[inline]
    unsafe fn shared(&self, index: u32) -> &Cell {
        assert!((index as usize) < self.1);
        // SAFETY: in bounds (checked above); not aliased mutably, per the contract.
        unsafe { &*self.0.add(index as usize) }
    }
}

#[derive(Clone, Copy, Debug)]
struct PairEntry {
    key: u64,
    /// The caller's value (a contact index, or [`NULL`]).
    value: u32,
}

/// The pair set (a dense list plus a key → position index) and what changed in it during
/// the last update.
#[derive(Default)]
struct Pairs {
    index: PairMap,
    list: Vec<PairEntry>,
    begun: Vec<u64>,
    ended: Vec<(u64, u32)>,
}

impl Pairs {
    fn insert(&mut self, key: u64) {
        self.index.insert(key, self.list.len() as u32);
        self.list.push(PairEntry { key, value: NULL });
    }

    fn remove_at(&mut self, k: usize) -> PairEntry {
        let e = self.list.swap_remove(k);
        self.index.remove(&e.key);
        if let Some(moved) = self.list.get(k) {
            self.index.insert(moved.key, k as u32);
        }
        e
    }
}

/// The grid-and-sweep broadphase.
pub(crate) struct BroadPhase {
    proxies: Proxies,
    grid: Grid,
    /// Proxies too large for the grid.
    large: Vec<u32>,
    /// Proxies created or moved since the last update, in call order.
    moved: Vec<u32>,
    pairs: Pairs,
    /// Each sweeping worker's finds and scratch (one per chunk of [`SWEEP_CHUNK`] dirty
    /// cells when parallel, one when serial), kept to reuse their allocations.
    sweep_scratch: Vec<SweepScratch>,
    /// New pairs with a large member, gathered before the cells' finds are added.
    candidates: Vec<u64>,
    live: usize,
}

impl Default for BroadPhase {
    fn default() -> Self {
        Self::new(0.0)
    }
}

impl BroadPhase {
    /// A broadphase whose grid cells have edge `cell_size` (m); 0 chooses it at the first
    /// update from the proxies present: [`AUTO_CELL_FACTOR`] × their median largest extent.
    pub fn new(cell_size: f32) -> Self {
        let mut grid = Grid::default();
        if cell_size > 0.0 {
            grid.size = cell_size;
            grid.inv_size = 1.0 / cell_size;
        }
        BroadPhase {
            proxies: Proxies::default(),
            grid,
            large: Vec::new(),
            moved: Vec::new(),
            pairs: Pairs::default(),
            sweep_scratch: Vec::new(),
            candidates: Vec::new(),
            live: 0,
        }
    }

    /// The grid's cell edge in m (0 before the first update chose it).
    pub fn cell_size(&self) -> f32 {
        self.grid.size
    }

    /// Adds proxy `id` (a shape slot) with its fat box. It joins the pairs at the next update.
    pub fn create_proxy(&mut self, id: u32, fat: Aabb, is_static: bool, body: u32) {
        let i = id as usize;
        let p = &mut self.proxies;
        if i >= p.fat.len() {
            p.fat.resize(i + 1, Aabb::default());
            p.flags.resize(i + 1, 0);
            p.body.resize(i + 1, NULL);
            p.range.resize(i + 1, CellRange::default());
            p.slots.resize(i + 1, [NULL; CACHED_CELLS]);
            p.prev.resize(i + 1, Aabb::default());
        }
        let queued = p.flags[i] & QUEUED;
        p.fat[i] = fat;
        p.flags[i] = ALIVE | QUEUED | NEW | if is_static { STATIC } else { 0 };
        p.body[i] = body;
        if queued == 0 {
            self.moved.push(id);
        }
        self.live += 1;
    }

    /// Removes proxy `id` at once, with all its pairs; returns the values of the pairs that
    /// held one (the contacts the caller must destroy), in key order.
    ///
    /// Its pairs are found from its cells' members and the large list (a large proxy scans
    /// the pair list), so removing a shape costs about its neighbourhood, not the world.
    pub fn destroy_proxy(&mut self, id: u32) -> Vec<u32> {
        let i = id as usize;
        let f = self.proxies.flags[i];
        let mut keys = self.pairs_of(id);
        keys.sort_unstable();
        keys.dedup();
        if f & INSERTED != 0 {
            if f & LARGE != 0 {
                self.large.retain(|&l| l != id);
            } else {
                let (range, slots) = (self.proxies.range[i], self.proxies.slots[i]);
                self.grid.remove(id, f & STATIC != 0, &range, &slots);
            }
        }
        self.proxies.flags[i] = f & QUEUED;
        self.live -= 1;
        let mut values = Vec::new();
        for key in keys {
            match self.pairs.index.get(&key) {
                Some(&k) => {
                    let e = self.pairs.remove_at(k as usize);
                    if e.value != NULL {
                        values.push(e.value);
                    }
                }
                None => debug_assert!(false, "pair {key:x} of proxy {id} is not live"),
            }
        }
        values
    }

    /// The keys of proxy `id`'s live pairs (unsorted, possibly repeated). Between updates
    /// the grid still holds every proxy where the last update put it, and the pairs are
    /// the overlaps of the boxes of then: a queued (moved) proxy's previous box.
    fn pairs_of(&self, id: u32) -> Vec<u64> {
        let p = &self.proxies;
        let i = id as usize;
        let f = p.flags[i];
        if f & INSERTED == 0 || f & NEW != 0 {
            return Vec::new();
        }
        if f & LARGE != 0 {
            return self
                .pairs
                .list
                .iter()
                .map(|e| e.key)
                .filter(|&k| {
                    let (a, b) = pair_ids(k);
                    a == id || b == id
                })
                .collect();
        }
        let mut keys = Vec::new();
        let mut consider = |y: u32| {
            if p.may_pair(id, y) && p.paired_at_last_update(id, y, QUEUED) {
                keys.push(pair_key(id, y));
            }
        };
        let mut visit = |cell: &Cell| {
            cell.dynamic.iter().for_each(|&y| consider(y));
            cell.statics.iter().for_each(|&y| consider(y));
        };
        let slots = &p.slots[i];
        if slots[0] != NULL {
            for &c in slots.iter().take_while(|&&c| c != NULL) {
                visit(&self.grid.cells[c as usize]);
            }
        } else {
            p.range[i].for_each(|c| {
                if let Some(&index) = self.grid.map.get(&Grid::pack(c)) {
                    visit(&self.grid.cells[index as usize]);
                }
            });
        }
        self.large.iter().for_each(|&l| consider(l));
        keys
    }

    /// The fat box of proxy `id`.
    #[inline]
    pub fn fat_aabb(&self, id: u32) -> &Aabb {
        &self.proxies.fat[id as usize]
    }

    /// Replaces the fat box of proxy `id` (its tight box left the old one).
    #[inline]
    pub fn move_proxy(&mut self, id: u32, fat: Aabb) {
        let i = id as usize;
        if self.proxies.flags[i] & QUEUED == 0 {
            self.proxies.prev[i] = self.proxies.fat[i];
            self.proxies.flags[i] |= QUEUED;
            self.moved.push(id);
        }
        self.proxies.fat[i] = fat;
    }

    /// Sets the caller's value of a live pair.
    #[inline]
    pub fn set_pair_value(&mut self, key: u64, value: u32) {
        if let Some(&k) = self.pairs.index.get(&key) {
            self.pairs.list[k as usize].value = value;
        }
    }

    /// The caller's value of a live pair, `None` when the pair does not exist.
    #[inline]
    pub fn pair_value(&self, key: u64) -> Option<u32> {
        self.pairs
            .index
            .get(&key)
            .map(|&k| self.pairs.list[k as usize].value)
    }

    /// Number of live pairs.
    #[inline]
    pub fn pair_count(&self) -> usize {
        self.pairs.list.len()
    }

    /// Number of occupied grid cells.
    pub fn cell_count(&self) -> usize {
        self.grid.map.len()
    }

    /// Brings the pair set up to the moved proxies' fat boxes, using `pool`'s threads when
    /// given. Afterwards [`Self::begun`] lists the new pair keys and [`Self::ended`] the
    /// ended pairs with their values, both sorted by key.
    pub fn update(&mut self, pool: Option<&rayon::ThreadPool>) {
        self.pairs.begun.clear();
        self.pairs.ended.clear();
        if self.moved.is_empty() {
            return;
        }
        if self.grid.size == 0.0 {
            let Some(size) = self.auto_cell_size() else {
                // Only proxies destroyed since they were queued: nothing to size the grid
                // by yet, and nothing to do.
                for &id in &self.moved {
                    self.proxies.flags[id as usize] &= !QUEUED;
                }
                self.moved.clear();
                return;
            };
            self.grid.size = size;
            self.grid.inv_size = 1.0 / size;
        }
        let mut moved = std::mem::take(&mut self.moved);
        self.rebin(&mut moved);

        // Phase 2: sweep the dirty cells; large proxies against the moved ones.
        let p = &self.proxies;
        let dirty = std::mem::take(&mut self.grid.dirty_list);
        let cells = CellsPtr(self.grid.cells.as_mut_ptr(), self.grid.cells.len());
        let sweep = |(chunk, out): (&[u32], &mut SweepScratch)| {
            out.found.clear();
            for (k, &index) in chunk.iter().enumerate() {
                // SAFETY: `chunk` is this worker's (the dirty list has no duplicates and
                // is split into disjoint chunks), and no cell of it is borrowed here: the
                // `&mut` below is taken after and dropped at the end of the iteration.
                // Measured reason: large_world's broadphase (1 thread) 3.59/3.77 ->
                // 2.81/2.84 ms a step, large_world_10k's 0.243/0.256 -> 0.231/0.230 ms.
                unsafe { prefetch_ahead(&cells, p, chunk, k) };
                // SAFETY: the dirty list holds each cell index once (`Grid::mark` lists a
                // cell only while its `listed` flag is clear, and that flag is cleared only
                // here), and every index came from the cell array, which does not change
                // size during the sweep. Measured reason: visiting only the dirty cells
                // instead of every cell (a safe `par_iter_mut`) took large_world's sweep
                // (70k cells, 10k moved proxies, 1 thread) from 1.2 ms to 0.5 ms a step.
                let cell = unsafe { cells.get(index) };
                cell.listed = false;
                cell.sweep(p, out);
            }
        };
        let scratch = &mut self.sweep_scratch;
        match pool {
            Some(pool) if dirty.len() > 2 * SWEEP_CHUNK => {
                scratch.resize_with(dirty.len().div_ceil(SWEEP_CHUNK), Default::default);
                pool.install(|| {
                    dirty
                        .par_chunks(SWEEP_CHUNK)
                        .zip(scratch.par_iter_mut())
                        .for_each(sweep)
                })
            }
            _ => {
                scratch.resize_with(1, Default::default);
                sweep((&dirty, &mut scratch[0]));
            }
        }
        self.candidates.clear();
        self.large_candidates(&moved);

        // Phase 3: ended pairs, found in parallel, in list order (then sorted by key).
        let p = &self.proxies;
        let ends = |e: &PairEntry| {
            let (a, b) = pair_ids(e.key);
            ((p.moved(a) || p.moved(b)) && !p.fat[a as usize].overlaps(&p.fat[b as usize]))
                .then_some((e.key, e.value))
        };
        let list = &self.pairs.list;
        let ended = &mut self.pairs.ended;
        match pool {
            Some(pool) if list.len() > 4096 => pool
                .install(|| ended.par_extend(list.par_iter().with_min_len(1024).filter_map(ends))),
            _ => ended.extend(list.iter().filter_map(ends)),
        }

        // Phase 4: apply, in key order.
        ended.sort_unstable_by_key(|&(k, _)| k);
        for i in 0..self.pairs.ended.len() {
            let key = self.pairs.ended[i].0;
            let k = self.pairs.index[&key] as usize;
            self.pairs.remove_at(k);
        }
        // Only the set matters: the candidates are sorted and deduplicated below, so how the
        // dirty cells were split among workers does not show.
        for out in &self.sweep_scratch {
            self.candidates.extend_from_slice(&out.found);
        }
        let mut dirty = dirty;
        dirty.clear();
        self.grid.dirty_list = dirty;
        self.candidates.sort_unstable();
        self.candidates.dedup();
        for &key in &self.candidates {
            self.pairs.insert(key);
        }
        self.pairs.begun.extend_from_slice(&self.candidates);

        for &id in &moved {
            self.proxies.flags[id as usize] &= !(MOVED | NEW);
        }
        moved.clear();
        self.moved = moved;
    }

    /// Phase 1: every listed proxy still alive is flagged moved and moved to the cells its
    /// fat box now overlaps (or to the large list); dead entries are dropped from `moved`.
    ///
    /// The moved proxies are scattered over the proxy arrays and the cells: four proxies
    /// ahead their data starts loading, two ahead their cells (from the cached slots).
    fn rebin(&mut self, moved: &mut Vec<u32>) {
        let mut kept = 0;
        for k in 0..moved.len() {
            if let Some(&ahead) = moved.get(k + 4) {
                let i = ahead as usize;
                let p = &self.proxies;
                prefetch(&p.flags[i]);
                prefetch(&p.fat[i]);
                prefetch(&p.range[i]);
                prefetch(&p.slots[i]);
            }
            if let Some(&ahead) = moved.get(k + 2) {
                for &c in self.proxies.slots[ahead as usize].iter() {
                    match self.grid.cells.get(c as usize) {
                        Some(cell) => prefetch(&cell.coord),
                        None => break,
                    }
                }
            }
            let id = moved[k];
            if self.rebin_one(id) {
                moved[kept] = id;
                kept += 1;
            }
        }
        moved.truncate(kept);
    }

    /// [`Self::rebin`] of proxy `id`; false if it is dead.
    #[inline]
    fn rebin_one(&mut self, id: u32) -> bool {
        let i = id as usize;
        let f = self.proxies.flags[i] & !QUEUED;
        self.proxies.flags[i] = f;
        if f & ALIVE == 0 {
            return false;
        }
        let is_static = f & STATIC != 0;
        let range = self.grid.range(&self.proxies.fat[i]);
        let large = range.count() > MAX_CELLS_PER_PROXY;
        let mut flags = f | MOVED | INSERTED;
        if f & INSERTED != 0 {
            let (old, slots) = (self.proxies.range[i], self.proxies.slots[i]);
            if f & LARGE != 0 {
                if large {
                    self.proxies.flags[i] = flags;
                    return true;
                }
                self.large.retain(|&l| l != id);
            } else if !large && old == range {
                self.grid.mark_cells(&range, &slots);
                self.proxies.flags[i] = flags;
                return true;
            } else {
                self.grid.remove(id, is_static, &old, &slots);
            }
        }
        if large {
            self.large.push(id);
            flags |= LARGE;
        } else {
            self.proxies.slots[i] = self.grid.insert(id, is_static, &range);
            flags &= !LARGE;
        }
        self.proxies.flags[i] = flags;
        self.proxies.range[i] = range;
        true
    }

    /// New pairs with a large member: each moved grid proxy against every large proxy, and
    /// each moved large proxy against every proxy.
    fn large_candidates(&mut self, moved: &[u32]) {
        if self.large.is_empty() {
            return;
        }
        let p = &self.proxies;
        let out = &mut self.candidates;
        let mut test = |x: u32, y: u32| {
            if p.may_pair(x, y)
                && p.fat[x as usize].overlaps(&p.fat[y as usize])
                && !p.existed(x, y)
            {
                out.push(pair_key(x, y));
            }
        };
        for &id in moved {
            if p.flags[id as usize] & LARGE == 0 {
                for &l in &self.large {
                    test(id, l);
                }
            }
        }
        for &l in &self.large {
            if p.moved(l) {
                for q in 0..p.flags.len() as u32 {
                    if p.flags[q as usize] & ALIVE != 0 {
                        test(l, q);
                    }
                }
            }
        }
    }

    /// [`AUTO_CELL_FACTOR`] × the median largest extent of the queued live proxies' fat
    /// boxes (dynamic ones if there are any), ignoring unbounded ones; 4 m if all are
    /// unbounded; `None` if no queued proxy is alive (the choice waits for real proxies).
    fn auto_cell_size(&self) -> Option<f32> {
        let p = &self.proxies;
        let extent = |id: &u32| {
            let bb = &p.fat[*id as usize];
            (bb.max - bb.min).max_element()
        };
        let alive = |id: &&u32| p.flags[**id as usize] & ALIVE != 0;
        let mut sizes: Vec<f32> = self
            .moved
            .iter()
            .filter(alive)
            .filter(|id| p.flags[**id as usize] & STATIC == 0)
            .map(extent)
            .filter(|e| e.is_finite() && *e < 1.0e4)
            .collect();
        if sizes.is_empty() {
            sizes = self
                .moved
                .iter()
                .filter(alive)
                .map(extent)
                .filter(|e| e.is_finite() && *e < 1.0e4)
                .collect();
        }
        if sizes.is_empty() {
            return self.moved.iter().any(|id| alive(&id)).then_some(4.0);
        }
        let mid = sizes.len() / 2;
        let (_, median, _) = sizes.select_nth_unstable_by(mid, f32::total_cmp);
        Some((AUTO_CELL_FACTOR * *median).clamp(1.0e-3, 1.0e4))
    }

    /// Calls `f` once for every live proxy whose fat box overlaps `aabb` (touching counts);
    /// only static proxies unless `include_dynamic`. Read-only, and valid at any time: between
    /// updates a proxy created or moved since the last one is tested at its new fat box.
    ///
    /// The grid cells covering `aabb` are visited (or every occupied cell, when there are
    /// fewer of those); a proxy spanning several of them is reported only by the cell at the
    /// per-axis maximum of the two ranges' lower corners, as pairs are. Then the large list,
    /// then the proxies queued since the last update. The order depends only on the
    /// broadphase's state, never on threads.
    pub fn query_aabb(&self, aabb: &Aabb, include_dynamic: bool, mut f: impl FnMut(u32)) {
        let p = &self.proxies;
        let mut visit = |id: u32| {
            let flags = p.flags[id as usize];
            if flags & ALIVE != 0
                && (include_dynamic || flags & STATIC != 0)
                && p.fat[id as usize].overlaps(aabb)
            {
                f(id);
            }
        };
        if self.grid.size > 0.0 {
            let q = self.grid.range(aabb);
            let mut in_cell = |cell: &Cell| {
                let lists: &[&Vec<u32>] = if include_dynamic {
                    &[&cell.statics, &cell.dynamic]
                } else {
                    &[&cell.statics]
                };
                for list in lists {
                    for &id in list.iter() {
                        let i = id as usize;
                        // Queued proxies are tested from `moved` (their cells are stale);
                        // the others only in their owner cell.
                        if p.flags[i] & QUEUED == 0 && owner(&q, &p.range[i]) == cell.coord {
                            visit(id);
                        }
                    }
                }
            };
            if q.count() <= self.grid.map.len() as u64 {
                q.for_each(|c| {
                    if let Some(&index) = self.grid.map.get(&Grid::pack(c)) {
                        in_cell(&self.grid.cells[index as usize]);
                    }
                });
            } else {
                // Freed cells have empty lists, so walking the whole array is safe.
                self.grid.cells.iter().for_each(in_cell);
            }
        }
        for &l in &self.large {
            if p.flags[l as usize] & QUEUED == 0 {
                visit(l);
            }
        }
        for &id in &self.moved {
            visit(id);
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::test_util::Rng;
    use glam::Vec3;
    use std::collections::BTreeSet;

    /// A point in the unit cube.
    fn unit3(rng: &mut Rng) -> Vec3 {
        Vec3::new(rng.unit(), rng.unit(), rng.unit())
    }

    /// One test proxy: box, static flag, body, alive.
    #[derive(Clone, Copy)]
    struct P {
        bb: Aabb,
        is_static: bool,
        body: u32,
        alive: bool,
    }

    fn brute(ps: &[P]) -> BTreeSet<u64> {
        let mut v = BTreeSet::new();
        for i in 0..ps.len() {
            for j in i + 1..ps.len() {
                let (a, b) = (&ps[i], &ps[j]);
                if a.alive
                    && b.alive
                    && a.body != b.body
                    && !(a.is_static && b.is_static)
                    && a.bb.overlaps(&b.bb)
                {
                    v.insert(pair_key(i as u32, j as u32));
                }
            }
        }
        v
    }

    fn live_pairs(bp: &BroadPhase) -> BTreeSet<u64> {
        bp.pairs.list.iter().map(|e| e.key).collect()
    }

    /// A random box: mostly small ones in a 60 m region, some spanning many cells, a few
    /// huge (the large list) and a few far outside any sensible region.
    fn random_box(rng: &mut Rng) -> Aabb {
        let kind = rng.unit();
        let (c, e) = if kind < 0.80 {
            (unit3(rng) * 60.0 - 30.0, unit3(rng) * 1.5 + 0.05)
        } else if kind < 0.92 {
            (unit3(rng) * 60.0 - 30.0, unit3(rng) * 12.0 + 2.0)
        } else if kind < 0.96 {
            (
                unit3(rng) * 60.0 - 30.0,
                Vec3::new(500.0, 1.0, 500.0) * (rng.unit() + 0.5),
            )
        } else {
            (
                (unit3(rng) - 0.5) * 2.0e7,
                Vec3::splat(1.0e6) * rng.unit() + Vec3::splat(0.5),
            )
        };
        Aabb {
            min: c - e,
            max: c + e,
        }
    }

    /// Runs random rounds of moves, removals and re-creations and checks the pair set and
    /// the begun/ended lists against brute force after every update.
    fn check_against_brute_force(
        seed: u64,
        pool: Option<&rayon::ThreadPool>,
        cell: f32,
        move_fraction: f32,
    ) {
        let mut rng = Rng::new(seed);
        // Queries draw from their own stream, so the scene's sequence stays as it was.
        let mut query_rng = Rng::new(seed ^ 0x5eed);
        let n = 400;
        let mut ps = Vec::new();
        let mut bp = BroadPhase::new(cell);
        for i in 0..n {
            let p = P {
                bb: random_box(&mut rng),
                is_static: rng.unit() < 0.2,
                body: if rng.unit() < 0.1 {
                    i as u32 / 2
                } else {
                    1000 + i as u32
                },
                alive: true,
            };
            bp.create_proxy(i as u32, p.bb, p.is_static, p.body);
            ps.push(p);
        }
        bp.update(pool);
        assert!(bp.grid.cells.len() > 10 && !bp.large.is_empty());
        let mut model = BTreeSet::new();
        for round in 0..60 {
            let expected = brute(&ps);
            assert!(expected.len() > 100, "the scene has pairs to find");
            assert_eq!(live_pairs(&bp), expected, "seed {seed:x} round {round}");
            // The begun/ended lists are sorted and turn the previous set into this one.
            assert!(bp.begun().windows(2).all(|w| w[0] < w[1]));
            assert!(bp.ended().windows(2).all(|w| w[0].0 < w[1].0));
            for &(k, _) in bp.ended() {
                assert!(model.remove(&k), "ended pair {k:x} was not live");
            }
            for &k in bp.begun() {
                assert!(model.insert(k), "begun pair {k:x} was live");
            }
            assert_eq!(model, expected, "round {round}: begun/ended disagree");
            check_queries(&bp, &ps, &mut query_rng);
            for (i, p) in ps.iter_mut().enumerate() {
                if !p.alive || rng.unit() >= move_fraction {
                    continue;
                }
                let step = if rng.unit() < 0.1 { 20.0 } else { 2.0 };
                let d = (unit3(&mut rng) - 0.5) * step;
                p.bb = Aabb {
                    min: p.bb.min + d,
                    max: p.bb.max + d,
                };
                if rng.unit() < 0.03 {
                    p.bb = random_box(&mut rng);
                }
                bp.move_proxy(i as u32, p.bb);
            }
            for _ in 0..3 {
                let victim = (rng.unit() * n as f32) as usize % n;
                if ps[victim].alive {
                    ps[victim].alive = false;
                    bp.destroy_proxy(victim as u32);
                    // Removed pairs leave the model at once.
                    model.retain(|&k| {
                        let (a, b) = pair_ids(k);
                        a != victim as u32 && b != victim as u32
                    });
                } else {
                    ps[victim].alive = true;
                    ps[victim].bb = random_box(&mut rng);
                    let p = ps[victim];
                    bp.create_proxy(victim as u32, p.bb, p.is_static, p.body);
                }
            }
            // Between updates: moved, destroyed and re-created proxies are queued.
            check_queries(&bp, &ps, &mut query_rng);
            bp.update(pool);
        }
    }

    /// `query_aabb` against brute force over random query boxes: every overlapping live
    /// proxy once, nothing else.
    fn check_queries(bp: &BroadPhase, ps: &[P], rng: &mut Rng) {
        for k in 0..20 {
            let q = if k % 5 == 4 {
                random_box(rng)
            } else {
                let c = unit3(rng) * 60.0 - 30.0;
                let e = unit3(rng) * 8.0;
                Aabb {
                    min: c - e,
                    max: c + e,
                }
            };
            for include_dynamic in [false, true] {
                let mut got = Vec::new();
                bp.query_aabb(&q, include_dynamic, |id| got.push(id));
                let n = got.len();
                got.sort_unstable();
                got.dedup();
                assert_eq!(got.len(), n, "a proxy was reported twice");
                let expected: Vec<u32> = (0..ps.len() as u32)
                    .filter(|&i| {
                        let p = &ps[i as usize];
                        p.alive && (include_dynamic || p.is_static) && p.bb.overlaps(&q)
                    })
                    .collect();
                assert_eq!(got, expected, "query {q:?} dynamic {include_dynamic}");
            }
        }
    }

    #[test]
    fn grid_matches_brute_force() {
        check_against_brute_force(0x1234_5678_9abc_def1, None, 0.0, 0.6);
        check_against_brute_force(0x0bad_cafe_f00d_0001, None, 3.0, 0.6);
        // Few moves per round: cells scan around their moved members only.
        check_against_brute_force(0x3141_5926_5358_9793, None, 8.0, 0.03);
        check_against_brute_force(0x2718_2818_2845_9045, None, 0.0, 0.1);
        // Tiny cells: most proxies span many cells or go to the large list.
        check_against_brute_force(0x2222_3333_4444_5555, None, 0.4, 0.6);
    }

    #[test]
    fn grid_matches_brute_force_in_parallel() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        check_against_brute_force(0x1234_5678_9abc_def1, Some(&pool), 0.0, 0.6);
        check_against_brute_force(0x7777_1111_2222_9999, Some(&pool), 2.0, 0.6);
        check_against_brute_force(0x7777_1111_2222_9999, Some(&pool), 8.0, 0.05);
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
        bp.update(None);
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

    #[test]
    fn auto_cell_size_follows_the_proxies() {
        let mut bp = BroadPhase::default();
        for i in 0..10 {
            let c = Vec3::new(i as f32 * 3.0, 0.0, 0.0);
            bp.create_proxy(
                i,
                Aabb {
                    min: c - 0.5,
                    max: c + 0.5,
                },
                false,
                i,
            );
        }
        bp.update(None);
        assert_eq!(bp.cell_size(), AUTO_CELL_FACTOR);
        assert_eq!(bp.pair_count(), 0);
    }

    #[test]
    fn dead_proxies_do_not_choose_the_cell_size() {
        let mut bp = BroadPhase::default();
        let tiny = Aabb {
            min: Vec3::ZERO,
            max: Vec3::splat(0.01),
        };
        bp.create_proxy(0, tiny, false, 0);
        bp.destroy_proxy(0);
        bp.update(None);
        assert_eq!(bp.cell_size(), 0.0, "nothing alive to size the grid by");
        let unit = Aabb {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        };
        bp.create_proxy(0, unit, false, 0);
        bp.create_proxy(1, unit, false, 1);
        bp.update(None);
        assert_eq!(bp.cell_size(), AUTO_CELL_FACTOR);
        assert_eq!(bp.begun(), &[pair_key(0, 1)]);
    }
}
