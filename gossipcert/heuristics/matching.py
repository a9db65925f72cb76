"""The matching heuristic for one-port models with unbounded packets.

In every round a maximum-weight matching of the graph is computed and the matched pairs
communicate (a simple form of the "BFS approach" of [1]_, section 4). The weight of a
transmission ``a -> b`` is built in three tiers, each outweighing everything below it:

1. *urgent* packets: ``b`` comes closer to one of the needers of ``p`` that lie farthest
   from every node knowing ``p`` (the packet's remaining eccentricity ``e_p``, a lower
   bound on the rounds it still needs); such a packet weighs ``T ** e_p`` with ``T``
   larger than the number of packets, so the packets with the longest way to go win;
2. *useful* packets: ``b`` is closer than ``a`` to some node still demanding ``p``;
3. any packet ``b`` lacks that some node still demands: weight 1 in all.

The telephone weight of an edge adds both directions; in the half-duplex model the edge is
oriented towards the side whose gain is larger. The first tier is what makes the direction
of a half-duplex call right: on a star the centre keeps receiving the leaves' packets,
which have two edges to go, until only one-edge packets remain, and only then sends
(``2(n - 1)`` rounds, the optimum); weighing packets by their number only, the centre
would keep sending to the leaves what they half know, and the leaves' own packets would
wait.

Termination: while a demand is unmet, some edge on the way from a holder of the packet to
the demanding node joins a node that knows it to one that does not, so some edge has a
positive weight, the matching is not empty, and every round teaches at least one node a
packet it lacked and someone demands. The number of rounds is therefore at most the number
of such (node, packet) pairs at the start; the heuristic gives up with
:class:`~gossipcert.errors.HeuristicError` if that bound is ever passed (which the argument
excludes) or if a round finds nothing to do.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections 4-5.
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from gossipcert.errors import HeuristicError, UnsupportedModelError
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.schedule import Round, Schedule, Transmission

_FAR = 1 << 30  # distance to a node in another component


def round_bound(instance: Instance) -> int:
    """The most rounds the heuristic can take: the (node, packet) pairs it may have to teach.

    A pair counts when the node lacks a packet at the start that some node demands.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> round_bound(parse_instance("star:4", "half-duplex", "gossip"))
    12
    """
    lacking = 0
    for d, h in zip(instance.demands, instance.holdings, strict=False):
        lacking |= d & ~h
    return sum((lacking & ~h).bit_count() for h in instance.holdings)


def matching_heuristic(instance: Instance, max_rounds: int | None = None) -> Schedule:
    """A schedule from maximum-weight matchings, round by round.

    Parameters
    ----------
    instance : Instance
        Telephone or half-duplex with unbounded packets.
    max_rounds : int, optional
        Give up after this many rounds (default: :func:`round_bound`, which the heuristic
        never passes).

    Returns
    -------
    Schedule
        Solves the instance (callers verify it).

    Raises
    ------
    UnsupportedModelError
        Another model, a packet cap or a limit on the calls per round.
    HeuristicError
        The demands are not met after ``max_rounds`` rounds.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(matching_heuristic(parse_instance("hypercube:3", "telephone", "gossip")))
    3
    >>> len(matching_heuristic(parse_instance("star:8", "half-duplex", "gossip")))
    14
    """
    kind = instance.model.kind
    if (
        kind not in (ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX)
        or not instance.model.unbounded
        or instance.model.calls_per_round is not None
    ):
        raise UnsupportedModelError(
            f"the matching heuristic covers telephone and half-duplex with unbounded packets "
            f"and no limit on calls per round; got {instance.model.spec()}"
        )
    g = instance.graph
    n = instance.n
    n_packets = instance.n_packets
    dist = dict(nx.all_pairs_shortest_path_length(g))
    rows = [[dist[v].get(w, _FAR) for w in range(n)] for v in range(n)]
    know = list(instance.holdings)
    # near[p][w]: distance from w to the nearest node knowing p
    near = [[_FAR] * n for _ in range(n_packets)]
    for v in range(n):
        for p in bits(know[v]):
            near[p] = list(map(min, near[p], rows[v]))
    limit = max_rounds if max_rounds is not None else round_bound(instance)
    tier = n_packets + 2
    rounds: list[Round] = []
    while True:
        lacking = [instance.demands[v] & ~know[v] for v in range(n)]
        wanted = 0
        for mask in lacking:
            wanted |= mask
        if not wanted:
            break
        if len(rounds) >= limit:
            raise HeuristicError(
                f"the matching heuristic gave up after {len(rounds)} rounds with "
                f"{sum(m.bit_count() for m in lacking)} demands unmet (bound: {limit} rounds)"
            )
        needers: dict[int, list[int]] = {}
        for v in range(n):
            for p in bits(lacking[v]):
                needers.setdefault(p, []).append(v)
        # the needers of each packet that lie farthest from it, and how far
        farthest: dict[int, tuple[int, list[int]]] = {}
        for p, ws in needers.items():
            e = max(near[p][w] for w in ws)
            farthest[p] = (e, [w for w in ws if near[p][w] == e])

        gain = _gain_function(know, wanted, needers, farthest, dist, tier)
        wg = nx.Graph()
        for u, v in g.edges:
            if kind is ModelKind.TELEPHONE:
                w = gain(u, v) + gain(v, u)
            else:
                w = max(gain(u, v), gain(v, u))
            if w:
                wg.add_edge(u, v, weight=w)
        if wg.number_of_edges() == 0:
            raise HeuristicError(
                f"the matching heuristic found nothing to send in round {len(rounds) + 1}, "
                "yet demands are unmet"
            )
        matching = nx.max_weight_matching(wg, maxcardinality=False)
        rnd: list[Transmission] = []
        new_know = list(know)
        for u, v in sorted(tuple(sorted(e)) for e in matching):
            if kind is ModelKind.TELEPHONE:
                rnd += [Transmission(u, (v,), None), Transmission(v, (u,), None)]
                new_know[u] |= know[v]
                new_know[v] |= know[u]
            else:
                a, b = (u, v) if gain(u, v) >= gain(v, u) else (v, u)
                rnd.append(Transmission(a, (b,), None))
                new_know[b] |= know[a]
        for v in range(n):
            for p in bits(new_know[v] & ~know[v]):
                near[p] = list(map(min, near[p], rows[v]))
        know = new_know
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def _gain_function(
    know: list[int],
    wanted: int,
    needers: dict[int, list[int]],
    farthest: dict[int, tuple[int, list[int]]],
    dist: dict[int, dict[int, int]],
    tier: int,
) -> Callable[[int, int], int]:
    """The weight of a transmission ``a -> b`` given the current knowledge."""

    def gain(a: int, b: int) -> int:
        new = know[a] & ~know[b] & wanted
        if not new:
            return 0
        da, db = dist[a], dist[b]
        urgent = useful = 0
        for p in bits(new):
            e, far = farthest.get(p, (0, []))
            if any(db.get(w, _FAR) < e for w in far):
                urgent += tier ** (e + 1)
            elif any(db.get(w, _FAR) < da.get(w, _FAR) for w in needers.get(p, ())):
                useful += 1
        return urgent + useful * tier + 1

    return gain
