"""The chunk-packing bound of allreduce: weights on the port slots, and each chunk's least weight.

A bound by linear-programming duality, as for fractional packings [1]_:

- **slots**: with arc capacities (all-port), arc ``(u, v)`` in round ``t``, which carries at
  most ``c(u, v)`` chunks; in the port models with a packet cap ``p`` (telephone,
  half-duplex, single-port; ``k`` ports), the sending side of ``u`` in round ``t`` and the
  receiving side of ``v`` in round ``t``, at most ``k p`` chunks each (a node sends ``k``
  transmissions a round and receives ``k``, one in the one-port models, of at most ``p``
  chunks each). A transmission of chunk ``c`` over ``(u, v)`` in round
  ``t`` takes its arc's slot, or its two sides' slots;
- **weights**: give every slot ``s`` a weight ``y_s >= 0`` (an integer). A chunk's weight
  is the sum, over its transmissions, of the weights of the slots they take. The chunks of
  one schedule take each slot at most ``cap_s`` times in all, so their weights add up to at
  most ``T = sum_s cap_s y_s``;
- **each chunk's least weight** ``W``: the transmissions of one chunk, with its knowledge of
  contributions, are a model of the union relaxation
  (:mod:`gossipcert.encodings.allreduce_union`) of the *one-chunk* instance (the same
  graph, model, contributors and demanders, one chunk): every family there holds of every
  schedule, and dropping a useless transmission only lowers the weight. So when that
  formula with "the weight is at most ``W - 1``" (a cardinality constraint over the
  transmission variables, each repeated as often as its weight) is refuted, with a checked
  proof, every chunk weighs at least ``W``;
- **the bound**: ``K`` interchangeable chunks (the same contributors and demanders; every
  chunk of an allreduce) weigh at least ``K W`` and at most ``T``; so ``K W > T`` proves
  that ``R`` rounds are impossible, under ``sum`` and ``max`` alike.

The weights are found by column generation: the linear program "most chunks, fractionally,
over one-chunk schedules, within the slot capacities" is solved by HiGHS over the schedules
found so far, and its dual prices ``y`` are put to a CP-SAT model of the one-chunk
knowledge (the cheapest schedule under ``y``, added as a column while it costs less than 1).
When ``T(y)`` over the least weight falls below ``K``, ``y`` is scaled and rounded to
integers, the least weight recomputed, and the refutation above is asked of CaDiCaL. On the
5-cycle with the chord 0-3 (atlas 43) in all-port with two chunks a node, the program's
value at 7 rounds is 9.5 chunks, fewer than 10: 7 rounds are impossible.

The evidence ``{"kind": "allreduce-packing", "rounds", "chunks", "weights", "total",
"least_weight", "strict", ...}`` with the proof's record is re-checked by
:func:`check_packing_evidence`: the total recomputed from the weights and the instance's
capacities, ``K W > T``, and the proof against the regenerated one-chunk CNF.

References
----------
.. [1] P. C. Gilmore and R. E. Gomory, "A linear programming approach to the cutting-stock
   problem", Operations Research 9, 1961 (column generation).
.. [2] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (knowledge along chains of calls).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np

from gossipcert.command_start import seconds_left
from gossipcert.encodings import allreduce_union as union
from gossipcert.encodings.allreduce import arc_cap, arcs_of, encodable, interchangeable
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.instance import Instance
from gossipcert.proofs.refutation import proof_record, recheck_evidence_proof, refutation_status
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

#: a slot: ("arc", u, v, t) with arc capacities, ("out", u, t) or ("in", v, t) with ports
Slot = tuple[Any, ...]
#: a transmission of one chunk: (u, v, t)
Hop = tuple[int, int, int]

#: the scale of the float prices in the CP-SAT pricing model
_SCALE = 10**6
#: the integer scales tried when the prices are rounded
_DENOMINATORS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 30, 32, 40, 48, 60, 64, 100)


def applies(instance: Instance) -> str | None:
    """Why the bound does not apply to ``instance`` (None: it does)."""
    reason = encodable(instance)
    if reason is not None:
        return reason
    model = instance.model
    if not model.rules.arc_capacities and model.packet_cap is None:
        return "packets are unbounded"
    if max((len(c) for c in interchangeable(instance)), default=0) < 2:
        return "fewer than two interchangeable chunks"
    return None


def slots(instance: Instance, rounds: int) -> dict[Slot, int]:
    """Every slot of ``rounds`` rounds and how many chunks it carries (module docstring)."""
    model = instance.model
    out: dict[Slot, int] = {}
    for t in range(1, rounds + 1):
        if model.rules.arc_capacities:
            for u, v in arcs_of(instance):
                out[("arc", u, v, t)] = arc_cap(instance, u, v) or 0
        else:
            cap = model.port_packets or 0
            for x in range(instance.n):
                out[("out", x, t)] = cap
                out[("in", x, t)] = cap
    return out


def taken(instance: Instance, hop: Hop) -> list[Slot]:
    """The slots a transmission ``(u, v, t)`` of one chunk takes."""
    u, v, t = hop
    if instance.model.rules.arc_capacities:
        return [("arc", u, v, t)]
    return [("out", u, t), ("in", v, t)]


def one_chunk(instance: Instance) -> tuple[Instance, int]:
    """The one-chunk instance of the largest class of interchangeable chunks, and its size."""
    members = max(interchangeable(instance), key=len)
    c = members[0]
    single = replace(
        instance,
        packet_names=(instance.packet_names[c],),
        holdings=tuple(h >> c & 1 for h in instance.holdings),
        demands=tuple(d >> c & 1 for d in instance.demands),
    )
    return single, len(members)


def weight_cnf(
    single: Instance, rounds: int, weights: dict[Slot, int], least: int, strict: bool
) -> StandaloneCNF:
    """The union relaxation of the one-chunk instance for ``rounds`` rounds with "the
    chunk's weight is at most ``least - 1``": unsatisfiable iff every one-chunk schedule
    weighs ``least`` or more (deterministic, so that a proof re-checks)."""
    options = union.STRICT_OPTIONS if strict else union.DEFAULT_OPTIONS
    f = union.build(single, rounds, options)
    heavy: list[int] = []
    for u, v in arcs_of(single):
        for t in range(1, rounds + 1):
            w = sum(weights.get(s, 0) for s in taken(single, (u, v, t)))
            x = f.var(("X", u, v, 0, t))
            for i in range(w):  # w copies equal to x: a cardinality constraint counts each
                copy = x if i == 0 else f.var(("weight", u, v, t, i))
                if i:
                    f.clause([-copy, x])
                    f.clause([copy, -x])
                heavy.append(copy)
    if least - 1 < len(heavy):
        f.at_most(heavy, least - 1)
    clauses = f.cnf_since(0)  # first: the encodings add variables
    return StandaloneCNF(rounds, options, f.vpool.top, clauses, 0)


def total(caps: dict[Slot, int], weights: dict[Slot, Any]) -> Any:
    """``T = sum_s cap_s y_s``: the most weight the chunks of one schedule can take, for
    the capacities ``caps`` of :func:`slots` (integer or float weights alike)."""
    return sum(caps[s] * y for s, y in weights.items())


def packing_bound(
    instance: Instance, rounds: int, deadline: float | None, strict: bool = False
) -> dict[str, Any] | None:
    """A checked proof that ``rounds`` rounds are impossible by the chunk-packing bound
    (module docstring), as evidence; None when the bound does not reach (the program's
    value is ``K`` chunks or more) or the time runs out.

    Raises
    ------
    SolverError
        A checker rejects the proof.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ring:5", "all-port", "allreduce:chunks=2")
    >>> ev = packing_bound(inst, 4, None)
    >>> ev["kind"], ev["chunks"] * ev["least_weight"] > ev["total"]
    ('allreduce-packing', True)
    """
    if applies(instance) is not None:
        return None
    single, k = one_chunk(instance)
    caps = slots(instance, rounds)
    found = _weights(single, rounds, caps, k, deadline)
    if found is None:
        return None
    weights, least = found
    cnf = weight_cnf(single, rounds, weights, least, strict)
    name = f"the proof that a chunk weighs at least {least} in {rounds} rounds"
    _, out = refutation_status(cnf, deadline, name)
    if out is None:
        return None
    return {
        "kind": "allreduce-packing",
        "rounds": rounds,
        "chunks": k,
        "weights": [[*s, y] for s, y in sorted(weights.items(), key=repr)],
        "total": total(caps, weights),
        "least_weight": least,
        "strict": strict,
        **proof_record(cnf, *out),
    }


def check_packing_evidence(
    instance: Instance,
    optimum: int,
    ev: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool = False,
) -> None:
    """Add to ``out`` the steps that re-derive an ``allreduce-packing`` bound: ``optimum -
    1`` rounds refuted, ``K`` the largest class of interchangeable chunks, the total
    recomputed from the weights, ``K W > T``, and the proof of ``W`` against the
    regenerated CNF."""
    rounds = ev.get("rounds")
    if rounds != optimum - 1 or not isinstance(rounds, int):
        out.add(False, f"the bound refutes {rounds!r} rounds, not {optimum - 1}")
        return
    reason = applies(instance)
    if reason is not None:
        out.add(False, f"the chunk-packing bound does not apply: {reason}")
        return
    single, k = one_chunk(instance)
    caps = slots(instance, rounds)
    weights: dict[Slot, int] = {}
    for row in ev.get("weights", []):
        slot, y = tuple(row[:-1]), row[-1]
        if slot not in caps or not isinstance(y, int) or y < 0 or slot in weights:
            out.add(False, f"weight {row!r} is not a non-negative integer on a slot")
            return
        weights[slot] = y
    least = ev.get("least_weight")
    if not isinstance(least, int):
        out.add(False, "no least weight")
        return
    t = total(caps, weights)
    ok = k == ev.get("chunks") and t == ev.get("total") and k * least > t
    out.add(
        ok,
        f"{k} interchangeable chunks weigh at least {k} x {least} = {k * least}, "
        f"{'more' if ok else 'NOT more'} than the {t} the slots of {rounds} rounds carry",
    )
    if not ok:
        return
    cnf = weight_cnf(single, rounds, weights, least, ev.get("strict") is True)
    same = cnf.sha256() == ev.get("cnf_sha256")
    out.add(
        same,
        f"one-chunk weight CNF for {rounds} rounds regenerated: SHA-256 "
        f"{'matches' if same else 'DIFFERS FROM'} the certificate's",
    )
    if same:
        for good, text in recheck_evidence_proof(cnf, ev, time_limit, full):
            out.add(good, text)


def packing_relies_on(ev: dict[str, Any]) -> list[str]:
    """The sound but not implied family the one-chunk refutation rests on unless ``strict``."""
    if ev.get("strict") is True:
        return []
    return ["no useless transmission (gossipcert.encodings.allreduce_union)"]


def _weights(
    single: Instance, rounds: int, caps: dict[Slot, int], k: int, deadline: float | None
) -> tuple[dict[Slot, int], int] | None:
    """Integer weights and the least weight of a chunk under them with ``k W > T``, by
    column generation (module docstring); None when the program's value reaches ``k`` or
    the time runs out."""
    order = list(caps)
    index = {s: i for i, s in enumerate(order)}
    capacity = np.array([caps[s] for s in order], dtype=float)
    known: set[tuple[Hop, ...]] = set()  # the columns of the program so far
    width = 0  # how many columns (one-chunk schedules) it has
    # the program's matrix, one entry a hop and a slot it takes: the entry's row (slot) and
    # column, kept as the columns come so that no column is read twice
    rows: list[int] = []
    cols: list[int] = []
    prices = np.ones(len(order))
    while seconds_left(deadline) > 0:
        cost = {s: float(prices[index[s]]) for s in order}
        found, bound = _cheapest(single, rounds, cost, seconds_left(deadline), many=True)
        if bound > 0 and total(caps, cost) / bound < k:
            rounded = _rounded(single, rounds, caps, cost, k, deadline)
            if rounded is not None:
                return rounded
        fresh = [c for c in found if _weight(single, c, cost) < 1 - 1e-9 and c not in known]
        if width and not fresh:
            return None  # the program's value is reached: k chunks or more fit
        for column in fresh or found:
            rows += [index[s] for hop in column for s in taken(single, hop)]
            cols += [width] * (len(rows) - len(cols))
            known.add(column)
            width += 1
        prices = _duals(rows, cols, width, capacity)
    return None


def _rounded(
    single: Instance,
    rounds: int,
    caps: dict[Slot, int],
    cost: dict[Slot, float],
    k: int,
    deadline: float | None,
) -> tuple[dict[Slot, int], int] | None:
    """``cost`` scaled and rounded to integers that still give ``k W > T``, with ``W`` the
    lower bound CP-SAT proves on a chunk's weight under them (the proof of
    :func:`weight_cnf` confirms it); None if no scale of ``_DENOMINATORS`` does."""
    top = max(cost.values())
    for d in _DENOMINATORS:
        ints = {s: round(Fraction(c / top).limit_denominator(1000) * d) for s, c in cost.items()}
        ints = {s: y for s, y in ints.items() if y > 0}
        t = total(caps, ints)
        if seconds_left(deadline) <= 0:
            return None
        _, least = _cheapest(
            single, rounds, {s: float(y) for s, y in ints.items()}, seconds_left(deadline)
        )
        least_int = int(np.ceil(least - 1e-6))
        if k * least_int > t:
            return ints, least_int
    return None


def _weight(single: Instance, column: tuple[Hop, ...], cost: dict[Slot, float]) -> float:
    return sum(cost.get(s, 0.0) for hop in column for s in taken(single, hop))


def _duals(rows: list[int], cols: list[int], width: int, capacity: np.ndarray) -> np.ndarray:
    """The dual prices of "most chunks over the ``width`` columns within the slots'
    ``capacity``", the matrix given by its entries' ``rows`` and ``cols`` (HiGHS)."""
    from scipy import sparse
    from scipy.optimize import linprog

    shape = (len(capacity), width)
    a = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
    res = linprog(-np.ones(width), A_ub=a, b_ub=capacity, bounds=(0, None), method="highs")
    return np.maximum(-res.ineqlin.marginals, 0.0)


def _cheapest(
    single: Instance, rounds: int, cost: dict[Slot, float], seconds: float, many: bool = False
) -> tuple[list[tuple[Hop, ...]], float]:
    """One-chunk schedules of ``rounds`` rounds, cheapest first under ``cost`` (the last
    improving solutions CP-SAT found), and a proved lower bound on the cheapest weight.

    The model is the knowledge of one chunk: ``X[u, v, t]`` (arc ``(u, v)`` carries the
    chunk in round ``t``), ``K[v, w, t]`` (``v`` knows contributor ``w`` after round ``t``,
    at most what some transmission brought), the port rules of one chunk (one arc out and
    one in per node and round in the one-port models), every demander knowing every
    contributor at the end, and at least ``m + d - 2`` transmissions (implied); ``k`` out and
    ``k`` in with ``k`` ports."""
    from ortools.sat.python import cp_model

    g, n = single.graph, single.n
    dist = dict(nx.all_pairs_shortest_path_length(g))
    holders = [w for w in range(n) if single.holdings[w]]
    needers = [v for v in range(n) if single.demands[v]]
    m = cp_model.CpModel()
    # X[u, v, t]: the chunk crosses arc (u, v) in round t
    x = {(u, v, t): m.new_bool_var("") for u, v in arcs_of(single) for t in range(1, rounds + 1)}
    ports = single.model.ports
    if ports is not None:
        for t in range(1, rounds + 1):
            for a in range(n):
                if ports == 1:
                    m.add_at_most_one(x[(a, b, t)] for b in g.adj[a])
                    m.add_at_most_one(x[(b, a, t)] for b in g.adj[a])
                else:
                    m.add(sum(x[(a, b, t)] for b in g.adj[a]) <= ports)
                    m.add(sum(x[(b, a, t)] for b in g.adj[a]) <= ports)
    # K[v, w, t]: v knows w's contribution after round t (0/1 where fixed)
    know: dict[tuple[int, int, int], Any] = {
        (v, w, 0): int(v == w) for v in range(n) for w in holders
    }
    for t in range(1, rounds + 1):
        for v in range(n):
            for w in holders:
                if v == w or dist[v].get(w, n) > t:
                    know[(v, w, t)] = int(v == w)
                    continue
                k = m.new_bool_var("")
                brought = []
                for u in g.adj[v]:
                    there = know[(u, w, t - 1)]
                    if isinstance(there, int):
                        if there:
                            brought.append(x[(u, v, t)])
                        continue
                    via = m.new_bool_var("")
                    m.add_implication(via, x[(u, v, t)])
                    m.add_implication(via, there)
                    brought.append(via)
                m.add(k <= know[(v, w, t - 1)] + sum(brought))
                know[(v, w, t)] = k
    for v in needers:
        for w in holders:
            m.add(know[(v, w, rounds)] == 1)
    m.add(sum(x.values()) >= len(holders) + len(needers) - 2)
    price = {h: round(_SCALE * sum(cost.get(s, 0.0) for s in taken(single, h))) for h in x}
    m.minimize(sum(price[h] * x[h] for h in x))
    solver = cpsat_solver(workers=1, seconds=max(min(seconds, 60.0), 0.01))

    class Keep(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[Hop, ...]] = []

        def on_solution_callback(self) -> None:
            self.seen.append(tuple(h for h in x if self.value(x[h])))

    keep = Keep()
    status = run_cpsat(solver, m, keep if many else None)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [], 0.0
    best = tuple(h for h in x if solver.value(x[h]))
    seen = [c for c in reversed(keep.seen) if c != best][:20]
    slack = len(x) / _SCALE  # the rounding of the prices
    return [best, *seen], max(solver.best_objective_bound / _SCALE - slack, 0.0)
