"""Shortest-route flooding under the all-port model with latencies (``latency-flood``).

The all-port model with latencies (:mod:`gossipcert.models.all_port`): an edge of latency
``L`` carries a packet that enters it in round ``t`` to its far end after round
``t + L - 1``, at most ``c(u, v)`` packets enter arc ``u -> v`` a round. Distances below
are weighted by the latencies (``d(u, w)``: the fewest rounds from ``u`` to ``w``).

Each round, every arc ``u -> v`` carries up to its capacity of the packets that

- ``u`` knows (received by the end of the previous round),
- ``v`` neither knows, nor has in flight to it, nor is sent in this round by another
  neighbour, and
- some node ``w`` that demands and lacks is reached from ``u`` through ``v`` along a
  shortest route: ``d(u, w) = L(u, v) + d(v, w)``;

the packets whose farthest such ``w`` is farthest go first (farthest first, as in
Dimakopoulos and Dimopoulos). The schedule is listed by round of entry and ends with the
round of the last arrival that a demand needs.

Why it ends: while a demand ``(w, p)`` is unmet, take a node ``u`` that knows ``p`` nearest
to ``w`` and the next node ``v`` of a shortest route from ``u`` to ``w``; ``v`` does not know
``p`` (it is nearer), so either ``p`` is in flight to ``v``, or it is sent to ``v`` this
round, or the arc ``u -> v`` is full of other packets that ``v`` lacks. Every packet sent
teaches its receiver something it had not and was not about to have, which can happen
finitely often; so every round moves or delivers something until every demand is met.

The result is an upper bound only (it is verified by the caller, like every schedule).

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees"
   (farthest-first scheduling in the all-port model).
"""

from __future__ import annotations

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.schedule import Round, Schedule, Transmission


def latency_flood(instance: Instance) -> Schedule:
    """The shortest-route flooding schedule of the module docstring.

    Parameters
    ----------
    instance : Instance
        All-port without a call limit, a problem that copies packets (any latencies).

    Returns
    -------
    Schedule
        Not yet verified (the caller verifies).

    Raises
    ------
    NotApplicableError
        Another model, a call limit, or a reduction.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.instance import make_instance, parse_model, parse_problem
    >>> from gossipcert.simulate import simulate
    >>> g = from_spec("path:3")
    >>> g[1][2]["latency"] = 3
    >>> inst = make_instance(g, parse_model("all-port"), parse_problem("broadcast:0"))
    >>> simulate(inst, latency_flood(inst)).rounds
    4
    """
    m = instance.model
    if m.kind is not ModelKind.ALL_PORT or m.calls_per_round is not None:
        raise NotApplicableError(
            f"latency-flood needs the all-port model without a call limit; got {m.spec()}"
        )
    if instance.problem.reduction:
        raise NotApplicableError("latency-flood copies packets; a reduction combines them")
    g = instance.graph
    n = instance.n
    dist = dict(nx.all_pairs_dijkstra_path_length(g, weight="latency"))
    lat = {(u, v): graphs.latency(g, u, v) for u in range(n) for v in g.adj[u]}
    cap = {(u, v): m.capacity or graphs.capacity(g, u, v) for (u, v) in lat}
    arcs = sorted(lat)
    demanders = [
        [w for w in range(n) if instance.demands[w] >> p & 1] for p in range(instance.n_packets)
    ]
    know = list(instance.holdings)
    coming = [0] * n  # per node, the packets in flight to it
    landing: dict[int, list[tuple[int, int]]] = {}
    rounds: list[Round] = []
    t = 0
    while any(d & ~k for d, k in zip(instance.demands, know, strict=True)):
        t += 1
        out: list[Transmission] = []
        for u, v in arcs:
            wait, du, dv = lat[u, v], dist[u], dist[v]
            ranked: list[tuple[int, int]] = []
            for p in bits(know[u] & ~know[v] & ~coming[v]):
                far = [
                    du[w] for w in demanders[p] if not know[w] >> p & 1 and du[w] == wait + dv[w]
                ]
                if far:
                    ranked.append((-max(far), p))
            ranked.sort()
            mask = 0
            for _, p in ranked[: cap[u, v]]:
                mask |= 1 << p
            if mask:
                out.append(Transmission(u, (v,), mask))
                coming[v] |= mask
                landing.setdefault(t + wait - 1, []).append((v, mask))
        arrived = landing.pop(t, [])
        for v, mask in arrived:
            know[v] |= mask
            coming[v] &= ~mask
        unmet = any(d & ~k for d, k in zip(instance.demands, know, strict=True))
        if not out and not arrived and not landing and unmet:
            raise NotApplicableError("latency-flood found nothing to send")  # pragma: no cover
        rounds.append(tuple(out))
    return Schedule(tuple(rounds))
