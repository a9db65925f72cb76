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

from collections import defaultdict
from dataclasses import dataclass

from gossipcert import graphs
from gossipcert.gc_pause import paused_gc
from gossipcert.instance import Instance, bits
from gossipcert.partials import Partials
from gossipcert.schedule import Schedule, Transmission
from gossipcert.verifier.plain import and_not, plain_round
from gossipcert.verifier.ports import PORT_RULES, check_ports, check_round_limits
from gossipcert.verifier.report import Report, RoundStats, Violation, join_and

__all__ = ["PORT_RULES", "Report", "RoundStats", "Violation", "simulate"]


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
        report = _Replay(instance, max_errors).run(schedule)
    report.instance = instance
    return report


@dataclass
class _Sends:
    """What the transmissions of one round did, before the round's rules are checked."""

    #: per node, the packets arriving at the end of the round
    incoming: list[int]
    #: the nodes whose ``incoming`` became non-empty, in order
    touched: list[int]
    #: sender -> receivers (one entry per receiver of each transmission)
    sent_by: dict[int, list[int]]
    #: receiver -> senders
    recv_from: dict[int, list[int]]
    #: packets entering each arc
    arc_load: dict[tuple[int, int], int]
    #: sender -> packets sent
    sent_count: dict[int, int]
    #: sender -> transmissions
    n_sent: dict[int, int]
    #: packets moved (``|S|·|D|`` summed)
    moved: int


class _Replay:
    """One replay of :func:`simulate`: the knowledge of every node, the violations found,
    the packets in flight; :meth:`run` replays a schedule round by round."""

    def __init__(self, instance: Instance, max_errors: int | None) -> None:
        g = instance.graph
        self.instance = instance
        self.model = model = instance.model
        self.max_errors = max_errors
        self.adj = [set(g.adj[v]) for v in range(instance.n)]
        self.ref = lambda v: graphs.node_ref(g, v)
        self.know = list(instance.holdings)
        self.errors: list[Violation] = []
        self.stats: list[RoundStats] = []
        self.under = f"under {model.spec()}"
        rules = model.rules
        # per-model switches, decided once (the loops below run once per transmission)
        self.cap_per_transmission = (
            model.packet_cap if model.packet_cap is not None and not rules.two_way_calls else None
        )
        # arc loads are needed for the telephone packet cap and all-port capacities only
        self.track_arcs = rules.arc_capacities or (
            rules.two_way_calls and model.packet_cap is not None
        )
        self.reduction = Partials(instance) if instance.problem.reduction else None
        # links slower than one round (all-port only, see make_instance): the packets in
        # flight, by the round at whose end they arrive, and per node the round each arrives by
        self.slow = graphs.latencies(g)
        self.landing: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self.in_flight: dict[tuple[int, int], int] = {}

    def report(self, t: int, nodes: tuple[int, ...], rule: str, text: str) -> None:
        """Record a violation (up to ``max_errors``)."""
        if self.max_errors is None or len(self.errors) < self.max_errors:
            self.errors.append(Violation(t, nodes, rule, f"round {t}: {text}"))

    def unmet_now(self) -> bool:
        """Whether some demand is still unmet."""
        if self.reduction is not None:
            return self.reduction.unmet()
        return any(and_not(self.instance.demands, self.know))

    def run(self, schedule: Schedule) -> Report:
        """Replay every round of ``schedule``; the report."""
        rules = self.model.rules
        whole_rounds = not rules.arc_capacities and self.reduction is None and not self.slow
        done_at: int | None = None if self.unmet_now() else 0
        length = len(schedule)
        for t, rnd in enumerate(schedule.rounds[:length], start=1):
            stats = plain_round(rnd, self.know, self.adj, self.model) if whole_rounds else None
            if stats is None:
                stats = self.round(t, rnd)
            self.stats.append(stats)
            if done_at is None and stats.learned and not self.unmet_now():
                done_at = t
        # packets still in flight after the last round arrive in the rounds after it
        for t in sorted(self.landing):
            for r, mask in self.landing[t]:
                self.know[r] |= mask
            length = max(length, t)
            if done_at is None and not self.unmet_now():
                done_at = t
        return self.finish(length, done_at)

    def round(self, t: int, rnd: tuple[Transmission, ...]) -> RoundStats:
        """Replay round ``t`` transmission by transmission, reporting what breaks a rule."""
        model, rules, know = self.model, self.model.rules, self.know
        sends = self.transmit(t, rnd)
        calls = check_ports(
            t, model, sends.n_sent, sends.sent_by, sends.recv_from, self.report, self.ref,
            self.under,
        )  # fmt: skip
        n_calls = len(calls) if rules.two_way_calls else len(rnd)
        check_round_limits(
            t, model, self.instance.graph, n_calls, sends.arc_load, self.report, self.ref,
            bool(self.slow),
        )  # fmt: skip
        incoming, touched = sends.incoming, sends.touched
        for r, mask in self.landing.pop(t, ()):
            if not incoming[r]:
                touched.append(r)
            incoming[r] |= mask
        learned = 0
        for v in touched:  # every other node received nothing this round
            new = incoming[v] & ~know[v]
            if new:
                learned += new.bit_count()
                know[v] |= new
        if self.reduction is not None:
            learned = self.reduction.combine(t, self.report, self.ref)
        largest = max(sends.sent_count.values(), default=0)
        return RoundStats(len(rnd), n_calls, sends.moved, largest, learned)

    def transmit(self, t: int, rnd: tuple[Transmission, ...]) -> _Sends:
        """The transmissions of round ``t``, one by one: their receivers, packets and loads,
        and the rules one transmission can break."""
        instance, model, report, ref = self.instance, self.model, self.report, self.ref
        adj, know, reduction, slow = self.adj, self.know, self.reduction, self.slow
        point_to_point = model.rules.point_to_point
        cap, track_arcs = self.cap_per_transmission, self.track_arcs
        landing, in_flight = self.landing, self.in_flight
        out = _Sends(
            [0] * instance.n, [], defaultdict(list), defaultdict(list), defaultdict(int),
            defaultdict(int), defaultdict(int), 0,
        )  # fmt: skip
        incoming, touched, recv_from, arc_load = (
            out.incoming, out.touched, out.recv_from, out.arc_load
        )  # fmt: skip
        moved = 0
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
                        f"node {ref(u)} sends to {join_and([str(ref(r)) for r in receivers])} "
                        f"at once, but {model.kind.value} is point-to-point",
                    )
            if not neighbours.issuperset(receivers):
                for r in receivers:
                    if r not in neighbours:
                        what = "itself" if r == u else f"{ref(r)}, which is not its neighbour"
                        report(t, (u, r), "not-a-neighbour", f"node {ref(u)} sends to {what}")
            known = know[u]
            mask = known if tr.packets is None else tr.packets
            if mask & ~known:
                self.unknown_packets(t, u, mask & ~known)
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
            out.sent_count[u] += size
            out.n_sent[u] += 1
            out.sent_by[u].extend(receivers)
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
            if cap is not None and size > cap:
                all_note = ' ("all" here is that many)' if tr.packets is None else ""
                report(
                    t,
                    (u, *receivers),
                    "packet-cap",
                    f"node {ref(u)} sends {size} packets in one transmission, more than "
                    f"p={model.packet_cap}{all_note}",
                )
        out.moved = moved
        return out

    def unknown_packets(self, t: int, u: int, unknown: int) -> None:
        """Report node ``u`` sending the packets ``unknown`` (a mask) it does not know."""
        names = [repr(self.instance.packet_names[p]) for p in bits(unknown)[:5]]
        flying = [self.in_flight[u, p] for p in bits(unknown)[:5] if (u, p) in self.in_flight]
        late = f" (it is in flight to it until the end of round {max(flying)})" if flying else ""
        more = "" if unknown.bit_count() <= 5 else f" (and {unknown.bit_count() - 5} more)"
        s_ = "s" if len(names) > 1 else ""
        self.report(
            t,
            (u,),
            "unknown-packet",
            f"node {self.ref(u)} sends packet{s_} {join_and(names)}{more}, which it does not "
            f"know yet{late}"
            if self.reduction is None
            else f"node {self.ref(u)} sends chunk{s_} {join_and(names)}{more}, of which it "
            "holds no partial result yet",
        )

    def finish(self, length: int, done_at: int | None) -> Report:
        """The report once every round (and every packet in flight) has been replayed."""
        instance, know, model = self.instance, self.know, self.model
        if self.reduction is None:
            unmet = [
                (v, p) for v in range(instance.n) for p in bits(instance.demands[v] & ~know[v])
            ]
            missing: list[tuple[int, int, int]] = []
        else:
            missing = self.reduction.missing()
            unmet = list(dict.fromkeys((v, c) for v, c, _ in missing))
        steps = sum(s.max_sent for s in self.stats)
        cost = None if model.tau is None else length + model.tau * model.h * steps
        return Report(
            valid=not self.errors,
            complete=not unmet,
            rounds=done_at,
            length=length,
            errors=self.errors,
            unmet=unmet,
            per_round=self.stats,
            steps=steps,
            cost=cost,
            knowledge=know,
            missing=missing,
        )
