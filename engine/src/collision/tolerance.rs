//! Collision tolerances: the one that comes from the world and the fixed ones.
//!
//! Scales with the world: the linear slop ([`Tolerance::linear_slop`], which the world sets
//! from `WorldDef::linear_slop`) is the penetration the solver leaves in a resting contact.
//! The separating-axis tests (box-box, hull-hull, box/hull against a triangle, capsule
//! against a box, hull or triangle when deep) use it as the bias towards face axes: an edge
//! axis (one contact point, which cannot hold a shape flat) must beat the best face axis by
//! more than the slop, so that the penetration the solver allows never flips a resting face
//! contact to an edge contact. A world with a larger slop lets shapes sink deeper, and the
//! bias must follow; hence it is passed in, not hard-coded. (Deep contacts shrink it further,
//! see `deep.rs`.)
//!
//! Fixed, in m: [`FACE_SWITCH_TOL`], [`CLIP_MISS_TOL`] and [`CLIP_SLOP`]. They absorb the
//! rounding and step-to-step jitter of nearly equal f32 quantities (the separations of two
//! face axes, the depth of a clipped face against an edge axis, a flush vertex against a
//! side plane), which depends on the shapes' size and the f32 precision, not on how far the
//! solver lets shapes sink: a world with another slop has the same noise. They are sized for
//! shapes around a metre.

/// The distances a manifold function works with, in m: passed by value to every pair
/// function (see [`collide`](super::collide)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Points whose separation is below this are kept (negative: penetrating; positive:
    /// speculative contacts, caught before the surfaces touch).
    pub speculative: f32,
    /// The world's linear slop (`WorldDef::linear_slop`): an edge axis must beat the best
    /// face axis by more than this to give the contact (less for deep contacts).
    pub linear_slop: f32,
}

/// B's face must beat A's by this much (m) to become the reference face: hysteresis between
/// two equally valid faces, so that rounding noise does not swap them from step to step.
pub(super) const FACE_SWITCH_TOL: f32 = 1.0e-3;

/// A face manifold whose deepest point is shallower than a (better) edge axis's separation
/// by more than this (m) missed the contact; the edge point replaces it.
pub(super) const CLIP_MISS_TOL: f32 = 1.0e-3;

/// Incident vertices within this distance (m) outside a side plane count as inside; the side
/// planes are pushed out by it. Boxes stacked exactly flush have incident vertices exactly on
/// the side planes: without the margin, jitter of 1e-4 m would flip them between "vertex
/// inside" and "edge crossing" every step and change the ids. The cost is contact points up
/// to this far outside the reference face, which the solver does not notice.
pub(super) const CLIP_SLOP: f32 = 5.0e-4;
