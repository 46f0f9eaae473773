//! Saving and restoring the state of a world, for rollback and re-simulation.
//!
//! [`World::save_state`] writes what a step changes; [`World::restore_state`] puts it back,
//! and the world then steps on exactly as it did after the save (same state hash at every
//! later step, for any thread count and lane width). What a state holds:
//!
//! - `HEAD`: the structure counter, the step counter and the last step's `dt`;
//! - `POOL`: the body, shape and joint slots (generations, live slots, free lists): a state
//!   only restores into a world with the same bodies, shapes and joints;
//! - `BODY`: every live body's pose, velocities, pending force and torque, sleep flag, rest
//!   time and island;
//! - `SHAP`: every live shape's bounds;
//! - `BRPH`: the broadphase: proxies and fat boxes, grid cells with their lists, the pair
//!   list in its own order (the key index and the cell map are rebuilt from the file, so
//!   no hash map's iteration order decides anything after a restore);
//! - `CONT`: every contact (manifold, anchors, impulses, touching flags, colour), the mesh
//!   pairs and their children;
//! - `ISLE`: the islands; `COLR`: the colours of the constraint graph;
//! - `JOIN`: every live joint's impulses, reaction and colour, and the driven list;
//! - `KINE`: the kinematic targets set since the last step;
//! - `GROW`: the broadphase proxies' fat-box growths (see `world::bounds`), the non-zero
//!   ones (new in version 3.1; a state without it restores them as zero);
//! - `PART` (only in a world that has had particles): the particle slots, then every live
//!   particle's position and velocity.
//!
//! The format (`codec`): magic `IMPS`, version 3.1, flags, a section table, an FNV-1a 64
//! checksum. Unknown sections are skipped. Restoring decodes and checks everything first; a
//! rejected state leaves the world as it was.
//!
//! The structure counter counts every call that changes what the state does not hold:
//! bodies, shapes, joints and fluids created or removed, filters, masses, damping, gravity
//! and the other settings of bodies, shapes and the world. A state saved under another
//! count is refused (an `Err` naming what differs), never restored into a world it does
//! not fit. A joint that broke after the save cannot come back from a state (its
//! definition is not in it): such a restore is refused too.

use super::World;
use crate::body::BodyType;
use crate::codec::{checksum, Reader, Writer};
use crate::error::Error;
use crate::id::SlotPool;
use crate::joint::JointImpulses;
use crate::math::Aabb;
use glam::{Quat, Vec3};

/// The magic of a state file.
const MAGIC: &[u8; 4] = b"IMPS";
/// Format version: a reader accepts its major version and any minor one. Version 2: integers
/// inside sections as varints (`codec`), bodies with only their non-zero velocities, forces
/// and rest times. Version 3: contacts without their usual values (the shapes' bodies, the
/// previous contact's coefficients, no colour, child or link, the empty manifold), shapes
/// as differences, caches with only their used anchors, points without zero impulses;
/// broadphase proxies without the ranges and cell slots the grid gives and with previous
/// boxes only while queued; pairs as differences. Version 3.1: the `GROW` section.
const MAJOR: u16 = 3;
const MINOR: u16 = 1;

/// One body's state.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BodyState {
    position: Vec3,
    rotation: Quat,
    linear_velocity: Vec3,
    angular_velocity: Vec3,
    force: Vec3,
    torque: Vec3,
    awake: bool,
    sleep_time: f32,
    island: u32,
}

/// A body is a flag byte (awake, then which of the velocities, force, torque and rest time
/// are written), its pose, the fields the flags name, and its island. A field is left out
/// when all its bits are zero (a sleeping body's velocities, the force and torque between
/// steps, the rest time of a moving body), so the bits read back are the bits written.
impl crate::codec::Field for BodyState {
    fn put(&self, w: &mut Writer<'_>) {
        let zero3 = |v: Vec3| v.to_array().iter().all(|x| x.to_bits() == 0);
        let flags = self.awake as u8
            | (!zero3(self.linear_velocity) as u8) << 1
            | (!zero3(self.angular_velocity) as u8) << 2
            | (!zero3(self.force) as u8) << 3
            | (!zero3(self.torque) as u8) << 4
            | ((self.sleep_time.to_bits() != 0) as u8) << 5;
        w.put(&flags);
        w.put(&self.position);
        w.put(&self.rotation);
        for (bit, v) in [
            (1, self.linear_velocity),
            (2, self.angular_velocity),
            (3, self.force),
            (4, self.torque),
        ] {
            if flags & 1 << bit != 0 {
                w.put(&v);
            }
        }
        if flags & 1 << 5 != 0 {
            w.put(&self.sleep_time);
        }
        w.put(&self.island);
    }

    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        let flags: u8 = r.get()?;
        if flags >= 64 {
            return Err(r.error("holds a body with unknown flags"));
        }
        let position = r.get()?;
        let rotation = r.get()?;
        let mut vectors = [Vec3::ZERO; 4];
        for (k, v) in vectors.iter_mut().enumerate() {
            if flags & 1 << (k + 1) != 0 {
                *v = r.get()?;
            }
        }
        let sleep_time = if flags & 1 << 5 != 0 { r.get()? } else { 0.0 };
        Ok(BodyState {
            position,
            rotation,
            linear_velocity: vectors[0],
            angular_velocity: vectors[1],
            force: vectors[2],
            torque: vectors[3],
            awake: flags & 1 != 0,
            sleep_time,
            island: r.get()?,
        })
    }
}

/// One joint's state.
#[derive(Clone, Copy, Debug)]
struct JointState {
    color: u8,
    color_sides: u8,
    impulses: JointImpulses,
    reaction: Vec3,
    angular_reaction: Vec3,
}

crate::codec::fields!(JointState {
    color,
    color_sides,
    impulses,
    reaction,
    angular_reaction
});

/// A decoded state, checked against the world before anything of it is applied.
pub(super) struct Decoded {
    structure: u64,
    steps: u64,
    last_dt: f32,
    body_pool: SlotPool,
    shape_pool: SlotPool,
    joint_pool: SlotPool,
    bodies: Vec<BodyState>,
    bounds: Vec<Aabb>,
    pub(super) broadphase: crate::broadphase::BroadPhase,
    contacts: crate::contact::ContactStore,
    mesh_pairs: super::midphase::MeshPairs,
    islands: super::sleep::Islands,
    coloring: crate::solver::color::Coloring,
    joints: Vec<JointState>,
    driven: Vec<u32>,
    kinematic: super::kinematic::KinematicTargets,
    /// The particle slots and the live particles' positions and velocities, if saved.
    particles: Option<(SlotPool, Vec<(Vec3, Vec3)>)>,
    /// The proxies' fat-box growths, if saved (put into `broadphase` once read).
    growth: Option<Vec<(u32, u16)>>,
}

/// Writes section `tag`: its header, then what `body` writes, then its length.
pub(super) fn section(w: &mut Writer<'_>, tag: &[u8; 4], body: impl FnOnce(&mut Writer<'_>)) {
    w.bytes(tag);
    let at = w.len();
    w.raw_u32(0);
    body(w);
    let len = w.len() - at - 4;
    w.patch_u32(at, len as u32);
}

impl World {
    /// Appends the world's state to `out` (see the module docs for what it holds). Once
    /// `out` has held a state of this world, saving again does not allocate.
    pub fn save_state(&self, out: &mut Vec<u8>) {
        out.clear();
        self.append_state(out);
    }

    /// [`save_state`](Self::save_state) compressed with zlib at `level` (0-9: 0 stores, 1
    /// is fastest, 9 smallest) into `out` (cleared first), behind an `IMPZ` header that
    /// [`restore_state`](Self::restore_state) recognizes: it takes either form. A level
    /// over 9 is an `Err` naming `level`. Allocates the plain state on the way.
    pub fn save_state_compressed(&self, out: &mut Vec<u8>, level: u32) -> Result<(), Error> {
        if level > 9 {
            return Err(Error::invalid("level", "must be a zlib level 0-9"));
        }
        let mut plain = Vec::new();
        self.save_state(&mut plain);
        out.clear();
        crate::codec::compress(&plain, level, out)
    }

    /// [`save_state`](Self::save_state) appended to what `out` holds.
    pub(crate) fn append_state(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let mut w = Writer::new(out);
        w.bytes(MAGIC);
        w.raw_u16(MAJOR);
        w.raw_u16(MINOR);
        w.raw_u32(0); // flags
        let particles = self.particles.pool.capacity() > 0;
        w.raw_u32(11 + particles as u32); // sections
        section(&mut w, b"HEAD", |w| {
            w.put(&self.structure);
            w.put(&self.steps);
            w.put(&self.last_dt);
        });
        section(&mut w, b"POOL", |w| {
            w.put(&self.body_pool);
            w.put(&self.shapes.pool);
            w.put(&self.joints.pool);
        });
        section(&mut w, b"BODY", |w| {
            let b = &self.bodies;
            let live = (0..self.body_pool.capacity()).filter(|&i| self.body_pool.is_alive(i));
            w.put(&(live.clone().count() as u32));
            for i in live {
                w.put(&BodyState {
                    position: b.position[i],
                    rotation: b.rotation[i],
                    linear_velocity: b.linear_velocity[i],
                    angular_velocity: b.angular_velocity[i],
                    force: b.force[i],
                    torque: b.torque[i],
                    awake: b.awake[i],
                    sleep_time: b.sleep_time[i],
                    island: b.island[i],
                });
            }
        });
        section(&mut w, b"SHAP", |w| {
            let pool = &self.shapes.pool;
            let live = (0..self.shapes.data.len()).filter(|&s| pool.is_alive(s));
            w.put(&(live.clone().count() as u32));
            for s in live {
                w.put(&self.shapes.bounds[s]);
            }
        });
        section(&mut w, b"BRPH", |w| w.put(&self.broadphase));
        section(&mut w, b"GROW", |w| self.broadphase.put_growth(w));
        section(&mut w, b"CONT", |w| {
            let data = &self.shapes.data;
            self.contacts.put_state(
                w,
                |k| self.contact_manifold(k),
                |s| data.get(s as usize).map_or(crate::id::NULL, |d| d.body),
            );
            w.put(&self.mesh_pairs);
        });
        section(&mut w, b"ISLE", |w| w.put(&self.islands));
        section(&mut w, b"COLR", |w| w.put(&self.graph.coloring));
        section(&mut w, b"JOIN", |w| {
            let pool = &self.joints.pool;
            let live = (0..self.joints.slots.len()).filter(|&j| pool.is_alive(j));
            w.put(&(live.clone().count() as u32));
            for j in live {
                let d = &self.joints.slots[j];
                let (impulses, reaction, angular_reaction) = self.joint_impulses(j);
                w.put(&JointState {
                    color: d.color,
                    color_sides: d.color_sides,
                    impulses,
                    reaction,
                    angular_reaction,
                });
            }
            w.put(&self.joints.driven);
        });
        section(&mut w, b"KINE", |w| w.put(&self.kinematic_targets));
        if particles {
            section(&mut w, b"PART", |w| {
                let p = &self.particles;
                w.put(&p.pool);
                w.put(&(p.pool.live() as u32));
                for i in p.live() {
                    w.put(&(p.position[i], p.velocity[i]));
                }
            });
        }
        let sum = checksum(w.since(start));
        w.raw_u64(sum);
    }

    /// Puts back a state [`save_state`](Self::save_state) wrote from this world (or one
    /// with the same structure: the same bodies, shapes, joints and settings). Everything
    /// is decoded and checked first; on `Err` (a corrupt or truncated state, another
    /// structure, a joint that broke since the save) the world is unchanged.
    ///
    /// A state compressed by [`save_state_compressed`](Self::save_state_compressed) is
    /// inflated first (a corrupt stream is an `Err` naming `state`).
    pub fn restore_state(&mut self, state: &[u8]) -> Result<(), Error> {
        let plain = crate::codec::expand(state, "state")?;
        let d = self.decode_state(&plain)?;
        self.check_state(&d)?;
        self.apply_state(d);
        Ok(())
    }

    /// A hash of everything the state holds (the bytes [`save_state`](Self::save_state)
    /// writes): two worlds with the same deep hash step on identically. Allocates.
    pub fn deep_hash(&self) -> u64 {
        let mut out = Vec::new();
        self.save_state(&mut out);
        checksum(&out)
    }

    pub(super) fn decode_state(&self, state: &[u8]) -> Result<Decoded, Error> {
        const WHAT: &str = "state";
        if state.len() < 8 + 4 + 4 + 8 {
            return Err(Error::invalid(WHAT, "is truncated"));
        }
        let (body, sum) = state.split_at(state.len() - 8);
        if checksum(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err(Error::invalid(
                WHAT,
                "fails its checksum (corrupt or truncated)",
            ));
        }
        let mut r = Reader::new(body, WHAT);
        if r.take(4)? != MAGIC {
            return Err(r.error("is not an impetus state (bad magic)"));
        }
        if r.raw_u16()? != MAJOR {
            return Err(r.error("has another major version"));
        }
        let _minor = r.raw_u16()?;
        let _flags = r.raw_u32()?;
        let count = r.raw_u32()?;
        let mut d = Decoded {
            structure: 0,
            steps: 0,
            last_dt: 0.0,
            body_pool: SlotPool::default(),
            shape_pool: SlotPool::default(),
            joint_pool: SlotPool::default(),
            bodies: Vec::new(),
            bounds: Vec::new(),
            broadphase: Default::default(),
            contacts: Default::default(),
            mesh_pairs: Default::default(),
            islands: Default::default(),
            coloring: Default::default(),
            joints: Vec::new(),
            driven: Vec::new(),
            kinematic: Default::default(),
            particles: None,
            growth: None,
        };
        let mut seen = 0u32;
        for _ in 0..count {
            let tag: [u8; 4] = r.take(4)?.try_into().unwrap();
            let len = r.raw_u32()? as usize;
            let mut s = Reader::new(r.take(len)?, WHAT);
            let known = match &tag {
                b"HEAD" => {
                    (d.structure, d.steps, d.last_dt) = (s.get()?, s.get()?, s.get()?);
                    1
                }
                b"POOL" => {
                    (d.body_pool, d.shape_pool, d.joint_pool) = (s.get()?, s.get()?, s.get()?);
                    2
                }
                b"BODY" => {
                    d.bodies = s.get()?;
                    4
                }
                b"SHAP" => {
                    d.bounds = s.get()?;
                    8
                }
                b"BRPH" => {
                    d.broadphase = s.get()?;
                    16
                }
                b"CONT" => {
                    let data = &self.shapes.data;
                    let body_of = |s: u32| data.get(s as usize).map_or(crate::id::NULL, |d| d.body);
                    d.contacts = crate::contact::ContactStore::get_state(&mut s, body_of)?;
                    d.mesh_pairs = s.get()?;
                    32
                }
                b"ISLE" => {
                    d.islands = s.get()?;
                    64
                }
                b"COLR" => {
                    d.coloring = s.get()?;
                    128
                }
                b"JOIN" => {
                    (d.joints, d.driven) = (s.get()?, s.get()?);
                    256
                }
                b"KINE" => {
                    d.kinematic = s.get()?;
                    512
                }
                b"PART" => {
                    if d.particles.is_some() {
                        return Err(Error::invalid(WHAT, "repeats a section"));
                    }
                    d.particles = Some((s.get()?, s.get()?));
                    // Optional: a world without particles writes none.
                    1024
                }
                b"GROW" => {
                    if d.growth.is_some() {
                        return Err(Error::invalid(WHAT, "repeats a section"));
                    }
                    d.growth = Some(crate::broadphase::BroadPhase::get_growth(&mut s)?);
                    // Optional: a state of version 3.0 has none.
                    2048
                }
                _ => 0, // a section of a later minor version: skipped
            };
            if known != 0 && !s.is_empty() {
                return Err(Error::invalid(
                    WHAT,
                    "has a section longer than its contents",
                ));
            }
            seen |= known;
        }
        if !r.is_empty() {
            return Err(Error::invalid(WHAT, "has bytes after its sections"));
        }
        if seen & 1023 != 1023 {
            return Err(Error::invalid(WHAT, "lacks a section"));
        }
        d.broadphase
            .set_growth(d.growth.as_deref().unwrap_or_default())?;
        Ok(d)
    }

    /// Whether decoded state `d` fits this world: the same structure and slots, and
    /// columns and indices in range of the world's arrays.
    fn check_state(&self, d: &Decoded) -> Result<(), Error> {
        const WHAT: &str = "state";
        if d.structure != self.structure {
            return Err(Error::invalid(
                WHAT,
                "was saved under another structure (bodies, shapes, joints, fluids or settings changed since)",
            ));
        }
        if !d.body_pool.same_slots(&self.body_pool) {
            return Err(Error::invalid(WHAT, "was saved with other bodies"));
        }
        if !d.shape_pool.same_slots(&self.shapes.pool) {
            return Err(Error::invalid(WHAT, "was saved with other shapes"));
        }
        if !d.joint_pool.same_slots(&self.joints.pool) {
            return Err(Error::invalid(
                WHAT,
                "was saved with other joints (a joint broke or was removed since)",
            ));
        }
        let live_bodies = (0..self.body_pool.capacity())
            .filter(|&i| self.body_pool.is_alive(i))
            .count();
        let live_shapes = (0..self.shapes.data.len())
            .filter(|&s| self.shapes.pool.is_alive(s))
            .count();
        let live_joints = (0..self.joints.slots.len())
            .filter(|&j| self.joints.pool.is_alive(j))
            .count();
        if d.bodies.len() != live_bodies
            || d.bounds.len() != live_shapes
            || d.joints.len() != live_joints
        {
            return Err(Error::invalid(
                WHAT,
                "holds another number of bodies, shapes or joints",
            ));
        }
        if !(World::MIN_DT..=World::MAX_DT).contains(&d.last_dt) {
            return Err(Error::invalid(
                WHAT,
                "holds a step that is not finite and positive",
            ));
        }
        let bodies = self.body_pool.capacity() as u32;
        let shapes = self.shapes.data.len() as u32;
        let contacts = d.contacts.contacts.len();
        let ok_body = |b: u32| b < bodies;
        let ok_shape = |s: u32| s < shapes;
        let columns = [
            d.contacts.ends.len(),
            d.contacts.tangent.len(),
            d.contacts.shapes.len(),
            d.contacts.idle.len(),
            d.contacts.lead.len(),
            d.contacts.pending.len(),
        ];
        if columns.iter().any(|&n| n != contacts) {
            return Err(Error::invalid(
                WHAT,
                "holds contact columns of different lengths",
            ));
        }
        let null = crate::id::NULL;
        for c in &d.contacts.contacts {
            if c.alive
                && !(ok_body(c.body_a)
                    && ok_body(c.body_b)
                    && ok_shape(c.shape_a)
                    && ok_shape(c.shape_b)
                    && (c.link == null || (c.link as usize) < d.mesh_pairs.list.len()))
            {
                return Err(Error::invalid(
                    WHAT,
                    "holds a contact of bodies or shapes past the world's",
                ));
            }
        }
        // The solver clamps by the coefficients and the impulses: a NaN or a negative
        // bound would panic there (the restore_state fuzz target's find).
        let finite = |m: &crate::collision::Manifold| {
            m.normal.is_finite()
                && m.friction_impulse.is_finite()
                && m.twist_impulse.is_finite()
                && m.points().iter().all(|p| {
                    p.point.is_finite()
                        && p.separation.is_finite()
                        && p.anchor_a.is_finite()
                        && p.anchor_b.is_finite()
                        && p.normal_impulse.is_finite()
                        && p.max_normal_impulse.is_finite()
                })
        };
        let cache_ok = |k: &crate::contact::ManifoldCache| {
            !k.valid
                || (k.relative.p.is_finite()
                    && k.relative.q.is_finite()
                    && k.tolerance.is_finite()
                    && k.anchor_a.is_finite()
                    && k.anchor_b.is_finite())
        };
        if d.contacts.contacts.iter().any(|c| {
            c.alive
                && !([
                    c.friction,
                    c.static_friction,
                    c.restitution,
                    c.rolling_resistance,
                ]
                .iter()
                .all(|x| x.is_finite() && *x >= 0.0)
                    && finite(&c.manifold)
                    && cache_ok(&c.cache))
        }) || d.contacts.tangent.iter().any(|t| !t.is_finite())
        {
            return Err(Error::invalid(
                WHAT,
                "holds a contact with a coefficient, point or impulse that is not finite",
            ));
        }
        if d.bodies.iter().any(|b| {
            !(b.position.is_finite()
                && b.rotation.is_finite()
                && b.linear_velocity.is_finite()
                && b.angular_velocity.is_finite())
                || b.island != null && b.island as usize >= d.islands.list.len()
        }) {
            return Err(Error::invalid(
                WHAT,
                "holds a body that is not finite or in no island",
            ));
        }
        let mut island_of = vec![null; bodies as usize];
        let live = (0..bodies as usize).filter(|&i| self.body_pool.is_alive(i));
        for (i, b) in live.zip(&d.bodies) {
            island_of[i] = b.island;
        }
        let dynamic =
            |i: usize| self.body_pool.is_alive(i) && self.bodies.body_type[i] == BodyType::Dynamic;
        if !d.islands.agree(&island_of, dynamic) {
            return Err(Error::invalid(
                WHAT,
                "holds islands that do not agree with its bodies (a dynamic body in no island \
                 or in one that does not list it, another body in an island, or a free island \
                 in use)",
            ));
        }
        if d.broadphase.proxy_count() != self.broadphase.proxy_count() {
            return Err(Error::invalid(
                WHAT,
                "holds another number of broadphase proxies",
            ));
        }
        let p = &self.particles;
        match &d.particles {
            None if p.pool.capacity() > 0 => {
                return Err(Error::invalid(
                    WHAT,
                    "was saved without the world's particles",
                ))
            }
            Some((pool, list)) => {
                if !pool.same_slots(&p.pool) {
                    return Err(Error::invalid(WHAT, "was saved with other particles"));
                }
                if list.len() != p.pool.live() {
                    return Err(Error::invalid(WHAT, "holds another number of particles"));
                }
                if list.iter().any(|(x, v)| !(x.is_finite() && v.is_finite())) {
                    return Err(Error::invalid(WHAT, "holds a particle that is not finite"));
                }
            }
            None => {}
        }
        if d.coloring.body_count() > (bodies as usize).div_ceil(64) * 64 {
            return Err(Error::invalid(
                WHAT,
                "holds colours of bodies past the world's",
            ));
        }
        Ok(())
    }

    fn apply_state(&mut self, d: Decoded) {
        self.steps = d.steps;
        self.last_dt = d.last_dt;
        let b = &mut self.bodies;
        let live = (0..self.body_pool.capacity()).filter(|&i| self.body_pool.is_alive(i));
        for (i, s) in live.zip(d.bodies) {
            b.position[i] = s.position;
            b.rotation[i] = s.rotation;
            b.linear_velocity[i] = s.linear_velocity;
            b.angular_velocity[i] = s.angular_velocity;
            b.force[i] = s.force;
            b.torque[i] = s.torque;
            b.awake[i] = s.awake;
            b.sleep_time[i] = s.sleep_time;
            b.island[i] = s.island;
        }
        let pool = &self.shapes.pool;
        let live = (0..self.shapes.data.len()).filter(|&s| pool.is_alive(s));
        for (s, bounds) in live.zip(d.bounds) {
            self.shapes.bounds[s] = bounds;
        }
        self.broadphase = d.broadphase;
        self.contacts = d.contacts;
        self.contacts.recount();
        self.mesh_pairs = d.mesh_pairs;
        self.islands = d.islands;
        self.graph.coloring = d.coloring;
        self.graph.discard_ball_impulses();
        self.graph.forget_kept();
        let pool = &self.joints.pool;
        let live = (0..self.joints.slots.len()).filter(|&j| pool.is_alive(j));
        for (j, s) in live.zip(d.joints) {
            let data = &mut self.joints.slots[j];
            data.color = s.color;
            data.color_sides = s.color_sides;
            data.impulses = s.impulses;
            data.reaction = s.reaction;
            data.angular_reaction = s.angular_reaction;
        }
        self.joints.driven = d.driven;
        // Derived from the above: rebuilt by the next step.
        self.joints.trees_dirty = true;
        self.joints.lists_dirty = true;
        self.kinematic_targets = d.kinematic;
        if let Some((_, list)) = d.particles {
            let p = &mut self.particles;
            let live: Vec<usize> = p.live().collect();
            for (i, (x, v)) in live.into_iter().zip(list) {
                p.position[i] = x;
                p.velocity[i] = v;
            }
            p.reaction.iter_mut().for_each(|r| *r = Vec3::ZERO);
        }
        self.events = Default::default();
        self.touching.clear();
    }
}
