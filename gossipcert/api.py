"""The Python face of gossipcert: :func:`solve`, :func:`verify`, :func:`bounds`,
:func:`check` and :func:`table`, re-exported as ``gossipcert.solve`` and so on; and for other
tools' algorithms :func:`~gossipcert.formats.verdict.verify_algorithm` (an MSCCL XML, SCCL or
TE-CCL file in, the verdict and the gap to the certified optimum out),
:func:`~gossipcert.formats.teccl_verdict.judge_teccl` (a TE-CCL schedule replayed in TE-CCL's
own epoch model, and its optimality claim confirmed, refuted or bracketed) and the writers
:func:`~gossipcert.formats.writers.msccl_xml_from_schedule` and
:func:`~gossipcert.formats.writers.sccl_json_from_schedule`.

A graph is given as a networkx graph with any hashable node names (kept in the results), a
spec string (``"petersen"``, ``"ccc:3"``, ``"ring:3*path:2"``) or a graph file's path; a
model and a problem as spec strings (``"telephone"``, ``"all-port:c=2"``; ``"gossip"``,
``"broadcast:0"``, ``"total-exchange:chunks=2"``). Bad input raises the project's own
exceptions (subclasses of :class:`gossipcert.errors.GossipcertError`) with a one-line
message. Progress goes to the ``logging`` logger ``"gossipcert"`` (bounds, queries and
proofs at INFO, heartbeats at DEBUG) and to an optional ``progress`` callback.

Examples
--------
>>> import networkx as nx
>>> import gossipcert
>>> G = nx.cycle_graph(["a", "b", "c", "d", "e"])
>>> res = gossipcert.solve(G, "telephone", "gossip")
>>> res.status, res.optimum, res.lower_evidence["kind"]
(<SolveStatus.OPTIMAL: 'optimal'>, 4, 'closed-form')
>>> gossipcert.verify(G, res.schedule, "telephone", "gossip").ok
True
>>> sorted({sender for rnd in res.named_rounds() for sender, _, _ in rnd})
['a', 'b', 'c', 'd', 'e']
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, TypeAlias

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms import all_bounds
from gossipcert.errors import GossipcertError
from gossipcert.formats.teccl_verdict import TecclJudgement, judge_teccl
from gossipcert.formats.verdict import Verdict, verify_algorithm
from gossipcert.formats.writers import msccl_xml_from_schedule, sccl_json_from_schedule
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import (
    Instance,
    Model,
    Problem,
    make_instance,
    parse_model,
    parse_problem,
)
from gossipcert.result import BoundsResult, Result, SolveStatus
from gossipcert.schedule import Schedule, from_json, read_schedule
from gossipcert.simulate import Report, simulate

__all__ = [
    "BoundsResult",
    "Result",
    "SolveStatus",
    "TecclJudgement",
    "Verdict",
    "as_instance",
    "bounds",
    "check",
    "judge_teccl",
    "msccl_xml_from_schedule",
    "sccl_json_from_schedule",
    "solve",
    "table",
    "upgrade",
    "verify",
    "verify_algorithm",
]

#: the logger every library call reports its progress to
logger = logging.getLogger("gossipcert")

#: a graph as the API takes it: a networkx graph, a spec string or a file's path
GraphLike: TypeAlias = nx.Graph | str | os.PathLike[str]


def as_instance(
    G: GraphLike,  # noqa: N803  (networkx's name for a graph)
    model: str | Model = "telephone",
    problem: str | Problem = "gossip",
) -> Instance:
    """Bind a graph, a model and a problem into an :class:`~gossipcert.instance.Instance`.

    Parameters
    ----------
    G : networkx.Graph, str or path
        A networkx graph (any hashable node names), a graph spec or a graph file.
    model : str or Model
        A model spec such as ``"telephone"``, ``"single-port:p=1"`` or ``"all-port"``.
    problem : str or Problem
        A problem spec such as ``"gossip"``, ``"broadcast:0"`` (a node's name or index) or
        ``"total-exchange:chunks=2"``.

    Returns
    -------
    Instance

    Raises
    ------
    GraphError, SpecError, InstanceError
        A graph gossipcert cannot use (directed, self-loops, disconnected, empty), an
        unknown spec, or a demand that can never be met.

    Examples
    --------
    >>> as_instance("ring:6", "half-duplex", "broadcast:0").graph.number_of_nodes()
    6
    """
    if isinstance(G, nx.Graph):
        graph = from_networkx(G)
    elif isinstance(G, str | os.PathLike):
        graph = graphs.from_spec(os.fspath(G))
    else:
        raise GossipcertError(
            f"a graph is a networkx graph, a spec string or a file path, not {type(G).__name__}"
        )
    m = model if isinstance(model, Model) else parse_model(str(model))
    p = problem if isinstance(problem, Problem) else parse_problem(str(problem))
    return make_instance(graph, m, p)


def _log_event(event: dict[str, Any]) -> None:
    level = logging.DEBUG if event.get("event") == "heartbeat" else logging.INFO
    if logger.isEnabledFor(level):
        fields = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("event", "schedule"))
        logger.log(level, "%s %s", event.get("event"), fields)


def solve(
    G: GraphLike,  # noqa: N803  (networkx's name for a graph)
    model: str | Model = "telephone",
    problem: str | Problem = "gossip",
    *,
    time_limit: float | None = None,
    backend: str = "sat",
    strict: bool = False,
    proof: bool = True,
    encoding: str = "auto",
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> Result:
    """The least number of rounds that solves the problem on the graph under the model,
    with its evidence.

    The lower bound comes from the closed-form bounds or from solver refutations whose
    DRAT proofs are checked by two independent checkers; the schedule from constructions,
    heuristics or the solver, replayed by the verifier. With a time limit the search runs
    in a child process killed at the limit, so the limit holds; the answer is then the best
    bracket (``FEASIBLE`` or ``UNKNOWN``), never a guess.

    Parameters
    ----------
    G : networkx.Graph, str or path
        The network (see :func:`as_instance`).
    model, problem : str
        Spec strings (see :func:`as_instance`).
    time_limit : float, optional
        Seconds; None runs until the optimum is certified.
    backend : {"sat", "cpsat"}
        PySAT (with DRAT proofs) or OR-Tools CP-SAT (its refutations are the solver's word).
    strict : bool
        No symmetry breaking or dominance rules, so that a DRAT proof covers everything.
    proof : bool
        Prove the final refutation with a checked DRAT proof (off: the solver's word).
    encoding : {"auto", "broadcast", "knowledge", "tree"}
        The time-expanded model (``auto`` picks the best one that applies).
    progress : callable, optional
        Receives each progress event (a dict with an ``"event"`` key) as it happens.

    Returns
    -------
    Result

    Raises
    ------
    GossipcertError
        Bad input (see :func:`as_instance`), or a model no encoding covers.

    Examples
    --------
    >>> res = solve("petersen", "telephone", "broadcast:0", time_limit=60)
    >>> res.status.value, res.optimum, res.certified
    ('optimal', 4, True)

    References
    ----------
    .. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping".
    """
    from gossipcert.command_start import limits_from_now
    from gossipcert.search.watchdog import solve_within

    instance = as_instance(G, model, problem)

    def report(event: dict[str, Any]) -> None:
        _log_event(event)
        if progress is not None:
            progress(event)

    with limits_from_now():
        res = solve_within(
            instance,
            backend=backend,
            time_limit=time_limit,
            strict=strict,
            proof=proof,
            encoding=encoding,
            progress=report,
        )
    return Result.from_search(res)


def verify(
    G: GraphLike,  # noqa: N803  (networkx's name for a graph)
    schedule: Schedule | str | os.PathLike[str] | dict[str, Any] | list[Any],
    model: str | Model = "telephone",
    problem: str | Problem = "gossip",
) -> Report:
    """Replay a schedule under the model's rules and say whether it solves the problem.

    Parameters
    ----------
    G : networkx.Graph, str or path
        The network (see :func:`as_instance`).
    schedule : Schedule, path, dict or list
        A :class:`~gossipcert.schedule.Schedule`, a schedule file (``.json`` or ``.csv``),
        or the JSON content of one (``{"rounds": [...]}`` or the list of rounds), naming
        nodes as the graph does.
    model, problem : str
        Spec strings.

    Returns
    -------
    Report
        ``ok`` (valid and complete), ``errors`` (every violation, with its round, nodes and
        rule), ``unmet`` demands, ``rounds`` (after which every demand is met).

    Examples
    --------
    >>> rep = verify("path:3", {"rounds": [[{"from": 0, "to": [1], "packets": "all"}]]},
    ...              "telephone", "broadcast:0")
    >>> rep.valid, rep.complete, len(rep.unmet)
    (True, False, 1)
    """
    instance = as_instance(G, model, problem)
    if isinstance(schedule, Schedule):
        sched = schedule
    elif isinstance(schedule, str | os.PathLike):
        sched = read_schedule(os.fspath(schedule), instance)
    else:
        sched = from_json(schedule, instance)
    return simulate(instance, sched)


def bounds(
    G: GraphLike,  # noqa: N803  (networkx's name for a graph)
    model: str | Model = "telephone",
    problem: str | Problem = "gossip",
) -> BoundsResult:
    """Every closed-form lower and upper bound that applies, each with its source.

    Parameters
    ----------
    G : networkx.Graph, str or path
        The network (see :func:`as_instance`).
    model, problem : str
        Spec strings.

    Returns
    -------
    BoundsResult

    Examples
    --------
    >>> b = bounds("hypercube:4", "telephone", "gossip")
    >>> b.lower.value, b.upper.value
    (4, 4)
    """
    found = all_bounds(as_instance(G, model, problem))
    lows = [b for b in found if b.kind == "lower"]
    ups = [b for b in found if b.kind == "upper"]
    return BoundsResult(
        max(lows, key=lambda b: b.value) if lows else None,
        min(ups, key=lambda b: b.value) if ups else None,
        found,
    )


def check(
    certificate: str | os.PathLike[str] | dict[str, Any],
    *,
    time_limit: float | None = None,
    full: bool = False,
) -> Any:
    """Re-check a certificate from scratch: rebuild the instance, replay the schedule,
    re-derive the lower bound (re-evaluate the closed form, re-check the proofs).

    Parameters
    ----------
    certificate : path or dict
        A certificate file written by ``solve -o`` or :meth:`Result.write_certificate`, or
        its content.
    time_limit : float, optional
        Seconds; a check cut short gives no verdict (never a failure).
    full : bool
        Check every stored proof step, not only the deciding one.

    Returns
    -------
    CheckReport
        ``ok`` (True holds, False fails, None no verdict in time) and ``steps``.

    Examples
    --------
    >>> cert = solve("ring:5", "telephone", "gossip").certificate()
    >>> check(cert).ok
    True
    """
    from gossipcert.certificates.certificate import read_certificate
    from gossipcert.command_start import limits_from_now
    from gossipcert.search.watchdog import check_within

    cert = (
        certificate if isinstance(certificate, dict) else read_certificate(os.fspath(certificate))
    )
    with limits_from_now():
        return check_within(cert, time_limit, full)


def upgrade(
    certificate: str | os.PathLike[str] | dict[str, Any],
    *,
    time_limit: float | None = None,
) -> tuple[Any, dict[str, Any] | None]:
    """Re-check a certificate as :func:`check` does, proving each stored DRAT refutation
    again with a trimmed LRAT proof that takes its place.

    Certificates written before LRAT store DRAT proofs, whose checks search for every
    lemma's justification; the LRAT proof names them, so later checks are fast. The new
    proof refutes the same CNF (``check`` regenerates it and compares its hash first) and is
    verified by gossipcert-lrat and minisat-hints before it is stored. A refutation not
    proved again within ``time_limit`` keeps its DRAT proof (checked as usual).

    Parameters
    ----------
    certificate : path or dict
        A certificate file, or its content (not changed: the upgrade is a copy).
    time_limit : float, optional
        Seconds; a check cut short gives no verdict and no certificate.

    Returns
    -------
    (CheckReport, dict or None)
        The check's report, and the upgraded certificate when it holds (None otherwise);
        write it with :func:`gossipcert.store.certificate_text`.

    Examples
    --------
    >>> import json, pathlib
    >>> old = json.loads(pathlib.Path("results/store/half-duplex_gossip_n5_18ae0b23b971d93c"
    ...     ".cert.json").read_text())  # doctest: +SKIP
    >>> report, new = upgrade(old)  # doctest: +SKIP
    >>> report.ok, new["evidence"]["proof_format"]  # doctest: +SKIP
    (True, 'lrat')
    """
    import copy

    from gossipcert.certificates.certificate import read_certificate
    from gossipcert.command_start import limits_from_now
    from gossipcert.search.watchdog import upgrade_within

    cert = copy.deepcopy(
        certificate if isinstance(certificate, dict) else read_certificate(os.fspath(certificate))
    )
    with limits_from_now():
        report, upgraded = upgrade_within(cert, time_limit)
    return report, upgraded if report.ok else None


def table(
    sweep: str | os.PathLike[str],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    progress: bool = False,
) -> Any:
    """Run a sweep (a TOML file of graph families, models and problems) and return its
    table: one row per instance with the bounds, constructions, heuristic and certified
    optimum. Results already in the sweep's store are reused, so a stopped sweep resumes.

    Parameters
    ----------
    sweep : path
        The sweep file (see ``results/*.toml``).
    jobs : int
        Local worker processes.
    scheduler : str, optional
        A Dask scheduler's address, to run the instances on a cluster instead.
    progress : bool
        Show a progress bar on standard error.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> df = table("results/bermond.toml")  # doctest: +SKIP
    """
    from gossipcert.tables import dask_runner, read_sweep, run_sweep
    from gossipcert.tables import table as sweep_table

    spec = read_sweep(os.fspath(sweep))
    runner = dask_runner(scheduler) if scheduler else None
    run_sweep(spec, jobs=jobs, runner=runner, progress=progress)
    return sweep_table(spec)
