"""Symmetric schedules as an upper-bound step: invariant schedules from nauty's small groups.

On a graph with a non-trivial automorphism group, a schedule invariant under a small group
``H`` is often much easier to find than an arbitrary one (:mod:`gossipcert.finders.invariant`:
the formula is about ``|H|`` times smaller). DeBruijn6 is the example: the generic search
finds 10 or 11 rounds in ten minutes, while the complement map ``v -> 63 - v`` gives a
9-round schedule in half a minute. This step tries the small subgroups of
:func:`gossipcert.symmetry.groups.nauty_subgroups` at descending horizons, each
attempt with a share of a short budget, and hands on every schedule it finds; the caller
verifies it (:func:`gossipcert.simulate.simulate`) like any other candidate.

- Horizons run from ``upper - 1`` down to the lower bound; a schedule found at ``h`` moves
  on to ``h - 1`` (an invariant schedule at ``lower`` is optimal).
- A group that is ``unsat`` at ``h`` is dropped for good: an invariant schedule of fewer
  rounds, padded with empty rounds (which every group fixes), would be one of ``h`` rounds.
  A group that is ``unknown`` at ``h`` is dropped too (``h - 1`` is no easier).
- ``unsat`` for a group is never a lower bound for the instance.
- An attempt whose formula would take more than half its share of time to build
  (:func:`estimated_clauses`, :data:`ENCODE_RATE`) is skipped: building cannot be stopped.

Applies to telephone gossip with unbounded packets (the symmetric finder's model) on graphs
of at least :data:`MIN_NODES` nodes (on smaller ones the generic search is quick).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 5
   and 6 (DeBruijn6: LB 8, HR 10).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Schedule
from gossipcert.solvers.backends import Status

#: the smallest graph the step runs on
MIN_NODES = 32

#: at most this many seconds for the whole step ...
STEP_SECONDS = 120.0
#: ... and at most this share of the time left before the search's deadline
STEP_FRACTION = 0.2
#: share of the time left for the group that found the last schedule, at the next horizon
FAVOURED_SHARE = 0.75
#: estimated clauses (:func:`estimated_clauses`) the finder encodes per second; an attempt
#: whose encoding would take more than half of its share is skipped (the encoding cannot
#: be stopped)
ENCODE_RATE = 150_000.0

Emit = Callable[[dict[str, Any]], None]


def symmetric_step_applies(instance: Instance, min_nodes: int | None = None) -> bool:
    """Whether :func:`symmetric_candidates` may run: telephone gossip (calls both ways,
    ``two_way_calls``), unbounded packets, no call limit, at least ``min_nodes`` (default
    :data:`MIN_NODES`) nodes."""
    m = instance.model
    return (
        m.rules.two_way_calls
        and m.unbounded
        and m.calls_per_round is None
        and instance.problem.kind is ProblemKind.GOSSIP
        and instance.n >= (MIN_NODES if min_nodes is None else min_nodes)
    )


def step_budget(deadline: float | None, now: float | None = None) -> float:
    """Seconds for the step: :data:`STEP_SECONDS`, at most :data:`STEP_FRACTION` of the
    time left before ``deadline`` (a ``time.monotonic()`` value, or None).

    Examples
    --------
    >>> step_budget(None)
    120.0
    >>> step_budget(100.0, now=0.0)
    20.0
    >>> step_budget(10.0, now=20.0)
    0.0
    """
    if deadline is None:
        return STEP_SECONDS
    now = time.monotonic() if now is None else now
    return max(0.0, min(STEP_SECONDS, STEP_FRACTION * (deadline - now)))


def estimated_clauses(instance: Instance, order: int, rounds: int) -> int:
    """About how many clauses the symmetric finder writes (an over-estimate, within a
    factor of about two on de Bruijn and CCC graphs): ``n P / |H|`` pair orbits, each with a
    support clause and three clauses per neighbour and round.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> estimated_clauses(parse_instance("debruijn:6", "telephone", "gossip"), 2, 9)
    258048
    """
    degree = max((d for _, d in instance.graph.degree), default=0)
    return instance.n * instance.n_packets // max(order, 1) * rounds * (3 * degree + 2)


def symmetric_candidates(
    instance: Instance,
    upper: int,
    lower: int,
    seconds: float,
    emit: Emit | None = None,
    groups: dict[str, list[list[int]]] | None = None,
) -> Iterator[tuple[str, Schedule]]:
    """Invariant schedules shorter than ``upper``, each shorter than the one before.

    Parameters
    ----------
    instance : Instance
        Telephone gossip with unbounded packets.
    upper : int
        Rounds of the best schedule known; the first horizon tried is ``upper - 1``.
    lower : int
        The best lower bound; no horizon below it is tried.
    seconds : float
        Wall-clock budget of the whole step; each attempt gets the time left divided by
        the number of groups still in play, except that the group that found the last
        schedule is asked first at the next horizon, with :data:`FAVOURED_SHARE` of it.
    emit : callable, optional
        Called with ``{"event": "symmetric", "group", "order", "rounds", "status",
        "seconds"}`` after each attempt.
    groups : dict, optional
        Named generator lists (default: :func:`~gossipcert.symmetry.groups.
        nauty_subgroups` of the instance).

    Yields
    ------
    (str, Schedule)
        A label ("symmetric H=<name>, order k") and a schedule the finder has expanded and
        verified (the caller verifies it again).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ring:8", "telephone", "gossip")
    >>> found = list(symmetric_candidates(inst, 6, 4, 10.0))
    >>> [len(s.rounds) for _, s in found]
    [5, 4]
    """
    from gossipcert.finders.invariant import check_generators, group_order, symmetric_search
    from gossipcert.symmetry.groups import nauty_subgroups

    deadline = time.monotonic() + seconds
    if groups is None:
        groups = nauty_subgroups(instance)
    try:
        orders = {
            name: group_order(check_generators(instance, gens), instance.n)
            for name, gens in groups.items()
        }
    except NotApplicableError:
        return
    live = list(groups)
    favoured: str | None = None
    h = upper - 1
    while live and h >= max(lower, 1):
        found = False
        for name in list(live):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            share = left / len(live)
            if name == favoured and len(live) > 1:
                share = left * FAVOURED_SHARE
            t0 = time.monotonic()
            if estimated_clauses(instance, orders[name], h) > ENCODE_RATE * share / 2:
                if emit is not None:
                    emit({"event": "symmetric", "group": name, "rounds": h, "status": "skipped"})
                live.remove(name)
                continue
            res = symmetric_search(instance, groups[name], h, time_limit=share)
            if emit is not None:
                emit(
                    {
                        "event": "symmetric",
                        "group": name,
                        "order": res.order,
                        "rounds": h,
                        "status": res.status.value,
                        "seconds": round(time.monotonic() - t0, 3),
                    }
                )
            if res.status is Status.SAT and res.schedule is not None:
                # the successful group first at the next horizon
                live.remove(name)
                live.insert(0, name)
                favoured = name
                yield f"symmetric H=<{name}>, order {res.order}", res.schedule
                found = True
                break
            live.remove(name)
        if not found:
            return
        h -= 1
