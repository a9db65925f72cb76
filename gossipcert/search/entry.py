"""The entry point of the round search: :func:`solve` (the reductions by their own ways,
everything else by the state machine of :mod:`gossipcert.search.rounds`).

Its time limit is the search's own; :func:`gossipcert.watchdog.solve_within` (and the
Python API's :func:`gossipcert.solve`) add a hard limit by running it in a child.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SolverError
from gossipcert.finders.portfolio import PortfolioSettings
from gossipcert.finders.upper import Progress
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Schedule
from gossipcert.search.outcome import SolveResult, search_options
from gossipcert.search.rounds import _Search
from gossipcert.solvers.backends import BACKENDS


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
    encoding: str = "auto",
    portfolio: PortfolioSettings | None = None,
) -> SolveResult:
    """Certify the minimum number of rounds of ``instance``.

    The steps, in order (see the module docstring): lower bound, upper bound, search, proof,
    certificate-ready result.

    Parameters
    ----------
    instance : Instance
        Telephone, half-duplex, single-port or multicast, with or without a packet cap or a
        call limit, any problem (other models get their bounds only).
    backend : {"sat", "cpsat"}
    time_limit : float, optional
        Seconds for the whole search (and proof); on expiry the answer is ``feasible`` or
        ``unknown`` with the best bounds.
    strict : bool
        Leave out the constraints that a DRAT proof does not cover on its own (symmetry
        breaking, matching dominance, no useless sends, canonical order of calls).
    proof : bool
        Re-prove the final infeasibility with a checked DRAT proof.
    use_bounds : bool
        Start from the closed-form lower bound (off: from the trivial bound, so that the
        solver proves every step; used in tests).
    counting : bool
        Add the implied counting constraints of the knowledge encoding (off by default: on
        the benchmark suite they slow both back-ends down).
    options : EncodingOptions, optional
        Overrides ``strict`` and ``counting`` when given.
    progress : callable, optional
        Called with a dict per event (``{"event": "query", "rounds": r, "status": ...}``),
        and about every second during a solver query with a ``heartbeat`` event (``rounds``
        being decided, ``lower`` and ``upper`` bounds so far), which is not logged.
    seeds : list of (str, Schedule), optional
        Further candidate schedules for the upper bound (e.g. from an earlier run), named;
        verified like the others.
    encoding : {"auto", "broadcast", "knowledge", "tree"}
        ``auto`` and ``broadcast``: single-packet instances get the broadcast encoding
        (:mod:`gossipcert.encodings.broadcast`); ``auto`` and ``tree``: all-port instances
        on a tree the time-indexed one (:mod:`gossipcert.encodings.tree`); ``knowledge``:
        the generic one. Ignored when ``options`` is given.
    portfolio : PortfolioSettings, optional
        Race the schedule portfolio (:mod:`gossipcert.finders.portfolio`) for the upper bound.

    Returns
    -------
    SolveResult

    Notes
    -----
    ``reduce`` and ``reduce-scatter`` are solved as their duals ``broadcast`` and ``gossip``
    run backwards (:mod:`gossipcert.search.reversal`), ``allreduce`` by the bracket of
    :mod:`gossipcert.search.allreduce` (which takes ``seeds`` as upper bounds); the
    reversals do not use ``seeds``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> solve(parse_instance("ring:5", "telephone", "gossip")).optimum
    4
    >>> solve(parse_instance("path:5", "multicast", "gossip")).optimum
    6
    """
    if backend not in BACKENDS:
        raise SolverError(f"unknown back-end {backend!r}; choose one of {', '.join(BACKENDS)}")
    if instance.problem.reduction:

        def other(sub: Instance, limit: float | None = time_limit) -> SolveResult:
            return solve(
                sub, backend, limit, strict, proof, use_bounds, counting, options,
                progress, None, encoding, portfolio,
            )  # fmt: skip

        return _solve_reduction(instance, other, time_limit, strict, progress, seeds)
    if options is None:
        options = search_options(instance, encoding, strict, counting)
    args = (instance, backend, time_limit, options, use_bounds, proof, progress, seeds)
    return _Search(*args, portfolio=portfolio).run()


def _solve_reduction(
    instance: Instance,
    solve_other: Callable[..., SolveResult],
    time_limit: float | None = None,
    strict: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    seeds: list[tuple[str, Schedule]] | None = None,
) -> SolveResult:
    """A reduction: reduce and reduce-scatter by time reversal (the dual given
    ``time_limit`` less :func:`~gossipcert.search.reversal.reversal_reserve`), allreduce by
    its bracket, through ``solve_other``."""
    from gossipcert.search.allreduce import solve_allreduce
    from gossipcert.search.reversal import reversal_reserve, solve_by_reversal

    result: SolveResult
    if instance.problem.kind is ProblemKind.ALLREDUCE:
        result = solve_allreduce(instance, solve_other, time_limit, strict, progress, seeds)
    elif time_limit is None:
        result = solve_by_reversal(instance, solve_other)
    else:
        # the dual gets the limit less the time kept to turn its schedule round and replay it
        dual_limit = time_limit - reversal_reserve(time_limit)
        result = solve_by_reversal(instance, lambda dual: solve_other(dual, dual_limit))
    return result
