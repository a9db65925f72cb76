"""Lower bounds on a collective's time on a machine: the latency part and the bandwidth part.

Every algorithm that computes the collective on the machine, whatever its chunks, takes at
least the larger of these (the third part, the round model's certified optimum at a chunk
count, is :mod:`gossipcert.timed.discrete`). ``S`` is the message size
(:mod:`gossipcert.timed.sizes`), ``N`` the ranks, ``V_c`` the processors, ``B+(X)`` the
bandwidth of the arcs that leave a set ``X`` of nodes and ``B-(X)`` of those that enter it.

**Latency part.** Data of rank ``s`` that rank ``d`` needs crosses every link of some path
from ``s`` to ``d``, each paying its latency: the time is at least ``max dist(s, d)`` over
the pairs that must communicate (every ordered pair; the root and each rank for broadcast
and reduce), ``dist`` the least sum of ``alpha`` over the paths.

**Bandwidth part** (every bound a cut or a count of bytes over bandwidth):

- *allgather*: ``(S / N) max_X |X ∩ V_c| / B+(X)``, ForestColl's optimal allgather time
  (:func:`~gossipcert.closed_forms.throughput.allgather_cut`: met by its trees, so the number
  an algorithm can meet exactly); *reduce-scatter*: the same on the reversed arcs;
- *broadcast* and *reduce*: ``S`` over the least cut between the root and a rank
  (:func:`~gossipcert.closed_forms.throughput.broadcast_cut`);
- *allreduce*: every element of the buffer is received at least ``2 (N - 1)`` times by the
  ranks (the one-way gossip bound: ``N - 1`` receptions join the ``N`` contributions at a
  first complete rank, and each of the other ``N - 1`` ranks receives after that), so the
  time is at least ``2 (N - 1) S / sum_v B-(v)`` over the ranks; and ``S`` must cross every
  cut that splits the ranks, both ways: ``S / min B+(X)`` and ``S / min B-(X)``;
- *alltoall* (``S`` a rank's whole send buffer, ``S / N`` to each rank): a rank sends
  ``(N - 1) S / N`` and receives as much, over its own links; across the allgather cut
  ``X`` pass ``|X ∩ V_c| |V_c - X| S / N`` bytes each way; and every byte crosses at least
  the links of a shortest path, ``sum_{s != d} (S / N) hops(s, d)`` over the total
  bandwidth of all arcs.

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-optimal collective communications on
   heterogeneous network fabrics", arXiv:2402.06787, 2024 (the allgather and reduce-scatter
   optimum).
.. [2] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", J. Parallel Distrib. Comput. 69(2), 2009 (allreduce moves
   ``2 (N - 1) / N`` of the buffer through each rank).
.. [3] S. M. Hedetniemi, S. T. Hedetniemi, A. L. Liestman, "A survey of gossiping and
   broadcasting in communication networks", Networks 18, 1988 (one-way gossip needs
   ``2N - 2`` calls).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import networkx as nx

from gossipcert.closed_forms.throughput import (
    allgather_cut,
    broadcast_cut,
    exit_bandwidth,
    reduce_scatter_cut,
)
from gossipcert.timed.machine import Machine

__all__ = ["BandwidthBound", "bandwidth_bound", "latency_bound", "required_pairs"]

#: the collectives the bandwidth part knows (MSCCL's names)
COLLECTIVES = ("allgather", "reducescatter", "allreduce", "alltoall", "broadcast", "reduce")


def required_pairs(collective: str, ranks: int, root: int | None = None) -> list[tuple[int, int]]:
    """The ordered pairs of ranks ``(s, d)`` such that ``d`` needs data of ``s``.

    Examples
    --------
    >>> required_pairs("broadcast", 3, root=1), len(required_pairs("allgather", 4))
    ([(1, 0), (1, 2)], 12)
    """
    if collective in ("broadcast", "reduce") and root is not None:
        others = [r for r in range(ranks) if r != root]
        if collective == "broadcast":
            return [(root, d) for d in others]
        return [(s, root) for s in others]
    return [(s, d) for s in range(ranks) for d in range(ranks) if s != d]


def _alpha_distances(machine: Machine, source: int) -> dict[int, float]:
    adj: dict[int, list[tuple[int, float]]] = {}
    for (u, v), a in zip(machine.arcs, machine.alpha, strict=True):
        adj.setdefault(u, []).append((v, a))
    dist = {source: 0.0}
    heap = [(0.0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, a in adj.get(u, ()):
            if d + a < dist.get(v, float("inf")):
                dist[v] = d + a
                heapq.heappush(heap, (d + a, v))
    return dist


def latency_bound(machine: Machine, pairs: list[tuple[int, int]]) -> tuple[float, str]:
    """The latency part: the largest least sum of latencies between a required pair, and a
    sentence naming the pair.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.timed.machine import machine_of
    >>> m = machine_of(from_spec("ring:8"), 8, alpha=1.0)
    >>> latency_bound(m, required_pairs("allgather", 8))
    (4.0, "rank 0 to rank 4: 4 links' latencies at least")
    """
    best, pair = 0.0, None
    by_source: dict[int, dict[int, float]] = {}
    for s, d in pairs:
        dist = by_source.get(s)
        if dist is None:
            dist = by_source[s] = _alpha_distances(machine, machine.ranks[s])
        value = dist.get(machine.ranks[d], float("inf"))
        if value > best:
            best, pair = value, (s, d)
    if pair is None:
        return 0.0, "no latency on the machine's links"
    s, d = pair
    hops = _hops(machine, machine.ranks[s]).get(machine.ranks[d], 0)
    links = "1 link's latency" if hops == 1 else f"{hops} links' latencies"
    return best, f"rank {s} to rank {d}: {links} at least"


def _hops(machine: Machine, source: int) -> dict[int, int]:
    dist = {source: 0}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in machine.graph[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


@dataclass
class BandwidthBound:
    """The bandwidth part at a size: seconds per byte of the message (``per_byte``, the
    time is ``per_byte * S``) and how it is derived.

    Attributes
    ----------
    per_byte : Fraction
        Seconds (or time units) per byte (data unit) of the message.
    detail : str
        Which cut or count binds.
    evidence : dict
        The binding cut (its side as node numbers, its bandwidth) when a cut binds.
    """

    per_byte: Fraction
    detail: str
    evidence: dict[str, Any] = field(default_factory=dict)


def _fabric(machine: Machine) -> nx.DiGraph:
    """The machine as a directed graph with each arc's bandwidth (attribute ``bw``)."""
    g = nx.DiGraph()
    for v, router in machine.graph.nodes(data="router", default=False):
        g.add_node(v, router=bool(router))
    for (u, v), bw in zip(machine.arcs, machine.bandwidth, strict=True):
        g.add_edge(u, v, bw=bw)
    return g


def _rate(machine: Machine, bw: float | Fraction) -> str:
    """A bandwidth in words: bytes a second, or data units a time unit."""
    return f"{float(bw):g} " + ("bytes/s" if machine.units is None else "units per time unit")


def _exact(x: float) -> Fraction:
    return Fraction(repr(float(x)))


def bandwidth_bound(machine: Machine, collective: str, root: int | None = None) -> BandwidthBound:
    """The bandwidth part (see the module docstring) as seconds per byte of the message.

    Raises
    ------
    ValueError
        A collective the bound does not know (see :data:`COLLECTIVES`).

    Examples
    --------
    A one-way ring allreduce on a ring of 8 moves ``14 / 8`` of the buffer over each link;
    the bound is half of it (both directions of every link):

    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.timed.machine import machine_of
    >>> b = bandwidth_bound(machine_of(from_spec("ring:8"), 8), "allreduce")
    >>> b.per_byte, b.detail.split(":")[0]
    (Fraction(7, 8), 'receptions')
    """
    g = _fabric(machine)
    n = len(machine.ranks)
    procs = list(machine.ranks)
    if n < 2:
        return BandwidthBound(Fraction(0), "one rank: nothing to move")
    if collective in ("allgather", "reducescatter"):
        find = allgather_cut if collective == "allgather" else reduce_scatter_cut
        cut = find(g, procs, weight="bw")
        what = "leave" if collective == "allgather" else "enter"
        return BandwidthBound(
            cut.ratio / n,
            f"ForestColl's optimum: {cut.inside} ranks' shares {what} a cut of "
            f"{_rate(machine, cut.bandwidth)}",
            {"cut": sorted(cut.side), "inside": cut.inside, "bandwidth": float(cut.bandwidth)},
        )
    if collective in ("broadcast", "reduce"):
        r = machine.ranks[root if root is not None else 0]
        cut = broadcast_cut(g, r, procs, weight="bw", reverse=collective == "reduce")
        return BandwidthBound(
            cut.ratio,
            f"the message crosses a cut of {_rate(machine, cut.bandwidth)}",
            {"cut": sorted(cut.side), "bandwidth": float(cut.bandwidth)},
        )
    if collective == "allreduce":
        return _allreduce(g, machine, procs)
    if collective == "alltoall":
        return _alltoall(g, machine, procs)
    raise ValueError(f"no bandwidth bound for {collective!r}")


def _in_bandwidth(machine: Machine, node: int) -> Fraction:
    return sum(
        (
            _exact(bw)
            for (_, v), bw in zip(machine.arcs, machine.bandwidth, strict=True)
            if v == node
        ),
        Fraction(0),
    )


def _out_bandwidth(machine: Machine, node: int) -> Fraction:
    return sum(
        (
            _exact(bw)
            for (u, _), bw in zip(machine.arcs, machine.bandwidth, strict=True)
            if u == node
        ),
        Fraction(0),
    )


def _allreduce(g: nx.DiGraph, machine: Machine, procs: list[int]) -> BandwidthBound:
    n = len(procs)
    total_in = sum((_in_bandwidth(machine, v) for v in procs), Fraction(0))
    candidates = [
        BandwidthBound(
            Fraction(2 * (n - 1)) / total_in,
            f"receptions: every element is received {2 * (n - 1)} times by the ranks, whose "
            f"links bring {_rate(machine, total_in)} in all",
        )
    ]
    for reverse in (False, True):
        cut = broadcast_cut(g, procs[0], procs, weight="bw", reverse=reverse)
        candidates.append(
            BandwidthBound(
                cut.ratio,
                f"the whole buffer crosses a cut of {_rate(machine, cut.bandwidth)}",
                {"cut": sorted(cut.side), "bandwidth": float(cut.bandwidth)},
            )
        )
    return max(candidates, key=lambda b: b.per_byte)


def _alltoall(g: nx.DiGraph, machine: Machine, procs: list[int]) -> BandwidthBound:
    n = len(procs)
    share = Fraction(1, n)
    candidates = []
    for v in procs:
        for bw, what in (
            (_out_bandwidth(machine, v), "sends"),
            (_in_bandwidth(machine, v), "receives"),
        ):
            candidates.append(
                BandwidthBound(
                    (n - 1) * share / bw,
                    f"node {v} {what} {n - 1}/{n} of a buffer over {_rate(machine, bw)}",
                )
            )
    arcs = {(u, v): _exact(d["bw"]) for u, v, d in g.edges(data=True)}
    sides = {allgather_cut(g, procs, weight="bw").side}
    for t in procs[1:]:  # the least cuts between rank 0 and each other rank
        sides.add(frozenset(nx.minimum_cut(g, procs[0], t, capacity="bw")[1][0]))
    everything = frozenset(g)
    for side in sides | {everything - x for x in sides}:
        inside = sum(1 for v in procs if v in side)
        bw = exit_bandwidth(arcs, side)
        if 0 < inside < n and bw > 0:
            candidates.append(
                BandwidthBound(
                    inside * (n - inside) * share / bw,
                    f"{inside} x {n - inside} shares cross a cut of {_rate(machine, bw)}",
                    {"cut": sorted(side), "bandwidth": float(bw)},
                )
            )
    total_bw = sum(arcs.values(), Fraction(0))
    hops = 0
    for s in procs:
        dist = _hops(machine, s)
        hops += sum(dist[d] for d in procs if d != s)
    candidates.append(
        BandwidthBound(
            hops * share / total_bw,
            f"the shares cross {hops} links along shortest paths, over "
            f"{_rate(machine, total_bw)} of links in all",
        )
    )
    return max(candidates, key=lambda b: b.per_byte)
