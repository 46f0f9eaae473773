//! The world the `restore_state` fuzz target restores into (fuzz/fuzz_targets), shared by
//! path with `engine/tests/fuzz_states.rs`, which replays the target's crashes: a ground
//! plane, a box and a sphere joined by a ball joint, a kinematic capsule, stepped 10 times.

use impetus::{BodyDef, BodyType, JointDef, JointKind, ShapeDef, Vec3, World, WorldDef};

/// The target's world.
pub fn world() -> World {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        ..Default::default()
    })
    .unwrap();
    let ground = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
    let a = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 0.5, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(a, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 2.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::sphere(0.4)).unwrap();
    let k = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(2.0, 1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(k, &ShapeDef::capsule(0.5, 0.2)).unwrap();
    let xa = w.body_transform(a).unwrap();
    let xb = w.body_transform(b).unwrap();
    let j = JointDef::at_world(
        JointKind::Ball,
        a,
        &xa,
        b,
        &xb,
        Vec3::new(0.0, 1.25, 0.0),
        Vec3::Y,
    );
    w.create_joint(&j).unwrap();
    for _ in 0..10 {
        w.step(1.0 / 60.0).unwrap();
    }
    w
}

/// The state the target restores for the fuzzer's `data` into `w`: with the first byte's
/// bit 0, the rest XORed over `w`'s own state, the checksum recomputed unless bit 1 is set;
/// otherwise `data` itself.
pub fn fuzzed_state(w: &World, data: &[u8]) -> Vec<u8> {
    match data.split_first() {
        Some((&flag, rest)) if flag & 1 == 1 => {
            let mut s = Vec::new();
            w.save_state(&mut s);
            if flag & 2 == 0 {
                super::seal::xor_and_reseal(&s, rest)
            } else {
                for (x, d) in s.iter_mut().zip(rest) {
                    *x ^= d;
                }
                s
            }
        }
        _ => data.to_vec(),
    }
}
