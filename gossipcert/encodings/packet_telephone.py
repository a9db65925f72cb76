"""The telephone model with a packet cap (``telephone:p=K``) and sequential calls.

Rules of one round:

- the calls form a matching of the graph's edges;
- a call ``{u, v}`` is two transmissions, ``u -> v`` and ``v -> u``, each carrying at most
  ``K`` packets its sender knows (any number without a cap);
- with ``calls=N`` (``sequential`` is ``calls=1``) at most ``N`` calls in the whole round.

Variables (besides those of :mod:`.transfer`): ``("C", u, v, t)`` with ``u < v``: edge
``{u, v}`` is a call in round ``t``; both arcs of the edge are this variable.

Constraint families (besides those of :mod:`.transfer`):

- *matching*: at most one call at each node per round;
- *packet cap*: at most ``K`` packets each way of a call (:mod:`.transfer`);
- *call limit* and *canonical order* (:mod:`.sequential`).

References
----------
.. [1] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86, 1998 (telephone with ``p``, sequential calls).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2.
"""

from __future__ import annotations

from collections.abc import Hashable

from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.instance import ModelKind


class PacketTelephoneEncoding(TransferEncoding):
    """Telephone with per-packet transfers; see the module docstring."""

    kinds = (ModelKind.TELEPHONE,)

    def call(self, u: int, v: int, t: int) -> int:
        """Variable: edge ``{u, v}`` is a call in round ``t``."""
        a, b = (u, v) if u < v else (v, u)
        return self.formula.var(("C", a, b, t))

    def arc(self, u: int, v: int, t: int) -> int:
        return self.call(u, v, t)

    def add_ports(self, t: int) -> None:
        for v in range(self.instance.n):
            self.formula.at_most_one([self.call(v, u, t) for u in self.nbrs[v]])

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:
        return [(frozenset((u, v)), self.call(u, v, t)) for u, v in self.edges]

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        return [(frozenset((u, v)), self.call(u, v, 1)) for u, v in self.edges]
