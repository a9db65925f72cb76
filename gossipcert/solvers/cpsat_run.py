"""The one way gossipcert makes and runs a CP-SAT solver: Ctrl-C stays Python's.

OR-Tools' ``CpSolver`` catches SIGINT during a solve when ``catch_sigint_signal`` is on
(its default), and when the solve returns it puts the C-level handler back to
``SIG_DFL``, not to the handler Python had installed. From then on a SIGINT or a Ctrl-C
kills the process outright: no ``KeyboardInterrupt``, no partial answer, no children
reaped. So every CP-SAT solver of the project comes from :func:`cpsat_solver`, which turns
that catching off, and runs through :func:`run_cpsat`, which keeps the calling thread free
to take Ctrl-C (the solve runs in a worker thread and is stopped with
``stop_search``).

Examples
--------
>>> from ortools.sat.python import cp_model
>>> model = cp_model.CpModel()
>>> x = model.new_int_var(0, 3, "x")
>>> model.add(x >= 2)  # doctest: +ELLIPSIS
<...>
>>> solver = cpsat_solver(workers=1, seconds=5)
>>> run_cpsat(solver, model) == cp_model.OPTIMAL
True
>>> import signal
>>> signal.getsignal(signal.SIGINT) is signal.default_int_handler
True
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


#: seconds between two calls of a ``tick`` while CP-SAT runs
TICK_SECONDS = 1.0


def cpsat_solver(
    workers: int, seconds: float | None = None, seed: int | None = None
) -> cp_model.CpSolver:
    """A CP-SAT solver that leaves SIGINT to Python.

    Parameters
    ----------
    workers : int
        CP-SAT's ``num_workers``.
    seconds : float, optional
        Its ``max_time_in_seconds`` (no limit when None).
    seed : int, optional
        Its ``random_seed``.

    Returns
    -------
    cp_model.CpSolver
    """
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    if seconds is not None:
        solver.parameters.max_time_in_seconds = seconds
    if seed is not None:
        solver.parameters.random_seed = seed
    # OR-Tools would catch SIGINT, then leave SIG_DFL behind: a later Ctrl-C would kill
    # the process instead of raising KeyboardInterrupt
    solver.parameters.catch_sigint_signal = False
    return solver


def run_cpsat(
    solver: cp_model.CpSolver,
    model: cp_model.CpModel,
    callback: cp_model.CpSolverSolutionCallback | None = None,
    tick: Callable[[], None] | None = None,
) -> Any:
    """``solver.solve(model, callback)`` in a worker thread; ticks and Ctrl-C in this one.

    Parameters
    ----------
    solver : cp_model.CpSolver
        From :func:`cpsat_solver`.
    model : cp_model.CpModel
    callback : cp_model.CpSolverSolutionCallback, optional
        Called by CP-SAT on each solution.
    tick : callable, optional
        Called about every :data:`TICK_SECONDS` while the solve runs.

    Returns
    -------
    cp_model.CpSolverStatus

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C (or SIGTERM, under the command line): the search is stopped first, and the
        worker thread has returned (so too when ``tick`` raises).
    """
    box: dict[str, Any] = {}
    # an Event, not Thread.join: a join interrupted by KeyboardInterrupt may later report a
    # running thread as finished
    done = threading.Event()

    def work() -> None:
        try:
            box["status"] = solver.solve(model, callback)
        except BaseException as exc:  # handed back to the calling thread
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="cpsat", daemon=True)
    worker.start()
    try:
        while not done.wait(TICK_SECONDS):
            if tick is not None:
                tick()
    except BaseException:  # Ctrl-C, or an error of ``tick``: the search stops first
        solver.stop_search()
        while not done.wait(0.1):
            pass
        raise
    if "error" in box:
        raise box["error"]
    return box["status"]
