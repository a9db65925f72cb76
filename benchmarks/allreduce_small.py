"""Allreduce on every connected graph of a few nodes: what ``solve`` certifies in a time limit.

For each connected graph of networkx's graph atlas with the given numbers of nodes, and 1
and 2 chunks per node, the table gives ``solve``'s answer for allreduce (``redop=sum``)
under the given model: the optimum or the bracket ``[L, U]`` left at the time limit, the
source of the lower bound, the closed bounds, and the seconds taken. The last line counts
the instances left open.

Run::

    nice -n 5 .venv/bin/python benchmarks/allreduce_small.py --time-limit 20 --nodes 4,5

References
----------
.. [1] R. C. Read and R. J. Wilson, "An Atlas of Graphs", Oxford University Press, 1998
   (the graphs' numbering, as in ``networkx.graph_atlas``).
"""

from __future__ import annotations

import argparse
import time

import networkx as nx

from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import make_instance, parse_model, parse_problem
from gossipcert.search.entry import solve


def atlas_graph(index: int) -> nx.Graph:
    """Graph ``index`` of the atlas as a gossipcert graph (named ``atlas:index``)."""
    g = from_networkx(nx.graph_atlas(index))
    g.graph["spec"] = f"atlas:{index}"
    return g


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per solve")
    ap.add_argument("--nodes", default="4,5", help="comma-separated numbers of nodes")
    ap.add_argument("--model", default="single-port:p=1")
    args = ap.parse_args()
    sizes = {int(x) for x in args.nodes.split(",")}
    print("| atlas | n | m | K | answer | lower bound from | closed bounds | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    open_cases = total = 0
    for index, g in enumerate(nx.graph_atlas_g()):
        if g.number_of_nodes() not in sizes or not nx.is_connected(g):
            continue
        for k in (1, 2):
            problem = parse_problem("allreduce" + (f":chunks={k}" if k > 1 else ""))
            inst = make_instance(atlas_graph(index), parse_model(args.model), problem)
            start = time.monotonic()
            res = solve(inst, proof=False, time_limit=args.time_limit)
            seconds = time.monotonic() - start
            ev = res.evidence
            bracket = ev.get("bracket", ev)
            source = ev["kind"] if ev["kind"] != "allreduce-bracket" else ev["source"]
            bounds = ", ".join(f"{k2} {v}" for k2, v in bracket.get("bounds", {}).items())
            if res.status == "optimal":
                answer = str(res.optimum)
            else:
                answer = f"[{res.lower_bound}, {res.upper_bound}]"
                open_cases += 1
            total += 1
            print(
                f"| {index} | {g.number_of_nodes()} | {g.number_of_edges()} | {k} | {answer} "
                f"| {source} | {bounds} | {seconds:.1f} |",
                flush=True,
            )
    print(f"\n{open_cases} of {total} left open within {args.time_limit:g} s")


if __name__ == "__main__":
    main()
