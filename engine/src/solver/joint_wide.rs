//! Hinge, slider, fixed, distance, cone-twist and motor joints solved `W` at a time in
//! SIMD lanes (ball joints have their own, smaller batch: [`super::ball_wide`]).
//!
//! A [`JointW`] holds `W` joints of one kind from one colour (so no two lanes write the
//! same dynamic body); its [`Params`] variant is the kind's batch and holds the lanes'
//! limits, motors and springs ([`params`]). The rows, their order and their soft
//! coefficients are exactly those of the scalar solver in [`super::joint`], whose module
//! comment gives each constraint function and Jacobian; [`rows`] only runs them in lanes,
//! and this file prepares a batch, picks its rows by kind and stores the results.
//! What differs per lane within a kind (a limit on one side only, no motor, a spring in
//! physical units) is a lane mask, and a masked-off row applies a zero impulse.
//!
//! As everywhere in the lanes, each operation is a plain IEEE operation per lane (no
//! fused multiply-add), and the angles (`atan2`) are taken per lane with the scalar
//! library function, so a joint's result depends neither on its lane nor on `W`.
//! Empty lanes have zero masses and zero rows and are never written back.

mod params;
mod rows;
#[cfg(test)]
mod tests;

pub(crate) use params::lane_kind;

use super::ball_wide::{Broken, JointBodiesW};
use super::contact_wide::{BodiesW, StatesPtr};
use super::joint::{swing_twist_twist, twist_angle};
use super::wide::{FloatW, QuatW, Vec3W, W};
use super::{SolverBodies, StepContext};
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses};
use crate::parallel::DisjointPtr;
use glam::{Quat, Vec3};
use params::Params;

const ZERO: FloatW = FloatW::ZERO;

#[inline(always)]
fn splat(x: f32) -> FloatW {
    FloatW::splat(x)
}

/// Lane `i` holds `f(i)`.
#[inline]
fn lanes(f: impl Fn(usize) -> f32) -> FloatW {
    FloatW::new(std::array::from_fn(f))
}

/// A lane mask: all bits set where `f(i)`.
#[inline]
fn mask(f: impl Fn(usize) -> bool) -> FloatW {
    lanes(|i| if f(i) { 1.0 } else { 0.0 }).simd_gt(ZERO)
}

/// `1 / k`, zero where `k` is not positive (as the scalar rows).
#[inline(always)]
fn inv(k: FloatW) -> FloatW {
    k.simd_gt(splat(f32::MIN_POSITIVE))
        .select(splat(1.0) / k, ZERO)
}

/// `v / |v|`, `fallback` where `|v| <= eps`.
#[inline(always)]
fn normalize_or(v: Vec3W, eps: f32, fallback: Vec3W) -> Vec3W {
    let len = v.dot(v).sqrt();
    let ok = len.simd_gt(splat(eps));
    let r = splat(1.0) / ok.select(len, splat(1.0));
    Vec3W {
        x: ok.select(v.x * r, fallback.x),
        y: ok.select(v.y * r, fallback.y),
        z: ok.select(v.z * r, fallback.z),
    }
}

/// glam's `clamp_length_max` per lane.
#[inline(always)]
fn clamp_length(v: Vec3W, max: FloatW) -> Vec3W {
    let len2 = v.dot(v);
    let over = len2.simd_gt(max * max);
    let s = over.select(len2, splat(1.0)).sqrt();
    let f = |c: FloatW| over.select(max * (c / s), c);
    Vec3W {
        x: f(v.x),
        y: f(v.y),
        z: f(v.z),
    }
}

/// Applies a scalar function to every lane.
#[inline]
fn per_lane(x: FloatW, y: FloatW, f: impl Fn(f32, f32) -> f32) -> FloatW {
    let (x, y) = (x.to_array(), y.to_array());
    lanes(|i| f(x[i], y[i]))
}

/// How a soft row is scaled in this pass.
#[derive(Clone, Copy, Debug)]
struct ScalesW {
    bias_rate: FloatW,
    mass_scale: FloatW,
    impulse_scale: FloatW,
}

impl ScalesW {
    fn of(ctx: &StepContext, use_bias: bool) -> Self {
        if use_bias {
            let s = ctx.joint_softness;
            Self {
                bias_rate: splat(s.bias_rate),
                mass_scale: splat(s.mass_scale),
                impulse_scale: splat(s.impulse_scale),
            }
        } else {
            Self {
                bias_rate: ZERO,
                mass_scale: splat(1.0),
                impulse_scale: ZERO,
            }
        }
    }

    /// `self` where `m`, else `other`.
    fn select(self, m: FloatW, other: Self) -> Self {
        Self {
            bias_rate: m.select(self.bias_rate, other.bias_rate),
            mass_scale: m.select(self.mass_scale, other.mass_scale),
            impulse_scale: m.select(self.impulse_scale, other.impulse_scale),
        }
    }
}

/// The lanes' accumulated impulses of the substep (the fields of [`JointImpulses`]).
#[derive(Clone, Copy, Debug)]
struct ImpulsesW {
    linear: Vec3W,
    angular: Vec3W,
    lower: FloatW,
    upper: FloatW,
    motor: FloatW,
    spring: FloatW,
    cone: FloatW,
    /// The axis spring's velocity at the end of the substep, from the solve pass for the
    /// relax pass (see [`SpringStep`](super::joint::SpringStep)).
    spring_end: FloatW,
}

/// A row `Cdot = lin · (v_B − v_A) + ang_b · ω_B − ang_a · ω_A` (no `lin`: angular).
struct RowW {
    lin: Option<Vec3W>,
    ang_a: Vec3W,
    ang_b: Vec3W,
    /// Inverse effective mass and effective mass.
    k: FloatW,
    mass: FloatW,
}

/// The joints' geometry at the current substep.
struct FrameW {
    r_a: Vec3W,
    r_b: Vec3W,
    q_a: QuatW,
    q_b: QuatW,
    d: Vec3W,
}

/// `W` joints of one kind (not ball) from one colour.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointW {
    bodies: JointBodiesW,
    /// Frame origins relative to the centres of mass and frame rotations, world, at the
    /// start of the step.
    r_a: Vec3W,
    r_b: Vec3W,
    q_a: QuatW,
    q_b: QuatW,
    /// `p_B − p_A` at the start of the step.
    delta_center: Vec3W,
    imp: ImpulsesW,
    params: Params,
}

impl JointW {
    /// Prepares the joints `slots` (at most `W`, all of one [`lane_kind`]) into lanes.
    pub fn prepare(
        slots: &[u32],
        joints: &[JointData],
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
        h: f32,
    ) -> Self {
        let (bodies, [ma, mb]) = JointBodiesW::prepare(slots, joints, sb);
        let mut vecs = [[Vec3::ZERO; W]; 5]; // r_a, r_b, delta_center, linear, angular
        let mut quats = [[Quat::IDENTITY; W]; 2];
        let mut axis = [[0.0f32; W]; 5]; // lower, upper, motor, spring, cone
        let mut kinds = [None; W];
        for (i, &slot) in slots.iter().enumerate() {
            let j = &joints[slot as usize];
            let (ba, bb) = (j.body_a as usize, j.body_b as usize);
            let (qa, qb) = (rotations[ba], rotations[bb]);
            let def = &j.def;
            let imp = &j.impulses;
            let row = [
                qa * def.frame_a.p,
                qb * def.frame_b.p,
                positions[bb] - positions[ba],
                imp.linear,
                imp.angular,
            ];
            for (field, v) in vecs.iter_mut().zip(row) {
                field[i] = v;
            }
            quats[0][i] = (qa * def.frame_a.q).normalize();
            quats[1][i] = (qb * def.frame_b.q).normalize();
            for (field, x) in axis
                .iter_mut()
                .zip([imp.lower, imp.upper, imp.motor, imp.spring, imp.cone])
            {
                field[i] = x;
            }
            kinds[i] = Some(def.kind);
        }
        let params = Self::params(&kinds, &ma, &mb, h);
        let f = |k: usize| FloatW::new(axis[k]);
        Self {
            bodies,
            r_a: Vec3W::gather(&vecs[0]),
            r_b: Vec3W::gather(&vecs[1]),
            q_a: QuatW::gather(&quats[0]),
            q_b: QuatW::gather(&quats[1]),
            delta_center: Vec3W::gather(&vecs[2]),
            imp: ImpulsesW {
                linear: Vec3W::gather(&vecs[3]),
                angular: Vec3W::gather(&vecs[4]),
                lower: f(0),
                upper: f(1),
                motor: f(2),
                spring: f(3),
                cone: f(4),
                spring_end: ZERO,
            },
            params,
        }
    }

    /// Every lane's bodies with whether the lane writes them (the `validate` check).
    #[cfg(feature = "validate")]
    pub fn written(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        self.bodies.written()
    }

    #[inline(always)]
    fn frame(&self, l: &BodiesW) -> FrameW {
        let (r_a, r_b) = (l.dqa.rotate(self.r_a), l.dqb.rotate(self.r_b));
        FrameW {
            r_a,
            r_b,
            q_a: l.dqa.mul(self.q_a),
            q_b: l.dqb.mul(self.q_b),
            d: self.delta_center + l.dp + (r_b - r_a),
        }
    }

    /// The impulses of the last substep as one linear impulse on B at its anchor and one
    /// angular impulse on B (world frame), and A's lever for the linear one.
    fn reaction(&self, f: &FrameW) -> (Vec3W, Vec3W, Vec3W) {
        let j = &self.imp;
        let axis_sum = j.lower - j.upper + j.motor + j.spring;
        let [x, y, a] = f.q_a.axes();
        match &self.params {
            Params::Hinge(_) => (
                j.linear,
                j.angular.x * x + j.angular.y * y + axis_sum * a,
                f.r_a,
            ),
            Params::Fixed(_) => (j.linear, j.angular, f.r_a),
            Params::Motor(m) => (j.linear, j.angular, f.r_a + f.q_a.rotate(m.offset)),
            Params::Slider(_) => (
                j.linear.x * x + j.linear.y * y + axis_sum * a,
                j.angular,
                f.r_a + f.d,
            ),
            Params::Distance { .. } => {
                let u = normalize_or(f.d, 0.0, Vec3W::default());
                (axis_sum * u, Vec3W::default(), f.r_a)
            }
            Params::ConeTwist { .. } => {
                let b = f.q_b.axes()[2];
                let n = normalize_or(a.cross(b), 0.0, Vec3W::default());
                let t = normalize_or(a + b, 0.0, a);
                (j.linear, -j.cone * n + (j.lower - j.upper) * t, f.r_a)
            }
        }
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&self, states: StatesPtr) {
        let mut l = self.bodies.gather(states);
        let f = self.frame(&l);
        let (lin, ang, lever_a) = self.reaction(&f);
        self.apply_linear(&mut l, lever_a, f.r_b, lin);
        self.apply_angular(&mut l, ang);
        self.bodies.scatter(states, &l);
    }

    /// One pass over the joints' rows (`use_bias`: solve, else relax).
    pub fn solve(&mut self, states: StatesPtr, ctx: &StepContext, use_bias: bool) {
        let mut l = self.bodies.gather(states);
        let f = self.frame(&l);
        let soft = ScalesW::of(ctx, use_bias);
        let mut j = self.imp;
        match &self.params {
            Params::Hinge(axis) => {
                let [_, _, z] = f.q_a.axes();
                let row = self.angular_row(z);
                let rel = f.q_a.conjugate().mul(f.q_b);
                let angle = per_lane(rel.v.z, rel.s, |z, w| {
                    twist_angle(Quat::from_xyzw(0.0, 0.0, z, w))
                });
                self.solve_axis(&row, &mut l, angle, axis, soft, ctx, use_bias, &mut j);
                self.solve_swing(&mut l, &f, soft, &mut j.angular);
                let p = self.solve_point(&l, &f, None, soft, &mut j.linear);
                self.apply_linear(&mut l, f.r_a, f.r_b, p);
            }
            Params::Slider(axis) => {
                let [_, _, z] = f.q_a.axes();
                let row = self.linear_row(z, f.r_a + f.d, f.r_b);
                let x = z.dot(f.d);
                self.solve_axis(&row, &mut l, x, axis, soft, ctx, use_bias, &mut j);
                let a = self.solve_rotation(&l, &f, None, soft, &mut j.angular);
                self.apply_angular(&mut l, a);
                self.solve_slider_perp(&mut l, &f, soft, &mut j.linear);
            }
            Params::Fixed(weld) => {
                let s_ang = weld.angular.select(weld.angular_on, soft);
                let a = self.solve_rotation(&l, &f, None, s_ang, &mut j.angular);
                self.apply_angular(&mut l, a);
                let s_lin = weld.linear.select(weld.linear_on, soft);
                let p = self.solve_point(&l, &f, None, s_lin, &mut j.linear);
                self.apply_linear(&mut l, f.r_a, f.r_b, p);
            }
            Params::Distance {
                axis,
                rigid,
                length,
            } => {
                let len = f.d.dot(f.d).sqrt();
                // At the anchor: along the relative motion (as the scalar joint).
                let rel = l.vb + l.wb.cross(f.r_b) - l.va - l.wa.cross(f.r_a);
                let at_rest = normalize_or(rel, 1.0e-6, f.q_a.axes()[2]);
                let u = normalize_or(f.d, 1.0e-6, at_rest);
                let row = self.linear_row(u, f.r_a, f.r_b);
                if rigid.any() {
                    let c = len - *length;
                    let impulse =
                        -row.mass * soft.mass_scale * (Self::cdot(&row, &l) + soft.bias_rate * c)
                            - soft.impulse_scale * j.spring;
                    let impulse = rigid.select(impulse, ZERO);
                    j.spring += impulse;
                    self.apply_row(&row, &mut l, impulse);
                }
                if axis.spring.on.any() {
                    let (spring, end) = (&mut j.spring, &mut j.spring_end);
                    self.solve_spring(
                        &row,
                        &mut l,
                        &axis.spring,
                        len,
                        true,
                        ctx,
                        use_bias,
                        spring,
                        end,
                    );
                }
                j.spring = (*rigid | axis.spring.on).select(j.spring, ZERO);
                self.solve_range(&row, &mut l, len, axis, soft, ctx.inv_h, &mut j);
            }
            Params::ConeTwist { twist, cone } => {
                let (a, b) = (f.q_a.axes()[2], f.q_b.axes()[2]);
                if twist.lower_on.any() || twist.upper_on.any() {
                    let t = normalize_or(a + b, 0.0, a);
                    let row = self.angular_row(t);
                    let rel = f.q_a.conjugate().mul(f.q_b);
                    let angle = per_lane(rel.v.z, rel.s, |z, w| {
                        twist_angle(swing_twist_twist(Quat::from_xyzw(0.0, 0.0, z, w)))
                    });
                    self.solve_range(&row, &mut l, angle, twist, soft, ctx.inv_h, &mut j);
                }
                let cross = a.cross(b);
                let sin = cross.dot(cross).sqrt();
                let on = sin.simd_gt(splat(1.0e-6));
                let n = normalize_or(cross, 1.0e-6, Vec3W::default());
                let swing = per_lane(sin, a.dot(b), f32::atan2);
                let row = self.angular_row(n);
                let c = *cone - swing;
                self.solve_limit(&row, &mut l, c, -1.0, on, soft, ctx.inv_h, &mut j.cone);
                let p = self.solve_point(&l, &f, None, soft, &mut j.linear);
                self.apply_linear(&mut l, f.r_a, f.r_b, p);
            }
            Params::Motor(m) => {
                // Both passes steer towards the pose (see the scalar joint).
                let s = ScalesW {
                    bias_rate: m.correction * splat(ctx.inv_h),
                    mass_scale: splat(1.0),
                    impulse_scale: ZERO,
                };
                let h = splat(ctx.h);
                let mut ang = j.angular;
                let a = self.solve_rotation(&l, &f, Some(m.rotation), s, &mut ang);
                let clamped = clamp_length(ang, m.max_torque * h);
                self.apply_angular(&mut l, a - (ang - clamped));
                j.angular = clamped;
                let target = f.q_a.rotate(m.offset);
                let mut lin = j.linear;
                let p = self.solve_point(&l, &f, Some(target), s, &mut lin);
                let clamped = clamp_length(lin, m.max_force * h);
                self.apply_linear(&mut l, f.r_a + target, f.r_b, p - (lin - clamped));
                j.linear = clamped;
            }
        }
        self.imp = j;
        self.bodies.scatter(states, &l);
    }

    /// Writes each lane's impulses, reactions and break test into its joint slot; returns
    /// the slots whose step impulse passed a threshold, with the impulses.
    pub fn store(
        &self,
        states: StatesPtr,
        joints: DisjointPtr<JointData>,
        substeps: f32,
        inv_h: f32,
    ) -> Broken {
        let l = self.bodies.gather(states);
        let (lin, ang, _) = self.reaction(&self.frame(&l));
        let (lin, ang) = (lin.scatter(), ang.scatter());
        let j = &self.imp;
        let (linear, angular) = (j.linear.scatter(), j.angular.scatter());
        let axis = [j.lower, j.upper, j.motor, j.spring, j.cone].map(|x| x.to_array());
        let mut broken = Broken::default();
        for (i, &slot) in self.bodies.joint.iter().enumerate() {
            if slot == NULL {
                continue;
            }
            let data = joints.get_mut(slot);
            data.impulses = JointImpulses {
                linear: linear[i],
                angular: angular[i],
                lower: axis[0][i],
                upper: axis[1][i],
                motor: axis[2][i],
                spring: axis[3][i],
                cone: axis[4][i],
            };
            data.reaction = lin[i] * inv_h;
            data.angular_reaction = ang[i] * inv_h;
            let (impulse, angular) = (lin[i].length() * substeps, ang[i].length() * substeps);
            if impulse > data.def.break_impulse || angular > data.def.break_angular_impulse {
                broken.push((slot, impulse, angular));
            }
        }
        broken
    }
}
