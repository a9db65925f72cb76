"""Independent jobs in parallel: a local process pool or a Dask distributed cluster.

The sweeps of :mod:`gossipcert.tables.running` and the cubes of a split proof
(:mod:`gossipcert.search.cube_runs`) both hand out independent jobs and record the results in
the calling process as they arrive. This module is the one way both do it:

- :func:`local_map` runs a function on every item, in this process (one worker) or on a
  pool of ``spawn``-started processes that die with their parent, and stops at a deadline;
- :class:`DaskRunner` does the same on the Dask scheduler at an address
  (``pip install "gossipcert[dask]"``).

Results are yielded as ``(index, result)`` in the order they finish, so a caller can store
each one at once and a killed run resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from gossipcert.errors import GossipcertError


def die_with_parent(parent: int | None = None) -> None:  # pragma: no cover - in workers
    """Process initializer: the process is killed when its parent dies (Linux).

    Parameters
    ----------
    parent : int, optional
        The parent's process id when it started the worker. A parent that died before this
        ran (a search killed at its time limit while the worker was starting) sends no
        signal, so then the worker exits at once instead of running on as an orphan.
    """
    import ctypes
    import os
    import signal

    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def local_map(
    func: Callable[[Any], Any],
    items: list[Any],
    workers: int,
    deadline: float | None = None,
) -> Iterator[tuple[int, Any]]:
    """Run ``func`` on every item; yield ``(index, result)`` as the items finish.

    Parameters
    ----------
    func : callable
        A module-level function (it is pickled to ``spawn``-started workers).
    items : list
        Its arguments, one call each.
    workers : int
        Worker processes; ``1`` or less runs the items one after another in this process.
    deadline : float, optional
        A :func:`time.monotonic` value: no item starts after it, and workers still running
        then are killed.

    Yields
    ------
    tuple
        ``(index into items, func(item))``.

    Examples
    --------
    >>> sorted(local_map(abs, [-2, 3], workers=1))
    [(0, 2), (1, 3)]
    """
    if workers <= 1:
        for i, item in enumerate(items):
            if deadline is not None and time.monotonic() >= deadline:
                return
            yield i, func(item)
        return
    import multiprocessing
    import os
    from concurrent.futures import Future, ProcessPoolExecutor, as_completed
    from concurrent.futures import TimeoutError as FuturesTimeout

    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=die_with_parent, initargs=(os.getpid(),)
    )
    try:
        futures: dict[Future[Any], int] = {
            pool.submit(func, item): i for i, item in enumerate(items)
        }
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            for fut in as_completed(futures, timeout=left):
                yield futures[fut], fut.result()
        except FuturesTimeout:
            return
    finally:
        # on a deadline, an interruption or an error: drop the queued items, stop the running
        procs = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.kill()


class DaskRunner:
    """Runs jobs on the Dask scheduler at ``address``; ``workers`` is the number of worker
    threads of the cluster once connected (for progress bars).

    Raises
    ------
    GossipcertError
        Dask is not installed (``pip install "gossipcert[dask]"``) or the scheduler cannot
        be reached.
    """

    def __init__(self, address: str) -> None:
        self.address = address
        self.workers: int | None = None
        self.client: Any = None

    def connect(self) -> None:
        """Connect to the scheduler (done by the first :meth:`map` if not before)."""
        try:
            from dask.distributed import Client
        except ImportError:
            raise GossipcertError(
                '--scheduler needs Dask: pip install "gossipcert[dask]"'
            ) from None
        try:
            self.client = Client(self.address, timeout=10)
        except (OSError, TimeoutError, ValueError) as exc:  # unreachable, or a bad address
            raise GossipcertError(
                f"cannot reach the Dask scheduler at {self.address}: {exc}"
            ) from None
        self.workers = sum(self.client.nthreads().values()) or None

    def map(
        self, func: Callable[[Any], Any], items: list[Any], deadline: float | None = None
    ) -> Iterator[tuple[int, Any]]:
        """Run ``func`` on every item on the cluster; yield ``(index, result)`` as they
        arrive, until ``deadline`` (a ``time.monotonic()`` value; the rest is cancelled)."""
        if self.client is None:
            self.connect()
        from dask.distributed import as_completed as dask_completed

        futures = self.client.map(func, items, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            for fut in dask_completed(futures, timeout=left):
                yield index[fut.key], fut.result()
        except TimeoutError:
            return
        finally:
            self.client.cancel(futures)

    def close(self) -> None:
        """Disconnect from the scheduler."""
        if self.client is not None:
            self.client.close()
            self.client = None
