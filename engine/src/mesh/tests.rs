use super::*;
use crate::collision::test_util::Rng;

/// An `n × n`-quad grid of side `size`, flat at height 0, with diagonals.
pub(crate) fn grid(n: usize, size: f32) -> TriMesh {
    let mut v = Vec::new();
    for r in 0..=n {
        for c in 0..=n {
            v.push(Vec3::new(
                c as f32 * size / n as f32 - size / 2.0,
                0.0,
                r as f32 * size / n as f32 - size / 2.0,
            ));
        }
    }
    let mut t = Vec::new();
    let id = |r: usize, c: usize| (r * (n + 1) + c) as u32;
    for r in 0..n {
        for c in 0..n {
            t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
            t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
        }
    }
    TriMesh::new(v, t).unwrap()
}

#[test]
fn invalid_meshes_name_the_field() {
    let ok = vec![Vec3::ZERO, Vec3::X, Vec3::Z];
    let msg = |r: Result<TriMesh, Error>| r.unwrap_err().to_string();
    assert!(msg(TriMesh::new(vec![], vec![[0, 1, 2]])).contains("TriMesh::vertices"));
    assert!(msg(TriMesh::new(ok.clone(), vec![])).contains("TriMesh::triangles"));
    let nan = vec![Vec3::ZERO, Vec3::X, Vec3::new(f32::NAN, 0.0, 1.0)];
    assert!(msg(TriMesh::new(nan, vec![[0, 1, 2]])).contains("TriMesh::vertices"));
    let inf = vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, f32::INFINITY, 1.0)];
    assert!(msg(TriMesh::new(inf, vec![[0, 1, 2]])).contains("TriMesh::vertices"));
    assert!(msg(TriMesh::new(ok.clone(), vec![[0, 1, 3]])).contains("TriMesh::triangles"));
    assert!(msg(TriMesh::new(ok.clone(), vec![[0, 1, 1]])).contains("zero area"));
    let line = vec![Vec3::ZERO, Vec3::X, 2.0 * Vec3::X];
    assert!(msg(TriMesh::new(line, vec![[0, 1, 2]])).contains("zero area"));
    assert!(TriMesh::new(ok, vec![[0, 1, 2]]).is_ok());
}

#[test]
fn invalid_height_fields_name_the_field() {
    let msg = |r: Result<HeightField, Error>| r.unwrap_err().to_string();
    assert!(msg(HeightField::new(1, 2, vec![0.0; 2], Vec3::ONE)).contains("::rows"));
    assert!(msg(HeightField::new(2, 1, vec![0.0; 2], Vec3::ONE)).contains("::cols"));
    assert!(msg(HeightField::new(2, 2, vec![0.0; 3], Vec3::ONE)).contains("::heights"));
    let nan = vec![0.0, f32::NAN, 0.0, 0.0];
    assert!(msg(HeightField::new(2, 2, nan, Vec3::ONE)).contains("::heights"));
    let bad = Vec3::new(1.0, 0.0, 1.0);
    assert!(msg(HeightField::new(2, 2, vec![0.0; 4], bad)).contains("::scale"));
    let f = HeightField::new(3, 4, vec![0.5; 12], Vec3::new(2.0, 2.0, 1.0)).unwrap();
    assert_eq!(f.triangle_count(), 2 * 2 * 3);
    let b = f.bounds();
    assert_eq!(
        (b.min, b.max),
        (Vec3::new(0.0, 1.0, 0.0), Vec3::new(6.0, 1.0, 2.0))
    );
    // Facing +y.
    for t in 0..12 {
        assert!(f.triangle(t).normal().y > 0.999);
    }
}

/// The height field's on-the-fly triangles, active edges, box queries and rays equal
/// those of a `TriMesh` built from the same grid (flat patches, ridges and valleys).
#[test]
fn height_field_matches_the_same_grid_as_a_mesh() {
    let mut rng = Rng::new(19);
    let (rows, cols) = (9, 13);
    // Heights in steps of 0.5: flat patches (inactive edges) among slopes.
    let heights: Vec<f32> = (0..rows * cols)
        .map(|_| (rng.range(0.0, 3.0) * 2.0).floor() * 0.5)
        .collect();
    let scale = Vec3::new(0.7, 1.3, 0.9);
    let f = HeightField::new(rows, cols, heights.clone(), scale).unwrap();
    let v: Vec<Vec3> = (0..rows * cols)
        .map(|k| Vec3::new((k % cols) as f32, heights[k], (k / cols) as f32) * scale)
        .collect();
    let mut t = Vec::new();
    for r in 0..rows - 1 {
        for c in 0..cols - 1 {
            let id = |r: usize, c: usize| (r * cols + c) as u32;
            t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
            t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
        }
    }
    let m = TriMesh::new(v, t).unwrap();
    assert_eq!(f.triangle_count(), m.triangle_count());
    assert_eq!(f.bounds(), m.bounds());
    let mut inactive = 0;
    for i in 0..m.triangle_count() as u32 {
        assert_eq!(f.triangle(i), m.triangle(i), "triangle {i}");
        inactive += (0..3).filter(|&e| !m.triangle(i).edge_active(e)).count();
    }
    assert!(inactive > 50, "{inactive}");
    let size = m.bounds().max;
    let mut hits = 0;
    for _ in 0..500 {
        let c = Vec3::new(
            rng.range(-1.0, size.x + 1.0),
            rng.range(-0.5, 2.0),
            rng.range(-1.0, size.z + 1.0),
        );
        let bb = Aabb {
            min: c - Vec3::splat(rng.range(0.05, 2.0)),
            max: c + Vec3::splat(rng.range(0.05, 2.0)),
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        f.query_aabb(&bb, |i| a.push(i));
        m.query_aabb(&bb, |i| b.push(i));
        b.sort_unstable();
        assert_eq!(a, b);
        let o = Vec3::new(
            rng.range(-2.0, size.x + 2.0),
            rng.range(-1.0, 4.0),
            rng.range(-2.0, size.z + 2.0),
        );
        let d = rng.direction();
        let (x, y) = (f.ray(o, d, 20.0), m.ray(o, d, 20.0));
        hits += y.is_some() as usize;
        assert_eq!(x.map(|h| h.1), y.map(|h| h.1), "{o} {d}");
        if let (Some(x), Some(y)) = (x, y) {
            assert_eq!((x.0, x.2), (y.0, y.2));
        }
    }
    assert!(hits > 100, "{hits}");
}

#[test]
fn flat_grid_edges_inside_are_inactive_boundary_active() {
    let m = grid(4, 4.0);
    for t in 0..m.triangle_count() as u32 {
        let tri = m.triangle(t);
        for i in 0..3 {
            let (a, b) = (tri.vertices[i], tri.vertices[(i + 1) % 3]);
            let boundary = |f: fn(Vec3) -> f32| f(a).abs() == 2.0 && f(a) == f(b);
            let on_rim = boundary(|v| v.x) || boundary(|v| v.z);
            assert_eq!(tri.edge_active(i), on_rim, "triangle {t} edge {i}");
        }
    }
}

#[test]
fn ridge_is_active_valley_is_not() {
    // Two slopes meeting at x = 0: a ridge (peak up) and a valley (V-groove).
    for (h, ridge) in [(1.0f32, true), (-1.0, false)] {
        let v = vec![
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(0.0, h, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(-1.0, 0.0, 1.0),
            Vec3::new(0.0, h, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
        ];
        let t = vec![[0, 3, 4], [0, 4, 1], [1, 4, 5], [1, 5, 2]];
        let m = TriMesh::new(v, t).unwrap();
        // Triangle 1's edge 1 (vertices 4 -> 1) is the ridge/valley line.
        assert_eq!(m.triangle(1).edge_active(1), ridge, "h = {h}");
        // The diagonals of each slope are flat and inactive.
        assert!(!m.triangle(0).edge_active(2));
    }
}

#[test]
fn aabb_query_and_ray_match_brute_force() {
    let mut rng = Rng::new(7);
    let mut v = Vec::new();
    let mut t = Vec::new();
    for k in 0..300u32 {
        let c = Vec3::new(
            rng.range(-10.0, 10.0),
            rng.range(-3.0, 3.0),
            rng.range(-10.0, 10.0),
        );
        for _ in 0..3 {
            v.push(
                c + Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                ),
            );
        }
        t.push([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    let m = TriMesh::new(v, t).unwrap();
    for _ in 0..200 {
        let c = Vec3::new(
            rng.range(-11.0, 11.0),
            rng.range(-4.0, 4.0),
            rng.range(-11.0, 11.0),
        );
        let bb = Aabb {
            min: c - Vec3::splat(rng.range(0.1, 3.0)),
            max: c + Vec3::splat(rng.range(0.1, 3.0)),
        };
        let mut got = Vec::new();
        m.query_aabb(&bb, |i| got.push(i));
        got.sort_unstable();
        let want: Vec<u32> = (0..m.triangle_count() as u32)
            .filter(|&i| triangle_aabb(&m.triangle(i)).overlaps(&bb))
            .collect();
        assert_eq!(got, want);

        let o = Vec3::new(
            rng.range(-12.0, 12.0),
            rng.range(-5.0, 5.0),
            rng.range(-12.0, 12.0),
        );
        let d = rng.direction();
        let hit = m.ray(o, d, 30.0);
        let brute = (0..m.triangle_count() as u32)
            .filter_map(|i| ray_triangle(o, d, &m.triangle(i), 30.0).map(|(s, n)| (s, i, n)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        assert_eq!(hit, brute);
    }
}
