//! `TriMesh::new` on arbitrary vertices and indices: `Ok` or `Err`, never a panic; a mesh it
//! returns answers ray and box queries without panicking.
#![no_main]

use impetus::{Aabb, TriMesh, Vec3};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&nv, rest)) = data.split_first() else {
        return;
    };
    let f = |c: &[u8]| f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let nv = (nv as usize).min(rest.len() / 12);
    let (vs, is) = rest.split_at(nv * 12);
    let vertices: Vec<Vec3> = vs
        .chunks_exact(12)
        .map(|p| Vec3::new(f(&p[0..4]), f(&p[4..8]), f(&p[8..12])))
        .collect();
    let u = |c: &[u8]| u32::from(u16::from_le_bytes([c[0], c[1]]));
    let triangles: Vec<[u32; 3]> = is
        .chunks_exact(6)
        .map(|t| [u(&t[0..2]), u(&t[2..4]), u(&t[4..6])])
        .collect();
    if let Ok(mesh) = TriMesh::new(vertices, triangles) {
        let b = mesh.bounds();
        let _ = mesh.ray(b.min - Vec3::ONE, Vec3::ONE, 1.0e6);
        let mut n = 0;
        mesh.query_aabb(
            &Aabb {
                min: b.min,
                max: b.max,
            },
            |_| n += 1,
        );
        assert!(n <= mesh.triangle_count());
    }
});
