"""The bridge bound of allreduce against the exact CNF on random graphs with a bridge.

Usage: .venv/bin/python benchmarks/bridge_sweep.py [--graphs N] [--seed S]

Each graph is two random connected blobs of 4 to 6 nodes in all joined by a bridge (or,
two times in five, by a router adjacent to one node of each), capacities 1 or 2, under
all-port or single-port, with one chunk a node (two on up to 5 nodes). For each, the exact
allreduce CNF (:func:`gossipcert.search.allreduce_exact.find`, no bound in it) is asked for
a schedule of one round fewer than the bound (it must find none: the bound is sound) and of
the bound's rounds (when it finds one, the bound is the optimum). It prints each violation,
then how many graphs were decided, how many met the bound and how many were undecided in
60 s; it exits 1 on a violation.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import networkx as nx

from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import Instance, make_instance, parse_model, parse_problem
from gossipcert.search.allreduce_bridge import bridge_bound
from gossipcert.search.allreduce_exact import find
from gossipcert.statuses import QueryStatus


def random_instance(rng: random.Random) -> Instance:
    """One random graph with a bridge (module docstring) and its allreduce instance."""
    n = rng.randint(4, 6)
    left = rng.randint(1, n - 2)
    g = nx.Graph()
    for base, size in ((0, left), (left, n - left)):
        nodes = list(range(base, base + size))
        g.add_nodes_from(nodes)
        for i in range(1, size):
            g.add_edge(nodes[i], nodes[rng.randrange(i)])
        for _ in range(rng.randint(0, size)):
            if size > 1:
                u, v = rng.sample(nodes, 2)
                g.add_edge(u, v)
    if rng.random() < 0.4:
        g.add_edge(rng.randrange(left), n)
        g.add_edge(rng.randrange(left, n), n)
        g.nodes[n]["router"] = True
    else:
        g.add_edge(rng.randrange(left), rng.randrange(left, n))
    for u, v in g.edges:
        g[u][v]["capacity"] = rng.choice([1, 1, 2])
    model = rng.choice(["all-port", "all-port", "single-port"])
    chunks = rng.choice([1, 1, 2]) if n <= 5 else 1
    problem = parse_problem(f"allreduce:chunks={chunks}")
    return make_instance(from_networkx(g), parse_model(model), problem)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graphs", type=int, default=60, help="random graphs to try")
    parser.add_argument("--seed", type=int, default=7, help="the random seed")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    decided = met = undecided = violations = 0
    for _ in range(args.graphs):
        inst = random_instance(rng)
        bound = bridge_bound(inst)
        if bound is None or bound < 2:
            continue
        verdict, _ = find(inst, bound - 1, time.monotonic() + 60)
        if verdict == QueryStatus.UNKNOWN:
            undecided += 1
            continue
        decided += 1
        if verdict != QueryStatus.UNSAT:
            violations += 1
            edges = sorted(inst.graph.edges(data="capacity"))
            print(f"VIOLATION: {inst.model.spec()} {inst.problem.spec()} {edges}: {bound}")
            continue
        found, _ = find(inst, bound, time.monotonic() + 30)
        met += found == QueryStatus.SAT
    print(
        f"seed {args.seed}: {decided} graphs decided, the bound met by the exact optimum in "
        f"{met}, {violations} violations, {undecided} undecided in 60 s"
    )
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
