"""The README's Dask recipe, as a user runs it: ``dask scheduler`` and ``dask worker``
processes on 127.0.0.1 (real processes, whose worker processes the recipe's setting makes
non-daemonic), a sweep whose instances need checked DRAT proofs, a split proof, and a worker
killed mid-sweep."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

distributed = pytest.importorskip("dask.distributed")

BIN = Path(sys.executable).parent
# half-duplex gossip on rings and paths: each optimum needs a checked DRAT proof
SWEEP = """name = "recipe"
time_limit = 60
output = "."
store = "store"
[[group]]
graphs = ["ring:{n}", "path:{n}"]
sizes = [4, 5, 6]
models = ["half-duplex"]
problems = ["gossip"]
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(args: list[str], log: Path, daemon: bool = False) -> subprocess.Popen[bytes]:
    # the recipe's setting: worker processes that may start children
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": str(daemon)}
    with log.open("wb") as out:
        return subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A scheduler and two workers (one worker process each), stopped at the end."""
    dask = shutil.which("dask", path=str(BIN)) or "dask"
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    procs = [
        _start(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
            tmp_path / "scheduler.log",
        )
    ]
    workers = [
        _start(
            [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
            tmp_path / f"worker{i}.log",
        )
        for i in range(2)
    ]
    procs += workers
    try:
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _table(folder: Path, *extra: str) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sweep.toml").write_text(SWEEP)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gossipcert",
            "table",
            str(folder / "sweep.toml"),
            "-q",
            "--json",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _rows(folder: Path) -> pd.DataFrame:
    df = pd.read_csv(folder / "recipe.csv")
    keep = ["graph", "model", "problem", "status", "optimum", "lower", "upper", "evidence"]
    return df[keep].sort_values(["graph", "model", "problem"]).reset_index(drop=True)


def test_the_readme_recipe_on_real_worker_processes(
    tmp_path: Path, cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, _ = cluster
    local = _table(tmp_path / "local")
    assert local["certified"] == 6
    remote = _table(tmp_path / "remote", "--scheduler", address)
    assert remote["certified"] == 6 and remote["solved"] == 6
    pd.testing.assert_frame_equal(_rows(tmp_path / "local"), _rows(tmp_path / "remote"))
    assert set(_rows(tmp_path / "remote").evidence) == {"drat"}

    # a split proof on the same cluster, with a time limit: every cube refuted and its
    # proof checked in a worker process
    from gossipcert.instance import parse_instance
    from gossipcert.search.split import SplitSettings
    from gossipcert.watchdog import solve_within

    inst = parse_instance("ring:5", "half-duplex", "gossip")
    res = solve_within(inst, time_limit=120, split=SplitSettings(scheduler=address, one_piece=0.0))
    assert (res.status, res.optimum, res.evidence["kind"]) == ("optimal", 6, "drat-cubes")


def test_a_worker_killed_mid_sweep_loses_nothing(
    tmp_path: Path, cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, workers = cluster
    folder = tmp_path / "killed"
    folder.mkdir()
    (folder / "sweep.toml").write_text(SWEEP)
    store = folder / "store"
    cmd = [sys.executable, "-m", "gossipcert", "table", str(folder / "sweep.toml"), "-q"]
    proc = subprocess.Popen([*cmd, "--scheduler", address], start_new_session=True)
    entries = lambda: [p for p in store.glob("*.json") if not p.name.endswith(".cert.json")]  # noqa: E731
    deadline = time.monotonic() + 180
    while not entries() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(workers[0].pid, signal.SIGKILL)  # one worker, its nanny and its children
    assert proc.wait(timeout=300) == 0
    stored = {p.name: p.stat().st_mtime for p in entries()}
    assert len(stored) == 6
    again = _table(folder, "--scheduler", address)
    assert (again["tasks"], again["solved"]) == (0, 0)  # nothing solved twice
    assert {p.name: p.stat().st_mtime for p in entries()} == stored
    local = _table(tmp_path / "local")
    assert local["certified"] == 6
    pd.testing.assert_frame_equal(_rows(tmp_path / "local"), _rows(folder))
