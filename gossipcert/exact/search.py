"""The round search: certified optimum, or the best bounds known.

1. The lower bound ``L`` is the best closed-form bound of :mod:`gossipcert.bounds`.
2. The upper bound ``U`` is the shortest verified schedule among the heuristics and
   constructions that apply (the universal ``gather-spread`` construction always does; should
   none give a schedule, :func:`schedule_by_horizon` asks the solver, doubling the horizon).
3. If ``L = U`` the optimum is certified without a solver (evidence: the bound).
4. Otherwise one encoding with horizon ``U - 1`` is handed to a back-end and queried with the
   assumption "all demands met after round ``r``". First descending probes at ``r = U - 1``
   (each given at most 30 s or a quarter of the remaining time) ask whether the best schedule
   is already optimal: a model is decoded into a schedule, verified, and lowers ``U``. Then
   ascending queries from ``r = L``: "unsatisfiable" at ``r`` raises ``L`` to ``r + 1``, a
   model ends the search. ``R*`` is certified when ``L = U``; a time-out leaves the answer
   ``feasible`` with bounds ``[L, U]``. Models the encodings do not cover get the bounds only
   (``optimal`` when they meet, ``feasible`` or ``unknown`` otherwise).
5. The claim "``R* - 1`` rounds are impossible" is then re-proved on a standalone CNF by
   CaDiCaL with a DRAT proof, judged by independent checkers
   (:func:`gossipcert.exact.checkers.check_proof`); if that does not finish in time the
   evidence is the back-end's infeasibility claim, labelled as such.

Every schedule returned has passed :func:`gossipcert.simulate.simulate`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gossipcert.bounds import Bound, best_lower_bound
from gossipcert.encodings.knowledge import EncodingOptions, KnowledgeEncoding, encoding_for
from gossipcert.errors import HeuristicError, SolverError, UnsupportedModelError
from gossipcert.exact.backends import BACKENDS, Status, make_backend
from gossipcert.exact.checkers import check_proof
from gossipcert.exact.proof import pack_proof, prove_unsat, standalone_cnf
from gossipcert.exact.symmetry import add_lex_leader, automorphism_generators
from gossipcert.instance import Instance, bits
from gossipcert.schedule import Schedule
from gossipcert.simulate import Report, simulate

Progress = Callable[[dict[str, Any]], None]

#: seconds for each descending probe "is the best schedule optimal?"
PROBE_SECONDS = 30.0


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


def _verified(instance: Instance, schedule: Schedule, what: str) -> tuple[Schedule, Report]:
    rep = simulate(instance, schedule)
    if not rep.ok:
        first = rep.errors[0].message if rep.errors else f"{len(rep.unmet)} demands unmet"
        raise SolverError(f"the {what} schedule failed verification: {first}")
    assert rep.rounds is not None
    return Schedule(schedule.rounds[: rep.rounds]), rep


def upper_bound_schedules(instance: Instance) -> list[tuple[str, Schedule]]:
    """Candidate schedules from the heuristics and constructions that apply (unverified)."""
    from gossipcert.constructions.catalog import upper_bound_candidates
    from gossipcert.heuristics.matching import matching_heuristic

    out: list[tuple[str, Schedule]] = []
    try:
        out.append(("matching-heuristic", matching_heuristic(instance)))
    except (UnsupportedModelError, HeuristicError):
        pass
    return out + upper_bound_candidates(instance)


def hint_from(encoding: KnowledgeEncoding, schedule: Schedule, horizon: int) -> dict[int, bool]:
    """Values of the link and knowledge variables along ``schedule`` (a CP-SAT hint)."""
    inst = encoding.instance
    know = list(inst.holdings)
    hint: dict[int, bool] = {}
    for t in range(1, horizon + 1):
        rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
        new = list(know)
        for tr in rnd:
            for r in tr.receivers:
                hint[encoding.link(tr.sender, r, t)] = True
                new[r] |= know[tr.sender]
        know = new
        for v in range(inst.n):
            for p in range(inst.n_packets):
                k = encoding.knows(v, p, t)
                if not isinstance(k, bool):
                    hint[k] = bool(know[v] >> p & 1)
    return hint


def solve(
    instance: Instance,
    backend: str = "sat",
    time_limit: float | None = None,
    strict: bool = False,
    proof: bool = True,
    use_bounds: bool = True,
    counting: bool = False,
    options: EncodingOptions | None = None,
    progress: Progress | None = None,
    seeds: list[tuple[str, Schedule]] | None = None,
) -> SolveResult:
    """Certify the minimum number of rounds of ``instance``.

    Parameters
    ----------
    instance : Instance
        Telephone or half-duplex, unbounded packets, any problem.
    backend : {"sat", "cpsat"}
    time_limit : float, optional
        Seconds for the whole search (and proof); on expiry the answer is ``feasible`` or
        ``unknown`` with the best bounds.
    strict : bool
        Leave out the constraints that a DRAT proof does not cover on its own (symmetry
        breaking and matching dominance).
    proof : bool
        Re-prove the final infeasibility with a checked DRAT proof.
    use_bounds : bool
        Start from the closed-form lower bound (off: from the trivial bound 0, so that the
        solver proves every step; used in tests).
    counting : bool
        Add the implied counting constraints (off by default: on the benchmark suite they
        slow both back-ends down).
    options : EncodingOptions, optional
        Overrides ``strict`` when given.
    progress : callable, optional
        Called with a dict per event (``{"event": "query", "rounds": r, "status": ...}``),
        and about every second during a solver query with a ``heartbeat`` event (``rounds``
        being decided, ``lower`` and ``upper`` bounds so far), which is not logged.
    seeds : list of (str, Schedule), optional
        Further candidate schedules for the upper bound (e.g. from an earlier run), named;
        verified like the others.

    Returns
    -------
    SolveResult

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> solve(parse_instance("ring:5", "telephone", "gossip")).optimum
    4
    """
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    if backend not in BACKENDS:
        raise SolverError(f"unknown back-end {backend!r}; choose one of {', '.join(BACKENDS)}")
    if options is None:
        # counting constraints slow both back-ends down on the suite of benchmarks/exact.py
        options = EncodingOptions(counting=counting, dominance=not strict, symmetry=not strict)
    log: list[dict[str, Any]] = []

    def emit(event: dict[str, Any]) -> None:
        event = {**event, "time": round(time.monotonic() - start, 3)}
        log.append(event)
        if progress is not None:
            progress(event)

    # 1. lower bound
    if use_bounds:
        lb = best_lower_bound(instance)
    else:
        lb = Bound(
            "trivial",
            "lower",
            0 if not _unmet(instance) else 1,
            "a demand not met at the start needs a round",
        )
    lower = lb.value
    lower_evidence: dict[str, Any] = {
        "kind": "closed-form",
        "name": lb.name,
        "value": lb.value,
        "source": lb.source,
    }
    emit({"event": "lower-bound", "value": lower, "source": lb.name})

    # 2. upper bound from verified heuristic schedules
    best: tuple[Schedule, Report] | None = None
    upper_source = "none"
    for name, cand in [*(seeds or []), *upper_bound_schedules(instance)]:
        rep = simulate(instance, cand)
        if rep.ok and (best is None or rep.rounds < best[1].rounds):  # type: ignore[operator]
            best = (Schedule(cand.rounds[: rep.rounds]), rep)
            upper_source = name
    if best is not None:
        emit({"event": "upper-bound", "value": best[1].rounds, "source": upper_source})
    times = {"bounds": time.monotonic() - start}

    def result(status: str, evidence: dict[str, Any], interrupted: bool = False) -> SolveResult:
        now = time.monotonic()
        times["total"] = now - start
        sched, rep = best if best is not None else (None, None)
        upper = rep.rounds if rep is not None else None
        timed_out = deadline is not None and now >= deadline and not interrupted
        return SolveResult(
            instance,
            status,
            upper if status == "optimal" else None,
            lower,
            upper,
            sched,
            rep,
            evidence,
            upper_source,
            backend,
            options,
            times,
            log,
            timed_out,
            interrupted,
        )

    if best is not None and best[1].rounds < lower:  # type: ignore[operator]
        raise SolverError(
            f"the verified schedule of {best[1].rounds} rounds beats the closed-form lower bound "
            f"{lower} ({lb.name}): that bound does not hold here"
        )
    if best is not None and best[1].rounds == lower:
        return result("optimal", lower_evidence)
    # 3. solver search (models without an encoding get the bounds only)
    try:
        enc = encoding_for(instance, options)
    except UnsupportedModelError as exc:
        emit({"event": "no-solver", "reason": str(exc)})
        return result("feasible" if best is not None else "unknown", lower_evidence)
    if best is None:  # no heuristic or construction applied: find a first schedule
        best = schedule_by_horizon(instance, enc.options, backend, max(lower, 1), deadline, emit)
        if best is None:
            return result("unknown", lower_evidence)
        upper_source = f"{backend}-solver"
        emit({"event": "upper-bound", "value": best[1].rounds, "source": upper_source})
    horizon = best[1].rounds - 1  # type: ignore[operator]
    enc.extend_to(horizon)
    if options.symmetry:
        gens = add_lex_leader(enc, automorphism_generators(instance))
        emit({"event": "symmetry", "generators": gens})
    solver = make_backend(backend, enc.formula)
    unsat_at: int | None = None  # the largest horizon the solver proved infeasible
    t_find = t_prove = 0.0

    def query(r: int, until: float | None) -> Status:
        nonlocal best, upper_source, unsat_at, lower, t_find, t_prove
        assert best is not None
        q0 = time.monotonic()
        hint = hint_from(enc, best[0], horizon) if backend == "cpsat" else None

        def tick() -> None:
            if progress is not None:
                progress(
                    {
                        "event": "heartbeat",
                        "time": round(time.monotonic() - start, 3),
                        "rounds": r,
                        "lower": lower,
                        "upper": upper(),
                    }
                )

        status = solver.solve([enc.selector(r)], until, hint, tick)
        dt = time.monotonic() - q0
        emit({"event": "query", "rounds": r, "status": status.value, "seconds": round(dt, 3)})
        if status is Status.SAT:
            t_find += dt
            best = _verified(instance, enc.decode(r, solver.value), f"{backend} solver's")
            upper_source = f"{backend}-solver"
            emit({"event": "upper-bound", "value": best[1].rounds, "source": upper_source})
        elif status is Status.UNSAT:
            t_prove += dt
            unsat_at = r
            lower = r + 1
            emit({"event": "lower-bound", "value": lower, "source": f"{backend}-solver"})
        return status

    def claim() -> dict[str, Any]:
        return {
            "kind": "solver-claim",
            "rounds": unsat_at,
            "solver": "CaDiCaL 1.9.5 (PySAT)" if backend == "sat" else "CP-SAT (OR-Tools)",
            "encoding": options.to_json(),
            "note": "the solver's infeasibility claim, not independently checked",
        }

    def upper() -> int:
        assert best is not None and best[1].rounds is not None
        return best[1].rounds

    try:
        # descending probes: is the best schedule already optimal? each probe gets a slice
        while lower < upper():
            now = time.monotonic()
            slice_end = now + PROBE_SECONDS
            if deadline is not None:
                slice_end = min(slice_end, now + (deadline - now) / 4)
            if query(upper() - 1, slice_end) is not Status.SAT:
                break
        # ascending from the lower bound: each refutation raises it, a model ends the search
        while lower < upper():
            status = query(lower, deadline)
            if status is Status.UNKNOWN:
                times.update(find=t_find, prove=t_prove)
                return result("feasible", lower_evidence if unsat_at is None else claim())
    except KeyboardInterrupt:
        times.update(find=t_find, prove=t_prove)
        status_now = "optimal" if lower == upper() else "feasible"
        evidence_now = lower_evidence if unsat_at is None or unsat_at + 1 != lower else claim()
        return result(status_now, evidence_now, interrupted=True)
    finally:
        solver.close()
    times.update(find=t_find, prove=t_prove)
    if unsat_at is None or unsat_at + 1 != upper():  # the schedule met the closed-form bound
        return result("optimal", lower_evidence)
    if not proof:
        return result("optimal", claim())
    # 4. DRAT proof on a standalone CNF, checked independently
    p0 = time.monotonic()
    cnf = standalone_cnf(instance, unsat_at, options)
    try:
        pr = prove_unsat(cnf, deadline)
    except KeyboardInterrupt:
        times["proof"] = time.monotonic() - p0
        return result("optimal", claim(), interrupted=True)
    emit(
        {"event": "proof", "rounds": unsat_at, "status": pr.status, "seconds": round(pr.seconds, 3)}
    )
    if pr.status != "unsat" or pr.proof is None:
        if pr.status == "sat":
            raise SolverError(
                f"back-ends disagree: the standalone CNF for {unsat_at} rounds is satisfiable"
            )
        times["proof"] = time.monotonic() - p0
        return result("optimal", claim())
    verdict = check_proof(cnf.dimacs(), pr.proof, deadline)
    times["proof"] = time.monotonic() - p0
    emit({"event": "proof-check", "status": verdict.status, "summary": verdict.summary()})
    if verdict.status == "rejected":
        raise SolverError(f"the DRAT proof for {unsat_at} rounds was rejected: {verdict.summary()}")
    if not verdict.ok:  # a checker ran out of time: the solver's word is all there is
        return result("optimal", claim())
    evidence = {
        "kind": "drat",
        "rounds": unsat_at,
        "encoding": options.to_json(),
        "symmetry_generators": cnf.generators,
        "cnf_sha256": cnf.sha256(),
        "variables": cnf.nvars,
        "clauses": len(cnf.clauses),
        "proof_solver": "CaDiCaL 1.9.5 (PySAT)",
        "proof_lines": pr.proof.count("\n"),
        "proof_bytes": len(pr.proof),
        "checkers": [o.to_json() for o in verdict.outcomes],
        "proof_xz_base64": pack_proof(pr.proof),
    }
    if options.symmetry or options.dominance:
        evidence["note"] = (
            "the CNF includes "
            + " and ".join(
                w
                for w, on in (
                    ("lex-leader symmetry breaking", options.symmetry),
                    ("matching dominance", options.dominance),
                )
                if on
            )
            + ", sound by the arguments in the encoding docstrings; use --strict for a proof "
            "of the plain encoding"
        )
    return result("optimal", evidence)


def schedule_by_horizon(
    instance: Instance,
    options: EncodingOptions,
    backend: str,
    start: int,
    deadline: float | None,
    emit: Progress | None = None,
) -> tuple[Schedule, Report] | None:
    """A first verified schedule from the solver alone, doubling the horizon until one exists.

    Used when no heuristic or construction gives an upper bound. Horizons ``start``,
    ``2 start``, ``4 start`` ... are encoded afresh (without symmetry breaking) and asked
    for a schedule, up to :func:`gossipcert.heuristics.matching.round_bound`, a length at
    which one always exists (every round of some schedule teaches a node a packet it lacks).

    Parameters
    ----------
    instance : Instance
    options : EncodingOptions
    backend : {"sat", "cpsat"}
    start : int
        The first horizon (the lower bound, at least 1).
    deadline : float or None
        A ``time.monotonic()`` value; None waits for ever.
    emit : callable, optional
        Receives one ``{"event": "horizon", ...}`` dict per query.

    Returns
    -------
    (Schedule, Report) or None
        The verified schedule and its report; None on a time-out.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> found = schedule_by_horizon(parse_instance("path:4", "telephone", "gossip"),
    ...                             EncodingOptions(), "sat", 1, None)
    >>> found[1].rounds <= 4
    True
    """
    from gossipcert.heuristics.matching import round_bound

    most = max(start, round_bound(instance))
    horizon = start
    while True:
        enc = encoding_for(instance, options)
        sel = enc.selector(horizon)
        solver = make_backend(backend, enc.formula)
        try:
            status = solver.solve([sel], deadline, None)
            if emit is not None:
                emit({"event": "horizon", "rounds": horizon, "status": status.value})
            if status is Status.SAT:
                return _verified(instance, enc.decode(horizon, solver.value), f"{backend} solver's")
        finally:
            solver.close()
        if status is Status.UNKNOWN or horizon >= most:
            return None
        horizon = min(2 * horizon, most)


def _unmet(instance: Instance) -> bool:
    return any(bits(d & ~h) for d, h in zip(instance.demands, instance.holdings, strict=False))
