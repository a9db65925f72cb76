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
it is an upper bound only.

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
from dataclasses import replace
from typing import Any

from gossipcert.closed_forms.allreduce_one_round import one_round_value
from gossipcert.command_start import limits_from_now, seconds_left
from gossipcert.constructions.hub_allreduce import hub_allreduce
from gossipcert.constructions.pipelined_rings import bidirectional_ring_allreduce
from gossipcert.constructions.ring_allreduce import ring_allreduce
from gossipcert.constructions.switch_allreduce import switch_allreduce
from gossipcert.constructions.translated_allreduce import translated_allreduce
from gossipcert.constructions.tree_allreduce_list import tree_list_allreduce
from gossipcert.encodings.allreduce import encodable
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import NotApplicableError
from gossipcert.finders import tree_allreduce
from gossipcert.instance import Instance, Problem, ProblemKind, make_instance
from gossipcert.proofs.allreduce_packing import applies as packing_applies
from gossipcert.proofs.allreduce_packing import packing_bound
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.allreduce_bounds import receipt_bound, receive_bound
from gossipcert.search.allreduce_bridge import bridge_bound
from gossipcert.search.allreduce_cut import cut_bound
from gossipcert.search.allreduce_exact import exact_search, query_event, replayed
from gossipcert.search.heartbeat import heartbeats
from gossipcert.search.outcome import SolveResult
from gossipcert.simulate import simulate
from gossipcert.statuses import QueryStatus, SolveStatus


def sub_problem(instance: Instance, kind: ProblemKind) -> Instance:
    """The reduce-scatter or gossip instance with the same graph, model and chunks."""
    redop = instance.problem.redop if kind is ProblemKind.REDUCE_SCATTER else "sum"
    problem = Problem(kind, chunks=instance.problem.chunks, redop=redop)
    return make_instance(instance.graph, instance.model, problem)


def compose(first: Schedule, gossip: Instance, second: Schedule) -> Schedule:
    """``first`` then ``second`` (a schedule of ``gossip``) as copies: each receiver gets,
    one transmission per arc, only the packets it does not know yet in ``gossip`` and not from
    an earlier sender of the same round ("all" spelled out, since after ``first`` every node
    holds a partial of every chunk, whole or not; two copies of one chunk into one node in
    one round would break the verifier's rule). Each transmission keeps its arcs and carries
    a subset of its packets, so the port rules still hold (multicast is never composed)."""
    know = list(gossip.holdings)
    tail = []
    for rnd in second.rounds[: len(second)]:
        incoming: dict[int, int] = {}
        out = []
        for tr in rnd:
            mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
            for r in tr.receivers:
                fresh = mask & ~know[r] & ~incoming.get(r, 0)
                if fresh:
                    incoming[r] = incoming.get(r, 0) | fresh
                    out.append(Transmission(tr.sender, (r,), fresh, "copy"))
        for r, mask in incoming.items():
            know[r] |= mask
        tail.append(tuple(out))
    return Schedule(first.rounds[: len(first)] + tuple(tail))


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
    until ``time_limit`` seconds after the call (no limit without one).

    ``solve_other(instance)`` solves a sub-problem; with a ``time_limit`` it is called as
    ``solve_other(instance, seconds)`` with a third of it, counted from that call (not from
    the command's start), so that the model of :mod:`gossipcert.encodings.allreduce` keeps a
    third for itself. ``strict`` leaves the sound but not implied families (useless
    transmissions, interchangeable chunks) out of the union relaxation's refutations.
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
    deadline = None if time_limit is None else start + time_limit

    def emit(event: dict[str, Any]) -> None:
        if progress is not None:
            progress({**event, "time": round(time.monotonic() - start, 3)})

    third = None if time_limit is None else time_limit / 3
    closed = {
        "receive": receive_bound(instance),
        "receipts": receipt_bound(instance),
        "cut": cut_bound(instance),
        "bridge": bridge_bound(instance),
        "one-round": one_round_value(instance),
    }
    quick = _closed_answer(instance, closed, seeds, start)
    if quick is not None:  # a construction meets a closed bound: no sub-problem needed
        emit({"event": "lower-bound", "value": quick.lower_bound, "source": "allreduce bound"})
        emit({"event": "upper-bound", "value": quick.upper_bound, "source": quick.upper_source})
        return quick
    # a third of the time each for the sub-problems, from now; the rest for the exact search
    rs, ag = _sub_results(instance, solve_other, third, emit)
    lower, sub, evidence = _lower_bound(rs, ag, closed)
    named = f"allreduce bound '{evidence['source']}'"
    emit({"event": "lower-bound", "value": lower, "source": named})
    best = _Best()
    stopped = ag is None or ag.interrupted  # Ctrl-C: the bounds and schedules known so far
    try:
        _upper_bounds(instance, rs, ag, seeds, best)
        if not stopped:
            _tree_packed(instance, lower, deadline, emit, best)
    except KeyboardInterrupt:
        stopped = True
    if stopped:
        return _answer(instance, rs, ag, lower, best.made, evidence, best.source, False, True)
    upper = None if best.made is None else best.made[1].rounds
    if upper is not None:
        emit({"event": "upper-bound", "value": upper, "source": best.source})
    optimal = _meets(best.made, lower, sub)
    small = instance.n <= PACKING_NODES
    if not optimal and upper is not None and small and packing_applies(instance) is None:
        lower, weighed, stopped = _packing(instance, lower, upper, deadline, strict, emit)
        if weighed is not None:
            evidence, sub = {**weighed, "bracket": evidence}, None
        optimal = _meets(best.made, lower, sub)
    if not optimal and not stopped and upper is not None and encodable(instance) is None:
        found, refuted, record, stopped = exact_search(
            instance, lower, upper, deadline, strict, emit
        )
        best.offer(found, "the allreduce model (gossipcert.encodings.allreduce)")
        if refuted is not None and record is not None and refuted >= lower:
            lower = refuted + 1  # raised above the closed bounds by a checked proof
            evidence = {"kind": "allreduce-drat", "rounds": refuted, **record, "bracket": evidence}
            sub = None
        optimal = _meets(best.made, lower, sub)
    return _answer(instance, rs, ag, lower, best.made, evidence, best.source, optimal, stopped, sub)


class _Best:
    """The shortest verified schedule offered so far (with its verifier's report) and
    where it came from."""

    def __init__(self) -> None:
        self.made: tuple[Schedule, Any] | None = None
        self.source = "none"

    def offer(self, made: tuple[Schedule, Any] | None, name: str) -> None:
        """Keep ``made`` (a verified schedule and its report) if it is the shortest yet."""
        if made is not None and (self.made is None or made[1].rounds < self.made[1].rounds):
            self.made, self.source = made, name


def _sub_results(
    instance: Instance,
    solve_other: Callable[..., Any],
    seconds: float | None,
    emit: Callable[[dict[str, Any]], None],
) -> tuple[Any, Any | None]:
    """The reduce-scatter sub-problem's result, then the gossip sub-problem's (None when
    Ctrl-C stopped the first), each with ``seconds`` from its start."""
    emit({"event": "stage", "what": "allreduce: first its reduce-scatter sub-problem"})
    rs = _sub(solve_other, sub_problem(instance, ProblemKind.REDUCE_SCATTER), seconds)
    if rs.interrupted:
        return rs, None
    emit({"event": "stage", "what": "allreduce: then its gossip (allgather) sub-problem"})
    return rs, _sub(solve_other, sub_problem(instance, ProblemKind.GOSSIP), seconds)


def _tree_packed(
    instance: Instance,
    lower: int,
    deadline: float | None,
    emit: Callable[[dict[str, Any]], None],
    best: _Best,
) -> None:
    """Offer ``best`` a tree-packed schedule shorter than its own (:func:`_tree_packing`),
    while the bracket is open."""
    if best.made is None or best.made[1].rounds <= lower:
        return
    known = best.made[1].rounds
    bracket = {"rounds": known - 1, "lower": lower, "upper": known}
    with heartbeats(emit, "the tree-packing allreduce", bracket.copy):
        packed = _tree_packing(instance, lower, known, deadline)
    best.offer(packed, "the tree-packing allreduce (gossipcert.finders.tree_allreduce)")


def _lower_bound(
    rs: Any, ag: Any | None, closed: dict[str, int | None]
) -> tuple[int, Any | None, dict[str, Any]]:
    """The largest lower bound of the sub-problems' (``rs``: reduce-scatter, ``ag``: gossip,
    None when not solved) and the ``closed`` ones: its value, the sub-result it comes from
    (None for a closed bound) and the ``allreduce-bracket`` evidence naming it."""
    candidates = [
        ("reduce-scatter", rs.lower_bound, rs),
        ("gossip", 0 if ag is None else ag.lower_bound, ag),
        *((name, value or 0, None) for name, value in closed.items()),
    ]
    source, lower, sub = max(candidates, key=lambda x: x[1])
    evidence: dict[str, Any] = {
        "kind": "allreduce-bracket",
        "source": source,
        "value": lower,
        "bounds": {
            "reduce-scatter": rs.lower_bound,
            "gossip": None if ag is None else ag.lower_bound,
            **closed,
        },
    }
    if sub is not None:
        evidence["sub_problem"] = sub.instance.problem.spec()
        evidence["sub"] = sub.evidence
    return lower, sub, evidence


def _upper_bounds(
    instance: Instance,
    rs: Any,
    ag: Any | None,
    seeds: list[tuple[str, Schedule]] | None,
    best: _Best,
) -> None:
    """Offer ``best`` the ``seeds``, the composition of the sub-problems' schedules and the
    allreduce constructions, each replayed by the verifier."""
    for name, seed in seeds or []:
        best.offer(replayed(instance, seed), name)
    if ag is not None and rs.schedule is not None and ag.schedule is not None:
        composed = compose(rs.schedule, ag.instance, ag.schedule)
        composition = f"reduce-scatter ({rs.upper_source}) then allgather ({ag.upper_source})"
        best.offer(replayed(instance, composed), composition)
    for name, module, build in CONSTRUCTIONS:
        made = f"the {name} allreduce (gossipcert.constructions.{module})"
        shorter = None if best.made is None else best.made[1].rounds - 1
        best.offer(_construction(instance, build, shorter), made)


#: the allreduce constructions tried for the upper bound: (name, module, function)
CONSTRUCTIONS: tuple[tuple[str, str, Callable[[Instance], Schedule]], ...] = (
    ("bidirectional ring", "pipelined_rings", bidirectional_ring_allreduce),
    ("switch", "switch_allreduce", switch_allreduce),
    ("translated", "translated_allreduce", translated_allreduce),
    ("tree (list-scheduled)", "tree_allreduce_list", tree_list_allreduce),
    ("ring", "ring_allreduce", ring_allreduce),
    ("hub", "hub_allreduce", hub_allreduce),
)


def _closed_answer(
    instance: Instance,
    closed: dict[str, int | None],
    seeds: list[tuple[str, Schedule]] | None,
    start: float,
) -> SolveResult | None:
    """The optimum, when a construction of :data:`CONSTRUCTIONS` meets the largest of the
    ``closed`` bounds (``receive``, ``receipts``, ``cut``, ``bridge``, ``one-round``): the
    sub-problems then add nothing, and on many chunks they are the slow part. None otherwise
    (or with ``seeds``)."""
    source, lower = max(closed.items(), key=lambda kv: kv[1] or 0)
    if seeds or not lower:
        return None
    for name, module, build in CONSTRUCTIONS:
        made = _construction(instance, build, lower)
        if made is not None and made[1].rounds == lower:
            evidence = {
                "kind": "allreduce-bracket",
                "source": source,
                "value": lower,
                "bounds": {"reduce-scatter": None, "gossip": None, **closed},
            }
            return SolveResult(
                instance,
                SolveStatus.OPTIMAL,
                lower,
                lower,
                lower,
                made[0],
                made[1],
                evidence,
                f"the {name} allreduce (gossipcert.constructions.{module})",
                "sat",
                EncodingOptions(),
                times={"total": time.monotonic() - start},
            )
    return None


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
    instance: Instance,
    rs: Any,
    ag: Any | None,
    lower: int,
    best: tuple[Schedule, Any] | None,
    evidence: dict[str, Any],
    source_of_upper: str,
    optimal: bool,
    interrupted: bool = False,
    sub: Any | None = None,
) -> Any:
    """The allreduce's :class:`~gossipcert.search.outcome.SolveResult` from the bracket:
    ``best`` is the shortest verified schedule and its report, ``sub`` the sub-result
    whose bound gave ``lower`` (its ``dual`` when ``optimal``); ``interrupted`` (Ctrl-C)
    keeps the bounds known so far."""
    upper = None if best is None else best[1].rounds
    status = (
        SolveStatus.OPTIMAL
        if optimal
        else SolveStatus.FEASIBLE
        if upper is not None
        else SolveStatus.UNKNOWN
    )
    parts = [rs] if ag is None else [rs, ag]
    return replace(
        rs,
        instance=instance,
        status=status,
        optimum=upper if optimal else None,
        lower_bound=lower,
        upper_bound=upper,
        schedule=None if best is None else best[0],
        report=None if best is None else best[1],
        evidence=evidence,
        upper_source=source_of_upper,
        times={k: sum(r.times.get(k, 0.0) for r in parts) for k in {*rs.times, *ag.times}}
        if ag is not None
        else dict(rs.times),
        log=[e for r in parts for e in r.log],
        timed_out=any(r.timed_out for r in parts),
        interrupted=interrupted or any(r.interrupted for r in parts),
        dual=sub if optimal else None,
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


def _construction(
    instance: Instance, build: Callable[[Instance], Schedule], most: int | None = None
) -> tuple[Schedule, Any] | None:
    """The schedule ``build`` makes and its verifier's report, when it applies, is valid and
    has at most ``most`` rounds (a longer one is not replayed: with many chunks the replay
    is the slow part)."""
    try:
        schedule = build(instance)
    except NotApplicableError:
        return None
    if most is not None and len(schedule) > most:
        return None
    return replayed(instance, schedule)


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
