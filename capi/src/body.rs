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

impl Def for ImpBodyDef {
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

/// Whether `body` is a live body of `world` (false for a stale or null id, or a bad world).
#[no_mangle]
pub extern "C" fn imp_body_is_valid(world: ImpWorldId, body: ImpBodyId) -> bool {
    guard(|| {
        with_world(world, |w| {
            if w.contains_body(body.into()) {
                Ok(())
            } else {
                Err(Fail::new(ImpStatus::IMP_ERR_STALE_ID, "stale ImpBodyId"))
            }
        })
    }) == ImpStatus::IMP_OK
}

/// Defines a getter `imp_body_get_*` that writes one value.
macro_rules! getter {
    ($(#[$doc:meta])* $name:ident, $t:ty, |$w:ident, $b:ident| $e:expr) => {
        $(#[$doc])*
        #[no_mangle]
        pub extern "C" fn $name(world: ImpWorldId, body: ImpBodyId, out: Option<&mut $t>) -> ImpStatus {
            guard(|| {
                let out = need(out, "out")?;
                with_world(world, |$w| {
                    let $b: engine::BodyId = body.into();
                    *out = $e;
                    Ok(())
                })
            })
        }
    };
}

/// Defines a setter `imp_body_set_*`/`imp_body_apply_*` that takes one value.
macro_rules! setter {
    ($(#[$doc:meta])* $name:ident, $t:ty, |$w:ident, $b:ident, $v:ident| $e:expr) => {
        $(#[$doc])*
        #[no_mangle]
        pub extern "C" fn $name(world: ImpWorldId, body: ImpBodyId, $v: $t) -> ImpStatus {
            guard(|| {
                with_world(world, |$w| {
                    let $b: engine::BodyId = body.into();
                    $e?;
                    Ok(())
                })
            })
        }
    };
}

getter!(
    /// Writes the body's type (`IMP_BODY_*`).
    imp_body_get_type, ImpBodyType, |w, b| body_type_value(w.body_type(b)?)
);
getter!(
    /// Writes the body origin's world position, m.
    imp_body_get_position, ImpVec3, |w, b| w.body_position(b)?.into()
);
getter!(
    /// Writes the body's world orientation.
    imp_body_get_rotation, ImpQuat, |w, b| w.body_rotation(b)?.into()
);
getter!(
    /// Writes the body's world transform.
    imp_body_get_transform, ImpTransform, |w, b| w.body_transform(b)?.into()
);
getter!(
    /// Writes the world position of the body's centre of mass, m.
    imp_body_get_center_of_mass, ImpVec3, |w, b| w.body_center_of_mass(b)?.into()
);
getter!(
    /// Writes the body's linear velocity, m/s.
    imp_body_get_linear_velocity, ImpVec3, |w, b| w.body_linear_velocity(b)?.into()
);
getter!(
    /// Writes the body's angular velocity, rad/s.
    imp_body_get_angular_velocity, ImpVec3, |w, b| w.body_angular_velocity(b)?.into()
);
getter!(
    /// Writes the body's mass, kg (0 for static and kinematic bodies).
    imp_body_get_mass, f32, |w, b| w.body_mass_properties(b)?.mass
);
getter!(
    /// Writes the body's principal moments of inertia, kg·m².
    imp_body_get_inertia, ImpVec3, |w, b| w.body_mass_properties(b)?.inertia.into()
);
getter!(
    /// Writes whether the body is awake.
    imp_body_is_awake, bool, |w, b| w.body_is_awake(b)?
);
getter!(
    /// Writes whether the body is a bullet.
    imp_body_is_bullet, bool, |w, b| w.is_bullet(b)?
);
getter!(
    /// Writes the body's user data.
    imp_body_get_user_data, u64, |w, b| w.body_user_data(b)?
);
getter!(
    /// Writes the body's drag coefficient.
    imp_body_get_drag_coefficient, f32, |w, b| w.body_drag_coefficient(b)?
);
getter!(
    /// Writes the number of shapes attached to the body.
    imp_body_get_shape_count, u32, |w, b| w.body_shapes(b)?.len() as u32
);

setter!(
    /// Sets the body's linear velocity, m/s (wakes it).
    imp_body_set_linear_velocity, ImpVec3, |w, b, v| w.set_body_linear_velocity(b, v.into())
);
setter!(
    /// Sets the body's angular velocity, rad/s (wakes it).
    imp_body_set_angular_velocity, ImpVec3, |w, b, v| w.set_body_angular_velocity(b, v.into())
);
setter!(
    /// Adds a force through the centre of mass, N, for the next step.
    imp_body_apply_force_to_center, ImpVec3, |w, b, force| w.apply_force_to_center(b, force.into())
);
setter!(
    /// Adds a torque, N·m, for the next step.
    imp_body_apply_torque, ImpVec3, |w, b, torque| w.apply_torque(b, torque.into())
);
setter!(
    /// Applies an angular impulse, N·m·s.
    imp_body_apply_angular_impulse, ImpVec3, |w, b, impulse| w.apply_angular_impulse(b, impulse.into())
);
setter!(
    /// Sets the multiplier on the world's gravity.
    imp_body_set_gravity_scale, f32, |w, b, scale| w.set_body_gravity_scale(b, scale)
);
setter!(
    /// Wakes the body (true) or puts its island to sleep (false).
    imp_body_set_awake, bool, |w, b, awake| w.set_body_awake(b, awake)
);
setter!(
    /// Makes the body a bullet (swept against everything every step) or not.
    imp_body_set_bullet, bool, |w, b, bullet| w.set_bullet(b, bullet)
);
setter!(
    /// Sets the body's drag coefficient.
    imp_body_set_drag_coefficient, f32, |w, b, cd| w.set_body_drag_coefficient(b, cd)
);
setter!(
    /// Sets the pose a kinematic body reaches at the end of the next step.
    imp_body_set_target_transform, ImpTransform, |w, b, t| w.set_body_target_pose(b, t.into())
);

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
