"""Diameter and radius of large graphs, by eccentricity bounds instead of all-pairs BFS.

Every breadth-first search from a node ``v`` gives its eccentricity ``e(v)`` and, for every
node ``w``, the bounds ``max(d(v, w), e(v) - d(v, w)) <= e(w) <= e(v) + d(v, w)`` (triangle
inequality). The diameter is the largest eccentricity and the radius the smallest; the search
alternates between the node with the largest upper bound and the node with the smallest lower
bound until the bounds prove both values (the extrema-bounding method of Takes and Kosters,
"Determining the diameter of small world networks", CIKM 2011). On meshes, tori and most
sparse graphs a few dozen searches suffice; when a budget of searches runs out first, the
bounds are returned as they are and the caller says so.

Each search runs in compiled code (SciPy's unweighted Dijkstra, a breadth-first search) over
a compressed adjacency array, so one search on 10^6 nodes takes a tenth of a second, whatever
the diameter. A tree needs two searches: the eccentricity of every node is its distance to
the farther end of a longest path, found by a double sweep (Handler, "Minimax location of a
facility in an undirected tree graph", Transportation Science 7, 1973).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np


@dataclass(frozen=True)
class DiameterRadius:
    """Bounds on the diameter and the radius; exact when ``low == high``."""

    diameter_low: int
    diameter_high: int
    radius_low: int
    radius_high: int
    searches: int

    @property
    def exact(self) -> bool:
        """Both values proved."""
        return self.diameter_low == self.diameter_high and self.radius_low == self.radius_high


def csr_arrays(graph: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    """Row offsets and neighbour array of a graph on nodes ``0..n-1``."""
    n = graph.number_of_nodes()
    adj = graph._adj  # the graph's own dict of neighbour dicts (read only here)
    degree = np.fromiter((len(adj[v]) for v in range(n)), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    indices = np.fromiter(
        itertools.chain.from_iterable(adj[v] for v in range(n)),
        dtype=np.int64,
        count=int(indptr[-1]),
    )
    return indptr, indices


#: arcs up to which :func:`bfs_distances` searches in Python (no compiled library to load:
#: scipy costs a fifth of a second to import, a search of this size a few milliseconds)
SMALL_GRAPH_ARCS = 20_000


def _python_bfs(indptr: list[int], indices: list[int], sources: list[int], n: int) -> np.ndarray:
    """:func:`bfs_distances` by a breadth-first search in Python (small graphs)."""
    dist = [-1] * n
    for s in sources:
        dist[s] = 0
    frontier = sources
    level = 0
    while frontier:
        level += 1
        nxt = []
        for v in frontier:
            for w in indices[indptr[v] : indptr[v + 1]]:
                if dist[w] < 0:
                    dist[w] = level
                    nxt.append(w)
        frontier = nxt
    return np.array(dist, dtype=np.int64)


def bfs_distances(
    indptr: np.ndarray, indices: np.ndarray, source: int | Sequence[int]
) -> np.ndarray:
    """Distances from ``source``, a node or a non-empty set of nodes (``-1`` for nodes it
    does not reach).

    Examples
    --------
    >>> indptr, indices = csr_arrays(nx.path_graph(4))
    >>> bfs_distances(indptr, indices, 0).tolist(), bfs_distances(indptr, indices, [0, 3]).tolist()
    ([0, 1, 2, 3], [0, 1, 1, 0])
    """
    n = len(indptr) - 1
    if len(indices) <= SMALL_GRAPH_ARCS:
        starts = np.asarray(source, dtype=np.int64).reshape(-1).tolist()
        return _python_bfs(indptr.tolist(), indices.tolist(), sorted(set(starts)), n)
    sources = np.unique(np.asarray(source, dtype=np.int64).reshape(-1))
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import dijkstra

    adjacency = csr_array(
        (np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n, n), copy=False
    )
    # a breadth-first search in compiled code (unweighted Dijkstra): a level-synchronous
    # search in numpy costs a full pass per level, quadratic on a path
    found = dijkstra(adjacency, unweighted=True, indices=sources, min_only=True)
    dist = np.full(n, -1, dtype=np.int64)
    reached = np.isfinite(found)
    dist[reached] = found[reached].astype(np.int64)
    return dist


def is_connected(graph: nx.Graph) -> bool:
    """Whether a graph on ``0..n-1`` is connected (one array-based search).

    Examples
    --------
    >>> is_connected(nx.path_graph(3)), is_connected(nx.empty_graph(2))
    (True, False)
    """
    if graph.number_of_nodes() == 0:
        return False
    indptr, indices = csr_arrays(graph)
    return bool((bfs_distances(indptr, indices, 0) >= 0).all())


def _tree_diameter_radius(indptr: np.ndarray, indices: np.ndarray) -> DiameterRadius:
    """Exact diameter and radius of a tree by a double sweep: the farthest node ``a`` from
    any node ends a longest path ``a .. b``, and every node's eccentricity is its distance
    to ``a`` or to ``b``, whichever is larger (three searches)."""
    a = int(np.argmax(bfs_distances(indptr, indices, 0)))
    from_a = bfs_distances(indptr, indices, a)
    b = int(np.argmax(from_a))
    ecc = np.maximum(from_a, bfs_distances(indptr, indices, b))
    diameter, radius = int(from_a[b]), int(ecc.min())
    return DiameterRadius(diameter, diameter, radius, radius, 3)


def diameter_radius(
    graph: nx.Graph,
    max_searches: int | None = None,
    csr: tuple[np.ndarray, np.ndarray] | None = None,
) -> DiameterRadius:
    """Diameter and radius of a connected graph on ``0..n-1`` by extrema bounding.

    Parameters
    ----------
    graph : networkx.Graph
        Connected, nodes ``0..n-1``.
    max_searches : int, optional
        Stop after this many breadth-first searches (unlimited: exact values); a tree is
        settled by three searches whatever the budget.
    csr : tuple of numpy.ndarray, optional
        The graph's compressed adjacency (``indptr``, ``indices``) when the caller has it.

    Returns
    -------
    DiameterRadius

    Examples
    --------
    >>> r = diameter_radius(nx.convert_node_labels_to_integers(nx.grid_2d_graph(5, 7)))
    >>> (r.diameter_low, r.diameter_high, r.radius_low, r.radius_high)
    (10, 10, 5, 5)
    """
    n = graph.number_of_nodes()
    indptr, indices = csr if csr is not None else csr_arrays(graph)
    if n > 0 and len(indices) == 2 * (n - 1):  # connected with n - 1 edges: a tree
        return _tree_diameter_radius(indptr, indices)
    low = np.zeros(n, dtype=np.int64)
    high = np.full(n, n, dtype=np.int64)
    active = np.ones(n, dtype=bool)  # nodes whose eccentricity may still matter
    diam_low, rad_high = 0, n
    searches = 0
    degree = np.diff(indptr)
    pick_high = True
    while True:
        candidates = np.flatnonzero(active)
        if candidates.size == 0 or (max_searches is not None and searches >= max_searches):
            break
        if pick_high:
            key = high[candidates] * (n + 1) + degree[candidates]
            v = int(candidates[np.argmax(key)])
        else:
            key = low[candidates] * (n + 1) - degree[candidates]
            v = int(candidates[np.argmin(key)])
        pick_high = not pick_high
        dist = bfs_distances(indptr, indices, v)
        searches += 1
        ecc = int(dist.max())
        low = np.maximum(low, np.maximum(dist, ecc - dist))
        high = np.minimum(high, ecc + dist)
        low[v] = high[v] = ecc
        diam_low = max(diam_low, int(low.max()))
        rad_high = min(rad_high, int(high.min()))
        settled = low == high
        # a node matters for the diameter if it could beat diam_low, for the radius if it
        # could beat rad_high; a settled node has already given its value
        active = ~settled & ((high > diam_low) | (low < rad_high))
    diam_high = max(diam_low, int(high[active].max())) if active.any() else diam_low
    rad_low = min(rad_high, int(low[active].min())) if active.any() else rad_high
    return DiameterRadius(diam_low, diam_high, rad_low, rad_high, searches)
