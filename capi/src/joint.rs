//! Joints of every kind, with limits, motors and springs.

use crate::world::with_world;
use crate::{
    check_enum, guard, need, Def, Fail, ImpBodyId, ImpJointId, ImpQuat, ImpStatus, ImpTransform,
    ImpVec3, ImpWorldId, R,
};
use engine::{JointDef, JointKind, Limits, Motor, Quat, Spring, SpringStiffness, Transform, Vec3};

/// The kind of a joint: one of the `IMP_JOINT_*` values.
pub type ImpJointType = u32;
/// The anchors coincide; rotation is free.
pub const IMP_JOINT_BALL: ImpJointType = 0;
/// Rotation about the joint frame's z axis only; limits, motor and spring on the angle.
pub const IMP_JOINT_HINGE: ImpJointType = 1;
/// Translation along the joint frame's z axis only; limits, motor and spring on it.
pub const IMP_JOINT_SLIDER: ImpJointType = 2;
/// The frames are welded; optionally soft (`linear_spring`, `angular_spring`).
pub const IMP_JOINT_FIXED: ImpJointType = 3;
/// The anchors stay between `min_length` and `max_length` apart; optional spring.
pub const IMP_JOINT_DISTANCE: ImpJointType = 4;
/// B's z axis stays within `cone_angle` of A's; twist about it within the limits.
pub const IMP_JOINT_CONE_TWIST: ImpJointType = 5;
/// Drives B towards an offset pose relative to A with bounded force and torque.
pub const IMP_JOINT_MOTOR: ImpJointType = 6;

/// How a spring's stiffness is given: one of the `IMP_SPRING_*` values.
pub type ImpSpringType = u32;
/// `hertz` and `damping_ratio`: the same response whatever the masses.
pub const IMP_SPRING_FREQUENCY: ImpSpringType = 0;
/// `stiffness` (N/m or N·m/rad) and `damping` (N·s/m or N·m·s/rad).
pub const IMP_SPRING_PHYSICAL: ImpSpringType = 1;

/// A spring towards `target` (m or rad along the joint's axis).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpSpring {
    /// `IMP_SPRING_FREQUENCY` or `IMP_SPRING_PHYSICAL`. Default: frequency.
    pub spring_type: ImpSpringType,
    /// Frequency springs: Hz (> 0). Default: 5.
    pub hertz: f32,
    /// Frequency springs: damping ratio (>= 0). Default: 1.
    pub damping_ratio: f32,
    /// Physical springs: stiffness (> 0). Default: 0.
    pub stiffness: f32,
    /// Physical springs: damping (>= 0). Default: 0.
    pub damping: f32,
    /// The rest position (distance joints: the rest length). Default: 0.
    pub target: f32,
}

/// Everything needed to create a joint. Get one from `imp_default_joint_def()`, set
/// `joint_type`, the bodies, the frames (or call `imp_joint_def_set_world_frame`) and the
/// fields of that type. `enable_*` flags turn the optional parts on.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpJointDef {
    /// One of the `IMP_JOINT_*` values. Default: ball.
    pub joint_type: ImpJointType,
    /// The first body.
    pub body_a: ImpBodyId,
    /// The second body.
    pub body_b: ImpBodyId,
    /// The joint frame in body A's frame (its z axis is the hinge, slider and cone axis).
    pub frame_a: ImpTransform,
    /// The joint frame in body B's frame.
    pub frame_b: ImpTransform,
    /// Let the two bodies collide. Default: false.
    pub collide_connected: bool,
    /// Linear impulse (N·s) in one step that breaks the joint. Default: infinity.
    pub break_impulse: f32,
    /// Angular impulse (N·m·s) in one step that breaks the joint. Default: infinity.
    pub break_angular_impulse: f32,
    /// Hinge, slider: limit the angle (rad) or position (m) to [`lower`, `upper`];
    /// cone-twist: limit the twist. Default: false.
    pub enable_limit: bool,
    /// Lower limit. Default: 0.
    pub lower: f32,
    /// Upper limit. Default: 0.
    pub upper: f32,
    /// Hinge, slider: a velocity motor. Default: false.
    pub enable_motor: bool,
    /// Motor target speed, rad/s or m/s. Default: 0.
    pub motor_speed: f32,
    /// Largest motor torque (N·m) or force (N). Default: 0.
    pub max_motor_force: f32,
    /// Hinge, slider, distance: a spring. Default: false.
    pub enable_spring: bool,
    /// The hinge, slider or distance spring.
    pub spring: ImpSpring,
    /// Fixed: a soft linear weld. Default: false.
    pub enable_linear_spring: bool,
    /// The fixed joint's linear spring.
    pub linear_spring: ImpSpring,
    /// Fixed: a soft angular weld. Default: false.
    pub enable_angular_spring: bool,
    /// The fixed joint's angular spring.
    pub angular_spring: ImpSpring,
    /// Distance: shortest length, m. Default: 1.
    pub min_length: f32,
    /// Distance: longest length, m (infinity allowed with a spring). Default: 1.
    pub max_length: f32,
    /// Cone-twist: the cone's half angle, rad, in [0, π]. Default: π/4.
    pub cone_angle: f32,
    /// Motor joint: B's target position relative to A, in A's joint frame, m.
    pub linear_offset: ImpVec3,
    /// Motor joint: B's target rotation relative to A. Default: identity.
    pub angular_offset: ImpQuat,
    /// Motor joint: largest force, N. Default: 1000.
    pub max_force: f32,
    /// Motor joint: largest torque, N·m. Default: 1000.
    pub max_torque: f32,
    /// Motor joint: fraction of the pose error corrected per step, [0, 1]. Default: 0.3.
    pub correction: f32,
    /// Set by `imp_default_joint_def()`; checked by `imp_joint_create`. Do not touch.
    pub internal_value: u32,
}

// SAFETY: a repr(C) struct of numbers, bools and ids: all-zero bytes are valid.
unsafe impl Def for ImpJointDef {
    const COOKIE: u32 = 0x1e70_0004;
    const NAME: &'static str = "ImpJointDef";
    fn cookie(p: *const Self) -> *const u32 {
        // SAFETY: only the field's address is computed (no read) from a non-null pointer.
        unsafe { std::ptr::addr_of!((*p).internal_value) }
    }
}

fn default_spring() -> ImpSpring {
    ImpSpring {
        spring_type: IMP_SPRING_FREQUENCY,
        hertz: 5.0,
        damping_ratio: 1.0,
        stiffness: 0.0,
        damping: 0.0,
        target: 0.0,
    }
}

/// A joint definition with every default filled in (a ball joint, identity frames, null
/// bodies).
#[no_mangle]
pub extern "C" fn imp_default_joint_def() -> ImpJointDef {
    crate::or_refused(default_joint_def)
}

fn default_joint_def() -> ImpJointDef {
    ImpJointDef {
        joint_type: IMP_JOINT_BALL,
        body_a: ImpBodyId::default(),
        body_b: ImpBodyId::default(),
        frame_a: ImpTransform::IDENTITY,
        frame_b: ImpTransform::IDENTITY,
        collide_connected: false,
        break_impulse: f32::INFINITY,
        break_angular_impulse: f32::INFINITY,
        enable_limit: false,
        lower: 0.0,
        upper: 0.0,
        enable_motor: false,
        motor_speed: 0.0,
        max_motor_force: 0.0,
        enable_spring: false,
        spring: default_spring(),
        enable_linear_spring: false,
        linear_spring: default_spring(),
        enable_angular_spring: false,
        angular_spring: default_spring(),
        min_length: 1.0,
        max_length: 1.0,
        cone_angle: std::f32::consts::FRAC_PI_4,
        linear_offset: ImpVec3::default(),
        angular_offset: ImpTransform::IDENTITY.q,
        max_force: 1000.0,
        max_torque: 1000.0,
        correction: 0.3,
        internal_value: ImpJointDef::COOKIE,
    }
}

fn spring(field: &str, s: &ImpSpring) -> R<Spring> {
    let stiffness = match check_enum(field, s.spring_type, 2)? {
        IMP_SPRING_FREQUENCY => SpringStiffness::Frequency {
            hertz: s.hertz,
            damping_ratio: s.damping_ratio,
        },
        _ => SpringStiffness::Physical {
            stiffness: s.stiffness,
            damping: s.damping,
        },
    };
    Ok(Spring {
        stiffness,
        target: s.target,
    })
}

/// The engine's joint kind that `d` describes.
fn kind(d: &ImpJointDef) -> R<JointKind> {
    let limits = d.enable_limit.then_some(Limits {
        lower: d.lower,
        upper: d.upper,
    });
    let motor = d.enable_motor.then_some(Motor {
        speed: d.motor_speed,
        max_force: d.max_motor_force,
    });
    let opt_spring = |on: bool, field: &str, s: &ImpSpring| -> R<Option<Spring>> {
        if on {
            spring(field, s).map(Some)
        } else {
            Ok(None)
        }
    };
    let spring_ = opt_spring(
        d.enable_spring,
        "ImpJointDef::spring.spring_type",
        &d.spring,
    )?;
    Ok(
        match check_enum("ImpJointDef::joint_type", d.joint_type, 7)? {
            IMP_JOINT_BALL => JointKind::Ball,
            IMP_JOINT_HINGE => JointKind::Hinge {
                limits,
                motor,
                spring: spring_,
            },
            IMP_JOINT_SLIDER => JointKind::Slider {
                limits,
                motor,
                spring: spring_,
            },
            IMP_JOINT_FIXED => JointKind::Fixed {
                linear: opt_spring(
                    d.enable_linear_spring,
                    "ImpJointDef::linear_spring.spring_type",
                    &d.linear_spring,
                )?,
                angular: opt_spring(
                    d.enable_angular_spring,
                    "ImpJointDef::angular_spring.spring_type",
                    &d.angular_spring,
                )?,
            },
            IMP_JOINT_DISTANCE => JointKind::Distance {
                min_length: d.min_length,
                max_length: d.max_length,
                spring: spring_,
            },
            IMP_JOINT_CONE_TWIST => JointKind::ConeTwist {
                cone_angle: d.cone_angle,
                twist: limits,
            },
            _ => JointKind::Motor {
                linear_offset: d.linear_offset.into(),
                angular_offset: d.angular_offset.into(),
                max_force: d.max_force,
                max_torque: d.max_torque,
                correction: d.correction,
            },
        },
    )
}

/// Creates a joint from `def` and writes its id to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_joint_create(
    world: ImpWorldId,
    def: *const ImpJointDef,
    out: Option<&mut ImpJointId>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        // SAFETY: the caller's contract: a non-null `def` points to an ImpJointDef.
        let d = unsafe { crate::def(def, "def") }?;
        let mut jd = JointDef::new(
            kind(d)?,
            d.body_a.into(),
            d.frame_a.into(),
            d.body_b.into(),
            d.frame_b.into(),
        );
        jd.collide_connected = d.collide_connected;
        jd.break_impulse = d.break_impulse;
        jd.break_angular_impulse = d.break_angular_impulse;
        with_world(world, |w| {
            *out = w.create_joint(&jd)?.into();
            Ok(())
        })
    })
}

/// Sets `def`'s frames from a world anchor point (m) and axis at the bodies' current
/// poses: both frames sit at `anchor` with their z axis along `axis` (a zero axis means z).
/// `def`'s bodies must be set.
#[no_mangle]
pub unsafe extern "C" fn imp_joint_def_set_world_frame(
    world: ImpWorldId,
    def: *mut ImpJointDef,
    anchor: ImpVec3,
    axis: ImpVec3,
) -> ImpStatus {
    guard(|| {
        // SAFETY: the caller's contract: a non-null `def` points to an ImpJointDef.
        let d = unsafe { crate::def(def.cast_const(), "def") }?;
        let (a, b) = (d.body_a, d.body_b);
        let (fa, fb) = with_world(world, |w| {
            let xa = w.body_transform(a.into())?;
            let xb = w.body_transform(b.into())?;
            let axis: Vec3 = axis.into();
            let axis = axis.try_normalize().unwrap_or(Vec3::Z);
            let frame = Transform::new(anchor.into(), Quat::from_rotation_arc(Vec3::Z, axis));
            Ok((xa.inv_mul(&frame), xb.inv_mul(&frame)))
        })?;
        // SAFETY: `def` is non-null and valid (checked above) and writable (the caller's
        // contract for this out argument); no reference to it is alive any more.
        unsafe {
            (*def).frame_a = fa.into();
            (*def).frame_b = fb.into();
        }
        Ok(())
    })
}

/// Removes a joint; its id goes stale.
#[no_mangle]
pub extern "C" fn imp_joint_destroy(world: ImpWorldId, joint: ImpJointId) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.remove_joint(joint.into())?)))
}

/// Changes a joint's type and parameters (limits, motor, springs, ...) from `def`; its
/// bodies, frames and break impulses stay as they are.
#[no_mangle]
pub unsafe extern "C" fn imp_joint_update(
    world: ImpWorldId,
    joint: ImpJointId,
    def: *const ImpJointDef,
) -> ImpStatus {
    guard(|| {
        // SAFETY: the caller's contract: a non-null `def` points to an ImpJointDef.
        let d = unsafe { crate::def(def, "def") }?;
        let k = kind(d)?;
        with_world(world, |w| Ok(w.set_joint_kind(joint.into(), k)?))
    })
}

/// Sets a hinge's or slider's motor speed (rad/s or m/s), keeping its other parameters;
/// the motor must be enabled.
#[no_mangle]
pub extern "C" fn imp_joint_set_motor_speed(
    world: ImpWorldId,
    joint: ImpJointId,
    speed: f32,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            let mut k = w.joint_def(joint.into())?.kind;
            match &mut k {
                JointKind::Hinge { motor: Some(m), .. }
                | JointKind::Slider { motor: Some(m), .. } => m.speed = speed,
                _ => return Err(Fail::new(
                    ImpStatus::IMP_ERR_UNSUPPORTED,
                    "imp_joint_set_motor_speed: the joint is not a hinge or slider with a motor",
                )),
            }
            Ok(w.set_joint_kind(joint.into(), k)?)
        })
    })
}

/// Writes the joint's type (`IMP_JOINT_*`).
#[no_mangle]
pub extern "C" fn imp_joint_get_type(
    world: ImpWorldId,
    joint: ImpJointId,
    out: Option<&mut ImpJointType>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = match w.joint_def(joint.into())?.kind {
                JointKind::Ball => IMP_JOINT_BALL,
                JointKind::Hinge { .. } => IMP_JOINT_HINGE,
                JointKind::Slider { .. } => IMP_JOINT_SLIDER,
                JointKind::Fixed { .. } => IMP_JOINT_FIXED,
                JointKind::Distance { .. } => IMP_JOINT_DISTANCE,
                JointKind::ConeTwist { .. } => IMP_JOINT_CONE_TWIST,
                JointKind::Motor { .. } => IMP_JOINT_MOTOR,
            };
            Ok(())
        })
    })
}

/// Writes the joint's two bodies (either pointer may be null).
#[no_mangle]
pub extern "C" fn imp_joint_get_bodies(
    world: ImpWorldId,
    joint: ImpJointId,
    body_a: Option<&mut ImpBodyId>,
    body_b: Option<&mut ImpBodyId>,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            let d = w.joint_def(joint.into())?;
            if let Some(a) = body_a {
                *a = d.body_a.into();
            }
            if let Some(b) = body_b {
                *b = d.body_b.into();
            }
            Ok(())
        })
    })
}

/// Writes the force (N) the joint applied to body B in the last step.
#[no_mangle]
pub extern "C" fn imp_joint_get_reaction_force(
    world: ImpWorldId,
    joint: ImpJointId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.joint_reaction_force(joint.into())?.into();
            Ok(())
        })
    })
}

/// Writes the torque (N·m) the joint applied to body B in the last step.
#[no_mangle]
pub extern "C" fn imp_joint_get_reaction_torque(
    world: ImpWorldId,
    joint: ImpJointId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.joint_reaction_torque(joint.into())?.into();
            Ok(())
        })
    })
}
