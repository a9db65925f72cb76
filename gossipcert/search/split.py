"""The round search with split proofs: every "``R`` rounds are impossible" by cubes.

For instances where one solver call cannot decide the last step. After the closed-form
lower bound ``L``, the best verified schedule (``U`` rounds) and the relaxation step of
:mod:`gossipcert.proofs.relaxation` (which may raise ``L``), :class:`SplitSearch` runs
the one-piece search (descending probes, then ascending queries) for a share of the time
(:data:`ONE_PIECE_SECONDS`, :data:`ONE_PIECE_SHARE`); the easy horizons are settled there.
From the first open horizon ``r = L`` it then asks
:func:`gossipcert.search.split_refutation.refute_by_cubes`: a refutation of every cube (and
of the cover) raises ``L`` to ``r + 1``; a cube with a model gives a schedule of ``r``
rounds (verified), so ``U = r``. When the bounds meet, the evidence is the split refutation
of ``U - 1`` rounds, or, when the one-piece search refuted it, a one-piece DRAT proof as in
:mod:`gossipcert.search.rounds`. A time-out leaves ``feasible`` with ``[L, U]``; refuted cubes
stay in the cube store for the next run.

The one-piece search and the cubes use the search's encoding options (``--counting``,
``--encoding``), the cubes without the rules that name nodes; with a strict split, every
rule that a DRAT proof does not cover on its own is off.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from gossipcert.search.cube_plans import STRICT_NODES
from gossipcert.search.outcome import SolveResult
from gossipcert.search.rounds import _Search, _verified
from gossipcert.search.split_refutation import check_split_applies, refute_by_cubes
from gossipcert.statuses import QueryStatus, SolveStatus

#: the one-piece search gets at most this many seconds ...
ONE_PIECE_SECONDS = 120.0
#: ... and at most this share of the time left
ONE_PIECE_SHARE = 0.4


@dataclass(frozen=True)
class SplitSettings:
    """How to split: ``strict`` cover (tautology proof) or orbits of ``depth`` 1 or 2,
    ``jobs`` local workers or a Dask ``scheduler``, a ``store`` folder of refuted cubes,
    ``nodes`` fixed per strict cube, ``one_piece`` seconds for the one-piece search."""

    strict: bool = False
    depth: int = 1
    jobs: int = 1
    scheduler: str | None = None
    store: str | None = None
    nodes: int = STRICT_NODES
    #: seconds for the one-piece search first (at most :data:`ONE_PIECE_SHARE` of the limit)
    one_piece: float = ONE_PIECE_SECONDS


class SplitSearch(_Search):
    """:class:`gossipcert.search.rounds._Search` with the refutations done by cubes."""

    def __init__(self, *args: Any, split: SplitSettings, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        check_split_applies(self.instance)
        self.split = split
        if split.strict and self.options.not_implied():
            self.options = replace(
                self.options, symmetry=False, dominance=False, useless=False, canonical=False
            )

    def _cube_event(self, event: dict[str, Any]) -> None:
        """A cube's progress: shown, not logged."""
        if self.progress is not None:
            self.progress({**event, "time": round(time.monotonic() - self.start, 3)})

    def one_piece(self, enc: Any) -> bool:
        """The one-piece search (descending probes, ascending queries) within its share of
        the time; True when it settled the optimum."""
        now = time.monotonic()
        share = self.split.one_piece
        if self.deadline is not None:
            share = min(share, (self.deadline - now) * ONE_PIECE_SHARE)
        deadline, self.deadline = self.deadline, now + share
        try:
            return self.search(enc)
        finally:
            self.deadline = deadline

    def _run(self) -> SolveResult:
        try:
            self.lower_bound()
            self.upper_bound()
            if self.upper is not None and self.upper > self.lower:
                self.relaxation()
            if self.upper is not None and self.upper == self.lower:
                return self.result(SolveStatus.OPTIMAL)
            enc = self.encode()
            if enc is None:
                return self.result(
                    SolveStatus.FEASIBLE if self.best is not None else SolveStatus.UNKNOWN
                )
            if self.best is None:
                self.first_schedule()
            if self.one_piece(enc):
                return self.result(SolveStatus.OPTIMAL, self.prove())
            evidence = None  # the split refutation of the largest horizon refuted so far
            while self.upper is None or self.lower < self.upper:
                r = self.lower
                out = refute_by_cubes(
                    self.instance,
                    r,
                    strict=self.split.strict,
                    depth=self.split.depth,
                    jobs=self.split.jobs,
                    scheduler=self.split.scheduler,
                    store=self.split.store,
                    deadline=self.deadline,
                    progress=self._cube_event,
                    nodes=self.split.nodes,
                    options=self.options,
                )
                self.emit(
                    {
                        "event": "query",
                        "rounds": r,
                        "status": out.status,
                        "seconds": round(out.seconds, 3),
                        "cubes": out.cubes,
                        "refuted": out.refuted,
                    }
                )
                if out.status == QueryStatus.SAT and out.schedule is not None:
                    self.best = _verified(self.instance, out.schedule, "split solver's")
                    self.upper_source = "split-cube"
                    self.emit({"event": "upper-bound", "value": self.upper, "source": "split"})
                elif out.status == QueryStatus.UNSAT and out.evidence is not None:
                    self.unsat_at, self.lower, evidence = r, r + 1, out.evidence
                    self.emit({"event": "lower-bound", "value": self.lower, "source": "split"})
                else:
                    break
            if self.upper is None or self.lower < self.upper:
                status = SolveStatus.FEASIBLE if self.best is not None else SolveStatus.UNKNOWN
                return self.result(status, evidence or self._open_evidence())
            if evidence is not None and evidence["rounds"] + 1 == self.upper:
                return self.result(SolveStatus.OPTIMAL, evidence)
            return self.result(SolveStatus.OPTIMAL, self.prove())
        except KeyboardInterrupt:
            return self.interrupted()

    def _open_evidence(self) -> dict[str, Any]:
        refuted = self.unsat_at is not None and self.unsat_at + 1 == self.lower
        return self.claim() if refuted else self.lower_evidence
