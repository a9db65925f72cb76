"""Commands that look at an instance or a schedule: ``graph``, ``verify``, ``bounds``,
``construct`` and ``heuristic``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape as esc
from rich.table import Table

from gossipcert.cli import formats_cmds as fc
from gossipcert.cli.common import (
    MODEL_HELP,
    ChunksOpt,
    ForceOpt,
    GraphArg,
    JsonOpt,
    ModelOpt,
    ProblemOpt,
    RedopOpt,
    ScheduleOutOpt,
    ShowOpt,
    _bad_input,
    _check_output,
    _chunked,
    _no_reduction,
    _write_text,
    app,
)
from gossipcert.cli.inspect_options import (
    HeuristicApproxOpt,
    HeuristicBandOpt,
    HeuristicDistExpDecayOpt,
    HeuristicDistExpOpt,
    HeuristicLookAheadOpt,
    HeuristicMethodOpt,
    HeuristicNumExpOpt,
    HeuristicQuietOpt,
    HeuristicRoundsOpt,
    HeuristicSeedOpt,
    HeuristicStartOpt,
    HeuristicStepsOpt,
    HeuristicSweepParamsOpt,
    HeuristicTimeLimitOpt,
    HeuristicWeightsOpt,
    VerifyFromFormatOpt,
    VerifyModelOpt,
    VerifyProblemOpt,
    VerifyScheduleOpt,
    VerifyTimeLimitOpt,
)
from gossipcert.cli.stored import stored_or_given_instance
from gossipcert.cli_text import (
    console,
    err_console,
    head,
    print_json,
    print_verdict,
    show_schedule,
)
from gossipcert.errors import NotApplicableError, SpecError

if TYPE_CHECKING:  # pragma: no cover - annotations only
    pass


@app.command("graph")
@_bad_input
def graph_cmd(
    graph: GraphArg,
    as_json: JsonOpt = False,
) -> None:
    """Describe a graph: nodes, edges, degrees, diameter, radius, processors, routers, edge
    capacities, latencies (when not 1) and a machine's links (bandwidth, latency).

    Above 5,000 nodes the diameter and radius come from a bounded number of breadth-first
    searches (eccentricity bounds); when these do not settle them, bounds are printed.
    """
    from gossipcert import graphs

    g = graphs.from_spec(graph)
    info = graphs.describe(g)
    if as_json:
        print_json(info)
        return
    table = Table(title=esc(str(info.get("spec", graph))), show_header=False)
    for key, value in info.items():
        if key == "capacities":
            text = ", ".join(f"{cap}: {count} edges" for cap, count in value.items())
            table.add_row(key, esc(text or "-"))
        elif key == "links":
            for row in value:
                table.add_row(*fc.link_row(row))
        elif key == "latencies":
            lows = [int(lat) for lat in value]
            text = ", ".join(f"{lat}: {count} edges" for lat, count in value.items())
            table.add_row(key, esc(f"{min(lows)}..{max(lows)} ({text})"))
        elif key.endswith("_bounds") or key == "distance_note":
            continue
        elif value is None and f"{key}_bounds" in info:
            low, high = info[f"{key}_bounds"]
            table.add_row(key, f"between {low} and {high} (not settled)")
        elif value is None and key in ("diameter", "radius") and not info.get("connected"):
            table.add_row(key, "infinite (the graph is not connected)")
        elif isinstance(value, bool):
            table.add_row(key, "yes" if value else "no")
        elif key != "spec":
            table.add_row(key, esc(f"{value:.3f}" if isinstance(value, float) else str(value)))
    console.print(table)
    if "distance_note" in info:
        console.print(esc(info["distance_note"]))


@app.command("verify")
@_bad_input
def verify_cmd(
    graph: GraphArg,
    schedule: VerifyScheduleOpt = None,
    model: VerifyModelOpt = None,
    problem: VerifyProblemOpt = None,
    chunks: ChunksOpt = None,
    from_format: VerifyFromFormatOpt = None,
    topology: fc.TopologyOpt = None,
    size: fc.SizeOpt = None,
    alpha: fc.AlphaOpt = None,
    bandwidth: fc.BandwidthOpt = None,
    switch: fc.SwitchOpt = "cut-through",
    time_limit: VerifyTimeLimitOpt = None,
    redop: RedopOpt = None,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Replay a schedule and report every rule it breaks and when all demands are met.

    A certificate or partial result of solve -o, or a schedule file of construct, heuristic
    or decode, is replayed under the graph, model and problem it stores (verify FILE.json
    alone); --model, --problem or --chunks that say otherwise are refused.

    With --from FORMAT FILE --topology MACHINE, another tool's algorithm (MSCCL XML, MSCCL++,
    SCCL or TE-CCL) is replayed: valid or not, every violation, its rounds, whether it fits
    the model on the machine (by default all-port with its capacities, single-port:p=1 on
    hub:N; --model chooses another), the certified optimum and the gap; then its time at
    each --size on the machine's real links beside a certified lower bound on any
    algorithm's time (latency, bandwidth cuts, the round model's optimum), the part that
    binds and the ratio: verify --from msccl-xml ring.xml --topology ring:8 --size 1K,1M

    Exit 0 when the schedule is valid and complete, 1 when it is invalid or incomplete, 2 on
    bad input (including a schedule that names an edge the graph does not have).
    """
    from gossipcert.schedule import load_schedule_file, schedule_from_file_data
    from gossipcert.simulate import simulate

    if from_format is not None:
        if schedule is not None or problem or chunks is not None or redop is not None:
            raise SpecError(
                "verify --from FORMAT takes one file and no SCHEDULE, --problem or --chunks: "
                "the collective and its chunks come from the file"
            )
        timing = {"sizes": size, "alpha": alpha, "bandwidth": bandwidth, "switch": switch}
        limit = 60.0 if time_limit is None else time_limit
        fc.verify_from(graph, from_format, topology, limit, show, as_json, timing, model)
    fc.refuse_from_options(topology, time_limit, size, alpha, bandwidth, switch)
    the_graph: str | None = graph
    if schedule is None:
        if not graph.endswith(".json"):
            raise SpecError("verify needs GRAPH and SCHEDULE (or --from FORMAT FILE)")
        # one file: a schedule, partial result or certificate that carries its instance
        schedule, the_graph = graph, None
    data = load_schedule_file(schedule)  # read once: for the stored instance and the schedule
    instance = stored_or_given_instance(the_graph, schedule, data, model, problem, chunks, redop)
    sched = schedule_from_file_data(schedule, data, instance)
    rep = simulate(instance, sched)
    non_edges = [e for e in rep.errors if e.rule == "not-a-neighbour"]
    error = (
        f"the schedule uses {len(non_edges)} arc(s) the graph does not have; first: "
        f"{non_edges[0].message}"
        if non_edges
        else None
    )
    if as_json:
        extra = {} if error is None else {"error": error, "exit": 2}
        print_json({**instance.describe(), **rep.to_json(instance), **extra})
    else:
        if show:
            show_schedule(sched, instance)
        print_verdict(rep, instance)
    if error is not None:
        if not as_json:
            err_console.print(f"[bold red]error:[/] {esc(error)}", highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    raise typer.Exit(0 if rep.ok else 1)


@app.command("bounds")
@_bad_input
def bounds_cmd(
    graph: GraphArg,
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List every closed-form bound that applies, its value and its source; mark the best."""
    from gossipcert.closed_forms import all_bounds
    from gossipcert.instance import parse_instance

    instance = parse_instance(graph, model, _chunked(problem, chunks))
    _no_reduction(instance, "bounds")
    found = all_bounds(instance)
    lows = [b for b in found if b.kind == "lower"]
    ups = [b for b in found if b.kind == "upper"]
    lower = max(lows, key=lambda b: b.value) if lows else None
    upper = min(ups, key=lambda b: b.value) if ups else None
    if as_json:
        print_json(
            {
                **instance.describe(),
                "lower_bound": lower.value if lower else None,
                "upper_bound": upper.value if upper else None,
                "bounds": [{**b.to_json(), "best": b is lower or b is upper} for b in found],
            }
        )
        return
    table = Table(title=head(instance))
    for col in ("", "kind", "value", "name", "source"):
        table.add_column(col)
    for b in found:
        table.add_row(
            "★" if b is lower or b is upper else "", b.kind, str(b.value), b.name, esc(b.source)
        )
    console.print(table)


def _print_schedule_result(
    name: str,
    instance: Any,
    sched: Any,
    as_json: bool,
    output: str | None,
    show: bool = False,
    extra: dict[str, Any] | None = None,
    report: Any = None,
) -> None:
    """Verify a constructed schedule (unless its verifier ``report`` is given), print it, and
    write it to ``output`` only if it passes; exit 1 if the verifier rejects it."""
    from gossipcert.certificates.certificate import instance_record
    from gossipcert.schedule import to_csv, to_json
    from gossipcert.simulate import simulate

    rep = simulate(instance, sched) if report is None else report
    if output and rep.ok:
        # a JSON schedule carries its instance (graph record, model, problem) as a
        # certificate does, so that verify and draw replay it under its own model
        text = (
            to_csv(sched, instance)
            if output.lower().endswith(".csv")
            else json.dumps({**to_json(sched, instance), "instance": instance_record(instance)})
            + "\n"
        )
        _write_text(output, text)
    if as_json:
        print_json(
            {
                **instance.describe(),
                "algorithm": name,
                **(extra or {}),
                "rounds": rep.rounds,
                "valid": rep.valid,
                "complete": rep.complete,
                "steps": rep.steps,
                "errors": [e.to_json() for e in rep.errors[:20]],
                "schedule": to_json(sched, instance),
            }
        )
    else:
        if show:
            show_schedule(sched, instance)
        print_verdict(rep, instance)
    raise typer.Exit(0 if rep.ok else 1)


def _anneal(
    instance: Any,
    rounds: int | None,
    steps: int | None,
    time_limit: float,
    seed: int,
    start: str,
    as_json: bool,
    output: str | None,
    show: bool,
) -> None:
    """The ``anneal`` method of ``heuristic``: a verified schedule, or exit 1 with the
    fewest demands left unmet."""
    from gossipcert.closed_forms import best_lower_bound
    from gossipcert.heuristics.annealing import AnnealParams, anneal_schedule

    if rounds is None:
        rounds = best_lower_bound(instance).value
    params = AnnealParams(seed=seed, steps=steps, time_limit=time_limit, start=start)
    res = anneal_schedule(instance, rounds, params)
    extra = {
        "rounds_sought": rounds,
        "seed": seed,
        "moves": res.steps,
        "best_unmet": res.best_cost,
        "seconds": round(res.seconds, 3),
    }
    if res.schedule is not None:
        _print_schedule_result("anneal", instance, res.schedule, as_json, output, show, extra)
    if as_json:
        print_json({**instance.describe(), "algorithm": "anneal", **extra, "found": False})
    else:
        console.print(
            f"no schedule of {rounds} rounds found: at best {res.best_cost} demands unmet "
            f"after {res.steps} moves in {res.seconds:.1f} s",
            highlight=False,
        )
    raise typer.Exit(1)


@app.command("construct")
@_bad_input
def construct_cmd(
    graph: GraphArg,
    algorithm: Annotated[
        str,
        typer.Option(
            "--algorithm",
            "-a",
            help="ring-fd, ring-hd, ring-multicast, hamiltonian, product, simple, "
            "concurrent-updown, fattree-flood, farthest-first, fattree-total-exchange, "
            "ring-allgather, ring-alltoall, farthest-first-routes, shift-exchange, "
            "hypercube-doubling, nccl-ring, nccl-pat, circulant-broadcast, ring-pipeline, "
            "scatter-allgather, two-stream-broadcast, translated-allgather, switch-alltoall, "
            "machine-pipeline, tree-mix, tree-broadcast, bermond, rows-columns, "
            "matching-sequence, gather-spread, latency-flood.",
        ),
    ],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help=MODEL_HELP + " Default: the construction's own model where it has one "
            "(ring-fd: single-port:p=1, ring-hd: half-duplex:p=1, ring-multicast, simple, "
            "concurrent-updown: multicast, fattree-*: all-port, bermond: sequential:p=2, "
            "rows-columns, matching-sequence: telephone), else telephone.",
            metavar="MODEL",
        ),
    ] = None,
    problem: ProblemOpt = "gossip",
    sequence: Annotated[
        str | None,
        typer.Option("--sequence", help="Matching indices for matching-sequence, e.g. 02102."),
    ] = None,
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build one of the papers' constructive schedules and verify it.

    Exit 0 when the schedule is valid and complete, 1 when the verifier rejects it, 2 when
    the construction does not apply to the graph, model or problem.
    """
    from gossipcert.constructions.catalog import CONSTRUCTIONS, construct
    from gossipcert.instance import parse_instance

    given_model = model is not None
    if model is None:
        known = CONSTRUCTIONS.get(algorithm)
        model = known.model if known is not None and known.model else "telephone"
    instance = parse_instance(graph, model, problem)
    _no_reduction(instance, "construct")
    _check_output(output, force)
    try:
        sched = construct(instance, algorithm, sequence)
    except NotApplicableError as exc:
        chosen = [] if given_model else [f"the model {instance.model.spec()}"]
        if problem == "gossip":
            chosen.append("the problem gossip")
        if not chosen:
            raise
        raise NotApplicableError(
            f"{exc} (ran with {' and '.join(chosen)}, by default: give --model and "
            "--problem for this construction)"
        ) from None
    _print_schedule_result(algorithm, instance, sched, as_json, output, show)


@app.command("heuristic")
@_bad_input
def heuristic_cmd(
    graph: GraphArg,
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    method: HeuristicMethodOpt = None,
    time_limit: HeuristicTimeLimitOpt = None,
    weights: HeuristicWeightsOpt = None,
    dist_exp: HeuristicDistExpOpt = None,
    dist_exp_decay: HeuristicDistExpDecayOpt = None,
    num_exp: HeuristicNumExpOpt = None,
    band: HeuristicBandOpt = None,
    look_ahead: HeuristicLookAheadOpt = None,
    approx: HeuristicApproxOpt = None,
    seed: HeuristicSeedOpt = None,
    rounds: HeuristicRoundsOpt = None,
    steps: HeuristicStepsOpt = None,
    start: HeuristicStartOpt = "matching",
    sweep_params: HeuristicSweepParamsOpt = False,
    quiet: HeuristicQuietOpt = False,
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run a heuristic (those of Beier and Sibeyn, or annealing) and verify its schedule.

    With no --method, --sweep or matching option it runs Beier and Sibeyn's settings: the
    coloring heuristic on regular graphs (telephone), the matching heuristic's default, then
    section 5.2's Dist_Exp choices and randomised look-ahead restarts, within --time-limit
    (default 60 s), until a schedule meets the closed-form lower bound; each setting's rounds
    on stderr, the best verified schedule on stdout. A matching option runs one setting.

    With --method coloring the matching sequence found (e.g. 0123023) is printed;
    `construct --algorithm matching-sequence --sequence ...` reproduces it on the four
    families of section 8. With --method anneal the exit status is 1 when no schedule of
    --rounds rounds was found (the fewest demands left unmet is printed).
    """
    from gossipcert.heuristics.coloring import coloring_heuristic
    from gossipcert.instance import parse_instance

    names = ("approach", "dist_exp", "dist_exp_decay", "num_exp", "band", "look_ahead")
    values = (weights, dist_exp, dist_exp_decay, num_exp, band, look_ahead, approx, seed)
    given = {k: v for k, v in zip((*names, "approx", "seed"), values, strict=True) if v is not None}
    portfolio = method is None and not sweep_params and not given
    method = method or "matching"
    if time_limit is None:
        from gossipcert.heuristics.portfolio import DEFAULT_SECONDS

        time_limit = DEFAULT_SECONDS if portfolio else 10.0
    if method not in ("matching", "coloring", "anneal"):
        raise SpecError(f"unknown heuristic {method!r}; choose matching, coloring or anneal")
    instance = parse_instance(graph, model, problem)
    _no_reduction(instance, "heuristic")
    _check_output(output, force)
    if method != "anneal" and (rounds is not None or steps is not None or start != "matching"):
        raise SpecError("--rounds, --steps and --start belong to --method anneal")
    if method == "anneal":
        _anneal(instance, rounds, steps, time_limit, seed or 0, start, as_json, output, show)
        return
    if method == "coloring":
        from gossipcert.closed_forms import best_lower_bound

        res = coloring_heuristic(
            instance, min_rounds=best_lower_bound(instance).value, time_limit=time_limit
        )
        if not as_json:
            console.print(f"matching sequence: {res.sequence}", highlight=False)
        _print_schedule_result(
            "coloring", instance, res.schedule, as_json, output, show, {"sequence": res.sequence}
        )
        return
    from gossipcert.heuristics.matching import MatchingParams, with_params
    from gossipcert.heuristics.run import run_default_portfolio, run_heuristic

    if portfolio:
        name, sched, extra = run_default_portfolio(instance, time_limit, not quiet)
        if not as_json and extra.get("sequence"):
            console.print(f"matching sequence: {extra['sequence']}", highlight=False)
        _print_schedule_result(name, instance, sched, as_json, output, show, extra)
        return
    params = with_params(MatchingParams(), **given)  # the options given, the others default
    sched, extra = run_heuristic(instance, params, sweep_params, time_limit, not quiet)
    _print_schedule_result("matching", instance, sched, as_json, output, show, extra)
