//! Bodies: the body definition, creation, removal, poses, velocities, forces, mass, sleep.

use crate::world::with_world;
use crate::{
    check_enum, guard, need, Def, Fail, ImpBodyId, ImpQuat, ImpShapeId, ImpStatus, ImpTransform,
    ImpVec3, ImpWorldId,
};
use engine::{BodyDef, BodyType, MassProperties};

/// How a body moves: one of the `IMP_BODY_*` values.
pub type ImpBodyType = u32;
/// Never moves; infinite mass (ground, walls).
pub const IMP_BODY_STATIC: ImpBodyType = 0;
/// Moved by its velocity only; infinite mass; pushes dynamic bodies.
pub const IMP_BODY_KINEMATIC: ImpBodyType = 1;
/// Moved by forces, gravity and contacts.
pub const IMP_BODY_DYNAMIC: ImpBodyType = 2;

/// Everything needed to create a body. Get one from `imp_default_body_def()`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpBodyDef {
    /// `IMP_BODY_STATIC`, `IMP_BODY_KINEMATIC` or `IMP_BODY_DYNAMIC`. Default: dynamic.
    pub body_type: ImpBodyType,
    /// World position of the body origin, m. Default: origin.
    pub position: ImpVec3,
    /// World orientation (normalised on creation). Default: identity.
    pub rotation: ImpQuat,
    /// Initial linear velocity, m/s. Default: zero.
    pub linear_velocity: ImpVec3,
    /// Initial angular velocity, rad/s. Default: zero.
    pub angular_velocity: ImpVec3,
    /// Linear damping, 1/s. Default: 0.
    pub linear_damping: f32,
    /// Angular damping, 1/s. Default: 0.
    pub angular_damping: f32,
    /// Multiplier on the world's gravity. Default: 1.
    pub gravity_scale: f32,
    /// Lets the body spin faster than a quarter turn per step. Default: false.
    pub allow_fast_rotation: bool,
    /// Whether the body may fall asleep. Default: true.
    pub can_sleep: bool,
    /// Speed under which the body counts as resting, m/s; negative uses the world's
    /// `sleep_threshold`. Default: -1.
    pub sleep_threshold: f32,
    /// Quadratic drag coefficient (dimensionless); 0 is off. Default: 0.
    pub drag_coefficient: f32,
    /// Sweep the body every step against everything (projectiles). Default: false.
    pub bullet: bool,
    /// Opaque value for the host. Default: 0.
    pub user_data: u64,
    /// Set by `imp_default_body_def()`; checked by `imp_body_create`. Do not touch.
    pub internal_value: u32,
}

// SAFETY: a repr(C) struct of numbers, bools and ids: all-zero bytes are valid.
unsafe impl Def for ImpBodyDef {
    const COOKIE: u32 = 0x1e70_0002;
    const NAME: &'static str = "ImpBodyDef";
    fn cookie(p: *const Self) -> *const u32 {
        // SAFETY: only the field's address is computed (no read) from a non-null pointer.
        unsafe { std::ptr::addr_of!((*p).internal_value) }
    }
}

/// A body definition with every default filled in.
#[no_mangle]
pub extern "C" fn imp_default_body_def() -> ImpBodyDef {
    crate::or_refused(default_body_def)
}

fn default_body_def() -> ImpBodyDef {
    let d = BodyDef::default();
    ImpBodyDef {
        body_type: IMP_BODY_DYNAMIC,
        position: d.position.into(),
        rotation: d.rotation.into(),
        linear_velocity: d.linear_velocity.into(),
        angular_velocity: d.angular_velocity.into(),
        linear_damping: d.linear_damping,
        angular_damping: d.angular_damping,
        gravity_scale: d.gravity_scale,
        allow_fast_rotation: d.allow_fast_rotation,
        can_sleep: d.can_sleep,
        sleep_threshold: -1.0,
        drag_coefficient: d.drag_coefficient,
        bullet: d.bullet,
        user_data: d.user_data,
        internal_value: ImpBodyDef::COOKIE,
    }
}

pub(crate) fn body_type(field: &str, t: ImpBodyType) -> Result<BodyType, Fail> {
    Ok(match check_enum(field, t, 3)? {
        IMP_BODY_STATIC => BodyType::Static,
        IMP_BODY_KINEMATIC => BodyType::Kinematic,
        _ => BodyType::Dynamic,
    })
}

fn body_type_value(t: BodyType) -> ImpBodyType {
    match t {
        BodyType::Static => IMP_BODY_STATIC,
        BodyType::Kinematic => IMP_BODY_KINEMATIC,
        BodyType::Dynamic => IMP_BODY_DYNAMIC,
    }
}

/// Creates a body from `def` and writes its id to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_body_create(
    world: ImpWorldId,
    def: *const ImpBodyDef,
    out: Option<&mut ImpBodyId>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        // SAFETY: the caller's contract: a non-null `def` points to an ImpBodyDef.
        let d = unsafe { crate::def(def, "def") }?;
        let body = BodyDef {
            body_type: body_type("ImpBodyDef::body_type", d.body_type)?,
            position: d.position.into(),
            rotation: d.rotation.into(),
            linear_velocity: d.linear_velocity.into(),
            angular_velocity: d.angular_velocity.into(),
            linear_damping: d.linear_damping,
            angular_damping: d.angular_damping,
            gravity_scale: d.gravity_scale,
            allow_fast_rotation: d.allow_fast_rotation,
            can_sleep: d.can_sleep,
            sleep_threshold: if d.sleep_threshold < 0.0 {
                None
            } else {
                Some(d.sleep_threshold)
            },
            drag_coefficient: d.drag_coefficient,
            bullet: d.bullet,
            user_data: d.user_data,
        };
        with_world(world, |w| {
            *out = w.create_body(&body)?.into();
            Ok(())
        })
    })
}

/// Removes a body with its shapes and joints; their ids go stale.
#[no_mangle]
pub extern "C" fn imp_body_destroy(world: ImpWorldId, body: ImpBodyId) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.remove_body(body.into())?)))
}

/// Whether `body` is a live body of `world` (false for a stale or null id, or a world that
/// is stale, busy or poisoned). Leaves `imp_last_error()` as it was.
#[no_mangle]
pub extern "C" fn imp_body_is_valid(world: ImpWorldId, body: ImpBodyId) -> bool {
    std::panic::catch_unwind(|| {
        with_world(world, |w| Ok(w.contains_body(body.into()))).unwrap_or(false)
    })
    .unwrap_or(false)
}

/// Writes the body's type (`IMP_BODY_*`).
#[no_mangle]
pub extern "C" fn imp_body_get_type(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpBodyType>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = body_type_value(w.body_type(body.into())?);
            Ok(())
        })
    })
}
/// Writes the body origin's world position, m.
#[no_mangle]
pub extern "C" fn imp_body_get_position(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_position(body.into())?.into();
            Ok(())
        })
    })
}
/// Writes the body's world orientation.
#[no_mangle]
pub extern "C" fn imp_body_get_rotation(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpQuat>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_rotation(body.into())?.into();
            Ok(())
        })
    })
}
/// Writes the body's world transform.
#[no_mangle]
pub extern "C" fn imp_body_get_transform(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpTransform>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_transform(body.into())?.into();
            Ok(())
        })
    })
}
/// Writes the world position of the body's centre of mass, m.
#[no_mangle]
pub extern "C" fn imp_body_get_center_of_mass(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_center_of_mass(body.into())?.into();
            Ok(())
        })
    })
}
/// Writes the body's linear velocity, m/s.
#[no_mangle]
pub extern "C" fn imp_body_get_linear_velocity(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_linear_velocity(body.into())?.into();
            Ok(())
        })
    })
}
/// Writes the body's angular velocity, rad/s.
#[no_mangle]
pub extern "C" fn imp_body_get_angular_velocity(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_angular_velocity(body.into())?.into();
            Ok(())
        })
    })
}
/// Writes the body's mass, kg (0 for static and kinematic bodies).
#[no_mangle]
pub extern "C" fn imp_body_get_mass(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut f32>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_mass_properties(body.into())?.mass;
            Ok(())
        })
    })
}
/// Writes the body's principal moments of inertia, kg·m².
#[no_mangle]
pub extern "C" fn imp_body_get_inertia(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut ImpVec3>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_mass_properties(body.into())?.inertia.into();
            Ok(())
        })
    })
}
/// Writes whether the body is awake.
#[no_mangle]
pub extern "C" fn imp_body_is_awake(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut bool>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_is_awake(body.into())?;
            Ok(())
        })
    })
}
/// Writes whether the body is a bullet.
#[no_mangle]
pub extern "C" fn imp_body_is_bullet(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut bool>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.is_bullet(body.into())?;
            Ok(())
        })
    })
}
/// Writes the body's user data.
#[no_mangle]
pub extern "C" fn imp_body_get_user_data(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut u64>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_user_data(body.into())?;
            Ok(())
        })
    })
}
/// Writes the body's drag coefficient.
#[no_mangle]
pub extern "C" fn imp_body_get_drag_coefficient(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut f32>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_drag_coefficient(body.into())?;
            Ok(())
        })
    })
}
/// Writes the number of shapes attached to the body.
#[no_mangle]
pub extern "C" fn imp_body_get_shape_count(
    world: ImpWorldId,
    body: ImpBodyId,
    out: Option<&mut u32>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.body_shapes(body.into())?.len() as u32;
            Ok(())
        })
    })
}

/// Sets the body's linear velocity, m/s (wakes it).
#[no_mangle]
pub extern "C" fn imp_body_set_linear_velocity(
    world: ImpWorldId,
    body: ImpBodyId,
    v: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.set_body_linear_velocity(body.into(), v.into())?)
        })
    })
}
/// Sets the body's angular velocity, rad/s (wakes it).
#[no_mangle]
pub extern "C" fn imp_body_set_angular_velocity(
    world: ImpWorldId,
    body: ImpBodyId,
    v: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.set_body_angular_velocity(body.into(), v.into())?)
        })
    })
}
/// Adds a force through the centre of mass, N, for the next step.
#[no_mangle]
pub extern "C" fn imp_body_apply_force_to_center(
    world: ImpWorldId,
    body: ImpBodyId,
    force: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.apply_force_to_center(body.into(), force.into())?)
        })
    })
}
/// Adds a torque, N·m, for the next step.
#[no_mangle]
pub extern "C" fn imp_body_apply_torque(
    world: ImpWorldId,
    body: ImpBodyId,
    torque: ImpVec3,
) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.apply_torque(body.into(), torque.into())?)))
}
/// Applies an angular impulse, N·m·s.
#[no_mangle]
pub extern "C" fn imp_body_apply_angular_impulse(
    world: ImpWorldId,
    body: ImpBodyId,
    impulse: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.apply_angular_impulse(body.into(), impulse.into())?)
        })
    })
}
/// Sets the multiplier on the world's gravity.
#[no_mangle]
pub extern "C" fn imp_body_set_gravity_scale(
    world: ImpWorldId,
    body: ImpBodyId,
    scale: f32,
) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.set_body_gravity_scale(body.into(), scale)?)))
}
/// Wakes the body (true) or puts its island to sleep (false).
#[no_mangle]
pub extern "C" fn imp_body_set_awake(world: ImpWorldId, body: ImpBodyId, awake: bool) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.set_body_awake(body.into(), awake)?)))
}
/// Makes the body a bullet (swept against everything every step) or not.
#[no_mangle]
pub extern "C" fn imp_body_set_bullet(
    world: ImpWorldId,
    body: ImpBodyId,
    bullet: bool,
) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.set_bullet(body.into(), bullet)?)))
}
/// Sets the body's drag coefficient.
#[no_mangle]
pub extern "C" fn imp_body_set_drag_coefficient(
    world: ImpWorldId,
    body: ImpBodyId,
    cd: f32,
) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.set_body_drag_coefficient(body.into(), cd)?)))
}
/// Sets the pose a kinematic body reaches at the end of the next step.
#[no_mangle]
pub extern "C" fn imp_body_set_target_transform(
    world: ImpWorldId,
    body: ImpBodyId,
    t: ImpTransform,
) -> ImpStatus {
    guard(|| {
        with_world(
            world,
            |w| Ok(w.set_body_target_pose(body.into(), t.into())?),
        )
    })
}

/// Teleports the body to `position` with `rotation` (wakes it).
#[no_mangle]
pub extern "C" fn imp_body_set_transform(
    world: ImpWorldId,
    body: ImpBodyId,
    position: ImpVec3,
    rotation: ImpQuat,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.set_body_transform(body.into(), position.into(), rotation.into())?)
        })
    })
}

/// Adds a force, N, at a world point, m, for the next step.
#[no_mangle]
pub extern "C" fn imp_body_apply_force(
    world: ImpWorldId,
    body: ImpBodyId,
    force: ImpVec3,
    point: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.apply_force(body.into(), force.into(), point.into())?)
        })
    })
}

/// Applies a linear impulse, N·s, at a world point, m.
#[no_mangle]
pub extern "C" fn imp_body_apply_linear_impulse(
    world: ImpWorldId,
    body: ImpBodyId,
    impulse: ImpVec3,
    point: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.apply_linear_impulse(body.into(), impulse.into(), point.into())?)
        })
    })
}

/// Sets the body's linear and angular damping, 1/s.
#[no_mangle]
pub extern "C" fn imp_body_set_damping(
    world: ImpWorldId,
    body: ImpBodyId,
    linear: f32,
    angular: f32,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.set_body_damping(body.into(), linear, angular)?)
        })
    })
}

/// Overrides the mass (kg) and principal inertia (kg·m²) the shapes gave the body.
#[no_mangle]
pub extern "C" fn imp_body_set_mass(
    world: ImpWorldId,
    body: ImpBodyId,
    mass: f32,
    inertia: ImpVec3,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.set_body_mass_properties(
                body.into(),
                MassProperties {
                    mass,
                    inertia: inertia.into(),
                },
            )?)
        })
    })
}

/// Copies the ids of the body's shapes into `shapes` (room for `capacity`) and writes
/// their number to `count`. With a null `shapes` only the count is written; with too small
/// a `capacity` the call returns `IMP_ERR_BUFFER_TOO_SMALL`.
#[no_mangle]
pub unsafe extern "C" fn imp_body_get_shapes(
    world: ImpWorldId,
    body: ImpBodyId,
    shapes: *mut ImpShapeId,
    capacity: u32,
    count: Option<&mut u32>,
) -> ImpStatus {
    guard(|| {
        let count = need(count, "count")?;
        with_world(world, |w| {
            let ids = w.body_shapes(body.into())?;
            *count = ids.len() as u32;
            if shapes.is_null() {
                return Ok(());
            }
            if (capacity as usize) < ids.len() {
                return Err(Fail::new(
                    ImpStatus::IMP_ERR_BUFFER_TOO_SMALL,
                    format!("capacity: {capacity}, the body has {} shapes", ids.len()),
                ));
            }
            for (i, id) in ids.iter().enumerate() {
                // SAFETY: the caller's contract: `shapes` has `capacity` writable
                // elements, and i < ids.len() <= capacity.
                unsafe { shapes.add(i).write((*id).into()) };
            }
            Ok(())
        })
    })
}
