"""Reduce and reduce-scatter solved as the time reversal of broadcast and chunked gossip.

The dual of ``reduce:r`` is ``broadcast:r`` and the dual of ``reduce-scatter`` is ``gossip``,
on the same graph, under the same model and with the same ``chunks=K`` (:func:`dual_problem`);
chunk ``c`` of the reduction is packet ``c`` of its dual (same names, same numbers).

**Broadcast to reduce** (:func:`reduction_from_dual`). Take a schedule of ``R`` rounds that
solves the dual. For every node ``v`` and packet ``c`` that ``v`` does not hold at the start,
keep only the *first* receipt of ``c`` by ``v``: round ``t(v, c)`` and a sender ``u(v, c)``
(the first one listed when several deliver ``c`` in that round). These arcs form, per packet,
a tree directed away from its holders, and ``t`` increases along every path. Run it
backwards: in round ``R + 1 - t(v, c)`` node ``v`` sends its partial result of chunk ``c``
to ``u(v, c)`` with ``"op": "reduce"`` (a node whose subtree holds no contributor, such as a
router leaf, sends nothing). A child ``w`` of ``v`` has ``t(w, c) > t(v, c)``, so it sends
earlier: when ``v`` sends, its partial is its own contribution plus its whole subtree's, and
the subtrees of distinct children are disjoint, so no contribution is ever counted twice
(the schedule is valid under ``sum``, hence under ``max``), and the root (``reduce``) or the
owner ``i`` of chunk ``i`` (``reduce-scatter``) ends with every contribution.

**Reduce to broadcast** (the converse). In any valid reduction schedule of ``R`` rounds, every
contribution ``w`` that reaches the final partial of chunk ``c`` at its demander ``d`` got
there along a chain of transmissions ``w = x_k -> ... -> x_0 = d`` in increasing rounds, each
carrying a partial that held ``w``. Reversing all those chains (round ``t -> R + 1 - t``, arc
``(x, y) -> (y, x)``) makes ``d`` send ``c`` down every chain, each node forwarding only
after it received: a broadcast (resp. gossip) of ``R`` rounds, whether or not the reduction
counted twice. Hence the optima are equal, for ``sum`` and ``max`` alike.

**Which models.** Both directions only keep some transmissions and reverse their arcs, so
they hold whenever a subset of a valid round, arcs reversed, is again a valid round:

- ``telephone`` (with or without ``p``): the calls kept are a subset of a matching, each way
  carrying at most what the other way carried;
- ``half-duplex`` and ``single-port`` (any ``p``): a node sends in the reversed round only
  where it received in the original (at most once) and receives only where it sent (at most
  one receiver), and half-duplex's "not both" is symmetric;
- ``all-port``: an undirected graph gives both arcs of an edge one capacity, and the load
  on a reversed arc is at most the original load;
- ``calls=N`` (``sequential``) with the three point-to-point models: a reversed round's
  calls or transmissions are a subset of the original's, one for one, so the count does not
  grow. Supported;
- **not** ``multicast``: one sender to several receivers reverses into several senders to
  one receiver, which multicast forbids (and conversely);
- **not** ``all-port`` with ``calls=N``: there one transmission may reach several
  receivers and counts once, but reversed it is one transmission per receiver.

These are refused with :class:`~gossipcert.errors.UnsupportedModelError`
(:func:`reversal_refusal`, which reads the ``reversible`` flag of the model's
:class:`~gossipcert.models.base.PortRules`, and refuses all-port with ``calls=N``). The
linear-cost objectives are not offered for reductions.

:func:`solve_by_reversal` solves the dual with the round search it is given, converts the
schedule, replays it in :func:`gossipcert.simulate.simulate` (it is shown only if it solves
the reduction in the dual's number of rounds) and returns the dual's bounds, its evidence
wrapped as ``{"kind": "reversal", ...}`` and the dual result itself (``dual``), from which
the certificate stores the dual's certificate.

References
----------
.. [1] S. M. Hedetniemi, S. T. Hedetniemi and A. L. Liestman, "A survey of gossiping and
   broadcasting in communication networks", Networks 18, 1988 (gossip and its reversal).
.. [2] E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication:
   theory, practice, and experience", CCPE 19, 2007 (reduce-scatter as the dual of
   allgather, reduce of broadcast).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import (
    Instance,
    Model,
    Problem,
    ProblemKind,
    bits,
    make_instance,
)
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate

#: each reduction solved by reversal and its dual problem
DUALS = {ProblemKind.REDUCE: ProblemKind.BROADCAST, ProblemKind.REDUCE_SCATTER: ProblemKind.GOSSIP}


def reversal_refusal(model: Model) -> str | None:
    """Why time reversal does not carry optima across under ``model`` (None: it does).

    Examples
    --------
    >>> from gossipcert.instance import parse_model
    >>> reversal_refusal(parse_model("sequential")) is None
    True
    >>> reversal_refusal(parse_model("multicast"))[:9]
    'multicast'
    """
    if not model.rules.reversible:
        return (
            f"{model.kind.value} is not symmetric under time reversal (one sender to several "
            "receivers becomes several senders to one receiver)"
        )
    if not model.rules.point_to_point and model.calls_per_round is not None:
        return (
            f"{model.kind.value} with calls=N is not symmetric under time reversal (a "
            "transmission to several receivers counts once, reversed it is one per receiver)"
        )
    return None


def dual_problem(problem: Problem) -> Problem:
    """The problem whose reversal is ``problem``: ``reduce:r`` -> ``broadcast:r``,
    ``reduce-scatter`` -> ``gossip``, with the same chunks.

    Examples
    --------
    >>> from gossipcert.instance import parse_problem
    >>> dual_problem(parse_problem("reduce-scatter:chunks=2,redop=max")).spec()
    'gossip:chunks=2'
    """
    kind = DUALS.get(problem.kind)
    if kind is None:
        raise UnsupportedModelError(
            f"{problem.spec()} has no dual by time reversal (only reduce and reduce-scatter)"
        )
    return Problem(kind, problem.root, chunks=problem.chunks)


def dual_instance(instance: Instance) -> Instance:
    """The dual instance of a reduce or reduce-scatter instance (same graph and model).

    Raises
    ------
    UnsupportedModelError
        Not reduce or reduce-scatter, or a model that is not symmetric under reversal.
    """
    reason = reversal_refusal(instance.model)
    if reason is not None:
        raise UnsupportedModelError(f"{instance.problem.spec()} by time reversal: {reason}")
    dual = make_instance(instance.graph, instance.model, dual_problem(instance.problem))
    if dual.packet_names != instance.packet_names:  # pragma: no cover - by construction
        raise UnsupportedModelError("the dual's packets are not the reduction's chunks")
    return dual


def reduction_from_dual(dual: Instance, schedule: Schedule, reduction: Instance) -> Schedule:
    """The reduction schedule that is ``schedule`` (solving ``dual``) run backwards.

    Parameters
    ----------
    dual : Instance
        The broadcast or gossip instance ``schedule`` solves.
    schedule : Schedule
        A valid schedule of ``dual`` (``"packets": "all"`` allowed).
    reduction : Instance
        The reduce or reduce-scatter instance (same graph, chunks numbered as the packets).

    Returns
    -------
    Schedule
        Of the same length, every transmission ``"op": "reduce"``; see the module docstring.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> red = parse_instance("path:3", "telephone", "reduce:0")
    >>> bc = Schedule.from_calls([[(0, 1)], [(1, 2)]])
    >>> out = reduction_from_dual(dual_instance(red), bc, red)
    >>> [[(t.sender, t.receivers, t.op) for t in r] for r in out.rounds]
    [[(2, (1,), 'reduce')], [(1, (0,), 'reduce')]]
    """
    length = len(schedule)
    know = list(dual.holdings)
    # first receipt of each (node, packet): round and sender
    first: dict[tuple[int, int], tuple[int, int]] = {}
    for t, rnd in enumerate(schedule.rounds[:length], start=1):
        incoming: dict[int, int] = {}
        for tr in rnd:
            mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
            for r in tr.receivers:
                for p in bits(mask & ~know[r] & ~incoming.get(r, 0)):
                    first[(r, p)] = (t, tr.sender)
                incoming[r] = incoming.get(r, 0) | mask
        for r, mask in incoming.items():
            know[r] |= mask
    # reversed round s = R + 1 - t: v sends chunk p to the node that first informed it
    sends: list[dict[tuple[int, int], int]] = [{} for _ in range(length)]
    for (v, p), (t, u) in first.items():
        arcs = sends[length - t]
        arcs[(v, u)] = arcs.get((v, u), 0) | 1 << p
    held = list(reduction.holdings)  # chunks of which each node's partial is not empty
    rounds: list[tuple[Transmission, ...]] = []
    for arcs in sends:
        out = []
        for (v, u), mask in sorted(arcs.items()):
            mask &= held[v]
            if mask:
                out.append(Transmission(v, (u,), mask, "reduce"))
        for tr in out:
            held[tr.receivers[0]] |= tr.packets or 0
        rounds.append(tuple(out))
    return Schedule(tuple(rounds))


#: the part of a time limit kept, after the dual is solved, to turn its schedule round and
#: replay it (both grow with the schedule: a second on a loaded machine for the 1985 rounds
#: of the gather-spread allgather of 64 chunks on two MI250 chassis) ...
REVERSAL_FRACTION = 0.03
#: ... but at most this many seconds
REVERSAL_SECONDS = 2.0


def reversal_reserve(time_limit: float) -> float:
    """Seconds of ``time_limit`` kept for the conversion after the dual's search.

    Examples
    --------
    >>> round(reversal_reserve(60.0), 3), round(reversal_reserve(10.0), 3)
    (1.8, 0.3)
    """
    return min(REVERSAL_SECONDS, REVERSAL_FRACTION * time_limit)


def solve_by_reversal(instance: Instance, solve_dual: Callable[[Instance], Any]) -> Any:
    """Solve a reduce or reduce-scatter instance through its dual.

    Parameters
    ----------
    instance : Instance
        A ``reduce`` or ``reduce-scatter`` instance under a model symmetric under reversal.
    solve_dual : callable
        The round search, called on the dual instance; returns its ``SolveResult``.

    Returns
    -------
    SolveResult
        The dual's status and bounds; the converted schedule (verified on ``instance``);
        evidence ``{"kind": "reversal", "dual_problem", "dual_optimum", "dual"}`` and the
        dual result as ``dual``.

    Raises
    ------
    UnsupportedModelError
        A model not symmetric under reversal (see the module docstring).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.search.entry import solve
    >>> solve(parse_instance("ring:6", "telephone", "reduce-scatter")).optimum
    3
    """
    dual = dual_instance(instance)
    res = solve_dual(dual)
    schedule = report = None
    if res.schedule is not None:
        schedule = reduction_from_dual(dual, res.schedule, instance)
        report = simulate(instance, schedule)
        if not report.ok or len(schedule) > len(res.schedule):
            first = report.errors[0].message if report.errors else "demands not all met"
            raise UnsupportedModelError(  # pragma: no cover - the argument above says never
                f"the reversed schedule does not solve {instance.problem.spec()}: {first}"
            )
    evidence = {
        "kind": "reversal",
        "dual_problem": dual.problem.spec(),
        "dual_optimum": res.optimum,
        "dual": res.evidence,
    }
    return replace(
        res,
        instance=instance,
        schedule=schedule,
        report=report,
        evidence=evidence,
        upper_source=f"time reversal of the {dual.problem.spec()} schedule from {res.upper_source}",
        dual=res,
    )
