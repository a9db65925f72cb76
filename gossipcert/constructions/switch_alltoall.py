"""Alltoall on chassis joined by NICs and one switch: every NIC link busy every round.

The machine (``mi250:K`` for ``K >= 2``, :func:`gossipcert.graphs.machines.mi250`): the
processors form chassis (the components of the processor-to-processor links); every
processor is linked to one NIC (a router, several processors a NIC), and every NIC to one
switch (a router). A packet from ``s`` to ``d`` in another chassis takes the route
``s -> NIC(s) -> switch -> NIC(d) -> d``, and the links on it are the bottleneck: the
``mi250:2`` chassis cut lets 8 packets a round through its 8 NIC-switch links each way,
and the cut bound of :mod:`gossipcert.closed_forms.cuts` is ``2 + 32 K + 1`` rounds for
``K`` chunks (two rounds to reach the switch, one to leave the last NIC).

The schedule keeps every NIC-switch link busy from round 2 on:

- let ``P(i, j)`` be the packets from the processors of NIC ``i`` to those of NIC ``j`` (in
  another chassis), the same number ``q`` for every such pair, and ``Delta = q (N - N_c)``
  the packets a NIC sends (``N`` NICs, ``N_c`` a chassis);
- in step ``t = 0 .. Delta - 1`` NIC ``i`` sends the switch a packet of ``P(i, sigma_t(i))``,
  where ``sigma_t`` maps the NICs of each chassis to those of the next chassis in turn,
  shifted by ``t``: no two NICs send to the same NIC in one step, so the switch passes every
  packet on in the next round (a proper colouring of the bipartite multigraph of the
  ``P(i, j)`` with ``Delta`` colours, König's theorem; here a cyclic Latin square);
- the processors of NIC ``i`` hand it its packets in the order of its steps, one a link and
  round (packet ``k`` of a processor reaches the NIC by round ``k + 1``, before step ``k``
  needs it), the NIC sends step ``t``'s packet in round ``t + 2``, the switch in ``t + 3``
  and the last NIC delivers it in round ``t + 4``: ``Delta + 3`` rounds;
- the packets inside a chassis take the processor-to-processor links only, routed by the
  greedy of :mod:`gossipcert.constructions.machines` on the chassis alone (their links
  carry many packets a round, and no route of the first kind uses them).

On ``mi250:2`` that is ``32 K + 3`` rounds, the cut bound, so the schedule is optimal;
every schedule is replayed by the verifier before it is used.

References
----------
.. [1] A. Shah et al., "TACCL: Guiding collective algorithm synthesis using communication
   sketches", NSDI 2023 (the hierarchical alltoall: inside a node, across, inside).
.. [2] D. König, "Gráfok és alkalmazásuk a determinánsok és a halmazok elméletére",
   Mathematikai és Természettudományi Értesítő 34 (1916) (edge colourings of bipartite
   multigraphs).
.. [3] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024 (TE-CCL; the MI250 topology).
"""

from __future__ import annotations

from dataclasses import replace

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _require_all_port
from gossipcert.constructions.machines import ORDERS, pipeline_routes
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind, bits
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["switch_alltoall"]


def _structure(instance: Instance) -> tuple[int, dict[int, int], list[list[int]]]:
    """The switch, each processor's NIC and the chassis (sorted lists of processors)."""
    g = instance.graph
    procs = graphs.processors(g)
    routers = set(graphs.routers(g))
    if not routers or procs != list(range(len(procs))):
        raise NotApplicableError("the switch alltoall needs routers numbered after processors")
    switches = [r for r in routers if all(w in routers for w in g.adj[r])]
    if len(switches) != 1:
        raise NotApplicableError("the switch alltoall needs one switch linked to NICs only")
    (switch,) = switches
    nic: dict[int, int] = {}
    for v in procs:
        mine = [w for w in g.adj[v] if w in routers]
        if len(mine) != 1 or not g.has_edge(mine[0], switch):
            raise NotApplicableError("the switch alltoall needs each processor on one NIC")
        nic[v] = mine[0]
    if {r for r in routers if r != switch} != set(nic.values()):
        raise NotApplicableError("the switch alltoall needs every router but one to be a NIC")
    chassis = [sorted(c) for c in nx.connected_components(g.subgraph(procs))]
    return switch, nic, sorted(chassis)


def switch_alltoall(instance: Instance) -> Schedule:
    """The alltoall of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``total-exchange`` (any ``chunks=K``), all-port, on chassis of processors, each
        processor on one NIC, every NIC on one switch, links of capacity 1 on the NIC routes.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, another shape of machine, or unequal traffic between
        NICs.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("mi250:2", "all-port", "total-exchange")
    >>> simulate(inst, switch_alltoall(inst)).rounds  # 32 + 3, the cut bound
    35
    """
    _require_all_port(instance, "the switch alltoall")
    if instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        raise NotApplicableError("the switch alltoall is a schedule for total-exchange")
    g = instance.graph
    switch, nic, chassis = _structure(instance)
    home = {v: i for i, c in enumerate(chassis) for v in c}
    holder = {p: v for v in range(instance.n) for p in bits(instance.holdings[v])}
    # the packets between NICs of different chassis, and those inside a chassis
    between: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    inside = [0] * instance.n
    for d in range(instance.n):
        for p in bits(instance.demands[d]):
            s = holder[p]
            if home[s] == home[d]:
                inside[d] |= 1 << p
            else:
                between.setdefault((nic[s], nic[d]), []).append((s, d, p))
    nics_of = [sorted({nic[v] for v in c}) for c in chassis]
    width = len(nics_of[0])
    pairs = [
        (i, j)
        for a, xs in enumerate(nics_of)
        for b, ys in enumerate(nics_of)
        if a != b
        for i in xs
        for j in ys
    ]
    q = len(between.get(pairs[0], [])) if pairs else 0
    if any(len(x) != width for x in nics_of) or any(len(between.get(e, [])) != q for e in pairs):
        raise NotApplicableError("the switch alltoall needs the same traffic between NICs")
    routes = [(v, nic[v]) for v in nic] + [(i, switch) for i in set(nic.values())]
    if any(graphs.capacity(g, a, b) != 1 for a, b in routes):
        raise NotApplicableError("the switch alltoall assumes NIC routes of capacity 1")
    sends: dict[int, list[tuple[int, int, int]]] = {}  # round -> (sender, receiver, packet)
    handed: dict[int, list[int]] = {}  # processor -> its packets, in the order its NIC sends
    step = 0
    for shift in range(1, len(chassis)):  # to the chassis `shift` further on
        for t in range(q * width):
            for a, xs in enumerate(nics_of):
                ys = nics_of[(a + shift) % len(chassis)]
                for pos, i in enumerate(xs):
                    j = ys[(pos + t) % width]
                    s, d, p = between[i, j].pop()
                    sends.setdefault(step + t + 2, []).append((i, switch, p))
                    sends.setdefault(step + t + 3, []).append((switch, j, p))
                    sends.setdefault(step + t + 4, []).append((j, d, p))
                    handed.setdefault(s, []).append(p)
        step += q * width
    for s, packets in handed.items():
        for k, p in enumerate(packets):  # packet k reaches the NIC by round k + 1
            sends.setdefault(k + 1, []).append((s, nic[s], p))
    # the packets inside each chassis: the greedy on the processors' links alone
    count = len(nic)
    sub = replace(
        instance,
        graph=g.subgraph(range(count)).copy(),
        holdings=instance.holdings[:count],
        demands=tuple(inside[:count]),
    )
    best = min((pipeline_routes(sub, key) for key in ORDERS[:2]), key=len)
    rounds_needed = max([*sends, len(best.rounds)])
    rounds: list[Round] = []
    for r in range(1, rounds_needed + 1):
        arcs: dict[tuple[int, int], int] = {}
        for u, v, p in sends.get(r, []):
            arcs[u, v] = arcs.get((u, v), 0) | 1 << p
        merged = [Transmission(u, (v,), mask) for (u, v), mask in sorted(arcs.items())]
        if r <= len(best.rounds):
            merged.extend(best.rounds[r - 1])
        rounds.append(tuple(merged))
    return Schedule(tuple(rounds))
