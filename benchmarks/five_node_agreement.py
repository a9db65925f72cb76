"""Gossip on every connected 5-node graph: the exact solver against the independent reference.

Usage::

    python benchmarks/five_node_agreement.py                          # every model, both back-ends
    python benchmarks/five_node_agreement.py --models sequential:p=1 --backends cpsat --limit 900

For each model and back-end, each of the 21 connected graphs with 5 nodes is solved by
``gossipcert`` under a hard time limit per graph (the watchdog of ``solve --time-limit``),
with no closed-form lower bound (the solver proves every step, as in
``tests/test_exact_bruteforce_packets.py``) and compared with the reference search of
``tests/packets_reference.py``, which shares no code with the package. Prints one line per
graph that disagrees or is not settled in time, and a summary row per model and back-end
(graphs agreeing, wall seconds, the slowest graph). Exit status 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from packets_reference import optimum
from test_exact_bruteforce_packets import MODELS, cases, project_instance

from gossipcert.watchdog import solve_within


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated models")
    parser.add_argument("--backends", default="sat,cpsat", help="comma-separated back-ends")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per graph")
    args = parser.parse_args()
    graphs = [c for c in cases(5) if c[1] == 5]
    disagreements = 0
    print(f"{'model':16s} {'back-end':8s} {'agree':>7s} {'open':>5s} {'seconds':>8s}  slowest")
    for model in args.models.split(","):
        refs = {index: optimum(n, edges, model, "gossip") for index, n, edges in graphs}
        for backend in args.backends.split(","):
            start = time.monotonic()
            agree, unsettled, slowest = 0, 0, (0.0, -1)
            for index, n, edges in graphs:
                t0 = time.monotonic()
                res = solve_within(
                    project_instance(n, edges, model, "gossip"),
                    backend=backend,
                    time_limit=args.limit,
                    use_bounds=False,
                    proof=False,
                )
                slowest = max(slowest, (time.monotonic() - t0, index))
                if res.status != "optimal":
                    unsettled += 1
                    print(f"  atlas {index}: [{res.lower_bound}, {res.upper_bound}] in time")
                elif res.optimum != refs[index]:
                    disagreements += 1
                    print(f"  atlas {index}: DISAGREE reference {refs[index]} solver {res.optimum}")
                else:
                    agree += 1
            print(
                f"{model:16s} {backend:8s} {agree:>4d}/{len(graphs):<2d} {unsettled:>5d} "
                f"{time.monotonic() - start:>8.1f}  atlas {slowest[1]} ({slowest[0]:.1f} s)",
                flush=True,
            )
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
