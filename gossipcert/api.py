"""The Python face of gossipcert: :func:`solve`, :func:`verify`, :func:`bounds`,
:func:`check` and :func:`table`, re-exported as ``gossipcert.solve`` and so on; and for other
tools' algorithms :func:`~gossipcert.formats.verdict.verify_algorithm` (an MSCCL XML, MSCCL++
execution plan, SCCL or TE-CCL file in, the verdict and the gap to the certified optimum out),
:func:`~gossipcert.formats.time_verdict.time_algorithm` (the same file's time at message
sizes on a machine with real links, beside a certified lower bound),
:func:`~gossipcert.formats.teccl_verdict.judge_teccl` (a TE-CCL schedule replayed in TE-CCL's
own epoch model, and its optimality claim confirmed, refuted or bracketed) and the writers
:func:`~gossipcert.formats.writers.msccl_xml_from_schedule`,
:func:`~gossipcert.formats.mscclpp_writer.mscclpp_plan_from_schedule` and
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
from gossipcert.certificates.certificate import CheckReport
from gossipcert.closed_forms import all_bounds
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.formats.mscclpp_writer import mscclpp_plan_from_schedule
from gossipcert.formats.teccl_verdict import TecclJudgement, judge_teccl
from gossipcert.formats.time_verdict import TimeReport, time_algorithm
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
from gossipcert.names import root_text, schedule_in_references
from gossipcert.result import BoundsResult, Result, SolveStatus
from gossipcert.schedule import (
    Schedule,
    from_json,
    load_schedule_file,
    schedule_from_file_data,
)
from gossipcert.simulate import Report, simulate

__all__ = [
    "BoundsResult",
    "CheckReport",
    "Report",
    "Result",
    "SolveStatus",
    "TecclJudgement",
    "TimeReport",
    "Verdict",
    "as_instance",
    "bounds",
    "check",
    "judge_teccl",
    "msccl_xml_from_schedule",
    "mscclpp_plan_from_schedule",
    "sccl_json_from_schedule",
    "solve",
    "table",
    "time_algorithm",
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
    *,
    root: Any = None,
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
    root : node, or list of nodes, optional
        The root of a rooted problem (``broadcast``, ``scatter``, ``gather``, ``reduce``)
        as the graph names it, whatever the name (``(1, 2)`` of a networkx grid or torus, a
        name with commas); the problem spec then names none (``"broadcast"``,
        ``"reduce:chunks=2"``). A list is the sources of a broadcast from several nodes. (In
        a spec, ``"scatter:(1, 2)"`` names one node too, but plain numbers separated by
        commas, ``"scatter:1,1"``, are several.)

    Returns
    -------
    Instance

    Raises
    ------
    GraphError, SpecError, InstanceError
        A graph gossipcert cannot use (directed, self-loops, disconnected, empty), an
        unknown spec or node, a root given twice (in the spec and as ``root``) or to a
        problem that has none, or a demand that can never be met.

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert import as_instance
    >>> as_instance("ring:6", "half-duplex", "broadcast:0").graph.number_of_nodes()
    6
    >>> torus = nx.grid_2d_graph(3, 3, periodic=True)
    >>> as_instance(torus, "half-duplex", "broadcast", root=(1, 2)).problem.spec()
    'broadcast:(1, 2)'
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
    if isinstance(problem, Problem):
        if root is not None:
            raise SpecError("root= goes with a problem spec string; this Problem has its own")
        p = problem
    else:
        p = parse_problem(str(problem), root=None if root is None else root_text(graph, root))
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
    root: Any = None,
    time_limit: float | None = None,
    backend: str = "sat",
    strict: bool = False,
    proof: bool = True,
    encoding: str = "auto",
    resume: str | os.PathLike[str] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> Result:
    """The least number of rounds that solves the problem on the graph under the model,
    with its evidence.

    The lower bound comes from the closed-form bounds or from solver refutations whose
    proofs (LRAT, or DRAT in certificates written before) are checked by two independent
    checkers; the schedule from constructions, heuristics or the solver, replayed by the
    verifier. The search runs in a child process: at the time limit it is killed, and on
    Ctrl-C (``KeyboardInterrupt``) it is stopped, and either way the answer is the bracket
    known at that moment (``FEASIBLE`` or ``UNKNOWN``, with ``timed_out`` or
    ``interrupted`` set), never a guess and never lost. :meth:`Result.write` keeps it in a
    file, from which ``resume=`` starts a later run. ``OPTIMAL`` needs a lower bound beyond
    the solver's word: with ``proof=False`` (or a proof cut short) bounds that meet give
    ``FEASIBLE`` with ``decided_by_solver`` (``docs/statuses.md``).

    Parameters
    ----------
    G : networkx.Graph, str or path
        The network (see :func:`as_instance`).
    model, problem : str
        Spec strings (see :func:`as_instance`).
    root : node, or list of nodes, optional
        The root of a rooted problem, as the graph names it (see :func:`as_instance`).
    time_limit : float, optional
        Seconds, a positive number; None runs until the optimum is certified. It counts
        from the call; the first call of a process that loads gossipcert's solvers on the
        way (``gossipcert.solve(...)``, the first name of ``gossipcert`` used) counts that
        loading too (seconds on a busy machine), as the command line counts its start-up.
    backend : {"sat", "cpsat"}
        PySAT (CaDiCaL, with checked LRAT proofs) or OR-Tools CP-SAT (the final refutation
        is then proved again by CaDiCaL).
    strict : bool
        No symmetry breaking or dominance rules, so that a proof covers everything.
    proof : bool
        Prove the final refutation with a checked LRAT proof (off: the solver's word, and the
        status ``FEASIBLE`` with ``decided_by_solver``).
    encoding : {"auto", "broadcast", "knowledge", "tree"}
        The time-expanded model (``auto`` picks the best one that applies).
    resume : path, optional
        A partial result (:meth:`Result.write_partial`, or ``solve -o`` on the command
        line), a certificate or a schedule file: its schedule, verified again, is the
        search's first upper bound (nothing else in it is trusted).
    progress : callable, optional
        Receives each progress event (a dict with an ``"event"`` key) as it happens.

    Returns
    -------
    Result
        ``interrupted`` is set when Ctrl-C stopped the search; ``timed_out`` when the time
        limit did.

    Raises
    ------
    GossipcertError
        Bad input (see :func:`as_instance`; a time limit that is not a positive number of
        seconds; a ``resume`` file whose schedule does not solve this instance), or a model
        no encoding covers.
    KeyboardInterrupt
        Ctrl-C before the search started (while the graph was read).

    Examples
    --------
    >>> from gossipcert import solve
    >>> res = solve("petersen", "telephone", "broadcast:0", time_limit=60)
    >>> res.status.value, res.optimum, res.certified
    ('optimal', 4, True)
    >>> solve("petersen", time_limit=-1)
    Traceback (most recent call last):
    ...
    gossipcert.errors.SpecError: time_limit must be a positive number of seconds or None, got -1

    References
    ----------
    .. [1] Beier, R. and Sibeyn, J. F., "A powerful heuristic for telephone gossiping".
    """
    from gossipcert.command_start import call_origin

    origin = call_origin()  # before the search's imports: the limit counts them
    from gossipcert.command_start import checked_time_limit

    time_limit = checked_time_limit(time_limit)
    instance = as_instance(G, model, problem, root=root)
    options = {"backend": backend, "strict": strict, "proof": proof, "encoding": encoding}
    return _search_from(origin, instance, time_limit, options, resume, progress)


def _search_from(
    origin: float,
    instance: Instance,
    time_limit: float | None,
    options: dict[str, Any],
    resume: str | os.PathLike[str] | None,
    progress: Callable[[dict[str, Any]], None] | None,
) -> Result:
    """:func:`solve`'s search, its time limit counted from ``origin``, with the ``backend``,
    ``strict``, ``proof`` and ``encoding`` in ``options``, from the schedule in ``resume``;
    each event is logged, then given to ``progress``."""
    from gossipcert.command_start import limits_from
    from gossipcert.watchdog import solve_within

    seeds = []
    if resume is not None:
        from gossipcert.certificates.partial import resume_seed

        seeds = resume_seed(os.fspath(resume), instance)

    def report(event: dict[str, Any]) -> None:
        _log_event(event)
        if progress is not None:
            progress(event)

    with limits_from(origin):
        res = solve_within(
            instance,
            time_limit=time_limit,
            progress=report,
            seeds=seeds,
            in_child=True,  # Ctrl-C answers at once from the child's last reported state
            **options,
        )
    return Result.from_search(res)


def verify(
    G: GraphLike,  # noqa: N803  (networkx's name for a graph)
    schedule: Schedule | str | os.PathLike[str] | dict[str, Any] | list[Any],
    model: str | Model = "telephone",
    problem: str | Problem = "gossip",
    *,
    root: Any = None,
) -> Report:
    """Replay a schedule under the model's rules and say whether it solves the problem.

    Parameters
    ----------
    G : networkx.Graph, str or path
        The network (see :func:`as_instance`).
    schedule : Schedule, path, dict or list
        A :class:`~gossipcert.schedule.Schedule`, a schedule file (``.json`` or ``.csv``),
        or the JSON content of one (``{"rounds": [...]}`` or the list of rounds), naming
        nodes and packets as the graph does: a networkx graph's own node objects (tuples
        such as ``(0, 1)``, or the lists JSON makes of them), or the nodes' labels or
        numbers.
    model, problem : str
        Spec strings.
    root : node, or list of nodes, optional
        The root of a rooted problem, as the graph names it (see :func:`as_instance`).

    Returns
    -------
    Report
        ``ok`` (valid and complete), ``errors`` (every violation, with its round, nodes and
        rule), ``unmet`` demands (:meth:`~gossipcert.simulate.Report.named_unmet`: in the
        graph's own names), ``rounds`` (after which every demand is met).

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert import verify
    >>> rep = verify("path:3", {"rounds": [[{"from": 0, "to": [1], "packets": "all"}]]},
    ...              "telephone", "broadcast:0")
    >>> rep.valid, rep.complete, rep.named_unmet()
    (True, False, [(2, 0)])
    >>> torus = nx.grid_2d_graph(3, 3, periodic=True)
    >>> first = [{"from": (0, 0), "to": [(0, 1)], "packets": "all"}]
    >>> rep = verify(torus, [first], "telephone", "broadcast", root=(0, 0))
    >>> rep.valid, len(rep.unmet), rep.named_unmet()[0]
    (True, 7, ((0, 2), (0, 0)))
    """
    instance = as_instance(G, model, problem, root=root)
    if isinstance(schedule, Schedule):
        sched = schedule
    elif isinstance(schedule, str | os.PathLike):
        path = os.fspath(schedule)
        data = load_schedule_file(path)
        if not path.lower().endswith(".csv"):  # JSON names tuples as lists
            data = schedule_in_references(instance, data)
        sched = schedule_from_file_data(path, data, instance)
    else:
        sched = from_json(schedule_in_references(instance, schedule), instance)
    return simulate(instance, sched)


def bounds(
    G: GraphLike,  # noqa: N803  (networkx's name for a graph)
    model: str | Model = "telephone",
    problem: str | Problem = "gossip",
    *,
    root: Any = None,
) -> BoundsResult:
    """Every closed-form lower and upper bound that applies, each with its source.

    Parameters
    ----------
    G : networkx.Graph, str or path
        The network (see :func:`as_instance`).
    model, problem : str
        Spec strings.
    root : node, or list of nodes, optional
        The root of a rooted problem, as the graph names it (see :func:`as_instance`).

    Returns
    -------
    BoundsResult

    Examples
    --------
    >>> from gossipcert import bounds
    >>> b = bounds("hypercube:4", "telephone", "gossip")
    >>> b.lower.value, b.upper.value
    (4, 4)
    """
    found = all_bounds(as_instance(G, model, problem, root=root))
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
) -> CheckReport:
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
    >>> from gossipcert import check, solve
    >>> cert = solve("ring:5", "telephone", "gossip").certificate()
    >>> check(cert).ok
    True
    """
    from gossipcert.certificates.certificate import read_certificate
    from gossipcert.command_start import call_origin, limits_from

    origin = call_origin()  # before the checkers' imports: the limit counts them
    from gossipcert.command_start import checked_time_limit
    from gossipcert.watchdog import check_within

    time_limit = checked_time_limit(time_limit)
    cert = (
        certificate if isinstance(certificate, dict) else read_certificate(os.fspath(certificate))
    )
    with limits_from(origin):
        report: CheckReport = check_within(cert, time_limit, full)
    return report


def upgrade(
    certificate: str | os.PathLike[str] | dict[str, Any],
    *,
    time_limit: float | None = None,
) -> tuple[CheckReport, dict[str, Any] | None]:
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
    >>> from gossipcert import upgrade
    >>> old = json.loads(pathlib.Path("results/store/half-duplex_gossip_n5_18ae0b23b971d93c"
    ...     ".cert.json").read_text())  # doctest: +SKIP
    >>> report, new = upgrade(old)  # doctest: +SKIP
    >>> report.ok, new["evidence"]["proof_format"]  # doctest: +SKIP
    (True, 'lrat')
    """
    import copy

    from gossipcert.certificates.certificate import read_certificate
    from gossipcert.command_start import call_origin, limits_from

    origin = call_origin()  # before the checkers' imports: the limit counts them
    from gossipcert.command_start import checked_time_limit
    from gossipcert.watchdog import upgrade_within

    time_limit = checked_time_limit(time_limit)
    cert = copy.deepcopy(
        certificate if isinstance(certificate, dict) else read_certificate(os.fspath(certificate))
    )
    with limits_from(origin):
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
    >>> from gossipcert import table
    >>> df = table("results/bermond.toml")  # doctest: +SKIP
    """
    from gossipcert.tables import dask_runner, read_sweep, run_sweep
    from gossipcert.tables import table as sweep_table

    spec = read_sweep(os.fspath(sweep))
    runner = dask_runner(scheduler) if scheduler else None
    run_sweep(spec, jobs=jobs, runner=runner, progress=progress)
    return sweep_table(spec)
