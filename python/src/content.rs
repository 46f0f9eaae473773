//! Bodies, shapes and joints from Python arguments: the engine's definitions
//! (`BodyDef`, `ShapeDef`, `JointDef`) filled from keyword arguments, `Material` and
//! `Filter`. The engine validates every definition and names the bad field.

use crate::arrays::{number, vector};
use impetus::{BodyType, Filter, JointKind, Limits, Motor, Quat, ShapeDef, Spring, Vec3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A body type from its Python name.
pub(crate) fn body_type(name: &str) -> PyResult<BodyType> {
    match name {
        "dynamic" => Ok(BodyType::Dynamic),
        "static" => Ok(BodyType::Static),
        "kinematic" => Ok(BodyType::Kinematic),
        _ => Err(PyValueError::new_err(format!(
            "body_type must be 'dynamic', 'static' or 'kinematic', got {name:?}"
        ))),
    }
}

/// A quaternion (x, y, z, w), or the identity when absent.
pub(crate) fn rotation(obj: Option<&Bound<'_, PyAny>>, field: &str) -> PyResult<Quat> {
    match obj {
        None => Ok(Quat::IDENTITY),
        Some(o) if o.is_none() => Ok(Quat::IDENTITY),
        Some(o) => Ok(Quat::from_array(vector::<4>(o, field)?)),
    }
}

/// A 3-vector, or `default` when absent.
pub(crate) fn vec3_or(
    obj: Option<&Bound<'_, PyAny>>,
    field: &str,
    default: Vec3,
) -> PyResult<Vec3> {
    match obj {
        None => Ok(default),
        Some(o) if o.is_none() => Ok(default),
        Some(o) => Ok(Vec3::from_array(vector::<3>(o, field)?)),
    }
}

/// Surface material of a shape: density, friction, restitution, rolling resistance.
///
/// Material(density=1000.0, friction=0.6, restitution=0.0, rolling_resistance=0.0,
///          static_friction=None)
///
/// Density in kg/m³ gives dynamic bodies their mass; friction coefficients mix as
/// sqrt(μa μb), restitution as max(ea, eb). The world checks the values when a shape
/// uses the material.
#[pyclass(name = "Material", module = "impetus", from_py_object)]
#[derive(Clone)]
pub(crate) struct PyMaterial {
    /// Density, in kg/m³.
    #[pyo3(get, set)]
    pub density: f32,
    /// Kinetic friction coefficient.
    #[pyo3(get, set)]
    pub friction: f32,
    /// Coefficient of restitution in [0, 1].
    #[pyo3(get, set)]
    pub restitution: f32,
    /// Rolling resistance of spheres and capsules.
    #[pyo3(get, set)]
    pub rolling_resistance: f32,
    /// Static friction coefficient; None uses `friction`.
    #[pyo3(get, set)]
    pub static_friction: Option<f32>,
}

#[pymethods]
impl PyMaterial {
    #[new]
    #[pyo3(signature = (density=1000.0, friction=0.6, restitution=0.0, rolling_resistance=0.0, static_friction=None))]
    fn new(
        density: f32,
        friction: f32,
        restitution: f32,
        rolling_resistance: f32,
        static_friction: Option<f32>,
    ) -> Self {
        PyMaterial {
            density,
            friction,
            restitution,
            rolling_resistance,
            static_friction,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Material(density={}, friction={}, restitution={}, rolling_resistance={}, static_friction={:?})",
            self.density, self.friction, self.restitution, self.rolling_resistance, self.static_friction
        )
    }
}

impl Default for PyMaterial {
    fn default() -> Self {
        PyMaterial::new(1000.0, 0.6, 0.0, 0.0, None)
    }
}

/// Which shapes collide (as in Box2D): two shapes collide when they share a positive
/// `group`, never when they share a negative one, and otherwise when each one's `category`
/// bits meet the other's `mask`.
///
/// Filter(category=1, mask=0xFFFF_FFFF_FFFF_FFFF, group=0)
#[pyclass(name = "Filter", module = "impetus", from_py_object)]
#[derive(Clone)]
pub(crate) struct PyFilter {
    /// The categories the shape belongs to (bits).
    #[pyo3(get, set)]
    pub category: u64,
    /// The categories it collides with (bits).
    #[pyo3(get, set)]
    pub mask: u64,
    /// Same positive group: always collide; same negative group: never; 0: none.
    #[pyo3(get, set)]
    pub group: i32,
}

#[pymethods]
impl PyFilter {
    #[new]
    #[pyo3(signature = (category=1, mask=u64::MAX, group=0))]
    fn new(category: u64, mask: u64, group: i32) -> Self {
        PyFilter {
            category,
            mask,
            group,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Filter(category={:#x}, mask={:#x}, group={})",
            self.category, self.mask, self.group
        )
    }
}

impl PyFilter {
    pub fn engine(&self) -> Filter {
        Filter {
            category: self.category,
            mask: self.mask,
            group: self.group,
        }
    }

    pub fn of(f: Filter) -> Self {
        PyFilter {
            category: f.category,
            mask: f.mask,
            group: f.group,
        }
    }
}

/// What every `add_*` shape call takes besides the geometry.
pub(crate) struct ShapeOptions<'a, 'py> {
    pub material: Option<PyMaterial>,
    pub filter: Option<PyFilter>,
    pub local_position: Option<&'a Bound<'py, PyAny>>,
    pub local_rotation: Option<&'a Bound<'py, PyAny>>,
    pub sensor: bool,
    pub hit_events: bool,
}

impl<'a, 'py> ShapeOptions<'a, 'py> {
    pub fn new(
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&'a Bound<'py, PyAny>>,
        local_rotation: Option<&'a Bound<'py, PyAny>>,
        sensor: bool,
        hit_events: bool,
    ) -> Self {
        ShapeOptions {
            material: material.map(|m| m.clone()),
            filter: filter.map(|f| f.clone()),
            local_position,
            local_rotation,
            sensor,
            hit_events,
        }
    }

    /// `shape` with the material, filter, local pose and flags applied.
    pub fn apply(&self, shape: impetus::Shape) -> PyResult<ShapeDef> {
        let m = self.material.clone().unwrap_or_default();
        let mut def = ShapeDef::new(shape)
            .with_density(m.density)
            .with_friction(m.friction)
            .with_restitution(m.restitution)
            .with_rolling_resistance(m.rolling_resistance);
        if let Some(s) = m.static_friction {
            def = def.with_static_friction(s);
        }
        if let Some(f) = &self.filter {
            def = def.with_filter(f.engine());
        }
        let offset = vec3_or(self.local_position, "local_position", Vec3::ZERO)?;
        let rotation = rotation(self.local_rotation, "local_rotation")?;
        def = def.with_local_pose(impetus::Transform::new(offset, rotation));
        def.is_sensor = self.sensor;
        def.enable_hit_events = self.hit_events;
        Ok(def)
    }
}

/// Joint parameters as Python passes them (see `World.create_joint`).
pub(crate) struct JointArgs {
    pub kind: String,
    pub limits: Option<(f32, f32)>,
    pub motor: Option<(f32, f32)>,
    pub spring: Option<(f32, f32, f32)>,
    pub min_length: Option<f32>,
    pub max_length: Option<f32>,
    pub cone_angle: f32,
    pub twist: Option<(f32, f32)>,
    /// The distance between the anchors, the default length of a distance joint.
    pub anchor_distance: f32,
    /// A motor joint's largest force (N) and torque (N·m), and the share of the pose
    /// error it removes per second per unit of step rate.
    pub max_force: f32,
    pub max_torque: f32,
    pub correction: f32,
}

impl JointArgs {
    pub fn kind(&self) -> PyResult<JointKind> {
        let limits = |l: Option<(f32, f32)>, field: &str| -> PyResult<Option<Limits>> {
            l.map(|(lower, upper)| {
                Ok(Limits {
                    lower: number(lower, field)?,
                    upper: number(upper, field)?,
                })
            })
            .transpose()
        };
        let motor = self
            .motor
            .map(|(speed, max_force)| Motor { speed, max_force });
        let spring = self
            .spring
            .map(|(hertz, damping_ratio, target)| Spring::frequency(hertz, damping_ratio, target));
        Ok(match self.kind.as_str() {
            "ball" => JointKind::Ball,
            "hinge" => JointKind::Hinge {
                limits: limits(self.limits, "limits")?,
                motor,
                spring,
            },
            "slider" => JointKind::Slider {
                limits: limits(self.limits, "limits")?,
                motor,
                spring,
            },
            "fixed" => JointKind::Fixed {
                linear: spring,
                angular: None,
            },
            "distance" => {
                let min_length = self.min_length.unwrap_or(self.anchor_distance);
                JointKind::Distance {
                    min_length,
                    max_length: self
                        .max_length
                        .unwrap_or(self.anchor_distance.max(min_length)),
                    spring,
                }
            }
            "cone_twist" => JointKind::ConeTwist {
                cone_angle: self.cone_angle,
                twist: limits(self.twist, "twist")?,
            },
            // Holds B at the pose it has now relative to A (the frames meet at the anchor);
            // `World.set_motor_target` moves the target.
            "motor" => JointKind::Motor {
                linear_offset: Vec3::ZERO,
                angular_offset: Quat::IDENTITY,
                max_force: self.max_force,
                max_torque: self.max_torque,
                correction: self.correction,
            },
            other => {
                return Err(PyValueError::new_err(format!(
                    "kind must be one of 'ball', 'hinge', 'slider', 'fixed', 'distance', \
                     'cone_twist', 'motor', got {other:?}"
                )))
            }
        })
    }
}
