"""Questions about a graph: its description (diameter, radius, degrees), processors,
routers, capacities, and node labels.

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter, deque
from typing import Any

import networkx as nx
import numpy as np

from gossipcert.errors import GraphError, SpecError
from gossipcert.graphs.base import _INT_LABEL, _check_convention

# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------


#: graphs up to this many nodes get the exact all-sources diameter and radius in describe()
EXACT_DISTANCE_NODES = 5000
#: above it, breadth-first searches allowed: this many node+edge visits, at least 4 searches
DISTANCE_WORK = 3_000_000


def _bfs_eccentricity(graph: nx.Graph, source: int) -> int:
    dist = {source: 0}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for w in graph[u]:
            if w not in dist:
                dist[w] = dist[u] + 1
                queue.append(w)
    return max(dist.values())


def _diameter_radius(graph: nx.Graph) -> tuple[int, int]:
    """Diameter and radius of a connected graph on ``0..n-1``.

    Breadth-first searches from a block of sources run side by side, one bit per source: at
    level ``t`` the bit set ``reach[v]`` holds the sources within distance ``t`` of ``v``, and
    a source's eccentricity is the first ``t`` at which every node has its bit.
    """
    if graph.graph.get("vertex_transitive"):
        ecc = _bfs_eccentricity(graph, 0)
        return ecc, ecc
    n = graph.number_of_nodes()
    adjacency = [list(graph[v]) for v in range(n)]
    block = max(64, min(n, (1 << 26) // max(n, 1)))
    diameter, radius = 0, n
    for start in range(0, n, block):
        size = min(block, n - start)
        full = (1 << size) - 1
        reach = [0] * n
        for offset in range(size):
            reach[start + offset] = 1 << offset
        done = 0
        level = 0
        while True:
            common = full
            for bits in reach:
                common &= bits
                if not common:
                    break
            fresh = common & ~done
            if fresh:
                radius = min(radius, level)
                done |= fresh
            if done == full:
                diameter = max(diameter, level)
                break
            reach = [
                bits | _or_all(reach, neighbours)
                for bits, neighbours in zip(reach, adjacency, strict=True)
            ]
            level += 1
    return diameter, radius


def _or_all(reach: list[int], neighbours: list[int]) -> int:
    total = 0
    for w in neighbours:
        total |= reach[w]
    return total


def describe(graph: nx.Graph) -> dict[str, Any]:
    """Basic parameters of a graph.

    Parameters
    ----------
    graph : networkx.Graph
        A graph following the module conventions.

    Returns
    -------
    dict
        ``n``, ``m``, ``min_degree``, ``max_degree``, ``mean_degree`` (float), ``connected``
        (bool), ``diameter`` and ``radius`` (None if disconnected, or if not settled on a
        graph of more than :data:`EXACT_DISTANCE_NODES` nodes: then ``diameter_bounds`` or
        ``radius_bounds``, and ``distance_note``, say what is known), ``processors`` and
        ``routers`` (counts), ``capacities`` (edge count per capacity), ``latencies`` (edge
        count per latency, only when some edge's latency is not 1), ``links`` (each kind of
        link with its bandwidth and latency, only on a machine with physical units) and
        ``spec``.

    Examples
    --------
    >>> from gossipcert.graphs import fat_tree, from_spec
    >>> info = describe(from_spec("ccc:3"))
    >>> info["n"], info["m"], info["diameter"], info["radius"], info["max_degree"]
    (24, 36, 6, 6, 3)
    >>> describe(fat_tree(8))["routers"]
    7

    References
    ----------
    Beier and Sibeyn, section 2 (n and m of each class).
    """
    n = graph.number_of_nodes()
    atlas = graph._adj  # the graph's own dict of neighbour dicts (read only here)
    diameter: int | None = None
    radius: int | None = None
    extra: dict[str, Any] = {}
    if n > EXACT_DISTANCE_NODES:
        # one compressed adjacency array serves the degrees and every search
        from gossipcert.distances import bfs_distances, csr_arrays, diameter_radius

        _check_convention(graph, "describe")
        indptr, indices = csr_arrays(graph)
        degrees = np.diff(indptr).tolist()
        dist = bfs_distances(indptr, indices, 0)
        connected = bool((dist >= 0).all())
        if connected and graph.graph.get("vertex_transitive"):
            diameter = radius = int(dist.max())
        elif connected:
            budget = max(4, DISTANCE_WORK // (n + len(indices) // 2))
            found = diameter_radius(graph, budget, csr=(indptr, indices))
            if found.diameter_low == found.diameter_high:
                diameter = found.diameter_high
            else:
                extra["diameter_bounds"] = [found.diameter_low, found.diameter_high]
            if found.radius_low == found.radius_high:
                radius = found.radius_high
            else:
                extra["radius_bounds"] = [found.radius_low, found.radius_high]
            if extra:
                unsettled = " and ".join(k.split("_")[0] for k in extra)
                extra["distance_note"] = (
                    f"{unsettled} not settled by {found.searches} breadth-first searches "
                    f"(graph above {EXACT_DISTANCE_NODES} nodes): bounds only"
                )
    else:
        degrees = [len(nbrs) for nbrs in atlas.values()]
        connected = n > 0 and nx.is_connected(graph)
        if connected:
            _check_convention(graph, "describe")
            diameter, radius = _diameter_radius(graph)
    m = sum(degrees) // 2
    router_count = len(routers(graph))
    caps = _capacity_counts(atlas)
    return {
        "n": n,
        "m": m,
        "min_degree": min(degrees, default=0),
        "max_degree": max(degrees, default=0),
        "mean_degree": (2.0 * m / n) if n else 0.0,
        "connected": connected,
        "diameter": diameter,
        "radius": radius,
        "processors": n - router_count,
        "routers": router_count,
        "capacities": {str(c): caps[c] for c in sorted(caps)},
        **_latency_counts(graph),
        **_links(graph),
        **extra,
        "spec": graph.graph.get("spec"),
    }


def _links(graph: nx.Graph) -> dict[str, list[dict[str, Any]]]:
    """``{"links": [...]}`` (kind, edges, bandwidth in bytes/s, latency in s, capacity) for a
    graph with physical units (:func:`gossipcert.graphs.links.link_summary`), else nothing."""
    from gossipcert.graphs.links import has_units, link_summary

    return {"links": link_summary(graph)} if has_units(graph) else {}


def _latency_counts(graph: nx.Graph) -> dict[str, dict[str, int]]:
    """``{"latencies": {L: edges}}`` when some edge's latency is not 1, else nothing."""
    if not latencies(graph):
        return {}
    counts = Counter(int(lat) for _, _, lat in graph.edges(data="latency", default=1))
    return {"latencies": {str(lat): counts[lat] for lat in sorted(counts)}}


def _capacity_counts(atlas: Any) -> dict[Any, int]:
    """Edges per capacity, from the adjacency dict of dicts (a missing capacity is 1)."""
    # every edge's data dict is shared by its two ends: count both ends, then halve
    ends = itertools.chain.from_iterable(map(dict.values, atlas.values()))
    try:
        caps = list(map(operator.itemgetter("capacity"), ends))
    except KeyError:
        caps = [data.get("capacity", 1) for nbrs in atlas.values() for data in nbrs.values()]
    if caps and set(map(type, caps)) == {int}:  # numpy counts plain ints many times faster
        try:
            values, counts = np.unique(np.array(caps, dtype=np.int64), return_counts=True)
        except OverflowError:
            pass
        else:
            pairs = zip(values.tolist(), counts.tolist(), strict=True)
            return {cap: count // 2 for cap, count in pairs}
    return {cap: count // 2 for cap, count in Counter(caps).items()}


def processors(graph: nx.Graph) -> list[int]:
    """The nodes that are not routers, in increasing order.

    Examples
    --------
    >>> from gossipcert.graphs import fat_tree
    >>> processors(fat_tree(2))
    [0, 1]
    """
    return sorted(v for v, flag in graph.nodes(data="router", default=False) if not flag)


def routers(graph: nx.Graph) -> list[int]:
    """The router nodes, in increasing order.

    Examples
    --------
    >>> from gossipcert.graphs import fat_tree, ring
    >>> routers(fat_tree(2)), routers(ring(4))
    ([2], [])
    """
    # the graph's own node dict: networkx's data view costs more than the scan on 10^5 nodes
    return sorted(v for v, data in graph._node.items() if data.get("router", False))


def is_router(graph: nx.Graph, v: int) -> bool:
    """Whether node ``v`` is a router; GraphError if ``v`` is not a node.

    Examples
    --------
    >>> from gossipcert.graphs import fat_tree
    >>> is_router(fat_tree(2), 2), is_router(fat_tree(2), 0)
    (True, False)
    """
    if v not in graph:
        raise GraphError(f"node {v!r} is not in the graph {graph.graph.get('spec', '')!r}")
    return bool(graph.nodes[v].get("router", False))


def capacity(graph: nx.Graph, u: int, v: int) -> int:
    """The capacity of edge ``u -- v``; GraphError if there is no such edge.

    Examples
    --------
    >>> from gossipcert.graphs import fat_tree
    >>> capacity(fat_tree(4, "exponential"), 4, 6)
    2
    """
    if not graph.has_edge(u, v):
        raise GraphError(f"no edge {u!r} -- {v!r} in the graph {graph.graph.get('spec', '')!r}")
    return int(graph[u][v].get("capacity", 1))


def latency(graph: nx.Graph, u: int, v: int) -> int:
    """The latency of edge ``u -- v``: the rounds a packet spends on it (1 unless the edge's
    ``latency`` attribute says otherwise); GraphError if there is no such edge.

    Examples
    --------
    >>> g = nx.path_graph(3)
    >>> g.add_edge(1, 2, latency=3)
    >>> latency(g, 0, 1), latency(g, 2, 1)
    (1, 3)
    """
    if not graph.has_edge(u, v):
        raise GraphError(f"no edge {u!r} -- {v!r} in the graph {graph.graph.get('spec', '')!r}")
    return int(graph[u][v].get("latency", 1))


def latencies(graph: nx.Graph) -> dict[tuple[int, int], int]:
    """The edges whose latency is not 1, as ``{(u, v): L}`` with ``u < v`` (empty: every
    link delivers in the round it is used, the model of every paper).

    Examples
    --------
    >>> g = nx.path_graph(3)
    >>> g.add_edge(2, 1, latency=2)
    >>> latencies(g), latencies(nx.path_graph(3))
    ({(1, 2): 2}, {})
    """
    return {
        (min(u, v), max(u, v)): int(lat)
        for u, v, lat in graph.edges(data="latency", default=1)
        if lat != 1
    }


def _label_index(graph: nx.Graph, rebuild: bool = False) -> dict[str, int]:
    index = graph.graph.get("_label_index")
    if index is None or rebuild or len(index) != graph.number_of_nodes():
        index = {}
        for v, label in graph.nodes(data="label"):
            index.setdefault(str(v) if label is None else str(label), v)
        graph.graph["_label_index"] = index
    return index


def resolve_node(graph: nx.Graph, ref: int | str) -> int:
    """The internal id of the node ``ref`` names.

    A node whose ``"label"`` equals ``str(ref)`` wins; otherwise an int ``ref`` (or its plain
    decimal string: ``"7"``, not ``"007"``) in ``0..n-1`` is taken as the internal id. The
    label map is built once and kept in ``G.graph["_label_index"]``; it is rebuilt when it
    names a node whose label has changed or when the number of nodes has changed (delete the
    key after other relabellings).

    Parameters
    ----------
    graph : networkx.Graph
        A graph following the module conventions.
    ref : int or str
        A label or an internal id.

    Returns
    -------
    int
        The node.

    Raises
    ------
    SpecError
        If ``ref`` names no node.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> g = from_spec("path:3")
    >>> resolve_node(g, 2), resolve_node(g, "1")
    (2, 1)
    """
    key = str(ref)
    index = _label_index(graph)
    v = index.get(key)
    if v is not None and v in graph and str(graph.nodes[v].get("label", v)) == key:
        return v
    if v is not None:  # the map is stale
        v = _label_index(graph, rebuild=True).get(key)
        if v is not None:
            return v
    n = graph.number_of_nodes()
    number: int | None = None
    if isinstance(ref, int) and not isinstance(ref, bool):
        number = ref
    elif isinstance(ref, str) and _is_plain_int(ref.strip()):
        number = int(ref.strip())  # "7", not "007" or "-0" (those stay labels)
    if number is not None and 0 <= number < n and number in graph:
        return number
    spec = graph.graph.get("spec")
    raise SpecError(
        f"unknown node {ref!r} in {f'graph {spec!r}' if spec else 'the graph'}; "
        f"expected a node label or an id in 0..{n - 1}"
    )


def _is_plain_int(label: str) -> bool:
    return bool(_INT_LABEL.fullmatch(label)) and str(int(label)) == label


def node_ref(graph: nx.Graph, v: int) -> int | str:
    """The external name of node ``v``: its label, as an int if it is the decimal form of one.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> node_ref(from_spec("ring:4"), 3)
    3
    """
    if v not in graph:
        raise GraphError(f"node {v!r} is not in the graph {graph.graph.get('spec', '')!r}")
    label = str(graph.nodes[v].get("label", v))
    return int(label) if _is_plain_int(label) else label
