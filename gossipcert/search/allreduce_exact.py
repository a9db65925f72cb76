"""The exact search of the allreduce bracket (:mod:`gossipcert.search.allreduce`): each horizon
between the bounds decided by CaDiCaL, the union relaxation of
:mod:`gossipcert.encodings.allreduce_union` with a checked proof (a refutation raises the lower
bound) and the exact CNF of :mod:`gossipcert.encodings.allreduce` for a schedule (replayed by the
verifier), at once on two cores (:func:`decide`), one after the other on one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pysat.solvers import Solver

from gossipcert.children import Child, Send, may_fan_out, ready
from gossipcert.command_start import seconds_left
from gossipcert.encodings import allreduce as exact
from gossipcert.encodings import allreduce_union as union
from gossipcert.encodings.allreduce import decode, standalone
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.instance import Instance
from gossipcert.proofs.refutation import (
    PROOF_SOLVER,
    ProofResult,
    checked_refutation,
    proof_record,
    refutation_status,
)
from gossipcert.proofs.verdicts import ProofVerdict
from gossipcert.schedule import Schedule
from gossipcert.search.heartbeat import heartbeats
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import allow_long_slices, solve_sliced
from gossipcert.statuses import QueryStatus


def replayed(instance: Instance, candidate: Schedule) -> tuple[Schedule, Any] | None:
    """``candidate`` cut to its rounds and its verifier's report, or None if it is not a
    valid schedule of ``instance``."""
    report = simulate(instance, candidate)
    if not report.ok:
        return None
    return Schedule(candidate.rounds[: report.rounds]), report


def find(
    instance: Instance, rounds: int, deadline: float | None, symmetry: bool = True
) -> tuple[str, Schedule | None]:
    """Look for a schedule of ``rounds`` rounds: ``("sat", schedule)``, ``("unsat", None)``
    or ``("unknown", None)`` at ``deadline`` (a ``time.monotonic()`` value). With
    ``symmetry`` the model orders interchangeable chunks (family 7 of
    :mod:`gossipcert.encodings.allreduce`): a renaming of a schedule's chunks is one too,
    so "unsat" is still exact, and a schedule found is replayed by the caller like any
    other."""
    f = exact.build(instance, rounds, symmetry=symmetry)
    with Solver(name=PROOF_SOLVER, bootstrap_with=f.cnf_since(0)) as solver:
        found = solve_sliced(solver, [], deadline)
        if found is None:
            return QueryStatus.UNKNOWN, None
        if not found:
            return QueryStatus.UNSAT, None
        return QueryStatus.SAT, decode(f, solver.get_model() or [], rounds)


def refute(
    instance: Instance, rounds: int, deadline: float | None
) -> tuple[StandaloneCNF, ProofResult, ProofVerdict] | None:
    """A checked DRAT proof that ``rounds`` rounds are impossible, or None (satisfiable or
    out of time).

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    _, cnf = standalone(instance, rounds)
    out = checked_refutation(cnf, deadline, None, f"the DRAT proof of allreduce in {rounds}")
    return None if out is None else (cnf, *out)


def refute_union(
    instance: Instance, rounds: int, deadline: float | None, strict: bool = False
) -> tuple[str, dict[str, Any] | None]:
    """Refute the union relaxation (:mod:`gossipcert.encodings.allreduce_union`) for
    ``rounds`` rounds: ``("unsat", record)`` with the checked proof's record (its
    ``formula`` is ``"union"``, ``strict`` says which options), else ``("sat", None)`` or
    ``("unknown", None)`` (out of time).

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    options = union.STRICT_OPTIONS if strict else union.DEFAULT_OPTIONS
    _, cnf = union.standalone(instance, rounds, options)
    name = f"the DRAT proof of the allreduce union relaxation in {rounds}"
    status, out = refutation_status(cnf, deadline, name)
    if out is None:
        return status, None
    return status, {"formula": "union", "strict": strict, **proof_record(cnf, *out)}


def exact_search(
    instance: Instance,
    lower: int,
    upper: int,
    deadline: float | None,
    strict: bool = False,
    emit: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[tuple[Schedule, Any] | None, int | None, dict[str, Any] | None, bool]:
    """Decide ``lower .. upper - 1`` rounds, ascending: ``(schedule and its verifier's
    report, or None; the most rounds refuted or None; the proof record of that refutation;
    stopped by Ctrl-C)``.
    Each horizon is put to the union relaxation, whose refutation (a checked
    proof) settles it, and to the exact model without a proof, whose schedule settles it
    (:func:`decide`: the two at once where two cores are free); when the relaxation is
    satisfiable and the exact model is not, the exact model is refuted with a proof.
    Ctrl-C ends the search with what it has decided. ``emit`` receives a progress event
    as each horizon starts and ends, and heartbeats between."""

    def told(event: dict[str, Any]) -> None:
        if emit is not None:
            emit(event)

    refuted, record = None, None
    try:
        for r in range(lower, upper):
            if seconds_left(deadline) <= 0:
                break
            told({"event": "trying", "rounds": r, "what": _TRYING})
            began = time.monotonic()
            bracket = {"rounds": r, "lower": r, "upper": upper}
            with heartbeats(emit, f"deciding {r} rounds: {_TRYING}", bracket.copy):
                relaxed, relaxed_record, status, schedule = decide(instance, r, deadline, strict)
            if relaxed == QueryStatus.UNSAT:
                refuted, record = r, relaxed_record
                told(
                    query_event(r, QueryStatus.UNSAT, began, "the union relaxation, proof checked")
                )
                told({"event": "lower-bound", "value": r + 1, "source": "allreduce-drat"})
                continue
            found = None if schedule is None else replayed(instance, schedule)
            if status == QueryStatus.SAT and found is not None:
                told(query_event(r, QueryStatus.SAT, began, "the exact model, schedule verified"))
                told({"event": "upper-bound", "value": r, "source": "the allreduce model"})
                return found, refuted, record, False
            proved = None
            if status == QueryStatus.UNSAT:
                what = f"the exact model has no schedule of {r} rounds: its proof"
                with heartbeats(emit, what, bracket.copy):
                    proved = refute(instance, r, deadline)
            if proved is None:
                told(query_event(r, QueryStatus.UNKNOWN, began, "out of time"))
                break
            cnf, pr, verdict = proved
            refuted, record = r, proof_record(cnf, pr, verdict)
            told(query_event(r, QueryStatus.UNSAT, began, "the exact model, proof checked"))
            told({"event": "lower-bound", "value": r + 1, "source": "allreduce-drat"})
    except KeyboardInterrupt:
        return None, refuted, record, True
    return None, refuted, record, False


#: what a horizon of the exact search puts to the solvers (a progress line)
_TRYING = "the union relaxation (a refutation) and the exact model (a schedule)"


def query_event(rounds: int, status: QueryStatus, began: float, method: str) -> dict[str, Any]:
    """The progress event of a horizon decided (or not) since ``began``."""
    seconds = round(time.monotonic() - began, 3)
    return {
        "event": "query",
        "rounds": rounds,
        "status": status,
        "seconds": seconds,
        "method": method,
    }


def decide(
    instance: Instance, rounds: int, deadline: float | None, strict: bool = False
) -> tuple[str, dict[str, Any] | None, str, Schedule | None]:
    """``(union status, its proof record, exact status, schedule)`` for ``rounds`` rounds:
    :func:`refute_union` and :func:`find`, each ``"sat"``, ``"unsat"``, ``"unknown"`` (out of
    time) or ``"skipped"`` (not needed: the other settled the horizon).

    On one core the union relaxation goes first and the exact model only when the
    relaxation is satisfiable. With two (:func:`gossipcert.children.may_fan_out`: two cores
    or more, and not one of a pool's workers) both run at once in forked
    children (:class:`gossipcert.children.Child`), each without a deadline of its own, so
    in one solver call (:func:`gossipcert.solvers.backends.allow_long_slices`), and killed
    at ``deadline``: a refutation of the relaxation or a schedule ends the race, and
    the other child is killed. The relaxation is satisfiable more often than not near the
    optimum, where the exact model has to be solved anyway; once it is, its core runs a
    second search of the exact model, without family 7 (the ordering of interchangeable
    chunks), and the first of the two searches to answer decides. A child that ends without an
    answer (killed by the system, a crash in a native solver) does not lose the horizon:
    with time left, it is decided again in this process, one model after the other.

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    if not may_fan_out():
        return _in_turn(instance, rounds, deadline, strict)
    # each child and what it answers: the relaxation's refutation ("union"), or a search of
    # the exact model with (True) or without (False) family 7
    running: dict[Child, str | bool] = {}
    relaxed, record, status, schedule = QueryStatus.UNKNOWN, None, QueryStatus.UNKNOWN, None
    answered: set[str] = set()
    try:
        running[Child(_union_in_child, (instance, rounds, strict), allow_long_slices)] = "union"
        running[Child(_find_in_child, (instance, rounds, True), allow_long_slices)] = True
        while any(not child.done for child in running):
            if seconds_left(deadline) <= 0:
                break
            for child in ready(running, deadline):
                if child.done:  # reaped a moment ago: its search was not needed
                    continue
                for kind, value in child.read():
                    if kind == "error":
                        raise value
                    if kind == "interrupted":  # SIGTERM to the process group
                        raise KeyboardInterrupt
                    if kind != "result":
                        continue
                    if running[child] == "union":
                        answered.add("union")
                        relaxed, record = value
                    elif "find" not in answered:
                        answered.add("find")
                        status, schedule = value
                        for other, role in running.items():  # the other search: not needed
                            if other is not child and role != "union":
                                other.reap()
                if child.done:
                    child.reap()
            if relaxed == QueryStatus.UNSAT:
                return relaxed, record, "skipped", None
            if status == QueryStatus.SAT:
                return "skipped", None, status, schedule
            if relaxed == QueryStatus.SAT and "find" not in answered and len(running) == 2:
                # the relaxation's core is free: a second search of the exact model, without
                # family 7 (the two configurations are fastest on different horizons)
                running[Child(_find_in_child, (instance, rounds, False), allow_long_slices)] = False
    finally:
        for child in running:
            child.reap()
    if len(answered) < 2 and seconds_left(deadline) > 0:
        # a child ended without an answer (killed by the system, a crash in the solver):
        # what it would have said is decided here
        if "find" in answered:  # the exact model is unsatisfiable: the caller proves it
            return QueryStatus.UNKNOWN, None, status, None
        if "union" in answered:
            return (relaxed, None, *find(instance, rounds, deadline))
        return _in_turn(instance, rounds, deadline, strict)
    return relaxed, record, status, schedule


def _in_turn(
    instance: Instance, rounds: int, deadline: float | None, strict: bool
) -> tuple[str, dict[str, Any] | None, str, Schedule | None]:
    """:func:`decide` on one core: the relaxation first, the exact model when it is
    satisfiable."""
    relaxed, record = refute_union(instance, rounds, deadline, strict)
    if relaxed != QueryStatus.SAT:
        return relaxed, record, "skipped", None
    status, schedule = find(instance, rounds, deadline)
    return relaxed, None, status, schedule


def _union_in_child(send: Send, instance: Instance, rounds: int, strict: bool) -> Any:
    """:func:`refute_union` without a deadline (the parent kills the child at its own)."""
    return refute_union(instance, rounds, None, strict)


def _find_in_child(send: Send, instance: Instance, rounds: int, symmetry: bool) -> Any:
    """:func:`find` without a deadline (the parent kills the child at its own)."""
    return find(instance, rounds, None, symmetry)
