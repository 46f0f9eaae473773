//! The world's settings.

use crate::error::Error;
use crate::math::is_finite3;
use glam::Vec3;

/// World settings. Every field has a documented SI default; lengths assume metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldDef {
    /// Gravity acceleration, in m/s². Default: (0, -9.81, 0).
    pub gravity: Vec3,
    /// Solver substeps per step. Default: 4.
    pub substeps: u32,
    /// Contact stiffness as a spring frequency, in Hz; capped at a quarter of the substep
    /// rate. Default: 30.
    pub contact_hertz: f32,
    /// Contact damping ratio (dimensionless). Default: 10.
    pub contact_damping_ratio: f32,
    /// Joint stiffness as a spring frequency, in Hz, for the position error of joint
    /// locks; capped at a quarter of the substep rate. Default: 60.
    pub joint_hertz: f32,
    /// Joint damping ratio (dimensionless). Default: 2.
    pub joint_damping_ratio: f32,
    /// The fastest speed at which overlapping bodies are pushed apart, in m/s. Default: 3.
    pub max_push_speed: f32,
    /// The world's length tolerance, in m (scale it with the world's length unit).
    /// Default: 0.005. It is not an allowed penetration: the solver pushes every overlap
    /// out, and a resting contact keeps only the overlap its load compresses it by (its
    /// spring of [`contact_hertz`](Self::contact_hertz); 0.07 mm for a 1 m box of
    /// 100 kg/m³ on the ground). What the slop sets: how far a touching manifold may
    /// drift before it is recomputed (10 slops; 1 for speculative ones), how near a new
    /// contact point must be to an old one to inherit its warm-start impulse (2 slops),
    /// the gap continuous collision leaves before a time of impact (1 slop), and the
    /// tolerance of shape casts (a tenth of it).
    pub linear_slop: f32,
    /// Contact points are kept while the surfaces are closer than this, in m, so fast
    /// bodies are caught before they touch. Default: 4 × `linear_slop` = 0.02.
    pub speculative_distance: f32,
    /// Fat-AABB margin of the broadphase, in m. Default: 0.1. (A moving body's fat boxes
    /// also reach two steps of its motion ahead.)
    pub aabb_margin: f32,
    /// Edge of the broadphase grid's cells, in m. 0 chooses it when the first proxies
    /// arrive: 8 × the median largest extent of their fat boxes (10 m for unit boxes).
    /// Proxies spanning more than 64 cells (grounds, planes) are kept apart from the grid.
    /// Default: 0.
    pub broadphase_cell_size: f32,
    /// Approach speeds below this do not bounce, in m/s. Default: 1.
    pub restitution_threshold: f32,
    /// A contact whose surfaces slide past each other slower than this at the start of a
    /// step (at the centre of its points, relative to a modifier's surface velocity)
    /// sticks: its friction is limited by the static coefficient
    /// ([`ShapeDef::static_friction`](crate::ShapeDef)); faster, it slides, limited by
    /// the kinetic one ([`ShapeDef::friction`](crate::ShapeDef)). In m/s. Default: 0.01.
    pub static_friction_speed: f32,
    /// Speed cap of any body, in m/s. Default: 400.
    pub max_linear_speed: f32,
    /// Keep a touching manifold while its bodies barely moved relative to each other
    /// (points drifted under 10 × `linear_slop`, rotation under ~10°) and refresh only its
    /// separations: cheaper, and contact points stay on the same material points, which is
    /// what keeps tall stacks from leaning. Default: true.
    pub contact_recycling: bool,
    /// Density of the air, in kg/m³, for bodies with a drag coefficient (see
    /// [`forces`](crate::forces)); 0 is a vacuum. Default: 1.225 (sea level, 15 °C).
    pub air_density: f32,
    /// Sweep every dynamic body that moved more than half its smallest extent in a step
    /// (sphere radius, smallest box half extent) for a time of impact against static
    /// geometry, and place it at that time, so fast bodies do not pass through thin
    /// walls. Bodies flagged `BodyDef::bullet` are swept whatever this says. Default: true.
    pub sweep_fast_bodies: bool,
    /// Worker threads; 0 means all cores, 1 runs everything on the calling thread.
    /// Results are bit-identical for every count. During a large step (see
    /// [`World::step`](crate::World::step)) the workers spin rather than sleep, keeping
    /// their cores busy until the step returns. Default: 0.
    pub worker_count: usize,
    /// Contacts of shapes with hit events on publish a hit event when they begin touching
    /// with the surfaces approaching faster than this, in m/s. Default: 1.
    pub hit_event_threshold: f32,
    /// Let islands of resting bodies fall asleep: a sleeping body costs nothing per step
    /// until something wakes it. Default: true.
    pub enable_sleep: bool,
    /// A body counts as resting while its speed (and its angular speed times its extent)
    /// stays under this, in m/s. Default: 0.05.
    pub sleep_threshold: f32,
    /// An island falls asleep when all its bodies have rested this long, in s. Default: 0.5.
    pub time_to_sleep: f32,
}

crate::codec::fields!(WorldDef {
    gravity,
    substeps,
    contact_hertz,
    contact_damping_ratio,
    joint_hertz,
    joint_damping_ratio,
    max_push_speed,
    linear_slop,
    speculative_distance,
    aabb_margin,
    broadphase_cell_size,
    restitution_threshold,
    static_friction_speed,
    max_linear_speed,
    contact_recycling,
    air_density,
    sweep_fast_bodies,
    worker_count,
    hit_event_threshold,
    enable_sleep,
    sleep_threshold,
    time_to_sleep
});

impl Default for WorldDef {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            substeps: 4,
            contact_hertz: 30.0,
            contact_damping_ratio: 10.0,
            joint_hertz: 60.0,
            joint_damping_ratio: 2.0,
            max_push_speed: 3.0,
            linear_slop: 0.005,
            speculative_distance: 0.02,
            aabb_margin: 0.1,
            broadphase_cell_size: 0.0,
            restitution_threshold: 1.0,
            static_friction_speed: 0.01,
            max_linear_speed: 400.0,
            contact_recycling: true,
            air_density: 1.225,
            sweep_fast_bodies: true,
            worker_count: 0,
            hit_event_threshold: 1.0,
            enable_sleep: true,
            sleep_threshold: 0.05,
            time_to_sleep: 0.5,
        }
    }
}

impl WorldDef {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        if !is_finite3(self.gravity) {
            return Err(Error::invalid("WorldDef::gravity", "must be finite"));
        }
        if self.substeps == 0 || self.substeps > 64 {
            return Err(Error::invalid("WorldDef::substeps", "must be in 1..=64"));
        }
        let positive = [
            ("WorldDef::contact_hertz", self.contact_hertz),
            (
                "WorldDef::contact_damping_ratio",
                self.contact_damping_ratio,
            ),
            ("WorldDef::joint_hertz", self.joint_hertz),
            ("WorldDef::joint_damping_ratio", self.joint_damping_ratio),
            ("WorldDef::max_push_speed", self.max_push_speed),
            ("WorldDef::max_linear_speed", self.max_linear_speed),
        ];
        for (field, v) in positive {
            if !v.is_finite() || v <= 0.0 {
                return Err(Error::invalid(field, "must be finite and positive"));
            }
        }
        let non_negative = [
            ("WorldDef::linear_slop", self.linear_slop),
            ("WorldDef::speculative_distance", self.speculative_distance),
            ("WorldDef::aabb_margin", self.aabb_margin),
            ("WorldDef::broadphase_cell_size", self.broadphase_cell_size),
            (
                "WorldDef::restitution_threshold",
                self.restitution_threshold,
            ),
            (
                "WorldDef::static_friction_speed",
                self.static_friction_speed,
            ),
            ("WorldDef::sleep_threshold", self.sleep_threshold),
            ("WorldDef::hit_event_threshold", self.hit_event_threshold),
            ("WorldDef::time_to_sleep", self.time_to_sleep),
            ("WorldDef::air_density", self.air_density),
        ];
        for (field, v) in non_negative {
            if !v.is_finite() || v < 0.0 {
                return Err(Error::invalid(field, "must be finite and non-negative"));
            }
        }
        Ok(())
    }
}
