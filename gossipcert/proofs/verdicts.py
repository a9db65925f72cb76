"""One checker's verdict on one proof (:class:`CheckOutcome`), the verdict of several
(:class:`ProofVerdict`), and the rule that combines them (:func:`combined_status`): any
rejection or failure rejects, all verified (the project's DRAT checker possibly stopped at
its budget) verifies, else no verdict in time. The checkers of :mod:`gossipcert.proofs.checkers`
(DRAT) and :mod:`gossipcert.proofs.lrat_checks` (LRAT) report in these.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from gossipcert.statuses import Verdict

VERIFIED, REJECTED, TIMEOUT, ERROR = (
    Verdict.VERIFIED,
    Verdict.REJECTED,
    Verdict.TIMEOUT,
    Verdict.ERROR,
)
#: the project's checker stopped at its budget: no verdict, and not needed for one
OVER_BUDGET = Verdict.OVER_BUDGET


@dataclass(frozen=True)
class CheckOutcome:
    """One checker's verdict on one proof.

    Attributes
    ----------
    checker : str
        Name, version and engine.
    status : Verdict
        ``verified``, ``rejected``, ``timeout`` (no verdict in time) or ``error`` (the
        checker failed to run; counts as a rejection).
    deletions : str
        How the checker treats deletion steps.
    seconds : float
    message : str
    """

    checker: str
    status: Verdict
    deletions: str
    seconds: float
    message: str

    def __post_init__(self) -> None:  # a member, also when a checker gives its value
        object.__setattr__(self, "status", Verdict(self.status))

    @property
    def ok(self) -> bool:
        """True when this checker verified the proof."""
        return self.status == VERIFIED

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record (for certificates)."""
        return {**asdict(self), "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class ProofVerdict:
    """The combined verdict of every checker on one proof.

    Attributes
    ----------
    status : Verdict
        ``verified`` (every checker verified, the project's own one possibly stopped at its
        budget), ``rejected`` (some checker rejected or failed) or ``timeout`` (none
        rejected, some gave no verdict in the caller's time).
    outcomes : tuple of CheckOutcome
    """

    status: Verdict
    outcomes: tuple[CheckOutcome, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Verdict(self.status))

    @property
    def ok(self) -> bool:
        """True when the proof is verified (see ``status``)."""
        return self.status == VERIFIED

    def summary(self) -> str:
        """One line naming each checker and its verdict."""
        parts = [f"{o.checker}: {o.status} ({o.seconds:.1f}s)" for o in self.outcomes]
        head = {
            VERIFIED: "verified by every checker",
            REJECTED: "REJECTED",
            TIMEOUT: "no verdict in time",
        }[self.status]
        agree = {o.status for o in self.outcomes}
        if self.status == VERIFIED and OVER_BUDGET in agree:
            head = "verified by every required checker (gossipcert-drat stopped at its budget)"
        if VERIFIED in agree and agree & {REJECTED, ERROR}:
            head = "REJECTED: THE CHECKERS DISAGREE"
        return f"{head} — " + "; ".join(parts)


def combined_status(outcomes: list[CheckOutcome]) -> Verdict:
    """The combined status of several checkers' outcomes (:class:`ProofVerdict`)."""
    statuses = {o.status for o in outcomes}
    if statuses & {REJECTED, ERROR}:
        return REJECTED
    if statuses <= {VERIFIED, OVER_BUDGET}:
        return VERIFIED
    return TIMEOUT
