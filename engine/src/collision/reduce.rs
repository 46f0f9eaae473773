//! Manifold reduction: choose at most four of a face contact's candidate points.
//!
//! Following Gregorius (GDC 2015, "Robust Contact Creation for Physics Simulations"): keep the
//! deepest point (it carries the penetration), then the point farthest from it, then the one
//! spanning the largest triangle with those two, then the one adding the most area outside
//! that triangle. Four well-spread points hold a resting box as well as eight do, and the
//! solver's cost is per point.
//!
//! Frame-to-frame stability: candidates are scanned in a fixed order (the clipper's order,
//! which follows the features, not the geometry), and a later candidate replaces the current
//! best only when it is clearly better ([`DEPTH_TOL`], [`RELATIVE_TOL`]). Otherwise a face
//! lying flat, whose candidates are all equally deep and nearly symmetric, would pick a
//! different subset every step and lose its warm-start impulses.

use glam::Vec3;

/// One candidate contact point, in the frame of the shape that generated it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Candidate {
    /// Point halfway between the surfaces.
    pub point: Vec3,
    /// Signed surface distance along the normal (negative = penetrating), in m.
    pub separation: f32,
    /// Feature id.
    pub id: u32,
}

/// A later candidate must be at least this much deeper (m) to become the deepest point.
pub(super) const DEPTH_TOL: f32 = 1.0e-3;

/// A later candidate must beat the current best distance or area by this fraction.
const RELATIVE_TOL: f32 = 0.05;

/// True when `value` is clearly larger than `best` (see [`RELATIVE_TOL`]).
#[inline]
fn clearly_better(value: f32, best: f32) -> bool {
    value > best + RELATIVE_TOL * best.abs()
}

/// Twice the signed area of the triangle `(a, b, c)` seen along `normal`.
#[inline]
fn signed_area2(a: Vec3, b: Vec3, c: Vec3, normal: Vec3) -> f32 {
    (b - a).cross(c - a).dot(normal)
}

/// Indices (ascending, so the caller keeps the candidates' order) of at most four candidates
/// to keep, and how many of them there are. `normal` is the contact normal in the
/// candidates' frame; only its direction matters.
pub(super) fn select_four(cands: &[Candidate], normal: Vec3) -> ([usize; 4], usize) {
    select_four_tol(cands, normal, DEPTH_TOL)
}

/// [`select_four`] for a deep contact: the deepest candidate is kept whatever its rank (a
/// deep manifold's deepest point carries the penetration depth, see `deep.rs`).
pub(super) fn select_four_deep(cands: &[Candidate], normal: Vec3) -> ([usize; 4], usize) {
    select_four_tol(cands, normal, 0.0)
}

/// [`select_four`] where a later candidate becomes the deepest when it is `depth_tol` deeper.
fn select_four_tol(cands: &[Candidate], normal: Vec3, depth_tol: f32) -> ([usize; 4], usize) {
    let n = cands.len();
    if n <= 4 {
        let mut idx = [0usize; 4];
        for (k, slot) in idx.iter_mut().enumerate().take(n) {
            *slot = k;
        }
        return (idx, n);
    }

    // 1. The deepest point.
    let mut i0 = 0;
    for (k, c) in cands.iter().enumerate().skip(1) {
        if c.separation < cands[i0].separation - depth_tol {
            i0 = k;
        }
    }
    let p0 = cands[i0].point;

    // 2. The point farthest from it: together they span the patch's longest extent.
    let mut i1 = usize::MAX;
    let mut best = -1.0f32;
    for (k, c) in cands.iter().enumerate() {
        if k == i0 {
            continue;
        }
        let d2 = (c.point - p0).length_squared();
        if i1 == usize::MAX || clearly_better(d2, best) {
            i1 = k;
            best = d2;
        }
    }
    let p1 = cands[i1].point;

    // 3. The point making the largest triangle with them (either side of the line p0-p1).
    let mut i2 = usize::MAX;
    let mut best = -1.0f32;
    let mut area2 = 0.0f32;
    for (k, c) in cands.iter().enumerate() {
        if k == i0 || k == i1 {
            continue;
        }
        let a = signed_area2(p0, p1, c.point, normal);
        if i2 == usize::MAX || clearly_better(a.abs(), best) {
            i2 = k;
            best = a.abs();
            area2 = a;
        }
    }
    let p2 = cands[i2].point;

    // 4. The point adding the most area: it lies outside the triangle, beyond one of its
    // edges; the area added is that of the triangle it forms with that edge. `sigma` orients
    // the edges so that "outside" is a negative area.
    let sigma = if area2 < 0.0 { -1.0 } else { 1.0 };
    let mut i3 = usize::MAX;
    let mut best = 0.0f32;
    for (k, c) in cands.iter().enumerate() {
        if k == i0 || k == i1 || k == i2 {
            continue;
        }
        let q = c.point;
        let added = (-sigma * signed_area2(p0, p1, q, normal))
            .max(-sigma * signed_area2(p1, p2, q, normal))
            .max(-sigma * signed_area2(p2, p0, q, normal));
        if i3 == usize::MAX || clearly_better(added, best) {
            i3 = k;
            best = added;
        }
    }

    let mut idx = [i0, i1, i2, i3];
    idx.sort_unstable();
    (idx, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(x: f32, z: f32, sep: f32, id: u32) -> Candidate {
        Candidate {
            point: Vec3::new(x, 0.0, z),
            separation: sep,
            id,
        }
    }

    #[test]
    fn octagon_reduces_to_a_spread_quad_with_the_deepest_point() {
        // A regular octagon, vertex 5 the deepest.
        let mut cands = [Candidate::default(); 8];
        for (k, c) in cands.iter_mut().enumerate() {
            let a = k as f32 * std::f32::consts::FRAC_PI_4;
            *c = cand(
                a.cos(),
                a.sin(),
                if k == 5 { -0.02 } else { -0.01 },
                k as u32,
            );
        }
        let (idx, n) = select_four(&cands, Vec3::Y);
        assert_eq!(n, 4);
        assert!(idx.contains(&5));
        // The quad keeps at least 2/3 of the octagon's area (a square inscribed in it keeps 0.707).
        let pts: Vec<Vec3> = idx.iter().map(|&i| cands[i].point).collect();
        let mut area = 0.0;
        for k in 0..4 {
            area += 0.5 * signed_area2(Vec3::ZERO, pts[k], pts[(k + 1) % 4], Vec3::Y);
        }
        let octagon = 2.0 * std::f32::consts::SQRT_2;
        assert!(area.abs() > 0.66 * octagon, "area {area}");
        assert!(idx.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn few_candidates_are_kept_and_degenerate_ones_do_not_panic() {
        let cands = [cand(0.0, 0.0, 0.0, 1), cand(1.0, 0.0, 0.0, 2)];
        assert_eq!(select_four(&cands, Vec3::Y), ([0, 1, 0, 0], 2));
        // Six coincident points: any four distinct indices.
        let cands = [cand(0.5, 0.5, -0.1, 0); 6];
        let (idx, n) = select_four(&cands, Vec3::Y);
        assert_eq!(n, 4);
        assert!(idx.windows(2).all(|w| w[0] < w[1]));
    }
}
