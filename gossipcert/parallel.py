"""Independent jobs in parallel: a local process pool or a Dask distributed cluster.

The sweeps of :mod:`gossipcert.tables.running` and the cubes of a split proof
(:mod:`gossipcert.search.cube_runs`) both hand out independent jobs and record the results in
the calling process as they arrive. This module is the one way both do it:

- :func:`local_map` runs a function on every item, in this process (one worker) or each in
  a forked child (:class:`gossipcert.children.Child`: it dies with its parent), at most
  ``workers`` at a time, and stops at a deadline;
- :class:`DaskRunner` does the same on the Dask scheduler at an address
  (``pip install "gossipcert[dask]"``), on workers that are not daemonic.

Results are yielded as ``(index, result)`` in the order they finish, so a caller can store
each one at once and a killed run resumes where it stopped.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator
from typing import Any

from gossipcert.children import DASK_SETTING, Child, keep_to_one_core, ready
from gossipcert.errors import GossipcertError


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
        Any function (the children are forked; only results are pickled).
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
    pending = list(enumerate(items))
    running: dict[Child, int] = {}
    answered: set[Child] = set()
    try:
        while pending or running:
            while pending and len(running) < workers:
                if deadline is not None and time.monotonic() >= deadline:
                    pending.clear()
                    break
                i, item = pending.pop(0)
                running[Child(_apply, (func, item), keep_to_one_core)] = i
            if not running or (deadline is not None and time.monotonic() >= deadline):
                return
            for child in ready(running, deadline):
                for kind, value in child.read():
                    if kind == "error":
                        raise value
                    if kind == "interrupted":
                        raise KeyboardInterrupt
                    if kind == "result":
                        answered.add(child)
                        yield running[child], value
                if child.done:
                    running.pop(child)
                    child.reap()
                    if child not in answered:
                        raise GossipcertError(
                            "a worker process ended without an answer (killed by the system, "
                            "e.g. out of memory, or a crash in a native solver)"
                        )
    finally:
        # on a deadline, an interruption or an error: stop the running items
        for child in running:
            child.reap()


def _apply(send: Any, func: Callable[[Any], Any], item: Any) -> Any:  # pragma: no cover
    """In a worker child: ``func(item)``."""
    return func(item)


class DaskRunner:
    """Runs jobs on the Dask scheduler at ``address``; ``workers`` is the number of worker
    threads of the cluster once connected (for progress bars).

    Raises
    ------
    GossipcertError
        Dask is not installed (``pip install "gossipcert[dask]"``), the scheduler cannot
        be reached, or its workers are daemonic processes.
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
        found = self.client.run(lambda: multiprocessing.current_process().daemon)
        if any(found.values()):  # their tasks could not start the children they need
            self.close()
            raise GossipcertError(f"the Dask workers are daemonic processes: {DASK_SETTING}")

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
