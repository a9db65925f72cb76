"""Time ``gossipcert graph`` end to end (a fresh process each) on large graphs; print a table.

Usage: .venv/bin/python benchmarks/graph.py [SPEC ...]

Run it with the Python of the environment gossipcert is installed in (the project's
``.venv``); the command is looked up next to that Python. Each row is the wall-clock time of
``gossipcert graph SPEC --json`` (start-up, building the graph, diameter and radius) and what
it printed: the diameter and radius, or their bounds when the eccentricity searches did not
settle them. Target: under 2 s for every built-in family up to 100,000 nodes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

DEFAULT = ["mesh:300x300", "random:100000,300000,seed=1", "hypercube:16", "torus:300x300"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=DEFAULT, help="graph specs")
    args = parser.parse_args()
    command = Path(sys.executable).with_name("gossipcert")
    header = f"{'graph':<30}{'n':>9}{'m':>9}{'diameter':>12}{'radius':>12}{'seconds':>9}"
    print(header)
    print("-" * len(header))
    for spec in args.specs:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [str(command), "graph", spec, "--json"], capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            print(f"{spec:<30} failed: {proc.stderr.strip()}")
            continue
        info = json.loads(proc.stdout)

        def shown(key: str, info: dict = info) -> str:
            if info.get(key) is not None:
                return str(info[key])
            low, high = info[f"{key}_bounds"]
            return f"{low}..{high}"

        print(
            f"{spec:<30}{info['n']:>9}{info['m']:>9}{shown('diameter'):>12}"
            f"{shown('radius'):>12}{seconds:>9.2f}"
        )


if __name__ == "__main__":
    main()
