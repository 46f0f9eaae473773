//! The operation fuzzer's script: a byte string decoded into calls on the public API
//! (bodies, shapes of every kind, joints of every kind, velocities, poses, filters,
//! impulses and forces, steps, queries, saved states, images; with [`run_particles`] also
//! particles, springs, cloth, soft bodies and wind), with bounded and hostile parameters,
//! and the invariants checked after every call.
//!
//! Shared without copies by `engine/tests/fuzz_ops.rs` (`mod common;`) and by the
//! cargo-fuzz targets in `fuzz/` (`#[path = "../../engine/tests/common/ops.rs"] mod ops;`),
//! so it uses nothing but `impetus` and `std`.
//!
//! Invariants (a failure panics with the op that broke it):
//! - no call panics;
//! - a call that returns `Err` leaves `World::deep_hash` unchanged;
//! - every live body's position, rotation and velocities are finite, and every live
//!   particle's position and velocity;
//! - [`run`] returns the final `state_hash`: the same script at 1 and 2 worker threads must
//!   give the same one (the caller compares).

#![allow(dead_code)]

use impetus::{
    BodyDef, BodyId, BodyType, ClothDef, ClothPin, ConvexHull, Filter, Fluid, FluidId, HeightField,
    JointDef, JointId, JointKind, Limits, MassProperties, Motor, ParticleDef, ParticleId, Quat,
    QueryFilter, Shape, ShapeDef, ShapeId, SoftBodyDef, SoftBodyId, Spring, SpringDef, SpringEnd,
    SpringId, Transform, TriMesh, Vec3, World, WorldDef,
};
use std::sync::Arc;

/// Caps that keep a script's world small (and a run fast).
const MAX_BODIES: usize = 24;
const MAX_SHAPES: usize = 48;
const MAX_JOINTS: usize = 16;
const MAX_PARTICLES: usize = 400;

/// Reads the script: every read past the end gives zeros, so any byte string decodes.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
    /// Whether hostile values include finite extremes (1e30, `f32::MAX`, 1e-30...), not
    /// only NaN, ±inf, zeros and -1 (see [`run_with`]).
    extremes: bool,
    /// Whether a quarter of the operations are particle operations (see [`run_particles`]).
    particles: bool,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            extremes: true,
            particles: false,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// One of the values that break naive code.
    fn hostile(&mut self) -> f32 {
        if !self.extremes {
            const H: [f32; 6] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, -1.0];
            return H[self.u8() as usize % H.len()];
        }
        const H: [f32; 14] = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0e30,
            -1.0e30,
            0.0,
            -0.0,
            -1.0,
            1.0e-30,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1.0e-7,
            1.0e7,
        ];
        H[self.u8() as usize % H.len()]
    }

    /// A value in `[lo, hi]`, or (1 time in 8) a hostile one.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let tag = self.u8();
        if tag >= 224 {
            return self.hostile();
        }
        lo + (hi - lo) * (self.u16() as f32 / u16::MAX as f32)
    }

    /// A bounded value only (sizes of the shapes a well-behaved host makes).
    pub fn f32_ok(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.u16() as f32 / u16::MAX as f32)
    }

    pub fn vec3_in(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(
            self.f32_in(lo, hi),
            self.f32_in(lo, hi),
            self.f32_in(lo, hi),
        )
    }

    pub fn vec3_ok(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(
            self.f32_ok(lo, hi),
            self.f32_ok(lo, hi),
            self.f32_ok(lo, hi),
        )
    }

    /// A rotation: usually unit, sometimes unnormalised, zero or non-finite.
    pub fn quat(&mut self) -> Quat {
        match self.u8() % 16 {
            0 => Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            1 => Quat::from_xyzw(self.hostile(), 0.0, 0.0, 1.0),
            2 => Quat::from_xyzw(0.0, 3.0, 0.0, 4.0),
            3 => Quat::IDENTITY,
            _ => {
                let axis = self.vec3_ok(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y);
                Quat::from_axis_angle(axis, self.f32_ok(-3.2, 3.2))
            }
        }
    }

    pub fn transform(&mut self, reach: f32) -> Transform {
        Transform::new(self.vec3_in(-reach, reach), self.quat())
    }
}

/// The ids a script has seen, stale ones included (they must fail cleanly).
#[derive(Default)]
struct Ids {
    bodies: Vec<BodyId>,
    shapes: Vec<ShapeId>,
    joints: Vec<JointId>,
    fluids: Vec<FluidId>,
    states: Vec<Vec<u8>>,
    particles: Vec<ParticleId>,
    springs: Vec<SpringId>,
    soft: Vec<SoftBodyId>,
}

fn pick<T: Copy>(v: &[T], b: u8, fallback: T) -> T {
    if v.is_empty() {
        fallback
    } else {
        v[b as usize % v.len()]
    }
}

const NO_BODY: BodyId = BodyId {
    index: 7,
    generation: 3,
};
const NO_SHAPE: ShapeId = ShapeId {
    index: 5,
    generation: 9,
};
const NO_JOINT: JointId = JointId {
    index: 2,
    generation: 4,
};
const NO_FLUID: FluidId = FluidId {
    index: 1,
    generation: 6,
};

/// A convex hull from points; hostile scripts give coplanar, duplicate, collinear, huge or
/// non-finite clouds.
pub fn hull_points(r: &mut Bytes<'_>) -> Vec<Vec3> {
    let n = 1 + r.u8() as usize % 24;
    match r.u8() % 8 {
        // coplanar
        0 => (0..n)
            .map(|_| Vec3::new(r.f32_ok(-1.0, 1.0), 0.0, r.f32_ok(-1.0, 1.0)))
            .collect(),
        // duplicates
        1 => vec![r.vec3_ok(-1.0, 1.0); n],
        // collinear
        2 => (0..n).map(|_| Vec3::X * r.f32_ok(-1.0, 1.0)).collect(),
        // hostile coordinates
        3 => (0..n).map(|_| r.vec3_in(-1.0, 1.0)).collect(),
        // tiny (hulls of a millimetre and less overflow the solver: extremes only)
        4 => {
            let s = if r.extremes { 1.0e-6 } else { 1.0e-2 };
            (0..n).map(|_| r.vec3_ok(-s, s)).collect()
        }
        // huge (ConvexHull::new rejects clouds whose volume overflows)
        5 => {
            let s = if r.extremes { 1.0e18 } else { 1.0e2 };
            (0..n).map(|_| r.vec3_ok(-s, s)).collect()
        }
        _ => (0..n).map(|_| r.vec3_ok(-1.0, 1.0)).collect(),
    }
}

/// A triangle mesh: degenerate triangles, out-of-range indices, hostile coordinates.
pub fn mesh_parts(r: &mut Bytes<'_>) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let nv = r.u8() as usize % 12;
    let nt = r.u8() as usize % 12;
    let hostile = r.u8() % 4 == 0;
    let vertices: Vec<Vec3> = (0..nv)
        .map(|_| {
            if hostile {
                r.vec3_in(-4.0, 4.0)
            } else {
                r.vec3_ok(-4.0, 4.0)
            }
        })
        .collect();
    let bound = (nv as u32).max(1) + (r.u8() % 3) as u32; // sometimes out of range
    let triangles = (0..nt)
        .map(|_| [r.u32() % bound, r.u32() % bound, r.u32() % bound])
        .collect();
    (vertices, triangles)
}

/// A height field's parts: grid sizes from 0, hostile heights and scales.
pub fn field_parts(r: &mut Bytes<'_>) -> (usize, usize, Vec<f32>, Vec3) {
    let rows = r.u8() as usize % 7;
    let cols = r.u8() as usize % 7;
    let n = if r.u8() % 8 == 0 {
        r.u8() as usize % 40
    } else {
        rows * cols
    };
    let heights = (0..n).map(|_| r.f32_in(-1.0, 1.0)).collect();
    let scale = r.vec3_in(0.1, 2.0);
    (rows, cols, heights, scale)
}

/// A shape of any kind; `Err` when building its geometry fails (a bad hull or mesh).
pub fn shape(r: &mut Bytes<'_>) -> Result<Shape, impetus::Error> {
    Ok(match r.u8() % 7 {
        0 => Shape::Sphere {
            radius: r.f32_in(0.05, 1.5),
        },
        1 => Shape::Capsule {
            half_height: r.f32_in(0.0, 1.0),
            radius: r.f32_in(0.05, 1.0),
        },
        2 => Shape::Box {
            half_extents: r.vec3_in(0.05, 1.5),
        },
        3 => Shape::Hull {
            hull: Arc::new(ConvexHull::new(&hull_points(r))?),
        },
        4 => Shape::Plane {
            normal: if r.u8() % 4 == 0 {
                r.vec3_in(-1.0, 1.0)
            } else {
                r.vec3_ok(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y)
            },
            offset: r.f32_in(-2.0, 2.0),
        },
        5 => {
            let (v, t) = mesh_parts(r);
            Shape::Mesh {
                mesh: Arc::new(TriMesh::new(v, t)?),
            }
        }
        _ => {
            let (rows, cols, h, s) = field_parts(r);
            Shape::HeightField {
                field: Arc::new(HeightField::new(rows, cols, h, s)?),
            }
        }
    })
}

fn body_type(r: &mut Bytes<'_>) -> BodyType {
    match r.u8() % 4 {
        0 => BodyType::Static,
        1 => BodyType::Kinematic,
        _ => BodyType::Dynamic,
    }
}

fn filter(r: &mut Bytes<'_>) -> Filter {
    Filter {
        category: 1 << (r.u8() % 64),
        mask: if r.bool() { u64::MAX } else { r.u32() as u64 },
        group: (r.u8() as i8 % 3) as i32,
    }
}

fn spring(r: &mut Bytes<'_>) -> Option<Spring> {
    match r.u8() % 3 {
        0 => None,
        1 => Some(Spring::frequency(
            r.f32_in(0.5, 10.0),
            r.f32_in(0.0, 2.0),
            r.f32_in(-1.0, 1.0),
        )),
        _ => Some(Spring::physical(
            r.f32_in(1.0, 1000.0),
            r.f32_in(0.0, 10.0),
            r.f32_in(-1.0, 1.0),
        )),
    }
}

fn limits(r: &mut Bytes<'_>, reach: f32) -> Option<Limits> {
    if r.bool() {
        None
    } else {
        Some(Limits {
            lower: r.f32_in(-reach, 0.0),
            upper: r.f32_in(0.0, reach),
        })
    }
}

fn motor(r: &mut Bytes<'_>) -> Option<Motor> {
    if r.bool() {
        None
    } else {
        Some(Motor {
            speed: r.f32_in(-5.0, 5.0),
            max_force: r.f32_in(0.0, 100.0),
        })
    }
}

/// A joint kind of every variant.
pub fn joint_kind(r: &mut Bytes<'_>) -> JointKind {
    match r.u8() % 7 {
        0 => JointKind::Ball,
        1 => JointKind::Hinge {
            limits: limits(r, 3.0),
            motor: motor(r),
            spring: spring(r),
        },
        2 => JointKind::Slider {
            limits: limits(r, 2.0),
            motor: motor(r),
            spring: spring(r),
        },
        3 => JointKind::Fixed {
            linear: spring(r),
            angular: spring(r),
        },
        4 => {
            let min_length = r.f32_in(0.0, 2.0);
            JointKind::Distance {
                min_length,
                max_length: if r.u8() % 8 == 0 {
                    f32::INFINITY
                } else {
                    min_length + r.f32_in(0.0, 2.0)
                },
                spring: spring(r),
            }
        }
        5 => JointKind::ConeTwist {
            cone_angle: r.f32_in(0.0, 3.2),
            twist: limits(r, 3.0),
        },
        _ => JointKind::Motor {
            linear_offset: r.vec3_in(-1.0, 1.0),
            angular_offset: r.quat(),
            max_force: r.f32_in(0.0, 500.0),
            max_torque: r.f32_in(0.0, 500.0),
            correction: r.f32_in(0.0, 1.0),
        },
    }
}

/// A step length: usually 1/60 s, sometimes zero, negative, huge or non-finite.
///
/// Finite steps above 1e7 s are left out: `World::step` accepts them (it checks only
/// `dt > 0` and finite) and `dt · max_linear_speed` overflows the positions to infinity;
/// the check belongs in `world/step.rs` (see the fuzzing report).
fn dt(r: &mut Bytes<'_>) -> f32 {
    match r.u8() % 8 {
        0 => {
            let dt = r.f32_in(-0.1, 0.1);
            if dt.is_finite() && dt > 1.0e7 {
                1.0e7
            } else {
                dt
            }
        }
        1 => r.f32_in(0.001, 0.05),
        _ => 1.0 / 60.0,
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Operations run.
    pub ops: usize,
    /// Of those, the ones that returned `Err`.
    pub errors: usize,
    /// Steps taken (successful `World::step` calls).
    pub steps: usize,
    /// The final `World::state_hash`.
    pub state_hash: u64,
    /// The final `World::deep_hash`.
    pub deep_hash: u64,
}

/// Checks that every live body is finite.
fn check_finite(w: &World, op: &str) {
    // `IMPETUS_FUZZ_TRACE=2` prints every body after every op.
    let all = std::env::var("IMPETUS_FUZZ_TRACE").is_ok_and(|t| t == "2");
    for b in w.bodies() {
        let p = w.body_position(b).unwrap();
        let q = w.body_rotation(b).unwrap();
        let v = w.body_linear_velocity(b).unwrap();
        let a = w.body_angular_velocity(b).unwrap();
        if all {
            eprintln!("      {b:?} p {p} q {q} v {v} w {a}");
        }
        assert!(
            p.is_finite() && q.is_finite() && v.is_finite() && a.is_finite(),
            "after {op}: body {b:?} is not finite: p {p} q {q} v {v} w {a}"
        );
    }
    for (id, x) in w.particles() {
        let v = w.particle_velocity(id).unwrap();
        if all {
            eprintln!("      {id:?} x {x} v {v}");
        }
        assert!(
            x.is_finite() && v.is_finite(),
            "after {op}: particle {id:?} is not finite: x {x} v {v}"
        );
    }
}

/// Runs the script `data` on a fresh world of `workers` worker threads, checking the
/// invariants after every operation (panics naming the op that broke one). Hostile values
/// are NaN, ±inf, zeros and -1: the engine must reject or survive all of them.
pub fn run(data: &[u8], workers: usize) -> Outcome {
    run_with(data, workers, false)
}

/// [`run`], with `extremes`: hostile values include finite extremes too (1e30, ±`f32::MAX`,
/// 1e-30, 1e7...). The engine accepts most finite values and some of these still overflow
/// to NaN inside the step (see `fuzz_ops.rs`, `finite_extremes`).
pub fn run_with(data: &[u8], workers: usize, extremes: bool) -> Outcome {
    run_mode(data, workers, extremes, false)
}

/// [`run_with`] with particle operations too: a quarter of the operations make, change
/// or remove particles, springs, cloths and soft bodies, set the wind, or round-trip an
/// image.
pub fn run_particles(data: &[u8], workers: usize, extremes: bool) -> Outcome {
    run_mode(data, workers, extremes, true)
}

fn run_mode(data: &[u8], workers: usize, extremes: bool, particles: bool) -> Outcome {
    let mut r = Bytes::new(data);
    r.extremes = extremes;
    r.particles = particles;
    let mut w = World::new(WorldDef {
        worker_count: workers,
        ..Default::default()
    })
    .unwrap();
    let mut ids = Ids::default();
    let mut out = Outcome::default();
    // `IMPETUS_FUZZ_TRACE=1` prints every op and its result (to shrink a failing script).
    let trace = std::env::var_os("IMPETUS_FUZZ_TRACE").is_some();
    // A script may be cut short; the cap keeps a fuzzer's long inputs quick.
    while !r.is_empty() && out.ops < 256 {
        let code = r.u8();
        let before = w.deep_hash();
        let (name, res) = op(&mut w, &mut r, &mut ids, code);
        out.ops += 1;
        if trace {
            eprintln!("op {}: {name} -> {res:?}", out.ops);
        }
        if let Err(e) = res {
            out.errors += 1;
            let after = w.deep_hash();
            assert_eq!(
                before, after,
                "op {} ({name}) returned Err({e:?}) but changed the world",
                out.ops
            );
        } else if name == "step" {
            out.steps += 1;
        }
        check_finite(&w, name);
    }
    out.state_hash = w.state_hash();
    out.deep_hash = w.deep_hash();
    out
}

type Res = Result<(), impetus::Error>;

/// Prints an op's arguments when tracing (`IMPETUS_FUZZ_TRACE`).
fn tr(what: &dyn std::fmt::Debug) {
    if std::env::var_os("IMPETUS_FUZZ_TRACE").is_some() {
        eprintln!("    {what:?}");
    }
}

/// Decodes and runs one operation: (its name, what it returned).
fn op(w: &mut World, r: &mut Bytes<'_>, ids: &mut Ids, code: u8) -> (&'static str, Res) {
    let body = |r: &mut Bytes<'_>, ids: &Ids| pick(&ids.bodies, r.u8(), NO_BODY);
    if r.particles && code % 4 == 3 {
        return particle_op(w, r, ids, code / 4);
    }
    match code % 32 {
        0..=2 => {
            if w.body_count() >= MAX_BODIES {
                return ("create_body (full)", Ok(()));
            }
            let def = BodyDef {
                body_type: body_type(r),
                position: r.vec3_in(-6.0, 6.0),
                rotation: r.quat(),
                linear_velocity: r.vec3_in(-5.0, 5.0),
                angular_velocity: r.vec3_in(-5.0, 5.0),
                linear_damping: r.f32_in(0.0, 1.0),
                angular_damping: r.f32_in(0.0, 1.0),
                gravity_scale: r.f32_in(-1.0, 2.0),
                bullet: r.u8() % 8 == 0,
                can_sleep: r.bool(),
                ..Default::default()
            };
            tr(&def);
            let res = w.create_body(&def).map(|id| ids.bodies.push(id));
            ("create_body", res)
        }
        3 => ("remove_body", w.remove_body(body(r, ids))),
        4..=7 => {
            let b = body(r, ids);
            let shape = match shape(r) {
                Ok(s) => s,
                // Geometry that fails to build never reaches the world.
                Err(_) => return ("build geometry", Ok(())),
            };
            if ids.shapes.len() >= MAX_SHAPES * 2 || w.body_count() == 0 {
                return ("add_shape (full)", Ok(()));
            }
            let mut def = ShapeDef::new(shape)
                .with_density(r.f32_in(10.0, 2000.0))
                .with_friction(r.f32_in(0.0, 1.0))
                .with_restitution(r.f32_in(0.0, 1.0));
            if r.u8() % 4 == 0 {
                def = def.with_local_pose(r.transform(1.0));
            }
            match r.u8() % 8 {
                0 => def = def.sensor(),
                1 => def = def.with_hit_events(),
                2 => def = def.with_rolling_resistance(r.f32_in(0.0, 0.5)),
                3 => def = def.with_inner_radius(r.f32_in(0.0, 0.5)),
                4 => def = def.with_static_friction(r.f32_in(0.0, 1.0)),
                5 => def = def.with_filter(filter(r)),
                _ => {}
            }
            tr(&(b, &def.shape, def.local_pose, def.density));
            let res = w.add_shape(b, &def).map(|id| ids.shapes.push(id));
            ("add_shape", res)
        }
        8 => (
            "remove_shape",
            w.remove_shape(pick(&ids.shapes, r.u8(), NO_SHAPE)),
        ),
        9 | 10 => {
            if ids.joints.len() >= MAX_JOINTS * 2 {
                return ("create_joint (full)", Ok(()));
            }
            let (a, b) = (body(r, ids), body(r, ids));
            let mut def = JointDef::new(joint_kind(r), a, r.transform(1.0), b, r.transform(1.0));
            def.collide_connected = r.bool();
            if r.u8() % 4 == 0 {
                def.break_impulse = r.f32_in(0.0, 100.0);
                def.break_angular_impulse = r.f32_in(0.0, 100.0);
            }
            tr(&def);
            let res = w.create_joint(&def).map(|id| ids.joints.push(id));
            ("create_joint", res)
        }
        11 => (
            "remove_joint",
            w.remove_joint(pick(&ids.joints, r.u8(), NO_JOINT)),
        ),
        12 => {
            let j = pick(&ids.joints, r.u8(), NO_JOINT);
            ("set_joint_kind", w.set_joint_kind(j, joint_kind(r)))
        }
        13 => {
            let b = body(r, ids);
            let v = r.vec3_in(-10.0, 10.0);
            ("set_body_linear_velocity", w.set_body_linear_velocity(b, v))
        }
        14 => {
            let b = body(r, ids);
            let v = r.vec3_in(-10.0, 10.0);
            (
                "set_body_angular_velocity",
                w.set_body_angular_velocity(b, v),
            )
        }
        15 => {
            let b = body(r, ids);
            let xf = r.transform(6.0);
            tr(&(b, xf));
            ("set_body_transform", w.set_body_transform(b, xf.p, xf.q))
        }
        16 => {
            let s = pick(&ids.shapes, r.u8(), NO_SHAPE);
            ("set_shape_filter", w.set_shape_filter(s, filter(r)))
        }
        17 => {
            let b = body(r, ids);
            let (f, p) = (r.vec3_in(-100.0, 100.0), r.vec3_in(-6.0, 6.0));
            match r.u8() % 3 {
                0 => ("apply_force", w.apply_force(b, f, p)),
                1 => ("apply_force_to_center", w.apply_force_to_center(b, f)),
                _ => ("apply_torque", w.apply_torque(b, f)),
            }
        }
        18 => {
            let b = body(r, ids);
            let (i, p) = (r.vec3_in(-10.0, 10.0), r.vec3_in(-6.0, 6.0));
            if r.bool() {
                ("apply_linear_impulse", w.apply_linear_impulse(b, i, p))
            } else {
                ("apply_angular_impulse", w.apply_angular_impulse(b, i))
            }
        }
        19..=22 => {
            let dt = dt(r);
            tr(&dt);
            ("step", w.step(dt))
        }
        23 => {
            let b = body(r, ids);
            match r.u8() % 6 {
                0 => {
                    let mp = MassProperties {
                        mass: r.f32_in(0.1, 10.0),
                        inertia: r.vec3_in(0.01, 5.0),
                    };
                    (
                        "set_body_mass_properties",
                        w.set_body_mass_properties(b, mp),
                    )
                }
                1 => (
                    "set_body_gravity_scale",
                    w.set_body_gravity_scale(b, r.f32_in(-1.0, 2.0)),
                ),
                2 => {
                    let (l, a) = (r.f32_in(0.0, 2.0), r.f32_in(0.0, 2.0));
                    ("set_body_damping", w.set_body_damping(b, l, a))
                }
                3 => ("set_body_awake", w.set_body_awake(b, r.bool())),
                4 => ("set_bullet", w.set_bullet(b, r.bool())),
                _ => {
                    let c = r.f32_in(0.0, 2.0);
                    (
                        "set_body_drag_coefficient",
                        w.set_body_drag_coefficient(b, c),
                    )
                }
            }
        }
        24 => {
            let b = body(r, ids);
            let xf = r.transform(6.0);
            ("set_body_target_pose", w.set_body_target_pose(b, xf))
        }
        25 => {
            let g = r.vec3_in(-20.0, 20.0);
            tr(&g);
            ("set_gravity", w.set_gravity(g))
        }
        26 => match r.u8() % 3 {
            0 => {
                let fluid = Fluid {
                    surface_normal: r.vec3_in(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y),
                    surface_offset: r.f32_in(-2.0, 2.0),
                    density: r.f32_in(100.0, 2000.0),
                    linear_drag: r.f32_in(0.0, 2.0),
                    angular_drag: r.f32_in(0.0, 2.0),
                    velocity: r.vec3_in(-2.0, 2.0),
                };
                let res = w.add_fluid(&fluid).map(|id| ids.fluids.push(id));
                ("add_fluid", res)
            }
            1 => (
                "remove_fluid",
                w.remove_fluid(pick(&ids.fluids, r.u8(), NO_FLUID)),
            ),
            _ => {
                let (b, f) = (body(r, ids), pick(&ids.fluids, r.u8(), NO_FLUID));
                ("submersion", w.submersion(b, f).map(|_| ()))
            }
        },
        27 | 28 => query(w, r, ids),
        29 => {
            let mut s = Vec::new();
            w.save_state(&mut s);
            if ids.states.len() < 4 {
                ids.states.push(s);
            } else {
                let i = r.u8() as usize % 4;
                ids.states[i] = s;
            }
            ("save_state", Ok(()))
        }
        30 => {
            let mut s = if ids.states.is_empty() {
                Vec::new()
            } else {
                ids.states[r.u8() as usize % ids.states.len()].clone()
            };
            match r.u8() % 4 {
                0 if !s.is_empty() => {
                    let i = r.u32() as usize % s.len();
                    s[i] ^= 1 << (r.u8() % 8);
                }
                1 => s.truncate(r.u32() as usize % (s.len() + 1)),
                2 => s.extend((0..r.u8() % 16).map(|_| r.u8())),
                _ => {}
            }
            ("restore_state", w.restore_state(&s))
        }
        _ => {
            // An image round trip: the copy must load and hold the same state.
            let mut image = Vec::new();
            w.save_image(&mut image);
            if r.u8() % 4 == 0 && !image.is_empty() {
                let i = r.u32() as usize % image.len();
                image[i] ^= 1 << (r.u8() % 8);
                let _ = World::from_image_with_workers(&image, 1);
                return ("from_image (corrupt)", Ok(()));
            }
            let copy = World::from_image_with_workers(&image, 1)
                .expect("an image the world saved must load");
            assert_eq!(copy.state_hash(), w.state_hash(), "image round trip");
            ("save_image/from_image", Ok(()))
        }
    }
}

const NO_PARTICLE: ParticleId = ParticleId {
    index: 9999,
    generation: 1,
};

/// One particle operation (see [`run_particles`]).
fn particle_op(w: &mut World, r: &mut Bytes<'_>, ids: &mut Ids, code: u8) -> (&'static str, Res) {
    let particle = |r: &mut Bytes<'_>, ids: &Ids| pick(&ids.particles, r.u8(), NO_PARTICLE);
    let full = w.particle_count() >= MAX_PARTICLES;
    match code % 16 {
        0..=2 => {
            if full {
                return ("create_particle (full)", Ok(()));
            }
            let def = ParticleDef {
                position: r.vec3_in(-6.0, 6.0),
                velocity: r.vec3_in(-5.0, 5.0),
                mass: r.f32_in(0.001, 1.0),
                pinned: r.u8() % 8 == 0,
                radius: r.f32_in(0.005, 0.2),
                filter: if r.u8() % 4 == 0 {
                    filter(r)
                } else {
                    Filter::default()
                },
                linear_drag: r.f32_in(0.0, 0.1),
                quadratic_drag: r.f32_in(0.0, 0.1),
                friction: r.f32_in(0.0, 1.0),
                restitution: r.f32_in(0.0, 1.0),
                gravity_scale: r.f32_in(-1.0, 2.0),
            };
            tr(&def);
            let res = w.create_particle(&def).map(|id| ids.particles.push(id));
            ("create_particle", res)
        }
        3 => {
            if full {
                return ("create_cloth (full)", Ok(()));
            }
            let (nx, ny) = (2 + r.u8() as u32 % 6, 2 + r.u8() as u32 % 6);
            let mut pins = Vec::new();
            for _ in 0..r.u8() % 3 {
                let (i, j) = (r.u8() as u32 % (nx + 1), r.u8() as u32 % ny);
                pins.push(if r.bool() {
                    ClothPin::Fixed { i, j }
                } else {
                    ClothPin::Body {
                        i,
                        j,
                        body: pick(&ids.bodies, r.u8(), NO_BODY),
                    }
                });
            }
            let def = ClothDef {
                origin: r.vec3_in(-6.0, 6.0),
                nx,
                ny,
                spacing: r.f32_in(0.02, 0.5),
                mass: r.f32_in(0.01, 5.0),
                stretch_compliance: r.f32_in(0.0, 1.0e-3),
                shear_compliance: r.f32_in(0.0, 1.0e-2),
                bend_compliance: r.f32_in(0.0, 1.0),
                damping: r.f32_in(0.0, 1.0),
                thickness: r.f32_in(0.005, 0.1),
                friction: r.f32_in(0.0, 1.0),
                velocity: r.vec3_in(-5.0, 5.0),
                pins,
                ..Default::default()
            };
            tr(&def);
            let res = w.create_cloth(&def).map(|c| {
                ids.particles.extend(&c.particles);
                ids.springs.extend(&c.springs);
            });
            ("create_cloth", res)
        }
        4 => {
            if full {
                return ("create_soft_body (full)", Ok(()));
            }
            let shape = if r.bool() {
                SoftBodyDef::sphere(r.f32_in(0.05, 1.0), r.u8() as u32 % 2, r.f32_in(0.0, 50.0))
            } else {
                SoftBodyDef::cuboid(r.vec3_in(0.05, 1.0), [1, 1 + r.u8() as u32 % 2, 1])
            };
            let def = SoftBodyDef {
                position: r.vec3_in(-6.0, 6.0),
                rotation: r.quat(),
                velocity: r.vec3_in(-5.0, 5.0),
                mass: r.f32_in(0.01, 5.0),
                edge_compliance: r.f32_in(0.0, 1.0e-2),
                volume_compliance: r.f32_in(0.0, 1.0e-2),
                damping: r.f32_in(0.0, 1.0),
                radius: r.f32_in(0.005, 0.1),
                ..shape
            };
            tr(&(def.position, def.vertices.len(), def.pressure, def.mass));
            let res = w.create_soft_body(&def).map(|s| {
                ids.particles.extend(&s.particles);
                ids.springs.extend(&s.springs);
                ids.soft.push(s.id);
            });
            ("create_soft_body", res)
        }
        5 => {
            let a = particle(r, ids);
            let b = match r.u8() % 3 {
                0 => SpringEnd::Particle(particle(r, ids)),
                1 => SpringEnd::Body {
                    body: pick(&ids.bodies, r.u8(), NO_BODY),
                    point: r.vec3_in(-1.0, 1.0),
                },
                _ => SpringEnd::Point(r.vec3_in(-6.0, 6.0)),
            };
            let mut def = SpringDef::new(a, b)
                .with_compliance(r.f32_in(0.0, 1.0e-2))
                .with_damping(r.f32_in(0.0, 2.0));
            if r.bool() {
                def = def.with_rest_length(r.f32_in(0.0, 2.0));
            }
            tr(&def);
            let res = w.create_spring(&def).map(|id| ids.springs.push(id));
            ("create_spring", res)
        }
        6 => ("remove_particle", w.remove_particle(particle(r, ids))),
        7 => {
            let s = pick(
                &ids.springs,
                r.u8(),
                SpringId {
                    index: 9999,
                    generation: 1,
                },
            );
            ("remove_spring", w.remove_spring(s))
        }
        8 => {
            let s = pick(
                &ids.soft,
                r.u8(),
                SoftBodyId {
                    index: 9999,
                    generation: 1,
                },
            );
            ("remove_soft_body", w.remove_soft_body(s))
        }
        9 => {
            let (p, x) = (particle(r, ids), r.vec3_in(-6.0, 6.0));
            ("set_particle_position", w.set_particle_position(p, x))
        }
        10 => {
            let (p, v) = (particle(r, ids), r.vec3_in(-10.0, 10.0));
            ("set_particle_velocity", w.set_particle_velocity(p, v))
        }
        11 => {
            let (p, i) = (particle(r, ids), r.vec3_in(-1.0, 1.0));
            ("apply_particle_impulse", w.apply_particle_impulse(p, i))
        }
        12 => {
            let p = particle(r, ids);
            ("set_particle_pinned", w.set_particle_pinned(p, r.bool()))
        }
        13 => ("set_wind", w.set_wind(r.vec3_in(-20.0, 20.0))),
        14 => {
            let s = pick(
                &ids.soft,
                r.u8(),
                SoftBodyId {
                    index: 9999,
                    generation: 1,
                },
            );
            let res = w.soft_body_volume(s).map(|v| {
                assert!(v.is_finite(), "soft body volume {v} is not finite");
            });
            ("soft_body_volume", res)
        }
        _ => {
            // An image round trip, particles and all.
            let mut image = Vec::new();
            w.save_image(&mut image);
            let copy = World::from_image_with_workers(&image, 1)
                .expect("an image the world saved must load");
            assert_eq!(copy.state_hash(), w.state_hash(), "image round trip");
            ("save_image/from_image (particles)", Ok(()))
        }
    }
}

/// A query of every kind, with hostile rays, boxes and shapes.
fn query(w: &mut World, r: &mut Bytes<'_>, ids: &Ids) -> (&'static str, Res) {
    let mut filter = QueryFilter::default();
    if r.u8() % 4 == 0 {
        filter = filter.excluding_body(pick(&ids.bodies, r.u8(), NO_BODY));
    }
    if r.u8() % 4 == 0 {
        filter = filter.with_mask(r.u32() as u64);
    }
    match r.u8() % 6 {
        0 => {
            let (o, d, m) = (
                r.vec3_in(-8.0, 8.0),
                r.vec3_in(-1.0, 1.0),
                r.f32_in(0.0, 30.0),
            );
            ("cast_ray", w.cast_ray(o, d, m, &filter).map(|_| ()))
        }
        1 => {
            let (o, d, m) = (
                r.vec3_in(-8.0, 8.0),
                r.vec3_in(-1.0, 1.0),
                r.f32_in(0.0, 30.0),
            );
            ("cast_ray_all", w.cast_ray_all(o, d, m, &filter).map(|_| ()))
        }
        2 => {
            let c = r.vec3_in(-8.0, 8.0);
            let h = r.vec3_in(-1.0, 3.0);
            let aabb = impetus::Aabb {
                min: c - h,
                max: c + h,
            };
            ("overlap_aabb", w.overlap_aabb(&aabb, &filter).map(|_| ()))
        }
        3 => {
            let p = r.vec3_in(-8.0, 8.0);
            ("overlap_point", w.overlap_point(p, &filter).map(|_| ()))
        }
        4 => {
            let s = match shape(r) {
                Ok(s) => s,
                Err(_) => return ("build geometry", Ok(())),
            };
            let xf = r.transform(8.0);
            (
                "overlap_shape",
                w.overlap_shape(&s, &xf, &filter).map(|_| ()),
            )
        }
        _ => {
            let s = match shape(r) {
                Ok(s) => s,
                Err(_) => return ("build geometry", Ok(())),
            };
            let xf = r.transform(8.0);
            let t = r.vec3_in(-10.0, 10.0);
            ("cast_shape", w.cast_shape(&s, &xf, t, &filter).map(|_| ()))
        }
    }
}

/// xorshift64*: the bytes of seed `seed`'s script.
pub fn script(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}
