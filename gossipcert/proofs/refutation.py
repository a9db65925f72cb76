"""Standalone CNF formulas and proofs of their unsatisfiability.

The lower-bound evidence "``r`` rounds are impossible" is the CNF of the instance for horizon
``r`` with every demand required after round ``r`` and a proof that it is unsatisfiable
written by CaDiCaL while it decides the horizon: an LRAT proof trimmed to the steps the
empty clause uses (:mod:`gossipcert.proofs.lrat_solver`; certificates written before hold a
DRAT proof, which ``check`` still reads); :mod:`gossipcert.proofs.checkers` judges the proof
with checkers that share no code with the solver or with each other. The CNF is generated
deterministically, so anyone can regenerate it and compare its SHA-256 hash.

References
----------
.. [1] N. Wetzler, M. Heule, W. Hunt, "DRAT-trim: efficient checking and trimming using
   expressive clausal proofs", SAT 2014 (the DRAT format).
"""

from __future__ import annotations

import base64
import lzma
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from pysat.solvers import Solver

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.cnf import StandaloneCNF, cnf_of
from gossipcert.errors import CertificateError, SolverError
from gossipcert.instance import Instance
from gossipcert.proofs.checkers import check_refutation
from gossipcert.proofs.lrat_solver import LratSolver
from gossipcert.proofs.verdicts import ProofVerdict
from gossipcert.schedule import Schedule
from gossipcert.solvers.backends import solve_sliced
from gossipcert.solvers.standalone import standalone_cnf, standalone_encoding
from gossipcert.statuses import QueryStatus, Verdict

PROOF_SOLVER = "cadical195"


@dataclass(frozen=True)
class ProofResult:
    """Outcome of trying to prove a CNF unsatisfiable."""

    status: QueryStatus
    proof: str | None
    seconds: float
    #: ``drat`` (the proof as the solver wrote it) or ``lrat`` (trimmed, with hints)
    proof_format: str = "drat"
    #: lines of the proof before trimming (LRAT)
    untrimmed_lines: int | None = None


def prove_unsat(
    cnf: StandaloneCNF, deadline: float | None = None, lrat: bool = False
) -> ProofResult:
    """Solve ``cnf`` with CaDiCaL writing a DRAT proof (``lrat``: an LRAT proof, trimmed).

    Returns status ``unknown`` when the deadline (a ``time.monotonic()`` value) passes.
    """
    start = time.monotonic()
    if lrat:
        prover = LratSolver(cnf.clauses)
        try:
            found = solve_sliced(prover.solver, [], deadline)
            return _lrat_result(prover, found, start)
        finally:
            prover.close()
    with Solver(name=PROOF_SOLVER, bootstrap_with=cnf.clauses, with_proof=True) as solver:
        found = solve_sliced(solver, [], deadline)
        return _proof_result(solver, found, time.monotonic() - start)


def checked_refutation(
    cnf: StandaloneCNF, deadline: float | None, if_sat: str | None, proof_name: str
) -> tuple[ProofResult, ProofVerdict] | None:
    """Refute ``cnf`` with a DRAT proof and have the checkers judge it.

    Parameters
    ----------
    cnf : StandaloneCNF
    deadline : float, optional
        A ``time.monotonic()`` value for the proof and its check together.
    if_sat : str or None
        The error message when ``cnf`` is satisfiable (the claim it stands for is false);
        None when a satisfiable ``cnf`` is an answer, not an error (then None is returned).
    proof_name : str
        What the proof is, for the message when a checker rejects it ("the DRAT proof of ...").

    Returns
    -------
    (ProofResult, ProofVerdict) or None
        The solver's result (its ``proof`` set) and the checkers' verdict (every required
        checker verified it); None when the proof or its check did not finish before
        ``deadline``, or ``cnf`` is satisfiable and ``if_sat`` is None.

    Raises
    ------
    SolverError
        The CNF is satisfiable (with ``if_sat`` given), or a checker rejects the proof.
    """
    status, out = refutation_status(cnf, deadline, proof_name)
    if status == QueryStatus.SAT and if_sat is not None:
        raise SolverError(if_sat)
    return out


def refutation_status(
    cnf: StandaloneCNF, deadline: float | None, proof_name: str
) -> tuple[QueryStatus, tuple[ProofResult, ProofVerdict] | None]:
    """:func:`checked_refutation`, telling apart why there is no refutation.

    Returns
    -------
    (str, (ProofResult, ProofVerdict) or None)
        ``("unsat", (result, verdict))`` for a refutation every required checker verified,
        ``("sat", None)`` when ``cnf`` is satisfiable, ``("unknown", None)`` when the proof
        or its check did not finish before ``deadline``.

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    pr = prove_unsat(cnf, deadline, lrat=True)
    if pr.status == QueryStatus.SAT:
        return QueryStatus.SAT, None
    if pr.status != QueryStatus.UNSAT or pr.proof is None:
        return QueryStatus.UNKNOWN, None
    verdict = check_refutation(
        cnf.dimacs(), pr.proof, pr.proof_format, deadline, formula=(cnf.nvars, cnf.clauses)
    )
    if verdict.status == Verdict.REJECTED:
        raise SolverError(f"{proof_name} was rejected: {verdict.summary()}")
    if not verdict.ok:
        return QueryStatus.UNKNOWN, None
    return QueryStatus.UNSAT, (pr, verdict)


def _proof_result(solver: Any, found: bool | None, seconds: float) -> ProofResult:
    """What a proof-writing solver's answer ``found`` (None: out of time) means, with its
    DRAT proof when it refuted the formula."""
    if found is None:
        return ProofResult(QueryStatus.UNKNOWN, None, seconds)
    if found:
        return ProofResult(QueryStatus.SAT, None, seconds)
    return ProofResult(QueryStatus.UNSAT, "\n".join(solver.get_proof() or []) + "\n", seconds)


def _lrat_result(prover: LratSolver, found: bool | None, start: float) -> ProofResult:
    """:func:`_proof_result` for an LRAT-writing solver: its proof trimmed on a refutation
    (the trimming counts in ``seconds``)."""
    if found is None or found:
        return _proof_result(prover.solver, found, time.monotonic() - start)
    trimmed = prover.trimmed()
    return ProofResult(
        QueryStatus.UNSAT, trimmed.text, time.monotonic() - start, "lrat", trimmed.original_lines
    )


@dataclass(frozen=True)
class DecidedHorizon:
    """A horizon solved with the proof on: the standalone CNF, the solver's result (with its
    DRAT proof when ``unsat``; ``seconds`` counts every call so far) and, when ``sat``, the
    schedule of the model (not yet verified)."""

    cnf: StandaloneCNF
    result: ProofResult
    schedule: Schedule | None


class HorizonProver:
    """The standalone CNF of one horizon in a CaDiCaL solver that writes its LRAT proof as it
    goes (:class:`gossipcert.proofs.lrat_solver.LratSolver`), so that deciding the horizon
    also proves it: a refutation needs no second solve, and its proof comes trimmed.

    :meth:`solve` may be called again after it ran out of time; the solver resumes with what
    it learnt (its proof continues). The CNF is that of
    :func:`~gossipcert.solvers.standalone.standalone_cnf` (the same text, so the same hash), and a
    model is decoded by the encoding that wrote it.

    Parameters
    ----------
    instance : Instance
    rounds : int
    options : EncodingOptions
    """

    def __init__(self, instance: Instance, rounds: int, options: EncodingOptions) -> None:
        enc, gens = standalone_encoding(instance, rounds, options)
        self.encoding = enc
        self.cnf = cnf_of(enc.formula, rounds, options, gens)
        self.prover: LratSolver | None = LratSolver(self.cnf.clauses)
        self.seconds = 0.0

    def solve(self, deadline: float | None = None, tick: Any = None) -> DecidedHorizon:
        """Solve on until ``deadline`` (a ``time.monotonic()`` value; status ``unknown`` when
        it passes); ``tick`` is called between solver slices."""
        if self.prover is None:
            raise RuntimeError("the prover is closed")
        start = time.monotonic()
        found = solve_sliced(self.prover.solver, [], deadline, tick)
        schedule = None
        if found:
            true = {x for x in self.prover.solver.get_model() or [] if x > 0}
            schedule = self.encoding.decode(self.cnf.rounds, true.__contains__)
        result = _lrat_result(self.prover, found, start - self.seconds)
        self.seconds += time.monotonic() - start
        return DecidedHorizon(self.cnf, result, schedule)

    def close(self) -> None:
        """Free the solver (idempotent)."""
        if self.prover is not None:
            self.prover.close()
            self.prover = None


def decide_with_proof(
    instance: Instance, rounds: int, options: EncodingOptions, deadline: float | None = None
) -> DecidedHorizon:
    """Decide whether ``rounds`` rounds suffice on the standalone CNF with the DRAT proof on
    (:class:`HorizonProver`, solved once and closed).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:4", "telephone", "gossip")
    >>> decide_with_proof(inst, 2, EncodingOptions()).result.status
    <QueryStatus.UNSAT: 'unsat'>
    >>> len(decide_with_proof(inst, 3, EncodingOptions()).schedule.rounds)
    3
    """
    prover = HorizonProver(instance, rounds, options)
    try:
        return prover.solve(deadline)
    finally:
        prover.close()


def reliance(relies: list[str], covered_by: str = "the proof") -> str:
    """What a refutation's claim rests on beyond the plain encoding, as ``check`` says it.

    Examples
    --------
    >>> reliance([])
    'the claim rests on the plain encoding'
    >>> reliance(["lex-leader symmetry breaking"], "the proofs")[:56]
    'the claim rests on the encoding plus lex-leader symmetry'
    """
    if not relies:
        return "the claim rests on the plain encoding"
    return (
        "the claim rests on the encoding plus "
        + " and ".join(relies)
        + f" (sound by the arguments in the module docstrings, not covered by {covered_by})"
    )


#: xz preset of stored proofs: on a proof of a million lines (70 MB), preset 1 took 6 s of CPU
#: and wrote 17.9 MB where the default 6 took 107 s and wrote 14.6 MB (``unpack_proof`` reads
#: any preset)
PACK_PRESET = 1


def pack_proof(proof: str) -> str:
    """Compress a proof for storage in a JSON certificate (xz, then base64).

    Examples
    --------
    >>> unpack_proof(pack_proof("1 0\\n0\\n")) == "1 0\\n0\\n"
    True
    """
    return base64.b64encode(lzma.compress(proof.encode(), preset=PACK_PRESET)).decode()


def proof_fields(pr: ProofResult, packed: str | None = None) -> dict[str, Any]:
    """How a stored refutation keeps its proof: a DRAT proof as ``proof_xz_base64``, a
    trimmed LRAT proof as ``lrat_xz_base64`` with ``proof_format`` ``lrat`` and the length
    of the proof before trimming; both with ``proof_lines`` and ``proof_bytes``.
    ``packed`` is :func:`pack_proof` of the proof when the caller already made it."""
    assert pr.proof is not None
    size = {"proof_lines": pr.proof.count("\n"), "proof_bytes": len(pr.proof)}
    if packed is None:
        packed = pack_proof(pr.proof)
    if pr.proof_format == "lrat":
        return {
            "proof_format": "lrat",
            **size,
            "untrimmed_lines": pr.untrimmed_lines,
            "lrat_xz_base64": packed,
        }
    return {**size, "proof_xz_base64": packed}


def proof_record(cnf: StandaloneCNF, pr: ProofResult, verdict: ProofVerdict) -> dict[str, Any]:
    """The fields every stored refutation of a standalone CNF carries: the CNF's hash and
    size, the solver, the proof's time and size, the checkers' verdicts and the compressed
    proof (``pr`` is a refutation, its proof set; :func:`proof_fields`)."""
    return {
        "cnf_sha256": cnf.sha256(),
        "variables": cnf.nvars,
        "clauses": len(cnf.clauses),
        "proof_solver": "CaDiCaL 1.9.5 (PySAT)",
        "proof_seconds": round(pr.seconds, 3),
        "checkers": [o.to_json() for o in verdict.outcomes],
        **proof_fields(pr),
    }


def unpack_proof(data: str) -> str:
    """Inverse of :func:`pack_proof`."""
    return lzma.decompress(base64.b64decode(data)).decode()


def read_stored_proof(
    packed: Any, stated_lines: Any = None, holder: str = "the evidence"
) -> tuple[str | None, str]:
    """A stored (packed) DRAT proof, or None and what is wrong with it: it cannot be read,
    or ``stated_lines`` (the ``proof_lines`` its ``holder`` states, which the messages print)
    is given and is not its number of lines.

    Returns
    -------
    (str or None, str)
        The proof and ``""``, or None and the problem.
    """
    try:
        proof = unpack_proof(packed)
    except Exception as exc:  # any corruption of the stored proof is a failed check
        return None, f"stored proof cannot be read: {exc}"
    count = proof.count("\n")
    if stated_lines is not None and stated_lines != count:
        return None, (
            f"{holder} states a proof of {stated_lines!r} lines; the stored proof has {count}"
        )
    return proof, ""


def recheck_stored_proof(
    cnf: StandaloneCNF,
    packed: Any,
    time_limit: float | None,
    full: bool = False,
    stated_lines: Any = None,
    proof_format: str = "drat",
) -> list[tuple[bool | None, str]]:
    """Re-check a stored (packed) DRAT proof of ``cnf`` with every checker: one line per
    checker, ``(verdict, text)`` with True (verified, or over its budget after the others
    verified), False (rejected) or None (no verdict in time), and a failing line when the
    checkers disagree; or one failing line when the proof cannot be read or is not of the
    ``stated_lines`` (:func:`read_stored_proof`). ``proof_format`` is ``drat`` or ``lrat``
    (:func:`gossipcert.proofs.checkers.check_refutation`)."""
    proof, problem = read_stored_proof(packed, stated_lines)
    if proof is None:
        return [(False, problem)]
    count = proof.count("\n")
    deadline = None if time_limit is None else time.monotonic() + time_limit
    verdict = check_refutation(
        cnf.dimacs(), proof, proof_format, deadline, full=full, formula=(cnf.nvars, cnf.clauses)
    )
    lines: list[tuple[bool | None, str]] = [
        (
            {Verdict.VERIFIED: True, Verdict.OVER_BUDGET: True, Verdict.TIMEOUT: None}.get(
                o.status, False
            ),
            f"{proof_format.upper()} proof ({count} lines) re-checked by {o.checker} "
            f"(deletions: {o.deletions}): {o.status} in {o.seconds:.1f}s ({o.message})",
        )
        for o in verdict.outcomes
    ]
    if verdict.status == Verdict.REJECTED and any(o.ok for o in verdict.outcomes):
        lines.append((False, "THE PROOF CHECKERS DISAGREE: " + verdict.summary()))
    return lines


class Report(Protocol):
    """Where a check writes its steps (a certificate's ``CheckReport``): each step a verdict
    (True holds, False fails, None undecided) and a line of text."""

    def add(self, ok: bool | None, text: str) -> None: ...


def stored_options(ev: dict[str, Any]) -> EncodingOptions:
    """The encoding options stored with an evidence (``ev["encoding"]``).

    Parameters
    ----------
    ev : dict
        A ``drat``, ``drat-packet`` or ``solver-claim`` evidence.

    Returns
    -------
    EncodingOptions

    Raises
    ------
    CertificateError
        They are not a mapping of known option names to true or false.
    """
    known = set(EncodingOptions().to_json())
    if not isinstance(ev.get("encoding"), dict) or not set(ev["encoding"]) <= known:
        raise CertificateError(f"encoding options must be a subset of {sorted(known)}")
    options = EncodingOptions(**ev["encoding"])
    if not all(isinstance(v, bool) for v in options.to_json().values()):
        raise CertificateError("encoding options must be true or false")
    return options


def check_stored_refutation(
    cnf: StandaloneCNF,
    what: str,
    ev: dict[str, Any],
    time_limit: float | None,
    out: Report,
    full: bool = False,
    prefix: str = "",
) -> None:
    """Compare a regenerated CNF with the evidence's hash (and the sizes the evidence states,
    which the messages print), and re-check the stored proof against it, into ``out``.

    Parameters
    ----------
    cnf : StandaloneCNF
        The CNF rebuilt from the certificate.
    what : str
        What the CNF is, for the message ("CNF for 6 rounds").
    ev : dict
        The evidence: ``cnf_sha256``, ``proof_xz_base64`` (DRAT) or ``lrat_xz_base64``
        (LRAT, with ``proof_format`` ``lrat``), optionally ``variables``, ``clauses`` and
        ``proof_lines``.
    time_limit : float, optional
        Seconds for the proof checks.
    out : Report
    full : bool
        Run every checker even where one already decided.
    prefix : str
        Put before every message (a steps certificate names its point).
    """
    same = cnf.sha256() == ev.get("cnf_sha256")
    sizes = ev.get("variables", cnf.nvars) == cnf.nvars and ev.get(
        "clauses", len(cnf.clauses)
    ) == len(cnf.clauses)
    out.add(
        same and sizes,
        f"{prefix}{what} regenerated: {cnf.nvars} variables, {len(cnf.clauses)} clauses, "
        f"sha256 {'matches' if same else 'DIFFERS'}"
        + (
            ""
            if sizes
            else f" (the evidence states {ev.get('variables')} variables and "
            f"{ev.get('clauses')} clauses)"
        ),
    )
    for ok, text in recheck_evidence_proof(cnf, ev, time_limit, full):
        out.add(ok, prefix + text)


#: while set (:func:`upgrading`), a stored DRAT refutation met by a check is proved again
#: with a trimmed LRAT proof, which takes its place in the evidence
_UPGRADING: ContextVar[bool] = ContextVar("gossipcert_upgrading", default=False)


@contextmanager
def upgrading() -> Iterator[None]:
    """Within this context a certificate check replaces every stored DRAT refutation it
    meets by a trimmed LRAT proof of the same CNF (:func:`upgrade_evidence`), in the
    certificate's dict itself (:func:`gossipcert.certificates.upgrade.upgrade_certificate`)."""
    token = _UPGRADING.set(True)
    try:
        yield
    finally:
        _UPGRADING.reset(token)


def upgrade_evidence(
    cnf: StandaloneCNF, ev: dict[str, Any], time_limit: float | None
) -> list[tuple[bool | None, str]]:
    """Prove the refutation of ``cnf`` again, with a trimmed LRAT proof that both LRAT
    checkers verify, and put it in ``ev`` in place of its DRAT proof.

    The CNF is the one the check regenerated (its hash was compared with the evidence's
    before), so the new proof backs the same claim. When no LRAT proof is verified within
    ``time_limit``, ``ev`` is left as it is and its DRAT proof is re-checked as usual.

    Returns
    -------
    list of (bool or None, str)
        The check's lines, as :func:`recheck_stored_proof` gives them.
    """
    deadline = None if time_limit is None else time.monotonic() + time_limit
    pr = prove_unsat(cnf, deadline, lrat=True)
    if pr.status == QueryStatus.SAT:
        return [(False, "the regenerated CNF is satisfiable: the stored refutation is wrong")]
    verdict = None
    if pr.status == QueryStatus.UNSAT and pr.proof is not None:
        verdict = check_refutation(
            cnf.dimacs(), pr.proof, "lrat", deadline, formula=(cnf.nvars, cnf.clauses)
        )
    if verdict is None or not verdict.ok:
        kept: list[tuple[bool | None, str]] = [
            (None, "no LRAT proof verified within the time limit: the DRAT proof is kept")
        ]
        if verdict is not None and verdict.status == Verdict.REJECTED:
            kept = [(False, f"the new LRAT proof was rejected: {verdict.summary()}")]
        packed, lines = ev.get("proof_xz_base64"), ev.get("proof_lines")
        return kept + recheck_stored_proof(cnf, packed, time_limit, False, lines, "drat")
    assert pr.proof is not None
    ev.pop("proof_xz_base64", None)
    ev.update(proof_record(cnf, pr, verdict))  # its CNF fields are those the check compared
    count = pr.proof.count("\n")
    return [
        (
            o.ok,
            f"LRAT proof ({count} lines, trimmed from {pr.untrimmed_lines}) written in place "
            f"of the stored DRAT proof, checked by {o.checker} (deletions: {o.deletions}): "
            f"{o.status} in {o.seconds:.1f}s ({o.message})",
        )
        for o in verdict.outcomes
    ]


def recheck_evidence_proof(
    cnf: StandaloneCNF, ev: dict[str, Any], time_limit: float | None, full: bool = False
) -> list[tuple[bool | None, str]]:
    """:func:`recheck_stored_proof` on the proof an evidence stores: ``lrat_xz_base64`` (an
    LRAT proof; also when ``proof_format`` says ``lrat``) or ``proof_xz_base64`` (DRAT).
    Within :func:`upgrading`, a DRAT proof is replaced (:func:`upgrade_evidence`)."""
    lrat = "lrat_xz_base64" in ev or ev.get("proof_format") == "lrat"
    if _UPGRADING.get() and not lrat and "proof_xz_base64" in ev:
        return upgrade_evidence(cnf, ev, time_limit)
    packed = ev.get("lrat_xz_base64") if lrat else ev.get("proof_xz_base64")
    fmt = "lrat" if lrat else "drat"
    return recheck_stored_proof(cnf, packed, time_limit, full, ev.get("proof_lines"), fmt)


def check_drat_evidence(
    inst: Instance,
    rounds: int,
    options: EncodingOptions,
    ev: dict[str, Any],
    time_limit: float | None,
    out: Report,
    full: bool = False,
) -> None:
    """Regenerate the standalone CNF of ``inst`` for ``rounds`` rounds under ``options`` and
    check the stored refutation against it (:func:`check_stored_refutation`).

    Parameters
    ----------
    inst : Instance
    rounds : int
    options : EncodingOptions
        Those stored with the evidence (:func:`stored_options`).
    ev : dict
    time_limit : float, optional
    out : Report
    full : bool
    """
    cnf = standalone_cnf(inst, rounds, options)
    check_stored_refutation(cnf, f"CNF for {rounds} rounds", ev, time_limit, out, full)
