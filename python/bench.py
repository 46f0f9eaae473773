"""impetus from Python, beside the Rust figures and rapier's Python bindings.

    python python/bench.py [--steps 200] [--rust PATH_TO_impetus-bench] [--skip-rapier]

Prints, for the `pile` scene of docs/SCENES.md (10,000 unit boxes of 100 kg/m³ in a
20 x 25 x 20 grid, spacing 1.1, lowest layer at y = 1, each tilted by up to 0.05 rad, four
walls, the ground box; gravity -10, sleep off as in impetus-bench):

- the pile stepped from Python (ms/step) and what one `step` call costs the binding
  (an empty world's step through Python, against the Rust pile's ms/step);
- `impetus-bench run pile` in the same run, when the binary is given or found;
- reading the 10,000 positions (µs, into a preallocated array and into a new one);
- 1,024 worlds of 64 bodies: one BatchWorld (1 and 2 threads) and a Python loop over
  1,024 single worlds;
- the same pile through rapier's Python bindings (`pip install rapier3d`), at their
  defaults, and the ratio.

A benchmark, not a test: nothing here asserts a time. The pile's tilts come from numpy's
generator, not impetus-bench's, so the heaps differ in detail, not in size.
"""

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

import impetus

DT = 1.0 / 60.0
ROOT = pathlib.Path(__file__).resolve().parents[1]


def pile_bodies(seed=1):
    """(positions, rotations) of the pile's 10,000 boxes, as docs/SCENES.md describes."""
    nx, ny, nz, spacing = 20, 25, 20, 1.1
    iy, ix, iz = np.meshgrid(np.arange(ny), np.arange(nx), np.arange(nz), indexing="ij")
    x = (ix - 0.5 * (nx - 1)) * spacing
    z = (iz - 0.5 * (nz - 1)) * spacing
    y = 1.0 + iy * spacing
    positions = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(np.float32)
    rng = np.random.default_rng(seed)
    axis = rng.uniform(-1, 1, size=(len(positions), 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(-0.05, 0.05, size=len(positions))
    rotations = np.concatenate(
        [axis * np.sin(angle / 2)[:, None], np.cos(angle / 2)[:, None]], axis=1
    ).astype(np.float32)
    return positions, rotations


# Static boxes: (position, half extents): the ground (top face at y = 0) and four walls.
STATIC = [((0, -1, 0), (20, 1, 20))] + [
    (p, h)
    for s in (-1, 1)
    for p, h in (((15.5 * s, 20, 0), (0.5, 20, 16)), ((0, 20, 15.5 * s), (16, 20, 0.5)))
]


def impetus_pile(workers):
    world = impetus.World(gravity=(0, -10, 0), workers=workers, enable_sleep=False)
    walls = np.array([p for p, _ in STATIC], np.float32)
    halves = np.array([h for _, h in STATIC], np.float32)
    for p, h in zip(walls, halves):
        body = world.create_body("static", position=p)
        world.add_box(body, h)
    positions, rotations = pile_bodies()
    ids = world.add_boxes(positions, (0.5, 0.5, 0.5), rotations,
                          material=impetus.Material(density=100.0, friction=0.6))
    return world, ids


def median_ms(samples):
    return 1e3 * float(np.median(samples))


def time_steps(step, steps):
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    return np.array(times)


def rust_pile(binary, steps, threads):
    """impetus-bench's figures for the pile: ms/step (mean) and the state hash."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "pile.json"
        subprocess.run(
            [binary, "run", "pile", "--steps", str(steps), "--threads", str(threads),
             "--json", str(out)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        return json.loads(out.read_text())


def bench_pile(steps, rust, threads_list):
    print(f"== pile: 10,000 boxes, {steps} steps of 1/60 s, sleep off ==")
    results = {}
    for workers in threads_list:
        world, ids = impetus_pile(workers)
        times = time_steps(lambda: world.step(DT), steps)
        results[workers] = times
        print(f"impetus (Python), {workers} thread(s): {1e3 * times.mean():.2f} ms/step mean, "
              f"{median_ms(times):.2f} median; total {times.sum():.2f} s")
    # What the binding adds to a step: the same call on an empty world.
    empty = impetus.World(workers=1)
    calls = time_steps(lambda: empty.step(DT), 20000)
    overhead_us = 1e6 * float(np.median(calls))
    print(f"one step() call on an empty world through Python: {overhead_us:.2f} µs (median of 20,000)")
    rust_ms = {}
    if rust:
        for workers in threads_list:
            report = rust_pile(rust, steps, workers)
            ms = report["ms_per_step"]
            rust_ms[workers] = ms["mean"]
            print(f"impetus-bench run pile --steps {steps} --threads {workers}: {ms['mean']:.2f} ms/step "
                  f"mean, {ms['median']:.2f} median (state hash {report['state_hash']})")
    # Reading 10,000 positions.
    world, ids = impetus_pile(1)
    world.step(DT, 5)
    out = np.empty((world.body_count, 3), np.float32)
    reads = time_steps(lambda: world.positions(out=out), 2000)
    fresh = time_steps(lambda: world.positions(), 2000)
    subset = time_steps(lambda: world.positions(ids, out=out[: len(ids)]), 2000)
    print(f"positions() of {world.body_count} bodies: {1e6 * np.median(reads):.1f} µs into out=, "
          f"{1e6 * np.median(fresh):.1f} µs new array, {1e6 * np.median(subset):.1f} µs for an id array "
          "(medians of 2,000)")
    return results, overhead_us, rust_ms


def small_world(seed):
    """64 boxes (4 x 4 x 4, spacing 1.1) on a ground box, tilted by the pile's rule."""
    world = impetus.World(gravity=(0, -10, 0), workers=1, enable_sleep=False)
    ground = world.create_body("static", position=(0, -1, 0))
    world.add_box(ground, (10, 1, 10))
    iy, ix, iz = np.meshgrid(np.arange(4), np.arange(4), np.arange(4), indexing="ij")
    p = np.stack([(ix - 1.5) * 1.1, 1.0 + iy * 1.1, (iz - 1.5) * 1.1], axis=-1).reshape(-1, 3)
    rng = np.random.default_rng(seed)
    axis = rng.uniform(-1, 1, size=(64, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(-0.05, 0.05, 64)
    q = np.concatenate([axis * np.sin(angle / 2)[:, None], np.cos(angle / 2)[:, None]], axis=1)
    world.add_boxes(p.astype(np.float32), (0.5, 0.5, 0.5), q.astype(np.float32),
                    material=impetus.Material(density=100.0))
    return world


def bench_many(steps=60, n=1024):
    print(f"== {n} worlds of 64 boxes, {steps} steps ==")
    template = small_world(1)
    for threads in (1, 2):
        batch = impetus.BatchWorld(template, n, threads=threads)
        t = time.perf_counter()
        batch.step(DT, steps)
        dt = time.perf_counter() - t
        out = np.empty((n, 64 + 1, 3), np.float32)
        read = time_steps(lambda: batch.positions(out=out), 50)
        print(f"BatchWorld, {threads} thread(s): {1e3 * dt / steps:.2f} ms per step of all {n} worlds "
              f"({1e6 * dt / steps / n:.1f} µs a world-step); positions() (n, N, 3) {1e3 * np.median(read):.2f} ms")
        hashes = batch.state_hashes()
    worlds = [impetus.World.from_image(template.save_image(), workers=1) for _ in range(n)]
    t = time.perf_counter()
    for _ in range(steps):
        for w in worlds:
            w.step(DT)
    dt = time.perf_counter() - t
    print(f"Python loop over {n} single worlds: {1e3 * dt / steps:.2f} ms per step of all worlds "
          f"({1e6 * dt / steps / n:.1f} µs a world-step)")
    assert all(w.state_hash() == h for w, h in zip(worlds, hashes)), "batch and loop disagree"


def rapier_pile(steps):
    try:
        import rapier3d as r
    except ImportError as e:
        print(f"rapier3d not importable ({e}); pip install rapier3d")
        return None
    world = r.PhysicsWorld(gravity=[0.0, -10.0, 0.0])
    for p, h in STATIC:
        world.add_body(r.RigidBody.fixed().translation(list(map(float, p))),
                       [r.Collider.cuboid(*map(float, h)).friction(0.6)])
    positions, rotations = pile_bodies()
    handles = []
    for p, q in zip(positions, rotations):
        # rapier takes a scaled axis: axis * angle.
        angle = 2 * math.atan2(float(np.linalg.norm(q[:3])), float(q[3]))
        norm = float(np.linalg.norm(q[:3]))
        axis = q[:3] / norm * angle if norm > 0 else np.zeros(3)
        body = (r.RigidBody.dynamic().translation([float(v) for v in p])
                .rotation([float(v) for v in axis]).can_sleep(False))
        handles.append(world.add_body(body, [r.Collider.cuboid(0.5, 0.5, 0.5)
                                             .density(100.0).friction(0.6)]))
    threads = world.num_threads  # a property in rapier3d 0.36
    times = time_steps(world.step, steps)
    bodies = world.rigid_bodies
    t = time.perf_counter()
    for _ in range(20):
        [bodies[h].translation for h in handles]
    read_us = 1e6 * (time.perf_counter() - t) / 20
    print(f"rapier3d (Python) defaults, {threads} thread(s) in its pool: {1e3 * times.mean():.2f} ms/step mean, "
          f"{median_ms(times):.2f} median; reading 10,000 translations body by body: {read_us:.0f} µs")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rust", help="path to impetus-bench (default: look in target dirs)")
    parser.add_argument("--skip-rapier", action="store_true")
    args = parser.parse_args()
    rust = args.rust
    if rust is None:
        for d in (os.environ.get("CARGO_TARGET_DIR"), ROOT / "target"):
            if d and (pathlib.Path(d) / "release" / "impetus-bench").exists():
                rust = str(pathlib.Path(d) / "release" / "impetus-bench")
                break
    print(f"impetus {impetus.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"{os.cpu_count()} cores; impetus-bench: {rust or 'not found (pass --rust)'}")
    cores = os.cpu_count() or 1
    results, overhead_us, rust_ms = bench_pile(args.steps, rust, sorted({1, cores}))
    for workers, ms in rust_ms.items():
        py = 1e3 * results[workers].mean()
        print(f"{workers} thread(s): Python {py:.2f} ms/step vs Rust {ms:.2f} (means): "
              f"{100 * (py / ms - 1):+.1f} %; the call itself {overhead_us:.2f} µs = "
              f"{100 * overhead_us / (1e3 * ms):.4f} % of the Rust step")
    bench_many()
    if not args.skip_rapier:
        times = rapier_pile(args.steps)
        if times is not None:
            ours = results[max(results)]
            print(f"rapier3d / impetus (Python, {max(results)} thread(s)): "
                  f"{times.mean() / ours.mean():.2f}x the time per step")


if __name__ == "__main__":
    main()
