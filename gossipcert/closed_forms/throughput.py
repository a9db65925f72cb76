"""Bandwidth bounds: the cut that limits a collective's throughput, found exactly by max-flow.

A collective that moves a message of ``M`` bytes through links of given bandwidths (bytes a
second, any consistent unit) cannot finish before the data that must leave a set ``S`` of
nodes has crossed the links that leave ``S``. For a set ``S`` let ``B+(S)`` be the total
bandwidth of the arcs from ``S`` to the rest and ``V_c`` the compute nodes (the nodes that
hold and demand data; switches and NICs, the graph's routers, only forward).

- **allgather** (every compute node holds ``M / N`` bytes and needs everyone's, ``N = |V_c|``):
  the data of the compute nodes of ``S`` must leave ``S`` whenever some compute node lies
  outside, so the time is at least ``(M / N) max_S |S ∩ V_c| / B+(S)`` over the sets ``S``
  with ``V_c ⊄ S``. Zhao et al. (ForestColl) prove the maximum is also achieved: ``k``
  spanning out-trees per compute node, found by Edmonds' arborescence packing, each carrying
  ``M / (N k)`` bytes, meet it exactly; it is *the* optimal allgather throughput of the
  fabric, and ``N / ratio`` is its optimal algorithmic bandwidth (bytes a second).
- **reduce-scatter**: the time reversal of allgather (every arc reversed), the same formula on
  the reversed graph.
- **broadcast** from ``r`` (``M`` bytes): every set ``S`` that holds ``r`` and misses a compute
  node must pass all ``M`` bytes out, so the time is at least ``M / min_S B+(S)``, the least
  ``r``-to-``v`` cut over the compute nodes ``v``; Edmonds' theorem packs that many
  arborescences, so pipelining meets it. **reduce** to ``r``: the reversal.

The maximum ratio is found by Dinkelbach's method: for a ratio ``λ`` attained by some cut,
``max_S |S ∩ V_c| - λ B+(S)`` is a minimum ``s``-``t`` cut for each excluded compute node
``t`` (an arc ``s -> v`` of capacity 1 for every compute node ``v``, paid when ``v`` is left
out of ``S``, and every arc of the fabric at ``λ`` times its bandwidth); a positive value
gives a cut of larger ratio, zero proves ``λ`` maximal. All arithmetic is on integers (the
bandwidths are read as exact fractions and scaled), so the ratio is an exact rational
number; the binding cut comes with it, and :func:`cut_ratio` re-derives its ratio from the
graph alone (the lower bound needs only the cut; the min-cut computation is what shows no
cut binds harder).

References
----------
.. [1] L. Zhao, S. Maleki, Z. Yang, H. Pourreza, A. Krishnamurthy, "ForestColl:
   Throughput-optimal collective communications on heterogeneous network fabrics",
   arXiv:2402.06787, 2024 (the allgather and reduce-scatter optimum and its trees;
   github.com/liangyuRain/ForestColl).
.. [2] J. Edmonds, "Edge-disjoint branchings", in *Combinatorial Algorithms*, 1973 (as many
   edge-disjoint arborescences from ``r`` as the least ``r``-cut).
.. [3] W. Dinkelbach, "On nonlinear fractional programming", Management Science 13(7), 1967.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

from gossipcert.errors import GraphError

__all__ = [
    "ThroughputCut",
    "allgather_cut",
    "broadcast_cut",
    "cut_ratio",
    "exit_bandwidth",
    "reduce_scatter_cut",
]


@dataclass(frozen=True)
class ThroughputCut:
    """The cut that binds a collective's bandwidth bound.

    Attributes
    ----------
    ratio : Fraction
        Seconds a byte of the bound's unit needs: for allgather and reduce-scatter
        ``|S ∩ V_c| / B+(S)``, so the time is at least ``(M / N) ratio``; for broadcast and
        reduce ``1 / B+(S)``, so the time is at least ``M ratio``.
    side : frozenset
        The set ``S`` (the data leaves it; for the reversed collectives, enters it).
    inside : int
        ``|S ∩ V_c|`` (1 for broadcast and reduce).
    bandwidth : Fraction
        ``B+(S)``: the bandwidth of the arcs that leave ``S`` (enter it, reversed).
    collective : str
        ``allgather``, ``reduce-scatter``, ``broadcast`` or ``reduce``.
    """

    ratio: Fraction
    side: frozenset[Hashable]
    inside: int
    bandwidth: Fraction
    collective: str

    def time(self, size: float | Fraction, compute_nodes: int) -> Fraction:
        """Least time for a message of ``size`` bytes: ``(size / N) ratio`` for allgather
        and reduce-scatter (``size`` is the whole output, ``N = compute_nodes``),
        ``size ratio`` for broadcast and reduce."""
        m = _exact(size, "size")
        if self.collective in ("allgather", "reduce-scatter"):
            return m / compute_nodes * self.ratio
        return m * self.ratio

    def to_json(self) -> dict[str, object]:
        """JSON-ready form (fractions as ``"p/q"`` strings, the side as a sorted list)."""
        return {
            "collective": self.collective,
            "ratio": str(self.ratio),
            "inside": self.inside,
            "bandwidth": str(self.bandwidth),
            "side": sorted(self.side, key=repr),
        }


def _exact(x: float | int | Fraction, what: str) -> Fraction:
    """``x`` as an exact fraction (a float by its shortest decimal form: 12.5 -> 25/2)."""
    if isinstance(x, bool) or not isinstance(x, int | float | Fraction):
        raise GraphError(f"a {what} must be a number, got {x!r}")
    value = Fraction(repr(x)) if isinstance(x, float) else Fraction(x)
    if isinstance(x, float) and not math.isfinite(x):
        raise GraphError(f"a {what} must be finite, got {x!r}")
    return value


def _arcs(graph: nx.Graph, weight: str) -> dict[tuple[Hashable, Hashable], Fraction]:
    """Every arc of ``graph`` with its bandwidth (an undirected edge is two arcs)."""
    arcs: dict[tuple[Hashable, Hashable], Fraction] = {}
    pairs: Iterable[tuple[Hashable, Hashable, object]] = graph.edges(data=weight, default=1)
    for u, v, w in pairs:
        b = _exact(w, f"bandwidth of {u!r} -> {v!r}")  # type: ignore[arg-type]
        if b <= 0:
            raise GraphError(f"the bandwidth of {u!r} -> {v!r} must be positive, got {w!r}")
        if u == v:
            continue
        arcs[(u, v)] = arcs.get((u, v), Fraction(0)) + b
        if not graph.is_directed():
            arcs[(v, u)] = arcs.get((v, u), Fraction(0)) + b
    return arcs


def _compute_nodes(graph: nx.Graph, compute: Iterable[Hashable] | None) -> list[Hashable]:
    if compute is None:
        return [v for v, r in graph.nodes(data="router", default=False) if not r]
    nodes = list(dict.fromkeys(compute))
    missing = [v for v in nodes if v not in graph]
    if missing:
        raise GraphError(f"compute node {missing[0]!r} is not in the graph")
    return nodes


def exit_bandwidth(
    arcs: dict[tuple[Hashable, Hashable], Fraction], side: frozenset[Hashable]
) -> Fraction:
    """``B+(S)``: the total bandwidth of the arcs from ``side`` to the rest."""
    return sum((b for (u, v), b in arcs.items() if u in side and v not in side), Fraction(0))


def cut_ratio(
    graph: nx.Graph,
    side: Iterable[Hashable],
    *,
    compute: Iterable[Hashable] | None = None,
    weight: str = "capacity",
) -> Fraction:
    """``|S ∩ V_c| / B+(S)`` of one set ``S``, from the graph alone (a bound's check).

    Parameters
    ----------
    graph : networkx.Graph or networkx.DiGraph
        The fabric; an undirected edge is a link of the same bandwidth both ways.
    side : iterable of nodes
        The set ``S``; it must leave some compute node out.
    compute : iterable of nodes, optional
        The compute nodes ``V_c`` (default: the nodes not marked ``router``).
    weight : str
        The edge attribute holding the bandwidth (default ``capacity``; 1 where absent).

    Returns
    -------
    Fraction
        The ratio (0 when ``S`` holds no compute node).

    Examples
    --------
    >>> cut_ratio(nx.path_graph(4), {0, 1})
    Fraction(2, 1)
    """
    s = frozenset(side)
    nodes = _compute_nodes(graph, compute)
    if all(v in s for v in nodes):
        raise GraphError("the cut must leave some compute node out")
    inside = sum(1 for v in nodes if v in s)
    if inside == 0:
        return Fraction(0)
    bandwidth = exit_bandwidth(_arcs(graph, weight), s)
    if bandwidth == 0:
        raise GraphError("no link leaves the cut: the compute nodes are not connected")
    return Fraction(inside) / bandwidth


def _check_connected(graph: nx.Graph, nodes: list[Hashable]) -> None:
    """GraphError unless every compute node reaches every other along the arcs."""
    if len(nodes) < 2:
        return
    if graph.is_directed():
        forward = nx.descendants(graph, nodes[0]) | {nodes[0]}
        backward = nx.ancestors(graph, nodes[0]) | {nodes[0]}
    else:
        forward = backward = nx.node_connected_component(graph, nodes[0])
    for v in nodes[1:]:
        if v not in forward or v not in backward:
            raise GraphError(f"compute nodes {nodes[0]!r} and {v!r} do not reach each other")


def _scaled(arcs: dict[tuple[Hashable, Hashable], Fraction]) -> tuple[dict, int]:
    """The bandwidths times their common denominator ``D`` (integers), and ``D``."""
    den = math.lcm(*(b.denominator for b in arcs.values())) if arcs else 1
    return {a: int(b * den) for a, b in arcs.items()}, den


def _best_side(
    nodes: list[Hashable],
    ints: dict[tuple[Hashable, Hashable], int],
    den: int,
    lam: Fraction,
) -> frozenset[Hashable] | None:
    """A set ``S`` with ``|S ∩ V_c| - lam B+(S) > 0`` and a compute node outside, or None
    when no set has a positive value (then ``lam`` is the largest ratio)."""
    p, q = lam.numerator, lam.denominator
    source = ("gossipcert-throughput", "source")
    net = nx.DiGraph()
    for (u, v), b in ints.items():
        if b:
            net.add_edge(u, v, cap=p * b)
    best: tuple[int, frozenset[Hashable]] | None = None
    for t in nodes:
        for v in nodes:
            if v != t:
                net.add_edge(source, v, cap=q * den)
        # cut = q D |V_c - S - {t}| + p D B+(S); the value of S is |V_c| - 1 - cut / (q D)
        cut, (reach, _) = nx.minimum_cut(net, source, t, capacity="cap")
        gain = q * den * (len(nodes) - 1) - cut  # q D times the value of S
        if gain > 0 and (best is None or gain > best[0]):
            best = (gain, frozenset(reach) - {source})
        net.remove_node(source)
    return None if best is None else best[1]


def allgather_cut(
    graph: nx.Graph,
    compute: Iterable[Hashable] | None = None,
    *,
    weight: str = "capacity",
) -> ThroughputCut:
    """The cut that binds allgather: ``max_S |S ∩ V_c| / B+(S)``, exactly.

    Parameters
    ----------
    graph : networkx.Graph or networkx.DiGraph
        The fabric; switches and NICs are nodes marked ``router`` (or left out of
        ``compute``). An undirected edge is a link of the same bandwidth both ways.
    compute : iterable of nodes, optional
        The compute nodes (default: the nodes not marked ``router``).
    weight : str
        The edge attribute that holds the bandwidth (default ``capacity``; 1 where absent).
        Integers, fractions or floats (read by their decimal form, 12.5 as 25/2).

    Returns
    -------
    ThroughputCut
        The largest ratio and a set ``S`` that attains it; the allgather of a message of
        ``M`` bytes (``M / N`` a node) takes at least ``(M / N) ratio``, and ``N / ratio``
        is the fabric's optimal algorithmic bandwidth.

    Raises
    ------
    GraphError
        A bandwidth that is not a positive number, or compute nodes that do not reach each
        other.

    Examples
    --------
    A ring of 8 with links of bandwidth 1 both ways: the shares of seven nodes must reach the
    eighth through its two incoming arcs:

    >>> cut = allgather_cut(nx.cycle_graph(8))
    >>> cut.ratio, cut.inside, cut.bandwidth
    (Fraction(7, 2), 7, Fraction(2, 1))

    (the time is at least ``(M / 8) 7 / 2``, which the bidirectional ring meets.) A star of
    four GPUs behind a switch whose links carry 3:

    >>> g = nx.star_graph(4)
    >>> nx.set_edge_attributes(g, 3, "capacity"); g.nodes[0]["router"] = True
    >>> allgather_cut(g).ratio
    Fraction(1, 1)

    References
    ----------
    ForestColl (Zhao et al. 2024), the optimal allgather runtime
    ``(M / N) max_{S ⊉ V_c} |S ∩ V_c| / B+(S)``; Dinkelbach (1967) for the search.
    """
    nodes = _compute_nodes(graph, compute)
    return _max_ratio(graph, nodes, _arcs(graph, weight), "allgather")


def reduce_scatter_cut(
    graph: nx.Graph,
    compute: Iterable[Hashable] | None = None,
    *,
    weight: str = "capacity",
) -> ThroughputCut:
    """The cut that binds reduce-scatter: :func:`allgather_cut` of the reversed fabric
    (``S`` is the set the partial results must *enter*).

    Examples
    --------
    >>> g = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> reduce_scatter_cut(g).ratio == allgather_cut(g).ratio == 2
    True
    """
    nodes = _compute_nodes(graph, compute)
    arcs = {(v, u): b for (u, v), b in _arcs(graph, weight).items()}
    return _max_ratio(graph, nodes, arcs, "reduce-scatter")


def _max_ratio(
    graph: nx.Graph,
    nodes: list[Hashable],
    arcs: dict[tuple[Hashable, Hashable], Fraction],
    collective: str,
) -> ThroughputCut:
    _check_connected(graph, nodes)
    if len(nodes) < 2:
        return ThroughputCut(Fraction(0), frozenset(), 0, Fraction(0), collective)
    # start from the best single compute node
    side = max(
        (frozenset([v]) for v in nodes),
        key=lambda s: Fraction(1) / exit_bandwidth(arcs, s),
    )
    ints, den = _scaled(arcs)
    while True:
        bandwidth = exit_bandwidth(arcs, side)
        inside = sum(1 for v in nodes if v in side)
        lam = Fraction(inside) / bandwidth
        better = _best_side(nodes, ints, den, lam)
        if better is None:
            return ThroughputCut(lam, side, inside, bandwidth, collective)
        side = better


def broadcast_cut(
    graph: nx.Graph,
    root: Hashable,
    compute: Iterable[Hashable] | None = None,
    *,
    weight: str = "capacity",
    reverse: bool = False,
) -> ThroughputCut:
    """The cut that binds broadcast from ``root`` (``reverse=True``: reduce to it).

    The least total bandwidth of a set that holds ``root`` and misses a compute node: a
    broadcast of ``M`` bytes takes at least ``M / B``, and pipelining over Edmonds'
    arborescences meets it.

    Examples
    --------
    >>> cut = broadcast_cut(nx.cycle_graph(6), 0)
    >>> cut.ratio, cut.bandwidth
    (Fraction(1, 2), Fraction(2, 1))
    """
    nodes = _compute_nodes(graph, compute)
    if root not in graph:
        raise GraphError(f"root {root!r} is not in the graph")
    _check_connected(graph, [root, *[v for v in nodes if v != root]])
    arcs = _arcs(graph, weight)
    if reverse:
        arcs = {(v, u): b for (u, v), b in arcs.items()}
    ints, den = _scaled(arcs)
    net = nx.DiGraph()
    for (u, v), b in ints.items():
        net.add_edge(u, v, cap=b)
    best: tuple[int, frozenset[Hashable]] | None = None
    for t in nodes:
        if t == root:
            continue
        cut, (reach, _) = nx.minimum_cut(net, root, t, capacity="cap")
        if best is None or cut < best[0]:
            best = (cut, frozenset(reach))
    collective = "reduce" if reverse else "broadcast"
    if best is None:
        return ThroughputCut(Fraction(0), frozenset(), 0, Fraction(0), collective)
    bandwidth = Fraction(best[0], den)
    return ThroughputCut(Fraction(1) / bandwidth, best[1], 1, bandwidth, collective)
