"""A schedule finder for one packet: the fewest nodes left uninformed after ``R`` rounds.

Asking a solver "is there a broadcast schedule of ``R`` rounds?" gives it nothing to climb:
a schedule of ``R + 1`` rounds is not a model, and a hint built from it is just as far from
one as any other assignment. This finder asks instead for the ``R``-round schedule that
leaves the **fewest demanding nodes uninformed**, an optimisation problem with a model
ready at the start (the best schedule known, cut after round ``R``), which CP-SAT improves
by large-neighbourhood search until no node is left, or the time runs out.

The model is the broadcast encoding of :mod:`gossipcert.encodings.broadcast` with horizon
``R``, without the demand selector and without the options that remove schedules
(dominance, symmetry breaking), so that the cut schedule is a feasible solution:

- variables: ``("I", v, t)`` (``v`` informed after round ``t``) and ``("S", u, v, t)``
  (``u`` informs ``v`` in round ``t``), as in the encoding;
- constraints: the encoding's informing, sender-informed, receiver-uninformed and port
  constraints for rounds ``1..R``;
- objective: minimise the number of demanding nodes ``v`` with ``not I[v, R]``.

An objective of zero is a broadcast schedule of ``R`` rounds. It is only a *finder*: no
claim rests on it, the caller verifies the schedule (:func:`gossipcert.simulate.simulate`),
and an ``R`` equal to a closed-form lower bound makes it optimal with that bound as evidence.
A positive objective when the time runs out says nothing about ``R``.

References
----------
.. [1] N. Ivanova, D. Haugland and B. H. Tvedt, integer-programming models of the minimum
   broadcast time problem, 2021 (informing times on an arborescence; their models, too,
   start from a heuristic schedule).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping" (Table 4:
   the butterfly rows whose schedules this finder was written for).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from gossipcert.encodings.broadcast import BroadcastEncoding, broadcast_applies
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.solvers.backends import compile_cpsat
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

#: called with (seconds since the start, nodes left uninformed) at each improvement
Report = Callable[[float, int], None]


@dataclass
class LateResult:
    """The best ``rounds``-round schedule found and the demanding nodes it leaves uninformed
    (``late == 0``: a complete broadcast schedule of ``rounds`` rounds, still unverified)."""

    rounds: int
    late: int
    schedule: Schedule | None
    seconds: float


class _Improvements(cp_model.CpSolverSolutionCallback):
    """Reports each better solution, and stops the search at zero uninformed nodes."""

    def __init__(self, start: float, report: Report | None) -> None:
        super().__init__()
        self.start = start
        self.report = report

    def on_solution_callback(self) -> None:
        late = round(self.objective_value)
        if self.report is not None:
            self.report(time.monotonic() - self.start, late)
        if late == 0:
            self.stop_search()


def fewest_late(
    instance: Instance,
    rounds: int,
    start: Schedule | None,
    seconds: float,
    workers: int = 1,
    seed: int = 0,
    report: Report | None = None,
) -> LateResult:
    """The ``rounds``-round schedule leaving the fewest demanding nodes uninformed.

    Parameters
    ----------
    instance : Instance
        One packet; telephone, half-duplex or single-port without a call limit.
    rounds : int
        The horizon ``R``.
    start : Schedule or None
        A schedule (of any length) whose first ``R`` rounds are the starting solution.
    seconds : float
        CP-SAT's time limit.
    workers, seed : int
        CP-SAT's workers and random seed.
    report : callable, optional
        Called with (seconds, nodes left) at each improvement.

    Returns
    -------
    LateResult
        ``late == 0`` with the schedule when one of ``R`` rounds is found (unverified:
        the caller runs the simulator); otherwise the best count, and the schedule of the
        best solution.

    Raises
    ------
    UnsupportedModelError
        The broadcast encoding does not cover ``instance``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("path:5", "telephone", "broadcast:2")
    >>> fewest_late(inst, 2, None, 10.0).late  # two rounds leave one end uninformed
    1
    >>> res = fewest_late(inst, 3, None, 10.0)
    >>> res.late, simulate(inst, res.schedule).rounds
    (0, 3)
    """
    if not broadcast_applies(instance):
        raise UnsupportedModelError(
            "the fewest-late finder needs one packet and a one-port model without a call limit"
        )
    t0 = time.monotonic()
    options = replace(EncodingOptions.for_search(strict=True), symmetry=False)
    enc = BroadcastEncoding(instance, options)
    enc.extend_to(rounds)
    model, x, lit = compile_cpsat(enc.formula)
    # late: a demanding node not informed after round R (a constant True where it cannot be)
    late: list[object] = []
    fixed = 0
    for v in range(instance.n):
        if not instance.demands[v] & 1:
            continue
        k = enc.informed(v, rounds)
        if k is False:
            fixed += 1
        elif k is not True:
            late.append(lit(-k))
    model.minimize(sum(late) + fixed)  # type: ignore[arg-type]
    if start is not None:
        for var, val in enc.hint(start, rounds).items():
            if var in x:
                model.add_hint(x[var], val)
    solver = cpsat_solver(workers, max(0.1, seconds - (time.monotonic() - t0)), seed)
    status = run_cpsat(solver, model, _Improvements(t0, report))
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return LateResult(rounds, len(late) + fixed, None, time.monotonic() - t0)
    got = {v: bool(solver.boolean_value(b)) for v, b in x.items()}
    sched = enc.decode(rounds, lambda v: got.get(v, False))
    return LateResult(rounds, round(solver.objective_value), sched, time.monotonic() - t0)
