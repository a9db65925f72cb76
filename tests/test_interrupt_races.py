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
  aborts the process at its next use. gossipcert's calls into PySAT go through
  ``pysat_handler_off``, for which it installs no handler.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
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


@pytest.mark.parametrize(
    "name, budget", [("cadical195", 300_000), ("glucose4", 100_000), ("minisat22", 300_000)]
)
def test_a_signal_during_a_call_without_pysat_handler_comes_when_it_returns(
    name: str, budget: int
) -> None:
    """SIGINT during a call under :func:`gossipcert.interrupts.pysat_handler_off` in the main
    thread: PySAT's own handler does not act (its error would end the script with a
    traceback), the ``KeyboardInterrupt`` comes when the budgeted call returns, and the
    process is left as it was: SIGINT not blocked, the solver usable, the next SIGINT taken
    by Python's handler (PySAT's, left installed, would jump into a stack frame that no
    longer exists)."""
    code = (
        "import os, signal, time\n"
        "from pysat.solvers import Solver\n"
        "from pysat.examples.genhard import PHP\n"
        "from gossipcert.interrupts import pysat_handler_off\n"
        f"s = Solver(name={name!r}, bootstrap_with=PHP(12).clauses)\n"
        f"s.conf_budget({budget})  # a second or more\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    with pysat_handler_off():\n"
        "        s.solve_limited()\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('keyboard-interrupt')\n"
        "print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ()), flush=True)\n"
        "s.conf_budget(-1)\n"
        "with pysat_handler_off():\n"
        "    print(s.solve_limited(assumptions=[1, -1]), flush=True)\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(5)\n"
        "    print('lost')\n"
        "except KeyboardInterrupt:\n"
        "    print('python-handler', flush=True)\n"
        "s.delete()\n"
    )
    out, err, status = _interrupted(code, 0.3)  # inside the call, most likely
    # SIGINT not blocked; contradictory assumptions: False
    assert out.split() == ["keyboard-interrupt", "False", "False", "python-handler"], err
    assert status == 0, err


def test_pysat_is_told_not_the_main_thread_only_while_the_block_runs() -> None:
    from pysat._utils import MainThread

    from gossipcert.interrupts import pysat_handler_off

    with pysat_handler_off():
        assert MainThread.check() is False
    with pysat_handler_off(), pysat_handler_off():  # nested
        assert MainThread.check() is False
    with pytest.raises(ValueError), pysat_handler_off():
        int("x")
    assert MainThread.check() is True  # other code's calls to PySAT: as before
    seen: list[int] = []  # another thread leaves the main thread's count alone

    def other() -> None:
        with pysat_handler_off():
            seen.append(interrupts._native_calls)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [0]


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


@pytest.fixture
def putting_back_stopped(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``(stop_at, got, mine)``: SIGTERM's handler is ``mine`` (it appends to ``got``);
    ``stop_at(signum)`` makes :func:`gossipcert.interrupts.signals_held` stopped by a
    ``KeyboardInterrupt`` where it puts back the handler of ``signum``, once. Both handlers
    are put back after the test."""
    got: list[int] = []

    def mine(signum: int, frame: Any) -> None:
        got.append(signum)

    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, mine)
    real = signal.signal

    def stop_at(stopped: int, nth: int = 2) -> None:
        calls: list[int] = []

        def interrupted(signum: int, handler: Any) -> Any:
            calls.append(signum)
            if signum == stopped and calls.count(stopped) == nth:  # 2: while put back
                raise KeyboardInterrupt
            return real(signum, handler)

        monkeypatch.setattr(interrupts.signal, "signal", interrupted)

    try:
        yield stop_at, got, mine
    finally:
        monkeypatch.undo()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def test_a_handler_left_in_place_by_an_interrupted_exit_puts_itself_back(
    monkeypatch: pytest.MonkeyPatch, putting_back_stopped: Any
) -> None:
    """A signal that comes while :func:`gossipcert.interrupts.signals_held` puts the handlers
    back may stop it half way, leaving its noting handler in place of SIGTERM's: that
    handler then acts as the one it replaced, and puts it back."""
    stop_at, got, mine = putting_back_stopped
    stop_at(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), interrupts.signals_held():
        pass
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGTERM) is not mine  # left in place
    signal.raise_signal(signal.SIGTERM)
    assert got == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) is mine
    signal.raise_signal(signal.SIGTERM)  # the handler put back takes it directly
    assert got == [signal.SIGTERM] * 2


def test_an_entry_stopped_half_way_leaves_the_handlers_and_the_mask_as_they_were(
    monkeypatch: pytest.MonkeyPatch, putting_back_stopped: Any
) -> None:
    stop_at, _, mine = putting_back_stopped
    before = signal.getsignal(signal.SIGINT)
    stop_at(signal.SIGTERM, 1)
    with pytest.raises(KeyboardInterrupt), interrupts.signals_held():
        pytest.fail("the block must not run")
    monkeypatch.undo()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == (before, mine)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, ())


def test_a_signal_noted_while_held_comes_though_the_putting_back_is_stopped(
    monkeypatch: pytest.MonkeyPatch, putting_back_stopped: Any
) -> None:
    stop_at, got, _ = putting_back_stopped
    stop_at(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), interrupts.signals_held():
        signal.raise_signal(signal.SIGTERM)  # noted, to come after the block
        assert got == []
    monkeypatch.undo()
    assert got == [signal.SIGTERM]


def test_a_default_handler_left_in_place_still_ends_the_process() -> None:
    """The noting handler left in place of SIGTERM's default action puts the default back
    and the signal ends the process, as it would have."""
    code = (
        "import os, signal, time\n"
        "from gossipcert import interrupts\n"
        "real = signal.signal\n"
        "calls = []\n"
        "def interrupted(signum, handler):\n"
        "    calls.append(signum)\n"
        "    if calls.count(signal.SIGTERM) == 2:\n"
        "        raise KeyboardInterrupt\n"
        "    return real(signum, handler)\n"
        "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"
        "signal.signal = interrupted\n"
        "try:\n"
        "    with interrupts.signals_held():\n"
        "        pass\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped', flush=True)\n"
        "signal.signal = real\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "time.sleep(5)\n"
        "print('lost')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (out.stdout.split(), out.returncode) == (["stopped"], -signal.SIGTERM), out.stderr
