"""The round search with split proofs: every "``R`` rounds are impossible" by cubes.

For instances where one solver call cannot decide the last step, :class:`SplitSearch` skips
the incremental queries. After the closed-form lower bound ``L`` and the best verified
schedule (``U`` rounds), it asks :func:`gossipcert.exact.cubes.refute_by_cubes` whether
``U - 1`` rounds are possible: a cube with a model gives a shorter schedule (verified, and
``U`` drops), a refutation of every cube (and of the cover) certifies ``U``. A time-out
leaves ``feasible`` with ``[L, U]``; refuted cubes stay in the cube store for the next run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from gossipcert.encodings import EncodingOptions
from gossipcert.exact.backends import Status, make_backend
from gossipcert.exact.cubes import STRICT_NODES, base_options, refute_by_cubes
from gossipcert.exact.search import PROBE_SECONDS, SolveResult, _Search, _verified


@dataclass(frozen=True)
class SplitSettings:
    """How to split: ``strict`` cover (tautology proof) or orbits of ``depth`` 1 or 2,
    ``jobs`` local workers or a Dask ``scheduler``, a ``store`` folder of refuted cubes,
    ``nodes`` fixed per strict cube."""

    strict: bool = False
    depth: int = 1
    jobs: int = 1
    scheduler: str | None = None
    store: str | None = None
    nodes: int = STRICT_NODES


class SplitSearch(_Search):
    """:class:`gossipcert.exact.search._Search` with the refutations done by cubes."""

    def __init__(self, *args: Any, split: SplitSettings, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.split = split
        self.options = base_options(split.strict)

    def _cube_event(self, event: dict[str, Any]) -> None:
        """A cube's progress: shown, not logged."""
        if self.progress is not None:
            self.progress({**event, "time": round(time.monotonic() - self.start, 3)})

    def probe(self) -> None:
        """Descending probes first (as the one-piece search does): can the incremental
        solver, with the search's own options, shorten the best schedule in a short slice?
        Only schedules count; the last step is left to the cubes."""
        if self.upper is None or self.lower >= self.upper:
            return
        split_options, lower = self.options, self.lower
        self.options = EncodingOptions.for_search(strict=self.split.strict)
        try:
            enc = self.encode()
            if enc is None:
                return
            solver = make_backend(self.backend, enc.formula)
            try:
                while self.upper is not None and self.lower < self.upper - 1:
                    now = time.monotonic()
                    end = now + PROBE_SECONDS
                    if self.deadline is not None:
                        end = min(end, now + (self.deadline - now) / 4)
                    if self.query(enc, solver, self.upper - 1, end) is not Status.SAT:
                        break
            finally:
                solver.close()
        finally:
            # a probe's refutation is the solver's word only: the cubes prove it again
            self.options, self.lower, self.unsat_at = split_options, lower, None

    def run(self) -> SolveResult:
        try:
            self.lower_bound()
            self.upper_bound()
            if self.best is None:
                self.first_schedule()
            self.probe()
            while self.upper is not None and self.lower < self.upper:
                r = self.upper - 1
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
                if out.status == "sat" and out.schedule is not None:
                    self.best = _verified(self.instance, out.schedule, "split solver's")
                    self.upper_source = "split-cube"
                    self.emit({"event": "upper-bound", "value": self.upper, "source": "split"})
                    continue
                if out.status == "unsat" and out.evidence is not None:
                    self.unsat_at = r
                    self.lower = r + 1
                    self.lower_evidence = out.evidence
                    self.emit({"event": "lower-bound", "value": self.lower, "source": "split"})
                    return self.result("optimal", out.evidence)
                break
            if self.upper is not None and self.lower == self.upper:
                return self.result("optimal")
            return self.result("feasible" if self.best is not None else "unknown")
        except KeyboardInterrupt:
            return self.interrupted()
