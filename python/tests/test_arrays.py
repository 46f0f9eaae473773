"""Every bulk read's shape and dtype, for all bodies and for an id array, with and without
out=, on a World and on a BatchWorld."""

import numpy as np
import pytest

import impetus
from conftest import DT

READS = [
    ("positions", 3),
    ("rotations", 4),
    ("linear_velocities", 3),
    ("angular_velocities", 3),
]


@pytest.mark.parametrize("name,width", READS)
def test_world_reads(small_pile, name, width):
    world, ids = small_pile
    world.step(DT, 5)
    read = getattr(world, name)
    everything = read()
    assert everything.dtype == np.float32
    assert everything.shape == (world.body_count, width)
    assert everything.flags.c_contiguous
    some = read(ids[3:9])
    assert some.shape == (6, width)
    # The same rows as the full read, in body_ids() order.
    order = {int(b): k for k, b in enumerate(world.body_ids())}
    np.testing.assert_array_equal(some, everything[[order[int(b)] for b in ids[3:9]]])
    out = np.full((len(ids), width), -7.0, dtype=np.float32)
    returned = read(ids, out=out)
    assert returned is out or np.shares_memory(returned, out)
    np.testing.assert_array_equal(out, read(ids))
    # A Python list of ints works as ids too.
    assert read([int(ids[0])]).shape == (1, width)


@pytest.mark.parametrize("name,width", READS)
def test_batch_reads(small_pile, name, width):
    world, ids = small_pile
    batch = impetus.BatchWorld(world, 5, threads=2)
    batch.step(DT, 3)
    read = getattr(batch, name)
    everything = read()
    assert everything.dtype == np.float32
    assert everything.shape == (5, world.body_count, width)
    some = read(ids[:4])
    assert some.shape == (5, 4, width)
    out = np.zeros((5, 4, width), dtype=np.float32)
    read(ids[:4], out=out)
    np.testing.assert_array_equal(out, some)
    # Every copy stepped the same: the rows agree across worlds.
    np.testing.assert_array_equal(everything[0], everything[4])


def test_single_reads_and_ids(small_pile):
    world, ids = small_pile
    assert world.body_ids().dtype == np.uint64
    assert ids.dtype == np.uint64 and ids.shape == (48,)
    assert world.body_count == 49  # the ground and 48 boxes
    assert world.body_type(int(ids[0])) == "dynamic"
    shapes = world.body_shapes(int(ids[0]))
    assert shapes.dtype == np.uint64 and shapes.shape == (1,)
    assert world.shape_body(int(shapes[0])) == int(ids[0])
    assert world.gravity.dtype == np.float32 and world.gravity.shape == (3,)
    # A box of 1 m³ at the default density of 1000 kg/m³.
    assert world.body_mass(int(ids[0])) == pytest.approx(1000.0, rel=1e-5)


def test_events_and_rays_are_arrays(small_pile):
    world, ids = small_pile
    world.step(DT, 30)
    begins = world.contact_begin_events()
    contacts = world.contacts()
    for d in (begins, contacts):
        for key in ("shape_a", "shape_b", "body_a", "body_b"):
            assert d[key].dtype == np.uint64
    assert contacts["normal"].shape == (len(contacts["body_a"]), 3)
    hits = world.cast_rays(np.zeros((3, 3)) + [0, 10, 0], np.tile([0, -1, 0], (3, 1)))
    assert hits["hit"].dtype == np.bool_ and hits["hit"].shape == (3,)
    assert hits["point"].shape == (3, 3) and hits["point"].dtype == np.float32
    assert hits["body"].dtype == np.uint64
