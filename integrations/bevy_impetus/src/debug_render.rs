//! Debug drawing with Bevy's gizmos (the `debug-render` feature).

use bevy::app::{App, Plugin};

/// Draws the physics world with Bevy's gizmos.
#[derive(Clone, Debug, Default)]
pub struct ImpetusDebugRenderPlugin;

impl Plugin for ImpetusDebugRenderPlugin {
    fn build(&self, _app: &mut App) {}
}
