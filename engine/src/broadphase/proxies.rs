//! Per-proxy data, indexed by proxy id.

use super::{CellRange, CellSlots, MOVED, NEW, STATIC};
use crate::math::Aabb;

/// Per-proxy data, indexed by proxy id.
#[derive(Default)]
pub(super) struct Proxies {
    pub(super) fat: Vec<Aabb>,
    pub(super) flags: Vec<u8>,
    pub(super) body: Vec<u32>,
    pub(super) range: Vec<CellRange>,
    pub(super) slots: Vec<CellSlots>,
    /// The fat box at the last update, kept for moved proxies (see [`Proxies::existed`]).
    pub(super) prev: Vec<Aabb>,
    /// How each proxy's fat box grows (the caller's: see [`super::BroadPhase::growth`]).
    pub(super) growth: Vec<u16>,
}

impl Proxies {
    /// Whether two proxies may form a pair at all: not the same body, not both static.
    #[inline]
    pub(super) fn may_pair(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        a != b && self.body[a] != self.body[b] && (self.flags[a] & self.flags[b] & STATIC) == 0
    }

    /// Whether two proxies that may pair were a pair before this update. The pair set is
    /// exactly the overlapping fat boxes of the last update, so this is a box test on the
    /// boxes of then (a moved proxy's previous box), not a probe of the pair set's hash
    /// map: in the 100k-body world those probes missed the cache on every candidate.
    #[inline]
    pub(super) fn existed(&self, a: u32, b: u32) -> bool {
        self.paired_at_last_update(a, b, MOVED)
    }

    /// Whether two proxies that may pair overlapped at the last update, taking a proxy
    /// flagged `moved_flag` at its previous box: [`MOVED`] during an update, [`QUEUED`](super::QUEUED)
    /// between updates.
    #[inline]
    pub(super) fn paired_at_last_update(&self, a: u32, b: u32, moved_flag: u8) -> bool {
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
    pub(super) fn moved(&self, id: u32) -> bool {
        self.flags[id as usize] & MOVED != 0
    }
}
