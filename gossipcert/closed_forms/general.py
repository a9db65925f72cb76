"""General lower bounds: distance, doubling, telephone gossip, receive, pendant leaves.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import networkx as nx

from gossipcert.closed_forms.base import (
    _LOWER,
    Bound,
    _ceil_log2,
    _has_routers,
    _holders,
    _is_gossip,
    _packet_counts,
    _telephone_lower_gossip,
)
from gossipcert.distances import bfs_distances, csr_arrays, diameter_radius
from gossipcert.graphs import latencies
from gossipcert.instance import Instance, ProblemKind, bits

#: node and edge visits the diameter of a gossip or total-exchange instance may take
#: (extrema bounding; vertex-transitive graphs need one search)
DIAMETER_WORK = 50_000_000

# --------------------------------------------------------------------------------------------
# General lower bounds
# --------------------------------------------------------------------------------------------


def distance_bound(instance: Instance) -> Bound | None:
    """A packet crosses at most one edge per round.

    ``R >= max dist(holders(p), v)`` over the demands ``(v, p)``: the eccentricity of the
    source for broadcast, the diameter for gossip and total exchange. Holds in every model.

    For gossip and total exchange without routers every ordered pair of nodes is a demand,
    so the value is the diameter: one search on a vertex-transitive graph, else extrema
    bounding with at most :data:`DIAMETER_WORK` node and edge visits (its lower end, the
    diameter itself unless the graph is large and the searches run out, is still a lower
    bound). Otherwise one breadth-first search per set of holders.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound
        Always (a lower bound).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> distance_bound(parse_instance("path:5", "telephone", "broadcast:0")).value
    4
    >>> distance_bound(parse_instance("mesh:3x4", "telephone", "gossip")).value
    5

    References
    ----------
    Folklore; Beier and Sibeyn, section 2 (``LW = a + b - 2`` for meshes).
    """
    g = instance.graph
    if latencies(g):
        return _weighted_distance_bound(instance)
    indptr, indices = csr_arrays(g)
    kind = instance.problem.kind
    best = 0
    if kind in (ProblemKind.GOSSIP, ProblemKind.TOTAL_EXCHANGE) and not _has_routers(instance):
        if instance.n > 1 and g.graph.get("vertex_transitive"):
            best = int(bfs_distances(indptr, indices, 0).max())
        elif instance.n > 1:
            searches = max(16, DIAMETER_WORK // (instance.n + len(indices)))
            best = diameter_radius(g, searches, csr=(indptr, indices)).diameter_low
    else:
        best = _farthest_demand(instance, lambda key: bfs_distances(indptr, indices, key))
    return Bound("distance", _LOWER, best, "every model: a packet crosses one edge per round")


def _farthest_demand(instance: Instance, distances: Callable[[tuple[int, ...]], Any]) -> int:
    """``max dist(holders(p), v)`` over the demands ``(v, p)`` whose packet has holders;
    ``distances(holders)`` gives the distances from a set of holders, indexed by node (one
    search per set of holders)."""
    holders = _holders(instance)
    searched: dict[tuple[int, ...], Any] = {}
    best = 0
    for v, mask in enumerate(instance.demands):
        for p in bits(mask):
            if not holders[p]:
                continue
            key = tuple(holders[p])
            dist = searched.get(key)
            if dist is None:
                dist = searched[key] = distances(key)
            best = max(best, int(dist[v]))
    return best


def _weighted_distance_bound(instance: Instance) -> Bound:
    """The distance bound on a graph with latencies (all-port): a packet that enters an edge
    of latency ``L`` in round ``t`` arrives after round ``t + L - 1``, so by induction on
    the rounds it is known at ``v`` no earlier than after round ``d_L(holders(p), v)``, the
    distance with every edge weighted by its latency."""
    g = instance.graph
    best = _farthest_demand(
        instance, lambda key: nx.multi_source_dijkstra_path_length(g, set(key), weight="latency")
    )
    return Bound(
        "distance",
        _LOWER,
        best,
        "every model: a packet crosses one edge per round (an edge of latency L takes L "
        "rounds: distances weighted by the latencies)",
    )


def doubling_bound(instance: Instance) -> Bound | None:
    """The nodes knowing a packet at most double per round in one-port models.

    In telephone, half-duplex and single-port rounds every node that knows a packet passes
    it to at most one node, so after ``t`` rounds at most ``2^t h`` nodes know a packet held
    by ``h`` nodes: ``R >= ceil(log2(k / h))`` for a packet that ``k`` nodes must know or hold.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None outside the one-port models.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> doubling_bound(parse_instance("complete:9", "telephone", "broadcast:0")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2: ``R >= ceil(log n)``.
    """
    if not instance.model.informs_one:
        return None
    best = 0
    held = _packet_counts(instance.holdings, instance.n_packets)
    known = _packet_counts(
        [d | h for d, h in zip(instance.demands, instance.holdings, strict=True)],
        instance.n_packets,
    )
    for hs, reach in zip(held.tolist(), known.tolist(), strict=True):
        if hs:
            best = max(best, math.ceil(math.log2(reach / hs)) if reach > hs else 0)
    return Bound(
        "doubling",
        _LOWER,
        best,
        "one-port models: the nodes knowing a packet at most double per round "
        "(Beier-Sibeyn sec. 2)",
    )


def telephone_gossip_odd_bound(instance: Instance) -> Bound | None:
    """Telephone gossip among ``n`` nodes needs ``ceil(log2 n) + odd(n)`` rounds.

    For odd ``n`` some node is idle in every round; the node idle in the last round must
    already know all ``n`` packets after round ``R - 1``, which takes ``ceil(log2 n)`` rounds
    because knowledge at most doubles per round. Rounds of the half-duplex model are
    telephone rounds, so the bound holds there too.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip without routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> telephone_gossip_odd_bound(parse_instance("complete:7", "telephone", "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 (citing their [13]): ``R >= ceil(log n) + odd(n)``.
    """
    if not _telephone_lower_gossip(instance) or instance.n < 2:
        return None
    n = instance.n
    return Bound(
        "telephone-gossip",
        _LOWER,
        _ceil_log2(n) + n % 2,
        "Beier-Sibeyn sec. 2: telephone gossip needs ceil(log2 n) + odd(n) rounds",
    )


def receive_bound(instance: Instance) -> Bound | None:
    """A node receives at most ``p`` packets per round in the one-port and multicast models.

    A node that lacks ``m`` demanded packets needs ``ceil(m / p)`` rounds; with ``k`` ports
    it receives ``k`` transmissions of ``p``: ``ceil(m / (k p))``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None with unbounded packets or in the all-port model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receive_bound(parse_instance("ring:6", "telephone:p=2", "gossip")).value
    3

    References
    ----------
    Dimakopoulos 1999, section 2, bound (1): ``n - 1`` steps for full duplex.
    """
    m = instance.model
    per_round = m.port_packets  # ports * p; None with unbounded packets or arc capacities
    if per_round is None:
        return None
    lacking = max(
        ((d & ~h).bit_count() for d, h in zip(instance.demands, instance.holdings, strict=False)),
        default=0,
    )
    ports = "" if m.ports == 1 else f"{m.ports} transmissions of "
    return Bound(
        "receive",
        _LOWER,
        math.ceil(lacking / per_round),
        f"a node receives at most {ports}p={m.packet_cap} packets per round "
        "(Dimakopoulos 1999, bound (1))",
    )


def pendant_leaves_bound(instance: Instance) -> Bound | None:
    """The transmissions between one node and its degree-1 neighbours cannot overlap.

    Let ``v`` have the pendant neighbours (leaves) ``l_1 .. l_k``. A leaf talks to ``v``
    only. It must *send* at least once if it alone holds a packet that another node demands,
    and *receive* at least once if it demands a packet it does not hold. Under half-duplex
    ``v`` takes part in at most one transmission per round, as sender or receiver, so
    ``R >= sum over the leaves of (must send) + (must receive)``. Under telephone ``v`` is in
    at most one call per round, so ``R`` is at least the number of leaves that must send or
    receive; for gossip with ``k >= 2`` leaves, ``R >= 2k - 1``: let round ``T`` hold the last
    of the leaves' first calls, with leaf ``l``; the ``k`` first calls take ``k`` distinct
    rounds, so ``T >= k``; before round ``T`` the packet of ``l`` is known to ``l`` alone, so
    each of the ``k - 1`` other leaves needs a further call after round ``T``.

    On the star ``K_{1,n-1}`` under half-duplex gossip the centre receives ``n - 1`` times
    and sends ``n - 1`` times, never both in one round: ``2(n - 1)``, met by gathering
    ``n - 2`` leaves, sending everything to the last leaf, receiving it back and sending to
    the ``n - 2`` others. Under telephone ``2n - 3``, met by calling every leaf in turn and
    then every leaf but the last again. Both bounds hold with packet caps and limits on the
    calls per round (the arguments count transmissions only).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None outside telephone and half-duplex, or when no leaf must send or receive.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> pendant_leaves_bound(parse_instance("star:8", "half-duplex", "gossip")).value
    14
    >>> pendant_leaves_bound(parse_instance("star:8", "telephone", "gossip")).value
    13
    >>> pendant_leaves_bound(parse_instance("star:8", "half-duplex", "broadcast:0")).value
    7

    References
    ----------
    The counting of Dimakopoulos 1999, section 2, eqs. (2)-(3) (every reception takes a
    step of a half-duplex port), applied to the edges of one node; the telephone case follows
    the "first call" argument of Beier-Sibeyn sec. 2 for the odd case.
    """
    kind = instance.model.kind
    rules = instance.model.rules
    if not rules.calls_form_matching:
        return None
    g = instance.graph
    if not any(len(nbrs) == 1 for nbrs in g.adj.values()):
        return None  # no leaf
    holders = _holders(instance)
    wanting = [d & ~h for d, h in zip(instance.demands, instance.holdings, strict=True)]
    wanted_by = _packet_counts(wanting, instance.n_packets)  # nodes needing each packet

    def wanted_elsewhere(p: int, leaf: int) -> bool:
        """Some node other than ``leaf`` needs packet ``p`` and does not hold it."""
        return int(wanted_by[p]) > (wanting[leaf] >> p & 1)

    best = 0
    for v in g.nodes:
        count = leaves = 0
        for leaf in g.adj[v]:
            if g.degree(leaf) != 1:
                continue
            sends = any(
                holders[p] == [leaf] and wanted_elsewhere(p, leaf)
                for p in bits(instance.holdings[leaf])
            )
            receives = bool(instance.demands[leaf] & ~instance.holdings[leaf])
            if rules.send_or_receive:
                count += sends + receives
            else:
                count += sends or receives
            leaves += 1
        if rules.two_way_calls and _is_gossip(instance) and leaves >= 2:
            count = max(count, 2 * leaves - 1)
        best = max(best, count)
    if best == 0:
        return None
    what = (
        "a node sends or receives once per round, and each leaf that must send or receive "
        "uses its only edge"
        if rules.send_or_receive
        else "a node makes one call per round, and each leaf talks to its neighbour only "
        "(gossip: 2k-1 for k leaves, the last leaf's packet needs k-1 more calls)"
    )
    return Bound("pendant-leaves", _LOWER, best, f"{kind.value}: {what}")
