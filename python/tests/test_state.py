"""States, images and pickling: what comes back steps on exactly as the original, in this
process and in another."""

import pickle
from concurrent.futures import ProcessPoolExecutor
import multiprocessing

import numpy as np
import pytest

import impetus
from conftest import DT


def step_and_hash(world, steps):
    """Runs in a worker process: the world arrives pickled (through its image)."""
    world.step(DT, steps)
    return world.state_hash(), world.positions()


@pytest.mark.parametrize("compression", [None, 1, 9])
def test_restore_state_replays_bit_for_bit(small_pile, compression):
    world, _ = small_pile
    world.step(DT, 20)
    state = world.save_state(compression=compression)
    world.step(DT, 40)
    expected = world.state_hash()
    world.restore_state(state)
    world.step(DT, 40)
    assert world.state_hash() == expected


def test_compression_makes_states_smaller(small_pile):
    world, _ = small_pile
    world.step(DT, 30)
    raw, packed = world.save_state(), world.save_state(compression=6)
    assert len(packed) < len(raw)
    assert raw[:4] == b"IMPS" and packed[:4] == b"IMPZ"


@pytest.mark.parametrize("compression", [None, 6])
def test_image_builds_the_same_world(small_pile, compression):
    world, _ = small_pile
    world.step(DT, 25)
    copy = impetus.World.from_image(world.save_image(compression=compression), workers=2)
    assert copy.workers == 2
    world.step(DT, 30)
    copy.step(DT, 30)
    assert copy.state_hash() == world.state_hash()
    assert copy.deep_hash() == world.deep_hash()


def test_pickle_then_step_in_another_process(small_pile):
    world, _ = small_pile
    world.step(DT, 10)
    worlds = [pickle.loads(pickle.dumps(world)) for _ in range(3)]
    kick = np.array([[0, 0, 0], [300, 0, 0], [0, 0, 300]], np.float32)
    ids = world.body_ids()[-1:]
    for w, k in zip(worlds, kick):
        w.apply_impulses(ids, k[None])
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
        remote = list(pool.map(step_and_hash, worlds, [50] * 3))
    for w, (h, p) in zip(worlds, remote):
        w.step(DT, 50)
        assert h == w.state_hash()
        np.testing.assert_array_equal(p, w.positions())
    assert len({h for h, _ in remote}) == 3
