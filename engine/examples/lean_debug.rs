use impetus::*;
fn main() {
    let base: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(40);
    let sub: u32 = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(4);
    let mut w = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        worker_count: 1,
        substeps: sub,
        contact_hertz: std::env::var("HZ")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(30.0),
        ..Default::default()
    })
    .unwrap();
    let g = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, -1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(g, &ShapeDef::cuboid(Vec3::new(100.0, 1.0, 100.0)))
        .unwrap();
    let half = (base as f32 - 1.0) * 0.5;
    let mut rows: Vec<Vec<BodyId>> = vec![];
    for i in 0..base {
        let mut r = vec![];
        for j in i..base {
            let b = w
                .create_body(&BodyDef {
                    position: Vec3::new(j as f32 - 0.5 * i as f32 - half, i as f32 + 0.5, 0.0),
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_density(100.0))
                .unwrap();
            r.push(b);
        }
        rows.push(r);
    }
    for s in 0..600 {
        w.step(1.0 / 60.0).unwrap();
        if s % 100 == 99 {
            let mut line = format!("{s}:");
            for i in (0..base).step_by(5).chain([base - 2, base - 1]) {
                let r = &rows[i];
                let z: f32 = r
                    .iter()
                    .map(|&b| w.body_position(b).unwrap().z)
                    .sum::<f32>()
                    / r.len() as f32;
                let ax: f32 = r
                    .iter()
                    .map(|&b| {
                        let q = w.body_rotation(b).unwrap();
                        2.0 * q.x * q.w.signum()
                    })
                    .sum::<f32>()
                    / r.len() as f32;
                line += &format!(" r{i} z {:+.4} ax {:+.5} |", z, ax);
            }
            println!("{line}");
        }
    }
}
