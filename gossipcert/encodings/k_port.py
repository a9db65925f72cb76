"""The k-port model (``k-port:k=K,p=P``, default ``p = 1``).

Rules of one round:

- every node sends at most ``K`` transmissions, each to one neighbour and at most one to
  each neighbour, and receives at most ``K``; its partners may differ (``K = 1`` is the
  single-port model);
- a transmission carries at most ``P`` packets its sender knows;
- with ``calls=N`` at most ``N`` transmissions in the whole round.

Variables (besides those of :mod:`.transfer`): ``("A", u, v, t)``: arc ``u -> v`` is used in
round ``t`` (one transmission on it).

Constraint families (besides those of :mod:`.transfer`):

- *k out, k in*: at most ``K`` outgoing and at most ``K`` incoming arcs per node per round
  (a cardinality constraint each: a totalizer in CNF, a linear constraint in CP-SAT);
- *packet cap*, *call limit*, *canonical order* (:mod:`.transfer`, :mod:`.sequential`); the
  learn cap and the packet counting of :mod:`.transfer` count ``K`` receipts a node.

References
----------
.. [1] J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal and D. Weathersby, "Efficient algorithms for
   all-to-all communications in multiport message-passing systems", IEEE TPDS 8(11), 1997.
"""

from __future__ import annotations

from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.instance import ModelKind


class KPortEncoding(TransferEncoding):
    """k-port with per-packet transfers; see the module docstring."""

    kinds = (ModelKind.K_PORT,)

    def arc(self, u: int, v: int, t: int) -> int:
        """Variable: arc ``u -> v`` is used in round ``t``."""
        return self.formula.var(("A", u, v, t))

    def add_ports(self, t: int) -> None:
        k = self.instance.model.ports
        assert k is not None
        for v in range(self.instance.n):
            self.formula.at_most([self.arc(v, u, t) for u in self.nbrs[v]], k)
            self.formula.at_most([self.arc(u, v, t) for u in self.nbrs[v]], k)

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:
        return [(frozenset((u, v)), self.arc(u, v, t)) for u, v in self.arcs]
