//! World images: the whole world in bytes, for save games and bug reports.
//!
//! [`World::save_image`] writes everything a world is made of; [`World::from_image`] builds
//! a new world from it that steps on exactly as the saved one would have (the same state
//! hash and deep hash at every later step, at any thread count: see
//! [`World::from_image_with_workers`]). A state (see `snapshot`) only restores into a world
//! of the same structure; an image carries the structure with it.
//!
//! # Format
//!
//! The layout of states (`codec`): the magic `IMPI`, version 3.0 (`u16` major, `u16`
//! minor: a reader accepts its major version and any minor one), `u32` flags (0), a `u32`
//! section count, the sections (a four-byte tag, a `u32` length, the payload) and an
//! FNV-1a 64 checksum of everything before it. Sections may come in any order; unknown
//! ones are skipped; each known one appears once. Values are written field by field,
//! integers as varints and floats as their four bytes (`codec`); a `Vec` is a count and its
//! items. The sections:
//!
//! - `WRLD`: the [`WorldDef`](crate::WorldDef) (gravity as last set) and the structure
//!   counter;
//! - `GEOM`: the geometry table: hulls, meshes, height fields (each a count and its
//!   items). A hull, mesh or height field shared by several shapes through an `Arc` is
//!   written once and shared again on reading. Each is written as built, not rebuilt: a
//!   hull's vertices, faces (normal, offset, first vertex, count), face vertex indices,
//!   edges, volume, inertia, frame, radius and extent; a mesh's vertices, triangles,
//!   active-edge flags, BVH nodes and leaf order; a height field's grid, heights, scale,
//!   bounds and active-edge flags;
//! - `BODY`: the body slot pool (generations, live flags, free list), then one column per
//!   configuration field of every slot, live or free: type, mass, inverse mass, inertia,
//!   inverse inertia, damping, gravity scale, fast rotation, drag, bullet, least extent,
//!   mass override, can sleep, sleep threshold, extent, user data, shape ids, mass frame;
//! - `SHAP`: the shape slot pool, every slot's shape (kind, then its parameters or its
//!   geometry index) and material, filter, flags and poses, and the store's counts of
//!   bouncy and rolling shapes;
//! - `JOIN`: the joint slot pool, every slot's joint (body slots, colour, impulses, the
//!   definition in the bodies' mass frames, reactions) and each body's joint list; the
//!   ball-joint trees and the solver's joint lists are derived, rebuilt by the next step;
//! - `FLUI`: the fluid slot pool and the fluids;
//! - `PRTC` (only in a world that has had particles; a later minor version, so an image
//!   without it loads with no particles): the particle slot pool and columns (mass,
//!   inverse mass, radius, filter, drag, friction, restitution, gravity scale, tethers,
//!   spring lists), the spring slot pool and springs, the soft body slot pool and soft
//!   bodies, the tetrahedra and the wind (the colouring is derived, rebuilt by the next
//!   step);
//! - `STAT`: the world's state, the bytes [`World::save_state`] writes (its own header
//!   and checksum inside).
//!
//! What an image does not hold: the host's callbacks (the pair filter and the contact
//! modifier, which are code: set them again after loading), the events and joint breaks of
//! the last step, the profile, and the buffers the step reuses.
//!
//! Reading checks everything before the world is used: the checksum, every count against
//! the bytes left, every index against the array it points into (hull faces and edges,
//! mesh triangles and BVH nodes, shape geometry and bodies, body shape lists, joint bodies
//! and lists), that numbers are finite, and the state as [`World::restore_state`] does. A
//! corrupt image is an `Err` naming what is wrong, never a panic.

use super::snapshot::section;
use super::{JointStore, World};
use crate::body::{BodyStore, BodyType};
use crate::codec::{checksum, Reader, Writer};
use crate::error::Error;
use crate::id::{ShapeId, SlotPool, NULL};
use crate::math::{is_finite3, Aabb, Transform};
use crate::shape::encode::Geometry;
use crate::shape::store::ShapeStore;
use glam::{Quat, Vec3};
use std::collections::HashMap;

/// The magic of an image file.
const MAGIC: &[u8; 4] = b"IMPI";
/// Format version: a reader accepts its major version and any minor one.
/// Version 2: integers inside sections as varints (`codec`), and the state of version 2.
/// Version 3: the state of version 3.
const MAJOR: u16 = 3;
const MINOR: u16 = 0;
/// What errors name.
const WHAT: &str = "image";
/// The sections a reader needs, in the order they are written.
const TAGS: [&[u8; 4]; 7] = [
    b"WRLD", b"GEOM", b"BODY", b"SHAP", b"JOIN", b"FLUI", b"STAT",
];

/// The optional section of the particles.
const PARTICLES: &[u8; 4] = b"PRTC";

fn invalid(reason: &'static str) -> Error {
    Error::invalid(WHAT, reason)
}

impl World {
    /// Writes the whole world into `out` (cleared first): its settings, bodies, shapes and
    /// their geometry, joints, fluids and state. See the module docs for the format and
    /// for what an image leaves out (the host's callbacks).
    pub fn save_image(&self, out: &mut Vec<u8>) {
        out.clear();
        let mut state = Vec::new();
        self.save_state(&mut state);
        let geometry = Geometry::of(self.shapes.data.iter().map(|d| &d.shape));
        let mut w = Writer::new(out);
        w.bytes(MAGIC);
        w.raw_u16(MAJOR);
        w.raw_u16(MINOR);
        w.raw_u32(0); // flags
        let particles = self.particles.pool.capacity() > 0;
        w.raw_u32(TAGS.len() as u32 + particles as u32);
        section(&mut w, b"WRLD", |w| {
            w.put(&self.def);
            w.put(&self.structure);
        });
        section(&mut w, b"GEOM", |w| geometry.put(w));
        section(&mut w, b"BODY", |w| {
            w.put(&self.body_pool);
            put_bodies(w, &self.bodies);
        });
        section(&mut w, b"SHAP", |w| {
            w.put(&self.shapes.pool);
            w.put(&(self.shapes.data.len() as u32));
            for (s, d) in self.shapes.data.iter().enumerate() {
                geometry.put_data(w, d, &self.shapes.local_pose(s));
            }
            w.put(&(self.shapes.bouncy, self.shapes.rolling));
        });
        section(&mut w, b"JOIN", |w| {
            w.put(&self.joints.pool);
            if self.graph.ball_pending() {
                // The slots with the impulses their ball batches hold.
                let mut slots = self.joints.slots.clone();
                for (j, d) in slots.iter_mut().enumerate() {
                    (d.impulses, d.reaction, d.angular_reaction) = self.joint_impulses(j);
                }
                w.put(&slots);
            } else {
                w.put(&self.joints.slots);
            }
            w.put(&self.joints.of_body);
        });
        section(&mut w, b"FLUI", |w| w.put(&self.fluids));
        if particles {
            section(&mut w, b"PRTC", |w| w.put(&self.particles));
        }
        section(&mut w, b"STAT", |w| w.bytes(&state));
        let sum = checksum(w.since(0));
        w.raw_u64(sum);
    }

    /// [`save_image`](Self::save_image) compressed with zlib at `level` (0-9) into `out`
    /// (cleared first), behind an `IMPZ` header that [`from_image`](Self::from_image)
    /// recognizes. A level over 9 is an `Err` naming `level`.
    pub fn save_image_compressed(&self, out: &mut Vec<u8>, level: u32) -> Result<(), Error> {
        if level > 9 {
            return Err(Error::invalid("level", "must be a zlib level 0-9"));
        }
        let mut plain = Vec::new();
        self.save_image(&mut plain);
        out.clear();
        crate::codec::compress(&plain, level, out)
    }

    /// Builds the world an image holds (see [`save_image`](Self::save_image)), with the
    /// thread count it was saved with (`WorldDef::worker_count`). Fails with an
    /// `Error::InvalidArgument` naming `image` (or `state`, for the state inside it) on a
    /// corrupt, truncated or foreign image. An image compressed by
    /// [`save_image_compressed`](Self::save_image_compressed) is inflated first.
    pub fn from_image(image: &[u8]) -> Result<World, Error> {
        Self::load_image(image, None)
    }

    /// As [`from_image`](Self::from_image), stepping with `worker_count` threads (0: one
    /// per core) instead of the saved count; the results are the same at any count.
    pub fn from_image_with_workers(image: &[u8], worker_count: usize) -> Result<World, Error> {
        Self::load_image(image, Some(worker_count))
    }

    fn load_image(image: &[u8], workers: Option<usize>) -> Result<World, Error> {
        let plain = crate::codec::expand(image, WHAT)?;
        let sections = image_sections(&plain)?;
        let [wrld, geom, body, shap, join, flui, stat] = TAGS.map(|t| sections[&t]);
        let particles = match sections.get(PARTICLES) {
            Some(bytes) => read(bytes, |r| r.get())?,
            None => crate::particle::store::ParticleStore::default(),
        };
        let (mut def, structure): (crate::WorldDef, u64) = read(wrld, |r| r.get())?;
        def.validate()
            .map_err(|_| invalid("holds invalid world settings"))?;
        if let Some(n) = workers {
            def.worker_count = n;
        }
        let geometry = read(geom, Geometry::get)?;
        let (body_pool, bodies) = read(body, |r| Ok((r.get()?, get_bodies(r)?)))?;
        let shapes = read(shap, |r| {
            let pool: SlotPool = r.get()?;
            let n = r.count()?;
            let (data, poses): (Vec<_>, Vec<_>) = (0..n)
                .map(|_| geometry.get_data(r))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            let (bouncy, rolling) = r.get()?;
            let mut store = ShapeStore {
                pool,
                bounds: vec![Aabb::default(); data.len()],
                data,
                bouncy,
                rolling,
                ..Default::default()
            };
            for (s, pose) in poses.into_iter().enumerate() {
                store.set_local_pose(s, pose);
            }
            Ok(store)
        })?;
        let joints = read(join, |r| {
            Ok(JointStore {
                pool: r.get()?,
                slots: r.get()?,
                of_body: r.get()?,
                trees_dirty: true,
                lists_dirty: true,
                ..Default::default()
            })
        })?;
        let fluids: super::forces::FluidStore = read(flui, |r| r.get())?;
        check_bodies(&body_pool, &bodies, &shapes)?;
        check_shapes(&body_pool, &bodies, &shapes)?;
        check_joints(&body_pool, &bodies, &joints)?;
        particles.check(body_pool.capacity()).map_err(invalid)?;
        if fluids.fluids.len() != fluids.pool.capacity()
            || (0..fluids.fluids.len())
                .any(|i| fluids.pool.is_alive(i) && fluids.fluids[i].validate().is_err())
        {
            return Err(invalid("holds an invalid fluid"));
        }
        let mut world = World::new(def)?;
        world.structure = structure;
        world.body_pool = body_pool;
        world.bodies = bodies;
        world.shapes = shapes;
        world.joints = joints;
        world.fluids = fluids;
        world.particles = particles;
        // `restore_state` checks the state's broadphase against the world's: take it from
        // the state first (the state replaces it whole).
        world.broadphase = world.decode_state(stat)?.broadphase;
        world.restore_state(stat)?;
        Ok(world)
    }
}

/// Decodes section `bytes` with `f`, which must read all of it.
fn read<T>(bytes: &[u8], f: impl FnOnce(&mut Reader<'_>) -> Result<T, Error>) -> Result<T, Error> {
    let mut r = Reader::new(bytes, WHAT);
    let value = f(&mut r)?;
    if !r.is_empty() {
        return Err(invalid("has a section longer than its contents"));
    }
    Ok(value)
}

/// Checks the header and checksum and returns the payload of each known section.
fn image_sections(image: &[u8]) -> Result<HashMap<&'static [u8; 4], &[u8]>, Error> {
    if image.len() < 8 + 4 + 4 + 8 {
        return Err(invalid("is truncated"));
    }
    let (body, sum) = image.split_at(image.len() - 8);
    if checksum(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
        return Err(invalid("fails its checksum (corrupt or truncated)"));
    }
    let mut r = Reader::new(body, WHAT);
    if r.take(4)? != MAGIC {
        return Err(invalid("is not an impetus image (bad magic)"));
    }
    if r.raw_u16()? != MAJOR {
        return Err(invalid("has another major version"));
    }
    let _minor = r.raw_u16()?;
    let _flags = r.raw_u32()?;
    let count = r.raw_u32()?;
    let mut sections = HashMap::new();
    for _ in 0..count {
        let tag: [u8; 4] = r.take(4)?.try_into().unwrap();
        let len = r.raw_u32()? as usize;
        let payload = r.take(len)?;
        // A section of a later minor version is skipped.
        if let Some(known) = TAGS.iter().chain([&PARTICLES]).find(|t| ***t == tag) {
            if sections.insert(*known, payload).is_some() {
                return Err(invalid("repeats a section"));
            }
        }
    }
    if !r.is_empty() {
        return Err(invalid("has bytes after its sections"));
    }
    if TAGS.iter().any(|t| !sections.contains_key(t)) {
        return Err(invalid("lacks a section"));
    }
    Ok(sections)
}

/// Applies `$m!(column)` to every configuration column of `BodyStore`, in image order.
macro_rules! config_columns {
    ($m:ident) => {
        $m!(
            body_type,
            mass,
            inv_mass,
            inertia,
            inv_inertia,
            linear_damping,
            angular_damping,
            gravity_scale,
            allow_fast_rotation,
            drag_coefficient,
            bullet,
            min_extent,
            mass_override,
            can_sleep,
            sleep_threshold,
            extent,
            user_data,
            shapes,
            frame
        )
    };
}

/// Writes the configuration columns of every body slot (the state columns are in the
/// state).
fn put_bodies(w: &mut Writer<'_>, b: &BodyStore) {
    macro_rules! put {
        ($($col:ident),*) => { $( w.put(&b.$col); )* };
    }
    config_columns!(put);
}

/// Reads the columns [`put_bodies`] wrote; the state columns start at rest, for the state
/// to fill (free slots keep them so).
fn get_bodies(r: &mut Reader<'_>) -> Result<BodyStore, Error> {
    let mut b = BodyStore::default();
    macro_rules! get {
        ($($col:ident),*) => { $( b.$col = r.get()?; )* };
    }
    config_columns!(get);
    let n = b.body_type.len();
    macro_rules! lengths {
        ($($col:ident),*) => { [$( b.$col.len() ),*] };
    }
    if config_columns!(lengths).iter().any(|&len| len != n) {
        return Err(r.error("holds body columns of different lengths"));
    }
    b.position = vec![Vec3::ZERO; n];
    b.rotation = vec![Quat::IDENTITY; n];
    b.linear_velocity = vec![Vec3::ZERO; n];
    b.angular_velocity = vec![Vec3::ZERO; n];
    b.force = vec![Vec3::ZERO; n];
    b.torque = vec![Vec3::ZERO; n];
    b.awake = vec![false; n];
    b.sleep_time = vec![0.0; n];
    b.island = vec![NULL; n];
    // Not in images: a body's travel starts again (no contact keeps a lead across an
    // image).
    b.travel = vec![[0.0; 2]; n];
    Ok(b)
}

fn pose_ok(t: &Transform) -> bool {
    is_finite3(t.p) && t.q.is_finite()
}

/// The bodies fit their pool, hold finite numbers and list live shapes of their own.
fn check_bodies(pool: &SlotPool, b: &BodyStore, shapes: &ShapeStore) -> Result<(), Error> {
    if b.body_type.len() != pool.capacity() {
        return Err(invalid("holds another number of bodies than body slots"));
    }
    for i in 0..pool.capacity() {
        let scalars = [
            b.mass[i],
            b.inv_mass[i],
            b.linear_damping[i],
            b.angular_damping[i],
            b.gravity_scale[i],
            b.drag_coefficient[i],
            b.sleep_threshold[i],
            b.extent[i],
        ];
        if !scalars.iter().all(|x| x.is_finite())
            || b.min_extent[i].is_nan()
            || !is_finite3(b.inertia[i])
            || !is_finite3(b.inv_inertia[i])
            || !pose_ok(&b.frame[i])
        {
            return Err(invalid("holds a body with a number that is not finite"));
        }
        if !pool.is_alive(i) {
            continue;
        }
        for id in &b.shapes[i] {
            let s = shapes
                .pool
                .check(id.index, id.generation, "ShapeId")
                .map_err(|_| invalid("holds a body with a shape that is not live"))?;
            if shapes.data[s].body as usize != i {
                return Err(invalid("holds a body with another body's shape"));
            }
        }
    }
    Ok(())
}

/// The shapes fit their pool, and every live one is on a live body that lists it.
fn check_shapes(pool: &SlotPool, b: &BodyStore, shapes: &ShapeStore) -> Result<(), Error> {
    if shapes.data.len() != shapes.pool.capacity() {
        return Err(invalid("holds another number of shapes than shape slots"));
    }
    for (s, d) in shapes.data.iter().enumerate() {
        if !shapes.pool.is_alive(s) {
            continue;
        }
        let i = d.body as usize;
        let id = ShapeId {
            index: s as u32,
            generation: shapes.pool.generation(s),
        };
        if i >= pool.capacity() || !pool.is_alive(i) || !b.shapes[i].contains(&id) {
            return Err(invalid("holds a shape on a body that does not list it"));
        }
        if d.shape.is_static_only() && b.body_type[i] != BodyType::Static {
            return Err(invalid("holds a static-only shape on a movable body"));
        }
    }
    Ok(())
}

/// The joints fit their pool, join live bodies with valid definitions, and the bodies'
/// joint lists name joint slots.
fn check_joints(pool: &SlotPool, b: &BodyStore, joints: &JointStore) -> Result<(), Error> {
    if joints.slots.len() != joints.pool.capacity() || joints.of_body.len() > pool.capacity() {
        return Err(invalid("holds another number of joints than joint slots"));
    }
    let live_body = |i: u32| (i as usize) < pool.capacity() && pool.is_alive(i as usize);
    for (j, d) in joints.slots.iter().enumerate() {
        if !joints.pool.is_alive(j) {
            continue;
        }
        if !live_body(d.body_a) || !live_body(d.body_b) || d.body_a == d.body_b {
            return Err(invalid("holds a joint of bodies that are not live"));
        }
        let dynamic = |i: u32| b.body_type[i as usize] == BodyType::Dynamic;
        if !dynamic(d.body_a) && !dynamic(d.body_b) {
            return Err(invalid("holds a joint without a dynamic body"));
        }
        let ball = matches!(d.def.kind, crate::joint::JointKind::Ball);
        if d.def.validate().is_err() || d.ball != ball {
            return Err(invalid("holds an invalid joint definition"));
        }
        if !is_finite3(d.reaction) || !is_finite3(d.angular_reaction) {
            return Err(invalid("holds a joint with a number that is not finite"));
        }
    }
    let ok = |&j: &u32| (j as usize) < joints.slots.len() && joints.pool.is_alive(j as usize);
    if !joints.of_body.iter().flatten().all(ok) {
        return Err(invalid("holds a body's joint list naming no live joint"));
    }
    Ok(())
}
