use super::*;

/// A four-point constraint with the given tangent-plane anchors and corner impulses
/// (normal +y, tangents x and z, A static below B).
fn face(xy: [(f32, f32); MAX_POINTS], impulses: [f32; MAX_POINTS]) -> ContactConstraint {
    let (t1, t2) = (Vec3::X, Vec3::Z);
    let mut points = [ConstraintPoint::default(); MAX_POINTS];
    for (p, (&(x, y), &l)) in points.iter_mut().zip(xy.iter().zip(&impulses)) {
        p.r_a = Vec3::new(x, 0.0, y);
        p.r_b = Vec3::new(x, -0.5, y);
        p.normal_impulse = l;
    }
    let null = null_impulses(points.map(|p| (p.r_a.dot(t1), p.r_a.dot(t2))));
    let nn: f32 = null.iter().map(|v| v * v).sum();
    ContactConstraint {
        a: NULL,
        b: 0,
        contact: 0,
        normal: Vec3::Y,
        tangent: [t1, t2],
        m_a: 0.0,
        m_b: 1.0,
        i_a: Mat3::ZERO,
        i_b: Mat3::IDENTITY,
        friction: 0.5,
        rigid_bodies: true,
        center_a: Vec3::ZERO,
        center_b: Vec3::ZERO,
        friction_mass: [0.0; 3],
        friction_impulse: [0.0; 2],
        tangent_speed: [0.0; 2],
        twist_mass: 0.0,
        twist_impulse: 0.0,
        null,
        null_scale: if nn > NULL_TINY { 1.0 / nn } else { 0.0 },
        points,
        count: MAX_POINTS,
    }
}

/// Net force (along the normal) and torque on B of the corner impulses.
fn wrench(c: &ContactConstraint) -> (f32, Vec3) {
    c.points.iter().fold((0.0, Vec3::ZERO), |(f, t), p| {
        (
            f + p.normal_impulse,
            t + p.r_b.cross(p.normal_impulse * c.normal),
        )
    })
}

#[test]
fn null_impulses_exert_no_force_or_torque() {
    // An irregular quadrilateral, as box-box clipping gives for a turned box.
    let xy = [(-0.5, -0.4), (0.45, -0.5), (0.5, 0.3), (-0.35, 0.5)];
    let v = null_impulses(xy);
    let sum: f32 = v.iter().sum();
    let mx: f32 = v.iter().zip(&xy).map(|(v, p)| v * p.0).sum();
    let my: f32 = v.iter().zip(&xy).map(|(v, p)| v * p.1).sum();
    assert!(v.iter().map(|v| v * v).sum::<f32>() > 0.01, "{v:?}");
    for r in [sum, mx, my] {
        assert!(r.abs() < 1e-6, "{v:?}: {sum} {mx} {my}");
    }
}

#[test]
fn dropping_null_impulses_keeps_the_wrench_and_spreads_the_load() {
    let square = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
    // A centred load of 4 left on a diagonal (the rows' order put it there).
    let mut c = face(square, [2.0, 0.0, 2.0, 0.0]);
    let before = wrench(&c);
    drop_null_impulses(&mut c);
    let after = wrench(&c);
    assert!((before.0 - after.0).abs() < 1e-5);
    assert!((before.1 - after.1).length() < 1e-5, "{before:?} {after:?}");
    for p in &c.points {
        assert!((p.normal_impulse - 1.0).abs() < 1e-5, "{:?}", c.points);
    }
    // Off-centre: the corners stay non-negative and the wrench is kept even where
    // the least-squares spread would need a negative corner.
    let mut c = face(square, [3.0, 0.0, 0.5, 0.2]);
    let before = wrench(&c);
    drop_null_impulses(&mut c);
    let after = wrench(&c);
    assert!(c.points.iter().all(|p| p.normal_impulse >= 0.0));
    assert!((before.0 - after.0).abs() < 1e-5);
    assert!((before.1 - after.1).length() < 1e-5, "{before:?} {after:?}");
}
