"""SIGINT and SIGTERM to the main process of ``gossipcert``: real processes.

The signal goes to the main process alone (``kill PID``, not a terminal's Ctrl-C to the
whole process group). What the code guarantees, and what these tests assert:

- a signal sent once the process says it is ready (a progress line, a step of ``check``,
  the child that solves an instance of a sweep) is handled: the command stops, keeps what it
  promised (the partial result of ``solve -o``, nothing recorded for the instance ``table``
  was solving, the bracket of an allreduce), exits 130 (SIGINT) or 143 (SIGTERM) and leaves
  no child process behind;
- a signal at any moment after the console script took the signals (its first line:
  :mod:`gossipcert.interrupts`) gives 130 or 143 and no traceback
  (``tests/test_signals_any_time.py``).

The tests wait for the process's own word, never for a fixed time, so that they hold on a
machine whose cores are all busy. "Stops at once" is asserted with a bound (a fraction of the
time the run would take otherwise), not with a speed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

SCRIPT = str(Path(sys.executable).with_name("gossipcert"))

#: seconds to wait for a process's word that it is ready (its start-up alone can take
#: several seconds on a busy machine)
READY_SECONDS = 600.0
#: seconds within which a stopped command must have exited: its runs would go on for a
#: minute (the time limit) or more, so this separates "stopped" from "ran on"
STOP_SECONDS = 20.0


class Running:
    """A ``gossipcert`` process whose standard output and error are read line by line as
    they come (threads), so that a test can wait for a line."""

    def __init__(self, args: list[str], cwd: Path | None = None) -> None:
        # a process that does not stop dumps its threads' stacks when aborted (the message)
        env = dict(os.environ, PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen(
            [SCRIPT, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=env,
        )
        self.main = psutil.Process(self.proc.pid)
        self.out: list[str] = []
        self.err: list[str] = []
        self.changed = threading.Condition()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    def _read(self, stream: object, lines: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            with self.changed:
                lines.append(line)
                self.changed.notify_all()

    def wait_for(self, lines: list[str], pattern: str, then: int = 0) -> None:
        """Until a line of ``lines`` (``self.out`` or ``self.err``) matches ``pattern``, and
        ``then`` more lines have come after it."""
        found = re.compile(pattern)
        end = time.monotonic() + READY_SECONDS

        def seen() -> bool:
            at = next((i for i, line in enumerate(lines) if found.search(line)), None)
            return at is not None and len(lines) > at + then

        with self.changed:
            while not seen():
                assert self.proc.poll() is None, f"ended before {pattern!r}: {self.text()}"
                assert time.monotonic() < end, f"no {pattern!r} in {READY_SECONDS}s"
                self.changed.wait(1.0)

    def wait_for_child(self) -> None:
        """Until the process has started a child (the work it stops on a signal)."""
        end = time.monotonic() + READY_SECONDS
        while not self.main.children():
            assert self.proc.poll() is None, f"ended before a child: {self.text()}"
            assert time.monotonic() < end, f"no child in {READY_SECONDS}s"
            time.sleep(0.05)

    def stop(self, signum: int) -> tuple[int, float, list[psutil.Process]]:
        """Send ``signum``; the exit status, the seconds to exit, and the processes it had
        started that still run half a second after it exited."""
        family = self.main.children(recursive=True)
        sent = time.monotonic()
        os.kill(self.proc.pid, signum)
        try:
            self.proc.wait(timeout=STOP_SECONDS * 3)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGABRT)  # its stacks, for the message below
            self.proc.wait()
            for reader in self.readers:
                reader.join(timeout=20)
            pytest.fail(f"still running {STOP_SECONDS * 3}s after the signal:\n{self.text()}")
        took = time.monotonic() - sent
        for reader in self.readers:
            reader.join(timeout=20)
        time.sleep(0.5)
        alive = [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        return self.proc.returncode, took, alive

    def text(self) -> str:
        return "".join(self.out) + "".join(self.err)


def _no_traceback(run: Running) -> None:
    assert "Traceback" not in run.text(), run.text()


@pytest.mark.parametrize(
    ("signum", "code", "args"),
    [
        (signal.SIGINT, 130, ["torus:4x4", "--model", "half-duplex", "--time-limit", "60"]),
        (signal.SIGTERM, 143, ["torus:4x4", "--model", "half-duplex", "--time-limit", "60"]),
        (signal.SIGINT, 130, ["debruijn:6"]),  # no time limit
    ],
)
def test_signal_stops_solve_with_its_partial_result(
    tmp_path: Path, signum: int, code: int, args: list[str]
) -> None:
    out = tmp_path / "f.json"
    run = Running(["solve", *args, "-o", str(out)])
    # ready: a line after the first upper bound (the search's child sends the state that
    # holds its schedule right after the upper bound's line, and before any later line)
    run.wait_for(run.err, r"upper-bound \d+", then=1)
    assert run.main.children(), "the search runs in a child process"
    status, took, alive = run.stop(signum)
    assert status == code, run.text()
    assert took < STOP_SECONDS, took
    assert "interrupted" in "".join(run.out)
    _no_traceback(run)
    data = json.loads(out.read_text())
    assert data["format"] == "gossipcert-partial/1"
    assert data["lower_bound"] >= 1 and data["upper_bound"] >= data["lower_bound"]
    assert data["schedule"] is not None and data["status"] in ("feasible", "optimal")
    met = data["lower_bound"] == data["upper_bound"]
    assert data["decided_by_solver"] is (met and data["evidence"]["kind"] == "solver-claim")
    assert not alive, alive


@pytest.mark.parametrize(
    ("signum", "code", "jobs"), [(signal.SIGINT, 130, 1), (signal.SIGTERM, 143, 2)]
)
def test_signal_stops_table_and_records_no_interrupted_answer(
    tmp_path: Path, signum: int, code: int, jobs: int
) -> None:
    """``table`` stops at once; the instance being solved is not recorded. Before, with one
    job, the signal cut that instance's search short, its bounds were recorded as its answer
    and the sweep ran on to the end (exit 0)."""
    (tmp_path / "s.toml").write_text(
        'name = "s"\ntime_limit = 60\noutput = "."\nstore = "store"\n'
        '[[group]]\ngraphs = ["debruijn:6", "torus:4x4"]\nmodels = ["telephone"]\n'
        'problems = ["gossip"]\n'
    )
    run = Running(["table", "s.toml", "-q", "-j", str(jobs)], cwd=tmp_path)
    run.wait_for_child()  # ready: an instance is being solved
    status, took, alive = run.stop(signum)
    assert status == code, run.text()
    assert took < STOP_SECONDS, took
    assert not alive, alive
    assert "interrupted" in "".join(run.err) and not (tmp_path / "s.csv").exists()
    _no_traceback(run)
    recorded = [f.read_text() for f in tmp_path.glob("store/**/*") if f.is_file()]
    assert not any("debruijn" in text for text in recorded)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_check(tmp_path: Path, signum: int, code: int) -> None:
    """A DRAT proof being re-checked (about a minute of checking) stops at once."""
    root = Path(__file__).resolve().parent.parent
    cert = root / "results" / "store" / "sequential-p-3_gossip_n6_d76edfe23eae88eb.cert.json"
    run = Running(["check", str(cert)], cwd=tmp_path)
    run.wait_for(run.out, r"problem checked")  # ready: its first step is printed
    status, took, alive = run.stop(signum)
    assert status == code, run.text()
    assert took < STOP_SECONDS, took
    assert not alive, alive
    assert "interrupted" in "".join(run.err) and "certificate holds" not in "".join(run.out)
    _no_traceback(run)


def test_signal_during_allreduce_keeps_its_bracket(tmp_path: Path) -> None:
    # atlas 40 (a cut vertex): the tree packing (CP-SAT) runs for tens of seconds after the
    # bracket [21, 24] is known, then the exact search; CP-SAT must not leave SIGINT's
    # default behind
    graph = tmp_path / "a40.edgelist"
    graph.write_text("0 1\n1 2\n1 3\n1 4\n2 3\n2 4\n")
    args = ["solve", str(graph), "--model", "single-port", "--problem", "allreduce"]
    run = Running([*args, "--chunks", "2"], cwd=tmp_path)
    run.wait_for(run.err, r"bounds so far \[21, 2\d\]")  # ready: the bracket is known
    status, took, alive = run.stop(signal.SIGINT)
    assert status == 130, run.text()
    assert took < STOP_SECONDS, took
    stdout = "".join(run.out)
    assert "interrupted" in stdout and re.search(r"between 21 and 2\d rounds", stdout), stdout
    _no_traceback(run)
    assert not alive, alive
