//! Deep overlaps: the manifold of two convex shapes that overlap deeply carries the
//! minimum translation that separates them.
//!
//! The penetration depth of convex shapes A and B is the least distance B must move to
//! clear A, `min over unit d of h_A(d) + h_B(−d)` (`h` the support function). Every convex
//! shape here is a core (a point, a segment, a box, a hull or a triangle) swept by a radius,
//! so the depth is the cores' depth plus the radii; when the cores are apart, their closest
//! points give it exactly (closed forms, or GJK in `gjk.rs`). When the cores overlap, the
//! minimum is reached on a face of their Minkowski difference (the origin is inside that
//! convex polytope; its nearest boundary point lies on a face, along that face's normal),
//! so testing the normals of all its faces (a separating-axis test, SAT) is exact and
//! complete, and no iterative method (EPA) is needed. Those faces are, per pair of cores:
//!
//! - point–polytope (a sphere's centre inside a box or hull): the polytope's face normals
//!   (`sphere.rs`, `hull.rs`);
//! - point–point, point–segment and segment–segment (spheres and capsules): the difference
//!   is a point, a segment or a parallelogram, which has no interior: cores that meet only
//!   touch, and the closest points (`capsule.rs`, `sphere.rs`) are exact at any depth;
//! - segment–polytope (a capsule against a box, a hull or a triangle): the polytope's face
//!   normals, and `u × e` for the segment's direction `u` and every polytope edge `e` whose
//!   Gauss-map arc (the arc between its two faces' normals) crosses the great circle
//!   normal to `u`: every edge direction of a box, with both signs; a hull's edges by that
//!   test; a triangle's three edges, leaning out of it, with its face normal towards the
//!   capsule (`capsule.rs`, `hull.rs`, `triangle.rs`). No other faces exist: a face of the
//!   sum of a segment and a polytope is a polytope face swept by a segment end, or a
//!   polytope edge swept along the segment;
//! - polytope–polytope (boxes, hulls, triangles): the face normals of both and the cross
//!   products of the edge pairs whose Gauss-map arcs cross (`box_box.rs` tests all nine,
//!   `hull.rs` by the Gauss-map test, `triangle.rs` by the edges' closest points, which is
//!   complete for overlapping shapes only, so there GJK confirms the overlap first), a
//!   triangle counting both sides of its face for a hull (a box, centrally symmetric, never
//!   leaves through the far side; nor does a capsule).
//!
//! A capsule's contact is deep when its core enters the other shape (GJK reports the
//! cores' overlap, or the core pierces the triangle); a polytope pair's when its best axis
//! is deeper than [`DEEP`].
//!
//! A shallow contact keeps small biases towards face axes (an edge axis must be better by
//! the world's linear slop, the other shape's face by `FACE_SWITCH_TOL`, see `box_box.rs`
//! and `tolerance.rs`): they keep a resting manifold, and its warm start, from flipping
//! between nearly equal axes. Past [`DEEP`] no resting contact is involved and a bias of the
//! slop's size (5 mm by default) would misstate a depth of a few centimetres by ten percent,
//! so the biases shrink to [`DEEP_BIAS`] times the depth ([`bias`]). A deep face contact also keeps its deepest point: when clipping to the
//! reference face loses the incident shape's deepest vertex (or the capsule's deepest end),
//! that point is added with its face-axis separation (halfway between the incident vertex
//! and the reference face's plane, which may be beside the face), and the reduction to four
//! points keeps the deepest exactly. Then the manifold's normal is the separating direction
//! and its deepest separation the depth: moving B by `normal × depth` clears A. The tests
//! (`deep/tests.rs`) check this on 1,000 random deep overlaps of each pair kind against a
//! sampled minimum of `h_A(d) + h_B(−d)`.
//!
//! Feature ids stay those of the shallow branches (a deep contact that is already a face
//! contact keeps its points and ids); the new points have ids of their own (see each pair).
//!
//! Not changed: triangles with inactive edges (internal edges, see `triangle.rs`) replace
//! an edge's normal by the face normal at any depth, by design, and keep the side of A's
//! centre as their "up" side; only a triangle whose three edges are active is a two-sided
//! sheet that a hull may leave through the far side.

use glam::Vec3;

/// Penetration (m) beyond which a contact counts as deep: ten times the solver's allowed
/// penetration, and about three times the deepest penetration of the resting stacks
/// measured in `docs/decisions.md`.
pub(super) const DEEP: f32 = 0.05;

/// A deep contact's axis biases, as a fraction of its depth.
pub(super) const DEEP_BIAS: f32 = 2.0e-3;

/// The bias of a shallow contact, `shallow`, for a contact whose best separation is `best`:
/// unchanged when shallow, at most [`DEEP_BIAS`] times the depth when deeper than [`DEEP`].
#[inline]
pub(super) fn bias(shallow: f32, best: f32) -> f32 {
    if best < -DEEP {
        shallow.min(-best * DEEP_BIAS)
    } else {
        shallow
    }
}

/// Whether a contact whose best separation is `best` is deep.
#[inline]
pub(super) fn is_deep(best: f32) -> bool {
    best < -DEEP
}

/// The unit axis `u × e` (the normal of the face that an edge of direction `e` sweeps along
/// a segment of direction `u`); `None` when `u` and `e` are nearly parallel (the faces
/// beside the edge then cover it).
#[inline]
pub(super) fn cross_axis(u: Vec3, e: Vec3) -> Option<Vec3> {
    let c = u.cross(e);
    let len = c.length();
    (len > 1.0e-3 * u.length() * e.length()).then(|| c / len)
}

#[cfg(test)]
mod tests;
