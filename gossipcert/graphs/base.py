"""Conventions shared by the graph modules: family names, size limits and small helpers.

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from typing import Any

import networkx as nx

from gossipcert.errors import GraphError, SpecError
from gossipcert.gc_pause import paused_gc

#: Spec names of the built-in families, in the order they are listed in error messages.
FAMILIES: tuple[str, ...] = (
    "ring",
    "path",
    "complete",
    "star",
    "hypercube",
    "mesh",
    "torus",
    "petersen",
    "ccc",
    "butterfly",
    "shuffle-exchange",
    "debruijn",
    "knodel",
    "star-graph",
    "pancake",
    "fattree",
    "random",
    "fully-connected",
    "hub",
    "dgx1",
    "dgx2",
    "ndv2",
    "mi250",
    "a100",
    "ndv5",
    "mi300x",
)

#: File name endings that :func:`read_graph_file` and :func:`write_graph_file` understand.
GRAPH_FILE_SUFFIXES: tuple[str, ...] = (".edgelist", ".graphml", ".g6", ".json")

#: Largest number of nodes a family constructor builds (a guard against typing ``hypercube:40``).
MAX_NODES: int = 1 << 20

#: Largest number of edges a family constructor builds (``complete:100000`` would fill the
#: memory long before any solver could use it; ``hypercube:20`` has 10.5 million).
MAX_EDGES: int = 1 << 24

#: How many samples :func:`random_connected` draws before it gives up.
RANDOM_MAX_TRIES: int = 10_000

_INT_LABEL = re.compile(r"-?[0-9]+")
_UNSIGNED = re.compile(r"[0-9]+")
_TRUE_WORDS = frozenset({"true", "1", "yes"})
_FALSE_WORDS = frozenset({"false", "0", "no", ""})
_SUFFIX_LIST = ", ".join(GRAPH_FILE_SUFFIXES)


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


def _as_int(value: Any, name: str, where: str) -> int:
    """Return ``value`` as an int, or raise SpecError naming ``name`` in ``where``."""
    if isinstance(value, bool):
        raise SpecError(f"{where}: {name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise SpecError(f"{where}: {name} must be an integer, got {value!r}") from None


def _check_int(value: Any, name: str, where: str, minimum: int) -> int:
    """Return ``value`` as an int >= ``minimum``, or raise SpecError."""
    number = _as_int(value, name, where)
    if number < minimum:
        raise SpecError(f"{where}: {name} must be >= {minimum}, got {number}")
    return number


def _check_size(n: int, where: str, m: int = 0) -> None:
    """Refuse more than :data:`MAX_NODES` nodes or :data:`MAX_EDGES` edges."""
    if n > MAX_NODES:
        raise SpecError(f"{where}: {n} nodes is more than the limit of {MAX_NODES}")
    if m > MAX_EDGES:
        raise SpecError(f"{where}: {m} edges is more than the limit of {MAX_EDGES}")


def _new_graph(n: int, spec: str, *, vertex_transitive: bool = False) -> nx.Graph:
    """An edgeless graph on ``0..n-1`` with default labels and router flags."""
    graph = nx.Graph()
    graph.graph["spec"] = spec
    if vertex_transitive:
        graph.graph["vertex_transitive"] = True
    # the same as add_nodes_from with these attributes, written into networkx's own node and
    # adjacency dictionaries (several times faster for 10^5 nodes)
    nodes, adj = graph._node, graph._adj
    for v in range(n):
        nodes[v] = {"label": str(v), "router": False}
        adj[v] = {}
    return graph


def _add_edges(
    graph: nx.Graph, edges: Iterable[tuple[int, int]], cap: int = 1, *, fresh: bool = False
) -> None:
    """Add edges with capacity ``cap``, skipping self-loops (parallel edges merge).

    Same result as ``graph.add_edges_from`` on existing nodes, written into the adjacency
    dictionaries directly: several times faster on graphs of 10^5 nodes. With ``fresh=True``
    the caller promises distinct edges between existing nodes, none a self-loop or already in
    the graph, and the checks are skipped.
    """
    with paused_gc():
        _insert_edges(graph, edges, cap, fresh)
    clear = getattr(nx, "_clear_cache", None)
    if clear is not None:
        clear(graph)


def _insert_edges(graph: nx.Graph, edges: Iterable[tuple[int, int]], cap: int, fresh: bool) -> None:
    adj = graph._adj  # the graph's own adjacency dict of dicts
    if fresh:
        for u, v in edges:
            adj[u][v] = adj[v][u] = {"capacity": cap}
        return
    for u, v in edges:
        if u == v:
            continue
        if u not in adj or v not in adj:
            graph.add_edge(u, v, capacity=cap)
            continue
        data = adj[u].get(v)
        if data is None:
            data = {"capacity": cap}
            adj[u][v] = data
            adj[v][u] = data
        else:
            data["capacity"] = cap


def _set_coords(graph: nx.Graph, coords: Iterable[tuple[int, Any]]) -> None:
    nodes = graph._node
    for v, coord in coords:
        nodes[v]["coords"] = coord


def _check_convention(graph: nx.Graph, what: str) -> int:
    """Check that the nodes of ``graph`` are ``0..n-1``; return n."""
    n = graph.number_of_nodes()
    # exactly the ints 0..n-1 (a bool is an int but not a node name): n distinct ints of the
    # range are all of it
    if set(map(type, graph)) - {int} or not all(map(range(n).__contains__, graph)):
        raise GraphError(f"{what}: the nodes must be the integers 0..{n - 1}")
    return n
