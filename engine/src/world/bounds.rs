//! The bounds of the shapes of moved bodies: refit after the solve, grown by the
//! speculative distance and swept over the next step's predicted motion, and moved in the
//! broadphase when they leave their fat boxes.

use super::step::PARALLEL_FINALIZE;
use super::World;
use crate::body::BodyType;
use crate::math::{prefetch, prefetch_head, prefetch_raw, Aabb};
use crate::parallel::{for_each_maybe_par, DisjointPtr};

impl World {
    /// Recomputes the bounds of every shape of a movable body; a proxy whose tight box left
    /// its fat box gets a new fat box. With `parallel`, the bounds are computed by the
    /// workers in chunks of bodies and the proxies moved afterwards in body order, as the
    /// serial walk moves them.
    pub(crate) fn refit_moved(&mut self, parallel: bool) {
        let slots = &self.solver.slot;
        if !parallel {
            // An address only, for the prefetches (`refit_body` writes the bounds).
            let bounds = self.shapes.bounds.as_ptr() as usize;
            for k in 0..slots.len() {
                let (shapes, data) = (&self.bodies.shapes, &self.shapes.data);
                prefetch_shapes(shapes, data, bounds, &self.broadphase, &self.solver.slot, k);
                self.refit_body(self.solver.slot[k] as usize);
            }
            return;
        }
        let (bodies, data, broadphase) = (&self.bodies, &self.shapes.data, &self.broadphase);
        let (dt, def) = (self.last_dt, &self.def);
        // An address only, for the prefetches (the workers write the bounds through `column`).
        let bounds = self.shapes.bounds.as_ptr() as usize;
        let column = DisjointPtr::new(&mut self.shapes.bounds);
        // Each chunk lists its moved proxies in its own list, the lists joined in order.
        let size = PARALLEL_FINALIZE / 2;
        let mut lists = std::mem::take(&mut self.scratch.refit_moved);
        lists.resize_with(slots.len().div_ceil(size), Vec::new);
        let refit = |c: usize, moved: &mut Vec<(u32, Aabb)>| {
            moved.clear();
            let chunk = &slots[c * size..slots.len().min(c * size + size)];
            for (k, &b) in chunk.iter().enumerate() {
                prefetch_shapes(&bodies.shapes, data, bounds, broadphase, chunk, k);
                shape_bounds(bodies, data, b as usize, dt, def, |s, bounds, motion| {
                    // Each shape belongs to one body, and each body is in one chunk.
                    *column.get_mut(s) = bounds;
                    if !broadphase.fat_aabb(s).contains(&bounds) {
                        moved.push((s, fat_box(&bounds, motion, def.aabb_margin)));
                    }
                });
            }
        };
        for_each_maybe_par(&mut lists, true, 1, refit);
        for &(s, fat) in lists.iter().flatten() {
            self.broadphase.move_proxy(s, fat);
        }
        self.scratch.refit_moved = lists;
    }

    /// Recomputes the bounds of body `b`'s shapes; a proxy whose bounds left its fat box
    /// (every proxy of a static body) gets a new fat box.
    pub(crate) fn refit_body(&mut self, b: usize) {
        let is_static = self.bodies.body_type[b] == BodyType::Static;
        let (bodies, data, column) = (&self.bodies, &self.shapes.data, &mut self.shapes.bounds);
        let (broadphase, margin) = (&mut self.broadphase, self.def.aabb_margin);
        shape_bounds(
            bodies,
            data,
            b,
            self.last_dt,
            &self.def,
            |s, bounds, motion| {
                column[s as usize] = bounds;
                if is_static || !broadphase.fat_aabb(s).contains(&bounds) {
                    broadphase.move_proxy(s, fat_box(&bounds, motion, margin));
                }
            },
        );
    }
}

/// Calls `f` with each shape of body `b` and its bounds: the tight box grown by the
/// speculative distance and swept over the next step's predicted motion (`v dt`, and the
/// angular speed times the shape's reach), so pairs exist before fast bodies meet and the
/// narrowphase can place speculative points.
fn shape_bounds(
    bodies: &crate::body::BodyStore,
    data: &[crate::shape::store::ShapeData],
    b: usize,
    dt: f32,
    def: &super::WorldDef,
    mut f: impl FnMut(u32, Aabb, glam::Vec3),
) {
    let xf = bodies.transform(b);
    let motion = bodies.linear_velocity[b] * dt;
    let spin = bodies.angular_velocity[b].length() * dt;
    for s in &bodies.shapes[b] {
        let d = &data[s.index as usize];
        let grow = def.speculative_distance + spin * d.reach();
        let bounds = d.shape.aabb(&d.pose(&xf)).expanded(grow).swept(motion);
        f(s.index, bounds, motion);
    }
}

/// How many bodies ahead of the one refitted [`prefetch_shapes`] starts loading.
const REFIT_AHEAD: usize = 8;

/// Starts loading what the refit of body `bodies[k + REFIT_AHEAD]` and of body
/// `bodies[k + REFIT_AHEAD / 2]` will read: the first body's list of shapes (a heap block
/// of its own), then, that list having arrived by now, the second body's shapes' data,
/// bounds and fat boxes. Without it the refit waited on each body's list and then on its
/// shapes, one miss after another (many_pyramids: a quarter of the refit's samples on the
/// load of the list's first entry, `docs/decisions.md`).
#[inline(always)]
fn prefetch_shapes(
    shapes: &[Vec<crate::id::ShapeId>],
    data: &[crate::shape::store::ShapeData],
    bounds: usize,
    broadphase: &crate::broadphase::BroadPhase,
    bodies: &[u32],
    k: usize,
) {
    if let Some(&b) = bodies.get(k + REFIT_AHEAD) {
        if let Some(list) = shapes[b as usize].first() {
            prefetch(list);
        }
    }
    if let Some(&b) = bodies.get(k + REFIT_AHEAD / 2) {
        for s in &shapes[b as usize] {
            let s = s.index as usize;
            prefetch_head(&data[s], 128);
            prefetch_raw(
                bounds + s * std::mem::size_of::<Aabb>(),
                std::mem::size_of::<Aabb>(),
            );
            prefetch(broadphase.fat_aabb(s as u32));
        }
    }
}

/// How many steps of motion a moved proxy's fat box reaches ahead of its bounds.
const FAT_AHEAD_STEPS: f32 = 2.0;

/// The fat box of a proxy whose bounds left its old one: the bounds grown by `margin`, and
/// stretched ahead along the body's motion of a step (`motion`, m) by [`FAT_AHEAD_STEPS`]
/// steps, so that a body moving steadily (rain's falling bodies move 0.17 m a step, more
/// than the margin) leaves its fat box every few steps rather than every step. The
/// displacement multiplier of Box2D v2's dynamic tree; figures in `docs/decisions.md`
/// ("The lead").
fn fat_box(bounds: &Aabb, motion: glam::Vec3, margin: f32) -> Aabb {
    bounds.expanded(margin).swept(FAT_AHEAD_STEPS * motion)
}
