//! Small math helpers over `glam`: rigid transforms and a few geometric utilities.
//!
//! `glam::Vec3` is a plain three-float struct, so nothing here fuses multiply-adds:
//! the same inputs give bit-identical results on every build of this crate.

use glam::{Mat3, Quat, Vec3};

/// A rigid transform: rotate by `q`, then translate by `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation (the body origin in world space), in m.
    pub p: Vec3,
    /// Rotation, a unit quaternion.
    pub q: Quat,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        p: Vec3::ZERO,
        q: Quat::IDENTITY,
    };

    /// A transform from a translation and a rotation.
    #[inline]
    pub fn new(p: Vec3, q: Quat) -> Self {
        Self { p, q }
    }

    /// Maps a point from local to world space.
    #[inline]
    pub fn transform_point(&self, v: Vec3) -> Vec3 {
        self.q * v + self.p
    }

    /// Maps a point from world to local space.
    #[inline]
    pub fn inv_transform_point(&self, v: Vec3) -> Vec3 {
        self.q.conjugate() * (v - self.p)
    }

    /// Rotates a direction from local to world space.
    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.q * v
    }

    /// Rotates a direction from world to local space.
    #[inline]
    pub fn inv_transform_vector(&self, v: Vec3) -> Vec3 {
        self.q.conjugate() * v
    }

    /// `self⁻¹ * other`: `other` expressed in the frame of `self`.
    #[inline]
    pub fn inv_mul(&self, other: &Transform) -> Transform {
        let qc = self.q.conjugate();
        Transform {
            p: qc * (other.p - self.p),
            q: qc * other.q,
        }
    }

    /// `self * other`: apply `other`, then `self`.
    #[inline]
    pub fn mul(&self, other: &Transform) -> Transform {
        Transform {
            p: self.q * other.p + self.p,
            q: self.q * other.q,
        }
    }
}

/// Any unit vector perpendicular to the unit vector `n` (Duff et al. 2017, branch-free basis).
#[inline]
pub(crate) fn perpendicular(n: Vec3) -> Vec3 {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x)
}

/// Whether a principal-axes inverse inertia `d` has three equal elements (a cube's, a
/// sphere's): `k I` in every frame.
#[inline]
pub(crate) fn isotropic(d: Vec3) -> bool {
    d.x == d.y && d.y == d.z
}

/// `R diag(d) Rᵀ` for the rotation `q`: a body's world inverse inertia from its
/// principal-axes local inverse inertia `d`.
///
/// An isotropic `d` (a cube's, a sphere's: three equal elements) is the same in every frame,
/// and is returned as it is: `k I` exactly, without the products' rounding off the
/// diagonal, so that the contact kernels can tell such a body by its world inverse inertia
/// and multiply by `k` alone (see `solver::contact_wide`).
#[inline]
pub(crate) fn rotate_diagonal(q: Quat, d: Vec3) -> Mat3 {
    let r = Mat3::from_quat(q);
    let rd = Mat3::from_cols(r.x_axis * d.x, r.y_axis * d.y, r.z_axis * d.z);
    let turned = rd * r.transpose();
    // Chosen by blends, not a branch: bodies of both kinds come in any order.
    let iso = glam::BVec3::splat(isotropic(d));
    let diagonal = Mat3::from_diagonal(d);
    Mat3::from_cols(
        Vec3::select(iso, diagonal.x_axis, turned.x_axis),
        Vec3::select(iso, diagonal.y_axis, turned.y_axis),
        Vec3::select(iso, diagonal.z_axis, turned.z_axis),
    )
}

/// Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: returns the
/// eigenvalues and a rotation whose matrix columns are the matching unit eigenvectors
/// (`m = R diag(λ) Rᵀ`). Computed in f64; a matrix that is already diagonal returns
/// itself and the identity exactly, so a body whose shapes all sit on their axes keeps
/// its axes.
// Index loops read as the matrix algebra they implement.
#[allow(clippy::needless_range_loop)]
pub(crate) fn symmetric_eigen(m: Mat3) -> (Vec3, Quat) {
    let mut a = [[0.0f64; 3]; 3];
    for (c, col) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
        for r in 0..3 {
            a[r][c] = col[r] as f64;
        }
    }
    // Symmetrise: the caller's matrix may carry rounding asymmetry.
    for r in 0..3 {
        for c in r + 1..3 {
            let v = 0.5 * (a[r][c] + a[c][r]);
            a[r][c] = v;
            a[c][r] = v;
        }
    }
    let mut v = [[1.0f64, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let scale = (0..3).map(|i| a[i][i].abs()).fold(0.0f64, f64::max);
    for _sweep in 0..16 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= 1.0e-15 * scale || off == 0.0 {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation in the (p, q) plane that zeroes a[p][q] (Golub & Van Loan 8.4).
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for k in 0..3 {
                let (akp, akq) = (a[k][p], a[k][q]);
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[p][k], a[q][k]);
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let col = |c: usize| glam::DVec3::new(v[0][c], v[1][c], v[2][c]);
    let (x, y) = (col(0), col(1));
    // A proper rotation: the third axis from the first two (Jacobi keeps them orthonormal
    // up to rounding; re-orthonormalise before building the quaternion).
    let x = x.normalize();
    let y = (y - x * x.dot(y)).normalize();
    let z = x.cross(y);
    let r = glam::DMat3::from_cols(x, y, z);
    let q = glam::DQuat::from_mat3(&r).normalize();
    let q = Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize();
    (
        Vec3::new(a[0][0] as f32, a[1][1] as f32, a[2][2] as f32),
        if v == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
            Quat::IDENTITY
        } else {
            q
        },
    )
}

/// The largest length the engine accepts, in m (1,000 km), per axis: a shape's size (radius,
/// half extents, plane offset), the coordinates of hull points, mesh vertices and height
/// fields, a shape's local pose and a joint frame's distance from its body. Lever arms and
/// sizes are squared and multiplied by masses (inertia, joint Jacobians, the solver's
/// effective masses), so 1e20 m overflows f32; and at 1e6 m an f32 coordinate already
/// steps by 6 cm, too coarse to simulate anything finer.
pub const MAX_LENGTH: f32 = 1.0e6;

/// True when every component of `v` is finite.
#[inline]
pub(crate) fn is_finite3(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// FNV-1a over the bit patterns of body states: the layout of
/// [`World::state_hash`](crate::World::state_hash), public so that a peer engine's adapter can hash its bodies
/// the same way and determinism checks compare like with like.
#[derive(Clone, Copy, Debug)]
pub struct StateHasher(u64);

impl Default for StateHasher {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl StateHasher {
    /// Mixes in four little-endian bytes.
    #[inline]
    pub fn mix_u32(&mut self, x: u32) {
        for byte in x.to_le_bytes() {
            self.0 = (self.0 ^ byte as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    /// Mixes in one body: its index, position, linear and angular velocity (bit patterns),
    /// then its rotation as x, y, z, w.
    pub fn mix_body(
        &mut self,
        index: u32,
        position: [f32; 3],
        linear: [f32; 3],
        angular: [f32; 3],
        rotation: [f32; 4],
    ) {
        self.mix_u32(index);
        for x in position
            .iter()
            .chain(&linear)
            .chain(&angular)
            .chain(&rotation)
        {
            self.mix_u32(x.to_bits());
        }
    }

    /// The hash so far.
    #[inline]
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Asks the CPU to start loading `item` into cache: a hint, with no effect on any result,
/// and nothing at all on other architectures than x86-64.
///
/// Measured reason: a contact is over 400 bytes, and the narrowphase's recycled path does
/// little work per contact, so it waits on memory; the hardware prefetcher does not run
/// far enough ahead (figures in `docs/decisions.md`, "Figures behind code comments").
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    prefetch_head(item, std::mem::size_of::<T>());
}

/// [`prefetch`] of the first `bytes` bytes of `item` only (at most its size).
#[inline(always)]
pub(crate) fn prefetch_head<T>(item: &T, bytes: usize) {
    let addr = item as *const T as usize;
    prefetch_lines::<false>(addr, bytes.min(std::mem::size_of::<T>()));
}

/// [`prefetch`] of `bytes` bytes from the address `addr`, an integer: no reference or
/// pointer to the value is made (a prefetch of any address is a hint that never faults and
/// reads nothing), for an element of a slice that another worker may be writing.
///
/// Measured reason: the colour passes waited on their contact batches' lines, which the
/// hardware prefetchers do not fetch across a page's edge; asking for the next batches
/// halved many_pyramids' solve pass (`docs/decisions.md`, "The contact batches prefetched
/// in the passes").
#[inline(always)]
pub(crate) fn prefetch_raw(addr: usize, bytes: usize) {
    prefetch_lines::<false>(addr, bytes);
}

/// Whether the colour passes ask for their next contact and joint batches ahead
/// ([`prefetch_raw`]), decided once per process from the processor's maker. A prefetch
/// changes no value, so neither choice changes a result; only the time differs, and in
/// opposite ways on the two machines measured (`docs/decisions.md`, "The batch prefetch
/// on Intel"):
/// - AMD (Zen 4): the hardware prefetchers stop at each 4 KB page (two batches) and the
///   passes waited on the batches' lines; asking for them halved many_pyramids' solve.
/// - Intel (Sapphire Rapids): the hardware keeps up across the pages, and a batch's 32
///   prefetches issued at once fill the core's line fill buffers and stall the pass;
///   without them the passes take a sixth less.
///
/// Other makers follow Intel's choice (no x86 prefetch is issued off x86 at all).
/// `IMPETUS_BATCH_PREFETCH=1` (or `0`) in the environment overrides the choice, for
/// measuring a new machine.
pub(crate) fn prefetch_batches() -> bool {
    static CHOICE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(
        || match std::env::var("IMPETUS_BATCH_PREFETCH").as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => amd_like(),
        },
    )
}

/// Whether the processor is AMD's (or Hygon's, the same cores): the maker's name in
/// `cpuid` leaf 0. (Under Miri, which cannot run `cpuid`, false: a prefetch is no-op there.)
fn amd_like() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let r = std::arch::x86_64::__cpuid(0);
        let name: Vec<u8> = [r.ebx, r.edx, r.ecx]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        name == b"AuthenticAMD" || name == b"HygonGenuine"
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    false
}

/// [`prefetch_raw`] for a write: the lines are asked for in the state a store needs
/// (`prefetchw`), for a stream of stores that will fill them.
#[inline(always)]
pub(crate) fn prefetch_raw_write(addr: usize, bytes: usize) {
    prefetch_lines::<true>(addr, bytes);
}

/// Asks for every cache line of `addr..addr + bytes`, for a read or (`WRITE`) a write.
#[inline(always)]
fn prefetch_lines<const WRITE: bool>(addr: usize, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0, _MM_HINT_T0};
        let mut offset = 0;
        while offset < bytes {
            let at = std::ptr::without_provenance::<i8>(addr.wrapping_add(offset));
            // SAFETY: a prefetch never faults, reads nothing the program can observe and
            // changes no value, whatever the address.
            unsafe {
                if WRITE {
                    _mm_prefetch::<_MM_HINT_ET0>(at);
                } else {
                    _mm_prefetch::<_MM_HINT_T0>(at);
                }
            }
            offset += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (addr, bytes);
}

crate::codec::fields!(Transform { p, q });
crate::codec::fields!(Aabb { min, max });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perpendicular_is_orthonormal() {
        for n in [
            Vec3::X,
            Vec3::Y,
            Vec3::Z,
            -Vec3::Z,
            Vec3::new(1.0, 2.0, -3.0).normalize(),
        ] {
            let t = perpendicular(n);
            assert!(t.dot(n).abs() < 1e-6);
            assert!((t.length() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn symmetric_eigen_rebuilds_the_matrix() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        for _ in 0..200 {
            let q = Quat::from_xyzw(next(), next(), next(), next()).normalize();
            let d = Vec3::new(next().abs() + 0.1, next().abs() + 0.1, next().abs() + 0.1);
            let m = rotate_diagonal(q, d);
            let (l, r) = symmetric_eigen(m);
            let back = rotate_diagonal(r, l);
            for (a, b) in [
                (back.x_axis, m.x_axis),
                (back.y_axis, m.y_axis),
                (back.z_axis, m.z_axis),
            ] {
                assert!((a - b).length() < 1e-5, "{m:?} -> {l} {r:?}");
            }
            assert!((r.length() - 1.0).abs() < 1e-6);
        }
        // Diagonal in, diagonal out, exactly.
        let (l, r) = symmetric_eigen(Mat3::from_diagonal(Vec3::new(3.0, 1.0, 2.0)));
        assert_eq!((l, r), (Vec3::new(3.0, 1.0, 2.0), Quat::IDENTITY));
    }

    #[test]
    fn inv_mul_round_trips() {
        let a = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let b = Transform::new(Vec3::new(-2.0, 0.5, 1.0), Quat::from_rotation_x(-0.3));
        let rel = a.inv_mul(&b);
        let back = a.mul(&rel);
        assert!((back.p - b.p).length() < 1e-5);
        assert!(back.q.dot(b.q).abs() > 0.99999);
    }

    /// glam's quaternion products on x86-64 (its SSE2 code) round as the unfused formulas
    /// in their order: what this module's bit-identical results on every build rest on,
    /// for `Transform`'s rotations. A glam release that fuses multiply-adds where the
    /// build's target has FMA (0.33 fuses `Vec3A::cross`, and so `Quat * Vec3`;
    /// `target-cpu=native` turns FMA on) would make one world's results depend on the
    /// machine it was built for, and no test run on one machine would see it otherwise
    /// (`docs/decisions.md`, "Recycled manifolds refreshed eight at a time").
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn quaternion_products_are_not_fused() {
        // `v (w² − |q|²) + q (2 v · q) + (q × v) 2w`, dot products summed `(x + y) + z`.
        let rotate = |q: Quat, v: Vec3| {
            let b = Vec3::new(q.x, q.y, q.z);
            let scale = q.w * q.w - (b.x * b.x + b.y * b.y + b.z * b.z);
            let along = (v.x * b.x + v.y * b.y + v.z * b.z) * 2.0;
            let cross = Vec3::new(
                b.y * v.z - b.z * v.y,
                b.z * v.x - b.x * v.z,
                b.x * v.y - b.y * v.x,
            );
            let turn = q.w * 2.0;
            Vec3::new(
                (v.x * scale + b.x * along) + cross.x * turn,
                (v.y * scale + b.y * along) + cross.y * turn,
                (v.z * scale + b.z * along) + cross.z * turn,
            )
        };
        // Each component the sum of two two-product sums (glam's SSE2 order).
        let mul = |a: Quat, b: Quat| {
            Quat::from_xyzw(
                (a.w * b.x + a.x * b.w) + (a.y * b.z - a.z * b.y),
                (a.w * b.y - a.x * b.z) + (a.y * b.w + a.z * b.x),
                (a.w * b.z + a.x * b.y) + (a.z * b.w - a.y * b.x),
                (a.w * b.w - a.x * b.x) - (a.y * b.y + a.z * b.z),
            )
        };
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut float = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let bits = |v: Vec3| v.to_array().map(f32::to_bits);
        let quat_bits = |q: Quat| q.to_array().map(f32::to_bits);
        for _ in 0..10_000 {
            let q = Quat::from_xyzw(float(), float(), float(), float()).normalize();
            let r = Quat::from_xyzw(float(), float(), float(), float()).normalize();
            let v = Vec3::new(float(), float(), float()) * 100.0;
            assert_eq!(bits(q * v), bits(rotate(q, v)), "{q:?} * {v:?}");
            assert_eq!(quat_bits(q * r), quat_bits(mul(q, r)), "{q:?} * {r:?}");
        }
    }
}

/// An axis-aligned bounding box in world space.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Aabb {
    /// Lower corner, in m.
    pub min: Vec3,
    /// Upper corner, in m.
    pub max: Vec3,
}

impl Aabb {
    /// True when the two boxes overlap (touching counts).
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }

    /// [`Aabb::overlaps`]'s comparisons joined with `&`, not `&&`: one branch for the
    /// caller instead of six, where the answer is hard to guess (the narrowphase's
    /// filter of idle contacts, see `docs/decisions.md`).
    #[inline]
    pub fn overlaps_unbranched(&self, other: &Aabb) -> bool {
        (self.min.x <= other.max.x)
            & (other.min.x <= self.max.x)
            & (self.min.y <= other.max.y)
            & (other.min.y <= self.max.y)
            & (self.min.z <= other.max.z)
            & (other.min.z <= self.max.z)
    }

    /// True when `other` lies inside `self`.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// This box grown by `margin` on every side.
    #[inline]
    pub fn expanded(&self, margin: f32) -> Aabb {
        Aabb {
            min: self.min - Vec3::splat(margin),
            max: self.max + Vec3::splat(margin),
        }
    }

    /// The box covering this one and this one moved by `d`.
    #[inline]
    pub fn swept(&self, d: Vec3) -> Aabb {
        Aabb {
            min: self.min.min(self.min + d),
            max: self.max.max(self.max + d),
        }
    }
}
