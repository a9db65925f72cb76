"""CP-SAT leaves Ctrl-C to Python: after a solve through :mod:`gossipcert.search.cpsat_run`,
SIGINT still raises ``KeyboardInterrupt`` (OR-Tools' own catching would leave ``SIG_DFL``
behind, and the next Ctrl-C would kill the process without its partial answer)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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
from gossipcert.search.cpsat_run import cpsat_solver, run_cpsat
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
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "CpSolver"
            ):
                makers.append(str(path.relative_to(root)))
    assert makers == ["search/cpsat_run.py"]
