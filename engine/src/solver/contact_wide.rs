//! Contact constraints solved `W` at a time in SIMD lanes.
//!
//! The kernels are the scalar ones of [`super::contact`], written once more over lanes:
//! lane `i` of a [`ContactConstraintW`] is one manifold; all manifolds of a batch come
//! from the same colour, so no two lanes write the same dynamic body and a batch can be
//! gathered, solved and scattered without conflicts. Empty lanes and missing points have
//! zero masses, so they compute zero impulses and are never written back.
//!
//! Body velocities are gathered from the dense `BodyState` array (64 bytes a body: one
//! cache line per lane) and scattered back to dynamic bodies only; their masses are
//! gathered from the packed [`MassRow`](super::MassRow)s. A batch keeps only what cannot be
//! recomputed cheaply from those and its normal: the passes stream every batch from memory,
//! so its size sets their cost on large scenes (`docs/decisions.md`, "The lead"). The
//! points' twist levers are the exception: since the passes prefetch their batches, their
//! instructions cost more than those bytes.

use super::contact::{null_impulses, NULL_TINY};
use super::stack::{MASS_RATIO, SUPPORT_COS};
use super::wide::{put3, FloatW, Vec3W, W};
use super::{BodyState, Softness, SolverBodies, StepContext};
use crate::collision::{Manifold, MAX_POINTS};
use crate::contact::{Contact, TANGENT};
use crate::id::NULL;
use crate::math::perpendicular;
use glam::Vec3;

#[cfg(feature = "validate")]
mod check;
mod gather;
use gather::{lane_columns, row_columns};
pub(crate) use gather::{BodiesW, MassW, StatesPtr};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointW {
    r_a: Vec3W,
    r_b: Vec3W,
    base_separation: FloatW,
    normal_mass: FloatW,
    /// The point's arm across the normal from the manifold's centre on A: what the twist
    /// friction's limit weighs the point's load by. Kept rather than worked out in every
    /// pass: the passes are bound by their instructions now, not by the bytes they stream
    /// (`docs/decisions.md`, "The twist levers kept in the batch").
    lever: FloatW,
}

/// `W` contact manifolds of one colour.
///
/// `repr(C)`, the impulses and the normal first: they are what the next step's narrowphase
/// copies into the manifolds (see [`Self::store_lane`]), one lane at a time out of batches
/// no longer in cache, and together they fill the batch's first [`IMPULSE_BYTES`] (seven
/// lines) instead of a dozen lines spread over it.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct ContactConstraintW {
    /// The normal; the tangents are computed from it where they are used ([`tangents`]),
    /// as the bodies' masses are gathered and the softness chosen per pass (see
    /// [`MassW`]), so that less of the batch is streamed from memory every pass.
    normal: Vec3W,
    friction_impulse: [FloatW; 2],
    twist_impulse: FloatW,
    /// Each point's accumulated normal impulse, and its largest of the step (zero for the
    /// points past `points_used`).
    normal_impulse: [FloatW; MAX_POINTS],
    max_normal_impulse: [FloatW; MAX_POINTS],
    a: [u32; W],
    b: [u32; W],
    /// Write back to body A / B of the lane (dynamic bodies only).
    write_a: [bool; W],
    write_b: [bool; W],
    /// The lane's contact index, [`NULL`] for an empty lane.
    source: [u32; W],
    points_used: usize,
    /// Whether a lane has a one-point manifold (whose twist row is left out: see `solve`).
    lone: bool,
    /// The lanes (a bit each) with four points between bodies of different masses (a
    /// static or kinematic side counts as massless): they drop their null impulses in every
    /// relax pass, the others in the step's last only (see [`StepContext::drop_null`]).
    /// By lane, not by batch, so that the results do not depend on the lane width.
    uneven: u32,
    /// Whether every lane's bodies have isotropic inverse inertias (`k I`, a cube's or a
    /// sphere's, static sides and empty lanes included): the passes then multiply by `k`
    /// alone ([`SymMat3W::mul_by`](super::wide::SymMat3W::mul_by)).
    isotropic: bool,
    friction: FloatW,
    center_a: Vec3W,
    center_b: Vec3W,
    k11: FloatW,
    k12: FloatW,
    k22: FloatW,
    /// The relative surface velocity friction drives towards, along t1 and t2 (a contact
    /// modifier's conveyor belt; zero otherwise).
    tangent_speed: [FloatW; 2],
    twist_mass: FloatW,
    /// The lane's number of points (0 for an empty lane).
    counts: [u8; W],
    points: [PointW; MAX_POINTS],
}

/// The bytes at the start of a [`ContactConstraintW`] that hold its normal and impulses.
const IMPULSE_BYTES: usize = std::mem::offset_of!(ContactConstraintW, a);

/// The friction directions of normals `n` in lanes: `t1 = perpendicular(n)` (the same
/// operations as [`perpendicular`], so the same bits) and `t2 = n × t1`.
#[inline(always)]
fn tangents(n: Vec3W) -> (Vec3W, Vec3W) {
    let one = FloatW::splat(1.0);
    let sign = n.z.is_sign_negative().select(-one, one);
    let a = FloatW::splat(-1.0) / (sign + n.z);
    let b = n.x * n.y * a;
    let t1 = Vec3W {
        x: one + sign * n.x * n.x * a,
        y: sign * b,
        z: -sign * n.x,
    };
    (t1, n.cross(t1))
}

impl ContactConstraintW {
    /// Prepares up to `W` touching contacts (indices `ids` into `contacts`) into lanes:
    /// the same quantities as the scalar [`prepare`](super::contact::prepare), with the
    /// per-lane inputs gathered first and the arithmetic done in lanes. Returns whether a
    /// lane may hold a body on one [`MASS_RATIO`] times lighter (three or four points, the
    /// normal within 45° of up): only then does the step look for stacks (see
    /// [`super::stack`]).
    pub fn prepare(
        &mut self,
        contacts: &[Contact],
        tangent_velocities: &[Vec3],
        ids: &[u32],
        sb: &SolverBodies,
        ctx: &StepContext,
    ) -> bool {
        let mut speeds = [[0.0f32; W]; 2];
        debug_assert!(!ids.is_empty() && ids.len() <= W);
        // Gather: a contact's scattered fields by scalar loads per lane into plain arrays,
        // one array per component so each becomes a lane register by a plain load; each
        // point's eight solver floats, which lie in a row, by one load a lane and a
        // transpose (`row_columns`: the scalar copies of the points were most of prepare's
        // gather); the bodies' masses and velocities, whole aligned rows, by transposes as
        // the passes gather them.
        let mut a = [NULL; W];
        let mut b = [NULL; W];
        let mut source = [NULL; W];
        let mut vecs = [[[0.0f32; W]; 3]; 2]; // normal, friction impulse
        let mut f = [[0.0f32; W]; 4]; // friction, static friction, twist, count
        let mut manifolds: [Option<&Manifold>; W] = [None; W];
        let mut points_used = 0;
        for (i, &id) in ids.iter().enumerate() {
            let c = &contacts[id as usize];
            let (ba, bb) = (c.body_a as usize, c.body_b as usize);
            (a[i], b[i], source[i]) = (sb.index[ba], sb.index[bb], id);
            let m = &c.manifold;
            put3(&mut vecs[0], i, m.normal);
            put3(&mut vecs[1], i, m.friction_impulse);
            let row = [
                c.friction,
                c.static_friction,
                m.twist_impulse,
                m.count as f32,
            ];
            for (field, v) in f.iter_mut().zip(row) {
                field[i] = v;
            }
            manifolds[i] = Some(m);
            points_used = points_used.max(m.count);
            if c.flags & TANGENT != 0 {
                let tv = tangent_velocities[id as usize];
                let t1 = perpendicular(m.normal);
                (speeds[0][i], speeds[1][i]) = (tv.dot(t1), tv.dot(m.normal.cross(t1)));
            }
        }

        // Compute in lanes.
        let v = |k: usize| Vec3W::from_lanes(&vecs[k]);
        let fl = |k: usize| FloatW::new(f[k]);
        // The tangents in lanes, as the passes compute them (the same bits as
        // `perpendicular` and a cross product lane by lane).
        let n = v(0);
        let (t1, t2) = tangents(n);
        let state = |k: u32| -> &[f32; 16] {
            if k == NULL {
                bytemuck::cast_ref(&BodyState::IDENTITY)
            } else {
                bytemuck::cast_ref(&sb.states[k as usize])
            }
        };
        let velocities = |idx: &[u32; W]| {
            let c = lane_columns(std::array::from_fn(|i| state(idx[i])), 8);
            let v3 = |k: usize| Vec3W {
                x: c[k],
                y: c[k + 1],
                z: c[k + 2],
            };
            (v3(0), v3(4))
        };
        let ((va, wa), (vb, wb)) = (velocities(&a), velocities(&b));
        let MassW { m_a, m_b, i_a, i_b } = MassW::of(sb, &a, &b);
        self.isotropic = i_a.isotropic() && i_b.isotropic();
        let zero = FloatW::ZERO;
        // Write back to the dynamic bodies only (a static or kinematic side has no inverse
        // mass, nor has an empty lane).
        let (write_a, write_b) = (
            m_a.to_array().map(|m| m > 0.0),
            m_b.to_array().map(|m| m > 0.0),
        );
        let one = FloatW::splat(1.0);
        let inv = |x: FloatW| {
            x.simd_gt(zero)
                .select(one / x.max(FloatW::splat(f32::MIN_POSITIVE)), zero)
        };
        // K(d, e) = (m_a + m_b) d·e + (r_a × d)·I_a (r_a × e) + (r_b × d)·I_b (r_b × e)
        // The products by the inverse inertias as the passes take them (`mul_by`): on a
        // `k I` lane the two kinds differ only in the signs of zeros, which the sums
        // below lose against their positive mass terms, but for `k12` (see its `+ 0`).
        let isotropic = self.isotropic;
        let turn = |i: &super::wide::SymMat3W, v: Vec3W| {
            if isotropic {
                i.mul_by::<true>(v)
            } else {
                i.mul_by::<false>(v)
            }
        };
        let k = |r_a: Vec3W, r_b: Vec3W, d: Vec3W, e: Vec3W| {
            let (ad, ae) = (r_a.cross(d), r_a.cross(e));
            let (bd, be) = (r_b.cross(d), r_b.cross(e));
            (m_a + m_b) * d.dot(e) + ad.dot(turn(&i_a, ae)) + bd.dot(turn(&i_b, be))
        };
        let count = fl(3);
        // Each point's solver floats in lanes: each lane's point by one vector load and the
        // lanes by a transpose (zeros where a lane has no such point).
        let zero_row = [0.0f32; 8];
        let points: [[FloatW; 8]; MAX_POINTS] = std::array::from_fn(|j| {
            if j >= points_used {
                return [zero; 8];
            }
            row_columns(std::array::from_fn(|i| match manifolds[i] {
                Some(m) if j < m.count => m.points[j].solver_row(),
                _ => &zero_row,
            }))
        });
        let arms = |j: usize| {
            let c = &points[j];
            (
                Vec3W {
                    x: c[0],
                    y: c[1],
                    z: c[2],
                },
                Vec3W {
                    x: c[3],
                    y: c[4],
                    z: c[5],
                },
            )
        };
        let inv_count = one / count.max(one);
        let mut center_a = Vec3W::gather(&[Vec3::ZERO; W]);
        let mut center_b = center_a;
        for j in 0..points_used {
            let (r_a, r_b) = arms(j);
            center_a = center_a + r_a;
            center_b = center_b + r_b;
        }
        center_a = inv_count * center_a;
        center_b = inv_count * center_b;
        for (j, out) in self.points.iter_mut().enumerate() {
            if j >= points_used {
                *out = PointW::default();
                (self.normal_impulse[j], self.max_normal_impulse[j]) = (zero, zero);
                continue;
            }
            let (r_a, r_b) = arms(j);
            let active = count.simd_gt(FloatW::splat(j as f32)).select(one, zero);
            let offset = r_a - center_a;
            let tangential = offset - n.dot(offset) * n;
            *out = PointW {
                r_a,
                r_b,
                base_separation: points[j][6] - n.dot(r_b - r_a),
                normal_mass: active * inv(k(r_a, r_b, n, n)),
                lever: tangential.dot(tangential).sqrt(),
            };
            self.normal_impulse[j] = points[j][7];
            self.max_normal_impulse[j] = zero;
        }
        let (k11, k12, k22) = (
            k(center_a, center_b, t1, t1),
            k(center_a, center_b, t1, t2),
            k(center_a, center_b, t2, t2),
        );
        let det = k11 * k22 - k12 * k12;
        let regular = det.simd_gt(zero);
        let inv_det = one / regular.select(det, one);
        let fi = v(1);
        (self.a, self.b, self.write_a, self.write_b, self.source) =
            (a, b, write_a, write_b, source);
        self.points_used = points_used;
        self.normal = n;
        // Static or kinetic friction, from how fast the surfaces slide at the centre now
        // (relative to the surface velocity a modifier asked for); as the scalar kernel.
        let tangent_speed = speeds.map(FloatW::new);
        let slide = vb + wb.cross(center_b) - va - wa.cross(center_a);
        let (s1, s2) = (
            slide.dot(t1) - tangent_speed[0],
            slide.dot(t2) - tangent_speed[1],
        );
        let v_static = FloatW::splat(ctx.static_friction_speed);
        let sticks = (s1 * s1 + s2 * s2).simd_lt(v_static * v_static);
        self.friction = sticks.select(fl(1), fl(0));
        (self.center_a, self.center_b) = (center_a, center_b);
        self.k11 = regular.select(k22 * inv_det, inv(k11));
        // `+ 0`: a zero `k12` (tangents at right angles to the last bit, no turn between
        // them) has the sign its batch's products gave it; made positive, it is the same
        // in either kind of batch.
        self.k12 = regular.select(-k12 * inv_det, zero) + zero;
        self.k22 = regular.select(k11 * inv_det, inv(k22));
        self.friction_impulse = [fi.dot(t1), fi.dot(t2)];
        self.tangent_speed = tangent_speed;
        self.twist_mass = inv(n.dot(turn(&i_a, n)) + n.dot(turn(&i_b, n)));
        self.twist_impulse = fl(2);
        self.counts = f[3].map(|c| c as u8);
        self.lone = self.counts.contains(&1);
        let up = ctx.up();
        let rise = n.dot(Vec3W::gather(&[up; W]));
        let (cos, ratio) = (FloatW::splat(SUPPORT_COS), FloatW::splat(MASS_RATIO));
        let b_on_a = rise.simd_ge(cos) & m_b.simd_gt(zero) & m_a.simd_ge(ratio * m_b);
        let a_on_b = (-rise).simd_ge(cos) & m_a.simd_gt(zero) & m_b.simd_ge(ratio * m_a);
        let plane = count.simd_ge(FloatW::splat(3.0));
        let four = count.simd_ge(FloatW::splat(MAX_POINTS as f32));
        self.uneven = (four & m_a.simd_ne(m_b)).to_bitmask();
        ((b_on_a | a_on_b) & plane).any()
    }

    /// [`Self::prepare`] of a batch laid out as the last step's, made again over it: the
    /// lanes in `kept` (a bit a lane) are contacts whose impulses the narrow phase left in
    /// this batch, in the same lane, where the last store put them (their manifolds were
    /// recycled in a scene at rest; see `World::collide`). Their impulses are taken from
    /// the batch as [`Self::store_lane`] would have put them into the manifold and prepare
    /// read them back: the same bits (checked with the `validate` feature).
    pub fn prepare_keeping(
        &mut self,
        contacts: &[Contact],
        tangent_velocities: &[Vec3],
        ids: &[u32],
        sb: &SolverBodies,
        ctx: &StepContext,
        kept: u32,
    ) -> bool {
        if kept == 0 {
            return self.prepare(contacts, tangent_velocities, ids, sb, ctx);
        }
        #[cfg(feature = "validate")]
        let old = *self;
        let (normal, friction, twist) = (
            self.normal_impulse,
            self.friction_impulse,
            self.twist_impulse,
        );
        let seeds = self.prepare(contacts, tangent_velocities, ids, sb, ctx);
        let zero = FloatW::ZERO;
        let bit = std::array::from_fn(|l| if kept >> l & 1 != 0 { 1.0 } else { 0.0 });
        let keep = FloatW::new(bit).simd_gt(zero);
        let count = FloatW::new(self.counts.map(f32::from));
        for (j, (l, &old)) in self.normal_impulse.iter_mut().zip(&normal).enumerate() {
            if j == self.points_used {
                break;
            }
            let point = count.simd_gt(FloatW::splat(j as f32));
            *l = keep.select(point.select(old, zero), *l);
        }
        let [f1, f2] = self.round_trip(friction);
        let [g1, g2] = &mut self.friction_impulse;
        (*g1, *g2) = (keep.select(f1, *g1), keep.select(f2, *g2));
        self.twist_impulse = keep.select(twist, self.twist_impulse);
        #[cfg(feature = "validate")]
        self.check_through_manifolds(
            &old,
            kept,
            seeds,
            contacts,
            tangent_velocities,
            ids,
            sb,
            ctx,
        );
        seeds
    }

    /// The friction impulse `f` (along this batch's tangents) turned into a world vector
    /// and back, as [`Self::store_lane`] writes it (`t1 f1 + t2 f2`) and [`Self::prepare`]
    /// reads it (`F · t1`, `F · t2`).
    #[inline]
    fn round_trip(&self, f: [FloatW; 2]) -> [FloatW; 2] {
        let (t1, t2) = tangents(self.normal);
        let fi = f[0] * t1 + f[1] * t2;
        [fi.dot(t1), fi.dot(t2)]
    }

    /// Brings a batch that [`Self::prepare`] made last step, and the passes then solved,
    /// up to this step, where nothing it was made from changed but the points'
    /// separations: the same lanes (contacts and bodies), every manifold recycled (its
    /// normal, arms and count as they were) with its impulses as the last store left them,
    /// the bodies' masses, their isotropic inverse inertias and the gravity as they were,
    /// and each lane's kinetic and static friction the same (so its friction does not
    /// depend on how fast it slides). It works out what [`Self::prepare`] would of the
    /// rest: each point's base separation from `separations` (per lane, zero past its
    /// count), the friction impulse turned into a world vector and back as the store and
    /// prepare turn it, the largest impulses cleared; the masses, arms and levers stay. The
    /// same bits as [`Self::prepare`] from the contacts (checked with the `validate`
    /// feature), without loading them.
    pub fn refresh(&mut self, separations: &[[f32; MAX_POINTS]; W]) {
        let zero = FloatW::ZERO;
        let n = self.normal;
        let count = FloatW::new(self.counts.map(f32::from));
        let rows = self.points.iter_mut().zip(&mut self.normal_impulse);
        for (j, ((p, l), max)) in rows.zip(&mut self.max_normal_impulse).enumerate() {
            if j == self.points_used {
                break;
            }
            let s = FloatW::new(separations.map(|lane| lane[j]));
            p.base_separation = s - n.dot(p.r_b - p.r_a);
            let point = count.simd_gt(FloatW::splat(j as f32));
            *l = point.select(*l, zero);
            *max = zero;
        }
        // Through the world vector, as the store and prepare turn it; an empty lane's is zero.
        let live = count.simd_gt(zero);
        let [f1, f2] = self.round_trip(self.friction_impulse);
        self.friction_impulse = [live.select(f1, zero), live.select(f2, zero)];
        self.twist_impulse = live.select(self.twist_impulse, zero);
    }

    /// Whether every lane's bodies have isotropic inverse inertias (see the field).
    pub fn isotropic(&self) -> bool {
        self.isotropic
    }

    /// The lanes' solver bodies A and B ([`NULL`] for a static body or an empty lane).
    pub fn bodies(&self) -> (&[u32; W], &[u32; W]) {
        (&self.a, &self.b)
    }

    /// Takes lane `lane` out of the passes for the step (its manifold is solved in a
    /// stack, see [`super::stack`]): no masses, no impulses, nothing written back.
    pub fn take_lane(&mut self, lane: usize) {
        let clear = |x: &mut FloatW| {
            let mut a = x.to_array();
            a[lane] = 0.0;
            *x = FloatW::new(a);
        };
        for p in &mut self.points {
            clear(&mut p.normal_mass);
        }
        for (l, max) in self
            .normal_impulse
            .iter_mut()
            .zip(&mut self.max_normal_impulse)
        {
            clear(l);
            clear(max);
        }
        let [f1, f2] = &mut self.friction_impulse;
        for x in [
            &mut self.k11,
            &mut self.k12,
            &mut self.k22,
            &mut self.twist_mass,
            &mut self.twist_impulse,
            &mut self.friction,
            f1,
            f2,
        ] {
            clear(x);
        }
        (self.write_a[lane], self.write_b[lane]) = (false, false);
        self.counts[lane] = 0;
    }

    /// The most points of a lane (what the point loops run to).
    #[cfg(feature = "validate")]
    pub fn points_used(&self) -> usize {
        self.points_used
    }

    /// The bytes of a batch that its passes read when its fullest lane has `points`
    /// points: all but the points past those (the last fields).
    pub fn read_bytes(points: usize) -> usize {
        std::mem::offset_of!(ContactConstraintW, points) + points * std::mem::size_of::<PointW>()
    }

    /// Lane `lane`'s normal impulse of this substep so far, summed over its points.
    pub fn normal_load(&self, lane: usize) -> f32 {
        self.normal_impulse[..self.points_used]
            .iter()
            .map(|l| l.to_array()[lane])
            .sum()
    }

    /// Starts loading what [`Self::store_lane`] reads of every lane: the normal and the
    /// impulses, the batch's first [`IMPULSE_BYTES`].
    #[inline]
    pub fn prefetch_impulses(&self) {
        crate::math::prefetch_head(self, IMPULSE_BYTES);
    }

    /// Copies lane `lane`'s accumulated impulses into its manifold `m` (the lane's
    /// contact's) for the next step's warm start. The friction impulse goes back as a world
    /// vector, from the tangents of the lane's normal computed as [`tangents`] computes them
    /// in lanes (the same operations, so the same bits).
    pub fn store_lane(&self, lane: usize, m: &mut Manifold) {
        // One float of each row, read in place.
        let at = |x: &FloatW| x.as_array()[lane];
        let n = Vec3::new(at(&self.normal.x), at(&self.normal.y), at(&self.normal.z));
        let t1 = perpendicular(n);
        let t2 = n.cross(t1);
        let [f1, f2] = [at(&self.friction_impulse[0]), at(&self.friction_impulse[1])];
        m.friction_impulse = t1 * f1 + t2 * f2;
        m.twist_impulse = at(&self.twist_impulse);
        let impulses = self.normal_impulse.iter().zip(&self.max_normal_impulse);
        for (p, (l, max)) in m.points[..m.count].iter_mut().zip(impulses) {
            p.normal_impulse = at(l);
            p.max_normal_impulse = at(max);
        }
    }

    /// The lanes' bodies, their angular velocities with no negative zero
    /// ([`BodiesW::without_negative_zero_spins`]).
    #[inline(always)]
    fn gather_bodies(&self, states: StatesPtr, deltas: bool) -> BodiesW {
        BodiesW::gather(states, &self.a, &self.b, deltas).without_negative_zero_spins()
    }

    #[inline(always)]
    fn scatter(&self, states: StatesPtr, b: &BodiesW) {
        b.scatter(states, [(&self.a, &self.write_a), (&self.b, &self.write_b)]);
    }

    #[inline(always)]
    fn apply<const ISO: bool>(m: &MassW, b: &mut BodiesW, r_a: Vec3W, r_b: Vec3W, p: Vec3W) {
        b.va = b.va - m.m_a * p;
        b.wa = b.wa - m.i_a.mul_by::<ISO>(r_a.cross(p));
        b.vb = b.vb + m.m_b * p;
        b.wb = b.wb + m.i_b.mul_by::<ISO>(r_b.cross(p));
    }

    #[inline(always)]
    fn apply_angular<const ISO: bool>(m: &MassW, b: &mut BodiesW, l: Vec3W) {
        b.wa = b.wa - m.i_a.mul_by::<ISO>(l);
        b.wb = b.wb + m.i_b.mul_by::<ISO>(l);
    }

    #[inline]
    fn relative_velocity(b: &BodiesW, r_a: Vec3W, r_b: Vec3W) -> Vec3W {
        b.vb + b.wb.cross(r_b) - b.va - b.wa.cross(r_a)
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&self, states: StatesPtr) {
        if self.isotropic {
            self.warm_start_with::<true>(states)
        } else {
            self.warm_start_with::<false>(states)
        }
    }

    #[inline(always)]
    fn warm_start_with<const ISO: bool>(&self, states: StatesPtr) {
        let mut b = self.gather_bodies(states, false);
        let m = states.masses(&self.a, &self.b);
        let points = self.points.iter().zip(&self.normal_impulse);
        for (cp, &l) in points.take(self.points_used) {
            Self::apply::<ISO>(&m, &mut b, cp.r_a, cp.r_b, l * self.normal);
        }
        let (t1, t2) = tangents(self.normal);
        let f = self.friction_impulse[0] * t1 + self.friction_impulse[1] * t2;
        Self::apply::<ISO>(&m, &mut b, self.center_a, self.center_b, f);
        Self::apply_angular::<ISO>(&m, &mut b, self.twist_impulse * self.normal);
        self.scatter(states, &b);
    }

    /// One pass: with bias (`solve`) or without (`relax`). Same rows, same order as
    /// [`super::contact::solve`].
    ///
    /// Clamps use `fast_max` / `fast_min` (a bare `maxps`): `wide`'s `max` adds a NaN
    /// test of the second operand, which is finite in any valid state, so the results are
    /// the same.
    pub fn solve(&mut self, states: StatesPtr, ctx: &StepContext, use_bias: bool) {
        if self.isotropic {
            self.solve_with::<true>(states, ctx, use_bias)
        } else {
            self.solve_with::<false>(states, ctx, use_bias)
        }
    }

    /// [`Self::solve`], with the products by the inverse inertias of
    /// [`SymMat3W::mul_by`](super::wide::SymMat3W::mul_by).
    #[inline(always)]
    fn solve_with<const ISO: bool>(
        &mut self,
        states: StatesPtr,
        ctx: &StepContext,
        use_bias: bool,
    ) {
        let mut b = self.gather_bodies(states, true);
        let m = states.masses(&self.a, &self.b);
        let zero = FloatW::ZERO;
        let one = FloatW::splat(1.0);
        let inv_h = FloatW::splat(ctx.inv_h);
        let max_push = FloatW::splat(-ctx.max_push_speed);
        let n = self.normal;
        let (t1, t2) = tangents(n);
        // The softness of a contact with a static or kinematic body (no inverse mass on
        // one side, as in `prepare`) or of one between two dynamic bodies.
        let fixed = m.m_a.simd_eq(zero) | m.m_b.simd_eq(zero);
        let soft = |f: fn(&Softness) -> f32| {
            fixed.select(
                FloatW::splat(f(&ctx.static_softness)),
                FloatW::splat(f(&ctx.contact_softness)),
            )
        };
        let (bias_rate, soft_mass, soft_impulse) = (
            soft(|s| s.bias_rate),
            soft(|s| s.mass_scale),
            soft(|s| s.impulse_scale),
        );
        let mut total_normal = zero;
        let mut twist_limit = zero;
        // As the scalar kernel: the normal turned back by each body's rotation delta once,
        // then two dot products a point instead of two rotations.
        let n_dp = n.dot(b.dp);
        let (n_a, n_b) = (b.dqa.conjugate().rotate(n), b.dqb.conjugate().rotate(n));
        // The speeds along `n`, carried from row to row: an impulse `λ n` changes them by
        // `m λ (n · n)`.
        let (mut u_a, mut u_b) = (n.dot(b.va), n.dot(b.vb));
        let nn = n.dot(n);
        let (along_a, along_b) = (m.m_a * nn, m.m_b * nn);
        let mut pushed = zero;
        for j in 0..self.points_used {
            let cp = self.points[j];
            let lever = cp.lever;
            let s = n_dp + n_b.dot(cp.r_b) - n_a.dot(cp.r_a) + cp.base_separation;
            let speculative = s.simd_gt(zero);
            let spec_bias = s * inv_h;
            let (bias, mass_scale, impulse_scale) = if use_bias {
                (
                    speculative.select(spec_bias, (bias_rate * s).fast_max(max_push)),
                    speculative.select(one, soft_mass),
                    speculative.select(zero, soft_impulse),
                )
            } else {
                (speculative.select(spec_bias, zero), one, zero)
            };
            // The row's angular Jacobians, `r × n`: with them the relative normal speed
            // is two dot products and the impulse turns each body by one scaled vector
            // (two cross products a point, where the speed at the anchors and the
            // impulse's torques took four).
            let (ja, jb) = (cp.r_a.cross(n), cp.r_b.cross(n));
            let vn = (u_b - u_a) + (b.wb.dot(jb) - b.wa.dot(ja));
            let (l, max) = (&mut self.normal_impulse[j], &mut self.max_normal_impulse[j]);
            let impulse = -cp.normal_mass * mass_scale * (vn + bias) - impulse_scale * *l;
            let total = (*l + impulse).fast_max(zero);
            let impulse = total - *l;
            *l = total;
            *max = max.fast_max(total);
            total_normal += total;
            twist_limit += total * lever;
            pushed += impulse;
            u_a -= along_a * impulse;
            u_b += along_b * impulse;
            b.wa = b.wa - m.i_a.mul_by::<ISO>(impulse * ja);
            b.wb = b.wb + m.i_b.mul_by::<ISO>(impulse * jb);
        }
        // The normal rows' linear impulses, all along `n`, applied once: each row saw the
        // speeds along `n` that the rows before it left (`u_a`, `u_b`).
        b.va = b.va - (m.m_a * pushed) * n;
        b.vb = b.vb + (m.m_b * pushed) * n;

        let dv = Self::relative_velocity(&b, self.center_a, self.center_b);
        let (vt1, vt2) = (
            dv.dot(t1) - self.tangent_speed[0],
            dv.dot(t2) - self.tangent_speed[1],
        );
        let old = self.friction_impulse;
        let mut new = [
            old[0] - (self.k11 * vt1 + self.k12 * vt2),
            old[1] - (self.k12 * vt1 + self.k22 * vt2),
        ];
        let max = self.friction * total_normal;
        let len2 = new[0] * new[0] + new[1] * new[1];
        let over = len2.simd_gt(max * max);
        let scale = over.select(
            max / len2.fast_max(FloatW::splat(f32::MIN_POSITIVE)).sqrt(),
            one,
        );
        new = [new[0] * scale, new[1] * scale];
        self.friction_impulse = new;
        let p = (new[0] - old[0]) * t1 + (new[1] - old[1]) * t2;
        Self::apply::<ISO>(&m, &mut b, self.center_a, self.center_b, p);

        // A one-point manifold has no lever, so its twist row is clamped to nothing: with
        // no twist carried over either, it has no row (as in the scalar kernel). A batch
        // of such lanes only skips the row; where they share a batch with others, they
        // keep their velocities and twist as they were.
        let twisted = || self.twist_impulse.simd_ne(zero);
        if self.points_used > 1 || twisted().any() {
            let kept = self.lone.then(|| {
                let counts = FloatW::new(self.counts.map(f32::from));
                (counts.simd_gt(one) | twisted(), b.wa, b.wb)
            });
            let wn = n.dot(b.wb - b.wa);
            let max = self.friction * twist_limit;
            let old = self.twist_impulse;
            let new = (old - self.twist_mass * wn).fast_max(-max).fast_min(max);
            self.twist_impulse = new;
            Self::apply_angular::<ISO>(&m, &mut b, (new - old) * n);
            if let Some((row, wa, wb)) = kept {
                self.twist_impulse = row.select(new, old);
                b.wa = Vec3W::select(row, b.wa, wa);
                b.wb = Vec3W::select(row, b.wb, wb);
            }
        }

        if !use_bias && (ctx.drop_null || self.uneven != 0) && self.points_used == MAX_POINTS {
            self.drop_null_impulses(t1, t2, ctx.drop_null);
        }
        self.scatter(states, &b);
    }

    /// Takes out of a four-point manifold's normal impulses the part that moves no body,
    /// as far as every impulse stays non-negative: the same as
    /// [`super::contact::drop_null_impulses`], in lanes.
    ///
    /// The null vector (see [`super::contact::null_impulses`]) and `1 / |null|²` are
    /// computed here, from the arms in the tangent plane, rather than kept in the batch.
    ///
    /// In `every` four-point lane, or only in the lanes of `uneven`.
    #[inline(always)]
    fn drop_null_impulses(&mut self, t1: Vec3W, t2: Vec3W, every: bool) {
        let zero = FloatW::ZERO;
        let anchors = self.points.map(|p| (p.r_a.dot(t1), p.r_a.dot(t2)));
        let v = null_impulses(anchors);
        let nn = v.iter().fold(zero, |acc, &v| acc + v * v);
        let tiny = FloatW::splat(NULL_TINY);
        let counts = FloatW::new(self.counts.map(f32::from));
        let mut four = counts.simd_ge(FloatW::splat(MAX_POINTS as f32)) & nn.simd_gt(tiny);
        if !every {
            let bit = std::array::from_fn(|l| (self.uneven >> l & 1) as f32);
            four &= FloatW::new(bit).simd_gt(zero);
        }
        let null_scale = four.select(FloatW::splat(1.0) / nn.fast_max(tiny), zero);
        let l = self.normal_impulse;
        let along = (0..MAX_POINTS).fold(zero, |acc, j| acc + l[j] * v[j]);
        let mut t = along * null_scale;
        // λ_j − t v_j ≥ 0 bounds t from above where v_j > 0 and from below where v_j < 0.
        let (mut hi, mut lo) = (FloatW::splat(f32::MAX), FloatW::splat(-f32::MAX));
        for j in 0..MAX_POINTS {
            let limit = l[j] / v[j].simd_eq(zero).select(FloatW::splat(1.0), v[j]);
            hi = v[j].simd_gt(zero).select(hi.fast_min(limit), hi);
            lo = v[j].simd_lt(zero).select(lo.fast_max(limit), lo);
        }
        t = t.fast_min(hi).fast_max(lo);
        for (l, vj) in self.normal_impulse.iter_mut().zip(v) {
            *l = (*l - t * vj).fast_max(zero);
        }
    }
}

#[cfg(test)]
mod tests;
