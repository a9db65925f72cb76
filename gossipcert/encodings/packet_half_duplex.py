"""The half-duplex model with a packet cap (``half-duplex:p=K``), per-packet transfers.

Rules of one round:

- the arcs used form a directed matching: every node sends to one neighbour, or receives
  from one, or idles;
- a transmission carries at most ``K`` packets its sender knows (any number without a cap);
- with ``calls=N`` at most ``N`` transmissions in the whole round.

Variables (besides those of :mod:`.transfer`): ``("A", u, v, t)``: arc ``u -> v`` is used in
round ``t``.

Constraint families (besides those of :mod:`.transfer`):

- *directed matching*: at most one arc, in or out, at each node per round;
- *packet cap*, *call limit*, *canonical order* (:mod:`.transfer`, :mod:`.sequential`).

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (half-duplex links,
   ``p = 1``).
"""

from __future__ import annotations

from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.instance import ModelKind


class PacketHalfDuplexEncoding(TransferEncoding):
    """Half-duplex with per-packet transfers; see the module docstring."""

    kinds = (ModelKind.HALF_DUPLEX,)

    def arc(self, u: int, v: int, t: int) -> int:
        """Variable: arc ``u -> v`` is used in round ``t``."""
        return self.formula.var(("A", u, v, t))

    def add_ports(self, t: int) -> None:
        for v in range(self.instance.n):
            self.formula.at_most_one(
                [self.arc(v, u, t) for u in self.nbrs[v]]
                + [self.arc(u, v, t) for u in self.nbrs[v]]
            )

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:
        return [(frozenset((u, v)), self.arc(u, v, t)) for u, v in self.arcs]
