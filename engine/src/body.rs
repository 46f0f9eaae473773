//! Rigid bodies: their definition and the structure-of-arrays store that holds them.
//!
//! Columns are indexed by the body's slot index (stable for the body's life; a removed
//! body leaves a hole that the next created body reuses). The solver does not stream
//! these columns: each step it gathers the movable bodies into its own dense state
//! array (`solver::BodyState`), so holes never reach the hot loops.

use crate::error::Error;
use crate::id::ShapeId;
use crate::math::{is_finite3, Transform};
use glam::{Mat3, Quat, Vec3};

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum BodyType {
    /// Never moves; infinite mass. Ground, walls, level geometry.
    Static,
    /// Moves by its velocity only (set by the user); infinite mass, pushes dynamic bodies.
    Kinematic,
    /// Moved by forces, gravity and contacts.
    #[default]
    Dynamic,
}

impl crate::codec::Field for BodyType {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&(*self as u8));
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        match r.get::<u8>()? {
            0 => Ok(BodyType::Static),
            1 => Ok(BodyType::Kinematic),
            2 => Ok(BodyType::Dynamic),
            _ => Err(r.error("holds an unknown body type")),
        }
    }
}

/// Everything needed to create a body. All fields have SI defaults (see each field).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyDef {
    /// Static, kinematic or dynamic. Default: dynamic.
    pub body_type: BodyType,
    /// World position of the body origin, in m. It is the centre of mass while every shape
    /// sits at the body origin (see [`ShapeDef::local_pose`](crate::ShapeDef)). Default:
    /// origin.
    pub position: Vec3,
    /// World orientation; normalised on creation, must not be zero. Default: identity.
    pub rotation: Quat,
    /// Initial linear velocity, in m/s. Default: zero.
    pub linear_velocity: Vec3,
    /// Initial angular velocity, in rad/s. Default: zero.
    pub angular_velocity: Vec3,
    /// Linear damping coefficient `c` in `v' = v / (1 + h c)`, in 1/s. Default: 0.
    pub linear_damping: f32,
    /// Angular damping coefficient, in 1/s. Default: 0.
    pub angular_damping: f32,
    /// Multiplier on the world's gravity. Default: 1.
    pub gravity_scale: f32,
    /// Lets the body rotate more than a quarter turn per step (wheels, rotors).
    /// Default: false, which caps the angular speed at `π/4 / dt` for stability.
    pub allow_fast_rotation: bool,
    /// Whether the body may fall asleep (with its island) when it comes to rest. Default:
    /// true. A body that must never sleep (a player, a sensor carrier) sets false, which
    /// keeps every body touching it awake too.
    pub can_sleep: bool,
    /// Speed below which the body counts as resting, in m/s (angular speed times the body's
    /// extent counts too); `None` uses [`WorldDef::sleep_threshold`](crate::WorldDef).
    /// Default: `None`.
    pub sleep_threshold: Option<f32>,
    /// Drag coefficient `Cd` (dimensionless) of quadratic drag `½ ρ |v|² Cd A` in the air
    /// and in fluids (see [`forces`](crate::forces)); 0 turns it off. Typical: 0.47 for a
    /// sphere, 1.05 for a cube face-on. Default: 0.
    pub drag_coefficient: f32,
    /// Sweeps the body every step for a time of impact against static geometry and other
    /// (non-bullet) dynamic bodies, so it cannot pass through them however fast it moves
    /// (projectiles). Costs a sweep per step. Default: false (the body is still swept
    /// against static geometry in steps where it moves more than half its smallest extent,
    /// unless `WorldDef::sweep_fast_bodies` is off).
    pub bullet: bool,
    /// Opaque value for the host (an entity id, an index). Default: 0.
    pub user_data: u64,
}

impl Default for BodyDef {
    fn default() -> Self {
        Self {
            body_type: BodyType::Dynamic,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            allow_fast_rotation: false,
            can_sleep: true,
            sleep_threshold: None,
            drag_coefficient: 0.0,
            bullet: false,
            user_data: 0,
        }
    }
}

/// The largest velocity component a host may set (m/s or rad/s): far above any physical
/// speed, low enough that a kinematic body (whose speed the solver does not clamp) keeps
/// finite swept bounds and contacts. At `f32::MAX` they overflowed to NaN.
pub(crate) const MAX_SPEED: f32 = 1.0e9;

/// Checks a velocity a host sets: finite, each component at most [`MAX_SPEED`].
pub(crate) fn check_speed(field: &'static str, v: Vec3) -> Result<(), Error> {
    if !is_finite3(v) || v.abs().max_element() > MAX_SPEED {
        return Err(Error::invalid(
            field,
            "must be finite, each component within ±1e9",
        ));
    }
    Ok(())
}

impl BodyDef {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        if !is_finite3(self.position) {
            return Err(Error::invalid("BodyDef::position", "must be finite"));
        }
        let q = self.rotation;
        // A finite quaternion can still have a squared length that overflows (1e30, 0, 0, 1).
        if !q.is_finite() || !(1.0e-12..=f32::MAX).contains(&q.length_squared()) {
            return Err(Error::invalid(
                "BodyDef::rotation",
                "must be a finite, non-zero quaternion",
            ));
        }
        check_speed("BodyDef::linear_velocity", self.linear_velocity)?;
        check_speed("BodyDef::angular_velocity", self.angular_velocity)?;
        check_damping("BodyDef::linear_damping", self.linear_damping)?;
        check_damping("BodyDef::angular_damping", self.angular_damping)?;
        if !self.gravity_scale.is_finite() {
            return Err(Error::invalid("BodyDef::gravity_scale", "must be finite"));
        }
        if let Some(t) = self.sleep_threshold {
            check_damping("BodyDef::sleep_threshold", t)?;
        }
        check_drag("BodyDef::drag_coefficient", self.drag_coefficient)?;
        Ok(())
    }
}

pub(crate) fn check_damping(field: &'static str, c: f32) -> Result<(), Error> {
    if !c.is_finite() || c < 0.0 {
        return Err(Error::invalid(field, "must be finite and non-negative"));
    }
    Ok(())
}

pub(crate) fn check_drag(field: &'static str, cd: f32) -> Result<(), Error> {
    if !cd.is_finite() || cd < 0.0 {
        return Err(Error::invalid(field, "must be finite and non-negative"));
    }
    Ok(())
}

/// Body columns (structure of arrays), indexed by body slot.
///
/// Split by who reads them: the pose and velocity columns are simulation state; mass
/// columns are read once per step by the solver's prepare; `shapes` and `user_data` are
/// bookkeeping that no hot loop touches.
#[derive(Default)]
pub(crate) struct BodyStore {
    pub body_type: Vec<BodyType>,
    pub position: Vec<Vec3>,
    pub rotation: Vec<Quat>,
    pub linear_velocity: Vec<Vec3>,
    pub angular_velocity: Vec<Vec3>,
    /// Accumulated force for the next step, in N (cleared after each step).
    pub force: Vec<Vec3>,
    /// Accumulated torque for the next step, in N·m (cleared after each step).
    pub torque: Vec<Vec3>,
    pub mass: Vec<f32>,
    pub inv_mass: Vec<f32>,
    /// Principal moments of inertia (body frame), in kg·m².
    pub inertia: Vec<Vec3>,
    /// Inverse principal moments (0 on locked / infinite axes).
    pub inv_inertia: Vec<Vec3>,
    pub linear_damping: Vec<f32>,
    pub angular_damping: Vec<f32>,
    pub gravity_scale: Vec<f32>,
    pub allow_fast_rotation: Vec<bool>,
    /// Quadratic drag coefficient (see `forces`).
    pub drag_coefficient: Vec<f32>,
    /// Swept for a time of impact every step (`BodyDef::bullet`).
    pub bullet: Vec<bool>,
    /// The least `Shape::min_extent` of the body's shapes, in m (infinite without shapes):
    /// moving more than half of it in a step gets the body swept.
    pub min_extent: Vec<f32>,
    /// True when the user set the mass explicitly (shapes then do not change it).
    pub mass_override: Vec<bool>,
    /// Sleep: dynamic bodies in an awake island, and every kinematic body (static: false).
    pub awake: Vec<bool>,
    pub can_sleep: Vec<bool>,
    /// The body's own sleep threshold, m/s; negative: the world's.
    pub sleep_threshold: Vec<f32>,
    /// How long the body has been resting, in s.
    pub sleep_time: Vec<f32>,
    /// The island of a dynamic body (`NULL` otherwise).
    pub island: Vec<u32>,
    /// Largest distance from the body origin to its shapes' surfaces, in m: turns angular
    /// speed into the speed of the body's farthest point for the sleep test.
    pub extent: Vec<f32>,
    pub user_data: Vec<u64>,
    pub shapes: Vec<Vec<ShapeId>>,
    /// The mass frame (centre of mass and principal axes) in the body's own frame: the
    /// identity unless a dynamic body has shapes off its origin. `position` and
    /// `rotation` are the mass frame's world pose (what the solver moves); the body's
    /// pose as the user sees it is `transform · frame⁻¹` (see [`BodyStore::origin`]).
    pub frame: Vec<Transform>,
    /// How far the body has moved since it was made, at most: the sums of its centre of
    /// mass's displacements (m) and of its turns (rad), each move's bounded from above with
    /// the rounding of the pose's write (see [`Self::move_to`] and [`travel_of`]). Never
    /// decreases. The narrow phase keeps, for a pair it found apart, how far the two may
    /// yet move before an update could find them near (`contact::Lead`), and skips the pair
    /// while their travels stay within it.
    pub travel: Vec<[f64; 2]>,
    /// Counts the writes of a body or of its mass ([`Self::put`], [`Self::set_mass`]): the
    /// solver keeps a contact batch's masses from the last step only while it is unchanged.
    pub mass_epoch: u64,
}

impl BodyStore {
    /// Writes a body into slot `i`, appending when `i` is past the end.
    pub fn put(&mut self, i: usize, def: &BodyDef) {
        self.mass_epoch += 1;
        macro_rules! set {
            ($col:ident, $v:expr) => {
                if i == self.$col.len() {
                    self.$col.push($v);
                } else {
                    self.$col[i] = $v;
                }
            };
        }
        let movable = def.body_type != BodyType::Static;
        set!(body_type, def.body_type);
        set!(position, def.position);
        set!(rotation, def.rotation.normalize());
        set!(
            linear_velocity,
            if movable {
                def.linear_velocity
            } else {
                Vec3::ZERO
            }
        );
        set!(
            angular_velocity,
            if movable {
                def.angular_velocity
            } else {
                Vec3::ZERO
            }
        );
        set!(force, Vec3::ZERO);
        set!(torque, Vec3::ZERO);
        // A dynamic body without shapes behaves as 1 kg with unit inertia (as Box2D does),
        // so it can be created first and given shapes after.
        let dynamic = def.body_type == BodyType::Dynamic;
        set!(mass, if dynamic { 1.0 } else { 0.0 });
        set!(inv_mass, if dynamic { 1.0 } else { 0.0 });
        set!(inertia, if dynamic { Vec3::ONE } else { Vec3::ZERO });
        set!(inv_inertia, if dynamic { Vec3::ONE } else { Vec3::ZERO });
        set!(linear_damping, def.linear_damping);
        set!(angular_damping, def.angular_damping);
        set!(gravity_scale, def.gravity_scale);
        set!(allow_fast_rotation, def.allow_fast_rotation);
        set!(drag_coefficient, def.drag_coefficient);
        set!(bullet, def.bullet);
        set!(min_extent, f32::INFINITY);
        set!(mass_override, false);
        set!(awake, movable);
        set!(can_sleep, def.can_sleep);
        set!(sleep_threshold, def.sleep_threshold.unwrap_or(-1.0));
        set!(sleep_time, 0.0);
        set!(island, crate::id::NULL);
        set!(extent, 0.0);
        set!(user_data, def.user_data);
        set!(shapes, Vec::new());
        set!(frame, Transform::IDENTITY);
        set!(travel, [0.0; 2]);
    }

    /// Moves body `i`'s mass frame to `(p, q)` (`q` a unit quaternion) outside the solver,
    /// its [`Self::travel`] advanced by the move.
    pub fn move_to(&mut self, i: usize, p: Vec3, q: Quat) {
        let (old_p, old_q) = (self.position[i], self.rotation[i]);
        let turn = q * old_q.conjugate();
        let t = &mut self.travel[i];
        t[0] += travel_of(p - old_p, p);
        t[1] += turn_of(turn);
        self.position[i] = p;
        self.rotation[i] = q;
    }

    #[inline]
    pub fn transform(&self, i: usize) -> Transform {
        Transform::new(self.position[i], self.rotation[i])
    }

    /// The body's pose as the user sees it (its origin; the mass frame's pose when the
    /// mass frame is the identity).
    #[inline]
    pub fn origin(&self, i: usize) -> Transform {
        origin_of(&self.frame[i], self.position[i], self.rotation[i])
    }

    /// A frame given in body `i`'s own frame, expressed in its mass frame.
    #[inline]
    pub fn in_mass_frame(&self, i: usize, xf: &Transform) -> Transform {
        let f = &self.frame[i];
        if *f == Transform::IDENTITY {
            *xf
        } else {
            f.inv_mul(xf)
        }
    }

    /// A frame given in body `i`'s mass frame, expressed in its own frame.
    #[inline]
    pub fn in_body_frame(&self, i: usize, xf: &Transform) -> Transform {
        let f = &self.frame[i];
        if *f == Transform::IDENTITY {
            *xf
        } else {
            f.mul(xf)
        }
    }

    /// Places the body's origin at `xf` (its mass frame follows).
    #[inline]
    pub fn set_origin(&mut self, i: usize, xf: &Transform) {
        let f = &self.frame[i];
        let sim = if *f == Transform::IDENTITY {
            *xf
        } else {
            xf.mul(f)
        };
        self.move_to(i, sim.p, sim.q);
    }

    /// World inverse inertia `R I⁻¹ Rᵀ` of body `i`.
    #[inline]
    pub fn world_inv_inertia(&self, i: usize) -> Mat3 {
        crate::math::rotate_diagonal(self.rotation[i], self.inv_inertia[i])
    }

    /// Sets mass and principal inertia of a dynamic body.
    pub fn set_mass(&mut self, i: usize, mass: f32, inertia: Vec3) {
        self.mass_epoch += 1;
        self.mass[i] = mass;
        self.inv_mass[i] = if mass > 0.0 { 1.0 / mass } else { 0.0 };
        self.inertia[i] = inertia;
        self.inv_inertia[i] = Vec3::new(
            inv_or_zero(inertia.x),
            inv_or_zero(inertia.y),
            inv_or_zero(inertia.z),
        );
    }
}

#[inline]
fn inv_or_zero(x: f32) -> f32 {
    if x > 0.0 {
        1.0 / x
    } else {
        0.0
    }
}

/// The pose of a body's origin, from its mass frame `frame` (the origin's frame in it is
/// its inverse) and the pose `position`, `rotation` of its centre of mass.
#[inline]
pub(crate) fn origin_of(frame: &Transform, position: Vec3, rotation: Quat) -> Transform {
    if *frame == Transform::IDENTITY {
        Transform::new(position, rotation)
    } else {
        let q = rotation * frame.q.conjugate();
        Transform::new(position - q * frame.p, q)
    }
}

/// An upper bound of how far a centre of mass moved (m) when `delta` was added to it,
/// giving `p`: `|delta|` with the rounding of its length and of the write of `p` (half a
/// unit in the last place of each coordinate, `2⁻²⁴ |x|` at most).
#[inline]
pub(crate) fn travel_of(delta: Vec3, p: Vec3) -> f64 {
    if delta == Vec3::ZERO {
        return 0.0; // `p + 0` is `p`, to the bit
    }
    let rounding = 1.2e-7 * (p.abs().element_sum() as f64);
    delta.length() as f64 * (1.0 + 1.0e-6) + rounding + 1.0e-30
}

/// An upper bound of the angle (rad) of the rotation `turn` (near a unit quaternion):
/// `2 atan(|v| / |w|) ≤ 2 |v| / |w|` for turns under 90°, π otherwise, with room for the
/// rounding of the pose's write and normalisation.
#[inline]
pub(crate) fn turn_of(turn: Quat) -> f64 {
    let (v, w) = (
        Vec3::new(turn.x, turn.y, turn.z).length() as f64,
        turn.w.abs() as f64,
    );
    let angle = if w >= v && w > 0.0 {
        2.0 * v / w
    } else {
        std::f64::consts::PI
    };
    angle * (1.0 + 1.0e-5) + 3.0e-7
}
