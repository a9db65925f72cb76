"""Planning and running a sweep: the tasks the store does not answer, run on a local process
pool or a Dask cluster, each result recorded as it arrives.

Results go to a :class:`gossipcert.store.Store` as each instance finishes, keyed by the
instance's canonical form; a rerun takes from the store every certified answer (and every
uncertified one found with at least the same time limit), so a killed sweep resumes where it
stopped and a finished sweep is rebuilt without solving anything. Only the calling process
writes to the store; the workers (a local process pool, or a Dask cluster) compute and return
(:func:`gossipcert.tables.evaluation.evaluate`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from gossipcert.instance import Instance
from gossipcert.parallel import DaskRunner, local_map
from gossipcert.statuses import SolveStatus
from gossipcert.store import Store, entry_stem
from gossipcert.tables.evaluation import Task, evaluate
from gossipcert.tables.sweeps import Sweep, spec_key


def _reusable(outcome: dict[str, Any] | None, time_limit: float | None) -> bool:
    """A stored outcome answers the question: certified, or not certified with at least
    as much time as this run would give."""
    if not outcome:
        return False
    if outcome.get("status") == SolveStatus.OPTIMAL:
        return True
    if outcome.get("status") == "error":
        return False
    old = outcome.get("time_limit")
    old_t = math.inf if old is None else float(old)
    new_t = math.inf if time_limit is None else time_limit
    return old_t >= new_t


def plan(sweep: Sweep, store: Store) -> list[Task]:
    """The tasks still to run: instances without a row, and one solve per canonical key
    without a reusable outcome."""
    tasks: list[Task] = []
    solving: set[str] = set()
    for (g, m, p), key in zip(sweep.specs, sweep.keys, strict=True):
        entry = store.get(key) or {}
        need_solve = not _reusable(entry.get("outcome"), sweep.time_limit) and key not in solving
        spec_id = spec_key(g, m, p)
        if need_solve:
            solving.add(key)
        if need_solve or spec_id not in entry.get("rows", {}):
            tasks.append(Task(g, m, p, need_solve, sweep.time_limit, sweep.backend))
    return tasks


def record(store: Store, instance: Instance, key: str, result: dict[str, Any]) -> None:
    """Merge one worker result into its store entry (certificate first, then the entry)."""
    entry = store.get(key) or {}
    rows = dict(entry.get("rows", {}))
    rows[result["spec_id"]] = result["row"]
    new = {k: v for k, v in entry.items() if k not in ("format", "key", "rows")}
    new["rows"] = rows
    if result["outcome"] is not None:
        new["outcome"] = result["outcome"]
        new.pop("certificate", None)
    store.put(key, entry_stem(instance, key), new, result["certificate"])


Runner = Callable[[list[Task], int], Iterator[tuple[Task, dict[str, Any]]]]


def _local_runner(tasks: list[Task], jobs: int) -> Iterator[tuple[Task, dict[str, Any]]]:
    for i, result in local_map(evaluate, tasks, jobs):
        yield tasks[i], result


class SweepDaskRunner(DaskRunner):
    """A sweep's runner on the Dask scheduler at ``address``: each task is evaluated on the
    cluster (see :class:`gossipcert.parallel.DaskRunner`)."""

    def __call__(self, tasks: list[Task], jobs: int) -> Iterator[tuple[Task, dict[str, Any]]]:
        """Submit every task and yield the results as they arrive; then disconnect."""
        del jobs  # the cluster's workers decide
        try:
            for i, result in self.map(evaluate, tasks):
                yield tasks[i], result
        finally:
            self.close()


def dask_runner(address: str) -> SweepDaskRunner:
    """A runner that sends the tasks to the Dask scheduler at ``address``, connected
    (see :class:`SweepDaskRunner`)."""
    runner = SweepDaskRunner(address)
    runner.connect()
    return runner


class SweepProgress:
    """A progress bar on standard error: instances done, running, left, and time."""

    def __init__(self, total: int, workers: int | Callable[[], int], enabled: bool = True) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.total = total
        self.workers = workers
        self.done = 0
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("running {task.fields[running]} · left {task.fields[left]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            disable=not enabled,
            transient=False,
        )
        running, left = self._counts()
        self.task = self.progress.add_task("sweep", total=total, running=running, left=left)

    def _counts(self) -> tuple[int, int]:
        """The instances running now and those left to start."""
        workers = self.workers() if callable(self.workers) else self.workers
        running = min(max(1, workers), self.total - self.done)
        return running, self.total - self.done - running

    def __enter__(self) -> SweepProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def advance(self, description: str) -> None:
        """One more instance done."""
        self.done += 1
        running, left = self._counts()
        self.progress.update(
            self.task, advance=1, description=description, running=running, left=left
        )


def run_sweep(
    sweep: Sweep,
    jobs: int = 1,
    runner: Runner | None = None,
    progress: bool = True,
) -> dict[str, int]:
    """Run what the store does not already answer; record each result as it arrives.

    Parameters
    ----------
    sweep : Sweep
    jobs : int
        Worker processes of the local pool (1: in this process).
    runner : callable, optional
        How to run tasks (default: the local pool; see :func:`dask_runner`).
    progress : bool
        Show a progress bar on standard error.

    Returns
    -------
    dict
        ``{"instances", "tasks", "solved"}``: how many instances, how many were run, and how
        many of those ran the exact search.
    """
    store = Store(sweep.store)
    tasks = plan(sweep, store)
    where = {s: i for i, s in enumerate(sweep.specs)}
    run = runner or _local_runner
    workers = lambda: getattr(run, "workers", None) or jobs  # noqa: E731
    with SweepProgress(len(tasks), workers, progress and bool(tasks)) as bar:
        for task, result in run(tasks, jobs):
            i = where[(task.graph, task.model, task.problem)]
            record(store, sweep.instances[i], sweep.keys[i], result)
            bar.advance(f"{task.graph} · {task.model} · {task.problem}")
    return {
        "instances": len(sweep.specs),
        "tasks": len(tasks),
        "solved": sum(t.solve for t in tasks),
    }
