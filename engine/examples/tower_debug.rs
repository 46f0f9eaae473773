use impetus::*;
fn main() {
    let mut w = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        worker_count: 1,
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
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(10);
    let bs: Vec<_> = (0..n)
        .map(|i| {
            let b = w
                .create_body(&BodyDef {
                    position: Vec3::new(0.0, 0.5 + i as f32, 0.0),
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
            b
        })
        .collect();
    for s in 0..600 {
        w.step(1.0 / 60.0).unwrap();
        if s % 60 == 0 || s < 5 {
            let top = *bs.last().unwrap();
            println!(
                "{s}: top {} rot {:?} w {}",
                w.body_position(top).unwrap(),
                w.body_rotation(top).unwrap(),
                w.angular_velocity(top).unwrap()
            );
            for c in w.contacts().take(3) {
                println!(
                    "   n {} pts {:?}",
                    c.normal,
                    c.points
                        .iter()
                        .map(|p| (p.point, p.separation, p.id, p.normal_impulse))
                        .collect::<Vec<_>>()
                );
            }
        }
    }
}
