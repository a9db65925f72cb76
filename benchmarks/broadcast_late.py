"""The fewest-late finder on open broadcast rows: how fast the uninformed nodes go to zero.

For each graph (broadcast from node 0, telephone model) and horizon ``R``, the best schedule
of the search's upper-bound step (constructions and heuristics) is cut after round ``R`` and
handed to :func:`gossipcert.research.broadcast_late.fewest_late`, which minimises the nodes left
uninformed. Prints a Markdown table: the start schedule's length and source, the nodes it
leaves after ``R`` rounds, then each improvement (seconds: nodes left), the end result,
wall and CPU seconds of this process. A final count of 0 is a schedule of ``R`` rounds,
verified here by the simulator.

Run with the project's Python, e.g.::

    nice -n 10 .venv/bin/python benchmarks/broadcast_late.py --case debruijn:8/10 --seconds 300
    nice -n 10 .venv/bin/python benchmarks/broadcast_late.py --case butterfly:8/13 --seconds 600

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Table 4 (broadcasting in four graph classes).
"""

from __future__ import annotations

import argparse
import time

from gossipcert.instance import parse_instance
from gossipcert.research.broadcast_late import fewest_late
from gossipcert.schedule import Schedule
from gossipcert.search.rounds import upper_bound_schedules
from gossipcert.simulate import simulate


def start_schedule(graph: str, rounds: int) -> tuple[Schedule, int, str]:
    """The shortest verified schedule of the search's upper-bound step."""
    inst = parse_instance(graph, "telephone", "broadcast:0")
    best: tuple[Schedule, int, str] | None = None
    for name, sched in upper_bound_schedules(inst, rounds):
        rep = simulate(inst, sched)
        if rep.ok and rep.rounds is not None and (best is None or rep.rounds < best[1]):
            best = (sched, rep.rounds, name)
        if best is not None and best[1] <= rounds:
            break
    if best is None:
        raise SystemExit(f"no schedule for {graph}")
    return best


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", nargs="+", default=["debruijn:8/10"], help="GRAPH/R")
    ap.add_argument("--seconds", type=float, default=300.0)
    args = ap.parse_args(argv)
    print(
        "| graph | R | start | left at start | improvements (s: left) | left | wall (s) | CPU (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case in args.case:
        graph, r_text = case.rsplit("/", 1)
        rounds = int(r_text)
        inst = parse_instance(graph, "telephone", "broadcast:0")
        t0, c0 = time.monotonic(), time.process_time()
        start, length, source = start_schedule(graph, rounds)
        cut = simulate(inst, Schedule(start.rounds[:rounds]))
        steps: list[str] = []
        res = fewest_late(
            inst,
            rounds,
            start,
            args.seconds,
            report=lambda s, left, steps=steps: steps.append(f"{s:.0f}: {left}"),
        )
        left = str(res.late)
        if res.late == 0 and res.schedule is not None:
            rep = simulate(inst, res.schedule)
            left = f"0 (verified: {rep.ok}, {rep.rounds} rounds)"
        print(
            f"| {graph} | {rounds} | {length} ({source}) | {len(cut.unmet)} | "
            f"{', '.join(steps) or '-'} | {left} | {time.monotonic() - t0:.1f} | "
            f"{time.process_time() - c0:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
