use impetus::*;
use impetus_scenes::*;
fn main() {
    let name = std::env::args().nth(1).unwrap_or("pyramid".into());
    let mut w = World::new(world_def(1)).unwrap();
    find(&name)
        .unwrap()
        .build(&mut w, &Params::default())
        .unwrap();
    let start = measure::dynamic_positions(&w);
    for s in 0..600 {
        w.step(DT).unwrap();
        if s % 50 == 49 {
            let mut worst = (0.0f32, Vec3::ZERO, Vec3::ZERO);
            let mut vmax = (0.0f32, Vec3::ZERO);
            for &(id, p0) in &start {
                let p = w.body_position(id).unwrap();
                let d = (p - p0).length();
                if d > worst.0 {
                    worst = (d, p0, p - p0);
                }
                let v = w.linear_velocity(id).unwrap().length();
                if v > vmax.0 {
                    vmax = (v, p0);
                }
            }
            let top = start.iter().max_by(|a, b| a.1.y.total_cmp(&b.1.y)).unwrap();
            println!(
                "{s}: worst {:.4} at {} d {}  vmax {:.4} at {}  top sag {:.4}",
                worst.0,
                worst.1,
                worst.2,
                vmax.0,
                vmax.1,
                top.1.y - w.body_position(top.0).unwrap().y
            );
        }
    }
}
