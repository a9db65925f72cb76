"""All-port broadcast of ``K`` interchangeable chunks as a mixture of timed trees.

Every chunk of a broadcast reaches each node first along some arc; those arcs form a tree
from the source, and the chunk crosses the tree's arc into ``v`` in some round. When every
chunk follows its tree without waiting (it crosses the arc into a node of depth ``h`` in
round ``s + h - 1``, ``s`` the round it leaves the source), a schedule is a choice, for every
tree ``T`` of a library and every first round ``s``, of how many chunks ``y[T, s]`` take
``T`` from round ``s``. The chunks are interchangeable (one orbit under renaming), so only
these counts matter, and they must satisfy

- ``sum y[T, s] = K``;
- for every arc ``(u, v)`` and round ``r``: ``sum y[T, r - depth_T(v) + 1]`` over the trees
  ``T`` that hold the arc is at most ``c(u, v)``;
- every chunk is delivered by round ``R``: ``y[T, s] = 0`` when ``s + depth(T) - 1 > R``.

This integer program is small (trees times rounds counts, one capacity row per arc and
round) and CP-SAT decides it in seconds. The library: the ``lambda`` arc-disjoint trees of
:mod:`gossipcert.constructions.tree_broadcast` (the steady state: every arc of the source
busy, one round of depth more than the eccentricity) and breadth-first trees (shallow, for
the last chunks, which may also leave the source on several arcs at once: a tree for each
subset of the source's arcs, grown breadth first from the nodes they reach). Mixed, deep trees
carry the first chunks and shallow ones the last, which no single packing does: on the
DGX-1 16, 32 and 64 chunks take 5, 8 and 13 rounds, the flow bound (the six disjoint trees
alone: 6, 9 and 14), and on ``Q_3`` 64 chunks take 24, the cut bound. A chunk here never
waits at a node, and the library is not every tree: on ``Q_4`` to ``Q_6`` and the tori the
mixture stays a round above the bound, which the exact search meets for 16 chunks. The
schedule is replayed by the verifier like any other.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", in *Combinatorial Algorithms*, 1973.
.. [2] S. L. Johnsson and C.-T. Ho, "Optimum broadcasting and personalized communication in
   hypercubes", IEEE Transactions on Computers 38(9) (1989) 1249-1268.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import TYPE_CHECKING

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.constructions.tree_broadcast import spanning_trees
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

__all__ = ["tree_mix", "tree_mix_broadcast"]

#: trees a subset of the source's arcs (one a seed)
SEEDS = 3
#: the largest subsets of the source's arcs tried (and all of them)
SUBSET_SIZE = 3
#: rounds tried above the cut bound's value
EXTRA_ROUNDS = 4
#: seconds CP-SAT may take to decide one number of rounds
MIX_SECONDS = 10.0

_Tree = tuple[tuple[int, int, int], ...]  # (parent, child, depth of child)


def _entry_trees(instance: Instance, root: int, seeds: int) -> list[_Tree]:
    """Breadth-first trees that leave ``root`` by a subset ``U`` of its arcs: the arcs to
    ``U``, then a forest grown from ``U`` (a seeded choice of parent among the nodes one step
    nearer ``U``), routers kept only where a processor hangs below them. Every subset of up
    to :data:`SUBSET_SIZE` neighbours (all of them, too)."""
    g = instance.graph
    procs = set(graphs.processors(g))
    nbrs = sorted(g.adj[root])
    subsets = [c for k in range(1, min(SUBSET_SIZE, len(nbrs)) + 1) for c in combinations(nbrs, k)]
    if len(nbrs) > SUBSET_SIZE:
        subsets.append(tuple(nbrs))
    out = []
    rest = g.subgraph(v for v in g if v != root)
    for entry in subsets:
        dist = nx.multi_source_dijkstra_path_length(rest, set(entry), weight=None)
        if any(v not in dist for v in procs - {root}):
            continue
        for seed in range(seeds):
            rng = random.Random(seed)
            parent = {w: root for w in entry}
            for v in sorted(dist, key=lambda v: (dist[v], v)):
                if dist[v] == 0:
                    continue
                ups = sorted(u for u in rest.adj[v] if dist.get(u, -1) == dist[v] - 1)
                parent[v] = ups[rng.randrange(len(ups))]
            needed = set()
            for v in procs - {root}:
                while v != root and v not in needed:
                    needed.add(v)
                    v = parent[v]
            out.append(tuple(sorted((parent[v], v, dist[v] + 1) for v in needed)))
    return list(dict.fromkeys(out))


def tree_mix(instance: Instance, trees: list[_Tree], rounds: int) -> dict[tuple[int, int], int]:
    """The counts ``y[T, s]`` of the module docstring for ``rounds`` rounds (the tree's
    index, the first round), or an empty dict when CP-SAT finds none in time."""
    from ortools.sat.python import cp_model

    chunks = instance.problem.chunks
    depth = [max(h for _, _, h in t) for t in trees]
    model = cp_model.CpModel()
    # y[t, s]: chunks that leave the source along tree t in round s
    y = {
        (t, s): model.new_int_var(0, chunks, f"y{t}_{s}")
        for t in range(len(trees))
        for s in range(1, rounds - depth[t] + 2)
    }
    model.add(sum(y.values()) == chunks)
    load: dict[tuple[int, int, int], list[cp_model.IntVar]] = {}
    for (t, s), var in y.items():
        for u, v, h in trees[t]:
            load.setdefault((u, v, s + h - 1), []).append(var)
    for (u, v, _), used in load.items():
        model.add(sum(used) <= _arc_capacity(instance, u, v))
    solver = cpsat_solver(workers=1, seconds=MIX_SECONDS, seed=0)
    status = run_cpsat(solver, model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return {}
    return {key: solver.value(var) for key, var in y.items() if solver.value(var)}


def tree_mix_broadcast(instance: Instance) -> Schedule:
    """The tree mixture of the module docstring with the fewest rounds CP-SAT finds, from the
    cut bound's ``ceil(K / lambda) - 1 + e`` up to :data:`EXTRA_ROUNDS` more.

    Parameters
    ----------
    instance : Instance
        ``broadcast:S`` from one source with ``chunks=K``, ``K >= 2``, all-port.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, one chunk, or no mixture found.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("dgx1", "all-port", "broadcast:0,chunks=64")
    >>> simulate(inst, tree_mix_broadcast(inst)).rounds  # the flow bound (trees alone: 14)
    13
    """
    _require_all_port(instance, "the tree mixture")
    if instance.problem.kind is not ProblemKind.BROADCAST:
        raise NotApplicableError("the tree mixture is a schedule for broadcast")
    chunks = instance.problem.chunks
    if chunks < 2:
        raise NotApplicableError("the tree mixture pipelines several chunks")
    root = next(v for v in range(instance.n) if instance.holdings[v])
    try:
        packing = list(spanning_trees(instance))
    except NotApplicableError:
        packing = []
    trees = packing + _entry_trees(instance, root, SEEDS)
    if not trees:
        raise NotApplicableError("the tree mixture found no tree")
    g = instance.graph
    procs = [v for v in graphs.processors(g) if v != root]
    flows = nx.DiGraph()
    for a, b in g.edges():
        for u, v in ((a, b), (b, a)):
            flows.add_edge(u, v, capacity=_arc_capacity(instance, u, v))
    lam = min(nx.maximum_flow_value(flows, root, v) for v in procs)
    ecc = max(nx.single_source_shortest_path_length(g, root)[v] for v in procs)
    low = -(-chunks // lam) - 1 + ecc
    for rounds in range(low, low + EXTRA_ROUNDS + 1):
        counts = tree_mix(instance, trees, rounds)
        if counts:
            return _unrolled(trees, counts)
    raise NotApplicableError(f"no mixture of trees found in {low + EXTRA_ROUNDS} rounds")


def _unrolled(trees: list[_Tree], counts: dict[tuple[int, int], int]) -> Schedule:
    """The schedule of the counts: chunk numbers given out in order, each down its tree."""
    sends: dict[int, dict[tuple[int, int], int]] = {}
    chunk = 0
    for (t, s), count in sorted(counts.items()):
        for _ in range(count):
            for u, v, h in trees[t]:
                arcs = sends.setdefault(s + h - 1, {})
                arcs[u, v] = arcs.get((u, v), 0) | 1 << chunk
            chunk += 1
    last = max(sends, default=0)
    rounds: list[Round] = [
        tuple(Transmission(u, (v,), mask) for (u, v), mask in sorted(sends.get(r, {}).items()))
        for r in range(1, last + 1)
    ]
    return Schedule(tuple(rounds))
