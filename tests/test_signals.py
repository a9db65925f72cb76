"""SIGINT and SIGTERM to the main process of ``gossipcert solve``: real processes.

The signal goes to the main process alone (``kill PID``, not a terminal's Ctrl-C to the
whole process group); the command must stop within about a second, write its partial
result (``-o``), exit 130 (SIGINT) or 143 (SIGTERM), and leave no child process behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

SCRIPT = str(Path(sys.executable).with_name("gossipcert"))


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
    proc = subprocess.Popen(
        [SCRIPT, "solve", *args, "--quiet", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    main = psutil.Process(proc.pid)
    try:
        end = time.monotonic() + 30
        while not main.children() and time.monotonic() < end:  # the search's child
            time.sleep(0.1)
        time.sleep(3)
        family = main.children(recursive=True)
        assert family, "the search runs in a child process"
        sent = time.monotonic()
        os.kill(proc.pid, signum)
        stdout, stderr = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, stderr
    assert took < 3, took  # within a second of work, plus the interpreter's exit
    assert "interrupted" in stdout
    data = json.loads(out.read_text())
    assert data["format"] == "gossipcert-partial/1"
    assert data["lower_bound"] >= 1
    assert data["upper_bound"] is None or data["upper_bound"] >= data["lower_bound"]
    time.sleep(0.5)
    alive = [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not alive, alive


def _stop_after(
    args: list[str], cwd: Path, wait: float, signum: int
) -> tuple[int, float, str, str, list[psutil.Process]]:
    """Start ``gossipcert ARGS`` in ``cwd``, send ``signum`` to its main process after ``wait``
    seconds; the exit status, the seconds to exit, standard output and error, and the
    processes it had started that still run half a second later."""
    proc = subprocess.Popen(
        [SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )
    main = psutil.Process(proc.pid)
    try:
        time.sleep(wait)
        family = main.children(recursive=True)
        sent = time.monotonic()
        os.kill(proc.pid, signum)
        while proc.poll() is None and time.monotonic() - sent < 20:
            time.sleep(0.01)
        took = time.monotonic() - sent  # the exit itself, not a grandchild closing a pipe
        stdout, stderr = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.5)
    alive = [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    return proc.returncode, took, stdout, stderr, alive


@pytest.mark.parametrize(
    ("signum", "code", "jobs"), [(signal.SIGINT, 130, 1), (signal.SIGTERM, 143, 2)]
)
def test_signal_stops_table_and_records_no_interrupted_answer(
    tmp_path: Path, signum: int, code: int, jobs: int
) -> None:
    """``table`` stops within a second; the instance being solved is not recorded. Before,
    with one job, the signal cut that instance's search short, its bounds were recorded as
    its answer and the sweep ran on to the end (exit 0)."""
    (tmp_path / "s.toml").write_text(
        'name = "s"\ntime_limit = 60\noutput = "."\nstore = "store"\n'
        '[[group]]\ngraphs = ["debruijn:6", "torus:4x4"]\nmodels = ["telephone"]\n'
        'problems = ["gossip"]\n'
    )
    status, took, stdout, stderr, alive = _stop_after(
        ["table", "s.toml", "-q", "-j", str(jobs)], tmp_path, 6.0, signum
    )
    assert status == code, (stdout, stderr)
    assert took < 2, took
    assert not alive, alive
    assert "interrupted" in stderr and not (tmp_path / "s.csv").exists()
    recorded = [f.read_text() for f in tmp_path.glob("store/**/*") if f.is_file()]
    assert not any("debruijn" in text for text in recorded)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_check(tmp_path: Path, signum: int, code: int) -> None:
    """A DRAT proof being re-checked (about a minute of checking) stops at once."""
    root = Path(__file__).resolve().parent.parent
    cert = root / "results" / "store" / "sequential-p-3_gossip_n6_d76edfe23eae88eb.cert.json"
    status, took, stdout, stderr, alive = _stop_after(["check", str(cert)], tmp_path, 5.0, signum)
    assert status == code, (stdout, stderr)
    assert took < 2, took
    assert not alive, alive
    assert "interrupted" in stderr and "certificate holds" not in stdout


def test_signal_during_allreduce_keeps_its_bracket(tmp_path: Path) -> None:
    # atlas 40 (a cut vertex): the tree packing (CP-SAT) runs from about the first second
    # to the 25th, then the exact search; CP-SAT must not leave SIGINT's default behind
    graph = tmp_path / "a40.edgelist"
    graph.write_text("0 1\n1 2\n1 3\n1 4\n2 3\n2 4\n")
    args = ["solve", str(graph), "--model", "single-port", "--problem", "allreduce"]
    code, took, stdout, stderr, alive = _stop_after(
        [*args, "--chunks", "2", "-q"], tmp_path, 6.0, signal.SIGINT
    )
    assert code == 130, stderr
    assert took < 3, took
    assert "interrupted" in stdout and re.search(r"between 21 and 2\d rounds", stdout), stdout
    assert not alive, alive
