"""More cuts for the cut bound on graphs too large to try every cut: the sides that bind
bandwidth, and the clusters of a capacity dendrogram.

:mod:`gossipcert.closed_forms.cuts` evaluates its bound on a family of cuts; every cut gives
a valid bound, so adding cuts can only raise it. Two families are added here:

- **throughput sides** (:mod:`gossipcert.closed_forms.throughput`): the set ``S`` that
  maximises ``|S ∩ V_c| / B+(S)`` (the cut that binds allgather at many chunks, ForestColl's
  optimum [1]_) and the one that maximises it on the reversed graph (reduce-scatter), found
  exactly by max-flows; on graphs whose capacities differ or that have routers (on a
  vertex-transitive graph of equal capacities a single node binds, which the family already
  has);
- **capacity clusters**: starting from single nodes, the two clusters joined by the most
  capacity are merged, again and again (ties: the smaller union, then the smaller nodes);
  every cluster formed is a side. On a machine of chassis, or of GPU pairs joined by fast
  links, these are the pairs, the groups of pairs and the chassis: the balanced cuts that
  bind an alltoall, where ``|S| |T|`` packets cross ``B(S)`` (the half cut of ``mi250``:
  ``8 x 8`` packets through 6 links).

References
----------
.. [1] L. Zhao, S. Maleki, Z. Yang, H. Pourreza, A. Krishnamurthy, "ForestColl:
   Throughput-optimal collective communications on heterogeneous network fabrics",
   arXiv:2402.06787, 2024.
.. [2] J. H. Ward, "Hierarchical grouping to optimize an objective function", JASA 58
   (1963) (agglomerative clustering).
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms.throughput import allgather_cut, reduce_scatter_cut
from gossipcert.errors import GraphError

__all__ = ["capacity_clusters", "extra_sides", "throughput_sides"]


def throughput_sides(g: nx.Graph) -> Iterator[frozenset[int]]:
    """The binding sides of allgather and reduce-scatter throughput, when capacities differ
    or the graph has routers (nothing otherwise).

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> sorted(map(sorted, throughput_sides(from_spec("mi250"))))[0][:3]
    [2, 3, 4]
    """
    caps = {c for _, _, c in g.edges(data="capacity", default=1)}
    if len(caps) <= 1 and not graphs.routers(g):
        return
    for find in (allgather_cut, reduce_scatter_cut):
        try:
            cut = find(g)
        except GraphError:
            continue
        if cut.side:
            yield frozenset(v for v in cut.side if isinstance(v, int))


def capacity_clusters(g: nx.Graph) -> Iterator[frozenset[int]]:
    """Every cluster of the capacity dendrogram (module docstring), smallest first.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> [sorted(s) for s in capacity_clusters(from_spec("mi250")) if len(s) == 8]
    [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]
    """
    cluster = {v: frozenset([v]) for v in g.nodes}
    between: dict[frozenset[frozenset[int]], int] = {}
    for u, v, c in g.edges(data="capacity", default=1):
        key = frozenset((cluster[u], cluster[v]))
        between[key] = between.get(key, 0) + int(c)
    while between:
        pair = max(
            between,
            key=lambda p: (between[p], -sum(len(s) for s in p), -min(min(s) for s in p)),
        )
        a, b = tuple(pair)
        merged = a | b
        yield merged
        joined: dict[frozenset[frozenset[int]], int] = {}
        for key, w in between.items():
            if key == pair:
                continue
            ends = {merged if s in (a, b) else s for s in key}
            if len(ends) == 2:
                k = frozenset(ends)
                joined[k] = joined.get(k, 0) + w
        between = joined


def extra_sides(g: nx.Graph) -> Iterator[frozenset[int]]:
    """The throughput sides, then the capacity clusters."""
    yield from throughput_sides(g)
    yield from capacity_clusters(g)
