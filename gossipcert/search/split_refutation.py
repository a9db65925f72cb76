"""Proving "``R`` rounds are impossible" by cubes: the split planned, its cubes refuted (those
already in the cube store re-checked and kept), the cover proved where it needs a proof, and
the ``drat-cubes`` evidence assembled (re-checked by :mod:`gossipcert.certificates.split`).

The formula, the cubes and the argument that they cover it are :mod:`gossipcert.search.cubes`;
the plans :mod:`gossipcert.search.cube_plans`; the runners and the cube store
:mod:`gossipcert.search.cube_runs`.

References
----------
.. [1] M. J. H. Heule, O. Kullmann, S. Wieringa, A. Biere, "Cube and conquer: guiding CDCL
   SAT solvers by lookaheads", HVC 2011.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gossipcert.encodings import REGISTRY, EncodingOptions
from gossipcert.errors import SolverError, UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.search.cube_plans import STRICT_NODES, orbit_plan, strict_plan
from gossipcert.search.cube_runs import CubeStore, dask_runner_for, local_runner
from gossipcert.search.cubes import (
    Base,
    Cube,
    base_formula,
    base_options,
    check_refutation,
    cube_literals,
    cubes_digest,
    refute_cnf,
)
from gossipcert.statuses import QueryStatus, Verdict

Progress = Callable[[dict[str, Any]], None]


@dataclass
class SplitOutcome:
    """What a split found: ``unsat`` (with evidence), ``sat`` (a schedule), ``unknown``."""

    status: QueryStatus
    evidence: dict[str, Any] | None = None
    schedule: Schedule | None = None
    refuted: int = 0
    cubes: int = 0
    seconds: float = 0.0


def _stored_refutation_holds(base: Base, cube: Cube, record: dict[str, Any]) -> bool:
    """Whether a refutation read back from the cube store is one the checkers verify now
    (a stored file may be corrupted or edited: such a cube is solved again)."""
    if record.get("status") != QueryStatus.UNSAT or "proof_xz_base64" not in record:
        return False
    cnf = base.with_units(cube_literals(base.index, cube))
    ok, _ = check_refutation(cube.describe(), cnf, record["proof_xz_base64"])
    return ok is True


def check_split_applies(instance: Instance) -> None:
    """Refuse instances outside the split's argument: the orbit cover and the node colouring
    (:func:`~gossipcert.symmetry.automorphisms.node_cells`) are written for the knowledge encoding
    (the models that have one, telephone and half-duplex, with unbounded packets and no
    limit on calls: :data:`gossipcert.encodings.REGISTRY`), which reads no capacities.

    Raises
    ------
    UnsupportedModelError
        For every other model.
    """
    model = instance.model
    knowledge = [kind for kind, (enc, _) in REGISTRY.items() if enc is not None]
    if (
        model.kind not in knowledge
        or model.packet_cap is not None
        or model.calls_per_round is not None
    ):
        raise UnsupportedModelError(
            f"--split covers {' and '.join(k.value for k in knowledge)} with unbounded "
            f"packets and no call limit, not {model.spec()}"
        )


def refute_by_cubes(
    instance: Instance,
    rounds: int,
    strict: bool = False,
    depth: int = 1,
    jobs: int = 1,
    scheduler: str | None = None,
    store: str | Path | None = None,
    deadline: float | None = None,
    progress: Progress | None = None,
    nodes: int = STRICT_NODES,
    options: EncodingOptions | None = None,
) -> SplitOutcome:
    """Prove that ``rounds`` rounds are impossible, cube by cube (the argument is
    :mod:`gossipcert.search.cubes`).

    Parameters
    ----------
    instance : Instance
        Telephone or half-duplex with unbounded packets (the knowledge encoding).
    rounds : int
    strict : bool
        Cover by a tautology proof instead of the orbit argument; the encoding without any
        rule that is not implied.
    depth : {1, 2}
        Orbit split: calls fixed per cube.
    jobs : int
        Local worker processes.
    scheduler : str, optional
        A Dask scheduler address; the cubes run there instead.
    store : path, optional
        Folder of refuted cubes (read first, written as cubes finish).
    deadline : float, optional
        A ``time.monotonic()`` value.
    progress : callable, optional
        Called with ``{"event": "cube", ...}`` per finished cube.
    nodes : int
        Strict split: nodes whose round-1 choice is fixed.
    options : EncodingOptions, optional
        The search's encoding options (``--counting``, ``--encoding``); by default those of
        a search with ``strict``. The rules that name nodes are dropped
        (:func:`~gossipcert.search.cubes.base_options`).

    Returns
    -------
    SplitOutcome

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> out = refute_by_cubes(parse_instance("ring:6", "telephone", "gossip"), 2)
    >>> out.status.value, out.evidence["kind"], out.refuted == out.cubes
    ('unsat', 'drat-cubes', True)
    """
    check_split_applies(instance)
    t0 = time.monotonic()
    options = base_options(strict, options)
    base = base_formula(instance, rounds, options)
    sha = base.cnf.sha256()
    if strict:
        cubes, coverage = strict_plan(instance, base, nodes), {"kind": "tautology"}
    else:
        cubes, coverage = orbit_plan(instance, base, depth)
    shelf = None if store is None else CubeStore(store)
    records = _stored(base, cubes, shelf, sha)
    todo = [i for i in range(len(cubes)) if i not in records]

    def emit(event: dict[str, Any]) -> None:
        if progress is not None:
            progress({**event, "rounds": rounds, "cubes": len(cubes), "refuted": len(records)})

    emit({"event": "split", "stored": len(records), "coverage": coverage["kind"]})
    work = _work(instance, rounds, options, [cubes[i] for i in todo], deadline)
    run = local_runner if scheduler is None else dask_runner_for(scheduler)
    found: Schedule | None = None
    for j, rec in run(work, jobs, deadline):
        i = todo[j]
        if rec["status"] == QueryStatus.SAT:
            found = rec["schedule"]
            break
        if rec["status"] == Verdict.REJECTED:
            raise SolverError(f"the DRAT proof of cube {cubes[i].describe()} was rejected")
        if rec["status"] != QueryStatus.UNSAT:
            continue  # no verdict in time; the split stays open
        records[i] = rec
        if shelf is not None:
            shelf.put(sha, rec)
        emit({"event": "cube", "cube": cubes[i].describe(), "seconds": rec["seconds"]})
    out = SplitOutcome(QueryStatus.UNKNOWN, refuted=len(records), cubes=len(cubes))
    if found is not None:
        out.status, out.schedule = QueryStatus.SAT, found
    elif len(records) == len(cubes):
        if coverage["kind"] == "tautology":
            coverage = _tautology(base, cubes, deadline)
        if coverage:
            out.status = QueryStatus.UNSAT
            out.evidence = _evidence(base, cubes, records, coverage)
    out.seconds = time.monotonic() - t0
    return out


def _work(
    instance: Instance,
    rounds: int,
    options: EncodingOptions,
    cubes: list[Cube],
    deadline: float | None,
) -> list[dict[str, Any]]:
    """One job per cube for the runners (:mod:`gossipcert.search.cube_runs`), each with the
    seconds left before ``deadline``."""
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    return [
        {
            "instance": instance,
            "rounds": rounds,
            "options": options.to_json(),
            "cube": cube.to_json(),
            "seconds": remaining,
        }
        for cube in cubes
    ]


def _stored(
    base: Base, cubes: list[Cube], shelf: CubeStore | None, sha: str
) -> dict[int, dict[str, Any]]:
    """The cubes (by index) whose refutation the store holds and that still holds."""
    records: dict[int, dict[str, Any]] = {}
    for i, cube in enumerate(cubes):
        old = None if shelf is None else shelf.get(sha, cube)
        if old is not None and _stored_refutation_holds(base, cube, old):
            records[i] = {k: v for k, v in old.items() if k != "cnf_sha256"}
    return records


def _tautology(base: Base, cubes: list[Cube], deadline: float | None) -> dict[str, Any]:
    """The strict split's coverage: a checked proof that the cubes' negations are
    unsatisfiable with the formula (every schedule is in some cube); empty if none."""
    left = None if deadline is None else max(0.0, deadline - time.monotonic())
    clauses = [[-lit for lit in cube_literals(base.index, c)] for c in cubes]
    cov = refute_cnf(base.with_clauses(clauses), left)
    return {"kind": "tautology", **cov} if cov["status"] == QueryStatus.UNSAT else {}


def _evidence(
    base: Base, cubes: list[Cube], records: dict[int, dict[str, Any]], coverage: dict[str, Any]
) -> dict[str, Any]:
    keep = ("proof_lines", "proof_xz_base64", "checkers", "seconds", "solve_seconds")
    coverage = {k: v for k, v in coverage.items() if k not in ("status", "summary")}
    coverage["cubes_sha256"] = cubes_digest(cubes)
    return {
        "kind": "drat-cubes",
        "rounds": base.cnf.rounds,
        "encoding": base.cnf.options.to_json(),
        "cnf_sha256": base.cnf.sha256(),
        "variables": base.cnf.nvars,
        "clauses": len(base.cnf.clauses),
        "proof_solver": "CaDiCaL 1.9.5 (PySAT)",
        "coverage": coverage,
        "cubes": [
            {**cubes[i].to_json(), **{k: records[i][k] for k in keep if k in records[i]}}
            for i in range(len(cubes))
        ],
    }
