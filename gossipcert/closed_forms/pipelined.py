"""Lower bounds that grow with the number of chunks: the pipeline and the flow over time.

Both bounds are for a message split into ``K`` chunks (``chunks=K``) and count how fast
distinct chunks can leave a source or reach a node, plus the rounds the last one still needs.

``pipelined-broadcast`` (Bar-Noy and Kipnis [1]_): a broadcast of ``K`` chunks from one
source under a model in which the source sends at most ``p`` distinct chunks a round
(telephone, half-duplex, single-port and multicast with a packet cap ``p``, any limit on
calls per round). After ``r = ceil(K / p) - 1`` rounds the source has sent at most ``p r < K``
distinct chunks, so some chunk ``X`` is still known to the source alone when round ``r + 1``
begins; from then on the schedule restricted to ``X`` is a broadcast of one packet from the
source (a subset of a valid round is a valid round in these models), which takes at least
``b`` rounds, ``b`` the ``broadcast-layers`` value of the one-packet broadcast (it includes
the doubling bound ``ceil(log2 n)`` and the source's eccentricity) in the point-to-point
models and the eccentricity in multicast. Hence

    R >= ceil(K / p) - 1 + b,

which is ``K - 1 + ceil(log2 n)`` on ``K_n`` with ``p = 1``: the bound of [1]_, met for every
``n`` and ``K`` in the single-port model [2]_ [3]_ (the ``circulant-broadcast``
construction, :mod:`gossipcert.constructions.circulant_broadcast`).

``flow-over-time`` (Ford and Fulkerson's temporally repeated flows [4]_): for a demanding node
``v`` all of whose missing packets have one and the same holder ``s`` (broadcast, scatter),
choose for every such packet one chain of transmissions that brings it from ``s`` to ``v``.
The chains are paths in the time-expanded network in which a packet sent in round ``t`` over
arc ``(u, w)`` of latency ``L`` reaches ``w`` after round ``t + L - 1``, and distinct packets
never share a unit of capacity: at most ``c(u, w)`` of them enter an arc a round under
all-port; at most ``p`` leave and at most ``p`` enter a node a round in the one-port models
and multicast (each node split into a receiving and a sending half joined through the node).
So they are an integral flow over time of value ``D_v`` (the missing packets) that arrives
by round ``R``. For one source and one sink the largest such flow, with or without storage
at the nodes, is a temporally repeated static flow [4]_: if the successive shortest
augmenting paths (lengths: total latency) have lengths ``d_1 <= d_2 <= ...`` and carry
``delta_1, delta_2, ...``, the most that can arrive by round ``R`` is

    F_v(R) = sum_i delta_i * max(0, R + 1 - d_i),

and ``R >= min { R : F_v(R) >= D_v }`` for every ``v``. On ``K_n`` under all-port a broadcast
of ``K`` chunks gives ``F_v(R) = R + (n - 2)(R - 1)`` (one direct arc, ``n - 2`` paths of two),
hence ``R >= 1 + ceil((K - 1) / (n - 1))``, which the scatter-allgather broadcast meets
(:mod:`gossipcert.constructions.scatter_allgather`); on a ring of ``n`` the neighbour of the
source gives ``R + max(0, R - n + 2) >= K``.

References
----------
.. [1] A. Bar-Noy and S. Kipnis, "Broadcasting multiple messages in simultaneous
   send/receive systems", Discrete Applied Mathematics 55 (1994) 95-105 (the lower bound
   ``(m - 1) + ceil(log n)`` for ``m`` messages on ``n`` processors).
.. [2] A. Bar-Noy, S. Kipnis and B. Schieber, "Optimal multiple message broadcasting in
   telephone-like communication systems", Discrete Applied Mathematics 100 (2000) 1-15
   (optimal in the simultaneous send/receive model for every ``n``).
.. [3] J. L. Träff, "Round-optimal n-block broadcast schedules in logarithmic time",
   arXiv:2312.11236, 2023 (the same optimum on a circulant graph, every ``p``).
.. [4] L. R. Ford and D. R. Fulkerson, "Constructing maximal dynamic flows from static
   flows", Operations Research 6(3) (1958) 419-433; *Flows in Networks*, 1962, ch. III.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms.base import _LOWER, Bound, _memo
from gossipcert.closed_forms.broadcast import layers_value
from gossipcert.instance import Instance, ProblemKind, bits
from gossipcert.models import rules_of

__all__ = [
    "FlowNetwork",
    "flow_over_time_bound",
    "flow_rounds",
    "pipelined_broadcast_bound",
]

_BK = "Bar-Noy-Kipnis 1994"
_FF = "Ford-Fulkerson 1958 (temporally repeated flows)"


def _single_source(instance: Instance) -> int | None:
    """The one holder of every packet of a broadcast, or None."""
    if instance.problem.kind is not ProblemKind.BROADCAST:
        return None
    holders = [v for v in range(instance.n) if instance.holdings[v]]
    return holders[0] if len(holders) == 1 else None


def pipelined_broadcast_bound(instance: Instance) -> Bound | None:
    """``ceil(K / p) - 1 + b`` for a broadcast of ``K`` chunks (module docstring).

    Parameters
    ----------
    instance : Instance
        A broadcast from one source with ``chunks=K``, ``K >= 2``, under telephone,
        half-duplex, single-port or multicast with a packet cap ``p``.

    Returns
    -------
    Bound or None
        None for other problems, models or unbounded packets.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> pipelined_broadcast_bound(
    ...     parse_instance("complete:16", "single-port:p=1", "broadcast:0,chunks=8")).value
    11
    >>> pipelined_broadcast_bound(
    ...     parse_instance("complete:16", "telephone:p=2", "broadcast:0,chunks=8")).value
    7

    References
    ----------
    Bar-Noy and Kipnis (1994), the lower bound ``m - 1 + ceil(log n)``.
    """
    m = instance.model
    k = instance.problem.chunks
    root = _single_source(instance)
    if root is None or k < 2 or m.packet_cap is None or graphs.latencies(instance.graph):
        return None
    rules = rules_of(m.kind)
    if not rules.one_port:
        return None
    n = instance.n
    nbrs = [list(instance.graph.adj[v]) for v in range(n)]
    demand = [bool(instance.demands[v]) for v in range(n)]
    if rules.point_to_point:
        b = layers_value(nbrs, [root], demand)
    else:  # multicast: one transmission reaches every neighbour
        dist = nx.single_source_shortest_path_length(instance.graph, root)
        b = max((d for v, d in dist.items() if demand[v]), default=0)
    value = -(-k // m.packet_cap) - 1 + b
    return Bound(
        "pipelined-broadcast",
        _LOWER,
        value,
        f"{_BK}: the source sends at most {m.packet_cap} distinct chunk(s) a round, so one "
        f"chunk is still its alone after {-(-k // m.packet_cap) - 1} rounds and needs {b} "
        "more to reach everyone",
    )


class FlowNetwork:
    """A static network with integer capacities and transit times, and its successive
    shortest augmenting paths from a source to a sink (min-cost flow by Dijkstra with
    potentials).

    Parameters
    ----------
    size : int
        Number of vertices ``0 .. size - 1``.

    Examples
    --------
    >>> net = FlowNetwork(3)
    >>> net.add(0, 1, 1, 1); net.add(1, 2, 1, 1); net.add(0, 2, 1, 1)
    >>> net.augmentations(0, 2)
    [(1, 1), (2, 1)]
    """

    def __init__(self, size: int) -> None:
        self.size = size
        #: per vertex, the indices of its residual arcs
        self.out: list[list[int]] = [[] for _ in range(size)]
        self.head: list[int] = []
        self.cap: list[int] = []
        self.cost: list[int] = []

    def add(self, u: int, v: int, cap: int, cost: int) -> None:
        """An arc ``u -> v`` of capacity ``cap`` and transit time ``cost`` (and its residual
        reverse)."""
        for a, b, c, w in ((u, v, cap, cost), (v, u, 0, -cost)):
            self.out[a].append(len(self.head))
            self.head.append(b)
            self.cap.append(c)
            self.cost.append(w)

    def augmentations(self, source: int, sink: int) -> list[tuple[int, int]]:
        """The successive shortest augmenting paths as ``(length, amount)`` pairs, lengths
        non-decreasing (a minimum-cost maximum flow, augmented path by path)."""
        inf = 1 << 60
        potential = [0] * self.size
        found: list[tuple[int, int]] = []
        cap = list(self.cap)
        while True:
            dist = [inf] * self.size
            via = [-1] * self.size
            dist[source] = 0
            heap = [(0, source)]
            while heap:
                d, u = heapq.heappop(heap)
                if d > dist[u]:
                    continue
                for a in self.out[u]:
                    if cap[a] <= 0:
                        continue
                    w = self.head[a]
                    nd = d + self.cost[a] + potential[u] - potential[w]
                    if nd < dist[w]:
                        dist[w] = nd
                        via[w] = a
                        heapq.heappush(heap, (nd, w))
            if dist[sink] >= inf:
                return found
            for v in range(self.size):
                if dist[v] < inf:
                    potential[v] += dist[v]
            length = potential[sink] - potential[source]
            amount = inf
            v = sink
            while v != source:
                a = via[v]
                amount = min(amount, cap[a])
                v = self.head[a ^ 1]
            v = sink
            while v != source:
                a = via[v]
                cap[a] -= amount
                cap[a ^ 1] += amount
                v = self.head[a ^ 1]
            found.append((length, amount))


def flow_rounds(paths: list[tuple[int, int]], demand: int) -> int | None:
    """The least ``R`` with ``sum_i amount_i * max(0, R + 1 - length_i) >= demand``, or None
    when the paths never carry ``demand`` (no path at all).

    Examples
    --------
    >>> flow_rounds([(1, 1), (2, 6)], 16)  # K_8, all-port, 16 chunks: 1 + ceil(15 / 7)
    4
    >>> flow_rounds([(1, 1)], 0)
    0
    """
    if demand <= 0:
        return 0
    if not paths:
        return None
    best: int | None = None
    rate = 0
    offset = 0  # sum amount_i * (length_i - 1): F(R) = rate * R - offset over the paths used
    for i, (length, amount) in enumerate(paths):
        rate += amount
        offset += amount * (length - 1)
        r = max(length - 1, -(-(demand + offset) // rate))
        nxt = paths[i + 1][0] if i + 1 < len(paths) else None
        # the formula holds for R below the next path's length (it adds nothing there)
        if nxt is None or r < nxt:
            best = r if best is None else min(best, r)
            break
    return best


def _network(instance: Instance) -> tuple[FlowNetwork, dict[Hashable, int]] | None:
    """The instance's static network: all-port arcs with their capacities and latencies, or
    the one-port node split (receive half -> node -> send half, ``p`` each, arcs uncapped)."""
    m = instance.model
    g = instance.graph
    n = instance.n
    slow = graphs.latencies(g)
    rules = rules_of(m.kind)
    if rules.arc_capacities:
        net = FlowNetwork(n)
        for a, b in g.edges():
            lat = slow.get((min(a, b), max(a, b)), 1)
            for u, v in ((a, b), (b, a)):
                net.add(u, v, m.capacity or graphs.capacity(g, u, v), lat)
        return net, {("node", v): v for v in range(n)}
    if m.packet_cap is None or slow:
        return None
    p = m.packet_cap
    # vertex v: receive half 3v, node 3v + 1, send half 3v + 2
    net = FlowNetwork(3 * n)
    big = p * (n + 1)
    for v in range(n):
        net.add(3 * v, 3 * v + 1, p, 0)
        net.add(3 * v + 1, 3 * v + 2, p, 0)
    for a, b in g.edges():
        for u, v in ((a, b), (b, a)):
            net.add(3 * u + 2, 3 * v, big, 1)
    return net, {("node", v): 3 * v + 1 for v in range(n)}


def flow_over_time_bound(instance: Instance) -> Bound | None:
    """The flow-over-time bound of the module docstring, over every demanding node whose
    missing packets share one holder.

    Parameters
    ----------
    instance : Instance
        A problem that copies packets (not a reduction); all-port (latencies allowed) or a
        one-port model or multicast with a packet cap.

    Returns
    -------
    Bound or None
        None when no demanding node has its missing packets at one holder, or packets are
        unbounded.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> flow_over_time_bound(
    ...     parse_instance("complete:8", "all-port", "broadcast:0,chunks=16")).value
    4
    >>> flow_over_time_bound(parse_instance("ring:16", "all-port", "broadcast:0,chunks=18")).value
    16

    References
    ----------
    Ford and Fulkerson (1958), maximal dynamic flows are temporally repeated.
    """

    def compute() -> tuple[int, int] | None:
        if instance.problem.reduction or instance.problem.kind is ProblemKind.CUSTOM:
            return None
        holder_of: dict[int, int] = {}
        multi = set()
        for v in range(instance.n):
            for p in bits(instance.holdings[v]):
                if p in holder_of:
                    multi.add(p)
                holder_of[p] = v
        pairs: list[tuple[int, int, int]] = []  # (source, sink, missing)
        for v in range(instance.n):
            missing = instance.demands[v] & ~instance.holdings[v]
            if not missing:
                continue
            sources = {holder_of.get(p, -1) for p in bits(missing)}
            if len(sources) != 1 or any(p in multi for p in bits(missing)):
                continue
            (s,) = sources
            if s >= 0:
                pairs.append((s, v, missing.bit_count()))
        if not pairs:
            return None
        built = _network(instance)
        if built is None:
            return None
        net, vertex = built
        best: tuple[int, int] | None = None
        for s, v, need in pairs:
            paths = net.augmentations(vertex["node", s], vertex["node", v])
            r = flow_rounds(paths, need)
            if r is not None and (best is None or r > best[0]):
                best = (r, v)
        return best

    found = _memo(instance, "flow-over-time", compute)
    if found is None:
        return None
    value, sink = found
    ref = graphs.node_ref(instance.graph, sink)
    return Bound(
        "flow-over-time",
        _LOWER,
        value,
        f"{_FF}: the most distinct packets that can reach node {ref} by round R, one chain "
        "each, through the arcs' (or ports') capacities and latencies",
    )
