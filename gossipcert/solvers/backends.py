"""Solver back-ends: incremental SAT (PySAT, CaDiCaL) and CP-SAT (OR-Tools).

Both take a :class:`~gossipcert.encodings.formula.Formula` and answer one question: is it
satisfiable together with some assumption literals? The answer is a :class:`Status`; a time
limit that runs out gives ``UNKNOWN``, never a guess.

- ``sat``: one CaDiCaL 1.9.5 solver, extended as the formula grows, queried with assumption
  literals. CaDiCaL cannot be interrupted from Python, so it runs in conflict-budget slices
  and the wall clock is checked between slices. Every slice is a new ``solve`` call, which
  costs CaDiCaL part of its search state: it backtracks to the root, tries its "lucky"
  phases again, resets its restart and rephase schedules and switches from the stable mode
  back to the focused one (``init_search_limits``). One-second slices thus keep a long
  satisfiable query out of the stable mode that finds models. Where a watchdog kills the
  process at its time limit anyway (:func:`allow_long_slices`, set in the forked child of
  :mod:`gossipcert.watchdog`), the slices double in length up to the time left.
- ``cpsat``: the formula compiled to a CP-SAT model (clauses, at-most-one, linear ``<=``),
  assumptions added as fixed literals, solved with two workers and a time limit; it accepts
  a solution hint.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pysat.solvers import Solver

from gossipcert.encodings.formula import Formula
from gossipcert.errors import SolverError
from gossipcert.interrupts import pysat_handler_off
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat
from gossipcert.statuses import QueryStatus

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

#: the answer of a back-end to one query
Status = QueryStatus


BACKENDS = ("sat", "cpsat")


Tick = Callable[[], None]

#: target wall-clock seconds of one conflict-budget slice (between two ticks)
SLICE_SECONDS = 1.0

#: the first slice of a formula of unknown size (and the largest first slice)
FIRST_BUDGET = 20_000

#: the smallest slice, in conflicts
MIN_BUDGET = 10

#: conflicts per second times clauses: a low estimate of CaDiCaL's speed on a loaded core
#: (butterfly:10 broadcast at 16 rounds, 2.18 M clauses: 20,000 conflicts in 321 s of wall
#: time at about 60 % of a core, i.e. 1.4e8 a wall second), used to size the first slice
FIRST_SLICE_WORK = 5.0e7

#: conflicts per second last measured on each solver, to size the first slice of its next call
_rates: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

#: whether slices may grow (a watchdog enforces the time limit of this process)
_long_slices = False


def allow_long_slices(on: bool = True) -> None:
    """Let :func:`solve_sliced` double its slices up to the time left.

    Call this only in a process that is killed at its time limit from outside (the forked
    child of :func:`gossipcert.watchdog.call_in_child`): a slice sized from the
    conflict rate may then overrun a deadline a little without breaking the limit, and the
    solver keeps its search state (stable mode, restart schedule) for longer runs.
    """
    global _long_slices
    _long_slices = on


def first_budget(clauses: int | None, target: float = SLICE_SECONDS) -> int:
    """Conflicts for a first slice of at most about ``target`` seconds on ``clauses`` clauses.

    Nothing is measured yet, so the slice assumes the low speed :data:`FIRST_SLICE_WORK`
    (a conflict costs propagations over a share of the clauses); it is at most
    :data:`FIRST_BUDGET` and at least :data:`MIN_BUDGET`. ``None`` (size unknown) gives
    :data:`FIRST_BUDGET`.

    Examples
    --------
    >>> first_budget(1_000)  # small formulas: the fixed first slice
    20000
    >>> first_budget(100_000)
    500
    >>> first_budget(2_180_000)  # butterfly:10 broadcast at 16 rounds
    22
    >>> first_budget(2_180_000, target=30.0)
    688
    """
    if clauses is None:
        return FIRST_BUDGET
    budget = FIRST_SLICE_WORK * target / max(clauses, 1)
    return int(min(max(budget, MIN_BUDGET), FIRST_BUDGET))


def next_budget(budget: int, spent: float, target: float) -> int:
    """Conflicts for a slice of about ``target`` seconds, after ``budget`` took ``spent``.

    Examples
    --------
    >>> next_budget(20_000, 0.5, 2.0)
    80000
    >>> next_budget(20_000, 0.01, 100.0)  # at most eight times the last slice
    160000
    >>> next_budget(20_000, 100.0, 0.01)  # never below MIN_BUDGET conflicts
    10
    """
    rate = budget / max(spent, 1e-3)
    return int(min(max(rate * target, MIN_BUDGET), budget * 8))


def _start_budget(solver: Any) -> int:
    """The first slice of a call: from the rate measured on ``solver`` in its last call, or
    else from the number of its clauses (:func:`first_budget`)."""
    try:
        rate = _rates.get(solver)
    except TypeError:  # not weakly referenceable
        rate = None
    if rate is not None:
        return int(min(max(rate * SLICE_SECONDS, MIN_BUDGET), FIRST_BUDGET * 8))
    count = getattr(solver, "nof_clauses", None)
    return first_budget(count() if callable(count) else None)


def _remember_rate(solver: Any, budget: int, spent: float) -> None:
    try:
        _rates[solver] = budget / max(spent, 1e-3)
    except TypeError:  # not weakly referenceable
        pass


@pysat_handler_off()  # PySAT takes no SIGINT itself
def solve_sliced(
    solver: Solver,
    assumptions: list[int],
    deadline: float | None,
    tick: Tick | None = None,
) -> bool | None:
    """Run a PySAT solver in conflict-budget slices, checking the wall clock between them.

    A deadline (a ``time.monotonic()`` value) is kept by slices of conflicts sized to last
    about :data:`SLICE_SECONDS` each (the first from the formula's size or the solver's last
    measured rate, :func:`_start_budget`; the others from the rate just measured); ``tick``
    is called between slices (progress reports). Where :func:`allow_long_slices` is on, each
    slice aims at twice the length of the last one, at most the time left before
    ``deadline`` (a slice restarts part of CaDiCaL's search, see the module's docstring);
    with it on and neither ``deadline`` nor ``tick`` there is nothing to slice for, and the
    solver runs in one call (a forked child that its parent kills at the parent's
    deadline). Returns None when the deadline passes. A signal is raised as
    :class:`KeyboardInterrupt` when the slice under way returns
    (:func:`gossipcert.interrupts.pysat_handler_off`).
    """
    if _long_slices and deadline is None and tick is None:
        # killed from outside and nothing to report: one call, CaDiCaL's search unbroken
        return bool(solver.solve(assumptions=assumptions))
    budget = _start_budget(solver)
    target = SLICE_SECONDS
    while deadline is None or time.monotonic() < deadline:
        solver.conf_budget(budget)
        t0 = time.monotonic()
        result = solver.solve_limited(assumptions=assumptions)
        if result is not None:
            return result
        now = time.monotonic()
        spent = now - t0
        _remember_rate(solver, budget, spent)
        if _long_slices:
            target *= 2
            if deadline is not None:
                target = min(target, max(deadline - now, SLICE_SECONDS))
            budget = next_budget(budget, spent, target)
        elif spent < SLICE_SECONDS / 2:
            budget = min(budget * 2, 2_000_000)
        elif spent > SLICE_SECONDS * 2:
            budget = max(next_budget(budget, spent, SLICE_SECONDS), MIN_BUDGET)
        if tick is not None:
            tick()
    return None


class SatBackend:
    """Incremental CaDiCaL with assumptions and conflict-budget slices.

    Parameters
    ----------
    formula : Formula
        Clauses added to the formula later are picked up by the next :meth:`solve`.
    name : str
        A PySAT solver name that supports assumptions and ``solve_limited``.
    """

    name = "sat"

    def __init__(self, formula: Formula, solver: str = "cadical195") -> None:
        self.formula = formula
        self.solver_name = solver
        self.solver = Solver(name=solver)
        self._mark = 0
        self._model: set[int] = set()

    def _sync(self) -> None:
        mark = self.formula.mark()
        if mark > self._mark:
            for clause in self.formula.cnf_since(self._mark):
                self.solver.add_clause(clause)
            self._mark = mark

    def solve(
        self,
        assumptions: list[int],
        deadline: float | None = None,
        hint: dict[int, bool] | None = None,
        tick: Tick | None = None,
    ) -> Status:
        """Solve under ``assumptions``; ``deadline`` is a ``time.monotonic()`` value.

        ``tick`` is called about every second while the solver runs.
        """
        del hint  # CaDiCaL takes no hints
        self._sync()
        result = solve_sliced(self.solver, assumptions, deadline, tick)
        if result is None:
            return Status.UNKNOWN
        if result:
            self._model = {lit for lit in self.solver.get_model() or [] if lit > 0}
            return Status.SAT
        return Status.UNSAT

    def value(self, var: int) -> bool:
        """Truth value of ``var`` in the last model."""
        return var in self._model

    def close(self) -> None:
        """Free the solver."""
        self.solver.delete()


def compile_cpsat(
    formula: Formula,
) -> tuple[cp_model.CpModel, dict[int, cp_model.IntVar], Callable[[int], Any]]:
    """The formula as a CP-SAT model: the model, its Booleans by formula variable, and a
    function from a DIMACS literal to the CP-SAT literal."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    # x[v]: the CP-SAT Boolean of formula variable v (auxiliaries of CNF encodings unused)
    x: dict[int, cp_model.IntVar] = {}

    def lit(i: int) -> Any:
        v = abs(i)
        if v not in x:
            x[v] = model.new_bool_var(f"x{v}")
        return x[v] if i > 0 else x[v].Not()

    for item in formula.items:
        if item[0] == "or":
            model.add_bool_or([lit(i) for i in item[1]])
        elif item[0] == "amo":
            model.add_at_most_one([lit(i) for i in item[1]])
        elif item[0] == "ge":
            model.add(sum(lit(i) for i in item[1]) >= item[2])
        else:
            model.add(sum(lit(i) for i in item[1]) <= item[2])
    return model, x, lit


class CpSatBackend:
    """CP-SAT on the same formula; rebuilt for every query (it is not incremental)."""

    name = "cpsat"

    def __init__(self, formula: Formula, workers: int = 2) -> None:
        self.formula = formula
        self.workers = workers
        self._values: dict[int, bool] = {}

    def solve(
        self,
        assumptions: list[int],
        deadline: float | None = None,
        hint: dict[int, bool] | None = None,
        tick: Tick | None = None,
    ) -> Status:
        """Solve with ``assumptions`` fixed, within the deadline, starting from ``hint``.

        The solver runs in a worker thread while this thread calls ``tick`` about every second
        and stays responsive to Ctrl-C: a :class:`KeyboardInterrupt` stops the search and is
        raised again once the worker has returned.
        """
        from ortools.sat.python import cp_model

        model, x, lit = compile_cpsat(self.formula)
        for a in assumptions:
            model.add_bool_and([lit(a)])
        for v, val in (hint or {}).items():
            if v in x:
                model.add_hint(x[v], val)
        remaining = None
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Status.UNKNOWN
        solver = cpsat_solver(self.workers, remaining)
        status = run_cpsat(solver, model, tick=tick)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            self._values = {v: bool(solver.boolean_value(var)) for v, var in x.items()}
            return Status.SAT
        if status == cp_model.INFEASIBLE:
            return Status.UNSAT
        if status == cp_model.MODEL_INVALID:
            raise SolverError(f"CP-SAT rejected the model: {model.validate()}")
        return Status.UNKNOWN

    def value(self, var: int) -> bool:
        """Truth value of ``var`` in the last solution."""
        return self._values.get(var, False)

    def close(self) -> None:
        """Nothing to free."""


def make_backend(name: str, formula: Formula) -> SatBackend | CpSatBackend:
    """The back-end called ``name`` (``sat`` or ``cpsat``)."""
    if name == "sat":
        return SatBackend(formula)
    if name == "cpsat":
        return CpSatBackend(formula)
    raise SolverError(f"unknown back-end {name!r}; choose one of {', '.join(BACKENDS)}")
