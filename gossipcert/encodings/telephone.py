"""The telephone model (F1, full-duplex one-port) with unbounded packets.

Rules of one round:

- the calls form a matching of the graph's edges;
- a call ``{u, v}`` is two transmissions, ``u -> v`` and ``v -> u``, each carrying
  everything its sender knows.

Variables: ``("C", u, v, t)`` with ``u < v``: edge ``{u, v}`` is a call in round ``t``. The link
``u -> v`` and the link ``v -> u`` of round ``t`` are both this variable.

Constraint families (besides the knowledge model of :mod:`.knowledge`):

- *matching*: at most one call at each node per round;
- *dominance* (optional): every round's matching is maximal, i.e. for every edge ``{u, v}``
  the edge itself or another edge at ``u`` or at ``v`` is a call. Sound because the model is
  monotone: adding a call only adds knowledge, and more knowledge never makes a later round
  impossible, so any schedule can be completed to one with maximal matchings and the same
  length.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from gossipcert.encodings.knowledge import KnowledgeEncoding
from gossipcert.instance import ModelKind
from gossipcert.schedule import Round, Transmission


class TelephoneEncoding(KnowledgeEncoding):
    """Time-expanded telephone model; see the module docstring."""

    kinds = (ModelKind.TELEPHONE,)

    def call(self, u: int, v: int, t: int) -> int:
        """Variable: edge ``{u, v}`` is a call in round ``t``."""
        a, b = (u, v) if u < v else (v, u)
        return self.formula.var(("C", a, b, t))

    def link(self, u: int, v: int, t: int) -> int:
        return self.call(u, v, t)

    def add_ports(self, t: int) -> None:
        f = self.formula
        for v in range(self.instance.n):
            f.at_most_one([self.call(v, u, t) for u in self.nbrs[v]])
        if self.options.dominance:
            for u, v in self.edges:
                f.clause(
                    [self.call(u, v, t)]
                    + [self.call(u, w, t) for w in self.nbrs[u] if w != v]
                    + [self.call(v, w, t) for w in self.nbrs[v] if w != u]
                )

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        out: list[Transmission] = []
        for u, v in self.edges:
            if value(self.call(u, v, t)):
                out += [Transmission(u, (v,), None), Transmission(v, (u,), None)]
        return tuple(out)

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        return [(frozenset((u, v)), self.call(u, v, 1)) for u, v in self.edges]
