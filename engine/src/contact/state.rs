//! The encoding of contacts in a state (`world/snapshot.rs`, section `CONT`).

use super::{Contact, ContactStore, ManifoldCache, NO_COLOR};
use crate::collision::box_box::NO_AXIS;
use crate::collision::{Manifold, MAX_POINTS};
use crate::id::NULL;
use glam::Vec3;

/// A contact's head byte: its flags, and whether an [`ext`](E_COEFFICIENTS) byte follows.
const H_ALIVE: u8 = 1;
const H_TOUCHING: u8 = 2;
const H_CHANGED: u8 = 4;
const H_RECYCLED: u8 = 8;
const H_IDLE: u8 = 16;
const H_TANGENT: u8 = 32;
const H_CACHE: u8 = 64;
const H_EXT: u8 = 128;
/// The ext byte: which fields are written rather than taken from their usual values (the
/// previous live contact's coefficients, the shapes' bodies, no child or link, no colour,
/// no flags, the empty manifold). Absent when all take their usual values.
const E_COEFFICIENTS: u8 = 1;
const E_BODIES: u8 = 2;
const E_CHILD: u8 = 4;
const E_LINK: u8 = 8;
const E_COLOR: u8 = 16;
const E_FLAGS: u8 = 32;
const E_MANIFOLD: u8 = 64;

fn zero_bits(v: Vec3) -> bool {
    v.to_array().iter().all(|x| x.to_bits() == 0)
}

/// Only a valid cache is read (by recycling), so an invalid one is its flag in the head
/// byte alone; a valid one is its anchor count (anchors past the last non-zero pair are
/// zero: `fill_cache` fills one pair a manifold point), the relative pose, the anchors and
/// the tolerance.
fn put_cache(cache: &ManifoldCache, w: &mut crate::codec::Writer<'_>) {
    let n = (0..MAX_POINTS)
        .rev()
        .find(|&k| !(zero_bits(cache.anchor_a.get(k)) && zero_bits(cache.anchor_b.get(k))))
        .map_or(0, |k| k + 1);
    w.put(&(n as u8));
    w.put(&cache.relative);
    for k in 0..n {
        w.put(&cache.anchor_a.get(k));
        w.put(&cache.anchor_b.get(k));
    }
    w.put(&cache.tolerance);
}

fn get_cache(r: &mut crate::codec::Reader<'_>) -> Result<ManifoldCache, crate::error::Error> {
    let n = r.get::<u8>()? as usize;
    if n > MAX_POINTS {
        return Err(r.error("holds a contact cache with more than four anchors"));
    }
    let mut cache = ManifoldCache {
        valid: true,
        relative: r.get()?,
        ..Default::default()
    };
    for k in 0..n {
        cache.anchor_a.set(k, r.get()?);
        cache.anchor_b.set(k, r.get()?);
    }
    cache.tolerance = r.get()?;
    Ok(cache)
}

/// The four mixed coefficients' bit patterns.
fn coefficients(c: &Contact) -> [u32; 4] {
    [
        c.friction.to_bits(),
        c.static_friction.to_bits(),
        c.restitution.to_bits(),
        c.rolling_resistance.to_bits(),
    ]
}

/// Whether a manifold is the empty one (no points, zero normal and impulses, bit for bit):
/// what a contact whose shapes do not touch holds.
fn empty_manifold(m: &Manifold) -> bool {
    m.count == 0
        && zero_bits(m.normal)
        && zero_bits(m.friction_impulse)
        && m.twist_impulse.to_bits() == 0
}

/// Contacts in a state, one by one with their columns. A dead contact is its zero head byte
/// (nothing reads a dead contact before its slot is reused). A live one is its head byte
/// (flags, the idle bit, whether the tangent and the cache follow), an ext byte when any
/// field differs from its usual value (see [`E_COEFFICIENTS`]), its shapes (A as the
/// difference from the previous live contact's A, B as the difference from A, zigzag
/// varints), then the fields the ext byte names, the cache and the tangent. The body and
/// shape columns repeat the contact's own fields and are not written; bodies are written
/// only when they are not the shapes' bodies (`body_of`, a shape slot's body slot).
impl ContactStore {
    /// `manifold(k)`: contact `k`'s manifold with the impulses the last step left pending
    /// in the solver (see [`ContactStore::pending`]), which is what is written.
    pub(crate) fn put_state(
        &self,
        w: &mut crate::codec::Writer<'_>,
        manifold: impl Fn(usize) -> Manifold,
        body_of: impl Fn(u32) -> u32,
    ) {
        w.put(&(self.contacts.len() as u32));
        let mut last_coefficients = [0u32; 4];
        let mut last_shape = 0u32;
        for (k, c) in self.contacts.iter().enumerate() {
            if !c.alive {
                w.put(&0u8);
                continue;
            }
            let manifold = manifold(k);
            let tangent = self.tangent[k] != Vec3::ZERO;
            let coefficients = coefficients(c);
            let bodies = body_of(c.shape_a) != c.body_a || body_of(c.shape_b) != c.body_b;
            let ext = [
                (coefficients != last_coefficients, E_COEFFICIENTS),
                (bodies, E_BODIES),
                (c.child != NULL, E_CHILD),
                (c.link != NULL, E_LINK),
                (c.color != NO_COLOR || c.color_sides != 0, E_COLOR),
                (c.flags != 0, E_FLAGS),
                (!empty_manifold(&manifold), E_MANIFOLD),
            ]
            .iter()
            .fold(0, |bits, &(set, bit)| if set { bits | bit } else { bits });
            let head = [
                (true, H_ALIVE),
                (c.touching, H_TOUCHING),
                (c.touch_changed, H_CHANGED),
                (c.recycled, H_RECYCLED),
                (self.idle[k], H_IDLE),
                (tangent, H_TANGENT),
                (c.cache.valid, H_CACHE),
                (ext != 0, H_EXT),
            ]
            .iter()
            .fold(0, |bits, &(set, bit)| if set { bits | bit } else { bits });
            w.put(&head);
            if ext != 0 {
                w.put(&ext);
            }
            w.put(&(c.shape_a.wrapping_sub(last_shape) as i32));
            w.put(&(c.shape_b.wrapping_sub(c.shape_a) as i32));
            last_shape = c.shape_a;
            if ext & E_BODIES != 0 {
                w.put(&c.body_a);
                w.put(&c.body_b);
            }
            if ext & E_COLOR != 0 {
                w.put(&c.color);
                w.put(&c.color_sides);
            }
            if ext & E_FLAGS != 0 {
                w.put(&c.flags);
            }
            if ext & E_COEFFICIENTS != 0 {
                w.put(&c.friction);
                w.put(&c.static_friction);
                w.put(&c.restitution);
                w.put(&c.rolling_resistance);
                last_coefficients = coefficients;
            }
            if ext & E_CHILD != 0 {
                w.put(&c.child);
            }
            if ext & E_LINK != 0 {
                w.put(&c.link);
            }
            if ext & E_MANIFOLD != 0 {
                w.put(&manifold);
            }
            if c.cache.valid {
                put_cache(&c.cache, w);
            }
            if tangent {
                w.put(&self.tangent[k]);
            }
        }
        w.put(&self.free);
    }

    pub(crate) fn get_state(
        r: &mut crate::codec::Reader<'_>,
        body_of: impl Fn(u32) -> u32,
    ) -> Result<Self, crate::error::Error> {
        let n = r.count()?;
        let mut store = ContactStore::default();
        let mut last_coefficients = [0.0f32; 4];
        let mut last_shape = 0u32;
        for _ in 0..n {
            let head: u8 = r.get()?;
            let alive = head & H_ALIVE != 0;
            let mut c = Contact {
                body_a: NULL,
                body_b: NULL,
                alive,
                touching: head & H_TOUCHING != 0,
                touch_changed: head & H_CHANGED != 0,
                recycled: head & H_RECYCLED != 0,
                color: NO_COLOR,
                color_sides: 0,
                separating: NO_AXIS,
                flags: 0,
                friction: 0.0,
                static_friction: 0.0,
                restitution: 0.0,
                rolling_resistance: 0.0,
                manifold: Manifold::default(),
                shape_a: 0,
                shape_b: 0,
                child: NULL,
                link: NULL,
                cache: ManifoldCache::default(),
            };
            let mut tangent = Vec3::ZERO;
            if alive {
                let ext: u8 = if head & H_EXT != 0 { r.get()? } else { 0 };
                if head & H_EXT != 0 && (ext == 0 || ext >= 128) {
                    return Err(r.error("holds a contact with unknown field flags"));
                }
                c.shape_a = last_shape.wrapping_add(r.get::<i32>()? as u32);
                c.shape_b = c.shape_a.wrapping_add(r.get::<i32>()? as u32);
                last_shape = c.shape_a;
                if ext & E_BODIES != 0 {
                    c.body_a = r.get()?;
                    c.body_b = r.get()?;
                } else {
                    c.body_a = body_of(c.shape_a);
                    c.body_b = body_of(c.shape_b);
                }
                if ext & E_COLOR != 0 {
                    c.color = r.get()?;
                    c.color_sides = r.get()?;
                }
                if ext & E_FLAGS != 0 {
                    c.flags = r.get()?;
                }
                if ext & E_COEFFICIENTS != 0 {
                    last_coefficients = [r.get()?, r.get()?, r.get()?, r.get()?];
                }
                [
                    c.friction,
                    c.static_friction,
                    c.restitution,
                    c.rolling_resistance,
                ] = last_coefficients;
                if ext & E_CHILD != 0 {
                    c.child = r.get()?;
                }
                if ext & E_LINK != 0 {
                    c.link = r.get()?;
                }
                if ext & E_MANIFOLD != 0 {
                    c.manifold = r.get()?;
                }
                if head & H_CACHE != 0 {
                    c.cache = get_cache(r)?;
                }
                if head & H_TANGENT != 0 {
                    tangent = r.get()?;
                }
            } else if head != 0 {
                return Err(r.error("holds a dead contact with flags"));
            }
            store.ends.push(if alive {
                [c.body_a, c.body_b]
            } else {
                [NULL; 2]
            });
            store.shapes.push([c.shape_a, c.shape_b]);
            store.tangent.push(tangent);
            store.idle.push(head & H_IDLE != 0);
            store.lead.push(super::Lead::NONE);
            store.pending.push(NULL);
            crate::huge::reserve(&mut store.contacts, 1);
            store.contacts.push(c);
        }
        store.free = r.get()?;
        if store
            .free
            .iter()
            .any(|&i| store.contacts.get(i as usize).is_none_or(|c| c.alive))
        {
            return Err(r.error("lists a live contact or one past the end as free"));
        }
        Ok(store)
    }
}
