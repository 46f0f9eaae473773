//! Writer -> reader: poses bit-exact, hashes equal; bad files are errors, not panics.

use impetus::{BodyDef, BodyType, ConvexHull, Quat, ShapeDef, Vec3, World, WorldDef};
use impetus_recorder::{
    fall_world, first_difference, pose_hash, pose_of, RecordOptions, Recorder, Recording,
    ShapeRecord,
};
use std::sync::Arc;

/// A small mixed world: ground plane, boxes, spheres, capsules, a shared hull, a compound
/// body, a sensor, a kinematic body.
fn mixed_world() -> World {
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
    let hull = Arc::new(
        ConvexHull::new(&[
            Vec3::new(-0.4, 0.0, -0.4),
            Vec3::new(0.4, 0.0, -0.4),
            Vec3::new(0.0, 0.0, 0.5),
            Vec3::new(0.0, 0.7, 0.0),
        ])
        .unwrap(),
    );
    for i in 0..12 {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(
                    (i % 4) as f32 * 1.2 - 2.0,
                    1.0 + i as f32 * 0.9,
                    0.3 * i as f32,
                ),
                rotation: Quat::from_rotation_z(0.1 * i as f32),
                ..Default::default()
            })
            .unwrap();
        let def = match i % 4 {
            0 => ShapeDef::cuboid(Vec3::new(0.5, 0.3, 0.4)),
            1 => ShapeDef::sphere(0.4),
            2 => ShapeDef::capsule(0.3, 0.2),
            _ => ShapeDef::hull(hull.clone()),
        };
        w.add_shape(b, &def).unwrap();
        if i == 5 {
            w.add_shape(
                b,
                &ShapeDef::sphere(0.2).with_offset(Vec3::new(0.6, 0.0, 0.0)),
            )
            .unwrap();
        }
    }
    let sensor = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, 1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(sensor, &ShapeDef::cuboid(Vec3::splat(1.0)).sensor())
        .unwrap();
    let k = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(3.0, 0.5, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(k, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
    w.set_body_linear_velocity(k, Vec3::new(-1.0, 0.0, 0.0))
        .unwrap();
    w
}

/// A frame as the world had it: the state hash, the awake non-static bodies' poses.
type Truth = (u64, Vec<[f32; 7]>);

/// Steps `world` `steps` times under a recorder, returning the file and each frame's
/// (state hash, the awake non-static bodies' poses in slot order).
fn record(mut world: World, steps: u32, options: RecordOptions) -> (Vec<u8>, Vec<Truth>) {
    let snapshot = |w: &World| {
        let poses = w
            .bodies()
            .filter(|&b| w.body_type(b).unwrap() != BodyType::Static && w.body_is_awake(b).unwrap())
            .map(|b| pose_of(&w.body_transform(b).unwrap()))
            .collect();
        (w.state_hash(), poses)
    };
    let mut truth = vec![snapshot(&world)];
    let mut r = Recorder::new(Vec::new(), &world, 1.0 / 60.0, options).unwrap();
    for _ in 0..steps {
        world.step(1.0 / 60.0).unwrap();
        r.record(&world).unwrap();
        truth.push(snapshot(&world));
    }
    (r.finish().unwrap(), truth)
}

#[test]
fn round_trip_is_bit_exact() {
    let (file, truth) = record(mixed_world(), 150, RecordOptions::default());
    let rec = Recording::from_bytes(&file).unwrap();
    assert_eq!(rec.frames.len(), 151);
    assert_eq!(rec.dt, 1.0 / 60.0);
    assert_eq!(rec.bodies.len(), 15);
    // The 12 bodies share four shapes, plus the offset sphere, the plane and the sensor box
    // and the kinematic box (equal boxes are one entry).
    let hulls = rec
        .shapes
        .iter()
        .filter(|s| matches!(s, ShapeRecord::Hull { .. }))
        .count();
    assert_eq!(hulls, 1, "the shared hull is interned once");
    assert_eq!(rec.bodies[6].shapes.len(), 2, "the compound body");
    assert_eq!(
        rec.bodies[6].shapes[1].1[0], 0.6,
        "the offset shape's local pose"
    );
    assert_eq!(rec.bodies[13].shapes[0].2 & 1, 1, "the sensor flag");
    let mut contacts = 0;
    for (f, (state, poses)) in rec.frames.iter().zip(&truth) {
        assert_eq!(f.state_hash, *state, "frame {}", f.frame);
        assert_eq!(f.poses.len(), poses.len(), "frame {}", f.frame);
        for ((_, got), want) in f.poses.iter().zip(poses) {
            assert_eq!(
                got.map(f32::to_bits),
                want.map(f32::to_bits),
                "frame {}",
                f.frame
            );
        }
        assert_eq!(pose_hash(f.poses.iter().map(|(b, p)| (*b, p))), f.pose_hash);
        contacts += f.contacts.len();
    }
    assert!(contacts > 0, "contacts recorded");
    assert!(rec
        .frames
        .iter()
        .any(|f| !f.events.contact_begin.is_empty()));
    assert!(
        rec.frames.iter().any(|f| !f.events.sensor_begin.is_empty()),
        "sensor events"
    );
    assert_eq!(first_difference(&rec, &rec), None);
}

#[test]
fn sleeping_bodies_are_left_out_and_keep_their_pose() {
    let (file, truth) = record(fall_world().unwrap(), 240, RecordOptions::default());
    let rec = Recording::from_bytes(&file).unwrap();
    let last = rec.frames.last().unwrap();
    assert!(last.poses.is_empty(), "the box sleeps by step 240");
    assert!(truth.last().unwrap().1.is_empty());
    // The last recorded pose rests on the ground.
    let rest = rec
        .frames
        .iter()
        .rev()
        .find_map(|f| f.poses.first())
        .unwrap()
        .1;
    assert!((rest[1] - 0.5).abs() < 0.02, "rests at y = {}", rest[1]);
}

#[test]
fn bodies_added_and_removed_during_the_recording() {
    let mut world = fall_world().unwrap();
    let mut r = Recorder::new(Vec::new(), &world, 1.0 / 60.0, RecordOptions::default()).unwrap();
    let first = world.bodies().nth(1).unwrap();
    let mut added = None;
    for step in 1..=30 {
        if step == 10 {
            let b = world
                .create_body(&BodyDef {
                    position: Vec3::new(2.0, 3.0, 0.0),
                    ..Default::default()
                })
                .unwrap();
            world.add_shape(b, &ShapeDef::sphere(0.3)).unwrap();
            added = Some(b);
        }
        if step == 20 {
            world.remove_body(first).unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
        r.record(&world).unwrap();
    }
    let rec = Recording::from_bytes(&r.finish().unwrap()).unwrap();
    assert_eq!(rec.bodies.len(), 3);
    assert_eq!(rec.bodies[2].first_frame, 10);
    assert_eq!(rec.bodies[2].id_index, added.unwrap().index);
    assert_eq!(rec.bodies[1].removed_at, Some(20));
    assert!(rec.frames[25].poses.iter().all(|(b, _)| *b != 1));
}

#[test]
fn grid_rounds_the_poses_and_keeps_the_state_hash() {
    let options = RecordOptions {
        grid: Some(10),
        ..Default::default()
    };
    let (exact, truth) = record(mixed_world(), 60, RecordOptions::default());
    let (rounded, _) = record(mixed_world(), 60, options);
    let (a, b) = (
        Recording::from_bytes(&exact).unwrap(),
        Recording::from_bytes(&rounded).unwrap(),
    );
    for (f, (state, _)) in b.frames.iter().zip(&truth) {
        assert_eq!(f.state_hash, *state);
        for (_, p) in &f.poses {
            for (k, v) in p.iter().enumerate() {
                let step = if k < 3 { 1.0 / 1024.0 } else { 1.0 / 4096.0 };
                assert_eq!((v / step).fract(), 0.0, "{v} on the grid");
            }
        }
    }
    let mut points = 0;
    for f in &b.frames {
        for c in &f.contacts {
            for (p, sep, _) in &c.points {
                points += 1;
                for v in p.iter().chain([sep]) {
                    assert_eq!((v * 1024.0).fract(), 0.0, "contact value {v} on the grid");
                }
            }
        }
    }
    assert!(points > 0);
    // Same world, same state hashes; the pose hashes differ (the rounded poses are hashed).
    assert_eq!(first_difference(&a, &b), Some(0));
    assert!(a
        .frames
        .iter()
        .zip(&b.frames)
        .all(|(x, y)| x.state_hash == y.state_hash));
}

#[test]
fn bad_files_are_errors_naming_the_fault() {
    let (file, _) = record(fall_world().unwrap(), 40, RecordOptions::default());
    let err = |bytes: &[u8]| Recording::from_bytes(bytes).unwrap_err().to_string();
    assert!(err(b"").contains("not gzip"));
    assert!(err(&file[..file.len() - 9]).contains("cut short or corrupt"));
    // Every truncation and many bit flips of the compressed file: an error or (a flip the
    // gzip checks cannot see, in the header's unchecked fields) a recording, never a panic.
    for n in 0..file.len() {
        assert!(Recording::from_bytes(&file[..n]).is_err(), "cut at {n}");
    }
    let mut rng = 0x1234_5678u64;
    for _ in 0..500 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let mut bad = file.clone();
        let at = (rng % bad.len() as u64) as usize;
        bad[at] ^= 1 << (rng >> 61);
        let _ = Recording::from_bytes(&bad);
    }
    // The decompressed stream: truncations, flips and junk, all errors or recordings.
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&file[..]), &mut raw).unwrap();
    for n in 0..raw.len() {
        if let Ok(r) = Recording::from_raw(&raw[..n]) {
            assert!(r.frames.len() < 41);
        }
    }
    for k in 0..3000 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let mut bad = raw.clone();
        let at = (rng % bad.len() as u64) as usize;
        bad[at] ^= 1 << (rng >> 61);
        if k % 2 == 0 {
            bad[(rng >> 20) as usize % raw.len()] = (rng >> 40) as u8;
        }
        let _ = Recording::from_raw(&bad);
    }
    let mut bad = raw.clone();
    bad[0] = b'X';
    assert!(Recording::from_raw(&bad)
        .unwrap_err()
        .to_string()
        .contains("magic"));
    let mut bad = raw.clone();
    bad[4] = 9;
    assert!(Recording::from_raw(&bad)
        .unwrap_err()
        .to_string()
        .contains("version 9"));
    // A flipped low bit of a pose field in frame 30: the pose hash check names the frame.
    let mut at = 28;
    let mut frame = -1;
    while at < raw.len() {
        let len = u32::from_le_bytes(raw[at + 1..at + 5].try_into().unwrap()) as usize;
        if raw[at] == 3 {
            frame += 1;
            if frame == 30 {
                break;
            }
        }
        at += 5 + len;
    }
    let mut bad = raw.clone();
    bad[at + 5 + 20 + 4 + 4 + 1] ^= 0x10;
    let e = Recording::from_raw(&bad).unwrap_err().to_string();
    assert!(e.contains("frame 30: the poses decode to pose hash"), "{e}");
}
