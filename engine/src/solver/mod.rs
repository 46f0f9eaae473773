//! The soft-step solver (Catto, "Solver2D", 2024; Box2D v3).
//!
//! Per step, with `h = dt / substeps`:
//! prepare contacts, colour them and pack each colour into SIMD batches -> impacts of
//! bouncy contacts ([`impact`]) -> for each substep { integrate velocities; warm start;
//! solve (with bias); integrate positions and rotations; relax (no bias) } -> store
//! impulses (a coloured contact's stay in its batch until the next narrowphase copies
//! them into its manifold, see [`graph::ConstraintGraph::store`]; a coloured ball joint's
//! stay in its batch, which is kept with the joint lists and refreshed from the bodies,
//! until its slot is read or changed, see [`graph::ConstraintGraph::store_joints`]). In a
//! step without joints the warm start of the substeps after the first is carried per body
//! instead of re-applied by the constraints (see [`WarmStart`]). The scalar kernels
//! ([`contact`]) solve the overflow of the colouring; the wide kernels
//! ([`contact_wide`]) solve each colour `W` constraints at a time, spread over workers.
//!
//! The solver's body state is the packed 64-byte [`BodyState`], one cache line per body,
//! gathered into lanes by SIMD transposes: a body's 13 float columns (SoA) would be 13
//! cache lines, its packed state is one, and the packed layout is several times faster
//! on the solver's access pattern (`cargo bench -p impetus-scenes --bench body_layout`
//! compares the two). (Hardware gathers for the columns were not tried.) Transposes
//! rather than per-field inserts, and 64- rather than 16-byte alignment, are faster too.
//!
//! Bodies that move (dynamic and kinematic) are gathered into a dense array of
//! [`BodyState`]: velocity and the position/rotation change since the step began. Contacts
//! keep their anchors fixed for the whole step and refresh their separation each substep
//! from these deltas, so collision runs once per step while the solver sees moving bodies.
//! Static bodies have no state; a shared identity state stands in for them and is never
//! written.
//!
//! # Stiffness under load
//!
//! A contact is a damped spring of stiffness `m_eff ω²` (30 Hz; twice that against
//! static bodies) whatever it carries, so a resting contact overlaps by `F / (m_eff ω²)`:
//! 28 mm for a 100 kg box under 10,000 kg (`m_eff` is the light box's), 0.1 m over a
//! column of 20 boxes, and columns of more than ~16 boxes buckle on these springs and
//! sway. Stiffer contacts everywhere, stiffness raised with each contact's load, shock
//! propagation, extra passes, an integral spring and mass scaling were each measured
//! (`docs/decisions.md`, "Stiffness under load"): every way of making contacts stiffer
//! also makes stacks rock unless the velocity passes converge through the stack (a
//! column of N boxes needs about N relax sweeps a substep), so the step keeps 30 Hz
//! with one biased and one relax sweep. What was kept is the removal, after a relax
//! pass, of the corner loads of a four-point manifold that move no body
//! ([`contact::null_impulses`]): left as the rows solved one after another leave them,
//! a corner at zero lets a box stand on a diagonal and rock. Between bodies of different
//! masses (the ground included) it is done after every relax pass; between like bodies
//! after the step's last, before the impulses are stored for the next step's warm start
//! (see [`StepContext::drop_null`]). A load remembered per
//! contact point (the spring leaking only the load above it) was measured too
//! (`docs/decisions.md`, "Stiffness under load, part two"): the leak is also what damps
//! one sweep's error through a stack, and without it stacks rock at any memory shorter
//! than about 4 s, so it was not kept; nor with the trees below ("part twelve": the
//! pyramids grow unstable at every memory up to 16 s, a partial memory cuts the sink by
//! no more than its part). Support trees solved exactly (each body's most
//! loaded support, the trees' normal, friction and twist rows solved as
//! [`articulation`] solves ball-joint trees) were measured too (`docs/decisions.md`,
//! "Stiffness under load, part three"): they hold aligned stacks at any mass ratio with
//! no overlap and columns at rest, but a tree of welded edges is one rigid body, and
//! tilted or landing columns and piles ask its corners for more than they can carry, so
//! a weld alone cannot hold them ("part five"). The trees are kept with their limits
//! solved as an active set ([`stack`], "parts four and six"): a manifold's points carry
//! its push and tilts, or only the points it rocks on, and friction and twist stick or
//! slide, the tree solved again as the set changes. They are used where the soft contact
//! fails worst, a body on one at least four times lighter (a 100 t box stands on a 100 kg
//! one with 0.3 mm of overlap), and for stacks standing alone (the towers' 25-box column
//! stands still, where soft contacts leave it 165 mm short and swaying). Piles and
//! pyramids keep the soft step and its sink: their bodies rest on two supports or touch
//! their neighbours, and a pile's columns, in the trees in some steps and out of them in
//! others, were kicked by the weld's impulses in the soft contacts' warm start ("part
//! six"). Two more designs for them were measured and not kept: positions projected from
//! the ground up after the substeps fight the soft contact's leak and set resting pyramids
//! jittering ("part seven"), and stiffness raised with the load beside the trees throws
//! columns before the trees take them and the pile's columns whichever way the relax
//! pass walks the colours ("parts eight and twelve").
//!
//! Names inside the kernels: `v`, `w` linear / angular velocity, `dp`, `dq` delta position /
//! rotation, `m` inverse mass, `i` world inverse inertia, `h` substep, `n` normal,
//! `r` anchor relative to the centre of mass.

pub(crate) mod articulation;
pub(crate) mod ball_wide;
mod block;
pub(crate) mod color;
pub(crate) mod contact;
pub(crate) mod contact_wide;
mod free_rotation;
pub(crate) mod graph;
pub(crate) mod impact;
pub(crate) mod joint;
pub(crate) mod joint_wide;
pub(crate) mod rolling;
mod softness;
pub(crate) mod stack;
pub(crate) mod wide;

pub(crate) use softness::Softness;

use crate::body::{origin_of, BodyStore, BodyType};
use crate::id::NULL;
use crate::math::rotate_diagonal;
use crate::math::Transform;
use crate::parallel::{
    for_each_chunk_maybe_par, for_each_chunk_maybe_par_beside, for_each_maybe_par, DisjointPtr,
};
pub(crate) use free_rotation::{free_rotation, FreeBody, FREE_LANES};
use glam::{Mat3, Quat, Vec3};

/// A movable body's solver state. 64 bytes, 64-aligned: one cache line per body. The
/// kernels read it as 16 floats (v, 0, w, 0, dp, 0, dq) and transpose `W` of them into
/// lanes (see `contact_wide`), so the field order is part of the layout.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub(crate) struct BodyState {
    pub v: Vec3,
    pub _pad0: f32,
    pub w: Vec3,
    pub _pad1: f32,
    pub dp: Vec3,
    pub _pad2: f32,
    pub dq: Quat,
}

const _: () = assert!(std::mem::size_of::<BodyState>() == 64);

impl BodyState {
    /// The state of a static body: at rest, not moved.
    pub const IDENTITY: Self = Self {
        v: Vec3::ZERO,
        _pad0: 0.0,
        w: Vec3::ZERO,
        _pad1: 0.0,
        dp: Vec3::ZERO,
        _pad2: 0.0,
        dq: Quat::IDENTITY,
    };
}

/// A movable body's inverse mass and world inverse inertia.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverMass {
    pub inv_mass: f32,
    pub inv_inertia: Mat3,
}

impl SolverMass {
    /// A body that nothing moves.
    pub const ZERO: Self = Self {
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
    };
}

/// Floats in a [`MassRow`]: what the contact kernels gather of a body's mass, rounded up
/// to whole lane blocks so that a row loads as `MASS_FLOATS / W` vectors.
pub(crate) const MASS_FLOATS: usize = if self::wide::W > 8 { self::wide::W } else { 8 };

/// A movable body's inverse mass and the symmetric part of its world inverse inertia
/// (`inv_mass, xx, xy, xz, yy, yz, zz`, then zeros), packed for the contact kernels: they
/// gather it per pass instead of keeping 14 lanes of masses in every batch (the batches
/// are streamed from memory every pass; this array stays in cache).
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(32))]
pub(crate) struct MassRow {
    pub f: [f32; MASS_FLOATS],
}

impl MassRow {
    /// A static body's row: no inverse mass, no inverse inertia.
    pub const ZERO: Self = Self {
        f: [0.0; MASS_FLOATS],
    };

    /// The row of inverse mass `inv_mass` and world inverse inertia `m` (its elements xx,
    /// xy, xz, yy, yz, zz, as [`SymMat3W`](self::wide::SymMat3W) keeps them).
    pub fn new(inv_mass: f32, m: &Mat3) -> Self {
        let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
        let mut f = [0.0; MASS_FLOATS];
        f[..7].copy_from_slice(&[inv_mass, x.x, y.x, z.x, y.y, z.y, z.z]);
        Self { f }
    }
}

/// Per-step solver arrays, reused across steps (no allocation once warmed up).
#[derive(Default)]
pub(crate) struct SolverBodies {
    pub states: Vec<BodyState>,
    /// Per dense index, `mass` packed for the contact kernels (see [`MassRow`]).
    pub mass_rows: Vec<MassRow>,
    /// Dense index -> body slot.
    pub slot: Vec<u32>,
    /// Whether `slot` differs from the last step's (see [`Self::gather`]).
    pub slots_changed: bool,
    /// Body slot -> dense index, or [`NULL`] for static bodies and holes.
    pub index: Vec<u32>,
    /// Inverse mass and world inverse inertia at the start of the step (zero for kinematic
    /// bodies), side by side: prepare reads both for every contact, one cache line.
    pub mass: Vec<SolverMass>,
    /// What `integrate_velocities` adds each substep, per dense index (see [`Forcing`]).
    pub forcing: Vec<Forcing>,
    /// Per dense index, the velocity before the constraints acted in this substep, for
    /// the carried warm start (see [`WarmStart`]).
    pub carry: Vec<WarmCarry>,
    /// Per solver index, whether `finalize` found the body's new state non-finite and kept
    /// it where it was.
    pub frozen: Vec<bool>,
    /// Per solver index, how the continuous stage sweeps the body this step, as `finalize`
    /// found it: [`SWEEP_NONE`], [`SWEEP_FAST`] or [`SWEEP_BULLET`].
    pub sweep: Vec<u8>,
}

/// Not swept: not dynamic, quarantined, a bullet without shapes, or not fast.
pub(crate) const SWEEP_NONE: u8 = 0;
/// A body that moved more than half its smallest extent this step, where the world sweeps
/// fast bodies.
pub(crate) const SWEEP_FAST: u8 = 1;
/// A bullet with shapes.
pub(crate) const SWEEP_BULLET: u8 = 2;

/// How a substep's warm start is done.
///
/// The warm start adds `M⁻¹ Jᵀ λ` of every constraint to its bodies. A contact's Jacobian
/// and the masses stay fixed for the whole step, so the next substep's warm start is, for
/// each body, everything the constraints added in this substep (its warm start, solve and
/// relax passes): `v_relaxed − v_integrated`. Carrying that per body replaces a pass over
/// every constraint (megabytes of batches on large scenes) by a subtraction and an
/// addition. Joints rotate their anchors every substep, so a step that solves a joint
/// warm-starts every substep from the constraints ([`WarmStart::Pass`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarmStart {
    /// The constraints warm-start this substep themselves.
    Pass,
    /// First substep of a carried step: the constraints warm-start; remember the velocity
    /// they start from.
    First,
    /// Later substep of a carried step: add what the constraints added last substep.
    Carried,
}

/// A body's velocity after the last `integrate_velocities`, before the constraints acted
/// (linear, angular): the start of the carried warm start's difference.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WarmCarry {
    pub v: Vec3,
    pub w: Vec3,
}

/// A movable body's velocity update for every substep of a step, computed once a step
/// ([`body_forcing`]): the substep loop then reads one 40-byte record per body instead
/// of nine body columns through the slot indirection.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Forcing {
    /// `h (F / m + g s)`: the linear velocity gained per substep, in m/s.
    pub dv: Vec3,
    /// `1 / (1 + h c)`: the linear damping factor per substep.
    pub lin_damp: f32,
    /// `h I⁻¹ τ`: the angular velocity gained per substep, in rad/s.
    pub dw: Vec3,
    /// The angular damping factor per substep.
    pub ang_damp: f32,
    /// [`DYNAMIC`], [`FAST_ROTATION`], [`GYROSCOPIC`].
    pub flags: u32,
}

/// [`Forcing::flags`]: the body is dynamic (kinematic bodies keep their velocity).
pub(crate) const DYNAMIC: u32 = 1;
/// The body may exceed the angular speed cap.
pub(crate) const FAST_ROTATION: u32 = 2;
/// The body's principal moments differ: it gets the gyroscopic term.
pub(crate) const GYROSCOPIC: u32 = 4;

/// What `integrate_velocities` adds to dynamic body `i` each substep (see [`Forcing`]),
/// from its inverse mass and world inverse inertia at the start of the step.
#[inline]
fn body_forcing(bodies: &BodyStore, i: usize, mass: &SolverMass, ctx: &StepContext) -> Forcing {
    let h = ctx.h;
    let inertia = bodies.inertia[i];
    Forcing {
        dv: h * (mass.inv_mass * bodies.force[i] + bodies.gravity_scale[i] * ctx.gravity),
        lin_damp: 1.0 / (1.0 + h * bodies.linear_damping[i]),
        dw: h * (mass.inv_inertia * bodies.torque[i]),
        ang_damp: 1.0 / (1.0 + h * bodies.angular_damping[i]),
        flags: DYNAMIC
            | if bodies.allow_fast_rotation[i] {
                FAST_ROTATION
            } else {
                0
            }
            | if inertia.x == inertia.y && inertia.y == inertia.z {
                0
            } else {
                GYROSCOPIC
            },
    }
}

/// Step-wide constants shared by the kernels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepContext {
    pub inv_dt: f32,
    pub h: f32,
    pub inv_h: f32,
    pub gravity: Vec3,
    pub contact_softness: Softness,
    pub static_softness: Softness,
    /// Softness of the joints' locks (position error correction while solving).
    pub joint_softness: Softness,
    pub max_push_speed: f32,
    pub restitution_threshold: f32,
    /// Below this sliding speed a contact uses its static friction coefficient.
    pub static_friction_speed: f32,
    pub max_linear_speed: f32,
    pub max_rotation: f32,
    /// Whether this relax pass takes the null impulses ([`contact::null_impulses`]) out of
    /// every four-point manifold: in the step's last relax, before the store. The other
    /// relax passes take them out only where a lane's two bodies differ in mass (the
    /// ground included), which is where leaving them for the rest of the step let bodies
    /// sink or fly off (a 1:1000 stack, the mixed-mass piles of `tests/stiffness.rs`);
    /// between like bodies (a pyramid's or a pile's boxes) those three drops a step changed
    /// no stability figure and cost a tenth of the pass (`docs/decisions.md`, "The null
    /// impulses dropped once a step between like bodies"). The scalar kernels (the
    /// overflow, the stacks' soft passes) drop them in every relax pass.
    pub drop_null: bool,
}

impl StepContext {
    /// The unit direction against gravity (zero without gravity): "up" for the stack
    /// search and the seeded batches.
    #[inline]
    pub fn up(&self) -> Vec3 {
        -self.gravity.normalize_or_zero()
    }
}

#[cfg(test)]
impl StepContext {
    /// A 60 Hz step of 4 substeps, no gravity, the default softness: what the kernels'
    /// unit tests solve with.
    pub fn for_tests() -> Self {
        let h = 1.0 / 240.0;
        StepContext {
            inv_dt: 60.0,
            h,
            inv_h: 1.0 / h,
            gravity: Vec3::ZERO,
            contact_softness: Softness::new(30.0, 10.0, h),
            static_softness: Softness::new(60.0, 10.0, h),
            joint_softness: Softness::new(60.0, 5.0, h),
            max_push_speed: 3.0,
            restitution_threshold: 1.0,
            static_friction_speed: 0.01,
            max_linear_speed: 100.0,
            max_rotation: 0.8,
            drop_null: true,
        }
    }
}

impl SolverBodies {
    /// The solver index of body slot `body` when it is an awake dynamic body (one with an
    /// inverse mass), else [`NULL`].
    #[inline]
    pub fn dynamic(&self, body: u32) -> u32 {
        let k = self.index[body as usize];
        if k != NULL && self.mass[k as usize].inv_mass > 0.0 {
            k
        } else {
            NULL
        }
    }

    /// Gathers every movable body into the dense arrays (in slot order: reproducible) and
    /// fills its [`Forcing`] for the step.
    ///
    /// The list of movable bodies is made serially (a scan of two flags a body); each
    /// body's state, masses and forcing are then written in one pass over the list, by the
    /// workers in chunks when `parallel`: each dense index is written by one worker from
    /// its own body's columns, so the result does not depend on the split. (It was a
    /// serial pass, and the forcing a second one: figures in `docs/decisions.md`, "The
    /// lead".)
    ///
    /// `beside(index, slot, slots_changed)` runs once the dense index (and its inverse, the
    /// slots, and whether they changed) is made, beside the loop over the bodies (on the
    /// walking thread while the workers start on the bodies, inside a region): work that
    /// reads those and nothing the loop writes.
    pub fn gather(
        &mut self,
        bodies: &BodyStore,
        alive: impl Fn(usize) -> bool,
        ctx: &StepContext,
        parallel: bool,
        mut beside: impl FnMut(&[u32], &[u32], bool) + Send,
    ) {
        let n = bodies.body_type.len();
        self.index.clear();
        self.index.resize(n, NULL);
        // Written over the last step's list, noting whether it is the same.
        let (mut len, mut same) = (0, true);
        for i in 0..n {
            if alive(i) && bodies.body_type[i] != BodyType::Static {
                self.index[i] = len as u32;
                match self.slot.get_mut(len) {
                    Some(s) => {
                        same &= *s == i as u32;
                        *s = i as u32;
                    }
                    None => {
                        same = false;
                        self.slot.push(i as u32);
                    }
                }
                len += 1;
            }
        }
        self.slots_changed = !same || len != self.slot.len();
        self.slot.truncate(len);
        // Room for one more state and mass row than there are bodies: the sentinels the
        // passes write past the ends (see `StatesPtr::new`), without a copy of either vector
        // when the first pass asks for them.
        self.states
            .reserve((len + 1).saturating_sub(self.states.len()));
        self.mass_rows
            .reserve((len + 1).saturating_sub(self.mass_rows.len()));
        self.states.resize(len, BodyState::IDENTITY);
        self.mass.resize(len, SolverMass::ZERO);
        self.mass_rows.resize(len, MassRow::ZERO);
        self.forcing.resize(len, Forcing::default());
        let slots = &self.slot;
        let work = |k: usize,
                    state: &mut BodyState,
                    mass: &mut SolverMass,
                    row: &mut MassRow,
                    forcing: &mut Forcing| {
            let i = slots[k] as usize;
            let dynamic = bodies.body_type[i] == BodyType::Dynamic;
            *state = BodyState {
                v: bodies.linear_velocity[i],
                w: bodies.angular_velocity[i],
                ..BodyState::IDENTITY
            };
            *mass = SolverMass {
                inv_mass: bodies.inv_mass[i],
                inv_inertia: if dynamic {
                    rotate_diagonal(bodies.rotation[i], bodies.inv_inertia[i])
                } else {
                    Mat3::ZERO
                },
            };
            *row = MassRow::new(mass.inv_mass, &mass.inv_inertia);
            *forcing = if dynamic {
                body_forcing(bodies, i, mass, ctx)
            } else {
                Forcing::default()
            };
        };
        // The other columns by the chunk's range: each dense index is the chunk's alone.
        let (mass, rows, forcing) = (
            DisjointPtr::new(&mut self.mass),
            DisjointPtr::new(&mut self.mass_rows),
            DisjointPtr::new(&mut self.forcing),
        );
        let chunk = |c: usize, states: &mut [BodyState]| {
            let (start, len) = (c * GATHER_CHUNK, states.len());
            let (mass, rows) = (mass.get_slice(start, len), rows.get_slice(start, len));
            let forcing = forcing.get_slice(start, len);
            for (j, state) in states.iter_mut().enumerate() {
                work(
                    start + j,
                    state,
                    &mut mass[j],
                    &mut rows[j],
                    &mut forcing[j],
                );
            }
        };
        let (index, changed) = (&self.index, self.slots_changed);
        for_each_chunk_maybe_par_beside(&mut self.states, GATHER_CHUNK, parallel, 1, chunk, || {
            beside(index, slots, changed)
        });
    }
}

/// [`SolverBodies::dynamic`] from the solver's `index` column, with the inverse mass read
/// by body slot from `inv_mass` (the bodies' column, which [`SolverBodies::gather`] copies
/// into the solver's mass rows): a dense 4-byte column where the rows lie 40 bytes apart
/// in solver order, and not yet written while the contacts are coloured beside the gather.
/// For the serial mapping of every touching pair, where the rows' loads were its largest
/// cost (`docs/decisions.md`, "Where rain's two threads wait").
#[inline]
pub(crate) fn dynamic_by_slot(index: &[u32], inv_mass: &[f32], body: u32) -> u32 {
    let k = index[body as usize];
    if k != NULL && inv_mass[body as usize] > 0.0 {
        k
    } else {
        NULL
    }
}

/// Bodies per work item of the gather (512 and 256 measured: `docs/decisions.md`).
const GATHER_CHUNK: usize = crate::parallel::par_min(512);

/// Semi-implicit Euler on velocities: gravity, applied forces, damping (all from the
/// step's [`Forcing`]), speed caps. Kinematic bodies keep their velocity. (The
/// gyroscopic term is part of the rotation update, [`integrate_positions`].)
///
/// With `warm` other than [`WarmStart::Pass`] it also carries the warm start (see
/// [`WarmStart`]): it remembers the new velocity, from which the constraints then act,
/// and with [`WarmStart::Carried`] adds to it what they added in the last substep.
pub(crate) fn integrate_velocities(
    sb: &mut SolverBodies,
    ctx: &StepContext,
    warm: WarmStart,
    parallel: bool,
) {
    let max_w = ctx.max_rotation * ctx.inv_dt;
    if warm != WarmStart::Pass {
        sb.carry.resize(sb.states.len(), WarmCarry::default());
    }
    let forcing = &sb.forcing;
    let carry = DisjointPtr::new(&mut sb.carry);
    let work = |k: usize, s: &mut BodyState| {
        let f = &forcing[k];
        if f.flags & DYNAMIC == 0 {
            return;
        }
        // What the constraints added in the last substep (carried steps only).
        let (cv, cw) = if warm == WarmStart::Carried {
            let c = carry.get_mut(k as u32);
            (s.v - c.v, s.w - c.w)
        } else {
            (Vec3::ZERO, Vec3::ZERO)
        };
        let mut v = f.lin_damp * s.v + f.dv;
        let mut w = f.ang_damp * s.w + f.dw;
        let v2 = v.length_squared();
        if v2 > ctx.max_linear_speed * ctx.max_linear_speed {
            v = clamp_length(v, v2, ctx.max_linear_speed);
        }
        let w2 = w.length_squared();
        if f.flags & FAST_ROTATION == 0 && w2 > max_w * max_w {
            w = clamp_length(w, w2, max_w);
        }
        match warm {
            WarmStart::Pass => (s.v, s.w) = (v, w),
            WarmStart::First => {
                (s.v, s.w) = (v, w);
                *carry.get_mut(k as u32) = WarmCarry { v, w };
            }
            WarmStart::Carried => {
                *carry.get_mut(k as u32) = WarmCarry { v, w };
                (s.v, s.w) = (v + cv, w + cw);
            }
        }
    };
    let ahead = StatesAhead::of(&sb.states);
    for_each_maybe_par(&mut sb.states, parallel, 512, |k, s| {
        ahead.ask(k);
        work(k, s)
    });
}

/// The body states an integration will update next, asked for while it updates one: at
/// two threads a body's state was often last written by the other core (by the colour
/// passes, in an order unlike the integrations'), and the hardware's stream prefetch does
/// not hide that transfer; at one thread it still saves a little (`docs/decisions.md`,
/// "Body states asked for ahead where the other core wrote them").
#[derive(Clone, Copy)]
struct StatesAhead {
    /// The states' address (an integer: no reference to states another worker writes).
    base: usize,
    len: usize,
}

impl StatesAhead {
    /// How many states ahead of the one updated.
    const AHEAD: usize = 16;

    fn of(states: &[BodyState]) -> Self {
        Self {
            base: states.as_ptr() as usize,
            len: states.len(),
        }
    }

    /// Asks for state `k + AHEAD`, if there is one, for a write.
    #[inline(always)]
    fn ask(self, k: usize) {
        ask_state(self.base, self.len, k + Self::AHEAD);
    }
}

/// Asks for state `k` of the `len` states at address `base` (an integer: no reference to
/// states another worker may be writing) in the state a store needs; nothing for `k` past
/// the end ([`NULL`] included).
#[inline(always)]
pub(crate) fn ask_state(base: usize, len: usize, k: usize) {
    if k < len {
        let size = size_of::<BodyState>();
        crate::math::prefetch_raw_write(base + k * size, size);
    }
}

/// `v` (of squared length `v2 > max²`) shortened to length `max`. When `v2` overflows (a
/// huge gravity scale, force or step), `v` is scaled down first so that the direction
/// survives and the result stays finite (an infinite component counts as the largest
/// finite one) instead of becoming `inf · 0 = NaN`.
#[inline]
fn clamp_length(v: Vec3, v2: f32, max: f32) -> Vec3 {
    if v2.is_finite() {
        return v * (max / v2.sqrt());
    }
    let v = v.clamp(Vec3::splat(f32::MIN), Vec3::splat(f32::MAX));
    let u = v / v.abs().max_element();
    let n = u.length();
    if n.is_finite() && n > 0.0 {
        u * (max / n)
    } else {
        Vec3::ZERO
    }
}

/// Advances the deltas by one substep: `dp += h v`, and the rotation.
///
/// A body with equal principal moments (sphere, cube) turns at its constant angular
/// velocity: `dq ← normalize(dq + ½ h (ω, 0) ⊗ dq)`. Any other dynamic body moves as a
/// torque-free rigid body over the substep ([`free_rotation()`]): its angular momentum
/// `L = R I Rᵀ ω` is kept exactly, the rotation and the angular velocity turn together
/// (this is the gyroscopic term), and the kinetic energy stays within a bounded error
/// instead of drifting. The constraints act on ω between these updates, so a body in
/// contact keeps its momentum between impulses as a free body does.
///
/// With `carried` (a step whose warm start is carried per body, see [`WarmStart`]) the
/// change of ω made here is also added to the carried start velocity, so that the next
/// substep does not count it as an impulse of the constraints.
pub(crate) fn integrate_positions(
    sb: &mut SolverBodies,
    bodies: &BodyStore,
    ctx: &StepContext,
    carried: bool,
    parallel: bool,
) {
    /// Bodies a chunk: fixed, so the groups of free rotations (and so the results)
    /// are the same for any thread count.
    const CHUNK: usize = 256;
    let h = ctx.h;
    let max_w = ctx.max_rotation * ctx.inv_dt;
    let (slots, forcing) = (&sb.slot, &sb.forcing);
    let carry = DisjointPtr::new(&mut sb.carry);
    let ahead = StatesAhead::of(&sb.states);
    let work = |n: usize, chunk: &mut [BodyState]| {
        let first = n * CHUNK;
        // The free rotations of the chunk, `FREE_LANES` bodies at a time.
        let mut free = [0u16; CHUNK];
        let mut count = 0;
        for (j, s) in chunk.iter_mut().enumerate() {
            let k = first + j;
            ahead.ask(k);
            let i = slots[k] as usize;
            // The angular speed cap of `integrate_velocities` holds after the solve too:
            // friction can spin a body far past it within one substep (a 0.1 m ball
            // stopped from 400 m/s by a wall: ~1,000 rad/s, 4 rad a substep), and contact
            // anchors turned that far misread the gap (the ball sank through the wall).
            let w2 = s.w.length_squared();
            if w2 > max_w * max_w && !bodies.allow_fast_rotation[i] {
                s.w *= max_w / w2.sqrt();
            }
            s.dp += h * s.v;
            if forcing[k].flags & GYROSCOPIC != 0 {
                // (A free body with ω exactly zero, as one dropped from rest, stays as it is.)
                free[count] = j as u16;
                count += usize::from(s.w != Vec3::ZERO);
            } else {
                let spin = Quat::from_xyzw(s.w.x, s.w.y, s.w.z, 0.0) * s.dq;
                let q = s.dq + spin * (0.5 * h);
                s.dq = q.normalize();
            }
        }
        for group in free[..count].chunks(FREE_LANES) {
            // A short last group repeats its first body in the empty lanes (each lane is
            // computed on its own, so a body's result does not depend on its lane).
            let lane = |l: usize| group.get(l).copied().unwrap_or(group[0]) as usize;
            let input: [FreeBody; FREE_LANES] = std::array::from_fn(|l| {
                let (s, i) = (&chunk[lane(l)], slots[first + lane(l)] as usize);
                FreeBody {
                    dq: s.dq,
                    start: bodies.rotation[i],
                    w: s.w,
                    inertia: bodies.inertia[i],
                    inv_inertia: bodies.inv_inertia[i],
                }
            });
            let out = free_rotation(&input, h);
            for (l, &j) in group.iter().enumerate() {
                let s = &mut chunk[j as usize];
                let (dq, w) = out[l];
                if carried {
                    // Keep `s.w − c.w` (what the constraints added) as it was; written
                    // this way it stays exactly zero for a body no constraint touched.
                    let c = carry.get_mut((first + j as usize) as u32);
                    c.w = w - (s.w - c.w);
                }
                (s.dq, s.w) = (dq, w);
            }
        }
    };
    for_each_chunk_maybe_par(&mut sb.states, CHUNK, parallel, 2, work);
}

/// Writes poses and velocities back to the body columns and clears the force accumulators
/// (with `parallel`, in chunks of bodies on the workers: each body's row is written by the
/// one worker that holds its solver index), and gives `moved` each body's solver index,
/// body slot and the pose of its origin as written (the move events are made here, while
/// the pose is at hand, as Box2D's finalize makes them). It also finds which bodies the
/// continuous stage sweeps (`sb.sweep`; fast bodies only where `sweep_fast`), from the
/// motion it writes, so that stage need not read every body again.
pub(crate) fn finalize(
    sb: &mut SolverBodies,
    bodies: &mut BodyStore,
    parallel: bool,
    sweep_fast: bool,
    moved: impl Fn(usize, u32, Transform) + Sync,
) -> usize {
    let (frame, body_type, bullet) = (&bodies.frame, &bodies.body_type, &bodies.bullet);
    let (shapes, min_extent) = (&bodies.shapes, &bodies.min_extent);
    sb.sweep.clear();
    sb.sweep.resize(sb.states.len(), SWEEP_NONE);
    let sweep = DisjointPtr::new(&mut sb.sweep);
    let v = DisjointPtr::new(&mut bodies.linear_velocity);
    let w = DisjointPtr::new(&mut bodies.angular_velocity);
    let p = DisjointPtr::new(&mut bodies.position);
    let q = DisjointPtr::new(&mut bodies.rotation);
    let f = DisjointPtr::new(&mut bodies.force);
    let t = DisjointPtr::new(&mut bodies.torque);
    let travel = DisjointPtr::new(&mut bodies.travel);
    sb.frozen.clear();
    sb.frozen.resize(sb.states.len(), false);
    let work = |k: usize, s: &BodyState, i: u32, frozen: &mut bool| -> usize {
        let position = *p.get_mut(i) + s.dp;
        let rotation = (s.dq * *q.get_mut(i)).normalize();
        *f.get_mut(i) = Vec3::ZERO;
        *t.get_mut(i) = Vec3::ZERO;
        if !(position.is_finite() && rotation.is_finite() && s.v.is_finite() && s.w.is_finite()) {
            // Quarantine: the body stays where it was before the step, at rest (see
            // `World::quarantine`).
            *v.get_mut(i) = Vec3::ZERO;
            *w.get_mut(i) = Vec3::ZERO;
            *frozen = true;
            moved(
                k,
                i,
                origin_of(&frame[i as usize], *p.get_mut(i), *q.get_mut(i)),
            );
            return 1;
        }
        *v.get_mut(i) = s.v;
        *w.get_mut(i) = s.w;
        let went = travel.get_mut(i);
        went[0] += crate::body::travel_of(s.dp, position);
        went[1] += crate::body::turn_of(s.dq);
        *p.get_mut(i) = position;
        *q.get_mut(i) = rotation;
        moved(k, i, origin_of(&frame[i as usize], position, rotation));
        let b = i as usize;
        if body_type[b] == BodyType::Dynamic {
            // A body without shapes has an infinite smallest extent: never fast.
            let half = 0.5 * min_extent[b];
            *sweep.get_mut(k as u32) = if bullet[b] {
                if shapes[b].is_empty() {
                    SWEEP_NONE
                } else {
                    SWEEP_BULLET
                }
            } else if sweep_fast && s.dp.length_squared() > half * half {
                SWEEP_FAST
            } else {
                SWEEP_NONE
            };
        }
        0
    };
    // Chunks of 512 bodies; the frozen count is a sum, whatever the chunks' order.
    let (states, slots) = (&sb.states, &sb.slot);
    let frozen = std::sync::atomic::AtomicUsize::new(0);
    let chunk = |c: usize, flags: &mut [bool]| {
        let at = c * FINALIZE_CHUNK;
        let items = states[at..].iter().zip(&slots[at..]).zip(flags).enumerate();
        let n: usize = items
            .map(|(j, ((s, &i), frozen))| work(at + j, s, i, frozen))
            .sum();
        if n > 0 {
            frozen.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    };
    for_each_chunk_maybe_par(&mut sb.frozen, FINALIZE_CHUNK, parallel, 1, chunk);
    frozen.into_inner()
}

/// Bodies per work item of [`finalize`].
const FINALIZE_CHUNK: usize = crate::parallel::par_min(512);

#[cfg(test)]
mod tests;
