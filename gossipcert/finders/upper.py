"""Verified upper bounds for the round search: candidate schedules from the constructions,
heuristics and finders that apply, and a first schedule from the solver alone when none does.

Every schedule returned here has been replayed by the verifier (:func:`verified`); the
candidates of :func:`upper_bound_schedules` are verified by their caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from gossipcert.closed_forms import best_lower_bound
from gossipcert.constructions.catalog import upper_bound_candidates
from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.errors import HeuristicError, SolverError, UnsupportedModelError
from gossipcert.finders import shortest_routes
from gossipcert.graphs import latencies
from gossipcert.heuristics.broadcast import broadcast_greedy
from gossipcert.heuristics.matching import round_bound
from gossipcert.heuristics.run import upper_bound_heuristics
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import Report, simulate
from gossipcert.solvers.backends import Status, make_backend

#: receives one progress event (a dict with an ``"event"`` key)
Progress = Callable[[dict[str, Any]], None]


def verified(instance: Instance, schedule: Schedule, what: str) -> tuple[Schedule, Report]:
    """The schedule cut after the round that meets every demand, and its report.

    Raises
    ------
    SolverError
        The schedule breaks a rule of the model or leaves a demand unmet ("the ``what``
        schedule failed verification: ...").
    """
    rep = simulate(instance, schedule)
    if not rep.ok:
        first = rep.errors[0].message if rep.errors else f"{len(rep.unmet)} demands unmet"
        raise SolverError(f"the {what} schedule failed verification: {first}")
    assert rep.rounds is not None
    return Schedule(schedule.rounds[: rep.rounds]), rep


def upper_bound_schedules(
    instance: Instance, target: int | None = None
) -> Iterator[tuple[str, Schedule]]:
    """Candidate schedules from the constructions and heuristics that apply (unverified),
    the cheap constructions first, so that a caller may stop once one meets its lower
    bound; ``target`` (default: the best closed-form lower bound) lets the randomized
    heuristics stop early."""
    yield from upper_bound_candidates(instance)
    if target is None:
        target = best_lower_bound(instance).value
    try:
        yield ("broadcast-greedy", broadcast_greedy(instance, target=target))
    except (UnsupportedModelError, HeuristicError):
        pass
    yield from upper_bound_heuristics(instance)
    if shortest_routes.applies(instance):
        try:
            yield ("shortest-routes", shortest_routes.shortest_route_schedule(instance, target))
        except HeuristicError:
            pass


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
    # with latencies a schedule teaching one pair at a time takes at most the largest
    # latency per pair
    slowest = max(latencies(instance.graph).values(), default=1)
    most = max(start, round_bound(instance) * slowest)
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
                return verified(instance, enc.decode(horizon, solver.value), f"{backend} solver's")
        finally:
            solver.close()
        if status is Status.UNKNOWN or horizon >= most:
            return None
        horizon = min(2 * horizon, most)
