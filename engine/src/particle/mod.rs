//! Particles, springs, cloth and soft bodies, solved in the rigid bodies' substeps.
//!
//! A particle is a point mass with a radius. Springs join two particles, or a particle and
//! a point on a body (or a fixed point in the world); cloth is a grid of particles joined by
//! stretch, shear and bend springs; a soft body is a mesh of particles joined by edge
//! springs, with volume constraints on its tetrahedra and a gas pressure inside its
//! closed surface. Particles collide with every rigid shape (a sphere of their radius
//! against the shape, one-sided, with friction and restitution), and the impulse of each
//! contact and body spring acts on the body as well: the coupling is two-way.
//!
//! ```
//! use impetus::{ClothDef, ClothPin, SoftBodyDef, Vec3, World, WorldDef};
//!
//! let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
//! // A 32 x 32 flag, 4 cm between particles, pinned along its first column, in a breeze.
//! let flag = world.create_cloth(&ClothDef {
//!     origin: Vec3::new(0.0, 2.0, 0.0),
//!     axis_v: Vec3::NEG_Y,
//!     nx: 32,
//!     ny: 32,
//!     spacing: 0.04,
//!     linear_drag: 0.001,
//!     pins: (0..32).map(|j| ClothPin::Fixed { i: 0, j }).collect(),
//!     ..Default::default()
//! })?;
//! world.set_wind(Vec3::new(5.0, 0.0, 1.0))?;
//! // A ball of gas: 162 particles on a sphere of 0.3 m, nRT = 5 J inside.
//! let ball = world.create_soft_body(&SoftBodyDef::sphere(0.3, 2, 5.0))?;
//! let volume = world.soft_body_volume(ball.id)?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! // The wind holds the flag out; the ball, falling freely, keeps its volume.
//! let tip = world.particle_position(flag.particle(31, 0))?;
//! assert!(tip.x > 0.6, "the flag flies: tip at {tip}");
//! let now = world.soft_body_volume(ball.id)?;
//! assert!((now / volume - 1.0).abs() < 0.05, "{now} m³ vs {volume} m³");
//! # Ok::<(), impetus::Error>(())
//! ```
//!
//! # The solver
//!
//! Extended position-based dynamics (XPBD: Macklin, Müller and Chentanez, "XPBD:
//! position-based simulation of compliant constrained dynamics", 2016) in small steps
//! (Macklin et al., "Small steps in physics simulation", 2019): one constraint pass per
//! substep, run in each substep of the rigid solver after the rigid bodies have moved:
//!
//! 1. **predict**: `v += h (g + F/m)` (gravity, pressure, air drag against the wind),
//!    `x += h v`;
//! 2. **springs**: each spring `C = |x_b − x_a| − L` with compliance `α` (m/N):
//!    `Δλ = −C / (Σw + α/h²)`, `Δx = w ∇C Δλ`. With `α = 0` the spring is a rigid rod;
//!    the stretch under a load `F` is `α F` for any step and substep count (up to the
//!    order in which one pass visits the springs: `w h² / α` of it for a spring solved
//!    before its neighbours). Springs are graph-coloured (no two springs of a colour share
//!    a particle) and each colour is solved `W` springs at a time in SIMD lanes, its
//!    batches spread over the workers;
//! 3. **volumes**: each tetrahedron `C = V − V₀`, coloured the same way;
//! 4. **bodies**: per particle, its springs to bodies and its contacts, each with the
//!    body's inverse mass at the contact point in the denominator; the body receives the
//!    opposite impulse `−Δλ/h` (applied serially, in particle order, after the pass);
//!    friction limits the tangential motion relative to the body's surface by the
//!    Coulomb cone of the normal correction;
//! 5. **velocities**: `v = (x − x_prev)/h`, then restitution on the contacts that closed,
//!    then the springs' dampers `β` (N·s/m) on the velocities, implicit: each removes
//!    `βhΣw / (1 + βhΣw)` of its ends' relative speed along it. (XPBD's damping term in
//!    the position pass reacts to the motion of a spring's ends within the substep, which
//!    gravity and the neighbouring springs cause even at rest: it stretched a hanging
//!    strand's upper springs by a further `β h Σw`, 17 % at `β` = 2 N·s/m.)
//!
//! Every step finds each particle's contacts once (up to [`MAX_CONTACTS`] per particle,
//! the deepest), anchored in the body's frame so that they follow the body through the
//! substeps. Nothing depends on the thread count or the lane width: a colour's springs
//! never share a particle, every lane computes with the same IEEE operations, and the
//! body impulses are summed in one fixed order.

pub(crate) mod build;
pub(crate) mod collide;
pub(crate) mod couple;
pub(crate) mod solve;
pub(crate) mod springs;
pub(crate) mod store;

pub use build::{Cloth, ClothDef, ClothPin, SoftBody, SoftBodyDef};

use crate::error::Error;
use crate::id::{BodyId, ParticleId};
use crate::math::{is_finite3, MAX_LENGTH};
use crate::shape::Filter;
use glam::Vec3;

/// The most contacts a particle keeps in a step (the deepest ones).
pub const MAX_CONTACTS: usize = 4;

/// The largest drag coefficient, friction and restitution a particle takes: a bound that
/// keeps every product with a speed finite.
const MAX_COEFFICIENT: f32 = 1.0e6;

/// A particle: a point mass with a radius.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleDef {
    /// Position, in m.
    pub position: Vec3,
    /// Velocity, in m/s.
    pub velocity: Vec3,
    /// Mass, in kg. Must be positive. Default: 0.01.
    pub mass: f32,
    /// A pinned particle does not move on its own (infinite mass); a host may still set its
    /// position. Default: false.
    pub pinned: bool,
    /// Radius, in m: the particle collides with rigid shapes as a sphere of this radius.
    /// Must be positive. Default: 0.01.
    pub radius: f32,
    /// Which shapes it collides with (particles do not collide with each other).
    pub filter: Filter,
    /// Linear air drag, in N·s/m: the force `−c₁ (v − wind)`. Default: 0.
    pub linear_drag: f32,
    /// Quadratic air drag, in N·s²/m²: the force `−c₂ |v − wind| (v − wind)`. Default: 0.
    pub quadratic_drag: f32,
    /// Friction coefficient against shapes (combined with the shape's as the geometric
    /// mean). Default: 0.5.
    pub friction: f32,
    /// Restitution against shapes (combined with the shape's by the larger). Default: 0.
    pub restitution: f32,
    /// Multiplies the world's gravity for this particle. Default: 1.
    pub gravity_scale: f32,
}

impl Default for ParticleDef {
    fn default() -> Self {
        Self {
            position: Vec3::ZERO,
            velocity: Vec3::ZERO,
            mass: 0.01,
            pinned: false,
            radius: 0.01,
            filter: Filter::default(),
            linear_drag: 0.0,
            quadratic_drag: 0.0,
            friction: 0.5,
            restitution: 0.0,
            gravity_scale: 1.0,
        }
    }
}

/// `Ok` if `x` is finite and in `0..=max`, else an error naming `field`.
pub(crate) fn check_range(field: &'static str, x: f32, max: f32) -> Result<(), Error> {
    if x.is_finite() && (0.0..=max).contains(&x) {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            "must be finite, non-negative and at most 1e6",
        ))
    }
}

/// `Ok` if `v` is finite with each component within [`MAX_LENGTH`], else an error naming
/// `field`.
pub(crate) fn check_point(field: &'static str, v: Vec3) -> Result<(), Error> {
    if is_finite3(v) && v.abs().max_element() <= MAX_LENGTH {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            "must be finite, within 1e6 m on each axis",
        ))
    }
}

/// `Ok` if `x` is finite and positive (and at most `max`), else an error naming `field`.
pub(crate) fn check_positive(field: &'static str, x: f32, max: f32) -> Result<(), Error> {
    if x.is_finite() && x > 0.0 && x <= max {
        Ok(())
    } else {
        Err(Error::invalid(field, "must be finite and positive"))
    }
}

impl ParticleDef {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        check_point("ParticleDef::position", self.position)?;
        if !is_finite3(self.velocity) {
            return Err(Error::invalid("ParticleDef::velocity", "must be finite"));
        }
        // The inverse of the mass must be finite too.
        check_positive("ParticleDef::mass", self.mass, 1.0e30)?;
        if !(1.0 / self.mass).is_finite() {
            return Err(Error::invalid(
                "ParticleDef::mass",
                "is too small: its inverse overflows",
            ));
        }
        check_positive("ParticleDef::radius", self.radius, MAX_LENGTH)?;
        check_range(
            "ParticleDef::linear_drag",
            self.linear_drag,
            MAX_COEFFICIENT,
        )?;
        check_range(
            "ParticleDef::quadratic_drag",
            self.quadratic_drag,
            MAX_COEFFICIENT,
        )?;
        check_range("ParticleDef::friction", self.friction, MAX_COEFFICIENT)?;
        check_range("ParticleDef::restitution", self.restitution, 1.0)?;
        if !self.gravity_scale.is_finite() || self.gravity_scale.abs() > MAX_COEFFICIENT {
            return Err(Error::invalid(
                "ParticleDef::gravity_scale",
                "must be finite, at most 1e6 in size",
            ));
        }
        Ok(())
    }
}

/// The second end of a spring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpringEnd {
    /// Another particle.
    Particle(ParticleId),
    /// A point on a body, in the body's frame (its origin and axes), in m. The body takes
    /// the spring's impulse (if it is dynamic).
    Body {
        /// The body.
        body: BodyId,
        /// The point, in the body frame.
        point: Vec3,
    },
    /// A fixed point in the world, in m.
    Point(Vec3),
}

/// A spring (or, with zero compliance, a distance constraint) from particle `a` to `b`.
///
/// Solved as an XPBD constraint: its stiffness does not depend on the step or the
/// substep count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringDef {
    /// The first end.
    pub a: ParticleId,
    /// The second end.
    pub b: SpringEnd,
    /// The length at rest, in m; `None`: the distance between the ends when the spring is
    /// made. Default: `None`.
    pub rest_length: Option<f32>,
    /// Compliance, in m/N: the inverse of the stiffness. 0 is a rigid rod. Default: 0.
    ///
    /// Rigid rods are solved one sweep a substep, which alone lets a long strand of them
    /// stretch under its weight; every particle that a path of rigid rods joins to a
    /// pinned particle is therefore also kept within that path's rest length of the pin
    /// (a one-sided long-range attachment, as a pinned cloth's), so a hanging strand,
    /// rope or tree of rods stays at its length.
    pub compliance: f32,
    /// Damping along the spring, in N·s/m. Default: 0.
    pub damping: f32,
}

impl SpringDef {
    /// A rigid rod between particles `a` and `b` at their current distance.
    pub fn new(a: ParticleId, b: SpringEnd) -> Self {
        Self {
            a,
            b,
            rest_length: None,
            compliance: 0.0,
            damping: 0.0,
        }
    }

    /// This spring with stiffness `k` (N/m): compliance `1/k` (a non-positive `k` gives a
    /// non-finite compliance, which [`World::create_spring`](crate::World::create_spring)
    /// refuses).
    pub fn with_stiffness(mut self, k: f32) -> Self {
        self.compliance = 1.0 / k;
        self
    }

    /// This spring with compliance `alpha` (m/N).
    pub fn with_compliance(mut self, alpha: f32) -> Self {
        self.compliance = alpha;
        self
    }

    /// This spring with damping `c` (N·s/m).
    pub fn with_damping(mut self, c: f32) -> Self {
        self.damping = c;
        self
    }

    /// This spring with rest length `l` (m).
    pub fn with_rest_length(mut self, l: f32) -> Self {
        self.rest_length = Some(l);
        self
    }

    /// Checks the numbers (the ids are checked by the world).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        if let Some(l) = self.rest_length {
            check_range("SpringDef::rest_length", l, MAX_LENGTH)?;
        }
        check_range("SpringDef::compliance", self.compliance, MAX_COEFFICIENT)?;
        check_range("SpringDef::damping", self.damping, MAX_COEFFICIENT)?;
        if let SpringEnd::Body { point, .. } = self.b {
            check_point("SpringDef::b (body point)", point)?;
        }
        if let SpringEnd::Point(point) = self.b {
            check_point("SpringDef::b (point)", point)?;
        }
        Ok(())
    }
}
