//! Ray casts: exact ray tests per shape kind and the broadphase walk along the ray.

use super::{check_finite, Filter, QueryFilter, RayHit};
use crate::error::Error;
use crate::math::Aabb;
use crate::math::Transform;
use crate::shape::Shape;
use crate::world::World;
use glam::Vec3;

/// A validated ray: origin, unit direction, length.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ray {
    pub origin: Vec3,
    pub dir: Vec3,
    pub max: f32,
}

impl Ray {
    fn new(origin: Vec3, direction: Vec3, max_distance: f32) -> Result<Ray, Error> {
        check_finite("origin", origin)?;
        check_finite("direction", direction)?;
        // Scaled first, so that tiny directions (whose squared length underflows) and huge
        // ones (whose squared length overflows) still normalise.
        let scale = direction.abs().max_element();
        if scale == 0.0 {
            return Err(Error::invalid("direction", "must be non-zero"));
        }
        let direction = direction / scale;
        let len = direction.length();
        if !max_distance.is_finite() || max_distance <= 0.0 {
            return Err(Error::invalid(
                "max_distance",
                "must be finite and positive",
            ));
        }
        Ok(Ray {
            origin,
            dir: direction / len,
            max: max_distance,
        })
    }

    #[inline]
    fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// The first parameter `t ∈ [0, max]` at which the ray `o + t d` is inside `bb` (closed),
/// or `None`. `d` need not be unit; axes with `d = 0` test the origin's slab only.
#[inline]
pub(super) fn ray_aabb(o: Vec3, d: Vec3, max: f32, bb: &Aabb) -> Option<f32> {
    let mut t_in = 0.0f32;
    let mut t_out = max;
    for i in 0..3 {
        if d[i] == 0.0 {
            if o[i] < bb.min[i] || o[i] > bb.max[i] {
                return None;
            }
            continue;
        }
        let inv = 1.0 / d[i];
        let t1 = (bb.min[i] - o[i]) * inv;
        let t2 = (bb.max[i] - o[i]) * inv;
        let (near, far) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
        t_in = t_in.max(near);
        t_out = t_out.min(far);
        if t_in > t_out {
            return None;
        }
    }
    Some(t_in)
}

/// The exact ray test of one shape at pose `xf`: the distance `t ∈ [0, max]` along the unit
/// direction `d` at which the ray from `o` enters the solid, and the outward unit normal
/// there. A ray starting inside (or on the surface) hits at 0 with normal `-d`.
///
/// Each test runs in the shape's frame, relative to its position (precision far from the
/// world origin).
pub(crate) fn ray_shape(
    shape: &Shape,
    xf: &Transform,
    o: Vec3,
    d: Vec3,
    max: f32,
) -> Option<(f32, Vec3)> {
    match *shape {
        Shape::Hull { ref hull } => {
            let (t, n) = hull.ray(xf.inv_transform_point(o), xf.inv_transform_vector(d), max)?;
            if t == 0.0 && hull.contains(xf.inv_transform_point(o)) {
                return Some((0.0, -d));
            }
            Some((t, xf.transform_vector(n)))
        }
        Shape::Sphere { radius } => {
            // m + t d, closest approach at t_c = -m·d; the chord's half length is
            // sqrt(r² - |m + t_c d|²). More precise than the quadratic's discriminant when
            // the origin is far from the sphere.
            let m = o - xf.p;
            let r2 = radius * radius;
            if m.length_squared() <= r2 {
                return Some((0.0, -d));
            }
            let tc = -m.dot(d);
            if tc <= 0.0 {
                return None;
            }
            let closest = m + d * tc;
            let h2 = r2 - closest.length_squared();
            if h2 < 0.0 {
                return None;
            }
            let t = (tc - h2.sqrt()).max(0.0);
            if t > max {
                return None;
            }
            let n = (m + d * t).normalize_or_zero();
            let n = if n == Vec3::ZERO { -d } else { n };
            Some((t, n))
        }
        Shape::Capsule {
            half_height: h,
            radius: r,
        } => {
            // In the capsule frame: the first entry into the union of the finite cylinder
            // `x² + z² <= r², |y| <= h` and the two end spheres is the entry into the capsule
            // (the cylinder's end disks lie inside the spheres, so they are never entered
            // first). Each candidate is closed form; the smallest wins.
            let lo = xf.inv_transform_point(o);
            let ld = xf.inv_transform_vector(d);
            let axis_point = Vec3::new(0.0, lo.y.clamp(-h, h), 0.0);
            if (lo - axis_point).length_squared() <= r * r {
                return Some((0.0, -d));
            }
            let mut best: Option<(f32, Vec3)> = None;
            let mut consider = |t: f32, n: Vec3| {
                if t >= 0.0 && t <= max && best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, n));
                }
            };
            // Lateral surface: |(o + t d)_xz|² = r².
            let a = ld.x * ld.x + ld.z * ld.z;
            if a > 0.0 {
                let b = lo.x * ld.x + lo.z * ld.z;
                let c = lo.x * lo.x + lo.z * lo.z - r * r;
                let disc = b * b - a * c;
                if disc >= 0.0 {
                    let t = (-b - disc.sqrt()) / a;
                    let y = lo.y + ld.y * t;
                    if y.abs() <= h {
                        let x = lo + ld * t;
                        consider(t, Vec3::new(x.x, 0.0, x.z).normalize_or(-ld));
                    }
                }
            }
            // End spheres, as for a sphere (closest approach, then half the chord).
            for end in [-h, h] {
                let m = lo - Vec3::new(0.0, end, 0.0);
                let tc = -m.dot(ld);
                let closest = m + ld * tc;
                let h2 = r * r - closest.length_squared();
                if tc > 0.0 && h2 >= 0.0 {
                    let t = tc - h2.sqrt();
                    consider(t, (m + ld * t).normalize_or(-ld));
                }
            }
            best.map(|(t, n)| (t, xf.transform_vector(n)))
        }
        Shape::Box { half_extents: e } => {
            // Slab method (Kay and Kajiya 1986) in the box frame; the entered face is the
            // one of the slab entered last.
            let lo = xf.inv_transform_point(o);
            let ld = xf.inv_transform_vector(d);
            if lo.abs().cmple(e).all() {
                return Some((0.0, -d));
            }
            let mut t_in = f32::NEG_INFINITY;
            let mut t_out = max;
            let mut normal = Vec3::ZERO;
            for i in 0..3 {
                if ld[i] == 0.0 {
                    if lo[i].abs() > e[i] {
                        return None;
                    }
                    continue;
                }
                let inv = 1.0 / ld[i];
                let t1 = (-e[i] - lo[i]) * inv;
                let t2 = (e[i] - lo[i]) * inv;
                // Entering through the -e face when moving towards +, else the +e face.
                let (near, far, sign) = if t1 < t2 {
                    (t1, t2, -1.0)
                } else {
                    (t2, t1, 1.0)
                };
                if near > t_in {
                    t_in = near;
                    normal = Vec3::ZERO;
                    normal[i] = sign;
                }
                t_out = t_out.min(far);
            }
            // The origin is outside, so some slab is entered at t > 0 or never.
            if t_in > t_out || t_out < 0.0 || t_in < 0.0 {
                return None;
            }
            Some((t_in, xf.transform_vector(normal)))
        }
        Shape::Plane { normal, offset } => {
            let n = xf.q * normal;
            let h = n.dot(o - xf.p) - offset;
            if h <= 0.0 {
                return Some((0.0, -d));
            }
            let approach = -n.dot(d);
            if approach <= 0.0 {
                return None;
            }
            let t = h / approach;
            (t <= max).then_some((t, n))
        }
        Shape::Mesh { .. } | Shape::HeightField { .. } => {
            // Surfaces: the nearest triangle either side, through the tree.
            let mesh = shape.triangles()?;
            let lo = xf.inv_transform_point(o);
            let ld = xf.inv_transform_vector(d);
            let (t, _, n) = mesh.ray(lo, ld, max)?;
            Some((t, xf.transform_vector(n)))
        }
    }
}

impl World {
    /// The closest shape hit by the ray from `origin` along `direction` (any non-zero
    /// length; it is normalised) within `max_distance` (m), among the shapes `filter`
    /// keeps. Ties in distance go to the smaller shape id. A ray starting inside a shape
    /// hits it at fraction 0 (see the [module docs](crate::query#solids)).
    ///
    /// Errors: a non-finite `origin` or `direction`, a zero `direction`, a `max_distance`
    /// that is not finite and positive (`InvalidInput` naming it), a stale
    /// `filter.exclude_body` (`StaleHandle`).
    pub fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f32,
        filter: &QueryFilter<'_>,
    ) -> Result<Option<RayHit>, Error> {
        let ray = Ray::new(origin, direction, max_distance)?;
        let filter = self.resolve_filter(filter)?;
        // (distance, shape slot, normal)
        let mut best: Option<(f32, u32, Vec3)> = None;
        self.walk_ray(&ray, |slot| {
            if let Some(hit) = self.ray_candidate(&ray, &filter, slot) {
                let closer = match best {
                    None => true,
                    Some((t, s, _)) => hit.0 < t || (hit.0 == t && slot < s),
                };
                if closer {
                    best = Some((hit.0, slot, hit.1));
                }
            }
            best.map_or(ray.max, |b| b.0)
        });
        Ok(best.map(|(t, slot, n)| self.ray_hit(&ray, t, slot, n)))
    }

    /// Every shape hit by the ray (see [`World::cast_ray`]), each once at the point where
    /// the ray enters it, sorted by fraction, ties by shape id.
    ///
    /// Errors: as [`World::cast_ray`].
    pub fn cast_ray_all(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f32,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<RayHit>, Error> {
        let ray = Ray::new(origin, direction, max_distance)?;
        let filter = self.resolve_filter(filter)?;
        let mut hits: Vec<(f32, u32, Vec3)> = Vec::new();
        self.walk_ray(&ray, |slot| {
            if let Some((t, n)) = self.ray_candidate(&ray, &filter, slot) {
                hits.push((t, slot, n));
            }
            ray.max
        });
        hits.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        Ok(hits
            .into_iter()
            .map(|(t, slot, n)| self.ray_hit(&ray, t, slot, n))
            .collect())
    }

    /// The filter and the exact test of one candidate.
    #[inline]
    fn ray_candidate(&self, ray: &Ray, filter: &Filter<'_>, slot: u32) -> Option<(f32, Vec3)> {
        if !self.accepts(filter, slot) {
            return None;
        }
        let (shape, xf) = self.shape_pose(slot);
        ray_shape(shape, &xf, ray.origin, ray.dir, ray.max)
    }

    fn ray_hit(&self, ray: &Ray, t: f32, slot: u32, normal: Vec3) -> RayHit {
        RayHit {
            shape: self.shape_id_of(slot),
            body: self.body_id_of(slot),
            point: ray.at(t),
            normal,
            fraction: (t / ray.max).min(1.0),
            distance: t,
        }
    }

    /// Calls `visit` once for every shape slot whose fat box the ray crosses within
    /// `[0, cutoff]`, in segments of increasing distance (see the module docs). `visit`
    /// returns the cutoff: candidates whose box the ray enters beyond it are skipped, and
    /// the walk stops once a whole segment lies beyond it. Allocates nothing.
    pub(super) fn walk_ray(&self, ray: &Ray, mut visit: impl FnMut(u32) -> f32) {
        let cell = self.broadphase.cell_size();
        let mut segments = 1u32;
        if cell > 0.0 {
            let n = (ray.max / cell).ceil();
            // Past one segment per occupied cell, one query over the whole ray is cheaper.
            if n > 1.0 && n <= self.broadphase.cell_count() as f32 {
                segments = n as u32;
            }
        }
        let mut cutoff = ray.max;
        let mut t0 = 0.0f32;
        for k in 0..segments {
            let last = k + 1 == segments;
            let t1 = if last {
                ray.max
            } else {
                (k + 1) as f32 * (ray.max / segments as f32)
            };
            let (a, b) = (ray.at(t0), ray.at(t1));
            // Grown by a rounding margin: a proxy entered in [t0, t1] must be reported.
            let slack = 1.0e-5 * (1.0 + a.abs().max(b.abs()).max_element());
            let bb = Aabb {
                min: a.min(b),
                max: a.max(b),
            }
            .expanded(slack);
            self.broadphase.query_aabb(&bb, true, |slot| {
                let fat = self.broadphase.fat_aabb(slot);
                let Some(t_enter) = ray_aabb(ray.origin, ray.dir, cutoff, fat) else {
                    return;
                };
                // Each proxy in exactly one segment: where the ray enters its fat box.
                if t_enter >= t0 && (t_enter < t1 || last) {
                    cutoff = visit(slot);
                }
            });
            // Everything not yet visited is entered at t1 or later.
            if cutoff < t1 || last {
                break;
            }
            t0 = t1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::test_util::Rng;
    use glam::Quat;

    /// Random rays against random capsules: the hit distance matches the first sign change
    /// of the capsule's signed distance along the ray (dense f64 march, then bisection),
    /// the normal is the outward surface normal there, and misses never come inside.
    #[test]
    fn capsule_rays_match_marching() {
        let mut rng = Rng::new(81);
        let mut hits = 0;
        for _ in 0..300 {
            let (h, r) = (rng.range(0.0, 1.5), rng.range(0.1, 0.8));
            let xf = Transform::new(rng.direction() * rng.range(0.0, 100.0), rng.rotation());
            let s = Shape::Capsule {
                half_height: h,
                radius: r,
            };
            let o = xf.p + rng.direction() * rng.range(h + r + 0.1, 5.0);
            let aim = xf.p + rng.direction() * rng.range(0.0, h + r);
            let d = (aim - o).normalize();
            let (ad, ap) = ((xf.q * Vec3::Y).as_dvec3(), xf.p.as_dvec3());
            let sdf = |t: f64| {
                let x = o.as_dvec3() + d.as_dvec3() * t - ap;
                let y = x.dot(ad).clamp(-(h as f64), h as f64);
                (x - ad * y).length() - r as f64
            };
            let max = 10.0f64;
            let steps = 20000;
            let mut first = None;
            for i in 1..=steps {
                let t = max * i as f64 / steps as f64;
                if sdf(t) <= 0.0 {
                    let (mut lo, mut hi) = (t - max / steps as f64, t);
                    for _ in 0..60 {
                        let mid = 0.5 * (lo + hi);
                        if sdf(mid) <= 0.0 {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    first = Some(hi);
                    break;
                }
            }
            let got = ray_shape(&s, &xf, o, d, max as f32);
            match (got, first) {
                (Some((t, n)), Some(tr)) => {
                    hits += 1;
                    assert!((t as f64 - tr).abs() < 1e-3, "{t} vs {tr}");
                    // The outward normal: the gradient of the signed distance.
                    let e = 1e-4;
                    let x = o + d * t;
                    let g = Vec3::new(
                        (sdf_at(&s, &xf, x + Vec3::X * e) - sdf_at(&s, &xf, x - Vec3::X * e))
                            as f32,
                        (sdf_at(&s, &xf, x + Vec3::Y * e) - sdf_at(&s, &xf, x - Vec3::Y * e))
                            as f32,
                        (sdf_at(&s, &xf, x + Vec3::Z * e) - sdf_at(&s, &xf, x - Vec3::Z * e))
                            as f32,
                    )
                    .normalize();
                    assert!((g - n).length() < 1e-2, "{g} vs {n}");
                }
                (None, None) => {}
                // Grazing rays: the march and the closed form may disagree by a hair.
                (None, Some(tr)) => assert!(
                    (0..=100).all(|i| sdf(tr + 1e-3 * i as f64 / 100.0) > -1e-4),
                    "missed at {tr}"
                ),
                (Some((t, _)), None) => assert!(sdf(t as f64) < 1e-4, "phantom hit at {t}"),
            }
        }
        assert!(hits > 150, "{hits} hits");
    }

    fn sdf_at(s: &Shape, xf: &Transform, x: Vec3) -> f64 {
        let Shape::Capsule {
            half_height: h,
            radius: r,
        } = *s
        else {
            unreachable!()
        };
        let l = xf.inv_transform_point(x).as_dvec3();
        let y = l.y.clamp(-(h as f64), h as f64);
        (l - glam::DVec3::new(0.0, y, 0.0)).length() - r as f64
    }

    #[test]
    fn box_faces_and_inside() {
        let b = Shape::Box {
            half_extents: Vec3::new(1.0, 2.0, 3.0),
        };
        let xf = Transform::new(Vec3::new(5.0, 0.0, 0.0), Quat::IDENTITY);
        let (t, n) = ray_shape(&b, &xf, Vec3::ZERO, Vec3::X, 100.0).unwrap();
        assert_eq!((t, n), (4.0, -Vec3::X));
        let (t, n) = ray_shape(&b, &xf, Vec3::new(5.0, 10.0, 0.0), -Vec3::Y, 100.0).unwrap();
        assert_eq!((t, n), (8.0, Vec3::Y));
        assert_eq!(
            ray_shape(&b, &xf, Vec3::new(5.0, 0.5, 0.0), Vec3::Z, 1.0),
            Some((0.0, -Vec3::Z))
        );
        assert!(ray_shape(&b, &xf, Vec3::ZERO, -Vec3::X, 100.0).is_none());
        assert!(ray_shape(&b, &xf, Vec3::ZERO, Vec3::X, 3.9).is_none());
    }

    /// The figure in the module docs: `cargo test -p impetus --release --lib
    /// ray_timing_figure -- --ignored --nocapture`. Never asserts a time.
    #[test]
    #[ignore]
    fn ray_timing_figure() {
        use crate::collision::test_util::Rng;
        use crate::{BodyDef, BodyType, QueryFilter, ShapeDef, WorldDef};
        let mut w = World::new(WorldDef {
            worker_count: 1,
            gravity: Vec3::ZERO,
            ..Default::default()
        })
        .unwrap();
        let mut rng = Rng::new(42);
        let add = |w: &mut World, p: Vec3, q: Quat, shape: Shape| {
            let body_type = BodyType::Static;
            let b = w
                .create_body(&BodyDef {
                    body_type,
                    position: p,
                    rotation: q,
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, &ShapeDef::new(shape)).unwrap();
        };
        for i in 0..10_000 {
            let (x, y, z) = (i % 25, (i / 25) % 20, i / 500);
            let p = Vec3::new(
                x as f32 * 2.0 - 24.0,
                y as f32 * 2.0 + 1.0,
                z as f32 * 2.0 - 19.0,
            );
            let he = Vec3::new(
                rng.range(0.2, 0.55),
                rng.range(0.2, 0.55),
                rng.range(0.2, 0.55),
            );
            add(&mut w, p, rng.rotation(), Shape::Box { half_extents: he });
        }
        let plane = Shape::Plane {
            normal: Vec3::Y,
            offset: -0.5,
        };
        add(&mut w, Vec3::ZERO, Quat::IDENTITY, plane);
        w.step(1.0 / 60.0).unwrap();
        let rays: Vec<(Vec3, Vec3, f32)> = (0..10_000)
            .map(|_| {
                let o = Vec3::new(
                    rng.range(-35.0, 35.0),
                    rng.range(-2.0, 50.0),
                    rng.range(-30.0, 30.0),
                );
                (o, rng.direction(), rng.range(2.0, 60.0))
            })
            .collect();
        let f = QueryFilter::default();
        let t = std::time::Instant::now();
        let mut hits = 0;
        for &(o, d, max) in &rays {
            hits += w.cast_ray(o, d, max, &f).unwrap().is_some() as u32;
        }
        let fast = t.elapsed();
        let t = std::time::Instant::now();
        let mut brute_hits = 0;
        for &(o, d, max) in &rays {
            let mut best = f32::INFINITY;
            for slot in 0..w.shapes.data.len() as u32 {
                let (shape, xf) = w.shape_pose(slot);
                if let Some((t, _)) = ray_shape(shape, &xf, o, d, max) {
                    best = best.min(t);
                }
            }
            brute_hits += best.is_finite() as u32;
        }
        let brute = t.elapsed();
        assert_eq!(hits, brute_hits);
        println!(
            "10,000 rays, 10,001 shapes, cell {} m, {} cells: cast_ray {:?}, brute force {:?} ({hits} hits)",
            w.broadphase.cell_size(),
            w.broadphase.cell_count(),
            fast,
            brute
        );
    }

    #[test]
    fn aabb_slab_parallel_axes() {
        let bb = Aabb {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        };
        assert_eq!(
            ray_aabb(Vec3::new(-3.0, 0.0, 0.0), Vec3::X, 10.0, &bb),
            Some(2.0)
        );
        assert_eq!(
            ray_aabb(Vec3::new(-3.0, 1.0, 1.0), Vec3::X, 10.0, &bb),
            Some(2.0)
        );
        assert_eq!(
            ray_aabb(Vec3::new(-3.0, 1.5, 0.0), Vec3::X, 10.0, &bb),
            None
        );
        assert_eq!(ray_aabb(Vec3::ZERO, Vec3::X, 10.0, &bb), Some(0.0));
    }
}
