//! Joints in a recording: the joint table names each joint's bodies, kind and frames; the
//! frames composed with the recorded body poses are where `World::debug_draw` draws them,
//! frame by frame; removed and broken joints get their removal; a file from before joints
//! reads with none; bad joint records are errors naming the fault.

use impetus::debug_draw::DebugDraw;
use impetus::{
    BodyDef, BodyType, DebugDrawOptions, JointDef, JointId, JointKind, Quat, Rgba, ShapeDef,
    Transform, Vec3,
};
use impetus_recorder::{joints_world, RecordOptions, Recorder, Recording};

/// The joint frames a debug draw gives, in call order (A then B, joint by joint).
#[derive(Default)]
struct Frames(Vec<Transform>);

impl DebugDraw for Frames {
    fn line(&mut self, _: Vec3, _: Vec3, _: Rgba) {}
    fn frame(&mut self, transform: &Transform, _: f32) {
        self.0.push(*transform);
    }
}

fn transform(pose: &[f32; 7]) -> Transform {
    Transform::new(
        Vec3::new(pose[0], pose[1], pose[2]),
        Quat::from_xyzw(pose[3], pose[4], pose[5], pose[6]),
    )
}

/// Body `b`'s pose at frame `f`: its last recorded pose at or before `f`.
fn pose_at(rec: &Recording, b: u32, f: usize) -> Transform {
    rec.frames[..=f]
        .iter()
        .rev()
        .find_map(|fr| fr.poses.iter().find(|(n, _)| *n == b).map(|(_, p)| *p))
        .map_or_else(
            || transform(&rec.bodies[b as usize].pose),
            |p| transform(&p),
        )
}

/// The chain and the hinged bar swing for 90 steps, the chain's last joint removed before
/// step 60: at every frame, each live joint's recorded frames on the recorded body poses
/// are the frames the debug draw of the world drew after that step.
#[test]
fn recorded_joint_frames_are_where_the_debug_draw_draws_them() {
    let (mut world, last_joint) = joints_world().unwrap();
    let options = DebugDrawOptions {
        shapes: false,
        joints: true,
        ..DebugDrawOptions::default()
    };
    // Per frame: the live joints (slot order, the debug draw's order) and their frames.
    let mut drawn: Vec<(Vec<JointId>, Vec<Transform>)> = Vec::new();
    let mut snapshot = |world: &impetus::World| {
        let mut frames = Frames::default();
        world.debug_draw(&mut frames, &options).unwrap();
        drawn.push((world.joints().collect(), frames.0));
    };
    let mut recorder =
        Recorder::new(Vec::new(), &world, 1.0 / 60.0, RecordOptions::default()).unwrap();
    snapshot(&world);
    for step in 1..=90 {
        if step == 60 {
            world.remove_joint(last_joint).unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
        recorder.record(&world).unwrap();
        snapshot(&world);
    }
    let rec = Recording::from_bytes(&recorder.finish().unwrap()).unwrap();

    assert_eq!(rec.joints.len(), 4);
    assert_eq!(
        rec.joints.iter().map(|j| j.kind).collect::<Vec<_>>(),
        vec![1, 0, 0, 0],
        "a hinge, then the chain's ball joints"
    );
    for (k, j) in rec.joints.iter().enumerate() {
        assert_eq!(j.first_frame, 0);
        assert_eq!(j.removed_at, if k == 3 { Some(60) } else { None });
        let def = world.joint_def(JointId {
            index: j.id_index,
            generation: j.id_generation,
        });
        assert_eq!(def.is_ok(), k != 3);
        if let Ok(def) = def {
            let a = &rec.bodies[j.body_a as usize];
            let b = &rec.bodies[j.body_b as usize];
            assert_eq!(
                (a.id_index, a.id_generation),
                (def.body_a.index, def.body_a.generation)
            );
            assert_eq!(
                (b.id_index, b.id_generation),
                (def.body_b.index, def.body_b.generation)
            );
        }
    }

    let mut compared = 0;
    for (f, (ids, frames)) in drawn.iter().enumerate() {
        assert_eq!(frames.len(), 2 * ids.len());
        let live: Vec<_> = rec
            .joints
            .iter()
            .filter(|j| j.removed_at.is_none_or(|r| f < r as usize))
            .collect();
        assert_eq!(live.len(), ids.len(), "frame {f}");
        for (k, (j, id)) in live.iter().zip(ids).enumerate() {
            assert_eq!((j.id_index, j.id_generation), (id.index, id.generation));
            for (body, local, drawn) in [
                (j.body_a, &j.frame_a, &frames[2 * k]),
                (j.body_b, &j.frame_b, &frames[2 * k + 1]),
            ] {
                let world_frame = pose_at(&rec, body, f).mul(&transform(local));
                assert!(
                    (world_frame.p - drawn.p).length() < 1e-4,
                    "frame {f}, joint {k}: {world_frame:?} vs {drawn:?}"
                );
                assert!(world_frame.q.dot(drawn.q).abs() > 0.99999);
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 2 * (4 * 60 + 3 * 31));
    // Not a still picture: the bar (a pendulum of period 2π sqrt(2 L / 3 g) = 1.6 s, 97
    // frames) hangs near the bottom a quarter period after its level release.
    let bar_tip = |f: usize| {
        let j = &rec.joints[0];
        pose_at(&rec, j.body_b, f).transform_point(Vec3::new(0.5, 0.0, 0.0))
    };
    assert!(
        bar_tip(0).y > 2.99 && bar_tip(24).y < 2.2,
        "{}",
        bar_tip(24)
    );
}

/// A joint that breaks in a step is removed from the table at that frame.
#[test]
fn a_broken_joint_is_removed() {
    let mut world = impetus::World::new(impetus::WorldDef {
        worker_count: 1,
        gravity: Vec3::new(0.0, -10.0, 0.0),
        ..Default::default()
    })
    .unwrap();
    let anchor = world
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, 3.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let weight = world
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 2.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    world
        .add_shape(weight, &ShapeDef::cuboid(Vec3::splat(0.2)))
        .unwrap();
    let (xa, xb) = (
        world.body_transform(anchor).unwrap(),
        world.body_transform(weight).unwrap(),
    );
    let mut def = JointDef::at_world(
        JointKind::Distance {
            min_length: 1.0,
            max_length: 1.0,
            spring: None,
        },
        anchor,
        &xa,
        weight,
        &xb,
        Vec3::new(0.0, 3.0, 0.0),
        Vec3::Z,
    );
    def.frame_b = Transform::IDENTITY;
    // A 64 kg weight pulls with about 10 N·s a step at 60 Hz: a 0.5 N·s rope breaks.
    def.break_impulse = 0.5;
    world.create_joint(&def).unwrap();
    let mut recorder =
        Recorder::new(Vec::new(), &world, 1.0 / 60.0, RecordOptions::default()).unwrap();
    let mut broke_at = None;
    for step in 1..=30 {
        world.step(1.0 / 60.0).unwrap();
        if broke_at.is_none() && !world.joint_break_events().is_empty() {
            broke_at = Some(step);
        }
        recorder.record(&world).unwrap();
    }
    let rec = Recording::from_bytes(&recorder.finish().unwrap()).unwrap();
    let broke_at = broke_at.expect("the rope broke");
    assert_eq!(rec.joints.len(), 1);
    assert_eq!(rec.joints[0].kind, 4);
    assert_eq!(rec.joints[0].removed_at, Some(broke_at));
    assert_eq!(
        rec.frames[broke_at as usize].events.joint_breaks.len(),
        1,
        "the break event in the same frame"
    );
}

/// The fixture from before joints reads with none; joint records naming a body not in
/// the world, an unknown kind, or the removal of a joint not in the world are errors.
#[test]
fn old_files_read_and_bad_joint_records_are_errors() {
    let dir = impetus_recorder::serve::default_viewer_dir();
    let old = Recording::read(dir.join("test/fixtures/fall.impr")).unwrap();
    assert!(old.joints.is_empty());

    let (world, _) = joints_world().unwrap();
    let mut recorder =
        Recorder::new(Vec::new(), &world, 1.0 / 60.0, RecordOptions::default()).unwrap();
    recorder.record(&world).unwrap();
    let gz = recorder.finish().unwrap();
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut raw).unwrap();
    assert_eq!(Recording::from_raw(&raw).unwrap().joints.len(), 4);

    let with = |tag: u8, payload: &[u8]| {
        let mut bytes = raw.clone();
        bytes.push(tag);
        bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        bytes.extend_from_slice(payload);
        Recording::from_raw(&bytes).unwrap_err().to_string()
    };
    let joint = |body_b: u32, kind: u8| {
        let mut p = Vec::new();
        for v in [9u32, 1, 0, body_b] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.push(kind);
        for v in [0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0].repeat(2) {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p
    };
    let e = with(7, &joint(1000, 1));
    assert!(
        e.contains("joint 4: body 1000, which is not in the world"),
        "{e}"
    );
    let e = with(7, &joint(1, 9));
    assert!(e.contains("joint 4: unknown joint kind 9"), "{e}");
    let e = with(8, &7u32.to_le_bytes());
    assert!(
        e.contains("removal of joint 7, which is not in the world"),
        "{e}"
    );
    // A well-formed joint record reads; its removal too, once.
    let mut bytes = raw.clone();
    let good = joint(1, 3);
    bytes.push(7);
    bytes.extend_from_slice(&(good.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&good);
    for _ in 0..2 {
        bytes.push(8);
        bytes.extend_from_slice(&4u32.to_le_bytes());
        bytes.extend_from_slice(&4u32.to_le_bytes());
    }
    let e = Recording::from_raw(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("removal of joint 4, which is not in the world"),
        "{e}"
    );
    bytes.truncate(bytes.len() - 9);
    let rec = Recording::from_raw(&bytes).unwrap();
    assert_eq!(rec.joints[4].kind, 3);
    assert_eq!(rec.joints[4].removed_at, Some(2));
}
