//! Scenes of stiffness under load: stacks of boxes of very different masses, and heavy
//! loads hanging on long chains of light links and on rods.

use super::{ground, BodySpec, JointSpec, Params, Recipe, ShapeSpec};
use impetus::{Quat, Vec3};
use std::f32::consts::PI;

/// The stacks of `mass_ratio`, left to right: the boxes' densities bottom to top, in
/// kg/m³ (unit boxes, so also their masses in kg).
pub const MASS_RATIO_STACKS: [&[f32]; 4] = [
    &[100.0, 1_000.0],
    &[100.0, 10_000.0],
    &[100.0, 100_000.0],
    &[10_000.0, 100.0, 10_000.0],
];

/// `mass_ratio`: four stacks of unit boxes (half extent 0.5, friction 0.6) on a ground of
/// half size 20, 6 m apart along x (at x = −9, −3, 3, 9, z = 0), the boxes of a stack
/// centred at y = 0.5, 1.5, 2.5 (exactly touching, untilted), with the densities of
/// [`MASS_RATIO_STACKS`]: a light box of 100 kg/m³ (100 kg) under a heavy one of 1,000,
/// 10,000 and 100,000 kg/m³ (mass ratios 1:10, 1:100, 1:1000), and a sandwich of a
/// 10,000 kg box, a 100 kg box and a 10,000 kg box (1:100, heavy at the bottom and on
/// top). Its column (for
/// [`Stability::column_compression`](crate::Stability::column_compression)) is the
/// sandwich, the tallest stack.
pub fn mass_ratio(_: &Params) -> Recipe {
    let mut r = Recipe::from(vec![ground(20.0)]);
    for (k, densities) in MASS_RATIO_STACKS.iter().enumerate() {
        let x = -9.0 + 6.0 * k as f32;
        let first = r.bodies.len();
        for (i, &density) in densities.iter().enumerate() {
            r.bodies.push(BodySpec {
                density,
                ..BodySpec::unit_box(Vec3::new(x, 0.5 + i as f32, 0.0), Quat::IDENTITY)
            });
        }
        if densities.len() > r.column.len() {
            r.column = (first..r.bodies.len()).collect();
        }
    }
    r
}

/// Links of the hanging chain of `heavy_chain`.
pub const CHAIN_LINKS: usize = 100;
/// Mass of one link of the hanging chain, kg.
pub const CHAIN_LINK_MASS: f32 = 1.0;
/// Mass of the ball at the end of the hanging chain, kg.
pub const CHAIN_BALL_MASS: f32 = 100.0;
/// Planks of the bridge of `heavy_chain`.
pub const BRIDGE_PLANKS: usize = 10;
/// Mass of one plank of the bridge, kg.
pub const BRIDGE_PLANK_MASS: f32 = 80.0;
/// Length of the bridge's rods, m.
pub const BRIDGE_ROD: f32 = 0.5;

/// The volume of a capsule of core half length `half_height` and radius `radius`, m³.
pub fn capsule_volume(half_height: f32, radius: f32) -> f32 {
    PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius)
}

/// `heavy_chain`: two loads far heavier than what holds them, with no ground.
///
/// (a) The hanging chain: [`CHAIN_LINKS`] (100) capsules along y (core half length 0.2 m,
/// radius 0.05 m: 0.5 m from tip to tip; [`CHAIN_LINK_MASS`], 1 kg each, density
/// ≈ 272.8 kg/m³) hanging straight down at x = −10, z = 0, the first one's top tip at
/// y = 60 and each link's bottom tip at the next one's top tip, at rest. The first link
/// hangs from the bottom face of a static anchor box (half extent 0.25, centred at
/// (−10, 60.25, 0)), consecutive links are joined by ball joints at their shared tips, and
/// the last one by a ball joint at its bottom tip (y = 10) to the top of a ball of radius
/// 0.3 m and [`CHAIN_BALL_MASS`], 100 kg (100 link masses, density ≈ 884.2 kg/m³),
/// centred at (−10, 9.7, 0). Every joint of the chain but the ball's joins two centres
/// 0.5 m apart; the ball's joins centres 0.55 m apart.
///
/// (b) The bridge: [`BRIDGE_PLANKS`] (10) planks (1 m along x, 0.1 m thick, 2 m across
/// along z; [`BRIDGE_PLANK_MASS`], 80 kg each, density 400 kg/m³) between two static
/// planks of the same size, the anchors, in the x-y plane around x = 10, z = 0, the
/// anchors' centres at y = 30. Each plank is joined to the next (and the end planks to the
/// anchors) by two rods ([`JointSpecKind::Distance`](crate::JointSpecKind::Distance)) of
/// [`BRIDGE_ROD`] (0.5 m), one at each end of their facing edges (at mid-thickness,
/// z = ±1): 11 pairs, 22 rods. It is built hanging in its equilibrium shape for a
/// horizontal tension of 5 plank weights (4,000 N): going left to right along the 21
/// segments (rod, plank, rod, ..., plank, rod), segment s is at the angle
/// atan((s − 10) / 10) to the x axis (the vertical tension over the horizontal one, in
/// plank weights: the middle rod level, the end rods at 45°, each plank at the mean of its
/// two rods' angles). So the anchors' facing edges are ≈ 13.57 m apart (their centres
/// ≈ 14.57 m) and the level middle rod hangs ≈ 3.28 m below them: the bridge hangs as a
/// catenary, in tension everywhere (the end rods carry ≈ 2,830 N each), and holds its
/// 800 kg by its rods alone.
///
/// The chain and the bridge stay more than 11 m apart: no contact anywhere.
pub fn heavy_chain(_: &Params) -> Recipe {
    let mut r = Recipe::default();
    hanging_chain(&mut r, Vec3::new(-10.0, 60.0, 0.0));
    catenary_bridge(&mut r, Vec3::new(10.0, 30.0, 0.0));
    r
}

/// The hanging chain of [`heavy_chain`], its first link's top tip at `top`.
fn hanging_chain(r: &mut Recipe, top: Vec3) {
    let (half_height, radius) = (0.2, 0.05);
    let pitch = 2.0 * (half_height + radius);
    let link_density = CHAIN_LINK_MASS / capsule_volume(half_height, radius);
    let ball_radius = 0.3;
    let ball_density = CHAIN_BALL_MASS / (4.0 / 3.0 * PI * ball_radius * ball_radius * ball_radius);
    let anchor_half = 0.25;
    let anchor = r.bodies.len();
    r.bodies.push(BodySpec::static_box(
        top + Vec3::new(0.0, anchor_half, 0.0),
        Vec3::splat(anchor_half),
    ));
    let tip = |k: usize| top - Vec3::new(0.0, pitch * k as f32, 0.0);
    let mut above = anchor;
    for k in 0..CHAIN_LINKS {
        let link = r.bodies.len();
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Capsule {
                half_height,
                radius,
            },
            density: link_density,
            ..BodySpec::unit_box(tip(k) - Vec3::new(0.0, 0.5 * pitch, 0.0), Quat::IDENTITY)
        });
        r.joints.push(JointSpec::ball(above, link, tip(k)));
        above = link;
    }
    let end = tip(CHAIN_LINKS);
    let ball = r.bodies.len();
    r.bodies.push(BodySpec {
        shape: ShapeSpec::Ball(ball_radius),
        density: ball_density,
        ..BodySpec::unit_box(end - Vec3::new(0.0, ball_radius, 0.0), Quat::IDENTITY)
    });
    r.joints.push(JointSpec::ball(above, ball, end));
}

/// The bridge of [`heavy_chain`], centred on `centre` (the anchors' centres at its
/// height).
fn catenary_bridge(r: &mut Recipe, centre: Vec3) {
    let (half_length, half_thickness, half_width) = (0.5, 0.05, 1.0);
    let half = Vec3::new(half_length, half_thickness, half_width);
    let density = BRIDGE_PLANK_MASS / (8.0 * half.x * half.y * half.z);
    // Segment s (even: a rod, odd: a plank) at atan((s − 10) / 10): the vertical tension
    // there over the horizontal tension of 5 plank weights.
    let segments = 2 * BRIDGE_PLANKS + 1;
    let direction = |s: usize| {
        let slope = (s as f32 - 0.5 * (segments - 1) as f32) / (0.5 * (segments - 1) as f32);
        Vec3::new(1.0, slope, 0.0).normalize()
    };
    let length = |s: usize| {
        if s % 2 == 0 {
            BRIDGE_ROD
        } else {
            2.0 * half_length
        }
    };
    // The polyline's vertices (the joints' points at z = 0) from the left anchor's edge.
    let mut vertices = vec![Vec3::ZERO];
    for s in 0..segments {
        let last = vertices[vertices.len() - 1];
        vertices.push(last + direction(s) * length(s));
    }
    // The ends are level by symmetry; centre the span on `centre`.
    let span = vertices[segments].x;
    let origin = centre - Vec3::new(0.5 * span, 0.0, 0.0);
    let left = r.bodies.len();
    r.bodies.push(BodySpec::static_box(
        origin - Vec3::new(half_length, 0.0, 0.0),
        half,
    ));
    let right = r.bodies.len();
    r.bodies.push(BodySpec::static_box(
        origin + Vec3::new(span + half_length, 0.0, 0.0),
        half,
    ));
    let mut planks = Vec::with_capacity(BRIDGE_PLANKS);
    for p in 0..BRIDGE_PLANKS {
        let s = 2 * p + 1;
        let centre = origin + 0.5 * (vertices[s] + vertices[s + 1]);
        planks.push(r.bodies.len());
        r.bodies.push(BodySpec {
            shape: ShapeSpec::Cuboid(half),
            density,
            ..BodySpec::unit_box(centre, Quat::from_rotation_arc(Vec3::X, direction(s)))
        });
    }
    // Rod s/2 joins the body before it (the left anchor or a plank) to the one after it.
    for s in (0..segments).step_by(2) {
        let a = if s == 0 { left } else { planks[s / 2 - 1] };
        let b = if s + 1 == segments {
            right
        } else {
            planks[s / 2]
        };
        for z in [-half_width, half_width] {
            let side = Vec3::new(0.0, 0.0, z);
            r.joints.push(JointSpec::distance(
                a,
                b,
                origin + vertices[s] + side,
                origin + vertices[s + 1] + side,
                BRIDGE_ROD,
            ));
        }
    }
}
