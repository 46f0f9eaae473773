//! Scene recipes, exactly as docs/SCENES.md gives them.

use crate::Rng;
use impetus::{
    BodyDef, BodyId, BodyType, ClothDef, Error, HeightField, JointDef, JointId, JointKind, Limits,
    Motor, Quat, ShapeDef, SoftBodyDef, Transform, Vec3, World,
};

mod jointed;
mod particles;
mod stiff;
pub use jointed::{
    door, ragdolls, ragdolls_n, tumbler, tumbler_n, DOOR_LIMITS, RAGDOLL_BONES, TUMBLER_CENTRE,
    TUMBLER_HALF, TUMBLER_SPEED,
};
pub use particles::{cloth_drape, flag, soft_pile, FLAG_WIND};
pub use stiff::{
    capsule_volume, heavy_chain, mass_ratio, BRIDGE_PLANKS, BRIDGE_PLANK_MASS, BRIDGE_ROD,
    CHAIN_BALL_MASS, CHAIN_LINKS, CHAIN_LINK_MASS, MASS_RATIO_STACKS,
};

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
    /// Joints it creates.
    pub joints: usize,
    /// Steps a benchmark run takes by default.
    pub default_steps: usize,
    /// The scene's bodies and joints.
    pub recipe: fn(&Params) -> Recipe,
}

impl Scene {
    /// Builds the scene into an empty impetus world.
    pub fn build(&self, world: &mut World, params: &Params) -> Result<(), Error> {
        (self.recipe)(params).build_impetus(world)
    }
}

/// Every scene, in the order `list` prints them.
pub const SCENES: &[Scene] = &[
    Scene {
        name: "pyramid",
        description: "a flat pyramid of unit boxes, base 40",
        bodies: 820,
        joints: 0,
        default_steps: 600,
        recipe: pyramid,
    },
    Scene {
        name: "large_pyramid",
        description: "a flat pyramid of unit boxes, base 100 (Box2D/Box3D's benchmark)",
        bodies: 5050,
        joints: 0,
        default_steps: 600,
        recipe: large_pyramid,
    },
    Scene {
        name: "many_pyramids",
        description: "14 x 14 pyramids of base 10",
        bodies: 10780,
        joints: 0,
        default_steps: 600,
        recipe: |p| many_pyramids(p).into(),
    },
    Scene {
        name: "pile",
        description: "10,000 boxes dropped into a walled area",
        bodies: 10000,
        joints: 0,
        default_steps: 600,
        recipe: |p| pile(p).into(),
    },
    Scene {
        name: "towers",
        description: "lone columns of 5, 10, 15, 20 and 25 unit boxes dropped as the pile's",
        bodies: 75,
        joints: 0,
        default_steps: 600,
        recipe: towers,
    },
    Scene {
        name: "mass_ratio",
        description: "light box under heavy box at 1:10, 1:100, 1:1000; heavy-light-heavy at 1:100",
        bodies: 9,
        joints: 0,
        default_steps: 600,
        recipe: mass_ratio,
    },
    Scene {
        name: "rain",
        description:
            "4,000 boxes, spheres and capsules of mixed sizes falling onto a 40 x 40 ground",
        bodies: 4000,
        joints: 0,
        default_steps: 600,
        recipe: |p| rain(p).into(),
    },
    Scene {
        name: "mesh_pile",
        description: "2,000 boxes and spheres falling onto a 127 m x 127 m height-field terrain",
        bodies: 2000,
        joints: 0,
        default_steps: 600,
        recipe: |p| mesh_pile(p).into(),
    },
    Scene {
        name: "large_world_10k",
        description: "10,000 boxes over 316 m x 316 m, a tenth falling (large_world's density)",
        bodies: 10000,
        joints: 0,
        default_steps: 300,
        recipe: |p| large_world_10k(p).into(),
    },
    Scene {
        name: "large_world",
        description: "100,000 boxes over 1 km x 1 km, a tenth falling, the rest resting",
        bodies: 100_000,
        joints: 0,
        default_steps: 300,
        recipe: |p| large_world(p).into(),
    },
    Scene {
        name: "joint_grid",
        description:
            "100 x 100 spheres hanging from their top row by ball joints (Box3D's benchmark)",
        bodies: 9900,
        joints: 19_701,
        default_steps: 600,
        recipe: joint_grid,
    },
    Scene {
        name: "bridge",
        description: "40 planks hinged into a bridge between two posts, 5 boxes dropped onto it",
        bodies: 45,
        joints: 41,
        default_steps: 600,
        recipe: bridge,
    },
    Scene {
        name: "chain",
        description: "100 links on ball joints with a sphere of 100 link masses, swinging from 45°",
        bodies: 101,
        joints: 101,
        default_steps: 600,
        recipe: chain,
    },
    Scene {
        name: "heavy_chain",
        description: "100 1-kg capsules hanging a 100-kg ball; 10 80-kg planks hung on rods",
        bodies: 111,
        joints: 123,
        default_steps: 600,
        recipe: heavy_chain,
    },
    Scene {
        name: "ragdolls",
        description: "256 ragdolls of 11 boxes (cone-twist and hinge joints) falling into a pile",
        bodies: 256 * RAGDOLL_BONES,
        joints: 256 * (RAGDOLL_BONES - 1),
        default_steps: 600,
        recipe: ragdolls,
    },
    Scene {
        name: "door",
        description: "a door on a limited hinge, hit by 48 thrown boxes from two sides",
        bodies: 49,
        joints: 1,
        default_steps: 600,
        recipe: door,
    },
    Scene {
        name: "cloth_drape",
        description: "a 64 x 64 cloth (4,096 particles) falling on a sphere and a box",
        bodies: 1,
        joints: 0,
        default_steps: 600,
        recipe: cloth_drape,
    },
    Scene {
        name: "flag",
        description: "a 48 x 32 cloth pinned to a pole in a gusty wind",
        bodies: 0,
        joints: 0,
        default_steps: 600,
        recipe: flag,
    },
    Scene {
        name: "soft_pile",
        description: "16 soft balls and blocks (1,808 particles) on the ground, 16 boxes on top",
        bodies: 16,
        joints: 0,
        default_steps: 600,
        recipe: soft_pile,
    },
    Scene {
        name: "tumbler",
        description: "a hollow box of 6 welded walls turned by a hinge motor, 320 boxes inside",
        bodies: 326,
        joints: 13,
        default_steps: 600,
        recipe: tumbler,
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
    /// A capsule along the body's y axis: the segment from `(0, −half_height, 0)` to
    /// `(0, half_height, 0)` swept by a sphere of `radius`, in m (its tips at
    /// `±(half_height + radius)`).
    Capsule {
        /// Half the length of the core segment, in m.
        half_height: f32,
        /// Radius, in m.
        radius: f32,
    },
    /// A static height-field terrain centred (in x and z) on the body's position.
    Terrain(Terrain),
}

/// A procedural terrain: `rows × cols` samples `spacing` m apart (rows along z), heights
/// `amplitude · sin(0.35 c) · cos(0.27 r) + 0.5 amplitude · sin(0.11 (r + c))` m. Each
/// cell is split along the diagonal from sample `(r, c)` to `(r + 1, c + 1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Terrain {
    /// Samples along z.
    pub rows: usize,
    /// Samples along x.
    pub cols: usize,
    /// Distance between samples, in m.
    pub spacing: f32,
    /// Height of the hills, in m.
    pub amplitude: f32,
}

impl Terrain {
    /// The heights, row by row (row r at z = r · spacing from the terrain's corner), in m.
    pub fn heights(&self) -> Vec<f32> {
        (0..self.rows * self.cols)
            .map(|k| {
                let (r, c) = ((k / self.cols) as f32, (k % self.cols) as f32);
                self.amplitude * ((0.35 * c).sin() * (0.27 * r).cos())
                    + 0.5 * self.amplitude * (0.11 * (r + c)).sin()
            })
            .collect()
    }

    /// The size along x and z, in m.
    pub fn size(&self) -> (f32, f32) {
        (
            (self.cols - 1) as f32 * self.spacing,
            (self.rows - 1) as f32 * self.spacing,
        )
    }
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
    /// Initial linear velocity, in m/s (dynamic bodies; zero for the others).
    pub linear_velocity: Vec3,
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
            linear_velocity: Vec3::ZERO,
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
            linear_velocity: Vec3::ZERO,
        }
    }
}

/// The kind of a recipe joint, in terms every engine has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointSpecKind {
    /// Ball (spherical): the two anchor points coincide; rotation is free.
    Ball,
    /// Hinge (revolute) about the joint's axis: the anchors coincide and the bodies turn
    /// only about the axis, optionally within `[lower, upper]` rad (B relative to A,
    /// right-handed about the axis, 0 as built), optionally driven by a velocity motor.
    Hinge {
        /// Angle limits `[lower, upper]`, rad.
        limits: Option<[f32; 2]>,
        /// Velocity motor: target speed in rad/s (B relative to A about the axis) and the
        /// largest torque in N·m (`max_force`).
        motor: Option<Motor>,
    },
    /// Cone-twist (swing-twist, a ragdoll's shoulder): the anchors coincide, B's copy of
    /// the axis stays within `cone_angle` rad of A's, and the twist about it stays within
    /// `twist` (`[lower, upper]`, rad, 0 as built). Rapier has no cone: its spherical joint
    /// limits the twist (about the axis) and the two swing angles about the axes
    /// perpendicular to it, each to `[−cone_angle, cone_angle]` — a square pyramid around
    /// the cone, a little looser along its diagonals.
    ConeTwist {
        /// Half-angle of the cone, rad.
        cone_angle: f32,
        /// Twist limits `[lower, upper]`, rad.
        twist: [f32; 2],
    },
    /// Fixed (weld): the two bodies keep their relative pose as built.
    Fixed,
    /// Distance (a rigid rod): the distance between A's anchor ([`JointSpec::anchor`]) and
    /// B's ([`JointSpec::anchor_b`]) stays `length` m; rotation is free. Impetus: a distance
    /// joint with `min_length = max_length = length`. Rapier 0.36 has no rod: its closest
    /// equivalent is a coupled distance limit `[length, length]` on the linear axes (the
    /// limit of its `RopeJointBuilder`), of which rapier enforces only the upper bound, so
    /// there the rod acts as a rope: rigid under tension, slack under compression.
    Distance {
        /// The rod's length, m.
        length: f32,
    },
}

/// One joint of a scene recipe, between two bodies of the recipe's body list, given in
/// world space at the bodies' build poses. Jointed bodies do not collide with each other
/// (the default of both engines' joints here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSpec {
    /// Body A: an index into [`Recipe::bodies`].
    pub a: usize,
    /// Body B: an index into [`Recipe::bodies`]. At least one of A and B is dynamic.
    pub b: usize,
    /// The anchor point, in world space, m: A's joint frame, and B's too unless
    /// `anchor_b` is given.
    pub anchor: Vec3,
    /// B's anchor point, in world space, m, when it is not `anchor` (a distance joint's
    /// other end). `None` for the joints whose anchors coincide as built.
    pub anchor_b: Option<Vec3>,
    /// The joint axis, in world space (the hinge axis; unused by ball joints).
    pub axis: Vec3,
    /// Kind and parameters.
    pub kind: JointSpecKind,
}

impl JointSpec {
    /// A ball joint between bodies `a` and `b` at the world point `anchor`.
    pub fn ball(a: usize, b: usize, anchor: Vec3) -> Self {
        JointSpec {
            a,
            b,
            anchor,
            anchor_b: None,
            axis: Vec3::Z,
            kind: JointSpecKind::Ball,
        }
    }

    /// A free hinge between bodies `a` and `b` at the world point `anchor`, turning
    /// about the world direction `axis`.
    pub fn hinge(a: usize, b: usize, anchor: Vec3, axis: Vec3) -> Self {
        JointSpec {
            a,
            b,
            anchor,
            anchor_b: None,
            axis,
            kind: JointSpecKind::Hinge {
                limits: None,
                motor: None,
            },
        }
    }

    /// A hinge as [`JointSpec::hinge`] with angle limits `[lower, upper]`, rad.
    pub fn limited_hinge(a: usize, b: usize, anchor: Vec3, axis: Vec3, limits: [f32; 2]) -> Self {
        JointSpec {
            kind: JointSpecKind::Hinge {
                limits: Some(limits),
                motor: None,
            },
            ..Self::hinge(a, b, anchor, axis)
        }
    }

    /// A cone-twist joint between bodies `a` and `b` at the world point `anchor`, the cone
    /// around the world direction `axis`.
    pub fn cone_twist(
        a: usize,
        b: usize,
        anchor: Vec3,
        axis: Vec3,
        cone_angle: f32,
        twist: [f32; 2],
    ) -> Self {
        JointSpec {
            a,
            b,
            anchor,
            anchor_b: None,
            axis,
            kind: JointSpecKind::ConeTwist { cone_angle, twist },
        }
    }

    /// A weld between bodies `a` and `b`, its frame at the world point `anchor`.
    pub fn fixed(a: usize, b: usize, anchor: Vec3) -> Self {
        JointSpec {
            a,
            b,
            anchor,
            anchor_b: None,
            axis: Vec3::Z,
            kind: JointSpecKind::Fixed,
        }
    }

    /// A rod (see [`JointSpecKind::Distance`]) of length `length` between the world point
    /// `anchor_a` on body `a` and `anchor_b` on body `b`.
    pub fn distance(a: usize, b: usize, anchor_a: Vec3, anchor_b: Vec3, length: f32) -> Self {
        JointSpec {
            a,
            b,
            anchor: anchor_a,
            anchor_b: Some(anchor_b),
            axis: Vec3::Z,
            kind: JointSpecKind::Distance { length },
        }
    }

    /// B's anchor point in world space: [`JointSpec::anchor_b`], or `anchor` without one.
    pub fn anchor_b(&self) -> Vec3 {
        self.anchor_b.unwrap_or(self.anchor)
    }
}

/// A scene recipe: its bodies and the joints between them. Every engine's builder reads
/// the same recipe. A body list converts into a recipe without joints or column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recipe {
    /// The bodies, in build order.
    pub bodies: Vec<BodySpec>,
    /// The joints, indexing into `bodies`.
    pub joints: Vec<JointSpec>,
    /// The scene's tallest column (stack) of bodies, bottom to top, as indices into
    /// `bodies`; empty when the scene has none. Its compression is a stability figure
    /// ([`Stability::column_compression`](crate::Stability::column_compression)).
    pub column: Vec<usize>,
    /// Cloth, soft bodies and wind (impetus only: a peer adapter skips a scene that has
    /// any).
    pub particles: ParticleSpec,
}

/// The particles of a recipe: cloths, soft bodies and the wind, built after the bodies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParticleSpec {
    /// The cloths (their pins fixed: recipes pin nothing to bodies).
    pub cloths: Vec<ClothDef>,
    /// The soft bodies.
    pub soft_bodies: Vec<SoftBodyDef>,
    /// The wind, in m/s.
    pub wind: Vec3,
}

impl ParticleSpec {
    /// Whether the recipe has no particles.
    pub fn is_empty(&self) -> bool {
        self.cloths.is_empty() && self.soft_bodies.is_empty()
    }

    /// The particles it makes.
    pub fn count(&self) -> usize {
        self.cloths
            .iter()
            .map(|c| (c.nx * c.ny) as usize)
            .sum::<usize>()
            + self
                .soft_bodies
                .iter()
                .map(|s| s.vertices.len())
                .sum::<usize>()
    }
}

/// Builds a recipe's particles into an impetus world (after its bodies).
pub fn build_particles_impetus(world: &mut World, spec: &ParticleSpec) -> Result<(), Error> {
    for c in &spec.cloths {
        world.create_cloth(c)?;
    }
    for s in &spec.soft_bodies {
        world.create_soft_body(s)?;
    }
    if spec.wind != Vec3::ZERO {
        world.set_wind(spec.wind)?;
    }
    Ok(())
}

impl From<Vec<BodySpec>> for Recipe {
    fn from(bodies: Vec<BodySpec>) -> Self {
        Recipe {
            bodies,
            joints: Vec::new(),
            column: Vec::new(),
            particles: ParticleSpec::default(),
        }
    }
}

impl Recipe {
    /// Builds the bodies and then the joints into an impetus world.
    pub fn build_impetus(&self, world: &mut World) -> Result<(), Error> {
        let bodies = build_impetus(world, &self.bodies)?;
        build_joints_impetus(world, &bodies, &self.joints)?;
        build_particles_impetus(world, &self.particles)?;
        Ok(())
    }
}

/// Builds a recipe's bodies into an impetus world; returns their ids in recipe order.
pub fn build_impetus(world: &mut World, recipe: &[BodySpec]) -> Result<Vec<BodyId>, Error> {
    let mut ids = Vec::with_capacity(recipe.len());
    for b in recipe {
        // A height field's origin is its corner; the recipe gives its centre.
        let position = match b.shape {
            ShapeSpec::Terrain(t) => {
                let (sx, sz) = t.size();
                b.position - Vec3::new(0.5 * sx, 0.0, 0.5 * sz)
            }
            _ => b.position,
        };
        let body = world.create_body(&BodyDef {
            body_type: if b.dynamic {
                BodyType::Dynamic
            } else {
                BodyType::Static
            },
            position,
            rotation: b.rotation,
            linear_velocity: if b.dynamic {
                b.linear_velocity
            } else {
                Vec3::ZERO
            },
            ..Default::default()
        })?;
        let shape = match b.shape {
            ShapeSpec::Cuboid(he) => ShapeDef::cuboid(he),
            ShapeSpec::Ball(r) => ShapeDef::sphere(r),
            ShapeSpec::Capsule {
                half_height,
                radius,
            } => ShapeDef::capsule(half_height, radius),
            ShapeSpec::Terrain(t) => {
                let scale = Vec3::new(t.spacing, 1.0, t.spacing);
                let field = HeightField::new(t.rows, t.cols, t.heights(), scale)?;
                ShapeDef::height_field(std::sync::Arc::new(field))
            }
        };
        let density = if b.dynamic { b.density } else { 0.0 };
        world.add_shape(
            body,
            &shape
                .with_density(density)
                .with_friction(b.friction)
                .with_restitution(b.restitution),
        )?;
        ids.push(body);
    }
    Ok(ids)
}

/// Builds a recipe's joints into an impetus world whose recipe bodies are `bodies` (as
/// [`build_impetus`] returns them), at the bodies' current poses as
/// [`JointDef::at_world`] places them (B's frame at [`JointSpec::anchor_b`] when given);
/// returns the joint ids in recipe order.
pub fn build_joints_impetus(
    world: &mut World,
    bodies: &[BodyId],
    joints: &[JointSpec],
) -> Result<Vec<JointId>, Error> {
    let mut ids = Vec::with_capacity(joints.len());
    for j in joints {
        let (a, b) = (bodies[j.a], bodies[j.b]);
        let kind = match j.kind {
            JointSpecKind::Ball => JointKind::Ball,
            JointSpecKind::Hinge { limits, motor } => JointKind::Hinge {
                limits: limits.map(|[lower, upper]| Limits { lower, upper }),
                motor,
                spring: None,
            },
            JointSpecKind::ConeTwist {
                cone_angle,
                twist: [lower, upper],
            } => JointKind::ConeTwist {
                cone_angle,
                twist: Some(Limits { lower, upper }),
            },
            JointSpecKind::Fixed => JointKind::Fixed {
                linear: None,
                angular: None,
            },
            JointSpecKind::Distance { length } => JointKind::Distance {
                min_length: length,
                max_length: length,
                spring: None,
            },
        };
        let (xa, xb) = (world.body_transform(a)?, world.body_transform(b)?);
        let mut def = JointDef::at_world(kind, a, &xa, b, &xb, j.anchor, j.axis);
        if let Some(anchor_b) = j.anchor_b {
            // The same frame orientation as A's, at B's own anchor.
            let world_b = Transform::new(anchor_b, xa.q * def.frame_a.q);
            def.frame_b = xb.inv_mul(&world_b);
        }
        ids.push(world.create_joint(&def)?);
    }
    Ok(ids)
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

/// The centre column of [`flat_pyramid`]`(base, _)`: in each row, bottom to top, the box
/// nearest x = 0 (the one on the −x side of a tie), as indices into its body list. Rows
/// are offset by half a box, so the column zigzags by half a box, each box resting on the
/// one below it.
pub fn flat_pyramid_column(base: usize) -> Vec<usize> {
    let half = (base as f32 - 1.0) * 0.5;
    let mut column = Vec::with_capacity(base);
    let mut first = 1; // the ground is body 0
    for i in 0..base {
        let x = |j: usize| j as f32 - 0.5 * i as f32 - half;
        let j = (i..base)
            .min_by(|&a, &b| x(a).abs().total_cmp(&x(b).abs()))
            .unwrap_or(i);
        column.push(first + j - i);
        first += base - i;
    }
    column
}

/// A flat pyramid as a recipe with its centre column ([`flat_pyramid_column`]).
fn flat_pyramid_recipe(base: usize, g: f32) -> Recipe {
    Recipe {
        column: flat_pyramid_column(base),
        ..flat_pyramid(base, g).into()
    }
}

/// `pyramid`: base 40 (820 boxes), ground 100; its column is the centre one
/// ([`flat_pyramid_column`]).
pub fn pyramid(_: &Params) -> Recipe {
    flat_pyramid_recipe(40, 100.0)
}

/// `large_pyramid`: base 100 (5,050 boxes), ground 400; its column is the centre one
/// ([`flat_pyramid_column`]).
pub fn large_pyramid(_: &Params) -> Recipe {
    flat_pyramid_recipe(100, 400.0)
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

/// A rotation by up to 0.05 rad about a random axis: how the pile and the towers tilt
/// their boxes so that they do not land flat.
fn small_tilt(rng: &mut Rng) -> Quat {
    let axis = Vec3::new(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    );
    let axis = axis.try_normalize().unwrap_or(Vec3::Y);
    Quat::from_axis_angle(axis, rng.range(-0.05, 0.05))
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
                r.push(BodySpec::unit_box(Vec3::new(x, y, z), small_tilt(&mut rng)));
            }
        }
    }
    r
}

/// Heights of the `towers` scene's columns, left to right.
pub const TOWER_HEIGHTS: [usize; 5] = [5, 10, 15, 20, 25];

/// Where the `towers` scene's column `k` stands along x: 6 m apart, centred on x = 0.
pub fn tower_x(k: usize) -> f32 {
    (k as f32 - 0.5 * (TOWER_HEIGHTS.len() as f32 - 1.0)) * 6.0
}

/// `towers`: lone columns of [`TOWER_HEIGHTS`] unit boxes 6 m apart along x, each built
/// as one of the pile's columns (spacing 1.1 from y = 1, each box tilted by up to
/// 0.05 rad about a random axis) on a ground of half size 20. A pile's edge columns stand
/// alone like these, so this scene separates how one column settles from the heap. Its
/// column (for [`Stability::column_compression`](crate::Stability::column_compression)) is
/// the tallest one, the 25 boxes at x = 12.
pub fn towers(params: &Params) -> Recipe {
    let mut r = Recipe::from(vec![ground(20.0)]);
    let mut rng = Rng::new(params.seed);
    for (k, &n) in TOWER_HEIGHTS.iter().enumerate() {
        let x = tower_x(k);
        let first = r.bodies.len();
        for iy in 0..n {
            r.bodies.push(BodySpec::unit_box(
                Vec3::new(x, 1.0 + iy as f32 * 1.1, 0.0),
                small_tilt(&mut rng),
            ));
        }
        if n > r.column.len() {
            r.column = (first..first + n).collect();
        }
    }
    r
}

/// `rain`: 4,000 bodies, boxes (half extents 0.3–0.6 per axis), spheres (radius 0.3–0.6)
/// and capsules (radius 0.2–0.4, core half length 0.3–0.6) in turn, on a 20 × 20 grid of
/// columns 2 m apart over a 40 × 40 area, 10 layers 4 m apart from y = 5 to 45 with ±1 m
/// of jitter in height, random orientations; the ground (half size 100, so rolling spheres
/// stay on it) has its top face at y = 0.
pub fn rain(params: &Params) -> Vec<BodySpec> {
    let mut r = vec![ground(100.0)];
    let mut rng = Rng::new(params.seed);
    r.extend(mixed_layers(
        &mut rng,
        10,
        (5.0, 4.0, 1.0),
        (0.3, 0.6),
        true,
    ));
    r
}

/// `mesh_pile`: 2,000 bodies, alternately boxes (half extents 0.3–0.5 per axis) and
/// spheres (radius 0.3–0.5), on a 20 × 20 grid of columns 2 m apart, 5 layers 2.5 m apart
/// from y = 6 with ±0.5 m of jitter, random orientations, falling onto a [`Terrain`] of
/// 128 × 128 samples 1 m apart (hills of ±3 m, wide enough that rolling spheres stay on
/// it) centred on the origin.
pub fn mesh_pile(params: &Params) -> Vec<BodySpec> {
    let terrain = Terrain {
        rows: 128,
        cols: 128,
        spacing: 1.0,
        amplitude: 2.0,
    };
    let mut r = vec![BodySpec {
        shape: ShapeSpec::Terrain(terrain),
        ..BodySpec::static_box(Vec3::ZERO, Vec3::ONE)
    }];
    let mut rng = Rng::new(params.seed);
    r.extend(mixed_layers(
        &mut rng,
        5,
        (6.0, 2.5, 0.5),
        (0.3, 0.5),
        false,
    ));
    r
}

/// `layers` layers of a 20 × 20 grid of columns 2 m apart centred on x = z = 0, in turn
/// boxes (each half extent in `size`), spheres (radius in `size`) and, with `capsules`,
/// capsules (radius two thirds of a draw in `size`, core half length in `size`), randomly
/// oriented; `height` is (first layer's y, spacing between layers, ± jitter in y). Shared
/// by `rain` (with capsules) and `mesh_pile` (without).
fn mixed_layers(
    rng: &mut Rng,
    layers: usize,
    height: (f32, f32, f32),
    size: (f32, f32),
    capsules: bool,
) -> Vec<BodySpec> {
    let (y0, dy, jitter) = height;
    let mut r = Vec::with_capacity(layers * 400);
    for layer in 0..layers {
        for ix in 0..20 {
            for iz in 0..20 {
                let position = Vec3::new(
                    -19.0 + 2.0 * ix as f32,
                    y0 + dy * layer as f32 + rng.range(-jitter, jitter),
                    -19.0 + 2.0 * iz as f32,
                );
                let rotation = random_rotation(rng);
                let kinds = if capsules { 3 } else { 2 };
                let shape = match (ix + iz + layer) % kinds {
                    0 => ShapeSpec::Cuboid(Vec3::new(
                        rng.range(size.0, size.1),
                        rng.range(size.0, size.1),
                        rng.range(size.0, size.1),
                    )),
                    1 => ShapeSpec::Ball(rng.range(size.0, size.1)),
                    _ => ShapeSpec::Capsule {
                        radius: rng.range(size.0, size.1) * (2.0 / 3.0),
                        half_height: rng.range(size.0, size.1),
                    },
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

/// A dynamic sphere of density 100 and friction 0.6.
fn ball(position: Vec3, radius: f32) -> BodySpec {
    BodySpec {
        shape: ShapeSpec::Ball(radius),
        ..BodySpec::unit_box(position, Quat::IDENTITY)
    }
}

/// `joint_grid`: see [`joint_grid_n`] with n = 100 (10,000 spheres, 19,701 joints).
pub fn joint_grid(_: &Params) -> Recipe {
    joint_grid_n(100)
}

/// An n × n grid of spheres of radius 0.4 in the x-y plane, 1 m apart: sphere (row r,
/// column c) at (c, r, 0), index r n + c, the top row (r = n − 1) static. Each sphere is
/// joined to its right and upper neighbour by a ball joint at their midpoint, except
/// between two static top-row spheres (nothing to constrain; impetus refuses a joint
/// between two static bodies): 2 n (n − 1) − (n − 1) joints. No ground; joined spheres do
/// not collide and the others never come near each other while the grid hangs.
pub fn joint_grid_n(n: usize) -> Recipe {
    let mut r = Recipe::default();
    for row in 0..n {
        for c in 0..n {
            let mut b = ball(Vec3::new(c as f32, row as f32, 0.0), 0.4);
            b.dynamic = row + 1 < n;
            r.bodies.push(b);
        }
    }
    for row in 0..n {
        for c in 0..n {
            let i = row * n + c;
            let p = Vec3::new(c as f32, row as f32, 0.0);
            if c + 1 < n && row + 1 < n {
                r.joints
                    .push(JointSpec::ball(i, i + 1, p + Vec3::new(0.5, 0.0, 0.0)));
            }
            if row + 1 < n {
                r.joints
                    .push(JointSpec::ball(i, i + n, p + Vec3::new(0.0, 0.5, 0.0)));
            }
        }
    }
    r
}

/// `bridge`: 40 planks (1.0 × 0.1 × 2.0 m, density 100) side by side along x over
/// x ∈ [−20, 20], centres at y = 5, between two static posts (1 × 5 × 2 m, standing on the
/// ground, tops at y = 5). Each plank is hinged to the next at their shared edge (at the
/// planks' mid-height, z = 0), the hinge axis running across the bridge (z); the end
/// planks are hinged to the posts the same way. Five boxes of half extent 0.4 are dropped
/// from 2 m above the deck at x = −10, −5, 0, 5, 10. Ground of half size 40.
///
/// The planks span the gap exactly, so the deck sags only as far as its joints stretch:
/// a sag s takes about 8 s² / (3 · 40 m) of stretch in all (2.5 m of sag: 0.42 m, about
/// 1 cm per joint). The joints' stiffness under tension is what this scene measures.
pub fn bridge(_: &Params) -> Recipe {
    let planks = 40;
    let (deck_y, half_span) = (5.0, 20.0);
    let mut r = Recipe::from(vec![ground(40.0)]);
    let post = |x: f32| {
        BodySpec::static_box(
            Vec3::new(x, 0.5 * deck_y, 0.0),
            Vec3::new(0.5, 0.5 * deck_y, 1.0),
        )
    };
    r.bodies.push(post(-half_span - 0.5));
    r.bodies.push(post(half_span + 0.5));
    let (left, right, first) = (1, 2, 3);
    for i in 0..planks {
        let x = -half_span + 0.5 + i as f32;
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::new(0.5, 0.05, 1.0)),
            ..BodySpec::unit_box(Vec3::new(x, deck_y, 0.0), Quat::IDENTITY)
        });
    }
    let edge = |k: usize| Vec3::new(-half_span + k as f32, deck_y, 0.0);
    r.joints
        .push(JointSpec::hinge(left, first, edge(0), Vec3::Z));
    for i in 0..planks - 1 {
        r.joints.push(JointSpec::hinge(
            first + i,
            first + i + 1,
            edge(i + 1),
            Vec3::Z,
        ));
    }
    r.joints.push(JointSpec::hinge(
        first + planks - 1,
        right,
        edge(planks),
        Vec3::Z,
    ));
    for x in [-10.0, -5.0, 0.0, 5.0, 10.0] {
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(Vec3::splat(0.4)),
            ..BodySpec::unit_box(Vec3::new(x, deck_y + 0.05 + 0.4 + 2.0, 0.0), Quat::IDENTITY)
        });
    }
    r
}

/// `chain`: 100 links (boxes 0.5 × 0.1 × 0.1 m, density 100, 0.5 kg each) in a straight
/// line from a static anchor (a box of half extent 0.1 at (0, 60, 0)), pointing down and
/// to +x at 45° from the vertical, consecutive links joined by ball joints at their
/// shared ends and the first to the anchor's centre; at the end, a sphere of 100 link
/// masses (50 kg, density 100, radius ≈ 0.49 m) joined at its surface. Released at rest,
/// it swings as a 50 m pendulum (period ≈ 14 s). No ground.
pub fn chain(_: &Params) -> Recipe {
    let links = 100;
    let half = Vec3::new(0.25, 0.05, 0.05);
    let link_mass = 100.0 * 8.0 * half.x * half.y * half.z;
    let radius = (3.0 * links as f32 * link_mass / (4.0 * std::f32::consts::PI * 100.0)).cbrt();
    let top = Vec3::new(0.0, 60.0, 0.0);
    let dir = Vec3::new(1.0, -1.0, 0.0).normalize();
    let rotation = Quat::from_rotation_arc(Vec3::X, dir);
    let mut r = Recipe::from(vec![BodySpec::static_box(top, Vec3::splat(0.1))]);
    let end = |k: usize| top + dir * (2.0 * half.x * k as f32);
    for k in 0..links {
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(half),
            ..BodySpec::unit_box(top + dir * (2.0 * half.x * (k as f32 + 0.5)), rotation)
        });
        r.joints.push(JointSpec::ball(k, k + 1, end(k)));
    }
    r.bodies.push(ball(end(links) + dir * radius, radius));
    r.joints.push(JointSpec::ball(links, links + 1, end(links)));
    r
}
