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
    let r = 0.25;
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 2.0 + r, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::sphere(r).with_restitution(0.8))
        .unwrap();
    for s in 0..80 {
        w.step(1.0 / 60.0).unwrap();
        let y = w.body_position(b).unwrap().y - r;
        let v = w.linear_velocity(b).unwrap().y;
        if s > 30 && s < 60 {
            println!(
                "{s}: y {y:.4} v {v:.4} contacts {}",
                w.contacts()
                    .map(|c| format!(
                        "{:?}",
                        c.points
                            .iter()
                            .map(|p| (p.separation, p.normal_impulse))
                            .collect::<Vec<_>>()
                    ))
                    .collect::<String>()
            );
        }
    }
}
