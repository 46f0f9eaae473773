//! The hashed grid: cell ranges of fat boxes, the occupied cells found by packed
//! coordinates, and their insertion, removal and dirty marking.

use super::cell::Cell;
use super::{CellSlots, PairMap, CACHED_CELLS, COORD_LIMIT};
use crate::id::NULL;
use crate::math::Aabb;

/// The block of cells a fat box overlaps, inclusive on both ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct CellRange {
    pub(super) lo: [i32; 3],
    pub(super) hi: [i32; 3],
}

impl CellRange {
    pub(super) fn count(&self) -> u64 {
        (0..3)
            .map(|a| (self.hi[a] as i64 - self.lo[a] as i64 + 1) as u64)
            .product()
    }

    pub(super) fn for_each(&self, mut f: impl FnMut([i32; 3])) {
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
pub(super) fn owner(a: &CellRange, b: &CellRange) -> [i32; 3] {
    [
        a.lo[0].max(b.lo[0]),
        a.lo[1].max(b.lo[1]),
        a.lo[2].max(b.lo[2]),
    ]
}

/// The hashed grid: occupied cells only, found by packed coordinates.
#[derive(Default)]
pub(super) struct Grid {
    /// Cell edge, in m; 0 until chosen.
    pub(super) size: f32,
    pub(super) inv_size: f32,
    pub(super) map: PairMap,
    pub(super) cells: Vec<Cell>,
    pub(super) free: Vec<u32>,
    /// Cells marked since the last sweep, each once.
    pub(super) dirty_list: Vec<u32>,
}

impl Grid {
    /// Cells are centred on multiples of the cell size, so that bodies resting on the
    /// plane y = 0 (the commonest ground) sit in one layer of cells instead of straddling
    /// two: a resting unit box's fat box spans y ∈ [−0.12, 1.12], inside the cell
    /// [−5, 5) of the 10 m auto size.
    #[inline]
    pub(super) fn coord(&self, v: f32) -> i32 {
        (v * self.inv_size + 0.5)
            .floor()
            .clamp(-(COORD_LIMIT as f32), COORD_LIMIT as f32) as i32
    }

    pub(super) fn range(&self, bb: &Aabb) -> CellRange {
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
    pub(super) fn pack(c: [i32; 3]) -> u64 {
        let f = |v: i32| (v + COORD_LIMIT) as u64;
        f(c[0]) | (f(c[1]) << 21) | (f(c[2]) << 42)
    }

    /// Marks cell `index` for the next sweep.
    #[inline]
    pub(super) fn mark(&mut self, index: u32) {
        let cell = &mut self.cells[index as usize];
        cell.dirty = true;
        if !cell.listed {
            cell.listed = true;
            self.dirty_list.push(index);
        }
    }

    /// The index of the cell at `c`, created if needed.
    pub(super) fn cell_at(&mut self, c: [i32; 3]) -> u32 {
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
    pub(super) fn insert(&mut self, id: u32, is_static: bool, range: &CellRange) -> CellSlots {
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
    pub(super) fn remove(
        &mut self,
        id: u32,
        is_static: bool,
        range: &CellRange,
        slots: &CellSlots,
    ) {
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
    pub(super) fn mark_cells(&mut self, range: &CellRange, slots: &CellSlots) {
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
