"""The interconnection networks of the papers: cube-connected cycles, butterflies,
shuffle-exchange and de Bruijn graphs, Knödel graphs, star and pancake graphs, binary fat trees.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   SIROCCO 2000. Section 2 (graph classes) and section 8 (index tuples).
.. [2] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Section 2 (binary fat trees, constant and exponential capacities).

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import networkx as nx

from gossipcert.errors import SpecError
from gossipcert.graphs.base import (
    MAX_NODES,
    _add_edges,
    _check_int,
    _check_size,
    _new_graph,
    _set_coords,
)


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
    >>> from gossipcert.graphs import processors, routers
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
