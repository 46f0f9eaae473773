//! The standard scenes behave: the pyramid stands, the pile stays above the ground, and
//! results do not depend on the thread count.

use impetus::World;
use impetus_scenes::measure::{dynamic_positions, max_joint_error, stability};
use impetus_scenes::{find, world_def, Params, DT};

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
    let recipe = joint_grid_n(10);
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
    println!("joint_grid_n(10): max joint error after 60 steps {e:.5} m");
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
