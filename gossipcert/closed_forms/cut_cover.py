"""The cover bound: the packets that must cross a cut, each needing its crossings to cover
the demanders beyond it in time.

Take a cut: a side ``S`` and the rest ``T``, and the ``N`` packets that some node of ``T``
demands and no node of ``T`` holds (the packets of :mod:`gossipcert.closed_forms.cuts`). In a
schedule of ``R`` rounds follow a packet ``p`` to a demander ``d`` in ``T``: the last time its
chain enters ``T`` it crosses a cut arc ``(a, x)``, in some round ``r``, and from then on it
stays in ``T``, so ``dist(x, d) <= R - r``. Hence the crossings of ``p`` (arc and round, each
taking one unit of the arc's capacity in that round) cover ``D_T(p)``, the demanders of ``p``
in ``T``, by the balls of radius ``R - r`` around their heads ``x``. Give the *slot* ``(r, x)``
the weight

    w_R(r, x) = min(1, |{d in D_T(p) : dist(x, d) <= R - r}| / |D_T(p)|)

(``0`` before the first round a packet can reach a cut arc into ``x``): the crossings of one
packet weigh at least 1 together, and in round ``r`` at most ``C_x`` packets cross into ``x``
(the capacity of the cut arcs into ``x`` under all-port; ``p`` in the one-port models and
multicast with a packet cap, ``min(k, t) p`` in k-port with ``t`` cut arcs into ``x``). So

    N <= sum over rounds r <= R and entry nodes x of  C_x * w_R(r, x),

and ``R`` is at least the least value that satisfies it. A slot far enough from the end
(``R - r`` at least the largest distance from ``x`` to the demanders) weighs 1, which is the
cut bound's count of packets over the capacity; the slots of the last rounds weigh less, since
a packet that enters late reaches only the demanders near its entry: in the ``4 x 4`` torus,
64 chunks from one node need 19 rounds, and the two GPUs of an ``mi250`` pair, joined by a
fast link but reached from outside through six links, receive at most three new chunks in
the last round (``14 K <= 6 (R - 1) + 3``: six rounds for two chunks a GPU, where the cut
bound gives five).

With several packet classes (holders and demanders) a slot takes the largest weight over
the classes and the earliest round over their holders, which only weakens the bound. Cuts:
the family of :func:`gossipcert.closed_forms.cuts.cut_family`. Copy problems only, no edge
latencies.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees", Proc.
   ICCI 1995 (packets over the root's cut).
.. [2] F. T. Leighton, *Introduction to Parallel Algorithms and Architectures*, 1992
   (bisection arguments).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from fractions import Fraction

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms.base import _LOWER, Bound, _memo
from gossipcert.closed_forms.cuts import cut_family
from gossipcert.instance import Instance, bits
from gossipcert.models import rules_of

__all__ = ["cover_rounds", "covered", "cut_cover_bound"]


#: an entry node of a cut: its capacity ``C_x``, the first round ``h_x`` a packet can cross
#: into it, and the prefix sums of its weights (``prefix[k]``: the weights at ``0 .. k - 1``
#: rounds from the end; 1 a round beyond them)
Entry = tuple[int, int, list[Fraction]]


def covered(entries: Sequence[Entry], rounds: int) -> Fraction:
    """``sum_x C_x sum_{r=h_x}^{R} w(R - r)`` for ``R = rounds`` (module docstring)."""
    total = Fraction(0)
    for cap, head, prefix in entries:
        slots = rounds - head + 1
        if slots > 0:
            late = min(slots, len(prefix) - 1)
            total += cap * (slots - late + prefix[late])
    return total


def cover_rounds(entries: Sequence[Entry], need: int, start: int = 1) -> int:
    """The least ``R >= start`` with ``covered(entries, R) >= need``.

    Examples
    --------
    >>> half = [Fraction(0), Fraction(1, 2)]  # one round from the end: half the demanders
    >>> cover_rounds([(3, 1, half), (3, 1, half)], 56)  # an mi250 pair, four chunks a GPU
    10
    """
    if need <= 0:
        return 0
    r = max(start, 1)
    while covered(entries, r) < need:
        r += 1
    return r


def _cut_entries(
    instance: Instance,
    side: frozenset[int],
    dist: list[list[int]],
    classes: list[tuple[int, int, int]],
) -> tuple[list[Entry], int]:
    """The entries of one cut (``side`` is ``S``) and the number of packets that must cross
    it (0: none)."""
    n = instance.n
    g = instance.graph
    m = instance.model
    rest = [v for v in range(n) if v not in side]
    rest_mask = sum(1 << v for v in rest)
    need = 0
    holders = 0  # every holder of a crossing packet
    demand_sets: set[int] = set()
    for held_by, wanted_by, count in classes:
        dem = wanted_by & rest_mask
        if dem and not held_by & rest_mask:
            need += count
            holders |= held_by
            demand_sets.add(dem)
    if not need:
        return [], 0
    ported = not rules_of(m.kind).arc_capacities  # one-port, k-port, multicast
    sources = bits(holders)
    demanders = [bits(dem) for dem in demand_sets]
    entries = []
    for x in rest:
        tails = [a for a in g.adj[x] if a in side]
        if not tails:
            continue
        if ported:
            # ``ports`` transmissions into x a round, at most one from each tail, of ``p``
            assert m.packet_cap is not None and m.ports is not None
            cap = min(m.ports, len(tails)) * m.packet_cap
        else:
            cap = sum(m.capacity or graphs.capacity(g, a, x) for a in tails)
        head = 1 + min(dist[a][h] for a in tails for h in sources)
        row = dist[x]
        far = [sorted(row[d] for d in ds) for ds in demanders]
        reach = max(f[-1] for f in far)
        prefix = [Fraction(0)]
        for rho in range(reach):
            # the share of the demanders within rho of x (the largest over the classes)
            share = max(Fraction(bisect_right(f, rho), len(f)) for f in far)
            prefix.append(prefix[-1] + share)
        entries.append((cap, head, prefix))
    return entries, need


def cut_cover_bound(instance: Instance) -> Bound | None:
    """The cover bound of the module docstring over the cut bound's family of cuts.

    Parameters
    ----------
    instance : Instance
        A problem that copies packets, all-port or a model with a packet cap, no latencies.

    Returns
    -------
    Bound or None
        None for reductions, unbounded packets, latencies, or when no packet crosses a cut.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> cut_cover_bound(parse_instance("mi250", "all-port", "gossip:chunks=2")).value
    6
    >>> cut_cover_bound(parse_instance("torus:4x4", "all-port", "broadcast:0,chunks=64")).value
    19

    References
    ----------
    The cut bound of Dimakopoulos and Dimopoulos and of Leighton, with each crossing
    weighted by the demanders it can still reach.
    """

    def compute() -> tuple[int, str] | None:
        m = instance.model
        if instance.problem.reduction or graphs.latencies(instance.graph):
            return None
        if not rules_of(m.kind).arc_capacities and m.packet_cap is None:
            return None
        g = instance.graph
        n = instance.n
        dist = [[n + 1] * n for _ in range(n)]
        for v in range(n):
            for w, d in nx.single_source_shortest_path_length(g, v).items():
                dist[v][w] = d
        holders_of = [0] * instance.n_packets
        demanders_of = [0] * instance.n_packets
        for v in range(n):
            for p in bits(instance.holdings[v]):
                holders_of[p] |= 1 << v
            for p in bits(instance.demands[v]):
                demanders_of[p] |= 1 << v
        # packets with the same holders and demanders cross the same cuts: count them once
        counts: dict[tuple[int, int], int] = {}
        for key in zip(holders_of, demanders_of, strict=True):
            counts[key] = counts.get(key, 0) + 1
        classes = [(h, d, c) for (h, d), c in counts.items()]
        best: tuple[int, str] | None = None
        for side in cut_family(instance):
            entries, need = _cut_entries(instance, side, dist, classes)
            if not need or (best is not None and covered(entries, best[0]) >= need):
                continue  # nothing crosses, or this cut allows the best bound's rounds
            value = cover_rounds(entries, need, 1 if best is None else best[0] + 1)
            if best is None or value > best[0]:
                names = sorted(str(graphs.node_ref(g, v)) for v in side)
                best = (value, "{" + ", ".join(names) + "}")
        return best

    found = _memo(instance, "cut-cover", compute)
    if found is None:
        return None
    value, side = found
    return Bound(
        "cut-cover",
        _LOWER,
        value,
        f"the packets that must leave {side}, each crossing weighted by the share of the "
        "demanders beyond the cut it can still reach in time, at most the cut's capacity a "
        "round",
    )
