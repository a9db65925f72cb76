"""Symmetry of the coloring search: one knowledge row per orbit instead of one per node.

An automorphism ``h`` of the graph that maps every matching ``M_i`` onto itself commutes
with every round of a matching sequence: if ``K_{h(v)} = h(K_v)`` for all ``v`` before a
round of ``M_i``, then after it ``K'_{h(v)} = K_{h(v)} ∪ K_{M_i(h(v))} = h(K_v) ∪
h(K_{M_i(v)}) = h(K'_v)``. Gossip starts equivariant (``K_v = {v}``, packet ``v`` being
node ``v``'s), so it stays so for the whole search: with a group ``G`` of such automorphisms
and one representative ``r_s`` per orbit, the rows ``K_{r_s}`` determine every row
(``K_{h(r_s)} = h(K_{r_s})``).

Such an automorphism is fixed by the image of one node (it commutes with every matching,
and the matchings' union is connected), so ``G`` acts freely: every orbit has ``|G|``
nodes. The search then needs, for every orbit ``s`` and matching ``i``, the orbit ``s'`` of
the partner ``w = M_i(r_s)`` and the automorphism ``h`` with ``h(r_{s'}) = w``, found by
following the matchings from ``r_{s'}`` and ``w`` side by side (:func:`_follow`) and checked
against every matching.

The group's generators come from the graph family (``coords`` of :mod:`gossipcert.graphs`):
the translations ``x -> x xor 2^b`` of the cube coordinate of CCC and wrapped butterfly
nodes, and the relabellings of symbols (left multiplications) of star and pancake nodes;
each generator is checked to map every matching onto itself, and only those that do are
used (the odd wrapped butterflies' matchings split the cube coordinate by its top bit, so
that translation is dropped); with none left the search runs on every node. CCC 9 then
has 9 rows of 4,608 packets where the full search has 4,608; star and pancake graphs have
a single row (the group acts transitively).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 8
   (the matchings of CCC, butterfly, star and pancake graphs, all Cayley graphs).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from gossipcert.heuristics.bitsets import Index
from gossipcert.instance import Instance

Matching = list[tuple[int, int]]


@dataclass(frozen=True)
class MatchingSymmetry:
    """Orbits of a group of matching-preserving automorphisms, acting freely.

    Attributes
    ----------
    orbit : numpy.ndarray
        ``orbit[v]``: the orbit of node ``v`` (``0 .. orbits - 1``).
    reps : numpy.ndarray
        ``reps[s]``: the representative of orbit ``s`` (its smallest node).
    partner : numpy.ndarray
        ``partner[i, s]``: the orbit of ``M_i``'s partner of ``reps[s]``; ``s`` itself when
        ``reps[s]`` is unmatched (with the identity pull, it then learns nothing).
    pull : numpy.ndarray
        ``pull[i, s]``: ``h^{-1}`` as an array, ``h`` the automorphism taking
        ``reps[partner[i, s]]`` to the partner, so the partner's row is
        ``K[partner[i, s]][pull[i, s]]``.
    matched : numpy.ndarray
        ``matched[i, s]``: whether ``M_i`` matches ``reps[s]``.
    """

    orbit: Index
    reps: Index
    partner: Index
    pull: Index
    matched: np.ndarray

    @property
    def size(self) -> int:
        """``|G|``: the nodes of every orbit."""
        return len(self.orbit) // len(self.reps)


def _mates(n: int, matchings: list[Matching]) -> Index:
    """``mate[i, v]``: ``v``'s partner in ``M_i``, ``n`` when unmatched (column ``n`` too)."""
    mate = np.full((len(matchings), n + 1), n, dtype=np.int64)
    for i, m in enumerate(matchings):
        for u, v in m:
            mate[i, u], mate[i, v] = v, u
    return mate


def _preserves(h: Index, mate: Index) -> bool:
    """Whether the node permutation ``h`` maps every matching onto itself."""
    n = len(h)
    if not np.array_equal(np.sort(h), np.arange(n)):
        return False
    ext = np.append(h, n)  # unmatched stays unmatched
    return all(np.array_equal(ext[row[:n]], row[ext[:n]]) for row in mate)


def _generators(graph: nx.Graph) -> list[Index] | None:
    """Node permutations generating the family's group, or None for another family."""
    family, _, arg = str(graph.graph.get("spec", "")).partition(":")
    if not arg.isdigit():
        return None
    k = int(arg)
    coords = [graph.nodes[v].get("coords") for v in range(graph.number_of_nodes())]
    if any(c is None for c in coords):
        return None
    index = {c: v for v, c in enumerate(coords)}
    gens: list[Index] = []
    if family in ("ccc", "butterfly"):
        for b in range(k):  # the translation x -> x xor 2^b of the cube coordinate
            moved = [index.get((c[0] ^ (1 << b), *c[1:])) for c in coords]
            if any(w is None for w in moved):
                return None
            gens.append(np.array(moved, dtype=np.int64))
    elif family in ("star-graph", "pancake"):
        for a in range(k - 1):  # relabel the symbols a and a + 1
            swap = {a: a + 1, a + 1: a}
            moved = [index.get(tuple(swap.get(x, x) for x in c)) for c in coords]
            if any(w is None for w in moved):
                return None
            gens.append(np.array(moved, dtype=np.int64))
    else:
        return None
    return gens


def _orbits(n: int, gens: list[Index]) -> Index:
    """The smallest node of each node's orbit under the generated group."""
    label = np.arange(n, dtype=np.int64)
    while True:
        nxt = label.copy()
        for g in gens:
            np.minimum.at(nxt, g, label)  # an orbit's label flows along every generator
            nxt = np.minimum(nxt, nxt[g])
        if np.array_equal(nxt, label):
            return label
        label = nxt


def _follow(start: int, target: int, mate: Index, order: list[tuple[int, int, int]]) -> Index:
    """The map ``h`` with ``h(start) = target`` commuting with every matching, along a tree.

    ``order`` is a breadth-first tree of the matchings' union from ``start``: ``(v, parent,
    i)`` with ``v = M_i(parent)``. The result is checked by the caller (:func:`_preserves`).
    """
    n = mate.shape[1] - 1
    h = np.full(n, n, dtype=np.int64)
    h[start] = target
    for v, parent, i in order:
        h[v] = mate[i, h[parent]] if h[parent] < n else n
    return h


def _tree(start: int, mate: Index) -> list[tuple[int, int, int]] | None:
    n = mate.shape[1] - 1
    seen = np.zeros(n, dtype=bool)
    seen[start] = True
    order: list[tuple[int, int, int]] = []
    frontier = [start]
    while frontier:
        nxt = []
        for u in frontier:
            for i in range(mate.shape[0]):
                w = int(mate[i, u])
                if w < n and not seen[w]:
                    seen[w] = True
                    order.append((w, u, i))
                    nxt.append(w)
        frontier = nxt
    return order if bool(seen.all()) else None


def matching_symmetry(instance: Instance, matchings: list[Matching]) -> MatchingSymmetry | None:
    """The symmetry the coloring search can use on a gossip instance, or None.

    Parameters
    ----------
    instance : Instance
        Gossip (node ``v`` holds packet ``v``, everyone needs everything) on a CCC, wrapped
        butterfly, star or pancake graph.
    matchings : list of list of (int, int)

    Returns
    -------
    MatchingSymmetry or None
        None when the instance is not gossip, the family has no known group, no generator
        preserves every matching, or the matchings' union is disconnected.

    Examples
    --------
    >>> from gossipcert.constructions.beier_sibeyn_matchings import coloring_matchings
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ccc:4", "telephone", "gossip")
    >>> sym = matching_symmetry(inst, coloring_matchings(inst.graph))
    >>> len(sym.reps), sym.size
    (4, 16)
    """
    n = instance.n
    everything = (1 << n) - 1
    if instance.n_packets != n or any(
        h != 1 << v or (d | h) != everything
        for v, (h, d) in enumerate(zip(instance.holdings, instance.demands, strict=True))
    ):
        return None
    gens = _generators(instance.graph)
    if not gens:
        return None
    mate = _mates(n, matchings)
    gens = [g for g in gens if _preserves(g, mate)]  # a subgroup still acts freely
    if not gens:
        return None
    label = _orbits(n, gens)
    reps = np.unique(label)
    orbit = np.searchsorted(reps, label)
    if len(reps) * np.bincount(orbit).max() != n:
        return None  # not free
    trees = [_tree(int(r), mate) for r in reps]
    if any(t is None for t in trees):
        return None
    p, size = len(matchings), len(reps)
    partner = np.tile(np.arange(size, dtype=np.int64), (p, 1))
    pull = np.tile(np.arange(n, dtype=np.int64), (p, size, 1))
    matched = np.zeros((p, size), dtype=bool)
    for i in range(p):
        for s, r in enumerate(reps):
            w = int(mate[i, r])
            if w == n:
                continue
            t = int(orbit[w])
            tree = trees[t]
            assert tree is not None
            h = _follow(int(reps[t]), w, mate, tree)
            if not _preserves(h, mate):
                return None
            partner[i, s] = t
            pull[i, s] = np.argsort(h)
            matched[i, s] = True
    return MatchingSymmetry(orbit, reps.astype(np.int64), partner, pull, matched)
