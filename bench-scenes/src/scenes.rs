//! Scene recipes, exactly as SCENES.md gives them.

use crate::Rng;
use impetus::{BodyDef, BodyType, Error, Quat, ShapeDef, Vec3, World};

/// Scene parameters. Every scene is fully determined by them.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Seed of the scene's random choices (orientations, spawn points).
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params { seed: 0x5EED }
    }
}

/// A named scene.
#[derive(Clone, Copy)]
pub struct Scene {
    /// Name used on the command line.
    pub name: &'static str,
    /// One line for `impetus-bench list`.
    pub description: &'static str,
    /// Dynamic bodies it creates.
    pub bodies: usize,
    /// Steps a benchmark run takes by default.
    pub default_steps: usize,
    /// The scene's bodies.
    pub recipe: fn(&Params) -> Vec<BodySpec>,
}

impl Scene {
    /// Builds the scene into an empty impetus world.
    pub fn build(&self, world: &mut World, params: &Params) -> Result<(), Error> {
        build_impetus(world, &(self.recipe)(params))
    }
}

/// Every scene, in the order `list` prints them.
pub const SCENES: &[Scene] = &[
    Scene {
        name: "pyramid",
        description: "a flat pyramid of unit boxes, base 40",
        bodies: 820,
        default_steps: 600,
        recipe: pyramid,
    },
    Scene {
        name: "large_pyramid",
        description: "a flat pyramid of unit boxes, base 100 (Box2D/Box3D's benchmark)",
        bodies: 5050,
        default_steps: 600,
        recipe: large_pyramid,
    },
    Scene {
        name: "many_pyramids",
        description: "14 x 14 pyramids of base 10",
        bodies: 10780,
        default_steps: 600,
        recipe: many_pyramids,
    },
    Scene {
        name: "pile",
        description: "10,000 boxes dropped into a walled area",
        bodies: 10000,
        default_steps: 600,
        recipe: pile,
    },
    Scene {
        name: "rain",
        description: "4,000 boxes and spheres of mixed sizes falling onto a 40 x 40 ground",
        bodies: 4000,
        default_steps: 600,
        recipe: rain,
    },
    Scene {
        name: "large_world_10k",
        description: "10,000 boxes over 316 m x 316 m, a tenth falling (large_world's density)",
        bodies: 10000,
        default_steps: 300,
        recipe: large_world_10k,
    },
    Scene {
        name: "large_world",
        description: "100,000 boxes over 1 km x 1 km, a tenth falling, the rest resting",
        bodies: 100_000,
        default_steps: 300,
        recipe: large_world,
    },
];

/// The scene called `name`.
pub fn find(name: &str) -> Option<&'static Scene> {
    SCENES.iter().find(|s| s.name == name)
}

/// The geometry of a recipe body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShapeSpec {
    /// A box with these half extents, in m.
    Cuboid(Vec3),
    /// A sphere of this radius, in m.
    Ball(f32),
}

/// One body of a scene recipe: everything an engine needs to build it. Every engine's
/// builder reads the same list, so the scenes compared cannot drift apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySpec {
    /// Dynamic (true) or static (false).
    pub dynamic: bool,
    /// Geometry.
    pub shape: ShapeSpec,
    /// Position of the centre, in m.
    pub position: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Density, in kg/m³ (dynamic bodies).
    pub density: f32,
    /// Friction coefficient (mixed as sqrt(a b) by impetus).
    pub friction: f32,
    /// Restitution.
    pub restitution: f32,
}

impl BodySpec {
    /// A static box.
    pub fn static_box(position: Vec3, half_extents: Vec3) -> Self {
        BodySpec {
            dynamic: false,
            shape: ShapeSpec::Cuboid(half_extents),
            position,
            rotation: Quat::IDENTITY,
            density: 0.0,
            friction: 0.6,
            restitution: 0.0,
        }
    }

    /// A dynamic unit box (half extent 0.5) of density 100 and friction 0.6.
    pub fn unit_box(position: Vec3, rotation: Quat) -> Self {
        BodySpec {
            dynamic: true,
            shape: ShapeSpec::Cuboid(Vec3::splat(0.5)),
            position,
            rotation,
            density: 100.0,
            friction: 0.6,
            restitution: 0.0,
        }
    }
}

/// Builds a recipe into an impetus world.
pub fn build_impetus(world: &mut World, recipe: &[BodySpec]) -> Result<(), Error> {
    for b in recipe {
        let body = world.create_body(&BodyDef {
            body_type: if b.dynamic {
                BodyType::Dynamic
            } else {
                BodyType::Static
            },
            position: b.position,
            rotation: b.rotation,
            ..Default::default()
        })?;
        let shape = match b.shape {
            ShapeSpec::Cuboid(he) => ShapeDef::cuboid(he),
            ShapeSpec::Ball(r) => ShapeDef::sphere(r),
        };
        let density = if b.dynamic { b.density } else { 0.0 };
        world.add_shape(
            body,
            &shape
                .with_density(density)
                .with_friction(b.friction)
                .with_restitution(b.restitution),
        )?;
    }
    Ok(())
}

/// The static ground box with half extents (g, 1, g) and its top face at y = 0.
pub fn ground(g: f32) -> BodySpec {
    BodySpec::static_box(Vec3::new(0.0, -1.0, 0.0), Vec3::new(g, 1.0, g))
}

/// A flat pyramid of `base` boxes on a ground of half size `g`: row i at y = i + 0.5,
/// box j = i..base at x = j − i/2 − (base − 1)/2.
pub fn flat_pyramid(base: usize, g: f32) -> Vec<BodySpec> {
    let mut r = vec![ground(g)];
    let half = (base as f32 - 1.0) * 0.5;
    for i in 0..base {
        for j in i..base {
            let x = j as f32 - 0.5 * i as f32 - half;
            r.push(BodySpec::unit_box(
                Vec3::new(x, i as f32 + 0.5, 0.0),
                Quat::IDENTITY,
            ));
        }
    }
    r
}

/// `pyramid`: base 40 (820 boxes), ground 100.
pub fn pyramid(_: &Params) -> Vec<BodySpec> {
    flat_pyramid(40, 100.0)
}

/// `large_pyramid`: base 100 (5,050 boxes), ground 400.
pub fn large_pyramid(_: &Params) -> Vec<BodySpec> {
    flat_pyramid(100, 400.0)
}

/// `many_pyramids`: 14 × 14 pyramids of base 10 (10,780 boxes), ground 77.
pub fn many_pyramids(_: &Params) -> Vec<BodySpec> {
    let mut r = vec![ground(77.0)];
    for row in 0..14 {
        for c in 0..14 {
            let cx = -76.0 + 11.0 * c as f32;
            let cz = -76.0 + row as f32 * 152.0 / 13.0;
            for i in 0..10 {
                for j in i..10 {
                    let x = cx + j as f32 - 0.5 * i as f32;
                    r.push(BodySpec::unit_box(
                        Vec3::new(x, i as f32 + 0.5, cz),
                        Quat::IDENTITY,
                    ));
                }
            }
        }
    }
    r
}

/// `pile`: 10,000 unit boxes in a 20 × 25 × 20 grid, spacing 1.1, lowest layer at y = 1,
/// each tilted by up to 0.05 rad about a random axis (so neighbours never start
/// overlapping), dropped into four walls around x, z ∈ [−15, 15].
pub fn pile(params: &Params) -> Vec<BodySpec> {
    let mut r = vec![ground(20.0)];
    for s in [-1.0f32, 1.0] {
        r.push(BodySpec::static_box(
            Vec3::new(15.5 * s, 20.0, 0.0),
            Vec3::new(0.5, 20.0, 16.0),
        ));
        r.push(BodySpec::static_box(
            Vec3::new(0.0, 20.0, 15.5 * s),
            Vec3::new(16.0, 20.0, 0.5),
        ));
    }
    let mut rng = Rng::new(params.seed);
    let (nx, ny, nz) = (20, 25, 20);
    let spacing = 1.1;
    for iy in 0..ny {
        for ix in 0..nx {
            for iz in 0..nz {
                let x = (ix as f32 - 0.5 * (nx as f32 - 1.0)) * spacing;
                let z = (iz as f32 - 0.5 * (nz as f32 - 1.0)) * spacing;
                let y = 1.0 + iy as f32 * spacing;
                let axis = Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                );
                let axis = axis.try_normalize().unwrap_or(Vec3::Y);
                let rotation = Quat::from_axis_angle(axis, rng.range(-0.05, 0.05));
                r.push(BodySpec::unit_box(Vec3::new(x, y, z), rotation));
            }
        }
    }
    r
}

/// `rain`: 4,000 bodies, alternately boxes (half extents 0.3–0.6 per axis) and spheres
/// (radius 0.3–0.6), on a 20 × 20 grid of columns 2 m apart over a 40 × 40 area, 10 layers
/// 4 m apart from y = 5 to 45 with ±1 m of jitter in height, random orientations; the
/// ground (half size 100, so rolling spheres stay on it) has its top face at y = 0.
/// (Capsules join the mix when that shape exists.)
pub fn rain(params: &Params) -> Vec<BodySpec> {
    let mut r = vec![ground(100.0)];
    let mut rng = Rng::new(params.seed);
    for layer in 0..10 {
        for ix in 0..20 {
            for iz in 0..20 {
                let position = Vec3::new(
                    -19.0 + 2.0 * ix as f32,
                    5.0 + 4.0 * layer as f32 + rng.range(-1.0, 1.0),
                    -19.0 + 2.0 * iz as f32,
                );
                let rotation = random_rotation(&mut rng);
                let shape = if (ix + iz + layer) % 2 == 0 {
                    ShapeSpec::Cuboid(Vec3::new(
                        rng.range(0.3, 0.6),
                        rng.range(0.3, 0.6),
                        rng.range(0.3, 0.6),
                    ))
                } else {
                    ShapeSpec::Ball(rng.range(0.3, 0.6))
                };
                r.push(BodySpec {
                    shape,
                    ..BodySpec::unit_box(position, rotation)
                });
            }
        }
    }
    r
}

/// A uniformly random rotation (Shoemake's method).
fn random_rotation(rng: &mut Rng) -> Quat {
    let (u1, u2, u3) = (rng.unit(), rng.unit(), rng.unit());
    let tau = std::f32::consts::TAU;
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    Quat::from_xyzw(
        a * (tau * u2).sin(),
        a * (tau * u2).cos(),
        b * (tau * u3).sin(),
        b * (tau * u3).cos(),
    )
    .normalize()
}

/// A large flat world of `n` unit boxes at 0.1 boxes per m²: the side is
/// 1000 m × sqrt(n / 100,000). k × k boxes (k = round(sqrt(0.9 n))) rest on the ground on a
/// jittered grid with random yaw; the other n − k² fall from heights 5–50 m at random
/// places with random orientations. Sleep is off (impetus has none yet), so every step
/// sees all of them.
pub fn large_world_n(n: usize, params: &Params) -> Vec<BodySpec> {
    let side = 1000.0 * (n as f32 / 100_000.0).sqrt();
    let half = 0.5 * side;
    let mut r = vec![ground(half + 20.0)];
    let mut rng = Rng::new(params.seed);
    let k = ((0.9 * n as f32).sqrt().round() as usize).min(n);
    let spacing = side / k as f32;
    for ix in 0..k {
        for iz in 0..k {
            // Jitter keeps at least 1.5 m between neighbours' centres (spacing ≈ 3.3 m).
            let jitter = (0.5 * spacing - 0.75).max(0.0);
            let x = -half + (ix as f32 + 0.5) * spacing + rng.range(-jitter, jitter);
            let z = -half + (iz as f32 + 0.5) * spacing + rng.range(-jitter, jitter);
            let yaw = Quat::from_rotation_y(rng.range(-std::f32::consts::PI, std::f32::consts::PI));
            r.push(BodySpec::unit_box(Vec3::new(x, 0.5, z), yaw));
        }
    }
    for _ in k * k..n {
        let position = Vec3::new(
            rng.range(-half, half),
            rng.range(5.0, 50.0),
            rng.range(-half, half),
        );
        let rotation = random_rotation(&mut rng);
        r.push(BodySpec::unit_box(position, rotation));
    }
    r
}

/// `large_world`: 100,000 boxes over 1 km × 1 km (see [`large_world_n`]).
pub fn large_world(params: &Params) -> Vec<BodySpec> {
    large_world_n(100_000, params)
}

/// `large_world_10k`: 10,000 boxes at the same density (see [`large_world_n`]).
pub fn large_world_10k(params: &Params) -> Vec<BodySpec> {
    large_world_n(10_000, params)
}
