"""Does ``--time-limit`` hold? The overshoot of ``gossipcert solve`` on ten instances.

Each instance is solved by the ``gossipcert`` command in a fresh process with a time limit;
the wall-clock time of the whole process (start-up, imports, bounds, constructions, encoding,
search, proof and its checks, output) is compared with the limit. An instance that finishes
before its limit has no overshoot (its status says why it ended). The goal: every overshoot
within 5 % of the limit or 5 s.

Run with the project's Python, e.g. ``nice -n 10 .venv/bin/python benchmarks/time_limits.py``
(``--scale 0.5`` halves every limit). Timings on a busy machine vary; rerun to compare.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# (graph, model, problem, time limit in seconds)
SUITE = [
    ("petersen", "half-duplex", "gossip", 10.0),
    ("ccc:5", "telephone", "gossip", 20.0),
    ("butterfly:5", "telephone", "gossip", 20.0),
    ("debruijn:6", "telephone", "gossip", 20.0),
    ("star-graph:5", "telephone", "gossip", 20.0),
    ("shuffle-exchange:7", "telephone", "gossip", 20.0),
    ("debruijn:7", "telephone", "gossip", 30.0),
    ("hypercube:10", "half-duplex", "broadcast:0", 20.0),
    ("torus:32x32", "telephone", "broadcast:0", 30.0),
    ("random:1000,3000,seed=1", "telephone", "broadcast:0", 30.0),
]


def run(graph: str, model: str, problem: str, limit: float) -> tuple[float, str]:
    """Wall seconds of one ``gossipcert solve`` process, and its status."""
    exe = Path(sys.executable).with_name("gossipcert")
    cmd = [str(exe), "solve", graph, "-m", model, "-p", problem, "-t", str(limit), "--json"]
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    try:
        data = json.loads(out.stdout)
        status = f"{data['status']} [{data['lower_bound']}, {data['upper_bound']}]"
    except (json.JSONDecodeError, KeyError):
        status = f"exit {out.returncode}: {out.stderr.strip()[-80:]}"
    return wall, status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every limit")
    args = ap.parse_args()
    print(f"{'instance':52} {'n':>5} {'limit':>7} {'wall':>7} {'over':>7} {'over%':>6}  status")
    from gossipcert.instance import parse_instance

    worst = 0.0
    for graph, model, problem, limit in SUITE:
        limit *= args.scale
        n = parse_instance(graph, model, problem).n
        wall, status = run(graph, model, problem, limit)
        over = max(0.0, wall - limit)
        ok = over <= max(5.0, 0.05 * limit)
        worst = max(worst, over)
        name = f"{graph} {model} {problem}"
        print(
            f"{name:52} {n:>5} {limit:>6.0f}s {wall:>6.1f}s {over:>6.1f}s "
            f"{100 * over / limit:>5.1f}%  {status}{'' if ok else '  OVER'}"
        )
    print(f"largest overshoot: {worst:.1f}s")


if __name__ == "__main__":
    main()
