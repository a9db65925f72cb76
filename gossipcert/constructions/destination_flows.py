"""Alltoall as an integer flow over time, one commodity a destination (a MILP, HiGHS).

In a total exchange (alltoall) every packet is wanted by one node only, so under all-port a
copy never helps: a schedule may keep one route a packet, and the packets bound for the
same destination ``d`` are interchangeable as far as the links are concerned. A schedule
of ``T`` rounds is then an integer *flow over time* with one commodity a destination [1]_,
and every such flow is a schedule. The model, for ``T`` rounds:

- all-port: in round ``t`` the arc ``(u, v)`` carries at most ``c(u, v)`` packets (the
  model's ``c=N`` or the edge's ``capacity``), whatever they are;
- store and forward: a node sends in round ``t`` only what it held after round ``t - 1``;
- a packet that reaches its destination stays there; every packet is at its destination
  after round ``T``.

Variables and constraints (a MILP, solved by HiGHS through :func:`scipy.optimize.milp`):

- ``F[d, u, v, t]`` (integer, ``0 .. c(u, v)``): packets bound for ``d`` on arc ``(u, v)``
  in round ``t`` (``u != d``);
- ``H[d, v, t]`` (integer): packets bound for ``d`` held by ``v != d`` after round ``t``,
  ``H[d, v, 0]`` the packets ``v`` starts with and ``H[d, v, T] = 0``;
- conservation ``H[d, v, t] = H[d, v, t - 1] - sum_w F[d, v, w, t] + sum_w F[d, w, v, t]``
  and ``sum_w F[d, v, w, t] <= H[d, v, t - 1]`` (store and forward);
- capacity ``sum_d F[d, u, v, t] <= c(u, v)``.

A solution is turned into a schedule by handing each arc the first packets for ``d`` that
its tail holds (any of them will do), and the schedule is replayed by the verifier before
it is returned. The MILP answers "``T`` rounds suffice" with a schedule, which any reader
can replay; "infeasible" is the MILP solver's word and is not used as a lower bound here
(the lower bounds of an alltoall are the closed forms of :mod:`gossipcert.closed_forms`).
The model has ``|D| |A| T`` integer variables (``D`` the destinations, ``A`` the arcs): about
15,000 for the 16 GCDs of ``mi250`` in 11 rounds, which HiGHS settles in about a minute.

References
----------
.. [1] L. R. Ford and D. R. Fulkerson, "Constructing maximal dynamic flows from static
   flows", Operations Research 6(3) (1958) 419-433 (flows over time, time expansion).
.. [2] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024 (TE-CCL: the collective as a multi-commodity
   flow over epochs; its AlltoAll is the same flow with one commodity a source and
   destination).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError, SolverError
from gossipcert.instance import Instance, ProblemKind, bits
from gossipcert.schedule import Round, Schedule, Transmission
from gossipcert.simulate import simulate

__all__ = ["destination_flow_alltoall"]


def _starts(instance: Instance) -> dict[tuple[int, int], list[int]]:
    """``(d, v)`` -> the packets bound for ``d`` that ``v != d`` holds at the start."""
    holder = {p: v for v in range(instance.n) for p in bits(instance.holdings[v])}
    start: dict[tuple[int, int], list[int]] = {}
    for d in range(instance.n):
        for p in bits(instance.demands[d]):
            if holder[p] != d:
                start.setdefault((d, holder[p]), []).append(p)
    return start


def destination_flow_alltoall(
    instance: Instance,
    rounds: int,
    time_limit: float | None = None,
    symmetric: Sequence[Sequence[int]] = (),
) -> Schedule | None:
    """A total exchange of ``rounds`` rounds from the flow MILP of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``total-exchange`` (any ``chunks=K``) under all-port (no limit on calls a round).
    rounds : int
        ``T``, the rounds the schedule may take.
    time_limit : float or None
        Seconds for HiGHS; None is no limit.
    symmetric : sequence of node permutations
        Automorphisms of the instance (e.g. from
        :func:`gossipcert.symmetry.automorphisms.automorphism_generators`): only flows that
        they map onto themselves are sought, ``F[d, u, v, t] = F[h(d), h(u), h(v), t]``
        (fewer free variables; a flow that is not invariant is missed, so None then says
        even less).

    Returns
    -------
    Schedule or None
        A schedule of at most ``rounds`` rounds, replayed by the verifier; None when HiGHS
        found none (infeasible, or the time ran out: neither is a lower bound).

    Raises
    ------
    NotApplicableError
        Another problem or model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ring:4", "all-port", "total-exchange")
    >>> len(destination_flow_alltoall(inst, 2).rounds)  # the cut bound: 4 packets, 2 arcs
    2
    >>> destination_flow_alltoall(inst, 1) is None
    True

    References
    ----------
    .. [1] Ford and Fulkerson 1958 (module docstring).
    """
    _require_all_port(instance, "the destination-flow alltoall")
    if instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        raise NotApplicableError("the destination-flow alltoall is a total-exchange schedule")
    g = instance.graph
    start = _starts(instance)
    dests = sorted({d for d, _ in start})
    if not start or rounds < 1:  # nothing to move, or no round to move it in
        return None if start else Schedule(())
    arcs = [(u, v) for u in g.nodes for v in g.adj[u]]
    cap = {a: _arc_capacity(instance, *a) for a in arcs}
    col, hold = _columns(instance, rounds, dests, arcs, cap)
    rows = _conservation_rows(instance, rounds, dests, start, col, hold)
    rows += _capacity_rows(rounds, dests, arcs, cap, col)
    rows += _symmetry_rows(symmetric, col)
    x = _solve(rows, len(col) + len(hold), col, cap, time_limit)
    if x is None:
        return None
    return _schedule(instance, rounds, start, {k: int(x[c]) for k, c in col.items() if x[c]})


#: one constraint of the MILP: its ``(column, coefficient)`` entries and its bounds
_Row = tuple[list[tuple[int, float]], float, float]


def _columns(
    instance: Instance,
    rounds: int,
    dests: list[int],
    arcs: list[tuple[int, int]],
    cap: dict[tuple[int, int], int],
) -> tuple[dict[tuple[int, int, int, int], int], dict[tuple[int, int, int], int]]:
    """The MILP's columns: ``F[d, u, v, t]`` first, then ``H[d, v, t]`` for ``1 <= t < T``."""
    g = instance.graph
    col: dict[tuple[int, int, int, int], int] = {}  # (d, u, v, t) -> column of F
    for d in dests:
        for t in range(1, rounds + 1):
            for u, v in arcs:
                if u != d and cap[u, v] > 0:
                    col[d, u, v, t] = len(col)
    hold: dict[tuple[int, int, int], int] = {}  # (d, v, t), 1 <= t < T -> column of H
    for d in dests:
        for t in range(1, rounds):
            for v in g.nodes:
                if v != d:
                    hold[d, v, t] = len(col) + len(hold)
    return col, hold


def _conservation_rows(
    instance: Instance,
    rounds: int,
    dests: list[int],
    start: dict[tuple[int, int], list[int]],
    col: dict[tuple[int, int, int, int], int],
    hold: dict[tuple[int, int, int], int],
) -> list[_Row]:
    """Store and forward (``sum out <= H[t - 1]``) and conservation, for each ``d, v != d, t``."""
    g = instance.graph
    rows: list[_Row] = []
    for d in dests:
        for t in range(1, rounds + 1):
            for v in g.nodes:
                if v == d:
                    continue
                outs = [(col[d, v, w, t], 1.0) for w in g.adj[v] if (d, v, w, t) in col]
                ins = [(col[d, w, v, t], 1.0) for w in g.adj[v] if (d, w, v, t) in col]
                before = len(start.get((d, v), [])) if t == 1 else None
                prev = [] if t == 1 else [(hold[d, v, t - 1], -1.0)]
                # sum out <= H[t - 1]
                rows.append((outs + prev, -np.inf, before if before is not None else 0.0))
                # H[t] - H[t - 1] + out - in = 0
                now = [(hold[d, v, t], 1.0)] if t < rounds else []
                flow = now + prev + outs + [(c, -a) for c, a in ins]
                rhs = float(before) if before is not None else 0.0
                rows.append((flow, rhs, rhs))
    return rows


def _capacity_rows(
    rounds: int,
    dests: list[int],
    arcs: list[tuple[int, int]],
    cap: dict[tuple[int, int], int],
    col: dict[tuple[int, int, int, int], int],
) -> list[_Row]:
    """Capacity: ``sum_d F[d, u, v, t] <= c(u, v)`` for each arc and round."""
    rows: list[_Row] = []
    for t in range(1, rounds + 1):
        for u, v in arcs:
            on = [(col[d, u, v, t], 1.0) for d in dests if (d, u, v, t) in col]
            if on:
                rows.append((on, -np.inf, float(cap[u, v])))
    return rows


def _symmetry_rows(
    symmetric: Sequence[Sequence[int]], col: dict[tuple[int, int, int, int], int]
) -> list[_Row]:
    """Invariance: ``F[d, u, v, t] = F[h(d), h(u), h(v), t]`` for each permutation ``h``."""
    rows: list[_Row] = []
    for h in symmetric:
        for (d, u, v, t), c in col.items():
            image = col.get((h[d], h[u], h[v], t))
            if image is None:
                raise NotApplicableError("the permutation is not an automorphism")
            if image != c:
                rows.append(([(c, 1.0), (image, -1.0)], 0.0, 0.0))
    return rows


def _solve(
    constraints: list[_Row],
    width: int,
    col: dict[tuple[int, int, int, int], int],
    cap: dict[tuple[int, int], int],
    time_limit: float | None,
) -> np.ndarray | None:
    """HiGHS on the rows (``F`` bounded by its arc's capacity): the rounded solution or None."""
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for r, (entries, _, _) in enumerate(constraints):
        for c, a in entries:
            rows.append(r)
            cols.append(c)
            vals.append(a)
    lo = [low for _, low, _ in constraints]
    hi = [high for _, _, high in constraints]
    upper = np.full(width, np.inf)
    for (_, u, v, _), c in col.items():
        upper[c] = cap[u, v]
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(len(lo), width))
    options: dict[str, float | bool] = {"disp": False}
    if time_limit is not None:
        options["time_limit"] = time_limit
    res = milp(
        np.zeros(width),
        constraints=LinearConstraint(matrix, lo, hi),
        integrality=np.ones(width),
        bounds=Bounds(np.zeros(width), upper),
        options=options,
    )
    if res.x is None:
        return None
    return np.rint(res.x).astype(int)


def _schedule(
    instance: Instance,
    rounds: int,
    start: dict[tuple[int, int], list[int]],
    flow: dict[tuple[int, int, int, int], int],
) -> Schedule:
    """The flow as transmissions (each arc takes the first packets its tail holds), replayed."""
    held = {k: list(ps) for k, ps in start.items()}
    by_round: dict[int, list[tuple[int, int, int, int]]] = {}
    for (d, u, v, t), k in flow.items():
        by_round.setdefault(t, []).append((d, u, v, k))
    out: list[Round] = []
    for t in range(1, rounds + 1):
        masks: dict[tuple[int, int], int] = {}
        arrived: list[tuple[int, int, list[int]]] = []
        for d, u, v, k in sorted(by_round.get(t, [])):
            queue = held.get((d, u), [])
            sent, held[d, u] = queue[:k], queue[k:]
            for p in sent:
                masks[u, v] = masks.get((u, v), 0) | 1 << p
            if v != d:
                arrived.append((d, v, sent))
        for d, v, sent in arrived:  # usable from the next round on
            held.setdefault((d, v), []).extend(sent)
        out.append(tuple(Transmission(u, (v,), m) for (u, v), m in sorted(masks.items())))
    schedule = Schedule(tuple(out))
    report = simulate(instance, schedule)
    if not (report.valid and report.complete):
        raise SolverError(f"the flow's schedule fails the verifier: {report.errors[:1]}")
    return schedule
