"""Physics through the Python API: what the bodies do, measured against closed forms."""

import math

import numpy as np
import pytest

import impetus
from conftest import DT, box_grid


def test_thousand_boxes_rest_at_the_right_height():
    # 25 x 20 columns of two unit boxes (1,000 bodies), dropped from 2 cm gaps: after 3 s
    # every box rests on the one below, its centre at 0.5 m or 1.5 m, upright and still.
    # The contacts are soft springs: a resting contact keeps the overlap its load
    # compresses it by (WorldDef::linear_slop's docs), under a millimetre at the ground
    # and a few millimetres between boxes.
    world, ids, start = box_grid(25, 2, 20)
    world.step(DT, 180)
    p = world.positions(ids)
    layer = np.round((start[:, 1] - 0.52) / 1.05)
    assert np.abs(p[layer == 0, 1] - 0.5).max() < 0.002, "a bottom box is off 0.5 m"
    assert np.abs(p[layer == 1, 1] - 1.5).max() < 0.008, "a top box is off 1.5 m"
    # Columns stand: no box drifted sideways by more than 2 cm.
    assert np.abs(p[:, [0, 2]] - start[:, [0, 2]]).max() < 0.02
    v = world.linear_velocities(ids)
    assert np.linalg.norm(v, axis=1).max() < 0.01
    # Upright: the box's y axis stays within ~3 degrees of vertical.
    q = world.rotations(ids)
    up_y = 1 - 2 * (q[:, 0] ** 2 + q[:, 2] ** 2)
    assert up_y.min() > math.cos(math.radians(3))


def test_free_fall_follows_gravity():
    world = impetus.World(gravity=(0, -9.81, 0))
    ball = world.create_body(position=(0, 100, 0), linear_velocity=(3, 0, 0))
    world.add_sphere(ball, 0.5)
    world.step(DT, 60)
    # One second of semi-implicit Euler at 4 substeps: y = 100 - g t² / 2 within the
    # scheme's O(h) term, x = 3 m exactly.
    (x, y, _), = world.positions([ball])
    assert y == pytest.approx(100 - 9.81 / 2, abs=0.05)
    assert x == pytest.approx(3.0, abs=1e-4)
    assert world.linear_velocities([ball])[0, 1] == pytest.approx(-9.81, abs=1e-3)


def test_pendulum_keeps_its_period():
    # A sphere of radius r on a rigid distance joint of length L from a static pivot: a
    # physical pendulum, T = 2π sqrt((L² + 2/5 r²) / (g L)) for small swings.
    L, r, g = 2.0, 0.1, 9.81
    world = impetus.World(enable_sleep=False)
    pivot = world.create_body("static", position=(0, 5, 0))
    angle = 0.1
    bob_at = (L * math.sin(angle), 5 - L * math.cos(angle), 0)
    bob = world.create_body(position=bob_at)
    world.add_sphere(bob, r)
    world.create_joint("distance", pivot, bob, (0, 5, 0), anchor_b=bob_at)
    xs = []
    for _ in range(1200):
        world.step(1 / 120)
        xs.append(world.positions([bob])[0, 0])
    xs = np.array(xs)
    # Upward zero crossings of x give the period (three of them in 10 s).
    t = np.arange(1, len(xs) + 1) / 120
    up = np.where((xs[:-1] < 0) & (xs[1:] >= 0))[0]
    crossings = t[up] + (0 - xs[up]) / (xs[up + 1] - xs[up]) / 120
    assert len(crossings) >= 3
    period = np.diff(crossings).mean()
    expected = 2 * math.pi * math.sqrt((L * L + 0.4 * r * r) / (g * L))
    assert period == pytest.approx(expected, rel=0.01)


def test_ray_finds_the_top_of_a_resting_box():
    world, ids, _ = box_grid(1, 3, 1)
    world.step(DT, 120)
    hits = world.cast_rays([[0, 10, 0], [5, 10, 0]], [[0, -1, 0], [0, -1, 0]])
    assert hits["hit"].tolist() == [True, True]
    # The top box's face at y = 3, then the ground at y = 0.
    assert hits["distance"][0] == pytest.approx(7.0, abs=0.01)
    assert hits["body"][0] == ids[2]
    assert hits["distance"][1] == pytest.approx(10.0, abs=1e-4)
    miss = world.cast_rays([[0, 10, 0]], [[0, 1, 0]])
    assert not miss["hit"][0] and miss["body"][0] == 0 and np.isnan(miss["point"][0]).all()


def test_sensor_sees_a_falling_ball():
    world = impetus.World()
    ground = world.create_body("static")
    world.add_plane(ground)
    gate = world.create_body("static", position=(0, 2, 0))
    sensor = world.add_box(gate, (1, 0.1, 1), sensor=True)
    ball = world.create_body(position=(0, 4, 0))
    world.add_sphere(ball, 0.25)
    entered = left = None
    for k in range(120):
        world.step(DT)
        begin, end = world.sensor_begin_events(), world.sensor_end_events()
        if len(begin["sensor"]) and entered is None:
            entered = k
            assert begin["sensor"][0] == sensor and begin["visitor_body"][0] == ball
        if len(end["sensor"]) and left is None:
            left = k
    # It reaches the gate's top (y = 2.1 + 0.25) after sqrt(2 * 1.65 / g) = 0.58 s.
    assert entered is not None and left is not None and entered < left
    assert entered * DT == pytest.approx(math.sqrt(2 * 1.65 / 9.81), abs=0.05)


def test_hinge_motor_spins_up_at_its_torque_then_holds_its_speed():
    # A solid sphere (I = 2/5 m r²) on a hinge motor limited to 100 N·m accelerates at
    # τ / I until it turns at the motor's 2 rad/s.
    world = impetus.World(gravity=(0, 0, 0), enable_sleep=False)
    base = world.create_body("static")
    wheel = world.create_body(position=(0, 0, 0))
    world.add_sphere(wheel, 0.5)
    world.create_joint("hinge", base, wheel, (0, 0, 0), axis=(0, 0, 1), motor=(2.0, 100.0))
    mass = world.body_mass(wheel)
    assert mass == pytest.approx(1000 * 4 / 3 * math.pi * 0.125, rel=1e-4)
    inertia = 0.4 * mass * 0.25
    world.step(DT, 30)
    w = world.angular_velocities([wheel])[0]
    assert w[2] == pytest.approx(100 / inertia * 0.5, rel=0.01)
    world.step(DT, 150)
    w = world.angular_velocities([wheel])[0]
    assert w[2] == pytest.approx(2.0, rel=1e-3)
    assert abs(w[0]) < 1e-4 and abs(w[1]) < 1e-4


def test_motor_joint_drives_a_body_to_its_target_under_gravity():
    # A 125 kg box on a motor joint at its centre first holds where it was made (against
    # gravity), then moves to a target 1 m up and turned 90° about z, and rests there.
    world = impetus.World(enable_sleep=False)
    base = world.create_body("static", position=(0, 5, 0))
    box = world.create_body(position=(0, 5, 0))
    world.add_box(box, (0.25, 0.25, 0.25))
    motor = world.create_joint(
        "motor", base, box, (0, 5, 0), max_force=1e4, max_torque=1e4, correction=0.3
    )
    world.step(DT, 60)
    assert np.allclose(world.positions([box])[0], (0, 5, 0), atol=2e-3)
    half = math.sqrt(0.5)
    world.set_motor_target(motor, (0, 1, 0), (0, 0, half, half))
    world.step(DT, 240)
    assert np.allclose(world.positions([box])[0], (0, 6, 0), atol=5e-3)
    q = world.rotations([box])[0]
    assert abs(abs(q[2]) - half) < 5e-3 and abs(abs(q[3]) - half) < 5e-3
    assert np.linalg.norm(world.linear_velocities([box])[0]) < 1e-2
    # A weak motor cannot hold the box: it sags under its weight (1,226 N > 100 N).
    world.set_motor_target(motor, (0, 1, 0))
    weak = world.create_joint("motor", base, box, (0, 6, 0), max_force=100.0, max_torque=1e4)
    world.remove_joint(motor)
    world.step(DT, 60)
    assert world.positions([box])[0][1] < 5.5
    # Bad input names its field; a target for a joint that is not a motor is refused.
    with pytest.raises(ValueError, match="max_force"):
        world.create_joint("motor", base, box, (0, 5, 0), max_force=-1.0)
    with pytest.raises(ValueError, match="correction"):
        world.create_joint("motor", base, box, (0, 5, 0), correction=2.0)
    hinge = world.create_joint("hinge", base, box, (0, 5, 0))
    with pytest.raises(ValueError, match="not a motor"):
        world.set_motor_target(hinge, (0, 1, 0))
    with pytest.raises(ValueError):
        world.set_motor_target(weak, (0, float("nan"), 0))


def test_height_field_and_mesh_hold_boxes():
    world = impetus.World()
    field = world.create_body("static", position=(-5, 0, -5))
    world.add_height_field(field, np.zeros((11, 11), np.float32), scale=(1, 1, 1))
    slab = world.create_body("static", position=(20, 0, 0))
    world.add_mesh(
        slab,
        [[-2, 0, -2], [2, 0, -2], [2, 0, 2], [-2, 0, 2]],
        [[0, 2, 1], [0, 3, 2]],
    )
    on_field = world.create_body(position=(0, 1, 0))
    world.add_box(on_field, (0.5, 0.5, 0.5))
    on_mesh = world.create_body(position=(20, 1, 0))
    world.add_hull(on_mesh, [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    world.step(DT, 120)
    y = world.positions([on_field, on_mesh])[:, 1]
    np.testing.assert_allclose(y, [0.5, 0.5], atol=0.01)
