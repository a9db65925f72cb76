"""The cut lower bound: its value and its time on instances of a few hundred nodes.

``gossipcert bounds`` and ``gossipcert solve`` evaluate the cut bound on every all-port or
packet-capped instance, over ``n`` single-node cuts, the bridges and about ``n * diameter``
balls, so its cost per cut decides whether a mid-size instance starts at once. Each row
builds a fresh instance (no cached facts) and times :func:`gossipcert.closed_forms.cut_bound`
alone.

Run with the project's Python, e.g. ``nice -n 10 .venv/bin/python benchmarks/cut_bound.py``;
``--rows debruijn:7`` keeps the rows whose graph starts with that text. Timings on a busy
machine vary; rerun to compare.
"""

from __future__ import annotations

import argparse
import time

from gossipcert.closed_forms import cut_bound
from gossipcert.instance import parse_instance

# (graph, model, problem)
SUITE = [
    ("mesh:10x10", "telephone:p=1", "gossip"),
    ("fattree:32", "all-port", "total-exchange"),
    ("debruijn:7", "single-port:p=2", "gossip"),
    ("ccc:5", "all-port", "gossip"),
    ("debruijn:5", "all-port:c=2", "gossip"),
    ("star:5", "all-port:c=2", "gossip"),
    ("butterfly:6", "single-port:p=2", "gossip"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="*", default=None, help="graph prefixes to keep")
    args = parser.parse_args()
    print("| graph | model | problem | n | cut bound | seconds |")
    print("|---|---|---|---|---|---|")
    for graph, model, problem in SUITE:
        if args.rows and not any(graph.startswith(r) for r in args.rows):
            continue
        instance = parse_instance(graph, model, problem)
        start = time.perf_counter()
        bound = cut_bound(instance)
        seconds = time.perf_counter() - start
        value = "-" if bound is None else str(bound.value)
        print(f"| {graph} | {model} | {problem} | {instance.n} | {value} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
