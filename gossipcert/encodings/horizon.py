"""What every time-expanded encoding shares: demand selectors and decoding, round by round.

An encoding that derives from :class:`HorizonEncoding` provides ``extend_to(horizon)``,
``knows(v, p, t)`` (a literal, or a constant where the value is fixed) and
``decode_round(t, value)``; it gets from here:

- ``selector(r)``: the assumption literal ``D_r``, "every demand is met after round ``r``"
  (clauses ``D_r -> K[v,p,r]`` for every demand ``(v, p)``), made once per ``r``;
- ``require(r)``: the same as a hard unit clause, for a standalone formula;
- ``decode(r, value)``: the schedule of rounds ``1..r`` of a model;
- ``hint_knowledge(out, know, t)``: the knowledge variables of round ``t`` along a schedule
  (part of every encoding's CP-SAT hint).
"""

from __future__ import annotations

from collections.abc import Callable

from gossipcert.encodings.formula import Formula, Lit
from gossipcert.instance import Instance, bits
from gossipcert.schedule import Round, Schedule


class HorizonEncoding:
    """Base class: demand selectors, hard demands and decoding (see the module docstring)."""

    formula: Formula
    instance: Instance
    selectors: dict[int, int]

    def extend_to(self, horizon: int) -> None:  # pragma: no cover - every encoding has one
        """Add the rounds up to ``horizon``."""
        raise NotImplementedError

    def knows(self, v: int, p: int, t: int) -> Lit:  # pragma: no cover
        """Node ``v`` knows packet ``p`` after round ``t``."""
        raise NotImplementedError

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:  # pragma: no cover
        """The transmissions of round ``t`` in a model."""
        raise NotImplementedError

    def selector(self, r: int) -> int:
        """The assumption literal ``D_r``: every demand is met after round ``r``."""
        if r in self.selectors:
            return self.selectors[r]
        self.extend_to(r)
        d = self.formula.var(("D", r))
        for v in range(self.instance.n):
            for p in bits(self.instance.demands[v]):
                self.formula.clause([-d, self.knows(v, p, r)])
        self.selectors[r] = d
        return d

    def require(self, r: int) -> None:
        """Add the demands at round ``r`` as hard constraints (for a standalone formula)."""
        self.formula.clause([self.selector(r)])

    def decode(self, r: int, value: Callable[[int], bool]) -> Schedule:
        """The schedule of rounds ``1..r`` in a model (``value(var)`` is its truth value)."""
        return Schedule(tuple(self.decode_round(t, value) for t in range(1, r + 1)))

    def hint_knowledge(self, out: dict[int, bool], know: list[int], t: int) -> None:
        """Set ``out[K[v,p,t]]`` from the bitmasks ``know`` (each node's packets after
        round ``t``) for every knowledge variable of round ``t``."""
        for v in range(self.instance.n):
            for p in range(self.instance.n_packets):
                k = self.knows(v, p, t)
                if not isinstance(k, bool):
                    out[k] = bool(know[v] >> p & 1)
