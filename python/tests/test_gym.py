"""The Gymnasium example: the single environment passes Gymnasium's checker; the vector
environment (one BatchWorld) keeps its spaces, autoresets, and its members see what a
single environment fed the same actions sees."""

import importlib.util
import pathlib

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "push_box", pathlib.Path(__file__).parents[1] / "examples" / "push_box.py"
)
push_box = importlib.util.module_from_spec(spec)
spec.loader.exec_module(push_box)


def test_single_env_passes_the_checker():
    check_env(push_box.PushBoxEnv(), skip_render_check=True)


def test_vector_env_spaces_and_steps():
    envs = push_box.PushBoxVectorEnv(8, threads=2)
    obs, info = envs.reset(seed=1)
    assert obs.shape == (8, 8) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    for _ in range(20):
        obs, reward, terminated, truncated, _ = envs.step(envs.action_space.sample())
        assert obs.shape == (8, 8) and reward.shape == (8,)
        assert terminated.dtype == bool and truncated.dtype == bool
        assert np.isfinite(obs).all()


def test_vector_member_matches_a_single_env():
    envs = push_box.PushBoxVectorEnv(4, threads=2)
    single = push_box.PushBoxEnv()
    obs, _ = envs.reset(seed=3)
    one, _ = single.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = rng.uniform(-1, 1, size=(4, 2)).astype(np.float32)
        actions[2] = [1.0, 0.0]  # member 2 drives straight at the box
        obs, _, terminated, truncated, _ = envs.step(actions)
        one, _, done, cut, _ = single.step(actions[2])
        # Physics (pusher, box, box velocity) bit for bit; the goals are drawn apart.
        np.testing.assert_array_equal(obs[2, :6], one[:6])
        if terminated[2] or truncated[2] or done or cut:
            break
    # The pusher reached the box and moved it along +x.
    assert one[2] > 0.2


def test_vector_autoreset_restarts_finished_worlds():
    envs = push_box.PushBoxVectorEnv(2, threads=1)
    obs0, _ = envs.reset(seed=5)
    envs.steps[1] = push_box.MAX_STEPS - 1
    _, _, terminated, truncated, _ = envs.step(np.ones((2, 2), np.float32))
    assert truncated.tolist() == [False, True]
    obs, reward, terminated, truncated, _ = envs.step(np.ones((2, 2), np.float32))
    # World 1 went back to the start (goal redrawn); world 0 kept moving.
    np.testing.assert_array_equal(obs[1, :6], obs0[1, :6])
    assert reward[1] == 0 and not truncated[1]
    assert not np.array_equal(obs[0, :2], obs0[0, :2])
