"""BatchWorld: members step as the same world stepped alone, at any batch size and thread
count; per-world actions reach only their world; reset(mask) restores only the chosen."""

import numpy as np
import pytest

import impetus
from conftest import DT, box_grid


def standalone_hash(template, steps, workers):
    world = impetus.World.from_image(template.save_image(), workers=workers)
    world.step(DT, steps)
    return world.state_hash()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [1, 3, 8])
def test_member_hash_equals_standalone(n, threads):
    template, _, _ = box_grid(3, 4, 3)
    alone = standalone_hash(template, 90, workers=1)
    assert alone == standalone_hash(template, 90, workers=2)
    batch = impetus.BatchWorld(template, n, threads=threads)
    assert batch.threads == threads
    batch.step(DT, 90)
    hashes = batch.state_hashes()
    assert hashes.dtype == np.uint64 and hashes.shape == (n,)
    assert (hashes == alone).all()
    # The template itself stepped in place, 2 workers, ends on the same hash.
    template.step(DT, 90)
    assert template.state_hash() == alone


def test_per_world_impulses_differ_and_match_standalone(small_pile):
    template, ids = small_pile
    n = 4
    batch = impetus.BatchWorld(template, n, threads=2)
    kick = np.zeros((n, 1, 3), np.float32)
    kick[:, 0, 0] = np.arange(n) * 500.0  # world 0 gets no kick
    batch.apply_impulses(ids[-1:], kick)
    batch.step(DT, 30)
    hashes = batch.state_hashes()
    assert len(set(hashes.tolist())) == n
    for w in range(n):
        alone = impetus.World.from_image(template.save_image(), workers=1)
        alone.apply_impulses(ids[-1:], kick[w])
        alone.step(DT, 30)
        assert alone.state_hash() == hashes[w]
    # A standalone copy of a member carries on as the member does.
    copy = batch.world(2)
    copy.step(DT, 10)
    batch.step(DT, 10)
    assert copy.state_hash() == batch.state_hashes()[2]


def test_reset_restores_only_the_chosen_worlds(small_pile):
    template, ids = small_pile
    n = 6
    batch = impetus.BatchWorld(template, n, threads=2)
    start = batch.positions()
    start_hash = batch.state_hashes()[0]
    push = np.zeros((n, len(ids), 3), np.float32)
    push[..., 1] = 2000.0
    batch.apply_impulses(ids, push)
    batch.step(DT, 20)
    moved = batch.positions()
    assert not np.array_equal(moved[0], start[0])
    mask = np.array([True, False, True, False, False, True])
    batch.reset(mask)
    after = batch.positions()
    hashes = batch.state_hashes()
    for w in range(n):
        if mask[w]:
            np.testing.assert_array_equal(after[w], start[w])
            assert hashes[w] == start_hash
        else:
            np.testing.assert_array_equal(after[w], moved[w])
            assert hashes[w] != start_hash
    # A reset world steps on exactly as a fresh copy of the template.
    batch.step(DT, 15)
    fresh = impetus.BatchWorld(template, 1, threads=1)
    fresh.step(DT, 15)
    assert batch.state_hashes()[0] == fresh.state_hashes()[0]
    batch.reset()
    assert (batch.state_hashes() == start_hash).all()


def test_kinematic_targets_per_world():
    world = impetus.World()
    ground = world.create_body("static")
    world.add_plane(ground)
    pusher = world.create_body("kinematic", position=(0, 0.5, 0))
    world.add_box(pusher, (0.2, 0.2, 0.2))
    batch = impetus.BatchWorld(world, 3, threads=2)
    targets = np.array([[[0, 0.5, 0]], [[0.05, 0.5, 0]], [[0, 0.5, -0.05]]], np.float32)
    batch.set_kinematic_targets([pusher], targets)
    batch.step(DT)
    np.testing.assert_allclose(batch.positions([pusher]), targets, atol=1e-6)


def test_batch_state_round_trip(small_pile):
    template, _ = small_pile
    batch = impetus.BatchWorld(template, 2, threads=2)
    batch.step(DT, 10)
    saved = batch.save_state(1, compression=6)
    batch.step(DT, 10)
    later = batch.state_hashes()[1]
    batch.restore_state(0, saved)
    batch.step(DT, 10)
    assert batch.state_hashes()[0] == later
    with pytest.raises(IndexError):
        batch.save_state(2)
