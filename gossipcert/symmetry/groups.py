"""Groups for the symmetric schedule search: automorphisms of permutation graphs, and nauty's.

The star graph ``Star_k`` (and the pancake graph) has the permutations of ``0..k-1`` as
nodes, and an edge joins ``p`` and ``p ∘ g_c`` for each generator ``g_c`` of the family
(a right multiplication). Two kinds of node maps are automorphisms of ``Star_k``:

- *left* (symbol relabellings): ``p -> σ ∘ p``, for any permutation ``σ`` of the symbols;
  it commutes with right multiplications, so it maps each generator's matching onto itself
  (this holds for every Cayley graph, the pancake graph included);
- *right* (position permutations fixing position 0): ``p -> p ∘ τ`` with ``τ(0) = 0``;
  since ``τ^{-1} (0 j) τ = (0 τ^{-1}(j))``, it maps generator ``j``'s matching onto generator
  ``τ^{-1}(j)``'s (star graph only: the transpositions ``(0 j)`` are permuted among
  themselves).

A permutation ``σ`` is written as a tuple of images: ``σ[i]`` is the image of ``i``. Every
map built here is checked to be an automorphism by
:func:`gossipcert.finders.invariant.check_generators` before it is used.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 8
   (star and pancake graphs as Cayley graphs, their generator matchings).
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.instance import Instance
from gossipcert.symmetry.automorphisms import automorphism_generators

Perm = tuple[int, ...]


def _coords_index(graph: nx.Graph) -> tuple[list[Perm], dict[Perm, int]]:
    coords = [graph.nodes[v].get("coords") for v in range(graph.number_of_nodes())]
    if not coords or any(not isinstance(c, tuple) for c in coords):
        raise NotApplicableError("the graph's nodes are not permutations (coords)")
    k = len(coords[0])
    if any(sorted(c) != list(range(k)) for c in coords):
        raise NotApplicableError("the graph's nodes are not permutations (coords)")
    return coords, {c: v for v, c in enumerate(coords)}


def _check_perm(perm: Sequence[int], k: int, what: str) -> Perm:
    out = tuple(int(x) for x in perm)
    if sorted(out) != list(range(k)):
        raise SpecError(f"{what} {list(perm)} is not a permutation of 0..{k - 1}")
    return out


def left_map(graph: nx.Graph, sigma: Sequence[int]) -> list[int]:
    """The node map ``p -> σ ∘ p`` (relabel every symbol ``i`` as ``σ[i]``).

    Examples
    --------
    >>> from gossipcert.graphs.networks import star_graph
    >>> g = star_graph(3)
    >>> left_map(g, (1, 0, 2))  # the nodes are (0,1,2), (0,2,1), (1,0,2), ...
    [2, 3, 0, 1, 5, 4]
    """
    coords, index = _coords_index(graph)
    s = _check_perm(sigma, len(coords[0]), "σ")
    return [index[tuple(s[x] for x in p)] for p in coords]


def right_map(graph: nx.Graph, tau: Sequence[int]) -> list[int]:
    """The node map ``p -> p ∘ τ`` (the entry at position ``i`` becomes ``p[τ[i]]``).

    ``τ`` must fix position 0 for the map to be an automorphism of the star graph.

    Examples
    --------
    >>> from gossipcert.graphs.networks import star_graph
    >>> right_map(star_graph(3), (0, 2, 1))
    [1, 0, 3, 2, 5, 4]
    """
    coords, index = _coords_index(graph)
    t = _check_perm(tau, len(coords[0]), "τ")
    return [index[tuple(p[t[i]] for i in range(len(t)))] for p in coords]


def cycle_perm(k: int, *cycles: Sequence[int]) -> Perm:
    """A permutation of ``0..k-1`` from disjoint cycles.

    Examples
    --------
    >>> cycle_perm(5, (0, 1, 2), (3, 4))
    (1, 2, 0, 4, 3)
    """
    img = list(range(k))
    seen: set[int] = set()
    for cyc in cycles:
        if seen & set(cyc) or any(not 0 <= x < k for x in cyc):
            raise SpecError(f"cycles {cycles} are not disjoint cycles on 0..{k - 1}")
        seen |= set(cyc)
        for a, b in zip(cyc, [*cyc[1:], cyc[0]], strict=True):
            img[a] = b
    return tuple(img)


def star_subgroups(graph: nx.Graph) -> dict[str, list[list[int]]]:
    """Named subgroups of ``Aut(Star_5)`` (orders 2..24), each as generating node maps.

    ``L(...)`` are left maps (symbol relabellings), ``R(...)`` right maps (positions
    ``1..4`` permuted), ``LR(...)`` a product of one of each (cycles given for both).

    Raises
    ------
    NotApplicableError
        The graph is not ``Star_5``'s node set of permutations of five symbols.
    """
    coords, _ = _coords_index(graph)
    if len(coords[0]) != 5:
        raise NotApplicableError("these named subgroups are for Star_5 (permutations of 0..4)")

    def lft(*cycles: Sequence[int]) -> list[int]:
        return left_map(graph, cycle_perm(5, *cycles))

    def rgt(*cycles: Sequence[int]) -> list[int]:
        return right_map(graph, cycle_perm(5, *cycles))

    def both(left: list[int], right: list[int]) -> list[int]:
        return [right[x] for x in left]

    return {
        "L<(01)(23)> C2": [lft((0, 1), (2, 3))],
        "L<(012)> C3": [lft((0, 1, 2))],
        "L<(0123)> C4": [lft((0, 1, 2, 3))],
        "L<(01)(23),(02)(13)> V4": [lft((0, 1), (2, 3)), lft((0, 2), (1, 3))],
        "L<(01234)> C5": [lft((0, 1, 2, 3, 4))],
        "L<(012)(34)> C6": [lft((0, 1, 2), (3, 4))],
        "L<(01234),(14)(23)> D5": [lft((0, 1, 2, 3, 4)), lft((1, 4), (2, 3))],
        "L<A4 on 0123> A4": [lft((0, 1, 2)), lft((0, 1), (2, 3))],
        "L<(01234),(1243)> F20": [lft((0, 1, 2, 3, 4)), lft((1, 2, 4, 3))],
        "L<(012),(01)(34)> S3 (twisted)": [lft((0, 1, 2)), lft((0, 1), (3, 4))],
        "L<(012),(01),(34)> S3xS2": [lft((0, 1, 2)), lft((0, 1)), lft((3, 4))],
        "L<S4 on 0123> S4": [lft((0, 1, 2, 3)), lft((0, 1))],
        "L<A5> A5 (order 60)": [lft((0, 1, 2)), lft((0, 1, 2, 3, 4))],
        "R<(12)(34)> C2": [rgt((1, 2), (3, 4))],
        "R<(1234)> C4": [rgt((1, 2, 3, 4))],
        "R<(123)> C3": [rgt((1, 2, 3))],
        "R<S4> S4": [rgt((1, 2, 3, 4)), rgt((1, 2))],
        "LR<(01234)x(1234)> C20": [both(lft((0, 1, 2, 3, 4)), rgt((1, 2, 3, 4)))],
        "LR<(0123)x(1234)> C4": [both(lft((0, 1, 2, 3)), rgt((1, 2, 3, 4)))],
        "LR<(012)(34)x(123)> C6": [both(lft((0, 1, 2), (3, 4)), rgt((1, 2, 3)))],
        "LR<(01)(23)x(12)(34)> C2": [both(lft((0, 1), (2, 3)), rgt((1, 2), (3, 4)))],
    }


def nauty_subgroups(instance: Instance) -> dict[str, list[list[int]]]:
    """Small subgroups of the instance's automorphism group, from nauty's generators.

    Each generator alone (``g0``, ``g1``, ...), each product of two (``g0*g1``: first
    ``g0``, then ``g1``), and all of them together (``all``).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> sorted(nauty_subgroups(parse_instance("debruijn:4", "telephone", "gossip")))
    ['all', 'g0', 'g0*g1', 'g1']
    """
    gens = automorphism_generators(instance)
    out: dict[str, list[list[int]]] = {f"g{i}": [g] for i, g in enumerate(gens)}
    for i, a in enumerate(gens):
        for j in range(i + 1, len(gens)):
            out[f"g{i}*g{j}"] = [[gens[j][a[v]] for v in range(len(a))]]
    if len(gens) > 1:
        out["all"] = [list(g) for g in gens]
    return out
