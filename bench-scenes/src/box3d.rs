//! The Box3D peer (`boxddd-sys`, Box3D's C sources built by `cc`): a world built from the
//! same [`Recipe`] as the impetus world, stepped on Box3D's own scheduler with the requested
//! number of workers and measured by [`run_peer`].
//!
//! Settings (docs/SCENES.md, "Peer engines"): `b3DefaultWorldDef`, whose defaults already
//! are the common settings — gravity (0, −10, 0), contact hertz 30, damping ratio 10,
//! push-out (`contactSpeed`) 3 m/s — with sleep off; 4 substeps per 1/60 s step
//! (`b3World_Step`'s `subStepCount`). Linear slop 0.005 m and speculative distance 0.02 m
//! are Box3D's compile-time constants (`B3_LINEAR_SLOP`, `B3_SPECULATIVE_DISTANCE`).
//! Continuous collision stays on, Box3D's default. Friction mixes as sqrt(a b), Box3D's
//! default; restitution as max(a, b), Box3D's default (every recipe surface has 0).
//!
//! Shapes: a box is `b3MakeBoxHull` (Box3D has no box primitive; the hull data must outlive
//! the shape, so the world keeps it), a sphere `b3Sphere`, a capsule `b3Capsule` from
//! (0, −h, 0) to (0, h, 0). A terrain is a `b3HeightField` with the recipe's samples (row r
//! at z = r · spacing, column c at x = c · spacing, as impetus's), quantised by Box3D to 16
//! bits between the field's lowest and highest sample; Box3D splits each cell along the
//! other diagonal than impetus's, from sample (r, c + 1) to (r + 1, c), which its API does not
//! let a caller choose.
//!
//! Joints (each with its two local frames the world frame at the anchor turned so that its z
//! axis, Box3D's joint axis, lies along the recipe axis; connected bodies do not collide):
//! ball → `b3SphericalJointDef`; hinge → `b3RevoluteJointDef` with the recipe's limits and
//! velocity motor; cone-twist → spherical with the cone limit about frame A's z and the
//! twist limit about frame B's z; fixed → `b3WeldJointDef` with zero hertz (rigid); rod →
//! `b3DistanceJointDef` with the spring off (rigid). Joint softness is Box3D's default.
//!
//! Threads: `workerCount` T and no task callbacks, so Box3D runs on the scheduler it ships
//! (T − 1 threads of its own plus the thread that steps; with T = 1 every task runs
//! inline), as its samples and benchmark do.
//!
//! Build: the C sources are compiled with `-O3 -DNDEBUG` (.cargo/config.toml), as Box3D's
//! benchmark is; [`box3d_asserts`] tells whether `B3_ASSERT` is live in the linked library.
//!
//! Stages: `b3World_GetProfile`, mapped onto impetus's stage names (pairs → broadphase,
//! collide → narrowphase, solver setup and constraint preparation → prepare, the solver
//! stages one to one, transforms and refit → finalize, bullets → continuous, island
//! splitting and sleep → sleep).

use crate::peer::{run_peer, unsupported, BodyState, PeerWorld};
use crate::{JointSpec, JointSpecKind, Params, Recipe, RunResult, Scene, ShapeSpec, DT};
use boxddd_sys::ffi::*;
use impetus::{Quat, Vec3};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Substeps per step (docs/SCENES.md).
const SUBSTEPS: i32 = 4;

/// The engine name and version, e.g. `Box3D 3.2.0`.
pub fn box3d_version() -> String {
    // SAFETY: b3GetVersion only returns constants.
    let v = unsafe { b3GetVersion() };
    format!("Box3D {}.{}.{}", v.major, v.minor, v.revision)
}

/// Set by [`count_assert`] when Box3D reports a failed assertion.
static ASSERTED: AtomicBool = AtomicBool::new(false);

/// A `b3AssertFcn` that notes the assertion and lets Box3D go on.
unsafe extern "C" fn count_assert(
    _condition: *const c_char,
    _file: *const c_char,
    _line: c_int,
) -> c_int {
    ASSERTED.store(true, Ordering::Relaxed);
    0
}

/// Whether the linked Box3D was compiled with its assertions (`B3_ASSERT`) on: it calls
/// `b3ComputeQuatBetweenUnitVectors`, which asserts that its arguments are unit vectors,
/// with one that is not, and watches for the assertion.
pub fn box3d_asserts() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        ASSERTED.store(false, Ordering::Relaxed);
        // SAFETY: the handler never breaks (returns 0) and only sets a flag; the math call
        // takes plain values and is defined for any finite input.
        unsafe {
            b3SetAssertFcn(Some(count_assert));
            let _ = b3ComputeQuatBetweenUnitVectors(
                vec3(Vec3::new(2.0, 0.0, 0.0)),
                vec3(Vec3::new(0.0, 1.0, 0.0)),
            );
        }
        ASSERTED.load(Ordering::Relaxed)
    })
}

/// How the linked Box3D was built, for the reports: its optimisation flags and whether its
/// assertions are on.
pub fn box3d_build() -> String {
    format!(
        "C, {}, asserts {}",
        crate::peer::C_FLAGS,
        if box3d_asserts() { "ON" } else { "off" }
    )
}

fn vec3(v: Vec3) -> b3Vec3 {
    b3Vec3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

fn quat(q: Quat) -> b3Quat {
    b3Quat {
        v: vec3(Vec3::new(q.x, q.y, q.z)),
        s: q.w,
    }
}

fn from_vec3(v: b3Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// A Box3D world built from a recipe, with its bodies in recipe order.
pub struct Box3dWorld {
    world: b3WorldId,
    bodies: Vec<b3BodyId>,
    threads: usize,
    /// The box hulls the shapes point into (Box3D does not copy an untransformed hull), one
    /// per box size, shared by every box of that size as Box3D's samples share theirs, each
    /// boxed so that it keeps its address while the map grows.
    _hulls: HashMap<[u32; 3], Box<b3BoxHull>>,
    /// The height fields the terrain shapes point into, destroyed after the world.
    fields: Vec<*mut b3HeightFieldData>,
}

/// What Box3D cannot build of a recipe: nothing (every recipe joint and shape has a
/// counterpart).
pub fn box3d_skips(recipe: &Recipe) -> Option<String> {
    unsupported("Box3D", recipe, |_| None, |_| None)
}

/// The joint frame of a recipe joint at the world point `anchor` for a body at `pose`: the
/// world frame turned so that its z axis lies along the recipe axis, in the body's frame.
fn local_frame(j: &JointSpec, anchor: Vec3, pose: &impetus::Transform) -> b3Transform {
    let axis = j.axis.try_normalize().unwrap_or(Vec3::Z);
    let turn = Quat::from_rotation_arc(Vec3::Z, axis);
    let local = pose.inv_mul(&impetus::Transform::new(anchor, turn));
    b3Transform {
        p: vec3(local.p),
        q: quat(local.q),
    }
}

/// Builds `recipe` into a new Box3D world stepping on `threads` workers (see the module
/// doc). Errs when the recipe has what Box3D cannot build.
pub fn build_box3d(recipe: &Recipe, threads: usize) -> Result<Box3dWorld, String> {
    if let Some(message) = box3d_skips(recipe) {
        return Err(message);
    }
    let threads = threads.max(1);
    // SAFETY: b3DefaultWorldDef returns a plain value.
    let mut def = unsafe { b3DefaultWorldDef() };
    def.gravity = vec3(Vec3::new(0.0, -10.0, 0.0));
    def.contactHertz = 30.0;
    def.contactDampingRatio = 10.0;
    def.contactSpeed = 3.0;
    def.enableSleep = false;
    // Box3D's own scheduler: `workerCount` with no task callbacks of ours.
    def.workerCount = threads as u32;
    // SAFETY: a definition from b3DefaultWorldDef with plain values changed.
    let world = unsafe { b3CreateWorld(&def) };

    let mut hulls: HashMap<[u32; 3], Box<b3BoxHull>> = HashMap::new();
    let mut fields = Vec::new();
    let mut bodies = Vec::with_capacity(recipe.bodies.len());
    let mut poses = Vec::with_capacity(recipe.bodies.len());
    for b in &recipe.bodies {
        let position = match b.shape {
            ShapeSpec::Terrain(t) => {
                let (sx, sz) = t.size();
                b.position - Vec3::new(0.5 * sx, 0.0, 0.5 * sz)
            }
            _ => b.position,
        };
        // SAFETY: plain values.
        let mut body_def = unsafe { b3DefaultBodyDef() };
        body_def.type_ = if b.dynamic {
            b3BodyType_b3_dynamicBody
        } else {
            b3BodyType_b3_staticBody
        };
        body_def.position = vec3(position);
        body_def.rotation = quat(b.rotation);
        if b.dynamic {
            body_def.linearVelocity = vec3(b.linear_velocity);
        }
        body_def.enableSleep = false;
        // SAFETY: a live world and a definition from b3DefaultBodyDef.
        let body = unsafe { b3CreateBody(world, &body_def) };
        // SAFETY: plain values.
        let mut shape_def = unsafe { b3DefaultShapeDef() };
        shape_def.density = if b.dynamic { b.density } else { 0.0 };
        shape_def.baseMaterial.friction = b.friction;
        shape_def.baseMaterial.restitution = b.restitution;
        match b.shape {
            ShapeSpec::Cuboid(h) => {
                let hull = hulls
                    .entry([h.x.to_bits(), h.y.to_bits(), h.z.to_bits()])
                    // SAFETY: plain values; the hull is boxed so that the shape's pointer
                    // into it stays valid while the world lives.
                    .or_insert_with(|| Box::new(unsafe { b3MakeBoxHull(h.x, h.y, h.z) }));
                // SAFETY: a live body, a default shape definition and a hull kept alive
                // as long as the world.
                unsafe { b3CreateHullShape(body, &shape_def, &hull.base) };
            }
            ShapeSpec::Ball(radius) => {
                let sphere = b3Sphere {
                    center: vec3(Vec3::ZERO),
                    radius,
                };
                // SAFETY: a live body; Box3D copies the sphere.
                unsafe { b3CreateSphereShape(body, &shape_def, &sphere) };
            }
            ShapeSpec::Capsule {
                half_height,
                radius,
            } => {
                let capsule = b3Capsule {
                    center1: vec3(Vec3::new(0.0, -half_height, 0.0)),
                    center2: vec3(Vec3::new(0.0, half_height, 0.0)),
                    radius,
                };
                // SAFETY: a live body; Box3D copies the capsule.
                unsafe { b3CreateCapsuleShape(body, &shape_def, &capsule) };
            }
            ShapeSpec::Terrain(t) => {
                let mut heights = t.heights();
                let (lo, hi) = heights
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                        (lo.min(h), hi.max(h))
                    });
                let field_def = b3HeightFieldDef {
                    heights: heights.as_mut_ptr(),
                    materialIndices: std::ptr::null_mut(),
                    scale: vec3(Vec3::new(t.spacing, 1.0, t.spacing)),
                    countX: t.cols as i32,
                    countZ: t.rows as i32,
                    globalMinimumHeight: lo,
                    globalMaximumHeight: hi,
                    clockwiseWinding: false,
                };
                // SAFETY: `heights` holds countX · countZ samples and outlives the call,
                // which copies them; no materials (all cells solid).
                let field = unsafe { b3CreateHeightField(&field_def) };
                if field.is_null() {
                    // SAFETY: the world was created above and is not used after this.
                    unsafe { b3DestroyWorld(world) };
                    return Err("Box3D could not build the terrain's height field".into());
                }
                // SAFETY: a live static body and a height field kept until the world is
                // destroyed.
                unsafe { b3CreateHeightFieldShape(body, &shape_def, field) };
                fields.push(field);
            }
        }
        bodies.push(body);
        poses.push(impetus::Transform::new(position, b.rotation));
    }

    for j in &recipe.joints {
        let (a, b) = (bodies[j.a], bodies[j.b]);
        let fill = |base: &mut b3JointDef| {
            base.bodyIdA = a;
            base.bodyIdB = b;
            base.localFrameA = local_frame(j, j.anchor, &poses[j.a]);
            base.localFrameB = local_frame(j, j.anchor_b(), &poses[j.b]);
            base.collideConnected = false;
        };
        // SAFETY (every arm): a live world and bodies, and a definition from Box3D's
        // default for its kind with plain values changed.
        match j.kind {
            JointSpecKind::Ball => unsafe {
                let mut d = b3DefaultSphericalJointDef();
                fill(&mut d.base);
                b3CreateSphericalJoint(world, &d);
            },
            JointSpecKind::ConeTwist { cone_angle, twist } => unsafe {
                let mut d = b3DefaultSphericalJointDef();
                fill(&mut d.base);
                d.enableConeLimit = true;
                d.coneAngle = cone_angle;
                d.enableTwistLimit = true;
                d.lowerTwistAngle = twist[0];
                d.upperTwistAngle = twist[1];
                b3CreateSphericalJoint(world, &d);
            },
            JointSpecKind::Hinge { limits, motor } => unsafe {
                let mut d = b3DefaultRevoluteJointDef();
                fill(&mut d.base);
                if let Some([lower, upper]) = limits {
                    d.enableLimit = true;
                    d.lowerAngle = lower;
                    d.upperAngle = upper;
                }
                if let Some(m) = motor {
                    d.enableMotor = true;
                    d.motorSpeed = m.speed;
                    d.maxMotorTorque = m.max_force;
                }
                b3CreateRevoluteJoint(world, &d);
            },
            JointSpecKind::Fixed => unsafe {
                let mut d = b3DefaultWeldJointDef();
                fill(&mut d.base);
                d.linearHertz = 0.0;
                d.angularHertz = 0.0;
                b3CreateWeldJoint(world, &d);
            },
            JointSpecKind::Distance { length } => unsafe {
                let mut d = b3DefaultDistanceJointDef();
                fill(&mut d.base);
                d.length = length;
                d.enableSpring = false;
                d.enableLimit = false;
                b3CreateDistanceJoint(world, &d);
            },
        }
    }
    Ok(Box3dWorld {
        world,
        bodies,
        threads,
        _hulls: hulls,
        fields,
    })
}

impl PeerWorld for Box3dWorld {
    fn engine(&self) -> String {
        box3d_version()
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn step(&mut self) -> Result<(), String> {
        // SAFETY: a live world, stepped from one thread (Box3D's scheduler runs its tasks).
        unsafe { b3World_Step(self.world, DT, SUBSTEPS) };
        Ok(())
    }

    fn states(&self) -> Vec<BodyState> {
        self.bodies
            .iter()
            .map(|&b| {
                // SAFETY: live bodies of a live world, read between steps.
                let (xf, v, w) = unsafe {
                    (
                        b3Body_GetTransform(b),
                        b3Body_GetLinearVelocity(b),
                        b3Body_GetAngularVelocity(b),
                    )
                };
                BodyState {
                    position: from_vec3(xf.p),
                    rotation: Quat::from_xyzw(xf.q.v.x, xf.q.v.y, xf.q.v.z, xf.q.s),
                    linear_velocity: from_vec3(v),
                    angular_velocity: from_vec3(w),
                }
            })
            .collect()
    }

    fn stages(&self) -> Vec<(&'static str, f64)> {
        // SAFETY: a live world, read between steps.
        let p = unsafe { b3World_GetProfile(self.world) };
        let ms = |v: f32| v as f64;
        vec![
            ("broadphase", ms(p.pairs)),
            ("narrowphase", ms(p.collide)),
            ("prepare", ms(p.solverSetup + p.prepareConstraints)),
            ("integrate_velocities", ms(p.integrateVelocities)),
            ("warm_start", ms(p.warmStart)),
            ("solve", ms(p.solveImpulses)),
            ("integrate_positions", ms(p.integratePositions)),
            ("relax", ms(p.relaxImpulses)),
            ("restitution", ms(p.applyRestitution)),
            ("store_impulses", ms(p.storeImpulses)),
            ("finalize", ms(p.transforms + p.refit)),
            ("continuous", ms(p.bullets)),
            ("sleep", ms(p.splitIslands + p.sleepIslands)),
        ]
    }
}

impl Drop for Box3dWorld {
    fn drop(&mut self) {
        // SAFETY: the world is live and destroyed once; its shapes' height fields are
        // destroyed only after it (the hulls are dropped after this body).
        unsafe {
            b3DestroyWorld(self.world);
            for &f in &self.fields {
                b3DestroyHeightField(f);
            }
        }
    }
}

/// Builds `scene` in Box3D and steps it `steps` times on `threads` workers, calling
/// `progress(step, last_ms)` after every step (see [`run_peer`]).
pub fn run_box3d(
    scene: &Scene,
    threads: usize,
    steps: usize,
    progress: impl FnMut(usize, f64),
) -> Result<RunResult, String> {
    let recipe = (scene.recipe)(&Params::default());
    let mut world = build_box3d(&recipe, threads)?;
    run_peer(scene.name, &recipe, &mut world, steps, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find;

    /// The linked Box3D is built as its benchmark is: asserts off (NDEBUG) and optimised.
    /// Fails when the workspace's flags stop reaching boxddd-sys's build script.
    #[test]
    fn built_as_shipped() {
        assert!(!box3d_asserts(), "Box3D was built with B3_ASSERT on");
        assert!(
            crate::peer::C_FLAGS.contains("-DNDEBUG"),
            "{}",
            crate::peer::C_FLAGS
        );
        assert!(box3d_build().contains("asserts off"), "{}", box3d_build());
    }

    /// The pyramid stands on the ground at 1 and 2 threads: nothing falls through, nothing
    /// flies off (a pyramid that collapses moves boxes by metres; PhysX's settles by a few
    /// decimetres, its stack sinking into its contacts).
    #[test]
    fn pyramid_stands() {
        for threads in [1, 2] {
            let r = run_box3d(find("pyramid").unwrap(), threads, 30, |_, _| {}).unwrap();
            assert_eq!(r.bodies, 820);
            assert!(r.stability.min_y > -0.05, "{:?}", r.stability);
            assert!(r.stability.max_displacement < 1.0, "{:?}", r.stability);
            assert!(r.contacts > 0);
        }
    }

    /// Every recipe joint kind builds, and the joints hold.
    #[test]
    fn joints_hold() {
        for scene in ["bridge", "ragdolls", "tumbler", "heavy_chain"] {
            let r = run_box3d(find(scene).unwrap(), 2, 30, |_, _| {}).unwrap();
            assert!(
                r.stability.max_joint_error < 0.1,
                "{scene}: {:?}",
                r.stability
            );
        }
    }
}
