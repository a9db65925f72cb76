"""Schedules invariant under a group of automorphisms for the open cells of the pipelined
table: broadcasts of 32 and 64 chunks on hypercubes and tori, allgathers on two MI250s.

For each cell of :data:`CELLS` the script takes the closed-form lower bound ``L``
(:func:`gossipcert.closed_forms.best_lower_bound`) and asks
:func:`gossipcert.constructions.invariant_allgather.invariant_allgather` (CP-SAT, one
variable an orbit) for a schedule of ``L``, ``L + 1``, ... rounds, up to one round fewer
than the table's schedule, invariant under

- broadcast on ``hypercube:d``: the rotation of the coordinates (``v -> 2 v mod 2^d``, the
  top bit to the bottom), of order ``d``, which fixes the root 0 and turns its ``d`` links;
  the chunks are turned with it, ``k -> k + q`` on the first ``d q`` chunks
  (``q = floor(K / d)``), the others fixed;
- broadcast on ``hypercube:d`` where ``d`` does not divide the chunks: the exchange of the
  coordinates ``0 <-> 1``, ``2 <-> 3``, ... (order 2), with the two halves of the chunks;
- broadcast on ``torus:axa``: the quarter turn ``(i, j) -> (j, -i)`` about the root 0,
  with the chunks turned the same way (``d = 4``);
- broadcast on ``mi250:2``: the automorphisms that fix the root (those of the other
  chassis, order 4), every chunk to itself;
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
    group_elements,
    invariant_allgather,
)
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import to_json
from gossipcert.simulate import simulate
from gossipcert.symmetry.automorphisms import automorphism_generators

#: (graph, collective, chunks, the most rounds tried: one fewer than the table's schedule,
#: the group: "turn", "swap", "root" or "chassis")
CELLS: tuple[tuple[str, str, int, int, str], ...] = (
    ("hypercube:4", "broadcast", 32, 11, "turn"),
    ("torus:4x4", "broadcast", 32, 11, "turn"),
    ("hypercube:3", "broadcast", 32, 13, "swap"),
    ("torus:8x8", "broadcast", 32, 15, "turn"),
    ("hypercube:5", "broadcast", 64, 17, "swap"),
    ("hypercube:6", "broadcast", 64, 16, "swap"),
    ("hypercube:4", "broadcast", 64, 19, "turn"),
    ("torus:4x4", "broadcast", 64, 19, "turn"),
    ("torus:8x8", "broadcast", 64, 23, "turn"),
    ("mi250:2", "broadcast", 32, 11, "root"),
    ("mi250:2", "allgather", 1, 7, "chassis"),
    ("mi250:2", "allgather", 2, 10, "chassis"),
)
PROBLEMS = {"broadcast": "broadcast:0", "allgather": "gossip"}


def swap(graph: str, inst: Instance) -> tuple[list[int], list[int]]:
    """The exchange of coordinates ``0 <-> 1``, ``2 <-> 3``, ... of a hypercube and of the
    chunk halves (module docstring)."""
    n, k = inst.n, inst.n_packets
    d = int(graph.split(":")[1])
    nodes = []
    for v in range(n):
        w = v
        for i in range(0, d - 1, 2):
            a, b = (v >> i) & 1, (v >> (i + 1)) & 1
            w = (w & ~(3 << i)) | (b << i) | (a << (i + 1))
        nodes.append(w)
    h = k // 2
    chunks = [(c + h) % (2 * h) if c < 2 * h else c for c in range(k)]
    return nodes, chunks


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
    parser.add_argument("--limit", type=float, default=150.0, help="seconds a horizon")
    parser.add_argument("--graphs", nargs="*", help="only these graphs")
    parser.add_argument("--collectives", nargs="*", help="only these collectives")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    one, five, fifteen = os.getloadavg()
    print(f"load average at the start {one:.2f}, {five:.2f}, {fifteen:.2f}", flush=True)
    print("| graph | collective | K | lower | group | rounds tried | found | s |")
    print("|---|---|---|---|---|---|---|---|")
    for graph, collective, chunks, most, kind in CELLS:
        if (args.graphs and graph not in args.graphs) or (
            args.collectives and collective not in args.collectives
        ):
            continue
        spec = PROBLEMS[collective] + ("" if chunks == 1 else f",chunks={chunks}")
        spec = spec.replace("gossip,", "gossip:")
        inst = parse_instance(graph, "all-port", spec)
        lower = best_lower_bound(inst).value
        if kind in ("turn", "swap"):
            nodes, packets = (turn if kind == "turn" else swap)(graph, inst)
            gens, maps = [nodes], [packets]
            group = "turn about the root" if kind == "turn" else "coordinate pairs exchanged"
        elif kind == "root":
            every = group_elements(automorphism_generators(inst), inst.n)
            gens, maps = [list(h) for h in every if h[0] == 0], None
            group = f"the {len(gens)} automorphisms that fix the root"
        else:
            elements = chassis_swap_centraliser(inst)
            gens, maps, group = [list(h) for h in elements], None, "chassis swap centraliser"
        start = time.perf_counter()
        found = None
        tried = []
        for rounds in range(lower, most + 1):
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
