//! Broadphase: a uniform spatial grid whose cells each keep a sweep-and-prune list.
//!
//! Each proxy (one per shape; the proxy id is the shape's slot index) has a fat AABB, the
//! shape's bounds grown by a margin (and, as the world sets it, stretched ahead along the
//! body's motion: see `world/bounds.rs`); it only changes when the shape's tight bounds
//! leave it ([`BroadPhase::move_proxy`]). A resting world therefore moves no proxies and the
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
//! 2. **Sweep** (the dirty cells in parallel, in runs of about equal member counts): sort,
//!    then sweep the sorted list, testing only pairs with at least one moved member. A
//!    pair whose boxes span several common cells is reported by exactly one of them, its
//!    *owner*: the cell at the per-axis maximum of the two ranges' lower corners, which
//!    lies in both ranges. Static members are only tested against dynamic ones, so a
//!    resting pile never re-tests statics against statics. Pairs already in the pair set
//!    are dropped here, in parallel.
//! 3. **Ended pairs** (all pairs in parallel): a pair ends when one of its proxies moved
//!    and the fat boxes no longer overlap.
//! 4. **Apply** (serial): the ended pairs leave the pair list from its end backwards, by
//!    the places phase 3 found them at (no lookup), and are reported sorted by key; the
//!    new pairs, sorted by key, join it.
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
//! the worker's scratch, not to per-cell lists). Each of the three (one-line cells, the
//! sweep's prefetch, the re-bin's prefetch) measurably shortened the broadphase of
//! `large_world` and `large_world_10k` (figures in `docs/decisions.md`).
//!
//! A panic unwinding out of [`BroadPhase::update`] (none is expected on valid input)
//! leaves it inconsistent: the world must not be stepped again after one.
//!
//! The pair set after an update is exactly the set of pairs of overlapping fat boxes that
//! may pair (not the same body, not both static), whatever the thread count or the order
//! cells were swept in; the begun and ended lists are sorted by key, so what the caller
//! does with them never depends on hash order or timing.

mod cell;
mod grid;
mod pairs;
mod proxies;

use crate::id::NULL;
use crate::math::prefetch;
use crate::math::Aabb;
use cell::{prefetch_ahead, Cell, CellsPtr, SweepScratch};
use grid::{owner, CellRange, Grid};
pub(crate) use pairs::{pair_ids, pair_key, PairMap};
use pairs::{PairEntry, Pairs};
use proxies::Proxies;
use rayon::prelude::*;

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

/// The sweep's work items are runs of dirty cells holding about equal numbers of members
/// (a cell's sweep costs about its member count): the list is cut into some
/// `SWEEP_ITEMS_PER_WORKER` items per worker, each of at least [`SWEEP_MIN_WORK`] members
/// (plus [`SWEEP_CELL_WORK`] a cell for its fixed cost), and swept serially below two
/// items' work. Cutting by members rather than by a fixed count of cells spreads a few
/// crowded cells (a layer of bodies over a ground) as well as many sparse ones.
const SWEEP_ITEMS_PER_WORKER: usize = 4;
/// The least work (members) of a parallel sweep item.
const SWEEP_MIN_WORK: usize = crate::parallel::par_min(512);
/// A cell's fixed share of the sweep's work, counted in members.
const SWEEP_CELL_WORK: usize = 16;

/// A proxy in at most this many cells keeps their indices, so a moved proxy whose cell
/// range did not change marks its cells without hashing.
const CACHED_CELLS: usize = 8;

/// Cell indices of a proxy (the first [`NULL`] ends the list; all [`NULL`] when the proxy
/// spans more than [`CACHED_CELLS`] cells and its cells are found by hashing).
type CellSlots = [u32; CACHED_CELLS];

/// Automatic cell size: this many times the median largest extent of the first proxies'
/// fat boxes (10 m for unit boxes). Measured against 4: the broadphase is faster with 8 in
/// `pile`, `large_world_10k` and `large_world`.
const AUTO_CELL_FACTOR: f32 = 8.0;

/// The grid-and-sweep broadphase.
pub(crate) struct BroadPhase {
    proxies: Proxies,
    grid: Grid,
    /// Proxies too large for the grid.
    large: Vec<u32>,
    /// Proxies created or moved since the last update, in call order.
    moved: Vec<u32>,
    pairs: Pairs,
    /// Each sweep work item's finds and scratch (one per item when parallel, one when
    /// serial), kept to reuse their allocations.
    sweep_scratch: Vec<SweepScratch>,
    /// Where each sweep work item ends in the dirty list (see [`SWEEP_MIN_WORK`]).
    sweep_ends: Vec<usize>,
    /// New pairs with a large member, gathered before the cells' finds are added.
    candidates: Vec<u64>,
    live: usize,
}

/// Cuts the dirty list into the sweep's work items (see [`SWEEP_MIN_WORK`]): `ends` gets
/// each item's end in `dirty`, a single item when the work is too small to share among
/// `workers`. Which cells an item holds never shows in the result (the finds are sorted).
fn split_sweep(cells: &[Cell], dirty: &[u32], workers: usize, ends: &mut Vec<usize>) {
    ends.clear();
    let work = |&i: &u32| {
        let c = &cells[i as usize];
        c.dynamic.len() + c.statics.len() + SWEEP_CELL_WORK
    };
    // One worker: one item, without counting the members.
    let total: usize = if workers > 1 {
        dirty.iter().map(work).sum()
    } else {
        0
    };
    if total >= 2 * SWEEP_MIN_WORK {
        let target = (total / (SWEEP_ITEMS_PER_WORKER * workers)).max(SWEEP_MIN_WORK);
        let mut acc = 0;
        for (k, i) in dirty.iter().enumerate() {
            acc += work(i);
            if acc >= target {
                ends.push(k + 1);
                acc = 0;
            }
        }
    }
    if ends.last() != Some(&dirty.len()) {
        ends.push(dirty.len());
    }
}

impl Default for BroadPhase {
    fn default() -> Self {
        Self::new(0.0)
    }
}

impl BroadPhase {
    /// Proxy slots (live or free), for a restored state's check.
    pub fn proxy_count(&self) -> usize {
        self.proxies.fat.len()
    }

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
            sweep_ends: Vec::new(),
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
            p.growth.resize(i + 1, 0);
        }
        p.growth[i] = 0;
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
            match self.pairs.place(key) {
                Some(k) => {
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

    /// The caller's record of how proxy `id`'s fat box grows (0 for a new proxy).
    #[inline]
    pub fn growth(&self, id: u32) -> u16 {
        self.proxies.growth[id as usize]
    }

    /// Replaces the fat box of proxy `id` (its tight box left the old one), with the
    /// caller's record of how it grows.
    #[inline]
    pub fn move_proxy(&mut self, id: u32, fat: Aabb, growth: u16) {
        let i = id as usize;
        self.proxies.growth[i] = growth;
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
        if let Some(k) = self.pairs.place(key) {
            self.pairs.list[k as usize].value = value;
        }
    }

    /// Sets the caller's value of the `k`th pair of [`Self::begun`], before any pair is
    /// added or removed: the update appends the begun pairs to the pair list in that
    /// order, so no lookup is needed.
    #[inline]
    pub fn set_begun_value(&mut self, k: usize, value: u32) {
        let first = self.pairs.list.len() - self.pairs.begun.len();
        let e = &mut self.pairs.list[first + k];
        debug_assert_eq!(e.key, self.pairs.begun[k]);
        e.value = value;
    }

    /// The caller's value of a live pair, `None` when the pair does not exist.
    #[inline]
    pub fn pair_value(&self, key: u64) -> Option<u32> {
        self.pairs
            .place(key)
            .map(|k| self.pairs.list[k as usize].value)
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
                // Measured reason: it shortens the broadphase of `large_world` and
                // `large_world_10k` (figures in `docs/decisions.md`).
                unsafe { prefetch_ahead(&cells, p, chunk, k) };
                // SAFETY: the dirty list holds each cell index once (`Grid::mark` lists a
                // cell only while its `listed` flag is clear, and that flag is cleared only
                // here), and every index came from the cell array, which does not change
                // size during the sweep. Measured reason: visiting only the dirty cells
                // instead of every cell (a safe `par_iter_mut`) more than halves
                // `large_world`'s sweep (figures in `docs/decisions.md`).
                let cell = unsafe { cells.get(index) };
                cell.listed = false;
                cell.sweep(p, out);
            }
        };
        let scratch = &mut self.sweep_scratch;
        let ends = &mut self.sweep_ends;
        let workers = pool.map_or(1, |pool| pool.current_num_threads());
        split_sweep(&self.grid.cells, &dirty, workers, ends);
        match pool {
            Some(pool) if ends.len() > 1 => {
                scratch.resize_with(ends.len(), Default::default);
                pool.install(|| {
                    ends.par_iter()
                        .enumerate()
                        .map(|(k, &end)| &dirty[if k == 0 { 0 } else { ends[k - 1] }..end])
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

        // Phase 3: ended pairs, found in parallel by their places in the list, in list order.
        let p = &self.proxies;
        let ends = |(k, e): (usize, &PairEntry)| {
            let (a, b) = pair_ids(e.key);
            ((p.moved(a) || p.moved(b)) && !p.fat[a as usize].overlaps(&p.fat[b as usize]))
                .then_some(k as u32)
        };
        let list = &self.pairs.list;
        let ended_at = &mut self.pairs.ended_at;
        ended_at.clear();
        match pool {
            Some(pool) if list.len() > crate::parallel::par_min(4096) => pool.install(|| {
                ended_at.par_extend(
                    list.par_iter()
                        .enumerate()
                        .with_min_len(1024)
                        .filter_map(ends),
                )
            }),
            _ => ended_at.extend(list.iter().enumerate().filter_map(ends)),
        }

        // Phase 4: apply. The ended pairs are reported in key order, and leave the list
        // from its end backwards (`Pairs::remove_ended`).
        let ended = &mut self.pairs.ended;
        ended.extend(self.pairs.ended_at.iter().map(|&k| {
            let e = &list[k as usize];
            (e.key, e.value)
        }));
        ended.sort_unstable_by_key(|&(k, _)| k);
        self.pairs.remove_ended();
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
        self.pairs.insert_all(&self.candidates);
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

mod encode;

#[cfg(test)]
mod tests;
