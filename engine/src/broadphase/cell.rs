//! One grid cell's sweep and prune: its member lists kept sorted on the cell's axis, the
//! sweep that finds its new pairs, and the shared access and prefetching of the parallel
//! sweep over the dirty cells.

use super::grid::owner;
use super::proxies::Proxies;
use super::{pair_key, FULL_SORT_ADDED};
use crate::math::prefetch;

/// One occupied cell of the grid: one cache line (asserted below). The sweep's finds and
/// scratch live with the sweeping worker, not here: with a `found` and a `moved_at` list
/// per cell (two more heap blocks, and a second pass over the dirty cells to gather the
/// finds) the cell took two lines, and at 100k bodies the dirty cells' lines no longer
/// stay in cache (see the module doc of `broadphase`).
#[derive(Default)]
#[repr(align(64))]
pub(super) struct Cell {
    pub(super) coord: [i32; 3],
    /// Non-static members, sorted by fat-box minimum on `axis`.
    pub(super) dynamic: Vec<u32>,
    /// Static members, sorted the same way.
    pub(super) statics: Vec<u32>,
    pub(super) axis: u8,
    /// Members added since the last sort (saturating: only `> FULL_SORT_ADDED` matters).
    pub(super) added: u8,
    /// Holds a moved proxy: swept at the next update.
    pub(super) dirty: bool,
    /// In the grid's dirty list (cleared only when the list is processed, so a cell
    /// freed and reused within one update is never listed twice).
    pub(super) listed: bool,
}

const _: () = assert!(std::mem::size_of::<Cell>() == 64);

/// A sweeping worker's output and scratch.
#[derive(Default)]
pub(super) struct SweepScratch {
    /// New pairs owned by the cells swept.
    pub(super) found: Vec<u64>,
    /// Positions of the moved members in the current cell's `dynamic`.
    pub(super) moved_at: Vec<u32>,
    /// The current cell's dynamic members, packed in its sort order.
    dynamic: Vec<Member>,
    /// Its static members, packed the same way.
    statics: Vec<Member>,
}

/// A member's fat box with its id and moved flag, packed so that the sweep reads the
/// cell's members in order from one array instead of gathering each candidate's box from
/// the proxy arrays (figures in `docs/decisions.md`, "The lead").
#[derive(Clone, Copy)]
struct Member {
    min: [f32; 3],
    max: [f32; 3],
    id: u32,
    moved: bool,
}

impl Member {
    #[inline(always)]
    fn overlaps(&self, o: &Member) -> bool {
        // The same comparisons as `Aabb::overlaps` (touching counts), joined with `&`: in a
        // heap of moving bodies each one is close to a coin toss, and one branch for the
        // six costs less than the mispredictions of six.
        (self.min[0] <= o.max[0])
            & (o.min[0] <= self.max[0])
            & (self.min[1] <= o.max[1])
            & (o.min[1] <= self.max[1])
            & (self.min[2] <= o.max[2])
            & (o.min[2] <= self.max[2])
    }
}

/// Packs `ids` into `out`, in their order.
fn gather(ids: &[u32], p: &Proxies, out: &mut Vec<Member>) {
    out.clear();
    out.extend(ids.iter().map(|&id| {
        let bb = &p.fat[id as usize];
        Member {
            min: bb.min.to_array(),
            max: bb.max.to_array(),
            id,
            moved: p.moved(id),
        }
    }));
}

/// Sorts packed members by fat-box minimum on `axis`, ties by id (a full sort, or an
/// insertion sort for a list that is nearly in order already), and writes the order back
/// to `ids`.
fn sort_packed(members: &mut [Member], ids: &mut [u32], axis: usize, full: bool) {
    if full {
        members.sort_unstable_by(|x, y| x.min[axis].total_cmp(&y.min[axis]).then(x.id.cmp(&y.id)));
    } else {
        for i in 1..members.len() {
            let x = members[i];
            let mut j = i;
            while j > 0 && {
                let y = &members[j - 1];
                x.min[axis] < y.min[axis] || (x.min[axis] == y.min[axis] && x.id < y.id)
            } {
                members[j] = members[j - 1];
                j -= 1;
            }
            members[j] = x;
        }
    }
    for (id, m) in ids.iter_mut().zip(members.iter()) {
        *id = m.id;
    }
}

impl Cell {
    pub(super) fn list(&mut self, is_static: bool) -> &mut Vec<u32> {
        if is_static {
            &mut self.statics
        } else {
            &mut self.dynamic
        }
    }

    /// Sorts both lists and appends to `out.found` every overlapping pair this cell owns
    /// that has a moved member and was not a pair before.
    pub(super) fn sweep(&mut self, p: &Proxies, out: &mut SweepScratch) {
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
        let SweepScratch {
            found,
            moved_at,
            dynamic,
            statics,
        } = out;
        gather(&self.dynamic, p, dynamic);
        sort_packed(dynamic, &mut self.dynamic, a, full);
        gather(&self.statics, p, statics);
        sort_packed(statics, &mut self.statics, a, full);
        let (dynamic, statics) = (&dynamic[..], &statics[..]);
        let coord = self.coord;
        // Called for boxes that overlap: the rest of the test.
        let mut test = |x: u32, y: u32| {
            if p.may_pair(x, y)
                && owner(&p.range[x as usize], &p.range[y as usize]) == coord
                && !p.existed(x, y)
            {
                found.push(pair_key(x, y));
            }
        };
        let static_moved = statics.iter().any(|s| s.moved);
        // Where the moved members sit, and the longest member on the axis (how far left a
        // box overlapping a given one can start).
        moved_at.clear();
        let mut max_extent = 0.0f32;
        for (i, m) in dynamic.iter().enumerate() {
            max_extent = max_extent.max(m.max[a] - m.min[a]);
            if m.moved {
                moved_at.push(i as u32);
            }
        }
        if !static_moved && moved_at.len() * 4 <= dynamic.len() {
            // Few moved: scan around each moved member only. To the right, every member
            // starting before it ends; to the left, unmoved members back to where one of
            // the longest could still reach it (moved ones find this one on their right).
            for &i in moved_at.iter() {
                let i = i as usize;
                let x = &dynamic[i];
                for y in &dynamic[i + 1..] {
                    if y.min[a] > x.max[a] {
                        break;
                    }
                    if x.overlaps(y) {
                        test(x.id, y.id);
                    }
                }
                // Slack for the rounding of `max - min` far from the origin.
                let x_min = x.min[a];
                let reach = x_min - max_extent - (x_min.abs() + max_extent) * 4.0 * f32::EPSILON;
                for y in dynamic[..i].iter().rev() {
                    if y.min[a] < reach {
                        break;
                    }
                    if !y.moved & x.overlaps(y) {
                        test(x.id, y.id);
                    }
                }
                for s in statics {
                    if s.min[a] > x.max[a] {
                        break;
                    }
                    if x.overlaps(s) {
                        test(x.id, s.id);
                    }
                }
            }
            return;
        }
        for (i, x) in dynamic.iter().enumerate() {
            for y in &dynamic[i + 1..] {
                if y.min[a] > x.max[a] {
                    break;
                }
                if (x.moved | y.moved) & x.overlaps(y) {
                    test(x.id, y.id);
                }
            }
            if x.moved || static_moved {
                for s in statics {
                    if s.min[a] > x.max[a] {
                        break;
                    }
                    if (x.moved || s.moved) && x.overlaps(s) {
                        test(x.id, s.id);
                    }
                }
            }
        }
    }
}

/// The axis along which the centres of `ids` spread most (`current` for fewer than two).
pub(super) fn spread_axis(ids: &[u32], p: &Proxies, current: u8) -> u8 {
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
pub(super) unsafe fn prefetch_ahead(cells: &CellsPtr, p: &Proxies, chunk: &[u32], k: usize) {
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
pub(super) struct CellsPtr(pub(super) *mut Cell, pub(super) usize);

// SAFETY: `CellsPtr` only hands out cells through `get`, whose callers guarantee that no
// two threads ever hold the same index (the dirty list has no duplicates).
unsafe impl Send for CellsPtr {}
unsafe impl Sync for CellsPtr {}

impl CellsPtr {
    /// # Safety
    /// `index` must be in bounds and no other reference to that cell may exist while the
    /// returned one lives.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn get(&self, index: u32) -> &mut Cell {
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
    pub(super) unsafe fn shared(&self, index: u32) -> &Cell {
        assert!((index as usize) < self.1);
        // SAFETY: in bounds (checked above); not aliased mutably, per the contract.
        unsafe { &*self.0.add(index as usize) }
    }
}
