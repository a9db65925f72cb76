"""A schedule finder for one packet: inform the far nodes first, then grow the target set.

A broadcast of ``R`` rounds that is tight (``R`` near the distance to the farthest node)
is hard to find for a SAT solver asked for all nodes at once: the far nodes fix almost
every call on their chains, and the solver learns this only through conflicts. This finder
asks a sequence of smaller questions instead, each on the cone encoding of
:mod:`gossipcert.encodings.broadcast_cone` ("can the targets ``T`` be informed in ``R``
rounds?", with only the calls that can still reach ``T``):

1. order the demanding non-holders by decreasing distance from the holders (ties: nearer
   to a farthest node first, then by number);
2. start with the first ``step`` nodes as ``T``; solve;
3. on a model, add the next ``step`` nodes to ``T`` and solve the new cone formula with
   the last model as the solver's initial phases (CaDiCaL's ``set_phases``), so that it
   starts from the schedule it has; the step grows by half after each success, up to
   ``step``;
4. on a timeout (``step_seconds``), halve the step down to ``min_step``; at ``min_step``
   the nodes tried are moved to the end of the order;
5. an ``unsat`` answer ends the search: ``T`` cannot be informed in ``R`` rounds, and
   neither can every node (the cone formula is a relaxation). This finder reports it but
   does not certify it (no proof is kept).

It is only a *finder*: a complete schedule is decoded from the last model and verified by
:func:`gossipcert.simulate.simulate`; no claim rests on a timeout or on a partial target
set.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000 (Table 4: the butterfly rows this finder was written for).
.. [2] N. Ivanova, D. Haugland and B. H. Tvedt, integer-programming models of the minimum
   broadcast time problem, 2021 (informing times on an arborescence rooted at the sources).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pysat.solvers import Solver

from gossipcert.encodings.broadcast import broadcast_applies
from gossipcert.encodings.broadcast_cone import ConeBroadcastEncoding, distances_to
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import allow_long_slices, solve_sliced

#: called with (seconds since the start, targets informed, targets asked, answer) per query
Report = Callable[[float, int, int, bool | None], None]


@dataclass
class FarFirstResult:
    """What :func:`far_first` reached.

    Attributes
    ----------
    rounds : int
        The horizon asked for.
    covered : int
        Size of the largest target set shown informable in ``rounds`` rounds.
    total : int
        Number of demanding non-holders.
    schedule : Schedule or None
        A verified schedule of at most ``rounds`` rounds informing every demanding node, or
        None.
    refuted : bool
        A target set was found that cannot be informed in ``rounds`` rounds (the solver's
        claim, not checked).
    queries : list of (int, bool or None, float)
        Per query: the target-set size, the answer (None: timeout) and its seconds.
    """

    rounds: int
    covered: int
    total: int
    schedule: Schedule | None = None
    refuted: bool = False
    queries: list[tuple[int, bool | None, float]] = field(default_factory=list)


def far_order(instance: Instance) -> list[int]:
    """Demanding non-holders, farthest from the holders first (ties: nearer to a farthest
    node first, then by number).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> far_order(parse_instance("path:5", "telephone", "broadcast:1"))
    [4, 3, 2, 0]
    """
    nbrs = [sorted(instance.graph.adj[v]) for v in range(instance.n)]
    holders = [v for v in range(instance.n) if instance.holdings[v] & 1]
    dist = distances_to(nbrs, holders)
    todo = [
        v
        for v in range(instance.n)
        if instance.demands[v] & 1 and not instance.holdings[v] & 1 and dist[v] is not None
    ]
    if not todo:
        return []
    top = max(dist[v] or 0 for v in todo)
    rim = distances_to(nbrs, [v for v in todo if dist[v] == top])
    return sorted(todo, key=lambda v: (-(dist[v] or 0), rim[v] or 0, v))


def far_first(
    instance: Instance,
    rounds: int,
    seconds: float,
    step: int = 50,
    step_seconds: float = 60.0,
    min_step: int = 10,
    report: Report | None = None,
    dominance: bool = True,
) -> FarFirstResult:
    """Look for a broadcast schedule of ``rounds`` rounds, far nodes first.

    Parameters
    ----------
    instance : Instance
        One packet; telephone, half-duplex or single-port without a call limit.
    rounds : int
        The horizon.
    seconds : float
        Wall-clock budget of the whole search (a query in progress may run past it by at
        most one conflict slice).
    step, step_seconds, min_step : int, float, int
        Largest number of nodes added per query, time limit of one query, smallest step
        before nodes are deferred.
    report : callable, optional
        Called after every query (see :data:`Report`).
    dominance : bool
        Add the cone encoding's maximal-matching dominance (sound; on by default).

    Returns
    -------
    FarFirstResult

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> res = far_first(parse_instance("butterfly:4", "telephone", "broadcast:0"), 7, 30)
    >>> res.schedule is not None, res.covered == res.total
    (True, True)
    """
    if not broadcast_applies(instance):
        raise UnsupportedModelError("the far-first finder needs a single-packet instance")
    if step < 1 or min_step < 1:
        raise ValueError("step and min_step must be at least 1")
    start = time.monotonic()
    order = far_order(instance)
    result = FarFirstResult(rounds=rounds, covered=0, total=len(order))
    allow_long_slices(True)
    try:
        _grow(
            instance,
            rounds,
            order,
            result,
            start + seconds,
            step,
            step_seconds,
            min_step,
            report,
            dominance,
        )
    finally:
        allow_long_slices(False)
    return result


def _grow(
    instance: Instance,
    rounds: int,
    pending: list[int],
    result: FarFirstResult,
    deadline: float,
    step: int,
    step_seconds: float,
    min_step: int,
    report: Report | None,
    dominance: bool,
) -> None:
    """The loop of :func:`far_first`; fills ``result``."""
    options = EncodingOptions(counting=False, symmetry=False, dominance=dominance)
    done: list[int] = []
    phases: dict[tuple, bool] = {}  # variable key -> value in the last model
    size = min(step, max(len(pending), 1))
    start = time.monotonic()
    while time.monotonic() < deadline:
        take = pending[:size]
        enc = ConeBroadcastEncoding(instance, rounds, done + take, options)
        d = enc.selector(rounds)
        keys = enc.formula.vpool.obj2id
        model: set[int] = set()
        with Solver(name="cadical195", bootstrap_with=enc.formula.cnf_since(0)) as solver:
            solver.set_phases([v if phases[k] else -v for k, v in keys.items() if k in phases])
            t0 = time.monotonic()
            limit = min(t0 + step_seconds, deadline)
            answer = solve_sliced(solver, [d], limit)
            spent = time.monotonic() - t0
            result.queries.append((len(done) + len(take), answer, spent))
            if answer:
                model = {x for x in solver.get_model() or [] if x > 0}
        if report is not None:
            report(time.monotonic() - start, len(done), len(done) + len(take), answer)
        if answer is False:
            result.refuted = True
            return
        if answer is None:
            if size > min_step:
                size = max(min_step, size // 2)
            else:
                pending = pending[size:] + take
            continue
        phases = {k: v in model for k, v in keys.items() if isinstance(k, tuple)}
        done += take
        pending = pending[len(take) :]
        result.covered = len(done)
        if not pending:
            schedule = enc.decode(rounds, model.__contains__)
            rep = simulate(instance, schedule)
            if rep.ok and rep.rounds is not None and rep.rounds <= rounds:
                result.schedule = schedule
            return
        size = min(step, size + size // 2 + 1)
