#!/usr/bin/env python3
"""Where in a run each engine spends its time: step windows side by side.

    tools/phases.py [--window N] RUN.json [RUN.json ...]

Each file is what `impetus-bench run SCENE --engine E --json RUN.json` writes; its
`step_ms` holds every step's ms. For each window of N steps (25 unless given) the script
prints each run's median ms/step and the first run's median over the fastest of the
others (the ratio `compare` makes of the whole run's medians, made window by window).
The runs should be of one scene and step count; the ratio of runs made at different
times mixes in the host's swings, so run the engines one after another (or alternated,
several times) and read only what the windows agree on.
"""

import json
import statistics
import sys


def main(args):
    window = 25
    if args[:1] == ["--window"]:
        window, args = int(args[1]), args[2:]
    if window < 1 or not args:
        sys.exit(__doc__)
    runs = []
    for path in args:
        with open(path) as f:
            r = json.load(f)
        steps = r.get("step_ms") or []
        if not steps:
            sys.exit(f"{path}: no `step_ms` (written by an older impetus-bench?)")
        runs.append((f"{r['engine']} ({r['threads']}t)", steps))
    n = min(len(s) for _, s in runs)
    names = [name for name, _ in runs]
    width = max(12, *(len(x) for x in names))
    print("steps".ljust(9) + "".join(x.rjust(width + 2) for x in names) + "   ratio")
    for a in range(0, n, window):
        medians = [statistics.median(s[a : min(a + window, n)]) for _, s in runs]
        ratio = medians[0] / min(medians[1:]) if len(medians) > 1 else float("nan")
        row = f"{a}-{min(a + window, n) - 1}".ljust(9)
        row += "".join(f"{m:.3f}".rjust(width + 2) for m in medians)
        print(row + f"   {ratio:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
