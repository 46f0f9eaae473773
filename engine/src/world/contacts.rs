//! The contact lifecycle: the broadphase stage, which destroys the contacts of pairs that
//! ended and creates contacts for new pairs, and how a contact is made, destroyed and
//! compacted. (The narrow phase, `narrow.rs`, updates the live ones; the midphase,
//! `midphase.rs`, the children of mesh pairs.)

use super::{ContactTouch, World};
use crate::body::BodyType;
use crate::broadphase::{pair_ids, pair_key};
use crate::collision::box_box::NO_AXIS;
use crate::collision::can_collide;
use crate::contact::{
    needs_solving, Contact, CONTACT_EVENTS, GENERAL_INERTIA, HIT_EVENTS, MODIFY, SENSOR,
};
use crate::id::NULL;
use crate::math::prefetch_head;
use crate::solver::color::NO_COLOR;

/// How many new pairs ahead the broadphase stage starts loading a pair's shapes and the
/// contact slot it will likely take (and half as many ahead, its bodies' joints).
const CREATE_AHEAD: usize = 8;

/// The bytes of a shape's data that deciding and making a contact read.
const SHAPE_HEAD: usize = 128;

impl World {
    /// The broadphase stage: sort the moved proxies, destroy the contacts of pairs that ended, create
    /// contacts for new pairs (in pair-key order), update the child contacts of convex
    /// shapes against meshes (the midphase).
    pub(crate) fn update_broadphase(&mut self) {
        self.broadphase.update(self.pool.as_deref());
        let mut ended = std::mem::take(&mut self.scratch.ended);
        ended.clear();
        ended.extend(self.broadphase.ended().iter().map(|e| e.1));
        for &contact in &ended {
            if contact != NULL {
                self.destroy_pair_contact(contact, false);
            }
        }
        self.scratch.ended = ended;
        let mut begun = std::mem::take(&mut self.scratch.begun);
        begun.clear();
        begun.extend_from_slice(self.broadphase.begun());
        for (k, &key) in begun.iter().enumerate() {
            // The new pairs' data is scattered, and found through a chain (shape, its
            // body's joint list, the joints): start loading each link of the chain for a
            // pair a few places ahead, the link before it having loaded by then, while
            // this pair is made; and the contact slot a pair will likely take.
            if let Some(&ahead) = begun.get(k + CREATE_AHEAD) {
                let (a, b) = pair_ids(ahead);
                for s in [a, b] {
                    prefetch_head(&self.shapes.data[s as usize], SHAPE_HEAD);
                }
                self.contacts.prefetch_slot(CREATE_AHEAD);
            }
            if let Some(&ahead) = begun.get(k + CREATE_AHEAD / 2) {
                let (a, b) = pair_ids(ahead);
                for s in [a, b] {
                    let body = self.shapes.data[s as usize].body as usize;
                    if let Some(list) = self.joints.of_body.get(body) {
                        for &j in list {
                            prefetch_head(&self.joints.slots[j as usize], 64);
                        }
                    }
                }
            }
            let (pa, pb) = pair_ids(key);
            if let Some(index) = self.make_pair_contact(pa, pb) {
                self.broadphase.set_begun_value(k, index);
            }
        }
        self.scratch.begun = begun;
        self.update_mesh_children(); // midphase.rs: child contacts of mesh pairs
        self.compact_contacts();
        #[cfg(feature = "validate")]
        self.check_mesh_pairs();
        self.profile.pairs = self.broadphase.pair_count();
        self.profile.grid_cells = self.broadphase.cell_count();
        self.profile.cell_size = self.broadphase.cell_size();
    }

    /// Whether `body` is dynamic with an inverse inertia that is not `k I` (see
    /// [`GENERAL_INERTIA`]).
    fn anisotropic(&self, body: u32) -> bool {
        let b = body as usize;
        self.bodies.body_type[b] == BodyType::Dynamic
            && !crate::math::isotropic(self.bodies.inv_inertia[b])
    }

    /// A contact for the shapes with slots `pa`, `pb`, or `None` when the pair cannot
    /// produce a response (kinds that never collide; no dynamic body in a solid pair, or
    /// no moving body in a sensor pair).
    pub(crate) fn new_contact(&self, pa: u32, pb: u32) -> Option<Contact> {
        let (da, db) = (
            &self.shapes.data[pa as usize],
            &self.shapes.data[pb as usize],
        );
        let (ka, kb) = (da.shape.kind(), db.shape.kind());
        // Sensors detect non-sensor shapes that let them, meshes excepted.
        let sensor = da.is_sensor || db.is_sensor;
        if sensor && (ka.is_triangles() || kb.is_triangles()) {
            return None;
        }
        if sensor
            && (da.is_sensor && db.is_sensor
                || !(da.is_sensor || da.enable_sensor_events)
                || !(db.is_sensor || db.enable_sensor_events))
        {
            return None;
        }
        // A solid pair needs a dynamic body to push; a sensor sees any body that can move
        // (kinematic doors, platforms and characters too). Two static bodies never pair.
        let (ta, tb) = (
            self.bodies.body_type[da.body as usize],
            self.bodies.body_type[db.body as usize],
        );
        let responds = if sensor {
            ta != BodyType::Static || tb != BodyType::Static
        } else {
            needs_solving(ta, tb)
        };
        if !can_collide(ka, kb)
            || !da.filter.collides_with(&db.filter)
            || self.joint_blocks(da.body, db.body)
            || !responds
        {
            return None;
        }
        if let Some(filter) = &self.pair_filter {
            let id = |s: u32| crate::id::ShapeId {
                index: s,
                generation: self.shapes.pool.generation(s as usize),
            };
            if !filter(id(pa), id(pb)) {
                return None;
            }
        }
        // Dispatch wants kind(a) <= kind(b); equal kinds keep slot order.
        let (sa, sb) = if ka <= kb { (pa, pb) } else { (pb, pa) };
        let (a, b) = (
            &self.shapes.data[sa as usize],
            &self.shapes.data[sb as usize],
        );
        Some(Contact {
            shape_a: sa,
            shape_b: sb,
            child: NULL,
            link: NULL,
            body_a: a.body,
            body_b: b.body,
            friction: (a.friction * b.friction).sqrt(),
            static_friction: (a.static_friction * b.static_friction).sqrt(),
            restitution: a.restitution.max(b.restitution),
            rolling_resistance: a.rolling.max(b.rolling),
            manifold: Default::default(),
            cache: Default::default(),
            recycled: false,
            touching: false,
            touch_changed: false,
            alive: true,
            color: NO_COLOR,
            color_sides: 0,
            separating: NO_AXIS,
            flags: if sensor { SENSOR } else { 0 }
                | if a.enable_contact_events || b.enable_contact_events {
                    CONTACT_EVENTS
                } else {
                    0
                }
                | if a.enable_hit_events || b.enable_hit_events {
                    HIT_EVENTS
                } else {
                    0
                }
                | if a.enable_contact_modifier || b.enable_contact_modifier {
                    MODIFY
                } else {
                    0
                }
                | if self.anisotropic(a.body) || self.anisotropic(b.body) {
                    GENERAL_INERTIA
                } else {
                    0
                },
        })
    }

    /// Creates the contact of broadphase pair `(pa, pb)` if the pair can respond, registers
    /// a parent with the mesh pairs, and records it as the pair's value.
    pub(crate) fn create_pair_contact(&mut self, key: u64, pa: u32, pb: u32) {
        if let Some(index) = self.make_pair_contact(pa, pb) {
            self.broadphase.set_pair_value(key, index);
        }
    }

    /// Creates the contact of shapes `pa`, `pb` if the pair can respond (registering a
    /// parent with the mesh pairs) and returns its index; the caller records it as the
    /// pair's value.
    fn make_pair_contact(&mut self, pa: u32, pb: u32) -> Option<u32> {
        let c = self.new_contact(pa, pb)?;
        let parent = self.shapes.data[c.shape_b as usize]
            .shape
            .kind()
            .is_triangles();
        let index = self.contacts.create(c);
        if parent {
            let link = self.mesh_pairs.alloc(index);
            self.contacts.contacts[index as usize].link = link;
        }
        Some(index)
    }

    /// Destroys contact `k` (a broadphase pair's, not a child): its end record if it
    /// touched (to the API list when `api`), its colour, and for a parent all its children
    /// and the aggregated end record. Returns whether it (or a child) was a solid contact
    /// that touched.
    pub(crate) fn destroy_pair_contact(&mut self, k: u32, api: bool) -> bool {
        let link = self.contacts.contacts[k as usize].link;
        let mut solid_touch = false;
        if link != NULL {
            let pair = std::mem::take(&mut self.mesh_pairs.list[link as usize]);
            for &(_, child) in &pair.children {
                solid_touch |= self.destroy_one(child, api);
            }
            if pair.touching {
                self.publish_pair_touch(k, false, api);
            }
            self.mesh_pairs.free.push(link);
        }
        solid_touch | self.destroy_one(k, api)
    }

    /// Ends and destroys one contact; returns whether it was solid and touching.
    pub(super) fn destroy_one(&mut self, k: u32, api: bool) -> bool {
        let c = &self.contacts.contacts[k as usize];
        let solid_touch = c.touching && c.flags & SENSOR == 0;
        self.end_touch(k, api);
        let c = &self.contacts.contacts[k as usize];
        self.graph
            .coloring
            .release(c.color, c.color_sides, c.body_a, c.body_b);
        self.contacts.destroy(k);
        solid_touch
    }

    /// A begin (or end) record of parent contact `k`, if it publishes events.
    pub(super) fn publish_pair_touch(&mut self, k: u32, begin: bool, api: bool) {
        let c = &self.contacts.contacts[k as usize];
        if c.flags & CONTACT_EVENTS == 0 {
            return;
        }
        let e = ContactTouch::of(c, &self.shapes.pool, &self.body_pool);
        if begin {
            self.events.touch_begin.push(e);
        } else if api {
            self.events.removed_touches.push(e);
        } else {
            self.events.touch_end.push(e);
        }
    }

    /// Compacts the contact array, telling the broadphase and the mesh pairs where the
    /// moved contacts went.
    pub(crate) fn compact_contacts(&mut self) {
        let (broadphase, pairs) = (&mut self.broadphase, &mut self.mesh_pairs);
        self.contacts.compact(|c, index| {
            if c.child == NULL {
                broadphase.set_pair_value(pair_key(c.shape_a, c.shape_b), index);
            }
            pairs.moved(c, index);
        });
    }
}
