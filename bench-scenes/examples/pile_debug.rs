use impetus::*;
use impetus_scenes::*;
fn main() {
    let mut w = World::new(world_def(1)).unwrap();
    find("pile").unwrap().build(&mut w, &Params::default()).unwrap();
    let start = measure::dynamic_positions(&w);
    for s in 0..600 {
        w.step(DT).unwrap();
        if s % 25 == 24 {
            let mut v: Vec<(f32, BodyId)> = start.iter().map(|&(id, _)| (w.linear_velocity(id).unwrap().length(), id)).collect();
            v.sort_by(|a, b| b.0.total_cmp(&a.0));
            let n_fast = v.iter().filter(|x| x.0 > 1.0).count();
            let (sp, id) = v[0];
            println!("{s}: fastest {sp:.2} at {} w {:.2}  (#>1m/s: {n_fast}) contacts {}", w.body_position(id).unwrap(), w.angular_velocity(id).unwrap().length(), w.profile().manifolds);
        }
    }
}
