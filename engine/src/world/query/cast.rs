//! Shape casts: sweep a sphere, a capsule, a box or a hull along a translation, without rotation,
//! to its first contact.
//!
//! Candidates are the proxies whose fat boxes the swept bounding box meets; each is first
//! tested cheaply (the path of the cast shape's centre against the fat box grown by the
//! cast shape's half size, a slab test), sorted by that entry fraction, and then swept
//! exactly by conservative advancement ([`time_of_impact`] with no rotation) in that order
//! until the next entry fraction lies beyond the best hit.
//!
//! Conservative advancement stops at a separation of `World::cast_tolerance` (within
//! half of it); the last step then advances by the remaining gap over the approach speed
//! along the normal, which can never pass the true contact (the gap along a fixed axis
//! bounds the distance from below) and lands on it exactly for flat contacts.

use super::ray::ray_aabb;
use super::{check_finite, check_query_shape, QueryFilter, ShapeHit};
use crate::collision::gjk::{shape_distance, triangle_distance, Distance};
use crate::collision::toi::{time_of_impact, time_of_impact_triangle, Sweep, ToiState};
use crate::error::Error;
use crate::math::Aabb;
use crate::math::Transform;
use crate::shape::{local_aabb, Shape};
use crate::world::World;
use glam::Vec3;

impl World {
    /// The separation, in m, at which a shape cast counts as touching: a tenth of
    /// `WorldDef::linear_slop` (at least 10 µm). Scales with the world's length unit.
    fn cast_tolerance(&self) -> f32 {
        (0.1 * self.def.linear_slop).max(1.0e-5)
    }

    /// The first shape kept by `filter` that `shape` (a sphere, a capsule, a box or a hull) touches
    /// when moved from `transform` by `translation` (m) without turning: the fraction of the
    /// translation travelled, the contact point and the hit shape's normal. Ties in
    /// fraction go to the smaller shape id. A cast shape already touching or overlapping a
    /// shape at the start hits it at fraction 0 (see the [module docs](crate::query#solids)).
    ///
    /// The sweep stops within a tolerance of a tenth of `WorldDef::linear_slop` (0.5 mm by
    /// default) and then closes the last gap along the contact normal: the fraction is
    /// exact for flat contacts and otherwise short of the true contact by at most about
    /// that tolerance over `|translation|`.
    ///
    /// Errors: an invalid shape or a plane, a non-finite `transform.p`, a non-finite or zero
    /// `transform.q`, a non-finite or zero `translation` (`InvalidInput` naming the field),
    /// a stale `filter.exclude_body` (`StaleHandle`).
    pub fn cast_shape(
        &self,
        shape: &Shape,
        transform: &Transform,
        translation: Vec3,
        filter: &QueryFilter<'_>,
    ) -> Result<Option<ShapeHit>, Error> {
        let xf = check_query_shape(shape, transform)?;
        check_finite("translation", translation)?;
        if translation == Vec3::ZERO {
            return Err(Error::invalid(
                "translation",
                "must be non-zero (use overlap_shape for a shape at rest)",
            ));
        }
        let filter = self.resolve_filter(filter)?;
        let tol = self.cast_tolerance();

        // Coarse: the centre's path against fat boxes grown by the cast shape's half size.
        let start = shape.aabb(&xf);
        let half = (start.max - start.min) * 0.5;
        let centre = (start.max + start.min) * 0.5;
        let end = Aabb {
            min: start.min + translation,
            max: start.max + translation,
        };
        let swept = Aabb {
            min: start.min.min(end.min),
            max: start.max.max(end.max),
        }
        .expanded(tol);
        let mut candidates: Vec<(f32, u32)> = Vec::new();
        self.broadphase.query_aabb(&swept, true, |slot| {
            let fat = self.broadphase.fat_aabb(slot).expanded(tol);
            let grown = Aabb {
                min: fat.min - half,
                max: fat.max + half,
            };
            if let Some(t) = ray_aabb(centre, translation, 1.0, &grown) {
                candidates.push((t, slot));
            }
        });
        candidates.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));

        let sweep = Sweep {
            p0: xf.p,
            q0: xf.q,
            dp: translation,
            dtheta: Vec3::ZERO,
            local: Transform::IDENTITY,
        };
        // (fraction, slot, point, normal)
        let mut best: Option<(f32, u32, Vec3, Vec3)> = None;
        for &(t_enter, slot) in &candidates {
            let t_max = best.map_or(1.0, |b| b.0);
            if t_enter > t_max {
                break;
            }
            if !self.accepts(&filter, slot) {
                continue;
            }
            let (other, other_xf) = self.shape_pose(slot);
            let Some(hit) = sweep_one(shape, &sweep, other, &other_xf, tol, t_max) else {
                continue;
            };
            let closer = match best {
                None => true,
                Some((t, s, ..)) => hit.0 < t || (hit.0 == t && slot < s),
            };
            if closer {
                best = Some((hit.0, slot, hit.1, hit.2));
            }
        }
        Ok(best.map(|(fraction, slot, point, normal)| ShapeHit {
            shape: self.shape_id_of(slot),
            body: self.body_id_of(slot),
            fraction,
            point,
            normal,
        }))
    }
}

/// The first contact of `shape` moving along `sweep` with the fixed `other` within
/// `[0, t_max]`: (fraction, point on `other`, outward normal of `other`). A mesh or height
/// field is swept triangle by triangle (those whose bounds meet the swept box); ties go to
/// the lower triangle.
fn sweep_one(
    shape: &Shape,
    sweep: &Sweep,
    other: &Shape,
    other_xf: &Transform,
    tol: f32,
    t_max: f32,
) -> Option<(f32, Vec3, Vec3)> {
    if let Some(mesh) = other.triangles() {
        let (a, b) = (shape.aabb(&sweep.at(0.0)), shape.aabb(&sweep.at(t_max)));
        let swept = Aabb {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
        }
        .expanded(tol);
        let mut tris = Vec::new();
        mesh.query_aabb(&local_aabb(&swept, other_xf), |t| tris.push(t));
        tris.sort_unstable();
        let mut best: Option<(f32, Vec3, Vec3)> = None;
        for &t in &tris {
            let tri = mesh
                .triangle(t)
                .vertices
                .map(|v| other_xf.transform_point(v));
            let limit = best.map_or(t_max, |b| b.0);
            let toi = time_of_impact_triangle(shape, sweep, tri, tol, 0.5 * tol, limit);
            let hit = finish(toi.state, toi.t, sweep, limit, |xf| {
                triangle_distance(shape, xf, tri)
            });
            if let Some(h) = hit {
                if best.is_none_or(|b| h.0 < b.0) {
                    best = Some(h);
                }
            }
        }
        return best;
    }
    let fixed = Sweep::fixed(other_xf);
    let toi = time_of_impact(shape, sweep, other, &fixed, tol, 0.5 * tol, t_max);
    finish(toi.state, toi.t, sweep, t_max, |xf| {
        shape_distance(shape, xf, other, other_xf)
    })
}

/// The hit of an advancement that ended in `state` at `t`, with the remaining gap closed
/// along the normal; `distance` gives the distance at a pose of the cast shape.
fn finish(
    state: ToiState,
    t: f32,
    sweep: &Sweep,
    t_max: f32,
    distance: impl Fn(&Transform) -> Option<Distance>,
) -> Option<(f32, Vec3, Vec3)> {
    match state {
        ToiState::Separated => None,
        ToiState::Touching => Some((0.0, sweep.p0, -sweep.dp.normalize())),
        ToiState::Hit => {
            let d = distance(&sweep.at(t))?;
            if d.overlap {
                // Only rounding gets here (advancement is conservative): keep the time.
                return Some((t, d.point_b, -sweep.dp.normalize()));
            }
            // Close the remaining gap along the normal (from the cast shape to `other`).
            let approach = d.normal.dot(sweep.dp);
            let mut t = t;
            if approach > 0.0 && d.distance > 0.0 {
                t = (t + d.distance / approach).min(t_max);
            }
            Some((t, d.point_b, -d.normal))
        }
    }
}
