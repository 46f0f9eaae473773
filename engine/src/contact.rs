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
/// old points over to new points with the same feature id (each old point claimed once).
pub(crate) fn update_contact(
    c: &mut Contact,
    shapes: &ShapeStore,
    bodies: &BodyStore,
    speculative: f32,
) {
    let sa = &shapes.data[c.shape_a as usize];
    let sb = &shapes.data[c.shape_b as usize];
    let bounds_overlap = sa.aabb.overlaps(&sb.aabb);
    let mut m = if bounds_overlap {
        let xa = bodies.transform(c.body_a as usize);
        let xb = bodies.transform(c.body_b as usize);
        collide(&sa.shape, &xa, &sb.shape, &xb, speculative)
    } else {
        Manifold::default()
    };
    let old = &c.manifold;
    let mut claimed = [false; MAX_POINTS];
    for p in m.points[..m.count].iter_mut() {
        for (j, o) in old.points[..old.count].iter().enumerate() {
            if !claimed[j] && o.id == p.id {
                claimed[j] = true;
                p.normal_impulse = o.normal_impulse;
                p.tangent_impulse = o.tangent_impulse;
                break;
            }
        }
    }
    c.touching = m.count > 0;
    c.manifold = m;
}

/// Whether a contact between bodies of these types takes part in the solver.
#[inline]
pub(crate) fn needs_solving(a: BodyType, b: BodyType) -> bool {
    a == BodyType::Dynamic || b == BodyType::Dynamic
}
