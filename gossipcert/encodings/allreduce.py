"""The time-expanded model of allreduce with contribution sets, for small instances.

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
- ``N[v, c, t]``: no copy of ``c`` reaches ``v`` in round ``t``, and
  ``K[v, c, w, t] = N[v, c, t] and P[v, c, w, t-1]`` (the receiver keeps its own);
- the port variables of the model: ``M[e, t]`` (calls both ways, telephone: edge ``e`` is a
  call) or ``S[u, v, t]`` (directed ports, half-duplex and single-port: the arc is used).

Constraint families:

1. **send what you hold**: ``C + D <= sum_w P[u, c, w, t-1]`` (no empty partial is sent);
2. **one copy**: ``sum_u C[u, v, c, t] <= 1``;
3. **new partial**: ``P[v, c, w, t] = (P[v, c, w, t-1] and no copy) or any_u B or any_u A``,
   written as its clauses;
4. **no double count** (``sum`` only): ``[P[v, c, w, t-1] and no copy] + sum_u B + sum_u A
   <= 1`` for every ``w``;
5. **ports**, read from the model's rules (:attr:`~gossipcert.models.spec.Model.ports`),
   not its name: calls both ways (telephone): the calls of a node at most one, and an arc
   carries chunks only on a call, at most ``p`` each way; directed ports: at most
   ``ports`` arcs out and ``ports`` in per node (single-port: one), and with
   ``send_or_receive`` (half-duplex) at most ``ports`` arcs at a node in all; arc
   capacities (all-port): at most the capacity per arc; chunks per arc at most ``p`` (or
   the capacity). With directed ports an arc carries at most one transmission a round,
   which has one ``op``: the chunks of an arc in a round are all copies or all combined
   (``O[u, v, t]``); telephone and all-port may send two;
6. **demand**: ``P[v, c, w, R] = 1`` for every demanded ``(v, c)`` and contributor ``w``;
7. **interchangeable chunks** (``symmetry``, only when asked, to find schedules): chunks with
   the same contributors and demanders are permuted by renaming, which maps schedules to
   schedules; within each such class the chunks' vectors of ``C`` and ``D`` (round by
   round, arc by arc) are ordered lexicographically non-increasing.

The constraints are written once in a :class:`~gossipcert.encodings.formula.Formula` and
compiled to CNF. Without family 7 no symmetry breaking or dominance is added, so a model is
exactly a schedule the verifier accepts (it is decoded and replayed), and a DRAT refutation of
the CNF for
``R`` rounds proves that ``R`` rounds are impossible under the rules above
(:func:`gossipcert.search.allreduce_exact.refute`, judged by the checkers of
:mod:`gossipcert.proofs.checkers`). Not covered, and refused by name (:func:`encodable`):
one transmission to several receivers (multicast), calls or send-or-receive with more than
one port, and ``calls=N`` (the bracket of :mod:`gossipcert.search.allreduce` applies to
them).

References
----------
.. [1] A. Biere, T. Faller, K. Fazekas, M. Fleury, N. Froleyks and F. Pollitt, "CaDiCaL 2.0",
   CAV 2024 (the proof-writing solver, through PySAT).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from gossipcert import graphs
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, Model, bits
from gossipcert.schedule import Schedule, Transmission

#: the largest instances encoded: chunks times nodes times nodes
MAX_SIZE = 2048


def encodable(instance: Instance) -> str | None:
    """Why the allreduce model does not cover ``instance`` (None: it does): the port rules
    of family 5 are those of point-to-point transmissions (calls both ways with one port,
    directed ports, send-or-receive with one port) and of arc capacities.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> encodable(parse_instance("path:3", "multicast", "allreduce"))
    'multicast: one transmission to several receivers is not encoded'
    """
    model = instance.model
    reason = _port_refusal(model)
    if reason is not None:
        return reason
    if model.calls_per_round is not None:
        return "calls=N is not encoded"
    if instance.n_packets * instance.n * instance.n > MAX_SIZE:
        return f"more than {MAX_SIZE} (chunk, node, contribution) triples"
    return None


def _port_refusal(model: Model) -> str | None:
    """Why family 5 does not state ``model``'s port rules (None: it does)."""
    rules = model.rules
    if not rules.point_to_point and not rules.arc_capacities:
        return f"{model.spec()}: one transmission to several receivers is not encoded"
    if (rules.two_way_calls or rules.send_or_receive) and model.ports != 1:
        return f"{model.spec()}: calls or send-or-receive with several ports are not encoded"
    return None


def and_literal(f: Formula, key: tuple[Any, ...], a: Lit, b: Lit) -> Lit:
    """A literal equal to ``a and b`` (constants folded)."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    x = f.var(key)
    f.clause([-x, a])
    f.clause([-x, b])
    f.clause([x, -a, -b])
    return x


def arc_cap(instance: Instance, u: int, v: int) -> int | None:
    """The most chunks arc ``(u, v)`` carries in one round: its capacity in all-port, else
    the packet cap (None: unbounded)."""
    mdl = instance.model
    if mdl.rules.arc_capacities:
        return mdl.capacity or graphs.capacity(instance.graph, u, v)
    return mdl.packet_cap


def arcs_of(instance: Instance) -> list[tuple[int, int]]:
    """Every arc ``(u, v)`` of the graph, by ``u`` then ``v``: the arcs the transmission
    variables of this encoding, of the union relaxation and of the chunk-packing bound's
    weights are keyed by."""
    g = instance.graph
    return [(u, v) for u in range(instance.n) for v in sorted(g.adj[u])]


def interchangeable(instance: Instance) -> list[list[int]]:
    """The classes of chunks with the same contributors and demanders, in chunk order.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> interchangeable(parse_instance("path:3", "single-port", "allreduce:chunks=2"))
    [[0, 1, 2, 3, 4, 5]]
    """
    classes: dict[tuple[int, int], list[int]] = {}
    for c in range(instance.n_packets):
        held = sum(1 << w for w in range(instance.n) if instance.holdings[w] >> c & 1)
        want = sum(1 << v for v in range(instance.n) if instance.demands[v] >> c & 1)
        classes.setdefault((held, want), []).append(c)
    return list(classes.values())


def build(instance: Instance, rounds: int, symmetry: bool = False) -> Formula:
    """The formula of the module docstring for ``rounds`` rounds, with family 7 when
    ``symmetry`` (its models are then some of the schedules, one at least of every class
    of renamings).

    Raises
    ------
    UnsupportedModelError
        A model or size :func:`encodable` refuses.
    """
    reason = encodable(instance)
    if reason is not None:
        raise UnsupportedModelError(f"the allreduce encoding: {reason}")
    f = Formula()
    g = instance.graph
    one_op = _one_op_per_arc(instance.model)
    n, chunks = instance.n, instance.n_packets
    contrib = [[w for w in range(n) if instance.holdings[w] >> c & 1] for c in range(chunks)]
    arcs = arcs_of(instance)
    prev: dict[tuple[int, int, int], Lit] = {
        (v, c, w): v == w for c in range(chunks) for w in contrib[c] for v in range(n)
    }
    for t in range(1, rounds + 1):
        ports = port_literals(f, instance, arcs, t)
        for u, v in arcs:  # families 1 and 5
            carried = []
            op = f.var(("O", u, v, t)) if one_op else None
            for c in range(chunks):
                cv, dv = f.var(("C", u, v, c, t)), f.var(("D", u, v, c, t))
                f.clause([-cv, -dv])
                held = [prev[(u, c, w)] for w in contrib[c]]
                for x in (cv, dv):
                    f.clause([-x, *held])
                    if ports is not None:
                        f.clause([-x, ports[(u, v)]])
                if op is not None:
                    f.clause([-cv, op])
                    f.clause([-dv, -op])
                carried += [cv, dv]
            cap = arc_cap(instance, u, v)
            if cap is not None:
                f.at_most(carried, cap)
        cur: dict[tuple[int, int, int], Lit] = {}
        for v in range(n):
            ins = sorted(g.adj[v])
            for c in range(chunks):
                copies = [f.var(("C", u, v, c, t)) for u in ins]
                f.at_most_one(copies)  # family 2
                none = f.var(("N", v, c, t))
                f.clause([none, *copies])
                for x in copies:
                    f.clause([-none, -x])
                for w in contrib[c]:  # families 3 and 4
                    sources = [and_literal(f, ("K", v, c, w, t), none, prev[(v, c, w)])]
                    for u in ins:
                        got = prev[(u, c, w)]
                        sources.append(
                            and_literal(f, ("B", u, v, c, w, t), f.var(("C", u, v, c, t)), got)
                        )
                        sources.append(
                            and_literal(f, ("A", u, v, c, w, t), f.var(("D", u, v, c, t)), got)
                        )
                    lits = [x for x in sources if x is not False]
                    new = f.var(("P", v, c, w, t))
                    f.clause([-new, *lits])
                    for x in lits:
                        f.clause([new, -x])
                    if instance.problem.redop == "sum":
                        f.at_most_one(lits)
                    cur[(v, c, w)] = new
        prev = cur
    for v in range(n):
        for c in bits(instance.demands[v]):
            for w in contrib[c]:
                f.clause([prev[(v, c, w)]])  # family 6
    if symmetry:  # family 7
        for members in interchangeable(instance):
            for a, b in pairwise(members):
                pairs = [
                    (f.var((op, x, y, a, t)), f.var((op, x, y, b, t)))
                    for t in range(1, rounds + 1)
                    for x, y in arcs
                    for op in "CD"
                ]
                f.lex_geq(("lex", a, b), pairs)
    return f


def port_literals(
    f: Formula, instance: Instance, arcs: list[tuple[int, int]], t: int
) -> dict[tuple[int, int], int] | None:
    """Per arc the literal "used in round ``t``" under the model's port rule (family 5),
    its constraints added to ``f``; None with arc capacities (no port rule).

    Raises
    ------
    UnsupportedModelError
        A port rule the family does not state (:func:`encodable` names it).
    """
    model, n = instance.model, instance.n
    rules, ports = model.rules, model.ports
    reason = _port_refusal(model)
    if reason is not None:
        raise UnsupportedModelError(f"the allreduce encoding: {reason}")
    if ports is None:
        return None
    if rules.two_way_calls:
        call = {(u, v): f.var(("M", min(u, v), max(u, v), t)) for u, v in arcs}
        for x in range(n):
            f.at_most_one(sorted({lit for (u, v), lit in call.items() if x in (u, v)}))
        return call
    used = {(u, v): f.var(("S", u, v, t)) for u, v in arcs}
    for x in range(n):
        sent = [used[(u, v)] for u, v in arcs if u == x]
        got = [used[(u, v)] for u, v in arcs if v == x]
        f.at_most(sent, ports)
        f.at_most(got, ports)
        if rules.send_or_receive:
            f.at_most_one(sent + got)
    return used


def _one_op_per_arc(model: Model) -> bool:
    """Whether an arc carries at most one transmission, so one ``op``, per round: directed
    ports (a node sends one transmission per port, at most one to each neighbour), not calls
    (telephone's call may carry a copy and a combine) nor arc capacities."""
    return model.ports is not None and not model.rules.two_way_calls


def standalone(instance: Instance, rounds: int) -> tuple[Formula, StandaloneCNF]:
    """The formula for ``rounds`` rounds and its CNF (deterministic: same clauses each time,
    so a stored proof is re-checked against a regenerated CNF of the same SHA-256)."""
    f = build(instance, rounds)
    clauses = f.cnf_since(0)
    return f, StandaloneCNF(rounds, EncodingOptions(), f.vpool.top, clauses, 0)


def decode(f: Formula, model: list[int], rounds: int) -> Schedule:
    """The schedule of a model of :func:`build`'s formula (one transmission per arc and op)."""
    true = {x for x in model if x > 0}
    per_round: list[dict[tuple[int, int, str], int]] = [{} for _ in range(rounds)]
    for key, var in f.vpool.obj2id.items():
        if var in true and isinstance(key, tuple) and key[0] in ("C", "D"):
            _, u, v, c, t = key
            arcs = per_round[t - 1]
            op = "copy" if key[0] == "C" else "reduce"
            arcs[(u, v, op)] = arcs.get((u, v, op), 0) | 1 << c
    return Schedule(
        tuple(
            tuple(Transmission(u, (v,), mask, op) for (u, v, op), mask in sorted(arcs.items()))
            for arcs in per_round
        )
    )
