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

/// A pool is its generations, live flags and free list, and is checked on reading: the
/// columns of one length, and the free list naming each dead slot once and no live one
/// (a corrupt file is an error, never a pool whose lookups index past their columns).
impl crate::codec::Field for SlotPool {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&self.generations);
        w.put(&self.alive);
        w.put(&self.free);
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let pool = SlotPool {
            generations: r.get()?,
            alive: r.get()?,
            free: r.get()?,
        };
        if pool.alive.len() != pool.generations.len() {
            return Err(r.error("holds a slot pool whose columns differ in length"));
        }
        let dead = pool.alive.iter().filter(|&&a| !a).count();
        let mut listed = vec![false; pool.alive.len()];
        for &i in &pool.free {
            match (pool.alive.get(i as usize), listed.get_mut(i as usize)) {
                (Some(false), Some(seen)) if !*seen => *seen = true,
                _ => {
                    return Err(r.error(
                        "holds a slot pool whose free list names a live, repeated or missing slot",
                    ))
                }
            }
        }
        if pool.free.len() != dead {
            return Err(r.error("holds a slot pool with dead slots not in its free list"));
        }
        Ok(pool)
    }
}

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

#[cfg(test)]
mod pool_tests {
    use super::SlotPool;
    use crate::codec::{Reader, Writer};

    fn decode(generations: Vec<u32>, alive: Vec<bool>, free: Vec<u32>) -> bool {
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out);
        w.put(&generations);
        w.put(&alive);
        w.put(&free);
        Reader::new(&out, "image").get::<SlotPool>().is_ok()
    }

    /// The image fuzz target's crash: a pool whose live flags were shorter than its
    /// generations indexed past them in `check_joints`.
    #[test]
    fn inconsistent_pools_are_errors() {
        assert!(decode(vec![1, 2], vec![true, false], vec![1]));
        assert!(!decode(vec![1], vec![], vec![]), "columns of other lengths");
        assert!(
            !decode(vec![1, 2], vec![true, false], vec![0]),
            "a live slot free"
        );
        assert!(
            !decode(vec![1, 2], vec![true, false], vec![1, 1]),
            "a slot free twice"
        );
        assert!(
            !decode(vec![1, 2], vec![true, false], vec![5]),
            "a slot past the end"
        );
        assert!(
            !decode(vec![1, 2], vec![true, false], vec![]),
            "a dead slot not free"
        );
        let mut pool = SlotPool::default();
        pool.alloc();
        pool.alloc();
        pool.release(0);
        let mut out = Vec::new();
        Writer::new(&mut out).put(&pool);
        let back: SlotPool = Reader::new(&out, "state").get().unwrap();
        assert!(back.same_slots(&pool));
    }
}
