//! The leads of idle contacts: how far an apart pair's bodies may yet move before an
//! update could find points, so that the narrowphase can skip the pair until then (see
//! [`Lead`]).

use super::{ContactStore, NarrowParams, GAP_SLACK};
use crate::math::Transform;

/// How far an idle contact's bodies may yet move before an update could find points, as
/// an update that found them apart left it (see [`ContactStore::lead`]). The narrowphase
/// skips the contact while
/// `ahead[a][0] + ahead[b][0] + levers[0] · ahead[a][1] + levers[1] · ahead[b][1] < reserve`,
/// where a body's `ahead` is its [`travel`](crate::body::BodyStore::travel) (distance,
/// turn) with the most it can move in the coming step added to the distance
/// (`World::collide`). The bounds it keeps are those of the update's own early ways out
/// (the bounding spheres, the gap of [`APART_BY_GAP`](super::APART_BY_GAP), the separating
/// axis of two boxes), so a skip leaves the contact where the update would have: no
/// points, and the same results to the bit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lead {
    /// The margin the update found ([`Apart::margin`]) plus both bodies' travels then,
    /// their turns times the levers.
    pub reserve: f64,
    /// [`Apart::levers`].
    pub levers: [f32; 2],
}

impl Lead {
    /// No lead: the contact is updated.
    pub const NONE: Self = Self {
        reserve: f64::NEG_INFINITY,
        levers: [0.0; 2],
    };
}

/// A pair an update found apart with a bound to spare (see [`Lead`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Apart {
    /// How much closer the pair may come (m), beyond the speculative distance and the
    /// rounding of the tests, before an update could find points: the displacements of
    /// the two bodies' centres of mass and their turns times `levers` must add up to less,
    /// the most they can move in the step included.
    pub margin: f32,
    /// How far a turn of body A, and of body B, can move what the bound measures, at most
    /// (m per rad): zero where it depends on the centres' distance alone; each shape's
    /// swing where it is the shapes' distance (a ball's turns not at all); for the
    /// separation on a face axis of one box, the other box's reach for its own turns, and
    /// that plus the centres' distance for the turns of the box whose face it is.
    pub levers: [f32; 2],
}

/// The room a [`Lead`] leaves for the rounding of the test it stands for, whose values
/// are of magnitude `scale` (m): as [`GAP_SLACK`] and the gap skip's relative slack.
#[inline]
pub(super) fn rounding(scale: f32) -> f32 {
    GAP_SLACK + 2.0e-5 * scale
}

/// [`Apart`] with `margin` and `levers`, when the margin is positive.
#[inline]
pub(super) fn apart_by(margin: f32, levers: [f32; 2]) -> Option<Apart> {
    (margin > 0.0 && levers.iter().all(|l| l.is_finite())).then_some(Apart { margin, levers })
}

/// The lead of two boxes apart by `separation` on `axis` (a face axis of either box; the
/// edge pairs' axes turn with both boxes and keep none), their centres `distance` apart
/// and their shapes reaching `reach` from them: B's vertices, in A's frame (A's in B's
/// frame, for B's faces), move by at most the bound of [`Apart`] (a turn of the box whose
/// face it is carries them about its centre, some `distance` plus the other's reach away),
/// and so does their separation along the face's normal, fixed in that frame.
#[inline]
pub(super) fn axis_lead(
    separation: Option<f32>,
    axis: u8,
    relative: &Transform,
    params: &NarrowParams,
    distance: f32,
    reach: [f32; 2],
) -> Option<Apart> {
    let separation = separation.filter(|_| axis < 6)?;
    let scale = relative.p.length() + separation.abs();
    let levers = if axis < 3 {
        [distance + reach[1], reach[1]]
    } else {
        [reach[0], distance + reach[0]]
    };
    apart_by(separation - params.speculative - rounding(scale), levers)
}

impl ContactStore {
    /// Drops the leads of body slot `b`'s contacts: its shapes moved against its centre of
    /// mass (a shape added or taken away, a new mass frame) with no travel to show for it.
    pub fn forget_leads_of(&mut self, b: u32) {
        if self.of_body.get(b as usize).is_none_or(|&n| n == 0) {
            return;
        }
        for (lead, ends) in self.lead.iter_mut().zip(&self.ends) {
            if ends.contains(&b) {
                *lead = Lead::NONE;
            }
        }
    }
}
