//! Debug drawing with Bevy's gizmos (the `debug-render` feature): the engine's
//! [`World::debug_draw`](impetus::World::debug_draw) walks the world and hands its shapes,
//! contacts, joints and islands to an [`impetus::DebugDraw`] that draws them as gizmos.
//!
//! Add [`ImpetusDebugRenderPlugin`] after Bevy's gizmo plugin (`DefaultPlugins` has it);
//! what is drawn is the [`ImpetusDebugRender`] resource's
//! [`DebugDrawOptions`](impetus::DebugDrawOptions). The drawing is of the bodies' poses
//! after the last step (not interpolated), in the [`PhysicsGizmos`] gizmo group (turn it
//! off or change its line width through Bevy's `GizmoConfigStore`).

use crate::convert::{quat_out, vec_out};
use crate::world::ImpetusWorld;
use bevy::app::{App, Plugin, PostUpdate};
use bevy::color::Color;
use bevy::ecs::resource::Resource;
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::ecs::system::{Local, Res, ResMut};
use bevy::gizmos::config::{GizmoConfigGroup, GizmoConfigStore};
use bevy::gizmos::gizmos::Gizmos;
use bevy::gizmos::AppGizmoBuilder;
use bevy::math::Isometry3d;
use bevy::reflect::Reflect;
use bevy::transform::components::Transform;
use impetus::{DebugDraw, DebugDrawOptions, Rgba};

/// The gizmo group the physics world is drawn in.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct PhysicsGizmos;

/// What the debug drawing shows: on or off, and the engine's options (which bodies,
/// contacts, joints, a region of interest, the colours).
#[derive(Resource, Clone, Debug)]
pub struct ImpetusDebugRender {
    /// Draw at all.
    pub enabled: bool,
    /// What to draw.
    pub options: DebugDrawOptions,
    drawn: usize,
}

impl ImpetusDebugRender {
    /// Settings that draw what `options` says.
    pub fn new(options: DebugDrawOptions) -> Self {
        Self {
            enabled: true,
            options,
            drawn: 0,
        }
    }

    /// How many primitives (lines, boxes, spheres, polygons) the last frame drew.
    pub fn drawn(&self) -> usize {
        self.drawn
    }
}

impl Default for ImpetusDebugRender {
    fn default() -> Self {
        Self::new(DebugDrawOptions::default())
    }
}

/// Draws the physics world with Bevy's gizmos every frame (see the [module docs](self)).
#[derive(Clone, Debug, Default)]
pub struct ImpetusDebugRenderPlugin {
    /// The initial options (the [`ImpetusDebugRender`] resource holds them afterwards).
    pub options: DebugDrawOptions,
}

impl Plugin for ImpetusDebugRenderPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ImpetusDebugRender::new(self.options));
    }

    fn finish(&self, app: &mut App) {
        // Gizmos need Bevy's gizmo plugin; without it, say so instead of failing a system.
        if !app.world().contains_resource::<GizmoConfigStore>() {
            log::warn!(
                "impetus: ImpetusDebugRenderPlugin needs Bevy's GizmoPlugin (in DefaultPlugins): nothing will be drawn"
            );
            return;
        }
        app.init_gizmo_group::<PhysicsGizmos>().add_systems(
            PostUpdate,
            draw.after(bevy::transform::TransformSystems::Propagate),
        );
    }
}

/// Draws the world into the gizmos (a bad option is reported as a warning, once until it
/// is fixed).
fn draw(
    physics: Res<ImpetusWorld>,
    mut settings: ResMut<ImpetusDebugRender>,
    mut gizmos: Gizmos<PhysicsGizmos>,
    mut failed: Local<bool>,
) {
    settings.drawn = 0;
    if !settings.enabled {
        return;
    }
    let mut drawer = GizmoDraw {
        gizmos: &mut gizmos,
        drawn: 0,
    };
    let result = physics.engine().debug_draw(&mut drawer, &settings.options);
    settings.drawn = drawer.drawn;
    match result {
        Ok(()) => *failed = false,
        Err(error) if !*failed => {
            *failed = true;
            log::warn!("impetus: ImpetusDebugRender::options: {error}");
        }
        Err(_) => {}
    }
}

/// The engine's drawing calls as gizmos.
pub struct GizmoDraw<'a, 'w, 's> {
    /// The gizmos drawn into.
    pub gizmos: &'a mut Gizmos<'w, 's, PhysicsGizmos>,
    /// Primitives drawn so far.
    pub drawn: usize,
}

fn color(c: Rgba) -> Color {
    Color::srgba(c.r, c.g, c.b, c.a)
}

impl DebugDraw for GizmoDraw<'_, '_, '_> {
    fn line(&mut self, a: impetus::Vec3, b: impetus::Vec3, c: Rgba) {
        self.drawn += 1;
        self.gizmos.line(vec_out(a), vec_out(b), color(c));
    }

    fn oriented_box(
        &mut self,
        transform: &impetus::Transform,
        half_extents: impetus::Vec3,
        c: Rgba,
    ) {
        let cube = Transform {
            translation: vec_out(transform.p),
            rotation: quat_out(transform.q),
            scale: 2.0 * vec_out(half_extents),
        };
        self.drawn += 1;
        self.gizmos.cube(cube, color(c));
    }

    fn sphere(&mut self, transform: &impetus::Transform, radius: f32, c: Rgba) {
        let at = Isometry3d::new(vec_out(transform.p), quat_out(transform.q));
        self.drawn += 1;
        self.gizmos.sphere(at, radius, color(c));
    }

    fn polygon(&mut self, vertices: &[impetus::Vec3], c: Rgba) {
        if let Some(&first) = vertices.first() {
            self.drawn += 1;
            let outline = vertices
                .iter()
                .chain(std::iter::once(&first))
                .map(|&v| vec_out(v));
            self.gizmos.linestrip(outline, color(c));
        }
    }
}
