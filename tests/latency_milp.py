"""A second reference for total exchange under all-port with latencies: an integer
multicommodity flow on the time-expanded network, solved by HiGHS (``scipy.optimize.milp``).

It shares nothing with :mod:`gossipcert` (nor with ``latency_reference.py``'s search): the
formulation, the solver and the code are independent. As in that search, copies never help
a packet that one node demands, so each packet is one unit of flow:

- a node of the time-expanded network is ``(v, s)``, node ``v`` after round ``s``
  (``s = 0..R``); packet ``(a, b)`` is one unit from ``(a, 0)`` to ``(b, R)``;
- a *wait* arc ``(v, s-1) -> (v, s)`` carries any number of packets;
- a *send* arc: the packet enters ``u -> v`` in round ``t`` (``1 <= t``, ``t + L - 1 <= R``),
  from ``(u, t-1)`` to ``(v, t + L - 1)``: it is known at ``v`` after round ``t + L - 1``;
- at most ``c(u, v)`` packets enter ``u -> v`` in each round.

``R`` rounds suffice iff the flow exists; the fewest is found by trying ``R = 1, 2, ...``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

#: ``(u, v, capacity, latency)`` of an undirected edge
Edge = tuple[int, int, int, int]


def feasible(n: int, edges: tuple[Edge, ...], rounds: int) -> bool:
    """Whether total exchange on the graph fits in ``rounds`` rounds."""
    arcs = [(u, v, c, lat) for u, v, c, lat in edges] + [(v, u, c, lat) for u, v, c, lat in edges]
    packets = [(a, b) for a in range(n) for b in range(n) if a != b]
    # columns: (packet, kind, ...) with kind "wait" (v, s) or "send" (arc, t)
    columns: list[tuple[int, tuple[int, int], tuple[int, int]]] = []  # (p, tail, head)
    sends: dict[tuple[int, int], list[int]] = {}  # (arc, round) -> its columns
    for p in range(len(packets)):
        for v in range(n):
            for s in range(1, rounds + 1):
                columns.append((p, (v, s - 1), (v, s)))
        for i, (u, v, _, lat) in enumerate(arcs):
            for t in range(1, rounds - lat + 2):
                sends.setdefault((i, t), []).append(len(columns))
                columns.append((p, (u, t - 1), (v, t + lat - 1)))
    # flow conservation: one row per (packet, node, time)
    index = {}
    for p in range(len(packets)):
        for v in range(n):
            for s in range(rounds + 1):
                index[p, v, s] = len(index)
    rows, cols, vals = [], [], []
    for j, (p, tail, head) in enumerate(columns):
        rows += [index[(p, *tail)], index[(p, *head)]]
        cols += [j, j]
        vals += [-1.0, 1.0]
    rhs = np.zeros(len(index))
    for p, (a, b) in enumerate(packets):
        rhs[index[p, a, 0]] -= 1.0  # the unit leaves (a, 0) ...
        rhs[index[p, b, rounds]] += 1.0  # ... and arrives at (b, R)
    flow = coo_matrix((vals, (rows, cols)), shape=(len(index), len(columns)))
    cap_rows, cap_cols, caps = [], [], []
    for k, ((i, _), js) in enumerate(sorted(sends.items())):
        cap_rows += [k] * len(js)
        cap_cols += js
        caps.append(arcs[i][2])
    constraints = [LinearConstraint(flow.tocsr(), rhs, rhs)]
    if caps:
        cap = coo_matrix(([1.0] * len(cap_cols), (cap_rows, cap_cols)), (len(caps), len(columns)))
        constraints.append(LinearConstraint(cap.tocsr(), -np.inf, np.array(caps, float)))
    res = milp(
        np.zeros(len(columns)),
        constraints=constraints,
        integrality=np.ones(len(columns)),
        bounds=Bounds(0, 1),
    )
    return bool(res.status == 0)


def total_exchange_optimum(n: int, edges: tuple[Edge, ...], limit: int = 60) -> int:
    """Fewest rounds of total exchange (arrivals included)."""
    for rounds in range(1, limit + 1):
        if feasible(n, edges, rounds):
            return rounds
    raise AssertionError(f"no schedule of at most {limit} rounds")
