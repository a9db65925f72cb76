"""Cut lower bounds: the packets that must cross a cut, its capacity per round, and distance.

For a set ``S`` of nodes and its complement ``T``, every packet that some node of ``T``
demands and no node of ``T`` holds must cross from ``S`` to ``T`` at least once. Let
``C(S)`` be the most *distinct* packets that can cross from ``S`` to ``T`` in one round:

- ``all-port``: the capacity of the arcs from ``S`` to ``T`` (a packet uses a unit of
  capacity on every arc it crosses);
- ``single-port``, ``telephone``, ``half-duplex`` with a packet cap ``p``: every crossing
  transmission has its own sender on ``S``'s side and its own receiver on ``T``'s side of
  the cut, so ``p * min(|senders|, |receivers|)``, the two sets being the ends of the cut
  arcs;
- ``multicast`` with ``p``: every sender sends one set of ``p`` packets and every receiver
  receives one, so again ``p * min(|senders|, |receivers|)``;
- with ``calls=N`` also at most ``N`` crossing transmissions a round; unbounded packets give
  no bound.

Packet ``p`` cannot cross before round ``head(p) = min over cut arcs (a, b) of
dist(holders(p), a) + 1``, and after its first crossing, in round ``t``, every node ``d`` of
``T`` that demands it is reached no earlier than ``t + min over cut arcs (a, b) of
dist(b, d)`` (every route from ``S`` to ``d`` enters ``T`` by a cut arc, not before ``t``);
let ``tail(p)`` be the largest of these over its demanders in ``T``. For every threshold
``h``, the ``k_h`` packets with ``tail >= h`` need ``k_h`` first crossings, at most ``C(S)``
a round, none before the smallest of their heads ``m_h``; the last of them crosses in round
``m_h - 1 + ceil(k_h / C(S))`` or later and is delivered ``h`` rounds after that:

    R >= max over h of  m_h - 1 + ceil(k_h / C(S)) + h.

The cuts tried: every set of nodes for small graphs (``n <= 8``), otherwise each single
node and its complement, the two sides of every bridge, the balls around every node and,
on trees, every subtree (which the bridges give). With routers the holdings and demands are
the processors' only, as in every problem.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees" (the
   total-exchange bound ``n^2 / (4c)`` is this argument on the root's cut).
.. [2] F. T. Leighton, *Introduction to Parallel Algorithms and Architectures*, 1992
   (bisection-width arguments).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import networkx as nx

from gossipcert import graphs
from gossipcert.bounds.base import _LOWER, Bound, _holders, _memo
from gossipcert.instance import Instance, ModelKind, bits

#: every subset of the nodes is tried up to this many nodes
ALL_CUTS_MAX_NODES = 8


def cut_capacity(instance: Instance, side: frozenset[int]) -> int | None:
    """Most distinct packets that can cross from ``side`` to the rest in one round.

    None when the model puts no limit on it (unbounded packets), 0 when no arc leaves.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> cut_capacity(parse_instance("fattree:4", "all-port", "total-exchange"),
    ...              frozenset({0, 1, 4}))
    1
    """
    g = instance.graph
    m = instance.model
    arcs = [(a, b) for a in side for b in g.adj[a] if b not in side]
    if not arcs:
        return 0
    if m.kind is ModelKind.ALL_PORT:
        cap = sum(m.capacity or graphs.capacity(g, a, b) for a, b in arcs)
    else:
        if m.packet_cap is None:
            return None
        ends = min(len({a for a, _ in arcs}), len({b for _, b in arcs}))
        cap = m.packet_cap * ends
    if m.calls_per_round is not None and m.kind is not ModelKind.ALL_PORT:
        assert m.packet_cap is not None
        cap = min(cap, m.packet_cap * m.calls_per_round)
    return cap


def cut_value(
    instance: Instance,
    side: frozenset[int],
    dist: dict[int, dict[int, int]],
    holders: list[list[int]],
) -> int:
    """The bound of the module docstring for one cut (``side`` is ``S``); 0 if none.

    ``dist[u][v]`` are the graph's distances and ``holders[p]`` the holders of packet ``p``.
    """
    n = instance.n
    other = [v for v in range(n) if v not in side]
    held_out = 0
    for v in other:
        held_out |= instance.holdings[v]
    need_out = 0
    for v in other:
        need_out |= instance.demands[v]
    crossing = need_out & ~held_out
    if not crossing:
        return 0
    cap = cut_capacity(instance, side)
    if cap is None or cap == 0:
        return 0
    g = instance.graph
    arcs = [(a, b) for a in side for b in g.adj[a] if b not in side]
    starts = {a for a, _ in arcs}
    ends = {b for _, b in arcs}
    # the rounds from a holder h to the far side of the cut, and from the cut to a node d
    to_cut: dict[int, float] = {}
    from_cut = {d: min(dist[b].get(d, math.inf) for b in ends) for d in other}
    tails: list[tuple[int, int]] = []  # (tail, head) per crossing packet
    for p in bits(crossing):
        for h in holders[p]:
            if h not in to_cut:
                to_cut[h] = min(dist[h].get(a, math.inf) for a in starts) + 1
        head = min(to_cut[h] for h in holders[p])
        tail = max(from_cut[d] for d in other if instance.demands[d] >> p & 1)
        if math.isinf(head) or math.isinf(tail):
            return 0
        tails.append((int(tail), int(head)))
    tails.sort(reverse=True)
    best = 0
    min_head = math.inf
    for k, (h, head) in enumerate(tails, start=1):
        min_head = min(min_head, head)
        if k < len(tails) and tails[k][0] == h:
            continue  # the threshold h counts every packet with tail >= h
        best = max(best, int(min_head) - 1 + -(-k // cap) + h)
    return best


def _cuts(instance: Instance) -> Iterator[frozenset[int]]:
    g = instance.graph
    n = instance.n
    nodes = frozenset(range(n))
    if n <= ALL_CUTS_MAX_NODES:
        for mask in range(1, (1 << n) - 1):
            yield frozenset(v for v in range(n) if mask >> v & 1)
        return
    seen: set[frozenset[int]] = set()

    def fresh(side: frozenset[int]) -> Iterator[frozenset[int]]:
        for s in (side, nodes - side):
            if s and s != nodes and s not in seen:
                seen.add(s)
                yield s

    for v in range(n):
        yield from fresh(frozenset({v}))
    for u, v in nx.bridges(g):
        h = g.copy()
        h.remove_edge(u, v)
        yield from fresh(frozenset(nx.node_connected_component(h, u)))
    for v in range(n):
        lengths = nx.single_source_shortest_path_length(g, v)
        for r in range(1, max(lengths.values())):
            yield from fresh(frozenset(w for w, d in lengths.items() if d <= r))


def cut_bound(instance: Instance) -> Bound | None:
    """Packets that must cross a cut over its capacity per round, plus distance.

    Parameters
    ----------
    instance : Instance
        Any problem; the all-port model, or a packet-capped one (see the module docstring).

    Returns
    -------
    Bound or None
        None with unbounded packets, or when no cut gives more than the distance does.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> cut_bound(parse_instance("fattree:4", "all-port", "total-exchange")).value
    7
    >>> cut_bound(parse_instance("path:4", "all-port", "scatter:0")).value
    3

    References
    ----------
    Dimakopoulos and Dimopoulos (the root cut of a fat tree); Leighton, bisection width.
    """

    def compute() -> tuple[int, str] | None:
        m = instance.model
        if m.kind is not ModelKind.ALL_PORT and m.packet_cap is None:
            return None
        g = instance.graph
        dist = {v: dict(nx.single_source_shortest_path_length(g, v)) for v in range(instance.n)}
        holders = _holders(instance)
        best: tuple[int, str] | None = None
        for side in _cuts(instance):
            value = cut_value(instance, side, dist, holders)
            if value > 0 and (best is None or value > best[0]):
                names = sorted(str(graphs.node_ref(g, v)) for v in side)
                best = (value, "{" + ", ".join(names) + "}")
        return best

    found = _memo(instance, "cut-bound", compute)
    if found is None:
        return None
    value, side = found
    return Bound(
        "cut",
        _LOWER,
        value,
        f"the packets that must leave {side}, at most the cut's capacity a round, plus the "
        "distance before and after the cut",
    )
