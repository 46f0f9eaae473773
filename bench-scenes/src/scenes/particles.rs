//! The particle scenes (impetus only): a cloth draped over a sphere and a box, a flag in
//! the wind, and soft bodies under rigid boxes.

use super::{BodySpec, Params, ParticleSpec, Recipe, ShapeSpec};
use impetus::{ClothDef, ClothPin, Quat, SoftBodyDef, Vec3};

/// The flag's wind, in m/s.
pub const FLAG_WIND: Vec3 = Vec3::new(8.0, 0.0, 2.0);

/// A static ground box whose top face is y = 0, `half` m across.
fn ground(half: f32) -> BodySpec {
    BodySpec::static_box(Vec3::new(0.0, -1.0, 0.0), Vec3::new(half, 1.0, half))
}

/// `cloth_drape`: a 64 × 64 cloth (4,096 particles 7 cm apart, 4 kg, rigid in stretch)
/// falls from 2.5 m onto a static sphere of radius 1 m and a dynamic 1.2 m box (density
/// 100) on the ground.
pub fn cloth_drape(_: &Params) -> Recipe {
    let n = 64;
    let spacing = 0.07;
    let half = 0.5 * spacing * (n - 1) as f32;
    let bodies = vec![
        ground(10.0),
        BodySpec {
            shape: ShapeSpec::Ball(1.0),
            ..BodySpec::static_box(Vec3::new(-1.1, 1.0, 0.0), Vec3::ONE)
        },
        BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::splat(0.6)),
            ..BodySpec::unit_box(Vec3::new(1.1, 0.6, 0.0), Quat::IDENTITY)
        },
    ];
    Recipe {
        particles: ParticleSpec {
            cloths: vec![ClothDef {
                origin: Vec3::new(-half, 2.5, -half),
                nx: n,
                ny: n,
                spacing,
                mass: 4.0,
                thickness: 0.02,
                damping: 0.01,
                // 10 /s per particle: a fabric's air drag.
                linear_drag: 10.0 * 4.0 / (n * n) as f32,
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Recipe::from(bodies)
    }
}

/// `flag`: a 48 × 32 cloth (5 cm apart, 0.5 kg) pinned along its edge to a pole, in a
/// steady wind of [`FLAG_WIND`].
pub fn flag(_: &Params) -> Recipe {
    let (nx, ny) = (48, 32);
    let spacing = 0.05;
    let top = 4.0;
    let bodies = vec![
        ground(5.0),
        BodySpec {
            shape: ShapeSpec::Capsule {
                half_height: 2.0,
                radius: 0.04,
            },
            ..BodySpec::static_box(Vec3::new(0.0, 2.0, 0.0), Vec3::ONE)
        },
    ];
    Recipe {
        particles: ParticleSpec {
            cloths: vec![ClothDef {
                origin: Vec3::new(0.07, top, 0.0),
                axis_u: Vec3::X,
                axis_v: Vec3::NEG_Y,
                nx,
                ny,
                spacing,
                mass: 0.5,
                shear_compliance: 1.0e-3,
                bend_compliance: 0.1,
                damping: 0.005,
                thickness: 0.01,
                linear_drag: 0.002,
                pins: (0..ny).map(|j| ClothPin::Fixed { i: 0, j }).collect(),
                ..Default::default()
            }],
            wind: FLAG_WIND,
            ..Default::default()
        },
        ..Recipe::from(bodies)
    }
}

/// `soft_pile`: a 4 × 4 grid, 1 m apart, of soft bodies dropped on the ground (gas balls of
/// radius 0.3 m, 162 particles, and blocks of 0.6 m cut into 27 cubes of 5 tetrahedra, 64
/// particles, alternating; 1 kg each), with a 0.5 m box (density 100) dropped onto each.
pub fn soft_pile(_: &Params) -> Recipe {
    let mut bodies = vec![ground(10.0)];
    let mut soft_bodies = Vec::new();
    for k in 0..16 {
        let (i, j) = ((k % 4) as f32, (k / 4) as f32);
        let at = Vec3::new(i - 1.5, 0.5, j - 1.5);
        let shape = if (k + k / 4) % 2 == 0 {
            SoftBodyDef {
                edge_compliance: 0.0,
                ..SoftBodyDef::sphere(0.3, 2, 10.0)
            }
        } else {
            SoftBodyDef {
                edge_compliance: 1.0e-4,
                ..SoftBodyDef::cuboid(Vec3::splat(0.3), [3, 3, 3])
            }
        };
        soft_bodies.push(SoftBodyDef {
            position: at,
            mass: 1.0,
            damping: 0.5,
            ..shape
        });
        bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::splat(0.25)),
            ..BodySpec::unit_box(at + Vec3::new(0.0, 1.1, 0.0), Quat::IDENTITY)
        });
    }
    Recipe {
        particles: ParticleSpec {
            soft_bodies,
            ..Default::default()
        },
        ..Recipe::from(bodies)
    }
}
