"""The record of a verdict on another tool's algorithm (:class:`Verdict`, what
:func:`gossipcert.formats.verdict.verify_algorithm` returns): its fields, its judgements
(valid, fits the model, the gap to the optimum) and its JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gossipcert.formats.findings import Finding, Replay

__all__ = ["Verdict"]


@dataclass
class Verdict:
    """Everything :func:`verify_algorithm` found about another tool's algorithm.

    Attributes
    ----------
    source, fmt : str
        The file and its format (``msccl-xml``, ``sccl-json``, ``teccl-json``).
    collective : str
        As the file names it (``allgather``, ``alltoall``, ``allreduce``, ...).
    ranks, chunks, steps : int
        GPUs, chunks per rank (of the whole buffer for ``allreduce``), steps or moves read.
    replay : Replay
        The replay: ``findings`` (every violation, with its rule, round and GPU),
        ``transfers``, ``rounds``, and whether the collective's result was checked
        (``semantics``).
    valid : bool
        No violation: the algorithm computes its collective (property).
    rounds : int
        The round of its last transmission under the timing (property).
    topology : str
        The topology it was checked on.
    model : str
        The model it was judged under; ``model_default`` says whether it is the
        topology's default (``all-port`` with its capacities, ``single-port:p=1`` on
        ``hub:N``) rather than one chosen with ``model=``.
    fits : bool
        Its transmissions obey the model on the topology (property); ``model_findings``
        lists each breach and ``needs_capacity`` the most chunks it puts on one link (one
        port, one transmission) in a round.
    loads : dict
        Per round, the chunks on each link ``(u, v)``.
    problem : str or None
        gossipcert's problem for the collective (None: none).
    optimum : dict
        The certified optimum for the same collective, topology, model and chunks, or the
        bracket found in time (``optimum``, ``lower_bound``, ``upper_bound``, their sources,
        ``certified``); ``optimum_model`` the model it was sought under.
    compared_model : str or None
        The model of :meth:`gap` (the one judged, or ``all-port:c=L`` for an algorithm that
        overloads links; None: not comparable).
    schedule_check : dict or None
        For copy collectives, the verifier's replay of the same transmissions.
    seconds : dict
        Time to read, check and seek the optimum.
    """

    source: str
    fmt: str
    collective: str
    ranks: int
    chunks: int
    steps: int
    replay: Replay
    topology: str
    model: str
    model_findings: list[Finding]
    needs_capacity: int
    loads: dict[int, dict[tuple[int, int], int]]
    problem: str | None
    optimum: dict[str, Any]
    schedule_check: dict[str, Any] | None = None
    #: the model the optimum is for: the model checked, or all-port with the uniform capacity
    #: the algorithm needs when it does not fit (None: no optimum sought)
    compared_model: str | None = None
    #: the model the optimum was sought under
    optimum_model: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    #: the model is the topology's default (not chosen with ``model=``)
    model_default: bool = True
    #: the time at message sizes (:func:`gossipcert.formats.time_verdict.verify_and_time`)
    time: Any = None

    @property
    def valid(self) -> bool:
        """The algorithm computes its collective (checked on every rank) without deadlock,
        race or executor defect."""
        return self.replay.valid

    @property
    def judged(self) -> bool:
        """False when no violation was found but the collective's result cannot be checked
        (``gather``, ``scatter``, ``send``, ``recv``, ``alltoallv``): neither valid nor
        invalid."""
        return self.replay.judged

    @property
    def fits(self) -> bool:
        """Its transmissions obey the model on the topology."""
        return not self.model_findings

    @property
    def rounds(self) -> int:
        return self.replay.rounds

    def gap(self) -> dict[str, int] | None:
        """Rounds above the optimum (``exact``) or above each end of the bracket.

        Returns
        -------
        dict or None
            ``{"exact": g}``, or ``{"at_least": a, "at_most": b}`` (``{"at_most": b}``
            without an upper end); None for an invalid algorithm, one not comparable with
            the model, or without an optimum.

        Examples
        --------
        A ring allgather one way round a 4-ring takes 3 rounds where 2 suffice:
        ``verify_algorithm(path, topology="ring:4").gap()`` is ``{"exact": 1}`` (see
        :func:`verify_algorithm`).
        """
        if not self.valid or self.compared_model is None:
            return None
        opt = self.optimum
        if opt.get("optimum") is not None:
            return {"exact": self.rounds - opt["optimum"]}
        if opt.get("lower_bound") is not None and opt.get("upper_bound") is not None:
            return {
                "at_most": self.rounds - opt["lower_bound"],
                "at_least": self.rounds - opt["upper_bound"],
            }
        if opt.get("lower_bound") is not None:
            return {"at_most": self.rounds - opt["lower_bound"]}
        return None

    def to_json(self, max_findings: int = 200) -> dict[str, Any]:
        """The fields of ``verify --from FORMAT FILE --json`` (at most ``max_findings``
        violations of each kind listed)."""
        findings = self.replay.findings
        return {
            "file": self.source,
            "format": self.fmt,
            "collective": self.collective,
            "ranks": self.ranks,
            "chunks_per_rank": self.chunks,
            "steps": self.steps,
            "valid": self.valid,
            "not_judged": self.replay.not_judged,
            "judged": self.judged,
            "result_checked": self.replay.semantics,
            "violation_count": len(findings),
            "violations": [f.to_json() for f in findings[:max_findings]],
            "rounds": self.rounds,
            "topology": self.topology,
            "model": self.model,
            "model_default": self.model_default,
            "fits_model": self.fits,
            "model_violation_count": len(self.model_findings),
            "model_violations": [f.to_json() for f in self.model_findings[:max_findings]],
            "needs_capacity": self.needs_capacity,
            "per_round": [
                {
                    "round": t,
                    "links": [
                        {"from": u, "to": v, "chunks": c} for (u, v), c in sorted(links.items())
                    ],
                }
                for t, links in sorted(self.loads.items())
            ],
            "problem": self.problem,
            "optimum": self.optimum,
            "optimum_model": self.optimum_model,
            "gap_model": self.compared_model,
            "gap": self.gap(),
            "verifier": self.schedule_check,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "time": None if self.time is None else self.time.to_json(),
        }
