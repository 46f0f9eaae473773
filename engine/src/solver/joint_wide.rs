//! Hinge, slider, fixed, distance, cone-twist and motor joints solved `W` at a time in
//! SIMD lanes (ball joints have their own, smaller batch: [`super::ball_wide`]).
//!
//! A [`JointW`] holds `W` joints of one kind from one colour (so no two lanes write the
//! same dynamic body); its [`Params`] variant is the kind's batch (the `HingeJointW`,
//! `SliderJointW`, … of the design). The rows, their order and their soft coefficients
//! are exactly those of the scalar solver in [`super::joint`], whose module comment
//! gives each constraint function and Jacobian; this file only runs them in lanes.
//! What differs per lane within a kind (a limit on one side only, no motor, a spring in
//! physical units) is a lane mask, and a masked-off row applies a zero impulse.
//!
//! As everywhere in the lanes, each operation is a plain IEEE operation per lane (no
//! fused multiply-add), and the angles (`atan2`) are taken per lane with the scalar
//! library function, so a joint's result depends neither on its lane nor on `W`.
//! Empty lanes have zero masses and zero rows and are never written back.

use super::ball_wide::{point_mass, solve3, Broken, JointBodiesW};
use super::contact_wide::{BodiesW, StatesPtr};
use super::joint::{spring_softness, swing_twist_twist, twist_angle, SpringStep};
use super::wide::{FloatW, QuatW, Vec3W, W};
use super::{SolverBodies, SolverMass, StepContext};
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses, JointKind, Limits, Motor, Spring, SpringStiffness};
use crate::parallel::DisjointPtr;
use glam::{Quat, Vec3};

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

/// A spring per lane (`on` masks the lanes that have one). The frequency form is
/// updated exactly ([`SpringStep`], computed per lane once a step, the same for every
/// lane width); the physical form is one soft row whose `a2 = h a k` depends on the
/// row, so those lanes (`physical`) finish it in the pass with the row's inverse mass.
#[derive(Clone, Copy, Debug)]
struct SpringW {
    on: FloatW,
    target: FloatW,
    /// The frequency form's update: `x(h) = a x₀ + b v₀`, `v(h) = d x₀ + c v₀`.
    step: [FloatW; 4],
    physical: FloatW,
    /// `h (c + h k_s)` and `k_s / (c + h k_s)` of the physical form.
    ha: FloatW,
    phys_bias: FloatW,
}

impl SpringW {
    fn gather(springs: &[Option<Spring>; W], h: f32) -> Self {
        let step = springs.map(|s| match s.map(|s| s.stiffness) {
            Some(SpringStiffness::Frequency {
                hertz,
                damping_ratio,
            }) => SpringStep::new(2.0 * std::f32::consts::PI * hertz, damping_ratio, h),
            _ => SpringStep {
                a: 0.0,
                b: 0.0,
                c: 0.0,
                d: 0.0,
            },
        });
        let phys = springs.map(|s| match s.map(|s| s.stiffness) {
            Some(SpringStiffness::Physical { stiffness, damping }) => {
                let a = damping + h * stiffness;
                Some((h * a, if a > 0.0 { stiffness / a } else { 0.0 }))
            }
            _ => None,
        });
        Self {
            on: mask(|i| springs[i].is_some()),
            target: lanes(|i| springs[i].map_or(0.0, |s| s.target)),
            step: [
                lanes(|i| step[i].a),
                lanes(|i| step[i].b),
                lanes(|i| step[i].c),
                lanes(|i| step[i].d),
            ],
            physical: mask(|i| phys[i].is_some()),
            ha: lanes(|i| phys[i].map_or(0.0, |p| p.0)),
            phys_bias: lanes(|i| phys[i].map_or(0.0, |p| p.1)),
        }
    }

    /// The physical form's coefficients on a row of inverse effective mass `k`.
    #[inline(always)]
    fn physical_scales(&self, k: FloatW) -> ScalesW {
        let a2 = self.ha * k;
        let a3 = splat(1.0) / (splat(1.0) + a2);
        ScalesW {
            bias_rate: self.phys_bias,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

/// Limits, motor and spring of one axis (hinge or twist angle, slider translation,
/// distance); absent parts are masked off (a missing motor has zero force).
#[derive(Clone, Copy, Debug)]
struct AxisW {
    lower: FloatW,
    upper: FloatW,
    lower_on: FloatW,
    upper_on: FloatW,
    speed: FloatW,
    max_force: FloatW,
    motor_on: FloatW,
    spring: SpringW,
}

impl AxisW {
    fn gather(
        limits: &[Option<Limits>; W],
        motors: &[Option<Motor>; W],
        springs: &[Option<Spring>; W],
        h: f32,
    ) -> Self {
        let bound =
            |f: fn(&Limits) -> f32| limits.map(|l| l.map(|l| f(&l)).filter(|x| x.is_finite()));
        let (lower, upper) = (bound(|l| l.lower), bound(|l| l.upper));
        Self {
            lower: lanes(|i| lower[i].unwrap_or(0.0)),
            upper: lanes(|i| upper[i].unwrap_or(0.0)),
            lower_on: mask(|i| lower[i].is_some()),
            upper_on: mask(|i| upper[i].is_some()),
            speed: lanes(|i| motors[i].map_or(0.0, |m| m.speed)),
            max_force: lanes(|i| motors[i].map_or(0.0, |m| m.max_force)),
            motor_on: mask(|i| motors[i].is_some()),
            spring: SpringW::gather(springs, h),
        }
    }
}

/// The soft coefficients of a fixed joint's optional springs, fixed for the step.
#[derive(Clone, Copy, Debug)]
struct WeldW {
    linear_on: FloatW,
    linear: ScalesW,
    angular_on: FloatW,
    angular: ScalesW,
}

#[derive(Clone, Copy, Debug)]
struct MotorW {
    offset: Vec3W,
    rotation: QuatW,
    max_force: FloatW,
    max_torque: FloatW,
    correction: FloatW,
}

/// The kind of a batch and its lanes' parameters.
#[derive(Clone, Copy, Debug)]
enum Params {
    Hinge(AxisW),
    Slider(AxisW),
    Fixed(WeldW),
    Distance {
        axis: AxisW,
        /// Lanes that are rigid rods (`min == max`, no spring) of this length.
        rigid: FloatW,
        length: FloatW,
    },
    ConeTwist {
        twist: AxisW,
        cone: FloatW,
    },
    Motor(MotorW),
}

/// Which lane batch a joint kind goes to (`None`: ball joints, see `BallJointW`). Joints
/// of one colour are sorted by it so a batch holds one kind.
pub(crate) fn lane_kind(kind: &JointKind) -> Option<u8> {
    Some(match kind {
        JointKind::Ball => return None,
        JointKind::Hinge { .. } => 0,
        JointKind::Slider { .. } => 1,
        JointKind::Fixed { .. } => 2,
        JointKind::Distance { .. } => 3,
        JointKind::ConeTwist { .. } => 4,
        JointKind::Motor { .. } => 5,
    })
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
    /// relax pass (see [`SpringStep`]).
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

    /// The batch's parameters from its lanes' kinds (`None`: empty lanes).
    fn params(
        kinds: &[Option<JointKind>; W],
        ma: &[SolverMass; W],
        mb: &[SolverMass; W],
        h: f32,
    ) -> Params {
        let first = kinds[0].expect("a batch has at least one joint");
        type Axis = (Option<Limits>, Option<Motor>, Option<Spring>);
        let axis = |f: &dyn Fn(&JointKind) -> Axis| {
            let parts = kinds.map(|k| k.map_or((None, None, None), |k| f(&k)));
            AxisW::gather(
                &parts.map(|p| p.0),
                &parts.map(|p| p.1),
                &parts.map(|p| p.2),
                h,
            )
        };
        match first {
            JointKind::Ball => unreachable!("ball joints have their own batches"),
            JointKind::Hinge { .. } => Params::Hinge(axis(&|k| match *k {
                JointKind::Hinge {
                    limits,
                    motor,
                    spring,
                } => (limits, motor, spring),
                _ => (None, None, None),
            })),
            JointKind::Slider { .. } => Params::Slider(axis(&|k| match *k {
                JointKind::Slider {
                    limits,
                    motor,
                    spring,
                } => (limits, motor, spring),
                _ => (None, None, None),
            })),
            JointKind::Fixed { .. } => {
                let springs = kinds.map(|k| match k {
                    Some(JointKind::Fixed { linear, angular }) => (linear, angular),
                    _ => (None, None),
                });
                let soft = |f: &dyn Fn(usize) -> Option<crate::solver::Softness>| {
                    let s: [_; W] = std::array::from_fn(f);
                    (
                        mask(|i| s[i].is_some()),
                        ScalesW {
                            bias_rate: lanes(|i| s[i].map_or(0.0, |s| s.bias_rate)),
                            mass_scale: lanes(|i| s[i].map_or(0.0, |s| s.mass_scale)),
                            impulse_scale: lanes(|i| s[i].map_or(0.0, |s| s.impulse_scale)),
                        },
                    )
                };
                let (linear_on, linear) = soft(&|i| {
                    springs[i]
                        .0
                        .map(|s| spring_softness(&s, ma[i].inv_mass + mb[i].inv_mass, h))
                });
                let (angular_on, angular) = soft(&|i| {
                    springs[i].1.map(|s| {
                        let k = (ma[i].inv_inertia + mb[i].inv_inertia).to_cols_array();
                        spring_softness(&s, (k[0] + k[4] + k[8]) / 3.0, h)
                    })
                });
                Params::Fixed(WeldW {
                    linear_on,
                    linear,
                    angular_on,
                    angular,
                })
            }
            JointKind::Distance { .. } => {
                let parts = kinds.map(|k| match k {
                    Some(JointKind::Distance {
                        min_length,
                        max_length,
                        spring,
                    }) => Some((min_length, max_length, spring)),
                    _ => None,
                });
                let rigid = |i: usize| {
                    parts[i].is_some_and(|(min, max, spring)| min == max && spring.is_none())
                };
                // A rope (min 0) has no lower row; a rod has only its equality row.
                let limits = std::array::from_fn(|i| match parts[i] {
                    Some((min, max, _)) if !rigid(i) => Some(Limits {
                        lower: if min > 0.0 { min } else { f32::NEG_INFINITY },
                        upper: max,
                    }),
                    _ => None,
                });
                let springs = parts.map(|p| p.and_then(|p| p.2));
                Params::Distance {
                    axis: AxisW::gather(&limits, &[None; W], &springs, h),
                    rigid: mask(rigid),
                    length: lanes(|i| parts[i].map_or(0.0, |p| p.0)),
                }
            }
            JointKind::ConeTwist { .. } => {
                let parts = kinds.map(|k| match k {
                    Some(JointKind::ConeTwist { cone_angle, twist }) => (cone_angle, twist),
                    _ => (0.0, None),
                });
                Params::ConeTwist {
                    twist: AxisW::gather(&parts.map(|p| p.1), &[None; W], &[None; W], h),
                    cone: lanes(|i| parts[i].0),
                }
            }
            JointKind::Motor { .. } => {
                let parts = kinds.map(|k| match k {
                    Some(JointKind::Motor {
                        linear_offset,
                        angular_offset,
                        max_force,
                        max_torque,
                        correction,
                    }) => (
                        linear_offset,
                        angular_offset,
                        max_force,
                        max_torque,
                        correction,
                    ),
                    _ => (Vec3::ZERO, Quat::IDENTITY, 0.0, 0.0, 0.0),
                });
                Params::Motor(MotorW {
                    offset: Vec3W::gather(&parts.map(|p| p.0)),
                    rotation: QuatW::gather(&parts.map(|p| p.1)),
                    max_force: lanes(|i| parts[i].2),
                    max_torque: lanes(|i| parts[i].3),
                    correction: lanes(|i| parts[i].4),
                })
            }
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

    fn linear_row(&self, dir: Vec3W, lever_a: Vec3W, lever_b: Vec3W) -> RowW {
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

    fn angular_row(&self, axis: Vec3W) -> RowW {
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
    fn cdot(row: &RowW, l: &BodiesW) -> FloatW {
        let lin = row.lin.map_or(ZERO, |d| d.dot(l.vb - l.va));
        lin + row.ang_b.dot(l.wb) - row.ang_a.dot(l.wa)
    }

    #[inline(always)]
    fn apply_row(&self, row: &RowW, l: &mut BodiesW, impulse: FloatW) {
        if let Some(d) = row.lin {
            l.va = l.va - (self.bodies.m_a * impulse) * d;
            l.vb = l.vb + (self.bodies.m_b * impulse) * d;
        }
        l.wa = l.wa - self.bodies.i_a.mul(impulse * row.ang_a);
        l.wb = l.wb + self.bodies.i_b.mul(impulse * row.ang_b);
    }

    #[inline(always)]
    fn apply_linear(&self, l: &mut BodiesW, lever_a: Vec3W, lever_b: Vec3W, p: Vec3W) {
        self.bodies.apply_linear(l, lever_a, lever_b, p);
    }

    #[inline(always)]
    fn apply_angular(&self, l: &mut BodiesW, a: Vec3W) {
        self.bodies.apply_angular(l, a);
    }

    /// A one-sided row `C >= 0` on the lanes `on` (speculative where `C > 0`); `sign` −1
    /// mirrors the row.
    #[allow(clippy::too_many_arguments)]
    fn solve_limit(
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
    fn solve_range(
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
    /// one soft row in the solve pass for the physical form.
    #[allow(clippy::too_many_arguments)]
    fn solve_spring(
        &self,
        row: &RowW,
        l: &mut BodiesW,
        spring: &SpringW,
        x: FloatW,
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
            *end = v1;
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
    fn solve_axis(
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
            self.solve_spring(row, l, &axis.spring, x, ctx, use_bias, &mut imp.spring, end);
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
    fn solve_point(
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
    fn solve_rotation(
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
    fn solve_swing(&self, l: &mut BodiesW, f: &FrameW, s: ScalesW, acc: &mut Vec3W) {
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
    fn solve_slider_perp(&self, l: &mut BodiesW, f: &FrameW, s: ScalesW, acc: &mut Vec3W) {
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
                let u = normalize_or(f.d, 1.0e-6, f.q_a.axes()[2]);
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
                    self.solve_spring(&row, &mut l, &axis.spring, len, ctx, use_bias, spring, end);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::test_util::Rng;
    use crate::joint::JointDef;
    use crate::math::{rotate_diagonal, Transform};
    use crate::solver::joint::JointConstraint;
    use crate::solver::{BodyState, Softness};
    use crate::BodyId;

    /// `W` joints per kind between random, moving bodies (lane 1's body A static), with
    /// the per-lane variety of limits, motors and springs; one warm start, one solve and
    /// one relax pass in lanes and with the scalar rows must agree.
    fn kinds(i: usize) -> [JointKind; 6] {
        let f = |x: f32| f32::NEG_INFINITY * x;
        let limits = match i % 3 {
            0 => Some(Limits {
                lower: -0.3,
                upper: 0.4,
            }),
            1 => Some(Limits {
                lower: f(1.0),
                upper: 0.2,
            }),
            _ => None,
        };
        let motor = (i % 2 == 0).then_some(Motor {
            speed: 1.0,
            max_force: 5.0,
        });
        let spring = match i % 4 {
            1 => Some(Spring::frequency(4.0, 0.7, 0.1)),
            3 => Some(Spring::physical(30.0, 2.0, -0.1)),
            _ => None,
        };
        let (min_length, max_length) = [(1.0, 1.0), (0.0, 1.2), (0.5, 1.1), (0.3, f(-1.0))][i % 4];
        [
            JointKind::Hinge {
                limits,
                motor,
                spring,
            },
            JointKind::Slider {
                limits,
                motor,
                spring,
            },
            JointKind::Fixed {
                linear: spring.filter(|_| i % 2 == 1),
                angular: spring.filter(|_| i % 3 != 0),
            },
            JointKind::Distance {
                min_length,
                max_length,
                spring: spring.filter(|_| i % 4 != 0),
            },
            JointKind::ConeTwist {
                cone_angle: 0.5,
                twist: limits,
            },
            JointKind::Motor {
                linear_offset: Vec3::new(0.1, -0.2, 0.3),
                angular_offset: Quat::from_rotation_y(0.3),
                max_force: 40.0 * (i as f32 + 1.0),
                max_torque: 5.0 * (i as f32 + 1.0),
                correction: 0.3,
            },
        ]
    }

    #[test]
    fn lanes_match_the_scalar_rows_for_every_kind() {
        let h = 1.0 / 240.0;
        let ctx = StepContext {
            inv_dt: 60.0,
            h,
            inv_h: 1.0 / h,
            gravity: Vec3::ZERO,
            contact_softness: Softness::new(30.0, 10.0, h),
            static_softness: Softness::new(60.0, 10.0, h),
            joint_softness: Softness::new(60.0, 5.0, h),
            max_push_speed: 3.0,
            restitution_threshold: 1.0,
            static_friction_speed: 0.01,
            max_linear_speed: 100.0,
            max_rotation: 0.8,
        };
        for kind in 0..6 {
            let mut rng = Rng::new(17 + kind as u64);
            let n = 2 * W;
            let positions: Vec<Vec3> = (0..n)
                .map(|_| {
                    Vec3::new(
                        rng.range(-1.0, 1.0),
                        rng.range(-1.0, 1.0),
                        rng.range(-1.0, 1.0),
                    )
                })
                .collect();
            let rotations: Vec<Quat> = (0..n).map(|_| rng.rotation()).collect();
            let mut sb = SolverBodies::default();
            for (slot, &rotation) in rotations.iter().enumerate() {
                if slot == 2 {
                    sb.index.push(NULL);
                    continue;
                }
                sb.index.push(sb.states.len() as u32);
                sb.slot.push(slot as u32);
                let small = |rng: &mut Rng, s: f32| rng.direction() * rng.range(0.0, s);
                sb.states.push(BodyState {
                    v: small(&mut rng, 2.0),
                    w: small(&mut rng, 3.0),
                    dp: small(&mut rng, 0.01),
                    dq: Quat::from_scaled_axis(small(&mut rng, 0.02)),
                    ..BodyState::IDENTITY
                });
                let d = Vec3::new(
                    rng.range(0.2, 2.0),
                    rng.range(0.2, 2.0),
                    rng.range(0.2, 2.0),
                );
                sb.mass.push(SolverMass {
                    inv_mass: rng.range(0.2, 2.0),
                    inv_inertia: rotate_diagonal(rotation, d),
                });
            }
            let id = |i: usize| BodyId {
                index: i as u32,
                generation: 1,
            };
            let joints: Vec<JointData> = (0..W)
                .map(|i| {
                    let frame =
                        |rng: &mut Rng| Transform::new(rng.direction() * 0.5, rng.rotation());
                    let (fa, fb) = (frame(&mut rng), frame(&mut rng));
                    let def = JointDef::new(kinds(i)[kind], id(2 * i), fa, id(2 * i + 1), fb);
                    let mut j = JointData::new(def, 2 * i as u32, 2 * i as u32 + 1, 0, 3);
                    let small = |rng: &mut Rng| rng.range(-0.01, 0.01);
                    j.impulses = JointImpulses {
                        linear: rng.direction() * 0.01,
                        angular: rng.direction() * 0.01,
                        lower: small(&mut rng).abs(),
                        upper: small(&mut rng).abs(),
                        motor: small(&mut rng),
                        spring: small(&mut rng),
                        cone: small(&mut rng).abs(),
                    };
                    j
                })
                .collect();

            // Scalar reference, joint by joint (they share no body).
            let mut expect = sb.states.clone();
            let mut reference = Vec::new();
            for slot in 0..W as u32 {
                let mut c = JointConstraint::prepare(
                    slot,
                    &joints[slot as usize],
                    &sb,
                    &positions,
                    &rotations,
                );
                let get = |s: &[BodyState], k: u32| {
                    if k == NULL {
                        BodyState::IDENTITY
                    } else {
                        s[k as usize]
                    }
                };
                let (ka, kb, (write_a, write_b)) = (c.a, c.b, c.writes());
                let put = |s: &mut [BodyState], (va, wa, vb, wb): (Vec3, Vec3, Vec3, Vec3)| {
                    if write_a {
                        (s[ka as usize].v, s[ka as usize].w) = (va, wa);
                    }
                    if write_b {
                        (s[kb as usize].v, s[kb as usize].w) = (vb, wb);
                    }
                };
                let r = c.warm_start(&get(&expect, c.a), &get(&expect, c.b));
                put(&mut expect, r);
                for use_bias in [true, false] {
                    let r = c.solve(&get(&expect, c.a), &get(&expect, c.b), &ctx, use_bias);
                    put(&mut expect, r);
                }
                reference.push((c.impulses, c.reactions(&expect)));
            }

            let slots: Vec<u32> = (0..W as u32).collect();
            let mut lanes = JointW::prepare(&slots, &joints, &sb, &positions, &rotations, h);
            let mut got = sb.states.clone();
            let ptr = StatesPtr::new(&mut got);
            lanes.warm_start(ptr);
            lanes.solve(ptr, &ctx, true);
            lanes.solve(ptr, &ctx, false);
            let mut stored = joints.clone();
            lanes.store(ptr, DisjointPtr::new(&mut stored), 4.0, 1.0 / h);

            let close = |a: Vec3, b: Vec3| (a - b).length() <= 1.0e-4 * (1.0 + a.length());
            for (k, (e, g)) in expect.iter().zip(&got).enumerate() {
                assert!(
                    close(e.v, g.v) && close(e.w, g.w),
                    "kind {kind} body {k}: scalar {:?} {:?} vs lanes {:?} {:?}",
                    e.v,
                    e.w,
                    g.v,
                    g.w
                );
            }
            for (i, (imp, (lin, ang))) in reference.iter().enumerate() {
                let s = &stored[i];
                let a = [imp.lower, imp.upper, imp.motor, imp.spring, imp.cone];
                let b = [
                    s.impulses.lower,
                    s.impulses.upper,
                    s.impulses.motor,
                    s.impulses.spring,
                    s.impulses.cone,
                ];
                assert!(
                    close(imp.linear, s.impulses.linear)
                        && close(imp.angular, s.impulses.angular)
                        && a.iter()
                            .zip(b)
                            .all(|(x, y)| (x - y).abs() <= 1.0e-4 * (1.0 + x.abs())),
                    "kind {kind} joint {i}: scalar {imp:?} vs lanes {:?}",
                    s.impulses
                );
                assert!(
                    close(*lin / h, s.reaction) && close(*ang / h, s.angular_reaction),
                    "kind {kind} joint {i}: reaction"
                );
            }
        }
    }
}
