//! Contact constraints solved `W` at a time in SIMD lanes.
//!
//! The kernels are the scalar ones of [`super::contact`], written once more over lanes:
//! lane `i` of a [`ContactConstraintW`] is one manifold; all manifolds of a batch come
//! from the same colour, so no two lanes write the same dynamic body and a batch can be
//! gathered, solved and scattered without conflicts. Empty lanes and missing points have
//! zero masses, so they compute zero impulses and are never written back.
//!
//! Body velocities are gathered from the dense `BodyState` array (64 bytes a body: one
//! cache line per lane) and scattered back to dynamic bodies only.

use super::contact::ContactConstraint;
use super::wide::{FloatW, QuatW, SymMat3W, Vec3W, W};
use super::{BodyState, StepContext};
use crate::broadphase::NULL;
use crate::collision::MAX_POINTS;
use glam::{Mat3, Vec3};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointW {
    r_a: Vec3W,
    r_b: Vec3W,
    base_separation: FloatW,
    normal_mass: FloatW,
    normal_impulse: FloatW,
    max_normal_impulse: FloatW,
    relative_velocity: FloatW,
    lever: FloatW,
}

/// `W` contact manifolds of one colour.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactConstraintW {
    a: [u32; W],
    b: [u32; W],
    /// Write back to body A / B of the lane (dynamic bodies only).
    write_a: [bool; W],
    write_b: [bool; W],
    /// Index of the lane's scalar constraint, [`NULL`] for an empty lane.
    source: [u32; W],
    points_used: usize,
    normal: Vec3W,
    t1: Vec3W,
    t2: Vec3W,
    m_a: FloatW,
    m_b: FloatW,
    i_a: SymMat3W,
    i_b: SymMat3W,
    friction: FloatW,
    bias_rate: FloatW,
    mass_scale: FloatW,
    impulse_scale: FloatW,
    center_a: Vec3W,
    center_b: Vec3W,
    k11: FloatW,
    k12: FloatW,
    k22: FloatW,
    friction_impulse: [FloatW; 2],
    twist_mass: FloatW,
    twist_impulse: FloatW,
    points: [PointW; MAX_POINTS],
}

/// Raw access to the body states shared by the workers of one colour.
#[derive(Clone, Copy)]
pub(crate) struct StatesPtr {
    ptr: *mut BodyState,
    len: usize,
}

// SAFETY: the pointer is only dereferenced by `gather` and `scatter`. Within one colour
// every dynamic body is written by exactly one lane of one batch, and static or kinematic
// bodies are only read, so concurrent batches never touch the same state mutably.
unsafe impl Send for StatesPtr {}
unsafe impl Sync for StatesPtr {}

impl StatesPtr {
    pub fn new(states: &mut [BodyState]) -> Self {
        Self {
            ptr: states.as_mut_ptr(),
            len: states.len(),
        }
    }

    #[inline]
    fn get(&self, i: u32) -> BodyState {
        if i == NULL {
            return BodyState::IDENTITY;
        }
        assert!((i as usize) < self.len);
        // SAFETY: in bounds (checked above); see the type's comment for aliasing.
        unsafe { *self.ptr.add(i as usize) }
    }

    #[inline]
    fn set_velocity(&self, i: u32, v: Vec3, w: Vec3) {
        assert!((i as usize) < self.len);
        // SAFETY: in bounds (checked above); only the lane that owns dynamic body `i` in
        // this colour writes it (see the type's comment).
        let s = unsafe { &mut *self.ptr.add(i as usize) };
        s.v = v;
        s.w = w;
    }
}

/// Gathered body velocities and deltas of a batch.
struct BodiesW {
    va: Vec3W,
    wa: Vec3W,
    vb: Vec3W,
    wb: Vec3W,
    dp: Vec3W,
    dqa: QuatW,
    dqb: QuatW,
}

impl ContactConstraintW {
    /// Packs up to `W` scalar constraints (indices `sources` into `cs`) into lanes.
    pub fn pack(cs: &[ContactConstraint], sources: &[u32], ctx: &StepContext) -> Self {
        debug_assert!(!sources.is_empty() && sources.len() <= W);
        // Transpose lane by lane into plain arrays, then load each array as one register.
        const F: usize = 20;
        const P: usize = 12;
        let mut f = [[0.0f32; W]; F];
        let mut pts = [[[0.0f32; W]; P]; MAX_POINTS];
        let (mut ia, mut ib) = ([Mat3::ZERO; W], [Mat3::ZERO; W]);
        let mut a = [NULL; W];
        let mut b = [NULL; W];
        let mut write_a = [false; W];
        let mut write_b = [false; W];
        let mut source = [NULL; W];
        let mut points_used = 0;
        for (i, &k) in sources.iter().enumerate() {
            let c = &cs[k as usize];
            let soft = if c.rigid_bodies {
                ctx.static_softness
            } else {
                ctx.contact_softness
            };
            let row = [
                c.normal.x,
                c.normal.y,
                c.normal.z,
                c.tangent[0].x,
                c.tangent[0].y,
                c.tangent[0].z,
                c.tangent[1].x,
                c.tangent[1].y,
                c.tangent[1].z,
                c.m_a,
                c.m_b,
                c.friction,
                soft.bias_rate,
                soft.mass_scale,
                soft.impulse_scale,
                c.friction_mass[0],
                c.friction_mass[1],
                c.friction_mass[2],
                c.twist_mass,
                c.twist_impulse,
            ];
            for (field, value) in f.iter_mut().zip(row) {
                field[i] = value;
            }
            for (j, p) in c.points[..c.count].iter().enumerate() {
                let row = [
                    p.r_a.x,
                    p.r_a.y,
                    p.r_a.z,
                    p.r_b.x,
                    p.r_b.y,
                    p.r_b.z,
                    p.base_separation,
                    p.normal_mass,
                    p.normal_impulse,
                    p.max_normal_impulse,
                    p.relative_velocity,
                    p.lever,
                ];
                for (field, value) in pts[j].iter_mut().zip(row) {
                    field[i] = value;
                }
            }
            (ia[i], ib[i]) = (c.i_a, c.i_b);
            (a[i], b[i]) = (c.a, c.b);
            write_a[i] = c.a != NULL && c.m_a > 0.0;
            write_b[i] = c.b != NULL && c.m_b > 0.0;
            source[i] = k;
            points_used = points_used.max(c.count);
        }
        let fw = |k: usize| FloatW::new(f[k]);
        let v3 = |k: usize| Vec3W {
            x: fw(k),
            y: fw(k + 1),
            z: fw(k + 2),
        };
        let mut centers = ([Vec3::ZERO; W], [Vec3::ZERO; W], [0.0f32; W], [0.0f32; W]);
        for (i, &k) in sources.iter().enumerate() {
            let c = &cs[k as usize];
            centers.0[i] = c.center_a;
            centers.1[i] = c.center_b;
            centers.2[i] = c.friction_impulse[0];
            centers.3[i] = c.friction_impulse[1];
        }
        let points = std::array::from_fn(|j| {
            let p = &pts[j];
            let pw = |k: usize| FloatW::new(p[k]);
            PointW {
                r_a: Vec3W {
                    x: pw(0),
                    y: pw(1),
                    z: pw(2),
                },
                r_b: Vec3W {
                    x: pw(3),
                    y: pw(4),
                    z: pw(5),
                },
                base_separation: pw(6),
                normal_mass: pw(7),
                normal_impulse: pw(8),
                max_normal_impulse: pw(9),
                relative_velocity: pw(10),
                lever: pw(11),
            }
        });
        Self {
            a,
            b,
            write_a,
            write_b,
            source,
            points_used,
            normal: v3(0),
            t1: v3(3),
            t2: v3(6),
            m_a: fw(9),
            m_b: fw(10),
            i_a: SymMat3W::gather(&ia),
            i_b: SymMat3W::gather(&ib),
            friction: fw(11),
            bias_rate: fw(12),
            mass_scale: fw(13),
            impulse_scale: fw(14),
            center_a: Vec3W::gather(&centers.0),
            center_b: Vec3W::gather(&centers.1),
            k11: fw(15),
            k12: fw(16),
            k22: fw(17),
            friction_impulse: [FloatW::new(centers.2), FloatW::new(centers.3)],
            twist_mass: fw(18),
            twist_impulse: fw(19),
            points,
        }
    }

    /// Writes the accumulated impulses back into the scalar constraints.
    pub fn unpack(&self, cs: &mut [ContactConstraint]) {
        let fi = [
            self.friction_impulse[0].to_array(),
            self.friction_impulse[1].to_array(),
        ];
        let twist = self.twist_impulse.to_array();
        let pts: [([f32; W], [f32; W], [f32; W]); MAX_POINTS] = std::array::from_fn(|j| {
            let p = &self.points[j];
            (
                p.normal_impulse.to_array(),
                p.max_normal_impulse.to_array(),
                p.relative_velocity.to_array(),
            )
        });
        for (i, &k) in self.source.iter().enumerate() {
            if k == NULL {
                continue;
            }
            let c = &mut cs[k as usize];
            c.friction_impulse = [fi[0][i], fi[1][i]];
            c.twist_impulse = twist[i];
            for (j, p) in c.points[..c.count].iter_mut().enumerate() {
                p.normal_impulse = pts[j].0[i];
                p.max_normal_impulse = pts[j].1[i];
                p.relative_velocity = pts[j].2[i];
            }
        }
    }

    #[inline]
    fn gather(&self, states: StatesPtr) -> BodiesW {
        let sa: [BodyState; W] = std::array::from_fn(|i| states.get(self.a[i]));
        let sb: [BodyState; W] = std::array::from_fn(|i| states.get(self.b[i]));
        BodiesW {
            va: Vec3W::gather(&std::array::from_fn(|i| sa[i].v)),
            wa: Vec3W::gather(&std::array::from_fn(|i| sa[i].w)),
            vb: Vec3W::gather(&std::array::from_fn(|i| sb[i].v)),
            wb: Vec3W::gather(&std::array::from_fn(|i| sb[i].w)),
            dp: Vec3W::gather(&std::array::from_fn(|i| sb[i].dp))
                - Vec3W::gather(&std::array::from_fn(|i| sa[i].dp)),
            dqa: QuatW::gather(&std::array::from_fn(|i| sa[i].dq)),
            dqb: QuatW::gather(&std::array::from_fn(|i| sb[i].dq)),
        }
    }

    #[inline]
    fn scatter(&self, states: StatesPtr, b: &BodiesW) {
        let (va, wa, vb, wb) = (
            b.va.scatter(),
            b.wa.scatter(),
            b.vb.scatter(),
            b.wb.scatter(),
        );
        for i in 0..W {
            if self.write_a[i] {
                states.set_velocity(self.a[i], va[i], wa[i]);
            }
            if self.write_b[i] {
                states.set_velocity(self.b[i], vb[i], wb[i]);
            }
        }
    }

    #[inline]
    fn apply(&self, b: &mut BodiesW, r_a: Vec3W, r_b: Vec3W, p: Vec3W) {
        b.va = b.va - self.m_a * p;
        b.wa = b.wa - self.i_a.mul(r_a.cross(p));
        b.vb = b.vb + self.m_b * p;
        b.wb = b.wb + self.i_b.mul(r_b.cross(p));
    }

    #[inline]
    fn apply_angular(&self, b: &mut BodiesW, l: Vec3W) {
        b.wa = b.wa - self.i_a.mul(l);
        b.wb = b.wb + self.i_b.mul(l);
    }

    #[inline]
    fn relative_velocity(b: &BodiesW, r_a: Vec3W, r_b: Vec3W) -> Vec3W {
        b.vb + b.wb.cross(r_b) - b.va - b.wa.cross(r_a)
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&self, states: StatesPtr) {
        let mut b = self.gather(states);
        for cp in &self.points[..self.points_used] {
            self.apply(&mut b, cp.r_a, cp.r_b, cp.normal_impulse * self.normal);
        }
        let f = self.friction_impulse[0] * self.t1 + self.friction_impulse[1] * self.t2;
        self.apply(&mut b, self.center_a, self.center_b, f);
        self.apply_angular(&mut b, self.twist_impulse * self.normal);
        self.scatter(states, &b);
    }

    /// One pass: with bias (`solve`) or without (`relax`). Same rows, same order as
    /// [`super::contact::solve`].
    pub fn solve(&mut self, states: StatesPtr, ctx: &StepContext, use_bias: bool) {
        let mut b = self.gather(states);
        let zero = FloatW::ZERO;
        let one = FloatW::splat(1.0);
        let inv_h = FloatW::splat(ctx.inv_h);
        let max_push = FloatW::splat(-ctx.max_push_speed);
        let n = self.normal;
        let mut total_normal = zero;
        let mut twist_limit = zero;
        for j in 0..self.points_used {
            let cp = self.points[j];
            let d = b.dp + b.dqb.rotate(cp.r_b) - b.dqa.rotate(cp.r_a);
            let s = n.dot(d) + cp.base_separation;
            let speculative = s.simd_gt(zero);
            let spec_bias = s * inv_h;
            let (bias, mass_scale, impulse_scale) = if use_bias {
                (
                    speculative.select(spec_bias, (self.bias_rate * s).max(max_push)),
                    speculative.select(one, self.mass_scale),
                    speculative.select(zero, self.impulse_scale),
                )
            } else {
                (speculative.select(spec_bias, zero), one, zero)
            };
            let vn = n.dot(Self::relative_velocity(&b, cp.r_a, cp.r_b));
            let cp = &mut self.points[j];
            if use_bias {
                cp.relative_velocity = cp.relative_velocity.min(vn);
            }
            let impulse =
                -cp.normal_mass * mass_scale * (vn + bias) - impulse_scale * cp.normal_impulse;
            let total = (cp.normal_impulse + impulse).max(zero);
            let impulse = total - cp.normal_impulse;
            cp.normal_impulse = total;
            cp.max_normal_impulse = cp.max_normal_impulse.max(total);
            total_normal += total;
            twist_limit += total * cp.lever;
            let (r_a, r_b) = (cp.r_a, cp.r_b);
            self.apply(&mut b, r_a, r_b, impulse * n);
        }

        let dv = Self::relative_velocity(&b, self.center_a, self.center_b);
        let (vt1, vt2) = (dv.dot(self.t1), dv.dot(self.t2));
        let old = self.friction_impulse;
        let mut new = [
            old[0] - (self.k11 * vt1 + self.k12 * vt2),
            old[1] - (self.k12 * vt1 + self.k22 * vt2),
        ];
        let max = self.friction * total_normal;
        let len2 = new[0] * new[0] + new[1] * new[1];
        let over = len2.simd_gt(max * max);
        let scale = over.select(max / len2.max(FloatW::splat(f32::MIN_POSITIVE)).sqrt(), one);
        new = [new[0] * scale, new[1] * scale];
        self.friction_impulse = new;
        let p = (new[0] - old[0]) * self.t1 + (new[1] - old[1]) * self.t2;
        self.apply(&mut b, self.center_a, self.center_b, p);

        let wn = n.dot(b.wb - b.wa);
        let max = self.friction * twist_limit;
        let old = self.twist_impulse;
        let new = (old - self.twist_mass * wn).max(-max).min(max);
        self.twist_impulse = new;
        self.apply_angular(&mut b, (new - old) * n);

        self.scatter(states, &b);
    }
}
