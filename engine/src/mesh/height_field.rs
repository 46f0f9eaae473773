//! Height fields: a grid of heights whose triangles are made on the fly.

use super::{ray_triangle, shared_edge_active, Triangle, FLAT_ANGLE};
use crate::error::Error;
use crate::math::Aabb;
use crate::math::{is_finite3, MAX_LENGTH};
use glam::Vec3;

/// A static height field: `rows × cols` heights over a grid in the local x/z plane.
/// Sample `(r, c)` sits at `(c · scale.x, heights[r · cols + c] · scale.y, r · scale.z)`;
/// each cell is split into two triangles along the diagonal from `(r, c)` to
/// `(r + 1, c + 1)`, facing +y. Cell `(r, c)` holds triangles `2 (r (cols − 1) + c)` and
/// the next one. Triangles are made on the fly from the heights, with active-edge flags
/// computed once from the neighbouring heights, so the field costs about 5 bytes a sample;
/// queries walk the grid cells instead of a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightField {
    rows: usize,
    cols: usize,
    heights: Vec<f32>,
    scale: Vec3,
    bounds: Aabb,
    /// Per cell, the active-edge bits of its two triangles (bits 0–2 and 3–5).
    active: Vec<u8>,
}

impl HeightField {
    /// Builds a height field. Errors name the field: fewer than two rows or columns, a
    /// height count other than `rows × cols` (or over 2²⁹), non-finite heights, a scale
    /// that is not finite and positive on every axis, a scaled field reaching beyond
    /// [`MAX_LENGTH`].
    ///
    /// # Example
    /// ```
    /// use impetus::{BodyDef, BodyType, HeightField, ShapeDef, Vec3, World, WorldDef};
    /// use std::sync::Arc;
    ///
    /// // 9 × 9 samples 0.5 m apart: a 4 m square, gently waved, its corner at the origin.
    /// let heights = (0..81).map(|k| 0.1 * (k % 9) as f32).collect();
    /// let field = Arc::new(HeightField::new(9, 9, heights, Vec3::new(0.5, 1.0, 0.5))?);
    /// let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
    /// let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
    /// world.add_shape(ground, &ShapeDef::height_field(field))?;
    /// let ball = world.create_body(&BodyDef { position: Vec3::new(2.0, 2.0, 2.0), ..Default::default() })?;
    /// world.add_shape(ball, &ShapeDef::sphere(0.25))?;
    /// for _ in 0..60 {
    ///     world.step(1.0 / 60.0)?;
    /// }
    /// // It landed on the slope (height 0.4 m under its start) and rolls down towards -x.
    /// let p = world.body_position(ball)?;
    /// assert!(p.y > 0.3 && p.y < 1.0 && p.x < 2.0, "{p}");
    /// # Ok::<(), impetus::Error>(())
    /// ```
    pub fn new(
        rows: usize,
        cols: usize,
        heights: Vec<f32>,
        scale: Vec3,
    ) -> Result<HeightField, Error> {
        if rows < 2 {
            return Err(Error::invalid("HeightField::rows", "must be at least 2"));
        }
        if cols < 2 {
            return Err(Error::invalid("HeightField::cols", "must be at least 2"));
        }
        if rows.checked_mul(cols) != Some(heights.len()) {
            return Err(Error::invalid(
                "HeightField::heights",
                "must hold rows × cols values",
            ));
        }
        if heights.len() > (1 << 29) {
            return Err(Error::invalid(
                "HeightField::heights",
                "at most 2^29 values",
            ));
        }
        if !heights.iter().all(|h| h.is_finite()) {
            return Err(Error::invalid("HeightField::heights", "must be finite"));
        }
        if !is_finite3(scale) || scale.min_element() <= 0.0 {
            return Err(Error::invalid(
                "HeightField::scale",
                "each must be finite and positive",
            ));
        }
        let (lo, hi) = heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        let bounds = Aabb {
            min: Vec3::new(0.0, lo * scale.y, 0.0),
            max: Vec3::new(
                (cols - 1) as f32 * scale.x,
                hi * scale.y,
                (rows - 1) as f32 * scale.z,
            ),
        };
        if bounds.min.abs().max(bounds.max.abs()).max_element() > MAX_LENGTH {
            return Err(Error::invalid(
                "HeightField::heights",
                "scaled by HeightField::scale, the field must lie within ±1e6 m (MAX_LENGTH)",
            ));
        }
        let mut field = HeightField {
            rows,
            cols,
            heights,
            scale,
            bounds,
            active: Vec::new(),
        };
        // The active-edge flags, once: 1 byte a cell (3 bits a triangle) rather than the
        // neighbours' normals at every use (6% of mesh_pile's step when made on the fly).
        field.active = (0..(rows - 1) * (cols - 1))
            .map(|cell| {
                let (r, c) = (cell / (cols - 1), cell % (cols - 1));
                field.edge_flags(r, c, 0) | field.edge_flags(r, c, 1) << 3
            })
            .collect();
        Ok(field)
    }

    /// Rows (along local z).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns (along local x).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The raw heights, row by row (multiply by `scale.y` for metres).
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// The grid spacing (x, z) and height scale (y).
    pub fn scale(&self) -> Vec3 {
        self.scale
    }

    /// The bounds of the field, in m (local frame).
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// The number of triangles: two per cell.
    pub fn triangle_count(&self) -> usize {
        2 * (self.rows - 1) * (self.cols - 1)
    }

    /// Sample `(r, c)` in m (local frame).
    #[inline]
    fn vertex(&self, r: usize, c: usize) -> Vec3 {
        Vec3::new(c as f32, self.heights[r * self.cols + c], r as f32) * self.scale
    }

    /// The corners of triangle `k` (0 or 1) of cell `(r, c)`, counter-clockwise from +y.
    #[inline]
    fn corners(&self, r: usize, c: usize, k: usize) -> [Vec3; 3] {
        let v = |r, c| self.vertex(r, c);
        if k == 0 {
            [v(r, c), v(r + 1, c + 1), v(r, c + 1)]
        } else {
            [v(r, c), v(r + 1, c), v(r + 1, c + 1)]
        }
    }

    /// The triangle across edge `e` of triangle `k` of cell `(r, c)`, if any, as (cell row,
    /// cell column, k).
    fn neighbour(&self, r: usize, c: usize, k: usize, e: usize) -> Option<(usize, usize, usize)> {
        let (last_r, last_c) = (self.rows - 2, self.cols - 2);
        match (k, e) {
            (0, 0) | (1, 2) => Some((r, c, 1 - k)),
            (0, 1) => (c < last_c).then(|| (r, c + 1, 1)),
            (0, _) => (r > 0).then(|| (r - 1, c, 1)),
            (1, 0) => (c > 0).then(|| (r, c - 1, 0)),
            _ => (r < last_r).then(|| (r + 1, c, 0)),
        }
    }

    /// Triangle `i` with its active-edge flags (from the neighbouring triangles, as for a
    /// [`TriMesh`](super::TriMesh)). Panics if `i` is out of range.
    pub fn triangle(&self, i: u32) -> Triangle {
        let i = i as usize;
        let (cell, k) = (i / 2, i % 2);
        let (r, c) = (cell / (self.cols - 1), cell % (self.cols - 1));
        Triangle {
            vertices: self.corners(r, c, k),
            active_edges: (self.active[cell] >> (3 * k)) & 0b111,
        }
    }

    /// The active-edge bits of triangle `k` of cell `(r, c)`, from its neighbours.
    fn edge_flags(&self, r: usize, c: usize, k: usize) -> u8 {
        let v = self.corners(r, c, k);
        let n1 = (v[1] - v[0]).cross(v[2] - v[0]).normalize_or_zero();
        let cos_flat = FLAT_ANGLE.cos();
        let mut active = 0b111u8;
        for e in 0..3 {
            let Some((r2, c2, k2)) = self.neighbour(r, c, k, e) else {
                continue; // the rim
            };
            let w = self.corners(r2, c2, k2);
            let n2 = (w[1] - w[0]).cross(w[2] - w[0]).normalize_or_zero();
            // The neighbour's corner off the shared edge.
            let (a, b) = (v[e], v[(e + 1) % 3]);
            let opp2 = *w.iter().find(|&&x| x != a && x != b).unwrap_or(&w[0]);
            if !shared_edge_active(n1, n2, a, v[(e + 2) % 3], opp2, cos_flat) {
                active &= !(1 << e);
            }
        }
        active
    }

    /// The range of cells (inclusive) whose x (or z) span meets `[lo, hi]`, if any.
    fn cell_range(lo: f32, hi: f32, spacing: f32, cells: usize) -> Option<(usize, usize)> {
        let (a, b) = ((lo / spacing).floor(), (hi / spacing).floor());
        if !(b >= 0.0 && a <= (cells - 1) as f32) {
            return None;
        }
        Some((a.max(0.0) as usize, (b as usize).min(cells - 1)))
    }

    /// Calls `f` with every triangle whose bounds overlap `aabb` (local frame), in
    /// ascending index order.
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32)) {
        if !self.bounds.overlaps(aabb) {
            return;
        }
        let (cols, rows) = (self.cols - 1, self.rows - 1);
        let Some((c0, c1)) = Self::cell_range(aabb.min.x, aabb.max.x, self.scale.x, cols) else {
            return;
        };
        let Some((r0, r1)) = Self::cell_range(aabb.min.z, aabb.max.z, self.scale.z, rows) else {
            return;
        };
        for r in r0..=r1 {
            for c in c0..=c1 {
                for k in 0..2 {
                    let [a, b, d] = self.corners(r, c, k);
                    let bb = Aabb {
                        min: a.min(b).min(d),
                        max: a.max(b).max(d),
                    };
                    if bb.overlaps(aabb) {
                        f((2 * (r * cols + c) + k) as u32);
                    }
                }
            }
        }
    }

    /// The nearest hit of the ray `origin + t dir` (local frame, `dir` unit) with `t` in
    /// `[0, max_t]`, either side: `(t, triangle, unit normal facing the ray)`. Walks the
    /// cells under the ray in order (a 2D DDA) and stops at the first cell with a hit.
    pub fn ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<(f32, u32, Vec3)> {
        let inv = Vec3::ONE / dir;
        let bb = self.bounds;
        let t1 = (bb.min - origin) * inv;
        let t2 = (bb.max - origin) * inv;
        let (lo, hi) = (t1.min(t2), t1.max(t2));
        let enter = lo.x.max(lo.y).max(lo.z).max(0.0);
        let exit = hi.x.min(hi.y).min(hi.z).min(max_t);
        if enter > exit {
            return None;
        }
        let (cols, rows) = (self.cols - 1, self.rows - 1);
        let (sx, sz) = (self.scale.x, self.scale.z);
        let p = origin + dir * enter;
        let mut c = ((p.x / sx).floor().max(0.0) as usize).min(cols - 1);
        let mut r = ((p.z / sz).floor().max(0.0) as usize).min(rows - 1);
        // Parameter of the next cell boundary along x and z, and the step between them.
        let next = |cell: usize, o: f32, d: f32, s: f32| {
            if d > 0.0 {
                ((cell + 1) as f32 * s - o) / d
            } else if d < 0.0 {
                (cell as f32 * s - o) / d
            } else {
                f32::INFINITY
            }
        };
        let mut tx = next(c, origin.x, dir.x, sx);
        let mut tz = next(r, origin.z, dir.z, sz);
        let (dx, dz) = ((sx / dir.x).abs(), (sz / dir.z).abs());
        loop {
            let mut best: Option<(f32, u32, Vec3)> = None;
            for k in 0..2 {
                let tri = Triangle {
                    vertices: self.corners(r, c, k),
                    active_edges: 0,
                };
                if let Some((t, n)) = ray_triangle(origin, dir, &tri, max_t) {
                    let i = (2 * (r * cols + c) + k) as u32;
                    if best.is_none_or(|b| t < b.0) {
                        best = Some((t, i, n));
                    }
                }
            }
            if best.is_some() {
                return best;
            }
            let t_next = tx.min(tz);
            if t_next > exit {
                return None;
            }
            if tx <= tz {
                if dir.x > 0.0 && c + 1 < cols {
                    c += 1;
                } else if dir.x < 0.0 && c > 0 {
                    c -= 1;
                } else {
                    return None;
                }
                tx += dx;
            } else {
                if dir.z > 0.0 && r + 1 < rows {
                    r += 1;
                } else if dir.z < 0.0 && r > 0 {
                    r -= 1;
                } else {
                    return None;
                }
                tz += dz;
            }
        }
    }
}

/// A height field in an image: its heights, bounds and active-edge flags as built, checked
/// on reading (the grid's size against its heights and flags, finite numbers).
impl crate::codec::Field for HeightField {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&(self.rows, self.cols));
        w.put(&self.heights);
        w.put(&(self.scale, self.bounds));
        w.put(&self.active);
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let (rows, cols): (usize, usize) = r.get()?;
        let heights: Vec<f32> = r.get()?;
        let (scale, bounds): (Vec3, Aabb) = r.get()?;
        let active: Vec<u8> = r.get()?;
        if rows < 2
            || cols < 2
            || rows.checked_mul(cols) != Some(heights.len())
            || heights.len() > 1 << 29
            || active.len() != (rows - 1) * (cols - 1)
        {
            return Err(r.error("holds a height field whose grid does not fit its heights"));
        }
        if !heights.iter().all(|h| h.is_finite())
            || !is_finite3(scale)
            || scale.min_element() <= 0.0
            || !is_finite3(bounds.min)
            || !is_finite3(bounds.max)
        {
            return Err(r.error("holds a height field with a number that is not finite"));
        }
        Ok(HeightField {
            rows,
            cols,
            heights,
            scale,
            bounds,
            active,
        })
    }
}
