"""Independent verdicts on an LRAT refutation proof.

**LRAT proofs** (what gossipcert writes now: CaDiCaL's LRAT output trimmed to the steps the
empty clause uses, :mod:`gossipcert.proofs.lrat_solver`) are judged by
:func:`check_lrat_proof`, first by two compiled engines that share no code:
``gossipcert-lrat (compiled)`` (:mod:`gossipcert.proofs.lrat_compiled`, the RUP rule of
:mod:`gossipcert.proofs.lrat` along each step's hints in order) and ``hint-fixpoint
(compiled)`` (:mod:`gossipcert.proofs.fixpoint`, propagation of each step's hint clauses to a
fixpoint in any order, on tokens it reads itself). Both only ever accept; when either
refuses, the Python checkers judge: ``gossipcert-lrat`` (:mod:`gossipcert.proofs.lrat`,
RUP and RAT) and ``minisat-hints`` (:mod:`gossipcert.proofs.propagated`, MiniSat's unit
propagation on each step's hint clauses, activated by assumptions in one solver;
``dratify-hints``, :mod:`gossipcert.proofs.hinted`, does the same with dratify's engine,
about three times slower, and is kept for comparison). Each pair shares no code, both apply
deletions soundly (no state outlives a step), each takes time linear in the proof, and both
must verify.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (LRAT).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gossipcert.children import Child
from gossipcert.proofs.drat import parse_dimacs
from gossipcert.proofs.lrat import CHECKER_NAME as LRAT_NAME
from gossipcert.proofs.lrat import DELETIONS as LRAT_DELETIONS
from gossipcert.proofs.lrat import check_lrat
from gossipcert.proofs.lrat_solver import compiled_available
from gossipcert.proofs.propagated import CHECKER_NAME as PROPAGATED_NAME
from gossipcert.proofs.propagated import DELETIONS as PROPAGATED_DELETIONS
from gossipcert.proofs.propagated import check_propagated
from gossipcert.proofs.verdicts import (
    ERROR,
    REJECTED,
    TIMEOUT,
    VERIFIED,
    CheckOutcome,
    ProofVerdict,
    combined_status,
)


def check_lrat_proof(
    cnf_text: str,
    proof: str,
    deadline: float | None = None,
    meanwhile: Callable[[], None] | None = None,
    formula: tuple[int, list[list[int]]] | None = None,
) -> ProofVerdict:
    """Judge an LRAT proof of the formula with two checkers that share no code.

    ``gossipcert-lrat`` (:mod:`gossipcert.proofs.lrat`: this project's propagation along
    each step's hints, in order, RUP and RAT) and ``minisat-hints``
    (:mod:`gossipcert.proofs.propagated`: MiniSat's propagation on each step's hint clauses).
    Both apply deletions, soundly: no state outlives a step. Both must verify the proof; a
    rejection by either is a rejection. minisat-hints runs in a child process while
    gossipcert-lrat runs here (stopped when gossipcert-lrat rejects).

    Parameters
    ----------
    cnf_text : str
        The formula, DIMACS.
    proof : str
        The LRAT proof (text).
    deadline : float, optional
        A ``time.monotonic()`` value for both checkers together.
    meanwhile : callable, optional
        Run once gossipcert-lrat has verified the proof, while minisat-hints may still be
        at work (the caller's compression of the proof, for one).
    formula : (int, list of list of int), optional
        ``cnf_text`` already parsed (its variable count and clauses), when the caller holds
        it: the text is then not read again.

    Returns
    -------
    ProofVerdict

    Examples
    --------
    >>> cnf = "p cnf 2 3\\n1 2 0\\n-1 2 0\\n-2 0\\n"
    >>> check_lrat_proof(cnf, "4 2 0 1 2 0\\n5 0 4 3 0\\n").status
    <Verdict.VERIFIED: 'verified'>
    >>> check_lrat_proof(cnf, "4 2 0 1 3 0\\n5 0 4 3 0\\n").status
    <Verdict.REJECTED: 'rejected'>
    """
    try:
        nvars, clauses = formula if formula is not None else parse_dimacs(cnf_text)
    except ValueError as exc:
        bad = CheckOutcome(LRAT_NAME, REJECTED, LRAT_DELETIONS, 0.0, f"formula: {exc}")
        return ProofVerdict(REJECTED, (bad,))
    if deadline is not None and time.monotonic() >= deadline:
        late = "no verdict: the time limit passed before the check began"
        outcomes = [
            CheckOutcome(LRAT_NAME, TIMEOUT, LRAT_DELETIONS, 0.0, late),
            CheckOutcome(PROPAGATED_NAME, TIMEOUT, PROPAGATED_DELETIONS, 0.0, late),
        ]
        return ProofVerdict(TIMEOUT, tuple(outcomes))
    if USE_COMPILED and compiled_available():
        fast = _compiled_verdict(clauses, proof, nvars, deadline)
        if fast is not None:
            if meanwhile is not None and fast.status == VERIFIED:
                meanwhile()
            return fast
    lines = proof.splitlines()
    if len(lines) <= PARALLEL_ABOVE:  # a process costs more than it saves
        own = check_lrat(clauses, lines, deadline)
        message = own.message if own.status != TIMEOUT else f"no verdict: {own.message}"
        outcomes = [CheckOutcome(LRAT_NAME, own.status, LRAT_DELETIONS, own.seconds, message)]
        if own.status != REJECTED:
            if meanwhile is not None and own.status == VERIFIED:
                meanwhile()
            other = check_propagated(clauses, lines, deadline, nvars)
            message = other.message if other.status != TIMEOUT else f"no verdict: {other.message}"
            outcomes.append(
                CheckOutcome(
                    PROPAGATED_NAME, other.status, PROPAGATED_DELETIONS, other.seconds, message
                )
            )
        return ProofVerdict(combined_status(outcomes), tuple(outcomes))
    # minisat-hints runs in a child process meanwhile (the two cores work at once)
    began = time.monotonic()
    child = Child(_propagated_child, (clauses, lines, deadline, nvars))
    try:
        mine = check_lrat(clauses, lines, deadline)
        message = mine.message if mine.status != TIMEOUT else f"no verdict: {mine.message}"
        outcomes = [CheckOutcome(LRAT_NAME, mine.status, LRAT_DELETIONS, mine.seconds, message)]
        if mine.status != REJECTED:  # a rejection needs no second verdict
            if meanwhile is not None and mine.status == VERIFIED:
                meanwhile()
            outcomes.append(_child_outcome(child, deadline, began))
    finally:
        child.reap()
    return ProofVerdict(combined_status(outcomes), tuple(outcomes))


def _compiled_verdict(
    clauses: list[list[int]], proof: str, nvars: int, deadline: float | None
) -> ProofVerdict | None:
    """The verdict of the compiled engines (:mod:`gossipcert.proofs.lrat_compiled`, the RUP
    rule of gossipcert-lrat, and :mod:`gossipcert.proofs.fixpoint`, hint-fixpoint), in two
    threads on large proofs (their kernels hold no lock); None unless both verify or one
    runs out of time (they only ever accept: on a refusal the Python gossipcert-lrat and
    minisat-hints judge the proof and name the line)."""
    from gossipcert.proofs.fixpoint import CHECKER_NAME as FIXPOINT_NAME
    from gossipcert.proofs.fixpoint import DELETIONS as FIXPOINT_DELETIONS
    from gossipcert.proofs.fixpoint import check_fixpoint
    from gossipcert.proofs.lrat_compiled import check_compiled

    data = proof.encode()
    if len(data) < THREADS_FROM:  # a thread costs more than it saves
        mine = check_compiled(clauses, data, nvars, deadline)
        other = check_fixpoint(clauses, data, nvars, deadline) if mine is not None else None
    else:
        with ThreadPoolExecutor(max_workers=1) as pool:
            theirs = pool.submit(check_fixpoint, clauses, data, nvars, deadline)
            mine = check_compiled(clauses, data, nvars, deadline)
            other = theirs.result()
    if mine is None or other is None:
        return None
    outcomes = [
        CheckOutcome(
            f"{LRAT_NAME} (compiled)", mine.status, LRAT_DELETIONS, mine.seconds, mine.message
        ),
        CheckOutcome(
            f"{FIXPOINT_NAME} (compiled)",
            other.status,
            FIXPOINT_DELETIONS,
            other.seconds,
            other.message,
        ),
    ]
    return ProofVerdict(combined_status(outcomes), tuple(outcomes))


def _propagated_child(
    send: Any, clauses: list[list[int]], lines: list[str], deadline: Any, nvars: int
) -> Any:
    return check_propagated(clauses, lines, deadline, nvars)


def _child_outcome(child: Child, deadline: float | None, began: float) -> CheckOutcome:
    """minisat-hints' verdict from its child process, started at ``began`` (``deadline``
    bounds the wait; past it, only a verdict already sent is read)."""
    start = began
    result: Any = None
    while not child.done and result is None:
        late = deadline is not None and time.monotonic() >= deadline
        for kind, value in child.messages(time.monotonic() if late else deadline):
            if kind == "result":
                result = value
            elif kind == "error":
                raise value
        if late:
            break
    name, deletions = PROPAGATED_NAME, PROPAGATED_DELETIONS
    if result is None:
        seconds = time.monotonic() - start
        if child.done:
            return CheckOutcome(name, ERROR, deletions, seconds, "the checker died")
        return CheckOutcome(name, TIMEOUT, deletions, seconds, "no verdict in time")
    message = result.message if result.status != TIMEOUT else f"no verdict: {result.message}"
    return CheckOutcome(name, result.status, deletions, result.seconds, message)


#: LRAT proofs of more lines than this have their two checkers run in two processes
PARALLEL_ABOVE = 20_000

#: LRAT proofs are judged first by the compiled engines (their first use in a process
#: costs about half a second to load them); False: by the Python checkers alone
USE_COMPILED = True

#: from this many characters the two compiled engines run in two threads
THREADS_FROM = 1_000_000
