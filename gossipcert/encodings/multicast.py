"""The multicast model (``multicast:p=K``, default ``p = 1``) of Gonzalez.

Rules of one round:

- every node sends at most one transmission, to any subset of its neighbours, and receives
  at most one transmission;
- a transmission carries one set of at most ``K`` packets its sender knows to all its
  receivers (any number without a cap);
- with ``calls=N`` at most ``N`` transmissions (senders) in the whole round.

Variables (besides those of :mod:`.transfer`):

- ``("A", u, v, t)``: ``v`` is among the receivers of ``u``'s transmission in round ``t``;
- ``("P", u, p, t)``: ``u``'s transmission of round ``t`` carries packet ``p`` (only where
  ``u`` may know ``p`` after ``t-1``);
- ``("S", u, t)``: ``u`` transmits in round ``t`` (what ``calls=N`` counts).

Constraint families (besides those of :mod:`.transfer`):

- *one in*: at most one incoming arc per node per round;
- *one packet set*: ``X[p,u,v,t] -> P[u,p,t]``, ``P[u,p,t] -> K[u,p,t-1]`` and
  ``sum_p P[u,p,t] <= K`` (with a cap), in place of the per-arc cap;
- *sender*: ``A[u,v,t] -> S[u,t]``; *call limit* over ``S`` (:mod:`.sequential`). The
  canonical order of :mod:`.sequential` is not used here (a transmission's node set is not
  fixed by one variable).

References
----------
.. [1] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
"""

from __future__ import annotations

from collections.abc import Callable

from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.instance import ModelKind, bits
from gossipcert.schedule import Round, Schedule, Transmission


class MulticastEncoding(TransferEncoding):
    """Multicast with per-packet transfers; see the module docstring."""

    kinds = (ModelKind.MULTICAST,)
    uses = ("prune", "symmetry", "learn_cap", "useless", "packet_count")

    def arc(self, u: int, v: int, t: int) -> int:
        """Variable: ``v`` receives ``u``'s transmission of round ``t``."""
        return self.formula.var(("A", u, v, t))

    def carries(self, u: int, p: int, t: int) -> int | bool:
        """Literal: ``u``'s transmission of round ``t`` carries ``p`` (False if it cannot)."""
        if self.knows(u, p, t - 1) is False:
            return False
        return self.formula.var(("P", u, p, t))

    def sender(self, u: int, t: int) -> int:
        """Variable: ``u`` transmits in round ``t``."""
        return self.formula.var(("S", u, t))

    def add_ports(self, t: int) -> None:
        f = self.formula
        for v in range(self.instance.n):
            f.at_most_one([self.arc(u, v, t) for u in self.nbrs[v]])
            if self.calls is not None:
                for w in self.nbrs[v]:
                    f.clause([-self.arc(v, w, t), self.sender(v, t)])

    def units(self, t: int) -> list[tuple[frozenset[int], int]]:
        return [(frozenset((u,)), self.sender(u, t)) for u in range(self.instance.n)]

    def sent_literals(self, u: int, t: int) -> list[int]:
        """The packets of ``u``'s one transmission of round ``t``."""
        return [
            c for p in range(self.instance.n_packets) if (c := self.carries(u, p, t)) is not False
        ]

    def on_send(self, p: int, u: int, v: int, t: int, x: int) -> None:
        self.formula.clause([-x, self.carries(u, p, t)])

    def add_packet_cap(self, t: int) -> None:
        f = self.formula
        for u in range(self.instance.n):
            ps: list[int] = []
            for p in range(self.instance.n_packets):
                c = self.carries(u, p, t)
                if c is False:
                    continue
                assert not isinstance(c, bool)
                ps.append(c)
                f.clause([-c, self.knows(u, p, t - 1)])
            if self.cap is not None:
                f.at_most(ps, self.cap)

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        out: list[Transmission] = []
        for u in range(self.instance.n):
            receivers = tuple(v for v in self.nbrs[u] if value(self.arc(u, v, t)))
            if not receivers:
                continue
            mask = 0
            for p in range(self.instance.n_packets):
                c = self.carries(u, p, t)
                if c is not False and value(c):
                    mask |= 1 << p
            if mask:
                out.append(Transmission(u, receivers, mask))
        return tuple(out)

    def hint(self, schedule: Schedule, horizon: int) -> dict[int, bool]:
        out = super().hint(schedule, horizon)
        know = list(self.instance.holdings)
        for t in range(1, horizon + 1):
            rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
            new = list(know)
            for tr in rnd:
                mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
                if self.calls is not None:
                    out[self.sender(tr.sender, t)] = True
                for p in bits(mask):
                    c = self.carries(tr.sender, p, t)
                    if c is not False:
                        out[c] = True
                for r in tr.receivers:
                    new[r] |= mask
            know = new
        return out
