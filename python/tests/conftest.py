"""Shared scenes for the tests: small worlds built through the public API only."""

import numpy as np
import pytest

import impetus

DT = 1.0 / 60.0


def box_grid(nx, ny, nz, spacing=1.1, half=0.5, workers=1, seed=7):
    """A ground plane and nx * ny * nz unit boxes in columns ny high, the lowest layer
    resting on the ground, each slightly tilted (fixed seed) so they do not land flat."""
    world = impetus.World(workers=workers)
    ground = world.create_body("static")
    world.add_plane(ground)
    xs = (np.arange(nx) - 0.5 * (nx - 1)) * spacing
    zs = (np.arange(nz) - 0.5 * (nz - 1)) * spacing
    ys = half + 0.02 + np.arange(ny) * (2 * half + 0.05)
    y, x, z = np.meshgrid(ys, xs, zs, indexing="ij")
    positions = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(np.float32)
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=(len(positions), 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(-0.02, 0.02, size=len(positions))
    rotations = np.concatenate(
        [axis * np.sin(angle / 2)[:, None], np.cos(angle / 2)[:, None]], axis=1
    ).astype(np.float32)
    ids = world.add_boxes(positions, (half, half, half), rotations)
    return world, ids, positions


@pytest.fixture
def small_pile():
    """A 4 x 3 x 4 grid of boxes (48 bodies) on a plane: the batch and state tests' world."""
    world, ids, _ = box_grid(4, 3, 4)
    return world, ids
