"""Allreduce: the bracket between sound lower bounds and a verified composition.

``allreduce`` (every node ends with every chunk combined over every node) is bracketed:

**Lower bounds**, each sound for allreduce under every model and both operators:

- ``reduce-scatter``: an allreduce schedule meets, among others, every demand of
  reduce-scatter with the same chunks (node ``i`` holds its chunks whole), so it *is* a
  reduce-scatter schedule. The reduce-scatter optimum (solved by time reversal,
  :mod:`gossipcert.search.reversal`, the same under ``sum`` and ``max``) is a lower bound;
- ``gossip`` (allgather) with the same chunks: every node ends with chunk ``(w, k)``
  holding ``w``'s contribution, which reached it along a chain of transmissions of partials
  of ``(w, k)`` that held it. Keep, for every node, one such chain, and let each kept
  transmission of chunk ``(w, k)`` carry the packet ``(w, k)`` instead: its sender knows
  the packet (by induction along the chain), the arcs are a subset of the original ones and
  each transmission carries at most as many packets as it carried chunks, so this is a
  gossip schedule of the same length in every model. The gossip optimum is a lower bound;
- ``receive`` and ``receipts``: a node receives every chunk at least once, at most so many
  a round; a chunk with ``m`` contributors and ``d`` demanders is received at least
  ``m + d - 2`` times over the schedule, and a round holds at most so many receipts
  (:mod:`gossipcert.search.allreduce_bounds`, where the arguments are);
- ``one-round`` (:func:`gossipcert.closed_forms.allreduce_one_round.one_round_bound`): a
  partial received in round 1 holds one contribution, its sender's, so one round needs
  every demander to hear each other contributor directly; 2 when those receipts do not
  fit in one round (more chunks on an arc than its capacity);
- ``cut`` (:func:`gossipcert.search.allreduce_cut.cut_bound`): a node whose removal splits
  the graph receives every chunk from each side and sends it into each side, and the first
  chunk it can send on and the last one it hears add their waits to that load (``N L + L -
  1`` on a star with ``L`` leaves in single-port, against the receipts bound's ``N L``);
- ``bridge`` (:func:`gossipcert.search.allreduce_bridge.bridge_bound`): an edge whose removal
  splits the graph lets every chunk into one side over one arc; the farthest contributor
  before it and the farthest demander after it add to that arc's load (``N + 5`` rounds for
  the ``N`` chunks of ``ndv2:4``, whose chassis reach the switch through one link each).

The closed ones (every bound above but the two sub-problems) are named once, in
:data:`gossipcert.search.allreduce_closed.CLOSED_BOUNDS`, which the certificate checker reads too.

**Upper bound**: the reduce-scatter schedule followed by the gossip schedule (every
transmission of the second part a ``copy``: node ``i`` sends its whole chunks ``(i, k)``,
and storing a whole chunk never counts twice), replayed by the verifier; or, when shorter,
the ring allreduce along a Hamiltonian cycle
(:func:`gossipcert.constructions.ring_allreduce.ring_allreduce`, single-port and all-port),
replayed likewise; or the bidirectional ring allreduce (all-port, every chunk reduced from
both sides towards a meeting edge and sent back,
:func:`gossipcert.constructions.pipelined_rings.bidirectional_ring_allreduce`), which meets
the receipts bound ``(n - 1) K`` on even cycles; or, on a star, the switch allreduce
(every leaf's partials combined at the centre and copied back,
:func:`gossipcert.constructions.switch_allreduce.switch_allreduce`); or, on a Cayley graph,
the translated allreduce (a reduce tree and a broadcast tree a wave, list-scheduled once
and translated, :func:`gossipcert.constructions.translated_allreduce.translated_allreduce`),
whose waves overlap; or, on any fabric, a reduce tree and a broadcast tree a chunk through a
switch or a node of its own, list-scheduled
(:func:`gossipcert.constructions.tree_allreduce_list.tree_list_allreduce`); or the hub
allreduce through a node adjacent to all others
(:func:`gossipcert.constructions.hub_allreduce.hub_allreduce`, single-port and telephone),
which meets the cut bound on stars. While the bracket is open,
the tree-packing finder (:mod:`gossipcert.finders.tree_allreduce`: every chunk reduced up
an in-tree and sent down an out-tree, the trees packed by CP-SAT on one core, with half the
time left up to two minutes) may shorten it; its schedule is replayed like the others, and
it is an upper bound only. Each construction is built once, and the steps that cannot be
stopped half way are started only while time is left (:mod:`gossipcert.search.allreduce_upper`,
:func:`sub_seconds`): a step skipped for want of time is named in the result's ``skipped``.

The answer is ``optimal`` when the best lower bound meets the composition, with that
bound's evidence (the sub-problem's result as ``dual``, whose certificate a certificate
carries). Otherwise, on instances of up to ``PACKING_NODES`` nodes, the chunk-packing bound
(:mod:`gossipcert.proofs.allreduce_packing`: weights on the port slots, a checked proof that
every chunk weighs at least ``W`` under them, and ``K W`` above what the slots carry) may
raise ``L`` one round at a time, within a third of the time left (``PACKING_SECONDS``
without a limit; evidence ``allreduce-packing``). Then, on instances small enough for
:mod:`gossipcert.encodings.allreduce`,
``L, L + 1, ...`` rounds up to ``U - 1`` are decided by CaDiCaL: the union relaxation of
:mod:`gossipcert.encodings.allreduce_union` (knowledge of contributions, which every schedule
under ``sum`` or ``max`` satisfies, with the implied receipt and cut-vertex counts and,
unless ``strict``, no useless transmission and ordered interchangeable chunks) with a proof,
and the exact CNF of :mod:`gossipcert.encodings.allreduce` for a schedule, at once on two
cores (one after the other on one); when the relaxation is satisfiable and the exact CNF
is not, the exact CNF with a proof. A
refutation, judged by the independent checkers of :mod:`gossipcert.proofs.checkers`, raises
``L`` (evidence ``allreduce-drat``, its ``formula`` ``"union"`` for the relaxation;
re-checked by ``check`` against the regenerated CNF); a model of the exact CNF is decoded,
verified and ends the search.
A query out of time leaves the answer ``feasible`` with the bracket.

References
----------
.. [1] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19, 2005 (allreduce as reduce-scatter then allgather).
.. [2] E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication:
   theory, practice, and experience", CCPE 19, 2007.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gossipcert.command_start import limit_origin, limits_from_now, seconds_left
from gossipcert.encodings.allreduce import encodable
from gossipcert.encodings.options import EncodingOptions
from gossipcert.finders import tree_allreduce
from gossipcert.instance import Instance, Problem, ProblemKind, make_instance
from gossipcert.proofs.allreduce_packing import applies as packing_applies
from gossipcert.proofs.allreduce_packing import packing_bound
from gossipcert.schedule import Schedule
from gossipcert.search.allreduce_closed import CLOSED_BOUNDS
from gossipcert.search.allreduce_exact import exact_search, query_event
from gossipcert.search.allreduce_upper import (
    CONSTRUCTIONS,
    Best,
    Made,
    compose,
    meeting_construction,
    upper_bounds,
)
from gossipcert.search.heartbeat import heartbeats
from gossipcert.search.outcome import SolveResult
from gossipcert.simulate import simulate
from gossipcert.statuses import QueryStatus, SolveStatus

__all__ = [
    "CONSTRUCTIONS",
    "compose",
    "solve_allreduce",
    "sub_problem",
]


def sub_problem(instance: Instance, kind: ProblemKind) -> Instance:
    """The reduce-scatter or gossip instance with the same graph, model and chunks."""
    redop = instance.problem.redop if kind is ProblemKind.REDUCE_SCATTER else "sum"
    problem = Problem(kind, chunks=instance.problem.chunks, redop=redop)
    return make_instance(instance.graph, instance.model, problem)


def solve_allreduce(
    instance: Instance,
    solve_other: Callable[..., Any],
    time_limit: float | None = None,
    strict: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    seeds: list[tuple[str, Schedule]] | None = None,
) -> Any:
    """The allreduce bracket (module docstring), from the results of ``solve_other`` on the
    reduce-scatter and gossip instances, then SAT with DRAT proofs between the bounds
    until ``time_limit`` seconds after the limit's origin (the call of
    :func:`gossipcert.solve`, :func:`gossipcert.command_start.limit_origin`; no limit
    without one).

    ``solve_other(instance)`` solves a sub-problem; with a ``time_limit`` it is called as
    ``solve_other(instance, seconds)`` with :func:`sub_seconds` (a third of the limit, less
    when the time left is short), counted from that call, so that the model of
    :mod:`gossipcert.encodings.allreduce` keeps a third for itself. Every step that cannot
    be stopped half way (a sub-problem, building or replaying a construction, the
    composition, the tree packing, the exact search) is started only while time is left;
    one not started is named in the result's ``skipped`` and leaves the bracket wider
    (:mod:`gossipcert.search.allreduce_upper`). ``strict`` leaves the sound but not
    implied families (useless transmissions, interchangeable chunks) out of the union
    relaxation's refutations.
    ``progress`` receives the allreduce's own events (its bounds, each horizon decided), in
    the form of :func:`gossipcert.search.entry.solve`'s, after those of the sub-problems.
    ``seeds`` are ``(name, schedule)`` pairs from elsewhere (``solve --resume``): each is
    replayed, and the shortest valid one is an upper bound like the constructions.

    Returns
    -------
    SolveResult
        ``optimal`` when a lower bound meets the verified composition, else ``feasible``
        (``unknown`` without a schedule); evidence ``{"kind": "allreduce-bracket",
        "source": "reduce-scatter" | "gossip" | "receive" | "receipts" | "cut" | "bridge" |
        "one-round", ...}`` (or
        ``allreduce-drat`` when a DRAT proof raised the bound) and the sub-result whose
        bound certifies as ``dual``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.search.entry import solve
    >>> res = solve(parse_instance("ring:4", "single-port", "allreduce"))
    >>> res.status, res.optimum, res.evidence["kind"], res.evidence["source"]
    (<SolveStatus.OPTIMAL: 'optimal'>, 6, 'allreduce-bracket', 'receipts')
    >>> res = solve(parse_instance("path:4", "all-port", "allreduce"))
    >>> res.optimum, res.evidence["kind"], res.evidence["source"]
    (6, 'allreduce-bracket', 'cut')
    """
    start = time.monotonic()
    # counted from where the caller's limit counts (the call of gossipcert.solve)
    deadline = None if time_limit is None else limit_origin() + time_limit
    skipped: list[str] = []
    made = Made(instance, deadline, skipped)

    def emit(event: dict[str, Any]) -> None:
        if progress is not None:
            progress({**event, "time": round(time.monotonic() - start, 3)})

    closed = {name: bound.value(instance) for name, bound in CLOSED_BOUNDS.items()}
    quick = _closed_answer(made, closed, seeds, start)
    if quick is not None:  # a construction meets a closed bound: no sub-problem needed
        emit({"event": "lower-bound", "value": quick.lower_bound, "source": "allreduce bound"})
        emit({"event": "upper-bound", "value": quick.upper_bound, "source": quick.upper_source})
        return quick
    # a third of the time each for the sub-problems, from now, within what is left less the
    # reserve for the steps after them; the rest for the exact search
    rs, ag = _sub_results(instance, solve_other, time_limit, deadline, emit, skipped)
    lower, sub, evidence = _lower_bound(rs, ag, closed)
    named = f"allreduce bound '{evidence['source']}'"
    emit({"event": "lower-bound", "value": lower, "source": named})
    best = Best()
    # Ctrl-C: the bounds and schedules known so far
    stopped = any(r is not None and r.interrupted for r in (rs, ag))
    try:
        upper_bounds(made, rs, ag, seeds, best)
        if not stopped:
            _tree_packed(made, lower, emit, best)
    except KeyboardInterrupt:
        stopped = True
    parts = (instance, rs, ag, skipped)
    if stopped:
        return _answer(parts, lower, best.made, evidence, best.source, False, True)
    upper = None if best.made is None else best.made[1].rounds
    if upper is not None:
        emit({"event": "upper-bound", "value": upper, "source": best.source})
    lower, evidence, sub, stopped = _raised(made, lower, evidence, sub, best, strict, emit)
    optimal = _meets(best.made, lower, sub)
    return _answer(parts, lower, best.made, evidence, best.source, optimal, stopped, sub)


def _raised(
    made: Made,
    lower: int,
    evidence: dict[str, Any],
    sub: Any | None,
    best: Best,
    strict: bool,
    emit: Callable[[dict[str, Any]], None],
) -> tuple[int, dict[str, Any], Any | None, bool]:
    """While the bracket is open: the chunk-packing bound (small instances), then the
    exact search between the bounds (it may also offer ``best`` a shorter schedule). The
    lower bound, its evidence and sub-result, and whether Ctrl-C stopped them."""
    instance, deadline = made.instance, made.deadline
    upper = None if best.made is None else best.made[1].rounds
    stopped = False
    optimal = _meets(best.made, lower, sub)
    small = instance.n <= PACKING_NODES
    if not optimal and upper is not None and small and packing_applies(instance) is None:
        lower, weighed, stopped = _packing(instance, lower, upper, deadline, strict, emit)
        if weighed is not None:
            evidence, sub = {**weighed, "bracket": evidence}, None
        optimal = _meets(best.made, lower, sub)
    if not optimal and not stopped and upper is not None and encodable(instance) is None:
        if not made.in_time("the exact allreduce search"):
            return lower, evidence, sub, stopped
        found, refuted, record, stopped = exact_search(
            instance, lower, upper, deadline, strict, emit
        )
        best.offer(found, "the allreduce model (gossipcert.encodings.allreduce)")
        if refuted is not None and record is not None and refuted >= lower:
            lower = refuted + 1  # raised above the closed bounds by a checked proof
            evidence = {"kind": "allreduce-drat", "rounds": refuted, **record, "bracket": evidence}
            sub = None
    return lower, evidence, sub, stopped


#: the part of the time limit kept, after the sub-problems, for the steps that cannot be
#: cut short (the composition and the constructions, built and replayed) ...
AFTER_FRACTION = 0.1
#: ... but at most this many seconds
AFTER_SECONDS = 10.0


def sub_seconds(time_limit: float | None, deadline: float | None) -> float | None:
    """Seconds for one sub-problem of the allreduce bracket: a third of ``time_limit``, at
    most the time left before ``deadline`` less the reserve for the steps after the
    sub-problems (:data:`AFTER_FRACTION` of the limit, at most :data:`AFTER_SECONDS`); 0 or
    less: no time for it (None: no limit).

    Examples
    --------
    >>> round(sub_seconds(60.0, time.monotonic() + 50.0))  # a third of the limit
    20
    >>> round(sub_seconds(60.0, time.monotonic() + 10.0))  # 10 s left, 6 kept for after
    4
    """
    if time_limit is None:
        return None
    reserve = min(AFTER_SECONDS, AFTER_FRACTION * time_limit)
    return min(time_limit / 3, seconds_left(deadline) - reserve)


def _sub_results(
    instance: Instance,
    solve_other: Callable[..., Any],
    time_limit: float | None,
    deadline: float | None,
    emit: Callable[[dict[str, Any]], None],
    skipped: list[str],
) -> tuple[Any | None, Any | None]:
    """The reduce-scatter sub-problem's result, then the gossip sub-problem's, each with
    :func:`sub_seconds` from its start; None for one not solved (no time left for it, noted
    in ``skipped``; the gossip one also after Ctrl-C stopped the first)."""
    results: list[Any | None] = []
    for kind, what in (
        (ProblemKind.REDUCE_SCATTER, "reduce-scatter"),
        (ProblemKind.GOSSIP, "gossip (allgather)"),
    ):
        seconds = sub_seconds(time_limit, deadline)
        if seconds is not None and seconds <= 0:
            skipped.append(f"the allreduce's {what} sub-problem (no time left)")
            results.append(None)
            continue
        emit({"event": "stage", "what": f"allreduce: its {what} sub-problem"})
        got = _sub(solve_other, sub_problem(instance, kind), seconds)
        results.append(got)
        if got.interrupted:
            return results[0], None
    return results[0], results[1]


def _tree_packed(
    made: Made, lower: int, emit: Callable[[dict[str, Any]], None], best: Best
) -> None:
    """Offer ``best`` a tree-packed schedule shorter than its own (:func:`_tree_packing`),
    while the bracket is open and time is left."""
    if best.made is None or best.made[1].rounds <= lower:
        return
    if not made.in_time("the tree-packing allreduce"):
        return
    known = best.made[1].rounds
    bracket = {"rounds": known - 1, "lower": lower, "upper": known}
    with heartbeats(emit, "the tree-packing allreduce", bracket.copy):
        packed = _tree_packing(made.instance, lower, known, made.deadline)
    best.offer(packed, "the tree-packing allreduce (gossipcert.finders.tree_allreduce)")


def _lower_bound(
    rs: Any | None, ag: Any | None, closed: dict[str, int | None]
) -> tuple[int, Any | None, dict[str, Any]]:
    """The largest lower bound of the sub-problems' (``rs``: reduce-scatter, ``ag``: gossip,
    None when not solved) and the ``closed`` ones: its value, the sub-result it comes from
    (None for a closed bound) and the ``allreduce-bracket`` evidence naming it."""
    candidates = [
        ("reduce-scatter", 0 if rs is None else rs.lower_bound, rs),
        ("gossip", 0 if ag is None else ag.lower_bound, ag),
        *((name, value or 0, None) for name, value in closed.items()),
    ]
    source, lower, sub = max(candidates, key=lambda x: x[1])
    evidence: dict[str, Any] = {
        "kind": "allreduce-bracket",
        "source": source,
        "value": lower,
        "bounds": {
            "reduce-scatter": None if rs is None else rs.lower_bound,
            "gossip": None if ag is None else ag.lower_bound,
            **closed,
        },
    }
    if sub is not None:
        evidence["sub_problem"] = sub.instance.problem.spec()
        evidence["sub"] = sub.evidence
    return lower, sub, evidence


def _closed_answer(
    made: Made,
    closed: dict[str, int | None],
    seeds: list[tuple[str, Schedule]] | None,
    start: float,
) -> SolveResult | None:
    """The optimum, when a construction of :data:`CONSTRUCTIONS` meets the largest of the
    ``closed`` bounds (``receive``, ``receipts``, ``cut``, ``bridge``, ``one-round``): the
    sub-problems then add nothing, and on many chunks they are the slow part. None otherwise
    (or with ``seeds``). The constructions built here are kept in ``made`` for the upper
    bound."""
    source, lower = max(closed.items(), key=lambda kv: kv[1] or 0)
    if seeds or not lower:
        return None
    meeting = meeting_construction(made, lower)
    if meeting is None:
        return None
    (schedule, report), name = meeting
    evidence = {
        "kind": "allreduce-bracket",
        "source": source,
        "value": lower,
        "bounds": {"reduce-scatter": None, "gossip": None, **closed},
    }
    return SolveResult(
        made.instance,
        SolveStatus.OPTIMAL,
        lower,
        lower,
        lower,
        schedule,
        report,
        evidence,
        name,
        "sat",
        EncodingOptions(),
        times={"total": time.monotonic() - start},
    )


#: seconds the chunk-packing bound may take without a time limit
PACKING_SECONDS = 120.0
#: the most nodes of an instance the chunk-packing bound is tried on by default
PACKING_NODES = 6


def _packing(
    instance: Instance,
    lower: int,
    upper: int,
    deadline: float | None,
    strict: bool,
    emit: Callable[[dict[str, Any]], None],
) -> tuple[int, dict[str, Any] | None, bool]:
    """Raise ``lower`` by the chunk-packing bound (:mod:`gossipcert.proofs.allreduce_packing`)
    while it refutes ``lower`` rounds below ``upper``, within a third of the time left
    (``PACKING_SECONDS`` without a limit): the new lower bound, the last refutation's
    evidence (None if none), and whether Ctrl-C stopped it (what was proved is kept)."""
    left = seconds_left(deadline)
    until = time.monotonic() + (PACKING_SECONDS if left == float("inf") else left / 3)
    packed = None
    try:
        while lower < upper and time.monotonic() < until:
            began = time.monotonic()
            emit({"event": "trying", "rounds": lower, "what": "the chunk-packing bound"})
            bracket = {"rounds": lower, "lower": lower, "upper": upper}
            with heartbeats(emit, f"the chunk-packing bound at {lower} rounds", bracket.copy):
                ev = packing_bound(instance, lower, until, strict)
            if ev is None:
                emit(
                    query_event(
                        lower, QueryStatus.UNKNOWN, began, "the chunk-packing bound does not reach"
                    )
                )
                break
            emit(
                query_event(
                    lower, QueryStatus.UNSAT, began, "the chunk-packing bound, proof checked"
                )
            )
            emit({"event": "lower-bound", "value": lower + 1, "source": "allreduce-packing"})
            packed, lower = ev, lower + 1
    except KeyboardInterrupt:
        return lower, packed, True
    return lower, packed, False


def _meets(best: tuple[Schedule, Any] | None, lower: int, sub: Any | None) -> bool:
    """Whether the best schedule meets ``lower`` and that bound is certified: a closed form
    or a checked proof (``sub`` None), or the sub-problem ``sub`` whose bound it is, solved
    to that optimum (a bound without a certificate of its own stays a bracket)."""
    if best is None or best[1].rounds > lower:
        return False
    return sub is None or (sub.status is SolveStatus.OPTIMAL and sub.optimum == lower)


def _answer(
    parts: tuple[Instance, Any | None, Any | None, list[str]],
    lower: int,
    best: tuple[Schedule, Any] | None,
    evidence: dict[str, Any],
    source_of_upper: str,
    optimal: bool,
    interrupted: bool = False,
    sub: Any | None = None,
) -> Any:
    """The allreduce's :class:`~gossipcert.search.outcome.SolveResult` from the bracket:
    ``parts`` are the instance, the reduce-scatter and gossip sub-results (None when not
    solved) and the steps skipped for want of time; ``best`` is the shortest verified
    schedule and its report, ``sub`` the sub-result whose bound gave ``lower`` (its
    ``dual`` when ``optimal``); ``interrupted`` (Ctrl-C) keeps the bounds known so far."""
    instance, rs, ag, skipped = parts
    upper = None if best is None else best[1].rounds
    status = (
        SolveStatus.OPTIMAL
        if optimal
        else SolveStatus.FEASIBLE
        if upper is not None
        else SolveStatus.UNKNOWN
    )
    solved = [r for r in (rs, ag) if r is not None]
    times: dict[str, float] = {}
    for r in solved:
        for key, value in r.times.items():
            times[key] = times.get(key, 0.0) + value
    return SolveResult.from_bracket(
        instance,
        status,
        lower,
        best,
        evidence,
        source_of_upper,
        solved[0].backend if solved else "sat",
        solved[0].options if solved else EncodingOptions(),
        times,
        [e for r in solved for e in r.log],
        timed_out=bool(skipped) or any(r.timed_out for r in solved),
        interrupted=interrupted or any(r.interrupted for r in solved),
        dual=sub if optimal else None,
        skipped=[*skipped, *(s for r in solved for s in r.skipped)],
    )


def _sub(solve_other: Callable[..., Any], sub: Instance, seconds: float | None) -> Any:
    """``solve_other`` on a sub-problem, with ``seconds`` counted from now (or no limit)."""
    if seconds is None:
        return solve_other(sub)
    with limits_from_now():
        return solve_other(sub, seconds)


#: the most seconds the tree packing takes within a time limit
TREE_SECONDS = 120.0
#: the tree packing is skipped above this many chunk x arc x round choices: building its
#: model is not bounded by the time limit (mi250 with 16 chunks a node, 1.2 million
#: choices: a minute to build, after the limit)
TREE_MAX_CHOICES = 300_000


def _tree_packing(
    instance: Instance, lower: int, upper: int, deadline: float | None
) -> tuple[Schedule, Any] | None:
    """A tree-packed schedule of fewer than ``upper`` rounds and its verifier's report
    (:mod:`gossipcert.finders.tree_allreduce`, on one core), or None. It takes half the time
    left before ``deadline`` (the rest for the exact model) up to :data:`TREE_SECONDS`, or
    its default without one: a packing it finds, it finds in seconds, and a long budget is
    better spent on the exact model."""
    if not tree_allreduce.applies(instance):
        return None
    arcs = 2 * instance.graph.number_of_edges()
    if instance.n_packets * arcs * upper > TREE_MAX_CHOICES:
        return None  # its model alone would take longer to build than the time left
    seconds = tree_allreduce.DEFAULT_SECONDS
    if deadline is not None:
        seconds = min(seconds_left(deadline) / 2, TREE_SECONDS)
    if seconds <= 0:
        return None
    found = tree_allreduce.shortest_packing(instance, lower, upper, seconds, num_workers=1)
    if found.schedule is None:
        return None
    report = simulate(instance, found.schedule)  # replayed here too: nothing unverified is used
    if not report.ok or report.rounds is None or report.rounds >= upper:
        return None
    return found.schedule, report
