//! The stack search's first question, asked before the search runs: could some body be
//! the top of a stack standing alone? And the shape tests of a support that it shares
//! with the search.

use super::{Stacks, SUPPORT_COS, TOUCH};
use crate::collision::Manifold;
use crate::contact::{Contact, TANGENT};
use crate::id::NULL;
use glam::Vec3;

/// Which body of manifold `m` it could hold up, by its normal: `Some(true)` for B (the
/// normal within 45° of `up`), `Some(false)` for A (within 45° of down), `None` for neither.
pub(super) fn above(m: &Manifold, up: Vec3) -> Option<bool> {
    let rise = m.normal.dot(up);
    if rise >= SUPPORT_COS {
        Some(true)
    } else if -rise >= SUPPORT_COS {
        Some(false)
    } else {
        None
    }
}

/// Whether contact `c` is shaped to be a support: three or four points, none apart by more
/// than [`TOUCH`], no surface velocity and no rolling resistance.
pub(super) fn flat_support(c: &Contact) -> bool {
    let points = c.manifold.points();
    !(points.len() < 3
        || c.flags & TANGENT != 0
        || c.rolling_resistance > 0.0
        || points.iter().any(|p| p.separation > TOUCH))
}

impl Stacks {
    /// Whether some awake dynamic body has exactly one contact (touching or not), and that
    /// a touching one with another dynamic body all of whose contacts touch, which could
    /// be the top's support in [`Self::build`]: the top of a stack standing alone, on the
    /// body under it (every contact of a tree standing alone is one of its edges, and edges
    /// touch; a leaf's one contact is its support). `pairs` and `touching`: the touching
    /// contacts' dense bodies and contact ids; `slot`: the solver's body slots, by dense
    /// index; `up`: against gravity.
    pub fn lonely(
        &mut self,
        pairs: &[[u32; 2]],
        touching: &[u32],
        contacts: &[Contact],
        of_body: &[u32],
        slot: &[u32],
        up: Vec3,
    ) -> bool {
        if up == Vec3::ZERO {
            return false;
        }
        // Each dense body's live contacts, read once in slot order (the dense bodies are
        // listed in it) rather than through two scattered loads for each end of each pair.
        let counts = &mut self.contacts_dense;
        counts.clear();
        counts.extend(
            slot.iter()
                .map(|&s| of_body.get(s as usize).copied().unwrap_or(0)),
        );
        // Most worlds have no top at all (a pyramid's boxes rest on two): no body with one
        // contact ends the search here, and the touching counts are made only for a pair
        // with a top.
        if !counts.contains(&1) {
            return false;
        }
        let counts = &self.contacts_dense;
        let live = |x: u32| counts[x as usize];
        let top = |a: u32, b: u32| a != NULL && b != NULL && (live(a) == 1 || live(b) == 1);
        if !pairs.iter().any(|&[a, b]| top(a, b)) {
            return false;
        }
        let touching_of = &mut self.touching_of;
        touching_of.clear();
        touching_of.resize(slot.len(), 0);
        for &[a, b] in pairs {
            for x in [a, b] {
                if x != NULL {
                    touching_of[x as usize] += 1;
                }
            }
        }
        let touching_of = &self.touching_of;
        let on =
            |top: u32, under: u32| live(top) == 1 && live(under) == touching_of[under as usize];
        // The top's one contact must be able to hold it up (read only for the pairs whose
        // counts fit: rain's falling bodies meet one another, and without this the whole
        // search ran for trees of bodies on spheres and capsules).
        let support = |id: u32, [a, b]: [u32; 2]| {
            let c = &contacts[id as usize];
            match above(&c.manifold, up) {
                Some(true) => flat_support(c) && on(b, a),
                Some(false) => flat_support(c) && on(a, b),
                None => false,
            }
        };
        pairs.iter().zip(touching).any(|(&[a, b], &id)| {
            a != NULL && b != NULL && (on(a, b) || on(b, a)) && support(id, [a, b])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::box_box::NO_AXIS;
    use crate::contact::NO_COLOR;

    /// A contact between bodies 0 and 1 whose manifold has `normal` and a point at each
    /// of `separations` (`TOUCH` is 5 mm).
    fn contact(normal: Vec3, separations: &[f32]) -> Contact {
        let mut manifold = Manifold {
            normal,
            ..Default::default()
        };
        for (k, &s) in separations.iter().enumerate() {
            manifold.push(Vec3::new(k as f32, 0.0, 0.0), s, k as u32);
        }
        Contact {
            body_a: 0,
            body_b: 1,
            alive: true,
            touching: true,
            touch_changed: false,
            recycled: false,
            color: NO_COLOR,
            color_sides: 0,
            flags: 0,
            separating: NO_AXIS,
            friction: 0.5,
            static_friction: 0.5,
            manifold,
            restitution: 0.0,
            rolling_resistance: 0.0,
            shape_a: 0,
            shape_b: 1,
            child: NULL,
            link: NULL,
            cache: Default::default(),
        }
    }

    /// The gate for two dynamic bodies (dense 0 and 1, one live contact each) touching
    /// through `c`: body 1 is the top where the normal (from A to B) points up.
    fn lonely(c: Contact) -> bool {
        Stacks::default().lonely(&[[0, 1]], &[0], &[c], &[1, 1], &[0, 1], Vec3::Y)
    }

    #[test]
    fn the_search_opens_only_for_a_top_its_contact_can_hold_up() {
        let flat = [0.0, -0.001, 0.0, 0.002];
        // A box on a box, either way up.
        assert!(lonely(contact(Vec3::Y, &flat)));
        assert!(lonely(contact(-Vec3::Y, &flat)));
        // Three points span a face too; 40° off vertical still supports.
        assert!(lonely(contact(Vec3::Y, &flat[..3])));
        let tilted = Vec3::new(40f32.to_radians().sin(), 40f32.to_radians().cos(), 0.0);
        assert!(lonely(contact(tilted, &flat)));
        // A sphere or a capsule on a box, two bodies side by side, a face not yet flat,
        // a rolling or conveyor contact: no support, so no stack to look for.
        assert!(!lonely(contact(Vec3::Y, &flat[..1])));
        assert!(!lonely(contact(Vec3::Y, &flat[..2])));
        assert!(!lonely(contact(Vec3::X, &flat)));
        let steep = Vec3::new(50f32.to_radians().sin(), 50f32.to_radians().cos(), 0.0);
        assert!(!lonely(contact(steep, &flat)));
        assert!(!lonely(contact(Vec3::Y, &[0.0, 0.0, 0.0, 0.006])));
        let mut rolling = contact(Vec3::Y, &flat);
        rolling.rolling_resistance = 0.01;
        assert!(!lonely(rolling));
        let mut conveyor = contact(Vec3::Y, &flat);
        conveyor.flags = TANGENT;
        assert!(!lonely(conveyor));
        // No gravity: nothing stands on anything.
        let c = contact(Vec3::Y, &flat);
        assert!(!Stacks::default().lonely(&[[0, 1]], &[0], &[c], &[1, 1], &[0, 1], Vec3::ZERO));
    }

    #[test]
    fn the_search_needs_the_body_under_the_top_to_touch_all_it_meets() {
        // Body 1 on body 0, and body 0 also near body 2 without touching it (a contact
        // that is live but not in the touching pairs): not a stack standing alone.
        let c = contact(Vec3::Y, &[0.0, 0.0, 0.0, 0.0]);
        let mut stacks = Stacks::default();
        assert!(!stacks.lonely(
            &[[0, 1]],
            &[0],
            std::slice::from_ref(&c),
            &[2, 1, 1],
            &[0, 1, 2],
            Vec3::Y
        ));
        assert!(stacks.lonely(&[[0, 1]], &[0], &[c], &[1, 1, 0], &[0, 1, 2], Vec3::Y));
    }
}
