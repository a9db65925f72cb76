"""The single-port full-duplex model (``single-port:p=K``, default ``p = 1``).

Rules of one round:

- every node sends at most one transmission, to one neighbour, and receives at most one;
  the two partners may differ (Dimakopoulos's full-duplex links are ``p = 1``);
- a transmission carries at most ``K`` packets its sender knows (any number without a cap);
- with ``calls=N`` at most ``N`` transmissions in the whole round.

Variables (besides those of :mod:`.transfer`): ``("A", u, v, t)``: arc ``u -> v`` is used in
round ``t``.

Constraint families (besides those of :mod:`.transfer`):

- *one out, one in*: at most one outgoing and at most one incoming arc per node per round;
- *packet cap*, *call limit*, *canonical order* (:mod:`.transfer`, :mod:`.sequential`).

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (full-duplex links).
"""

from __future__ import annotations

from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.instance import ModelKind


class SinglePortEncoding(TransferEncoding):
    """Single-port full-duplex with per-packet transfers; see the module docstring."""

    kinds = (ModelKind.SINGLE_PORT,)

    def arc(self, u: int, v: int, t: int) -> int:
        """Variable: arc ``u -> v`` is used in round ``t``."""
        return self.formula.var(("A", u, v, t))

    def add_ports(self, t: int) -> None:
        for v in range(self.instance.n):
            self.formula.at_most_one([self.arc(v, u, t) for u in self.nbrs[v]])
            self.formula.at_most_one([self.arc(u, v, t) for u in self.nbrs[v]])

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:
        return [(frozenset((u, v)), self.arc(u, v, t)) for u, v in self.arcs]
