//! Forces from the environment that games ask for: air drag and buoyancy in fluid volumes.
//!
//! Both are computed once per step, from the poses and velocities at the start of the
//! step, and added to the bodies' force and torque accumulators, which the solver's
//! velocity integration applies over every substep (so they are part of the step like
//! gravity). Only dynamic bodies feel them.
//!
//! **Quadratic drag.** A body with drag coefficient `Cd` moving at `v` relative to the
//! medium feels `F = -½ ρ |v|² Cd A v̂`, where `A` is its cross-section seen along `v̂`:
//! `π r²` for a sphere, `4 (|v̂ₓ| e_y e_z + |v̂_y| e_x e_z + |v̂_z| e_x e_y)` for a box of
//! half extents `e` (`v̂` in the box frame). A body's shapes all sit at its origin and
//! overlap, so the body's `A` is the largest of its shapes' (not their sum). The medium is
//! the air (`WorldDef::air_density`, still air) for the fraction of the body above every
//! fluid and each fluid (its density, moving at its `velocity`) for the fraction
//! submerged in it. The force is explicit, so it is clamped: one step's drag impulse
//! never exceeds the momentum `m |v|` it acts against (drag stops a body, never reverses
//! it). At terminal velocity `F = m g` exactly, so `v_t = sqrt(2 m g / (ρ Cd A))` is the
//! fixed point whatever the step.
//!
//! **Buoyancy.** A [`Fluid`] fills the half-space below a plane `n · x = offset` (`n` points
//! up, out of the fluid). Each sphere and box of a dynamic body displaces the volume
//! `V_sub` below the plane; Archimedes' force `-ρ_fluid V_sub g` (against gravity) acts at
//! the centroid of that volume, the centre of buoyancy `c_b`, adding the torque
//! `(c_b - x) × F` that rights a tilted raft.
//! - Sphere of radius `r` whose centre is `d` above the plane: a spherical cap of depth
//!   `h = clamp(r - d, 0, 2r)`, `V = π h² (3r - h) / 3`, centroid `3 (2r - h)² / (4 (3r - h))`
//!   below the centre along `-n`.
//! - Box: the convex polyhedron box ∩ half-space, exactly. Each face is clipped by the
//!   plane (Sutherland-Hodgman); with a reference point `o` on the plane, the cap face
//!   (in the plane) spans no volume, so `V = Σ (a-o)·((b-o)×(c-o)) / 6` over the fan
//!   triangles `(a, b, c)` of the clipped faces (divergence theorem), and the centroid is
//!   the volume-weighted mean of the tetrahedra's centroids `(o + a + b + c) / 4`.
//! - Hollow spheres displace their outer volume.
//!
//! A fluid also damps what it holds: a linear damping rate `linear_drag` (1/s) on the
//! velocity relative to the fluid and `angular_drag` (1/s) on the angular velocity, both
//! scaled by the submerged fraction (`F = -c f m v_rel`, `τ = -c f I ω`), each clamped to
//! at most stop the motion in one step. Without them a floating body bobs for ever (the
//! buoyant spring has no loss of its own); with them it settles at the draft where
//! `ρ_fluid V_sub = m`.
//!
//! Fluids extend without bound along their surface (a sea, a lake filling the level).

use crate::error::Error;
use crate::math::{is_finite3, Transform};
use crate::shape::Shape;
use glam::{Quat, Vec3};
use std::f32::consts::PI;

/// A body of fluid: everything below a plane surface. See the module docs for the forces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fluid {
    /// Unit normal of the surface, pointing up out of the fluid. Default: +Y.
    pub surface_normal: Vec3,
    /// The surface is the plane `surface_normal · x = surface_offset`; the fluid is where
    /// `surface_normal · x < surface_offset`. In m. Default: 0.
    pub surface_offset: f32,
    /// Density, in kg/m³. Default: 1000 (fresh water).
    pub density: f32,
    /// Damping rate of the velocity relative to the fluid of a fully submerged body, in
    /// 1/s (scaled by the submerged fraction). Default: 1.
    pub linear_drag: f32,
    /// Damping rate of the angular velocity of a fully submerged body, in 1/s (scaled by
    /// the submerged fraction). Default: 1.
    pub angular_drag: f32,
    /// Velocity of the fluid (a current), in m/s. Default: zero.
    pub velocity: Vec3,
}

crate::codec::fields!(Fluid {
    surface_normal,
    surface_offset,
    density,
    linear_drag,
    angular_drag,
    velocity
});

impl Default for Fluid {
    fn default() -> Self {
        Self {
            surface_normal: Vec3::Y,
            surface_offset: 0.0,
            density: 1000.0,
            linear_drag: 1.0,
            angular_drag: 1.0,
            velocity: Vec3::ZERO,
        }
    }
}

impl Fluid {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.surface_normal;
        if !is_finite3(n) || (n.length() - 1.0).abs() > 1.0e-3 {
            return Err(Error::invalid(
                "Fluid::surface_normal",
                "must be a finite unit vector",
            ));
        }
        if !self.surface_offset.is_finite() {
            return Err(Error::invalid("Fluid::surface_offset", "must be finite"));
        }
        for (field, v) in [
            ("Fluid::density", self.density),
            ("Fluid::linear_drag", self.linear_drag),
            ("Fluid::angular_drag", self.angular_drag),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(Error::invalid(field, "must be finite and non-negative"));
            }
        }
        if !is_finite3(self.velocity) {
            return Err(Error::invalid("Fluid::velocity", "must be finite"));
        }
        Ok(())
    }
}

/// A fluid of a [`World`](crate::World); stays valid until the fluid is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FluidId {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the id was issued.
    pub generation: u32,
}

/// The part of a shape below a fluid's surface.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Submersion {
    /// Submerged volume, in m³.
    pub volume: f32,
    /// The shapes' whole volume, in m³.
    pub total_volume: f32,
    /// Centroid of the submerged volume (the centre of buoyancy), world frame, in m; the
    /// body origin when nothing is submerged.
    pub center: Vec3,
}

impl Submersion {
    /// `volume / total_volume`, in [0, 1] (0 for a body without volume).
    pub fn fraction(&self) -> f32 {
        if self.total_volume > 0.0 {
            (self.volume / self.total_volume).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// Volume (m³) and world centroid of the part of `shape` at `xf` below the plane
/// `n · x = offset` (`n` unit, pointing out of the fluid). Planes, meshes and height
/// fields have no volume.
pub fn submerged_volume(shape: &Shape, xf: &Transform, n: Vec3, offset: f32) -> (f32, Vec3) {
    match *shape {
        Shape::Sphere { radius } => submerged_sphere(radius, xf.p, n, offset),
        Shape::Capsule {
            half_height,
            radius,
        } => submerged_capsule(half_height, radius, xf, n, offset),
        Shape::Box { half_extents } => submerged_box(half_extents, xf, n, offset),
        Shape::Hull { ref hull } => {
            // In the hull frame: n_l · x_l = offset - n · p.
            let nl = xf.inv_transform_vector(n);
            let (v, c) = hull.submerged(nl, offset - n.dot(xf.p));
            (v.min(hull.volume()), xf.transform_point(c))
        }
        Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => (0.0, xf.p),
    }
}

fn submerged_sphere(r: f32, c: Vec3, n: Vec3, offset: f32) -> (f32, Vec3) {
    let d = n.dot(c) - offset;
    let h = (r - d).clamp(0.0, 2.0 * r);
    if h <= 0.0 {
        return (0.0, c);
    }
    let volume = PI * h * h * (3.0 * r - h) / 3.0;
    let below = 3.0 * (2.0 * r - h) * (2.0 * r - h) / (4.0 * (3.0 * r - h));
    (volume, c - n * below)
}

/// Slices per part of a capsule (each hemisphere and the cylinder) in
/// [`submerged_capsule`]: the midpoint rule's volume error on a hemisphere is
/// `1 / (8 N²)` of it (0.05% at 16).
const CAPSULE_SLICES: usize = 16;

/// The submerged part of a capsule, approximately: a documented trade-off against the exact
/// but long case analysis of a plane cutting a cylinder capped by spheres. The capsule is
/// cut into thin disks perpendicular to its axis (midpoint rule, [`CAPSULE_SLICES`] per
/// hemisphere and for the cylinder); the submerged part of each disk is a circular segment
/// whose area and centroid are closed form. Exact when the capsule is fully in or out, and
/// when its axis is vertical the disks are fully in or out, so only the slice through the
/// surface is approximate. Relative volume error below 0.1% on a hemisphere.
fn submerged_capsule(h: f32, r: f32, xf: &Transform, n: Vec3, offset: f32) -> (f32, Vec3) {
    let u = xf.q * Vec3::Y;
    // Height of the centre above the surface, and of the axis's slope.
    let d = n.dot(xf.p) - offset;
    let nu = n.dot(u);
    let reach = h * nu.abs() + r;
    if d >= reach {
        return (0.0, xf.p);
    }
    let full = PI * r * r * (2.0 * h + 4.0 / 3.0 * r);
    if d <= -reach {
        return (full, xf.p);
    }
    // In a disk at axial coordinate `y` (radius `rho`), the height of a point `c + y u + w`
    // (`w ⟂ u`) is `d + y nu + e·w` with `e` the part of `n` across the axis, `|e| = s`.
    let e = n - u * nu;
    let s = e.length();
    let e_dir = if s > 1.0e-6 { e / s } else { Vec3::ZERO };
    let (mut volume, mut moment) = (0.0f32, Vec3::ZERO);
    let mut slice = |y: f32, rho: f32, dy: f32| {
        let hc = d + y * nu;
        let (area, shift) = if s <= 1.0e-6 {
            // The disk is level: all in or all out.
            (if hc < 0.0 { PI * rho * rho } else { 0.0 }, 0.0)
        } else {
            // Submerged: `e_dir · w < a` with `a = -hc / s`.
            let a = (-hc / s).clamp(-rho, rho);
            let chord = (rho * rho - a * a).max(0.0).sqrt();
            let area = rho * rho * (-a / rho).clamp(-1.0, 1.0).acos() + a * chord;
            let shift = if area > 0.0 {
                -2.0 * chord * chord * chord / (3.0 * area)
            } else {
                0.0
            };
            (area, shift)
        };
        let dv = area * dy;
        volume += dv;
        moment += (u * y + e_dir * shift) * dv;
    };
    let k = CAPSULE_SLICES;
    let dh = r / k as f32;
    for i in 0..k {
        // Hemisphere slices at distance z from the end's centre.
        let z = (i as f32 + 0.5) * dh;
        let rho = (r * r - z * z).max(0.0).sqrt();
        slice(h + z, rho, dh);
        slice(-h - z, rho, dh);
    }
    if h > 0.0 {
        let dc = 2.0 * h / k as f32;
        for i in 0..k {
            slice(-h + (i as f32 + 0.5) * dc, r, dc);
        }
    }
    if volume <= 0.0 {
        return (0.0, xf.p);
    }
    (volume.min(full), xf.p + moment / volume)
}

/// The faces of a box, as corner indices (bit 0: +x, bit 1: +y, bit 2: +z), counter-
/// clockwise seen from outside.
const BOX_FACES: [[usize; 4]; 6] = [
    [1, 3, 7, 5],
    [0, 4, 6, 2],
    [2, 6, 7, 3],
    [0, 1, 5, 4],
    [4, 5, 7, 6],
    [0, 2, 3, 1],
];

fn submerged_box(e: Vec3, xf: &Transform, n: Vec3, offset: f32) -> (f32, Vec3) {
    // Work relative to the box centre (precision far from the origin).
    let d = n.dot(xf.p) - offset;
    let mut corners = [Vec3::ZERO; 8];
    let mut heights = [0.0f32; 8];
    for (k, (c, s)) in corners.iter_mut().zip(heights.iter_mut()).enumerate() {
        let local = Vec3::new(
            if k & 1 != 0 { e.x } else { -e.x },
            if k & 2 != 0 { e.y } else { -e.y },
            if k & 4 != 0 { e.z } else { -e.z },
        );
        *c = xf.q * local;
        *s = n.dot(*c) + d;
    }
    if heights.iter().all(|&s| s >= 0.0) {
        return (0.0, xf.p);
    }
    let full = 8.0 * e.x * e.y * e.z;
    if heights.iter().all(|&s| s <= 0.0) {
        return (full, xf.p);
    }
    // A point on the plane: the cap face lies in the plane through it and adds nothing.
    let o = -n * d;
    let (mut six_volume, mut moment) = (0.0f32, Vec3::ZERO);
    for face in &BOX_FACES {
        let mut poly = [Vec3::ZERO; 5];
        let mut len = 0;
        for j in 0..4 {
            let (a, b) = (face[j], face[(j + 1) % 4]);
            let (sa, sb) = (heights[a], heights[b]);
            if sa <= 0.0 {
                poly[len] = corners[a];
                len += 1;
            }
            if (sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0) {
                let t = sa / (sa - sb);
                poly[len] = corners[a] + (corners[b] - corners[a]) * t;
                len += 1;
            }
        }
        for k in 1..len.saturating_sub(1) {
            let (a, b, c) = (poly[0] - o, poly[k] - o, poly[k + 1] - o);
            let v6 = a.dot(b.cross(c));
            six_volume += v6;
            moment += v6 * (a + b + c) * 0.25;
        }
    }
    if six_volume <= 0.0 {
        return (0.0, xf.p);
    }
    let volume = (six_volume / 6.0).min(full);
    (volume, xf.p + o + moment / six_volume)
}

/// Cross-section (m²) of `shape` at rotation `q` seen along the unit direction `u`.
pub fn projected_area(shape: &Shape, q: Quat, u: Vec3) -> f32 {
    match *shape {
        Shape::Sphere { radius } => PI * radius * radius,
        Shape::Capsule {
            half_height,
            radius,
        } => {
            // A stadium: the disk plus the rectangle swept by the axis's projection.
            let along = (q * Vec3::Y).dot(u);
            let across = (1.0 - along * along).max(0.0).sqrt();
            PI * radius * radius + 4.0 * radius * half_height * across
        }
        Shape::Box { half_extents: e } => {
            let l = (q.conjugate() * u).abs();
            4.0 * (l.x * e.y * e.z + l.y * e.x * e.z + l.z * e.x * e.y)
        }
        Shape::Hull { ref hull } => hull.projected_area(q.conjugate() * u),
        Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => 0.0,
    }
}

pub(crate) fn shape_volume(shape: &Shape) -> f32 {
    match *shape {
        Shape::Sphere { radius } => 4.0 / 3.0 * PI * radius * radius * radius,
        Shape::Capsule {
            half_height,
            radius,
        } => PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius),
        Shape::Box { half_extents: e } => 8.0 * e.x * e.y * e.z,
        Shape::Hull { ref hull } => hull.volume(),
        Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => 0.0,
    }
}

/// `-½ ρ |v|² Cd A v̂`, clamped so that its impulse over `dt` is at most `m |v|`.
pub(crate) fn quadratic_drag(rho: f32, cd: f32, area: f32, v: Vec3, mass: f32, dt: f32) -> Vec3 {
    let speed = v.length();
    if speed <= 0.0 || rho <= 0.0 || area <= 0.0 {
        return Vec3::ZERO;
    }
    let magnitude = (0.5 * rho * speed * speed * cd * area).min(mass * speed / dt);
    -v * (magnitude / speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The volume and centroid below the plane by sampling a 64³ grid over the box.
    fn sampled(e: Vec3, xf: &Transform, n: Vec3, offset: f32) -> (f32, Vec3) {
        let k = 64;
        // f64 sums: 262,144 f32 additions lose ~0.3%.
        let cell = 8.0 * (e.x * e.y * e.z) as f64 / (k * k * k) as f64;
        let (mut volume, mut moment) = (0.0f64, glam::DVec3::ZERO);
        for i in 0..k {
            for j in 0..k {
                for l in 0..k {
                    let u = (Vec3::new(i as f32, j as f32, l as f32) + 0.5) / k as f32;
                    let x = xf.transform_point((u * 2.0 - 1.0) * e);
                    if n.dot(x) < offset {
                        volume += cell;
                        moment += cell * x.as_dvec3();
                    }
                }
            }
        }
        let centroid = if volume > 0.0 {
            (moment / volume).as_vec3()
        } else {
            xf.p
        };
        (volume as f32, centroid)
    }

    #[test]
    fn box_volume_matches_sampling() {
        let e = Vec3::new(0.5, 0.3, 0.8);
        let xf = Transform::new(
            Vec3::new(3.0, 0.1, -2.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.4, 0.9, -0.3),
        );
        let n = Vec3::new(0.1, 1.0, 0.2).normalize();
        for offset in [-0.8, -0.3, 0.0, 0.4, 0.9, 1.5] {
            let (v, c) = submerged_box(e, &xf, n, offset + n.dot(xf.p));
            let (vs, cs) = sampled(e, &xf, n, offset + n.dot(xf.p));
            assert!(
                (v - vs).abs() < 0.01 * 8.0 * e.x * e.y * e.z,
                "{offset}: {v} vs {vs}"
            );
            if vs > 0.01 {
                assert!((c - cs).length() < 0.005, "{offset}: {c} vs {cs}");
            }
        }
    }

    #[test]
    fn box_cut_through_its_centre_is_half() {
        let e = Vec3::new(1.0, 0.5, 0.25);
        let xf = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_z(0.3));
        let (v, c) = submerged_box(e, &xf, Vec3::Y, 2.0);
        assert!((v - 4.0 * e.x * e.y * e.z).abs() < 1e-5, "{v}");
        assert!(c.y < 2.0);
        // Axis-aligned: a slab of depth 0.2 under a 2 x 0.5 face.
        let (v, c) = submerged_box(e, &Transform::IDENTITY, Vec3::Y, -0.3);
        assert!((v - 2.0 * 0.5 * 0.2).abs() < 1e-5, "{v}");
        assert!((c - Vec3::new(0.0, -0.4, 0.0)).length() < 1e-5, "{c}");
    }

    #[test]
    fn sphere_cap_closed_forms() {
        let r = 0.5;
        let (v, c) = submerged_sphere(r, Vec3::ZERO, Vec3::Y, 0.0);
        assert!((v - 2.0 / 3.0 * PI * r * r * r).abs() < 1e-6);
        assert!((c.y + 3.0 * r / 8.0).abs() < 1e-6);
        let (v, c) = submerged_sphere(r, Vec3::new(0.0, -2.0, 0.0), Vec3::Y, 0.0);
        assert!((v - 4.0 / 3.0 * PI * r * r * r).abs() < 1e-6);
        assert!((c.y + 2.0).abs() < 1e-6);
        assert_eq!(
            submerged_sphere(r, Vec3::new(0.0, 0.6, 0.0), Vec3::Y, 0.0).0,
            0.0
        );
    }

    #[test]
    fn box_cross_section() {
        let s = Shape::Box {
            half_extents: Vec3::new(1.0, 0.5, 0.25),
        };
        assert!((projected_area(&s, Quat::IDENTITY, Vec3::Y) - 1.0).abs() < 1e-6);
        assert!((projected_area(&s, Quat::IDENTITY, Vec3::X) - 0.5).abs() < 1e-6);
        let diag = Vec3::new(1.0, 1.0, 0.0).normalize();
        let expected = (0.5 + 1.0) * std::f32::consts::FRAC_1_SQRT_2;
        assert!((projected_area(&s, Quat::IDENTITY, diag) - expected).abs() < 1e-6);
    }

    /// The capsule's sliced volume and centroid against a 96³ grid over its bounding box.
    #[test]
    fn capsule_volume_matches_sampling() {
        let (h, r) = (0.6f32, 0.3f32);
        let shape = Shape::Capsule {
            half_height: h,
            radius: r,
        };
        let full = shape_volume(&shape);
        let xf = Transform::new(
            Vec3::new(3.0, 0.1, -2.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.4, 0.9, -0.3),
        );
        let k = 96;
        let e = Vec3::new(r, h + r, r);
        let cell = 8.0 * (e.x * e.y * e.z) as f64 / (k * k * k) as f64;
        for n in [Vec3::new(0.1, 1.0, 0.2).normalize(), Vec3::Y] {
            for offset in [-0.9, -0.5, -0.2, 0.0, 0.3, 0.7, 1.0] {
                let offset = offset + n.dot(xf.p);
                let (mut vs, mut moment) = (0.0f64, glam::DVec3::ZERO);
                for i in 0..k {
                    for j in 0..k {
                        for l in 0..k {
                            let u = (Vec3::new(i as f32, j as f32, l as f32) + 0.5) / k as f32;
                            let local = (u * 2.0 - 1.0) * e;
                            let axis = Vec3::new(0.0, local.y.clamp(-h, h), 0.0);
                            let x = xf.transform_point(local);
                            if (local - axis).length_squared() <= r * r && n.dot(x) < offset {
                                vs += cell;
                                moment += cell * x.as_dvec3();
                            }
                        }
                    }
                }
                let (v, c) = submerged_volume(&shape, &xf, n, offset);
                assert!(
                    (v as f64 - vs).abs() < 0.01 * full as f64,
                    "{offset}: {v} vs {vs}"
                );
                if vs > 0.01 * full as f64 {
                    let cs = (moment / vs).as_vec3();
                    assert!((c - cs).length() < 0.01, "{offset}: {c} vs {cs}");
                }
            }
        }
        // Fully under: the exact volume at the centre.
        let (v, c) = submerged_volume(&shape, &xf, Vec3::Y, 10.0);
        assert!((v - full).abs() < 1e-6 && c == xf.p);
    }

    #[test]
    fn capsule_cross_section() {
        let s = Shape::Capsule {
            half_height: 1.0,
            radius: 0.5,
        };
        let disk = PI * 0.25;
        // Along the axis: the disk; across it: the disk plus a 2 x 1 rectangle.
        assert!((projected_area(&s, Quat::IDENTITY, Vec3::Y) - disk).abs() < 1e-6);
        assert!((projected_area(&s, Quat::IDENTITY, Vec3::X) - (disk + 2.0)).abs() < 1e-6);
        let diag = Vec3::new(1.0, 1.0, 0.0).normalize();
        let expected = disk + 2.0 * std::f32::consts::FRAC_1_SQRT_2;
        assert!((projected_area(&s, Quat::IDENTITY, diag) - expected).abs() < 1e-6);
    }
}
