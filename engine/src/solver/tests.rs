use super::*;

#[test]
fn free_rotation_keeps_momentum_and_bounds_energy() {
    // A thin box spinning about its intermediate axis with a small perturbation: it
    // flips over and over; the world momentum stays and the energy does not drift.
    let inertia = Vec3::new(1.0, 2.0, 3.0);
    let inv = inertia.recip();
    let mut w = Vec3::new(0.01, 5.0, 0.01);
    let mut q = Quat::IDENTITY;
    let state = |w: Vec3, q: Quat| {
        let l = inertia * (q.conjugate() * w);
        (q * l, 0.5 * l.dot(inv * l))
    };
    let (l0, e0) = state(w, q);
    let h = 1.0 / 240.0;
    let mut max_e = 0.0f32;
    for n in 0..24_000 {
        let body = FreeBody {
            dq: q,
            start: Quat::IDENTITY,
            w,
            inertia,
            inv_inertia: inv,
        };
        (q, w) = free_rotation(&[body; FREE_LANES], h)[0];
        let (l, e) = state(w, q);
        assert!(
            (l - l0).length() < 1e-4 * l0.length(),
            "step {n}: {l} vs {l0}"
        );
        max_e = max_e.max((e - e0).abs() / e0);
    }
    assert!(max_e < 1e-3, "energy error {max_e}");
}
