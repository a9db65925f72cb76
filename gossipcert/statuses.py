"""Every status gossipcert reports, one enum each (``docs/statuses.md`` says what each value
guarantees).

- :class:`SolveStatus`: how far a search got (``solve``, the API's ``Result``, partial
  files, a sweep's table).
- :class:`QueryStatus`: one solver query's answer (``sat``, ``unsat``, ``unknown``).
- :class:`Verdict`: a proof checker's verdict on one proof, and the combined verdict of
  every checker.
- :class:`CheckStatus`: the check of a certificate and of each of its steps
  (``gossipcert check``).

Each is a :class:`enum.StrEnum`: a member equals its value and is written to JSON as it, so
every record keeps the words it had; code compares and types members. This module imports
nothing of the project, so every layer may use it.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CheckStatus", "QueryStatus", "SolveStatus", "Verdict"]


class SolveStatus(StrEnum):
    """How far a search got.

    The search's own record (``SolveResult.status``) says ``OPTIMAL`` whenever the bounds
    met, the solver's word included; every record a user reads says its ``proved_status``:
    ``OPTIMAL`` only with a lower bound beyond a solver's word.

    Examples
    --------
    >>> SolveStatus("optimal") is SolveStatus.OPTIMAL
    True
    >>> import json; json.dumps({"status": SolveStatus.FEASIBLE})
    '{"status": "feasible"}'
    """

    #: the optimum is proved: a verified schedule meets a lower bound with evidence beyond a
    #: solver's word (a closed form, or checked proofs)
    OPTIMAL = "optimal"
    #: a verified schedule is known, but not proved shortest (its bracket may be closed by a
    #: solver's word alone: ``Result.decided_by_solver``)
    FEASIBLE = "feasible"
    #: no schedule was found in time
    UNKNOWN = "unknown"
    #: no schedule can exist (some demand can never be met)
    INFEASIBLE = "infeasible"

    @classmethod
    def of_bracket(cls, lower: int, upper: int | None) -> SolveStatus:
        """The search's word on the bounds ``lower`` and ``upper`` (None: no schedule):
        ``OPTIMAL`` where they meet, ``FEASIBLE`` with a schedule, else ``UNKNOWN``.

        Examples
        --------
        >>> [SolveStatus.of_bracket(3, u).value for u in (3, 4, None)]
        ['optimal', 'feasible', 'unknown']
        """
        if upper is None:
            return cls.UNKNOWN
        return cls.OPTIMAL if upper == lower else cls.FEASIBLE


class QueryStatus(StrEnum):
    """The answer of a solver (or a refutation's proof) to one query."""

    #: a model was found
    SAT = "sat"
    #: no model exists (with a proof, where one was asked for)
    UNSAT = "unsat"
    #: no answer within the time or conflict budget
    UNKNOWN = "unknown"


class Verdict(StrEnum):
    """A proof checker's verdict on one proof (and the combined verdict of them all)."""

    #: the proof is correct
    VERIFIED = "verified"
    #: the proof is wrong (a step fails, or the checker could not read it)
    REJECTED = "rejected"
    #: no verdict before the deadline
    TIMEOUT = "timeout"
    #: the checker failed to run (counts as a rejection)
    ERROR = "error"
    #: the project's own checker stopped at its budget: no verdict, and none needed
    OVER_BUDGET = "over-budget"


class CheckStatus(StrEnum):
    """The check of a certificate, or of one of its steps (``gossipcert check``)."""

    #: re-derived from scratch, and resting on no solver's word
    HOLDS = "holds"
    #: some step fails: the certificate does not prove its optimum
    FAILS = "fails"
    #: no step fails, but some step was not decided within the time limit
    TIMEOUT = "timeout"
    #: every step agrees, but the lower bound is a solver's word re-solved
    UNPROVED = "unproved"
