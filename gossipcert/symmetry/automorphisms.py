"""Symmetry breaking from the automorphism group of an instance.

An automorphism of the instance is a permutation of the nodes that preserves the edges, the
routers and the problem's distinguished nodes (the sources of a broadcast or scatter, the
root of a gather), and, in the all-port model with per-edge capacities, the capacities (each
edge is then subdivided by a vertex coloured by its capacity before nauty sees the graph). It
maps every schedule to a schedule of the same length, so among the images of a schedule
there is one whose first-round variables, read in a fixed order, are lexicographically
smallest. That image satisfies ``x <= x∘σ`` for every group element ``σ``;
requiring it for the generators found by nauty (lex-leader constraints, restricted to the
first round) is therefore sound. It is not implied by the encoding, so a DRAT proof of a
formula with these constraints covers the claim only together with this argument;
``--strict`` leaves them out.

Variables: ``("SYM", g, i)``: the first ``i`` positions of the first-round vector and of its
image under generator ``g`` are equal.

References
----------
.. [1] J. Crawford, M. Ginsberg, E. Luks, A. Roy, "Symmetry-breaking predicates for search
   problems", KR 1996 (lex-leader constraints).
.. [2] B. D. McKay and A. Piperno, "Practical graph isomorphism, II", 2014 (nauty).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

import pynauty

from gossipcert import graphs
from gossipcert.encodings import Encoding
from gossipcert.instance import Instance, ProblemKind, resolve_roots
from gossipcert.models import rules_of


class _Key(Hashable, Protocol):
    """What :func:`orbit_roots` needs of an item: a dict key with an order."""

    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Key)


def orbit_roots(items: list[K], image: Callable[[K], list[K]]) -> dict[K, K]:
    """Map each item to the least item of its orbit (union-find).

    The orbits of a group are the orbits of its generators: ``image(x)`` lists the images
    of ``x`` under the generators (an image outside ``items`` is a ``KeyError``; callers
    that take generators from outside check them first or catch it).

    Examples
    --------
    >>> orbit_roots([0, 1, 2, 3], lambda v: [(v + 2) % 4])
    {0: 0, 1: 1, 2: 0, 3: 1}
    """
    parent = {x: x for x in items}

    def find(x: K) -> K:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x in items:
        for y in image(x):
            a, b = find(x), find(y)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {x: find(x) for x in items}


def node_cells(instance: Instance) -> list[set[int]]:
    """nauty's colouring of the nodes: routers, the problem's roots (as one set: the sources
    of a broadcast may be exchanged), the other nodes."""
    g = instance.graph
    roots: set[int] = set()
    if instance.problem.root is not None:
        roots = set(resolve_roots(g, instance.problem.root))
    cells: dict[tuple[bool, bool], set[int]] = {}
    for v in range(instance.n):
        cells.setdefault((graphs.is_router(g, v), v in roots), set()).add(v)
    return [cells[k] for k in sorted(cells)]


def automorphism_generators(instance: Instance) -> list[list[int]]:
    """Generators of the instance's automorphism group, as node permutations.

    Custom problems get none (their holdings are not checked for symmetry).
    """
    if instance.problem.kind is ProblemKind.CUSTOM or instance.n < 2:
        return []
    g = instance.graph
    n = instance.n
    coloring = node_cells(instance)
    adjacency = {v: sorted(g.adj[v]) for v in range(n)}  # insertion order must not matter
    caps: dict[tuple[int, int], int | tuple[int, int]] = {
        (min(u, v), max(u, v)): graphs.capacity(g, u, v) for u, v in g.edges
    }
    slow = graphs.latencies(g)
    if slow:
        # a latency is part of the instance like a capacity (all-port only): the edge's
        # colour is the pair (capacity, latency)
        fixed = instance.model.capacity
        caps = {
            (u, v): (fixed if fixed is not None else graphs.capacity(g, u, v), slow.get((u, v), 1))
            for u, v in caps
        }
    if (
        rules_of(instance.model.kind).arc_capacities
        and (instance.model.capacity is None or slow)
        and len(set(caps.values())) > 1
    ):
        # an arc's capacity is part of the instance: subdivide every edge by a coloured vertex
        adjacency = {v: [] for v in range(n)}
        by_capacity: dict[int | tuple[int, int], set[int]] = {}
        for i, ((u, v), c) in enumerate(sorted(caps.items())):
            mid = n + i
            adjacency[u].append(mid)
            adjacency[mid] = [v]
            by_capacity.setdefault(c, set()).add(mid)
        coloring += [by_capacity[c] for c in sorted(by_capacity)]
    pg = pynauty.Graph(
        len(adjacency), directed=False, adjacency_dict=adjacency, vertex_coloring=coloring
    )
    gens, *_ = pynauty.autgrp(pg)
    return [list(p[:n]) for p in gens]


def _image(key: Hashable, perm: list[int]) -> Hashable:
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], tuple):
        # (nodes, tag): the nodes move, the tag (a chunk's index) stays
        return (_image(key[0], perm), key[1])
    if isinstance(key, frozenset):
        return frozenset(perm[v] for v in key)
    if isinstance(key, tuple):
        return tuple(perm[v] for v in key)
    raise TypeError(f"cannot permute key {key!r}")


def add_lex_leader(encoding: Encoding, generators: list[list[int]]) -> int:
    """Add lex-leader constraints on the first round for each generator.

    Returns
    -------
    int
        The number of generators used.
    """
    f = encoding.formula
    # an encoding may key more variables for symmetry than for cubes (all-port: chunks)
    symmetry_keys = getattr(encoding, "symmetry_keys", None)
    keys = symmetry_keys() if symmetry_keys is not None else encoding.first_round_keys()
    index = {k: lit for k, lit in keys}
    used = 0
    for gi, perm in enumerate(generators):
        prev: int | bool = True  # the prefixes so far are equal
        for i, (key, x) in enumerate(keys):
            y = index[_image(key, perm)]
            if x == y:
                continue
            e = f.var(("SYM", gi, i))
            f.clause([-prev if prev is not True else False, -x, y])
            f.clause([-prev if prev is not True else False, -x, -y, e])
            f.clause([-prev if prev is not True else False, x, y, e])
            prev = e
        used += 1
    return used
