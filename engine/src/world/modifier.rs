//! The host's contact modifier: every step a contact touches, for shapes that ask for it
//! (`ShapeDef::enable_contact_modifier`), a callback may change the friction (kinetic and
//! static), the
//! restitution and the relative surface velocity the solver uses for it (conveyor belts,
//! ice patches, bouncy pads that depend on both shapes).
//!
//! The callback runs on the narrowphase workers, so it must be `Send + Sync`, and it must
//! be deterministic for the results to be. It sees the mixed values first
//! (`sqrt(μa μb)`, `max(ea, eb)`, no surface velocity). Values it sets out of range are not
//! used: a negative or non-finite friction or a restitution outside [0, 1] keeps the mixed
//! value, a non-finite velocity is dropped; the velocity's normal part is dropped too.

use super::{ContactTouch, World};
use crate::collision::ManifoldPoint;
use crate::contact::{Contact, MODIFY, TANGENT};
use crate::shape::store::ShapeStore;
use glam::Vec3;

/// What the modifier sees of a touching contact.
#[derive(Clone, Copy, Debug)]
pub struct ContactInfo<'a> {
    /// The shapes and bodies (the normal points from A to B).
    pub touch: ContactTouch,
    /// The contact normal, world space, from A to B.
    pub normal: Vec3,
    /// The manifold points.
    pub points: &'a [ManifoldPoint],
}

/// What the solver uses for a contact this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// Kinetic Coulomb friction coefficient (while sliding), >= 0.
    pub friction: f32,
    /// Static Coulomb friction coefficient (while sticking), >= 0.
    pub static_friction: f32,
    /// Coefficient of restitution in [0, 1].
    pub restitution: f32,
    /// The velocity B's surface should have relative to A's at the contact, world space
    /// (its normal part is dropped), in m/s: for a conveyor belt that is shape A with its
    /// surface moving at `u`, `u`; if the belt is shape B, `-u`. Friction drives the
    /// relative tangential velocity towards it. Default: zero.
    pub tangent_velocity: Vec3,
}

/// The host's contact modifier (see [`World::set_contact_modifier`]).
pub type ContactModifier = Box<dyn Fn(&ContactInfo<'_>, &mut ContactSettings) + Send + Sync>;

/// The mixed settings of a contact's shapes.
fn mixed(c: &Contact, shapes: &ShapeStore) -> ContactSettings {
    let (a, b) = (
        &shapes.data[c.shape_a as usize],
        &shapes.data[c.shape_b as usize],
    );
    ContactSettings {
        friction: (a.friction * b.friction).sqrt(),
        static_friction: (a.static_friction * b.static_friction).sqrt(),
        restitution: a.restitution.max(b.restitution),
        tangent_velocity: Vec3::ZERO,
    }
}

/// Runs the modifier on touching contact `c` and applies what it set; `tangent` is the
/// contact's entry of the tangent-velocity column.
pub(crate) fn modify(
    modifier: &ContactModifier,
    c: &mut Contact,
    tangent: &mut Vec3,
    info: ContactTouch,
    shapes: &ShapeStore,
) {
    let base = mixed(c, shapes);
    let mut s = base;
    modifier(
        &ContactInfo {
            touch: info,
            normal: c.manifold.normal,
            points: c.manifold.points(),
        },
        &mut s,
    );
    c.friction = if s.friction.is_finite() && s.friction >= 0.0 {
        s.friction
    } else {
        base.friction
    };
    c.static_friction = if s.static_friction.is_finite() && s.static_friction >= 0.0 {
        s.static_friction
    } else {
        base.static_friction
    };
    c.restitution = if (0.0..=1.0).contains(&s.restitution) {
        s.restitution
    } else {
        base.restitution
    };
    let n = c.manifold.normal;
    let v = s.tangent_velocity;
    *tangent = if v.is_finite() {
        v - n * n.dot(v)
    } else {
        Vec3::ZERO
    };
    if *tangent == Vec3::ZERO {
        c.flags &= !TANGENT;
    } else {
        c.flags |= TANGENT;
    }
}

impl World {
    /// Sets (or clears, with `None`) the contact modifier: called every step for each
    /// touching contact of shapes with `ShapeDef::enable_contact_modifier`, on the
    /// narrowphase workers, before the solver. Clearing it restores the mixed friction and
    /// restitution.
    pub fn set_contact_modifier(&mut self, modifier: Option<ContactModifier>) {
        self.structure += 1;
        self.contact_modifier = modifier;
        if self.contact_modifier.is_none() {
            let store = &mut self.contacts;
            for (c, t) in store.contacts.iter_mut().zip(store.tangent.iter_mut()) {
                if c.alive && c.flags & MODIFY != 0 {
                    let m = mixed(c, &self.shapes);
                    (c.friction, c.static_friction, c.restitution) =
                        (m.friction, m.static_friction, m.restitution);
                    c.flags &= !TANGENT;
                    *t = Vec3::ZERO;
                }
            }
        }
    }
}
