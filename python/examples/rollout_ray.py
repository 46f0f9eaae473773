"""The process rollout of rollout_processes.py on a Ray cluster, for users who outgrow one
machine. Not run by CI (Ray is not a dependency of impetus): `pip install ray`, then

    python examples/rollout_ray.py [--address auto] [--worlds 64] [--steps 240]

What crosses the wire is each world's image (bytes); Ray ships them to its workers like any
other argument, and the hashes that come back equal those of stepping the worlds at home.
"""

import argparse

import ray

import impetus
from rollout_processes import DT, make_world

import numpy as np


@ray.remote
def rollout(image, steps):
    world = impetus.World.from_image(image)
    world.step(DT, steps)
    return world.state_hash()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default=None, help="a running cluster, or None for a local one")
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--steps", type=int, default=240)
    args = parser.parse_args()
    ray.init(address=args.address)
    worlds = [make_world(kick) for kick in np.linspace(0, 3000, args.worlds)]
    futures = [rollout.remote(w.save_image(compression=6), args.steps) for w in worlds]
    hashes = ray.get(futures)
    for w in worlds:
        w.step(DT, args.steps)
    same = sum(h == w.state_hash() for h, w in zip(hashes, worlds))
    print(f"{same} of {len(worlds)} worlds stepped on the cluster match the local run")


if __name__ == "__main__":
    main()
