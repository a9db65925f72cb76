"""Tree-packing allreduce: every chunk reduced up an in-tree and sent down an out-tree, the
trees of all chunks packed into ``R`` rounds by CP-SAT.

This is an **upper-bound device only**. It searches the schedules of one *shape*; that no
tree-shaped schedule of ``R`` rounds exists (an ``infeasible`` answer) says nothing about the
allreduce itself, whose schedules may split, merge or repeat partials in other ways. Every
schedule it returns has been replayed by the verifier (:func:`gossipcert.simulate.simulate`).

The shape of one chunk ``c``'s schedule:

- a root ``r_c``, or (*two roots*, when a node may send and receive in one round: not
  half-duplex) an edge ``{a, b}`` whose ends swap their partials in one round, both with
  ``"op": "reduce"``;
- the in-tree: every other node sends its partial of ``c`` exactly once, ``"op": "reduce"``,
  to a neighbour (its parent), in a round after every send it receives from its children;
  the root holds ``c`` complete after the round of its last child (two roots: after the swap,
  which follows every child of both ends);
- the out-tree: every node but the root(s) receives the complete ``c`` exactly once,
  ``"op": "copy"``, from a neighbour that held it complete before the round.

No contribution is counted twice: a node's partial is its own contribution and those of its
children's subtrees, which are disjoint; each partial is sent once; every ``reduce`` comes
before the root's completion, every ``copy`` after it. The chunks meet only in the model's
rules of a round, which the packing states from the model's port rules (not its name):

- arc capacities (``all-port``): the chunks entering arc ``(u, v)`` in a round are at most
  its capacity;
- directed ports (``single-port``; ``k`` ports): a node sends at most ``k`` transmissions
  (one receiver each, one ``op``, at most ``p`` chunks, at most one to each neighbour) and
  receives at most ``k``;
- send or receive (``half-duplex``): as single-port, and a node does not both send and
  receive (no swaps);
- calls both ways (``telephone``): the calls of a round form a matching, and a call carries
  at most ``p`` chunks each way;
- one transmission to several receivers (``multicast``) is refused.

Two CP-SAT models state this packing: the time-indexed one of
:mod:`gossipcert.finders.tree_time_indexed` (every model the finder handles), and, for the
one-port models with one chunk a transmission, the scheduling model of
:mod:`gossipcert.finders.tree_intervals` (sends as intervals on unary resources), which
CP-SAT solves much faster there. :func:`pack` picks it where it applies.

Symmetry, cheap and sound: the chunks of an allreduce are interchangeable, so their roots'
keys (a node's number, or ``n`` plus an edge's number for two roots) are nondecreasing from
chunk 1 on; chunk 0's single root, if it has one, is the least node of its orbit under the
graph's automorphisms (any schedule is mapped to one with these properties by an
automorphism taking one single-rooted chunk's root to its orbit's least node and a
renumbering of the chunks).

References
----------
.. [1] P. Sanders, J. Speck and J. L. Träff, "Two-tree algorithms for full bandwidth
   broadcast, reduction and scan", Parallel Computing 35, 2009 (reduction along trees, two
   roots).
.. [2] Z. Cai et al., "Synthesizing optimal collective algorithms", PPoPP 2021 (allreduce on
   the DGX-1 from packed per-chunk schedules).
.. [3] Google OR-Tools CP-SAT, https://github.com/google/or-tools.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ortools.sat.python import cp_model

from gossipcert import graphs
from gossipcert.command_start import seconds_left
from gossipcert.errors import NotApplicableError, SolverError
from gossipcert.finders import tree_intervals
from gossipcert.finders.tree_intervals import IntervalPacking
from gossipcert.finders.tree_time_indexed import TimeIndexedPacking
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

#: seconds the finder takes when the caller gives no limit
DEFAULT_SECONDS = 30.0

#: the free chunks of the one-shape packings :func:`shortest_packing` tries first, in turn
#: (:func:`~gossipcert.finders.tree_intervals.same_shape`)
UNIFORM_FREE = (0, 1, 2)

#: the most seconds one try of a one-shape packing takes (a twelfth of the time left, when
#: that is less): where such a packing exists CP-SAT finds it in about a second
UNIFORM_SECONDS = 10.0


@dataclass(frozen=True)
class TreePacking:
    """What a packing found.

    Parameters
    ----------
    status : {"feasible", "shortest", "infeasible", "unknown"}
        ``feasible``: a schedule of at most the asked rounds; ``shortest``: and no
        tree-shaped schedule is shorter (about the shape only); ``infeasible``: no
        tree-shaped schedule within the rounds; ``unknown``: out of time.
    rounds : int or None
        The rounds of ``schedule``, as the verifier counts them.
    schedule : Schedule or None
        A schedule the verifier accepted.
    seconds : float
        The solver's wall time.
    work : float
        CP-SAT's deterministic time (a count of its work, the same on every machine for the
        same model and settings).
    """

    status: str
    rounds: int | None
    schedule: Schedule | None
    seconds: float
    work: float = 0.0


def check_applies(instance: Instance) -> None:
    """Raise NotApplicableError unless the finder handles ``instance``: an allreduce of two
    nodes or more, every node a processor contributing to and demanding every chunk, under
    all-port (links of latency 1), single-port, half-duplex or telephone, without
    ``calls=N``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> check_applies(parse_instance("ring:4", "all-port", "allreduce:chunks=2"))
    >>> check_applies(parse_instance("ring:4", "multicast", "allreduce"))
    Traceback (most recent call last):
    ...
    gossipcert.errors.NotApplicableError: the tree-packing allreduce has no multicast rules \
(one transmission to several receivers)
    """
    model, g = instance.model, instance.graph
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError(
            f"the tree-packing finder solves allreduce, not {instance.problem}"
        )
    rules = model.rules
    if not rules.point_to_point and not rules.arc_capacities:
        raise NotApplicableError(
            f"the tree-packing allreduce has no {model.kind.value} rules (one transmission "
            "to several receivers)"
        )
    if (rules.two_way_calls or rules.send_or_receive) and model.ports != 1:
        raise NotApplicableError(
            f"the tree-packing allreduce has no {model.kind.value} rules (calls or "
            "send-or-receive with several ports)"
        )
    if model.calls_per_round is not None:
        raise NotApplicableError("the tree-packing allreduce does not limit the calls of a round")
    if graphs.routers(g) or graphs.latencies(g):
        raise NotApplicableError("the tree-packing allreduce needs processors and unit latencies")
    full = (1 << instance.n_packets) - 1
    if instance.n < 2 or any(h != full for h in instance.holdings + instance.demands):
        raise NotApplicableError(
            "the tree-packing allreduce needs two nodes or more, each holding every chunk"
        )


def applies(instance: Instance) -> bool:
    """Whether :func:`check_applies` accepts ``instance``."""
    try:
        check_applies(instance)
    except NotApplicableError:
        return False
    return True


def _solve(
    packing: TimeIndexedPacking | IntervalPacking,
    seconds: float | None,
    num_workers: int,
    deterministic: bool = False,
) -> TreePacking:
    """Run CP-SAT on ``packing`` and verify what it finds (``deterministic``: ``seconds``
    is CP-SAT's deterministic time, not the wall clock)."""
    instance = packing.instance
    budget = None if seconds is None else max(seconds, 0.01)
    solver = cpsat_solver(num_workers, None if deterministic else budget)
    if deterministic and budget is not None:
        solver.parameters.max_deterministic_time = budget
    # the search strategies (LNS, local search, ...) take turns on the threads given
    solver.parameters.interleave_search = True
    start = time.monotonic()
    status = run_cpsat(solver, packing.m)
    spent = time.monotonic() - start
    work = float(solver.response_proto.deterministic_time)
    if status == cp_model.MODEL_INVALID:
        raise SolverError(f"CP-SAT rejected the tree packing: {packing.m.validate()}")
    if status == cp_model.INFEASIBLE:
        return TreePacking("infeasible", None, None, spent, work)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return TreePacking("unknown", None, None, spent, work)
    schedule = packing.decode(solver)
    report = simulate(instance, schedule)
    if not report.ok or report.rounds is None:
        first = report.errors[0].message if report.errors else "demands unmet"
        raise SolverError(f"a tree-packed allreduce failed verification: {first}")
    return TreePacking("feasible", report.rounds, schedule, spent, work)


def pack(
    instance: Instance,
    rounds: int,
    seconds: float | None = None,
    num_workers: int = 1,
    swaps: bool = True,
    scheduling: bool | None = None,
    uniform: int | None = None,
    deterministic: bool = False,
) -> TreePacking:
    """Whether the trees of every chunk pack into ``rounds`` rounds (module docstring).

    Parameters
    ----------
    instance : Instance
        An allreduce the finder handles (:func:`check_applies`).
    rounds : int
        The horizon.
    seconds : float, optional
        CP-SAT's time limit (none by default).
    deterministic : bool
        ``seconds`` is CP-SAT's deterministic time (a count of its work) instead of the wall
        clock: with one worker the answer is then the same on any machine, however busy.
    num_workers : int
        CP-SAT's threads.
    swaps : bool
        Allow the two-roots shape.
    scheduling : bool, optional
        Use the scheduling model of :mod:`gossipcert.finders.tree_intervals` (default: where
        it :func:`~gossipcert.finders.tree_intervals.handles` the model), else the
        time-indexed one.
    uniform : int, optional
        Search only the packings where every chunk but the last ``uniform`` has one shape
        (:func:`~gossipcert.finders.tree_intervals.same_shape`); fewer than the chunks.

    Returns
    -------
    TreePacking
        ``feasible`` with a verified schedule, ``infeasible`` (no *tree-shaped* schedule, of
        the ``uniform`` kind when asked: not a lower bound) or ``unknown``.

    Raises
    ------
    ValueError
        If ``uniform`` is negative or not fewer than the chunks.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:4", "single-port:p=1", "allreduce")
    >>> pack(inst, 9).status, pack(inst, 9).rounds
    ('feasible', 9)
    >>> pack(inst, 8).status
    'infeasible'
    """
    check_applies(instance)
    if uniform is not None and not 0 <= uniform < instance.n_packets:
        raise ValueError(f"uniform must be 0 to {instance.n_packets - 1} free chunks")
    if rounds < 1:
        return TreePacking("infeasible", None, None, 0.0)
    packing: TimeIndexedPacking | IntervalPacking
    if scheduling is None:
        scheduling = tree_intervals.handles(instance)
    if scheduling:  # the ports are unary resources: the scheduling model
        packing = IntervalPacking(instance, rounds, swaps, uniform)
    else:
        packing = TimeIndexedPacking(instance, rounds, swaps, uniform)
        packing.require_done()
    return _solve(packing, seconds, num_workers, deterministic)


def _one_shape_descent(
    instance: Instance,
    lower: int,
    upper: int,
    left: Callable[[], float | None],
    step: Callable[[int, float | None, int | None], TreePacking],
) -> tuple[TreePacking | None, int]:
    """The descent of :func:`shortest_packing` among packings where all chunks but ``free``
    share one shape, for each ``free`` of :data:`UNIFORM_FREE`: the best packing found
    (None if none) and its rounds (``upper`` if none). With the scheduling model only (on
    the time-indexed one, in all-port on the DGX-1 and atlas 43, they were infeasible and
    cost seconds each)."""
    best, hi = None, upper
    tries = UNIFORM_FREE if tree_intervals.handles(instance) else ()
    for free in (f for f in tries if f < instance.n_packets):
        while hi > lower:
            rest = left()
            if rest is not None and rest <= 0:
                break
            limit = UNIFORM_SECONDS if rest is None else min(UNIFORM_SECONDS, rest / 12)
            found = step(hi - 1, limit, free)
            if found.rounds is None:
                break
            best, hi = found, found.rounds
    return best, hi


def shortest_packing(
    instance: Instance,
    lower: int,
    upper: int,
    seconds: float | None = DEFAULT_SECONDS,
    num_workers: int = 1,
    swaps: bool = True,
    deterministic: bool = False,
) -> TreePacking:
    """The fewest rounds, below ``upper`` and not below ``lower``, into which the trees pack.

    CP-SAT finds a packing fast where one exists and may take long to show that none does,
    so the search first asks :func:`pack` for ``lower`` rounds with a quarter of the time (a
    closed bound is often met), then descends: ``R = hi - 1``, where ``hi`` is the best
    schedule's rounds (``upper`` at first). Where the scheduling model applies
    (:func:`~gossipcert.finders.tree_intervals.handles`) it descends first among the
    packings where all chunks but ``free`` share one shape, for each ``free`` of
    :data:`UNIFORM_FREE` in turn, each try within :data:`UNIFORM_SECONDS`; then among all
    packings with all the time left, until an answer is ``infeasible`` (the packing is
    ``shortest``) or ``unknown``.

    Parameters
    ----------
    instance : Instance
        An allreduce the finder handles (:func:`check_applies`).
    lower, upper : int
        A lower bound on every schedule, and the rounds of a schedule known already.
    seconds : float, optional
        The time for every step together (None: no limit).
    num_workers : int
        CP-SAT's threads.
    swaps : bool
        Allow the two-roots shape.
    deterministic : bool
        ``seconds`` (and every step's share of it) is CP-SAT's deterministic time instead of
        the wall clock: with one worker the answer does not depend on the machine's speed.

    Returns
    -------
    TreePacking
        ``shortest`` or ``feasible`` with the best verified schedule of fewer than ``upper``
        rounds, ``infeasible`` (no tree-shaped schedule shorter than ``upper``) or
        ``unknown``; ``seconds`` the time of every step, ``work`` their deterministic time.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:4", "single-port:p=1", "allreduce")
    >>> found = shortest_packing(inst, 6, 12)
    >>> found.status, found.rounds
    ('shortest', 9)
    """
    check_applies(instance)
    deadline = None if seconds is None else time.monotonic() + seconds
    lower = max(lower, 1)
    spent = work = 0.0

    def left() -> float | None:
        """The budget left: wall-clock seconds, or deterministic time not yet used."""
        if seconds is None:
            return None
        return seconds - work if deterministic else seconds_left(deadline)

    def step(rounds: int, limit: float | None, free: int | None = None) -> TreePacking:
        nonlocal spent, work
        found = pack(
            instance, rounds, limit, num_workers, swaps, uniform=free, deterministic=deterministic
        )
        spent += found.seconds
        work += found.work
        return found

    if lower < upper - 1:
        first = step(lower, None if seconds is None else seconds / 4)
        if first.rounds is not None:
            return TreePacking("shortest", first.rounds, first.schedule, spent, work)
    last = "unknown"
    best, hi = _one_shape_descent(instance, lower, upper, left, step)
    while hi > lower:
        rest = left()
        if rest is not None and rest <= 0:
            last = "unknown"
            break
        found = step(hi - 1, rest)
        last = found.status
        if found.rounds is None:
            break
        best, hi = found, found.rounds
    if best is None:
        return TreePacking(last, None, None, spent, work)
    shortest = best.rounds == lower or last == "infeasible"
    status = "shortest" if shortest else "feasible"
    return TreePacking(status, best.rounds, best.schedule, spent, work)
