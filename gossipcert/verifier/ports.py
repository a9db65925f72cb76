"""The port and link rules of one round, read from the model's port rules (the rules are
those of :mod:`gossipcert.simulate`): per node (:func:`check_ports`) and per round, arc and
capacity (:func:`check_round_limits`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from gossipcert import graphs
from gossipcert.instance import Model
from gossipcert.verifier.report import join_and

__all__ = ["PORT_RULES", "check_loads", "check_ports", "check_round_limits"]

#: what a replay calls with each violation: ``(round, nodes, rule, sentence)``
Reporter = Callable[[int, tuple[int, ...], str, str], None]


#: the rules a node breaks by sending or receiving more than ``k > 1`` transmissions a round
_OVER_PORTS = ("sends-over-k", "receives-over-k")

#: the rules about ports and links, which judge whether a schedule fits a model (the
#: others are about the data); :mod:`gossipcert.formats.verdict` judges other tools'
#: algorithms by them
PORT_RULES = frozenset(
    {
        "not-a-neighbour",
        "no-receiver",
        "multiple-receivers",
        "two-calls",
        "packet-cap",
        "sends-twice",
        "receives-twice",
        *_OVER_PORTS,
        "arc-twice",
        "sends-and-receives",
        "over-capacity",
        "calls-per-round",
    }
)


def check_ports(
    t: int,
    model: Model,
    n_sent: dict[int, int],
    sent_by: dict[int, list[int]],
    recv_from: dict[int, list[int]],
    report: Any,
    ref: Any,
    under: str,
) -> set[frozenset[int]]:
    """Check the per-node port rules of a round; return the telephone calls."""
    calls: set[frozenset[int]] = set()
    names = lambda vs: join_and([str(ref(v)) for v in vs])  # noqa: E731
    rules, ports = model.rules, model.ports
    if rules.two_way_calls:
        partners: dict[int, set[int]] = defaultdict(set)
        for u, rs in sent_by.items():
            for r in rs:
                partners[u].add(r)
                partners[r].add(u)
                calls.add(frozenset((u, r)))
        for v in sorted(partners):
            if len(partners[v]) > 1:
                report(
                    t,
                    (v, *sorted(partners[v])),
                    "two-calls",
                    f"node {ref(v)} is in calls with {names(sorted(partners[v]))} {under}",
                )
        return calls
    if ports is None:  # arc capacities
        return calls
    # at most ``ports`` transmissions sent and received per node (one: half-duplex,
    # single-port, multicast; k with k ports)
    sends, receives = ("sends-twice", "receives-twice") if ports == 1 else _OVER_PORTS
    for u in sorted(sent_by):
        if n_sent[u] > ports:
            report(
                t,
                (u, *sent_by[u]),
                sends,
                f"node {ref(u)} sends {n_sent[u]} transmissions (to {names(sent_by[u])}) {under}",
            )
    for v in sorted(recv_from):
        if len(recv_from[v]) > ports:
            report(
                t,
                (v, *recv_from[v]),
                receives,
                f"node {ref(v)} receives from {names(recv_from[v])} {under}",
            )
    if ports > 1:  # k ports: at most one transmission on an arc a round
        for u in sorted(sent_by):
            for r in sorted({r for r in sent_by[u] if sent_by[u].count(r) > 1}):
                report(
                    t,
                    (u, r),
                    "arc-twice",
                    f"node {ref(u)} sends {sent_by[u].count(r)} transmissions to {ref(r)} {under}",
                )
    if rules.send_or_receive:
        for v in sorted(set(sent_by) & set(recv_from)):
            report(
                t,
                (v,),
                "sends-and-receives",
                f"node {ref(v)} sends to {names(sent_by[v])} and receives from "
                f"{names(recv_from[v])} {under}",
            )
    return calls


def check_round_limits(
    t: int,
    model: Model,
    graph: Any,
    n_calls: int,
    arc_load: dict[tuple[int, int], int],
    report: Reporter,
    ref: Any,
    pipelined: bool,
) -> None:
    """Check the rules of a whole round: the calls (or transmissions) in it
    (``calls-per-round``), the packets of a telephone call each way (``packet-cap``), and
    the packets entering each arc under arc capacities (``over-capacity``; ``pipelined``:
    links with latencies)."""
    rules = model.rules
    under = f"under {model.spec()}"
    if model.calls_per_round is not None and n_calls > model.calls_per_round:
        what = "calls" if rules.two_way_calls else "transmissions"
        report(
            t,
            (),
            "calls-per-round",
            f"{n_calls} {what}, more than the {model.calls_per_round} allowed {under}",
        )
    if rules.two_way_calls and model.packet_cap is not None:
        for (u, r), load in sorted(arc_load.items()):
            if load > model.packet_cap:
                report(
                    t,
                    (u, r),
                    "packet-cap",
                    f"node {ref(u)} sends {load} packets to {ref(r)}, more than "
                    f"p={model.packet_cap}",
                )
    if rules.arc_capacities:
        check_loads(t, model, graph, arc_load, report, ref, pipelined)


def check_loads(
    t: int,
    model: Model,
    graph: Any,
    loads: dict[tuple[int, int], int],
    report: Reporter,
    ref: Any,
    pipelined: bool = False,
) -> int:
    """Check the packets each arc carries in round ``t`` (``loads``), where what makes up a
    transmission need not be known (another tool's transfers, counted per link): under arc
    capacities an arc the graph lacks (``not-a-neighbour``) and the packets entering each
    arc, at most its capacity (``over-capacity``; ``pipelined``: links with latencies); under
    a port model with a packet cap, the packets through each node's ports, at most ``k p``
    sent and ``k p`` received (``over-capacity``). Return the capacity the round needs: the
    most packets on one arc, or through one node's ports.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.instance import parse_model
    >>> said = []
    >>> tell = lambda t, nodes, rule, text: said.append((rule, text))
    >>> ring = from_spec("ring:4")
    >>> check_loads(1, parse_model("all-port"), ring, {(0, 1): 2, (0, 2): 1}, tell, str)
    2
    >>> [rule for rule, _ in said]
    ['over-capacity', 'not-a-neighbour']
    >>> check_loads(1, parse_model("single-port:p=1"), ring, {(0, 1): 1, (0, 3): 1}, tell, str)
    2
    >>> said[-1][1]
    'node 0 sends 2 packets, more than the 1 its ports take in a round under single-port'
    """
    limit = None if model.rules.arc_capacities else model.port_packets
    if limit is not None:  # packets through each node's ports
        sent: dict[int, int] = defaultdict(int)
        got: dict[int, int] = defaultdict(int)
        for (u, v), c in loads.items():
            sent[u] += c
            got[v] += c
        for node, table, what in [(u, sent, "sends") for u in sent] + [
            (v, got, "receives") for v in got
        ]:
            if table[node] > limit:
                report(
                    t,
                    (node,),
                    "over-capacity",
                    f"node {ref(node)} {what} {table[node]} packets, more than the {limit} its "
                    f"ports take in a round under {model.spec()}",
                )
        return max([0, *sent.values(), *got.values()])
    need = 0
    for (u, r), load in sorted(loads.items()):
        need = max(need, load)
        if not graph.has_edge(u, r):
            report(
                t,
                (u, r),
                "not-a-neighbour",
                f"node {ref(u)} sends to {ref(r)}, which is not its neighbour",
            )
            continue
        cap = model.capacity or graphs.capacity(graph, u, r)
        if load > cap:
            report(
                t,
                (u, r),
                "over-capacity",
                f"arc {ref(u)}->{ref(r)} carries {load} packets, over its capacity {cap}"
                + (
                    " (packets entering the link in this round; it is pipelined)"
                    if pipelined
                    else ""
                ),
            )
    return need
