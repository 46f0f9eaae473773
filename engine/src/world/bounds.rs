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
        let refit = |c: usize, moved: &mut Vec<(u32, Aabb, u16)>| {
            moved.clear();
            let chunk = &slots[c * size..slots.len().min(c * size + size)];
            for (k, &b) in chunk.iter().enumerate() {
                prefetch_shapes(&bodies.shapes, data, bounds, broadphase, chunk, k);
                shape_bounds(bodies, data, b as usize, dt, def, |s, bounds, motion| {
                    // Each shape belongs to one body, and each body is in one chunk.
                    *column.get_mut(s) = bounds;
                    if !broadphase.fat_aabb(s).contains(&bounds) {
                        let (fat, growth) =
                            regrow(broadphase, s, &bounds, motion, def.aabb_margin, false);
                        moved.push((s, fat, growth));
                    }
                });
            }
        };
        for_each_maybe_par(&mut lists, true, 1, refit);
        for &(s, fat, growth) in lists.iter().flatten() {
            self.broadphase.move_proxy(s, fat, growth);
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
                    let (fat, growth) = regrow(broadphase, s, &bounds, motion, margin, is_static);
                    broadphase.move_proxy(s, fat, growth);
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

/// The fat box of a proxy whose bounds left its old one: the bounds grown by the margin
/// (`margin` times the proxy's growth, see [`next_growth`]), and stretched ahead along the
/// body's motion of a step (`motion`, m) by [`FAT_AHEAD_STEPS`] steps, so that a body
/// moving steadily (rain's falling bodies move 0.17 m a step, more than the margin) leaves
/// its fat box every few steps rather than every step. The displacement multiplier of
/// Box2D v2's dynamic tree; figures in `docs/decisions.md` ("The lead").
#[inline(always)]
fn fat_box(bounds: &Aabb, motion: glam::Vec3, margin: f32, growth: u16) -> Aabb {
    bounds
        .expanded(grown_margin(margin, growth))
        .swept(FAT_AHEAD_STEPS * motion)
}

/// The new fat box and growth of proxy `s`, whose bounds left its fat box (a static
/// body's proxy keeps the plain margin).
#[inline(always)]
fn regrow(
    broadphase: &crate::broadphase::BroadPhase,
    s: u32,
    bounds: &Aabb,
    motion: glam::Vec3,
    margin: f32,
    is_static: bool,
) -> (Aabb, u16) {
    let growth = if is_static {
        0
    } else {
        let (old, fat) = (broadphase.growth(s), broadphase.fat_aabb(s));
        next_growth(old, fat, bounds, motion, margin)
    };
    (fat_box(bounds, motion, margin, growth), growth)
}

/// Bits 0-1 of a proxy's growth: its margin is the world's margin times 2 to this power.
const GROWTH_LEVEL: u16 = 0b11;
/// The largest growth level: four times the margin.
const MAX_GROWTH_LEVEL: u16 = 2;
/// Bits 2-7: per axis (two bits each, x first), which way the fat box was stretched along
/// the motion when it was made: 1 towards +, 2 towards −, 0 not at all.
const GROWTH_SIGNS: u32 = 2;
/// Bits 8-10: how many times in a row the bounds left the fat box against its stretch.
const GROWTH_STREAK: u32 = 8;
/// The times in a row a proxy's bounds leave its fat box against its stretch before its
/// margin doubles.
const REVERSALS_TO_GROW: u16 = 3;

/// The margin of a proxy's fat box with growth `growth`.
#[inline(always)]
fn grown_margin(margin: f32, growth: u16) -> f32 {
    margin * (1u32 << (growth & GROWTH_LEVEL)) as f32
}

/// The growth of a proxy whose `bounds` left its fat box `fat`, from its growth `old`
/// (bit layout: [`GROWTH_LEVEL`], [`GROWTH_SIGNS`], [`GROWTH_STREAK`]).
///
/// A fat box is stretched ahead along the motion, so a body moving steadily leaves it
/// through the front. One that leaves it through the back has turned round: a swinging
/// pendulum, a row of a hanging grid bouncing on its joints. Such a body leaves a fat box
/// of the plain margin at every swing wider than the margin, and each time its pairs with
/// its neighbours end and begin again. So after [`REVERSALS_TO_GROW`] such exits in a row
/// the margin doubles, up to four times; a body that settles keeps it, and one that leaves
/// through the front moving faster than the margin reaches (the stretch then being what
/// keeps it inside) halves it again. A body that lands and bounces turns round once or
/// twice and does not grow: a landed heap of grown boxes would hold more pairs than it
/// needs (`docs/decisions.md`, "Fat boxes that grow where bodies swing").
#[inline(always)]
fn next_growth(old: u16, fat: &Aabb, bounds: &Aabb, motion: glam::Vec3, margin: f32) -> u16 {
    let mut reversed = false;
    for a in 0..3 {
        let sign = (old >> (GROWTH_SIGNS + 2 * a as u32)) & 0b11;
        reversed |=
            (sign == 1 && bounds.min[a] < fat.min[a]) || (sign == 2 && bounds.max[a] > fat.max[a]);
    }
    let mut level = old & GROWTH_LEVEL;
    let mut streak = (old >> GROWTH_STREAK) & 0b111;
    if reversed {
        streak += 1;
        if streak == REVERSALS_TO_GROW {
            level = (level + 1).min(MAX_GROWTH_LEVEL);
            streak = 0;
        }
    } else if FAT_AHEAD_STEPS * motion.abs().max_element() > grown_margin(margin, old) {
        level = level.saturating_sub(1);
        streak = 0;
    }
    let mut signs = 0;
    for a in 0..3 {
        let sign = if motion[a] > 0.0 {
            1
        } else if motion[a] < 0.0 {
            2
        } else {
            0
        };
        signs |= sign << (GROWTH_SIGNS + 2 * a as u32);
    }
    level | signs | streak << GROWTH_STREAK
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BodyDef, BodyType, JointDef, JointKind, ShapeDef, Spring, WorldDef};
    use glam::Vec3;

    /// The growth a proxy has after its bounds (a unit box at `x`, moving by `motion` a
    /// step) follow `path`, starting from a fat box made at the first point, and how many
    /// times they left their fat box.
    fn follow(path: &[f32]) -> (u16, usize) {
        let bounds = |x: f32| Aabb {
            min: Vec3::new(x - 0.5, -0.5, -0.5),
            max: Vec3::new(x + 0.5, 0.5, 0.5),
        };
        let (mut growth, mut exits) = (0, 0);
        let mut fat = fat_box(&bounds(path[0]), Vec3::ZERO, 0.1, 0);
        for pair in path.windows(2) {
            let motion = Vec3::new(pair[1] - pair[0], 0.0, 0.0);
            let b = bounds(pair[1]).swept(motion);
            if !fat.contains(&b) {
                growth = next_growth(growth, &fat, &b, motion, 0.1);
                fat = fat_box(&b, motion, 0.1, growth);
                exits += 1;
            }
        }
        (growth, exits)
    }

    #[test]
    fn a_swinging_proxy_grows_and_a_moving_one_does_not() {
        // Swinging ±0.3 m (a period of 60 steps) for 20 periods: the margin grows to four
        // times, and then the swing stays inside.
        let swing: Vec<f32> = (0..1200)
            .map(|k| 0.3 * (k as f32 * std::f32::consts::TAU / 60.0).sin())
            .collect();
        let (growth, exits) = follow(&swing);
        assert_eq!(growth & GROWTH_LEVEL, MAX_GROWTH_LEVEL, "{growth:#x}");
        let (_, early) = follow(&swing[..600]);
        assert_eq!(exits, early, "no exit in the last ten periods");
        // Moving steadily, slowly or fast: never grows.
        for v in [0.01, 0.05, 0.3] {
            let path: Vec<f32> = (0..600).map(|k| v * k as f32).collect();
            let (growth, exits) = follow(&path);
            assert!(exits > 2, "{v}: {exits}");
            assert_eq!(growth & GROWTH_LEVEL, 0, "{v}: {growth:#x}");
        }
        // Landing and bouncing once, then resting: does not grow.
        let mut bounce: Vec<f32> = (0..60).map(|k| -0.05 * k as f32).collect();
        bounce.extend((0..10).map(|k| -3.0 + 0.04 * k as f32));
        bounce.extend((0..20).map(|k| -2.6 - 0.02 * k as f32));
        bounce.extend(std::iter::repeat_n(-3.0, 100));
        assert_eq!(follow(&bounce).0 & GROWTH_LEVEL, 0);
        // Grown, then moving fast: the margin shrinks back.
        let mut then: Vec<f32> = swing[..600].to_vec();
        then.extend((1..300).map(|k| swing[599] + 0.3 * k as f32));
        assert_eq!(follow(&then).0 & GROWTH_LEVEL, 0);
    }

    /// A box on a slider spring, swinging ±0.3 m along x in zero gravity; the box's shape
    /// slot.
    fn swinging() -> (World, u32) {
        let mut w = World::new(WorldDef {
            gravity: Vec3::ZERO,
            worker_count: 1,
            ..Default::default()
        })
        .unwrap();
        let anchor = w
            .create_body(&BodyDef {
                body_type: BodyType::Static,
                ..Default::default()
            })
            .unwrap();
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(1.0, 0.0, 0.0),
                ..Default::default()
            })
            .unwrap();
        let shape = w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.2))).unwrap();
        let (xa, xb) = (
            w.body_transform(anchor).unwrap(),
            w.body_transform(b).unwrap(),
        );
        let kind = JointKind::Slider {
            limits: None,
            motor: None,
            spring: Some(Spring::frequency(1.0, 0.0, 0.3)),
        };
        let def = JointDef::at_world(kind, anchor, &xa, b, &xb, Vec3::new(1.0, 0.0, 0.0), Vec3::X);
        w.create_joint(&def).unwrap();
        (w, shape.index)
    }

    #[test]
    fn a_swinging_body_keeps_its_pairs_and_its_growth_through_a_state() {
        let (mut w, s) = swinging();
        let mut moves = Vec::new();
        for _ in 0..600 {
            let fat = *w.broadphase.fat_aabb(s);
            w.step(1.0 / 60.0).unwrap();
            moves.push(*w.broadphase.fat_aabb(s) != fat);
        }
        let growth = w.broadphase.growth(s);
        assert_eq!(growth & GROWTH_LEVEL, MAX_GROWTH_LEVEL, "{growth:#x}");
        assert!(moves[..300].iter().any(|&m| m));
        assert!(
            !moves[300..].iter().any(|&m| m),
            "the grown box holds the swing"
        );
        // A state carries the growth: a copy restored from it saves the same state after
        // stepping on.
        let mut state = Vec::new();
        w.save_state(&mut state);
        let (mut copy, _) = swinging();
        copy.restore_state(&state).unwrap();
        assert_eq!(copy.broadphase.growth(s), growth);
        for _ in 0..60 {
            w.step(1.0 / 60.0).unwrap();
            copy.step(1.0 / 60.0).unwrap();
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        w.save_state(&mut a);
        copy.save_state(&mut b);
        assert_eq!(a, b);
    }
}
