//! Small worlds that reach the engine's `unsafe` code: the disjoint writes of the parallel
//! loops (`parallel::DisjointPtr`: stored impulses, joint results, the finalize columns,
//! refit bounds, particle springs), the broadphase's dirty-cell sweep (`CellsPtr`), the
//! contact lanes' state pointer and the prefetches.
//!
//! They are sized for Miri: `cargo +nightly miri test -p impetus --test miri` (CI runs it,
//! with `.ci/miri`'s flags). Under Miri every parallel stage opens from two items
//! (`parallel::par_min`), so these few bodies take the pool's paths at two workers, and
//! Miri checks each access for aliasing, bounds and data races. Outside Miri they are an
//! ordinary test of one more scene: one worker and two give the same state hash, and a
//! restored image steps on to the same hash.

mod common;

use common::DT;
use impetus::{
    BodyDef, BodyType, ClothDef, JointDef, JointKind, Quat, ShapeDef, Vec3, World, WorldDef,
};

/// Steps of each world (Miri interprets every instruction: a few steps of a few bodies).
const STEPS: usize = 2;

/// A ground box; two columns of two boxes; two spheres and a capsule dropping in; a
/// three-link hinge chain hung from a static post; a 3 × 3 cloth over it all.
fn build(workers: usize) -> World {
    let mut w = World::new(WorldDef {
        worker_count: workers,
        ..Default::default()
    })
    .unwrap();
    let body = |w: &mut World, body_type, position: Vec3, shape: ShapeDef| {
        let b = w
            .create_body(&BodyDef {
                body_type,
                position,
                rotation: Quat::from_rotation_y(0.1 * position.x),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &shape).unwrap();
        b
    };
    body(
        &mut w,
        BodyType::Static,
        Vec3::new(0.0, -0.5, 0.0),
        ShapeDef::cuboid(Vec3::new(6.0, 0.5, 6.0)),
    );
    for x in [-1.0f32, 1.0] {
        for k in 0..2 {
            body(
                &mut w,
                BodyType::Dynamic,
                Vec3::new(x, 0.5 + k as f32, 0.0),
                ShapeDef::cuboid(Vec3::splat(0.5)),
            );
        }
    }
    body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(-1.0, 2.6, 0.1),
        ShapeDef::sphere(0.3),
    );
    body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(1.0, 2.7, -0.1),
        ShapeDef::sphere(0.4),
    );
    body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.0, 1.2, 1.5),
        ShapeDef::capsule(0.4, 0.2),
    );
    let post = body(
        &mut w,
        BodyType::Static,
        Vec3::new(3.0, 4.0, 0.0),
        ShapeDef::cuboid(Vec3::splat(0.1)),
    );
    let mut prev = post;
    for k in 0..3 {
        let link = body(
            &mut w,
            BodyType::Dynamic,
            Vec3::new(3.0 + 0.5 * (k + 1) as f32, 4.0, 0.0),
            ShapeDef::cuboid(Vec3::new(0.2, 0.05, 0.05)),
        );
        let anchor = Vec3::new(3.0 + 0.5 * k as f32 + 0.25, 4.0, 0.0);
        let (xa, xb) = (
            w.body_transform(prev).unwrap(),
            w.body_transform(link).unwrap(),
        );
        let kind = JointKind::Hinge {
            limits: None,
            motor: None,
            spring: None,
        };
        w.create_joint(&JointDef::at_world(
            kind,
            prev,
            &xa,
            link,
            &xb,
            anchor,
            Vec3::Z,
        ))
        .unwrap();
        prev = link;
    }
    w.create_cloth(&ClothDef {
        origin: Vec3::new(-1.5, 4.5, -1.5),
        nx: 3,
        ny: 3,
        spacing: 0.5,
        mass: 0.3,
        ..Default::default()
    })
    .unwrap();
    w
}

fn stepped(mut w: World, steps: usize) -> World {
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    w
}

/// One worker and two step the same scene to the same state.
#[test]
fn two_workers_match_one() {
    let one = stepped(build(1), STEPS);
    let two = stepped(build(2), STEPS);
    assert!(
        two.contacts().count() > 0,
        "the scene has contacts to solve"
    );
    assert_eq!(one.state_hash(), two.state_hash());
}

/// A world saved as an image and restored on two workers steps on to the same state as
/// the original.
#[test]
fn a_restored_image_steps_on_alike() {
    let w = stepped(build(2), 1);
    let mut image = Vec::new();
    w.save_image(&mut image);
    let restored = World::from_image_with_workers(&image, 2).unwrap();
    let a = stepped(w, 1);
    let b = stepped(restored, 1);
    assert_eq!(a.state_hash(), b.state_hash());
}
