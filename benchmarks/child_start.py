"""Start-to-answer time of one child process, for one tree or several side by side.

Usage: .venv/bin/python benchmarks/child_start.py [--runs 20] [TREE_OR_REV ...]

Each argument is a checkout's root or a git revision of this repository (extracted as
``benchmarks/codebase_measures.py`` does; default: ``main`` and this checkout). For each, a
fresh process with the tree first on ``PYTHONPATH`` imports the solver stack
(``gossipcert.watchdog``, so that the parent is as large as a command's), then times
``call_in_child(lambda send: 42, (), None)`` ``--runs`` times, from the call to the answer
(fork, the child's start, its message through the pipe, and the kill that follows); the
table gives the median, the fastest and the slowest, in milliseconds.

Times depend on the machine and its load: compare trees measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codebase_measures import _checkout

REPO = Path(__file__).resolve().parents[1]

#: run in the tree: the times of the calls, in seconds, as JSON
PROBE = """
import json, sys, time
import gossipcert.watchdog
from gossipcert.children import call_in_child
times = []
for _ in range(int(sys.argv[1])):
    t0 = time.perf_counter()
    assert call_in_child(lambda send: 42, (), None) == ("result", 42)
    times.append(time.perf_counter() - t0)
print(json.dumps([gossipcert.__file__, times]))
"""


def measure(root: Path, runs: int) -> list[float]:
    """The start-to-answer seconds of ``runs`` children in a fresh process of the tree."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(runs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=True,
    )
    ran, times = json.loads(out.stdout)
    if not Path(ran).is_relative_to(root):  # another copy would be measured
        raise SystemExit(f"{root}: python imports {ran}, not the tree's own gossipcert")
    return [float(t) for t in times]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=["main", str(REPO)], metavar="TREE_OR_REV")
    parser.add_argument("--runs", type=int, default=20, help="children timed (median)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gossipcert-child-start-") as scratch:
        for spec in args.trees:
            root, label = _checkout(spec, Path(scratch))
            ms = [1000 * t for t in measure(root, args.runs)]
            rows.append((label, statistics.median(ms), min(ms), max(ms)))
    width = max(len(r[0]) for r in [*rows, ("tree", 0, 0, 0)])
    print(f"{'tree'.ljust(width)} | median ms | fastest ms | slowest ms  ({args.runs} children)")
    for label, median, fastest, slowest in rows:
        print(f"{label.ljust(width)} | {median:9.1f} | {fastest:10.1f} | {slowest:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
