//! The Jolt peer (`joltc-sys`: Jolt Physics 5.0 through the JoltC C API, built with CMake):
//! a physics system built from the same [`Recipe`] as the impetus world, stepped on Jolt's
//! thread-pool job system and measured by [`run_peer`].
//!
//! Settings (docs/SCENES.md, "Peer engines"): Jolt's `PhysicsSettings` defaults — 10
//! velocity and 2 position iterations, Baumgarte 0.2, speculative contact distance 0.02 m,
//! penetration slop 0.02 m — and one collision step per 1/60 s update (Jolt has no
//! substeps, contact hertz or push-out speed). Bodies: sleeping off, discrete motion
//! quality (Jolt's default), damping zero, mass from the recipe density; friction mixes as
//! sqrt(a b) and restitution as max(a, b), Jolt's defaults. The broad phase is optimised
//! once after the scene is built.
//!
//! Gravity: JoltC 0.3 exposes no setter for the system's gravity, which is Jolt's default
//! (0, −9.81, 0), so every dynamic body's gravity factor is 10 / 9.81: the recipe's
//! (0, −10, 0) exactly, to rounding.
//!
//! Shapes: a box is a `BoxShape` with Jolt's default convex radius (0.05 m: the box keeps
//! its size, its edges are rounded by that radius inside the solver), a sphere a
//! `SphereShape`, a capsule a `CapsuleShape` (along y, as the recipe's). JoltC 0.3 exposes no
//! height-field or mesh shapes and no constraints, so scenes with a terrain or with joints
//! (`joint_grid`, `heavy_chain`, `mesh_pile`, ...) are skipped for Jolt with that message.
//!
//! Threads: `JobSystemThreadPool` with T − 1 worker threads; the thread that calls
//! `PhysicsSystem::Update` runs jobs too while it waits on the step's barrier, so T threads
//! work in all (T = 1: no worker thread, every job on the stepping thread). Jolt reports no
//! per-stage times through JoltC, so its results carry no stage split.

use crate::peer::{run_peer, unsupported, BodyState, PeerWorld};
use crate::{Params, Recipe, RunResult, Scene, ShapeSpec, DT};
use impetus::{Quat, Vec3};
use joltc_sys::*;
use std::ffi::c_void;
use std::sync::Once;

/// Object and broad-phase layer of static bodies.
const NON_MOVING: u16 = 0;
/// Object and broad-phase layer of dynamic bodies.
const MOVING: u16 = 1;
/// Jolt's default gravity, m/s² (see the module doc).
const JOLT_GRAVITY: f32 = 9.81;
/// The temporary allocator's size per update, bytes (Jolt's samples use 10 MB for small
/// scenes; the 10,000-body scenes need more).
const TEMP_BYTES: u32 = 256 << 20;

/// The engine name and version.
pub fn jolt_version() -> String {
    "Jolt 5.0.0 (JoltC)".to_string()
}

fn init() {
    static INIT: Once = Once::new();
    // SAFETY: Jolt's process-wide registration, done once (Once) before any other call.
    INIT.call_once(|| unsafe {
        JPC_RegisterDefaultAllocator();
        JPC_FactoryInit();
        JPC_RegisterTypes();
    });
}

unsafe extern "C" fn bpl_count(_self: *const c_void) -> u32 {
    2
}

unsafe extern "C" fn bpl_of(_self: *const c_void, layer: JPC_ObjectLayer) -> JPC_BroadPhaseLayer {
    layer as JPC_BroadPhaseLayer
}

unsafe extern "C" fn object_vs_bpl(
    _self: *const c_void,
    layer: JPC_ObjectLayer,
    bpl: JPC_BroadPhaseLayer,
) -> bool {
    layer == MOVING || bpl as u16 == MOVING
}

unsafe extern "C" fn object_vs_object(
    _self: *const c_void,
    a: JPC_ObjectLayer,
    b: JPC_ObjectLayer,
) -> bool {
    a == MOVING || b == MOVING
}

fn vec3(v: Vec3) -> JPC_Vec3 {
    JPC_Vec3 {
        x: v.x,
        y: v.y,
        z: v.z,
        _w: v.z,
    }
}

/// A Jolt physics system built from a recipe, with its bodies in recipe order.
pub struct JoltWorld {
    system: *mut JPC_PhysicsSystem,
    bodies: Vec<JPC_BodyID>,
    temp: *mut JPC_TempAllocatorImpl,
    jobs: *mut JPC_JobSystemThreadPool,
    bpl: *mut JPC_BroadPhaseLayerInterface,
    object_vs_bpl: *mut JPC_ObjectVsBroadPhaseLayerFilter,
    object_vs_object: *mut JPC_ObjectLayerPairFilter,
    threads: usize,
    /// Whether the bodies were added to the system (all at once, after they were made).
    added: bool,
}

/// What JoltC cannot build of a recipe (see the module doc).
pub fn jolt_skips(recipe: &Recipe) -> Option<String> {
    unsupported(
        "Jolt (JoltC 0.3)",
        recipe,
        |_| Some("joints (JoltC 0.3 exposes no constraints)"),
        |s| match s {
            ShapeSpec::Terrain(_) => Some("height fields (JoltC 0.3 exposes none)"),
            _ => None,
        },
    )
}

/// Creates a shape from its settings, or the error Jolt gives.
///
/// # Safety
/// `create` must be the JoltC `*_Create` function for the settings type `S`.
unsafe fn create_shape<S>(
    settings: &S,
    create: unsafe extern "C" fn(*const S, *mut *mut JPC_Shape, *mut *mut JPC_String) -> bool,
) -> Result<*mut JPC_Shape, String> {
    let mut shape = std::ptr::null_mut();
    let mut error = std::ptr::null_mut();
    // SAFETY: the caller's contract; the out pointers are valid locals.
    if unsafe { create(settings, &mut shape, &mut error) } {
        Ok(shape)
    } else {
        // SAFETY: on failure JoltC hands over an error string, read and freed once.
        let message = unsafe {
            let m = std::ffi::CStr::from_ptr(JPC_String_c_str(error))
                .to_string_lossy()
                .into_owned();
            JPC_String_delete(error);
            m
        };
        Err(format!("Jolt could not create a shape: {message}"))
    }
}

/// Builds `recipe` into a new Jolt physics system stepping on `threads` threads (see the
/// module doc). Errs when the recipe has what JoltC cannot build.
pub fn build_jolt(recipe: &Recipe, threads: usize) -> Result<JoltWorld, String> {
    if let Some(message) = jolt_skips(recipe) {
        return Err(message);
    }
    init();
    let threads = threads.max(1);
    let n = recipe.bodies.len() as u32;
    // SAFETY: every object created here is owned by the returned JoltWorld and deleted in
    // its Drop; the layer callbacks are plain functions without state (null self).
    unsafe {
        let bpl = JPC_BroadPhaseLayerInterface_new(
            std::ptr::null(),
            JPC_BroadPhaseLayerInterfaceFns {
                GetNumBroadPhaseLayers: Some(bpl_count),
                GetBroadPhaseLayer: Some(bpl_of),
            },
        );
        let ovb = JPC_ObjectVsBroadPhaseLayerFilter_new(
            std::ptr::null(),
            JPC_ObjectVsBroadPhaseLayerFilterFns {
                ShouldCollide: Some(object_vs_bpl),
            },
        );
        let ovo = JPC_ObjectLayerPairFilter_new(
            std::ptr::null(),
            JPC_ObjectLayerPairFilterFns {
                ShouldCollide: Some(object_vs_object),
            },
        );
        let system = JPC_PhysicsSystem_new();
        // Capacities: every body, and pairs and contact constraints enough for the densest
        // scene (a settled pile has about four touching neighbours per box).
        JPC_PhysicsSystem_Init(
            system,
            n,
            0,
            (16 * n).max(65_536),
            (8 * n).max(20_480),
            bpl,
            ovb,
            ovo,
        );
        let world = JoltWorld {
            system,
            bodies: Vec::with_capacity(recipe.bodies.len()),
            temp: JPC_TempAllocatorImpl_new(TEMP_BYTES),
            jobs: JPC_JobSystemThreadPool_new3(
                JPC_MAX_PHYSICS_JOBS as u32,
                JPC_MAX_PHYSICS_BARRIERS as u32,
                threads as i32 - 1,
            ),
            bpl,
            object_vs_bpl: ovb,
            object_vs_object: ovo,
            threads,
            added: false,
        };
        let mut world = world;
        let bodies = JPC_PhysicsSystem_GetBodyInterface(system);
        for b in &recipe.bodies {
            let density = if b.dynamic { b.density } else { 1.0 };
            let shape = match b.shape {
                ShapeSpec::Cuboid(h) => {
                    let s = JPC_BoxShapeSettings {
                        HalfExtent: vec3(h),
                        Density: density,
                        ..Default::default()
                    };
                    create_shape(&s, JPC_BoxShapeSettings_Create)?
                }
                ShapeSpec::Ball(radius) => {
                    let s = JPC_SphereShapeSettings {
                        Radius: radius,
                        Density: density,
                        ..Default::default()
                    };
                    create_shape(&s, JPC_SphereShapeSettings_Create)?
                }
                ShapeSpec::Capsule {
                    half_height,
                    radius,
                } => {
                    let s = JPC_CapsuleShapeSettings {
                        Radius: radius,
                        HalfHeightOfCylinder: half_height,
                        Density: density,
                        ..Default::default()
                    };
                    create_shape(&s, JPC_CapsuleShapeSettings_Create)?
                }
                ShapeSpec::Terrain(_) => unreachable!("rejected by jolt_skips"),
            };
            let (motion, layer, velocity, gravity) = if b.dynamic {
                (
                    JPC_MOTION_TYPE_DYNAMIC,
                    MOVING,
                    b.linear_velocity,
                    10.0 / JOLT_GRAVITY,
                )
            } else {
                (JPC_MOTION_TYPE_STATIC, NON_MOVING, Vec3::ZERO, 1.0)
            };
            let settings = JPC_BodyCreationSettings {
                Position: vec3(b.position),
                Rotation: JPC_Quat {
                    x: b.rotation.x,
                    y: b.rotation.y,
                    z: b.rotation.z,
                    w: b.rotation.w,
                },
                LinearVelocity: vec3(velocity),
                MotionType: motion,
                ObjectLayer: layer,
                GravityFactor: gravity,
                Shape: shape,
                Friction: b.friction,
                Restitution: b.restitution,
                AllowSleeping: false,
                LinearDamping: 0.0,
                AngularDamping: 0.0,
                ..Default::default()
            };
            let body = JPC_BodyInterface_CreateBody(bodies, &settings);
            // The body holds its own reference to the shape.
            JPC_Shape_Release(shape);
            if body.is_null() {
                return Err("Jolt could not create a body (out of bodies)".to_string());
            }
            world.bodies.push(JPC_Body_GetID(body));
        }
        // Jolt reorders the array it adds (by broad-phase layer): hand it a copy, so that
        // `world.bodies` stays in recipe order.
        let mut adding = world.bodies.clone();
        let count = adding.len() as i32;
        let state = JPC_BodyInterface_AddBodiesPrepare(bodies, adding.as_mut_ptr(), count);
        JPC_BodyInterface_AddBodiesFinalize(
            bodies,
            adding.as_mut_ptr(),
            count,
            state,
            JPC_ACTIVATION_ACTIVATE,
        );
        world.added = true;
        JPC_PhysicsSystem_OptimizeBroadPhase(system);
        Ok(world)
    }
}

impl PeerWorld for JoltWorld {
    fn engine(&self) -> String {
        jolt_version()
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn step(&mut self) -> Result<(), String> {
        // SAFETY: a live system with its own allocator and job system, updated from one
        // thread.
        let error = unsafe { JPC_PhysicsSystem_Update(self.system, DT, 1, self.temp, self.jobs) };
        if error == 0 {
            Ok(())
        } else {
            Err(format!(
                "Jolt update failed (error bits {error:#x}: a cache is full)"
            ))
        }
    }

    fn states(&self) -> Vec<BodyState> {
        // SAFETY: a live system, read between updates.
        let bodies = unsafe { JPC_PhysicsSystem_GetBodyInterface(self.system) };
        self.bodies
            .iter()
            .map(|&id| {
                let mut p = vec3(Vec3::ZERO);
                let mut q = JPC_Quat {
                    x: 0.0,
                    y: 0.0,
                    z: 0.0,
                    w: 1.0,
                };
                let (mut v, mut w) = (vec3(Vec3::ZERO), vec3(Vec3::ZERO));
                // SAFETY: live body ids; the out pointers are valid locals.
                unsafe {
                    JPC_BodyInterface_GetPositionAndRotation(bodies, id, &mut p, &mut q);
                    JPC_BodyInterface_GetLinearAndAngularVelocity(bodies, id, &mut v, &mut w);
                }
                BodyState {
                    position: Vec3::new(p.x, p.y, p.z),
                    rotation: Quat::from_xyzw(q.x, q.y, q.z, q.w),
                    linear_velocity: Vec3::new(v.x, v.y, v.z),
                    angular_velocity: Vec3::new(w.x, w.y, w.z),
                }
            })
            .collect()
    }

    fn stages(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

impl Drop for JoltWorld {
    fn drop(&mut self) {
        // SAFETY: each object was created for this world and is deleted once, the bodies
        // before their system, the system before the layer filters it refers to.
        unsafe {
            let bodies = JPC_PhysicsSystem_GetBodyInterface(self.system);
            let count = self.bodies.len() as i32;
            if self.added {
                let mut removing = self.bodies.clone();
                JPC_BodyInterface_RemoveBodies(bodies, removing.as_mut_ptr(), count);
            }
            for &id in &self.bodies {
                JPC_BodyInterface_DestroyBody(bodies, id);
            }
            JPC_PhysicsSystem_delete(self.system);
            JPC_ObjectLayerPairFilter_delete(self.object_vs_object);
            JPC_ObjectVsBroadPhaseLayerFilter_delete(self.object_vs_bpl);
            JPC_BroadPhaseLayerInterface_delete(self.bpl);
            JPC_JobSystemThreadPool_delete(self.jobs);
            JPC_TempAllocatorImpl_delete(self.temp);
        }
    }
}

/// Builds `scene` in Jolt and steps it `steps` times on `threads` threads, calling
/// `progress(step, last_ms)` after every step (see [`run_peer`]).
pub fn run_jolt(
    scene: &Scene,
    threads: usize,
    steps: usize,
    progress: impl FnMut(usize, f64),
) -> Result<RunResult, String> {
    let recipe = (scene.recipe)(&Params::default());
    let mut world = build_jolt(&recipe, threads)?;
    run_peer(scene.name, &recipe, &mut world, steps, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find;

    /// The pyramid stands on the ground at 1 and 2 threads: nothing falls through, nothing
    /// flies off (a pyramid that collapses moves boxes by metres; PhysX's settles by a few
    /// decimetres, its stack sinking into its contacts).
    #[test]
    fn pyramid_stands() {
        for threads in [1, 2] {
            let r = run_jolt(find("pyramid").unwrap(), threads, 30, |_, _| {}).unwrap();
            assert_eq!(r.bodies, 820);
            assert!(r.stability.min_y > -0.05, "{:?}", r.stability);
            assert!(r.stability.max_displacement < 1.0, "{:?}", r.stability);
            assert!(r.contacts > 0);
        }
    }

    /// Scenes with joints are skipped with the reason, not faked.
    #[test]
    fn joints_are_skipped() {
        let recipe = (find("joint_grid").unwrap().recipe)(&Params::default());
        let why = jolt_skips(&recipe).unwrap();
        assert!(why.contains("joints"), "{why}");
    }
}
