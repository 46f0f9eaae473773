//! The rows of the lane joints: each the scalar joint's row (see [`crate::solver::joint`])
//! on `W` lanes, masked where a lane has no such row.

use super::params::{AxisW, SpringW};
use super::{inv, splat, FrameW, ImpulsesW, JointW, RowW, ScalesW, ZERO};
use crate::solver::ball_wide::{point_mass, solve3};
use crate::solver::contact_wide::BodiesW;
use crate::solver::wide::{FloatW, QuatW, Vec3W};
use crate::solver::StepContext;

impl JointW {
    pub(super) fn linear_row(&self, dir: Vec3W, lever_a: Vec3W, lever_b: Vec3W) -> RowW {
        let (ang_a, ang_b) = (lever_a.cross(dir), lever_b.cross(dir));
        let k = (self.bodies.m_a + self.bodies.m_b) * dir.dot(dir)
            + ang_a.dot(self.bodies.i_a.mul(ang_a))
            + ang_b.dot(self.bodies.i_b.mul(ang_b));
        RowW {
            lin: Some(dir),
            ang_a,
            ang_b,
            k,
            mass: inv(k),
        }
    }

    pub(super) fn angular_row(&self, axis: Vec3W) -> RowW {
        let k = axis.dot(self.bodies.i_a.mul(axis)) + axis.dot(self.bodies.i_b.mul(axis));
        RowW {
            lin: None,
            ang_a: axis,
            ang_b: axis,
            k,
            mass: inv(k),
        }
    }

    #[inline(always)]
    pub(super) fn cdot(row: &RowW, l: &BodiesW) -> FloatW {
        let lin = row.lin.map_or(ZERO, |d| d.dot(l.vb - l.va));
        lin + row.ang_b.dot(l.wb) - row.ang_a.dot(l.wa)
    }

    #[inline(always)]
    pub(super) fn apply_row(&self, row: &RowW, l: &mut BodiesW, impulse: FloatW) {
        if let Some(d) = row.lin {
            l.va = l.va - (self.bodies.m_a * impulse) * d;
            l.vb = l.vb + (self.bodies.m_b * impulse) * d;
        }
        l.wa = l.wa - self.bodies.i_a.mul(impulse * row.ang_a);
        l.wb = l.wb + self.bodies.i_b.mul(impulse * row.ang_b);
    }

    #[inline(always)]
    pub(super) fn apply_linear(&self, l: &mut BodiesW, lever_a: Vec3W, lever_b: Vec3W, p: Vec3W) {
        self.bodies.apply_linear(l, lever_a, lever_b, p);
    }

    #[inline(always)]
    pub(super) fn apply_angular(&self, l: &mut BodiesW, a: Vec3W) {
        self.bodies.apply_angular(l, a);
    }

    /// A one-sided row `C >= 0` on the lanes `on` (speculative where `C > 0`); `sign` −1
    /// mirrors the row.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_limit(
        &self,
        row: &RowW,
        l: &mut BodiesW,
        c: FloatW,
        sign: f32,
        on: FloatW,
        soft: ScalesW,
        inv_h: f32,
        acc: &mut FloatW,
    ) {
        let spec = c.simd_gt(ZERO);
        let bias = spec.select(splat(inv_h), soft.bias_rate);
        let mass_scale = spec.select(splat(1.0), soft.mass_scale);
        let impulse_scale = spec.select(ZERO, soft.impulse_scale);
        let cdot = splat(sign) * Self::cdot(row, l);
        let impulse = -row.mass * mass_scale * (cdot + bias * c) - impulse_scale * *acc;
        let total = on.select((*acc + impulse).max(ZERO), ZERO);
        // A lane without this row drops its accumulator (left by a removed limit).
        let impulse = on.select(total - *acc, ZERO);
        *acc = total;
        self.apply_row(row, l, splat(sign) * impulse);
    }

    /// The one-sided rows keeping `x` within the axis' bounds.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_range(
        &self,
        row: &RowW,
        l: &mut BodiesW,
        x: FloatW,
        axis: &AxisW,
        soft: ScalesW,
        inv_h: f32,
        imp: &mut ImpulsesW,
    ) {
        if axis.lower_on.any() {
            let c = x - axis.lower;
            self.solve_limit(row, l, c, 1.0, axis.lower_on, soft, inv_h, &mut imp.lower);
        } else {
            imp.lower = ZERO;
        }
        if axis.upper_on.any() {
            let c = axis.upper - x;
            self.solve_limit(row, l, c, -1.0, axis.upper_on, soft, inv_h, &mut imp.upper);
        } else {
            imp.upper = ZERO;
        }
    }

    /// The spring of an axis at `x`, on the lanes that have one (the others'
    /// accumulator is the caller's); as the scalar joint's: the exact update for the
    /// frequency form (solve pass: the velocity that reaches `x(h)`, relax pass: `v(h)`),
    /// one soft row in the solve pass for the physical form. `through`: a distance
    /// spring's coordinate is a length, and an update that carries it below zero turns
    /// the row round by the relax pass (as the scalar joint's `through`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_spring(
        &self,
        row: &RowW,
        l: &mut BodiesW,
        spring: &SpringW,
        x: FloatW,
        through: bool,
        ctx: &StepContext,
        use_bias: bool,
        acc: &mut FloatW,
        end: &mut FloatW,
    ) {
        let c = x - spring.target;
        let cdot = Self::cdot(row, l);
        let exact = if use_bias {
            let v0 = cdot - row.k * *acc;
            let [a, b, cc, d] = spring.step;
            let (x1, v1) = (a * c + b * v0, d * c + cc * v0);
            *end = if through {
                (x1 + spring.target).simd_lt(ZERO).select(-v1, v1)
            } else {
                v1
            };
            row.mass * ((x1 - c) * splat(ctx.inv_h) - cdot)
        } else {
            row.mass * (*end - cdot)
        };
        let phys = if use_bias {
            let s = spring.physical_scales(row.k);
            -row.mass * s.mass_scale * (cdot + s.bias_rate * c) - s.impulse_scale * *acc
        } else {
            ZERO
        };
        let impulse = spring.physical.select(phys, exact);
        let impulse = spring.on.select(impulse, ZERO);
        *acc += impulse;
        self.apply_row(row, l, impulse);
    }

    /// Spring, motor and limits of one axis at `x`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_axis(
        &self,
        row: &RowW,
        l: &mut BodiesW,
        x: FloatW,
        axis: &AxisW,
        soft: ScalesW,
        ctx: &StepContext,
        use_bias: bool,
        imp: &mut ImpulsesW,
    ) {
        if axis.spring.on.any() {
            let end = &mut imp.spring_end;
            self.solve_spring(
                row,
                l,
                &axis.spring,
                x,
                false,
                ctx,
                use_bias,
                &mut imp.spring,
                end,
            );
        }
        imp.spring = axis.spring.on.select(imp.spring, ZERO);
        if axis.motor_on.any() {
            let max = axis.max_force * splat(ctx.h);
            let impulse = -row.mass * (Self::cdot(row, l) - axis.speed);
            let total = axis
                .motor_on
                .select((imp.motor + impulse).max(-max).min(max), ZERO);
            let impulse = axis.motor_on.select(total - imp.motor, ZERO);
            imp.motor = total;
            self.apply_row(row, l, impulse);
        } else {
            imp.motor = ZERO;
        }
        self.solve_range(row, l, x, axis, soft, ctx.inv_h, imp);
    }

    /// The point block `C = d − target` with A's lever extended by `target`; returns the
    /// impulse on B (not yet applied).
    pub(super) fn solve_point(
        &self,
        l: &BodiesW,
        f: &FrameW,
        target: Option<Vec3W>,
        s: ScalesW,
        acc: &mut Vec3W,
    ) -> Vec3W {
        let (lever_a, c) = match target {
            Some(t) => (f.r_a + t, f.d - t),
            None => (f.r_a, f.d),
        };
        let k = point_mass(
            self.bodies.m_a + self.bodies.m_b,
            lever_a,
            &self.bodies.i_a,
            f.r_b,
            &self.bodies.i_b,
        );
        let cdot = l.vb + l.wb.cross(f.r_b) - l.va - l.wa.cross(lever_a);
        let rhs = cdot + s.bias_rate * c;
        let p = -s.mass_scale * solve3(&k, rhs) - s.impulse_scale * *acc;
        *acc = *acc + p;
        p
    }

    /// The rotation lock towards `Q_B = Q_A target`; returns the angular impulse on B.
    pub(super) fn solve_rotation(
        &self,
        l: &BodiesW,
        f: &FrameW,
        target: Option<QuatW>,
        s: ScalesW,
        acc: &mut Vec3W,
    ) -> Vec3W {
        let goal = target.map_or(f.q_a, |t| f.q_a.mul(t));
        let q = f.q_b.mul(goal.conjugate());
        // The rotation vector of the error the short way round: 2 vec(q), sign of w.
        let two = q.s.simd_lt(ZERO).select(splat(-2.0), splat(2.0));
        let c = two * q.v;
        let cdot = l.wb - l.wa;
        let k = self.bodies.i_a.add(&self.bodies.i_b);
        let lam = -s.mass_scale * solve3(&k, cdot + s.bias_rate * c) - s.impulse_scale * *acc;
        *acc = *acc + lam;
        lam
    }

    /// Hinge: the swing rows about A's frame x and y.
    pub(super) fn solve_swing(&self, l: &mut BodiesW, f: &FrameW, s: ScalesW, acc: &mut Vec3W) {
        let [x, y, z] = f.q_a.axes();
        let ab = z.cross(f.q_b.axes()[2]);
        let i = self.bodies.i_a.add(&self.bodies.i_b);
        let (ix, iy) = (i.mul(x), i.mul(y));
        let cdot = l.wb - l.wa;
        let r = [
            -(x.dot(cdot) + s.bias_rate * x.dot(ab)),
            -(y.dot(cdot) + s.bias_rate * y.dot(ab)),
        ];
        let [lx, ly] = solve2(x.dot(ix), x.dot(iy), y.dot(iy), r);
        let lx = s.mass_scale * lx - s.impulse_scale * acc.x;
        let ly = s.mass_scale * ly - s.impulse_scale * acc.y;
        acc.x += lx;
        acc.y += ly;
        self.apply_angular(l, lx * x + ly * y);
    }

    /// Slider: the rows perpendicular to the axis (x, y of A's frame).
    pub(super) fn solve_slider_perp(
        &self,
        l: &mut BodiesW,
        f: &FrameW,
        s: ScalesW,
        acc: &mut Vec3W,
    ) {
        let lever_a = f.r_a + f.d;
        let [x, y, _] = f.q_a.axes();
        let (rx, ry) = (
            self.linear_row(x, lever_a, f.r_b),
            self.linear_row(y, lever_a, f.r_b),
        );
        let k12 = rx.ang_a.dot(self.bodies.i_a.mul(ry.ang_a))
            + rx.ang_b.dot(self.bodies.i_b.mul(ry.ang_b));
        let r = [
            -(Self::cdot(&rx, l) + s.bias_rate * x.dot(f.d)),
            -(Self::cdot(&ry, l) + s.bias_rate * y.dot(f.d)),
        ];
        let [lx, ly] = solve2(rx.k, k12, ry.k, r);
        let lx = s.mass_scale * lx - s.impulse_scale * acc.x;
        let ly = s.mass_scale * ly - s.impulse_scale * acc.y;
        acc.x += lx;
        acc.y += ly;
        self.apply_row(&rx, l, lx);
        self.apply_row(&ry, l, ly);
    }
}

/// Solves the symmetric 2x2 system `[k11 k12; k12 k22] x = r` per lane (a singular lane
/// falls back to the diagonal, as the scalar rows).
#[inline(always)]
fn solve2(k11: FloatW, k12: FloatW, k22: FloatW, r: [FloatW; 2]) -> [FloatW; 2] {
    let det = k11 * k22 - k12 * k12;
    let ok = det.abs().simd_gt(splat(f32::MIN_POSITIVE));
    let d = splat(1.0) / ok.select(det, splat(1.0));
    [
        ok.select(d * (k22 * r[0] - k12 * r[1]), inv(k11) * r[0]),
        ok.select(d * (k11 * r[1] - k12 * r[0]), inv(k22) * r[1]),
    ]
}
