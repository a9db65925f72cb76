"""Signals that arrive where the ordinary path does not see them.

- A native SAT solver that catches SIGINT itself reports it as its own error (PySAT:
  "Caught keyboard interrupt"). In a child that its parent has told to stop, that error is
  the stop: the parent answers "interrupted" from the child's last state. Before, the error
  was raised in the parent and ``solve`` exited 130 with no result and no partial file.
- A ``KeyboardInterrupt`` swallowed on its way (a library's ``except`` around an import) is
  still noted by the console script's handler: the work handed to a child stops as for the
  signal itself. Before, SIGTERM 0.3 s into ``solve`` could be lost and the search ran on.
- During start-up a signal is noted and the command ends where its own code would begin,
  in one line.
- PySAT, called from the main thread, takes SIGINT itself and escapes from the solver with
  ``longjmp``, leaving SIGINT blocked, its own handler installed and a CaDiCaL solver that
  aborts the process at its next use. ``interruptible_solve`` never lets it take the
  signal; ``native_interrupts`` puts the handler and the mask back where it did.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from gossipcert import interrupts
from gossipcert.children import STOP_SIGNAL, call_in_child


def _solver_like_child(send: Any) -> None:
    """A child whose stop signal is taken by a "native library" that answers with its own
    error."""

    def native(signum: int, frame: Any) -> None:
        raise RuntimeError("Caught keyboard interrupt")

    signal.signal(STOP_SIGNAL, native)
    send(("message", "ready"))
    time.sleep(60)


def test_an_error_after_the_child_was_told_to_stop_is_the_stop() -> None:
    def on_message(value: Any) -> None:
        assert value == "ready"
        raise KeyboardInterrupt  # what the parent's handler raises on SIGINT

    sent = time.monotonic()
    kind, _ = call_in_child(_solver_like_child, (), None, on_message)
    assert kind == "interrupted"
    assert time.monotonic() - sent < 50  # stopped, not run to its end


def _fails(send: Any) -> None:
    raise RuntimeError("Caught keyboard interrupt")


def test_an_error_of_a_child_never_told_to_stop_is_raised() -> None:
    with pytest.raises(RuntimeError, match="keyboard interrupt"):
        call_in_child(_fails, (), None)


def _waits(send: Any) -> None:
    send(("message", "ready"))
    time.sleep(60)


def test_a_noted_signal_stops_the_child_even_if_its_exception_was_swallowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    noted: list[int] = []
    monkeypatch.setattr(interrupts, "_received", noted)

    def on_message(value: Any) -> None:
        noted.append(signal.SIGTERM)  # the handler ran; its KeyboardInterrupt was lost

    sent = time.monotonic()
    assert call_in_child(_waits, (), None, on_message) == ("interrupted", None)
    assert time.monotonic() - sent < 50
    # and no new child starts once a signal was noted
    assert call_in_child(_fails, (), None) == ("interrupted", None)


def test_native_interrupts_lets_other_errors_pass() -> None:
    with pytest.raises(ValueError), interrupts.native_interrupts():
        raise ValueError("something else")


def test_pysat_report_of_sigint_becomes_keyboard_interrupt() -> None:
    """The real solver: PySAT's error for a SIGINT inside ``solve()`` is raised as
    ``KeyboardInterrupt`` by :func:`gossipcert.interrupts.native_interrupts`."""
    code = (
        "import os, signal, sys\n"
        "from pysat.solvers import Solver\n"
        "from pysat.examples.genhard import PHP\n"
        "from gossipcert.interrupts import native_interrupts\n"
        "s = Solver(name='cadical195', bootstrap_with=PHP(12).clauses)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    with native_interrupts():\n"
        "        s.solve()\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('keyboard interrupt')\n" + _AFTER
    )
    out, err, _ = _interrupted(code, 0.5)  # inside solve(), most likely (PHP(12): minutes)
    # (a signal before solve() started is Python's own KeyboardInterrupt: the same line)
    assert out.split() == ["keyboard", "interrupt", *_AFTER_SAYS], err


def _interrupted(code: str, after: float) -> tuple[str, str, int]:
    """Run ``code`` in a fresh interpreter; SIGINT ``after`` seconds after it prints
    ``ready``. Its output after that line, its errors and its exit status."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(after)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # a failure, or the signal lost: not left running
            proc.kill()
            proc.communicate()
    return out, err, proc.returncode


#: what a process checks after the solver was stopped by SIGINT: the signal is not left
#: blocked, and the next SIGINT reaches Python's handler (PySAT's, left installed, would jump
#: into a stack frame that no longer exists)
_AFTER = (
    "print('blocked' if signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ()) "
    "else 'unblocked', flush=True)\n"
    "try:\n"
    "    os.kill(os.getpid(), signal.SIGINT)\n"
    "    import time; time.sleep(5)\n"
    "    print('lost')\n"
    "except KeyboardInterrupt:\n"
    "    print('python-handler', flush=True)\n"
    "os._exit(0)\n"  # a CaDiCaL solver PySAT escaped from aborts at its next use, even freed
)
_AFTER_SAYS = ["unblocked", "python-handler"]


@pytest.mark.parametrize(
    "name, budget",
    # a worker thread (two families); the signal held for the call
    [("glucose4", None), ("minisat22", None), ("cadical195", 500_000)],
)
def test_interruptible_solve_stops_the_solver_without_pysat_handler(
    name: str, budget: int | None
) -> None:
    """SIGINT during :func:`gossipcert.interrupts.interruptible_solve` in the main thread
    stops the solve (``KeyboardInterrupt``: at once for Glucose, when the budgeted call
    returns for CaDiCaL) and leaves the process as it was: SIGINT not blocked, Python's
    handler in place, the solver usable."""
    code = (
        "import os, signal, sys\n"
        "from pysat.solvers import Solver\n"
        "from pysat.examples.genhard import PHP\n"
        "from gossipcert.interrupts import interruptible_solve\n"
        f"s = Solver(name={name!r}, bootstrap_with=PHP(12).clauses)\n"
        + ("" if budget is None else f"s.conf_budget({budget})\n")
        + "print('ready', flush=True)\n"
        "try:\n"
        "    interruptible_solve(s)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('keyboard interrupt')\n"
        # contradictory assumptions: False at once, None if an interrupt were left set
        "print('usable' if interruptible_solve(s, [1, -1]) is False else 'stuck', flush=True)\n"
        "s.delete()\n" + _AFTER
    )
    out, err, code = _interrupted(code, 0.3)  # inside the solve, most likely
    assert out.split() == ["keyboard", "interrupt", "usable", *_AFTER_SAYS], err
    assert code == 0, err


def test_a_signal_while_the_worker_starts_stops_the_solver_before_it_is_raised() -> None:
    """A SIGINT that arrives while the worker thread starts is held until the solver can be
    stopped: the ``KeyboardInterrupt`` leaves no worker running on a solver its caller then
    frees (before, a segmentation fault)."""
    code = (
        "import os, signal, threading\n"
        "from pysat.solvers import Solver\n"
        "from pysat.examples.genhard import PHP\n"
        "from gossipcert.interrupts import interruptible_solve\n"
        "start = threading.Thread.start\n"
        "def signalled_start(self):\n"
        "    start(self)\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "threading.Thread.start = signalled_start\n"
        "try:\n"
        "    with Solver(name='glucose4', bootstrap_with=PHP(11).clauses) as s:\n"
        "        interruptible_solve(s)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    alive = [t for t in threading.enumerate() if t.name == 'pysat']\n"
        "    print('interrupted', len(alive), flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (out.stdout.split(), out.returncode) == (["interrupted", "0"], 0), out.stderr


def test_interruptible_solve_uses_a_worker_thread_only_where_sigint_can_arrive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where SIGINT cannot arrive (blocked, as in every child) the solve runs in the calling
    thread; in the main thread with SIGINT deliverable it runs in a worker thread."""
    from pysat.solvers import Solver

    class NoThread:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("a worker thread was started")

    monkeypatch.setattr(interrupts.threading, "Thread", NoThread)
    with Solver(name="glucose4", bootstrap_with=[[1, 2], [-1]]) as s:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            assert interrupts.interruptible_solve(s, [2]) is True
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        with pytest.raises(AssertionError, match="worker thread"):
            interrupts.interruptible_solve(s, [2])
    monkeypatch.undo()
    with Solver(name="glucose4", bootstrap_with=[[1, 2], [-1]]) as s:
        assert interrupts.interruptible_solve(s, [-2]) is False


def test_a_signal_during_start_up_is_noted_and_ends_the_command_where_work_begins() -> None:
    code = (
        "import os, signal\n"
        "from gossipcert import interrupts\n"
        "interrupts.install([])\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "print('start-up goes on', flush=True)\n"
        "interrupts.begin_work()\n"
        "print('work began')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 143, proc
    assert proc.stdout.strip() == "start-up goes on"
    assert "interrupted during start-up" in proc.stderr
    assert "Traceback" not in proc.stderr


def _mask(send: Any) -> bool:
    return signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def _sigint_to_self(send: Any) -> str:
    """A SIGINT straight to the child (a terminal's Ctrl-C reaches the whole process group):
    it stays pending, and the child goes on."""
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
    return "went on"


def test_a_child_keeps_sigint_blocked_and_is_told_to_stop_with_sigterm() -> None:
    """PySAT takes SIGINT inside ``solve()`` and escapes from CaDiCaL with ``longjmp``; the
    solver then crashed the child when freed ("Fatal Python error: Segmentation fault" in
    a stopped run's output). A child never receives SIGINT: its parent tells it with
    SIGTERM, which PySAT leaves to Python."""
    assert STOP_SIGNAL == signal.SIGTERM
    assert call_in_child(_mask, (), None) == ("result", True)
    assert call_in_child(_sigint_to_self, (), None) == ("result", "went on")
