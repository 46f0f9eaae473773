"""impetus: a deterministic 3D rigid-body physics engine, from Python.

- ``World``: bodies, shapes and joints; ``step(dt, n)`` with the GIL released; bulk state
  as float32 numpy arrays (``positions()``, ``rotations()``, ...); batched ray casts;
  events as arrays; ``save_state``/``restore_state``, ``save_image``/``World.from_image``
  and pickling (through the image); ``state_hash()``.
- ``BatchWorld(template, n, threads=0)``: n copies of a world stepped together across a
  thread pool, one world per task; state as (n, N, 3) arrays, per-world actions, and
  ``reset(mask)`` back to the template's state.
- ``Material`` and ``Filter``: what shapes are made of and which ones collide.

Units are SI (m, kg, s); rotations are quaternions (x, y, z, w); ids are ints (uint64 in
arrays). Results are bit-identical for every thread count.
"""

from ._impetus import BatchWorld, Filter, Material, World, __version__

__all__ = ["BatchWorld", "Filter", "Material", "World", "__version__"]
