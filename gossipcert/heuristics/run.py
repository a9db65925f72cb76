"""The heuristics as the command line and the exact search call them.

:func:`run_default_portfolio` runs the default portfolio of ``gossipcert heuristic``
(:mod:`gossipcert.heuristics.portfolio`) and :func:`run_heuristic` one setting of the
matching heuristic (or a sweep), with progress on stderr; :func:`upper_bound_heuristics`
gives the exact search its candidate schedules — the matching heuristic's best over a short
sweep and, where it applies, the coloring heuristic's — every one verified.
"""

from __future__ import annotations

import sys
from typing import Any

from gossipcert.errors import GossipcertError, HeuristicError, UnsupportedModelError
from gossipcert.heuristics.matching import MatchingParams, run_matching
from gossipcert.heuristics.settings_grid import ProgressLine, best_of_grid
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

#: the exact search's sweep budget (seconds) and the largest instance it sweeps
SEARCH_SWEEP_SECONDS = 3.0
SEARCH_SWEEP_NODES = 64
#: below this many nodes the exact search settles the question faster than a sweep
SEARCH_SWEEP_MIN_NODES = 8

#: the coloring heuristic in the exact search: smallest graph, seconds
COLORING_NODES = 16
COLORING_SECONDS = 2.0


def run_heuristic(
    instance: Instance,
    params: MatchingParams,
    do_sweep: bool,
    time_limit: float,
    show_progress: bool,
) -> tuple[Schedule, dict[str, Any]]:
    """One run (or a sweep) of the matching heuristic; the schedule and facts for ``--json``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("hypercube:3", "telephone", "gossip")
    >>> sched, extra = run_heuristic(inst, MatchingParams(), False, 1.0, False)
    >>> len(sched), extra["params"]
    (3, 'flow dist-exp=8')
    """
    line = ProgressLine(show_progress)
    try:
        if do_sweep:
            res = best_of_grid(instance, time_limit, progress=line)
            best = res.best
            extra: dict[str, Any] = {
                "params": best.params.describe(),
                "sweep": [
                    {"params": name, "rounds": rounds, "seconds": round(sec, 3)}
                    for name, rounds, sec in res.tried
                ],
            }
        else:
            best = run_matching(instance, params, progress=line)
            extra = {"params": best.params.describe()}
    finally:
        line.close()
    extra["seconds"] = round(best.seconds, 3)
    if show_progress and best.seconds > line.after:
        print(f"{best.params.describe()}: {len(best.schedule)} rounds", file=sys.stderr)
    return best.schedule, extra


def run_default_portfolio(
    instance: Instance, time_limit: float, show_progress: bool
) -> tuple[str, Schedule, dict[str, Any]]:
    """The default portfolio with progress on stderr: the winning heuristic's name
    (``matching`` or ``coloring``), its verified schedule and facts for ``--json``.

    On stderr: the lower bound it stops at, one line per setting tried (its rounds and
    seconds), the rounds and demands unmet of a long run, and the best setting.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:6", "telephone", "gossip")
    >>> name, sched, extra = run_default_portfolio(inst, 5.0, False)
    >>> name, len(sched), extra["lower_bound"], len(extra["portfolio"])
    ('matching', 5, 5, 1)
    """
    from gossipcert.closed_forms import best_lower_bound
    from gossipcert.heuristics.portfolio import run_portfolio

    lower = best_lower_bound(instance).value
    current: list[ProgressLine] = []  # the running setting's progress line, if any

    def progress() -> ProgressLine:
        current[:] = [ProgressLine(show_progress)]
        return current[0]

    def say(text: str) -> None:
        for line in current:
            line.close()  # ends a line written in place
        current.clear()
        print(text, file=sys.stderr, flush=True)

    log = say if show_progress else None
    if log is not None:
        goal = (
            f"it stops at the closed-form lower bound, {lower} rounds"
            if instance.model.tau is None
            else "linear cost: the cheapest schedule, R + tau*h*S, is kept"
        )
        log(f"portfolio within {time_limit:g} s; {goal}")
    try:
        res = run_portfolio(instance, time_limit, lower_bound=lower, log=log, progress=progress)
    finally:
        for line in current:
            line.close()
    extra: dict[str, Any] = {
        "params": res.entrant,
        "lower_bound": res.lower_bound,
        "portfolio": [
            {"params": name, "rounds": rounds, "seconds": round(sec, 3)}
            for name, rounds, sec in res.tried
        ],
        "seconds": round(res.seconds, 3),
    }
    if res.sequence is not None:
        extra["sequence"] = res.sequence
    if log is not None:
        cost = "" if res.cost == res.rounds else f", cost {res.cost:g}"
        log(f"best: {res.entrant}: {res.rounds} rounds{cost}")
    assert res.schedule is not None  # run_portfolio raises when no entry finds one
    return res.method, res.schedule, extra


def upper_bound_heuristics(instance: Instance) -> list[tuple[str, Schedule]]:
    """Verified heuristic schedules for the exact search's upper bound and CP-SAT hint.

    The matching heuristic with its default setting, and on graphs of
    :data:`SEARCH_SWEEP_MIN_NODES` to :data:`SEARCH_SWEEP_NODES` nodes the best of a sweep
    of :data:`SEARCH_SWEEP_SECONDS`
    (stopping at the closed-form lower bound); the coloring heuristic on regular graphs of
    at least :data:`COLORING_NODES` nodes under telephone with unbounded packets (section 6:
    it suits regular graphs), for :data:`COLORING_SECONDS`. Heuristics that do not apply
    are skipped.
    """
    from gossipcert.closed_forms import best_lower_bound
    from gossipcert.heuristics.coloring import coloring_heuristic

    out: list[tuple[str, Schedule]] = []
    lower = best_lower_bound(instance).value
    try:
        if SEARCH_SWEEP_MIN_NODES <= instance.n <= SEARCH_SWEEP_NODES:
            best = best_of_grid(instance, SEARCH_SWEEP_SECONDS, lower_bound=lower).best
        else:
            best = run_matching(instance)
        out.append((f"matching-heuristic ({best.params.describe()})", best.schedule))
    except (UnsupportedModelError, HeuristicError):
        pass
    degrees = {d for _, d in instance.graph.degree}
    if instance.n >= COLORING_NODES and len(degrees) == 1:
        try:
            res = coloring_heuristic(instance, min_rounds=lower, time_limit=COLORING_SECONDS)
            out.append((f"coloring-heuristic {res.sequence}", res.schedule))
        except GossipcertError:
            pass
    return [(name, s) for name, s in out if simulate(instance, s).ok]
