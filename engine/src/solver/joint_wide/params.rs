//! The lanes' parameters of a joint batch, gathered once a step: each kind's limits,
//! motor and springs as lane values and masks.

use super::{lanes, mask, splat, JointW, ScalesW};
use crate::joint::{JointKind, Limits, Motor, Spring, SpringStiffness};
use crate::solver::joint::{spring_softness, SpringStep};
use crate::solver::wide::{FloatW, QuatW, Vec3W, W};
use crate::solver::SolverMass;
use glam::{Quat, Vec3};

/// A spring per lane (`on` masks the lanes that have one). The frequency form is
/// updated exactly ([`SpringStep`], computed per lane once a step, the same for every
/// lane width); the physical form is one soft row whose `a2 = h a k` depends on the
/// row, so those lanes (`physical`) finish it in the pass with the row's inverse mass.
#[derive(Clone, Copy, Debug)]
pub(super) struct SpringW {
    pub(super) on: FloatW,
    pub(super) target: FloatW,
    /// The frequency form's update: `x(h) = a x₀ + b v₀`, `v(h) = d x₀ + c v₀`.
    pub(super) step: [FloatW; 4],
    pub(super) physical: FloatW,
    /// `h (c + h k_s)` and `k_s / (c + h k_s)` of the physical form.
    pub(super) ha: FloatW,
    pub(super) phys_bias: FloatW,
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
    pub(super) fn physical_scales(&self, k: FloatW) -> ScalesW {
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
pub(super) struct AxisW {
    pub(super) lower: FloatW,
    pub(super) upper: FloatW,
    pub(super) lower_on: FloatW,
    pub(super) upper_on: FloatW,
    pub(super) speed: FloatW,
    pub(super) max_force: FloatW,
    pub(super) motor_on: FloatW,
    pub(super) spring: SpringW,
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
pub(super) struct WeldW {
    pub(super) linear_on: FloatW,
    pub(super) linear: ScalesW,
    pub(super) angular_on: FloatW,
    pub(super) angular: ScalesW,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct MotorW {
    pub(super) offset: Vec3W,
    pub(super) rotation: QuatW,
    pub(super) max_force: FloatW,
    pub(super) max_torque: FloatW,
    pub(super) correction: FloatW,
}

/// The kind of a batch and its lanes' parameters.
#[derive(Clone, Copy, Debug)]
pub(super) enum Params {
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

impl JointW {
    /// The batch's parameters from its lanes' kinds (`None`: empty lanes).
    pub(super) fn params(
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
}
