//! The fixed-timestep `Stepper` (accumulator, alpha, step cap, interpolation) and the
//! `PhysicsThread` (fixed-rate thread, ordered commands, whole frames, clean stop).

mod common;

use impetus::{BodyDef, Error, PhysicsThread, Quat, ShapeDef, Stepper, Transform, Vec3, World};
use std::time::{Duration, Instant};

const HZ: f32 = 240.0;

fn world() -> World {
    common::world(Vec3::ZERO, 1)
}

fn ball(w: &mut World, position: Vec3, velocity: Vec3) -> impetus::BodyId {
    let b = w
        .create_body(&BodyDef {
            position,
            linear_velocity: velocity,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::sphere(0.25)).unwrap();
    b
}

#[test]
fn two_half_frames_make_one_step() {
    for hz in [60.0, 240.0, 144.0, 50.0] {
        let mut s = Stepper::new(world(), hz).unwrap();
        let a = s.advance(0.5 / hz).unwrap();
        assert_eq!(a.steps, 0);
        assert!((a.alpha - 0.5).abs() < 1e-4, "alpha {}", a.alpha);
        let b = s.advance(0.5 / hz).unwrap();
        assert_eq!(b.steps, 1, "hz {hz}");
        assert!(b.alpha < 1e-4, "alpha {}", b.alpha);
        assert_eq!(s.steps(), 1);
        assert_eq!(b.dropped, 0.0);
    }
}

#[test]
fn many_frames_add_up_to_whole_steps() {
    // 1000 frames at 144 Hz is 6.944 s: 416 steps at 60 Hz, alpha 0.666.
    let mut s = Stepper::new(world(), 60.0).unwrap();
    for _ in 0..1000 {
        let a = s.advance(1.0 / 144.0).unwrap();
        assert!((0.0..1.0).contains(&a.alpha));
        assert!(a.steps <= 1);
    }
    assert_eq!(s.steps(), 416);
    assert!((s.alpha() - (1000.0 / 144.0 * 60.0 - 416.0) as f32).abs() < 1e-3);
    assert_eq!(s.dropped_time(), 0.0);
}

#[test]
fn interpolated_pose_is_between_the_last_two_steps() {
    let mut w = world();
    let v = Vec3::new(2.0, 0.0, 0.0);
    let b = ball(&mut w, Vec3::ZERO, v);
    let spin = w
        .create_body(&BodyDef {
            angular_velocity: Vec3::new(0.0, 6.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let mut s = Stepper::new(w, HZ).unwrap();
    assert_eq!(s.advance(1.0 / HZ).unwrap().steps, 1);
    assert_eq!(s.advance(1.0 / HZ).unwrap().steps, 1);
    let a = s.advance(0.25 / HZ).unwrap();
    assert!((a.alpha - 0.25).abs() < 1e-4);
    let p = s.interpolated_pose(b).unwrap().p;
    let expected = v * (1.0 + 0.25) / HZ;
    assert!((p - expected).length() < 1e-5, "{p} vs {expected}");
    // Drawn a quarter of the way from the pose after step 1 to the pose after step 2.
    let q = s.interpolated_pose(spin).unwrap().q;
    let (axis, angle) = q.to_axis_angle();
    assert!((axis.y.abs() - 1.0).abs() < 1e-3);
    assert!((angle - 6.0 * 1.25 / HZ).abs() < 1e-4, "angle {angle}");
    // A body created after the last step is drawn where it is.
    let fresh = ball(s.world_mut(), Vec3::new(5.0, 0.0, 0.0), Vec3::ZERO);
    assert_eq!(
        s.interpolated_pose(fresh).unwrap().p,
        Vec3::new(5.0, 0.0, 0.0)
    );
    assert_eq!(s.interpolated_poses().count(), 3);
}

#[test]
fn the_cap_drops_the_excess_time() {
    let mut s = Stepper::new(world(), 60.0).unwrap();
    assert_eq!(s.max_steps(), 8);
    // A 20.5-step hitch: 8 steps run, 12 are dropped, half a step stays for alpha.
    let a = s.advance(20.5 / 60.0).unwrap();
    assert_eq!(a.steps, 8);
    assert!(
        (a.dropped - 12.0 / 60.0).abs() < 1e-6,
        "dropped {}",
        a.dropped
    );
    assert!((a.alpha - 0.5).abs() < 1e-4);
    assert_eq!(s.steps(), 8);
    s.set_max_steps(2).unwrap();
    let b = s.advance(3.5 / 60.0).unwrap();
    assert_eq!(b.steps, 2);
    assert!((b.dropped - 2.0 / 60.0).abs() < 1e-6);
    assert!((s.dropped_time() - 14.0 / 60.0).abs() < 1e-6);
}

#[test]
fn bad_input_is_an_error() {
    let field = |e: Error| match e {
        Error::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    assert_eq!(field(Stepper::new(world(), 0.0).err().unwrap()), "hz");
    assert_eq!(field(Stepper::new(world(), f32::NAN).err().unwrap()), "hz");
    let mut s = Stepper::new(world(), 60.0).unwrap();
    assert_eq!(field(s.advance(f32::INFINITY).unwrap_err()), "frame_dt");
    assert_eq!(field(s.advance(-1.0).unwrap_err()), "frame_dt");
    assert_eq!(field(s.set_max_steps(0).unwrap_err()), "max_steps");
    let stale = ball(s.world_mut(), Vec3::ZERO, Vec3::ZERO);
    s.world_mut().remove_body(stale).unwrap();
    assert!(matches!(
        s.interpolated_pose(stale),
        Err(Error::StaleHandle { .. })
    ));
    let physics = s.spawn().unwrap();
    let c = physics.commands();
    assert_eq!(
        field(c.set_body_linear_velocity(stale, Vec3::NAN).unwrap_err()),
        "linear_velocity"
    );
    assert_eq!(
        field(
            c.set_body_transform(
                stale,
                Transform::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))
            )
            .unwrap_err()
        ),
        "Transform::q"
    );
    // A stale id is found on the physics thread and reported back.
    c.remove_body(stale).unwrap();
    let s = physics.stop().unwrap();
    drop(s);
}

#[test]
fn thread_runs_for_two_seconds_and_stops() {
    let mut w = world();
    ball(&mut w, Vec3::ZERO, Vec3::X);
    let physics = PhysicsThread::spawn(w, HZ).unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let before_stop = physics.latest_frame();
    let stepper = physics.stop().unwrap();
    let steps = stepper.steps();
    println!(
        "2 s at {HZ} Hz: {steps} steps (frame before stop: {}), dropped {:.3} s",
        before_stop.step,
        stepper.dropped_time()
    );
    assert!(steps > 0);
    // A slow, shared machine may run fewer steps; never more than real time allows.
    assert!(steps as f32 <= 2.5 * HZ, "{steps} steps in ~2 s");
    assert!(before_stop.step <= steps);
    // `time` is `steps * dt` with `dt = 1 / hz`: equal to `steps / hz` up to rounding.
    assert!((stepper.time() - steps as f64 / HZ as f64).abs() < 1e-9);
    // The world moved by exactly the steps it ran.
    let id = stepper.world().bodies().next().unwrap();
    let x = stepper.world().body_position(id).unwrap().x;
    assert!((x - steps as f32 / HZ).abs() < 1e-3, "x {x}, steps {steps}");
}

#[test]
fn last_frame_matches_the_returned_world() {
    let mut w = world();
    let b = ball(&mut w, Vec3::ZERO, Vec3::Y);
    let physics = PhysicsThread::spawn(w, HZ).unwrap();
    let reader = physics.frame_reader();
    std::thread::sleep(Duration::from_millis(200));
    let stepper = physics.stop().unwrap();
    let last = reader.latest();
    assert_eq!(last.step, stepper.steps());
    assert_eq!(
        last.pose(b).unwrap(),
        stepper.world().body_transform(b).unwrap()
    );
}

#[test]
fn commands_apply_in_order() {
    let mut w = world();
    let b = ball(&mut w, Vec3::ZERO, Vec3::ZERO);
    let physics = PhysicsThread::spawn(w, HZ).unwrap();
    let commands = physics.commands();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for k in 1..=3 {
                commands
                    .set_body_linear_velocity(b, Vec3::new(k as f32, 0.0, 0.0))
                    .unwrap();
                // Let a step or two happen in between sometimes.
                std::thread::sleep(Duration::from_millis(3 * k));
            }
            for k in 4..=100 {
                commands
                    .set_body_linear_velocity(b, Vec3::new(0.0, k as f32, 0.0))
                    .unwrap();
            }
        });
    });
    // Create then remove: the id comes back, the removal works.
    let mut pending = commands
        .create_body(&BodyDef::default(), &[ShapeDef::cuboid(Vec3::splat(0.5))])
        .unwrap();
    let start = Instant::now();
    let created = loop {
        if let Some(r) = pending.try_get() {
            break r.unwrap();
        }
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::yield_now();
    };
    commands.remove_body(created).unwrap();
    // A bad shape fails the whole creation.
    let failed = commands
        .create_body(
            &BodyDef::default(),
            &[ShapeDef::sphere(1.0).with_density(0.0)],
        )
        .unwrap()
        .wait();
    assert!(failed.is_err());
    // Removing it again is an error reported by the thread.
    commands.remove_body(created).unwrap();
    let stepper = physics.stop().unwrap();
    let w = stepper.world();
    assert_eq!(
        w.body_linear_velocity(b).unwrap(),
        Vec3::new(0.0, 100.0, 0.0)
    );
    assert!(!w.contains_body(created));
    assert_eq!(w.body_count(), 1);
    assert!(commands.remove_body(b).is_err(), "the thread has stopped");
}

#[test]
fn command_errors_are_reported() {
    let mut w = world();
    let b = ball(&mut w, Vec3::ZERO, Vec3::ZERO);
    w.remove_body(b).unwrap();
    let physics = PhysicsThread::spawn(w, HZ).unwrap();
    physics
        .commands()
        .set_body_linear_velocity(b, Vec3::X)
        .unwrap();
    let start = Instant::now();
    let errors = loop {
        let e = physics.errors();
        if !e.is_empty() || start.elapsed() > Duration::from_secs(30) {
            break e;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(errors, vec![Error::StaleHandle { kind: "BodyId" }]);
    physics.stop().unwrap();
}

#[test]
fn frames_read_concurrently_are_whole() {
    // Bodies far apart moving at different known speeds: every body's position in a frame
    // must be the one of that frame's step count.
    let mut w = world();
    let n = 16;
    let ids: Vec<_> = (0..n)
        .map(|k| {
            ball(
                &mut w,
                Vec3::new(0.0, 10.0 * k as f32, 0.0),
                Vec3::new(1.0 + k as f32 * 0.5, 0.0, 0.0),
            )
        })
        .collect();
    let physics = PhysicsThread::spawn(w, HZ).unwrap();
    let reader = physics.frame_reader();
    let (frames, distinct) = std::thread::scope(|scope| {
        let handle = scope.spawn(|| {
            let start = Instant::now();
            let (mut frames, mut distinct, mut last) = (0u64, 0u64, 0u64);
            while start.elapsed() < Duration::from_millis(800) {
                let f = reader.latest();
                assert_eq!(f.bodies.len(), n);
                assert!(f.step >= last, "steps went back: {} < {last}", f.step);
                distinct += (f.step != last) as u64;
                last = f.step;
                let t = f.step as f32 / HZ;
                for (k, id) in ids.iter().enumerate() {
                    let x = f.pose(*id).unwrap().p.x;
                    let v = 1.0 + k as f32 * 0.5;
                    // Half a step's travel apart from the next or previous step.
                    assert!(
                        (x - v * t).abs() < 0.25 * v / HZ,
                        "body {k}: x {x} at step {} (expected {})",
                        f.step,
                        v * t
                    );
                }
                frames += 1;
            }
            (frames, distinct)
        });
        handle.join().unwrap()
    });
    println!("read {frames} frames, {distinct} distinct steps");
    assert!(frames > 0);
    physics.stop().unwrap();
}

#[test]
fn a_panic_on_the_thread_is_an_error_from_stop() {
    let physics = PhysicsThread::spawn(world(), HZ).unwrap();
    physics
        .commands()
        .run(|_| panic!("boom on the physics thread"))
        .unwrap();
    match physics.stop() {
        Err(Error::ThreadPanicked { message }) => assert!(message.contains("boom")),
        Err(other) => panic!("expected ThreadPanicked, got {other:?}"),
        Ok(_) => panic!("expected ThreadPanicked, got the world"),
    }
}

#[test]
fn drop_without_stop_shuts_down() {
    let mut w = world();
    ball(&mut w, Vec3::ZERO, Vec3::X);
    let physics = PhysicsThread::spawn(w, HZ).unwrap();
    let commands = physics.commands();
    let reader = physics.frame_reader();
    std::thread::sleep(Duration::from_millis(20));
    drop(physics);
    // Handles outliving the thread fail cleanly or keep the last frame.
    assert!(commands
        .set_body_linear_velocity(Default::default(), Vec3::X)
        .is_err());
    assert_eq!(reader.latest().bodies.len(), 1);
    // Dropping after a panic does not panic either.
    let physics = PhysicsThread::spawn(world(), HZ).unwrap();
    physics.commands().run(|_| panic!("second boom")).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    drop(physics);
}
