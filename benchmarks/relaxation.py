"""Refutations by the row-and-column relaxation against the full formula.

Two tables, telephone gossip:

- ``refutations`` (default): for the horizons ``R* - 1`` that the search refutes on Beier and
  Sibeyn's Table 5 and 6 graphs (and de Bruijn 6 at 7), the full formula (the standalone CNF
  of ``solve``'s options, CaDiCaL with the DRAT proof on, not checked) beside
  :func:`gossipcert.proofs.relaxation.refute_by_relaxation` (lazy rows and columns, then a
  DRAT proof of the relaxed CNF, checked by every checker): status, seconds, and the rows
  and columns it needed;
- ``--raise GRAPH ...``: from the closed-form lower bound ``L`` upwards, how far the
  relaxation alone raises the lower bound, each horizon within ``--limit`` seconds.

Example::

    nice -n 10 .venv/bin/python benchmarks/relaxation.py --limit 120
    nice -n 10 .venv/bin/python benchmarks/relaxation.py --raise debruijn:7 ccc:5 --limit 60

Timings on a shared machine vary from run to run; quote the command with the figures. Each
line also gives the process's CPU seconds for the cell (``resource.getrusage``).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 5
   and 6.
"""

from __future__ import annotations

import argparse
import resource
import time

from gossipcert.closed_forms import best_lower_bound
from gossipcert.instance import Instance, parse_instance
from gossipcert.proofs.refutation import decide_with_proof
from gossipcert.proofs.relaxation import refute_by_relaxation
from gossipcert.search.outcome import search_options

#: (graph, horizon refuted): R* - 1 of the rows whose evidence is a solver refutation
REFUTATIONS = [
    ("debruijn:3", 3),
    ("debruijn:4", 5),
    ("debruijn:5", 6),
    ("debruijn:6", 7),
    ("ccc:3", 6),
    ("ccc:4", 8),
    ("butterfly:3", 5),
    ("butterfly:4", 6),
    ("star-graph:4", 5),
    ("pancake:5", 7),
]


def cpu() -> float:
    """CPU seconds of this process so far."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def full_formula(inst: Instance, rounds: int, limit: float) -> tuple[str, float, float]:
    """Status, wall and CPU seconds of the full formula with the proof on."""
    c0, t0 = cpu(), time.monotonic()
    options = search_options(inst, "auto", False, False)
    got = decide_with_proof(inst, rounds, options, time.monotonic() + limit)
    return got.result.status, time.monotonic() - t0, cpu() - c0


def relaxed(inst: Instance, rounds: int, limit: float) -> tuple[str, float, float, str]:
    """Status, wall and CPU seconds of the relaxation (proof checked), and its rows and
    columns."""
    c0, t0 = cpu(), time.monotonic()
    out = refute_by_relaxation(inst, rounds, time.monotonic() + limit)
    status = out.status
    if status == "unsat" and out.evidence is None:
        status = "unsat (proof not checked in time)"
    what = f"P={out.rows} Q={out.columns} ({out.iterations} calls)"
    return status, time.monotonic() - t0, cpu() - c0, what


def refutations(limit: float, only: list[str] | None) -> None:
    print(
        "| graph | rounds refuted | full formula | s (CPU) | relaxation | s (CPU) "
        "| rows P, columns Q |"
    )
    print("|---|---|---|---|---|---|---|")
    for graph, rounds in REFUTATIONS:
        if only and graph not in only:
            continue
        inst = parse_instance(graph, "telephone", "gossip")
        fs, fw, fc = full_formula(inst, rounds, limit)
        rs, rw, rc, what = relaxed(inst, rounds, limit)
        print(
            f"| {graph} | {rounds} | {fs} | {fw:.1f} ({fc:.1f}) | {rs} | {rw:.1f} ({rc:.1f}) "
            f"| {what} |",
            flush=True,
        )


def raise_bounds(graphs: list[str], limit: float) -> None:
    print("| graph | closed-form L | horizon | relaxation | s (CPU) | rows P, columns Q |")
    print("|---|---|---|---|---|---|")
    for graph in graphs:
        inst = parse_instance(graph, "telephone", "gossip")
        lb = best_lower_bound(inst)
        r = lb.value
        while True:
            status, wall, cpu_s, what = relaxed(inst, r, limit)
            print(
                f"| {graph} | {lb.value} ({lb.name}) | {r} | {status} | {wall:.1f} "
                f"({cpu_s:.1f}) | {what} |",
                flush=True,
            )
            if status != "unsat":
                break
            r += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per cell")
    ap.add_argument("--only", nargs="*", help="graphs of the refutation table to run")
    ap.add_argument("--raise", dest="graphs", nargs="*", help="raise these lower bounds")
    args = ap.parse_args()
    if args.graphs:
        raise_bounds(args.graphs, args.limit)
    else:
        refutations(args.limit, args.only)


if __name__ == "__main__":
    main()
