//! Collision shapes: a closed enum, their bounding boxes and their mass properties.
//!
//! A shape's geometry is described about its own origin; `ShapeDef::local_pose` places it
//! on its body. A dynamic body simulates its mass frame (centre of mass and principal
//! axes, combined over its shapes), so shapes off the body origin make a
//! compound.

use crate::error::Error;
use crate::math::{is_finite3, Aabb, Transform, MAX_LENGTH};
use glam::Vec3;
use std::sync::Arc;

pub(crate) mod encode;
pub(crate) mod store;
pub use store::{Filter, ShapeDef};

pub use crate::hull::ConvexHull;
pub use crate::mesh::{HeightField, TriMesh, Triangles};

/// The geometry of a shape, in the body's local frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A sphere centred on the body origin.
    Sphere {
        /// Radius, in m. Must be positive.
        radius: f32,
    },
    /// A capsule centred on the body origin: the segment from `(0, -half_height, 0)` to
    /// `(0, half_height, 0)` along the local y axis, swept by a sphere of `radius`.
    Capsule {
        /// Half the length of the core segment, in m. Must be non-negative (0 is a sphere).
        half_height: f32,
        /// Radius, in m. Must be positive.
        radius: f32,
    },
    /// A box centred on the body origin, aligned with the body axes.
    Box {
        /// Half the box's size along each local axis, in m. Each must be positive.
        half_extents: Vec3,
    },
    /// A convex polyhedron centred on the body origin (its volume centroid), its principal
    /// axes along the body axes. The data is immutable and shared: cloning the shape
    /// clones the `Arc`.
    Hull {
        /// The polyhedron (see [`ConvexHull::new`]).
        hull: Arc<ConvexHull>,
    },
    /// A static half-space `{x : normal · x <= offset}` (in the body frame);
    /// its boundary is the plane `normal · x = offset`. Only static bodies may own one.
    Plane {
        /// Outward unit normal of the solid half-space's surface.
        normal: Vec3,
        /// Distance of the plane from the body origin along `normal`, in m.
        offset: f32,
    },
    /// A static triangle mesh (see [`TriMesh`]), in the body frame. Only static bodies may
    /// own one. Convex shapes collide with each of its triangles as a separate contact.
    Mesh {
        /// The triangles (shared: cloning the shape clones the `Arc`).
        mesh: Arc<TriMesh>,
    },
    /// A static height field (see [`HeightField`]), in the body frame. Only static bodies
    /// may own one.
    HeightField {
        /// The heights (shared).
        field: Arc<HeightField>,
    },
}

/// The kind of a shape, used to index the pair dispatch table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum ShapeKind {
    /// [`Shape::Sphere`].
    Sphere = 0,
    /// [`Shape::Capsule`].
    Capsule = 1,
    /// [`Shape::Box`].
    Box = 2,
    /// [`Shape::Hull`].
    Hull = 3,
    /// [`Shape::Plane`].
    Plane = 4,
    /// [`Shape::Mesh`].
    Mesh = 5,
    /// [`Shape::HeightField`].
    HeightField = 6,
}

impl ShapeKind {
    /// The number of shape kinds (the dispatch table's side).
    pub const COUNT: usize = 7;

    /// Whether shapes of this kind are made of triangles (a mesh or a height field).
    #[inline]
    pub fn is_triangles(self) -> bool {
        matches!(self, ShapeKind::Mesh | ShapeKind::HeightField)
    }
}

/// Bound used for the unbounded directions of a half-space: large enough to contain any
/// world, small enough that arithmetic on it stays finite.
pub(crate) const HUGE: f32 = 1.0e18;

/// Mass, and the principal moments of inertia about the centre of mass.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MassProperties {
    /// Mass, in kg.
    pub mass: f32,
    /// Principal moments of inertia about the body axes, in kg·m².
    pub inertia: Vec3,
}

impl Shape {
    /// The kind of this shape.
    #[inline]
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere { .. } => ShapeKind::Sphere,
            Shape::Capsule { .. } => ShapeKind::Capsule,
            Shape::Box { .. } => ShapeKind::Box,
            Shape::Hull { .. } => ShapeKind::Hull,
            Shape::Plane { .. } => ShapeKind::Plane,
            Shape::Mesh { .. } => ShapeKind::Mesh,
            Shape::HeightField { .. } => ShapeKind::HeightField,
        }
    }

    /// The triangles of a mesh or height field (`None` for other shapes).
    #[inline]
    pub fn triangles(&self) -> Option<Triangles<'_>> {
        match self {
            Shape::Mesh { mesh } => Some(Triangles::Mesh(mesh)),
            Shape::HeightField { field } => Some(Triangles::Field(field)),
            _ => None,
        }
    }

    /// Whether only static bodies may own this shape (planes, meshes, height fields).
    #[inline]
    pub fn is_static_only(&self) -> bool {
        matches!(
            self,
            Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. }
        )
    }

    /// Checks the geometry, naming the bad field.
    pub fn validate(&self) -> Result<(), Error> {
        match *self {
            Shape::Sphere { radius } => {
                if !radius.is_finite() || radius <= 0.0 || radius > MAX_LENGTH {
                    return Err(Error::invalid(
                        "Shape::Sphere::radius",
                        "must be finite, positive and at most 1e6 m",
                    ));
                }
            }
            Shape::Capsule {
                half_height,
                radius,
            } => {
                if !(0.0..=MAX_LENGTH).contains(&half_height) {
                    return Err(Error::invalid(
                        "Shape::Capsule::half_height",
                        "must be finite, non-negative and at most 1e6 m",
                    ));
                }
                if !radius.is_finite() || radius <= 0.0 || radius > MAX_LENGTH {
                    return Err(Error::invalid(
                        "Shape::Capsule::radius",
                        "must be finite, positive and at most 1e6 m",
                    ));
                }
            }
            Shape::Box { half_extents } => {
                if !is_finite3(half_extents)
                    || half_extents.min_element() <= 0.0
                    || half_extents.max_element() > MAX_LENGTH
                {
                    return Err(Error::invalid(
                        "Shape::Box::half_extents",
                        "each must be finite, positive and at most 1e6 m",
                    ));
                }
            }
            // Hulls, meshes and height fields are valid by construction.
            Shape::Hull { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => {}
            Shape::Plane { normal, offset } => {
                if !is_finite3(normal) || (normal.length() - 1.0).abs() > 1.0e-3 {
                    return Err(Error::invalid(
                        "Shape::Plane::normal",
                        "must be a finite unit vector",
                    ));
                }
                if !offset.is_finite() || offset.abs() > MAX_LENGTH {
                    return Err(Error::invalid(
                        "Shape::Plane::offset",
                        "must be finite and within ±1e6 m",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The tight world-space bounding box of this shape at pose `xf`.
    pub fn aabb(&self, xf: &Transform) -> Aabb {
        match *self {
            Shape::Sphere { radius } => Aabb {
                min: xf.p - Vec3::splat(radius),
                max: xf.p + Vec3::splat(radius),
            },
            Shape::Capsule {
                half_height,
                radius,
            } => {
                // The segment's end points are `p ± h R ŷ`.
                let e = (xf.q * Vec3::Y).abs() * half_height + Vec3::splat(radius);
                Aabb {
                    min: xf.p - e,
                    max: xf.p + e,
                }
            }
            Shape::Box { half_extents } => {
                let m = glam::Mat3::from_quat(xf.q);
                let e = m.x_axis.abs() * half_extents.x
                    + m.y_axis.abs() * half_extents.y
                    + m.z_axis.abs() * half_extents.z;
                Aabb {
                    min: xf.p - e,
                    max: xf.p + e,
                }
            }
            Shape::Hull { ref hull } => {
                let m = glam::Mat3::from_quat(xf.q);
                let mut min = Vec3::splat(f32::MAX);
                let mut max = Vec3::splat(f32::MIN);
                for &v in hull.vertices() {
                    let w = m * v;
                    min = min.min(w);
                    max = max.max(w);
                }
                Aabb {
                    min: xf.p + min,
                    max: xf.p + max,
                }
            }
            Shape::Plane { normal, offset } => {
                // A half-space is unbounded except along an axis its normal is aligned with.
                let n = xf.q * normal;
                let top = n.dot(xf.p) + offset;
                let mut min = Vec3::splat(-HUGE);
                let mut max = Vec3::splat(HUGE);
                for axis in 0..3 {
                    if n[axis] > 0.9999 {
                        max[axis] = top;
                    } else if n[axis] < -0.9999 {
                        min[axis] = -top;
                    }
                }
                Aabb { min, max }
            }
            Shape::Mesh { .. } | Shape::HeightField { .. } => {
                let bb = self.triangles().map_or_else(Aabb::default, |t| t.bounds());
                transformed_aabb(&bb, xf)
            }
        }
    }

    /// Mass and principal inertia for a solid of the given density (kg/m³).
    /// A plane has no mass.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        match *self {
            Shape::Sphere { radius } => {
                let mass = density * (4.0 / 3.0) * std::f32::consts::PI * radius.powi(3);
                let i = 0.4 * mass * radius * radius;
                MassProperties {
                    mass,
                    inertia: Vec3::splat(i),
                }
            }
            Shape::Capsule {
                half_height: h,
                radius: r,
            } => capsule_mass(h, r, density),
            Shape::Box { half_extents: e } => {
                let mass = density * 8.0 * e.x * e.y * e.z;
                let (x2, y2, z2) = (e.x * e.x, e.y * e.y, e.z * e.z);
                MassProperties {
                    mass,
                    inertia: Vec3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 3.0),
                }
            }
            Shape::Hull { ref hull } => MassProperties {
                mass: density * hull.volume(),
                inertia: hull.unit_inertia() * density,
            },
            Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => {
                MassProperties::default()
            }
        }
    }

    /// The largest distance from the body origin to the surface, in m (0 for a plane,
    /// which only static bodies own; the farthest corner of the bounds for a mesh).
    ///
    /// Inlined: the narrowphase asks it for both shapes of every contact (see
    /// `docs/decisions.md`, "Figures behind code comments"); the mesh case stays out of
    /// line.
    #[inline]
    pub fn bounding_radius(&self) -> f32 {
        match *self {
            Shape::Sphere { radius } => radius,
            Shape::Capsule {
                half_height,
                radius,
            } => half_height + radius,
            Shape::Box { half_extents } => half_extents.length(),
            Shape::Hull { ref hull } => hull.bounding_radius(),
            Shape::Plane { .. } => 0.0,
            Shape::Mesh { .. } | Shape::HeightField { .. } => self.mesh_bounding_radius(),
        }
    }

    #[inline(never)]
    fn mesh_bounding_radius(&self) -> f32 {
        let bb = self.triangles().map_or_else(Aabb::default, |t| t.bounds());
        bb.min.abs().max(bb.max.abs()).length()
    }

    /// The smallest distance from the body origin to the surface, in m: how far the body
    /// may move in a step before it risks passing through something thin.
    pub fn min_extent(&self) -> f32 {
        match *self {
            Shape::Sphere { radius } => radius,
            Shape::Capsule { radius, .. } => radius,
            Shape::Box { half_extents } => half_extents.min_element(),
            Shape::Hull { ref hull } => hull.min_extent(),
            Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => HUGE,
        }
    }
}

/// Combines parts (each a shape's mass properties about its own centre and axes, at its
/// pose in the body frame) into the body's: total mass, principal moments, and the mass
/// frame (centre of mass and principal axes, in the body frame). Each part's inertia
/// tensor is rotated into the body axes (`R D Rᵀ`) and moved to the common centre by the
/// parallel-axis theorem (`m (|d|² 1 − d dᵀ)`); the sum is diagonalised. `None` when the
/// parts have no mass.
pub(crate) fn combine_mass(
    parts: impl Iterator<Item = (MassProperties, Transform)> + Clone,
) -> Option<(MassProperties, Transform)> {
    let mut mass = 0.0f32;
    let mut moment = Vec3::ZERO;
    for (mp, xf) in parts.clone() {
        mass += mp.mass;
        moment += mp.mass * xf.p;
    }
    if mass.is_nan() || mass <= 0.0 {
        return None;
    }
    let center = moment / mass;
    let mut tensor = glam::Mat3::ZERO;
    for (mp, xf) in parts {
        let d = xf.p - center;
        let shift = glam::Mat3::from_diagonal(Vec3::splat(d.length_squared()))
            - glam::Mat3::from_cols(d * d.x, d * d.y, d * d.z);
        tensor += crate::math::rotate_diagonal(xf.q, mp.inertia) + shift * mp.mass;
    }
    let (moments, axes) = crate::math::symmetric_eigen(tensor);
    Some((
        MassProperties {
            mass,
            inertia: moments.max(Vec3::ZERO),
        },
        Transform::new(center, axes),
    ))
}

/// The box, in the frame of pose `xf`, bounding the world box `bb`.
pub(crate) fn local_aabb(bb: &Aabb, xf: &Transform) -> Aabb {
    let inv = Transform::new(xf.q.conjugate() * -xf.p, xf.q.conjugate());
    transformed_aabb(bb, &inv)
}

/// The world box of the local box `bb` at pose `xf`.
pub(crate) fn transformed_aabb(bb: &Aabb, xf: &Transform) -> Aabb {
    let m = glam::Mat3::from_quat(xf.q);
    let (c, e) = ((bb.min + bb.max) * 0.5, (bb.max - bb.min) * 0.5);
    let abs = glam::Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
    let (c, e) = (xf.transform_point(c), abs * e);
    Aabb {
        min: c - e,
        max: c + e,
    }
}

/// Mass properties of a solid capsule (core half length `h`, radius `r`, along y): a
/// cylinder of length `2h` plus two hemispheres. Each hemisphere (mass `m_h`) has inertia
/// `2/5 m_h r²` about any axis through its flat face's centre; its centroid sits `3r/8`
/// from that face, so about the capsule's centre (parallel axis twice, through the
/// hemisphere's centroid at `h + 3r/8`) its transverse inertia is
/// `m_h (2/5 r² + h² + 3/4 h r)`. The cylinder (mass `m_c`) adds `m_c (r²/4 + (2h)²/12)`
/// transversally and `m_c r²/2` about the axis, where the hemispheres add `2/5 m_h r²` each.
pub fn capsule_mass(h: f32, r: f32, density: f32) -> MassProperties {
    let pi = std::f32::consts::PI;
    let m_c = density * pi * r * r * 2.0 * h;
    // Both hemispheres together: a sphere's mass.
    let m_s = density * (4.0 / 3.0) * pi * r * r * r;
    let r2 = r * r;
    let axial = m_c * 0.5 * r2 + m_s * 0.4 * r2;
    let transverse = m_c * (0.25 * r2 + h * h / 3.0) + m_s * (0.4 * r2 + h * h + 0.75 * h * r);
    MassProperties {
        mass: m_c + m_s,
        inertia: Vec3::new(transverse, axial, transverse),
    }
}

/// Mass properties of a hollow sphere (a shell between `inner_radius` and `radius`).
pub fn hollow_sphere_mass(radius: f32, inner_radius: f32, density: f32) -> MassProperties {
    let (r5, i5) = (radius.powi(5), inner_radius.powi(5));
    let (r3, i3) = (radius.powi(3), inner_radius.powi(3));
    let mass = density * (4.0 / 3.0) * std::f32::consts::PI * (r3 - i3);
    let i = if r3 > i3 {
        0.4 * mass * (r5 - i5) / (r3 - i3)
    } else {
        // Thin-shell limit: 2/3 m r².
        2.0 / 3.0 * mass * radius * radius
    };
    MassProperties {
        mass,
        inertia: Vec3::splat(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_cube_mass() {
        let mp = Shape::Box {
            half_extents: Vec3::splat(0.5),
        }
        .mass_properties(100.0);
        assert!((mp.mass - 100.0).abs() < 1e-4);
        // I = m (a² + b²) / 12 for a unit cube: 100 * 2 / 12.
        assert!((mp.inertia.x - 100.0 * 2.0 / 12.0).abs() < 1e-3);
    }

    /// The capsule's closed form against a Monte Carlo-free reference: numerical
    /// integration over a fine grid in f64 (midpoint rule over the bounding box).
    #[test]
    fn capsule_mass_matches_numerical_integration() {
        let (h, r, rho) = (0.7f64, 0.3f64, 2.0f64);
        let n = 120;
        let (ex, ey) = (r, h + r);
        let (dx, dy) = (2.0 * ex / n as f64, 2.0 * ey / n as f64);
        let (mut m, mut ixx, mut iyy) = (0.0, 0.0, 0.0);
        for i in 0..n {
            let x = -ex + (i as f64 + 0.5) * dx;
            for j in 0..n {
                let y = -ey + (j as f64 + 0.5) * dy;
                for k in 0..n {
                    let z = -ex + (k as f64 + 0.5) * dx;
                    let cy = y.clamp(-h, h);
                    if x * x + (y - cy) * (y - cy) + z * z <= r * r {
                        let dm = rho * dx * dy * dx;
                        m += dm;
                        ixx += dm * (y * y + z * z);
                        iyy += dm * (x * x + z * z);
                    }
                }
            }
        }
        let mp = Shape::Capsule {
            half_height: h as f32,
            radius: r as f32,
        }
        .mass_properties(rho as f32);
        assert!((mp.mass as f64 / m - 1.0).abs() < 2e-3, "{mp:?} {m}");
        assert!(
            (mp.inertia.x as f64 / ixx - 1.0).abs() < 3e-3,
            "{mp:?} {ixx}"
        );
        assert!(
            (mp.inertia.z as f64 / ixx - 1.0).abs() < 3e-3,
            "{mp:?} {ixx}"
        );
        assert!(
            (mp.inertia.y as f64 / iyy - 1.0).abs() < 3e-3,
            "{mp:?} {iyy}"
        );
        // h = 0 is a sphere.
        let s = Shape::Capsule {
            half_height: 0.0,
            radius: 0.5,
        }
        .mass_properties(3.0);
        let b = Shape::Sphere { radius: 0.5 }.mass_properties(3.0);
        assert!((s.mass - b.mass).abs() < 1e-5 && (s.inertia - b.inertia).length() < 1e-5);
    }

    #[test]
    fn capsule_aabb_and_validation() {
        let s = Shape::Capsule {
            half_height: 1.0,
            radius: 0.25,
        };
        let xf = Transform::new(
            Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        );
        let bb = s.aabb(&xf);
        assert!(
            (bb.min - Vec3::new(-0.25, 1.75, 2.75)).length() < 1e-5,
            "{bb:?}"
        );
        assert!(
            (bb.max - Vec3::new(2.25, 2.25, 3.25)).length() < 1e-5,
            "{bb:?}"
        );
        assert_eq!(s.bounding_radius(), 1.25);
        assert_eq!(s.min_extent(), 0.25);
        let bad = |half_height, radius| {
            Shape::Capsule {
                half_height,
                radius,
            }
            .validate()
            .unwrap_err()
            .to_string()
        };
        assert!(bad(-1.0, 1.0).contains("Shape::Capsule::half_height"));
        assert!(bad(f32::NAN, 1.0).contains("Shape::Capsule::half_height"));
        assert!(bad(1.0, 0.0).contains("Shape::Capsule::radius"));
        assert!(bad(1.0, f32::INFINITY).contains("Shape::Capsule::radius"));
        assert!(Shape::Capsule {
            half_height: 0.0,
            radius: 1.0
        }
        .validate()
        .is_ok());
    }

    #[test]
    fn hollow_sphere_tends_to_shell_and_solid() {
        let solid = Shape::Sphere { radius: 1.0 }.mass_properties(1.0);
        let h0 = hollow_sphere_mass(1.0, 0.0, 1.0);
        assert!((solid.inertia.x - h0.inertia.x).abs() < 1e-5);
        let thin = hollow_sphere_mass(1.0, 0.999, 1.0);
        assert!((thin.inertia.x / thin.mass - 2.0 / 3.0).abs() < 1e-2);
    }

    #[test]
    fn rotated_box_aabb_contains_corners() {
        let s = Shape::Box {
            half_extents: Vec3::new(1.0, 0.5, 0.25),
        };
        let xf = Transform::new(
            Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.5, 0.7),
        );
        let bb = s.aabb(&xf);
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -0.25 } else { 0.25 },
            );
            let w = xf.transform_point(c);
            assert!(w.cmpge(bb.min - 1e-5).all() && w.cmple(bb.max + 1e-5).all());
        }
    }
}
