//! The refresh of a manifold whose pair barely moved (contact recycling): its points
//! moved with their anchors instead of a new search (see [`recycle`]).

use super::Contact;
use crate::math::Transform;
use glam::{Mat3A, Vec3};
use wide::f32x4;

/// A manifold is recomputed when the relative rotation changed by more than ~10° (0.17
/// rad), even if its points moved little: `|q · q0| < cos(0.17 / 2)`. (A dot product, not
/// `angle_between`, which costs an `acos` per contact per step.)
const RECYCLE_MIN_QUAT_DOT: f32 = 0.996_39;

/// Refreshes the manifold from its anchors if B stayed close to where it was relative to A
/// when the manifold was computed; returns false (and changes nothing) otherwise.
pub(super) fn recycle(c: &mut Contact, xa: &Transform, xb: &Transform) -> bool {
    let cache = &c.cache;
    let relative = xa.inv_mul(xb);
    if relative.q.dot(cache.relative.q).abs() < RECYCLE_MIN_QUAT_DOT {
        return false;
    }
    // The points side by side, one a lane, each with the operations glam's `Mat3A *
    // Vec3A`, `+` and `dot` do for one point, in their order: the same bits as a loop over
    // the points, in a quarter of the instructions (`docs/decisions.md`).
    let m = &mut c.manifold;
    let count = m.count;
    let b = cache.anchor_b.lanes();
    // B's anchors in A's frame now and when the manifold was computed, with the two
    // relative rotations as matrices, built once for all the points.
    let now = rotate_translate(&Mat3A::from_quat(relative.q), relative.p, b);
    let then = rotate_translate(&Mat3A::from_quat(cache.relative.q), cache.relative.p, b);
    let d = [now[0] - then[0], now[1] - then[1], now[2] - then[2]];
    let drift = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let tolerance = f32x4::splat(cache.tolerance * cache.tolerance);
    let far = drift.simd_gt(tolerance).to_bitmask() as usize;
    if far & ((1 << count) - 1) != 0 {
        return false;
    }
    // Anchor freezing: the world normal and the lever arms stay as the full update left
    // them; only separations and the reported points move. Both come from the anchors in
    // A's frame, where coordinates stay small however far from the origin the pair is.
    let n = xa.inv_transform_vector(m.normal);
    let a = cache.anchor_a.lanes();
    let d = [now[0] - a[0], now[1] - a[1], now[2] - a[2]];
    let separation =
        (d[0] * f32x4::splat(n.x) + d[1] * f32x4::splat(n.y) + d[2] * f32x4::splat(n.z)).to_array();
    let half = f32x4::splat(0.5);
    let mid = [
        half * (a[0] + now[0]),
        half * (a[1] + now[1]),
        half * (a[2] + now[2]),
    ];
    let world = rotate_translate(&Mat3A::from_quat(xa.q), xa.p, mid).map(f32x4::to_array);
    for (k, point) in m.points[..count].iter_mut().enumerate() {
        point.separation = separation[k];
        point.point = Vec3::new(world[0][k], world[1][k], world[2][k]);
    }
    true
}

/// `r * v + t` for each lane's point, as glam's `Mat3A * Vec3A + Vec3A` computes it for one
/// (`(x_axis vₓ + y_axis v_y) + z_axis v_z`, then `+ t`).
#[inline(always)]
fn rotate_translate(r: &Mat3A, t: Vec3, v: [f32x4; 3]) -> [f32x4; 3] {
    let (x, y, z) = (
        Vec3::from(r.x_axis),
        Vec3::from(r.y_axis),
        Vec3::from(r.z_axis),
    );
    std::array::from_fn(|i| {
        f32x4::splat(x[i]) * v[0]
            + f32x4::splat(y[i]) * v[1]
            + f32x4::splat(z[i]) * v[2]
            + f32x4::splat(t[i])
    })
}
