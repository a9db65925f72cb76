"""Schedules invariant under a group of automorphisms for the open cells of the pipelined
table: broadcasts of 32 and 64 chunks on hypercubes and tori, allgathers on two MI250s.

For each cell of :data:`CELLS` the script takes the closed-form lower bound ``L``
(:func:`gossipcert.closed_forms.best_lower_bound`) and asks
:func:`gossipcert.constructions.invariant_allgather.invariant_allgather` (CP-SAT, one
variable an orbit) for a schedule of ``L``, ``L + 1``, ... rounds, up to ``--most`` more,
invariant under

- broadcast on ``hypercube:d``: the rotation of the coordinates (``v -> 2 v mod 2^d``, the
  top bit to the bottom), of order ``d``, which fixes the root 0 and turns its ``d`` links;
  the chunks are turned with it, ``k -> k + q`` on the first ``d q`` chunks
  (``q = floor(K / d)``), the others fixed;
- broadcast on ``torus:axa``: the quarter turn ``(i, j) -> (j, -i)`` about the root 0,
  with the chunks turned the same way (``d = 4``);
- allgather on ``mi250:2``: the 8 automorphisms that commute with the exchange of the two
  chassis (:func:`~gossipcert.constructions.invariant_allgather.chassis_swap_centraliser`).

Each schedule found is replayed by the verifier and written to ``--out`` as
``GRAPH-MODEL-COLLECTIVE-K.json``, the name ``benchmarks/pipelined.py --schedules`` reads:
the table then starts those cells from the stored schedule, and a cell is certified when the
schedule meets a lower bound. ``gossipcert verify GRAPH FILE -m all-port -p PROBLEM --chunks
K`` re-checks any of them. An invariant search that finds nothing says nothing about the
instance.

Run::

    nice -n 10 .venv/bin/python benchmarks/pipelined_invariant.py \\
        --out results/schedules/pipelined
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from gossipcert.closed_forms import best_lower_bound
from gossipcert.constructions.invariant_allgather import (
    chassis_swap_centraliser,
    invariant_allgather,
)
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import to_json
from gossipcert.simulate import simulate

#: (graph, collective, chunks)
CELLS: tuple[tuple[str, str, int], ...] = (
    ("torus:4x4", "broadcast", 32),
    ("torus:4x4", "broadcast", 64),
    ("torus:8x8", "broadcast", 32),
    ("torus:8x8", "broadcast", 64),
    ("hypercube:3", "broadcast", 32),
    ("hypercube:4", "broadcast", 32),
    ("hypercube:4", "broadcast", 64),
    ("hypercube:5", "broadcast", 64),
    ("hypercube:6", "broadcast", 64),
    ("mi250:2", "allgather", 1),
    ("mi250:2", "allgather", 2),
)
PROBLEMS = {"broadcast": "broadcast:0", "allgather": "gossip"}


def turn(graph: str, inst: Instance) -> tuple[list[int], list[int]]:
    """The rotation about node 0 and its chunk map (module docstring)."""
    n, k = inst.n, inst.n_packets
    if graph.startswith("hypercube:"):
        d = int(graph.split(":")[1])
        nodes = [((v << 1) | (v >> (d - 1))) & (n - 1) for v in range(n)]
    else:
        a = int(graph.split(":")[1].split("x")[0])
        d = 4
        nodes = [(j % a) * a + (-i % a) for i in range(a) for j in range(a)]
    q = k // d
    chunks = [(c + q) % (d * q) if c < d * q else c for c in range(k)]
    return nodes, chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/schedules/pipelined", help="folder")
    parser.add_argument("--limit", type=float, default=240.0, help="seconds a horizon")
    parser.add_argument("--most", type=int, default=1, help="horizons above the bound")
    parser.add_argument("--graphs", nargs="*", help="only these graphs")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    one, five, fifteen = os.getloadavg()
    print(f"load average at the start {one:.2f}, {five:.2f}, {fifteen:.2f}", flush=True)
    print("| graph | collective | K | lower | group | rounds tried | found | s |")
    print("|---|---|---|---|---|---|---|---|")
    for graph, collective, chunks in CELLS:
        if args.graphs and graph not in args.graphs:
            continue
        spec = PROBLEMS[collective] + ("" if chunks == 1 else f",chunks={chunks}")
        spec = spec.replace("gossip,", "gossip:")
        inst = parse_instance(graph, "all-port", spec)
        lower = best_lower_bound(inst).value
        if collective == "broadcast":
            nodes, packets = turn(graph, inst)
            gens, maps, group = [nodes], [packets], "turn about the root"
        else:
            elements = chassis_swap_centraliser(inst)
            gens, maps, group = [list(h) for h in elements], None, "chassis swap centraliser"
        start = time.perf_counter()
        found = None
        tried = []
        for rounds in range(lower, lower + args.most + 1):
            tried.append(rounds)
            found = invariant_allgather(inst, rounds, gens, args.limit, packet_maps=maps)
            if found is not None:
                break
        got = "-"
        if found is not None:
            report = simulate(inst, found)
            assert report.valid and report.complete and report.rounds is not None
            name = f"{graph.replace(':', '')}-all-port-{collective}-{chunks}.json"
            (out / name).write_text(json.dumps(to_json(found, inst)) + "\n")
            got = f"{report.rounds} ({'= bound' if report.rounds == lower else 'upper'})"
        print(
            f"| {graph} | {collective} | {chunks} | {lower} | {group} | "
            f"{', '.join(map(str, tried))} | {got} | {time.perf_counter() - start:.1f} |",
            flush=True,
        )
    one, five, fifteen = os.getloadavg()
    print(f"load average at the end {one:.2f}, {five:.2f}, {fifteen:.2f}")


if __name__ == "__main__":
    main()
