//! The broadphase in a state (section `BRPH`): the grid, the proxies without what the grid
//! gives, the pair list as differences.

use super::cell::Cell;
use super::grid::{CellRange, Grid};
use super::pairs::{pair_ids, PairEntry, PairIndex, Pairs};
use super::proxies::Proxies;
use super::{BroadPhase, CellSlots, CACHED_CELLS, MOVED, QUEUED};
use crate::error::Error;
use crate::id::NULL;
use crate::math::Aabb;

crate::codec::fields!(Cell {
    coord,
    dynamic,
    statics,
    axis,
    added,
    dirty,
    listed
});
crate::codec::fields!(CellRange { lo, hi });
/// The cell indices a proxy in cells `range` keeps (see [`Grid::insert`]): the cells'
/// indices in `range` order when there are at most [`CACHED_CELLS`], else none. A cell
/// not in the grid gives [`NULL`]. Safe on any range (a decoded one may be corrupt).
fn derived_slots(grid: &Grid, range: &CellRange) -> CellSlots {
    let mut slots = [NULL; CACHED_CELLS];
    let mut count = 1i64;
    for a in 0..3 {
        let extent = range.hi[a] as i64 - range.lo[a] as i64 + 1;
        if extent <= 0 {
            return slots;
        }
        count = count.saturating_mul(extent);
    }
    if count > CACHED_CELLS as i64 {
        return slots;
    }
    let mut k = 0;
    range.for_each(|c| {
        slots[k] = grid.map.get(&Grid::pack(c)).copied().unwrap_or(NULL);
        k += 1;
    });
    slots
}

/// How a proxy is written: its flags, fat box and body, a byte saying which of its range
/// and cell slots are written (they are not when they are what the grid gives for the fat
/// box), those, and its previous fat box only while it is queued or moved (the only times
/// it is read: [`Proxies::paired_at_last_update`]; `move_proxy` sets it before it queues).
const RANGE_WRITTEN: u8 = 1;
const SLOTS_WRITTEN: u8 = 2;

fn put_proxies(p: &Proxies, grid: &Grid, w: &mut crate::codec::Writer<'_>) {
    w.put(&(p.fat.len() as u32));
    for i in 0..p.fat.len() {
        let f = p.flags[i];
        w.put(&f);
        w.put(&p.fat[i]);
        w.put(&p.body[i]);
        let mut written = 0;
        if p.range[i] != grid.range(&p.fat[i]) {
            written |= RANGE_WRITTEN;
        }
        if p.slots[i] != derived_slots(grid, &p.range[i]) {
            written |= SLOTS_WRITTEN;
        }
        w.put(&written);
        if written & RANGE_WRITTEN != 0 {
            w.put(&p.range[i]);
        }
        if written & SLOTS_WRITTEN != 0 {
            w.put(&p.slots[i]);
        }
        if f & (QUEUED | MOVED) != 0 {
            w.put(&p.prev[i]);
        }
    }
}

fn get_proxies(grid: &Grid, r: &mut crate::codec::Reader<'_>) -> Result<Proxies, Error> {
    let n = r.count()?;
    let mut p = Proxies::default();
    for _ in 0..n {
        let f: u8 = r.get()?;
        let fat: Aabb = r.get()?;
        p.body.push(r.get()?);
        let written: u8 = r.get()?;
        if written > (RANGE_WRITTEN | SLOTS_WRITTEN) {
            return Err(r.error("holds a broadphase proxy with unknown flags"));
        }
        let range = if written & RANGE_WRITTEN != 0 {
            r.get()?
        } else {
            grid.range(&fat)
        };
        p.slots.push(if written & SLOTS_WRITTEN != 0 {
            r.get()?
        } else {
            derived_slots(grid, &range)
        });
        // Not read before `move_proxy` sets it unless queued or moved.
        p.prev.push(if f & (QUEUED | MOVED) != 0 {
            r.get()?
        } else {
            Aabb::default()
        });
        p.flags.push(f);
        p.fat.push(fat);
        p.range.push(range);
    }
    Ok(p)
}

/// The pair list in its own order (which decides the order of new contacts), each pair as
/// three zigzag varints: its smaller proxy less the previous pair's, its larger less its
/// smaller, its value less the previous pair's (pairs begin in key order and take
/// contacts in that order, so the differences are small). The key index is rebuilt.
fn put_pairs(list: &[PairEntry], w: &mut crate::codec::Writer<'_>) {
    w.put(&(list.len() as u32));
    let (mut last_lo, mut last_value) = (0u32, 0u32);
    for e in list {
        let (lo, hi) = pair_ids(e.key);
        w.put(&(lo.wrapping_sub(last_lo) as i32));
        w.put(&(hi.wrapping_sub(lo) as i32));
        w.put(&(e.value.wrapping_sub(last_value) as i32));
        (last_lo, last_value) = (lo, e.value);
    }
}

fn get_pairs(r: &mut crate::codec::Reader<'_>) -> Result<Vec<PairEntry>, Error> {
    let n = r.count()?;
    let mut list = Vec::with_capacity(n);
    let (mut last_lo, mut last_value) = (0u32, 0u32);
    for _ in 0..n {
        let lo = last_lo.wrapping_add(r.get::<i32>()? as u32);
        let hi = lo.wrapping_add(r.get::<i32>()? as u32);
        let value = last_value.wrapping_add(r.get::<i32>()? as u32);
        list.push(PairEntry {
            key: (lo as u64) << 32 | hi as u64,
            value,
        });
        (last_lo, last_value) = (lo, value);
    }
    Ok(list)
}

/// The cell map is not written: it maps the packed coordinates of every cell not in the
/// free list to its index, and is rebuilt from the cells.
impl crate::codec::Field for Grid {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&self.size);
        w.put(&self.inv_size);
        w.put(&self.cells);
        w.put(&self.free);
        w.put(&self.dirty_list);
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let size = r.get()?;
        let inv_size = r.get()?;
        let cells: Vec<Cell> = r.get()?;
        let free: Vec<u32> = r.get()?;
        let mut is_free = vec![false; cells.len()];
        for &i in &free {
            match is_free.get_mut(i as usize) {
                Some(f) if !*f => *f = true,
                _ => return Err(r.error("holds a free grid cell twice or past the cells")),
            }
        }
        let map = (0..cells.len())
            .filter(|&i| !is_free[i])
            .map(|i| (Grid::pack(cells[i].coord), i as u32))
            .collect();
        Ok(Grid {
            size,
            inv_size,
            map,
            cells,
            free,
            dirty_list: r.get()?,
        })
    }
}

/// The grid first (the proxies' ranges and slots are derived from it), then the proxies,
/// the large and moved lists, the pairs and what the last update changed.
impl crate::codec::Field for BroadPhase {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&self.grid);
        put_proxies(&self.proxies, &self.grid, w);
        w.put(&self.large);
        w.put(&self.moved);
        put_pairs(&self.pairs.list, w);
        w.put(&self.pairs.begun);
        w.put(&self.pairs.ended);
        w.put(&self.live);
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let grid: Grid = r.get()?;
        let proxies = get_proxies(&grid, r)?;
        let large = r.get()?;
        let moved = r.get()?;
        let list = get_pairs(r)?;
        let index = PairIndex::of(&list).ok_or_else(|| r.error("holds a broadphase pair twice"))?;
        let pairs = Pairs {
            index,
            list,
            begun: r.get()?,
            ended: r.get()?,
            ended_at: Vec::new(),
        };
        Ok(BroadPhase {
            proxies,
            grid,
            large,
            moved,
            pairs,
            sweep_scratch: Vec::new(),
            sweep_ends: Vec::new(),
            candidates: Vec::new(),
            live: r.get()?,
        })
    }
}

impl BroadPhase {
    /// The proxies' growths in a state (section `GROW`, beside `BRPH` so that a reader of
    /// format 3.0 skips it): the proxies whose growth is not zero, each as its id less the
    /// previous one's and its growth.
    pub(crate) fn put_growth(&self, w: &mut crate::codec::Writer<'_>) {
        let growth = &self.proxies.growth;
        let set = (0..growth.len()).filter(|&i| growth[i] != 0);
        w.put(&(set.clone().count() as u32));
        let mut last = 0u32;
        for i in set {
            w.put(&(i as u32 - last));
            w.put(&growth[i]);
            last = i as u32;
        }
    }

    /// Reads what [`Self::put_growth`] wrote: (proxy, growth) pairs in increasing order of
    /// proxy.
    pub(crate) fn get_growth(r: &mut crate::codec::Reader<'_>) -> Result<Vec<(u32, u16)>, Error> {
        let n = r.count()?;
        let mut list = Vec::with_capacity(n);
        let mut last = 0u32;
        for k in 0..n {
            let step: u32 = r.get()?;
            if k > 0 && step == 0 {
                return Err(r.error("holds a proxy's growth twice"));
            }
            last = last
                .checked_add(step)
                .ok_or_else(|| r.error("holds a proxy's growth past the proxies"))?;
            list.push((last, r.get()?));
        }
        Ok(list)
    }

    /// Sets the growths read by [`Self::get_growth`] (every other proxy's is zero); `Err`
    /// when one names a proxy past the proxies.
    pub(crate) fn set_growth(&mut self, list: &[(u32, u16)]) -> Result<(), Error> {
        let growth = &mut self.proxies.growth;
        growth.clear();
        growth.resize(self.proxies.fat.len(), 0);
        for &(i, g) in list {
            match growth.get_mut(i as usize) {
                Some(slot) => *slot = g,
                None => {
                    return Err(Error::invalid(
                        "state",
                        "holds a proxy's growth past the proxies",
                    ))
                }
            }
        }
        Ok(())
    }
}
