//! The `World` class: the engine's `World` behind Python names and numpy arrays.

use crate::arrays::{self, floats, id_array, ids, number, output, vector, Dim, Shape};
use crate::bulk::{self, Column, Write};
use crate::content::{self, JointArgs, PyFilter, PyMaterial, ShapeOptions};
use crate::{body_from_py, body_to_py, joint_from_py, joint_to_py, pack, py_err, py_err_at};
use crate::{shape_from_py, shape_to_py};
use impetus::{
    BodyDef, BodyType, ConvexHull, HeightField, JointDef, JointKind, QueryFilter,
    Shape as Geometry, Transform, TriMesh, Vec3, World, WorldDef,
};
use numpy::prelude::*;
use numpy::{PyArray1, PyArrayDyn};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Arc;

/// A physics world: bodies, shapes and joints, stepped by `step(dt)`.
///
/// World(gravity=(0.0, -9.81, 0.0), substeps=4, workers=1, enable_sleep=True,
///       contact_hertz=30.0, contact_damping_ratio=10.0, joint_hertz=60.0,
///       linear_slop=0.005, sweep_fast_bodies=True)
///
/// Units are SI (m, kg, s). Rotations are quaternions (x, y, z, w). Ids are ints; arrays
/// of ids are uint64. `workers` threads step the world (0: one per core); results are
/// bit-identical for every count. Bulk reads (`positions`, `rotations`, ...) fill float32
/// arrays for all bodies (in `body_ids()` order) or for an array of ids.
#[pyclass(name = "World", module = "impetus")]
pub(crate) struct PyWorld {
    pub world: World,
}

/// The (N, 3) float inputs of bulk calls.
fn shape_n(width: usize) -> (Vec<Dim>, String) {
    (vec![Dim::Any, Dim::Is(width)], format!("(N, {width})"))
}

fn float_rows(obj: &Bound<'_, PyAny>, field: &str, width: usize) -> PyResult<arrays::Floats> {
    let (dims, text) = shape_n(width);
    floats(
        obj,
        field,
        &[Shape {
            dims: &dims,
            text: &text,
        }],
    )
}

/// A dict of arrays, for hits and events.
fn dict<'py>(
    py: Python<'py>,
    items: Vec<(&str, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v)?;
    }
    Ok(d)
}

fn vec3s<'py>(py: Python<'py>, rows: &[Vec3]) -> Bound<'py, PyAny> {
    let flat: Vec<f32> = rows.iter().flat_map(|v| v.to_array()).collect();
    PyArray1::from_vec(py, flat)
        .reshape([rows.len(), 3])
        .expect("a (K, 3) reshape of 3K floats")
        .into_any()
}

/// The four id columns of contact records.
fn touches<'py>(py: Python<'py>, list: &[impetus::ContactTouch]) -> PyResult<Bound<'py, PyDict>> {
    let col = |f: &dyn Fn(&impetus::ContactTouch) -> u64| {
        id_array(py, list.iter().map(f).collect()).into_any()
    };
    dict(
        py,
        vec![
            ("shape_a", col(&|t| shape_to_py(t.shape_a))),
            ("shape_b", col(&|t| shape_to_py(t.shape_b))),
            ("body_a", col(&|t| body_to_py(t.body_a))),
            ("body_b", col(&|t| body_to_py(t.body_b))),
        ],
    )
}

fn sensors<'py>(py: Python<'py>, list: &[impetus::SensorEvent]) -> PyResult<Bound<'py, PyDict>> {
    let col = |f: &dyn Fn(&impetus::SensorEvent) -> u64| {
        id_array(py, list.iter().map(f).collect()).into_any()
    };
    dict(
        py,
        vec![
            ("sensor", col(&|t| shape_to_py(t.sensor))),
            ("visitor", col(&|t| shape_to_py(t.visitor))),
            ("sensor_body", col(&|t| body_to_py(t.sensor_body))),
            ("visitor_body", col(&|t| body_to_py(t.visitor_body))),
        ],
    )
}

impl PyWorld {
    fn read<'py>(
        &self,
        py: Python<'py>,
        ids_obj: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
        column: Column,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let given = ids_obj
            .filter(|o| !o.is_none())
            .map(|o| ids(o, "ids"))
            .transpose()?;
        if given.is_none() && column.has_bulk() {
            // Every body: the engine's column getter.
            let array = output(py, out, &[self.world.body_count(), column.width()])?;
            let mut result = Ok(());
            arrays::fill(&array, |s| result = bulk::read_all(&self.world, column, s))?;
            return result.map(|_| array);
        }
        let targets = bulk::targets(&self.world, given.as_deref());
        let array = output(py, out, &[targets.len(), column.width()])?;
        let mut result = Ok(());
        arrays::fill(&array, |s| {
            result = bulk::read(&self.world, &targets, column, s)
        })?;
        result.map(|_| array)
    }

    fn write(
        &mut self,
        ids_obj: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        field: &str,
        what: Write,
    ) -> PyResult<()> {
        let raw = ids(ids_obj, "ids")?;
        let v = bulk::rows(values, field, raw.len(), 3, None)?;
        let targets = bulk::check_bodies(&self.world, &raw, what.needs())?;
        for (k, &id) in targets.iter().enumerate() {
            what.apply(&mut self.world, id, Vec3::from_array(v.row::<3>(k)))
                .map_err(|e| py_err_at(e, field, k))?;
        }
        Ok(())
    }

    fn add(&mut self, body: u64, geometry: Geometry, opts: ShapeOptions<'_, '_>) -> PyResult<u64> {
        let def = opts.apply(geometry)?;
        self.world
            .add_shape(body_from_py(body), &def)
            .map(shape_to_py)
            .map_err(py_err)
    }

    /// Bodies with one shape each from rows of positions (and rotations), for `add_boxes`
    /// and `add_spheres`. Checked whole before any body is made: on an error the world is
    /// unchanged.
    fn add_many(
        &mut self,
        positions: &Bound<'_, PyAny>,
        rotations: Option<&Bound<'_, PyAny>>,
        body_type: &str,
        geometry: impl Fn(usize) -> Geometry,
        opts: ShapeOptions<'_, '_>,
    ) -> PyResult<Vec<u64>> {
        let p = float_rows(positions, "positions", 3)?;
        let n = p.rows();
        let r = rotations
            .filter(|o| !o.is_none())
            .map(|o| bulk::rows(o, "rotations", n, 4, None))
            .transpose()?;
        let ty = content::body_type(body_type)?;
        let mut made = Vec::with_capacity(n);
        let defs: Vec<(BodyDef, impetus::ShapeDef)> = (0..n)
            .map(|k| {
                let body = BodyDef {
                    body_type: ty,
                    position: Vec3::from_array(p.row::<3>(k)),
                    rotation: r.as_ref().map_or(impetus::Quat::IDENTITY, |r| {
                        impetus::Quat::from_array(r.row::<4>(k))
                    }),
                    ..Default::default()
                };
                body.validate().map_err(|e| py_err_at(e, "positions", k))?;
                let shape = opts.apply(geometry(k))?;
                shape.validate().map_err(|e| py_err_at(e, "shape", k))?;
                Ok((body, shape))
            })
            .collect::<PyResult<_>>()?;
        for (k, (body, shape)) in defs.iter().enumerate() {
            let id = self
                .world
                .create_body(body)
                .map_err(|e| py_err_at(e, "positions", k))?;
            self.world
                .add_shape(id, shape)
                .map_err(|e| py_err_at(e, "shape", k))?;
            made.push(body_to_py(id));
        }
        Ok(made)
    }
}

#[pymethods]
impl PyWorld {
    #[new]
    #[pyo3(signature = (gravity=None, substeps=4, workers=1, enable_sleep=true, contact_hertz=30.0,
        contact_damping_ratio=10.0, joint_hertz=60.0, linear_slop=0.005, sweep_fast_bodies=true))]
    fn new(
        gravity: Option<&Bound<'_, PyAny>>,
        substeps: u32,
        workers: usize,
        enable_sleep: bool,
        contact_hertz: f32,
        contact_damping_ratio: f32,
        joint_hertz: f32,
        linear_slop: f32,
        sweep_fast_bodies: bool,
    ) -> PyResult<Self> {
        let def = WorldDef {
            gravity: content::vec3_or(gravity, "gravity", Vec3::new(0.0, -9.81, 0.0))?,
            substeps,
            worker_count: workers,
            enable_sleep,
            contact_hertz,
            contact_damping_ratio,
            joint_hertz,
            linear_slop,
            speculative_distance: 4.0 * linear_slop,
            sweep_fast_bodies,
            ..Default::default()
        };
        World::new(def)
            .map(|world| PyWorld { world })
            .map_err(py_err)
    }

    /// World.from_image(data, workers=None) -> World
    ///
    /// The world an image holds (`save_image`, compressed or not), stepping with `workers`
    /// threads (None: as saved). Raises ValueError on a corrupt or foreign image.
    #[staticmethod]
    #[pyo3(signature = (data, workers=None))]
    fn from_image(py: Python<'_>, data: &[u8], workers: Option<usize>) -> PyResult<Self> {
        let world = py.detach(|| match workers {
            Some(n) => World::from_image_with_workers(data, n),
            None => World::from_image(data),
        });
        world.map(|world| PyWorld { world }).map_err(py_err)
    }

    /// Pickles through the image: the copy steps on exactly as this world would.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let mut image = Vec::new();
        slf.borrow().world.save_image(&mut image);
        let from_image = py.get_type::<PyWorld>().getattr("from_image")?;
        Ok((from_image, (PyBytes::new(py, &image),)))
    }

    fn __repr__(&self) -> String {
        format!(
            "World(bodies={}, joints={}, workers={})",
            self.world.body_count(),
            self.world.joint_count(),
            self.world.worker_count()
        )
    }

    /// Gravity, in m/s², as a float32 array (3,).
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, &self.world.gravity().to_array())
    }

    #[setter]
    fn set_gravity(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let g = vector::<3>(value, "gravity")?;
        self.world.set_gravity(Vec3::from_array(g)).map_err(py_err)
    }

    /// Worker threads this world steps with.
    #[getter]
    fn workers(&self) -> usize {
        self.world.worker_count()
    }

    /// Live bodies.
    #[getter]
    fn body_count(&self) -> usize {
        self.world.body_count()
    }

    /// Live joints.
    #[getter]
    fn joint_count(&self) -> usize {
        self.world.joint_count()
    }

    // ---- bodies ----

    /// create_body(body_type='dynamic', position=(0,0,0), rotation=(0,0,0,1), ...) -> int
    ///
    /// A body without shapes (add them with `add_box`, `add_sphere`, ...). `body_type` is
    /// 'dynamic', 'static' or 'kinematic'.
    #[pyo3(signature = (body_type="dynamic", position=None, rotation=None, linear_velocity=None,
        angular_velocity=None, linear_damping=0.0, angular_damping=0.0, gravity_scale=1.0,
        can_sleep=true, bullet=false, user_data=0))]
    fn create_body(
        &mut self,
        body_type: &str,
        position: Option<&Bound<'_, PyAny>>,
        rotation: Option<&Bound<'_, PyAny>>,
        linear_velocity: Option<&Bound<'_, PyAny>>,
        angular_velocity: Option<&Bound<'_, PyAny>>,
        linear_damping: f32,
        angular_damping: f32,
        gravity_scale: f32,
        can_sleep: bool,
        bullet: bool,
        user_data: u64,
    ) -> PyResult<u64> {
        let def = BodyDef {
            body_type: content::body_type(body_type)?,
            position: content::vec3_or(position, "position", Vec3::ZERO)?,
            rotation: content::rotation(rotation, "rotation")?,
            linear_velocity: content::vec3_or(linear_velocity, "linear_velocity", Vec3::ZERO)?,
            angular_velocity: content::vec3_or(angular_velocity, "angular_velocity", Vec3::ZERO)?,
            linear_damping,
            angular_damping,
            gravity_scale,
            can_sleep,
            bullet,
            user_data,
            ..Default::default()
        };
        self.world.create_body(&def).map(body_to_py).map_err(py_err)
    }

    /// Removes a body with its shapes and joints. KeyError for an unknown id.
    fn remove_body(&mut self, body: u64) -> PyResult<()> {
        self.world.remove_body(body_from_py(body)).map_err(py_err)
    }

    /// Whether `body` names a live body of this world.
    fn contains_body(&self, body: u64) -> bool {
        self.world.contains_body(body_from_py(body))
    }

    /// The ids of every live body, in slot order (the order of the bulk reads).
    fn body_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        id_array(py, self.world.bodies().map(body_to_py).collect())
    }

    /// 'dynamic', 'static' or 'kinematic'.
    fn body_type(&self, body: u64) -> PyResult<&'static str> {
        Ok(
            match self.world.body_type(body_from_py(body)).map_err(py_err)? {
                BodyType::Dynamic => "dynamic",
                BodyType::Static => "static",
                BodyType::Kinematic => "kinematic",
            },
        )
    }

    /// Whether the body is awake (static bodies never are).
    fn body_is_awake(&self, body: u64) -> PyResult<bool> {
        self.world.body_is_awake(body_from_py(body)).map_err(py_err)
    }

    /// The body's mass, in kg (0 for static and kinematic bodies).
    fn body_mass(&self, body: u64) -> PyResult<f32> {
        let m = self
            .world
            .body_mass_properties(body_from_py(body))
            .map_err(py_err)?;
        Ok(m.mass)
    }

    /// The body's shapes, as uint64 ids.
    fn body_shapes<'py>(&self, py: Python<'py>, body: u64) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let shapes = self.world.body_shapes(body_from_py(body)).map_err(py_err)?;
        Ok(id_array(
            py,
            shapes.iter().map(|&s| shape_to_py(s)).collect(),
        ))
    }

    /// The value stored with the body at creation.
    fn body_user_data(&self, body: u64) -> PyResult<u64> {
        self.world
            .body_user_data(body_from_py(body))
            .map_err(py_err)
    }

    // ---- shapes ----

    /// add_box(body, half_extents, *, material=None, filter=None, local_position=None,
    ///         local_rotation=None, sensor=False, hit_events=False) -> int
    #[pyo3(signature = (body, half_extents, *, material=None, filter=None, local_position=None,
        local_rotation=None, sensor=false, hit_events=false))]
    fn add_box(
        &mut self,
        body: u64,
        half_extents: &Bound<'_, PyAny>,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
        sensor: bool,
        hit_events: bool,
    ) -> PyResult<u64> {
        let half_extents = Vec3::from_array(vector::<3>(half_extents, "half_extents")?);
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            sensor,
            hit_events,
        );
        self.add(body, Geometry::Box { half_extents }, opts)
    }

    /// add_sphere(body, radius, **shape options) -> int
    #[pyo3(signature = (body, radius, *, material=None, filter=None, local_position=None,
        local_rotation=None, sensor=false, hit_events=false))]
    fn add_sphere(
        &mut self,
        body: u64,
        radius: f32,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
        sensor: bool,
        hit_events: bool,
    ) -> PyResult<u64> {
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            sensor,
            hit_events,
        );
        self.add(body, Geometry::Sphere { radius }, opts)
    }

    /// add_capsule(body, half_height, radius, **shape options) -> int
    ///
    /// The segment from (0, -half_height, 0) to (0, half_height, 0) swept by `radius`.
    #[pyo3(signature = (body, half_height, radius, *, material=None, filter=None,
        local_position=None, local_rotation=None, sensor=false, hit_events=false))]
    fn add_capsule(
        &mut self,
        body: u64,
        half_height: f32,
        radius: f32,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
        sensor: bool,
        hit_events: bool,
    ) -> PyResult<u64> {
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            sensor,
            hit_events,
        );
        self.add(
            body,
            Geometry::Capsule {
                half_height,
                radius,
            },
            opts,
        )
    }

    /// add_hull(body, points, **shape options) -> int
    ///
    /// The convex hull of `points` (N, 3), recentred on its centroid.
    #[pyo3(signature = (body, points, *, material=None, filter=None, local_position=None,
        local_rotation=None, sensor=false, hit_events=false))]
    fn add_hull(
        &mut self,
        body: u64,
        points: &Bound<'_, PyAny>,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
        sensor: bool,
        hit_events: bool,
    ) -> PyResult<u64> {
        let p = float_rows(points, "points", 3)?;
        let points: Vec<Vec3> = (0..p.rows())
            .map(|k| Vec3::from_array(p.row::<3>(k)))
            .collect();
        let hull = ConvexHull::new(&points).map_err(py_err)?;
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            sensor,
            hit_events,
        );
        self.add(
            body,
            Geometry::Hull {
                hull: Arc::new(hull),
            },
            opts,
        )
    }

    /// add_plane(body, normal=(0, 1, 0), offset=0.0, **shape options) -> int
    ///
    /// The static half-space below the plane normal · x = offset (static bodies only).
    #[pyo3(signature = (body, normal=None, offset=0.0, *, material=None, filter=None,
        local_position=None, local_rotation=None))]
    fn add_plane(
        &mut self,
        body: u64,
        normal: Option<&Bound<'_, PyAny>>,
        offset: f32,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let normal = content::vec3_or(normal, "normal", Vec3::Y)?;
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            false,
            false,
        );
        self.add(
            body,
            Geometry::Plane {
                normal,
                offset: number(offset, "offset")?,
            },
            opts,
        )
    }

    /// add_mesh(body, vertices, triangles, **shape options) -> int
    ///
    /// A static triangle mesh: `vertices` (V, 3) floats, `triangles` (T, 3) vertex indices.
    #[pyo3(signature = (body, vertices, triangles, *, material=None, filter=None,
        local_position=None, local_rotation=None))]
    fn add_mesh(
        &mut self,
        body: u64,
        vertices: &Bound<'_, PyAny>,
        triangles: &Bound<'_, PyAny>,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let v = float_rows(vertices, "vertices", 3)?;
        let vertices: Vec<Vec3> = (0..v.rows())
            .map(|k| Vec3::from_array(v.row::<3>(k)))
            .collect();
        let t = triangles
            .py()
            .import("numpy")?
            .call_method1("asarray", (triangles,))
            .map_err(|_| {
                PyTypeError::new_err("triangles must be an integer array of shape (T, 3)")
            })?;
        let shape: Vec<usize> = t.getattr("shape")?.extract()?;
        if shape.len() != 2 || shape[1] != 3 {
            return Err(PyValueError::new_err(format!(
                "triangles must have shape (T, 3), got {shape:?}"
            )));
        }
        let t = ids(&t.call_method1("reshape", (-1,))?, "triangles")?;
        let tris = t
            .chunks_exact(3)
            .map(|c| {
                let idx = |x: u64| {
                    u32::try_from(x)
                        .map_err(|_| PyValueError::new_err("triangles: a vertex index past 2^32"))
                };
                Ok([idx(c[0])?, idx(c[1])?, idx(c[2])?])
            })
            .collect::<PyResult<Vec<_>>>()?;
        let mesh = TriMesh::new(vertices, tris).map_err(py_err)?;
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            false,
            false,
        );
        self.add(
            body,
            Geometry::Mesh {
                mesh: Arc::new(mesh),
            },
            opts,
        )
    }

    /// add_height_field(body, heights, scale=(1, 1, 1), **shape options) -> int
    ///
    /// A static height field: `heights` (rows, cols) floats on a grid spaced `scale.x`
    /// along x and `scale.z` along z, heights times `scale.y`.
    #[pyo3(signature = (body, heights, scale=None, *, material=None, filter=None,
        local_position=None, local_rotation=None))]
    fn add_height_field(
        &mut self,
        body: u64,
        heights: &Bound<'_, PyAny>,
        scale: Option<&Bound<'_, PyAny>>,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
        local_position: Option<&Bound<'_, PyAny>>,
        local_rotation: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let h = floats(
            heights,
            "heights",
            &[Shape {
                dims: &[Dim::Any, Dim::Any],
                text: "(rows, cols)",
            }],
        )?;
        let scale = content::vec3_or(scale, "scale", Vec3::ONE)?;
        let field = HeightField::new(h.shape[0], h.shape[1], h.data, scale).map_err(py_err)?;
        let opts = ShapeOptions::new(
            material,
            filter,
            local_position,
            local_rotation,
            false,
            false,
        );
        self.add(
            body,
            Geometry::HeightField {
                field: Arc::new(field),
            },
            opts,
        )
    }

    /// Removes a shape. KeyError for an unknown id.
    fn remove_shape(&mut self, shape: u64) -> PyResult<()> {
        self.world
            .remove_shape(shape_from_py(shape))
            .map_err(py_err)
    }

    /// The body a shape is attached to.
    fn shape_body(&self, shape: u64) -> PyResult<u64> {
        self.world
            .shape_body(shape_from_py(shape))
            .map(body_to_py)
            .map_err(py_err)
    }

    /// The shape's collision filter.
    fn shape_filter(&self, shape: u64) -> PyResult<PyFilter> {
        self.world
            .shape_filter(shape_from_py(shape))
            .map(PyFilter::of)
            .map_err(py_err)
    }

    /// Sets the shape's collision filter.
    fn set_shape_filter(&mut self, shape: u64, filter: PyRef<'_, PyFilter>) -> PyResult<()> {
        self.world
            .set_shape_filter(shape_from_py(shape), filter.engine())
            .map_err(py_err)
    }

    /// add_boxes(positions, half_extents, rotations=None, *, body_type='dynamic',
    ///           material=None, filter=None) -> uint64 ids
    ///
    /// One body with one box per row: `positions` (N, 3), `half_extents` (N, 3) or (3,)
    /// for all, `rotations` (N, 4) quaternions (x, y, z, w). All rows are checked before
    /// any body is made.
    #[pyo3(signature = (positions, half_extents, rotations=None, *, body_type="dynamic",
        material=None, filter=None))]
    fn add_boxes<'py>(
        &mut self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        half_extents: &Bound<'py, PyAny>,
        rotations: Option<&Bound<'py, PyAny>>,
        body_type: &str,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let n = float_rows(positions, "positions", 3)?.rows();
        let text = format!("({n}, 3) or (3,)");
        let he = floats(
            half_extents,
            "half_extents",
            &[
                Shape {
                    dims: &[Dim::Is(n), Dim::Is(3)],
                    text: &text,
                },
                Shape {
                    dims: &[Dim::Is(3)],
                    text: &text,
                },
            ],
        )?;
        let all = he.shape.len() == 1;
        let opts = ShapeOptions::new(material, filter, None, None, false, false);
        let made = self.add_many(
            positions,
            rotations,
            body_type,
            |k| Geometry::Box {
                half_extents: Vec3::from_array(he.row::<3>(if all { 0 } else { k })),
            },
            opts,
        )?;
        Ok(id_array(py, made))
    }

    /// add_spheres(positions, radii, *, body_type='dynamic', material=None, filter=None)
    ///             -> uint64 ids
    ///
    /// One body with one sphere per row: `positions` (N, 3), `radii` (N,) or a float.
    #[pyo3(signature = (positions, radii, *, body_type="dynamic", material=None, filter=None))]
    fn add_spheres<'py>(
        &mut self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        radii: &Bound<'py, PyAny>,
        body_type: &str,
        material: Option<PyRef<'_, PyMaterial>>,
        filter: Option<PyRef<'_, PyFilter>>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let n = float_rows(positions, "positions", 3)?.rows();
        let text = format!("({n},) or ()");
        let r = floats(
            radii,
            "radii",
            &[
                Shape {
                    dims: &[Dim::Is(n)],
                    text: &text,
                },
                Shape {
                    dims: &[],
                    text: &text,
                },
            ],
        )?;
        let all = r.shape.is_empty();
        let opts = ShapeOptions::new(material, filter, None, None, false, false);
        let made = self.add_many(
            positions,
            None,
            body_type,
            |k| Geometry::Sphere {
                radius: r.data[if all { 0 } else { k }],
            },
            opts,
        )?;
        Ok(id_array(py, made))
    }

    // ---- joints ----

    /// create_joint(kind, body_a, body_b, anchor, axis=(0, 0, 1), *, anchor_b=None,
    ///              limits=None, motor=None, spring=None, min_length=None, max_length=None,
    ///              cone_angle=0.5, twist=None, collide_connected=False,
    ///              break_impulse=inf, break_angular_impulse=inf, max_force=3.4e38,
    ///              max_torque=3.4e38, correction=0.3) -> int
    ///
    /// `kind`: 'ball', 'hinge' (about `axis`), 'slider' (along `axis`), 'fixed',
    /// 'distance' (between `anchor` on A and `anchor_b` on B; lengths default to their
    /// distance now), 'cone_twist' (cone about `axis`) or 'motor' (drives B to a pose
    /// relative to A, at first the one it has now: see `set_motor_target`; with at most
    /// `max_force` N and `max_torque` N·m, removing `correction` of the error per second
    /// per unit of step rate, in [0, 1]). Anchors and axis are world coordinates at the
    /// bodies' current poses. `limits` and `twist` are (lower, upper), `motor` (speed,
    /// max_force), `spring` (hertz, damping_ratio, target).
    #[pyo3(signature = (kind, body_a, body_b, anchor, axis=None, *, anchor_b=None, limits=None,
        motor=None, spring=None, min_length=None, max_length=None, cone_angle=0.5, twist=None,
        collide_connected=false, break_impulse=f32::INFINITY, break_angular_impulse=f32::INFINITY,
        max_force=f32::MAX, max_torque=f32::MAX, correction=0.3))]
    fn create_joint(
        &mut self,
        kind: String,
        body_a: u64,
        body_b: u64,
        anchor: &Bound<'_, PyAny>,
        axis: Option<&Bound<'_, PyAny>>,
        anchor_b: Option<&Bound<'_, PyAny>>,
        limits: Option<(f32, f32)>,
        motor: Option<(f32, f32)>,
        spring: Option<(f32, f32, f32)>,
        min_length: Option<f32>,
        max_length: Option<f32>,
        cone_angle: f32,
        twist: Option<(f32, f32)>,
        collide_connected: bool,
        break_impulse: f32,
        break_angular_impulse: f32,
        max_force: f32,
        max_torque: f32,
        correction: f32,
    ) -> PyResult<u64> {
        let (a, b) = (body_from_py(body_a), body_from_py(body_b));
        let xf_a = self.world.body_transform(a).map_err(py_err)?;
        let xf_b = self.world.body_transform(b).map_err(py_err)?;
        let anchor = Vec3::from_array(vector::<3>(anchor, "anchor")?);
        let anchor_b = content::vec3_or(anchor_b, "anchor_b", anchor)?;
        let axis = content::vec3_or(axis, "axis", Vec3::Z)?;
        let args = JointArgs {
            kind,
            limits,
            motor,
            spring,
            min_length,
            max_length,
            cone_angle,
            twist,
            anchor_distance: anchor.distance(anchor_b),
            max_force,
            max_torque,
            correction,
        };
        let turn =
            impetus::Quat::from_rotation_arc(Vec3::Z, axis.try_normalize().unwrap_or(Vec3::Z));
        let mut def = JointDef::new(
            args.kind()?,
            a,
            xf_a.inv_mul(&Transform::new(anchor, turn)),
            b,
            xf_b.inv_mul(&Transform::new(anchor_b, turn)),
        );
        def.collide_connected = collide_connected;
        def.break_impulse = break_impulse;
        def.break_angular_impulse = break_angular_impulse;
        self.world
            .create_joint(&def)
            .map(joint_to_py)
            .map_err(py_err)
    }

    /// set_motor_target(joint, offset, rotation=(0, 0, 0, 1))
    ///
    /// Moves a motor joint's target: B's joint frame at `offset` (m) and turned by
    /// `rotation` (a quaternion x, y, z, w) in A's joint frame. ValueError for a joint that
    /// is not a motor or a target that is not finite; KeyError for an unknown id.
    #[pyo3(signature = (joint, offset, rotation=None))]
    fn set_motor_target(
        &mut self,
        joint: u64,
        offset: &Bound<'_, PyAny>,
        rotation: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let id = joint_from_py(joint);
        let offset = Vec3::from_array(vector::<3>(offset, "offset")?);
        let turn = match rotation {
            Some(r) => impetus::Quat::from_array(vector::<4>(r, "rotation")?),
            None => impetus::Quat::IDENTITY,
        };
        let kind = match self.world.joint_def(id).map_err(py_err)?.kind {
            JointKind::Motor {
                max_force,
                max_torque,
                correction,
                ..
            } => JointKind::Motor {
                linear_offset: offset,
                angular_offset: turn,
                max_force,
                max_torque,
                correction,
            },
            _ => return Err(PyValueError::new_err("joint: not a motor joint")),
        };
        self.world.set_joint_kind(id, kind).map_err(py_err)
    }

    /// Removes a joint. KeyError for an unknown id.
    fn remove_joint(&mut self, joint: u64) -> PyResult<()> {
        self.world
            .remove_joint(joint_from_py(joint))
            .map_err(py_err)
    }

    /// The force the joint applied on body B in the last step, N, as (3,).
    fn joint_reaction_force<'py>(
        &self,
        py: Python<'py>,
        joint: u64,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let f = self
            .world
            .joint_reaction_force(joint_from_py(joint))
            .map_err(py_err)?;
        Ok(PyArray1::from_slice(py, &f.to_array()))
    }

    /// Joints that broke in the last step, as uint64 ids.
    fn joint_break_events<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        id_array(
            py,
            self.world
                .joint_break_events()
                .iter()
                .map(|b| joint_to_py(b.joint))
                .collect(),
        )
    }

    // ---- stepping ----

    /// step(dt, n=1): advances `n` steps of `dt` seconds, with the GIL released.
    #[pyo3(signature = (dt, n=1))]
    fn step(&mut self, py: Python<'_>, dt: f32, n: u32) -> PyResult<()> {
        let dt = number(dt, "dt")?;
        let world = &mut self.world;
        py.detach(|| (0..n).try_for_each(|_| world.step(dt)))
            .map_err(py_err)
    }

    // ---- bulk state ----

    /// positions(ids=None, out=None) -> float32 (N, 3): body origins, in m.
    #[pyo3(signature = (ids=None, out=None))]
    fn positions<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::Position)
    }

    /// rotations(ids=None, out=None) -> float32 (N, 4): quaternions (x, y, z, w).
    #[pyo3(signature = (ids=None, out=None))]
    fn rotations<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::Rotation)
    }

    /// linear_velocities(ids=None, out=None) -> float32 (N, 3), in m/s.
    #[pyo3(signature = (ids=None, out=None))]
    fn linear_velocities<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::LinearVelocity)
    }

    /// angular_velocities(ids=None, out=None) -> float32 (N, 3), in rad/s.
    #[pyo3(signature = (ids=None, out=None))]
    fn angular_velocities<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::AngularVelocity)
    }

    /// set_transforms(ids, positions, rotations=None): teleports bodies (rotations kept
    /// when None).
    #[pyo3(signature = (ids, positions, rotations=None))]
    fn set_transforms(
        &mut self,
        ids: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        rotations: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.poses(ids, positions, rotations, false)
    }

    /// set_kinematic_targets(ids, positions, rotations=None): where kinematic bodies land
    /// after the next step (rotations kept when None).
    #[pyo3(signature = (ids, positions, rotations=None))]
    fn set_kinematic_targets(
        &mut self,
        ids: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        rotations: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.poses(ids, positions, rotations, true)
    }

    /// set_linear_velocities(ids, velocities (K, 3)), in m/s.
    fn set_linear_velocities(
        &mut self,
        ids: &Bound<'_, PyAny>,
        velocities: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.write(ids, velocities, "velocities", Write::LinearVelocity)
    }

    /// set_angular_velocities(ids, velocities (K, 3)), in rad/s.
    fn set_angular_velocities(
        &mut self,
        ids: &Bound<'_, PyAny>,
        velocities: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.write(ids, velocities, "velocities", Write::AngularVelocity)
    }

    /// apply_impulses(ids, impulses (K, 3)): linear impulses at the centres of mass, N·s.
    fn apply_impulses(
        &mut self,
        ids: &Bound<'_, PyAny>,
        impulses: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.write(ids, impulses, "impulses", Write::Impulse)
    }

    /// apply_angular_impulses(ids, impulses (K, 3)), N·m·s.
    fn apply_angular_impulses(
        &mut self,
        ids: &Bound<'_, PyAny>,
        impulses: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.write(ids, impulses, "impulses", Write::AngularImpulse)
    }

    /// apply_forces(ids, forces (K, 3)): forces at the centres of mass for the next step, N.
    fn apply_forces(&mut self, ids: &Bound<'_, PyAny>, forces: &Bound<'_, PyAny>) -> PyResult<()> {
        self.write(ids, forces, "forces", Write::Force)
    }

    // ---- queries and events ----

    /// cast_rays(origins (N, 3), directions (N, 3), max_distance=1000.0, mask=all) -> dict
    ///
    /// The closest hit of each ray: 'hit' bool (N,), 'body' and 'shape' uint64 (N,) (0 for
    /// no hit), 'distance' and 'fraction' float32 (N,) (inf and 1 for no hit), 'point' and
    /// 'normal' float32 (N, 3) (NaN for no hit).
    #[pyo3(signature = (origins, directions, max_distance=1000.0, mask=u64::MAX))]
    fn cast_rays<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        directions: &Bound<'py, PyAny>,
        max_distance: f32,
        mask: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let o = float_rows(origins, "origins", 3)?;
        let n = o.rows();
        let d = bulk::rows(directions, "directions", n, 3, None)?;
        let max_distance = number(max_distance, "max_distance")?;
        let world = &self.world;
        let hits = py.detach(|| {
            let filter = QueryFilter::default().with_mask(mask);
            (0..n)
                .map(|k| {
                    world
                        .cast_ray(
                            Vec3::from_array(o.row::<3>(k)),
                            Vec3::from_array(d.row::<3>(k)),
                            max_distance,
                            &filter,
                        )
                        .map_err(|e| (k, e))
                })
                .collect::<Result<Vec<_>, _>>()
        });
        let hits = hits.map_err(|(k, e)| py_err_at(e, "rays", k))?;
        let nan = Vec3::splat(f32::NAN);
        dict(
            py,
            vec![
                (
                    "hit",
                    PyArray1::from_vec(py, hits.iter().map(|h| h.is_some()).collect::<Vec<bool>>())
                        .into_any(),
                ),
                (
                    "body",
                    id_array(
                        py,
                        hits.iter()
                            .map(|h| h.map_or(0, |h| body_to_py(h.body)))
                            .collect(),
                    )
                    .into_any(),
                ),
                (
                    "shape",
                    id_array(
                        py,
                        hits.iter()
                            .map(|h| h.map_or(0, |h| shape_to_py(h.shape)))
                            .collect(),
                    )
                    .into_any(),
                ),
                (
                    "distance",
                    PyArray1::from_vec(
                        py,
                        hits.iter()
                            .map(|h| h.map_or(f32::INFINITY, |h| h.distance))
                            .collect::<Vec<f32>>(),
                    )
                    .into_any(),
                ),
                (
                    "fraction",
                    PyArray1::from_vec(
                        py,
                        hits.iter()
                            .map(|h| h.map_or(1.0, |h| h.fraction))
                            .collect::<Vec<f32>>(),
                    )
                    .into_any(),
                ),
                (
                    "point",
                    vec3s(
                        py,
                        &hits
                            .iter()
                            .map(|h| h.map_or(nan, |h| h.point))
                            .collect::<Vec<_>>(),
                    ),
                ),
                (
                    "normal",
                    vec3s(
                        py,
                        &hits
                            .iter()
                            .map(|h| h.map_or(nan, |h| h.normal))
                            .collect::<Vec<_>>(),
                    ),
                ),
            ],
        )
    }

    /// Contacts that began touching in the last step: dict of uint64 arrays 'shape_a',
    /// 'shape_b', 'body_a', 'body_b'.
    fn contact_begin_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        touches(py, self.world.contact_begin_events())
    }

    /// Contacts that stopped touching in the last step (as `contact_begin_events`).
    fn contact_end_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        touches(py, self.world.contact_end_events())
    }

    /// Sensors that began overlapping a shape: dict of uint64 arrays 'sensor', 'visitor',
    /// 'sensor_body', 'visitor_body'.
    fn sensor_begin_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        sensors(py, self.world.sensor_begin_events())
    }

    /// Sensors that stopped overlapping a shape (as `sensor_begin_events`).
    fn sensor_end_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        sensors(py, self.world.sensor_end_events())
    }

    /// Impacts of shapes with hit events: the contact ids as `contact_begin_events`, plus
    /// 'point' and 'normal' float32 (K, 3) and 'approach_speed' float32 (K,), in m/s.
    fn contact_hit_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let hits = self.world.contact_hit_events();
        let touch: Vec<_> = hits.iter().map(|h| h.touch).collect();
        let d = touches(py, &touch)?;
        d.set_item(
            "point",
            vec3s(py, &hits.iter().map(|h| h.point).collect::<Vec<_>>()),
        )?;
        d.set_item(
            "normal",
            vec3s(py, &hits.iter().map(|h| h.normal).collect::<Vec<_>>()),
        )?;
        d.set_item(
            "approach_speed",
            PyArray1::from_vec(
                py,
                hits.iter().map(|h| h.approach_speed).collect::<Vec<f32>>(),
            ),
        )?;
        Ok(d)
    }

    /// The touching contacts: ids as `contact_begin_events`, 'normal' float32 (K, 3) and
    /// 'point_count' uint64 (K,).
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let views: Vec<_> = self.world.contacts().collect();
        let touch: Vec<_> = views
            .iter()
            .map(|c| impetus::ContactTouch {
                shape_a: c.shape_a,
                shape_b: c.shape_b,
                body_a: c.body_a,
                body_b: c.body_b,
            })
            .collect();
        let d = touches(py, &touch)?;
        d.set_item(
            "normal",
            vec3s(py, &views.iter().map(|c| c.normal).collect::<Vec<_>>()),
        )?;
        d.set_item(
            "point_count",
            id_array(py, views.iter().map(|c| c.points.len() as u64).collect()),
        )?;
        Ok(d)
    }

    // ---- state ----

    /// save_state(compression=None) -> bytes
    ///
    /// What a step changes (poses, velocities, contacts, islands, ...), for
    /// `restore_state` into this world or one of the same structure. `compression` is a
    /// zlib level 0-9.
    #[pyo3(signature = (compression=None))]
    fn save_state<'py>(
        &self,
        py: Python<'py>,
        compression: Option<u32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        match pack::level(compression)? {
            None => self.world.save_state(&mut out),
            Some(level) => self
                .world
                .save_state_compressed(&mut out, level)
                .map_err(py_err)?,
        }
        Ok(PyBytes::new(py, &out))
    }

    /// restore_state(data): puts back a saved state. ValueError on a corrupt state or one
    /// of another structure; the world is then unchanged.
    fn restore_state(&mut self, data: &[u8]) -> PyResult<()> {
        self.world.restore_state(data).map_err(py_err)
    }

    /// save_image(compression=None) -> bytes: the whole world, for `World.from_image`.
    #[pyo3(signature = (compression=None))]
    fn save_image<'py>(
        &self,
        py: Python<'py>,
        compression: Option<u32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        match pack::level(compression)? {
            None => self.world.save_image(&mut out),
            Some(level) => self
                .world
                .save_image_compressed(&mut out, level)
                .map_err(py_err)?,
        }
        Ok(PyBytes::new(py, &out))
    }

    /// A hash of every body's pose and velocity: equal hashes after the same steps mean
    /// bit-identical simulations.
    fn state_hash(&self) -> u64 {
        self.world.state_hash()
    }

    /// A hash of everything a state holds (contacts, islands, ...).
    fn deep_hash(&self) -> u64 {
        self.world.deep_hash()
    }

    /// (islands, sleeping bodies).
    fn sleep_counts(&self) -> (usize, usize) {
        self.world.sleep_counts()
    }
}

impl PyWorld {
    fn poses(
        &mut self,
        ids_obj: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        rotations: Option<&Bound<'_, PyAny>>,
        target: bool,
    ) -> PyResult<()> {
        let raw = ids(ids_obj, "ids")?;
        let p = bulk::rows(positions, "positions", raw.len(), 3, None)?;
        let r = rotations
            .filter(|o| !o.is_none())
            .map(|o| bulk::rows(o, "rotations", raw.len(), 4, None))
            .transpose()?;
        let need = target.then_some((
            BodyType::Kinematic,
            "kinematic targets move kinematic bodies only",
        ));
        let targets = bulk::check_bodies(&self.world, &raw, need)?;
        bulk::set_poses(&mut self.world, &targets, &p, r.as_ref(), 0, target)
    }
}
