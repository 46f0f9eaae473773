//! Helpers shared by the narrowphase tests: a seeded RNG and independent reference geometry
//! (computed in f64 from the world-space poses, sharing no code with the manifold functions).

use super::{Manifold, Tolerance};
use crate::math::Transform;
use glam::{DQuat, DVec3, Quat, Vec3};

/// The speculative distance the tests use (m).
pub const SPEC: f32 = 0.02;

/// The linear slop the tests use (m): the world's default (checked by
/// `slop_is_the_world_default`).
pub const SLOP: f32 = 0.005;

/// The tolerances the tests pass to the pair functions.
pub const TOL: Tolerance = Tolerance {
    speculative: SPEC,
    linear_slop: SLOP,
};

#[test]
fn slop_is_the_world_default() {
    assert_eq!(SLOP, crate::WorldDef::default().linear_slop);
}

/// xorshift64*: tiny, deterministic, good enough to scatter test poses.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Half extents, each uniform in [lo, hi) (drawn x, y, z).
    pub fn extents(&mut self, lo: f32, hi: f32) -> Vec3 {
        let x = self.range(lo, hi);
        let y = self.range(lo, hi);
        Vec3::new(x, y, self.range(lo, hi))
    }

    /// A unit vector (rejection sampling in the unit ball).
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l2 = v.length_squared();
            if l2 > 1.0e-4 && l2 <= 1.0 {
                return v / l2.sqrt();
            }
        }
    }

    /// A rotation, uniform enough for tests.
    pub fn rotation(&mut self) -> Quat {
        loop {
            let q = Quat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l2 = q.length_squared();
            if l2 > 1.0e-2 && l2 <= 1.0 {
                return q.normalize();
            }
        }
    }

    /// A small rigid perturbation: translation up to `dp` per axis, rotation up to `da` rad.
    pub fn jitter(&mut self, xf: &Transform, dp: f32, da: f32) -> Transform {
        let p = xf.p
            + Vec3::new(
                self.range(-dp, dp),
                self.range(-dp, dp),
                self.range(-dp, dp),
            );
        let dq = Quat::from_axis_angle(self.direction(), self.range(-da, da));
        Transform::new(p, (dq * xf.q).normalize())
    }
}

pub fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

pub fn dq(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// Signed distance from the world point `x` to the surface of a box (negative inside).
pub fn box_sdf(h: Vec3, xf: &Transform, x: Vec3) -> f64 {
    let local = dq(xf.q).conjugate() * (d3(x) - d3(xf.p));
    let q = local.abs() - d3(h);
    q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
}

/// The invariants every manifold must satisfy: at most 4 points, unique ids, a finite unit
/// normal, finite points, separations below `spec`.
pub fn check_manifold(m: &Manifold, spec: f32) {
    assert!(m.count <= 4);
    if m.count == 0 {
        return;
    }
    assert!(m.normal.is_finite() && (m.normal.length() - 1.0).abs() < 1.0e-5);
    for (k, p) in m.points().iter().enumerate() {
        assert!(p.point.is_finite() && p.separation.is_finite(), "{m:?}");
        assert!(p.separation < spec, "{m:?}");
        for q in &m.points()[k + 1..] {
            assert_ne!(p.id, q.id, "duplicate id in {m:?}");
        }
    }
}

/// The sorted ids of a manifold.
pub fn ids(m: &Manifold) -> Vec<u32> {
    let mut v: Vec<u32> = m.points().iter().map(|p| p.id).collect();
    v.sort_unstable();
    v
}

/// World axes of a box, in f64.
pub fn axes(xf: &Transform) -> [DVec3; 3] {
    let q = dq(xf.q);
    [q * DVec3::X, q * DVec3::Y, q * DVec3::Z]
}

/// Gap between the projections of the boxes on the unit direction `d`, signed so that
/// it is the gap when B lies on the +d side of A.
pub fn signed_gap(d: DVec3, ha: Vec3, xa: &Transform, hb: Vec3, xb: &Transform) -> f64 {
    let radius = |h: Vec3, ax: &[DVec3; 3]| {
        (0..3)
            .map(|k| h[k] as f64 * d.dot(ax[k]).abs())
            .sum::<f64>()
    };
    d.dot(d3(xb.p) - d3(xa.p)) - radius(ha, &axes(xa)) - radius(hb, &axes(xb))
}

pub fn gap(d: DVec3, ha: Vec3, xa: &Transform, hb: Vec3, xb: &Transform) -> f64 {
    signed_gap(d, ha, xa, hb, xb).max(signed_gap(-d, ha, xa, hb, xb))
}

/// Reference SAT separation over the 15 axes, in f64 from the world poses.
pub fn sat_reference(ha: Vec3, xa: &Transform, hb: Vec3, xb: &Transform) -> f64 {
    let (aa, ab) = (axes(xa), axes(xb));
    let mut best = f64::NEG_INFINITY;
    for k in 0..3 {
        best = best.max(gap(aa[k], ha, xa, hb, xb));
        best = best.max(gap(ab[k], ha, xa, hb, xb));
        for b_axis in ab {
            let c = aa[k].cross(b_axis);
            if c.length() > 1.0e-3 {
                best = best.max(gap(c.normalize(), ha, xa, hb, xb));
            }
        }
    }
    best
}

/// Every point is halfway between the surfaces: stepping back half the separation along
/// the normal lands on A's surface, forward on B's.
///
/// Exception: a speculative edge-edge point whose edges pass each other without crossing
/// (they are the SAT's best axis, yet not the closest features). The SAT separation is a lower bound
/// of the true distance there (the closest features are not the SAT pair), and the steps
/// land on the two boxes' supporting planes along the normal, not necessarily on the boxes.
pub fn check_on_surfaces(
    m: &Manifold,
    ha: Vec3,
    xa: &Transform,
    hb: Vec3,
    xb: &Transform,
    tol: f64,
) {
    let n = d3(m.normal);
    for p in m.points() {
        let pa = p.point - m.normal * (0.5 * p.separation);
        let pb = p.point + m.normal * (0.5 * p.separation);
        let (da, db) = (box_sdf(ha, xa, pa), box_sdf(hb, xb, pb));
        if da.abs() < tol && db.abs() < tol {
            continue;
        }
        assert!(
            m.count == 1 && p.separation > 0.0,
            "{da} {db} {p:?} in {m:?}"
        );
        let plane_a = n.dot(d3(xa.p)) + support_radius(n, ha, xa);
        let plane_b = n.dot(d3(xb.p)) - support_radius(n, hb, xb);
        assert!((n.dot(d3(pa)) - plane_a).abs() < tol, "{p:?} in {m:?}");
        assert!((n.dot(d3(pb)) - plane_b).abs() < tol, "{p:?} in {m:?}");
        assert!((plane_b - plane_a - p.separation as f64).abs() < tol);
    }
}

/// A box's projected radius on the unit direction `d`.
pub fn support_radius(d: DVec3, h: Vec3, xf: &Transform) -> f64 {
    let ax = axes(xf);
    (0..3).map(|k| h[k] as f64 * d.dot(ax[k]).abs()).sum()
}
