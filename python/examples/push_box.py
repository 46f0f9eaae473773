"""Push a box to a goal with a kinematic pusher: a Gymnasium environment on impetus.

``PushBoxEnv`` is one world; ``PushBoxVectorEnv`` is N environments in one
``impetus.BatchWorld``, stepped together across a thread pool (one world per task), with
``reset(mask)`` putting finished environments back to the start. A member of the vector
environment sees exactly what a ``PushBoxEnv`` fed the same actions sees: the batch gives
bit-identical physics.

Observation (8 float32): pusher x, z; box x, z; box velocity x, z; goal x, z.
Action (2 float32 in [-1, 1]): the pusher's velocity along x and z, times 2 m/s.
Reward: the box's progress towards the goal (m) per step, plus 1 on reaching it (within
0.15 m, which ends the episode); episodes are cut at 300 steps (10 s).

Run ``python examples/push_box.py`` for a scripted pusher on 64 environments.
"""

import numpy as np
import gymnasium as gym
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

import impetus

DT = 1.0 / 60.0
SUBSTEPS = 2  # physics steps per action: 30 actions a second
SPEED = 2.0  # m/s at full action
ARENA = 4.0  # the pusher stays within |x|, |z| <= ARENA
GOAL_RADIUS = 2.5
REACHED = 0.15
MAX_STEPS = 300
PUSHER_Y = 0.2


def build_world():
    """The scene: a ground plane, a 0.5 m box of 10 kg at the origin, a kinematic pusher
    1 m to its left. Returns (world, box id, pusher id)."""
    world = impetus.World(workers=1)
    ground = world.create_body("static")
    world.add_plane(ground, material=impetus.Material(friction=0.5))
    box = world.create_body(position=(0, 0.25, 0))
    world.add_box(box, (0.25, 0.25, 0.25), material=impetus.Material(density=80, friction=0.5))
    pusher = world.create_body("kinematic", position=(-1.0, PUSHER_Y, 0))
    world.add_box(pusher, (0.1, 0.2, 0.3))
    world.step(DT, 30)  # the box settles before the template is taken
    return world, box, pusher


def observe(positions, velocities, goals):
    """Observations from positions (n, 2, 3) of [box, pusher], velocities (n, 2, 3), goals
    (n, 2)."""
    box, pusher = positions[:, 0], positions[:, 1]
    return np.concatenate(
        [pusher[:, [0, 2]], box[:, [0, 2]], velocities[:, 0][:, [0, 2]], goals], axis=1
    ).astype(np.float32)


def random_goals(rng, n):
    angle = rng.uniform(0, 2 * np.pi, n)
    radius = rng.uniform(1.0, GOAL_RADIUS, n)
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1).astype(np.float32)


def pusher_targets(pusher_xz, actions):
    """Where each pusher lands after one physics step at the actions' velocities."""
    step = np.clip(actions, -1, 1) * SPEED * DT
    xz = np.clip(pusher_xz + step, -ARENA, ARENA)
    return np.stack([xz[:, 0], np.full(len(xz), PUSHER_Y), xz[:, 1]], axis=1).astype(np.float32)


# Positions stay within the arena and the box moves at walking speed: ±10 bounds all.
OBSERVATION = spaces.Box(-10.0, 10.0, shape=(8,), dtype=np.float32)
ACTION = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)


class PushBoxEnv(gym.Env):
    """One world: push the box to the goal."""

    metadata = {"render_modes": []}

    def __init__(self):
        self.world, self.box, self.pusher = build_world()
        self.ids = np.array([self.box, self.pusher], np.uint64)
        self.start = self.world.save_state()
        self.observation_space = OBSERVATION
        self.action_space = ACTION
        self.goal = np.zeros(2, np.float32)
        self.steps = 0

    def _obs(self):
        p = self.world.positions(self.ids)[None]
        v = self.world.linear_velocities(self.ids)[None]
        return observe(p, v, self.goal[None])[0]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.world.restore_state(self.start)
        self.goal = random_goals(self.np_random, 1)[0]
        self.steps = 0
        return self._obs(), {}

    def step(self, action):
        before = np.linalg.norm(self._obs()[2:4] - self.goal)
        action = np.asarray(action, np.float32).reshape(1, 2)
        for _ in range(SUBSTEPS):
            xz = self.world.positions([self.pusher])[:, [0, 2]]
            self.world.set_kinematic_targets([self.pusher], pusher_targets(xz, action))
            self.world.step(DT)
        obs = self._obs()
        after = np.linalg.norm(obs[2:4] - self.goal)
        self.steps += 1
        terminated = bool(after < REACHED)
        reward = float(before - after) + (1.0 if terminated else 0.0)
        return obs, reward, terminated, self.steps >= MAX_STEPS, {}


class PushBoxVectorEnv(VectorEnv):
    """N environments in one BatchWorld; finished ones restart on the next step
    (Gymnasium's next-step autoreset)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs, threads=0):
        world, self.box, self.pusher = build_world()
        self.ids = np.array([self.box, self.pusher], np.uint64)
        self.batch = impetus.BatchWorld(world, num_envs, threads=threads)
        self.num_envs = num_envs
        self.single_observation_space = OBSERVATION
        self.single_action_space = ACTION
        self.observation_space = gym.vector.utils.batch_space(OBSERVATION, num_envs)
        self.action_space = gym.vector.utils.batch_space(ACTION, num_envs)
        self.goals = np.zeros((num_envs, 2), np.float32)
        self.steps = np.zeros(num_envs, np.int64)
        self.restart = np.zeros(num_envs, bool)
        self._positions = np.zeros((num_envs, 2, 3), np.float32)
        self._velocities = np.zeros((num_envs, 2, 3), np.float32)

    def _obs(self):
        self.batch.positions(self.ids, out=self._positions)
        self.batch.linear_velocities(self.ids, out=self._velocities)
        return observe(self._positions, self._velocities, self.goals)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.batch.reset()
        self.goals = random_goals(self.np_random, self.num_envs)
        self.steps[:] = 0
        self.restart[:] = False
        return self._obs(), {}

    def step(self, actions):
        actions = np.asarray(actions, np.float32).reshape(self.num_envs, 2)
        before = np.linalg.norm(self._obs()[:, 2:4] - self.goals, axis=1)
        for _ in range(SUBSTEPS):
            xz = self.batch.positions([self.pusher])[:, 0, [0, 2]]
            targets = pusher_targets(xz, actions)
            self.batch.set_kinematic_targets([self.pusher], targets[:, None, :])
            self.batch.step(DT)
        restart = self.restart
        if restart.any():
            # Next-step autoreset: these worlds went back to the start instead of stepping.
            self.batch.reset(restart)
            self.goals[restart] = random_goals(self.np_random, int(restart.sum()))
            self.steps[restart] = 0
        obs = self._obs()
        after = np.linalg.norm(obs[:, 2:4] - self.goals, axis=1)
        self.steps += ~restart
        terminated = (after < REACHED) & ~restart
        truncated = (self.steps >= MAX_STEPS) & ~restart
        reward = np.where(restart, 0.0, before - after + terminated).astype(np.float32)
        self.restart = terminated | truncated
        return obs, reward, terminated, truncated, {}


def scripted_actions(obs):
    """Drive the pusher to the far side of the box from the goal, then through the box."""
    pusher, box, goal = obs[:, 0:2], obs[:, 2:4], obs[:, 6:8]
    heading = goal - box
    heading /= np.linalg.norm(heading, axis=1, keepdims=True) + 1e-6
    behind = box - heading * 0.45
    lined_up = np.linalg.norm(pusher - behind, axis=1, keepdims=True) < 0.1
    aim = np.where(lined_up, goal, behind)
    return np.clip((aim - pusher) * 3.0, -1, 1).astype(np.float32)


if __name__ == "__main__":
    envs = PushBoxVectorEnv(64)
    obs, _ = envs.reset(seed=0)
    successes = 0
    for _ in range(MAX_STEPS):
        obs, reward, terminated, truncated, _ = envs.step(scripted_actions(obs))
        successes += int(terminated.sum())
    print(f"scripted pusher: {successes} goals reached by 64 environments in {MAX_STEPS} steps")
