"""The all-port (multi-port) model with arc capacities and routers (``all-port[:c=N]``).

Rules of one round (docs/models.rst):

- every arc ``u -> v`` may be used in every round, by any number of transmissions;
- at most ``c(u, v)`` packets cross arc ``u -> v`` per round: ``c = N`` for every arc with
  ``all-port:c=N``, else the edge's ``capacity`` attribute (1 unless the graph says
  otherwise; fat trees carry their level capacities);
- a node may send the same packet on several of its arcs in one round (multicast copies),
  each copy counted on its own arc; for personalized problems (each packet demanded by one
  node) copies never help, and the encoding needs no switch for them;
- routers (fat-tree inner nodes) hold and demand nothing (:func:`~gossipcert.instance.
  make_instance`) but store and forward like any node: they have knowledge variables;
- ``calls=N`` is not encoded here (a transmission's packet set is shared by its receivers,
  so what it counts is not one variable per arc): such instances get their bounds only;
- latencies (docs/models.rst; :mod:`gossipcert.models.all_port`): an edge may carry a
  latency ``L >= 1`` (edge attribute ``latency``, both directions); a packet that enters
  ``u -> v`` in round ``t`` is known at ``v`` after round ``t + L - 1`` (forwarded in round
  ``t + L`` at the earliest); ``L = 1`` is the rule above. The capacity counts the packets
  that *enter* the arc in a round (the link is pipelined), whatever is still in flight; a
  schedule of ``r`` rounds has every arrival by the end of round ``r``.

Variables (besides those of :mod:`.transfer`): none. Every arc is always usable, so the arc
literal is the constant True and ``("X", p, u, v, t)`` (packet ``p`` enters ``u -> v`` in
round ``t``) carries the whole round.

Constraint families (besides those of :mod:`.transfer`):

- *arc capacity*: ``sum_p X[p,u,v,t] <= c(u, v)`` for every arc and round of entry, in
  place of the per-transmission packet cap;
- *latency* (in :mod:`.transfer`'s justification): ``K[v,p,t] -> K[v,p,t-1] or OR_u
  X[p,u,v,t-L(u,v)+1]``; the sender-knows, arc-used and no-useless-sends clauses of a
  transfer are written in its round of entry ``t``;
- *pruning with latencies*: the distances of the distance pruning are weighted by the
  latencies (``K[v,p,t]`` exists from the weighted distance of ``v`` to the nearest holder
  of ``p`` on), and a transfer into ``v`` exists only where ``v`` may not know ``p`` by its
  arrival; a transfer arriving after the horizon is dropped when a schedule is decoded (it
  serves no demand);
- *symmetry* (sound): the lex-leader constraints of :mod:`gossipcert.symmetry.automorphisms` are
  stated on the first round's transfer variables, keyed by the arc and by the nodes that
  name the packet (its origin, its destination, or both), so that an automorphism moves a
  packet with its nodes; the automorphisms also preserve arc capacities, latencies and routers. With
  the data in chunks the key also holds the chunk's index, which an automorphism keeps
  (chunk ``j`` of ``x`` goes to chunk ``j`` of ``σ(x)``: the chunks of a packet have its
  holders and demanders).

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees"
   (the multi-port model with link capacities; inner nodes are switches).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from gossipcert import graphs
from gossipcert.encodings.formula import Formula
from gossipcert.encodings.options import EncodingOptions
from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits
from gossipcert.schedule import Round, Schedule, Transmission


def packet_nodes(instance: Instance) -> list[tuple[int, ...]] | None:
    """The nodes that name each packet of a built-in problem (None for a custom problem, or
    when the data is split into chunks: several packets then share their nodes).

    Gossip and gather packets are named by their origin, scatter packets by their
    destination, total-exchange packets by both, and the one packet of a broadcast by nothing
    (its sources may be exchanged); an automorphism that fixes the problem's
    root maps each packet to the packet of the image nodes.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> packet_nodes(parse_instance("path:3", "all-port", "total-exchange"))[:2]
    [(0, 1), (0, 2)]
    """
    if instance.problem.chunks != 1:
        return None
    return _named_packets(instance)


#: the problems whose chunks are named by their packet's nodes and their index
_CHUNK_NAMED = frozenset(
    {
        ProblemKind.GOSSIP,
        ProblemKind.BROADCAST,
        ProblemKind.SCATTER,
        ProblemKind.GATHER,
        ProblemKind.TOTAL_EXCHANGE,
    }
)


def chunk_names(instance: Instance) -> list[tuple[tuple[int, ...], int]] | None:
    """With the data split into ``k > 1`` chunks: each packet's nodes (as
    :func:`packet_nodes` names the unsplit packet) and its chunk index ``j``; None otherwise.

    Packet ``p`` is chunk ``p mod k`` of the unsplit packet ``p // k`` and has its holders and
    demanders, so an automorphism ``σ`` of the instance maps chunk ``j`` of the packet of
    nodes ``x`` to chunk ``j`` of the packet of nodes ``σ(x)``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> chunk_names(parse_instance("path:3", "all-port", "gossip:chunks=2"))[:3]
    [((0,), 0), ((0,), 1), ((1,), 0)]
    """
    k = instance.problem.chunks
    if k == 1 or instance.problem.kind not in _CHUNK_NAMED:
        return None
    names = _named_packets(instance)
    assert names is not None
    return [(nodes, p % k) for p, nodes in enumerate(names)]


def _named_packets(instance: Instance) -> list[tuple[int, ...]] | None:
    kind = instance.problem.kind
    if kind is ProblemKind.CUSTOM:
        return None
    out: list[tuple[int, ...]] = []
    for p in range(instance.n_packets):
        holders = tuple(v for v in range(instance.n) if instance.holdings[v] >> p & 1)
        needers = tuple(v for v in range(instance.n) if instance.demands[v] >> p & 1)
        if kind is ProblemKind.SCATTER:
            out.append(needers)
        elif kind is ProblemKind.TOTAL_EXCHANGE:
            out.append(holders + needers)
        elif kind is ProblemKind.BROADCAST:
            # the one packet: every automorphism that keeps the set of sources fixes it
            out.append(())
        else:
            out.append(holders)
    return out


class AllPortEncoding(TransferEncoding):
    """All-port with arc capacities and per-packet transfers; see the module docstring."""

    kinds = (ModelKind.ALL_PORT,)
    uses = ("prune", "symmetry", "useless")

    def __init__(
        self,
        instance: Instance,
        options: EncodingOptions | None = None,
        formula: Formula | None = None,
    ) -> None:
        if instance.model.calls_per_round is not None:
            raise UnsupportedModelError(
                f"the all-port encoding has no call limit; got {instance.model.spec()}"
            )
        super().__init__(instance, options, formula)
        fixed = instance.model.capacity
        g = instance.graph
        #: c(u, v) of every arc
        self.capacity = {
            (u, v): fixed if fixed is not None else graphs.capacity(g, u, v) for u, v in self.arcs
        }
        self.names = packet_nodes(instance)
        #: decoding drops the transfers that arrive after this round (see :meth:`decode`)
        self.decoded_rounds: int | None = None

    def arc(self, u: int, v: int, t: int) -> bool:
        """Every arc is usable in every round: the constant True."""
        return True

    def add_ports(self, t: int) -> None:
        """No port rule: any arcs, any number of transmissions."""

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:  # pragma: no cover
        raise UnsupportedModelError("all-port has no call limit in the encoding")

    def add_packet_cap(self, t: int) -> None:
        """At most ``c(u, v)`` packets cross arc ``u -> v`` in round ``t``."""
        for (u, v), cap in self.capacity.items():
            xs = [x for p in range(self.instance.n_packets) if (x := self.sends(p, u, v, t))]
            if len(xs) > cap:
                self.formula.at_most(xs, cap)

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        """Round-1 transfers keyed by ``(u, v, *nodes naming the packet)``."""
        if self.names is None:
            return []
        out: list[tuple[Hashable, int]] = []
        for u, v in self.arcs:
            for p in range(self.instance.n_packets):
                x = self.sends(p, u, v, 1)
                if x is not False:
                    out.append(((u, v, *self.names[p]), x))
        return out

    def symmetry_keys(self) -> list[tuple[Hashable, int]]:
        """The keys of the lex-leader constraints: :meth:`first_round_keys`, and with the
        data in chunks the round-1 transfers keyed by ``((u, v, *nodes), chunk)``."""
        chunks = chunk_names(self.instance)
        if chunks is None:
            return self.first_round_keys()
        out: list[tuple[Hashable, int]] = []
        for u, v in self.arcs:
            for p in range(self.instance.n_packets):
                x = self.sends(p, u, v, 1)
                if x is not False:
                    nodes, j = chunks[p]
                    out.append((((u, v, *nodes), j), x))
        return out

    def decode(self, r: int, value: Callable[[int], bool]) -> Schedule:
        """The schedule of rounds ``1..r``; a transfer on a slow arc that would arrive after
        round ``r`` is left out (it meets no demand by ``r``)."""
        self.decoded_rounds = r
        try:
            return super().decode(r, value)
        finally:
            self.decoded_rounds = None

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        """One transmission per arc that carries a packet."""
        out: list[Transmission] = []
        last = self.decoded_rounds
        for u, v in self.arcs:
            if last is not None and self.delay and t + self.delay.get((u, v), 0) > last:
                continue
            mask = self.sent_mask(u, v, t, value)
            if mask:
                out.append(Transmission(u, (v,), mask))
        return tuple(out)

    def hint(self, schedule: Schedule, horizon: int) -> dict[int, bool]:
        """Values of the transfer and knowledge variables along ``schedule`` (a packet on a
        slow arc joins its receiver's knowledge when it arrives)."""
        know = list(self.instance.holdings)
        out: dict[int, bool] = {}
        landing: dict[int, list[tuple[int, int]]] = {}
        for t in range(1, horizon + 1):
            rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
            new = list(know)
            for tr in rnd:
                mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
                for r in tr.receivers:
                    wait = self.delay.get((tr.sender, r), 0) if self.delay else 0
                    for p in bits(mask & ~know[r]):
                        x = self.sends(p, tr.sender, r, t)
                        if x is not False:
                            out[x] = True
                    if wait:
                        landing.setdefault(t + wait, []).append((r, mask))
                    else:
                        new[r] |= mask
            for r, mask in landing.pop(t, []):
                new[r] |= mask
            know = new
            self.hint_knowledge(out, know, t)
        return out
