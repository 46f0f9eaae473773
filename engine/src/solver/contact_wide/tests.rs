use super::*;
use crate::collision::test_util::Rng;
use crate::solver::{BodyState, MassRow, StepContext};
use glam::{Mat3, Quat, Vec3};

/// One contact of a batch, in scalars: bodies (solver indices, [`NULL`] for the ground),
/// normal, points (arm on A, arm on B, separation, impulse), friction, carried impulses.
#[derive(Clone, Copy)]
struct Lane {
    a: u32,
    b: u32,
    normal: Vec3,
    points: [(Vec3, Vec3, f32, f32); MAX_POINTS],
    count: usize,
    friction: f32,
    friction_impulse: [f32; 2],
    twist_impulse: f32,
}

/// A batch of `lanes` (the rest empty), laid out as prepare lays one out.
fn batch(lanes: &[Lane], masses: &[MassRow]) -> ContactConstraintW {
    let mut c = ContactConstraintW::default();
    let lane = |i: usize| lanes.get(i);
    let col =
        |f: &dyn Fn(&Lane) -> f32| FloatW::new(std::array::from_fn(|i| lane(i).map_or(0.0, f)));
    let col3 = |f: &dyn Fn(&Lane) -> Vec3| Vec3W {
        x: col(&|l| f(l).x),
        y: col(&|l| f(l).y),
        z: col(&|l| f(l).z),
    };
    let mass = |k: u32| {
        if k == NULL {
            0.0
        } else {
            masses[k as usize].f[0]
        }
    };
    c.normal = col3(&|l| l.normal);
    c.friction_impulse = [
        col(&|l| l.friction_impulse[0]),
        col(&|l| l.friction_impulse[1]),
    ];
    c.twist_impulse = col(&|l| l.twist_impulse);
    c.a = std::array::from_fn(|i| lane(i).map_or(NULL, |l| l.a));
    c.b = std::array::from_fn(|i| lane(i).map_or(NULL, |l| l.b));
    c.write_a = std::array::from_fn(|i| lane(i).is_some_and(|l| mass(l.a) > 0.0));
    c.write_b = std::array::from_fn(|i| lane(i).is_some_and(|l| mass(l.b) > 0.0));
    c.source = std::array::from_fn(|i| if i < lanes.len() { i as u32 } else { NULL });
    c.counts = std::array::from_fn(|i| lane(i).map_or(0, |l| l.count as u8));
    c.points_used = lanes.iter().map(|l| l.count).max().unwrap_or(0);
    c.lone = c.counts.contains(&1);
    // As prepare decides it: every lane's bodies `k I` (a static side's zeros included).
    let isotropic = |k: u32| {
        k == NULL || {
            let f = &masses[k as usize].f;
            f[1] == f[4] && f[4] == f[6] && f[2] == 0.0 && f[3] == 0.0 && f[5] == 0.0
        }
    };
    c.isotropic = lanes.iter().all(|l| isotropic(l.a) && isotropic(l.b));
    c.friction = col(&|l| l.friction);
    let center = |l: &Lane, side: usize| {
        let sum: Vec3 = l.points[..l.count]
            .iter()
            .map(|p| if side == 0 { p.0 } else { p.1 })
            .sum();
        sum / l.count as f32
    };
    c.center_a = col3(&|l| center(l, 0));
    c.center_b = col3(&|l| center(l, 1));
    (c.k11, c.k12, c.k22) = (col(&|_| 0.8), col(&|_| 0.05), col(&|_| 0.7));
    c.twist_mass = col(&|_| 0.3);
    for j in 0..MAX_POINTS {
        let point = |l: &Lane| (j < l.count).then(|| l.points[j]);
        let p = |f: &dyn Fn((Vec3, Vec3, f32, f32)) -> f32| col(&|l| point(l).map_or(0.0, f));
        let v = |f: &dyn Fn((Vec3, Vec3, f32, f32)) -> Vec3| Vec3W {
            x: p(&|q| f(q).x),
            y: p(&|q| f(q).y),
            z: p(&|q| f(q).z),
        };
        let lever = |l: &Lane| {
            point(l).map_or(0.0, |q| {
                let off = q.0 - center(l, 0);
                (off - off.dot(l.normal) * l.normal).length()
            })
        };
        c.points[j] = PointW {
            r_a: v(&|q| q.0),
            r_b: v(&|q| q.1),
            base_separation: p(&|q| q.2),
            normal_mass: p(&|_| 0.45),
            lever: col(&lever),
        };
        c.normal_impulse[j] = p(&|q| q.3);
    }
    c
}

/// A one-point contact (a sphere or a capsule's end on the ground, or on a box) gives
/// the same bits alone in its batch, where the twist row is skipped unless a twist was
/// carried over, as beside four-point lanes, which solve theirs: the lane width and the
/// batches' make-up must not change a result. Body 0 rests apart from the ground with its
/// spin at negative zeros, the case where a zero impulse applied through the inertia
/// could turn a zero's sign.
#[test]
fn a_lone_point_solves_alike_alone_and_beside_four_point_lanes() {
    let mut rng = Rng::new(5);
    let n = W + 2;
    let mut states = Vec::new();
    let mut masses = Vec::new();
    for k in 0..n {
        let w = if k == 0 {
            Vec3::splat(-0.0)
        } else {
            rng.direction() * rng.range(0.0, 2.0)
        };
        let v = if k == 0 { Vec3::ZERO } else { rng.direction() };
        states.push(BodyState {
            v,
            w,
            ..BodyState::IDENTITY
        });
        let inertia = Vec3::new(
            rng.range(0.5, 2.0),
            rng.range(0.5, 2.0),
            rng.range(0.5, 2.0),
        );
        masses.push(MassRow::new(
            rng.range(0.2, 1.0),
            &Mat3::from_diagonal(inertia),
        ));
    }
    let normal = Vec3::new(-0.3, 1.0, -0.2).normalize();
    let sphere = |a: u32, friction: f32, twist: f32| Lane {
        a,
        b: NULL,
        normal,
        // Body 0 at rest, 1 cm above the ground: its point pushes nothing.
        points: [(
            -0.5 * normal,
            Vec3::ZERO,
            if a == 0 { 0.01 } else { -0.001 },
            0.0,
        ); MAX_POINTS],
        count: 1,
        friction,
        friction_impulse: [0.0; 2],
        twist_impulse: twist,
    };
    let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
    let face = |a: u32, b: u32| {
        let q = Quat::from_rotation_arc(Vec3::Y, normal);
        Lane {
            a,
            b,
            normal,
            points: corners.map(|(x, z)| {
                let r = q * Vec3::new(x, -0.5, z);
                (
                    r,
                    r - normal * 0.01 + Vec3::new(0.02, 0.0, -0.01),
                    -0.002,
                    0.3,
                )
            }),
            count: 4,
            friction: 0.6,
            friction_impulse: [0.05, -0.02],
            twist_impulse: 0.01,
        }
    };
    // Lone lanes: no friction and no twist carried (the row is skipped), friction and a
    // twist carried from a manifold that had two points (the row runs).
    let lone = [
        sphere(0, 0.0, 0.0),
        sphere(1, 0.6, 0.0),
        sphere(2, 0.6, 0.04),
    ];
    let ctx = StepContext::for_tests();
    for lone in lone {
        let mut alone_states = states.clone();
        let mut alone = batch(&[lone], &masses);
        let mut mixed_states = states.clone();
        let mut lanes: Vec<Lane> = (0..W - 1).map(|i| face(3 + i as u32 % 4, NULL)).collect();
        lanes[0] = face(3, 4);
        lanes.insert(1, lone);
        lanes.truncate(W);
        let mut mixed = batch(&lanes, &masses);
        let mut rows = masses.to_vec();
        let mut ptr = |states: &mut Vec<BodyState>| StatesPtr::new(states, Some(&mut rows));
        for use_bias in [true, false, true, false] {
            alone.solve(ptr(&mut alone_states), &ctx, use_bias);
            mixed.solve(ptr(&mut mixed_states), &ctx, use_bias);
        }
        let k = lone.a as usize;
        let bits = |s: &BodyState| [s.v.to_array(), s.w.to_array()].map(|v| v.map(f32::to_bits));
        assert_eq!(bits(&alone_states[k]), bits(&mixed_states[k]), "body {k}");
        let twist =
            |c: &ContactConstraintW, lane: usize| c.twist_impulse.to_array()[lane].to_bits();
        assert_eq!(twist(&alone, 0), twist(&mixed, 1));
        let load =
            |c: &ContactConstraintW, lane: usize| c.normal_impulse[0].to_array()[lane].to_bits();
        assert_eq!(load(&alone, 0), load(&mixed, 1));
    }
}

/// A lane of cubes (inverse inertias `k I`) gives the same bits in a batch of such lanes,
/// whose passes multiply by `k` alone, as beside a lane of an anisotropic body, whose
/// batch takes the full products: the batches' make-up must not change a result. The
/// normal is "up" exactly and the spins start at negative zeros, where the two products
/// differ in the signs of zeros (`k x` against `k x + 0 y + 0 z`).
#[test]
fn an_isotropic_lane_solves_alike_in_either_kind_of_batch() {
    let cube = |k: f32| MassRow::new(1.0, &Mat3::from_diagonal(Vec3::splat(k)));
    let masses = [
        cube(1.5),
        cube(0.75),
        MassRow::new(0.5, &Mat3::from_diagonal(Vec3::new(0.4, 1.2, 0.9))),
        cube(2.0),
    ];
    let spin = Vec3::new(-0.0, 0.0, -0.0);
    let mut states: Vec<BodyState> = (0..masses.len())
        .map(|k| BodyState {
            v: if k == 0 {
                Vec3::new(-0.0, -0.2, 0.0)
            } else {
                Vec3::new(0.1, -0.3, 0.05)
            },
            w: if k < 2 {
                spin
            } else {
                Vec3::new(0.2, -0.1, 0.3)
            },
            ..BodyState::IDENTITY
        })
        .collect();
    states[1].w = Vec3::new(0.0, -0.0, 0.0);
    let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
    let face = |a: u32, b: u32, count: usize| Lane {
        a,
        b,
        normal: Vec3::Y,
        points: corners.map(|(x, z)| {
            let r = Vec3::new(x, 0.5, z);
            (r, r - Vec3::new(0.0, 1.0, 0.0), -0.003, 0.2)
        }),
        count,
        friction: 0.6,
        friction_impulse: [0.0; 2],
        twist_impulse: 0.0,
    };
    // A cube resting on an edge (its arms below its centre and on z = 0, so that the
    // arms' cross products with the impulses have zeros of both signs), on the ground and
    // on another cube; a cube on the ground with four points.
    let edge = |a: u32, b: u32| Lane {
        points: [
            (
                Vec3::new(-0.5, -0.5, 0.0),
                Vec3::new(-0.5, 0.5, 0.0),
                -0.002,
                0.0,
            ),
            (
                Vec3::new(0.5, -0.5, 0.0),
                Vec3::new(0.5, 0.5, 0.0),
                -0.004,
                0.0,
            ),
            (Vec3::ZERO, Vec3::ZERO, 0.0, 0.0),
            (Vec3::ZERO, Vec3::ZERO, 0.0, 0.0),
        ],
        count: 2,
        ..face(a, b, 2)
    };
    let ctx = StepContext::for_tests();
    for lone in [edge(0, NULL), edge(1, 0), face(0, NULL, 4)] {
        let mut iso_states = states.clone();
        let mut iso = batch(&[lone, face(3, NULL, 4)], &masses);
        let mut general_states = states.clone();
        let mut general = batch(&[face(2, NULL, 4), lone], &masses);
        assert!(iso.isotropic && !general.isotropic);
        let mut rows = masses.to_vec();
        let mut ptr = |states: &mut Vec<BodyState>| StatesPtr::new(states, Some(&mut rows));
        for use_bias in [true, false, true, false] {
            iso.warm_start(ptr(&mut iso_states));
            general.warm_start(ptr(&mut general_states));
            iso.solve(ptr(&mut iso_states), &ctx, use_bias);
            general.solve(ptr(&mut general_states), &ctx, use_bias);
        }
        let bits = |s: &BodyState| [s.v.to_array(), s.w.to_array()].map(|v| v.map(f32::to_bits));
        for k in [lone.a, lone.b].into_iter().filter(|&k| k != NULL) {
            let k = k as usize;
            assert_eq!(bits(&iso_states[k]), bits(&general_states[k]), "body {k}");
        }
        let loads = |c: &ContactConstraintW, lane: usize| {
            c.normal_impulse.map(|l| l.to_array()[lane].to_bits())
        };
        assert_eq!(loads(&iso, 0), loads(&general, 1));
    }
}
