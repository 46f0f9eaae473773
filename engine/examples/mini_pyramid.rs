use impetus::*;
fn main() {
    let base: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(2);
    let sub: u32 = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(4);
    let mu: f32 = std::env::args()
        .nth(3)
        .map(|s| s.parse().unwrap())
        .unwrap_or(0.6);
    let mut w = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        worker_count: 1,
        substeps: sub,
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
    w.add_shape(g, &ShapeDef::cuboid(Vec3::new(50.0, 1.0, 50.0)))
        .unwrap();
    let half = (base as f32 - 1.0) * 0.5;
    let mut ids = vec![];
    for i in 0..base {
        for j in i..base {
            let b = w
                .create_body(&BodyDef {
                    position: Vec3::new(j as f32 - 0.5 * i as f32 - half, i as f32 + 0.5, 0.0),
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(
                b,
                &ShapeDef::cuboid(Vec3::splat(0.5))
                    .with_density(100.0)
                    .with_friction(mu),
            )
            .unwrap();
            ids.push(b);
        }
    }
    let top = *ids.last().unwrap();
    for s in 0..1200 {
        w.step(1.0 / 60.0).unwrap();
        if s % 100 == 99 {
            println!(
                "{s}: top {} w {} v {}",
                w.body_position(top).unwrap(),
                w.angular_velocity(top).unwrap(),
                w.linear_velocity(top).unwrap()
            );
        }
    }
}
