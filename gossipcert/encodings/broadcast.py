"""The single-packet (broadcast) encoding: who informs whom, and when.

When an instance has one packet (``broadcast:S`` from one source or from a set of sources,
or a custom problem with one packet), knowledge is one bit per node, and a schedule is an
arborescence rooted at the sources with each node's informing round. This encoding states
exactly that, in ``O(n R)`` informed variables and ``O(m R)`` call variables, instead of the
generic knowledge encoding.

Rules encoded (the point-to-point one-port models: telephone, half-duplex and single-port,
any packet cap, no call limit; with one packet these models have the same schedules up to
useless transmissions):

- the holders (sources) are informed before round 1; every other node is informed after
  round ``t`` when it was informed after round ``t-1`` or receives in round ``t``;
- a node sends in round ``t`` only if it was informed after round ``t-1`` (a packet received
  in round ``t`` is forwarded in round ``t+1`` at the earliest);
- a node sends to at most one neighbour and receives from at most one per round.

Transmissions to a node that is already informed change nothing and are left out: deleting
them from a schedule of any of the three models leaves a schedule of the same length and the
same informed sets. What remains in a round is a set of arcs from informed to uninformed
nodes, so no node both sends and receives in it: a directed matching, which is a valid round
in each of the three models (as one-way calls in the telephone model). So every schedule
maps to a model of the formula and every model decodes into a schedule: the encoding is exact.

Variables (from the formula's ``IDPool``, keyed by tuples):

- ``("I", v, t)``: node ``v`` is informed after round ``t``. Holders are ``True`` and nodes
  farther than ``t`` from every holder ``False`` (distance pruning); no variable for them.
- ``("S", u, v, t)``: ``u`` informs ``v`` in round ``t`` (arc ``u -> v``); only for a
  non-holder ``v`` and a ``u`` within ``t - 1`` of a holder.
- ``("B", v, t)``: node ``v`` sends or receives in round ``t`` (dominance only).
- ``("D", r)``: selector, "every demand is met after round ``r``" (see
  :class:`~gossipcert.encodings.horizon.HorizonEncoding`).
- ``("Z", v, t, r)``, ``("WC", t, r, ...)``, ``("WT", r, ...)``: the idle budget of horizon
  ``r``, its idle indicators and counters (:mod:`gossipcert.encodings.waste`).

Constraint families, for every round ``t``:

- *informing*: ``I[v,t] <-> I[v,t-1] or OR_u S[u,v,t]`` (three clause forms: justification
  ``I[v,t] -> I[v,t-1] or OR_u S[u,v,t]``, persistence ``I[v,t-1] -> I[v,t]``, receipt
  ``S[u,v,t] -> I[v,t]``), so ``I`` is exactly the informed set of the decoded schedule;
- *sender informed*: ``S[u,v,t] -> I[u,t-1]``;
- *receiver uninformed*: ``S[u,v,t] -> not I[v,t-1]``;
- *ports*: at most one ``S[u,., t]`` per sender and at most one ``S[., v, t]`` per receiver;
- *demand*: ``D_r -> I[v,r]`` for every demanding node;
- *pendant deadline* (implied): ``D_r -> I[v, r - c]`` when ``v`` has ``c`` demanding
  neighbours of degree one that hold nothing, since those are informed by ``v`` alone, one
  per round, after ``v`` is;
- *dominance* (optional, sound but not implied; off with ``--strict``): an informed node and
  an uninformed neighbour are not both idle, ``I[u,t-1] and not I[v,t-1] -> B[u,t] or
  B[v,t]``, with ``B[v,t] -> OR`` of the arcs at ``v`` in round ``t``. Sound because the
  model is monotone: in the first round where such a pair is idle, adding the call
  ``u -> v`` only enlarges the informed sets, and the transmissions of later rounds that
  become useless are deleted without shrinking them; repeating this round by round gives a
  schedule of the same length that satisfies the rule;
- *idle budget* (implied, on in every search): with ``N_0`` holders and ``M`` nodes to
  inform, at most ``2^R N_0 - M`` informing opportunities are lost, an idle node in round
  ``t`` losing ``2^(R-t)`` of them (:mod:`gossipcert.encodings.waste`);
- *counting* (optional, implied: ``--counting``): ``|{v : I[v,t]}| <= |holders| * 2^t``,
  since every informed node informs at most one node per round. A totalizer over ``L``
  literals cut at ``k`` has about ``2 L k`` clauses, quadratic in the graph when ``2^t`` nears
  ``n`` (a 10,240-literal totalizer on butterfly 10 took about 24 GB), so a round is counted
  only while ``L k <= COUNTING_CELLS``; leaving out an implied constraint keeps the encoding
  exact, and the counting costs at most ``O(COUNTING_CELLS)`` clauses per round.

References
----------
.. [1] S. M. Hedetniemi, S. T. Hedetniemi and A. L. Liestman, "A survey of gossiping and
   broadcasting in communication networks", Networks 18 (1988) 319-349 (minimum broadcast
   time, multiple sources).
.. [2] N. Ivanova, D. Haugland and B. H. Tvedt, integer-programming models of the minimum
   broadcast time problem, 2021 (an arborescence rooted at the sources with informing
   times, which this encoding states in propositional form).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.horizon import HorizonEncoding
from gossipcert.encodings.options import EncodingOptions, earliest_rounds
from gossipcert.encodings.waste import idle_budget
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.schedule import Round, Schedule, Transmission

#: the largest ``literals * bound`` product of a round's counting constraint that is encoded;
#: a larger one is left out (it is implied), so direct callers with the default options get
#: a formula linear in ``n R`` and ``m R``
COUNTING_CELLS = 1 << 14


def _neg(lit: Lit) -> Lit:
    """The negation of a literal or a constant."""
    if isinstance(lit, bool):
        return not lit
    return -lit


def broadcast_applies(instance: Instance) -> bool:
    """Whether :class:`BroadcastEncoding` encodes ``instance`` (one packet, a model where a
    node passes it to at most one neighbour per round and receives at most one transmission,
    :attr:`~gossipcert.models.spec.Model.informs_one`; no limit on calls per round).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> broadcast_applies(parse_instance("ring:5", "telephone", "broadcast:0"))
    True
    >>> broadcast_applies(parse_instance("ring:5", "telephone", "gossip"))
    False
    """
    return (
        instance.n_packets == 1
        and instance.model.informs_one
        and instance.model.calls_per_round is None
    )


class BroadcastEncoding(HorizonEncoding):
    """Single-packet encoding; see the module docstring.

    Parameters
    ----------
    instance : Instance
        One packet; telephone, half-duplex or single-port without a call limit.
    options : EncodingOptions, optional
    formula : Formula, optional
        Where the constraints go (a new one by default).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> enc = BroadcastEncoding(parse_instance("path:4", "telephone", "broadcast:0"))
    >>> enc.extend_to(3)
    >>> enc.knows(3, 0, 2), enc.knows(0, 0, 0)
    (False, True)
    """

    uses: tuple[str, ...] = (
        "prune",
        "counting",
        "dominance",
        "symmetry",
        "broadcast",
        "waste",
    )

    def __init__(
        self,
        instance: Instance,
        options: EncodingOptions | None = None,
        formula: Formula | None = None,
    ) -> None:
        if not broadcast_applies(instance):
            raise UnsupportedModelError(
                f"the broadcast encoding needs one packet and a point-to-point one-port model "
                f"without calls=N (got {instance.n_packets} packets, {instance.model.spec()})"
            )
        self.instance = instance
        self.options = (options or EncodingOptions()).only(self.uses)
        self.formula = formula or Formula()
        self.horizon = 0
        self.selectors: dict[int, int] = {}
        n = instance.n
        self.nbrs = [sorted(instance.graph.adj[v]) for v in range(n)]
        self.holder = [bool(h & 1) for h in instance.holdings]
        self.n_holders = sum(self.holder)
        self.dist: list[int | None] = earliest_rounds(instance)[0]
        # demanding non-holder leaves hanging at each node: informed one per round by it
        self.pendants = [0] * n
        for v in range(n):
            if len(self.nbrs[v]) == 1 and instance.demands[v] & 1 and not self.holder[v]:
                self.pendants[self.nbrs[v][0]] += 1
        # the arcs u -> v that may carry the packet in round t exist once dist(u) <= t - 1
        self._arcs_from: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for u in range(n):
            for v in self.nbrs[u]:
                if not self.holder[v]:
                    self._arcs_from[u].append((u, v))

    # -------------------------------------------------------------- variables

    def informed(self, v: int, t: int) -> Lit:
        """Literal for "``v`` is informed after round ``t``" (or a constant)."""
        if self.holder[v]:
            return True
        if t <= 0:
            return False
        d = self.dist[v]
        if d is None or (self.options.prune and d > t):
            return False
        return self.formula.var(("I", v, t))

    def knows(self, v: int, p: int, t: int) -> Lit:
        """Node ``v`` knows packet ``p`` (the only one, ``p = 0``) after round ``t``."""
        return self.informed(v, t)

    def sends(self, u: int, v: int, t: int) -> Lit:
        """Literal for "``u`` informs ``v`` in round ``t``" (False where impossible)."""
        if self.holder[v] or self.informed(u, t - 1) is False:
            return False
        return self.formula.var(("S", u, v, t))

    def arcs(self, t: int) -> list[tuple[int, int]]:
        """The arcs ``u -> v`` with a variable in round ``t``, sorted."""
        out: list[tuple[int, int]] = []
        for u in range(self.instance.n):
            if self.informed(u, t - 1) is not False:
                out.extend(self._arcs_from[u])
        return out

    # -------------------------------------------------------------- constraints

    def extend_to(self, horizon: int) -> None:
        """Add rounds ``self.horizon + 1 .. horizon``."""
        for t in range(self.horizon + 1, horizon + 1):
            self._add_round(t)
        self.horizon = max(self.horizon, horizon)

    def _add_round(self, t: int) -> None:
        f = self.formula
        n = self.instance.n
        var = f.var
        arcs = self.arcs(t)
        out_of: list[list[int]] = [[] for _ in range(n)]
        into: list[list[int]] = [[] for _ in range(n)]
        for u, v in arcs:
            s = var(("S", u, v, t))
            out_of[u].append(s)
            into[v].append(s)
        before = [self.informed(v, t - 1) for v in range(n)]
        now = [self.informed(v, t) for v in range(n)]
        for u, v in arcs:
            s = var(("S", u, v, t))
            f.clause([-s, before[u]])  # sender informed
            f.clause([-s, _neg(before[v])])  # receiver uninformed
            f.clause([-s, now[v]])  # receipt
        for v in range(n):
            k = now[v]
            if isinstance(k, bool):
                continue
            prev = before[v]
            f.clause([-k, prev, *into[v]])  # justification
            f.clause([_neg(prev), k])  # persistence
        for v in range(n):
            f.at_most_one(out_of[v])
            f.at_most_one(into[v])
        if self.options.dominance:
            self._add_dominance(t, arcs, out_of, into, before)
        if self.options.counting and t < 64:
            lits = [x for x in now if not isinstance(x, bool)]
            fixed = sum(1 for x in now if x is True)
            bound = self.n_holders * 2**t - fixed
            if bound < len(lits) and len(lits) * max(bound, 1) <= COUNTING_CELLS:
                f.at_most(lits, bound)

    def _add_dominance(
        self,
        t: int,
        arcs: list[tuple[int, int]],
        out_of: list[list[int]],
        into: list[list[int]],
        before: list[Lit],
    ) -> None:
        f = self.formula
        busy: dict[int, int] = {}

        def b(v: int) -> int:
            if v not in busy:
                busy[v] = f.var(("B", v, t))
                f.clause([-busy[v], *out_of[v], *into[v]])
            return busy[v]

        for u, v in arcs:
            if before[u] is False or before[v] is True:
                continue
            f.clause([_neg(before[u]), before[v], b(u), b(v)])

    def selector(self, r: int) -> int:
        """``D_r``: every demand met after round ``r``, with the pendant deadlines."""
        if r in self.selectors:
            return self.selectors[r]
        d = super().selector(r)
        for v, c in enumerate(self.pendants):
            if c:
                deadline = self.informed(v, r - c) if c <= r else False
                self.formula.clause([-d, deadline])
        if self.options.waste:
            idle_budget(self, r, d)
        return d

    # -------------------------------------------------------------- decoding

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        """The transmissions of round ``t`` (one packet, one receiver each)."""
        out: list[Transmission] = []
        for u, v in self.arcs(t):
            if value(self.formula.var(("S", u, v, t))):
                out.append(Transmission(u, (v,), 1))
        return tuple(out)

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        """The round-1 arc variables keyed by ``(u, v)``, for symmetry breaking."""
        return [((u, v), self.formula.var(("S", u, v, 1))) for u, v in self.arcs(1)]

    def hint(self, schedule: Schedule, horizon: int) -> dict[int, bool]:
        """Values of the variables along ``schedule`` (a CP-SAT hint).

        Only useful transmissions (to a node not yet informed, from an informed one) are
        kept, the first one per receiver and per sender in each round.
        """
        n = self.instance.n
        know = list(self.holder)
        out: dict[int, bool] = {}
        for t in range(1, horizon + 1):
            rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
            new = list(know)
            sent: set[int] = set()
            for tr in rnd:
                for r in tr.receivers:
                    if not know[tr.sender] or know[r] or new[r] or tr.sender in sent:
                        continue
                    s = self.sends(tr.sender, r, t)
                    if isinstance(s, bool):
                        continue
                    out[s] = True
                    sent.add(tr.sender)
                    new[r] = True
            know = new
            for v in range(n):
                k = self.informed(v, t)
                if not isinstance(k, bool):
                    out[k] = know[v]
        return out
