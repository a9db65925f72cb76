"""Graph families, graph specifications and graph files.

Every graph this module returns is a :class:`networkx.Graph` that obeys the same conventions,
on which the rest of gossipcert relies:

* undirected and simple (no self-loops; parallel edges are merged by the constructions and
  rejected in files); the nodes are the integers ``0..n-1``;
* ``G.graph["spec"]`` is a canonical specification string (``"hypercube:4"``, ``"ring:3*path:2"``)
  or, for a graph read from a file, the file's path;
* every node has a ``"label"`` (str): ``str(v)`` for the built-in families, the label used in the
  file for files; schedules and command-line arguments may name nodes by it
  (see :func:`resolve_node` and :func:`node_ref`);
* every node has a ``"router"`` flag (bool): True only for nodes that relay but neither hold nor
  demand information (the inner nodes of fat trees; files may mark routers too);
* every edge has an integer ``"capacity"`` >= 1 (1 unless the family or the file says otherwise);
* families with structure give each node ``"coords"``: ``(r, c)`` for meshes and tori, ``(i, j)``
  for cube-connected cycles and butterflies, ``(s, j)`` for Knödel graphs, the permutation tuple
  for star and pancake graphs, ``(level, index)`` for fat trees and ``(a, b)`` for products;
* families whose nodes all have the same eccentricity (all of them are vertex-transitive) set
  ``G.graph["vertex_transitive"] = True``; :func:`describe` then needs one breadth-first search.

Families (spec form, nodes ``n``, edges ``m``):

==========================  ======================  =========================================
spec                        n                       m
==========================  ======================  =========================================
``ring:N``                  N                       N
``path:N``                  N                       N - 1
``complete:N``              N                       N(N-1)/2
``star:N``                  N                       N - 1
``hypercube:K``             2^K                     K 2^(K-1)
``mesh:AxB``                AB                      2AB - A - B
``torus:AxB``               AB                      2AB
``petersen``                10                      15
``ccc:K``                   K 2^K                   3/2 K 2^K
``butterfly:K``             K 2^K                   2 K 2^K
``shuffle-exchange:K``      2^K                     3/2 2^K - 3 (K even), - 2 (K odd)
``debruijn:K``              2^K                     2 2^K - 3
``knodel:N`` / ``N,D``      N                       N D / 2 (default D = floor(log2 N))
``star-graph:K``            K!                      (K-1) K!/2
``pancake:K``               K!                      (K-1) K!/2
``fattree:N`` / ``N:exp``   2N - 1 (N processors)   2N - 2
``random:N,M,seed=S``       N                       M
==========================  ======================  =========================================

Products are written with ``*`` (``ring:3*path:2``, left-associative) and any string that
contains ``/`` or ends in ``.edgelist``, ``.graphml``, ``.g6`` or ``.json`` names a graph file.
Bad specifications raise :class:`~gossipcert.errors.SpecError`; unreadable or malformed graph
files raise :class:`~gossipcert.errors.GraphError`.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   Proc. 7th Colloquium on Structural Information and Communication Complexity (SIROCCO),
   2000. Section 2 (graph classes, node and edge counts) and section 8 (index tuples of
   cube-connected cycles, butterflies, star and pancake graphs).
.. [2] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Section 2 (binary fat trees, constant and exponential capacities).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import json
import math
import operator
import os
import random
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from gossipcert.errors import GossipcertError, GraphError, SpecError

__all__ = [
    "FAMILIES",
    "GRAPH_FILE_SUFFIXES",
    "MAX_NODES",
    "capacity",
    "cartesian_product",
    "complete",
    "cube_connected_cycles",
    "de_bruijn",
    "describe",
    "fat_tree",
    "from_spec",
    "hypercube",
    "is_router",
    "knodel",
    "mesh",
    "node_ref",
    "pancake",
    "path",
    "petersen",
    "processors",
    "random_connected",
    "read_graph_file",
    "resolve_node",
    "ring",
    "routers",
    "shuffle_exchange",
    "star",
    "star_graph",
    "torus",
    "wrapped_butterfly",
    "write_graph_file",
]

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
)

#: File name endings that :func:`read_graph_file` and :func:`write_graph_file` understand.
GRAPH_FILE_SUFFIXES: tuple[str, ...] = (".edgelist", ".graphml", ".g6", ".json")

#: Largest number of nodes a family constructor builds (a guard against typing ``hypercube:40``).
MAX_NODES: int = 1 << 20

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


def _check_size(n: int, where: str) -> None:
    if n > MAX_NODES:
        raise SpecError(f"{where}: {n} nodes is more than the limit of {MAX_NODES}")


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


def _add_edges(graph: nx.Graph, edges: Iterable[tuple[int, int]], cap: int = 1) -> None:
    """Add edges with capacity ``cap``, skipping self-loops (parallel edges merge).

    Same result as ``graph.add_edges_from`` on existing nodes, written into the adjacency
    dictionaries directly: several times faster on graphs of 10^5 nodes.
    """
    adj = graph._adj  # the graph's own adjacency dict of dicts
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
    clear = getattr(nx, "_clear_cache", None)
    if clear is not None:
        clear(graph)


def _set_coords(graph: nx.Graph, coords: Iterable[tuple[int, Any]]) -> None:
    nodes = graph._node
    for v, coord in coords:
        nodes[v]["coords"] = coord


def _check_convention(graph: nx.Graph, what: str) -> int:
    """Check that the nodes of ``graph`` are ``0..n-1``; return n."""
    n = graph.number_of_nodes()
    if any(not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < n for v in graph):
        raise GraphError(f"{what}: the nodes must be the integers 0..{n - 1}")
    return n


# --------------------------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------------------------


def ring(n: int) -> nx.Graph:
    """The ring (cycle) ``C_n``.

    Node ``v`` is joined to ``(v + 1) mod n``.

    Parameters
    ----------
    n : int
        Number of nodes, at least 3.

    Returns
    -------
    networkx.Graph
        ``n`` nodes and ``n`` edges, 2-regular, diameter ``floor(n/2)``.

    Examples
    --------
    >>> g = ring(5)
    >>> g.number_of_nodes(), g.number_of_edges(), g.graph["spec"]
    (5, 5, 'ring:5')

    References
    ----------
    Beier and Sibeyn, section 2 (a ring is a 1 x n torus).
    """
    n = _check_int(n, "n", "ring", 3)
    _check_size(n, "ring")
    graph = _new_graph(n, f"ring:{n}", vertex_transitive=True)
    _add_edges(graph, ((v, (v + 1) % n) for v in range(n)))
    return graph


def path(n: int) -> nx.Graph:
    """The path ``P_n``.

    Node ``v`` is joined to ``v + 1``.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.

    Returns
    -------
    networkx.Graph
        ``n`` nodes and ``n - 1`` edges, diameter ``n - 1``.

    Examples
    --------
    >>> g = path(4)
    >>> sorted(g.edges())
    [(0, 1), (1, 2), (2, 3)]

    References
    ----------
    Beier and Sibeyn, section 2 (a path is a 1 x n mesh).
    """
    n = _check_int(n, "n", "path", 1)
    _check_size(n, "path")
    graph = _new_graph(n, f"path:{n}", vertex_transitive=n <= 2)
    _add_edges(graph, ((v, v + 1) for v in range(n - 1)))
    return graph


def complete(n: int) -> nx.Graph:
    """The complete graph ``K_n``.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.

    Returns
    -------
    networkx.Graph
        ``n`` nodes and ``n (n - 1) / 2`` edges, ``(n - 1)``-regular.

    Examples
    --------
    >>> complete(6).number_of_edges()
    15

    References
    ----------
    Classical.
    """
    n = _check_int(n, "n", "complete", 1)
    _check_size(n, "complete")
    graph = _new_graph(n, f"complete:{n}", vertex_transitive=True)
    _add_edges(graph, itertools.combinations(range(n), 2))
    return graph


def star(n: int) -> nx.Graph:
    """The star ``K_{1,n-1}``: centre 0 joined to the leaves ``1..n-1``.

    Not to be confused with the star graph of permutations, :func:`star_graph`.

    Parameters
    ----------
    n : int
        Number of nodes in total (centre and leaves), at least 2.

    Returns
    -------
    networkx.Graph
        ``n`` nodes and ``n - 1`` edges.

    Examples
    --------
    >>> sorted(star(4).edges())
    [(0, 1), (0, 2), (0, 3)]

    References
    ----------
    Classical.
    """
    n = _check_int(n, "n", "star", 2)
    _check_size(n, "star")
    graph = _new_graph(n, f"star:{n}", vertex_transitive=n == 2)
    _add_edges(graph, ((0, v) for v in range(1, n)))
    return graph


def hypercube(k: int) -> nx.Graph:
    """The ``k``-dimensional hypercube ``Q_k``.

    Node ``v`` (``0 <= v < 2^k``) is the bit string of ``v``; it is joined to
    ``v xor 2^i`` for ``i = 0..k-1``.

    Parameters
    ----------
    k : int
        Dimension, at least 1.

    Returns
    -------
    networkx.Graph
        ``n = 2^k`` nodes and ``m = k 2^(k-1)`` edges, ``k``-regular, diameter ``k``.

    Examples
    --------
    >>> g = hypercube(3)
    >>> g.number_of_nodes(), g.number_of_edges()
    (8, 12)

    References
    ----------
    Beier and Sibeyn, section 2 ("Hypercube_k: n = 2^k, m = k/2 * 2^k").
    """
    k = _power_family_k(k, "hypercube", 1, per_cycle=False)
    n = 1 << k
    graph = _new_graph(n, f"hypercube:{k}", vertex_transitive=True)
    _add_edges(graph, ((v, v ^ (1 << i)) for v in range(n) for i in range(k) if not v >> i & 1))
    return graph


def _grid(a: int, b: int, *, wrap: bool, family: str) -> nx.Graph:
    minimum = 3 if wrap else 1
    a = _check_int(a, "a", family, minimum)
    b = _check_int(b, "b", family, minimum)
    _check_size(a * b, family)
    graph = _new_graph(a * b, f"{family}:{a}x{b}", vertex_transitive=wrap)
    _set_coords(graph, ((r * b + c, (r, c)) for r in range(a) for c in range(b)))
    edges = []
    for r in range(a):
        for c in range(b):
            v = r * b + c
            if wrap or c + 1 < b:
                edges.append((v, r * b + (c + 1) % b))
            if wrap or r + 1 < a:
                edges.append((v, ((r + 1) % a) * b + c))
    _add_edges(graph, edges)
    return graph


def mesh(a: int, b: int) -> nx.Graph:
    """The two-dimensional ``a x b`` mesh (grid).

    Node ``(r, c)``, ``0 <= r < a``, ``0 <= c < b``, is number ``r * b + c`` and has
    ``coords == (r, c)``; it is joined to ``(r, c + 1)`` and ``(r + 1, c)`` when they exist.

    Parameters
    ----------
    a, b : int
        Number of rows and columns, each at least 1.

    Returns
    -------
    networkx.Graph
        ``n = a b`` nodes and ``m = 2 a b - a - b`` edges, diameter ``a + b - 2``.

    Examples
    --------
    >>> g = mesh(3, 4)
    >>> g.number_of_nodes(), g.number_of_edges(), g.nodes[5]["coords"]
    (12, 17, (1, 1))

    References
    ----------
    Beier and Sibeyn, section 2 ("Mesh_{a x b}: n = a*b, m = 2*a*b - a - b").
    """
    return _grid(a, b, wrap=False, family="mesh")


def torus(a: int, b: int) -> nx.Graph:
    """The two-dimensional ``a x b`` torus (a mesh with wrap-around edges).

    Node ``(r, c)`` is number ``r * b + c``; it is joined to ``(r, (c + 1) mod b)`` and
    ``((r + 1) mod a, c)``.

    Parameters
    ----------
    a, b : int
        Number of rows and columns, each at least 3 (so that the graph is simple).

    Returns
    -------
    networkx.Graph
        ``n = a b`` nodes and ``m = 2 a b`` edges, 4-regular,
        diameter ``floor(a/2) + floor(b/2)``.

    Examples
    --------
    >>> g = torus(3, 4)
    >>> g.number_of_nodes(), g.number_of_edges()
    (12, 24)

    References
    ----------
    Beier and Sibeyn, section 2 ("Torus_{a x b}: n = a*b, m = 2*a*b").
    """
    return _grid(a, b, wrap=True, family="torus")


def petersen() -> nx.Graph:
    """The Petersen graph.

    Outer 5-cycle ``0..4`` (``i -- (i+1) mod 5``), spokes ``i -- i+5`` and the inner pentagram
    ``5+i -- 5+((i+2) mod 5)`` (the numbering of :func:`networkx.petersen_graph`).

    Returns
    -------
    networkx.Graph
        10 nodes, 15 edges, 3-regular, diameter 2.

    Examples
    --------
    >>> g = petersen()
    >>> g.number_of_edges(), g.graph["spec"]
    (15, 'petersen')

    References
    ----------
    Classical.
    """
    graph = _new_graph(10, "petersen", vertex_transitive=True)
    edges = []
    for i in range(5):
        edges.append((i, (i + 1) % 5))
        edges.append((i, i + 5))
        edges.append((5 + i, 5 + (i + 2) % 5))
    _add_edges(graph, edges)
    return graph


def _power_family_k(k: int, family: str, minimum: int, *, per_cycle: bool) -> int:
    """Check the dimension of a family with ``2^k`` (or ``k 2^k``) nodes."""
    k = _check_int(k, "k", family, minimum)
    if (k << k if per_cycle else 1 << k) > MAX_NODES:
        size = f"{k} * 2^{k}" if per_cycle else f"2^{k}"
        raise SpecError(f"{family}: {size} nodes is more than the limit of {MAX_NODES}")
    return k


def cube_connected_cycles(k: int) -> nx.Graph:
    """The ``k``-dimensional cube-connected cycles ``CCC_k``.

    Node ``(i, j)``, ``0 <= i < 2^k`` (the cycle) and ``0 <= j < k`` (the position on it), is
    number ``i * k + j`` with ``coords == (i, j)``. Cycle edges join ``(i, j)`` and
    ``(i, (j + 1) mod k)``; cross edges join ``(i, j)`` and ``(i xor 2^j, j)``.

    Parameters
    ----------
    k : int
        Dimension, at least 3.

    Returns
    -------
    networkx.Graph
        ``n = k 2^k`` nodes and ``m = 3/2 k 2^k`` edges, 3-regular.

    Examples
    --------
    >>> g = cube_connected_cycles(3)
    >>> g.number_of_nodes(), g.number_of_edges()
    (24, 36)

    References
    ----------
    Beier and Sibeyn, section 2 (counts) and section 8 ("cross edges for the edges between
    (i, j) and (i +- 2^j, j), and cycle edges for the edges between (i, j) and
    (i, (j +- 1) mod k)").
    """
    k = _power_family_k(k, "ccc", 3, per_cycle=True)
    n = k << k
    graph = _new_graph(n, f"ccc:{k}", vertex_transitive=True)
    _set_coords(graph, ((i * k + j, (i, j)) for i in range(1 << k) for j in range(k)))
    edges = []
    for i in range(1 << k):
        for j in range(k):
            edges.append((i * k + j, i * k + (j + 1) % k))
            other = i ^ (1 << j)
            if i < other:
                edges.append((i * k + j, other * k + j))
    _add_edges(graph, edges)
    return graph


def wrapped_butterfly(k: int) -> nx.Graph:
    """The ``k``-dimensional wrapped butterfly ``Butterfly_k``.

    Node ``(i, j)``, ``0 <= i < 2^k``, ``0 <= j < k``, is number ``i * k + j`` with
    ``coords == (i, j)``. Cycle edges join ``(i, j)`` and ``(i, (j + 1) mod k)``; cross edges
    join ``(i, j)`` and ``(i xor 2^j, (j + 1) mod k)``.

    Parameters
    ----------
    k : int
        Dimension, at least 3 (for ``k <= 2`` cross and cycle edges would coincide).

    Returns
    -------
    networkx.Graph
        ``n = k 2^k`` nodes and ``m = 2 k 2^k`` edges, 4-regular.

    Examples
    --------
    >>> g = wrapped_butterfly(3)
    >>> g.number_of_nodes(), g.number_of_edges()
    (24, 48)

    References
    ----------
    Beier and Sibeyn, section 2 (counts) and section 8 ("The cross edges are now running from
    a node (i, j) to (i +- 2^j, (j + 1) mod k)").
    """
    k = _power_family_k(k, "butterfly", 3, per_cycle=True)
    n = k << k
    graph = _new_graph(n, f"butterfly:{k}", vertex_transitive=True)
    _set_coords(graph, ((i * k + j, (i, j)) for i in range(1 << k) for j in range(k)))
    edges = []
    for i in range(1 << k):
        for j in range(k):
            nxt = (j + 1) % k
            edges.append((i * k + j, i * k + nxt))
            edges.append((i * k + j, (i ^ (1 << j)) * k + nxt))
    _add_edges(graph, edges)
    return graph


def shuffle_exchange(k: int) -> nx.Graph:
    """The ``k``-th shuffle-exchange graph ``SE_k``.

    Node ``i`` (``0 <= i < 2^k``) is the ``k``-bit string of ``i``. Exchange edges join ``i``
    and ``i xor 1``; shuffle edges join ``i`` and its cyclic left rotation
    ``((i << 1) | (i >> (k-1))) mod 2^k``. Self-loops (at ``0`` and ``2^k - 1``) are dropped and
    the two shuffle edges of the 2-cycle ``0101.. / 1010..`` (even ``k``) are merged.

    Parameters
    ----------
    k : int
        Number of bits, at least 2.

    Returns
    -------
    networkx.Graph
        ``n = 2^k`` nodes; ``m = 3/2 2^k - 3`` edges for even ``k`` and ``3/2 2^k - 2`` for
        odd ``k``.

    Examples
    --------
    >>> shuffle_exchange(3).number_of_edges(), shuffle_exchange(4).number_of_edges()
    (10, 21)

    References
    ----------
    Beier and Sibeyn, section 2 ("SE_k: n = 2^k, m = 3/2 * 2^k - 3, for k even, and
    m = 3/2 * 2^k - 2, for k odd").
    """
    k = _power_family_k(k, "shuffle-exchange", 2, per_cycle=False)
    n = 1 << k
    graph = _new_graph(n, f"shuffle-exchange:{k}")
    edges = []
    for i in range(n):
        edges.append((i, i ^ 1))
        edges.append((i, ((i << 1) | (i >> (k - 1))) & (n - 1)))
    _add_edges(graph, edges)
    return graph


def de_bruijn(k: int) -> nx.Graph:
    """The ``k``-th (binary, undirected) de Bruijn graph ``DeBruijn_k``.

    Node ``i`` (``0 <= i < 2^k``) is joined to ``(2 i + b) mod 2^k`` for ``b`` in ``{0, 1}``.
    The self-loops at ``0`` and ``2^k - 1`` are dropped and the two edges between ``0101..``
    and ``1010..`` are merged.

    Parameters
    ----------
    k : int
        Number of bits, at least 2.

    Returns
    -------
    networkx.Graph
        ``n = 2^k`` nodes and ``m = 2 2^k - 3`` edges.

    Examples
    --------
    >>> de_bruijn(3).number_of_edges()
    13

    References
    ----------
    Beier and Sibeyn, section 2 ("DeBruijn_k: n = 2^k, m = 2 * 2^k - 3").
    """
    k = _power_family_k(k, "debruijn", 2, per_cycle=False)
    n = 1 << k
    graph = _new_graph(n, f"debruijn:{k}")
    _add_edges(graph, ((i, (2 * i + b) % n) for i in range(n) for b in (0, 1)))
    return graph


def knodel(n: int, delta: int | None = None) -> nx.Graph:
    """The Knödel graph ``W_{delta, n}``.

    Node ``(s, j)``, ``s`` in ``{1, 2}``, ``0 <= j < n/2``, is number ``(s - 1) * n/2 + j`` with
    ``coords == (s, j)``. For ``i = 0..delta-1`` node ``(1, j)`` is joined to
    ``(2, (j + 2^i - 1) mod n/2)``.

    Parameters
    ----------
    n : int
        Number of nodes, even and at least 2.
    delta : int, optional
        Degree, ``1 <= delta <= floor(log2 n)``; default ``floor(log2 n)``. The bound makes the
        offsets ``2^i - 1`` distinct modulo ``n/2``, so the graph is simple and regular.

    Returns
    -------
    networkx.Graph
        ``n`` nodes and ``m = n delta / 2`` edges, ``delta``-regular, bipartite.

    Examples
    --------
    >>> g = knodel(8)
    >>> g.number_of_edges(), g.graph["spec"], knodel(8, 2).graph["spec"]
    (12, 'knodel:8', 'knodel:8,2')

    References
    ----------
    Beier and Sibeyn, section 2 ("Knödel_{Delta,k}: n = k, m = k * Delta / 2");
    W. Knödel, "New gossips and telephones", Discrete Math. 13 (1975) 95.
    """
    n = _check_int(n, "n", "knodel", 2)
    if n % 2:
        raise SpecError(f"knodel: n must be even, got {n}")
    _check_size(n, "knodel")
    largest = n.bit_length() - 1
    if delta is None:
        delta = largest
    delta = _check_int(delta, "delta", "knodel", 1)
    if delta > largest:
        raise SpecError(
            f"knodel: delta must be <= floor(log2 n) = {largest} for n = {n}, got {delta}"
        )
    half = n // 2
    spec = f"knodel:{n}" if delta == largest else f"knodel:{n},{delta}"
    graph = _new_graph(n, spec, vertex_transitive=True)
    _set_coords(graph, ((s * half + j, (s + 1, j)) for s in (0, 1) for j in range(half)))
    _add_edges(
        graph, ((j, half + (j + (1 << i) - 1) % half) for j in range(half) for i in range(delta))
    )
    return graph


def _permutation_graph(
    k: int, family: str, move: Callable[[tuple[int, ...], int], tuple[int, ...]]
) -> nx.Graph:
    k = _check_int(k, "k", family, 2)
    _check_size(math.factorial(min(k, 20)), family)
    perms = list(itertools.permutations(range(k)))
    index = {p: v for v, p in enumerate(perms)}
    graph = _new_graph(len(perms), f"{family}:{k}", vertex_transitive=True)
    _set_coords(graph, enumerate(perms))
    _add_edges(graph, ((v, index[move(p, c)]) for v, p in enumerate(perms) for c in range(k - 1)))
    return graph


def _swap_first(perm: tuple[int, ...], c: int) -> tuple[int, ...]:
    items = list(perm)
    items[0], items[c + 1] = items[c + 1], items[0]
    return tuple(items)


def _reverse_prefix(perm: tuple[int, ...], c: int) -> tuple[int, ...]:
    return perm[c + 1 :: -1] + perm[c + 2 :]


def star_graph(k: int) -> nx.Graph:
    """The ``k``-dimensional star graph ``Star_k`` (a Cayley graph of the symmetric group).

    Nodes are the permutations ``(i_0, ..., i_{k-1})`` of ``0..k-1``, numbered in
    lexicographic order (``coords`` is the permutation). For ``c = 0..k-2``, generator ``c``
    joins a permutation to the one with entries ``i_0`` and ``i_{c+1}`` exchanged.

    Parameters
    ----------
    k : int
        Length of the permutations, at least 2.

    Returns
    -------
    networkx.Graph
        ``n = k!`` nodes and ``m = (k - 1) k! / 2`` edges, ``(k - 1)``-regular.

    Examples
    --------
    >>> g = star_graph(4)
    >>> g.number_of_nodes(), g.number_of_edges(), g.nodes[1]["coords"]
    (24, 36, (0, 1, 3, 2))

    References
    ----------
    Beier and Sibeyn, section 8 ("For Star_k, M_c, 0 <= c <= k - 2, contains all edges between
    nodes (i_0, i_1, ..., i_{k-1}) and the node with i_0 and i_{c+1} exchanged").
    """
    return _permutation_graph(k, "star-graph", _swap_first)


def pancake(k: int) -> nx.Graph:
    """The ``k``-dimensional pancake graph ``Pancake_k``.

    Nodes are the permutations of ``0..k-1`` in lexicographic order (``coords`` is the
    permutation). For ``c = 0..k-2``, generator ``c`` reverses the first ``c + 2`` entries.

    Parameters
    ----------
    k : int
        Length of the permutations, at least 2.

    Returns
    -------
    networkx.Graph
        ``n = k!`` nodes and ``m = (k - 1) k! / 2`` edges, ``(k - 1)``-regular.

    Examples
    --------
    >>> g = pancake(4)
    >>> g.number_of_nodes(), g.number_of_edges()
    (24, 36)

    References
    ----------
    Beier and Sibeyn, section 8 ("For Pancake_k, M_c, 0 <= c <= k - 2, contains all edges
    between nodes (i_0, i_1, ..., i_{k-1}) and the node with i_0, ..., i_{c+1} replaced by
    i_{c+1}, ..., i_0").
    """
    return _permutation_graph(k, "pancake", _reverse_prefix)


def _fat_tree_capacities(
    levels: int, capacities: str | Sequence[int]
) -> tuple[list[int], str | None]:
    """Return ``[c_1, ..., c_levels]`` and the spec suffix (None for constant)."""
    constant = [1] * levels
    exponential = [1 << (i - 1) for i in range(1, levels + 1)]
    if isinstance(capacities, str):
        word = capacities.strip().lower()
        if word in ("constant", "const"):
            return constant, None
        if word in ("exponential", "exp"):
            return exponential, "exp"
        raise SpecError(
            f"fattree: unknown capacity pattern {capacities!r}; "
            "accepted: 'constant', 'exponential' or a list of capacities c_1..c_L"
        )
    values = [_check_int(c, "capacity", "fattree", 1) for c in capacities]
    if len(values) != levels:
        raise SpecError(f"fattree: {len(values)} capacities given, need one per level 1..{levels}")
    if any(later < earlier for earlier, later in itertools.pairwise(values)):
        raise SpecError(f"fattree: capacities {values} must not decrease towards the root")
    if values == constant:
        return values, None
    if values == exponential:
        return values, "exp"
    return values, ",".join(map(str, values))


def fat_tree(n_leaves: int, capacities: str | Sequence[int] = "constant") -> nx.Graph:
    """The binary fat tree with ``n_leaves`` processors.

    A complete binary tree whose ``n_leaves`` leaves (level 0) are the processors and whose
    inner nodes (levels ``1..log2 n_leaves``, the root last) are routers. Node ``(level, x)``
    has ``coords == (level, x)``, ``x`` counted from the left. The leaves are nodes
    ``0..n_leaves-1`` in left-to-right order; the routers follow level by level, left to
    right, so the root is node ``2 n_leaves - 2``. Router ``(l, x)`` is joined to its children
    ``(l - 1, 2x)`` and ``(l - 1, 2x + 1)`` by a branch of capacity ``c_l``.

    Parameters
    ----------
    n_leaves : int
        Number of processors, a power of 2, at least 2.
    capacities : {"constant", "exponential"} or sequence of int
        ``"constant"``: ``c_l = 1`` (CBFT, the plain complete binary tree);
        ``"exponential"``: ``c_l = 2^(l-1)`` (EBFT, ``n_leaves`` physical links per level);
        or the capacities ``c_1, ..., c_L`` (non-decreasing, each >= 1) themselves.

    Returns
    -------
    networkx.Graph
        ``2 n_leaves - 1`` nodes (``n_leaves - 1`` routers) and ``2 n_leaves - 2`` edges.

    Examples
    --------
    >>> g = fat_tree(4, "exponential")
    >>> g.graph["spec"], g.number_of_nodes(), g.nodes[6]["coords"], g[4][6]["capacity"]
    ('fattree:4:exp', 7, (2, 0), 2)
    >>> processors(g), routers(g)
    ([0, 1, 2, 3], [4, 5, 6])

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2 ("The branches between levels i - 1 and i have
    capacity c_i ... constant ... c_i = 1 ... exponential-capacity tree (EBFT) has
    c_i = 2^(i-1)").
    """
    n_leaves = _check_int(n_leaves, "n_leaves", "fattree", 2)
    if n_leaves & (n_leaves - 1):
        raise SpecError(f"fattree: the number of leaves must be a power of 2, got {n_leaves}")
    _check_size(2 * n_leaves - 1, "fattree")
    levels = n_leaves.bit_length() - 1
    caps, suffix = _fat_tree_capacities(levels, capacities)
    spec = f"fattree:{n_leaves}" if suffix is None else f"fattree:{n_leaves}:{suffix}"
    graph = _new_graph(2 * n_leaves - 1, spec)
    offsets = [0]
    for level in range(levels):
        offsets.append(offsets[-1] + (n_leaves >> level))
    for level in range(levels + 1):
        for x in range(n_leaves >> level):
            attrs = graph.nodes[offsets[level] + x]
            attrs["coords"] = (level, x)
            attrs["router"] = level > 0
    for level in range(1, levels + 1):
        for x in range(n_leaves >> level):
            parent = offsets[level] + x
            for child in (2 * x, 2 * x + 1):
                graph.add_edge(offsets[level - 1] + child, parent, capacity=caps[level - 1])
    return graph


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
    _check_size(n, "random")
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
                _add_edges(graph, edges)
                return graph
    _add_edges(graph, _tree_plus_edges(n, m, random.Random(f"tree:{seed}")))
    return graph


def _tree_plus_edges(n: int, m: int, rng: random.Random) -> list[tuple[int, int]]:
    """A uniformly random labelled tree on ``0..n-1`` plus ``m - n + 1`` random other edges.

    Returns the ``m`` edges ``(u, v)``, ``u < v``, sorted.
    """
    keys: set[int] = set()  # edge (u, v), u < v, as u * n + v
    if n >= 2:
        prufer = rng.choices(range(n), k=n - 2)
        degree = [1] * n
        for v in prufer:
            degree[v] += 1
        leaves = [v for v in range(n) if degree[v] == 1]
        heapq.heapify(leaves)
        for v in prufer:
            leaf = heapq.heappop(leaves)
            keys.add(min(leaf, v) * n + max(leaf, v))
            degree[v] -= 1
            if degree[v] == 1:
                heapq.heappush(leaves, v)
        u, v = heapq.heappop(leaves), heapq.heappop(leaves)
        keys.add(min(u, v) * n + max(u, v))
    while len(keys) < m:
        need = m - len(keys)
        for u, v in zip(rng.choices(range(n), k=need), rng.choices(range(n), k=need), strict=True):
            if u != v:
                keys.add(u * n + v if u < v else v * n + u)
    return [divmod(key, n) for key in sorted(keys)]


def cartesian_product(g1: nx.Graph, g2: nx.Graph) -> nx.Graph:
    """The Cartesian product ``g1 x g2``.

    Node ``(a, b)`` (``a`` in ``g1``, ``b`` in ``g2``) is number ``a * n2 + b`` with
    ``coords == (a, b)``. ``(a, b)`` and ``(a', b')`` are joined when ``a == a'`` and
    ``b -- b'`` is an edge of ``g2`` (capacity of ``b -- b'``), or ``b == b'`` and ``a -- a'``
    is an edge of ``g1`` (capacity of ``a -- a'``). ``(a, b)`` is a router if ``a`` or ``b`` is.
    Labels are ``str(v)`` when both factors use the default labels, else ``"(la,lb)"``.

    Parameters
    ----------
    g1, g2 : networkx.Graph
        Graphs following the module conventions (nodes ``0..n-1``).

    Returns
    -------
    networkx.Graph
        ``n1 n2`` nodes and ``n1 m2 + n2 m1`` edges; spec ``"spec1*spec2"``.

    Examples
    --------
    >>> g = cartesian_product(ring(3), path(2))
    >>> g.graph["spec"], g.number_of_nodes(), g.number_of_edges(), g.nodes[3]["coords"]
    ('ring:3*path:2', 6, 9, (1, 1))

    References
    ----------
    Classical; Beier and Sibeyn, section 3 (meshes and tori are products of paths and rings).
    """
    n1 = _check_convention(g1, "cartesian_product: first factor")
    n2 = _check_convention(g2, "cartesian_product: second factor")
    _check_size(n1 * n2, "product")
    spec = f"{g1.graph.get('spec', 'graph')}*{g2.graph.get('spec', 'graph')}"
    transitive = bool(g1.graph.get("vertex_transitive") and g2.graph.get("vertex_transitive"))
    graph = _new_graph(n1 * n2, spec, vertex_transitive=transitive)
    labels1 = [str(g1.nodes[a].get("label", a)) for a in range(n1)]
    labels2 = [str(g2.nodes[b].get("label", b)) for b in range(n2)]
    plain = labels1 == [str(a) for a in range(n1)] and labels2 == [str(b) for b in range(n2)]
    router1 = [bool(g1.nodes[a].get("router", False)) for a in range(n1)]
    router2 = [bool(g2.nodes[b].get("router", False)) for b in range(n2)]
    for a in range(n1):
        for b in range(n2):
            attrs = graph.nodes[a * n2 + b]
            attrs["coords"] = (a, b)
            attrs["router"] = router1[a] or router2[b]
            if not plain:
                attrs["label"] = f"({labels1[a]},{labels2[b]})"
    for a, a2, data in g1.edges(data=True):
        cap = data.get("capacity", 1)
        graph.add_edges_from((a * n2 + b, a2 * n2 + b, {"capacity": cap}) for b in range(n2))
    for b, b2, data in g2.edges(data=True):
        cap = data.get("capacity", 1)
        graph.add_edges_from((a * n2 + b, a * n2 + b2, {"capacity": cap}) for a in range(n1))
    return graph


# --------------------------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------------------------

_USAGE: dict[str, str] = {
    "ring": "ring:N (N >= 3)",
    "path": "path:N (N >= 1)",
    "complete": "complete:N (N >= 1)",
    "star": "star:N (N >= 2 nodes in total)",
    "hypercube": "hypercube:K (K >= 1)",
    "mesh": "mesh:AxB (A, B >= 1)",
    "torus": "torus:AxB (A, B >= 3)",
    "petersen": "petersen (no parameters)",
    "ccc": "ccc:K (K >= 3)",
    "butterfly": "butterfly:K (K >= 3)",
    "shuffle-exchange": "shuffle-exchange:K (K >= 2)",
    "debruijn": "debruijn:K (K >= 2)",
    "knodel": "knodel:N or knodel:N,DELTA (N even >= 2, 1 <= DELTA <= floor(log2 N))",
    "star-graph": "star-graph:K (K >= 2)",
    "pancake": "pancake:K (K >= 2)",
    "fattree": "fattree:N, fattree:N:exp or fattree:N:C1,C2,... (N a power of 2 >= 2)",
    "random": "random:N,M,seed=S (N - 1 <= M <= N(N-1)/2)",
}


def _spec_int(token: str, family: str, spec: str) -> int:
    text = token.strip()
    if not _UNSIGNED.fullmatch(text):
        raise SpecError(f"bad number {token!r} in {spec!r}; expected {_USAGE[family]}")
    return int(text)


def _spec_ints(args: str, family: str, spec: str, sep: str, count: Sequence[int]) -> list[int]:
    parts = args.split(sep) if args else []
    if len(parts) not in count:
        raise SpecError(f"wrong number of parameters in {spec!r}; expected {_USAGE[family]}")
    return [_spec_int(part, family, spec) for part in parts]


_Builder = Callable[[], nx.Graph]


def _parse_fattree(args: str, spec: str) -> _Builder:
    head, colon, tail = args.partition(":")
    n_leaves = _spec_int(head, "fattree", spec)
    if not colon:
        return lambda: fat_tree(n_leaves)
    word = tail.strip().lower()
    if word in ("exp", "exponential", "const", "constant"):
        return lambda: fat_tree(n_leaves, word)
    if re.fullmatch(r"[0-9]+(\s*,\s*[0-9]+)*", word):
        caps = [int(c) for c in word.split(",")]
        return lambda: fat_tree(n_leaves, caps)
    raise SpecError(
        f"unknown capacity pattern {tail!r} in {spec!r}; accepted: exp, exponential, const, "
        f"constant or a list C1,C2,... of capacities; expected {_USAGE['fattree']}"
    )


def _parse_random(args: str, spec: str) -> _Builder:
    parts = [part.strip() for part in args.split(",")]
    if len(parts) not in (2, 3):
        raise SpecError(f"wrong number of parameters in {spec!r}; expected {_USAGE['random']}")
    n = _spec_int(parts[0], "random", spec)
    m = _spec_int(parts[1], "random", spec)
    seed = 0
    if len(parts) == 3:
        key, eq, value = parts[2].partition("=")
        if eq and key.strip().lower() != "seed":
            raise SpecError(
                f"unknown parameter {key.strip()!r} in {spec!r}; expected {_USAGE['random']}"
            )
        text = (value if eq else key).strip()
        if not re.fullmatch(r"-?[0-9]+", text):
            raise SpecError(f"bad seed {text!r} in {spec!r}; expected {_USAGE['random']}")
        seed = int(text)
    return lambda: random_connected(n, m, seed)


_ONE_PARAMETER: dict[str, Callable[[int], nx.Graph]] = {
    "ring": ring,
    "path": path,
    "complete": complete,
    "star": star,
    "hypercube": hypercube,
    "ccc": cube_connected_cycles,
    "butterfly": wrapped_butterfly,
    "shuffle-exchange": shuffle_exchange,
    "debruijn": de_bruijn,
    "star-graph": star_graph,
    "pancake": pancake,
}


def _parse_family(name: str, args: str | None, spec: str) -> _Builder:
    """Parse the parameters ``args`` (None if there is no colon) of family ``name``."""
    if name == "petersen":
        if args is not None:
            raise SpecError(f"petersen takes no parameters, got {spec!r}")
        return petersen
    if args is None or not args.strip():
        raise SpecError(f"missing parameters in {spec!r}; expected {_USAGE[name]}")
    if name in _ONE_PARAMETER:
        (value,) = _spec_ints(args, name, spec, ",", (1,))
        return lambda: _ONE_PARAMETER[name](value)
    if name in ("mesh", "torus"):
        a, b = _spec_ints(args.lower(), name, spec, "x", (2,))
        return lambda: _grid(a, b, wrap=name == "torus", family=name)
    if name == "knodel":
        values = _spec_ints(args, name, spec, ",", (1, 2))
        return lambda: knodel(*values)
    if name == "fattree":
        return _parse_fattree(args, spec)
    return _parse_random(args, spec)


def looks_like_file(spec: str) -> bool:
    """True when ``spec`` names a graph file rather than a family (it contains ``/`` or ends
    in a graph-file suffix)."""
    return "/" in spec or spec.lower().endswith(GRAPH_FILE_SUFFIXES)


def _from_single_spec(part: str) -> nx.Graph:
    text = part.strip()
    if looks_like_file(text):
        return read_graph_file(text)
    name, colon, args = text.partition(":")
    name = name.strip().lower()
    if name not in _USAGE:
        raise SpecError(
            f"unknown graph family {name!r} in {text!r}; known: {', '.join(FAMILIES)}; "
            f"or a graph file ending in {_SUFFIX_LIST}"
        )
    build = _parse_family(name, args if colon else None, text)
    try:
        return build()
    except SpecError as exc:
        raise SpecError(f"bad graph spec {text!r}: {exc}; expected {_USAGE[name]}") from None


def from_spec(spec: str) -> nx.Graph:
    """Build the graph a specification string describes.

    Accepted forms: ``ring:8``, ``path:5``, ``complete:6``, ``star:5``, ``hypercube:4``,
    ``mesh:3x4``, ``torus:3x4``, ``petersen``, ``ccc:3``, ``butterfly:3``,
    ``shuffle-exchange:4``, ``debruijn:4``, ``knodel:8``, ``knodel:8,2``, ``star-graph:4``,
    ``pancake:4``, ``fattree:8`` (constant capacities), ``fattree:8:exp``,
    ``fattree:8:1,2,2``, ``random:N,M,seed=S``; Cartesian products joined by ``*``
    (left-associative, ``ring:3*path:2*path:2``); and graph files: anything that contains
    ``/`` or ends in ``.edgelist``, ``.graphml``, ``.g6`` or ``.json`` (see
    :func:`read_graph_file`). Family names are case-insensitive.

    Parameters
    ----------
    spec : str
        The specification.

    Returns
    -------
    networkx.Graph
        The graph; ``G.graph["spec"]`` holds the canonical form of ``spec``.

    Raises
    ------
    SpecError
        Unknown family, bad or out-of-range parameters.
    GraphError
        A named graph file that is missing or malformed.

    Examples
    --------
    >>> from_spec("hypercube:4").number_of_edges()
    32
    >>> from_spec(" Mesh:3X4 ").graph["spec"]
    'mesh:3x4'
    >>> from_spec("ring:3*path:2").number_of_nodes()
    6

    References
    ----------
    Beier and Sibeyn, section 2; Dimakopoulos and Dimopoulos, section 2.
    """
    if not isinstance(spec, str):
        raise SpecError(f"a graph spec must be a string, got {spec!r}")
    text = spec.strip()
    if not text:
        raise SpecError(
            f"empty graph spec; known families: {', '.join(FAMILIES)}; "
            f"or a graph file ending in {_SUFFIX_LIST}"
        )
    if "*" not in text or os.path.isfile(text):
        return _from_single_spec(text)
    factors = text.split("*")
    for position, factor in enumerate(factors):
        if not factor.strip():
            raise SpecError(f"empty factor number {position + 1} in the product {text!r}")
    try:
        graph = _from_single_spec(factors[0])
        for factor in factors[1:]:
            graph = cartesian_product(graph, _from_single_spec(factor))
    except SpecError as exc:
        raise SpecError(f"{exc} (in the product {text!r})") from None
    return graph


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------

_RawEdge = tuple[str, str, int, str]


def _label_of(value: Any, where: str) -> str:
    """A node label from a file value (str or int)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise GraphError(f"{where}: bad node label {value!r}; expected a string or an integer")
    text = str(value)
    if not text:
        raise GraphError(f"{where}: empty node label")
    return text


def _parse_capacity(value: Any, where: str) -> int:
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _UNSIGNED.fullmatch(value.strip()):
        number = int(value.strip())
    if number is None or number < 1:
        raise GraphError(f"{where}: bad capacity {value!r}; expected an integer >= 1")
    return number


def _parse_router(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    raise GraphError(f"{where}: bad router flag {value!r}; expected true or false")


def _assemble(
    name: str,
    declared: Sequence[str],
    edges: Sequence[_RawEdge],
    router_labels: Iterable[tuple[str, str]],
) -> nx.Graph:
    """Build a conventional graph from labels, edges ``(u, v, capacity, where)`` and routers."""
    order: dict[str, None] = {}
    for label in declared:
        if label in order:
            raise GraphError(f"{name}: node {label!r} is declared twice")
        order[label] = None
    for u, v, _, _ in edges:
        order.setdefault(u)
        order.setdefault(v)
    if not order:
        raise GraphError(f"{name}: the graph is empty (no nodes)")
    labels = list(order)
    if all(_INT_LABEL.fullmatch(label) for label in labels):
        labels.sort(key=lambda label: (int(label), label))
    index = {label: v for v, label in enumerate(labels)}
    graph = _new_graph(len(labels), name)
    for v, label in enumerate(labels):
        graph.nodes[v]["label"] = label
    for u, v, cap, where in edges:
        if u == v:
            raise GraphError(f"{where}: self-loop at node {u!r}; the graph must be simple")
        a, b = index[u], index[v]
        if graph.has_edge(a, b):
            raise GraphError(f"{where}: duplicate edge {u!r} -- {v!r}; the graph must be simple")
        graph.add_edge(a, b, capacity=cap)
    for label, where in router_labels:
        if label not in index:
            raise GraphError(f"{where}: router {label!r} is not a node of the graph")
        graph.nodes[index[label]]["router"] = True
    return graph


def _read_edgelist(file: Path, name: str) -> nx.Graph:
    edges: list[_RawEdge] = []
    text = file.read_text(encoding="utf-8")
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{lineno}"
        tokens = line.split()
        if len(tokens) not in (2, 3):
            raise GraphError(
                f"{where}: malformed line {raw.strip()!r}; expected 'u v' or 'u v capacity'"
            )
        cap = _parse_capacity(tokens[2], where) if len(tokens) == 3 else 1
        edges.append((tokens[0], tokens[1], cap, where))
    return _assemble(name, [], edges, [])


def _read_graphml(file: Path, name: str) -> nx.Graph:
    raw = nx.read_graphml(file)
    declared = [_label_of(v, name) for v in raw.nodes]
    router_labels = [
        (label, f"{name}: node {label!r}")
        for v, label in zip(raw.nodes, declared, strict=True)
        if _parse_router(raw.nodes[v].get("router", False), f"{name}: node {label!r}")
    ]
    edges: list[_RawEdge] = []
    for u, v, data in raw.edges(data=True):
        lu, lv = _label_of(u, name), _label_of(v, name)
        where = f"{name}: edge {lu!r} -- {lv!r}"
        edges.append((lu, lv, _parse_capacity(data.get("capacity", 1), where), where))
    return _assemble(name, declared, edges, router_labels)


def _read_g6(file: Path, name: str) -> nx.Graph:
    raw = nx.read_graph6(file)
    if isinstance(raw, list):
        if len(raw) != 1:
            what = "no graph" if not raw else f"{len(raw)} graphs"
            raise GraphError(f"{name}: contains {what}; expected exactly one graph6 line")
        raw = raw[0]
    declared = [str(v) for v in sorted(raw.nodes)]
    edges = [(str(u), str(v), 1, f"{name}: edge {u} -- {v}") for u, v in raw.edges()]
    return _assemble(name, declared, edges, [])


def _json_node_link(data: dict[str, Any], name: str) -> nx.Graph:
    nodes = data.get("nodes", [])
    links = data.get("edges", data.get("links", []))
    if not isinstance(nodes, list) or not isinstance(links, list):
        raise GraphError(f"{name}: 'nodes' and 'edges' (or 'links') must be lists")
    declared: list[str] = []
    router_labels: list[tuple[str, str]] = []
    for position, node in enumerate(nodes):
        where = f"{name}: nodes[{position}]"
        if not isinstance(node, dict) or "id" not in node:
            raise GraphError(f"{where}: expected an object with an 'id'")
        label = _label_of(node["id"], where)
        declared.append(label)
        if _parse_router(node.get("router", False), where):
            router_labels.append((label, where))
    known = set(declared)
    edges: list[_RawEdge] = []
    for position, link in enumerate(links):
        where = f"{name}: edges[{position}]"
        if not isinstance(link, dict) or "source" not in link or "target" not in link:
            raise GraphError(f"{where}: expected an object with 'source' and 'target'")
        u, v = _label_of(link["source"], where), _label_of(link["target"], where)
        for label in (u, v):
            if label not in known:
                raise GraphError(f"{where}: node {label!r} is not in 'nodes'")
        edges.append((u, v, _parse_capacity(link.get("capacity", 1), where), where))
    return _assemble(name, declared, edges, router_labels)


def _json_simple(data: dict[str, Any], name: str) -> nx.Graph:
    nodes = data.get("nodes")
    links = data.get("edges", [])
    routers_list = data.get("routers", [])
    for key, value in (("nodes", nodes), ("edges", links), ("routers", routers_list)):
        if value is not None and not isinstance(value, list):
            raise GraphError(f"{name}: {key!r} must be a list")
    declared = [_label_of(v, f"{name}: nodes[{i}]") for i, v in enumerate(nodes or [])]
    known = set(declared)
    edges: list[_RawEdge] = []
    for position, link in enumerate(links):
        where = f"{name}: edges[{position}]"
        if not isinstance(link, list) or len(link) not in (2, 3):
            raise GraphError(f"{where}: expected [u, v] or [u, v, capacity], got {link!r}")
        u, v = _label_of(link[0], where), _label_of(link[1], where)
        if nodes is not None:
            for label in (u, v):
                if label not in known:
                    raise GraphError(f"{where}: node {label!r} is not in 'nodes'")
        cap = _parse_capacity(link[2], where) if len(link) == 3 else 1
        edges.append((u, v, cap, where))
    router_labels = [
        (_label_of(r, f"{name}: routers[{i}]"), f"{name}: routers[{i}]")
        for i, r in enumerate(routers_list)
    ]
    return _assemble(name, declared, edges, router_labels)


def _read_json(file: Path, name: str) -> nx.Graph:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GraphError(f"{name}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise GraphError(
            f"{name}: expected a JSON object with 'nodes' and 'edges' (or networkx node-link data)"
        )
    nodes = data.get("nodes")
    links = data.get("edges", data.get("links"))
    node_link = "links" in data or any(
        isinstance(item, dict) for seq in (nodes, links) if isinstance(seq, list) for item in seq
    )
    if node_link:
        return _json_node_link(data, name)
    if nodes is None and links is None:
        raise GraphError(f"{name}: no 'nodes' or 'edges' in the JSON object")
    return _json_simple(data, name)


_READERS: dict[str, Callable[[Path, str], nx.Graph]] = {
    ".edgelist": _read_edgelist,
    ".graphml": _read_graphml,
    ".g6": _read_g6,
    ".json": _read_json,
}


def _suffix_of(name: str, action: str) -> str:
    lowered = name.lower()
    for suffix in GRAPH_FILE_SUFFIXES:
        if lowered.endswith(suffix):
            return suffix
    raise GraphError(
        f"cannot {action} graph file {name!r}: unknown file type; accepted: {_SUFFIX_LIST}"
    )


def read_graph_file(path: str | os.PathLike[str]) -> nx.Graph:
    """Read a graph file into a graph following the module conventions.

    Formats, chosen by the file name ending:

    * ``.edgelist``: one edge per line, ``u v`` or ``u v capacity``; ``#`` starts a comment,
      blank lines are ignored. Routers cannot be expressed.
    * ``.graphml``: read with networkx; the node ids are the labels, a node attribute
      ``router`` and an edge attribute ``capacity`` are honoured when present.
    * ``.g6``: one graph in graph6 (with or without the ``>>graph6<<`` header); labels
      ``"0".."n-1"``.
    * ``.json``: networkx node-link data (``{"nodes": [{"id": ...}], "edges": [{"source": ...,
      "target": ...}]}``, ``"links"`` also accepted; node attribute ``router``, edge attribute
      ``capacity``), or ``{"nodes": [...], "edges": [[u, v], [u, v, capacity], ...],
      "routers": [...]}`` where ``"nodes"`` and ``"routers"`` are optional.

    Node numbering: if every label is an integer, the nodes are numbered in increasing
    numerical order of their labels, otherwise in the order of first appearance (declared
    nodes first, then edge endpoints). ``G.graph["spec"]`` is the path as given.

    Parameters
    ----------
    path : str or os.PathLike
        Path of the file.

    Returns
    -------
    networkx.Graph
        The graph.

    Raises
    ------
    GraphError
        Unknown suffix, missing or unreadable file, malformed content, self-loops, duplicate
        edges, bad capacities or router flags, or no nodes at all. The message names the file
        (and the line for edge lists).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "g.edgelist"
    ...     _ = target.write_text("# a triangle\\na b\\nb c 2\\nc a\\n")
    ...     g = read_graph_file(target)
    >>> [g.nodes[v]["label"] for v in g], g[1][2]["capacity"]
    (['a', 'b', 'c'], 2)

    References
    ----------
    B. McKay, graph6 and sparse6 formats, https://users.cecs.anu.edu.au/~bdm/data/formats.html
    """
    name = os.fspath(path)
    suffix = _suffix_of(name, "read")
    target = Path(name)
    if not target.exists():
        raise GraphError(f"graph file not found: {name}")
    if not target.is_file():
        raise GraphError(f"graph file {name} is not a regular file")
    try:
        return _READERS[suffix](target, name)
    except GossipcertError:
        raise
    except Exception as exc:  # anything networkx, the XML parser or the OS raises
        detail = str(exc) or type(exc).__name__
        raise GraphError(f"cannot read graph file {name}: {detail}") from exc


def _file_labels(graph: nx.Graph) -> list[str]:
    return [str(graph.nodes[v].get("label", v)) for v in range(graph.number_of_nodes())]


def _json_value(label: str) -> int | str:
    return int(label) if _is_plain_int(label) else label


def _write_edgelist(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    for label in labels:
        if not label or any(ch.isspace() for ch in label) or "#" in label:
            raise GraphError(
                f"cannot write {target}: node label {label!r} contains white space or '#', "
                "which an edge list cannot hold; use .json or .graphml"
            )
    isolated = [labels[v] for v in range(len(labels)) if graph.degree(v) == 0]
    if isolated:
        raise GraphError(
            f"cannot write {target}: isolated node(s) {isolated[:5]} cannot be written to an "
            "edge list; use .json or .graphml"
        )
    lines = [f"# {graph.graph.get('spec', 'graph')}: n={len(labels)} m={graph.number_of_edges()}"]
    for u, v in sorted(tuple(sorted(edge)) for edge in graph.edges()):
        cap = int(graph[u][v].get("capacity", 1))
        suffix = "" if cap == 1 else f" {cap}"
        lines.append(f"{labels[u]} {labels[v]}{suffix}")
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_graphml(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    out = nx.Graph()
    for v, label in enumerate(labels):
        out.add_node(label, router=bool(graph.nodes[v].get("router", False)))
    for u, v in sorted(tuple(sorted(edge)) for edge in graph.edges()):
        out.add_edge(labels[u], labels[v], capacity=int(graph[u][v].get("capacity", 1)))
    nx.write_graphml(out, target)


def _write_g6(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    out = nx.Graph()
    out.add_nodes_from(range(len(labels)))
    out.add_edges_from(graph.edges())
    nx.write_graph6(out, target, header=False)


def _write_json(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    edges = []
    for u, v in sorted(tuple(sorted(edge)) for edge in graph.edges()):
        cap = int(graph[u][v].get("capacity", 1))
        entry: list[int | str] = [_json_value(labels[u]), _json_value(labels[v])]
        if cap != 1:
            entry.append(cap)
        edges.append(entry)
    data: dict[str, Any] = {
        "spec": graph.graph.get("spec", "graph"),
        "nodes": [_json_value(label) for label in labels],
        "edges": edges,
    }
    router_nodes = routers(graph)
    if router_nodes:
        data["routers"] = [_json_value(labels[v]) for v in router_nodes]
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


_WRITERS: dict[str, Callable[[nx.Graph, Path, list[str]], None]] = {
    ".edgelist": _write_edgelist,
    ".graphml": _write_graphml,
    ".g6": _write_g6,
    ".json": _write_json,
}


def write_graph_file(graph: nx.Graph, path: str | os.PathLike[str]) -> None:
    """Write ``graph`` to a file whose format is chosen by the name ending.

    ``.json`` and ``.graphml`` keep labels, routers and capacities; ``.edgelist`` keeps labels
    and capacities (not routers, nor isolated nodes); ``.g6`` keeps only the structure in node
    order. Reading the file back with :func:`read_graph_file` gives the same graph (same node
    numbering when the labels are the default ``str(v)``).

    Parameters
    ----------
    graph : networkx.Graph
        A graph following the module conventions.
    path : str or os.PathLike
        Destination path, ending in ``.edgelist``, ``.graphml``, ``.g6`` or ``.json``.

    Raises
    ------
    GraphError
        Unknown suffix, labels the format cannot hold, or an OS error while writing.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "ft.json"
    ...     write_graph_file(fat_tree(4, "exponential"), target)
    ...     back = read_graph_file(target)
    >>> routers(back), back[4][6]["capacity"]
    ([4, 5, 6], 2)

    References
    ----------
    B. McKay, graph6 and sparse6 formats, https://users.cecs.anu.edu.au/~bdm/data/formats.html
    """
    name = os.fspath(path)
    suffix = _suffix_of(name, "write")
    _check_convention(graph, f"cannot write {name}")
    labels = _file_labels(graph)
    if len(set(labels)) != len(labels):
        raise GraphError(f"cannot write {name}: node labels are not unique")
    try:
        _WRITERS[suffix](graph, Path(name), labels)
    except GossipcertError:
        raise
    except Exception as exc:
        raise GraphError(f"cannot write graph file {name}: {exc}") from exc


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
        ``routers`` (counts), ``capacities`` (edge count per capacity) and ``spec``.

    Examples
    --------
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
    degrees = [len(nbrs) for nbrs in atlas.values()]
    m = sum(degrees) // 2
    if n > EXACT_DISTANCE_NODES:
        from gossipcert.distances import is_connected

        connected = is_connected(graph)
    else:
        connected = n > 0 and nx.is_connected(graph)
    diameter: int | None = None
    radius: int | None = None
    extra: dict[str, Any] = {}
    if connected:
        _check_convention(graph, "describe")
        if graph.graph.get("vertex_transitive") or n <= EXACT_DISTANCE_NODES:
            diameter, radius = _diameter_radius(graph)
        else:
            from gossipcert.distances import diameter_radius

            found = diameter_radius(graph, max(4, DISTANCE_WORK // (n + m)))
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
    router_count = len(routers(graph))
    caps: dict[int, int] = {}
    for u, nbrs in atlas.items():
        for v, data in nbrs.items():
            if u < v:
                cap = data.get("capacity", 1)
                caps[cap] = caps.get(cap, 0) + 1
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
        **extra,
        "spec": graph.graph.get("spec"),
    }


def processors(graph: nx.Graph) -> list[int]:
    """The nodes that are not routers, in increasing order.

    Examples
    --------
    >>> processors(fat_tree(2))
    [0, 1]
    """
    return sorted(v for v, flag in graph.nodes(data="router", default=False) if not flag)


def routers(graph: nx.Graph) -> list[int]:
    """The router nodes, in increasing order.

    Examples
    --------
    >>> routers(fat_tree(2)), routers(ring(4))
    ([2], [])
    """
    return sorted(v for v, flag in graph.nodes(data="router", default=False) if flag)


def is_router(graph: nx.Graph, v: int) -> bool:
    """Whether node ``v`` is a router; GraphError if ``v`` is not a node.

    Examples
    --------
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
    >>> capacity(fat_tree(4, "exponential"), 4, 6)
    2
    """
    if not graph.has_edge(u, v):
        raise GraphError(f"no edge {u!r} -- {v!r} in the graph {graph.graph.get('spec', '')!r}")
    return int(graph[u][v].get("capacity", 1))


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

    A node whose ``"label"`` equals ``str(ref)`` wins; otherwise an int ``ref`` (or the decimal
    string of one) in ``0..n-1`` is taken as the internal id. The label map is built once and
    kept in ``G.graph["_label_index"]``; it is rebuilt when it names a node whose label has
    changed or when the number of nodes has changed (delete the key after other relabellings).

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
    elif isinstance(ref, str) and _INT_LABEL.fullmatch(ref.strip()):
        number = int(ref.strip())
    if number is not None and 0 <= number < n and number in graph:
        return number
    raise SpecError(
        f"unknown node {ref!r} in graph {graph.graph.get('spec', '')!r}; "
        f"expected a node label or an id in 0..{n - 1}"
    )


def _is_plain_int(label: str) -> bool:
    return bool(_INT_LABEL.fullmatch(label)) and str(int(label)) == label


def node_ref(graph: nx.Graph, v: int) -> int | str:
    """The external name of node ``v``: its label, as an int if it is the decimal form of one.

    Examples
    --------
    >>> node_ref(from_spec("ring:4"), 3)
    3
    """
    if v not in graph:
        raise GraphError(f"node {v!r} is not in the graph {graph.graph.get('spec', '')!r}")
    label = str(graph.nodes[v].get("label", v))
    return int(label) if _is_plain_int(label) else label
