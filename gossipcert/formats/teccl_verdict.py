"""The verdict on a TE-CCL schedule in TE-CCL's own model: does it replay to its own numbers,
is it valid, and is it optimal as TE-CCL claims?

:func:`judge_teccl` reads the file (:mod:`.teccl`), replays it (:mod:`.teccl_replay`), and
compares its epochs with gossipcert's lower bound in the same model (:mod:`.teccl_bounds`);
where the bound is lower, it builds schedules of its own (:mod:`.teccl_construct`, and with
``exact_seconds`` the CNF of :mod:`.teccl_exact` for allgather, whose refutations, proofs
checked, raise the bound). The verdict on TE-CCL's claim that its schedule is optimal:

- ``confirmed``: the lower bound equals its epochs (optimal, certified);
- ``refuted``: TE-CCL's run minimised the epochs (:data:`CLAIMS`, ``epochs``) and gossipcert
  has a schedule with fewer, replayed and valid (given in TE-CCL's own format, so TE-CCL's
  tools and gossipcert read it back);
- ``shorter``: the same, where TE-CCL's run did not minimise the epochs (its early stop, or
  its AlltoAll linear program): fewer epochs exist, but TE-CCL claimed no least epoch count
  there, so no claim is refuted;
- ``open``: the optimum lies between the bound and the best schedule;
- ``invalid``: the schedule breaks a rule of the model (no claim to judge).

What TE-CCL's solver optimised is read from its code (``teccl/scheduler.py``,
``teccl/solvers/allgather.py``, ``alltoall.py``) and its examples' settings
(``run_experiments.sh``): its AllGather runs search the least horizon (a binary search, each
horizon's MILP stopped at its first feasible schedule); its early-stop runs solve one horizon
to a 30 % MIP gap and minimise the sum of the epochs at which demands are met; its AlltoAll is
one linear program over a fixed horizon that rewards early delivery. The output file does not
record which; :func:`teccl_claim` takes it from the collective and TE-CCL's folder names.

References
----------
.. [1] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024; github.com/microsoft/TE-CCL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gossipcert.errors import SpecError
from gossipcert.formats.findings import Finding
from gossipcert.formats.teccl import TecclSchedule, read_teccl_schedule, teccl_json
from gossipcert.formats.teccl_bounds import EpochBound, epoch_lower_bound
from gossipcert.formats.teccl_construct import greedy_allgather, greedy_alltoall
from gossipcert.statuses import QueryStatus

__all__ = ["CLAIMS", "TecclJudgement", "judge_teccl", "teccl_claim", "verdict_of"]

#: what TE-CCL's solver optimised in a run, and so what it claims of the epochs (module
#: docstring); only ``epochs`` is a claim that its epoch count is the least
CLAIMS = {
    "epochs": "TE-CCL searched the least epochs (a binary search over horizons)",
    "early-stop": (
        "TE-CCL's early stop solves one horizon to a 30 % MIP gap and minimises the sum of "
        "the demands' epochs, not the last: it claims no least epoch count"
    ),
    "alltoall-lp": (
        "TE-CCL's AlltoAll is one linear program over a fixed horizon rewarding early "
        "delivery, not minimising the last epoch: it claims no least epoch count"
    ),
}


def teccl_claim(collective: str, path: str = "") -> str:
    """What TE-CCL's run optimised (a key of :data:`CLAIMS`): ``alltoall-lp`` for an
    alltoall, ``early-stop`` for an allgather under a folder TE-CCL names ``*Early_Stop*``,
    else ``epochs``.

    Examples
    --------
    >>> teccl_claim("allgather", "NDv2_output/4_chassis/AllGather/Fast_Early_Stop/1KB.json")
    'early-stop'
    >>> teccl_claim("allgather", "mesh_4.json"), teccl_claim("alltoall")
    ('epochs', 'alltoall-lp')
    """
    if collective == "alltoall":
        return "alltoall-lp"
    return "early-stop" if "early_stop" in path.lower() else "epochs"


def verdict_of(theirs: int, lower: int, best: int, valid: bool, claim: str) -> str:
    """The verdict (module docstring) from TE-CCL's epochs, gossipcert's lower bound and best
    schedule, whether TE-CCL's schedule is valid, and what its run claimed.

    Examples
    --------
    >>> verdict_of(106, 99, 99, True, "epochs"), verdict_of(106, 99, 99, True, "early-stop")
    ('refuted', 'shorter')
    >>> verdict_of(35, 35, 35, True, "alltoall-lp"), verdict_of(43, 41, 43, True, "epochs")
    ('confirmed', 'open')
    """
    if claim not in CLAIMS:
        raise SpecError(f"unknown TE-CCL claim {claim!r}; choose one of {', '.join(CLAIMS)}")
    if not valid:
        return "invalid"
    if lower >= theirs:
        return "confirmed"
    if best < theirs:
        return "refuted" if claim == "epochs" else "shorter"
    return "open"


@dataclass
class TecclJudgement:
    """What :func:`judge_teccl` found (see :meth:`to_json` for the fields)."""

    source: str
    schedule: TecclSchedule = field(repr=False)
    replayed: int
    finish_replayed: float
    findings: list[Finding]
    bound: EpochBound
    best: int
    best_how: str
    verdict: str
    better: dict[str, Any] | None = field(default=None, repr=False)
    claim: str = "epochs"

    @property
    def theirs(self) -> int:
        return self.schedule.epochs

    @property
    def finish(self) -> float:
        return float(self.schedule.reported["4-Collective_Finish_Time"])

    @property
    def same(self) -> bool:
        """The replay gives exactly the file's epochs and finish time."""
        return self.replayed == self.theirs and self.finish_replayed == self.finish

    @property
    def valid(self) -> bool:
        return not self.findings

    @property
    def optimum(self) -> str:
        """The certified optimum, or the bracket ``[lower, upper]``."""
        low = self.bound.value
        return str(low) if low == self.best else f"[{low}, {self.best}]"

    def sentence(self) -> str:
        """The verdict on TE-CCL's claim in words.

        Returns
        -------
        str
            ``TE-CCL's N epochs: optimal, certified``, ``not optimal: M, schedule attached
            (verified)``, ``fewer epochs: M, schedule attached (verified); no claim refuted:
            ...`` (TE-CCL's run did not minimise the epochs), ``open: the optimum is in
            [L, U]`` or ``invalid in TE-CCL's model: ...``.

        Examples
        --------
        >>> from gossipcert.formats.teccl_bounds import EpochBound
        >>> from gossipcert.formats.teccl_machines import mesh
        >>> from gossipcert.formats.teccl_model import EpochModel
        >>> from gossipcert.formats.teccl import TecclSchedule
        >>> s = TecclSchedule("allgather", EpochModel(mesh(2), 1.0, 0.01),
        ...                   {"3-Epochs_Required": 5, "4-Collective_Finish_Time": 0.05},
        ...                   None, False, [0, 1, 2, 3])
        >>> TecclJudgement("f", s, 5, 0.05, [], EpochBound(2, "cut", ""), 2, "greedy",
        ...                "refuted").sentence()
        'not optimal: 2 (optimal), schedule attached (verified)'
        """
        if self.verdict == "invalid":
            return f"invalid in TE-CCL's model: {self.findings[0].message}"
        if self.verdict == "confirmed":
            return f"{self.schedule.origin}'s {self.theirs} epochs: optimal, certified"
        exact = " (optimal)" if self.best == self.bound.value else ""
        if self.verdict == "refuted":
            return f"not optimal: {self.best}{exact}, schedule attached (verified)"
        if self.verdict == "shorter":
            return (
                f"fewer epochs: {self.best}{exact}, schedule attached (verified); no claim "
                f"refuted: {CLAIMS[self.claim]}"
            )
        return f"open: the optimum is in [{self.bound.value}, {self.best}]"

    def to_json(self) -> dict[str, Any]:
        """The judgement as JSON-ready data.

        Returns
        -------
        dict
            ``source``, ``collective``, ``machine``, ``epoch``, ``epoch_rule``, ``chunk_gb``,
            ``chunk_inferred``, ``epochs`` and ``epochs_replayed``, ``finish_time`` and
            ``finish_time_replayed`` (seconds), ``same``, ``valid``, ``errors``,
            ``lower_bound`` (value, kind, detail), ``best``, ``best_source``, ``optimum``
            (a number or ``[L, U]``), ``claim`` (what TE-CCL's run optimised, a key of
            :data:`CLAIMS`), ``verdict`` and ``sentence``.

        Examples
        --------
        >>> from gossipcert.formats.teccl_bounds import EpochBound
        >>> from gossipcert.formats.teccl_machines import mesh
        >>> from gossipcert.formats.teccl_model import EpochModel
        >>> from gossipcert.formats.teccl import TecclSchedule
        >>> s = TecclSchedule("allgather", EpochModel(mesh(2), 1.0, 0.01),
        ...                   {"3-Epochs_Required": 2, "4-Collective_Finish_Time": 0.02},
        ...                   "fast x1", True, [0, 1, 2, 3])
        >>> j = TecclJudgement("f", s, 2, 0.02, [], EpochBound(2, "cut", ""), 2, "TE-CCL",
        ...                    "confirmed")
        >>> j.to_json()["optimum"], j.to_json()["same"]
        ('2', True)
        """
        s = self.schedule
        return {
            "source": self.source,
            "collective": s.collective,
            "machine": s.model.machine.spec,
            "epoch": s.model.epoch,
            "epoch_rule": s.epoch_rule,
            "chunk_gb": s.model.chunk,
            "chunk_inferred": s.chunk_inferred,
            "epochs": self.theirs,
            "epochs_replayed": self.replayed,
            "finish_time": self.finish,
            "finish_time_replayed": self.finish_replayed,
            "same": self.same,
            "valid": self.valid,
            "errors": [f.to_json() for f in self.findings],
            "lower_bound": self.bound.to_json(),
            "best": self.best,
            "best_source": self.best_how,
            "optimum": self.optimum,
            "claim": self.claim,
            "verdict": self.verdict,
            "sentence": self.sentence(),
        }


def _improve(
    sched: TecclSchedule,
    lower: int,
    tries: int,
    exact_seconds: float,
    progress: Callable[[str], None] | None,
) -> tuple[int, str, dict[str, Any] | None]:
    """gossipcert's best schedule: (epochs, how, TE-CCL JSON); TE-CCL's when none is shorter."""
    model = sched.model
    limit = 3 * sched.epochs + 50
    best: tuple[int, str, dict[str, Any] | None] = (sched.epochs, "TE-CCL", None)
    if sched.collective == "allgather":
        got = greedy_allgather(model, sched.chunks, tries=tries, limit=limit, progress=progress)
        if got is not None and got.epochs < best[0]:
            best = (got.epochs, "greedy", teccl_json(model, got.replay, flows=got.flows))
        if exact_seconds > 0 and best[0] > lower:
            from gossipcert.formats.teccl_exact import decide_allgather

            out = decide_allgather(model, best[0] - 1, sched.chunks, seconds=exact_seconds)
            if out.status == QueryStatus.SAT and out.replay is not None:
                data = teccl_json(model, out.replay, flows=list(out.flows))
                best = (out.replay.epochs, "CNF", data)
        return best
    got2 = greedy_alltoall(model, tries=tries, limit=limit, progress=progress)
    if got2 is not None and got2[1].epochs < best[0]:
        paths, rep = got2
        best = (rep.epochs, "greedy", teccl_json(model, rep, paths=paths))
    return best


def judge_teccl(
    path: str,
    machine: str | None = None,
    chunk: float | None = None,
    improve: bool = True,
    tries: int = 4,
    exact_seconds: float = 0.0,
    progress: Callable[[str], None] | None = None,
    switch_copy: bool = True,
    switch_to_gpu_link_on: bool = False,
    claim: str | None = None,
) -> TecclJudgement:
    """Judge a TE-CCL schedule file in TE-CCL's model (module docstring).

    Parameters
    ----------
    path : str
        A TE-CCL schedule (JSON, or ``.json.gz``).
    machine : str, optional
        ``ndv2:K``, ``dgx2:2``, ``amd:K``, ``mesh:S`` or ``dgx1`` (default: from the file).
    chunk : float, optional
        The chunk size in GB (default: from the file).
    improve : bool
        Look for a shorter schedule where the bound leaves a gap.
    tries : int
        Chunk orders the greedy constructions try.
    exact_seconds : float
        Seconds for the allgather CNF (0: not used).
    progress : callable, optional
        Called with a line as the search for a shorter schedule goes on.
    switch_copy, switch_to_gpu_link_on : bool
        TE-CCL's switch semantics (its input's options; its examples' defaults: switches copy,
        a switch-to-GPU link is instantaneous). The output file does not record them.
    claim : str, optional
        What TE-CCL's run optimised, a key of :data:`CLAIMS` (default: :func:`teccl_claim`
        of the collective and the path): only ``epochs`` makes fewer epochs a refutation.

    Returns
    -------
    TecclJudgement

    Raises
    ------
    FormatError
        The file is no TE-CCL schedule gossipcert reads.

    Examples
    --------
    A schedule on TE-CCL's 4-GPU mesh, written in TE-CCL's format, then judged:

    >>> import json, os, tempfile
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> from gossipcert.formats.teccl_model import EpochModel
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> got = greedy_allgather(m)
    >>> path = os.path.join(tempfile.mkdtemp(), "mesh.json")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write(json.dumps(teccl_json(m, got.replay, flows=got.flows)))
    >>> judge_teccl(path).sentence()
    "TE-CCL's 2 epochs: optimal, certified"
    """
    sched = read_teccl_schedule(path, machine, chunk, switch_copy, switch_to_gpu_link_on)
    rep = sched.replay()
    bound = epoch_lower_bound(sched.model, sched.collective, stop_at=sched.epochs)
    best, how, better = sched.epochs, "TE-CCL", None
    if improve and bound.value < sched.epochs and rep.valid:
        best, how, better = _improve(sched, bound.value, tries, exact_seconds, progress)
    if exact_seconds > 0 and sched.collective == "allgather" and bound.value < best:
        from gossipcert.formats.teccl_exact import decide_allgather

        out = decide_allgather(sched.model, bound.value, sched.chunks, seconds=exact_seconds)
        if out.status == QueryStatus.UNSAT:
            bound = EpochBound(bound.value + 1, "exact",
                               f"{bound.value} epochs refuted: {out.proof}")  # fmt: skip
    claim = claim or teccl_claim(sched.collective, path)
    verdict = verdict_of(sched.epochs, bound.value, best, rep.valid, claim)
    return TecclJudgement(
        path,
        sched,
        rep.epochs,
        rep.finish_time,
        rep.findings,
        bound,
        best,
        how,
        verdict,
        better,
        claim,
    )
