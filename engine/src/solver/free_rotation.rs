//! The rotation of a torque-free rigid body over one substep, in f64 lanes: what
//! `integrate_positions` does for every dynamic body with unequal principal moments (see
//! [`free_rotation`]).

use glam::{Quat, Vec3};

/// One step `h` of [`FREE_LANES`] torque-free rigid bodies (see [`FreeBody`]): each one's
/// new rotation delta and world angular velocity. They are computed side by side in f64
/// lanes (a body's update is a chain of dependent divisions and square roots, slow alone:
/// sixteen lanes in two registers carry twice the bodies of eight down the same chain, the
/// two registers' chains overlapping); each lane on its own, so a body's result does not
/// depend on its lane or its neighbours.
///
/// The splitting of the free rigid body into its three axis rotations (McLachlan 1993;
/// Reich 1994; Dullweber, Leimkuhler and McLachlan 1997): the energy
/// `H = Σ Lᵢ² / 2Iᵢ` of the body-frame momentum `L` is a sum of three terms, and the
/// flow of each one alone is a rotation about one body axis, by `Lᵢ / Iᵢ` per second, of
/// the body (`q ← q r`) and, backwards, of `L` (`L ← r⁻¹ L`). Composed symmetrically
/// (x ½h, y ½h, z h, y ½h, x ½h) they make a second-order, time-reversible, symplectic
/// map. Each rotation keeps `q L` (the world momentum) exactly, so `|L|` and its
/// direction are kept to rounding; the energy, being a Hamiltonian of a symplectic map,
/// oscillates within `O(h²)` and does not drift. Each axis rotation is the Cayley
/// rotation of `θ` (the quaternion `(1, ½θ e)`, cosine and sine `(1 − t², 2t) / (1 + t²)`
/// with `t = ½θ`), which turns by `2 atan(½θ)` instead of `θ`: still the exact flow of a
/// slightly changed energy of that axis, so the properties above hold, with no
/// trigonometry and one division a turn.
///
/// The previous scheme (one implicit Newton step of the gyroscopic torque, then the
/// rotation at constant ω) damped the flip of a box spun about its intermediate axis and
/// let its momentum wander; `docs/decisions.md` ("Free rotation") has the figures.
pub(crate) fn free_rotation(bodies: &[FreeBody; FREE_LANES], h: f32) -> [(Quat, Vec3); FREE_LANES] {
    let quat = |f: fn(&FreeBody) -> Quat| {
        let q = bodies.map(|b| f(&b).as_dquat());
        Ql {
            x: Fl::from(q.map(|q| q.x)),
            y: Fl::from(q.map(|q| q.y)),
            z: Fl::from(q.map(|q| q.z)),
            w: Fl::from(q.map(|q| q.w)),
        }
    };
    let vector = |f: fn(&FreeBody) -> Vec3| {
        let v = bodies.map(|b| f(&b).as_dvec3());
        [
            Fl::from(v.map(|v| v.x)),
            Fl::from(v.map(|v| v.y)),
            Fl::from(v.map(|v| v.z)),
        ]
    };
    let start = quat(|b| b.start);
    let q = quat(|b| b.dq).mul(start).normalize();
    let inertia = vector(|b| b.inertia);
    let inv = vector(|b| b.inv_inertia);
    let wb = q.conjugate().rotate(vector(|b| b.w));
    let mut l = [0, 1, 2].map(|c| inertia[c] * wb[c]);
    // Each turn about body axis `k` by φ, tan(φ/2) = t: `L` turns by −φ (its two other
    // components, in cyclic order), the body by +φ (the quaternion (1, t e_k), normalised
    // once at the end).
    let (zero, one) = (Fl::splat(0.0), Fl::splat(1.0));
    let mut r = Ql {
        x: zero,
        y: zero,
        z: zero,
        w: one,
    };
    for (k, fraction) in [(0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5)] {
        let t = Fl::splat(0.5 * fraction * h as f64) * l[k] * inv[k];
        let d = one / (one + t * t);
        let (c, s) = ((one - t * t) * d, (t + t) * d);
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let (li, lj) = (l[i], l[j]);
        l[i] = c * li + s * lj;
        l[j] = c * lj - s * li;
        r = r.mul_axis(k, t);
    }
    // The body turned by `r` and `L` by `r⁻¹`: the world momentum `q L` is unchanged (to
    // f64 rounding).
    let q = q.mul(r).normalize();
    let w = q.rotate([0, 1, 2].map(|c| inv[c] * l[c]));
    let dq = q.mul(start.conjugate()).normalize();
    let (dq, w) = (
        [dq.x, dq.y, dq.z, dq.w].map(|c| c.to_array()),
        w.map(|c| c.to_array()),
    );
    std::array::from_fn(|n| {
        (
            Quat::from_xyzw(
                dq[0][n] as f32,
                dq[1][n] as f32,
                dq[2][n] as f32,
                dq[3][n] as f32,
            ),
            Vec3::new(w[0][n] as f32, w[1][n] as f32, w[2][n] as f32),
        )
    })
}

/// A body's state for [`free_rotation`]: its rotation `dq · start` (the delta of the
/// step so far and the rotation at the step's start), world angular velocity and
/// principal moments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FreeBody {
    pub dq: Quat,
    pub start: Quat,
    pub w: Vec3,
    pub inertia: Vec3,
    pub inv_inertia: Vec3,
}

/// The bodies [`free_rotation`] turns at once: the lanes of [`Fl`].
pub(crate) const FREE_LANES: usize = 8 * FREE_REGS;

/// The `f64x8` registers of one [`Fl`] (`docs/decisions.md`, "Free rotation", has the
/// measurements of one to four).
const FREE_REGS: usize = 2;

/// f64 lanes, one body each: [`FREE_REGS`] `f64x8` registers (twice as many with AVX2)
/// computed side by side, so that one register's chain of dependent divisions and square
/// roots runs while another's waits.
#[derive(Clone, Copy)]
struct Fl([::wide::f64x8; FREE_REGS]);

impl Fl {
    fn splat(x: f64) -> Self {
        Self([::wide::f64x8::splat(x); FREE_REGS])
    }

    fn sqrt(self) -> Self {
        Self(self.0.map(|x| x.sqrt()))
    }

    fn to_array(self) -> [f64; FREE_LANES] {
        let a = self.0.map(|x| x.to_array());
        std::array::from_fn(|n| a[n / 8][n % 8])
    }
}

impl From<[f64; FREE_LANES]> for Fl {
    fn from(x: [f64; FREE_LANES]) -> Self {
        let register = |r: usize| ::wide::f64x8::from(std::array::from_fn(|n| x[r * 8 + n]));
        Self(std::array::from_fn(register))
    }
}

macro_rules! fl_op {
    ($trait:ident, $f:ident, $op:tt) => {
        impl std::ops::$trait for Fl {
            type Output = Fl;
            #[inline(always)]
            fn $f(self, b: Fl) -> Fl {
                Fl(std::array::from_fn(|r| self.0[r] $op b.0[r]))
            }
        }
    };
}
fl_op!(Add, add, +);
fl_op!(Sub, sub, -);
fl_op!(Mul, mul, *);
fl_op!(Div, div, /);

impl std::ops::Neg for Fl {
    type Output = Fl;
    #[inline(always)]
    fn neg(self) -> Fl {
        Fl(self.0.map(|x| -x))
    }
}

/// [`FREE_LANES`] quaternions in f64 lanes.
#[derive(Clone, Copy)]
struct Ql {
    x: Fl,
    y: Fl,
    z: Fl,
    w: Fl,
}

impl Ql {
    fn mul(self, b: Ql) -> Ql {
        let a = self;
        Ql {
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        }
    }

    fn conjugate(self) -> Ql {
        Ql {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: self.w,
        }
    }

    /// `self · (1, t e_k)`: [`Ql::mul`] by the quaternion of a turn about body axis `k`,
    /// without its products by that quaternion's zeros. Each component is then one product
    /// and one sum of the same two operands as in `mul`, so the same bits, but for the sign
    /// of a component that comes out exactly zero (`mul` adds the zero products to it).
    fn mul_axis(self, k: usize, t: Fl) -> Ql {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let u = [self.x, self.y, self.z];
        let mut v = [u[0]; 3];
        v[k] = self.w * t + u[k];
        v[i] = u[i] + u[j] * t;
        v[j] = u[j] - u[i] * t;
        Ql {
            x: v[0],
            y: v[1],
            z: v[2],
            w: self.w - u[k] * t,
        }
    }

    fn normalize(self) -> Ql {
        let n = (self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w).sqrt();
        let inv = Fl::splat(1.0) / n;
        Ql {
            x: self.x * inv,
            y: self.y * inv,
            z: self.z * inv,
            w: self.w * inv,
        }
    }

    /// Rotates `v` by this unit quaternion: `v + w t + u × t`, `t = 2 u × v`.
    fn rotate(self, v: [Fl; 3]) -> [Fl; 3] {
        let u = [self.x, self.y, self.z];
        let cross = |a: [Fl; 3], b: [Fl; 3]| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        let t = cross(u, v).map(|c| c + c);
        let ut = cross(u, t);
        [0, 1, 2].map(|c| v[c] + self.w * t[c] + ut[c])
    }
}
