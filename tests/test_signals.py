"""SIGINT and SIGTERM to the main process of ``gossipcert solve``: real processes.

The signal goes to the main process alone (``kill PID``, not a terminal's Ctrl-C to the
whole process group); the command must stop within about a second, write its partial
result (``-o``), exit 130 (SIGINT) or 143 (SIGTERM), and leave no child process behind.
"""

from __future__ import annotations

import json
import os
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
