"""The time-expanded CP-SAT model of allreduce with contribution sets, for small instances.

State rules (those of the verifier, :mod:`gossipcert.simulate`): node ``v`` holds per chunk
``c`` a partial result, the set of contributions folded into it; a transmission carries the
sender's partial of each chunk it names as it was before the round; the receiver stores it
(copy) or unites it with its own (reduce); under ``sum`` the sets united in one round (the
receiver's own, or the one copied, and every reduce receipt) must be pairwise disjoint.

Variables, for rounds ``t = 1..R``:

- ``P[v, c, w, t]`` (``t = 0..R``): ``w``'s contribution is in ``v``'s partial of ``c`` after
  round ``t``; fixed at ``t = 0`` to "``w = v`` and ``v`` contributes to ``c``";
- ``C[u, v, c, t]`` and ``D[u, v, c, t]``: arc ``(u, v)`` carries chunk ``c`` in round ``t``,
  stored (copy) or combined (reduce); ``C + D <= 1``;
- ``A[u, v, c, w, t] = D[u, v, c, t] and P[u, c, w, t-1]`` and likewise ``B`` for ``C``;
- the port variables of the model: ``M[e, t]`` (telephone: edge ``e`` is a call) or
  ``S[u, v, t]`` (half-duplex, single-port: the arc is used).

Constraint families:

1. **send what you hold**: ``C + D <= sum_w P[u, c, w, t-1]`` (no empty partial is sent);
2. **one copy**: ``sum_u C[u, v, c, t] <= 1``;
3. **new partial**: ``P[v, c, w, t] = (P[v, c, w, t-1] and no copy) or any_u B or any_u A``,
   written as its clauses;
4. **no double count** (``sum`` only): ``[P[v, c, w, t-1] and no copy] + sum_u B + sum_u A
   <= 1`` for every ``w``;
5. **ports**: telephone: the calls of a node at most one, and an arc carries chunks only on a
   call, at most ``p`` each way; half-duplex: at most one arc out and one in per node and
   not both; single-port: at most one out and one in; all-port: at most the capacity per
   arc; chunks per arc at most ``p`` (or the capacity). In half-duplex and single-port a
   node sends one transmission, which has one ``op``: the chunks of an arc in a round are
   all copies or all combined (``O[u, v, t]``); telephone and all-port may send two;
6. **demand**: ``P[v, c, w, R] = 1`` for every demanded ``(v, c)`` and contributor ``w``.

No symmetry breaking or dominance is added, so a model is exactly a schedule the verifier
accepts (it is decoded and replayed) and infeasibility is the solver's word for the rules
above. Not covered: multicast and ``calls=N`` (the bracket of
:mod:`gossipcert.search.allreduce` applies to them).

References
----------
.. [1] L. Perron and F. Didier, "CP-SAT", Google OR-Tools (the solver).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ortools.sat.python import cp_model

from gossipcert import graphs
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.schedule import Schedule, Transmission

#: the models where a node sends one transmission (so one op) per round
_ONE_TRANSMISSION = (ModelKind.HALF_DUPLEX, ModelKind.SINGLE_PORT)

#: the largest instances encoded: chunks times nodes times nodes
MAX_SIZE = 2048


def encodable(instance: Instance) -> str | None:
    """Why the allreduce model does not cover ``instance`` (None: it does)."""
    model = instance.model
    if model.kind is ModelKind.MULTICAST:
        return "multicast is not encoded"
    if model.calls_per_round is not None:
        return "calls=N is not encoded"
    if instance.n_packets * instance.n * instance.n > MAX_SIZE:
        return f"more than {MAX_SIZE} (chunk, node, contribution) triples"
    return None


@dataclass
class AllreduceModel:
    """The CP-SAT model for ``rounds`` rounds and the variables needed to decode it."""

    model: cp_model.CpModel
    copy: dict[tuple[int, int, int, int], Any]
    combine: dict[tuple[int, int, int, int], Any]
    rounds: int


def build(instance: Instance, rounds: int) -> AllreduceModel:
    """The model of the module docstring for ``rounds`` rounds.

    Raises
    ------
    UnsupportedModelError
        A model or size :func:`encodable` refuses.
    """
    reason = encodable(instance)
    if reason is not None:
        raise UnsupportedModelError(f"the allreduce encoding: {reason}")
    m = cp_model.CpModel()
    g, kind, mdl = instance.graph, instance.model.kind, instance.model
    n, chunks = instance.n, instance.n_packets
    contrib = [[w for w in range(n) if instance.holdings[w] >> c & 1] for c in range(chunks)]
    arcs = [(u, v) for u in range(n) for v in g.adj[u]]
    total_sum = instance.problem.redop == "sum"
    prev = {
        (v, c, w): int(v == w) for c in range(chunks) for w in contrib[c] for v in range(n)
    }  # P at t - 1 (ints at t = 0)
    copy: dict[tuple[int, int, int, int], Any] = {}
    combine: dict[tuple[int, int, int, int], Any] = {}
    for t in range(1, rounds + 1):
        ports = _ports(m, instance, arcs, t)
        cur: dict[tuple[int, int, int], Any] = {}
        for u, v in arcs:
            cap = (
                mdl.capacity or graphs.capacity(g, u, v)
                if kind is ModelKind.ALL_PORT
                else mdl.packet_cap
            )
            carried = []
            one_op = m.new_bool_var("") if kind in _ONE_TRANSMISSION else None
            for c in range(chunks):
                cv = copy[(u, v, c, t)] = m.new_bool_var(f"C{u}_{v}_{c}_{t}")
                dv = combine[(u, v, c, t)] = m.new_bool_var(f"D{u}_{v}_{c}_{t}")
                m.add(cv + dv <= 1)
                m.add(cv + dv <= sum(prev[(u, c, w)] for w in contrib[c]))  # family 1
                if ports is not None:
                    m.add(cv + dv <= ports[(u, v)])
                if one_op is not None:
                    m.add(cv <= one_op)
                    m.add(dv <= 1 - one_op)
                carried += [cv, dv]
            if cap is not None:
                m.add(sum(carried) <= cap)
        for v in range(n):
            ins = [u for u in g.adj[v]]
            for c in range(chunks):
                copies = [copy[(u, v, c, t)] for u in ins]
                m.add(sum(copies) <= 1)  # family 2
                no_copy = m.new_bool_var("")
                m.add(sum(copies) == 0).only_enforce_if(no_copy)
                m.add(sum(copies) >= 1).only_enforce_if(no_copy.Not())
                for w in contrib[c]:
                    sources = [_and(m, no_copy, prev[(v, c, w)])]
                    sources += [_and(m, copy[(u, v, c, t)], prev[(u, c, w)]) for u in ins]
                    sources += [_and(m, combine[(u, v, c, t)], prev[(u, c, w)]) for u in ins]
                    sources = [s for s in sources if not isinstance(s, int) or s]
                    new = m.new_bool_var("")
                    if sources:  # family 3: new = OR(sources)
                        m.add_max_equality(
                            new, [s if not isinstance(s, int) else 1 for s in sources]
                        )
                    else:
                        m.add(new == 0)
                    if total_sum and len(sources) > 1:  # family 4
                        m.add(sum(sources) <= 1)
                    cur[(v, c, w)] = new
        prev = cur  # type: ignore[assignment]
    for v in range(n):
        for c in bits(instance.demands[v]):
            for w in contrib[c]:
                m.add(prev[(v, c, w)] == 1)  # family 6
    return AllreduceModel(m, copy, combine, rounds)


def _and(m: cp_model.CpModel, a: Any, b: Any) -> Any:
    """A literal for ``a and b`` (ints are constants)."""
    if isinstance(b, int):
        return a if b else 0
    x = m.new_bool_var("")
    m.add_bool_and([a, b]).only_enforce_if(x)
    m.add_bool_or([a.Not(), b.Not()]).only_enforce_if(x.Not())
    return x


def _ports(
    m: cp_model.CpModel, instance: Instance, arcs: list[tuple[int, int]], t: int
) -> dict[tuple[int, int], Any] | None:
    """Per arc the literal "used in round ``t``" under the model's port rule (family 5);
    None for all-port (no port rule)."""
    kind, n = instance.model.kind, instance.n
    if kind is ModelKind.ALL_PORT:
        return None
    out: dict[tuple[int, int], Any] = {}
    if kind is ModelKind.TELEPHONE:
        calls = {}
        for u, v in arcs:
            if u < v:
                calls[(u, v)] = m.new_bool_var(f"M{u}_{v}_{t}")
        for x in range(n):
            m.add(sum(lit for (u, v), lit in calls.items() if x in (u, v)) <= 1)
        for u, v in arcs:
            out[(u, v)] = calls[(min(u, v), max(u, v))]
        return out
    for u, v in arcs:
        out[(u, v)] = m.new_bool_var(f"S{u}_{v}_{t}")
    for x in range(n):
        sent = sum(out[(x, v)] for u, v in arcs if u == x)
        got = sum(out[(u, x)] for u, v in arcs if v == x)
        m.add(sent <= 1)
        m.add(got <= 1)
        if kind is ModelKind.HALF_DUPLEX:
            m.add(sent + got <= 1)
    return out


def solve_rounds(instance: Instance, rounds: int, seconds: float) -> tuple[str, Schedule | None]:
    """Ask CP-SAT for an allreduce schedule of ``rounds`` rounds: ``("sat", schedule)``,
    ``("unsat", None)`` or ``("unknown", None)`` when ``seconds`` ran out."""
    enc = build(instance, rounds)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, seconds)
    solver.parameters.num_workers = 1
    status = solver.solve(enc.model)
    if status == cp_model.INFEASIBLE:
        return "unsat", None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "unknown", None
    out = []
    for t in range(1, rounds + 1):
        per_arc: dict[tuple[int, int, str], int] = {}
        for table, op in ((enc.copy, "copy"), (enc.combine, "reduce")):
            for (u, v, c, tt), lit in table.items():
                if tt == t and solver.value(lit):
                    per_arc[(u, v, op)] = per_arc.get((u, v, op), 0) | 1 << c
        out.append(
            tuple(Transmission(u, (v,), mask, op) for (u, v, op), mask in sorted(per_arc.items()))
        )
    return "sat", Schedule(tuple(out))
