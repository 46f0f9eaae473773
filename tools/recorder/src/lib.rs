//! impetus-recorder: records an impetus [`World`](impetus::World) step by step into an
//! `.impr` file, reads such files back, and serves the browser viewer (`tools/viewer/`)
//! with a file on 127.0.0.1.
//!
//! ```no_run
//! use impetus::{BodyDef, BodyType, ShapeDef, Vec3, World, WorldDef};
//! use impetus_recorder::{Recorder, RecordOptions};
//!
//! let mut world = World::new(WorldDef::default())?;
//! let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
//! world.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0))?;
//! let b = world.create_body(&BodyDef { position: Vec3::new(0.0, 4.0, 0.0), ..Default::default() })?;
//! world.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)))?;
//!
//! let file = std::fs::File::create("fall.impr")?;
//! let mut recorder = Recorder::new(file, &world, 1.0 / 60.0, RecordOptions::default())?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//!     recorder.record(&world)?;
//! }
//! recorder.finish()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The recorder reads the world through its public API only, after the host's step: a
//! world without a recorder pays nothing.
//!
//! # The `.impr` format, version 1
//!
//! Version 1 with particles and joints: the particle table and the particle frames, the
//! joint table and the joints' removals are records of their own (tags 5 to 8, below),
//! which a reader written before them skips as it skips any tag it does not know. So the
//! header still says version 1: a file without particles or joints is byte for byte what
//! it was, an older reader reads a file with them (without them), and this reader reads
//! older files (with no particles in any frame and no joints).
//!
//! The whole file is one gzip stream (RFC 1952; browsers decompress it with
//! `DecompressionStream('gzip')`). Inside, every number is little-endian; `f32` values are
//! stored as their exact bits (lossless). Names below: `u8`, `u16`, `u32`, `u64`, `f32`;
//! `pose` is 7 `f32`: position x, y, z (m), then rotation quaternion x, y, z, w.
//!
//! ## Header (28 bytes)
//!
//! | field | type | |
//! |---|---|---|
//! | magic | 4 bytes | `IMPR` |
//! | version | `u32` | 1 |
//! | dt | `f32` | the step, s |
//! | substeps | `u32` | the world's solver substeps |
//! | gravity | 3 `f32` | m/s² |
//!
//! ## Records
//!
//! Then records to the end of the stream, each `tag: u8`, `length: u32` (bytes of payload),
//! payload. A reader skips tags it does not know (later versions may add some); a record
//! whose payload is longer than what its fields use is an error.
//!
//! - **1, shape** (the shape table: each distinct shape once, numbered from 0 in order of
//!   appearance; two bodies with equal geometry share one entry, hulls and meshes
//!   included): `kind: u8`, then by kind
//!   - 0 sphere: `radius: f32`;
//!   - 1 capsule: `half_height: f32`, `radius: f32` (core segment along local y);
//!   - 2 box: `half_extents: 3 f32`;
//!   - 3 hull: `vertex_count: u16`, the vertices (3 `f32` each), `face_count: u16`, then
//!     per face `count: u16` and `count` vertex indices (`u16`), counter-clockwise seen
//!     from outside;
//!   - 4 plane: `normal: 3 f32`, `offset: f32` (the surface is `normal · x = offset`);
//!   - 5 mesh, 6 height field: `triangle_count: u32`, then per triangle its 3 corners
//!     (9 `f32`), counter-clockwise about the face normal.
//! - **2, body** (the body table, numbered from 0 in order of appearance; the body's
//!   number is what frames and events use): `id_index: u32`, `id_generation: u32` (the
//!   engine's `BodyId`), `type: u8` (0 static, 1 kinematic, 2 dynamic), `colour: u32`
//!   (0xRRGGBBAA), `pose` (the pose when the body appeared), `shape_count: u16`, then per
//!   shape `shape: u32` (the shape table's number), `local_pose: pose` (on the body),
//!   `flags: u8` (bit 0: a sensor). Bodies that appear during the recording get their
//!   record before the first frame that has them.
//! - **4, removed body**: `body: u32`; the body was removed before the next frame.
//! - **7, joint** (the joint table, numbered from 0 in order of appearance), after the
//!   records of its bodies and before the first frame that has it: `id_index: u32`,
//!   `id_generation: u32` (the engine's `JointId`), `body_a: u32`, `body_b: u32` (body
//!   numbers), `kind: u8` (0 ball, 1 hinge, 2 slider, 3 fixed, 4 distance, 5 cone-twist,
//!   6 motor), `frame_a: pose`, `frame_b: pose`: the joint's frame on each body, in that
//!   body's own frame (`World::joint_def`). A joint frame's world pose at a frame is its
//!   body's pose at that frame times the joint frame: where `World::debug_draw` draws it.
//! - **8, removed joint**: `joint: u32`; the joint was removed, or broke, or went with one
//!   of its bodies, before the next frame.
//! - **3, frame**, written after each step (frame 0: the world as the recorder found it):
//!   - `frame: u32` (steps since the recorder was attached), `state_hash: u64`
//!     (`World::state_hash`), `pose_hash: u64` (below);
//!   - poses: `n: u32`, then 8 columns of `n` `u32` each: the body numbers as gaps (the
//!     first body's number, then each next number minus the previous minus 1), then
//!     the 7 pose fields, each the `f32` bits XOR the bits of the same field of the same
//!     body's previous pose (from its last frame, or from its body record). Each column
//!     is stored as 4 byte planes (all the lowest bytes, ..., all the highest bytes),
//!     which gzip compresses far better than interleaved floats. The bodies recorded are
//!     the awake non-static ones, in ascending body number; a body not in a frame keeps
//!     its previous pose (it sleeps, or it is static);
//!   - contacts (the touching ones, `World::contacts`): `m: u32`, `p: u32` (points),
//!     then `m` point counts (`u8`), then columns (4 byte planes each) of `m` `u32`:
//!     body A, body B, normal x, y, z (`f32` bits, from A to B); then columns of `p`:
//!     point x, y, z, separation, normal impulse (`f32` bits), the points of contact 0
//!     first. With contacts off ([`RecordOptions::contacts`]) `m = p = 0`;
//!   - events, six lists, each `count: u32` then its items: contact begin and contact
//!     end (`body_a: u32`, `body_b: u32`), hits (`body_a`, `body_b`, `point: 3 f32`,
//!     `normal: 3 f32`, `approach_speed: f32`), sensor begin and sensor end
//!     (`sensor_body: u32`, `visitor_body: u32`), broken joints (`joint_index: u32`,
//!     `body_a`, `body_b`, `impulse: f32`, `angular_impulse: f32`). A body number of
//!     `0xFFFFFFFF` is a body the recording does not know (removed before it was seen).
//! - **5, particles added** (the particle table: particles numbered from 0 in order of
//!   appearance; a slot reused by a new particle, with a new generation, is a new number),
//!   before the particle frame of the first frame that has them: `count: u32`, then 3
//!   columns of `count` `u32` (4 byte planes each): `id_index`, `id_generation` (the
//!   engine's `ParticleId`), `radius` (`f32` bits, m, exact).
//! - **6, particle frame**, just before the frame record (tag 3) it belongs to, when the
//!   world has particles after that step: `frame: u32` (the number of that frame),
//!   `particle_hash: u64` (below), `n: u32`, then 4 columns of `n` `u32` (4 byte planes
//!   each): the particle numbers as gaps (as the bodies' numbers), then position x, y, z,
//!   each the `f32` bits XOR the bits of the same particle's position in the last frame
//!   that had it (0 for the frame it first appears in). Every live particle is in it, in
//!   ascending number (`World::particles`, positions rounded like the bodies' with
//!   [`RecordOptions::grid`]). A frame with no particle frame before it has no particles;
//!   a particle missing from a frame was removed before that frame and never comes back.
//!
//! ## The pose hash
//!
//! FNV-1a 64 (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`) over, for each
//! pose of the frame in order, the 32 bytes `body: u32` then the 7 pose fields' `f32`
//! bits, little-endian: what the frame's reader decodes must hash to `pose_hash`, so a
//! reader proves it decoded the poses bit for bit. [`pose_hash`] computes it.
//!
//! The particle hash is the same over, for each particle of the particle frame in order,
//! the 16 bytes `particle: u32` then x, y, z (`f32` bits): [`particle_hash`]. A frame
//! without particles has the hash of nothing, the offset basis. It is a field of its own,
//! not part of the pose hash, so that readers which skip the particle records still find
//! every frame's pose hash right.

#![warn(missing_docs)]

mod read;
pub mod serve;
mod write;

pub use read::{
    first_difference, BodyRecord, ContactRecord, Events, FrameRecord, HitRecord, JointBreakRecord,
    JointRecord, ParticleRecord, ReadError, Recording, ShapeRecord,
};
pub use write::{default_colour, RecordError, RecordOptions, Recorder};

/// The file's first four bytes (inside the gzip stream).
pub const MAGIC: [u8; 4] = *b"IMPR";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;
/// A body number that the recording does not know.
pub const UNKNOWN_BODY: u32 = u32::MAX;

/// Record tags.
pub(crate) mod tag {
    pub const SHAPE: u8 = 1;
    pub const BODY: u8 = 2;
    pub const FRAME: u8 = 3;
    pub const REMOVED: u8 = 4;
    pub const PARTICLES_ADDED: u8 = 5;
    pub const PARTICLE_FRAME: u8 = 6;
    pub const JOINT: u8 = 7;
    pub const REMOVED_JOINT: u8 = 8;
}

/// Shape kinds of the shape table.
pub(crate) mod kind {
    pub const SPHERE: u8 = 0;
    pub const CAPSULE: u8 = 1;
    pub const BOX: u8 = 2;
    pub const HULL: u8 = 3;
    pub const PLANE: u8 = 4;
    pub const MESH: u8 = 5;
    pub const HEIGHT_FIELD: u8 = 6;
}

/// A pose as the file stores it: position x, y, z, then rotation x, y, z, w.
pub type Pose = [f32; 7];

/// The pose of `xf` as the file stores it.
pub fn pose_of(xf: &impetus::Transform) -> Pose {
    [xf.p.x, xf.p.y, xf.p.z, xf.q.x, xf.q.y, xf.q.z, xf.q.w]
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The pose hash of a frame's poses (see the module documentation): FNV-1a 64 over
/// `body: u32` and the 7 `f32` bits of each pose, little-endian, in order.
pub fn pose_hash<'a>(poses: impl IntoIterator<Item = (u32, &'a Pose)>) -> u64 {
    let mut h = FNV_OFFSET;
    let mut mix = |bytes: [u8; 4]| {
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
    };
    for (body, pose) in poses {
        mix(body.to_le_bytes());
        for v in pose {
            mix(v.to_bits().to_le_bytes());
        }
    }
    h
}

/// The particle hash of a frame's particles (see the module documentation): FNV-1a 64 over
/// `particle: u32` and the 3 `f32` bits of each position, little-endian, in order; the
/// offset basis for none.
pub fn particle_hash<'a>(particles: impl IntoIterator<Item = (u32, &'a [f32; 3])>) -> u64 {
    let mut h = FNV_OFFSET;
    let mut mix = |bytes: [u8; 4]| {
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
    };
    for (particle, position) in particles {
        mix(particle.to_le_bytes());
        for v in position {
            mix(v.to_bits().to_le_bytes());
        }
    }
    h
}

/// Appends `columns` (each of the same length) to `out` as byte planes: for each column,
/// its lowest bytes, then its second bytes, and so on.
pub(crate) fn put_planes(out: &mut Vec<u8>, columns: &[&[u32]]) {
    for col in columns {
        for shift in [0u32, 8, 16, 24] {
            out.extend(col.iter().map(|v| (v >> shift) as u8));
        }
    }
}

/// The viewer's test scene: one unit box (half extent 0.5 m, rotated 0.3 rad about x and
/// 0.2 rad about y) dropped from 4 m onto a static ground box (half extents 8 × 0.5 × 8 m,
/// top at y = 0), gravity −10 m/s², one worker, sleep on. It lands within 60 steps and
/// rests with its centre near y = 0.5.
pub fn fall_world() -> Result<impetus::World, impetus::Error> {
    use impetus::{BodyDef, BodyType, Quat, ShapeDef, Vec3, World, WorldDef};
    let mut world = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        worker_count: 1,
        ..WorldDef::default()
    })?;
    let ground = world.create_body(&BodyDef {
        body_type: BodyType::Static,
        position: Vec3::new(0.0, -0.5, 0.0),
        ..Default::default()
    })?;
    world.add_shape(ground, &ShapeDef::cuboid(Vec3::new(8.0, 0.5, 8.0)))?;
    let b = world.create_body(&BodyDef {
        position: Vec3::new(0.0, 4.0, 0.0),
        rotation: Quat::from_rotation_x(0.3) * Quat::from_rotation_y(0.2),
        ..Default::default()
    })?;
    world.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)))?;
    Ok(world)
}

/// The particles' test scene: a static sphere (radius 0.5 m, centre at y = 0.5) on a
/// static ground box (half extents 8 × 0.5 × 8 m, top at y = 0), and a 16 × 16 cloth
/// ([`impetus::ClothDef`]: 8 cm between particles of radius 2 cm, 0.5 kg) held flat 1.6 m
/// above the ground, centred over the sphere; gravity −10 m/s², one worker. The cloth
/// falls onto the sphere and drapes over it.
pub fn cloth_world() -> Result<impetus::World, impetus::Error> {
    use impetus::{BodyDef, BodyType, ClothDef, ShapeDef, Vec3, World, WorldDef};
    let mut world = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        worker_count: 1,
        ..WorldDef::default()
    })?;
    let ground = world.create_body(&BodyDef {
        body_type: BodyType::Static,
        position: Vec3::new(0.0, -0.5, 0.0),
        ..Default::default()
    })?;
    world.add_shape(ground, &ShapeDef::cuboid(Vec3::new(8.0, 0.5, 8.0)))?;
    let ball = world.create_body(&BodyDef {
        body_type: BodyType::Static,
        position: Vec3::new(0.0, 0.5, 0.0),
        ..Default::default()
    })?;
    world.add_shape(ball, &ShapeDef::sphere(0.5))?;
    let (n, spacing) = (16u32, 0.08f32);
    let half = 0.5 * spacing * (n - 1) as f32;
    world.create_cloth(&ClothDef {
        origin: Vec3::new(-half, 1.6, -half),
        nx: n,
        ny: n,
        spacing,
        thickness: 0.02,
        ..ClothDef::default()
    })?;
    Ok(world)
}

/// The joints' test scene: a static ground box (half extents 8 × 0.5 × 8 m, top at y = 0);
/// a bar (half extents 0.5 × 0.1 × 0.1 m) hinged by its end about z to a small static
/// block at (−1, 3, 0), released level; and a chain of three links (half extents 0.25 ×
/// 0.08 × 0.08 m) held by ball joints end to end from a block at (1.5, 3, 0), released
/// level along +x. Gravity −10 m/s², one worker. Both swing down. Returns the world and
/// the chain's last joint (the joints example removes it to let the last link fall).
pub fn joints_world() -> Result<(impetus::World, impetus::JointId), impetus::Error> {
    use impetus::{BodyDef, BodyType, JointDef, JointKind, ShapeDef, Vec3, World, WorldDef};
    let mut world = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        worker_count: 1,
        ..WorldDef::default()
    })?;
    let add = |world: &mut World, body_type, position, half: Vec3| {
        let b = world.create_body(&BodyDef {
            body_type,
            position,
            ..Default::default()
        })?;
        world.add_shape(b, &ShapeDef::cuboid(half))?;
        Ok::<_, impetus::Error>(b)
    };
    add(
        &mut world,
        BodyType::Static,
        Vec3::new(0.0, -0.5, 0.0),
        Vec3::new(8.0, 0.5, 8.0),
    )?;
    let block = Vec3::splat(0.1);
    let pivot = Vec3::new(-1.0, 3.0, 0.0);
    let hinge_block = add(&mut world, BodyType::Static, pivot, block)?;
    let bar = add(
        &mut world,
        BodyType::Dynamic,
        pivot + Vec3::new(0.5, 0.0, 0.0),
        Vec3::new(0.5, 0.1, 0.1),
    )?;
    let join = |world: &mut World, kind, a, b, anchor: Vec3, axis: Vec3| {
        let (xa, xb) = (world.body_transform(a)?, world.body_transform(b)?);
        world.create_joint(&JointDef::at_world(kind, a, &xa, b, &xb, anchor, axis))
    };
    let hinge = JointKind::Hinge {
        limits: None,
        motor: None,
        spring: None,
    };
    join(&mut world, hinge, hinge_block, bar, pivot, Vec3::Z)?;
    let top = Vec3::new(1.5, 3.0, 0.0);
    let mut last = add(&mut world, BodyType::Static, top, block)?;
    let mut joint = None;
    for i in 0..3 {
        let end = top + Vec3::new(0.5 * i as f32, 0.0, 0.0);
        let link = add(
            &mut world,
            BodyType::Dynamic,
            end + Vec3::new(0.25, 0.0, 0.0),
            Vec3::new(0.25, 0.08, 0.08),
        )?;
        joint = Some(join(&mut world, JointKind::Ball, last, link, end, Vec3::Z)?);
        last = link;
    }
    let joint = joint.ok_or(impetus::Error::Unsupported { what: "no chain" })?;
    Ok((world, joint))
}
