"""Hamiltonian cycles: found in known families or searched for, for the bounds that route
everything around one.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import networkx as nx

from gossipcert.closed_forms.base import _memo, _verified_spec
from gossipcert.instance import Instance

#: Largest graph on which a Hamiltonian cycle is searched for (larger ones: known families).
HAMILTONIAN_SEARCH_MAX_NODES: int = 2048
#: Rotation-extension steps per node (plus a constant) before that search gives up.
HAMILTONIAN_STEPS_PER_NODE: int = 40
#: Graphs up to this size are also searched exhaustively (within the budget below).
HAMILTONIAN_EXHAUSTIVE_MAX_NODES: int = 64
#: Number of depth-first steps after which the exhaustive search gives up.
HAMILTONIAN_SEARCH_BUDGET: int = 100_000


# --------------------------------------------------------------------------------------------
# Hamiltonian cycles (for the bounds that route everything around one)
# --------------------------------------------------------------------------------------------


def _is_cycle_in(g: nx.Graph, order: list[int]) -> bool:
    n = g.number_of_nodes()
    if len(order) != n or len(set(order)) != n or n < 3:
        return False
    return all(g.has_edge(order[i], order[(i + 1) % n]) for i in range(n))


def _search_hamiltonian(g: nx.Graph, budget: int) -> list[int] | None:
    """Depth-first search with Warnsdorff's ordering and a degree prune; gives up after
    ``budget`` steps (so the answer None means "not found", not "none exists")."""
    n = g.number_of_nodes()
    adj = [sorted(g[v]) for v in range(n)]
    start = min(range(n), key=lambda v: (len(adj[v]), v))
    on_path = [False] * n
    on_path[start] = True
    path = [start]
    free = [len(adj[v]) for v in range(n)]  # neighbours not on the path
    for w in adj[start]:
        free[w] -= 1

    def candidates(end: int) -> Iterator[int]:
        return iter(sorted((w for w in adj[end] if not on_path[w]), key=lambda w: (free[w], w)))

    def dead(end: int, previous: int) -> bool:
        """An unvisited neighbour of the old or new end with fewer than two ways left."""
        for x in adj[previous] + adj[end]:
            if on_path[x]:
                continue
            ways = free[x] + (end in g[x]) + (start in g[x])
            if ways < 2:
                return True
        return not any(not on_path[w] for w in adj[start]) and len(path) < n

    stack = [candidates(start)]
    steps = 0
    while stack:
        if len(path) == n:
            if g.has_edge(path[-1], start):
                return path
            nxt = None
        else:
            nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            last = path.pop()
            if not path:
                return None
            on_path[last] = False
            for w in adj[last]:
                free[w] += 1
            continue
        steps += 1
        if steps > budget:
            return None
        previous = path[-1]
        path.append(nxt)
        on_path[nxt] = True
        for w in adj[nxt]:
            free[w] -= 1
        if len(path) < n and dead(nxt, previous):
            stack.append(iter(()))
        else:
            stack.append(candidates(nxt))
    return None


def _rotation_extension(g: nx.Graph, budget: int) -> list[int] | None:
    """Pósa's rotation-extension heuristic with a fixed seed: extend the path at its end
    while possible, otherwise rotate it at a neighbour of the end; close it when the two ends
    are adjacent. Deterministic; None after ``budget`` steps."""
    n = g.number_of_nodes()
    adj = [sorted(g[v]) for v in range(n)]
    rng = random.Random(n)
    path = [0]
    position = {0: 0}
    for _ in range(budget):
        end = path[-1]
        fresh = [w for w in adj[end] if w not in position]
        if fresh:
            w = rng.choice(fresh)
            position[w] = len(path)
            path.append(w)
            continue
        if len(path) == n and g.has_edge(end, path[0]):
            return path
        i = position[rng.choice(adj[end])]
        if i == len(path) - 2:
            if rng.random() < 0.5:
                path.reverse()
                position = {v: k for k, v in enumerate(path)}
            continue
        path[i + 1 :] = path[:i:-1]
        for k in range(i + 1, len(path)):
            position[path[k]] = k
    return None


def _hamiltonian_cycle_of(g: nx.Graph, spec: str | None) -> list[int] | None:
    """A Hamiltonian cycle of ``g`` (verified), or None if none was found.

    Cycles, complete graphs and hypercubes (Gray code) are handled directly; other graphs
    with at most :data:`HAMILTONIAN_SEARCH_MAX_NODES` nodes by a bounded rotation-extension
    search, and small ones also by a bounded depth-first search. Bipartite graphs with
    unequal sides have none. Whatever is found is checked edge by edge.
    """
    n = g.number_of_nodes()
    if n < 3 or not nx.is_connected(g) or min(d for _, d in g.degree()) < 2:
        return None
    order: list[int] | None = None
    if g.number_of_edges() == n * (n - 1) // 2:
        order = list(range(n))
    elif all(d == 2 for _, d in g.degree()):
        order = [0]
        previous = -1
        while len(order) < n:
            here = order[-1]
            step = next(w for w in sorted(g[here]) if w != previous)
            previous = here
            order.append(step)
    elif spec is not None and spec.startswith("hypercube:") and "*" not in spec:
        order = [i ^ (i >> 1) for i in range(n)]
    else:
        if nx.is_bipartite(g):
            left, right = nx.bipartite.sets(g)
            if len(left) != len(right):
                return None
        if n <= HAMILTONIAN_SEARCH_MAX_NODES:
            order = _rotation_extension(g, HAMILTONIAN_STEPS_PER_NODE * n + 10_000)
        if order is None and n <= HAMILTONIAN_EXHAUSTIVE_MAX_NODES:
            order = _search_hamiltonian(g, HAMILTONIAN_SEARCH_BUDGET)
    return order if order is not None and _is_cycle_in(g, order) else None


def _hamiltonian(instance: Instance) -> bool:
    """Whether a Hamiltonian cycle of the instance's graph was found (``n >= 3``)."""
    return bool(
        _memo(
            instance,
            "hamiltonian",
            lambda: _hamiltonian_cycle_of(instance.graph, _verified_spec(instance)) is not None,
        )
    )
