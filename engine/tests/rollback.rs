//! Stepper states and the physics thread's rollback: a restored stepper steps and draws on
//! exactly as the saved one did; a rewind with the same inputs replays the same frames.

mod common;

use common::{ground_plane, world, DT};
use impetus::{BodyDef, BodyId, ShapeDef, Stepper, Vec3, World};
use std::sync::Arc;

fn scene() -> (World, Vec<BodyId>) {
    let mut w = world(Vec3::new(0.0, -9.81, 0.0), 1);
    ground_plane(&mut w);
    let mut ids = Vec::new();
    for k in 0..12 {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new((k % 3) as f32 * 0.3, 0.6 + k as f32 * 1.05, 0.0),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
        ids.push(b);
    }
    (w, ids)
}

/// The input of step `k`: a push on one box every 7th step.
fn input(k: u64, w: &mut World, ids: &[BodyId]) {
    if k % 7 == 3 {
        let b = ids[(k as usize / 7) % ids.len()];
        w.apply_linear_impulse(b, Vec3::new(2.0, 0.0, 1.0), w.body_position(b).unwrap())
            .unwrap();
    }
}

#[test]
fn restored_stepper_draws_and_steps_the_same() {
    let (w, ids) = scene();
    let mut s = Stepper::new(w, 60.0).unwrap();
    // A 144 Hz display: the accumulator and alpha are mid-frame when the state is saved.
    for _ in 0..100 {
        s.advance(1.0 / 144.0).unwrap();
    }
    let mut state = Vec::new();
    s.save_state(&mut state);
    let mut reference = Vec::new();
    for _ in 0..200 {
        s.advance(1.0 / 144.0).unwrap();
        let poses: Vec<_> = s.interpolated_poses().collect();
        reference.push((s.world().state_hash(), s.alpha(), poses));
    }
    s.restore_state(&state).unwrap();
    for (k, r) in reference.iter().enumerate() {
        s.advance(1.0 / 144.0).unwrap();
        let poses: Vec<_> = s.interpolated_poses().collect();
        assert!(
            (s.world().state_hash(), s.alpha(), poses) == *r,
            "frame {k} after the restore differs"
        );
    }
    // Another rate refuses; corrupt bytes refuse; the stepper is unchanged.
    let hash = s.world().deep_hash();
    let (w2, _) = scene();
    let mut other = Stepper::new(w2, 50.0).unwrap();
    assert!(other.restore_state(&state).is_err());
    let mut bad = state.clone();
    bad[state.len() / 2] ^= 4;
    assert!(s.restore_state(&bad).is_err());
    assert!(s.restore_state(&state[..state.len() - 1]).is_err());
    assert_eq!(s.world().deep_hash(), hash);
    let _ = ids;
    let _ = DT;
}

#[test]
fn physics_thread_rewinds_and_replays() {
    let (w, ids) = scene();
    // A tick every 100 s: the thread only runs what the commands ask for.
    let thread = Stepper::new(w, 0.01).unwrap().spawn().unwrap();
    let commands = thread.commands();
    let state = Arc::new(commands.save_state().unwrap().recv().unwrap());
    let replay_ids = ids.clone();
    let (tx, rx) = crossbeam_channel::bounded(2);
    let tx2 = tx.clone();
    // The first run: 60 steps with the inputs, from the saved state.
    commands
        .rewind_to(state.clone(), 60, move |k, w| input(k, w, &replay_ids))
        .unwrap();
    commands
        .run(move |w| tx.send(w.deep_hash()).unwrap())
        .unwrap();
    let first = rx.recv().unwrap();
    // A misprediction: a different push, then the rollback with the right inputs.
    commands
        .run(|w| {
            let b = w.bodies().nth(3).unwrap();
            w.apply_linear_impulse(b, Vec3::new(0.0, 9.0, 0.0), Vec3::ZERO)
                .unwrap();
            w.step(1.0 / 100.0).unwrap();
        })
        .unwrap();
    let replay_ids = ids.clone();
    commands
        .rewind_to(state, 60, move |k, w| input(k, w, &replay_ids))
        .unwrap();
    commands
        .run(move |w| tx2.send(w.deep_hash()).unwrap())
        .unwrap();
    assert_eq!(
        rx.recv().unwrap(),
        first,
        "the replay ends where the first run did"
    );
    assert!(thread.errors().is_empty());
    let stepper = thread.stop().unwrap();
    assert_eq!(stepper.steps(), 60);
}
