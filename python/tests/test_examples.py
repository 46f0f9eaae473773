"""The examples a user copies run as shipped."""

import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).parents[1] / "examples"


def test_process_rollout_matches_home():
    out = subprocess.run(
        [sys.executable, "rollout_processes.py", "--worlds", "4", "--steps", "60"],
        cwd=EXAMPLES, capture_output=True, text=True, check=True,
    ).stdout
    assert out.startswith("4 of 4 worlds"), out


def test_scripted_pusher_reaches_goals():
    out = subprocess.run(
        [sys.executable, "push_box.py"], cwd=EXAMPLES, capture_output=True, text=True, check=True
    ).stdout
    reached = int(out.split(":")[1].split()[0])
    assert reached > 0, out
