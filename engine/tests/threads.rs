//! Results that do not depend on the thread count where the solver's scheduling does: the
//! runs of small colours, passed as one stage in which each contact batch waits only for
//! the batches before it that move its bodies.

mod common;

use common::{ground_plane, world_from, DT};
use impetus::{BodyDef, Quat, ShapeDef, Vec3, World, WorldDef};

/// Columns of unit boxes side by side, each face against its neighbour's (as the pile's
/// columns lean on each other), each box turned a little: the columns' own contacts take
/// two colours, the contacts between columns a tail of small ones.
fn columns(threads: usize) -> World {
    let mut w = world_from(WorldDef {
        worker_count: threads,
        ..Default::default()
    });
    ground_plane(&mut w);
    for i in 0..7 {
        for k in 0..7 {
            for j in 0..6 {
                let n = (i * 49 + k * 7 + j) as f32;
                let b = w
                    .create_body(&BodyDef {
                        position: Vec3::new(i as f32, 0.5 + j as f32 * 1.02, k as f32),
                        rotation: Quat::from_rotation_y(0.02 * (n * 0.7).sin()),
                        ..Default::default()
                    })
                    .unwrap();
                w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
            }
        }
    }
    w
}

/// The columns end on the same state at one, two and four threads, and at two and four
/// the passes did run small colours as one stage (else this test would not test it).
#[test]
fn small_colours_in_one_stage_keep_the_result() {
    let run = |threads: usize| {
        let mut w = columns(threads);
        let mut waves = 0;
        for _ in 0..90 {
            w.step(DT).unwrap();
            waves = waves.max(w.profile().wave_batches);
        }
        (w.state_hash(), waves)
    };
    let (one, none) = run(1);
    assert_eq!(none, 0, "one thread ran a run of small colours");
    for threads in [2, 4] {
        let (hash, waves) = run(threads);
        assert_eq!(hash, one, "{threads} threads");
        assert!(waves > 0, "{threads} threads ran no run of small colours");
    }
}
