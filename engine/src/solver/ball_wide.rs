//! Ball joints solved `W` at a time in SIMD lanes.
//!
//! The rows are the point block of [`super::joint`]: `C = d`, the separation of the two
//! frame origins, `Cdot = v_B + ω_B × r_B − v_A − ω_A × r_A`, solved as one 3x3 block with
//! `K = (m_A + m_B) E + [r_A]ᵀ I_A [r_A] + [r_B]ᵀ I_B [r_B]`, recomputed every pass from
//! the anchors rotated by the bodies' delta rotations. Lane `i` of a [`BallJointW`] is one
//! joint; all joints of a batch come from the same colour, so no two lanes write the same
//! dynamic body. Empty lanes have zero masses, hence `K = 0`, a zero inverse and zero
//! impulses, and are never written back.
//!
//! Like the contact lanes, every operation is a plain IEEE operation per lane (no fused
//! multiply-add), so a joint's result does not depend on its lane or on `W`.

use super::contact_wide::{BodiesW, MassW, StatesPtr};
use super::wide::{FloatW, SymMat3W, Vec3W, W};
use super::{SolverBodies, SolverMass, StepContext};
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses};
use glam::{Mat3, Quat, Vec3};

/// The two bodies of `W` joints of one colour: slots, solver indices, which sides the
/// lanes write (dynamic bodies only), inverse masses and world inverse inertias. Shared by
/// every lane batch of joints.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointBodiesW {
    /// The lane's joint slot, [`NULL`] for an empty lane.
    pub joint: [u32; W],
    pub a: [u32; W],
    pub b: [u32; W],
    pub write_a: [bool; W],
    pub write_b: [bool; W],
    pub m_a: FloatW,
    pub m_b: FloatW,
    pub i_a: SymMat3W,
    pub i_b: SymMat3W,
    /// Whether every lane's bodies have isotropic inverse inertias (`k I`: a sphere's or a
    /// cube's, static sides and empty lanes included): the ball joints' passes then take
    /// the products by `k` alone (see [`BallJointW::solve`]).
    pub isotropic: bool,
}

impl JointBodiesW {
    /// The bodies of the joints `slots` (at most `W`), with each lane's scalar masses.
    pub fn prepare(
        slots: &[u32],
        joints: &[JointData],
        sb: &SolverBodies,
    ) -> (Self, [[SolverMass; W]; 2]) {
        debug_assert!(!slots.is_empty() && slots.len() <= W);
        let mut joint = [NULL; W];
        let (mut a, mut b) = ([NULL; W], [NULL; W]);
        for (i, &slot) in slots.iter().enumerate() {
            let j = &joints[slot as usize];
            (joint[i], a[i], b[i]) = (slot, j.body_a, j.body_b);
        }
        let bodies = Self::of_lanes(joint, &a, &b, sb);
        let zero = SolverMass {
            inv_mass: 0.0,
            inv_inertia: Mat3::ZERO,
        };
        let mass = |k: u32| if k == NULL { zero } else { sb.mass[k as usize] };
        let masses = [bodies.a.map(mass), bodies.b.map(mass)];
        (bodies, masses)
    }

    /// The lanes' joints `joint` between body slots `a` and `b` ([`NULL`] in an empty
    /// lane), the masses transposed from the step's mass rows (the floats of
    /// `SolverBodies::mass`, copied).
    fn of_lanes(joint: [u32; W], a: &[u32; W], b: &[u32; W], sb: &SolverBodies) -> Self {
        let index = |slot: u32| {
            if slot == NULL {
                NULL
            } else {
                sb.index[slot as usize]
            }
        };
        let (a, b) = (a.map(index), b.map(index));
        let MassW { m_a, m_b, i_a, i_b } = MassW::of(sb, &a, &b);
        Self {
            joint,
            a,
            b,
            write_a: m_a.to_array().map(|m| m > 0.0),
            write_b: m_b.to_array().map(|m| m > 0.0),
            m_a,
            m_b,
            isotropic: i_a.isotropic() && i_b.isotropic(),
            i_a,
            i_b,
        }
    }

    /// Every lane's bodies with whether the lane writes them (the `validate` check).
    #[cfg(feature = "validate")]
    pub fn written(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        (0..W).flat_map(|i| [(self.a[i], self.write_a[i]), (self.b[i], self.write_b[i])])
    }

    #[inline(always)]
    pub fn gather(&self, states: StatesPtr) -> BodiesW {
        BodiesW::gather(states, &self.a, &self.b, true)
    }

    #[inline(always)]
    pub fn scatter(&self, states: StatesPtr, l: &BodiesW) {
        l.scatter(states, [(&self.a, &self.write_a), (&self.b, &self.write_b)]);
    }

    /// Applies the linear impulse `p` on B at lever `lever_b` (and `−p` on A at `lever_a`).
    #[inline(always)]
    pub fn apply_linear(&self, l: &mut BodiesW, lever_a: Vec3W, lever_b: Vec3W, p: Vec3W) {
        self.apply_linear_by::<false>(l, lever_a, lever_b, p);
    }

    /// [`Self::apply_linear`] with the products of
    /// [`SymMat3W::mul_by`](super::wide::SymMat3W::mul_by): the same bits on angular
    /// velocities with no negative zero in them (see [`BallJointW::solve`]).
    #[inline(always)]
    fn apply_linear_by<const ISO: bool>(
        &self,
        l: &mut BodiesW,
        lever_a: Vec3W,
        lever_b: Vec3W,
        p: Vec3W,
    ) {
        l.va = l.va - self.m_a * p;
        l.wa = l.wa - self.i_a.mul_by::<ISO>(lever_a.cross(p));
        l.vb = l.vb + self.m_b * p;
        l.wb = l.wb + self.i_b.mul_by::<ISO>(lever_b.cross(p));
    }

    /// Applies the angular impulse `a` on B (and `−a` on A).
    #[inline(always)]
    pub fn apply_angular(&self, l: &mut BodiesW, a: Vec3W) {
        l.wa = l.wa - self.i_a.mul(a);
        l.wb = l.wb + self.i_b.mul(a);
    }
}

/// What a batch of ball joints keeps from its joints between steps (see [`BallJointW`]):
/// each lane's joint and body slots ([`NULL`] in an empty lane), frame origins in the
/// bodies' mass frames and break threshold. Kept beside the batches, not in them, so that
/// the passes read no more of a batch than they use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BallLanes {
    joint: [u32; W],
    body_a: [u32; W],
    body_b: [u32; W],
    local_a: [Vec3; W],
    local_b: [Vec3; W],
    break_impulse: [f32; W],
}

impl BallLanes {
    /// No joints.
    pub const EMPTY: Self = Self {
        joint: [NULL; W],
        body_a: [NULL; W],
        body_b: [NULL; W],
        local_a: [Vec3::ZERO; W],
        local_b: [Vec3::ZERO; W],
        break_impulse: [f32::INFINITY; W],
    };

    /// The lanes' joint slots ([`NULL`] in an empty lane).
    pub fn joints(&self) -> &[u32; W] {
        &self.joint
    }
}

/// `W` ball joints of one colour.
///
/// What comes from the joints (their [`BallLanes`] and the accumulated impulse) is read by
/// [`prepare`](Self::prepare); what comes from the bodies (solver indices, masses, world
/// anchors) by [`refresh`](Self::refresh). While the joint lists are kept from one step to
/// the next, so are the batches and their lanes, and only `refresh` runs: the impulse the
/// last relax pass left is the one the store wrote into the joint, so the batch comes out
/// bit for bit as a fresh `prepare` would make it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BallJointW {
    bodies: JointBodiesW,
    /// Frame origins relative to the centres of mass, world, at the start of the step.
    r_a: Vec3W,
    r_b: Vec3W,
    /// `p_B − p_A` at the start of the step.
    delta_center: Vec3W,
    /// Accumulated point impulse of the substep (on B).
    impulse: Vec3W,
}

impl BallJointW {
    /// A batch of no joints, to be prepared in place.
    pub fn empty() -> Self {
        let zero = FloatW::ZERO;
        let v = Vec3W {
            x: zero,
            y: zero,
            z: zero,
        };
        let m = SymMat3W { m: [zero; 6] };
        Self {
            bodies: JointBodiesW {
                joint: [NULL; W],
                a: [NULL; W],
                b: [NULL; W],
                write_a: [false; W],
                write_b: [false; W],
                m_a: zero,
                m_b: zero,
                i_a: m,
                i_b: m,
                isotropic: false,
            },
            r_a: v,
            r_b: v,
            delta_center: v,
            impulse: v,
        }
    }

    /// Prepares the ball joints `slots` (at most `W`) into the lanes, and `lanes` from them.
    pub fn prepare(
        &mut self,
        lanes: &mut BallLanes,
        slots: &[u32],
        joints: &[JointData],
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
    ) {
        debug_assert!(!slots.is_empty() && slots.len() <= W);
        *lanes = BallLanes::EMPTY;
        let mut impulse = [Vec3::ZERO; W];
        for (i, &slot) in slots.iter().enumerate() {
            let j = &joints[slot as usize];
            lanes.joint[i] = slot;
            (lanes.body_a[i], lanes.body_b[i]) = (j.body_a, j.body_b);
            (lanes.local_a[i], lanes.local_b[i]) = (j.def.frame_a.p, j.def.frame_b.p);
            lanes.break_impulse[i] = j.def.break_impulse;
            impulse[i] = j.impulses.linear;
        }
        self.impulse = Vec3W::gather(&impulse);
        self.refresh(lanes, sb, positions, rotations);
    }

    /// Gathers the bodies of `lanes` (the batch's) again: solver indices, masses and the
    /// world anchors of the start of the step.
    pub fn refresh(
        &mut self,
        lanes: &BallLanes,
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
    ) {
        self.bodies = JointBodiesW::of_lanes(lanes.joint, &lanes.body_a, &lanes.body_b, sb);
        let (mut r_a, mut r_b, mut delta) = ([Vec3::ZERO; W], [Vec3::ZERO; W], [Vec3::ZERO; W]);
        let bodies = lanes
            .joint
            .iter()
            .zip(lanes.body_a.iter().zip(&lanes.body_b));
        for (i, (&joint, (&ba, &bb))) in bodies.enumerate() {
            if joint == NULL {
                continue;
            }
            let (ba, bb) = (ba as usize, bb as usize);
            r_a[i] = rotations[ba] * lanes.local_a[i];
            r_b[i] = rotations[bb] * lanes.local_b[i];
            delta[i] = positions[bb] - positions[ba];
        }
        self.r_a = Vec3W::gather(&r_a);
        self.r_b = Vec3W::gather(&r_b);
        self.delta_center = Vec3W::gather(&delta);
    }

    /// Every lane's bodies with whether the lane writes them (the `validate` check).
    #[cfg(feature = "validate")]
    pub fn written(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        self.bodies.written()
    }

    /// The lanes' bodies, their angular velocities with no negative zero
    /// ([`BodiesW::without_negative_zero_spins`]; see [`Self::solve`]).
    #[inline(always)]
    fn gather(&self, states: StatesPtr) -> BodiesW {
        self.bodies.gather(states).without_negative_zero_spins()
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&self, states: StatesPtr) {
        if self.bodies.isotropic {
            self.warm_start_with::<true>(states)
        } else {
            self.warm_start_with::<false>(states)
        }
    }

    #[inline(always)]
    fn warm_start_with<const ISO: bool>(&self, states: StatesPtr) {
        let mut l = self.gather(states);
        let (r_a, r_b) = (l.dqa.rotate(self.r_a), l.dqb.rotate(self.r_b));
        self.bodies
            .apply_linear_by::<ISO>(&mut l, r_a, r_b, self.impulse);
        self.bodies.scatter(states, &l);
    }

    /// One pass: soft with bias (`use_bias`) or rigid without (relax).
    ///
    /// A batch whose lanes all join bodies of isotropic inverse inertia (`k I`) takes the
    /// point mass and the impulses' turns by `k` alone ([`ball_point_mass`],
    /// [`SymMat3W::mul_by`](super::wide::SymMat3W::mul_by)). On such a lane the short and
    /// the full products differ only in the signs of zeros, which the point mass drops
    /// (`+ 0` on its entries) and the angular velocities do not pick up (they are
    /// gathered without negative zeros): a lane gives the same bits in either kind of
    /// batch, so any lane width and thread count does.
    pub fn solve(&mut self, states: StatesPtr, ctx: &StepContext, use_bias: bool) {
        if self.bodies.isotropic {
            self.solve_with::<true>(states, ctx, use_bias)
        } else {
            self.solve_with::<false>(states, ctx, use_bias)
        }
    }

    #[inline(always)]
    fn solve_with<const ISO: bool>(
        &mut self,
        states: StatesPtr,
        ctx: &StepContext,
        use_bias: bool,
    ) {
        let mut l = self.gather(states);
        let (r_a, r_b) = (l.dqa.rotate(self.r_a), l.dqb.rotate(self.r_b));
        let (bias_rate, mass_scale, impulse_scale) = if use_bias {
            let s = ctx.joint_softness;
            (s.bias_rate, s.mass_scale, s.impulse_scale)
        } else {
            (0.0, 1.0, 0.0)
        };
        let d = self.delta_center + l.dp + (r_b - r_a);
        let cdot = l.vb + l.wb.cross(r_b) - l.va - l.wa.cross(r_a);
        let m = &self.bodies;
        let k = ball_point_mass::<ISO>(m.m_a + m.m_b, r_a, &m.i_a, r_b, &m.i_b);
        let rhs = cdot + FloatW::splat(bias_rate) * d;
        let p = FloatW::splat(-mass_scale) * solve3(&k, rhs)
            - FloatW::splat(impulse_scale) * self.impulse;
        self.impulse = self.impulse + p;
        self.bodies.apply_linear_by::<ISO>(&mut l, r_a, r_b, p);
        self.bodies.scatter(states, &l);
    }

    /// Lane `lane`'s accumulated impulse.
    pub fn impulse(&self, lane: usize) -> Vec3 {
        self.impulse.scatter()[lane]
    }

    /// The lanes whose step impulse (`substeps` times the last substep's) passed their
    /// joint's threshold, with that impulse. The impulses themselves stay in the batch
    /// (see [`ConstraintGraph::store_joints`](super::graph::ConstraintGraph::store_joints)).
    pub fn breaks(&self, lanes: &BallLanes, substeps: f32) -> Broken {
        let lin = self.impulse.scatter();
        let mut broken = Broken::default();
        for (i, &slot) in lanes.joint.iter().enumerate() {
            if slot == NULL {
                continue;
            }
            let impulse = lin[i].length() * substeps;
            if impulse > lanes.break_impulse[i] {
                broken.push((slot, impulse, 0.0));
            }
        }
        broken
    }

    /// Writes each lane's impulses and reaction (its impulse over the substep `h`,
    /// `inv_h = 1 / h`) into its joint slot.
    pub fn store(&self, lanes: &BallLanes, joints: &mut [JointData], inv_h: f32) {
        let lin = self.impulse.scatter();
        for (i, &slot) in lanes.joint.iter().enumerate() {
            if slot == NULL {
                continue;
            }
            let data = &mut joints[slot as usize];
            (data.impulses, data.reaction, data.angular_reaction) = stored(lin[i], inv_h);
        }
    }

    /// The impulse of `other` in place of this batch's (the `validate` check compares a
    /// kept batch with a fresh one, whose joints do not hold the kept impulses yet).
    #[cfg(feature = "validate")]
    pub fn take_impulse(&mut self, other: &Self) {
        self.impulse = other.impulse;
    }
}

/// What a ball joint's slot holds for its last substep's impulse `linear`: the impulses, the
/// reaction force (`linear / h`, `inv_h = 1 / h`) and the reaction torque (none).
pub(crate) fn stored(linear: Vec3, inv_h: f32) -> (JointImpulses, Vec3, Vec3) {
    let impulses = JointImpulses {
        linear,
        ..JointImpulses::default()
    };
    (impulses, linear * inv_h, Vec3::ZERO)
}

/// Joints that broke: (slot, linear, angular step impulse).
pub(crate) type Broken = Vec<(u32, f32, f32)>;

/// [`point_mass`] for the ball joints' passes, with no negative zero in its entries: by
/// [`arm_isotropic`] where `ISO` says every lane's inverse inertias are `k I`. On such a
/// lane each entry of the two arms is the same product of the same factors, up to the sign
/// of a zero (`z (k z) − y (−k y)` against `z (k z) + y (k y)`), so the sums are the same
/// but for the signs of zeros, which the `+ 0` makes positive.
#[inline(always)]
fn ball_point_mass<const ISO: bool>(
    m: FloatW,
    r_a: Vec3W,
    i_a: &SymMat3W,
    r_b: Vec3W,
    i_b: &SymMat3W,
) -> SymMat3W {
    let (a, b) = if ISO {
        (arm_isotropic(r_a, i_a.m[0]), arm_isotropic(r_b, i_b.m[0]))
    } else {
        (arm(r_a, i_a).m, arm(r_b, i_b).m)
    };
    let mut k = sum_arms(m, a, b);
    for k in &mut k {
        *k += FloatW::ZERO;
    }
    SymMat3W { m: k }
}

/// `m E + a + b` for the six distinct entries of two arms (see [`point_mass`]).
#[inline(always)]
fn sum_arms(m: FloatW, a: [FloatW; 6], b: [FloatW; 6]) -> [FloatW; 6] {
    let mut k = [FloatW::ZERO; 6];
    for (n, k) in k.iter_mut().enumerate() {
        *k = a[n] + b[n];
    }
    k[0] += m;
    k[3] += m;
    k[5] += m;
    k
}

/// [`arm`] for `I = k I`: `[r]ᵀ k [r]`, each entry the product [`arm`] forms for it with
/// the zero terms left out (the same bits where it is not zero).
#[inline(always)]
fn arm_isotropic(r: Vec3W, k: FloatW) -> [FloatW; 6] {
    let (x, y, z) = (r.x, r.y, r.z);
    let (kx, ky, kz) = (k * x, k * y, k * z);
    [
        z * kz + y * ky,
        -(y * kx),
        -(z * kx),
        x * kx + z * kz,
        -(z * ky),
        y * ky + x * kx,
    ]
}

/// `K = m E + [r_a]ᵀ I_a [r_a] + [r_b]ᵀ I_b [r_b]` (symmetric) for the point block.
#[inline(always)]
pub(super) fn point_mass(
    m: FloatW,
    r_a: Vec3W,
    i_a: &SymMat3W,
    r_b: Vec3W,
    i_b: &SymMat3W,
) -> SymMat3W {
    SymMat3W {
        m: sum_arms(m, arm(r_a, i_a).m, arm(r_b, i_b).m),
    }
}

/// `[r]ᵀ I [r]` for the cross-product matrix `[r]` and a symmetric `I`: the eight entries
/// of `P = I [r]` that the product reads, then its six distinct entries `[r]ᵀ P`, 42
/// operations a lane (by columns, `−r × (I (r × e_k))`, it took 69).
#[inline(always)]
fn arm(r: Vec3W, i: &SymMat3W) -> SymMat3W {
    let [a, b, c, d, e, f] = i.m;
    let (x, y, z) = (r.x, r.y, r.z);
    // `[r]`'s columns are (0, z, −y), (−z, 0, x) and (y, −x, 0); `P`'s entry (row, column).
    let p01 = c * x - a * z;
    let p02 = a * y - b * x;
    let p10 = d * z - e * y;
    let p11 = e * x - b * z;
    let p12 = b * y - d * x;
    let p20 = e * z - f * y;
    let p21 = f * x - c * z;
    let p22 = c * y - e * x;
    SymMat3W {
        m: [
            z * p10 - y * p20,
            z * p11 - y * p21,
            z * p12 - y * p22,
            x * p21 - z * p01,
            x * p22 - z * p02,
            y * p02 - x * p12,
        ],
    }
}

/// Solves `K x = r` for a symmetric `K` by its adjugate; a singular lane (an empty lane,
/// two static-like bodies) gives zero.
#[inline(always)]
pub(super) fn solve3(k: &SymMat3W, r: Vec3W) -> Vec3W {
    let [a, b, c, d, e, f] = k.m;
    let ca = d * f - e * e;
    let cb = c * e - b * f;
    let cc = b * e - c * d;
    let cd = a * f - c * c;
    let ce = b * c - a * e;
    let cf = a * d - b * b;
    let det = a * ca + b * cb + c * cc;
    let ok = det.abs().simd_gt(FloatW::splat(f32::MIN_POSITIVE));
    let inv = ok.select(FloatW::splat(1.0) / det, FloatW::ZERO);
    Vec3W {
        x: inv * (ca * r.x + cb * r.y + cc * r.z),
        y: inv * (cb * r.x + cd * r.y + ce * r.z),
        z: inv * (cc * r.x + ce * r.y + cf * r.z),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::wide::QuatW;

    fn mat(k: &SymMat3W, lane: usize) -> Mat3 {
        let e = |n: usize| k.m[n].to_array()[lane];
        Mat3::from_cols(
            Vec3::new(e(0), e(1), e(2)),
            Vec3::new(e(1), e(3), e(4)),
            Vec3::new(e(2), e(4), e(5)),
        )
    }

    /// A ball lane of spheres or cubes gives the same bits in a batch that takes the short
    /// products and in one that takes the full ones: the point mass, its solve and the
    /// angular velocities the impulse leaves, for arms on the axes and with zeros of both
    /// signs (where the two kinds of product differ in the signs of zeros), a static side
    /// (`k = 0`) and spins that start at negative zeros.
    #[test]
    fn an_isotropic_ball_lane_solves_alike_in_either_kind_of_batch() {
        let arms = [
            Vec3::new(0.0, -0.5, 0.0),
            Vec3::new(-0.0, 0.0, 0.5),
            Vec3::new(0.3, -0.2, 0.1),
            Vec3::new(-0.5, -0.0, -0.0),
            Vec3::ZERO,
            Vec3::new(0.0, 0.25, -0.25),
            Vec3::new(-0.0, -0.0, -0.0),
            Vec3::new(1.0e-20, 0.5, -0.0),
        ];
        let lanes = |f: &dyn Fn(usize) -> Vec3| Vec3W::gather(&std::array::from_fn(f));
        let bits = |v: Vec3W| v.scatter().map(|v| v.to_array().map(f32::to_bits));
        for (ka, kb) in [(1.5, 0.75), (2.0, 0.0), (0.0, 0.0), (0.4, 0.4)] {
            for shift in 0..arms.len() {
                let r_a = lanes(&|i| arms[(i + shift) % arms.len()]);
                let r_b = lanes(&|i| arms[(i * 3 + shift + 1) % arms.len()]);
                let inertia = |k: f32| SymMat3W::gather(&[Mat3::from_diagonal(Vec3::splat(k)); W]);
                let (i_a, i_b) = (inertia(ka), inertia(kb));
                assert!(i_a.isotropic() && i_b.isotropic());
                let m = FloatW::splat(if kb > 0.0 { 1.25 } else { 0.5 });
                let short = ball_point_mass::<true>(m, r_a, &i_a, r_b, &i_b);
                let full = ball_point_mass::<false>(m, r_a, &i_a, r_b, &i_b);
                for n in 0..6 {
                    assert_eq!(
                        short.m[n].to_array().map(f32::to_bits),
                        full.m[n].to_array().map(f32::to_bits),
                        "entry {n}, k {ka} / {kb}, shift {shift}"
                    );
                }
                let rhs = lanes(&|i| Vec3::new(0.2, -1.0, 0.0) * (i as f32 - 3.0));
                let p = solve3(&short, rhs);
                // The impulse applied by either kind, to spins gathered as the passes
                // gather them (`w + 0`) from negative zeros and from non-zero spins.
                let zero = Vec3W::gather(&[Vec3::ZERO; W]);
                let spin = lanes(&|i| {
                    if i % 2 == 0 {
                        Vec3::splat(-0.0)
                    } else {
                        Vec3::X
                    }
                });
                let still = QuatW::gather(&[Quat::IDENTITY; W]);
                let start = || BodiesW {
                    va: zero,
                    wa: spin + zero,
                    vb: zero,
                    wb: spin + zero,
                    dp: zero,
                    dqa: still,
                    dqb: still,
                };
                let joint = |isotropic| JointBodiesW {
                    joint: [NULL; W],
                    a: [NULL; W],
                    b: [NULL; W],
                    write_a: [true; W],
                    write_b: [true; W],
                    m_a: m,
                    m_b: m,
                    i_a,
                    i_b,
                    isotropic,
                };
                let (mut by_k, mut by_matrix) = (start(), start());
                joint(true).apply_linear_by::<true>(&mut by_k, r_a, r_b, p);
                joint(false).apply_linear_by::<false>(&mut by_matrix, r_a, r_b, p);
                assert_eq!(bits(by_k.wa), bits(by_matrix.wa));
                assert_eq!(bits(by_k.wb), bits(by_matrix.wb));
                assert_eq!(bits(by_k.va), bits(by_matrix.va));
                assert_eq!(bits(by_k.vb), bits(by_matrix.vb));
            }
        }
    }

    #[test]
    fn point_mass_and_solve_match_the_scalar_block() {
        let r_a = Vec3::new(0.3, -0.5, 0.2);
        let r_b = Vec3::new(-0.1, 0.4, 0.6);
        let i_a =
            crate::math::rotate_diagonal(Quat::from_rotation_x(0.7), Vec3::new(1.0, 2.0, 3.0));
        let i_b =
            crate::math::rotate_diagonal(Quat::from_rotation_y(-0.4), Vec3::new(0.5, 0.5, 2.0));
        let skew = |r: Vec3| {
            Mat3::from_cols(
                Vec3::new(0.0, r.z, -r.y),
                Vec3::new(-r.z, 0.0, r.x),
                Vec3::new(r.y, -r.x, 0.0),
            )
        };
        let expect = Mat3::from_diagonal(Vec3::splat(1.5))
            + skew(r_a).transpose() * i_a * skew(r_a)
            + skew(r_b).transpose() * i_b * skew(r_b);
        let k = point_mass(
            FloatW::splat(1.5),
            Vec3W::gather(&[r_a; W]),
            &SymMat3W::gather(&[i_a; W]),
            Vec3W::gather(&[r_b; W]),
            &SymMat3W::gather(&[i_b; W]),
        );
        let got = mat(&k, W - 1);
        for c in 0..3 {
            assert!(
                (got.col(c) - expect.col(c)).length() < 1e-5,
                "{got} vs {expect}"
            );
        }
        let rhs = Vec3::new(0.2, -1.0, 0.7);
        let x = solve3(&k, Vec3W::gather(&[rhs; W])).scatter()[0];
        assert!((expect * x - rhs).length() < 1e-4);
        // A zero block (an empty lane) gives zero, not NaN.
        let zero = solve3(&SymMat3W::default(), Vec3W::gather(&[rhs; W])).scatter()[0];
        assert_eq!(zero, Vec3::ZERO);
    }
}
