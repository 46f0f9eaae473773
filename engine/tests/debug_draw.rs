//! `World::debug_draw` checked against the physics it draws: a box resting on the ground
//! draws its 12 edges and 4 contacts pushing up with the box's weight; a hinge draws its
//! two frames at the anchor, turned to the limit it rests on, and its limit arc; a region
//! of interest leaves far bodies out; the body filters keep what they name; every shape
//! kind draws, through its own method and through lines alone; bad options are errors
//! naming the field; and a call allocates nothing (a counting allocator, per thread).

mod common;

use common::{body, field_of, DT};
use impetus::debug_draw::CIRCLE_SEGMENTS;
use impetus::{
    Aabb, BodyId, BodyType, ConvexHull, DebugDraw, DebugDrawOptions, HeightField, JointDef,
    JointKind, Limits, Motor, Quat, Rgba, ShapeDef, Spring, Transform, TriMesh, Vec3, World,
    WorldDef,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

/// Counts the allocations of each thread, so tests running beside each other do not
/// disturb one another's counts.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator may run while this thread's locals are being torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations this thread makes while running `f`.
fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// One call a drawer received.
#[derive(Clone, Debug, PartialEq)]
enum Call {
    Line(Vec3, Vec3, Rgba),
    Point(Vec3, f32, Rgba),
    Box(Transform, Vec3, Rgba),
    Sphere(Transform, f32, Rgba),
    Capsule(Transform, f32, f32, Rgba),
    Polygon(Vec<Vec3>, Rgba),
    Triangle([Vec3; 3], Rgba),
    Frame(Transform, f32),
    Text(Vec3, String, Rgba),
}

/// Records every primitive as the world calls it (overrides every method).
#[derive(Default)]
struct Calls(Vec<Call>);

impl DebugDraw for Calls {
    fn line(&mut self, a: Vec3, b: Vec3, color: Rgba) {
        self.0.push(Call::Line(a, b, color));
    }
    fn point(&mut self, position: Vec3, size: f32, color: Rgba) {
        self.0.push(Call::Point(position, size, color));
    }
    fn oriented_box(&mut self, transform: &Transform, half_extents: Vec3, color: Rgba) {
        self.0.push(Call::Box(*transform, half_extents, color));
    }
    fn sphere(&mut self, transform: &Transform, radius: f32, color: Rgba) {
        self.0.push(Call::Sphere(*transform, radius, color));
    }
    fn capsule(&mut self, transform: &Transform, half_height: f32, radius: f32, color: Rgba) {
        self.0
            .push(Call::Capsule(*transform, half_height, radius, color));
    }
    fn polygon(&mut self, vertices: &[Vec3], color: Rgba) {
        self.0.push(Call::Polygon(vertices.to_vec(), color));
    }
    fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, color: Rgba) {
        self.0.push(Call::Triangle([a, b, c], color));
    }
    fn frame(&mut self, transform: &Transform, size: f32) {
        self.0.push(Call::Frame(*transform, size));
    }
    fn text(&mut self, position: Vec3, text: &str, color: Rgba) {
        self.0.push(Call::Text(position, text.to_string(), color));
    }
}

impl Calls {
    fn of(world: &World, options: &DebugDrawOptions) -> Calls {
        let mut calls = Calls::default();
        world.debug_draw(&mut calls, options).unwrap();
        calls
    }

    fn lines(&self, color: Rgba) -> Vec<(Vec3, Vec3)> {
        self.0
            .iter()
            .filter_map(|c| match *c {
                Call::Line(a, b, k) if k == color => Some((a, b)),
                _ => None,
            })
            .collect()
    }

    fn points(&self, color: Rgba) -> Vec<Vec3> {
        self.0
            .iter()
            .filter_map(|c| match *c {
                Call::Point(p, _, k) if k == color => Some(p),
                _ => None,
            })
            .collect()
    }

    fn boxes(&self) -> Vec<(Transform, Vec3, Rgba)> {
        self.0
            .iter()
            .filter_map(|c| match *c {
                Call::Box(xf, h, k) => Some((xf, h, k)),
                _ => None,
            })
            .collect()
    }

    fn frames(&self) -> Vec<Transform> {
        self.0
            .iter()
            .filter_map(|c| match *c {
                Call::Frame(xf, _) => Some(xf),
                _ => None,
            })
            .collect()
    }

    fn texts(&self) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|c| match c {
                Call::Text(_, t, _) => Some(t.clone()),
                _ => None,
            })
            .collect()
    }
}

/// A minimal host: lines only; everything else comes through the defaults.
#[derive(Default)]
struct Lines(Vec<(Vec3, Vec3, Rgba)>);

impl DebugDraw for Lines {
    fn line(&mut self, a: Vec3, b: Vec3, color: Rgba) {
        self.0.push((a, b, color));
    }
}

impl Lines {
    fn of(world: &World, options: &DebugDrawOptions) -> Lines {
        let mut lines = Lines::default();
        world.debug_draw(&mut lines, options).unwrap();
        lines
    }
}

/// Counts calls without allocating (for the allocation test).
#[derive(Default)]
struct Tally {
    lines: usize,
    points: usize,
    boxes: usize,
    spheres: usize,
    capsules: usize,
    polygons: usize,
    triangles: usize,
    frames: usize,
    texts: usize,
}

impl DebugDraw for Tally {
    fn line(&mut self, _: Vec3, _: Vec3, _: Rgba) {
        self.lines += 1;
    }
    fn point(&mut self, _: Vec3, _: f32, _: Rgba) {
        self.points += 1;
    }
    fn oriented_box(&mut self, _: &Transform, _: Vec3, _: Rgba) {
        self.boxes += 1;
    }
    fn sphere(&mut self, _: &Transform, _: f32, _: Rgba) {
        self.spheres += 1;
    }
    fn capsule(&mut self, _: &Transform, _: f32, _: f32, _: Rgba) {
        self.capsules += 1;
    }
    fn polygon(&mut self, _: &[Vec3], _: Rgba) {
        self.polygons += 1;
    }
    fn triangle(&mut self, _: Vec3, _: Vec3, _: Vec3, _: Rgba) {
        self.triangles += 1;
    }
    fn frame(&mut self, _: &Transform, _: f32) {
        self.frames += 1;
    }
    fn text(&mut self, _: Vec3, text: &str, _: Rgba) {
        assert!(!text.is_empty());
        self.texts += 1;
    }
}

const G: f32 = 10.0;

fn world(sleep: bool) -> World {
    common::world_from(WorldDef {
        gravity: Vec3::new(0.0, -G, 0.0),
        enable_sleep: sleep,
        ..common::def(1)
    })
}

fn unit_box(w: &mut World, position: Vec3) -> BodyId {
    body(
        w,
        BodyType::Dynamic,
        position,
        Some(ShapeDef::cuboid(Vec3::splat(0.5))),
    )
}

/// Nothing but what the test turns on.
fn nothing() -> DebugDrawOptions {
    DebugDrawOptions {
        shapes: false,
        joints: false,
        ..Default::default()
    }
}

fn near(a: Vec3, b: Vec3, tolerance: f32) -> bool {
    (a - b).length() <= tolerance
}

/// A 1 m box (1000 kg) resting on a plane: through lines alone it is its 12 edges, each
/// joining two corners of the box at its pose along one of its axes; its contact has 4
/// points at the bottom corners whose normals point up and whose normal forces add up to
/// the box's weight.
#[test]
fn box_at_rest_draws_twelve_edges_and_four_upward_contacts() {
    let mut w = world(false);
    common::ground_plane(&mut w);
    let b = unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0));
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let xf = w.body_transform(b).unwrap();
    assert!((xf.p.y - 0.5).abs() < 0.01, "the box rests: {xf:?}");

    let options = DebugDrawOptions {
        shapes: true,
        static_bodies: false,
        ..nothing()
    };
    let lines = Lines::of(&w, &options);
    assert_eq!(lines.0.len(), 12, "{:?}", lines.0);
    let corners: Vec<Vec3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -0.5 } else { 0.5 };
            xf.transform_point(Vec3::new(s(1), s(2), s(4)))
        })
        .collect();
    let corner_of = |p: Vec3| corners.iter().position(|&c| near(c, p, 1e-4));
    let mut edges = Vec::new();
    for &(a, b, color) in &lines.0 {
        assert_eq!(color, options.palette.awake);
        let (i, j) = (corner_of(a).unwrap(), corner_of(b).unwrap());
        assert_eq!(
            (i ^ j).count_ones(),
            1,
            "an edge joins corners one axis apart"
        );
        edges.push((i.min(j), i.max(j)));
    }
    edges.sort_unstable();
    edges.dedup();
    assert_eq!(edges.len(), 12, "every edge once");

    let options = DebugDrawOptions {
        contact_points: true,
        contact_normals: true,
        contact_forces: true,
        ..nothing()
    };
    let calls = Calls::of(&w, &options);
    let points = calls.points(options.palette.contact_point);
    assert_eq!(points.len(), 4, "{:?}", calls.0);
    for p in &points {
        assert!(p.y.abs() < 0.02, "on the ground: {p}");
        assert!(
            (p.x.abs() - 0.5).abs() < 0.02 && (p.z.abs() - 0.5).abs() < 0.02,
            "at a bottom corner: {p}"
        );
    }
    let normals = calls.lines(options.palette.contact_normal);
    assert_eq!(normals.len(), 4);
    for &(a, b) in &normals {
        assert!(points.contains(&a), "from a contact point");
        let n = b - a;
        assert!((n.length() - options.normal_length).abs() < 1e-5);
        assert!(n.normalize().dot(Vec3::Y) > 0.999, "upward: {n}");
    }
    let forces = calls.lines(options.palette.contact_force);
    assert_eq!(forces.len(), 4);
    let mut total = 0.0;
    for &(a, b) in &forces {
        let d = b - a;
        assert!(
            d.y > 0.0 && d.x.abs() < 1e-6 && d.z.abs() < 1e-6,
            "upward: {d}"
        );
        total += d.length() / options.force_scale;
    }
    let weight = 1000.0 * G;
    assert!(
        (total / weight - 1.0).abs() < 0.02,
        "the ground carries the weight: {total} N vs {weight} N"
    );
    let friction = calls.lines(options.palette.friction_force);
    assert_eq!(friction.len(), 1, "one manifold");
    let f = friction[0].1 - friction[0].0;
    assert!(
        f.length() / options.force_scale < 0.01 * weight,
        "nothing pushes sideways on flat ground: {f}"
    );
}

/// A bar hinged at its end to a static anchor, its limits ±0.5 rad, falls onto the lower
/// limit: both joint frames sit on the anchor with their z axes along the hinge axis, B's
/// turned by the lower limit from A's; the limit arc spans ±0.5 rad at `frame_size`.
#[test]
fn a_hinge_draws_its_frames_and_limits() {
    let mut w = world(false);
    let anchor = Vec3::new(0.0, 2.0, 0.0);
    let a = body(&mut w, BodyType::Static, anchor, None);
    let bar = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.5, 2.0, 0.0),
        Some(ShapeDef::cuboid(Vec3::new(0.5, 0.05, 0.05))),
    );
    let kind = JointKind::Hinge {
        limits: Some(Limits {
            lower: -0.5,
            upper: 0.5,
        }),
        motor: None,
        spring: None,
    };
    let (xa, xb) = (w.body_transform(a).unwrap(), w.body_transform(bar).unwrap());
    w.create_joint(&JointDef::at_world(kind, a, &xa, bar, &xb, anchor, Vec3::Z))
        .unwrap();
    for _ in 0..120 {
        w.step(DT).unwrap();
    }

    let options = DebugDrawOptions {
        joints: true,
        joint_limits: true,
        ..nothing()
    };
    let calls = Calls::of(&w, &options);
    let frames = calls.frames();
    assert_eq!(frames.len(), 2, "{:?}", calls.0);
    for f in &frames {
        assert!(
            near(f.p, anchor, 0.01),
            "the frames meet at the anchor: {f:?}"
        );
        assert!(f.transform_vector(Vec3::Z).dot(Vec3::Z) > 0.9999);
    }
    let (fa, fb) = (frames[0], frames[1]);
    let bx = fa.inv_transform_vector(fb.transform_vector(Vec3::X));
    let angle = bx.y.atan2(bx.x);
    assert!(
        (angle + 0.5).abs() < 0.03,
        "the bar rests on its lower limit: {angle}"
    );
    // The bar's centre of mass hangs 0.5 m from the anchor, on B's x axis.
    let com = w.body_center_of_mass(bar).unwrap();
    let joint_lines = calls.lines(options.palette.joint);
    assert!(joint_lines
        .iter()
        .any(|&(p, q)| near(p, com, 1e-5) && near(q, fb.p, 1e-5)));
    assert!(near(com, anchor + fb.transform_vector(Vec3::X) * 0.5, 0.01));

    let limit_lines = calls.lines(options.palette.joint_limits);
    assert!(!limit_lines.is_empty());
    let (mut lowest, mut highest) = (f32::MAX, f32::MIN);
    for &(p, q) in &limit_lines {
        for v in [p, q] {
            let local = fa.inv_transform_point(v);
            assert!(local.z.abs() < 1e-5, "in the hinge's plane: {local}");
            let r = local.length();
            if r > 1e-4 {
                assert!((r - options.frame_size).abs() < 1e-4, "on the arc: {r}");
                let angle = local.y.atan2(local.x);
                lowest = lowest.min(angle);
                highest = highest.max(angle);
            }
        }
    }
    assert!((lowest + 0.5).abs() < 1e-4 && (highest - 0.5).abs() < 1e-4);

    // A host with lines only gets each frame as three axes, red, green and blue.
    let lines = Lines::of(
        &w,
        &DebugDrawOptions {
            joints: true,
            ..nothing()
        },
    );
    for (axis, color) in [
        (Vec3::X, Rgba::RED),
        (Vec3::Y, Rgba::GREEN),
        (Vec3::Z, Rgba::BLUE),
    ] {
        let axes: Vec<_> = lines.0.iter().filter(|l| l.2 == color).collect();
        assert_eq!(axes.len(), 2);
        for (f, l) in frames.iter().zip(axes) {
            assert!(near(l.1 - l.0, f.transform_vector(axis) * 0.25, 1e-5));
        }
    }
}

/// Two boxes rest on a plane 100 m apart: a region around one draws that box, its contact
/// points and its centre of mass, the plane through the region, and nothing of the other.
#[test]
fn the_region_of_interest_leaves_far_bodies_out() {
    let mut w = world(false);
    common::ground_plane(&mut w);
    let close = unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0));
    let far = unit_box(&mut w, Vec3::new(100.0, 0.5, 0.0));
    let region = Aabb {
        min: Vec3::new(-2.0, -1.0, -2.0),
        max: Vec3::new(2.0, 3.0, 2.0),
    };
    let options = DebugDrawOptions {
        shapes: true,
        centers_of_mass: true,
        labels: true,
        contact_points: true,
        region: Some(region),
        ..nothing()
    };
    // Before the first step the broadphase has no grid yet: the query still finds them.
    let calls = Calls::of(&w, &options);
    assert_eq!(calls.boxes().len(), 1);
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let calls = Calls::of(&w, &options);
    let boxes = calls.boxes();
    assert_eq!(boxes.len(), 1, "{:?}", calls.0);
    assert!(near(boxes[0].0.p, w.body_position(close).unwrap(), 1e-6));
    let contacts = calls.points(options.palette.contact_point);
    assert_eq!(contacts.len(), 4);
    assert!(contacts.iter().all(|p| p.x.abs() < 1.0));
    let centers = calls.points(options.palette.center_of_mass);
    assert_eq!(centers, vec![w.body_center_of_mass(close).unwrap()]);
    let mut texts = calls.texts();
    texts.sort();
    assert_eq!(
        texts,
        vec!["body 0".to_string(), format!("body {}", close.index)]
    );
    // The plane: a square about the point of the plane under the region's centre.
    let planes: Vec<_> = calls
        .0
        .iter()
        .filter_map(|c| match c {
            Call::Polygon(v, _) => Some(v.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(planes.len(), 1);
    let center = planes[0].iter().sum::<Vec3>() / 4.0;
    assert!(near(center, Vec3::new(0.0, 0.0, 0.0), 1e-4), "{center}");
    assert!(planes[0].iter().all(|v| v.y.abs() < 1e-4));

    // Everywhere: both boxes, both contacts.
    let everywhere = Calls::of(
        &w,
        &DebugDrawOptions {
            region: None,
            ..options
        },
    );
    assert_eq!(everywhere.boxes().len(), 2);
    assert_eq!(everywhere.points(options.palette.contact_point).len(), 8);
    assert!(everywhere.texts().contains(&format!("body {}", far.index)));

    // A region in the air above the ground meets nothing, the plane's half-space included.
    let air = Calls::of(
        &w,
        &DebugDrawOptions {
            region: Some(Aabb {
                min: Vec3::new(-2.0, 5.0, -2.0),
                max: Vec3::new(2.0, 6.0, 2.0),
            }),
            ..options
        },
    );
    assert_eq!(air.0, vec![]);
}

/// A box falls asleep on a plane beside a moving kinematic box: each body filter keeps
/// only its class, in its colour; contacts are drawn when either body is kept; a
/// sleeping island's box holds the sleeping body.
#[test]
fn the_body_filters_keep_what_they_name() {
    let mut w = world(true);
    common::ground_plane(&mut w);
    let sleeper = unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0));
    let kinematic = body(
        &mut w,
        BodyType::Kinematic,
        Vec3::new(10.0, 3.0, 0.0),
        Some(ShapeDef::cuboid(Vec3::splat(0.5))),
    );
    w.set_body_linear_velocity(kinematic, Vec3::new(0.0, 0.0, 1.0))
        .unwrap();
    let mut steps = 0;
    while w.body_is_awake(sleeper).unwrap() {
        w.step(DT).unwrap();
        steps += 1;
        assert!(steps < 600, "the box never fell asleep");
    }
    let only = |awake, sleeping, static_bodies, kinematic| DebugDrawOptions {
        shapes: true,
        awake,
        sleeping,
        static_bodies,
        kinematic,
        ..nothing()
    };
    let palette = DebugDrawOptions::default().palette;

    assert_eq!(Calls::of(&w, &only(true, false, false, false)).0, vec![]);
    let sleeping = Calls::of(&w, &only(false, true, false, false));
    assert_eq!(sleeping.0.len(), 1);
    let (xf, _, color) = sleeping.boxes()[0];
    assert_eq!(color, palette.sleeping);
    assert!(near(xf.p, w.body_position(sleeper).unwrap(), 1e-6));
    let moving = Calls::of(&w, &only(false, false, false, true));
    assert_eq!(moving.0.len(), 1);
    let (xf, _, color) = moving.boxes()[0];
    assert_eq!(color, palette.kinematic);
    assert!(near(xf.p, w.body_position(kinematic).unwrap(), 1e-6));
    let ground = Calls::of(&w, &only(false, false, true, false));
    assert_eq!(ground.0.len(), 2, "the plane's square and normal");
    assert!(
        matches!(&ground.0[0], Call::Polygon(v, c) if v.len() == 4 && *c == palette.static_body)
    );

    // Contacts go with either body: the ground's filter alone shows the sleeper's contact.
    let contacts = |filter: DebugDrawOptions| {
        Calls::of(
            &w,
            &DebugDrawOptions {
                shapes: false,
                contact_points: true,
                ..filter
            },
        )
        .points(palette.contact_point)
        .len()
    };
    assert_eq!(contacts(only(false, false, true, false)), 4);
    assert_eq!(contacts(only(false, true, false, false)), 4);
    assert_eq!(contacts(only(true, false, false, true)), 0);

    // The sleeping island, drawn when sleeping bodies are kept.
    let islands = |filter: DebugDrawOptions| {
        Calls::of(
            &w,
            &DebugDrawOptions {
                shapes: false,
                islands: true,
                ..filter
            },
        )
        .boxes()
    };
    assert_eq!(islands(only(true, false, true, true)), vec![]);
    let island = islands(only(false, true, false, false));
    assert_eq!(island.len(), 1);
    let (xf, half, color) = island[0];
    assert_eq!(color, palette.island_sleeping);
    assert!(near(xf.p, w.body_position(sleeper).unwrap(), 1e-4));
    assert!(near(half, Vec3::splat(0.5), 1e-4), "{half}");

    // Woken, it is drawn as awake.
    w.set_body_awake(sleeper, true).unwrap();
    let awake = Calls::of(&w, &only(true, false, false, false));
    assert_eq!(awake.boxes().len(), 1);
    assert_eq!(awake.boxes()[0].2, palette.awake);
}

/// A world with a shape of every kind (a hull and a box placed off their bodies' origins).
struct Zoo {
    world: World,
    sphere: BodyId,
    capsule: BodyId,
    cube: BodyId,
    hull: BodyId,
    hull_faces: usize,
}

fn zoo() -> Zoo {
    let mut w = world(false);
    common::ground_plane(&mut w);
    let sphere = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(-4.0, 1.0, 0.0),
        Some(ShapeDef::sphere(0.4)),
    );
    let capsule = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(-2.0, 1.0, 0.0),
        Some(ShapeDef::capsule(0.3, 0.2)),
    );
    let cube = body(&mut w, BodyType::Dynamic, Vec3::new(0.0, 1.0, 0.0), None);
    w.add_shape(
        cube,
        &ShapeDef::cuboid(Vec3::new(0.3, 0.2, 0.1)).with_offset(Vec3::new(0.5, 0.0, 0.0)),
    )
    .unwrap();
    let corners: Vec<Vec3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -0.3 } else { 0.3 };
            Vec3::new(s(1), s(2), s(4))
        })
        .collect();
    let convex = Arc::new(ConvexHull::new(&corners).unwrap());
    let hull_faces = convex.faces().len();
    let hull = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(2.0, 1.0, 0.0),
        Some(ShapeDef::hull(convex)),
    );
    // A 2 m square of two triangles at x = 10, and a 3 × 3 height field at x = -12.
    let mesh = TriMesh::new(
        vec![
            Vec3::new(9.0, 0.5, -1.0),
            Vec3::new(11.0, 0.5, -1.0),
            Vec3::new(11.0, 0.5, 1.0),
            Vec3::new(9.0, 0.5, 1.0),
        ],
        vec![[0, 2, 1], [0, 3, 2]],
    )
    .unwrap();
    body(
        &mut w,
        BodyType::Static,
        Vec3::ZERO,
        Some(ShapeDef::mesh(Arc::new(mesh))),
    );
    let heights = vec![0.2, 0.2, 0.2, 0.2, 0.6, 0.2, 0.2, 0.2, 0.2];
    let field = HeightField::new(3, 3, heights, Vec3::ONE).unwrap();
    body(
        &mut w,
        BodyType::Static,
        Vec3::new(-12.0, 0.0, -1.0),
        Some(ShapeDef::height_field(Arc::new(field))),
    );
    Zoo {
        world: w,
        sphere,
        capsule,
        cube,
        hull,
        hull_faces,
    }
}

/// Every shape kind goes through its method, at its pose; a host with lines only gets
/// each one's outline on its surface.
#[test]
fn every_shape_kind_draws() {
    let z = zoo();
    let w = &z.world;
    let options = DebugDrawOptions {
        shapes: true,
        aabbs: true,
        centers_of_mass: true,
        ..nothing()
    };
    let calls = Calls::of(w, &options);
    let palette = options.palette;
    let mut spheres = 0;
    let mut capsules = 0;
    let mut polygons = Vec::new();
    let mut triangles = 0;
    for c in &calls.0 {
        match c {
            Call::Sphere(xf, r, _) => {
                spheres += 1;
                assert!(near(xf.p, w.body_position(z.sphere).unwrap(), 1e-6));
                assert_eq!(*r, 0.4);
            }
            Call::Capsule(xf, h, r, _) => {
                capsules += 1;
                assert!(near(xf.p, w.body_position(z.capsule).unwrap(), 1e-6));
                assert_eq!((*h, *r), (0.3, 0.2));
            }
            Call::Polygon(v, _) => polygons.push(v.clone()),
            Call::Triangle(..) => triangles += 1,
            _ => {}
        }
    }
    assert_eq!((spheres, capsules), (1, 1));
    // The hull's faces (each a square of its cube) and the plane's square.
    assert_eq!(polygons.len(), z.hull_faces + 1);
    let hull_center = w.body_position(z.hull).unwrap();
    let faces: Vec<_> = polygons
        .iter()
        .filter(|f| near(f.iter().sum::<Vec3>() / f.len() as f32, hull_center, 0.5))
        .collect();
    assert_eq!(faces.len(), z.hull_faces);
    for face in faces {
        assert_eq!(face.len(), 4);
        for v in face {
            assert!(
                near((*v - hull_center).abs(), Vec3::splat(0.3), 1e-5),
                "a cube corner: {v}"
            );
        }
    }
    // The mesh's 2 triangles and the height field's 8.
    assert_eq!(triangles, 10);
    // The cube sits 0.5 m off its body's origin: its box, its bounds and its centre of
    // mass are there.
    let cube_at = w
        .body_transform(z.cube)
        .unwrap()
        .transform_point(Vec3::new(0.5, 0.0, 0.0));
    let boxes = calls.boxes();
    let shape_box = boxes
        .iter()
        .find(|b| b.2 == palette.awake && b.1 == Vec3::new(0.3, 0.2, 0.1))
        .expect("the cube");
    assert!(near(shape_box.0.p, cube_at, 1e-5));
    assert!(boxes.iter().any(|b| b.2 == palette.aabb
        && near(b.0.p, cube_at, 1e-5)
        && near(b.1, Vec3::new(0.3, 0.2, 0.1), 1e-5)));
    assert!(calls
        .points(palette.center_of_mass)
        .iter()
        .any(|&p| near(p, cube_at, 1e-5)));

    // A region over one corner cell of the height field draws that cell's triangles only.
    let region = Aabb {
        min: Vec3::new(-12.0, 0.0, -1.0),
        max: Vec3::new(-11.5, 1.0, -0.5),
    };
    let corner = Calls::of(
        w,
        &DebugDrawOptions {
            region: Some(region),
            static_bodies: true,
            ..options
        },
    );
    let count = corner
        .0
        .iter()
        .filter(|c| matches!(c, Call::Triangle(..)))
        .count();
    assert_eq!(count, 2);

    // Lines only: every endpoint of the sphere's circles is on the sphere, the capsule's
    // on the capsule (at `radius` from its core segment), the hull's at a cube corner.
    let lines = Lines::of(
        w,
        &DebugDrawOptions {
            shapes: true,
            static_bodies: false,
            ..nothing()
        },
    );
    let sphere_at = w.body_position(z.sphere).unwrap();
    let capsule_xf = w.body_transform(z.capsule).unwrap();
    let (mut on_sphere, mut on_capsule, mut on_hull) = (0, 0, 0);
    for &(a, b, _) in &lines.0 {
        for v in [a, b] {
            if near(v, sphere_at, 0.41) {
                assert!(((v - sphere_at).length() - 0.4).abs() < 1e-5);
                on_sphere += 1;
            } else if near(v, capsule_xf.p, 0.51) {
                let l = capsule_xf.inv_transform_point(v);
                let core = Vec3::new(0.0, l.y.clamp(-0.3, 0.3), 0.0);
                assert!(((l - core).length() - 0.2).abs() < 1e-5, "{l}");
                on_capsule += 1;
            } else if near(v, hull_center, 0.6) {
                assert!(near((v - hull_center).abs(), Vec3::splat(0.3), 1e-5));
                on_hull += 1;
            }
        }
    }
    assert_eq!(on_sphere, 2 * 3 * CIRCLE_SEGMENTS);
    // Two rims, four sides, four half circles.
    assert_eq!(
        on_capsule,
        2 * (2 * CIRCLE_SEGMENTS + 4 + 4 * CIRCLE_SEGMENTS / 2)
    );
    assert_eq!(on_hull, 2 * 4 * z.hull_faces);
}

/// Every option on, with and without a region, over every shape kind, every joint kind,
/// contacts and a sleeping island: no call allocates, the first included.
#[test]
fn drawing_allocates_nothing() {
    let mut z = zoo();
    let w = &mut z.world;
    let a = body(w, BodyType::Static, Vec3::new(0.0, 4.0, 5.0), None);
    let kinds = [
        JointKind::Ball,
        JointKind::Hinge {
            limits: Some(Limits {
                lower: -1.0,
                upper: 1.0,
            }),
            motor: Some(Motor {
                speed: 1.0,
                max_force: 10.0,
            }),
            spring: None,
        },
        JointKind::Slider {
            limits: Some(Limits {
                lower: -0.5,
                upper: f32::INFINITY,
            }),
            motor: None,
            spring: Some(Spring::frequency(2.0, 1.0, 0.0)),
        },
        JointKind::Fixed {
            linear: None,
            angular: None,
        },
        JointKind::Distance {
            min_length: 0.5,
            max_length: 1.5,
            spring: None,
        },
        JointKind::ConeTwist {
            cone_angle: 0.5,
            twist: Some(Limits {
                lower: -0.2,
                upper: 0.2,
            }),
        },
        JointKind::Motor {
            linear_offset: Vec3::new(0.0, -1.0, 0.0),
            angular_offset: Quat::IDENTITY,
            max_force: 100.0,
            max_torque: 10.0,
            correction: 0.3,
        },
    ];
    for (i, kind) in kinds.into_iter().enumerate() {
        let anchor = Vec3::new(2.0 * i as f32, 4.0, 5.0);
        let b = unit_box(w, anchor - Vec3::Y);
        let (xa, xb) = (w.body_transform(a).unwrap(), w.body_transform(b).unwrap());
        w.create_joint(&JointDef::at_world(kind, a, &xa, b, &xb, anchor, Vec3::Z))
            .unwrap();
    }
    let sensor = body(w, BodyType::Static, Vec3::new(0.0, 0.5, -5.0), None);
    w.add_shape(sensor, &ShapeDef::sphere(1.0).sensor())
        .unwrap();
    let kinematic = body(
        w,
        BodyType::Kinematic,
        Vec3::new(5.0, 3.0, -5.0),
        Some(ShapeDef::capsule(0.5, 0.25)),
    );
    w.set_body_linear_velocity(kinematic, Vec3::X).unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let w = &z.world;
    for region in [
        None,
        Some(Aabb {
            min: Vec3::new(-15.0, -1.0, -8.0),
            max: Vec3::new(15.0, 6.0, 8.0),
        }),
    ] {
        let options = DebugDrawOptions {
            region,
            ..DebugDrawOptions::everything()
        };
        let mut tally = Tally::default();
        for call in 0..3 {
            let n = allocations_during(|| w.debug_draw(&mut tally, &options).unwrap());
            assert_eq!(n, 0, "call {call} with region {region:?} allocated");
        }
        // Not a vacuous pass: everything was drawn.
        for (what, count) in [
            ("lines", tally.lines),
            ("points", tally.points),
            ("boxes", tally.boxes),
            ("spheres", tally.spheres),
            ("capsules", tally.capsules),
            ("polygons", tally.polygons),
            ("triangles", tally.triangles),
            ("frames", tally.frames),
            ("texts", tally.texts),
        ] {
            assert!(count > 0, "no {what} drawn with region {region:?}");
        }
    }
}

/// Out-of-range options are errors naming the field, and nothing is drawn.
#[test]
fn bad_options_are_errors_naming_the_field() {
    let mut w = world(false);
    common::ground_plane(&mut w);
    unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0));
    let region = |min: Vec3, max: Vec3| DebugDrawOptions {
        region: Some(Aabb { min, max }),
        ..Default::default()
    };
    let mut palette = DebugDrawOptions::default().palette;
    palette.contact_normal.g = f32::NAN;
    let cases = [
        (
            region(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE),
            "DebugDrawOptions::region",
        ),
        (
            region(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0)),
            "DebugDrawOptions::region",
        ),
        (
            region(Vec3::new(0.0, 2.0, 0.0), Vec3::ONE),
            "DebugDrawOptions::region",
        ),
        (
            DebugDrawOptions {
                point_size: -1.0,
                ..Default::default()
            },
            "DebugDrawOptions::point_size",
        ),
        (
            DebugDrawOptions {
                normal_length: f32::INFINITY,
                ..Default::default()
            },
            "DebugDrawOptions::normal_length",
        ),
        (
            DebugDrawOptions {
                force_scale: f32::NAN,
                ..Default::default()
            },
            "DebugDrawOptions::force_scale",
        ),
        (
            DebugDrawOptions {
                frame_size: -0.1,
                ..Default::default()
            },
            "DebugDrawOptions::frame_size",
        ),
        (
            DebugDrawOptions {
                plane_size: 1.0e7,
                ..Default::default()
            },
            "DebugDrawOptions::plane_size",
        ),
        (
            DebugDrawOptions {
                palette,
                ..Default::default()
            },
            "DebugDrawOptions::palette",
        ),
    ];
    for (options, field) in cases {
        let mut calls = Calls::default();
        let e = w.debug_draw(&mut calls, &options).unwrap_err();
        assert_eq!(field_of(e), field);
        assert_eq!(calls.0, vec![], "nothing drawn for a bad {field}");
    }
    // A flat region (min = max on an axis) is fine.
    let flat = region(Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 1.0));
    assert!(!Calls::of(&w, &flat).0.is_empty());
}
