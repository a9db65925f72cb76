"""The local process pool and its deadline (gossipcert.parallel)."""

from __future__ import annotations

import os
import time

from gossipcert.parallel import local_map


def test_local_map_in_process_gives_every_result() -> None:
    assert sorted(local_map(abs, [-3, 1, -2], workers=1)) == [(0, 3), (1, 1), (2, 2)]


def test_local_map_in_process_starts_nothing_after_the_deadline() -> None:
    assert list(local_map(abs, [-1, -2], workers=1, deadline=time.monotonic() - 1)) == []


def test_local_map_pool_gives_every_result() -> None:
    assert sorted(local_map(abs, [-3, 1, -2, 5], workers=2)) == [(0, 3), (1, 1), (2, 2), (3, 5)]


def test_local_map_pool_stops_at_the_deadline() -> None:
    t0 = time.monotonic()
    # one quick item, one that would sleep for a minute: the deadline ends the wait
    got = list(local_map(time.sleep, [0, 60], workers=2, deadline=t0 + 8))
    assert got == [(0, None)]
    assert time.monotonic() - t0 < 30


def test_a_worker_whose_parent_is_gone_exits() -> None:
    import multiprocessing
    import os

    from gossipcert.children import die_with_parent

    ctx = multiprocessing.get_context("fork")
    orphan = ctx.Process(target=die_with_parent, args=(-1,))  # "started by" no such parent
    child = ctx.Process(target=die_with_parent, args=(os.getpid(),))
    for p in (orphan, child):
        p.start()
        p.join(30)
    assert (orphan.exitcode, child.exitcode) == (1, 0)


def test_a_signal_during_a_fork_is_held_and_sent_again_once() -> None:
    # a signal another thread takes while this one forks runs no handler in the fork
    # hooks: the holding handler notes it, and it reaches the real handler once, after
    import signal
    import threading

    from gossipcert.interrupts import signals_held

    seen: list[int] = []

    def record(signum: int, frame: object) -> None:
        seen.append(signum)

    idle = threading.Event()
    other = threading.Thread(target=idle.wait)  # a thread that does not block the signals
    other.start()
    before = signal.signal(signal.SIGTERM, record)
    try:
        with signals_held():
            signal.pthread_kill(other.ident or 0, signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # bytecodes: Python's handler would run within them
            assert seen == []
        assert seen == [signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is record
    finally:
        signal.signal(signal.SIGTERM, before)
        idle.set()
        other.join()


def _child_in(conn: object) -> None:  # in a daemonic process: what Child answers
    from gossipcert.children import Child
    from gossipcert.errors import GossipcertError

    try:
        Child(lambda send: None, ()).reap()
        conn.send("started")  # type: ignore[attr-defined]
    except GossipcertError as exc:
        conn.send(str(exc))  # type: ignore[attr-defined]


def test_a_daemonic_process_is_told_the_dask_setting() -> None:
    # multiprocessing's rule (no children of a daemonic process), said in gossipcert's words
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    for daemon in (True, False):
        p = ctx.Process(target=_child_in, args=(writer,), daemon=daemon)
        p.start()
        got = reader.recv() if reader.poll(60) else None
        p.join(30)
        if daemon:
            assert got is not None and "daemonic" in got
            assert "DASK_DISTRIBUTED__WORKER__DAEMON=False" in got
        else:
            assert got == "started"


def test_dask_workers_made_non_daemonic_run_children() -> None:
    # worker processes started by their nanny, as `dask worker` starts them: with Dask's
    # setting they run work in children; without it the runner names the setting
    import pytest

    distributed = pytest.importorskip("dask.distributed")
    from dask import config as dask_config

    from gossipcert.children import call_in_child
    from gossipcert.errors import GossipcertError
    from gossipcert.parallel import DaskRunner

    def twice_in_child(x: int) -> tuple[str, int]:
        return call_in_child(lambda send, y: 2 * y, (x,), None)

    for daemon in (False, True):
        with (
            dask_config.set({"distributed.worker.daemon": daemon}),
            distributed.LocalCluster(
                n_workers=1, threads_per_worker=1, dashboard_address=":0"
            ) as cluster,
        ):
            runner = DaskRunner(cluster.scheduler_address)
            if daemon:
                with pytest.raises(GossipcertError, match=r"distributed\.worker\.daemon: false"):
                    runner.connect()
                continue
            try:
                got = list(runner.map(twice_in_child, [1, 2]))
            finally:
                runner.close()
            assert sorted(got) == [(0, ("result", 2)), (1, ("result", 4))]


def test_a_child_never_reaped_does_not_hold_up_the_exit() -> None:
    # a Child its caller never reaped (held by a traceback at exit): killed at exit, not
    # waited for by multiprocessing's own exit handler
    import subprocess
    import sys

    script = (
        "import time\n"
        "from gossipcert.children import Child\n"
        "print(Child(lambda send: time.sleep(3600), ()).pid, flush=True)\n"
        "raise SystemExit(3)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 3, out.stderr
    pid = int(out.stdout)
    try:
        os.kill(pid, 0)
        gone = False
    except ProcessLookupError:
        gone = True
    assert gone  # killed and waited for before its parent ended
