"""The work of one instance of a sweep, as a worker process (or a Dask worker) runs it.

For each instance the row holds: the best closed-form lower bound, its name and source
(:mod:`gossipcert.closed_forms`); the rounds of every construction of
:mod:`gossipcert.constructions.catalog` that applies and passes the verifier; the rounds of
the matching heuristic; and, when the task asks for it, the answer of the exact search
(:func:`gossipcert.watchdog.solve_within`) — the certified optimum with its evidence
kind, or ``feasible``/``unknown`` with both bounds when the time limit runs out — with its
certificate. Nothing here writes to the store: the calling process records the results
(:mod:`gossipcert.tables.running`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance, parse_instance
from gossipcert.statuses import SolveStatus
from gossipcert.tables.sweeps import spec_key


@dataclass(frozen=True)
class Task:
    """One instance to evaluate (picklable: it travels to worker processes)."""

    graph: str
    model: str
    problem: str
    solve: bool
    time_limit: float | None
    backend: str

    @property
    def spec_id(self) -> str:
        """The key of this instance's row inside a store entry
        (:func:`~gossipcert.tables.sweeps.spec_key`)."""
        return spec_key(self.graph, self.model, self.problem)


def _constructions(instance: Instance) -> str:
    from gossipcert.constructions.catalog import CONSTRUCTIONS, construct
    from gossipcert.simulate import simulate

    found: list[str] = []
    for name in CONSTRUCTIONS:
        try:
            sched = construct(instance, name)
        except GossipcertError:
            continue
        rep = simulate(instance, sched)
        if rep.ok:  # a schedule the verifier rejects is not one for this model
            found.append(f"{name}={rep.rounds}")
    return ", ".join(found)


def _heuristic(instance: Instance) -> int | None:
    from gossipcert.heuristics.matching import matching_heuristic
    from gossipcert.simulate import simulate

    try:
        sched = matching_heuristic(instance)
    except GossipcertError:
        return None
    rep = simulate(instance, sched)
    return rep.rounds if rep.ok else None


def evaluate(task: Task) -> dict[str, Any]:
    """Compute one instance's row (and, if ``task.solve``, its solve outcome and certificate).

    Parameters
    ----------
    task : Task

    Returns
    -------
    dict
        ``{"spec_id", "row", "outcome", "certificate"}``; ``outcome`` and ``certificate`` are
        None when nothing was solved (or no optimum was certified).
    """
    from gossipcert.closed_forms import best_lower_bound

    instance = parse_instance(task.graph, task.model, task.problem)
    lb = best_lower_bound(instance)
    row = {
        "graph": task.graph,
        "model": task.model,
        "problem": task.problem,
        "n": instance.n,
        "m": instance.graph.number_of_edges(),
        "lower_bound": lb.value,
        "lower_bound_name": lb.name,
        "lower_bound_source": lb.source,
        "constructions": _constructions(instance),
        "heuristic": _heuristic(instance),
    }
    outcome: dict[str, Any] | None = None
    cert: dict[str, Any] | None = None
    if task.solve:
        outcome, cert = _solve(instance, task)
    return {"spec_id": task.spec_id, "row": row, "outcome": outcome, "certificate": cert}


def _solve(instance: Instance, task: Task) -> tuple[dict[str, Any], dict[str, Any] | None]:
    from gossipcert.certificates.certificate import build_certificate
    from gossipcert.command_start import limits_from_now
    from gossipcert.watchdog import solve_within

    t0 = time.monotonic()
    try:
        with limits_from_now():  # the limit is per instance, not from the command's start
            res = solve_within(
                instance, backend=task.backend, time_limit=task.time_limit, in_child=True
            )
    except GossipcertError as exc:
        return {
            "status": "error",
            "message": str(exc),
            "time_limit": task.time_limit,
            "seconds": round(time.monotonic() - t0, 2),
        }, None
    if res.interrupted:  # SIGINT or SIGTERM: the sweep stops, and this answer is not one
        raise KeyboardInterrupt
    fields = res.status_fields()  # optimal only when proved; the solver's word is feasible
    outcome = {
        "status": fields["status"],
        "decided_by_solver": fields["decided_by_solver"],
        "optimum": fields["optimum"],
        "lower": res.lower_bound,
        "upper": res.upper_bound,
        "evidence": res.evidence.get("kind") if res.status is SolveStatus.OPTIMAL else None,
        "schedule_source": res.upper_source if res.schedule is not None else None,
        "time_limit": task.time_limit,
        "backend": task.backend,
        "seconds": round(time.monotonic() - t0, 2),
    }
    return outcome, (build_certificate(res) if res.status is SolveStatus.OPTIMAL else None)
