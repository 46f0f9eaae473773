//! The PhysX 5 peer (`physx-sys`, PhysX 5.1's C++ sources built by `cc`): a scene built from
//! the same [`Recipe`] as the impetus world, stepped by PhysX's default CPU dispatcher and
//! measured by [`run_peer`].
//!
//! Settings (docs/SCENES.md, "Peer engines"): `PxSceneDesc` defaults — the PGS solver with
//! PhysX's per-actor defaults of 4 position and 1 velocity iterations, patch friction, PCM
//! contacts, no CCD — with gravity (0, −10, 0) and one `simulate(1/60)` per step. PhysX has
//! no substeps and no contact hertz, damping ratio or push-out speed; its own model
//! (position iterations with a bias) stands in for them, untouched. Sleep is off: every
//! dynamic actor's sleep threshold is 0, and PhysX resets an actor's wake counter whenever
//! its energy is at least the threshold, so it never sleeps.
//! Mass from the recipe density (`PxRigidBodyExt::updateMassAndInertia`); one material
//! per (friction, restitution) pair with PhysX's default combine mode, the average, which is
//! the recipes' sqrt(a b) as long as both sides have the same friction (every recipe
//! surface has 0.6).
//!
//! Shapes: a box `PxBoxGeometry`, a sphere `PxSphereGeometry`, a capsule `PxCapsuleGeometry`
//! (PhysX's capsule lies along its x axis, so the shape's local pose turns it onto the body's
//! y axis). A terrain is a `PxHeightField` of 16-bit samples (heights quantised to the
//! tallest one over 32,767), each cell split along the same diagonal as impetus's.
//!
//! Joints (`PxExtensions`; both local frames the world frame at the anchor turned so that its
//! x axis, PhysX's joint axis, lies along the recipe axis; jointed actors do not collide,
//! PhysX's default): ball → `PxSphericalJoint`; hinge → `PxRevoluteJoint` with the recipe's
//! limits and its drive as the velocity motor (force limit the recipe's max torque); fixed →
//! `PxFixedJoint`; rod → `PxDistanceJoint` with min = max = the length, both limits on and
//! tolerance 0 (the rod's exact length). A cone-twist joint has no counterpart here (a
//! `PxSphericalJoint` limits the cone but not the twist): such scenes are skipped.
//!
//! Threads: at T = 1 `PxDefaultCpuDispatcherCreate(0)`, no worker, and PhysX runs every task
//! inline on the thread that steps; at T > 1 `PxDefaultCpuDispatcherCreate(T)`, T workers,
//! while the stepping thread only waits in `fetchResults`. Every
//! `simulate` gets a 16 MiB scratch block ([`SCRATCH_BYTES`]), as PhysX's guide
//! recommends, so the step does not allocate its scratch from the heap.
//!
//! The tuned row ([`PhysxSolver::Tgs`]) is the same scene with the TGS solver, which PhysX's
//! guide recommends for stacks, mass ratios and chains.
//!
//! Build: physx-sys compiles PhysX with `-O3 -DNDEBUG` and, because the workspace's release
//! profile gives it no debug info, without `PX_CHECKED`/`PX_DEBUG`; [`physx_checked`] tells
//! whether the linked library is a checked build.
//!
//! PhysX allows one foundation per process: the foundation and the `PxPhysics` object are
//! made once and shared by every scene of the run. PhysX reports no per-stage times without
//! a profiler attached, so its results carry no stage split.

use crate::peer::{run_peer, unsupported, BodyState, PeerWorld};
use crate::{JointSpec, JointSpecKind, Params, Recipe, RunResult, Scene, ShapeSpec, DT};
use impetus::{Quat, Vec3};
use physx_sys::*;
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::OnceLock;

/// The engine name and version.
pub fn physx_version() -> String {
    "PhysX 5.1.3".to_string()
}

/// The engine name, version and solver of a row: `PhysX 5.1.3` for the default (PGS)
/// row, `PhysX 5.1.3 TGS` for the tuned one.
pub fn physx_row(solver: PhysxSolver) -> String {
    match solver {
        PhysxSolver::Pgs => physx_version(),
        PhysxSolver::Tgs => format!("{} TGS", physx_version()),
    }
}

/// The simulation's scratch block, bytes: PhysX takes a block that is a multiple of 16 KiB
/// and 16-byte aligned, and allocates its per-step scratch from it instead of the heap.
const SCRATCH_BYTES: usize = 16 << 20;

/// The process's one PhysX foundation and physics object.
struct Sdk {
    physics: *mut PxPhysics,
}

// SAFETY: PxPhysics is thread-safe for creating objects and is only used from the thread
// that builds and steps a scene at a time; the pointer itself lives for the process.
unsafe impl Send for Sdk {}
// SAFETY: as for Send.
unsafe impl Sync for Sdk {}

/// PhysX's version as `PxCreateFoundation` checks it (PxPhysicsVersion.h).
const PX_PHYSICS_VERSION: u32 = (5 << 24) + (1 << 16) + (3 << 8);

/// Whether the foundation's error callback should only count errors (while
/// [`physx_checked`] probes the build) rather than print them too.
static PROBING: AtomicBool = AtomicBool::new(false);
/// Invalid-parameter errors reported while probing.
static INVALID_PARAMETERS: AtomicU32 = AtomicU32::new(0);

/// The foundation's error callback: PhysX's default one prints every report; this one
/// prints too, except while [`physx_checked`] probes, when it counts invalid parameters.
unsafe extern "C" fn report_error(
    code: PxErrorCode,
    message: *const i8,
    file: *const i8,
    line: u32,
    _user: *const c_void,
) {
    if PROBING.load(Ordering::Relaxed) {
        if code == PxErrorCode::InvalidParameter {
            INVALID_PARAMETERS.fetch_add(1, Ordering::Relaxed);
        }
        return;
    }
    let text = |p: *const i8| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: PhysX passes NUL-terminated strings that live for the call.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    eprintln!(
        "PhysX error {code:?}: {} ({}:{line})",
        text(message),
        text(file)
    );
}

fn sdk() -> Result<&'static Sdk, String> {
    static SDK: OnceLock<Result<Sdk, String>> = OnceLock::new();
    SDK.get_or_init(|| {
        // SAFETY: called once per process (OnceLock); each result is checked for null
        // before use. The allocator is physx-sys's process-wide default; the error callback
        // object lives for the process.
        unsafe {
            let errors = create_error_callback(report_error, null_mut());
            let foundation =
                phys_PxCreateFoundation(PX_PHYSICS_VERSION, get_default_allocator().cast(), errors);
            if foundation.is_null() {
                return Err("PhysX: no foundation".to_string());
            }
            let physics = physx_create_physics(foundation);
            if physics.is_null() {
                return Err("PhysX: no physics object".to_string());
            }
            if !phys_PxInitExtensions(physics, null_mut()) {
                return Err("PhysX: the extensions did not initialise".to_string());
            }
            Ok(Sdk { physics })
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Whether the linked PhysX is a checked build (`PX_CHECKED`, which physx-sys defines
/// together with `PX_DEBUG` and its asserts when cargo builds it with debug info): it gives
/// `PxRigidBody::setMass` a negative mass, which only a checked build refuses with an
/// invalid-parameter error.
pub fn physx_checked() -> Result<bool, String> {
    static CHECKED: OnceLock<Result<bool, String>> = OnceLock::new();
    CHECKED
        .get_or_init(|| {
            let physics = sdk()?.physics;
            PROBING.store(true, Ordering::Relaxed);
            INVALID_PARAMETERS.store(0, Ordering::Relaxed);
            // SAFETY: a live PxPhysics; the actor is in no scene and released at once.
            unsafe {
                let actor = PxPhysics_createRigidDynamic_mut(
                    physics,
                    &transform(Vec3::ZERO, Quat::IDENTITY),
                );
                if actor.is_null() {
                    PROBING.store(false, Ordering::Relaxed);
                    return Err("PhysX could not create an actor".to_string());
                }
                PxRigidBody_setMass_mut(actor.cast(), -1.0);
                PxRigidActor_release_mut(actor.cast());
            }
            PROBING.store(false, Ordering::Relaxed);
            Ok(INVALID_PARAMETERS.load(Ordering::Relaxed) > 0)
        })
        .clone()
}

/// How the linked PhysX was built, for the reports: its optimisation flags and whether it
/// is a checked build.
pub fn physx_build() -> String {
    let checked = match physx_checked() {
        Ok(true) => "checked (PX_CHECKED, PX_DEBUG: asserts ON)".to_string(),
        Ok(false) => "release (asserts off)".to_string(),
        Err(e) => format!("unknown ({e})"),
    };
    format!("C++, {}, {checked}", crate::peer::CXX_FLAGS)
}

/// The solver settings of a PhysX row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PhysxSolver {
    /// `PxSceneDesc`'s default: PGS.
    #[default]
    Pgs,
    /// The tuned row: TGS (`PxSolverType::eTGS`), which PhysX's guide recommends for
    /// stacks, large mass ratios and chains; every other setting as the default row.
    Tgs,
}

fn vec3(v: Vec3) -> PxVec3 {
    PxVec3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

fn transform(p: Vec3, q: Quat) -> PxTransform {
    PxTransform {
        q: PxQuat {
            x: q.x,
            y: q.y,
            z: q.z,
            w: q.w,
        },
        p: vec3(p),
    }
}

/// A PhysX scene built from a recipe, with its actors in recipe order.
pub struct PhysxWorld {
    scene: *mut PxScene,
    dispatcher: *mut PxDefaultCpuDispatcher,
    actors: Vec<*mut PxRigidActor>,
    dynamic: Vec<bool>,
    joints: Vec<*mut PxJoint>,
    threads: usize,
    solver: PhysxSolver,
    /// The scratch block handed to every `simulate` (see [`SCRATCH_BYTES`]), as 16-byte
    /// units so that it is aligned.
    scratch: Vec<u128>,
}

/// What the adapter cannot build of a recipe (see the module doc).
pub fn physx_skips(recipe: &Recipe) -> Option<String> {
    unsupported(
        "PhysX (this adapter)",
        recipe,
        |k| match k {
            JointSpecKind::ConeTwist { .. } => {
                Some("cone-twist joints (PxSphericalJoint has no twist limit)")
            }
            _ => None,
        },
        |_| None,
    )
}

/// One PhysX height-field sample (`PxHeightFieldSample`'s layout): the height in units of
/// the height scale, the lower triangle's material index with the tessellation flag in its
/// high bit, the upper triangle's material index.
#[repr(C)]
struct Sample {
    height: i16,
    material0: u8,
    material1: u8,
}

/// The recipe terrain as a PhysX height field (null if PhysX refuses it) and its height
/// scale, which stores the tallest sample as 32,767. PhysX's rows run
/// along x and its columns along z, so sample (row c, column r) is the recipe's sample
/// (r, c); every cell's tessellation flag is set, which splits it along the diagonal from
/// its first sample to the opposite one, from (r, c) to (r + 1, c + 1), as impetus does.
///
/// # Safety
/// `physics` must be the live PxPhysics.
unsafe fn height_field(physics: *mut PxPhysics, t: &crate::Terrain) -> (*mut PxHeightField, f32) {
    const TESSELLATION_FLAG: u8 = 0x80;
    let heights = t.heights();
    let top = heights.iter().fold(0.0f32, |m, h| m.max(h.abs()));
    let scale = top.max(1e-3) / f32::from(i16::MAX);
    let samples: Vec<Sample> = (0..t.cols)
        .flat_map(|c| (0..t.rows).map(move |r| (r, c)))
        .map(|(r, c)| Sample {
            height: (heights[r * t.cols + c] / scale).round() as i16,
            material0: TESSELLATION_FLAG,
            material1: 0,
        })
        .collect();
    // SAFETY: plain values; `samples` outlives the call, which copies them.
    unsafe {
        let mut desc = PxHeightFieldDesc_new();
        desc.nbRows = t.cols as u32;
        desc.nbColumns = t.rows as u32;
        desc.format = PxHeightFieldFormat::S16Tm;
        desc.samples.data = samples.as_ptr().cast();
        desc.samples.stride = std::mem::size_of::<Sample>() as u32;
        let field =
            phys_PxCreateHeightField(&desc, PxPhysics_getPhysicsInsertionCallback_mut(physics));
        (field, scale)
    }
}

/// The joint frame of a recipe joint at the world point `anchor` for an actor at `pose`:
/// the world frame turned so that its x axis lies along the recipe axis, in the actor's
/// frame.
fn local_frame(j: &JointSpec, anchor: Vec3, pose: &impetus::Transform) -> PxTransform {
    let axis = j.axis.try_normalize().unwrap_or(Vec3::X);
    let turn = Quat::from_rotation_arc(Vec3::X, axis);
    let local = pose.inv_mul(&impetus::Transform::new(anchor, turn));
    transform(local.p, local.q)
}

/// Builds `recipe` into a new PhysX scene stepping on `threads` threads with `solver` (see
/// the module doc). Errs when the recipe has what the adapter cannot build.
pub fn build_physx(
    recipe: &Recipe,
    threads: usize,
    solver: PhysxSolver,
) -> Result<PhysxWorld, String> {
    if let Some(message) = physx_skips(recipe) {
        return Err(message);
    }
    let physics = sdk()?.physics;
    let threads = threads.max(1);
    // SAFETY: `physics` is the live process-wide PxPhysics; every object created here is
    // owned by the returned PhysxWorld and released in its Drop. Pointers passed to PhysX
    // point at locals that outlive each call.
    unsafe {
        let mut desc = PxSceneDesc_new(PxPhysics_getTolerancesScale(physics));
        desc.gravity = vec3(Vec3::new(0.0, -10.0, 0.0));
        if solver == PhysxSolver::Tgs {
            desc.solverType = PxSolverType::Tgs;
        }
        // At one thread the dispatcher has no worker: PhysX runs every task inline on the
        // thread that steps. At T > 1 it has T workers, as PhysX's snippets create it; the
        // stepping thread only waits in fetchResults.
        let workers = if threads == 1 { 0 } else { threads };
        let dispatcher = phys_PxDefaultCpuDispatcherCreate(
            workers as u32,
            null_mut(),
            PxDefaultCpuDispatcherWaitForWorkMode::WaitForWork,
            0,
        );
        desc.cpuDispatcher = dispatcher.cast();
        desc.filterShader = get_default_simulation_filter_shader();
        let scene = PxPhysics_createScene_mut(physics, &desc);
        if scene.is_null() {
            PxDefaultCpuDispatcher_release_mut(dispatcher);
            return Err("PhysX could not create the scene".to_string());
        }
        let mut world = PhysxWorld {
            scene,
            dispatcher,
            actors: Vec::with_capacity(recipe.bodies.len()),
            dynamic: Vec::with_capacity(recipe.bodies.len()),
            joints: Vec::with_capacity(recipe.joints.len()),
            threads,
            solver,
            scratch: vec![0u128; SCRATCH_BYTES / 16],
        };

        let mut materials: Vec<((u32, u32), *mut PxMaterial)> = Vec::new();
        let mut poses = Vec::with_capacity(recipe.bodies.len());
        for b in &recipe.bodies {
            let key = (b.friction.to_bits(), b.restitution.to_bits());
            let material = match materials.iter().find(|(k, _)| *k == key) {
                Some(&(_, m)) => m,
                None => {
                    let m = PxPhysics_createMaterial_mut(
                        physics,
                        b.friction,
                        b.friction,
                        b.restitution,
                    );
                    materials.push((key, m));
                    m
                }
            };
            // A height field's origin is its corner; the recipe gives its centre.
            let position = match b.shape {
                ShapeSpec::Terrain(t) => {
                    let (sx, sz) = t.size();
                    b.position - Vec3::new(0.5 * sx, 0.0, 0.5 * sz)
                }
                _ => b.position,
            };
            let pose = transform(position, b.rotation);
            let actor: *mut PxRigidActor = if b.dynamic {
                PxPhysics_createRigidDynamic_mut(physics, &pose).cast()
            } else {
                PxPhysics_createRigidStatic_mut(physics, &pose).cast()
            };
            let flags = PxShapeFlags::SimulationShape
                | PxShapeFlags::SceneQueryShape
                | PxShapeFlags::Visualization;
            let shape = match b.shape {
                ShapeSpec::Cuboid(h) => {
                    let g = PxBoxGeometry_new(h.x, h.y, h.z);
                    PxRigidActorExt_createExclusiveShape(
                        actor,
                        (&g as *const PxBoxGeometry).cast(),
                        &material,
                        1,
                        flags,
                    )
                }
                ShapeSpec::Ball(r) => {
                    let g = PxSphereGeometry_new(r);
                    PxRigidActorExt_createExclusiveShape(
                        actor,
                        (&g as *const PxSphereGeometry).cast(),
                        &material,
                        1,
                        flags,
                    )
                }
                ShapeSpec::Capsule {
                    half_height,
                    radius,
                } => {
                    let g = PxCapsuleGeometry_new(radius, half_height);
                    let shape = PxRigidActorExt_createExclusiveShape(
                        actor,
                        (&g as *const PxCapsuleGeometry).cast(),
                        &material,
                        1,
                        flags,
                    );
                    // PhysX's capsule axis is x: turn it onto y.
                    let onto_y = transform(
                        Vec3::ZERO,
                        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
                    );
                    PxShape_setLocalPose_mut(shape, &onto_y);
                    shape
                }
                ShapeSpec::Terrain(t) => {
                    let (field, scale) = height_field(physics, &t);
                    if field.is_null() {
                        return Err("PhysX could not build the terrain's height field".into());
                    }
                    let g = PxHeightFieldGeometry_new(
                        field,
                        PxMeshGeometryFlags::empty(),
                        scale,
                        t.spacing,
                        t.spacing,
                    );
                    let shape = PxRigidActorExt_createExclusiveShape(
                        actor,
                        (&g as *const PxHeightFieldGeometry).cast(),
                        &material,
                        1,
                        flags,
                    );
                    // The shape holds its own reference to the field.
                    PxHeightField_release_mut(field);
                    shape
                }
            };
            if shape.is_null() {
                return Err("PhysX could not create a shape".to_string());
            }
            if b.dynamic {
                let body: *mut PxRigidBody = actor.cast();
                PxRigidBodyExt_updateMassAndInertia(body, &b.density, 1, null(), false);
                let dynamic: *mut PxRigidDynamic = actor.cast();
                PxRigidDynamic_setSleepThreshold_mut(dynamic, 0.0);
                PxRigidBody_setLinearDamping_mut(body, 0.0);
                PxRigidBody_setAngularDamping_mut(body, 0.0);
                PxRigidDynamic_setLinearVelocity_mut(dynamic, &vec3(b.linear_velocity), true);
            }
            PxScene_addActor_mut(scene, actor.cast(), null());
            world.actors.push(actor);
            world.dynamic.push(b.dynamic);
            poses.push(impetus::Transform::new(position, b.rotation));
        }

        for j in &recipe.joints {
            let (a, b) = (world.actors[j.a], world.actors[j.b]);
            let fa = local_frame(j, j.anchor, &poses[j.a]);
            let fb = local_frame(j, j.anchor_b(), &poses[j.b]);
            let joint: *mut PxJoint = match j.kind {
                JointSpecKind::Ball => phys_PxSphericalJointCreate(physics, a, &fa, b, &fb).cast(),
                JointSpecKind::Hinge { limits, motor } => {
                    let h = phys_PxRevoluteJointCreate(physics, a, &fa, b, &fb);
                    if let Some([lower, upper]) = limits {
                        let l = PxJointAngularLimitPair_new(lower, upper, -1.0);
                        PxRevoluteJoint_setLimit_mut(h, &l);
                        PxRevoluteJoint_setRevoluteJointFlag_mut(
                            h,
                            PxRevoluteJointFlag::LimitEnabled,
                            true,
                        );
                    }
                    if let Some(m) = motor {
                        PxRevoluteJoint_setDriveVelocity_mut(h, m.speed, true);
                        PxRevoluteJoint_setDriveForceLimit_mut(h, m.max_force);
                        PxRevoluteJoint_setRevoluteJointFlag_mut(
                            h,
                            PxRevoluteJointFlag::DriveEnabled,
                            true,
                        );
                    }
                    h.cast()
                }
                JointSpecKind::Fixed => phys_PxFixedJointCreate(physics, a, &fa, b, &fb).cast(),
                JointSpecKind::Distance { length } => {
                    let d = phys_PxDistanceJointCreate(physics, a, &fa, b, &fb);
                    PxDistanceJoint_setMinDistance_mut(d, length);
                    PxDistanceJoint_setMaxDistance_mut(d, length);
                    PxDistanceJoint_setTolerance_mut(d, 0.0);
                    PxDistanceJoint_setDistanceJointFlags_mut(
                        d,
                        PxDistanceJointFlags::MinDistanceEnabled
                            | PxDistanceJointFlags::MaxDistanceEnabled,
                    );
                    d.cast()
                }
                JointSpecKind::ConeTwist { .. } => unreachable!("rejected by physx_skips"),
            };
            if joint.is_null() {
                return Err("PhysX could not create a joint".to_string());
            }
            world.joints.push(joint);
        }
        // The shapes hold their own references to the materials.
        for (_, m) in materials {
            PxRefCounted_release_mut(m.cast());
        }
        Ok(world)
    }
}

impl PeerWorld for PhysxWorld {
    fn engine(&self) -> String {
        physx_row(self.solver)
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn step(&mut self) -> Result<(), String> {
        let mut error = 0u32;
        let scratch_bytes = (self.scratch.len() * 16) as u32;
        // SAFETY: a live scene, stepped from one thread; fetchResults blocks until the
        // simulation has finished, so no PhysX call overlaps it. The scratch block is
        // 16-byte aligned, a multiple of 16 KiB and owned by the world, untouched by Rust
        // while PhysX uses it.
        let ok = unsafe {
            PxScene_simulate_mut(
                self.scene,
                DT,
                null_mut(),
                self.scratch.as_mut_ptr().cast(),
                scratch_bytes,
                true,
            ) && PxScene_fetchResults_mut(self.scene, true, &mut error)
        };
        if ok && error == 0 {
            Ok(())
        } else {
            Err(format!("PhysX step failed (error state {error})"))
        }
    }

    fn states(&self) -> Vec<BodyState> {
        self.actors
            .iter()
            .zip(&self.dynamic)
            .map(|(&actor, &dynamic)| {
                // SAFETY: live actors of a live scene, read between steps; only dynamic
                // actors are read as rigid bodies.
                unsafe {
                    let pose = PxRigidActor_getGlobalPose(actor);
                    let (v, w) = if dynamic {
                        let body: *const PxRigidBody = actor.cast();
                        (
                            PxRigidBody_getLinearVelocity(body),
                            PxRigidBody_getAngularVelocity(body),
                        )
                    } else {
                        (vec3(Vec3::ZERO), vec3(Vec3::ZERO))
                    };
                    BodyState {
                        position: Vec3::new(pose.p.x, pose.p.y, pose.p.z),
                        rotation: Quat::from_xyzw(pose.q.x, pose.q.y, pose.q.z, pose.q.w),
                        linear_velocity: Vec3::new(v.x, v.y, v.z),
                        angular_velocity: Vec3::new(w.x, w.y, w.z),
                    }
                }
            })
            .collect()
    }

    fn stages(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

impl Drop for PhysxWorld {
    fn drop(&mut self) {
        // SAFETY: every object was created for this world and is released once, joints
        // before the actors they join, actors before the scene, the scene before its
        // dispatcher.
        unsafe {
            for &j in &self.joints {
                PxJoint_release_mut(j);
            }
            for &a in &self.actors {
                PxRigidActor_release_mut(a);
            }
            PxScene_release_mut(self.scene);
            PxDefaultCpuDispatcher_release_mut(self.dispatcher);
        }
    }
}

/// Builds `scene` in PhysX with `solver` and steps it `steps` times on `threads` threads,
/// calling `progress(step, last_ms)` after every step (see [`run_peer`]).
pub fn run_physx(
    scene: &Scene,
    threads: usize,
    steps: usize,
    solver: PhysxSolver,
    progress: impl FnMut(usize, f64),
) -> Result<RunResult, String> {
    let recipe = (scene.recipe)(&Params::default());
    let mut world = build_physx(&recipe, threads, solver)?;
    run_peer(scene.name, &recipe, &mut world, steps, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find;

    /// The linked PhysX is a release build (no PX_CHECKED, no PX_DEBUG): fails when the
    /// workspace stops giving physx-sys a profile without debug info.
    #[test]
    fn built_as_shipped() {
        assert_eq!(physx_checked(), Ok(false), "PhysX is a checked build");
        assert!(
            crate::peer::CXX_FLAGS.contains("-DNDEBUG"),
            "{}",
            crate::peer::CXX_FLAGS
        );
    }

    /// The tuned row runs the TGS solver and says so in its name.
    #[test]
    fn tgs_row_runs() {
        let r = run_physx(find("pyramid").unwrap(), 1, 30, PhysxSolver::Tgs, |_, _| {}).unwrap();
        assert!(r.engine.ends_with("TGS"), "{}", r.engine);
        assert!(r.stability.min_y > -0.05, "{:?}", r.stability);
    }

    /// PhysX's own sample of a stack (SnippetHelloWorld's `createStack`: a flat pyramid of
    /// base 10 of boxes of half extent 2 and density 10, each row on the one below, on a
    /// ground plane) stands in this adapter at the default settings, PGS and TGS alike: the
    /// adapter builds stacks as PhysX's authors do, so a larger structure that falls does
    /// so in PhysX's solver, not through a mistake here.
    #[test]
    fn snippet_stack_stands() {
        use crate::{BodySpec, Recipe};
        let half = 2.0;
        let size = 10;
        let mut bodies = vec![BodySpec::static_box(
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(100.0, 1.0, 100.0),
        )];
        for i in 0..size {
            for j in 0..size - i {
                let local = Vec3::new((2 * j) as f32 - (size - i) as f32, (2 * i + 1) as f32, 0.0);
                let mut b = BodySpec::unit_box(local * half, Quat::IDENTITY);
                b.shape = ShapeSpec::Cuboid(Vec3::splat(half));
                b.density = 10.0;
                bodies.push(b);
            }
        }
        let recipe: Recipe = bodies.into();
        for solver in [PhysxSolver::Pgs, PhysxSolver::Tgs] {
            let mut world = build_physx(&recipe, 1, solver).unwrap();
            let start = world.states();
            for _ in 0..300 {
                world.step().unwrap();
            }
            let moved = world
                .states()
                .iter()
                .zip(&start)
                .map(|(a, b)| a.position.distance(b.position))
                .fold(0.0f32, f32::max);
            assert!(moved < 0.1, "{solver:?}: a box moved {moved} m");
        }
    }

    /// The pyramid stands on the ground at 1 and 2 threads: nothing falls through, nothing
    /// flies off (a pyramid that collapses moves boxes by metres; PhysX's settles by a few
    /// decimetres, its stack sinking into its contacts).
    #[test]
    fn pyramid_stands() {
        for threads in [1, 2] {
            let r = run_physx(
                find("pyramid").unwrap(),
                threads,
                30,
                PhysxSolver::Pgs,
                |_, _| {},
            )
            .unwrap();
            assert_eq!(r.bodies, 820);
            assert!(r.stability.min_y > -0.05, "{:?}", r.stability);
            assert!(r.stability.max_displacement < 1.0, "{:?}", r.stability);
            assert!(r.contacts > 0);
        }
    }

    /// Cone-twist joints are skipped with the reason; the rest of the joints run.
    #[test]
    fn joints_build() {
        let ragdolls = (find("ragdolls").unwrap().recipe)(&Params::default());
        assert!(physx_skips(&ragdolls).unwrap().contains("cone-twist"));
        let r = run_physx(find("bridge").unwrap(), 1, 30, PhysxSolver::Pgs, |_, _| {}).unwrap();
        assert!(r.stability.max_joint_error < 0.1, "{:?}", r.stability);
    }
}
