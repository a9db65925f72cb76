"""What the round search returns (:class:`SolveResult`) and the encoding options it is
asked to use (:func:`search_options`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SolverError, UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import Report
from gossipcert.statuses import SolveStatus

#: the choices of ``solve(encoding=...)``
ENCODINGS = ("auto", "broadcast", "knowledge", "tree")


@dataclass
class SolveResult:
    """The outcome of :func:`solve`.

    Attributes
    ----------
    status : SolveStatus
        The search's own word: ``optimal`` (the bounds met, by whatever evidence: the
        solver's word too), ``feasible`` (a schedule, the bounds apart), ``unknown`` (no
        schedule), ``infeasible`` (demands can never be met). Every record a user reads
        says :attr:`proved_status` instead (:meth:`status_fields`).
    optimum : int or None
        Where the bounds met (the solver's word too: see :attr:`decided_by_solver`).
    lower_bound, upper_bound : int or None
    schedule : Schedule or None
        Verified, of length ``upper_bound``.
    evidence : dict
        How the lower bound is known: ``{"kind": "closed-form", ...}``, ``{"kind": "drat",
        ...}`` or ``{"kind": "solver-claim", ...}``.
    """

    instance: Instance
    status: SolveStatus
    optimum: int | None
    lower_bound: int
    upper_bound: int | None
    schedule: Schedule | None
    report: Report | None
    evidence: dict[str, Any]
    upper_source: str
    backend: str
    options: EncodingOptions
    times: dict[str, float] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)
    #: the time limit ran out before the search (or the proof) finished
    timed_out: bool = False
    #: the search was stopped by Ctrl-C (the bounds are those known at that moment)
    interrupted: bool = False
    #: a reduction solved by time reversal: the result of its dual (broadcast or gossip)
    dual: SolveResult | None = None
    #: the steps not started for want of time, in words (a step that cannot be stopped
    #: half way, such as building a large construction, is started only while time is
    #: left): each leaves the bracket wider, never wrong
    skipped: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.status = SolveStatus(self.status)  # a member, also when given its value

    @classmethod
    def from_bracket(
        cls,
        instance: Instance,
        status: SolveStatus,
        lower: int,
        best: tuple[Schedule, Report] | None,
        *args: Any,
        **kwargs: Any,
    ) -> SolveResult:
        """The result of a bracket: the lower bound, the best verified schedule and its
        report (None: no schedule) giving the upper bound (the report's rounds), the optimum
        where ``status`` is optimal. ``args`` and ``kwargs``: the fields from
        :attr:`evidence` on."""
        upper = None if best is None else best[1].rounds
        optimum = upper if status is SolveStatus.OPTIMAL else None
        schedule, report = (None, None) if best is None else best
        return cls(instance, status, optimum, lower, upper, schedule, report, *args, **kwargs)

    @property
    def certified(self) -> bool:
        """An optimum whose lower bound has evidence beyond the solver's word (a closed form
        or checked proofs): not ``solver-claim``, as with ``--no-proof`` or a proof cut short
        by the time limit (for a reduction solved by reversal: its dual's)."""
        if self.dual is not None:
            return self.status is SolveStatus.OPTIMAL and self.dual.certified
        return self.status is SolveStatus.OPTIMAL and self.evidence.get("kind") != "solver-claim"

    @property
    def decided_by_solver(self) -> bool:
        """The bounds met, but the lower bound is a solver's word only (``--no-proof``, a
        proof cut short by the time limit or by Ctrl-C): the optimum is not proved."""
        return self.status is SolveStatus.OPTIMAL and not self.certified

    @property
    def proved_status(self) -> SolveStatus:
        """The status the evidence proves: ``optimal`` only with a lower bound beyond the
        solver's word (:attr:`certified`); an optimum the solver decided is ``feasible``
        (its bracket closed by the solver's word: :attr:`decided_by_solver`).

        Examples
        --------
        >>> from gossipcert.instance import parse_instance
        >>> from gossipcert.search.entry import solve
        >>> res = solve(parse_instance("ring:5", "half-duplex", "gossip"), proof=False)
        >>> res.status.value, res.proved_status.value, res.decided_by_solver, res.lower_bound
        ('optimal', 'feasible', True, 6)
        """
        return SolveStatus.FEASIBLE if self.decided_by_solver else self.status

    @property
    def certifiable(self) -> bool:
        """Whether ``solve -o`` (and ``Result.write``) writes a certificate rather than a
        partial result: the bounds met, with evidence beyond the solver's word (even if a
        signal came after it), or on the solver's word in a run that ended by itself (its
        certificate's check says ``unproved``)."""
        return self.status is SolveStatus.OPTIMAL and (self.certified or not self.interrupted)

    def status_fields(self) -> dict[str, Any]:
        """The fields every record of a result shares (``solve --json``, the API's
        ``Result.to_json``, partial files, ``verify --from``): ``status`` as the evidence
        proves it (:attr:`proved_status`), ``certified``, ``decided_by_solver``,
        ``optimum`` (only when proved) and both bounds.

        Returns
        -------
        dict
        """
        return {
            "status": self.proved_status,
            "certified": self.certified,
            "decided_by_solver": self.decided_by_solver,
            "optimum": self.optimum if self.proved_status is SolveStatus.OPTIMAL else None,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
        }


def search_options(
    instance: Instance, encoding: str, strict: bool, counting: bool
) -> EncodingOptions:
    """The encoding options of a search from the command line's choices.

    Raises
    ------
    SolverError
        ``encoding`` is not one of :data:`ENCODINGS`.
    UnsupportedModelError
        ``encoding="broadcast"`` (``"tree"``) for an instance the broadcast (tree)
        encoding does not cover.
    """
    from gossipcert.encodings.broadcast import broadcast_applies
    from gossipcert.encodings.tree import tree_applies

    if encoding not in ENCODINGS:
        raise SolverError(f"unknown encoding {encoding!r}; choose one of {', '.join(ENCODINGS)}")
    if encoding == "broadcast" and not broadcast_applies(instance):
        raise UnsupportedModelError(
            "--encoding broadcast needs one packet and a one-port model without a call limit "
            f"(telephone, half-duplex, single-port); not {instance.problem.spec()} under "
            f"{instance.model.spec()}"
        )
    if encoding == "tree" and not tree_applies(instance):
        raise UnsupportedModelError(
            "--encoding tree needs the all-port model without a call limit on a tree, every "
            f"packet held by one node; not {instance.problem.spec()} under "
            f"{instance.model.spec()} on {instance.graph.graph.get('spec', 'this graph')}"
        )
    return EncodingOptions.for_search(
        strict=strict,
        counting=counting,
        broadcast=encoding in ("auto", "broadcast"),
        tree=encoding in ("auto", "tree"),
    )
