"""Fan worlds out to processes by their images, and get the same hashes back as stepping
them at home.

    python examples/rollout_processes.py [--worlds 16] [--steps 240] [--workers 2]

Each job is a world's image (a few hundred KB, or less with compression=) plus the steps
to take; a worker rebuilds the world with World.from_image, steps it and returns its state
hash and final positions. The same jobs stepped in this process give the same hashes, bit
for bit: images carry everything a world steps on.
"""

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import impetus

DT = 1.0 / 60.0


def make_world(kick):
    """A stack of eight boxes, the top one kicked sideways with `kick` N·s."""
    world = impetus.World(workers=1)
    ground = world.create_body("static")
    world.add_plane(ground)
    positions = np.array([[0, 0.5 + 1.02 * i, 0] for i in range(8)], np.float32)
    ids = world.add_boxes(positions, (0.5, 0.5, 0.5))
    world.apply_impulses(ids[-1:], [[kick, 0, 0]])
    return world


def rollout(image, steps):
    """Runs in a worker process."""
    world = impetus.World.from_image(image)
    world.step(DT, steps)
    return world.state_hash(), world.positions()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--steps", type=int, default=240)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    worlds = [make_world(kick) for kick in np.linspace(0, 3000, args.worlds)]
    images = [w.save_image(compression=6) for w in worlds]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        remote = list(pool.map(rollout, images, [args.steps] * len(images)))
    for w in worlds:
        w.step(DT, args.steps)
    same = sum(h == w.state_hash() for (h, _), w in zip(remote, worlds))
    print(f"{same} of {len(worlds)} worlds stepped in other processes end on the hash of "
          f"the same world stepped here (images of {min(map(len, images))}-"
          f"{max(map(len, images))} bytes, zlib level 6)")
    assert same == len(worlds)


if __name__ == "__main__":
    main()
