"""The half-duplex model (H1, telegraph) with unbounded packets.

Rules of one round:

- the arcs used form a directed matching: every node sends to one neighbour, or receives
  from one, or idles;
- a transmission ``u -> v`` carries everything ``u`` knows.

Variables: ``("A", u, v, t)``: arc ``u -> v`` is used in round ``t`` (the link ``u -> v``).

Constraint families (besides the knowledge model of :mod:`.knowledge`):

- *directed matching*: at most one arc, in or out, at each node per round;
- *dominance* (optional): the directed matching is maximal, i.e. for every edge ``{u, v}``
  one of its two arcs or another arc at ``u`` or at ``v`` is used. Sound because the model is
  monotone: an extra arc only adds knowledge, which never makes a later round impossible.
- *last round* (implied, optional: ``last_round``, on with ``--counting``): with the demands
  required after round ``R``, at most ``floor(n/2)`` nodes miss a demand after round
  ``R - 1``. A node learns only by receiving, so each of them receives in round ``R``, each
  from its own sender, and senders do not receive: the receivers of a round are at most
  half the nodes. (Telephone has no such count: every node of a call receives.) Variables
  ``("U", v, t)``: ``v`` misses a demand after round ``t`` (forced true when it does), and
  ``("UD", v, r)``: the same, counted only under the selector ``D_r``.

The Fibonacci-like growth of half-duplex knowledge is a property of the whole knowledge
matrix (:mod:`gossipcert.closed_forms.half_duplex`), not of a node: one node can gather ``2^t``
packets in ``t`` rounds, so the per-node counting of :mod:`.knowledge` keeps ``2^t``.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (half-duplex links).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
   (telegraph model).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from gossipcert.encodings.knowledge import KnowledgeEncoding
from gossipcert.instance import ModelKind, bits
from gossipcert.schedule import Round, Transmission


class HalfDuplexEncoding(KnowledgeEncoding):
    """Time-expanded half-duplex model; see the module docstring."""

    kinds = (ModelKind.HALF_DUPLEX,)
    uses = (*KnowledgeEncoding.uses, "last_round")

    def selector(self, r: int) -> int:
        fresh = r not in self.selectors
        d = super().selector(r)
        if fresh and self.options.last_round and r >= 2:
            self._add_last_round(d, r)
        return d

    def _add_last_round(self, d: int, r: int) -> None:
        """Under ``d``: at most ``floor(n/2)`` nodes miss a demand after round ``r - 1``."""
        f = self.formula
        counted: list[int] = []
        for v in range(self.instance.n):
            need = [self.knows(v, p, r - 1) for p in bits(self.instance.demands[v])]
            if all(k is True for k in need):
                continue
            missing = f.var(("U", v, r - 1))  # v misses a demand after round r-1 (at least)
            for k in need:
                if k is not True:
                    f.clause([missing] if k is False else [k, missing])
            under = f.var(("UD", v, r))  # the same, counted only when d holds
            f.clause([-d, -missing, under])
            f.clause([-under, d])
            counted.append(under)
        if len(counted) > self.instance.n // 2:
            f.at_most(counted, self.instance.n // 2)

    def arc(self, u: int, v: int, t: int) -> int:
        """Variable: arc ``u -> v`` is used in round ``t``."""
        return self.formula.var(("A", u, v, t))

    def link(self, u: int, v: int, t: int) -> int:
        return self.arc(u, v, t)

    def _touching(self, v: int, t: int) -> list[int]:
        return [self.arc(v, u, t) for u in self.nbrs[v]] + [self.arc(u, v, t) for u in self.nbrs[v]]

    def add_ports(self, t: int) -> None:
        f = self.formula
        for v in range(self.instance.n):
            f.at_most_one(self._touching(v, t))
        if self.options.dominance:
            for u, v in self.edges:
                f.clause(self._touching(u, t) + [a for a in self._touching(v, t)])

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        out: list[Transmission] = []
        for u in range(self.instance.n):
            for v in self.nbrs[u]:
                if value(self.arc(u, v, t)):
                    out.append(Transmission(u, (v,), None))
        return tuple(out)

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        return [((u, v), self.arc(u, v, 1)) for u in range(self.instance.n) for v in self.nbrs[u]]
