//! The rows of the scalar joints (see the parent module's comment for each constraint
//! function) and the small dense solves they use.

use super::{spring_softness, Frame, JointConstraint, Row, Scales, SpringStep, Vel, RIGID};
use crate::joint::{JointImpulses, Limits, Motor, Spring, SpringStiffness};
use crate::solver::StepContext;
use glam::{Mat3, Quat, Vec3};

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
pub(super) fn arm(r: Vec3, i: Mat3) -> Mat3 {
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
pub(in crate::solver) fn twist_angle(q: Quat) -> f32 {
    let mut angle = 2.0 * q.z.atan2(q.w);
    let pi = std::f32::consts::PI;
    if angle > pi {
        angle -= 2.0 * pi;
    } else if angle <= -pi {
        angle += 2.0 * pi;
    }
    angle
}

impl JointConstraint {
    pub(super) fn linear_row(&self, dir: Vec3, lever_a: Vec3, lever_b: Vec3) -> Row {
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

    pub(super) fn angular_row(&self, axis: Vec3) -> Row {
        Row {
            lin: Vec3::ZERO,
            ang_a: axis,
            ang_b: axis,
            mass: inv(axis.dot(self.i_a * axis) + axis.dot(self.i_b * axis)),
        }
    }

    #[inline]
    pub(super) fn cdot(row: &Row, v: &Vel) -> f32 {
        row.lin.dot(v.vb - v.va) + row.ang_b.dot(v.wb) - row.ang_a.dot(v.wa)
    }

    #[inline]
    pub(super) fn apply_row(&self, row: &Row, v: &mut Vel, impulse: f32) {
        v.va -= (self.m_a * impulse) * row.lin;
        v.wa -= self.i_a * (impulse * row.ang_a);
        v.vb += (self.m_b * impulse) * row.lin;
        v.wb += self.i_b * (impulse * row.ang_b);
    }

    #[inline]
    pub(super) fn apply_linear(&self, v: &mut Vel, lever_a: Vec3, lever_b: Vec3, p: Vec3) {
        v.va -= self.m_a * p;
        v.wa -= self.i_a * lever_a.cross(p);
        v.vb += self.m_b * p;
        v.wb += self.i_b * lever_b.cross(p);
    }

    #[inline]
    pub(super) fn apply_angular(&self, v: &mut Vel, l: Vec3) {
        v.wa -= self.i_a * l;
        v.wb += self.i_b * l;
    }

    /// A one-sided row `C >= 0` (speculative when `C > 0`); `sign` −1 mirrors the row.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_limit(
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
    pub(super) fn solve_range(
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
    pub(super) fn solve_axis(
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
                self.solve_spring(
                    row,
                    v,
                    &s,
                    c,
                    None,
                    ctx,
                    use_bias,
                    &mut j.spring,
                    spring_end,
                )
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

    pub(super) fn solve_motor(
        &self,
        row: &Row,
        v: &mut Vel,
        speed: f32,
        max_impulse: f32,
        acc: &mut f32,
    ) {
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
    ///
    /// `through`: a distance spring's target length. Its coordinate is a length, which
    /// cannot go below zero: when the update carries it below (the bodies pass through
    /// each other's anchors, as a spring of length 0 does every half period), the row's
    /// direction has turned round by the relax pass, which then takes the end velocity
    /// in the turned direction (before, it took it in the old one and sent the body
    /// back: a spring of length 0 stopped dead at its anchor).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_spring(
        &self,
        row: &Row,
        v: &mut Vel,
        spring: &Spring,
        c: f32,
        through: Option<f32>,
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
                    *end = match through {
                        Some(target) if x1 + target < 0.0 => -v1,
                        _ => v1,
                    };
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
    pub(super) fn solve_equal(&self, row: &Row, v: &mut Vel, c: f32, s: Scales, acc: &mut f32) {
        let impulse = -row.mass * s.mass_scale * (Self::cdot(row, v) + s.bias_rate * c)
            - s.impulse_scale * *acc;
        *acc += impulse;
        self.apply_row(row, v, impulse);
    }

    /// The point block `C = d` (origins coincide), with `target` subtracted from `d`
    /// (the motor joint's offset) and A's lever extended by it.
    pub(super) fn solve_point(
        &self,
        v: &mut Vel,
        f: &Frame,
        target: Vec3,
        s: Scales,
        acc: &mut Vec3,
    ) -> Vec3 {
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
    pub(super) fn solve_rotation(
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

    pub(super) fn solve_swing(&self, v: &mut Vel, f: &Frame, s: Scales, acc: &mut Vec3) {
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
    pub(super) fn solve_slider_perp(&self, v: &mut Vel, f: &Frame, s: Scales, acc: &mut Vec3) {
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
}

/// The twist part of `q` about z (its swing-twist split), unit and with `w >= 0`.
#[inline]
pub(in crate::solver) fn swing_twist_twist(q: Quat) -> Quat {
    let t = Quat::from_xyzw(0.0, 0.0, q.z, q.w);
    let len = t.length();
    if len > 1.0e-9 {
        t / len
    } else {
        Quat::IDENTITY
    }
}
