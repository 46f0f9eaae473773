//! The contact impulses a step's store leaves in their batches' lanes until the next
//! narrowphase (see [`ConstraintGraph::store`](super::ConstraintGraph::store)), taken from
//! there into the manifolds.

use super::super::contact_wide::ContactConstraintW;
use super::super::wide::W;
use crate::collision::Manifold;
use crate::id::NULL;

/// Copies the impulses the last store left in `batches` for a contact into its manifold
/// `m`, if `pending` (its entry of the contact store's `pending` column) names a lane, and
/// clears the entry (see [`ConstraintGraph::store`](super::ConstraintGraph::store)).
#[inline]
pub(crate) fn take_pending(pending: &mut u32, batches: &[ContactConstraintW], m: &mut Manifold) {
    copy_lane(std::mem::replace(pending, NULL), batches, m);
}

/// Copies lane `lane` (`batch * W + lane`, or `NULL` for none) of `batches` into `m`.
#[inline]
fn copy_lane(lane: u32, batches: &[ContactConstraintW], m: &mut Manifold) {
    if lane != NULL {
        batches[lane as usize / W].store_lane(lane as usize % W, m);
    }
}

/// A contact's manifold with the impulses the last store left pending in `batches`, for
/// readers between steps (see [`ConstraintGraph::store`](super::ConstraintGraph::store)).
pub(crate) fn pending_manifold(
    m: &Manifold,
    pending: u32,
    batches: &[ContactConstraintW],
) -> Manifold {
    let mut m = *m;
    copy_lane(pending, batches, &mut m);
    m
}
