"""The MI250 brackets of ``results/synthesis-scale-2026-11-27.md``, tried again.

For each open cell (AlltoAll on one MI250 chassis with 1 and 2 chunks; AllGather on two
chassis with 1 and 2 chunks; AlltoAll on two chassis, closed by the switch alltoall) the
script prints the closed-form lower bound (:func:`gossipcert.closed_forms.best_lower_bound`),
the schedule of :func:`gossipcert.solve` within ``--time-limit`` and a schedule of fewer
rounds, when one is found, from

- AlltoAll: the integer flow over time of
  :mod:`gossipcert.constructions.destination_flows` (HiGHS), invariant under the machine's
  automorphisms (nauty's generators; order 4 on ``mi250``), for the rounds of the lower
  bound up;
- AllGather: the schedules invariant under a group of automorphisms of
  :mod:`gossipcert.constructions.invariant_allgather` (CP-SAT), for the group of the
  automorphisms that commute with the swap of the two chassis (the swap, and the same
  symmetry of both chassis at once: order 8 on ``mi250:2``), from the lower bound up.

Every schedule is replayed by the verifier and written to ``--out`` as schedule JSON, so
``gossipcert verify GRAPH FILE -m all-port -p PROBLEM`` re-checks it. A schedule that meets
the lower bound certifies the cell; otherwise the bracket narrows by its rounds.

Run::

    nice -n 10 .venv/bin/python benchmarks/mi250_brackets.py --out results/schedules/mi250
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from gossipcert.api import solve
from gossipcert.closed_forms import best_lower_bound
from gossipcert.constructions.destination_flows import destination_flow_alltoall
from gossipcert.constructions.invariant_allgather import (
    chassis_swap_centraliser,
    invariant_allgather,
)
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import Schedule, to_json
from gossipcert.simulate import simulate
from gossipcert.symmetry.automorphisms import automorphism_generators

CELLS = (
    ("mi250", "total-exchange", 1),
    ("mi250", "total-exchange", 2),
    ("mi250:2", "gossip", 1),
    ("mi250:2", "gossip", 2),
    ("mi250:2", "total-exchange", 1),
    ("mi250:2", "total-exchange", 2),
)


def _spec(problem: str, chunks: int) -> str:
    return problem if chunks == 1 else f"{problem}:chunks={chunks}"


def _write(folder: Path, graph: str, problem: str, chunks: int, inst: Instance, s: Schedule) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{graph.replace(':', 'x')}-{problem}-{chunks}chunk-{len(s.rounds)}.json"
    (folder / name).write_text(json.dumps(to_json(s, inst)) + "\n")
    return str(folder / name)


def attempt(
    inst: Instance, problem: str, lower: int, upper: int, args: argparse.Namespace
) -> tuple[Schedule | None, str]:
    """The shortest schedule below ``upper`` rounds found from ``lower`` up, and how."""
    if problem == "total-exchange":
        gens = automorphism_generators(inst)
        for rounds in range(lower, upper):
            s = destination_flow_alltoall(inst, rounds, args.flow_limit, symmetric=gens)
            if s is not None:
                return s, f"destination-flow MILP, invariant under {len(gens)} generators"
        return None, "destination-flow MILP: none below the upper end"
    group = chassis_swap_centraliser(inst)
    if not group:
        return None, "no chassis swap"
    for rounds in range(lower, upper):
        s = invariant_allgather(inst, rounds, group, args.orbit_limit)
        if s is not None:
            return s, f"invariant under {len(group)} automorphisms (CP-SAT)"
    return None, f"no schedule invariant under {len(group)} automorphisms below the upper end"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds for solve")
    parser.add_argument(
        "--flow-limit", type=float, default=900.0, help="seconds for HiGHS, a horizon"
    )
    parser.add_argument(
        "--orbit-limit", type=float, default=300.0, help="seconds for CP-SAT, a horizon"
    )
    parser.add_argument("--out", default="results/schedules/mi250", help="schedule folder")
    args = parser.parse_args()
    one, five, fifteen = os.getloadavg()
    print(f"load average at the start {one:.2f}, {five:.2f}, {fifteen:.2f}", flush=True)
    print("| machine | collective | chunks | lower (closed form) | solve | tried | new | s |")
    print("|---|---|---|---|---|---|---|---|")
    for graph, problem, chunks in CELLS:
        inst = parse_instance(graph, "all-port", _spec(problem, chunks))
        lower = best_lower_bound(inst)
        res = solve(graph, "all-port", _spec(problem, chunks), time_limit=args.time_limit)
        start = time.perf_counter()
        answer = f"[{res.lower}, {res.upper}] {res.upper_source}"
        if res.status.value == "optimal" and res.certified:
            answer = f"**{res.upper}** {res.upper_source}"
        found, how = (None, "-")
        if res.upper is not None and res.upper > max(res.lower or 0, lower.value):
            low = max(res.lower or 0, lower.value)
            found, how = attempt(inst, problem, low, res.upper, args)
        new = "-"
        if found is not None:
            report = simulate(inst, found)
            assert report.valid and report.complete and report.rounds is not None
            path = _write(Path(args.out), graph, problem, chunks, inst, found)
            tag = "certified" if report.rounds == lower.value else "upper"
            new = f"{report.rounds} ({tag}; {path})"
        print(
            f"| {graph} | {problem} | {chunks} | {lower.value} ({lower.name}) | {answer} | "
            f"{how} | {new} | {time.perf_counter() - start:.1f} |",
            flush=True,
        )
    one, five, fifteen = os.getloadavg()
    print(f"load average at the end {one:.2f}, {five:.2f}, {fifteen:.2f}")


if __name__ == "__main__":
    main()
