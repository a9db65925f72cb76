"""Running the cubes of a split: the worker's task (one cube's DRAT refutation, or the
schedule of a model), the runners that hand the cubes to a local process pool or a Dask
cluster (the mechanism of :mod:`gossipcert.tables.running`, through
:mod:`gossipcert.parallel`), and the store of refuted cubes, one small JSON file each, keyed
by the CNF's hash and the cube, so that an interrupted run solves only the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gossipcert.encodings import EncodingOptions
from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance
from gossipcert.parallel import DaskRunner, local_map
from gossipcert.search.cubes import Base, Cube, base_formula, cube_literals, refute_cnf
from gossipcert.statuses import QueryStatus

# ---------------------------------------------------------------------------- one cube

_BASES: dict[str, Base] = {}


def _base_cached(instance: Instance, rounds: int, options: EncodingOptions) -> Base:
    """Per process, the last few formulas (a worker solves many cubes of one formula)."""
    from gossipcert.store import instance_key

    tag = json.dumps([instance_key(instance), rounds, options.to_json()], sort_keys=True)
    if tag not in _BASES:
        if len(_BASES) > 2:
            _BASES.clear()
        _BASES[tag] = base_formula(instance, rounds, options)
    return _BASES[tag]


def solve_cube(job: dict[str, Any]) -> dict[str, Any]:
    """Worker task: refute one cube (``job``: instance, rounds, options, cube, seconds).

    Returns the cube's record (see :func:`~gossipcert.search.cubes.refute_cnf`) with
    ``"cube"`` added; for a model, the schedule it encodes (unverified: the caller verifies
    it).
    """
    inst: Instance = job["instance"]
    options = EncodingOptions(**job["options"])
    base = _base_cached(inst, job["rounds"], options)
    cube = Cube.from_json(job["cube"])
    rec = refute_cnf(base.with_units(cube_literals(base.index, cube)), job["seconds"])
    if rec["status"] == QueryStatus.SAT:
        model = set(rec.pop("model"))
        rec["schedule"] = base.encoding.decode(job["rounds"], lambda v: v in model)
    return {"cube": cube.to_json(), **rec}


# ---------------------------------------------------------------------------- runners


def local_runner(jobs: list[dict[str, Any]], workers: int, deadline: float | None) -> Iterator:
    """Yield ``(i, record)`` as the cubes finish, on a local process pool (``workers > 1``)
    or in this process. Stops at ``deadline``; the unfinished workers are killed (see
    :func:`gossipcert.parallel.local_map`)."""
    return local_map(solve_cube, jobs, workers, deadline)


def dask_runner_for(address: str) -> Callable[..., Iterator]:
    """A runner sending the cubes to the Dask scheduler at ``address`` (see
    :class:`gossipcert.parallel.DaskRunner`)."""

    def run(jobs: list[dict[str, Any]], workers: int, deadline: float | None) -> Iterator:
        del workers
        runner = DaskRunner(address)
        try:
            yield from runner.map(solve_cube, jobs, deadline)
        finally:
            runner.close()

    return run


# ---------------------------------------------------------------------------- store


class CubeStore:
    """Refuted cubes, one JSON file each: ``<cnf sha256[:16]>-<cube id>.json``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GossipcertError(f"cannot create cube store {root}: {exc}") from None

    def _path(self, sha: str, cube: Cube) -> Path:
        return self.root / f"{sha[:16]}-{cube.ident()}.json"

    def get(self, sha: str, cube: Cube) -> dict[str, Any] | None:
        """The stored refutation of ``cube`` for the CNF ``sha``, or None."""
        path = self._path(sha, cube)
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            return None
        if data.get("cnf_sha256") != sha or data.get("cube") != cube.to_json():
            return None
        return data if data.get("status") == QueryStatus.UNSAT else None

    def put(self, sha: str, record: dict[str, Any]) -> None:
        """Store a refuted cube (atomically)."""
        from gossipcert.store import atomic_write

        cube = Cube.from_json(record["cube"])
        atomic_write(self._path(sha, cube), json.dumps({**record, "cnf_sha256": sha}) + "\n")
