"""Does ``--time-limit`` hold? The overshoot of ``gossipcert solve`` on eleven instances.

Each instance is solved by the ``gossipcert`` command in a fresh process with a time limit;
the wall-clock time of the whole process (start-up, imports, bounds, constructions, encoding,
search, proof and its checks, output) is compared with the limit. An instance that finishes
before its limit has no overshoot (its status says why it ended). The goal: every overshoot
within 5 % of the limit or 5 s.

Run with the project's Python, e.g. ``nice -n 10 .venv/bin/python benchmarks/time_limits.py``
(``--scale 0.5`` halves every limit). Timings on a busy machine vary; rerun to compare.

``--python`` solves each instance from Python instead, as the first ``gossipcert.solve(...,
time_limit=T)`` of a fresh process, timed from just before that statement (which loads
gossipcert's solvers, seconds on a busy machine) to its return, as a notebook's user times it;
``load`` is the loading alone, measured in the same process before the clock of the limit
(the call's limit counts it).

A limit also holds *inside* the search: each query of the SAT back-end gets a slice of time
(a 30 s probe at ``U - 1``, say), kept by CaDiCaL's conflict-budget slices. ``--probes``
measures that part on its own: the CNF of a large instance at one horizon, one query with a
deadline, in the slice mode of a ``solve`` with a time limit (long slices, as in the
watchdog's child). The row gives the formula's size, the first slice (conflicts), the
number of slices, the conflict rate measured, and the query's overshoot of its deadline;
``old first slice`` is how long the former fixed first slice of 20,000 conflicts would last
at the measured rate (projected, not run).
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
    ("butterfly:10", "telephone", "broadcast:0", 120.0),
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


#: the first call of a fresh process, timed as its user times it (``--python``)
_FIRST_CALL = """
import json, sys, time
t0 = time.monotonic()
import gossipcert
solve = gossipcert.solve
t1 = time.monotonic()
res = solve(sys.argv[1], sys.argv[2], sys.argv[3], time_limit=float(sys.argv[4]))
t2 = time.monotonic()
print(json.dumps([t2 - t0, t1 - t0, res.status.value, res.lower, res.upper]))
"""


def run_python(graph: str, model: str, problem: str, limit: float) -> tuple[float, float, str]:
    """Wall seconds of the first ``gossipcert.solve`` of a fresh process (the loading of the
    API included), the loading alone, and the status."""
    cmd = [sys.executable, "-c", _FIRST_CALL, graph, model, problem, str(limit)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        wall, load, status, low, high = json.loads(out.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError, ValueError):
        return float("nan"), float("nan"), f"exit {out.returncode}: {out.stderr.strip()[-80:]}"
    return wall, load, f"{status} [{low}, {high}]"


def first_calls(scale: float) -> None:
    """Print the table of ``--python``."""
    print(f"{'instance':52} {'limit':>7} {'load':>6} {'wall':>7} {'over':>7}  status")
    worst = 0.0
    for graph, model, problem, limit in SUITE:
        limit *= scale
        wall, load, status = run_python(graph, model, problem, limit)
        over = max(0.0, wall - limit)
        worst = max(worst, over)
        ok = over <= max(5.0, 0.05 * limit)
        print(
            f"{graph + ' ' + model + ' ' + problem:52} {limit:>6.0f}s {load:>5.1f}s "
            f"{wall:>6.1f}s {over:>6.1f}s  {status}{'' if ok else '  OVER'}",
            flush=True,
        )
    print(f"largest overshoot: {worst:.1f}s")


# (graph, problem, horizon, seconds): one query, telephone model, as in ``solve``'s probes
PROBES = [
    ("butterfly:10", "broadcast:0", 16, 30.0),
    ("butterfly:8", "broadcast:0", 13, 30.0),
    ("debruijn:7", "gossip", 9, 30.0),
]


def probe(
    graph: str, problem: str, horizon: int, seconds: float, fixed_first: bool = False
) -> dict[str, float | str]:
    """One query of ``horizon`` rounds with a deadline ``seconds`` away, in long slices
    (``fixed_first``: the former first slice of 20,000 conflicts, for comparison)."""
    from gossipcert.encodings import encoding_for
    from gossipcert.instance import parse_instance
    from gossipcert.search.outcome import search_options
    from gossipcert.solvers import backends

    inst = parse_instance(graph, "telephone", problem)
    t0 = time.monotonic()
    enc = encoding_for(inst, search_options(inst, "auto", False, False))
    enc.extend_to(horizon)
    sat = backends.SatBackend(enc.formula)
    sat._sync()
    build = time.monotonic() - t0
    clauses = sat.solver.nof_clauses()
    first = backends.FIRST_BUDGET if fixed_first else backends.first_budget(clauses)
    ticks: list[float] = []
    backends.allow_long_slices(True)
    start_budget = backends._start_budget
    if fixed_first:
        backends._start_budget = lambda solver: backends.FIRST_BUDGET  # type: ignore[assignment]
    try:
        t1 = time.monotonic()
        deadline = t1 + seconds
        status = sat.solve([enc.selector(horizon)], deadline, None, lambda: ticks.append(0.0))
        wall = time.monotonic() - t1
    finally:
        backends.allow_long_slices(False)
        backends._start_budget = start_budget  # type: ignore[assignment]
    stats = sat.solver.accum_stats() or {}
    conflicts = float(stats.get("conflicts", 0))
    rate = conflicts / max(wall, 1e-3)
    sat.close()
    return {
        "build": build,
        "clauses": clauses,
        "first": first,
        "slices": len(ticks) + (status.value != "unknown"),
        "rate": rate,
        "wall": wall,
        "over": max(0.0, wall - seconds),
        "old": backends.FIRST_BUDGET / rate if rate > 0 else float("nan"),
        "status": status.value,
    }


def probes(scale: float, fixed_first: bool = False) -> None:
    """Print the table of :data:`PROBES`."""
    print(
        f"{'query':34} {'clauses':>9} {'build':>6} {'deadline':>8} {'first':>6} "
        f"{'slices':>6} {'confl/s':>8} {'wall':>7} {'over':>6}  {'old first slice':>15}  status"
    )
    for graph, problem, horizon, seconds in PROBES:
        seconds *= scale
        r = probe(graph, problem, horizon, seconds, fixed_first)
        name = f"{graph} {problem} r={horizon}"
        ok = float(r["over"]) <= max(5.0, 0.05 * seconds)
        print(
            f"{name:34} {r['clauses']:>9} {r['build']:>5.0f}s {seconds:>7.0f}s {r['first']:>6} "
            f"{r['slices']:>6} {r['rate']:>8.0f} {r['wall']:>6.1f}s {r['over']:>5.1f}s  "
            f"{r['old']:>14.0f}s  {r['status']}{'' if ok else '  OVER'}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every limit")
    ap.add_argument(
        "--probes", action="store_true", help="only the single-query table (slices in a search)"
    )
    ap.add_argument(
        "--fixed-first",
        action="store_true",
        help="with --probes: the former fixed first slice of 20,000 conflicts, for comparison",
    )
    ap.add_argument(
        "--python",
        action="store_true",
        help="the first gossipcert.solve(..., time_limit=T) of a fresh Python process instead",
    )
    args = ap.parse_args()
    if args.python:
        first_calls(args.scale)
        return
    if args.probes:
        probes(args.scale, args.fixed_first)
        return
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
