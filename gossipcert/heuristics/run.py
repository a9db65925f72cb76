"""The heuristics as the command line and the exact search call them.

:func:`run_heuristic` runs one setting of the matching heuristic (or a sweep) with progress
on stderr; :func:`upper_bound_heuristics` gives the exact search its candidate schedules —
the matching heuristic's best over a short sweep and, where it applies, the coloring
heuristic's — every one verified.
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
