"""Alltoall schedules in TE-CCL's model from its own linear program, solved by HiGHS.

TE-CCL's alltoall is a linear program (``teccl/solvers/alltoall.py``): flows are fractions of
chunks. :func:`lp_alltoall` states whether ``E`` epochs suffice as a feasibility program over
the time-expanded machine, one commodity per destination ``d`` (the data every other GPU owes
it). Variables (HiGHS columns, indexed through a dict keyed by tuples):

- ``("f", d, i, j, k)``: data for ``d`` sent over link ``(i, j)`` in epoch ``k``, for ``k``
  with ``k + A(i, j) <= E - 1`` (it must reach ``j`` by the last epoch);
- ``("r", d, v, k)``: data for ``d`` a GPU ``v`` keeps after its sends of epoch ``k``.

Constraints:

- **GPUs** keep and forward: ``r(v, 0) + out(v, 0) = 1`` (its own chunk for ``d``) and
  ``r(v, k) = r(v, k - 1) + in(v, k - 1) - out(v, k)``, ``in(v, k)`` what reaches ``v`` in
  epoch ``k`` (sent in ``k - A``): what arrives in an epoch is sent from the next;
- **switches** keep nothing: ``out(w, k + 1) <= in(w, k)``, nothing out in epoch 0;
- **destination**: what reaches ``d`` by epoch ``E - 1`` is at least ``n - 1`` chunks;
- **capacity**: the flows on a link in an epoch add up to at most ``rate epoch``.

A feasible solution is cut into paths from each source to each destination (flow
decomposition on the time-expanded graph, which has no cycle) and replayed by
:func:`gossipcert.formats.teccl_replay.replay_alltoall`; only a valid replay is returned.
HiGHS's "infeasible" is not a checked proof, so it is never used as a lower bound (the cut
bounds of :mod:`.teccl_bounds` are).

References
----------
.. [1] github.com/microsoft/TE-CCL, ``teccl/solvers/alltoall.py`` (the model).
.. [2] Q. Huangfu, J. A. J. Hall, "Parallelizing the dual revised simplex method",
   Mathematical Programming Computation 10, 2018 (HiGHS, through scipy).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from gossipcert.formats.teccl_model import EpochModel
from gossipcert.formats.teccl_replay import EpochReplay, PathFlow, replay_alltoall

__all__ = ["LpAlltoall", "lp_alltoall"]

#: flows below this are HiGHS's round-off, not data
_EPS = 1e-9


@dataclass(frozen=True)
class LpAlltoall:
    """A feasible alltoall of ``epochs`` epochs: its paths and their (valid) replay."""

    epochs: int
    paths: list[PathFlow]
    replay: EpochReplay


class _Program:
    """Columns and rows of the feasibility program."""

    def __init__(self) -> None:
        self.col: dict[tuple[object, ...], int] = {}
        self.rows_eq: list[tuple[dict[int, float], float]] = []
        self.rows_ub: list[tuple[dict[int, float], float]] = []

    def var(self, key: tuple[object, ...]) -> int:
        if key not in self.col:
            self.col[key] = len(self.col)
        return self.col[key]

    @staticmethod
    def _matrix(rows: list[tuple[dict[int, float], float]], width: int):  # type: ignore[no-untyped-def]
        r, c, v = [], [], []
        for n, (coef, _) in enumerate(rows):
            for j, a in coef.items():
                r.append(n)
                c.append(j)
                v.append(a)
        return coo_matrix((v, (r, c)), shape=(len(rows), width)).tocsr(), np.array(
            [b for _, b in rows]
        )

    def solve(self, seconds: float) -> np.ndarray | None:
        width = len(self.col)
        a_eq, b_eq = self._matrix(self.rows_eq, width)
        a_ub, b_ub = self._matrix(self.rows_ub, width)
        res = linprog(
            np.zeros(width), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None),
            method="highs", options={"time_limit": seconds, "presolve": True},
        )  # fmt: skip
        if res.status != 0 or res.x is None:
            return None
        return np.asarray(res.x)


def _program(model: EpochModel, epochs: int) -> _Program:
    m = model.machine
    gpus = m.gpus
    prog = _Program()
    alpha = {link: model.arrival_delay(*link) for link in m.links}
    load: dict[tuple[int, int, int], dict[int, float]] = defaultdict(dict)
    for d in gpus:
        out: dict[tuple[int, int], dict[int, float]] = defaultdict(dict)  # (v, k) -> sends
        arrive: dict[tuple[int, int], dict[int, float]] = defaultdict(dict)  # (v, k) -> in
        reach: dict[int, float] = {}
        for (i, j), a in alpha.items():
            if i == d:
                continue
            for k in range(epochs - a):
                x = prog.var(("f", d, i, j, k))
                out[(i, k)][x] = 1.0
                arrive[(j, k + a)][x] = 1.0
                load[(i, j, k)][x] = 1.0
                if j == d:
                    reach[x] = -1.0
        for v in gpus:
            if v == d:
                continue
            for k in range(epochs):
                row = dict(out.get((v, k), {}))
                row[prog.var(("r", d, v, k))] = 1.0
                if k > 0:
                    row[prog.var(("r", d, v, k - 1))] = -1.0
                    for x in arrive.get((v, k - 1), {}):
                        row[x] = row.get(x, 0.0) - 1.0
                prog.rows_eq.append((row, 1.0 if k == 0 else 0.0))
        for w in m.switches:
            if w == d:
                continue
            for k in range(epochs):
                row = dict(out.get((w, k), {}))
                for x in arrive.get((w, k - 1), {}) if k > 0 else {}:
                    row[x] = row.get(x, 0.0) - 1.0
                if row:
                    prog.rows_ub.append((row, 0.0))
        prog.rows_ub.append((reach, -float(len(gpus) - 1)))
    for (i, j, _), row in load.items():
        prog.rows_ub.append((row, model.per_epoch(i, j)))
    return prog


def _paths(model: EpochModel, x: np.ndarray, prog: _Program, epochs: int) -> list[PathFlow]:
    """Cut each destination's flow into paths: epoch by epoch, each send takes the data that
    waits at its node first come, first served (a switch only what reached it in the epoch
    before); data that reaches the destination ends a path."""
    gpus = model.machine.gpus
    rank = {g: r for r, g in enumerate(gpus)}
    sends: dict[int, dict[int, list[tuple[int, int, float]]]] = defaultdict(
        lambda: defaultdict(list)
    )  # d -> epoch -> [(i, j, amount)]
    for key, n in prog.col.items():
        if key[0] == "f" and x[n] > _EPS:
            _, d, i, j, k = key
            sends[d][k].append((i, j, float(x[n])))  # type: ignore[index, arg-type]
    done: dict[tuple[int, int, tuple[tuple[int, int, int], ...]], float] = defaultdict(float)
    for d, by_epoch in sends.items():
        # node -> [[amount, ready epoch, source, hops]], oldest first
        waiting: dict[int, list[list]] = {s: [[1.0, 0, s, ()]] for s in gpus if s != d}  # type: ignore[type-arg]
        for k in range(epochs):
            for i, j, amount in sorted(by_epoch.get(k, [])):
                queue = waiting.get(i, [])
                for parcel in queue:
                    if amount <= _EPS:
                        break
                    ready = parcel[1] == k if model.is_switch(i) else parcel[1] <= k
                    if parcel[0] <= _EPS or not ready:
                        continue
                    take = min(amount, parcel[0])
                    parcel[0] -= take
                    amount -= take
                    hops = (*parcel[3], (i, j, k))
                    if j == d:
                        done[(parcel[2], d, hops)] += take
                    else:
                        arrive = k + model.arrival_delay(i, j) + 1
                        waiting.setdefault(j, []).append([take, arrive, parcel[2], hops])
                waiting[i] = [p for p in queue if p[0] > _EPS]
    return [PathFlow(s, d, rank[d], amount, hops) for (s, d, hops), amount in sorted(done.items())]


def lp_alltoall(model: EpochModel, epochs: int, seconds: float = 600.0) -> LpAlltoall | None:
    """An alltoall of ``epochs`` epochs from TE-CCL's linear program (module docstring), or
    None (infeasible, out of time, or a decomposition the replay refuses).

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> lp_alltoall(m, 2).replay.epochs, lp_alltoall(m, 1)
    (2, None)
    """
    prog = _program(model, epochs)
    x = prog.solve(seconds)
    if x is None:
        return None
    paths = _paths(model, x, prog, epochs)
    gpus = model.machine.gpus
    rank = {g: r for r, g in enumerate(gpus)}
    demands = {(s, d, rank[d]) for s in gpus for d in gpus if s != d}
    rep = replay_alltoall(model, paths, demands)
    if not rep.valid or rep.epochs > epochs:
        return None
    return LpAlltoall(epochs, paths, rep)
