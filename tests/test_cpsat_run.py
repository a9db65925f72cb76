"""CP-SAT leaves Ctrl-C to Python: after a solve through :mod:`gossipcert.solvers.cpsat_run`,
SIGINT still raises ``KeyboardInterrupt`` (OR-Tools' own catching would leave ``SIG_DFL``
behind, and the next Ctrl-C would kill the process without its partial answer)."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import gossipcert

AFTER_A_SOLVE = """
import os, signal, time
from ortools.sat.python import cp_model
{make}
model = cp_model.CpModel()
x = model.new_int_var(0, 3, "x")
model.add(x >= 1)
solve(model)
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(2)
    print("ignored")
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""

OURS = """
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat
def solve(model):
    run_cpsat(cpsat_solver(1, 5), model)
"""

PLAIN = """
def solve(model):
    cp_model.CpSolver().solve(model)
"""


def _after_a_solve(make: str) -> subprocess.CompletedProcess[str]:
    code = AFTER_A_SOLVE.format(make=make)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_sigint_after_our_solve_is_a_keyboard_interrupt() -> None:
    done = _after_a_solve(OURS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "KeyboardInterrupt"


def test_sigint_after_a_plain_solve_kills_the_process() -> None:
    # the reason for the module: if OR-Tools ever stops doing this, the test says so
    done = _after_a_solve(PLAIN)
    assert done.returncode == -2 and done.stdout == "", (done.returncode, done.stdout)


def test_the_package_makes_cpsat_solvers_in_one_place() -> None:
    root = Path(gossipcert.__file__).parent
    makers = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            called = getattr(node, "func", None)
            name = getattr(called, "attr", None) or getattr(called, "id", None)
            if isinstance(node, ast.Call) and name == "CpSolver":
                makers.append(str(path.relative_to(root)))
    assert makers == ["solvers/cpsat_run.py"]


def test_an_error_in_tick_stops_the_search() -> None:
    from ortools.sat.python import cp_model

    from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

    model = cp_model.CpModel()  # no solution is ever optimal: 60 s of search unless stopped
    xs = [model.new_int_var(0, 10**6, f"x{i}") for i in range(60)]
    model.add(sum(xs) == 10**6 + 1)
    model.add_all_different(xs)
    model.maximize(sum(x * (i % 7 - 3) for i, x in enumerate(xs)))
    solver = cpsat_solver(workers=1, seconds=60)

    def tick() -> None:
        raise RuntimeError("the progress pipe is gone")

    start = time.monotonic()
    with pytest.raises(RuntimeError, match="pipe"):
        run_cpsat(solver, model, tick=tick)
    assert time.monotonic() - start < 10
    # the search was stopped, not left running in its thread
    assert not [t for t in threading.enumerate() if t.name == "cpsat" and t.is_alive()]
