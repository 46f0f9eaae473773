//! Wide math: `W` lanes of `f32` in one register, for solving `W` constraints at once.
//!
//! `W` is fixed at compile time: 8 with AVX, 4 otherwise (SSE2/NEON), 4 with the `simd4`
//! feature, 16 with `simd16`. Every operation here is a plain IEEE add, sub, mul, div or
//! sqrt per lane, never a fused multiply-add, so a constraint's result does not depend on
//! the lane it sits in or on `W`: the narrow and wide builds compute bit-identical states.

use glam::{Quat, Vec3};
use std::ops::{Add, Mul, Neg, Sub};

#[cfg(feature = "simd16")]
mod lanes {
    pub type FloatW = wide::f32x16;
    pub const W: usize = 16;
}
#[cfg(all(
    not(feature = "simd16"),
    not(feature = "simd4"),
    target_feature = "avx"
))]
mod lanes {
    pub type FloatW = wide::f32x8;
    pub const W: usize = 8;
}
#[cfg(all(
    not(feature = "simd16"),
    any(feature = "simd4", not(target_feature = "avx"))
))]
mod lanes {
    pub type FloatW = wide::f32x4;
    pub const W: usize = 4;
}

pub(crate) use lanes::{FloatW, W};

/// Transposes `W` rows of `W` lanes: lane `j` of row `i` becomes lane `i` of row `j`.
/// Only moves data (shuffles), so it cannot change a result.
#[inline(always)]
pub(crate) fn transpose(rows: [FloatW; W]) -> [FloatW; W] {
    FloatW::transpose(rows)
}

/// `W` lanes of a 3-vector, one register per component.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Vec3W {
    pub x: FloatW,
    pub y: FloatW,
    pub z: FloatW,
}

impl Vec3W {
    /// Lane `i` holds `v[i]`.
    #[inline]
    pub fn gather(v: &[Vec3; W]) -> Self {
        Self {
            x: FloatW::new(std::array::from_fn(|i| v[i].x)),
            y: FloatW::new(std::array::from_fn(|i| v[i].y)),
            z: FloatW::new(std::array::from_fn(|i| v[i].z)),
        }
    }

    /// The lanes of a component-wise staging array (see [`put3`]): three plain loads.
    #[inline(always)]
    pub fn from_lanes(src: &[[f32; W]; 3]) -> Self {
        Self {
            x: FloatW::new(src[0]),
            y: FloatW::new(src[1]),
            z: FloatW::new(src[2]),
        }
    }

    /// Lane by lane, `a` where `mask` (a comparison's result) is set, else `b`.
    #[inline(always)]
    pub fn select(mask: FloatW, a: Self, b: Self) -> Self {
        Self {
            x: mask.select(a.x, b.x),
            y: mask.select(a.y, b.y),
            z: mask.select(a.z, b.z),
        }
    }

    /// The lanes as scalar vectors.
    #[inline]
    pub fn scatter(self) -> [Vec3; W] {
        let (x, y, z) = (self.x.to_array(), self.y.to_array(), self.z.to_array());
        std::array::from_fn(|i| Vec3::new(x[i], y[i], z[i]))
    }

    #[inline]
    pub fn dot(self, o: Self) -> FloatW {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline]
    pub fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }
}

impl Add for Vec3W {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl Sub for Vec3W {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl Neg for Vec3W {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

impl Mul<Vec3W> for FloatW {
    type Output = Vec3W;
    #[inline]
    fn mul(self, v: Vec3W) -> Vec3W {
        Vec3W {
            x: self * v.x,
            y: self * v.y,
            z: self * v.z,
        }
    }
}

/// `W` lanes of a quaternion.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuatW {
    pub v: Vec3W,
    pub s: FloatW,
}

impl QuatW {
    pub fn gather(q: &[Quat; W]) -> Self {
        Self {
            v: Vec3W {
                x: FloatW::new(std::array::from_fn(|i| q[i].x)),
                y: FloatW::new(std::array::from_fn(|i| q[i].y)),
                z: FloatW::new(std::array::from_fn(|i| q[i].z)),
            },
            s: FloatW::new(std::array::from_fn(|i| q[i].w)),
        }
    }

    /// The Hamilton product `self * o` (`o` first, then `self`), as glam's.
    #[inline]
    pub fn mul(self, o: Self) -> Self {
        Self {
            v: self.s * o.v + o.s * self.v + self.v.cross(o.v),
            s: self.s * o.s - self.v.dot(o.v),
        }
    }

    #[inline]
    pub fn conjugate(self) -> Self {
        Self {
            v: -self.v,
            s: self.s,
        }
    }

    /// The rotated x, y and z axes (the rotation matrix's columns) of a unit quaternion.
    #[inline]
    pub fn axes(self) -> [Vec3W; 3] {
        let one = FloatW::splat(1.0);
        let two = FloatW::splat(2.0);
        let Vec3W { x, y, z } = self.v;
        let w = self.s;
        let (xx, yy, zz) = (x * x, y * y, z * z);
        let (xy, xz, yz) = (x * y, x * z, y * z);
        let (wx, wy, wz) = (w * x, w * y, w * z);
        [
            Vec3W {
                x: one - two * (yy + zz),
                y: two * (xy + wz),
                z: two * (xz - wy),
            },
            Vec3W {
                x: two * (xy - wz),
                y: one - two * (xx + zz),
                z: two * (yz + wx),
            },
            Vec3W {
                x: two * (xz + wy),
                y: two * (yz - wx),
                z: one - two * (xx + yy),
            },
        ]
    }

    /// Rotates `p`: `p + 2 s (v × p) + 2 v × (v × p)`.
    #[inline]
    pub fn rotate(self, p: Vec3W) -> Vec3W {
        let two = FloatW::splat(2.0);
        let t = two * self.v.cross(p);
        p + self.s * t + self.v.cross(t)
    }
}

/// `W` lanes of a symmetric 3x3 matrix (a world inverse inertia): xx, xy, xz, yy, yz, zz.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SymMat3W {
    pub m: [FloatW; 6],
}

impl SymMat3W {
    /// Lane `i` holds the symmetric part of `m[i]` (the kernels take theirs from mass rows
    /// by transposes; the tests build matrices this way).
    #[cfg(test)]
    pub fn gather(m: &[glam::Mat3; W]) -> Self {
        let f = |r: usize, c: usize| FloatW::new(std::array::from_fn(|i| m[i].col(c)[r]));
        Self {
            m: [f(0, 0), f(0, 1), f(0, 2), f(1, 1), f(1, 2), f(2, 2)],
        }
    }

    /// The matrix of lanes xx, xy, xz, yy, yz, zz.
    #[inline(always)]
    pub fn from_columns(m: [FloatW; 6]) -> Self {
        Self { m }
    }

    /// The element-wise sum (of two inverse inertias).
    #[inline]
    pub fn add(&self, o: &Self) -> Self {
        Self {
            m: std::array::from_fn(|k| self.m[k] + o.m[k]),
        }
    }

    /// Whether every lane's matrix is `k I` (a multiple of the identity, zero included):
    /// equal diagonal elements and zeros off it.
    #[inline]
    pub fn isotropic(&self) -> bool {
        let [xx, xy, xz, yy, yz, zz] = self.m;
        let zero = FloatW::ZERO;
        let iso = xx.simd_eq(yy)
            & yy.simd_eq(zz)
            & xy.simd_eq(zero)
            & xz.simd_eq(zero)
            & yz.simd_eq(zero);
        iso.all()
    }

    /// `self * v`, by the diagonal alone where `ISOTROPIC` says every lane's matrix is
    /// `k I` ([`Self::isotropic`]): three products where the full one takes fifteen
    /// operations.
    ///
    /// On such a lane the two differ at most in the sign of a zero (`k x + 0 y + 0 z`
    /// against `k x`), and the contact kernels only ever add a product to an angular
    /// velocity with no negative zero in it (see `BodiesW::without_negative_zero_spins`),
    /// where a zero of either sign gives the same bits: a lane's results do not depend on
    /// whether its batch took the short product, so batches of any width, split over any
    /// number of threads, give the same bits.
    #[inline(always)]
    pub fn mul_by<const ISOTROPIC: bool>(&self, v: Vec3W) -> Vec3W {
        if ISOTROPIC {
            self.m[0] * v
        } else {
            self.mul(v)
        }
    }

    #[inline]
    pub fn mul(&self, v: Vec3W) -> Vec3W {
        let [xx, xy, xz, yy, yz, zz] = self.m;
        Vec3W {
            x: xx * v.x + xy * v.y + xz * v.z,
            y: xy * v.x + yy * v.y + yz * v.z,
            z: xz * v.x + yz * v.y + zz * v.z,
        }
    }
}

/// Writes `v` into lane `i` of a component-wise staging array: the contact prepare fills
/// one array per component so the lanes load as plain vector loads
/// ([`Vec3W::from_lanes`]) instead of being transposed from per-lane vectors (fewer
/// instructions there; the ball joints' prepare, tried the same way, took more).
#[inline(always)]
pub(crate) fn put3(dst: &mut [[f32; W]; 3], i: usize, v: Vec3) {
    (dst[0][i], dst[1][i], dst[2][i]) = (v.x, v.y, v.z);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_swaps_rows_and_lanes() {
        let rows: [FloatW; W] =
            std::array::from_fn(|i| FloatW::new(std::array::from_fn(|j| (i * W + j) as f32)));
        let cols = transpose(rows);
        for (j, col) in cols.iter().enumerate() {
            for (i, &x) in col.to_array().iter().enumerate() {
                assert_eq!(x, (i * W + j) as f32);
            }
        }
    }

    #[test]
    fn rotate_matches_glam() {
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let p = Vec3::new(0.5, -1.5, 2.0);
        let r = QuatW::gather(&[q; W])
            .rotate(Vec3W::gather(&[p; W]))
            .scatter()[0];
        assert!((r - q * p).length() < 1e-5);
    }

    #[test]
    fn product_conjugate_and_axes_match_glam() {
        let a = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let b = Quat::from_euler(glam::EulerRot::ZYX, -1.2, 0.4, 0.25);
        let (qa, qb) = (QuatW::gather(&[a; W]), QuatW::gather(&[b; W]));
        let p = qa.conjugate().mul(qb);
        let expect = a.conjugate() * b;
        let got = [p.v.x, p.v.y, p.v.z, p.s].map(|c| c.to_array()[W - 1]);
        for (g, e) in got.iter().zip(expect.to_array()) {
            assert!((g - e).abs() < 1e-6, "{got:?} vs {expect}");
        }
        let axes = qa.axes();
        for (axis, unit) in axes.iter().zip([Vec3::X, Vec3::Y, Vec3::Z]) {
            assert!((axis.scatter()[0] - a * unit).length() < 1e-6);
        }
    }

    #[test]
    fn symmetric_mul_matches_mat3() {
        let m = crate::math::rotate_diagonal(Quat::from_rotation_y(0.4), Vec3::new(1.0, 2.0, 3.0));
        let v = Vec3::new(0.3, -0.2, 0.9);
        let r = SymMat3W::gather(&[m; W])
            .mul(Vec3W::gather(&[v; W]))
            .scatter()[W - 1];
        assert!((r - m * v).length() < 1e-5);
    }
}
