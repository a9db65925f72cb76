"""All-port allgather on two DGX-1 joined by slow links: encoding size and solve time.

The graph is two copies of ``dgx1`` (nodes ``0..7`` and ``8..15``) joined by the edges
``0 -- 8`` and ``4 -- 12``, each of capacity 1 and latency ``--latency`` (a packet entering
one in round ``t`` arrives after round ``t + L - 1``; :mod:`gossipcert.models.all_port`).
Each row solves allgather (gossip, one chunk) with one back-end and prints the optimum, the
deciding lower bound's evidence, the refuted CNF's variables and clauses, and the seconds;
the row ``latency 1`` is the same graph with ordinary links, for comparison.

Run with the project's Python, e.g. ``nice -n 10 .venv/bin/python benchmarks/latency.py``.
Times on a busy machine vary; the optima and the formula sizes do not.

References
----------
.. [1] Z. Cai et al., "Synthesizing optimal collective algorithms", PPoPP 2021 (the DGX-1
   topology).
"""

from __future__ import annotations

import argparse
import time

import networkx as nx

from gossipcert import graphs
from gossipcert.instance import make_instance, parse_model, parse_problem
from gossipcert.search.entry import solve


def two_dgx1(latency: int) -> nx.Graph:
    """Two DGX-1 joined by two capacity-1 edges of the given latency."""
    one = graphs.from_spec("dgx1")
    g = nx.disjoint_union(one, one)
    for v in g:
        g.nodes[v]["label"] = str(v)
    for u, v in ((0, 8), (4, 12)):
        g.add_edge(u, v, capacity=1)
        if latency != 1:
            g[u][v]["latency"] = latency
    g.graph["spec"] = f"two-dgx1-latency-{latency}.json"
    return g


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=3)
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per solve")
    args = parser.parse_args()
    print("| links | backend | status | optimum | evidence | variables | clauses | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for latency in (args.latency, 1):
        for backend in ("sat", "cpsat"):
            inst = make_instance(
                two_dgx1(latency), parse_model("all-port"), parse_problem("gossip")
            )
            began = time.monotonic()
            res = solve(inst, backend=backend, time_limit=args.limit)
            seconds = time.monotonic() - began
            ev = res.evidence or {}
            print(
                f"| latency {latency} | {backend} | {res.status} | {res.optimum} | "
                f"{ev.get('kind')} {ev.get('name') or ev.get('rounds', '')} | "
                f"{ev.get('variables', '-')} | {ev.get('clauses', '-')} | {seconds:.2f} |"
            )


if __name__ == "__main__":
    main()
