"""Signals at any moment of a PySAT call made from the main thread: a stress of
:func:`gossipcert.interrupts.interruptible_solve`.

Usage: .venv/bin/python benchmarks/native_interrupts.py [--seconds 20] [SOLVER ...]

For each solver (default ``glucose4 minisat22 cadical195``) a helper thread sends this
process SIGINT every 0 to 2 ms while the main thread calls ``interruptible_solve`` over and
over on a pigeonhole formula with a budget of 20 conflicts. After every
``KeyboardInterrupt`` it checks that no worker thread is left running on the solver (one
would be using a solver its caller may free: a crash) and, at the end, that the solver still
answers (contradictory assumptions give False; None would mean an interrupt left set) and
that SIGINT is not left blocked. Prints one row per solver; a row with a worker left
running, a wrong answer or a blocked signal is a defect. The process dying (a segmentation
fault, an abort) is one too.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import threading
import time

from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from gossipcert.interrupts import interruptible_solve


def _workers_running() -> int:
    return sum(t.name == "native-call" for t in threading.enumerate())


def stress(name: str, seconds: float) -> dict[str, object]:
    """Signals at random moments of ``interruptible_solve`` on one solver for ``seconds``."""
    stop = threading.Event()

    def sender() -> None:
        while not stop.wait(random.uniform(0, 0.002)):
            os.kill(os.getpid(), signal.SIGINT)

    calls = interrupts = left_running = 0
    with Solver(name=name, bootstrap_with=PHP(8).clauses) as solver:
        thread = threading.Thread(target=sender, daemon=True)
        thread.start()
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                try:
                    try:
                        calls += 1
                        solver.conf_budget(20)
                        interruptible_solve(solver)
                    except KeyboardInterrupt:
                        interrupts += 1
                        left_running += _workers_running() > 0
                except KeyboardInterrupt:  # raised while counting: counted as well
                    interrupts += 1
        finally:
            stop.set()
            while thread.is_alive():
                try:
                    thread.join()
                except KeyboardInterrupt:
                    pass
        while True:  # a signal still on its way
            try:
                time.sleep(0.05)
                break
            except KeyboardInterrupt:
                pass
        solver.conf_budget(-1)  # no budget (a MiniSat budget outlasts the call it was set for)
        answer = interruptible_solve(solver, [1, -1])
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ())
    return {
        "solver": name,
        "calls": calls,
        "interrupts": interrupts,
        "workers left running": left_running,
        "answer after": answer,
        "SIGINT blocked after": blocked,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("solvers", nargs="*", default=["glucose4", "minisat22", "cadical195"])
    parser.add_argument("--seconds", type=float, default=20.0, help="per solver")
    args = parser.parse_args()
    rows = [stress(name, args.seconds) for name in args.solvers]
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    bad = [r for r in rows if r["workers left running"] or r["answer after"] is not False]
    bad += [r for r in rows if r["SIGINT blocked after"]]
    print("defects:", len(bad))


if __name__ == "__main__":
    main()
