"""The classic families: rings, paths, complete graphs, stars, hypercubes, meshes, tori,
the Petersen graph, and Cartesian products.

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import itertools

import networkx as nx

from gossipcert.graphs.base import (
    _add_edges,
    _check_convention,
    _check_int,
    _check_size,
    _new_graph,
    _set_coords,
)
from gossipcert.graphs.networks import _power_family_k

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
    _check_size(n, "complete", n * (n - 1) // 2)
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
    _add_edges(
        graph, ((v, v ^ (1 << i)) for v in range(n) for i in range(k) if not v >> i & 1), fresh=True
    )
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
    _check_size(n1 * n2, "product", n1 * g2.number_of_edges() + n2 * g1.number_of_edges())
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
