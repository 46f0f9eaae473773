//! Joint scenes with contact: ragdolls falling into a pile, a door banged by thrown boxes,
//! and a motor-driven tumbler full of boxes.

use super::{ground, random_rotation, BodySpec, JointSpec, Params, Recipe, ShapeSpec};
use crate::Rng;
use impetus::{Motor, Quat, Vec3};

/// Bones of one ragdoll (its joints: one less).
pub const RAGDOLL_BONES: usize = 11;

/// A box bone of half extents `(x, y, z)` centred at `(cx, cy, 0)`, in the ragdoll's frame.
const fn bone(x: f32, y: f32, z: f32, cx: f32, cy: f32) -> (ShapeSpec, Vec3) {
    (
        ShapeSpec::Cuboid(Vec3::new(x, y, z)),
        Vec3::new(cx, cy, 0.0),
    )
}

/// The bones of a standing ragdoll in its own frame: the pelvis at the origin, y up, facing
/// +z, arms hanging at its sides, 1.82 m from sole to crown. Neighbours not joined to each
/// other stay at least 4 cm apart.
const BONES: [(ShapeSpec, Vec3); RAGDOLL_BONES] = [
    bone(0.15, 0.10, 0.10, 0.0, 0.0),                   // 0 pelvis
    bone(0.17, 0.25, 0.10, 0.0, 0.35),                  // 1 torso
    (ShapeSpec::Ball(0.11), Vec3::new(0.0, 0.75, 0.0)), // 2 head
    bone(0.05, 0.14, 0.05, -0.26, 0.42),                // 3 upper arm, left (−x)
    bone(0.045, 0.13, 0.045, -0.26, 0.14),              // 4 lower arm, left
    bone(0.05, 0.14, 0.05, 0.26, 0.42),                 // 5 upper arm, right
    bone(0.045, 0.13, 0.045, 0.26, 0.14),               // 6 lower arm, right
    bone(0.065, 0.20, 0.065, -0.09, -0.32),             // 7 thigh, left
    bone(0.055, 0.20, 0.055, -0.09, -0.76),             // 8 shin, left
    bone(0.065, 0.20, 0.065, 0.09, -0.32),              // 9 thigh, right
    bone(0.055, 0.20, 0.055, 0.09, -0.76),              // 10 shin, right
];

/// The joints of a ragdoll, parent (A) to child (B), with the anchor and axis in the
/// ragdoll's frame. Spine, neck, shoulders and hips are cone-twists about the child bone's
/// direction; elbows and knees hinges about x, the elbows bending forward (towards +z,
/// negative angles), the knees backward (positive angles); both start straight, at a limit.
fn ragdoll_joints() -> [JointSpec; RAGDOLL_BONES - 1] {
    let down = Vec3::NEG_Y;
    let mut joints = [JointSpec::ball(0, 0, Vec3::ZERO); RAGDOLL_BONES - 1];
    joints[0] = JointSpec::cone_twist(0, 1, Vec3::new(0.0, 0.10, 0.0), Vec3::Y, 0.5, [-0.4, 0.4]);
    joints[1] = JointSpec::cone_twist(1, 2, Vec3::new(0.0, 0.62, 0.0), Vec3::Y, 0.6, [-0.8, 0.8]);
    for (k, side) in [-1.0f32, 1.0].into_iter().enumerate() {
        let (upper, lower) = (3 + 2 * k, 4 + 2 * k);
        let (thigh, shin) = (7 + 2 * k, 8 + 2 * k);
        let (x_arm, x_leg) = (0.26 * side, 0.09 * side);
        joints[2 + 4 * k] = JointSpec::cone_twist(
            1,
            upper,
            Vec3::new(x_arm, 0.56, 0.0),
            down,
            1.3,
            [-0.8, 0.8],
        );
        joints[3 + 4 * k] = JointSpec::limited_hinge(
            upper,
            lower,
            Vec3::new(x_arm, 0.28, 0.0),
            Vec3::X,
            [-2.4, 0.0],
        );
        joints[4 + 4 * k] = JointSpec::cone_twist(
            0,
            thigh,
            Vec3::new(x_leg, -0.10, 0.0),
            down,
            1.0,
            [-0.4, 0.4],
        );
        joints[5 + 4 * k] = JointSpec::limited_hinge(
            thigh,
            shin,
            Vec3::new(x_leg, -0.54, 0.0),
            Vec3::X,
            [0.0, 2.4],
        );
    }
    joints
}

/// `ragdolls`: 256 ragdolls (see [`ragdolls_n`]): 2,816 bodies, 2,560 joints.
pub fn ragdolls(params: &Params) -> Recipe {
    ragdolls_n(256, params)
}

/// `count` ragdolls of [`RAGDOLL_BONES`] bones (boxes, a sphere for the head; density
/// 100) dropped into a pile on a ground of half size 30: k × k columns 1.3 m apart (k =
/// ceil(sqrt(count / 4)), so 4 layers), layers 2.1 m apart with the lowest pelvis at
/// y = 1.1 and odd layers shifted by half a column in x and z, so the upper ragdolls land
/// on the shoulders of the lower ones. Each stands upright turned by a random yaw and
/// tilted by up to 0.3 rad about a random horizontal axis (fixed seed): they land on their
/// feet, buckle and tumble. The spacing keeps every two ragdolls apart for any yaw and
/// tilt in that range.
pub fn ragdolls_n(count: usize, params: &Params) -> Recipe {
    let mut r = Recipe::from(vec![ground(30.0)]);
    let mut rng = Rng::new(params.seed);
    let k = ((count as f32 / 4.0).sqrt().ceil() as usize).max(1);
    let (spacing, layer_height) = (1.3, 2.1);
    let joints = ragdoll_joints();
    for i in 0..count {
        let (layer, row, col) = (i / (k * k), (i / k) % k, i % k);
        let shift = if layer % 2 == 1 { 0.5 * spacing } else { 0.0 };
        let mid = 0.5 * (k as f32 - 1.0) * spacing;
        let origin = Vec3::new(
            col as f32 * spacing - mid + shift,
            1.1 + layer as f32 * layer_height,
            row as f32 * spacing - mid + shift,
        );
        let yaw = Quat::from_rotation_y(rng.range(-std::f32::consts::PI, std::f32::consts::PI));
        let heading = rng.range(-std::f32::consts::PI, std::f32::consts::PI);
        let tilt_axis = Vec3::new(heading.cos(), 0.0, heading.sin());
        let pose = Quat::from_axis_angle(tilt_axis, rng.range(0.0, 0.3)) * yaw;
        let first = r.bodies.len();
        for &(shape, centre) in &BONES {
            r.bodies.push(BodySpec {
                shape,
                ..BodySpec::unit_box(origin + pose * centre, pose)
            });
        }
        for j in &joints {
            r.joints.push(JointSpec {
                a: first + j.a,
                b: first + j.b,
                anchor: origin + pose * j.anchor,
                anchor_b: j.anchor_b.map(|p| origin + pose * p),
                axis: pose * j.axis,
                kind: j.kind,
            });
        }
    }
    r
}

/// The door's hinge limits, rad.
pub const DOOR_LIMITS: [f32; 2] = [-1.5, 1.5];

/// `door`: a door (1 × 2 × 0.1 m, density 100: 20 kg) 5 cm above a ground of half size 40,
/// hinged at its −x edge to a static post (0.1 × 2.2 × 0.2 m) about the vertical, within
/// [`DOOR_LIMITS`]. Boxes of half extent 0.15 (2.7 kg) are thrown at it from y = 0.5 at
/// 6 m/s across, each aimed (ballistically, ignoring the door's motion) to reach it at a
/// set time and point: 24 from +z arriving every 0.08 s from t = 0.4 s, spread over the
/// closed door, swing it open (positive angle) against its upper limit; 24 from −x
/// arriving every 0.08 s from t = 3.0 s, aimed at the door's face at the upper limit,
/// push it part of the way back (to about 1.1 rad in impetus, 0.7 in rapier: the first
/// volley's boxes lie in its way). The bodies: ground, post, door, then the boxes; the one
/// joint is the door's hinge.
pub fn door(_: &Params) -> Recipe {
    let mut r = Recipe::from(vec![
        ground(40.0),
        BodySpec::static_box(Vec3::new(-0.55, 1.1, 0.0), Vec3::new(0.05, 1.1, 0.1)),
        BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::new(0.5, 1.0, 0.05)),
            ..BodySpec::unit_box(Vec3::new(0.0, 1.05, 0.0), Quat::IDENTITY)
        },
    ]);
    let (hinge, half, speed, launch_y) = (Vec3::new(-0.5, 1.05, 0.0), 0.15, 6.0, 0.5);
    let heights = [0.5, 1.05, 1.6];
    // The box's centre `target` at time `t`, thrown horizontally along `dir` at `speed`.
    let mut throw = |target: Vec3, dir: Vec3, t: f32| {
        let horizontal = dir * speed;
        let start = Vec3::new(target.x, launch_y, target.z) - horizontal * t;
        let up = (target.y - launch_y + 5.0 * t * t) / t;
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::splat(half)),
            linear_velocity: horizontal + Vec3::new(0.0, up, 0.0),
            ..BodySpec::unit_box(start, Quat::IDENTITY)
        });
    };
    for k in 0..24 {
        let x = [-0.2, 0.1, 0.4][k % 3];
        let y = heights[(k / 3) % 3];
        let target = Vec3::new(x, y, 0.05 + half);
        throw(target, Vec3::NEG_Z, 0.4 + 0.08 * k as f32);
    }
    // The door's −x face at the upper limit, at distance s from the hinge axis.
    let open = DOOR_LIMITS[1];
    let (along, normal) = (
        Vec3::new(open.cos(), 0.0, -open.sin()),
        Vec3::new(-open.sin(), 0.0, -open.cos()),
    );
    for k in 0..24 {
        let s = [0.5, 0.7, 0.9][k % 3];
        let y = heights[(k / 3) % 3];
        let target = hinge + along * s + normal * (0.05 + half) + Vec3::new(0.0, y - 1.05, 0.0);
        throw(target, Vec3::X, 3.0 + 0.08 * k as f32);
    }
    r.joints
        .push(JointSpec::limited_hinge(1, 2, hinge, Vec3::Y, DOOR_LIMITS));
    r
}

/// Inner half size of the tumbler, m.
pub const TUMBLER_HALF: f32 = 2.0;
/// The tumbler's motor speed, rad/s.
pub const TUMBLER_SPEED: f32 = 0.5;
/// The tumbler's centre.
pub const TUMBLER_CENTRE: Vec3 = Vec3::new(0.0, 4.0, 0.0);

/// `tumbler`: 320 boxes in the tumbler (see [`tumbler_n`]).
pub fn tumbler(params: &Params) -> Recipe {
    tumbler_n(320, params)
}

/// A tumbler: a hollow cube (inside 4 × 4 × 4 m, walls 0.2 m thick, density 100) centred at
/// [`TUMBLER_CENTRE`] over a ground of half size 10, turning about the horizontal z axis
/// through its centre at [`TUMBLER_SPEED`] by a hinge motor (max torque 10⁵ N·m) between a
/// static axle block behind it and its back wall, with `boxes` boxes of half extent 0.15
/// inside: layers of 8 × 8 boxes 0.45 m apart from the floor up (at most 8 layers: 512
/// boxes), each tilted by up to 0.05 rad about a random axis (fixed seed).
///
/// impetus shapes cannot be offset from their body yet (no compound bodies), so the cube
/// is six wall bodies that tile its inside, glued along its 12 edges: a weld (fixed joint)
/// between every two neighbouring walls, at the middle of their common edge. Every two
/// walls that touch are thus joined and never collide. (Welding the five other walls to
/// the back wall instead, at the centre, and keeping unjoined neighbours 5 cm apart fails
/// in impetus: the welds sag, the walls touch, and welds and wall contacts fight until
/// the anchors are 0.4 m apart; the edge welds hold to 3 mm.) Rapier builds the same
/// bodies and joints. The bodies: ground, axle, back wall, front, floor, ceiling, −x and
/// +x walls, then the boxes; the joints: the motor hinge, then the 12 welds.
pub fn tumbler_n(boxes: usize, params: &Params) -> Recipe {
    let (h, t, c) = (TUMBLER_HALF, 0.2, TUMBLER_CENTRE);
    let side = h + 0.5 * t;
    let mut r = Recipe::from(vec![
        ground(10.0),
        BodySpec::static_box(c - Vec3::new(0.0, 0.0, h + t + 0.3), Vec3::splat(0.25)),
    ]);
    // Back, front, floor, ceiling, −x, +x: each wall's outward normal and half extents.
    let normals = [
        Vec3::NEG_Z,
        Vec3::Z,
        Vec3::NEG_Y,
        Vec3::Y,
        Vec3::NEG_X,
        Vec3::X,
    ];
    for n in normals {
        let half = Vec3::splat(h) - n.abs() * (h - 0.5 * t);
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(half),
            ..BodySpec::unit_box(c + n * side, Quat::IDENTITY)
        });
    }
    let (axle, back) = (1, 2);
    r.joints.push(JointSpec {
        kind: super::JointSpecKind::Hinge {
            limits: None,
            motor: Some(Motor {
                speed: TUMBLER_SPEED,
                max_force: 1.0e5,
            }),
        },
        ..JointSpec::hinge(axle, back, c - Vec3::new(0.0, 0.0, side), Vec3::Z)
    });
    for a in 0..6 {
        for b in a + 1..6 {
            if normals[a].dot(normals[b]) == 0.0 {
                let edge = c + (normals[a] + normals[b]) * side;
                r.joints.push(JointSpec::fixed(back + a, back + b, edge));
            }
        }
    }
    let mut rng = Rng::new(params.seed);
    let (n, spacing, half) = (8, 0.45, 0.15);
    assert!(boxes <= 8 * n * n, "a tumbler holds at most 512 boxes");
    for i in 0..boxes {
        let (layer, row, col) = (i / (n * n), (i / n) % n, i % n);
        let centre = 0.5 * (n as f32 - 1.0) * spacing;
        let p = c + Vec3::new(
            col as f32 * spacing - centre,
            -h + 0.2 + layer as f32 * spacing,
            row as f32 * spacing - centre,
        );
        let axis = random_rotation(&mut rng) * Vec3::X;
        let rotation = Quat::from_axis_angle(axis, rng.range(-0.05, 0.05));
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::splat(half)),
            ..BodySpec::unit_box(p, rotation)
        });
    }
    r
}
