//! Joint constraints of the soft step.
//!
//! Notation: body A at `p_A` with rotation `q_A`, the joint frame at `r_A = q_A f_A.p`
//! from A's centre of mass and rotated by `Q_A = q_A f_A.q` in the world (likewise B).
//! `d = (p_B + r_B) − (p_A + r_A)` is the separation of the frame origins. Anchors and
//! frames follow each body's delta rotation every substep (contacts' anchors do not).
//! Every row is `Cdot = J v`, solved as `dλ = −m_eff (mass_scale (Cdot + bias)) −
//! impulse_scale λ` with the soft coefficients of `super::Softness`; the relax pass
//! drops the bias (rigid). Rows:
//!
//! - **Point** (ball, hinge, fixed, cone-twist): `C = d` (3 rows), `Cdot = v_B + ω_B × r_B
//!   − v_A − ω_A × r_A`, solved as a 3x3 block with
//!   `K = (m_A + m_B) E + [r_A]ᵀ I_A [r_A] + [r_B]ᵀ I_B [r_B]`.
//! - **Rotation lock** (fixed, slider): `C = 2 vec(Q_B Q_A*)` (the rotation vector of the
//!   error for small errors, sign chosen so `w >= 0`), `Cdot = ω_B − ω_A`, `K = I_A + I_B`.
//! - **Swing lock** (hinge): with `a = Q_A ẑ`, `b = Q_B ẑ` and A's frame axes `x = Q_A x̂`,
//!   `y = Q_A ŷ`: `C = (x · (a × b), y · (a × b))` (`sin` of the misalignment about x and y),
//!   `Cdot = (x, y) · (ω_B − ω_A)`, a 2x2 block.
//! - **Twist angle** (hinge, cone-twist): `θ = 2 atan2(q_z, q_w)` of `q = Q_A* Q_B` (the
//!   twist part of the relative rotation about z), `dθ/dt = a · (ω_B − ω_A)`; limits are
//!   one-sided rows (`C = θ − lower >= 0`, `C = upper − θ >= 0`, speculative: a positive
//!   `C` gives `bias = C / h`), the motor a row with `Cdot − speed` clamped by
//!   `max_torque h`, the spring towards the target angle (see "Axis springs" below).
//! - **Cone** (cone-twist): swing angle `φ = acos(a · b)`, `n = (a × b) / |a × b|`,
//!   `dφ/dt = n · (ω_B − ω_A)`, one-sided `C = cone − φ >= 0`.
//! - **Slider**: rotation lock, plus two rows `C = x · d`, `y · d` and the axial row
//!   `C = a · d` (limits, motor, spring), where the direction is fixed on A, so
//!   `Cdot = u · (v_B + ω_B × r_B − v_A − ω_A × (r_A + d))` for `u` in x, y, a.
//! - **Distance**: `L = |d|`, `u = d / L`, `Cdot = u · (v_B + ω_B × r_B − v_A − ω_A × r_A)`;
//!   a rigid row `C = L − length` when min = max, else one-sided rows at min and max and
//!   an optional spring towards its target length.
//! - **Motor**: point and rotation rows towards the target offset (`C = d − Q_A t`,
//!   `C = rotvec(Q_B (Q_A t_q)*)`), `bias = correction C / h` in both passes, the
//!   accumulated impulses clamped to discs of radius `max_force h` and `max_torque h`.
//!
//! **Axis springs** (hinge, slider, distance) are not soft rows: a frequency-form spring
//! is advanced exactly over the substep ([`SpringStep`]; the solve pass gives the row the
//! velocity that brings it to `x(h)`, the relax pass the velocity `v(h)`), so it rings
//! at its frequency and damps at its ratio at any substep count; a physical-form spring
//! (whose `ω` depends on the row's mass, which changes every substep) is one soft row in
//! the solve pass, so it damps as one implicit-Euler step does (a little more than its
//! ratio). `engine/tests/springs.rs` checks the frequency form's ratio at several
//! substep counts. A fixed joint's springs (3D blocks) are still soft rows in both passes.
//!
//! Impulses per substep are kept in `JointImpulses` across steps for warm starting; the
//! reaction force is the accumulated linear impulse over `h`.
//!
//! This file prepares a joint, picks its rows by kind and reports its reaction; the rows
//! themselves are in [`rows`], the springs' coefficients and exact update in [`spring`].

mod rows;
mod spring;
#[cfg(test)]
mod tests;

pub(super) use rows::{swing_twist_twist, twist_angle};
pub(crate) use spring::{spring_softness, SpringStep};

use super::{BodyState, Softness, SolverBodies, StepContext};
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses, JointKind};
use glam::{Mat3, Quat, Vec3};

/// One joint prepared for a step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointConstraint {
    /// The joint's slot.
    pub joint: u32,
    /// Dense solver indices, [`NULL`] for a static body.
    pub a: u32,
    pub b: u32,
    write_a: bool,
    write_b: bool,
    m_a: f32,
    m_b: f32,
    i_a: Mat3,
    i_b: Mat3,
    /// Frame origins relative to the centres of mass and frame rotations, world, at the
    /// start of the step.
    r_a: Vec3,
    r_b: Vec3,
    q_a: Quat,
    q_b: Quat,
    /// `p_B − p_A` at the start of the step.
    delta_center: Vec3,
    kind: JointKind,
    pub impulses: JointImpulses,
    /// The axis spring's velocity at the end of the substep, set by the solve pass for
    /// the relax pass (see [`SpringStep`]).
    spring_end: f32,
}

/// Velocities of the two bodies while a joint is solved.
struct Vel {
    va: Vec3,
    wa: Vec3,
    vb: Vec3,
    wb: Vec3,
}

/// The joint's geometry at the current substep.
struct Frame {
    r_a: Vec3,
    r_b: Vec3,
    q_a: Quat,
    q_b: Quat,
    /// Separation of the frame origins.
    d: Vec3,
}

/// A scalar row: `Cdot = lin · (v_B − v_A) + ang_b · ω_B − ang_a · ω_A`.
struct Row {
    lin: Vec3,
    ang_a: Vec3,
    ang_b: Vec3,
    mass: f32,
}

/// How a soft row is scaled in this pass.
#[derive(Clone, Copy)]
struct Scales {
    bias_rate: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

const RIGID: Scales = Scales {
    bias_rate: 0.0,
    mass_scale: 1.0,
    impulse_scale: 0.0,
};

impl Scales {
    fn of(soft: Softness, use_bias: bool) -> Self {
        if use_bias {
            Scales {
                bias_rate: soft.bias_rate,
                mass_scale: soft.mass_scale,
                impulse_scale: soft.impulse_scale,
            }
        } else {
            RIGID
        }
    }
}

impl JointConstraint {
    /// Prepares joint `slot` for a step.
    pub fn prepare(
        slot: u32,
        j: &JointData,
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
    ) -> Self {
        let (ba, bb) = (j.body_a as usize, j.body_b as usize);
        let (a, b) = (sb.index[ba], sb.index[bb]);
        let mass = |k: u32| {
            if k == NULL {
                (0.0, Mat3::ZERO)
            } else {
                let m = &sb.mass[k as usize];
                (m.inv_mass, m.inv_inertia)
            }
        };
        let ((m_a, i_a), (m_b, i_b)) = (mass(a), mass(b));
        let (qa, qb) = (rotations[ba], rotations[bb]);
        let def = &j.def;
        Self {
            joint: slot,
            a,
            b,
            write_a: m_a > 0.0,
            write_b: m_b > 0.0,
            m_a,
            m_b,
            i_a,
            i_b,
            r_a: qa * def.frame_a.p,
            r_b: qb * def.frame_b.p,
            q_a: (qa * def.frame_a.q).normalize(),
            q_b: (qb * def.frame_b.q).normalize(),
            delta_center: positions[bb] - positions[ba],
            kind: def.kind,
            impulses: j.impulses,
            spring_end: 0.0,
        }
    }

    #[inline]
    fn frame(&self, sa: &BodyState, sb: &BodyState) -> Frame {
        let (r_a, r_b) = (sa.dq * self.r_a, sb.dq * self.r_b);
        Frame {
            r_a,
            r_b,
            q_a: sa.dq * self.q_a,
            q_b: sb.dq * self.q_b,
            d: self.delta_center + (sb.dp - sa.dp) + (r_b - r_a),
        }
    }

    fn load(&self, states: &[BodyState]) -> (BodyState, BodyState) {
        let get = |k: u32| {
            if k == NULL {
                BodyState::IDENTITY
            } else {
                states[k as usize]
            }
        };
        (get(self.a), get(self.b))
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&self, sa: &BodyState, sb: &BodyState) -> (Vec3, Vec3, Vec3, Vec3) {
        let f = self.frame(sa, sb);
        let mut v = Vel {
            va: sa.v,
            wa: sa.w,
            vb: sb.v,
            wb: sb.w,
        };
        let (lin, ang) = self.reaction(&f);
        let lever_a = match self.kind {
            JointKind::Slider { .. } => f.r_a + f.d,
            JointKind::Motor { linear_offset, .. } => f.r_a + f.q_a * linear_offset,
            _ => f.r_a,
        };
        self.apply_linear(&mut v, lever_a, f.r_b, lin);
        self.apply_angular(&mut v, ang);
        (v.va, v.wa, v.vb, v.wb)
    }

    /// The impulses of the last substep as one linear impulse on B at its anchor and one
    /// angular impulse on B (world frame); A gets the opposite.
    fn reaction(&self, f: &Frame) -> (Vec3, Vec3) {
        let j = &self.impulses;
        let axis_sum = j.lower - j.upper + j.motor + j.spring;
        let a = f.q_a * Vec3::Z;
        match self.kind {
            JointKind::Ball => (j.linear, Vec3::ZERO),
            JointKind::Hinge { .. } => {
                let (x, y) = (f.q_a * Vec3::X, f.q_a * Vec3::Y);
                (j.linear, j.angular.x * x + j.angular.y * y + axis_sum * a)
            }
            JointKind::Fixed { .. } | JointKind::Motor { .. } => (j.linear, j.angular),
            JointKind::Slider { .. } => {
                let (x, y) = (f.q_a * Vec3::X, f.q_a * Vec3::Y);
                (j.linear.x * x + j.linear.y * y + axis_sum * a, j.angular)
            }
            JointKind::Distance { .. } => {
                let u = f.d.try_normalize().unwrap_or(Vec3::ZERO);
                (axis_sum * u, Vec3::ZERO)
            }
            JointKind::ConeTwist { .. } => {
                let b = f.q_b * Vec3::Z;
                let n = a.cross(b).try_normalize().unwrap_or(Vec3::ZERO);
                let t = (a + b).try_normalize().unwrap_or(a);
                (j.linear, -j.cone * n + (j.lower - j.upper) * t)
            }
        }
    }

    /// One pass over the joint's rows (`use_bias`: solve, else relax).
    pub fn solve(
        &mut self,
        sa: &BodyState,
        sb: &BodyState,
        ctx: &StepContext,
        use_bias: bool,
    ) -> (Vec3, Vec3, Vec3, Vec3) {
        let f = self.frame(sa, sb);
        let mut v = Vel {
            va: sa.v,
            wa: sa.w,
            vb: sb.v,
            wb: sb.w,
        };
        let soft = Scales::of(ctx.joint_softness, use_bias);
        let (h, inv_h) = (ctx.h, ctx.inv_h);
        let mut j = self.impulses;
        let mut end = self.spring_end;
        match self.kind {
            JointKind::Ball => {
                let p = self.solve_point(&mut v, &f, Vec3::ZERO, soft, &mut j.linear);
                self.apply_linear(&mut v, f.r_a, f.r_b, p);
            }
            JointKind::Hinge {
                limits,
                motor,
                spring,
            } => {
                let axis = f.q_a * Vec3::Z;
                let row = self.angular_row(axis);
                let angle = twist_angle(f.q_a.conjugate() * f.q_b);
                self.solve_axis(
                    &row, &mut v, angle, limits, motor, spring, soft, ctx, use_bias, &mut j,
                    &mut end,
                );
                self.solve_swing(&mut v, &f, soft, &mut j.angular);
                let p = self.solve_point(&mut v, &f, Vec3::ZERO, soft, &mut j.linear);
                self.apply_linear(&mut v, f.r_a, f.r_b, p);
            }
            JointKind::Slider {
                limits,
                motor,
                spring,
            } => {
                let axis = f.q_a * Vec3::Z;
                let row = self.linear_row(axis, f.r_a + f.d, f.r_b);
                let x = axis.dot(f.d);
                self.solve_axis(
                    &row, &mut v, x, limits, motor, spring, soft, ctx, use_bias, &mut j, &mut end,
                );
                let l = self.solve_rotation(&mut v, &f, Quat::IDENTITY, soft, &mut j.angular);
                self.apply_angular(&mut v, l);
                self.solve_slider_perp(&mut v, &f, soft, &mut j.linear);
            }
            JointKind::Fixed { linear, angular } => {
                let k_ang = (self.i_a + self.i_b).to_cols_array();
                let k_ang = (k_ang[0] + k_ang[4] + k_ang[8]) / 3.0;
                let s_ang = match angular {
                    Some(s) => Scales::of(spring_softness(&s, k_ang, h), true),
                    None => soft,
                };
                let l = self.solve_rotation(&mut v, &f, Quat::IDENTITY, s_ang, &mut j.angular);
                self.apply_angular(&mut v, l);
                let s_lin = match linear {
                    Some(s) => Scales::of(spring_softness(&s, self.m_a + self.m_b, h), true),
                    None => soft,
                };
                let p = self.solve_point(&mut v, &f, Vec3::ZERO, s_lin, &mut j.linear);
                self.apply_linear(&mut v, f.r_a, f.r_b, p);
            }
            JointKind::Distance {
                min_length,
                max_length,
                spring,
            } => {
                let length = f.d.length();
                let u = if length > 1.0e-6 {
                    f.d / length
                } else {
                    // At the anchor (a spring of length 0 passes through it every half
                    // period): along the relative motion, the way the length grows from
                    // here; A's z axis only at rest.
                    let rel = v.vb + v.wb.cross(f.r_b) - v.va - v.wa.cross(f.r_a);
                    if rel.length() > 1.0e-6 {
                        rel.normalize()
                    } else {
                        f.q_a * Vec3::Z
                    }
                };
                let row = self.linear_row(u, f.r_a, f.r_b);
                if min_length == max_length && spring.is_none() {
                    self.solve_equal(&row, &mut v, length - min_length, soft, &mut j.spring);
                    (j.lower, j.upper) = (0.0, 0.0);
                } else {
                    match spring {
                        Some(s) => self.solve_spring(
                            &row,
                            &mut v,
                            &s,
                            length - s.target,
                            Some(s.target),
                            ctx,
                            use_bias,
                            &mut j.spring,
                            &mut end,
                        ),
                        None => j.spring = 0.0,
                    }
                    // A rope (min 0) has no lower row.
                    let lower = if min_length > 0.0 {
                        min_length
                    } else {
                        f32::NEG_INFINITY
                    };
                    self.solve_range(&row, &mut v, length, lower, max_length, soft, inv_h, &mut j);
                }
            }
            JointKind::ConeTwist { cone_angle, twist } => {
                let (a, b) = (f.q_a * Vec3::Z, f.q_b * Vec3::Z);
                if let Some(l) = twist {
                    let t = (a + b).try_normalize().unwrap_or(a);
                    let row = self.angular_row(t);
                    let angle = twist_angle(swing_twist_twist(f.q_a.conjugate() * f.q_b));
                    self.solve_range(&row, &mut v, angle, l.lower, l.upper, soft, inv_h, &mut j);
                } else {
                    (j.lower, j.upper) = (0.0, 0.0);
                }
                let cross = a.cross(b);
                let sin = cross.length();
                if sin > 1.0e-6 {
                    let n = cross / sin;
                    let swing = sin.atan2(a.dot(b));
                    let row = self.angular_row(n);
                    self.solve_limit(
                        &row,
                        &mut v,
                        cone_angle - swing,
                        -1.0,
                        soft,
                        inv_h,
                        &mut j.cone,
                    );
                } else {
                    j.cone = 0.0;
                }
                let p = self.solve_point(&mut v, &f, Vec3::ZERO, soft, &mut j.linear);
                self.apply_linear(&mut v, f.r_a, f.r_b, p);
            }
            JointKind::Motor {
                linear_offset,
                angular_offset,
                max_force,
                max_torque,
                correction,
            } => {
                // Both passes steer towards the pose (as Box2D's motor joint): a relax
                // pass without the bias would brake the motion the solve pass started.
                let s = Scales {
                    bias_rate: correction * inv_h,
                    ..RIGID
                };
                let mut ang = j.angular;
                let l = self.solve_rotation(&mut v, &f, angular_offset, s, &mut ang);
                let clamped = ang.clamp_length_max(max_torque * h);
                self.apply_angular(&mut v, l - (ang - clamped));
                j.angular = clamped;
                let target = f.q_a * linear_offset;
                let mut lin = j.linear;
                let p = self.solve_point(&mut v, &f, target, s, &mut lin);
                let clamped = lin.clamp_length_max(max_force * h);
                self.apply_linear(&mut v, f.r_a + target, f.r_b, p - (lin - clamped));
                j.linear = clamped;
            }
        }
        self.impulses = j;
        self.spring_end = end;
        (v.va, v.wa, v.vb, v.wb)
    }

    /// The reaction impulses of the last substep on B (linear, angular), world frame.
    pub fn reactions(&self, states: &[BodyState]) -> (Vec3, Vec3) {
        let (sa, sb) = self.load(states);
        self.reaction(&self.frame(&sa, &sb))
    }

    /// Whether the solver writes body A / B.
    #[inline]
    pub fn writes(&self) -> (bool, bool) {
        (self.write_a, self.write_b)
    }
}
