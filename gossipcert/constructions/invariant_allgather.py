"""Allgather schedules that a group of automorphisms maps onto themselves (CP-SAT, one
variable an orbit).

Under all-port an automorphism ``h`` of the instance (a node permutation that keeps the
edges, their capacities and the routers; it maps the ``k``-th chunk of node ``w`` to the
``k``-th chunk of ``h(w)``) maps a schedule to a schedule. This module looks for a schedule
of ``R`` rounds that every element of a group ``H`` maps onto itself: arc ``(u, v)``
carries chunk ``p`` in round ``t`` exactly when ``(h(u), h(v))`` carries ``h(p)`` then. The
model is the time-expanded allgather with one variable per ``H``-orbit, so about ``|H|``
times smaller than the full one. It is a schedule *finder*: a schedule it finds is replayed
by the verifier and is an upper bound; "infeasible" says only that no ``H``-invariant
schedule has ``R`` rounds, nothing about the instance [2]_.

Model rules (all-port, copy problems with one holder a packet: gossip with ``chunks=K``):

- in round ``t`` arc ``(u, v)`` carries at most ``c(u, v)`` packets (the model's ``c=N`` or
  the edge's ``capacity``), each known to ``u`` after round ``t - 1``;
- a node knows its own packets from the start and a packet it received from the round after;
- every processor knows every packet it demands after round ``R``.

Variables (CP-SAT, tuple-keyed, one per orbit: every key maps to its orbit's smallest
image, whose variable it shares):

- ``X[u, v, p, t]``: arc ``(u, v)`` carries packet ``p`` in round ``t`` (only when ``u``
  can know ``p`` by then: ``dist(origin(p), u) <= t - 1``);
- ``K[v, p, t]``: ``v`` knows ``p`` after round ``t`` (constants where fixed: the origin,
  and the nodes out of reach).

Constraint families: *support* ``X[u, v, p, t] -> K[u, p, t - 1]``; *learning*
``K[v, p, t] -> K[v, p, t - 1] or OR_u X[u, v, p, t]``; *capacity*
``sum_p X[u, v, p, t] <= c(u, v)``; *demand* ``K[v, p, R]`` for every demanded packet.
The constraints of one orbit are images of each other, but all are posted (CP-SAT removes
the duplicates).

References
----------
.. [1] J. Crawford, M. Ginsberg, E. Luks and A. Roy, "Symmetry-breaking predicates for
   search problems", KR 1996 (symmetric solutions: a restriction, not symmetry breaking).
.. [2] :mod:`gossipcert.finders.invariant`, the same idea for telephone gossip.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import networkx as nx
from ortools.sat.python import cp_model

from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError, SolverError
from gossipcert.instance import Instance, ProblemKind, bits
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat
from gossipcert.symmetry.automorphisms import automorphism_generators

__all__ = ["chassis_swap_centraliser", "group_elements", "invariant_allgather"]

#: the most group elements enumerated
MAX_ORDER = 4096


def group_elements(generators: Sequence[Sequence[int]], n: int) -> list[tuple[int, ...]]:
    """Every element of the group the node permutations ``generators`` generate.

    Examples
    --------
    >>> sorted(group_elements([[1, 2, 0]], 3))
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    identity = tuple(range(n))
    seen = {identity}
    frontier = [identity]
    while frontier:
        grown = []
        for e in frontier:
            for h in generators:
                c = tuple(h[e[i]] for i in range(n))
                if c not in seen:
                    seen.add(c)
                    grown.append(c)
        if len(seen) > MAX_ORDER:
            raise NotApplicableError(f"a group of more than {MAX_ORDER} elements")
        frontier = grown
    return sorted(seen)


def chassis_swap_centraliser(inst: Instance) -> list[tuple[int, ...]]:
    """The automorphisms that commute with an automorphism exchanging the two chassis (the
    components of the processors' links) of a machine of two chassis; [] otherwise.

    On ``mi250:2`` (order 32) these are the 8 that exchange the chassis or not and apply
    the same symmetry to both.
    """
    n = inst.n
    elements = group_elements(automorphism_generators(inst), n)
    procs = [v for v in range(n) if inst.demands[v]]
    seen = {procs[0]}
    stack = [procs[0]]
    while stack:  # the chassis of the first processor, over processor-processor links
        u = stack.pop()
        for w in inst.graph.adj[u]:
            if w in procs and w not in seen:
                seen.add(w)
                stack.append(w)
    swaps = [h for h in elements if all((h[v] in seen) != (v in seen) for v in procs)]
    if not swaps or len(seen) * 2 != len(procs):
        return []
    s = swaps[0]
    return [h for h in elements if all(h[s[v]] == s[h[v]] for v in range(n))]


def invariant_allgather(
    instance: Instance,
    rounds: int,
    generators: Sequence[Sequence[int]],
    time_limit: float | None = None,
    packet_maps: Sequence[Sequence[int]] | None = None,
) -> Schedule | None:
    """An allgather (or broadcast) of ``rounds`` rounds invariant under the group
    ``generators`` generate.

    Parameters
    ----------
    instance : Instance
        ``gossip`` or ``broadcast`` (any ``chunks=K``), all-port (no limit on calls a round).
    rounds : int
        ``R``.
    generators : sequence of node permutations
        Automorphisms of the instance (checked: edges, capacities, holdings and demands).
    time_limit : float or None
        Seconds for CP-SAT (one worker); None is no limit.
    packet_maps : sequence of packet permutations, optional
        The packet each generator maps each packet to (default: the ``k``-th packet of
        node ``w`` to the ``k``-th packet of its image; for a broadcast whose root the
        generators fix, every packet to itself). A broadcast's chunks may be permuted too,
        e.g. shifted by ``K / d`` where a generator turns the root's ``d`` links.

    Returns
    -------
    Schedule or None
        A schedule of at most ``rounds`` rounds, replayed by the verifier; None when CP-SAT
        finds none (no invariant schedule, or out of time).

    Raises
    ------
    NotApplicableError
        Another problem or model, or a permutation that is not an automorphism.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ring:6", "all-port", "gossip:chunks=2")
    >>> rotate = [(v + 1) % 6 for v in range(6)]
    >>> len(invariant_allgather(inst, 5, [rotate]).rounds)  # the cut bound: 10 chunks, 2 arcs
    5
    >>> invariant_allgather(inst, 4, [rotate]) is None
    True
    >>> inst = parse_instance("ring:4", "all-port", "broadcast:0,chunks=4")
    >>> flip = [0, 3, 2, 1]  # the two links of the root exchanged, and the chunk halves
    >>> len(invariant_allgather(inst, 3, [flip], packet_maps=[[2, 3, 0, 1]]).rounds)
    3
    """
    _require_all_port(instance, "the invariant allgather")
    if instance.problem.kind not in (ProblemKind.GOSSIP, ProblemKind.BROADCAST):
        raise NotApplicableError("the invariant search is for gossip and broadcast")
    origin, elements = _packet_group(instance, generators, packet_maps)
    m = cp_model.CpModel()
    var = _orbit_variables(m, elements, instance.n)
    know = _know_variables(instance, rounds, origin, var)
    x = _carry_variables(instance, rounds, origin, know, var)
    _post_support_and_learning(m, instance, know, x)
    _post_capacity(m, instance, rounds, origin, x)
    if not _post_demand(m, instance, rounds, know):
        return None  # out of reach in time
    solver = cpsat_solver(workers=1, seconds=None if time_limit is None else max(time_limit, 0.01))
    status = run_cpsat(solver, m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None  # INFEASIBLE: no invariant schedule; UNKNOWN: out of time
    return _schedule(instance, rounds, {k for k, lit in x.items() if solver.boolean_value(lit)})


def _packet_group(
    instance: Instance,
    generators: Sequence[Sequence[int]],
    packet_maps: Sequence[Sequence[int]] | None,
) -> tuple[dict[int, tuple[int, int]], list[tuple[int, ...]]]:
    """Each packet's origin ``(w, k)`` and the group on nodes, then packets shifted by ``n``."""
    n = instance.n
    own = {w: sorted(bits(instance.holdings[w])) for w in range(n)}
    origin = {p: (w, k) for w, ps in own.items() for k, p in enumerate(ps)}
    if packet_maps is None:
        if any(len(own[w]) != len(own[h[w]]) for h in generators for w in range(n)):
            raise NotApplicableError("a permutation that does not keep the problem")
        packet_maps = [
            [own[h[origin[p][0]]][origin[p][1]] for p in range(len(origin))] for h in generators
        ]
    combined = [[*h, *(n + q for q in pm)] for h, pm in zip(generators, packet_maps, strict=True)]
    for h in combined:
        _check(instance, h)
    return origin, group_elements(combined, n + len(origin))


def _orbit_variables(
    m: cp_model.CpModel, elements: Sequence[tuple[int, ...]], n: int
) -> Callable[[str, tuple[int, ...]], Any]:
    """A function giving each key the one variable of its orbit under ``elements``."""
    orbit_vars: dict[Hashable, Any] = {}

    def var(kind: str, key: tuple[int, ...]) -> Any:
        """The variable of ``key``'s orbit (``key`` ends with its packet and round)."""
        *nodes, p, t = key
        rep = min((*(h[x] for x in nodes), h[n + p] - n, t) for h in elements)
        found = orbit_vars.get((kind, rep))
        if found is None:
            found = orbit_vars[kind, rep] = m.new_bool_var(f"{kind}{rep}")
        return found

    return var


def _know_variables(
    instance: Instance,
    rounds: int,
    origin: dict[int, tuple[int, int]],
    var: Callable[[str, tuple[int, ...]], Any],
) -> dict[tuple[int, int, int], Any]:
    """``K[v, p, t]``: ``v`` knows ``p`` after round ``t`` (1/0 where fixed)."""
    dist = dict(nx.all_pairs_shortest_path_length(instance.graph))
    know: dict[tuple[int, int, int], Any] = {}
    for t in range(rounds + 1):
        for v in range(instance.n):
            for p, (w, _) in origin.items():
                if v == w:
                    know[v, p, t] = 1
                elif t == 0 or dist[w][v] > t:
                    know[v, p, t] = 0
                else:
                    know[v, p, t] = var("K", (v, p, t))
    return know


def _carry_variables(
    instance: Instance,
    rounds: int,
    origin: dict[int, tuple[int, int]],
    know: dict[tuple[int, int, int], Any],
    var: Callable[[str, tuple[int, ...]], Any],
) -> dict[tuple[int, int, int, int], Any]:
    """``X[u, v, p, t]``: arc ``(u, v)`` carries ``p`` in round ``t`` (where ``u`` can know it)."""
    g = instance.graph
    x: dict[tuple[int, int, int, int], Any] = {}
    for t in range(1, rounds + 1):
        for u in range(instance.n):
            for v in g.adj[u]:
                for p, (w, _) in origin.items():
                    if v != w and not _is(know[u, p, t - 1], 0):
                        x[u, v, p, t] = var("X", (u, v, p, t))
    return x


def _post_support_and_learning(
    m: cp_model.CpModel,
    instance: Instance,
    know: dict[tuple[int, int, int], Any],
    x: dict[tuple[int, int, int, int], Any],
) -> None:
    """Support (a node sends what it knows) and learning (it knows what it had or received)."""
    g = instance.graph
    for (u, _, p, t), lit in x.items():
        if not _is(know[u, p, t - 1], 1):
            m.add_implication(lit, know[u, p, t - 1])
    for (v, p, t), lit in know.items():
        if t == 0 or isinstance(lit, int) or _is(know[v, p, t - 1], 1):
            continue
        ins = [x[u, v, p, t] for u in g.adj[v] if (u, v, p, t) in x]
        prev = know[v, p, t - 1]
        m.add_bool_or([*ins, *([] if _is(prev, 0) else [prev]), lit.Not()])


def _post_capacity(
    m: cp_model.CpModel,
    instance: Instance,
    rounds: int,
    origin: dict[int, tuple[int, int]],
    x: dict[tuple[int, int, int, int], Any],
) -> None:
    """Capacity: arc ``(u, v)`` carries at most ``c(u, v)`` packets a round."""
    g = instance.graph
    for t in range(1, rounds + 1):
        for u in range(instance.n):
            for v in g.adj[u]:
                on = [x[u, v, p, t] for p in origin if (u, v, p, t) in x]
                if len(on) > _arc_capacity(instance, u, v):
                    m.add(sum(on) <= _arc_capacity(instance, u, v))


def _post_demand(
    m: cp_model.CpModel, instance: Instance, rounds: int, know: dict[tuple[int, int, int], Any]
) -> bool:
    """Demand: every node knows what it demands after round ``rounds``; False if out of reach."""
    for v in range(instance.n):
        for p in bits(instance.demands[v]):
            if _is(know[v, p, rounds], 0):
                return False
            if not _is(know[v, p, rounds], 1):
                m.add(know[v, p, rounds] == 1)
    return True


def _check(instance: Instance, h: Sequence[int]) -> None:
    """Refuse ``h`` (nodes, then packets shifted by ``n``) unless it keeps the instance."""
    g, n = instance.graph, instance.n
    for u, v in g.edges:
        if not g.has_edge(h[u], h[v]) or _arc_capacity(instance, u, v) != _arc_capacity(
            instance, h[u], h[v]
        ):
            raise NotApplicableError("a permutation that is not an automorphism")
    for v in range(n):
        for masks in (instance.holdings, instance.demands):
            mapped = sum(1 << (h[n + p] - n) for p in bits(masks[v]))
            if mapped != masks[h[v]]:
                raise NotApplicableError("a permutation that does not keep the problem")


def _is(lit: Any, value: int) -> bool:
    """Whether ``lit`` is the constant ``value`` (not a variable)."""
    return isinstance(lit, int) and lit == value


def _schedule(instance: Instance, rounds: int, sent: set[tuple[int, int, int, int]]) -> Schedule:
    """The transmissions of ``sent``, one an arc and round, replayed."""
    out = []
    for t in range(1, rounds + 1):
        masks: dict[tuple[int, int], int] = {}
        for u, v, p, tt in sent:
            if tt == t:
                masks[u, v] = masks.get((u, v), 0) | 1 << p
        out.append(tuple(Transmission(u, (v,), mk) for (u, v), mk in sorted(masks.items())))
    schedule = Schedule(tuple(out))
    report = simulate(instance, schedule)
    if not (report.valid and report.complete):
        raise SolverError(f"the invariant schedule fails the verifier: {report.errors[:1]}")
    return schedule
