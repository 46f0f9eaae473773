//! Single stages of the step, for the criterion micro-benchmarks in `impetus-scenes`.
//! Hidden from the docs and not a stable API: they exist so the hot kernels can be timed
//! on real scenes without making the solver's types public.

use super::World;

#[doc(hidden)]
impl World {
    /// Runs the broadphase stage alone (refit sort, pair changes, contact creation).
    pub fn bench_update_broadphase(&mut self) {
        self.update_broadphase();
    }

    /// Runs the narrowphase stage alone for a step of `dt`.
    pub fn bench_collide(&mut self, dt: f32) {
        self.collide(dt);
    }

    /// Prepares, colours and packs the contact constraints as a step of `dt` would (it runs
    /// the narrowphase first, which lists the touching contacts); returns how many there are.
    pub fn bench_prepare_contacts(&mut self, dt: f32) -> usize {
        let ctx = self.step_context(dt);
        self.collide(dt);
        let lonely = self.gather(&ctx, false);
        self.build_graph(&ctx, lonely, false);
        self.touching.contacts.len()
    }

    /// One pass over the prepared constraints (`use_bias`: solve, else relax), on the
    /// calling thread.
    pub fn bench_solve_pass(&mut self, dt: f32, use_bias: bool) {
        let ctx = self.step_context(dt);
        let sb = &mut self.solver;
        self.graph
            .solve(&mut sb.states, &mut sb.mass_rows, &ctx, use_bias, false);
    }
}
