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

#: the choices of ``solve(encoding=...)``
ENCODINGS = ("auto", "broadcast", "knowledge", "tree")


@dataclass
class SolveResult:
    """The outcome of :func:`solve`.

    Attributes
    ----------
    status : str
        ``optimal`` (bounds meet, with evidence), ``feasible`` (a schedule, optimum not
        proved), ``unknown`` (no schedule), ``infeasible`` (demands can never be met).
    optimum : int or None
    lower_bound, upper_bound : int or None
    schedule : Schedule or None
        Verified, of length ``upper_bound``.
    evidence : dict
        How the lower bound is known: ``{"kind": "closed-form", ...}``, ``{"kind": "drat",
        ...}`` or ``{"kind": "solver-claim", ...}``.
    """

    instance: Instance
    status: str
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

    @property
    def certified(self) -> bool:
        """An optimum whose lower bound has evidence beyond the solver's word (a closed form
        or checked proofs): not ``solver-claim``, as with ``--no-proof`` or a proof cut short
        by the time limit (for a reduction solved by reversal: its dual's)."""
        if self.dual is not None:
            return self.status == "optimal" and self.dual.certified
        return self.status == "optimal" and self.evidence.get("kind") != "solver-claim"


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
