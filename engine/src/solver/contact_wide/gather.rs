//! Rows of floats into lanes by vector loads and transposes: the bodies of a batch (the
//! states and packed masses the workers of a colour share, [`StatesPtr`], gathered into
//! [`BodiesW`] and [`MassW`] and scattered back) and the manifolds' points.

use super::super::wide::{transpose, FloatW, QuatW, SymMat3W, Vec3W, W};
use super::super::{BodyState, MassRow, SolverBodies, MASS_FLOATS};
use crate::id::NULL;
use glam::Vec3;

/// Rows of eight floats in lanes (the points' solver floats): column `k`
/// holds float `k` of every lane's row, by one vector load a row and transposes (for `W`
/// above eight, rows padded to `W` floats).
#[inline(always)]
pub(super) fn row_columns(rows: [&[f32; 8]; W]) -> [FloatW; 8] {
    if W <= 8 {
        let c = lane_columns(rows, 8);
        std::array::from_fn(|k| c[k])
    } else {
        let padded: [[f32; MASS_FLOATS]; W] =
            std::array::from_fn(|i| std::array::from_fn(|k| if k < 8 { rows[i][k] } else { 0.0 }));
        let c = lane_columns(std::array::from_fn(|i| &padded[i]), 8);
        std::array::from_fn(|k| c[k])
    }
}

/// Raw access to the body states shared by the workers of one colour, and to the bodies'
/// packed masses (read only).
///
/// Past the last state and the last mass row, in their vectors' spare capacity, lies one
/// more: the identity state and the zero row (see [`StatesPtr::new`]). A lane's gather
/// reads index `min(i, len)`, so that a [`NULL`] lane (a static body or an empty lane)
/// reads them without a branch: where a lane's side is static is as good as random, and
/// the branch on it was mispredicted often (`docs/decisions.md`, "Where rain's median
/// step goes, pair by pair").
#[derive(Clone, Copy)]
pub(crate) struct StatesPtr {
    ptr: *mut BodyState,
    len: usize,
    masses: *const MassRow,
    masses_len: usize,
}

/// What a [`StatesPtr`] without masses reads for every body's mass row.
static ZERO_ROW: MassRow = MassRow::ZERO;

// SAFETY: the state pointer is only dereferenced by `gather` and `scatter`. Within one
// colour every dynamic body is written by exactly one lane of one batch, and static or
// kinematic bodies are only read, so concurrent batches never touch the same state
// mutably; the identity state past the end is only read. The masses are only read, and
// nothing writes them while a pass runs (the caller lends them for the pass).
unsafe impl Send for StatesPtr {}
unsafe impl Sync for StatesPtr {}

/// Columns `k` of `W` rows of `N` floats in lanes: column `k` holds float `k` of every
/// lane's row; the first `count` columns (rounded up to `W`) are filled, `W` floats of
/// each row at a time by one vector load and a transpose.
#[inline(always)]
pub(super) fn lane_columns<const N: usize>(rows: [&[f32; N]; W], count: usize) -> [FloatW; N] {
    let mut cols = [FloatW::ZERO; N];
    let mut off = 0;
    while off < count {
        // One vector load per lane: element-wise copies cost a noticeable share of
        // the contact solve's instructions.
        let mut block = [FloatW::ZERO; W];
        for (lane, row) in block.iter_mut().zip(rows) {
            let src: &[f32; W] = row[off..off + W].try_into().expect("W floats");
            *lane = FloatW::new(*src);
        }
        cols[off..off + W].copy_from_slice(&transpose(block));
        off += W;
    }
    cols
}

/// The masses of a batch's bodies in lanes: inverse masses and world inverse inertias of
/// A and B (zero for static bodies and empty lanes), gathered from [`MassRow`]s.
pub(crate) struct MassW {
    pub m_a: FloatW,
    pub m_b: FloatW,
    pub i_a: SymMat3W,
    pub i_b: SymMat3W,
}

impl MassW {
    /// The masses of bodies `a` and `b` in lanes, each body's row from `row` (zeros for
    /// [`NULL`]).
    #[inline(always)]
    fn gather<'r>(row: impl Fn(u32) -> &'r [f32; MASS_FLOATS], a: &[u32; W], b: &[u32; W]) -> Self {
        let side = |idx: &[u32; W]| {
            let c = lane_columns(std::array::from_fn(|i| row(idx[i])), 7);
            (
                c[0],
                SymMat3W::from_columns([c[1], c[2], c[3], c[4], c[5], c[6]]),
            )
        };
        let ((m_a, i_a), (m_b, i_b)) = (side(a), side(b));
        MassW { m_a, m_b, i_a, i_b }
    }

    /// The masses of solver bodies `a` and `b` in lanes, from the step's mass rows (zeros
    /// for [`NULL`]).
    #[inline(always)]
    pub(crate) fn of(sb: &SolverBodies, a: &[u32; W], b: &[u32; W]) -> Self {
        let row = |k: u32| match k {
            NULL => &MassRow::ZERO.f,
            k => &sb.mass_rows[k as usize].f,
        };
        Self::gather(row, a, b)
    }
}

impl StatesPtr {
    /// The states and, where the passes read them, the masses (`None`: every row reads as
    /// zero), each with its sentinel written past its end (see the type's comment). Neither
    /// vector may grow or shrink while the pointer is used.
    pub fn new(states: &mut Vec<BodyState>, masses: Option<&mut Vec<MassRow>>) -> Self {
        states.reserve(1);
        states.spare_capacity_mut()[0].write(BodyState::IDENTITY);
        let (masses, masses_len) = match masses {
            Some(m) => {
                m.reserve(1);
                m.spare_capacity_mut()[0].write(MassRow::ZERO);
                (m.as_ptr(), m.len())
            }
            None => (&ZERO_ROW as *const MassRow, 0),
        };
        Self {
            ptr: states.as_mut_ptr(),
            len: states.len(),
            masses,
            masses_len,
        }
    }

    /// The packed mass of body `i`: the zero row for [`NULL`] (and for any index past the
    /// rows, which a valid batch does not hold).
    #[inline(always)]
    fn mass_row(&self, i: u32) -> &[f32; MASS_FLOATS] {
        debug_assert!(i == NULL || (i as usize) < self.masses_len);
        let k = (i as usize).min(self.masses_len);
        // SAFETY: `k <= masses_len`, and the row at `masses_len` is the zero row `new` wrote
        // in the vector's spare capacity (or, without masses, the static zero row the
        // pointer names, `masses_len` being 0); the rows are only read (see the type's
        // comment).
        unsafe { &(*self.masses.add(k)).f }
    }

    /// The masses of bodies `a` and `b` in lanes.
    #[inline(always)]
    pub fn masses(&self, a: &[u32; W], b: &[u32; W]) -> MassW {
        MassW::gather(|i| self.mass_row(i), a, b)
    }

    /// The 16 floats of state `i` (v, 0, w, 0, dp, 0, dq): the identity for [`NULL`] (and
    /// for any index past the states, which a valid batch does not hold), read from the
    /// sentinel without a branch.
    #[inline(always)]
    fn floats(&self, i: u32) -> &[f32; 16] {
        debug_assert!(i == NULL || (i as usize) < self.len);
        let k = (i as usize).min(self.len);
        // SAFETY: `k <= len`, and the state at `len` is the identity `new` wrote in the
        // vector's spare capacity, which no lane writes; see the type's comment for
        // aliasing.
        bytemuck::cast_ref(unsafe { &*self.ptr.add(k) })
    }

    /// The first `count` floats of the states `idx` in lanes: column `k` holds float `k`
    /// of every lane's state. `W` states are transposed `W` floats at a time.
    #[inline(always)]
    fn columns(&self, idx: &[u32; W], count: usize) -> [FloatW; 16] {
        lane_columns(std::array::from_fn(|i| self.floats(idx[i])), count)
    }

    /// Asks for state `i`'s line in the state a store needs (nothing for [`NULL`]): the
    /// passes of a colour whose bodies the other core last wrote ask a few batches ahead.
    #[inline(always)]
    pub fn prefetch_for_write(&self, i: u32) {
        super::super::ask_state(self.ptr as usize, self.len, i as usize);
    }

    /// A copy of state `i` (the identity for [`NULL`]).
    #[inline(always)]
    pub fn get(&self, i: u32) -> BodyState {
        assert!(i == NULL || (i as usize) < self.len);
        bytemuck::cast(*self.floats(i))
    }

    /// Writes the velocity of state `i` (one dynamic body, owned by the caller's
    /// constraint within the colour).
    #[inline(always)]
    pub fn set_velocity(&self, i: u32, v: Vec3, w: Vec3) {
        assert!((i as usize) < self.len);
        // SAFETY: in bounds (checked above); within a colour only the constraint that owns
        // dynamic body `i` writes it (see the type's comment).
        let s = unsafe { &mut *self.ptr.add(i as usize) };
        s.v = v;
        s.w = w;
    }

    /// Writes the velocities `v` (columns 0..3) and `w` (4..7) of lane `i` to state
    /// `idx[i]` where `write[i]`.
    #[inline(always)]
    fn set_velocities(&self, idx: &[u32; W], write: &[bool; W], v: Vec3W, w: Vec3W) {
        let zero = FloatW::ZERO;
        let cols = [v.x, v.y, v.z, zero, w.x, w.y, w.z, zero];
        let mut rows = [[0.0f32; 16]; W];
        let mut off = 0;
        while off < cols.len() {
            let block = std::array::from_fn(|j| cols.get(off + j).copied().unwrap_or(zero));
            for (row, lanes) in rows.iter_mut().zip(transpose(block)) {
                row[off..off + W].copy_from_slice(&lanes.to_array());
            }
            off += W;
        }
        for i in 0..W {
            let k = idx[i] as usize;
            // (A lane out of bounds is never written; none is, as `write` is set only for
            // dynamic bodies. One test for both, where a separate bounds assertion cost a
            // branch a lane.)
            debug_assert!(!write[i] || k < self.len);
            if write[i] & (k < self.len) {
                // SAFETY: in bounds (checked above); only the lane that owns dynamic body
                // `k` in this colour writes it (see the type's comment).
                let s: &mut [f32; 16] = bytemuck::cast_mut(unsafe { &mut *self.ptr.add(k) });
                s[..8].copy_from_slice(&rows[i][..8]);
            }
        }
    }
}

/// Gathered body velocities and deltas of a batch (contacts and ball joints alike).
pub(crate) struct BodiesW {
    pub va: Vec3W,
    pub wa: Vec3W,
    pub vb: Vec3W,
    pub wb: Vec3W,
    /// `dp_B − dp_A`.
    pub dp: Vec3W,
    pub dqa: QuatW,
    pub dqb: QuatW,
}

impl BodiesW {
    /// The lanes' bodies `a`, `b`: velocities and, with `deltas`, position and rotation
    /// deltas (left zero without).
    #[inline(always)]
    pub fn gather(states: StatesPtr, a: &[u32; W], b: &[u32; W], deltas: bool) -> Self {
        let count = if deltas { 16 } else { 8 };
        let a = states.columns(a, count);
        let b = states.columns(b, count);
        let v3 = |c: &[FloatW; 16], k: usize| Vec3W {
            x: c[k],
            y: c[k + 1],
            z: c[k + 2],
        };
        let q = |c: &[FloatW; 16]| QuatW {
            v: v3(c, 12),
            s: c[15],
        };
        BodiesW {
            va: v3(&a, 0),
            wa: v3(&a, 4),
            vb: v3(&b, 0),
            wb: v3(&b, 4),
            dp: v3(&b, 8) - v3(&a, 8),
            dqa: q(&a),
            dqb: q(&b),
        }
    }

    /// The same bodies with no negative zero in their angular velocities (`w + 0` turns
    /// `-0` into `+0` and changes nothing else): the products by the inverse inertias are
    /// only ever added to them, and a sum `w ± p` is `-0` only where `w` is, so the
    /// velocities that come out do not depend on the sign of a zero product (see
    /// [`SymMat3W::mul_by`](crate::solver::wide::SymMat3W::mul_by)).
    #[inline(always)]
    pub fn without_negative_zero_spins(mut self) -> Self {
        let zero = Vec3W {
            x: FloatW::ZERO,
            y: FloatW::ZERO,
            z: FloatW::ZERO,
        };
        (self.wa, self.wb) = (self.wa + zero, self.wb + zero);
        self
    }

    /// Writes the velocities back to the bodies (A's, B's) where their lane's flag is set.
    #[inline(always)]
    pub fn scatter(&self, states: StatesPtr, sides: [(&[u32; W], &[bool; W]); 2]) {
        let [(a, write_a), (b, write_b)] = sides;
        states.set_velocities(a, write_a, self.va, self.wa);
        states.set_velocities(b, write_b, self.vb, self.wb);
    }
}
