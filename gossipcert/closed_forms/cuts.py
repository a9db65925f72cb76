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
- ``k`` ports with ``p``: a sender sends at most ``k`` transmissions, a receiver receives at
  most ``k``, an arc carries one: ``p * min(k |senders|, k |receivers|, |arcs|)``;
- with ``calls=N`` also at most ``N`` crossing transmissions a round; unbounded packets give
  no bound.

Packet ``p`` cannot cross before round ``head(p) = min over cut arcs (a, b) of
dist(holders(p), a) + 1``, and after its first crossing, in round ``t``, every node ``d`` of
``T`` that demands it is reached no earlier than ``t + min over cut arcs (a, b) of
L(a, b) - 1 + dist(b, d)`` (every route from ``S`` to ``d`` enters ``T`` by a cut arc, not
before ``t``);
let ``tail(p)`` be the largest of these over its demanders in ``T``. For every pair of
thresholds ``m`` and ``h``, the ``k(m, h)`` packets with ``head >= m`` and ``tail >= h`` need
``k(m, h)`` first crossings, at most ``C(S)`` a round, none before round ``m``; the last of
them crosses in round ``m - 1 + ceil(k(m, h) / C(S))`` or later and is delivered ``h``
rounds after that:

    R >= max over m, h with k(m, h) > 0 of  m - 1 + ceil(k(m, h) / C(S)) + h.

With latencies (all-port, an edge's ``latency`` ``L``; 1 without) ``dist`` weights every
edge by its latency, a packet entering a cut arc ``(a, b)`` in round ``t`` is at ``b`` after
round ``t + L(a, b) - 1`` (hence the ``L - 1`` in the tail), and the capacity bounds the
packets that *enter* the cut arcs in one round (the links are pipelined), so the count of
first crossings per round, and the bound, are unchanged.

(The packets of a star's other leaves reach the centre no earlier than round 1, so the
threshold on heads counts what a single threshold on tails misses: three of them for a
leaf of ``star:5`` under ``all-port:c=2`` give ``2 - 1 + ceil(3/2) + 0 = 3``.) Packets with
the same holders and the same demanders share their head and tail on every cut, so the
bound is evaluated per such class, on arrays (:class:`CutData`).

The cuts tried: every set of nodes for small graphs (``n <= 8``), otherwise each single
node and its complement (a node receives at most its in-capacity a round: the bound per
port), the two sides of every bridge, the balls around every node (with latencies also the
balls in the distance weighted by latency), on trees every subtree
(which the bridges give), and up to 256 nodes the ``n - 1`` cuts of a Gomory-Hu tree of the
capacities, which hold a least cut between every pair of nodes: on a machine of chassis
joined by slower links (``mi250:2``, ``ndv2:K``) a chassis and its NICs against the rest,
the cut that bounds every allgather and alltoall; and, up to the same size, the sides of
:mod:`gossipcert.closed_forms.cut_sides` (the exact throughput cuts of allgather and
reduce-scatter, and the clusters of a capacity dendrogram: the balanced cuts of a machine
such as the two halves of ``mi250``). With routers the holdings and demands are the
processors' only, as in every problem.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees" (the
   total-exchange bound ``n^2 / (4c)`` is this argument on the root's cut).
.. [2] F. T. Leighton, *Introduction to Parallel Algorithms and Architectures*, 1992
   (bisection-width arguments).
.. [3] R. E. Gomory and T. C. Hu, "Multi-terminal network flows", J. SIAM 9(4), 1961.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import networkx as nx
import numpy as np
import numpy.typing as npt

from gossipcert import graphs
from gossipcert.closed_forms.base import _LOWER, Bound, _memo
from gossipcert.closed_forms.cut_sides import extra_sides
from gossipcert.instance import Instance, bits

#: every subset of the nodes is tried up to this many nodes
ALL_CUTS_MAX_NODES = 8

#: the cuts of a Gomory-Hu tree are tried up to this many nodes (n - 1 maximum flows)
GOMORY_HU_MAX_NODES = 256


def _capacity(instance: Instance, arcs: list[tuple[int, int]]) -> int | None:
    """Most distinct packets that cross the given cut arcs in one round (see the module)."""
    g = instance.graph
    m = instance.model
    if not arcs:
        return 0
    arc_capacities = m.rules.arc_capacities
    if arc_capacities:
        cap = sum(m.capacity or graphs.capacity(g, a, b) for a, b in arcs)
    else:
        if m.packet_cap is None or m.ports is None:
            return None
        # transmissions across the cut: at most ``ports`` per tail and per head, one per arc
        ports = m.ports
        ends = min(ports * len({a for a, _ in arcs}), ports * len({b for _, b in arcs}))
        cap = m.packet_cap * min(ends, len(arcs))
    if m.calls_per_round is not None and not arc_capacities:
        assert m.packet_cap is not None
        cap = min(cap, m.packet_cap * m.calls_per_round)
    return cap


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
    return _capacity(instance, [(a, b) for a in side for b in g.adj[a] if b not in side])


class CutData:
    """What every cut of one instance shares, as arrays: distances, arcs, packet classes.

    Packets are grouped by their holders and by their demanders: two packets with the same
    holders and the same demanders have the same head and tail on every cut, so each
    (holders, demanders) class is evaluated once, with its number of packets.

    Parameters
    ----------
    instance : Instance
    """

    def __init__(self, instance: Instance) -> None:
        n = instance.n
        self.instance = instance
        g = instance.graph
        slow = graphs.latencies(g)
        #: beyond every distance (the graph's distances are at most its total latency)
        self.far = n + 1 + sum(lat - 1 for lat in slow.values())
        #: dist[u, v]: the graph distance (connected graphs only), each edge weighted by
        #: its latency
        self.dist = np.full((n, n), self.far, dtype=np.int64)
        for u in range(n):
            found = (
                nx.single_source_dijkstra_path_length(g, u, weight="latency")
                if slow
                else nx.single_source_shortest_path_length(g, u)
            )
            for v, d in found.items():
                self.dist[u, v] = d
        arcs = [(a, b) for a, b in g.edges()] + [(b, a) for a, b in g.edges()]
        self.arc_tail = np.array([a for a, _ in arcs], dtype=np.int64)
        self.arc_head = np.array([b for _, b in arcs], dtype=np.int64)
        #: latency - 1 of each arc: the rounds after its round of entry before it arrives
        self.arc_wait = np.array(
            [slow.get((min(a, b), max(a, b)), 1) - 1 for a, b in arcs], dtype=np.int64
        )
        holder_rows: dict[int, int] = {}
        demand_rows: dict[int, int] = {}
        classes: dict[tuple[int, int], int] = {}
        holders_of: list[int] = [0] * instance.n_packets
        demanders_of: list[int] = [0] * instance.n_packets
        for v in range(n):
            for p in bits(instance.holdings[v]):
                holders_of[p] |= 1 << v
            for p in bits(instance.demands[v]):
                demanders_of[p] |= 1 << v
        for p in range(instance.n_packets):
            if not demanders_of[p]:
                continue
            h = holder_rows.setdefault(holders_of[p], len(holder_rows))
            d = demand_rows.setdefault(demanders_of[p], len(demand_rows))
            classes[h, d] = classes.get((h, d), 0) + 1

        def matrix(rows: dict[int, int]) -> npt.NDArray[np.bool_]:
            out = np.zeros((len(rows), n), dtype=bool)
            for mask, i in rows.items():
                out[i, list(bits(mask))] = True
            return out

        #: holds[i, v]: node v holds the packets of holder class i
        self.holds = matrix(holder_rows)
        #: demands[j, v]: node v demands the packets of demand class j
        self.demands = matrix(demand_rows)
        self.class_holder = np.array([h for h, _ in classes], dtype=np.int64)
        self.class_demand = np.array([d for _, d in classes], dtype=np.int64)
        self.class_size = np.array(list(classes.values()), dtype=np.int64)

    def value(self, side: frozenset[int]) -> int:
        """The bound of the module docstring for the cut ``side`` / rest; 0 if none."""
        n = self.instance.n
        in_side = np.zeros(n, dtype=bool)
        in_side[list(side)] = True
        crossing_arcs = in_side[self.arc_tail] & ~in_side[self.arc_head]
        if not crossing_arcs.any():
            return 0
        starts = np.unique(self.arc_tail[crossing_arcs])
        out = ~in_side
        # packets that some node outside demands and no node outside holds
        # the matrices are 2-D, so any(axis=1) is an array (numpy's stubs also allow a scalar)
        held_by = cast("npt.NDArray[np.bool_]", (self.holds & out).any(axis=1))
        needed_by = cast("npt.NDArray[np.bool_]", (self.demands & out).any(axis=1))
        held_out = held_by[self.class_holder]
        need_out = needed_by[self.class_demand]
        crossing = need_out & ~held_out
        if not crossing.any():
            return 0
        arcs = list(
            zip(
                self.arc_tail[crossing_arcs].tolist(),
                self.arc_head[crossing_arcs].tolist(),
                strict=True,
            )
        )
        cap = _capacity(self.instance, arcs)
        if cap is None or cap == 0:
            return 0
        # head: the earliest round a packet can cross; tail: rounds from the cut to its
        # farthest demander outside
        to_cut = self.dist[:, starts].min(axis=1) + 1
        beyond = self.dist[self.arc_head[crossing_arcs], :] + self.arc_wait[crossing_arcs][:, None]
        from_cut = np.where(out, beyond.min(axis=0), -1)
        head_of_holders = np.where(self.holds, to_cut, self.far + 1).min(axis=1)
        tail_of_demands = np.where(self.demands, from_cut, -1).max(axis=1)
        heads = head_of_holders[self.class_holder[crossing]]
        tails = tail_of_demands[self.class_demand[crossing]]
        sizes = self.class_size[crossing]
        if heads.max() > self.far or tails.max() > self.far or tails.min() < 0:
            return 0
        # k(m, h): packets with head >= m and tail >= h, as suffix sums of a histogram
        hist = np.zeros((int(heads.max()) + 1, int(tails.max()) + 1), dtype=np.int64)
        np.add.at(hist, (heads, tails), sizes)
        k = hist[::-1, ::-1].cumsum(axis=0).cumsum(axis=1)[::-1, ::-1]
        m = np.arange(hist.shape[0])[:, None]
        h = np.arange(hist.shape[1])[None, :]
        # a capacity above the packets that cross changes no ceiling (and may not fit int64)
        cap = min(cap, int(sizes.sum()))
        values = np.where(k > 0, m - 1 + -(-k // cap) + h, 0)
        return int(values.max())


def cut_value(instance: Instance, side: frozenset[int], data: CutData | None = None) -> int:
    """The bound of the module docstring for one cut (``side`` is ``S``); 0 if none.

    Parameters
    ----------
    instance : Instance
    side : frozenset of int
        The nodes of ``S``.
    data : CutData, optional
        The instance's shared arrays (built when not given).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> cut_value(parse_instance("path:5", "all-port", "scatter:0"), frozenset({0}))
    4
    """
    return (data or CutData(instance)).value(side)


def cut_family(instance: Instance) -> Iterator[frozenset[int]]:
    """The sides ``S`` the cut bound tries (module docstring), each once."""
    return _cuts(instance)


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
    if graphs.latencies(g):
        # balls in the distance weighted by latency: the sides of the slow links
        for v in range(n):
            weighted = nx.single_source_dijkstra_path_length(g, v, weight="latency")
            for r in sorted(set(weighted.values()))[1:-1]:
                yield from fresh(frozenset(w for w, d in weighted.items() if d <= r))
    if n <= GOMORY_HU_MAX_NODES and nx.is_connected(g):
        for side in _gomory_hu_sides(g):
            yield from fresh(side)
        for side in extra_sides(g):
            yield from fresh(side)


def _gomory_hu_sides(g: nx.Graph) -> Iterator[frozenset[int]]:
    """One side of each cut of a Gomory-Hu tree of ``g`` (edge capacities): for every pair
    of nodes, a cut of least capacity between them is among these ``n - 1``."""
    tree = nx.gomory_hu_tree(g, capacity="capacity")
    for u, v in list(tree.edges()):
        tree.remove_edge(u, v)
        yield frozenset(nx.node_connected_component(tree, u))
        tree.add_edge(u, v)


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
        if not m.rules.arc_capacities and m.packet_cap is None:
            return None
        g = instance.graph
        data = CutData(instance)
        best: tuple[int, str] | None = None
        for side in _cuts(instance):
            value = data.value(side)
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
