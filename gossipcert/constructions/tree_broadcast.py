"""All-port broadcast of ``K`` chunks pipelined down arc-disjoint spanning trees.

Edmonds' branching theorem [1]_: a graph with arc capacities has ``lambda`` arc-disjoint
spanning arborescences rooted at ``r`` (an arc of capacity ``c`` used by at most ``c`` of
them), ``lambda`` the least ``r``-``v`` cut. Johnsson and Ho [2]_ broadcast ``K`` blocks on a
hypercube by pipelining them down ``log n`` edge-disjoint spanning binomial trees, and
ForestColl [3]_ builds such packings for any fabric. Made into a round schedule:

- find ``lambda`` arborescences from the source that share no arc beyond its capacity and
  reach every processor (routers may be left out or used as inner nodes), each of depth at
  most ``D``, by a small constraint program (a parent per node and tree, integer depths that
  grow along every tree arc, the arc capacities), with ``D`` from the source's eccentricity
  up;
- give tree ``i``, of depth ``D_i``, ``K_i`` chunks: its ``j``-th chunk leaves the source in
  round ``j + 1`` and reaches a node of depth ``h`` in round ``j + h``, one chunk an arc and
  round per tree, so the arcs never carry more than their capacity;
- choose the ``K_i`` (summing to ``K``) to make ``max_i (K_i - 1 + D_i)`` least.

With every ``D_i`` equal to ``D`` the schedule takes ``ceil(K / lambda) - 1 + D`` rounds.
The cut bound of :mod:`gossipcert.closed_forms.cuts` is ``ceil(K / lambda) - 1 + e`` with
``e`` the source's eccentricity, and the least depth of a packing is often ``e + 1``: on
``Q_4`` and the ``4 x 4`` torus four trees need depth 5 where ``e = 4`` (the height
``k + 1`` of Johnsson and Ho's rotated binomial trees on ``Q_k``), so the trees stay one
round above the bound there, where the exact search (schedules in which a chunk's tree may
change with the chunk) meets it for up to 16 chunks. It is an upper bound like any other,
replayed by the verifier and compared with the bounds.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", in *Combinatorial Algorithms*, 1973.
.. [2] S. L. Johnsson and C.-T. Ho, "Optimum broadcasting and personalized communication in
   hypercubes", IEEE Transactions on Computers 38(9) (1989) 1249-1268.
.. [3] L. Zhao et al., "ForestColl: Throughput-optimal collective communications on
   heterogeneous network fabrics", arXiv:2402.06787, 2024.
"""

from __future__ import annotations

from functools import lru_cache

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

__all__ = ["chunk_split", "spanning_trees", "tree_broadcast"]

#: most nodes the packing is searched on (the program has trees x arcs choices)
MAX_NODES = 128
#: seconds CP-SAT may take for one depth
SEARCH_SECONDS = 10.0
#: depths tried beyond the source's eccentricity
EXTRA_DEPTH = 3

_Arcs = tuple[tuple[int, int, int], ...]  # (tail, head, capacity)


def _search(
    n: int, arcs: _Arcs, routers: frozenset[int], root: int, trees: int, depth: int
) -> list[dict[int, int]] | None:
    """``trees`` parent maps (node -> parent) of arborescences from ``root`` of depth at most
    ``depth`` sharing arcs within capacity, or None."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    into: dict[int, list[tuple[int, int]]] = {v: [] for v in range(n)}
    # x[t, u, v]: tree t holds arc u -> v
    x = {}
    for u, v, _ in arcs:
        if v == root:
            continue
        for t in range(trees):
            x[t, u, v] = model.new_bool_var(f"x{t}_{u}_{v}")
            into[v].append((t, u))
    # d[t, v]: an upper bound on the depth of v in tree t
    d = {(t, v): model.new_int_var(0, depth, f"d{t}_{v}") for t in range(trees) for v in range(n)}
    # used[t, v]: v is in tree t
    used = {(t, v): model.new_bool_var(f"u{t}_{v}") for t in range(trees) for v in range(n)}
    for t in range(trees):
        model.add(d[t, root] == 0)
        model.add(used[t, root] == 1)
        for v in range(n):
            if v == root:
                continue
            parents = [x[t, u, v] for tt, u in into[v] if tt == t]
            model.add(sum(parents) == used[t, v])
            if v not in routers:
                model.add(used[t, v] == 1)
            for tt, u in into[v]:
                if tt == t:
                    model.add(d[t, v] >= d[t, u] + 1).only_enforce_if(x[t, u, v])
                    model.add_implication(x[t, u, v], used[t, u])
    for u, v, cap in arcs:
        if v != root:
            model.add(sum(x[t, u, v] for t in range(trees)) <= cap)
    # the trees are interchangeable: order them by their first arc out of the root
    firsts = [
        sum(i * x[t, u, v] for i, (u, v, _) in enumerate(a for a in arcs if a[0] == root))
        for t in range(trees)
    ]
    for t in range(trees - 1):
        model.add(firsts[t] <= firsts[t + 1])
    solver = cpsat_solver(workers=1, seconds=SEARCH_SECONDS, seed=0)
    status = run_cpsat(solver, model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    found = []
    for t in range(trees):
        parent = {}
        for (tt, u, v), var in x.items():
            if tt == t and solver.value(var):
                parent[v] = u
        found.append(parent)
    return found


def _level(parent: dict[int, int], v: int, root: int) -> int:
    """The depth of ``v`` in the tree of ``parent`` pointers."""
    depth = 0
    while v != root:
        v = parent[v]
        depth += 1
    return depth


@lru_cache(maxsize=64)
def _packing(
    n: int, arcs: _Arcs, routers: frozenset[int], root: int
) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The packing of least depth: per tree, its arcs ``(parent, child, depth of child)``."""
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for u, v, c in arcs:
        g.add_edge(u, v, capacity=c)
    procs = [v for v in range(n) if v not in routers and v != root]
    lam = min(nx.maximum_flow_value(g, root, v) for v in procs)
    ecc = max(nx.single_source_shortest_path_length(g, root)[v] for v in procs)
    for depth in range(ecc, ecc + EXTRA_DEPTH + 1):
        found = _search(n, arcs, routers, root, int(lam), depth)
        if found is not None:
            out = []
            for parent in found:
                out.append(tuple(sorted((parent[v], v, _level(parent, v, root)) for v in parent)))
            return tuple(out)
    raise NotApplicableError(
        f"no packing of {lam} spanning trees of depth at most {ecc + EXTRA_DEPTH} found"
    )


def spanning_trees(instance: Instance) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The arc-disjoint spanning trees of the source (module docstring): per tree, its arcs
    ``(parent, child, depth of child)``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> trees = spanning_trees(parse_instance("hypercube:4", "all-port", "broadcast:0,chunks=8"))
    >>> len(trees), [max(h for _, _, h in t) for t in trees]
    (4, [5, 5, 5, 5])
    """
    g = instance.graph
    sources = [v for v in range(instance.n) if instance.holdings[v]]
    if len(sources) != 1:
        raise NotApplicableError("the tree broadcast has one source")
    if instance.n > MAX_NODES:
        raise NotApplicableError(f"the tree packing is searched up to {MAX_NODES} nodes")
    arcs = tuple(
        (u, v, _arc_capacity(instance, u, v)) for a, b in g.edges() for u, v in ((a, b), (b, a))
    )
    routers = frozenset(graphs.routers(g))
    return _packing(instance.n, tuple(sorted(arcs)), routers, sources[0])


def chunk_split(depths: list[int], chunks: int) -> list[int]:
    """Chunks per tree making ``max_i (K_i - 1 + D_i)`` least (trees of depth ``D_i``).

    Examples
    --------
    >>> chunk_split([4, 4, 5], 10)
    [4, 4, 2]
    """
    r = min(depths)
    while sum(max(0, r - d + 1) for d in depths) < chunks:
        r += 1
    split = [max(0, r - d + 1) for d in depths]
    extra = sum(split) - chunks
    for i in sorted(range(len(split)), key=lambda i: -depths[i]):
        take = min(extra, split[i])
        split[i] -= take
        extra -= take
    return split


def tree_broadcast(instance: Instance) -> Schedule:
    """The pipelined tree broadcast of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``broadcast:S`` from one source with ``chunks=K``, ``K >= 2``, all-port (routers and
        capacities allowed), up to :data:`MAX_NODES` nodes.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, one chunk, too many nodes, or no packing found.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("dgx1", "all-port", "broadcast:0,chunks=64")
    >>> simulate(inst, tree_broadcast(inst)).rounds  # six trees of depth 4: 64 / 6 - 1 + 4
    14
    """
    _require_all_port(instance, "the tree broadcast")
    if instance.problem.kind is not ProblemKind.BROADCAST:
        raise NotApplicableError("the tree broadcast is a schedule for broadcast")
    chunks = instance.problem.chunks
    if chunks < 2:
        raise NotApplicableError("the tree broadcast pipelines several chunks")
    trees = spanning_trees(instance)
    depths = [max((h for _, _, h in tree), default=0) for tree in trees]
    split = chunk_split(depths, chunks)
    sends: dict[int, dict[tuple[int, int], int]] = {}
    first = 0
    for tree, count in zip(trees, split, strict=True):
        for j in range(count):
            bit = 1 << (first + j)
            for u, v, h in tree:
                arcs = sends.setdefault(j + h, {})
                arcs[u, v] = arcs.get((u, v), 0) | bit
        first += count
    last = max(sends, default=0)
    rounds: list[Round] = [
        tuple(Transmission(u, (v,), mask) for (u, v), mask in sorted(sends.get(t, {}).items()))
        for t in range(1, last + 1)
    ]
    return Schedule(tuple(rounds))
