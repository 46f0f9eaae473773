#!/usr/bin/env python3
"""Compares builds of impetus-bench on one scene, runs alternated (A B A B ...).

    tools/ab.py SCENE STEPS THREADS REPS BIN [BIN ...] [--env NAME=VALUE@K ...]

Each repetition runs `BIN run SCENE --steps STEPS --threads THREADS` once per binary, in
the order given, so that a busy host's swings fall on every build alike. It prints, per
binary, the minimum and the median over the repetitions of the step's median and of each
stage median (read from the JSON that `run --json` writes), and the state hash each run
ended with: builds that are meant to compute the same thing must print the same hash (the
script says so when they differ).

`--env NAME=VALUE@K` sets an environment variable for binary K only (0-based), for one
build switched by a variable. The timing figures are for the comparison only; quoted
figures come from `impetus-bench compare` on an idle machine.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile


def measure(cmd, env):
    """The step median, the stage medians and the state hash of one `run`, from the JSON
    it writes (`--json`)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.json")
        out = subprocess.run(cmd + ["--json", path], env=env, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"ab.py: {' '.join(cmd)} failed:\n{out.stderr}")
        with open(path) as f:
            r = json.load(f)
    return r["ms_per_step"]["median"], r["stages"], r["state_hash"]


def main(argv):
    envs, args = {}, []
    it = iter(argv)
    for a in it:
        if a == "--env":
            spec = next(it, None)
            if spec is None or "=" not in spec or "@" not in spec:
                sys.exit("ab.py: --env takes NAME=VALUE@K")
            assign, k = spec.rsplit("@", 1)
            name, value = assign.split("=", 1)
            envs.setdefault(int(k), {})[name] = value
        else:
            args.append(a)
    if len(args) < 5:
        sys.exit(__doc__)
    scene, steps, threads, reps = args[0], args[1], args[2], int(args[3])
    bins = args[4:]
    for k in envs:
        if not 0 <= k < len(bins):
            sys.exit(f"ab.py: --env names binary {k}, but there are {len(bins)}")
    runs = [[] for _ in bins]
    for rep in range(max(reps, 1)):
        for k, b in enumerate(bins):
            env = dict(os.environ, **envs.get(k, {}))
            cmd = [b, "run", scene, "--steps", steps, "--threads", threads]
            runs[k].append(measure(cmd, env))
            print(f"rep {rep + 1} bin {k}: {runs[k][-1][0]:.3f} ms/step", file=sys.stderr)
    names = []
    for r in runs:
        for _, stages, _ in r:
            names += [n for n in stages if n not in names]
    width = max(len(n) for n in ["step"] + names)
    print(f"{scene}, {steps} steps, {threads} thread(s), {reps} alternated rep(s); "
          "each cell: min / median (ms)")
    print(" " * width + "".join(f"  {f'bin {k}':>17}" for k in range(len(bins))))

    def row(name, pick):
        cells = []
        for r in runs:
            xs = [pick(x) for x in r if pick(x) is not None]
            cells.append(f"{min(xs):8.3f} /{statistics.median(xs):8.3f}" if xs else "-")
        print(f"{name:<{width}}" + "".join(f"  {c:>17}" for c in cells))

    row("step", lambda x: x[0])
    for n in names:
        row(n, lambda x, n=n: x[1].get(n))
    hashes = [sorted({x[2] for x in r}) for r in runs]
    for k, (b, h) in enumerate(zip(bins, hashes)):
        print(f"bin {k}: {b}: hash {', '.join(h)}")
    if len({tuple(h) for h in hashes}) > 1 or any(len(h) > 1 for h in hashes):
        print("the state hashes differ")


if __name__ == "__main__":
    main(sys.argv[1:])
