//! Bulk reads and writes of body columns, shared by `World` and `BatchWorld`: one pass
//! over the ids, no Python object per body.

use crate::arrays::{floats, Dim, Floats, Shape};
use crate::{body_from_py, py_err_at};
use impetus::{BodyId, BodyType, Quat, Transform, Vec3, World};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;

/// A column of body state a bulk read fills.
#[derive(Clone, Copy)]
pub(crate) enum Column {
    /// Body origin, m: (x, y, z).
    Position,
    /// Orientation quaternion: (x, y, z, w).
    Rotation,
    /// Linear velocity of the centre of mass, m/s.
    LinearVelocity,
    /// Angular velocity, rad/s.
    AngularVelocity,
}

impl Column {
    /// Floats a body.
    pub fn width(self) -> usize {
        match self {
            Column::Rotation => 4,
            _ => 3,
        }
    }
}

/// The bodies a bulk call is about: the ids given, or every live body in slot order.
pub(crate) fn targets(w: &World, ids: Option<&[u64]>) -> Vec<BodyId> {
    match ids {
        Some(ids) => ids.iter().map(|&i| body_from_py(i)).collect(),
        None => w.bodies().collect(),
    }
}

/// Fills `out` (`ids.len() × width` floats) with `column` of `ids`. The column is chosen
/// once, outside the loop, so each loop is one engine getter inlined.
pub(crate) fn read(w: &World, ids: &[BodyId], column: Column, out: &mut [f32]) -> PyResult<()> {
    match column {
        Column::Position => rows_of(w, ids, out, |w, id| {
            w.body_position(id).map(|v| v.to_array())
        }),
        Column::Rotation => rows_of(w, ids, out, |w, id| {
            w.body_rotation(id).map(|q| q.to_array())
        }),
        Column::LinearVelocity => rows_of(w, ids, out, |w, id| {
            w.body_linear_velocity(id).map(|v| v.to_array())
        }),
        Column::AngularVelocity => rows_of(w, ids, out, |w, id| {
            w.body_angular_velocity(id).map(|v| v.to_array())
        }),
    }
}

impl Column {
    /// Whether the engine has a bulk getter of the column for every body ([`read_all`]).
    pub fn has_bulk(self) -> bool {
        matches!(self, Column::Position | Column::Rotation)
    }
}

/// Fills `out` (`body_count × width` floats) with `column` of every live body in slot
/// order through the engine's bulk getter (one pass over the body store, no ids); only
/// for columns that have one ([`Column::has_bulk`]).
pub(crate) fn read_all(w: &World, column: Column, out: &mut [f32]) -> PyResult<()> {
    let bad = |e| pyo3::exceptions::PyValueError::new_err(format!("out: {e}"));
    match column {
        Column::Position => w
            .body_positions_into(bytemuck::try_cast_slice_mut(out).map_err(bad)?)
            .map_err(crate::py_err),
        Column::Rotation => w
            .body_rotations_into(bytemuck::try_cast_slice_mut(out).map_err(bad)?)
            .map_err(crate::py_err),
        _ => unreachable!("only columns with a bulk getter are read whole"),
    }
}

#[inline]
fn rows_of<const C: usize>(
    w: &World,
    ids: &[BodyId],
    out: &mut [f32],
    get: impl Fn(&World, BodyId) -> Result<[f32; C], impetus::Error>,
) -> PyResult<()> {
    for (k, (&id, row)) in ids.iter().zip(out.chunks_exact_mut(C)).enumerate() {
        row.copy_from_slice(&get(w, id).map_err(|e| py_err_at(e, "ids", k))?);
    }
    Ok(())
}

/// Checks that every id names a live body of `w` (and, with `need`, one of that type),
/// before a bulk write changes anything.
pub(crate) fn check_bodies(
    w: &World,
    ids: &[u64],
    need: Option<(BodyType, &str)>,
) -> PyResult<Vec<BodyId>> {
    ids.iter()
        .enumerate()
        .map(|(k, &raw)| {
            let id = body_from_py(raw);
            let ty = w.body_type(id).map_err(|_| {
                PyKeyError::new_err(format!(
                    "ids[{k}]: BodyId {raw:#x}: no such body in this world (removed, or an id of another world)"
                ))
            })?;
            if let Some((want, why)) = need {
                if ty != want {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "ids[{k}]: {why}"
                    )));
                }
            }
            Ok(id)
        })
        .collect()
}

/// A per-body input of `width` floats: `(K, width)` for one world, or `(n, K, width)`
/// when `worlds` is given (one row block per world).
pub(crate) fn rows(
    obj: &Bound<'_, PyAny>,
    field: &str,
    bodies: usize,
    width: usize,
    worlds: Option<usize>,
) -> PyResult<Floats> {
    let (dims, text) = match worlds {
        None => (
            vec![Dim::Is(bodies), Dim::Is(width)],
            format!("({bodies}, {width})"),
        ),
        Some(n) => (
            vec![Dim::Is(n), Dim::Is(bodies), Dim::Is(width)],
            format!("({n}, {bodies}, {width})"),
        ),
    };
    floats(
        obj,
        field,
        &[Shape {
            dims: &dims,
            text: &text,
        }],
    )
}

/// A bulk write: what to set on each body.
#[derive(Clone, Copy)]
pub(crate) enum Write {
    /// Linear impulse at the centre of mass, N·s.
    Impulse,
    /// Angular impulse, N·m·s.
    AngularImpulse,
    /// Force at the centre of mass for the next step, N.
    Force,
    /// Linear velocity, m/s.
    LinearVelocity,
    /// Angular velocity, rad/s.
    AngularVelocity,
}

impl Write {
    /// The body type the write needs, with the message when another is given.
    pub fn needs(self) -> Option<(BodyType, &'static str)> {
        match self {
            Write::Impulse | Write::AngularImpulse | Write::Force => Some((
                BodyType::Dynamic,
                "impulses and forces act on dynamic bodies only",
            )),
            _ => None,
        }
    }

    /// Applies `v` to body `id`.
    pub fn apply(self, w: &mut World, id: BodyId, v: Vec3) -> Result<(), impetus::Error> {
        match self {
            Write::Impulse => {
                let at = w.body_center_of_mass(id)?;
                w.apply_linear_impulse(id, v, at)
            }
            Write::AngularImpulse => w.apply_angular_impulse(id, v),
            Write::Force => w.apply_force_to_center(id, v),
            Write::LinearVelocity => w.set_body_linear_velocity(id, v),
            Write::AngularVelocity => w.set_body_angular_velocity(id, v),
        }
    }
}

/// Sets poses (`Position` with rotations) or kinematic targets of `ids` from rows of
/// `positions` and `rotations` starting at row `first`.
pub(crate) fn set_poses(
    w: &mut World,
    ids: &[BodyId],
    positions: &Floats,
    rotations: Option<&Floats>,
    first: usize,
    target: bool,
) -> PyResult<()> {
    for (k, &id) in ids.iter().enumerate() {
        let p = Vec3::from_array(positions.row::<3>(first + k));
        let q = match rotations {
            Some(r) => Quat::from_array(r.row::<4>(first + k)),
            None => w.body_rotation(id).map_err(|e| py_err_at(e, "ids", k))?,
        };
        let done = if target {
            w.set_body_target_pose(id, Transform::new(p, q))
        } else {
            w.set_body_transform(id, p, q)
        };
        done.map_err(|e| py_err_at(e, "positions", k))?;
    }
    Ok(())
}
