"""The Python face of gossipcert: :func:`solve`, :func:`verify`, :func:`bounds`,
:func:`check` and :func:`table`, re-exported as ``gossipcert.solve`` and so on; and for other
tools' algorithms :func:`~gossipcert.formats.verdict.verify_algorithm` (an MSCCL XML, SCCL or
TE-CCL file in, the verdict and the gap to the certified optimum out) and the writers
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
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms import Bound, all_bounds
from gossipcert.errors import CertificateError, GossipcertError
from gossipcert.formats.verdict import Verdict, verify_algorithm
from gossipcert.formats.writers import msccl_xml_from_schedule, sccl_json_from_schedule
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import (
    Instance,
    Model,
    Problem,
    bits,
    make_instance,
    parse_model,
    parse_problem,
)
from gossipcert.schedule import Schedule, from_json, read_schedule, to_json
from gossipcert.search.rounds import SolveResult
from gossipcert.simulate import Report, simulate

__all__ = [
    "BoundsResult",
    "Result",
    "SolveStatus",
    "Verdict",
    "as_instance",
    "bounds",
    "check",
    "msccl_xml_from_schedule",
    "sccl_json_from_schedule",
    "solve",
    "table",
    "verify",
    "verify_algorithm",
]

#: the logger every library call reports its progress to
logger = logging.getLogger("gossipcert")

#: a graph as the API takes it: a networkx graph, a spec string or a file's path
GraphLike = nx.Graph | str | os.PathLike[str]


class SolveStatus(StrEnum):
    """How far :func:`solve` got."""

    #: the optimum is known: a verified schedule and a lower bound with evidence meet
    OPTIMAL = "optimal"
    #: a verified schedule is known, but not that it is shortest
    FEASIBLE = "feasible"
    #: no schedule was found in time
    UNKNOWN = "unknown"
    #: no schedule can exist (some demand can never be met)
    INFEASIBLE = "infeasible"


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


def _node_name(instance: Instance, v: int) -> Hashable:
    names = instance.graph.graph.get("nodes")
    return names[v] if names is not None else instance.graph.nodes[v].get("label", str(v))


@dataclass(frozen=True)
class Result:
    """What :func:`solve` found: the status, both bounds with their evidence, the schedule.

    Attributes
    ----------
    status : SolveStatus
    optimum : int or None
        The least number of rounds, when ``status`` is ``OPTIMAL``.
    lower, upper : int or None
        The best lower bound and the length of the best verified schedule.
    lower_evidence : dict
        How the lower bound is known: ``{"kind": "closed-form", ...}`` (a bound and its
        citation), ``"drat"`` (a proof checked by two checkers), ``"split"``, or
        ``"solver-claim"`` (the solver's word only, e.g. ``proof=False``).
    upper_source : str
        Where the schedule comes from (a construction, a heuristic, the solver).
    schedule : Schedule or None
        The best schedule, replayed by the verifier before it was returned.
    certified : bool
        An optimum whose lower bound has evidence beyond the solver's word.
    timed_out : bool
        The time limit ran out first.
    instance : Instance
    raw : SolveResult
        The search's own result (times, event log, encoding options).
    """

    status: SolveStatus
    optimum: int | None
    lower: int
    upper: int | None
    lower_evidence: dict[str, Any]
    upper_source: str
    schedule: Schedule | None
    certified: bool
    timed_out: bool
    instance: Instance
    raw: SolveResult

    @classmethod
    def from_search(cls, res: SolveResult) -> Result:
        """The result of a search (:func:`gossipcert.search.watchdog.solve_within`).

        Parameters
        ----------
        res : SolveResult
            What the search returned.

        Returns
        -------
        Result
        """
        return cls(
            SolveStatus(res.status),
            res.optimum,
            res.lower_bound,
            res.upper_bound,
            res.evidence,
            res.upper_source,
            res.schedule,
            res.certified,
            res.timed_out,
            res.instance,
            res,
        )

    def named_rounds(self) -> list[list[tuple[Hashable, tuple[Hashable, ...], tuple[Any, ...]]]]:
        """The schedule with the graph's own node names: per round, one
        ``(sender, receivers, packets)`` per transmission; a packet is named by its holder
        (gossip, broadcast, gather) or by its pair of nodes, as in the JSON output.

        Returns
        -------
        list of list of (name, tuple of names, tuple)
            One list per round; ``("all",)`` for "everything the sender knows".

        Examples
        --------
        >>> import networkx as nx
        >>> res = solve(nx.path_graph(["x", "y"]), "telephone", "broadcast:x")
        >>> res.named_rounds()
        [[('x', ('y',), ('all',))]]
        """
        if self.schedule is None:
            return []
        inst = self.instance
        out = []
        for rnd in self.schedule.rounds:
            row = []
            for tr in rnd:
                know = tr.packets
                packets: tuple[Any, ...] = (
                    ("all",) if know is None else tuple(_packet_name(inst, p) for p in bits(know))
                )
                row.append(
                    (
                        _node_name(inst, tr.sender),
                        tuple(_node_name(inst, d) for d in tr.receivers),
                        packets,
                    )
                )
            out.append(row)
        return out

    def to_json(self) -> dict[str, Any]:
        """The fields of ``gossipcert solve --json``: ``status``, ``optimum``,
        ``lower_bound``, ``upper_bound``, ``schedule``, ``evidence`` and the instance.

        Returns
        -------
        dict
            JSON-ready; nodes named by their text (``str`` of a networkx node).

        Examples
        --------
        >>> solve("ring:4").to_json()["optimum"]
        2
        """
        return {
            **self.instance.describe(),
            "status": self.status.value,
            "certified": self.certified,
            "optimum": self.optimum,
            "lower_bound": self.lower,
            "upper_bound": self.upper,
            "schedule": to_json(self.schedule, self.instance) if self.schedule else None,
            "schedule_source": self.upper_source,
            "evidence": self.lower_evidence,
            "timed_out": self.timed_out,
        }

    def certificate(self) -> dict[str, Any]:
        """The certificate of an optimum (what ``gossipcert check`` re-checks).

        Returns
        -------
        dict
            The certificate (format ``gossipcert-certificate/1``), ready for ``json.dump``.

        Raises
        ------
        CertificateError
            The result is not optimal.

        Examples
        --------
        >>> solve("ring:4").certificate()["optimum"]
        2
        """
        from gossipcert.certificates.certificate import build_certificate

        return build_certificate(self.raw)

    def write_certificate(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """Write :meth:`certificate` to a file.

        Parameters
        ----------
        path : str or path
            The file to write.
        overwrite : bool
            Replace an existing file (off: an existing file is an error, never lost).

        Returns
        -------
        Path
            The file written.

        Raises
        ------
        CertificateError
            The result is not optimal, or the file exists.

        Examples
        --------
        >>> solve("ring:4").write_certificate("ring4-cert.json")  # doctest: +SKIP
        PosixPath('ring4-cert.json')
        """
        from gossipcert.store import certificate_text

        target = Path(path)
        if target.exists() and not overwrite:
            raise CertificateError(f"{str(target)!r} exists; pass overwrite=True to replace it")
        target.write_text(certificate_text(self.certificate()))
        return target


def _packet_name(instance: Instance, p: int) -> Any:
    """A packet named with the graph's node names: its holder, its (source, target) pair,
    and with chunks ``(that, chunk index)``."""
    name = instance.packet_names[p]
    chunked = instance.problem.chunks > 1 and isinstance(name, tuple)
    base = name[0] if chunked else name
    if isinstance(base, tuple):
        base = tuple(_node_name(instance, v) for v in base)
    elif isinstance(base, int):
        base = _node_name(instance, base)
    return (base, name[1]) if chunked else base


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


@dataclass(frozen=True)
class BoundsResult:
    """Every closed-form bound that applies, and the best of each kind.

    Parameters
    ----------
    lower, upper : Bound or None
        The largest lower bound and the smallest upper bound.
    found : list of Bound
        Every bound that applies, each with its value and source.
    """

    lower: Bound | None
    upper: Bound | None
    found: list[Bound]


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
