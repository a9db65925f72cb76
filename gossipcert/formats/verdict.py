"""The verdict on another tool's algorithm: valid or not, where it breaks, which model it fits
and how far it is from the certified optimum.

:func:`verify_algorithm` reads an algorithm file (MSCCL XML, SCCL JSON or TE-CCL JSON),
replays it (:mod:`gossipcert.formats.replay`), checks its transmissions round by round
against a topology, and compares its rounds with the optimum gossipcert certifies for the
same collective, topology and chunk count:

* **topology**: any graph spec (``fully-connected:8``, ``hub:8``, ``dgx1``, ``ring:8``) or a
  graph file, including TACCL and TE-CCL topology JSON (:mod:`gossipcert.graphs.topologies`):
  the one the file carries (SCCL's) or the one the caller names, never a default. Rank ``r``
  is the ``r``-th processor of the graph (routers, such as switches, are not ranks);
* **model**: by default ``all-port`` with the topology's capacities (a link carries at most
  its capacity in chunks per round and direction), or ``single-port:p=1`` on ``hub:N`` (one
  chunk out of and one into each GPU per round). A transmission between GPUs that are not
  linked, or more chunks on a link in one round than it carries, means the algorithm does
  not fit the model; the verdict then gives the uniform capacity it would need. Any other
  model is chosen with ``model=`` (``--model``): the transmissions of each round, as the
  timing puts them, become one round of a gossipcert schedule (a sender's chunks to one
  receiver one transmission; under ``multicast`` the same chunks to several receivers one
  transmission), and the verifier's port rules of that model judge them (``two-calls``,
  ``packet-cap``, ``sends-twice``, ...); ``model_default`` says whether the model was the
  default one;
* **problem**: ``allgather`` is gossipcert's ``gossip``, ``alltoall`` is ``total-exchange``,
  ``allreduce`` is ``allreduce``, ``reducescatter`` is ``reduce-scatter``, ``reduce`` is
  ``reduce:R`` and ``broadcast`` is ``broadcast:R`` (``R`` the root the replay finds: the
  file names none), each with ``chunks=K`` when a rank's data is ``K`` chunks. A problem the
  solver does not know gives an optimum marked unavailable, with the reason;
* **optimum**: :func:`gossipcert.watchdog.solve_within` within the time limit: the
  certified optimum, or the bracket found in time; a valid algorithm that fits the model is
  itself an upper bound (the optimum is at most its rounds), and ``lower_source`` and
  ``upper_source`` say where each end of the bracket comes from. The gap is the
  algorithm's rounds minus the optimum (or minus each end of the bracket), given only when
  the algorithm fits the model.

For the copy collectives (allgather, alltoall, broadcast) the transmissions are also turned into a
gossipcert schedule and replayed by :func:`gossipcert.simulate.simulate`, the verifier of
every schedule the project handles: the two replays must agree.

References
----------
.. [1] Cai, Liu, Maleki, Musuvathi, Mytkowicz, Nelson, Saarikivi, "Synthesizing optimal
   collective algorithms", PPoPP 2021 (SCCL: rounds, chunks and the all-port model).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.certificates.kinds import proves
from gossipcert.errors import FormatError, GossipcertError
from gossipcert.formats import readers
from gossipcert.formats.findings import Finding, Replay, Transfer
from gossipcert.formats.transfer_schedules import (
    reduction_schedule_from_transfers,
    schedule_from_transfers,
)
from gossipcert.formats.verdict_record import Verdict
from gossipcert.instance import (
    Model,
    make_instance,
    parse_model,
    parse_problem,
)
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import PORT_RULES, simulate
from gossipcert.statuses import SolveStatus
from gossipcert.verifier.ports import check_loads
from gossipcert.watchdog import solve_within

#: MSCCL's collective names and gossipcert's problems (with ``{k}`` the chunks per rank)
PROBLEMS = {
    "allgather": "gossip",
    "alltoall": "total-exchange",
    "allreduce": "allreduce",
    "reducescatter": "reduce-scatter",
    "reduce": "reduce:{root}",
    "broadcast": "broadcast:{root}",
}


#: the machines a file can be checked and timed on (the error when none is named)
MACHINES_HELP = (
    "a machine (dgx1, dgx2, ndv2:K, ndv5:K, ndv5:1:gpus=G, a100:K, mi250:K, mi250:K:forestcoll, "
    "mi300x:N), any graph spec (ring:8, fully-connected:8, hub:8; no physical units) or a "
    "topology file (TACCL, TE-CCL, SCCL JSON)"
)


def topology_graph(spec: str | nx.Graph | None, ranks: int) -> nx.Graph:
    """The topology a check runs on: a graph, a graph spec or file (there is no default:
    an algorithm is judged on the machine the file or the user names).

    Raises
    ------
    FormatError
        No topology, or one whose processors are not as many as the algorithm's ranks.
    """
    if spec is None:
        raise FormatError(f"name the machine with --topology: {MACHINES_HELP}")
    graph = spec if isinstance(spec, nx.Graph) else graphs.from_spec(spec)
    procs = graphs.processors(graph)
    if len(procs) != ranks:
        raise FormatError(
            f"the algorithm has {ranks} ranks but {graph.graph.get('spec', spec)} has "
            f"{len(procs)} GPUs (processors); name a machine with as many"
        )
    return graph


def topology_model(graph: nx.Graph) -> Model:
    """``single-port:p=1`` on a hub (nodes behind one switch), else ``all-port``."""
    ports = graph.graph.get("ports")
    return parse_model(f"{ports}:p=1" if ports else "all-port")


def _loads(transfers: list[Transfer], procs: list[int]) -> dict[int, dict[tuple[int, int], int]]:
    loads: dict[int, dict[tuple[int, int], int]] = defaultdict(lambda: defaultdict(int))
    for tr in transfers:
        loads[tr.round][(procs[tr.sender], procs[tr.receiver])] += tr.cnt
    return {t: dict(links) for t, links in loads.items()}


def _model_findings(
    graph: nx.Graph, model: Model, loads: dict[int, dict[tuple[int, int], int]], procs: list[int]
) -> tuple[list[Finding], int]:
    """The verifier's rules on the chunks each link carries a round
    (:func:`gossipcert.verifier.ports.check_loads`): links the topology lacks, and loads
    above capacity (a port model: the chunks through each GPU's ports; arc capacities: each
    link's); and the capacity needed."""
    out: list[Finding] = []

    def found(t: int, nodes: tuple[int, ...], rule: str, text: str) -> None:
        rank = procs.index(nodes[0]) if nodes and nodes[0] in procs else None
        rule = "not-a-link" if rule == "not-a-neighbour" else rule
        out.append(Finding(rule, f"round {t}: {text}", t, rank))

    ref = lambda v: graphs.node_ref(graph, v)  # noqa: E731
    need = 0
    for t, links in sorted(loads.items()):
        need = max(need, check_loads(t, model, graph, links, found, ref))
    return out, need


def _port_findings(
    graph: nx.Graph, model: Model, spec: str | None, replay: Replay, procs: list[int]
) -> tuple[list[Finding], int]:
    """The verifier's port rules of ``model`` on the transmissions, round by round; and the
    most chunks one transmission carries.

    Raises
    ------
    FormatError
        The collective has no gossipcert problem, so no schedule to judge.
    """
    if spec is None:
        raise FormatError(
            f"the model {model.spec()} is judged on the collective's schedule, and this "
            "collective has no gossipcert problem; leave --model out (the topology's default)"
        )
    instance = make_instance(graph, model, parse_problem(spec))
    reduction = instance.problem.reduction
    build = reduction_schedule_from_transfers if reduction else schedule_from_transfers
    schedule = build(instance, replay.transfers, procs)
    if not model.rules.point_to_point:  # one transmission to several receivers
        schedule = _multicast(schedule)
    rep = simulate(instance, schedule)
    out = [
        Finding(
            "not-a-link" if e.rule == "not-a-neighbour" else e.rule,
            e.message,
            e.round,
            procs.index(e.nodes[0]) if e.nodes and e.nodes[0] in procs else None,
        )
        for e in rep.errors
        if e.rule in PORT_RULES
    ]
    need = max((bin(t.packets or 0).count("1") for rnd in schedule.rounds for t in rnd), default=0)
    return out, need


def _multicast(schedule: Schedule) -> Schedule:
    """Each sender's transmissions of a round that carry the same chunks as one transmission
    to all their receivers."""
    rounds = []
    for rnd in schedule.rounds:
        merged: dict[tuple[int, int | None, str], list[int]] = {}
        for t in rnd:
            merged.setdefault((t.sender, t.packets, t.op), []).extend(t.receivers)
        rounds.append(tuple(Transmission(u, tuple(vs), m, op) for (u, m, op), vs in merged.items()))
    return Schedule(tuple(rounds))


def _comparable_model(model: Model, findings: list[Finding], need: int) -> Model | None:
    """The model to compare with: the model itself when the algorithm fits it; all-port with
    the uniform capacity it needs when it overloads links the topology has (its rounds are
    then compared with links that carry as much as it sends); None when it uses links the
    topology lacks."""
    if not findings:
        return model
    if not model.rules.arc_capacities or any(f.rule == "not-a-link" for f in findings):
        return None
    return parse_model(f"{model.kind.value}:c={need}")


def problem_spec(collective: str, chunks: int, ranks: int, root: int | None = None) -> str | None:
    """gossipcert's problem spec for an MSCCL collective (None: no such problem).

    Examples
    --------
    >>> problem_spec("allgather", 2, 8), problem_spec("allreduce", 16, 8)
    ('gossip:chunks=2', 'allreduce:chunks=2')
    """
    name = PROBLEMS.get(collective)
    if name is None:
        return None
    if collective == "allreduce":  # the whole buffer of C chunks: n C/n pieces
        if chunks % ranks:
            return None
        chunks //= ranks
    if "{root}" in name:
        if root is None:
            return None
        name = name.format(root=root)
        return name + (f",chunks={chunks}" if chunks != 1 else "")
    return name + (f":chunks={chunks}" if chunks != 1 else "")


def _optimum(
    graph: nx.Graph, model: Model, spec: str | None, time_limit: float | None
) -> dict[str, Any]:
    if spec is None:
        return {"available": False, "reason": "gossipcert has no problem for this collective"}
    try:
        problem = parse_problem(spec)
    except GossipcertError:
        return {
            "available": False,
            "reason": f"the solver does not know the problem {spec.split(':')[0]!r} yet",
        }
    instance = make_instance(graph, model, problem)
    res = solve_within(instance, time_limit=time_limit)
    evidence = res.evidence or {}
    lower_source = str(evidence.get("kind", "none"))
    if evidence.get("name") or evidence.get("source"):
        lower_source += f": {evidence.get('name') or evidence.get('source')}"
    fields = res.status_fields()
    # the lower end rests on evidence beyond a solver's word (bounds that met: the result's)
    optimal = res.status is SolveStatus.OPTIMAL
    proved = fields["status"] is SolveStatus.OPTIMAL if optimal else proves(evidence)
    return {
        "available": True,
        **fields,
        "lower_proved": proved,
        "evidence": evidence.get("kind"),
        "lower_source": lower_source,
        "upper_source": f"gossipcert's search ({res.upper_source})"
        if res.upper_bound is not None
        else "none",
        "timed_out": res.timed_out,
    }


def with_algorithm_bound(
    best: dict[str, Any], rounds: int, model: str, verified: bool
) -> dict[str, Any]:
    """The optimum's bracket with the algorithm's own rounds as an upper bound.

    A valid algorithm that fits ``model`` is a schedule of ``rounds`` rounds for the instance
    it was checked under: the optimum is at most ``rounds``. The upper end becomes
    ``rounds`` when it is lower than the search's (``upper_source`` says which). A bracket it
    closes gives the optimum (status ``optimal``, ``certified`` false: no certificate holds
    this schedule) only when the lower end is proved (``lower_proved``) and gossipcert's
    verifier replayed the algorithm as a complete schedule (``verified``); else the status
    stays what the evidence proves, with the bracket closed.

    Examples
    --------
    >>> best = {"available": True, "status": "feasible", "optimum": None, "certified": False,
    ...         "lower_bound": 3, "upper_bound": 60, "upper_source": "search",
    ...         "lower_proved": True}
    >>> out = with_algorithm_bound(best, 30, "all-port:c=12", verified=True)
    >>> out["upper_bound"], out["upper_source"]
    (30, 'this algorithm (valid, fits all-port:c=12)')
    >>> with_algorithm_bound(best, 3, "all-port", verified=True)["optimum"]
    3
    >>> closed = with_algorithm_bound(best, 3, "all-port", verified=False)
    >>> closed["status"], closed["optimum"], closed["upper_bound"]
    ('feasible', None, 3)
    """
    if not best.get("available") or best.get("optimum") is not None:
        return best
    out = dict(best)
    upper = out.get("upper_bound")
    if upper is None or rounds < upper:
        out["upper_bound"] = rounds
        out["upper_source"] = f"this algorithm (valid, fits {model})"
    lower = out.get("lower_bound")
    closed = lower is not None and lower == out["upper_bound"]
    if closed and verified and out.get("lower_proved"):
        out["status"] = SolveStatus.OPTIMAL
        out["optimum"] = lower
        out["certified"] = False  # the upper end is the replay, not a certificate
    return out


def assess(
    replay: Replay,
    *,
    source: str,
    fmt: str,
    collective: str,
    ranks: int,
    steps: int,
    topology: str | nx.Graph | None = None,
    time_limit: float | None = 60.0,
    optimum: bool = True,
    root: int | None = None,
    model: str | Model | None = None,
) -> Verdict:
    """The verdict on a replayed algorithm (see the module docstring)."""
    start = time.monotonic()
    graph = topology_graph(topology, ranks)
    default = topology_model(graph)
    chosen = model if isinstance(model, Model) or model is None else parse_model(model)
    procs = graphs.processors(graph)
    loads = _loads(replay.transfers, procs)
    spec = problem_spec(collective, replay.chunks_per_rank, ranks, root)
    plain = chosen is not None and chosen.rules.arc_capacities and not chosen.calls_per_round
    if chosen is None or plain:
        model = default if chosen is None else chosen
        model_findings, need = _model_findings(graph, model, loads, procs)
    else:
        model = chosen
        model_findings, need = _port_findings(graph, model, spec, replay, procs)
    check = None
    if collective in ("allgather", "alltoall", "broadcast") and spec is not None:
        instance = make_instance(graph, model, parse_problem(spec))
        rep = simulate(instance, schedule_from_transfers(instance, replay.transfers, procs))
        check = {
            "valid": rep.valid,
            "complete": rep.complete,
            "rounds": rep.rounds,
            "errors": [e.message for e in rep.errors[:20]],
        }
    checked = time.monotonic()
    compared = _comparable_model(model, model_findings, need)
    target = compared or model
    if optimum:
        best = _optimum(graph, target, spec, time_limit)
        if replay.valid and replay.semantics and compared is not None:
            # the algorithm replayed by gossipcert's own verifier, all demands met
            verified = check is not None and check["valid"] is True and check["complete"] is True
            best = with_algorithm_bound(best, replay.rounds, compared.spec(), verified)
    else:
        best = {"available": False, "reason": "not asked"}
    return Verdict(
        source=source,
        fmt=fmt,
        collective=collective,
        ranks=ranks,
        chunks=replay.chunks_per_rank,
        steps=steps,
        replay=replay,
        topology=str(graph.graph.get("spec", topology)),
        model=model.spec(),
        model_findings=model_findings,
        needs_capacity=need,
        loads=loads,
        problem=spec,
        optimum=best,
        schedule_check=check,
        compared_model=compared.spec() if compared is not None and optimum else None,
        optimum_model=target.spec(),
        seconds={"check": checked - start, "optimum": time.monotonic() - checked},
        model_default=chosen is None,
    )


#: the formats :func:`verify_algorithm` reads
FORMATS = ("msccl-xml", "mscclpp-plan", "sccl-json", "teccl-json")


def verify_algorithm(
    path: str,
    fmt: str = "msccl-xml",
    topology: str | None = None,
    time_limit: float | None = 60.0,
    optimum: bool = True,
    model: str | None = None,
) -> Verdict:
    """Read another tool's algorithm file and give the verdict on it.

    Parameters
    ----------
    path : str
        The file.
    fmt : {"msccl-xml", "mscclpp-plan", "sccl-json", "teccl-json"}
    topology : str, optional
        A graph spec or file (TACCL and TE-CCL topology JSON included); required unless
        the file carries its own (an SCCL algorithm's).
    time_limit : float, optional
        Seconds for the optimum's search (None: no limit).
    optimum : bool
        Whether to search for the optimum at all.
    model : str, optional
        The model the algorithm is judged under and its optimum sought in (``"telephone"``,
        ``"single-port:p=1"``, ...); by default the topology's (``all-port`` with its
        capacities; ``single-port:p=1`` on ``hub:N``), which ``Verdict.model_default``
        says.

    Returns
    -------
    Verdict

    Raises
    ------
    FormatError
        An unreadable file, a file of another tool, no topology, or a topology with another
        number of GPUs.

    Examples
    --------
    A ring allgather one way round a 4-ring takes 3 rounds; both ways round, 2 suffice:

    >>> import pathlib, tempfile
    >>> from gossipcert import msccl_xml_from_schedule, verify_algorithm
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.schedule import Schedule, Transmission
    >>> inst = parse_instance("ring:4", "all-port", "gossip")
    >>> one_way = Schedule(tuple(
    ...     tuple(Transmission(r, ((r + 1) % 4,), 1 << ((r - t) % 4)) for r in range(4))
    ...     for t in range(3)))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "ring.xml"
    ...     _ = target.write_text(msccl_xml_from_schedule(one_way, inst))
    ...     verdict = verify_algorithm(str(target), topology="ring:4", time_limit=30)
    >>> verdict.valid, verdict.rounds, verdict.optimum["optimum"], verdict.gap()
    (True, 3, 2, {'exact': 1})
    """
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    start = time.monotonic()
    loaded = readers.load(path, fmt)
    read = time.monotonic() - start
    verdict = assess(
        loaded.replay,
        source=path,
        fmt=fmt,
        collective=loaded.collective,
        ranks=loaded.ranks,
        steps=loaded.steps,
        topology=topology or loaded.topology,
        time_limit=time_limit,
        optimum=optimum,
        root=loaded.root,
        model=model,
    )
    verdict.seconds["read"] = read
    return verdict
