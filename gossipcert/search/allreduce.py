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
- ``receive``: with two contributors or more, every node holds every chunk incomplete at
  the start, so it receives each of the ``n K`` chunks at least once; a node ``v`` receives
  at most ``in(v)`` chunks per round (``p`` in the one-port models with a packet cap, ``k p``
  with ``k`` ports, the sum of its edges' capacities in all-port; no bound when packets are
  unbounded), hence
  ``R >= max_v ceil(n K / in(v))``. This exceeds gossip's own receive bound
  ``(n - 1) K / p``;
- ``receipts`` (:func:`receipt_bound`): a chunk with ``m`` contributors and ``d``
  demanders is received, over the whole schedule, at least ``m + d - 2`` times (``2 n - 2``
  for allreduce), and a round holds at most ``cap`` receipts (one ``(receiver, chunk)``
  pair each): ``R >= ceil(sum_c (m_c + d_c - 2) / cap)``. The argument is the one for the
  fewest one-way calls of gossip [3]_, applied to *knowledge*: let ``v`` know ``w`` when
  some chain of receipts of the chunk, in increasing rounds, leads from ``w`` to ``v``. A
  partial result is always inside its holder's knowledge (a copy or a combine takes a
  partial inside the sender's knowledge), so a complete partial means complete knowledge;
  order the receipts of each round one after the other (knowledge can only grow by it).
  At the receipt after which a first node ``x`` knows every contributor, each other
  contributor has already sent (``m - 1`` receipts, distinct senders); every other
  demander (``d - 1`` at least, none complete yet) receives afterwards (distinct
  receivers, later receipts). This holds under ``sum`` and ``max`` alike. ``cap`` is the sum
  of the arc capacities in all-port (every arc may be used); else ``p`` times the most arcs
  one round may use: arcs with distinct tails and distinct heads in single-port (a maximum
  matching between senders and receivers: 2 on a star; with ``k`` ports at most ``k`` arcs
  at each tail and at each head, a maximum flow), both ways of a matching of the graph in
  telephone, one way in half-duplex, one arc into each node in multicast, at most
  ``calls=N`` calls; with unbounded packets there is no bound. On ``K_n`` in single-port
  with ``p = 1`` it is ``2 K (n - 1)``, the rounds of the ring allreduce;
- ``one-round`` (:func:`gossipcert.closed_forms.allreduce_one_round.one_round_bound`): a
  partial received in round 1 holds one contribution, its sender's, so one round needs
  every demander to hear each other contributor directly; 2 when those receipts do not
  fit in one round (more chunks on an arc than its capacity);
- ``cut`` (:func:`gossipcert.search.allreduce_cut.cut_bound`): a node whose removal splits
  the graph receives every chunk from each side and sends it into each side, and the first
  chunk it can send on and the last one it hears add their waits to that load (``N L + L -
  1`` on a star with ``L`` leaves in single-port, against the receipts bound's ``N L``).

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
.. [3] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (gossip on a digraph takes at least ``2 n - 2`` calls).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import networkx as nx
from networkx.algorithms import bipartite
from pysat.solvers import Solver

from gossipcert import graphs
from gossipcert.children import Child, Send, may_fan_out, ready
from gossipcert.closed_forms.allreduce_one_round import one_round_value
from gossipcert.command_start import limits_from_now, seconds_left
from gossipcert.constructions.hub_allreduce import hub_allreduce
from gossipcert.constructions.pipelined_rings import bidirectional_ring_allreduce
from gossipcert.constructions.ring_allreduce import ring_allreduce
from gossipcert.constructions.switch_allreduce import switch_allreduce
from gossipcert.constructions.translated_allreduce import translated_allreduce
from gossipcert.constructions.tree_allreduce_list import tree_list_allreduce
from gossipcert.encodings import allreduce as exact
from gossipcert.encodings import allreduce_union as union
from gossipcert.encodings.allreduce import decode, encodable, standalone
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import NotApplicableError
from gossipcert.finders import tree_allreduce
from gossipcert.instance import Instance, Problem, ProblemKind, make_instance
from gossipcert.proofs.allreduce_packing import applies as packing_applies
from gossipcert.proofs.allreduce_packing import packing_bound
from gossipcert.proofs.checkers import ProofVerdict
from gossipcert.proofs.refutation import (
    PROOF_SOLVER,
    ProofResult,
    checked_refutation,
    proof_record,
    refutation_status,
)
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.allreduce_cut import cut_bound
from gossipcert.search.heartbeat import heartbeats
from gossipcert.search.outcome import SolveResult
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import allow_long_slices, solve_sliced


def receive_bound(instance: Instance) -> int | None:
    """``max_v ceil(chunks / in(v))`` for an allreduce (module docstring); None when a node
    may receive any number of chunks per round or when some chunk has one contributor.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receive_bound(parse_instance("ring:4", "single-port", "allreduce:chunks=2"))
    8
    >>> receive_bound(parse_instance("ring:4", "all-port", "allreduce")) is None
    False
    """
    contributors = [0] * instance.n_packets
    for held in instance.holdings:
        for c in range(instance.n_packets):
            contributors[c] += held >> c & 1
    if min(contributors, default=0) < 2:
        return None
    model, g = instance.model, instance.graph
    best = 0
    for v in range(instance.n):
        need = instance.demands[v].bit_count()
        if not need:
            continue
        if model.rules.arc_capacities:
            cap = sum(model.capacity or graphs.capacity(g, v, u) for u in g.adj[v])
        elif model.port_packets is None:
            return None
        else:
            cap = model.port_packets  # k ports of p packets each
        best = max(best, math.ceil(need / cap))
    return best


def receipts_per_round(instance: Instance) -> int | None:
    """The most ``(receiver, chunk)`` receipts one round may hold (module docstring); None
    when packets are unbounded.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receipts_per_round(parse_instance("ring:5", "all-port", "allreduce"))
    10
    >>> receipts_per_round(parse_instance("ring:5", "telephone:p=2", "allreduce"))
    8
    >>> receipts_per_round(parse_instance("star:5", "single-port", "allreduce"))
    2
    """
    model, g, n = instance.model, instance.graph, instance.n
    rules, ports = model.rules, model.ports
    if ports is None:  # arc capacities
        return sum(model.capacity or graphs.capacity(g, u, v) for u in range(n) for v in g.adj[u])
    if model.packet_cap is None:
        return None
    if (rules.two_way_calls or rules.send_or_receive) and ports != 1:
        return None  # no such model: no bound rather than another model's
    if not rules.point_to_point:
        arcs = n * ports
    elif rules.two_way_calls or rules.send_or_receive:
        matching = len(nx.max_weight_matching(g, maxcardinality=True))
        arcs = matching * (2 if rules.two_way_calls else 1)
    elif ports == 1:
        heads_and_tails = nx.Graph()
        tails = [("out", u) for u in range(n)]
        heads_and_tails.add_nodes_from(tails)
        heads_and_tails.add_edges_from(
            (("out", u), ("in", v)) for u in range(n) for v in g.adj[u] if v != u
        )
        arcs = len(bipartite.hopcroft_karp_matching(heads_and_tails, tails)) // 2
    else:  # at most ``ports`` arcs out of and into each node, one transmission an arc
        flow = nx.DiGraph()
        for u in range(n):
            flow.add_edge("s", ("out", u), capacity=ports)
            flow.add_edge(("in", u), "t", capacity=ports)
            for v in g.adj[u]:
                if v != u:
                    flow.add_edge(("out", u), ("in", v), capacity=1)
        arcs = int(nx.maximum_flow_value(flow, "s", "t"))
    if model.calls_per_round is not None and rules.point_to_point:
        arcs = min(arcs, model.calls_per_round * (2 if rules.two_way_calls else 1))
    return arcs * model.packet_cap


def receipt_bound(instance: Instance) -> int | None:
    """``ceil(sum_c (m_c + d_c - 2) / cap)`` (module docstring), for the chunks that some
    node demands; None when a round may hold any number of receipts.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receipt_bound(parse_instance("hub:5", "single-port", "allreduce:chunks=2"))
    16
    >>> receipt_bound(parse_instance("ring:6", "all-port", "allreduce:chunks=2"))
    10
    """
    cap = receipts_per_round(instance)
    if cap is None or cap == 0:
        return None
    need = 0
    for c in range(instance.n_packets):
        m = sum(held >> c & 1 for held in instance.holdings)
        d = sum(want >> c & 1 for want in instance.demands)
        if d:
            need += max(0, m + d - 2)
    return -(-need // cap)


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
        "source": "reduce-scatter" | "gossip" | "receive" | "receipts" | "cut" |
        "one-round", ...}`` (or
        ``allreduce-drat`` when a DRAT proof raised the bound) and the sub-result whose
        bound certifies as ``dual``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.search.entry import solve
    >>> res = solve(parse_instance("ring:4", "single-port", "allreduce"))
    >>> res.status, res.optimum, res.evidence["kind"], res.evidence["source"]
    ('optimal', 6, 'allreduce-bracket', 'receipts')
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
    recv = receive_bound(instance)
    receipts = receipt_bound(instance)
    cut = cut_bound(instance)
    one = one_round_value(instance)
    quick = _closed_answer(instance, recv, receipts, cut, one, seeds, start)
    if quick is not None:  # a construction meets a closed bound: no sub-problem needed
        emit({"event": "lower-bound", "value": quick.lower_bound, "source": "allreduce bound"})
        emit({"event": "upper-bound", "value": quick.upper_bound, "source": quick.upper_source})
        return quick
    # a third of the time each for the sub-problems, from now; the rest for the exact search
    emit({"event": "stage", "what": "allreduce: first its reduce-scatter sub-problem"})
    rs = _sub(solve_other, sub_problem(instance, ProblemKind.REDUCE_SCATTER), third)
    ag = None
    if not rs.interrupted:
        emit({"event": "stage", "what": "allreduce: then its gossip (allgather) sub-problem"})
        ag = _sub(solve_other, sub_problem(instance, ProblemKind.GOSSIP), third)
    candidates = [
        ("reduce-scatter", rs.lower_bound, rs),
        ("gossip", 0 if ag is None else ag.lower_bound, ag),
        ("receive", recv or 0, None),
        ("receipts", receipts or 0, None),
        ("cut", cut or 0, None),
        ("one-round", one or 0, None),
    ]
    source, lower, sub = max(candidates, key=lambda x: x[1])
    evidence: dict[str, Any] = {
        "kind": "allreduce-bracket",
        "source": source,
        "value": lower,
        "bounds": {
            "reduce-scatter": rs.lower_bound,
            "gossip": None if ag is None else ag.lower_bound,
            "receive": recv,
            "receipts": receipts,
            "cut": cut,
            "one-round": one,
        },
    }
    if sub is not None:
        evidence["sub_problem"] = sub.instance.problem.spec()
        evidence["sub"] = sub.evidence
    emit({"event": "lower-bound", "value": lower, "source": f"allreduce bound '{source}'"})
    best: tuple[Schedule, Any] | None = None
    source_of_upper = "none"

    def offer(made: tuple[Schedule, Any] | None, name: str) -> None:
        """Keep ``made`` (a verified schedule and its report) if it is the shortest yet."""
        nonlocal best, source_of_upper
        if made is not None and (best is None or made[1].rounds < best[1].rounds):
            best, source_of_upper = made, name

    stopped = ag is None or ag.interrupted  # Ctrl-C: the bounds and schedules known so far
    try:
        for name, seed in seeds or []:
            offer(_replayed(instance, seed), name)
        if ag is not None and rs.schedule is not None and ag.schedule is not None:
            composed = compose(rs.schedule, ag.instance, ag.schedule)
            composition = f"reduce-scatter ({rs.upper_source}) then allgather ({ag.upper_source})"
            offer(_replayed(instance, composed), composition)
        for name, module, build in CONSTRUCTIONS:
            made = f"the {name} allreduce (gossipcert.constructions.{module})"
            shorter = None if best is None else best[1].rounds - 1
            offer(_construction(instance, build, shorter), made)
        if not stopped and best is not None and best[1].rounds > lower:
            known = best[1].rounds
            bracket = {"rounds": known - 1, "lower": lower, "upper": known}
            with heartbeats(emit, "the tree-packing allreduce", bracket.copy):
                packed = _tree_packing(instance, lower, known, deadline)
            offer(packed, "the tree-packing allreduce (gossipcert.finders.tree_allreduce)")
    except KeyboardInterrupt:
        stopped = True
    if stopped:
        return _answer(instance, rs, ag, lower, best, evidence, source_of_upper, False, True)
    upper = None if best is None else best[1].rounds
    if upper is not None:
        emit({"event": "upper-bound", "value": upper, "source": source_of_upper})
    optimal = _meets(best, lower, sub)
    small = instance.n <= PACKING_NODES
    if not optimal and upper is not None and small and packing_applies(instance) is None:
        lower, weighed, stopped = _packing(instance, lower, upper, deadline, strict, emit)
        if weighed is not None:
            evidence, sub = {**weighed, "bracket": evidence}, None
        optimal = _meets(best, lower, sub)
    if not optimal and not stopped and upper is not None and encodable(instance) is None:
        found, refuted, record, stopped = _exact(instance, lower, upper, deadline, strict, emit)
        offer(found, "the allreduce model (gossipcert.encodings.allreduce)")
        if refuted is not None and record is not None and refuted >= lower:
            lower = refuted + 1  # raised above the closed bounds by a checked proof
            evidence = {"kind": "allreduce-drat", "rounds": refuted, **record, "bracket": evidence}
            sub = None
        optimal = _meets(best, lower, sub)
    return _answer(instance, rs, ag, lower, best, evidence, source_of_upper, optimal, stopped, sub)


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
    recv: int | None,
    receipts: int | None,
    cut: int | None,
    one: int | None,
    seeds: list[tuple[str, Schedule]] | None,
    start: float,
) -> SolveResult | None:
    """The optimum, when a construction of :data:`CONSTRUCTIONS` meets the largest of the
    closed bounds (``receive``, ``receipts``, ``cut``, ``one-round``): the sub-problems
    then add nothing, and on many chunks they are the slow part. None otherwise (or with
    ``seeds``)."""
    bounds = {"receive": recv, "receipts": receipts, "cut": cut, "one-round": one}
    source, lower = max(bounds.items(), key=lambda kv: kv[1] or 0)
    if seeds or not lower:
        return None
    for name, module, build in CONSTRUCTIONS:
        made = _construction(instance, build, lower)
        if made is not None and made[1].rounds == lower:
            evidence = {
                "kind": "allreduce-bracket",
                "source": source,
                "value": lower,
                "bounds": {"reduce-scatter": None, "gossip": None, **bounds},
            }
            return SolveResult(
                instance,
                "optimal",
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
                emit(_query(lower, "unknown", began, "the chunk-packing bound does not reach"))
                break
            emit(_query(lower, "unsat", began, "the chunk-packing bound, proof checked"))
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
    return sub is None or (sub.status == "optimal" and sub.optimum == lower)


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
    status = "optimal" if optimal else ("feasible" if upper is not None else "unknown")
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


def _replayed(instance: Instance, candidate: Schedule) -> tuple[Schedule, Any] | None:
    """``candidate`` cut to its rounds and its verifier's report, or None if it is not a
    valid schedule of ``instance``."""
    report = simulate(instance, candidate)
    if not report.ok:
        return None
    return Schedule(candidate.rounds[: report.rounds]), report


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
    return _replayed(instance, schedule)


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


def find(
    instance: Instance, rounds: int, deadline: float | None, symmetry: bool = True
) -> tuple[str, Schedule | None]:
    """Look for a schedule of ``rounds`` rounds: ``("sat", schedule)``, ``("unsat", None)``
    or ``("unknown", None)`` at ``deadline`` (a ``time.monotonic()`` value). With
    ``symmetry`` the model orders interchangeable chunks (family 7 of
    :mod:`gossipcert.encodings.allreduce`): a renaming of a schedule's chunks is one too,
    so "unsat" is still exact, and a schedule found is replayed by the caller like any
    other."""
    f = exact.build(instance, rounds, symmetry=symmetry)
    with Solver(name=PROOF_SOLVER, bootstrap_with=f.cnf_since(0)) as solver:
        found = solve_sliced(solver, [], deadline)
        if found is None:
            return "unknown", None
        if not found:
            return "unsat", None
        return "sat", decode(f, solver.get_model() or [], rounds)


def refute(
    instance: Instance, rounds: int, deadline: float | None
) -> tuple[StandaloneCNF, ProofResult, ProofVerdict] | None:
    """A checked DRAT proof that ``rounds`` rounds are impossible, or None (satisfiable or
    out of time).

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    _, cnf = standalone(instance, rounds)
    out = checked_refutation(cnf, deadline, None, f"the DRAT proof of allreduce in {rounds}")
    return None if out is None else (cnf, *out)


def refute_union(
    instance: Instance, rounds: int, deadline: float | None, strict: bool = False
) -> tuple[str, dict[str, Any] | None]:
    """Refute the union relaxation (:mod:`gossipcert.encodings.allreduce_union`) for
    ``rounds`` rounds: ``("unsat", record)`` with the checked proof's record (its
    ``formula`` is ``"union"``, ``strict`` says which options), else ``("sat", None)`` or
    ``("unknown", None)`` (out of time).

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    options = union.STRICT_OPTIONS if strict else union.DEFAULT_OPTIONS
    _, cnf = union.standalone(instance, rounds, options)
    name = f"the DRAT proof of the allreduce union relaxation in {rounds}"
    status, out = refutation_status(cnf, deadline, name)
    if out is None:
        return status, None
    return status, {"formula": "union", "strict": strict, **proof_record(cnf, *out)}


def _exact(
    instance: Instance,
    lower: int,
    upper: int,
    deadline: float | None,
    strict: bool = False,
    emit: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[tuple[Schedule, Any] | None, int | None, dict[str, Any] | None, bool]:
    """Decide ``lower .. upper - 1`` rounds, ascending: ``(schedule and its verifier's
    report, or None; the most rounds refuted or None; the proof record of that refutation;
    stopped by Ctrl-C)``.
    Each horizon is put to the union relaxation, whose refutation (a checked
    proof) settles it, and to the exact model without a proof, whose schedule settles it
    (:func:`decide`: the two at once where two cores are free); when the relaxation is
    satisfiable and the exact model is not, the exact model is refuted with a proof.
    Ctrl-C ends the search with what it has decided. ``emit`` receives a progress event
    as each horizon starts and ends, and heartbeats between."""

    def told(event: dict[str, Any]) -> None:
        if emit is not None:
            emit(event)

    refuted, record = None, None
    try:
        for r in range(lower, upper):
            if seconds_left(deadline) <= 0:
                break
            told({"event": "trying", "rounds": r, "what": _TRYING})
            began = time.monotonic()
            bracket = {"rounds": r, "lower": r, "upper": upper}
            with heartbeats(emit, f"deciding {r} rounds: {_TRYING}", bracket.copy):
                relaxed, relaxed_record, status, schedule = decide(instance, r, deadline, strict)
            if relaxed == "unsat":
                refuted, record = r, relaxed_record
                told(_query(r, "unsat", began, "the union relaxation, proof checked"))
                told({"event": "lower-bound", "value": r + 1, "source": "allreduce-drat"})
                continue
            found = None if schedule is None else _replayed(instance, schedule)
            if status == "sat" and found is not None:
                told(_query(r, "sat", began, "the exact model, schedule verified"))
                told({"event": "upper-bound", "value": r, "source": "the allreduce model"})
                return found, refuted, record, False
            proved = None
            if status == "unsat":
                what = f"the exact model has no schedule of {r} rounds: its proof"
                with heartbeats(emit, what, bracket.copy):
                    proved = refute(instance, r, deadline)
            if proved is None:
                told(_query(r, "unknown", began, "out of time"))
                break
            cnf, pr, verdict = proved
            refuted, record = r, proof_record(cnf, pr, verdict)
            told(_query(r, "unsat", began, "the exact model, proof checked"))
            told({"event": "lower-bound", "value": r + 1, "source": "allreduce-drat"})
    except KeyboardInterrupt:
        return None, refuted, record, True
    return None, refuted, record, False


#: what a horizon of the exact search puts to the solvers (a progress line)
_TRYING = "the union relaxation (a refutation) and the exact model (a schedule)"


def _query(rounds: int, status: str, began: float, method: str) -> dict[str, Any]:
    """The progress event of a horizon decided (or not) since ``began``."""
    seconds = round(time.monotonic() - began, 3)
    return {
        "event": "query",
        "rounds": rounds,
        "status": status,
        "seconds": seconds,
        "method": method,
    }


def decide(
    instance: Instance, rounds: int, deadline: float | None, strict: bool = False
) -> tuple[str, dict[str, Any] | None, str, Schedule | None]:
    """``(union status, its proof record, exact status, schedule)`` for ``rounds`` rounds:
    :func:`refute_union` and :func:`find`, each ``"sat"``, ``"unsat"``, ``"unknown"`` (out of
    time) or ``"skipped"`` (not needed: the other settled the horizon).

    On one core the union relaxation goes first and the exact model only when the
    relaxation is satisfiable. With two (:func:`gossipcert.children.may_fan_out`: two cores
    or more, and not one of a pool's workers) both run at once in forked
    children (:class:`gossipcert.children.Child`), each without a deadline of its own, so
    in one solver call (:func:`gossipcert.solvers.backends.allow_long_slices`), and killed
    at ``deadline``: a refutation of the relaxation or a schedule ends the race, and
    the other child is killed. The relaxation is satisfiable more often than not near the
    optimum, where the exact model has to be solved anyway; once it is, its core runs a
    second search of the exact model, without family 7 (the ordering of interchangeable
    chunks), and the first of the two searches to answer decides. A child that ends without an
    answer (killed by the system, a crash in a native solver) does not lose the horizon:
    with time left, it is decided again in this process, one model after the other.

    Raises
    ------
    SolverError
        A checker rejects the proof.
    """
    if not may_fan_out():
        return _in_turn(instance, rounds, deadline, strict)
    # each child and what it answers: the relaxation's refutation ("union"), or a search of
    # the exact model with (True) or without (False) family 7
    running: dict[Child, str | bool] = {}
    relaxed, record, status, schedule = "unknown", None, "unknown", None
    answered: set[str] = set()
    try:
        running[Child(_union_in_child, (instance, rounds, strict), allow_long_slices)] = "union"
        running[Child(_find_in_child, (instance, rounds, True), allow_long_slices)] = True
        while any(not child.done for child in running):
            if seconds_left(deadline) <= 0:
                break
            for child in ready(running, deadline):
                if child.done:  # reaped a moment ago: its search was not needed
                    continue
                for kind, value in child.read():
                    if kind == "error":
                        raise value
                    if kind == "interrupted":  # SIGINT to the process group
                        raise KeyboardInterrupt
                    if kind != "result":
                        continue
                    if running[child] == "union":
                        answered.add("union")
                        relaxed, record = value
                    elif "find" not in answered:
                        answered.add("find")
                        status, schedule = value
                        for other, role in running.items():  # the other search: not needed
                            if other is not child and role != "union":
                                other.reap()
                if child.done:
                    child.reap()
            if relaxed == "unsat":
                return relaxed, record, "skipped", None
            if status == "sat":
                return "skipped", None, status, schedule
            if relaxed == "sat" and "find" not in answered and len(running) == 2:
                # the relaxation's core is free: a second search of the exact model, without
                # family 7 (the two configurations are fastest on different horizons)
                running[Child(_find_in_child, (instance, rounds, False), allow_long_slices)] = False
    finally:
        for child in running:
            child.reap()
    if len(answered) < 2 and seconds_left(deadline) > 0:
        # a child ended without an answer (killed by the system, a crash in the solver):
        # what it would have said is decided here
        if "find" in answered:  # the exact model is unsatisfiable: the caller proves it
            return "unknown", None, status, None
        if "union" in answered:
            return (relaxed, None, *find(instance, rounds, deadline))
        return _in_turn(instance, rounds, deadline, strict)
    return relaxed, record, status, schedule


def _in_turn(
    instance: Instance, rounds: int, deadline: float | None, strict: bool
) -> tuple[str, dict[str, Any] | None, str, Schedule | None]:
    """:func:`decide` on one core: the relaxation first, the exact model when it is
    satisfiable."""
    relaxed, record = refute_union(instance, rounds, deadline, strict)
    if relaxed != "sat":
        return relaxed, record, "skipped", None
    status, schedule = find(instance, rounds, deadline)
    return relaxed, None, status, schedule


def _union_in_child(send: Send, instance: Instance, rounds: int, strict: bool) -> Any:
    """:func:`refute_union` without a deadline (the parent kills the child at its own)."""
    return refute_union(instance, rounds, None, strict)


def _find_in_child(send: Send, instance: Instance, rounds: int, symmetry: bool) -> Any:
    """:func:`find` without a deadline (the parent kills the child at its own)."""
    return find(instance, rounds, None, symmetry)
