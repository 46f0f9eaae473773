//! NaN quarantine: a body whose state a step makes non-finite (here a contact modifier
//! asking for a conveyor speed beyond what f32 holds, with unbounded friction) is put back
//! at rest where it was, reported, and the rest of the world steps on with finite state,
//! the same at 1 and 2 threads.

mod common;

use common::{ground_plane, world, DT};
use impetus::{BodyDef, JointDef, JointKind, ShapeDef, Vec3, World};

fn scene(workers: usize) -> (World, Vec<impetus::BodyId>) {
    let mut w = world(Vec3::new(0.0, -9.81, 0.0), workers);
    ground_plane(&mut w);
    let mut ids = Vec::new();
    for k in 0..30 {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new((k % 6) as f32 * 1.2, 0.5 + (k / 6) as f32 * 1.01, 0.0),
                ..Default::default()
            })
            .unwrap();
        let mut shape = ShapeDef::cuboid(Vec3::splat(0.5));
        shape.enable_contact_modifier = k == 0;
        w.add_shape(b, &shape).unwrap();
        ids.push(b);
    }
    w.set_contact_modifier(Some(Box::new(|_, s| {
        s.friction = f32::MAX;
        s.static_friction = f32::MAX;
        s.tangent_velocity = Vec3::new(f32::MAX, 0.0, f32::MAX);
    })));
    (w, ids)
}

#[test]
fn a_non_finite_body_is_quarantined_and_the_world_steps_on() {
    let (mut w, ids) = scene(1);
    let mut quarantined = Vec::new();
    let mut hashes = Vec::new();
    for step in 0..240 {
        w.step(DT).unwrap();
        quarantined.extend(w.quarantine_events().iter().map(|&b| (step, b)));
        for &b in &ids {
            let (p, v) = (
                w.body_position(b).unwrap(),
                w.body_linear_velocity(b).unwrap(),
            );
            assert!(
                p.is_finite() && v.is_finite(),
                "step {step}: body {b:?} at {p}, {v}"
            );
        }
        hashes.push(w.state_hash());
    }
    println!("quarantined: {} times, bodies {:?}", quarantined.len(), {
        let mut b: Vec<u32> = quarantined.iter().map(|q| q.1.index).collect();
        b.dedup();
        b
    });
    assert!(
        quarantined.iter().any(|q| q.1 == ids[0]),
        "the modified box goes non-finite and is quarantined"
    );
    // The far end of the row is untouched by the modified box and keeps standing.
    let far = ids[5];
    assert!(!quarantined.iter().any(|q| q.1 == far));
    assert!((w.body_position(far).unwrap().y - 0.5).abs() < 0.05);
    // The same at 2 threads.
    let (mut two, _) = scene(2);
    for (step, h) in hashes.iter().enumerate() {
        two.step(DT).unwrap();
        assert_eq!(two.state_hash(), *h, "step {step} at 2 threads");
    }
}

/// A quarantined body's joints drop their impulses too: with a ball joint from the
/// modified box to its neighbour (its batch kept from step to step), the world saved right
/// after a quarantine (the joint's impulse zero) and restored steps on exactly as the world
/// that was not restored.
#[test]
fn a_quarantined_bodys_joints_drop_their_impulses() {
    let (mut w, ids) = scene(1);
    let (a, b) = (ids[0], ids[1]);
    let (xa, xb) = (w.body_transform(a).unwrap(), w.body_transform(b).unwrap());
    let anchor = (xa.p + xb.p) * 0.5;
    let def = JointDef::at_world(JointKind::Ball, a, &xa, b, &xb, anchor, Vec3::Z);
    let joint = w.create_joint(&def).unwrap();
    let mut state = Vec::new();
    for step in 0..240 {
        w.step(DT).unwrap();
        if w.quarantine_events().contains(&a) {
            assert_eq!(w.joint_reaction_force(joint).unwrap(), Vec3::ZERO);
            w.save_state(&mut state);
            break;
        }
        assert!(step < 239, "the modified box is quarantined");
    }
    let mut hashes = Vec::new();
    for _ in 0..30 {
        w.step(DT).unwrap();
        hashes.push(w.state_hash());
    }
    w.restore_state(&state).unwrap();
    for (step, h) in hashes.iter().enumerate() {
        w.step(DT).unwrap();
        assert_eq!(w.state_hash(), *h, "step {step} after the restore");
    }
}
