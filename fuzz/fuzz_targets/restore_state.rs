//! `World::restore_state` on arbitrary bytes, into a small world of every body type with
//! shapes and a joint: `Ok` or `Err`, never a panic; on `Err` the world is unchanged. The
//! first byte's bit 0 starts from a valid state with the fuzzer's bytes XORed over it and
//! the checksum recomputed (`seal.rs`), so that mutations reach the sections behind the
//! checksum; bit 1 leaves the checksum as the XOR made it (the checksum check itself).
#![no_main]

#[path = "seal.rs"]
mod seal;

use impetus::{BodyDef, BodyType, JointDef, JointKind, ShapeDef, Vec3, World, WorldDef};
use libfuzzer_sys::fuzz_target;

fn world() -> World {
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

fuzz_target!(|data: &[u8]| {
    let mut w = world();
    let state = match data.split_first() {
        Some((&flag, rest)) if flag & 1 == 1 => {
            let mut s = Vec::new();
            w.save_state(&mut s);
            if flag & 2 == 0 {
                seal::xor_and_reseal(&s, rest)
            } else {
                for (x, d) in s.iter_mut().zip(rest) {
                    *x ^= d;
                }
                s
            }
        }
        _ => data.to_vec(),
    };
    let before = w.deep_hash();
    match w.restore_state(&state) {
        Ok(()) => {
            let _ = w.step(1.0 / 60.0);
        }
        Err(_) => assert_eq!(w.deep_hash(), before, "a failed restore changed the world"),
    }
});
