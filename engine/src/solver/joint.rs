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
//! the solve pass. Measured with `engine/tests/springs.rs` (2 Hz, zero gravity): before,
//! the soft row ran in both passes and, at one substep, ζ = 0.1 came out 0.30 and an
//! undamped spring 0.20; now 0.1000 and 0.0000 at 1, 4 and 8 substeps,
//! and the physical form gives one implicit-Euler step's ζ (0.126 for 0.1 at four).
//! A fixed joint's springs (3D blocks) are still soft rows in both passes.
//!
//! Impulses per substep are kept in `JointImpulses` across steps for warm starting; the
//! reaction force is the accumulated linear impulse over `h`.

use super::{BodyState, Softness, SolverBodies, StepContext};
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses, JointKind, Limits, Motor, Spring, SpringStiffness};
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

#[inline]
fn inv(x: f32) -> f32 {
    if x > f32::MIN_POSITIVE {
        1.0 / x
    } else {
        0.0
    }
}

#[inline]
fn inverse3(k: Mat3) -> Mat3 {
    let det = k.determinant();
    if det.abs() > f32::MIN_POSITIVE && det.is_finite() {
        k.inverse()
    } else {
        Mat3::ZERO
    }
}

/// Solves the symmetric 2x2 system `[k11 k12; k12 k22] x = r`.
#[inline]
fn solve2(k11: f32, k12: f32, k22: f32, r: [f32; 2]) -> [f32; 2] {
    let det = k11 * k22 - k12 * k12;
    if det.abs() > f32::MIN_POSITIVE {
        let d = 1.0 / det;
        [d * (k22 * r[0] - k12 * r[1]), d * (k11 * r[1] - k12 * r[0])]
    } else {
        [inv(k11) * r[0], inv(k22) * r[1]]
    }
}

/// `[r]ᵀ I [r]` for the cross-product matrix `[r]` (`[r] x = r × x`).
#[inline]
fn arm(r: Vec3, i: Mat3) -> Mat3 {
    let s = Mat3::from_cols(
        Vec3::new(0.0, r.z, -r.y),
        Vec3::new(-r.z, 0.0, r.x),
        Vec3::new(r.y, -r.x, 0.0),
    );
    s.transpose() * i * s
}

/// The rotation vector of a small rotation `q` (`2 vec(q)`, the short way round).
#[inline]
fn rotation_error(q: Quat) -> Vec3 {
    let v = Vec3::new(q.x, q.y, q.z);
    if q.w < 0.0 {
        -2.0 * v
    } else {
        2.0 * v
    }
}

/// The angle of `q` about its frame's z axis (the twist of a swing-twist split), in (−π, π].
#[inline]
pub(super) fn twist_angle(q: Quat) -> f32 {
    let mut angle = 2.0 * q.z.atan2(q.w);
    let pi = std::f32::consts::PI;
    if angle > pi {
        angle -= 2.0 * pi;
    } else if angle <= -pi {
        angle += 2.0 * pi;
    }
    angle
}

/// Soft coefficients of a spring on a row of inverse effective mass `k`.
pub(crate) fn spring_softness(spring: &Spring, k: f32, h: f32) -> Softness {
    match spring.stiffness {
        SpringStiffness::Frequency {
            hertz,
            damping_ratio,
        } => Softness::new(hertz, damping_ratio, h),
        SpringStiffness::Physical { stiffness, damping } => {
            // With k_s = m ω² and c = 2 m ζ ω the frequency form's a2 = h ω (2ζ + h ω)
            // becomes h (c + h k_s) / m: the same soft step in physical units.
            let a = damping + h * stiffness;
            let a2 = h * a * k;
            let a3 = 1.0 / (1.0 + a2);
            Softness {
                bias_rate: if a > 0.0 { stiffness / a } else { 0.0 },
                mass_scale: a2 * a3,
                impulse_scale: a3,
            }
        }
    }
}

/// The exact update of a linear spring-damper `ẍ + 2ζω ẋ + ω² x = 0` over a substep
/// `h`: `x(h) = a x₀ + b v₀`, `v(h) = d x₀ + c v₀`, from the matrix exponential
/// `e^{−ζωh} [[C + ζω S, S], [−ω² S, C − ζω S]]` with `β² = ω² (1 − ζ²)`:
/// `C = cos βh, S = sin βh / β` (under-damped), `cosh` and `sinh` (over-damped), and
/// their series near critical damping. An undamped spring keeps its energy and a damped
/// one decays at exactly `ζ`, at any substep: one implicit-Euler step per substep (the
/// usual soft spring) adds `ωh / 2` to the ratio, and applying it in both the solve and
/// the relax pass added twice that (2 Hz, ζ = 0.1 at one substep: 0.30).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpringStep {
    pub a: f32,
    pub b: f32,
    pub c: f32,
    pub d: f32,
}

impl SpringStep {
    /// The update for angular frequency `omega` (rad/s), damping ratio `zeta`, substep `h`.
    pub fn new(omega: f32, zeta: f32, h: f32) -> Self {
        let (w, z) = (omega as f64, zeta as f64);
        let h = h as f64;
        let beta2 = w * w * (1.0 - z * z);
        let x = beta2 * h * h;
        let (cc, ss) = if x.abs() < 1.0e-6 {
            (1.0 - 0.5 * x, h * (1.0 - x / 6.0))
        } else if x > 0.0 {
            let beta = beta2.sqrt();
            ((beta * h).cos(), (beta * h).sin() / beta)
        } else {
            let beta = (-beta2).sqrt();
            ((beta * h).cosh(), (beta * h).sinh() / beta)
        };
        let e = (-z * w * h).exp();
        Self {
            a: (e * (cc + z * w * ss)) as f32,
            b: (e * ss) as f32,
            c: (e * (cc - z * w * ss)) as f32,
            d: (-e * w * w * ss) as f32,
        }
    }

    /// `(x(h), v(h))` from `(x₀, v₀)`.
    #[inline]
    pub fn advance(&self, x0: f32, v0: f32) -> (f32, f32) {
        (self.a * x0 + self.b * v0, self.d * x0 + self.c * v0)
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

    fn linear_row(&self, dir: Vec3, lever_a: Vec3, lever_b: Vec3) -> Row {
        let (ang_a, ang_b) = (lever_a.cross(dir), lever_b.cross(dir));
        let k = (self.m_a + self.m_b) * dir.length_squared()
            + ang_a.dot(self.i_a * ang_a)
            + ang_b.dot(self.i_b * ang_b);
        Row {
            lin: dir,
            ang_a,
            ang_b,
            mass: inv(k),
        }
    }

    fn angular_row(&self, axis: Vec3) -> Row {
        Row {
            lin: Vec3::ZERO,
            ang_a: axis,
            ang_b: axis,
            mass: inv(axis.dot(self.i_a * axis) + axis.dot(self.i_b * axis)),
        }
    }

    #[inline]
    fn cdot(row: &Row, v: &Vel) -> f32 {
        row.lin.dot(v.vb - v.va) + row.ang_b.dot(v.wb) - row.ang_a.dot(v.wa)
    }

    #[inline]
    fn apply_row(&self, row: &Row, v: &mut Vel, impulse: f32) {
        v.va -= (self.m_a * impulse) * row.lin;
        v.wa -= self.i_a * (impulse * row.ang_a);
        v.vb += (self.m_b * impulse) * row.lin;
        v.wb += self.i_b * (impulse * row.ang_b);
    }

    #[inline]
    fn apply_linear(&self, v: &mut Vel, lever_a: Vec3, lever_b: Vec3, p: Vec3) {
        v.va -= self.m_a * p;
        v.wa -= self.i_a * lever_a.cross(p);
        v.vb += self.m_b * p;
        v.wb += self.i_b * lever_b.cross(p);
    }

    #[inline]
    fn apply_angular(&self, v: &mut Vel, l: Vec3) {
        v.wa -= self.i_a * l;
        v.wb += self.i_b * l;
    }

    /// A one-sided row `C >= 0` (speculative when `C > 0`); `sign` −1 mirrors the row.
    #[allow(clippy::too_many_arguments)]
    fn solve_limit(
        &self,
        row: &Row,
        v: &mut Vel,
        c: f32,
        sign: f32,
        soft: Scales,
        inv_h: f32,
        acc: &mut f32,
    ) {
        let s = if c > 0.0 {
            Scales {
                bias_rate: inv_h,
                ..RIGID
            }
        } else {
            soft
        };
        let cdot = sign * Self::cdot(row, v);
        let impulse = -row.mass * s.mass_scale * (cdot + s.bias_rate * c) - s.impulse_scale * *acc;
        let total = (*acc + impulse).max(0.0);
        let impulse = total - *acc;
        *acc = total;
        self.apply_row(row, v, sign * impulse);
    }

    /// The one-sided rows keeping `x` within `[lower, upper]`; an infinite bound has no row.
    #[allow(clippy::too_many_arguments)]
    fn solve_range(
        &self,
        row: &Row,
        v: &mut Vel,
        x: f32,
        lower: f32,
        upper: f32,
        soft: Scales,
        inv_h: f32,
        j: &mut JointImpulses,
    ) {
        // A missing row drops its accumulator (left by a limit removed through the API).
        if lower.is_finite() {
            self.solve_limit(row, v, x - lower, 1.0, soft, inv_h, &mut j.lower);
        } else {
            j.lower = 0.0;
        }
        if upper.is_finite() {
            self.solve_limit(row, v, upper - x, -1.0, soft, inv_h, &mut j.upper);
        } else {
            j.upper = 0.0;
        }
    }

    /// Spring, motor and limits of one axis (hinge angle, slider translation) at `x`.
    #[allow(clippy::too_many_arguments)]
    fn solve_axis(
        &self,
        row: &Row,
        v: &mut Vel,
        x: f32,
        limits: Option<Limits>,
        motor: Option<Motor>,
        spring: Option<Spring>,
        soft: Scales,
        ctx: &StepContext,
        use_bias: bool,
        j: &mut JointImpulses,
        spring_end: &mut f32,
    ) {
        match spring {
            Some(s) => {
                let c = x - s.target;
                self.solve_spring(row, v, &s, c, ctx, use_bias, &mut j.spring, spring_end)
            }
            None => j.spring = 0.0,
        }
        match motor {
            Some(m) => self.solve_motor(row, v, m.speed, m.max_force * ctx.h, &mut j.motor),
            None => j.motor = 0.0,
        }
        let l = limits.unwrap_or(Limits {
            lower: f32::NEG_INFINITY,
            upper: f32::INFINITY,
        });
        self.solve_range(row, v, x, l.lower, l.upper, soft, ctx.inv_h, j);
    }

    fn solve_motor(&self, row: &Row, v: &mut Vel, speed: f32, max_impulse: f32, acc: &mut f32) {
        let impulse = -row.mass * (Self::cdot(row, v) - speed);
        let total = (*acc + impulse).clamp(-max_impulse, max_impulse);
        let impulse = total - *acc;
        *acc = total;
        self.apply_row(row, v, impulse);
    }

    /// The spring of an axis at `C = c`. Frequency form: the exact update of the
    /// spring-damper over the substep ([`SpringStep`]): the solve pass gives the row the
    /// velocity that moves it to `x(h)`, the relax pass the velocity `v(h)`. Physical
    /// form: one implicit-Euler soft row, in the solve pass only.
    #[allow(clippy::too_many_arguments)]
    fn solve_spring(
        &self,
        row: &Row,
        v: &mut Vel,
        spring: &Spring,
        c: f32,
        ctx: &StepContext,
        use_bias: bool,
        acc: &mut f32,
        end: &mut f32,
    ) {
        let cdot = Self::cdot(row, v);
        let impulse = match spring.stiffness {
            SpringStiffness::Frequency {
                hertz,
                damping_ratio,
            } => {
                if use_bias {
                    // The row's velocity without this substep's spring impulse (the warm
                    // start applied the last one).
                    let v0 = cdot - inv(row.mass) * *acc;
                    let step =
                        SpringStep::new(2.0 * std::f32::consts::PI * hertz, damping_ratio, ctx.h);
                    let (x1, v1) = step.advance(c, v0);
                    *end = v1;
                    row.mass * ((x1 - c) * ctx.inv_h - cdot)
                } else {
                    row.mass * (*end - cdot)
                }
            }
            SpringStiffness::Physical { .. } => {
                if !use_bias {
                    return;
                }
                let s = spring_softness(spring, inv(row.mass), ctx.h);
                -row.mass * s.mass_scale * (cdot + s.bias_rate * c) - s.impulse_scale * *acc
            }
        };
        *acc += impulse;
        self.apply_row(row, v, impulse);
    }

    /// A bilateral row `C = 0`.
    fn solve_equal(&self, row: &Row, v: &mut Vel, c: f32, s: Scales, acc: &mut f32) {
        let impulse = -row.mass * s.mass_scale * (Self::cdot(row, v) + s.bias_rate * c)
            - s.impulse_scale * *acc;
        *acc += impulse;
        self.apply_row(row, v, impulse);
    }

    /// The point block `C = d` (origins coincide), with `target` subtracted from `d`
    /// (the motor joint's offset) and A's lever extended by it.
    fn solve_point(&self, v: &mut Vel, f: &Frame, target: Vec3, s: Scales, acc: &mut Vec3) -> Vec3 {
        let lever_a = f.r_a + target;
        let k = Mat3::from_diagonal(Vec3::splat(self.m_a + self.m_b))
            + arm(lever_a, self.i_a)
            + arm(f.r_b, self.i_b);
        let cdot = v.vb + v.wb.cross(f.r_b) - v.va - v.wa.cross(lever_a);
        let c = f.d - target;
        let p = -s.mass_scale * (inverse3(k) * (cdot + s.bias_rate * c)) - s.impulse_scale * *acc;
        *acc += p;
        p
    }

    /// The rotation lock towards `Q_B = Q_A target`.
    fn solve_rotation(
        &self,
        v: &mut Vel,
        f: &Frame,
        target: Quat,
        s: Scales,
        acc: &mut Vec3,
    ) -> Vec3 {
        let c = rotation_error(f.q_b * (f.q_a * target).conjugate());
        let cdot = v.wb - v.wa;
        let l = -s.mass_scale * (inverse3(self.i_a + self.i_b) * (cdot + s.bias_rate * c))
            - s.impulse_scale * *acc;
        *acc += l;
        l
    }

    fn solve_swing(&self, v: &mut Vel, f: &Frame, s: Scales, acc: &mut Vec3) {
        let (x, y) = (f.q_a * Vec3::X, f.q_a * Vec3::Y);
        let ab = (f.q_a * Vec3::Z).cross(f.q_b * Vec3::Z);
        let i = self.i_a + self.i_b;
        let (ix, iy) = (i * x, i * y);
        let cdot = v.wb - v.wa;
        let r = [
            -(x.dot(cdot) + s.bias_rate * x.dot(ab)),
            -(y.dot(cdot) + s.bias_rate * y.dot(ab)),
        ];
        let [lx, ly] = solve2(x.dot(ix), x.dot(iy), y.dot(iy), r);
        let lx = s.mass_scale * lx - s.impulse_scale * acc.x;
        let ly = s.mass_scale * ly - s.impulse_scale * acc.y;
        acc.x += lx;
        acc.y += ly;
        self.apply_angular(v, lx * x + ly * y);
    }

    /// Slider rows perpendicular to the axis (x, y of A's frame).
    fn solve_slider_perp(&self, v: &mut Vel, f: &Frame, s: Scales, acc: &mut Vec3) {
        let lever_a = f.r_a + f.d;
        let (x, y) = (f.q_a * Vec3::X, f.q_a * Vec3::Y);
        let (rx, ry) = (
            self.linear_row(x, lever_a, f.r_b),
            self.linear_row(y, lever_a, f.r_b),
        );
        let k12 = rx.ang_a.dot(self.i_a * ry.ang_a) + rx.ang_b.dot(self.i_b * ry.ang_b);
        let r = [
            -(Self::cdot(&rx, v) + s.bias_rate * x.dot(f.d)),
            -(Self::cdot(&ry, v) + s.bias_rate * y.dot(f.d)),
        ];
        let [lx, ly] = solve2(inv(rx.mass), k12, inv(ry.mass), r);
        let lx = s.mass_scale * lx - s.impulse_scale * acc.x;
        let ly = s.mass_scale * ly - s.impulse_scale * acc.y;
        acc.x += lx;
        acc.y += ly;
        self.apply_row(&rx, v, lx);
        self.apply_row(&ry, v, ly);
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
                    f.q_a * Vec3::Z
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

/// The twist part of `q` about z (its swing-twist split), unit and with `w >= 0`.
#[inline]
pub(super) fn swing_twist_twist(q: Quat) -> Quat {
    let t = Quat::from_xyzw(0.0, 0.0, q.z, q.w);
    let len = t.length();
    if len > 1.0e-9 {
        t / len
    } else {
        Quat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twist_angle_round_trips() {
        for k in -30..30 {
            let angle = k as f32 * 0.1;
            let q = Quat::from_rotation_z(angle);
            assert!((twist_angle(q) - angle).abs() < 1.0e-5, "{angle}");
            // A swing about x after the twist does not change the twist.
            let q2 = q * Quat::from_rotation_x(0.3);
            assert!((twist_angle(swing_twist_twist(q2)) - angle).abs() < 1.0e-4);
        }
    }

    #[test]
    fn physical_spring_matches_frequency_form() {
        let (m, hz, zeta, h) = (2.0f32, 5.0f32, 0.7f32, 1.0 / 240.0);
        let w = 2.0 * std::f32::consts::PI * hz;
        let freq = spring_softness(&Spring::frequency(hz, zeta, 0.0), 1.0 / m, h);
        let phys = spring_softness(
            &Spring::physical(m * w * w, 2.0 * m * zeta * w, 0.0),
            1.0 / m,
            h,
        );
        assert!((freq.bias_rate - phys.bias_rate).abs() < 1.0e-3 * freq.bias_rate);
        assert!((freq.mass_scale - phys.mass_scale).abs() < 1.0e-5);
        assert!((freq.impulse_scale - phys.impulse_scale).abs() < 1.0e-5);
    }

    #[test]
    fn arm_matches_cross_products() {
        let r = Vec3::new(0.3, -1.2, 0.7);
        let i = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0));
        let p = Vec3::new(-0.4, 0.5, 2.0);
        // Velocity at r from an impulse p at r: −r × (I (r × p)) = [r]ᵀ I [r] p.
        let direct = -r.cross(i * r.cross(p));
        assert!((arm(r, i) * p - direct).length() < 1.0e-5);
    }
}
