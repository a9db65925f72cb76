"""The verifier: replays a schedule under a model and reports every violation.

This module is the judge of every schedule gossipcert produces or reads. It is written
plainly from the rules below and shares no code with the encodings. Knowledge is kept as one
bitmask (a Python int) per node, so replaying thousands of nodes and packets is fast.

Rules of one round ``t`` (every transmission ``(u, D, S)`` reads ``know_{t-1}``), read
from the model's port rules (:mod:`gossipcert.models`: one receiver, one port or ``k``,
calls both ways, no sending while receiving, arc capacities) rather than from its name:

- every receiver is a neighbour of its sender (``not-a-neighbour``), and a transmission
  has at least one receiver (``no-receiver``);
- ``S`` is known to ``u`` before the round (``unknown-packet``); a packet received in
  round ``t`` can be forwarded in round ``t+1``, not earlier;
- ``telephone``: one receiver per transmission (``multiple-receivers``); the calls, pairs
  ``{u, v}`` with a transmission between them, form a matching (``two-calls``); at most
  ``p`` packets each way (``packet-cap``);
- ``half-duplex``: one receiver per transmission; a node sends at most one transmission
  (``sends-twice``), receives at most one (``receives-twice``), and does not both send and
  receive (``sends-and-receives``); at most ``p`` packets;
- ``single-port``: one receiver per transmission; at most one transmission sent and one
  received per node, partners may differ; at most ``p`` packets;
- ``multicast``: a node sends at most one transmission, to any set of neighbours, and
  receives at most one; at most ``p`` packets;
- ``k-port`` (``k`` ports, :attr:`~gossipcert.models.spec.Model.ports`): one receiver per
  transmission; a node sends at most ``k`` transmissions (``sends-over-k``) and receives
  at most ``k`` (``receives-over-k``; with ``k = 1`` these are ``sends-twice`` and
  ``receives-twice``, as in single-port), and sends at most one to each neighbour
  (``arc-twice``); at most ``p`` packets each;
- ``all-port``: any arcs; the packets entering arc ``(u, v)`` in a round are at most its
  capacity (``over-capacity``), whatever is still in flight on it;
- ``all-port`` with latencies (edge attribute ``latency`` ``L``, 1 when absent): a
  transmission is listed in the round ``t`` it enters the link, and its packets are known to
  the receiver from the end of round ``t + L - 1`` (forwarded in round ``t + L`` at the
  earliest); sending a packet before it has arrived is ``unknown-packet`` ("node 3 sends
  packet 0, which it does not know yet (it is in flight to it until the end of round 4)").
  Packets still in flight after the last round are delivered in the rounds after it: the
  report's ``rounds`` and ``length`` count those rounds (the round of the last arrival);
- ``calls_per_round``: at most that many calls (telephone) or transmissions (other models)
  in the whole round (``calls-per-round``).

After the round ``know_t(v) = know_{t-1}(v) ∪ ⋃ {S : (u, D, S), v ∈ D}``. A schedule
*solves* the instance when every demand is met after its last round. Where a transmission
breaks a rule the replay goes on (sending what the sender does know), so that every
violation in the schedule is reported, not only the first.

Reductions (``reduce``, ``reduce-scatter``, ``allreduce``): a packet is a chunk, and each node
holds per chunk a *partial result*, the set of contributions folded into it (initially its own
contribution to the chunks it contributes to, else nothing). A transmission carries the
sender's partial of each chunk it names, as it was before the round; sending a chunk of which
the sender holds nothing is ``unknown-packet``. Each receiver then, per chunk, stores the
received partial (``"op": "copy"``: its partial becomes the received one; two copies of one
chunk into one node in one round are ``copied-twice``) and folds every ``"op": "reduce"``
receipt into it (union). Under ``redop=sum`` combining two partials that share a contribution
is a ``double-count``, one violation per shared contribution ("round 3: node 2 combines chunk
5 holding rank 1's contribution twice"); ``max`` is idempotent and allows it. The port rules
are those of any transmission. The result is complete when every demanded chunk's partial
holds every contribution to that chunk; each missing one is named ("after round 4 node 0
holds chunk 1 without rank 3's contribution"). ``"op": "reduce"`` outside a reduction is
``reduce-op``.

Per round the report counts transmissions, calls, packets moved (``|S|·|D|`` summed),
``s_t = max_u s_{u,t}`` (packets node ``u`` sends in round ``t``) and the newly learned
``(node, packet)`` pairs; ``S = Σ_t s_t`` and, under linear cost, ``T = R + τ·h·S``.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping"
   (linear cost, steps ``S``).
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (full/half duplex rules).
.. [3] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.gc_pause import paused_gc
from gossipcert.instance import Instance, Model, bits
from gossipcert.names import node_name, packet_name
from gossipcert.partials import Partials, chunk_text
from gossipcert.schedule import Schedule, Transmission, json_name


@dataclass(frozen=True)
class Violation:
    """One broken rule: the round, the nodes involved, the rule's key and a sentence."""

    round: int
    nodes: tuple[int, ...]
    rule: str
    message: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "round": self.round,
            "nodes": list(self.nodes),
            "rule": self.rule,
            "message": self.message,
        }


@dataclass(frozen=True)
class RoundStats:
    """What happened in one round."""

    transmissions: int
    calls: int
    packets_moved: int
    max_sent: int
    learned: int


@dataclass
class Report:
    """The verdict on a schedule.

    Attributes
    ----------
    valid : bool
        No rule of the model is broken.
    complete : bool
        Every demand is met after the last round.
    rounds : int or None
        The round after which all demands are met (0 if they are met before round 1),
        None if they never are.
    length : int
        Number of rounds in the schedule (trailing empty rounds dropped); with latencies, the
        round of the last arrival when that is later.
    errors : list of Violation
    unmet : list of (node, packet)
        Demands still unmet at the end (internal node and packet numbers).
    per_round : list of RoundStats
    steps : int
        ``S = Σ_t max_u s_{u,t}``.
    cost : float or None
        ``T = R + τ·h·S`` under linear cost (``R`` the length), else None.
    knowledge : list of int
        Final knowledge bitmask of each node (in a reduction: the chunks of which it holds a
        partial result).
    missing : list of (node, chunk, contributor)
        Reductions: each contribution a demanded chunk still lacks at the end.
    instance : Instance or None
        The instance replayed (:func:`simulate` sets it), which :meth:`named_unmet` and
        :meth:`named_missing` name nodes and packets by.
    ok : bool
        Valid and complete (property).
    """

    valid: bool
    complete: bool
    rounds: int | None
    length: int
    errors: list[Violation]
    unmet: list[tuple[int, int]]
    per_round: list[RoundStats]
    steps: int
    cost: float | None
    knowledge: list[int] = field(repr=False)
    missing: list[tuple[int, int, int]] = field(default_factory=list)
    instance: Instance | None = field(default=None, repr=False, compare=False)

    def named_unmet(self) -> list[tuple[Any, Any]]:
        """:attr:`unmet` with the graph's own names: ``(node, packet)`` per demand unmet at
        the end, named as :meth:`gossipcert.Result.named_rounds` names them.

        Returns
        -------
        list of (node, packet)

        Examples
        --------
        >>> import networkx as nx
        >>> from gossipcert import verify
        >>> verify(nx.path_graph(["a", "b"]), [], "telephone", "gossip").named_unmet()
        [('a', 'b'), ('b', 'a')]
        """
        inst = self._instance()
        return [(node_name(inst.graph, v), packet_name(inst, p)) for v, p in self.unmet]

    def named_missing(self) -> list[tuple[Any, Any, Any]]:
        """:attr:`missing` with the graph's own names: ``(node, chunk, contributor)`` per
        contribution a reduction's demanded chunk lacks at the end.

        Returns
        -------
        list of (node, chunk, contributor)

        Examples
        --------
        >>> import networkx as nx
        >>> from gossipcert import verify
        >>> verify(nx.path_graph(["a", "b"]), [], "telephone", "reduce:a").named_missing()
        [('a', 'a', 'b')]
        """
        inst = self._instance()
        g = inst.graph
        return [
            (node_name(g, v), packet_name(inst, c), node_name(g, w)) for v, c, w in self.missing
        ]

    def _instance(self) -> Instance:
        if self.instance is None:
            raise GossipcertError("this report was not made by simulate(): it has no instance")
        return self.instance

    def incomplete(self, instance: Instance, limit: int | None = None) -> list[str]:
        """One sentence per contribution a reduction's result lacks at the end, e.g.
        "after round 4 node 0 holds chunk 1 without rank 3's contribution"."""
        ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
        return [
            f"after round {self.length} node {ref(v)} holds chunk "
            f"{chunk_text(instance.packet_names[c])} without rank {ref(w)}'s contribution"
            for v, c, w in self.missing[:limit]
        ]

    @property
    def ok(self) -> bool:
        """Valid and complete."""
        return self.valid and self.complete

    def to_json(self, instance: Instance, max_unmet: int = 100) -> dict[str, Any]:
        """JSON-ready form, nodes and packets by their external names."""
        ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
        name = lambda p: json_name(instance.packet_names[p])  # noqa: E731
        return {
            "valid": self.valid,
            "complete": self.complete,
            "rounds": self.rounds,
            "length": self.length,
            "errors": [{**e.to_json(), "nodes": [ref(v) for v in e.nodes]} for e in self.errors],
            "unmet_count": len(self.unmet),
            "unmet": [{"node": ref(v), "packet": name(p)} for v, p in self.unmet[:max_unmet]],
            **(
                {
                    "missing_count": len(self.missing),
                    "missing": [
                        {"node": ref(v), "chunk": name(c), "contribution": ref(w)}
                        for v, c, w in self.missing[:max_unmet]
                    ],
                    "incomplete": self.incomplete(instance, max_unmet),
                }
                if instance.problem.reduction
                else {}
            ),
            "per_round": [vars(s) for s in self.per_round],
            "steps": self.steps,
            "cost": self.cost,
        }


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def simulate(instance: Instance, schedule: Schedule, max_errors: int | None = None) -> Report:
    """Replay ``schedule`` on ``instance`` and report every violation.

    Parameters
    ----------
    instance : Instance
    schedule : Schedule
    max_errors : int or None
        Stop collecting violations after this many (the replay still finishes).

    Returns
    -------
    Report

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:2", "telephone", "gossip")
    >>> simulate(inst, Schedule.from_calls([[(0, 1)]])).rounds
    1
    """
    with paused_gc():  # a replay builds many short lists and tuples, and no cycles
        report = _replay(instance, schedule, max_errors)
    report.instance = instance
    return report


def _replay(instance: Instance, schedule: Schedule, max_errors: int | None) -> Report:
    """The replay behind :func:`simulate`."""
    g = instance.graph
    model = instance.model
    rules = model.rules
    adj = [set(g.adj[v]) for v in range(instance.n)]
    ref = lambda v: graphs.node_ref(g, v)  # noqa: E731
    know = list(instance.holdings)
    demands = instance.demands
    errors: list[Violation] = []
    stats: list[RoundStats] = []
    under = f"under {model.spec()}"
    # per-model switches, decided once (the loops below run once per transmission)
    point_to_point = rules.point_to_point
    cap_per_transmission = (
        model.packet_cap if model.packet_cap is not None and not rules.two_way_calls else None
    )
    # arc loads are needed for the telephone packet cap and all-port capacities only
    track_arcs = rules.arc_capacities or (rules.two_way_calls and model.packet_cap is not None)

    def report(t: int, nodes: tuple[int, ...], rule: str, text: str) -> None:
        if max_errors is None or len(errors) < max_errors:
            errors.append(Violation(t, nodes, rule, f"round {t}: {text}"))

    reduction = Partials(instance) if instance.problem.reduction else None
    # links slower than one round (all-port only, see make_instance): the packets in flight,
    # by the round at whose end they arrive, and per node the round each arrives by
    slow = graphs.latencies(g)
    landing: dict[int, list[tuple[int, int]]] = defaultdict(list)
    in_flight: dict[tuple[int, int], int] = {}

    def unmet_now() -> bool:
        if reduction is not None:
            return reduction.unmet()
        return any(_and_not(demands, know))

    done_at: int | None = None if unmet_now() else 0
    length = len(schedule)
    for t, rnd in enumerate(schedule.rounds[:length], start=1):
        plain = (
            _plain_round(rnd, know, adj, model)
            if not rules.arc_capacities and reduction is None and not slow
            else None
        )
        if plain is not None:
            stats.append(plain)
            if done_at is None and plain.learned and not unmet_now():
                done_at = t
            continue
        incoming = [0] * instance.n
        sent_by: dict[int, list[int]] = defaultdict(list)  # sender -> receivers, per transmission
        recv_from: dict[int, list[int]] = defaultdict(list)  # receiver -> senders
        arc_load: dict[tuple[int, int], int] = defaultdict(int)
        sent_count: dict[int, int] = defaultdict(int)  # sender -> packets sent
        n_sent: dict[int, int] = defaultdict(int)  # sender -> transmissions
        moved = 0
        touched: list[int] = []  # the nodes whose incoming set became non-empty this round
        for tr in rnd:
            u = tr.sender
            receivers = tr.receivers
            neighbours = adj[u]
            if len(receivers) != 1:
                if not receivers:
                    report(t, (u,), "no-receiver", f"node {ref(u)} sends to nobody")
                elif point_to_point:
                    report(
                        t,
                        (u, *receivers),
                        "multiple-receivers",
                        f"node {ref(u)} sends to {_and([str(ref(r)) for r in receivers])} at "
                        f"once, but {model.kind.value} is point-to-point",
                    )
            if not neighbours.issuperset(receivers):
                for r in receivers:
                    if r not in neighbours:
                        what = "itself" if r == u else f"{ref(r)}, which is not its neighbour"
                        report(t, (u, r), "not-a-neighbour", f"node {ref(u)} sends to {what}")
            known = know[u]
            mask = known if tr.packets is None else tr.packets
            unknown = mask & ~known
            if unknown:
                names = [repr(instance.packet_names[p]) for p in bits(unknown)[:5]]
                flying = [in_flight[u, p] for p in bits(unknown)[:5] if (u, p) in in_flight]
                late = (
                    f" (it is in flight to it until the end of round {max(flying)})"
                    if flying
                    else ""
                )
                more = "" if unknown.bit_count() <= 5 else f" (and {unknown.bit_count() - 5} more)"
                s_ = "s" if len(names) > 1 else ""
                report(
                    t,
                    (u,),
                    "unknown-packet",
                    f"node {ref(u)} sends packet{s_} {_and(names)}{more}, which it does not "
                    f"know yet{late}"
                    if reduction is None
                    else f"node {ref(u)} sends chunk{s_} {_and(names)}{more}, of which it "
                    "holds no partial result yet",
                )
                mask &= known
            if tr.op != "copy" and reduction is None:
                report(
                    t,
                    (u,),
                    "reduce-op",
                    f'node {ref(u)} sends with "op": {tr.op!r}, but {instance.problem.spec()} '
                    "is no reduction (only copies)",
                )
            size = mask.bit_count()
            sent_count[u] += size
            n_sent[u] += 1
            sent_by[u].extend(receivers)
            for r in receivers:
                delay = slow.get((min(u, r), max(u, r)), 1) - 1 if slow else 0
                if delay and r in neighbours:
                    if mask:
                        landing[t + delay].append((r, mask))
                    for p in bits(mask & ~know[r]):
                        in_flight[r, p] = min(in_flight.get((r, p), t + delay), t + delay)
                    arc_load[(u, r)] += size
                    moved += size
                elif r in neighbours:
                    if not incoming[r]:
                        touched.append(r)
                    incoming[r] |= mask
                    recv_from[r].append(u)
                    if reduction is not None:
                        reduction.receive(u, r, mask, tr.op)
                    if track_arcs:
                        arc_load[(u, r)] += size
                    moved += size
            if cap_per_transmission is not None and size > cap_per_transmission:
                all_note = ' ("all" here is that many)' if tr.packets is None else ""
                report(
                    t,
                    (u, *receivers),
                    "packet-cap",
                    f"node {ref(u)} sends {size} packets in one transmission, more than "
                    f"p={model.packet_cap}{all_note}",
                )

        calls = _check_ports(t, model, n_sent, sent_by, recv_from, report, ref, under)
        n_calls = len(calls) if rules.two_way_calls else len(rnd)
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
            for (u, r), load in sorted(arc_load.items()):
                cap = model.capacity or graphs.capacity(g, u, r)
                if load > cap:
                    report(
                        t,
                        (u, r),
                        "over-capacity",
                        f"arc {ref(u)}->{ref(r)} carries {load} packets, over its capacity {cap}"
                        + (
                            " (packets entering the link in this round; it is pipelined)"
                            if slow
                            else ""
                        ),
                    )
        for r, mask in landing.pop(t, ()):
            if not incoming[r]:
                touched.append(r)
            incoming[r] |= mask

        learned = 0
        for v in touched:  # every other node received nothing this round
            new = incoming[v] & ~know[v]
            if new:
                learned += new.bit_count()
                know[v] |= new
        if reduction is not None:
            learned = reduction.combine(t, report, ref)
        stats.append(
            RoundStats(len(rnd), n_calls, moved, max(sent_count.values(), default=0), learned)
        )
        if done_at is None and learned and not unmet_now():
            done_at = t

    # packets still in flight after the last round arrive in the rounds after it
    for t in sorted(landing):
        for r, mask in landing[t]:
            know[r] |= mask
        length = max(length, t)
        if done_at is None and not unmet_now():
            done_at = t
    if reduction is None:
        unmet = [(v, p) for v in range(instance.n) for p in bits(demands[v] & ~know[v])]
        missing: list[tuple[int, int, int]] = []
    else:
        missing = reduction.missing()
        unmet = list(dict.fromkeys((v, c) for v, c, _ in missing))
    steps = sum(s.max_sent for s in stats)
    cost = None if model.tau is None else length + model.tau * model.h * steps
    return Report(
        valid=not errors,
        complete=not unmet,
        rounds=done_at,
        length=length,
        errors=errors,
        unmet=unmet,
        per_round=stats,
        steps=steps,
        cost=cost,
        knowledge=know,
        missing=missing,
    )


def _plain_round(
    rnd: tuple[Transmission, ...], know: list[int], adj: list[set[int]], model: Model
) -> RoundStats | None:
    """Replay a round that visibly breaks no rule, by whole-round operations; else None.

    A round is *plain* when every transmission has one receiver, a neighbour of its sender;
    no node sends twice and no node receives twice; every packet sent is known to its sender;
    the packet caps hold; and the model's port rule holds (half-duplex: no node both sends
    and receives; telephone: the transmissions pair up into a matching of calls). Such a
    round breaks no rule, and its effect and counts are those of the per-transmission replay
    in :func:`simulate`: each receiver learns the one set sent to it. On a plain round
    ``know`` is updated and the round's counts are returned; any other round returns None
    with ``know`` untouched, and the per-transmission replay reports what is wrong.
    """
    # Whole-round operations: map over the columns, so that the per-transmission work runs in
    # C; ``_and_not(a, b)`` is ``a & ~b`` element by element.
    if not rnd:
        return None
    senders, targets, packets, ops = zip(*rnd, strict=True)
    if ops.count("copy") != len(ops):
        return None  # "reduce" outside a reduction: the replay reports it
    if set(map(len, targets)) != {1}:
        return None
    receivers = [target[0] for target in targets]
    if len(set(senders)) != len(senders) or len(set(receivers)) != len(receivers):
        return None
    if not all(map(set.__contains__, map(adj.__getitem__, senders), receivers)):
        return None  # a receiver that is not its sender's neighbour
    sender_know = list(map(know.__getitem__, senders))
    masks = (
        packets
        if None not in packets
        else [k if p is None else p for k, p in zip(sender_know, packets, strict=True)]
    )
    if any(_and_not(masks, sender_know)):
        return None  # a packet its sender does not know
    sizes = list(map(int.bit_count, masks))
    largest = max(sizes)
    rules = model.rules
    if model.packet_cap is not None and largest > model.packet_cap:
        return None
    calls = len(rnd)
    if rules.send_or_receive and not set(senders).isdisjoint(receivers):
        return None
    if rules.two_way_calls:
        target_of = dict(zip(senders, receivers, strict=True))
        source_of = dict(zip(receivers, senders, strict=True))
        if any(
            target_of.get(v, u) != u or source_of.get(u, v) != v
            for u, v in zip(senders, receivers, strict=True)
        ):
            return None  # not a matching of calls
        calls -= sum(target_of.get(v) == u for u, v in zip(senders, receivers, strict=True)) // 2
    if model.calls_per_round is not None and calls > model.calls_per_round:
        return None
    receiver_know = list(map(know.__getitem__, receivers))
    learned = sum(map(int.bit_count, _and_not(masks, receiver_know)))
    # receivers are distinct: each learns the one set sent to it
    know_after = map(int.__or__, receiver_know, masks)
    deque(map(know.__setitem__, receivers, know_after), maxlen=0)
    return RoundStats(len(rnd), calls, sum(sizes), largest, learned)


def _and_not(a: Iterable[int], b: Iterable[int]) -> Iterator[int]:
    """``x & ~y`` for the pairs of ``a`` and ``b``."""
    return map(int.__and__, a, map(int.__invert__, b))


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


def _check_ports(
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
    names = lambda vs: _and([str(ref(v)) for v in vs])  # noqa: E731
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
