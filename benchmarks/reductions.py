"""Reduce, reduce-scatter and allreduce optima beside the classical allreduce algorithms.

For rings 4..8 and DGX-1 (all-port, one chunk per link and direction per round, two on the
DGX-1's double NVLinks), ``hub:4..8`` (single-port on ``K_N``: each node sends one chunk
and receives one per round) and the stars ``star:4..5`` (single-port: every chunk passes
the center twice), with 1 and 2 chunks per node's block, the table gives the
optimum of ``reduce:0``, ``reduce-scatter`` and ``allreduce`` found by ``solve`` (reduce and
reduce-scatter by time reversal of broadcast and gossip, allreduce by its bracket and the
SAT model with DRAT proofs), each marked with how its lower bound is known:

- ``c``: certified (a closed-form bound or a checked DRAT proof, of the instance or of its
  dual / sub-problem);
- ``s``: a solver's word only (no proof);
- ``[L, U]``: not decided within the time limit.

Beside them, the step counts of the classical allreduce algorithms on ``n`` nodes: the ring
algorithm (reduce-scatter then allgather around a ring, ``2 (n - 1)`` steps of one chunk of
``n`` per node, so ``2 K (n - 1)`` rounds of one chunk when each of the ``n`` blocks is ``K``
chunks) and recursive halving then doubling (``2 log2 n`` steps for ``n`` a power of two, but
its first step sends half the data: in rounds of one chunk per link it takes
``2 K (n - 1)`` as well).

Run::

    nice -n 10 .venv/bin/python benchmarks/reductions.py --time-limit 30 \\
        --output results/reductions-2026-11-27b.md

References
----------
.. [1] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19, 2005 (ring and recursive halving/doubling allreduce).
.. [2] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", JPDC 69, 2009 (the ring allreduce).
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from pathlib import Path

from gossipcert.errors import GossipcertError
from gossipcert.instance import parse_instance
from gossipcert.watchdog import solve_within

GRAPHS = [
    *[(f"ring:{n}", "all-port") for n in range(4, 9)],
    *[(f"hub:{n}", "single-port") for n in range(4, 9)],
    *[(f"star:{n}", "single-port") for n in range(4, 6)],
    ("dgx1", "all-port"),
]
PROBLEMS = ("reduce:0", "reduce-scatter", "allreduce")


def cell(graph: str, model: str, problem: str, chunks: int, limit: float) -> tuple[str, float]:
    """The table cell of one instance and the seconds it took."""
    sep = "," if ":" in problem else ":"
    spec = problem + (f"{sep}chunks={chunks}" if chunks > 1 else "")
    start = time.monotonic()
    try:
        res = solve_within(parse_instance(graph, model, spec), time_limit=limit)
    except GossipcertError as exc:
        return f"error: {exc}", time.monotonic() - start
    seconds = time.monotonic() - start
    if res.status == "optimal":
        return f"{res.optimum} {'c' if res.certified else 's'}", seconds
    return f"[{res.lower_bound}, {res.upper_bound}]", seconds


def classical(n: int, chunks: int) -> tuple[str, str]:
    """Ring and recursive halving/doubling allreduce: steps (rounds of one chunk)."""
    ring = f"{2 * (n - 1)} ({2 * chunks * (n - 1)})"
    power = n & (n - 1) == 0
    rhd = f"{2 * int(math.log2(n))} ({2 * chunks * (n - 1)})" if power else "-"
    return ring, rhd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per search")
    ap.add_argument("--only", help="comma-separated graph specs to run (default: all)")
    ap.add_argument("--output", help="write the Markdown page here")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    header = (
        "| graph | model | K | reduce:0 | reduce-scatter | allreduce | ring steps (rounds) "
        "| halving/doubling steps (rounds) | seconds |"
    )
    lines = [header, "|" + "---|" * 9]
    print(header, flush=True)
    for graph, model in GRAPHS:
        if only is not None and graph not in only:
            continue
        n = parse_instance(graph, model, "gossip").n
        for chunks in (1, 2):
            cells, total = [], 0.0
            for problem in PROBLEMS:
                text, seconds = cell(graph, model, problem, chunks, args.time_limit)
                cells.append(text)
                total += seconds
            ring, rhd = classical(n, chunks)
            row = f"| {graph} | {model} | {chunks} | " + " | ".join(cells)
            row += f" | {ring} | {rhd} | {total:.1f} |"
            lines.append(row)
            print(row, flush=True)
    if args.output:
        note = (
            f"Machine: {platform.machine()}, Python {platform.python_version()}; "
            f"time limit {args.time_limit:g} s per search."
        )
        Path(args.output).write_text("\n".join([*lines, "", note]) + "\n")


if __name__ == "__main__":
    main()
