"""Every bad input is a Python error naming the field, never a crash, and the world still
steps afterwards as if the call had not been made."""

import numpy as np
import pytest

import impetus
from conftest import DT


@pytest.fixture
def scene(small_pile):
    world, ids = small_pile
    world.step(DT, 5)
    return world, ids, world.state_hash()


def still_steps(world, before):
    """The failed call changed nothing: the world steps on as an untouched copy does."""
    twin = impetus.World.from_image(world.save_image())
    world.step(DT, 5)
    twin.step(DT, 5)
    assert world.state_hash() == twin.state_hash()
    assert world.state_hash() != before


NAN_CALLS = [
    ("apply_impulses", "impulses"),
    ("apply_forces", "forces"),
    ("set_linear_velocities", "velocities"),
    ("set_angular_velocities", "velocities"),
    ("set_transforms", "positions"),
]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("method,field", NAN_CALLS)
def test_non_finite_is_a_value_error(scene, method, field, bad):
    world, ids, before = scene
    values = np.zeros((len(ids), 3), np.float32)
    values[7, 1] = bad
    with pytest.raises(ValueError, match=rf"{field}\[7\] is not finite"):
        getattr(world, method)(ids, values)
    still_steps(world, before)


def test_non_finite_scalars_and_vectors(scene):
    world, ids, before = scene
    with pytest.raises(ValueError, match="dt"):
        world.step(float("nan"))
    with pytest.raises(ValueError, match="position"):
        world.create_body(position=(0, float("inf"), 0))
    with pytest.raises(ValueError, match="gravity"):
        world.gravity = (0, float("nan"), 0)
    with pytest.raises(ValueError, match="origins"):
        world.cast_rays([[np.nan, 0, 0]], [[0, -1, 0]])
    with pytest.raises(ValueError, match="positions"):
        world.add_boxes([[0, 1, 0], [0, np.nan, 0]], (0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match="radius"):
        world.add_sphere(int(ids[0]), float("nan"))
    still_steps(world, before)


def test_wrong_shape_names_the_expected_shape(scene):
    world, ids, before = scene
    with pytest.raises(ValueError, match=r"impulses must have shape \(48, 3\), got \(48, 2\)"):
        world.apply_impulses(ids, np.zeros((48, 2)))
    with pytest.raises(ValueError, match=r"impulses must have shape \(48, 3\), got \(3,\)"):
        world.apply_impulses(ids, np.zeros(3))
    with pytest.raises(ValueError, match=r"out must have shape \(49, 3\)"):
        world.positions(out=np.zeros((10, 3), np.float32))
    with pytest.raises(TypeError, match=r"out must be a float32 numpy array of shape \(49, 4\)"):
        world.rotations(out=np.zeros((49, 4), np.float64))
    with pytest.raises(TypeError, match=r"out must be a float32"):
        world.positions(out=[[0.0, 0.0, 0.0]])
    with pytest.raises(TypeError, match=r"impulses must be an array of numbers of shape"):
        world.apply_impulses(ids[:1], [["a", "b", "c"]])
    with pytest.raises(TypeError, match="ids must be an id or a 1-D array of ids"):
        world.positions(np.array([1.5, 2.5]))
    with pytest.raises(ValueError, match=r"ids must have shape \(N,\)"):
        world.positions(np.zeros((2, 2), np.uint64))
    with pytest.raises(ValueError, match=r"half_extents must have shape"):
        world.add_boxes(np.zeros((4, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"positions must have shape \(N, 3\)"):
        world.add_boxes(np.zeros((4, 2)), (0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match=r"triangles must have shape \(T, 3\)"):
        world.add_mesh(world.create_body("static"), np.zeros((3, 3)), [0, 1, 2])
    still_steps(world, before)


def test_bad_values_name_the_field(scene):
    world, ids, _ = scene
    with pytest.raises(ValueError, match="half_extents"):
        world.add_box(int(ids[0]), (0.5, -1, 0.5))
    with pytest.raises(ValueError, match="body_type"):
        world.create_body("floating")
    with pytest.raises(ValueError, match="kind"):
        world.create_joint("weld", int(ids[0]), int(ids[1]), (0, 0, 0))
    with pytest.raises(ValueError, match="friction"):
        world.add_box(int(ids[0]), (1, 1, 1), material=impetus.Material(friction=-1))
    with pytest.raises(ValueError, match="compression"):
        world.save_state(compression=12)
    with pytest.raises(ValueError, match="dynamic bodies only"):
        world.apply_impulses(world.body_ids()[:1], np.ones((1, 3)))


def test_stale_and_foreign_ids_are_key_errors(scene):
    world, ids, before = scene
    gone = int(ids[5])
    world.remove_body(gone)
    other = impetus.World()
    foreign = other.create_body()
    for call in (
        lambda: world.positions([gone]),
        lambda: world.apply_impulses([gone], np.zeros((1, 3))),
        lambda: world.remove_body(gone),
        lambda: world.add_box(gone, (1, 1, 1)),
        lambda: world.body_type(gone),
        lambda: world.create_joint("ball", int(ids[0]), gone, (0, 0, 0)),
        lambda: world.positions([2**40 + 3]),
        lambda: world.positions([-1]),
        lambda: world.remove_shape(12345),
        lambda: world.remove_joint(1),
        lambda: world.set_kinematic_targets([gone], np.zeros((1, 3))),
    ):
        with pytest.raises(KeyError):
            call()
    # An id of another world whose slot this world does not have.
    big = impetus.World()
    for _ in range(60):
        last = big.create_body()
    with pytest.raises(KeyError):
        world.positions([last])
    assert foreign != 0
    with pytest.raises(KeyError, match=r"ids\[1\]"):
        world.apply_impulses([int(ids[0]), gone], np.zeros((2, 3)))
    world.step(DT, 5)


@pytest.mark.parametrize(
    "data",
    [b"", b"IMPI", b"garbage" * 10, b"IMPZ\x10\x00\x00\x00\x00\x00\x00\x00notzlib"],
)
def test_corrupt_images_and_states_are_value_errors(scene, data):
    world, _, before = scene
    with pytest.raises(ValueError, match="image"):
        impetus.World.from_image(data)
    with pytest.raises(ValueError, match="state"):
        world.restore_state(data)
    still_steps(world, before)


def test_flipped_bytes_are_value_errors(scene):
    world, _, before = scene
    image = bytearray(world.save_image())
    state = bytearray(world.save_state())
    rng = np.random.default_rng(3)
    for k in rng.integers(0, len(image), 20):
        bad = bytearray(image)
        bad[k] ^= 0x5A
        with pytest.raises(ValueError):
            impetus.World.from_image(bytes(bad))
    for k in rng.integers(0, len(state), 20):
        bad = bytearray(state)
        bad[k] ^= 0x5A
        with pytest.raises(ValueError):
            world.restore_state(bytes(bad))
    # A state of another world does not fit this one.
    other = impetus.World()
    other.create_body()
    with pytest.raises(ValueError, match="state"):
        world.restore_state(other.save_state())
    still_steps(world, before)


def test_batch_errors(scene):
    world, ids, _ = scene
    batch = impetus.BatchWorld(world, 3, threads=2)
    hashes = batch.state_hashes()
    with pytest.raises(ValueError, match=r"impulses must have shape \(3, 2, 3\)"):
        batch.apply_impulses(ids[:2], np.zeros((2, 2, 3)))
    bad = np.zeros((3, 2, 3), np.float32)
    bad[2, 1, 0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        batch.apply_impulses(ids[:2], bad)
    with pytest.raises(ValueError, match=r"mask must have shape \(3,\)"):
        batch.reset(np.ones(4, bool))
    with pytest.raises(TypeError, match="mask must be a bool array"):
        batch.reset(np.ones(3))
    with pytest.raises(KeyError):
        batch.positions([2**33 + 999])
    with pytest.raises(ValueError, match="kinematic"):
        batch.set_kinematic_targets(ids[:1], np.zeros((3, 1, 3)))
    with pytest.raises(ValueError, match="n must be at least 1"):
        impetus.BatchWorld(world, 0)
    assert (batch.state_hashes() == hashes).all()
    batch.step(DT, 3)
    assert len(set(batch.state_hashes().tolist())) == 1
