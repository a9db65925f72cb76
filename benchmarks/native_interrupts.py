"""Signals at any moment of a PySAT call made from the main thread: a stress of
:func:`gossipcert.interrupts.pysat_handler_off`.

Usage: .venv/bin/python benchmarks/native_interrupts.py [--seconds 20] [--plain] [SOLVER ...]

For each solver (default ``cadical195 glucose4 minisat22``) another process sends this one
SIGINT every 0 to 2 ms while the main thread calls ``solver.solve_limited()`` under
``pysat_handler_off()`` over and over on a pigeonhole formula with a budget of 20
conflicts, Python's SIGINT handler counting the signals it takes; PySAT's own error
("Caught keyboard interrupt": its handler acted) is counted apart. After the storm it
checks that SIGINT is not left blocked, that the solver still answers (contradictory
assumptions give False) and that one more SIGINT reaches Python's handler. Prints one row
per solver; a PySAT error, a wrong answer, a blocked or lost signal is a defect, and so is
the process dying (a segmentation fault, an abort). ``--plain`` calls ``solve_limited``
directly instead, for comparison (measured: PySAT's error and SIGINT left blocked, and the
process may end, by a segmentation fault with Glucose, by CaDiCaL's "solver in invalid
state" abort with CaDiCaL).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from gossipcert.interrupts import pysat_handler_off

#: the other process: SIGINT to ``pid`` every 0 to 2 ms until killed
SENDER = (
    "import os, random, signal, sys, time\n"
    "pid = int(sys.argv[1])\n"
    "while True:\n"
    "    try:\n"
    "        os.kill(pid, signal.SIGINT)\n"
    "    except ProcessLookupError:\n"
    "        break\n"
    "    time.sleep(random.uniform(0, 0.002))\n"
)


def stress(name: str, seconds: float, plain: bool = False) -> dict[str, object]:
    """Signals at random moments of a call under ``pysat_handler_off`` on one solver for
    ``seconds``."""
    calls = pysat_errors = 0
    taken: list[int] = []
    # Python's handler during the storm counts (a KeyboardInterrupt could land outside any
    # ``try`` of this loop); what is measured is whose handler takes the signal
    previous = signal.signal(signal.SIGINT, lambda signum, frame: taken.append(signum))
    with Solver(name=name, bootstrap_with=PHP(11).clauses) as solver:
        sender = subprocess.Popen([sys.executable, "-c", SENDER, str(os.getpid())])
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                calls += 1
                solver.conf_budget(20)
                try:
                    if plain:
                        solver.solve_limited()
                    else:
                        with pysat_handler_off():
                            solver.solve_limited()
                except Exception as exc:  # PySAT's own handler acted
                    if "keyboard interrupt" not in str(exc).lower():
                        raise
                    pysat_errors += 1
        finally:
            sender.kill()
            sender.wait()
        time.sleep(0.2)  # the signals still on their way
        blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ())
        solver.conf_budget(-1)  # no budget (a MiniSat budget outlasts the call it was set for)
        answer = None
        if not pysat_errors:  # a CaDiCaL solver PySAT's handler escaped from aborts if used
            with pysat_handler_off():
                answer = solver.solve_limited(assumptions=[1, -1])
    signal.signal(signal.SIGINT, previous)
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(2)
        python_handler = False
    except KeyboardInterrupt:
        python_handler = True
    return {
        "solver": name,
        "calls": calls,
        "signals to Python": len(taken),
        "PySAT's error": pysat_errors,
        "SIGINT blocked after": blocked,
        "answer after": answer,
        "next SIGINT to Python": python_handler,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("solvers", nargs="*", default=["cadical195", "glucose4", "minisat22"])
    parser.add_argument("--seconds", type=float, default=20.0, help="per solver")
    parser.add_argument(
        "--plain", action="store_true", help="call solve_limited directly (the reference)"
    )
    args = parser.parse_args()
    rows = [stress(name, args.seconds, args.plain) for name in args.solvers]
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    bad = [
        r
        for r in rows
        if r["PySAT's error"]
        or r["SIGINT blocked after"]
        or r["answer after"] is not False
        or not r["next SIGINT to Python"]
    ]
    print("defects:", len(bad))


if __name__ == "__main__":
    main()
