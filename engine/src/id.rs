//! Generational handles and the slot allocator behind them.
//!
//! An id is an index plus a generation. Removing an object bumps its slot's generation,
//! so an old id no longer matches and every call with it returns [`Error::StaleHandle`].

use crate::error::Error;
use bytemuck::{Pod, Zeroable};

/// Marks "no value" in index slots: no body, contact, shape, child or solver index.
pub(crate) const NULL: u32 = u32::MAX;

macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable, Default)]
        #[repr(C)]
        pub struct $name {
            /// Slot index.
            pub index: u32,
            /// Generation of the slot when the id was issued; never 0 for a live object.
            pub generation: u32,
        }
    };
}

/// An id is its index then its generation (images hold them in joint definitions and
/// body shape lists).
macro_rules! id_field {
    ($($name:ident),*) => {$(
        crate::codec::fields!($name { index, generation });
    )*};
}

define_id!(
    /// A rigid body of a [`World`](crate::World). Copy it freely; it stays valid until the
    /// body is removed.
    BodyId
);
define_id!(
    /// A shape attached to a body.
    ShapeId
);
define_id!(
    /// A joint between two bodies.
    JointId
);
define_id!(
    /// A particle (a point mass with a radius, see [`ParticleDef`](crate::ParticleDef)).
    ParticleId
);
define_id!(
    /// A spring or distance constraint between particles, or between a particle and a
    /// body or a fixed point (see [`SpringDef`](crate::SpringDef)).
    SpringId
);
define_id!(
    /// A soft body (see [`SoftBodyDef`](crate::SoftBodyDef)): its particles, springs,
    /// volume constraints and pressure.
    SoftBodyId
);
id_field!(BodyId, ShapeId, JointId, ParticleId, SpringId, SoftBodyId);

/// Slot bookkeeping: generations, and a free list of removed slots (reused lowest-last, LIFO,
/// so reuse order depends only on the order of API calls).
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotPool {
    generations: Vec<u32>,
    alive: Vec<bool>,
    free: Vec<u32>,
}

impl SlotPool {
    /// Takes a slot; returns (index, generation) and whether the slot is new (past the end).
    pub fn alloc(&mut self) -> (u32, u32, bool) {
        if let Some(index) = self.free.pop() {
            let i = index as usize;
            self.alive[i] = true;
            (index, self.generations[i], false)
        } else {
            let index = self.generations.len() as u32;
            self.generations.push(1);
            self.alive.push(true);
            (index, 1, true)
        }
    }

    /// Releases a live slot; its generation moves on so old ids go stale.
    pub fn release(&mut self, index: u32) {
        let i = index as usize;
        self.alive[i] = false;
        self.generations[i] = self.generations[i].wrapping_add(1).max(1);
        self.free.push(index);
    }

    /// Checks an (index, generation) pair.
    #[inline]
    pub fn check(&self, index: u32, generation: u32, kind: &'static str) -> Result<usize, Error> {
        let i = index as usize;
        if i < self.alive.len() && self.alive[i] && self.generations[i] == generation {
            Ok(i)
        } else {
            Err(Error::StaleHandle { kind })
        }
    }

    #[inline]
    pub fn is_alive(&self, index: usize) -> bool {
        self.alive[index]
    }

    #[inline]
    pub fn generation(&self, index: usize) -> u32 {
        self.generations[index]
    }

    /// Number of slots ever allocated (live or free).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.generations.len()
    }

    /// Number of live slots.
    #[inline]
    pub fn live(&self) -> usize {
        self.generations.len() - self.free.len()
    }
}

crate::codec::fields!(SlotPool {
    generations,
    alive,
    free
});

impl SlotPool {
    /// Whether the two pools hold the same slots: the same generations, the same live
    /// slots and the same free list.
    pub(crate) fn same_slots(&self, other: &SlotPool) -> bool {
        self.generations == other.generations
            && self.alive == other.alive
            && self.free == other.free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_after_release() {
        let mut p = SlotPool::default();
        let (i, g, _) = p.alloc();
        assert!(p.check(i, g, "BodyId").is_ok());
        p.release(i);
        assert_eq!(
            p.check(i, g, "BodyId"),
            Err(Error::StaleHandle { kind: "BodyId" })
        );
        let (i2, g2, fresh) = p.alloc();
        assert_eq!(i2, i);
        assert!(!fresh);
        assert_ne!(g2, g);
        assert!(p.check(i, g, "BodyId").is_err());
        assert!(p.check(99, 1, "BodyId").is_err());
    }
}
