//! Box-box (placeholder until the narrowphase lands).
use super::Manifold;
use crate::math::Transform;
use crate::shape::Shape;

pub(crate) fn box_box(
    _: &Shape,
    _: &Transform,
    _: &Shape,
    _: &Transform,
    _: f32,
    _: &mut Manifold,
) {
}
