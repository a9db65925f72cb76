"""The far-first finder on tight broadcast rows: how far the target set grows.

For each case ``GRAPH/R`` (broadcast from node 0, telephone model) runs
:func:`gossipcert.research.broadcast_far_first.far_first` and prints a Markdown table: the
nodes to inform, the largest target set (farthest nodes first) shown informable in ``R``
rounds, the queries (answered / timed out), the outcome, wall and CPU seconds of this
process. A complete target set is a schedule of ``R`` rounds, verified here by the
simulator and written with ``--schedule-dir`` (``GRAPH-R.json``, checkable with
``gossipcert verify GRAPH FILE -m telephone -p broadcast:0``).

Run with the project's Python, e.g.::

    nice -n 10 .venv/bin/python benchmarks/broadcast_far_first.py --case butterfly:6/10
    nice -n 10 .venv/bin/python benchmarks/broadcast_far_first.py --case butterfly:8/13 \\
        --seconds 600

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Table 4 (broadcasting in four graph classes).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gossipcert.instance import parse_instance
from gossipcert.research.broadcast_far_first import far_first
from gossipcert.schedule import write_schedule
from gossipcert.simulate import simulate


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", nargs="+", default=["butterfly:6/10"], help="GRAPH/R")
    ap.add_argument("--seconds", type=float, default=300.0, help="budget per case")
    ap.add_argument("--step", type=int, default=50, help="largest number of nodes per query")
    ap.add_argument("--step-seconds", type=float, default=60.0, help="limit of one query")
    ap.add_argument("--schedule-dir", type=Path, default=None)
    ap.add_argument("--no-dominance", action="store_true", help="leave dominance out")
    ap.add_argument("--trace", action="store_true", help="print every query")
    args = ap.parse_args(argv)
    print(
        "| graph | R | nodes | largest target set | queries (sat / unknown) | outcome "
        "| wall (s) | CPU (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case in args.case:
        graph, r_text = case.rsplit("/", 1)
        rounds = int(r_text)
        inst = parse_instance(graph, "telephone", "broadcast:0")
        t0, c0 = time.monotonic(), time.process_time()
        trace = None
        if args.trace:
            trace = lambda s, done, asked, answer: print(  # noqa: E731
                f"    {s:7.1f} s: {done} -> {asked}: {answer}", flush=True
            )
        res = far_first(
            inst,
            rounds,
            args.seconds,
            args.step,
            args.step_seconds,
            report=trace,
            dominance=not args.no_dominance,
        )
        outcome = "timeout"
        if res.refuted:
            outcome = "a target set refuted (solver claim)"
        if res.schedule is not None:
            rep = simulate(inst, res.schedule)
            outcome = f"schedule, verified: {rep.ok}, {rep.rounds} rounds"
            if args.schedule_dir is not None and rep.ok:
                args.schedule_dir.mkdir(parents=True, exist_ok=True)
                name = graph.replace(":", "") + f"-{rounds}.json"
                write_schedule(res.schedule, inst, args.schedule_dir / name)
                outcome += f", written to {args.schedule_dir / name}"
        sat = sum(1 for _, answer, _ in res.queries if answer)
        unknown = sum(1 for _, answer, _ in res.queries if answer is None)
        print(
            f"| {graph} | {rounds} | {res.total} | {res.covered} | {sat} / {unknown} | "
            f"{outcome} | {time.monotonic() - t0:.1f} | {time.process_time() - c0:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
