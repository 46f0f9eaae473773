//! Per-step timings and counters, available without any profiler attached.

/// Milliseconds spent in each stage of the last step, and what the step worked on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Profile {
    /// The whole step, in ms.
    pub step: f64,
    /// Drag and buoyancy (see [`forces`](crate::forces)).
    pub forces: f64,
    /// Kinematic targets: velocities aimed at them before the step, poses landed on them
    /// after it.
    pub kinematic: f64,
    /// Broadphase update: refit, sort, pair changes, contact creation and destruction.
    pub broadphase: f64,
    /// Narrowphase: manifolds of all candidate pairs.
    pub narrowphase: f64,
    /// Solver preparation: gathering bodies, building constraints.
    pub prepare: f64,
    /// Velocity integration, summed over substeps.
    pub integrate_velocities: f64,
    /// Warm starting, summed over substeps.
    pub warm_start: f64,
    /// Solving with bias, summed over substeps.
    pub solve: f64,
    /// Position integration, summed over substeps.
    pub integrate_positions: f64,
    /// Relaxing (solving without bias), summed over substeps.
    pub relax: f64,
    /// The impacts of bouncy contacts, before the substeps (see `solver::impact`).
    pub restitution: f64,
    /// Storing impulses for the next warm start.
    pub store_impulses: f64,
    /// Writing poses back, refitting bounds and listing the move events.
    pub finalize: f64,
    /// Continuous collision: sweeping fast bodies and bullets for a time of impact.
    pub continuous: f64,
    /// Rest times, islands falling asleep, island splits.
    pub sleep: f64,
    /// Particles: their contacts with the shapes found for the step.
    pub particle_collide: f64,
    /// Particles: predict, springs, volumes, bodies and velocities, summed over substeps.
    pub particle_solve: f64,
    /// Live particles.
    pub particles: usize,
    /// Particle contacts found for the step.
    pub particle_contacts: usize,
    /// Colours the particle springs use.
    pub particle_colors: usize,
    /// Particle substeps that ended non-finite and were undone (the particle stopped where
    /// the substep found it): a force or impulse beyond what f32 holds.
    pub particles_stopped: usize,
    /// Bodies the solver moved: awake dynamic bodies and kinematic bodies.
    pub awake_bodies: usize,
    /// Broadphase pairs (overlapping fat boxes).
    pub pairs: usize,
    /// Occupied cells of the broadphase grid.
    pub grid_cells: usize,
    /// The grid's cell edge, in m.
    pub cell_size: f32,
    /// Contacts (pairs of shapes that can collide and whose fat boxes overlap).
    pub contacts: usize,
    /// Contacts with at least one manifold point (touching or speculative).
    pub manifolds: usize,
    /// Touching manifolds that were recycled (refreshed from their anchors, not recomputed).
    pub recycled: usize,
    /// Contact batches (of up to 8 or 4 manifolds, one a SIMD lane) that prepare brought up
    /// to the step in place, rather than making them again from their contacts: in a scene
    /// at rest, those whose every manifold was recycled.
    pub refreshed: usize,
    /// Contact batches passed in runs of small colours, each run one stage of the workers
    /// rather than one a colour (at two threads or more; see `solver::graph::wave`).
    pub wave_batches: usize,
    /// Manifold points in the touching contacts.
    pub points: usize,
    /// Contact constraints solved.
    pub constraints: usize,
    /// Graph colours in use.
    pub colors: usize,
    /// Constraints that fit no colour (solved serially).
    pub overflow: usize,
    /// Bodies swept for a time of impact (bullets and fast bodies).
    pub swept_bodies: usize,
    /// Swept bodies that were stopped at a time of impact.
    pub impacts: usize,
}

impl Profile {
    /// The stages as (name, ms) pairs, in step order; the names are the ones the
    /// benchmark prints and writes to JSON.
    pub fn stages(&self) -> [(&'static str, f64); 17] {
        [
            ("forces", self.forces),
            ("kinematic", self.kinematic),
            ("particle_collide", self.particle_collide),
            ("broadphase", self.broadphase),
            ("narrowphase", self.narrowphase),
            ("prepare", self.prepare),
            ("integrate_velocities", self.integrate_velocities),
            ("warm_start", self.warm_start),
            ("solve", self.solve),
            ("integrate_positions", self.integrate_positions),
            ("relax", self.relax),
            ("particle_solve", self.particle_solve),
            ("restitution", self.restitution),
            ("store_impulses", self.store_impulses),
            ("finalize", self.finalize),
            ("continuous", self.continuous),
            ("sleep", self.sleep),
        ]
    }
}
