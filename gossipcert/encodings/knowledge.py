"""The time-expanded knowledge model shared by every model in which a node receives from at
most one neighbour per round (telephone and half-duplex, unbounded packets).

Rules encoded (docs/models.rst):

- ``know_0(v)`` is the holding of ``v``; knowledge only grows;
- ``v`` learns ``p`` in round ``t`` only from the one neighbour ``u`` it receives from in
  round ``t`` (a *link* ``u -> v`` that is active), and only if ``u`` knew ``p`` after round
  ``t-1``: a packet received in round ``t`` is forwarded in round ``t+1`` at the earliest;
- with unbounded packets an active link carries everything its sender knows;
- a schedule of ``r`` rounds solves the instance when every demand ``(v, p)`` holds after
  round ``r``.

Variables (from the formula's ``IDPool``, keyed by tuples):

- ``("K", v, p, t)``: node ``v`` knows packet ``p`` after round ``t`` (``1 <= t``).
  ``K`` under-approximates knowledge: every true ``K`` is justified by a transfer (the node
  really knows the packet), which is all that feasibility needs. Pairs fixed by the
  holdings (``True``) or by distance (``False``) get no variable.
- ``("D", r)``: selector, "every demand is met after round ``r``" (an assumption literal).
- model variables for the links of round ``t`` (see :mod:`.telephone`, :mod:`.half_duplex`).

Constraint families, for every node ``v``, packet ``p`` and round ``t``:

- *justification*: ``K[v,p,t] -> K[v,p,t-1] or OR_u link(u,v,t)`` over the neighbours ``u``
  that may know ``p`` after ``t-1``;
- *transfer*: ``K[v,p,t] and link(u,v,t) -> K[v,p,t-1] or K[u,p,t-1]`` for every neighbour
  ``u``; exact because ``v`` has at most one active incoming link per round;
- *demand*: ``D_r -> K[v,p,r]`` for every demand;
- *distance pruning*: ``K[v,p,t]`` is false when every holder of ``p`` is more than ``t``
  edges from ``v``;
- *counting* (implied, optional: ``--counting``; on the suite of ``benchmarks/exact.py`` it
  slows both back-ends down, so it is off by default): ``|{p : K[v,p,t]}|`` is at most the sum of
  the ``2^t`` largest holdings, since ``know_t(v)`` is the union of the holdings of at most
  ``2^t`` nodes; and ``|{v : K[v,p,t]}| <= 2^t * |holders(p)|``, since every node that knows
  ``p`` passes it to at most one other node per round.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
   (``R >= ceil(log n) + odd(n)``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.horizon import HorizonEncoding
from gossipcert.encodings.options import EncodingOptions, earliest_rounds
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.schedule import Round, Schedule


class KnowledgeEncoding(HorizonEncoding):
    """The time-expanded model, extended one round at a time.

    Subclasses supply the links of a round and their port constraints.

    Parameters
    ----------
    instance : Instance
    options : EncodingOptions
    formula : Formula, optional
        Where the constraints go (a new one by default).
    """

    #: the models this encoding implements
    kinds: tuple[ModelKind, ...] = ()
    #: the fields of :class:`EncodingOptions` this encoding reads (the others are off)
    uses: tuple[str, ...] = ("prune", "counting", "dominance", "symmetry")

    def __init__(
        self,
        instance: Instance,
        options: EncodingOptions | None = None,
        formula: Formula | None = None,
    ) -> None:
        if instance.model.kind not in self.kinds or not instance.model.unbounded:
            raise UnsupportedModelError(
                f"{type(self).__name__} does not encode {instance.model.spec()}"
            )
        if instance.model.calls_per_round is not None:
            raise UnsupportedModelError(
                f"the exact encodings do not cover calls=N yet ({instance.model.spec()})"
            )
        self.instance = instance
        self.options = (options or EncodingOptions()).only(self.uses)
        self.formula = formula or Formula()
        self.horizon = 0
        self.graph = instance.graph
        # sorted, so that the formula does not depend on the order edges were inserted in
        self.nbrs = [sorted(instance.graph.adj[v]) for v in range(instance.n)]
        self.edges = sorted((min(u, v), max(u, v)) for u, v in instance.graph.edges)
        self.earliest = earliest_rounds(instance)
        self.holder_count = [0] * instance.n_packets
        for mask in instance.holdings:
            for p in bits(mask):
                self.holder_count[p] += 1
        sizes = sorted((m.bit_count() for m in instance.holdings), reverse=True)
        self._prefix = [0]
        for s in sizes:
            self._prefix.append(self._prefix[-1] + s)
        self.selectors: dict[int, int] = {}

    # -------------------------------------------------------------- variables

    def knows(self, v: int, p: int, t: int) -> Lit:
        """Literal for "``v`` knows ``p`` after round ``t``" (or a constant)."""
        if self.instance.holdings[v] >> p & 1:
            return True
        if t == 0:
            return False
        e = self.earliest[p][v]
        if e is None or (self.options.prune and e > t):
            return False
        return self.formula.var(("K", v, p, t))

    def link(self, u: int, v: int, t: int) -> int:
        """Literal for "in round ``t`` node ``v`` receives from ``u``"."""
        raise NotImplementedError

    def add_ports(self, t: int) -> None:
        """Port constraints (and dominance) of round ``t``."""
        raise NotImplementedError

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        """The transmissions of round ``t`` in a model of the formula."""
        raise NotImplementedError

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        """The round-1 link variables with a node-level key, for symmetry breaking."""
        raise NotImplementedError

    # -------------------------------------------------------------- constraints

    def extend_to(self, horizon: int) -> None:
        """Add rounds ``horizon+1 .. `` up to ``horizon``."""
        f = self.formula
        inst = self.instance
        for t in range(self.horizon + 1, horizon + 1):
            self.add_ports(t)
            for v in range(inst.n):
                for p in range(inst.n_packets):
                    k = self.knows(v, p, t)
                    if isinstance(k, bool):
                        continue
                    prev = self.knows(v, p, t - 1)
                    links: list[Lit] = []
                    for u in self.nbrs[v]:
                        ku = self.knows(u, p, t - 1)
                        if ku is False:
                            continue
                        lk = self.link(u, v, t)
                        links.append(lk)
                        f.clause([-k, -lk, prev, ku])  # transfer
                    f.clause([-k, prev, *links])  # justification
            if self.options.counting:
                self._add_counting(t)
        self.horizon = max(self.horizon, horizon)

    def _add_counting(self, t: int) -> None:
        inst = self.instance
        f = self.formula
        cap = self._prefix[min(len(self._prefix) - 1, 2**t)] if t < 64 else None
        if cap is not None:
            for v in range(inst.n):
                lits, fixed = self._row(self.knows(v, p, t) for p in range(inst.n_packets))
                f.at_most(lits, cap - fixed)
        if t < 64:
            for p in range(inst.n_packets):
                lits, fixed = self._row(self.knows(v, p, t) for v in range(inst.n))
                f.at_most(lits, self.holder_count[p] * 2**t - fixed)

    @staticmethod
    def _row(items: Iterable[Lit]) -> tuple[list[int], int]:
        lits: list[int] = []
        fixed = 0
        for x in items:
            if x is True:
                fixed += 1
            elif x is not False:
                lits.append(x)
        return lits, fixed

    def hint(self, schedule: Schedule, horizon: int) -> dict[int, bool]:
        """Values of the link and knowledge variables along ``schedule`` (a CP-SAT hint)."""
        inst = self.instance
        know = list(inst.holdings)
        out: dict[int, bool] = {}
        for t in range(1, horizon + 1):
            rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
            new = list(know)
            for tr in rnd:
                for r in tr.receivers:
                    out[self.link(tr.sender, r, t)] = True
                    new[r] |= know[tr.sender]
            know = new
            self.hint_knowledge(out, know, t)
        return out
