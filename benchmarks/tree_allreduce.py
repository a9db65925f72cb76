"""Tree-packing allreduce: the two CP-SAT models of the packing, at fixed horizons.

For each instance and horizon ``R`` the table gives what
:func:`gossipcert.finders.tree_allreduce.pack` answers with the time-indexed model and with
the scheduling model of :mod:`gossipcert.finders.tree_intervals` (where it applies: the
one-port models with ``p = 1``), on one core, and the seconds taken. ``infeasible`` means no
*tree-shaped* schedule of ``R`` rounds, not a lower bound. The instances are the allreduce
cases with two chunks that the five-node agreement sweep left open (graph atlas indices)
and the DGX-1.

Run::

    nice -n 5 .venv/bin/python benchmarks/tree_allreduce.py --seconds 20

References
----------
.. [1] R. C. Read and R. J. Wilson, "An Atlas of Graphs", Oxford University Press, 1998
   (the graphs' numbering, as in ``networkx.graph_atlas``).
.. [2] Z. Cai et al., "Synthesizing optimal collective algorithms", PPoPP 2021 (the DGX-1).
"""

from __future__ import annotations

import argparse

import networkx as nx

from gossipcert.finders import tree_intervals
from gossipcert.finders.tree_allreduce import pack
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem

#: (graph, model, horizons): atlas indices as numbers
CASES: list[tuple[str | int, str, tuple[int, ...]]] = [
    (30, "single-port:p=1", (33, 32)),
    (35, "single-port:p=1", (23, 22)),
    (36, "single-port:p=1", (23,)),
    (43, "all-port", (8,)),
    ("dgx1", "all-port", (6, 5)),
]


def instance_of(graph: str | int, model: str) -> Instance:
    """The allreduce with two chunks on ``graph`` (an atlas index or a graph spec)."""
    if isinstance(graph, str):
        return parse_instance(graph, model, "allreduce:chunks=2")
    g = from_networkx(nx.graph_atlas(graph))
    g.graph["spec"] = f"atlas:{graph}"
    return make_instance(g, parse_model(model), parse_problem("allreduce:chunks=2"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="CP-SAT's limit per cell")
    args = ap.parse_args()
    free = (0, 1, 2)
    heads = " | ".join(f"one shape + {j} free" for j in free)
    limit = f"(limit {args.seconds:g} s)"
    print(f"| instance | model | R | time-indexed | scheduling | {heads} |  {limit}")
    print("|---|---|---|---|---|" + "---|" * len(free))
    for graph, model, horizons in CASES:
        inst = instance_of(graph, model)
        name = f"atlas {graph}" if isinstance(graph, int) else graph
        for rounds in horizons:
            cells = []
            for scheduling in (False, True):
                if scheduling and not tree_intervals.handles(inst):
                    cells.append("-")
                    continue
                found = pack(inst, rounds, args.seconds, 1, scheduling=scheduling)
                cells.append(f"{found.status} {found.seconds:.1f} s")
            for j in free:
                found = pack(inst, rounds, args.seconds, 1, uniform=j)
                cells.append(f"{found.status} {found.seconds:.1f} s")
            print(f"| {name} | {model} | {rounds} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
