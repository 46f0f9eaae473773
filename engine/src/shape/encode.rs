//! Shapes in an image (see `world::image`): each [`Shape`] by kind and parameters, its
//! hull, mesh or height field as an index into the image's geometry table, where each
//! shared `Arc` is written once (interned by pointer) and shared again on reading.

use super::store::ShapeData;
use super::Shape;
use crate::codec::{Reader, Writer};
use crate::error::Error;
use crate::hull::ConvexHull;
use crate::math::{is_finite3, Transform};
use crate::mesh::{HeightField, TriMesh};
use std::collections::HashMap;
use std::sync::Arc;

/// The hulls, meshes and height fields of an image's shapes, each once.
#[derive(Default)]
pub(crate) struct Geometry {
    pub hulls: Vec<Arc<ConvexHull>>,
    pub meshes: Vec<Arc<TriMesh>>,
    pub fields: Vec<Arc<HeightField>>,
    /// While writing: the table index of each `Arc` by its address.
    index: HashMap<usize, u32>,
}

fn intern<T>(list: &mut Vec<Arc<T>>, index: &mut HashMap<usize, u32>, item: &Arc<T>) {
    let key = Arc::as_ptr(item) as *const () as usize;
    index.entry(key).or_insert_with(|| {
        list.push(item.clone());
        (list.len() - 1) as u32
    });
}

fn put_list<T: crate::codec::Field>(w: &mut Writer<'_>, list: &[Arc<T>]) {
    w.put(&(list.len() as u32));
    for item in list {
        (**item).put(w);
    }
}

fn get_list<T: crate::codec::Field>(r: &mut Reader<'_>) -> Result<Vec<Arc<T>>, Error> {
    let n = r.count()?;
    (0..n).map(|_| Ok(Arc::new(T::get(r)?))).collect()
}

fn lookup<T>(r: &mut Reader<'_>, list: &[Arc<T>]) -> Result<Arc<T>, Error> {
    let i: u32 = r.get()?;
    list.get(i as usize)
        .cloned()
        .ok_or_else(|| r.error("holds a shape whose geometry index is out of range"))
}

impl Geometry {
    /// The geometry of `shapes`, in the order first met.
    pub fn of<'a>(shapes: impl Iterator<Item = &'a Shape>) -> Self {
        let mut g = Geometry::default();
        for shape in shapes {
            match shape {
                Shape::Hull { hull } => intern(&mut g.hulls, &mut g.index, hull),
                Shape::Mesh { mesh } => intern(&mut g.meshes, &mut g.index, mesh),
                Shape::HeightField { field } => intern(&mut g.fields, &mut g.index, field),
                _ => {}
            }
        }
        g
    }

    /// Writes the table: hulls, meshes, height fields, each a count and its items.
    pub fn put(&self, w: &mut Writer<'_>) {
        put_list(w, &self.hulls);
        put_list(w, &self.meshes);
        put_list(w, &self.fields);
    }

    /// Reads a table [`Geometry::put`] wrote.
    pub fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(Geometry {
            hulls: get_list(r)?,
            meshes: get_list(r)?,
            fields: get_list(r)?,
            index: HashMap::new(),
        })
    }

    fn index_of<T>(&self, item: &Arc<T>) -> u32 {
        self.index[&(Arc::as_ptr(item) as *const () as usize)]
    }

    /// Writes a shape: its kind, then its parameters or its geometry's index (the table
    /// must have been made [`of`](Geometry::of) a list holding it).
    pub fn put_shape(&self, w: &mut Writer<'_>, shape: &Shape) {
        w.put(&(shape.kind() as u8));
        match shape {
            Shape::Sphere { radius } => w.put(radius),
            Shape::Capsule {
                half_height,
                radius,
            } => w.put(&(*half_height, *radius)),
            Shape::Box { half_extents } => w.put(half_extents),
            Shape::Hull { hull } => w.put(&self.index_of(hull)),
            Shape::Plane { normal, offset } => w.put(&(*normal, *offset)),
            Shape::Mesh { mesh } => w.put(&self.index_of(mesh)),
            Shape::HeightField { field } => w.put(&self.index_of(field)),
        }
    }

    /// Reads a shape [`put_shape`](Geometry::put_shape) wrote, sharing the table's
    /// geometry, and checks it.
    pub fn get_shape(&self, r: &mut Reader<'_>) -> Result<Shape, Error> {
        let shape = match r.get::<u8>()? {
            0 => Shape::Sphere { radius: r.get()? },
            1 => {
                let (half_height, radius) = r.get()?;
                Shape::Capsule {
                    half_height,
                    radius,
                }
            }
            2 => Shape::Box {
                half_extents: r.get()?,
            },
            3 => Shape::Hull {
                hull: lookup(r, &self.hulls)?,
            },
            4 => {
                let (normal, offset) = r.get()?;
                Shape::Plane { normal, offset }
            }
            5 => Shape::Mesh {
                mesh: lookup(r, &self.meshes)?,
            },
            6 => Shape::HeightField {
                field: lookup(r, &self.fields)?,
            },
            _ => return Err(r.error("holds an unknown shape kind")),
        };
        shape
            .validate()
            .map_err(|_| r.error("holds a shape with invalid parameters"))?;
        Ok(shape)
    }

    /// Writes an attached shape, field by field, with its `local_pose` (the pose the user
    /// gave, kept apart from the shape's data: see `ShapeStore::local_poses`).
    pub fn put_data(&self, w: &mut Writer<'_>, d: &ShapeData, local_pose: &Transform) {
        self.put_shape(w, &d.shape);
        w.put(&(d.body, d.offset));
        w.put(&(d.density, d.friction, d.static_friction));
        w.put(&(d.restitution, d.rolling, d.inner_radius));
        w.put(&d.filter);
        w.put(&(d.is_sensor, d.enable_contact_events, d.enable_hit_events));
        w.put(&(d.enable_sensor_events, d.enable_contact_modifier));
        w.put(&(d.relative, *local_pose));
    }

    /// Reads an attached shape [`put_data`](Geometry::put_data) wrote, with its local pose,
    /// and checks its numbers (its body index is checked by the world).
    pub fn get_data(&self, r: &mut Reader<'_>) -> Result<(ShapeData, Transform), Error> {
        let shape = self.get_shape(r)?;
        let (body, offset) = r.get()?;
        let (density, friction, static_friction) = r.get()?;
        let (restitution, rolling, inner_radius) = r.get()?;
        let filter = r.get()?;
        let (is_sensor, enable_contact_events, enable_hit_events) = r.get()?;
        let (enable_sensor_events, enable_contact_modifier) = r.get()?;
        let (relative, local_pose): (Transform, Transform) = r.get()?;
        let numbers: [f32; 6] = [
            density,
            friction,
            static_friction,
            restitution,
            rolling,
            inner_radius,
        ];
        let pose_ok = |t: &Transform| is_finite3(t.p) && t.q.is_finite();
        if !numbers.iter().all(|x| x.is_finite()) || !pose_ok(&relative) || !pose_ok(&local_pose) {
            return Err(r.error("holds a shape with a number that is not finite"));
        }
        let data = ShapeData {
            reach: ShapeData::reach_of(&shape, offset, &relative),
            shape,
            body,
            offset,
            density,
            friction,
            static_friction,
            restitution,
            rolling,
            inner_radius,
            filter,
            is_sensor,
            enable_contact_events,
            enable_hit_events,
            enable_sensor_events,
            enable_contact_modifier,
            relative,
        };
        Ok((data, local_pose))
    }
}
