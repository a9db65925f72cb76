"""The time-expanded per-packet transfer model, shared by every packet-limited model.

Where :mod:`.knowledge` lets an active link carry everything its sender knows, this model
says which packets cross each arc, so that a transmission can be capped at ``p`` packets and
a multicast carries one packet set to all its receivers.

Rules encoded (docs/models.rst):

- ``know_0(v)`` is the holding of ``v``; knowledge only grows;
- ``v`` learns ``p`` in round ``t`` only if ``p`` crosses an arc ``u -> v`` in round ``t``,
  which needs ``u`` to know ``p`` after round ``t-1`` (forwarding waits one round) and the
  arc to be used in round ``t`` under the model's port rules (the model modules);
- with ``p = K`` at most ``K`` packets cross an arc per round (telephone: each way);
- ``calls=N`` (``sequential`` is ``calls=1``): at most ``N`` calls (telephone) or
  transmissions (other models) in the whole round (:mod:`.sequential`);
- a schedule of ``r`` rounds solves the instance when every demand holds after round ``r``.

Variables (from the formula's ``IDPool``, keyed by tuples):

- ``("K", v, p, t)``: node ``v`` knows packet ``p`` after round ``t``; an under-approximation,
  as in :mod:`.knowledge` (every true ``K`` is justified). Constants where the holdings or the
  distances fix it.
- ``("X", p, u, v, t)``: packet ``p`` crosses arc ``u -> v`` in round ``t``; only where ``u``
  may know ``p`` after ``t-1`` and ``v`` may not have known it from the start.
- ``("D", r)``: selector, "every demand is met after round ``r``".
- the model's arc variables (see the model modules).

Constraint families, for every packet ``p``, arc ``u -> v`` and round ``t``:

- *justification*: ``K[v,p,t] -> K[v,p,t-1] or OR_u X[p,u,v,t]``;
- *sender knows*: ``X[p,u,v,t] -> K[u,p,t-1]``;
- *arc used*: ``X[p,u,v,t] -> arc(u,v,t)``;
- *packet cap*: ``sum_p X[p,u,v,t] <= K`` (the model may replace it, as multicast does);
- *demand*: ``D_r -> K[v,p,r]``.

Pruning and dominance (each with its argument):

- *distance pruning* (implied): ``K[v,p,t]`` and ``X[p,u,v,t]`` do not exist before the
  distance from the nearest holder of ``p`` allows them; a packet moves one edge per round.
- *learn cap* (implied, ``p``-capped models): ``|K_t(v)| - |K_{t-1}(v)| <= k p`` with ``k``
  the node's ports (:attr:`~gossipcert.models.spec.Model.ports`; 1 in the one-port models);
  every new ``K`` is justified by a transfer on one of the at most ``k`` arcs into ``v`` used
  in the round (or, in telephone, the one call), each carrying at most ``p`` packets.
- *no useless sends* (sound): ``X[p,u,v,t] -> not K[v,p,t-1]``; a packet the receiver already
  knows adds nothing, so dropping it from a schedule keeps it valid and of the same length.
- *canonical order* (sound, sequential models): see :mod:`.sequential`.
- *packet counting* (implied, ``p``-capped models): a node set gains at most ``p`` packets
  per receiver per round, and the port rules bound its receivers; one cardinality
  constraint per set and round (:mod:`.packet_counting`, with each family's argument).
- *symmetry* (sound): lex-leader on the first round's arcs
  (:mod:`gossipcert.symmetry.automorphisms`);
  an automorphism maps a schedule to one of the same length, with every packet relabelled
  along with its holders.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999.
.. [2] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
.. [3] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86, 1998.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from gossipcert import graphs
from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.horizon import HorizonEncoding
from gossipcert.encodings.options import EncodingOptions, earliest_rounds
from gossipcert.encodings.packet_counting import add_packet_counts
from gossipcert.encodings.sequential import add_call_limit, add_canonical_order
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.schedule import Round, Schedule, Transmission


class TransferEncoding(HorizonEncoding):
    """The per-packet model, extended one round at a time.

    Subclasses supply the arc literals of a round, their port constraints and the decoding.

    Parameters
    ----------
    instance : Instance
    options : EncodingOptions
    formula : Formula, optional
    """

    #: the models this encoding implements
    kinds: tuple[ModelKind, ...] = ()
    #: the fields of :class:`EncodingOptions` this encoding reads (the others are off)
    uses: tuple[str, ...] = (
        "prune",
        "symmetry",
        "learn_cap",
        "useless",
        "canonical",
        "packet_count",
    )
    #: added to every packet-counting bound; only tests change it (a negative value is unsound)
    count_slack: int = 0

    def __init__(
        self,
        instance: Instance,
        options: EncodingOptions | None = None,
        formula: Formula | None = None,
    ) -> None:
        if instance.model.kind not in self.kinds:
            raise UnsupportedModelError(
                f"{type(self).__name__} does not encode {instance.model.spec()}"
            )
        uses = self.uses
        if instance.model.calls_per_round is None:
            uses = tuple(u for u in uses if u != "canonical")
        if instance.model.packet_cap is None:
            uses = tuple(u for u in uses if u not in ("learn_cap", "packet_count"))
        self.instance = instance
        self.options = (options or EncodingOptions()).only(uses)
        self.formula = formula or Formula()
        self.horizon = 0
        self.cap = instance.model.packet_cap
        self.calls = instance.model.calls_per_round
        # sorted, so that the formula does not depend on the order edges were inserted in
        self.nbrs = [sorted(instance.graph.adj[v]) for v in range(instance.n)]
        self.edges = sorted((min(u, v), max(u, v)) for u, v in instance.graph.edges)
        self.arcs = [(u, v) for u in range(instance.n) for v in self.nbrs[u]]
        #: latency - 1 of the arcs whose latency is not 1 (all-port only; make_instance
        #: refuses a latency elsewhere): a transfer entering u -> v in round t is known at v
        #: after round t + delay
        self.delay = {
            (u, v): lat - 1
            for (a, b), lat in graphs.latencies(instance.graph).items()
            for u, v in ((a, b), (b, a))
        }
        self.earliest = earliest_rounds(instance)
        self.selectors: dict[int, int] = {}
        #: the node sets of the packet counting, with their receiver bounds (on first use)
        self.counting_sets: list[tuple[frozenset[int], int]] | None = None
        #: per node, the facts that each need a transfer touching it (on first use)
        self.busy_facts: list[list[tuple[int, int]]] | None = None

    # -------------------------------------------------------------- variables

    def knows(self, v: int, p: int, t: int) -> Lit:
        """Literal for "``v`` knows ``p`` after round ``t``" (or a constant)."""
        if self.instance.holdings[v] >> p & 1:
            return True
        if t <= 0:
            return False
        e = self.earliest[p][v]
        if e is None or (self.options.prune and e > t):
            return False
        return self.formula.var(("K", v, p, t))

    def sends(self, p: int, u: int, v: int, t: int) -> Lit:
        """Literal for "packet ``p`` crosses (enters) arc ``u -> v`` in round ``t``" (or
        False); with a latency ``L`` it reaches ``v`` after round ``t + L - 1``."""
        if t < 1:
            return False
        late = t + self.delay.get((u, v), 0) if self.delay else t
        if self.knows(u, p, t - 1) is False or isinstance(self.knows(v, p, late), bool):
            return False
        return self.formula.var(("X", p, u, v, t))

    def arc(self, u: int, v: int, t: int) -> int:
        """Literal for "``u`` transmits to ``v`` in round ``t``"."""
        raise NotImplementedError

    def add_ports(self, t: int) -> None:
        """Port constraints of round ``t``."""
        raise NotImplementedError

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:
        """The calls or transmissions of round ``t``: the nodes involved and a literal each.

        What ``calls=N`` counts; the canonical order compares the node sets.
        """
        raise NotImplementedError

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        """The round-1 arc variables with a node-level key, for symmetry breaking."""
        return [((u, v), self.arc(u, v, 1)) for u, v in self.arcs]

    def add_packet_cap(self, t: int) -> None:
        """At most ``p`` packets cross each arc in round ``t``."""
        if self.cap is None:
            return
        for u, v in self.arcs:
            xs = [x for p in range(self.instance.n_packets) if (x := self.sends(p, u, v, t))]
            self.formula.at_most(xs, self.cap)

    def sent_literals(self, u: int, t: int) -> list[int]:
        """Literals whose count is the number of packets ``u`` sends in round ``t``.

        Point-to-point: the transfers on ``u``'s outgoing arcs (it uses at most one).
        """
        out: list[int] = []
        for v in self.nbrs[u]:
            for p in range(self.instance.n_packets):
                x = self.sends(p, u, v, t)
                if x is not False:
                    out.append(x)
        return out

    def on_send(self, p: int, u: int, v: int, t: int, x: int) -> None:
        """Extra constraints on a transfer variable (multicast: one packet set per sender)."""

    # -------------------------------------------------------------- constraints

    def extend_to(self, horizon: int) -> None:
        """Add rounds ``self.horizon+1 ..`` up to ``horizon``."""
        f = self.formula
        inst = self.instance
        for t in range(self.horizon + 1, horizon + 1):
            self.add_ports(t)
            if self.calls is not None:
                add_call_limit(self, t)
                if self.options.canonical:
                    add_canonical_order(self, t)
            for v in range(inst.n):
                for p in range(inst.n_packets):
                    k = self.knows(v, p, t)
                    if isinstance(k, bool):
                        continue
                    prev = self.knows(v, p, t - 1)
                    xs: list[Lit] = []
                    for u in self.nbrs[v]:
                        wait = self.delay.get((u, v), 0) if self.delay else 0
                        x = self.sends(p, u, v, t - wait)
                        if x is False:
                            continue
                        assert not isinstance(x, bool)
                        xs.append(x)
                        if wait:
                            continue  # its own clauses were added in its round t - wait
                        ku = self.knows(u, p, t - 1)
                        f.clause([-x, ku])  # sender knows
                        f.clause([-x, self.arc(u, v, t)])  # arc used
                        if self.options.useless and not isinstance(prev, bool):
                            f.clause([-x, -prev])  # no useless sends
                        self.on_send(p, u, v, t, x)
                    f.clause([-k, prev, *xs])  # justification
            if self.delay:
                self._add_slow_transfers(t)
            self.add_packet_cap(t)
            if self.options.learn_cap and self.cap is not None:
                self._add_learn_cap(t)
            if self.options.packet_count and self.cap is not None:
                add_packet_counts(self, t, self.count_slack)
        self.horizon = max(self.horizon, horizon)

    def _add_slow_transfers(self, t: int) -> None:
        """The clauses of the transfers entering a slow arc in round ``t`` (sender knows,
        arc used, no useless sends), written in their own round: they justify knowledge
        ``L - 1`` rounds later, and a transfer that arrives after the horizon must still be
        a valid send."""
        f = self.formula
        for u, v in sorted(self.delay):
            for p in range(self.instance.n_packets):
                x = self.sends(p, u, v, t)
                if x is False:
                    continue
                assert not isinstance(x, bool)
                f.clause([-x, self.knows(u, p, t - 1)])  # sender knows
                f.clause([-x, self.arc(u, v, t)])  # arc used
                prev = self.knows(v, p, t - 1)
                if self.options.useless and not isinstance(prev, bool):
                    f.clause([-x, -prev])  # no useless sends
                self.on_send(p, u, v, t, x)

    def _add_learn_cap(self, t: int) -> None:
        # sum_p [K_t] + sum_p (1 - [K_{t-1}]) <= ports * cap + n_packets
        inst = self.instance
        learn = inst.model.port_packets
        if learn is None:
            return  # no port bounds what a node receives
        for v in range(inst.n):
            lits, fixed = self.learned_literals(v, t)
            self.formula.at_most(lits, learn + inst.n_packets - fixed)

    def learned_literals(self, v: int, t: int) -> tuple[list[int], int]:
        """What ``v`` learns in round ``t`` as a count: ``K[v,q,t]`` and ``not K[v,q,t-1]``
        over the packets, whose true literals number ``n_packets`` plus what ``v`` learns;
        returns the literals that are not constants and how many constants are true."""
        lits: list[int] = []
        fixed = 0
        for q in range(self.instance.n_packets):
            now, before = self.knows(v, q, t), self.knows(v, q, t - 1)
            if now is True:
                fixed += 1
            elif now is not False:
                lits.append(now)
            if before is False:
                fixed += 1
            elif before is not True:
                lits.append(-before)
        return lits, fixed

    # -------------------------------------------------------------- decoding and hints

    def sent_mask(self, u: int, v: int, t: int, value: Callable[[int], bool]) -> int:
        """Bitmask of the packets crossing ``u -> v`` in round ``t`` in a model."""
        mask = 0
        for p in range(self.instance.n_packets):
            x = self.sends(p, u, v, t)
            if x is not False and value(x):
                mask |= 1 << p
        return mask

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        """Point-to-point: one transmission per arc that carries a packet."""
        out: list[Transmission] = []
        for u, v in self.arcs:
            if value(self.arc(u, v, t)):
                mask = self.sent_mask(u, v, t, value)
                if mask:
                    out.append(Transmission(u, (v,), mask))
        return tuple(out)

    def hint(self, schedule: Schedule, horizon: int) -> dict[int, bool]:
        """Values of the arc, transfer and knowledge variables along ``schedule``."""
        inst = self.instance
        know = list(inst.holdings)
        out: dict[int, bool] = {}
        for t in range(1, horizon + 1):
            rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
            new = list(know)
            for tr in rnd:
                mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
                for r in tr.receivers:
                    out[self.arc(tr.sender, r, t)] = True
                    for p in bits(mask & ~know[r]):
                        x = self.sends(p, tr.sender, r, t)
                        if x is not False:
                            out[x] = True
                    new[r] |= mask
            know = new
            self.hint_knowledge(out, know, t)
        return out
