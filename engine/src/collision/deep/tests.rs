//! Deep overlaps of every convex pair against an independent reference.
//!
//! For each pair kind, random poses whose overlap is deeper than [`MIN_DEPTH`] (fixed seeds):
//!
//! - moving B by `normal × (depth + 1 mm)` separates the shapes (GJK distance > 0), where
//!   `depth` is the deepest point's penetration;
//! - `depth` is within 1 % of the smallest separating translation found by sampling
//!   directions: along a unit direction `d`, B clears A after moving `h_A(d) + h_B(−d)`
//!   (`h` the support function, `max over the shape of d·x`), so the least of that over the
//!   sampled directions bounds the penetration depth from above. The samples are a
//!   Fibonacci lattice of [`DIRECTIONS`] directions, the reported normal, the circles where
//!   a capsule's or a triangle's support function has a crease (the least overlap often
//!   lies in such a narrow valley, between lattice points), and a local refinement
//!   (pattern search) from the best few. The test requires
//!   `0.99 sampled − 1 mm <= depth <= 1.01 sampled`.
//!
//! Triangles have all three edges active (a lone triangle): inactive edges replace their
//! normals by the face normal by design (see `triangle.rs`). Overlaps at least
//! [`MIN_DEPTH`] deep (above `deep::DEEP`) are tested: shallower contacts keep the
//! 5 mm axis biases of resting contacts.
//!
//! The reference is computed in f64 from the world poses and shares no code with the
//! manifold functions; the separation check uses the engine's GJK (`gjk.rs`), which the
//! manifold functions call too, but only for closest points and to detect overlap.
//!
//! Also the named regressions after Jolt's "long capsule vs embedded box" unit test, with
//! their minimum translations computed by hand.

use super::super::gjk::{shape_distance, triangle_distance};
use super::super::test_util::{d3, dq, Rng, TOL};
use super::super::{collide, collide_triangle, Manifold};
use crate::hull::ConvexHull;
use crate::math::Transform;
use crate::mesh::Triangle;
use crate::shape::Shape;
use glam::{DVec3, Mat3, Quat, Vec3};
use std::sync::{Arc, OnceLock};

/// Overlaps at least this deep (m) are tested.
const MIN_DEPTH: f64 = 0.06;

/// Accepted cases per pair kind.
const CASES: usize = 1000;

/// Directions of the sampling lattice.
const DIRECTIONS: usize = 10_000;

/// Directions sampled on each circle of creases (see [`Support::crease_axes`]).
const RING: usize = 720;

/// The pair kinds: A is the first, B the second (a triangle is always B).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Sphere,
    Capsule,
    Box,
    Hull,
    Triangle,
}

/// A shape at its world pose, in f64, reduced to what its support function needs.
enum Support {
    Sphere {
        c: DVec3,
        r: f64,
    },
    Capsule {
        c: DVec3,
        half_axis: DVec3,
        r: f64,
    },
    /// Centre and the three half axes (unit axis times half extent).
    Box {
        c: DVec3,
        half_axes: [DVec3; 3],
    },
    /// A polytope by its world vertices (a hull, a triangle).
    Points(Vec<DVec3>),
}

impl Support {
    fn of(shape: &Shape, xf: &Transform) -> Self {
        let (c, q) = (d3(xf.p), dq(xf.q));
        match shape {
            Shape::Sphere { radius } => Support::Sphere {
                c,
                r: *radius as f64,
            },
            Shape::Capsule {
                half_height,
                radius,
            } => Support::Capsule {
                c,
                half_axis: q * DVec3::Y * *half_height as f64,
                r: *radius as f64,
            },
            Shape::Box { half_extents: h } => Support::Box {
                c,
                half_axes: [
                    q * DVec3::X * h.x as f64,
                    q * DVec3::Y * h.y as f64,
                    q * DVec3::Z * h.z as f64,
                ],
            },
            Shape::Hull { hull } => {
                Support::Points(hull.vertices().iter().map(|&v| q * d3(v) + c).collect())
            }
            _ => unreachable!("not a convex shape"),
        }
    }

    /// Unit axes whose normal circles hold the creases of the support function, where the
    /// overlap has narrow valleys that a sampling lattice straddles: a capsule's axis (its
    /// support is `h |axis · d|` plus a smooth part), a triangle's edges (two corners tie).
    fn crease_axes(&self) -> Vec<DVec3> {
        match self {
            Support::Capsule { half_axis, .. } if half_axis.length() > 1.0e-9 => {
                vec![half_axis.normalize()]
            }
            Support::Points(v) if v.len() == 3 => (0..3)
                .map(|i| (v[(i + 1) % 3] - v[i]).normalize())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `max over the shape of d·x`.
    fn h(&self, d: DVec3) -> f64 {
        match self {
            Support::Sphere { c, r } => c.dot(d) + r,
            Support::Capsule { c, half_axis, r } => c.dot(d) + half_axis.dot(d).abs() + r,
            Support::Box { c, half_axes } => {
                c.dot(d)
                    + half_axes[0].dot(d).abs()
                    + half_axes[1].dot(d).abs()
                    + half_axes[2].dot(d).abs()
            }
            Support::Points(v) => v.iter().map(|x| x.dot(d)).fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// How far B must move along the unit `d` to clear A.
fn overlap(a: &Support, b: &Support, d: DVec3) -> f64 {
    a.h(d) + b.h(-d)
}

/// The Fibonacci lattice: `DIRECTIONS` nearly evenly spread unit vectors.
fn lattice() -> &'static [DVec3] {
    static DIRS: OnceLock<Vec<DVec3>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let golden = std::f64::consts::PI * (3.0 - 5.0f64.sqrt());
        (0..DIRECTIONS)
            .map(|i| {
                let z = 1.0 - (2 * i + 1) as f64 / DIRECTIONS as f64;
                let r = (1.0 - z * z).max(0.0).sqrt();
                let phi = golden * i as f64;
                DVec3::new(r * phi.cos(), r * phi.sin(), z)
            })
            .collect()
    })
}

/// Pattern search for a smaller overlap around the unit `d`: steps along twelve tangent
/// directions (turned a little further at each iteration), halving the step when none
/// improves.
fn refine(a: &Support, b: &Support, mut d: DVec3, mut best: f64) -> (f64, DVec3) {
    const TURNS: usize = 12;
    let mut step = 0.05;
    let mut phase = 0.0;
    let mut iterations = 0;
    while step > 1.0e-6 && iterations < 600 {
        iterations += 1;
        let e1 = d.any_orthonormal_vector();
        let e2 = d.cross(e1);
        let mut improved = false;
        for k in 0..TURNS {
            let angle = phase + k as f64 * std::f64::consts::TAU / TURNS as f64;
            let c = (d + (e1 * angle.cos() + e2 * angle.sin()) * step).normalize();
            let o = overlap(a, b, c);
            if o < best {
                (best, d) = (o, c);
                improved = true;
                break;
            }
        }
        phase += 0.618 * std::f64::consts::TAU / TURNS as f64;
        if !improved {
            step *= 0.5;
        }
    }
    (best, d)
}

/// The smallest overlap over the lattice and `extra` (the reported normal), refined from
/// the best few directions: an upper bound of the penetration depth, and its direction.
fn sampled_min(a: &Support, b: &Support, extra: DVec3) -> (f64, DVec3) {
    const KEEP: usize = 4;
    let mut top = [(f64::INFINITY, DVec3::X); KEEP];
    let mut consider = |d: DVec3| {
        let o = overlap(a, b, d);
        if o < top[KEEP - 1].0 {
            let mut k = KEEP - 1;
            while k > 0 && top[k - 1].0 > o {
                top[k] = top[k - 1];
                k -= 1;
            }
            top[k] = (o, d);
        }
    };
    consider(extra);
    for &d in lattice() {
        consider(d);
    }
    // The circles normal to the crease axes, one direction per half degree.
    for axis in a.crease_axes().into_iter().chain(b.crease_axes()) {
        let e1 = axis.any_orthonormal_vector();
        let e2 = axis.cross(e1);
        for k in 0..RING {
            let angle = k as f64 * std::f64::consts::TAU / RING as f64;
            consider(e1 * angle.cos() + e2 * angle.sin());
        }
    }
    let mut best = top[0];
    for (o, d) in top {
        let r = refine(a, b, d, o);
        if r.0 < best.0 {
            best = r;
        }
    }
    best
}

/// A quick upper bound of the penetration depth: the overlap along the centres' offset
/// and the 26 directions of a cube's faces, edges and corners.
fn quick_depth(a: &Support, b: &Support, offset: DVec3) -> f64 {
    let mut best = f64::INFINITY;
    if offset.length() > 1.0e-9 {
        best = overlap(a, b, offset.normalize());
    }
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                let d = DVec3::new(x as f64, y as f64, z as f64);
                if d != DVec3::ZERO {
                    best = best.min(overlap(a, b, d.normalize()));
                }
            }
        }
    }
    best
}

/// A random rock: the hull of 14 points, flattened or stretched per axis.
fn rock(rng: &mut Rng) -> Shape {
    let scale = rng.extents(0.6, 1.4);
    let pts: Vec<Vec3> = (0..14)
        .map(|_| rng.direction() * rng.range(0.3, 0.6) * scale)
        .collect();
    Shape::Hull {
        hull: Arc::new(ConvexHull::new(&pts).expect("a rock is a valid hull")),
    }
}

fn random_shape(kind: Kind, rng: &mut Rng) -> Shape {
    match kind {
        Kind::Sphere => Shape::Sphere {
            radius: rng.range(0.15, 0.7),
        },
        Kind::Capsule => Shape::Capsule {
            half_height: rng.range(0.05, 0.9),
            radius: rng.range(0.1, 0.5),
        },
        Kind::Box => Shape::Box {
            half_extents: rng.extents(0.1, 0.8),
        },
        Kind::Hull => rock(rng),
        Kind::Triangle => unreachable!("a triangle is no shape"),
    }
}

/// The radius of a ball around the shape's origin holding it.
fn reach(shape: &Shape) -> f32 {
    match shape {
        Shape::Sphere { radius } => *radius,
        Shape::Capsule {
            half_height,
            radius,
        } => half_height + radius,
        Shape::Box { half_extents } => half_extents.length(),
        Shape::Hull { hull } => hull.bounding_radius(),
        _ => unreachable!(),
    }
}

/// One case's outcome against the reference.
enum Outcome {
    /// Shallower than [`MIN_DEPTH`]: not a test case.
    Shallow,
    /// Passed: the reported depth and the sampled minimum.
    Passed { depth: f64, sampled: f64 },
    /// Failed, and why.
    Failed(String),
}

/// Checks the manifold `m` of A against B (`sa`, `sb`); `separated(shift)` is the GJK
/// distance after moving B by `shift` (negative when they still overlap).
fn check(
    m: &Manifold,
    sa: &Support,
    sb: &Support,
    separated: impl Fn(Vec3) -> Result<f32, String>,
) -> Outcome {
    let n = if m.count > 0 {
        d3(m.normal).normalize()
    } else {
        DVec3::X
    };
    let (sampled, dir) = sampled_min(sa, sb, n);
    if sampled < MIN_DEPTH {
        return Outcome::Shallow;
    }
    if m.count == 0 {
        return Outcome::Failed(format!("no contact; sampled minimum {sampled}"));
    }
    let deepest = m
        .points()
        .iter()
        .map(|p| p.separation)
        .fold(f32::INFINITY, f32::min);
    let depth = -deepest as f64;
    let along = overlap(sa, sb, n);
    match separated(m.normal * (depth as f32 + 1.0e-3)) {
        Ok(gap) if gap > 0.0 => {}
        Ok(gap) => {
            return Outcome::Failed(format!(
                "moving by depth + 1 mm leaves distance {gap}: depth {depth}, overlap along \
                 the normal {along}, sampled minimum {sampled} along {dir}; {m:?}"
            ))
        }
        Err(e) => return Outcome::Failed(e),
    }
    if depth > sampled * 1.01 || depth < sampled * 0.99 - 1.0e-3 {
        return Outcome::Failed(format!(
            "depth {depth} vs sampled minimum {sampled} along {dir} (overlap along the \
             normal {along}); {m:?}"
        ));
    }
    Outcome::Passed { depth, sampled }
}

/// Runs `CASES` deep overlaps of kinds `ka` and `kb` from `seed`; panics with the failures.
fn deep_pairs(ka: Kind, kb: Kind, seed: u64) {
    let mut rng = Rng::new(seed);
    let (mut accepted, mut tries) = (0, 0);
    let mut failures: Vec<String> = Vec::new();
    let mut failed = 0;
    let mut shallow = 0;
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    while accepted < CASES {
        tries += 1;
        assert!(
            tries < 50 * CASES,
            "too few deep poses: {accepted} of {tries}"
        );
        let a = random_shape(ka, &mut rng);
        let base = Vec3::new(
            rng.range(-20.0, 20.0),
            rng.range(-5.0, 5.0),
            rng.range(-20.0, 20.0),
        );
        let xa = Transform::new(base, rng.rotation());
        let sa = Support::of(&a, &xa);
        let result = if kb == Kind::Triangle {
            let c = Vec3::new(rng.range(-0.3, 0.3), 0.0, rng.range(-0.3, 0.3));
            let tri = Triangle {
                vertices: [0, 1, 2].map(|_| c + rng.direction() * rng.range(0.4, 1.5)),
                active_edges: 0b111,
            };
            let normal = tri.normal();
            if normal == Vec3::ZERO {
                continue;
            }
            let xb = Transform::new(rng.direction() * 0.5, rng.rotation());
            let tw = tri.vertices.map(|v| xb.transform_point(v));
            // A's centre near a random point of the triangle.
            let (u, v) = (rng.unit(), rng.unit());
            let (u, v) = if u + v > 1.0 {
                (1.0 - u, 1.0 - v)
            } else {
                (u, v)
            };
            let on = tw[0] + (tw[1] - tw[0]) * u + (tw[2] - tw[0]) * v;
            let xa = Transform::new(on + rng.direction() * rng.range(0.0, reach(&a)), xa.q);
            let sa = Support::of(&a, &xa);
            let sb = Support::Points(tw.map(d3).to_vec());
            if quick_depth(&sa, &sb, d3(on) - d3(xa.p)) < MIN_DEPTH {
                continue;
            }
            let m = collide_triangle(&a, &xa, &tri, &xb, TOL);
            check(&m, &sa, &sb, |shift| {
                let moved = Transform::new(xa.p - shift, xa.q);
                let d = triangle_distance(&a, &moved, tw).ok_or("no distance")?;
                Ok(if d.overlap { -1.0 } else { d.distance })
            })
        } else {
            let b = random_shape(kb, &mut rng);
            let spread = 0.8 * (reach(&a) + reach(&b));
            let xb = Transform::new(
                base + rng.direction() * rng.range(0.0, spread),
                rng.rotation(),
            );
            let sb = Support::of(&b, &xb);
            if quick_depth(&sa, &sb, d3(xb.p) - d3(xa.p)) < MIN_DEPTH {
                continue;
            }
            let m = collide(&a, &xa, &b, &xb, TOL);
            check(&m, &sa, &sb, |shift| {
                let moved = Transform::new(xb.p + shift, xb.q);
                let d = shape_distance(&a, &xa, &b, &moved).ok_or("no distance")?;
                Ok(if d.overlap { -1.0 } else { d.distance })
            })
        };
        match result {
            Outcome::Shallow => {
                shallow += 1;
                continue;
            }
            Outcome::Passed { depth, sampled } => {
                lo = lo.min(depth / sampled);
                hi = hi.max(depth / sampled);
            }
            Outcome::Failed(e) => {
                failed += 1;
                if failures.len() < 4 {
                    failures.push(e);
                }
            }
        }
        accepted += 1;
    }
    eprintln!("{ka:?}-{kb:?}: {failed} of {CASES} failed; depth / sampled minimum in [{lo:.5}, {hi:.5}]; tries {tries} shallow {shallow}");
    assert!(
        failed == 0,
        "{ka:?}-{kb:?}: {failed} of {CASES} deep overlaps failed:\n{}",
        failures.join("\n")
    );
}

macro_rules! deep_pair_tests {
    ($($name:ident: $a:ident, $b:ident, $seed:expr;)*) => {
        $(
            /// Deep overlaps of this pair kind separate along the minimum translation.
            #[test]
            fn $name() {
                deep_pairs(Kind::$a, Kind::$b, $seed);
            }
        )*
    };
}

deep_pair_tests! {
    deep_sphere_sphere_separates_along_the_minimum_translation: Sphere, Sphere, 1;
    deep_sphere_capsule_separates_along_the_minimum_translation: Sphere, Capsule, 2;
    deep_sphere_box_separates_along_the_minimum_translation: Sphere, Box, 3;
    deep_sphere_hull_separates_along_the_minimum_translation: Sphere, Hull, 4;
    deep_capsule_capsule_separates_along_the_minimum_translation: Capsule, Capsule, 5;
    deep_capsule_box_separates_along_the_minimum_translation: Capsule, Box, 6;
    deep_capsule_hull_separates_along_the_minimum_translation: Capsule, Hull, 7;
    deep_box_box_separates_along_the_minimum_translation: Box, Box, 8;
    deep_box_hull_separates_along_the_minimum_translation: Box, Hull, 9;
    deep_hull_hull_separates_along_the_minimum_translation: Hull, Hull, 10;
    deep_sphere_triangle_separates_along_the_minimum_translation: Sphere, Triangle, 11;
    deep_capsule_triangle_separates_along_the_minimum_translation: Capsule, Triangle, 12;
    deep_box_triangle_separates_along_the_minimum_translation: Box, Triangle, 13;
    deep_hull_triangle_separates_along_the_minimum_translation: Hull, Triangle, 14;
}

/// The distance between A and B after moving B by `shift` (GJK; negative when they still
/// overlap).
fn gap_after(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform, shift: Vec3) -> f32 {
    let moved = Transform::new(xb.p + shift, xb.q);
    let d = shape_distance(a, xa, b, &moved).expect("convex shapes");
    if d.overlap {
        f32::NEG_INFINITY
    } else {
        d.distance
    }
}

/// Jolt's own check of its "long capsule vs embedded box" test, on a capsule A and a box
/// B: one manifold whose normal and depth are the expected ones, and moving the box by 1.01
/// times the depth along the normal separates the shapes while 0.99 times does not.
fn check_minimum_translation(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
    normal: Vec3,
    depth: f32,
    tol: f32,
) {
    let m = collide(a, xa, b, xb, TOL);
    assert!(m.count > 0, "{m:?}");
    let got = -m
        .points()
        .iter()
        .map(|p| p.separation)
        .fold(f32::INFINITY, f32::min);
    assert!(
        (got - depth).abs() < tol,
        "depth {got}, expected {depth}: {m:?}"
    );
    assert!(
        (m.normal - normal).length() < 1.0e-3,
        "normal {}, expected {normal}",
        m.normal
    );
    assert!(gap_after(a, xa, b, xb, m.normal * (1.01 * got)) > 0.0);
    assert!(gap_after(a, xa, b, xb, m.normal * (0.99 * got)) < 0.0);
}

/// A long capsule (half height 5 m, radius 1 m) with a unit box (half extents 1 m) embedded
/// in it off-centre, its axis along `u = (1, 1, 0)/√2` across the box's z faces, its centre
/// `0.5 w` from the box's, `w = (1, −1, 0)/√2`, on the side of `−w`.
///
/// By hand, in the box's frame, the distance the box must move along each candidate axis
/// `d` to clear the capsule is `h_capsule(d) + h_box(−d)`: the capsule's support is
/// `c·d + 5 |u·d| + 1`, the box's `|d_x| + |d_y| + |d_z|`.
///
/// - `±x`, `±y` (box faces; `u × z` is `w`, `u × x` and `u × y` are `∓z`): the capsule
///   reaches `5/√2 ≈ 3.54` m along them, so at least `3.54 + 1 + 1 − 0.35 = 5.18` m;
/// - `±z`: `c_z = 0`, `u_z = 0`: `1 + 1 = 2` m (the box leaves through its z face);
/// - `w`: `c·w = −0.5`, `u·w = 0`, the box's reach along `w` is `√2`: `−0.5 + 1 + √2 =
///   1.914` m; along `−w` `0.5 + 1 + √2 = 2.914` m.
///
/// So the box moves `1 + √2 − 0.5 ≈ 1.91421` m along `w`. Before this test's fix the
/// capsule's core was tested on the box's face axes only: 2 m along `−z`, 4.5 % more than
/// needed.
#[test]
fn long_capsule_with_an_embedded_box_moves_the_box_along_the_minimum_translation() {
    let w = Vec3::new(1.0, -1.0, 0.0).normalize();
    let capsule = Shape::Capsule {
        half_height: 5.0,
        radius: 1.0,
    };
    let xa = Transform::new(
        -0.5 * w,
        Quat::from_rotation_arc(Vec3::Y, Vec3::new(1.0, 1.0, 0.0).normalize()),
    );
    let cube = Shape::Box {
        half_extents: Vec3::ONE,
    };
    for far in [Vec3::ZERO, Vec3::new(300.0, -20.0, 150.0)] {
        let xa = Transform::new(xa.p + far, xa.q);
        let xb = Transform::new(far, Quat::IDENTITY);
        let depth = 1.0 + std::f32::consts::SQRT_2 - 0.5;
        check_minimum_translation(&capsule, &xa, &cube, &xb, w, depth, 1.0e-4);
    }
}

/// A capsule entering a unit box (half extents 1 m) through its top face and leaving
/// through its `+x` face: core from `P = (0.4, 1.4, 0)` to `Q = (2.4, −0.6, 0)`, radius
/// 0.5 m, so `u = (1, −1, 0)/√2`.
///
/// By hand (as above, `h_capsule(d) = max(P·d, Q·d) + 0.5`): along `−x` (the box moving
/// out through the face the core is least deep below) `−0.4 + 0.5 + 1 = 1.1` m; `±y` and
/// `±z` at least 1.5 m; along `w = u × z = (−1, −1, 0)/√2` (the cross axis of the core and
/// the box's z edges) `P·w = −1.8/√2`, so `−1.8/√2 + 0.5 + √2 = 0.5 + 0.1 √2 ≈ 0.64142` m;
/// along `−w` `3.19` m. The box moves 0.64142 m along `w`. Before this test's fix the
/// manifold said 0.7 m along `−x` (the core clipped to the `+x` face's side planes had lost
/// its deepest end): moving the box by 1.01 times that left 0.14 m of overlap.
#[test]
fn capsule_leaving_a_box_through_its_side_moves_the_box_along_the_cross_axis() {
    let (p, q) = (Vec3::new(0.4, 1.4, 0.0), Vec3::new(2.4, -0.6, 0.0));
    let capsule = Shape::Capsule {
        half_height: 0.5 * (q - p).length(),
        radius: 0.5,
    };
    let xa = Transform::new(
        0.5 * (p + q),
        Quat::from_rotation_arc(Vec3::Y, (q - p).normalize()),
    );
    let cube = Shape::Box {
        half_extents: Vec3::ONE,
    };
    let depth = 0.5 + 0.1 * std::f32::consts::SQRT_2;
    let w = Vec3::new(-1.0, -1.0, 0.0).normalize();
    check_minimum_translation(&capsule, &xa, &cube, &Transform::IDENTITY, w, depth, 1.0e-4);
}

/// Jolt's `TestCollideShapeLongCapsuleVsEmbeddedBox` (its unit test of colliding shapes):
/// a capsule of half height 75 m and radius 1.5 m, its core from
/// `(−9.6853857, −18.0328083, 41.321228)` along `+z` for 150 m, against a box of half
/// extents `(1.5, 0.75, 1.25)` offset by `(0.5, −1.25, 1.75)` in a frame turned by the
/// test's matrix and moved to `(−10.2214508, −18.6808319, 40.7468987)`. The matrix's three
/// vectors are taken as its rows (taken as columns the two shapes are 4 mm apart, while the
/// test describes a box crossed by the capsule's core).
///
/// In the box's frame the core runs from `(0.1536, 0.7750, −1.1301)` along
/// `u = (−0.2633, −0.4773, 0.8384)`. The distance the box must move (as in the tests above)
/// along the box's face axes is `3.154` (`+x`), `3.025` (`+y`), `3.880` (`−z`) m, the other
/// sides tens of metres; along the cross axes `u × x`, `u × y`, `u × z` (each sign)
/// `2.656`/`2.885`, `3.114`/`3.498`, `2.936`/`3.416` m. The least, 2.6558 m, is along
/// `−(u × x)/|u × x| = (0, −0.8691, −0.4947)` in the box frame, `(0.8448, −0.5351, 0)` in
/// the world. Before this test's fix the manifold said 3.025 m along the box's `+y` face
/// (14 % more than needed).
#[test]
#[allow(clippy::excessive_precision)] // Jolt's figures as its test writes them.
fn jolt_long_capsule_vs_embedded_box() {
    let rows = Mat3::from_cols(
        Vec3::new(0.516170502, -0.803887904, -0.295520246),
        Vec3::new(0.815010250, 0.354940295, 0.458012700),
        Vec3::new(-0.263298869, -0.477264702, 0.838386655),
    )
    .transpose();
    let origin = Vec3::new(-10.2214508, -18.6808319, 40.7468987);
    let (lo, hi) = (Vec3::new(-1.0, -2.0, 0.5), Vec3::new(2.0, -0.5, 3.0));
    let cube = Shape::Box {
        half_extents: 0.5 * (hi - lo),
    };
    let xb = Transform::new(
        rows * (0.5 * (lo + hi)) + origin,
        Quat::from_mat3(&rows).normalize(),
    );
    let capsule = Shape::Capsule {
        half_height: 75.0,
        radius: 1.5,
    };
    let xa = Transform::new(
        Vec3::new(-9.68538570, -18.0328083, 41.3212280 + 75.0),
        Quat::from_xyzw(0.499999970, -0.499999970, -0.499999970, 0.499999970).normalize(),
    );
    let normal = Vec3::new(0.844820306, -0.535050091, 0.0);
    check_minimum_translation(&capsule, &xa, &cube, &xb, normal, 2.655_792, 1.0e-3);
}
