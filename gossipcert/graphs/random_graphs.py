"""Connected random graphs with a given number of nodes and edges.

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence

import networkx as nx
import numpy as np

from gossipcert.errors import SpecError
from gossipcert.gc_pause import paused_gc
from gossipcert.graphs.base import (
    RANDOM_MAX_TRIES,
    _add_edges,
    _as_int,
    _check_int,
    _check_size,
    _new_graph,
)


def _unrank_pair(rank: int, offsets: list[int]) -> tuple[int, int]:
    """The pair ``(u, v)``, ``u < v``, at position ``rank`` of the row-major pair order."""
    u = bisect.bisect_right(offsets, rank) - 1
    return u, u + 1 + rank - offsets[u]


def _is_connected_edges(n: int, edges: Sequence[tuple[int, int]]) -> bool:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    components = n
    for u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            components -= 1
            if components == 1:
                return True
    return components == 1


def random_connected(
    n: int, m: int, seed: int = 0, *, max_tries: int = RANDOM_MAX_TRIES
) -> nx.Graph:
    """A random connected graph with ``n`` nodes and ``m`` edges.

    When ``G(n, m)`` is likely connected (fewer than 3 isolated nodes expected,
    ``n·exp(-2m/n) <= 3``), draws ``m`` distinct edges uniformly (Erdős-Rényi ``G(n, m)``)
    with ``random.Random(seed)`` until the result is connected, so that every connected graph
    on ``0..n-1`` with ``m`` edges is equally likely. Sparser graphs (and dense ones whose
    ``max_tries`` draws all failed) are built instead as a uniformly random labelled spanning
    tree (a random Prüfer sequence) plus ``m - n + 1`` further edges drawn uniformly among the
    other pairs: connected by construction, not uniform among connected graphs. The same
    arguments give the same graph.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.
    m : int
        Number of edges, ``n - 1 <= m <= n (n - 1) / 2``.
    seed : int
        Seed of the random number generator.
    max_tries : int
        Number of samples drawn before giving up (sparse large graphs are rarely connected).

    Returns
    -------
    networkx.Graph
        ``n`` nodes and ``m`` edges, connected.

    Raises
    ------
    SpecError
        If ``m`` is out of range.

    Examples
    --------
    >>> g = random_connected(10, 15, seed=3)
    >>> g.number_of_edges(), g.graph["spec"]
    (15, 'random:10,15,seed=3')
    >>> sorted(g.edges()) == sorted(random_connected(10, 15, seed=3).edges())
    True

    References
    ----------
    Beier and Sibeyn, section 2 ("Random_{a,b}: Random graph from G_{a,b}. n = a, m = b").
    """
    n = _check_int(n, "n", "random", 1)
    m = _check_int(m, "m", "random", 0)
    seed = _as_int(seed, "seed", "random")
    max_tries = _check_int(max_tries, "max_tries", "random", 1)
    _check_size(n, "random", m)
    total = n * (n - 1) // 2
    if m < n - 1 or m > total:
        raise SpecError(
            f"random: m must satisfy n - 1 <= m <= n(n-1)/2 = {total} for n = {n} "
            f"(a connected simple graph), got m = {m}"
        )
    rng = random.Random(seed)
    graph = _new_graph(n, f"random:{n},{m},seed={seed}")
    if n * math.exp(-2 * m / n) <= 3:
        offsets = [u * (2 * n - u - 1) // 2 for u in range(n)]
        for _ in range(max_tries):
            edges = sorted(_unrank_pair(rank, offsets) for rank in rng.sample(range(total), m))
            if _is_connected_edges(n, edges):
                _add_edges(graph, edges, fresh=True)
                return graph
    with paused_gc():
        edges = _tree_plus_edges(n, m, random.Random(f"tree:{seed}"))
    _add_edges(graph, edges, fresh=True)
    return graph


def _tree_plus_edges(n: int, m: int, rng: random.Random) -> list[tuple[int, int]]:
    """A uniformly random labelled tree on ``0..n-1`` plus ``m - n + 1`` random other edges.

    Returns the ``m`` edges ``(u, v)``, ``u < v``, sorted.
    """
    keys: set[int] = set()  # edge (u, v), u < v, as u * n + v
    if n >= 2:
        # Prüfer decoding in linear time: ``leaf`` is the smallest current leaf; ``scan``
        # only moves forward, since a node that becomes a leaf below it is used at once.
        prufer = rng.choices(range(n), k=n - 2)
        degree = [1] * n
        for v in prufer:
            degree[v] += 1
        scan = degree.index(1)
        leaf = scan
        for v in prufer:
            keys.add(leaf * n + v if leaf < v else v * n + leaf)
            degree[v] -= 1
            if degree[v] == 1 and v < scan:
                leaf = v
            else:
                scan += 1
                while degree[scan] != 1:
                    scan += 1
                leaf = scan
        keys.add(leaf * n + n - 1)
    while len(keys) < m:
        need = m - len(keys)
        for u, v in zip(rng.choices(range(n), k=need), rng.choices(range(n), k=need), strict=True):
            if u != v:
                keys.add(u * n + v if u < v else v * n + u)
    # sorted, and split into (u, v), by numpy: several times faster than sorted() and divmod()
    # on 10^5 edges, and the same list
    packed = np.fromiter(keys, dtype=np.int64, count=len(keys))
    packed.sort()
    first, second = np.divmod(packed, n)
    return list(zip(first.tolist(), second.tolist(), strict=True))
