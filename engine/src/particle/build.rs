//! Cloth and soft bodies: their definitions, and the particles and springs they become.

use super::{check_point, check_positive, check_range, MAX_COEFFICIENT};
use crate::error::Error;
use crate::id::{BodyId, ParticleId, SoftBodyId, SpringId};
use crate::math::{is_finite3, MAX_LENGTH};
use crate::shape::Filter;
use glam::{Quat, Vec3};

/// Where a cloth is held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClothPin {
    /// Particle `(i, j)` (column `i` along `axis_u`, row `j` along `axis_v`) stays where it
    /// is (a pinned particle).
    Fixed {
        /// Column.
        i: u32,
        /// Row.
        j: u32,
    },
    /// Particle `(i, j)` is held by a rigid rod of zero length to the point of `body` where
    /// the particle starts: it follows the body, and the body carries its load.
    Body {
        /// Column.
        i: u32,
        /// Row.
        j: u32,
        /// The body.
        body: BodyId,
    },
}

/// A rectangular cloth: `nx × ny` particles `spacing` apart, from `origin` along `axis_u`
/// (columns) and `axis_v` (rows), joined by stretch springs (to the next particle along
/// each axis), shear springs (across each cell's diagonals) and bend springs (to the
/// particle after next along each axis).
#[derive(Clone, Debug, PartialEq)]
pub struct ClothDef {
    /// Particle `(0, 0)`, in m.
    pub origin: Vec3,
    /// The direction of the columns (unit). Default: +x.
    pub axis_u: Vec3,
    /// The direction of the rows (unit, perpendicular to `axis_u`). Default: +z.
    pub axis_v: Vec3,
    /// Particles along `axis_u` (at least 2). Default: 16.
    pub nx: u32,
    /// Particles along `axis_v` (at least 2). Default: 16.
    pub ny: u32,
    /// Distance between neighbouring particles, in m. Default: 0.05.
    pub spacing: f32,
    /// The whole cloth's mass, in kg (shared equally among the particles). Default: 0.5.
    pub mass: f32,
    /// Compliance of the stretch springs, in m/N. Default: 0.
    pub stretch_compliance: f32,
    /// Compliance of the shear springs, in m/N. Default: 1e-4.
    pub shear_compliance: f32,
    /// Compliance of the bend springs, in m/N. Default: 1e-2.
    pub bend_compliance: f32,
    /// Damping of every spring, in N·s/m. Default: 0.
    pub damping: f32,
    /// How far the cloth keeps from shapes: the particles' radius, in m. Default: 0.01.
    pub thickness: f32,
    /// Friction against shapes. Default: 0.5.
    pub friction: f32,
    /// Restitution against shapes. Default: 0.
    pub restitution: f32,
    /// Which shapes the cloth collides with.
    pub filter: Filter,
    /// Each particle's linear drag, in N·s/m. Default: 0.
    pub linear_drag: f32,
    /// Each particle's quadratic drag, in N·s²/m². Default: 0.
    pub quadratic_drag: f32,
    /// Initial velocity of every particle, in m/s.
    pub velocity: Vec3,
    /// The pins.
    pub pins: Vec<ClothPin>,
}

impl Default for ClothDef {
    fn default() -> Self {
        Self {
            origin: Vec3::ZERO,
            axis_u: Vec3::X,
            axis_v: Vec3::Z,
            nx: 16,
            ny: 16,
            spacing: 0.05,
            mass: 0.5,
            stretch_compliance: 0.0,
            shear_compliance: 1.0e-4,
            bend_compliance: 1.0e-2,
            damping: 0.0,
            thickness: 0.01,
            friction: 0.5,
            restitution: 0.0,
            filter: Filter::default(),
            linear_drag: 0.0,
            quadratic_drag: 0.0,
            velocity: Vec3::ZERO,
            pins: Vec::new(),
        }
    }
}

/// The most particles a cloth or soft body may have.
const MAX_PARTICLES: u64 = 1 << 24;

impl ClothDef {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        check_point("ClothDef::origin", self.origin)?;
        for (field, axis) in [
            ("ClothDef::axis_u", self.axis_u),
            ("ClothDef::axis_v", self.axis_v),
        ] {
            if !is_finite3(axis) || (axis.length() - 1.0).abs() > 1.0e-3 {
                return Err(Error::invalid(field, "must be a unit vector"));
            }
        }
        if self.axis_u.dot(self.axis_v).abs() > 1.0e-3 {
            return Err(Error::invalid(
                "ClothDef::axis_v",
                "must be perpendicular to axis_u",
            ));
        }
        if self.nx < 2 || self.ny < 2 || self.nx as u64 * self.ny as u64 > MAX_PARTICLES {
            return Err(Error::invalid(
                "ClothDef::nx",
                "nx and ny must be at least 2, nx * ny at most 2^24",
            ));
        }
        check_positive("ClothDef::spacing", self.spacing, MAX_LENGTH)?;
        if (self.nx.max(self.ny) as f32 * self.spacing) > MAX_LENGTH {
            return Err(Error::invalid(
                "ClothDef::spacing",
                "makes a cloth wider than 1e6 m",
            ));
        }
        let (u, v) = (
            self.spacing * (self.nx - 1) as f32 * self.axis_u,
            self.spacing * (self.ny - 1) as f32 * self.axis_v,
        );
        for corner in [self.origin + u, self.origin + v, self.origin + u + v] {
            check_point("ClothDef::origin", corner)?;
        }
        check_positive("ClothDef::mass", self.mass, 1.0e30)?;
        let each = self.mass / (self.nx as f32 * self.ny as f32);
        if !(each > 0.0 && (1.0 / each).is_finite()) {
            return Err(Error::invalid(
                "ClothDef::mass",
                "is too small to share among the particles",
            ));
        }
        check_range(
            "ClothDef::stretch_compliance",
            self.stretch_compliance,
            MAX_COEFFICIENT,
        )?;
        check_range(
            "ClothDef::shear_compliance",
            self.shear_compliance,
            MAX_COEFFICIENT,
        )?;
        check_range(
            "ClothDef::bend_compliance",
            self.bend_compliance,
            MAX_COEFFICIENT,
        )?;
        check_range("ClothDef::damping", self.damping, MAX_COEFFICIENT)?;
        check_positive("ClothDef::thickness", self.thickness, MAX_LENGTH)?;
        check_range("ClothDef::friction", self.friction, MAX_COEFFICIENT)?;
        check_range("ClothDef::restitution", self.restitution, 1.0)?;
        check_range("ClothDef::linear_drag", self.linear_drag, MAX_COEFFICIENT)?;
        check_range(
            "ClothDef::quadratic_drag",
            self.quadratic_drag,
            MAX_COEFFICIENT,
        )?;
        if !is_finite3(self.velocity) {
            return Err(Error::invalid("ClothDef::velocity", "must be finite"));
        }
        for pin in &self.pins {
            let (ClothPin::Fixed { i, j } | ClothPin::Body { i, j, .. }) = *pin;
            if i >= self.nx || j >= self.ny {
                return Err(Error::invalid(
                    "ClothDef::pins",
                    "names a particle outside the grid",
                ));
            }
        }
        Ok(())
    }

    /// The particle springs: (a, b, compliance) by grid index `j * nx + i`.
    pub(crate) fn springs(&self) -> Vec<(u32, u32, f32)> {
        let (nx, ny) = (self.nx, self.ny);
        let at = |i: u32, j: u32| j * nx + i;
        let mut out = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                if i + 1 < nx {
                    out.push((at(i, j), at(i + 1, j), self.stretch_compliance));
                }
                if j + 1 < ny {
                    out.push((at(i, j), at(i, j + 1), self.stretch_compliance));
                }
                if i + 1 < nx && j + 1 < ny {
                    out.push((at(i, j), at(i + 1, j + 1), self.shear_compliance));
                    out.push((at(i + 1, j), at(i, j + 1), self.shear_compliance));
                }
                if i + 2 < nx {
                    out.push((at(i, j), at(i + 2, j), self.bend_compliance));
                }
                if j + 2 < ny {
                    out.push((at(i, j), at(i, j + 2), self.bend_compliance));
                }
            }
        }
        out
    }
}

/// A cloth the world made: its particles in rows (`j * nx + i`) and its springs.
#[derive(Clone, Debug, PartialEq)]
pub struct Cloth {
    /// Particles along `axis_u`.
    pub nx: u32,
    /// Particles along `axis_v`.
    pub ny: u32,
    /// The particles, row by row: `(i, j)` is `particles[j * nx + i]`.
    pub particles: Vec<ParticleId>,
    /// The springs: stretch, shear and bend, then the body pins.
    pub springs: Vec<SpringId>,
}

impl Cloth {
    /// Particle `(i, j)`.
    pub fn particle(&self, i: u32, j: u32) -> ParticleId {
        self.particles[(j * self.nx + i) as usize]
    }
}

/// A soft body: particles at the vertices of a mesh, springs along its edges, volume
/// constraints on its tetrahedra and, for a closed surface, the pressure of a gas inside.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftBodyDef {
    /// Where the mesh's origin goes, in m.
    pub position: Vec3,
    /// The mesh's rotation.
    pub rotation: Quat,
    /// Initial velocity of every particle, in m/s.
    pub velocity: Vec3,
    /// The vertices, in the mesh's frame, in m.
    pub vertices: Vec<Vec3>,
    /// The surface triangles, wound counter-clockwise seen from outside. Required for a
    /// pressure (then closed: every edge shared by exactly two triangles).
    pub triangles: Vec<[u32; 3]>,
    /// Tetrahedra, each with a volume constraint.
    pub tetrahedra: Vec<[u32; 4]>,
    /// The whole body's mass, in kg (shared equally among the vertices). Default: 1.
    pub mass: f32,
    /// Compliance of the edge springs, in m/N. Default: 1e-4.
    pub edge_compliance: f32,
    /// Compliance of the tetrahedra's volumes, in m⁶/J (a volume change `ΔV` stores
    /// `ΔV² / 2α`). Default: 0.
    pub volume_compliance: f32,
    /// Damping of the edge springs, in N·s/m. Default: 0.
    pub damping: f32,
    /// `n R T` of the gas inside a closed surface, in J: the pressure is `nRT / V`.
    /// Default: 0 (no gas).
    pub pressure: f32,
    /// The particles' radius, in m. Default: 0.02.
    pub radius: f32,
    /// Friction against shapes. Default: 0.5.
    pub friction: f32,
    /// Restitution against shapes. Default: 0.
    pub restitution: f32,
    /// Which shapes the particles collide with.
    pub filter: Filter,
    /// Each particle's linear drag, in N·s/m. Default: 0.
    pub linear_drag: f32,
}

impl Default for SoftBodyDef {
    fn default() -> Self {
        Self {
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            vertices: Vec::new(),
            triangles: Vec::new(),
            tetrahedra: Vec::new(),
            mass: 1.0,
            edge_compliance: 1.0e-4,
            volume_compliance: 0.0,
            damping: 0.0,
            pressure: 0.0,
            radius: 0.02,
            friction: 0.5,
            restitution: 0.0,
            filter: Filter::default(),
            linear_drag: 0.0,
        }
    }
}

impl SoftBodyDef {
    /// A sphere of `radius`: an icosahedron subdivided `subdivisions` times (0..=5),
    /// projected onto the sphere, with a gas at `pressure` (nRT, J). 12, 42, 162, 642...
    /// vertices. Its skin does not stretch (edge compliance 0): the gas keeps it round.
    /// (A compliant skin under pressure stretches by more than its compliance says at few
    /// substeps: see `docs/decisions.md`, "Particles".)
    pub fn sphere(radius: f32, subdivisions: u32, pressure: f32) -> Self {
        let t = (1.0 + 5.0f32.sqrt()) / 2.0;
        let mut vertices: Vec<Vec3> = [
            (-1.0, t, 0.0),
            (1.0, t, 0.0),
            (-1.0, -t, 0.0),
            (1.0, -t, 0.0),
            (0.0, -1.0, t),
            (0.0, 1.0, t),
            (0.0, -1.0, -t),
            (0.0, 1.0, -t),
            (t, 0.0, -1.0),
            (t, 0.0, 1.0),
            (-t, 0.0, -1.0),
            (-t, 0.0, 1.0),
        ]
        .iter()
        .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
        .collect();
        let mut triangles: Vec<[u32; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        for _ in 0..subdivisions.min(5) {
            let mut mid = std::collections::BTreeMap::new();
            let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<Vec3>| {
                *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    let p = (vertices[a as usize] + vertices[b as usize]).normalize();
                    vertices.push(p);
                    vertices.len() as u32 - 1
                })
            };
            let mut next = Vec::with_capacity(triangles.len() * 4);
            for [a, b, c] in triangles {
                let ab = midpoint(a, b, &mut vertices);
                let bc = midpoint(b, c, &mut vertices);
                let ca = midpoint(c, a, &mut vertices);
                next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
            }
            triangles = next;
        }
        Self {
            vertices: vertices.into_iter().map(|v| v * radius).collect(),
            triangles,
            pressure,
            edge_compliance: 0.0,
            ..Default::default()
        }
    }

    /// A box of `half_extents` cut into `cells` cubes along each axis, each cube into five
    /// tetrahedra (alternating so that neighbours share their faces' diagonals), with its
    /// surface.
    pub fn cuboid(half_extents: Vec3, cells: [u32; 3]) -> Self {
        let [nx, ny, nz] = cells.map(|c| c.clamp(1, 64));
        let at = |i: u32, j: u32, k: u32| (k * (ny + 1) + j) * (nx + 1) + i;
        let size = 2.0 * half_extents;
        let mut vertices = Vec::new();
        for k in 0..=nz {
            for j in 0..=ny {
                for i in 0..=nx {
                    let f = Vec3::new(
                        i as f32 / nx as f32,
                        j as f32 / ny as f32,
                        k as f32 / nz as f32,
                    );
                    vertices.push(f * size - half_extents);
                }
            }
        }
        let mut tetrahedra = Vec::new();
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let c = |di, dj, dk| at(i + di, j + dj, k + dk);
                    let corners = [
                        c(0, 0, 0),
                        c(1, 0, 0),
                        c(1, 1, 0),
                        c(0, 1, 0),
                        c(0, 0, 1),
                        c(1, 0, 1),
                        c(1, 1, 1),
                        c(0, 1, 1),
                    ];
                    let [p0, p1, p2, p3, p4, p5, p6, p7] = corners;
                    if (i + j + k) % 2 == 0 {
                        tetrahedra.extend([
                            [p0, p1, p3, p4],
                            [p1, p2, p3, p6],
                            [p1, p4, p5, p6],
                            [p3, p4, p6, p7],
                            [p1, p3, p4, p6],
                        ]);
                    } else {
                        tetrahedra.extend([
                            [p0, p1, p2, p5],
                            [p0, p2, p3, p7],
                            [p0, p4, p5, p7],
                            [p2, p5, p6, p7],
                            [p0, p2, p5, p7],
                        ]);
                    }
                }
            }
        }
        let mut triangles = Vec::new();
        // Each face of the box as a grid of quads, wound outward.
        let mut face = |n: u32, m: u32, corner: &dyn Fn(u32, u32) -> u32, flip: bool| {
            for b in 0..m {
                for a in 0..n {
                    let (q0, q1, q2, q3) = (
                        corner(a, b),
                        corner(a + 1, b),
                        corner(a + 1, b + 1),
                        corner(a, b + 1),
                    );
                    if flip {
                        triangles.extend([[q0, q2, q1], [q0, q3, q2]]);
                    } else {
                        triangles.extend([[q0, q1, q2], [q0, q2, q3]]);
                    }
                }
            }
        };
        face(ny, nz, &|a, b| at(0, a, b), true);
        face(ny, nz, &|a, b| at(nx, a, b), false);
        face(nz, nx, &|a, b| at(b, 0, a), true);
        face(nz, nx, &|a, b| at(b, ny, a), false);
        face(nx, ny, &|a, b| at(a, b, 0), true);
        face(nx, ny, &|a, b| at(a, b, nz), false);
        Self {
            vertices,
            triangles,
            tetrahedra,
            ..Default::default()
        }
    }

    /// Checks every field and the mesh; the error names the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        check_point("SoftBodyDef::position", self.position)?;
        if !self.rotation.is_finite() || (self.rotation.length() - 1.0).abs() > 1.0e-3 {
            return Err(Error::invalid(
                "SoftBodyDef::rotation",
                "must be a unit quaternion",
            ));
        }
        if !is_finite3(self.velocity) {
            return Err(Error::invalid("SoftBodyDef::velocity", "must be finite"));
        }
        let n = self.vertices.len();
        if n < 2 || n as u64 > MAX_PARTICLES {
            return Err(Error::invalid(
                "SoftBodyDef::vertices",
                "must number 2..=2^24",
            ));
        }
        for &v in &self.vertices {
            check_point("SoftBodyDef::vertices", self.rotation * v + self.position)?;
        }
        if self.triangles.is_empty() && self.tetrahedra.is_empty() {
            return Err(Error::invalid(
                "SoftBodyDef::triangles",
                "a soft body needs triangles or tetrahedra",
            ));
        }
        let x = |i: u32| self.vertices[i as usize];
        for t in &self.triangles {
            if t.iter().any(|&i| i as usize >= n) {
                return Err(Error::invalid(
                    "SoftBodyDef::triangles",
                    "index a vertex that does not exist",
                ));
            }
            if (x(t[1]) - x(t[0]))
                .cross(x(t[2]) - x(t[0]))
                .length_squared()
                <= 0.0
            {
                return Err(Error::invalid(
                    "SoftBodyDef::triangles",
                    "holds a degenerate triangle",
                ));
            }
        }
        for t in &self.tetrahedra {
            if t.iter().any(|&i| i as usize >= n) {
                return Err(Error::invalid(
                    "SoftBodyDef::tetrahedra",
                    "index a vertex that does not exist",
                ));
            }
            let (e1, e2, e3) = (x(t[1]) - x(t[0]), x(t[2]) - x(t[0]), x(t[3]) - x(t[0]));
            if e1.dot(e2.cross(e3)) == 0.0 {
                return Err(Error::invalid(
                    "SoftBodyDef::tetrahedra",
                    "holds a flat tetrahedron",
                ));
            }
        }
        check_positive("SoftBodyDef::mass", self.mass, 1.0e30)?;
        if !(1.0 / (self.mass / n as f32)).is_finite() {
            return Err(Error::invalid(
                "SoftBodyDef::mass",
                "is too small to share among the vertices",
            ));
        }
        check_range(
            "SoftBodyDef::edge_compliance",
            self.edge_compliance,
            MAX_COEFFICIENT,
        )?;
        check_range(
            "SoftBodyDef::volume_compliance",
            self.volume_compliance,
            MAX_COEFFICIENT,
        )?;
        check_range("SoftBodyDef::damping", self.damping, MAX_COEFFICIENT)?;
        check_range("SoftBodyDef::pressure", self.pressure, 1.0e12)?;
        if self.pressure > 0.0 {
            if !self.is_closed() {
                return Err(Error::invalid(
                    "SoftBodyDef::triangles",
                    "must be closed (every edge in two triangles) for a pressure",
                ));
            }
            if self.surface_volume() <= 0.0 {
                return Err(Error::invalid(
                    "SoftBodyDef::triangles",
                    "must be wound counter-clockwise seen from outside (the enclosed volume is not positive)",
                ));
            }
        }
        check_positive("SoftBodyDef::radius", self.radius, MAX_LENGTH)?;
        check_range("SoftBodyDef::friction", self.friction, MAX_COEFFICIENT)?;
        check_range("SoftBodyDef::restitution", self.restitution, 1.0)?;
        check_range(
            "SoftBodyDef::linear_drag",
            self.linear_drag,
            MAX_COEFFICIENT,
        )?;
        Ok(())
    }

    /// Whether every directed edge of the surface has its reverse in another triangle.
    fn is_closed(&self) -> bool {
        let mut edges: Vec<(u32, u32)> = self
            .triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .collect();
        edges.sort_unstable();
        if edges.windows(2).any(|w| w[0] == w[1]) {
            return false;
        }
        edges
            .iter()
            .all(|&(a, b)| edges.binary_search(&(b, a)).is_ok())
    }

    /// The volume the surface encloses, in the mesh frame.
    fn surface_volume(&self) -> f32 {
        let x = |i: u32| self.vertices[i as usize];
        self.triangles
            .iter()
            .map(|t| x(t[0]).dot(x(t[1]).cross(x(t[2]))))
            .sum::<f32>()
            / 6.0
    }

    /// The unique edges of the triangles and tetrahedra, sorted.
    pub(crate) fn edges(&self) -> Vec<(u32, u32)> {
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut add = |a: u32, b: u32| edges.push((a.min(b), a.max(b)));
        for t in &self.triangles {
            add(t[0], t[1]);
            add(t[1], t[2]);
            add(t[2], t[0]);
        }
        for t in &self.tetrahedra {
            for (a, b) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
                add(t[a], t[b]);
            }
        }
        edges.sort_unstable();
        edges.dedup();
        edges
    }
}

/// A soft body the world made.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftBody {
    /// Its id (for [`World::soft_body_volume`](crate::World::soft_body_volume) and
    /// [`World::remove_soft_body`](crate::World::remove_soft_body)).
    pub id: SoftBodyId,
    /// Its particles, one per vertex, in vertex order.
    pub particles: Vec<ParticleId>,
    /// Its edge springs.
    pub springs: Vec<SpringId>,
}

/// The volume a closed surface of particles encloses, in m³: `Σ x₀·(x₁ × x₂) / 6` over
/// its triangles, in f64 (in f32 the products of far particles overflow).
pub(crate) fn surface_volume(surface: &[[u32; 3]], x: &[Vec3]) -> f64 {
    let p = |k: u32| x[k as usize].as_dvec3();
    surface
        .iter()
        .map(|t| p(t[0]).dot(p(t[1]).cross(p(t[2]))))
        .sum::<f64>()
        / 6.0
}

/// The signed volumes of tetrahedra of particles, summed in f64.
pub(crate) fn tetrahedra_volume<'a>(tets: impl Iterator<Item = &'a [u32; 4]>, x: &[Vec3]) -> f64 {
    let p = |k: u32| x[k as usize].as_dvec3();
    tets.map(|t| {
        let (a, b, c, d) = (p(t[0]), p(t[1]), p(t[2]), p(t[3]));
        (b - a).dot((c - a).cross(d - a))
    })
    .sum::<f64>()
        / 6.0
}
