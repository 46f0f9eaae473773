//! Joints: what a user asks for ([`JointDef`], [`JointKind`]) and what the world keeps
//! between steps (the warm-start impulses, the colour).
//!
//! Every joint connects body A and body B through a frame on each body ([`Transform`] in
//! the body's local space). A joint is satisfied when the two frames coincide in the
//! degrees of freedom the joint locks. The axis of a hinge, a slider and a cone-twist is
//! the frame's local **z** axis. The constraint functions, Jacobians and solve steps are in
//! `solver/joint.rs`.

use crate::error::Error;
use crate::id::{BodyId, JointId};
use crate::math::{is_finite3, Transform};
use glam::{Quat, Vec3};

/// A spring on one degree of freedom: how hard it pulls towards `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// How stiff the spring is.
    pub stiffness: SpringStiffness,
    /// The rest position: an angle (rad) for hinges, a translation (m) for sliders, a
    /// length (m) for distance joints.
    pub target: f32,
}

/// The stiffness of a [`Spring`], as a frequency or in physical units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpringStiffness {
    /// Frequency in Hz and damping ratio (1 = critical), relative to the bodies' effective
    /// mass along the spring: the same feel for light and heavy bodies.
    Frequency {
        /// Hz, > 0.
        hertz: f32,
        /// Dimensionless, >= 0.
        damping_ratio: f32,
    },
    /// Stiffness k (N/m or N·m/rad) and damping c (N·s/m or N·m·s/rad).
    Physical {
        /// k, > 0.
        stiffness: f32,
        /// c, >= 0.
        damping: f32,
    },
}

impl Spring {
    /// A spring of `hertz` and `damping_ratio` towards `target`.
    pub fn frequency(hertz: f32, damping_ratio: f32, target: f32) -> Self {
        Self {
            stiffness: SpringStiffness::Frequency {
                hertz,
                damping_ratio,
            },
            target,
        }
    }

    /// A spring of stiffness `k` and damping `c` towards `target`.
    pub fn physical(k: f32, c: f32, target: f32) -> Self {
        Self {
            stiffness: SpringStiffness::Physical {
                stiffness: k,
                damping: c,
            },
            target,
        }
    }

    fn validate(&self, field: &'static str) -> Result<(), Error> {
        let (k, c) = match self.stiffness {
            SpringStiffness::Frequency {
                hertz,
                damping_ratio,
            } => (hertz, damping_ratio),
            SpringStiffness::Physical { stiffness, damping } => (stiffness, damping),
        };
        if !k.is_finite() || k <= 0.0 || !c.is_finite() || c < 0.0 || !self.target.is_finite() {
            return Err(Error::invalid(
                field,
                "stiffness must be finite and positive, damping finite and non-negative, target finite",
            ));
        }
        Ok(())
    }
}

/// Lower and upper limits of one degree of freedom (rad or m), `lower <= upper`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Lowest allowed value.
    pub lower: f32,
    /// Highest allowed value.
    pub upper: f32,
}

impl Limits {
    fn validate(&self, field: &'static str) -> Result<(), Error> {
        if self.lower.is_nan() || self.upper.is_nan() || self.lower > self.upper {
            return Err(Error::invalid(field, "lower must be <= upper, neither NaN"));
        }
        Ok(())
    }
}

/// A velocity motor on one degree of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motor {
    /// Target speed (rad/s or m/s).
    pub speed: f32,
    /// Largest torque (N·m) or force (N) it may apply, >= 0.
    pub max_force: f32,
}

impl Motor {
    fn validate(&self, field: &'static str) -> Result<(), Error> {
        if !self.speed.is_finite() || !self.max_force.is_finite() || self.max_force < 0.0 {
            return Err(Error::invalid(
                field,
                "speed must be finite, max_force finite and non-negative",
            ));
        }
        Ok(())
    }
}

/// The kind of joint and its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// Ball (spherical): the frames' origins coincide; rotation is free.
    Ball,
    /// Hinge (revolute) about the frames' z axis: origins coincide, z axes aligned; the
    /// angle about z (B's frame relative to A's) may be limited, motored and sprung.
    Hinge {
        /// Angle limits, rad, within (-π, π).
        limits: Option<Limits>,
        /// Angular velocity motor.
        motor: Option<Motor>,
        /// Spring towards an angle.
        spring: Option<Spring>,
    },
    /// Slider (prismatic) along A's frame z axis: no relative rotation, B's origin on A's
    /// z axis; the translation along it may be limited, motored and sprung.
    Slider {
        /// Translation limits, m.
        limits: Option<Limits>,
        /// Linear velocity motor.
        motor: Option<Motor>,
        /// Spring towards a translation.
        spring: Option<Spring>,
    },
    /// Fixed (weld): the frames coincide. Springs make the weld soft (the target is
    /// ignored: the rest pose is the frames coinciding).
    Fixed {
        /// Softness of the position lock (rigid when `None`).
        linear: Option<Spring>,
        /// Softness of the rotation lock (rigid when `None`).
        angular: Option<Spring>,
    },
    /// Distance between the frames' origins, kept within `[min_length, max_length]`:
    /// a rigid rod when they are equal, a rope when `min_length` is 0; a spring pulls
    /// towards the spring's target length in between.
    Distance {
        /// Shortest allowed length, m, >= 0.
        min_length: f32,
        /// Longest allowed length, m, >= `min_length` (may be infinite with a spring).
        max_length: f32,
        /// Spring towards a length.
        spring: Option<Spring>,
    },
    /// Cone-twist (swing-twist, for ragdoll shoulders and hips): origins coincide; B's z
    /// axis stays within `cone_angle` of A's; the twist about it may be limited.
    ConeTwist {
        /// Half-angle of the cone, rad, in [0, π].
        cone_angle: f32,
        /// Twist limits, rad, within (-π, π).
        twist: Option<Limits>,
    },
    /// Drives B's frame towards a pose relative to A's frame, with bounded force and
    /// torque (a character mover, a manipulated object).
    Motor {
        /// B's frame origin in A's frame.
        linear_offset: Vec3,
        /// B's frame rotation relative to A's frame.
        angular_offset: Quat,
        /// Largest force, N, >= 0.
        max_force: f32,
        /// Largest torque, N·m, >= 0.
        max_torque: f32,
        /// Fraction of the pose error removed per second, per unit of step rate: in
        /// [0, 1], 0.3 is a good start.
        correction: f32,
    },
}

/// How to create a joint.
// `repr(C)` with the thresholds and frames first: the solver's per-step reads of a joint
// (frames when preparing, thresholds when storing) then share one cache line with the
// slot's header in `JointData`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct JointDef {
    /// The joint breaks (is removed, and a [`JointBreak`] record is published) when the
    /// linear impulse it applied in one step exceeds this, in N·s. Default: infinite.
    pub break_impulse: f32,
    /// As `break_impulse`, for the angular impulse, in N·m·s. Default: infinite.
    pub break_angular_impulse: f32,
    /// The joint frame in A's local space.
    pub frame_a: Transform,
    /// The joint frame in B's local space.
    pub frame_b: Transform,
    /// Body A (may be static).
    pub body_a: BodyId,
    /// Body B (may be static, but not both).
    pub body_b: BodyId,
    /// The kind and its parameters.
    pub kind: JointKind,
    /// Whether the two bodies still collide with each other. Default: false.
    pub collide_connected: bool,
}

impl JointDef {
    /// A joint of `kind` between `a` and `b` with both frames at the world point `anchor`
    /// and world axes (z along `axis` for hinges, sliders and cone-twists), given the
    /// bodies' current transforms `xf_a`, `xf_b`.
    pub fn at_world(
        kind: JointKind,
        a: BodyId,
        xf_a: &Transform,
        b: BodyId,
        xf_b: &Transform,
        anchor: Vec3,
        axis: Vec3,
    ) -> Self {
        let axis = axis.try_normalize().unwrap_or(Vec3::Z);
        let world = Transform::new(anchor, Quat::from_rotation_arc(Vec3::Z, axis));
        Self::new(kind, a, xf_a.inv_mul(&world), b, xf_b.inv_mul(&world))
    }

    /// A joint of `kind` with explicit local frames.
    pub fn new(
        kind: JointKind,
        a: BodyId,
        frame_a: Transform,
        b: BodyId,
        frame_b: Transform,
    ) -> Self {
        Self {
            body_a: a,
            body_b: b,
            frame_a,
            frame_b,
            kind,
            collide_connected: false,
            break_impulse: f32::INFINITY,
            break_angular_impulse: f32::INFINITY,
        }
    }

    /// Checks every field, naming the first bad one (body ids are checked by the world).
    pub fn validate(&self) -> Result<(), Error> {
        for (field, f) in [
            ("JointDef::frame_a", &self.frame_a),
            ("JointDef::frame_b", &self.frame_b),
        ] {
            let q = f.q;
            if !is_finite3(f.p) || !q.is_finite() || (q.length_squared() - 1.0).abs() > 1.0e-3 {
                return Err(Error::invalid(field, "must be finite with a unit rotation"));
            }
            if f.p.abs().max_element() > crate::math::MAX_LENGTH {
                return Err(Error::invalid(
                    field,
                    "must lie within 1e6 m of its body (farther, the joint's lever arms overflow)",
                ));
            }
        }
        if self.break_impulse.is_nan() || self.break_impulse <= 0.0 {
            return Err(Error::invalid(
                "JointDef::break_impulse",
                "must be positive",
            ));
        }
        if self.break_angular_impulse.is_nan() || self.break_angular_impulse <= 0.0 {
            return Err(Error::invalid(
                "JointDef::break_angular_impulse",
                "must be positive",
            ));
        }
        let angle = |l: &Limits, field| {
            l.validate(field)?;
            let pi = std::f32::consts::PI;
            if l.lower <= -pi || l.upper >= pi {
                return Err(Error::invalid(
                    field,
                    "angle limits must lie within (-π, π)",
                ));
            }
            Ok(())
        };
        match &self.kind {
            JointKind::Ball => {}
            JointKind::Hinge {
                limits,
                motor,
                spring,
            } => {
                if let Some(l) = limits {
                    angle(l, "JointKind::Hinge::limits")?;
                }
                validate_drive(
                    motor,
                    spring,
                    "JointKind::Hinge::motor",
                    "JointKind::Hinge::spring",
                )?;
            }
            JointKind::Slider {
                limits,
                motor,
                spring,
            } => {
                if let Some(l) = limits {
                    l.validate("JointKind::Slider::limits")?;
                }
                validate_drive(
                    motor,
                    spring,
                    "JointKind::Slider::motor",
                    "JointKind::Slider::spring",
                )?;
            }
            JointKind::Fixed { linear, angular } => {
                if let Some(s) = linear {
                    s.validate("JointKind::Fixed::linear")?;
                }
                if let Some(s) = angular {
                    s.validate("JointKind::Fixed::angular")?;
                }
            }
            JointKind::Distance {
                min_length,
                max_length,
                spring,
            } => {
                if !min_length.is_finite() || *min_length < 0.0 {
                    return Err(Error::invalid(
                        "JointKind::Distance::min_length",
                        "must be finite and non-negative",
                    ));
                }
                if max_length.is_nan() || max_length < min_length {
                    return Err(Error::invalid(
                        "JointKind::Distance::max_length",
                        "must be >= min_length",
                    ));
                }
                if spring.is_none() && !max_length.is_finite() {
                    return Err(Error::invalid(
                        "JointKind::Distance::max_length",
                        "must be finite without a spring",
                    ));
                }
                if let Some(s) = spring {
                    s.validate("JointKind::Distance::spring")?;
                }
            }
            JointKind::ConeTwist { cone_angle, twist } => {
                if !cone_angle.is_finite()
                    || *cone_angle < 0.0
                    || *cone_angle > std::f32::consts::PI
                {
                    return Err(Error::invalid(
                        "JointKind::ConeTwist::cone_angle",
                        "must be in [0, π]",
                    ));
                }
                if let Some(l) = twist {
                    angle(l, "JointKind::ConeTwist::twist")?;
                }
            }
            JointKind::Motor {
                linear_offset,
                angular_offset,
                max_force,
                max_torque,
                correction,
            } => {
                if !is_finite3(*linear_offset) {
                    return Err(Error::invalid(
                        "JointKind::Motor::linear_offset",
                        "must be finite",
                    ));
                }
                if !angular_offset.is_finite()
                    || (angular_offset.length_squared() - 1.0).abs() > 1.0e-3
                {
                    return Err(Error::invalid(
                        "JointKind::Motor::angular_offset",
                        "must be a unit quaternion",
                    ));
                }
                for (field, v) in [
                    ("JointKind::Motor::max_force", *max_force),
                    ("JointKind::Motor::max_torque", *max_torque),
                ] {
                    if !v.is_finite() || v < 0.0 {
                        return Err(Error::invalid(field, "must be finite and non-negative"));
                    }
                }
                if !(0.0..=1.0).contains(correction) {
                    return Err(Error::invalid(
                        "JointKind::Motor::correction",
                        "must be in [0, 1]",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Checks an axis's optional motor and spring, naming `motor_field` / `spring_field`.
fn validate_drive(
    motor: &Option<Motor>,
    spring: &Option<Spring>,
    motor_field: &'static str,
    spring_field: &'static str,
) -> Result<(), Error> {
    if let Some(m) = motor {
        m.validate(motor_field)?;
    }
    if let Some(s) = spring {
        s.validate(spring_field)?;
    }
    Ok(())
}

/// A joint that broke in the last step (its id is stale now).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointBreak {
    /// The joint, removed.
    pub joint: JointId,
    /// Its bodies.
    pub body_a: BodyId,
    /// Its bodies.
    pub body_b: BodyId,
    /// The linear impulse it applied in the step it broke, N·s.
    pub impulse: f32,
    /// The angular impulse it applied in the step it broke, N·m·s.
    pub angular_impulse: f32,
}

/// The accumulated impulses of a joint (per substep), carried across steps for warm
/// starting. Which fields a kind uses is documented in `solver/joint.rs`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct JointImpulses {
    /// Point lock (ball, hinge, fixed, cone-twist, motor), or slider's perpendicular rows
    /// in x, y (A's frame axes).
    pub linear: Vec3,
    /// Rotation lock (fixed, slider, motor) or hinge's swing rows in x, y.
    pub angular: Vec3,
    /// Axis rows: lower limit, upper limit, motor, spring / rigid length.
    pub lower: f32,
    pub upper: f32,
    pub motor: f32,
    pub spring: f32,
    /// Cone limit row.
    pub cone: f32,
}

/// What the world keeps per joint slot. `repr(C)`, hot fields first: the solver's scan
/// and the ball joints' prepare and store touch the first two cache lines only (header
/// and impulses, then the definition's thresholds and frames).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct JointData {
    /// Body slots.
    pub body_a: u32,
    pub body_b: u32,
    pub color: u8,
    pub color_sides: u8,
    /// `def.kind` is [`JointKind::Ball`]: solved in wide batches. Kept with the kind by
    /// [`JointData::set_def`].
    pub ball: bool,
    pub impulses: JointImpulses,
    pub def: JointDef,
    /// Linear and angular reaction impulses of the last step (on B, world frame).
    pub reaction: Vec3,
    pub angular_reaction: Vec3,
}

// The ball joints' prepare reads the header and impulses, the thresholds and both frame
// origins: the first 128 bytes.
const _: () = assert!(
    std::mem::offset_of!(JointData, def) + std::mem::offset_of!(JointDef, frame_b) + 12 <= 128
);

impl JointData {
    /// A joint slot for `def` between body slots `a` and `b`, in colour `color`.
    pub fn new(def: JointDef, a: u32, b: u32, color: u8, color_sides: u8) -> Self {
        Self {
            body_a: a,
            body_b: b,
            color,
            color_sides,
            ball: matches!(def.kind, JointKind::Ball),
            impulses: JointImpulses::default(),
            def,
            reaction: Vec3::ZERO,
            angular_reaction: Vec3::ZERO,
        }
    }

    /// Replaces the definition (and what is derived from it).
    pub fn set_def(&mut self, def: JointDef) {
        self.ball = matches!(def.kind, JointKind::Ball);
        self.def = def;
    }
}

crate::codec::fields!(JointImpulses {
    linear,
    angular,
    lower,
    upper,
    motor,
    spring,
    cone
});

crate::codec::fields!(Limits { lower, upper });
crate::codec::fields!(Motor { speed, max_force });
crate::codec::fields!(Spring { stiffness, target });

impl crate::codec::Field for SpringStiffness {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        match *self {
            SpringStiffness::Frequency {
                hertz,
                damping_ratio,
            } => w.put(&(0u8, hertz, damping_ratio)),
            SpringStiffness::Physical { stiffness, damping } => w.put(&(1u8, stiffness, damping)),
        }
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let (tag, k, c): (u8, f32, f32) = r.get()?;
        match tag {
            0 => Ok(SpringStiffness::Frequency {
                hertz: k,
                damping_ratio: c,
            }),
            1 => Ok(SpringStiffness::Physical {
                stiffness: k,
                damping: c,
            }),
            _ => Err(r.error("holds an unknown spring stiffness")),
        }
    }
}

impl crate::codec::Field for JointKind {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        match self {
            JointKind::Ball => w.put(&0u8),
            JointKind::Hinge {
                limits,
                motor,
                spring,
            } => w.put(&(1u8, (*limits, *motor, *spring))),
            JointKind::Slider {
                limits,
                motor,
                spring,
            } => w.put(&(2u8, (*limits, *motor, *spring))),
            JointKind::Fixed { linear, angular } => w.put(&(3u8, *linear, *angular)),
            JointKind::Distance {
                min_length,
                max_length,
                spring,
            } => w.put(&(4u8, (*min_length, *max_length, *spring))),
            JointKind::ConeTwist { cone_angle, twist } => w.put(&(5u8, *cone_angle, *twist)),
            JointKind::Motor {
                linear_offset,
                angular_offset,
                max_force,
                max_torque,
                correction,
            } => w.put(&(
                6u8,
                (*linear_offset, *angular_offset),
                (*max_force, *max_torque, *correction),
            )),
        }
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        Ok(match r.get::<u8>()? {
            0 => JointKind::Ball,
            1 => {
                let (limits, motor, spring) = r.get()?;
                JointKind::Hinge {
                    limits,
                    motor,
                    spring,
                }
            }
            2 => {
                let (limits, motor, spring) = r.get()?;
                JointKind::Slider {
                    limits,
                    motor,
                    spring,
                }
            }
            3 => {
                let (linear, angular) = r.get()?;
                JointKind::Fixed { linear, angular }
            }
            4 => {
                let (min_length, max_length, spring) = r.get()?;
                JointKind::Distance {
                    min_length,
                    max_length,
                    spring,
                }
            }
            5 => {
                let (cone_angle, twist) = r.get()?;
                JointKind::ConeTwist { cone_angle, twist }
            }
            6 => {
                let (linear_offset, angular_offset) = r.get()?;
                let (max_force, max_torque, correction) = r.get()?;
                JointKind::Motor {
                    linear_offset,
                    angular_offset,
                    max_force,
                    max_torque,
                    correction,
                }
            }
            _ => return Err(r.error("holds an unknown joint kind")),
        })
    }
}

crate::codec::fields!(JointDef {
    break_impulse,
    break_angular_impulse,
    frame_a,
    frame_b,
    body_a,
    body_b,
    kind,
    collide_connected
});

crate::codec::fields!(JointData {
    body_a,
    body_b,
    color,
    color_sides,
    ball,
    impulses,
    def,
    reaction,
    angular_reaction
});
