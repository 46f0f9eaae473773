//! The reader: an `.impr` file into a [`Recording`], checked as it goes. Bad input is an
//! [`ReadError`] naming the place and what is wrong, never a panic.

use crate::{kind, tag, Pose, MAGIC, UNKNOWN_BODY, VERSION};
use flate2::read::GzDecoder;
use std::fmt;
use std::io::Read;

/// What is wrong with a file that does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Where: a byte offset in the decompressed stream, if the gzip layer was read.
    pub offset: Option<usize>,
    /// What.
    pub what: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(
                f,
                "not a valid .impr file: at byte {o} (decompressed): {}",
                self.what
            ),
            None => write!(f, "not a valid .impr file: {}", self.what),
        }
    }
}

impl std::error::Error for ReadError {}

/// A shape of the shape table.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeRecord {
    /// A sphere about the origin.
    Sphere {
        /// m.
        radius: f32,
    },
    /// A capsule along local y.
    Capsule {
        /// Half the core segment, m.
        half_height: f32,
        /// m.
        radius: f32,
    },
    /// A box about the origin.
    Box {
        /// m.
        half_extents: [f32; 3],
    },
    /// A convex hull.
    Hull {
        /// The vertices, m.
        vertices: Vec<[f32; 3]>,
        /// Each face's polygon (vertex indices).
        faces: Vec<Vec<u16>>,
    },
    /// A half-space whose surface is `normal · x = offset`.
    Plane {
        /// Unit normal.
        normal: [f32; 3],
        /// m.
        offset: f32,
    },
    /// A triangle mesh, as a triangle list.
    Mesh {
        /// The corners of each triangle, m.
        triangles: Vec<[[f32; 3]; 3]>,
    },
    /// A height field, as a triangle list.
    HeightField {
        /// The corners of each triangle, m.
        triangles: Vec<[[f32; 3]; 3]>,
    },
}

/// A body of the body table.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyRecord {
    /// The engine's `BodyId` slot.
    pub id_index: u32,
    /// The engine's `BodyId` generation.
    pub id_generation: u32,
    /// 0 static, 1 kinematic, 2 dynamic.
    pub body_type: u8,
    /// 0xRRGGBBAA.
    pub colour: u32,
    /// The pose when the body appeared.
    pub pose: Pose,
    /// Its shapes: the shape table's number, the pose on the body, flags (bit 0: sensor).
    pub shapes: Vec<(u32, Pose, u8)>,
    /// The first frame that has the body.
    pub first_frame: u32,
    /// The first frame without it, if it was removed.
    pub removed_at: Option<u32>,
}

/// A joint of the joint table.
#[derive(Clone, Debug, PartialEq)]
pub struct JointRecord {
    /// The engine's `JointId` slot.
    pub id_index: u32,
    /// The engine's `JointId` generation.
    pub id_generation: u32,
    /// Body A's number.
    pub body_a: u32,
    /// Body B's number.
    pub body_b: u32,
    /// 0 ball, 1 hinge, 2 slider, 3 fixed, 4 distance, 5 cone-twist, 6 motor.
    pub kind: u8,
    /// The joint frame on body A, in A's own frame.
    pub frame_a: Pose,
    /// The joint frame on body B, in B's own frame.
    pub frame_b: Pose,
    /// The first frame that has the joint.
    pub first_frame: u32,
    /// The first frame without it, if it was removed (or broke).
    pub removed_at: Option<u32>,
}

/// A particle of the particle table.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleRecord {
    /// The engine's `ParticleId` slot.
    pub id_index: u32,
    /// The engine's `ParticleId` generation.
    pub id_generation: u32,
    /// m.
    pub radius: f32,
    /// The first frame that has the particle.
    pub first_frame: u32,
    /// The first frame without it, if it was removed.
    pub removed_at: Option<u32>,
}

/// A touching contact of a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactRecord {
    /// Body A's number (or [`UNKNOWN_BODY`]).
    pub body_a: u32,
    /// Body B's number.
    pub body_b: u32,
    /// The unit normal from A to B.
    pub normal: [f32; 3],
    /// The points: position (m), separation (m), normal impulse (N·s).
    pub points: Vec<([f32; 3], f32, f32)>,
}

/// A hit event.
#[derive(Clone, Debug, PartialEq)]
pub struct HitRecord {
    /// Body A's number.
    pub body_a: u32,
    /// Body B's number.
    pub body_b: u32,
    /// The point, m.
    pub point: [f32; 3],
    /// The normal, A to B.
    pub normal: [f32; 3],
    /// The approach speed, m/s.
    pub approach_speed: f32,
}

/// A broken joint.
#[derive(Clone, Debug, PartialEq)]
pub struct JointBreakRecord {
    /// The engine's `JointId` slot.
    pub joint_index: u32,
    /// Body A's number.
    pub body_a: u32,
    /// Body B's number.
    pub body_b: u32,
    /// N·s.
    pub impulse: f32,
    /// N·m·s.
    pub angular_impulse: f32,
}

/// The events of a frame (body numbers as pairs: A and B, or sensor and visitor).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Events {
    /// Contacts that began touching.
    pub contact_begin: Vec<(u32, u32)>,
    /// Contacts that stopped touching.
    pub contact_end: Vec<(u32, u32)>,
    /// Hits.
    pub hits: Vec<HitRecord>,
    /// Sensors that began overlapping a shape: (sensor body, visitor body).
    pub sensor_begin: Vec<(u32, u32)>,
    /// Sensors that stopped overlapping a shape.
    pub sensor_end: Vec<(u32, u32)>,
    /// Joints that broke.
    pub joint_breaks: Vec<JointBreakRecord>,
}

/// One frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameRecord {
    /// Steps since the recorder was attached.
    pub frame: u32,
    /// `World::state_hash` after the step.
    pub state_hash: u64,
    /// The pose hash (checked against the decoded poses).
    pub pose_hash: u64,
    /// The awake non-static bodies' poses, by ascending body number, decoded.
    pub poses: Vec<(u32, Pose)>,
    /// The touching contacts.
    pub contacts: Vec<ContactRecord>,
    /// The events.
    pub events: Events,
    /// The live particles' positions (m), by ascending particle number, decoded.
    pub particles: Vec<(u32, [f32; 3])>,
    /// The particle hash (checked against the decoded particles; the hash of nothing,
    /// the FNV offset basis, for a frame without particles).
    pub particle_hash: u64,
}

/// A whole recording, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The step, s.
    pub dt: f32,
    /// Solver substeps.
    pub substeps: u32,
    /// m/s².
    pub gravity: [f32; 3],
    /// The shape table.
    pub shapes: Vec<ShapeRecord>,
    /// The body table.
    pub bodies: Vec<BodyRecord>,
    /// The frames, frame 0 first.
    pub frames: Vec<FrameRecord>,
    /// The particle table.
    pub particles: Vec<ParticleRecord>,
    /// The joint table.
    pub joints: Vec<JointRecord>,
}

/// The first frame at which two recordings differ (state hash, pose hash or particle
/// hash), comparing the frames both have; `None` when they agree on all of them.
pub fn first_difference(a: &Recording, b: &Recording) -> Option<u32> {
    a.frames
        .iter()
        .zip(&b.frames)
        .find(|(x, y)| {
            x.state_hash != y.state_hash
                || x.pose_hash != y.pose_hash
                || x.particle_hash != y.particle_hash
        })
        .map(|(x, _)| x.frame)
}

/// A frame's particles: number, position.
type Particles = Vec<(u32, [f32; 3])>;

/// The reader's particle state between records.
#[derive(Default)]
struct ParticleState {
    /// Per particle number: its last position's bits (the XOR base).
    last: Vec<[u32; 3]>,
    /// Per particle number: the frame that last had it (`u32::MAX`: none yet).
    seen: Vec<u32>,
    /// Particles in the last frame, and added to the table since: the ones the next frame
    /// may have (it has them all unless some left the world).
    live: usize,
    added: usize,
    /// The particle frame read for the next frame (tag 6 before its tag 3).
    pending: Option<(Particles, u64)>,
    /// Where the pending particle frame starts, for the error if no frame follows.
    pending_at: usize,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    end: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: impl Into<String>) -> ReadError {
        ReadError {
            offset: Some(self.at),
            what: what.into(),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        if self.end - self.at < n {
            return Err(self.err(format!(
                "{what}: needs {n} bytes, the {} has {} left",
                if self.end == self.bytes.len() {
                    "file"
                } else {
                    "record"
                },
                self.end - self.at
            )));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8, ReadError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, ReadError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, ReadError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &str) -> Result<u64, ReadError> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn f32(&mut self, what: &str) -> Result<f32, ReadError> {
        Ok(f32::from_bits(self.u32(what)?))
    }

    fn vec3(&mut self, what: &str) -> Result<[f32; 3], ReadError> {
        Ok([self.f32(what)?, self.f32(what)?, self.f32(what)?])
    }

    fn pose(&mut self, what: &str) -> Result<Pose, ReadError> {
        let mut p = [0.0; 7];
        for v in &mut p {
            *v = self.f32(what)?;
        }
        Ok(p)
    }

    /// A count of items of `size` bytes each, checked against what is left, so that a
    /// corrupt count cannot ask for a huge allocation.
    fn count(&mut self, size: usize, what: &str) -> Result<usize, ReadError> {
        let n = self.u32(what)? as usize;
        self.fits(n, size, what)?;
        Ok(n)
    }

    fn fits(&self, n: usize, size: usize, what: &str) -> Result<(), ReadError> {
        if n.saturating_mul(size) > self.end - self.at {
            return Err(self.err(format!(
                "{what}: {n} items of {size} bytes do not fit in the {} bytes left",
                self.end - self.at
            )));
        }
        Ok(())
    }

    /// `cols` columns of `n` `u32` stored as byte planes.
    fn planes(&mut self, n: usize, cols: usize, what: &str) -> Result<Vec<Vec<u32>>, ReadError> {
        let bytes = self.take(n * 4 * cols, what)?;
        Ok((0..cols)
            .map(|c| {
                let base = c * 4 * n;
                (0..n)
                    .map(|i| {
                        u32::from_le_bytes([
                            bytes[base + i],
                            bytes[base + n + i],
                            bytes[base + 2 * n + i],
                            bytes[base + 3 * n + i],
                        ])
                    })
                    .collect()
            })
            .collect())
    }
}

impl Recording {
    /// Reads an `.impr` file (gzip-compressed) from its bytes.
    pub fn from_bytes(file: &[u8]) -> Result<Recording, ReadError> {
        if file.len() < 2 || file[0] != 0x1f || file[1] != 0x8b {
            return Err(ReadError {
                offset: None,
                what: "not gzip-compressed (no gzip magic 1f 8b at the start)".into(),
            });
        }
        let mut raw = Vec::new();
        GzDecoder::new(file)
            .read_to_end(&mut raw)
            .map_err(|e| ReadError {
                offset: None,
                what: format!(
                    "the gzip stream is cut short or corrupt ({e}) after {} decompressed bytes",
                    raw.len()
                ),
            })?;
        Recording::from_raw(&raw)
    }

    /// Reads an `.impr` file from a path.
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<Recording, ReadError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| ReadError {
            offset: None,
            what: format!("reading {}: {e}", path.display()),
        })?;
        Recording::from_bytes(&bytes)
    }

    /// Reads the decompressed stream.
    pub fn from_raw(raw: &[u8]) -> Result<Recording, ReadError> {
        let mut c = Cursor {
            bytes: raw,
            at: 0,
            end: raw.len(),
        };
        let magic = c.take(4, "the magic")?;
        if magic != MAGIC {
            return Err(ReadError {
                offset: Some(0),
                what: format!("the magic is {magic:02x?}, not \"IMPR\""),
            });
        }
        let version = c.u32("the version")?;
        if version != VERSION {
            return Err(c.err(format!(
                "version {version}; this reader reads version {VERSION}"
            )));
        }
        let mut rec = Recording {
            dt: c.f32("dt")?,
            substeps: c.u32("substeps")?,
            gravity: c.vec3("gravity")?,
            shapes: Vec::new(),
            bodies: Vec::new(),
            frames: Vec::new(),
            particles: Vec::new(),
            joints: Vec::new(),
        };
        if !(rec.dt.is_finite() && rec.dt > 0.0) {
            return Err(c.err(format!("dt {} is not a positive time step", rec.dt)));
        }
        // Per body: its current pose bits (the XOR base) and whether it is in the world.
        let mut last: Vec<[u32; 7]> = Vec::new();
        let mut live: Vec<bool> = Vec::new();
        let mut ps = ParticleState::default();
        while c.at < raw.len() {
            let t = c.u8("a record's tag")?;
            let len = c.u32("a record's length")? as usize;
            c.fits(len, 1, "the record")?;
            let end = c.at + len;
            let mut r = Cursor {
                bytes: raw,
                at: c.at,
                end,
            };
            match t {
                tag::SHAPE => {
                    let n = rec.shapes.len();
                    rec.shapes.push(read_shape(&mut r, n)?);
                }
                tag::BODY => {
                    let b = read_body(&mut r, &rec)?;
                    last.push(b.pose.map(f32::to_bits));
                    live.push(true);
                    rec.bodies.push(b);
                }
                tag::REMOVED => {
                    let n = r.u32("a removed body")?;
                    if !live.get(n as usize).copied().unwrap_or(false) {
                        return Err(
                            r.err(format!("removal of body {n}, which is not in the world"))
                        );
                    }
                    live[n as usize] = false;
                    rec.bodies[n as usize].removed_at = Some(rec.frames.len() as u32);
                }
                tag::FRAME => {
                    let mut f = read_frame(&mut r, &rec, &mut last, &live)?;
                    end_particle_frame(&mut f, &mut rec, &mut ps);
                    rec.frames.push(f);
                }
                tag::JOINT => {
                    let j = read_joint(&mut r, &rec, &live)?;
                    rec.joints.push(j);
                }
                tag::REMOVED_JOINT => {
                    let n = r.u32("a removed joint")?;
                    let frame = rec.frames.len() as u32;
                    match rec.joints.get_mut(n as usize) {
                        Some(j) if j.removed_at.is_none() => j.removed_at = Some(frame),
                        _ => {
                            return Err(
                                r.err(format!("removal of joint {n}, which is not in the world"))
                            )
                        }
                    }
                }
                tag::PARTICLES_ADDED => read_particles_added(&mut r, &mut rec, &mut ps)?,
                tag::PARTICLE_FRAME => read_particle_frame(&mut r, &mut rec, &mut ps)?,
                _ => r.at = end, // A later version's record: skipped.
            }
            if r.at != end {
                return Err(r.err(format!(
                    "record of tag {t} has {} bytes past its fields",
                    end - r.at
                )));
            }
            c.at = end;
        }
        if rec.frames.is_empty() {
            return Err(c.err("no frame (the file ends before frame 0)"));
        }
        if ps.pending.is_some() {
            return Err(ReadError {
                offset: Some(ps.pending_at),
                what: format!(
                    "the particles of frame {} and then no frame (the file ends)",
                    rec.frames.len()
                ),
            });
        }
        Ok(rec)
    }
}

/// Tag 5: new particles into the table.
fn read_particles_added(
    r: &mut Cursor,
    rec: &mut Recording,
    ps: &mut ParticleState,
) -> Result<(), ReadError> {
    let what = format!("particles added before frame {}", rec.frames.len());
    let n = r.count(12, &what)?;
    if rec.particles.len() + n > u32::MAX as usize {
        return Err(r.err(format!("{what}: over 2^32 - 1 particles")));
    }
    let cols = r.planes(n, 3, &what)?;
    let first_frame = rec.frames.len() as u32;
    for ((&id_index, &id_generation), &radius) in cols[0].iter().zip(&cols[1]).zip(&cols[2]) {
        rec.particles.push(ParticleRecord {
            id_index,
            id_generation,
            radius: f32::from_bits(radius),
            first_frame,
            removed_at: None,
        });
        ps.last.push([0; 3]);
        ps.seen.push(u32::MAX);
    }
    ps.added += n;
    Ok(())
}

/// Tag 6: the particles of the next frame, decoded and held until its frame record.
fn read_particle_frame(
    r: &mut Cursor,
    rec: &mut Recording,
    ps: &mut ParticleState,
) -> Result<(), ReadError> {
    let start = r.at;
    let expected = rec.frames.len() as u32;
    let frame = r.u32("a particle frame's number")?;
    if frame != expected {
        return Err(r.err(format!(
            "the particles of frame {frame} where those of frame {expected} belong"
        )));
    }
    if ps.pending.is_some() {
        return Err(r.err(format!("a second particle frame for frame {frame}")));
    }
    let what = format!("frame {frame} particles");
    let hash = r.u64(&what)?;
    let n = r.count(16, &what)?;
    let cols = r.planes(n, 4, &what)?;
    let mut particles = Vec::with_capacity(n);
    let mut number: i64 = -1;
    for (i, gap) in cols[0].iter().enumerate() {
        number += i64::from(*gap) + 1;
        let k = number as usize;
        if number >= rec.particles.len() as i64 {
            return Err(r.err(format!(
                "{what}: particle {number}, but the particle table has {}",
                rec.particles.len()
            )));
        }
        if let Some(f) = rec.particles[k].removed_at {
            return Err(r.err(format!(
                "{what}: particle {number}, which left the world at frame {f}"
            )));
        }
        let base = &mut ps.last[k];
        let mut position = [0.0; 3];
        for (c, (b, v)) in base.iter_mut().zip(&mut position).enumerate() {
            *b ^= cols[c + 1][i];
            *v = f32::from_bits(*b);
        }
        particles.push((number as u32, position));
    }
    let computed = crate::particle_hash(particles.iter().map(|(n, p)| (*n, p)));
    if computed != hash {
        return Err(r.err(format!(
            "{what}: the particles decode to particle hash {computed:016x}, the file says {hash:016x}"
        )));
    }
    ps.pending = Some((particles, hash));
    ps.pending_at = start;
    Ok(())
}

/// At a frame record: its particles (the pending particle frame, or none), and the
/// particles that were in the frame before and are not in this one leave the world.
fn end_particle_frame(f: &mut FrameRecord, rec: &mut Recording, ps: &mut ParticleState) {
    let (particles, hash) = ps
        .pending
        .take()
        .unwrap_or_else(|| (Vec::new(), crate::particle_hash([])));
    // The frame's particles are distinct ones of the candidates (in the table, not
    // removed): when it has fewer, the missing ones left the world.
    if particles.len() != ps.live + ps.added {
        for (n, _) in &particles {
            ps.seen[*n as usize] = f.frame;
        }
        for (k, p) in rec.particles.iter_mut().enumerate() {
            if p.removed_at.is_none() && ps.seen[k] != f.frame {
                p.removed_at = Some(f.frame);
            }
        }
    }
    ps.live = particles.len();
    ps.added = 0;
    f.particles = particles;
    f.particle_hash = hash;
}

fn read_shape(r: &mut Cursor, n: usize) -> Result<ShapeRecord, ReadError> {
    let what = format!("shape {n}");
    let k = r.u8(&what)?;
    let s = match k {
        kind::SPHERE => ShapeRecord::Sphere {
            radius: r.f32(&what)?,
        },
        kind::CAPSULE => ShapeRecord::Capsule {
            half_height: r.f32(&what)?,
            radius: r.f32(&what)?,
        },
        kind::BOX => ShapeRecord::Box {
            half_extents: r.vec3(&what)?,
        },
        kind::HULL => {
            let nv = r.u16(&what)? as usize;
            r.fits(nv, 12, &what)?;
            let vertices = (0..nv)
                .map(|_| r.vec3(&what))
                .collect::<Result<Vec<_>, _>>()?;
            let nf = r.u16(&what)? as usize;
            r.fits(nf, 2, &what)?;
            let mut faces = Vec::with_capacity(nf);
            for f in 0..nf {
                let count = r.u16(&what)? as usize;
                r.fits(count, 2, &what)?;
                let mut poly = Vec::with_capacity(count);
                for _ in 0..count {
                    let i = r.u16(&what)?;
                    if i as usize >= nv {
                        return Err(r.err(format!("{what}: face {f} names vertex {i} of {nv}")));
                    }
                    poly.push(i);
                }
                faces.push(poly);
            }
            ShapeRecord::Hull { vertices, faces }
        }
        kind::PLANE => ShapeRecord::Plane {
            normal: r.vec3(&what)?,
            offset: r.f32(&what)?,
        },
        kind::MESH | kind::HEIGHT_FIELD => {
            let nt = r.count(36, &what)?;
            let mut triangles = Vec::with_capacity(nt);
            for _ in 0..nt {
                triangles.push([r.vec3(&what)?, r.vec3(&what)?, r.vec3(&what)?]);
            }
            if k == kind::MESH {
                ShapeRecord::Mesh { triangles }
            } else {
                ShapeRecord::HeightField { triangles }
            }
        }
        _ => return Err(r.err(format!("{what}: unknown shape kind {k}"))),
    };
    Ok(s)
}

fn read_body(r: &mut Cursor, rec: &Recording) -> Result<BodyRecord, ReadError> {
    let what = format!("body {}", rec.bodies.len());
    let id_index = r.u32(&what)?;
    let id_generation = r.u32(&what)?;
    let body_type = r.u8(&what)?;
    if body_type > 2 {
        return Err(r.err(format!("{what}: unknown body type {body_type}")));
    }
    let colour = r.u32(&what)?;
    let pose = r.pose(&what)?;
    let ns = r.u16(&what)? as usize;
    r.fits(ns, 33, &what)?;
    let mut shapes = Vec::with_capacity(ns);
    for _ in 0..ns {
        let s = r.u32(&what)?;
        if s as usize >= rec.shapes.len() {
            return Err(r.err(format!(
                "{what}: shape {s}, but the shape table has {} so far",
                rec.shapes.len()
            )));
        }
        shapes.push((s, r.pose(&what)?, r.u8(&what)?));
    }
    Ok(BodyRecord {
        id_index,
        id_generation,
        body_type,
        colour,
        pose,
        shapes,
        first_frame: rec.frames.len() as u32,
        removed_at: None,
    })
}

fn read_joint(r: &mut Cursor, rec: &Recording, live: &[bool]) -> Result<JointRecord, ReadError> {
    let what = format!("joint {}", rec.joints.len());
    let id_index = r.u32(&what)?;
    let id_generation = r.u32(&what)?;
    let body_a = r.u32(&what)?;
    let body_b = r.u32(&what)?;
    for b in [body_a, body_b] {
        if !live.get(b as usize).copied().unwrap_or(false) {
            return Err(r.err(format!("{what}: body {b}, which is not in the world")));
        }
    }
    let kind = r.u8(&what)?;
    if kind > 6 {
        return Err(r.err(format!("{what}: unknown joint kind {kind}")));
    }
    Ok(JointRecord {
        id_index,
        id_generation,
        body_a,
        body_b,
        kind,
        frame_a: r.pose(&what)?,
        frame_b: r.pose(&what)?,
        first_frame: rec.frames.len() as u32,
        removed_at: None,
    })
}

fn read_frame(
    r: &mut Cursor,
    rec: &Recording,
    last: &mut [[u32; 7]],
    live: &[bool],
) -> Result<FrameRecord, ReadError> {
    let expected = rec.frames.len() as u32;
    let frame = r.u32("a frame's number")?;
    if frame != expected {
        return Err(r.err(format!(
            "frame number {frame} where frame {expected} belongs"
        )));
    }
    let what = format!("frame {frame}");
    let state_hash = r.u64(&what)?;
    let pose_hash = r.u64(&what)?;

    let n = r.count(32, &format!("{what} poses"))?;
    let cols = r.planes(n, 8, &format!("{what} poses"))?;
    let mut poses = Vec::with_capacity(n);
    let mut body: i64 = -1;
    for (i, gap) in cols[0].iter().enumerate() {
        body += i64::from(*gap) + 1;
        if body >= live.len() as i64 || !live[body as usize] {
            return Err(r.err(format!(
                "{what}: a pose of body {body}, which is not in the world (the body table has {})",
                live.len()
            )));
        }
        let base = &mut last[body as usize];
        let mut pose = [0.0; 7];
        for (k, (b, v)) in base.iter_mut().zip(&mut pose).enumerate() {
            *b ^= cols[k + 1][i];
            *v = f32::from_bits(*b);
        }
        poses.push((body as u32, pose));
    }
    let computed = crate::pose_hash(poses.iter().map(|(b, p)| (*b, p)));
    if computed != pose_hash {
        return Err(r.err(format!(
            "{what}: the poses decode to pose hash {computed:016x}, the file says {pose_hash:016x}"
        )));
    }

    let body_ok = |b: u32| b == UNKNOWN_BODY || (b as usize) < live.len();
    let m = r.count(1 + 20, &format!("{what} contacts"))?;
    let p = r.count(20, &format!("{what} contact points"))?;
    let counts = r.take(m, &format!("{what} contacts"))?.to_vec();
    let total: usize = counts.iter().map(|&k| k as usize).sum();
    if total != p {
        return Err(r.err(format!(
            "{what}: the contacts' point counts add up to {total}, the frame says {p}"
        )));
    }
    let cc = r.planes(m, 5, &format!("{what} contacts"))?;
    let pc = r.planes(p, 5, &format!("{what} contact points"))?;
    let f = f32::from_bits;
    let mut contacts = Vec::with_capacity(m);
    let mut k = 0;
    for i in 0..m {
        if !body_ok(cc[0][i]) || !body_ok(cc[1][i]) {
            return Err(r.err(format!("{what}: contact {i} names a body not in the table")));
        }
        let points = (k..k + counts[i] as usize)
            .map(|j| {
                (
                    [f(pc[0][j]), f(pc[1][j]), f(pc[2][j])],
                    f(pc[3][j]),
                    f(pc[4][j]),
                )
            })
            .collect();
        k += counts[i] as usize;
        contacts.push(ContactRecord {
            body_a: cc[0][i],
            body_b: cc[1][i],
            normal: [f(cc[2][i]), f(cc[3][i]), f(cc[4][i])],
            points,
        });
    }

    let pair = |r: &mut Cursor, list: &str| -> Result<(u32, u32), ReadError> {
        let (a, b) = (r.u32(list)?, r.u32(list)?);
        if !body_ok(a) || !body_ok(b) {
            return Err(r.err(format!("{list}: names a body not in the table")));
        }
        Ok((a, b))
    };
    let mut events = Events::default();
    for (list, name) in [
        (&mut events.contact_begin, "contact begin events"),
        (&mut events.contact_end, "contact end events"),
    ] {
        let name = format!("{what} {name}");
        let n = r.count(8, &name)?;
        for _ in 0..n {
            list.push(pair(r, &name)?);
        }
    }
    let name = format!("{what} hit events");
    let n = r.count(36, &name)?;
    for _ in 0..n {
        let (body_a, body_b) = pair(r, &name)?;
        events.hits.push(HitRecord {
            body_a,
            body_b,
            point: r.vec3(&name)?,
            normal: r.vec3(&name)?,
            approach_speed: r.f32(&name)?,
        });
    }
    for (list, name) in [
        (&mut events.sensor_begin, "sensor begin events"),
        (&mut events.sensor_end, "sensor end events"),
    ] {
        let name = format!("{what} {name}");
        let n = r.count(8, &name)?;
        for _ in 0..n {
            list.push(pair(r, &name)?);
        }
    }
    let name = format!("{what} joint break events");
    let n = r.count(20, &name)?;
    for _ in 0..n {
        let joint_index = r.u32(&name)?;
        let (body_a, body_b) = pair(r, &name)?;
        events.joint_breaks.push(JointBreakRecord {
            joint_index,
            body_a,
            body_b,
            impulse: r.f32(&name)?,
            angular_impulse: r.f32(&name)?,
        });
    }
    Ok(FrameRecord {
        frame,
        state_hash,
        pose_hash,
        poses,
        contacts,
        events,
        particles: Vec::new(),
        particle_hash: crate::particle_hash([]),
    })
}
