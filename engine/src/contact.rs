//! Persistent contacts: one per overlapping pair of shapes that can collide, holding the
//! manifold and the impulses carried from step to step.

use crate::body::{BodyStore, BodyType};
use crate::collision::{collide, Manifold, MAX_POINTS};
use crate::world::shapes::ShapeStore;

/// A contact between shapes `shape_a` and `shape_b` (slot indices, ordered so that
/// `kind(a) <= kind(b)`; the manifold normal points from A to B).
#[derive(Clone, Debug)]
pub(crate) struct Contact {
    pub shape_a: u32,
    pub shape_b: u32,
    pub body_a: u32,
    pub body_b: u32,
    /// Mixed friction coefficient: sqrt(μa μb).
    pub friction: f32,
    /// Mixed restitution: max(ea, eb).
    pub restitution: f32,
    pub manifold: Manifold,
    pub touching: bool,
    pub alive: bool,
}

/// Contacts in a slot array with a free list; iteration is in index order, so whatever
/// depends on contact order is reproducible.
#[derive(Default)]
pub(crate) struct ContactStore {
    pub contacts: Vec<Contact>,
    free: Vec<u32>,
}

impl ContactStore {
    pub fn create(&mut self, c: Contact) -> u32 {
        if let Some(i) = self.free.pop() {
            self.contacts[i as usize] = c;
            i
        } else {
            self.contacts.push(c);
            (self.contacts.len() - 1) as u32
        }
    }

    pub fn destroy(&mut self, i: u32) {
        let c = &mut self.contacts[i as usize];
        debug_assert!(c.alive);
        c.alive = false;
        c.touching = false;
        c.manifold = Manifold::default();
        self.free.push(i);
    }

    /// Number of live contacts (overlapping pairs with a contact, touching or not).
    pub fn live(&self) -> usize {
        self.contacts.len() - self.free.len()
    }
}

/// Recomputes a contact's manifold at the current poses and carries the impulses of the
/// old points (see [`carry_impulses`]).
pub(crate) fn update_contact(
    c: &mut Contact,
    shapes: &ShapeStore,
    bodies: &BodyStore,
    speculative: f32,
    match_distance: f32,
    dt: f32,
) {
    let sa = &shapes.data[c.shape_a as usize];
    let sb = &shapes.data[c.shape_b as usize];
    let bounds_overlap = sa.aabb.overlaps(&sb.aabb);
    let mut m = if bounds_overlap {
        let (ba, bb) = (c.body_a as usize, c.body_b as usize);
        // Speculative margin: the fixed distance plus how far the surfaces can approach
        // each other in this step, so a fast body is caught at the surface instead of
        // sinking in by a step's worth of motion (and a rebound keeps its height).
        let approach = (bodies.linear_velocity[bb] - bodies.linear_velocity[ba]).length()
            + bodies.angular_velocity[ba].length() * sa.shape.bounding_radius()
            + bodies.angular_velocity[bb].length() * sb.shape.bounding_radius();
        let margin = speculative + approach * dt;
        let xa = bodies.transform(ba);
        let xb = bodies.transform(bb);
        collide(&sa.shape, &xa, &sb.shape, &xb, margin)
    } else {
        Manifold::default()
    };
    carry_impulses(&c.manifold, &mut m, match_distance);
    c.touching = m.count > 0;
    c.manifold = m;
}

/// Carries warm-start impulses from `old` to `new`: first by feature id, then, for points
/// whose id is new, from the nearest unclaimed old point within `match_distance` (m).
///
/// The fallback matters for boxes stacked nearly flush: their incident corners hover on the
/// reference face's side planes, so a point's features flip between "vertex on face" and
/// "edge crosses edge" with sub-millimetre jitter. Matching by id alone then drops the
/// point's impulse every few steps and the stack rocks; the point itself barely moved.
pub(crate) fn carry_impulses(old: &Manifold, new: &mut Manifold, match_distance: f32) {
    let mut claimed = [false; MAX_POINTS];
    let mut matched = [false; MAX_POINTS];
    for (k, p) in new.points[..new.count].iter_mut().enumerate() {
        for (j, o) in old.points[..old.count].iter().enumerate() {
            if !claimed[j] && o.id == p.id {
                claimed[j] = true;
                matched[k] = true;
                p.normal_impulse = o.normal_impulse;
                p.tangent_impulse = o.tangent_impulse;
                break;
            }
        }
    }
    let max_d2 = match_distance * match_distance;
    for (k, p) in new.points[..new.count].iter_mut().enumerate() {
        if matched[k] {
            continue;
        }
        let mut best = None;
        let mut best_d2 = max_d2;
        for (j, o) in old.points[..old.count].iter().enumerate() {
            let d2 = (o.point - p.point).length_squared();
            if !claimed[j] && d2 <= best_d2 {
                best = Some(j);
                best_d2 = d2;
            }
        }
        if let Some(j) = best {
            claimed[j] = true;
            p.normal_impulse = old.points[j].normal_impulse;
            p.tangent_impulse = old.points[j].tangent_impulse;
        }
    }
}

/// Whether a contact between bodies of these types takes part in the solver.
#[inline]
pub(crate) fn needs_solving(a: BodyType, b: BodyType) -> bool {
    a == BodyType::Dynamic || b == BodyType::Dynamic
}
