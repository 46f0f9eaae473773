//! Sensor, hit and body-move events: sensors report each visitor once on entry and once
//! on exit and push nothing, hits carry the impact speed, the opt-in flags are honoured,
//! moved bodies are listed with their poses, and every list is the same for 1, 2 and 4
//! threads.

mod common;

use common::DT;
use impetus::{BodyDef, BodyId, BodyType, ShapeDef, ShapeId, Vec3, World};

const G: f32 = 10.0;

fn world(threads: usize) -> World {
    let mut w = common::world(Vec3::new(0.0, -G, 0.0), threads);
    common::ground_plane(&mut w);
    w
}

fn fixed(w: &mut World, position: Vec3) -> BodyId {
    w.create_body(&BodyDef {
        body_type: BodyType::Static,
        position,
        ..Default::default()
    })
    .unwrap()
}

fn ball(w: &mut World, position: Vec3, def: ShapeDef) -> (BodyId, ShapeId) {
    let b = w
        .create_body(&BodyDef {
            position,
            ..Default::default()
        })
        .unwrap();
    (b, w.add_shape(b, &def).unwrap())
}

/// A 1 m thick static sensor slab at y in [2, 3], and a ball dropped through it.
#[test]
fn a_sensor_reports_entry_and_exit_once_and_pushes_nothing() {
    let mut w = world(1);
    let slab = fixed(&mut w, Vec3::new(0.0, 2.5, 0.0));
    let sensor = w
        .add_shape(slab, &ShapeDef::cuboid(Vec3::new(2.0, 0.5, 2.0)).sensor())
        .unwrap();
    let (b, s) = ball(&mut w, Vec3::new(0.0, 5.0, 0.0), ShapeDef::sphere(0.25));
    // A shape that opts out and another sensor are not detected.
    let (_, hidden) = ball(
        &mut w,
        Vec3::new(1.0, 5.0, 0.0),
        ShapeDef {
            enable_sensor_events: false,
            ..ShapeDef::sphere(0.25)
        },
    );
    let (_, other_sensor) = ball(
        &mut w,
        Vec3::new(-1.0, 5.0, 0.0),
        ShapeDef::sphere(0.25).sensor(),
    );
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    for step in 0..180 {
        w.step(DT).unwrap();
        // (The falling sensor ball detects the ground plane: only the slab is checked.)
        for e in w
            .sensor_begin_events()
            .iter()
            .filter(|e| e.sensor == sensor)
        {
            begins.push((step, *e));
        }
        for e in w.sensor_end_events().iter().filter(|e| e.sensor == sensor) {
            ends.push((step, *e));
        }
        // Nothing touches the sensor as a contact.
        assert!(w
            .contacts()
            .all(|c| c.shape_a != sensor && c.shape_b != sensor));
    }
    assert_eq!(begins.len(), 1, "{begins:?}");
    assert_eq!(ends.len(), 1, "{ends:?}");
    let (enter, e) = begins[0];
    assert_eq!(
        (e.sensor, e.visitor, e.sensor_body, e.visitor_body),
        (sensor, s, slab, b)
    );
    let (exit, _) = ends[0];
    // Free fall from 5 m: the ball's bottom (4.75) reaches y = 3 after sqrt(2 * 1.75 / g)
    // and its top (5.25) leaves y = 2 after sqrt(2 * 3.25 / g).
    let t_in = (2.0 * 1.75 / G).sqrt() / DT;
    let t_out = (2.0 * 3.25 / G).sqrt() / DT;
    assert!(
        (enter as f32 - t_in).abs() <= 2.0,
        "entered at step {enter}, expected {t_in}"
    );
    assert!(
        (exit as f32 - t_out).abs() <= 2.0,
        "left at step {exit}, expected {t_out}"
    );
    // It fell through onto the ground.
    assert!((w.body_position(b).unwrap().y - 0.25).abs() < 0.02);
    assert!(begins
        .iter()
        .all(|(_, e)| e.visitor != hidden && e.visitor != other_sensor));
}

#[test]
fn removing_a_visitor_inside_a_sensor_ends_its_visit() {
    let mut w = world(1);
    let slab = fixed(&mut w, Vec3::new(0.0, 1.0, 0.0));
    w.add_shape(slab, &ShapeDef::cuboid(Vec3::splat(3.0)).sensor())
        .unwrap();
    let (b, s) = ball(&mut w, Vec3::new(0.0, 0.5, 0.0), ShapeDef::sphere(0.25));
    w.step(DT).unwrap();
    assert_eq!(w.sensor_begin_events().len(), 1);
    w.remove_body(b).unwrap();
    w.step(DT).unwrap();
    let ends = w.sensor_end_events();
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].visitor.index, s.index);
}

/// A ball dropped from height h hits the ground at sqrt(2 g h); a slow one makes no hit.
#[test]
fn hit_events_carry_the_impact_speed() {
    let mut w = world(1);
    let h = 3.0;
    let (fast, fast_shape) = ball(
        &mut w,
        Vec3::new(0.0, h + 0.25, 0.0),
        ShapeDef::sphere(0.25).with_hit_events(),
    );
    // Dropped from 2 cm: 0.63 m/s, under the 1 m/s threshold.
    let (_, slow_shape) = ball(
        &mut w,
        Vec3::new(2.0, 0.27, 0.0),
        ShapeDef::sphere(0.25).with_hit_events(),
    );
    // Hit events off: no record however hard it lands.
    let (_, quiet_shape) = ball(
        &mut w,
        Vec3::new(-2.0, h + 0.25, 0.0),
        ShapeDef::sphere(0.25),
    );
    let mut hits = Vec::new();
    for _ in 0..120 {
        w.step(DT).unwrap();
        hits.extend_from_slice(w.contact_hit_events());
    }
    let involves = |s: ShapeId| {
        hits.iter()
            .filter(|e| e.touch.shape_a == s || e.touch.shape_b == s)
            .count()
    };
    assert_eq!(involves(slow_shape), 0);
    assert_eq!(involves(quiet_shape), 0);
    assert_eq!(involves(fast_shape), 1, "{hits:?}");
    let hit = hits[0];
    assert_eq!(
        hit.touch.body_b.index.max(hit.touch.body_a.index),
        fast.index
    );
    let expected = (2.0 * G * h).sqrt();
    assert!(
        (hit.approach_speed - expected).abs() < 0.05 * expected,
        "approach {} m/s, closed form {expected}",
        hit.approach_speed
    );
    assert!(hit.point.y.abs() < 0.05, "hit at the ground: {}", hit.point);
    assert!((hit.normal.y.abs() - 1.0).abs() < 1e-3);
}

#[test]
fn contact_events_are_opt_in_per_shape() {
    let mut w = world(1);
    // The ground (enabled by default) publishes; make a pair where neither side does.
    let top = fixed(&mut w, Vec3::new(10.0, 0.5, 0.0));
    w.add_shape(
        top,
        &ShapeDef {
            enable_contact_events: false,
            ..ShapeDef::cuboid(Vec3::splat(0.5))
        },
    )
    .unwrap();
    let (quiet, quiet_shape) = ball(
        &mut w,
        Vec3::new(10.0, 2.0, 0.0),
        ShapeDef {
            enable_contact_events: false,
            ..ShapeDef::sphere(0.25)
        },
    );
    let mut begun = Vec::new();
    for _ in 0..90 {
        w.step(DT).unwrap();
        begun.extend_from_slice(w.contact_begin_events());
    }
    assert!(begun
        .iter()
        .all(|e| e.shape_a != quiet_shape && e.shape_b != quiet_shape));
    // It still collides: it rests on the box.
    assert!((w.body_position(quiet).unwrap().y - 1.25).abs() < 0.02);
}

#[test]
fn moved_bodies_are_listed_with_their_poses() {
    let mut w = world(1);
    let (a, _) = ball(&mut w, Vec3::new(0.0, 1.0, 0.0), ShapeDef::sphere(0.25));
    let (b, _) = ball(&mut w, Vec3::new(3.0, 0.25, 0.0), ShapeDef::sphere(0.25));
    w.step(DT).unwrap();
    let moves = w.body_move_events();
    assert_eq!(moves.iter().map(|m| m.body).collect::<Vec<_>>(), vec![a, b]);
    for m in moves {
        assert_eq!(m.transform, w.body_transform(m.body).unwrap());
    }
    // Both come to rest; each is flagged once when it falls asleep, then not listed.
    let mut fell = Vec::new();
    for _ in 0..300 {
        w.step(DT).unwrap();
        fell.extend(
            w.body_move_events()
                .iter()
                .filter(|m| m.fell_asleep)
                .map(|m| m.body),
        );
    }
    fell.sort();
    assert_eq!(fell, vec![a, b]);
    assert!(w.body_move_events().is_empty());
}

#[test]
fn event_lists_do_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        let mut w = world(threads);
        let slab = fixed(&mut w, Vec3::new(0.0, 3.0, 0.0));
        w.add_shape(slab, &ShapeDef::cuboid(Vec3::new(6.0, 0.5, 6.0)).sensor())
            .unwrap();
        for i in 0..200 {
            let p = Vec3::new(
                (i % 10) as f32 - 4.5,
                5.0 + (i / 100) as f32,
                ((i / 10) % 10) as f32 - 4.5,
            );
            ball(&mut w, p, ShapeDef::sphere(0.3).with_hit_events());
        }
        let mut log = Vec::new();
        for _ in 0..150 {
            w.step(DT).unwrap();
            log.push((
                w.sensor_begin_events().to_vec(),
                w.sensor_end_events().to_vec(),
                w.contact_hit_events()
                    .iter()
                    .map(|h| (h.touch, h.approach_speed.to_bits()))
                    .collect::<Vec<_>>(),
                w.body_move_events()
                    .iter()
                    .map(|m| (m.body, m.fell_asleep))
                    .collect::<Vec<_>>(),
            ));
        }
        let total: usize = log.iter().map(|l| l.0.len() + l.2.len()).sum();
        (log, total)
    };
    let one = run(1);
    assert!(one.1 > 300, "sensor and hit events happened: {}", one.1);
    assert!(one == run(2) && one == run(4));
}

/// A kinematic body of `shape` at `x0` along x moving at `speed` m/s (velocity set once).
fn kinematic(w: &mut World, x0: f32, speed: f32, shape: ShapeDef) -> (BodyId, ShapeId) {
    let b = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(x0, 1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let s = w.add_shape(b, &shape).unwrap();
    w.set_body_linear_velocity(b, Vec3::new(speed, 0.0, 0.0))
        .unwrap();
    (b, s)
}

/// Steps `w` `steps` times; the sensor begin and end events as (step, sensor, visitor).
#[allow(clippy::type_complexity)]
fn sensor_log(
    w: &mut World,
    steps: usize,
) -> (
    Vec<(usize, ShapeId, ShapeId)>,
    Vec<(usize, ShapeId, ShapeId)>,
) {
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    for step in 1..=steps {
        w.step(DT).unwrap();
        begins.extend(
            w.sensor_begin_events()
                .iter()
                .map(|e| (step, e.sensor, e.visitor)),
        );
        ends.extend(
            w.sensor_end_events()
                .iter()
                .map(|e| (step, e.sensor, e.visitor)),
        );
    }
    (begins, ends)
}

/// The steps whose events report a box of half width `half`, starting at `x0` and moving
/// at `speed`, entering and leaving the slab |x| <= `slab`: the overlap begins (ends)
/// during step `ceil(t / DT)`, and the narrowphase, which runs at the start of a step,
/// reports it in the next one.
fn crossing(x0: f32, speed: f32, half: f32, slab: f32) -> (f32, f32) {
    let t_in = (-slab - half - x0) / speed;
    let t_out = (slab + half - x0) / speed;
    ((t_in / DT).ceil() + 1.0, (t_out / DT).ceil() + 1.0)
}

/// Jolt's SensorTests "KinematicVsSensor": a kinematic box driven through a static
/// sensor enters and leaves it once, when their bounds say, and is not pushed.
#[test]
fn a_kinematic_body_triggers_a_static_sensor() {
    for threads in [1, 2] {
        let mut w = world(threads);
        let slab = fixed(&mut w, Vec3::new(0.0, 1.0, 0.0));
        let sensor = w
            .add_shape(slab, &ShapeDef::cuboid(Vec3::new(0.5, 2.0, 2.0)).sensor())
            .unwrap();
        let (b, s) = kinematic(&mut w, -4.0, 2.0, ShapeDef::cuboid(Vec3::splat(0.25)));
        let (begins, ends) = sensor_log(&mut w, 300);
        assert_eq!(begins.len(), 1, "{begins:?}");
        assert_eq!(ends.len(), 1, "{ends:?}");
        assert_eq!((begins[0].1, begins[0].2), (sensor, s));
        assert_eq!((ends[0].1, ends[0].2), (sensor, s));
        let (t_in, t_out) = crossing(-4.0, 2.0, 0.25, 0.5);
        assert!(
            (begins[0].0 as f32 - t_in).abs() <= 1.0,
            "entered at {}, expected {t_in}",
            begins[0].0
        );
        assert!(
            (ends[0].0 as f32 - t_out).abs() <= 1.0,
            "left at {}, expected {t_out}",
            ends[0].0
        );
        // Sensors push nothing: the box kept its speed and line.
        let v = w.body_linear_velocity(b).unwrap();
        assert_eq!(v, Vec3::new(2.0, 0.0, 0.0));
        assert!((w.body_position(b).unwrap().x - (-4.0 + 2.0 * 300.0 * DT)).abs() < 1e-3);
    }
}

/// A kinematic sensor swept over a static box and a kinematic one (standing still) sees
/// each enter and leave once; a static box outside its filter is not seen.
#[test]
fn a_kinematic_sensor_sees_static_and_kinematic_shapes() {
    let mut w = world(1);
    let still = fixed(&mut w, Vec3::new(0.0, 1.0, 0.0));
    let a = w
        .add_shape(still, &ShapeDef::cuboid(Vec3::splat(0.25)))
        .unwrap();
    let parked = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(3.0, 1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let k = w
        .add_shape(parked, &ShapeDef::cuboid(Vec3::splat(0.25)))
        .unwrap();
    let hidden_body = fixed(&mut w, Vec3::new(-2.0, 1.0, 0.0));
    let mut hidden_def = ShapeDef::cuboid(Vec3::splat(0.25));
    hidden_def.filter.category = 2;
    hidden_def.filter.mask = !1;
    w.add_shape(hidden_body, &hidden_def).unwrap();
    let (_, sensor) = kinematic(
        &mut w,
        -4.0,
        2.0,
        ShapeDef::cuboid(Vec3::new(0.5, 0.5, 0.5)).sensor(),
    );
    let (begins, ends) = sensor_log(&mut w, 300);
    let seen = |log: &[(usize, ShapeId, ShapeId)], v: ShapeId| {
        log.iter()
            .filter(|e| e.1 == sensor && e.2 == v)
            .map(|e| e.0)
            .collect::<Vec<_>>()
    };
    for (visitor, x) in [(a, 0.0), (k, 3.0)] {
        let (b, e) = (seen(&begins, visitor), seen(&ends, visitor));
        assert_eq!((b.len(), e.len()), (1, 1), "{begins:?} {ends:?}");
        let (t_in, t_out) = crossing(-4.0 - x, 2.0, 0.5, 0.25);
        assert!(
            (b[0] as f32 - t_in).abs() <= 1.0,
            "{visitor:?} in at {}",
            b[0]
        );
        assert!(
            (e[0] as f32 - t_out).abs() <= 1.0,
            "{visitor:?} out at {}",
            e[0]
        );
    }
    // The ground plane is static and overlaps nothing; the filtered box is never seen.
    assert_eq!(begins.len(), 2, "{begins:?}");
    assert_eq!(ends.len(), 2, "{ends:?}");
}
