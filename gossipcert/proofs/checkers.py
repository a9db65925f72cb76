"""Independent verdicts on a refutation proof (LRAT or DRAT), and the rule that combines them.

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
must verify. **DRAT proofs** (certificates written before, and the split search's cubes)
are judged as below by :func:`check_proof`; :func:`check_refutation` picks the path by the
proof's format.

A certificate is worth what its checker is worth, and a proof checker is software too: one
version of ``dratify`` accepted forged proofs (it kept the root assignment implied by a
deleted clause). So every proof is judged by checkers that share no code, each run in a way
that is sound on its own:

- ``dratify`` (PyPI; Rust engine where ``cdclkit[native]`` provides it) with **deletions
  ignored** (``apply_deletions=False``): every clause it keeps is implied by, or
  satisfiability-preserving for, the formula, so no deletion can leave a stale assignment.
- ``gossipcert-drat`` (:mod:`gossipcert.proofs.drat`), this project's own forward checker:
  deletions applied, except deletions of unit and reason clauses, which are ignored (the
  drat-trim convention).
- ``drat-trim`` (backward checking, deletions of unit clauses ignored), whenever a binary is
  found: the ``GOSSIPCERT_DRAT_TRIM`` environment variable, or ``drat-trim`` on the ``PATH``.

When drat-trim is present it runs first and writes an **LRAT** proof (``-L``: the lemmas its
backward check used, each with the clauses its unit propagation uses, in order, and with
deletions). The project's LRAT checker ``gossipcert-lrat`` (:mod:`gossipcert.proofs.lrat`)
then checks that file against the formula, and these two are the checkers of that path:

- they share no code: drat-trim is C and checks the DRAT proof backwards; gossipcert-lrat is
  this project's Python and checks the LRAT file forwards, one step at a time;
- deletions are handled soundly by both: drat-trim ignores deletions of unit clauses, and
  gossipcert-lrat applies every deletion, which is sound in LRAT because no state carries
  over from one step to the next (each step names the clauses it rests on, and those must
  be live);
- no verdict rests on drat-trim being right: the LRAT file is untrusted input to
  gossipcert-lrat, which accepts it only when every added clause follows from the clauses
  it names and the empty clause is derived, i.e. when the file is a refutation of the
  formula on its own. A wrong drat-trim can therefore make the check reject or fall back,
  never pass a formula that is satisfiable;
- a DRAT proof that drat-trim verified and whose LRAT gossipcert-lrat verified is thus a
  refutation confirmed by two independent checkers, and dratify is not needed on this
  path. On a proof of a million lines (Petersen half-duplex, 6 rounds) it took about a
  minute (drat-trim 37 s, gossipcert-lrat 29 s) where dratify gave no verdict in four.

Should gossipcert-lrat reject drat-trim's LRAT file (or drat-trim write none), the proof as
handed in is judged by dratify and the project's DRAT checker as without drat-trim, and that
verdict stands beside drat-trim's. Without a drat-trim binary nothing changes: dratify and
the project's DRAT checker judge the proof.

:func:`check_proof` runs them all. On the path without LRAT, ``dratify`` (native code) and
``drat-trim`` (C) are *required*: each must verify the proof. The project's own DRAT checker
is plain Python and checks every lemma forwards, so on proofs of millions of lines it is far
slower than the others; it runs within a budget (``max(60 s, dratify's time)`` unless told
to run to the end), and when it stops at that budget it gives no verdict and the proof rests
on the required checkers, which the output says. A rejection by any checker is a rejection
(and a disagreement is said loudly); a required checker that runs out of the caller's time
leaves the answer ``timeout`` — no verdict, never a failure.

References
----------
.. [1] N. Wetzler, M. J. H. Heule and W. A. Hunt, Jr., "DRAT-trim: efficient checking and
   trimming using expressive clausal proofs", SAT 2014, LNCS 8561.
.. [2] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (LRAT).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from gossipcert.children import Child, call_in_child
from gossipcert.proofs.drat import CHECKER_NAME, check_drat_text, parse_dimacs
from gossipcert.proofs.drat_extra import load_dratify
from gossipcert.proofs.lrat import CHECKER_NAME as LRAT_NAME
from gossipcert.proofs.lrat import DELETIONS as LRAT_DELETIONS
from gossipcert.proofs.lrat import check_lrat, check_lrat_file
from gossipcert.proofs.lrat_solver import compiled_available
from gossipcert.proofs.propagated import CHECKER_NAME as PROPAGATED_NAME
from gossipcert.proofs.propagated import DELETIONS as PROPAGATED_DELETIONS
from gossipcert.proofs.propagated import check_propagated
from gossipcert.statuses import Verdict

#: environment variable naming a drat-trim binary (else ``drat-trim`` on the PATH)
DRAT_TRIM_ENV = "GOSSIPCERT_DRAT_TRIM"

VERIFIED, REJECTED, TIMEOUT, ERROR = (
    Verdict.VERIFIED,
    Verdict.REJECTED,
    Verdict.TIMEOUT,
    Verdict.ERROR,
)
#: the project's checker stopped at its budget: no verdict, and not needed for one
OVER_BUDGET = Verdict.OVER_BUDGET

#: the project's checker gets at least this many seconds, or this many times dratify's time
OWN_BUDGET_SECONDS = 60.0
OWN_BUDGET_FACTOR = 1.0


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


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _dratify_verdict(cnf_text: str, proof: str, engine: str) -> tuple[Verdict, str]:
    dratify = load_dratify()
    try:
        result = dratify.check_proof(
            dratify.parse_dimacs(cnf_text), proof, engine=engine, apply_deletions=False
        )
    except Exception as exc:  # a malformed proof is a rejection, never a crash
        return REJECTED, f"proof rejected: {exc}"
    if result.ok:
        return VERIFIED, "verified"
    return REJECTED, f"proof rejected: {getattr(result, 'reason', result)}"


def _dratify_child(send: Any, cnf_text: str, proof: str, engine: str) -> tuple[Verdict, str]:
    return _dratify_verdict(cnf_text, proof, engine)


def run_dratify(cnf_text: str, proof: str, deadline: float | None = None) -> CheckOutcome:
    """``dratify`` with deletions ignored; in a child process when a deadline applies.

    Parameters
    ----------
    cnf_text, proof : str
        DIMACS formula and text DRAT proof.
    deadline : float, optional
        A ``time.monotonic()`` value; the check is stopped then and the status is ``timeout``.

    Returns
    -------
    CheckOutcome
    """
    dratify = load_dratify()
    start = time.monotonic()
    engine = "native" if dratify.native_available() else "python"
    name = f"dratify {getattr(dratify, '__version__', '?')} ({engine} engine)"
    policy = "all ignored (apply_deletions=False)"
    left = _remaining(deadline)
    if left is None:
        status, message = _dratify_verdict(cnf_text, proof, engine)
    else:
        kind, value = call_in_child(_dratify_child, (cnf_text, proof, engine), deadline)
        if kind == "result":
            status, message = value
        elif kind == "timeout":
            status, message = TIMEOUT, "no verdict before the time limit"
        elif kind == "interrupted":
            raise KeyboardInterrupt
        else:
            status, message = ERROR, "the checker process died without a verdict"
    return CheckOutcome(name, status, policy, time.monotonic() - start, message)


def run_gossipcert(
    cnf_text: str, proof: str, deadline: float | None = None, budget: float | None = None
) -> CheckOutcome:
    """The project's own checker, :func:`gossipcert.proofs.drat.check_drat_text`.

    ``budget`` (seconds) stops it earlier than ``deadline``; stopping there is the status
    ``over-budget`` rather than ``timeout``.
    """
    own = None if budget is None else time.monotonic() + budget
    stop = own if deadline is None else deadline if own is None else min(deadline, own)
    v = check_drat_text(cnf_text, proof, stop)
    if v.status == TIMEOUT and own is not None and stop == own:
        return CheckOutcome(
            CHECKER_NAME.split(" (")[0],
            OVER_BUDGET,
            "applied, except those of unit and reason clauses",
            v.seconds,
            f"stopped at its budget of {budget:.0f}s ({v.message}); no verdict",
        )
    policy = (
        f"applied, except those of unit and reason clauses "
        f"({v.ignored_deletions} of {v.deletions} ignored)"
    )
    message = v.message if v.status != TIMEOUT else f"no verdict: {v.message}"
    return CheckOutcome(CHECKER_NAME.split(" (")[0], v.status, policy, v.seconds, message)


def drat_trim_binary() -> str | None:
    """The drat-trim binary to use: ``$GOSSIPCERT_DRAT_TRIM``, else ``drat-trim`` on the PATH."""
    named = os.environ.get(DRAT_TRIM_ENV)
    if named:
        return named
    return shutil.which("drat-trim")


def run_drat_trim(
    cnf_text: str, proof: str, binary: str, deadline: float | None = None
) -> CheckOutcome:
    """Run a drat-trim binary on the formula and proof (written to a temporary folder).

    Its verdict is read from its ``s VERIFIED`` / ``s NOT VERIFIED`` line together with its
    exit status; anything else is an ``error``.
    """
    return run_drat_trim_lrat(cnf_text, proof, binary, deadline, lrat=False)[0]


def run_drat_trim_lrat(
    cnf_text: str, proof: str, binary: str, deadline: float | None = None, lrat: bool = True
) -> tuple[CheckOutcome, CheckOutcome | None]:
    """:func:`run_drat_trim`, and with ``lrat`` the verdict of ``gossipcert-lrat`` on the
    LRAT proof drat-trim writes (``-L``) when it verifies the proof; else ``None`` (drat-trim
    did not verify the proof, or ``lrat`` is False)."""
    start = time.monotonic()
    name = f"drat-trim ({binary})"
    policy = "those of unit clauses ignored (backward checking)"
    left = _remaining(deadline)
    with tempfile.TemporaryDirectory(prefix="gossipcert-drat-") as tmp:
        cnf_path, proof_path = Path(tmp, "formula.cnf"), Path(tmp, "proof.drat")
        lrat_path = Path(tmp, "proof.lrat")
        cnf_path.write_text(cnf_text)
        proof_path.write_text(proof)
        cmd = [binary, str(cnf_path), str(proof_path)]
        if lrat:
            cmd += ["-L", str(lrat_path)]
        if left is not None:
            cmd += ["-t", str(max(1, int(left) + 1))]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=left, check=False)
        except subprocess.TimeoutExpired:
            out = CheckOutcome(
                name, TIMEOUT, policy, time.monotonic() - start, "no verdict before the time limit"
            )
            return out, None
        except OSError as exc:
            out = CheckOutcome(name, ERROR, policy, time.monotonic() - start, f"cannot run: {exc}")
            return out, None
        outcome = _drat_trim_outcome(run, name, policy, time.monotonic() - start)
        if not (lrat and outcome.ok):
            return outcome, None
        return outcome, run_lrat(cnf_text, lrat_path, deadline)


def run_lrat(cnf_text: str, path: Path, deadline: float | None = None) -> CheckOutcome:
    """``gossipcert-lrat`` (:func:`gossipcert.proofs.lrat.check_lrat_file`) on an LRAT file;
    a missing file is a rejection."""
    if not path.exists():
        return CheckOutcome(LRAT_NAME, REJECTED, LRAT_DELETIONS, 0.0, "no LRAT file was written")
    v = check_lrat_file(cnf_text, path, deadline)
    message = v.message if v.status != TIMEOUT else f"no verdict: {v.message}"
    return CheckOutcome(LRAT_NAME, v.status, LRAT_DELETIONS, v.seconds, message)


def _drat_trim_outcome(
    run: subprocess.CompletedProcess[str], name: str, policy: str, seconds: float
) -> CheckOutcome:
    """drat-trim's verdict from its output and exit status."""
    lines = {s.strip() for s in run.stdout.splitlines() if s.startswith("s ")}
    if lines == {"s VERIFIED"} and run.returncode == 0:
        return CheckOutcome(name, VERIFIED, policy, seconds, "s VERIFIED")
    if "s NOT VERIFIED" in lines:
        return CheckOutcome(name, REJECTED, policy, seconds, "s NOT VERIFIED")
    if "timeout" in run.stdout.lower():
        return CheckOutcome(name, TIMEOUT, policy, seconds, "no verdict before the time limit")
    tail = (run.stdout.strip().splitlines() or run.stderr.strip().splitlines() or ["no output"])[-1]
    return CheckOutcome(
        name, ERROR, policy, seconds, f"exit {run.returncode} without a verdict: {tail[:120]}"
    )


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


def _dratify_and_own(
    cnf_text: str, proof: str, deadline: float | None, full: bool
) -> list[CheckOutcome]:
    """dratify, then the project's own checker within its budget, on one proof."""
    first = run_dratify(cnf_text, proof, deadline)
    budget = None if full else max(OWN_BUDGET_SECONDS, OWN_BUDGET_FACTOR * first.seconds)
    return [first, run_gossipcert(cnf_text, proof, deadline, budget)]


def check_proof(
    cnf_text: str,
    proof: str,
    deadline: float | None = None,
    drat_trim: bool = True,
    full: bool = False,
) -> ProofVerdict:
    """Judge a DRAT proof of the formula with every checker available.

    Parameters
    ----------
    cnf_text : str
        The formula, DIMACS.
    proof : str
        The text DRAT proof.
    deadline : float, optional
        A ``time.monotonic()`` value for all checkers together.
    drat_trim : bool
        Also run drat-trim when a binary is found (see :func:`drat_trim_binary`); its LRAT
        file is then checked by gossipcert-lrat instead of running dratify and the
        project's DRAT checker (module docstring).
    full : bool
        Let the project's own DRAT checker run to the end (no budget).

    Returns
    -------
    ProofVerdict

    Examples
    --------
    >>> check_proof("p cnf 2 2\\n1 0\\n-1 -2 0\\n", "d -1 -2 0\\n2 0\\n0\\n").status
    <Verdict.REJECTED: 'rejected'>
    >>> check_proof("p cnf 1 2\\n1 0\\n-1 0\\n", "0\\n").status
    <Verdict.VERIFIED: 'verified'>
    """
    binary = drat_trim_binary() if drat_trim else None
    trim, lrat = None, None
    if binary is not None:
        trim, lrat = run_drat_trim_lrat(cnf_text, proof, binary, deadline)
    if lrat is not None and lrat.status in (VERIFIED, TIMEOUT):
        # the LRAT path (module docstring): drat-trim and gossipcert-lrat
        outcomes = [lrat]
    else:
        outcomes = _dratify_and_own(cnf_text, proof, deadline, full)
        if lrat is not None:  # drat-trim verified, but its LRAT file did not hold
            assert trim is not None
            note = f"; its LRAT file was rejected by {lrat.checker}: {lrat.message}"
            trim = replace(trim, message=trim.message + note)
    if trim is not None:
        outcomes.append(trim)
    status = _combined(outcomes)
    return ProofVerdict(status, tuple(outcomes))


def _combined(outcomes: list[CheckOutcome]) -> Verdict:
    """The combined status of several checkers' outcomes (:class:`ProofVerdict`)."""
    statuses = {o.status for o in outcomes}
    if statuses & {REJECTED, ERROR}:
        return REJECTED
    if statuses <= {VERIFIED, OVER_BUDGET}:
        return VERIFIED
    return TIMEOUT


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
        return ProofVerdict(_combined(outcomes), tuple(outcomes))
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
    return ProofVerdict(_combined(outcomes), tuple(outcomes))


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
    return ProofVerdict(_combined(outcomes), tuple(outcomes))


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

#: the stored formats of a refutation's proof
PROOF_FORMATS = ("drat", "lrat")


def check_refutation(
    cnf_text: str,
    proof: str,
    proof_format: str = "drat",
    deadline: float | None = None,
    full: bool = False,
    meanwhile: Callable[[], None] | None = None,
    formula: tuple[int, list[list[int]]] | None = None,
) -> ProofVerdict:
    """:func:`check_lrat_proof` for an LRAT proof (``meanwhile`` and the parsed ``formula``
    passed on), :func:`check_proof` for a DRAT one.

    Raises
    ------
    ValueError
        ``proof_format`` is not one of :data:`PROOF_FORMATS`.
    """
    if proof_format == "lrat":
        return check_lrat_proof(cnf_text, proof, deadline, meanwhile, formula)
    if proof_format == "drat":
        return check_proof(cnf_text, proof, deadline, full=full)
    raise ValueError(f"unknown proof format {proof_format!r}")
