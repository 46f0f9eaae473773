//! `BatchWorld`: n copies of one world, stepped together across a rayon pool.
//!
//! Each copy is built from the template's image with one worker (`World::from_image_with_workers(image, 1)`),
//! so it steps single-threaded; the batch hands each copy to exactly one pool task per
//! step. Nothing a copy computes then depends on the pool's size or on which thread ran
//! it, and a copy ends on the same state hash as the template stepped alone at any worker
//! count (the engine's results do not depend on the count). Parallelism is across worlds,
//! which for many small worlds beats threads inside each (no per-stage fork and join).

use crate::arrays::{self, ids, number, output};
use crate::bulk::{self, Column, Write};
use crate::world::PyWorld;
use crate::{pack, py_err, py_err_at};
use impetus::{BodyType, Vec3, World};
use numpy::{PyArray1, PyArrayDyn};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

/// n copies of a world stepped together, one world per task across a thread pool.
///
/// BatchWorld(template, n, threads=0)
///
/// Every copy starts as `template` is now (through its image) and steps single-threaded;
/// `threads` pool threads (0: one per core) share the copies. A copy gives the same
/// `state_hash` as the template stepped alone, whatever `n` and `threads`. State reads
/// are (n, N, 3) or (n, N, 4) float32 arrays; per-world actions are (n, K, 3) arrays.
/// `reset(mask)` puts the chosen copies back to the template's state.
#[pyclass(name = "BatchWorld", module = "impetus")]
pub(crate) struct PyBatchWorld {
    worlds: Vec<World>,
    /// The template's state when the batch was made: what `reset` restores.
    start: Vec<u8>,
    pool: rayon::ThreadPool,
}

impl PyBatchWorld {
    fn index(&self, i: isize) -> PyResult<usize> {
        let n = self.worlds.len() as isize;
        let k = if i < 0 { i + n } else { i };
        if (0..n).contains(&k) {
            Ok(k as usize)
        } else {
            Err(PyIndexError::new_err(format!(
                "world index {i} out of range for a batch of {n}"
            )))
        }
    }

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
        let width = column.width();
        if given.is_none() && column.has_bulk() {
            // Every body of every world (copies of one structure): the engine's getter.
            let n = self.worlds[0].body_count();
            let array = output(py, out, &[self.worlds.len(), n, width])?;
            let mut result = Ok(());
            arrays::fill(&array, |s| {
                let per_world = (n * width).max(1);
                for (w, block) in self.worlds.iter().zip(s.chunks_mut(per_world)) {
                    result = bulk::read_all(w, column, &mut block[..n * width]);
                    if result.is_err() {
                        break;
                    }
                }
            })?;
            return result.map(|_| array);
        }
        let targets = bulk::targets(&self.worlds[0], given.as_deref());
        let array = output(py, out, &[self.worlds.len(), targets.len(), width])?;
        let mut result = Ok(());
        arrays::fill(&array, |s| {
            let per_world = (targets.len() * width).max(1);
            for (w, block) in self.worlds.iter().zip(s.chunks_mut(per_world)) {
                result = bulk::read(w, &targets, column, block);
                if result.is_err() {
                    break;
                }
            }
        })?;
        result.map(|_| array)
    }

    /// A per-world write: `values` (n, K, 3), row block `w` for world `w`. Checked whole
    /// first (shape, finiteness, ids and body types), then applied.
    fn write(
        &mut self,
        ids_obj: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        field: &str,
        what: Write,
    ) -> PyResult<()> {
        let raw = ids(ids_obj, "ids")?;
        let n = self.worlds.len();
        let v = bulk::rows(values, field, raw.len(), 3, Some(n))?;
        let targets = bulk::check_bodies(&self.worlds[0], &raw, what.needs())?;
        let k = targets.len();
        for (w, world) in self.worlds.iter_mut().enumerate() {
            for (j, &id) in targets.iter().enumerate() {
                what.apply(world, id, Vec3::from_array(v.row::<3>(w * k + j)))
                    .map_err(|e| py_err_at(e, field, w))?;
            }
        }
        Ok(())
    }
}

#[pymethods]
impl PyBatchWorld {
    #[new]
    #[pyo3(signature = (template, n, threads=0))]
    fn new(
        py: Python<'_>,
        template: PyRef<'_, PyWorld>,
        n: usize,
        threads: usize,
    ) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err("n must be at least 1"));
        }
        let mut image = Vec::new();
        template.world.save_image(&mut image);
        let mut start = Vec::new();
        template.world.save_state(&mut start);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("impetus-batch-{i}"))
            .build()
            .map_err(|e| {
                PyRuntimeError::new_err(format!("could not start the batch's threads: {e}"))
            })?;
        let worlds = py.detach(|| {
            pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .map(|_| World::from_image_with_workers(&image, 1))
                    .collect::<Result<Vec<_>, _>>()
            })
        });
        Ok(PyBatchWorld {
            worlds: worlds.map_err(py_err)?,
            start,
            pool,
        })
    }

    fn __len__(&self) -> usize {
        self.worlds.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "BatchWorld(n={}, bodies={}, threads={})",
            self.worlds.len(),
            self.worlds[0].body_count(),
            self.pool.current_num_threads()
        )
    }

    /// The pool's thread count.
    #[getter]
    fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The body ids (the same in every copy), in the order of the bulk reads.
    fn body_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        arrays::id_array(py, self.worlds[0].bodies().map(crate::body_to_py).collect())
    }

    /// step(dt, n=1): advances every world `n` steps of `dt` seconds, one world per pool
    /// task, with the GIL released.
    #[pyo3(signature = (dt, n=1))]
    fn step(&mut self, py: Python<'_>, dt: f32, n: u32) -> PyResult<()> {
        let dt = number(dt, "dt")?;
        let (worlds, pool) = (&mut self.worlds, &self.pool);
        let result = py.detach(|| {
            pool.install(|| {
                worlds
                    .par_iter_mut()
                    .with_max_len(1)
                    .enumerate()
                    .try_for_each(|(w, world)| {
                        (0..n).try_for_each(|_| world.step(dt)).map_err(|e| (w, e))
                    })
            })
        });
        result.map_err(|(w, e)| py_err_at(e, "worlds", w))
    }

    /// positions(ids=None, out=None) -> float32 (n, N, 3).
    #[pyo3(signature = (ids=None, out=None))]
    fn positions<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::Position)
    }

    /// rotations(ids=None, out=None) -> float32 (n, N, 4), quaternions (x, y, z, w).
    #[pyo3(signature = (ids=None, out=None))]
    fn rotations<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::Rotation)
    }

    /// linear_velocities(ids=None, out=None) -> float32 (n, N, 3).
    #[pyo3(signature = (ids=None, out=None))]
    fn linear_velocities<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::LinearVelocity)
    }

    /// angular_velocities(ids=None, out=None) -> float32 (n, N, 3).
    #[pyo3(signature = (ids=None, out=None))]
    fn angular_velocities<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.read(py, ids, out, Column::AngularVelocity)
    }

    /// apply_impulses(ids (K,), impulses (n, K, 3)): per-world impulses at the centres
    /// of mass, N·s.
    fn apply_impulses(
        &mut self,
        ids: &Bound<'_, PyAny>,
        impulses: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.write(ids, impulses, "impulses", Write::Impulse)
    }

    /// apply_forces(ids (K,), forces (n, K, 3)): per-world forces for the next step, N.
    fn apply_forces(&mut self, ids: &Bound<'_, PyAny>, forces: &Bound<'_, PyAny>) -> PyResult<()> {
        self.write(ids, forces, "forces", Write::Force)
    }

    /// set_linear_velocities(ids (K,), velocities (n, K, 3)), m/s.
    fn set_linear_velocities(
        &mut self,
        ids: &Bound<'_, PyAny>,
        velocities: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.write(ids, velocities, "velocities", Write::LinearVelocity)
    }

    /// set_kinematic_targets(ids (K,), positions (n, K, 3), rotations=None (n, K, 4)):
    /// where each world's kinematic bodies land after the next step.
    #[pyo3(signature = (ids, positions, rotations=None))]
    fn set_kinematic_targets(
        &mut self,
        ids: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        rotations: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let raw = crate::arrays::ids(ids, "ids")?;
        let n = self.worlds.len();
        let p = bulk::rows(positions, "positions", raw.len(), 3, Some(n))?;
        let r = rotations
            .filter(|o| !o.is_none())
            .map(|o| bulk::rows(o, "rotations", raw.len(), 4, Some(n)))
            .transpose()?;
        let need = Some((
            BodyType::Kinematic,
            "kinematic targets move kinematic bodies only",
        ));
        let targets = bulk::check_bodies(&self.worlds[0], &raw, need)?;
        let k = targets.len();
        for (w, world) in self.worlds.iter_mut().enumerate() {
            bulk::set_poses(world, &targets, &p, r.as_ref(), w * k, true)?;
        }
        Ok(())
    }

    /// reset(mask=None): puts the worlds where `mask` (bool (n,)) is true back to the
    /// template's state when the batch was made; None resets every world.
    #[pyo3(signature = (mask=None))]
    fn reset(&mut self, py: Python<'_>, mask: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let n = self.worlds.len();
        let chosen = match mask.filter(|m| !m.is_none()) {
            Some(m) => arrays::mask(m, "mask", n)?,
            None => vec![true; n],
        };
        let (worlds, pool, start) = (&mut self.worlds, &self.pool, &self.start);
        let result = py.detach(|| {
            pool.install(|| {
                worlds
                    .par_iter_mut()
                    .zip(chosen.par_iter())
                    .filter(|(_, &c)| c)
                    .try_for_each(|(w, _)| w.restore_state(start))
            })
        });
        result.map_err(py_err)
    }

    /// The state hash of every world, uint64 (n,).
    fn state_hashes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.worlds.iter().map(|w| w.state_hash()).collect())
    }

    /// save_state(i, compression=None) -> bytes: world `i`'s state (restores into any
    /// world of the batch, or into the template).
    #[pyo3(signature = (i, compression=None))]
    fn save_state<'py>(
        &self,
        py: Python<'py>,
        i: isize,
        compression: Option<u32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        let w = &self.worlds[self.index(i)?];
        match pack::level(compression)? {
            None => w.save_state(&mut out),
            Some(level) => w.save_state_compressed(&mut out, level).map_err(py_err)?,
        }
        Ok(PyBytes::new(py, &out))
    }

    /// restore_state(i, data): puts a saved state into world `i`.
    fn restore_state(&mut self, i: isize, data: &[u8]) -> PyResult<()> {
        let k = self.index(i)?;
        self.worlds[k].restore_state(data).map_err(py_err)
    }

    /// world(i) -> World: a standalone copy of world `i` (through its image), with one worker.
    fn world(&self, i: isize) -> PyResult<PyWorld> {
        let mut image = Vec::new();
        self.worlds[self.index(i)?].save_image(&mut image);
        World::from_image_with_workers(&image, 1)
            .map(|world| PyWorld { world })
            .map_err(py_err)
    }
}
