use super::*;
use crate::collision::test_util::Rng;
use crate::joint::{JointDef, JointKind, Limits, Motor, Spring};
use crate::math::{rotate_diagonal, Transform};
use crate::solver::joint::JointConstraint;
use crate::solver::{BodyState, MassRow, SolverMass};
use crate::BodyId;

/// `W` joints per kind between random, moving bodies (lane 1's body A static), with
/// the per-lane variety of limits, motors and springs; one warm start, one solve and
/// one relax pass in lanes and with the scalar rows must agree.
fn kinds(i: usize) -> [JointKind; 6] {
    let f = |x: f32| f32::NEG_INFINITY * x;
    let limits = match i % 3 {
        0 => Some(Limits {
            lower: -0.3,
            upper: 0.4,
        }),
        1 => Some(Limits {
            lower: f(1.0),
            upper: 0.2,
        }),
        _ => None,
    };
    let motor = (i % 2 == 0).then_some(Motor {
        speed: 1.0,
        max_force: 5.0,
    });
    let spring = match i % 4 {
        1 => Some(Spring::frequency(4.0, 0.7, 0.1)),
        3 => Some(Spring::physical(30.0, 2.0, -0.1)),
        _ => None,
    };
    let (min_length, max_length) = [(1.0, 1.0), (0.0, 1.2), (0.5, 1.1), (0.3, f(-1.0))][i % 4];
    [
        JointKind::Hinge {
            limits,
            motor,
            spring,
        },
        JointKind::Slider {
            limits,
            motor,
            spring,
        },
        JointKind::Fixed {
            linear: spring.filter(|_| i % 2 == 1),
            angular: spring.filter(|_| i % 3 != 0),
        },
        JointKind::Distance {
            min_length,
            max_length,
            spring: spring.filter(|_| i % 4 != 0),
        },
        JointKind::ConeTwist {
            cone_angle: 0.5,
            twist: limits,
        },
        JointKind::Motor {
            linear_offset: Vec3::new(0.1, -0.2, 0.3),
            angular_offset: Quat::from_rotation_y(0.3),
            max_force: 40.0 * (i as f32 + 1.0),
            max_torque: 5.0 * (i as f32 + 1.0),
            correction: 0.3,
        },
    ]
}

#[test]
fn lanes_match_the_scalar_rows_for_every_kind() {
    let ctx = StepContext::for_tests();
    let h = ctx.h;
    for kind in 0..6 {
        let mut rng = Rng::new(17 + kind as u64);
        let n = 2 * W;
        let positions: Vec<Vec3> = (0..n)
            .map(|_| {
                Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                )
            })
            .collect();
        let rotations: Vec<Quat> = (0..n).map(|_| rng.rotation()).collect();
        let mut sb = SolverBodies::default();
        for (slot, &rotation) in rotations.iter().enumerate() {
            if slot == 2 {
                sb.index.push(NULL);
                continue;
            }
            sb.index.push(sb.states.len() as u32);
            sb.slot.push(slot as u32);
            let small = |rng: &mut Rng, s: f32| rng.direction() * rng.range(0.0, s);
            sb.states.push(BodyState {
                v: small(&mut rng, 2.0),
                w: small(&mut rng, 3.0),
                dp: small(&mut rng, 0.01),
                dq: Quat::from_scaled_axis(small(&mut rng, 0.02)),
                ..BodyState::IDENTITY
            });
            let d = Vec3::new(
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
            );
            let mass = SolverMass {
                inv_mass: rng.range(0.2, 2.0),
                inv_inertia: rotate_diagonal(rotation, d),
            };
            // The lanes read the masses from the rows, as the step gathers both.
            sb.mass_rows
                .push(MassRow::new(mass.inv_mass, &mass.inv_inertia));
            sb.mass.push(mass);
        }
        let id = |i: usize| BodyId {
            index: i as u32,
            generation: 1,
        };
        let joints: Vec<JointData> = (0..W)
            .map(|i| {
                let frame = |rng: &mut Rng| Transform::new(rng.direction() * 0.5, rng.rotation());
                let (fa, fb) = (frame(&mut rng), frame(&mut rng));
                let def = JointDef::new(kinds(i)[kind], id(2 * i), fa, id(2 * i + 1), fb);
                let mut j = JointData::new(def, 2 * i as u32, 2 * i as u32 + 1, 0, 3);
                let small = |rng: &mut Rng| rng.range(-0.01, 0.01);
                j.impulses = JointImpulses {
                    linear: rng.direction() * 0.01,
                    angular: rng.direction() * 0.01,
                    lower: small(&mut rng).abs(),
                    upper: small(&mut rng).abs(),
                    motor: small(&mut rng),
                    spring: small(&mut rng),
                    cone: small(&mut rng).abs(),
                };
                j
            })
            .collect();

        // Scalar reference, joint by joint (they share no body).
        let mut expect = sb.states.clone();
        let mut reference = Vec::new();
        for slot in 0..W as u32 {
            let mut c =
                JointConstraint::prepare(slot, &joints[slot as usize], &sb, &positions, &rotations);
            let get = |s: &[BodyState], k: u32| {
                if k == NULL {
                    BodyState::IDENTITY
                } else {
                    s[k as usize]
                }
            };
            let (ka, kb, (write_a, write_b)) = (c.a, c.b, c.writes());
            let put = |s: &mut [BodyState], (va, wa, vb, wb): (Vec3, Vec3, Vec3, Vec3)| {
                if write_a {
                    (s[ka as usize].v, s[ka as usize].w) = (va, wa);
                }
                if write_b {
                    (s[kb as usize].v, s[kb as usize].w) = (vb, wb);
                }
            };
            let r = c.warm_start(&get(&expect, c.a), &get(&expect, c.b));
            put(&mut expect, r);
            for use_bias in [true, false] {
                let r = c.solve(&get(&expect, c.a), &get(&expect, c.b), &ctx, use_bias);
                put(&mut expect, r);
            }
            reference.push((c.impulses, c.reactions(&expect)));
        }

        let slots: Vec<u32> = (0..W as u32).collect();
        let mut lanes = JointW::prepare(&slots, &joints, &sb, &positions, &rotations, h);
        let mut got = sb.states.clone();
        let ptr = StatesPtr::new(&mut got, None);
        lanes.warm_start(ptr);
        lanes.solve(ptr, &ctx, true);
        lanes.solve(ptr, &ctx, false);
        let mut stored = joints.clone();
        lanes.store(ptr, DisjointPtr::new(&mut stored), 4.0, 1.0 / h);

        let close = |a: Vec3, b: Vec3| (a - b).length() <= 1.0e-4 * (1.0 + a.length());
        for (k, (e, g)) in expect.iter().zip(&got).enumerate() {
            assert!(
                close(e.v, g.v) && close(e.w, g.w),
                "kind {kind} body {k}: scalar {:?} {:?} vs lanes {:?} {:?}",
                e.v,
                e.w,
                g.v,
                g.w
            );
        }
        for (i, (imp, (lin, ang))) in reference.iter().enumerate() {
            let s = &stored[i];
            let a = [imp.lower, imp.upper, imp.motor, imp.spring, imp.cone];
            let b = [
                s.impulses.lower,
                s.impulses.upper,
                s.impulses.motor,
                s.impulses.spring,
                s.impulses.cone,
            ];
            assert!(
                close(imp.linear, s.impulses.linear)
                    && close(imp.angular, s.impulses.angular)
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| (x - y).abs() <= 1.0e-4 * (1.0 + x.abs())),
                "kind {kind} joint {i}: scalar {imp:?} vs lanes {:?}",
                s.impulses
            );
            assert!(
                close(*lin / h, s.reaction) && close(*ang / h, s.angular_reaction),
                "kind {kind} joint {i}: reaction"
            );
        }
    }
}
