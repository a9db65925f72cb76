"""The schedule portfolio: several ways of finding a short schedule race in processes.

The hard side of many instances is the schedule, not the refutation (design, "Exact search"):
BF4's 7-round schedule comes from a matching sequence while the solver finds none in 600 s,
and on DeBruijn6 one run found 9 rounds and the next, under load, only 11. The portfolio runs
several *entrants* side by side, each in its own process:

- ``candidates``: the constructions and heuristics of the search's upper bound
  (:func:`gossipcert.finders.upper.upper_bound_schedules`);
- ``matching-sweep``: the matching heuristic's parameter sweep for the whole budget;
- ``coloring``: the coloring heuristic for the whole budget (telephone, unbounded packets);
- ``cpsat-seed-S``: CP-SAT with :attr:`PortfolioSettings.workers` workers and random seed
  ``S``, hinted with the best schedule known when it starts;
- ``sat-phases``: CaDiCaL with its decision phases set to that schedule;
- ``symmetric``: schedules invariant under small automorphism groups, at descending
  horizons (:mod:`gossipcert.finders.invariant_step`; telephone gossip with unbounded
  packets on a graph with automorphisms);
- ``anneal``: simulated annealing (:mod:`gossipcert.heuristics.annealing`) from the best
  schedule known when it starts (else the matching heuristic's), one round shorter again
  and again, down to the target (telephone with unbounded packets).

Earlier solutions (the ``seeds``: a resumed run, a stored certificate) are verified first.
A solver entrant takes its first horizon and its hint from the best schedule known when it
starts (with fewer processes than entrants, the later ones start from the earlier ones'
results), or, with none, from the solver alone with doubling horizons. A solver entrant asks for a
schedule one round shorter than the best it knows, again and again, down to the target.

Every schedule an entrant reports is verified by :func:`gossipcert.simulate.simulate` in the
parent before it counts. The first verified schedule of ``target`` rounds (the closed-form
lower bound: nothing shorter exists) wins and the other entrants are killed; otherwise the
shortest verified schedule when the budget runs out or every entrant has finished. Ties keep
the earlier report. Solver entrants encode without lex-leader constraints, so that the hint
(and any schedule) stays a model.

Examples
--------
>>> from gossipcert.instance import parse_instance
>>> res = race(parse_instance("hypercube:3", "telephone", "gossip"), PortfolioSettings(5.0))
>>> res.rounds, res.won
(3, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from gossipcert.children import Child, ready
from gossipcert.errors import GossipcertError, UnsupportedModelError
from gossipcert.finders.upper import schedule_by_horizon, upper_bound_schedules
from gossipcert.graphs import latencies
from gossipcert.heuristics.portfolio import PortfolioResult
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

Send = Callable[[str, Schedule], None]

#: entrants in the order they get a process when there are fewer processes than entrants
ENTRANTS = (
    "candidates",
    "cpsat-seed-0",
    "sat-phases",
    "symmetric",
    "anneal",
    "matching-sweep",
    "coloring",
)


@dataclass(frozen=True)
class PortfolioSettings:
    """The portfolio's ``seconds``, ``jobs`` processes at a time, CP-SAT ``workers`` per
    solver entrant and the number of CP-SAT ``seeds`` (entrants ``cpsat-seed-0 ..``)."""

    seconds: float
    jobs: int = 2
    workers: int = 1
    seeds: int = 2


def entrant_names(instance: Instance, settings: PortfolioSettings) -> list[str]:
    """The entrants that apply to ``instance``, in the order they start."""
    from gossipcert.encodings import REGISTRY
    from gossipcert.finders.invariant_step import symmetric_step_applies
    from gossipcert.symmetry.automorphisms import automorphism_generators

    solver = instance.model.kind in REGISTRY and not (
        instance.model.rules.arc_capacities and instance.model.calls_per_round is not None
    )
    coloring = _coloring_applies(instance)
    names = ["candidates"]
    cpsat = [f"cpsat-seed-{s}" for s in range(settings.seeds)] if solver else []
    if cpsat:
        names.append(cpsat[0])
    if solver:
        names.append("sat-phases")
    if symmetric_step_applies(instance, min_nodes=2) and automorphism_generators(instance):
        names.append("symmetric")
    if _anneal_applies(instance):
        names.append("anneal")
    names.append("matching-sweep")
    if coloring:
        names.append("coloring")
    return names + cpsat[1:]


def _coloring_applies(instance: Instance) -> bool:
    from gossipcert.heuristics.coloring import check_model

    try:
        check_model(instance)
    except UnsupportedModelError:
        return False
    return True


def _anneal_applies(instance: Instance) -> bool:
    from gossipcert.heuristics.annealing import check_model

    try:
        check_model(instance)
    except UnsupportedModelError:
        return False
    return True


# ------------------------------------------------------------------------------ entrants


def _candidates(instance: Instance, target: int, budget: float, send: Send, **_: Any) -> None:
    for name, sched in upper_bound_schedules(instance, target):
        send(name, sched)


def _matching_sweep(instance: Instance, target: int, budget: float, send: Send, **_: Any) -> None:
    from gossipcert.heuristics.settings_grid import best_of_grid

    best = best_of_grid(instance, budget, lower_bound=target).best
    send(f"matching-sweep ({best.params.describe()})", best.schedule)


def _coloring(instance: Instance, target: int, budget: float, send: Send, **_: Any) -> None:
    from gossipcert.heuristics.coloring import coloring_heuristic

    res = coloring_heuristic(instance, min_rounds=target, time_limit=budget)
    send(f"coloring {res.sequence}", res.schedule)


def _symmetric(
    instance: Instance,
    target: int,
    budget: float,
    send: Send,
    hint: Schedule | None = None,
    **_: Any,
) -> None:
    """Invariant schedules below the hint (or below the first candidate schedule)."""
    from gossipcert.finders.invariant_step import symmetric_candidates

    deadline = time.monotonic() + budget
    upper = None if hint is None else len(hint.rounds)
    if upper is None:
        for _source, cand in upper_bound_schedules(instance, target):
            rep = simulate(instance, cand)
            if rep.ok and rep.rounds is not None and (upper is None or rep.rounds < upper):
                upper = rep.rounds
    if upper is None:
        return
    left = max(0.0, deadline - time.monotonic())
    for label, sched in symmetric_candidates(instance, upper, target, left):
        send(label, sched)


def _anneal(
    instance: Instance,
    target: int,
    budget: float,
    send: Send,
    hint: Schedule | None = None,
    **_: Any,
) -> None:
    """Annealed schedules one round shorter than the best known, down to ``target``."""
    from gossipcert.heuristics.annealing import AnnealParams, anneal_schedule
    from gossipcert.heuristics.matching import matching_heuristic

    deadline = time.monotonic() + budget
    best = hint if hint is not None else matching_heuristic(instance)
    rounds = len(best) - 1
    while rounds >= max(target, 1) and time.monotonic() < deadline:
        left = max(0.0, deadline - time.monotonic())
        res = anneal_schedule(
            instance, rounds, AnnealParams(steps=None, time_limit=left), initial=best
        )
        if res.schedule is None:
            return
        best = res.schedule
        send(f"anneal ({rounds} rounds)", best)
        rounds = len(best) - 1


def _truth(model: dict[int, bool]) -> Callable[[int], bool]:
    """The value of each variable in ``model`` (false where the model has none)."""
    return lambda v: model.get(v, False)


def _solver(
    instance: Instance,
    target: int,
    budget: float,
    send: Send,
    *,
    kind: str,
    seed: int,
    workers: int,
    hint: Schedule | None,
) -> None:
    """Ask for a schedule one round shorter than the best known, down to ``target``."""
    from pysat.solvers import Solver

    from gossipcert.encodings import EncodingOptions, encoding_for
    from gossipcert.solvers.backends import compile_cpsat
    from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

    deadline = time.monotonic() + budget
    options = replace(EncodingOptions.for_search(), symmetry=False)
    name = f"cpsat-seed-{seed}" if kind == "cpsat" else "sat-phases"
    if hint is None:
        found = schedule_by_horizon(instance, options, kind, max(target, 1), deadline)
        if found is None:
            return
        hint = found[0]
        send(name, hint)
    while len(hint.rounds) - 1 >= max(target, 1) and time.monotonic() < deadline:
        horizon = len(hint.rounds) - 1
        enc = encoding_for(instance, options)
        enc.extend_to(horizon)
        sel = enc.selector(horizon)
        values = enc.hint(hint, horizon)
        if kind == "cpsat":
            from ortools.sat.python import cp_model

            model, x, lit = compile_cpsat(enc.formula)
            model.add_bool_and([lit(sel)])
            for v, val in values.items():
                if v in x:
                    model.add_hint(x[v], val)
            solver = cpsat_solver(workers, max(0.1, deadline - time.monotonic()), seed)
            status = run_cpsat(solver, model)
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return
            got = {v: bool(solver.boolean_value(var)) for v, var in x.items()}
            sched = enc.decode(horizon, _truth(got))
        else:
            with Solver(name="cadical195", bootstrap_with=enc.formula.cnf_since(0)) as sat:
                sat.set_phases([v if val else -v for v, val in values.items()])
                if not sat.solve(assumptions=[sel]):
                    return
                model_set = {lit for lit in sat.get_model() or [] if lit > 0}
            sched = enc.decode(horizon, model_set.__contains__)
        send(name, sched)
        hint = sched


_RUNNERS: dict[str, Callable[..., None]] = {
    "candidates": _candidates,
    "matching-sweep": _matching_sweep,
    "coloring": _coloring,
    "symmetric": _symmetric,
    "anneal": _anneal,
}


def _entrant_main(
    send: Any,
    name: str,
    instance: Instance,
    target: int,
    budget: float,
    hint: Any,
    workers: int,
) -> None:  # pragma: no cover - runs in a child process
    def found(label: str, sched: Schedule) -> None:
        send(("message", ("schedule", name, label, sched)))

    try:
        if name in _RUNNERS:
            _RUNNERS[name](instance, target, budget, found, hint=hint)
        else:
            kind = "cpsat" if name.startswith("cpsat") else "sat"
            seed = int(name.rsplit("-", 1)[1]) if kind == "cpsat" else 0
            _solver(
                instance, target, budget, found, kind=kind, seed=seed, workers=workers, hint=hint
            )
    except GossipcertError as exc:
        send(("message", ("error", name, str(exc), None)))


# ------------------------------------------------------------------------------ the race


def race(
    instance: Instance,
    settings: PortfolioSettings,
    target: int | None = None,
    seeds: list[tuple[str, Schedule]] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    skip: tuple[str, ...] = (),
) -> PortfolioResult:
    """Race the entrants for ``settings.seconds``; the best verified schedule.

    Parameters
    ----------
    instance : Instance
    settings : PortfolioSettings
    target : int, optional
        Stop at a schedule this short (default: the best closed-form lower bound).
    seeds : list of (str, Schedule), optional
        Earlier solutions; verified first, the best one hints the solver entrants.
    progress : callable, optional
        Called with ``{"event": "portfolio", "entrant": ..., "rounds": ...}`` per improvement.
    skip : tuple of str
        Entrants not to run (the search has already tried the ``candidates``).

    Returns
    -------
    PortfolioResult
    """
    from gossipcert.closed_forms import best_lower_bound

    if target is None:
        target = best_lower_bound(instance).value
    start = time.monotonic()
    deadline = start + settings.seconds
    res = PortfolioResult(None, None, "none", False, lower_bound=target)
    if latencies(instance.graph):
        return res  # its entrants move a packet one edge a round

    def offer(entrant: str, label: str, sched: Schedule) -> None:
        rep = simulate(instance, sched)
        row = {"entrant": entrant, "schedule": label, "valid": rep.ok, "rounds": rep.rounds}
        res.log.append({**row, "time": round(time.monotonic() - start, 3)})
        best = res.rounds  # None: no valid schedule yet
        if rep.ok and rep.rounds is not None and (best is None or rep.rounds < best):
            res.schedule = Schedule(sched.rounds[: rep.rounds])
            res.report, res.entrant = rep, f"{entrant}: {label}" if label != entrant else entrant
            res.won = rep.rounds is not None and rep.rounds <= target
            res.cost = float(rep.rounds)
            if progress is not None:
                progress({"event": "portfolio", "entrant": res.entrant, "rounds": rep.rounds})

    for label, sched in seeds or []:
        offer("stored", label, sched)
    if res.won:
        return res
    waiting = [name for name in entrant_names(instance, settings) if name not in skip]
    running: dict[str, Child] = {}

    def handle(name: str, message: tuple[str, Any]) -> None:
        if message[0] == "message":
            kind, _, label, sched = message[1]
            if kind == "schedule":
                offer(name, label, sched)
            elif kind == "error":
                res.log.append({"entrant": name, "error": label})

    try:
        while (waiting or running) and not res.won:
            while waiting and len(running) < max(1, settings.jobs):
                name = waiting.pop(0)
                left = max(0.0, deadline - time.monotonic())
                # a solver entrant starts from the best schedule known when it starts
                args = (name, instance, target, left, res.schedule, settings.workers)
                running[name] = Child(_entrant_main, args)
            if deadline - time.monotonic() <= 0:
                break
            for child in ready(running.values(), min(deadline, time.monotonic() + 0.5)):
                name = next(n for n, c in running.items() if c is child)
                for message in child.read():
                    handle(name, message)
                    if res.won:
                        break
                if child.done:
                    running.pop(name).reap()
    finally:
        for child in running.values():
            child.reap()
    return res
