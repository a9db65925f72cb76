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

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (half-duplex links).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
   (telegraph model).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from gossipcert.encodings.knowledge import KnowledgeEncoding
from gossipcert.instance import ModelKind
from gossipcert.schedule import Round, Transmission


class HalfDuplexEncoding(KnowledgeEncoding):
    """Time-expanded half-duplex model; see the module docstring."""

    kinds = (ModelKind.HALF_DUPLEX,)

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
