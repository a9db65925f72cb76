"""Hierarchical pipelines for multi-chassis machines: the slow links first, then the rest.

On the machines of TACCL and TE-CCL (:mod:`gossipcert.graphs.machines`) the links between
chassis (a NIC, a switch) carry far less than the links inside one, and the optimum of an
allgather or an alltoall is set by them: the cut bound of
:mod:`gossipcert.closed_forms.cuts` counts the chunks that must cross into a chassis, at most
its NIC's capacity a round, after the first can reach the NIC and before the last can spread
inside the chassis. The schedule here is built to meet it: it is the hierarchical algorithm
(intra-chassis gather towards the NIC, inter-chassis exchange, intra-chassis spread) with the
three phases pipelined, found by greedy routing on the time-expanded network:

- the demands ``(packet, node)`` are taken one at a time in a priority order, those whose
  route is longest first (so the chunks that cross chassis claim the slow links' rounds
  before the local traffic does, and the chunks for the nodes far from where they enter a
  chassis cross first, the ones for the nodes next to it last);
- each demand gets the **earliest-arrival route** from every node that already has the
  packet (its holder, or any node a route committed earlier passed it to, so an allgather
  builds multicast trees and a switch copies a chunk to several ports): a label-setting
  search over ``(node, round)`` in which an arc ``u -> v`` is usable in round ``r`` when ``u``
  has the packet by round ``r - 1`` and fewer than ``c(u, v)`` packets use the arc in round
  ``r`` yet; the route is then committed (the rounds of its arcs are taken);
- several priority orders are tried (farthest first, then by ``(destination - holder) mod
  P`` with ``P`` the number of processors (the routers are numbered after them), which
  makes every round of a switch's ports a permutation, or the other way round; chunks
  innermost or outermost) and the shortest schedule is kept.

Every committed transmission sends a packet its sender has by the round before, at most
``c(u, v)`` packets an arc and round, so the schedule is valid under all-port by
construction; callers still pass it through the verifier. Whether it meets the cut bound is
checked in the tests and in ``benchmarks/synthesis_scale.py``, not assumed.

References
----------
.. [1] A. Shah et al., "TACCL: Guiding collective algorithm synthesis using communication
   sketches", NSDI 2023 (hierarchical sketches: intra-node, inter-node relay, intra-node).
.. [2] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024 (TE-CCL: the time-expanded network, store
   and forward, switches that copy).
.. [3] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995 (farthest-first routing under all-port).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import networkx as nx

from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, bits
from gossipcert.problems import REDUCTIONS
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["machine_pipeline", "pipeline_routes"]

#: above this many demands only the first priority order is tried
_MANY_DEMANDS = 5_000
#: above this many demands the construction does not apply (a search a demand is too slow)
MAX_DEMANDS = 20_000

_Key = Callable[[tuple[int, int, int, int, int]], tuple[int, ...]]


class _Slots:
    """Per arc and round, how many packets the arc carries (the committed routes)."""

    def __init__(self, instance: Instance) -> None:
        g = instance.graph
        self.cap = {
            (u, v): _arc_capacity(instance, u, v) for a, b in g.edges() for u, v in ((a, b), (b, a))
        }
        self.used: dict[tuple[int, int], list[int]] = {arc: [0] for arc in self.cap}
        #: per arc, no round before this one has a free slot
        self.first_free: dict[tuple[int, int], int] = dict.fromkeys(self.cap, 1)

    def earliest(self, arc: tuple[int, int], after: int) -> int:
        """The first round ``> after`` in which ``arc`` has a free slot."""
        used, cap = self.used[arc], self.cap[arc]
        r = max(after + 1, self.first_free[arc])
        while r < len(used) and used[r] >= cap:
            r += 1
        return r

    def take(self, arc: tuple[int, int], r: int) -> None:
        used = self.used[arc]
        if r >= len(used):
            used.extend([0] * (r + 1 - len(used)))
        used[r] += 1
        if r == self.first_free[arc]:
            while r < len(used) and used[r] >= self.cap[arc]:
                r += 1
            self.first_free[arc] = r


def _route(
    graph: nx.Graph, slots: _Slots, known: dict[int, int], target: int
) -> list[tuple[int, int, int]]:
    """The earliest-arrival route to ``target`` from the nodes of ``known`` (node -> round
    it has the packet): its hops ``(sender, receiver, round)``, committed into ``slots``."""
    arrival = dict(known)
    came: dict[int, tuple[int, int]] = {}
    heap = [(t, v) for v, t in known.items()]
    heapq.heapify(heap)
    done: set[int] = set()
    while heap:
        t, v = heapq.heappop(heap)
        if v in done:
            continue
        done.add(v)
        if v == target:
            break
        for w in graph.adj[v]:
            if w in done:
                continue
            r = slots.earliest((v, w), t)
            if r < arrival.get(w, r + 1):
                arrival[w] = r
                came[w] = (v, r)
                heapq.heappush(heap, (r, w))
    hops: list[tuple[int, int, int]] = []
    v = target
    while v in came:
        u, r = came[v]
        hops.append((u, v, r))
        v = u
    hops.reverse()
    for u, v, r in hops:
        slots.take((u, v), r)
        known[v] = r
    return hops


def pipeline_routes(instance: Instance, key: _Key) -> Schedule:
    """The greedy time-expanded routing of the module docstring for one priority order.

    Parameters
    ----------
    instance : Instance
        All-port; any problem whose packets are copied, not combined.
    key : callable
        Sort key of a demand ``(hops, shift, chunk, holder, packet)``: ``hops`` the distance
        from the packet's nearest holder to the demanding node, ``shift`` the demanding
        node minus the holder mod the number of processors, ``chunk`` the packet's rank
        among the packets with the same holders and demanders.

    Returns
    -------
    Schedule
        Unverified.
    """
    graph = instance.graph
    n = instance.n
    # the shifts count processors only (the routers are numbered after them)
    width = sum(1 for v in range(n) if not graph.nodes[v].get("router")) or n
    dist = dict(nx.all_pairs_shortest_path_length(graph))
    holders: list[list[int]] = [[] for _ in range(instance.n_packets)]
    for v in range(n):
        for p in bits(instance.holdings[v]):
            holders[p].append(v)
    rank: dict[tuple[tuple[int, ...], int], int] = {}
    demands: list[tuple[tuple[int, ...], int, int]] = []
    for v in range(n):
        for p in bits(instance.demands[v] & ~instance.holdings[v]):
            if not holders[p]:
                continue
            source = min(holders[p], key=lambda h: (dist[h][v], h))
            cls = (tuple(holders[p]), v)
            chunk = rank.get(cls, 0)
            rank[cls] = chunk + 1
            fields = (dist[source][v], (v - source) % width, chunk, source, p)
            demands.append((key(fields), p, v))
    demands.sort()
    slots = _Slots(instance)
    known: list[dict[int, int]] = [dict.fromkeys(h, 0) for h in holders]
    sends: dict[int, dict[tuple[int, int], int]] = {}
    for _, p, v in demands:
        if v in known[p]:
            continue
        for u, w, r in _route(graph, slots, known[p], v):
            arcs = sends.setdefault(r, {})
            arcs[u, w] = arcs.get((u, w), 0) | 1 << p
    last = max(sends, default=0)
    rounds: list[Round] = []
    for r in range(1, last + 1):
        arcs = sends.get(r, {})
        rounds.append(tuple(Transmission(u, (w,), mask) for (u, w), mask in sorted(arcs.items())))
    return Schedule(tuple(rounds))


#: the priority orders tried, on the fields (hops, shift, chunk, holder, packet)
ORDERS: tuple[_Key, ...] = (
    lambda f: (-f[0], f[1], f[2], f[3]),
    lambda f: (-f[0], f[2], f[1], f[3]),
    lambda f: (f[2], -f[0], f[1], f[3]),
    lambda f: (f[1], f[2], f[3]),
    lambda f: (f[2], f[1], f[3]),
)


def machine_pipeline(instance: Instance) -> Schedule:
    """The shortest of :func:`pipeline_routes` over the priority orders :data:`ORDERS`.

    Parameters
    ----------
    instance : Instance
        All-port (routers and chunks allowed), a problem without reduction.

    Returns
    -------
    Schedule
        Unverified.

    Raises
    ------
    NotApplicableError
        Another model, a limit on calls, a reduction problem, or more than
        :data:`MAX_DEMANDS` demands.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ndv2:2", "all-port", "gossip")
    >>> simulate(inst, machine_pipeline(inst)).rounds
    10
    """
    _require_all_port(instance, "the machine pipeline")
    _require_copies(instance)
    best: Schedule | None = None
    count = sum(bin(d).count("1") for d in instance.demands)
    if count > MAX_DEMANDS:
        raise NotApplicableError(
            f"the machine pipeline routes one demand at a time; {count} demands is more than "
            f"{MAX_DEMANDS}"
        )
    orders = ORDERS[:1] if count > _MANY_DEMANDS else ORDERS
    for key in orders:
        schedule = pipeline_routes(instance, key)
        if best is None or len(schedule) < len(best):
            best = schedule
    assert best is not None
    return best


def _require_copies(instance: Instance) -> None:
    if instance.problem.kind in REDUCTIONS:
        raise NotApplicableError(
            f"the machine pipeline copies packets; {instance.problem.spec()} combines them"
        )
