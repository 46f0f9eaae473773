//! Plane pairs (placeholder until the narrowphase lands).
use super::Manifold;
use crate::math::Transform;
use crate::shape::Shape;

pub(crate) fn sphere_plane(
    _: &Shape,
    _: &Transform,
    _: &Shape,
    _: &Transform,
    _: f32,
    _: &mut Manifold,
) {
}
pub(crate) fn box_plane(
    _: &Shape,
    _: &Transform,
    _: &Shape,
    _: &Transform,
    _: f32,
    _: &mut Manifold,
) {
}
