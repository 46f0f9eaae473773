//! The standard scenes behave: the pyramid stands, the pile stays above the ground, and
//! results do not depend on the thread count.

use impetus::World;
use impetus_scenes::measure::{dynamic_positions, max_joint_error, stability};
use impetus_scenes::{find, tower_x, world_def, Params, DT, TOWER_HEIGHTS};

fn build(name: &str, threads: usize) -> World {
    let mut w = World::new(world_def(threads)).unwrap();
    find(name)
        .unwrap()
        .build(&mut w, &Params::default())
        .unwrap();
    w
}

#[test]
fn pyramid_stands() {
    let mut w = build("pyramid", 1);
    let start = dynamic_positions(&w);
    assert_eq!(start.len(), 820);
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let mut worst = (0.0f32, 0.0f32);
    for &(id, p0) in &start {
        let d = w.body_position(id).unwrap() - p0;
        worst = (worst.0.max(d.x.abs()), worst.1.max(d.y.abs()));
        assert!(
            d.x.abs() < 0.25 && d.y.abs() < 0.25,
            "box from {p0} moved by {d}"
        );
    }
    let s = stability(&w, &start);
    // The top box's sag is the figure to compare with Rapier's 0.11 m.
    let top = start.iter().max_by(|a, b| a.1.y.total_cmp(&b.1.y)).unwrap();
    let sag = top.1.y - w.body_position(top.0).unwrap().y;
    println!(
        "pyramid: max |dx| {:.4} m, max |dy| {:.4} m, top sag {sag:.4} m, max speed {:.5} m/s",
        worst.0, worst.1, s.max_speed
    );
    assert!(s.max_speed < 0.01, "still moving: {} m/s", s.max_speed);
}

#[test]
fn pile_stays_above_ground() {
    let mut w = build("pile", 0);
    let start = dynamic_positions(&w);
    assert_eq!(start.len(), 10_000);
    let mut lowest = f32::INFINITY;
    for i in 0..600 {
        w.step(DT).unwrap();
        if i % 20 == 19 {
            lowest = lowest.min(stability(&w, &start).min_y);
        }
    }
    let s = stability(&w, &start);
    lowest = lowest.min(s.min_y);
    println!(
        "pile: lowest point {lowest:.4} m, max speed at the end {:.4} m/s",
        s.max_speed
    );
    assert!(lowest >= -0.05, "a box sank to y = {lowest}");
}

/// Lone columns built as the pile's: the short ones come to rest. (The tall ones sway on
/// the scenes' 30 Hz contacts, whose stiffness follows each row's effective mass and not
/// the load on it; the test prints their speeds beside the short ones'.)
#[test]
fn short_towers_come_to_rest() {
    let mut w = build("towers", 1);
    let start = dynamic_positions(&w);
    assert_eq!(start.len(), TOWER_HEIGHTS.iter().sum::<usize>());
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let mut fastest = [0.0f32; TOWER_HEIGHTS.len()];
    for &(id, p0) in &start {
        let k = (0..TOWER_HEIGHTS.len())
            .min_by(|&i, &j| {
                (p0.x - tower_x(i))
                    .abs()
                    .total_cmp(&(p0.x - tower_x(j)).abs())
            })
            .unwrap();
        fastest[k] = fastest[k].max(w.body_linear_velocity(id).unwrap().length());
    }
    for (n, v) in TOWER_HEIGHTS.iter().zip(fastest) {
        println!("tower of {n:2} boxes: max speed at step 600 {v:.4} m/s");
    }
    for (n, v) in TOWER_HEIGHTS.iter().zip(fastest) {
        if *n <= 10 {
            assert!(v < 0.002, "the tower of {n} boxes still moves at {v} m/s");
        }
    }
}

#[test]
fn state_hash_is_identical_for_1_2_and_4_threads() {
    let hashes: Vec<u64> = [1, 2, 4]
        .iter()
        .map(|&t| {
            let mut w = build("pyramid", t);
            for _ in 0..60 {
                w.step(DT).unwrap();
            }
            w.state_hash()
        })
        .collect();
    assert_eq!(hashes[0], hashes[1]);
    assert_eq!(hashes[0], hashes[2]);
}

/// `mesh_pile`: the bodies land on the height-field terrain (none below it) and the result
/// is the same on 1 and 2 threads (the midphase's queries run in parallel).
#[test]
fn mesh_pile_lands_on_the_terrain_identically_on_1_and_2_threads() {
    let run = |threads: usize| {
        let mut w = build("mesh_pile", threads);
        for _ in 0..150 {
            w.step(DT).unwrap();
        }
        w
    };
    let (a, b) = (run(1), run(2));
    assert_eq!(a.state_hash(), b.state_hash());
    // The terrain's lowest point is -3 m; everything is above it and has landed.
    let s = stability(&a, &dynamic_positions(&a));
    assert!(s.min_y > -3.1, "lowest point {}", s.min_y);
    assert!(
        s.max_penetration < 0.05,
        "penetration {}",
        s.max_penetration
    );
    assert!(a.contacts().count() > 1000, "{}", a.contacts().count());
}

/// A jumble of boxes and spheres of mixed sizes dropped onto each other: many colours,
/// speculative contacts, sphere and box pairs.
fn jumble(threads: usize) -> World {
    use impetus::{Quat, Vec3};
    use impetus_scenes::{build_impetus, scenes::ground, BodySpec, Rng, ShapeSpec};
    let mut rng = Rng::new(7);
    let mut recipe = vec![ground(20.0)];
    for i in 0..300 {
        let position = Vec3::new(
            rng.range(-3.0, 3.0),
            0.5 + i as f32 * 0.15,
            rng.range(-3.0, 3.0),
        );
        let axis = Vec3::new(rng.range(-1.0, 1.0), 1.0, rng.range(-1.0, 1.0)).normalize();
        let mut b = BodySpec::unit_box(position, Quat::from_axis_angle(axis, rng.range(0.0, 3.0)));
        b.shape = if i % 3 == 0 {
            ShapeSpec::Ball(rng.range(0.2, 0.5))
        } else {
            ShapeSpec::Cuboid(Vec3::new(
                rng.range(0.2, 0.6),
                rng.range(0.2, 0.6),
                rng.range(0.2, 0.6),
            ))
        };
        b.restitution = if i % 5 == 0 { 0.5 } else { 0.0 };
        recipe.push(b);
    }
    let mut w = World::new(world_def(threads)).unwrap();
    build_impetus(&mut w, &recipe).unwrap();
    w
}

#[test]
fn jumble_is_identical_for_1_2_and_4_threads() {
    let hashes: Vec<u64> = [1, 2, 4]
        .iter()
        .map(|&t| {
            let mut w = jumble(t);
            for _ in 0..150 {
                w.step(DT).unwrap();
            }
            assert!(
                w.profile().constraints > 100,
                "the jumble should be in contact"
            );
            w.state_hash()
        })
        .collect();
    assert_eq!(hashes[0], hashes[1]);
    assert_eq!(hashes[0], hashes[2]);
}

#[test]
fn contact_begin_and_end_records_are_identical_for_1_2_and_4_threads() {
    let records: Vec<_> = [1, 2, 4]
        .iter()
        .map(|&t| {
            let mut w = jumble(t);
            let mut log = Vec::new();
            for step in 0..150 {
                w.step(DT).unwrap();
                for &r in w.contact_begin_events() {
                    log.push((step, true, r));
                }
                for &r in w.contact_end_events() {
                    log.push((step, false, r));
                }
            }
            log
        })
        .collect();
    let begins = records[0].iter().filter(|r| r.1).count();
    let ends = records[0].len() - begins;
    println!("jumble: {begins} begin and {ends} end records in 150 steps");
    assert!(begins > 300 && ends > 30, "{begins} begins, {ends} ends");
    assert!(records[0] == records[1], "1 and 2 threads differ");
    assert!(records[0] == records[2], "1 and 4 threads differ");
}

#[test]
fn removing_bodies_mid_simulation_keeps_the_world_consistent() {
    use impetus::{BodyDef, ShapeDef, Vec3};
    let mut w = jumble(2);
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let ids: Vec<_> = w.bodies().collect();
    for (k, &id) in ids.iter().enumerate() {
        if k % 3 == 1 {
            w.remove_body(id).unwrap();
        }
    }
    // New bodies reuse the freed slots; stale ids stay stale.
    for i in 0..50 {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(0.0, 10.0 + i as f32, 0.0),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::sphere(0.3)).unwrap();
    }
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    assert!(w.body_position(ids[1]).is_err());
    for c in w.contacts() {
        assert!(w.contains_body(c.body_a) && w.contains_body(c.body_b));
        assert!(c
            .points
            .iter()
            .all(|p| p.separation.is_finite() && p.point.is_finite()));
    }
    for id in w.bodies() {
        assert!(w.body_position(id).unwrap().is_finite());
    }
}

/// Max displacement of the pyramid after `steps` steps, with recycling on or off.
fn pyramid_displacement(recycling: bool, steps: usize) -> f32 {
    let mut w = World::new(impetus::WorldDef {
        contact_recycling: recycling,
        ..world_def(0)
    })
    .unwrap();
    find("pyramid")
        .unwrap()
        .build(&mut w, &Params::default())
        .unwrap();
    let start = dynamic_positions(&w);
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let mut worst = impetus::Vec3::ZERO;
    for &(id, p0) in &start {
        worst = worst.max((w.body_position(id).unwrap() - p0).abs());
    }
    println!("recycling {recycling}: max |d| per axis {worst}");
    stability(&w, &start).max_displacement
}

#[test]
fn recycling_does_not_change_the_pyramid_stability() {
    let on = pyramid_displacement(true, 600);
    let off = pyramid_displacement(false, 600);
    println!("pyramid max displacement at step 600: recycling on {on:.4} m, off {off:.4} m");
    assert!((on - off).abs() <= 0.01, "on {on} m, off {off} m");
}

/// A world built from a recipe.
fn build_recipe(recipe: &impetus_scenes::Recipe, threads: usize) -> World {
    let mut w = World::new(world_def(threads)).unwrap();
    recipe.build_impetus(&mut w).unwrap();
    w
}

#[test]
fn every_scene_lists_the_counts_of_its_recipe() {
    use impetus_scenes::SCENES;
    for s in SCENES {
        let r = (s.recipe)(&Params::default());
        let dynamic = r.bodies.iter().filter(|b| b.dynamic).count();
        assert_eq!(dynamic, s.bodies, "{}: dynamic bodies", s.name);
        assert_eq!(r.joints.len(), s.joints, "{}: joints", s.name);
        for j in &r.joints {
            assert!(j.a != j.b && j.a < r.bodies.len() && j.b < r.bodies.len());
            assert!(r.bodies[j.a].dynamic || r.bodies[j.b].dynamic);
        }
        // A column is dynamic bodies, bottom to top.
        for w in r.column.windows(2) {
            let (lower, upper) = (&r.bodies[w[0]], &r.bodies[w[1]]);
            assert!(lower.dynamic && upper.dynamic, "{}: column", s.name);
            assert!(lower.position.y < upper.position.y, "{}: column", s.name);
        }
    }
}

#[test]
fn joint_grid_builds_10000_spheres_and_19701_joints() {
    let recipe = (find("joint_grid").unwrap().recipe)(&Params::default());
    assert_eq!(recipe.bodies.len(), 10_000);
    // 2 n (n − 1) = 19,800 neighbour pairs less the 99 between two static top-row spheres.
    assert_eq!(recipe.joints.len(), 19_701);
    let w = build_recipe(&recipe, 1);
    assert_eq!(w.bodies().count(), 10_000);
    assert_eq!(w.joint_count(), 19_701);
    assert_eq!(dynamic_positions(&w).len(), 9_900);
    assert!(max_joint_error(&w) < 1.0e-4);
}

#[test]
fn joint_scenes_start_with_their_anchors_together_in_both_engines() {
    use impetus_scenes::scenes::joint_grid_n;
    let recipes = [
        ("joint_grid_n(5)", joint_grid_n(5)),
        (
            "bridge",
            (find("bridge").unwrap().recipe)(&Params::default()),
        ),
        ("chain", (find("chain").unwrap().recipe)(&Params::default())),
    ];
    for (name, recipe) in &recipes {
        let w = build_recipe(recipe, 1);
        assert_eq!(w.joint_count(), recipe.joints.len(), "{name}");
        let e = max_joint_error(&w);
        assert!(e < 1.0e-5, "{name}: impetus anchors {e} m apart as built");
        #[cfg(feature = "rapier")]
        {
            let rs = impetus_scenes::rapier::build_rapier(recipe, 1).unwrap();
            assert_eq!(rs.world.impulse_joints.len(), recipe.joints.len(), "{name}");
            let e = rs.max_joint_error();
            assert!(e < 1.0e-5, "{name}: rapier anchors {e} m apart as built");
        }
    }
}

#[test]
fn small_joint_grid_hangs_together_identically_on_1_and_2_threads() {
    use impetus_scenes::scenes::joint_grid_n;
    // 400 spheres and 760 joints: enough work for the solver to run on the pool (a
    // smaller scene runs on the calling thread whatever the thread count).
    let recipe = joint_grid_n(20);
    let runs: Vec<(u64, f32)> = [1, 2]
        .iter()
        .map(|&t| {
            let mut w = build_recipe(&recipe, t);
            for _ in 0..60 {
                w.step(DT).unwrap();
            }
            // Jointed neighbours never touch; the others are too far apart.
            assert_eq!(w.contacts().count(), 0);
            (w.state_hash(), max_joint_error(&w))
        })
        .collect();
    let e = runs[0].1;
    println!("joint_grid_n(20): max joint error after 60 steps {e:.5} m");
    assert!(e.is_finite() && e < 0.01, "anchors {e} m apart");
    assert_eq!(runs[0].0, runs[1].0, "1 and 2 threads differ");
}

#[test]
fn chain_and_bridge_hold_together_for_a_second() {
    for name in ["chain", "bridge"] {
        let recipe = (find(name).unwrap().recipe)(&Params::default());
        let hashes: Vec<u64> = [1, 2]
            .iter()
            .map(|&t| {
                let mut w = build_recipe(&recipe, t);
                for _ in 0..60 {
                    w.step(DT).unwrap();
                }
                let e = max_joint_error(&w);
                println!("{name}, {t} thread(s): max joint error after 60 steps {e:.5} m");
                assert!(e.is_finite() && e < 0.1, "{name}: anchors {e} m apart");
                for id in w.bodies() {
                    assert!(w.body_position(id).unwrap().is_finite());
                }
                w.state_hash()
            })
            .collect();
        assert_eq!(hashes[0], hashes[1], "{name}: 1 and 2 threads differ");
    }
}

/// A world built from a recipe, with the body ids in recipe order.
fn build_recipe_ids(
    recipe: &impetus_scenes::Recipe,
    threads: usize,
) -> (World, Vec<impetus::BodyId>) {
    use impetus_scenes::{build_impetus, build_joints_impetus};
    let mut w = World::new(world_def(threads)).unwrap();
    let ids = build_impetus(&mut w, &recipe.bodies).unwrap();
    build_joints_impetus(&mut w, &ids, &recipe.joints).unwrap();
    (w, ids)
}

/// The angle of rotation `q` about the unit axis `axis` (the twist of its swing-twist
/// split), in (−π, π].
fn twist_about(q: impetus::Quat, axis: impetus::Vec3) -> f32 {
    let q = if q.w < 0.0 { -q } else { q };
    2.0 * impetus::Vec3::new(q.x, q.y, q.z).dot(axis).atan2(q.w)
}

#[test]
fn ragdoll_door_and_tumbler_build_in_both_engines_with_their_counts() {
    use impetus_scenes::scenes::RAGDOLL_BONES;
    // (scene, all bodies, dynamic bodies, joints)
    let expected = [
        ("ragdolls", 1 + 256 * RAGDOLL_BONES, 2816, 2560),
        ("door", 3 + 48, 49, 1),
        ("tumbler", 8 + 320, 326, 13),
    ];
    for (name, all, dynamic, joints) in expected {
        let recipe = (find(name).unwrap().recipe)(&Params::default());
        assert_eq!(recipe.bodies.len(), all, "{name}: bodies");
        assert_eq!(recipe.joints.len(), joints, "{name}: joints");
        let w = build_recipe(&recipe, 1);
        assert_eq!(w.bodies().count(), all, "{name}");
        assert_eq!(dynamic_positions(&w).len(), dynamic, "{name}");
        assert_eq!(w.joint_count(), joints, "{name}");
        let e = max_joint_error(&w);
        assert!(e < 1.0e-5, "{name}: impetus anchors {e} m apart as built");
        #[cfg(feature = "rapier")]
        {
            let rs = impetus_scenes::rapier::build_rapier(&recipe, 1).unwrap();
            assert_eq!(rs.bodies.len(), all, "{name}");
            let moving = rs
                .bodies
                .iter()
                .filter(|&&h| rs.world.bodies[h].is_dynamic())
                .count();
            assert_eq!(moving, dynamic, "{name}");
            assert_eq!(rs.world.impulse_joints.len(), joints, "{name}");
            let e = rs.max_joint_error();
            assert!(e < 1.0e-5, "{name}: rapier anchors {e} m apart as built");
        }
    }
}

#[test]
fn ragdolls_start_apart_and_thrown_boxes_start_moving() {
    // The spacing keeps every ragdoll clear of the others and of the ground, whatever
    // its random pose: no contact point after the first step.
    let recipe = (find("ragdolls").unwrap().recipe)(&Params::default());
    let mut w = build_recipe(&recipe, 0);
    w.step(DT).unwrap();
    let points: usize = w.contacts().map(|c| c.points.len()).sum();
    assert_eq!(points, 0, "ragdolls touch as built");
    // The door's boxes carry their initial velocities in both engines.
    let recipe = (find("door").unwrap().recipe)(&Params::default());
    let (w, ids) = build_recipe_ids(&recipe, 1);
    let thrown: Vec<usize> = (0..recipe.bodies.len())
        .filter(|&i| recipe.bodies[i].linear_velocity != impetus::Vec3::ZERO)
        .collect();
    assert_eq!(thrown.len(), 48);
    for &i in &thrown {
        let v = w.body_linear_velocity(ids[i]).unwrap();
        assert!((v - recipe.bodies[i].linear_velocity).length() < 1.0e-6);
    }
    #[cfg(feature = "rapier")]
    {
        let rs = impetus_scenes::rapier::build_rapier(&recipe, 1).unwrap();
        for &i in &thrown {
            let v = rs.world.bodies[rs.bodies[i]].linvel();
            let v = impetus::Vec3::new(v.x, v.y, v.z);
            assert!((v - recipe.bodies[i].linear_velocity).length() < 1.0e-6);
        }
    }
}

#[test]
fn ragdolls_fall_into_a_pile_without_coming_apart_or_through_the_ground() {
    use impetus_scenes::scenes::{ragdolls_n, RAGDOLL_BONES};
    // 16 ragdolls: 2 x 2 columns, 4 layers.
    let recipe = ragdolls_n(16, &Params::default());
    let mut w = build_recipe(&recipe, 0);
    let start = dynamic_positions(&w);
    let top = start.iter().map(|s| s.1.y).fold(f32::MIN, f32::max);
    let (mut worst_joint, mut lowest) = (0.0f32, f32::INFINITY);
    for step in 1..=180 {
        w.step(DT).unwrap();
        worst_joint = worst_joint.max(max_joint_error(&w));
        if step % 10 == 0 {
            lowest = lowest.min(stability(&w, &start).min_y);
        }
    }
    let s = stability(&w, &start);
    let resting_joint = max_joint_error(&w);
    let highest = start
        .iter()
        .map(|&(id, _)| w.body_position(id).unwrap().y)
        .fold(f32::MIN, f32::max);
    // Bodies of different ragdolls in contact: the ragdolls landed on each other.
    let ragdoll = |id| start.iter().position(|s| s.0 == id).unwrap() / RAGDOLL_BONES;
    let between = w
        .contacts()
        .filter(|c| !c.points.is_empty())
        .filter(|c| {
            let (a, b) = (c.body_a, c.body_b);
            start.iter().any(|s| s.0 == a)
                && start.iter().any(|s| s.0 == b)
                && ragdoll(a) != ragdoll(b)
        })
        .count();
    println!(
        "ragdolls_n(16), 180 steps: worst joint error {worst_joint:.4} m (at the end \
         {resting_joint:.4} m), lowest point {lowest:.4} m, highest centre {highest:.2} m \
         (from {top:.2} m), {between} contacts between ragdolls, max speed {:.3} m/s, max \
         penetration {:.4} m",
        s.max_speed, s.max_penetration
    );
    assert!(lowest >= -0.05, "a bone sank to y = {lowest}");
    // Landing stretches an elbow or a knee by a few cm for a step or two (rapier: about as
    // much); the resting pile holds its joints together to a few mm.
    assert!(worst_joint < 0.1, "joint anchors {worst_joint} m apart");
    assert!(
        resting_joint < 0.01,
        "joint anchors {resting_joint} m apart in the resting pile"
    );
    assert!(highest < 2.0, "not piled: a bone still at y = {highest}");
    assert!(between >= 10, "only {between} contacts between ragdolls");
}

#[test]
fn door_swings_within_its_hinge_limits() {
    use impetus_scenes::scenes::DOOR_LIMITS;
    let recipe = (find("door").unwrap().recipe)(&Params::default());
    let (post, door) = (recipe.joints[0].a, recipe.joints[0].b);
    let (mut w, ids) = build_recipe_ids(&recipe, 1);
    let (mut lo, mut hi, mut worst_joint) = (0.0f32, 0.0f32, 0.0f32);
    let (mut trace, mut angle) = (Vec::new(), 0.0);
    for step in 1..=360 {
        w.step(DT).unwrap();
        let q =
            w.body_rotation(ids[post]).unwrap().conjugate() * w.body_rotation(ids[door]).unwrap();
        angle = twist_about(q, impetus::Vec3::Y);
        (lo, hi) = (lo.min(angle), hi.max(angle));
        worst_joint = worst_joint.max(max_joint_error(&w));
        if step % 30 == 0 {
            trace.push(format!("{:.2}", angle));
        }
    }
    println!(
        "door: angle every 0.5 s {}; range [{lo:.4}, {hi:.4}] rad, worst joint error {worst_joint:.4} m",
        trace.join(" ")
    );
    assert!(
        lo >= DOOR_LIMITS[0] - 0.02 && hi <= DOOR_LIMITS[1] + 0.02,
        "door angle left its limits: [{lo}, {hi}]"
    );
    // The first volley swings it open against its upper limit, the second one back.
    assert!(hi > DOOR_LIMITS[1] - 0.1, "door opened only to {hi} rad");
    assert!(
        angle < hi - 0.2,
        "the second volley left the door at {angle} rad"
    );
    assert!(worst_joint < 0.02, "hinge anchors {worst_joint} m apart");
}

#[test]
fn tumbler_turns_at_its_motor_speed_and_keeps_its_boxes() {
    use impetus_scenes::scenes::{tumbler_n, TUMBLER_CENTRE, TUMBLER_HALF, TUMBLER_SPEED};
    let recipe = tumbler_n(128, &Params::default());
    let (axle, back) = (recipe.joints[0].a, recipe.joints[0].b);
    let (mut w, ids) = build_recipe_ids(&recipe, 1);
    // The tumbler's centre in the back wall's frame.
    let centre_in_back = TUMBLER_CENTRE - recipe.bodies[back].position;
    let contents = &ids[8..];
    let steps = 240;
    let (mut worst_joint, mut outside) = (0.0f32, 0.0f32);
    for step in 1..=steps {
        w.step(DT).unwrap();
        worst_joint = worst_joint.max(max_joint_error(&w));
        if step % 10 == 0 {
            let xf = w.body_transform(ids[back]).unwrap();
            let centre = xf.transform_point(centre_in_back);
            for &id in contents {
                let local = xf.inv_transform_vector(w.body_position(id).unwrap() - centre);
                outside = outside.max(local.abs().max_element());
            }
        }
    }
    let q = w.body_rotation(ids[axle]).unwrap().conjugate() * w.body_rotation(ids[back]).unwrap();
    let angle = twist_about(q, impetus::Vec3::Z);
    let expected = TUMBLER_SPEED * steps as f32 * DT;
    println!(
        "tumbler_n(128), {steps} steps: turned {angle:.4} rad (motor: {expected:.4}), \
         farthest box centre {outside:.3} m from the middle along a tumbler axis (inside: \
         {TUMBLER_HALF}), worst joint error {worst_joint:.4} m"
    );
    assert!(
        (angle - expected).abs() < 0.05 * expected,
        "turned {angle} rad, motor {expected} rad"
    );
    assert!(outside < TUMBLER_HALF, "a box escaped: {outside} m out");
    assert!(
        worst_joint < 0.02,
        "the walls came apart by {worst_joint} m"
    );
}

/// The mass of recipe body `i` in the impetus world and (with rapier) in the rapier world.
fn masses(recipe: &impetus_scenes::Recipe, i: usize) -> Vec<f32> {
    let (w, ids) = build_recipe_ids(recipe, 1);
    let mut m = vec![w.body_mass_properties(ids[i]).unwrap().mass];
    #[cfg(feature = "rapier")]
    {
        let rs = impetus_scenes::rapier::build_rapier(recipe, 1).unwrap();
        m.push(rs.world.bodies[rs.bodies[i]].mass());
    }
    m
}

#[test]
fn mass_ratio_and_heavy_chain_build_in_both_engines_with_their_counts_and_masses() {
    use impetus_scenes::measure::{column_compression, joint_stretch};
    use impetus_scenes::scenes::{
        BRIDGE_PLANKS, BRIDGE_PLANK_MASS, CHAIN_BALL_MASS, CHAIN_LINKS, CHAIN_LINK_MASS,
        MASS_RATIO_STACKS,
    };
    // (scene, all bodies, dynamic bodies, joints, column length)
    let expected = [
        ("mass_ratio", 1 + 9, 9, 0, 3),
        ("heavy_chain", 1 + 101 + 2 + 10, 111, 101 + 22, 0),
    ];
    for (name, all, dynamic, joints, column) in expected {
        let recipe = (find(name).unwrap().recipe)(&Params::default());
        assert_eq!(recipe.bodies.len(), all, "{name}: bodies");
        assert_eq!(recipe.joints.len(), joints, "{name}: joints");
        assert_eq!(recipe.column.len(), column, "{name}: column");
        let (mut w, ids) = build_recipe_ids(&recipe, 1);
        assert_eq!(w.bodies().count(), all, "{name}");
        assert_eq!(dynamic_positions(&w).len(), dynamic, "{name}");
        assert_eq!(w.joint_count(), joints, "{name}");
        // As built: every joint holds (rods at their length), the column's boxes touch.
        let (e, ratio) = joint_stretch(&w);
        assert!(e < 1.0e-5, "{name}: impetus joint error {e} m as built");
        assert!(ratio < 2.0e-5, "{name}: impetus stretch {ratio} as built");
        let col: Vec<_> = recipe.column.iter().map(|&i| ids[i]).collect();
        let c = column_compression(&w, &col);
        assert_eq!(c.is_some(), column > 0, "{name}");
        assert!(c.unwrap_or(0.0).abs() < 1.0e-5, "{name}: compression {c:?}");
        #[cfg(feature = "rapier")]
        {
            let rs = impetus_scenes::rapier::build_rapier(&recipe, 1).unwrap();
            assert_eq!(rs.bodies.len(), all, "{name}");
            let moving = rs
                .bodies
                .iter()
                .filter(|&&h| rs.world.bodies[h].is_dynamic())
                .count();
            assert_eq!(moving, dynamic, "{name}");
            assert_eq!(rs.world.impulse_joints.len(), joints, "{name}");
            let (e, ratio) = rs.joint_stretch();
            assert!(e < 1.0e-5, "{name}: rapier joint error {e} m as built");
            assert!(ratio < 2.0e-5, "{name}: rapier stretch {ratio} as built");
            let c = rs.column_compression(&recipe.column);
            assert_eq!(c.is_some(), column > 0, "{name}");
            assert!(c.unwrap_or(0.0).abs() < 1.0e-5, "{name}: compression {c:?}");
        }
        // Nothing touches but the boxes on their ground and on each other.
        w.step(DT).unwrap();
        let touching = w.contacts().filter(|c| !c.points.is_empty()).count();
        let stacked: usize = MASS_RATIO_STACKS.iter().map(|s| s.len()).sum();
        assert_eq!(touching, if name == "mass_ratio" { stacked } else { 0 });
    }
    // The masses, in both engines.
    let close = |m: &[f32], want: f32, what: &str| {
        for &m in m {
            assert!(
                (m - want).abs() <= 1.0e-4 * want,
                "{what}: {m} kg, not {want}"
            );
        }
    };
    let recipe = (find("mass_ratio").unwrap().recipe)(&Params::default());
    let mut i = 1;
    for stack in MASS_RATIO_STACKS {
        for &density in stack {
            close(&masses(&recipe, i), density, "mass_ratio box");
            i += 1;
        }
    }
    let sandwich = i - MASS_RATIO_STACKS[3].len();
    assert_eq!(recipe.column, (sandwich..i).collect::<Vec<_>>());
    let recipe = (find("heavy_chain").unwrap().recipe)(&Params::default());
    for k in [1, CHAIN_LINKS / 2, CHAIN_LINKS] {
        close(&masses(&recipe, k), CHAIN_LINK_MASS, "link");
    }
    close(&masses(&recipe, CHAIN_LINKS + 1), CHAIN_BALL_MASS, "ball");
    let first_plank = CHAIN_LINKS + 4;
    for p in [first_plank, first_plank + BRIDGE_PLANKS - 1] {
        close(&masses(&recipe, p), BRIDGE_PLANK_MASS, "plank");
    }
    // The bridge hangs symmetric between level anchors, every rod 0.5 m.
    let (left, right) = (
        &recipe.bodies[CHAIN_LINKS + 2],
        &recipe.bodies[CHAIN_LINKS + 3],
    );
    assert!(!left.dynamic && !right.dynamic);
    assert_eq!(left.position.y, right.position.y);
    let lowest = recipe.bodies[first_plank..first_plank + BRIDGE_PLANKS]
        .iter()
        .map(|b| b.position.y)
        .fold(f32::INFINITY, f32::min);
    println!(
        "heavy_chain bridge: anchors' centres {:.3} m apart, lowest plank centre {:.3} m below \
         them",
        right.position.x - left.position.x,
        left.position.y - lowest
    );
}

/// A hand-made column of upright boxes: edges 0.02 m apart, then overlapping by 0.07 m,
/// then 0.01 m apart; and the same column leaning by 0.05 rad, which world AABBs would
/// read as ≈ 0.2 m more compressed.
#[test]
fn column_compression_is_the_overlap_less_the_gaps_in_both_engines() {
    use impetus::{Quat, Vec3};
    use impetus_scenes::measure::column_compression;
    use impetus_scenes::{scenes::ground, BodySpec, Recipe, ShapeSpec};
    // (half height, centre height): 0 to 1; 1.02 to 1.52 (0.02 m of gap); 1.45 to 2.25
    // (0.07 m of overlap); 2.26 to 2.76 (0.01 m of gap).
    let boxes = [(0.5, 0.5), (0.25, 1.27), (0.4, 1.85), (0.25, 2.51)];
    let column = |lean: f32| {
        let turn = Quat::from_rotation_z(lean);
        let mut bodies = vec![ground(5.0)];
        for (half, y) in boxes {
            bodies.push(BodySpec {
                shape: ShapeSpec::Cuboid(Vec3::new(0.5, half, 0.5)),
                ..BodySpec::unit_box(turn * Vec3::new(0.0, y, 0.0), turn)
            });
        }
        Recipe {
            column: vec![1, 2, 3, 4],
            ..Recipe::from(bodies)
        }
    };
    let lean = 0.05f32;
    // Heights 2.8 m less the span: the top origin's height plus 0.25 less the bottom
    // origin's height less 0.5, the origins 2.01 cos(lean) apart in height once leaning.
    let cases = [
        (0.0, column(0.0), 0.07 - 0.02 - 0.01),
        (lean, column(lean), 2.8 - 0.75 - 2.01 * lean.cos()),
    ];
    for (lean, recipe, expected) in &cases {
        assert!((expected - 0.04).abs() < 0.003);
        let (w, ids) = build_recipe_ids(recipe, 1);
        let column: Vec<_> = recipe.column.iter().map(|&i| ids[i]).collect();
        let c = column_compression(&w, &column).unwrap();
        assert!(
            (c - expected).abs() < 1.0e-5,
            "impetus: {c} m, not {expected}"
        );
        // The bottom two boxes alone: the gap between them (1.5 m of heights less the
        // span, 0.75 m plus the origins' 0.77 cos(lean) apart in height).
        let c = column_compression(&w, &column[..2]).unwrap();
        let gap = 0.75 - 0.77 * lean.cos();
        assert!((c - gap).abs() < 1.0e-5, "impetus: {c} m, not {gap}");
        assert_eq!(column_compression(&w, &[]), None);
        #[cfg(feature = "rapier")]
        {
            let rs = impetus_scenes::rapier::build_rapier(recipe, 1).unwrap();
            let c = rs.column_compression(&recipe.column).unwrap();
            assert!(
                (c - expected).abs() < 1.0e-5,
                "rapier: {c} m, not {expected}"
            );
            assert_eq!(rs.column_compression(&[]), None);
        }
    }
}

/// Hand-built joints whose anchors start apart: a ball joint 0.06 m apart between centres
/// 2 m apart, a 0.5 m rod stretched to 0.52 m, and on its own a 1 m rod squeezed to 0.97 m.
#[test]
fn joint_stretch_ratio_is_the_error_over_the_rest_length_in_both_engines() {
    use impetus::{Quat, Vec3};
    use impetus_scenes::measure::joint_stretch;
    use impetus_scenes::{BodySpec, JointSpec, Recipe};
    let at = |x: f32| Vec3::new(x, 0.0, 0.0);
    let bodies = vec![
        BodySpec::static_box(at(0.0), Vec3::splat(0.1)),
        BodySpec::unit_box(at(2.0), Quat::IDENTITY),
        BodySpec::unit_box(at(4.0), Quat::IDENTITY),
    ];
    // A's anchor 1 m from A's centre, B's 0.06 m above it, ≈ 1.0018 m from B's centre.
    let ball = JointSpec {
        anchor_b: Some(Vec3::new(1.0, 0.06, 0.0)),
        ..JointSpec::ball(0, 1, at(1.0))
    };
    let ball_ratio = 0.06 / (1.0 + 1.0f32.hypot(0.06));
    let stretched = JointSpec::distance(1, 2, at(2.5), at(3.02), 0.5);
    let squeezed = JointSpec::distance(1, 2, at(2.5), at(3.47), 1.0);
    let cases = [
        // (joints, largest error in m, largest ratio)
        (vec![ball], 0.06, ball_ratio),
        (vec![ball, stretched], 0.06, 0.04),
        (vec![squeezed], 0.03, 0.03),
    ];
    for (joints, error, ratio) in cases {
        let recipe = Recipe {
            joints,
            ..Recipe::from(bodies.clone())
        };
        let mut got = vec![("impetus", joint_stretch(&build_recipe(&recipe, 1)))];
        #[cfg(feature = "rapier")]
        got.push((
            "rapier",
            impetus_scenes::rapier::build_rapier(&recipe, 1)
                .unwrap()
                .joint_stretch(),
        ));
        for (engine, (e, r)) in got {
            assert!(
                (e - error).abs() < 1.0e-5,
                "{engine}: error {e} m, not {error}"
            );
            assert!(
                (r - ratio).abs() < 1.0e-5,
                "{engine}: ratio {r}, not {ratio}"
            );
        }
    }
}

/// The new figures reach the JSON of a run, in both engines: a column's compression, and
/// null for a scene without a column.
#[test]
fn run_json_reports_column_compression_and_joint_stretch() {
    use impetus_scenes::run_scene;
    for (name, has_column) in [("mass_ratio", true), ("door", false)] {
        let scene = find(name).unwrap();
        let mut results = vec![run_scene(scene, 1, 2, |_, _| {}).unwrap()];
        #[cfg(feature = "rapier")]
        results.push(impetus_scenes::run_rapier(scene, 1, 2, |_, _| {}).unwrap());
        for r in results {
            let v = r.to_json();
            let s = &v["stability"];
            assert_eq!(s["column_compression"].is_f64(), has_column, "{name}: {s}");
            assert_eq!(
                s["column_compression"].is_null(),
                !has_column,
                "{name}: {s}"
            );
            assert!(s["max_joint_stretch_ratio"].is_f64(), "{name}: {s}");
            assert!(r.table().contains("column compression") == has_column);
        }
    }
}
