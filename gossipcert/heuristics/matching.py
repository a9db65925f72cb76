"""The matching heuristic for one-port models with unbounded packets.

In every round a maximum-weight matching of the graph is computed and the matched pairs
communicate. The weight of edge ``{u, v}`` counts the packets one side can give the other,
with packets that move them closer to a node still demanding them weighted far above the
rest (a simple form of the "BFS approach" of [1]_, section 4). In the half-duplex model each
matched edge is oriented towards the side that gains more.

Every round moves at least one packet that some node lacks, so the heuristic ends with every
demand met; the result is an upper bound, passed through the verifier by its callers.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections 4-5.
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.schedule import Round, Schedule, Transmission

_BIG = 1 << 20
_FAR = 1 << 30  # distance to a node in another component


def matching_heuristic(instance: Instance, max_rounds: int | None = None) -> Schedule:
    """A schedule from maximum-weight matchings, round by round.

    Parameters
    ----------
    instance : Instance
        Telephone or half-duplex with unbounded packets.
    max_rounds : int, optional
        Give up after this many rounds (default ``4 n + 4``).

    Returns
    -------
    Schedule
        Solves the instance (callers verify it).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(matching_heuristic(parse_instance("hypercube:3", "telephone", "gossip")))
    3
    """
    kind = instance.model.kind
    if kind not in (ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX) or not instance.model.unbounded:
        raise UnsupportedModelError(
            f"the matching heuristic covers telephone and half-duplex with unbounded packets; "
            f"got {instance.model.spec()}"
        )
    g = instance.graph
    n = instance.n
    dist = dict(nx.all_pairs_shortest_path_length(g))
    # for each node, the packets it still needs, and for each packet, who needs it
    know = list(instance.holdings)
    rounds: list[Round] = []
    limit = max_rounds if max_rounds is not None else 4 * n + 4
    while any(d & ~k for d, k in zip(instance.demands, know, strict=False)) and len(rounds) < limit:
        lacking = [instance.demands[v] & ~know[v] for v in range(n)]
        needers: dict[int, list[int]] = {}
        for v in range(n):
            for p in bits(lacking[v]):
                needers.setdefault(p, []).append(v)

        gain = _gain_function(know, needers, dist)
        wg = nx.Graph()
        for u, v in g.edges:
            if kind is ModelKind.TELEPHONE:
                w = gain(u, v) + gain(v, u)
            else:
                w = max(gain(u, v), gain(v, u))
            if w:
                wg.add_edge(u, v, weight=w)
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
        know = new_know
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def _gain_function(
    know: list[int], needers: dict[int, list[int]], dist: dict[int, dict[int, int]]
) -> Callable[[int, int], int]:
    """The weight of a transmission ``a -> b`` given the current knowledge."""

    def gain(a: int, b: int) -> int:
        new = know[a] & ~know[b]
        if not new:
            return 0
        useful = sum(
            1
            for p in bits(new)
            if any(dist[b].get(w, _FAR) < dist[a].get(w, _FAR) for w in needers.get(p, ()))
        )
        return useful * _BIG + new.bit_count()

    return gain
