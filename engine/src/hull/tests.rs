use super::*;
use crate::collision::test_util::Rng;
use crate::shape::Shape;
use std::sync::Arc;

fn corners(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect()
}

/// Every face: unit normal, its vertices on its plane, all vertices and the given
/// points inside every plane; Euler's formula; each edge between two distinct faces.
fn check(hull: &ConvexHull, input: &[Vec3]) {
    let (v, e, f) = (
        hull.vertices().len(),
        hull.edges().len(),
        hull.faces().len(),
    );
    assert_eq!(v + f, e + 2, "Euler: V {v} E {e} F {f}");
    let size = hull.bounding_radius();
    for (k, face) in hull.faces().iter().enumerate() {
        assert!((face.normal.length() - 1.0).abs() < 1e-5);
        assert!(face.offset > 0.0);
        for &i in hull.face_polygon(k) {
            let d = face.normal.dot(hull.vertices()[i as usize]) - face.offset;
            assert!(d.abs() < 1e-4 * size, "vertex off its face by {d}");
        }
        for &x in input {
            let x = hull.frame().inv_transform_point(x);
            assert!(face.normal.dot(x) - face.offset < 1e-4 * size);
        }
    }
    for edge in hull.edges() {
        assert_ne!(edge.faces[0], edge.faces[1], "{edge:?}");
    }
}

#[test]
fn cube_has_six_faces_eight_vertices_twelve_edges() {
    let mut pts = corners(Vec3::new(0.5, 0.25, 1.0));
    // Duplicates, face centres, edge midpoints and interior points are dropped.
    pts.extend_from_slice(&pts.clone());
    pts.extend([
        Vec3::new(0.0, 0.25, 0.0),
        Vec3::new(0.5, 0.0, 0.0),
        Vec3::new(0.5, 0.25, 0.0),
        Vec3::new(0.1, -0.1, 0.2),
    ]);
    let hull = ConvexHull::new(&pts).unwrap();
    assert_eq!(hull.faces().len(), 6);
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.edges().len(), 12);
    assert!(hull.faces().iter().all(|f| f.count == 4));
    check(&hull, &pts);
    assert_eq!(hull.frame().q, Quat::IDENTITY);
    assert!(hull.frame().p.length() < 1e-6);
    assert!((hull.min_extent() - 0.25).abs() < 1e-6);
}

#[test]
fn box_hull_mass_matches_box() {
    let h = Vec3::new(0.5, 0.3, 0.7);
    let offset = Vec3::new(1.0, -2.0, 3.0);
    let pts: Vec<Vec3> = corners(h).into_iter().map(|p| p + offset).collect();
    let hull = Arc::new(ConvexHull::new(&pts).unwrap());
    assert!((hull.frame().p - offset).length() < 1e-5);
    let a = Shape::Hull { hull }.mass_properties(700.0);
    let b = Shape::Box { half_extents: h }.mass_properties(700.0);
    assert!((a.mass / b.mass - 1.0).abs() < 1e-5, "{a:?} {b:?}");
    assert!(
        ((a.inertia - b.inertia) / b.inertia).abs().max_element() < 1e-4,
        "{a:?} {b:?}"
    );
}

/// A rotated box: the hull finds the principal axes (the rotation comes back in the
/// frame) and the box's moments.
#[test]
fn rotated_box_hull_finds_principal_axes() {
    let h = Vec3::new(0.5, 0.3, 0.7);
    let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.5, 0.7);
    let pts: Vec<Vec3> = corners(h).into_iter().map(|p| q * p).collect();
    let hull = ConvexHull::new(&pts).unwrap();
    let b = Shape::Box { half_extents: h }.mass_properties(1.0);
    let mut got = hull.unit_inertia().to_array();
    let mut want = b.inertia.to_array();
    got.sort_by(f32::total_cmp);
    want.sort_by(f32::total_cmp);
    for k in 0..3 {
        assert!((got[k] / want[k] - 1.0).abs() < 1e-4, "{got:?} {want:?}");
    }
    check(&hull, &pts);
    // Vertices in the hull frame are axis-aligned box corners.
    for v in hull.vertices() {
        let a = v.abs();
        let mut s = a.to_array();
        s.sort_by(f32::total_cmp);
        assert!(
            (s[0] - 0.3).abs() < 1e-4 && (s[1] - 0.5).abs() < 1e-4,
            "{v}"
        );
    }
}

#[test]
fn random_clouds_lie_inside_every_face() {
    let mut rng = Rng::new(11);
    for case in 0..200 {
        let n = 4 + (rng.next_u64() % 60) as usize;
        let scale = Vec3::new(
            rng.range(0.1, 2.0),
            rng.range(0.1, 2.0),
            rng.range(0.1, 2.0),
        );
        let mut pts: Vec<Vec3> = (0..n)
            .map(|_| rng.direction() * rng.range(0.2, 1.0) * scale + Vec3::splat(3.0))
            .collect();
        if case % 3 == 0 {
            // Coplanar extras on a face of the cloud and duplicates.
            let extra: Vec<Vec3> = pts.iter().take(3).copied().collect();
            pts.extend(extra);
        }
        let hull = match ConvexHull::new(&pts) {
            Ok(h) => h,
            Err(e) => panic!("case {case}: {e}"),
        };
        check(&hull, &pts);
        assert!(hull.vertices().len() <= n);
        // Volume against the divergence theorem over the polygon faces.
        let mut vol = 0.0;
        for (k, f) in hull.faces().iter().enumerate() {
            let poly = hull.face_polygon(k);
            let a = hull.vertices()[poly[0] as usize];
            for j in 1..poly.len() - 1 {
                let b = hull.vertices()[poly[j] as usize];
                let c = hull.vertices()[poly[j + 1] as usize];
                vol += f.offset * (b - a).cross(c - a).dot(f.normal) / 6.0;
            }
        }
        assert!(
            (vol / hull.volume() - 1.0).abs() < 1e-3,
            "{vol} {}",
            hull.volume()
        );
    }
}

#[test]
fn degenerate_inputs_are_errors_naming_the_field() {
    let err = |pts: &[Vec3]| ConvexHull::new(pts).unwrap_err().to_string();
    let o = Vec3::ZERO;
    assert!(err(&[o, Vec3::X, Vec3::Y]).contains("ConvexHull::points"));
    assert!(
        err(&[o, Vec3::X, Vec3::Y, Vec3::new(f32::NAN, 0.0, 0.0)]).contains("ConvexHull::points")
    );
    let coincident = err(&[Vec3::ONE; 5]);
    assert!(coincident.contains("ConvexHull::points") && coincident.contains("zero volume"));
    let collinear = err(&[o, Vec3::X, Vec3::X * 2.0, Vec3::X * 3.0]);
    assert!(collinear.contains("zero volume"));
    let coplanar = err(&[
        o,
        Vec3::X,
        Vec3::Y,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.3, 0.2, 1e-9),
    ]);
    assert!(coplanar.contains("zero volume"));
    // Too many vertices: points on a sphere.
    let mut rng = Rng::new(5);
    let sphere: Vec<Vec3> = (0..200).map(|_| rng.direction()).collect();
    assert!(err(&sphere).contains("MAX_HULL_VERTICES"));
}

#[test]
fn ray_contains_area_and_submerged_volume_of_a_box_hull() {
    let h = Vec3::new(0.5, 0.3, 0.7);
    let hull = ConvexHull::new(&corners(h)).unwrap();
    let (t, n) = hull.ray(Vec3::new(-3.0, 0.1, 0.2), Vec3::X, 10.0).unwrap();
    assert!((t - 2.5).abs() < 1e-5 && n == Vec3::NEG_X);
    assert!(hull.ray(Vec3::new(-3.0, 0.4, 0.2), Vec3::X, 10.0).is_none());
    assert!(hull.ray(Vec3::new(-3.0, 0.1, 0.2), Vec3::X, 2.0).is_none());
    assert_eq!(hull.ray(Vec3::ZERO, Vec3::X, 1.0).unwrap().0, 0.0);
    assert!(hull.contains(Vec3::new(0.49, -0.29, 0.69)));
    assert!(!hull.contains(Vec3::new(0.51, 0.0, 0.0)));
    let mut rng = Rng::new(9);
    let bx = Shape::Box { half_extents: h };
    let sh = Shape::Hull {
        hull: Arc::new(hull),
    };
    for _ in 0..100 {
        let q = rng.rotation();
        let u = rng.direction();
        let a = crate::forces::projected_area(&sh, q, u);
        let b = crate::forces::projected_area(&bx, q, u);
        assert!((a - b).abs() < 1e-4 * b, "{a} {b}");
        let xf = Transform::new(Vec3::new(0.0, rng.range(-1.0, 1.0), 0.0), q);
        let n = rng.direction();
        let off = rng.range(-0.5, 0.5) + n.dot(xf.p);
        let (va, ca) = crate::forces::submerged_volume(&sh, &xf, n, off);
        let (vb, cb) = crate::forces::submerged_volume(&bx, &xf, n, off);
        assert!((va - vb).abs() < 1e-4, "{va} {vb}");
        if vb > 1e-3 {
            assert!((ca - cb).length() < 1e-3, "{ca} {cb}");
        }
    }
}
