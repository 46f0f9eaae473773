//! `ConvexHull::new` on arbitrary points (12 bytes a point, any f32 bit pattern): it returns
//! `Ok` or `Err`, never panics, and a hull it returns is finite and closed.
#![no_main]

use impetus::{ConvexHull, Vec3};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let f = |c: &[u8]| f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let points: Vec<Vec3> = data
        .chunks_exact(12)
        .map(|p| Vec3::new(f(&p[0..4]), f(&p[4..8]), f(&p[8..12])))
        .collect();
    if let Ok(hull) = ConvexHull::new(&points) {
        assert!(hull.volume().is_finite() && hull.volume() > 0.0);
        assert!(hull.unit_inertia().is_finite());
        assert!(hull.vertices().iter().all(|v| v.is_finite()));
        assert!(hull.faces().len() >= 4);
        // Every edge joins two faces (the hull is closed).
        assert!(hull.edges().len() >= 6);
        let _ = hull.support(Vec3::X);
    }
});
