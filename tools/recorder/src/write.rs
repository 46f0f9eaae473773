//! The writer: [`Recorder`], attached to a world, writes a frame after each step.

use crate::{
    kind, particle_hash, pose_hash, pose_of, put_planes, tag, Pose, MAGIC, UNKNOWN_BODY, VERSION,
};
use flate2::write::GzEncoder;
use flate2::Compression;
use impetus::{BodyId, BodyType, JointId, JointKind, Shape, World};
use std::collections::HashMap;
use std::fmt;
use std::io::Write;

/// What went wrong while recording.
#[derive(Debug)]
pub enum RecordError {
    /// Writing to the output failed.
    Io(std::io::Error),
    /// The world refused a read (a stale id between the recorder's listing and its read).
    World(impetus::Error),
    /// The world holds something the format cannot store (named).
    Unsupported(String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Io(e) => write!(f, "writing the recording: {e}"),
            RecordError::World(e) => write!(f, "reading the world: {e}"),
            RecordError::Unsupported(what) => write!(f, "cannot record {what}"),
        }
    }
}

impl std::error::Error for RecordError {}

impl From<std::io::Error> for RecordError {
    fn from(e: std::io::Error) -> Self {
        RecordError::Io(e)
    }
}

impl From<impetus::Error> for RecordError {
    fn from(e: impetus::Error) -> Self {
        RecordError::World(e)
    }
}

/// What a [`Recorder`] records.
#[derive(Clone, Copy, Debug)]
pub struct RecordOptions {
    /// Record the touching contact points with their normals and impulses (default on).
    /// A pile of 10,000 boxes has about 40,000 points a frame, several times the bytes of
    /// its poses.
    pub contacts: bool,
    /// gzip level, 0 (store) to 9 (smallest); default 6.
    pub level: u32,
    /// Record the poses exactly (`None`, the default: lossless), or rounded to a grid:
    /// `Some(e)` rounds each position coordinate to a multiple of 2^-e m and each
    /// quaternion component to a multiple of 2^-(e+2), to nearest (ties away from zero).
    /// Particle positions are rounded like body positions (their radii are kept exact).
    /// The file then holds, and its pose and particle hashes cover, the rounded values; a
    /// field changes between frames only when the body (or particle) moves by more than a
    /// grid step, so resting and slowly moving things cost next to nothing after gzip
    /// (a 16 × 16 cloth, 120 steps: 43 kB instead of 169 kB). `Some(10)`: steps of
    /// 0.98 mm and 0.00024, which no one sees. Recorded contacts are rounded too (points
    /// and separations to 2^-e m, normals to 2^-(e+2), impulses to 2^-e N·s). The state
    /// hash is the world's, exact either way.
    pub grid: Option<i32>,
    /// A body's colour (0xRRGGBBAA) from its id and type; default [`default_colour`].
    pub colour: fn(BodyId, BodyType) -> u32,
}

impl Default for RecordOptions {
    fn default() -> Self {
        RecordOptions {
            contacts: true,
            level: 6,
            grid: None,
            colour: default_colour,
        }
    }
}

/// The default body colours: static bodies grey, kinematic ones blue, dynamic ones one of
/// eight warm tones picked by the body's slot.
pub fn default_colour(id: BodyId, body_type: BodyType) -> u32 {
    const DYNAMIC: [u32; 8] = [
        0xe0_8a_4a_ff,
        0xd9_b0_4c_ff,
        0xc9_6a_5a_ff,
        0x8f_b8_5a_ff,
        0xe6_c2_8a_ff,
        0xb8_7a_b8_ff,
        0x6a_b0_a8_ff,
        0xd8_96_70_ff,
    ];
    match body_type {
        BodyType::Static => 0x8c_8c_8c_ff,
        BodyType::Kinematic => 0x5a_7f_d9_ff,
        BodyType::Dynamic => {
            let h = id.index.wrapping_mul(0x9e37_79b9);
            DYNAMIC[(h >> 29) as usize]
        }
    }
}

/// Records a world into an `.impr` stream (see the crate documentation for the format).
///
/// [`Recorder::new`] writes the header, the shapes, bodies and joints the world has, and
/// frame 0; call [`Recorder::record`] after each [`World::step`], then
/// [`Recorder::finish`]. Bodies created later are added to the body table when they first
/// show up (with the shapes they have then); removed ones get a removal record. Joints
/// likewise: the joint table, and a removal record for a joint removed or broken. Particles are recorded in every
/// frame that has any, each one's id and radius once in the particle table when it first
/// shows up. Buffers are reused from frame to frame.
pub struct Recorder<W: Write> {
    out: GzEncoder<W>,
    options: RecordOptions,
    frame: u32,
    /// Body number by engine id.
    numbers: HashMap<BodyId, u32>,
    /// Per body number: the id, whether it is still in the world, its last pose's bits.
    ids: Vec<BodyId>,
    live: Vec<bool>,
    last: Vec<[u32; 7]>,
    live_count: usize,
    /// The joint table: number by engine id; per number the id and whether it is live.
    joint_numbers: HashMap<JointId, u32>,
    joint_ids: Vec<JointId>,
    joint_live: Vec<bool>,
    /// Shape number by the bytes of its record, and by the address of shared geometry.
    shape_numbers: HashMap<Vec<u8>, u32>,
    shared: HashMap<usize, u32>,
    /// The shared geometry seen, kept alive so that its address stays its own.
    keep: Vec<Shape>,
    // Scratch, reused every frame.
    payload: Vec<u8>,
    recorded: Vec<(u32, Pose)>,
    columns: [Vec<u32>; 8],
    contact_columns: [Vec<u32>; 5],
    point_columns: [Vec<u32>; 5],
    counts: Vec<u8>,
    particles: Particles,
}

/// The particle table as the writer keeps it, and its scratch.
#[derive(Default)]
struct Particles {
    /// Per engine slot: the generation and the particle number of the particle last seen in
    /// it (generation 0: none; a live id's generation is never 0).
    by_slot: Vec<(u32, u32)>,
    /// Per particle number: its last recorded position's bits (the XOR base).
    last: Vec<[u32; 3]>,
    // Scratch, reused every frame.
    recorded: Vec<(u32, [f32; 3])>,
    added: [Vec<u32>; 3],
    columns: [Vec<u32>; 4],
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_pose(out: &mut Vec<u8>, pose: &Pose) {
    for v in pose {
        put_f32(out, *v);
    }
}

fn bits(pose: &Pose) -> [u32; 7] {
    pose.map(f32::to_bits)
}

/// `pose` rounded to the grid of [`RecordOptions::grid`] `e`: the nearest multiple of
/// 2^-e (position) or 2^-(e+2) (rotation), exact in f32 (a power-of-two scale). Fields
/// too large for the grid (|v| / step beyond 2^24, where f32 holds only multiples of the
/// step anyway) and non-finite ones are kept.
fn round_to_grid(pose: &mut Pose, e: i32) {
    for (k, v) in pose.iter_mut().enumerate() {
        *v = round_to_step(*v, if k < 3 { e } else { e + 2 });
    }
}

/// `v` rounded to the nearest multiple of 2^-e (kept when out of the grid's range).
fn round_to_step(v: f32, e: i32) -> f32 {
    let step = 2f32.powi(-e);
    let q = v / step;
    if q.is_finite() && q.abs() < 16_777_216.0 && step.is_normal() {
        q.round() * step
    } else {
        v
    }
}

impl<W: Write> Recorder<W> {
    /// Attaches a recorder to `world`, writing to `out`: the header (with `dt`, the step
    /// the host will use), the shape and body tables, and frame 0.
    pub fn new(
        out: W,
        world: &World,
        dt: f32,
        options: RecordOptions,
    ) -> Result<Recorder<W>, RecordError> {
        let mut r = Recorder {
            out: GzEncoder::new(out, Compression::new(options.level.min(9))),
            options,
            frame: 0,
            numbers: HashMap::new(),
            ids: Vec::new(),
            live: Vec::new(),
            last: Vec::new(),
            live_count: 0,
            joint_numbers: HashMap::new(),
            joint_ids: Vec::new(),
            joint_live: Vec::new(),
            shape_numbers: HashMap::new(),
            shared: HashMap::new(),
            keep: Vec::new(),
            payload: Vec::new(),
            recorded: Vec::new(),
            columns: Default::default(),
            contact_columns: Default::default(),
            point_columns: Default::default(),
            counts: Vec::new(),
            particles: Particles::default(),
        };
        let g = world.gravity();
        let mut header = Vec::with_capacity(28);
        header.extend_from_slice(&MAGIC);
        put_u32(&mut header, VERSION);
        put_f32(&mut header, dt);
        put_u32(&mut header, world.def().substeps);
        for v in g.to_array() {
            put_f32(&mut header, v);
        }
        r.out.write_all(&header)?;
        r.write_frame(world)?;
        Ok(r)
    }

    /// The number of the last frame written (0 right after [`Recorder::new`]).
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// Writes the next frame: call after each step.
    pub fn record(&mut self, world: &World) -> Result<(), RecordError> {
        self.frame += 1;
        self.write_frame(world)
    }

    /// Finishes the gzip stream and returns the output.
    pub fn finish(self) -> Result<W, RecordError> {
        Ok(self.out.finish()?)
    }

    fn record_out(&mut self, tag: u8) -> Result<(), RecordError> {
        let len = u32::try_from(self.payload.len())
            .map_err(|_| RecordError::Unsupported("a record over 4 GiB".into()))?;
        let mut head = [0u8; 5];
        head[0] = tag;
        head[1..].copy_from_slice(&len.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(&self.payload)?;
        Ok(())
    }

    /// The shape table's number for `shape`, writing its record the first time.
    fn shape_number(&mut self, shape: &Shape) -> Result<u32, RecordError> {
        let address = match shape {
            Shape::Hull { hull } => Some(std::sync::Arc::as_ptr(hull) as usize),
            Shape::Mesh { mesh } => Some(std::sync::Arc::as_ptr(mesh) as usize),
            Shape::HeightField { field } => Some(std::sync::Arc::as_ptr(field) as usize),
            _ => None,
        };
        if let Some(n) = address.and_then(|a| self.shared.get(&a)) {
            return Ok(*n);
        }
        let bytes = shape_bytes(shape)?;
        let n = match self.shape_numbers.get(&bytes) {
            Some(n) => *n,
            None => {
                let n = self.shape_numbers.len() as u32;
                self.payload.clear();
                self.payload.extend_from_slice(&bytes);
                self.record_out(tag::SHAPE)?;
                self.shape_numbers.insert(bytes, n);
                n
            }
        };
        if let Some(a) = address {
            self.shared.insert(a, n);
            self.keep.push(shape.clone());
        }
        Ok(n)
    }

    /// Adds body `id` to the body table (with its shapes), returning its number.
    fn add_body(&mut self, world: &World, id: BodyId) -> Result<u32, RecordError> {
        let body_type = world.body_type(id)?;
        let pose = pose_of(&world.body_transform(id)?);
        let mut shapes = Vec::new();
        for &s in world.body_shapes(id)? {
            let shape = world.shape(s)?;
            let n = self.shape_number(&shape)?;
            let local = pose_of(&world.shape_local_pose(s)?);
            shapes.push((n, local, u8::from(world.shape_is_sensor(s)?)));
        }
        let count = u16::try_from(shapes.len())
            .map_err(|_| RecordError::Unsupported("a body with over 65,535 shapes".into()))?;
        let p = &mut self.payload;
        p.clear();
        put_u32(p, id.index);
        put_u32(p, id.generation);
        p.push(match body_type {
            BodyType::Static => 0,
            BodyType::Kinematic => 1,
            BodyType::Dynamic => 2,
        });
        put_u32(p, (self.options.colour)(id, body_type));
        put_pose(p, &pose);
        p.extend_from_slice(&count.to_le_bytes());
        for (n, local, flags) in &shapes {
            put_u32(p, *n);
            put_pose(p, local);
            p.push(*flags);
        }
        self.record_out(tag::BODY)?;
        let number = self.ids.len() as u32;
        self.numbers.insert(id, number);
        self.ids.push(id);
        self.live.push(true);
        self.last.push(bits(&pose));
        self.live_count += 1;
        Ok(number)
    }

    /// New bodies into the table, removed ones out.
    fn sync_bodies(&mut self, world: &World) -> Result<(), RecordError> {
        if self.live_count == world.body_count()
            && world.bodies().all(|id| self.numbers.contains_key(&id))
        {
            return Ok(());
        }
        for n in 0..self.ids.len() {
            if self.live[n] && !world.contains_body(self.ids[n]) {
                self.live[n] = false;
                self.live_count -= 1;
                self.numbers.remove(&self.ids[n]);
                self.payload.clear();
                put_u32(&mut self.payload, n as u32);
                self.record_out(tag::REMOVED)?;
            }
        }
        let fresh: Vec<BodyId> = world
            .bodies()
            .filter(|id| !self.numbers.contains_key(id))
            .collect();
        for id in fresh {
            self.add_body(world, id)?;
        }
        Ok(())
    }

    /// Adds joint `id` to the joint table, returning its number.
    fn add_joint(&mut self, world: &World, id: JointId) -> Result<u32, RecordError> {
        let def = world.joint_def(id)?;
        let (a, b) = (self.number(def.body_a), self.number(def.body_b));
        let p = &mut self.payload;
        p.clear();
        put_u32(p, id.index);
        put_u32(p, id.generation);
        put_u32(p, a);
        put_u32(p, b);
        p.push(joint_kind(&def.kind));
        put_pose(p, &pose_of(&def.frame_a));
        put_pose(p, &pose_of(&def.frame_b));
        self.record_out(tag::JOINT)?;
        let number = self.joint_ids.len() as u32;
        self.joint_numbers.insert(id, number);
        self.joint_ids.push(id);
        self.joint_live.push(true);
        Ok(number)
    }

    /// New joints into the table, removed (or broken) ones out; after the bodies.
    fn sync_joints(&mut self, world: &World) -> Result<(), RecordError> {
        if self.joint_numbers.len() == world.joint_count()
            && world
                .joints()
                .all(|id| self.joint_numbers.contains_key(&id))
        {
            return Ok(());
        }
        for n in 0..self.joint_ids.len() {
            if self.joint_live[n] && world.joint_def(self.joint_ids[n]).is_err() {
                self.joint_live[n] = false;
                self.joint_numbers.remove(&self.joint_ids[n]);
                self.payload.clear();
                put_u32(&mut self.payload, n as u32);
                self.record_out(tag::REMOVED_JOINT)?;
            }
        }
        let fresh: Vec<JointId> = world
            .joints()
            .filter(|id| !self.joint_numbers.contains_key(id))
            .collect();
        for id in fresh {
            self.add_joint(world, id)?;
        }
        Ok(())
    }

    fn number(&self, id: BodyId) -> u32 {
        self.numbers.get(&id).copied().unwrap_or(UNKNOWN_BODY)
    }

    /// The particles of this frame: the table record of the new ones, then the particle
    /// frame (none when the world has no particles).
    fn write_particles(&mut self, world: &World) -> Result<(), RecordError> {
        let ps = &mut self.particles;
        ps.recorded.clear();
        for c in &mut ps.added {
            c.clear();
        }
        if world.particle_count() == 0 {
            return Ok(());
        }
        for (id, position) in world.particles() {
            let slot = id.index as usize;
            if ps.by_slot.len() <= slot {
                ps.by_slot.resize(slot + 1, (0, 0));
            }
            let number = match ps.by_slot[slot] {
                (g, n) if g == id.generation => n,
                _ => {
                    let n = u32::try_from(ps.last.len())
                        .ok()
                        .filter(|&n| n != u32::MAX)
                        .ok_or_else(|| {
                            RecordError::Unsupported("over 2^32 - 1 particles".into())
                        })?;
                    ps.by_slot[slot] = (id.generation, n);
                    ps.last.push([0; 3]);
                    ps.added[0].push(id.index);
                    ps.added[1].push(id.generation);
                    ps.added[2].push(world.particle_radius(id)?.to_bits());
                    n
                }
            };
            let mut p = position.to_array();
            if let Some(e) = self.options.grid {
                for v in &mut p {
                    *v = round_to_step(*v, e);
                }
            }
            ps.recorded.push((number, p));
        }
        if !ps.recorded.is_sorted_by_key(|r| r.0) {
            ps.recorded.sort_unstable_by_key(|r| r.0);
        }

        // The new particles' table record.
        if !ps.added[0].is_empty() {
            self.payload.clear();
            put_u32(&mut self.payload, ps.added[0].len() as u32);
            let cols: Vec<&[u32]> = ps.added.iter().map(Vec::as_slice).collect();
            put_planes(&mut self.payload, &cols);
            self.record_out(tag::PARTICLES_ADDED)?;
        }

        // The particle frame: gaps, then x, y, z XOR the last position, as byte planes.
        let ps = &mut self.particles;
        let hash = particle_hash(ps.recorded.iter().map(|(n, p)| (*n, p)));
        for c in &mut ps.columns {
            c.clear();
        }
        let mut previous: i64 = -1;
        for (n, position) in &ps.recorded {
            ps.columns[0].push((i64::from(*n) - previous - 1) as u32);
            previous = i64::from(*n);
            let last = &mut ps.last[*n as usize];
            for k in 0..3 {
                let now = position[k].to_bits();
                ps.columns[k + 1].push(now ^ last[k]);
                last[k] = now;
            }
        }
        let p = &mut self.payload;
        p.clear();
        put_u32(p, self.frame);
        p.extend_from_slice(&hash.to_le_bytes());
        put_u32(p, ps.recorded.len() as u32);
        let cols: Vec<&[u32]> = ps.columns.iter().map(Vec::as_slice).collect();
        put_planes(p, &cols);
        self.record_out(tag::PARTICLE_FRAME)
    }

    fn write_frame(&mut self, world: &World) -> Result<(), RecordError> {
        self.sync_bodies(world)?;
        self.sync_joints(world)?;
        self.write_particles(world)?;

        // The awake non-static bodies, by number.
        self.recorded.clear();
        for id in world.bodies() {
            if world.body_type(id)? == BodyType::Static || !world.body_is_awake(id)? {
                continue;
            }
            let n = self.number(id);
            let mut pose = pose_of(&world.body_transform(id)?);
            if let Some(e) = self.options.grid {
                round_to_grid(&mut pose, e);
            }
            self.recorded.push((n, pose));
        }
        if !self.recorded.is_sorted_by_key(|r| r.0) {
            self.recorded.sort_unstable_by_key(|r| r.0);
        }
        let hash = pose_hash(self.recorded.iter().map(|(n, p)| (*n, p)));

        let p = &mut self.payload;
        p.clear();
        put_u32(p, self.frame);
        p.extend_from_slice(&world.state_hash().to_le_bytes());
        p.extend_from_slice(&hash.to_le_bytes());

        // Poses: gaps, then the fields XOR the previous pose, as byte planes.
        for c in &mut self.columns {
            c.clear();
        }
        let mut previous: i64 = -1;
        for (n, pose) in &self.recorded {
            self.columns[0].push((i64::from(*n) - previous - 1) as u32);
            previous = i64::from(*n);
            let now = bits(pose);
            let last = &mut self.last[*n as usize];
            for k in 0..7 {
                self.columns[k + 1].push(now[k] ^ last[k]);
            }
            *last = now;
        }
        put_u32(p, self.recorded.len() as u32);
        let cols: Vec<&[u32]> = self.columns.iter().map(Vec::as_slice).collect();
        put_planes(p, &cols);

        // Contacts.
        for c in self
            .contact_columns
            .iter_mut()
            .chain(&mut self.point_columns)
        {
            c.clear();
        }
        self.counts.clear();
        if self.options.contacts {
            // On the grid, contacts are rounded too: points and separations like
            // positions, normals like quaternion components, impulses to 2^-e N·s.
            let grid = self.options.grid;
            let fine = |v: f32| grid.map_or(v, |e| round_to_step(v, e + 2));
            let coarse = |v: f32| grid.map_or(v, |e| round_to_step(v, e));
            for c in world.contacts() {
                let (a, b) = (
                    self.numbers.get(&c.body_a).copied().unwrap_or(UNKNOWN_BODY),
                    self.numbers.get(&c.body_b).copied().unwrap_or(UNKNOWN_BODY),
                );
                self.counts.push(c.points.len() as u8);
                let cc = &mut self.contact_columns;
                cc[0].push(a);
                cc[1].push(b);
                cc[2].push(fine(c.normal.x).to_bits());
                cc[3].push(fine(c.normal.y).to_bits());
                cc[4].push(fine(c.normal.z).to_bits());
                for q in c.points {
                    let pc = &mut self.point_columns;
                    pc[0].push(coarse(q.point.x).to_bits());
                    pc[1].push(coarse(q.point.y).to_bits());
                    pc[2].push(coarse(q.point.z).to_bits());
                    pc[3].push(coarse(q.separation).to_bits());
                    pc[4].push(coarse(q.normal_impulse).to_bits());
                }
            }
        }
        put_u32(p, self.counts.len() as u32);
        put_u32(p, self.point_columns[0].len() as u32);
        p.extend_from_slice(&self.counts);
        let cols: Vec<&[u32]> = self
            .contact_columns
            .iter()
            .chain(&self.point_columns)
            .map(Vec::as_slice)
            .collect();
        put_planes(p, &cols);

        // Events.
        let numbers = &self.numbers;
        let num = |id: BodyId| numbers.get(&id).copied().unwrap_or(UNKNOWN_BODY);
        for list in [world.contact_begin_events(), world.contact_end_events()] {
            put_u32(p, list.len() as u32);
            for t in list {
                put_u32(p, num(t.body_a));
                put_u32(p, num(t.body_b));
            }
        }
        let hits = world.contact_hit_events();
        put_u32(p, hits.len() as u32);
        for h in hits {
            put_u32(p, num(h.touch.body_a));
            put_u32(p, num(h.touch.body_b));
            for v in h.point.to_array().into_iter().chain(h.normal.to_array()) {
                put_f32(p, v);
            }
            put_f32(p, h.approach_speed);
        }
        for list in [world.sensor_begin_events(), world.sensor_end_events()] {
            put_u32(p, list.len() as u32);
            for s in list {
                put_u32(p, num(s.sensor_body));
                put_u32(p, num(s.visitor_body));
            }
        }
        let breaks = world.joint_break_events();
        put_u32(p, breaks.len() as u32);
        for b in breaks {
            put_u32(p, b.joint.index);
            put_u32(p, num(b.body_a));
            put_u32(p, num(b.body_b));
            put_f32(p, b.impulse);
            put_f32(p, b.angular_impulse);
        }
        self.record_out(tag::FRAME)
    }
}

/// The joint table's code for a kind (see the crate documentation).
fn joint_kind(kind: &JointKind) -> u8 {
    match kind {
        JointKind::Ball => 0,
        JointKind::Hinge { .. } => 1,
        JointKind::Slider { .. } => 2,
        JointKind::Fixed { .. } => 3,
        JointKind::Distance { .. } => 4,
        JointKind::ConeTwist { .. } => 5,
        JointKind::Motor { .. } => 6,
    }
}

/// The shape record's payload.
fn shape_bytes(shape: &Shape) -> Result<Vec<u8>, RecordError> {
    let mut p = Vec::new();
    match shape {
        Shape::Sphere { radius } => {
            p.push(kind::SPHERE);
            put_f32(&mut p, *radius);
        }
        Shape::Capsule {
            half_height,
            radius,
        } => {
            p.push(kind::CAPSULE);
            put_f32(&mut p, *half_height);
            put_f32(&mut p, *radius);
        }
        Shape::Box { half_extents } => {
            p.push(kind::BOX);
            for v in half_extents.to_array() {
                put_f32(&mut p, v);
            }
        }
        Shape::Hull { hull } => {
            p.push(kind::HULL);
            let vertices = hull.vertices();
            p.extend_from_slice(&(vertices.len() as u16).to_le_bytes());
            for v in vertices {
                for x in v.to_array() {
                    put_f32(&mut p, x);
                }
            }
            let faces = hull.faces();
            p.extend_from_slice(&(faces.len() as u16).to_le_bytes());
            for f in 0..faces.len() {
                let polygon = hull.face_polygon(f);
                p.extend_from_slice(&(polygon.len() as u16).to_le_bytes());
                for i in polygon {
                    p.extend_from_slice(&i.to_le_bytes());
                }
            }
        }
        Shape::Plane { normal, offset } => {
            p.push(kind::PLANE);
            for v in normal.to_array() {
                put_f32(&mut p, v);
            }
            put_f32(&mut p, *offset);
        }
        Shape::Mesh { .. } | Shape::HeightField { .. } => {
            p.push(if matches!(shape, Shape::Mesh { .. }) {
                kind::MESH
            } else {
                kind::HEIGHT_FIELD
            });
            let triangles = shape
                .triangles()
                .ok_or_else(|| RecordError::Unsupported("a mesh without triangles".into()))?;
            let count = u32::try_from(triangles.triangle_count())
                .map_err(|_| RecordError::Unsupported("a mesh of over 2^32 triangles".into()))?;
            put_u32(&mut p, count);
            for i in 0..count {
                for v in triangles.triangle(i).vertices {
                    for x in v.to_array() {
                        put_f32(&mut p, x);
                    }
                }
            }
        }
    }
    Ok(p)
}
