use super::rows::arm;
use super::*;
use crate::joint::Spring;

#[test]
fn twist_angle_round_trips() {
    for k in -30..30 {
        let angle = k as f32 * 0.1;
        let q = Quat::from_rotation_z(angle);
        assert!((twist_angle(q) - angle).abs() < 1.0e-5, "{angle}");
        // A swing about x after the twist does not change the twist.
        let q2 = q * Quat::from_rotation_x(0.3);
        assert!((twist_angle(swing_twist_twist(q2)) - angle).abs() < 1.0e-4);
    }
}

#[test]
fn physical_spring_matches_frequency_form() {
    let (m, hz, zeta, h) = (2.0f32, 5.0f32, 0.7f32, 1.0 / 240.0);
    let w = 2.0 * std::f32::consts::PI * hz;
    let freq = spring_softness(&Spring::frequency(hz, zeta, 0.0), 1.0 / m, h);
    let phys = spring_softness(
        &Spring::physical(m * w * w, 2.0 * m * zeta * w, 0.0),
        1.0 / m,
        h,
    );
    assert!((freq.bias_rate - phys.bias_rate).abs() < 1.0e-3 * freq.bias_rate);
    assert!((freq.mass_scale - phys.mass_scale).abs() < 1.0e-5);
    assert!((freq.impulse_scale - phys.impulse_scale).abs() < 1.0e-5);
}

#[test]
fn arm_matches_cross_products() {
    let r = Vec3::new(0.3, -1.2, 0.7);
    let i = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0));
    let p = Vec3::new(-0.4, 0.5, 2.0);
    // Velocity at r from an impulse p at r: −r × (I (r × p)) = [r]ᵀ I [r] p.
    let direct = -r.cross(i * r.cross(p));
    assert!((arm(r, i) * p - direct).length() < 1.0e-5);
}
