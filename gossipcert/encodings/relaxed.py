"""The row-and-column relaxation of telephone dissemination: a few packets, a few destinations.

Telephone dissemination in ``R`` rounds means: for every packet ``p`` and every node ``v``
that demands it, there is a time-respecting path from a holder of ``p`` to ``v`` along the
calls. Seen as a matrix with a row per packet and a column per node, this formula keeps only
some rows ``P`` (packet ``p`` reaches every node that demands it: the knowledge variables of
packet ``p`` only, forwards in time) and some columns ``Q`` (every packet node ``q`` demands
reaches ``q``: one variable per node and round, backwards in time), all over the same call
variables. Every schedule of ``R`` rounds satisfies it (the soundness argument is in
:mod:`gossipcert.proofs.relaxation`); with every row, or with every column, it is exact.

Rules of one round (the telephone model, unbounded packets, no call limit):

- the calls form a matching of the graph's edges (self-loops are never calls);
- a call ``{u, v}`` carries everything each end knows to the other.

Variables (keys of the formula's ``IDPool``):

- ``("C", u, v, t)`` with ``u < v``: edge ``{u, v}`` is a call in round ``t`` (``1..R``);
- row ``p``: ``("K", p, v, t)``: node ``v`` knows packet ``p`` after round ``t`` (``0..R``),
  and ``("KV", p, v, u, t)``: ``v`` learns ``p`` from ``u`` in round ``t``;
- column ``q``: ``("Z", q, v, t)``: what node ``v`` holds after round ``t`` reaches ``q``
  by the end of round ``R``, and ``("ZV", q, v, u, t)``: it does so through the call
  ``{v, u}`` of round ``t + 1``.

Constraint families:

- *matching*: at most one call at each node per round;
- *row start*: ``K[p, v, 0]`` exactly for the holders ``v`` of ``p``;
- *row step*: ``K[p, v, t] -> K[p, v, t-1] or OR_u KV[p, v, u, t]`` and
  ``KV[p, v, u, t] -> C[v, u, t] and K[p, u, t-1]``;
- *row goal*: ``K[p, v, R]`` for every node ``v`` that demands ``p``;
- *column end*: ``Z[q, v, R]`` exactly for ``v = q``;
- *column step*: ``Z[q, v, t] -> Z[q, v, t+1] or OR_u ZV[q, v, u, t]`` and
  ``ZV[q, v, u, t] -> C[v, u, t+1] and Z[q, u, t+1]``;
- *column goal*: for every packet ``p`` that ``q`` demands and does not hold,
  ``OR_{v holds p} Z[q, v, 0]``.

Only implications towards the calls are written (a node may "know" less than it does), which
is all a refutation needs: the true knowledge and reach satisfy every clause.

References
----------
.. [1] S. M. Hedetniemi, S. T. Hedetniemi and A. L. Liestman, "A survey of gossiping and
   broadcasting in communication networks", Networks 18 (1988) (time-respecting paths).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
   (the telephone model).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gossipcert.encodings.formula import Formula
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, bits
from gossipcert.schedule import Schedule


def relaxation_applies(instance: Instance) -> bool:
    """Whether :class:`RelaxedTelephone` covers ``instance``: a model whose rounds are
    telephone rounds (calls both ways forming a matching, ``two_way_calls``) with unbounded
    packets, no call limit and no linear cost."""
    m = instance.model
    return (
        m.rules.two_way_calls
        and m.packet_cap is None
        and m.calls_per_round is None
        and m.tau is None
    )


class RelaxedTelephone:
    """The relaxed formula for ``rounds`` rounds; rows and columns are added one at a time.

    The calls and matching constraints are written first; :meth:`add_row` and
    :meth:`add_column` append their families, so :meth:`Formula.cnf_since` gives the clauses
    to hand to an incremental solver. Adding rows and columns in the same order always writes
    the same CNF.

    Parameters
    ----------
    instance : Instance
        Telephone model, unbounded packets, no call limit (:func:`relaxation_applies`).
    rounds : int

    Raises
    ------
    NotApplicableError
        Another model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> rel = RelaxedTelephone(parse_instance("path:4", "telephone", "gossip"), 2)
    >>> rel.add_row(0); rel.add_column(0)
    >>> (rel.rows, rel.columns)
    ([0], [0])
    """

    def __init__(self, instance: Instance, rounds: int) -> None:
        if not relaxation_applies(instance):
            raise NotApplicableError(
                "the row-and-column relaxation covers the telephone model with unbounded "
                f"packets and no call limit, not {instance.model.spec()}"
            )
        if rounds < 0:
            raise ValueError(f"rounds must be at least 0, not {rounds}")
        self.instance = instance
        self.rounds = rounds
        self.formula = Formula()
        n = instance.n
        # sorted, so that the formula does not depend on the order edges were inserted in
        self.nbrs = [sorted(u for u in instance.graph.adj[v] if u != v) for v in range(n)]
        self.edges = sorted((min(u, v), max(u, v)) for u, v in instance.graph.edges if u != v)
        self.rows: list[int] = []
        self.columns: list[int] = []
        for t in range(1, rounds + 1):
            for v in range(n):
                self.formula.at_most_one([self.call(v, u, t) for u in self.nbrs[v]])

    def call(self, u: int, v: int, t: int) -> int:
        """Variable: edge ``{u, v}`` is a call in round ``t``."""
        a, b = (u, v) if u < v else (v, u)
        return self.formula.var(("C", a, b, t))

    def add_row(self, p: int) -> None:
        """Packet ``p`` reaches every node that demands it (see the module docstring)."""
        inst, f, big_r = self.instance, self.formula, self.rounds
        if not 0 <= p < inst.n_packets or p in self.rows:
            raise ValueError(f"packet {p} is not a new packet of this instance")
        self.rows.append(p)

        def k(v: int, t: int) -> int:
            return f.var(("K", p, v, t))

        for v in range(inst.n):
            f.clause([k(v, 0)] if inst.holdings[v] >> p & 1 else [-k(v, 0)])
        for t in range(1, big_r + 1):
            for v in range(inst.n):
                vias = []
                for u in self.nbrs[v]:
                    x = f.var(("KV", p, v, u, t))
                    vias.append(x)
                    f.clause([-x, self.call(v, u, t)])
                    f.clause([-x, k(u, t - 1)])
                f.clause([-k(v, t), k(v, t - 1), *vias])
        for v in range(inst.n):
            if inst.demands[v] >> p & 1:
                f.clause([k(v, big_r)])

    def add_column(self, q: int) -> None:
        """Every packet node ``q`` demands reaches ``q`` (see the module docstring)."""
        inst, f, big_r = self.instance, self.formula, self.rounds
        if not 0 <= q < inst.n or q in self.columns:
            raise ValueError(f"node {q} is not a new node of this instance")
        self.columns.append(q)

        def z(v: int, t: int) -> int:
            return f.var(("Z", q, v, t))

        for v in range(inst.n):
            f.clause([z(v, big_r)] if v == q else [-z(v, big_r)])
        for t in range(big_r - 1, -1, -1):
            for v in range(inst.n):
                vias = []
                for u in self.nbrs[v]:
                    x = f.var(("ZV", q, v, u, t))
                    vias.append(x)
                    f.clause([-x, self.call(v, u, t + 1)])
                    f.clause([-x, z(u, t + 1)])
                f.clause([-z(v, t), z(v, t + 1), *vias])
        for p in bits(inst.demands[q] & ~inst.holdings[q]):
            f.clause([z(v, 0) for v in range(inst.n) if inst.holdings[v] >> p & 1])

    def add(self, rows: Iterable[int], columns: Iterable[int]) -> None:
        """Add rows, then columns."""
        for p in rows:
            self.add_row(p)
        for q in columns:
            self.add_column(q)

    def decode(self, value: Callable[[int], bool]) -> Schedule:
        """The calls of a model as a telephone schedule (not yet verified)."""
        return Schedule.from_calls(
            [
                [(u, v) for u, v in self.edges if value(self.call(u, v, t))]
                for t in range(1, self.rounds + 1)
            ]
        )
