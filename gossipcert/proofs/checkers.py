"""Independent verdicts on a refutation proof (LRAT or DRAT), and the rule that combines them.

**LRAT proofs** (what gossipcert writes now) are judged by
:func:`gossipcert.proofs.lrat_checks.check_lrat_proof` (that module says how). **DRAT
proofs** (certificates written before, and the split search's cubes) are judged as below by
:func:`check_proof`; :func:`check_refutation` picks the path by the proof's format.

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
from dataclasses import replace
from pathlib import Path
from typing import Any

from gossipcert.children import call_in_child
from gossipcert.proofs.drat import CHECKER_NAME, check_drat_text
from gossipcert.proofs.drat_extra import load_dratify
from gossipcert.proofs.lrat import CHECKER_NAME as LRAT_NAME
from gossipcert.proofs.lrat import DELETIONS as LRAT_DELETIONS
from gossipcert.proofs.lrat import check_lrat_file
from gossipcert.proofs.lrat_checks import check_lrat_proof
from gossipcert.proofs.verdicts import (
    ERROR,
    OVER_BUDGET,
    REJECTED,
    TIMEOUT,
    VERIFIED,
    CheckOutcome,
    ProofVerdict,
    combined_status,
)
from gossipcert.statuses import Verdict

#: environment variable naming a drat-trim binary (else ``drat-trim`` on the PATH)
DRAT_TRIM_ENV = "GOSSIPCERT_DRAT_TRIM"

#: the project's checker gets at least this many seconds, or this many times dratify's time
OWN_BUDGET_SECONDS = 60.0
OWN_BUDGET_FACTOR = 1.0


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
    status = combined_status(outcomes)
    return ProofVerdict(status, tuple(outcomes))


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
